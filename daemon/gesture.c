/*
 * Gesture classifier.  Only the first contact of a gesture decides between
 * tap, long press and swipe, as in Android's GestureDetector, where a
 * second pointer cancels the tap and the long press: any second contact
 * makes the gesture multi.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "gesture.h"
#include "store.h"

struct gesture {
	struct gesture_config cfg;
	double slop2;

	int in_progress;
	uint64_t first; /* serial of the first contact */
	int64_t t_down; /* its down frame */
	double x0, y0;	/* its down point, display px */
	double max_d2;	/* its largest squared distance from there */
	int swiped;	/* it left the slop before the timeout */
	unsigned fingers;
	unsigned flags;
};

void
gesture_config_default(struct gesture_config *cfg)
{
	if (cfg == NULL)
		return;
	cfg->slop_px = 8.0;
	cfg->long_press_ns = 400000000;
	cfg->have_mapping = 0;
	cfg->x.min = 0;
	cfg->x.max = 0;
	cfg->y.min = 0;
	cfg->y.max = 0;
	cfg->width_px = 0;
	cfg->height_px = 0;
}

static int
gesture_config_check(const struct gesture_config *cfg)
{
	/* Written so that a NaN fails too. */
	if (!(cfg->slop_px >= 0.0) || isinf(cfg->slop_px))
		return -EINVAL;
	if (cfg->long_press_ns <= 0)
		return -EINVAL;
	if (!cfg->have_mapping)
		return 0;
	if (cfg->x.max < cfg->x.min || cfg->y.max < cfg->y.min)
		return -EINVAL;
	if (cfg->width_px <= 0 || cfg->height_px <= 0)
		return -EINVAL;
	return 0;
}

int
gesture_new(const struct gesture_config *cfg, struct gesture **out)
{
	struct gesture *g;
	int r;

	if (cfg == NULL || out == NULL)
		return -EINVAL;
	r = gesture_config_check(cfg);
	if (r < 0)
		return r;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	g->cfg = *cfg;
	g->slop2 = cfg->slop_px * cfg->slop_px;
	*out = g;
	return 0;
}

void
gesture_free(struct gesture *g)
{
	free(g);
}

int
gesture_in_progress(const struct gesture *g)
{
	return g != NULL && g->in_progress;
}

void
gesture_cancel(struct gesture *g)
{
	if (g != NULL)
		g->in_progress = 0;
}

const char *
gesture_kind_name(enum gesture_kind kind)
{
	switch (kind) {
	case GESTURE_TAP:
		return store_kind_names[STORE_KIND_TAP];
	case GESTURE_LONG_PRESS:
		return store_kind_names[STORE_KIND_LONG_PRESS];
	case GESTURE_SWIPE:
		return store_kind_names[STORE_KIND_SWIPE];
	case GESTURE_MULTI:
		return store_kind_names[STORE_KIND_MULTI];
	}
	return "unknown";
}

static double
gesture_axis_map(const struct gesture_axis *a, int32_t size, int32_t raw)
{
	double range = (double)a->max - (double)a->min + 1.0;

	/* An unchecked config must not divide by zero. */
	if (!(range > 0.0))
		return raw;
	return ((double)raw - (double)a->min) * (double)size / range;
}

void
gesture_map(const struct gesture_config *cfg, int32_t raw_x, int32_t raw_y,
	    double *x, double *y)
{
	double mx = raw_x, my = raw_y;

	if (cfg != NULL && cfg->have_mapping) {
		mx = gesture_axis_map(&cfg->x, cfg->width_px, raw_x);
		my = gesture_axis_map(&cfg->y, cfg->height_px, raw_y);
	}
	if (x != NULL)
		*x = mx;
	if (y != NULL)
		*y = my;
}

/* Time from a to b, saturated: hostile timestamps must not overflow. */
static int64_t
gesture_elapsed(int64_t a, int64_t b)
{
	int64_t d;

	if (__builtin_sub_overflow(b, a, &d))
		return b > a ? INT64_MAX : INT64_MIN;
	return d;
}

static void
gesture_start(struct gesture *g, const struct touch_point *pt)
{
	g->in_progress = 1;
	g->first = pt->contact;
	g->t_down = pt->time_ns;
	gesture_map(&g->cfg, pt->x, pt->y, &g->x0, &g->y0);
	g->max_d2 = 0.0;
	g->swiped = 0;
	/* Two contacts can land in one frame: the second says so. */
	g->fingers = pt->active > 0 ? pt->active : 1;
	g->flags = 0;
}

static void
gesture_track_first(struct gesture *g, const struct touch_point *pt)
{
	double x, y, d2;

	gesture_map(&g->cfg, pt->x, pt->y, &x, &y);
	d2 = (x - g->x0) * (x - g->x0) + (y - g->y0) * (y - g->y0);
	if (d2 > g->max_d2)
		g->max_d2 = d2;
	/*
	 * Android stops the long-press timer once the finger leaves the
	 * slop; after the timer fired, leaving it no longer matters.
	 */
	if (d2 > g->slop2 &&
	    gesture_elapsed(g->t_down, pt->time_ns) < g->cfg.long_press_ns)
		g->swiped = 1;
}

static void
gesture_finish(struct gesture *g, const struct touch_point *pt,
	       struct gesture_record *rec)
{
	int64_t duration = gesture_elapsed(g->t_down, pt->time_ns);

	g->in_progress = 0;
	if (rec == NULL)
		return;
	if (g->fingers > 1)
		rec->kind = GESTURE_MULTI;
	else if (g->swiped)
		rec->kind = GESTURE_SWIPE;
	else if (duration >= g->cfg.long_press_ns)
		rec->kind = GESTURE_LONG_PRESS;
	else
		rec->kind = GESTURE_TAP;
	rec->t_down_ns = g->t_down;
	rec->t_up_ns = pt->time_ns;
	rec->x = g->x0;
	rec->y = g->y0;
	rec->max_dist_px = sqrt(g->max_d2);
	rec->fingers = g->fingers;
	rec->flags = g->flags;
}

int
gesture_feed(struct gesture *g, const struct touch_point *pt,
	     struct gesture_record *rec)
{
	if (g == NULL || pt == NULL)
		return 0;

	if (!g->in_progress) {
		/*
		 * Only a down starts a gesture; anything else belongs to a
		 * contact that went down before this classifier saw it.
		 */
		if (pt->phase != TOUCH_DOWN)
			return 0;
		gesture_start(g, pt);
	}

	if (pt->flags & TOUCH_FLAG_DROPPED)
		g->flags |= GESTURE_FLAG_INPUT_DROPPED;
	if (pt->phase == TOUCH_DOWN && pt->active > g->fingers)
		g->fingers = pt->active;
	if (pt->contact == g->first && pt->phase != TOUCH_DOWN)
		gesture_track_first(g, pt);

	if (pt->phase == TOUCH_UP && pt->active == 0) {
		gesture_finish(g, pt, rec);
		return 1;
	}
	return 0;
}
