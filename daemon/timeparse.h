/*
 * Time parameters of the HTTP API (docs/DESIGN.md 7.6): an RFC 3339 date
 * and time, Unix seconds, or a duration back from now, all turned into
 * CLOCK_REALTIME nanoseconds; and the RFC 3339 text of such a time for the
 * answers.  Input is hostile: everything is bounded, nothing overflows.
 */
#ifndef TAPD_TIMEPARSE_H
#define TAPD_TIMEPARSE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The longest text timeparse_parse() looks at; anything longer is -EINVAL.
 */
#define TIMEPARSE_MAX_LEN 64

/*
 * Parses s, relative to now_ns (REALTIME ns) for durations:
 *   - RFC 3339: "2026-12-01T05:37:54Z", "2026-12-01t05:37:54.123456789+02:00"
 *     (T, t or a space between date and time; a fraction of up to 9
 *     digits; Z, z or +hh:mm / -hh:mm; a space where the '+' of the
 *     offset was, since an unescaped '+' in a query string reads as one);
 *   - Unix seconds: "1796103474" or "1796103474.25" (up to 9 decimals);
 *   - a duration back from now: a number and a unit s, m, h, d or w, or
 *     several in decreasing order ("1h30m", "2d12h"), at most 100 years.
 * The result must lie in [0, INT64_MAX] ns (1970 to 2262).  Returns 0 and
 * sets *out, -EINVAL for text that is none of these, -ERANGE for a time
 * out of range (a day 31 of April, a year 2300, a duration before 1970).
 */
int timeparse_parse(const char *s, int64_t now_ns, int64_t *out);

/* The same with now_ns taken from CLOCK_REALTIME. */
int timeparse_parse_now(const char *s, int64_t *out);

/* CLOCK_REALTIME in ns (0 if the clock cannot be read). */
int64_t timeparse_realtime_ns(void);

/*
 * Writes ns (REALTIME, >= 0) as RFC 3339 UTC with milliseconds,
 * "2026-12-01T05:37:54.123Z" (24 characters and the NUL).  Returns 0,
 * -EINVAL for a negative time, or -ENOSPC when size is too small.
 */
#define TIMEPARSE_RFC3339_SIZE 32
int timeparse_format(int64_t ns, char *buf, size_t size);

#endif
