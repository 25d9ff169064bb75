/*
 * Jank tags: what a frame's FrameTimeline jank bits mean to a user, one
 * tag per app frame, derived as Perfetto's trace processor derives the
 * jank_tag of an actual surface frame (src/trace_processor/importers/
 * proto/frame_timeline_event_parser.cc, CalculateSurfaceFrameJankTag):
 *
 *   0 (JANK_UNSPECIFIED)                     -> unspecified
 *   any of APP_DEADLINE_MISSED, APP_RESYNCED_JITTER, UNKNOWN
 *                                            -> self_jank
 *   else any of SF_SCHEDULING, PREDICTION_ERROR, DISPLAY_HAL,
 *        SF_CPU_DEADLINE_MISSED, SF_GPU_DEADLINE_MISSED
 *                                            -> other_jank
 *   else exactly BUFFER_STUFFING             -> buffer_stuffing
 *   else exactly SF_STUFFING                 -> sf_stuffing
 *   else present_type PRESENT_DROPPED        -> dropped_frame
 *   else exactly NON_ANIMATING, DISPLAY_NOT_ON or
 *        DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS -> non_perceivable
 *   else                                     -> none ("No Jank")
 *
 * The masks do not apply to a value that is exactly NONE, NON_ANIMATING
 * or DISPLAY_NOT_ON (those are never janky), and a mix of bits that none
 * of the rules names (BUFFER_STUFFING with SF_STUFFING, say) is "No
 * Jank", as in Perfetto.  Perceivable jank, what a user sees as a frame
 * late or missing, is self_jank, other_jank and dropped_frame; the
 * stuffing tags are queueing (latency, not a missed frame) and
 * non_perceivable is what Perfetto names so.
 */
#ifndef TAPD_JANKTAG_H
#define TAPD_JANKTAG_H

#include <stdint.h>

/* The tags as bits, so that a tap can hold the union of its frames'. */
#define JANKTAG_SELF		0x1u
#define JANKTAG_OTHER		0x2u
#define JANKTAG_DROPPED		0x4u
#define JANKTAG_BUFFER_STUFFING 0x8u
#define JANKTAG_SF_STUFFING	0x10u
#define JANKTAG_NON_PERCEIVABLE 0x20u
#define JANKTAG_UNSPECIFIED	0x40u
#define JANKTAG_COUNT		7

/* The tags a user perceives as jank. */
#define JANKTAG_PERCEIVABLE (JANKTAG_SELF | JANKTAG_OTHER | JANKTAG_DROPPED)

/*
 * The names of the bits, bit 0 first, NULL-terminated: the API's and
 * tapctl's spelling (Perfetto's strings in lower case, "_" for blanks,
 * "surfaceflinger" shortened to "sf").
 */
extern const char *const janktag_names[JANKTAG_COUNT + 1];

/*
 * The tag of an app frame whose jank_type is jank and present_type is
 * present_type (-1 when the trace had none or an invalid one): one
 * JANKTAG_* bit, or 0 for "No Jank".
 */
uint32_t janktag_surface(uint32_t jank, int32_t present_type);

#endif
