/*
 * The fast path of the FrameTimeline reader (frames_ftl.h): the packets
 * SurfaceFlinger writes by the million, a TracePacket holding one
 * FrameTimelineEvent, recognised and decoded in one specialised walk
 * over the record, in place, without a pb_reader, a copy or an
 * allocation.
 *
 * It takes only what it knows the exact shape of:
 *
 *   TracePacket   timestamp (8), timestamp_clock_id (58),
 *                 trusted_packet_sequence_id (10),
 *                 previous_packet_dropped (42), all varints;
 *                 frame_timeline_event (76); any other field number as a
 *                 varint, i32 or i64 (trusted_uid, trusted_pid, ...);
 *   event         one or more of its members 1 .. 5 (the last wins);
 *   member        the fields of frames_ftl_event_map with their wire
 *                 types; any other field number below 16 as a varint,
 *                 i32 or i64 (newer releases' jank severity, floats).
 *
 * Everything else goes to the general walk, from the first byte: a
 * packet without an event or without a timestamp, a clock snapshot,
 * compressed or interned data, any other length-delimited field, a
 * group, a field of the wrong wire type, an event missing a field it
 * needs, and any varint or length the general walk would reject.  So a
 * packet the fast path takes is one the general walk would have read
 * without a complaint, and the two then end in the same
 * frames_ftl_join_apply() with the same values.
 */
#ifndef TAPD_FRAMES_FTL_FAST_H
#define TAPD_FRAMES_FTL_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "frames_ftl_int.h"

/*
 * Reads the TracePacket buf[0..len) when it is one of the fast path's.
 * Returns 1 when it was read and counted as the general walk would have;
 * 0 when it is left to the general walk, r untouched.
 */
int frames_ftl_fast_packet(struct frames_ftl *r, const uint8_t *buf,
			   size_t len);

#endif
