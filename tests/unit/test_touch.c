/*
 * Tests of the touch tracker: protocol B with and without slots, protocol
 * A with and without tracking ids, BTN_TOUCH, single-touch devices,
 * SYN_DROPPED, flush and the end of the input, plus a randomized check of the
 * invariants.
 *
 * Event tables keep one frame (up to its SYN_REPORT) per line, as getevent
 * prints them grouped by timestamp, so clang-format is off around them.
 */
#include <errno.h>
#include <linux/input.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "touch.h"

#define REC_MAX 256

struct rec {
	struct touch_point pt[REC_MAX];
	unsigned n;
	int fail_at; /* the callback fails on this call (1-based), 0 never */
	unsigned calls;
};

static int
rec_cb(void *ctx, const struct touch_point *pt)
{
	struct rec *r = ctx;

	r->calls++;
	if (r->fail_at > 0 && r->calls == (unsigned)r->fail_at)
		return -EIO;
	if (r->n < REC_MAX)
		r->pt[r->n++] = *pt;
	return 0;
}

#define ABS(t, c, v) fixture_event((t), EV_ABS, (c), (v))
#define SYN(t)	     fixture_event((t), EV_SYN, SYN_REPORT, 0)
#define MTSYN(t)     fixture_event((t), EV_SYN, SYN_MT_REPORT, 0)
#define DROP(t)	     fixture_event((t), EV_SYN, SYN_DROPPED, 0)
#define BTN(t, v)    fixture_event((t), EV_KEY, BTN_TOUCH, (v))
#define SLOT(t, v)   ABS((t), ABS_MT_SLOT, (v))
#define TID(t, v)    ABS((t), ABS_MT_TRACKING_ID, (v))
#define MX(t, v)     ABS((t), ABS_MT_POSITION_X, (v))
#define MY(t, v)     ABS((t), ABS_MT_POSITION_Y, (v))

static void
feed_all(struct touch *t, const struct touch_event *evs, size_t n,
	 struct rec *r)
{
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(touch_feed(t, &evs[i], rec_cb, r), 0);
}

static void
check_pt(const struct touch_point *pt, enum touch_phase phase, uint64_t contact,
	 int64_t time_ns, int32_t x, int32_t y, unsigned active, unsigned flags)
{
	assert_int_equal(pt->phase, phase);
	assert_int_equal(pt->contact, contact);
	assert_int_equal(pt->time_ns, time_ns);
	assert_int_equal(pt->x, x);
	assert_int_equal(pt->y, y);
	assert_int_equal(pt->active, active);
	assert_int_equal(pt->flags, flags);
}

static int
setup(void **state)
{
	struct touch *t = NULL;

	assert_int_equal(touch_new(&t), 0);
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	touch_free(*state);
	return 0;
}

/*
 * tests/fixtures/getevent/emulator-tap.getevent, typed in: protocol B
 * with neither ABS_MT_SLOT nor BTN_TOUCH.
 */
static void
test_emulator_tap(void **state)
{
	struct touch *t = *state;
	const int64_t t1 = 42407808000, t2 = 42453256000;
	/* clang-format off */
	const struct touch_event evs[] = {
		TID(t1, 0x00000000),
		ABS(t1, ABS_MT_TOUCH_MAJOR, 0x00000004),
		ABS(t1, ABS_MT_PRESSURE, 0x00000081),
		MX(t1, 0x00004289),
		MY(t1, 0x00007758),
		SYN(t1),
		ABS(t2, ABS_MT_PRESSURE, 0x00000000),
		TID(t2, (int32_t)0xffffffffu),
		SYN(t2),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 2);
	check_pt(&r.pt[0], TOUCH_DOWN, r.pt[0].contact, t1, 17033, 30552, 1, 0);
	check_pt(&r.pt[1], TOUCH_UP, r.pt[0].contact, t2, 17033, 30552, 0, 0);
	assert_true(r.pt[0].contact != 0);

	touch_get_stats(t, &st);
	assert_int_equal(st.events, 9);
	assert_int_equal(st.frames, 2);
	assert_int_equal(st.contacts, 1);
	assert_int_equal(st.ignored, 3);
	assert_int_equal(st.syn_dropped, 0);
	assert_int_equal(st.discarded, 0);
	assert_int_equal(st.slots_overflow, 0);
}

