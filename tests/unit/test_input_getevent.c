/*
 * Tests of the getevent log reader over the real captures and the
 * hand-written logs in tests/fixtures/getevent/, and logs built in memory:
 * the forms of its lines and headers, and the device it picks.  Time
 * going back, the limits and the reading in chunks have
 * test_input_getevent_read.c.
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
#include "input_getevent_field.h"
#include "input_getevent_int.h"
#include "input_getevent_line.h"
#include "log.h"

static void
test_emulator_tap(void **state)
{
	struct input_getevent *g = NULL;
	struct fixture_getevent e;
	struct input_getevent_axis ax;
	const int64_t t0 = 42407808000LL, t1 = 42453256000LL;

	(void)state;
	assert_int_equal(input_getevent_open(FIXTURE_GETEVENT_DIR
					     "emulator-tap.getevent",
					     NULL, &g),
			 0);
	assert_non_null(g);
	assert_string_equal(input_getevent_device(g), "");
	assert_null(input_getevent_device_name(g));
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_POSITION_X, &ax),
			 -ENOENT);
	fixture_getevent_drain(g, &e);
	input_getevent_free(g);

	assert_int_equal(e.n, 9);
	fixture_expect_event(&e.ev[0], t0, EV_ABS, ABS_MT_TRACKING_ID, 0);
	fixture_expect_event(&e.ev[1], t0, EV_ABS, ABS_MT_TOUCH_MAJOR, 4);
	fixture_expect_event(&e.ev[2], t0, EV_ABS, ABS_MT_PRESSURE, 0x81);
	fixture_expect_event(&e.ev[3], t0, EV_ABS, ABS_MT_POSITION_X, 0x4289);
	fixture_expect_event(&e.ev[4], t0, EV_ABS, ABS_MT_POSITION_Y, 0x7758);
	fixture_expect_event(&e.ev[5], t0, EV_SYN, SYN_REPORT, 0);
	fixture_expect_event(&e.ev[6], t1, EV_ABS, ABS_MT_PRESSURE, 0);
	fixture_expect_event(&e.ev[7], t1, EV_ABS, ABS_MT_TRACKING_ID, -1);
	fixture_expect_event(&e.ev[8], t1, EV_SYN, SYN_REPORT, 0);
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
	struct fixture_getevent e;
	const int64_t t = 2311461360000LL;

	(void)state;
	assert_int_equal(input_getevent_open(FIXTURE_GETEVENT_DIR
					     "phone-touch-down.getevent",
					     NULL, &g),
			 0);
	fixture_getevent_drain(g, &e);
	input_getevent_free(g);

	assert_int_equal(e.n, 8);
	fixture_expect_event(&e.ev[0], t, EV_ABS, ABS_MT_TOUCH_MAJOR, 0xf);
	fixture_expect_event(&e.ev[1], t, EV_ABS, ABS_MT_WIDTH_MAJOR, 0xf);
	fixture_expect_event(&e.ev[3], t, EV_ABS, ABS_MT_POSITION_X, 319);
	fixture_expect_event(&e.ev[4], t, EV_ABS, ABS_MT_POSITION_Y, 998);
	fixture_expect_event(&e.ev[5], t, EV_ABS, ABS_MT_TRACKING_ID, 0x26);
	fixture_expect_event(&e.ev[6], t, EV_KEY, BTN_TOUCH, 1);
	fixture_expect_event(&e.ev[7], t, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.skipped, 0);
}

static void
test_no_timestamps(void **state)
{
	struct input_getevent *g = NULL;
	size_t len;
	char *buf;

	(void)state;
	assert_int_equal(input_getevent_open(FIXTURE_GETEVENT_DIR
					     "phone-no-timestamps.getevent",
					     NULL, &g),
			 -EINVAL);
	assert_null(g);
	/* Naming the device it does hold changes nothing. */
	assert_int_equal(input_getevent_open(FIXTURE_GETEVENT_DIR
					     "phone-no-timestamps.getevent",
					     "/dev/input/event3", &g),
			 -EINVAL);
	assert_null(g);

	/* The same from memory, and without the device prefixes. */
	buf = fixture_slurp(FIXTURE_GETEVENT_DIR "phone-no-timestamps.getevent",
			    &len);
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
	struct fixture_getevent e;
	const int64_t t0 = 1564568377000LL, t1 = 1564651022000LL;

	(void)state;
	assert_int_equal(input_getevent_open(FIXTURE_GETEVENT_DIR
					     "hex-tap.getevent",
					     NULL, &g),
			 0);
	fixture_getevent_drain(g, &e);
	input_getevent_free(g);

	assert_int_equal(e.n, 11);
	fixture_expect_event(&e.ev[0], t0, EV_ABS, ABS_MT_TRACKING_ID, 0x26);
	fixture_expect_event(&e.ev[4], t0, EV_ABS, ABS_MT_POSITION_X, 0x16d);
	fixture_expect_event(&e.ev[5], t0, EV_ABS, ABS_MT_POSITION_Y, 0x459);
	fixture_expect_event(&e.ev[6], t0, EV_KEY, BTN_TOUCH, 1);
	fixture_expect_event(&e.ev[7], t0, EV_SYN, SYN_REPORT, 0);
	fixture_expect_event(&e.ev[8], t1, EV_ABS, ABS_MT_TRACKING_ID, -1);
	fixture_expect_event(&e.ev[9], t1, EV_KEY, BTN_TOUCH, 0);
	fixture_expect_event(&e.ev[10], t1, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.skipped, 0);
}

