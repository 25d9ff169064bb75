#include "api_request.h"

#include <errno.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbpool.h"
#include "log.h"
#include "store.h"

/* More query parameters than any endpoint knows is already an error. */
#define API_REQUEST_MAX_PARAMS	32
#define API_REQUEST_MAX_HEADERS 4
/* How long a request waits for a pooled connection before a 503. */
#define API_REQUEST_POOL_WAIT_MS 2000
#define API_REQUEST_JSON_TYPE	 "application/json; charset=utf-8"
/*
 * The stack buffer replies are printed into first (the threads have 1
 * MiB of stack); cJSON wants 5 bytes more than the text.
 */
#define API_REQUEST_JSON_STACK (16 * 1024)
/*
 * A body past the limit is read and dropped so that the 413 can be sent;
 * a client that keeps sending far beyond it is cut off instead.
 */
#define API_REQUEST_MAX_DISCARD (16 * API_REQUEST_MAX_BODY)

struct api_request_param {
	const char *key;
	const char *value; /* "" for "?key" alone */
};

struct api_request_header {
	char *name;
	char *value;
};

struct api_request {
	struct MHD_Connection *conn;
	const struct api_request_env *env;
	int refs;
	char *method;
	char *path;
	struct api_request_param params[API_REQUEST_MAX_PARAMS];
	unsigned nparams;
	/* Set while reading the query: allow() reports it. */
	const char *param_error;
	char *body;
	size_t body_len;
	size_t dropped;
	bool body_too_large;
	struct store *store;
	struct api_request_header headers[API_REQUEST_MAX_HEADERS];
	unsigned nheaders;
	int replied;
	bool streaming; /* the reply is a stream */
	unsigned status;
	/* A refusal decided from the raw URI, sent once the head is in. */
	unsigned refuse_status;
	const char *refuse_code;
	char refuse_msg[160];
};

_Static_assert(API_REQUEST_KEY_MAX == DBPOOL_ANSWER_KEY,
	       "an answer's key fits the cache");

/* A stream response's context: it keeps the request alive. */
struct api_request_stream {
	struct api_request *rq;
	api_stream_read read;
	void (*done)(void *ctx);
	void *ctx;
};

static enum MHD_Result
api_request_collect(void *cls, enum MHD_ValueKind kind, const char *key,
		    size_t key_size, const char *value, size_t value_size)
{
	struct api_request *rq = cls;

	(void)kind;
	/*
	 * A NUL inside a name or value would make the C string say less
	 * than the client sent: such a parameter is refused, not cut.
	 */
	if (strlen(key) != key_size || (value && strlen(value) != value_size)) {
		rq->param_error = "a parameter contains a NUL byte";
		return MHD_NO;
	}
	/* "?&" and "a=1&&b=2" hold empty pairs: nothing was asked there. */
	if (key_size == 0 && (!value || value_size == 0))
		return MHD_YES;
	if (rq->nparams == API_REQUEST_MAX_PARAMS) {
		rq->param_error = "too many parameters";
		return MHD_NO;
	}
	rq->params[rq->nparams].key = key;
	rq->params[rq->nparams].value = value ? value : "";
	rq->nparams++;
	return MHD_YES;
}

int
api_request__new_early(struct MHD_Connection *conn,
		       const struct api_request_env *env,
		       struct api_request **out)
{
	struct api_request *rq;

	rq = calloc(1, sizeof(*rq));
	if (!rq)
		return -ENOMEM;
	rq->conn = conn;
	rq->env = env;
	rq->refs = 1;
	rq->body = calloc(1, 1);
	if (!rq->body) {
		free(rq);
		return -ENOMEM;
	}
	*out = rq;
	return 0;
}

int
api_request__begin(struct api_request *rq, const char *method, const char *path)
{
	if (rq->method)
		return -EALREADY;
	rq->method = strdup(method);
	rq->path = strdup(path);
	if (!rq->method || !rq->path) {
		free(rq->method);
		free(rq->path);
		rq->method = NULL;
		rq->path = NULL;
		return -ENOMEM;
	}
	if (rq->conn)
		MHD_get_connection_values_n(rq->conn, MHD_GET_ARGUMENT_KIND,
					    api_request_collect, rq);
	return 0;
}

int
api_request__begun(const struct api_request *rq)
{
	return rq->method != NULL;
}

