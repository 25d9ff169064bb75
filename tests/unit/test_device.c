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

#include "device.h"
#include "devid.h"
#include "log.h"

static int
parse(const char *json, struct device_info *info)
{
	return device_parse(json, strlen(json), "device.json", info);
}

static void
test_full(void **state)
{
	struct device_info d;

	(void)state;
	assert_int_equal(
		parse("{\"screen\": {\"width\": 1080, \"height\": 2400}, "
		      "\"density_dpi\": 420, \"refresh_hz\": 120, "
		      "\"android_sdk\": 33, \"touch\": {\"x\": {\"min\": 0, "
		      "\"max\": 1079}, \"y\": {\"min\": 0, \"max\": 2399}}, "
		      "\"future_key\": [1, 2]}",
		      &d),
		0);
	assert_true(d.have_screen);
	assert_int_equal(d.width, 1080);
	assert_int_equal(d.height, 2400);
	assert_int_equal(d.density_dpi, 420);
	assert_int_equal(d.refresh_hz, 120);
	assert_int_equal(d.android_sdk, 33);
	assert_true(d.have_touch);
	assert_int_equal(d.x.min, 0);
	assert_int_equal(d.x.max, 1079);
	assert_int_equal(d.y.max, 2399);
}

static void
test_partial(void **state)
{
	struct device_info d;

	(void)state;
	assert_int_equal(parse("{\"density_dpi\": 320}", &d), 0);
	assert_false(d.have_screen);
	assert_false(d.have_touch);
	assert_int_equal(d.density_dpi, 320);
	assert_int_equal(d.refresh_hz, 0);
	/* One axis alone cannot map positions. */
	assert_int_equal(parse("{\"touch\": {\"x\": {\"min\": 0, \"max\": "
			       "32767}}}",
			       &d),
			 0);
	assert_false(d.have_touch);
}

static void
test_invalid(void **state)
{
	struct device_info d;

	(void)state;
	assert_int_equal(parse("not json", &d), -EINVAL);
	assert_int_equal(parse("[1]", &d), -EINVAL);
	assert_int_equal(parse("{\"density_dpi\": \"420\"}", &d), -EINVAL);
	assert_int_equal(parse("{\"density_dpi\": 420.5}", &d), -EINVAL);
	assert_int_equal(parse("{\"density_dpi\": -1}", &d), -EINVAL);
	assert_int_equal(
		parse("{\"screen\": {\"width\": 0, \"height\": 5}}", &d),
		-EINVAL);
	assert_int_equal(parse("{\"touch\": {\"x\": {\"min\": 10, \"max\": "
			       "10}, \"y\": {\"min\": 0, \"max\": 1}}}",
			       &d),
			 -EINVAL);
	assert_int_equal(parse("{\"touch\": {\"x\": {\"min\": 0}}}", &d),
			 -EINVAL);
	/* A failed parse leaves nothing half-filled. */
	assert_false(d.have_screen);
	assert_int_equal(d.density_dpi, 0);
}

static void
test_clock(void **state)
{
	struct device_info d;

	(void)state;
	assert_int_equal(parse("{\"clock\": {\"realtime_ns\": "
			       "\"1764567474123456789\", \"monotonic_ns\": "
			       "\"86400123456789\"}}",
			       &d),
			 0);
	assert_true(d.have_clock);
	assert_true(d.clock_realtime_ns == INT64_C(1764567474123456789));
	assert_true(d.clock_monotonic_ns == INT64_C(86400123456789));
	/* Beyond 2^53 a JSON number is no longer exact: refused. */
	assert_int_equal(parse("{\"clock\": {\"realtime_ns\": "
			       "1764567474123456789, \"monotonic_ns\": 5}}",
			       &d),
			 -EINVAL);
	assert_int_equal(parse("{\"clock\": {\"realtime_ns\": \"-5\", "
			       "\"monotonic_ns\": \"5\"}}",
			       &d),
			 -EINVAL);
	assert_int_equal(parse("{\"clock\": {\"realtime_ns\": \"5\"}}", &d),
			 -EINVAL);
}

