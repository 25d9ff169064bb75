#include "arg.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int
arg_int64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	/* strtoll would skip leading blanks and take a '+': refuse both. */
	if (s == NULL || !(isdigit((unsigned char)*s) || *s == '-'))
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
arg_double(const char *s, double lo, double hi, double *out)
{
	const char *p;
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	/* Plain decimal only: strtod would also take hex, inf and nan. */
	for (p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && strchr("+-.eE", *p) == NULL)
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
arg_list(const char *s, double lo, double hi, unsigned max)
{
	char item[64];
	const char *p = s, *comma;
	unsigned n = 0;
	double v;
	size_t len;
	int rc;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof(item))
			return -EINVAL;
		memcpy(item, p, len);
		item[len] = '\0';
		if ((rc = arg_double(item, lo, hi, &v)) < 0)
			return rc;
		if (v <= lo)
			return -ERANGE;
		if (++n > max)
			return -ERANGE;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}
