/*
 * Tests of hit-testing: the panel-to-display mapping for the four
 * rotations against the geometry of a turned display, and the walk of
 * real and written window lists: the keyboard over an app's bottom, the
 * notification shade, split screen, a dialog of another app, spies and
 * trusted overlays, region edges and the screen-off capture where no
 * window takes a touch.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "hittest.h"
#include "winlist.h"

#define REAL_DIR "../shared/fixtures/real/dumpsys-input/"
#define FIX_DIR	 "tests/fixtures/dumpsys-input/"

static struct winlist *
load(const char *path)
{
	struct winlist *wl;
	size_t len;
	char *text;

	text = fixture_slurp(path, &len);
	assert_int_equal(winlist_parse(text, len, &wl), 0);
	free(text);
	return wl;
}

static struct winlist *
load_real(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", REAL_DIR, name);
	if (access(path, R_OK) != 0)
		skip();
	return load(path);
}

/* Which window takes display point (x, y), and how. */
static const struct winlist_window *
hit(const struct winlist *wl, double x, double y, unsigned opts,
    enum hittest_how how, struct hittest_result *res)
{
	struct hittest_result r;

	if (!res)
		res = &r;
	assert_int_equal(hittest_find(wl, 0, x, y, opts, res), 0);
	assert_int_equal(res->how, how);
	assert_true(res->x == x && res->y == y);
	return res->window;
}

static void
expect_hit(const struct winlist *wl, double x, double y, unsigned opts,
	   enum hittest_how how, const char *name_has, int32_t pid)
{
	const struct winlist_window *w = hit(wl, x, y, opts, how, NULL);

	assert_non_null(w);
	assert_non_null(strstr(w->name, name_has));
	assert_int_equal(w->owner_pid, pid);
}

/*
 * Where a pixel of the panel's natural orientation lands on a display
 * turned by rot quarter turns counter-clockwise (Surface.ROTATION_*),
 * natural size w x h: the geometry, written out for each.
 */
static void
turned(int rot, double w, double h, double nx, double ny, double *x, double *y)
{
	switch (rot) {
	case 1:
		*x = ny;
		*y = w - 1 - nx;
		break;
	case 2:
		*x = w - 1 - nx;
		*y = h - 1 - ny;
		break;
	case 3:
		*x = h - 1 - ny;
		*y = nx;
		break;
	default:
		*x = nx;
		*y = ny;
		break;
	}
}

static void
test_map_rotations(void **state)
{
	/* A 1080x2400 panel, at one raw unit and at 4 raw units a pixel. */
	static const int units[] = {1, 4};
	static const int32_t px[][2] = {
		{0, 0}, {1079, 2399}, {100, 200}, {540, 1200}, {1000, 37},
	};
	struct winlist_viewport vp;
	struct hittest_axes axes;
	double x, y, ex, ey;
	size_t u, i;
	int rot;

	(void)state;
	for (u = 0; u < 2; u++) {
		axes.x_min = 0;
		axes.x_max = 1080 * units[u] - 1;
		axes.y_min = 0;
		axes.y_max = 2400 * units[u] - 1;
		for (rot = 0; rot < 4; rot++) {
			memset(&vp, 0, sizeof(vp));
			vp.orientation = (enum winlist_rotation)rot;
			vp.device_width = rot % 2 ? 2400 : 1080;
			vp.device_height = rot % 2 ? 1080 : 2400;
			vp.logical.right = vp.device_width;
			vp.logical.bottom = vp.device_height;
			vp.physical = vp.logical;
			for (i = 0; i < sizeof(px) / sizeof(*px); i++) {
				/* The raw value at the pixel's first unit. */
				assert_int_equal(
					hittest_map(
						&vp, &axes, px[i][0] * units[u],
						px[i][1] * units[u], &x, &y),
					0);
				turned(rot, 1080, 2400, px[i][0], px[i][1], &ex,
				       &ey);
				/*
				 * Android's turned cases count from the raw
				 * maximum, one raw unit short of the far
				 * edge: within one pixel.
				 */
				assert_true(fabs(x - ex) <= 1.0);
				assert_true(fabs(y - ey) <= 1.0);
				assert_true(x >= 0 && x < vp.device_width);
				assert_true(y >= 0 && y < vp.device_height);
			}
		}
	}
	/* An empty axis range or viewport is refused. */
	axes.x_max = -1;
	assert_int_equal(hittest_map(&vp, &axes, 0, 0, &x, &y), -EINVAL);
	axes.x_max = 100;
	memset(&vp, 0, sizeof(vp));
	assert_int_equal(hittest_map(&vp, &axes, 0, 0, &x, &y), -EINVAL);
}