/* The clock anchor's values are bounded, so wall times made of them fit. */
static void
test_clock_range(void **state)
{
	struct device_info d;

	(void)state;
	assert_int_equal(parse("{\"clock\": {\"realtime_ns\": "
			       "\"4102444800000000000\", \"monotonic_ns\": "
			       "\"4102444800000000000\"}}",
			       &d),
			 0);
	assert_true(d.clock_realtime_ns == DEVICE_CLOCK_MAX_NS);
	assert_int_equal(parse("{\"clock\": {\"realtime_ns\": "
			       "\"9223372036854775807\", \"monotonic_ns\": "
			       "\"0\"}}",
			       &d),
			 -EINVAL);
	assert_false(d.have_clock);
	assert_int_equal(parse("{\"clock\": {\"realtime_ns\": \"0\", "
			       "\"monotonic_ns\": \"9223372036854775807\"}}",
			       &d),
			 -EINVAL);
	assert_int_equal(parse("{\"clock\": {\"realtime_ns\": "
			       "\"4102444800000000001\", \"monotonic_ns\": "
			       "\"0\"}}",
			       &d),
			 -EINVAL);
	assert_int_equal(parse("{\"clock\": 5}", &d), -EINVAL);
}

/* Parses len bytes of s, which may hold a NUL. */
static int
parse_bytes(const char *s, size_t len, struct device_info *info)
{
	return device_parse(s, len, "device.json", info);
}

/* The file is one JSON object, each key once, and nothing else. */
static void
test_strict(void **state)
{
	static const char nul[] = "{\"density_dpi\": 420}\0{\"x\": 1}";
	static const char bom[] = "\xef\xbb\xbf{\"density_dpi\": 420}";
	struct device_info d;

	(void)state;
	assert_int_equal(
		parse("{\"density_dpi\": 420, \"density_dpi\": 160}", &d),
		-EINVAL);
	assert_int_equal(d.density_dpi, 0);
	assert_int_equal(parse("{\"screen\": {\"width\": 1, \"height\": 2, "
			       "\"width\": 3}}",
			       &d),
			 -EINVAL);
	/* An unknown key is ignored, but not when given twice. */
	assert_int_equal(parse("{\"future\": [{\"a\": 1, \"a\": 2}]}", &d),
			 -EINVAL);
	assert_int_equal(parse("{\"a\": {\"b\": 1}, \"b\": {\"a\": 1}}", &d),
			 0);
	assert_int_equal(parse_bytes(bom, sizeof(bom) - 1, &d), -EINVAL);
	assert_int_equal(parse_bytes(nul, sizeof(nul) - 1, &d), -EINVAL);
	assert_int_equal(parse("{\"density_dpi\": 420} {}", &d), -EINVAL);
	assert_int_equal(parse("{\"density_dpi\": 420} x", &d), -EINVAL);
	/* White space after the value is fine. */
	assert_int_equal(parse("{\"density_dpi\": 420} \r\n\t", &d), 0);
	assert_int_equal(d.density_dpi, 420);
}

static void
test_measure(void **state)
{
	struct device_info d;

	(void)state;
	assert_int_equal(
		parse("{\"measure\": {\"slop_px\": 21.000000000000004, "
		      "\"long_press_ms\": 400, \"settle_quiet_ms\": "
		      "300, \"settle_cap_ms\": 1000.000001, "
		      "\"busy_before_ms\": 0, \"frame_latency_ms\": "
		      "1000, \"launch_cap_ms\": 0, \"launch_ms\": 7}}",
		      &d),
		0);
	assert_true(d.have_measure);
	assert_true(d.measure.slop_px == 21.000000000000004);
	assert_int_equal(d.measure.long_press_ns, 400000000);
	assert_int_equal(d.measure.settle_quiet_ns, 300000000);
	/* To the ns, as the recording writes a time that is not whole ms. */
	assert_int_equal(d.measure.settle_cap_ns, 1000000001);
	assert_int_equal(d.measure.busy_before_ns, 0);
	assert_int_equal(d.measure.frame_latency_ns, 1000000000);
	/* Zero is a value: launch detection was off. */
	assert_int_equal(d.measure.launch_cap_ns, 0);
	/* Absent members stay absent: negative. */
	assert_int_equal(parse("{\"measure\": {\"settle_cap_ms\": 1000}}", &d),
			 0);
	assert_true(d.have_measure);
	assert_true(d.measure.slop_px < 0);
	assert_true(d.measure.long_press_ns < 0);
	assert_true(d.measure.busy_before_ns < 0);
	assert_int_equal(d.measure.settle_cap_ns, 1000000000);
	assert_int_equal(parse("{}", &d), 0);
	assert_false(d.have_measure);
	assert_true(d.measure.settle_cap_ns < 0);
	/* Wrong types and ranges are refused. */
	assert_int_equal(parse("{\"measure\": 5}", &d), -EINVAL);
	assert_int_equal(
		parse("{\"measure\": {\"settle_cap_ms\": \"1000\"}}", &d),
		-EINVAL);
	assert_int_equal(parse("{\"measure\": {\"settle_cap_ms\": -1}}", &d),
			 -EINVAL);
	assert_int_equal(
		parse("{\"measure\": {\"long_press_ms\": 86400001}}", &d),
		-EINVAL);
	assert_false(d.have_measure);
	assert_int_equal(
		parse("{\"measure\": {\"slop_px\": 1, \"slop_px\": 2}}", &d),
		-EINVAL);
}