int
api_request__new(struct MHD_Connection *conn, const struct api_request_env *env,
		 const char *method, const char *path, struct api_request **out)
{
	struct api_request *rq;
	int rc;

	rc = api_request__new_early(conn, env, &rq);
	if (rc < 0)
		return rc;
	rc = api_request__begin(rq, method, path);
	if (rc < 0) {
		api_request__unref(rq);
		return rc;
	}
	*out = rq;
	return 0;
}

void
api_request__refuse(struct api_request *rq, unsigned status, const char *code,
		    const char *fmt, ...)
{
	va_list ap;

	/* The first reason found is the one the client hears. */
	if (rq->refuse_status)
		return;
	rq->refuse_status = status;
	rq->refuse_code = code;
	va_start(ap, fmt);
	vsnprintf(rq->refuse_msg, sizeof(rq->refuse_msg), fmt, ap);
	va_end(ap);
}

int
api_request__send_refusal(struct api_request *rq)
{
	if (!rq->refuse_status)
		return 0;
	api_request_reply_error(rq, rq->refuse_status, rq->refuse_code, "%s",
				rq->refuse_msg);
	return 1;
}

void
api_request__unref(struct api_request *rq)
{
	unsigned i;

	if (!rq || __atomic_sub_fetch(&rq->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (rq->store)
		dbpool_put(rq->env->pool, rq->store);
	for (i = 0; i < rq->nheaders; i++) {
		free(rq->headers[i].name);
		free(rq->headers[i].value);
	}
	free(rq->method);
	free(rq->path);
	free(rq->body);
	free(rq);
}

void
api_request__handled(struct api_request *rq)
{
	if (!rq->streaming)
		api_request_store_release(rq);
}

int
api_request__append(struct api_request *rq, const char *data, size_t len)
{
	char *body;

	if (rq->body_too_large || len > API_REQUEST_MAX_BODY - rq->body_len) {
		rq->body_too_large = true;
		if (len > API_REQUEST_MAX_DISCARD - rq->dropped)
			return -EMSGSIZE;
		rq->dropped += len;
		return -E2BIG;
	}
	body = realloc(rq->body, rq->body_len + len + 1);
	if (!body)
		return -ENOMEM;
	memcpy(body + rq->body_len, data, len);
	rq->body_len += len;
	body[rq->body_len] = '\0';
	rq->body = body;
	return 0;
}

int
api_request__add_header(struct api_request *rq, const char *name,
			const char *value)
{
	struct api_request_header *h;

	if (rq->nheaders == API_REQUEST_MAX_HEADERS)
		return -ENOSPC;
	h = &rq->headers[rq->nheaders];
	h->name = strdup(name);
	h->value = strdup(value);
	if (!h->name || !h->value) {
		free(h->name);
		free(h->value);
		return -ENOMEM;
	}
	rq->nheaders++;
	return 0;
}

int
api_request__replied(const struct api_request *rq)
{
	return rq->replied;
}

unsigned
api_request__status(const struct api_request *rq)
{
	return rq->status;
}

int
api_request__add_param(struct api_request *rq, const char *key,
		       const char *value)
{
	if (rq->nparams == API_REQUEST_MAX_PARAMS)
		return -ENOSPC;
	rq->params[rq->nparams].key = key;
	rq->params[rq->nparams].value = value ? value : "";
	rq->nparams++;
	return 0;
}

const char *
api_request_method(const struct api_request *rq)
{
	return rq->method;
}

const char *
api_request_path(const struct api_request *rq)
{
	return rq->path;
}

/* Whether s is one of the NULL-terminated names. */
static bool
api_request_listed(const char *const *names, const char *s)
{
	size_t i;

	for (i = 0; names && names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return true;
	return false;
}

int
api_request_allow(struct api_request *rq, const char *const *names)
{
	unsigned i, j;

	if (rq->param_error) {
		api_request_reply_error(rq, 400, "bad_request", "%s",
					rq->param_error);
		return -EINVAL;
	}
	for (i = 0; i < rq->nparams; i++) {
		if (!api_request_listed(names, rq->params[i].key)) {
			api_request_reply_error(
				rq, 400, "bad_request",
				"unknown parameter '%.*s' for %s",
				API_REQUEST_QUOTE, rq->params[i].key, rq->path);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (strcmp(rq->params[j].key, rq->params[i].key) == 0) {
				api_request_reply_error(
					rq, 400, "bad_request",
					"parameter '%.*s' given more than once",
					API_REQUEST_QUOTE, rq->params[i].key);
				return -EINVAL;
			}
		}
	}
	return 0;
}

const char *
api_request_param(const struct api_request *rq, const char *name)
{
	unsigned i;

	for (i = 0; i < rq->nparams; i++)
		if (strcmp(rq->params[i].key, name) == 0)
			return rq->params[i].value;
	return NULL;
}

const char *
api_request_body(const struct api_request *rq, size_t *len)
{
	if (len)
		*len = rq->body_len;
	return rq->body;
}

int
api_request_store(struct api_request *rq, struct store **st)
{
	int rc;

	if (rq->store) {
		*st = rq->store;
		return 0;
	}
	if (!rq->env->pool) {
		api_request_reply_error(rq, 503, "unavailable",
					"this server has no database");
		return -ENOENT;
	}
	rc = dbpool_get(rq->env->pool, API_REQUEST_POOL_WAIT_MS, &rq->store);
	if (rc < 0) {
		log_warnx("cannot serve '%s': every database connection is "
			  "busy",
			  rq->path);
		api_request_reply_error(rq, 503, "unavailable",
					"the database is busy: try again");
		return rc;
	}
	*st = rq->store;
	return 0;
}

void
api_request_store_release(struct api_request *rq)
{
	if (!rq->store)
		return;
	dbpool_put(rq->env->pool, rq->store);
	rq->store = NULL;
}

int
api_request_store_try(struct api_request *rq, int timeout_ms, struct store **st)
{
	int rc;

	if (rq->store) {
		*st = rq->store;
		return 0;
	}
	if (!rq->env->pool)
		return -ENOENT;
	rc = dbpool_get(rq->env->pool, timeout_ms, &rq->store);
	if (rc < 0)
		return rc;
	*st = rq->store;
	return 0;
}

struct status *
api_request_status(const struct api_request *rq)
{
	return rq->env->status;
}

struct events *
api_request_events(const struct api_request *rq)
{
	return rq->env->events;
}

struct control *
api_request_control(const struct api_request *rq)
{
	return rq->env->control;
}

struct inject *
api_request_inject(const struct api_request *rq)
{
	return rq->env->inject;
}

struct metrics *
api_request_metrics(const struct api_request *rq)
{
	return rq->env->metrics;
}

const char *
api_request_header(const struct api_request *rq, const char *name)
{
	if (!rq->conn)
		return NULL;
	return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
}

const char *
api_request_db_path(const struct api_request *rq)
{
	return rq->env->pool ? dbpool_path(rq->env->pool) : NULL;
}

int
api_request_store_info(struct api_request *rq, struct store *st,
		       int64_t *version, int64_t *taps)
{
	return dbpool_info(rq->env->pool, st, version, taps);
}

int64_t
api_request_started_ns(const struct api_request *rq)
{
	return rq->env->started_ns;
}

int
api_request_stopping(const struct api_request *rq)
{
	return rq->env->stopping &&
	       __atomic_load_n(rq->env->stopping, __ATOMIC_ACQUIRE);
}

int
api_request_streams(const struct api_request *rq)
{
	return rq->env->streams
		       ? __atomic_load_n(rq->env->streams, __ATOMIC_ACQUIRE)
		       : 0;
}

void
api_request_no_timeout(struct api_request *rq)
{
	MHD_set_connection_option(rq->conn, MHD_CONNECTION_OPTION_TIMEOUT,
				  (unsigned int)0);
}

int
api_request_fd(const struct api_request *rq)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		rq->conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	return info ? info->connect_fd : -1;
}

/*
 * Adds the headers every reply carries and the ones api.c asked for, and
 * queues the response.  Takes the response (destroyed here).
 */
static int
api_request_queue(struct api_request *rq, unsigned status,
		  const char *content_type, struct MHD_Response *resp)
{
	unsigned i;
	int rc = -ENOMEM;

	rq->status = status;
	/* Answers are never cached unless their handler said otherwise. */
	if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				    content_type) != MHD_YES ||
	    (!MHD_get_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL) &&
	     MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
				     "no-store") != MHD_YES))
		goto out;
	for (i = 0; i < rq->nheaders; i++)
		if (MHD_add_response_header(resp, rq->headers[i].name,
					    rq->headers[i].value) != MHD_YES)
			goto out;
	if (!rq->conn ||
	    MHD_queue_response(rq->conn, status, resp) != MHD_YES) {
		log_warnx("cannot queue the %u reply to '%s %s'", status,
			  rq->method, rq->path);
		rc = -EIO;
		goto out;
	}
	rq->replied = 1;
	rc = 0;
