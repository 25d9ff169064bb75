/*
 * GET /v1/events: server-sent events (text/event-stream), one per stored
 * tap, its id the tap's database id (the id of /v1/taps):
 *
 *   id: <tap id>\nevent: tap\ndata: <the tap's JSON, as /v1/taps>\n\n
 *
 * A stream opens with "retry: 2000" (the reconnection delay, ms) and
 * then, without Last-Event-ID, goes on from the newest tap stored: the
 * taps stored after it, as they come.  A client that sends Last-Event-ID
 * N (a decimal from 0 to INT64_MAX; anything else is a 400) first gets
 * every stored tap with an id above N, read from the database a page at
 * a time in id order, then the new ones, without a gap or a repeat at
 * the hand-over (the ring of events.h gets a tap only once it is
 * committed, so a read of the database sees every tap the ring lacks).
 * An N past the newest tap (an id of another database) starts at the
 * newest.  Across a daemon restart the ids go on, so a client that
 * reconnects with the last id it saw loses nothing.
 *
 * A reader that falls more than the ring behind goes back to the
 * database for the taps it missed.  Only taps the database no longer
 * holds (deleted by retention before the reader got to them: a gap in
 * the ids, which the store never reuses) are reported, as
 * "event: missed\ndata: {"missed": N}", before the next tap.  A server
 * with a ring and no database (tests) reports the taps the ring dropped
 * that way.
 *
 * tapd serve, which records nothing, follows the database instead of a
 * ring: it looks for new rows once a second (API_EVENTS_POLL_MS), since
 * another tapd may be writing the file.
 *
 * A stream waits without a timer of its own: a tap committed, the server
 * stopping or its client leaving (its socket is watched for POLLRDHUP
 * meanwhile) wakes it at once.  A stream of tapd serve looks at the stop
 * flag and the database in slices of a quarter of a second.
 *
 * A comment ": ping" every 15 s keeps idle connections (and proxies)
 * open; TAPD_SSE_PING_MS in the environment changes the interval (100 ms
 * to 1 h; for tests).  The stream ends cleanly when the server stops.
 */
#ifndef TAPD_API_EVENTS_H
#define TAPD_API_EVENTS_H

/* What a stream's retry field says, and how often serve polls. */
#define API_EVENTS_RETRY_MS 2000
#define API_EVENTS_POLL_MS  1000

struct api_request;

int api_events_get(struct api_request *rq);

#endif
