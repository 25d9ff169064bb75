/* The clocks of the FrameTimeline reader. */
#include "frames_ftl_clock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "frames_ftl_join.h"
#include "log.h"
#include "pb.h"

static void release(struct frames_ftl *r);

uint32_t
frames_ftl_clock_default(const struct frames_ftl *r)
{
	if (r->primary_clock != 0)
		return r->primary_clock;
	if (r->cfg.default_clock != 0)
		return r->cfg.default_clock;
	return FTL_CLOCK_BOOTTIME;
}

/*
 * Keeps best, the snapshot found for a time of clock at or after its
 * value, for the times up to the next larger value of that clock in any
 * snapshot: for all of them the search finds best again, since the
 * snapshots at or below such a time are the same ones.  Packets come in
 * nearly time order, so the search runs about once per snapshot.
 */
static void
keep_conversion(struct frames_ftl *r, uint32_t clock,
		const struct frames_ftl_snap *best)
{
	int64_t lo = best->val[clock], hi = INT64_MAX;
	unsigned i;

	for (i = 0; i < r->nsnaps; i++) {
		const struct frames_ftl_snap *s = &r->snaps[i];

		if ((s->have & (1u << clock)) != 0 && s->val[clock] > lo &&
		    s->val[clock] < hi)
			hi = s->val[clock];
	}
	r->conv_clock = clock;
	r->conv_lo = lo;
	r->conv_hi = hi;
	r->conv_snap = best;
}

/* Converts ts of clock to MONOTONIC; counts what it cannot. */
int
frames_ftl_clock_to_mono(struct frames_ftl *r, uint32_t clock, uint64_t ts,
			 int64_t *out)
{
	const struct frames_ftl_snap *s, *best = NULL, *first = NULL;
	int64_t t, mono;
	unsigned i;

	if (ts >= (uint64_t)TS_LIMIT) {
		r->st.ts_rejected++;
		return -ERANGE;
	}
	t = (int64_t)ts;
	if (clock == FTL_CLOCK_MONOTONIC) {
		*out = t;
		return 0;
	}
	if (clock == 0 || clock >= CLOCK_SLOTS) {
		r->st.ts_unconvertible++;
		return -ENOENT;
	}
	if (clock == r->conv_clock && t >= r->conv_lo && t < r->conv_hi) {
		best = r->conv_snap;
		goto convert;
	}
	/* Oldest first, so of equal values the newest snapshot wins. */
	for (i = 0; i < r->nsnaps; i++) {
		s = &r->snaps[(r->snap_next + SNAP_MAX - r->nsnaps + i) %
			      SNAP_MAX];
		if ((s->have & (1u << clock)) == 0)
			continue;
		if (s->val[clock] <= t &&
		    (best == NULL || s->val[clock] >= best->val[clock]))
			best = s;
		if (first == NULL || s->val[clock] < first->val[clock])
			first = s;
	}
	if (best != NULL)
		keep_conversion(r, clock, best);
	if (best == NULL)
		best = first;
	if (best == NULL && r->assume) {
		/* No snapshot to convert with: the time taken as it is. */
		r->st.clock_assumed++;
		*out = t;
		return 1;
	}
	if (best == NULL) {
		r->st.ts_unconvertible++;
		return -ENOENT;
	}
convert:
	/* Both values are in [0, TS_LIMIT): the difference cannot overflow. */
	if (__builtin_add_overflow(best->val[FTL_CLOCK_MONOTONIC],
				   t - best->val[clock], &mono) ||
	    mono < 0 || mono >= TS_LIMIT) {
		r->st.ts_rejected++;
		return -ERANGE;
	}
	*out = mono;
	return 0;
}

static int
parse_clock(const uint8_t *buf, size_t len, struct frames_ftl_snap *s)
{
	bool has_id = false, has_ts = false, skip = false;
	struct pb_reader rd;
	struct pb_field f;
	uint64_t id = 0, ts = 0;
	int rc;

	pb_reader_init(&rd, buf, len);
	while ((rc = pb_next(&rd, &f)) > 0) {
		if (f.num > 4)
			continue;
		if (f.wire != PB_WIRE_VARINT)
			return -EBADMSG;
		switch (f.num) {
		case 1:
			id = f.value;
			has_id = true;
			break;
		case 2:
			ts = f.value;
			has_ts = true;
			break;
		case 3:
			/* Incremental clocks are sequence-scoped deltas. */
			skip |= f.value != 0;
			break;
		case 4:
			skip |= f.value != 1;
			break;
		}
	}
	if (rc < 0)
		return rc;
	if (!has_id || !has_ts || skip || id == 0 || id >= CLOCK_SLOTS ||
	    ts >= (uint64_t)TS_LIMIT)
		return 0;
	s->val[id] = (int64_t)ts;
	s->have |= 1u << id;
	return 0;
}

