/*
 * Store query: the statistics of store_query.h.  The statements are built
 * with the store's builder from fixed fragments with every value bound,
 * never printed into the SQL.  Each names the index it reads (INDEXED
 * BY): the indexes of sql/002-frames-hist.sql carry every column the
 * statistics use, so no statement reads the table, and a file copied off
 * a device has no ANALYZE statistics for SQLite to choose them by.
 */
#include "store_query.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store.h"
#include "store_cover.h"
#include "store_rank.h"
#include "store_sql.h"

#define MINUTE_NS (60 * 1000000000LL)
static const char *const store_query_metric_col[] = {
	"first_frame_ns", "settle_ns", "launch_first_frame_ns",
	"launch_settle_ns"};

void
store_query_filter_init(struct store_filter *f)
{
	store_filter_init(f);
	f->kinds = STORE_KINDS_MEASURED;
	f->status = store_status_names[STORE_STATUS_OK];
}

const char *
store_query_metric_name(enum store_query_metric metric)
{
	switch (metric) {
	case STORE_QUERY_SETTLE:
		return "settle";
	case STORE_QUERY_LAUNCH_FIRST_FRAME:
		return "launch_first_frame";
	case STORE_QUERY_LAUNCH_SETTLE:
		return "launch_settle";
	case STORE_QUERY_FIRST_FRAME:
	default:
		return "first_frame";
	}
}

const char *
store_query_method_name(enum store_query_method method)
{
	switch (method) {
	case STORE_QUERY_METHOD_EXACT:
		return "exact";
	case STORE_QUERY_METHOD_HISTOGRAM:
		return "histogram";
	case STORE_QUERY_METHOD_AUTO:
	default:
		return "auto";
	}
}

int64_t
store_query_rank(double p, int64_t n)
{
	int64_t pm, q, r, rank;

	if (n <= 0 || !(p > 0.0) || p > 100.0)
		return 0;
	/*
	 * p in millionths of a percent, so that 99.9 is 99900000 and not
	 * 99.900000000000006; rank = ceil(pm * n / 1e8), split so that no
	 * product overflows: n = q * 1e8 + r.
	 */
	pm = (int64_t)(p * 1e6 + 0.5);
	q = n / 100000000;
	r = n % 100000000;
	rank = q * pm + (r * pm + 99999999) / 100000000;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return rank;
}

static bool
store_query_status_known(const char *s)
{
	return store_status_index(s) >= 0;
}

static int
store_query_check_filter(const struct store_filter *f)
{
	if (!f || !store_query_status_known(f->status) ||
	    (f->kinds & STORE_KINDS_ALL) == 0 ||
	    (f->kinds & ~STORE_KINDS_ALL) || f->since_ns > f->until_ns ||
	    f->session < 0 || (f->app && f->app_unknown))
		return -EINVAL;
	return 0;
}

static bool
store_query_has_range(const struct store_filter *f)
{
	return f->since_ns != INT64_MIN || f->until_ns != INT64_MAX;
}

/*
 * Whether tap_hist counts exactly the taps f matches: the default status
 * and kinds, no session, and an app that has rows of its own there.
 */
static bool
store_query_hist_serves(const struct store_filter *f)
{
	return store_status_index(f->status) == STORE_STATUS_OK &&
	       f->kinds == STORE_KINDS_MEASURED && f->session == 0 &&
	       !f->app_unknown &&
	       (!f->app || (f->app[0] && strcmp(f->app, STORE_HIST_ALL_APPS)));
}

/*
 * FROM and WHERE for the taps of f whose metric is known, with wall_ns in
 * [lo, hi] (INT64_MIN/INT64_MAX: open), or unknown when null_wall.  The
 * index is the one that reads the fewest rows for that shape, without
 * the table (sql/002-frames-hist.sql): one app's (app, status, wall_ns,
 * ...), every app's (wall_ns, ...), or a session's own.
 */
