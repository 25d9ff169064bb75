#include "http.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"

/* The body of an error status kept while streaming: enough for a message. */
#define HTTP_MAX_ERROR_BODY ((size_t)1 << 20)

struct http {
	CURL *curl;
	char *url;
	struct curl_slist *get_headers;
	struct curl_slist *post_headers;
	long timeout_ms;
	char errbuf[CURL_ERROR_SIZE];
};

/* One transfer in progress: where its body goes. */
struct http_xfer {
	CURL *curl;
	struct http_response *resp;
	size_t cap;	/* allocated bytes of resp->body */
	size_t max;	/* cap of the body kept in memory */
	http_sink sink; /* NULL: keep everything in memory */
	void *ctx;
	uint64_t max_stream;
	const volatile sig_atomic_t *stop;
	int decided; /* streaming or keeping, by status */
	int streaming;
	int too_large;
	int sink_stopped;
};

static int http_global_done;

static void http_fail(struct http_response *resp, enum http_fail fail,
		      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
http_fail(struct http_response *resp, enum http_fail fail, const char *fmt, ...)
{
	va_list ap;

	resp->fail = fail;
	va_start(ap, fmt);
	/* A cut message is still a message. */
	if (vsnprintf(resp->error, sizeof(resp->error), fmt, ap) < 0)
		resp->error[0] = '\0';
	va_end(ap);
}

static int
http_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20u || *s == 0x7f)
			return 1;
	return 0;
}

static struct curl_slist *
http_header(struct curl_slist *list, const char *text, int *failed)
{
	struct curl_slist *l;

	if (*failed)
		return list;
	if ((l = curl_slist_append(list, text)) == NULL) {
		*failed = 1;
		return list;
	}
	return l;
}

int
http_new(const char *base_url, const char *token, long timeout_ms,
	 struct http **out)
{
	struct http *h = NULL;
	char *auth = NULL;
	size_t len, n;
	int failed = 0, rc = -ENOMEM;

	if (base_url == NULL || timeout_ms <= 0 ||
	    (strncmp(base_url, "http://", 7) != 0 &&
	     strncmp(base_url, "https://", 8) != 0) ||
	    http_has_control(base_url) || strchr(base_url, ' ') != NULL ||
	    (token != NULL && (http_has_control(token) || *token == '\0')))
		return -EINVAL;
	if (!http_global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return -ENOMEM;
		http_global_done = 1;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL)
		goto out;
	h->timeout_ms = timeout_ms;
	if ((h->url = strdup(base_url)) == NULL)
		goto out;
	len = strlen(h->url);
	while (len > 0 && h->url[len - 1] == '/')
		h->url[--len] = '\0';
	if ((h->curl = curl_easy_init()) == NULL)
		goto out;
	if (token != NULL) {
		n = strlen(token) + sizeof("Authorization: Bearer ");
		if ((auth = malloc(n)) == NULL)
			goto out;
		if (snprintf(auth, n, "Authorization: Bearer %s", token) !=
		    (int)n - 1)
			goto out;
		h->get_headers = http_header(h->get_headers, auth, &failed);
		h->post_headers = http_header(h->post_headers, auth, &failed);
	}
	h->post_headers = http_header(
		h->post_headers, "Content-Type: application/json", &failed);
	/* The bodies are tiny: no 100-continue round trip. */
	h->post_headers = http_header(h->post_headers, "Expect:", &failed);
	if (failed)
		goto out;
	*out = h;
	h = NULL;
	rc = 0;
out:
	if (auth != NULL) {
		/* The token should not linger in freed memory. */
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	http_free(h);
	return rc;
}

void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	if (h->curl != NULL)
		curl_easy_cleanup(h->curl);
	curl_slist_free_all(h->get_headers);
	curl_slist_free_all(h->post_headers);
	free(h->url);
	free(h);
}

const char *
http_url(const struct http *h)
{
	return h->url;
}

