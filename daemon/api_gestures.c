#include "api_gestures.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_request.h"
#include "events.h"
#include "inject.h"

#define NS_PER_MS	      INT64_C(1000000)
#define API_GESTURES_WAIT     10000
#define API_GESTURES_WAIT_MIN 100
#define API_GESTURES_WAIT_MAX 120000

static const char *const api_gestures_bool[] = {"0", "1", NULL};

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int
forbidden(struct api_request *rq)
{
	api_request_reply_error(rq, 403, "forbidden",
				"gesture injection is off: tapd runs without "
				"--allow-inject");
	return -EPERM;
}

static int
bad(struct api_request *rq, const char *what)
{
	api_request_reply_error(rq, 400, "bad_request", "%s", what);
	return -EINVAL;
}

/* A finite number member, or an error; *out untouched when absent. */
static int
number(const cJSON *o, const char *name, int required, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	if (!v)
		return required ? -ENOENT : 0;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return -EINVAL;
	*out = v->valuedouble;
	return 1;
}

static int
point(const cJSON *o, const char *name, double *x, double *y)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	const cJSON *a, *b;

	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
		return -EINVAL;
	a = cJSON_GetArrayItem(v, 0);
	b = cJSON_GetArrayItem(v, 1);
	if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) ||
	    !isfinite(a->valuedouble) || !isfinite(b->valuedouble))
		return -EINVAL;
	*x = a->valuedouble;
	*y = b->valuedouble;
	return 0;
}

/* Whether every member of o is one of names (NULL-terminated). */
static const char *
unknown_member(const cJSON *o, const char *const *names)
{
	const cJSON *m;
	size_t i;

	cJSON_ArrayForEach(m, o)
	{
		for (i = 0; names[i]; i++)
			if (m->string && strcmp(m->string, names[i]) == 0)
				break;
		if (!names[i])
			return m->string ? m->string : "?";
	}
	return NULL;
}

static int
parse_gesture(struct api_request *rq, struct inject_gesture *g)
{
	static const char *const point_names[] = {"kind", "x", "y", "hold_ms",
						  NULL};
	static const char *const swipe_names[] = {"kind", "from", "to",
						  "duration_ms", NULL};
	char msg[160];
	const char *body, *kind, *extra;
	const cJSON *k;
	cJSON *doc;
	double ms;
	size_t len;
	int rc = -EINVAL;

	memset(g, 0, sizeof(*g));
	body = api_request_body(rq, &len);
	doc = cJSON_ParseWithLength(body, len);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return bad(rq, "the body must be a JSON object: {\"kind\": "
			       "\"tap\", \"x\": X, \"y\": Y}");
	}
	k = cJSON_GetObjectItemCaseSensitive(doc, "kind");
	kind = cJSON_IsString(k) ? k->valuestring : NULL;
	if (!kind ||
	    (strcmp(kind, "tap") != 0 && strcmp(kind, "long_press") != 0 &&
	     strcmp(kind, "swipe") != 0)) {
		rc = bad(rq, "'kind' must be \"tap\", \"long_press\" or "
			     "\"swipe\"");
		goto out;
	}
	if (strcmp(kind, "swipe") == 0) {
		g->kind = INJECT_SWIPE;
		g->duration_ms = INJECT_SWIPE_MS;
		extra = unknown_member(doc, swipe_names);
		if (!extra && (point(doc, "from", &g->x, &g->y) < 0 ||
			       point(doc, "to", &g->x2, &g->y2) < 0)) {
			rc = bad(rq, "a swipe needs \"from\": [X, Y] and "
				     "\"to\": [X, Y], numbers of display px");
			goto out;
		}
		ms = (double)g->duration_ms;
		if (!extra && number(doc, "duration_ms", 0, &ms) < 0) {
			rc = bad(rq, "'duration_ms' must be a number");
			goto out;
		}
	} else {
		g->kind = strcmp(kind, "tap") == 0 ? INJECT_TAP
						   : INJECT_LONG_PRESS;
		g->hold_ms = g->kind == INJECT_TAP ? INJECT_TAP_HOLD_MS
						   : INJECT_PRESS_HOLD_MS;
		extra = unknown_member(doc, point_names);
		if (!extra && (number(doc, "x", 1, &g->x) < 0 ||
			       number(doc, "y", 1, &g->y) < 0)) {
			rc = bad(rq, "a tap or long press needs \"x\" and "
				     "\"y\", numbers of display px");
			goto out;
		}
		ms = (double)g->hold_ms;
		if (!extra && number(doc, "hold_ms", 0, &ms) < 0) {
			rc = bad(rq, "'hold_ms' must be a number");
			goto out;
		}
	}
	if (extra) {
		snprintf(msg, sizeof(msg), "unknown member '%.64s' of a %s",
			 extra, kind);
		rc = bad(rq, msg);
		goto out;
	}
	if (ms != floor(ms) || ms < 1 || ms > INJECT_HOLD_MAX_MS) {
		snprintf(msg, sizeof(msg),
			 "'%s' must be a whole number of "
			 "ms from 1 to %d",
			 g->kind == INJECT_SWIPE ? "duration_ms" : "hold_ms",
			 INJECT_HOLD_MAX_MS);
		rc = bad(rq, msg);
		goto out;
	}
	if (g->kind == INJECT_SWIPE)
		g->duration_ms = (int64_t)ms;
	else
		g->hold_ms = (int64_t)ms;
	rc = 0;
out:
	cJSON_Delete(doc);
	return rc;
}