/*
 * Without ABS_MT_SLOT the events go to slot 0: a later -1 in slot 1 does
 * not end the contact, one in slot 0 does.  Positions before the tracking
 * id (as the sdm670 capture has them) belong to the down.
 */
static void
test_b_no_initial_slot(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		MX(1, 319), MY(1, 998), TID(1, 0x26), BTN(1, 1), SYN(1),
		MX(2, 321), SYN(2),
		SLOT(3, 1), TID(3, -1), SYN(3),
		SLOT(4, 0), TID(4, -1), BTN(4, 0), SYN(4),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;
	uint64_t c;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 3);
	c = r.pt[0].contact;
	check_pt(&r.pt[0], TOUCH_DOWN, c, 1, 319, 998, 1, 0);
	check_pt(&r.pt[1], TOUCH_MOVE, c, 2, 321, 998, 1, 0);
	check_pt(&r.pt[2], TOUCH_UP, c, 4, 321, 998, 0, 0);
	touch_get_stats(t, &st);
	/* The -1 of the empty slot 1 is ignored, not an up. */
	assert_int_equal(st.ignored, 1);
	assert_int_equal(st.contacts, 1);
}

static void
test_b_two_fingers(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		SLOT(1, 0), TID(1, 10), MX(1, 100), MY(1, 200),
		SLOT(1, 1), TID(1, 11), MX(1, 300), MY(1, 400), SYN(1),
		/* Only slot 1 moves, and only in y. */
		MY(2, 410), SYN(2),
		/* Slot 0 lifts while slot 1 moves: the up comes first. */
		MX(3, 305), SLOT(3, 0), TID(3, -1), SYN(3),
		SLOT(4, 1), TID(4, -1), SYN(4),
	};
	/* clang-format on */
	struct rec r = {0};
	uint64_t a, b;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 6);
	a = r.pt[0].contact;
	b = r.pt[1].contact;
	assert_true(a != b);
	check_pt(&r.pt[0], TOUCH_DOWN, a, 1, 100, 200, 1, 0);
	check_pt(&r.pt[1], TOUCH_DOWN, b, 1, 300, 400, 2, 0);
	check_pt(&r.pt[2], TOUCH_MOVE, b, 2, 300, 410, 2, 0);
	check_pt(&r.pt[3], TOUCH_UP, a, 3, 100, 200, 1, 0);
	check_pt(&r.pt[4], TOUCH_MOVE, b, 3, 305, 410, 1, 0);
	check_pt(&r.pt[5], TOUCH_UP, b, 4, 305, 410, 0, 0);
}

/* One finger lifts while another lands in a lower slot's frame order. */
static void
test_b_up_before_down(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		SLOT(1, 0), TID(1, 20), MX(1, 10), MY(1, 10), SYN(1),
		SLOT(2, 1), TID(2, 21), MX(2, 50), MY(2, 60),
		SLOT(2, 0), TID(2, -1), SYN(2),
	};
	/* clang-format on */
	struct rec r = {0};

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 3);
	check_pt(&r.pt[1], TOUCH_UP, r.pt[0].contact, 2, 10, 10, 0, 0);
	check_pt(&r.pt[2], TOUCH_DOWN, r.pt[2].contact, 2, 50, 60, 1, 0);
	assert_true(r.pt[2].contact != r.pt[0].contact);
}

/*
 * A slot is reused by a new contact.  The kernel does not repeat unchanged
 * positions, so the new contact goes down where the slot last was.
 */
static void
test_b_slot_reuse(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		SLOT(1, 0), TID(1, 1), MX(1, 70), MY(1, 80), SYN(1),
		TID(2, -1), SYN(2),
		TID(3, 2), MY(3, 90), SYN(3),
		TID(4, -1), SYN(4),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 4);
	check_pt(&r.pt[0], TOUCH_DOWN, r.pt[0].contact, 1, 70, 80, 1, 0);
	check_pt(&r.pt[1], TOUCH_UP, r.pt[0].contact, 2, 70, 80, 0, 0);
	check_pt(&r.pt[2], TOUCH_DOWN, r.pt[2].contact, 3, 70, 90, 1, 0);
	check_pt(&r.pt[3], TOUCH_UP, r.pt[2].contact, 4, 70, 90, 0, 0);
	assert_true(r.pt[2].contact != r.pt[0].contact);
	touch_get_stats(t, &st);
	assert_int_equal(st.contacts, 2);
}