static void
test_two_devices(void **state)
{
	const char *path = FIXTURE_GETEVENT_DIR "two-devices.getevent";
	struct input_getevent *g = NULL;
	struct fixture_getevent e;
	size_t i;

	(void)state;
	/* Left to itself the reader takes the touch screen. */
	assert_int_equal(input_getevent_open(path, NULL, &g), 0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event3");
	assert_string_equal(input_getevent_device_name(g), "fts_ts");
	fixture_getevent_drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 9);
	for (i = 0; i < e.n; i++)
		assert_int_not_equal(e.ev[i].code, KEY_POWER);
	fixture_expect_event(&e.ev[0], 20513100200000LL, EV_ABS,
			     ABS_MT_TRACKING_ID, 0x2ae);
	fixture_expect_event(&e.ev[6], 20513180017000LL, EV_ABS,
			     ABS_MT_TRACKING_ID, -1);
	fixture_expect_event(&e.ev[7], 20513180017000LL, EV_KEY, BTN_TOUCH, 0);
	assert_int_equal(e.st.other_events, 4);
	assert_int_equal(e.st.devices, 2);
	assert_int_equal(e.st.lines, 17);
	assert_int_equal(e.st.skipped, 0);

	/* Named, the key device is replayed instead. */
	assert_int_equal(input_getevent_open(path, "/dev/input/event1", &g), 0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event1");
	assert_string_equal(input_getevent_device_name(g), "gpio-keys");
	fixture_getevent_drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 4);
	fixture_expect_event(&e.ev[0], 20512334001000LL, EV_KEY, KEY_POWER, 1);
	fixture_expect_event(&e.ev[1], 20512334001000LL, EV_SYN, SYN_REPORT, 0);
	fixture_expect_event(&e.ev[2], 20513161433000LL, EV_KEY, KEY_POWER, 0);
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
	const char *path = FIXTURE_GETEVENT_DIR "possible-events.getevent";
	struct input_getevent *g = NULL;
	struct input_getevent_axis ax;
	struct fixture_getevent e;

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
	fixture_getevent_drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 8);
	fixture_expect_event(&e.ev[6], 2311461360000LL, EV_KEY, BTN_TOUCH, 1);
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
	fixture_getevent_drain(g, &e);
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
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(
		input_getevent_open_mem(log, sizeof(log) - 1, "t", NULL, &g),
		0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event2");
	assert_string_equal(input_getevent_device_name(g), "himax-touchscreen");
	assert_int_equal(input_getevent_get_axis(g, ABS_MT_POSITION_X, &ax), 0);
	assert_int_equal(ax.min, -5);
	assert_int_equal(ax.max, 719);
	fixture_getevent_drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 2);
	assert_int_equal(e.st.devices, 1);

	assert_int_equal(
		fixture_getevent_open_mem(log, "/dev/input/event2", &e), 0);
	assert_int_equal(e.n, 2);
	fixture_expect_event(&e.ev[0], 1000001000LL, EV_ABS, ABS_MT_TRACKING_ID,
			     1);
}

