/*
 * Tests of the time parameters: each form against values worked out
 * independently (date(1) and Python's datetime agree with them), the
 * bounds, and hostile text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "timeparse.h"

#define NS 1000000000LL
/* 2026-12-01T05:37:54Z, from `date -u -d 2026-12-01T05:37:54Z +%s`. */
#define T0 1796103474LL

static int64_t
parse_ok(const char *s, int64_t now)
{
	int64_t out = -1;
	int rc;

	rc = timeparse_parse(s, now, &out);
	if (rc != 0)
		fail_msg("'%s' gave %d", s, rc);
	return out;
}

static int
parse_rc(const char *s)
{
	int64_t out = 12345;
	int rc;

	rc = timeparse_parse(s, T0 * NS, &out);
	/* A failed parse never writes the result. */
	assert_int_equal(out, 12345);
	return rc;
}

static void
test_rfc3339(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("2026-12-01T05:37:54Z", 0), T0 * NS);
	assert_int_equal(parse_ok("2026-12-01t05:37:54z", 0), T0 * NS);
	assert_int_equal(parse_ok("2026-12-01 05:37:54Z", 0), T0 * NS);
	assert_int_equal(parse_ok("2026-12-01T05:37:54.5Z", 0),
			 T0 * NS + 500000000);
	assert_int_equal(parse_ok("2026-12-01T05:37:54.000000001Z", 0),
			 T0 * NS + 1);
	assert_int_equal(parse_ok("2026-12-01T05:37:54.123456789Z", 0),
			 T0 * NS + 123456789);
	/* An offset east of UTC is earlier in UTC. */
	assert_int_equal(parse_ok("2026-12-01T07:37:54+02:00", 0), T0 * NS);
	assert_int_equal(parse_ok("2026-12-01T00:07:54-05:30", 0), T0 * NS);
	/* A query string's unescaped '+' arrives as a space. */
	assert_int_equal(parse_ok("2026-12-01T07:37:54 02:00", 0), T0 * NS);
	assert_int_equal(parse_ok("1970-01-01T00:00:00Z", 0), 0);
	/* Leap days, and the day after. */
	assert_int_equal(parse_ok("2024-02-29T00:00:00Z", 0),
			 1709164800LL * NS);
	assert_int_equal(parse_ok("2000-03-01T00:00:00Z", 0), 951868800LL * NS);
	/* A leap second is the start of the next second. */
	assert_int_equal(parse_ok("2016-12-31T23:59:60Z", 0),
			 1483228800LL * NS);
	/* The last representable time, and one ns more. */
	assert_int_equal(parse_ok("2262-04-11T23:47:16.854775807Z", 0),
			 INT64_MAX);
	assert_int_equal(parse_rc("2262-04-11T23:47:16.854775808Z"), -ERANGE);
}

static void
test_rfc3339_bad(void **state)
{
	static const char *const invalid[] = {
		"2026-12-01",
		"2026-12-01T05:37Z",
		"2026-12-01T05:37:54",
		"2026-12-01T05:37:54.Z",
		"2026-12-01T05:37:54.1234567890Z",
		"2026-12-01T05:37:54+0200",
		"2026-12-01T05:37:54+2:00",
		"2026-12-01T05:37:54ZZ",
		"2026-12-01T05:37:54Z ",
		"2026-1-01T05:37:54Z",
		"2026-12-01X05:37:54Z",
		"+2026-12-01T05:37:54Z",
		"2026-12-01T05:37:54UTC",
		NULL,
	};
	static const char *const range[] = {
		"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
		"2026-04-31T00:00:00Z", "2025-02-29T00:00:00Z",
		"1900-02-29T00:00:00Z", "2026-12-00T00:00:00Z",
		"2026-12-01T24:00:00Z", "2026-12-01T23:60:00Z",
		"2026-12-01T23:59:61Z", "2026-12-01T00:00:00+24:00",
		"1969-12-31T23:59:59Z", "1970-01-01T00:00:00+00:01",
		"9999-12-31T23:59:59Z", NULL,
	};
	size_t i;

	(void)state;
	for (i = 0; invalid[i]; i++)
		if (parse_rc(invalid[i]) != -EINVAL)
			fail_msg("'%s' was not -EINVAL", invalid[i]);
	for (i = 0; range[i]; i++)
		if (parse_rc(range[i]) != -ERANGE)
			fail_msg("'%s' was not -ERANGE", range[i]);
}

static void
test_unix(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("0", 99), 0);
	assert_int_equal(parse_ok("1796103474", 0), T0 * NS);
	assert_int_equal(parse_ok("1796103474.25", 0), T0 * NS + 250000000);
	assert_int_equal(parse_ok("1796103474.000000001", 0), T0 * NS + 1);
	assert_int_equal(parse_ok("0001796103474", 0), T0 * NS);
	assert_int_equal(parse_ok("9223372036.854775807", 0), INT64_MAX);
	assert_int_equal(parse_rc("9223372036.854775808"), -ERANGE);
	assert_int_equal(parse_rc("9223372037"), -ERANGE);
	assert_int_equal(parse_rc("99999999999999999999999999999"), -ERANGE);
	assert_int_equal(parse_rc("-1"), -EINVAL);
	assert_int_equal(parse_rc("+1"), -EINVAL);
	assert_int_equal(parse_rc("1e9"), -EINVAL);
	assert_int_equal(parse_rc("0x10"), -EINVAL);
	assert_int_equal(parse_rc("1."), -EINVAL);
	assert_int_equal(parse_rc(".5"), -EINVAL);
	assert_int_equal(parse_rc("1.0000000001"), -EINVAL);
	assert_int_equal(parse_rc(" 1"), -EINVAL);
	assert_int_equal(parse_rc("1 "), -EINVAL);
	assert_int_equal(parse_rc(""), -EINVAL);
	assert_int_equal(parse_rc("nan"), -EINVAL);
}

