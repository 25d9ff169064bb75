/*
 * Tests of the measuring pipeline: how options, device.json and the input
 * device's axes become its configuration, the checks made before anything
 * is opened, and whole taps from touch events and frames to stored rows:
 * measured, waiting for frames, truncated at the end, without frames.
 */
#include <errno.h>
#include <linux/input.h>
#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "device.h"
#include "fixture.h"
#include "foreground.h"
#include "log.h"
#include "pipeline.h"
#include "pipeline_measure.h"
#include "status.h"
#include "store.h"
#include "store_sql.h"

#define MS INT64_C(1000000)
#define S  INT64_C(1000000000)

#define APP "com.example.mail"

/* A pipeline over a fresh database, one app in front throughout. */
struct rig {
	struct store *store;
	struct foreground *fg;
	struct pipeline *pipe;
	struct pipeline_config cfg;
	int touch_downs;
	int64_t last_down;
};

static void
on_touch_down(void *ctx, int64_t t_ns)
{
	struct rig *f = ctx;

	f->touch_downs++;
	f->last_down = t_ns;
}

static void
rig_open(struct rig *f, const char *name)
{
	struct pipeline_options o;
	char path[512];
	int64_t run = 0;

	memset(f, 0, sizeof(*f));
	f->store = fixture_store_new(name, path, sizeof(path));
	assert_int_equal(store_begin_run(f->store, "replay", "test", &run), 0);
	assert_int_equal(foreground_new_static(APP, &f->fg), 0);
	pipeline_options_init(&o);
	pipeline_configure(&f->cfg, &o, NULL, NULL, NULL);
	f->cfg.store = f->store;
	f->cfg.fg = f->fg;
	f->cfg.touch_down = on_touch_down;
	f->cfg.ctx = f;
	assert_int_equal(pipeline_new(&f->cfg, &f->pipe), 0);
}

static void
rig_close(struct rig *f)
{
	pipeline_free(f->pipe);
	foreground_free(f->fg);
	assert_int_equal(store_end_run(f->store, NULL), 0);
	store_close(f->store);
}

static void
input(struct rig *f, int64_t t, uint16_t type, uint16_t code, int32_t value)
{
	struct touch_event ev = fixture_event(t, type, code, value);

	assert_int_equal(pipeline_input(f->pipe, &ev), 0);
}

/* One finger down at (x, y) at t_down, lifted at t_up: a tap. */
static void
tap(struct rig *f, int64_t t_down, int64_t t_up, int32_t x, int32_t y)
{
	input(f, t_down, EV_ABS, ABS_MT_TRACKING_ID, 7);
	input(f, t_down, EV_ABS, ABS_MT_POSITION_X, x);
	input(f, t_down, EV_ABS, ABS_MT_POSITION_Y, y);
	input(f, t_down, EV_SYN, SYN_REPORT, 0);
	input(f, t_up, EV_ABS, ABS_MT_TRACKING_ID, -1);
	input(f, t_up, EV_SYN, SYN_REPORT, 0);
}

static void
frame(struct rig *f, int64_t start, int64_t present)
{
	struct correlate_frame cf;

	memset(&cf, 0, sizeof(cf));
	cf.app = APP;
	cf.start_ns = start;
	cf.present_ns = present;
	assert_int_equal(pipeline_frame(f->pipe, &cf), 0);
}

/* The stored rows as "kind status first_frame_ms settle_ms;...". */
static void
rows(struct rig *f, char *buf, size_t len)
{
	sqlite3_stmt *st = NULL;
	size_t used = 0;
	int n;

	assert_int_equal(sqlite3_prepare_v2(
				 store__sqlite(f->store),
				 "SELECT kind, status, coalesce(first_frame_ns "
				 "/ 1000000, -1), coalesce(settle_ns / "
				 "1000000, -1), coalesce(app, '') "
				 "FROM taps ORDER BY id",
				 -1, &st, NULL),
			 SQLITE_OK);
	buf[0] = '\0';
	while (sqlite3_step(st) == SQLITE_ROW) {
		n = snprintf(buf + used, len - used, "%s %s %lld %lld %s;",
			     (const char *)sqlite3_column_text(st, 0),
			     (const char *)sqlite3_column_text(st, 1),
			     (long long)sqlite3_column_int64(st, 2),
			     (long long)sqlite3_column_int64(st, 3),
			     (const char *)sqlite3_column_text(st, 4));
		assert_true(n > 0 && (size_t)n < len - used);
		used += (size_t)n;
	}
	sqlite3_finalize(st);
}