void
frames_ftl_clock_snapshot(struct frames_ftl *r, const uint8_t *buf, size_t len)
{
	struct frames_ftl_snap s;
	struct pb_reader rd;
	struct pb_field f;
	uint64_t primary = 0;
	unsigned i;
	int rc;

	memset(&s, 0, sizeof(s));
	pb_reader_init(&rd, buf, len);
	while ((rc = pb_next(&rd, &f)) > 0) {
		if (f.num == 1) {
			if (f.wire != PB_WIRE_LEN ||
			    parse_clock(f.data, f.len, &s) < 0)
				rc = -EBADMSG;
		} else if (f.num == 2) {
			if (f.wire != PB_WIRE_VARINT)
				rc = -EBADMSG;
			primary = f.value;
		}
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		r->st.malformed++;
		return;
	}
	if (primary > 0 && primary <= 63)
		r->primary_clock = (uint32_t)primary;
	if ((s.have & (1u << FTL_CLOCK_MONOTONIC)) == 0)
		return;
	/* The snapshot replaced may be the one a conversion kept. */
	r->conv_clock = 0;
	r->snaps[r->snap_next] = s;
	r->snap_next = (r->snap_next + 1) % SNAP_MAX;
	if (r->nsnaps < SNAP_MAX)
		r->nsnaps++;
	r->snap_clocks = 0;
	for (i = 0; i < r->nsnaps; i++)
		r->snap_clocks |= r->snaps[i].have;
	r->st.clock_snapshots++;
	/*
	 * A snapshot after FrameTimeline data says nothing of where the
	 * recording began: the coverage is then the data's own.
	 */
	if (r->cov == FTL_TIME_NONE && r->held_len == 0 &&
	    r->st.clock_held == 0) {
		r->cov = s.val[FTL_CLOCK_MONOTONIC];
		r->cov_fixed = true;
	}
	if (r->held_len > 0)
		release(r);
}

/* Names the clock of the events read with offset 0, once. */
static void
warn_assumed(struct frames_ftl *r, const char *why)
{
	if (r->warned)
		return;
	r->warned = true;
	log_warnx("frame timeline trace: %s; reading its %s times with an "
		  "offset of 0 as MONOTONIC, flagged clock_assumed",
		  why,
		  frames_ftl_clock_default(r) == FTL_CLOCK_BOOTTIME
			  ? "BOOTTIME"
			  : "trace clock");
}

/*
 * Applies the held events in the order they came: converted by the
 * snapshots there are now, or with offset 0 once r->assume is set.  One
 * whose clock still has no snapshot is held again, into fresh arrays.
 */
static void
release(struct frames_ftl *r)
{
	struct frames_ftl_held *held = r->held;
	uint8_t *names = r->held_names;
	uint32_t n = r->held_len, i;

	r->held = NULL;
	r->held_names = NULL;
	r->held_len = r->held_cap = 0;
	r->names_len = r->names_cap = 0;
	for (i = 0; i < n; i++) {
		if (held[i].ev.layer_len > 0)
			held[i].ev.layer = names + held[i].layer_off;
		frames_ftl_join_apply(r, &held[i].pk, held[i].kind,
				      &held[i].ev);
	}
	free(held);
	free(names);
}

/* Stops waiting for a snapshot: what is held is read with offset 0. */
static void
give_up(struct frames_ftl *r, const char *why)
{
	r->assume = true;
	warn_assumed(r, why);
	release(r);
}

static bool
grow(void **p, size_t *cap, size_t want, size_t size)
{
	size_t n = *cap < 16 ? 16 : *cap;
	void *np;

	while (n < want)
		n *= 2;
	if (n == *cap)
		return true;
	np = realloc(*p, n * size);
	if (np == NULL)
		return false;
	*p = np;
	*cap = n;
	return true;
}

bool
frames_ftl_clock_hold(struct frames_ftl *r, const struct frames_ftl_pkt *pk,
		      int kind, const struct frames_ftl_event *ev)
{
	struct frames_ftl_held *h;
	size_t len;

	if (pk->ts >= (uint64_t)TS_LIMIT)
		return false;
	len = ev->layer_len < FTL_LAYER_MAX ? ev->layer_len : FTL_LAYER_MAX;
	if (!grow((void **)&r->held, &r->held_cap, (size_t)r->held_len + 1,
		  sizeof(*r->held)) ||
	    !grow((void **)&r->held_names, &r->names_cap, r->names_len + len,
		  1)) {
		give_up(r, "out of memory holding events for a clock "
			   "snapshot");
		return false;
	}
	if (r->held_len == 0)
		r->held_wm = r->wm;
	h = &r->held[r->held_len++];
	h->pk = *pk;
	h->kind = kind;
	h->ev = *ev;
	h->ev.layer = NULL;
	h->ev.layer_len = len;
	h->layer_off = r->names_len;
	if (len > 0)
		memcpy(r->held_names + r->names_len, ev->layer, len);
	r->names_len += len;
	r->st.clock_held++;
	if (r->held_len >= r->cfg.max_held)
		give_up(r, "no clock snapshot within the events it may hold");
	return true;
}

void
frames_ftl_clock_end(struct frames_ftl *r)
{
	if (r->held_len == 0)
		return;
	give_up(r, "no clock snapshot converts its times");
}

void
frames_ftl_clock_free(struct frames_ftl *r)
{
	free(r->held);
	free(r->held_names);
	r->held = NULL;
	r->held_names = NULL;
}