/* A new tracking id in a live slot ends the old contact and starts one. */
static void
test_b_replace_id(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		TID(1, 5), MX(1, 10), MY(1, 10), SYN(1),
		TID(2, 6), MX(2, 50), SYN(2),
		/* The same id again is no change. */
		TID(3, 6), SYN(3),
		TID(4, -1), SYN(4),
	};
	/* clang-format on */
	struct rec r = {0};
	uint64_t a, b;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 4);
	a = r.pt[0].contact;
	b = r.pt[2].contact;
	assert_true(a != b);
	check_pt(&r.pt[0], TOUCH_DOWN, a, 1, 10, 10, 1, 0);
	check_pt(&r.pt[1], TOUCH_UP, a, 2, 10, 10, 0, 0);
	check_pt(&r.pt[2], TOUCH_DOWN, b, 2, 50, 10, 1, 0);
	check_pt(&r.pt[3], TOUCH_UP, b, 4, 50, 10, 0, 0);
}

static void
test_b_slot_overflow(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		SLOT(1, TOUCH_MAX_SLOTS - 1), TID(1, 1), MX(1, 5), SYN(1),
		SLOT(2, TOUCH_MAX_SLOTS), TID(2, 2), MX(2, 6), SYN(2),
		SLOT(3, -3), TID(3, 3), SYN(3),
		TID(4, -1), SYN(4),
		SLOT(5, TOUCH_MAX_SLOTS - 1), TID(5, -1), SYN(5),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 2);
	check_pt(&r.pt[0], TOUCH_DOWN, r.pt[0].contact, 1, 5, 0, 1, 0);
	check_pt(&r.pt[1], TOUCH_UP, r.pt[0].contact, 5, 5, 0, 0, 0);
	touch_get_stats(t, &st);
	assert_int_equal(st.slots_overflow, 2);
	assert_int_equal(st.contacts, 1);
}

/*
 * SYN_DROPPED mid-contact: the incomplete frame before it and everything
 * up to the next SYN_REPORT are discarded, the contact carries the flag
 * on every later point, and its up too.
 */
static void
test_dropped_mid_contact(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		TID(1, 7), MX(1, 100), MY(1, 100), SYN(1),
		MX(2, 110), SYN(2),
		MY(3, 120), DROP(3), MX(3, 130), MY(3, 140), SYN(3),
		MX(4, 150), SYN(4),
		TID(5, -1), SYN(5),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;
	uint64_t c;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 4);
	c = r.pt[0].contact;
	check_pt(&r.pt[0], TOUCH_DOWN, c, 1, 100, 100, 1, 0);
	check_pt(&r.pt[1], TOUCH_MOVE, c, 2, 110, 100, 1, 0);
	/*
	 * The y of 120 before the drop belongs to an incomplete frame: it is
	 * rolled back, and 130 and 140 never happened as far as the tracker
	 * knows.
	 */
	check_pt(&r.pt[2], TOUCH_MOVE, c, 4, 150, 100, 1, TOUCH_FLAG_DROPPED);
	check_pt(&r.pt[3], TOUCH_UP, c, 5, 150, 100, 0, TOUCH_FLAG_DROPPED);
	touch_get_stats(t, &st);
	assert_int_equal(st.syn_dropped, 1);
	assert_int_equal(st.discarded, 4);
	assert_int_equal(st.events, 15);
	assert_int_equal(st.frames, 4);
	assert_int_equal(st.contacts, 1);
}

/* A contact that starts inside the drop window is never invented. */
static void
test_dropped_no_phantom(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		DROP(1), TID(1, 9), MX(1, 40), MY(1, 40), SYN(1),
		MX(2, 45), SYN(2),
		TID(3, -1), SYN(3),
		/* The next real contact is seen normally. */
		TID(4, 10), MX(4, 60), SYN(4),
		TID(5, -1), SYN(5),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 2);
	/* MY 40 was discarded: the slot's y is still the initial 0. */
	check_pt(&r.pt[0], TOUCH_DOWN, r.pt[0].contact, 4, 60, 0, 1, 0);
	check_pt(&r.pt[1], TOUCH_UP, r.pt[0].contact, 5, 60, 0, 0, 0);
	touch_get_stats(t, &st);
	assert_int_equal(st.contacts, 1);
	assert_int_equal(st.discarded, 4);
	assert_int_equal(st.syn_dropped, 1);
}

