/*
 * The stream of finalized taps, for /v1/events (server-sent events): the
 * ingest thread publishes each tap once it is committed, as a JSON text;
 * any number of readers follow it from where they joined.  A bounded ring:
 * a reader that falls more than the ring behind is told how many it
 * missed rather than blocking the publisher.
 */
#ifndef TAPD_EVENTS_H
#define TAPD_EVENTS_H

#include <stddef.h>
#include <stdint.h>

struct events;

/* capacity: taps kept for slow readers (default 1024 when 0). */
int events_new(unsigned capacity, struct events **out);

/* NULL is a no-op.  No reader may be waiting. */
void events_free(struct events *ev);

/*
 * Publishes one tap (json is copied; one line, no newline).  Never blocks
 * on readers.  Returns 0 or -ENOMEM.
 */
int events_publish(struct events *ev, const char *json);

/* The sequence number the next publish will get; a new reader starts here. */
uint64_t events_head(struct events *ev);

/*
 * Waits up to timeout_ms for the event with sequence number *seq.  Returns
 * 1 and copies it (NUL-terminated, malloc'd, caller frees) into *json,
 * advancing *seq; 0 on timeout; -ESHUTDOWN once events_shutdown() was
 * called; -ENOBUFS when *seq fell out of the ring (then *seq is moved to
 * the oldest kept event and *missed says how many were lost).
 */
int events_wait(struct events *ev, uint64_t *seq, int timeout_ms, char **json,
		uint64_t *missed);

/* Wakes every reader for good: their waits return -ESHUTDOWN. */
void events_shutdown(struct events *ev);

#endif
