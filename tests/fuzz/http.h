/*
 * The HTTP side of the API fuzz targets: one exchange over a loopback
 * socket, read to the end, and the checks every answer must pass: a
 * status line, headers, a body of the length announced (or a well-formed
 * chunked one), JSON where the type says JSON, one JSON value a line for
 * NDJSON, and the Prometheus text format for /metrics.  A check that
 * fails aborts, so that the fuzzer reports the input.  Header-only, like
 * util.h.
 */
#ifndef TAPD_FUZZ_HTTP_H
#define TAPD_FUZZ_HTTP_H

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct fuzz_reply {
	int status;
	char *head; /* status line and headers, NUL-terminated */
	char *body; /* decoded (not chunked), NUL-terminated */
	size_t len;
	int stream; /* an event stream, cut short by the client */
};

static inline int64_t
fuzz_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The value of header name in head (case-insensitive), copied to buf. */
static inline const char *
fuzz_header(const char *head, const char *name, char *buf, size_t size)
{
	const char *p = head, *eol;
	size_t nlen = strlen(name);

	while ((p = strstr(p, "\r\n")) != NULL) {
		p += 2;
		if (strncasecmp(p, name, nlen) == 0 && p[nlen] == ':') {
			p += nlen + 1;
			while (*p == ' ')
				p++;
			eol = strstr(p, "\r\n");
			if (!eol)
				abort();
			snprintf(buf, size, "%.*s", (int)(eol - p), p);
			return buf;
		}
	}
	return NULL;
}

/* Decodes a chunked body in place; aborts when it is malformed. */
static inline size_t
fuzz_dechunk(char *buf, size_t len)
{
	size_t in = 0, out = 0, n;
	char *end;

	for (;;) {
		if (in >= len)
			abort();
		n = strtoul(buf + in, &end, 16);
		if (end == buf + in || (size_t)(end - buf) + 2 > len ||
		    end[0] != '\r' || end[1] != '\n')
			abort();
		in = (size_t)(end - buf) + 2;
		if (n == 0)
			break;
		if (n > len - in || len - in - n < 2 || buf[in + n] != '\r' ||
		    buf[in + n + 1] != '\n')
			abort();
		memmove(buf + out, buf + in, n);
		out += n;
		in += n + 2;
	}
	buf[out] = '\0';
	return out;
}

/*
 * Sends req (len bytes) to 127.0.0.1:port and reads the answer to the end
 * of the connection, or, for an event stream, for stream_ms after its
 * headers.  With half_close the sending side is shut once all is sent,
 * for requests that may be incomplete.  Returns 0 and fills *r (free with
 * fuzz_reply_free()), or -1 when the server sent nothing at all.  Aborts
 * when the server holds the connection for wait_ms without an answer.
 */