/*
 * The contact's -1 is lost in the drop; the slot's next tracking id ends
 * it (flagged) and starts the new one (not flagged: its start was seen).
 */
static void
test_dropped_lost_up(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		TID(1, 7), MX(1, 100), MY(1, 100), SYN(1),
		DROP(2), TID(2, -1), SYN(2),
		TID(3, 8), MX(3, 200), SYN(3),
		TID(4, -1), SYN(4),
	};
	/* clang-format on */
	struct rec r = {0};

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 4);
	check_pt(&r.pt[1], TOUCH_UP, r.pt[0].contact, 3, 100, 100, 0,
		 TOUCH_FLAG_DROPPED);
	check_pt(&r.pt[2], TOUCH_DOWN, r.pt[2].contact, 3, 200, 100, 1, 0);
	check_pt(&r.pt[3], TOUCH_UP, r.pt[2].contact, 4, 200, 100, 0, 0);
}

/*
 * After a drop the tracking id the tracker remembers may be stale: the
 * kernel only sends an id when it changes, so seeing the same value again
 * means the slot went through -1 inside the window.
 */
static void
test_dropped_same_id_again(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		TID(1, 7), MX(1, 100), SYN(1),
		DROP(2), SYN(2),
		TID(3, 7), MX(3, 300), SYN(3),
		TID(4, -1), SYN(4),
	};
	/* clang-format on */
	struct rec r = {0};

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 4);
	check_pt(&r.pt[1], TOUCH_UP, r.pt[0].contact, 3, 100, 0, 0,
		 TOUCH_FLAG_DROPPED);
	check_pt(&r.pt[2], TOUCH_DOWN, r.pt[2].contact, 3, 300, 0, 1, 0);
	assert_true(r.pt[2].contact != r.pt[0].contact);
}

/*
 * Protocol A, as in the kernel documentation: two contacts, the first
 * lifts, then the empty packet lifts the second.
 */
static void
test_a_two_fingers(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		MX(1, 100), MY(1, 100), MTSYN(1),
		MX(1, 500), MY(1, 500), MTSYN(1), SYN(1),
		MX(2, 102), MY(2, 101), MTSYN(2),
		MX(2, 500), MY(2, 505), MTSYN(2), SYN(2),
		MX(3, 501), MY(3, 506), MTSYN(3), SYN(3),
		MTSYN(4), SYN(4),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;
	uint64_t a, b;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 7);
	a = r.pt[0].contact;
	b = r.pt[1].contact;
	assert_true(a != b);
	check_pt(&r.pt[0], TOUCH_DOWN, a, 1, 100, 100, 1, 0);
	check_pt(&r.pt[1], TOUCH_DOWN, b, 1, 500, 500, 2, 0);
	check_pt(&r.pt[2], TOUCH_MOVE, a, 2, 102, 101, 2, 0);
	check_pt(&r.pt[3], TOUCH_MOVE, b, 2, 500, 505, 2, 0);
	check_pt(&r.pt[4], TOUCH_UP, a, 3, 102, 101, 1, 0);
	check_pt(&r.pt[5], TOUCH_MOVE, b, 3, 501, 506, 1, 0);
	check_pt(&r.pt[6], TOUCH_UP, b, 4, 501, 506, 0, 0);
	touch_get_stats(t, &st);
	assert_int_equal(st.contacts, 2);
}

/* Without ids, packets follow the nearest contact, whatever their order. */
static void
test_a_nearest(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		MX(1, 100), MY(1, 100), MTSYN(1),
		MX(1, 500), MY(1, 500), MTSYN(1),
		MX(1, 900), MY(1, 100), MTSYN(1), SYN(1),
		/* Reversed order; the middle one moved towards the first. */
		MX(2, 905), MY(2, 100), MTSYN(2),
		MX(2, 300), MY(2, 300), MTSYN(2),
		MX(2, 110), MY(2, 100), MTSYN(2), SYN(2),
	};
	/* clang-format on */
	struct rec r = {0};
	uint64_t c[3];
	unsigned i;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 6);
	for (i = 0; i < 3; i++) {
		assert_int_equal(r.pt[i].phase, TOUCH_DOWN);
		c[i] = r.pt[i].contact;
	}
	/* Moves come in packet order. */
	check_pt(&r.pt[3], TOUCH_MOVE, c[2], 2, 905, 100, 3, 0);
	check_pt(&r.pt[4], TOUCH_MOVE, c[1], 2, 300, 300, 3, 0);
	check_pt(&r.pt[5], TOUCH_MOVE, c[0], 2, 110, 100, 3, 0);
}

