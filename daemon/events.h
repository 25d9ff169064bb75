/*
 * The stream of finalized taps, for /v1/events (server-sent events): the
 * ingest thread publishes each tap once it is committed, as a JSON text
 * under its database id; any number of readers follow it, each from the
 * id it has reached.  A bounded ring: a reader that falls more than the
 * ring behind is told so (and can read the rest from the database)
 * rather than blocking the publisher.
 *
 * Ids only grow: the store gives them in commit order (AUTOINCREMENT), and
 * the ring refuses one that is not above the last.  A reader's position
 * is the id of the last tap it has, so a position is the same before and
 * after a daemon restart, in the ring and in the database alike.
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
 * Publishes the tap stored as id (json is copied; one line, no newline).
 * Never blocks on readers.  Returns 0, -EINVAL for a NULL json or an id
 * that is not above every id published before (or not positive), or
 * -ENOMEM.
 */
int events_publish(struct events *ev, int64_t id, const char *json);

/* The id of the last tap published, 0 before any. */
int64_t events_last_id(struct events *ev);

/*
 * Waits up to timeout_ms for the first tap published with an id above
 * *after.  Returns 1, copies its JSON (NUL-terminated, malloc'd, caller
 * frees) into *json and sets *after to its id; 0 on timeout; -ESHUTDOWN
 * once events_shutdown() was called; -ENOBUFS when taps above *after
 * have left the ring already: then *missed says how many (counted by id,
 * at most the number the ring dropped) and *after is moved to just below
 * the oldest tap kept, where a reader that cannot read them elsewhere
 * goes on.
 */
int events_wait(struct events *ev, int64_t *after, int timeout_ms, char **json,
		uint64_t *missed);

/* Wakes every reader for good: their waits return -ESHUTDOWN. */
void events_shutdown(struct events *ev);

/*
 * Wakes every reader once: a wait in progress returns 0 as if it had timed
 * out, and so does the next wait of each waiter (events_waiter_new()) that
 * was not waiting, so that its caller looks at its own flags (a server
 * stopping) without polling them on a timer.
 */
void events_wake(struct events *ev);

/*
 * A reader that waits on an fd of its own beside the ring: an eventfd the
 * publisher writes when the reader waits, so that the wait can also watch
 * the reader's socket, and a stream notices its client leaving at once
 * while it costs no wake-up between taps.
 */
struct events_waiter;

/* Returns 0 and sets *out, or a negative errno.  Free it before ev. */
int events_waiter_new(struct events *ev, struct events_waiter **out);

/* NULL is a no-op.  It must not be waiting. */
void events_waiter_free(struct events_waiter *w);

/*
 * events_wait() for w's reader, which also watches peer_fd (a socket; -1
 * for none): returns -EPIPE as soon as it hangs up or fails (POLLRDHUP,
 * POLLHUP, POLLERR), and 0 at timeout_ms (-1: no timeout) or after
 * events_wake().
 */
int events_waiter_wait(struct events_waiter *w, int64_t *after, int timeout_ms,
		       int peer_fd, char **json, uint64_t *missed);

#endif
