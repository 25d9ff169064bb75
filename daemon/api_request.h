/*
 * One HTTP request, as the handlers of api_*.c see it: its parameters,
 * validated; a read-only database connection; and the ways to answer.
 * A handler answers exactly once (reply_* returns 0) or returns a negative
 * errno, which api.c turns into a 500.
 *
 * Parameter rules (docs/DESIGN.md 7.6): a handler first declares the
 * parameters it knows with api_request_allow(); any other one is a 400.
 * Every getter returns 0 when the parameter is absent (leaving *out as
 * is), 1 when present and valid, and on a bad value queues the 400 reply
 * itself and returns -EINVAL, which the handler passes back up unchanged
 * ("return rc;"), so api.c knows the reply is already queued.
 */
#ifndef TAPD_API_REQUEST_H
#define TAPD_API_REQUEST_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct api_request;
struct control;
struct events;
struct inject;
struct metrics;
struct status;
struct store;

/* The handler of one route. */
typedef int (*api_handler)(struct api_request *rq);

/* HTTP method and path (without the query string). */
const char *api_request_method(const struct api_request *rq);
const char *api_request_path(const struct api_request *rq);

/*
 * Declares the parameters the handler accepts, a NULL-terminated list.
 * Returns 0, or -EINVAL after queuing a 400 naming the first unknown or
 * repeated parameter.
 */
int api_request_allow(struct api_request *rq, const char *const *names);

/*
 * The longest parameter name or value quoted back in an error, by
 * api_request_allow() and the getters below.
 */
#define API_REQUEST_QUOTE 64

/* The raw value, or NULL when absent ("?x" alone gives ""). */
const char *api_request_param(const struct api_request *rq, const char *name);

/* A string of 1..max bytes of [A-Za-z0-9._:-] (app names, kinds...). */
int api_request_param_word(struct api_request *rq, const char *name, size_t max,
			   const char **out);

/* An integer in [lo, hi]. */
int api_request_param_int(struct api_request *rq, const char *name, int64_t lo,
			  int64_t hi, int64_t *out);

/*
 * A time: RFC 3339 ("2026-12-01T05:37:54Z", fraction and offset allowed),
 * Unix seconds (with an optional fraction), or a duration back from now
 * ("90s", "15m", "2h", "7d").  *out is wall-clock (REALTIME) ns.
 */
int api_request_param_time(struct api_request *rq, const char *name,
			   int64_t *out);

/*
 * One of a fixed set of words; *out is its index in choices (a
 * NULL-terminated list).
 */
int api_request_param_enum(struct api_request *rq, const char *name,
			   const char *const *choices, int *out);

/*
 * A comma-separated list of numbers in (lo, hi], at most max of them,
 * into out[]; *n is set to the count.
 */
int api_request_param_list(struct api_request *rq, const char *name, double lo,
			   double hi, double *out, size_t max, size_t *n);

/*
 * Checks that since <= until when both are set; queues a 400 and returns
 * -EINVAL otherwise.
 */
int api_request_check_range(struct api_request *rq, int64_t since,
			    int64_t until);

/* The request body (POST), NUL-terminated, and its length; "" if none. */
const char *api_request_body(const struct api_request *rq, size_t *len);

/*
 * The read-only store of a connection from the pool, held until the
 * request ends (the handler must not close it or keep it).  Returns 0 and
 * sets *st, or a negative errno (pool exhausted past its wait, database
 * gone).  On failure the 503 reply ("unavailable") is already queued, so
 * the handler just returns the errno.
 */
int api_request_store(struct api_request *rq, struct store **st);

/*
 * For a stream, which reads the database now and then for as long as it
 * lasts rather than once: api_request_store_release() gives the
 * connection of api_request_store() back to the pool (a no-op when none
 * is held), so that an open stream holds none between its reads, and
 * api_request_store_try() checks one out again for the next read,
 * waiting up to timeout_ms.  It queues no reply when it fails, since a
 * stream's reply is long gone: -ETIMEDOUT when every connection stayed
 * busy, -ENOENT when the server has no database.
 */