/*
 * With tracking ids, the id wins over the distance; the last SYN_MT_REPORT
 * may be omitted when the device reports BTN_TOUCH, and BTN_TOUCH 0 with
 * no packet lifts everything.
 */
static void
test_a_tracking_ids(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		TID(1, 1), MX(1, 100), MY(1, 100), MTSYN(1),
		TID(1, 2), MX(1, 200), MY(1, 100), BTN(1, 1), SYN(1),
		/* The fingers cross: id 1 is now nearer id 2's old place. */
		TID(2, 2), MX(2, 120), MY(2, 100), MTSYN(2),
		TID(2, 1), MX(2, 190), MY(2, 100), MTSYN(2), SYN(2),
		BTN(3, 0), SYN(3),
	};
	/* clang-format on */
	struct rec r = {0};
	uint64_t a, b;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 6);
	a = r.pt[0].contact;
	b = r.pt[1].contact;
	check_pt(&r.pt[0], TOUCH_DOWN, a, 1, 100, 100, 1, 0);
	check_pt(&r.pt[1], TOUCH_DOWN, b, 1, 200, 100, 2, 0);
	check_pt(&r.pt[2], TOUCH_MOVE, b, 2, 120, 100, 2, 0);
	check_pt(&r.pt[3], TOUCH_MOVE, a, 2, 190, 100, 2, 0);
	check_pt(&r.pt[4], TOUCH_UP, a, 3, 190, 100, 1, 0);
	check_pt(&r.pt[5], TOUCH_UP, b, 3, 120, 100, 0, 0);
}

/*
 * Protocol A after a drop: the frame lists everything again, and a contact
 * seen for the first time may have started inside the window.
 */
static void
test_a_dropped(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		MX(1, 100), MY(1, 100), MTSYN(1), SYN(1),
		DROP(2), MX(2, 101), MY(2, 100), MTSYN(2), SYN(2),
		MX(3, 102), MY(3, 100), MTSYN(3),
		MX(3, 700), MY(3, 700), MTSYN(3), SYN(3),
		MTSYN(4), SYN(4),
	};
	/* clang-format on */
	struct rec r = {0};
	uint64_t a, b;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 5);
	a = r.pt[0].contact;
	check_pt(&r.pt[0], TOUCH_DOWN, a, 1, 100, 100, 1, 0);
	check_pt(&r.pt[1], TOUCH_MOVE, a, 3, 102, 100, 1, TOUCH_FLAG_DROPPED);
	b = r.pt[2].contact;
	check_pt(&r.pt[2], TOUCH_DOWN, b, 3, 700, 700, 2, TOUCH_FLAG_DROPPED);
	check_pt(&r.pt[3], TOUCH_UP, a, 4, 102, 100, 1, TOUCH_FLAG_DROPPED);
	check_pt(&r.pt[4], TOUCH_UP, b, 4, 700, 700, 0, TOUCH_FLAG_DROPPED);
}

/* BTN_TOUCH 0 alone ends the contacts still live; their -1 comes later. */
static void
test_btn_touch_ends_b(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		SLOT(1, 0), TID(1, 3), MX(1, 10), MY(1, 20),
		SLOT(1, 1), TID(1, 4), MX(1, 30), MY(1, 40), BTN(1, 1), SYN(1),
		BTN(2, 0), SYN(2),
		SLOT(3, 0), TID(3, -1), SLOT(3, 1), TID(3, -1), SYN(3),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 4);
	check_pt(&r.pt[2], TOUCH_UP, r.pt[0].contact, 2, 10, 20, 1, 0);
	check_pt(&r.pt[3], TOUCH_UP, r.pt[1].contact, 2, 30, 40, 0, 0);
	touch_get_stats(t, &st);
	assert_int_equal(st.ignored, 2);
}

/*
 * A tracking id while BTN_TOUCH is 0 is a hovering tool, as Android sees
 * it: the contact goes down when BTN_TOUCH turns 1.
 */