out:
	if (rc < 0)
		rq->replied = -1;
	MHD_destroy_response(resp);
	return rc;
}

int
api_request_reply_buffer(struct api_request *rq, unsigned status,
			 const char *content_type, char *buf, size_t len)
{
	struct MHD_Response *resp;

	if (rq->replied) {
		log_warnx("BUG: a second reply to '%s %s'", rq->method,
			  rq->path);
		free(buf);
		return -EALREADY;
	}
	resp = MHD_create_response_from_buffer_with_free_callback(len, buf,
								  free);
	if (!resp) {
		free(buf);
		rq->replied = -1;
		return -ENOMEM;
	}
	return api_request_queue(rq, status, content_type, resp);
}

int
api_request_reply_static(struct api_request *rq, unsigned status,
			 const char *content_type, const void *data, size_t len,
			 const char *const *headers)
{
	struct MHD_Response *resp;
	size_t i;

	if (rq->replied) {
		log_warnx("BUG: a second reply to '%s %s'", rq->method,
			  rq->path);
		return -EALREADY;
	}
	/*
	 * PERSISTENT: libmicrohttpd neither copies nor writes nor frees the
	 * bytes, which it takes as a pointer to non-const all the same.
	 */
	resp = MHD_create_response_from_buffer(len, (void *)(uintptr_t)data,
					       MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		rq->replied = -1;
		return -ENOMEM;
	}
	for (i = 0; headers && headers[i] && headers[i + 1]; i += 2) {
		if (MHD_add_response_header(resp, headers[i], headers[i + 1]) !=
		    MHD_YES) {
			MHD_destroy_response(resp);
			rq->replied = -1;
			return -ENOMEM;
		}
	}
	return api_request_queue(rq, status, content_type, resp);
}

