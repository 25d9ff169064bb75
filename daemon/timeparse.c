#include "timeparse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NS_PER_S 1000000000LL
/* The last whole second that still fits in int64 ns (2262-04-11). */
#define TIMEPARSE_MAX_S (INT64_MAX / NS_PER_S)
/* The longest duration back from now: 100 years of 366 days. */
#define TIMEPARSE_MAX_AGO_S (100LL * 366 * 86400)

/*
 * Days from 1970-01-01 to the given date of the proleptic Gregorian
 * calendar (Howard Hinnant's days_from_civil): exact for any year, with no
 * time zone and no libc involved.
 */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The inverse, for days >= 0. */
static void
civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = z / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static bool
is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned
days_in_month(int64_t y, unsigned m)
{
	static const unsigned days[12] = {31, 28, 31, 30, 31, 30,
					  31, 31, 30, 31, 30, 31};

	if (m == 2 && is_leap(y))
		return 29;
	return days[m - 1];
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Reads exactly n digits at *p into *v and moves *p past them. */
static bool
take_digits(const char **p, unsigned n, unsigned *v)
{
	unsigned i, x = 0;

	for (i = 0; i < n; i++) {
		if (!is_digit((*p)[i]))
			return false;
		x = x * 10 + (unsigned)((*p)[i] - '0');
	}
	*p += n;
	*v = x;
	return true;
}

static bool
take_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

/*
 * Reads "." and 1..9 digits as nanoseconds, if there is a '.'.  Returns
 * false for a '.' without digits or with more than 9.
 */
static bool
take_fraction(const char **p, int64_t *ns)
{
	int64_t scale = NS_PER_S / 10;
	unsigned n = 0;

	*ns = 0;
	if (**p != '.')
		return true;
	(*p)++;
	while (is_digit(**p)) {
		if (++n > 9)
			return false;
		*ns += (**p - '0') * scale;
		scale /= 10;
		(*p)++;
	}
	return n > 0;
}

/* Seconds and ns since the epoch into ns, with the range checked. */
static int
to_ns(int64_t secs, int64_t frac, int64_t *out)
{
	if (secs < 0 || secs > TIMEPARSE_MAX_S)
		return -ERANGE;
	if (secs == TIMEPARSE_MAX_S && frac > INT64_MAX % NS_PER_S)
		return -ERANGE;
	*out = secs * NS_PER_S + frac;
	return 0;
}

static int
parse_rfc3339(const char *s, int64_t *out)
{
	const char *p = s;
	unsigned year, mon, day, hour, min, sec, oh = 0, om = 0;
	int64_t frac, secs;
	int sign = 0;

	if (!take_digits(&p, 4, &year) || !take_char(&p, '-') ||
	    !take_digits(&p, 2, &mon) || !take_char(&p, '-') ||
	    !take_digits(&p, 2, &day))
		return -EINVAL;
	if (*p != 'T' && *p != 't' && *p != ' ')
		return -EINVAL;
	p++;
	if (!take_digits(&p, 2, &hour) || !take_char(&p, ':') ||
	    !take_digits(&p, 2, &min) || !take_char(&p, ':') ||
	    !take_digits(&p, 2, &sec) || !take_fraction(&p, &frac))
		return -EINVAL;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-' || *p == ' ') {
		/*
		 * A space stands for '+': in a query string an unescaped
		 * '+' reads as a space, and nothing else could be meant.
		 */
		sign = *p == '-' ? -1 : 1;
		p++;
		if (!take_digits(&p, 2, &oh) || !take_char(&p, ':') ||
		    !take_digits(&p, 2, &om))
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	if (*p != '\0')
		return -EINVAL;
	/* Well formed from here on: what is left is out of range. */
	if (mon < 1 || mon > 12 || day < 1 || day > days_in_month(year, mon) ||
	    hour > 23 || min > 59 || sec > 60 || oh > 23 || om > 59)
		return -ERANGE;
	/* A leap second (:60) is the next second's start, as in POSIX. */
	secs = days_from_civil(year, mon, day) * 86400 + hour * 3600 +
	       min * 60 + sec;
	secs -= sign * (int64_t)(oh * 3600 + om * 60);
	return to_ns(secs, frac, out);
}

static int
parse_unix(const char *s, int64_t *out)
{
	const char *p = s;
	int64_t secs = 0, frac;

	if (!is_digit(*p))
		return -EINVAL;
	while (is_digit(*p)) {
		/* Past the range already: keep reading only to validate. */
		if (secs <= TIMEPARSE_MAX_S)
			secs = secs * 10 + (*p - '0');
		p++;
	}
	if (!take_fraction(&p, &frac) || *p != '\0')
		return -EINVAL;
	return to_ns(secs, frac, out);
}

/* Seconds per unit, and the units' order: each must be smaller. */
static int64_t
unit_seconds(char c)
{
	switch (c) {
	case 'w':
		return 7 * 86400;
	case 'd':
		return 86400;
	case 'h':
		return 3600;
	case 'm':
		return 60;
	case 's':
		return 1;
	default:
		return 0;
	}
}

static int
parse_duration(const char *s, int64_t now_ns, int64_t *out)
{
	const char *p = s;
	int64_t total = 0, n, unit, last = INT64_MAX;
	bool range = false;

	if (!*p)
		return -EINVAL;
	while (*p) {
		if (!is_digit(*p))
			return -EINVAL;
		n = 0;
		while (is_digit(*p)) {
			if (n <= TIMEPARSE_MAX_AGO_S)
				n = n * 10 + (*p - '0');
			p++;
		}
		unit = unit_seconds(*p);
		if (unit == 0 || unit >= last)
			return -EINVAL;
		last = unit;
		p++;
		/* Both factors are bounded, so the product cannot overflow. */
		if (n > TIMEPARSE_MAX_AGO_S)
			range = true;
		else
			total += n * unit;
		if (total > TIMEPARSE_MAX_AGO_S)
			range = true;
	}
	if (range)
		return -ERANGE;
	if (now_ns < 0 || total > now_ns / NS_PER_S)
		return -ERANGE;
	*out = now_ns - total * NS_PER_S;
	return 0;
}

int
timeparse_parse(const char *s, int64_t now_ns, int64_t *out)
{
	size_t len, i;

	if (!s || !out)
		return -EINVAL;
	len = strnlen(s, TIMEPARSE_MAX_LEN + 1);
	if (len == 0 || len > TIMEPARSE_MAX_LEN)
		return -EINVAL;
	/* "YYYY-" starts a date; a unit letter ends a duration. */
	if (len > 4 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) &&
	    is_digit(s[3]) && s[4] == '-')
		return parse_rfc3339(s, out);
	for (i = 0; i < len; i++)
		if (unit_seconds(s[i]) != 0)
			return parse_duration(s, now_ns, out);
	return parse_unix(s, out);
}

int64_t
timeparse_realtime_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int
timeparse_parse_now(const char *s, int64_t *out)
{
	return timeparse_parse(s, timeparse_realtime_ns(), out);
}

int
timeparse_format(int64_t ns, char *buf, size_t size)
{
	int64_t secs, days, rem, year;
	unsigned mon, day;
	int n;

	if (ns < 0)
		return -EINVAL;
	secs = ns / NS_PER_S;
	days = secs / 86400;
	rem = secs % 86400;
	civil_from_days(days, &year, &mon, &day);
	n = snprintf(buf, size, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u.%03uZ",
		     year, mon, day, (unsigned)(rem / 3600),
		     (unsigned)(rem / 60 % 60), (unsigned)(rem % 60),
		     (unsigned)(ns % NS_PER_S / 1000000));
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return 0;
}
