/*
 * Perfetto FrameTimeline reader.  See frames_ftl.h for the contract and
 * reference/frames.md section 1 for the format it follows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frames_ftl.h"
#include "log.h"
#include "pb.h"

#define NS_PER_S 1000000000LL

/* Perfetto drops timestamps this close to INT64_MAX as platform bugs. */
#define TS_LIMIT (INT64_MAX - 10 * NS_PER_S)

/* Builtin clock ids 1 .. CLOCK_SLOTS - 1 are kept from each snapshot. */
#define CLOCK_SLOTS 16

/*
 * Snapshots kept for conversion.  traced keeps a new one only after a
 * clock drifted (a suspend), so a handful covers any time still pending.
 */
#define SNAP_MAX 16

/*
 * Bytes taken at a time while a record's key and length are incomplete:
 * both together are at most 2 * PB_VARINT_MAX bytes.
 */
#define HDR_CHUNK 32

/* A pending-record buffer above this is released once empty. */
#define PEND_KEEP (1u << 20)

/* How often, in trace time, old pending state is aged out. */
#define SWEEP_EVERY_NS NS_PER_S

#define READ_CHUNK (64u * 1024)

#define NONE_IDX UINT32_MAX

/* TracePacket fields (frames.md 1.2). */
enum {
	TP_CLOCK_SNAPSHOT = 6,
	TP_TIMESTAMP = 8,
	TP_SEQUENCE_ID = 10,
	TP_PREVIOUS_PACKET_DROPPED = 42,
	TP_COMPRESSED_PACKETS = 50,
	TP_TIMESTAMP_CLOCK_ID = 58,
	TP_FRAME_TIMELINE_EVENT = 76,
	TP_ZSTD_COMPRESSED_PACKETS = 133,
};

/* The FrameTimelineEvent oneof (frames.md 1.3). */
enum {
	EV_NONE = 0,
	EV_EXPECTED_DISPLAY = 1,
	EV_ACTUAL_DISPLAY = 2,
	EV_EXPECTED_SURFACE = 3,
	EV_ACTUAL_SURFACE = 4,
	EV_FRAME_END = 5,
	EV_COUNT = 6,
};

/* What a field of an event message means to us. */
enum {
	F_SKIP = 0,
	F_COOKIE,
	F_TOKEN,
	F_DISPLAY_TOKEN,
	F_PID,
	F_LAYER,
	F_PRESENT_TYPE,
	F_ON_TIME,
	F_GPU,
	F_JANK,
	F_PREDICTION,
	F_IS_BUFFER,
};

#define EV_FIELDS 12

/*
 * Field number -> meaning, per event message.  The numbers differ between
 * the surface and the display messages, hence one row each.
 */
static const uint8_t ev_map[EV_COUNT][EV_FIELDS] = {
	[EV_EXPECTED_DISPLAY] = {[1] = F_COOKIE, [2] = F_TOKEN, [3] = F_PID},
	[EV_ACTUAL_DISPLAY] = {[1] = F_COOKIE,
			       [2] = F_TOKEN,
			       [3] = F_PID,
			       [4] = F_PRESENT_TYPE,
			       [5] = F_ON_TIME,
			       [6] = F_GPU,
			       [7] = F_JANK,
			       [8] = F_PREDICTION},
	[EV_EXPECTED_SURFACE] = {[1] = F_COOKIE,
				 [2] = F_TOKEN,
				 [3] = F_DISPLAY_TOKEN,
				 [4] = F_PID,
				 [5] = F_LAYER},
	[EV_ACTUAL_SURFACE] = {[1] = F_COOKIE,
			       [2] = F_TOKEN,
			       [3] = F_DISPLAY_TOKEN,
			       [4] = F_PID,
			       [5] = F_LAYER,
			       [6] = F_PRESENT_TYPE,
			       [7] = F_ON_TIME,
			       [8] = F_GPU,
			       [9] = F_JANK,
			       [10] = F_PREDICTION,
			       [11] = F_IS_BUFFER},
	[EV_FRAME_END] = {[1] = F_COOKIE},
};

