/*
 * Tests of the injector (inject.h) against a regular file standing for
 * the touch screen: the events it writes, the matching of what is read
 * back (the slot, the tracking id and the kernel times inside the writes'
 * clock readings make a gesture tapd's; any one wrong and it is not), a
 * finger down refusing or holding the queue, the rate limit, and the
 * uinput test of the virtual_device flag on a sysfs tree made here; the
 * choice of --inject-via, which errors are a node refusing, and that
 * --inject-via uinput goes through the clone (which a regular file cannot
 * be cloned into) while auto writes the node.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "fixture.h"
#include "inject.h"
#include "store.h"

static char dir[PATH_MAX];
static char dev[PATH_MAX + 16];

static int
setup(void **state)
{
	(void)state;
	if (fixture_tmpdir(dir, sizeof(dir), "inject") < 0)
		return -1;
	snprintf(dev, sizeof(dev), "%s/event0", dir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return fixture_rmtree(dir);
}

static void
pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static struct inject *
make(unsigned rate)
{
	struct inject_config cfg;
	struct inject *inj;
	int fd;

	fd = open(dev, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
	memset(&cfg, 0, sizeof(cfg));
	cfg.device = dev;
	cfg.rate = rate;
	cfg.enabled = 1;
	assert_int_equal(inject_new(&cfg, &inj), 0);
	return inj;
}

/* Waits up to 5 s for gesture id to reach state. */
static void
await(struct inject *inj, int64_t id, enum inject_state state,
      struct inject_record *r)
{
	int i;

	for (i = 0; i < 1000; i++) {
		assert_int_equal(inject_get(inj, id, r), 0);
		if (r->state == state)
			return;
		pause_ms(5);
	}
	fail_msg("gesture %lld stayed %s", (long long)id,
		 inject_state_name(r->state));
}

static struct touch_point
point(enum touch_phase phase, uint64_t contact, int32_t slot, int32_t tid,
      int64_t t_ns, unsigned active)
{
	struct touch_point pt;

	memset(&pt, 0, sizeof(pt));
	pt.phase = phase;
	pt.contact = contact;
	pt.slot = slot;
	pt.tracking_id = tid;
	pt.time_ns = t_ns;
	pt.active = active;
	return pt;
}

static const struct inject_gesture tap = {
	.kind = INJECT_TAP, .x = 540, .y = 1200, .hold_ms = 20};

static void
test_written(void **state)
{
	struct input_event ev[16];
	struct inject_record r;
	struct inject *inj;
	int64_t id = 0;
	ssize_t n;
	int fd;

	(void)state;
	inj = make(0);
	assert_int_equal(inject_submit(inj, &tap, 0, 7, &id), 0);
	assert_int_equal(id, 1);
	await(inj, id, INJECT_WRITTEN, &r);
	assert_int_equal(r.events_after, 7);
	assert_int_equal(r.slot, 0);
	assert_true(r.tid > 0);
	assert_int_equal(r.raw_x, 540);
	assert_int_equal(r.raw_y, 1200);
	/* The readings bracket each write, the hold between them. */
	assert_true(r.first_before_ns <= r.first_after_ns);
	/* The hold runs from just before the first write (inject_write.c). */
	assert_true(r.final_before_ns - r.first_before_ns >= 20 * 1000000LL);
	assert_true(r.final_before_ns <= r.final_after_ns);
	assert_int_equal(r.t_up_ns, -1);
	fd = open(dev, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, ev, sizeof(ev));
	close(fd);
	assert_int_equal(n, 8 * (ssize_t)sizeof(ev[0]));
	assert_int_equal(ev[1].code, ABS_MT_TRACKING_ID);
	assert_int_equal(ev[1].value, r.tid);
	assert_int_equal(ev[6].code, ABS_MT_TRACKING_ID);
	assert_int_equal(ev[6].value, -1);
	inject_free(inj);
}

