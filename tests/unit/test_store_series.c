/*
 * Tests of store_series.h on real database files written by the store and
 * read through a read-only store as the API reads them: which periods get
 * a point, the range cutting the periods at its ends, each point against
 * store_query_percentiles() over its period, the limit on periods, and
 * the span of the taps.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "log.h"
#include "store.h"
#include "store_query.h"
#include "store_series.h"

#define MS	(1000000LL)
#define S	(1000000000LL)
#define MIN_NS	(60 * S)
#define HOUR_NS (60 * MIN_NS)
#define DAY_NS	(24 * HOUR_NS)
/* 2025-12-01T00:00:00Z, a whole day. */
#define DAY0 (1764547200LL * S)

static const double P[] = {50, 90};

static void
add(struct store *st, const char *app, int64_t wall_ns, int64_t first_ms)
{
	static int64_t t_up = 1000000000;
	struct store_tap t;

	memset(&t, 0, sizeof(t));
	t.app = app;
	t.pid = 1234;
	t.kind = "tap";
	t.status = "ok";
	t_up += MS;
	t.t_down_ns = t_up - 80 * MS;
	t.t_up_ns = t_up;
	t.wall_ns = wall_ns;
	t.first_frame_ns = first_ms < 0 ? -1 : first_ms * MS;
	t.settle_ns = first_ms < 0 ? -1 : first_ms * 3 * MS;
	t.frames = 1;
	assert_int_equal(store_insert(st, &t, NULL, 0, NULL), 0);
}

static struct store *
reader(const char *path)
{
	struct store *ro = NULL;

	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	return ro;
}

/*
 * com.a: three taps in minute 0 (10, 20 and 30 ms at 10, 20 and 40 s),
 * one in minute 2 (5 ms), one without a first frame in minute 5; com.b:
 * one in minute 7 (50 ms).
 */
static struct store *
sample(const char *name, char *path, size_t size)
{
	struct store *st = fixture_store_new(name, path, size);

	add(st, "com.a", DAY0 + 10 * S, 10);
	add(st, "com.a", DAY0 + 40 * S, 30);
	add(st, "com.a", DAY0 + 20 * S, 20);
	add(st, "com.a", DAY0 + 2 * MIN_NS + S, 5);
	add(st, "com.a", DAY0 + 5 * MIN_NS, -1);
	add(st, "com.b", DAY0 + 7 * MIN_NS + 59 * S, 50);
	assert_int_equal(store_commit(st), 0);
	return st;
}

/* Every point is store_query_percentiles() over its period in f's range. */
static void
check_against_percentiles(struct store *ro, const struct store_filter *f,
			  int64_t step, const struct store_series_point *pts,
			  size_t n)
{
	struct store_query_percentiles want;
	struct store_filter g;
	size_t i, j;

	for (i = 0; i < n; i++) {
		assert_int_equal(pts[i].start_ns % step, 0);
		g = *f;
		if (g.since_ns < pts[i].start_ns)
			g.since_ns = pts[i].start_ns;
		if (g.until_ns > pts[i].start_ns + step - 1)
			g.until_ns = pts[i].start_ns + step - 1;
		assert_int_equal(store_query_percentiles(
					 ro, &g, STORE_QUERY_FIRST_FRAME,
					 STORE_QUERY_METHOD_AUTO, P, 2, &want),
				 0);
		assert_int_equal(pts[i].pct.count, want.count);
		for (j = 0; j < 2; j++)
			assert_int_equal(pts[i].pct.value_ns[j],
					 want.value_ns[j]);
	}
}

