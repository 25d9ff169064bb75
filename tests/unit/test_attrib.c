/*
 * The attribution (attrib.h): real window lists recorded as a replay's
 * windows.log, hit at raw panel points, their owners from processes.log,
 * and each of the fallbacks to the foreground.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "attrib.h"
#include "fixture.h"

#define REAL_DIR "../shared/fixtures/real/dumpsys-input/"
#define FIX_DIR	 "tests/fixtures/dumpsys-input/"

/* A small list: display 0 of 100x200, one window on its lower half. */
static const char small_list[] =
	"Input Dispatcher State:\n  Display: 0\n"
	"    logicalSize=100x200\n    Windows:\n"
	"      0: name=lower half, id=1, displayId=0, inputConfig=0x0, "
	"alpha=1, frame=[0,100][100,200], touchableRegion=[0,100][100,200], "
	"ownerPid=9, ownerUid=10009\n";

static char dir[256];

static int
setup(void **state)
{
	(void)state;
	return fixture_tmpdir(dir, sizeof(dir), "attrib");
}

static int
teardown(void **state)
{
	(void)state;
	fixture_rmtree(dir);
	return 0;
}

/* Appends "@ t" and the file's text (NULL: none) to the log at path. */
static void
add_block(const char *path, int64_t t_ns, const char *from, const char *text)
{
	FILE *f = fopen(path, "a");
	size_t len = 0;
	char *body;

	assert_non_null(f);
	fprintf(f, "@ %lld\n", (long long)t_ns);
	if (from) {
		body = fixture_slurp(from, &len);
		fwrite(body, 1, len, f);
		free(body);
	}
	if (text)
		fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static struct attrib *
open_attrib(const struct hittest_axes *axes, const char *windows,
	    const char *processes)
{
	struct attrib *a;
	char spec[512];

	assert_int_equal(attrib_new(axes, &a), 0);
	snprintf(spec, sizeof(spec), "log:%s", windows);
	assert_int_equal(attrib_open_windows(a, spec), 0);
	if (processes) {
		snprintf(spec, sizeof(spec), "log:%s", processes);
		assert_int_equal(attrib_open_processes(a, spec), 0);
	}
	assert_true(attrib_has_lists(a));
	return a;
}

static void
decide_at(struct attrib *a, int64_t t_down, int64_t t_up, int32_t x, int32_t y,
	  struct attrib_result *res)
{
	attrib_down(a, t_down, x, y);
	assert_int_equal(attrib_decide(a, t_up, 1234, "com.example.front", res),
			 0);
}

/*
 * Android 14 with vendor fields: the keyboard over the lower part of a
 * chat, a spy above it all.  A panel of the display's own resolution.
 */
static void
test_ime(void **state)
{
	const struct hittest_axes axes = {0, 1079, 0, 2339};
	struct attrib_result res;
	struct attrib_stats st;
	char wpath[512], ppath[512];
	struct attrib *a;

	(void)state;
	fixture_join(wpath, sizeof(wpath), dir, "ime-windows.log");
	fixture_join(ppath, sizeof(ppath), dir, "ime-processes.log");
	add_block(wpath, 1000, FIX_DIR "android14-ime-vendor.txt", NULL);
	/* The foreground changed at 5 s: no list holds until the next. */
	add_block(wpath, 5000, NULL, NULL);
	add_block(wpath, 7000, NULL, small_list);
	fixture_write_str(ppath, "900 3300 10095 com.example.ime\n"
				 "900 4400 10200 com.example.chat\n");
	a = open_attrib(&axes, wpath, ppath);

	/* On the keyboard: the IME's, by its owner's pid and package. */
	decide_at(a, 1500, 2000, 540, 2000, &res);
	assert_int_equal(res.how, ATTRIB_WINDOW);
	assert_string_equal(res.window, "c3d4e5f InputMethod");
	assert_int_equal(res.pid, 3300);
	assert_string_equal(res.app, "com.example.ime");
	assert_string_equal(attrib_how_name(res.how), "window");

	/* Above the keyboard's touchable region: the chat beneath. */
	decide_at(a, 2500, 2600, 540, 1420, &res);
	assert_int_equal(res.how, ATTRIB_WINDOW);
	assert_string_equal(res.window,
			    "f6a7b8c com.example.chat/"
			    "com.example.chat.ConversationActivity");
	assert_int_equal(res.pid, 4400);
	assert_string_equal(res.app, "com.example.chat");

	/* Before the first list, and under the empty block: foreground. */
	decide_at(a, 100, 999, 540, 2000, &res);
	assert_int_equal(res.how, ATTRIB_FOREGROUND);
	assert_int_equal(res.pid, 1234);
	assert_string_equal(res.app, "com.example.front");
	assert_null(res.window);
	decide_at(a, 5000, 6000, 540, 2000, &res);
	assert_int_equal(res.how, ATTRIB_FOREGROUND);
	assert_string_equal(attrib_how_name(res.how), "foreground");

	/*
	 * The small list: its window holds the lower half only.  The panel
	 * maps through the logical size, 1080 x 2340 raw to 100 x 200.
	 */
	decide_at(a, 7000, 7100, 540, 2000, &res);
	assert_int_equal(res.how, ATTRIB_WINDOW);
	assert_string_equal(res.window, "lower half");
	assert_int_equal(res.pid, 9);
	/* pid 9 is in no processes.log line, nor the foreground: unknown. */
	assert_null(res.app);
	decide_at(a, 7200, 7300, 540, 100, &res);
	assert_int_equal(res.how, ATTRIB_NONE);
	assert_string_equal(attrib_how_name(res.how), "none");
	assert_null(res.window);
	assert_int_equal(res.pid, 1234);
	assert_string_equal(res.app, "com.example.front");

	attrib_get_stats(a, &st);
	assert_int_equal(st.decided[ATTRIB_WINDOW], 3);
	assert_int_equal(st.decided[ATTRIB_FOREGROUND], 2);
	assert_int_equal(st.decided[ATTRIB_NONE], 1);
	assert_int_equal(st.no_list, 2);
	assert_int_equal(st.owner_unknown, 1);
	attrib_free(a);
}

/* An owner nobody named is the foreground's when the pids agree. */
static void
test_owner_from_foreground(void **state)
{
	const struct hittest_axes axes = {0, 999, 0, 1999};
	struct attrib_result res;
	char wpath[512];
	struct attrib *a;

	(void)state;
	fixture_join(wpath, sizeof(wpath), dir, "fg-windows.log");
	add_block(wpath, 10, NULL, small_list);
	a = open_attrib(&axes, wpath, NULL);
	attrib_down(a, 20, 500, 1500);
	assert_int_equal(attrib_decide(a, 30, 9, "com.example.nine", &res), 0);
	assert_int_equal(res.how, ATTRIB_WINDOW);
	assert_int_equal(res.pid, 9);
	assert_string_equal(res.app, "com.example.nine");
	/* Another foreground pid: the owner stays unknown, its pid kept. */
	assert_int_equal(attrib_decide(a, 30, 10, "com.example.ten", &res), 0);
	assert_int_equal(res.pid, 9);
	assert_null(res.app);
	attrib_free(a);
}

/* The notification shade of a real Android 16 capture, screen off. */
static void
test_real_vivo_shade(void **state)
{
	const char *name = REAL_DIR
		"android16_vivo_mt6991_notificationshade_screenoff.txt";
	struct hittest_axes axes;
	struct attrib_result res;
	char wpath[512];
	struct attrib *a;

	(void)state;
	if (access(name, R_OK) != 0)
		skip();
	fixture_join(wpath, sizeof(wpath), dir, "vivo-windows.log");
	add_block(wpath, 1, name, NULL);
	/* The panel's range of the display's size, whatever it is. */
	axes.x_min = 0;
	axes.y_min = 0;
	axes.x_max = 2063;
	axes.y_max = 3095;
	a = open_attrib(&axes, wpath, NULL);
	attrib_down(a, 2, 1032, 1548);
	assert_int_equal(attrib_decide(a, 3, 0, NULL, &res), 0);
	/*
	 * Its viewport is inactive (the screen is off) but still maps: the
	 * list decides, a window or none, never the foreground.  The shade
	 * is not touchable with the screen off.
	 */
	assert_int_not_equal(res.how, ATTRIB_FOREGROUND);
	if (res.window)
		assert_null(strstr(res.window, "NotificationShade"));
	if (res.how == ATTRIB_WINDOW)
		assert_true(res.window && res.window[0]);
	else
		assert_null(res.window);
	attrib_free(a);
}

/* The real Honor capture, its panel in raw units 9.07 a pixel. */
static void
test_real_honor(void **state)
{
	const char *name = REAL_DIR "android14_honor_magicos.txt";
	const struct hittest_axes axes = {0, 9791, 0, 21599};
	struct attrib_result res;
	char wpath[512], ppath[512];
	struct attrib *a;

	(void)state;
	if (access(name, R_OK) != 0)
		skip();
	fixture_join(wpath, sizeof(wpath), dir, "honor-windows.log");
	fixture_join(ppath, sizeof(ppath), dir, "honor-processes.log");
	add_block(wpath, 100, name, NULL);
	fixture_write_str(ppath,
			  "50 17675 10297 com.hihonor.android.honorsuite\n"
			  "# the system server owns the gesture strips\n"
			  "50 2673 1000 android\n");
	a = open_attrib(&axes, wpath, ppath);
	attrib_down(a, 200, 4896, 10800);
	assert_int_equal(attrib_decide(a, 300, 0, NULL, &res), 0);
	assert_int_equal(res.how, ATTRIB_WINDOW);
	assert_int_equal(res.pid, 17675);
	assert_non_null(strstr(res.window, "honorsuite"));
	assert_non_null(res.app);
	assert_string_equal(res.app, "com.hihonor.android.honorsuite");
	/* The bottom gesture strip, 2680 px down: the system's. */
	attrib_down(a, 400, 4896, 21440);
	assert_int_equal(attrib_decide(a, 500, 0, NULL, &res), 0);
	assert_int_equal(res.how, ATTRIB_WINDOW);
	assert_non_null(strstr(res.window, "GestureNavBottom"));
	assert_int_equal(res.pid, 2673);
	assert_string_equal(res.app, "android");
	attrib_free(a);
}

/* The fallbacks that need no list at all, and the specs refused. */
static void
test_fallbacks(void **state)
{
	const struct hittest_axes empty = {0, 0, 0, 100};
	struct attrib_result res;
	struct attrib_stats st;
	char wpath[512], spec[600];
	struct attrib *a;

	(void)state;
	/* No attribution at all: the foreground, as before hit-testing. */
	assert_int_equal(attrib_decide(NULL, 5, 7, "com.example.seven", &res),
			 0);
	assert_int_equal(res.how, ATTRIB_FOREGROUND);
	assert_int_equal(res.pid, 7);
	assert_string_equal(res.app, "com.example.seven");

	fixture_join(wpath, sizeof(wpath), dir, "fb-windows.log");
	add_block(wpath, 10, NULL, small_list);
	/* Axis ranges unknown (or empty): the list cannot map the point. */
	a = open_attrib(&empty, wpath, NULL);
	attrib_down(a, 20, 500, 1500);
	assert_int_equal(attrib_decide(a, 30, 7, "com.example.seven", &res), 0);
	assert_int_equal(res.how, ATTRIB_FOREGROUND);
	attrib_get_stats(a, &st);
	assert_int_equal(st.no_display, 1);
	/* --windows none drops the list. */
	assert_int_equal(attrib_open_windows(a, "none"), 0);
	assert_false(attrib_has_lists(a));
	attrib_free(a);

	/* A list without display 0 is no list for the screen either. */
	fixture_join(wpath, sizeof(wpath), dir, "fb4-windows.log");
	add_block(wpath, 10, NULL,
		  "Input Dispatcher State:\n  Display: 4\n"
		  "    logicalSize=100x200\n    Windows:\n"
		  "      0: name=w, id=1, displayId=4, inputConfig=0x0, "
		  "frame=[0,0][100,200], touchableRegion=[0,0][100,200], "
		  "ownerPid=9, ownerUid=10009\n");
	a = open_attrib(&(struct hittest_axes){0, 999, 0, 1999}, wpath, NULL);
	attrib_down(a, 20, 500, 1500);
	assert_int_equal(attrib_decide(a, 30, 7, "com.example.seven", &res), 0);
	assert_int_equal(res.how, ATTRIB_FOREGROUND);
	/* No touch-down seen: nothing to hit-test. */
	attrib_free(a);

	assert_int_equal(attrib_new(NULL, &a), 0);
	assert_int_equal(attrib_open_windows(a, "auto"), -EINVAL);
	assert_int_equal(attrib_open_windows(a, "log:"), -EINVAL);
	assert_int_equal(attrib_open_processes(a, "none"), -EINVAL);
	snprintf(spec, sizeof(spec), "log:%s/missing.log", dir);
	assert_int_equal(attrib_open_windows(a, spec), -ENOENT);
	assert_int_equal(attrib_open_processes(a, spec), -ENOENT);
	assert_false(attrib_has_lists(a));
	attrib_free(a);
	attrib_free(NULL);
}

/* The panel's ranges: device.json's first, else the device's own. */
static void
test_axes(void **state)
{
	struct gesture_axis ax = {10, 1089}, ay = {20, 2419};
	struct device_info dev;
	struct hittest_axes h;

	(void)state;
	memset(&dev, 0, sizeof(dev));
	assert_int_equal(attrib_axes(NULL, NULL, NULL, &h), -ENOENT);
	assert_int_equal(attrib_axes(&dev, &ax, &ay, &h), 0);
	assert_int_equal(h.x_min, 10);
	assert_int_equal(h.y_max, 2419);
	dev.have_touch = 1;
	dev.x.min = 0;
	dev.x.max = 4095;
	dev.y.min = 0;
	dev.y.max = 8191;
	assert_int_equal(attrib_axes(&dev, &ax, &ay, &h), 0);
	assert_int_equal(h.x_max, 4095);
	assert_int_equal(h.y_max, 8191);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ime),
		cmocka_unit_test(test_owner_from_foreground),
		cmocka_unit_test(test_real_honor),
		cmocka_unit_test(test_real_vivo_shade),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_axes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
