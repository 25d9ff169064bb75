/*
 * Command-line values of tapctl: numbers parsed whole and within bounds,
 * the way the daemon's parse.c does it (tapctl shares no code with tapd,
 * so this is its own small copy).
 */
#ifndef TAPCTL_ARG_H
#define TAPCTL_ARG_H

#include <stdint.h>

/*
 * Parses a decimal integer.  Returns 0 and sets *out, -EINVAL when s is
 * not entirely a decimal integer, -ERANGE when it is outside [lo, hi].
 */
int arg_int64(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* The same for a finite decimal number (no hex, no inf or nan). */
int arg_double(const char *s, double lo, double hi, double *out);

/*
 * Checks a comma-separated list of numbers in (lo, hi], at most max of
 * them (the --p of percentiles).  Returns 0, -EINVAL or -ERANGE.
 */
int arg_list(const char *s, double lo, double hi, unsigned max);

#endif
