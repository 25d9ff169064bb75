/*
 * Part 2 of the --latency reader (frames_latency.h): the frames of one layer.
 */
#ifndef TAPD_FRAMES_LATENCY_TRACK_H
#define TAPD_FRAMES_LATENCY_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "frames_latency.h"

/* Part 1's snapshot, which a tracker is fed. */
struct frames_latency_snapshot;

struct frames_latency_tracker;

/*
 * A tracker for the layer named layer (copied; at most LATENCY_NAME_MAX
 * bytes).  Returns 0 and sets *out, -EINVAL for an empty or too long
 * name, or -ENOMEM.  Free with frames_latency_tracker_free().
 */
int frames_latency_tracker_new(const char *layer,
			       struct frames_latency_tracker **out);

/* NULL is a no-op. */
void frames_latency_tracker_free(struct frames_latency_tracker *t);

/*
 * Feeds the next snapshot of the layer, captured at capture_ns, and calls
 * cb for each frame it emits, in row order.  Returns 0, or what cb
 * returned: then the frame cb refused counts as emitted, the later rows
 * are not looked at and the watermark stays; feeding the same snapshot
 * again resumes after that frame.  A strict tracker returns -ERANGE in
 * the same way at a frame that goes back.  Capture times should not
 * decrease; if they do the watermark just does not move back.
 */
int frames_latency_tracker_feed(struct frames_latency_tracker *t,
				int64_t capture_ns,
				const struct frames_latency_snapshot *snap,
				frames_latency_frame_cb cb, void *ctx);

/*
 * Makes the tracker stop at a frame that goes back (frames_latency.h,
 * "Going back") instead of dropping it and going on.
 */
void frames_latency_tracker_set_strict(struct frames_latency_tracker *t,
				       int strict);

/*
 * The first frame that went back: returns 0 and fills from_ns, to_ns and
 * layer of *j (valid while the tracker is), or -ENOENT when none did.
 */
int frames_latency_tracker_get_jump(const struct frames_latency_tracker *t,
				    struct frames_latency_jump *j);

/*
 * Every frame of the layer presented at or before this time has been
 * emitted.  INT64_MIN until a complete snapshot was fed.
 */
int64_t
frames_latency_tracker_watermark(const struct frames_latency_tracker *t);

/* The layer name. */
const char *
frames_latency_tracker_layer(const struct frames_latency_tracker *t);

/* Frames waiting for their present time. */
unsigned frames_latency_tracker_pending(const struct frames_latency_tracker *t);

/*
 * Fills the snapshot counters summed over every snapshot fed, plus
 * duplicates, frames, frames_invalid, pending_lost, backwards and gaps.
 */
void frames_latency_tracker_get_stats(const struct frames_latency_tracker *t,
				      struct frames_latency_stats *st);

#endif