int
http_query_add(struct http *h, char **q, const char *name, const char *value)
{
	char *esc, *s;
	size_t old, n;

	if (value == NULL)
		return 0;
	if ((esc = curl_easy_escape(h->curl, value, 0)) == NULL)
		goto fail;
	old = *q ? strlen(*q) : 0;
	n = old + strlen(name) + strlen(esc) + 3;
	if ((s = realloc(*q, n)) == NULL) {
		curl_free(esc);
		goto fail;
	}
	if (snprintf(s + old, n - old, "%s%s=%s", old ? "&" : "?", name, esc) !=
	    (int)(n - old) - 1) {
		curl_free(esc);
		*q = s;
		goto fail;
	}
	curl_free(esc);
	*q = s;
	return 0;
fail:
	free(*q);
	*q = NULL;
	return -ENOMEM;
}

static int
http_keep(struct http_xfer *x, const char *data, size_t n)
{
	struct http_response *r = x->resp;
	size_t cap;
	char *body;

	if (n > x->max - r->len) {
		x->too_large = 1;
		return -1;
	}
	if (r->len + n + 1 > x->cap) {
		cap = x->cap ? x->cap : 16384;
		while (cap < r->len + n + 1)
			cap *= 2;
		if ((body = realloc(r->body, cap)) == NULL)
			return -1;
		r->body = body;
		x->cap = cap;
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
	r->body[r->len] = '\0';
	return 0;
}

static size_t
http_write(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct http_xfer *x = ctx;
	size_t n = size * nmemb;
	long status = 0;

	if (x->sink != NULL && !x->decided) {
		curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &status);
		x->streaming = status >= 200 && status < 300;
		x->decided = 1;
	}
	if (x->streaming) {
		if (x->max_stream != 0 &&
		    n > x->max_stream - x->resp->streamed) {
			x->too_large = 1;
			return 0;
		}
		if (x->sink(x->ctx, data, n) < 0) {
			x->sink_stopped = 1;
			return 0;
		}
		x->resp->streamed += n;
		return n;
	}
	return http_keep(x, data, n) < 0 ? 0 : n;
}

static int
http_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow,
	      curl_off_t ultotal, curl_off_t ulnow)
{
	struct http_xfer *x = ctx;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return x->stop != NULL && *x->stop ? 1 : 0;
}

static char *
http_full_url(const struct http *h, const char *path)
{
	size_t n = strlen(h->url) + strlen(path) + 1;
	char *s;

	if ((s = malloc(n)) == NULL)
		return NULL;
	if (snprintf(s, n, "%s%s", h->url, path) != (int)n - 1) {
		free(s);
		return NULL;
	}
	return s;
}

/*
 * The schemes tapctl may follow: http, and https where libcurl has TLS.
 * A libcurl built without it (the static Android build, which only talks
 * to 127.0.0.1) refuses a list that names https.
 */
static const char *
http_protocols(void)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
	const char *const *p;

	for (p = v && v->protocols ? v->protocols : NULL; p && *p; p++) {
		if (strcmp(*p, "https") == 0)
			return "http,https";
	}
	return "http";
}

