/*
 * Store cover: the pre-aggregated tables summed over a range of wall
 * time (store_cover.h).  Every statement reads a primary key range of a
 * WITHOUT ROWID table, or one range of a covering index of taps.
 */
#include "store_cover.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store_sql.h"

#define MINUTE_NS (60 * 1000000000LL)
#define HOUR_NS	  (60 * MINUTE_NS)
/*
 * Larger counts in a bucket mean a damaged file (2^50 taps is a million
 * taps a second for 35 years), and keep the sum of all buckets far from
 * overflowing.
 */
#define STORE_COVER_COUNT_MAX (1LL << 50)

static int64_t
floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/*
 * Adds the (bucket, count) rows of a statement to hist[].  A file copied
 * off a device is input like any other: a count no device could reach
 * would overflow the sums.
 */
static int
store_cover_add_rows(sqlite3 *db, struct store__qb *q, int64_t *hist)
{
	sqlite3_stmt *stmt = NULL;
	int64_t b, c;
	int rc;

	rc = store__qb_prepare(db, q, &stmt);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		b = sqlite3_column_int64(stmt, 0);
		c = sqlite3_column_int64(stmt, 1);
		if (b < 0 || b >= STORE_HIST_BUCKETS || c < 0 ||
		    c > STORE_COVER_COUNT_MAX - hist[b]) {
			log_warnx("cannot use a tap_hist row: bucket %lld, "
				  "count %lld out of range",
				  (long long)b, (long long)c);
			rc = -EIO;
			goto out;
		}
		hist[b] += c;
	}
	rc = rc == SQLITE_DONE ? 0 : store__db_fail(db, rc, "read tap_hist");
out:
	sqlite3_finalize(stmt);
	return rc;
}

/* Adds tap_hist's rows of one span over minutes [m0, m1) to hist[]. */
static int
store_cover_hist_span(sqlite3 *db, const char *scope, int metric, int span,
		      int64_t m0, int64_t m1, int64_t *hist)
{
	struct store__qb q;

	memset(&q, 0, sizeof(q));
	store__qb_text(&q, "SELECT bucket, count FROM tap_hist WHERE app = ?",
		       scope);
	store__qb_int(&q, " AND metric = ?", metric);
	store__qb_int(&q, " AND span = ?", span);
	store__qb_int(&q, " AND minute >= ?", m0);
	store__qb_int(&q, " AND minute < ?", m1);
	return store_cover_add_rows(db, &q, hist);
}

/*
 * Covers minutes [m0, m1) with the coarsest spans that fit: whole days in
 * the middle, then whole hours, then single minutes at the ends.
 */
static int
store_cover_hist_inside(sqlite3 *db, const char *scope, int metric, int64_t m0,
			int64_t m1, int level, int64_t *hist)
{
	static const int spans[] = {STORE_HIST_SPAN_DAY, STORE_HIST_SPAN_HOUR,
				    STORE_HIST_SPAN_MINUTE};
	int64_t span, c0, c1;
	int rc;

	if (m0 >= m1)
		return 0;
	span = spans[level];
	if (span == 1)
		return store_cover_hist_span(db, scope, metric, 1, m0, m1,
					     hist);
	c0 = -floor_div(-m0, span) * span;
	c1 = floor_div(m1, span) * span;
	if (c0 >= c1)
		return store_cover_hist_inside(db, scope, metric, m0, m1,
					       level + 1, hist);
	rc = store_cover_hist_inside(db, scope, metric, m0, c0, level + 1,
				     hist);
	if (rc == 0)
		rc = store_cover_hist_span(db, scope, metric, (int)span, c0, c1,
					   hist);
	if (rc == 0)
		rc = store_cover_hist_inside(db, scope, metric, c1, m1,
					     level + 1, hist);
	return rc;
}

/*
 * The first and last day of scope's day rows, as minutes: *d0 and *d1
 * (the start of the last day), two seeks of one statement.  Returns 0,
 * or 1 when there is none.
 */