static void
store_query_from_where(struct store__qb *q, const struct store_filter *f,
		       enum store_query_metric metric, int64_t lo, int64_t hi,
		       bool null_wall)
{
	struct store_filter g = *f;

	int launch = metric == STORE_QUERY_LAUNCH_FIRST_FRAME ||
		     metric == STORE_QUERY_LAUNCH_SETTLE;

	store__qb_add(q, " FROM taps INDEXED BY ");
	if (f->session)
		store__qb_add(q, "taps_session");
	else if (f->app || f->app_unknown)
		store__qb_add(q, launch ? "taps_launch_app_wall"
					: "taps_app_status_wall");
	else
		store__qb_add(q, launch ? "taps_launch_wall" : "taps_wall");
	/* The partial indexes' own WHERE, word for word, for the planner. */
	if (launch && !f->session) {
		store__qb_cond(q, "launch_first_frame_ns");
		store__qb_add(q, " IS NOT NULL");
	}
	store__qb_cond(q, store_query_metric_col[metric]);
	store__qb_add(q, " IS NOT NULL");
	g.since_ns = lo;
	g.until_ns = hi;
	g.wall = null_wall ? STORE_WALL_UNKNOWN : STORE_WALL_ANY;
	g.after_id = 0;
	g.before_id = 0;
	store__filter_where(q, &g, 0);
}

/* Runs a statement that gives one integer. */
static int
store_query_int(sqlite3 *db, struct store__qb *q, int64_t *out)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	rc = store__qb_prepare(db, q, &stmt);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(stmt, 0);
		rc = 0;
	} else {
		rc = store__db_fail(db, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				    "count taps");
	}
	sqlite3_finalize(stmt);
	return rc;
}

/*
 * The exact path: counts the matching rows, then reads them in order of
 * the metric up to the highest rank asked for, picking each rank's value
 * on the way.  Both read one range of a covering index; the order costs
 * SQLite a sort of that range (about 0.8 us a row in bench/query), which
 * is why AUTO sends large counts to the histogram.
 */
static int
store_query_exact(sqlite3 *db, const struct store_filter *f,
		  enum store_query_metric metric,
		  struct store_query_percentiles *out)
{
	sqlite3_stmt *stmt = NULL;
	struct store__qb q;
	size_t order[STORE_QUERY_MAX_P], i, j, next;
	int64_t rank[STORE_QUERY_MAX_P], row, n = 0;
	int rc;

	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT count(*)");
	store_query_from_where(&q, f, metric, f->since_ns, f->until_ns, false);
	rc = store_query_int(db, &q, &n);
	if (rc < 0)
		return rc;
	out->method = STORE_QUERY_METHOD_EXACT;
	out->count = n;
	out->max_error_ns = 0;
	for (i = 0; i < out->np; i++) {
		out->value_ns[i] = -1;
		out->error_ns[i] = 0;
		rank[i] = store_query_rank(out->p[i], n);
		order[i] = i;
	}
	if (n == 0)
		return 0;
	/* The ranks in ascending order, for one pass over the rows. */
	for (i = 1; i < out->np; i++)
		for (j = i; j > 0 && rank[order[j - 1]] > rank[order[j]]; j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}

	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT ");
	store__qb_add(&q, store_query_metric_col[metric]);
	store_query_from_where(&q, f, metric, f->since_ns, f->until_ns, false);
	store__qb_add(&q, " ORDER BY ");
	store__qb_add(&q, store_query_metric_col[metric]);
	rc = store__qb_prepare(db, &q, &stmt);
	if (rc < 0)
		return rc;
	for (row = 1, next = 0; next < out->np; row++) {
		rc = sqlite3_step(stmt);
		if (rc != SQLITE_ROW)
			break;
		for (; next < out->np && rank[order[next]] == row; next++)
			out->value_ns[order[next]] =
				sqlite3_column_int64(stmt, 0);
	}
	if (next < out->np) {
		/* Fewer rows than counted: only a broken snapshot does it. */
		if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
			log_warnx("cannot read taps: %" PRId64 " counted, "
				  "fewer read",
				  n);
			rc = -EIO;
		} else {
			rc = store__db_fail(db, rc, "read taps");
		}
	} else {
		rc = 0;
	}
	sqlite3_finalize(stmt);
	return rc;
}

/* Adds the metric of the rows of a statement to hist[], by bucket. */
static int
store_query_bucket_rows(sqlite3 *db, struct store__qb *q, int64_t *hist)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	rc = store__qb_prepare(db, q, &stmt);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		hist[store_hist_bucket(sqlite3_column_int64(stmt, 0))]++;
	rc = rc == SQLITE_DONE ? 0 : store__db_fail(db, rc, "read taps");
	sqlite3_finalize(stmt);
	return rc;
}

