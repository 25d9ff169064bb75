/*
 * Reader of recorded `getevent` output: `getevent -lt` (labelled) and
 * `getevent -t` (hex), with or without the "/dev/input/eventN: " prefix,
 * with "add device"/"name:" headers, `-p` capability blocks, `-r` rate
 * suffixes, trailing spaces and CRLF line ends, and several devices in one
 * log.  Only one device is replayed: the one given, or else the touch
 * screen found from the events each device emits: the device with the most
 * multitouch events (positions, tracking ids, slots) or a `-p` block that
 * lists ABS_MT_POSITION_X, a "uinput" virtual device only when nothing
 * else qualifies.  Unprefixed events with a single "add device" header
 * (`getevent -p DEV` then `getevent -lt DEV`) are that device's.
 *
 * A log without timestamps (`getevent -l` or plain `getevent`) is refused:
 * its events cannot be placed in time.  Lines that do not parse, lines
 * with an unknown label and, in a timestamped log, event lines without a
 * stamp are skipped and counted, never fatal.  An empty log is not an
 * error: it has no events.
 *
 * The chosen device's time must not go back: a log recorded twice into
 * one file, or out of order, would replay its taps twice or against the
 * wrong frames.  Its events end before the first one that goes back, and
 * input_getevent_next() then says where.  Other devices' times are not
 * checked: their events are not replayed, and a device's clock is its own.
 */
#ifndef TAPD_INPUT_GETEVENT_H
#define TAPD_INPUT_GETEVENT_H

#include <stddef.h>
#include <stdint.h>

#include "touch.h"

struct input_getevent;

/* Where the chosen device's time went back first. */
struct input_getevent_jump {
	uint64_t line;	 /* the line of the event that went back, from 1 */
	int64_t from_ns; /* the time of the device's event before it */
	int64_t to_ns;	 /* its own time, less than from_ns */
};

struct input_getevent_stats {
	uint64_t lines;	       /* lines read, blank ones included */
	uint64_t events;       /* chosen device's events replayed */
	uint64_t other_events; /* event lines of other devices */
	uint64_t skipped;      /* lines that did not parse */
	unsigned devices;      /* devices seen in the log */
	uint64_t backwards;    /* chosen device's times that went back */
	uint64_t unknown;      /* skipped: an unknown label */
	uint64_t untimed;      /* skipped: an event without a timestamp */
	uint64_t too_long;     /* skipped: longer than the line limit */
};

/* An axis range read from a `getevent -p` block in the log. */
struct input_getevent_axis {
	int32_t min, max;
};

/*
 * Reads the log at path and chooses the device.  The file is read in
 * chunks, once, so a pipe works as well as a file; only the line being
 * read is held (a line over 4096 bytes is skipped and counted, never held
 * whole), and memory grows with the events kept, not with the text.
 * device is a "/dev/input/eventN" path that selects one device, or NULL to
 * pick the touch screen.  Returns 0 and sets *out, or a negative errno
 * after logging why: -ENOENT and friends for the file, -EFBIG for a log
 * over 1 GiB, -EINVAL for a log without timestamps or without one
 * getevent line in its first 64 MiB (/dev/zero, a binary file), -ENODEV
 * when the device is not in the log or none of the devices is a touch
 * screen, -ENOMEM.  Free with input_getevent_free().
 */
int input_getevent_open(const char *path, const char *device,
			struct input_getevent **out);

/*
 * The same over a buffer in memory, which need not outlive the call; name
 * is used in messages.
 */
int input_getevent_open_mem(const char *buf, size_t len, const char *name,
			    const char *device, struct input_getevent **out);

/* NULL is a no-op. */
void input_getevent_free(struct input_getevent *g);

/*
 * Returns the next event of the chosen device in log order: 1 and fills
 * *ev, 0 at the end of the log.  When the device's time went back, the
 * events end before the jump and the call after the last one logs an
 * error that names the log, the line and the jump, and returns -ERANGE
 * (then 0).
 */
int input_getevent_next(struct input_getevent *g, struct touch_event *ev);

/*
 * The range of axis code (ABS_MT_POSITION_X, ...) of the chosen device if
 * the log carried a `getevent -p` block for it: returns 0 and fills *axis,
 * or -ENOENT.
 */
int input_getevent_get_axis(const struct input_getevent *g, uint16_t code,
			    struct input_getevent_axis *axis);

/*
 * The earliest and latest event times of the chosen device: returns 0, or
 * -ENOENT when it has no events.
 */
int input_getevent_time_range(const struct input_getevent *g, int64_t *first,
			      int64_t *last);

/*
 * Where the chosen device's time went back first: returns 0 and fills *j,
 * or -ENOENT when it never did.
 */
int input_getevent_get_jump(const struct input_getevent *g,
			    struct input_getevent_jump *j);

/* The chosen device's path ("" when the log names no device). */
const char *input_getevent_device(const struct input_getevent *g);

/* The chosen device's name from an "add device" header, or NULL. */
const char *input_getevent_device_name(const struct input_getevent *g);

/* Counters over the whole log, final from the start. */
void input_getevent_get_stats(const struct input_getevent *g,
			      struct input_getevent_stats *st);

#endif
