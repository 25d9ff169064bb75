/*
 * Tests of the statistics queries on real database files written by the
 * store, read through a read-only store as the API reads them.  Expected
 * answers come from the values each test inserted, sorted here; the
 * histogram path is checked against the exact one within its bound.
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
#include <sys/stat.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "fixture.h"
#include "log.h"
#include "store.h"
#include "store_query.h"
#include "store_sql.h"

#define MS	(1000000LL)
#define MIN_NS	(60 * 1000000000LL)
#define HOUR_NS (60 * MIN_NS)
#define DAY_NS	(24 * HOUR_NS)
/* 2025-12-01T00:00:00Z, a whole day. */
#define DAY0 (1764547200LL * 1000000000LL)

static struct store_tap
tap_of(const char *app, int64_t wall_ns, int64_t first_ms_x1000)
{
	static int64_t t_up = 1000000000;
	struct store_tap t;

	memset(&t, 0, sizeof(t));
	t.app = app;
	t.pid = 1234;
	t.kind = "tap";
	t.status = "ok";
	t_up += 1000000;
	t.t_down_ns = t_up - 80 * MS;
	t.t_up_ns = t_up;
	t.wall_ns = wall_ns;
	t.first_frame_ns = first_ms_x1000 * 1000;
	t.settle_ns = first_ms_x1000 * 1000 * 3;
	t.frames = 1;
	return t;
}

static void
add(struct store *st, const struct store_tap *t)
{
	assert_int_equal(store_insert(st, t, NULL, 0, NULL), 0);
}

/* A reader, as the API's pool opens it. */
static struct store *
reader(const char *path)
{
	struct store *ro = NULL;

	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	return ro;
}

static void
percentiles(struct store *db, const struct store_filter *f,
	    enum store_query_metric metric, enum store_query_method method,
	    const double *p, size_t np, struct store_query_percentiles *out)
{
	assert_int_equal(
		store_query_percentiles(db, f, metric, method, p, np, out), 0);
}

static int
cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void
test_rank(void **state)
{
	int64_t n, r, twice_p;

	(void)state;
	assert_int_equal(store_query_rank(50, 1), 1);
	assert_int_equal(store_query_rank(100, 1), 1);
	assert_int_equal(store_query_rank(1e-9, 1000), 1);
	assert_int_equal(store_query_rank(100, 1000), 1000);
	assert_int_equal(store_query_rank(50, 10), 5);
	assert_int_equal(store_query_rank(50, 11), 6);
	/* 99.9 is not 99.900000000000006: 999, not 1000. */
	assert_int_equal(store_query_rank(99.9, 1000), 999);
	assert_int_equal(store_query_rank(99.9, 1001), 1000);
	assert_int_equal(store_query_rank(95, 20), 19);
	assert_int_equal(store_query_rank(0.1, 10000), 10);
	assert_int_equal(store_query_rank(50, 3000000000001LL),
			 1500000000001LL);
	assert_int_equal(store_query_rank(99.99, 7000000000000LL),
			 6999300000000LL);
	assert_int_equal(store_query_rank(0, 10), 0);
	assert_int_equal(store_query_rank(-1, 10), 0);
	assert_int_equal(store_query_rank(100.5, 10), 0);
	assert_int_equal(store_query_rank(NAN, 10), 0);
	assert_int_equal(store_query_rank(50, 0), 0);
	/*
	 * The definition itself, for every half percent and small n: the
	 * smallest r with r / n >= p / 100, i.e. 200 r >= 2p n.
	 */
	for (n = 1; n <= 150; n++) {
		for (twice_p = 1; twice_p <= 200; twice_p++) {
			for (r = 1; 200 * r < twice_p * n; r++)
				;
			assert_int_equal(store_query_rank(twice_p / 2.0, n), r);
		}
	}
}