/* The rows of f with wall_ns in [lo, hi] (or unknown), into hist[]. */
static int
store_query_hist_rows(sqlite3 *db, const struct store_filter *f,
		      enum store_query_metric metric, int64_t lo, int64_t hi,
		      bool null_wall, int64_t *hist)
{
	struct store__qb q;

	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT ");
	store__qb_add(&q, store_query_metric_col[metric]);
	store_query_from_where(&q, f, metric, lo, hi, null_wall);
	return store_query_bucket_rows(db, &q, hist);
}

static int64_t
floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/*
 * The histogram of the metric over f (which store_query_hist_serves()) into
 * hist[STORE_HIST_BUCKETS]: whole minutes from tap_hist, the partial
 * minutes at the ends and, over all time, the taps of unknown wall time
 * from the rows.
 */
static int
store_query_hist_collect(sqlite3 *db, const struct store_filter *f,
			 enum store_query_metric metric, int64_t *hist)
{
	const char *scope = f->app ? f->app : STORE_HIST_ALL_APPS;
	int64_t a, b, m0, m1;
	int rc;

	/* Stored wall times are >= 0; [a, b] both included. */
	a = f->since_ns < 0 ? 0 : f->since_ns;
	b = f->until_ns;
	if (!store_query_has_range(f)) {
		rc = store_query_hist_rows(db, f, metric, INT64_MIN, INT64_MAX,
					   true, hist);
		if (rc < 0)
			return rc;
	}
	if (b < a)
		return 0;
	/* The whole minutes inside [a, b]: [m0, m1). */
	m0 = a > INT64_MAX - MINUTE_NS
		     ? INT64_MAX / MINUTE_NS + 1
		     : floor_div(a + MINUTE_NS - 1, MINUTE_NS);
	m1 = b == INT64_MAX ? INT64_MAX / MINUTE_NS
			    : floor_div(b + 1, MINUTE_NS);
	if (m0 >= m1)
		return store_query_hist_rows(db, f, metric, a, b, false, hist);
	if (a < m0 * MINUTE_NS) {
		rc = store_query_hist_rows(db, f, metric, a, m0 * MINUTE_NS - 1,
					   false, hist);
		if (rc < 0)
			return rc;
	}
	rc = store_cover__hist(db, scope, metric, m0, m1, hist);
	if (rc < 0)
		return rc;
	if (m1 * MINUTE_NS <= b)
		rc = store_query_hist_rows(db, f, metric, m1 * MINUTE_NS, b,
					   false, hist);
	return rc;
}

/* Percentiles from a histogram: each rank's bucket, at its midpoint. */
static void
store_query_hist_percentiles(const int64_t *hist,
			     struct store_query_percentiles *out)
{
	int64_t n = 0, rank, cum, lo, hi, mid;
	size_t i;
	int b;

	for (b = 0; b < STORE_HIST_BUCKETS; b++)
		n += hist[b];
	out->method = STORE_QUERY_METHOD_HISTOGRAM;
	out->count = n;
	out->max_error_ns = 0;
	for (i = 0; i < out->np; i++) {
		out->value_ns[i] = -1;
		out->error_ns[i] = 0;
		rank = store_query_rank(out->p[i], n);
		if (rank == 0)
			continue;
		for (b = 0, cum = 0; b < STORE_HIST_BUCKETS - 1; b++) {
			cum += hist[b];
			if (cum >= rank)
				break;
		}
		store_hist_edges(b, &lo, &hi);
		mid = lo + (hi - lo) / 2;
		out->value_ns[i] = mid;
		out->error_ns[i] = hi - mid;
		if (out->error_ns[i] > out->max_error_ns)
			out->max_error_ns = out->error_ns[i];
	}
}

/*
 * store_query_percentiles() inside a transaction the caller has opened.
 * An exact answer (EXACT, or AUTO with at most exact_max taps) comes,
 * when tap_hist serves the filter and counts at least STORE_RANK_MIN
 * taps, from the buckets that hold the ranks (store_rank.h); otherwise,
 * and when that path cannot answer, from a sort of the rows.
 */
static int
store_query_percentiles_tx(sqlite3 *db, const struct store_filter *f,
			   enum store_query_metric metric,
			   enum store_query_method method, int64_t exact_max,
			   struct store_query_percentiles *out)
{
	int64_t *hist = NULL;
	int rc;

