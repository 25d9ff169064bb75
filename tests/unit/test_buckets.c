/*
 * The histogram bounds of /metrics: the defaults keep every bucket at
 * most max(1 ms, 2%) wide from 10 ms to 10 s, their labels read back as
 * their bounds, and --buckets lists are parsed exactly or refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buckets.h"
#include "log.h"

#define MS INT64_C(1000000)

/* The label as ns, read as decimal seconds by hand. */
static int64_t
label_ns(const char *le)
{
	int64_t whole = 0, frac = 0;
	int digits = 0;

	while (*le >= '0' && *le <= '9')
		whole = whole * 10 + (*le++ - '0');
	if (*le == '.')
		for (le++; *le >= '0' && *le <= '9'; le++, digits++)
			frac = frac * 10 + (*le - '0');
	assert_int_equal(*le, '\0');
	for (; digits < 9; digits++)
		frac *= 10;
	return whole * 1000000000 + frac;
}

static void
test_default(void **state)
{
	struct buckets *b = NULL;
	int64_t lo, hi, width;
	size_t i, n;

	(void)state;
	assert_int_equal(buckets_new_default(&b), 0);
	n = buckets_count(b);
	assert_int_equal(n, BUCKETS_DEFAULT_COUNT);
	assert_true(buckets_bound_ns(b, 0) == 10 * MS);
	assert_true(buckets_bound_ns(b, n - 1) == 10000 * MS);
	assert_string_equal(buckets_le(b, 0), "0.01");
	assert_string_equal(buckets_le(b, n - 1), "10");
	assert_string_equal(buckets_le(b, n), "+Inf");
	for (i = 1; i < n; i++) {
		lo = buckets_bound_ns(b, i - 1);
		hi = buckets_bound_ns(b, i);
		width = hi - lo;
		assert_true(width > 0);
		/* The widest a bucket may be where it starts. */
		assert_true(width <= (lo / 50 > MS ? lo / 50 : MS));
		assert_true(label_ns(buckets_le(b, i)) == hi);
	}
	/* A value on a bound is in that bound's bucket, one above in the next.
	 */
	assert_int_equal(buckets_index(b, 0), 0);
	assert_int_equal(buckets_index(b, 10 * MS), 0);
	assert_int_equal(buckets_index(b, 10 * MS + 1), 1);
	assert_int_equal(buckets_index(b, 10000 * MS), n - 1);
	assert_int_equal(buckets_index(b, 10000 * MS + 1), n);
	assert_int_equal(buckets_index(b, INT64_MAX), n);
	buckets_free(b);
	buckets_free(NULL);
}

static void
test_parse(void **state)
{
	static const char *const bad[] = {
		"",
		"0",
		"0.0",
		"-1",
		"1,,2",
		"1,",
		",1",
		"0.05,0.05",
		"0.1,0.05",
		"1e3",
		"0.1 ",
		"3601",
		"3600.0000000001",
		"0.0000000001",
		"a",
		"1.2.3",
		".",
	};
	struct buckets *b = NULL;
	char many[BUCKETS_MAX * 8];
	size_t i, len = 0;

	(void)state;
	assert_int_equal(buckets_parse("0.016,0.033,.05,1,3600", &b), 0);
	assert_int_equal(buckets_count(b), 5);
	assert_true(buckets_bound_ns(b, 0) == 16 * MS);
	assert_true(buckets_bound_ns(b, 2) == 50 * MS);
	assert_true(buckets_bound_ns(b, 4) == 3600000 * MS);
	assert_string_equal(buckets_le(b, 0), "0.016");
	assert_string_equal(buckets_le(b, 2), "0.05");
	assert_string_equal(buckets_le(b, 3), "1");
	assert_string_equal(buckets_le(b, 5), "+Inf");
	buckets_free(b);
	assert_int_equal(buckets_parse("0.000000001", &b), 0);
	assert_true(buckets_bound_ns(b, 0) == 1);
	assert_string_equal(buckets_le(b, 0), "0.000000001");
	buckets_free(b);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = NULL;
		if (buckets_parse(bad[i], &b) != -EINVAL)
			fail_msg("'%s' was taken", bad[i]);
		assert_null(b);
	}
	/* BUCKETS_MAX bounds, then one more. */
	for (i = 0; i < BUCKETS_MAX; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len, "%s%zu",
					i ? "," : "", i + 1);
	assert_int_equal(buckets_parse(many, &b), 0);
	assert_int_equal(buckets_count(b), BUCKETS_MAX);
	buckets_free(b);
	snprintf(many + len, sizeof(many) - len, ",%d", BUCKETS_MAX + 1);
	assert_int_equal(buckets_parse(many, &b), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_parse),
	};

	/* The refused lists log their reasons; the test checks the codes. */
	log_init("test_buckets", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests_name("buckets", tests, NULL, NULL);
}