static inline int
fuzz_http(uint16_t port, const char *req, size_t len, int half_close,
	  int stream_ms, int wait_ms, struct fuzz_reply *r)
{
	struct sockaddr_in sin;
	struct linger lg = {1, 0};
	struct pollfd pfd;
	char *buf = NULL, *end, *tmp, ct[128];
	size_t got = 0, cap = 0, hlen;
	int64_t deadline, stream_end = -1;
	ssize_t n;
	int fd;

	memset(r, 0, sizeof(*r));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		abort();
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		abort();
	/* A reset at close leaves no TIME_WAIT to run out of ports with. */
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	while (len > 0) {
		n = send(fd, req, len, MSG_NOSIGNAL);
		if (n <= 0)
			break; /* the server may answer before reading it all */
		req += n;
		len -= (size_t)n;
	}
	if (half_close)
		shutdown(fd, SHUT_WR);
	deadline = fuzz_now_ms() + wait_ms;
	for (;;) {
		int64_t now = fuzz_now_ms(), until;

		until = stream_end >= 0 ? stream_end : deadline;
		if (now >= until) {
			if (stream_end >= 0)
				break;
			fprintf(stderr, "no answer within %d ms\n", wait_ms);
			abort();
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)(until - now)) <= 0)
			continue;
		if (cap - got < 4096) {
			cap = cap ? cap * 2 : 16384;
			tmp = realloc(buf, cap + 1);
			if (!tmp)
				abort();
			buf = tmp;
		}
		n = recv(fd, buf + got, cap - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
		if (stream_end < 0 && strstr(buf, "\r\n\r\n") &&
		    strstr(buf, "text/event-stream")) {
			r->stream = 1;
			stream_end = fuzz_now_ms() + stream_ms;
		}
	}
	close(fd);
	if (got == 0) {
		free(buf);
		return -1;
	}
	buf[got] = '\0';
	/* A status line, then headers, then the body. */
	if (sscanf(buf, "HTTP/1.%*[01] %d ", &r->status) != 1 ||
	    r->status < 100 || r->status > 599) {
		fprintf(stderr, "not an HTTP answer: %.200s\n", buf);
		abort();
	}
	end = strstr(buf, "\r\n\r\n");
	if (!end)
		abort();
	hlen = (size_t)(end - buf) + 2;
	r->head = strndup(buf, hlen);
	r->len = got - hlen - 2;
	r->body = malloc(r->len + 1);
	if (!r->head || !r->body)
		abort();
	memcpy(r->body, end + 4, r->len);
	r->body[r->len] = '\0';
	free(buf);
	if (r->stream)
		return 0;
	if (fuzz_header(r->head, "Transfer-Encoding", ct, sizeof(ct)) &&
	    strcasecmp(ct, "chunked") == 0)
		r->len = fuzz_dechunk(r->body, r->len);
	return 0;
}

