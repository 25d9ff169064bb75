/*
 * Tests of the live evdev source.  The classification runs on libevdev
 * objects built without a device; directory scans, hotplug and retries run
 * on fake sysroots in a temporary directory; reading, timestamps, unplug
 * and SYN_DROPPED run on uinput devices made by the test, and skip (with
 * the reason) where /dev/uinput cannot be written.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>

#include "fixture.h"
#include "input_evdev.h"
#include "log.h"
#include "status.h"
#include "touch.h"

#define MS	   1000000LL
#define EVENTS_MAX 16384

/* What the callbacks saw. */
struct rec {
	struct touch_event ev[EVENTS_MAX];
	size_t n;
	unsigned added, removed;
	char added_path[4096];
	char added_name[256];
	char removed_path[4096];
	int64_t added_ns, removed_ns;
	/* Fails the event callback with this when set. */
	int fail;
};

static int
rec_event(void *ctx, const struct touch_event *ev)
{
	struct rec *r = ctx;

	if (r->fail != 0)
		return r->fail;
	assert_true(r->n < EVENTS_MAX);
	r->ev[r->n++] = *ev;
	return 0;
}

static void
rec_added(void *ctx, const char *path, const char *name)
{
	struct rec *r = ctx;

	r->added++;
	r->added_ns = fixture_now_ns();
	snprintf(r->added_path, sizeof(r->added_path), "%s", path);
	snprintf(r->added_name, sizeof(r->added_name), "%s", name);
}

static void
rec_removed(void *ctx, const char *path)
{
	struct rec *r = ctx;

	r->removed++;
	r->removed_ns = fixture_now_ns();
	snprintf(r->removed_path, sizeof(r->removed_path), "%s", path);
}

static const struct input_evdev_callbacks rec_cb = {
	.event = rec_event,
	.added = rec_added,
	.removed = rec_removed,
};

typedef int (*rec_done)(const struct rec *r, const void *arg);

/*
 * Polls the source's fd and dispatches until done() holds or timeout_ms
 * passed; returns whether done() held.  Every dispatch must succeed.
 */
static int
pump(struct input_evdev *ie, struct rec *r, rec_done done, const void *arg,
     int timeout_ms)
{
	struct pollfd pfd;
	int64_t end = fixture_now_ns() + timeout_ms * MS;

	pfd.fd = input_evdev_fd(ie);
	pfd.events = POLLIN;
	for (;;) {
		if (done != NULL && done(r, arg))
			return 1;
		if (fixture_now_ns() >= end)
			return 0;
		if (poll(&pfd, 1, 20) > 0)
			assert_int_equal(input_evdev_dispatch(ie, &rec_cb, r),
					 0);
	}
}

static int
done_added(const struct rec *r, const void *arg)
{
	return r->added >= *(const unsigned *)arg;
}

static int
done_removed(const struct rec *r, const void *arg)
{
	return r->removed >= *(const unsigned *)arg;
}

static int
done_reports(const struct rec *r, const void *arg)
{
	size_t i;
	unsigned n = 0;

	for (i = 0; i < r->n; i++) {
		if (r->ev[i].type == EV_SYN && r->ev[i].code == SYN_REPORT)
			n++;
	}
	return n >= *(const unsigned *)arg;
}

struct failures_arg {
	const struct input_evdev *ie;
	uint64_t at_least;
};

static int
done_failures(const struct rec *r, const void *arg)
{
	const struct failures_arg *a = arg;
	struct input_evdev_stats st;

	(void)r;
	input_evdev_get_stats(a->ie, &st);
	return st.open_failures >= a->at_least;
}

static struct input_evdev_stats
stats_of(const struct input_evdev *ie)
{
	struct input_evdev_stats st;

	input_evdev_get_stats(ie, &st);
	return st;
}

static struct status_source_state
health_of(struct status *st)
{
	struct status_snapshot snap;

	status_get(st, &snap);
	return snap.sources[STATUS_SOURCE_INPUT];
}

/* ---- classification ---- */

static void
enable_abs(struct libevdev *dev, unsigned code, int min, int max)
{
	struct input_absinfo ai;

	memset(&ai, 0, sizeof(ai));
	ai.minimum = min;
	ai.maximum = max;
	assert_int_equal(libevdev_enable_event_code(dev, EV_ABS, code, &ai), 0);
}

static void
enable_key(struct libevdev *dev, unsigned code)
{
	assert_int_equal(libevdev_enable_event_code(dev, EV_KEY, code, NULL),
			 0);
}

/* The axes of a multitouch panel, no keys or properties. */
static struct libevdev *
mt_axes(void)
{
	struct libevdev *dev = libevdev_new();

	assert_non_null(dev);
	enable_abs(dev, ABS_MT_SLOT, 0, 9);
	enable_abs(dev, ABS_MT_POSITION_X, 0, 1079);
	enable_abs(dev, ABS_MT_POSITION_Y, 0, 2399);
	enable_abs(dev, ABS_MT_TRACKING_ID, 0, 65535);
	return dev;
}

