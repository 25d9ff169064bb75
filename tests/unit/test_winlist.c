/*
 * Tests of the `dumpsys input` parser: the real captures (every window,
 * its frame, touchable region, flags and owner, against tables
 * transcribed from the files, and its viewports), the excerpts of
 * Android 9 to 15 written from the documented formats, vendor fields
 * inserted mid-line, odd names, feeding in pieces, and garbage: long
 * lines, too many windows or rectangles, random bytes.
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
#include "winlist.h"

#define REAL_DIR "../shared/fixtures/real/dumpsys-input/"
#define FIX_DIR	 "tests/fixtures/dumpsys-input/"

/* A window as the file prints it. */
struct want {
	size_t index;
	const char *name;
	int64_t id;
	int32_t display;
	const char *config; /* inputConfig=, verbatim */
	double alpha;
	struct winlist_rect frame;
	const char *region; /* touchableRegion=, verbatim */
	int32_t pid;
	int64_t uid;
};

static const struct want honor[] = {
	{0,
	 "[Gesture Monitor] swipe-up",
	 131741,
	 0,
	 "NOT_FOCUSABLE | TRUSTED_OVERLAY | SPY",
	 1.00,
	 {0, 0, 0, 0},
	 "[-12239,-26999][12240,27000]",
	 4271,
	 10106},
	{1,
	 "[Gesture Monitor] MultiWd-Gesture",
	 69,
	 0,
	 "NOT_FOCUSABLE | TRUSTED_OVERLAY | SPY",
	 1.00,
	 {0, 0, 0, 0},
	 "[-12239,-26999][12240,27000]",
	 3960,
	 10070},
	{2,
	 "3cc0ec5 PointerLocation - display 0",
	 338918,
	 0,
	 "NO_INPUT_CHANNEL | NOT_FOCUSABLE | NOT_TOUCHABLE | PREVENT_SPLITTING "
	 "| TRUSTED_OVERLAY",
	 1.00,
	 {0, 0, 1224, 2700},
	 "<empty>",
	 2673,
	 1000},
	{3,
	 "d928de2 GestureNavBottom",
	 338962,
	 0,
	 "NOT_FOCUSABLE | PREVENT_SPLITTING | TRUSTED_OVERLAY",
	 0.01,
	 {0, 2570, 1224, 2700},
	 "[0,2570][130,2628]|[1094,2570][1224,2628]|[0,2628][1224,2700]",
	 2673,
	 1000},
	{4,
	 "ee82583 GestureNavRight",
	 59,
	 0,
	 "NOT_FOCUSABLE | PREVENT_SPLITTING | TRUSTED_OVERLAY",
	 0.01,
	 {1175, 123, 1224, 2700},
	 "[1175,123][1224,2700]",
	 2673,
	 1000},
	{5,
	 "fb21a1b GestureNavLeft",
	 52,
	 0,
	 "NOT_FOCUSABLE | PREVENT_SPLITTING | TRUSTED_OVERLAY",
	 0.01,
	 {0, 123, 49, 2700},
	 "[0,123][49,2700]",
	 2673,
	 1000},
	{6,
	 "2698802 NavigationBar0",
	 107,
	 0,
	 "NOT_FOCUSABLE | TRUSTED_OVERLAY | SLIPPERY",
	 1.00,
	 {0, 2700, 0, 2700},
	 "<empty>",
	 3960,
	 10070},
	{7,
	 "fbfa5fe StatusBar",
	 111,
	 0,
	 "NOT_FOCUSABLE | TRUSTED_OVERLAY",
	 1.00,
	 {0, 0, 1224, 123},
	 "[0,0][1224,123]",
	 3960,
	 10070},
	{8,
	 "fa1cb8c "
	 "com.hihonor.android.honorsuite/"
	 "com.hihonor.hisuite.activity.MainActivity",
	 339021,
	 0,
	 "0x0",
	 1.00,
	 {0, 0, 1224, 2700},
	 "[0,0][1224,2700]",
	 17675,
	 10297},
	{9,
	 "44aa8e6 ActivityRecordInputSink "
	 "com.hihonor.android.honorsuite/"
	 "com.hihonor.hisuite.activity.MainActivity",
	 339018,
	 0,
	 "NO_INPUT_CHANNEL | NOT_FOCUSABLE",
	 1.00,
	 {0, 0, 0, 0},
	 "[-12239,-26999][12240,27000]",
	 2673,
	 1000},
	{10,
	 "Embedded{HnInputInterceptorWindowManager}",
	 78,
	 0,
	 "NOT_VISIBLE | PREVENT_SPLITTING",
	 1.00,
	 {49, -1118, 1175, 117},
	 "[49,-1118][1175,117]",
	 3960,
	 10070},
	{11,
	 "Wallpaper BBQ wrapper#86",
	 86,
	 0,
	 "NO_INPUT_CHANNEL | NOT_VISIBLE",
	 1.00,
	 {0, 0, 1224, 2700},
	 "<empty>",
	 3960,
	 10070},
	{12,
	 "38d7944 com.android.systemui.wallpapers.ImageWallpaper",
	 85,
	 0,
	 "NOT_VISIBLE | NOT_FOCUSABLE | NOT_TOUCHABLE | PREVENT_SPLITTING | "
	 "IS_WALLPAPER",
	 1.00,
	 {0, 0, 0, 0},
	 "<empty>",
	 3960,
	 10070},
};