static void
test_matched(void **state)
{
	struct touch_point down, up;
	struct inject_record r;
	struct inject *inj;
	int64_t id;

	(void)state;
	inj = make(0);
	assert_int_equal(inject_submit(inj, &tap, 0, 0, &id), 0);
	await(inj, id, INJECT_WRITTEN, &r);
	/* Its tracking id wrong: a finger, not tapd's. */
	down = point(TOUCH_DOWN, 10, r.slot, r.tid + 1, r.first_after_ns, 1);
	inject_observe(inj, &down);
	up = point(TOUCH_UP, 10, r.slot, r.tid + 1, r.final_after_ns, 0);
	inject_observe(inj, &up);
	assert_int_equal(inject_flags(inj, &down, up.time_ns), 0);
	/* Its slot wrong. */
	down = point(TOUCH_DOWN, 11, r.slot + 1, r.tid, r.first_after_ns, 1);
	inject_observe(inj, &down);
	inject_observe(inj, &up);
	assert_int_equal(inject_flags(inj, &down, r.final_after_ns), 0);
	/* Stamped before its first write. */
	down = point(TOUCH_DOWN, 12, r.slot, r.tid,
		     r.first_before_ns / 1000 * 1000 - 1000, 1);
	inject_observe(inj, &down);
	up = point(TOUCH_UP, 12, r.slot, r.tid, r.final_after_ns, 0);
	inject_observe(inj, &up);
	assert_int_equal(inject_flags(inj, &down, up.time_ns), 0);
	/* All right, but ended after its final write returned. */
	down = point(TOUCH_DOWN, 13, r.slot, r.tid, r.first_after_ns, 1);
	inject_observe(inj, &down);
	up = point(TOUCH_UP, 13, r.slot, r.tid, r.final_after_ns + 1, 0);
	inject_observe(inj, &up);
	assert_int_equal(inject_flags(inj, &down, up.time_ns), 0);
	assert_int_equal(inject_get(inj, id, &r), 0);
	assert_int_equal(r.state, INJECT_WRITTEN);
	inject_free(inj);

	/* A fresh one, read back right: injected, its times kept. */
	inj = make(0);
	assert_int_equal(inject_submit(inj, &tap, 0, 0, &id), 0);
	await(inj, id, INJECT_WRITTEN, &r);
	down = point(TOUCH_DOWN, 20, r.slot, r.tid,
		     r.first_before_ns / 1000 * 1000, 1);
	inject_observe(inj, &down);
	up = point(TOUCH_UP, 20, r.slot, r.tid, r.final_after_ns, 0);
	inject_observe(inj, &up);
	assert_int_equal(inject_flags(inj, &down, up.time_ns),
			 STORE_FLAG_INJECTED);
	assert_int_equal(inject_wait(inj, id, 0, &r), 0);
	assert_int_equal(r.state, INJECT_READ_BACK);
	assert_int_equal(r.t_down_ns, down.time_ns);
	assert_int_equal(r.t_up_ns, up.time_ns);
	/* Matched once only. */
	assert_int_equal(inject_flags(inj, &down, up.time_ns), 0);
	inject_free(inj);
}

static void
test_finger_down(void **state)
{
	struct touch_point down, up;
	struct inject_record r;
	struct inject *inj;
	struct stat st;
	int64_t id = 0, id2 = 0;

	(void)state;
	inj = make(0);
	down = point(TOUCH_DOWN, 30, 0, 5, 1000, 1);
	inject_observe(inj, &down);
	assert_int_equal(inject_submit(inj, &tap, 0, 0, &id), -EBUSY);
	assert_int_equal(inject_submit(inj, &tap, INJECT_QUEUE, 0, &id), 0);
	assert_int_equal(inject_submit(inj, &tap, INJECT_QUEUE, 0, &id2), 0);
	assert_int_equal(id2, id + 1);
	pause_ms(100);
	assert_int_equal(inject_get(inj, id, &r), 0);
	assert_int_equal(r.state, INJECT_QUEUED);
	assert_int_equal(stat(dev, &st), 0);
	assert_int_equal(st.st_size, 0);
	up = point(TOUCH_UP, 30, 0, 5, 2000, 0);
	inject_observe(inj, &up);
	await(inj, id2, INJECT_WRITTEN, &r);
	assert_int_equal(inject_get(inj, id, &r), 0);
	assert_int_equal(r.state, INJECT_WRITTEN);
	assert_int_equal(stat(dev, &st), 0);
	assert_int_equal(st.st_size, 16 * (off_t)sizeof(struct input_event));
	inject_free(inj);
}