#define HAVE(f) (1u << (f))

/* One decoded event message. */
struct ev {
	unsigned have; /* HAVE(F_*) of the fields present */
	int64_t cookie;
	int64_t token;
	int64_t display_token;
	int32_t pid;
	int32_t present_type;
	int32_t prediction;
	uint32_t jank;
	unsigned flags;
	const uint8_t *layer;
	size_t layer_len;
};

/* The header fields of one TracePacket. */
struct pkt {
	bool has_ts;
	bool has_clock;
	uint32_t clock;
	uint32_t seq;
	uint64_t ts;
};

enum ent_kind {
	ENT_FREE = 0,
	ENT_EXPECTED,	     /* an expected-timeline start, kept to pair */
	ENT_DISPLAY,	     /* an actual display frame; val = its token */
	ENT_DISPLAY_IGNORED, /* token 0 or dropped: no present to record */
	ENT_SURFACE,	     /* an actual surface frame; val = pool index */
	ENT_SURFACE_DROPPED, /* PRESENT_DROPPED: counted, never emitted */
	ENT_PRESENT,	     /* present table: val = present time */
};

/* A slot of the open-start table or of the present table. */
struct ent {
	int64_t key; /* cookie, or display token */
	int64_t t;   /* MONOTONIC time that ages the entry */
	int64_t val;
	uint32_t seq;
	uint8_t kind; /* enum ent_kind */
};

/*
 * Open addressing with linear probing, at most half full so a probe always
 * ends on a free slot, and backward-shift deletion so no tombstones build
 * up in a table that lives as long as the trace.
 */
struct table {
	struct ent *slot;
	uint32_t mask;
	uint32_t count;
	uint32_t max;
};

enum surf_state {
	SURF_FREE,
	SURF_OPEN,    /* started, FrameEnd not seen */
	SURF_WAITING, /* ended, its display frame's present not seen */
};

/* A surface frame being assembled. */
struct surf {
	enum surf_state state;
	uint32_t seq;
	uint32_t next_free;
	int64_t cookie;
	int64_t t; /* start while open, ready time while waiting */
	struct ftl_frame f;
};

struct snap {
	int64_t val[CLOCK_SLOTS];
	uint32_t have; /* bit i: val[i] is set */
};

struct ftl {
	struct ftl_config cfg;
	struct ftl_stats st;
	bool eof;
	bool broken;

	/* Framing: an incomplete record, or the rest of one to skip. */
	uint8_t *pend;
	size_t pend_len;
	size_t pend_cap;
	uint64_t pend_need; /* its full size, 0 while unknown */
	uint64_t skip;

	struct snap snaps[SNAP_MAX];
	unsigned nsnaps;
	unsigned snap_next;
	uint32_t primary_clock;

	struct table open;
	struct table presents;
	struct surf *pool;
	uint32_t pool_free;
	uint32_t waiting;

	int64_t now; /* newest FrameTimeline time seen */
	int64_t last_sweep;
	int64_t max_present;
	int64_t wm;
	int64_t cov;
	bool cov_fixed; /* cov came from a snapshot before any event */

	struct ftl_frame *q;
	uint32_t q_head;
	uint32_t q_len;
	uint32_t q_cap;
};

void
ftl_config_default(struct ftl_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->default_clock = 0;
	cfg->join_window_ns = 10 * NS_PER_S;
	cfg->max_packet = 64u << 20;
	cfg->max_pending = 1024;
	cfg->max_presents = 4096;
	cfg->max_queue = 65536;
}

/* ---- Hash tables ---- */

