/*
 * Tests of the getevent log reader over the real captures and the
 * hand-written logs in tests/fixtures/getevent/, and logs built in memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "input_getevent.h"
#include "input_getevent_int.h"
#include "input_getevent_line.h"
#include "log.h"

#define LOCAL_DIR "tests/fixtures/getevent/"

/* The reader's own limits, restated: the tests check them from outside. */
#define FILE_MAX ((size_t)1 << 30)
#define LINE_MAX 4096

#define EVENTS_MAX 256

struct events {
	struct touch_event ev[EVENTS_MAX];
	size_t n;
	struct input_getevent_stats st;
};

/* Reads every event of g into *out, failing the test beyond EVENTS_MAX. */
static void
drain(struct input_getevent *g, struct events *out)
{
	struct touch_event ev;

	out->n = 0;
	while (input_getevent_next(g, &ev) == 1) {
		assert_true(out->n < EVENTS_MAX);
		out->ev[out->n++] = ev;
	}
	/* The end stays the end. */
	assert_int_equal(input_getevent_next(g, &ev), 0);
	input_getevent_get_stats(g, &out->st);
	assert_int_equal(out->st.events, out->n);
}

static int
open_mem(const char *text, const char *device, struct events *out)
{
	struct input_getevent *g = NULL;
	int r;

	r = input_getevent_open_mem(text, strlen(text), "test", device, &g);
	if (r == 0) {
		drain(g, out);
		input_getevent_free(g);
	} else {
		assert_null(g);
	}
	return r;
}

static void
expect_event(const struct touch_event *ev, int64_t t, uint16_t type,
	     uint16_t code, int32_t value)
{
	assert_int_equal(ev->time_ns, t);
	assert_int_equal(ev->type, type);
	assert_int_equal(ev->code, code);
	assert_int_equal(ev->value, value);
}

static void
test_emulator_tap(void **state)
{
	struct input_getevent *g = NULL;
	struct events e;
	struct input_getevent_axis ax;
	const int64_t t0 = 42407808000LL, t1 = 42453256000LL;

	(void)state;
	assert_int_equal(input_getevent_open(LOCAL_DIR "emulator-tap.getevent",
					     NULL, &g),
			 0);
	assert_non_null(g);
	assert_string_equal(input_getevent_device(g), "");
	assert_null(input_getevent_device_name(g));
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_POSITION_X, &ax),
			 -ENOENT);
	drain(g, &e);
	input_getevent_free(g);

	assert_int_equal(e.n, 9);
	expect_event(&e.ev[0], t0, EV_ABS, ABS_MT_TRACKING_ID, 0);
	expect_event(&e.ev[1], t0, EV_ABS, ABS_MT_TOUCH_MAJOR, 4);
	expect_event(&e.ev[2], t0, EV_ABS, ABS_MT_PRESSURE, 0x81);
	expect_event(&e.ev[3], t0, EV_ABS, ABS_MT_POSITION_X, 0x4289);
	expect_event(&e.ev[4], t0, EV_ABS, ABS_MT_POSITION_Y, 0x7758);
	expect_event(&e.ev[5], t0, EV_SYN, SYN_REPORT, 0);
	expect_event(&e.ev[6], t1, EV_ABS, ABS_MT_PRESSURE, 0);
	expect_event(&e.ev[7], t1, EV_ABS, ABS_MT_TRACKING_ID, -1);
	expect_event(&e.ev[8], t1, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.lines, 9);
	assert_int_equal(e.st.skipped, 0);
	assert_int_equal(e.st.other_events, 0);
	assert_int_equal(e.st.devices, 1);
	assert_int_equal(e.st.backwards, 0);
}

static void
test_phone_touch_down(void **state)
{
	struct input_getevent *g = NULL;
	struct events e;
	const int64_t t = 2311461360000LL;

	(void)state;
	assert_int_equal(input_getevent_open(LOCAL_DIR
					     "phone-touch-down.getevent",
					     NULL, &g),
			 0);
	drain(g, &e);
	input_getevent_free(g);

	assert_int_equal(e.n, 8);
	expect_event(&e.ev[0], t, EV_ABS, ABS_MT_TOUCH_MAJOR, 0xf);
	expect_event(&e.ev[1], t, EV_ABS, ABS_MT_WIDTH_MAJOR, 0xf);
	expect_event(&e.ev[3], t, EV_ABS, ABS_MT_POSITION_X, 319);
	expect_event(&e.ev[4], t, EV_ABS, ABS_MT_POSITION_Y, 998);
	expect_event(&e.ev[5], t, EV_ABS, ABS_MT_TRACKING_ID, 0x26);
	expect_event(&e.ev[6], t, EV_KEY, BTN_TOUCH, 1);
	expect_event(&e.ev[7], t, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.skipped, 0);
}

static void
test_no_timestamps(void **state)
{
	struct input_getevent *g = NULL;
	size_t len;
	char *buf;

	(void)state;
	assert_int_equal(input_getevent_open(LOCAL_DIR
					     "phone-no-timestamps.getevent",
					     NULL, &g),
			 -EINVAL);
	assert_null(g);
	/* Naming the device it does hold changes nothing. */
	assert_int_equal(input_getevent_open(LOCAL_DIR
					     "phone-no-timestamps.getevent",
					     "/dev/input/event3", &g),
			 -EINVAL);
	assert_null(g);

	/* The same from memory, and without the device prefixes. */
	buf = fixture_slurp(LOCAL_DIR "phone-no-timestamps.getevent", &len);
	assert_int_equal(input_getevent_open_mem(buf, len, "x", NULL, &g),
			 -EINVAL);
	free(buf);
	assert_int_equal(input_getevent_open_mem("0003 0039 00000001\n"
						 "0000 0000 00000000\n",
						 38, "x", NULL, &g),
			 -EINVAL);
	assert_null(g);
}