static void
test_exact_known(void **state)
{
	static const double p4[] = {10, 50, 90, 100};
	static const double pt[] = {50, 75, 76, 1e-6};
	static const int order[] = {7, 2, 9, 1, 10, 4, 3, 8, 6, 5};
	static const int ties[] = {5, 9, 5, 5};
	struct store_query_percentiles r;
	struct store_filter f;
	struct store *st, *ro;
	struct store_tap t;
	char path[256];
	int64_t session = 0;
	struct store *db;
	int i;

	(void)state;
	st = fixture_store_new("known.db", path, sizeof(path));
	/* com.a: 1..10 ms of ok taps, inserted out of order. */
	for (i = 0; i < 10; i++) {
		t = tap_of("com.a", DAY0 + i * MIN_NS, order[i] * 1000);
		add(st, &t);
	}
	/* Taps that must not count by default. */
	t = tap_of("com.a", DAY0, 0);
	t.status = "no_response";
	t.first_frame_ns = t.settle_ns = -1;
	add(st, &t);
	t = tap_of("com.a", DAY0, 500 * 1000);
	t.status = "truncated";
	add(st, &t);
	t = tap_of("com.a", DAY0, 400 * 1000);
	t.kind = "long_press";
	t.status = "truncated";
	add(st, &t);
	t = tap_of("com.a", DAY0, 0);
	t.kind = "swipe";
	t.status = "not_measured";
	t.first_frame_ns = t.settle_ns = -1;
	add(st, &t);
	/* com.b: one tap; com.d: ties; an unknown app; a session. */
	t = tap_of("com.b", DAY0 + DAY_NS, 7250);
	add(st, &t);
	for (i = 0; i < 4; i++) {
		t = tap_of("com.d", -1, ties[i] * 1000);
		add(st, &t);
	}
	t = tap_of(NULL, DAY0 + 5 * MIN_NS, 3000);
	add(st, &t);
	assert_int_equal(store_session_start(st, "s", &session, NULL), 0);
	t = tap_of("com.a", DAY0 + 2 * DAY_NS, 42000);
	t.kind = "long_press";
	t.session = session;
	add(st, &t);
	store_close(st);

	ro = reader(path);
	db = ro;
	store_query_filter_init(&f);
	f.app = "com.b";
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO,
		    p4, 4, &r);
	/* N = 1: every percentile is the one value. */
	assert_int_equal(r.method, STORE_QUERY_METHOD_EXACT);
	assert_int_equal(r.count, 1);
	for (i = 0; i < 4; i++) {
		assert_int_equal(r.value_ns[i], 7250000);
		assert_int_equal(r.error_ns[i], 0);
	}

	f.app = "com.a";
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_EXACT,
		    p4, 4, &r);
	/* 1..10 ms and the session's 42 ms long press. */
	assert_int_equal(r.count, 11);
	assert_int_equal(r.value_ns[0], 2 * MS);  /* rank 2 */
	assert_int_equal(r.value_ns[1], 6 * MS);  /* rank 6 */
	assert_int_equal(r.value_ns[2], 10 * MS); /* rank 10 */
	assert_int_equal(r.value_ns[3], 42 * MS);
	assert_int_equal(r.max_error_ns, 0);
	percentiles(db, &f, STORE_QUERY_SETTLE, STORE_QUERY_METHOD_EXACT, p4, 4,
		    &r);
	assert_int_equal(r.value_ns[1], 18 * MS);

	/* Filters the histogram cannot serve are exact, whatever is asked. */
	f.session = session;
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
		    STORE_QUERY_METHOD_HISTOGRAM, p4, 4, &r);
	assert_int_equal(r.method, STORE_QUERY_METHOD_EXACT);
	assert_int_equal(r.count, 1);
	assert_int_equal(r.value_ns[0], 42 * MS);
	f.session = session + 1;
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO,
		    p4, 4, &r);
	assert_int_equal(r.count, 0);
	assert_int_equal(r.value_ns[0], -1);
	f.session = 0;
	f.status = "truncated";
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
		    STORE_QUERY_METHOD_HISTOGRAM, p4, 4, &r);
	assert_int_equal(r.method, STORE_QUERY_METHOD_EXACT);
	assert_int_equal(r.count, 2);
	assert_int_equal(r.value_ns[0], 400 * MS);
	assert_int_equal(r.value_ns[3], 500 * MS);
	f.kinds = (1u << STORE_KIND_TAP);
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO,
		    p4, 4, &r);
	assert_int_equal(r.count, 1);
	assert_int_equal(r.value_ns[0], 500 * MS);
	/* No response means no latency: nothing to rank. */
	f.kinds = STORE_KINDS_ALL;
	f.status = "no_response";
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO,
		    p4, 4, &r);
	assert_int_equal(r.count, 0);
	f.status = "ok";
	f.kinds = (1u << STORE_KIND_LONG_PRESS);
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO,
		    p4, 4, &r);
	assert_int_equal(r.count, 1);
	assert_int_equal(r.value_ns[2], 42 * MS);

	/* Ties: 5 5 5 9. */
	store_query_filter_init(&f);
	f.app = "com.d";
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO,
		    pt, 4, &r);
	assert_int_equal(r.count, 4);
	assert_int_equal(r.value_ns[0], 5 * MS);
	assert_int_equal(r.value_ns[1], 5 * MS);
	assert_int_equal(r.value_ns[2], 9 * MS);
	assert_int_equal(r.value_ns[3], 5 * MS);
	/* com.d has no wall time: any range leaves it out. */
	f.until_ns = INT64_MAX - 1;
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO,
		    pt, 4, &r);
	assert_int_equal(r.count, 0);
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
		    STORE_QUERY_METHOD_HISTOGRAM, pt, 4, &r);
	assert_int_equal(r.count, 0);
	/* Over all time the histogram path counts it from the rows. */
	f.until_ns = INT64_MAX;
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
		    STORE_QUERY_METHOD_HISTOGRAM, pt, 4, &r);
	assert_int_equal(r.method, STORE_QUERY_METHOD_HISTOGRAM);
	assert_int_equal(r.count, 4);
	assert_true(llabs(r.value_ns[2] - 9 * MS) <= r.error_ns[2]);

	/* Unknown app. */
	store_query_filter_init(&f);
	f.app_unknown = 1;
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO,
		    p4, 1, &r);
	assert_int_equal(r.count, 1);
	assert_int_equal(r.value_ns[0], 3 * MS);

	/* Both ends of a range are included, to the nanosecond. */
	store_query_filter_init(&f);
	f.app = "com.a";
	f.since_ns = DAY0 + 2 * MIN_NS;
	f.until_ns = DAY0 + 4 * MIN_NS;
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_EXACT,
		    p4, 4, &r);
	assert_int_equal(r.count, 3); /* 9, 1, 10 ms */
	assert_int_equal(r.value_ns[0], 1 * MS);
	assert_int_equal(r.value_ns[1], 9 * MS);
	f.since_ns++;
	f.until_ns--;
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_EXACT,
		    p4, 4, &r);
	assert_int_equal(r.count, 1);
	assert_int_equal(r.value_ns[0], 1 * MS);
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
		    STORE_QUERY_METHOD_HISTOGRAM, p4, 4, &r);
	assert_int_equal(r.method, STORE_QUERY_METHOD_HISTOGRAM);
	assert_int_equal(r.count, 1);

	/* Every app, over all time: 10 + 1 + 1 + 4 + 1. */
	store_query_filter_init(&f);
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_EXACT,
		    p4, 4, &r);
	assert_int_equal(r.count, 17);
	percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
		    STORE_QUERY_METHOD_HISTOGRAM, p4, 4, &r);
	assert_int_equal(r.count, 17);
	store_close(ro);
}

