/*
 * The sessions API (docs/DESIGN.md 7.6): named spans of recording whose
 * taps carry the session's id.  Listing reads the database; starting and
 * stopping go to the ingest thread, which owns the only writer, through
 * control.h.  A server without a control (tapd serve: a read-only
 * database) answers 409 to both.
 *
 * A session in JSON: {"id": N, "name": "...", "started": RFC 3339,
 * "stopped": RFC 3339 or null, "taps": N}.
 */
#ifndef TAPD_API_SESSIONS_H
#define TAPD_API_SESSIONS_H

struct api_request;

/* GET /v1/sessions: {"sessions": [session, ...]}, oldest first. */
int api_sessions_list(struct api_request *rq);

/*
 * POST /v1/sessions with {"name": "..."} (1..128 bytes of UTF-8, no
 * control characters, no other member): 201 and the session; 409 while
 * another one is open or on a read-only server; 400 for a bad body.
 */
int api_sessions_start(struct api_request *rq);

/*
 * POST /v1/sessions/ID/stop: 200 and the session; 404 for an unknown id;
 * 409 when it was stopped already or on a read-only server.
 */
int api_sessions_stop(struct api_request *rq);

#endif
