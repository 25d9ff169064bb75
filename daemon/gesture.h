/*
 * Gesture classifier: groups the contacts of the touch tracker into
 * gestures, from the first finger down to the last finger up, and says what
 * each was: a tap, a long press, a swipe or a multi-finger gesture, with
 * Android's definitions (ViewConfiguration, GestureDetector):
 *
 *  - multi: a second contact went down while the first was still down;
 *  - swipe: the contact moved more than the slop from where it went down
 *    (squared distance in display px > slop^2) before the long-press
 *    timeout had passed;
 *  - long_press: still down, within the slop, when the timeout passed
 *    (duration >= long_press_ns);
 *  - tap: lifted within the slop before the timeout.
 */
#ifndef TAPD_GESTURE_H
#define TAPD_GESTURE_H

#include <stdint.h>

#include "touch.h"

enum gesture_kind {
	GESTURE_TAP,
	GESTURE_LONG_PRESS,
	GESTURE_SWIPE,
	GESTURE_MULTI,
};
#define GESTURE_KIND_COUNT 4

/* A SYN_DROPPED touched one of the gesture's contacts. */
#define GESTURE_FLAG_INPUT_DROPPED 0x1u

/* An axis as the device reports it: raw values run from min to max. */
struct gesture_axis {
	int32_t min, max;
};

struct gesture_config {
	double slop_px;	       /* touch slop in display px (or raw units) */
	int64_t long_press_ns; /* long-press timeout */
	/*
	 * When have_mapping is set, raw values map to display px as
	 * (raw - min) * size / (max - min + 1); otherwise raw units are used
	 * as they are, for positions and for the slop alike.
	 */
	int have_mapping;
	struct gesture_axis x, y;
	int32_t width_px, height_px;
};

/* One finished gesture. */
struct gesture_record {
	enum gesture_kind kind;
	int64_t t_down_ns;  /* SYN_REPORT of the first finger down */
	int64_t t_up_ns;    /* SYN_REPORT of the last finger up */
	double x, y;	    /* where the first finger went down, display px */
	double max_dist_px; /* the first contact's largest distance from its
			       down point */
	unsigned fingers;   /* most contacts down at once */
	unsigned flags;	    /* GESTURE_FLAG_* */
};

struct gesture;

/* Defaults: slop 8 dp at 160 dpi (8 px), long press 400 ms, no mapping. */
void gesture_config_default(struct gesture_config *cfg);

/*
 * Allocates a classifier with a copy of cfg.  Returns 0 and sets *out,
 * -EINVAL for a config that makes no sense (slop < 0, timeout <= 0, an
 * axis with max < min), or -ENOMEM.  Free with gesture_free().
 */
int gesture_new(const struct gesture_config *cfg, struct gesture **out);

/* NULL is a no-op. */
void gesture_free(struct gesture *g);

/*
 * Feeds one change from the touch tracker.  Returns 1 and fills *rec when
 * it ends a gesture (the last finger went up), 0 otherwise.
 */
int gesture_feed(struct gesture *g, const struct touch_point *pt,
		 struct gesture_record *rec);

/*
 * The input ended with the gesture in progress (touch_end()): it is
 * abandoned, never classified, and the next down starts a new one.
 */
void gesture_cancel(struct gesture *g);

/* Whether a gesture is in progress (a finger is down). */
int gesture_in_progress(const struct gesture *g);

/* The name used in the database and the API: "tap", "long_press", ... */
const char *gesture_kind_name(enum gesture_kind kind);

/* Maps a raw position to display px with cfg's mapping (identity without one).
 */
void gesture_map(const struct gesture_config *cfg, int32_t raw_x, int32_t raw_y,
		 double *x, double *y);

#endif