static const struct want vivo[] = {
	{0,
	 "ColorFade BLAST 03-21 16:55:09.575#1166",
	 1166,
	 0,
	 "NO_INPUT_CHANNEL | NOT_TOUCHABLE | TRUSTED_OVERLAY",
	 1,
	 {0, 0, 2064, 3096},
	 "<empty>",
	 1739,
	 1000},
	{1,
	 "[Gesture Monitor] swipe-up",
	 125,
	 0,
	 "NOT_FOCUSABLE | NOT_TOUCHABLE | TRUSTED_OVERLAY | SPY | "
	 "DISPATCH_BOOST",
	 1,
	 {0, 0, 0, 0},
	 "[-20640,-30960][20640,30960]",
	 5212,
	 10091},
	{2,
	 "[Gesture Monitor] global_gesture_monitor",
	 75,
	 0,
	 "NOT_FOCUSABLE | NOT_TOUCHABLE | TRUSTED_OVERLAY | SPY",
	 1,
	 {0, 0, 0, 0},
	 "[-20640,-30960][20640,30960]",
	 4019,
	 1000},
	{3,
	 "[BBQ] FakeGestureBar 03-21 10:18:38.217#52#115",
	 115,
	 0,
	 "NO_INPUT_CHANNEL | NOT_VISIBLE | NOT_TOUCHABLE | TRUSTED_OVERLAY",
	 0,
	 {2407, 1460, 3925, 1482},
	 "<empty>",
	 1739,
	 1000},
	{4,
	 "[BBQ] FakeStatusBar 03-21 10:18:38.216#51#113",
	 113,
	 0,
	 "NO_INPUT_CHANNEL | NOT_VISIBLE | NOT_TOUCHABLE | TRUSTED_OVERLAY",
	 0.0166321,
	 {0, 0, 2064, 95},
	 "<empty>",
	 1739,
	 1000},
	{5,
	 "Window:85d61a6 type=2024 SideSlideGestureBar-Bottom",
	 108,
	 0,
	 "NOT_FOCUSABLE | NOT_TOUCHABLE | TRUSTED_OVERLAY | DISPATCH_BOOST | "
	 "IGNORE_DRAG_EVENT",
	 1,
	 {0, 3051, 2064, 3096},
	 "[0,3051][2064,3096]",
	 4019,
	 1000},
	{6,
	 "Window:1564eb2 type=2040 NotificationShade",
	 1167,
	 0,
	 "NOT_TOUCHABLE | TRUSTED_OVERLAY | WATCH_OUTSIDE_TOUCH | "
	 "DISABLE_USER_ACTIVITY | DISPATCH_BOOST",
	 1,
	 {0, 0, 2064, 3096},
	 "[-2064,-3096][4128,6192]",
	 3626,
	 10068},
	{7,
	 "10c922e SurfaceView[NotificationShade](BLAST) 03-21 "
	 "16:55:10.316#1182",
	 1182,
	 0,
	 "NO_INPUT_CHANNEL | NOT_TOUCHABLE | TRUSTED_OVERLAY",
	 1,
	 {0, 0, 2064, 3096},
	 "<empty>",
	 3626,
	 10068},
	{8,
	 "Background for 10c922e SurfaceView[NotificationShade] 03-21 "
	 "16:55:10.316#1183",
	 1183,
	 0,
	 "NO_INPUT_CHANNEL | NOT_VISIBLE | NOT_TOUCHABLE | TRUSTED_OVERLAY",
	 1,
	 {0, 0, 0, 0},
	 "<empty>",
	 3626,
	 10068},
	{9,
	 "Window:f1ff0f1 type=2000 StatusBar",
	 94,
	 0,
	 "NOT_FOCUSABLE | NOT_TOUCHABLE | TRUSTED_OVERLAY | DISPATCH_BOOST | "
	 "IGNORE_DRAG_EVENT",
	 1,
	 {0, 0, 2064, 95},
	 "[0,0][2064,95]",
	 3626,
	 10068},
	{10,
	 "recents_animation_input_consumer_0",
	 111,
	 0,
	 "NOT_VISIBLE | NOT_TOUCHABLE | TRUSTED_OVERLAY",
	 1,
	 {0, 0, 2064, 2064},
	 "[0,0][3096,2064]",
	 1739,
	 1000},
	{11,
	 "Dim layer 03-21 10:21:04.023#73",
	 73,
	 0,
	 "NO_INPUT_CHANNEL | NOT_VISIBLE | NOT_TOUCHABLE",
	 1,
	 {0, 0, 0, 0},
	 "<empty>",
	 3626,
	 10068},
	{12,
	 "Dim layer 03-21 10:21:04.011#71",
	 71,
	 0,
	 "NO_INPUT_CHANNEL | NOT_VISIBLE | NOT_TOUCHABLE",
	 1,
	 {0, 0, 0, 0},
	 "<empty>",
	 3626,
	 10068},
	{13,
	 "Wallpaper BBQ wrapper 03-21 10:21:04.765#83",
	 83,
	 0,
	 "NO_INPUT_CHANNEL | NOT_VISIBLE | NOT_TOUCHABLE",
	 1,
	 {0, -516, 3096, 2580},
	 "<empty>",
	 3626,
	 10068},
	{14,
	 "Window:9ce785d type=2013 "
	 "com.android.systemui.wallpapers.ImageWallpaper",
	 82,
	 0,
	 "NOT_VISIBLE | NOT_FOCUSABLE | NOT_TOUCHABLE | IS_WALLPAPER",
	 1,
	 {0, -516, 0, -516},
	 "<empty>",
	 3626,
	 10068},
};

/* AOSP's InputConfig names and bits (InputConfig.aidl), the test's own. */
static const struct {
	const char *name;
	uint32_t bit;
} aosp_config[] = {
	{"NO_INPUT_CHANNEL", 1u << 0},
	{"NOT_VISIBLE", 1u << 1},
	{"NOT_FOCUSABLE", 1u << 2},
	{"NOT_TOUCHABLE", 1u << 3},
	{"PREVENT_SPLITTING", 1u << 4},
	{"DUPLICATE_TOUCH_TO_WALLPAPER", 1u << 5},
	{"IS_WALLPAPER", 1u << 6},
	{"PAUSE_DISPATCHING", 1u << 7},
	{"TRUSTED_OVERLAY", 1u << 8},
	{"WATCH_OUTSIDE_TOUCH", 1u << 9},
	{"SLIPPERY", 1u << 10},
	{"DISABLE_USER_ACTIVITY", 1u << 11},
	{"DROP_INPUT", 1u << 12},
	{"DROP_INPUT_IF_OBSCURED", 1u << 13},
	{"SPY", 1u << 14},
	{"INTERCEPTS_STYLUS", 1u << 15},
	{"CLONE", 1u << 16},
};

