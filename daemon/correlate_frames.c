/* The frames of the correlator, indexed by start and by present. */
#include "correlate_frames.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_intern.h"

#define MIN_POOL 256u

uint32_t
correlate_frames_lower_start(const struct correlate *c, int64_t t)
{
	uint32_t lo = 0, hi = c->nframes, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->pool[c->by_start[mid]].start_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t
correlate_frames_lower_present(const struct correlate *c, int64_t t)
{
	uint32_t lo = 0, hi = c->nframes, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->pool[c->by_present[mid]].present_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Releases a frame's slot and its names. */
static void
frame_release(struct correlate *c, uint32_t slot)
{
	struct frame *f = &c->pool[slot];

	correlate_unintern(c, f->app);
	correlate_unintern(c, f->layer);
	f->app = f->layer = NULL;
	c->free_slots[c->nfree++] = slot;
}

/*
 * Drops the first n frames in present order.  None of them started after
 * the latest of their starts, so the by_start scan stops there.  On the
 * way it passes over frames that started as early but are presented
 * later, which stay: the scan costs what is dropped plus what is in
 * flight, not what is held.  Both windows move forward, the frames that
 * stay shifted up to the new start of by_start, so nothing after the
 * scan moves.  Names are released in by_start order, as the slots go
 * back to the free list.
 */
static void
drop_oldest(struct correlate *c, uint32_t n)
{
	int64_t max_start = INT64_MIN;
	uint32_t i, j, w, slot;

	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		struct frame *f = &c->pool[c->by_present[i]];

		f->dead = 1;
		max_start = correlate_max64(max_start, f->start_ns);
	}
	c->by_present += n;
	for (i = 0; i < c->nframes; i++) {
		slot = c->by_start[i];
		if (c->pool[slot].start_ns > max_start)
			break;
		if (c->pool[slot].dead)
			frame_release(c, slot);
	}
	/* A released slot keeps its dead mark until it is handed out. */
	for (j = w = i; j-- > 0;) {
		slot = c->by_start[j];
		if (!c->pool[slot].dead)
			c->by_start[--w] = slot;
	}
	c->by_start += w;
	c->nframes -= n;
}

void
correlate_frames_prune(struct correlate *c)
{
	int64_t h;

	h = correlate_max64(c->input_wm, c->last_tap_up_ns);
	if (c->tap_head < c->tap_end && c->taps[c->tap_head].t_up_ns < h)
		h = c->taps[c->tap_head].t_up_ns;
	/*
	 * The horizon never moves back: a frame dropped once stays dropped,
	 * and a tap fed behind it breaks the caller's side of the contract
	 * (counted in taps_late).
	 */
	if (h > c->horizon)
		c->horizon = h;
	drop_oldest(c, correlate_frames_lower_present(
			       c, correlate_sat_sub(c->horizon,
						    c->cfg.busy_before_ns)));
}

static int
pool_grow(struct correlate *c)
{
	struct frame *pool;
	uint32_t n, *fs;

	if (c->pool_cap >= UINT32_MAX / 2)
		return -ENOMEM;
	n = c->pool_cap ? c->pool_cap * 2 : MIN_POOL;
	/*
	 * Each array is grown on its own; one that grew while a later one
	 * failed is merely larger than pool_cap says, which is harmless.
	 */
	pool = realloc(c->pool, n * sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	c->pool = pool;
	fs = realloc(c->free_slots, n * sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	c->free_slots = fs;
	c->pool_cap = n;
	return 0;
}

/* Moves an index window to the start of its array. */
static void
index_rewind(uint32_t *mem, uint32_t **win, uint32_t n)
{
	if (*win != mem)
		memmove(mem, *win, n * sizeof(*mem));
	*win = mem;
}

/*
 * Makes room for one more entry at the end of both index windows: a
 * window is moved back to the start of its array when at most half of it
 * is used, else both arrays double.
 */
static int
index_room(struct correlate *c)
{
	uint32_t *s, *p, cap;

	if (c->start_mem != NULL &&
	    (size_t)(c->by_start - c->start_mem) + c->nframes < c->idx_cap &&
	    (size_t)(c->by_present - c->present_mem) + c->nframes < c->idx_cap)
		return 0;
	if (c->start_mem != NULL && c->nframes < c->idx_cap / 2) {
		index_rewind(c->start_mem, &c->by_start, c->nframes);
		index_rewind(c->present_mem, &c->by_present, c->nframes);
		return 0;
	}
	if (c->idx_cap >= UINT32_MAX / 4)
		return -ENOMEM;
	cap = c->idx_cap ? c->idx_cap * 2 : 2 * MIN_POOL;
	s = malloc(cap * sizeof(*s));
	p = malloc(cap * sizeof(*p));
	if (!s || !p) {
		free(s);
		free(p);
		return -ENOMEM;
	}
	if (c->nframes > 0) {
		memcpy(s, c->by_start, c->nframes * sizeof(*s));
		memcpy(p, c->by_present, c->nframes * sizeof(*p));
	}
	free(c->start_mem);
	free(c->present_mem);
	c->start_mem = c->by_start = s;
	c->present_mem = c->by_present = p;
	c->idx_cap = cap;
	return 0;
}

static int
frame_slot(struct correlate *c, uint32_t *slot)
{
	int r;

	if (c->nfree > 0) {
		*slot = c->free_slots[--c->nfree];
		return 0;
	}
	if (c->pool_used == c->pool_cap && (r = pool_grow(c)) < 0)
		return r;
	*slot = c->pool_used++;
	return 0;
}

int
correlate_feed_frame(struct correlate *c, const struct correlate_frame *frame)
{
	struct istr *app = NULL, *layer = NULL;
	uint32_t slot, pos, lo, hi, mid, n;
	struct frame *f;
	int r;

	c->stats.frames++;
	if (frame->present_ns < frame->start_ns) {
		c->stats.frames_invalid++;
		return 0;
	}
	if (frame->present_ns <
	    correlate_sat_sub(c->horizon, c->cfg.busy_before_ns)) {
		c->stats.frames_stale++;
		return 0;
	}
	if (c->nframes >= c->max_frames) {
		/* Evict in batches so the cap costs O(1) per frame. */
		n = c->nframes - c->max_frames + 1;
		if (n < c->max_frames / 16)
			n = c->max_frames / 16;
		if (n > c->nframes)
			n = c->nframes;
		drop_oldest(c, n);
		c->stats.frames_evicted += n;
	}
	if ((r = correlate_intern(c, frame->app, &app)) < 0)
		goto out;
	if ((r = correlate_intern(c, frame->layer, &layer)) < 0)
		goto out;
	if ((r = index_room(c)) < 0)
		goto out;
	if ((r = frame_slot(c, &slot)) < 0)
		goto out;
	f = &c->pool[slot];
	f->start_ns = frame->start_ns;
	f->present_ns = frame->present_ns;
	f->seq = c->next_seq++;
	f->pid = frame->pid;
	f->jank = frame->jank;
	f->jank_tags = frame->jank_tags;
	f->flags = frame->flags;
	f->app = app;
	f->layer = layer;
	f->dead = 0;
	app = layer = NULL;

	/*
	 * Insert after every frame with the same key, so ties keep arrival
	 * order.  Frames mostly arrive in order, hence the check at the end.
	 */
	n = c->nframes;
	if (n == 0 || c->pool[c->by_start[n - 1]].start_ns <= f->start_ns) {
		pos = n;
	} else {
		for (lo = 0, hi = n; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (c->pool[c->by_start[mid]].start_ns <= f->start_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		pos = lo;
		memmove(c->by_start + pos + 1, c->by_start + pos,
			(n - pos) * sizeof(*c->by_start));
	}
	c->by_start[pos] = slot;
	if (n == 0 ||
	    c->pool[c->by_present[n - 1]].present_ns <= f->present_ns) {
		pos = n;
	} else {
		for (lo = 0, hi = n; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (c->pool[c->by_present[mid]].present_ns <=
			    f->present_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		pos = lo;
		memmove(c->by_present + pos + 1, c->by_present + pos,
			(n - pos) * sizeof(*c->by_present));
	}
	c->by_present[pos] = slot;
	c->nframes++;
	r = 0;
out:
	correlate_unintern(c, app);
	correlate_unintern(c, layer);
	return r;
}