static void
test_bad_args(void **state)
{
	static const double ok[] = {50};
	double many[STORE_QUERY_MAX_P + 1];
	struct store_query_percentiles r;
	struct store_query_histogram h;
	struct store_filter f;
	struct store *st, *ro;
	char path[256];
	struct store *db;
	double bad;
	size_t i;

	(void)state;
	st = fixture_store_new("bad.db", path, sizeof(path));
	store_close(st);
	ro = reader(path);
	db = ro;
	store_query_filter_init(&f);
	for (i = 0; i <= STORE_QUERY_MAX_P; i++)
		many[i] = 50;
	assert_int_equal(store_query_percentiles(db, &f,
						 STORE_QUERY_FIRST_FRAME,
						 STORE_QUERY_METHOD_AUTO, many,
						 STORE_QUERY_MAX_P, &r),
			 0);
	assert_int_equal(r.count, 0);
	assert_int_equal(store_query_percentiles(db, &f,
						 STORE_QUERY_FIRST_FRAME,
						 STORE_QUERY_METHOD_AUTO, many,
						 STORE_QUERY_MAX_P + 1, &r),
			 -EINVAL);
	assert_int_equal(
		store_query_percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
					STORE_QUERY_METHOD_AUTO, ok, 0, &r),
		-EINVAL);
	bad = 0;
	assert_int_equal(
		store_query_percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
					STORE_QUERY_METHOD_AUTO, &bad, 1, &r),
		-EINVAL);
	bad = 100.0001;
	assert_int_equal(
		store_query_percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
					STORE_QUERY_METHOD_AUTO, &bad, 1, &r),
		-EINVAL);
	bad = NAN;
	assert_int_equal(
		store_query_percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
					STORE_QUERY_METHOD_AUTO, &bad, 1, &r),
		-EINVAL);
	f.status = "OK";
	assert_int_equal(
		store_query_percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
					STORE_QUERY_METHOD_AUTO, ok, 1, &r),
		-EINVAL);
	store_query_filter_init(&f);
	f.kinds = 0;
	assert_int_equal(
		store_query_percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
					STORE_QUERY_METHOD_AUTO, ok, 1, &r),
		-EINVAL);
	store_query_filter_init(&f);
	f.since_ns = 2;
	f.until_ns = 1;
	assert_int_equal(
		store_query_percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
					STORE_QUERY_METHOD_AUTO, ok, 1, &r),
		-EINVAL);
	assert_int_equal(
		store_query_histogram(db, &f, STORE_QUERY_SETTLE, 10, &h),
		-EINVAL);
	store_query_filter_init(&f);
	f.app = "x";
	f.app_unknown = 1;
	assert_int_equal(
		store_query_percentiles(db, &f, STORE_QUERY_FIRST_FRAME,
					STORE_QUERY_METHOD_AUTO, ok, 1, &r),
		-EINVAL);
	store_query_filter_init(&f);
	assert_int_equal(store_query_percentiles(
				 db, &f,
				 (enum store_query_metric)STORE_QUERY_METRICS,
				 STORE_QUERY_METHOD_AUTO, ok, 1, &r),
			 -EINVAL);
	assert_int_equal(store_query_histogram(
				 db, &f,
				 (enum store_query_metric)STORE_QUERY_METRICS,
				 10, &h),
			 -EINVAL);
	assert_int_equal(
		store_query_histogram(db, &f, STORE_QUERY_SETTLE, 0, &h),
		-EINVAL);
	assert_string_equal(store_query_metric_name(STORE_QUERY_SETTLE),
			    "settle");
	assert_string_equal(
		store_query_metric_name(STORE_QUERY_LAUNCH_FIRST_FRAME),
		"launch_first_frame");
	assert_string_equal(store_query_metric_name(STORE_QUERY_LAUNCH_SETTLE),
			    "launch_settle");
	assert_string_equal(
		store_query_method_name(STORE_QUERY_METHOD_HISTOGRAM),
		"histogram");
	store_close(ro);
}