static inline void
fuzz_reply_free(struct fuzz_reply *r)
{
	free(r->head);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

/* A JSON document of len bytes, nothing after it; aborts otherwise. */
static inline void
fuzz_check_json(const char *s, size_t len)
{
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(s, len, &end, 0);

	if (!doc) {
		fprintf(stderr, "invalid JSON: %.300s\n", s);
		abort();
	}
	while (end && (size_t)(end - s) < len &&
	       (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t'))
		end++;
	if (!end || (size_t)(end - s) != len) {
		fprintf(stderr, "JSON followed by more: %.300s\n", s);
		abort();
	}
	cJSON_Delete(doc);
}

/* Valid UTF-8 (no overlongs or surrogates), as JSON and Prometheus need. */
static inline int
fuzz_utf8_ok(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;
	uint32_t c;

	while (i < len) {
		c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, c &= 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, c &= 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, c &= 0x07;
		else
			return 0;
		if (len - i <= n)
			return 0;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			c = (c << 6) | (s[i + k] & 0x3f);
		}
		if ((n == 2 && c < 0x800) || (n == 3 && c < 0x10000) ||
		    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return 0;
		i += n + 1;
	}
	return 1;
}

/* One JSON value a line. */
static inline void
fuzz_check_ndjson(const char *s, size_t len)
{
	const char *p = s, *nl;

	while ((size_t)(p - s) < len) {
		nl = memchr(p, '\n', len - (size_t)(p - s));
		if (!nl)
			abort(); /* every line ends in a newline */
		fuzz_check_json(p, (size_t)(nl - p));
		p = nl + 1;
	}
}

static inline int
fuzz_metric_name_ok(const char **pp)
{
	const char *p = *pp;

	if (!(isalpha((unsigned char)*p) || *p == '_' || *p == ':'))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '_' || *p == ':')
		p++;
	*pp = p;
	return 1;
}

/*
 * The Prometheus text exposition format 0.0.4: "# HELP" and "# TYPE"
 * lines, and samples "name{label="value",...} number"; label values are
 * UTF-8 with \\, \" and \n the only escapes.  Aborts on any other line.
 */
static inline void
fuzz_check_prometheus(const char *s, size_t len)
{
	const char *p = s, *nl, *q;
	char *end;
	char line[8192];
	size_t n;

	if (!fuzz_utf8_ok((const unsigned char *)s, len) || memchr(s, 0, len))
		abort();
	while ((size_t)(p - s) < len) {
		nl = memchr(p, '\n', len - (size_t)(p - s));
		if (!nl)
			abort();
		n = (size_t)(nl - p);
		if (n >= sizeof(line))
			abort();
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl + 1;
		q = line;
		if (n == 0)
			continue;
		if (strncmp(q, "# HELP ", 7) == 0 ||
		    strncmp(q, "# TYPE ", 7) == 0) {
			q += 7;
			if (!fuzz_metric_name_ok(&q) || *q != ' ')
				goto bad;
			continue;
		}
		if (*q == '#')
			continue;
		if (!fuzz_metric_name_ok(&q))
			goto bad;
		if (*q == '{') {
			q++;
			while (*q != '}') {
				if (!fuzz_metric_name_ok(&q) || *q++ != '=' ||
				    *q++ != '"')
					goto bad;
				while (*q != '"') {
					if (*q == '\0')
						goto bad;
					if (*q == '\\') {
						q++;
						if (*q != '\\' && *q != '"' &&
						    *q != 'n')
							goto bad;
					}
					q++;
				}
				q++;
				if (*q == ',')
					q++;
				else if (*q != '}')
					goto bad;
			}
			q++;
		}
		if (*q++ != ' ')
			goto bad;
		if (strcmp(q, "+Inf") != 0 && strcmp(q, "-Inf") != 0 &&
		    strcmp(q, "NaN") != 0) {
			(void)strtod(q, &end);
			if (end == q || (*end != '\0' && *end != ' '))
				goto bad;
		}
	}
	return;
bad:
	fprintf(stderr, "not Prometheus text: '%s'\n", line);
	abort();
}

/*
 * The checks of an answer: JSON for application/json, NDJSON for
 * application/x-ndjson, Prometheus text for text/plain; version=0.0.4.
 * head is whether the request was a HEAD (no body then), raw whether it
 * came from the input as it is.
 */
static inline void
fuzz_check_reply(const struct fuzz_reply *r, int head, int raw)
{
	char ct[160], cl[32];
	size_t len = r->len, want;

	if (r->stream)
		return;
	/*
	 * A raw request may hold several, or make libmicrohttpd 0.9.75 send
	 * the head of its own 400 twice (a malformed Content-Length): what
	 * follows the first head is then an answer again, not a body.
	 */
	if (raw && strncmp(r->body, "HTTP/1.", 7) == 0)
		return;
	if (fuzz_header(r->head, "Content-Length", cl, sizeof(cl)) && !head) {
		want = strtoull(cl, NULL, 10);
		/* Pipelined requests: the next answer follows the body. */
		if (raw && want < len &&
		    strncmp(r->body + want, "HTTP/1.", 7) == 0)
			len = want;
		if (want != len) {
			fprintf(stderr,
				"Content-Length %s, body %zu:\n%s\n%s\n", cl,
				r->len, r->head, r->body);
			abort();
		}
	}
	if (head || r->status == 204 || r->status == 304)
		return;
	if (!fuzz_header(r->head, "Content-Type", ct, sizeof(ct)))
		return;
	if (strncmp(ct, "application/json", 16) == 0) {
		if (!fuzz_utf8_ok((const unsigned char *)r->body, len))
			abort();
		fuzz_check_json(r->body, len);
	} else if (strncmp(ct, "application/x-ndjson", 20) == 0) {
		if (!fuzz_utf8_ok((const unsigned char *)r->body, len))
			abort();
		fuzz_check_ndjson(r->body, len);
	} else if (strncmp(ct, "text/plain; version=0.0.4", 25) == 0) {
		fuzz_check_prometheus(r->body, len);
	}
}

#endif