static void
test_classify_touchscreen(void **state)
{
	struct libevdev *dev = mt_axes();

	(void)state;
	/* Axes alone, no property: a touch device, but not a screen. */
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_TOUCHPAD);
	enable_key(dev, BTN_TOUCH);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_TOUCHPAD);
	assert_int_equal(libevdev_enable_property(dev, INPUT_PROP_DIRECT), 0);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_TOUCHSCREEN);
	/* One axis missing is no multitouch screen. */
	assert_int_equal(
		libevdev_disable_event_code(dev, EV_ABS, ABS_MT_POSITION_Y), 0);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_OTHER);
	libevdev_free(dev);

	/* The emulator: no BTN_TOUCH, no joystick buttons, DIRECT. */
	dev = mt_axes();
	assert_int_equal(libevdev_enable_property(dev, INPUT_PROP_DIRECT), 0);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_TOUCHSCREEN);
	/* Mouse buttons and pen tools are not joystick buttons. */
	enable_key(dev, BTN_LEFT);
	enable_key(dev, BTN_TOOL_PEN);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_TOUCHSCREEN);
	libevdev_free(dev);

	assert_int_equal(input_evdev_classify(NULL), INPUT_EVDEV_OTHER);
}

static void
test_classify_touchpad(void **state)
{
	struct libevdev *dev = mt_axes();

	(void)state;
	enable_key(dev, BTN_TOUCH);
	enable_key(dev, BTN_TOOL_FINGER);
	enable_key(dev, BTN_LEFT);
	assert_int_equal(libevdev_enable_property(dev, INPUT_PROP_POINTER), 0);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_TOUCHPAD);
	/* DIRECT wins over POINTER, as in TouchInputMapper. */
	assert_int_equal(libevdev_enable_property(dev, INPUT_PROP_DIRECT), 0);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_TOUCHSCREEN);
	libevdev_free(dev);
}

static void
test_classify_gamepad(void **state)
{
	static const unsigned buttons[] = {
		BTN_0, BTN_9, BTN_TRIGGER, BTN_SOUTH, BTN_THUMBR, 0x13f,
	};
	struct libevdev *dev;
	unsigned i;

	(void)state;
	/*
	 * A controller whose axes collide with the ABS_MT range: any button
	 * of the misc or joystick ranges, up to their ends, unmasks it.
	 */
	for (i = 0; i < sizeof(buttons) / sizeof(buttons[0]); i++) {
		dev = mt_axes();
		assert_int_equal(
			libevdev_enable_property(dev, INPUT_PROP_DIRECT), 0);
		enable_key(dev, buttons[i]);
		assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_OTHER);
		/* With BTN_TOUCH the axes are confirmed to be touch. */
		enable_key(dev, BTN_TOUCH);
		assert_int_equal(input_evdev_classify(dev),
				 INPUT_EVDEV_TOUCHSCREEN);
		libevdev_free(dev);
	}
	/* A plain gamepad: sticks and buttons. */
	dev = libevdev_new();
	assert_non_null(dev);
	enable_abs(dev, ABS_X, -32768, 32767);
	enable_abs(dev, ABS_Y, -32768, 32767);
	enable_key(dev, BTN_SOUTH);
	enable_key(dev, BTN_EAST);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_OTHER);
	libevdev_free(dev);
}

static void
test_classify_keyboard_mouse(void **state)
{
	struct libevdev *dev;
	unsigned k;

	(void)state;
	dev = libevdev_new();
	assert_non_null(dev);
	for (k = KEY_ESC; k <= KEY_SPACE; k++)
		enable_key(dev, k);
	assert_int_equal(
		libevdev_enable_event_code(dev, EV_LED, LED_CAPSL, NULL), 0);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_OTHER);
	libevdev_free(dev);

	dev = libevdev_new();
	assert_non_null(dev);
	assert_int_equal(libevdev_enable_event_code(dev, EV_REL, REL_X, NULL),
			 0);
	assert_int_equal(libevdev_enable_event_code(dev, EV_REL, REL_Y, NULL),
			 0);
	enable_key(dev, BTN_LEFT);
	enable_key(dev, BTN_RIGHT);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_OTHER);
	libevdev_free(dev);
}

static void
test_classify_single_touch(void **state)
{
	struct libevdev *dev = libevdev_new();

	(void)state;
	assert_non_null(dev);
	enable_abs(dev, ABS_X, 0, 4095);
	enable_abs(dev, ABS_Y, 0, 4095);
	/* Without BTN_TOUCH these are a joystick's axes. */
	assert_int_equal(libevdev_enable_property(dev, INPUT_PROP_DIRECT), 0);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_OTHER);
	enable_key(dev, BTN_TOUCH);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_TOUCHSCREEN);
	assert_int_equal(libevdev_disable_property(dev, INPUT_PROP_DIRECT), 0);
	assert_int_equal(input_evdev_classify(dev), INPUT_EVDEV_TOUCHPAD);
	libevdev_free(dev);
}

/* ---- fake sysroots ---- */