/*
 * A deterministic stream of latencies with a long tail, from 0.05 ms (the
 * first histogram bucket) to seconds.
 */
static uint64_t rng = 12345;

static int64_t
rand_latency_us(void)
{
	double u;

	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	u = (double)(rng >> 11) / 9007199254740992.0;
	if (u < 0.01)
		return 50;
	return (int64_t)(20000.0 * exp(2.0 * (u - 0.5) * 2.5));
}

static uint64_t
rand_below(uint64_t n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (rng >> 33) % n;
}

/* The values of a filter, computed here from what was inserted. */
struct sample {
	const char *app;
	int64_t wall;
	int64_t v[2];
};

static size_t
expect_values(const struct sample *s, size_t n, const char *app, int64_t lo,
	      int64_t hi, int metric, int64_t *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (app && strcmp(s[i].app, app) != 0)
			continue;
		if ((lo != INT64_MIN || hi != INT64_MAX) &&
		    (s[i].wall < 0 || s[i].wall < lo || s[i].wall > hi))
			continue;
		out[k++] = s[i].v[metric];
	}
	qsort(out, k, sizeof(*out), cmp64);
	return k;
}

#define HN 12000

/*
 * The histogram path against the rows: the same count, every percentile
 * within the error it reports, the error within 1% of the value; over
 * ranges aligned and not, open at either end, for one app and for all.
 * One app has more than STORE_QUERY_EXACT_MAX taps, so AUTO takes each path.
 */
