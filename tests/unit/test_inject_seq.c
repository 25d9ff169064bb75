/*
 * Tests of what an injected gesture writes (inject_seq.h): display px to
 * panel units for the four rotations of a viewport (each against the
 * point worked out by hand from the rotation, then back through
 * hittest_map()), scaled axes, the screen size without a viewport, raw
 * units without axes, points off the panel; and the frames of a contact,
 * with and without the device's extra axes, read back by tapd's own
 * touch tracker as one contact in the slot and with the tracking id
 * written.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gesture.h"
#include "hittest.h"
#include "inject_seq.h"
#include "touch.h"

/* A 1080 x 2400 portrait panel whose axes match its pixels. */
static void
geometry(struct inject_geometry *g, enum winlist_rotation rot)
{
	int turned = rot == WINLIST_ROT_90 || rot == WINLIST_ROT_270;

	memset(g, 0, sizeof(*g));
	g->have_axes = 1;
	g->axes.x_min = 0;
	g->axes.x_max = 1079;
	g->axes.y_min = 0;
	g->axes.y_max = 2399;
	g->have_viewport = 1;
	g->vp.orientation = rot;
	g->vp.logical.right = turned ? 2400 : 1080;
	g->vp.logical.bottom = turned ? 1080 : 2400;
	g->vp.physical = g->vp.logical;
	g->vp.device_width = turned ? 2400 : 1080;
	g->vp.device_height = turned ? 1080 : 2400;
	g->vp.active = 1;
}

/* Converts (x, y), checks the raw point, and maps it back. */
static void
expect(const struct inject_geometry *g, double x, double y, int32_t want_x,
       int32_t want_y)
{
	int32_t rx = -1, ry = -1;
	double bx, by;

	assert_int_equal(inject_seq_to_panel(g, x, y, &rx, &ry), 0);
	assert_int_equal(rx, want_x);
	assert_int_equal(ry, want_y);
	assert_int_equal(hittest_map(&g->vp, &g->axes, rx, ry, &bx, &by), 0);
	assert_true(fabs(bx - x) <= 1.0);
	assert_true(fabs(by - y) <= 1.0);
}

static void
test_rotations(void **state)
{
	struct inject_geometry g;

	(void)state;
	/* Unrotated: the panel is the display. */
	geometry(&g, WINLIST_ROT_0);
	expect(&g, 100, 200, 100, 200);
	expect(&g, 540, 1200, 540, 1200);
	/* 90: x = raw y, y = x_max - raw x. */
	geometry(&g, WINLIST_ROT_90);
	expect(&g, 100, 200, 879, 100);
	expect(&g, 2000, 1000, 79, 2000);
	/* 180: x = x_max - raw x, y = y_max - raw y. */
	geometry(&g, WINLIST_ROT_180);
	expect(&g, 100, 200, 979, 2199);
	/* 270: x = y_max - raw y, y = raw x. */
	geometry(&g, WINLIST_ROT_270);
	expect(&g, 100, 200, 200, 2299);
	expect(&g, 2399, 0, 0, 0);
}

static void
test_scaled_and_flat(void **state)
{
	struct inject_geometry g;
	int32_t rx, ry;
	double x, y;
	struct gesture_config gc;

	(void)state;
	/* A 4096-unit panel under the same display. */
	geometry(&g, WINLIST_ROT_0);
	g.axes.x_max = 4095;
	g.axes.y_max = 4095;
	expect(&g, 540, 1200, 2048, 2048);
	expect(&g, 0, 0, 0, 0);
	/* No viewport: device.json's size, the inverse of gesture_map(). */
	g.have_viewport = 0;
	g.width_px = 1080;
	g.height_px = 2400;
	assert_int_equal(inject_seq_to_panel(&g, 540, 1200, &rx, &ry), 0);
	assert_int_equal(rx, 2048);
	assert_int_equal(ry, 2048);
	gesture_config_default(&gc);
	gc.have_mapping = 1;
	gc.x.min = 0;
	gc.x.max = 4095;
	gc.y.min = 0;
	gc.y.max = 4095;
	gc.width_px = 1080;
	gc.height_px = 2400;
	assert_int_equal(inject_seq_to_panel(&g, 333, 777, &rx, &ry), 0);
	gesture_map(&gc, rx, ry, &x, &y);
	assert_true(fabs(x - 333) <= 0.5);
	assert_true(fabs(y - 777) <= 0.5);
	/* Axes without a size: the numbers are raw units already. */
	g.width_px = 0;
	g.height_px = 0;
	assert_int_equal(inject_seq_to_panel(&g, 12.4, 7.6, &rx, &ry), 0);
	assert_int_equal(rx, 12);
	assert_int_equal(ry, 8);
	assert_int_equal(inject_seq_to_panel(&g, 4096, 7, &rx, &ry), -ERANGE);
	/* Nothing known: raw units, never negative. */
	memset(&g, 0, sizeof(g));
	assert_int_equal(inject_seq_to_panel(&g, 5, 6, &rx, &ry), 0);
	assert_int_equal(rx, 5);
	assert_int_equal(ry, 6);
	assert_int_equal(inject_seq_to_panel(&g, -3, 6, &rx, &ry), -ERANGE);
}

