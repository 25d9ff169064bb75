/*
 * The results of the correlator: a pending tap evaluated against the
 * frames held once its window is closed (correlate_advance()) or at the
 * end of the input (correlate_finish()), and handed out oldest first.
 */
#include "correlate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_frames.h"
#include "correlate_int.h"
#include "correlate_intern.h"
#include "correlate_taps.h"
#include "foreground.h"
#include "layername.h"

/*
 * The matching rule of correlate.h, read as a cascade: the first kind of
 * identity both sides know decides.  Two known pids that differ are two
 * processes, whatever their layers say.
 */
static int
frame_matches(const struct frame *f, const struct ptap *p)
{
	if (f->pid > 0 && p->pid > 0)
		return f->pid == p->pid;
	if (f->app)
		return f->app == p->app;
	if (!f->layer || !p->app)
		return 0;
	return layername_belongs(f->layer->s, p->app->s, p->app->len);
}

/*
 * The same rule for a launch's target B, known by its pid and package
 * from the foreground timeline rather than interned.
 */
static int
frame_is_target(const struct frame *f, int32_t pid, const char *app, size_t len)
{
	if (f->pid > 0 && pid > 0)
		return f->pid == pid;
	if (f->app)
		return f->app->len == len && memcmp(f->app->s, app, len) == 0;
	if (!f->layer)
		return 0;
	return layername_belongs(f->layer->s, app, len);
}

/* Whether p has a launch window at all (correlate_set_foreground()). */
static int
launch_on(const struct correlate *c, const struct ptap *p)
{
	return c->fg && p->launch_end_ns > p->t_up_ns;
}

/*
 * The switch of p (correlate.h): returns 1 for a launch, 2 for a
 * navigation, each with *sw, or 0 for none.
 */
static int
find_switch(const struct correlate *c, const struct ptap *p,
	    struct foreground_switch *sw)
{
	struct foreground_switch base;

	if (!launch_on(c, p) ||
	    foreground_switch_at(c->fg, p->t_up_ns, &base) < 0 ||
	    foreground_find_change(c->fg, p->t_up_ns, p->launch_end_ns, sw) !=
		    1)
		return 0;
	return strcmp(sw->package, base.package) != 0 ? 1 : 2;
}

/*
 * What p still waits for because of its launch window: returns 1 when
 * the timeline may still gain a switch that changes its answer (it is not
 * complete to the known switch, or to launch_end without one), else 0
 * with *until the time the input and frame watermarks must pass: the
 * launch window's end for a launch (B's frames), the switch for a
 * navigation (no touch-down before it may still come), and INT64_MIN
 * without a switch, which no touch-down can make.
 */
static int
launch_blocked(const struct correlate *c, const struct ptap *p, int64_t *until)
{
	struct foreground_switch sw;
	int64_t complete;
	int kind;

	*until = INT64_MIN;
	/* Nothing in force at t_up: nothing to switch from, ever. */
	if (!launch_on(c, p) ||
	    foreground_switch_at(c->fg, p->t_up_ns, &sw) < 0)
		return 0;
	complete = foreground_complete(c->fg);
	kind = find_switch(c, p, &sw);
	if (kind == 0)
		return complete < p->launch_end_ns;
	if (complete < sw.t_ns)
		return 1;
	*until = kind == 1 ? p->launch_end_ns : sw.t_ns;
	return 0;
}

