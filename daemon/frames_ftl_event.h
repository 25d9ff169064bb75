/*
 * The FrameTimelineEvent messages of the FrameTimeline reader
 * (frames_ftl.h), decoded field by field.
 */
#ifndef TAPD_FRAMES_FTL_EVENT_H
#define TAPD_FRAMES_FTL_EVENT_H

#include <stddef.h>
#include <stdint.h>

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
 * Decodes buf[0..len), an event of kind (EV_EXPECTED_DISPLAY ..
 * EV_FRAME_END), into *ev; the layer points into buf.  Returns 0, or a
 * negative errno when the message is malformed.
 */
int frames_ftl_event_parse(int kind, const uint8_t *buf, size_t len,
			   struct frames_ftl_event *ev);

/* The HAVE() bits each kind of event must carry to be usable. */
extern const unsigned frames_ftl_event_required[EV_COUNT];

#endif
