/*
 * The statistics endpoints.  Every parameter goes through api_request.h's
 * checks, so that a typo is a 400 and never a silently ignored filter;
 * the numbers come from store_query.c.  Latencies are milliseconds with
 * microsecond precision (ns / 1e6 rounded to 3 decimals); an error bound
 * is rounded up instead, so that it stays a bound.
 */
#include "api_stats.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api_request.h"
#include "store_query.h"
#include "tapjson.h"
#include "timeparse.h"

/* Package names are at most 255 bytes on Android. */
#define API_STATS_APP_MAX     255
#define API_STATS_BUCKETS_DEF 40
#define API_STATS_BUCKETS_MAX 1000
/* The unit of every latency and bucket edge of these answers. */
#define API_STATS_UNIT "ms"

/* By enum store_query_metric. */
static const char *const api_stats_metrics[] = {
	"first_frame", "settle", "launch_first_frame", "launch_settle", NULL};
static const char *const api_stats_methods[] = {"auto", "exact", "histogram",
						NULL};

static const char *const api_stats_percentiles_params[] = {
	"app",	   "metric", "p",      "since",	 "until",
	"session", "kind",   "status", "method", NULL};
static const char *const api_stats_apps_params[] = {"app", "since", "until",
						    "session", NULL};
static const char *const api_stats_histogram_params[] = {
	"app", "metric", "since", "until", "session", "buckets", NULL};

/* ns as milliseconds to the microsecond. */
static double
api_stats_ms(int64_t ns)
{
	return round((double)ns / 1000.0) / 1000.0;
}

/* An error bound in ns as milliseconds, rounded up to the microsecond. */
static double
api_stats_ms_up(int64_t ns)
{
	return ceil((double)ns / 1000.0) / 1000.0;
}

/*
 * The filters every endpoint shares: since, until, session (and app and
 * metric for those that take them).  Returns 0, or the -EINVAL of a 400
 * already queued.
 */
int
api_stats_common(struct api_request *rq, struct store_filter *f, bool app,
		 enum store_query_metric *metric)
{
	int m = STORE_QUERY_FIRST_FRAME;
	int rc;

	store_query_filter_init(f);
	if (app) {
		rc = api_request_param_word(rq, "app", API_STATS_APP_MAX,
					    &f->app);
		if (rc < 0)
			return rc;
		store_filter_app(f, f->app);
	}
	if (metric) {
		rc = api_request_param_enum(rq, "metric", api_stats_metrics,
					    &m);
		if (rc < 0)
			return rc;
		*metric = (enum store_query_metric)m;
	}
	rc = api_request_param_time(rq, "since", &f->since_ns);
	if (rc >= 0)
		rc = api_request_param_time(rq, "until", &f->until_ns);
	if (rc >= 0)
		rc = api_request_param_int(rq, "session", 1, INT64_MAX,
					   &f->session);
	if (rc < 0)
		return rc;
	return api_request_check_range(rq, f->since_ns, f->until_ns);
}

/*
 * ?kind=: one kind or a comma-separated list of them, into a mask.
 * Returns 0 (absent or valid) or -EINVAL with the 400 queued.
 */
static int
api_stats_kinds_param(struct api_request *rq, unsigned *kinds)
{
	const char *v, *p, *comma;
	unsigned mask = 0;
	size_t len, i;

	v = api_request_param(rq, "kind");
	if (!v)
		return 0;
	for (p = v;; p = comma + 1) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		for (i = 0; store_kind_names[i]; i++)
			if (strlen(store_kind_names[i]) == len &&
			    strncmp(store_kind_names[i], p, len) == 0)
				break;
		if (!store_kind_names[i]) {
			api_request_reply_error(
				rq, 400, "bad_request",
				"bad parameter 'kind' ('%.64s'): "
				"each item must be one of tap, "
				"long_press, swipe, multi",
				v);
			return -EINVAL;
		}
		mask |= 1u << i;
		if (!comma)
			break;
	}
	*kinds = mask;
	return 0;
}

/* Adds a time as RFC 3339, or null when the end is open. */
static bool
api_stats_add_time(cJSON *o, const char *name, int64_t ns, int64_t open)
{
	char buf[TIMEPARSE_RFC3339_SIZE];

	if (ns == open || timeparse_format(ns, buf, sizeof(buf)) < 0)
		return cJSON_AddNullToObject(o, name) != NULL;
	return cJSON_AddStringToObject(o, name, buf) != NULL;
}