/* The bits of an inputConfig text, and how many names are not AOSP's. */
static uint32_t
config_bits(const char *text, uint32_t *unknown)
{
	char buf[256], *tok, *save = NULL;
	uint32_t bits = 0;
	size_t i;

	*unknown = 0;
	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, " |", &save); tok;
	     tok = strtok_r(NULL, " |", &save)) {
		if (strcmp(tok, "0x0") == 0)
			continue;
		for (i = 0; i < sizeof(aosp_config) / sizeof(*aosp_config); i++)
			if (strcmp(tok, aosp_config[i].name) == 0)
				break;
		if (i < sizeof(aosp_config) / sizeof(*aosp_config))
			bits |= aosp_config[i].bit;
		else
			(*unknown)++;
	}
	return bits;
}

/* The rectangles of a region text, "<empty>" or "[l,t][r,b]|...". */
static size_t
region_rects(const char *text, struct winlist_rect *r, size_t max)
{
	const char *p = text;
	size_t n = 0;
	int used;

	if (strcmp(text, "<empty>") == 0)
		return 0;
	while (n < max && sscanf(p, "[%d,%d][%d,%d]%n", &r[n].left, &r[n].top,
				 &r[n].right, &r[n].bottom, &used) == 4) {
		n++;
		p += used;
		if (*p != '|')
			break;
		p++;
	}
	assert_int_equal(*p, '\0');
	return n;
}

static void
expect_rect(const struct winlist_rect *got, const struct winlist_rect *want)
{
	assert_int_equal(got->left, want->left);
	assert_int_equal(got->top, want->top);
	assert_int_equal(got->right, want->right);
	assert_int_equal(got->bottom, want->bottom);
}

static void
expect_window(const struct winlist_window *w, const struct want *x)
{
	struct winlist_rect rects[WINLIST_RECTS_MAX];
	uint32_t unknown;
	size_t n, i;

	assert_string_equal(w->name, x->name);
	assert_true(w->id == x->id);
	assert_int_equal(w->display_id, x->display);
	assert_int_equal(w->config, config_bits(x->config, &unknown));
	assert_int_equal(w->vendor_flags, unknown);
	assert_true(fabs(w->alpha - x->alpha) < 1e-9);
	expect_rect(&w->frame, &x->frame);
	n = region_rects(x->region, rects, WINLIST_RECTS_MAX);
	assert_int_equal(w->n_touchable, n);
	for (i = 0; i < n; i++)
		expect_rect(&w->touchable[i], &rects[i]);
	assert_int_equal(w->owner_pid, x->pid);
	assert_true(w->owner_uid == x->uid);
	assert_true(w->fields & WINLIST_HAS_TOUCHABLE);
	assert_true(w->fields & WINLIST_HAS_PID);
	assert_true(w->fields & WINLIST_HAS_UID);
}

/* Reads path into a buffer; NULL (and the test skipped) when missing. */
static char *
slurp_or_skip(const char *path, size_t *len)
{
	if (access(path, R_OK) != 0)
		skip();
	return fixture_slurp(path, len);
}

/* Parses text whole and fed in pieces of chunk bytes; both must agree. */
static struct winlist *
parse_both(const char *text, size_t len, size_t chunk)
{
	struct winlist *a, *b;
	const struct winlist_display *da, *db;
	const struct winlist_window *wa, *wb;
	struct winlist_stats sa, sb;
	size_t i, j, k;

	assert_int_equal(winlist_parse(text, len, &a), 0);
	assert_int_equal(winlist_new(&b), 0);
	winlist_begin(b);
	for (i = 0; i < len; i += chunk)
		assert_int_equal(
			winlist_feed(b, text + i,
				     len - i < chunk ? len - i : chunk),
			0);
	assert_int_equal(winlist_end(b), 0);
	winlist_get_stats(a, &sa);
	winlist_get_stats(b, &sb);
	assert_true(sa.windows == sb.windows && sa.lines == sb.lines);
	assert_int_equal(winlist_n_displays(a), winlist_n_displays(b));
	assert_int_equal(winlist_n_viewports(a), winlist_n_viewports(b));
	for (i = 0; i < winlist_n_displays(a); i++) {
		da = winlist_display(a, i);
		db = winlist_display(b, i);
		assert_int_equal(da->n_windows, db->n_windows);
		for (j = 0; j < da->n_windows; j++) {
			wa = winlist_window(a, da, j);
			wb = winlist_window(b, db, j);
			assert_string_equal(wa->name, wb->name);
			assert_int_equal(wa->config, wb->config);
			assert_int_equal(wa->n_touchable, wb->n_touchable);
			for (k = 0; k < wa->n_touchable; k++)
				expect_rect(&wa->touchable[k],
					    &wb->touchable[k]);
		}
	}
	winlist_free(b);
	return a;
}

