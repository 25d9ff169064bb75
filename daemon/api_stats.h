/*
 * Handlers of the statistics endpoints: GET /v1/percentiles, GET /v1/apps
 * and GET /v1/histogram (docs/DESIGN.md 7.6).  They validate the
 * parameters with api_request.h and compute over the request's read-only
 * connection with store_query.h.
 */
#ifndef TAPD_API_STATS_H
#define TAPD_API_STATS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "store_query.h"

struct api_request;

/* GET /v1/percentiles */
int api_stats_percentiles(struct api_request *rq);

/* GET /v1/apps */
int api_stats_apps(struct api_request *rq);

/* GET /v1/histogram */
int api_stats_histogram(struct api_request *rq);

/*
 * What the other statistics endpoints (api_series.c) share with these,
 * so that their parameters and numbers read the same.
 *
 * api_stats_common() reads since, until, session and, when asked, app
 * (app true) and metric (metric not NULL) into f (from
 * store_query_filter_init()): 0, or the -EINVAL of a 400 already queued.
 * api_stats_add_percentiles() adds count, method, max_error_ms (histogram
 * only) and "percentiles": {"50": ms, ...}; api_stats_add_range() adds
 * since, until and session as echoed by every endpoint; both return
 * false when out of memory.  api_stats_key() writes the answer cache's
 * key of path, the filter, metric, method and extra (0 or -ENOSPC).
 */
int api_stats_common(struct api_request *rq, struct store_filter *f, bool app,
		     enum store_query_metric *metric);
bool api_stats_add_percentiles(cJSON *o,
			       const struct store_query_percentiles *r);
bool api_stats_add_range(cJSON *o, const struct store_filter *f);
/*
 * Adds "app": app, null for every app (app NULL), or the unknown app's
 * name when unknown is set (app=unknown); false when out of memory.
 */
bool api_stats_add_app(cJSON *o, const char *app, int unknown);
/*
 * Reads "p", the percentiles asked for, into p (STORE_QUERY_MAX_P of
 * them) and *np; without it, the ndef of def.  0, or the -EINVAL of a
 * 400 already queued.
 */
int api_stats_p_param(struct api_request *rq, const double *def, size_t ndef,
		      double *p, size_t *np);
int api_stats_key(char *buf, size_t size, const char *path,
		  const struct store_filter *f, int metric, int method,
		  const char *extra);

#endif