/* A log without prefixes names no device, so naming one fails. */
static void
test_unprefixed_named_device(void **state)
{
	struct input_getevent *g = NULL;
	int r;

	(void)state;
	r = input_getevent_open(FIXTURE_GETEVENT_DIR "emulator-tap.getevent",
				"/dev/input/event1", &g);
	assert_int_equal(r, -ENODEV);
	assert_null(g);
}

static void
test_crlf(void **state)
{
	struct input_getevent *g = NULL;
	struct fixture_getevent lf, crlf;
	char *buf, *dos;
	size_t len, i, n = 0;

	(void)state;
	buf = fixture_slurp(FIXTURE_GETEVENT_DIR "emulator-tap.getevent", &len);
	dos = malloc(2 * len);
	assert_non_null(dos);
	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			dos[n++] = '\r';
		dos[n++] = buf[i];
	}
	assert_int_equal(input_getevent_open_mem(buf, len, "lf", NULL, &g), 0);
	fixture_getevent_drain(g, &lf);
	input_getevent_free(g);
	assert_int_equal(input_getevent_open_mem(dos, n, "crlf", NULL, &g), 0);
	fixture_getevent_drain(g, &crlf);
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
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(fixture_getevent_open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 6);
	fixture_expect_event(&e.ev[1], 2311461360000LL, EV_SYN, SYN_REPORT, 0);
	fixture_expect_event(&e.ev[2], 2311469760000LL, EV_ABS,
			     ABS_MT_POSITION_X, 0x140);
	fixture_expect_event(&e.ev[3], 2311469760000LL, EV_SYN, SYN_REPORT, 0);
	fixture_expect_event(&e.ev[5], 2311469760000LL, EV_SYN, SYN_REPORT, 0);
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
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(fixture_getevent_open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 13);
	fixture_expect_event(&e.ev[0], 5000000000LL, EV_ABS, ABS_MT_SLOT, 1);
	fixture_expect_event(&e.ev[1], 5000000000LL, EV_ABS, ABS_MT_TOOL_TYPE,
			     MT_TOOL_PEN);
	fixture_expect_event(&e.ev[2], 5000000000LL, EV_ABS, ABS_MT_TOOL_TYPE,
			     MT_TOOL_PALM);
	fixture_expect_event(&e.ev[3], 5000000000LL, EV_ABS, ABS_X, 10);
	fixture_expect_event(&e.ev[4], 5000000000LL, EV_ABS, ABS_PRESSURE,
			     INT32_MAX);
	fixture_expect_event(&e.ev[5], 5000000000LL, EV_ABS, ABS_MT_ORIENTATION,
			     INT32_MIN);
	fixture_expect_event(&e.ev[6], 5000000000LL, EV_KEY, BTN_TOOL_FINGER,
			     2);
	fixture_expect_event(&e.ev[7], 5000000000LL, EV_KEY, BTN_TOUCH, 1);
	fixture_expect_event(&e.ev[8], 5000000000LL, EV_ABS, ABS_MT_POSITION_Y,
			     2);
	fixture_expect_event(&e.ev[9], 5000000000LL, EV_MSC, MSC_TIMESTAMP,
			     10000);
	fixture_expect_event(&e.ev[10], 5000000000LL, EV_SYN, SYN_MT_REPORT, 0);
	fixture_expect_event(&e.ev[11], 5000000000LL, EV_SYN, SYN_DROPPED, 0);
	fixture_expect_event(&e.ev[12], 5000000000LL, EV_SYN, SYN_REPORT, 0);
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
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(fixture_getevent_open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 3);
	fixture_expect_event(&e.ev[0], 42407808000LL, EV_ABS,
			     ABS_MT_TRACKING_ID, 0);
	fixture_expect_event(&e.ev[1], 42407808000LL, EV_SYN, SYN_REPORT, 0);
	fixture_expect_event(&e.ev[2], 42453256000LL, EV_SYN, SYN_REPORT, 0);
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
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(input_getevent_open_mem(NULL, 0, "empty", NULL, &g),
			 0);
	assert_string_equal(input_getevent_device(g), "");
	assert_null(input_getevent_device_name(g));
	fixture_getevent_drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.st.lines, 0);
	assert_int_equal(e.st.devices, 0);

	assert_int_equal(fixture_getevent_open_mem("\n\r\n   \n", NULL, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.st.lines, 3);
	assert_int_equal(e.st.skipped, 0);

	/* Headers without events: nothing to replay, nothing wrong. */
	assert_int_equal(
		fixture_getevent_open_mem("add device 1: /dev/input/event0\n"
					  "  name:     \"qpnp_pon\"\n",
					  NULL, &e),
		0);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.st.devices, 1);

	/* Only garbage: also empty. */
	assert_int_equal(fixture_getevent_open_mem("hello\nworld", NULL, &e),
			 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.st.skipped, 2);
}

