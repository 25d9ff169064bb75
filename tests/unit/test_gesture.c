/*
 * Tests of the gesture classifier: the tap / long press / swipe / multi
 * boundaries, the raw-to-px mapping, the dropped-input flag, the config
 * checks, and the touch tracker's real output fed through it.
 */
#include <errno.h>
#include <linux/input.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "gesture.h"
#include "touch.h"

#define MS 1000000LL
#define T0 5000000000LL

static struct touch_point
pt(enum touch_phase phase, uint64_t contact, int64_t time_ns, int32_t x,
   int32_t y, unsigned active)
{
	struct touch_point p;

	memset(&p, 0, sizeof(p));
	p.phase = phase;
	p.contact = contact;
	p.time_ns = time_ns;
	p.x = x;
	p.y = y;
	p.active = active;
	return p;
}

static struct gesture *
new_default(void)
{
	struct gesture_config cfg;
	struct gesture *g = NULL;

	gesture_config_default(&cfg);
	assert_int_equal(gesture_new(&cfg, &g), 0);
	assert_non_null(g);
	return g;
}

/*
 * Feeds pts in order; every point but the last must leave the gesture
 * running, and the last must end it.
 */
static void
run(struct gesture *g, const struct touch_point *pts, size_t n,
    struct gesture_record *rec)
{
	size_t i;

	memset(rec, 0xa5, sizeof(*rec));
	for (i = 0; i + 1 < n; i++) {
		assert_int_equal(gesture_feed(g, &pts[i], rec), 0);
		assert_true(gesture_in_progress(g));
	}
	assert_int_equal(gesture_feed(g, &pts[n - 1], rec), 1);
	assert_false(gesture_in_progress(g));
}

/* A down at (100, 200) and an up after duration_ns, still there. */
static enum gesture_kind
kind_after(int64_t duration_ns)
{
	struct gesture *g = new_default();
	struct touch_point pts[] = {
		pt(TOUCH_DOWN, 1, T0, 100, 200, 1),
		pt(TOUCH_UP, 1, T0 + duration_ns, 100, 200, 0),
	};
	struct gesture_record rec;

	run(g, pts, 2, &rec);
	assert_int_equal(rec.t_down_ns, T0);
	assert_int_equal(rec.t_up_ns, T0 + duration_ns);
	gesture_free(g);
	return rec.kind;
}

/*
 * A gesture cut by the end of the input is abandoned: an up of its
 * contact that came later would end nothing, and the next down starts a
 * gesture of its own, a tap and not a multi-finger one.
 */
static void
test_cancel(void **state)
{
	struct gesture *g = new_default();
	struct touch_point down = pt(TOUCH_DOWN, 1, T0, 100, 200, 1);
	struct touch_point stray = pt(TOUCH_UP, 1, T0 + 50 * MS, 100, 200, 0);
	struct touch_point pts[] = {
		pt(TOUCH_DOWN, 2, T0 + 2000 * MS, 300, 400, 1),
		pt(TOUCH_UP, 2, T0 + 2060 * MS, 300, 400, 0),
	};
	struct gesture_record rec;

	(void)state;
	assert_int_equal(gesture_feed(g, &down, &rec), 0);
	assert_true(gesture_in_progress(g));
	gesture_cancel(g);
	assert_false(gesture_in_progress(g));
	assert_int_equal(gesture_feed(g, &stray, &rec), 0);
	run(g, pts, 2, &rec);
	assert_int_equal(rec.kind, GESTURE_TAP);
	assert_int_equal(rec.t_down_ns, T0 + 2000 * MS);
	assert_int_equal(rec.fingers, 1);
	gesture_cancel(g);
	gesture_cancel(NULL);
	assert_false(gesture_in_progress(g));
	gesture_free(g);
}

static void
test_tap(void **state)
{
	struct gesture *g = new_default();
	struct touch_point pts[] = {
		pt(TOUCH_DOWN, 7, T0, 100, 200, 1),
		pt(TOUCH_MOVE, 7, T0 + 30 * MS, 103, 204, 1),
		pt(TOUCH_UP, 7, T0 + 80 * MS, 101, 200, 0),
	};
	struct gesture_record rec;

	(void)state;
	assert_false(gesture_in_progress(g));
	run(g, pts, 3, &rec);
	assert_int_equal(rec.kind, GESTURE_TAP);
	assert_int_equal(rec.t_down_ns, T0);
	assert_int_equal(rec.t_up_ns, T0 + 80 * MS);
	assert_true(rec.x == 100.0);
	assert_true(rec.y == 200.0);
	/* (3, 4) from the down point is 5 px, the farthest it went. */
	assert_true(rec.max_dist_px == 5.0);
	assert_int_equal(rec.fingers, 1);
	assert_int_equal(rec.flags, 0);
	gesture_free(g);
}

