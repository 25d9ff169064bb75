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
 */
#include "correlate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MS_NS		   1000000LL
#define DEFAULT_MAX_FRAMES 1000000u
#define MAX_TOUCH_DOWNS	   65536u
#define MIN_POOL	   256u

/* A shared, reference-counted copy of an app or layer name. */
struct istr {
	struct istr *next;
	uint32_t hash;
	uint32_t refs;
	size_t len;
	char s[];
};

struct frame {
	int64_t start_ns;
	int64_t present_ns;
	uint64_t seq; /* arrival order, for ties */
	struct istr *app;
	struct istr *layer;
	int32_t pid;
	uint32_t jank;
	int dead;
};

struct ptap {
	uint64_t id;
	int64_t t_down_ns;
	int64_t t_up_ns;
	int64_t window_end_ns;
	struct istr *app;
	int32_t pid;
	int by_touch; /* the window ended at a touch-down, not at the cap */
};

/* A response frame copied out for sorting. */
struct rframe {
	int64_t present_ns;
	int64_t start_ns;
	uint64_t seq;
	uint32_t jank;
};

struct correlate {
	struct correlate_config cfg;
	int have_coverage;
	int64_t coverage_start_ns;

	struct istr **buckets;
	size_t nbuckets;
	size_t nstrings;

	struct frame *pool;
	uint32_t *free_slots;
	uint32_t *by_start;
	uint32_t *by_present;
	uint32_t pool_cap;  /* slots allocated, and size of the arrays */
	uint32_t pool_used; /* slots ever handed out */
	uint32_t nfree;
	uint32_t nframes;
	uint32_t max_frames;
	uint64_t next_seq;

	struct ptap *taps;
	size_t tap_head;
	size_t tap_end;
	size_t tap_cap;
	int64_t last_tap_up_ns;

	int64_t *tds;
	size_t ntds;
	size_t tds_cap;

	int64_t input_wm;
	int64_t frames_wm;
	int64_t horizon;

	struct rframe *scratch;
	size_t scratch_cap;
	/* The response frames of the result being handed out. */
	struct correlate_resp_frame *resp;
	size_t resp_cap;

	struct correlate_stats stats;
};

