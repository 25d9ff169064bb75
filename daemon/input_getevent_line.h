/*
 * The line reader of recorded getevent output (input_getevent.h): device
 * headers, `-p` capability blocks and event lines.
 */
#ifndef TAPD_INPUT_GETEVENT_LINE_H
#define TAPD_INPUT_GETEVENT_LINE_H

#include <stddef.h>

#include "input_getevent_int.h"

/*
 * Reads the next part of the log, buf[0..len), into g: its devices, and
 * the events of every device in log order.  A line may be split across
 * calls; only its first GETEVENT_LINE_MAX + 1 bytes are held, and a longer
 * one is skipped and counted.  Lines that do not parse are skipped and
 * counted.  Returns 0 or -ENOMEM.
 */
int input_getevent_line_feed(struct input_getevent *g, const char *buf,
			     size_t len);

/* Reads the last line if it has no newline.  Returns 0 or -ENOMEM. */
int input_getevent_line_end(struct input_getevent *g);

/* The whole log at once: feed, then end. */
int input_getevent_line_parse(struct input_getevent *g, const char *buf,
			      size_t len);

/*
 * A stamped event line parsed (by the line reader or its fast path,
 * input_getevent_fast.h): the event kept for the device at path and
 * counted.  Returns 1, or a negative errno.
 */
int input_getevent_line_keep(struct input_getevent *g, const char *path,
			     const struct touch_event *parsed, int64_t ns);

/* The index in g->devs of the device at path, or -1. */
int input_getevent_line_find_dev(struct input_getevent *g, const char *path);

#endif
