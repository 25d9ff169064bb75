/*
 * Tests of the tap's JSON object and CSV line: every field, the nulls, the
 * names of flags and jank bits, rounding, RFC 3339 times, CSV quoting, and
 * a round trip through a real database written by the store.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "fixture.h"
#include "janktag.h"
#include "store.h"
#include "store_sql.h"
#include "tapjson.h"

/* A tap with every field set, to unusual values. */
static void
full_tap(struct store_tap *tap)
{
	memset(tap, 0, sizeof(*tap));
	tap->app = "com.example.app";
	tap->pid = 4242;
	tap->kind = "long_press";
	tap->status = "ok";
	tap->flags = STORE_FLAG_BUSY_BEFORE | STORE_FLAG_INPUT_DROPPED;
	tap->t_down_ns = INT64_C(9007199254740993) - 450000000;
	tap->t_up_ns = INT64_C(9007199254740993);
	tap->wall_ns = INT64_C(1796103474123456789);
	tap->x = 540.25;
	tap->y = 1200.5;
	tap->first_frame_ns = 41234567;
	tap->settle_ns = 250000499;
	tap->frames = 17;
	tap->jank = 0x1u | 0x40u | 0x400u;
	tap->jank_tags = JANKTAG_SELF | JANKTAG_BUFFER_STUFFING;
	tap->session = 3;
	tap->window = "3f2a1b0 com.example.app/com.example.app.MainActivity";
	tap->attribution = "window";
}

/* A tap with everything that can be unknown unknown. */
static void
null_tap(struct store_tap *tap)
{
	memset(tap, 0, sizeof(*tap));
	tap->app = NULL;
	tap->pid = 0;
	tap->kind = "tap";
	tap->status = "no_response";
	tap->t_down_ns = 1000;
	tap->t_up_ns = 2000;
	tap->wall_ns = -1;
	tap->x = NAN;
	tap->y = NAN;
	tap->first_frame_ns = -1;
	tap->settle_ns = -1;
	tap->frames = 0;
	tap->jank = 0x1u;
	tap->session = 0;
}

static char *
print(const cJSON *obj)
{
	char *s = cJSON_PrintUnformatted(obj);

	assert_non_null(s);
	return s;
}

static void
test_full(void **state)
{
	struct store_tap tap;
	cJSON *obj;
	char *s;

	(void)state;
	full_tap(&tap);
	obj = tapjson_new(77, &tap);
	assert_non_null(obj);
	s = print(obj);
	/* Every member, its type, its value and the order of
	 * docs/DESIGN.md 7.6. */
	assert_string_equal(
		s,
		"{\"id\":77,\"app\":\"com.example.app\",\"pid\":4242,"
		"\"kind\":\"long_press\",\"status\":\"ok\","
		"\"flags\":[\"busy_before\",\"input_dropped\"],"
		"\"t_down_ns\":\"9007198804740993\","
		"\"t_up_ns\":\"9007199254740993\","
		"\"wall_time\":\"2026-12-01T05:37:54.123Z\","
		"\"x\":540.25,\"y\":1200.5,\"first_frame_ms\":41.235,"
		"\"settle_ms\":250,\"frames\":17,"
		"\"jank\":[\"app_deadline_missed\",\"dropped\"],"
		"\"jank_tags\":[\"self_jank\",\"buffer_stuffing\"],"
		"\"jank_perceivable\":true,"
		"\"session\":3,"
		"\"window\":\"3f2a1b0 com.example.app/"
		"com.example.app.MainActivity\",\"attribution\":\"window\"}");
	cJSON_free(s);
	cJSON_Delete(obj);
}

