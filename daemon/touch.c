/*
 * Touch tracker.  The tracker keeps two views of the device:
 *
 *  - the stream state, what the events say so far (the current slot, each
 *    slot's tracking id and position, BTN_TOUCH), updated event by event
 *    and saved at every SYN_REPORT so that the incomplete frame in front of
 *    a SYN_DROPPED can be rolled back;
 *  - the committed contacts, what has been reported to the caller, changed
 *    only at SYN_REPORT by comparing them with the stream state.
 *
 * The protocol is found from the events: SYN_MT_REPORT means protocol A
 * (from then on), other ABS_MT_* events mean protocol B, and a device that
 * sends only ABS_X/ABS_Y and BTN_TOUCH is a single-touch screen.
 *
 * BTN_TOUCH follows Android's InputReader, which treats a multitouch
 * pointer as hovering, not touching, while the device reports BTN_TOUCH 0:
 * a frame that ends with BTN_TOUCH 0 has no contact down.  In a normal
 * protocol B stream BTN_TOUCH 0 comes in the same frame as the last
 * TRACKING_ID -1, so it changes nothing; when it comes alone, the contacts
 * still live end at that frame.  This also ends a contact whose
 * TRACKING_ID -1 was lost in a SYN_DROPPED.  A device that never reports
 * BTN_TOUCH (the emulator) is taken to be touching whenever a slot holds a
 * tracking id.
 */
#include <errno.h>
#include <linux/input.h>
#include <stdlib.h>
#include <string.h>

#include "touch.h"

/*
 * At most this many changes in one frame: the contacts of every protocol
 * end (only when the device switches protocol), and those of one protocol
 * move or go down.
 */
#define TOUCH_UPS_MAX	(2 * TOUCH_MAX_SLOTS + 1)
#define TOUCH_MOVES_MAX (TOUCH_MAX_SLOTS + 1)
#define TOUCH_DOWNS_MAX (TOUCH_MAX_SLOTS + 1)

/* A contact as last reported to the caller. */
struct touch_contact {
	int live;
	uint64_t serial;
	int has_tid;
	int32_t tid;
	int32_t x, y;
	unsigned flags;
};

/* A protocol B slot as the event stream describes it. */
struct touch_slot {
	int32_t id;
	/*
	 * Whether id was seen in an event since the last SYN_DROPPED: after a
	 * drop the kernel's id may differ from ours, so an id learnt before it
	 * never starts a contact again.
	 */
	int id_known;
	int32_t x, y;
};

struct touch_stream {
	int slot; /* current slot, -1 when beyond TOUCH_MAX_SLOTS */
	int btn;  /* BTN_TOUCH: -1 not reported (or lost in a drop), 0, 1 */
	int32_t st_x, st_y;
	struct touch_slot slots[TOUCH_MAX_SLOTS];
};

/* What happened to a protocol B slot during the current frame. */
struct touch_change {
	int started; /* a new tracking id arrived */
	int ended;   /* the committed contact's id went away */
	int32_t end_x, end_y;
};

/* One protocol A packet, the events before a SYN_MT_REPORT. */
struct touch_packet {
	int32_t x, y, tid;
	int has_x, has_y, has_tid;
};

/* The changes of one frame, delivered ups first, then moves, then downs. */
struct touch_frame {
	struct touch_point up[TOUCH_UPS_MAX];
	struct touch_point move[TOUCH_MOVES_MAX];
	struct touch_point down[TOUCH_DOWNS_MAX];
	unsigned nup, nmove, ndown;
};

struct touch {
	struct touch_stream cur;
	struct touch_stream saved; /* cur at the last SYN_REPORT */
	struct touch_change chg[TOUCH_MAX_SLOTS];

	struct touch_contact bc[TOUCH_MAX_SLOTS]; /* protocol B, by slot */
	struct touch_contact ac[TOUCH_MAX_SLOTS]; /* protocol A */
	struct touch_contact sc;		  /* single touch */
	unsigned nlive;

	struct touch_packet pkt[TOUCH_MAX_SLOTS];
	unsigned npkt;
	struct touch_packet open; /* the packet being read */

