/* The clocks of the FrameTimeline reader. */
#include "frames_ftl_clock.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pb.h"

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
	r->st.clock_snapshots++;
	if (r->cov == FTL_TIME_NONE) {
		r->cov = s.val[FTL_CLOCK_MONOTONIC];
		r->cov_fixed = true;
	}
}
