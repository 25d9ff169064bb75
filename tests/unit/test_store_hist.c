/*
 * Tests of the rows a tap adds besides its own, against real files: its
 * frames and its histogram counts (the buckets, their upkeep by the
 * writer, their backfill by a migration), and retention, which deletes
 * them with their taps.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "fixture.h"
#include "log.h"
#include "store.h"
#include "store_sql.h"

/* The migrations of the store, generated from sql/ (see store_schema.c). */
extern const char *const store_migration_sql[];

#define MIN_NS	(60 * 1000000000LL)
#define HOUR_NS (60 * MIN_NS)
#define DAY_NS	(24 * HOUR_NS)
/* 2023-11-14T22:13:00Z: a whole minute, not a whole hour. */
#define WALL0 (1700000000LL * 1000000000LL - 20LL * 1000000000LL)

static void
test_hist_buckets(void **state)
{
	int64_t lo, hi, prev_hi = -1, width;
	double est;
	int b;

	(void)state;
	for (b = 0; b < STORE_HIST_BUCKETS; b++) {
		assert_int_equal(store_hist_edges(b, &lo, &hi), 0);
		/* Contiguous, non-empty, and each edge maps back to b. */
		assert_true(lo == prev_hi + 1);
		assert_true(lo <= hi);
		assert_int_equal(store_hist_bucket(lo), b);
		assert_int_equal(store_hist_bucket(hi), b);
		prev_hi = hi;
		if (b == 0) {
			assert_true(lo == 0 && hi == STORE_HIST_MIN_NS - 1);
			continue;
		}
		if (b == STORE_HIST_BUCKETS - 1)
			break;
		/*
		 * Each bucket is 2% of its lower edge wide, rounded up: so
		 * its midpoint is within 1% (+1 ns) of anything in it.
		 */
		width = hi - lo + 1;
		assert_true(width * 50 >= lo);
		assert_true(width <= lo / 50 + 1);
		assert_true((hi - lo + 1) / 2 <= lo / 100 + 1);
		/* The same bucket as the plain logarithm says, give or take. */
		est = floor(log((double)lo / STORE_HIST_MIN_NS) / log(1.02)) +
		      1;
		assert_true(fabs(est - b) <= 1.0);
	}
	assert_true(hi == INT64_MAX);
	assert_int_equal(store_hist_bucket(INT64_MAX), STORE_HIST_BUCKETS - 1);
	assert_int_equal(store_hist_bucket(-1), 0);
	assert_int_equal(store_hist_bucket(INT64_MIN), 0);
	assert_int_equal(store_hist_bucket(STORE_HIST_MIN_NS), 1);
	assert_int_equal(store_hist_bucket(STORE_HIST_MIN_NS * 102 / 100), 2);
	assert_int_equal(store_hist_edges(-1, &lo, &hi), -EINVAL);
	assert_int_equal(store_hist_edges(STORE_HIST_BUCKETS, &lo, &hi),
			 -EINVAL);
}

