/*
 * Store series (store_series.h).  The periods that hold taps come from one
 * statement over the index the filter's shape reads best, the same
 * choice store_query.c makes; each period's percentiles are then
 * store_query_percentiles() over that period, so that the series and
 * /v1/percentiles can never disagree about a minute.
 */
#include "store_series.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "store_sql.h"

/* FROM and WHERE of the taps of f with a known wall time. */
static void
store_series_from_where(struct store__qb *q, const struct store_filter *f)
{
	struct store_filter g = *f;

	store__qb_add(q, " FROM taps INDEXED BY ");
	if (f->session)
		store__qb_add(q, "taps_session");
	else if (f->app || f->app_unknown)
		store__qb_add(q, "taps_app_status_wall");
	else
		store__qb_add(q, "taps_wall");
	g.wall = STORE_WALL_KNOWN;
	g.after_id = 0;
	g.before_id = 0;
	store__filter_where(q, &g, 0);
}

static int
store_series_check(const struct store_filter *f, int64_t step_ns)
{
	if (!f || step_ns <= 0 || !f->status ||
	    store_status_index(f->status) < 0 ||
	    (f->kinds & STORE_KINDS_ALL) == 0 ||
	    (f->kinds & ~STORE_KINDS_ALL) || f->since_ns > f->until_ns)
		return -EINVAL;
	return 0;
}

int
store_series_span(struct store *st, const struct store_filter *f,
		  int64_t *first, int64_t *last)
{
	sqlite3 *db = st ? store__sqlite(st) : NULL;
	sqlite3_stmt *stmt = NULL;
	struct store__qb q;
	bool began = false;
	int rc;

	if (!db || store_series_check(f, 1) < 0 || !first || !last)
		return -EINVAL;
	*first = INT64_MAX;
	*last = INT64_MIN;
	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT min(wall_ns), max(wall_ns)");
	store_series_from_where(&q, f);
	rc = store__read_begin(db, &began);
	if (rc < 0)
		return rc;
	rc = store__qb_prepare(db, &q, &stmt);
	if (rc < 0)
		goto out;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_type(stmt, 0) != SQLITE_NULL) {
			*first = sqlite3_column_int64(stmt, 0);
			*last = sqlite3_column_int64(stmt, 1);
		}
		rc = 0;
	} else {
		rc = store__db_fail(db, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				    "read the span of taps");
	}
out:
	sqlite3_finalize(stmt);
	store__read_end(db, began);
	return rc;
}

/* The periods (wall_ns / step_ns) that hold taps of f, in order. */
static int
store_series_periods(sqlite3 *db, const struct store_filter *f, int64_t step_ns,
		     int64_t **out, size_t *n)
{
	sqlite3_stmt *stmt = NULL;
	struct store__qb q;
	int64_t *list = NULL, *grown, k;
	size_t len = 0, cap = 0;
	int rc;

	memset(&q, 0, sizeof(q));
	store__qb_int(&q, "SELECT DISTINCT wall_ns / ?", step_ns);
	store_series_from_where(&q, f);
	store__qb_add(&q, " ORDER BY 1");
	rc = store__qb_prepare(db, &q, &stmt);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		k = sqlite3_column_int64(stmt, 0);
		/* Past the limit the series is refused, so reading stops. */
		if (len > 0 && k - list[0] >= STORE_SERIES_MAX_PERIODS) {
			rc = -E2BIG;
			goto out;
		}
		if (len == cap) {
			cap = cap ? cap * 2 : 64;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown) {
				rc = -ENOMEM;
				goto out;
			}
			list = grown;
		}
		list[len++] = k;
	}
	rc = rc == SQLITE_DONE ? 0 : store__db_fail(db, rc, "read periods");
out:
	sqlite3_finalize(stmt);
	if (rc < 0) {
		free(list);
		return rc;
	}
	*out = list;
	*n = len;
	return 0;
}

int
store_series(struct store *st, const struct store_filter *f,
	     enum store_query_metric metric, enum store_query_method method,
	     int64_t step_ns, const double *p, size_t np,
	     struct store_series_point **points, size_t *n)
{
	sqlite3 *db = st ? store__sqlite(st) : NULL;
	struct store_series_point *pts = NULL;
	struct store_filter g;
	int64_t *periods = NULL, lo, hi;
	size_t nperiods = 0, i, len = 0;
	bool began = false;
	int rc;

	if (!db || store_series_check(f, step_ns) < 0 || !points || !n || !p ||
	    np == 0 || np > STORE_QUERY_MAX_P)
		return -EINVAL;
	rc = store__read_begin(db, &began);
	if (rc < 0)
		return rc;
	rc = store_series_periods(db, f, step_ns, &periods, &nperiods);
	if (rc < 0)
		goto out;
	if (nperiods > 0) {
		pts = calloc(nperiods, sizeof(*pts));
		if (!pts) {
			rc = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < nperiods; i++) {
		lo = periods[i] * step_ns;
		hi = lo > INT64_MAX - (step_ns - 1) ? INT64_MAX
						    : lo + (step_ns - 1);
		g = *f;
		if (g.since_ns < lo)
			g.since_ns = lo;
		if (g.until_ns > hi)
			g.until_ns = hi;
		rc = store_query_percentiles(st, &g, metric, method, p, np,
					     &pts[len].pct);
		if (rc < 0)
			goto out;
		/* A period whose taps all lack this metric has no point. */
		if (pts[len].pct.count == 0)
			continue;
		pts[len].start_ns = lo;
		len++;
	}
	*points = pts;
	*n = len;
	pts = NULL;
	rc = 0;
out:
	store__read_end(db, began);
	free(periods);
	free(pts);
	return rc;
}
