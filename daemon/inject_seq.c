#include "inject_seq.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* How far outside the axis ranges a point may round from. */
#define INJECT_SEQ_SLACK 0.5

/*
 * The inverse of hittest_map(), which is affine in the raw point: its
 * image of three corners of the axis ranges gives the matrix and offset,
 * solved here for the raw point.  Taking them from hittest_map() itself
 * keeps the two directions in step for every rotation.
 */
static int
from_viewport(const struct inject_geometry *g, double x, double y, double *rx,
	      double *ry)
{
	const struct hittest_axes *a = &g->axes;
	double x0, y0, x1, y1, x2, y2, dx, dy, a11, a12, a21, a22, det, u, v;

	if (hittest_map(&g->vp, a, a->x_min, a->y_min, &x0, &y0) < 0 ||
	    hittest_map(&g->vp, a, a->x_max, a->y_min, &x1, &y1) < 0 ||
	    hittest_map(&g->vp, a, a->x_min, a->y_max, &x2, &y2) < 0)
		return -EINVAL;
	dx = (double)a->x_max - a->x_min;
	dy = (double)a->y_max - a->y_min;
	if (dx <= 0 || dy <= 0)
		return -EINVAL;
	a11 = (x1 - x0) / dx;
	a21 = (y1 - y0) / dx;
	a12 = (x2 - x0) / dy;
	a22 = (y2 - y0) / dy;
	det = a11 * a22 - a12 * a21;
	if (fabs(det) < 1e-12)
		return -EINVAL;
	u = x - x0;
	v = y - y0;
	*rx = a->x_min + (a22 * u - a12 * v) / det;
	*ry = a->y_min + (a11 * v - a21 * u) / det;
	return 0;
}

static int
to_int(double v, int32_t lo, int32_t hi, int32_t *out)
{
	if (v < lo - INJECT_SEQ_SLACK || v > hi + INJECT_SEQ_SLACK)
		return -ERANGE;
	v = floor(v + 0.5);
	if (v < lo)
		v = lo;
	if (v > hi)
		v = hi;
	*out = (int32_t)v;
	return 0;
}

int
inject_seq_to_panel(const struct inject_geometry *g, double x, double y,
		    int32_t *raw_x, int32_t *raw_y)
{
	const struct hittest_axes *a = &g->axes;
	double rx, ry;
	int rc;

	if (!isfinite(x) || !isfinite(y))
		return -EINVAL;
	if (!g->have_axes) {
		if (x > INT32_MAX || y > INT32_MAX)
			return -ERANGE;
		if ((rc = to_int(x, 0, INT32_MAX, raw_x)) < 0)
			return rc;
		return to_int(y, 0, INT32_MAX, raw_y);
	}
	if (a->x_max <= a->x_min || a->y_max <= a->y_min)
		return -EINVAL;
	if (g->have_viewport) {
		if ((rc = from_viewport(g, x, y, &rx, &ry)) < 0)
			return rc;
	} else if (g->width_px > 0 && g->height_px > 0) {
		/* gesture_map()'s scale, (raw - min) * size / (max - min + 1).
		 */
		rx = a->x_min +
		     x * ((double)a->x_max - a->x_min + 1) / g->width_px;
		ry = a->y_min +
		     y * ((double)a->y_max - a->y_min + 1) / g->height_px;
	} else {
		rx = x;
		ry = y;
	}
	if ((rc = to_int(rx, a->x_min, a->x_max, raw_x)) < 0)
		return rc;
	return to_int(ry, a->y_min, a->y_max, raw_y);
}

static void
put(struct input_event *out, size_t *n, uint16_t type, uint16_t code,
    int32_t value)
{
	memset(&out[*n], 0, sizeof(out[*n]));
	out[*n].type = type;
	out[*n].code = code;
	out[*n].value = value;
	(*n)++;
}

size_t
inject_seq_frame(const struct inject_caps *caps, enum inject_seq_phase phase,
		 int32_t slot, int32_t tid, int32_t x, int32_t y,
		 struct input_event *out)
{
	size_t n = 0;

	put(out, &n, EV_ABS, ABS_MT_SLOT, slot);
	switch (phase) {
	case INJECT_SEQ_DOWN:
		put(out, &n, EV_ABS, ABS_MT_TRACKING_ID, tid);
		put(out, &n, EV_ABS, ABS_MT_POSITION_X, x);
		put(out, &n, EV_ABS, ABS_MT_POSITION_Y, y);
		if (caps->touch_major)
			put(out, &n, EV_ABS, ABS_MT_TOUCH_MAJOR,
			    caps->major_value);
		if (caps->pressure)
			put(out, &n, EV_ABS, ABS_MT_PRESSURE,
			    caps->pressure_value);
		if (caps->btn_touch)
			put(out, &n, EV_KEY, BTN_TOUCH, 1);
		if (caps->abs_xy) {
			put(out, &n, EV_ABS, ABS_X, x);
			put(out, &n, EV_ABS, ABS_Y, y);
		}
		break;
	case INJECT_SEQ_MOVE:
		put(out, &n, EV_ABS, ABS_MT_POSITION_X, x);
		put(out, &n, EV_ABS, ABS_MT_POSITION_Y, y);
		if (caps->abs_xy) {
			put(out, &n, EV_ABS, ABS_X, x);
			put(out, &n, EV_ABS, ABS_Y, y);
		}
		break;
	case INJECT_SEQ_UP:
		put(out, &n, EV_ABS, ABS_MT_TRACKING_ID, -1);
		if (caps->btn_touch)
			put(out, &n, EV_KEY, BTN_TOUCH, 0);
		break;
	}
	put(out, &n, EV_SYN, SYN_REPORT, 0);
	return n;
}