/* An offset raw range, and a logical display smaller than the physical. */
static void
test_map_offset_and_scale(void **state)
{
	const struct winlist_viewport vp = {
		.orientation = WINLIST_ROT_0,
		.logical = {0, 0, 720, 1600},
		.physical = {0, 0, 1080, 2400},
		.device_width = 1080,
		.device_height = 2400,
	};
	const struct hittest_axes axes = {100, 1179, 50, 2449};
	double x, y;

	(void)state;
	assert_int_equal(hittest_map(&vp, &axes, 100 + 540, 50 + 1200, &x, &y),
			 0);
	assert_true(fabs(x - 360) < 1e-9);
	assert_true(fabs(y - 800) < 1e-9);
}

static void
test_ime(void **state)
{
	struct hittest_result res;
	struct winlist *wl;

	(void)state;
	/* Android 9: the notes app is touch-modal, the keyboard is not. */
	wl = load(FIX_DIR "android9-ime.txt");
	expect_hit(wl, 540, 1800, 0, HITTEST_REGION, "InputMethod", 2590);
	/* Inside the keyboard's frame, above its touchable region. */
	expect_hit(wl, 540, 1420, 0, HITTEST_REGION, "com.example.notes", 4711);
	expect_hit(wl, 540, 30, 0, HITTEST_REGION, "StatusBar", 1322);
	hit(wl, 540, 1800, 0, HITTEST_REGION, &res);
	assert_int_equal(res.index, 1);
	assert_int_equal(res.skipped_outside, 1);
	/* The other display has a list of its own. */
	assert_int_equal(hittest_find(wl, 1, 10, 10, 0, &res), 0);
	assert_int_equal(res.how, HITTEST_REGION);
	assert_non_null(strstr(res.window->name, "com.example.cast"));
	assert_int_equal(hittest_find(wl, 2, 10, 10, 0, &res), 0);
	assert_int_equal(res.how, HITTEST_NO_DISPLAY);
	assert_null(res.window);
	winlist_free(wl);

	/* Android 14 with vendor fields: the same, a spy above it all. */
	wl = load(FIX_DIR "android14-ime-vendor.txt");
	hit(wl, 540, 2000, 0, HITTEST_REGION, &res);
	assert_string_equal(res.window->name, "c3d4e5f InputMethod");
	assert_int_equal(res.window->owner_uid, 10095);
	assert_int_equal(res.skipped_spy, 1);
	expect_hit(wl, 540, 1420, 0, HITTEST_REGION, "com.example.chat", 4400);
	/* The invisible popup over the middle is walked past. */
	hit(wl, 500, 1000, 0, HITTEST_REGION, &res);
	assert_int_equal(res.skipped_invisible, 1);
	assert_int_equal(res.index, 4);
	/* Skipping trusted overlays gives the keyboard's tap to the app. */
	expect_hit(wl, 540, 2000, HITTEST_SKIP_TRUSTED, HITTEST_REGION,
		   "com.example.chat", 4400);
	winlist_free(wl);
}