static int
refused(struct api_request *rq, int rc)
{
	switch (rc) {
	case -EAGAIN:
		api_request_reply_error(rq, 429, "too_many_requests",
					"more gestures than the rate limit "
					"allows in the last second");
		break;
	case -EBUSY:
		api_request_reply_error(rq, 409, "conflict",
					"a finger is on the touch screen; "
					"retry, or pass queue=1 to wait for "
					"it to lift");
		break;
	case -ENOSPC:
		api_request_reply_error(rq, 503, "unavailable",
					"too many gestures are queued");
		break;
	case -ENODEV:
		api_request_reply_error(rq, 503, "unavailable",
					"there is no touch screen to inject "
					"into");
		break;
	case -ERANGE:
		api_request_reply_error(rq, 400, "bad_request",
					"the point is outside the touch "
					"panel");
		break;
	default:
		api_request_reply_error(rq, 400, "bad_request",
					"the gesture is out of bounds: %s",
					strerror(-rc));
		break;
	}
	return rc;
}

static int
timed_out(struct api_request *rq, int64_t id, int64_t ms, const char *what)
{
	api_request_reply_error(rq, 504, "timeout",
				"gesture %lld was %s within %lld ms",
				(long long)id, what, (long long)ms);
	return -ETIMEDOUT;
}

/*
 * The tap the gesture was stored as: the first tap published on the
 * stream after it was queued whose t_up_ns is the one it was read back
 * with, the same object /v1/taps gives.
 */
static int
wait_tap(struct api_request *rq, const struct inject_record *r,
	 int64_t deadline, int64_t timeout_ms)
{
	struct events *ev = api_request_events(rq);
	int64_t after = r->events_after, left;
	char up[24], *json = NULL;
	const cJSON *t;
	uint64_t missed;
	cJSON *tap;
	int rc;

	if (!ev) {
		api_request_reply_error(rq, 503, "unavailable",
					"this server has no stream of taps "
					"to wait on");
		return -ENODEV;
	}
	snprintf(up, sizeof(up), "%lld", (long long)r->t_up_ns);
	for (;;) {
		left = (deadline - mono_ns()) / NS_PER_MS;
		if (left <= 0 || api_request_stopping(rq))
			return timed_out(rq, r->id, timeout_ms,
					 "read back but not stored");
		rc = events_wait(ev, &after, left > 500 ? 500 : (int)left,
				 &json, &missed);
		if (rc == -ENOBUFS || rc == 0)
			continue;
		if (rc < 0) {
			api_request_reply_error(rq, 503, "unavailable",
						"the server is stopping");
			return rc;
		}
		tap = cJSON_Parse(json);
		free(json);
		json = NULL;
		t = cJSON_GetObjectItemCaseSensitive(tap, "t_up_ns");
		if (cJSON_IsString(t) && strcmp(t->valuestring, up) == 0)
			return api_request_reply_json(rq, 200, tap);
		cJSON_Delete(tap);
	}
}

int
api_gestures_post(struct api_request *rq)
{
	static const char *const params[] = {"wait", "queue", "timeout_ms",
					     NULL};
	struct inject *inj = api_request_inject(rq);
	struct events *ev = api_request_events(rq);
	struct inject_gesture g;
	struct inject_record r;
	int wait = 0, queue = 0;
	int64_t timeout_ms = API_GESTURES_WAIT, id, deadline;
	cJSON *body;
	int rc;

	rc = api_request_allow(rq, params);
	if (rc < 0)
		return rc;
	if (!inj)
		return forbidden(rq);
	if ((rc = api_request_param_enum(rq, "wait", api_gestures_bool,
					 &wait)) < 0 ||
	    (rc = api_request_param_enum(rq, "queue", api_gestures_bool,
					 &queue)) < 0 ||
	    (rc = api_request_param_int(rq, "timeout_ms", API_GESTURES_WAIT_MIN,
					API_GESTURES_WAIT_MAX, &timeout_ms)) <
		    0)
		return rc;
	rc = parse_gesture(rq, &g);
	if (rc < 0)
		return rc;
	deadline = mono_ns() + timeout_ms * NS_PER_MS;
	rc = inject_submit(inj, &g, queue ? INJECT_QUEUE : 0,
			   ev ? events_last_id(ev) : 0, &id);
	if (rc < 0)
		return refused(rq, rc);
	if (!wait) {
		body = cJSON_CreateObject();
		if (!body || !cJSON_AddNumberToObject(body, "id", (double)id)) {
			cJSON_Delete(body);
			return -ENOMEM;
		}
		return api_request_reply_json(rq, 202, body);
	}
	rc = inject_wait(inj, id, deadline, &r);
	if (rc == -ETIMEDOUT)
		return timed_out(rq, id, timeout_ms,
				 r.state == INJECT_QUEUED ? "still queued"
				 : r.state == INJECT_WRITING
					 ? "still being written"
					 : "not read back from the touch "
					   "screen");
	if (rc < 0) {
		api_request_reply_error(rq, 503, "unavailable",
					"gesture %lld: %s", (long long)id,
					strerror(-rc));
		return rc;
	}
	if (r.state == INJECT_FAILED) {
		api_request_reply_error(rq, 503, "unavailable",
					"gesture %lld could not be injected: "
					"%s",
					(long long)id, strerror(-r.err));
		return r.err;
	}
	return wait_tap(rq, &r, deadline, timeout_ms);
}

int
api_gestures_list(struct api_request *rq)
{
	static const char *const params[] = {NULL};
	struct inject *inj = api_request_inject(rq);
	cJSON *body;
	int rc;

	rc = api_request_allow(rq, params);
	if (rc < 0)
		return rc;
	if (!inj)
		return forbidden(rq);
	body = inject_list_json(inj);
	if (!body)
		return -ENOMEM;
	return api_request_reply_json(rq, 200, body);
}
