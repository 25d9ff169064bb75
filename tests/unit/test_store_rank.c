/*
 * Differential tests of the summaries and the exact percentiles from the
 * histogram (store_cover.c, store_rank.c, sql/003-summaries.sql): a
 * database of random taps (many apps, the unknown one among them, every
 * status and kind, wall times over 40 days or unknown, ties, unknown
 * latencies, values in the first and far buckets), and for many random
 * ranges and percentiles every answer compared, exactly, with a brute
 * force over the same taps kept here: the values sorted in C.  Then the
 * same while retention is half done, and after it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "fixture.h"
#include "log.h"
#include "store.h"
#include "store_cover.h"
#include "store_query.h"
#include "store_rank.h"
#include "store_sql.h"

#define MS     (1000000LL)
#define MIN_NS (60 * 1000000000LL)
#define DAY_NS (1440 * MIN_NS)
/* 2025-10-22T00:00:00Z: 40 days before 2025-12-01. */
#define T0    (1761091200LL * 1000000000LL)
#define DAYS  40
#define NTAPS 14000
/* Random ranges of each check: fewer under emulation (fixture_rounds). */
#define NRANGE ((size_t)fixture_rounds(60, 12))

struct sample {
	const char *app;
	const char *kind;
	const char *status;
	int64_t wall; /* -1 unknown */
	int64_t v[2]; /* -1 unknown */
	int gone;     /* deleted by retention */
};

static struct sample taps[NTAPS];
/* Whether the rank path must answer: the histogram agrees with the rows. */
static int rank_answers;
static int64_t vals[NTAPS];
static uint64_t rng = 7;

/* Both apps named like the all-apps rows and the empty one are apps. */
static const char *const apps[] = {"com.a", "com.b", "com.c", "com.d",
				   "com.e", "",	     "*",     NULL};
#define NAPPS (sizeof(apps) / sizeof(apps[0]))

static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int64_t
below(int64_t n)
{
	return (int64_t)(next() % (uint64_t)n);
}

static int
cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* A latency: often a frame multiple (ties), sometimes tiny or huge. */
static int64_t
latency(void)
{
	int64_t r = below(100);

	if (r < 5)
		return -1;
	if (r < 30)
		return (1 + below(12)) * 16666667;
	if (r < 33)
		return below(100000);
	if (r < 35)
		return 5000000000LL + below(1000) * 1000000000LL;
	return 5 * MS + below(400 * MS) + below(400 * MS);
}

static int
app_weight(void)
{
	/* Zipf-like: the first apps have most of the taps. */
	int64_t r = below(100);

	return r < 40	? 0
	       : r < 60 ? 1
	       : r < 72 ? 2
	       : r < 80 ? 3
	       : r < 86 ? 4
	       : r < 90 ? 5
	       : r < 94 ? 6
			: 7;
}

static void
generate(void)
{
	static const char *const kinds[] = {"tap",	  "tap",   "tap",
					    "long_press", "swipe", "multi"};
	static const char *const statuses[] = {"ok",
					       "ok",
					       "ok",
					       "ok",
					       "no_response",
					       "truncated",
					       "frames_unavailable",
					       "not_measured"};
	size_t i;

	for (i = 0; i < NTAPS; i++) {
		struct sample *s = &taps[i];

		s->app = apps[app_weight()];
		s->kind = kinds[below(6)];
		s->status = statuses[below(8)];
		s->wall = below(100) < 3
				  ? -1
				  : T0 + below(DAYS * DAY_NS / 1000) * 1000 +
					    below(1000);
		/* Some on the edges of minutes and days. */
		if (s->wall > 0 && below(10) == 0)
			s->wall -= s->wall % (below(2) ? MIN_NS : DAY_NS);
		s->v[0] = latency();
		s->v[1] = s->v[0] < 0 ? latency() : s->v[0] + latency() + 1;
		s->gone = 0;
	}
}

