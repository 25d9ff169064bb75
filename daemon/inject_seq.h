/*
 * What an injected gesture writes, worked out without any I/O: a display
 * point in px turned into the panel's raw units, and the input_events of
 * one frame of a protocol B contact (docs/DESIGN.md 3.12).
 *
 * The point goes back the way hittest_map() brings a touch forward: from
 * the display through the viewport's rotation, offsets and scales to the
 * axis ranges, so that the window a hit-test finds for the injected touch
 * is the one under the px asked for.  Without a viewport the screen size
 * of device.json, unrotated (the inverse of gesture_map()); without axis
 * ranges or a size the numbers are raw units already.
 */
#ifndef TAPD_INJECT_SEQ_H
#define TAPD_INJECT_SEQ_H

#include <linux/input.h>
#include <stddef.h>
#include <stdint.h>

#include "hittest.h"
#include "winlist.h"

/* What the conversion knows of the panel and the display. */
struct inject_geometry {
	int have_axes;
	struct hittest_axes axes;
	int have_viewport;
	struct winlist_viewport vp;
	int32_t width_px, height_px; /* natural size, 0 when unknown */
};

/*
 * The raw panel point of display point (x, y), rounded to the nearest
 * unit.  Returns 0; -EINVAL for a point that is not finite or a geometry
 * that cannot be inverted; -ERANGE when the point falls outside the axis
 * ranges (more than half a unit), or below 0 without them.
 */
int inject_seq_to_panel(const struct inject_geometry *g, double x, double y,
			int32_t *raw_x, int32_t *raw_y);

/* What the device reports besides the protocol B axes (EVIOCGBIT). */
struct inject_caps {
	int btn_touch;	 /* BTN_TOUCH */
	int abs_xy;	 /* ABS_X and ABS_Y, the single-touch emulation */
	int pressure;	 /* ABS_MT_PRESSURE, written at pressure_value */
	int touch_major; /* ABS_MT_TOUCH_MAJOR, written at major_value */
	int32_t pressure_value;
	int32_t major_value;
};

enum inject_seq_phase {
	INJECT_SEQ_DOWN,
	INJECT_SEQ_MOVE,
	INJECT_SEQ_UP,
};

/* The most events one frame takes, SYN_REPORT included. */
#define INJECT_SEQ_FRAME_MAX 12

/*
 * The events of one frame of the contact in slot with tracking id tid at
 * the raw point (x, y), ending with a SYN_REPORT, into out (at least
 * INJECT_SEQ_FRAME_MAX).  A down sets the slot, the tracking id, the
 * position and what caps has (BTN_TOUCH 1, the emulated ABS_X/ABS_Y,
 * pressure, size); a move the slot and position; an up the slot, tracking
 * id -1 and BTN_TOUCH 0.  Times are left 0: the kernel stamps what is
 * written.  Returns the number of events.
 */
size_t inject_seq_frame(const struct inject_caps *caps,
			enum inject_seq_phase phase, int32_t slot, int32_t tid,
			int32_t x, int32_t y, struct input_event *out);

#endif