static void
test_nulls(void **state)
{
	static const char *const nulls[] = {
		"app",	     "pid",	"wall_time", "x", "y", "first_frame_ms",
		"settle_ms", "session", "window",
	};
	struct store_tap tap;
	cJSON *obj, *item;
	size_t i;

	(void)state;
	null_tap(&tap);
	obj = tapjson_new(1, &tap);
	assert_non_null(obj);
	for (i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
		item = cJSON_GetObjectItemCaseSensitive(obj, nulls[i]);
		assert_non_null(item);
		assert_true(cJSON_IsNull(item));
	}
	/* JANK_NONE is no jank: the array is empty, as are the flags. */
	item = cJSON_GetObjectItemCaseSensitive(obj, "jank");
	assert_true(cJSON_IsArray(item));
	assert_int_equal(cJSON_GetArraySize(item), 0);
	item = cJSON_GetObjectItemCaseSensitive(obj, "flags");
	assert_true(cJSON_IsArray(item));
	assert_int_equal(cJSON_GetArraySize(item), 0);
	item = cJSON_GetObjectItemCaseSensitive(obj, "frames");
	assert_true(cJSON_IsNumber(item) && item->valuedouble == 0);
	item = cJSON_GetObjectItemCaseSensitive(obj, "t_up_ns");
	assert_true(cJSON_IsString(item));
	assert_string_equal(item->valuestring, "2000");
	/* No tags: an empty array, and nothing perceivable. */
	item = cJSON_GetObjectItemCaseSensitive(obj, "jank_tags");
	assert_true(cJSON_IsArray(item));
	assert_int_equal(cJSON_GetArraySize(item), 0);
	item = cJSON_GetObjectItemCaseSensitive(obj, "jank_perceivable");
	assert_true(cJSON_IsFalse(item));
	/* A tap of no window list is the foreground's, said so. */
	item = cJSON_GetObjectItemCaseSensitive(obj, "attribution");
	assert_true(cJSON_IsString(item));
	assert_string_equal(item->valuestring, "foreground");
	assert_int_equal(cJSON_GetArraySize(obj), 20);
	cJSON_Delete(obj);
}

/* The names of an array of strings joined with spaces. */
static void
joined(const cJSON *arr, char *buf, size_t size)
{
	const cJSON *it;
	size_t n = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(it, arr)
	{
		assert_true(cJSON_IsString(it));
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "",
				      it->valuestring);
		assert_true(n < size);
	}
}

static void
test_names(void **state)
{
	char buf[1024];
	cJSON *arr;

	(void)state;
	/* Every flag bit in bit order; an unknown bit (0x800) is left out. */
	arr = tapjson_flags_new(0xfffu);
	assert_non_null(arr);
	joined(arr, buf, sizeof(buf));
	assert_string_equal(buf, "busy_before settle_capped interrupted "
				 "input_dropped end_from_latency "
				 "end_unconfirmed clock_assumed "
				 "start_estimated present_estimated "
				 "injected virtual_device");
	cJSON_Delete(arr);
	arr = tapjson_flags_new(STORE_FLAG_SETTLE_CAPPED);
	joined(arr, buf, sizeof(buf));
	assert_string_equal(buf, "settle_capped");
	cJSON_Delete(arr);

	/* The JankType bits of docs/formats.md 2.4, NONE excepted. */
	arr = tapjson_jank_new(0xffffffffu);
	assert_non_null(arr);
	joined(arr, buf, sizeof(buf));
	assert_string_equal(
		buf, "sf_scheduling prediction_error display_hal "
		     "sf_cpu_deadline_missed sf_gpu_deadline_missed "
		     "app_deadline_missed buffer_stuffing unknown sf_stuffing "
		     "dropped non_animating app_resynced_jitter display_not_on "
		     "display_mode_change_in_progress "
		     "display_power_mode_change_in_progress");
	cJSON_Delete(arr);
	arr = tapjson_jank_new(0x2u | 0x100u | 0x10000u);
	joined(arr, buf, sizeof(buf));
	assert_string_equal(buf, "sf_scheduling unknown");
	cJSON_Delete(arr);
	arr = tapjson_jank_new(0);
	assert_int_equal(cJSON_GetArraySize(arr), 0);
	cJSON_Delete(arr);

	/* Every jank tag in bit order; an unknown bit is left out. */
	arr = tapjson_jank_tags_new(0xffffffffu);
	assert_non_null(arr);
	joined(arr, buf, sizeof(buf));
	assert_string_equal(buf, "self_jank other_jank dropped_frame "
				 "buffer_stuffing sf_stuffing non_perceivable "
				 "unspecified");
	cJSON_Delete(arr);
}

static void
test_ms(void **state)
{
	(void)state;
	assert_true(tapjson_ms(0) == 0);
	assert_true(tapjson_ms(41234567) == 41.235);
	assert_true(tapjson_ms(41234499) == 41.234);
	assert_true(tapjson_ms(41234500) == 41.235);
	assert_true(tapjson_ms(499) == 0);
	assert_true(tapjson_ms(500) == 0.001);
	assert_true(tapjson_ms(-1500) == -0.002);
	assert_true(tapjson_ms(5000000000) == 5000);
	assert_true(tapjson_ms(INT64_C(86400000000000)) == 86400000);
}