static void
test_options_init(void **state)
{
	struct pipeline_options o;

	(void)state;
	pipeline_options_init(&o);
	assert_true(o.slop_px < 0);
	assert_true(o.slop_dp < 0);
	assert_true(o.long_press_ns <= 0);
	assert_true(o.settle_quiet_ns <= 0);
	assert_true(o.settle_cap_ns <= 0);
	assert_true(o.busy_before_ns < 0);
	assert_true(o.frame_latency_ns < 0);
}

/*
 * The thresholds a live run records, applied to a replay with no option
 * given, configure it as the live run was; an option given wins.
 */
static void
test_measure(void **state)
{
	struct pipeline_config live, replay;
	struct pipeline_options o, r;
	struct device_measure m;
	struct device_info dev;
	unsigned taken, kept;
	char text[256];

	(void)state;
	memset(&dev, 0, sizeof(dev));
	dev.density_dpi = 420;
	pipeline_options_init(&o);
	o.settle_cap_ns = 1000 * MS;
	o.slop_dp = 10;
	memset(&live, 0, sizeof(live));
	pipeline_configure(&live, &o, &dev, NULL, NULL);
	pipeline_measure_of(&live, &m);
	assert_true(m.slop_px == 10 * 420 / 160.0);
	assert_int_equal(m.settle_cap_ns, 1000 * MS);
	assert_int_equal(m.busy_before_ns, live.correlate.busy_before_ns);
	assert_true(m.launch_cap_ns > 0);
	assert_int_equal(m.launch_cap_ns, live.correlate.launch_cap_ns);

	/* A replay without the density still gets the live slop in px. */
	pipeline_options_init(&r);
	taken = pipeline_measure_apply(&m, &r, &kept);
	assert_int_equal(taken, PIPELINE_MEASURE_SLOP |
					PIPELINE_MEASURE_LONG_PRESS |
					PIPELINE_MEASURE_SETTLE_QUIET |
					PIPELINE_MEASURE_SETTLE_CAP |
					PIPELINE_MEASURE_BUSY_BEFORE |
					PIPELINE_MEASURE_FRAME_LATENCY |
					PIPELINE_MEASURE_LAUNCH_CAP);
	assert_int_equal(kept, 0);
	assert_int_equal(r.launch_cap_ns, live.correlate.launch_cap_ns);
	memset(&replay, 0, sizeof(replay));
	pipeline_configure(&replay, &r, NULL, NULL, NULL);
	assert_true(replay.gesture.slop_px == live.gesture.slop_px);
	assert_int_equal(replay.gesture.long_press_ns,
			 live.gesture.long_press_ns);
	assert_memory_equal(&replay.correlate, &live.correlate,
			    sizeof(live.correlate));
	pipeline_measure_describe(taken & PIPELINE_MEASURE_SETTLE_CAP, &r, text,
				  sizeof(text));
	assert_string_equal(text, "settle_cap_ms 1000");

	/* Given ones win, --slop-dp over the recorded px too. */
	pipeline_options_init(&r);
	r.settle_cap_ns = 200 * MS;
	r.slop_dp = 8;
	m.busy_before_ns = 0;
	taken = pipeline_measure_apply(&m, &r, &kept);
	assert_int_equal(kept,
			 PIPELINE_MEASURE_SLOP | PIPELINE_MEASURE_SETTLE_CAP);
	assert_int_equal(taken & kept, 0);
	assert_int_equal(r.settle_cap_ns, 200 * MS);
	assert_true(r.slop_px < 0);
	assert_int_equal(r.busy_before_ns, 0);
	pipeline_measure_describe(kept, &r, text, sizeof(text));
	assert_string_equal(text, "slop_dp 8, settle_cap_ms 200");

	/* Nothing recorded: nothing taken. */
	device_measure_init(&m);
	pipeline_options_init(&r);
	assert_int_equal(pipeline_measure_apply(&m, &r, &kept), 0);
	assert_int_equal(kept, 0);
	assert_true(r.busy_before_ns < 0);
}

