/*
 * Tests of /v1/events through real sockets on 127.0.0.1 with port 0: tap
 * ids as event ids, its pings, Last-Event-ID answered from the database
 * (a reader the ring left behind too, deleted taps called missed, a
 * server without a ring polling the file), and its end at shutdown.
 */
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "api.h"
#include "events.h"
#include "fixture.h"
#include "log.h"
#include "store.h"
#include "store_sql.h"
#include "store_taps.h"
#include "tapjson.h"

/* How many times needle occurs in s. */
static int
count_str(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* The newest tap id of the file at path. */
static int64_t
last_tap_id(const char *path)
{
	struct store *ro = NULL;
	int64_t id = -1;

	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	assert_int_equal(store_taps_last_id(ro, &id), 0);
	store_close(ro);
	return id;
}

/* Opens a stream, with "Last-Event-ID: last" unless last is NULL. */
static int
open_stream(uint16_t port, const char *last, char *buf, size_t size,
	    size_t *len)
{
	char req[256];
	int fd;

	snprintf(req, sizeof(req),
		 "GET /v1/events HTTP/1.1\r\nHost: x\r\n%s%s%s\r\n",
		 last ? "Last-Event-ID: " : "", last ? last : "",
		 last ? "\r\n" : "");
	fd = fixture_connect(port);
	fixture_send_all(fd, req, strlen(req));
	buf[0] = '\0';
	*len = 0;
	assert_true(fixture_read_until(fd, buf, size, len,
				       ": tapd events\nretry: 2000\n\n", 2000));
	assert_non_null(strstr(buf, "HTTP/1.1 200"));
	return fd;
}

static void
test_events_stream(void **state)
{
	static const char *const bad[] = {
		"",
		"abc",
		"-1",
		"+3",
		"3 4",
		"3x",
		"0x10",
		"1.5",
		"9223372036854775808",
		"99999999999999999999",
	};
	struct fixture_server *f = *state;
	char buf[16384] = "", want[256], line[64], *p, *nl;
	struct fixture_reply r;
	size_t len = 0, i;
	int64_t top, id;
	int fd;

	top = last_tap_id(fixture_api_db());
	assert_true(top >= 3);
	fd = open_stream(f->port, NULL, buf, sizeof(buf), &len);
	assert_non_null(strcasestr(buf, "Content-Type: text/event-stream"));
	assert_non_null(strcasestr(buf, "Cache-Control: no-store"));
	/* Each event's id is the tap's, as the ingest thread publishes it. */
	for (id = top + 1; id <= top + 3; id++) {
		snprintf(want, sizeof(want), "{\"id\":%lld}", (long long)id);
		assert_int_equal(events_publish(f->events, id, want), 0);
	}
	snprintf(want, sizeof(want),
		 "id: %lld\nevent: tap\ndata: {\"id\":%lld}\n\n",
		 (long long)top + 3, (long long)top + 3);
	assert_true(fixture_read_until(fd, buf, sizeof(buf), &len, want, 2000));
	snprintf(want, sizeof(want),
		 "id: %lld\nevent: tap\ndata: {\"id\":%lld}\n\n",
		 (long long)top + 1, (long long)top + 1);
	assert_non_null(strstr(buf, want));
	snprintf(line, sizeof(line), "data: {\"id\":%lld}", (long long)top + 2);
	assert_true(strstr(buf, want) < strstr(buf, line));
	/* Without Last-Event-ID, the taps stored before are not sent. */
	assert_int_equal(count_str(buf, "event: tap"), 3);
	/* Idle: a ping within the 200 ms the fixture set (and slack). */
	assert_true(fixture_read_until(fd, buf, sizeof(buf), &len, ": ping\n\n",
				       2000));
	close(fd);

	/*
	 * A reconnecting client resumes after its Last-Event-ID: the stored
	 * taps above it from the database, each exactly as /v1/taps gives
	 * it, then the ring's, each once, in id order.
	 */
	fd = open_stream(f->port, "2", buf, sizeof(buf), &len);
	snprintf(want, sizeof(want),
		 "id: %lld\nevent: tap\ndata: {\"id\":%lld}",
		 (long long)top + 3, (long long)top + 3);
	assert_true(fixture_read_until(fd, buf, sizeof(buf), &len, want, 2000));
	close(fd);
	fixture_http(f->port, "GET", "/v1/taps?after_id=2&format=ndjson", NULL,
		     NULL, &r);
	assert_int_equal(r.status, 200);
	p = r.body;
	for (id = 3; id <= top + 3; id++) {
		if (id <= top) {
			nl = strchr(p, '\n');
			assert_non_null(nl);
			*nl = '\0';
			snprintf(want, sizeof(want),
				 "id: %lld\nevent: tap\ndata: %s\n\n",
				 (long long)id, p);
			p = nl + 1;
		} else {
			snprintf(
				want, sizeof(want),
				"id: %lld\nevent: tap\ndata: {\"id\":%lld}\n\n",
				(long long)id, (long long)id);
		}
		if (count_str(buf, want) != 1)
			fail_msg("tap %lld: %d times in %s", (long long)id,
				 count_str(buf, want), buf);
		snprintf(line, sizeof(line), "\nid: %lld\n", (long long)id);
		assert_int_equal(count_str(buf, line), 1);
		if (id > 3) {
			snprintf(want, sizeof(want), "\nid: %lld\n",
				 (long long)id - 1);
			assert_true(strstr(buf, want) < strstr(buf, line));
		}
	}
	free(r.body);
	assert_null(strstr(buf, "\nid: 2\n"));
	assert_null(strstr(buf, "\nid: 1\n"));
	assert_null(strstr(buf, "missed"));

	/* Anything but a decimal tap id is a 400, never a guess. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "Last-Event-ID: %s\r\n", bad[i]);
		fixture_http(f->port, "GET", "/v1/events", want, NULL, &r);
		fixture_expect_error(&r, 400, "bad_request");
	}
}

/* A tap of the resume tests, n of them apart. */
static struct store_tap
resume_tap(int64_t n)
{
	struct store_tap t;

	memset(&t, 0, sizeof(t));
	t.app = n % 3 ? "com.example.mail" : "com.example.shop";
	t.pid = 4000 + (int32_t)(n % 7);
	t.kind = n % 5 ? "tap" : "long_press";
	t.status = n % 4 ? "ok" : "no_response";
	t.t_down_ns = 1000000000LL + n * 900000000LL;
	t.t_up_ns = t.t_down_ns + 80000000;
	t.wall_ns = 1796103474000000000LL + n * 900000000LL;
	t.x = 100.5 + (double)n;
	t.y = 2000.25 - (double)n;
	t.first_frame_ns = n % 4 ? 16000000 + n * 1000 : -1;
	t.settle_ns = n % 4 ? 48000000 + n * 3000 : -1;
	return t;
}

/* Stores n taps with w and returns their JSON as the pipeline makes it. */
static void
resume_store(struct store *w, int64_t n, char **text)
{
	struct store_tap t;
	cJSON *obj;
	int64_t i, id;

	for (i = 0; i < n; i++) {
		t = resume_tap(i);
		assert_int_equal(store_insert(w, &t, NULL, 0, &id), 0);
		obj = tapjson_new(id, &t);
		assert_non_null(obj);
		text[id] = cJSON_PrintUnformatted(obj);
		assert_non_null(text[id]);
		cJSON_Delete(obj);
	}
	assert_int_equal(store_commit(w), 0);
}

/* Checks that buf holds taps from..to exactly once each, in order. */
static void
expect_taps(const char *buf, int64_t from, int64_t to, char **text)
{
	const char *prev = buf, *at;
	char *want;
	int64_t id;

	for (id = from; id <= to; id++) {
		if (!text[id])
			continue;
		assert_true(asprintf(&want,
				     "id: %lld\nevent: tap\ndata: %s\n\n",
				     (long long)id, text[id]) > 0);
		at = strstr(buf, want);
		if (!at || count_str(buf, want) != 1 || at < prev)
			fail_msg("tap %lld missing, repeated or out of order",
				 (long long)id);
		prev = at;
		free(want);
	}
}

/*
 * Resuming from the database: a reader the ring left behind reads the
 * rest from the file instead of being told it missed them, a gap the
 * database has (taps deleted) is the only thing called missed, and a
 * server without a ring (tapd serve) follows the file by polling it.
 */
static void
test_events_resume(void **state)
{
	enum { N = 300 };
	char path[600], *text[N + 8], want[128], *buf;
	struct api_config cfg;
	struct events *ev = NULL;
	struct api *api = NULL;
	struct store *w = NULL;
	size_t len = 0, size = 1 << 20;
	int64_t id;
	int fd, fd2, i;

	(void)state;
	memset(text, 0, sizeof(text));
	buf = malloc(size);
	assert_non_null(buf);
	fixture_path(path, sizeof(path), "events.db");
	assert_int_equal(store_open(path, 0, &w), 0);
	assert_int_equal(events_new(16, &ev), 0);
	api_config_default(&cfg);
	cfg.listen = "127.0.0.1:0";
	cfg.db_path = path;
	cfg.pool_size = 2;
	cfg.events = ev;
	assert_int_equal(api_start(&cfg, &api), 0);

	/*
	 * N taps through a ring of 16 as fast as they can be published: the
	 * reader falls behind, and must still get every one, once.
	 */
	fd = open_stream(api_port(api), NULL, buf, size, &len);
	resume_store(w, N, text);
	for (id = 1; id <= N; id++)
		assert_int_equal(events_publish(ev, id, text[id]), 0);
	snprintf(want, sizeof(want), "\nid: %d\n", N);
	assert_true(fixture_read_until(fd, buf, size, &len, want, 5000));
	assert_true(fixture_read_until(fd, buf, size, &len, "\n\n", 2000));
	expect_taps(buf, 1, N, text);
	assert_null(strstr(buf, "missed"));
	close(fd);

	/* Taps 10..19 deleted: resuming from 5 says so, between 9 and 20. */
	assert_int_equal(sqlite3_exec(store__sqlite(w),
				      "DELETE FROM taps WHERE id BETWEEN 10 "
				      "AND 19",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	for (i = 10; i <= 19; i++) {
		cJSON_free(text[i]);
		text[i] = NULL;
	}
	fd = open_stream(api_port(api), "5", buf, size, &len);
	snprintf(want, sizeof(want), "\nid: %d\n", N);
	assert_true(fixture_read_until(fd, buf, size, &len, want, 5000));
	assert_true(fixture_read_until(fd, buf, size, &len, "\n\n", 2000));
	close(fd);
	expect_taps(buf, 6, N, text);
	assert_int_equal(count_str(buf, "event: missed"), 1);
	assert_non_null(strstr(buf, "\nid: 9\n"));
	assert_true(strstr(buf, "\nid: 9\n") <
		    strstr(buf, "event: missed\ndata: {\"missed\": 10}\n\n"));
	assert_true(strstr(buf, "event: missed") < strstr(buf, "\nid: 20\n"));
	assert_null(strstr(buf, "\nid: 5\n"));
	api_stop(api);

	/*
	 * Without a ring, as tapd serve: the taps after Last-Event-ID, then
	 * those another writer stores, found by polling; a stream without
	 * one starts at the newest.
	 */
	cfg.events = NULL;
	assert_int_equal(api_start(&cfg, &api), 0);
	fd = open_stream(api_port(api), "298", buf, size, &len);
	assert_true(
		fixture_read_until(fd, buf, size, &len, "\nid: 300\n", 5000));
	resume_store(w, 2, text);
	assert_true(
		fixture_read_until(fd, buf, size, &len, "\nid: 302\n", 5000));
	assert_true(fixture_read_until(fd, buf, size, &len, "\n\n", 2000));
	expect_taps(buf, 299, 302, text);
	assert_null(strstr(buf, "\nid: 298\n"));
	fd2 = open_stream(api_port(api), NULL, buf, size, &len);
	resume_store(w, 1, text);
	assert_true(
		fixture_read_until(fd2, buf, size, &len, "\nid: 303\n", 5000));
	assert_true(fixture_read_until(fd2, buf, size, &len, "\n\n", 2000));
	expect_taps(buf, 303, 303, text);
	assert_int_equal(count_str(buf, "event: tap"), 1);
	close(fd2);
	close(fd);
	api_stop(api);
	events_free(ev);
	store_close(w);
	for (i = 0; i < N + 8; i++)
		cJSON_free(text[i]);
	free(buf);
}

/* The stream ends cleanly, and promptly, when the server stops. */
static void
test_stop_ends_streams(void **state)
{
	static const char req[] = "GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n";
	struct fixture_server *f = NULL;
	char buf[8192] = "";
	size_t len = 0;
	int64_t t0, dt;
	int fd[2], i;

	(void)state;
	assert_int_equal(fixture_server_setup((void **)&f), 0);
	/* Pings no sooner than in 15 s: only the stop may end the wait. */
	setenv("TAPD_SSE_PING_MS", "15000", 1);
	for (i = 0; i < 2; i++) {
		fd[i] = fixture_connect(f->port);
		fixture_send_all(fd[i], req, sizeof(req) - 1);
		buf[0] = '\0';
		len = 0;
		assert_true(fixture_read_until(fd[i], buf, sizeof(buf), &len,
					       ": tapd events", 2000));
	}
	t0 = fixture_now_ms();
	api_stop(f->api);
	dt = fixture_now_ms() - t0;
	f->api = NULL;
	assert_true(dt < 1500);
	/* The chunked body was terminated, not cut. */
	assert_true(fixture_read_until(fd[0], buf, sizeof(buf), &len,
				       "0\r\n\r\n", 2000));
	close(fd[0]);
	close(fd[1]);
	fixture_server_teardown((void **)&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_events_stream,
						fixture_server_setup,
						fixture_server_teardown),
		cmocka_unit_test(test_events_resume),
		cmocka_unit_test(test_stop_ends_streams),
	};

	log_init("test_api_events", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, fixture_api_group_setup,
				      fixture_group_teardown);
}
