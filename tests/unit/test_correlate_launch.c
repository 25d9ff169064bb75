/*
 * Tests of the correlator's launches and navigations (correlate.h,
 * docs/DESIGN.md 1.5.1): the switch that makes a tap one, the launched
 * app's frames, and how long a tap waits for a switch still to come.
 * Each expected number is derived from the times the test feeds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "correlate.h"
#include "foreground.h"

#define MS  1000000LL
#define SEC 1000000000LL
#define FAR (100000 * SEC)

#define LAUNCHER "com.android.launcher3"

/* A result with its strings copied, since they die with the callback. */
struct got {
	struct correlate_result r;
	char app[64], activity[128];
};

struct sink {
	struct got g[16];
	size_t n;
};

static int
collect(void *ctx, const struct correlate_result *res)
{
	struct sink *s = ctx;
	struct got *g;

	assert_true(s->n < 16);
	g = &s->g[s->n++];
	memset(g, 0, sizeof(*g));
	g->r = *res;
	g->r.resp = NULL;
	g->r.target_app = NULL;
	g->r.target_activity = NULL;
	if (res->target_app)
		snprintf(g->app, sizeof(g->app), "%s", res->target_app);
	if (res->target_activity)
		snprintf(g->activity, sizeof(g->activity), "%s",
			 res->target_activity);
	return 0;
}

static struct correlate *
new_corr(const struct foreground *fg)
{
	struct correlate_config cfg;
	struct correlate *c = NULL;

	correlate_config_default(&cfg);
	assert_int_equal(cfg.launch_cap_ns, 10 * SEC);
	assert_int_equal(correlate_new(&cfg, &c), 0);
	correlate_set_foreground(c, fg);
	correlate_set_coverage(c, 0);
	return c;
}

static void
frame(struct correlate *c, int32_t pid, const char *app, const char *layer,
      int64_t start, int64_t present)
{
	struct correlate_frame f;

	memset(&f, 0, sizeof(f));
	f.pid = pid;
	f.app = app;
	f.layer = layer;
	f.start_ns = start;
	f.present_ns = present;
	assert_int_equal(correlate_feed_frame(c, &f), 0);
}

static void
tap(struct correlate *c, uint64_t id, int64_t up, int32_t pid, const char *app)
{
	struct correlate_tap t;

	memset(&t, 0, sizeof(t));
	t.id = id;
	t.t_down_ns = up - 80 * MS;
	t.t_up_ns = up;
	t.pid = pid;
	t.app = app;
	assert_int_equal(correlate_touch_down(c, t.t_down_ns), 0);
	assert_int_equal(correlate_feed_tap(c, &t), 0);
}

/*
 * A launcher icon: the focus goes to com.b 100 ms after t_up.  B's frames
 * that started after t_up are its response, their burst its settle; one
 * that started before t_up is not; the launcher's own frames stay the
 * tap's first_frame and settle.  The tap waits for the launch window.
 */
