/*
 * Store query: the statistics of the API (percentiles, per-app summaries,
 * histograms) as SQL over a read-only connection to a store's file.  No
 * HTTP here: api_stats.c validates the parameters and writes the JSON.
 *
 * Percentiles are nearest-rank (docs/DESIGN.md 1.9): over the N taps that
 * match a filter, sorted by the metric, percentile p is the value at rank
 * ceil(p / 100 * N), counted from 1.  There are two ways to get it:
 *
 *  - exact: the stored value at the rank.  When tap_hist serves the filter
 *    (below), its exact counts by bucket say which bucket holds the rank,
 *    and only that bucket's rows of the range are read, in order, from a
 *    partial index (store_rank.h); otherwise, and while retention is half
 *    done, the matching rows are counted and read in order up to the
 *    highest rank asked for.
 *  - histogram: the per-minute, per-hour and per-day counts of tap_hist
 *    (sql/002-frames-hist.sql) over the whole minutes of the range, plus
 *    the rows of the partial minutes at its two ends, bucketed the same
 *    way.  The counts are exact, so the bucket that holds the rank is
 *    exact too; the answer is the bucket's midpoint, within
 *    error_ns = half the bucket's width of the true value: at most 1% of
 *    it (plus 1 ns), or 0.05 ms below 0.1 ms.
 *
 * STORE_QUERY_METHOD_AUTO takes the histogram's count first and reads the rows
 * when there are at most STORE_QUERY_EXACT_MAX of them, so that small answers
 * are exact and large ones stay fast.  tap_hist only counts 'ok' taps of
 * the measured kinds with a known wall time, per app or for all apps, so
 * a filter on another status, a subset of the kinds, a session or taps of
 * unknown app is always answered exactly, whatever method was asked for;
 * the result says which method it used.
 *
 * Every function runs its statements in one read transaction (unless the
 * caller has one open), so that the counts and the rows agree even while
 * the writer commits.
 */
#ifndef TAPD_STORE_QUERY_H
#define TAPD_STORE_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/*
 * The largest match count STORE_QUERY_METHOD_AUTO reads row by row; above it,
 * the histogram answers.  Measured with bench/query (see its README): the
 * exact path costs about 0.9 us a row, so this many take about 9 ms, a
 * fifth of the 50 ms budget, while the histogram answers in 1-3 ms
 * whatever the count.
 */
#define STORE_QUERY_EXACT_MAX 10000

/*
 * The same for each of the two metrics of each app of store_query_apps(), which
 * answers for every app at once: its exact answers stay within a fraction
 * of the budget however many apps there are.
 */
#define STORE_QUERY_APPS_EXACT_MAX 1000

/* At most this many percentiles per request. */
#define STORE_QUERY_MAX_P 32

/* The statuses of store_query_app.status, by enum store_status. */
#define STORE_QUERY_STATUS_N STORE_STATUS_COUNT

enum store_query_metric {
	STORE_QUERY_FIRST_FRAME = 0, /* the same numbers as STORE_METRIC_* */
	STORE_QUERY_SETTLE = 1,
	/* A launch's (sql/008-launch.sql). */
	STORE_QUERY_LAUNCH_FIRST_FRAME = 2,
	STORE_QUERY_LAUNCH_SETTLE = 3,
};
#define STORE_QUERY_METRICS 4

enum store_query_method {
	STORE_QUERY_METHOD_AUTO,
	STORE_QUERY_METHOD_EXACT,
	STORE_QUERY_METHOD_HISTOGRAM,
};

/*
 * The defaults of a query's filter: every app and time, the measured
 * kinds and status "ok".  A query needs a status; it ignores the
 * filter's wall, after_id and before_id.
 */
void store_query_filter_init(struct store_filter *f);

/*
 * The nearest rank of percentile p (0 < p <= 100) among n values, from 1
 * to n; 0 when n is 0.  p is taken to 6 decimals (99.9 is exactly 99.9),
 * and the arithmetic is integer, so ranks are exact for any n.
 */
int64_t store_query_rank(double p, int64_t n);

struct store_query_percentiles {
	enum store_query_method method; /* the one used: EXACT or HISTOGRAM */
	int64_t count;			/* taps matched */
	size_t np;
	double p[STORE_QUERY_MAX_P];
	int64_t value_ns[STORE_QUERY_MAX_P]; /* -1 when count is 0 */
	int64_t error_ns[STORE_QUERY_MAX_P]; /* bound of |value - true|; 0 exact
					      */
	int64_t max_error_ns;		     /* the largest of error_ns */
};

/*
 * Percentiles p[0..np) (each in (0, 100], 1 <= np <= STORE_QUERY_MAX_P) of the
 * metric over the taps that match f.  Returns 0 and fills *out, -EINVAL
 * for a bad argument (an unknown status, no kind, a reversed range), or a
 * negative errno from SQLite (-EIO for a histogram row out of range).
 */
int store_query_percentiles(struct store *st, const struct store_filter *f,
			    enum store_query_metric metric,
			    enum store_query_method method, const double *p,
			    size_t np, struct store_query_percentiles *out);

/* One app of store_query_apps(). */
struct store_query_app {
	char *app;			      /* NULL for taps of unknown app */
	int64_t status[STORE_QUERY_STATUS_N]; /* gestures by status, any kind */
	int64_t total;			      /* the sum of status[] */
	struct store_query_percentiles first_frame; /* p50, p90, p99 */
	struct store_query_percentiles settle;
	/* Of its launches (sql/008-launch.sql), count 0 when none. */
	struct store_query_percentiles launch_first_frame;
	struct store_query_percentiles launch_settle;
};

/*
 * Every app with gestures matching f's time range and session (its app,
 * kinds and status are ignored): counts by status of all its gestures,
 * and p50/p90/p99 of the four metrics over its 'ok' taps of the measured
 * kinds, by STORE_QUERY_METHOD_AUTO with STORE_QUERY_APPS_EXACT_MAX for a
 * limit.  Apps come in name order, the unknown app last.  Returns 0 and sets
 * *apps (free with store_query_apps_free()) and *napps, or a negative errno.
 */
int store_query_apps(struct store *st, const struct store_filter *f,
		     struct store_query_app **apps, size_t *napps);

/* NULL is a no-op. */
void store_query_apps_free(struct store_query_app *apps, size_t napps);

/* A bucket of store_query_histogram(): values in [lo_ns, hi_ns], both included.
 */
struct store_query_bucket {
	int64_t lo_ns;
	int64_t hi_ns;
	int64_t count;
};

struct store_query_histogram {
	enum store_query_method method; /* where the counts came from */
	int64_t count;			/* the sum of the buckets' counts */
	size_t nbuckets;
	struct store_query_bucket *buckets;
};

/*
 * The metric's distribution over the taps that match f, in at most
 * max_buckets log-spaced buckets from the smallest value's bucket to the
 * largest's (empty buckets between included).  Each is a run of whole
 * buckets of store_hist_bucket(), so every count is exact whichever the
 * source.  Returns 0 and fills *out (release with
 * store_query_histogram_release()), -EINVAL for a bad argument or max_buckets
 * 0, or a negative errno.
 */
int store_query_histogram(struct store *st, const struct store_filter *f,
			  enum store_query_metric metric, size_t max_buckets,
			  struct store_query_histogram *out);

/* Frees what store_query_histogram() allocated; NULL is a no-op. */
void store_query_histogram_release(struct store_query_histogram *h);

/* "first_frame" or "settle"; "exact" or "histogram" ("auto"). */
const char *store_query_metric_name(enum store_query_metric metric);
const char *store_query_method_name(enum store_query_method method);

#endif