static void
test_hex_form(void **state)
{
	struct input_getevent *g = NULL;
	struct events e;
	const int64_t t0 = 1564568377000LL, t1 = 1564651022000LL;

	(void)state;
	assert_int_equal(
		input_getevent_open(LOCAL_DIR "hex-tap.getevent", NULL, &g), 0);
	drain(g, &e);
	input_getevent_free(g);

	assert_int_equal(e.n, 11);
	expect_event(&e.ev[0], t0, EV_ABS, ABS_MT_TRACKING_ID, 0x26);
	expect_event(&e.ev[4], t0, EV_ABS, ABS_MT_POSITION_X, 0x16d);
	expect_event(&e.ev[5], t0, EV_ABS, ABS_MT_POSITION_Y, 0x459);
	expect_event(&e.ev[6], t0, EV_KEY, BTN_TOUCH, 1);
	expect_event(&e.ev[7], t0, EV_SYN, SYN_REPORT, 0);
	expect_event(&e.ev[8], t1, EV_ABS, ABS_MT_TRACKING_ID, -1);
	expect_event(&e.ev[9], t1, EV_KEY, BTN_TOUCH, 0);
	expect_event(&e.ev[10], t1, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.skipped, 0);
}

static void
test_two_devices(void **state)
{
	const char *path = LOCAL_DIR "two-devices.getevent";
	struct input_getevent *g = NULL;
	struct events e;
	size_t i;

	(void)state;
	/* Left to itself the reader takes the touch screen. */
	assert_int_equal(input_getevent_open(path, NULL, &g), 0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event3");
	assert_string_equal(input_getevent_device_name(g), "fts_ts");
	drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 9);
	for (i = 0; i < e.n; i++)
		assert_int_not_equal(e.ev[i].code, KEY_POWER);
	expect_event(&e.ev[0], 20513100200000LL, EV_ABS, ABS_MT_TRACKING_ID,
		     0x2ae);
	expect_event(&e.ev[6], 20513180017000LL, EV_ABS, ABS_MT_TRACKING_ID,
		     -1);
	expect_event(&e.ev[7], 20513180017000LL, EV_KEY, BTN_TOUCH, 0);
	assert_int_equal(e.st.other_events, 4);
	assert_int_equal(e.st.devices, 2);
	assert_int_equal(e.st.lines, 17);
	assert_int_equal(e.st.skipped, 0);

	/* Named, the key device is replayed instead. */
	assert_int_equal(input_getevent_open(path, "/dev/input/event1", &g), 0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event1");
	assert_string_equal(input_getevent_device_name(g), "gpio-keys");
	drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 4);
	expect_event(&e.ev[0], 20512334001000LL, EV_KEY, KEY_POWER, 1);
	expect_event(&e.ev[1], 20512334001000LL, EV_SYN, SYN_REPORT, 0);
	expect_event(&e.ev[2], 20513161433000LL, EV_KEY, KEY_POWER, 0);
	assert_int_equal(e.st.other_events, 9);

	/* A device the log does not hold is refused. */
	g = NULL;
	assert_int_equal(input_getevent_open(path, "/dev/input/event9", &g),
			 -ENODEV);
	assert_null(g);
	assert_int_equal(input_getevent_open(path, "/dev/input/event", &g),
			 -ENODEV);
	assert_int_equal(input_getevent_open(path, "", &g), -ENODEV);
}

static void
test_possible_events(void **state)
{
	const char *path = LOCAL_DIR "possible-events.getevent";
	struct input_getevent *g = NULL;
	struct input_getevent_axis ax;
	struct events e;

	(void)state;
	assert_int_equal(input_getevent_open(path, NULL, &g), 0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event2");
	assert_string_equal(input_getevent_device_name(g), "himax-touchscreen");
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_POSITION_X, &ax), 0);
	assert_int_equal(ax.min, 0);
	assert_int_equal(ax.max, 719);
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_POSITION_Y, &ax), 0);
	assert_int_equal(ax.max, 1599);
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_SLOT, &ax), 0);
	assert_int_equal(ax.max, 9);
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_TRACKING_ID, &ax),
			 0);
	assert_int_equal(ax.max, 65535);
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_TOOL_TYPE, &ax),
			 -ENOENT);
	assert_int_equal(input_getevent_get_axis(g, ABS_X, &ax), -ENOENT);
	assert_int_equal(input_getevent_get_axis(g, 0xffff, &ax), -ENOENT);
	drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 8);
	expect_event(&e.ev[6], 2311461360000LL, EV_KEY, BTN_TOUCH, 1);
	/* Every header line, -i details included, is understood. */
	assert_int_equal(e.st.skipped, 0);
	assert_int_equal(e.st.devices, 2);
	assert_int_equal(e.st.lines, 39);

	/* The labelled -lp block of the other device. */
	assert_int_equal(input_getevent_open(path, "/dev/input/event5", &g), 0);
	assert_string_equal(input_getevent_device_name(g), "fts_ts");
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_POSITION_X, &ax), 0);
	assert_int_equal(ax.min, 0);
	assert_int_equal(ax.max, 1079);
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_POSITION_Y, &ax), 0);
	assert_int_equal(ax.max, 2399);
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_TOUCH_MAJOR, &ax),
			 0);
	assert_int_equal(ax.max, 255);
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_PRESSURE, &ax),
			 -ENOENT);
	drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.st.other_events, 8);
}

/*
 * `getevent -p DEV` then `getevent -lt DEV`: one header, events without
 * prefixes.  They are one device, with the header's path and ranges.
 */
