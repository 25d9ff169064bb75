/*
 * Handlers of the statistics endpoints: GET /v1/percentiles, GET /v1/apps
 * and GET /v1/histogram (docs/DESIGN.md 7.6).  They validate the
 * parameters with api_request.h and compute over the request's read-only
 * connection with store_query.h.
 */
#ifndef TAPD_API_STATS_H
#define TAPD_API_STATS_H

struct api_request;

/* GET /v1/percentiles */
int api_stats_percentiles(struct api_request *rq);

/* GET /v1/apps */
int api_stats_apps(struct api_request *rq);

/* GET /v1/histogram */
int api_stats_histogram(struct api_request *rq);

#endif
