#include <errno.h>
#include <linux/input-event-codes.h>
#include <math.h>
#include <stdlib.h>

#include "rng.h"
#include "touchgen.h"

#define SLOTS 2

/* Per-slot values the input core remembers, indexed by enum val. */
enum val {
	V_ID,
	V_X,
	V_Y,
	V_MAJOR,
	V_WIDTH,
	V_PRESSURE,
	V_COUNT,
};

static const uint16_t val_code[V_COUNT] = {
	ABS_MT_TRACKING_ID, ABS_MT_POSITION_X,	ABS_MT_POSITION_Y,
	ABS_MT_TOUCH_MAJOR, ABS_MT_WIDTH_MAJOR, ABS_MT_PRESSURE,
};

struct touchgen {
	struct world *w;
	struct touchgen_style st;
	struct rng rng;
	int last_slot; /* ABS_MT_SLOT value last sent */
	int32_t slot_val[SLOTS][V_COUNT];
	int32_t next_id;
	int btn_touch, tool_finger, tool_double;
};

/* A contact being played. */
struct play {
	const struct touchgen_contact *c;
	double ox, oy; /* wobble offset */
	int32_t pressure, major;
};

int
touchgen_new(struct world *w, const struct touchgen_style *st, uint64_t seed,
	     struct touchgen **out)
{
	struct touchgen *tg;
	int s, v;

	if (st->period_us < 1000 || st->period_us > 100000)
		return -EINVAL;
	tg = calloc(1, sizeof(*tg));
	if (tg == NULL)
		return -ENOMEM;
	tg->w = w;
	tg->st = *st;
	rng_seed(&tg->rng, seed, "touch");
	tg->last_slot = st->slot_at_start ? -1 : 0;
	for (s = 0; s < SLOTS; s++) {
		for (v = 0; v < V_COUNT; v++)
			tg->slot_val[s][v] = 0;
		tg->slot_val[s][V_ID] = -1;
	}
	tg->next_id = st->first_tracking_id;
	*out = tg;
	return 0;
}

void
touchgen_free(struct touchgen *tg)
{
	free(tg);
}

static int
emit(struct touchgen *tg, int64_t t_us, uint16_t type, uint16_t code,
     int32_t value)
{
	struct world_event e;

	e.time_us = t_us;
	e.dev = 0;
	e.type = type;
	e.code = code;
	e.value = value;
	return world_add_event(tg->w, &e) < 0 ? -ENOMEM : 0;
}

/* Sends one MT value the way the input core filters it. */
static int
emit_mt(struct touchgen *tg, int64_t t_us, int slot, enum val v, int32_t value,
	int *count)
{
	int rc;

	if (tg->slot_val[slot][v] == value)
		return 0;
	if (tg->last_slot != slot) {
		rc = emit(tg, t_us, EV_ABS, ABS_MT_SLOT, slot);
		if (rc < 0)
			return rc;
		tg->last_slot = slot;
		(*count)++;
	}
	tg->slot_val[slot][v] = value;
	(*count)++;
	return emit(tg, t_us, EV_ABS, val_code[v], value);
}

static int
emit_key(struct touchgen *tg, int64_t t_us, uint16_t code, int *state,
	 int value, int *count)
{
	if (*state == value)
		return 0;
	*state = value;
	(*count)++;
	return emit(tg, t_us, EV_KEY, code, value);
}

static int32_t
to_raw(double px, int32_t size, int32_t min, int32_t max)
{
	double r;
	int64_t v;

	if (px < 0)
		px = 0;
	if (px > size - 1)
		px = size - 1;
	r = px * ((double)max - min + 1) / size;
	v = min + (int64_t)floor(r);
	if (v > max)
		v = max;
	return (int32_t)v;
}

/* Where a contact is at tick i, in raw units. */
static void
position(struct touchgen *tg, struct play *p, int i, int32_t *rx, int32_t *ry)
{
	const struct world_device *d = world_get_device(tg->w);
	const struct touchgen_contact *c = p->c;
	double f = 1.0, x, y;
	int k = i - c->down_tick;

	if (c->move_ticks > 0 && k < c->move_ticks) {
		/* Smoothstep: a finger accelerates, then slows down. */
		f = (double)k / c->move_ticks;
		f = f * f * (3 - 2 * f);
	}
	if (c->wobble > 0 && k > 0) {
		p->ox += rng_real(&tg->rng, -0.8, 0.8);
		p->oy += rng_real(&tg->rng, -0.8, 0.8);
		if (p->ox > c->wobble)
			p->ox = c->wobble;
		if (p->ox < -c->wobble)
			p->ox = -c->wobble;
		if (p->oy > c->wobble)
			p->oy = c->wobble;
		if (p->oy < -c->wobble)
			p->oy = -c->wobble;
	}
	x = c->x0 + c->dx * f + p->ox;
	y = c->y0 + c->dy * f + p->oy;
	*rx = to_raw(x, d->width, d->x_min, d->x_max);
	*ry = to_raw(y, d->height, d->y_min, d->y_max);
}