	/* Per frame. */
	uint64_t frame_events;
	int saw_mt_report;
	int saw_mt;
	int btn_event; /* last BTN_TOUCH value in this frame, -1 if none */

	/* Sticky. */
	int proto_a;
	int mt;

	int discarding; /* between a SYN_DROPPED and the next SYN_REPORT */
	int resynced;	/* the next frame is the first after a drop */

	uint64_t next_serial;
	struct touch_stats st;
	struct touch_frame frame;
};

static void
touch_stream_reset(struct touch_stream *s)
{
	unsigned i;

	s->slot = 0;
	s->btn = -1;
	s->st_x = 0;
	s->st_y = 0;
	for (i = 0; i < TOUCH_MAX_SLOTS; i++) {
		s->slots[i].id = -1;
		s->slots[i].id_known = 0;
		s->slots[i].x = 0;
		s->slots[i].y = 0;
	}
}

static void
touch_frame_clear(struct touch *t)
{
	memset(t->chg, 0, sizeof(t->chg));
	memset(&t->open, 0, sizeof(t->open));
	t->npkt = 0;
	t->frame_events = 0;
	t->saw_mt_report = 0;
	t->saw_mt = 0;
	t->btn_event = -1;
	t->frame.nup = 0;
	t->frame.nmove = 0;
	t->frame.ndown = 0;
}

int
touch_new(struct touch **out)
{
	struct touch *t;

	if (out == NULL)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	touch_stream_reset(&t->cur);
	t->saved = t->cur;
	touch_frame_clear(t);
	t->next_serial = 1;
	*out = t;
	return 0;
}

void
touch_free(struct touch *t)
{
	free(t);
}

void
touch_get_stats(const struct touch *t, struct touch_stats *st)
{
	if (t == NULL || st == NULL)
		return;
	*st = t->st;
}

static void
touch_point_set(const struct touch *t, struct touch_point *pt,
		enum touch_phase phase, const struct touch_contact *c)
{
	memset(pt, 0, sizeof(*pt));
	pt->phase = phase;
	pt->contact = c->serial;
	pt->x = c->x;
	pt->y = c->y;
	pt->flags = c->flags;
	pt->slot = c >= t->bc && c < t->bc + TOUCH_MAX_SLOTS
			   ? (int32_t)(c - t->bc)
			   : -1;
	pt->tracking_id = c->has_tid ? c->tid : -1;
}

static void
touch_up(struct touch *t, struct touch_contact *c, int32_t x, int32_t y,
	 unsigned flags)
{
	struct touch_frame *f = &t->frame;

	c->x = x;
	c->y = y;
	c->flags |= flags;
	c->live = 0;
	/* The arrays are sized for the worst frame; the check is a backstop. */
	if (f->nup < TOUCH_UPS_MAX)
		touch_point_set(t, &f->up[f->nup++], TOUCH_UP, c);
}

static void
touch_move(struct touch *t, struct touch_contact *c, int32_t x, int32_t y)
{
	struct touch_frame *f = &t->frame;

	c->x = x;
	c->y = y;
	if (f->nmove < TOUCH_MOVES_MAX)
		touch_point_set(t, &f->move[f->nmove++], TOUCH_MOVE, c);
}

static void
touch_down(struct touch *t, struct touch_contact *c, int has_tid, int32_t tid,
	   int32_t x, int32_t y, unsigned flags)
{
	struct touch_frame *f = &t->frame;

	c->live = 1;
	c->serial = t->next_serial++;
	c->has_tid = has_tid;
	c->tid = tid;
	c->x = x;
	c->y = y;
	c->flags = flags;
	t->st.contacts++;
	if (f->ndown < TOUCH_DOWNS_MAX)
		touch_point_set(t, &f->down[f->ndown++], TOUCH_DOWN, c);
}

/* Whether the frame can hold contacts at all: see BTN_TOUCH above. */
static int
touch_touching(const struct touch *t)
{
	return t->cur.btn != 0;
}