void api_request_store_release(struct api_request *rq);
int api_request_store_try(struct api_request *rq, int timeout_ms,
			  struct store **st);

/* The server's shared objects (any may be NULL: see api_config). */
struct status *api_request_status(const struct api_request *rq);
struct events *api_request_events(const struct api_request *rq);
struct control *api_request_control(const struct api_request *rq);
struct metrics *api_request_metrics(const struct api_request *rq);
struct inject *api_request_inject(const struct api_request *rq);

/* Replies with a JSON body; takes ownership of body (deleted here). */
int api_request_reply_json(struct api_request *rq, unsigned status,
			   cJSON *body);

/*
 * Replies with a buffer allocated with malloc(); takes ownership of buf.
 * content_type is copied.
 */
int api_request_reply_buffer(struct api_request *rq, unsigned status,
			     const char *content_type, char *buf, size_t len);

/*
 * Replies with bytes that outlive the server (files embedded in the
 * binary), without copying them.  headers is a NULL-terminated list of
 * name, value pairs added to the reply (may be NULL); a Cache-Control
 * among them replaces the API's "no-store".
 */
int api_request_reply_static(struct api_request *rq, unsigned status,
			     const char *content_type, const void *data,
			     size_t len, const char *const *headers);

/*
 * Replies {"error": {"code": code, "message": ...}} with the HTTP status.
 * code is one of "bad_request", "not_found", "method_not_allowed",
 * "unauthorized", "too_large", "conflict", "unavailable", "internal".
 */
