/*
 * Part 1 of the --latency reader (frames_latency.h): one --latency output.
 */
#ifndef TAPD_FRAMES_LATENCY_PARSE_H
#define TAPD_FRAMES_LATENCY_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "frames_latency.h"

struct frames_latency_snapshot;

/*
 * Parses buf[0..len) (need not be NUL-terminated).  Returns 0 and sets
 * *out, or -ENOMEM.  Free with frames_latency_snapshot_free().
 */
int frames_latency_snapshot_parse(const char *buf, size_t len,
				  struct frames_latency_snapshot **out);

/* NULL is a no-op. */
void frames_latency_snapshot_free(struct frames_latency_snapshot *snap);

/* The period line's value in ns, or -1 when there was none. */
int64_t
frames_latency_snapshot_period(const struct frames_latency_snapshot *snap);

/* A vendor first line `now = <ns>`'s value, or -1 when there was none. */
int64_t frames_latency_snapshot_now(const struct frames_latency_snapshot *snap);

/* 1 when the output ended as dumpsys ends it (see above), else 0. */
int
frames_latency_snapshot_complete(const struct frames_latency_snapshot *snap);

/* Rows kept, in printed order (oldest first). */
size_t frames_latency_snapshot_rows(const struct frames_latency_snapshot *snap);

/* Row i, or NULL when i is out of range. */
const struct frames_latency_row *
frames_latency_snapshot_row(const struct frames_latency_snapshot *snap,
			    size_t i);

/*
 * Fills snapshots (1), incomplete, rows, zero_rows, pending_rows,
 * invalid_rows, rows_over and garbage_lines.
 */
void
frames_latency_snapshot_get_stats(const struct frames_latency_snapshot *snap,
				  struct frames_latency_stats *st);

#endif
