/*
 * tapctl's HTTP client over libcurl: one connection to the tapd API at a
 * base URL, with an optional bearer token, bounded in time and in size.
 * Only http and https are spoken and redirects are not followed, so the
 * token never goes anywhere but the URL given.
 */
#ifndef TAPCTL_HTTP_H
#define TAPCTL_HTTP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The largest body kept in memory (a /v1/taps page of 10000 rows is far
 * smaller); a larger one is a bad response.
 */
#define HTTP_MAX_BODY ((size_t)256 << 20)

/* The largest body written to a file (trace -o). */
#define HTTP_MAX_FILE ((uint64_t)4 << 30)

/* What went wrong, beside the HTTP status. */
enum http_fail {
	HTTP_OK,
	HTTP_CONNECT,	/* no connection: refused, unresolved, timed out */
	HTTP_TIMEOUT,	/* connected, but the answer did not come in time */
	HTTP_TOO_LARGE, /* the body passed its cap */
	HTTP_BROKEN,	/* the answer was cut or malformed */
	HTTP_ABORTED,	/* stopped by the sink or by *stop */
};

struct http_response {
	long status; /* HTTP status, 0 when none came */
	char *body;  /* NUL-terminated; NULL when streamed */
	size_t len;
	uint64_t streamed; /* bytes handed to a sink */
	char content_type[128];
	enum http_fail fail;
	char error[256]; /* what failed, for the diagnostic */
};

/*
 * Receives a streamed body in pieces as they arrive.  Returns 0 to go on,
 * or -1 to stop the transfer (HTTP_ABORTED).
 */
typedef int (*http_sink)(void *ctx, const char *data, size_t len);

struct http;

/*
 * A client for base_url ("http://host:port", a trailing slash allowed),
 * sending "Authorization: Bearer token" when token is not NULL.
 * timeout_ms (> 0) bounds connecting, and the whole of each
 * http_request().  Proxies named in the environment are not used: the
 * API is meant for loopback and adb forward, and the token must not pass
 * through anything else.  Returns 0 and sets *out, -EINVAL for a URL that
 * is not http(s) or a token with a control character, or -ENOMEM.  Free
 * with http_free().
 */
int http_new(const char *base_url, const char *token, long timeout_ms,
	     struct http **out);

/* NULL is a no-op. */
void http_free(struct http *h);

/* The base URL, without a trailing slash. */
const char *http_url(const struct http *h);

/*
 * Appends "name=value" to a query string under construction in *q (a
 * malloc'd string, NULL to start), escaping the value; a NULL value adds
 * nothing.  Returns 0 or -ENOMEM (after which *q is freed and NULL).
 */
int http_query_add(struct http *h, char **q, const char *name,
		   const char *value);

/*
 * Performs method ("GET" or "POST") on path (with its query string).  A
 * POST sends body as application/json (NULL for none).  The response body
 * is kept in memory up to HTTP_MAX_BODY.  Returns 0 when an HTTP response
 * came, whatever its status, or -EIO with resp->fail and resp->error set.
 * Release resp with http_response_release().
 */
int http_request(struct http *h, const char *method, const char *path,
		 const char *body, struct http_response *resp);

/*
 * GETs path and hands a 2xx body to sink as it arrives, up to max bytes
 * (0 for no cap); the body of any other status is kept in resp->body for
 * its error message.  The transfer ends when the server ends it, when the
 * sink returns -1, or when *stop becomes non-zero (checked at least once a
 * second; stop may be NULL).  If no byte at all arrives for idle_s seconds
 * (0 for no limit) the server is taken for gone (HTTP_TIMEOUT).  Returns
 * as http_request().
 */
int http_stream(struct http *h, const char *path, http_sink sink, void *ctx,
		uint64_t max, const volatile sig_atomic_t *stop, long idle_s,
		struct http_response *resp);

/*
 * As http_stream(), with one more request header: header is a whole
 * "Name: value" line without its end (tail's Last-Event-ID), or NULL for
 * none.  Returns as http_stream(); -EINVAL for a header with a control
 * character.
 */
int http_stream_header(struct http *h, const char *path, const char *header,
		       http_sink sink, void *ctx, uint64_t max,
		       const volatile sig_atomic_t *stop, long idle_s,
		       struct http_response *resp);

/* Frees what resp holds; it can be reused.  NULL is a no-op. */
void http_response_release(struct http_response *resp);

#endif
