/* Jank tags, as Perfetto's trace processor derives them (janktag.h). */
#include "janktag.h"

#include <stddef.h>
#include <stdint.h>

/* FrameTimelineEvent.JankType bits (docs/formats.md 2.4). */
#define J_NONE		    0x1u
#define J_SF_SCHEDULING	    0x2u
#define J_PREDICTION_ERROR  0x4u
#define J_DISPLAY_HAL	    0x8u
#define J_SF_CPU_DEADLINE   0x10u
#define J_SF_GPU_DEADLINE   0x20u
#define J_APP_DEADLINE	    0x40u
#define J_BUFFER_STUFFING   0x80u
#define J_UNKNOWN	    0x100u
#define J_SF_STUFFING	    0x200u
#define J_NON_ANIMATING	    0x800u
#define J_APP_RESYNCED	    0x1000u
#define J_DISPLAY_NOT_ON    0x2000u
#define J_POWER_MODE_CHANGE 0x8000u

#define PRESENT_DROPPED 4

const char *const janktag_names[JANKTAG_COUNT + 1] = {
	"self_jank",   "other_jank",	  "dropped_frame", "buffer_stuffing",
	"sf_stuffing", "non_perceivable", "unspecified",   NULL,
};

/* Values that are never janky, whatever the masks say. */
static int
never_janky(uint32_t jank)
{
	return jank == J_NONE || jank == J_NON_ANIMATING ||
	       jank == J_DISPLAY_NOT_ON;
}

uint32_t
janktag_surface(uint32_t jank, int32_t present_type)
{
	const uint32_t self = J_APP_DEADLINE | J_APP_RESYNCED | J_UNKNOWN;
	const uint32_t display = J_SF_SCHEDULING | J_PREDICTION_ERROR |
				 J_DISPLAY_HAL | J_SF_CPU_DEADLINE |
				 J_SF_GPU_DEADLINE;

	if (jank == 0)
		return JANKTAG_UNSPECIFIED;
	if (!never_janky(jank) && (jank & self) != 0)
		return JANKTAG_SELF;
	if (!never_janky(jank) && (jank & display) != 0)
		return JANKTAG_OTHER;
	if (jank == J_BUFFER_STUFFING)
		return JANKTAG_BUFFER_STUFFING;
	if (jank == J_SF_STUFFING)
		return JANKTAG_SF_STUFFING;
	if (present_type == PRESENT_DROPPED)
		return JANKTAG_DROPPED;
	if (jank == J_NON_ANIMATING || jank == J_DISPLAY_NOT_ON ||
	    jank == J_POWER_MODE_CHANGE)
		return JANKTAG_NON_PERCEIVABLE;
	return 0;
}