static void
test_header_then_unprefixed(void **state)
{
	static const char log[] =
		"add device 1: /dev/input/event2\n"
		"  name:     \"himax-touchscreen\"\n"
		"  events:\n"
		"    ABS (0003): 0035  : value 0, min -5, max 719, fuzz 0, "
		"flat 0, resolution 0\n"
		"                0036  : value 0, min 0, max 1599, fuzz 0, "
		"flat 0, resolution 0\n"
		"[       1.000001] EV_ABS       ABS_MT_TRACKING_ID   00000001\n"
		"[       1.000001] EV_SYN       SYN_REPORT           "
		"00000000\n";
	struct input_getevent *g = NULL;
	struct input_getevent_axis ax;
	struct events e;

	(void)state;
	assert_int_equal(
		input_getevent_open_mem(log, sizeof(log) - 1, "t", NULL, &g),
		0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event2");
	assert_string_equal(input_getevent_device_name(g), "himax-touchscreen");
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_POSITION_X, &ax), 0);
	assert_int_equal(ax.min, -5);
	assert_int_equal(ax.max, 719);
	drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 2);
	assert_int_equal(e.st.devices, 1);

	assert_int_equal(open_mem(log, "/dev/input/event2", &e), 0);
	assert_int_equal(e.n, 2);
	expect_event(&e.ev[0], 1000001000LL, EV_ABS, ABS_MT_TRACKING_ID, 1);
}

/* A log without prefixes names no device, so naming one fails. */
static void
test_unprefixed_named_device(void **state)
{
	struct input_getevent *g = NULL;
	int r;

	(void)state;
	r = input_getevent_open(LOCAL_DIR "emulator-tap.getevent",
				"/dev/input/event1", &g);
	assert_int_equal(r, -ENODEV);
	assert_null(g);
}

static void
test_crlf(void **state)
{
	struct input_getevent *g = NULL;
	struct events lf, crlf;
	char *buf, *dos;
	size_t len, i, n = 0;

	(void)state;
	buf = fixture_slurp(LOCAL_DIR "emulator-tap.getevent", &len);
	dos = malloc(2 * len);
	assert_non_null(dos);
	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			dos[n++] = '\r';
		dos[n++] = buf[i];
	}
	assert_int_equal(input_getevent_open_mem(buf, len, "lf", NULL, &g), 0);
	drain(g, &lf);
	input_getevent_free(g);
	assert_int_equal(input_getevent_open_mem(dos, n, "crlf", NULL, &g), 0);
	drain(g, &crlf);
	input_getevent_free(g);
	free(buf);
	free(dos);

	assert_int_equal(crlf.n, 9);
	assert_int_equal(crlf.n, lf.n);
	assert_memory_equal(crlf.ev, lf.ev, lf.n * sizeof(lf.ev[0]));
	assert_int_equal(crlf.st.lines, 9);
	assert_int_equal(crlf.st.skipped, 0);
}

static void
test_rate_suffix(void **state)
{
	static const char log[] =
		"[    2311.461360] EV_ABS       ABS_MT_TRACKING_ID   00000026"
		"            \n"
		"[    2311.461360] EV_SYN       SYN_REPORT           00000000"
		"             rate 0\n"
		"[    2311.469760] EV_ABS       ABS_MT_POSITION_X    00000140"
		"            \n"
		"[    2311.469760] EV_SYN       SYN_REPORT           00000000"
		"             rate 119  \n"
		/* getevent divides by a zero interval as readily. */
		"[    2311.469760] EV_SYN       SYN_REPORT           00000000"
		"             rate -1\n"
		/* A rate is written after SYN_REPORT only. */
		"[    2311.469760] EV_ABS       ABS_MT_POSITION_Y    00000140"
		"             rate 119\n"
		"[    2311.469760] EV_SYN       SYN_REPORT           00000000"
		"             rate\n"
		"[    2311.469760] EV_SYN       SYN_REPORT           00000000"
		"             rate 12x\n"
		"[    2311.469760] 0000 0000 00000000 rate 119\n";
	struct events e;

	(void)state;
	assert_int_equal(open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 6);
	expect_event(&e.ev[1], 2311461360000LL, EV_SYN, SYN_REPORT, 0);
	expect_event(&e.ev[2], 2311469760000LL, EV_ABS, ABS_MT_POSITION_X,
		     0x140);
	expect_event(&e.ev[3], 2311469760000LL, EV_SYN, SYN_REPORT, 0);
	expect_event(&e.ev[5], 2311469760000LL, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.skipped, 3);
	assert_int_equal(e.st.lines, 9);
}