static void
insert_all(struct store *st)
{
	struct store_tap t;
	size_t i;

	for (i = 0; i < NTAPS; i++) {
		const struct sample *s = &taps[i];

		memset(&t, 0, sizeof(t));
		t.app = s->app;
		t.kind = s->kind;
		t.status = s->status;
		t.t_down_ns = 1000000000LL + (int64_t)i * 1000;
		t.t_up_ns = t.t_down_ns + 80 * MS;
		t.wall_ns = s->wall;
		t.first_frame_ns = s->v[0];
		t.settle_ns = s->v[1];
		assert_int_equal(store_insert(st, &t, NULL, 0, NULL), 0);
	}
	assert_int_equal(store_commit(st), 0);
}

/* Whether a sample is one of f's taps with the metric known. */
static int
matches(const struct sample *s, const char *app, int all, int64_t since,
	int64_t until, int m)
{
	int open = since == INT64_MIN && until == INT64_MAX;

	if (s->gone || s->v[m] < 0 || strcmp(s->status, "ok") != 0 ||
	    (strcmp(s->kind, "tap") != 0 && strcmp(s->kind, "long_press") != 0))
		return 0;
	if (!all && (!s->app || strcmp(s->app, app) != 0))
		return 0;
	if (s->wall < 0)
		return open;
	return s->wall >= since && s->wall <= until;
}

/* The sorted values of f's taps into vals[]; returns their count. */
static size_t
brute(const char *app, int all, int64_t since, int64_t until, int m)
{
	size_t i, n = 0;

	for (i = 0; i < NTAPS; i++)
		if (matches(&taps[i], app, all, since, until, m))
			vals[n++] = taps[i].v[m];
	qsort(vals, n, sizeof(vals[0]), cmp64);
	return n;
}

/* A random range: open ends, whole minutes or days, or any ns. */
static void
range(int64_t *since, int64_t *until)
{
	int64_t a, b, t;

	a = T0 - DAY_NS + below((DAYS + 2) * DAY_NS);
	b = T0 - DAY_NS + below((DAYS + 2) * DAY_NS);
	if (a > b) {
		t = a;
		a = b;
		b = t;
	}
	switch (below(6)) {
	case 0:
		*since = INT64_MIN;
		*until = INT64_MAX;
		return;
	case 1:
		a -= a % DAY_NS;
		b = b - b % DAY_NS - 1;
		break;
	case 2:
		a -= a % MIN_NS;
		b -= b % MIN_NS;
		break;
	case 3:
		/* Most of the file: the sum less the outside. */
		a = T0 + below(3 * DAY_NS);
		b = T0 + DAYS * DAY_NS - below(3 * DAY_NS);
		break;
	case 4:
		b = a + below(3 * 3600 * 1000000000LL);
		break;
	default:
		break;
	}
	*since = below(8) == 0 ? INT64_MIN : a;
	*until = below(8) == 0 ? INT64_MAX : b;
	if (*since > *until)
		*since = *until;
}

