#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int
parse_int64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	/*
	 * strtoll skips leading blanks and takes a '+': a number is written
	 * one way only (an optional '-', then digits), so that "+5", which
	 * a query string spells "%2B5", is no 5 in disguise.
	 */
	if (!s || !(*s == '-' || isdigit((unsigned char)*s)))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

int
parse_double(const char *s, double lo, double hi, double *out)
{
	const char *p;
	char *end;
	double v;

	/* A sign is '-' or nothing, as for parse_int64(). */
	if (!s || !*s || *s == '+')
		return -EINVAL;
	/* Plain decimal only: strtod would also take hex, inf and nan. */
	for (p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
			return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0')
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v) || v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

int
parse_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