/* Sets what every transfer shares; returns a curl code. */
static CURLcode
http_setup(struct http *h, const char *url, struct http_xfer *x)
{
	CURL *c = h->curl;
	CURLcode rc = CURLE_OK;
	char agent[128];

	/* The build's version, as tapctl --version says it (curl copies it). */
	snprintf(agent, sizeof(agent), "tapctl/%s", tapd_version);
	curl_easy_reset(c);
	h->errbuf[0] = '\0';
#define HTTP_SET(opt, val)                                                     \
	do {                                                                   \
		if (rc == CURLE_OK)                                            \
			rc = curl_easy_setopt(c, opt, val);                    \
	} while (0)
	HTTP_SET(CURLOPT_URL, url);
	HTTP_SET(CURLOPT_PROTOCOLS_STR, http_protocols());
	HTTP_SET(CURLOPT_FOLLOWLOCATION, 0L);
	HTTP_SET(CURLOPT_PROXY, "");
	HTTP_SET(CURLOPT_NOSIGNAL, 1L);
	HTTP_SET(CURLOPT_USERAGENT, agent);
	HTTP_SET(CURLOPT_ERRORBUFFER, h->errbuf);
	HTTP_SET(CURLOPT_CONNECTTIMEOUT_MS, h->timeout_ms);
	HTTP_SET(CURLOPT_WRITEFUNCTION, http_write);
	HTTP_SET(CURLOPT_WRITEDATA, x);
	HTTP_SET(CURLOPT_NOPROGRESS, 0L);
	HTTP_SET(CURLOPT_XFERINFOFUNCTION, http_progress);
	HTTP_SET(CURLOPT_XFERINFODATA, x);
	HTTP_SET(CURLOPT_HTTPHEADER, h->get_headers);
	return rc;
}

static void
http_content_type(CURL *c, struct http_response *resp)
{
	char *ct = NULL;

	resp->content_type[0] = '\0';
	if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK &&
	    ct != NULL)
		if (snprintf(resp->content_type, sizeof(resp->content_type),
			     "%s", ct) >= (int)sizeof(resp->content_type))
			/* Too long to be one of the API's: matches none. */
			resp->content_type[0] = '\0';
}

/* Turns the outcome of curl_easy_perform() into resp; returns 0 or -EIO. */
static int
http_finish(struct http *h, struct http_xfer *x, CURLcode rc)
{
	struct http_response *resp = x->resp;
	const char *why = h->errbuf[0] ? h->errbuf : curl_easy_strerror(rc);
	double connect_time = 0;
	long port = 0;

	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &resp->status);
	http_content_type(h->curl, resp);
	switch (rc) {
	case CURLE_OK:
		if (resp->status == 0) {
			http_fail(resp, HTTP_BROKEN, "no HTTP response");
			return -EIO;
		}
		return 0;
	case CURLE_WRITE_ERROR:
		if (x->too_large) {
			http_fail(resp, HTTP_TOO_LARGE,
				  "the response is larger than %llu bytes",
				  x->streaming
					  ? (unsigned long long)x->max_stream
					  : (unsigned long long)x->max);
		} else if (x->sink_stopped) {
			http_fail(resp, HTTP_ABORTED, "stopped");
		} else {
			http_fail(resp, HTTP_BROKEN, "out of memory");
		}
		return -EIO;
	case CURLE_ABORTED_BY_CALLBACK:
		http_fail(resp, HTTP_ABORTED, "interrupted");
		return -EIO;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
		http_fail(resp, HTTP_CONNECT, "%s", why);
		return -EIO;
	case CURLE_OPERATION_TIMEDOUT:
		/* Before the connection was made, it is a connect failure. */
		curl_easy_getinfo(h->curl, CURLINFO_CONNECT_TIME,
				  &connect_time);
		curl_easy_getinfo(h->curl, CURLINFO_PRIMARY_PORT, &port);
		http_fail(resp,
			  connect_time > 0 || port > 0 ? HTTP_TIMEOUT
						       : HTTP_CONNECT,
			  "%s", why);
		return -EIO;
	default:
		http_fail(resp, HTTP_BROKEN, "%s", why);
		return -EIO;
	}
}

static void
http_response_init(struct http_response *resp)
{
	memset(resp, 0, sizeof(*resp));
}