static void
test_off_panel(void **state)
{
	struct inject_geometry g;
	int32_t rx, ry;

	(void)state;
	geometry(&g, WINLIST_ROT_0);
	assert_int_equal(inject_seq_to_panel(&g, 1080.6, 5, &rx, &ry), -ERANGE);
	assert_int_equal(inject_seq_to_panel(&g, 5, -1, &rx, &ry), -ERANGE);
	assert_int_equal(inject_seq_to_panel(&g, NAN, 5, &rx, &ry), -EINVAL);
	/* Half a unit past the edge rounds onto it. */
	assert_int_equal(inject_seq_to_panel(&g, 1079.4, 2399.4, &rx, &ry), 0);
	assert_int_equal(rx, 1079);
	assert_int_equal(ry, 2399);
	geometry(&g, WINLIST_ROT_90);
	assert_int_equal(inject_seq_to_panel(&g, 100, 1100, &rx, &ry), -ERANGE);
	/* An empty axis range cannot be inverted. */
	g.axes.x_max = g.axes.x_min;
	assert_int_equal(inject_seq_to_panel(&g, 1, 1, &rx, &ry), -EINVAL);
}

static void
expect_ev(const struct input_event *ev, uint16_t type, uint16_t code,
	  int32_t value)
{
	assert_int_equal(ev->type, type);
	assert_int_equal(ev->code, code);
	assert_int_equal(ev->value, value);
}

static void
test_frames(void **state)
{
	struct inject_caps none, all;
	struct input_event ev[INJECT_SEQ_FRAME_MAX];
	size_t n;

	(void)state;
	memset(&none, 0, sizeof(none));
	n = inject_seq_frame(&none, INJECT_SEQ_DOWN, 3, 31232, 540, 1200, ev);
	assert_int_equal(n, 5);
	expect_ev(&ev[0], EV_ABS, ABS_MT_SLOT, 3);
	expect_ev(&ev[1], EV_ABS, ABS_MT_TRACKING_ID, 31232);
	expect_ev(&ev[2], EV_ABS, ABS_MT_POSITION_X, 540);
	expect_ev(&ev[3], EV_ABS, ABS_MT_POSITION_Y, 1200);
	expect_ev(&ev[4], EV_SYN, SYN_REPORT, 0);
	n = inject_seq_frame(&none, INJECT_SEQ_MOVE, 3, 31232, 541, 1190, ev);
	assert_int_equal(n, 4);
	expect_ev(&ev[0], EV_ABS, ABS_MT_SLOT, 3);
	expect_ev(&ev[1], EV_ABS, ABS_MT_POSITION_X, 541);
	expect_ev(&ev[2], EV_ABS, ABS_MT_POSITION_Y, 1190);
	expect_ev(&ev[3], EV_SYN, SYN_REPORT, 0);
	n = inject_seq_frame(&none, INJECT_SEQ_UP, 3, 31232, 0, 0, ev);
	assert_int_equal(n, 3);
	expect_ev(&ev[0], EV_ABS, ABS_MT_SLOT, 3);
	expect_ev(&ev[1], EV_ABS, ABS_MT_TRACKING_ID, -1);
	expect_ev(&ev[2], EV_SYN, SYN_REPORT, 0);

	memset(&all, 0, sizeof(all));
	all.btn_touch = 1;
	all.abs_xy = 1;
	all.pressure = 1;
	all.pressure_value = 128;
	all.touch_major = 1;
	all.major_value = 6;
	n = inject_seq_frame(&all, INJECT_SEQ_DOWN, 0, 7, 10, 20, ev);
	assert_int_equal(n, 10);
	expect_ev(&ev[4], EV_ABS, ABS_MT_TOUCH_MAJOR, 6);
	expect_ev(&ev[5], EV_ABS, ABS_MT_PRESSURE, 128);
	expect_ev(&ev[6], EV_KEY, BTN_TOUCH, 1);
	expect_ev(&ev[7], EV_ABS, ABS_X, 10);
	expect_ev(&ev[8], EV_ABS, ABS_Y, 20);
	expect_ev(&ev[9], EV_SYN, SYN_REPORT, 0);
	n = inject_seq_frame(&all, INJECT_SEQ_MOVE, 0, 7, 11, 21, ev);
	assert_int_equal(n, 6);
	expect_ev(&ev[3], EV_ABS, ABS_X, 11);
	expect_ev(&ev[4], EV_ABS, ABS_Y, 21);
	n = inject_seq_frame(&all, INJECT_SEQ_UP, 0, 7, 0, 0, ev);
	assert_int_equal(n, 4);
	expect_ev(&ev[2], EV_KEY, BTN_TOUCH, 0);
	expect_ev(&ev[3], EV_SYN, SYN_REPORT, 0);
}