int api_request_reply_error(struct api_request *rq, unsigned status,
			    const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Streams a response of unknown length (chunked): read is called from the
 * connection's thread with a buffer to fill, like libmicrohttpd's content
 * reader: it returns the bytes written (> 0), API_STREAM_END, or
 * API_STREAM_ERROR; it may block, but at most a few seconds, and must end
 * when api_request_stopping() says so (rq stays valid until done runs, so
 * ctx may keep it).  done (may be NULL) runs once when the response is
 * gone, to free ctx; when this call fails, it has run already.
 */
#define API_STREAM_END	 (-1)
#define API_STREAM_ERROR (-2)
typedef ssize_t (*api_stream_read)(void *ctx, uint64_t pos, char *buf,
				   size_t max);
int api_request_reply_stream(struct api_request *rq, const char *content_type,
			     api_stream_read read, void (*done)(void *ctx),
			     void *ctx);

/* Set when the server is shutting down: streams must end. */
int api_request_stopping(const struct api_request *rq);

/* How many stream replies are open right now (this one not yet counted). */
int api_request_streams(const struct api_request *rq);

/*
 * Exempts rq's connection from the server's idle timeout: a stream that
 * waits for events between its keep-alives is not idle.
 */
void api_request_no_timeout(struct api_request *rq);

/* The connection's socket (to look for a client gone), or -1. */
int api_request_fd(const struct api_request *rq);

/*
 * Additions to the contract.
 */

/* The value of a request header (case-insensitive name), or NULL. */
const char *api_request_header(const struct api_request *rq, const char *name);

/* The database path the pool serves, or NULL when there is none. */
const char *api_request_db_path(const struct api_request *rq);

/*
 * store_info() on st, the request's connection, through the pool, which
 * remembers the count until the file changes.
 */
int api_request_store_info(struct api_request *rq, struct store *st,
			   int64_t *version, int64_t *taps);

/*
 * The answer cache (dbpool.h), for a handler whose reply depends on
 * nothing but the database and its parameters.  key holds every value
 * the reply depends on, parsed (the path first, then the parameters as
 * the handler understood them: times in ns, defaults filled in), so
 * that two requests of one key get one answer.  The caller holds st in a
 * read transaction that has read nothing yet: api_request_read_begin(),
 * which is store_read_begin() by statements the pool keeps, then
 * api_request_read_end() once the reply is queued.
 *
 * api_request_reply_cached() replies 200 with the answer kept under key
 * and returns 1, returns 0 when there is none (the handler computes it),
 * or a negative errno.  api_request_reply_json_keep() is
 * api_request_reply_json() with status 200 that also keeps the text
 * under key, for the next request of the same key while the file stays
 * as it is.
 */
#define API_REQUEST_KEY_MAX 512
int api_request_read_begin(struct api_request *rq, struct store *st);
void api_request_read_end(struct api_request *rq, struct store *st);
int api_request_reply_cached(struct api_request *rq, struct store *st,
			     const char *key);
int api_request_reply_json_keep(struct api_request *rq, struct store *st,
				const char *key, cJSON *body);

/* REALTIME ns when the server started (for uptimes without a status). */
int64_t api_request_started_ns(const struct api_request *rq);

/*
 * Only api.c uses what follows: it creates the requests and ends them.
 * The double underscore marks functions shared by the two files of the
 * module, not part of what handlers see.
 */

/* Request bodies above this are refused with 413. */
#define API_REQUEST_MAX_BODY (64 * 1024)

struct MHD_Connection;
struct dbpool;

/* What every request of one server shares; api.c owns it. */
struct api_request_env {
	struct status *status;
	struct events *events;
	struct control *control;
	struct metrics *metrics;
	struct inject *inject;
	struct dbpool *pool; /* NULL: no database */
	int64_t started_ns;
	const int *stopping; /* read atomically */
	int *streams;	     /* stream replies not yet done, atomic */
};

/*
 * Starts a request of conn (its query arguments are read now).  Returns
 * 0 and sets *out, or -ENOMEM.  It holds one reference, dropped by
 * api_request__unref().
 */
int api_request__new(struct MHD_Connection *conn,
		     const struct api_request_env *env, const char *method,
		     const char *path, struct api_request **out);

/*
 * The same in two steps, for a request first seen by its raw URI (before
 * libmicrohttpd has parsed it): new_early() makes it with no method nor
 * path yet (0, or -ENOMEM); begin() gives them once the head is in and
 * reads the query arguments then (0, -ENOMEM, or -EALREADY when it has
 * begun already, which begun() tells).
 */
int api_request__new_early(struct MHD_Connection *conn,
			   const struct api_request_env *env,
			   struct api_request **out);
int api_request__begin(struct api_request *rq, const char *method,
		       const char *path);
int api_request__begun(const struct api_request *rq);

/*
 * Records a refusal found before the request could be answered (in its
 * raw URI): status, code (a static string) and message, the first one
 * only.  send_refusal() queues it as the error reply and returns 1, or
 * returns 0 when there is none.
 */
void api_request__refuse(struct api_request *rq, unsigned status,
			 const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int api_request__send_refusal(struct api_request *rq);

/*
 * The handler has returned: a reply of a buffer needs the database no
 * more, so the connection goes back to the pool now rather than once
 * the reply is sent (a stream keeps whatever it holds).
 */
void api_request__handled(struct api_request *rq);

/* Drops a reference; the last gives the connection back and frees. */
void api_request__unref(struct api_request *rq);

/*
 * Appends body bytes.  Returns 0, -E2BIG once the body passes
 * API_REQUEST_MAX_BODY (the bytes are then dropped), -EMSGSIZE when far
 * too much was dropped (close the connection), or -ENOMEM.
 */
int api_request__append(struct api_request *rq, const char *data, size_t len);

/* Adds a header to the reply still to come (Allow, WWW-Authenticate). */
int api_request__add_header(struct api_request *rq, const char *name,
			    const char *value);

/* 1 once a reply is queued, 0 before, -1 when queuing it failed. */
int api_request__replied(const struct api_request *rq);

/* The HTTP status of the reply queued (or tried), 0 before any. */
unsigned api_request__status(const struct api_request *rq);

/*
 * Adds a query parameter to a request made without a connection (conn
 * NULL: the unit tests of the parameter helpers, whose replies then fail
 * but leave their status).  key and value must outlive rq.  Returns 0 or
 * -ENOSPC.
 */
int api_request__add_param(struct api_request *rq, const char *key,
			   const char *value);

#endif
