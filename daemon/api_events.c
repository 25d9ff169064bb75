#include "api_events.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
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
#include "store.h"
#include "store_taps.h"
#include "tapjson.h"

#define API_EVENTS_PING_MS     15000
#define API_EVENTS_PING_MIN_MS 100
#define API_EVENTS_PING_MAX_MS 3600000
/*
 * The longest a stream without a ring (tapd serve) sleeps without looking
 * at the stop flag, and the longest a busy pool is waited for.  A stream
 * on a ring sleeps until a tap, a wake of the ring (the server stopping)
 * or its client leaving, all of which wake it at once: it has no slices.
 */
#define API_EVENTS_SLICE_MS 250
/*
 * Streams have a cap of their own, far below the connection limit: a
 * crowd of them, readers or not, still leaves the other routes room.
 */
#define API_EVENTS_MAX_STREAMS 64
/*
 * Taps per read of the database: a catch-up holds one page of text at a
 * time (tens of KiB), however far back it starts.
 */
#define API_EVENTS_PAGE 64

static const char *const api_events_params[] = {NULL};

struct api_events_stream {
	struct api_request *rq;
	struct events *ev;	 /* NULL: the database alone (tapd serve) */
	struct events_waiter *w; /* its waits on ev */
	bool db;		 /* a database to read */
	bool from_db;		 /* reading it, up to its newest tap */
	int64_t last;		 /* the id of the last tap the client has */
	int64_t poll_ms;	 /* without a ring: when to look again */
	int ping_ms;
	int64_t last_write_ms; /* CLOCK_MONOTONIC */
	/* The text being sent: a comment, an event, or a page of them. */
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
api_events_format_tap(int64_t id, char *json)
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
	if (asprintf(&text, "id: %" PRId64 "\nevent: tap\ndata: %s\n\n", id,
		     json) < 0)
		return NULL;
	return text;
}

static char *
api_events_format_missed(uint64_t missed)
{
	char *text;

	if (asprintf(&text,
		     "event: missed\ndata: {\"missed\": %" PRIu64 "}\n\n",
		     missed) < 0)
		return NULL;
	return text;
}

/* One page of taps read from the database, as the events it becomes. */
struct api_events_page {
	FILE *f;
	int64_t last; /* the id of the last tap written */
	int64_t rows;
};

static int
api_events_row(void *ctx, int64_t id, const struct store_tap *tap)
{
	struct api_events_page *pg = ctx;
	char *json, *text;
	cJSON *obj;

	/*
	 * The store never reuses an id nor leaves one out, so a gap is taps
	 * deleted (by retention) before this client could read them.
	 */
	if (id > pg->last + 1) {
		text = api_events_format_missed((uint64_t)(id - pg->last - 1));
		if (!text)
			return -ENOMEM;
		fputs(text, pg->f);
		free(text);
	}
	/* The very JSON the ingest thread publishes for the same tap. */
	obj = tapjson_new(id, tap);
	json = obj ? cJSON_PrintUnformatted(obj) : NULL;
	cJSON_Delete(obj);
	if (!json)
		return -ENOMEM;
	text = api_events_format_tap(id, json);
	cJSON_free(json);
	if (!text)
		return -ENOMEM;
	fputs(text, pg->f);
	free(text);
	pg->last = id;
	pg->rows++;
	return 0;
}

/*
 * Reads the next page of taps above s->last from the database into
 * s->buf, and ends the reading (from_db) once a page comes short: the
 * newest tap is reached.  The connection goes back to the pool at once,
 * so that a stream holds none while it waits.  Returns 0, -ETIMEDOUT
 * when every connection stayed busy for a slice (try again), or a
 * negative errno.
 */
static int
api_events_read_db(struct api_events_stream *s)
{
	struct api_events_page pg;
	struct store_filter filter;
	struct store *st = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	rc = api_request_store_try(s->rq, API_EVENTS_SLICE_MS, &st);
	if (rc < 0)
		return rc;
	memset(&pg, 0, sizeof(pg));
	pg.last = s->last;
	pg.f = open_memstream(&buf, &len);
	if (!pg.f) {
		rc = -errno;
		goto out;
	}
	store_filter_init(&filter);
	filter.after_id = s->last;
	rc = store_taps_walk(st, &filter, STORE_ORDER_ID, API_EVENTS_PAGE,
			     api_events_row, &pg);
	if (fclose(pg.f) != 0 && rc == 0)
		rc = -ENOMEM;
	pg.f = NULL;
	if (rc < 0)
		goto out;
	s->last = pg.last;
	if (pg.rows < API_EVENTS_PAGE)
		s->from_db = false;
	if (len > 0) {
		api_events_set(s, buf);
		buf = NULL;
	}
out:
	api_request_store_release(s->rq);
	free(buf);
	return rc;
}

/*
 * Sleeps ms (a slice at most), for a stream without a ring to wait on,
 * or less when the client leaves meanwhile.
 */
static void
api_events_sleep(const struct api_events_stream *s, int ms)
{
	struct pollfd pfd;

	if (ms <= 0)
		return;
	pfd.fd = api_request_fd(s->rq);
	pfd.events = POLLRDHUP;
	pfd.revents = 0;
	/* A negative fd is ignored by poll(), which then only sleeps. */
	if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
		return;
}