static void
check_percentiles(struct store *ro, const char *app, int all, int64_t since,
		  int64_t until, int m)
{
	double p[6];
	struct store_query_percentiles ex, au, hi, rk;
	struct store_filter f;
	int64_t *hist;
	bool began;
	sqlite3 *db;
	size_t n, i;
	int rc;

	for (i = 0; i < 6; i++)
		p[i] = below(5) == 0 ? 100.0
				     : (double)(1 + below(100000)) / 1000;
	n = brute(app, all, since, until, m);
	store_query_filter_init(&f);
	f.app = all ? NULL : app;
	f.since_ns = since;
	f.until_ns = until;
	assert_int_equal(store_query_percentiles(ro, &f, m,
						 STORE_QUERY_METHOD_EXACT, p, 6,
						 &ex),
			 0);
	assert_int_equal(store_query_percentiles(
				 ro, &f, m, STORE_QUERY_METHOD_AUTO, p, 6, &au),
			 0);
	assert_int_equal(store_query_percentiles(ro, &f, m,
						 STORE_QUERY_METHOD_HISTOGRAM,
						 p, 6, &hi),
			 0);
	assert_int_equal(ex.count, (int64_t)n);
	assert_int_equal(au.count, (int64_t)n);
	assert_int_equal(ex.method, STORE_QUERY_METHOD_EXACT);
	for (i = 0; i < 6; i++) {
		int64_t want = n ? vals[store_query_rank(p[i], n) - 1] : -1;
		int64_t lo, hi_ns;

		assert_int_equal(ex.value_ns[i], want);
		if (au.method == STORE_QUERY_METHOD_EXACT)
			assert_int_equal(au.value_ns[i], want);
		if (n == 0 || !rank_answers)
			continue;
		/* Exact counts put each rank in the bucket of its value. */
		store_hist_edges(store_hist_bucket(want), &lo, &hi_ns);
		assert_int_equal(hi.value_ns[i], lo + (hi_ns - lo) / 2);
	}

	/*
	 * The rank path itself, on the brute force's histogram: it must
	 * answer (1 only while retention is under way) and agree.
	 */
	hist = calloc(STORE_HIST_BUCKETS, sizeof(*hist));
	assert_non_null(hist);
	for (i = 0; i < n; i++)
		hist[store_hist_bucket(vals[i])]++;
	memset(&rk, 0, sizeof(rk));
	rk.np = 6;
	memcpy(rk.p, p, sizeof(p));
	db = store__sqlite(ro);
	assert_int_equal(store__read_begin(db, &began), 0);
	rc = store_rank__percentiles(db, &f, m, hist, &rk);
	store__read_end(db, began);
	free(hist);
	if (rank_answers)
		assert_int_equal(rc, 0);
	assert_true(rc == 0 || rc == 1);
	if (rc == 0) {
		assert_int_equal(rk.count, (int64_t)n);
		for (i = 0; i < 6; i++)
			assert_int_equal(rk.value_ns[i], ex.value_ns[i]);
	}
}

/* The gestures of app (NULL: unknown) in a range, by status. */
static void
check_status(struct store *ro, const char *app, int64_t since, int64_t until)
{
	int64_t want[STORE_STATUS_COUNT], got[STORE_STATUS_COUNT], total;
	int64_t wtotal = 0;
	struct store_filter f;
	bool began;
	size_t i;
	int k, open = since == INT64_MIN && until == INT64_MAX;

	memset(want, 0, sizeof(want));
	for (i = 0; i < NTAPS; i++) {
		const struct sample *s = &taps[i];

		if (s->gone ||
		    (app ? !s->app || strcmp(app, s->app) : !!s->app))
			continue;
		if (s->wall < 0 ? !open : s->wall < since || s->wall > until)
			continue;
		want[store_status_index(s->status)]++;
		wtotal++;
	}
	store_filter_init(&f);
	f.since_ns = since;
	f.until_ns = until;
	assert_int_equal(store__read_begin(store__sqlite(ro), &began), 0);
	assert_int_equal(
		store_cover__status(store__sqlite(ro), &f, app, got, &total),
		0);
	store__read_end(store__sqlite(ro), began);
	for (k = 0; k < STORE_STATUS_COUNT; k++)
		assert_int_equal(got[k], want[k]);
	assert_int_equal(total, wtotal);
}

/* store_cover__hist over whole minutes against the samples' buckets. */
static void
check_cover(struct store *ro, const char *scope, int m, int64_t m0, int64_t m1)
{
	int64_t *want, *got;
	size_t i;
	bool began;
	int b;

	want = calloc(STORE_HIST_BUCKETS, sizeof(*want));
	got = calloc(STORE_HIST_BUCKETS, sizeof(*got));
	assert_true(want && got);
	for (i = 0; i < NTAPS; i++) {
		const struct sample *s = &taps[i];
		int all = strcmp(scope, STORE_HIST_ALL_APPS) == 0;

		if (s->wall < 0 || s->wall / MIN_NS < m0 ||
		    s->wall / MIN_NS >= m1 ||
		    !matches(s, scope, all, INT64_MIN, INT64_MAX, m))
			continue;
		want[store_hist_bucket(s->v[m])]++;
	}
	assert_int_equal(store__read_begin(store__sqlite(ro), &began), 0);
	assert_int_equal(
		store_cover__hist(store__sqlite(ro), scope, m, m0, m1, got), 0);
	store__read_end(store__sqlite(ro), began);
	for (b = 0; b < STORE_HIST_BUCKETS; b++)
		assert_int_equal(got[b], want[b]);
	free(want);
	free(got);
}