	if (!store_query_hist_serves(f))
		return store_query_exact(db, f, metric, out);
	hist = calloc(STORE_HIST_BUCKETS, sizeof(*hist));
	if (!hist)
		return -ENOMEM;
	rc = store_query_hist_collect(db, f, metric, hist);
	if (rc < 0)
		goto out;
	store_query_hist_percentiles(hist, out);
	if (method == STORE_QUERY_METHOD_HISTOGRAM ||
	    (method == STORE_QUERY_METHOD_AUTO && out->count > exact_max))
		goto out;
	rc = out->count >= STORE_RANK_MIN
		     ? store_rank__percentiles(db, f, metric, hist, out)
		     : 1;
	if (rc > 0)
		rc = store_query_exact(db, f, metric, out);
out:
	free(hist);
	return rc;
}

static int
store_query_check_p(const double *p, size_t np,
		    struct store_query_percentiles *out)
{
	size_t i;

	if (np == 0 || np > STORE_QUERY_MAX_P || !p)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < np; i++) {
		if (!(p[i] > 0.0) || p[i] > 100.0)
			return -EINVAL;
		out->p[i] = p[i];
	}
	out->np = np;
	return 0;
}

int
store_query_percentiles(struct store *st, const struct store_filter *f,
			enum store_query_metric metric,
			enum store_query_method method, const double *p,
			size_t np, struct store_query_percentiles *out)
{
	sqlite3 *db = st ? store__sqlite(st) : NULL;
	bool began;
	int rc;

	if (!db || !out || store_query_check_filter(f) < 0 ||
	    (unsigned)metric >= STORE_QUERY_METRICS ||
	    (method != STORE_QUERY_METHOD_AUTO &&
	     method != STORE_QUERY_METHOD_EXACT &&
	     method != STORE_QUERY_METHOD_HISTOGRAM))
		return -EINVAL;
	rc = store_query_check_p(p, np, out);
	if (rc < 0)
		return rc;
	rc = store__read_begin(db, &began);
	if (rc < 0)
		return rc;
	rc = store_query_percentiles_tx(db, f, metric, method,
					STORE_QUERY_EXACT_MAX, out);
	store__read_end(db, began);
	return rc;
}

void
store_query_apps_free(struct store_query_app *apps, size_t napps)
{
	size_t i;

	if (!apps)
		return;
	for (i = 0; i < napps; i++)
		free(apps[i].app);
	free(apps);
}

/*
 * The apps with gestures matching f's range and session, in name order
 * and the unknown app last, with their counts.  The names come one index
 * seek each (the next name after the last one), not from a scan of every
 * row: a device sees dozens of apps and millions of taps.
 */
static int
store_query_app_counts(sqlite3 *db, const struct store_filter *f,
		       struct store_query_app **apps, size_t *napps)
{
	struct store_query_app *list = NULL, *a;
	char **names = NULL;
	size_t nnames = 0, n = 0, i;
	int rc;

	rc = store_cover__app_names(db, &names, &nnames);
	if (rc < 0)
		goto out;
	list = calloc(nnames ? nnames : 1, sizeof(*list));
	if (!list) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nnames; i++) {
		a = &list[n];
		/* The list takes the name; one without taps is dropped. */
		a->app = names[i];
		names[i] = NULL;
		n++;
		rc = store_cover__status(db, f, a->app, a->status, &a->total);
		if (rc < 0)
			goto out;
		if (a->total == 0) {
			free(a->app);
			a->app = NULL;
			n--;
		}
	}
	*apps = list;
	*napps = n;
	list = NULL;
	n = 0;
	rc = 0;
out:
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	store_query_apps_free(list, n);
	return rc;
}

int
store_query_apps(struct store *st, const struct store_filter *f,
		 struct store_query_app **apps, size_t *napps)
{
	sqlite3 *db = st ? store__sqlite(st) : NULL;
	static const double p[] = {50, 90, 99};
	struct store_query_app *list = NULL;
	struct store_filter af;
	size_t n = 0, i;
	bool began = false;
	int rc;