static int
store_cover_hist_days(sqlite3 *db, const char *scope, int metric, int64_t *d0,
		      int64_t *d1)
{
	sqlite3_stmt *stmt = NULL;
	struct store__qb q;
	int rc;

	memset(&q, 0, sizeof(q));
	store__qb_text(&q, "SELECT (SELECT minute FROM tap_hist WHERE app = ?",
		       scope);
	store__qb_int(&q, " AND metric = ?", metric);
	store__qb_int(&q, " AND span = ? ORDER BY minute LIMIT 1),",
		      STORE_HIST_SPAN_DAY);
	store__qb_text(&q, " (SELECT minute FROM tap_hist WHERE app = ?",
		       scope);
	store__qb_int(&q, " AND metric = ?", metric);
	store__qb_int(&q, " AND span = ? ORDER BY minute DESC LIMIT 1)",
		      STORE_HIST_SPAN_DAY);
	rc = store__qb_prepare(db, &q, &stmt);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*d0 = sqlite3_column_int64(stmt, 0);
		*d1 = sqlite3_column_int64(stmt, 1);
		rc = sqlite3_column_type(stmt, 0) == SQLITE_NULL ? 1 : 0;
	} else {
		rc = store__db_fail(db, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				    "read tap_hist");
	}
	sqlite3_finalize(stmt);
	return rc;
}

/*
 * The whole file's histogram (tap_hist_sum) less the periods of [d0, lo)
 * and [hi, d1), into hist[].  Returns 0, 1 when the sum is smaller than
 * the periods it should hold (a file changed by hand: the caller covers
 * the inside instead), or a negative errno.
 */
static int
store_cover_hist_outside(sqlite3 *db, const char *scope, int metric, int64_t d0,
			 int64_t lo, int64_t hi, int64_t d1, int64_t *hist)
{
	int64_t *all = NULL, *out = NULL;
	struct store__qb q;
	int b, rc = -ENOMEM;

	all = calloc(STORE_HIST_BUCKETS, sizeof(*all));
	out = calloc(STORE_HIST_BUCKETS, sizeof(*out));
	if (!all || !out)
		goto out;
	memset(&q, 0, sizeof(q));
	store__qb_text(&q,
		       "SELECT bucket, count FROM tap_hist_sum WHERE app = ?",
		       scope);
	store__qb_int(&q, " AND metric = ?", metric);
	rc = store_cover_add_rows(db, &q, all);
	if (rc == 0)
		rc = store_cover_hist_inside(db, scope, metric, d0, lo, 0, out);
	if (rc == 0)
		rc = store_cover_hist_inside(db, scope, metric, hi, d1, 0, out);
	if (rc < 0)
		goto out;
	for (b = 0; b < STORE_HIST_BUCKETS; b++)
		if (all[b] < out[b] ||
		    all[b] - out[b] > STORE_COVER_COUNT_MAX - hist[b]) {
			log_debug("tap_hist_sum of '%s' disagrees with "
				  "tap_hist at bucket %d",
				  scope, b);
			rc = 1;
			goto out;
		}
	for (b = 0; b < STORE_HIST_BUCKETS; b++)
		hist[b] += all[b] - out[b];
	rc = 0;
out:
	free(all);
	free(out);
	return rc;
}

int
store_cover__hist(sqlite3 *db, const char *scope, int metric, int64_t m0,
		  int64_t m1, int64_t *hist)
{
	int64_t d0, d1, lo, hi, in, all;
	int rc;

	if (m0 >= m1)
		return 0;
	/* Two days or less: the inside is as cheap as finding the file's. */
	if (m1 - m0 <= 2 * STORE_HIST_SPAN_DAY)
		return store_cover_hist_inside(db, scope, metric, m0, m1, 0,
					       hist);
	/*
	 * Every minute and hour row lies in a day that has its day row (the
	 * writer adds all three spans of a tap in one transaction, retention
	 * deletes whole days), so the day rows bound the data: [d0, d1).
	 */
	rc = store_cover_hist_days(db, scope, metric, &d0, &d1);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	d1 += STORE_HIST_SPAN_DAY;
	lo = m0 > d0 ? m0 : d0;
	hi = m1 < d1 ? m1 : d1;
	if (lo >= hi)
		return 0;
	/*
	 * The cost of either way is about the days it reads: those inside
	 * the range, or those of the file outside it (and tap_hist_sum's few
	 * hundred rows, about a day's worth).
	 */
	in = (hi - lo) / STORE_HIST_SPAN_DAY;
	all = (d1 - d0) / STORE_HIST_SPAN_DAY;
	if (all - in + 1 < in) {
		rc = store_cover_hist_outside(db, scope, metric, d0, lo, hi, d1,
					      hist);
		if (rc <= 0)
			return rc;
	}
	return store_cover_hist_inside(db, scope, metric, lo, hi, 0, hist);
}

