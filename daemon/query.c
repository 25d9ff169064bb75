/*
 * The statements are built from fixed fragments with every value bound,
 * never printed into the SQL.  Each names the index it reads (INDEXED
 * BY): the indexes of sql/002-frames-hist.sql carry every column the
 * statistics use, so no statement reads the table, and a file copied off
 * a device has no ANALYZE statistics for SQLite to choose them by.
 */
#include "query.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store.h"

#define QUERY_SQL_MAX	1024
#define QUERY_BINDS_MAX 16
#define MINUTE_NS	(60 * 1000000000LL)
/*
 * Larger counts in a bucket mean a damaged file (2^50 taps is a million
 * taps a second for 35 years), and keep the sum of all buckets far from
 * overflowing.
 */
#define QUERY_HIST_COUNT_MAX (1LL << 50)

const char *const query_statuses[QUERY_STATUS_N] = {
	"ok", "no_response", "truncated", "frames_unavailable", "not_measured",
};

static const char *const query_kinds[] = {"tap", "long_press", "swipe",
					  "multi"};
static const char *const query_metric_col[] = {"first_frame_ns", "settle_ns"};

/* A statement being built: its text and the values for its "?"s. */
struct qb {
	char sql[QUERY_SQL_MAX];
	size_t len;
	bool overflow;
	struct {
		bool is_text;
		int64_t i;
		const char *s;
	} bind[QUERY_BINDS_MAX];
	int nbind;
};

void
query_filter_init(struct query_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->kinds = QUERY_KINDS_MEASURED;
	f->status = "ok";
	f->since_ns = INT64_MIN;
	f->until_ns = INT64_MAX;
}

const char *
query_metric_name(enum query_metric metric)
{
	return metric == QUERY_SETTLE ? "settle" : "first_frame";
}

const char *
query_method_name(enum query_method method)
{
	switch (method) {
	case QUERY_METHOD_EXACT:
		return "exact";
	case QUERY_METHOD_HISTOGRAM:
		return "histogram";
	case QUERY_METHOD_AUTO:
	default:
		return "auto";
	}
}

int64_t
query_rank(double p, int64_t n)
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

static void
qb_add(struct qb *q, const char *s)
{
	size_t n = strlen(s);

	if (q->overflow || q->len + n >= sizeof(q->sql)) {
		q->overflow = true;
		return;
	}
	memcpy(q->sql + q->len, s, n + 1);
	q->len += n;
}

static void
qb_int(struct qb *q, const char *s, int64_t v)
{
	qb_add(q, s);
	if (q->nbind == QUERY_BINDS_MAX) {
		q->overflow = true;
		return;
	}
	q->bind[q->nbind].is_text = false;
	q->bind[q->nbind].i = v;
	q->nbind++;
}

static void
qb_text(struct qb *q, const char *s, const char *v)
{
	qb_add(q, s);
	if (q->nbind == QUERY_BINDS_MAX) {
		q->overflow = true;
		return;
	}
	q->bind[q->nbind].is_text = true;
	q->bind[q->nbind].s = v;
	q->nbind++;
}

/* Maps an SQLite result code to a negative errno, as store.c does. */
static int
query_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_INTERRUPT:
		return -EINTR;
	default:
		return -EIO;
	}
}

static int
query_fail(sqlite3 *db, int rc, const char *what)
{
	log_warnx("cannot %s: %s", what, sqlite3_errmsg(db));
	return query_errno(rc);
}

static int
qb_prepare(sqlite3 *db, struct qb *q, sqlite3_stmt **out)
{
	sqlite3_stmt *stmt = NULL;
	int i, rc;

	if (q->overflow) {
		log_warnx("cannot build a query: more than %d bytes",
			  QUERY_SQL_MAX);
		return -E2BIG;
	}
	rc = sqlite3_prepare_v2(db, q->sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK)
		return query_fail(db, rc, "prepare a query");
	for (i = 0; i < q->nbind && rc == SQLITE_OK; i++)
		rc = q->bind[i].is_text
			     ? sqlite3_bind_text(stmt, i + 1, q->bind[i].s, -1,
						 SQLITE_STATIC)
			     : sqlite3_bind_int64(stmt, i + 1, q->bind[i].i);
	if (rc != SQLITE_OK) {
		rc = query_fail(db, rc, "bind a query");
		sqlite3_finalize(stmt);
		return rc;
	}
	*out = stmt;
	return 0;
}