static void
test_configure(void **state)
{
	struct pipeline_config cfg;
	struct pipeline_options o;
	struct gesture_axis ax = {0, 4095}, ay = {0, 8191};
	struct device_info dev;

	(void)state;
	/* Nothing known: raw units, 8 "dp" of 1 px, Android's defaults. */
	pipeline_options_init(&o);
	memset(&cfg, 0, sizeof(cfg));
	pipeline_configure(&cfg, &o, NULL, &ax, &ay);
	assert_false(cfg.gesture.have_mapping);
	assert_true(cfg.gesture.slop_px == 8.0);
	assert_true(cfg.gesture.long_press_ns == 400 * MS);
	assert_true(cfg.correlate.settle_quiet_ns == 300 * MS);
	assert_true(cfg.correlate.settle_cap_ns == 5 * S);

	/* A screen and a density: px mapping from the device's own axes. */
	memset(&dev, 0, sizeof(dev));
	dev.have_screen = 1;
	dev.width = 1080;
	dev.height = 2400;
	dev.density_dpi = 480;
	pipeline_configure(&cfg, &o, &dev, &ax, &ay);
	assert_true(cfg.gesture.have_mapping);
	assert_int_equal(cfg.gesture.x.max, 4095);
	assert_int_equal(cfg.gesture.y.max, 8191);
	assert_int_equal(cfg.gesture.width_px, 1080);
	assert_int_equal(cfg.gesture.height_px, 2400);
	assert_true(cfg.gesture.slop_px == 24.0);

	/* device.json's touch ranges win over the device's. */
	dev.have_touch = 1;
	dev.x.min = 0;
	dev.x.max = 1079;
	dev.y.min = 0;
	dev.y.max = 2399;
	pipeline_configure(&cfg, &o, &dev, &ax, &ay);
	assert_int_equal(cfg.gesture.x.max, 1079);
	assert_int_equal(cfg.gesture.y.max, 2399);

	/* A screen without any axis ranges cannot be mapped. */
	dev.have_touch = 0;
	pipeline_configure(&cfg, &o, &dev, NULL, NULL);
	assert_false(cfg.gesture.have_mapping);

	/* The options: slop in px or dp, and the thresholds. */
	o.slop_dp = 10;
	o.long_press_ns = 500 * MS;
	o.settle_quiet_ns = 200 * MS;
	o.settle_cap_ns = 2 * S;
	pipeline_configure(&cfg, &o, &dev, NULL, NULL);
	assert_true(cfg.gesture.slop_px == 30.0);
	assert_true(cfg.gesture.long_press_ns == 500 * MS);
	assert_true(cfg.correlate.settle_quiet_ns == 200 * MS);
	assert_true(cfg.correlate.settle_cap_ns == 2 * S);
	o.slop_dp = -1;
	o.slop_px = 5;
	pipeline_configure(&cfg, &o, &dev, NULL, NULL);
	assert_true(cfg.gesture.slop_px == 5.0);
}

static void
test_check(void **state)
{
	struct pipeline_config cfg;
	struct pipeline_options o;
	struct pipeline *p = NULL;

	(void)state;
	pipeline_options_init(&o);
	memset(&cfg, 0, sizeof(cfg));
	pipeline_configure(&cfg, &o, NULL, NULL, NULL);
	/* Checked without a store: nothing is opened. */
	assert_int_equal(pipeline_check(&cfg), 0);

	cfg.gesture.long_press_ns = 0;
	assert_int_equal(pipeline_check(&cfg), -EINVAL);
	assert_int_equal(pipeline_new(&cfg, &p), -EINVAL);
	assert_null(p);

	pipeline_configure(&cfg, &o, NULL, NULL, NULL);
	cfg.correlate.settle_cap_ns = 0;
	assert_int_equal(pipeline_check(&cfg), -EINVAL);

	/* A mapping whose axis is upside down. */
	pipeline_configure(&cfg, &o, NULL, NULL, NULL);
	cfg.gesture.have_mapping = 1;
	cfg.gesture.width_px = 100;
	cfg.gesture.height_px = 100;
	cfg.gesture.x.min = 10;
	cfg.gesture.x.max = 0;
	cfg.gesture.y.max = 99;
	assert_int_equal(pipeline_check(&cfg), -EINVAL);
	pipeline_free(NULL);
}

