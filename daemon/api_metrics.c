/*
 * GET /metrics.  Prometheus scrapes this every few seconds, so the handler
 * takes no database connection: the tap metrics are kept up to date in
 * memory (metrics.c) and the rest is the status snapshot.
 */
#include <errno.h>
#include <stdlib.h>

#include "api_metrics.h"
#include "api_request.h"
#include "metrics.h"
#include "status.h"

/* The media type of the text exposition format, version 0.0.4. */
#define API_METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"

int
api_metrics_get(struct api_request *rq)
{
	static const char *const allowed[] = {NULL};
	struct status_snapshot snap;
	struct status *st;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if ((rc = api_request_allow(rq, allowed)) < 0)
		return rc;
	st = api_request_status(rq);
	if (st != NULL)
		status_get(st, &snap);
	rc = metrics_render(api_request_metrics(rq), st != NULL ? &snap : NULL,
			    &text, &len);
	if (rc < 0)
		return rc;
	return api_request_reply_buffer(rq, 200, API_METRICS_TYPE, text, len);
}
