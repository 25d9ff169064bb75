/*
 * GET /metrics: the Prometheus text exposition (format 0.0.4) of the
 * metrics object and the status snapshot.  No parameters are accepted.
 */
#ifndef TAPD_API_METRICS_H
#define TAPD_API_METRICS_H

struct api_request;

/* The handler of GET /metrics (api_handler). */
int api_metrics_get(struct api_request *rq);

#endif