static bool
query_status_known(const char *s)
{
	size_t i;

	for (i = 0; i < QUERY_STATUS_N; i++)
		if (s && strcmp(s, query_statuses[i]) == 0)
			return true;
	return false;
}

static int
query_check_filter(const struct query_filter *f)
{
	if (!f || !query_status_known(f->status) ||
	    (f->kinds & QUERY_KINDS_ALL) == 0 ||
	    (f->kinds & ~QUERY_KINDS_ALL) || f->since_ns > f->until_ns ||
	    f->session < 0 || (f->app && f->app_unknown))
		return -EINVAL;
	return 0;
}

static bool
query_has_range(const struct query_filter *f)
{
	return f->since_ns != INT64_MIN || f->until_ns != INT64_MAX;
}

/*
 * Whether tap_hist counts exactly the taps f matches: the default status
 * and kinds, no session, and an app that has rows of its own there.
 */
static bool
query_hist_serves(const struct query_filter *f)
{
	return strcmp(f->status, "ok") == 0 &&
	       f->kinds == QUERY_KINDS_MEASURED && f->session == 0 &&
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
qb_from_where(struct qb *q, const struct query_filter *f,
	      enum query_metric metric, int64_t lo, int64_t hi, bool null_wall)
{
	const char *sep = "";
	size_t i;

	qb_add(q, " FROM taps INDEXED BY ");
	if (f->session)
		qb_add(q, "taps_session");
	else if (f->app || f->app_unknown)
		qb_add(q, "taps_app_status_wall");
	else
		qb_add(q, "taps_wall");
	qb_add(q, " WHERE ");
	qb_add(q, query_metric_col[metric]);
	qb_add(q, " IS NOT NULL");
	if (f->app)
		qb_text(q, " AND app = ?", f->app);
	else if (f->app_unknown)
		qb_add(q, " AND app IS NULL");
	qb_text(q, " AND status = ?", f->status);
	if ((f->kinds & QUERY_KINDS_ALL) != QUERY_KINDS_ALL) {
		qb_add(q, " AND kind IN (");
		for (i = 0; i < 4; i++) {
			if (!(f->kinds & (1u << i)))
				continue;
			qb_add(q, sep);
			qb_text(q, "?", query_kinds[i]);
			sep = ", ";
		}
		qb_add(q, ")");
	}
	if (f->session)
		qb_int(q, " AND session = ?", f->session);
	if (null_wall)
		qb_add(q, " AND wall_ns IS NULL");
	if (lo != INT64_MIN)
		qb_int(q, " AND wall_ns >= ?", lo);
	if (hi != INT64_MAX)
		qb_int(q, " AND wall_ns <= ?", hi);
}

/* Runs a statement that gives one integer. */
static int
query_int(sqlite3 *db, struct qb *q, int64_t *out)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	rc = qb_prepare(db, q, &stmt);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(stmt, 0);
		rc = 0;
	} else {
		rc = query_fail(db, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
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
query_exact(sqlite3 *db, const struct query_filter *f, enum query_metric metric,
	    struct query_percentiles *out)
{
	sqlite3_stmt *stmt = NULL;
	struct qb q;
	size_t order[QUERY_MAX_P], i, j, next;
	int64_t rank[QUERY_MAX_P], row, n = 0;
	int rc;

	memset(&q, 0, sizeof(q));
	qb_add(&q, "SELECT count(*)");
	qb_from_where(&q, f, metric, f->since_ns, f->until_ns, false);
	rc = query_int(db, &q, &n);
	if (rc < 0)
		return rc;
	out->method = QUERY_METHOD_EXACT;
	out->count = n;
	out->max_error_ns = 0;
	for (i = 0; i < out->np; i++) {
		out->value_ns[i] = -1;
		out->error_ns[i] = 0;
		rank[i] = query_rank(out->p[i], n);
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
	qb_add(&q, "SELECT ");
	qb_add(&q, query_metric_col[metric]);
	qb_from_where(&q, f, metric, f->since_ns, f->until_ns, false);
	qb_add(&q, " ORDER BY ");
	qb_add(&q, query_metric_col[metric]);
	rc = qb_prepare(db, &q, &stmt);
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
			rc = query_fail(db, rc, "read taps");
		}
	} else {
		rc = 0;
	}
	sqlite3_finalize(stmt);
	return rc;
}

/* Adds the metric of the rows of a statement to hist[], by bucket. */
static int
query_bucket_rows(sqlite3 *db, struct qb *q, int64_t *hist)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	rc = qb_prepare(db, q, &stmt);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		hist[store_hist_bucket(sqlite3_column_int64(stmt, 0))]++;
	rc = rc == SQLITE_DONE ? 0 : query_fail(db, rc, "read taps");
	sqlite3_finalize(stmt);
	return rc;
}

