/*
 * Store series: a metric's percentiles period by period (a minute, an
 * hour or a day of wall time), for the latency-over-time chart of the
 * dashboard (GET /v1/series).  Each point is what store_query_percentiles()
 * answers over that period alone, intersected with the filter's range,
 * so a point is the same number /v1/percentiles gives for that minute.
 */
#ifndef TAPD_STORE_SERIES_H
#define TAPD_STORE_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "store_query.h"

/*
 * The most periods a series may span (a week of minutes): past it the
 * caller asks for a longer step.  Only periods with taps cost anything.
 */
#define STORE_SERIES_MAX_PERIODS (7 * 24 * 60)

/* One period with at least one tap of the metric. */
struct store_series_point {
	int64_t start_ns; /* the period's start, a multiple of the step */
	struct store_query_percentiles pct;
};

/*
 * The periods of step_ns (> 0) that hold taps matching f (its app, kinds,
 * status, session and range, as store_query_percentiles() reads them)
 * with the metric measured, in time order, each with percentiles
 * p[0..np) of the metric over its taps by the given method.  Taps of
 * unknown wall time belong to no period.  Returns 0 and sets *points
 * (free with free()) and *n; -EINVAL for a bad argument; -E2BIG when the
 * taps found span more than STORE_SERIES_MAX_PERIODS periods; or a
 * negative errno from SQLite.  The statements run in one read
 * transaction (unless the caller has one open).
 */
int store_series(struct store *st, const struct store_filter *f,
		 enum store_query_metric metric, enum store_query_method method,
		 int64_t step_ns, const double *p, size_t np,
		 struct store_series_point **points, size_t *n);

/*
 * The first and last wall time (ns) of the taps matching f's app, kinds,
 * status, session and range; *first > *last when there are none.
 * Returns 0 or a negative errno.
 */
int store_series_span(struct store *st, const struct store_filter *f,
		      int64_t *first, int64_t *last);

#endif