static void
test_limits(void **state)
{
	struct inject_config cfg;
	struct inject_gesture g = tap;
	struct inject *inj;
	int64_t id;

	(void)state;
	inj = make(2);
	assert_int_equal(inject_submit(inj, &tap, 0, 0, &id), 0);
	assert_int_equal(inject_submit(inj, &tap, 0, 0, &id), 0);
	assert_int_equal(inject_submit(inj, &tap, 0, 0, &id), -EAGAIN);
	g.hold_ms = 0;
	assert_int_equal(inject_submit(inj, &g, 0, 0, &id), -EINVAL);
	g.hold_ms = INJECT_HOLD_MAX_MS + 1;
	assert_int_equal(inject_submit(inj, &g, 0, 0, &id), -EINVAL);
	inject_free(inj);
	/* Off: nothing is written, only the flags are given. */
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(inject_new(&cfg, &inj), 0);
	assert_int_equal(inject_submit(inj, &tap, 0, 0, &id), -EPERM);
	inject_free(inj);
	inject_free(NULL);
	cfg.rate = 1001;
	assert_int_equal(inject_new(&cfg, &inj), -EINVAL);
}

static void
test_virtual(void **state)
{
	char path[PATH_MAX + 128], cls[PATH_MAX + 64];
	struct touch_point down;
	struct inject_config cfg;
	struct inject *inj;

	(void)state;
	snprintf(path, sizeof(path),
		 "%s/sys/devices/virtual/input/input3/event3", dir);
	fixture_mkdirs(path, 0755);
	snprintf(path, sizeof(path),
		 "%s/sys/devices/platform/ts/input/input1/event1", dir);
	fixture_mkdirs(path, 0755);
	snprintf(cls, sizeof(cls), "%s/sys/class/input", dir);
	fixture_mkdirs(cls, 0755);
	snprintf(path, sizeof(path), "%s/event3", cls);
	assert_int_equal(
		symlink("../../devices/virtual/input/input3/event3", path), 0);
	snprintf(path, sizeof(path), "%s/event1", cls);
	assert_int_equal(
		symlink("../../devices/platform/ts/input/input1/event1", path),
		0);
	assert_int_equal(inject_is_virtual(dir, "/dev/input/event3"), 1);
	assert_int_equal(inject_is_virtual(dir, "/dev/input/event1"), 0);
	assert_int_equal(inject_is_virtual(dir, "/dev/input/event7"), 0);

	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = dir;
	assert_int_equal(inject_new(&cfg, &inj), 0);
	down = point(TOUCH_DOWN, 1, 0, 1, 1000, 1);
	inject_set_target(inj, "/dev/input/event3", NULL, NULL);
	assert_int_equal(inject_flags(inj, &down, 2000),
			 STORE_FLAG_VIRTUAL_DEVICE);
	inject_set_target(inj, "/dev/input/event1", NULL, NULL);
	assert_int_equal(inject_flags(inj, &down, 2000), 0);
	inject_free(inj);
	assert_int_equal(inject_flags(NULL, &down, 2000), 0);
}

static void
test_via(void **state)
{
	enum inject_via v = INJECT_VIA_EVDEV;

	(void)state;
	assert_int_equal(inject_uinput_parse_via("auto", &v), 0);
	assert_int_equal(v, INJECT_VIA_AUTO);
	assert_int_equal(inject_uinput_parse_via("uinput", &v), 0);
	assert_int_equal(v, INJECT_VIA_UINPUT);
	assert_int_equal(inject_uinput_parse_via("evdev", &v), 0);
	assert_int_equal(v, INJECT_VIA_EVDEV);
	assert_int_equal(inject_uinput_parse_via("Evdev", &v), -EINVAL);
	assert_int_equal(inject_uinput_parse_via("", &v), -EINVAL);
	assert_int_equal(v, INJECT_VIA_EVDEV);
	assert_string_equal(inject_uinput_via_name(INJECT_VIA_UINPUT),
			    "uinput");
	assert_string_equal(inject_uinput_via_name(INJECT_VIA_AUTO), "auto");
	/* Refusals: the clone helps.  A device gone or a full queue: not. */
	assert_true(inject_uinput_refusal(-EPERM));
	assert_true(inject_uinput_refusal(-EACCES));
	assert_true(inject_uinput_refusal(-EROFS));
	assert_true(inject_uinput_refusal(-EINVAL));
	assert_true(inject_uinput_refusal(-EIO));
	assert_false(inject_uinput_refusal(-ENODEV));
	assert_false(inject_uinput_refusal(-ENOENT));
	assert_false(inject_uinput_refusal(-EAGAIN));
	assert_false(inject_uinput_refusal(-ENXIO));
	assert_false(inject_uinput_refusal(0));
}

