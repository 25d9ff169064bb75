/*
 * Bounded number parsing for command lines, files and HTTP parameters:
 * the whole string must be the number, and it must lie in [lo, hi].
 */
#ifndef TAPD_PARSE_H
#define TAPD_PARSE_H

#include <stdint.h>

/*
 * Parses a decimal integer: an optional '-', then digits, nothing else
 * (no blank, no '+').  Returns 0 and sets *out, -EINVAL when s is not
 * entirely such an integer, -ERANGE when it is outside [lo, hi].
 */
int parse_int64(const char *s, int64_t lo, int64_t hi, int64_t *out);

/*
 * The same for a finite decimal number (no hex, no inf or nan, no leading
 * '+'; an exponent may have one).
 */
int parse_double(const char *s, double lo, double hi, double *out);

/* The value of one hexadecimal digit of either case, or -1 for any other
 * character. */
int parse_hex_digit(char c);

#endif
