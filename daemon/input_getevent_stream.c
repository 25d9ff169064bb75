/*
 * A live getevent stream: the log reader's line parser fed from a pipe as
 * the lines come (input_getevent_stream.h).
 */
#include "input_getevent_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_getevent_int.h"
#include "input_getevent_line.h"
#include "log.h"

/* Read this much at a time: a few hundred events. */
#define STREAM_CHUNK 16384

struct input_getevent_stream {
	struct input_getevent *g; /* the line parser's state */
	int fd;
	int touch; /* index in g->devs of the touch screen, -1 until seen */
	int64_t last_ns;
	uint64_t events;
	uint64_t other;
	uint64_t backwards;
	char buf[STREAM_CHUNK];
};

static int
is_mt_code(uint16_t code)
{
	return code >= ABS_MT_SLOT && code <= ABS_MT_TOOL_Y;
}

int
input_getevent_stream_open(const char *path, struct input_getevent_stream **out)
{
	struct input_getevent_stream *s;
	const char *open_path;
	struct stat sb;
	int r;

	*out = NULL;
	/* Standard input opened anew, for reading and writing. */
	open_path = strcmp(path, "-") == 0 ? "/proc/self/fd/0" : path;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->touch = -1;
	s->last_ns = INT64_MIN;
	s->fd = open(open_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0) {
		r = -errno;
		log_warn("cannot open the getevent stream '%s'", path);
		free(s);
		return r;
	}
	if (fstat(s->fd, &sb) < 0 || !S_ISFIFO(sb.st_mode)) {
		log_warnx("the getevent stream '%s' is not a pipe or a FIFO; "
			  "replay a recorded log with 'tapd replay'",
			  path);
		input_getevent_stream_free(s);
		return -EINVAL;
	}
	s->g = calloc(1, sizeof(*s->g));
	if (s->g)
		s->g->name = strdup(path);
	if (s->g == NULL || s->g->name == NULL) {
		input_getevent_stream_free(s);
		return -ENOMEM;
	}
	s->g->chosen = -1;
	s->g->cur_dev = -1;
	s->g->last_dev = -1;
	s->g->cap_type = -1;
	*out = s;
	return 0;
}

int
input_getevent_stream_fd(const struct input_getevent_stream *s)
{
	return s->fd;
}

/*
 * The events parsed so far, to cb: the touch screen is the device of the
 * first multitouch event.  The parser's event array is emptied.
 */
static int
deliver(struct input_getevent_stream *s,
	int (*cb)(void *ctx, const struct touch_event *ev), void *ctx)
{
	struct input_getevent *g = s->g;
	struct touch_event ev;
	size_t i;
	int r = 0;

	for (i = 0; s->touch < 0 && i < g->nev; i++)
		if (g->ev[i].type == EV_ABS && is_mt_code(g->ev[i].code)) {
			s->touch = g->ev_dev[i];
			log_info("reading touch screen events from the "
				 "getevent stream '%s'",
				 g->name);
		}
	for (i = 0; r == 0 && i < g->nev; i++) {
		if (s->touch < 0 || g->ev_dev[i] != s->touch) {
			s->other++;
			continue;
		}
		ev = g->ev[i];
		if (ev.time_ns < s->last_ns) {
			if (s->backwards++ == 0)
				log_warnx("the getevent stream '%s' went back "
					  "in time; such events keep the time "
					  "of the one before",
					  g->name);
			ev.time_ns = s->last_ns;
		}
		s->last_ns = ev.time_ns;
		s->events++;
		r = cb(ctx, &ev);
	}
	g->nev = 0;
	return r;
}

int
input_getevent_stream_read(struct input_getevent_stream *s,
			   int (*cb)(void *ctx, const struct touch_event *ev),
			   void *ctx)
{
	ssize_t n;
	int r;

	for (;;) {
		n = read(s->fd, s->buf, sizeof(s->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0) {
			r = -errno;
			log_warn("cannot read the getevent stream '%s'",
				 s->g->name);
			return r;
		}
		/* O_RDWR: no end of file while the fd is open. */
		if (n == 0)
			return 0;
		r = input_getevent_line_feed(s->g, s->buf, (size_t)n);
		if (r == 0)
			r = deliver(s, cb, ctx);
		if (r < 0 || (size_t)n < sizeof(s->buf))
			return r;
	}
}

void
input_getevent_stream_get_stats(const struct input_getevent_stream *s,
				struct input_getevent_stream_stats *st)
{
	st->lines = s->g->lineno;
	st->events = s->events;
	st->skipped = s->g->st.skipped;
	st->other = s->other;
	st->backwards = s->backwards;
}

const char *
input_getevent_stream_name(const struct input_getevent_stream *s)
{
	return s->g->name;
}

void
input_getevent_stream_free(struct input_getevent_stream *s)
{
	if (s == NULL)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->g) {
		free(s->g->ev);
		free(s->g->ev_dev);
		free(s->g->name);
		free(s->g->part);
		free(s->g);
	}
	free(s);
}
