/*
 * GET /v1/series (api_series.h): the parameters through api_stats.c's
 * readers, the numbers from store_series.c, the answer cached like the
 * other statistics.
 */
#include "api_series.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_request.h"
#include "api_stats.h"
#include "store_series.h"
#include "timeparse.h"

#define API_SERIES_MINUTE_NS INT64_C(60000000000)
#define API_SERIES_HOUR_NS   (60 * API_SERIES_MINUTE_NS)
#define API_SERIES_DAY_NS    (24 * API_SERIES_HOUR_NS)
/* auto: minutes up to a day of range, hours up to 60 days. */
#define API_SERIES_AUTO_MINUTES API_SERIES_DAY_NS
#define API_SERIES_AUTO_HOURS	(60 * API_SERIES_DAY_NS)

static const char *const api_series_params[] = {
	"app", "metric", "p", "since", "until", "session", "step", NULL};
static const char *const api_series_steps[] = {"auto", "1m", "1h", "1d", NULL};
static const int64_t api_series_step_ns[] = {
	0, API_SERIES_MINUTE_NS, API_SERIES_HOUR_NS, API_SERIES_DAY_NS};

/* The step of auto, from the range with its open ends at the taps. */
static int
api_series_auto_step(struct store *st, const struct store_filter *f,
		     int64_t *step_ns)
{
	int64_t first, last, lo, hi;
	int rc;

	lo = f->since_ns;
	hi = f->until_ns;
	if (lo == INT64_MIN || hi == INT64_MAX) {
		rc = store_series_span(st, f, &first, &last);
		if (rc < 0)
			return rc;
		if (first > last) {
			*step_ns = API_SERIES_MINUTE_NS;
			return 0;
		}
		if (lo == INT64_MIN)
			lo = first;
		if (hi == INT64_MAX)
			hi = last;
	}
	/* Both ends known and lo <= hi, or an empty range: no overflow. */
	if (hi < lo || hi - lo <= API_SERIES_AUTO_MINUTES)
		*step_ns = API_SERIES_MINUTE_NS;
	else if (hi - lo <= API_SERIES_AUTO_HOURS)
		*step_ns = API_SERIES_HOUR_NS;
	else
		*step_ns = API_SERIES_DAY_NS;
	return 0;
}

static cJSON *
api_series_point_json(const struct store_series_point *pt)
{
	char buf[TIMEPARSE_RFC3339_SIZE];
	cJSON *o;

	o = cJSON_CreateObject();
	if (!o || timeparse_format(pt->start_ns, buf, sizeof(buf)) < 0 ||
	    !cJSON_AddStringToObject(o, "start", buf) ||
	    !cJSON_AddNumberToObject(o, "start_s",
				     (double)(pt->start_ns / 1000000000)) ||
	    !api_stats_add_percentiles(o, &pt->pct)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int
api_series_get(struct api_request *rq)
{
	static const double def_p[] = {50, 90};
	enum store_query_metric metric = STORE_QUERY_FIRST_FRAME;
	struct store_series_point *pts = NULL;
	struct store_filter f;
	double p[STORE_QUERY_MAX_P];
	char key[API_REQUEST_KEY_MAX], extra[96];
	cJSON *root = NULL, *list, *item;
	size_t np = 0, npts = 0, i;
	int64_t step_ns;
	struct store *st;
	int step = 0, rc;
	bool keyed;

	rc = api_request_allow(rq, api_series_params);
	if (rc < 0)
		return rc;
	rc = api_stats_common(rq, &f, true, &metric);
	if (rc < 0)
		return rc;
	rc = api_stats_p_param(rq, def_p, sizeof(def_p) / sizeof(def_p[0]), p,
			       &np);
	if (rc < 0)
		return rc;
	rc = api_request_param_enum(rq, "step", api_series_steps, &step);
	if (rc < 0)
		return rc;
	/* The step as asked: auto's is decided by the data of one version. */
	snprintf(extra, sizeof(extra), "s%d|%.64s", step,
		 api_request_param(rq, "p") ? api_request_param(rq, "p") : "-");
	keyed = api_stats_key(key, sizeof(key), "/v1/series", &f, (int)metric,
			      0, extra) == 0;
	rc = api_request_store(rq, &st);
	if (rc < 0)
		return rc;
	rc = api_request_read_begin(rq, st);
	if (rc < 0)
		return rc;
	rc = keyed ? api_request_reply_cached(rq, st, key) : 0;
	if (rc != 0)
		goto out;
	step_ns = api_series_step_ns[step];
	if (step_ns == 0) {
		rc = api_series_auto_step(st, &f, &step_ns);
		if (rc < 0)
			goto out;
	}
	rc = store_series(st, &f, metric, STORE_QUERY_METHOD_AUTO, step_ns, p,
			  np, &pts, &npts);
	if (rc == -E2BIG) {
		rc = api_request_reply_error(
			rq, 400, "bad_request",
			"the series spans more than %d periods of %" PRId64
			" s: ask for a longer step or a shorter range",
			STORE_SERIES_MAX_PERIODS, step_ns / 1000000000);
		goto out;
	}
	if (rc < 0)
		goto out;

	rc = -ENOMEM;
	root = cJSON_CreateObject();
	if (!root || !api_stats_add_app(root, f.app, f.app_unknown) ||
	    !cJSON_AddStringToObject(root, "metric",
				     store_query_metric_name(metric)) ||
	    !cJSON_AddNumberToObject(root, "step_s",
				     (double)(step_ns / 1000000000)))
		goto out;
	list = cJSON_AddArrayToObject(root, "points");
	if (!list)
		goto out;
	for (i = 0; i < npts; i++) {
		item = api_series_point_json(&pts[i]);
		if (!item || !cJSON_AddItemToArray(list, item)) {
			cJSON_Delete(item);
			goto out;
		}
	}
	if (!api_stats_add_range(root, &f))
		goto out;
	rc = keyed ? api_request_reply_json_keep(rq, st, key, root)
		   : api_request_reply_json(rq, 200, root);
	root = NULL;
out:
	api_request_read_end(rq, st);
	cJSON_Delete(root);
	free(pts);
	return rc < 0 ? rc : 0;
}
