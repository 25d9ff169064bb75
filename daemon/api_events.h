/*
 * GET /v1/events: server-sent events (text/event-stream), one per tap as
 * the ingest thread finalizes it, from the moment the client connects:
 *
 *   id: <seq>\nevent: tap\ndata: <the tap's JSON>\n\n
 *
 * A comment ": ping" every 15 s keeps idle connections (and proxies)
 * open; TAPD_SSE_PING_MS in the environment changes the interval (100 ms
 * to 1 h; for tests).  A client that falls more than the ring of events.h
 * behind gets "event: missed\ndata: {"missed": N}" and goes on from the
 * oldest event kept.  A reconnecting client's Last-Event-ID resumes after
 * that id when it is still kept.  The stream ends cleanly when the server
 * stops.  A server without live taps (tapd serve) answers 409: a stream
 * that could never carry an event would leave its client waiting forever.
 */
#ifndef TAPD_API_EVENTS_H
#define TAPD_API_EVENTS_H

struct api_request;

int api_events_get(struct api_request *rq);

#endif