/* A clone of what is no evdev node fails, and says why. */
/*
 * How an evdev ioctl on a file that is no device fails: ENOTTY from a
 * kernel; qemu-user, which the phone builds' tests run under, answers an
 * ioctl it does not emulate with ENOSYS instead.
 */
static int
ioctl_refused(int rc)
{
	return rc == -ENOTTY || (getenv("TAPD_TEST_EMULATED") && rc == -ENOSYS);
}

static void
test_clone_refused(void **state)
{
	struct inject_uinput *u = (struct inject_uinput *)1;
	char why[512], missing[PATH_MAX + 32];
	int fd;

	(void)state;
	fd = open(dev, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
	why[0] = '\0';
	assert_true(ioctl_refused(
		inject_uinput_new(dev, NULL, &u, why, sizeof(why))));
	assert_null(u);
	assert_non_null(strstr(why, "cannot read the capabilities of"));
	snprintf(missing, sizeof(missing), "%s/no-such-node", dir);
	assert_int_equal(inject_uinput_new(missing, NULL, &u, why, sizeof(why)),
			 -ENOENT);
	assert_non_null(strstr(why, "cannot open"));
	assert_non_null(strstr(why, missing));
	inject_uinput_free(NULL);
}

/*
 * The target set as the input's device, not given: auto writes it (a
 * file: no refusal); uinput tries to clone it, which a file cannot be,
 * and the gesture fails saying so, the file untouched.
 */
static void
test_via_target(void **state)
{
	struct inject_config cfg;
	struct inject_geometry geo;
	struct inject_record r;
	struct inject *inj;
	struct stat st;
	int64_t id;
	cJSON *h;
	int fd, pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		fd = open(dev, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_true(fd >= 0);
		close(fd);
		memset(&cfg, 0, sizeof(cfg));
		memset(&geo, 0, sizeof(geo));
		cfg.enabled = 1;
		cfg.via = pass ? INJECT_VIA_UINPUT : INJECT_VIA_AUTO;
		assert_int_equal(inject_new(&cfg, &inj), 0);
		inject_set_target(inj, dev, NULL, &geo);
		assert_int_equal(inject_submit(inj, &tap, 0, 0, &id), 0);
		await(inj, id, pass ? INJECT_FAILED : INJECT_WRITTEN, &r);
		assert_int_equal(stat(dev, &st), 0);
		h = inject_health_json(inj);
		assert_non_null(h);
		assert_string_equal(cJSON_GetObjectItem(h, "via")->valuestring,
				    pass ? "uinput" : "auto");
		assert_string_equal(
			cJSON_GetObjectItem(h, "screen")->valuestring, dev);
		if (pass) {
			assert_true(ioctl_refused(r.err));
			assert_int_equal(st.st_size, 0);
			assert_non_null(strstr(
				cJSON_GetObjectItem(h, "problem")->valuestring,
				"cannot read the capabilities of"));
		} else {
			assert_true(st.st_size > 0);
			assert_true(cJSON_IsNull(
				cJSON_GetObjectItem(h, "uinput_reason")));
		}
		cJSON_Delete(h);
		inject_free(inj);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written),
		cmocka_unit_test(test_matched),
		cmocka_unit_test(test_finger_down),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_virtual),
		cmocka_unit_test(test_via),
		cmocka_unit_test(test_clone_refused),
		cmocka_unit_test(test_via_target),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