/*
 * The text of body (deleted here) and a newline, which ends the text for
 * shells, into *text (malloc'd) and *len.  It is printed into a buffer
 * on the stack first and copied once: cJSON's own printer grows its
 * buffer by reallocation, which cost /v1/health a fifth of its time.  A
 * text that does not fit is printed the usual way.
 */
static int
api_request_json_text(cJSON *body, char **text, size_t *len)
{
	char buf[API_REQUEST_JSON_STACK], *s, *grown;
	size_t n;

	if (!body)
		return -EINVAL;
	if (cJSON_PrintPreallocated(body, buf, (int)sizeof(buf), 0)) {
		cJSON_Delete(body);
		n = strlen(buf);
		s = malloc(n + 2);
		if (!s)
			return -ENOMEM;
		memcpy(s, buf, n);
		s[n++] = '\n';
		s[n] = '\0';
		*text = s;
		*len = n;
		return 0;
	}
	s = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	if (!s)
		return -ENOMEM;
	/*
	 * cJSON allocates with malloc unless its hooks were changed, which
	 * this program never does.
	 */
	n = strlen(s);
	grown = realloc(s, n + 2);
	if (!grown) {
		free(s);
		return -ENOMEM;
	}
	grown[n++] = '\n';
	grown[n] = '\0';
	*text = grown;
	*len = n;
	return 0;
}

int
api_request_reply_json(struct api_request *rq, unsigned status, cJSON *body)
{
	size_t len;
	char *text;
	int rc;

	rc = api_request_json_text(body, &text, &len);
	if (rc < 0)
		return rc;
	return api_request_reply_buffer(rq, status, API_REQUEST_JSON_TYPE, text,
					len);
}

int
api_request_read_begin(struct api_request *rq, struct store *st)
{
	return dbpool_read_begin(rq->env->pool, st);
}

void
api_request_read_end(struct api_request *rq, struct store *st)
{
	dbpool_read_end(rq->env->pool, st);
}