static void
touch_frame_b(struct touch *t)
{
	int touching = touch_touching(t);
	unsigned i;

	for (i = 0; i < TOUCH_MAX_SLOTS; i++) {
		struct touch_slot *s = &t->cur.slots[i];
		struct touch_change *ch = &t->chg[i];
		struct touch_contact *c = &t->bc[i];

		if (c->live && ch->ended)
			touch_up(t, c, ch->end_x, ch->end_y, 0);
		else if (c->live && !touching)
			touch_up(t, c, s->x, s->y, 0);

		if (ch->started || (!c->live && s->id >= 0 && s->id_known)) {
			/*
			 * A new id, or a slot that held its id while
			 * hovering and now touches.
			 */
			if (touching)
				touch_down(t, c, 1, s->id, s->x, s->y, 0);
		} else if (c->live && (c->x != s->x || c->y != s->y)) {
			touch_move(t, c, s->x, s->y);
		}
	}
}

static uint64_t
touch_dist2(const struct touch_contact *c, const struct touch_packet *p)
{
	int64_t dx, dy;
	uint64_t ux, uy, d;

	dx = (int64_t)(p->has_x ? p->x : c->x) - c->x;
	dy = (int64_t)(p->has_y ? p->y : c->y) - c->y;
	ux = (uint64_t)(dx < 0 ? -dx : dx);
	uy = (uint64_t)(dy < 0 ? -dy : dy);
	/* Each square fits in 64 bits; their sum saturates. */
	d = ux * ux;
	if (UINT64_MAX - d < uy * uy)
		return UINT64_MAX;
	return d + uy * uy;
}

/*
 * Protocol A: the frame lists every contact, without slots.  Packets with
 * a tracking id follow the contact with that id; the others take the
 * nearest remaining contact, closest pairs first, as Android does for
 * devices without ids.  Contacts left over end; packets left over start.
 */
static void
touch_frame_a(struct touch *t)
{
	int pmatch[TOUCH_MAX_SLOTS];
	int cmatched[TOUCH_MAX_SLOTS];
	int pdrop[TOUCH_MAX_SLOTS];
	unsigned n, i, j, k;
	unsigned flags;

	n = touch_touching(t) ? t->npkt : 0;
	for (j = 0; j < TOUCH_MAX_SLOTS; j++) {
		pmatch[j] = -1;
		pdrop[j] = 0;
		cmatched[j] = 0;
	}

	for (j = 0; j < n; j++) {
		const struct touch_packet *p = &t->pkt[j];

		if (!p->has_tid)
			continue;
		for (k = 0; k < j; k++) {
			if (t->pkt[k].has_tid && t->pkt[k].tid == p->tid)
				break;
		}
		if (k < j) {
			/* Two packets cannot be the same contact. */
			pdrop[j] = 1;
			t->st.ignored++;
			continue;
		}
		for (i = 0; i < TOUCH_MAX_SLOTS; i++) {
			const struct touch_contact *c = &t->ac[i];

			if (c->live && !cmatched[i] && c->has_tid &&
			    c->tid == p->tid) {
				pmatch[j] = (int)i;
				cmatched[i] = 1;
				break;
			}
		}
	}

	for (;;) {
		uint64_t best = UINT64_MAX, d;
		int bi = -1, bj = -1;

		for (i = 0; i < TOUCH_MAX_SLOTS; i++) {
			if (!t->ac[i].live || cmatched[i])
				continue;
			for (j = 0; j < n; j++) {
				if (t->pkt[j].has_tid || pmatch[j] >= 0)
					continue;
				d = touch_dist2(&t->ac[i], &t->pkt[j]);
				if (bi < 0 || d < best) {
					best = d;
					bi = (int)i;
					bj = (int)j;
				}
			}
		}
		if (bi < 0)
			break;
		pmatch[bj] = bi;
		cmatched[bi] = 1;
	}

	for (i = 0; i < TOUCH_MAX_SLOTS; i++) {
		struct touch_contact *c = &t->ac[i];

		if (c->live && !cmatched[i])
			touch_up(t, c, c->x, c->y, 0);
	}
	for (j = 0; j < n; j++) {
		const struct touch_packet *p = &t->pkt[j];
		struct touch_contact *c;
		int32_t x, y;

		if (pmatch[j] < 0)
			continue;
		c = &t->ac[pmatch[j]];
		x = p->has_x ? p->x : c->x;
		y = p->has_y ? p->y : c->y;
		if (p->has_tid) {
			c->has_tid = 1;
			c->tid = p->tid;
		}
		if (x != c->x || y != c->y)
			touch_move(t, c, x, y);
	}
	/*
	 * A contact first seen right after a drop may have gone down inside
	 * it: protocol A has no event that marks a start.
	 */
	flags = t->resynced ? TOUCH_FLAG_DROPPED : 0;
	for (j = 0; j < n; j++) {
		const struct touch_packet *p = &t->pkt[j];

		if (pmatch[j] >= 0 || pdrop[j])
			continue;
		for (i = 0; i < TOUCH_MAX_SLOTS; i++) {
			if (!t->ac[i].live)
				break;
		}
		if (i == TOUCH_MAX_SLOTS) {
			t->st.slots_overflow++;
			continue;
		}
		touch_down(t, &t->ac[i], p->has_tid, p->tid,
			   p->has_x ? p->x : 0, p->has_y ? p->y : 0, flags);
	}
}