static void
test_hist_vs_exact(void **state)
{
	static const double p[] = {0.5, 10, 50, 90, 99, 99.9, 100};
	static struct sample s[HN];
	static int64_t want[HN];
	struct store_query_percentiles ex, hi, au;
	struct store_filter f;
	struct store *st, *ro;
	struct store_tap t;
	char path[256];
	int64_t ranges[][2] = {
		{INT64_MIN, INT64_MAX},
		{DAY0, INT64_MAX},
		{INT64_MIN, DAY0 + DAY_NS},
		{DAY0 + HOUR_NS, DAY0 + 2 * DAY_NS - 1},
		{DAY0 + 17 * MIN_NS + 123, DAY0 + 2 * DAY_NS + 5 * HOUR_NS + 7},
		{DAY0 + 90 * MIN_NS + 1,
		 DAY0 + 91 * MIN_NS + 59 * 1000000000LL},
		{DAY0 + 3 * HOUR_NS + 30 * 1000000000LL,
		 DAY0 + 3 * HOUR_NS + 31 * 1000000000LL},
		{DAY0 - DAY_NS, DAY0 - 1},
	};
	const char *apps[] = {"big", "small", NULL};
	size_t i, j, a, n;
	int m;

	(void)state;
	st = fixture_store_new("hist.db", path, sizeof(path));
	/* 12000 taps over three days; "big" has 11000 of them. */
	for (i = 0; i < HN; i++) {
		s[i].app = i % 12 == 0 ? "small" : "big";
		s[i].wall = i % 97 == 0
				    ? -1
				    : DAY0 +
					      (int64_t)rand_below(3 * 86400) *
						      1000000000LL +
					      (int64_t)rand_below(1000000000);
		s[i].v[0] = rand_latency_us() * 1000 + (int64_t)rand_below(999);
		s[i].v[1] = s[i].v[0] + rand_latency_us() * 1000;
		t = tap_of(s[i].app, s[i].wall, 0);
		t.first_frame_ns = s[i].v[0];
		t.settle_ns = s[i].v[1];
		add(st, &t);
	}
	store_close(st);

	ro = reader(path);
	for (a = 0; a < 3; a++) {
		for (j = 0; j < sizeof(ranges) / sizeof(ranges[0]); j++) {
			for (m = 0; m < 2; m++) {
				store_query_filter_init(&f);
				f.app = apps[a];
				f.since_ns = ranges[j][0];
				f.until_ns = ranges[j][1];
				n = expect_values(s, HN, apps[a], ranges[j][0],
						  ranges[j][1], m, want);
				percentiles(ro, &f, m, STORE_QUERY_METHOD_EXACT,
					    p, 7, &ex);
				percentiles(ro, &f, m,
					    STORE_QUERY_METHOD_HISTOGRAM, p, 7,
					    &hi);
				percentiles(ro, &f, m, STORE_QUERY_METHOD_AUTO,
					    p, 7, &au);
				assert_int_equal(ex.method,
						 STORE_QUERY_METHOD_EXACT);
				assert_int_equal(hi.method,
						 STORE_QUERY_METHOD_HISTOGRAM);
				assert_int_equal(ex.count, (int64_t)n);
				assert_int_equal(hi.count, (int64_t)n);
				assert_int_equal(au.count, (int64_t)n);
				assert_int_equal(
					au.method,
					n <= STORE_QUERY_EXACT_MAX
						? STORE_QUERY_METHOD_EXACT
						: STORE_QUERY_METHOD_HISTOGRAM);
				for (i = 0; i < 7 && n > 0; i++) {
					int64_t v =
						want[store_query_rank(p[i], n) -
						     1];
					int64_t e = hi.error_ns[i];

					assert_int_equal(ex.value_ns[i], v);
					assert_true(llabs(hi.value_ns[i] - v) <=
						    e);
					assert_true(
						e <= v / 100 + 1 ||
						(v < STORE_HIST_MIN_NS &&
						 e <= STORE_HIST_MIN_NS / 2));
					assert_true(e <= hi.max_error_ns);
				}
			}
		}
	}
	store_close(ro);
}