static int
contact_values(struct touchgen *tg, int64_t t, int slot, struct play *p, int i,
	       int down, int *count)
{
	enum touchgen_order order = tg->st.order;
	int32_t rx, ry;
	int rc = 0;

	position(tg, p, i, &rx, &ry);
	if (order != TOUCHGEN_ORDER_EMULATOR && !down) {
		if (rng_chance(&tg->rng, 0.6))
			p->pressure += (int32_t)rng_range(&tg->rng, -4, 4);
		if (p->pressure < 10)
			p->pressure = 10;
		if (p->pressure > 120)
			p->pressure = 120;
		if (rng_chance(&tg->rng, 0.15))
			p->major += (int32_t)rng_range(&tg->rng, -1, 1);
		if (p->major < 2)
			p->major = 2;
		if (p->major > 15)
			p->major = 15;
	}
	switch (order) {
	case TOUCHGEN_ORDER_ID_FIRST:
		if (down)
			rc = emit_mt(tg, t, slot, V_ID, tg->next_id++, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_X, rx, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_Y, ry, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_MAJOR, p->major, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_PRESSURE, p->pressure,
				     count);
		break;
	case TOUCHGEN_ORDER_ID_LAST:
		rc = emit_mt(tg, t, slot, V_MAJOR, p->major, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_WIDTH, p->major, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_PRESSURE, p->pressure,
				     count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_X, rx, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_Y, ry, count);
		if (rc == 0 && down)
			rc = emit_mt(tg, t, slot, V_ID, tg->next_id++, count);
		break;
	case TOUCHGEN_ORDER_EMULATOR:
		if (down)
			rc = emit_mt(tg, t, slot, V_ID, tg->next_id++, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_MAJOR, p->major, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_PRESSURE, p->pressure,
				     count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_X, rx, count);
		if (rc == 0)
			rc = emit_mt(tg, t, slot, V_Y, ry, count);
		break;
	}
	if (tg->next_id > 0xfffe)
		tg->next_id = 1;
	return rc;
}

static int
contact_up(struct touchgen *tg, int64_t t, int slot, int *count)
{
	int rc = 0;

	if (tg->st.order == TOUCHGEN_ORDER_EMULATOR)
		rc = emit_mt(tg, t, slot, V_PRESSURE, 0, count);
	if (rc == 0)
		rc = emit_mt(tg, t, slot, V_ID, -1, count);
	return rc;
}

int
touchgen_gesture(struct touchgen *tg, int64_t start_us,
		 const struct touchgen_contact *c, int n, int64_t *t_down_ns,
		 int64_t *t_up_ns)
{
	struct play p[SLOTS];
	int i, k, last = 0, first = -1, active, rc, count;
	int64_t t = start_us, down_t = -1, up_t = -1;

	if (n < 1 || n > SLOTS)
		return -EINVAL;
	for (k = 0; k < n; k++) {
		if (c[k].down_tick < 0 || c[k].up_tick <= c[k].down_tick)
			return -EINVAL;
		if (c[k].up_tick > last)
			last = c[k].up_tick;
		if (first < 0 || c[k].down_tick < first)
			first = c[k].down_tick;
		p[k].c = &c[k];
		p[k].ox = 0;
		p[k].oy = 0;
		if (tg->st.order == TOUCHGEN_ORDER_EMULATOR) {
			p[k].pressure = 0x81;
			p[k].major = 4;
		} else {
			p[k].pressure = (int32_t)rng_range(&tg->rng, 30, 90);
			p[k].major = (int32_t)rng_range(&tg->rng, 3, 10);
		}
	}
	for (i = first; i <= last; i++) {
		if (i > first)
			t += tg->st.period_us + rng_range(&tg->rng, -120, 120);
		count = 0;
		rc = 0;
		for (k = 0; k < n && rc == 0; k++) {
			if (i == c[k].up_tick)
				rc = contact_up(tg, t, k, &count);
			else if (i >= c[k].down_tick && i < c[k].up_tick)
				rc = contact_values(tg, t, k, &p[k], i,
						    i == c[k].down_tick,
						    &count);
		}
		if (rc < 0)
			return rc;
		active = 0;
		for (k = 0; k < n; k++)
			active += i >= c[k].down_tick && i < c[k].up_tick;
		if (tg->st.btn_touch)
			rc = emit_key(tg, t, BTN_TOUCH, &tg->btn_touch,
				      active > 0, &count);
		if (rc == 0 && tg->st.tool_keys) {
			rc = emit_key(tg, t, BTN_TOOL_FINGER, &tg->tool_finger,
				      active == 1, &count);
			if (rc == 0)
				rc = emit_key(tg, t, BTN_TOOL_DOUBLETAP,
					      &tg->tool_double, active == 2,
					      &count);
		}
		if (rc < 0)
			return rc;
		/* The input core sends no SYN_REPORT for an empty frame. */
		if (count == 0)
			continue;
		rc = emit(tg, t, EV_SYN, SYN_REPORT, 0);
		if (rc < 0)
			return rc;
		if (i == first)
			down_t = t;
		if (i == last)
			up_t = t;
	}
	*t_down_ns = down_t * 1000;
	*t_up_ns = up_t * 1000;
	return 0;
}

void
touchgen_last_raw(const struct touchgen *tg, int32_t *x, int32_t *y)
{
	*x = tg->slot_val[0][V_X];
	*y = tg->slot_val[0][V_Y];
}

int
touchgen_key(struct touchgen *tg, int dev, uint16_t code, int64_t t_us,
	     int64_t hold_us)
{
	struct world_event e;
	int i;

	for (i = 0; i < 4; i++) {
		e.dev = dev;
		e.time_us = i < 2 ? t_us : t_us + hold_us;
		if (i % 2 == 0) {
			e.type = EV_KEY;
			e.code = code;
			e.value = i == 0;
		} else {
			e.type = EV_SYN;
			e.code = SYN_REPORT;
			e.value = 0;
		}
		if (world_add_event(tg->w, &e) < 0)
			return -ENOMEM;
	}
	return 0;
}