static void
touch_frame_st(struct touch *t)
{
	struct touch_contact *c = &t->sc;
	int32_t x = t->cur.st_x, y = t->cur.st_y;

	/*
	 * Edges, not the level: after a drop the button state is unknown, and
	 * only a BTN_TOUCH 1 seen in the stream proves a touch started.
	 */
	if (c->live && t->btn_event == 0)
		touch_up(t, c, x, y, 0);
	else if (!c->live && t->btn_event == 1)
		touch_down(t, c, 0, -1, x, y, 0);
	else if (c->live && (c->x != x || c->y != y))
		touch_move(t, c, x, y);
}

/* Ends the contacts of protocols the device no longer speaks. */
static void
touch_end_other(struct touch *t)
{
	unsigned i;

	if (t->sc.live)
		touch_up(t, &t->sc, t->sc.x, t->sc.y, 0);
	if (!t->proto_a)
		return;
	for (i = 0; i < TOUCH_MAX_SLOTS; i++) {
		if (t->bc[i].live)
			touch_up(t, &t->bc[i], t->bc[i].x, t->bc[i].y, 0);
		t->cur.slots[i].id = -1;
		t->cur.slots[i].id_known = 0;
	}
}

static int
touch_deliver(struct touch *t, int64_t time_ns, touch_cb cb, void *ctx)
{
	struct touch_frame *f = &t->frame;
	struct touch_point *pt;
	unsigned i, n = t->nlive;
	int r, ret = 0;

	/*
	 * The state is already committed, so a failing callback loses the
	 * rest of this frame's changes for the caller but leaves the tracker
	 * consistent.
	 */
	for (i = 0; i < f->nup + f->nmove + f->ndown; i++) {
		if (i < f->nup) {
			pt = &f->up[i];
			n = n > 0 ? n - 1 : 0;
		} else if (i < f->nup + f->nmove) {
			pt = &f->move[i - f->nup];
		} else {
			pt = &f->down[i - f->nup - f->nmove];
			n++;
		}
		pt->time_ns = time_ns;
		pt->active = n;
		if (cb != NULL && ret == 0) {
			r = cb(ctx, pt);
			if (r < 0)
				ret = r;
		}
	}
	t->nlive = n;
	f->nup = 0;
	f->nmove = 0;
	f->ndown = 0;
	return ret;
}

static void
touch_close_packet(struct touch *t)
{
	struct touch_packet *p = &t->open;

	/* An empty packet is the "no contact" marker of protocol A. */
	if (p->has_x || p->has_y || p->has_tid) {
		if (t->npkt < TOUCH_MAX_SLOTS)
			t->pkt[t->npkt++] = *p;
		else
			t->st.slots_overflow++;
	}
	memset(p, 0, sizeof(*p));
}