int
api_request_reply_cached(struct api_request *rq, struct store *st,
			 const char *key)
{
	size_t len;
	char *text;
	int rc;

	rc = dbpool_answer_get(rq->env->pool, st, key, &text, &len);
	if (rc <= 0)
		return rc;
	rc = api_request_reply_buffer(rq, 200, API_REQUEST_JSON_TYPE, text,
				      len);
	return rc < 0 ? rc : 1;
}

int
api_request_reply_json_keep(struct api_request *rq, struct store *st,
			    const char *key, cJSON *body)
{
	size_t len;
	char *text;
	int rc;

	rc = api_request_json_text(body, &text, &len);
	if (rc < 0)
		return rc;
	/* Not kept is only slower: the reply goes all the same. */
	(void)dbpool_answer_put(rq->env->pool, st, key, text, len);
	return api_request_reply_buffer(rq, 200, API_REQUEST_JSON_TYPE, text,
					len);
}

/*
 * Replaces what is not UTF-8 in s by '?', in place: messages quote what
 * the client sent (a path, a parameter), and a JSON text must be UTF-8.
 * A sequence cut by a length limit is replaced the same way.
 */
static void
api_request_make_utf8(char *s)
{
	unsigned char *p = (unsigned char *)s;
	unsigned n, i;
	uint32_t cp;

	while (*p) {
		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((*p & 0xe0) == 0xc0)
			n = 1;
		else if ((*p & 0xf0) == 0xe0)
			n = 2;
		else if ((*p & 0xf8) == 0xf0)
			n = 3;
		else
			n = 0;
		cp = *p & (0x3f >> n);
		for (i = 1; n && i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				break;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if (n == 0 || i <= n || (n == 1 && cp < 0x80) ||
		    (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
			*p++ = '?';
			continue;
		}
		p += n + 1;
	}
}

int
api_request_reply_error(struct api_request *rq, unsigned status,
			const char *code, const char *fmt, ...)
{
	cJSON *root = NULL, *err;
	char msg[512];
	va_list ap;

	if (rq->replied)
		return -EALREADY;
	va_start(ap, fmt);
	/* A cut message is still a message; the status says the rest. */
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	api_request_make_utf8(msg);
	root = cJSON_CreateObject();
	err = cJSON_AddObjectToObject(root, "error");
	if (!err || !cJSON_AddStringToObject(err, "code", code) ||
	    !cJSON_AddStringToObject(err, "message", msg)) {
		cJSON_Delete(root);
		return -ENOMEM;
	}
	return api_request_reply_json(rq, status, root);
}

static ssize_t
api_request_stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct api_request_stream *s = cls;
	ssize_t n;

	n = s->read(s->ctx, pos, buf, max);
	if (n == API_STREAM_END)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (n < 0 || (size_t)n > max)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	return n;
}

static void
api_request_stream_free(void *cls)
{
	struct api_request_stream *s = cls;

	if (s->done)
		s->done(s->ctx);
	if (s->rq->env->streams)
		__atomic_sub_fetch(s->rq->env->streams, 1, __ATOMIC_ACQ_REL);
	api_request__unref(s->rq);
	free(s);
}

int
api_request_reply_stream(struct api_request *rq, const char *content_type,
			 api_stream_read read, void (*done)(void *ctx),
			 void *ctx)
{
	struct api_request_stream *s;
	struct MHD_Response *resp;

	if (rq->replied) {
		log_warnx("BUG: a second reply to '%s %s'", rq->method,
			  rq->path);
		return -EALREADY;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->rq = rq;
	s->read = read;
	s->done = done;
	s->ctx = ctx;
	/*
	 * The response may outlive the request's completion callback, and
	 * the reader uses rq (and its database connection) until done.
	 */
	__atomic_add_fetch(&rq->refs, 1, __ATOMIC_ACQ_REL);
	rq->streaming = true;
	if (rq->env->streams)
		__atomic_add_fetch(rq->env->streams, 1, __ATOMIC_ACQ_REL);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024,
						 api_request_stream_read, s,
						 api_request_stream_free);
	if (!resp) {
		/* done runs on failure too: ctx always ends the same way. */
		api_request_stream_free(s);
		rq->replied = -1;
		return -ENOMEM;
	}
	return api_request_queue(rq, 200, content_type, resp);
}
