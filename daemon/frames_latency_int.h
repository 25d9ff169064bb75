/*
 * What the parts of the --latency reader (frames_latency.h) share and
 * no caller needs: the snapshot's layout, which the tracker reads, and
 * the text helpers of frames_latency.c.
 */
#ifndef TAPD_FRAMES_LATENCY_INT_H
#define TAPD_FRAMES_LATENCY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "frames_latency.h"

#define TX_PREFIX     "TX - "
#define SV_PREFIX     "SurfaceView["
#define SV_PREFIX_A10 "SurfaceView - "

struct frames_latency_snapshot {
	int64_t period_ns;
	int64_t now_ns;
	int complete;
	size_t nrows;
	struct frames_latency_stats st;
	struct frames_latency_row rows[LATENCY_ROWS_MAX];
};

/* A position in a buffer that is read line by line. */
struct frames_latency_lines {
	const char *p;
	const char *end;
};

/* Whether c is an ASCII decimal digit. */
int frames_latency_is_digit(char c);

/* Whether s[0..len) holds only spaces and tabs (or nothing). */
int frames_latency_is_blank(const char *s, size_t len);

/*
 * Parses s[0..len) as a whole decimal integer in [lo, hi].  Returns 0,
 * -EINVAL when it is not one, or -ERANGE.
 */
int frames_latency_parse_i64(const char *s, size_t len, int64_t lo, int64_t hi,
			     int64_t *out);

/*
 * Returns 1 and sets the next line (without its '\n' and a '\r' before
 * it) and whether a '\n' ended it, or 0 at the end of the buffer.  The
 * line points into the buffer.
 */
int frames_latency_next_line(struct frames_latency_lines *it, const char **line,
			     size_t *len, int *terminated);

/* dst += a - b, field by field; b may be NULL. */
void frames_latency_stats_add(struct frames_latency_stats *dst,
			      const struct frames_latency_stats *a,
			      const struct frames_latency_stats *b);

#endif
