/*
 * Touch screen model: turns a gesture's contacts (where each finger lands,
 * how it moves, when it lifts) into the evdev events a multitouch protocol
 * B driver sends through the Linux input core, on a panel that scans at a
 * fixed rate.  Like the kernel, it sends ABS_MT_SLOT only when a change
 * concerns another slot than the last one sent, and drops a value equal to
 * the one its slot already holds (even across contacts), so an idle
 * finger produces no reports at all.
 */
#ifndef TAPD_SIM_TOUCHGEN_H
#define TAPD_SIM_TOUCHGEN_H

#include <stdint.h>

#include "world.h"

/* Order of a contact's values inside a report. */
enum touchgen_order {
	TOUCHGEN_ORDER_ID_FIRST, /* id, x, y, major, pressure (most drivers) */
	TOUCHGEN_ORDER_ID_LAST,	 /* major, width, pressure, x, y, id (himax) */
	TOUCHGEN_ORDER_EMULATOR, /* id, major, pressure, x, y; pressure 0 on up
				  */
};

struct touchgen_style {
	enum touchgen_order order;
	int slot_at_start; /* the capture begins with another slot current */
	int btn_touch;	   /* BTN_TOUCH DOWN/UP around the contacts */
	int tool_keys;	   /* BTN_TOOL_FINGER / BTN_TOOL_DOUBLETAP as well */
	int64_t period_us; /* panel scan period */
	int32_t first_tracking_id;
};

/* One finger of a gesture; ticks count panel scans from the gesture's start. */
struct touchgen_contact {
	int down_tick, up_tick; /* up_tick > down_tick */
	double x0, y0;		/* where it lands, display px */
	double dx, dy;		/* displacement reached after move_ticks */
	int move_ticks;		/* 0: no deliberate movement */
	double wobble;		/* bound of the random wobble per axis, px */
};

struct touchgen;

/*
 * Allocates a generator that appends events of input device 0 to w.
 * Returns 0 and sets *out, -EINVAL for a bad style, or -ENOMEM.
 */
int touchgen_new(struct world *w, const struct touchgen_style *st,
		 uint64_t seed, struct touchgen **out);

/* NULL is a no-op. */
void touchgen_free(struct touchgen *tg);

/*
 * Appends the events of one gesture of n (1 or 2) contacts whose first scan
 * is at start_us; contact i uses slot i.  Sets *t_down_ns and *t_up_ns to
 * the SYN_REPORTs of the first finger down and the last finger up.
 * Returns 0, -EINVAL for contacts that make no sense, or -ENOMEM.
 */
int touchgen_gesture(struct touchgen *tg, int64_t start_us,
		     const struct touchgen_contact *c, int n,
		     int64_t *t_down_ns, int64_t *t_up_ns);

/* The last raw position slot 0 reported (what the kernel remembers). */
void touchgen_last_raw(const struct touchgen *tg, int32_t *x, int32_t *y);

/* Appends a key press of device dev: DOWN at t_us, UP hold_us later. */
int touchgen_key(struct touchgen *tg, int dev, uint16_t code, int64_t t_us,
		 int64_t hold_us);

#endif