/* Every check over NRANGE random ranges. */
static void
check_all(struct store *ro)
{
	int64_t since, until, m0, m1;
	size_t j, a;
	int m;

	for (j = 0; j < NRANGE; j++) {
		range(&since, &until);
		for (a = 0; a < NAPPS; a++) {
			check_status(ro, apps[a], since, until);
			for (m = 0; m < 2; m++) {
				/* "*" is an app here, and NULL every app. */
				if (apps[a] && apps[a][0] &&
				    strcmp(apps[a], "*") != 0)
					check_percentiles(ro, apps[a], 0, since,
							  until, m);
				else if (!apps[a])
					check_percentiles(ro, NULL, 1, since,
							  until, m);
			}
		}
		m0 = (since == INT64_MIN ? T0 : since) / MIN_NS;
		m1 = (until == INT64_MAX ? T0 + DAYS * DAY_NS : until) / MIN_NS;
		check_cover(ro, "com.a", (int)(j % 2), m0, m1);
		check_cover(ro, STORE_HIST_ALL_APPS, (int)(j % 2), m0, m1);
	}
}

/* /v1/apps: the apps, their counts, and their percentiles. */
static void
check_apps(struct store *ro, int64_t since, int64_t until)
{
	static const double p[] = {50, 90, 99};
	struct store_query_app *list = NULL;
	struct store_filter f;
	size_t n = 0, i, k, nv;
	int m;

	store_filter_init(&f);
	f.since_ns = since;
	f.until_ns = until;
	assert_int_equal(store_query_apps(ro, &f, &list, &n), 0);
	for (i = 0; i < n; i++) {
		check_status(ro, list[i].app, since, until);
		for (m = 0; m < 2; m++) {
			const struct store_query_percentiles *r =
				m ? &list[i].settle : &list[i].first_frame;

			if (!list[i].app || !list[i].app[0] ||
			    strcmp(list[i].app, "*") == 0)
				continue;
			nv = brute(list[i].app, 0, since, until, m);
			assert_int_equal(r->count, (int64_t)nv);
			for (k = 0; k < 3 && nv > 0; k++) {
				int64_t want =
					vals[store_query_rank(p[k], nv) - 1];
				int64_t lo, hi;

				if (r->method == STORE_QUERY_METHOD_EXACT) {
					assert_int_equal(r->value_ns[k], want);
					continue;
				}
				store_hist_edges(store_hist_bucket(want), &lo,
						 &hi);
				assert_int_equal(r->value_ns[k],
						 lo + (hi - lo) / 2);
			}
		}
	}
	store_query_apps_free(list, n);
}