static void
test_histogram(void **state)
{
	struct store_query_histogram h, hs;
	struct store_filter f;
	struct store *st, *ro;
	struct store_tap t;
	char path[256];
	int64_t vals[300], lo, hi, sum;
	int64_t session = 0;
	size_t i, j, n, k;
	struct store *db;

	(void)state;
	st = fixture_store_new("histogram.db", path, sizeof(path));
	assert_int_equal(store_session_start(st, "all", &session, NULL), 0);
	for (i = 0; i < 300; i++) {
		vals[i] = rand_latency_us() * 1000;
		t = tap_of("com.h", DAY0 + (int64_t)i * 7 * 1000000000LL, 0);
		t.first_frame_ns = vals[i];
		t.session = session;
		add(st, &t);
	}
	store_close(st);
	qsort(vals, 300, sizeof(*vals), cmp64);

	ro = reader(path);
	db = ro;
	store_query_filter_init(&f);
	f.app = "com.h";
	for (n = 1; n <= 64; n *= 4) {
		assert_int_equal(store_query_histogram(db, &f,
						       STORE_QUERY_FIRST_FRAME,
						       n, &h),
				 0);
		assert_int_equal(h.method, STORE_QUERY_METHOD_HISTOGRAM);
		assert_int_equal(h.count, 300);
		assert_true(h.nbuckets >= 1 && h.nbuckets <= n);
		/* From the smallest value's bucket to the largest's. */
		assert_int_equal(store_hist_bucket(h.buckets[0].lo_ns),
				 store_hist_bucket(vals[0]));
		assert_int_equal(
			store_hist_bucket(h.buckets[h.nbuckets - 1].hi_ns),
			store_hist_bucket(vals[299]));
		sum = 0;
		for (j = 0; j < h.nbuckets; j++) {
			lo = h.buckets[j].lo_ns;
			hi = h.buckets[j].hi_ns;
			if (j > 0)
				assert_int_equal(lo,
						 h.buckets[j - 1].hi_ns + 1);
			for (i = 0, k = 0; i < 300; i++)
				k += vals[i] >= lo && vals[i] <= hi;
			assert_int_equal(h.buckets[j].count, (int64_t)k);
			sum += h.buckets[j].count;
		}
		assert_int_equal(sum, 300);
		/* The same taps by session come from the rows, the same. */
		f.session = session;
		assert_int_equal(store_query_histogram(db, &f,
						       STORE_QUERY_FIRST_FRAME,
						       n, &hs),
				 0);
		f.session = 0;
		assert_int_equal(hs.method, STORE_QUERY_METHOD_EXACT);
		assert_int_equal(hs.nbuckets, h.nbuckets);
		assert_memory_equal(hs.buckets, h.buckets,
				    h.nbuckets * sizeof(*h.buckets));
		store_query_histogram_release(&hs);
		store_query_histogram_release(&h);
	}
	f.app = "com.none";
	assert_int_equal(
		store_query_histogram(db, &f, STORE_QUERY_SETTLE, 10, &h), 0);
	assert_int_equal(h.count, 0);
	assert_int_equal(h.nbuckets, 0);
	store_query_histogram_release(&h);
	store_query_histogram_release(NULL);
	store_close(ro);
}