static void
test_insert_frames(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	const struct store_frame fr[3] = {
		{1100000000, 1130000000, 0, 1},
		{1110000000, 1150000000, 64, 7},
		{1500000000, 1600000000, 0x80000000u, 0},
	};
	struct store_frame bad[3];
	char path[256], sql[256];
	int64_t id = 0, id2 = 0, id3 = -5;
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "frames.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	t.frames = 3;
	assert_int_equal(store_insert(st, &t, fr, 3, &id), 0);
	assert_true(id > 0);
	assert_int_equal(store_insert(st, &t, fr, 3, &id2), 0);
	assert_int_equal(id2, id + 1);
	/* What does not agree with the tap is refused, and nothing kept. */
	t.frames = 2;
	assert_int_equal(store_insert(st, &t, fr, 3, &id3), -EINVAL);
	assert_int_equal(store_insert(st, &t, NULL, 2, &id3), -EINVAL);
	t.frames = 3;
	memcpy(bad, fr, sizeof(bad));
	bad[2].present_ns = bad[2].start_ns - 1;
	assert_int_equal(store_insert(st, &t, bad, 3, &id3), -EINVAL);
	assert_int_equal(id3, -5);
	/* Without frames (the old call), the tap alone. */
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_added(st), 3);
	assert_int_equal(store_lost(st), 0);
	store_close(st);

	db = fixture_raw_open(path, SQLITE_OPEN_READWRITE);
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM taps"), 3);
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM tap_frames"),
			 6);
	snprintf(sql, sizeof(sql),
		 "SELECT group_concat(seq || ':' || start_ns || ':' ||"
		 " present_ns || ':' || jank || ':' || in_burst, ' ')"
		 " FROM (SELECT * FROM tap_frames WHERE tap_id = %lld"
		 " ORDER BY seq)",
		 (long long)id2);
	{
		char text[256];

		fixture_raw_text(db, sql, text, sizeof(text));
		assert_string_equal(text,
				    "0:1100000000:1130000000:0:1 "
				    "1:1110000000:1150000000:64:1 "
				    "2:1500000000:1600000000:2147483648:0");
	}
	/* Deleting a tap deletes its frames (the writer's foreign keys). */
	fixture_raw_exec(db, "PRAGMA foreign_keys = ON");
	snprintf(sql, sizeof(sql), "DELETE FROM taps WHERE id = %lld",
		 (long long)id);
	fixture_raw_exec(db, sql);
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM tap_frames"),
			 3);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM tap_frames WHERE tap_id = %lld",
		 (long long)id2);
	assert_int_equal(fixture_raw_int(db, sql), 3);
	sqlite3_close(db);
}

/*
 * Taps that cover each rule of what goes into tap_hist; hist_counted
 * says which are counted there.
 */
static void
hist_taps(struct store_tap *t, size_t *n)
{
	struct store_tap base = fixture_sample_tap();
	size_t i = 0;

	base.app = "com.a";
	base.flags = 0;
	base.wall_ns = WALL0 + 10LL * 1000000000;
	base.first_frame_ns = 48000000;
	base.settle_ns = 160000000;
	t[i++] = base; /* A: counted */
	t[i] = base;
	t[i].kind = "long_press";
	t[i++].wall_ns += 20LL * 1000000000; /* B: same minute, counted */
	t[i] = base;
	t[i].app = "com.b";
	t[i].wall_ns += 2 * HOUR_NS;
	t[i].first_frame_ns = 10000000;
	t[i++].settle_ns = -1; /* C: counted, first_frame only */
	t[i] = base;
	t[i].app = NULL;
	t[i++].wall_ns += DAY_NS; /* D: all apps only */
	t[i] = base;
	t[i].status = "no_response";
	t[i].first_frame_ns = -1;
	t[i++].settle_ns = -1; /* E: not ok */
	t[i] = base;
	t[i++].kind = "swipe"; /* F: not a measured kind */
	t[i] = base;
	t[i++].wall_ns = -1; /* G: no wall time */
	t[i] = base;
	t[i].app = STORE_HIST_ALL_APPS;
	t[i++].first_frame_ns = 7000000; /* H: all apps, once */
	t[i] = base;
	t[i].app = "";
	t[i].wall_ns = 3 * DAY_NS + HOUR_NS + 59 * MIN_NS + 59999999999LL;
	t[i++].settle_ns = 5000; /* I: all apps only; bucket 0 */
	*n = i;
}

/* The whole of tap_hist as one text, in key order. */
static void
hist_text(const char *path, char *buf, size_t size)
{
	sqlite3 *db;

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	fixture_raw_text(
		db,
		"SELECT coalesce(group_concat(app || ',' || metric || ',' ||"
		" span || ',' || minute || ',' || bucket || ',' || count,"
		" ';'), '') FROM (SELECT * FROM tap_hist"
		" ORDER BY app, metric, span, minute, bucket)",
		buf, size);
	sqlite3_close(db);
}

static int64_t
hist_count(sqlite3 *db, const char *app, int metric, int span, int64_t wall_ns,
	   int64_t value)
{
	char sql[256];
	int64_t minute = wall_ns / MIN_NS;

	snprintf(sql, sizeof(sql),
		 "SELECT coalesce(sum(count), 0) FROM tap_hist WHERE app = '%s'"
		 " AND metric = %d AND span = %d AND minute = %lld"
		 " AND bucket = %d",
		 app, metric, span, (long long)(minute - minute % span),
		 store_hist_bucket(value));
	return fixture_raw_int(db, sql);
}