static void
check_real(const char *file, const struct want *want, size_t n,
	   enum winlist_format format, const struct winlist_viewport *vp,
	   int32_t lw, int32_t lh)
{
	const struct winlist_display *d;
	const struct winlist_viewport *got;
	struct winlist_stats st;
	struct winlist *wl;
	char *text;
	size_t len, i;

	text = slurp_or_skip(file, &len);
	wl = parse_both(text, len, 4093);
	assert_int_equal(winlist_n_displays(wl), 1);
	d = winlist_display(wl, 0);
	assert_int_equal(d->id, 0);
	assert_int_equal(d->logical_width, lw);
	assert_int_equal(d->logical_height, lh);
	assert_int_equal(d->n_windows, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(want[i].index, i);
		expect_window(winlist_window(wl, d, i), &want[i]);
		assert_int_equal(winlist_window(wl, d, i)->format, format);
	}
	assert_null(winlist_window(wl, d, n));
	winlist_get_stats(wl, &st);
	assert_true(st.dispatcher);
	assert_true(st.windows == n);
	assert_true(st.bad_windows == 0 && st.long_lines == 0);
	/* The reader prints one viewport several times: kept once. */
	assert_true(st.viewports_seen > 1);
	assert_int_equal(winlist_n_viewports(wl), 1);
	got = winlist_find_viewport(wl, 0);
	assert_non_null(got);
	assert_int_equal(got->display_id, vp->display_id);
	assert_int_equal(got->orientation, vp->orientation);
	expect_rect(&got->logical, &vp->logical);
	expect_rect(&got->physical, &vp->physical);
	assert_int_equal(got->device_width, vp->device_width);
	assert_int_equal(got->device_height, vp->device_height);
	assert_int_equal(got->active, vp->active);
	assert_string_equal(got->unique_id, vp->unique_id);
	assert_null(winlist_find_viewport(wl, 1));
	winlist_free(wl);
	free(text);
}

static void
test_real_honor(void **state)
{
	const struct winlist_viewport vp = {
		.display_id = 0,
		.orientation = WINLIST_ROT_0,
		.logical = {0, 0, 1224, 2700},
		.physical = {0, 0, 1224, 2700},
		.device_width = 1224,
		.device_height = 2700,
		.active = 1,
		.unique_id = "local:4630946357078489987",
	};

	(void)state;
	check_real(REAL_DIR "android14_honor_magicos.txt", honor,
		   sizeof(honor) / sizeof(*honor), WINLIST_FORMAT_14, &vp, 1224,
		   2700);
}

static void
test_real_vivo(void **state)
{
	const struct winlist_viewport vp = {
		.display_id = 0,
		.orientation = WINLIST_ROT_0,
		.logical = {0, 0, 2064, 3096},
		.physical = {0, 0, 2064, 3096},
		.device_width = 2064,
		.device_height = 3096,
		.active = 0, /* the screen is off */
		.unique_id = "local:4627039422300187648",
	};

	(void)state;
	/* "No DisplayInfo found!": no logical size. */
	check_real(REAL_DIR
		   "android16_vivo_mt6991_notificationshade_screenoff.txt",
		   vivo, sizeof(vivo) / sizeof(*vivo), WINLIST_FORMAT_14_QPR,
		   &vp, 0, 0);
}

/* A window of an excerpt, as its version's rules translate it. */
struct vwin {
	int32_t display;
	const char *name;
	uint32_t config;
	int32_t type;
	int32_t pid;
	int64_t uid;
	struct winlist_rect frame;
	size_t n_rects;
	struct winlist_rect first; /* of the touchable region */
};

struct excerpt {
	const char *file;
	enum winlist_format format;
	size_t n_displays;
	const struct vwin *w;
	size_t n;
};

#define NONE  WINLIST_TYPE_NONE
#define MODAL WINLIST_TOUCH_MODAL
#define NF    WINLIST_NOT_FOCUSABLE
#define NT    WINLIST_NOT_TOUCHABLE
#define NV    WINLIST_NOT_VISIBLE
#define TO    WINLIST_TRUSTED_OVERLAY
#define WALL  (NV | NF | NT | WINLIST_IS_WALLPAPER)

static const struct vwin a9[] = {
	{0,
	 "Window{bcd2a1e u0 StatusBar}",
	 NF | WINLIST_WATCH_OUTSIDE_TOUCH,
	 2000,
	 1322,
	 10032,
	 {0, 0, 1080, 63},
	 1,
	 {0, 0, 1080, 63}},
	{0,
	 "Window{2c7a9b0 u0 InputMethod}",
	 NF,
	 2011,
	 2590,
	 10087,
	 {0, 1356, 1080, 2220},
	 1,
	 {0, 1480, 1080, 2220}},
	{0,
	 "Window{6d0e5f1 u0 com.example.notes/com.example.notes.EditActivity}",
	 MODAL,
	 1,
	 4711,
	 10123,
	 {0, 0, 1080, 2220},
	 1,
	 {0, 0, 1080, 2220}},
	{0,
	 "Window{11aa22b u0 com.android.systemui.ImageWallpaper}",
	 WALL,
	 2013,
	 1322,
	 10032,
	 {0, 0, 1080, 2220},
	 0,
	 {0, 0, 0, 0}},
	{1,
	 "Window{77c1d2e u0 com.example.cast/"
	 "com.example.cast.PresentationActivity}",
	 WINLIST_NO_INPUT_CHANNEL,
	 1,
	 5001,
	 10140,
	 {0, 0, 1280, 720},
	 1,
	 {0, 0, 1280, 720}},
};

