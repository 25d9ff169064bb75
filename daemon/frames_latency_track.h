/*
 * Part 2 of the --latency reader (frames_latency.h): the frames of one layer.
 */
#ifndef TAPD_FRAMES_LATENCY_TRACK_H
#define TAPD_FRAMES_LATENCY_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "frames_latency.h"

/* Part 1's snapshot, which a tracker is fed. */
struct latency_snapshot;

struct latency_tracker;

/*
 * A tracker for the layer named layer (copied; at most LATENCY_NAME_MAX
 * bytes).  Returns 0 and sets *out, -EINVAL for an empty or too long
 * name, or -ENOMEM.  Free with latency_tracker_free().
 */
int latency_tracker_new(const char *layer, struct latency_tracker **out);

/* NULL is a no-op. */
void latency_tracker_free(struct latency_tracker *t);

/*
 * Feeds the next snapshot of the layer, captured at capture_ns, and calls
 * cb for each frame it emits, in row order.  Returns 0, or what cb
 * returned: then the frame cb refused counts as emitted, the later rows
 * are not looked at and the watermark stays; feeding the same snapshot
 * again resumes after that frame.  Capture times should not decrease; if
 * they do the watermark just does not move back.
 */
int latency_tracker_feed(struct latency_tracker *t, int64_t capture_ns,
			 const struct latency_snapshot *snap,
			 latency_frame_cb cb, void *ctx);

/*
 * Every frame of the layer presented at or before this time has been
 * emitted.  INT64_MIN until a complete snapshot was fed.
 */
int64_t latency_tracker_watermark(const struct latency_tracker *t);

/* The layer name. */
const char *latency_tracker_layer(const struct latency_tracker *t);

/* Frames waiting for their present time. */
unsigned latency_tracker_pending(const struct latency_tracker *t);

/*
 * Fills the snapshot counters summed over every snapshot fed, plus
 * duplicates, frames, frames_invalid, pending_lost and gaps.
 */
void latency_tracker_get_stats(const struct latency_tracker *t,
			       struct latency_stats *st);

#endif
