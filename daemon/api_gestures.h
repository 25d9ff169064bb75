/*
 * /v1/gestures (docs/DESIGN.md 7.6): gestures tapd injects through the
 * touch screen (inject.h), only when it runs with --allow-inject, and
 * then only with the bearer token (api.c asks for it on every request of
 * a server that has one, loopback too; --allow-inject needs one).
 *
 * POST takes one gesture as a JSON object:
 *   {"kind": "tap", "x": X, "y": Y, "hold_ms": MS}	     (hold 60)
 *   {"kind": "long_press", "x": X, "y": Y, "hold_ms": MS}   (hold 800)
 *   {"kind": "swipe", "from": [X, Y], "to": [X, Y], "duration_ms": MS}
 * in display px, and answers 202 {"id": N} once it is queued.  Parameters:
 *   wait=1	answer when the gesture has been read back and its tap
 *		stored: 200 with the tap object of /v1/taps, or 504
 *		"timeout" after timeout_ms
 *   timeout_ms	the cap of wait=1, 100..120000, default 10000
 *   queue=1	with a finger down, queue it until the finger lifts
 *		rather than answer 409
 * Refusals: 403 "forbidden" without --allow-inject, 400 for a bad body
 * or a point off the panel, 409 "conflict" with a finger down, 429
 * "too_many_requests" past the rate limit, 503 "unavailable" with the
 * queue full or no touch screen.
 *
 * GET lists the gestures remembered, {"gestures": [...]}: each one's id,
 * kind, point, state (queued, writing, written, read_back, failed), slot
 * and tracking id written, the CLOCK_MONOTONIC readings just before and
 * after its first and its final write() and the t_down_ns and t_up_ns it
 * was read back with (decimal strings, null until known).
 */
#ifndef TAPD_API_GESTURES_H
#define TAPD_API_GESTURES_H

struct api_request;

int api_gestures_post(struct api_request *rq);
int api_gestures_list(struct api_request *rq);

#endif