static const struct vwin a10[] = {
	{0,
	 "Window{9f8e7d6 u0 NavigationBar}",
	 NF | WINLIST_WATCH_OUTSIDE_TOUCH | WINLIST_SLIPPERY,
	 2019,
	 1400,
	 10045,
	 {0, 2148, 1080, 2280},
	 1,
	 {0, 2148, 1080, 2280}},
	{0,
	 "Window{5c4b3a2 u0 StatusBar}",
	 NF | WINLIST_WATCH_OUTSIDE_TOUCH,
	 2000,
	 1400,
	 10045,
	 {0, 0, 1080, 80},
	 1,
	 {0, 0, 1080, 80}},
	{0,
	 "Window{3e4f5a6 u0 com.google.android.permissioncontroller/"
	 "com.android.packageinstaller.permission.ui.GrantPermissionsActivity}",
	 MODAL,
	 1,
	 6120,
	 10061,
	 {60, 820, 1020, 1460},
	 1,
	 {60, 820, 1020, 1460}},
	{0,
	 "Window{1b2c3d4 u0 "
	 "com.example.camera/com.example.camera.CameraActivity}",
	 MODAL,
	 1,
	 5150,
	 10130,
	 {0, 0, 1080, 2280},
	 1,
	 {0, 0, 1080, 2280}},
	{0,
	 "Window{0a1b2c3 u0 com.android.systemui.ImageWallpaper}",
	 WALL,
	 2013,
	 1400,
	 10045,
	 {0, 0, 1080, 2280},
	 0,
	 {0, 0, 0, 0}},
};

static const struct vwin a11[] = {
	{0,
	 "Window{2a3b4c5 u0 DockedStackDivider}",
	 NF | WINLIST_WATCH_OUTSIDE_TOUCH,
	 2034,
	 1290,
	 10039,
	 {0, 1130, 1080, 1210},
	 1,
	 {0, 1150, 1080, 1190}},
	{0,
	 "Window{8d9e0f1 u0 com.example.mail/com.example.mail.InboxActivity}",
	 0,
	 1,
	 7001,
	 10150,
	 {0, 0, 1080, 1150},
	 1,
	 {0, 0, 1080, 1150}},
	{0,
	 "Window{6e7f8a9 u0 com.example.maps/com.example.maps.MapActivity}",
	 0,
	 1,
	 7002,
	 10151,
	 {0, 1190, 1080, 2340},
	 1,
	 {0, 1190, 1080, 2340}},
	{0,
	 "Window{3f4a5b6 u0 com.android.systemui.ImageWallpaper}",
	 WALL,
	 2013,
	 1290,
	 10039,
	 {0, 0, 1080, 2340},
	 0,
	 {0, 0, 0, 0}},
};

static const struct vwin a12[] = {
	{0,
	 "8a1b2c3 NotificationShade",
	 MODAL | TO,
	 2040,
	 1650,
	 10052,
	 {0, 0, 1080, 2400},
	 1,
	 {0, 0, 1080, 2400}},
	{0,
	 "3c4d5e6 StatusBar",
	 NF | WINLIST_WATCH_OUTSIDE_TOUCH | TO,
	 2000,
	 1650,
	 10052,
	 {0, 0, 1080, 80},
	 1,
	 {0, 0, 1080, 80}},
	{0,
	 "c4d5e6f com.example.news/com.example.news.ReaderActivity",
	 0,
	 1,
	 8100,
	 10160,
	 {0, 0, 1080, 2400},
	 1,
	 {0, 0, 1080, 2400}},
	{0,
	 "9d0e1f2 com.android.systemui.ImageWallpaper",
	 WALL | WINLIST_NO_INPUT_CHANNEL,
	 2013,
	 1650,
	 10052,
	 {0, 0, 1080, 2400},
	 0,
	 {0, 0, 0, 0}},
};

static const struct vwin a13[] = {
	{0,
	 "[Gesture Monitor] swipe-up",
	 NF | TO | WINLIST_SPY,
	 NONE,
	 2200,
	 10090,
	 {0, 0, 0, 0},
	 1,
	 {-24000, -10800, 24000, 10800}},
	{0,
	 "b1c2d3e NavigationBar0",
	 NF | TO | WINLIST_WATCH_OUTSIDE_TOUCH | WINLIST_SLIPPERY,
	 NONE,
	 1650,
	 10052,
	 {2274, 0, 2400, 1080},
	 1,
	 {2274, 0, 2400, 1080}},
	{0,
	 "e5f6a7b com.example.game/com.example.game.UnityPlayerActivity",
	 0,
	 NONE,
	 9001,
	 10170,
	 {0, 0, 2400, 1080},
	 1,
	 {0, 0, 2400, 1080}},
	{0,
	 "4d5e6f7 ActivityRecordInputSink "
	 "com.example.game/.UnityPlayerActivity",
	 WINLIST_NO_INPUT_CHANNEL | NF,
	 NONE,
	 1210,
	 1000,
	 {0, 0, 0, 0},
	 1,
	 {-24000, -10800, 24000, 10800}},
	{0,
	 "7a8b9c0 com.android.systemui.ImageWallpaper",
	 WALL | WINLIST_PREVENT_SPLITTING,
	 NONE,
	 1650,
	 10052,
	 {0, 0, 2400, 1080},
	 0,
	 {0, 0, 0, 0}},
};

static const struct vwin a14[] = {
	{0,
	 "[Gesture Monitor] swipe-up",
	 NF | TO | WINLIST_SPY,
	 NONE,
	 2810,
	 10098,
	 {0, 0, 0, 0},
	 1,
	 {-10799, -23399, 10800, 23400}},
	{0,
	 "a0b1c2d StatusBar",
	 NF | TO,
	 NONE,
	 1711,
	 10061,
	 {0, 0, 1080, 110},
	 1,
	 {0, 0, 1080, 110}},
	{0,
	 "c3d4e5f InputMethod",
	 NF | TO,
	 NONE,
	 3300,
	 10095,
	 {0, 1390, 1080, 2340},
	 1,
	 {0, 1490, 1080, 2340}},
	{0,
	 "it's PopupWindow:5e3f0a1",
	 NV | NF,
	 NONE,
	 4400,
	 10200,
	 {100, 900, 980, 1300},
	 1,
	 {100, 900, 980, 1300}},
	{0,
	 "f6a7b8c com.example.chat/com.example.chat.ConversationActivity",
	 0,
	 NONE,
	 4400,
	 10200,
	 {0, 0, 1080, 2340},
	 1,
	 {0, 0, 1080, 2340}},
	{0,
	 "0b1c2d3 com.android.systemui.wallpapers.ImageWallpaper",
	 WALL | WINLIST_PREVENT_SPLITTING,
	 NONE,
	 1711,
	 10061,
	 {0, 0, 1080, 2340},
	 0,
	 {0, 0, 0, 0}},
};

