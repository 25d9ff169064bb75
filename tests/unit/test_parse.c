#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "parse.h"

static void
test_int64(void **state)
{
	int64_t v = 7;

	(void)state;
	assert_int_equal(parse_int64("42", 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_int64("-5", -10, 10, &v), 0);
	assert_int_equal(v, -5);
	assert_int_equal(parse_int64("9223372036854775807", 0, INT64_MAX, &v),
			 0);
	assert_true(v == INT64_MAX);
	v = 7;
	/* Nothing but the number, and nothing silently clamped. */
	assert_int_equal(parse_int64("", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_int64(" 4", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_int64("4 ", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_int64("4x", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_int64("0x10", 0, 100, &v), -EINVAL);
	/* One spelling per number: no '+', and a '-' only right before. */
	assert_int_equal(parse_int64("+5", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_int64("+0", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_int64("-", -10, 10, &v), -EINVAL);
	assert_int_equal(parse_int64("- 5", -10, 10, &v), -EINVAL);
	assert_int_equal(parse_int64("-+5", -10, 10, &v), -EINVAL);
	assert_int_equal(parse_int64("\t4", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_int64("101", 0, 100, &v), -ERANGE);
	assert_int_equal(parse_int64("-1", 0, 100, &v), -ERANGE);
	assert_int_equal(parse_int64("99999999999999999999", 0, INT64_MAX, &v),
			 -ERANGE);
	assert_int_equal(parse_int64(NULL, 0, 100, &v), -EINVAL);
	assert_int_equal(v, 7);
}

static void
test_double(void **state)
{
	double v = 1;

	(void)state;
	assert_int_equal(parse_double("8.5", 0, 100, &v), 0);
	assert_true(v == 8.5);
	assert_int_equal(parse_double("1e2", 0, 100, &v), 0);
	assert_true(v == 100);
	v = 1;
	assert_int_equal(parse_double("nan", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_double("inf", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_double("0x1p3", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_double("1e400", 0, 1e300, &v), -ERANGE);
	assert_int_equal(parse_double("100.01", 0, 100, &v), -ERANGE);
	assert_int_equal(parse_double("1.5.", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_double("+5", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_double("+.5", 0, 100, &v), -EINVAL);
	assert_true(v == 1);
	/* An exponent keeps its sign. */
	assert_int_equal(parse_double("1e+1", 0, 100, &v), 0);
	assert_true(v == 10);
	assert_int_equal(parse_double("-2.5", -10, 100, &v), 0);
	assert_true(v == -2.5);
	v = 1;
	assert_true(v == 1);
}

/* Every byte value: the sixteen digits of each case, and -1 for the rest. */
static void
test_hex_digit(void **state)
{
	static const char lower[] = "0123456789abcdef";
	static const char upper[] = "0123456789ABCDEF";
	int c, want, k;

	(void)state;
	for (c = 1; c < 256; c++) {
		want = -1;
		for (k = 0; k < 16; k++)
			if (c == lower[k] || c == upper[k])
				want = k;
		assert_int_equal(parse_hex_digit((char)c), want);
	}
	assert_int_equal(parse_hex_digit('\0'), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int64),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_hex_digit),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
