/* The FrameTimelineEvent messages of the FrameTimeline reader. */
#include "frames_ftl_event.h"

#include <errno.h>
#include <string.h>

#include "frames_ftl.h"
#include "pb.h"

/*
 * Field number -> meaning, per event message.  The numbers differ between
 * the surface and the display messages, hence one row each.
 */
const uint8_t frames_ftl_event_map[EV_COUNT][EV_FIELDS] = {
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
		what = f.num < EV_FIELDS ? frames_ftl_event_map[kind][f.num]
					 : F_SKIP;
		if (what == F_SKIP)
			continue;
		if (f.wire != (what == F_LAYER ? PB_WIRE_LEN : PB_WIRE_VARINT))
			return -EBADMSG;
		if (what == F_LAYER) {
			ev->have |= HAVE(F_LAYER);
			ev->layer = f.data;
			ev->layer_len = f.len;
		} else {
			frames_ftl_event_store(ev, what, f.value);
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
