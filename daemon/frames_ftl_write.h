/*
 * Writer of FrameTimeline traces: frames the reader (frames_ftl.h) gave
 * back out as a Perfetto trace it reads into the same frames.  `tapd run
 * --record` writes the frames it took in this way (frames.pftrace,
 * docs/formats.md 5), re-framed: not SurfaceFlinger's packets, which two
 * overlapping sessions duplicate, but the frames once each.
 *
 * A trace starts with frames_ftl_write_clock(): a ClockSnapshot whose
 * MONOTONIC value is where the frame data starts (the reader's coverage,
 * since it comes before any FrameTimeline packet), with REALTIME beside
 * it, and MONOTONIC as the primary trace clock.  Then each frame is:
 *
 *   an expected and an actual display frame (a token of the writer's own,
 *   unique in the trace), started DISPLAY_LEAD_NS before the present and
 *   ended at it, unless the frame before had the same display frame
 *   (display_token, present and clock), whose display frame it then
 *   shares, as SurfaceFlinger writes one display frame per present;
 *   an actual surface frame: pid, layer, token, present type, jank type,
 *   prediction type, on-time finish, GPU composition and is-buffer as the
 *   frame had them, started at start_ns and ended at ready_ns.
 *
 * Times are written as MONOTONIC, which the reader takes as they are.
 * The flags the reader derives are written as what caused them:
 * FTL_FRAME_START_ESTIMATED as prediction type PREDICTION_EXPIRED,
 * FTL_FRAME_PRESENT_ESTIMATED as the display frame's jank JANK_DISPLAY_HAL
 * | JANK_UNKNOWN (AOSP's fallback for a stale fence), and
 * FTL_FRAME_CLOCK_ASSUMED as BOOTTIME timestamps, a clock no snapshot of
 * the trace has: the reader holds such events for a snapshot to the end
 * of the trace (or max_held), then reads them with an offset of 0, as it
 * did live.  FTL_FRAME_LAYER_CUT is not kept (the layer written is the
 * cut one).
 */
#ifndef TAPD_FRAMES_FTL_WRITE_H
#define TAPD_FRAMES_FTL_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "frames_ftl.h"

/* How long before its present a display frame written starts. */
#define FRAMES_FTL_WRITE_DISPLAY_LEAD_NS 8000000LL

struct frames_ftl_writer;
struct pb_writer;

/* Returns 0 and sets *out, or -ENOMEM.  Free with frames_ftl_write_free(). */
int frames_ftl_write_new(struct frames_ftl_writer **out);

/* NULL is a no-op. */
void frames_ftl_write_free(struct frames_ftl_writer *w);

/*
 * Appends the ClockSnapshot to out: MONOTONIC mono_ns, and REALTIME
 * realtime_ns unless it is negative.  The next frame starts a display
 * frame of its own.  Returns 0, -ERANGE for a mono_ns out of the
 * reader's range, or -ENOMEM (out's oom set).
 */
int frames_ftl_write_clock(struct frames_ftl_writer *w, struct pb_writer *out,
			   int64_t mono_ns, int64_t realtime_ns);

/*
 * Appends the packets of frame f to out.  Returns 0; -ERANGE when a time
 * of f is negative or beyond the reader's range (nothing is written);
 * -ENOMEM (out's oom set).
 */
int frames_ftl_write_frame(struct frames_ftl_writer *w, struct pb_writer *out,
			   const struct frames_ftl_frame *f);

#endif
