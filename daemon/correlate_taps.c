/* The pending taps of the correlator and the touch-downs that end them. */
#include "correlate_taps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_intern.h"

#define MAX_TOUCH_DOWNS 65536u

/*
 * Keeps touch-downs after the last fed t_up and the input watermark: a tap
 * still to come ends up at or after both, and its window ends at the first
 * touch-down after its t_up, which may already have been seen.
 */
static int
remember_touch_down(struct correlate *c, int64_t t)
{
	int64_t *n;
	size_t pos;

	if (t <= correlate_max64(c->input_wm, c->last_tap_up_ns))
		return 0;
	if (c->ntds == MAX_TOUCH_DOWNS) {
		memmove(c->tds, c->tds + 1, (c->ntds - 1) * sizeof(*c->tds));
		c->ntds--;
		c->stats.touch_downs_dropped++;
	}
	if (c->ntds == c->tds_cap) {
		size_t cap = c->tds_cap ? c->tds_cap * 2 : 16;

		n = realloc(c->tds, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->tds = n;
		c->tds_cap = cap;
	}
	for (pos = c->ntds; pos > 0 && c->tds[pos - 1] > t; pos--)
		;
	memmove(c->tds + pos + 1, c->tds + pos,
		(c->ntds - pos) * sizeof(*c->tds));
	c->tds[pos] = t;
	c->ntds++;
	return 0;
}

void
correlate_taps_forget_touch_downs(struct correlate *c)
{
	int64_t keep_after = correlate_max64(c->input_wm, c->last_tap_up_ns);
	size_t i;

	for (i = 0; i < c->ntds && c->tds[i] <= keep_after; i++)
		;
	if (i == 0)
		return;
	memmove(c->tds, c->tds + i, (c->ntds - i) * sizeof(*c->tds));
	c->ntds -= i;
}

/*
 * Ends the window of p, and its launch window, at touch-down t if t falls
 * inside them.
 */
static void
close_window(const struct correlate *c, struct ptap *p, int64_t t)
{
	if (t > p->t_up_ns && t < p->window_end_ns &&
	    t < correlate_sat_add(p->t_up_ns, c->cfg.settle_cap_ns)) {
		p->window_end_ns = t;
		p->by_touch = 1;
	}
	if (t > p->t_up_ns && t < p->launch_end_ns)
		p->launch_end_ns = t;
}

int
correlate_touch_down(struct correlate *c, int64_t t_ns)
{
	int64_t cap =
		correlate_max64(c->cfg.settle_cap_ns, c->cfg.launch_cap_ns);
	size_t i;

	/*
	 * Taps are sorted by t_up, so once one's caps lie at or before t_ns
	 * every older tap's do too.
	 */
	for (i = c->tap_end; i > c->tap_head; i--) {
		struct ptap *p = &c->taps[i - 1];

		if (p->t_up_ns >= t_ns)
			continue;
		if (correlate_sat_add(p->t_up_ns, cap) <= t_ns)
			break;
		close_window(c, p, t_ns);
	}
	return remember_touch_down(c, t_ns);
}

int
correlate_feed_tap(struct correlate *c, const struct correlate_tap *tap)
{
	struct istr *app = NULL;
	struct ptap p;
	size_t i, lo, hi, mid;
	int r;

	if ((r = correlate_intern(c, tap->app, &app)) < 0)
		return r;
	if (c->tap_end == c->tap_cap) {
		if (c->tap_head > 0) {
			memmove(c->taps, c->taps + c->tap_head,
				(c->tap_end - c->tap_head) * sizeof(*c->taps));
			c->tap_end -= c->tap_head;
			c->tap_head = 0;
		} else {
			size_t cap = c->tap_cap ? c->tap_cap * 2 : 16;
			struct ptap *n = realloc(c->taps, cap * sizeof(*n));

			if (!n) {
				correlate_unintern(c, app);
				return -ENOMEM;
			}
			c->taps = n;
			c->tap_cap = cap;
		}
	}
	c->stats.taps++;
	if (tap->t_up_ns < c->last_tap_up_ns || tap->t_up_ns < c->input_wm)
		c->stats.taps_late++;

	memset(&p, 0, sizeof(p));
	p.id = tap->id;
	p.t_down_ns = tap->t_down_ns;
	p.t_up_ns = tap->t_up_ns;
	p.pid = tap->pid;
	p.app = app;
	p.window_end_ns = correlate_sat_add(tap->t_up_ns, c->cfg.settle_cap_ns);
	/* Without launch detection the launch window is empty. */
	p.launch_end_ns =
		c->fg && c->cfg.launch_cap_ns > 0
			? correlate_sat_add(tap->t_up_ns, c->cfg.launch_cap_ns)
			: tap->t_up_ns;
	for (lo = 0, hi = c->ntds; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if (c->tds[mid] <= p.t_up_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->ntds)
		close_window(c, &p, c->tds[lo]);

	/* In t_up order; a tap fed out of order still goes in its place. */
	for (i = c->tap_end;
	     i > c->tap_head && c->taps[i - 1].t_up_ns > p.t_up_ns; i--)
		;
	memmove(c->taps + i + 1, c->taps + i,
		(c->tap_end - i) * sizeof(*c->taps));
	c->taps[i] = p;
	c->tap_end++;
	c->last_tap_up_ns = correlate_max64(c->last_tap_up_ns, p.t_up_ns);
	correlate_taps_forget_touch_downs(c);
	return 0;
}