static const struct vwin a15[] = {
	{0,
	 "[Gesture Monitor] swipe-up",
	 NF | TO | WINLIST_SPY,
	 NONE,
	 2901,
	 10099,
	 {0, 0, 0, 0},
	 1,
	 {-10800, -24000, 10800, 24000}},
	{0,
	 "Screen Decor, Overlay=top (rounded, corners)",
	 NF | NT | TO,
	 NONE,
	 1702,
	 10058,
	 {0, 0, 1080, 120},
	 0,
	 {0, 0, 0, 0}},
	{0,
	 "Embedded{View root of ReusableWindowDecorViewHost#0}",
	 NF | TO,
	 NONE,
	 1702,
	 10058,
	 {0, 0, 1080, 90},
	 1,
	 {0, 0, 1080, 90}},
	{0,
	 "7c8d9e0 com.other.share/com.other.share.ShareSheetActivity",
	 0,
	 NONE,
	 5500,
	 10210,
	 {0, 1300, 1080, 2400},
	 1,
	 {0, 1300, 1080, 2400}},
	{0,
	 "4f5e6d7 com.example.photos/com.example.photos.GalleryActivity",
	 0,
	 NONE,
	 6600,
	 10220,
	 {0, 0, 1080, 2400},
	 1,
	 {0, 0, 1080, 2400}},
	{0,
	 "Window:85d61a6 type=2024 Side, Bar=x",
	 NV | NF | TO,
	 NONE,
	 1702,
	 10058,
	 {0, 2350, 1080, 2400},
	 1,
	 {0, 2350, 1080, 2400}},
	{0,
	 "1e2f3a4 com.android.systemui.wallpapers.ImageWallpaper",
	 WALL | WINLIST_PREVENT_SPLITTING,
	 NONE,
	 1702,
	 10058,
	 {0, 0, 1080, 2400},
	 0,
	 {0, 0, 0, 0}},
};

#define EXCERPT(f, fmt, nd, w)                                                 \
	{                                                                      \
		FIX_DIR f, fmt, nd, w, sizeof(w) / sizeof(*w)                  \
	}

static const struct excerpt excerpts[] = {
	EXCERPT("android9-ime.txt", WINLIST_FORMAT_9, 2, a9),
	EXCERPT("android10-dialog.txt", WINLIST_FORMAT_10, 1, a10),
	EXCERPT("android11-split.txt", WINLIST_FORMAT_11, 1, a11),
	EXCERPT("android12-shade.txt", WINLIST_FORMAT_12, 1, a12),
	EXCERPT("android13-rotated.txt", WINLIST_FORMAT_13, 1, a13),
	EXCERPT("android14-ime-vendor.txt", WINLIST_FORMAT_14, 1, a14),
	EXCERPT("android15-dialog.txt", WINLIST_FORMAT_14_QPR, 1, a15),
};

/* The leading "# " lines of text, joined by blanks, hold what. */
static void
header_says(const char *text, const char *what)
{
	char head[2048];
	size_t n = 0;
	const char *p = text;

	while (p[0] == '#' && p[1] == ' ') {
		for (p += 2; *p && *p != '\n' && n < sizeof(head) - 2; p++)
			head[n++] = *p;
		head[n++] = ' ';
		if (*p == '\n')
			p++;
	}
	head[n] = '\0';
	assert_non_null(strstr(head, what));
}

static void
test_versions(void **state)
{
	const struct winlist_display *d;
	const struct winlist_window *w;
	const struct excerpt *e;
	struct winlist *wl;
	size_t i, j, k, len, seen;
	char *text;

	(void)state;
	for (i = 0; i < sizeof(excerpts) / sizeof(*excerpts); i++) {
		e = &excerpts[i];
		text = fixture_slurp(e->file, &len);
		/* The header says where the excerpt comes from. */
		header_says(text, "written from the documented format");
		header_says(text, "not captured from");
		wl = parse_both(text, len, 7);
		assert_int_equal(winlist_n_displays(wl), e->n_displays);
		seen = 0;
		for (k = 0; k < e->n_displays; k++) {
			d = winlist_display(wl, k);
			for (j = 0; (w = winlist_window(wl, d, j)) != NULL;
			     j++) {
				const struct vwin *x = &e->w[seen++];

				assert_int_equal(d->id, x->display);
				assert_string_equal(w->name, x->name);
				assert_int_equal(w->display_id, x->display);
				assert_int_equal(w->format, e->format);
				assert_int_equal(w->config, x->config);
				assert_int_equal(w->type, x->type);
				assert_int_equal(w->owner_pid, x->pid);
				assert_true(w->owner_uid == x->uid);
				expect_rect(&w->frame, &x->frame);
				assert_int_equal(w->n_touchable, x->n_rects);
				if (x->n_rects > 0)
					expect_rect(&w->touchable[0],
						    &x->first);
				assert_int_equal(w->touchable_cut, 0);
				/* Ids came with Android 12. */
				assert_int_equal(w->id == WINLIST_ID_NONE,
						 e->format < WINLIST_FORMAT_12);
			}
		}
		assert_int_equal(seen, e->n);
		assert_non_null(winlist_find_viewport(wl, 0));
		winlist_free(wl);
		free(text);
	}
}