static void
test_labels_and_values(void **state)
{
	static const char log[] =
		"[       5.000000] EV_ABS       ABS_MT_SLOT          00000001\n"
		"[       5.000000] EV_ABS       ABS_MT_TOOL_TYPE     "
		"MT_TOOL_PEN\n"
		"[       5.000000] EV_ABS       ABS_MT_TOOL_TYPE     "
		"MT_TOOL_PALM\n"
		"[       5.000000] EV_ABS       ABS_X                0000000a\n"
		"[       5.000000] EV_ABS       ABS_PRESSURE         7fffffff\n"
		"[       5.000000] EV_ABS       ABS_MT_ORIENTATION   80000000\n"
		"[       5.000000] EV_KEY       BTN_TOOL_FINGER      REPEAT\n"
		"[       5.000000] EV_KEY       014a                 DOWN\n"
		"[       5.000000] 0003         ABS_MT_POSITION_Y    00000002\n"
		"[       5.000000] EV_MSC       MSC_TIMESTAMP        00002710\n"
		"[       5.000000] EV_SYN       SYN_MT_REPORT        00000000\n"
		"[       5.000000] EV_SYN       SYN_DROPPED          00000000\n"
		"[       5.000000] 0000         0000                 00000000\n"
		"[       6.5]\n";
	struct events e;

	(void)state;
	assert_int_equal(open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 13);
	expect_event(&e.ev[0], 5000000000LL, EV_ABS, ABS_MT_SLOT, 1);
	expect_event(&e.ev[1], 5000000000LL, EV_ABS, ABS_MT_TOOL_TYPE,
		     MT_TOOL_PEN);
	expect_event(&e.ev[2], 5000000000LL, EV_ABS, ABS_MT_TOOL_TYPE,
		     MT_TOOL_PALM);
	expect_event(&e.ev[3], 5000000000LL, EV_ABS, ABS_X, 10);
	expect_event(&e.ev[4], 5000000000LL, EV_ABS, ABS_PRESSURE, INT32_MAX);
	expect_event(&e.ev[5], 5000000000LL, EV_ABS, ABS_MT_ORIENTATION,
		     INT32_MIN);
	expect_event(&e.ev[6], 5000000000LL, EV_KEY, BTN_TOOL_FINGER, 2);
	expect_event(&e.ev[7], 5000000000LL, EV_KEY, BTN_TOUCH, 1);
	expect_event(&e.ev[8], 5000000000LL, EV_ABS, ABS_MT_POSITION_Y, 2);
	expect_event(&e.ev[9], 5000000000LL, EV_MSC, MSC_TIMESTAMP, 10000);
	expect_event(&e.ev[10], 5000000000LL, EV_SYN, SYN_MT_REPORT, 0);
	expect_event(&e.ev[11], 5000000000LL, EV_SYN, SYN_DROPPED, 0);
	expect_event(&e.ev[12], 5000000000LL, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.skipped, 1);
}

static void
test_garbage(void **state)
{
	static const char log[] =
		"could not open /dev/input/event9, Permission denied\n"
		"[      42.407808] EV_ABS       ABS_MT_TRACKING_ID   00000000\n"
		/* An unknown key must not take the frame down with it. */
		"[      42.407808] EV_KEY       KEY_NO_SUCH_KEY      DOWN\n"
		"[      42.407808] EV_FOO       SYN_REPORT           00000000\n"
		"[      42.407808] EV_ABS       ABS_MT_POSITION_X    0000zz89\n"
		"[      42.407808] EV_ABS       ABS_MT_POSITION_X    "
		"000004289\n"
		"[      42.407808] EV_ABS       ABS_MT_POSITION_X    0x4289\n"
		"[      42.407808] EV_ABS       ABS_MT_POSITION_X    -0004289\n"
		"[      42.407808] EV_ABS       ABS_MT_POSITION_X\n"
		"[      42.407808] EV_ABS       ABS_MT_POSITION_X    1 2\n"
		"[      42.407808] EV_ABS       ABS_MT_POSITION_X    UP\n"
		"[      42.407808] EV_ABS       ABS_MT_POSITION_X    DOWN\n"
		"[      42.407808] 00003 0035 00000001\n"
		"[      42.407808] EV_SYN       SYN_REPORT           00000000\n"
		"[\n"
		"[]\n"
		"]]]] EV_SYN SYN_REPORT 00000000\n"
		"\t \t\n"
		"  name:     \"orphan\"\n"
		"    INPUT_PROP_DIRECT\n"
		"add device x: /dev/input/event1\n"
		"add device 1\n"
		"remove device 1: /dev/input/event1\n"
		"[      42.453256] EV_SYN       SYN_REPORT           "
		"00000000\n";
	struct events e;

	(void)state;
	assert_int_equal(open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 3);
	expect_event(&e.ev[0], 42407808000LL, EV_ABS, ABS_MT_TRACKING_ID, 0);
	expect_event(&e.ev[1], 42407808000LL, EV_SYN, SYN_REPORT, 0);
	expect_event(&e.ev[2], 42453256000LL, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.lines, 24);
	/* All but the 3 events, the blank line and "remove device". */
	assert_int_equal(e.st.skipped, 19);
	assert_int_equal(e.st.unknown, 2);
	assert_int_equal(e.st.untimed, 0);
}