/* The rows of f with wall_ns in [lo, hi] (or unknown), into hist[]. */
static int
query_hist_rows(sqlite3 *db, const struct query_filter *f,
		enum query_metric metric, int64_t lo, int64_t hi,
		bool null_wall, int64_t *hist)
{
	struct qb q;

	memset(&q, 0, sizeof(q));
	qb_add(&q, "SELECT ");
	qb_add(&q, query_metric_col[metric]);
	qb_from_where(&q, f, metric, lo, hi, null_wall);
	return query_bucket_rows(db, &q, hist);
}

/* Adds tap_hist's rows of one span over minutes [m0, m1) to hist[]. */
static int
query_hist_span(sqlite3 *db, const char *scope, enum query_metric metric,
		int span, int64_t m0, int64_t m1, int64_t *hist)
{
	sqlite3_stmt *stmt = NULL;
	struct qb q;
	int64_t b, c;
	int rc;

	memset(&q, 0, sizeof(q));
	qb_text(&q, "SELECT bucket, count FROM tap_hist WHERE app = ?", scope);
	qb_int(&q, " AND metric = ?", metric);
	qb_int(&q, " AND span = ?", span);
	qb_int(&q, " AND minute >= ?", m0);
	qb_int(&q, " AND minute < ?", m1);
	rc = qb_prepare(db, &q, &stmt);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		b = sqlite3_column_int64(stmt, 0);
		c = sqlite3_column_int64(stmt, 1);
		/*
		 * A file copied off a device is input like any other: a
		 * count no device could reach would overflow the sums.
		 */
		if (b < 0 || b >= STORE_HIST_BUCKETS || c < 0 ||
		    c > QUERY_HIST_COUNT_MAX - hist[b]) {
			log_warnx("cannot use a tap_hist row: bucket %lld, "
				  "count %lld out of range",
				  (long long)b, (long long)c);
			rc = -EIO;
			goto out;
		}
		hist[b] += c;
	}
	rc = rc == SQLITE_DONE ? 0 : query_fail(db, rc, "read tap_hist");
out:
	sqlite3_finalize(stmt);
	return rc;
}

static int64_t
floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/*
 * Covers minutes [m0, m1) with the coarsest spans that fit: whole days in
 * the middle, then whole hours, then single minutes at the ends.
 */
static int
query_hist_cover(sqlite3 *db, const char *scope, enum query_metric metric,
		 int64_t m0, int64_t m1, int level, int64_t *hist)
{
	static const int spans[] = {STORE_HIST_SPAN_DAY, STORE_HIST_SPAN_HOUR,
				    STORE_HIST_SPAN_MINUTE};
	int64_t span, c0, c1;
	int rc;

	if (m0 >= m1)
		return 0;
	span = spans[level];
	if (span == 1)
		return query_hist_span(db, scope, metric, 1, m0, m1, hist);
	c0 = -floor_div(-m0, span) * span;
	c1 = floor_div(m1, span) * span;
	if (c0 >= c1)
		return query_hist_cover(db, scope, metric, m0, m1, level + 1,
					hist);
	rc = query_hist_cover(db, scope, metric, m0, c0, level + 1, hist);
	if (rc == 0)
		rc = query_hist_span(db, scope, metric, (int)span, c0, c1,
				     hist);
	if (rc == 0)
		rc = query_hist_cover(db, scope, metric, c1, m1, level + 1,
				      hist);
	return rc;
}