/* Android 12's layout flags by name, hex bits among them. */
static void
test_layout_flags(void **state)
{
	const struct winlist_window *w;
	struct winlist *wl;
	size_t len;
	char *text;

	(void)state;
	text = fixture_slurp(FIX_DIR "android12-shade.txt", &len);
	assert_int_equal(winlist_parse(text, len, &wl), 0);
	w = winlist_window(wl, winlist_find_display(wl, 0), 1);
	assert_int_equal(w->layout_flags,
			 WINLIST_LP_NOT_FOCUSABLE | WINLIST_LP_NOT_TOUCH_MODAL |
				 WINLIST_LP_WATCH_OUTSIDE_TOUCH |
				 WINLIST_LP_SPLIT_TOUCH | 0x01000000u |
				 0x80000000u);
	w = winlist_window(wl, winlist_find_display(wl, 0), 3);
	assert_int_equal(w->layout_flags,
			 0x8u | 0x10u | 0x100u | 0x200u | 0x4000u | 0x400u);
	assert_int_equal(w->vendor_flags, 0);
	winlist_free(wl);
	free(text);

	text = fixture_slurp(FIX_DIR "android9-ime.txt", &len);
	assert_int_equal(winlist_parse(text, len, &wl), 0);
	w = winlist_window(wl, winlist_find_display(wl, 0), 1);
	assert_int_equal(w->layout_flags, 0x01820108u);
	/* Three viewports: two of display 0 (one without uniqueId), one of 1.
	 */
	assert_int_equal(winlist_n_viewports(wl), 3);
	assert_string_equal(winlist_find_viewport(wl, 1)->unique_id,
			    "virtual:1");
	assert_int_equal(winlist_find_viewport(wl, 1)->device_width, 1280);
	winlist_free(wl);
	free(text);
}

static void
test_vendor_fields(void **state)
{
	const struct winlist_display *d;
	const struct winlist_window *w;
	struct winlist_stats st;
	struct winlist *wl;
	size_t len;
	char *text;

	(void)state;
	text = fixture_slurp(FIX_DIR "android14-ime-vendor.txt", &len);
	assert_int_equal(winlist_parse(text, len, &wl), 0);
	winlist_get_stats(wl, &st);
	/* samsungFlags=, pTouchableRegion=, 1HXY=, miuiFlags=. */
	assert_true(st.vendor_fields == 4);
	d = winlist_find_display(wl, 0);
	assert_int_equal(d->logical_width, 1080);
	assert_int_equal(d->logical_height, 2340);
	/* The keyboard's region is touchableRegion=, not pTouchableRegion=. */
	w = winlist_window(wl, d, 2);
	assert_int_equal(w->touchable[0].top, 1490);
	assert_int_equal(w->vendor_flags, 1); /* SEM_TOUCH_BOOST */
	/* ", ownerPid=1" inside the application name is not the owner. */
	w = winlist_window(wl, d, 4);
	assert_int_equal(w->owner_pid, 4400);
	winlist_free(wl);
	free(text);
}

/* One window line under a display, around a given name and fields. */
static struct winlist *
one_window(const char *line)
{
	char text[2048];
	struct winlist *wl;

	snprintf(text, sizeof(text),
		 "Input Dispatcher State:\n  Display: 3\n    Windows:\n"
		 "      0: %s\n  Global monitors on display 3:\n",
		 line);
	assert_int_equal(winlist_parse(text, strlen(text), &wl), 0);
	return wl;
}

static void
test_odd_names(void **state)
{
	static const struct {
		const char *line, *name;
	} cases[] = {
		{"name=a, b=c, idx=3 {x}, id=5, displayId=3, inputConfig=0x0, "
		 "alpha=1, frame=[0,0][10,10], globalScale=1, "
		 "touchableRegion=[0,0][10,10], ownerPid=7, ownerUid=10007",
		 "a, b=c, idx=3 {x}"},
		{"name=, id=-2147469398, displayId=3, inputConfig=CLONE, "
		 "alpha=1, frame=[0,0][10,10], touchableRegion=<empty>, "
		 "ownerPid=7, ownerUid=10007",
		 ""},
		{"name='quoted, id=x', id=9, displayId=3, inputConfig=0x0, "
		 "alpha=1.00, frame=[0,0][10,10], touchableRegion=<empty>, "
		 "ownerPid=7, ownerUid=10007, hasToken=true",
		 "quoted, id=x"},
		{"name='Window{1 u0 a'b}', displayId=3, paused=false, "
		 "visible=true, flags=0x00000008, type=0x000007d5, "
		 "frame=[0,0][10,10], touchableRegion=[0,0][10,10], "
		 "ownerPid=7, ownerUid=10007",
		 "Window{1 u0 a'b}"},
	};
	const struct winlist_window *w;
	struct winlist *wl;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		wl = one_window(cases[i].line);
		w = winlist_window(wl, winlist_find_display(wl, 3), 0);
		assert_non_null(w);
		assert_string_equal(w->name, cases[i].name);
		assert_int_equal(w->owner_pid, 7);
		assert_int_equal(w->display_id, 3);
		winlist_free(wl);
	}
	wl = one_window(cases[1].line);
	w = winlist_window(wl, winlist_find_display(wl, 3), 0);
	assert_true(w->id == -2147469398LL);
	assert_int_equal(w->config, WINLIST_CLONE);
	winlist_free(wl);
}

