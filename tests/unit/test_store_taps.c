/*
 * Tests of the store's readers (store_taps.h) and of the filter every one
 * of them selects with, on files the store itself wrote, read through a
 * read-only store as the API reads them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "fixture.h"
#include "log.h"
#include "store.h"
#include "store_query.h"
#include "store_sql.h"
#include "store_taps.h"

#define MS (1000000LL)
/* 2025-12-01T00:00:00Z. */
#define DAY0   (1764547200LL * 1000000000LL)
#define MAXIDS 64

static struct store_tap
tap_of(const char *app, const char *kind, const char *status, int64_t wall_ns)
{
	static int64_t t_up = 1000000000;
	struct store_tap t;

	memset(&t, 0, sizeof(t));
	t.app = app;
	t.pid = 42;
	t.kind = kind;
	t.status = status;
	t_up += 1000000;
	t.t_down_ns = t_up - 80 * MS;
	t.t_up_ns = t_up;
	t.wall_ns = wall_ns;
	t.first_frame_ns = 20 * MS;
	t.settle_ns = 60 * MS;
	t.frames = 2;
	return t;
}

/* The ids a walk gave, in order. */
struct ids {
	int64_t id[MAXIDS];
	char app[MAXIDS][32];
	size_t n;
	size_t stop_at; /* nonzero: stop once this many came */
};

static int
collect(void *ctx, int64_t id, const struct store_tap *tap)
{
	struct ids *l = ctx;

	assert_true(l->n < MAXIDS);
	l->id[l->n] = id;
	snprintf(l->app[l->n], sizeof(l->app[0]), "%s",
		 tap->app ? tap->app : "");
	l->n++;
	return l->stop_at && l->n == l->stop_at ? 1 : 0;
}

static int
fail_cb(void *ctx, int64_t id, const struct store_tap *tap)
{
	(void)ctx;
	(void)id;
	(void)tap;
	return -EMLINK;
}

/*
 * Writes the file the tests read: ids 1..7 as below, one session holding
 * ids 3 and 4, frames for id 1.
 *   1 com.b tap ok       DAY0 + 3s
 *   2 com.a tap ok       DAY0 + 1s
 *   3 com.a swipe ok     DAY0 + 2s  (session)
 *   4 com.b tap no_resp  DAY0 + 5s  (session)
 *   5 NULL  tap ok       DAY0 + 4s
 *   6 com.a long_press   no wall time
 *   7 com.b multi        DAY0 + 2s
 */
static void
fill(const char *path, int64_t *session)
{
	static const struct store_frame frames[] = {
		{.start_ns = 100, .present_ns = 200, .jank = 0, .in_burst = 1},
		{.start_ns = 300, .present_ns = 450, .jank = 8, .in_burst = 0},
	};
	struct store_tap t;
	struct store *st;
	int64_t id;

	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_session_start(st, "walk", session, NULL), 0);
	t = tap_of("com.b", "tap", "ok", DAY0 + 3000 * MS);
	assert_int_equal(store_insert(st, &t, frames, 2, &id), 0);
	assert_int_equal(id, 1);
	t = tap_of("com.a", "tap", "ok", DAY0 + 1000 * MS);
	assert_int_equal(store_add_tap(st, &t), 0);
	t = tap_of("com.a", "swipe", "ok", DAY0 + 2000 * MS);
	t.session = *session;
	assert_int_equal(store_add_tap(st, &t), 0);
	t = tap_of("com.b", "tap", "no_response", DAY0 + 5000 * MS);
	t.session = *session;
	assert_int_equal(store_add_tap(st, &t), 0);
	t = tap_of(NULL, "tap", "ok", DAY0 + 4000 * MS);
	assert_int_equal(store_add_tap(st, &t), 0);
	t = tap_of("com.a", "long_press", "ok", -1);
	assert_int_equal(store_add_tap(st, &t), 0);
	t = tap_of("com.b", "multi", "ok", DAY0 + 2000 * MS);
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_commit(st), 0);
	store_close(st);
}

static struct store *
reader(const char *name, int64_t *session)
{
	struct store *ro;
	char path[600];

	fixture_path(path, sizeof(path), name);
	fill(path, session);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	return ro;
}

static void
assert_ids(const struct ids *l, const int64_t *want, size_t n)
{
	size_t i;

	assert_int_equal(l->n, n);
	for (i = 0; i < n; i++)
		assert_int_equal(l->id[i], want[i]);
}