static int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t
sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static uint32_t
hash_str(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static int
intern_grow(struct correlate *c)
{
	struct istr **nb;
	size_t n, i;

	n = c->nbuckets ? c->nbuckets * 2 : 64;
	nb = calloc(n, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	for (i = 0; i < c->nbuckets; i++) {
		struct istr *s = c->buckets[i], *next;

		for (; s; s = next) {
			next = s->next;
			s->next = nb[s->hash & (n - 1)];
			nb[s->hash & (n - 1)] = s;
		}
	}
	free(c->buckets);
	c->buckets = nb;
	c->nbuckets = n;
	return 0;
}

/*
 * Returns a counted reference to the shared copy of s in *out: NULL for a
 * NULL or empty s, which both mean unknown.  Equal names then share one
 * copy, so comparing apps is comparing pointers.
 */
static int
intern(struct correlate *c, const char *s, struct istr **out)
{
	struct istr *is;
	size_t len;
	uint32_t h;

	*out = NULL;
	if (!s || !*s)
		return 0;
	/* A table that cannot grow still works, with longer chains. */
	if (c->nstrings >= c->nbuckets * 2)
		(void)intern_grow(c);
	len = strlen(s);
	h = hash_str(s, len);
	for (is = c->buckets[h & (c->nbuckets - 1)]; is; is = is->next) {
		if (is->hash == h && is->len == len &&
		    memcmp(is->s, s, len) == 0) {
			is->refs++;
			*out = is;
			return 0;
		}
	}
	is = malloc(sizeof(*is) + len + 1);
	if (!is)
		return -ENOMEM;
	is->hash = h;
	is->refs = 1;
	is->len = len;
	memcpy(is->s, s, len + 1);
	is->next = c->buckets[h & (c->nbuckets - 1)];
	c->buckets[h & (c->nbuckets - 1)] = is;
	c->nstrings++;
	*out = is;
	return 0;
}

static void
unintern(struct correlate *c, struct istr *is)
{
	struct istr **pp;

	if (!is || --is->refs > 0)
		return;
	for (pp = &c->buckets[is->hash & (c->nbuckets - 1)]; *pp;
	     pp = &(*pp)->next) {
		if (*pp == is) {
			*pp = is->next;
			break;
		}
	}
	c->nstrings--;
	free(is);
}

void
correlate_config_default(struct correlate_config *cfg)
{
	cfg->settle_quiet_ns = 300 * MS_NS;
	cfg->settle_cap_ns = 5000 * MS_NS;
	cfg->busy_before_ns = 100 * MS_NS;
	cfg->frame_latency_ns = 1000 * MS_NS;
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
	    cfg->busy_before_ns < 0 || cfg->frame_latency_ns < 0)
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
	if (intern_grow(c) < 0) {
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
	free(c->by_start);
	free(c->by_present);
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

/* The first index of by_start whose frame starts at or after t. */
static uint32_t
lower_start(const struct correlate *c, int64_t t)
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

/* The first index of by_present whose frame is presented at or after t. */
static uint32_t
lower_present(const struct correlate *c, int64_t t)
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

	unintern(c, f->app);
	unintern(c, f->layer);
	f->app = f->layer = NULL;
	c->free_slots[c->nfree++] = slot;
}

/*
 * Drops the first n frames in present order.  None of them started after
 * the latest of their starts, so the by_start scan stops there.  On the
 * way it passes over frames that started as early but are presented
 * later, which stay: the scan costs what is dropped plus what is in
 * flight, not what is held.
 */
static void
drop_oldest(struct correlate *c, uint32_t n)
{
	int64_t max_start = INT64_MIN;
	uint32_t i, w;

	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		struct frame *f = &c->pool[c->by_present[i]];

		f->dead = 1;
		max_start = max64(max_start, f->start_ns);
	}
	memmove(c->by_present, c->by_present + n,
		(c->nframes - n) * sizeof(*c->by_present));
	for (i = w = 0; i < c->nframes; i++) {
		uint32_t slot = c->by_start[i];

		if (c->pool[slot].start_ns > max_start)
			break;
		if (c->pool[slot].dead)
			frame_release(c, slot);
		else
			c->by_start[w++] = slot;
	}
	memmove(c->by_start + w, c->by_start + i,
		(c->nframes - i) * sizeof(*c->by_start));
	c->nframes -= n;
}

static void
prune(struct correlate *c)
{
	int64_t h;

	h = max64(c->input_wm, c->last_tap_up_ns);
	if (c->tap_head < c->tap_end && c->taps[c->tap_head].t_up_ns < h)
		h = c->taps[c->tap_head].t_up_ns;
	/*
	 * The horizon never moves back: a frame dropped once stays dropped,
	 * and a tap fed behind it breaks the caller's side of the contract
	 * (counted in taps_late).
	 */
	if (h > c->horizon)
		c->horizon = h;
	drop_oldest(c, lower_present(
			       c, sat_sub(c->horizon, c->cfg.busy_before_ns)));
}

static int
pool_grow(struct correlate *c)
{
	uint32_t n, *fs, *bs, *bp;
	struct frame *pool;

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
	bs = realloc(c->by_start, n * sizeof(*bs));
	if (!bs)
		return -ENOMEM;
	c->by_start = bs;
	bp = realloc(c->by_present, n * sizeof(*bp));
	if (!bp)
		return -ENOMEM;
	c->by_present = bp;
	c->pool_cap = n;
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
	if (frame->present_ns < sat_sub(c->horizon, c->cfg.busy_before_ns)) {
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
	if ((r = intern(c, frame->app, &app)) < 0)
		goto out;
	if ((r = intern(c, frame->layer, &layer)) < 0)
		goto out;
	if ((r = frame_slot(c, &slot)) < 0)
		goto out;
	f = &c->pool[slot];
	f->start_ns = frame->start_ns;
	f->present_ns = frame->present_ns;
	f->seq = c->next_seq++;
	f->pid = frame->pid;
	f->jank = frame->jank;
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
	unintern(c, app);
	unintern(c, layer);
	return r;
}

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

	if (t <= max64(c->input_wm, c->last_tap_up_ns))
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

static void
forget_touch_downs(struct correlate *c)
{
	int64_t keep_after = max64(c->input_wm, c->last_tap_up_ns);
	size_t i;

	for (i = 0; i < c->ntds && c->tds[i] <= keep_after; i++)
		;
	if (i == 0)
		return;
	memmove(c->tds, c->tds + i, (c->ntds - i) * sizeof(*c->tds));
	c->ntds -= i;
}

/* Ends the window of p at touch-down t if t falls inside it. */
static void
close_window(const struct correlate *c, struct ptap *p, int64_t t)
{
	if (t > p->t_up_ns && t < p->window_end_ns &&
	    t < sat_add(p->t_up_ns, c->cfg.settle_cap_ns)) {
		p->window_end_ns = t;
		p->by_touch = 1;
	}
}

int
correlate_touch_down(struct correlate *c, int64_t t_ns)
{
	size_t i;

	/*
	 * Taps are sorted by t_up, so once one's cap lies at or before t_ns
	 * every older tap's does too.
	 */
	for (i = c->tap_end; i > c->tap_head; i--) {
		struct ptap *p = &c->taps[i - 1];

		if (p->t_up_ns >= t_ns)
			continue;
		if (sat_add(p->t_up_ns, c->cfg.settle_cap_ns) <= t_ns)
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

	if ((r = intern(c, tap->app, &app)) < 0)
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
				unintern(c, app);
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
	p.window_end_ns = sat_add(tap->t_up_ns, c->cfg.settle_cap_ns);
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
	c->last_tap_up_ns = max64(c->last_tap_up_ns, p.t_up_ns);
	forget_touch_downs(c);
	return 0;
}

/*
 * The matching rule of correlate.h, read as a cascade: the first kind of
 * identity both sides know decides.  Two known pids that differ are two
 * processes, whatever their layers say.
 */
static int
frame_matches(const struct frame *f, const struct ptap *p)
{
	const char *layer;
	size_t n;

	if (f->pid > 0 && p->pid > 0)
		return f->pid == p->pid;
	if (f->app)
		return f->app == p->app;
	if (!f->layer || !p->app)
		return 0;
	layer = f->layer->s;
	if (strncmp(layer, "TX - ", 5) == 0)
		layer += 5;
	n = p->app->len;
	if (strncmp(layer, p->app->s, n) != 0)
		return 0;
	return layer[n] == '\0' || layer[n] == '/' || layer[n] == '#' ||
	       layer[n] == ' ';
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
	if (!c->have_coverage || c->coverage_start_ns > p->t_up_ns) {
		res->status = CORRELATE_FRAMES_UNAVAILABLE;
		return 0;
	}

	for (i = lower_present(c, sat_sub(p->t_up_ns, c->cfg.busy_before_ns));
	     i < c->nframes; i++) {
		const struct frame *f = &c->pool[c->by_present[i]];

		if (f->present_ns >= p->t_up_ns)
			break;
		if (frame_matches(f, p)) {
			res->flags |= CORRELATE_FLAG_BUSY_BEFORE;
			break;
		}
	}

	for (i = lower_start(c, p->t_up_ns); i < c->nframes; i++) {
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
	for (k = 0; k < n; k++)
		res->jank |= c->scratch[k].jank;
	for (k = 0; k + 1 < n; k++)
		if (sat_sub(c->scratch[k + 1].present_ns,
			    c->scratch[k].present_ns) > c->cfg.settle_quiet_ns)
			break;
	for (i = 0; i < n; i++) {
		c->resp[i].start_ns = c->scratch[i].start_ns;
		c->resp[i].present_ns = c->scratch[i].present_ns;
		c->resp[i].jank = c->scratch[i].jank;
		c->resp[i].in_burst = i <= k;
	}
	res->resp = c->resp;
	res->nresp = n;
	res->first_present_ns = c->scratch[0].present_ns;
	res->last_present_ns = c->scratch[k].present_ns;
	res->first_frame_ns = sat_sub(res->first_present_ns, p->t_up_ns);
	res->settle_ns = sat_sub(res->last_present_ns, p->t_up_ns);
	if (truncated) {
		res->status = CORRELATE_TRUNCATED;
		return 0;
	}
	res->status = CORRELATE_OK;
	if (k == n - 1 && p->window_end_ns < sat_add(res->last_present_ns,
						     c->cfg.settle_quiet_ns))
		res->flags |= p->by_touch ? CORRELATE_FLAG_INTERRUPTED
					  : CORRELATE_FLAG_SETTLE_CAPPED;
	return 0;
}

/*
 * Evaluates the oldest pending tap, removes it, and hands it to cb.  The
 * tap is consumed even when cb fails, so a failing consumer never sees a
 * tap twice.
 */
static int
emit_oldest(struct correlate *c, int truncated, correlate_cb cb, void *ctx)
{
	struct correlate_result res;
	struct ptap p = c->taps[c->tap_head];
	int r;

	if ((r = evaluate(c, &p, truncated, &res)) < 0)
		return r;
	c->tap_head++;
	if (c->tap_head == c->tap_end)
		c->tap_head = c->tap_end = 0;
	unintern(c, p.app);
	return cb ? cb(ctx, &res) : 0;
}

int
correlate_advance(struct correlate *c, int64_t frames_wm, int64_t input_wm,
		  correlate_cb cb, void *ctx)
{
	int r = 0;

	c->frames_wm = max64(c->frames_wm, frames_wm);
	c->input_wm = max64(c->input_wm, input_wm);
	while (c->tap_head < c->tap_end) {
		const struct ptap *p = &c->taps[c->tap_head];

		if (p->window_end_ns > c->input_wm ||
		    sat_add(p->window_end_ns, c->cfg.frame_latency_ns) >
			    c->frames_wm)
			break;
		if ((r = emit_oldest(c, 0, cb, ctx)) != 0)
			break;
	}
	forget_touch_downs(c);
	prune(c);
	return r;
}

int
correlate_finish(struct correlate *c, int64_t frames_end, int64_t input_end,
		 correlate_cb cb, void *ctx)
{
	int r = 0;

	c->frames_wm = max64(c->frames_wm, frames_end);
	c->input_wm = max64(c->input_wm, input_end);
	while (c->tap_head < c->tap_end) {
		const struct ptap *p = &c->taps[c->tap_head];
		int truncated = p->window_end_ns > c->input_wm ||
				p->window_end_ns > c->frames_wm;

		if ((r = emit_oldest(c, truncated, cb, ctx)) != 0)
			break;
	}
	forget_touch_downs(c);
	prune(c);
	return r;
}