static int
touch_report(struct touch *t, int64_t time_ns, touch_cb cb, void *ctx)
{
	t->st.frames++;
	/* The last SYN_MT_REPORT may be omitted by drivers with BTN_TOUCH. */
	touch_close_packet(t);
	if (t->saw_mt_report)
		t->proto_a = 1;
	if (t->saw_mt)
		t->mt = 1;

	if (t->proto_a) {
		touch_end_other(t);
		touch_frame_a(t);
	} else if (t->mt) {
		touch_end_other(t);
		touch_frame_b(t);
	} else {
		touch_frame_st(t);
	}
	t->resynced = 0;
	t->saved = t->cur;
	memset(t->chg, 0, sizeof(t->chg));
	t->npkt = 0;
	t->frame_events = 0;
	t->saw_mt_report = 0;
	t->saw_mt = 0;
	t->btn_event = -1;
	return touch_deliver(t, time_ns, cb, ctx);
}

static void
touch_flag_live(struct touch *t)
{
	unsigned i;

	for (i = 0; i < TOUCH_MAX_SLOTS; i++) {
		if (t->bc[i].live)
			t->bc[i].flags |= TOUCH_FLAG_DROPPED;
		if (t->ac[i].live)
			t->ac[i].flags |= TOUCH_FLAG_DROPPED;
	}
	if (t->sc.live)
		t->sc.flags |= TOUCH_FLAG_DROPPED;
}

/*
 * The kernel lost events: the frame in progress is incomplete, so it is
 * rolled back and everything up to the next SYN_REPORT is thrown away; both
 * count as discarded, and the thrown-away SYN_REPORT is not a frame.
 * What the stream says afterwards may contradict what was lost, so every
 * live contact is flagged and no slot id learnt before the drop may start
 * a contact again.
 */
static void
touch_dropped(struct touch *t)
{
	unsigned i;

	t->st.syn_dropped++;
	t->st.discarded += t->frame_events;
	t->cur = t->saved;
	for (i = 0; i < TOUCH_MAX_SLOTS; i++)
		t->cur.slots[i].id_known = 0;
	t->cur.btn = -1;
	touch_flag_live(t);
	touch_frame_clear(t);
	t->discarding = 1;
}

static void
touch_slot_tid(struct touch *t, int32_t v)
{
	struct touch_slot *s;
	struct touch_change *ch;
	const struct touch_contact *c;

	if (t->cur.slot < 0) {
		if (v >= 0)
			t->st.slots_overflow++;
		else
			t->st.ignored++;
		return;
	}
	s = &t->cur.slots[t->cur.slot];
	ch = &t->chg[t->cur.slot];
	c = &t->bc[t->cur.slot];

	if (v < 0) {
		if (ch->started) {
			/* Began and ended inside one frame: never seen down. */
			ch->started = 0;
			t->st.ignored++;
		} else if (c->live && !ch->ended) {
			ch->ended = 1;
			ch->end_x = s->x;
			ch->end_y = s->y;
		} else {
			/* Never invent a contact to end. */
			t->st.ignored++;
		}
		s->id = -1;
		s->id_known = 1;
		return;
	}

	if (s->id_known && s->id == v)
		return;
	if (c->live && !ch->ended) {
		/* A new id replaces the contact in the slot. */
		ch->ended = 1;
		ch->end_x = s->x;
		ch->end_y = s->y;
	} else if (ch->started) {
		t->st.ignored++;
	}
	ch->started = 1;
	s->id = v;
	s->id_known = 1;
}