static void
test_file(void **state)
{
	char path[] = "/tmp/tapd-device-XXXXXX";
	struct device_info d;
	const char *json = "{\"screen\": {\"width\": 720, \"height\": 1600}}";
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (int)strlen(json));
	close(fd);
	assert_int_equal(device_load(path, &d), 0);
	assert_int_equal(d.width, 720);
	assert_int_equal(d.height, 1600);
	unlink(path);
	assert_int_equal(device_load(path, &d), -ENOENT);
}

/*
 * The identity keys: texts kept as given, and what the devid of a replay
 * makes of them; a key of the wrong type, empty, too long or with a
 * control character refuses the file.
 */
static void
test_identity(void **state)
{
	char json[1024], big[DEVICE_FINGERPRINT_MAX + 2];
	struct device_info d;
	struct devid id;

	(void)state;
	assert_int_equal(parse("{\"serial\": \"R5CT\", \"manufacturer\": "
			       "\"samsung\", \"model\": \"SM-S911B\", "
			       "\"fingerprint\": \"samsung/dm1q/dm1q:14/UP1A/"
			       "1:user/release-keys\", \"android_sdk\": 34, "
			       "\"refresh_hz\": 120, \"density_dpi\": 420}",
			       &d),
			 0);
	assert_string_equal(d.serial, "R5CT");
	assert_string_equal(d.manufacturer, "samsung");
	assert_string_equal(d.model, "SM-S911B");
	devid_clear(&id);
	assert_false(devid_known(&id));
	devid_from_device(&id, &d);
	assert_true(devid_known(&id));
	assert_string_equal(id.serial, "R5CT");
	assert_string_equal(id.fingerprint,
			    "samsung/dm1q/dm1q:14/UP1A/1:user/release-keys");
	assert_int_equal(id.sdk, 34);
	assert_int_equal(id.refresh_hz, 120);
	assert_int_equal(id.density_dpi, 420);
	assert_int_equal(id.width, 0);
	assert_string_equal(id.abi, "");
	/* Absent keys stay empty. */
	assert_int_equal(parse("{\"model\": \"Pixel 8\"}", &d), 0);
	assert_string_equal(d.serial, "");
	assert_string_equal(d.model, "Pixel 8");
	assert_int_equal(parse("{\"serial\": 42}", &d), -EINVAL);
	assert_int_equal(parse("{\"model\": \"\"}", &d), -EINVAL);
	assert_int_equal(parse("{\"model\": \"a\\nb\"}", &d), -EINVAL);
	assert_int_equal(parse("{\"model\": \"\\u0007\"}", &d), -EINVAL);
	memset(big, 'f', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(json, sizeof(json), "{\"fingerprint\": \"%s\"}", big);
	assert_int_equal(parse(json, &d), -EINVAL);
	big[DEVICE_FINGERPRINT_MAX] = '\0';
	snprintf(json, sizeof(json), "{\"fingerprint\": \"%s\"}", big);
	assert_int_equal(parse(json, &d), 0);
	assert_int_equal(strlen(d.fingerprint), DEVICE_FINGERPRINT_MAX);
}

/* devid_set_text(): trimmed, cut at a character, bad bytes as '?'. */
static void
test_set_text(void **state)
{
	char out[8];

	(void)state;
	devid_set_text(out, sizeof(out), "  ab\tc \n");
	assert_string_equal(out, "ab?c");
	devid_set_text(out, sizeof(out), "\xff\xfex");
	assert_string_equal(out, "??x");
	/* "abcde" and a 3-byte character do not fit in 7 bytes: cut before. */
	devid_set_text(out, sizeof(out), "abcde\xe2\x82\xac");
	assert_string_equal(out, "abcde");
	devid_set_text(out, sizeof(out), "");
	assert_string_equal(out, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_clock_range),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_set_text),
	};

	/* The invalid cases log their reasons; the test checks the codes. */
	log_init("test_device", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests_name("device", tests, NULL, NULL);
}
