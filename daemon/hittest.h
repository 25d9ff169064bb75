/*
 * Hit-testing a touch against a `dumpsys input` window list (winlist.h):
 * which window the dispatcher gave it to, and so whose tap it was.
 *
 * First the point goes from the panel's coordinates (the input device's
 * axes, as evdev reports them) to the display's: scaled from the axis
 * ranges to the display's natural size and rotated by the viewport's
 * orientation, as Android 9's TouchInputMapper::cookPointerData does
 * (docs/formats.md 4.4).  Then the display's windows are walked from the
 * top, as the dispatcher's findTouchedWindowAt does: a window that is not
 * visible, not touchable or a spy (gesture monitors) is skipped, and the
 * first whose touchable region contains the point takes it; before
 * Android 13 a touch-modal window (WINLIST_TOUCH_MODAL) takes every point
 * of its display.  Region edges are Android's: left and top inside, right
 * and bottom outside, the point cut to an integer as the dispatcher
 * does.
 *
 * Trusted overlays are not skipped unless asked: the keyboard, the
 * notification shade, the status bar and the navigation gesture strips
 * are all trusted overlays, and the dispatcher gives them the touches
 * that land on them; skipping them would give a keyboard tap to the app
 * beneath.  HITTEST_SKIP_TRUSTED walks past them all the same, for a
 * caller that wants the app under the system's windows.
 */
#ifndef TAPD_HITTEST_H
#define TAPD_HITTEST_H

#include <stddef.h>
#include <stdint.h>

#include "winlist.h"

/* Options of hittest_find() and hittest_touch(). */
#define HITTEST_SKIP_TRUSTED (1u << 0)

/* How a hit-test was decided. */
enum hittest_how {
	HITTEST_NONE = 0,   /* no window of the display takes the point */
	HITTEST_REGION,	    /* the window's touchable region holds it */
	HITTEST_MODAL,	    /* a touch-modal window (before Android 13) */
	HITTEST_NO_DISPLAY, /* the list has no such display */
};

/* The raw axis ranges of the touch panel, as evdev gives them. */
struct hittest_axes {
	int32_t x_min, x_max;
	int32_t y_min, y_max;
};

/* How the point went from the panel to the display. */
enum hittest_map {
	HITTEST_MAP_VIEWPORT = 1, /* the display's viewport */
	HITTEST_MAP_LOGICAL,	  /* its logicalSize=, taken as unrotated */
};

struct hittest_result {
	const struct winlist_window *window; /* NULL unless a window took it */
	size_t index; /* its place in the list, 0 on top */
	enum hittest_how how;
	enum hittest_map map; /* hittest_touch() only */
	double x, y;	      /* the point on the display */
	/* Windows walked past above the one that took the point, by why. */
	size_t skipped_invisible;
	size_t skipped_untouchable;
	size_t skipped_spy;
	size_t skipped_trusted;
	size_t skipped_outside; /* the point is outside its region */
};

/*
 * Maps a raw panel point to display coordinates through a viewport:
 * scaled from the axis ranges to the display's natural size, rotated by
 * vp->orientation, offset by its physical frame and then scaled from the
 * physical frame to the logical one.  Returns 0, or -EINVAL for an empty
 * axis range or viewport.
 */
int hittest_map(const struct winlist_viewport *vp,
		const struct hittest_axes *axes, int32_t raw_x, int32_t raw_y,
		double *x, double *y);

/*
 * The window of display display_id that takes the display point (x, y),
 * walked as the header says.  Always fills *res; returns 0, or
 * -EINVAL for a point that is not finite.
 */
int hittest_find(const struct winlist *wl, int32_t display_id, double x,
		 double y, unsigned opts, struct hittest_result *res);

/*
 * The same for a raw panel point: mapped through the display's viewport,
 * or without one through its logicalSize= (unrotated, res->map says
 * which).  Returns 0, or -ENOENT when the list has neither for the
 * display (res->how is then HITTEST_NO_DISPLAY), -EINVAL for bad axes.
 */
int hittest_touch(const struct winlist *wl, int32_t display_id,
		  const struct hittest_axes *axes, int32_t raw_x, int32_t raw_y,
		  unsigned opts, struct hittest_result *res);

/* "region", "modal", "none", "no-display". */
const char *hittest_how_name(enum hittest_how how);

#endif