static void
test_empty(void **state)
{
	struct input_getevent *g = NULL;
	struct events e;

	(void)state;
	assert_int_equal(input_getevent_open_mem(NULL, 0, "empty", NULL, &g),
			 0);
	assert_string_equal(input_getevent_device(g), "");
	assert_null(input_getevent_device_name(g));
	drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.st.lines, 0);
	assert_int_equal(e.st.devices, 0);

	assert_int_equal(open_mem("\n\r\n   \n", NULL, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.st.lines, 3);
	assert_int_equal(e.st.skipped, 0);

	/* Headers without events: nothing to replay, nothing wrong. */
	assert_int_equal(open_mem("add device 1: /dev/input/event0\n"
				  "  name:     \"qpnp_pon\"\n",
				  NULL, &e),
			 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.st.devices, 1);

	/* Only garbage: also empty. */
	assert_int_equal(open_mem("hello\nworld", NULL, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.st.skipped, 2);
}

static void
test_truncated(void **state)
{
	struct events e;
	size_t len, cut;
	char *buf;

	(void)state;
	buf = fixture_slurp(LOCAL_DIR "emulator-tap.getevent", &len);
	/* No newline after the last line. */
	assert_true(len > 0 && buf[len - 1] == '\n');
	buf[len - 1] = '\0';
	assert_int_equal(open_mem(buf, NULL, &e), 0);
	assert_int_equal(e.n, 9);
	expect_event(&e.ev[8], 42453256000LL, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.lines, 9);
	assert_int_equal(e.st.skipped, 0);

	/* Cut inside the last line's value: that line is lost, only it. */
	cut = (size_t)(strrchr(buf, '\n') - buf) + 50;
	buf[cut] = '\0';
	assert_int_equal(open_mem(buf, NULL, &e), 0);
	assert_int_equal(e.n, 8);
	assert_int_equal(e.st.skipped, 1);

	/* Cut inside the stamp. */
	cut = (size_t)(strrchr(buf, '\n') - buf) + 8;
	buf[cut] = '\0';
	assert_int_equal(open_mem(buf, NULL, &e), 0);
	assert_int_equal(e.n, 8);
	assert_int_equal(e.st.skipped, 1);
	free(buf);
}

static void
test_untimed_in_timed_log(void **state)
{
	static const char log[] =
		"[       1.000000] EV_ABS       ABS_MT_TRACKING_ID   00000001\n"
		"EV_ABS       ABS_MT_POSITION_X    00000010\n"
		"0003 0036 00000020\n"
		"[       1.000000] EV_SYN       SYN_REPORT           "
		"00000000\n";
	struct events e;

	(void)state;
	assert_int_equal(open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 2);
	assert_int_equal(e.st.skipped, 2);
	assert_int_equal(e.st.untimed, 2);
}

static void
test_backwards(void **state)
{
	static const char log[] =
		"[       2.000000] EV_ABS       ABS_MT_TRACKING_ID   00000001\n"
		"[       2.000000] EV_SYN       SYN_REPORT           00000000\n"
		"[       1.999999] EV_ABS       ABS_MT_TRACKING_ID   ffffffff\n"
		"[       1.999999] EV_SYN       SYN_REPORT           00000000\n"
		"[       3.000000] EV_SYN       SYN_REPORT           00000000\n"
		"[       0.000000] EV_SYN       SYN_REPORT           "
		"00000000\n";
	struct input_getevent *g = NULL;
	struct input_getevent_jump j;
	struct touch_event ev;
	struct events e;

	(void)state;
	assert_int_equal(open_mem(log, NULL, &e), 0);
	/* The events end before the first one that goes back. */
	assert_int_equal(e.n, 2);
	assert_int_equal(e.ev[1].time_ns, 2000000000LL);
	assert_int_equal(e.st.backwards, 2);
	assert_int_equal(e.st.other_events, 0);

	assert_int_equal(
		input_getevent_open_mem(log, strlen(log), "test", NULL, &g), 0);
	assert_int_equal(input_getevent_next(g, &ev), 1);
	assert_int_equal(input_getevent_next(g, &ev), 1);
	assert_int_equal(input_getevent_next(g, &ev), -ERANGE);
	assert_int_equal(input_getevent_next(g, &ev), 0);
	assert_int_equal(input_getevent_get_jump(g, &j), 0);
	assert_int_equal(j.line, 3);
	assert_int_equal(j.from_ns, 2000000000LL);
	assert_int_equal(j.to_ns, 1999999000LL);
	input_getevent_free(g);
}

/* Equal times are not a jump, and other devices' clocks are their own. */
static void
test_backwards_other_device(void **state)
{
	static const char log[] =
		"[       5.000000] /dev/input/event2: EV_ABS "
		"ABS_MT_TRACKING_ID "
		"00000001\n"
		"[       5.000000] /dev/input/event2: EV_SYN SYN_REPORT "
		"00000000\n"
		"[       4.000000] /dev/input/event0: EV_KEY KEY_POWER "
		"00000001\n"
		"[       3.000000] /dev/input/event0: EV_SYN SYN_REPORT "
		"00000000\n"
		"[       5.000000] /dev/input/event2: EV_ABS "
		"ABS_MT_TRACKING_ID "
		"ffffffff\n"
		"[       5.000001] /dev/input/event2: EV_SYN SYN_REPORT "
		"00000000\n";
	struct input_getevent *g = NULL;
	struct input_getevent_jump j;
	struct events e;

	(void)state;
	assert_int_equal(open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 4);
	assert_int_equal(e.st.backwards, 0);
	assert_int_equal(e.st.other_events, 2);
	assert_int_equal(
		input_getevent_open_mem(log, strlen(log), "test", NULL, &g), 0);
	assert_int_equal(input_getevent_get_jump(g, &j), -ENOENT);
	input_getevent_free(g);
}

static void
test_stamps(void **state)
{
	static const char log[] =
		"[0.000001] 0000 0000 00000000\n"
		"[4294967295.999999] EV_ABS       ABS_MT_TRACKING_ID   "
		"00000001\n"
		"[4294967296.000000] EV_SYN       SYN_REPORT           "
		"00000000\n"
		"[99999999999999999999999.000000] EV_SYN SYN_REPORT 00000000\n"
		"[      -1.000000] EV_SYN       SYN_REPORT           00000000\n"
		"[       1.00000] EV_SYN       SYN_REPORT           00000000\n"
		"[       1.0000000] EV_SYN       SYN_REPORT           "
		"00000000\n"
		"[       1.000000]EV_SYN       SYN_REPORT           00000000\n"
		"[       1 000000] EV_SYN       SYN_REPORT           00000000\n"
		"[       1.00 000] EV_SYN       SYN_REPORT           00000000\n"
		"[        .000000] EV_SYN       SYN_REPORT           "
		"00000000\n";
	struct events e;

	(void)state;
	assert_int_equal(open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 2);
	/* In time order: a stamp that went back would end the events. */
	expect_event(&e.ev[0], 1000LL, EV_SYN, SYN_REPORT, 0);
	expect_event(&e.ev[1], 4294967295999999000LL, EV_ABS,
		     ABS_MT_TRACKING_ID, 1);
	assert_int_equal(e.st.skipped, 9);
}

static void
test_long_line(void **state)
{
	static const char ev[] =
		"[       1.000000] EV_SYN       SYN_REPORT           00000000";
	size_t evlen = sizeof(ev) - 1, pad, n = 0;
	struct events e;
	char *buf;

	(void)state;
	buf = malloc(3 * LINE_MAX);
	assert_non_null(buf);
	/* A valid event padded to the limit is read. */
	pad = LINE_MAX - evlen;
	memcpy(buf + n, ev, evlen);
	n += evlen;
	memset(buf + n, ' ', pad);
	n += pad;
	buf[n++] = '\n';
	/* One more character and it is skipped. */
	memcpy(buf + n, ev, evlen);
	n += evlen;
	memset(buf + n, ' ', pad + 1);
	n += pad + 1;
	buf[n++] = '\n';
	memcpy(buf + n, ev, evlen);
	n += evlen;
	buf[n] = '\0';
	assert_int_equal(open_mem(buf, NULL, &e), 0);
	assert_int_equal(e.n, 2);
	assert_int_equal(e.st.lines, 3);
	assert_int_equal(e.st.skipped, 1);
	free(buf);
}

static void
test_nul_byte(void **state)
{
	static const char log[] =
		"[       1.000000] EV_ABS       ABS_MT_TRACKING_ID   00000001\n"
		"[       1.000000] EV_SYN\0      SYN_REPORT           "
		"00000000\n"
		"[       1.000000] EV_SYN       SYN_REPORT           "
		"00000000\n";
	struct input_getevent *g = NULL;
	struct events e;

	(void)state;
	assert_int_equal(
		input_getevent_open_mem(log, sizeof(log) - 1, "nul", NULL, &g),
		0);
	drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 2);
	assert_int_equal(e.st.skipped, 1);
	assert_int_equal(e.st.lines, 3);
}