/*
 * Counts the rows of app (NULL: unknown) that f's range and session
 * match, by status, through (app, status, wall_ns) or the session's
 * index: the IN list makes it one seek per status, so a short range
 * reads only its own rows.  Adds to status[] and *total.
 */
static int
store_cover_status_rows(sqlite3 *db, const struct store_filter *f,
			const char *app, int64_t since, int64_t until,
			int64_t *status, int64_t *total)
{
	sqlite3_stmt *stmt = NULL;
	const unsigned char *s;
	struct store_filter g;
	struct store__qb q;
	size_t i;
	int k, rc;

	store_filter_init(&g);
	g.app = app;
	g.app_unknown = app == NULL;
	g.session = f->session;
	g.since_ns = since;
	g.until_ns = until;
	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT status, count(*) FROM taps INDEXED BY ");
	store__qb_add(&q, f->session ? "taps_session" : "taps_app_status_wall");
	store__filter_where(&q, &g, 0);
	store__qb_cond(&q, "status IN (");
	for (i = 0; i < STORE_STATUS_COUNT; i++)
		store__qb_text(&q, i ? ", ?" : "?", store_status_names[i]);
	store__qb_add(&q, ")");
	store__qb_add(&q, " GROUP BY status");
	rc = store__qb_prepare(db, &q, &stmt);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		s = sqlite3_column_text(stmt, 0);
		k = store_status_index((const char *)s);
		if (k >= 0)
			status[k] += sqlite3_column_int64(stmt, 1);
		*total += sqlite3_column_int64(stmt, 1);
	}
	rc = rc == SQLITE_DONE ? 0
			       : store__db_fail(db, rc, "count taps by app");
	sqlite3_finalize(stmt);
	return rc;
}

/*
 * Adds tap_counts' rows of app with span in spans[0..nspans) and minute
 * in [m0, m1) to status[] and *total.
 */