static void
test_truncated(void **state)
{
	struct fixture_getevent e;
	size_t len, cut;
	char *buf;

	(void)state;
	buf = fixture_slurp(FIXTURE_GETEVENT_DIR "emulator-tap.getevent", &len);
	/* No newline after the last line. */
	assert_true(len > 0 && buf[len - 1] == '\n');
	buf[len - 1] = '\0';
	assert_int_equal(fixture_getevent_open_mem(buf, NULL, &e), 0);
	assert_int_equal(e.n, 9);
	fixture_expect_event(&e.ev[8], 42453256000LL, EV_SYN, SYN_REPORT, 0);
	assert_int_equal(e.st.lines, 9);
	assert_int_equal(e.st.skipped, 0);

	/* Cut inside the last line's value: that line is lost, only it. */
	cut = (size_t)(strrchr(buf, '\n') - buf) + 50;
	buf[cut] = '\0';
	assert_int_equal(fixture_getevent_open_mem(buf, NULL, &e), 0);
	assert_int_equal(e.n, 8);
	assert_int_equal(e.st.skipped, 1);

	/* Cut inside the stamp. */
	cut = (size_t)(strrchr(buf, '\n') - buf) + 8;
	buf[cut] = '\0';
	assert_int_equal(fixture_getevent_open_mem(buf, NULL, &e), 0);
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
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(fixture_getevent_open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 2);
	assert_int_equal(e.st.skipped, 2);
	assert_int_equal(e.st.untimed, 2);
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
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(
		input_getevent_open_mem(log, sizeof(log) - 1, "t", NULL, &g),
		0);
	assert_string_equal(input_getevent_device(g), "/dev/input/event3");
	fixture_getevent_drain(g, &e);
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
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(
		input_getevent_open_mem(log, sizeof(log) - 1, "t", NULL, &g),
		-ENODEV);
	assert_null(g);
	assert_int_equal(
		fixture_getevent_open_mem(log, "/dev/input/event1", &e), 0);
	assert_int_equal(e.n, 2);

	/* Unprefixed, a stream with frames is taken even without MT. */
	assert_int_equal(fixture_getevent_open_mem(
				 "[ 1.000000] EV_KEY BTN_TOUCH DOWN\n"
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
	struct fixture_getevent e;
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
	assert_int_equal(fixture_getevent_open_mem(buf, NULL, &e), 0);
	assert_int_equal(e.n, 1);
	assert_true(e.st.devices < 200);
	assert_int_equal(e.st.devices + e.st.skipped, 200);
	free(buf);
}

/*
 * input_getevent_field_format(), as the recorder writes the live input:
 * every event read back by the reader is the event written, labelled or
 * in hex where getevent has no name (an unknown type and code, a key
 * value other than UP, DOWN and REPEAT, a tool type without a name).
 */
static void
test_format_round_trip(void **state)
{
	static const struct touch_event evs[] = {
		{1000000000, EV_ABS, ABS_MT_TRACKING_ID, 7},
		{1000000000, EV_ABS, ABS_MT_POSITION_X, 540},
		{1000000000, EV_ABS, ABS_MT_POSITION_Y, 1200},
		{1000000000, EV_ABS, ABS_MT_TOOL_TYPE, MT_TOOL_FINGER},
		{1000000000, EV_ABS, ABS_MT_TOOL_TYPE, 9},
		{1000000000, EV_KEY, BTN_TOUCH, 1},
		{1000000000, EV_KEY, BTN_TOOL_FINGER, 5},
		{1000000000, EV_SYN, SYN_REPORT, 0},
		{1000016000, EV_ABS, 0x3e, -5},
		{1000016000, 0x1f, 0x123, 42},
		{1000016000, EV_SYN, SYN_DROPPED, 0},
		{1000016000, EV_SYN, SYN_REPORT, 0},
		{1002000001, EV_ABS, ABS_MT_TRACKING_ID, -1},
		{1002000001, EV_KEY, BTN_TOUCH, 0},
		{1002000001, EV_SYN, SYN_REPORT, 0},
	};
	const size_t n = sizeof(evs) / sizeof(evs[0]);
	struct input_getevent *g = NULL;
	struct touch_event got;
	char fields[64], *log = NULL;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	f = open_memstream(&log, &len);
	assert_non_null(f);
	fprintf(f, "add device 1: /dev/input/event3\n  name:     \"x\"\n");
	for (i = 0; i < n; i++) {
		assert_int_equal(input_getevent_field_format(&evs[i], fields,
							     sizeof(fields)),
				 0);
		fprintf(f, "[%8lld.%06lld] %s\n",
			(long long)(evs[i].time_ns / 1000000000),
			(long long)(evs[i].time_ns % 1000000000 / 1000),
			fields);
	}
	assert_int_equal(fclose(f), 0);
	/* Labels where getevent -l has them, hex where it has none. */
	assert_non_null(strstr(log, "EV_KEY       BTN_TOUCH            DOWN"));
	assert_non_null(strstr(
		log, "EV_ABS       ABS_MT_TOOL_TYPE     MT_TOOL_FINGER"));
	assert_non_null(
		strstr(log, "001f         0123                 0000002a"));
	assert_int_equal(input_getevent_field_format(&evs[0], fields, 10),
			 -ENOSPC);
	assert_int_equal(
		input_getevent_open_mem(log, len, "round-trip", NULL, &g), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(input_getevent_next(g, &got), 1);
		/* The log has microseconds: the writer's ns are cut. */
		assert_int_equal(got.time_ns, evs[i].time_ns / 1000 * 1000);
		assert_int_equal(got.type, evs[i].type);
		assert_int_equal(got.code, evs[i].code);
		assert_int_equal(got.value, evs[i].value);
	}
	assert_int_equal(input_getevent_next(g, &got), 0);
	input_getevent_free(g);
	free(log);
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
		cmocka_unit_test(test_uinput),
		cmocka_unit_test(test_busiest_screen),
		cmocka_unit_test(test_no_touch_screen),
		cmocka_unit_test(test_too_many_devices),
		cmocka_unit_test(test_format_round_trip),
	};

	log_init("test_input_getevent", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