/* Walks ro with f in order (limit 0: all) and checks the ids it gave. */
static void
expect_walk(struct store *ro, const struct store_filter *f,
	    enum store_order order, int64_t limit, const int64_t *want,
	    size_t n)
{
	struct ids l;

	memset(&l, 0, sizeof(l));
	assert_int_equal(store_taps_walk(ro, f, order, limit, collect, &l), 0);
	assert_ids(&l, want, n);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(store_kind_names[STORE_KIND_LONG_PRESS],
			    "long_press");
	assert_null(store_kind_names[STORE_KIND_COUNT]);
	assert_null(store_status_names[STORE_STATUS_COUNT]);
	assert_null(store_flag_names[STORE_FLAG_COUNT]);
	assert_int_equal(store_kind_index("multi"), STORE_KIND_MULTI);
	assert_int_equal(store_kind_index("Tap"), -1);
	assert_int_equal(store_kind_index(NULL), -1);
	assert_int_equal(store_status_index("frames_unavailable"),
			 STORE_STATUS_FRAMES_UNAVAILABLE);
	assert_int_equal(store_status_index(""), -1);
}

static void
test_walk_orders(void **state)
{
	static const int64_t by_id[] = {1, 2, 3, 4, 5, 6, 7};
	static const int64_t by_wall[] = {6, 2, 3, 7, 1, 5, 4};
	static const int64_t by_app[] = {6, 5, 2, 3, 7, 1, 4};
	struct store_filter f;
	struct store *ro;
	struct ids l;
	int64_t session;

	(void)state;
	ro = reader("orders.db", &session);
	store_filter_init(&f);
	expect_walk(ro, &f, STORE_ORDER_ID, 0, by_id, 7);
	/* NULL sorts first in SQLite: the tap of no wall time, no app. */
	expect_walk(ro, &f, STORE_ORDER_WALL, 0, by_wall, 7);
	f.wall = STORE_WALL_KNOWN;
	memset(&l, 0, sizeof(l));
	assert_int_equal(
		store_taps_walk(ro, &f, STORE_ORDER_APP_WALL, 0, collect, &l),
		0);
	assert_ids(&l, by_app + 1, 6);
	assert_string_equal(l.app[0], "");
	assert_string_equal(l.app[5], "com.b");
	/* A limit, and a callback that stops, are not errors. */
	expect_walk(ro, &f, STORE_ORDER_ID, 2, by_id, 2);
	memset(&l, 0, sizeof(l));
	l.stop_at = 3;
	assert_int_equal(
		store_taps_walk(ro, &f, STORE_ORDER_ID, 0, collect, &l), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(
		store_taps_walk(ro, &f, STORE_ORDER_ID, 0, fail_cb, NULL),
		-EMLINK);
	assert_int_equal(
		store_taps_walk(ro, &f, (enum store_order)7, 0, collect, &l),
		-EINVAL);
	assert_int_equal(
		store_taps_walk(ro, &f, STORE_ORDER_ID, -1, collect, &l),
		-EINVAL);
	store_close(ro);
}

static void
test_filter(void **state)
{
	static const int64_t app_a[] = {2, 3, 6};
	static const int64_t after[] = {5, 6, 7};
	static const int64_t range[] = {1, 3, 7};
	static const int64_t sess[] = {3, 4};
	static const int64_t cut[] = {6, 2, 3};
	static const int64_t tap_ok[] = {1, 2, 5};
	struct store_filter f;
	struct store *ro;
	struct ids l;
	int64_t session, n;

	(void)state;
	ro = reader("filter.db", &session);

	store_filter_init(&f);
	f.app = "com.a";
	expect_walk(ro, &f, STORE_ORDER_ID, 0, app_a, 3);

	store_filter_init(&f);
	f.app_unknown = 1;
	assert_int_equal(store_taps_count(ro, &f, &n), 0);
	assert_int_equal(n, 1);

	store_filter_init(&f);
	f.after_id = 4;
	expect_walk(ro, &f, STORE_ORDER_ID, 0, after, 3);

	/* Both ends included; a range leaves out taps of no wall time. */
	store_filter_init(&f);
	f.since_ns = DAY0 + 2000 * MS;
	f.until_ns = DAY0 + 3000 * MS;
	expect_walk(ro, &f, STORE_ORDER_ID, 0, range, 3);
	f.until_ns = INT64_MAX;
	assert_int_equal(store_taps_count(ro, &f, &n), 0);
	assert_int_equal(n, 5);

	store_filter_init(&f);
	f.session = session;
	expect_walk(ro, &f, STORE_ORDER_WALL, 0, sess, 2);

	store_filter_init(&f);
	f.kinds = 1u << STORE_KIND_TAP;
	f.status = "ok";
	expect_walk(ro, &f, STORE_ORDER_ID, 0, tap_ok, 3);
	f.kinds = STORE_KINDS_MEASURED;
	assert_int_equal(store_taps_count(ro, &f, &n), 0);
	assert_int_equal(n, 4);

	/* Only taps before (wall, id) = (DAY0 + 2s, 7). */
	store_filter_init(&f);
	f.before_wall_ns = DAY0 + 2000 * MS;
	f.before_id = 7;
	memset(&l, 0, sizeof(l));
	assert_int_equal(
		store_taps_walk(ro, &f, STORE_ORDER_WALL, 0, collect, &l), 0);
	/* A NULL wall time compares as nothing: the row is left out. */
	assert_ids(&l, cut + 1, 2);

	store_filter_init(&f);
	f.wall = STORE_WALL_UNKNOWN;
	assert_int_equal(store_taps_count(ro, &f, &n), 0);
	assert_int_equal(n, 1);
	f.wall = STORE_WALL_KNOWN;
	assert_int_equal(store_taps_count(ro, &f, &n), 0);
	assert_int_equal(n, 6);
	store_close(ro);
}

struct frames {
	int64_t seq[4];
	struct store_frame fr[4];
	size_t n;
};

static int
collect_frame(void *ctx, int64_t seq, const struct store_frame *fr)
{
	struct frames *l = ctx;

	assert_true(l->n < 4);
	l->seq[l->n] = seq;
	l->fr[l->n] = *fr;
	l->n++;
	return 0;
}

static void
test_frames(void **state)
{
	struct store *ro;
	struct frames l;
	int64_t session;

	(void)state;
	ro = reader("frames.db", &session);
	memset(&l, 0, sizeof(l));
	assert_int_equal(store_tap_frames(ro, 1, 10, collect_frame, &l), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.seq[0], 0);
	assert_int_equal(l.seq[1], 1);
	assert_int_equal(l.fr[0].start_ns, 100);
	assert_int_equal(l.fr[1].present_ns, 450);
	assert_int_equal(l.fr[1].jank, 8);
	assert_int_equal(l.fr[0].in_burst, 1);
	assert_int_equal(l.fr[1].in_burst, 0);
	memset(&l, 0, sizeof(l));
	assert_int_equal(store_tap_frames(ro, 1, 1, collect_frame, &l), 0);
	assert_int_equal(l.n, 1);
	memset(&l, 0, sizeof(l));
	assert_int_equal(store_tap_frames(ro, 2, 10, collect_frame, &l), 0);
	assert_int_equal(l.n, 0);
	store_close(ro);
}

static int
collect_app(void *ctx, const char *app)
{
	struct ids *l = ctx;

	snprintf(l->app[l->n], sizeof(l->app[0]), "%s", app);
	l->n++;
	return 0;
}

static int
count_scan(void *ctx, int64_t id, const struct store_tap *tap)
{
	int64_t *n = ctx;

	(void)id;
	assert_non_null(tap->kind);
	assert_non_null(tap->status);
	assert_int_equal(tap->first_frame_ns, 20 * MS);
	(*n)++;
	return 0;
}

static void
test_apps_and_scan(void **state)
{
	struct store *ro;
	struct ids l;
	int64_t session, n = 0;

	(void)state;
	ro = reader("apps.db", &session);
	/* com.a, com.b and the unknown app. */
	assert_int_equal(store_apps_count(ro, &n), 0);
	assert_int_equal(n, 3);
	/* Measured kinds: com.a 2 (tap, long_press), com.b 2 (tap, tap). */
	memset(&l, 0, sizeof(l));
	assert_int_equal(store_apps_busiest(ro, 5, collect_app, &l), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.app[0], "com.a");
	assert_string_equal(l.app[1], "com.b");
	memset(&l, 0, sizeof(l));
	assert_int_equal(store_apps_busiest(ro, 1, collect_app, &l), 0);
	assert_int_equal(l.n, 1);
	n = 0;
	assert_int_equal(store_taps_scan(ro, count_scan, &n), 0);
	assert_int_equal(n, 7);
	store_close(ro);
}

static int
session_taps(void *ctx, const struct store_session *s)
{
	int64_t *taps = ctx;

	assert_string_equal(s->name, "walk");
	assert_int_equal(s->stopped_ns, -1);
	*taps = s->taps;
	return 0;
}

static void
test_sessions_and_info(void **state)
{
	struct store *ro;
	int64_t session, taps = -1, version = 0, n = 0;

	(void)state;
	ro = reader("info.db", &session);
	assert_int_equal(store_session_get(ro, session, session_taps, &taps),
			 0);
	assert_int_equal(taps, 2);
	taps = -1;
	assert_int_equal(store_session_list(ro, session_taps, &taps), 0);
	assert_int_equal(taps, 2);
	assert_int_equal(
		store_session_get(ro, session + 1, session_taps, &taps),
		-ENOENT);
	assert_int_equal(store_info(ro, &version, &n), 0);
	assert_int_equal(version, store_schema_latest());
	assert_int_equal(n, 7);
	store_close(ro);
}

static void
test_read_transaction(void **state)
{
	struct store_filter f;
	struct store *ro;
	struct ids l;
	int64_t session;
	sqlite3_stmt *stmt = NULL;

	(void)state;
	ro = reader("tx.db", &session);
	assert_int_equal(store_read_begin(ro), 0);
	assert_int_equal(sqlite3_get_autocommit(store__sqlite(ro)), 0);
	/* Inside one already, it begins nothing new. */
	assert_int_equal(store_read_begin(ro), 0);
	store_filter_init(&f);
	memset(&l, 0, sizeof(l));
	assert_int_equal(
		store_taps_walk(ro, &f, STORE_ORDER_ID, 0, collect, &l), 0);
	store_read_end(ro);
	assert_int_equal(sqlite3_get_autocommit(store__sqlite(ro)), 1);
	/* A statement left stepping is reset, a transaction rolled back. */
	assert_int_equal(sqlite3_prepare_v2(store__sqlite(ro),
					    "SELECT id FROM taps", -1, &stmt,
					    NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	assert_true(sqlite3_stmt_busy(stmt));
	assert_int_equal(store_read_begin(ro), 0);
	store_reset(ro);
	assert_false(sqlite3_stmt_busy(stmt));
	assert_int_equal(sqlite3_get_autocommit(store__sqlite(ro)), 1);
	sqlite3_finalize(stmt);
	store_close(ro);
}

/*
 * The newest id, which /v1/events starts a stream at: 0 for no taps, and
 * never an id given before, even once the newest row is deleted.
 */
static void
test_last_id(void **state)
{
	struct store *st, *ro;
	struct store_tap t;
	char path[600];
	int64_t session, id = -1;

	(void)state;
	fixture_path(path, sizeof(path), "last.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_taps_last_id(st, &id), 0);
	assert_int_equal(id, 0);
	store_close(st);
	ro = reader("last-filled.db", &session);
	assert_int_equal(store_taps_last_id(ro, &id), 0);
	assert_int_equal(id, 7);
	store_close(ro);
	fixture_path(path, sizeof(path), "last-filled.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(sqlite3_exec(store__sqlite(st),
				      "DELETE FROM taps WHERE id >= 6", NULL,
				      NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(store_taps_last_id(st, &id), 0);
	assert_int_equal(id, 5);
	t = tap_of("com.c", "tap", "ok", DAY0);
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	assert_int_equal(id, 8);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_taps_last_id(st, &id), 0);
	assert_int_equal(id, 8);
	assert_int_equal(store_taps_last_id(st, NULL), -EINVAL);
	store_close(st);
}

/* The launch fields of a stored tap, as a reader gets them. */
struct launch_row {
	unsigned flags;
	char target[64], activity[64];
	int64_t first, settle;
};

static int
collect_launch(void *ctx, int64_t id, const struct store_tap *tap)
{
	struct launch_row *r = (struct launch_row *)ctx + (id - 1);

	assert_true(id >= 1 && id <= 3);
	r->flags = tap->flags;
	snprintf(r->target, sizeof(r->target), "%s",
		 tap->target_app ? tap->target_app : "-");
	snprintf(r->activity, sizeof(r->activity), "%s",
		 tap->target_activity ? tap->target_activity : "-");
	r->first = tap->launch_first_frame_ns;
	r->settle = tap->launch_settle_ns;
	return 0;
}

/*
 * Launches and navigations (sql/008-launch.sql): the columns round-trip,
 * launch values are stored for launches only (a caller that zeroes the
 * struct makes no launch of 0 ns), and the launch metrics are counted and
 * queried through the histogram as exactly as from the rows.
 */
static void
test_launch_columns(void **state)
{
	static const double p50[] = {50};
	struct store_query_percentiles ex, hi;
	struct launch_row rows[3];
	struct store_filter f;
	struct store *st, *ro;
	struct store_tap t;
	char path[600];
	int64_t id;

	(void)state;
	fixture_path(path, sizeof(path), "launch.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	t = tap_of("com.launcher", "tap", "ok", DAY0 + 1000 * MS);
	t.flags = STORE_FLAG_LAUNCH;
	t.target_app = "com.shop";
	t.target_activity = "com.shop.Home";
	t.launch_first_frame_ns = 290 * MS + 7;
	t.launch_settle_ns = 322 * MS + 9;
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	t = tap_of("com.shop", "tap", "ok", DAY0 + 2000 * MS);
	t.flags = STORE_FLAG_NAVIGATION;
	t.target_app = "com.shop";
	t.target_activity = "com.shop.Cart";
	t.launch_first_frame_ns = 5 * MS; /* not a launch: not stored */
	t.launch_settle_ns = 6 * MS;
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	t = tap_of("com.shop", "tap", "ok", DAY0 + 3000 * MS);
	t.launch_first_frame_ns = -2;
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), -EINVAL);
	t.launch_first_frame_ns = 0; /* zeroed, no flag */
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	assert_int_equal(store_commit(st), 0);
	store_close(st);

	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	store_filter_init(&f);
	memset(rows, 0, sizeof(rows));
	assert_int_equal(store_taps_walk(ro, &f, STORE_ORDER_ID, 0,
					 collect_launch, rows),
			 0);
	assert_int_equal(rows[0].flags, STORE_FLAG_LAUNCH);
	assert_string_equal(rows[0].target, "com.shop");
	assert_string_equal(rows[0].activity, "com.shop.Home");
	assert_int_equal(rows[0].first, 290 * MS + 7);
	assert_int_equal(rows[0].settle, 322 * MS + 9);
	assert_int_equal(rows[1].flags, STORE_FLAG_NAVIGATION);
	assert_string_equal(rows[1].activity, "com.shop.Cart");
	assert_int_equal(rows[1].first, -1);
	assert_int_equal(rows[1].settle, -1);
	assert_string_equal(rows[2].target, "-");
	assert_int_equal(rows[2].first, -1);

	/* One launch: exact and histogram agree within the bucket. */
	store_query_filter_init(&f);
	assert_int_equal(
		store_query_percentiles(ro, &f, STORE_QUERY_LAUNCH_FIRST_FRAME,
					STORE_QUERY_METHOD_EXACT, p50, 1, &ex),
		0);
	assert_int_equal(ex.count, 1);
	assert_int_equal(ex.value_ns[0], 290 * MS + 7);
	assert_int_equal(store_query_percentiles(
				 ro, &f, STORE_QUERY_LAUNCH_SETTLE,
				 STORE_QUERY_METHOD_HISTOGRAM, p50, 1, &hi),
			 0);
	assert_int_equal(hi.method, STORE_QUERY_METHOD_HISTOGRAM);
	assert_int_equal(hi.count, 1);
	assert_true(hi.value_ns[0] - hi.error_ns[0] <= 322 * MS + 9 &&
		    322 * MS + 9 <= hi.value_ns[0] + hi.error_ns[0]);
	f.app = "com.shop";
	assert_int_equal(
		store_query_percentiles(ro, &f, STORE_QUERY_LAUNCH_FIRST_FRAME,
					STORE_QUERY_METHOD_AUTO, p50, 1, &ex),
		0);
	assert_int_equal(ex.count, 0);
	store_close(ro);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_walk_orders),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_apps_and_scan),
		cmocka_unit_test(test_sessions_and_info),
		cmocka_unit_test(test_read_transaction),
		cmocka_unit_test(test_last_id),
		cmocka_unit_test(test_launch_columns),
	};

	log_init("test_store_taps", LOG_LEVEL_WARN);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