static void
test_launch(void **state)
{
	const int64_t up = 10 * SEC;
	struct foreground *fg = NULL;
	struct correlate *c;
	struct sink s = {0};

	(void)state;
	assert_int_equal(foreground_new(&fg), 0);
	assert_int_equal(foreground_add(fg, 1 * SEC, 10, LAUNCHER), 0);
	assert_int_equal(foreground_add_activity(fg, up + 100 * MS, 20, "com.b",
						 ".Main"),
			 0);
	/* A later switch, after the first: the first decides. */
	assert_int_equal(foreground_add(fg, up + 3 * SEC, 30, "com.c"), 0);
	foreground_set_complete(fg, FAR);
	c = new_corr(fg);
	tap(c, 1, up, 10, LAUNCHER);
	frame(c, 10, NULL, NULL, up + 8 * MS, up + 20 * MS + 1);
	frame(c, 10, NULL, NULL, up + 16 * MS, up + 36 * MS + 2);
	frame(c, 20, NULL, NULL, up - 1, up + 50 * MS);	 /* in flight */
	frame(c, 20, NULL, NULL, up, up + 250 * MS + 7); /* starts at t_up */
	frame(c, 20, NULL, NULL, up + 260 * MS, up + 400 * MS + 3);
	/* After a gap longer than settle_quiet: out of the burst. */
	frame(c, 20, NULL, NULL, up + 500 * MS, up + 701 * MS + 3);
	/* B's frames through the pid; C's do not count. */
	frame(c, 30, "com.b", NULL, up + 300 * MS, up + 330 * MS);

	/* The tap's own window is closed, the launch window is not. */
	assert_int_equal(
		correlate_advance(c, up + 7 * SEC, up + 7 * SEC, collect, &s),
		0);
	assert_int_equal(s.n, 0);
	assert_int_equal(correlate_advance(c, up + 11 * SEC - 1, up + 10 * SEC,
					   collect, &s),
			 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(
		correlate_advance(c, up + 11 * SEC, up + 10 * SEC, collect, &s),
		0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.g[0].r.status, CORRELATE_OK);
	assert_int_equal(s.g[0].r.first_frame_ns, 20 * MS + 1);
	assert_int_equal(s.g[0].r.settle_ns, 36 * MS + 2);
	assert_int_equal(s.g[0].r.frames, 2);
	assert_true(s.g[0].r.flags & CORRELATE_FLAG_LAUNCH);
	assert_false(s.g[0].r.flags & CORRELATE_FLAG_NAVIGATION);
	assert_string_equal(s.g[0].app, "com.b");
	assert_string_equal(s.g[0].activity, "com.b.Main");
	assert_int_equal(s.g[0].r.target_pid, 20);
	assert_int_equal(s.g[0].r.switch_ns, up + 100 * MS);
	assert_int_equal(s.g[0].r.launch_first_frame_ns, 250 * MS + 7);
	assert_int_equal(s.g[0].r.launch_settle_ns, 400 * MS + 3);
	assert_int_equal(s.g[0].r.launch_frames, 3);
	correlate_free(c);
	foreground_free(fg);
}

/* Another activity of the same app: a navigation, no launch values. */
static void
test_navigation(void **state)
{
	const int64_t up = 10 * SEC;
	struct foreground *fg = NULL;
	struct correlate *c;
	struct sink s = {0};

	(void)state;
	assert_int_equal(foreground_new(&fg), 0);
	assert_int_equal(
		foreground_add_activity(fg, 1 * SEC, 20, "com.b", ".Main"), 0);
	/* The same activity again, then another: the second is the switch. */
	assert_int_equal(foreground_add_activity(fg, up + 50 * MS, 20, "com.b",
						 "com.b.Main"),
			 0);
	assert_int_equal(
		foreground_add_activity(fg, up + 90 * MS, 20, "com.b", ".Cart"),
		0);
	foreground_set_complete(fg, FAR);
	c = new_corr(fg);
	tap(c, 1, up, 20, "com.b");
	frame(c, 20, NULL, NULL, up + 30 * MS, up + 45 * MS);
	assert_int_equal(correlate_advance(c, FAR, FAR, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_true(s.g[0].r.flags & CORRELATE_FLAG_NAVIGATION);
	assert_false(s.g[0].r.flags & CORRELATE_FLAG_LAUNCH);
	assert_string_equal(s.g[0].app, "com.b");
	assert_string_equal(s.g[0].activity, "com.b.Cart");
	assert_int_equal(s.g[0].r.switch_ns, up + 90 * MS);
	assert_int_equal(s.g[0].r.launch_first_frame_ns, -1);
	assert_int_equal(s.g[0].r.launch_settle_ns, -1);
	assert_int_equal(s.g[0].r.first_frame_ns, 45 * MS);
	correlate_free(c);
	foreground_free(fg);
}

/*
 * Switches that must not count: none at all, one exactly at the cap, one
 * at or after the next touch-down (which also ends the wait there), one
 * exactly at t_up (in force at t_up already).  And one a nanosecond
 * inside the cap that does.
 */
static void
test_not_a_launch(void **state)
{
	const int64_t up1 = 10 * SEC, up2 = 30 * SEC, up3 = 50 * SEC;
	const int64_t up4 = 51 * SEC, up5 = 70 * SEC, up6 = 90 * SEC;
	struct foreground *fg = NULL;
	struct correlate *c;
	struct sink s = {0};
	size_t i;

	(void)state;
	assert_int_equal(foreground_new(&fg), 0);
	assert_int_equal(foreground_add(fg, 1 * SEC, 10, LAUNCHER), 0);
	/* Tap 2's switch comes exactly at its cap. */
	assert_int_equal(foreground_add(fg, up2 + 10 * SEC, 20, "com.b"), 0);
	/* Tap 3's switch comes at tap 4's touch-down, which ends it. */
	assert_int_equal(foreground_add(fg, up4 - 80 * MS, 10, LAUNCHER), 0);
	/* Tap 5's comes at its own t_up. */
	assert_int_equal(foreground_add(fg, up5, 20, "com.b"), 0);
	/* Tap 6's a nanosecond inside its cap. */
	assert_int_equal(foreground_add(fg, up6 + 10 * SEC - 1, 30, "com.c"),
			 0);
	foreground_set_complete(fg, FAR);
	c = new_corr(fg);
	tap(c, 1, up1, 10, LAUNCHER);
	tap(c, 2, up2, 10, LAUNCHER);
	/*
	 * The timeline is complete and holds no switch inside tap 2's launch
	 * window: no touch-down can make one, so it waits for its own
	 * window only, not for the launch cap.
	 */
	assert_int_equal(
		correlate_advance(c, up2 + 6 * SEC - 1, FAR, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(correlate_advance(c, up2 + 6 * SEC, FAR, collect, &s),
			 0);
	assert_int_equal(s.n, 2);
	tap(c, 3, up3, 20, "com.b");
	tap(c, 4, up4, 20, "com.b");
	/* Tap 3's launch window ended at tap 4's touch-down. */
	assert_int_equal(correlate_advance(c, up4 - 80 * MS + 1 * SEC,
					   up4 - 80 * MS, collect, &s),
			 0);
	assert_int_equal(s.n, 3);
	tap(c, 5, up5, 20, "com.b");
	tap(c, 6, up6, 20, "com.b");
	assert_int_equal(correlate_finish(c, FAR, FAR, collect, &s), 0);
	assert_int_equal(s.n, 6);
	for (i = 0; i < 5; i++) {
		assert_int_equal(s.g[i].r.id, i + 1);
		assert_int_equal(s.g[i].r.flags & (CORRELATE_FLAG_LAUNCH |
						   CORRELATE_FLAG_NAVIGATION),
				 0);
		assert_int_equal(s.g[i].r.launch_first_frame_ns, -1);
		assert_int_equal(s.g[i].app[0], '\0');
	}
	assert_true(s.g[5].r.flags & CORRELATE_FLAG_LAUNCH);
	assert_string_equal(s.g[5].app, "com.c");
	/* No frame of C: a launch without launch values. */
	assert_int_equal(s.g[5].r.launch_first_frame_ns, -1);
	assert_int_equal(s.g[5].r.launch_settle_ns, -1);
	correlate_free(c);
	foreground_free(fg);
}

/*
 * A live timeline: a tap waits until the timeline is complete to its
 * launch end, however far the other watermarks are; a switch appended
 * late (at the time of the sample that asked) is then seen.
 */
static void
test_waits_for_the_timeline(void **state)
{
	const int64_t up = 10 * SEC;
	struct foreground *fg = NULL;
	struct correlate *c;
	struct sink s = {0};

	(void)state;
	assert_int_equal(foreground_new(&fg), 0);
	assert_int_equal(foreground_add(fg, 1 * SEC, 10, LAUNCHER), 0);
	foreground_set_complete(fg, up + 1 * SEC);
	c = new_corr(fg);
	tap(c, 1, up, 10, LAUNCHER);
	frame(c, 10, NULL, NULL, up + 10 * MS, up + 40 * MS);
	frame(c, 20, "com.b", NULL, up + 200 * MS, up + 260 * MS);
	assert_int_equal(correlate_advance(c, FAR, FAR, collect, &s), 0);
	assert_int_equal(s.n, 0);
	/* No switch known: the idle path waits for the timeline too. */
	assert_int_equal(correlate_quiet_deadline(c), up + 10 * SEC);
	assert_int_equal(correlate_expire(c, FAR,
					  CORRELATE_FLAG_END_UNCONFIRMED,
					  collect, &s),
			 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(foreground_add(fg, up + 150 * MS, 20, "com.b"), 0);
	foreground_set_complete(fg, up + 10 * SEC - 1);
	/* Now a launch is known: B's quiet deadline decides. */
	assert_int_equal(correlate_quiet_deadline(c), up + 560 * MS);
	foreground_set_complete(fg, up + 10 * SEC);
	assert_int_equal(correlate_advance(c, FAR, FAR, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_true(s.g[0].r.flags & CORRELATE_FLAG_LAUNCH);
	assert_int_equal(s.g[0].r.launch_first_frame_ns, 260 * MS);
	correlate_free(c);
	foreground_free(fg);
}

/*
 * The idle screen's early finalization: a known launch is finalized at
 * the later of the tap's quiet deadline and B's, not before.
 */
static void
test_expire(void **state)
{
	const int64_t up = 10 * SEC;
	struct foreground *fg = NULL;
	struct correlate *c;
	struct sink s = {0};

	(void)state;
	assert_int_equal(foreground_new(&fg), 0);
	assert_int_equal(foreground_add(fg, 1 * SEC, 10, LAUNCHER), 0);
	assert_int_equal(foreground_add(fg, up + 80 * MS, 20, "com.b"), 0);
	/* Complete past the switch only, as a live timeline would be. */
	foreground_set_complete(fg, up + 100 * MS);
	c = new_corr(fg);
	tap(c, 1, up, 10, LAUNCHER);
	frame(c, 10, NULL, NULL, up + 10 * MS, up + 30 * MS);
	/* B by its layer: no pid, no app. */
	frame(c, 0, NULL, "TX - com.b/com.b.Main#3", up + 300 * MS,
	      up + 900 * MS);
	assert_int_equal(
		correlate_advance(c, up + 1 * SEC, up + 20 * SEC, collect, &s),
		0);
	assert_int_equal(s.n, 0);
	assert_int_equal(correlate_quiet_deadline(c), up + 1200 * MS);
	assert_int_equal(correlate_expire(c, up + 1200 * MS - 1,
					  CORRELATE_FLAG_END_FROM_LATENCY,
					  collect, &s),
			 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(correlate_expire(c, up + 1200 * MS,
					  CORRELATE_FLAG_END_FROM_LATENCY,
					  collect, &s),
			 0);
	assert_int_equal(s.n, 1);
	assert_true(s.g[0].r.flags & CORRELATE_FLAG_END_FROM_LATENCY);
	assert_int_equal(s.g[0].r.launch_first_frame_ns, 900 * MS);
	assert_int_equal(s.g[0].r.launch_settle_ns, 900 * MS);
	correlate_free(c);
	foreground_free(fg);
}

/* Without a timeline, or with a cap of 0, nothing waits or switches. */
static void
test_off(void **state)
{
	const int64_t up = 10 * SEC;
	struct correlate_config cfg;
	struct foreground *fg = NULL;
	struct correlate *c = NULL;
	struct sink s = {0};
	int round;

	(void)state;
	assert_int_equal(foreground_new(&fg), 0);
	assert_int_equal(foreground_add(fg, 1 * SEC, 10, LAUNCHER), 0);
	assert_int_equal(foreground_add(fg, up + 80 * MS, 20, "com.b"), 0);
	for (round = 0; round < 2; round++) {
		correlate_config_default(&cfg);
		if (round == 1)
			cfg.launch_cap_ns = 0;
		assert_int_equal(correlate_new(&cfg, &c), 0);
		correlate_set_coverage(c, 0);
		if (round == 1)
			correlate_set_foreground(c, fg);
		tap(c, 1, up, 10, LAUNCHER);
		/* Only the settle window is waited for. */
		assert_int_equal(correlate_advance(c, up + 6 * SEC,
						   up + 5 * SEC, collect, &s),
				 0);
		assert_int_equal(s.n, (size_t)round + 1);
		assert_int_equal(s.g[round].r.flags & CORRELATE_FLAG_LAUNCH, 0);
		correlate_free(c);
	}
	/* An empty timeline, complete nowhere: nothing to switch from. */
	foreground_free(fg);
	assert_int_equal(foreground_new(&fg), 0);
	correlate_config_default(&cfg);
	assert_int_equal(correlate_new(&cfg, &c), 0);
	correlate_set_coverage(c, 0);
	correlate_set_foreground(c, fg);
	tap(c, 1, up, 10, LAUNCHER);
	assert_int_equal(
		correlate_advance(c, up + 6 * SEC, up + 5 * SEC, collect, &s),
		0);
	assert_int_equal(s.n, 3);
	correlate_free(c);
	cfg.launch_cap_ns = -1;
	assert_int_equal(correlate_new(&cfg, &c), -EINVAL);
	foreground_free(fg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch),
		cmocka_unit_test(test_navigation),
		cmocka_unit_test(test_not_a_launch),
		cmocka_unit_test(test_waits_for_the_timeline),
		cmocka_unit_test(test_expire),
		cmocka_unit_test(test_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