static void
test_points(void **state)
{
	struct store_series_point *pts = NULL;
	struct store_filter f;
	struct store *st, *ro;
	char path[256];
	size_t n = 0;

	(void)state;
	st = sample("series.db", path, sizeof(path));
	ro = reader(path);

	store_query_filter_init(&f);
	f.app = "com.a";
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, MIN_NS, P, 2,
				      &pts, &n),
			 0);
	/* Minute 5's tap has no first frame: no point. */
	assert_int_equal(n, 2);
	assert_int_equal(pts[0].start_ns, DAY0);
	assert_int_equal(pts[0].pct.count, 3);
	assert_int_equal(pts[0].pct.value_ns[0], 20 * MS);
	assert_int_equal(pts[0].pct.value_ns[1], 30 * MS);
	assert_int_equal(pts[1].start_ns, DAY0 + 2 * MIN_NS);
	assert_int_equal(pts[1].pct.count, 1);
	assert_int_equal(pts[1].pct.value_ns[0], 5 * MS);
	check_against_percentiles(ro, &f, MIN_NS, pts, n);
	free(pts);

	/* Every app: com.b's minute 7 too. */
	f.app = NULL;
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, MIN_NS, P, 2,
				      &pts, &n),
			 0);
	assert_int_equal(n, 3);
	assert_int_equal(pts[2].start_ns, DAY0 + 7 * MIN_NS);
	assert_int_equal(pts[2].pct.value_ns[0], 50 * MS);
	check_against_percentiles(ro, &f, MIN_NS, pts, n);
	free(pts);

	/* The range cuts minute 0 at 30 s: only its 40 s tap is left. */
	f.since_ns = DAY0 + 30 * S;
	f.until_ns = DAY0 + 7 * MIN_NS;
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, MIN_NS, P, 2,
				      &pts, &n),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(pts[0].pct.count, 1);
	assert_int_equal(pts[0].pct.value_ns[0], 30 * MS);
	check_against_percentiles(ro, &f, MIN_NS, pts, n);
	free(pts);

	/* An hour holds them all. */
	store_query_filter_init(&f);
	assert_int_equal(store_series(ro, &f, STORE_QUERY_SETTLE,
				      STORE_QUERY_METHOD_EXACT, HOUR_NS, P, 2,
				      &pts, &n),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(pts[0].start_ns, DAY0);
	assert_int_equal(pts[0].pct.count, 5);
	assert_int_equal(pts[0].pct.value_ns[0], 60 * MS);
	free(pts);

	/* A range without taps: no point, and no array. */
	f.since_ns = DAY0 + DAY_NS;
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, MIN_NS, P, 2,
				      &pts, &n),
			 0);
	assert_int_equal(n, 0);
	free(pts);

	store_close(ro);
	fixture_store_drop(st, path);
}

static void
test_limits(void **state)
{
	struct store_series_point *pts = NULL;
	struct store_filter f;
	struct store *st, *ro;
	int64_t first = 0, last = 0;
	char path[256];
	size_t n = 0;

	(void)state;
	st = sample("series-limits.db", path, sizeof(path));
	/* Eight days after minute 0: more minutes than a series may span. */
	add(st, "com.a", DAY0 + 8 * DAY_NS, 40);
	assert_int_equal(store_commit(st), 0);
	ro = reader(path);

	store_query_filter_init(&f);
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, MIN_NS, P, 2,
				      &pts, &n),
			 -E2BIG);
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, HOUR_NS, P, 2,
				      &pts, &n),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(pts[1].start_ns, DAY0 + 8 * DAY_NS);
	free(pts);
	/* A week of minutes exactly is allowed. */
	f.until_ns = DAY0 + 7 * DAY_NS - 1;
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, MIN_NS, P, 2,
				      &pts, &n),
			 0);
	free(pts);

	store_query_filter_init(&f);
	assert_int_equal(store_series_span(ro, &f, &first, &last), 0);
	assert_int_equal(first, DAY0 + 10 * S);
	assert_int_equal(last, DAY0 + 8 * DAY_NS);
	f.app = "com.b";
	assert_int_equal(store_series_span(ro, &f, &first, &last), 0);
	assert_int_equal(first, DAY0 + 7 * MIN_NS + 59 * S);
	assert_int_equal(last, first);
	f.app = "com.none";
	assert_int_equal(store_series_span(ro, &f, &first, &last), 0);
	assert_true(first > last);

	store_query_filter_init(&f);
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, 0, P, 2, &pts,
				      &n),
			 -EINVAL);
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, MIN_NS, P, 0,
				      &pts, &n),
			 -EINVAL);
	f.since_ns = DAY0 + 1;
	f.until_ns = DAY0;
	assert_int_equal(store_series(ro, &f, STORE_QUERY_FIRST_FRAME,
				      STORE_QUERY_METHOD_AUTO, MIN_NS, P, 2,
				      &pts, &n),
			 -EINVAL);

	store_close(ro);
	fixture_store_drop(st, path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_limits),
	};

	log_init("test_store_series", LOG_LEVEL_WARN);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
