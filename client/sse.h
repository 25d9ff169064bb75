/*
 * A parser of server-sent events (the text/event-stream format of the
 * HTML standard), for tail: bytes go in as they arrive, in pieces of any
 * size, and each complete event comes out through a callback with its
 * type, its id and its data.  Comments (the keep-alives) are skipped; the
 * retry field is kept for sse_retry_ms().  Lines are bounded: one longer
 * than SSE_MAX_LINE is an error, never an unbounded allocation.
 */
#ifndef TAPCTL_SSE_H
#define TAPCTL_SSE_H

#include <stddef.h>

#define SSE_MAX_LINE ((size_t)1 << 20)

/* The longest event id kept; a longer one is ignored, as one with a NUL. */
#define SSE_MAX_ID 63

/*
 * Receives one event: its type ("" when the stream named none), its id
 * (the last id field seen, by this event or one before it, as the
 * standard's "last event ID"; "" when none) and its data lines joined by
 * '\n' (NUL-terminated, len bytes).  Returns 0 to go on, or a negative
 * errno to stop: sse_feed() returns it.
 */
typedef int (*sse_event_fn)(void *ctx, const char *type, const char *id,
			    const char *data, size_t len);

struct sse;

/* Returns 0 and sets *out, or -ENOMEM.  Free with sse_free(). */
int sse_new(sse_event_fn fn, void *ctx, struct sse **out);

/* NULL is a no-op. */
void sse_free(struct sse *p);

/*
 * Feeds bytes.  Returns 0, -E2BIG for a line or an event past
 * SSE_MAX_LINE, -ENOMEM, or the callback's error.
 */
int sse_feed(struct sse *p, const char *buf, size_t len);

/*
 * Starts on a new stream of the same source (a reconnection): a line or
 * an event left incomplete is dropped; the last event id and the retry
 * delay are kept, as the standard keeps them.
 */
void sse_restart(struct sse *p);

/* The last retry field's delay in ms, or -1 when none came. */
long sse_retry_ms(const struct sse *p);

#endif