/* A virtual uinput device loses to a real screen, however busy it is. */
static void
test_uinput(void **state)
{
	static const char log[] =
		"add device 1: /dev/input/event7\n"
		"name: \"touch_uinput\"\n"
		"add device 5: /dev/input/event3\n"
		"name: \"fts_ts\"\n"
		"[ 1.000000] /dev/input/event7: EV_ABS ABS_MT_SLOT 00000000\n"
		"[ 1.000000] /dev/input/event7: EV_ABS ABS_MT_TRACKING_ID "
		"00000001\n"
		"[ 1.000000] /dev/input/event7: EV_ABS ABS_MT_POSITION_X "
		"00000001\n"
		"[ 1.000000] /dev/input/event7: EV_SYN SYN_REPORT 00000000\n"
		"[ 1.000000] /dev/input/event3: EV_ABS ABS_MT_TRACKING_ID "
		"00000001\n"
		"[ 1.000000] /dev/input/event3: EV_SYN SYN_REPORT 00000000\n";
	static const char only_uinput[] =
		"add device 1: /dev/input/event7\n"
		"name: \"touch_uinput\"\n"
		"[ 1.000000] /dev/input/event7: EV_ABS ABS_MT_TRACKING_ID "
		"00000001\n"
		"[ 1.000000] /dev/input/event7: EV_SYN SYN_REPORT 00000000\n"
		"[ 1.000000] /dev/input/event1: EV_KEY KEY_VOLUMEUP DOWN\n";
	struct input_getevent *g = NULL;
	struct events e;

	(void)state;
	assert_int_equal(
		input_getevent_open_mem(log, sizeof(log) - 1, "t", NULL, &g),
		0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event3");
	drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 2);
	assert_int_equal(e.st.other_events, 4);
	assert_int_equal(e.st.skipped, 0);

	assert_int_equal(input_getevent_open_mem(only_uinput,
						 sizeof(only_uinput) - 1, "t",
						 NULL, &g),
			 0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event7");
	assert_string_equal(input_getevent_device_name(g), "touch_uinput");
	input_getevent_free(g);
}

/* Of two real screens, the busier one; the order does not matter. */
static void
test_busiest_screen(void **state)
{
	static const char a[] = "[ 1.000000] /dev/input/event2: EV_ABS "
				"ABS_MT_TRACKING_ID 00000001\n";
	static const char b[] = "[ 1.000000] /dev/input/event4: EV_ABS "
				"ABS_MT_POSITION_X 00000001\n";
	char log[512];
	struct input_getevent *g = NULL;
	int n;

	(void)state;
	n = snprintf(log, sizeof(log), "%s%s%s", a, b, b);
	assert_true(n > 0 && (size_t)n < sizeof(log));
	assert_int_equal(input_getevent_open_mem(log, (size_t)n, "t", NULL, &g),
			 0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event4");
	input_getevent_free(g);
	n = snprintf(log, sizeof(log), "%s%s%s", b, a, a);
	assert_true(n > 0 && (size_t)n < sizeof(log));
	assert_int_equal(input_getevent_open_mem(log, (size_t)n, "t", NULL, &g),
			 0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event2");
	input_getevent_free(g);
}

static void
test_no_touch_screen(void **state)
{
	static const char log[] =
		"[ 1.000000] /dev/input/event1: EV_KEY KEY_POWER DOWN\n"
		"[ 1.000000] /dev/input/event1: EV_SYN SYN_REPORT 00000000\n";
	struct input_getevent *g = NULL;
	struct events e;

	(void)state;
	assert_int_equal(
		input_getevent_open_mem(log, sizeof(log) - 1, "t", NULL, &g),
		-ENODEV);
	assert_null(g);
	assert_int_equal(open_mem(log, "/dev/input/event1", &e), 0);
	assert_int_equal(e.n, 2);

	/* Unprefixed, a stream with frames is taken even without MT. */
	assert_int_equal(open_mem("[ 1.000000] EV_KEY BTN_TOUCH DOWN\n"
				  "[ 1.000000] EV_SYN SYN_REPORT 00000000\n",
				  NULL, &e),
			 0);
	assert_int_equal(e.n, 2);
}

static void
test_too_many_devices(void **state)
{
	char *buf;
	size_t cap = 200 * 80, n = 0;
	struct events e;
	int i, w;

	(void)state;
	buf = malloc(cap);
	assert_non_null(buf);
	for (i = 0; i < 200; i++) {
		w = snprintf(buf + n, cap - n,
			     "[ 1.000000] /dev/input/event%d: EV_ABS "
			     "ABS_MT_SLOT 00000000\n",
			     i);
		assert_true(w > 0 && (size_t)w < cap - n);
		n += (size_t)w;
	}
	assert_int_equal(open_mem(buf, NULL, &e), 0);
	assert_int_equal(e.n, 1);
	assert_true(e.st.devices < 200);
	assert_int_equal(e.st.devices + e.st.skipped, 200);
	free(buf);
}

static void
test_too_big(void **state)
{
	struct input_getevent *g = NULL;
	const char *dir = getenv("TMPDIR");
	char path[4096];
	void *map;
	int fd, n;

	(void)state;
	/* Untouched anonymous memory costs nothing. */
	map = mmap(NULL, FILE_MAX + 1, PROT_READ,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(
		input_getevent_open_mem(map, FILE_MAX + 1, "big", NULL, &g),
		-EFBIG);
	assert_null(g);
	munmap(map, FILE_MAX + 1);

	/* Nor does a sparse file. */
	n = snprintf(path, sizeof(path), "%s/test_getevent.XXXXXX",
		     dir && *dir ? dir : P_tmpdir);
	assert_true(n > 0 && (size_t)n < sizeof(path));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)FILE_MAX + 1), 0);
	close(fd);
	assert_int_equal(input_getevent_open(path, NULL, &g), -EFBIG);
	assert_null(g);
	unlink(path);
}

/* A reader's parse state, as input_getevent_open() sets it up. */
static struct input_getevent *
new_parser(void)
{
	struct input_getevent *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	g->chosen = -1;
	g->cur_dev = -1;
	g->last_dev = -1;
	g->cap_type = -1;
	return g;
}

/* What one parse gave: the stats and every device's events. */
static void
expect_same_parse(const struct input_getevent *a,
		  const struct input_getevent *b)
{
	size_t i;

	assert_memory_equal(&a->st, &b->st, sizeof(a->st));
	assert_int_equal(a->ndevs, b->ndevs);
	assert_int_equal(a->timed, b->timed);
	assert_int_equal(a->parsed, b->parsed);
	assert_int_equal(a->nev, b->nev);
	for (i = 0; i < a->nev; i++) {
		expect_event(&b->ev[i], a->ev[i].time_ns, a->ev[i].type,
			     a->ev[i].code, a->ev[i].value);
		assert_int_equal(a->ev_dev[i], b->ev_dev[i]);
	}
	for (i = 0; i < a->ndevs; i++) {
		assert_string_equal(a->devs[i].path, b->devs[i].path);
		assert_string_equal(a->devs[i].name, b->devs[i].name);
	}
}

/*
 * A log read in two parts split at every byte, and one byte at a time,
 * parses as it does whole: a line split across reads is one line, a long
 * line split anywhere is still skipped, a CR before a split newline still
 * does not count against the limit.
 */
static void
test_chunk_boundaries(void **state)
{
	static const char head[] =
		"add device 1: /dev/input/event2\n"
		"  name:     \"fts_ts\"\n"
		"[    5.000000] /dev/input/event2: EV_ABS ABS_MT_TRACKING_ID "
		"00000001\r\n"
		"\n"
		"[    5.000000] /dev/input/event2: EV_ABS ABS_MT_POSITION_X "
		"0000022c\n";
	static const char tail[] =
		"[    5.000100] /dev/input/event2: EV_SYN SYN_REPORT 00000000\n"
		"garbage\n"
		"[    5.080000] /dev/input/event2: EV_ABS ABS_MT_TRACKING_ID "
		"ffffffff\n"
		"[    5.080000] /dev/input/event2: EV_SYN SYN_REPORT 00000000";
	struct input_getevent *whole, *g;
	size_t len = 0, k, i;
	char *buf;

	(void)state;
	buf = malloc(sizeof(head) + sizeof(tail) + 3 * LINE_MAX);
	assert_non_null(buf);
	memcpy(buf, head, sizeof(head) - 1);
	len += sizeof(head) - 1;
	/* At the limit with a CR, then one over it. */
	memset(buf + len, ' ', LINE_MAX);
	len += LINE_MAX;
	buf[len++] = '\r';
	buf[len++] = '\n';
	memset(buf + len, 'x', LINE_MAX + 2);
	len += LINE_MAX + 2;
	buf[len++] = '\n';
	memcpy(buf + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;

	whole = new_parser();
	assert_int_equal(input_getevent_line_parse(whole, buf, len), 0);
	assert_int_equal(whole->nev, 5);
	assert_int_equal(whole->st.lines, 11);
	assert_int_equal(whole->st.skipped, 2);
	assert_int_equal(whole->st.too_long, 1);

	for (k = 0; k <= len; k++) {
		g = new_parser();
		assert_int_equal(input_getevent_line_feed(g, buf, k), 0);
		assert_int_equal(input_getevent_line_feed(g, buf + k, len - k),
				 0);
		assert_int_equal(input_getevent_line_end(g), 0);
		expect_same_parse(whole, g);
		input_getevent_free(g);
	}
	g = new_parser();
	for (i = 0; i < len; i++)
		assert_int_equal(input_getevent_line_feed(g, buf + i, 1), 0);
	assert_int_equal(input_getevent_line_end(g), 0);
	expect_same_parse(whole, g);
	input_getevent_free(g);
	input_getevent_free(whole);
	free(buf);
}

/* Writes len bytes of buf to a new file under TMPDIR; fills path. */
static void
write_tmp(char *path, size_t size, const char *buf, size_t len)
{
	const char *dir = getenv("TMPDIR");
	ssize_t w;
	size_t off;
	int fd, n;

	n = snprintf(path, size, "%s/test_getevent.XXXXXX",
		     dir && *dir ? dir : P_tmpdir);
	assert_true(n > 0 && (size_t)n < size);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	for (off = 0; off < len; off += (size_t)w) {
		w = write(fd, buf + off, len - off);
		assert_true(w > 0);
	}
	close(fd);
}

/*
 * A file is read in chunks: lines that straddle a chunk, and a line far
 * longer than a chunk, read as they do from memory.  The long line is
 * skipped and counted, and the tap after it is kept.
 */
static void
test_file_chunks(void **state)
{
	static const char tap[] =
		"[    7.000000] EV_ABS ABS_MT_TRACKING_ID 00000001\n"
		"[    7.000000] EV_ABS ABS_MT_POSITION_X 00000010\n"
		"[    7.000000] EV_SYN SYN_REPORT 00000000\n"
		"[    7.050000] EV_ABS ABS_MT_TRACKING_ID ffffffff\n"
		"[    7.050000] EV_SYN SYN_REPORT 00000000\n";
	static const char tap2[] =
		"[    8.000000] EV_ABS ABS_MT_TRACKING_ID 00000002\n"
		"[    8.000000] EV_ABS ABS_MT_POSITION_X 00000020\n"
		"[    8.000000] EV_SYN SYN_REPORT 00000000\n"
		"[    8.050000] EV_ABS ABS_MT_TRACKING_ID ffffffff\n"
		"[    8.050000] EV_SYN SYN_REPORT 00000000\n";
	static const char blank[] = "    \n";
	struct input_getevent *g = NULL;
	struct events file, mem;
	size_t len = 0, big = (size_t)300 << 10, cap;
	char path[4096], *buf;

	(void)state;
	cap = 65536 + 2 * big + 8 * sizeof(tap);
	buf = malloc(cap);
	assert_non_null(buf);
	/* Blank lines up to the first chunk's end, then the tap across it. */
	while (len + sizeof(blank) - 1 < 65536 - 20) {
		memcpy(buf + len, blank, sizeof(blank) - 1);
		len += sizeof(blank) - 1;
	}
	memcpy(buf + len, tap, sizeof(tap) - 1);
	len += sizeof(tap) - 1;
	memset(buf + len, 'x', big);
	len += big;
	buf[len++] = '\n';
	memcpy(buf + len, tap2, sizeof(tap2) - 1);
	len += sizeof(tap2) - 1;
	/* And a long last line without a newline. */
	memset(buf + len, 'y', big);
	len += big;
	assert_true(len <= cap);
	write_tmp(path, sizeof(path), buf, len);

	assert_int_equal(input_getevent_open(path, NULL, &g), 0);
	drain(g, &file);
	input_getevent_free(g);
	g = NULL;
	assert_int_equal(input_getevent_open_mem(buf, len, "chunks", NULL, &g),
			 0);
	drain(g, &mem);
	input_getevent_free(g);
	assert_int_equal(file.n, 10);
	assert_int_equal(file.st.skipped, 2);
	assert_int_equal(file.st.too_long, 2);
	assert_memory_equal(&file.st, &mem.st, sizeof(file.st));
	assert_memory_equal(file.ev, mem.ev, file.n * sizeof(file.ev[0]));
	unlink(path);
	free(buf);
}

/* A sparse file of NUL bytes has no line at all: refused, not read on. */
static void
test_no_line(void **state)
{
	struct input_getevent *g = NULL;
	char path[4096];
	int fd;

	(void)state;
	write_tmp(path, sizeof(path), "", 0);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)65 << 20), 0);
	close(fd);
	assert_int_equal(input_getevent_open(path, NULL, &g), -EINVAL);
	assert_null(g);
	unlink(path);
}