	if (!db || !apps || !napps || !f || f->since_ns > f->until_ns ||
	    f->session < 0)
		return -EINVAL;
	rc = store__read_begin(db, &began);
	if (rc < 0)
		return rc;
	rc = store_query_app_counts(db, f, &list, &n);
	if (rc < 0)
		goto out;
	for (i = 0; i < n; i++) {
		store_query_filter_init(&af);
		af.app = list[i].app;
		af.app_unknown = list[i].app == NULL;
		af.since_ns = f->since_ns;
		af.until_ns = f->until_ns;
		af.session = f->session;
		rc = store_query_check_p(p, 3, &list[i].first_frame);
		if (rc == 0)
			rc = store_query_check_p(p, 3, &list[i].settle);
		if (rc == 0)
			rc = store_query_check_p(p, 3,
						 &list[i].launch_first_frame);
		if (rc == 0)
			rc = store_query_check_p(p, 3, &list[i].launch_settle);
		if (rc == 0)
			rc = store_query_percentiles_tx(
				db, &af, STORE_QUERY_FIRST_FRAME,
				STORE_QUERY_METHOD_AUTO,
				STORE_QUERY_APPS_EXACT_MAX,
				&list[i].first_frame);
		if (rc == 0)
			rc = store_query_percentiles_tx(
				db, &af, STORE_QUERY_SETTLE,
				STORE_QUERY_METHOD_AUTO,
				STORE_QUERY_APPS_EXACT_MAX, &list[i].settle);
		if (rc == 0)
			rc = store_query_percentiles_tx(
				db, &af, STORE_QUERY_LAUNCH_FIRST_FRAME,
				STORE_QUERY_METHOD_AUTO,
				STORE_QUERY_APPS_EXACT_MAX,
				&list[i].launch_first_frame);
		if (rc == 0)
			rc = store_query_percentiles_tx(
				db, &af, STORE_QUERY_LAUNCH_SETTLE,
				STORE_QUERY_METHOD_AUTO,
				STORE_QUERY_APPS_EXACT_MAX,
				&list[i].launch_settle);
		if (rc < 0)
			goto out;
	}
	*apps = list;
	*napps = n;
	list = NULL;
	n = 0;
out:
	store__read_end(db, began);
	store_query_apps_free(list, n);
	return rc;
}

void
store_query_histogram_release(struct store_query_histogram *h)
{
	if (!h)
		return;
	free(h->buckets);
	h->buckets = NULL;
	h->nbuckets = 0;
}

/* Merges the fine buckets into at most max runs of equal length. */
static int
store_query_hist_group(const int64_t *hist, size_t max,
		       struct store_query_histogram *out)
{
	int first = -1, last = -1, b;
	size_t g, nb, j;
	int64_t lo, hi;

	for (b = 0; b < STORE_HIST_BUCKETS; b++) {
		out->count += hist[b];
		if (hist[b] == 0)
			continue;
		if (first < 0)
			first = b;
		last = b;
	}
	if (first < 0)
		return 0;
	g = ((size_t)(last - first) + max) / max;
	nb = ((size_t)(last - first) + g) / g;
	out->buckets = calloc(nb, sizeof(*out->buckets));
	if (!out->buckets)
		return -ENOMEM;
	out->nbuckets = nb;
	for (j = 0; j < nb; j++) {
		int b0 = first + (int)(j * g);
		int b1 = b0 + (int)g - 1 > last ? last : b0 + (int)g - 1;

		store_hist_edges(b0, &lo, &hi);
		out->buckets[j].lo_ns = lo;
		store_hist_edges(b1, &lo, &hi);
		out->buckets[j].hi_ns = hi;
		for (b = b0; b <= b1; b++)
			out->buckets[j].count += hist[b];
	}
	return 0;
}

int
store_query_histogram(struct store *st, const struct store_filter *f,
		      enum store_query_metric metric, size_t max_buckets,
		      struct store_query_histogram *out)
{
	sqlite3 *db = st ? store__sqlite(st) : NULL;
	int64_t *hist = NULL;
	bool began = false;
	int rc;

	if (!db || !out || max_buckets == 0 ||
	    store_query_check_filter(f) < 0 ||
	    (unsigned)metric >= STORE_QUERY_METRICS)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	hist = calloc(STORE_HIST_BUCKETS, sizeof(*hist));
	if (!hist)
		return -ENOMEM;
	rc = store__read_begin(db, &began);
	if (rc < 0)
		goto out;
	if (store_query_hist_serves(f)) {
		out->method = STORE_QUERY_METHOD_HISTOGRAM;
		rc = store_query_hist_collect(db, f, metric, hist);
	} else {
		out->method = STORE_QUERY_METHOD_EXACT;
		rc = store_query_hist_rows(db, f, metric, f->since_ns,
					   f->until_ns, false, hist);
	}
	if (rc == 0)
		rc = store_query_hist_group(hist, max_buckets, out);
	if (rc < 0)
		store_query_histogram_release(out);
out:
	store__read_end(db, began);
	free(hist);
	return rc;
}