int
http_request(struct http *h, const char *method, const char *path,
	     const char *body, struct http_response *resp)
{
	struct http_xfer x;
	CURLcode rc;
	char *url;
	int post = strcmp(method, "POST") == 0;

	http_response_init(resp);
	memset(&x, 0, sizeof(x));
	x.curl = h->curl;
	x.resp = resp;
	x.max = HTTP_MAX_BODY;
	if ((url = http_full_url(h, path)) == NULL) {
		http_fail(resp, HTTP_BROKEN, "out of memory");
		return -EIO;
	}
	rc = http_setup(h, url, &x);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS,
				      h->timeout_ms);
	if (rc == CURLE_OK && post) {
		rc = curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER,
				      h->post_headers);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS,
					      body ? body : "");
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE,
					      (long)(body ? strlen(body) : 0));
	}
	if (rc == CURLE_OK)
		rc = curl_easy_perform(h->curl);
	free(url);
	if (rc == CURLE_OK && resp->body == NULL) {
		/* An empty body is still a body: callers may print it. */
		resp->body = calloc(1, 1);
		if (resp->body == NULL) {
			http_fail(resp, HTTP_BROKEN, "out of memory");
			return -EIO;
		}
	}
	return http_finish(h, &x, rc);
}

int
http_stream(struct http *h, const char *path, http_sink sink, void *ctx,
	    uint64_t max, const volatile sig_atomic_t *stop, long idle_s,
	    struct http_response *resp)
{
	return http_stream_header(h, path, NULL, sink, ctx, max, stop, idle_s,
				  resp);
}

/* The headers of every GET, and header after them (NULL: none added). */
static struct curl_slist *
http_headers_with(const struct http *h, const char *header, int *failed)
{
	struct curl_slist *list = NULL;
	const struct curl_slist *l;

	for (l = h->get_headers; l != NULL; l = l->next)
		list = http_header(list, l->data, failed);
	list = http_header(list, header, failed);
	return list;
}

/* Frees a list of http_headers_with(), its token copy wiped first. */
static void
http_headers_free(struct curl_slist *list)
{
	struct curl_slist *l;

	for (l = list; l != NULL; l = l->next)
		memset(l->data, 0, strlen(l->data));
	curl_slist_free_all(list);
}

int
http_stream_header(struct http *h, const char *path, const char *header,
		   http_sink sink, void *ctx, uint64_t max,
		   const volatile sig_atomic_t *stop, long idle_s,
		   struct http_response *resp)
{
	struct curl_slist *headers = NULL;
	struct http_xfer x;
	int failed = 0;
	CURLcode rc;
	char *url;

	http_response_init(resp);
	if (header != NULL && http_has_control(header))
		return -EINVAL;
	memset(&x, 0, sizeof(x));
	x.curl = h->curl;
	x.resp = resp;
	x.max = HTTP_MAX_ERROR_BODY;
	x.sink = sink;
	x.ctx = ctx;
	x.max_stream = max;
	x.stop = stop;
	if (header != NULL)
		headers = http_headers_with(h, header, &failed);
	if (failed || (url = http_full_url(h, path)) == NULL) {
		http_headers_free(headers);
		http_fail(resp, HTTP_BROKEN, "out of memory");
		return -EIO;
	}
	rc = http_setup(h, url, &x);
	if (rc == CURLE_OK && headers != NULL)
		rc = curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, headers);
	if (rc == CURLE_OK && idle_s > 0) {
		/* Less than a byte a second for idle_s: the server is gone. */
		rc = curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_TIME,
					      idle_s);
	}
	if (rc == CURLE_OK)
		rc = curl_easy_perform(h->curl);
	free(url);
	/* The handle keeps the list's address: it must not point at freed. */
	if (headers != NULL)
		curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->get_headers);
	http_headers_free(headers);
	if (rc == CURLE_OK && !x.streaming && resp->body == NULL) {
		resp->body = calloc(1, 1);
		if (resp->body == NULL) {
			http_fail(resp, HTTP_BROKEN, "out of memory");
			return -EIO;
		}
	}
	return http_finish(h, &x, rc);
}

void
http_response_release(struct http_response *resp)
{
	if (resp == NULL)
		return;
	free(resp->body);
	http_response_init(resp);
}
