/*
 * GET /v1/trace?since=&until=&app=&session= : the stored taps as a Chrome
 * Trace Event Format JSON object, which ui.perfetto.dev and
 * chrome://tracing open:
 *   {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}
 *
 * Time axis.  ts and dur are integer microseconds of wall-clock time since
 * the Unix epoch.  A tap's monotonic times (t_up, its frames' start and
 * present) are shifted by its own wall_ns - t_up_ns, so taps of different
 * boots line up by date.  Taps whose wall time is unknown cannot be placed
 * and are left out (counted in otherData.skipped_no_wall_time).  since
 * and until select taps by that wall time of t_up, both ends included.
 *
 * Layout.  One process per app (pid 1, 2, ... in the order of the app
 * names, the unknown app first, named by "process_name" metadata), with
 * tracks as threads named by "thread_name" metadata (metadata events, "M",
 * carry the cat "__metadata" that consumers file them under):
 *   - "taps" (tid 1): per measured tap (one with a settle time), an "X"
 *     slice of cat "tap" named by its kind from t_up to the present of
 *     the last frame of its response burst (t_up + settle), its args the
 *     tap object of tapjson.h, just after an "X" slice of cat "finger"
 *     named "finger down" from t_down to t_up on the same track (args:
 *     the tap's id); nested in the tap slice an "X" slice of cat
 *     "first_frame" from t_up to the first response frame's present, and
 *     an instant ("i", scope "t") of cat "present" at the present of each
 *     frame of the burst.  A tap that was not measured (no_response,
 *     frames_unavailable, ...) is an instant of cat "tap" at t_up, named
 *     "KIND (STATUS)"; a swipe or multi-finger gesture an instant of cat
 *     "gesture".
 *   - "frames" (tid 101): each response frame of tap_frames as an "X"
 *     slice of cat "frame" from its start to its present, named "frame"
 *     or, past the burst, "frame (after burst)".  Frames do not
 *     go inside the tap slice: a pipelined app starts a frame before the
 *     previous one is presented, and slices on one track must nest.
 * Slices on a track never overlap unless one contains the other: when a
 * slice would overlap the last one of its track (a tap whose late frames
 * run into the next tap, overlapping frames), it goes to the next track of
 * the same kind, "taps #2" (tid 2), "frames #2" (tid 102), and so on up to
 * 16 of each; beyond that it becomes an instant, counted in
 * otherData.overlaps.
 *
 * Size.  At most 100,000 taps and 400,000 events (a tap costs at most 3 +
 * 2 x its frames) per answer, at most 1,000 frames per tap: the earliest
 * taps that fit are exported, otherData.truncated is true and
 * otherData.next_since is the wall time of the first tap left out, to
 * pass as since for the rest (taps of the same millisecond as that one
 * come again).
 *
 * otherData: generator, clock, since, until, app, session (echoed, null
 * when not given), taps, frames, truncated, next_since,
 * skipped_no_wall_time, overlaps.
 */
#ifndef TAPD_API_TRACE_H
#define TAPD_API_TRACE_H

struct api_request;

/*
 * The handler: answers exactly once, or returns a negative errno (the
 * reply is then a 500, except after a 400 already queued).
 */
int api_trace_get(struct api_request *rq);

#endif
