/*
 * GET /v1/series (docs/DESIGN.md 7.6): a metric's percentiles per
 * minute, hour or day of wall time, for the dashboard's latency chart.
 *
 *   ?app&metric&p&since&until&session&step=auto|1m|1h|1d
 *
 * app, metric, since, until and session read as in /v1/percentiles; p
 * defaults to 50,90.  step auto (the default) is a minute when the range
 * (its open ends taken at the first and last tap matched) is at most a
 * day, an hour when it is at most 60 days, else a day.  The answer:
 *
 *   {"app", "metric", "step_s": 60, "points": [{"start": RFC 3339,
 *    "start_s": Unix seconds, "count", "method", ["max_error_ms",]
 *    "percentiles": {"50": ms, "90": ms}}, ...], "since", "until",
 *    "session"}
 *
 * with one point per period that holds a measured tap, oldest first: the
 * percentiles /v1/percentiles gives over that period (within the
 * range).  A series of more than STORE_SERIES_MAX_PERIODS periods is a
 * 400 asking for a longer step.
 */
#ifndef TAPD_API_SERIES_H
#define TAPD_API_SERIES_H

struct api_request;

int api_series_get(struct api_request *rq);

#endif
