/* The join of surface frames, FrameEnds and presents. */
#include "frames_ftl_join.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frames_ftl_clock.h"
#include "frames_ftl_event.h"
#include "pb.h"

/* How often, in trace time, old pending state is aged out. */
#define SWEEP_EVERY_NS NS_PER_S

static void
surf_release(struct frames_ftl *r, uint32_t idx)
{
	struct frames_ftl_surf *s = &r->pool[idx];

	if (s->state == SURF_WAITING)
		r->waiting--;
	s->state = SURF_FREE;
	s->next_free = r->pool_free;
	r->pool_free = idx;
}

/* Forgets an open start; it will never see its FrameEnd. */
static void
open_drop(struct frames_ftl *r, struct frames_ftl_ent *e)
{
	r->st.unpaired_starts++;
	if (e->kind == ENT_SURFACE)
		surf_release(r, (uint32_t)e->val);
	frames_ftl_table_del(&r->open, e);
}

static int
pres_cmp(const void *a, const void *b)
{
	const struct frames_ftl_pres *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/*
 * Refills the ring of presents from the table, in time order: after a
 * present that went back too far, or when stale ones fill it.
 */
static void
pres_rebuild(struct frames_ftl *r)
{
	const struct frames_ftl_ent *e;
	uint32_t i, n = 0;

	for (i = 0; i <= r->presents.mask; i++) {
		e = &r->presents.slot[i];
		if (e->kind == ENT_FREE)
			continue;
		r->pres[n].seq = e->seq;
		r->pres[n].token = e->key;
		r->pres[n].t = e->t;
		n++;
	}
	qsort(r->pres, n, sizeof(*r->pres), pres_cmp);
	r->pres_head = 0;
	r->pres_len = n;
	r->pres_sorted = true;
}

/*
 * How far back a present is moved into place before the ring gives up:
 * the last present before the screen goes idle is written when the next
 * composition flushes it, up to seconds after presents of other
 * sequences.
 */
#define PRES_SHIFT_MAX 1024

/*
 * Adds a present to the ring, in time order: presents come nearly in
 * order, so one goes back a few places at most.  One that would go back
 * further leaves the ring unsorted, for the next sweep to rebuild.
 */
static void
pres_push(struct frames_ftl *r, uint32_t seq, int64_t token, int64_t t)
{
	struct frames_ftl_pres *p;
	uint32_t pos, n = 0;

	/* The table holds at most half the ring: a rebuild makes room. */
	if (r->pres_len == r->pres_cap)
		pres_rebuild(r);
	pos = r->pres_len;
	while (r->pres_sorted && pos > 0 &&
	       r->pres[(r->pres_head + pos - 1) & (r->pres_cap - 1)].t > t) {
		if (++n > PRES_SHIFT_MAX) {
			r->pres_sorted = false;
			break;
		}
		r->pres[(r->pres_head + pos) & (r->pres_cap - 1)] =
			r->pres[(r->pres_head + pos - 1) & (r->pres_cap - 1)];
		pos--;
	}
	p = &r->pres[(r->pres_head + pos) & (r->pres_cap - 1)];
	p->seq = seq;
	p->token = token;
	p->t = t;
	r->pres_len++;
}

/*
 * Drops the presents older than horizon.  In a sorted ring they are the
 * first ones; an entry of the ring whose present is no longer in the
 * table, or is there again with another time, is passed over.  Which
 * order the presents go in does not matter: backward-shift deletion
 * leaves a table as if the key deleted had never been added, so the
 * table ends as the pass over its slots would leave it.
 */
static void
sweep_presents(struct frames_ftl *r, int64_t horizon)
{
	const struct frames_ftl_pres *p;
	struct frames_ftl_ent *e;
	uint32_t i;

	if (r->pres_sorted) {
		while (r->pres_len > 0 && r->pres[r->pres_head].t < horizon) {
			p = &r->pres[r->pres_head];
			e = frames_ftl_table_find(&r->presents, p->seq,
						  p->token);
			if (e != NULL && e->t == p->t)
				frames_ftl_table_del(&r->presents, e);
			r->pres_head = (r->pres_head + 1) & (r->pres_cap - 1);
			r->pres_len--;
		}
		return;
	}
	for (i = 0; i <= r->presents.mask;) {
		e = &r->presents.slot[i];
		if (e->kind != ENT_FREE && e->t < horizon) {
			frames_ftl_table_del(&r->presents, e);
			continue;
		}
		i++;
	}
	pres_rebuild(r);
}

/*
 * Ages out what is older than the join window.  After a deletion the same
 * slot is looked at again, since backward shift may have moved an entry
 * into it; entries only ever move backwards, so none is missed.
 */
static void
sweep(struct frames_ftl *r)
{
	int64_t horizon = r->now - r->cfg.join_window_ns, oldest = INT64_MAX;
	struct frames_ftl_ent *e;
	uint32_t i;

	/*
	 * Starts end within milliseconds, so most sweeps find none to drop:
	 * those skip the table.  A full pass learns the oldest start kept.
	 */
	for (i = 0; r->open_oldest < horizon && i <= r->open.mask;) {
		e = &r->open.slot[i];
		if (e->kind != ENT_FREE && e->t < horizon) {
			open_drop(r, e);
			continue;
		}
		if (e->kind != ENT_FREE && e->t < oldest)
			oldest = e->t;
		i++;
	}
	if (r->open_oldest < horizon)
		r->open_oldest = oldest;
	sweep_presents(r, horizon);
	for (i = 0; i < r->cfg.max_pending && r->waiting > 0; i++) {
		if (r->pool[i].state == SURF_WAITING &&
		    r->pool[i].t < horizon) {
			r->st.evicted_waiting++;
			surf_release(r, i);
		}
	}
}

/* Makes room for one more open start. */
static void
open_room(struct frames_ftl *r)
{
	if (r->open.count < r->open.max)
		return;
	sweep(r);
	if (r->open.count < r->open.max)
		return;
	open_drop(r, frames_ftl_table_oldest(&r->open));
}

/* Takes a free surface, making room if needed: the oldest goes first. */
static uint32_t
surf_alloc(struct frames_ftl *r)
{
	uint32_t idx, i, old = NONE_IDX;
	struct frames_ftl_ent *e;

	if (r->pool_free == NONE_IDX)
		sweep(r);
	if (r->pool_free == NONE_IDX) {
		for (i = 0; i < r->cfg.max_pending; i++) {
			if (old == NONE_IDX || r->pool[i].t < r->pool[old].t)
				old = i;
		}
		if (r->pool[old].state == SURF_OPEN) {
			e = frames_ftl_table_find(&r->open, r->pool[old].seq,
						  r->pool[old].cookie);
			if (e != NULL)
				open_drop(r, e);
			else
				surf_release(r, old);
		} else {
			r->st.evicted_waiting++;
			surf_release(r, old);
		}
	}
	idx = r->pool_free;
	r->pool_free = r->pool[idx].next_free;
	memset(&r->pool[idx], 0, sizeof(r->pool[idx]));
	return idx;
}

/* ---- Output ---- */

static void
emit(struct frames_ftl *r, struct frames_ftl_surf *s, int64_t present,
     unsigned present_flags)
{
	struct frames_ftl_frame *nq;
	uint32_t cap, i;

	s->f.present_ns = present;
	s->f.flags |= present_flags;
	if (r->q_len == r->q_cap) {
		cap = r->q_cap == 0 ? 64 : r->q_cap * 2;
		if (cap > r->cfg.max_queue)
			cap = r->cfg.max_queue;
		nq = cap > r->q_cap ? malloc(cap * sizeof(*nq)) : NULL;
		if (nq == NULL) {
			r->st.queue_dropped++;
			return;
		}
		for (i = 0; i < r->q_len; i++)
			nq[i] = r->q[(r->q_head + i) % r->q_cap];
		free(r->q);
		r->q = nq;
		r->q_cap = cap;
		r->q_head = 0;
	}
	r->q[(r->q_head + r->q_len) % r->q_cap] = s->f;
	r->q_len++;
	r->st.frames++;
}

/* Records a start; a start that reuses an open cookie replaces it. */
static struct frames_ftl_ent *
open_add(struct frames_ftl *r, uint32_t seq, int64_t cookie,
	 enum frames_ftl_ent_kind kind, int64_t t, int64_t val)
{
	struct frames_ftl_ent *e = frames_ftl_table_find(&r->open, seq, cookie);

	if (e != NULL) {
		r->st.unpaired_starts++;
		if (e->kind == ENT_SURFACE)
			surf_release(r, (uint32_t)e->val);
	} else {
		open_room(r);
		e = frames_ftl_table_add(&r->open, seq, cookie);
	}
	e->kind = (uint8_t)kind;
	e->flags = 0;
	e->t = t;
	e->val = val;
	if (t < r->open_oldest)
		r->open_oldest = t;
	return e;
}

/*
 * A display frame was presented at t: emit the surface frames it waited.
 * flags (FTL_FRAME_*) say how its present was come by.
 */
static void
on_present(struct frames_ftl *r, uint32_t seq, int64_t token, int64_t t,
	   unsigned flags)
{
	struct frames_ftl_ent *e;
	struct frames_ftl_surf *s;
	uint32_t i;

	if (frames_ftl_table_find(&r->presents, seq, token) != NULL)
		return;
	if (r->presents.count == r->presents.max)
		sweep(r);
	if (r->presents.count == r->presents.max)
		frames_ftl_table_del(&r->presents,
				     frames_ftl_table_oldest(&r->presents));
	e = frames_ftl_table_add(&r->presents, seq, token);
	e->kind = ENT_PRESENT;
	e->flags = (uint8_t)flags;
	e->t = t;
	e->val = t;
	pres_push(r, seq, token, t);
	if (r->max_present == FTL_TIME_NONE || t > r->max_present)
		r->max_present = t;
	for (i = 0; i < r->cfg.max_pending && r->waiting > 0; i++) {
		s = &r->pool[i];
		if (s->state == SURF_WAITING && s->seq == seq &&
		    s->f.display_token == token) {
			emit(r, s, t, flags);
			surf_release(r, i);
		}
	}
}

static void
on_surface_start(struct frames_ftl *r, uint32_t seq,
		 const struct frames_ftl_event *ev, int64_t t, unsigned flags)
{
	struct frames_ftl_surf *s;
	uint32_t idx;
	size_t n;

	if (ev->present_type == FTL_PRESENT_DROPPED) {
		r->st.dropped_frames++;
		open_add(r, seq, ev->cookie, ENT_SURFACE_DROPPED, t, 0);
		return;
	}
	idx = surf_alloc(r);
	s = &r->pool[idx];
	s->state = SURF_OPEN;
	s->seq = seq;
	s->cookie = ev->cookie;
	s->t = t;
	s->f.pid = ev->pid;
	s->f.present_type = ev->present_type;
	s->f.prediction_type = ev->prediction;
	s->f.jank = ev->jank;
	s->f.flags = ev->flags | flags;
	s->f.token = ev->token;
	s->f.display_token = ev->display_token;
	s->f.start_ns = t;
	n = ev->layer_len;
	if (n > FTL_LAYER_MAX - 1) {
		n = FTL_LAYER_MAX - 1;
		s->f.flags |= FTL_FRAME_LAYER_CUT;
	}
	if (n > 0)
		memcpy(s->f.layer, ev->layer, n);
	s->f.layer[n] = '\0';
	open_add(r, seq, ev->cookie, ENT_SURFACE, t, idx);
}

static void
on_frame_end(struct frames_ftl *r, uint32_t seq, int64_t cookie, int64_t t,
	     unsigned flags)
{
	struct frames_ftl_ent *e = frames_ftl_table_find(&r->open, seq, cookie),
			      *p;
	enum frames_ftl_ent_kind kind;
	struct frames_ftl_surf *s;
	unsigned pflags;
	int64_t val;

	if (e == NULL) {
		r->st.unpaired_ends++;
		return;
	}
	kind = (enum frames_ftl_ent_kind)e->kind;
	val = e->val;
	/* AOSP's stand-in for a present at or before the start. */
	pflags = (e->flags & FTL_FRAME_PRESENT_ESTIMATED) | flags;
	if (kind == ENT_DISPLAY &&
	    e->t <= INT64_MAX - FTL_STALE_PRESENT_DELTA_NS &&
	    t == e->t + FTL_STALE_PRESENT_DELTA_NS)
		pflags |= FTL_FRAME_PRESENT_ESTIMATED;
	frames_ftl_table_del(&r->open, e);
	if (kind == ENT_DISPLAY) {
		on_present(r, seq, val, t, pflags);
	} else if (kind == ENT_SURFACE) {
		s = &r->pool[val];
		s->f.ready_ns = t;
		s->f.flags |= flags;
		p = frames_ftl_table_find(&r->presents, seq,
					  s->f.display_token);
		if (p != NULL) {
			emit(r, s, p->val, p->flags);
			surf_release(r, (uint32_t)val);
		} else {
			s->state = SURF_WAITING;
			s->t = t;
			r->waiting++;
		}
	}
}

/* Every display frame ends the surface frames of the one before. */
static void
display_boundary(struct frames_ftl *r)
{
	if (r->max_present != FTL_TIME_NONE &&
	    (r->wm == FTL_TIME_NONE || r->max_present > r->wm))
		r->wm = r->max_present;
}

static void
note_time(struct frames_ftl *r, int64_t t)
{
	if (r->now == FTL_TIME_NONE || t > r->now)
		r->now = t;
	if (!r->cov_fixed && (r->cov == FTL_TIME_NONE || t < r->cov))
		r->cov = t;
	if (r->last_sweep == FTL_TIME_NONE ||
	    r->now - r->last_sweep >= SWEEP_EVERY_NS) {
		sweep(r);
		r->last_sweep = r->now;
	}
}

void
frames_ftl_join_event(struct frames_ftl *r, const struct frames_ftl_pkt *pk,
		      const uint8_t *buf, size_t len)
{
	struct pb_reader rd;
	struct pb_field f;
	const uint8_t *body = NULL;
	size_t body_len = 0;
	int kind = EV_NONE, rc;
	struct frames_ftl_event ev;

	r->st.frame_events++;
	pb_reader_init(&rd, buf, len);
	while ((rc = pb_next(&rd, &f)) > 0) {
		if (f.num >= EV_COUNT)
			continue;
		if (f.wire != PB_WIRE_LEN) {
			rc = -EBADMSG;
			break;
		}
		/* A oneof: the last member on the wire wins. */
		kind = (int)f.num;
		body = f.data;
		body_len = f.len;
	}
	if (rc < 0 || kind == EV_NONE || !pk->has_ts ||
	    frames_ftl_event_parse(kind, body, body_len, &ev) < 0 ||
	    (ev.have & frames_ftl_event_required[kind]) !=
		    frames_ftl_event_required[kind]) {
		r->st.malformed++;
		return;
	}
	frames_ftl_join_apply(r, pk, kind, &ev);
}

void
frames_ftl_join_apply(struct frames_ftl *r, const struct frames_ftl_pkt *pk,
		      int kind, const struct frames_ftl_event *ev)
{
	uint32_t clock =
		pk->has_clock ? pk->clock : frames_ftl_clock_default(r);
	struct frames_ftl_ent *e;
	unsigned flags;
	int64_t t;
	int rc;

	/* Held back for a ClockSnapshot still to come. */
	if (frames_ftl_clock_waits(r, clock) &&
	    frames_ftl_clock_hold(r, pk, kind, ev))
		return;
	rc = frames_ftl_clock_to_mono(r, clock, pk->ts, &t);
	if (rc < 0)
		return;
	flags = rc > 0 ? FTL_FRAME_CLOCK_ASSUMED : 0;
	note_time(r, t);
	switch (kind) {
	case EV_EXPECTED_DISPLAY:
		display_boundary(r);
		open_add(r, pk->seq, ev->cookie, ENT_EXPECTED, t, 0);
		break;
	case EV_EXPECTED_SURFACE:
		open_add(r, pk->seq, ev->cookie, ENT_EXPECTED, t, 0);
		break;
	case EV_ACTUAL_DISPLAY:
		display_boundary(r);
		if (ev->token == 0 || ev->present_type == FTL_PRESENT_DROPPED) {
			r->st.ignored_displays++;
			open_add(r, pk->seq, ev->cookie, ENT_DISPLAY_IGNORED, t,
				 0);
		} else {
			e = open_add(r, pk->seq, ev->cookie, ENT_DISPLAY, t,
				     ev->token);
			if (frames_ftl_event_present_fallback(ev))
				e->flags = FTL_FRAME_PRESENT_ESTIMATED;
		}
		break;
	case EV_ACTUAL_SURFACE:
		on_surface_start(r, pk->seq, ev, t, flags);
		break;
	case EV_FRAME_END:
		on_frame_end(r, pk->seq, ev->cookie, t, flags);
		break;
	}
}

void
frames_ftl_join_end(struct frames_ftl *r)
{
	uint32_t i;

	/* Nothing more will come: what is still open or waiting is lost. */
	for (i = 0; i <= r->open.mask;) {
		if (r->open.slot[i].kind != ENT_FREE) {
			open_drop(r, &r->open.slot[i]);
			continue;
		}
		i++;
	}
	for (i = 0; i < r->cfg.max_pending && r->waiting > 0; i++) {
		if (r->pool[i].state == SURF_WAITING) {
			r->st.evicted_waiting++;
			surf_release(r, i);
		}
	}
	display_boundary(r);
}