struct tmp {
	char root[256];
	char input[512];
};

static void
tmp_make(struct tmp *t, int with_input)
{
	char dev[512];

	assert_int_equal(fixture_tmpdir(t->root, sizeof(t->root), "evdev"), 0);
	fixture_join(dev, sizeof(dev), t->root, "dev");
	fixture_join(t->input, sizeof(t->input), t->root, "dev/input");
	if (with_input) {
		assert_int_equal(mkdir(dev, 0755), 0);
		assert_int_equal(mkdir(t->input, 0755), 0);
	}
}

static void
tmp_remove(struct tmp *t)
{
	assert_int_equal(fixture_rmtree(t->root), 0);
}

/* A regular file where a device node should be: open() works, ioctls fail. */
static void
touch_file(const char *dir, const char *name)
{
	char path[1024];

	fixture_join(path, sizeof(path), dir, "%s", name);
	fixture_write(path, "", 0);
}

static void
test_config_errors(void **state)
{
	struct input_evdev_config cfg;
	struct input_evdev *ie = NULL;
	char longp[100];

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(input_evdev_new(NULL, &ie), -EINVAL);
	assert_int_equal(input_evdev_new(&cfg, NULL), -EINVAL);
	cfg.device = "";
	assert_int_equal(input_evdev_new(&cfg, &ie), -EINVAL);
	cfg.device = "/dev/input/";
	assert_int_equal(input_evdev_new(&cfg, &ie), -EINVAL);
	cfg.device = NULL;
	memset(longp, 'x', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	cfg.ignore_prefix = longp;
	assert_int_equal(input_evdev_new(&cfg, &ie), -ENAMETOOLONG);
	assert_null(ie);
	input_evdev_free(NULL);
	assert_int_equal(input_evdev_dispatch(NULL, &rec_cb, NULL), -EINVAL);
	assert_true(input_evdev_fd(NULL) < 0);
	assert_null(input_evdev_path(NULL));
}

static void
test_scan_empty(void **state)
{
	static struct rec r;
	struct input_evdev_config cfg;
	struct input_evdev *ie = NULL;
	struct status_source_state h;
	struct input_evdev_stats st;
	struct status *status = NULL;
	struct pollfd pfd;
	struct tmp t;
	int32_t min, max;

	(void)state;
	memset(&r, 0, sizeof(r));
	tmp_make(&t, 1);
	/* Nodes of other kinds are not candidates. */
	touch_file(t.input, "mouse0");
	touch_file(t.input, "js0");
	touch_file(t.input, "eventx");
	assert_int_equal(status_new("live", &status), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = t.root;
	cfg.status = status;
	assert_int_equal(input_evdev_new(&cfg, &ie), 0);
	assert_true(input_evdev_fd(ie) >= 0);
	h = health_of(status);
	assert_int_equal(h.health, STATUS_HEALTH_DOWN);
	assert_string_equal(h.kind, "evdev");
	assert_non_null(strstr(h.detail, "no touch screen found under"));
	assert_non_null(strstr(h.detail, t.input));

	/* Nothing to do: the fd stays quiet and dispatch does nothing. */
	pfd.fd = input_evdev_fd(ie);
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 150), 0);
	assert_int_equal(input_evdev_dispatch(ie, &rec_cb, &r), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.added, 0);
	assert_null(input_evdev_path(ie));
	assert_null(input_evdev_name(ie));
	assert_int_equal(input_evdev_axis(ie, ABS_MT_POSITION_X, &min, &max),
			 -ENODEV);
	input_evdev_get_stats(ie, &st);
	assert_int_equal(st.events + st.devices_added + st.open_failures, 0);
	input_evdev_free(ie);

	/* Without a status to tell, the same works. */
	cfg.status = NULL;
	assert_int_equal(input_evdev_new(&cfg, &ie), 0);
	assert_int_equal(input_evdev_dispatch(ie, NULL, NULL), 0);
	input_evdev_free(ie);
	status_free(status);
	tmp_remove(&t);
}