static void
test_tap_measured(void **state)
{
	struct pipeline_stats ps;
	struct status_snapshot s;
	struct rig f;
	char got[512];

	(void)state;
	rig_open(&f, "measured.db");
	pipeline_set_coverage(f.pipe, 0);
	tap(&f, 1 * S, 1 * S + 80 * MS, 100, 200);
	assert_int_equal(f.touch_downs, 1);
	assert_true(f.last_down == 1 * S);
	assert_false(pipeline_gesture_in_progress(f.pipe));
	/* Frames of the response, 12 ms and 28 ms after the finger left. */
	frame(&f, 1 * S + 82 * MS, 1 * S + 92 * MS);
	frame(&f, 1 * S + 98 * MS, 1 * S + 108 * MS);
	/* Frames known far past the window: the tap is final. */
	assert_int_equal(pipeline_advance(f.pipe, 20 * S, 20 * S), 0);
	assert_int_equal(pipeline_flush(f.pipe), 0);
	assert_int_equal(pipeline_pending(f.pipe), 0);
	pipeline_get_stats(f.pipe, &ps);
	assert_int_equal(ps.gestures[GESTURE_TAP], 1);
	assert_int_equal(ps.finalized, 1);
	assert_int_equal(ps.frames, 2);
	assert_int_equal(ps.unattributed, 0);
	assert_int_equal(store_added(f.store), 1);
	rows(&f, got, sizeof(got));
	assert_string_equal(got, "tap ok 12 28 " APP ";");

	/* The status: counters, input time, watermark and lag. */
	memset(&s, 0, sizeof(s));
	pipeline_fill_status(f.pipe, 20 * S, &s);
	assert_int_equal(s.gestures[GESTURE_TAP], 1);
	assert_int_equal(s.taps_finalized, 1);
	assert_int_equal(s.taps_pending, 0);
	assert_int_equal(s.rows_stored, 1);
	assert_int_equal(s.frames_read, 2);
	assert_true(s.input_time_ns == 1 * S + 80 * MS);
	assert_true(s.frames_watermark_ns == 20 * S);
	/* Frames read ahead of the input are no lag at all. */
	assert_true(s.frames_lag_ns == 0);
	pipeline_fill_status(f.pipe, 1 * S, &s);
	assert_true(s.frames_lag_ns == 80 * MS);
	pipeline_fill_status(f.pipe, INT64_MAX, &s);
	assert_true(s.frames_lag_ns == -1);
	rig_close(&f);
}

static void
test_tap_pending_then_truncated(void **state)
{
	struct pipeline_stats ps;
	const char *apps[4];
	struct rig f;
	char got[512];

	(void)state;
	rig_open(&f, "truncated.db");
	pipeline_set_coverage(f.pipe, 0);
	tap(&f, 2 * S, 2 * S + 50 * MS, 10, 10);
	frame(&f, 2 * S + 60 * MS, 2 * S + 70 * MS);
	/* The frames stop short of the window: the tap waits. */
	assert_int_equal(pipeline_advance(f.pipe, 2 * S + 100 * MS, 3 * S), 0);
	assert_int_equal(pipeline_flush(f.pipe), 0);
	assert_int_equal(pipeline_pending(f.pipe), 1);
	assert_int_equal(pipeline_pending_apps(f.pipe, apps, 4), 1);
	assert_string_equal(apps[0], APP);
	assert_int_equal(store_added(f.store), 0);
	/* The end, with the frames covering no further: truncated. */
	assert_int_equal(pipeline_finish(f.pipe, 2 * S + 100 * MS, 3 * S), 0);
	assert_int_equal(pipeline_flush(f.pipe), 0);
	assert_int_equal(pipeline_pending(f.pipe), 0);
	pipeline_get_stats(f.pipe, &ps);
	assert_int_equal(ps.finalized, 1);
	rows(&f, got, sizeof(got));
	assert_string_equal(got, "tap truncated 20 20 " APP ";");
	rig_close(&f);
}

static void
test_frames_unavailable(void **state)
{
	struct rig f;
	char got[512];

	(void)state;
	rig_open(&f, "unavailable.db");
	/* No coverage was ever declared: no frame source at all. */
	tap(&f, 1 * S, 1 * S + 60 * MS, 10, 10);
	assert_int_equal(pipeline_advance(f.pipe, INT64_MAX, 2 * S), 0);
	assert_int_equal(pipeline_finish(f.pipe, INT64_MIN, 2 * S), 0);
	assert_int_equal(pipeline_flush(f.pipe), 0);
	rows(&f, got, sizeof(got));
	assert_string_equal(got, "tap frames_unavailable -1 -1 " APP ";");
	rig_close(&f);
}

