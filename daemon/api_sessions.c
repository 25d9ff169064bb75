#include "api_sessions.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api_request.h"
#include "control.h"
#include "parse.h"
#include "store.h"
#include "tapjson.h"
#include "timeparse.h"

#define API_SESSIONS_NAME_MAX 128
/*
 * How long an HTTP thread waits for the ingest thread, which serves
 * requests between batches: far more than a batch takes.
 */
#define API_SESSIONS_WAIT_MS 3000

static const char *const api_sessions_no_params[] = {NULL};

/* What a session's JSON is made of; name may be NULL (unknown). */
struct api_sessions_row {
	int64_t id;
	const char *name;
	int64_t started_ns;
	int64_t stopped_ns; /* <= 0 while open */
	int64_t taps;
};

static cJSON *
api_sessions_json(const struct api_sessions_row *r)
{
	char started[TIMEPARSE_RFC3339_SIZE], stopped[TIMEPARSE_RFC3339_SIZE];
	cJSON *o;

	o = cJSON_CreateObject();
	if (!o || !cJSON_AddNumberToObject(o, "id", (double)r->id))
		goto fail;
	if (tapjson_add_string(o, "name", r->name) < 0)
		goto fail;
	if (timeparse_format(r->started_ns, started, sizeof(started)) == 0
		    ? !cJSON_AddStringToObject(o, "started", started)
		    : !cJSON_AddNullToObject(o, "started"))
		goto fail;
	if (r->stopped_ns > 0 && timeparse_format(r->stopped_ns, stopped,
						  sizeof(stopped)) == 0
		    ? !cJSON_AddStringToObject(o, "stopped", stopped)
		    : !cJSON_AddNullToObject(o, "stopped"))
		goto fail;
	if (!cJSON_AddNumberToObject(o, "taps", (double)r->taps))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* A session of the store as a row; the name stays borrowed. */
static void
api_sessions_row_of(const struct store_session *s, struct api_sessions_row *r)
{
	r->id = s->id;
	r->name = s->name;
	r->started_ns = s->started_ns;
	r->stopped_ns = s->stopped_ns < 0 ? 0 : s->stopped_ns;
	r->taps = s->taps;
}

/* Adds one session to the list. */
static int
api_sessions_add(void *ctx, const struct store_session *s)
{
	struct api_sessions_row r;
	cJSON *item;

	api_sessions_row_of(s, &r);
	item = api_sessions_json(&r);
	if (!item)
		return -ENOMEM;
	cJSON_AddItemToArray(ctx, item);
	return 0;
}

int
api_sessions_list(struct api_request *rq)
{
	cJSON *root = NULL, *list;
	struct store *st;
	int rc;

	rc = api_request_allow(rq, api_sessions_no_params);
	if (rc < 0)
		return rc;
	rc = api_request_store(rq, &st);
	if (rc < 0)
		return rc;
	rc = -ENOMEM;
	root = cJSON_CreateObject();
	list = cJSON_AddArrayToObject(root, "sessions");
	if (!list)
		goto out;
	rc = store_session_list(st, api_sessions_add, list);
	if (rc == -ENOMEM)
		goto out;
	if (rc < 0) {
		rc = api_request_reply_error(rq, 500, "internal",
					     "cannot list sessions: %s",
					     store_errmsg(st));
		goto out;
	}
	rc = api_request_reply_json(rq, 200, root);
	root = NULL;
out:
	cJSON_Delete(root);
	return rc;
}

/* The 409 of a server that has no writer to ask. */
static int
api_sessions_read_only(struct api_request *rq)
{
	api_request_reply_error(rq, 409, "conflict",
				"this tapd serves a read-only database; "
				"sessions are started on the daemon that "
				"records");
	return -EROFS;
}

/*
 * Whether s is valid UTF-8 without control characters: a session name is
 * shown in tables and logs, where those would do harm.
 */
static bool
api_sessions_name_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned cont, i;
	uint32_t cp, min;

	while (*p) {
		if (*p < 0x20 || *p == 0x7f)
			return false;
		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((*p & 0xe0) == 0xc0) {
			cont = 1;
			cp = *p & 0x1f;
			min = 0x80;
		} else if ((*p & 0xf0) == 0xe0) {
			cont = 2;
			cp = *p & 0x0f;
			min = 0x800;
		} else if ((*p & 0xf8) == 0xf0) {
			cont = 3;
			cp = *p & 0x07;
			min = 0x10000;
		} else {
			return false;
		}
		for (i = 1; i <= cont; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		/* Overlong forms, surrogates and C1 controls are refused. */
		if (cp < min || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
			return false;
		p += cont + 1;
	}
	return true;
}

/*
 * Whether a string of the JSON body holds the escape \u0000.  cJSON
 * decodes it to a NUL byte, which ends its C string there: "a\u0000b"
 * would be taken for "a", and a key "name\u0000x" for "name".  So the
 * raw text is scanned, string by string, with escapes skipped whole so
 * that "\\u0000" (a backslash, then "u0000") is not mistaken for one.
 */
static bool
api_sessions_body_has_nul(const char *body, size_t len)
{
	bool in_string = false;
	size_t i;

	for (i = 0; i < len; i++) {
		if (body[i] == '"') {
			in_string = !in_string;
			continue;
		}
		if (!in_string || body[i] != '\\')
			continue;
		if (i + 1 < len && body[i + 1] == 'u' && i + 5 < len &&
		    memcmp(body + i + 2, "0000", 4) == 0)
			return true;
		/* The escaped character, whatever it is, is skipped. */
		i++;
	}
	return false;
}

/* Reads {"name": "..."}; queues the 400 itself on a bad body. */
static int
api_sessions_parse_name(struct api_request *rq, cJSON **doc, const char **name)
{
	const char *body, *end = NULL;
	cJSON *item;
	size_t len;

	body = api_request_body(rq, &len);
	if (memchr(body, '\0', len)) {
		api_request_reply_error(rq, 400, "bad_request",
					"the body contains a NUL byte");
		return -EINVAL;
	}
	if (len == 0) {
		api_request_reply_error(rq, 400, "bad_request",
					"expected a JSON body "
					"{\"name\": \"...\"}");
		return -EINVAL;
	}
	/*
	 * With the length given and the NUL required: trailing junk is an
	 * error, and no global error pointer is shared between threads.
	 */
	*doc = cJSON_ParseWithLengthOpts(body, len + 1, &end, 1);
	if (!*doc) {
		api_request_reply_error(rq, 400, "bad_request",
					"the body is not JSON (error at "
					"byte %td)",
					end ? end - body : (ptrdiff_t)0);
		return -EINVAL;
	}
	if (!cJSON_IsObject(*doc)) {
		api_request_reply_error(rq, 400, "bad_request",
					"the body must be a JSON object "
					"{\"name\": \"...\"}");
		return -EINVAL;
	}
	if (api_sessions_body_has_nul(body, len)) {
		api_request_reply_error(rq, 400, "bad_request",
					"\"name\" must be 1 to %d bytes of "
					"UTF-8 without control characters: "
					"the body holds \\u0000",
					API_SESSIONS_NAME_MAX);
		return -EINVAL;
	}
	cJSON_ArrayForEach(item, *doc)
	{
		if (!item->string || strcmp(item->string, "name") != 0) {
			api_request_reply_error(rq, 400, "bad_request",
						"unknown member '%.64s' in "
						"the body: only \"name\" is "
						"accepted",
						item->string ? item->string
							     : "");
			return -EINVAL;
		}
	}
	item = cJSON_GetObjectItemCaseSensitive(*doc, "name");
	if (!cJSON_IsString(item) || !item->valuestring) {
		api_request_reply_error(rq, 400, "bad_request",
					"\"name\" must be given, as a string");
		return -EINVAL;
	}
	len = strlen(item->valuestring);
	if (len == 0 || len > API_SESSIONS_NAME_MAX ||
	    !api_sessions_name_ok(item->valuestring)) {
		api_request_reply_error(rq, 400, "bad_request",
					"\"name\" must be 1 to %d bytes of "
					"UTF-8 without control characters",
					API_SESSIONS_NAME_MAX);
		return -EINVAL;
	}
	*name = item->valuestring;
	return 0;
}

/*
 * 507 Insufficient Storage: the writer's disk is full, which a client can
 * neither fix nor retry away at once, unlike a 500.
 */
static int
api_sessions_disk_full(struct api_request *rq, const char *what)
{
	api_request_reply_error(rq, 507, "insufficient_storage",
				"cannot %s: the database's disk is full "
				"(ENOSPC); taps are held in memory until "
				"there is room",
				what);
	return -ENOSPC;
}

/* The reply to a control call that did not get served. */
static int
api_sessions_call_failed(struct api_request *rq, int rc)
{
	if (rc == -ETIMEDOUT)
		api_request_reply_error(rq, 503, "unavailable",
					"the recording thread did not answer "
					"within %d ms: try again",
					API_SESSIONS_WAIT_MS);
	else if (rc == -ESHUTDOWN)
		api_request_reply_error(rq, 503, "unavailable",
					"the daemon is stopping");
	return rc;
}

int
api_sessions_start(struct api_request *rq)
{
	struct control_request req;
	struct api_sessions_row r;
	struct control *control;
	const char *name = NULL;
	cJSON *doc = NULL, *json;
	int rc;

	rc = api_request_allow(rq, api_sessions_no_params);
	if (rc < 0)
		return rc;
	control = api_request_control(rq);
	if (!control)
		return api_sessions_read_only(rq);
	rc = api_sessions_parse_name(rq, &doc, &name);
	if (rc < 0)
		goto out;
	memset(&req, 0, sizeof(req));
	req.op = CONTROL_SESSION_START;
	req.name = name;
	rc = control_call(control, &req, API_SESSIONS_WAIT_MS);
	if (rc < 0) {
		rc = api_sessions_call_failed(rq, rc);
		goto out;
	}
	switch (req.rc) {
	case 0:
		break;
	case -EALREADY:
		api_request_reply_error(rq, 409, "conflict",
					"another session is open: stop it "
					"first");
		rc = req.rc;
		goto out;
	case -EROFS:
		rc = api_sessions_read_only(rq);
		goto out;
	case -ENOSPC:
		rc = api_sessions_disk_full(rq, "start a session");
		goto out;
	default:
		api_request_reply_error(rq, 500, "internal",
					"cannot start session '%s': %s", name,
					strerror(-req.rc));
		rc = req.rc;
		goto out;
	}
	r.id = req.result_id;
	r.name = name;
	r.started_ns = req.started_ns;
	r.stopped_ns = 0;
	r.taps = 0;
	json = api_sessions_json(&r);
	rc = json ? api_request_reply_json(rq, 201, json) : -ENOMEM;
out:
	cJSON_Delete(doc);
	return rc;
}

/* The id of "/v1/sessions/ID/stop" (api.c matched the shape already). */
static int
api_sessions_path_id(const char *path, int64_t *id)
{
	static const char prefix[] = "/v1/sessions/";
	char digits[24];
	const char *p, *slash;
	size_t len;

	if (strncmp(path, prefix, sizeof(prefix) - 1) != 0)
		return -EINVAL;
	p = path + sizeof(prefix) - 1;
	slash = strchr(p, '/');
	if (!slash)
		return -EINVAL;
	len = (size_t)(slash - p);
	if (len == 0 || len >= sizeof(digits))
		return -EINVAL;
	memcpy(digits, p, len);
	digits[len] = '\0';
	return parse_int64(digits, 1, INT64_MAX, id);
}

/* The answer of a stop: the session as stored, with the writer's times. */
struct api_sessions_stop {
	int64_t id;
	const struct control_request *req;
	cJSON *json;
};

/* Builds the answer from s (NULL when the reader does not see it). */
static int
api_sessions_stopped(void *ctx, const struct store_session *s)
{
	struct api_sessions_stop *stop = ctx;
	const struct control_request *req = stop->req;
	struct api_sessions_row r;

	memset(&r, 0, sizeof(r));
	if (s)
		api_sessions_row_of(s, &r);
	r.id = req->result_id ? req->result_id : stop->id;
	if (req->started_ns)
		r.started_ns = req->started_ns;
	r.stopped_ns = req->stopped_ns;
	/* Built while the name is still borrowed from the store. */
	stop->json = api_sessions_json(&r);
	return 0;
}

int
api_sessions_stop(struct api_request *rq)
{
	struct control_request req;
	struct api_sessions_stop stop;
	struct control *control;
	struct store *st;
	int64_t id;
	int rc;

	rc = api_request_allow(rq, api_sessions_no_params);
	if (rc < 0)
		return rc;
	if (api_sessions_path_id(api_request_path(rq), &id) < 0) {
		api_request_reply_error(rq, 404, "not_found",
					"no such session: '%.64s'",
					api_request_path(rq));
		return -ENOENT;
	}
	control = api_request_control(rq);
	if (!control)
		return api_sessions_read_only(rq);
	/*
	 * The connection is taken first: once the session is stopped, the
	 * answer must say so, not that the database was busy.
	 */
	rc = api_request_store(rq, &st);
	if (rc < 0)
		return rc;
	memset(&req, 0, sizeof(req));
	req.op = CONTROL_SESSION_STOP;
	req.id = id;
	rc = control_call(control, &req, API_SESSIONS_WAIT_MS);
	if (rc < 0)
		return api_sessions_call_failed(rq, rc);
	switch (req.rc) {
	case 0:
		break;
	case -ENOENT:
		api_request_reply_error(rq, 404, "not_found",
					"no session %" PRId64, id);
		return req.rc;
	case -EALREADY:
		api_request_reply_error(
			rq, 409, "conflict",
			"session %" PRId64 " is stopped already", id);
		return req.rc;
	case -EROFS:
		return api_sessions_read_only(rq);
	case -ENOSPC:
		return api_sessions_disk_full(rq, "stop the session");
	default:
		api_request_reply_error(rq, 500, "internal",
					"cannot stop session %" PRId64 ": %s",
					id, strerror(-req.rc));
		return req.rc;
	}
	/*
	 * The name and the tap count are in the database; the times come
	 * from the writer, which knows them even before a reader sees them.
	 * A session the reader cannot see yet still gets its answer.
	 */
	memset(&stop, 0, sizeof(stop));
	stop.id = id;
	stop.req = &req;
	if (store_session_get(st, id, api_sessions_stopped, &stop) != 0)
		api_sessions_stopped(&stop, NULL);
	return stop.json ? api_request_reply_json(rq, 200, stop.json) : -ENOMEM;
}