static int
rframe_cmp(const void *a, const void *b)
{
	const struct rframe *x = a, *y = b;

	if (x->present_ns != y->present_ns)
		return x->present_ns < y->present_ns ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/*
 * Computes the result of p from the frames held; truncated when the window
 * could not be closed.
 */
static int
evaluate(struct correlate *c, const struct ptap *p, int truncated,
	 struct correlate_result *res)
{
	uint32_t i;
	size_t n = 0, k;

	memset(res, 0, sizeof(*res));
	res->id = p->id;
	res->window_end_ns = p->window_end_ns;
	res->first_frame_ns = -1;
	res->settle_ns = -1;
	res->first_present_ns = -1;
	res->last_present_ns = -1;
	/*
	 * Touch times have microsecond resolution (an evdev timeval,
	 * getevent's six digits): a tap stamped t_up happened within the
	 * microsecond after it, so coverage that starts inside that
	 * microsecond cannot be said to start after the tap.
	 */
	if (!c->have_coverage ||
	    c->coverage_start_ns >=
		    correlate_sat_add(p->t_up_ns,
				      CORRELATE_INPUT_RESOLUTION_NS)) {
		res->status = CORRELATE_FRAMES_UNAVAILABLE;
		return 0;
	}

	for (i = correlate_frames_lower_present(
		     c, correlate_sat_sub(p->t_up_ns, c->cfg.busy_before_ns));
	     i < c->nframes; i++) {
		const struct frame *f = &c->pool[c->by_present[i]];

		if (f->present_ns >= p->t_up_ns)
			break;
		if (frame_matches(f, p)) {
			res->flags |= CORRELATE_FLAG_BUSY_BEFORE;
			break;
		}
	}

	for (i = correlate_frames_lower_start(c, p->t_up_ns); i < c->nframes;
	     i++) {
		const struct frame *f = &c->pool[c->by_start[i]];

		if (f->start_ns >= p->window_end_ns)
			break;
		if (!frame_matches(f, p))
			continue;
		if (n == c->scratch_cap) {
			size_t cap = c->scratch_cap ? c->scratch_cap * 2 : 64;
			struct rframe *s;

			s = realloc(c->scratch, cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			c->scratch = s;
			c->scratch_cap = cap;
		}
		c->scratch[n].present_ns = f->present_ns;
		c->scratch[n].start_ns = f->start_ns;
		c->scratch[n].seq = f->seq;
		c->scratch[n].jank = f->jank;
		c->scratch[n].jank_tags = f->jank_tags;
		c->scratch[n].flags = f->flags;
		n++;
	}
	if (n == 0) {
		res->status =
			truncated ? CORRELATE_TRUNCATED : CORRELATE_NO_RESPONSE;
		return 0;
	}
	qsort(c->scratch, n, sizeof(*c->scratch), rframe_cmp);

	/*
	 * frames is an int32 in the result and in the store; a window with
	 * more frames than that cannot happen (5 s at any refresh rate), so
	 * the list is cut to match rather than disagree with it.
	 */
	if (n > INT32_MAX)
		n = INT32_MAX;
	if (n > c->resp_cap) {
		struct correlate_resp_frame *rf;

		rf = realloc(c->resp, n * sizeof(*rf));
		if (!rf)
			return -ENOMEM;
		c->resp = rf;
		c->resp_cap = n;
	}
	res->frames = (int32_t)n;
	for (k = 0; k < n; k++) {
		res->jank |= c->scratch[k].jank;
		res->jank_tags |= c->scratch[k].jank_tags;
		if (c->scratch[k].flags & CORRELATE_FRAME_CLOCK_ASSUMED)
			res->flags |= CORRELATE_FLAG_CLOCK_ASSUMED;
	}
	if (c->scratch[0].flags & CORRELATE_FRAME_START_ESTIMATED)
		res->flags |= CORRELATE_FLAG_START_ESTIMATED;
	for (k = 0; k + 1 < n; k++)
		if (correlate_sat_sub(c->scratch[k + 1].present_ns,
				      c->scratch[k].present_ns) >
		    c->cfg.settle_quiet_ns)
			break;
	for (i = 0; i < n; i++) {
		c->resp[i].start_ns = c->scratch[i].start_ns;
		c->resp[i].present_ns = c->scratch[i].present_ns;
		c->resp[i].jank = c->scratch[i].jank;
		c->resp[i].in_burst = i <= k;
	}
	if ((c->scratch[0].flags | c->scratch[k].flags) &
	    CORRELATE_FRAME_PRESENT_ESTIMATED)
		res->flags |= CORRELATE_FLAG_PRESENT_ESTIMATED;
	res->resp = c->resp;
	res->nresp = n;
	res->first_present_ns = c->scratch[0].present_ns;
	res->last_present_ns = c->scratch[k].present_ns;
	res->first_frame_ns =
		correlate_sat_sub(res->first_present_ns, p->t_up_ns);
	res->settle_ns = correlate_sat_sub(res->last_present_ns, p->t_up_ns);
	if (truncated) {
		res->status = CORRELATE_TRUNCATED;
		return 0;
	}
	res->status = CORRELATE_OK;
	if (k == n - 1 &&
	    p->window_end_ns < correlate_sat_add(res->last_present_ns,
						 c->cfg.settle_quiet_ns))
		res->flags |= p->by_touch ? CORRELATE_FLAG_INTERRUPTED
					  : CORRELATE_FLAG_SETTLE_CAPPED;
	return 0;
}

/* Whether the frame source covers the tap (evaluate()'s first test). */
static int
covered(const struct correlate *c, const struct ptap *p)
{
	return c->have_coverage &&
	       c->coverage_start_ns <
		       correlate_sat_add(p->t_up_ns,
					 CORRELATE_INPUT_RESOLUTION_NS);
}

/*
 * The launch or navigation of p into res (correlate.h): B's response
 * frames in the launch window, in present order, and their burst.  Uses
 * the scratch list, which evaluate() is done with.
 */
static int
evaluate_launch(struct correlate *c, const struct ptap *p,
		struct correlate_result *res)
{
	struct foreground_switch sw;
	size_t n = 0, k, len;
	uint32_t i;
	int kind;

	res->launch_first_frame_ns = -1;
	res->launch_settle_ns = -1;
	kind = find_switch(c, p, &sw);
	if (kind == 0)
		return 0;
	res->flags |=
		kind == 1 ? CORRELATE_FLAG_LAUNCH : CORRELATE_FLAG_NAVIGATION;
	res->switch_ns = sw.t_ns;
	res->target_pid = sw.pid;
	res->target_app = sw.package;
	res->target_activity = sw.activity;
	if (kind != 1 || !covered(c, p))
		return 0;
	len = strlen(sw.package);
	for (i = correlate_frames_lower_start(c, p->t_up_ns); i < c->nframes;
	     i++) {
		const struct frame *f = &c->pool[c->by_start[i]];

		if (f->start_ns >= p->launch_end_ns)
			break;
		if (!frame_is_target(f, sw.pid, sw.package, len))
			continue;
		if (n == c->scratch_cap) {
			size_t cap = c->scratch_cap ? c->scratch_cap * 2 : 64;
			struct rframe *s;

			s = realloc(c->scratch, cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			c->scratch = s;
			c->scratch_cap = cap;
		}
		memset(&c->scratch[n], 0, sizeof(c->scratch[n]));
		c->scratch[n].present_ns = f->present_ns;
		c->scratch[n].start_ns = f->start_ns;
		c->scratch[n].seq = f->seq;
		n++;
	}
	if (n == 0)
		return 0;
	qsort(c->scratch, n, sizeof(*c->scratch), rframe_cmp);
	for (k = 0; k + 1 < n; k++)
		if (correlate_sat_sub(c->scratch[k + 1].present_ns,
				      c->scratch[k].present_ns) >
		    c->cfg.settle_quiet_ns)
			break;
	res->launch_frames = n > INT32_MAX ? INT32_MAX : (int32_t)n;
	res->launch_first_frame_ns =
		correlate_sat_sub(c->scratch[0].present_ns, p->t_up_ns);
	res->launch_settle_ns =
		correlate_sat_sub(c->scratch[k].present_ns, p->t_up_ns);
	return 0;
}

/*
 * Evaluates the oldest pending tap, removes it, and hands it to cb.  The
 * tap is consumed even when cb fails, so a failing consumer never sees a
 * tap twice.
 */
static int
emit_oldest(struct correlate *c, int truncated, unsigned flags, correlate_cb cb,
	    void *ctx)
{
	struct correlate_result res;
	struct ptap p = c->taps[c->tap_head];
	int r;

	if ((r = evaluate(c, &p, truncated, &res)) < 0)
		return r;
	if ((r = evaluate_launch(c, &p, &res)) < 0)
		return r;
	res.flags |= flags;
	c->tap_head++;
	if (c->tap_head == c->tap_end)
		c->tap_head = c->tap_end = 0;
	correlate_unintern(c, p.app);
	return cb ? cb(ctx, &res) : 0;
}

int
correlate_advance(struct correlate *c, int64_t frames_wm, int64_t input_wm,
		  correlate_cb cb, void *ctx)
{
	int r = 0;

	c->frames_wm = correlate_max64(c->frames_wm, frames_wm);
	c->input_wm = correlate_max64(c->input_wm, input_wm);
	while (c->tap_head < c->tap_end) {
		const struct ptap *p = &c->taps[c->tap_head];
		int64_t end = p->window_end_ns, until;

		/* A switch or a frame of B may still come before launch_end. */
		if (launch_blocked(c, p, &until))
			break;
		end = correlate_max64(end, until);
		if (end > c->input_wm ||
		    correlate_sat_add(end, c->cfg.frame_latency_ns) >
			    c->frames_wm)
			break;
		if ((r = emit_oldest(c, 0, 0, cb, ctx)) != 0)
			break;
	}
	correlate_taps_forget_touch_downs(c);
	correlate_frames_prune(c);
	return r;
}

int
correlate_finish(struct correlate *c, int64_t frames_end, int64_t input_end,
		 correlate_cb cb, void *ctx)
{
	int r = 0;

	c->frames_wm = correlate_max64(c->frames_wm, frames_end);
	c->input_wm = correlate_max64(c->input_wm, input_end);
	while (c->tap_head < c->tap_end) {
		const struct ptap *p = &c->taps[c->tap_head];
		int truncated = p->window_end_ns > c->input_wm ||
				p->window_end_ns > c->frames_wm;

		if ((r = emit_oldest(c, truncated, 0, cb, ctx)) != 0)
			break;
	}
	correlate_taps_forget_touch_downs(c);
	correlate_frames_prune(c);
	return r;
}

/*
 * The quiet deadline of p: the latest present of a response frame fed so
 * far plus settle_quiet, or window_end without one.  Frames are indexed
 * by start, so the window's frames are scanned; a window holds a few
 * hundred at most.
 */
static int64_t
quiet_deadline(const struct correlate *c, const struct ptap *p)
{
	int64_t last = INT64_MIN;
	uint32_t i;

	for (i = correlate_frames_lower_start(c, p->t_up_ns); i < c->nframes;
	     i++) {
		const struct frame *f = &c->pool[c->by_start[i]];

		if (f->start_ns >= p->window_end_ns)
			break;
		if (frame_matches(f, p) && f->present_ns > last)
			last = f->present_ns;
	}
	if (last == INT64_MIN)
		return p->window_end_ns;
	return correlate_sat_add(last, c->cfg.settle_quiet_ns);
}

/*
 * The launch's part of the quiet deadline of p: launch_end while no
 * switch is known and the timeline is not complete to it (INT64_MIN once
 * it is); for a launch, the switch (no touch-down before it may still
 * come) and B's latest response present plus settle_quiet, or launch_end
 * without one; the switch for a navigation; INT64_MIN without launch
 * detection.
 */
static int64_t
launch_deadline(const struct correlate *c, const struct ptap *p)
{
	struct foreground_switch sw;
	int64_t last = INT64_MIN;
	size_t len;
	uint32_t i;
	int kind;

	if (!launch_on(c, p))
		return INT64_MIN;
	kind = find_switch(c, p, &sw);
	if (kind == 0)
		return foreground_complete(c->fg) < p->launch_end_ns
			       ? p->launch_end_ns
			       : INT64_MIN;
	if (kind == 2)
		return sw.t_ns;
	len = strlen(sw.package);
	for (i = correlate_frames_lower_start(c, p->t_up_ns); i < c->nframes;
	     i++) {
		const struct frame *f = &c->pool[c->by_start[i]];

		if (f->start_ns >= p->launch_end_ns)
			break;
		if (frame_is_target(f, sw.pid, sw.package, len) &&
		    f->present_ns > last)
			last = f->present_ns;
	}
	if (last == INT64_MIN)
		return p->launch_end_ns;
	return correlate_max64(sw.t_ns,
			       correlate_sat_add(last, c->cfg.settle_quiet_ns));
}

/* Whether the timeline may still gain a switch that changes p's answer. */
static int
launch_waits(const struct correlate *c, const struct ptap *p)
{
	int64_t until;

	return launch_blocked(c, p, &until);
}

int64_t
correlate_quiet_deadline(const struct correlate *c)
{
	const struct ptap *p;

	if (c->tap_head == c->tap_end)
		return INT64_MAX;
	p = &c->taps[c->tap_head];
	return correlate_max64(quiet_deadline(c, p), launch_deadline(c, p));
}

int
correlate_expire(struct correlate *c, int64_t complete_ns, unsigned flags,
		 correlate_cb cb, void *ctx)
{
	int64_t until = complete_ns < c->input_wm ? complete_ns : c->input_wm;
	int r = 0;

	while (c->tap_head < c->tap_end) {
		const struct ptap *p = &c->taps[c->tap_head];

		if (correlate_max64(quiet_deadline(c, p),
				    launch_deadline(c, p)) > until ||
		    launch_waits(c, p))
			break;
		if ((r = emit_oldest(c, 0, flags, cb, ctx)) != 0)
			break;
	}
	correlate_taps_forget_touch_downs(c);
	correlate_frames_prune(c);
	return r;
}