static void
test_missing_file(void **state)
{
	struct input_getevent *g = NULL;

	(void)state;
	assert_int_equal(
		input_getevent_open(LOCAL_DIR "no-such-file", NULL, &g),
		-ENOENT);
	assert_null(g);
	assert_int_equal(input_getevent_open(LOCAL_DIR, NULL, &g), -EISDIR);
	assert_null(g);
	input_getevent_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_emulator_tap),
		cmocka_unit_test(test_phone_touch_down),
		cmocka_unit_test(test_no_timestamps),
		cmocka_unit_test(test_hex_form),
		cmocka_unit_test(test_two_devices),
		cmocka_unit_test(test_possible_events),
		cmocka_unit_test(test_header_then_unprefixed),
		cmocka_unit_test(test_unprefixed_named_device),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_rate_suffix),
		cmocka_unit_test(test_labels_and_values),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_untimed_in_timed_log),
		cmocka_unit_test(test_backwards),
		cmocka_unit_test(test_backwards_other_device),
		cmocka_unit_test(test_stamps),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_uinput),
		cmocka_unit_test(test_busiest_screen),
		cmocka_unit_test(test_no_touch_screen),
		cmocka_unit_test(test_too_many_devices),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_chunk_boundaries),
		cmocka_unit_test(test_file_chunks),
		cmocka_unit_test(test_no_line),
	};

	log_init("test_input_getevent", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