/* What is no window: touched windows, the ANR copy, other sections. */
static void
test_not_windows(void **state)
{
	static const char text[] =
		"Input Dispatcher State:\n"
		"  TouchStatesByDisplay:\n"
		"    0: down=true, split=true, deviceId=3, source=0x00001002\n"
		"      Windows:\n"
		"        0: name='a', pointerIds=0x1, targetFlags=0x105\n"
		"  Display: 0\n"
		"    Windows:\n"
		"      0: name='b', id=1, displayId=0, inputConfig=0x0, "
		"alpha=1.00, frame=[0,0][5,5], touchableRegion=[0,0][5,5], "
		"ownerPid=1, ownerUid=2, hasToken=true\n"
		"\n"
		"Input Dispatcher State at time of last ANR:\n"
		"  Display: 0\n"
		"    Windows:\n"
		"      0: name='old', id=2, displayId=0, inputConfig=0x0, "
		"alpha=1.00, frame=[0,0][5,5], touchableRegion=[0,0][5,5], "
		"ownerPid=1, ownerUid=2, hasToken=true\n"
		"Input Manager Service (Java) State:\n"
		"  Gesture Monitors (implemented as spy windows):\n"
		"    Windows:\n"
		"    0: name='[Gesture Monitor] x', frame=[0,0][1,1], "
		"displayId=0\n";
	const struct winlist_display *d;
	struct winlist *wl;

	(void)state;
	assert_int_equal(winlist_parse(text, sizeof(text) - 1, &wl), 0);
	assert_int_equal(winlist_n_displays(wl), 1);
	d = winlist_display(wl, 0);
	assert_int_equal(d->n_windows, 1);
	assert_string_equal(winlist_window(wl, d, 0)->name, "b");
	winlist_free(wl);
	/* Nothing at all, and no dispatcher. */
	assert_int_equal(winlist_parse(NULL, 0, &wl), 0);
	assert_int_equal(winlist_n_displays(wl), 0);
	assert_null(winlist_find_display(wl, 0));
	assert_null(winlist_find_viewport(wl, 0));
	winlist_free(wl);
}

/* Grows buf by the text fmt makes. */
static void
append(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);

	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = realloc(*buf, *cap);
		assert_non_null(*buf);
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

static void
test_limits(void **state)
{
	const struct winlist_display *d;
	const struct winlist_window *w;
	struct winlist_stats st;
	struct winlist *wl;
	char *buf = NULL, line[256];
	size_t len = 0, cap = 0, i;

	(void)state;
	append(&buf, &len, &cap,
	       "Input Dispatcher State:\n  Display: 0\n"
	       "    Windows:\n");
	/* A region of 100 rectangles: 64 kept, cut. */
	append(&buf, &len, &cap,
	       "      0: name=r, id=1, displayId=0, inputConfig=0x0, "
	       "frame=[0,0][1000,1000], touchableRegion=");
	for (i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "%s[%zu,0][%zu,10]", i ? "|" : "",
			 i * 10, i * 10 + 10);
		append(&buf, &len, &cap, line);
	}
	append(&buf, &len, &cap, ", ownerPid=1, ownerUid=1\n");
	/* A line far over the limit: cut and counted, the parse goes on. */
	append(&buf, &len, &cap, "      1: name=long");
	for (i = 0; i < WINLIST_LINE_MAX / 8 + 10; i++)
		append(&buf, &len, &cap, "xxxxxxxx");
	append(&buf, &len, &cap, ", id=2, frame=[0,0][1,1]\n");
	/* More windows than a list may hold, over several displays. */
	for (i = 0; i < WINLIST_WINDOWS_MAX + 50; i++) {
		snprintf(line, sizeof(line),
			 "      %zu: name=w%zu, id=%zu, displayId=%zu, "
			 "inputConfig=0x0, frame=[0,0][1,1], "
			 "touchableRegion=[0,0][1,1], ownerPid=1, ownerUid=1\n",
			 i + 2, i, i + 3, i % 40);
		append(&buf, &len, &cap, line);
	}
	assert_int_equal(winlist_parse(buf, len, &wl), 0);
	winlist_get_stats(wl, &st);
	assert_true(st.long_lines == 1);
	assert_int_equal(winlist_n_displays(wl), WINLIST_DISPLAYS_MAX);
	assert_true(st.windows <= WINLIST_WINDOWS_MAX);
	assert_true(st.dropped > 0);
	d = winlist_find_display(wl, 0);
	w = winlist_window(wl, d, 0);
	assert_string_equal(w->name, "r");
	assert_int_equal(w->n_touchable, WINLIST_RECTS_MAX);
	assert_int_equal(w->touchable_cut, 1);
	assert_int_equal(w->touchable[63].left, 630);
	/* The cut line lost its name's end: no ", id=" was left to find. */
	assert_string_equal(winlist_window(wl, d, 1)->name, "w0");
	winlist_free(wl);
	free(buf);
}

/* Random bytes and mutations of a real capture: no crash, sane results. */
static void
test_garbage(void **state)
{
	const struct winlist_display *d;
	const struct winlist_window *w;
	struct winlist *wl;
	char *text, *copy;
	size_t len, i, j, k;
	unsigned seed = 12;
	int rounds = fixture_rounds(200, 20);

	(void)state;
	text = fixture_slurp(FIX_DIR "android15-dialog.txt", &len);
	copy = malloc(len);
	assert_non_null(copy);
	for (i = 0; i < (size_t)rounds; i++) {
		memcpy(copy, text, len);
		for (j = 0; j < 1 + i % 40; j++) {
			seed = seed * 1103515245u + 12345u;
			k = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			if (i % 3 == 0)
				copy[k] = (char)((seed >> 16) & 0xff);
			else
				copy[k] = ",=[]|'\n 0-x"[(seed >> 16) % 12];
		}
		assert_int_equal(winlist_parse(copy, len, &wl), 0);
		for (j = 0; j < winlist_n_displays(wl); j++) {
			d = winlist_display(wl, j);
			for (k = 0; (w = winlist_window(wl, d, k)); k++) {
				assert_true(strlen(w->name) <=
					    WINLIST_NAME_MAX);
				assert_true(w->n_touchable <=
					    WINLIST_RECTS_MAX);
				assert_true(w->n_touchable == 0 ||
					    w->touchable != NULL);
			}
		}
		winlist_free(wl);
	}
	free(copy);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_honor),
		cmocka_unit_test(test_real_vivo),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_layout_flags),
		cmocka_unit_test(test_vendor_fields),
		cmocka_unit_test(test_odd_names),
		cmocka_unit_test(test_not_windows),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