static int
store_cover_status_span(sqlite3 *db, const char *app, const int *spans,
			int nspans, int64_t m0, int64_t m1, int64_t *status,
			int64_t *total)
{
	sqlite3_stmt *stmt = NULL;
	const unsigned char *s;
	struct store__qb q;
	int64_t c;
	int i, k, rc;

	if (m0 >= m1)
		return 0;
	memset(&q, 0, sizeof(q));
	store__qb_text(
		&q, "SELECT status, sum(count) FROM tap_counts WHERE app = ?",
		app ? app : "");
	store__qb_int(&q, " AND named = ?", app != NULL);
	for (i = 0; i < nspans; i++)
		store__qb_int(&q, i ? ", ?" : " AND span IN (?", spans[i]);
	store__qb_add(&q, ")");
	store__qb_int(&q, " AND minute >= ?", m0);
	store__qb_int(&q, " AND minute < ?", m1);
	store__qb_add(&q, " GROUP BY status");
	rc = store__qb_prepare(db, &q, &stmt);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		s = sqlite3_column_text(stmt, 0);
		c = sqlite3_column_int64(stmt, 1);
		k = store_status_index((const char *)s);
		if (c < 0 || c > STORE_COVER_COUNT_MAX) {
			log_warnx("cannot use a tap_counts row: count %lld "
				  "out of range",
				  (long long)c);
			rc = -EIO;
			goto out;
		}
		if (k >= 0) {
			status[k] += c;
			*total += c;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : store__db_fail(db, rc, "read tap_counts");
out:
	sqlite3_finalize(stmt);
	return rc;
}

/* Hours [h0, h1) (in minutes) by whole days and whole hours. */
static int
store_cover_status_hours(sqlite3 *db, const char *app, int64_t h0, int64_t h1,
			 int64_t *status, int64_t *total)
{
	static const int hour[] = {STORE_HIST_SPAN_HOUR};
	static const int day[] = {STORE_HIST_SPAN_DAY};
	int64_t c0, c1;
	int rc;

	c0 = -floor_div(-h0, STORE_HIST_SPAN_DAY) * STORE_HIST_SPAN_DAY;
	c1 = floor_div(h1, STORE_HIST_SPAN_DAY) * STORE_HIST_SPAN_DAY;
	if (c0 >= c1)
		return store_cover_status_span(db, app, hour, 1, h0, h1, status,
					       total);
	rc = store_cover_status_span(db, app, hour, 1, h0, c0, status, total);
	if (rc == 0)
		rc = store_cover_status_span(db, app, day, 1, c0, c1, status,
					     total);
	if (rc == 0)
		rc = store_cover_status_span(db, app, hour, 1, c1, h1, status,
					     total);
	return rc;
}

int
store_cover__status(sqlite3 *db, const struct store_filter *f, const char *app,
		    int64_t *status, int64_t *total)
{
	static const int every[] = {0, STORE_HIST_SPAN_DAY};
	int64_t a, b, h0, h1;
	int rc;

	memset(status, 0, STORE_STATUS_COUNT * sizeof(*status));
	*total = 0;
	if (f->session)
		return store_cover_status_rows(db, f, app, f->since_ns,
					       f->until_ns, status, total);
	/* Both ends open: the taps without a wall time, and every day. */
	if (f->since_ns == INT64_MIN && f->until_ns == INT64_MAX)
		return store_cover_status_span(db, app, every, 2, INT64_MIN,
					       INT64_MAX, status, total);
	/* Stored wall times are >= 0; [a, b] both included. */
	a = f->since_ns < 0 ? 0 : f->since_ns;
	b = f->until_ns;
	if (b < a)
		return 0;
	/* The whole hours inside [a, b], in minutes: [h0, h1). */
	h0 = (a / HOUR_NS + (a % HOUR_NS != 0)) * 60;
	h1 = b == INT64_MAX ? INT64_MAX / HOUR_NS * 60
			    : (b / HOUR_NS + (b % HOUR_NS == HOUR_NS - 1)) * 60;
	if (h0 >= h1)
		return store_cover_status_rows(db, f, app, a, b, status, total);
	rc = 0;
	if (a < h0 * MINUTE_NS)
		rc = store_cover_status_rows(db, f, app, a, h0 * MINUTE_NS - 1,
					     status, total);
	if (rc == 0)
		rc = store_cover_status_hours(db, app, h0, h1, status, total);
	if (rc == 0 && h1 * MINUTE_NS <= b)
		rc = store_cover_status_rows(db, f, app, h1 * MINUTE_NS, b,
					     status, total);
	return rc;
}

/*
 * Every app name of the file, in order, one index seek each (the next
 * name after the last one), not from a scan of every row: a device sees
 * dozens of apps and millions of taps.
 */
int
store_cover__app_names(sqlite3 *db, char ***names, size_t *n)
{
	static const char sql[] =
		"WITH RECURSIVE a (app) AS ("
		" SELECT (SELECT min(app) FROM taps INDEXED BY taps_app_wall)"
		" UNION ALL"
		" SELECT (SELECT min(app) FROM taps INDEXED BY taps_app_wall"
		" WHERE app > a.app) FROM a WHERE a.app IS NOT NULL)"
		" SELECT app FROM a WHERE app IS NOT NULL";
	sqlite3_stmt *stmt = NULL;
	const unsigned char *app;
	char **list = NULL, **grown;
	size_t count = 0, cap = 0, i;
	bool done = false;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK) {
		rc = store__db_fail(db, rc, "prepare a query");
		goto out;
	}
	while (!done) {
		rc = sqlite3_step(stmt);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			rc = store__db_fail(db, rc, "list apps");
			goto out;
		}
		/* After the last name, the taps of unknown app. */
		done = rc == SQLITE_DONE;
		app = done ? NULL : sqlite3_column_text(stmt, 0);
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown) {
				rc = -ENOMEM;
				goto out;
			}
			list = grown;
		}
		list[count] = NULL;
		if (app && !(list[count] = strdup((const char *)app))) {
			rc = -ENOMEM;
			goto out;
		}
		count++;
	}
	*names = list;
	*n = count;
	list = NULL;
	count = 0;
	rc = 0;
out:
	sqlite3_finalize(stmt);
	for (i = 0; i < count; i++)
		free(list[i]);
	free(list);
	return rc;
}
