/*
 * The correlator keeps three things: the pending taps in t_up order, the
 * frames that some pending or future tap may still need, and the recent
 * touch-downs that a tap fed late may still need to close its window.
 *
 * Frames live in a pool and are indexed twice: by start (for the response
 * frames, whose start lies in [t_up, window_end)) and by present (for
 * busy_before, whose present lies in [t_up - busy_before, t_up), and for
 * pruning).  Both indexes are sorted arrays: frames arrive nearly in
 * order, so an insertion moves only the few late ones, and every query is
 * a binary search plus a scan of the frames it returns.
 *
 * Pruning: every tap still to come has t_up >= H, where H is the oldest
 * pending t_up, or when none is pending the larger of the input watermark
 * and the last fed t_up.  Such a tap reads only frames with present >=
 * t_up - busy_before or start >= t_up.  A frame presented before
 * H - busy_before also started before it (frames presented before they
 * start are refused), so no tap can read it again and it goes.
 *
 * The parts: correlate_frames.c (the frames and their pruning),
 * correlate_taps.c (pending taps and touch-downs), correlate_eval.c (the
 * results) and correlate_intern.c (the names).  This one holds the
 * object.
 */
#include "correlate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "correlate_intern.h"

#define MS_NS		   1000000LL
#define DEFAULT_MAX_FRAMES 1000000u

void
correlate_config_default(struct correlate_config *cfg)
{
	cfg->settle_quiet_ns = 300 * MS_NS;
	cfg->settle_cap_ns = 5000 * MS_NS;
	cfg->busy_before_ns = 100 * MS_NS;
	cfg->frame_latency_ns = 1000 * MS_NS;
	cfg->launch_cap_ns = 10000 * MS_NS;
}

int
correlate_new(const struct correlate_config *cfg, struct correlate **out)
{
	struct correlate_config def;
	struct correlate *c;

	if (!cfg) {
		correlate_config_default(&def);
		cfg = &def;
	}
	if (cfg->settle_quiet_ns < 0 || cfg->settle_cap_ns <= 0 ||
	    cfg->busy_before_ns < 0 || cfg->frame_latency_ns < 0 ||
	    cfg->launch_cap_ns < 0)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->cfg = *cfg;
	c->max_frames = DEFAULT_MAX_FRAMES;
	c->last_tap_up_ns = INT64_MIN;
	c->input_wm = INT64_MIN;
	c->frames_wm = INT64_MIN;
	c->horizon = INT64_MIN;
	if (correlate_intern_grow(c) < 0) {
		free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void
correlate_free(struct correlate *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nbuckets; i++) {
		struct istr *s = c->buckets[i], *next;

		for (; s; s = next) {
			next = s->next;
			free(s);
		}
	}
	free(c->buckets);
	free(c->pool);
	free(c->free_slots);
	free(c->start_mem);
	free(c->present_mem);
	free(c->taps);
	free(c->tds);
	free(c->scratch);
	free(c->resp);
	free(c);
}

void
correlate_set_coverage(struct correlate *c, int64_t start_ns)
{
	c->have_coverage = 1;
	c->coverage_start_ns = start_ns;
}

void
correlate_set_foreground(struct correlate *c, const struct foreground *fg)
{
	c->fg = fg;
}

void
correlate_set_max_frames(struct correlate *c, unsigned max)
{
	c->max_frames = max ? max : DEFAULT_MAX_FRAMES;
}

unsigned
correlate_pending(const struct correlate *c)
{
	return (unsigned)(c->tap_end - c->tap_head);
}

unsigned
correlate_frames_held(const struct correlate *c)
{
	return c->nframes;
}

void
correlate_get_stats(const struct correlate *c, struct correlate_stats *st)
{
	*st = c->stats;
}