static void
test_shade(void **state)
{
	struct hittest_result res;
	struct winlist *wl;

	(void)state;
	wl = load(FIX_DIR "android12-shade.txt");
	expect_hit(wl, 540, 1200, 0, HITTEST_REGION, "NotificationShade", 1650);
	expect_hit(wl, 540, 40, 0, HITTEST_REGION, "NotificationShade", 1650);
	hit(wl, 540, 1200, HITTEST_SKIP_TRUSTED, HITTEST_REGION, &res);
	assert_non_null(strstr(res.window->name, "com.example.news"));
	assert_int_equal(res.skipped_trusted, 2);
	winlist_free(wl);

	/* The real shade of a screen that is off takes nothing. */
	wl = load_real("android16_vivo_mt6991_notificationshade_screenoff.txt");
	hit(wl, 1000, 1500, 0, HITTEST_NONE, &res);
	assert_null(res.window);
	assert_int_equal(res.skipped_untouchable + res.skipped_invisible +
				 res.skipped_spy,
			 15);
	winlist_free(wl);
}

static void
test_split(void **state)
{
	struct winlist *wl;

	(void)state;
	wl = load(FIX_DIR "android11-split.txt");
	expect_hit(wl, 540, 500, 0, HITTEST_REGION, "com.example.mail", 7001);
	expect_hit(wl, 540, 1149, 0, HITTEST_REGION, "com.example.mail", 7001);
	expect_hit(wl, 540, 1170, 0, HITTEST_REGION, "DockedStackDivider",
		   1290);
	/* The divider's frame reaches 1210, its region only 1190. */
	expect_hit(wl, 540, 1195, 0, HITTEST_REGION, "com.example.maps", 7002);
	expect_hit(wl, 540, 2339, 0, HITTEST_REGION, "com.example.maps", 7002);
	/* Right and bottom edges are outside; nothing is below. */
	hit(wl, 540, 2340, 0, HITTEST_NONE, NULL);
	hit(wl, 1080, 500, 0, HITTEST_NONE, NULL);
	winlist_free(wl);
}

static void
test_dialog(void **state)
{
	struct hittest_result res;
	struct winlist *wl;

	(void)state;
	/* Android 10: a touch-modal dialog takes touches outside it too. */
	wl = load(FIX_DIR "android10-dialog.txt");
	expect_hit(wl, 540, 1000, 0, HITTEST_REGION, "permissioncontroller",
		   6120);
	expect_hit(wl, 540, 300, 0, HITTEST_MODAL, "permissioncontroller",
		   6120);
	expect_hit(wl, 540, 2200, 0, HITTEST_REGION, "NavigationBar", 1400);
	winlist_free(wl);

	/* Android 15: no modality, the region decides. */
	wl = load(FIX_DIR "android15-dialog.txt");
	expect_hit(wl, 540, 1800, 0, HITTEST_REGION, "com.other.share", 5500);
	hit(wl, 540, 600, 0, HITTEST_REGION, &res);
	assert_non_null(strstr(res.window->name, "com.example.photos"));
	assert_int_equal(res.skipped_spy, 1);
	assert_int_equal(res.skipped_untouchable, 1);
	assert_int_equal(res.skipped_outside, 2);
	/* The caption, a trusted overlay, takes touches unless skipped. */
	expect_hit(wl, 540, 45, 0, HITTEST_REGION, "Embedded{View root", 1702);
	expect_hit(wl, 540, 45, HITTEST_SKIP_TRUSTED, HITTEST_REGION,
		   "com.example.photos", 6600);
	winlist_free(wl);
}

static void
test_rotated_touch(void **state)
{
	const struct hittest_axes axes = {0, 4319, 0, 9599};
	struct hittest_result res;
	struct winlist *wl;

	(void)state;
	wl = load(FIX_DIR "android13-rotated.txt");
	/* The natural top right corner is the display's top left. */
	assert_int_equal(hittest_touch(wl, 0, &axes, 4200, 400, 0, &res), 0);
	assert_int_equal(res.map, HITTEST_MAP_VIEWPORT);
	assert_int_equal(res.how, HITTEST_REGION);
	assert_non_null(strstr(res.window->name, "com.example.game"));
	assert_true(fabs(res.x - 100) < 1e-9);
	assert_true(fabs(res.y - 29.75) < 1e-9);
	assert_int_equal(res.skipped_spy, 1);
	/* The natural bottom is the right edge, where the bar is. */
	assert_int_equal(hittest_touch(wl, 0, &axes, 2000, 9400, 0, &res), 0);
	assert_non_null(strstr(res.window->name, "NavigationBar0"));
	assert_true(res.x >= 2274);
	winlist_free(wl);
}