struct seen {
	struct touch_point pt[8];
	size_t n;
};

static int
seen_cb(void *ctx, const struct touch_point *pt)
{
	struct seen *s = ctx;

	assert_true(s->n < 8);
	s->pt[s->n++] = *pt;
	return 0;
}

/* Feeds the frame as the kernel would pass it on, stamped at t_ns. */
static void
feed(struct touch *t, const struct input_event *ev, size_t n, int64_t t_ns,
     struct seen *s)
{
	struct touch_event te;
	size_t i;

	for (i = 0; i < n; i++) {
		te.time_ns = t_ns;
		te.type = ev[i].type;
		te.code = ev[i].code;
		te.value = ev[i].value;
		assert_int_equal(touch_feed(t, &te, seen_cb, s), 0);
	}
}

static void
test_read_back(void **state)
{
	struct inject_caps caps;
	struct input_event ev[INJECT_SEQ_FRAME_MAX];
	struct seen s;
	struct touch *t;
	size_t n;

	(void)state;
	memset(&caps, 0, sizeof(caps));
	caps.btn_touch = 1;
	memset(&s, 0, sizeof(s));
	assert_int_equal(touch_new(&t), 0);
	n = inject_seq_frame(&caps, INJECT_SEQ_DOWN, 2, 31300, 100, 200, ev);
	feed(t, ev, n, 1000, &s);
	n = inject_seq_frame(&caps, INJECT_SEQ_MOVE, 2, 31300, 150, 260, ev);
	feed(t, ev, n, 2000, &s);
	n = inject_seq_frame(&caps, INJECT_SEQ_UP, 2, 31300, 0, 0, ev);
	feed(t, ev, n, 3000, &s);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.pt[0].phase, TOUCH_DOWN);
	assert_int_equal(s.pt[0].slot, 2);
	assert_int_equal(s.pt[0].tracking_id, 31300);
	assert_int_equal(s.pt[0].x, 100);
	assert_int_equal(s.pt[0].y, 200);
	assert_int_equal(s.pt[0].time_ns, 1000);
	assert_int_equal(s.pt[1].phase, TOUCH_MOVE);
	assert_int_equal(s.pt[1].x, 150);
	assert_int_equal(s.pt[1].y, 260);
	assert_int_equal(s.pt[2].phase, TOUCH_UP);
	assert_int_equal(s.pt[2].slot, 2);
	assert_int_equal(s.pt[2].contact, s.pt[0].contact);
	assert_int_equal(s.pt[2].time_ns, 3000);
	assert_int_equal(s.pt[2].active, 0);
	touch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rotations),
		cmocka_unit_test(test_scaled_and_flat),
		cmocka_unit_test(test_off_panel),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