static void
test_duration(void **state)
{
	int64_t now = T0 * NS + 777;

	(void)state;
	assert_int_equal(parse_ok("0s", now), now);
	assert_int_equal(parse_ok("90s", now), now - 90 * NS);
	assert_int_equal(parse_ok("15m", now), now - 900 * NS);
	assert_int_equal(parse_ok("2h", now), now - 7200 * NS);
	assert_int_equal(parse_ok("7d", now), now - 7 * 86400 * NS);
	assert_int_equal(parse_ok("1w", now), now - 7 * 86400 * NS);
	assert_int_equal(parse_ok("1h30m", now), now - 5400 * NS);
	assert_int_equal(parse_ok("1w2d3h4m5s", now),
			 now - (9 * 86400 + 3 * 3600 + 4 * 60 + 5) * NS);
	/* A hundred years of 366 days is the limit. */
	assert_int_equal(parse_ok("36600d", INT64_MAX),
			 INT64_MAX - 36600LL * 86400 * NS);
	assert_int_equal(timeparse_parse("36601d", INT64_MAX, &now), -ERANGE);
	assert_int_equal(parse_rc("99999999999999999999h"), -ERANGE);
	/* Back before 1970 from now. */
	assert_int_equal(parse_rc("57y"), -EINVAL);
	assert_int_equal(parse_rc("21000d"), -ERANGE);
	/* Units in decreasing order, each once; a number for each. */
	assert_int_equal(parse_rc("30m1h"), -EINVAL);
	assert_int_equal(parse_rc("1h1h"), -EINVAL);
	assert_int_equal(parse_rc("h"), -EINVAL);
	assert_int_equal(parse_rc("1hm"), -EINVAL);
	assert_int_equal(parse_rc("1.5h"), -EINVAL);
	assert_int_equal(parse_rc("-1h"), -EINVAL);
	assert_int_equal(parse_rc("1H"), -EINVAL);
	assert_int_equal(parse_rc("1h "), -EINVAL);
	assert_int_equal(parse_rc("15ms"), -EINVAL);
}

static void
test_hostile(void **state)
{
	char buf[TIMEPARSE_MAX_LEN + 2];
	int64_t out;

	(void)state;
	assert_int_equal(timeparse_parse(NULL, 0, &out), -EINVAL);
	assert_int_equal(timeparse_parse("1", 0, NULL), -EINVAL);
	/* Longer than the limit, even when it would parse. */
	memset(buf, '0', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	assert_int_equal(parse_rc(buf), -EINVAL);
	buf[TIMEPARSE_MAX_LEN] = '\0';
	assert_int_equal(parse_ok(buf, 0), 0);
	assert_int_equal(parse_rc("2026-12-01T05:37:54\xff"), -EINVAL);
	assert_int_equal(parse_rc("\x80\x81"), -EINVAL);
	assert_int_equal(parse_rc("1\n"), -EINVAL);
}

static void
test_now(void **state)
{
	struct timespec ts;
	int64_t before, after, out;

	(void)state;
	clock_gettime(CLOCK_REALTIME, &ts);
	before = (int64_t)ts.tv_sec * NS + ts.tv_nsec;
	assert_int_equal(timeparse_parse_now("1h", &out), 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	after = (int64_t)ts.tv_sec * NS + ts.tv_nsec;
	assert_true(out >= before - 3600 * NS);
	assert_true(out <= after - 3600 * NS);
}

static void
test_format(void **state)
{
	char buf[TIMEPARSE_RFC3339_SIZE];
	int64_t back;
	int64_t samples[] = {0, T0 * NS + 123456789, 951868800LL * NS - 1,
			     1709164800LL * NS, INT64_MAX};
	size_t i;

	(void)state;
	assert_int_equal(
		timeparse_format(T0 * NS + 123999999, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2026-12-01T05:37:54.123Z");
	assert_int_equal(timeparse_format(0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
	assert_int_equal(
		timeparse_format(951868800LL * NS - 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2000-02-29T23:59:59.999Z");
	assert_int_equal(timeparse_format(-1, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(timeparse_format(0, buf, 24), -ENOSPC);
	/* What is written parses back to the same millisecond. */
	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		assert_int_equal(timeparse_format(samples[i], buf, sizeof(buf)),
				 0);
		assert_int_equal(timeparse_parse(buf, 0, &back), 0);
		assert_int_equal(back, samples[i] - samples[i] % 1000000);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc3339),
		cmocka_unit_test(test_rfc3339_bad),
		cmocka_unit_test(test_unix),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_now),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