/*
 * The histogram of the metric over f (which query_hist_serves()) into
 * hist[STORE_HIST_BUCKETS]: whole minutes from tap_hist, the partial
 * minutes at the ends and, over all time, the taps of unknown wall time
 * from the rows.
 */
static int
query_hist_collect(sqlite3 *db, const struct query_filter *f,
		   enum query_metric metric, int64_t *hist)
{
	const char *scope = f->app ? f->app : STORE_HIST_ALL_APPS;
	int64_t a, b, m0, m1;
	int rc;

	/* Stored wall times are >= 0; [a, b] both included. */
	a = f->since_ns < 0 ? 0 : f->since_ns;
	b = f->until_ns;
	if (!query_has_range(f)) {
		rc = query_hist_rows(db, f, metric, INT64_MIN, INT64_MAX, true,
				     hist);
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
		return query_hist_rows(db, f, metric, a, b, false, hist);
	if (a < m0 * MINUTE_NS) {
		rc = query_hist_rows(db, f, metric, a, m0 * MINUTE_NS - 1,
				     false, hist);
		if (rc < 0)
			return rc;
	}
	rc = query_hist_cover(db, scope, metric, m0, m1, 0, hist);
	if (rc < 0)
		return rc;
	if (m1 * MINUTE_NS <= b)
		rc = query_hist_rows(db, f, metric, m1 * MINUTE_NS, b, false,
				     hist);
	return rc;
}

/* Percentiles from a histogram: each rank's bucket, at its midpoint. */
static void
query_hist_percentiles(const int64_t *hist, struct query_percentiles *out)
{
	int64_t n = 0, rank, cum, lo, hi, mid;
	size_t i;
	int b;

	for (b = 0; b < STORE_HIST_BUCKETS; b++)
		n += hist[b];
	out->method = QUERY_METHOD_HISTOGRAM;
	out->count = n;
	out->max_error_ns = 0;
	for (i = 0; i < out->np; i++) {
		out->value_ns[i] = -1;
		out->error_ns[i] = 0;
		rank = query_rank(out->p[i], n);
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

/* BEGIN unless the caller is in a transaction; *began says which. */
static int
query_begin(sqlite3 *db, bool *began)
{
	int rc;

	*began = false;
	if (!sqlite3_get_autocommit(db))
		return 0;
	rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return query_fail(db, rc, "begin a read transaction");
	*began = true;
	return 0;
}

static void
query_end(sqlite3 *db, bool began)
{
	/* A read transaction has nothing to keep: ROLLBACK ends it. */
	if (began && !sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

/*
 * query_percentiles() inside a transaction the caller has opened; AUTO
 * reads the rows when there are at most exact_max.
 */
static int
query_percentiles_tx(sqlite3 *db, const struct query_filter *f,
		     enum query_metric metric, enum query_method method,
		     int64_t exact_max, struct query_percentiles *out)
{
	int64_t *hist = NULL;
	int rc;

	if (method == QUERY_METHOD_EXACT || !query_hist_serves(f))
		return query_exact(db, f, metric, out);
	hist = calloc(STORE_HIST_BUCKETS, sizeof(*hist));
	if (!hist)
		return -ENOMEM;
	rc = query_hist_collect(db, f, metric, hist);
	if (rc < 0)
		goto out;
	query_hist_percentiles(hist, out);
	if (method == QUERY_METHOD_AUTO && out->count <= exact_max)
		rc = query_exact(db, f, metric, out);
out:
	free(hist);
	return rc;
}

static int
query_check_p(const double *p, size_t np, struct query_percentiles *out)
{
	size_t i;

	if (np == 0 || np > QUERY_MAX_P || !p)
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
query_percentiles(sqlite3 *db, const struct query_filter *f,
		  enum query_metric metric, enum query_method method,
		  const double *p, size_t np, struct query_percentiles *out)
{
	bool began;
	int rc;

	if (!db || !out || query_check_filter(f) < 0 ||
	    (metric != QUERY_FIRST_FRAME && metric != QUERY_SETTLE) ||
	    (method != QUERY_METHOD_AUTO && method != QUERY_METHOD_EXACT &&
	     method != QUERY_METHOD_HISTOGRAM))
		return -EINVAL;
	rc = query_check_p(p, np, out);
	if (rc < 0)
		return rc;
	rc = query_begin(db, &began);
	if (rc < 0)
		return rc;
	rc = query_percentiles_tx(db, f, metric, method, QUERY_EXACT_MAX, out);
	query_end(db, began);
	return rc;
}

void
query_apps_free(struct query_app *apps, size_t napps)
{
	size_t i;

	if (!apps)
		return;
	for (i = 0; i < napps; i++)
		free(apps[i].app);
	free(apps);
}

/*
 * Counts the gestures of one app (or of unknown app) by status into a,
 * through (app, status, wall_ns): the IN list makes it one seek per
 * status, so a short range reads only its own rows.
 */
static int
query_app_count(sqlite3 *db, const struct query_filter *f, struct query_app *a)
{
	sqlite3_stmt *stmt = NULL;
	const unsigned char *status;
	struct qb q;
	size_t i;
	int rc;

	memset(&q, 0, sizeof(q));
	qb_add(&q, "SELECT status, count(*) FROM taps INDEXED BY ");
	qb_add(&q, f->session ? "taps_session" : "taps_app_status_wall");
	if (a->app)
		qb_text(&q, " WHERE app = ?", a->app);
	else
		qb_add(&q, " WHERE app IS NULL");
	qb_add(&q, " AND status IN (");
	for (i = 0; i < QUERY_STATUS_N; i++)
		qb_text(&q, i ? ", ?" : "?", query_statuses[i]);
	qb_add(&q, ")");
	if (f->session)
		qb_int(&q, " AND session = ?", f->session);
	if (f->since_ns != INT64_MIN)
		qb_int(&q, " AND wall_ns >= ?", f->since_ns);
	if (f->until_ns != INT64_MAX)
		qb_int(&q, " AND wall_ns <= ?", f->until_ns);
	qb_add(&q, " GROUP BY status");
	rc = qb_prepare(db, &q, &stmt);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		status = sqlite3_column_text(stmt, 0);
		for (i = 0; i < QUERY_STATUS_N; i++)
			if (status && strcmp((const char *)status,
					     query_statuses[i]) == 0)
				a->status[i] = sqlite3_column_int64(stmt, 1);
		a->total += sqlite3_column_int64(stmt, 1);
	}
	rc = rc == SQLITE_DONE ? 0 : query_fail(db, rc, "count taps by app");
	sqlite3_finalize(stmt);
	return rc;
}

/*
 * The apps with gestures matching f's range and session, in name order
 * and the unknown app last, with their counts.  The names come one index
 * seek each (the next name after the last one), not from a scan of every
 * row: a device sees dozens of apps and millions of taps.
 */
static int
query_app_counts(sqlite3 *db, const struct query_filter *f,
		 struct query_app **apps, size_t *napps)
{
	static const char sql[] =
		"WITH RECURSIVE a (app) AS ("
		" SELECT (SELECT min(app) FROM taps INDEXED BY taps_app_wall)"
		" UNION ALL"
		" SELECT (SELECT min(app) FROM taps INDEXED BY taps_app_wall"
		" WHERE app > a.app) FROM a WHERE a.app IS NOT NULL)"
		" SELECT app FROM a WHERE app IS NOT NULL";
	sqlite3_stmt *stmt = NULL;
	struct query_app *list = NULL, *grown, *a;
	const unsigned char *app;
	size_t n = 0, cap = 0;
	bool done = false;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK) {
		rc = query_fail(db, rc, "prepare a query");
		goto out;
	}
	while (!done) {
		rc = sqlite3_step(stmt);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			rc = query_fail(db, rc, "list apps");
			goto out;
		}
		/* After the last name, the taps of unknown app. */
		done = rc == SQLITE_DONE;
		app = done ? NULL : sqlite3_column_text(stmt, 0);
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown) {
				rc = -ENOMEM;
				goto out;
			}
			list = grown;
		}
		a = &list[n];
		memset(a, 0, sizeof(*a));
		if (app && !(a->app = strdup((const char *)app))) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
		rc = query_app_count(db, f, a);
		if (rc < 0)
			goto out;
		if (a->total == 0) {
			free(a->app);
			n--;
		}
	}
	*apps = list;
	*napps = n;
	list = NULL;
	n = 0;
	rc = 0;
out:
	sqlite3_finalize(stmt);
	query_apps_free(list, n);
	return rc;
}

int
query_apps(sqlite3 *db, const struct query_filter *f, struct query_app **apps,
	   size_t *napps)
{
	static const double p[] = {50, 90, 99};
	struct query_app *list = NULL;
	struct query_filter af;
	size_t n = 0, i;
	bool began = false;
	int rc;

	if (!db || !apps || !napps || !f || f->since_ns > f->until_ns ||
	    f->session < 0)
		return -EINVAL;
	rc = query_begin(db, &began);
	if (rc < 0)
		return rc;
	rc = query_app_counts(db, f, &list, &n);
	if (rc < 0)
		goto out;
	for (i = 0; i < n; i++) {
		query_filter_init(&af);
		af.app = list[i].app;
		af.app_unknown = list[i].app == NULL;
		af.since_ns = f->since_ns;
		af.until_ns = f->until_ns;
		af.session = f->session;
		rc = query_check_p(p, 3, &list[i].first_frame);
		if (rc == 0)
			rc = query_check_p(p, 3, &list[i].settle);
		if (rc == 0)
			rc = query_percentiles_tx(
				db, &af, QUERY_FIRST_FRAME, QUERY_METHOD_AUTO,
				QUERY_APPS_EXACT_MAX, &list[i].first_frame);
		if (rc == 0)
			rc = query_percentiles_tx(
				db, &af, QUERY_SETTLE, QUERY_METHOD_AUTO,
				QUERY_APPS_EXACT_MAX, &list[i].settle);
		if (rc < 0)
			goto out;
	}
	*apps = list;
	*napps = n;
	list = NULL;
	n = 0;
out:
	query_end(db, began);
	query_apps_free(list, n);
	return rc;
}

void
query_histogram_release(struct query_histogram *h)
{
	if (!h)
		return;
	free(h->buckets);
	h->buckets = NULL;
	h->nbuckets = 0;
}

/* Merges the fine buckets into at most max runs of equal length. */
static int
query_hist_group(const int64_t *hist, size_t max, struct query_histogram *out)
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
query_histogram(sqlite3 *db, const struct query_filter *f,
		enum query_metric metric, size_t max_buckets,
		struct query_histogram *out)
{
	int64_t *hist = NULL;
	bool began = false;
	int rc;

	if (!db || !out || max_buckets == 0 || query_check_filter(f) < 0 ||
	    (metric != QUERY_FIRST_FRAME && metric != QUERY_SETTLE))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	hist = calloc(STORE_HIST_BUCKETS, sizeof(*hist));
	if (!hist)
		return -ENOMEM;
	rc = query_begin(db, &began);
	if (rc < 0)
		goto out;
	if (query_hist_serves(f)) {
		out->method = QUERY_METHOD_HISTOGRAM;
		rc = query_hist_collect(db, f, metric, hist);
	} else {
		out->method = QUERY_METHOD_EXACT;
		rc = query_hist_rows(db, f, metric, f->since_ns, f->until_ns,
				     false, hist);
	}
	if (rc == 0)
		rc = query_hist_group(hist, max_buckets, out);
	if (rc < 0)
		query_histogram_release(out);
out:
	query_end(db, began);
	free(hist);
	return rc;
}
