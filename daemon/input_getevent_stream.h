/*
 * A live getevent stream (input_getevent.h's reader fed as it runs): the
 * output of `getevent -lt` on the device, piped into `tapd run --input
 * getevent:-` or written into a FIFO, for a device whose touch screen
 * tapd cannot open itself, and for tests on machines without uinput.
 *
 * The stream is a pipe or a FIFO, never a file: it is opened for reading
 * and writing (O_RDWR, which Linux allows on both), so that a writer that
 * goes away leaves it waiting for the next one instead of at an end of
 * file that would always be readable.  Its lines are read as the log
 * reader reads them (input_getevent_line.h); the touch screen is the
 * device of the first multitouch event (ABS_MT_*), and the events of
 * every other device are dropped.  An event whose time goes back is
 * given the time of the one before it and counted, as the evdev source
 * does (input_evdev.h), so that taps reach the pipeline in time order.
 */
#ifndef TAPD_INPUT_GETEVENT_STREAM_H
#define TAPD_INPUT_GETEVENT_STREAM_H

#include <stdint.h>

#include "touch.h"

struct input_getevent_stream;

struct input_getevent_stream_stats {
	uint64_t lines;	    /* lines read */
	uint64_t events;    /* events of the touch screen passed on */
	uint64_t skipped;   /* lines that did not parse */
	uint64_t other;	    /* events of other devices, dropped */
	uint64_t backwards; /* events whose time went back */
};

/*
 * Opens the stream at path, "-" for standard input.  Returns 0 and sets
 * *out, or a negative errno after logging why: -EINVAL when it is not a
 * pipe or a FIFO, -ENOENT and friends for the path, -ENOMEM.
 */
int input_getevent_stream_open(const char *path,
			       struct input_getevent_stream **out);

/* The fd to poll for reading. */
int input_getevent_stream_fd(const struct input_getevent_stream *s);

/*
 * Reads what is ready, without blocking, and hands every event of the
 * touch screen to cb in stream order.  Returns 0, the first negative
 * value cb returned, or a negative errno.
 */
int input_getevent_stream_read(struct input_getevent_stream *s,
			       int (*cb)(void *ctx,
					 const struct touch_event *ev),
			       void *ctx);

void input_getevent_stream_get_stats(const struct input_getevent_stream *s,
				     struct input_getevent_stream_stats *st);

/* The stream's path as given, for messages. */
const char *input_getevent_stream_name(const struct input_getevent_stream *s);

/* NULL is a no-op.  Closes the fd. */
void input_getevent_stream_free(struct input_getevent_stream *s);

#endif