static void
test_hist_maintained(void **state)
{
	static const int spans[] = {1, 60, 1440};
	struct store *st = NULL;
	struct store_tap t[16], bad;
	char path[256];
	size_t n, i;
	sqlite3 *db;

	(void)state;
	hist_taps(t, &n);
	fixture_path(path, sizeof(path), "hist.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(store_insert(st, &t[i], NULL, 0, NULL), 0);
	/* A row the database refuses leaves the histogram alone. */
	bad = t[0];
	bad.session = 99;
	assert_int_equal(store_insert(st, &bad, NULL, 0, NULL), -EINVAL);
	store_close(st);

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	for (i = 0; i < 3; i++) {
		/* A B C D H I, and all but C and H have a settle. */
		assert_int_equal(fixture_hist_sum(db, "*", 0, spans[i]), 6);
		assert_int_equal(fixture_hist_sum(db, "*", 1, spans[i]), 5);
		assert_int_equal(fixture_hist_sum(db, "com.a", 0, spans[i]), 2);
		assert_int_equal(fixture_hist_sum(db, "com.a", 1, spans[i]), 2);
		assert_int_equal(fixture_hist_sum(db, "com.b", 0, spans[i]), 1);
		assert_int_equal(fixture_hist_sum(db, "com.b", 1, spans[i]), 0);
		/* A and B share their minute, hour, day and bucket. */
		assert_int_equal(hist_count(db, "com.a", 0, spans[i],
					    t[0].wall_ns, 48000000),
				 2);
		assert_int_equal(hist_count(db, "*", 1, spans[i], t[0].wall_ns,
					    160000000),
				 3);
		assert_int_equal(hist_count(db, "com.b", 0, spans[i],
					    t[2].wall_ns, 10000000),
				 1);
		assert_int_equal(hist_count(db, "*", 0, spans[i], t[3].wall_ns,
					    48000000),
				 1);
		assert_int_equal(
			hist_count(db, "*", 1, spans[i], t[8].wall_ns, 5000),
			1);
	}
	/* I is the last ns of its minute, hour and day: it stays in them. */
	assert_int_equal(
		fixture_raw_int(db, "SELECT count(*) FROM tap_hist WHERE"
				    " app = '*' AND metric = 1 AND bucket = 0"
				    " AND ((span = 1 AND minute = 4439)"
				    " OR (span = 60 AND minute = 4380)"
				    " OR (span = 1440 AND minute = 4320))"),
		3);
	assert_int_equal(fixture_raw_int(db,
					 "SELECT count(*) FROM tap_hist WHERE"
					 " app NOT IN ('*', 'com.a', 'com.b')"),
			 0);
	/* No other rows: every row holds one of the counts above. */
	assert_int_equal(fixture_raw_int(db, "SELECT sum(count) FROM tap_hist"),
			 (6 + 5 + 2 + 2 + 1) * 3);
	sqlite3_close(db);
}

static void
raw_insert_tap(sqlite3 *db, const struct store_tap *t)
{
	sqlite3_stmt *stmt = NULL;

	assert_int_equal(
		sqlite3_prepare_v2(db,
				   "INSERT INTO taps (app, kind, status, flags,"
				   " t_down_ns, t_up_ns, wall_ns,"
				   " first_frame_ns, settle_ns, frames)"
				   " VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7,"
				   " ?8, ?9)",
				   -1, &stmt, NULL),
		SQLITE_OK);
	if (t->app)
		sqlite3_bind_text(stmt, 1, t->app, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, t->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, t->status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 4, t->t_down_ns);
	sqlite3_bind_int64(stmt, 5, t->t_up_ns);
	if (t->wall_ns >= 0)
		sqlite3_bind_int64(stmt, 6, t->wall_ns);
	if (t->first_frame_ns >= 0)
		sqlite3_bind_int64(stmt, 7, t->first_frame_ns);
	if (t->settle_ns >= 0)
		sqlite3_bind_int64(stmt, 8, t->settle_ns);
	sqlite3_bind_int(stmt, 9, t->frames);
	assert_int_equal(sqlite3_step(stmt), SQLITE_DONE);
	sqlite3_finalize(stmt);
}

/*
 * A file of schema version 1 that already holds taps gets the same
 * histogram from the migration as store_insert() builds tap by tap.
 */
static void
test_migration_backfill(void **state)
{
	struct store *st = NULL;
	struct store_tap t[16];
	char path1[256], path2[256], sql[64], text1[4096], text2[4096];
	size_t n, i;
	sqlite3 *db;

	(void)state;
	hist_taps(t, &n);
	fixture_path(path1, sizeof(path1), "v1.db");
	db = fixture_raw_open(path1,
			      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d",
		 STORE_APPLICATION_ID);
	fixture_raw_exec(db, sql);
	fixture_raw_exec(db, store_migration_sql[0]);
	fixture_raw_exec(db, "PRAGMA user_version = 1");
	for (i = 0; i < n; i++)
		raw_insert_tap(db, &t[i]);
	sqlite3_close(db);
	assert_int_equal(store_open(path1, 0, &st), 0);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(st);

	fixture_path(path2, sizeof(path2), "v2.db");
	assert_int_equal(store_open(path2, 0, &st), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(store_insert(st, &t[i], NULL, 0, NULL), 0);
	store_close(st);

	hist_text(path1, text1, sizeof(text1));
	hist_text(path2, text2, sizeof(text2));
	assert_true(strlen(text1) > 100);
	assert_string_equal(text1, text2);
}

/*
 * Retention deletes whole days of taps, in batches, with their frames and
 * histogram rows, and leaves the rest (and taps without a wall time)
 * alone.
 */
static void
test_retention(void **state)
{
	const int64_t day = INT64_C(86400) * 1000000000;
	const int64_t day0 = INT64_C(20000) * day; /* a UTC midnight */
	struct store_frame fr[2] = {{1080000000, 1120000000, 0, 1},
				    {1100000000, 1140000000, 0, 1}};
	struct store *st = NULL;
	struct store_tap t;
	char path[600];
	int64_t deleted, total = 0, id;
	sqlite3 *db;
	int i, rc;

	(void)state;
	fixture_path(path, sizeof(path), "retention.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	/* Ten taps a day over five days, noon to afternoon. */
	for (i = 0; i < 50; i++) {
		t = fixture_sample_tap();
		t.wall_ns = day0 + (i / 10) * day + day / 2 + i * 1000000000LL;
		t.frames = 2;
		assert_int_equal(store_insert(st, &t, fr, 2, &id), 0);
	}
	t = fixture_sample_tap();
	t.wall_ns = -1;
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	assert_int_equal(store_commit(st), 0);

	/* Keep from the middle of day 3 on: days 0..2 go, rounded down. */
	do {
		rc = store_retain(st, day0 + 3 * day + day / 3, 7, &deleted);
		assert_int_equal(rc, 0);
		assert_true(deleted <= 7);
		total += deleted;
	} while (deleted > 0);
	assert_int_equal(total, 30);
	assert_int_equal(store_maintain(st), 0);
	store_close(st);

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM taps"), 21);
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM taps WHERE "
					     "wall_ns IS NULL"),
			 1);
	/* The frames went with their taps. */
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM tap_frames"),
			 40);
	assert_int_equal(
		fixture_raw_int(db, "SELECT count(*) FROM tap_frames WHERE "
				    "tap_id NOT IN (SELECT id FROM taps)"),
		0);
	/* Histogram rows: only the kept days, and they count 20 taps. */
	assert_int_equal(fixture_hist_sum(db, "*", 0, 1440), 20);
	assert_int_equal(fixture_hist_sum(db, "*", 0, 1), 20);
	assert_int_equal(fixture_hist_sum(db, "com.example.app", 1, 60), 20);
	sqlite3_close(db);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_buckets),
		cmocka_unit_test(test_insert_frames),
		cmocka_unit_test(test_hist_maintained),
		cmocka_unit_test(test_migration_backfill),
		cmocka_unit_test(test_retention),
	};

	log_init("test_store_hist", LOG_LEVEL_WARN);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