static void
test_btn_touch_hover(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		BTN(1, 0), TID(1, 3), MX(1, 10), MY(1, 20), SYN(1),
		MX(2, 11), SYN(2),
		BTN(3, 1), SYN(3),
		BTN(4, 0), SYN(4),
		TID(5, -1), SYN(5),
	};
	/* clang-format on */
	struct rec r = {0};

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 2);
	check_pt(&r.pt[0], TOUCH_DOWN, r.pt[0].contact, 3, 11, 20, 1, 0);
	check_pt(&r.pt[1], TOUCH_UP, r.pt[0].contact, 4, 11, 20, 0, 0);
}

/* A single-touch screen: ABS_X/ABS_Y and BTN_TOUCH, no MT events. */
static void
test_single_touch(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		ABS(1, ABS_X, 40), ABS(1, ABS_Y, 50), BTN(1, 1), SYN(1),
		ABS(2, ABS_X, 41), SYN(2),
		fixture_event(3, EV_MSC, MSC_TIMESTAMP, 9), SYN(3),
		BTN(4, 0), SYN(4),
		ABS(5, ABS_X, 60), SYN(5),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 3);
	check_pt(&r.pt[0], TOUCH_DOWN, r.pt[0].contact, 1, 40, 50, 1, 0);
	check_pt(&r.pt[1], TOUCH_MOVE, r.pt[0].contact, 2, 41, 50, 1, 0);
	check_pt(&r.pt[2], TOUCH_UP, r.pt[0].contact, 4, 41, 50, 0, 0);
	touch_get_stats(t, &st);
	assert_int_equal(st.ignored, 1);
}

/* An MT device's pointer emulation does not add a second contact. */
static void
test_mt_with_pointer_emulation(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		TID(1, 9), MX(1, 40), MY(1, 50), BTN(1, 1), ABS(1, ABS_X, 40), ABS(1, ABS_Y, 50), SYN(1),
		MX(2, 42), ABS(2, ABS_X, 42), SYN(2),
		TID(3, -1), BTN(3, 0), SYN(3),
	};
	/* clang-format on */
	struct rec r = {0};

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.pt[0].phase, TOUCH_DOWN);
	check_pt(&r.pt[1], TOUCH_MOVE, r.pt[0].contact, 2, 42, 50, 1, 0);
	check_pt(&r.pt[2], TOUCH_UP, r.pt[0].contact, 3, 42, 50, 0, 0);
}

