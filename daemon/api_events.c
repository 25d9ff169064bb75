#include "api_events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "api_request.h"
#include "events.h"
#include "parse.h"

#define API_EVENTS_PING_MS     15000
#define API_EVENTS_PING_MIN_MS 100
#define API_EVENTS_PING_MAX_MS 3600000
/*
 * The longest a read blocks without looking at the stop flag: shutdown
 * must not wait for the next event or ping.
 */
#define API_EVENTS_SLICE_MS 250
/*
 * Streams have a cap of their own, far below the connection limit: a
 * crowd of them, readers or not, still leaves the other routes room.
 */
#define API_EVENTS_MAX_STREAMS 64

static const char *const api_events_params[] = {NULL};

struct api_events_stream {
	struct api_request *rq;
	struct events *ev;
	uint64_t seq;
	int ping_ms;
	int64_t last_write_ms; /* CLOCK_MONOTONIC */
	/* The text being sent: one event or comment at a time. */
	char *buf;
	size_t len, off;
};

static int64_t
api_events_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
api_events_ping_ms(void)
{
	const char *v = getenv("TAPD_SSE_PING_MS");
	int64_t ms;

	if (v && parse_int64(v, API_EVENTS_PING_MIN_MS, API_EVENTS_PING_MAX_MS,
			     &ms) == 0)
		return (int)ms;
	return API_EVENTS_PING_MS;
}

/* Makes s->buf the next text to send; takes text (malloc'd). */
static void
api_events_set(struct api_events_stream *s, char *text)
{
	free(s->buf);
	s->buf = text;
	s->len = strlen(text);
	s->off = 0;
}

static char *
api_events_format_tap(uint64_t id, char *json)
{
	char *text, *p;

	/*
	 * A line break would end the data field early.  JSON has none
	 * inside its strings (they are escaped), so outside them a space
	 * is the same JSON.
	 */
	for (p = json; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	if (asprintf(&text, "id: %" PRIu64 "\nevent: tap\ndata: %s\n\n", id,
		     json) < 0)
		return NULL;
	return text;
}

/*
 * True once the client has closed its end or the connection failed.  A
 * peek consumes nothing, and a client that closed is noticed within a
 * slice, not at the next write (up to a ping interval later).
 */
static bool
api_events_peer_gone(const struct api_events_stream *s)
{
	int fd = api_request_fd(s->rq);
	ssize_t n;
	char c;

	if (fd < 0)
		return false;
	n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == 0)
		return true;
	return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
	       errno != EINTR;
}

static ssize_t
api_events_read(void *ctx, uint64_t pos, char *buf, size_t max)
{
	struct api_events_stream *s = ctx;
	uint64_t missed = 0;
	int64_t now, due;
	char *json = NULL, *text;
	size_t n;
	int rc, wait;

	(void)pos;
	for (;;) {
		if (s->off < s->len) {
			n = s->len - s->off;
			if (n > max)
				n = max;
			memcpy(buf, s->buf + s->off, n);
			s->off += n;
			s->last_write_ms = api_events_now_ms();
			return (ssize_t)n;
		}
		if (api_request_stopping(s->rq))
			return API_STREAM_END;
		if (api_events_peer_gone(s))
			return API_STREAM_ERROR;
		now = api_events_now_ms();
		due = s->last_write_ms + s->ping_ms;
		if (now >= due) {
			text = strdup(": ping\n\n");
			if (!text)
				return API_STREAM_ERROR;
			api_events_set(s, text);
			continue;
		}
		wait = due - now < API_EVENTS_SLICE_MS ? (int)(due - now)
						       : API_EVENTS_SLICE_MS;
		rc = events_wait(s->ev, &s->seq, wait, &json, &missed);
		if (rc == 0)
			continue;
		if (rc == -ESHUTDOWN)
			return API_STREAM_END;
		if (rc == -ENOBUFS) {
			if (asprintf(
				    &text,
				    "event: missed\ndata: {\"missed\": %" PRIu64
				    "}\n\n",
				    missed) < 0)
				return API_STREAM_ERROR;
			api_events_set(s, text);
			continue;
		}
		if (rc < 0)
			return API_STREAM_ERROR;
		/* events_wait moved seq past the event it gave. */
		text = api_events_format_tap(s->seq - 1, json);
		free(json);
		if (!text)
			return API_STREAM_ERROR;
		api_events_set(s, text);
	}
}

static void
api_events_done(void *ctx)
{
	struct api_events_stream *s = ctx;

	free(s->buf);
	free(s);
}

int
api_events_get(struct api_request *rq)
{
	struct api_events_stream *s;
	const char *last;
	struct events *ev;
	uint64_t head;
	int64_t id;
	int rc;

	rc = api_request_allow(rq, api_events_params);
	if (rc < 0)
		return rc;
	ev = api_request_events(rq);
	if (!ev) {
		api_request_reply_error(
			rq, 409, "conflict",
			"no live taps here: this tapd serves a database "
			"read-only; /v1/events streams taps as the daemon "
			"that records them finalizes them");
		return -ENOENT;
	}
	if (api_request_streams(rq) >= API_EVENTS_MAX_STREAMS) {
		api_request_reply_error(
			rq, 503, "unavailable",
			"too many event streams: %d are open, the most this "
			"server keeps; close one and retry",
			API_EVENTS_MAX_STREAMS);
		return -EBUSY;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->rq = rq;
	s->ev = ev;
	s->ping_ms = api_events_ping_ms();
	head = events_head(ev);
	s->seq = head;
	/*
	 * A reconnecting browser sends the last id it saw: go on right
	 * after it, when it is one this stream could have sent.
	 */
	last = api_request_header(rq, "Last-Event-ID");
	if (last && parse_int64(last, 0, INT64_MAX, &id) == 0 &&
	    (uint64_t)id < head)
		s->seq = (uint64_t)id + 1;
	/*
	 * Something to send at once: the client sees the headers now, not
	 * at the first tap or ping.
	 */
	s->buf = strdup(": tapd events\n\n");
	if (!s->buf) {
		free(s);
		return -ENOMEM;
	}
	s->len = strlen(s->buf);
	s->last_write_ms = api_events_now_ms();
	/*
	 * The idle timeout is for connections that send nothing; a stream
	 * waits between keep-alives by design, and a client gone is seen
	 * by api_events_peer_gone().
	 */
	api_request_no_timeout(rq);
	return api_request_reply_stream(rq, "text/event-stream; charset=utf-8",
					api_events_read, api_events_done, s);
}
