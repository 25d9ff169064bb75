/* The FrameTimelineEvent messages of the FrameTimeline reader. */
#include "frames_ftl_event.h"

#include <errno.h>
#include <string.h>

#include "frames_ftl.h"
#include "pb.h"

/* What a field of an event message means to us. */
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

#define EV_FIELDS 12

/*
 * Field number -> meaning, per event message.  The numbers differ between
 * the surface and the display messages, hence one row each.
 */
static const uint8_t ev_map[EV_COUNT][EV_FIELDS] = {
	[EV_EXPECTED_DISPLAY] = {[1] = F_COOKIE, [2] = F_TOKEN, [3] = F_PID},
	[EV_ACTUAL_DISPLAY] = {[1] = F_COOKIE,
			       [2] = F_TOKEN,
			       [3] = F_PID,
			       [4] = F_PRESENT_TYPE,
			       [5] = F_ON_TIME,
			       [6] = F_GPU,
			       [7] = F_JANK,
			       [8] = F_PREDICTION},
	[EV_EXPECTED_SURFACE] = {[1] = F_COOKIE,
				 [2] = F_TOKEN,
				 [3] = F_DISPLAY_TOKEN,
				 [4] = F_PID,
				 [5] = F_LAYER},
	[EV_ACTUAL_SURFACE] = {[1] = F_COOKIE,
			       [2] = F_TOKEN,
			       [3] = F_DISPLAY_TOKEN,
			       [4] = F_PID,
			       [5] = F_LAYER,
			       [6] = F_PRESENT_TYPE,
			       [7] = F_ON_TIME,
			       [8] = F_GPU,
			       [9] = F_JANK,
			       [10] = F_PREDICTION,
			       [11] = F_IS_BUFFER},
	[EV_FRAME_END] = {[1] = F_COOKIE},
};

#define HAVE(f) (1u << (f))

int
frames_ftl_event_parse(int kind, const uint8_t *buf, size_t len,
		       struct frames_ftl_event *ev)
{
	struct pb_reader rd;
	struct pb_field f;
	unsigned what;
	int rc;

	memset(ev, 0, sizeof(*ev));
	pb_reader_init(&rd, buf, len);
	while ((rc = pb_next(&rd, &f)) > 0) {
		what = f.num < EV_FIELDS ? ev_map[kind][f.num] : F_SKIP;
		if (what == F_SKIP)
			continue;
		if (f.wire != (what == F_LAYER ? PB_WIRE_LEN : PB_WIRE_VARINT))
			return -EBADMSG;
		ev->have |= HAVE(what);
		switch (what) {
		case F_COOKIE:
			ev->cookie = pb_int64(f.value);
			break;
		case F_TOKEN:
			ev->token = pb_int64(f.value);
			break;
		case F_DISPLAY_TOKEN:
			ev->display_token = pb_int64(f.value);
			break;
		case F_PID:
			ev->pid = pb_int32(f.value);
			break;
		case F_LAYER:
			ev->layer = f.data;
			ev->layer_len = f.len;
			break;
		case F_PRESENT_TYPE:
			ev->present_type = pb_int32(f.value);
			break;
		case F_ON_TIME:
			if (f.value != 0)
				ev->flags |= FTL_FRAME_ON_TIME_FINISH;
			break;
		case F_GPU:
			if (f.value != 0)
				ev->flags |= FTL_FRAME_GPU_COMPOSITION;
			break;
		case F_JANK:
			ev->jank = (uint32_t)f.value;
			break;
		case F_PREDICTION:
			ev->prediction = pb_int32(f.value);
			break;
		case F_IS_BUFFER:
			if (f.value != 0)
				ev->flags |= FTL_FRAME_BUFFER;
			break;
		}
	}
	return rc;
}

/* What each kind of event must carry to be usable (as Perfetto checks). */
const unsigned frames_ftl_event_required[EV_COUNT] = {
	[EV_EXPECTED_DISPLAY] = HAVE(F_COOKIE),
	[EV_ACTUAL_DISPLAY] = HAVE(F_COOKIE) | HAVE(F_TOKEN) | HAVE(F_PID),
	[EV_EXPECTED_SURFACE] = HAVE(F_COOKIE),
	[EV_ACTUAL_SURFACE] = HAVE(F_COOKIE) | HAVE(F_TOKEN) |
			      HAVE(F_DISPLAY_TOKEN) | HAVE(F_PID),
	[EV_FRAME_END] = HAVE(F_COOKIE),
};
