/*
 * The FrameTimelineEvent messages of the FrameTimeline reader
 * (frames_ftl.h), decoded field by field.
 */
#ifndef TAPD_FRAMES_FTL_EVENT_H
#define TAPD_FRAMES_FTL_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frames_ftl.h"
#include "pb.h"

/* The FrameTimelineEvent oneof (docs/formats.md 2.3). */
enum {
	EV_NONE = 0,
	EV_EXPECTED_DISPLAY = 1,
	EV_ACTUAL_DISPLAY = 2,
	EV_EXPECTED_SURFACE = 3,
	EV_ACTUAL_SURFACE = 4,
	EV_FRAME_END = 5,
	EV_COUNT = 6,
};

/* What a field of an event message means to the reader. */
enum {
	F_SKIP = 0,
	F_COOKIE,
	F_TOKEN,
	F_DISPLAY_TOKEN,
	F_PID,
	F_LAYER,
	F_PRESENT_TYPE,
	F_ON_TIME,
	F_GPU,
	F_JANK,
	F_PREDICTION,
	F_IS_BUFFER,
};

/* Field numbers below this are looked up in frames_ftl_event_map. */
#define EV_FIELDS 12

#define HAVE(f) (1u << (f))

/* One decoded event message. */
struct frames_ftl_event {
	unsigned have; /* HAVE(F_*) of the fields present */
	int64_t cookie;
	int64_t token;
	int64_t display_token;
	int32_t pid;
	int32_t present_type;
	int32_t prediction;
	uint32_t jank;
	unsigned flags;
	const uint8_t *layer;
	size_t layer_len;
};

/*
 * Field number -> meaning (F_*), per kind of event: the numbers differ
 * between the surface and the display messages.
 */
extern const uint8_t frames_ftl_event_map[EV_COUNT][EV_FIELDS];

/*
 * Stores the varint value v of a field that means what (any F_* but
 * F_SKIP and F_LAYER) into ev.  The general walk and the fast path
 * (frames_ftl_fast.h) both store through it, so that a field means the
 * same to both.
 */
static inline void
frames_ftl_event_store(struct frames_ftl_event *ev, unsigned what, uint64_t v)
{
	ev->have |= HAVE(what);
	switch (what) {
	case F_COOKIE:
		ev->cookie = pb_int64(v);
		break;
	case F_TOKEN:
		ev->token = pb_int64(v);
		break;
	case F_DISPLAY_TOKEN:
		ev->display_token = pb_int64(v);
		break;
	case F_PID:
		ev->pid = pb_int32(v);
		break;
	case F_PRESENT_TYPE:
		ev->present_type = pb_int32(v);
		break;
	case F_ON_TIME:
		if (v != 0)
			ev->flags |= FTL_FRAME_ON_TIME_FINISH;
		break;
	case F_GPU:
		if (v != 0)
			ev->flags |= FTL_FRAME_GPU_COMPOSITION;
		break;
	case F_JANK:
		ev->jank = (uint32_t)v;
		break;
	case F_PREDICTION:
		ev->prediction = pb_int32(v);
		if (ev->prediction == FTL_PREDICTION_EXPIRED)
			ev->flags |= FTL_FRAME_START_ESTIMATED;
		else
			ev->flags &= ~FTL_FRAME_START_ESTIMATED;
		break;
	case F_IS_BUFFER:
		if (v != 0)
			ev->flags |= FTL_FRAME_BUFFER;
		break;
	}
}

/*
 * Decodes buf[0..len), an event of kind (EV_EXPECTED_DISPLAY ..
 * EV_FRAME_END), into *ev; the layer points into buf.  Returns 0, or a
 * negative errno when the message is malformed.
 */
int frames_ftl_event_parse(int kind, const uint8_t *buf, size_t len,
			   struct frames_ftl_event *ev);

/*
 * Whether the display frame ev presents with AOSP's fallback for an
 * invalid fence: the composition's end stands for the present, and the
 * jank holds JANK_UNKNOWN | JANK_DISPLAY_HAL, which no real
 * classification sets together (DisplayFrame::classifyJank()).
 */
static inline bool
frames_ftl_event_present_fallback(const struct frames_ftl_event *ev)
{
	const uint32_t both = FTL_JANK_UNKNOWN | FTL_JANK_DISPLAY_HAL;

	return (ev->jank & both) == both;
}

/* The HAVE() bits each kind of event must carry to be usable. */
extern const unsigned frames_ftl_event_required[EV_COUNT];

#endif