static void
test_differential(void **state)
{
	struct store *st, *ro;
	char path[256];
	int64_t deleted, cutoff, total = 0, since, until;
	size_t i, j;

	(void)state;
	generate();
	st = fixture_store_new("rank.db", path, sizeof(path));
	insert_all(st);

	ro = NULL;
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	rank_answers = 1;
	check_all(ro);
	check_apps(ro, INT64_MIN, INT64_MAX);
	for (j = 0; j < 10; j++) {
		range(&since, &until);
		check_apps(ro, since, until);
	}

	/*
	 * Retention half done: the oldest taps are gone and tap_hist still
	 * counts them.  The exact answers must not change meaning.
	 */
	cutoff = T0 + 10 * DAY_NS;
	assert_int_equal(store_retain(st, cutoff, 500, &deleted), 0);
	assert_int_equal(deleted, 500);
	for (i = 0; i < NTAPS; i++)
		if (taps[i].wall >= 0 && taps[i].wall < cutoff)
			total++;
	assert_true(total > 500);
	/* Which 500 went: the oldest by wall time, as the rows say. */
	{
		sqlite3 *db = store__sqlite(ro);
		sqlite3_stmt *stmt = NULL;
		int64_t oldest = 0;

		assert_int_equal(
			sqlite3_prepare_v2(db, "SELECT min(wall_ns) FROM taps",
					   -1, &stmt, NULL),
			SQLITE_OK);
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		oldest = sqlite3_column_int64(stmt, 0);
		sqlite3_finalize(stmt);
		for (i = 0, total = 0; i < NTAPS; i++)
			if (taps[i].wall >= 0 && taps[i].wall < oldest) {
				taps[i].gone = 1;
				total++;
			}
		assert_int_equal(total, 500);
	}
	rank_answers = 0;
	for (j = 0; j < NRANGE / 3; j++) {
		range(&since, &until);
		for (i = 0; i < NAPPS; i++)
			check_status(ro, apps[i], since, until);
		check_percentiles(ro, "com.a", 0, since, until, (int)(j % 2));
		check_percentiles(ro, NULL, 1, since, until, (int)(j % 2));
	}

	/* Retention done, histogram rows and all. */
	do
		assert_int_equal(store_retain(st, cutoff, 5000, &deleted), 0);
	while (deleted > 0);
	for (i = 0; i < NTAPS; i++)
		if (taps[i].wall >= 0 && taps[i].wall < cutoff)
			taps[i].gone = 1;
	rank_answers = 1;
	check_all(ro);
	check_apps(ro, INT64_MIN, INT64_MAX);

	store_close(ro);
	store_close(st);
}

/* The migration fills the new tables from the rows of a version 2 file. */
static void
test_migrate(void **state)
{
	struct store *st, *ro;
	char path[256];
	sqlite3 *db;
	size_t j;

	(void)state;
	generate();
	st = fixture_store_new("mig.db", path, sizeof(path));
	insert_all(st);
	store_close(st);
	/* Back to version 2, as a file of the previous tapd would be. */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(
		sqlite3_exec(
			db,
			"DROP VIEW tap_launches;"
			" DROP INDEX taps_launch_app_wall;"
			" DROP INDEX taps_launch_wall;"
			" DROP INDEX taps_rank_launch_first;"
			" DROP INDEX taps_rank_launch_settle;"
			" ALTER TABLE taps DROP COLUMN target_app;"
			" ALTER TABLE taps DROP COLUMN target_activity;"
			" ALTER TABLE taps DROP COLUMN launch_first_frame_ns;"
			" ALTER TABLE taps DROP COLUMN launch_settle_ns;"
			" DROP VIEW tap_jank_tags;"
			" ALTER TABLE taps DROP COLUMN jank_tags;"
			" DROP TRIGGER tap_counts_add;"
			" DROP TRIGGER tap_counts_add_nowall;"
			" DROP TRIGGER tap_counts_sub;"
			" DROP TRIGGER tap_hist_sum_add;"
			" DROP TRIGGER tap_hist_sum_update;"
			" DROP TRIGGER tap_hist_sum_sub;"
			" DROP TRIGGER tap_counts_update;"
			" DROP TABLE tap_counts; DROP TABLE tap_hist_sum;"
			" DROP INDEX taps_rank_first;"
			" DROP INDEX taps_rank_settle;"
			" DROP VIEW tap_windows;"
			" ALTER TABLE taps DROP COLUMN window;"
			" ALTER TABLE taps DROP COLUMN attribution;"
			" DROP TABLE run_devices;"
			" PRAGMA user_version = 2",
			NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(db);
	st = NULL;
	assert_int_equal(store_open(path, 0, &st), 0);
	store_close(st);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	rank_answers = 1;
	for (j = 0; j < NRANGE / 3; j++) {
		int64_t since, until;

		range(&since, &until);
		check_status(ro, apps[j % NAPPS], since, until);
		check_percentiles(ro, "com.b", 0, since, until, (int)(j % 2));
	}
	check_apps(ro, INT64_MIN, INT64_MAX);
	store_close(ro);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_migrate),
	};

	log_init("test_store_rank", LOG_LEVEL_WARN);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
