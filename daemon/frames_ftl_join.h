/*
 * The join of the FrameTimeline reader (frames_ftl.h): surface frames
 * paired with their FrameEnd and with the present of their display frame,
 * and the frames that result queued for frames_ftl_next().
 */
#ifndef TAPD_FRAMES_FTL_JOIN_H
#define TAPD_FRAMES_FTL_JOIN_H

#include <stddef.h>
#include <stdint.h>

#include "frames_ftl_event.h"
#include "frames_ftl_int.h"

/*
 * Handles the FrameTimelineEvent message buf[0..len) of the packet whose
 * header is pk.  Malformed events are counted and ignored.
 */
void frames_ftl_join_event(struct frames_ftl *r,
			   const struct frames_ftl_pkt *pk, const uint8_t *buf,
			   size_t len);

/*
 * Handles one decoded event of kind (EV_EXPECTED_DISPLAY .. EV_FRAME_END)
 * whose required fields are present, in the packet whose header is pk
 * (has_ts set): the timestamp converted, the start, end or present
 * recorded.  Both the general walk and the fast path (frames_ftl_fast.h)
 * end here, so they differ only in how they decode.
 */
void frames_ftl_join_apply(struct frames_ftl *r,
			   const struct frames_ftl_pkt *pk, int kind,
			   const struct frames_ftl_event *ev);

/*
 * At the end of the trace: drops what is still open or waiting, counted,
 * and moves the watermark past the last display frame.
 */
void frames_ftl_join_end(struct frames_ftl *r);

#endif