static void
test_real_honor(void **state)
{
	const struct hittest_axes axes = {0, 9791, 0, 21599};
	struct hittest_result res;
	struct winlist *wl;

	(void)state;
	wl = load_real("android14_honor_magicos.txt");
	/* The middle: past two spies and the untouchable pointer location. */
	assert_int_equal(hittest_touch(wl, 0, &axes, 4896, 10800, 0, &res), 0);
	assert_int_equal(res.how, HITTEST_REGION);
	assert_int_equal(res.index, 8);
	assert_int_equal(res.window->owner_pid, 17675);
	assert_int_equal(res.skipped_spy, 2);
	assert_int_equal(res.skipped_untouchable, 1);
	assert_int_equal(res.skipped_outside, 5);
	assert_true(fabs(res.x - 612) < 1e-9 && fabs(res.y - 1350) < 1e-9);
	/* The status bar, and the bottom gesture strip of the system. */
	expect_hit(wl, 600, 60, 0, HITTEST_REGION, "StatusBar", 3960);
	expect_hit(wl, 600, 2680, 0, HITTEST_REGION, "GestureNavBottom", 2673);
	/* Between the strip's two upper rectangles the app takes it. */
	expect_hit(wl, 600, 2600, 0, HITTEST_REGION, "honorsuite", 17675);
	expect_hit(wl, 20, 1000, 0, HITTEST_REGION, "GestureNavLeft", 2673);
	expect_hit(wl, 600, 2680, HITTEST_SKIP_TRUSTED, HITTEST_REGION,
		   "honorsuite", 17675);
	winlist_free(wl);
}

static void
test_no_viewport(void **state)
{
	static const char text[] =
		"Input Dispatcher State:\n  Display: 4\n"
		"    logicalSize=100x200\n    Windows:\n"
		"      0: name=w, id=1, displayId=4, inputConfig=0x0, alpha=1, "
		"frame=[0,0][100,200], touchableRegion=[0,100][100,200], "
		"ownerPid=9, ownerUid=10009\n";
	const struct hittest_axes axes = {0, 999, 0, 1999};
	struct hittest_result res;
	struct winlist *wl;

	(void)state;
	assert_int_equal(winlist_parse(text, sizeof(text) - 1, &wl), 0);
	assert_int_equal(hittest_touch(wl, 4, &axes, 500, 1500, 0, &res), 0);
	assert_int_equal(res.map, HITTEST_MAP_LOGICAL);
	assert_int_equal(res.how, HITTEST_REGION);
	assert_int_equal(res.window->owner_pid, 9);
	assert_int_equal(hittest_touch(wl, 4, &axes, 500, 500, 0, &res), 0);
	assert_int_equal(res.how, HITTEST_NONE);
	assert_int_equal(res.skipped_outside, 1);
	assert_int_equal(hittest_touch(wl, 5, &axes, 500, 500, 0, &res),
			 -ENOENT);
	assert_int_equal(res.how, HITTEST_NO_DISPLAY);
	assert_int_equal(hittest_find(wl, 4, NAN, 1, 0, &res), -EINVAL);
	assert_int_equal(hittest_find(wl, 4, 1, INFINITY, 0, &res), -EINVAL);
	assert_string_equal(hittest_how_name(HITTEST_REGION), "region");
	assert_string_equal(hittest_how_name(HITTEST_MODAL), "modal");
	assert_string_equal(hittest_how_name(HITTEST_NONE), "none");
	winlist_free(wl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_rotations),
		cmocka_unit_test(test_map_offset_and_scale),
		cmocka_unit_test(test_ime),
		cmocka_unit_test(test_shade),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_dialog),
		cmocka_unit_test(test_rotated_touch),
		cmocka_unit_test(test_real_honor),
		cmocka_unit_test(test_no_viewport),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