/* The filters, echoed: since, until, session. */
bool
api_stats_add_range(cJSON *o, const struct store_filter *f)
{
	return api_stats_add_time(o, "since", f->since_ns, INT64_MIN) &&
	       api_stats_add_time(o, "until", f->until_ns, INT64_MAX) &&
	       (f->session ? cJSON_AddNumberToObject(o, "session",
						     (double)f->session)
			   : cJSON_AddNullToObject(o, "session")) != NULL;
}

/*
 * The key of percentile p: its decimal text to the 6 decimals store_query.h
 * ranks it by, without trailing zeros ("50", "99.9", "0.000001").
 */
static void
api_stats_p_key(double p, char *buf, size_t size)
{
	int64_t pm = (int64_t)(p * 1e6 + 0.5);
	size_t n;
	int len;

	len = snprintf(buf, size, "%" PRId64 ".%06" PRId64, pm / 1000000,
		       pm % 1000000);
	if (len < 0 || (size_t)len >= size) {
		if (size)
			buf[0] = '\0';
		return;
	}
	n = (size_t)len;
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

/*
 * Adds what store_query_percentiles() found to o: count, method, max_error_ms
 * (histogram only) and "percentiles": {"50": ms, ...} (null values when
 * nothing matched).  A p given twice appears once.
 */
bool
api_stats_add_percentiles(cJSON *o, const struct store_query_percentiles *r)
{
	cJSON *ps;
	char key[32];
	size_t i;

	if (!cJSON_AddNumberToObject(o, "count", (double)r->count) ||
	    !cJSON_AddStringToObject(o, "method",
				     store_query_method_name(r->method)))
		return false;
	if (r->method == STORE_QUERY_METHOD_HISTOGRAM &&
	    !cJSON_AddNumberToObject(o, "max_error_ms",
				     api_stats_ms_up(r->max_error_ns)))
		return false;
	ps = cJSON_AddObjectToObject(o, "percentiles");
	if (!ps)
		return false;
	for (i = 0; i < r->np; i++) {
		api_stats_p_key(r->p[i], key, sizeof(key));
		if (cJSON_GetObjectItemCaseSensitive(ps, key))
			continue;
		if (r->value_ns[i] < 0
			    ? !cJSON_AddNullToObject(ps, key)
			    : !cJSON_AddNumberToObject(
				      ps, key, api_stats_ms(r->value_ns[i])))
			return false;
	}
	return true;
}

/*
 * The key of the answer cache (api_request.h): path, then the filter as
 * parsed.  The app is a word of [A-Za-z0-9._:-], so '|' cannot occur in
 * it, and an absent one is told from any name by its own marker.
 */
int
api_stats_key(char *buf, size_t size, const char *path,
	      const struct store_filter *f, int metric, int method,
	      const char *extra)
{
	int n;

	n = snprintf(
		buf, size,
		"%s|%s%s|m%d|q%d|%" PRId64 "|%" PRId64 "|%" PRId64 "|k%u|%s|%s",
		path,
		f->app		 ? "a="
		: f->app_unknown ? "u"
				 : "n",
		f->app ? f->app : "", metric, method, f->since_ns, f->until_ns,
		f->session, f->kinds, f->status ? f->status : "", extra);
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

int
api_stats_p_param(struct api_request *rq, const double *def, size_t ndef,
		  double *p, size_t *np)
{
	int rc;

	rc = api_request_param_list(rq, "p", 0, 100, p, STORE_QUERY_MAX_P, np);
	if (rc == 0) {
		memcpy(p, def, ndef * sizeof(*def));
		*np = ndef;
	}
	return rc < 0 ? rc : 0;
}

bool
api_stats_add_app(cJSON *o, const char *app, int unknown)
{
	return tapjson_add_string(o, "app",
				  unknown ? STORE_APP_UNKNOWN : app) == 0;
}

/* Whether the entry of app (NULL: unknown) is one f asks for. */
static bool
api_stats_app_wanted(const struct store_filter *f, const char *app)
{
	if (f->app_unknown)
		return app == NULL;
	return f->app == NULL || (app != NULL && strcmp(f->app, app) == 0);
}

int
api_stats_percentiles(struct api_request *rq)
{
	static const double def_p[] = {50, 90, 95, 99};
	enum store_query_metric metric = STORE_QUERY_FIRST_FRAME;
	struct store_query_percentiles r;
	struct store_filter f;
	double p[STORE_QUERY_MAX_P];
	size_t np = 0, i;
	int method = STORE_QUERY_METHOD_AUTO, status = 0;
	cJSON *root = NULL, *kinds;
	char key[API_REQUEST_KEY_MAX];
	struct store *st;
	bool keyed;
	int rc;

	rc = api_request_allow(rq, api_stats_percentiles_params);
	if (rc < 0)
		return rc;
	rc = api_stats_common(rq, &f, true, &metric);
	if (rc < 0)
		return rc;
	rc = api_stats_p_param(rq, def_p, sizeof(def_p) / sizeof(def_p[0]), p,
			       &np);
	if (rc < 0)
		return rc;
	rc = api_stats_kinds_param(rq, &f.kinds);
	if (rc < 0)
		return rc;
	rc = api_request_param_enum(rq, "status", store_status_names, &status);
	if (rc < 0)
		return rc;
	f.status = store_status_names[status];
	rc = api_request_param_enum(rq, "method", api_stats_methods, &method);
	if (rc < 0)
		return rc;
	/*
	 * p as sent (a valid list by now): another spelling of the same
	 * numbers is another key, and only costs a computation.
	 */
	keyed = api_stats_key(key, sizeof(key), "/v1/percentiles", &f,
			      (int)metric, method,
			      api_request_param(rq, "p")
				      ? api_request_param(rq, "p")
				      : "-") == 0;
	rc = api_request_store(rq, &st);
	if (rc < 0)
		return rc;
	/* One snapshot for the version of the cache and the answer. */
	rc = api_request_read_begin(rq, st);
	if (rc < 0)
		return rc;
	rc = keyed ? api_request_reply_cached(rq, st, key) : 0;
	if (rc != 0)
		goto out;
	rc = store_query_percentiles(
		st, &f, metric, (enum store_query_method)method, p, np, &r);
	if (rc < 0)
		goto out;

	rc = -ENOMEM;
	root = cJSON_CreateObject();
	if (!root || !api_stats_add_app(root, f.app, f.app_unknown) ||
	    !cJSON_AddStringToObject(root, "metric",
				     store_query_metric_name(metric)) ||
	    !cJSON_AddStringToObject(root, "unit", API_STATS_UNIT))
		goto out;
	if (!api_stats_add_percentiles(root, &r) ||
	    !api_stats_add_range(root, &f))
		goto out;
	kinds = cJSON_AddArrayToObject(root, "kind");
	if (!kinds)
		goto out;
	for (i = 0; store_kind_names[i]; i++) {
		cJSON *k;

		if (!(f.kinds & (1u << i)))
			continue;
		k = cJSON_CreateString(store_kind_names[i]);
		if (!k || !cJSON_AddItemToArray(kinds, k)) {
			cJSON_Delete(k);
			goto out;
		}
	}
	if (!cJSON_AddStringToObject(root, "status", f.status))
		goto out;
	rc = keyed ? api_request_reply_json_keep(rq, st, key, root)
		   : api_request_reply_json(rq, 200, root);
	root = NULL;
out:
	api_request_read_end(rq, st);
	cJSON_Delete(root);
	return rc < 0 ? rc : 0;
}

/* One entry of /v1/apps. */
static cJSON *
api_stats_app_json(const struct store_query_app *a)
{
	cJSON *o, *st, *m;
	size_t i;

	o = cJSON_CreateObject();
	if (!o || !api_stats_add_app(o, a->app, a->app == NULL) ||
	    !cJSON_AddNumberToObject(o, "count", (double)a->total))
		goto fail;
	st = cJSON_AddObjectToObject(o, "statuses");
	if (!st)
		goto fail;
	for (i = 0; i < STORE_QUERY_STATUS_N; i++)
		if (!cJSON_AddNumberToObject(st, store_status_names[i],
					     (double)a->status[i]))
			goto fail;
	m = cJSON_AddObjectToObject(o, "first_frame");
	if (!m || !api_stats_add_percentiles(m, &a->first_frame))
		goto fail;
	m = cJSON_AddObjectToObject(o, "settle");
	if (!m || !api_stats_add_percentiles(m, &a->settle))
		goto fail;
	/* The launches made from this app's taps (docs/DESIGN.md 1.5.1). */
	m = cJSON_AddObjectToObject(o, "launch_first_frame");
	if (!m || !api_stats_add_percentiles(m, &a->launch_first_frame))
		goto fail;
	m = cJSON_AddObjectToObject(o, "launch_settle");
	if (!m || !api_stats_add_percentiles(m, &a->launch_settle))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

int
api_stats_apps(struct api_request *rq)
{
	struct store_query_app *apps = NULL;
	struct store_filter f, all;
	cJSON *root = NULL, *list, *item;
	char key[API_REQUEST_KEY_MAX];
	size_t napps = 0, i;
	struct store *st;
	bool keyed;
	int rc;

	rc = api_request_allow(rq, api_stats_apps_params);
	if (rc < 0)
		return rc;
	rc = api_stats_common(rq, &f, true, NULL);
	if (rc < 0)
		return rc;
	keyed = api_stats_key(key, sizeof(key), "/v1/apps", &f, 0, 0, "") == 0;
	/* Every app's counts, of which ?app= keeps one. */
	all = f;
	store_filter_app(&all, NULL);
	rc = api_request_store(rq, &st);
	if (rc < 0)
		return rc;
	rc = api_request_read_begin(rq, st);
	if (rc < 0)
		return rc;
	rc = keyed ? api_request_reply_cached(rq, st, key) : 0;
	if (rc != 0)
		goto out;
	rc = store_query_apps(st, &all, &apps, &napps);
	if (rc < 0)
		goto out;

	rc = -ENOMEM;
	root = cJSON_CreateObject();
	if (!root)
		goto out;
	if (!cJSON_AddStringToObject(root, "unit", API_STATS_UNIT))
		goto out;
	list = cJSON_AddArrayToObject(root, "apps");
	if (!list)
		goto out;
	for (i = 0; i < napps; i++) {
		if (!api_stats_app_wanted(&f, apps[i].app))
			continue;
		item = api_stats_app_json(&apps[i]);
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
	store_query_apps_free(apps, napps);
	return rc < 0 ? rc : 0;
}

int
api_stats_histogram(struct api_request *rq)
{
	enum store_query_metric metric = STORE_QUERY_FIRST_FRAME;
	struct store_query_histogram h = {0};
	int64_t nbuckets = API_STATS_BUCKETS_DEF;
	struct store_filter f;
	cJSON *root = NULL, *list, *b;
	char key[API_REQUEST_KEY_MAX], extra[32];
	double hi_ms;
	struct store *st;
	bool keyed;
	size_t i;
	int rc;

	rc = api_request_allow(rq, api_stats_histogram_params);
	if (rc < 0)
		return rc;
	rc = api_stats_common(rq, &f, true, &metric);
	if (rc < 0)
		return rc;
	rc = api_request_param_int(rq, "buckets", 1, API_STATS_BUCKETS_MAX,
				   &nbuckets);
	if (rc < 0)
		return rc;
	snprintf(extra, sizeof(extra), "b%" PRId64, nbuckets);
	keyed = api_stats_key(key, sizeof(key), "/v1/histogram", &f,
			      (int)metric, 0, extra) == 0;
	rc = api_request_store(rq, &st);
	if (rc < 0)
		return rc;
	rc = api_request_read_begin(rq, st);
	if (rc < 0)
		return rc;
	rc = keyed ? api_request_reply_cached(rq, st, key) : 0;
	if (rc != 0)
		goto out;
	rc = store_query_histogram(st, &f, metric, (size_t)nbuckets, &h);
	if (rc < 0)
		goto out;

	rc = -ENOMEM;
	root = cJSON_CreateObject();
	if (!root || !api_stats_add_app(root, f.app, f.app_unknown) ||
	    !cJSON_AddStringToObject(root, "metric",
				     store_query_metric_name(metric)) ||
	    !cJSON_AddStringToObject(root, "unit", API_STATS_UNIT) ||
	    !cJSON_AddNumberToObject(root, "count", (double)h.count) ||
	    !cJSON_AddStringToObject(root, "method",
				     store_query_method_name(h.method)))
		goto out;
	list = cJSON_AddArrayToObject(root, "buckets");
	if (!list)
		goto out;
	/*
	 * Each bucket is [lo_ms, hi_ms): the next one starts where it ends,
	 * so the edges can be drawn as they are.
	 */
	for (i = 0; i < h.nbuckets; i++) {
		hi_ms = h.buckets[i].hi_ns == INT64_MAX
				? (double)INT64_MAX / 1e6
				: (double)(h.buckets[i].hi_ns + 1) / 1e6;
		b = cJSON_CreateObject();
		if (!b || !cJSON_AddItemToArray(list, b)) {
			cJSON_Delete(b);
			goto out;
		}
		if (!cJSON_AddNumberToObject(
			    b, "lo_ms", (double)h.buckets[i].lo_ns / 1e6) ||
		    !cJSON_AddNumberToObject(b, "hi_ms", hi_ms) ||
		    !cJSON_AddNumberToObject(b, "count",
					     (double)h.buckets[i].count))
			goto out;
	}
	if (!api_stats_add_range(root, &f))
		goto out;
	rc = keyed ? api_request_reply_json_keep(rq, st, key, root)
		   : api_request_reply_json(rq, 200, root);
	root = NULL;
out:
	api_request_read_end(rq, st);
	cJSON_Delete(root);
	store_query_histogram_release(&h);
	return rc < 0 ? rc : 0;
}