/*
 * True once the client has closed its end or the connection failed.  A
 * peek consumes nothing.  Between writes the waits watch the socket too
 * (POLLRDHUP), so that a client that closed is noticed at once, not at
 * the next write (up to a ping interval later).
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
	int64_t now, due, after;
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
		if (s->from_db) {
			rc = api_events_read_db(s);
			/* A busy pool waited a slice: look at the flags again.
			 */
			if (rc < 0 && rc != -ETIMEDOUT)
				return API_STREAM_ERROR;
			continue;
		}
		if (!s->ev) {
			wait = due - now < API_EVENTS_SLICE_MS
				       ? (int)(due - now)
				       : API_EVENTS_SLICE_MS;
			if (now >= s->poll_ms) {
				s->poll_ms = now + API_EVENTS_POLL_MS;
				s->from_db = true;
				continue;
			}
			if (s->poll_ms - now < wait)
				wait = (int)(s->poll_ms - now);
			api_events_sleep(s, wait);
			continue;
		}
		after = s->last;
		/* Until the next tap or ping, unless woken or left. */
		rc = events_waiter_wait(s->w, &after, (int)(due - now),
					api_request_fd(s->rq), &json, &missed);
		if (rc == 0)
			continue;
		if (rc == -EPIPE)
			return API_STREAM_ERROR;
		if (rc == -ESHUTDOWN)
			return API_STREAM_END;
		if (rc == -ENOBUFS && s->db) {
			/* The database has what the ring dropped. */
			s->from_db = true;
			continue;
		}
		if (rc == -ENOBUFS) {
			text = api_events_format_missed(missed);
			if (!text)
				return API_STREAM_ERROR;
			s->last = after;
			api_events_set(s, text);
			continue;
		}
		if (rc < 0)
			return API_STREAM_ERROR;
		text = api_events_format_tap(after, json);
		free(json);
		if (!text)
			return API_STREAM_ERROR;
		s->last = after;
		api_events_set(s, text);
	}
}

static void
api_events_done(void *ctx)
{
	struct api_events_stream *s = ctx;

	events_waiter_free(s->w);
	free(s->buf);
	free(s);
}

/*
 * Reads Last-Event-ID into *id: 0 when absent, 1 when it is a tap id,
 * and a queued 400 (-EINVAL) when it is anything else.
 */
static int
api_events_resume_id(struct api_request *rq, int64_t *id)
{
	const char *v, *p;

	v = api_request_header(rq, "Last-Event-ID");
	if (!v)
		return 0;
	/* Digits only: no sign, blank or second number slips through. */
	for (p = v; *p >= '0' && *p <= '9'; p++)
		;
	if (p == v || *p != '\0' || parse_int64(v, 0, INT64_MAX, id) < 0) {
		api_request_reply_error(rq, 400, "bad_request",
					"bad Last-Event-ID '%.64s': it must be "
					"the id of a tap, "
					"a decimal from 0 to %" PRId64,
					v, INT64_MAX);
		return -EINVAL;
	}
	return 1;
}

/*
 * The id of the newest tap stored, where a stream without Last-Event-ID
 * starts: the database's, or the ring's when it is ahead (a server
 * without a database).  On failure the reply is queued.
 */
static int
api_events_newest(struct api_request *rq, struct events *ev, bool db,
		  int64_t *newest)
{
	struct store *st = NULL;
	int64_t id = 0;
	int rc;

	*newest = ev ? events_last_id(ev) : 0;
	if (!db)
		return 0;
	rc = api_request_store(rq, &st);
	if (rc < 0)
		return rc;
	rc = store_taps_last_id(st, &id);
	api_request_store_release(rq);
	if (rc < 0)
		return rc;
	if (id > *newest)
		*newest = id;
	return 0;
}

int
api_events_get(struct api_request *rq)
{
	struct api_events_stream *s;
	struct events *ev;
	int64_t newest, id = 0;
	bool db;
	int rc, resume;

	rc = api_request_allow(rq, api_events_params);
	if (rc < 0)
		return rc;
	resume = api_events_resume_id(rq, &id);
	if (resume < 0)
		return resume;
	ev = api_request_events(rq);
	db = api_request_db_path(rq) != NULL;
	if (!ev && !db) {
		api_request_reply_error(
			rq, 409, "conflict",
			"no taps here: this server has neither a database "
			"nor a daemon recording taps");
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
	rc = api_events_newest(rq, ev, db, &newest);
	if (rc < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->rq = rq;
	s->ev = ev;
	s->db = db;
	if (ev) {
		rc = events_waiter_new(ev, &s->w);
		if (rc < 0) {
			free(s);
			return rc;
		}
	}
	s->ping_ms = api_events_ping_ms();
	s->last = newest;
	/*
	 * A reconnecting client sends the last id it saw: the taps after it
	 * come from the database first.  An id past the newest is not one
	 * of this database's, and waiting for the ids to reach it would
	 * hide every tap until then.
	 */
	if (resume && id < newest) {
		s->last = id;
		s->from_db = db;
	}
	/*
	 * Something to send at once: the client sees the headers now, not
	 * at the first tap or ping.
	 */
	if (asprintf(&s->buf, ": tapd events\nretry: %d\n\n",
		     API_EVENTS_RETRY_MS) < 0) {
		events_waiter_free(s->w);
		free(s);
		return -ENOMEM;
	}
	s->len = strlen(s->buf);
	s->last_write_ms = api_events_now_ms();
	s->poll_ms = s->last_write_ms + API_EVENTS_POLL_MS;
	/*
	 * The idle timeout is for connections that send nothing; a stream
	 * waits between keep-alives by design, and a client gone is seen
	 * by api_events_peer_gone().
	 */
	api_request_no_timeout(rq);
	return api_request_reply_stream(rq, "text/event-stream; charset=utf-8",
					api_events_read, api_events_done, s);
}