static void
test_swipe_not_measured(void **state)
{
	struct pipeline_stats ps;
	struct rig f;
	char got[512];

	(void)state;
	rig_open(&f, "swipe.db");
	pipeline_set_coverage(f.pipe, 0);
	input(&f, 1 * S, EV_ABS, ABS_MT_TRACKING_ID, 3);
	input(&f, 1 * S, EV_ABS, ABS_MT_POSITION_X, 100);
	input(&f, 1 * S, EV_ABS, ABS_MT_POSITION_Y, 100);
	input(&f, 1 * S, EV_SYN, SYN_REPORT, 0);
	/* Far beyond the 8 px slop before the long-press timeout. */
	input(&f, 1 * S + 50 * MS, EV_ABS, ABS_MT_POSITION_X, 400);
	input(&f, 1 * S + 50 * MS, EV_SYN, SYN_REPORT, 0);
	assert_true(pipeline_gesture_in_progress(f.pipe));
	input(&f, 1 * S + 90 * MS, EV_ABS, ABS_MT_TRACKING_ID, -1);
	input(&f, 1 * S + 90 * MS, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(pipeline_finish(f.pipe, 20 * S, 20 * S), 0);
	assert_int_equal(pipeline_flush(f.pipe), 0);
	pipeline_get_stats(f.pipe, &ps);
	assert_int_equal(ps.gestures[GESTURE_SWIPE], 1);
	assert_int_equal(ps.gestures[GESTURE_TAP], 0);
	assert_int_equal(ps.finalized, 0);
	rows(&f, got, sizeof(got));
	assert_string_equal(got, "swipe not_measured -1 -1 " APP ";");
	rig_close(&f);
}

/* The wall_ns of every row as "N;N;...". */
static void
walls(struct rig *f, char *buf, size_t len)
{
	sqlite3_stmt *st = NULL;
	size_t used = 0;
	int n;

	assert_int_equal(sqlite3_prepare_v2(store__sqlite(f->store),
					    "SELECT coalesce(wall_ns, -1) "
					    "FROM taps ORDER BY id",
					    -1, &st, NULL),
			 SQLITE_OK);
	buf[0] = '\0';
	while (sqlite3_step(st) == SQLITE_ROW) {
		n = snprintf(buf + used, len - used, "%lld;",
			     (long long)sqlite3_column_int64(st, 0));
		assert_true(n > 0 && (size_t)n < len - used);
		used += (size_t)n;
	}
	sqlite3_finalize(st);
}

/*
 * One tap at 1 s..1.06 s under the wall offset given, finished: returns
 * what pipeline_finish() returned and leaves what was logged in logged.
 */
static int
tap_with_offset(struct rig *f, const char *name, int64_t offset, char *logged,
		size_t len)
{
	char path[] = "/tmp/tapd-pipeline-log-XXXXXX";
	size_t n;
	FILE *in;
	int fd, rc;

	rig_open(f, name);
	pipeline_set_wall_offset(f->pipe, offset);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(log_open_file(path), 0);
	tap(f, 1 * S, 1 * S + 60 * MS, 10, 10);
	rc = pipeline_finish(f->pipe, INT64_MIN, 2 * S);
	if (rc == 0)
		rc = pipeline_flush(f->pipe);
	log_close();
	in = fopen(path, "r");
	assert_non_null(in);
	n = fread(logged, 1, len - 1, in);
	logged[n] = '\0';
	fclose(in);
	unlink(path);
	return rc;
}

static void
test_wall_time(void **state)
{
	char got[512], logged[2048];
	struct rig f;

	(void)state;
	/* A sound anchor: t_up plus REALTIME - MONOTONIC. */
	assert_int_equal(tap_with_offset(&f, "wall.db", INT64_C(1764567474) * S,
					 logged, sizeof(logged)),
			 0);
	walls(&f, got, sizeof(got));
	assert_string_equal(got, "1764567475060000000;");
	rig_close(&f);

	/*
	 * An anchor that puts the tap past int64's end: an error naming the
	 * anchor, nothing stored, and no wrapped value for the store to
	 * blame on the tap.
	 */
	assert_int_equal(tap_with_offset(&f, "wall-past.db", INT64_MAX - S,
					 logged, sizeof(logged)),
			 -EINVAL);
	assert_non_null(strstr(logged, "the clock anchor"));
	assert_non_null(strstr(logged, "past 2262"));
	assert_null(strstr(logged, "negative wall time"));
	assert_int_equal(store_added(f.store), 0);
	rig_close(&f);

	/* One that puts it before 1970. */
	assert_int_equal(tap_with_offset(&f, "wall-before.db", -10 * S, logged,
					 sizeof(logged)),
			 -EINVAL);
	assert_non_null(strstr(logged, "the clock anchor"));
	assert_non_null(strstr(logged, "before 1970"));
	assert_null(strstr(logged, "negative wall time"));
	assert_int_equal(store_added(f.store), 0);
	rig_close(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_init),
		cmocka_unit_test(test_configure),
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_tap_measured),
		cmocka_unit_test(test_tap_pending_then_truncated),
		cmocka_unit_test(test_frames_unavailable),
		cmocka_unit_test(test_swipe_not_measured),
		cmocka_unit_test(test_wall_time),
	};

	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