static void
test_flush(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event evs[] = {
		SLOT(1, 0), TID(1, 3), MX(1, 10), MY(1, 20),
		SLOT(1, 1), TID(1, 4), MX(1, 30), MY(1, 40), SYN(1),
		MX(2, 35),
	};
	/* clang-format on */
	const struct touch_event after[] = {
		SLOT(9, 0),
		TID(9, -1),
		SYN(9),
	};
	struct rec r = {0};
	struct touch_stats st;

	feed_all(t, evs, sizeof(evs) / sizeof(evs[0]), &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(touch_flush(t, 1000, rec_cb, &r), 0);
	assert_int_equal(r.n, 4);
	check_pt(&r.pt[2], TOUCH_UP, r.pt[0].contact, 1000, 10, 20, 1,
		 TOUCH_FLAG_DROPPED);
	check_pt(&r.pt[3], TOUCH_UP, r.pt[1].contact, 1000, 30, 40, 0,
		 TOUCH_FLAG_DROPPED);
	/* Nothing is left to end. */
	assert_int_equal(touch_flush(t, 2000, rec_cb, &r), 0);
	feed_all(t, after, sizeof(after) / sizeof(after[0]), &r);
	assert_int_equal(r.n, 4);
	touch_get_stats(t, &st);
	/* The unfinished frame with MX 35 is thrown away. */
	assert_int_equal(st.discarded, 1);
}

/*
 * The end of the input with contacts down: they are counted, never
 * delivered, and the tracker starts afresh.  Two fingers of protocol B,
 * then one of protocol A, then a single-touch one.
 */
static void
test_end(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event two[] = {
		SLOT(1, 0), TID(1, 3), MX(1, 10), MY(1, 20),
		SLOT(1, 1), TID(1, 4), MX(1, 30), MY(1, 40), SYN(1),
		MX(2, 35),
	};
	const struct touch_event again[] = {
		SLOT(5, 0), TID(5, 7), MX(5, 50), MY(5, 60), SYN(5),
		TID(6, -1), SYN(6),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;

	/* Nothing down: nothing cut. */
	assert_int_equal(touch_end(t), 0);
	feed_all(t, two, sizeof(two) / sizeof(two[0]), &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(touch_end(t), 2);
	assert_int_equal(r.n, 2);
	assert_int_equal(touch_end(t), 0);
	touch_get_stats(t, &st);
	assert_int_equal(st.cut, 2);
	assert_int_equal(st.contacts, 2);
	/* The unfinished frame with MX 35 is thrown away. */
	assert_int_equal(st.discarded, 1);

	/* A new contact afterwards is a new one, and it ends normally. */
	feed_all(t, again, sizeof(again) / sizeof(again[0]), &r);
	assert_int_equal(r.n, 4);
	check_pt(&r.pt[2], TOUCH_DOWN, r.pt[1].contact + 1, 5, 50, 60, 1, 0);
	check_pt(&r.pt[3], TOUCH_UP, r.pt[1].contact + 1, 6, 50, 60, 0, 0);
	assert_int_equal(touch_end(t), 0);
	touch_get_stats(t, &st);
	assert_int_equal(st.cut, 2);
}

static void
test_end_a_and_single(void **state)
{
	struct touch *t = *state, *s = NULL;
	/* clang-format off */
	const struct touch_event a[] = {
		MX(1, 0x164), MY(1, 0x15f), MTSYN(1), SYN(1),
		MX(2, 0x156), MY(2, 0x16d), MTSYN(2), SYN(2),
	};
	const struct touch_event st_down[] = {
		ABS(1, ABS_X, 5), ABS(1, ABS_Y, 6), BTN(1, 1), SYN(1),
	};
	/* clang-format on */
	struct rec r = {0};
	struct touch_stats st;

	feed_all(t, a, sizeof(a) / sizeof(a[0]), &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(touch_end(t), 1);
	touch_get_stats(t, &st);
	assert_int_equal(st.cut, 1);

	assert_int_equal(touch_new(&s), 0);
	r.n = 0;
	feed_all(s, st_down, sizeof(st_down) / sizeof(st_down[0]), &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(touch_end(s), 1);
	assert_int_equal(r.n, 1);
	touch_free(s);
	assert_int_equal(touch_end(NULL), 0);
}

/* A failing callback's error comes back; the tracker stays consistent. */
static void
test_callback_error(void **state)
{
	struct touch *t = *state;
	/* clang-format off */
	const struct touch_event down[] = {
		SLOT(1, 0), TID(1, 3), SLOT(1, 1), TID(1, 4),
	};
	/* clang-format on */
	const struct touch_event up[] = {
		SLOT(3, 0),
		TID(3, -1),
		SLOT(3, 1),
		TID(3, -1),
	};
	struct touch_event syn = SYN(1);
	struct rec r = {0};

	r.fail_at = 1;
	feed_all(t, down, sizeof(down) / sizeof(down[0]), &r);
	assert_int_equal(touch_feed(t, &syn, rec_cb, &r), -EIO);
	/* The second down of the frame was not delivered. */
	assert_int_equal(r.n, 0);
	feed_all(t, up, sizeof(up) / sizeof(up[0]), &r);
	syn = SYN(3);
	assert_int_equal(touch_feed(t, &syn, rec_cb, &r), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.pt[0].phase, TOUCH_UP);
	assert_int_equal(r.pt[0].active, 1);
	assert_int_equal(r.pt[1].phase, TOUCH_UP);
	assert_int_equal(r.pt[1].active, 0);

	assert_int_equal(touch_feed(NULL, &syn, rec_cb, &r), -EINVAL);
	assert_int_equal(touch_feed(t, NULL, rec_cb, &r), -EINVAL);
	assert_int_equal(touch_new(NULL), -EINVAL);
	touch_free(NULL);
}

/*
 * Random streams of the events the tracker cares about: whatever comes in,
 * a contact goes down once, moves and ends only while down, ends once,
 * `active` counts the contacts down, and a flush ends them all.
 */
struct inv {
	uint64_t live[4 * TOUCH_MAX_SLOTS];
	unsigned nlive;
	uint64_t last_serial;
	uint64_t downs;
	unsigned points;
	int bad;
};

static int
inv_cb(void *ctx, const struct touch_point *pt)
{
	struct inv *v = ctx;
	unsigned i;

	v->points++;
	for (i = 0; i < v->nlive; i++) {
		if (v->live[i] == pt->contact)
			break;
	}
	if (pt->phase == TOUCH_DOWN) {
		if (i < v->nlive || pt->contact <= v->last_serial ||
		    v->nlive >= 4 * TOUCH_MAX_SLOTS)
			v->bad = 1;
		else
			v->live[v->nlive++] = pt->contact;
		v->downs++;
		v->last_serial = pt->contact;
	} else if (i == v->nlive) {
		v->bad = 1;
	} else if (pt->phase == TOUCH_UP) {
		v->live[i] = v->live[--v->nlive];
	}
	if (pt->active != v->nlive)
		v->bad = 1;
	return 0;
}

static void
test_random_invariants(void **state)
{
	static const struct {
		uint16_t type, code;
	} kinds[] = {
		{EV_SYN, SYN_REPORT},
		{EV_SYN, SYN_REPORT},
		{EV_SYN, SYN_MT_REPORT},
		{EV_SYN, SYN_DROPPED},
		{EV_ABS, ABS_MT_SLOT},
		{EV_ABS, ABS_MT_TRACKING_ID},
		{EV_ABS, ABS_MT_TRACKING_ID},
		{EV_ABS, ABS_MT_POSITION_X},
		{EV_ABS, ABS_MT_POSITION_Y},
		{EV_ABS, ABS_X},
		{EV_ABS, ABS_Y},
		{EV_KEY, BTN_TOUCH},
		{EV_ABS, ABS_MT_PRESSURE},
	};
	const unsigned nkinds = sizeof(kinds) / sizeof(kinds[0]);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned round, i, cut, ncut = 0;

	(void)state;
	for (round = 0; round < 300; round++) {
		struct touch *t = NULL;
		struct inv v = {0};
		struct touch_stats st;

		assert_int_equal(touch_new(&t), 0);
		for (i = 0; i < 400; i++) {
			struct touch_event e;
			unsigned k;

			seed = seed * 6364136223846793005ull +
			       1442695040888963407ull;
			k = (unsigned)(seed >> 33) % nkinds;
			/* Protocol A rounds need SYN_MT_REPORT, B ones not. */
			if (round % 3 != 0 && kinds[k].code == SYN_MT_REPORT &&
			    kinds[k].type == EV_SYN)
				k = 0;
			e.time_ns = i;
			e.type = kinds[k].type;
			e.code = kinds[k].code;
			e.value = (int32_t)((seed >> 20) % 24) - 3;
			if (e.code == ABS_MT_POSITION_X ||
			    e.code == ABS_MT_POSITION_Y)
				e.value = (int32_t)(seed >> 40);
			assert_int_equal(touch_feed(t, &e, inv_cb, &v), 0);
		}
		/*
		 * Every other round ends without the ups: as many contacts
		 * are cut as the callback saw down.
		 */
		if (round % 2) {
			cut = v.nlive;
			assert_int_equal(touch_end(t), cut);
			v.nlive = 0;
		} else {
			cut = 0;
			assert_int_equal(touch_flush(t, 400, inv_cb, &v), 0);
		}
		assert_int_equal(v.bad, 0);
		assert_int_equal(v.nlive, 0);
		touch_get_stats(t, &st);
		assert_int_equal(st.events, 400);
		assert_int_equal(st.contacts, v.downs);
		assert_int_equal(st.cut, cut);
		ncut += cut;
		touch_free(t);
	}
	/* The random rounds did end with contacts down. */
	assert_true(ncut > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_emulator_tap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_b_no_initial_slot, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_b_two_fingers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_b_up_before_down, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_b_slot_reuse, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_b_replace_id, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_b_slot_overflow, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dropped_mid_contact, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dropped_no_phantom, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dropped_lost_up, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dropped_same_id_again,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_two_fingers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_nearest, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_tracking_ids, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_dropped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_btn_touch_ends_b, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_btn_touch_hover, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_single_touch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mt_with_pointer_emulation,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_a_and_single, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_callback_error, setup,
						teardown),
		cmocka_unit_test(test_random_invariants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