static void
test_wall_time(void **state)
{
	char buf[TAPJSON_WALL_TIME_SIZE];
	char small[TAPJSON_WALL_TIME_SIZE - 1];

	(void)state;
	assert_int_equal(tapjson_wall_time(0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
	/* Milliseconds are truncated, never rounded up into the next one. */
	assert_int_equal(tapjson_wall_time(INT64_C(1796103474999999999), buf,
					   sizeof(buf)),
			 0);
	assert_string_equal(buf, "2026-12-01T05:37:54.999Z");
	assert_int_equal(tapjson_wall_time(-1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1969-12-31T23:59:59.999Z");
	assert_int_equal(tapjson_wall_time(INT64_C(951782400000000000), buf,
					   sizeof(buf)),
			 0);
	assert_string_equal(buf, "2000-02-29T00:00:00.000Z");
	/* The ends of int64 ns, both inside RFC 3339's four-digit years. */
	assert_int_equal(tapjson_wall_time(INT64_MAX, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2262-04-11T23:47:16.854Z");
	assert_int_equal(tapjson_wall_time(INT64_MIN, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1677-09-21T00:12:43.145Z");
	assert_int_equal(tapjson_wall_time(0, small, sizeof(small)), -ENOSPC);
}

/* The CSV line of a tap, as a string to free(). */
static char *
csv_line(int64_t id, const struct store_tap *tap)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(tapjson_csv_write(f, id, tap), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(buf), len);
	return buf;
}

static int
count_char(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

static void
test_csv(void **state)
{
	const char *h = tapjson_csv_header();
	struct store_tap tap;
	char *line;

	(void)state;
	assert_string_equal(h, "id,app,pid,kind,status,flags,t_down_ns,t_up_ns,"
			       "wall_time,x,y,first_frame_ms,settle_ms,frames,"
			       "jank,jank_tags,jank_perceivable,session,window,"
			       "attribution\r\n");
	full_tap(&tap);
	line = csv_line(77, &tap);
	assert_string_equal(line, "77,com.example.app,4242,long_press,ok,"
				  "busy_before|input_dropped,9007198804740993,"
				  "9007199254740993,2026-12-01T05:37:54.123Z,"
				  "540.25,1200.5,41.235,250.000,17,"
				  "app_deadline_missed|dropped,"
				  "self_jank|buffer_stuffing,true,3,"
				  "3f2a1b0 com.example.app/"
				  "com.example.app.MainActivity,window\r\n");
	assert_int_equal(count_char(line, ','), count_char(h, ','));
	free(line);

	null_tap(&tap);
	line = csv_line(1, &tap);
	assert_string_equal(line, "1,,,tap,no_response,,1000,2000,,,,,,0,,,"
				  "false,,,foreground\r\n");
	free(line);

	/* A comma, a quote and a line break are quoted, quotes doubled. */
	full_tap(&tap);
	tap.app = "com.a,\"b\"\r\nc";
	tap.x = 0.1;
	tap.first_frame_ns = 999;
	tap.jank = 0;
	tap.jank_tags = JANKTAG_OTHER;
	tap.flags = 0;
	/* Unquoted window names of Android 14 QPR may hold commas. */
	tap.window = "PopupWindow:1a2b, id=3";
	line = csv_line(2, &tap);
	assert_string_equal(line, "2,\"com.a,\"\"b\"\"\r\nc\",4242,long_press,"
				  "ok,,9007198804740993,9007199254740993,"
				  "2026-12-01T05:37:54.123Z,0.1,1200.5,0.001,"
				  "250.000,17,,other_jank,true,3,"
				  "\"PopupWindow:1a2b, id=3\",window\r\n");
	free(line);
	tap.app = "quote\"only";
	line = csv_line(3, &tap);
	assert_non_null(strstr(line, ",\"quote\"\"only\","));
	free(line);
}

static void
test_utf8(void **state)
{
	struct store_tap tap;
	cJSON *obj, *back, *app;
	char *s, *line;

	(void)state;
	null_tap(&tap);
	/* A stray byte, a truncated sequence and an overlong '/'. */
	tap.app = "a\xff"
		  "b\xe2\x82"
		  "c\xc0\xaf"
		  "\xc3\xa9";
	obj = tapjson_new(5, &tap);
	assert_non_null(obj);
	s = print(obj);
	back = cJSON_Parse(s);
	assert_non_null(back);
	app = cJSON_GetObjectItemCaseSensitive(back, "app");
	assert_true(cJSON_IsString(app));
	assert_string_equal(app->valuestring, "a\xef\xbf\xbd"
					      "b\xef\xbf\xbd\xef\xbf\xbd"
					      "c\xef\xbf\xbd\xef\xbf\xbd"
					      "\xc3\xa9");
	line = csv_line(5, &tap);
	assert_non_null(strstr(line, ",a\xef\xbf\xbd"
				     "b"));
	free(line);
	cJSON_Delete(back);
	cJSON_free(s);
	cJSON_Delete(obj);
}

/*
 * The writer every endpoint puts database text through: clean text as
 * it is, bad bytes as U+FFFD, NULL as null.
 */
static void
test_add_string(void **state)
{
	cJSON *obj, *item;
	char *s;

	(void)state;
	obj = cJSON_CreateObject();
	assert_non_null(obj);
	assert_int_equal(tapjson_add_string(obj, "ok", "caf\xc3\xa9"), 0);
	assert_int_equal(tapjson_add_string(obj, "bad", "f\xffo"), 0);
	assert_int_equal(tapjson_add_string(obj, "none", NULL), 0);
	s = print(obj);
	assert_string_equal(s, "{\"ok\":\"caf\xc3\xa9\",\"bad\":\"f\xef\xbf\xbd"
			       "o\",\"none\":null}");
	cJSON_free(s);
	cJSON_Delete(obj);

	item = tapjson_string_new("\xe2\x82");
	assert_non_null(item);
	assert_string_equal(item->valuestring, "\xef\xbf\xbd\xef\xbf\xbd");
	cJSON_Delete(item);
}

/*
 * Writes taps with the store, reads them back with a plain connection
 * through the store's row reader, and checks that the object from the row is
 * the object from the tap that went in.
 */
static void
test_row(void **state)
{
	char dir[256], path[300];
	struct store_tap in[2], out;
	struct store *st = NULL;
	sqlite3_stmt *stmt = NULL;
	sqlite3 *db = NULL;
	int64_t run, id;
	cJSON *a, *b;
	char *sa, *sb;
	int i, rc;

	(void)state;
	assert_int_equal(fixture_tmpdir(dir, sizeof(dir), "test-tapjson"), 0);
	fixture_join(path, sizeof(path), dir, "taps.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_begin_run(st, "replay", NULL, &run), 0);
	full_tap(&in[0]);
	in[0].session = 0;
	null_tap(&in[1]);
	for (i = 0; i < 2; i++)
		assert_int_equal(store_add_tap(st, &in[i]), 0);
	assert_int_equal(store_commit(st), 0);
	store_close(st);

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT " STORE__TAP_COLUMNS
					    " FROM taps ORDER BY id",
					    -1, &stmt, NULL),
			 SQLITE_OK);
	for (i = 0; i < 2; i++) {
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		assert_int_equal(store__tap_row(stmt, &id, &out), 0);
		assert_true(id > 0);
		assert_int_equal(out.pid, in[i].pid);
		assert_true(out.wall_ns == in[i].wall_ns);
		assert_true(out.first_frame_ns == in[i].first_frame_ns);
		assert_int_equal(out.jank, in[i].jank);
		assert_int_equal(out.flags, in[i].flags);
		assert_int_equal(isnan(out.x), isnan(in[i].x));
		assert_int_equal(out.app == NULL, in[i].app == NULL);
		a = tapjson_new(id, &in[i]);
		b = tapjson_new(id, &out);
		assert_non_null(b);
		sa = print(a);
		sb = print(b);
		assert_string_equal(sa, sb);
		cJSON_free(sa);
		cJSON_free(sb);
		cJSON_Delete(a);
		cJSON_Delete(b);
	}
	assert_int_equal(sqlite3_step(stmt), SQLITE_DONE);
	sqlite3_finalize(stmt);

	/* A statement without the columns is refused, not read past. */
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, app FROM taps", -1,
					    &stmt, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	rc = store__tap_row(stmt, &id, &out);
	assert_int_equal(rc, -EINVAL);
	sqlite3_finalize(stmt);
	sqlite3_close(db);
	/* Nothing but the database and its companions may be left. */
	fixture_db_remove(path);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_nulls),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_ms),
		cmocka_unit_test(test_wall_time),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_add_string),
		cmocka_unit_test(test_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