static void
test_apps(void **state)
{
	struct store_query_app *apps = NULL;
	struct store_filter f;
	struct store *st, *ro;
	struct store_tap t;
	char path[256];
	size_t n = 0;
	int i;

	(void)state;
	st = fixture_store_new("apps.db", path, sizeof(path));
	for (i = 1; i <= 100; i++) {
		t = tap_of("com.z", DAY0 + i * MIN_NS, i * 1000);
		add(st, &t);
	}
	t = tap_of("com.z", DAY0, 0);
	t.status = "no_response";
	t.first_frame_ns = t.settle_ns = -1;
	add(st, &t);
	t.kind = "swipe";
	t.status = "not_measured";
	add(st, &t);
	add(st, &t);
	t = tap_of("com.a", DAY0 + DAY_NS, 20000);
	add(st, &t);
	t = tap_of(NULL, -1, 30000);
	add(st, &t);
	store_close(st);

	ro = reader(path);
	store_query_filter_init(&f);
	assert_int_equal(store_query_apps(ro, &f, &apps, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(apps[0].app, "com.a");
	assert_string_equal(apps[1].app, "com.z");
	assert_null(apps[2].app);
	assert_int_equal(apps[1].total, 103);
	assert_int_equal(apps[1].status[0], 100);
	assert_int_equal(apps[1].status[1], 1);
	assert_int_equal(apps[1].status[4], 2);
	assert_int_equal(apps[1].first_frame.count, 100);
	assert_int_equal(apps[1].first_frame.np, 3);
	assert_int_equal(apps[1].first_frame.value_ns[0], 50 * MS);
	assert_int_equal(apps[1].first_frame.value_ns[1], 90 * MS);
	assert_int_equal(apps[1].first_frame.value_ns[2], 99 * MS);
	assert_int_equal(apps[1].settle.value_ns[2], 297 * MS);
	assert_int_equal(apps[0].first_frame.value_ns[0], 20 * MS);
	assert_int_equal(apps[2].total, 1);
	assert_int_equal(apps[2].first_frame.value_ns[1], 30 * MS);
	store_query_apps_free(apps, n);

	/* A range: the first 10 minutes of com.z, nothing else. */
	f.since_ns = DAY0;
	f.until_ns = DAY0 + 10 * MIN_NS;
	apps = NULL;
	assert_int_equal(store_query_apps(ro, &f, &apps, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(apps[0].app, "com.z");
	assert_int_equal(apps[0].total, 13);
	assert_int_equal(apps[0].first_frame.count, 10);
	assert_int_equal(apps[0].first_frame.value_ns[0], 5 * MS);
	store_query_apps_free(apps, n);
	store_query_apps_free(NULL, 0);

	f.since_ns = DAY0 - DAY_NS;
	f.until_ns = DAY0 - 1;
	apps = NULL;
	assert_int_equal(store_query_apps(ro, &f, &apps, &n), 0);
	assert_int_equal(n, 0);
	store_query_apps_free(apps, n);
	store_close(ro);
}

/*
 * A caller's read transaction is used as it is: the answer comes from its
 * snapshot, not from what the writer committed since.
 */
static void
test_snapshot(void **state)
{
	static const double p[] = {100};
	struct store_query_percentiles r;
	struct store_filter f;
	struct store *st, *ro;
	struct store_tap t;
	char path[256];
	sqlite3 *db;

	(void)state;
	st = fixture_store_new("snap.db", path, sizeof(path));
	t = tap_of("com.s", DAY0, 1000);
	add(st, &t);
	assert_int_equal(store_commit(st), 0);
	ro = reader(path);
	db = store__sqlite(ro);
	store_query_filter_init(&f);
	f.app = "com.s";
	assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL),
			 SQLITE_OK);
	percentiles(ro, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO, p,
		    1, &r);
	assert_int_equal(r.count, 1);
	t = tap_of("com.s", DAY0 + 1, 9000);
	add(st, &t);
	assert_int_equal(store_commit(st), 0);
	percentiles(ro, &f, STORE_QUERY_FIRST_FRAME,
		    STORE_QUERY_METHOD_HISTOGRAM, p, 1, &r);
	assert_int_equal(r.count, 1);
	assert_int_equal(sqlite3_get_autocommit(db), 0);
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL),
			 SQLITE_OK);
	percentiles(ro, &f, STORE_QUERY_FIRST_FRAME, STORE_QUERY_METHOD_AUTO, p,
		    1, &r);
	assert_int_equal(r.count, 2);
	assert_int_equal(r.value_ns[0], 9 * MS);
	/* Its own transaction is closed again. */
	assert_int_equal(sqlite3_get_autocommit(db), 1);
	store_close(ro);
	store_close(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_exact_known),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_hist_vs_exact),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_apps),
		cmocka_unit_test(test_snapshot),
	};

	log_init("test_store_query", LOG_LEVEL_WARN);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