static uint32_t
ent_hash(uint32_t seq, int64_t key)
{
	uint64_t x = (uint64_t)key ^ ((uint64_t)seq << 32 | seq);

	/* The splitmix64 finalizer: tokens and cookies are sequential. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (uint32_t)x;
}

static int
table_init(struct table *t, uint32_t max)
{
	uint32_t cap = 16;

	while (cap < 2 * (uint64_t)max)
		cap *= 2;
	t->slot = calloc(cap, sizeof(*t->slot));
	if (t->slot == NULL)
		return -ENOMEM;
	t->mask = cap - 1;
	t->count = 0;
	t->max = max;
	return 0;
}

static struct ent *
table_find(struct table *t, uint32_t seq, int64_t key)
{
	uint32_t i = ent_hash(seq, key) & t->mask;

	while (t->slot[i].kind != ENT_FREE) {
		if (t->slot[i].key == key && t->slot[i].seq == seq)
			return &t->slot[i];
		i = (i + 1) & t->mask;
	}
	return NULL;
}

/* The caller checked that the key is absent and count < max. */
static struct ent *
table_add(struct table *t, uint32_t seq, int64_t key)
{
	uint32_t i = ent_hash(seq, key) & t->mask;

	while (t->slot[i].kind != ENT_FREE)
		i = (i + 1) & t->mask;
	t->slot[i].seq = seq;
	t->slot[i].key = key;
	t->count++;
	return &t->slot[i];
}

/*
 * Removes e and moves later members of its probe run back into the hole,
 * so every entry stays reachable from its home slot.
 */
static void
table_del(struct table *t, struct ent *e)
{
	uint32_t i = (uint32_t)(e - t->slot), j = i, home;

	for (;;) {
		j = (j + 1) & t->mask;
		if (t->slot[j].kind == ENT_FREE)
			break;
		home = ent_hash(t->slot[j].seq, t->slot[j].key) & t->mask;
		/* The entry at j may move to i unless home lies in (i, j]. */
		if (i <= j ? (home <= i || home > j)
			   : (home <= i && home > j)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	t->slot[i].kind = ENT_FREE;
	t->count--;
}

static struct ent *
table_oldest(struct table *t)
{
	struct ent *old = NULL;
	uint32_t i;

	for (i = 0; i <= t->mask; i++) {
		if (t->slot[i].kind == ENT_FREE)
			continue;
		if (old == NULL || t->slot[i].t < old->t)
			old = &t->slot[i];
	}
	return old;
}

/* ---- Surface frame pool ---- */

static void
surf_release(struct ftl *r, uint32_t idx)
{
	struct surf *s = &r->pool[idx];

	if (s->state == SURF_WAITING)
		r->waiting--;
	s->state = SURF_FREE;
	s->next_free = r->pool_free;
	r->pool_free = idx;
}

/* Forgets an open start; it will never see its FrameEnd. */
static void
open_drop(struct ftl *r, struct ent *e)
{
	r->st.unpaired_starts++;
	if (e->kind == ENT_SURFACE)
		surf_release(r, (uint32_t)e->val);
	table_del(&r->open, e);
}

/*
 * Ages out what is older than the join window.  After a deletion the same
 * slot is looked at again, since backward shift may have moved an entry
 * into it; entries only ever move backwards, so none is missed.
 */
static void
sweep(struct ftl *r)
{
	int64_t horizon = r->now - r->cfg.join_window_ns;
	struct ent *e;
	uint32_t i;

	for (i = 0; i <= r->open.mask;) {
		e = &r->open.slot[i];
		if (e->kind != ENT_FREE && e->t < horizon) {
			open_drop(r, e);
			continue;
		}
		i++;
	}
	for (i = 0; i <= r->presents.mask;) {
		e = &r->presents.slot[i];
		if (e->kind != ENT_FREE && e->t < horizon) {
			table_del(&r->presents, e);
			continue;
		}
		i++;
	}
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
open_room(struct ftl *r)
{
	if (r->open.count < r->open.max)
		return;
	sweep(r);
	if (r->open.count < r->open.max)
		return;
	open_drop(r, table_oldest(&r->open));
}

/* Takes a free surface, making room if needed: the oldest goes first. */
static uint32_t
surf_alloc(struct ftl *r)
{
	uint32_t idx, i, old = NONE_IDX;
	struct ent *e;

	if (r->pool_free == NONE_IDX)
		sweep(r);
	if (r->pool_free == NONE_IDX) {
		for (i = 0; i < r->cfg.max_pending; i++) {
			if (old == NONE_IDX || r->pool[i].t < r->pool[old].t)
				old = i;
		}
		if (r->pool[old].state == SURF_OPEN) {
			e = table_find(&r->open, r->pool[old].seq,
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
emit(struct ftl *r, struct surf *s, int64_t present)
{
	struct ftl_frame *nq;
	uint32_t cap, i;

	s->f.present_ns = present;
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

int
ftl_next(struct ftl *r, struct ftl_frame *f)
{
	if (r->q_len == 0)
		return 0;
	*f = r->q[r->q_head];
	r->q_head = (r->q_head + 1) % r->q_cap;
	r->q_len--;
	return 1;
}

/* ---- Clocks ---- */

static uint32_t
default_clock(const struct ftl *r)
{
	if (r->primary_clock != 0)
		return r->primary_clock;
	if (r->cfg.default_clock != 0)
		return r->cfg.default_clock;
	return FTL_CLOCK_BOOTTIME;
}

/* Converts ts of clock to MONOTONIC; counts what it cannot. */
static int
to_mono(struct ftl *r, uint32_t clock, uint64_t ts, int64_t *out)
{
	const struct snap *s, *best = NULL, *first = NULL;
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
	if (best == NULL)
		best = first;
	if (best == NULL) {
		r->st.ts_unconvertible++;
		return -ENOENT;
	}
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
parse_clock(const uint8_t *buf, size_t len, struct snap *s)
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

static void
on_snapshot(struct ftl *r, const uint8_t *buf, size_t len)
{
	struct snap s;
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

/* ---- FrameTimeline events ---- */

static int
parse_event(int kind, const uint8_t *buf, size_t len, struct ev *ev)
{
	struct pb_reader rd;
	struct pb_field f;
	unsigned what;
	int rc;

	memset(ev, 0, sizeof(*ev));
	pb_reader_init(&rd, buf, len);
	while ((rc = pb_next(&rd, &f)) > 0) {
		what = f.num < EV_FIELDS ? ev_map[kind][f.num] : F_SKIP;
		if (what == F_SKIP)
			continue;
		if (f.wire != (what == F_LAYER ? PB_WIRE_LEN : PB_WIRE_VARINT))
			return -EBADMSG;
		ev->have |= HAVE(what);
		switch (what) {
		case F_COOKIE:
			ev->cookie = pb_int64(f.value);
			break;
		case F_TOKEN:
			ev->token = pb_int64(f.value);
			break;
		case F_DISPLAY_TOKEN:
			ev->display_token = pb_int64(f.value);
			break;
		case F_PID:
			ev->pid = pb_int32(f.value);
			break;
		case F_LAYER:
			ev->layer = f.data;
			ev->layer_len = f.len;
			break;
		case F_PRESENT_TYPE:
			ev->present_type = pb_int32(f.value);
			break;
		case F_ON_TIME:
			if (f.value != 0)
				ev->flags |= FTL_FRAME_ON_TIME_FINISH;
			break;
		case F_GPU:
			if (f.value != 0)
				ev->flags |= FTL_FRAME_GPU_COMPOSITION;
			break;
		case F_JANK:
			ev->jank = (uint32_t)f.value;
			break;
		case F_PREDICTION:
			ev->prediction = pb_int32(f.value);
			break;
		case F_IS_BUFFER:
			if (f.value != 0)
				ev->flags |= FTL_FRAME_BUFFER;
			break;
		}
	}
	return rc;
}

/* What each kind of event must carry to be usable (as Perfetto checks). */
static const unsigned ev_required[EV_COUNT] = {
	[EV_EXPECTED_DISPLAY] = HAVE(F_COOKIE),
	[EV_ACTUAL_DISPLAY] = HAVE(F_COOKIE) | HAVE(F_TOKEN) | HAVE(F_PID),
	[EV_EXPECTED_SURFACE] = HAVE(F_COOKIE),
	[EV_ACTUAL_SURFACE] = HAVE(F_COOKIE) | HAVE(F_TOKEN) |
			      HAVE(F_DISPLAY_TOKEN) | HAVE(F_PID),
	[EV_FRAME_END] = HAVE(F_COOKIE),
};

/* Records a start; a start that reuses an open cookie replaces it. */
static void
open_add(struct ftl *r, uint32_t seq, int64_t cookie, enum ent_kind kind,
	 int64_t t, int64_t val)
{
	struct ent *e = table_find(&r->open, seq, cookie);

	if (e != NULL) {
		r->st.unpaired_starts++;
		if (e->kind == ENT_SURFACE)
			surf_release(r, (uint32_t)e->val);
	} else {
		open_room(r);
		e = table_add(&r->open, seq, cookie);
	}
	e->kind = (uint8_t)kind;
	e->t = t;
	e->val = val;
}

/* A display frame was presented at t: emit the surface frames it waited. */
static void
on_present(struct ftl *r, uint32_t seq, int64_t token, int64_t t)
{
	struct ent *e;
	struct surf *s;
	uint32_t i;

	if (table_find(&r->presents, seq, token) != NULL)
		return;
	if (r->presents.count == r->presents.max)
		sweep(r);
	if (r->presents.count == r->presents.max)
		table_del(&r->presents, table_oldest(&r->presents));
	e = table_add(&r->presents, seq, token);
	e->kind = ENT_PRESENT;
	e->t = t;
	e->val = t;
	if (r->max_present == FTL_TIME_NONE || t > r->max_present)
		r->max_present = t;
	for (i = 0; i < r->cfg.max_pending && r->waiting > 0; i++) {
		s = &r->pool[i];
		if (s->state == SURF_WAITING && s->seq == seq &&
		    s->f.display_token == token) {
			emit(r, s, t);
			surf_release(r, i);
		}
	}
}

static void
on_surface_start(struct ftl *r, uint32_t seq, const struct ev *ev, int64_t t)
{
	struct surf *s;
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
	s->f.flags = ev->flags;
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
on_frame_end(struct ftl *r, uint32_t seq, int64_t cookie, int64_t t)
{
	struct ent *e = table_find(&r->open, seq, cookie), *p;
	enum ent_kind kind;
	struct surf *s;
	int64_t val;

	if (e == NULL) {
		r->st.unpaired_ends++;
		return;
	}
	kind = (enum ent_kind)e->kind;
	val = e->val;
	table_del(&r->open, e);
	if (kind == ENT_DISPLAY) {
		on_present(r, seq, val, t);
	} else if (kind == ENT_SURFACE) {
		s = &r->pool[val];
		s->f.ready_ns = t;
		p = table_find(&r->presents, seq, s->f.display_token);
		if (p != NULL) {
			emit(r, s, p->val);
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
display_boundary(struct ftl *r)
{
	if (r->max_present != FTL_TIME_NONE &&
	    (r->wm == FTL_TIME_NONE || r->max_present > r->wm))
		r->wm = r->max_present;
}

static void
note_time(struct ftl *r, int64_t t)
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

static void
on_event(struct ftl *r, const struct pkt *pk, const uint8_t *buf, size_t len)
{
	struct pb_reader rd;
	struct pb_field f;
	const uint8_t *body = NULL;
	size_t body_len = 0;
	int kind = EV_NONE, rc;
	struct ev ev;
	int64_t t;

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
	    parse_event(kind, body, body_len, &ev) < 0 ||
	    (ev.have & ev_required[kind]) != ev_required[kind]) {
		r->st.malformed++;
		return;
	}
	if (to_mono(r, pk->has_clock ? pk->clock : default_clock(r), pk->ts,
		    &t) < 0)
		return;
	note_time(r, t);
	switch (kind) {
	case EV_EXPECTED_DISPLAY:
		display_boundary(r);
		open_add(r, pk->seq, ev.cookie, ENT_EXPECTED, t, 0);
		break;
	case EV_EXPECTED_SURFACE:
		open_add(r, pk->seq, ev.cookie, ENT_EXPECTED, t, 0);
		break;
	case EV_ACTUAL_DISPLAY:
		display_boundary(r);
		if (ev.token == 0 || ev.present_type == FTL_PRESENT_DROPPED) {
			r->st.ignored_displays++;
			open_add(r, pk->seq, ev.cookie, ENT_DISPLAY_IGNORED, t,
				 0);
		} else {
			open_add(r, pk->seq, ev.cookie, ENT_DISPLAY, t,
				 ev.token);
		}
		break;
	case EV_ACTUAL_SURFACE:
		on_surface_start(r, pk->seq, &ev, t);
		break;
	case EV_FRAME_END:
		on_frame_end(r, pk->seq, ev.cookie, t);
		break;
	}
}

/* ---- Packets and framing ---- */

static void
on_packet(struct ftl *r, const uint8_t *buf, size_t len)
{
	const uint8_t *snap = NULL, *event = NULL;
	size_t snap_len = 0, event_len = 0;
	bool lost = false, bad = false;
	struct pb_reader rd;
	struct pb_field f;
	struct pkt pk;
	int rc;

	r->st.packets++;
	memset(&pk, 0, sizeof(pk));
	pb_reader_init(&rd, buf, len);
	while ((rc = pb_next(&rd, &f)) > 0) {
		switch (f.num) {
		case TP_TIMESTAMP:
			bad |= f.wire != PB_WIRE_VARINT;
			pk.ts = f.value;
			pk.has_ts = true;
			break;
		case TP_TIMESTAMP_CLOCK_ID:
			bad |= f.wire != PB_WIRE_VARINT;
			pk.clock = (uint32_t)f.value;
			pk.has_clock = true;
			break;
		case TP_SEQUENCE_ID:
			bad |= f.wire != PB_WIRE_VARINT;
			pk.seq = (uint32_t)f.value;
			break;
		case TP_PREVIOUS_PACKET_DROPPED:
			bad |= f.wire != PB_WIRE_VARINT;
			lost = f.value != 0;
			break;
		case TP_CLOCK_SNAPSHOT:
			bad |= f.wire != PB_WIRE_LEN;
			snap = f.data;
			snap_len = f.len;
			break;
		case TP_FRAME_TIMELINE_EVENT:
			bad |= f.wire != PB_WIRE_LEN;
			event = f.data;
			event_len = f.len;
			break;
		case TP_COMPRESSED_PACKETS:
		case TP_ZSTD_COMPRESSED_PACKETS:
			r->st.compressed++;
			break;
		}
	}
	if (rc < 0 || bad) {
		r->st.malformed++;
		return;
	}
	if (lost)
		r->st.packets_lost++;
	if (snap != NULL)
		on_snapshot(r, snap, snap_len);
	if (event != NULL)
		on_event(r, &pk, event, event_len);
}

enum {
	REC_DONE,
	REC_MORE,
	REC_BIG,
	REC_BAD,
};

/*
 * Sizes the top-level record at buf[0..len): sets *total to its full size
 * (0 while its key or length is incomplete) and *hdr to the bytes before
 * its payload.  REC_BIG is a packet above max_packet, *total saturating.
 */
static int
record_size(const struct ftl *r, const uint8_t *buf, size_t len,
	    uint64_t *total, size_t *hdr, bool *is_packet)
{
	uint64_t key, v;
	size_t k, n;
	int rc;

	*total = 0;
	rc = pb_varint(buf, len, &key, &k);
	if (rc == -EAGAIN)
		return REC_MORE;
	if (rc < 0 || key > UINT32_MAX || (key >> 3) == 0 ||
	    (key >> 3) > PB_FIELD_MAX)
		return REC_BAD;
	*is_packet = key == (1u << 3 | PB_WIRE_LEN);
	*hdr = k;
	switch (key & 7) {
	case PB_WIRE_VARINT:
		rc = pb_varint(buf + k, len - k, &v, &n);
		if (rc < 0)
			return rc == -EAGAIN ? REC_MORE : REC_BAD;
		*total = k + n;
		*hdr = k + n;
		return REC_DONE;
	case PB_WIRE_I64:
		*total = k + 8;
		break;
	case PB_WIRE_I32:
		*total = k + 4;
		break;
	case PB_WIRE_LEN:
		rc = pb_varint(buf + k, len - k, &v, &n);
		if (rc < 0)
			return rc == -EAGAIN ? REC_MORE : REC_BAD;
		*hdr = k + n;
		if (v > r->cfg.max_packet) {
			*total = v > UINT64_MAX - *hdr ? UINT64_MAX : v + *hdr;
			return REC_BIG;
		}
		*total = k + n + v;
		break;
	default:
		/* Groups never frame a trace; nothing after can be trusted. */
		return REC_BAD;
	}
	return *total <= len ? REC_DONE : REC_MORE;
}

static void
corrupt(struct ftl *r)
{
	if (!r->broken)
		log_warnx("cannot read frame timeline trace: bad record "
			  "framing after %llu packets, ignoring the rest",
			  (unsigned long long)r->st.packets);
	r->broken = true;
	r->st.corrupt++;
}

/*
 * Reads the complete records at the head of buf[0..len) and returns the
 * bytes used.  When it stops at an incomplete record, *need is that
 * record's size if known, else 0.
 */
static size_t
consume(struct ftl *r, const uint8_t *buf, size_t len, uint64_t *need)
{
	size_t off = 0, hdr = 0;
	bool is_packet = false;
	uint64_t total;

	*need = 0;
	while (off < len) {
		switch (record_size(r, buf + off, len - off, &total, &hdr,
				    &is_packet)) {
		case REC_BAD:
			corrupt(r);
			r->st.ignored_bytes += len - off;
			return len;
		case REC_MORE:
			*need = total;
			return off;
		case REC_BIG:
			r->st.oversized++;
			if (total <= len - off) {
				off += (size_t)total;
				break;
			}
			r->skip = total - (len - off);
			return len;
		case REC_DONE:
			if (is_packet)
				on_packet(r, buf + off + hdr,
					  (size_t)total - hdr);
			else
				r->st.malformed++;
			off += (size_t)total;
			break;
		}
	}
	return off;
}

/* Appends to the incomplete record, with room for all of it. */
static int
pend_add(struct ftl *r, const uint8_t *buf, size_t len, uint64_t need)
{
	size_t want = r->pend_len + len, cap;
	uint8_t *np;

	if (need > want)
		want = (size_t)need;
	if (want > r->pend_cap) {
		cap = r->pend_cap < HDR_CHUNK ? 2 * HDR_CHUNK : r->pend_cap;
		while (cap < want)
			cap *= 2;
		np = realloc(r->pend, cap);
		if (np == NULL) {
			log_warnx("cannot buffer a frame timeline record of "
				  "%zu bytes: out of memory",
				  want);
			r->broken = true;
			return -ENOMEM;
		}
		r->pend = np;
		r->pend_cap = cap;
	}
	memcpy(r->pend + r->pend_len, buf, len);
	r->pend_len += len;
	return 0;
}

int
ftl_feed(struct ftl *r, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t need;
	size_t n;
	int rc;

	if (r->eof)
		return -EINVAL;
	r->st.bytes += len;
	while (len > 0) {
		if (r->broken) {
			r->st.ignored_bytes += len;
			break;
		}
		if (r->skip > 0) {
			n = len < r->skip ? len : (size_t)r->skip;
			r->skip -= n;
			p += n;
			len -= n;
			continue;
		}
		if (r->pend_len == 0) {
			/* The common case: records straight from the input. */
			n = consume(r, p, len, &need);
			p += n;
			len -= n;
			if (len == 0 || r->broken || r->skip > 0)
				continue;
			rc = pend_add(r, p, len, need);
			if (rc < 0)
				return rc;
			r->pend_need = need;
			break;
		}
		/*
		 * Complete the kept record: exactly its missing bytes when
		 * its size is known, else enough to read its key and length.
		 */
		if (r->pend_need > r->pend_len)
			n = r->pend_need - r->pend_len < len
				    ? (size_t)(r->pend_need - r->pend_len)
				    : len;
		else
			n = len < HDR_CHUNK ? len : HDR_CHUNK;
		rc = pend_add(r, p, n, r->pend_need);
		if (rc < 0)
			return rc;
		p += n;
		len -= n;
		n = consume(r, r->pend, r->pend_len, &need);
		memmove(r->pend, r->pend + n, r->pend_len - n);
		r->pend_len -= n;
		r->pend_need = r->pend_len > 0 ? need : 0;
		if (r->pend_len == 0 && r->pend_cap > PEND_KEEP) {
			free(r->pend);
			r->pend = NULL;
			r->pend_cap = 0;
		}
	}
	return 0;
}

void
ftl_eof(struct ftl *r)
{
	uint32_t i;

	if (r->eof)
		return;
	r->eof = true;
	if (r->pend_len > 0 || r->skip > 0)
		r->st.truncated++;
	r->pend_len = 0;
	r->pend_need = 0;
	r->skip = 0;
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

/* ---- Object ---- */

int
ftl_new(const struct ftl_config *cfg, struct ftl **out)
{
	struct ftl_config def;
	struct ftl *r = NULL;
	uint32_t i;
	int rc = -EINVAL;

	if (cfg == NULL) {
		ftl_config_default(&def);
		cfg = &def;
	}
	if (cfg->default_clock > 63 || cfg->join_window_ns <= 0 ||
	    cfg->join_window_ns > 3600 * NS_PER_S || cfg->max_packet < 16 ||
	    cfg->max_packet > (1u << 30) || cfg->max_pending == 0 ||
	    cfg->max_pending > (1u << 20) || cfg->max_presents == 0 ||
	    cfg->max_presents > (1u << 20) || cfg->max_queue == 0 ||
	    cfg->max_queue > (1u << 24))
		goto out;
	rc = -ENOMEM;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		goto out;
	r->cfg = *cfg;
	r->now = r->last_sweep = r->max_present = FTL_TIME_NONE;
	r->wm = r->cov = FTL_TIME_NONE;
	if (table_init(&r->open, cfg->max_pending) < 0 ||
	    table_init(&r->presents, cfg->max_presents) < 0)
		goto out;
	r->pool = calloc(cfg->max_pending, sizeof(*r->pool));
	if (r->pool == NULL)
		goto out;
	for (i = 0; i < cfg->max_pending; i++)
		r->pool[i].next_free =
			i + 1 < cfg->max_pending ? i + 1 : NONE_IDX;
	r->pool_free = 0;
	*out = r;
	r = NULL;
	rc = 0;
out:
	ftl_free(r);
	return rc;
}

void
ftl_free(struct ftl *r)
{
	if (r == NULL)
		return;
	free(r->pend);
	free(r->open.slot);
	free(r->presents.slot);
	free(r->pool);
	free(r->q);
	free(r);
}

int64_t
ftl_watermark(const struct ftl *r)
{
	return r->wm;
}

int64_t
ftl_coverage_start(const struct ftl *r)
{
	return r->cov;
}

void
ftl_get_stats(const struct ftl *r, struct ftl_stats *st)
{
	*st = r->st;
	st->waiting = r->waiting;
}

static int
drain(struct ftl *r, ftl_frame_cb cb, void *ctx)
{
	struct ftl_frame f;
	int rc;

	while (ftl_next(r, &f) == 1) {
		rc = cb(ctx, &f);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
ftl_read_file(struct ftl *r, const char *path, ftl_frame_cb cb, void *ctx)
{
	uint8_t *buf = NULL;
	ssize_t n;
	int fd = -1, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		log_warn("cannot open '%s'", path);
		goto out;
	}
	rc = -ENOMEM;
	buf = malloc(READ_CHUNK);
	if (buf == NULL)
		goto out;
	for (;;) {
		n = read(fd, buf, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			log_warn("cannot read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		rc = ftl_feed(r, buf, (size_t)n);
		if (rc < 0)
			goto out;
		rc = drain(r, cb, ctx);
		if (rc < 0)
			goto out;
	}
	ftl_eof(r);
	rc = drain(r, cb, ctx);
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}