static void
test_scan_hotplug_files(void **state)
{
	static struct rec r;
	struct input_evdev_config cfg;
	struct input_evdev *ie = NULL;
	struct status *status = NULL;
	struct failures_arg fa;
	struct tmp t;
	char dev[600];
	int64_t t0;

	(void)state;
	memset(&r, 0, sizeof(r));
	/* The directory does not exist yet: the source polls for it. */
	tmp_make(&t, 0);
	assert_int_equal(status_new("live", &status), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = t.root;
	cfg.status = status;
	assert_int_equal(input_evdev_new(&cfg, &ie), 0);
	assert_int_equal(health_of(status).health, STATUS_HEALTH_DOWN);
	assert_true(pump(ie, &r, NULL, NULL, 100) == 0);

	snprintf(dev, sizeof(dev), "%s/dev", t.root);
	assert_int_equal(mkdir(dev, 0755), 0);
	assert_int_equal(mkdir(t.input, 0755), 0);
	touch_file(t.input, "event3");
	t0 = fixture_now_ns();
	/* Found by the poll within a second, and refused: not an evdev node. */
	fa.ie = ie;
	fa.at_least = 1;
	assert_true(pump(ie, &r, done_failures, &fa, 1500));
	assert_true(fixture_now_ns() - t0 < 1000 * MS);
	assert_int_equal(stats_of(ie).open_failures, 1);

	/* Now watched: a new node is tried at once. */
	touch_file(t.input, "event1");
	t0 = fixture_now_ns();
	fa.at_least = 2;
	assert_true(pump(ie, &r, done_failures, &fa, 1000));
	assert_true(fixture_now_ns() - t0 < 500 * MS);
	/* Other names are not. */
	touch_file(t.input, "mice");
	assert_true(pump(ie, &r, NULL, NULL, 200) == 0);
	assert_int_equal(stats_of(ie).open_failures, 2);
	assert_int_equal(r.added, 0);
	assert_int_equal(health_of(status).health, STATUS_HEALTH_DOWN);
	input_evdev_free(ie);
	status_free(status);
	tmp_remove(&t);
}

static void
test_retry_then_give_up(void **state)
{
	static struct rec r;
	struct input_evdev_config cfg;
	struct input_evdev *ie = NULL;
	struct failures_arg fa;
	struct tmp t;
	char link[600], target[600];
	int64_t t0, took;

	(void)state;
	memset(&r, 0, sizeof(r));
	tmp_make(&t, 1);
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = t.root;
	assert_int_equal(input_evdev_new(&cfg, &ie), 0);

	/*
	 * Nodes that exist but cannot be opened yet: event5 never can,
	 * event6 can once its target appears.  Both are retried.
	 */
	snprintf(link, sizeof(link), "%s/event5", t.input);
	snprintf(target, sizeof(target), "%s/nowhere", t.root);
	assert_int_equal(symlink(target, link), 0);
	snprintf(link, sizeof(link), "%s/event6", t.input);
	snprintf(target, sizeof(target), "%s/later", t.root);
	assert_int_equal(symlink(target, link), 0);
	t0 = fixture_now_ns();
	assert_true(pump(ie, &r, NULL, NULL, 300) == 0);
	assert_int_equal(stats_of(ie).open_failures, 0);

	/* The retry opens event6 and finds no evdev node there. */
	touch_file(t.root, "later");
	fa.ie = ie;
	fa.at_least = 1;
	assert_true(pump(ie, &r, done_failures, &fa, 500));
	assert_true(fixture_now_ns() - t0 < 1000 * MS);

	/* event5 is given up after about 2 s. */
	fa.at_least = 2;
	assert_true(pump(ie, &r, done_failures, &fa, 3500));
	took = fixture_now_ns() - t0;
	assert_true(took >= 1900 * MS);
	assert_true(took < 3000 * MS);
	/* And only once. */
	assert_true(pump(ie, &r, NULL, NULL, 300) == 0);
	assert_int_equal(stats_of(ie).open_failures, 2);
	input_evdev_free(ie);
	tmp_remove(&t);
}

static void
test_given_device_files(void **state)
{
	static struct rec r;
	struct input_evdev_config cfg;
	struct input_evdev *ie = NULL;
	struct status *status = NULL;
	struct status_source_state h;
	struct failures_arg fa;
	struct tmp t;

	(void)state;
	memset(&r, 0, sizeof(r));
	tmp_make(&t, 1);
	assert_int_equal(status_new("live", &status), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = t.root;
	cfg.device = "/dev/input/event7";
	cfg.status = status;
	assert_int_equal(input_evdev_new(&cfg, &ie), 0);
	h = health_of(status);
	assert_int_equal(h.health, STATUS_HEALTH_DOWN);
	assert_non_null(strstr(h.detail, "event7' not found"));
	/* A missing given node is waited for, not counted as a failure. */
	assert_true(pump(ie, &r, NULL, NULL, 200) == 0);
	assert_int_equal(stats_of(ie).open_failures, 0);

	/* Only the given node is considered. */
	touch_file(t.input, "event2");
	assert_true(pump(ie, &r, NULL, NULL, 200) == 0);
	assert_int_equal(stats_of(ie).open_failures, 0);
	touch_file(t.input, "event7");
	fa.ie = ie;
	fa.at_least = 1;
	assert_true(pump(ie, &r, done_failures, &fa, 500));
	h = health_of(status);
	assert_int_equal(h.health, STATUS_HEALTH_DOWN);
	assert_non_null(strstr(h.detail, "CLOCK_MONOTONIC"));
	input_evdev_free(ie);
	status_free(status);
	tmp_remove(&t);
}

/*
 * Event times passed on never go back: a stamp before the previous one
 * (a driver's own, a device back with a clock of its own) is given the
 * previous one's time, until the device's time catches up.
 */
static void
test_clamp_time(void **state)
{
	int64_t last = INT64_MIN;

	(void)state;
	assert_int_equal(input_evdev_clamp_time(&last, 5000), 5000);
	assert_int_equal(input_evdev_clamp_time(&last, 5000), 5000);
	assert_int_equal(input_evdev_clamp_time(&last, 7000), 7000);
	/* Back by 2 us, then a restart near zero: both held at 7000. */
	assert_int_equal(input_evdev_clamp_time(&last, 6998), 7000);
	assert_int_equal(input_evdev_clamp_time(&last, 10), 7000);
	assert_int_equal(last, 7000);
	assert_int_equal(input_evdev_clamp_time(&last, 7001), 7001);
	assert_int_equal(last, 7001);
}

/* ---- uinput ---- */

#define TS_NAME "evdev-test touch screen"

static int
uinput_usable(void)
{
	if (access("/dev/uinput", W_OK) != 0) {
		fprintf(stderr,
			"skipping: /dev/uinput is not writable here (%s); "
			"the real-kernel VM test covers this\n",
			strerror(errno));
		return 0;
	}
	return 1;
}

/* A uinput device: a touch screen, or with direct 0 a touchpad. */
static struct libevdev_uinput *
uinput_make(const char *name, int direct)
{
	struct libevdev_uinput *ui = NULL;
	struct libevdev *dev = libevdev_new();
	int rc;

	assert_non_null(dev);
	libevdev_set_name(dev, name);
	libevdev_set_id_bustype(dev, BUS_VIRTUAL);
	enable_abs(dev, ABS_X, 0, 1079);
	enable_abs(dev, ABS_Y, 0, 2399);
	enable_abs(dev, ABS_MT_SLOT, 0, 9);
	enable_abs(dev, ABS_MT_POSITION_X, 0, 1079);
	enable_abs(dev, ABS_MT_POSITION_Y, 0, 2399);
	enable_abs(dev, ABS_MT_TRACKING_ID, 0, 65535);
	enable_key(dev, BTN_TOUCH);
	enable_key(dev, BTN_TOOL_FINGER);
	assert_int_equal(
		libevdev_enable_property(dev, direct ? INPUT_PROP_DIRECT
						     : INPUT_PROP_POINTER),
		0);
	rc = libevdev_uinput_create_from_device(
		dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &ui);
	libevdev_free(dev);
	assert_int_equal(rc, 0);
	assert_non_null(libevdev_uinput_get_devnode(ui));
	return ui;
}

static void
put(struct libevdev_uinput *ui, unsigned type, unsigned code, int value)
{
	assert_int_equal(libevdev_uinput_write_event(ui, type, code, value), 0);
}

/* Events of one kind in r from index from on. */
static size_t
find(const struct rec *r, size_t from, unsigned type, unsigned code, int value)
{
	size_t i;

	for (i = from; i < r->n; i++) {
		if (r->ev[i].type == type && r->ev[i].code == code &&
		    r->ev[i].value == value)
			return i;
	}
	return SIZE_MAX;
}

/* What the touch tracker makes of the events. */
struct points {
	struct touch_point p[32];
	unsigned n;
};

static int
points_add(void *ctx, const struct touch_point *pt)
{
	struct points *ps = ctx;

	assert_true(ps->n < 32);
	ps->p[ps->n++] = *pt;
	return 0;
}

static void
track(const struct rec *r, struct points *ps)
{
	struct touch *t = NULL;
	size_t i;

	memset(ps, 0, sizeof(*ps));
	assert_int_equal(touch_new(&t), 0);
	for (i = 0; i < r->n; i++)
		assert_int_equal(touch_feed(t, &r->ev[i], points_add, ps), 0);
	touch_free(t);
}

static void
test_uinput_tap(void **state)
{
	static struct rec r;
	static const struct {
		unsigned type, code;
		int value;
	} want[] = {
		{EV_ABS, ABS_MT_TRACKING_ID, 1},
		{EV_ABS, ABS_MT_POSITION_X, 500},
		{EV_ABS, ABS_MT_POSITION_Y, 800},
		{EV_KEY, BTN_TOUCH, 1},
		{EV_SYN, SYN_REPORT, 0},
		{EV_ABS, ABS_MT_TRACKING_ID, -1},
		{EV_KEY, BTN_TOUCH, 0},
		{EV_SYN, SYN_REPORT, 0},
	};
	struct libevdev_uinput *ui;
	struct input_evdev_config cfg;
	struct input_evdev *ie = NULL;
	struct status *status = NULL;
	struct status_source_state h;
	struct points ps;
	char node[256];
	int64_t t0, t1;
	int32_t min, max;
	unsigned one = 1, two = 2;
	size_t i;

	(void)state;
	if (!uinput_usable())
		skip();
	memset(&r, 0, sizeof(r));
	ui = uinput_make(TS_NAME, 1);
	snprintf(node, sizeof(node), "%s", libevdev_uinput_get_devnode(ui));
	assert_int_equal(status_new("live", &status), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.device = node;
	cfg.status = status;
	assert_int_equal(input_evdev_new(&cfg, &ie), 0);
	/* Open at once, reported at the first dispatch. */
	assert_string_equal(input_evdev_path(ie), node);
	assert_string_equal(input_evdev_name(ie), TS_NAME);
	assert_int_equal(input_evdev_axis(ie, ABS_MT_POSITION_X, &min, &max),
			 0);
	assert_int_equal(min, 0);
	assert_int_equal(max, 1079);
	assert_int_equal(input_evdev_axis(ie, ABS_MT_POSITION_Y, &min, &max),
			 0);
	assert_int_equal(max, 2399);
	assert_int_equal(input_evdev_axis(ie, ABS_PRESSURE, &min, &max),
			 -ENOENT);
	h = health_of(status);
	assert_int_equal(h.health, STATUS_HEALTH_UP);
	assert_non_null(strstr(h.detail, node));
	assert_non_null(strstr(h.detail, TS_NAME));
	assert_true(pump(ie, &r, done_added, &one, 1000));
	assert_string_equal(r.added_path, node);
	assert_string_equal(r.added_name, TS_NAME);
	assert_int_equal(r.n, 0);

	t0 = fixture_now_ns();
	put(ui, EV_ABS, ABS_MT_TRACKING_ID, 1);
	put(ui, EV_ABS, ABS_MT_POSITION_X, 500);
	put(ui, EV_ABS, ABS_MT_POSITION_Y, 800);
	put(ui, EV_KEY, BTN_TOUCH, 1);
	put(ui, EV_SYN, SYN_REPORT, 0);
	put(ui, EV_ABS, ABS_MT_TRACKING_ID, -1);
	put(ui, EV_KEY, BTN_TOUCH, 0);
	put(ui, EV_SYN, SYN_REPORT, 0);
	t1 = fixture_now_ns();
	assert_true(pump(ie, &r, done_reports, &two, 1000));
	assert_int_equal(r.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < r.n; i++) {
		assert_int_equal(r.ev[i].type, want[i].type);
		assert_int_equal(r.ev[i].code, want[i].code);
		assert_int_equal(r.ev[i].value, want[i].value);
		/*
		 * CLOCK_MONOTONIC, at microsecond resolution: a REALTIME
		 * stamp would be decades away.
		 */
		assert_true(r.ev[i].time_ns >= t0 / 1000 * 1000);
		assert_true(r.ev[i].time_ns <= t1);
	}
	/* A frame's events share its time. */
	assert_int_equal(r.ev[0].time_ns, r.ev[4].time_ns);
	assert_true(r.ev[5].time_ns >= r.ev[4].time_ns);
	assert_int_equal(stats_of(ie).events, r.n);
	assert_int_equal(stats_of(ie).syn_dropped, 0);
	track(&r, &ps);
	assert_int_equal(ps.n, 2);
	assert_int_equal(ps.p[0].phase, TOUCH_DOWN);
	assert_int_equal(ps.p[0].time_ns, r.ev[4].time_ns);
	assert_int_equal(ps.p[1].phase, TOUCH_UP);
	assert_int_equal(ps.p[1].time_ns, r.ev[7].time_ns);
	assert_int_equal(ps.p[1].flags, 0);

	/* Unplugged: reported, closed, health down. */
	libevdev_uinput_destroy(ui);
	assert_true(pump(ie, &r, done_removed, &one, 1000));
	assert_string_equal(r.removed_path, node);
	assert_null(input_evdev_path(ie));
	assert_int_equal(input_evdev_axis(ie, ABS_MT_POSITION_X, &min, &max),
			 -ENODEV);
	h = health_of(status);
	assert_int_equal(h.health, STATUS_HEALTH_DOWN);
	if (strstr(h.detail, "removed") == NULL)
		fprintf(stderr, "detail: %s\n", h.detail);
	assert_non_null(strstr(h.detail, "removed"));
	assert_int_equal(stats_of(ie).devices_removed, 1);

	/* The same node back (the kernel reuses a free minor): picked up. */
	t0 = fixture_now_ns();
	ui = uinput_make(TS_NAME, 1);
	if (strcmp(libevdev_uinput_get_devnode(ui), node) == 0) {
		assert_true(pump(ie, &r, done_added, &two, 1000));
		assert_true(r.added_ns - t0 < 1000 * MS);
		assert_int_equal(health_of(status).health, STATUS_HEALTH_UP);
	} else {
		fprintf(stderr,
			"note: the new device is '%s', not '%s'; the given "
			"node stays absent\n",
			libevdev_uinput_get_devnode(ui), node);
		assert_true(pump(ie, &r, done_added, &two, 300) == 0);
	}
	libevdev_uinput_destroy(ui);
	input_evdev_free(ie);
	status_free(status);
}

/* Points sysroot/dev/input/<name> at the uinput device's node. */
static void
link_node(const struct tmp *t, const char *name, struct libevdev_uinput *ui)
{
	char link[600];

	snprintf(link, sizeof(link), "%s/%s", t->input, name);
	assert_int_equal(symlink(libevdev_uinput_get_devnode(ui), link), 0);
}

static void
test_uinput_scan_replug(void **state)
{
	static struct rec r;
	struct libevdev_uinput *ours, *pad, *ts;
	struct input_evdev_config cfg;
	struct input_evdev *ie = NULL;
	struct status *status = NULL;
	struct tmp t;
	char path[600], link[600];
	unsigned one = 1, two = 2;
	int64_t t0;

	(void)state;
	if (!uinput_usable())
		skip();
	memset(&r, 0, sizeof(r));
	tmp_make(&t, 1);
	/*
	 * The lowest numbers hold what must be skipped: one of the daemon's
	 * own devices, then a touchpad.
	 */
	ours = uinput_make("tapd-test overlay", 1);
	pad = uinput_make("evdev-test touchpad", 0);
	ts = uinput_make(TS_NAME, 1);
	link_node(&t, "event0", ours);
	link_node(&t, "event1", pad);
	link_node(&t, "event2", ts);
	snprintf(path, sizeof(path), "%s/event2", t.input);

	assert_int_equal(status_new("live", &status), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = t.root;
	cfg.status = status;
	assert_int_equal(input_evdev_new(&cfg, &ie), 0);
	assert_true(pump(ie, &r, done_added, &one, 1000));
	assert_string_equal(r.added_path, path);
	assert_string_equal(r.added_name, TS_NAME);
	assert_int_equal(health_of(status).health, STATUS_HEALTH_UP);

	/* Events of the skipped devices never arrive. */
	put(ours, EV_ABS, ABS_MT_TRACKING_ID, 9);
	put(ours, EV_SYN, SYN_REPORT, 0);
	put(pad, EV_ABS, ABS_MT_TRACKING_ID, 9);
	put(pad, EV_SYN, SYN_REPORT, 0);
	assert_true(pump(ie, &r, NULL, NULL, 200) == 0);
	assert_int_equal(r.n, 0);

	libevdev_uinput_destroy(ts);
	assert_true(pump(ie, &r, done_removed, &one, 1000));
	assert_string_equal(r.removed_path, path);
	assert_int_equal(health_of(status).health, STATUS_HEALTH_DOWN);
	snprintf(link, sizeof(link), "%s/event2", t.input);
	assert_int_equal(unlink(link), 0);

	/* Back under a new name: found through inotify within a second. */
	ts = uinput_make(TS_NAME, 1);
	t0 = fixture_now_ns();
	link_node(&t, "event4", ts);
	assert_true(pump(ie, &r, done_added, &two, 1000));
	assert_true(r.added_ns - t0 < 1000 * MS);
	snprintf(path, sizeof(path), "%s/event4", t.input);
	assert_string_equal(r.added_path, path);
	assert_int_equal(stats_of(ie).devices_added, 2);
	assert_int_equal(stats_of(ie).devices_removed, 1);
	assert_int_equal(health_of(status).health, STATUS_HEALTH_UP);

	input_evdev_free(ie);
	libevdev_uinput_destroy(ts);
	libevdev_uinput_destroy(pad);
	libevdev_uinput_destroy(ours);
	status_free(status);
	tmp_remove(&t);
}

static void
test_uinput_syn_dropped(void **state)
{
	static struct rec r;
	struct libevdev_uinput *ui;
	struct input_evdev_config cfg;
	struct input_evdev *ie = NULL;
	struct points ps;
	char node[256];
	unsigned one = 1, two = 2;
	size_t drop, lift, btn, end, i;
	struct pollfd pfd;
	int64_t t0, t1;

	(void)state;
	if (!uinput_usable())
		skip();
	memset(&r, 0, sizeof(r));
	ui = uinput_make(TS_NAME, 1);
	snprintf(node, sizeof(node), "%s", libevdev_uinput_get_devnode(ui));
	memset(&cfg, 0, sizeof(cfg));
	cfg.device = node;
	assert_int_equal(input_evdev_new(&cfg, &ie), 0);
	assert_true(pump(ie, &r, done_added, &one, 1000));

	/* A finger lands and is read. */
	t0 = fixture_now_ns();
	put(ui, EV_ABS, ABS_MT_TRACKING_ID, 5);
	put(ui, EV_ABS, ABS_MT_POSITION_X, 300);
	put(ui, EV_ABS, ABS_MT_POSITION_Y, 400);
	put(ui, EV_KEY, BTN_TOUCH, 1);
	put(ui, EV_SYN, SYN_REPORT, 0);
	assert_true(pump(ie, &r, done_reports, &one, 1000));

	/*
	 * It lifts, then far more events than the kernel queue holds come
	 * before anything is read: the lift is lost in the overflow.
	 */
	put(ui, EV_ABS, ABS_MT_TRACKING_ID, -1);
	put(ui, EV_KEY, BTN_TOUCH, 0);
	put(ui, EV_SYN, SYN_REPORT, 0);
	for (i = 0; i < 4000; i++) {
		put(ui, EV_ABS, ABS_X, (int)(i % 2) + 100);
		put(ui, EV_SYN, SYN_REPORT, 0);
	}
	t1 = fixture_now_ns();
	assert_true(pump(ie, &r, done_reports, &two, 1000));
	/* Let anything that would follow arrive. */
	assert_true(pump(ie, &r, NULL, NULL, 100) == 0);

	/* EVDEV_DUMP=1 prints what was read, to see what a kernel sends. */
	if (getenv("EVDEV_DUMP") != NULL)
		for (i = 0; i < r.n; i++)
			fprintf(stderr, "%zu %lld %s %s %d\n", i,
				(long long)r.ev[i].time_ns,
				libevdev_event_type_get_name(r.ev[i].type),
				libevdev_event_code_get_name(r.ev[i].type,
							     r.ev[i].code),
				r.ev[i].value);
	drop = find(&r, 0, EV_SYN, SYN_DROPPED, 0);
	assert_int_not_equal(drop, SIZE_MAX);
	/* Nothing of the flood came before the drop. */
	assert_int_equal(drop, 5);
	assert_int_equal(stats_of(ie).syn_dropped, 1);
	/* Then the made-up SYN_REPORT, at the same time. */
	assert_true(drop + 1 < r.n);
	assert_int_equal(r.ev[drop + 1].type, EV_SYN);
	assert_int_equal(r.ev[drop + 1].code, SYN_REPORT);
	assert_int_equal(r.ev[drop + 1].time_ns, r.ev[drop].time_ns);
	/*
	 * Then libevdev's resync: a frame ending the touches that stopped
	 * (libevdev 1.10 on), then one with the rest of the new state.
	 */
	lift = find(&r, drop + 2, EV_ABS, ABS_MT_TRACKING_ID, -1);
	btn = find(&r, drop + 2, EV_KEY, BTN_TOUCH, 0);
	assert_int_not_equal(lift, SIZE_MAX);
	assert_int_not_equal(btn, SIZE_MAX);
	end = find(&r, lift, EV_SYN, SYN_REPORT, 0);
	assert_int_not_equal(end, SIZE_MAX);
	assert_true(btn < r.n - 1);
	assert_int_equal(r.ev[r.n - 1].type, EV_SYN);
	assert_int_equal(r.ev[r.n - 1].code, SYN_REPORT);
	/* No new contact in it. */
	assert_int_equal(find(&r, drop, EV_ABS, ABS_MT_TRACKING_ID, 5),
			 SIZE_MAX);
	for (i = 0; i < r.n; i++) {
		assert_true(r.ev[i].time_ns >= t0 / 1000 * 1000);
		assert_true(r.ev[i].time_ns <= t1);
		assert_int_not_equal(r.ev[i].type, EV_MSC);
	}

	/*
	 * The tracker ends the contact at the resync, flagged, and sees no
	 * phantom contact.
	 */
	track(&r, &ps);
	assert_int_equal(ps.n, 2);
	assert_int_equal(ps.p[0].phase, TOUCH_DOWN);
	assert_int_equal(ps.p[1].phase, TOUCH_UP);
	assert_int_equal(ps.p[1].contact, ps.p[0].contact);
	assert_true(ps.p[1].flags & TOUCH_FLAG_DROPPED);
	assert_int_equal(ps.p[1].time_ns, r.ev[end].time_ns);

	/* Reading goes on normally after the resync. */
	r.n = 0;
	put(ui, EV_ABS, ABS_MT_TRACKING_ID, 6);
	put(ui, EV_KEY, BTN_TOUCH, 1);
	put(ui, EV_SYN, SYN_REPORT, 0);
	assert_true(pump(ie, &r, done_reports, &one, 1000));
	assert_int_equal(r.n, 3);
	assert_int_equal(r.ev[0].value, 6);

	/* A failing callback stops the dispatch and is passed back. */
	r.n = 0;
	r.fail = -ENOSPC;
	put(ui, EV_ABS, ABS_MT_TRACKING_ID, -1);
	put(ui, EV_SYN, SYN_REPORT, 0);
	pfd.fd = input_evdev_fd(ie);
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 1000), 1);
	assert_int_equal(input_evdev_dispatch(ie, &rec_cb, &r), -ENOSPC);
	r.fail = 0;
	/* The event that failed was taken; the rest are still there. */
	assert_true(pump(ie, &r, done_reports, &one, 1000));
	assert_int_equal(r.n, 1);
	assert_non_null(input_evdev_path(ie));

	input_evdev_free(ie);
	libevdev_uinput_destroy(ui);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_touchscreen),
		cmocka_unit_test(test_classify_touchpad),
		cmocka_unit_test(test_classify_gamepad),
		cmocka_unit_test(test_classify_keyboard_mouse),
		cmocka_unit_test(test_classify_single_touch),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_clamp_time),
		cmocka_unit_test(test_scan_empty),
		cmocka_unit_test(test_scan_hotplug_files),
		cmocka_unit_test(test_retry_then_give_up),
		cmocka_unit_test(test_given_device_files),
		cmocka_unit_test(test_uinput_tap),
		cmocka_unit_test(test_uinput_scan_replug),
		cmocka_unit_test(test_uinput_syn_dropped),
	};

	log_init("test_input_evdev", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