static void
test_long_press_boundary(void **state)
{
	(void)state;
	assert_int_equal(kind_after(399 * MS), GESTURE_TAP);
	assert_int_equal(kind_after(400 * MS - 1), GESTURE_TAP);
	assert_int_equal(kind_after(400 * MS), GESTURE_LONG_PRESS);
	assert_int_equal(kind_after(401 * MS), GESTURE_LONG_PRESS);
	assert_int_equal(kind_after(0), GESTURE_TAP);
}

/* Moving dx px right 50 ms after the down, then lifting at 100 ms. */
static struct gesture_record
moved(const struct gesture_config *cfg, int32_t dx, int32_t dy, int64_t move_at,
      int64_t up_at)
{
	struct gesture *g = NULL;
	struct touch_point pts[] = {
		pt(TOUCH_DOWN, 1, T0, 1000, 1000, 1),
		pt(TOUCH_MOVE, 1, T0 + move_at, 1000 + dx, 1000 + dy, 1),
		pt(TOUCH_UP, 1, T0 + up_at, 1000, 1000, 0),
	};
	struct gesture_record rec;

	assert_int_equal(gesture_new(cfg, &g), 0);
	run(g, pts, 3, &rec);
	gesture_free(g);
	return rec;
}

static void
test_slop(void **state)
{
	struct gesture_config cfg;
	struct gesture_record rec;

	(void)state;
	gesture_config_default(&cfg);
	rec = moved(&cfg, 8, 0, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_TAP);
	assert_true(rec.max_dist_px == 8.0);
	rec = moved(&cfg, 9, 0, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
	assert_true(rec.max_dist_px == 9.0);
	rec = moved(&cfg, 0, -9, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
	/* Diagonals compare squared distances: 36 + 36 > 64. */
	rec = moved(&cfg, 6, 6, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
	rec = moved(&cfg, 5, 6, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_TAP);
	/* A swipe stays a swipe however long it lasts. */
	rec = moved(&cfg, 50, 0, 100 * MS, 900 * MS);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
	assert_true(rec.max_dist_px == 50.0);

	/* The slop comes from the config. */
	cfg.slop_px = 20.0;
	rec = moved(&cfg, 19, 0, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_TAP);
	cfg.slop_px = 0.0;
	rec = moved(&cfg, 1, 0, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
}

/* Leaving the slop once the timeout passed does not undo the long press. */
static void
test_move_after_timeout(void **state)
{
	struct gesture_config cfg;
	struct gesture_record rec;

	(void)state;
	gesture_config_default(&cfg);
	rec = moved(&cfg, 20, 0, 450 * MS, 500 * MS);
	assert_int_equal(rec.kind, GESTURE_LONG_PRESS);
	assert_true(rec.max_dist_px == 20.0);
	/* At exactly the timeout the timer has fired. */
	rec = moved(&cfg, 20, 0, 400 * MS, 500 * MS);
	assert_int_equal(rec.kind, GESTURE_LONG_PRESS);
	rec = moved(&cfg, 20, 0, 400 * MS - 1, 500 * MS);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
	/* The long-press timeout comes from the config. */
	cfg.long_press_ns = 500 * MS;
	rec = moved(&cfg, 20, 0, 450 * MS, 600 * MS);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
	rec = moved(&cfg, 0, 0, 450 * MS, 499 * MS);
	assert_int_equal(rec.kind, GESTURE_TAP);
}

/* A lift that itself lands beyond the slop counts as a move. */
static void
test_up_position_counts(void **state)
{
	struct gesture *g = new_default();
	struct touch_point pts[] = {
		pt(TOUCH_DOWN, 1, T0, 10, 10, 1),
		pt(TOUCH_UP, 1, T0 + 60 * MS, 40, 50, 0),
	};
	struct gesture_record rec;

	(void)state;
	run(g, pts, 2, &rec);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
	assert_true(rec.max_dist_px == 50.0);
	gesture_free(g);
}

static void
test_multi(void **state)
{
	struct gesture *g = new_default();
	struct touch_point pts[] = {
		pt(TOUCH_DOWN, 1, T0, 100, 100, 1),
		pt(TOUCH_DOWN, 2, T0 + 50 * MS, 500, 500, 2),
		pt(TOUCH_UP, 1, T0 + 80 * MS, 100, 100, 1),
		/* The second finger's move does not make a swipe. */
		pt(TOUCH_MOVE, 2, T0 + 90 * MS, 600, 500, 1),
		pt(TOUCH_UP, 2, T0 + 120 * MS, 600, 500, 0),
	};
	struct gesture_record rec;

	(void)state;
	run(g, pts, 5, &rec);
	assert_int_equal(rec.kind, GESTURE_MULTI);
	assert_int_equal(rec.fingers, 2);
	assert_int_equal(rec.t_down_ns, T0);
	assert_int_equal(rec.t_up_ns, T0 + 120 * MS);
	assert_true(rec.x == 100.0);
	assert_true(rec.max_dist_px == 0.0);

	/* Two fingers landing in the same frame. */
	pts[1].time_ns = T0;
	run(g, pts, 5, &rec);
	assert_int_equal(rec.kind, GESTURE_MULTI);

	/* The next gesture starts clean. */
	pts[0].contact = 3;
	pts[1] = pt(TOUCH_UP, 3, T0 + 90 * MS, 100, 100, 0);
	run(g, pts, 2, &rec);
	assert_int_equal(rec.kind, GESTURE_TAP);
	assert_int_equal(rec.fingers, 1);
	gesture_free(g);
}

/* The emulator's axes, 0..32767, onto a 1080x2400 display. */
static void
emulator_config(struct gesture_config *cfg)
{
	gesture_config_default(cfg);
	cfg->have_mapping = 1;
	cfg->x.min = 0;
	cfg->x.max = 32767;
	cfg->y.min = 0;
	cfg->y.max = 32767;
	cfg->width_px = 1080;
	cfg->height_px = 2400;
}

static void
test_mapping(void **state)
{
	struct gesture_config cfg;
	struct gesture_record rec;
	double x, y;

	(void)state;
	emulator_config(&cfg);
	/* 17033 * 1080 / 32768 and 30552 * 2400 / 32768, exact in binary. */
	gesture_map(&cfg, 0x4289, 0x7758, &x, &y);
	assert_true(x == 561.390380859375);
	assert_true(y == 2237.6953125);
	gesture_map(&cfg, 32767, 0, &x, &y);
	assert_true(x < 1080.0 && x > 1079.9);
	assert_true(y == 0.0);

	/* An offset axis and no mapping. */
	cfg.x.min = 100;
	cfg.x.max = 1099;
	cfg.width_px = 500;
	gesture_map(&cfg, 300, 0, &x, &y);
	assert_true(x == 100.0);
	cfg.have_mapping = 0;
	gesture_map(&cfg, 300, -7, &x, &y);
	assert_true(x == 300.0);
	assert_true(y == -7.0);

	/*
	 * The slop is in display px: 242 raw units are 7.976 px, 243 are
	 * 8.009.
	 */
	emulator_config(&cfg);
	rec = moved(&cfg, 242, 0, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_TAP);
	assert_true(fabs(rec.max_dist_px - 242.0 * 1080.0 / 32768.0) < 1e-9);
	rec = moved(&cfg, 243, 0, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
	/* In y, 2400 px over the same range: 110 units are 8.06 px. */
	rec = moved(&cfg, 0, 110, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_SWIPE);
	rec = moved(&cfg, 0, 109, 50 * MS, 100 * MS);
	assert_int_equal(rec.kind, GESTURE_TAP);
}

static void
test_input_dropped(void **state)
{
	struct gesture *g = new_default();
	struct touch_point pts[] = {
		pt(TOUCH_DOWN, 1, T0, 100, 100, 1),
		pt(TOUCH_DOWN, 2, T0 + 10 * MS, 300, 300, 2),
		pt(TOUCH_UP, 2, T0 + 20 * MS, 300, 300, 1),
		pt(TOUCH_UP, 1, T0 + 30 * MS, 100, 100, 0),
	};
	struct gesture_record rec;

	(void)state;
	run(g, pts, 4, &rec);
	assert_int_equal(rec.flags, 0);
	/* A flag on the second finger's up taints the whole gesture. */
	pts[2].flags = TOUCH_FLAG_DROPPED;
	run(g, pts, 4, &rec);
	assert_int_equal(rec.flags, GESTURE_FLAG_INPUT_DROPPED);
	/* And it does not leak into the next gesture. */
	pts[1] = pt(TOUCH_UP, 1, T0 + 40 * MS, 100, 100, 0);
	run(g, pts, 2, &rec);
	assert_int_equal(rec.flags, 0);
	/* A flagged down counts too. */
	pts[0].flags = TOUCH_FLAG_DROPPED;
	run(g, pts, 2, &rec);
	assert_int_equal(rec.flags, GESTURE_FLAG_INPUT_DROPPED);
	gesture_free(g);
}

static void
test_ignores_strays(void **state)
{
	struct gesture *g = new_default();
	struct touch_point stray = pt(TOUCH_UP, 9, T0, 1, 1, 0);
	struct touch_point move = pt(TOUCH_MOVE, 9, T0, 1, 1, 1);
	struct gesture_record rec;

	(void)state;
	/* Points of a contact that went down before the classifier saw it. */
	assert_int_equal(gesture_feed(g, &stray, &rec), 0);
	assert_int_equal(gesture_feed(g, &move, &rec), 0);
	assert_false(gesture_in_progress(g));
	assert_int_equal(gesture_feed(NULL, &stray, &rec), 0);
	assert_int_equal(gesture_feed(g, NULL, &rec), 0);
	assert_false(gesture_in_progress(NULL));
	gesture_free(g);
	gesture_free(NULL);
}

static void
test_config(void **state)
{
	struct gesture_config cfg, bad;
	struct gesture *g = NULL;

	(void)state;
	memset(&cfg, 0xff, sizeof(cfg));
	gesture_config_default(&cfg);
	assert_true(cfg.slop_px == 8.0);
	assert_int_equal(cfg.long_press_ns, 400 * MS);
	assert_int_equal(cfg.have_mapping, 0);

	bad = cfg;
	bad.slop_px = -0.5;
	assert_int_equal(gesture_new(&bad, &g), -EINVAL);
	bad.slop_px = NAN;
	assert_int_equal(gesture_new(&bad, &g), -EINVAL);
	bad.slop_px = INFINITY;
	assert_int_equal(gesture_new(&bad, &g), -EINVAL);
	bad = cfg;
	bad.long_press_ns = 0;
	assert_int_equal(gesture_new(&bad, &g), -EINVAL);
	bad.long_press_ns = -1;
	assert_int_equal(gesture_new(&bad, &g), -EINVAL);
	assert_null(g);

	emulator_config(&bad);
	bad.x.max = -1;
	assert_int_equal(gesture_new(&bad, &g), -EINVAL);
	emulator_config(&bad);
	bad.y.min = 40000;
	assert_int_equal(gesture_new(&bad, &g), -EINVAL);
	emulator_config(&bad);
	bad.width_px = 0;
	assert_int_equal(gesture_new(&bad, &g), -EINVAL);
	emulator_config(&bad);
	bad.height_px = -5;
	assert_int_equal(gesture_new(&bad, &g), -EINVAL);
	assert_null(g);
	assert_int_equal(gesture_new(NULL, &g), -EINVAL);
	assert_int_equal(gesture_new(&cfg, NULL), -EINVAL);

	/* A one-value axis and a zero slop are fine. */
	emulator_config(&bad);
	bad.x.max = bad.x.min;
	bad.slop_px = 0.0;
	assert_int_equal(gesture_new(&bad, &g), 0);
	assert_non_null(g);
	gesture_free(g);
}

static void
test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(gesture_kind_name(GESTURE_TAP), "tap");
	assert_string_equal(gesture_kind_name(GESTURE_LONG_PRESS),
			    "long_press");
	assert_string_equal(gesture_kind_name(GESTURE_SWIPE), "swipe");
	assert_string_equal(gesture_kind_name(GESTURE_MULTI), "multi");
	assert_non_null(
		gesture_kind_name((enum gesture_kind)GESTURE_KIND_COUNT));
}

/* The touch tracker's output, fed straight into the classifier. */
struct pipe {
	struct gesture *g;
	struct gesture_record rec[8];
	unsigned n;
};

static int
pipe_cb(void *ctx, const struct touch_point *p)
{
	struct pipe *pp = ctx;
	struct gesture_record rec;

	if (gesture_feed(pp->g, p, &rec) == 1 && pp->n < 8)
		pp->rec[pp->n++] = rec;
	return 0;
}

static void
test_pipeline(void **state)
{
	const int64_t t1 = 42407808000, t2 = 42453256000;
	/* tests/fixtures/getevent/emulator-tap.getevent, typed in. */
	const struct touch_event tap[] = {
		fixture_event(t1, EV_ABS, ABS_MT_TRACKING_ID, 0x00000000),
		fixture_event(t1, EV_ABS, ABS_MT_TOUCH_MAJOR, 0x00000004),
		fixture_event(t1, EV_ABS, ABS_MT_PRESSURE, 0x00000081),
		fixture_event(t1, EV_ABS, ABS_MT_POSITION_X, 0x00004289),
		fixture_event(t1, EV_ABS, ABS_MT_POSITION_Y, 0x00007758),
		fixture_event(t1, EV_SYN, SYN_REPORT, 0),
		fixture_event(t2, EV_ABS, ABS_MT_PRESSURE, 0x00000000),
		fixture_event(t2, EV_ABS, ABS_MT_TRACKING_ID, -1),
		fixture_event(t2, EV_SYN, SYN_REPORT, 0),
	};
	/* Then a press that a SYN_DROPPED interrupts, ended by a flush. */
	const int64_t t3 = 43000000000;
	const struct touch_event press[] = {
		fixture_event(t3, EV_ABS, ABS_MT_TRACKING_ID, 1),
		fixture_event(t3, EV_SYN, SYN_REPORT, 0),
		fixture_event(t3 + 100 * MS, EV_SYN, SYN_DROPPED, 0),
		fixture_event(t3 + 100 * MS, EV_ABS, ABS_MT_TRACKING_ID, -1),
		fixture_event(t3 + 100 * MS, EV_SYN, SYN_REPORT, 0),
	};
	struct gesture_config cfg;
	struct touch *t = NULL;
	struct pipe pp = {0};
	size_t i;

	(void)state;
	emulator_config(&cfg);
	assert_int_equal(gesture_new(&cfg, &pp.g), 0);
	assert_int_equal(touch_new(&t), 0);
	for (i = 0; i < sizeof(tap) / sizeof(tap[0]); i++)
		assert_int_equal(touch_feed(t, &tap[i], pipe_cb, &pp), 0);
	assert_int_equal(pp.n, 1);
	assert_int_equal(pp.rec[0].kind, GESTURE_TAP);
	assert_int_equal(pp.rec[0].t_down_ns, 42407808000);
	assert_int_equal(pp.rec[0].t_up_ns, 42453256000);
	assert_true(pp.rec[0].x == 561.390380859375);
	assert_true(pp.rec[0].y == 2237.6953125);
	assert_int_equal(pp.rec[0].fingers, 1);
	assert_int_equal(pp.rec[0].flags, 0);

	for (i = 0; i < sizeof(press) / sizeof(press[0]); i++)
		assert_int_equal(touch_feed(t, &press[i], pipe_cb, &pp), 0);
	/* The lift was lost in the drop: the contact is still down. */
	assert_int_equal(pp.n, 1);
	assert_true(gesture_in_progress(pp.g));
	assert_int_equal(touch_flush(t, t3 + 900 * MS, pipe_cb, &pp), 0);
	assert_int_equal(pp.n, 2);
	assert_int_equal(pp.rec[1].kind, GESTURE_LONG_PRESS);
	assert_int_equal(pp.rec[1].t_down_ns, t3);
	assert_int_equal(pp.rec[1].t_up_ns, t3 + 900 * MS);
	assert_int_equal(pp.rec[1].flags, GESTURE_FLAG_INPUT_DROPPED);
	assert_false(gesture_in_progress(pp.g));

	touch_free(t);
	gesture_free(pp.g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tap),
		cmocka_unit_test(test_long_press_boundary),
		cmocka_unit_test(test_slop),
		cmocka_unit_test(test_move_after_timeout),
		cmocka_unit_test(test_up_position_counts),
		cmocka_unit_test(test_multi),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_input_dropped),
		cmocka_unit_test(test_ignores_strays),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_pipeline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