static void
touch_abs(struct touch *t, uint16_t code, int32_t v)
{
	struct touch_packet *p = &t->open;
	struct touch_slot *s = NULL;

	if (code >= ABS_MT_SLOT && code <= ABS_MT_TOOL_Y)
		t->saw_mt = 1;
	if (!t->proto_a && t->cur.slot >= 0)
		s = &t->cur.slots[t->cur.slot];

	/*
	 * Until a SYN_MT_REPORT shows protocol A, MT events feed both the
	 * slot and the packet: the frame decides which one counts.
	 */
	switch (code) {
	case ABS_MT_SLOT:
		if (t->proto_a)
			t->st.ignored++;
		else if (v >= 0 && v < TOUCH_MAX_SLOTS)
			t->cur.slot = v;
		else
			t->cur.slot = -1;
		break;
	case ABS_MT_TRACKING_ID:
		if (v >= 0) {
			p->tid = v;
			p->has_tid = 1;
		}
		if (!t->proto_a)
			touch_slot_tid(t, v);
		break;
	case ABS_MT_POSITION_X:
		p->x = v;
		p->has_x = 1;
		if (s != NULL)
			s->x = v;
		else if (!t->proto_a)
			t->st.ignored++;
		break;
	case ABS_MT_POSITION_Y:
		p->y = v;
		p->has_y = 1;
		if (s != NULL)
			s->y = v;
		else if (!t->proto_a)
			t->st.ignored++;
		break;
	case ABS_X:
		t->cur.st_x = v;
		if (t->mt)
			t->st.ignored++;
		break;
	case ABS_Y:
		t->cur.st_y = v;
		if (t->mt)
			t->st.ignored++;
		break;
	default:
		t->st.ignored++;
		break;
	}
}

int
touch_feed(struct touch *t, const struct touch_event *ev, touch_cb cb,
	   void *ctx)
{
	if (t == NULL || ev == NULL)
		return -EINVAL;
	t->st.events++;

	if (t->discarding) {
		if (ev->type == EV_SYN && ev->code == SYN_DROPPED) {
			t->st.syn_dropped++;
			return 0;
		}
		t->st.discarded++;
		if (ev->type == EV_SYN && ev->code == SYN_REPORT) {
			t->discarding = 0;
			t->resynced = 1;
		}
		return 0;
	}

	if (ev->type == EV_SYN) {
		switch (ev->code) {
		case SYN_REPORT:
			return touch_report(t, ev->time_ns, cb, ctx);
		case SYN_MT_REPORT:
			t->frame_events++;
			t->saw_mt_report = 1;
			touch_close_packet(t);
			return 0;
		case SYN_DROPPED:
			touch_dropped(t);
			return 0;
		default:
			break;
		}
	}

	t->frame_events++;
	if (ev->type == EV_ABS) {
		touch_abs(t, ev->code, ev->value);
	} else if (ev->type == EV_KEY && ev->code == BTN_TOUCH) {
		t->cur.btn = ev->value != 0;
		t->btn_event = t->cur.btn;
	} else {
		t->st.ignored++;
	}
	return 0;
}

int
touch_flush(struct touch *t, int64_t time_ns, touch_cb cb, void *ctx)
{
	unsigned i;

	if (t == NULL)
		return -EINVAL;
	/* The frame in progress never ended: its events are thrown away. */
	t->st.discarded += t->frame_events;
	touch_frame_clear(t);
	for (i = 0; i < TOUCH_MAX_SLOTS; i++) {
		if (t->bc[i].live)
			touch_up(t, &t->bc[i], t->bc[i].x, t->bc[i].y,
				 TOUCH_FLAG_DROPPED);
		if (t->ac[i].live)
			touch_up(t, &t->ac[i], t->ac[i].x, t->ac[i].y,
				 TOUCH_FLAG_DROPPED);
	}
	if (t->sc.live)
		touch_up(t, &t->sc, t->sc.x, t->sc.y, TOUCH_FLAG_DROPPED);
	/*
	 * The protocol found so far stays: a tracker serves one device, which
	 * may come back.
	 */
	touch_stream_reset(&t->cur);
	t->saved = t->cur;
	t->discarding = 0;
	t->resynced = 0;
	return touch_deliver(t, time_ns, cb, ctx);
}

unsigned
touch_end(struct touch *t)
{
	unsigned i, n = 0;

	if (t == NULL)
		return 0;
	for (i = 0; i < TOUCH_MAX_SLOTS; i++)
		n += (t->bc[i].live != 0) + (t->ac[i].live != 0);
	n += t->sc.live != 0;
	/* The same ending as touch_flush(), with the ups told to no one. */
	(void)touch_flush(t, 0, NULL, NULL);
	t->st.cut += n;
	return n;
}
