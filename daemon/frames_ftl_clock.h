/*
 * The clocks of the FrameTimeline reader (frames_ftl.h): ClockSnapshots
 * kept, and trace timestamps converted to CLOCK_MONOTONIC with them.
 */
#ifndef TAPD_FRAMES_FTL_CLOCK_H
#define TAPD_FRAMES_FTL_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frames_ftl_int.h"

/*
 * The clock of packets without timestamp_clock_id: the snapshots' primary
 * clock, else the configured one, else BOOTTIME.
 */
uint32_t frames_ftl_clock_default(const struct frames_ftl *r);

/*
 * Converts ts of clock to MONOTONIC into *out.  Returns 0; 1 when no
 * snapshot has the clock and the reader stopped waiting for one (the time
 * is then taken with an offset of 0, counted in clock_assumed); -ERANGE
 * for a time out of range or -ENOENT for a clock without a snapshot, each
 * counted in r's stats.
 */
int frames_ftl_clock_to_mono(struct frames_ftl *r, uint32_t clock, uint64_t ts,
			     int64_t *out);

/*
 * Holds the event ev of kind, in the packet whose header is pk, when its
 * clock needs a snapshot that has not come and the reader still waits for
 * one (frames_ftl.h, Clocks); the layer name is copied.  Returns true when
 * the event was taken: it is applied through frames_ftl_join_apply() when
 * a snapshot comes, at the bound or at frames_ftl_clock_end().
 */
bool frames_ftl_clock_hold(struct frames_ftl *r,
			   const struct frames_ftl_pkt *pk, int kind,
			   const struct frames_ftl_event *ev);

/* At the end of the input: the events still held are read with offset 0. */
void frames_ftl_clock_end(struct frames_ftl *r);

/* Frees what frames_ftl_clock_hold() allocated. */
void frames_ftl_clock_free(struct frames_ftl *r);

/*
 * Reads the ClockSnapshot message buf[0..len) and keeps it when it has
 * CLOCK_MONOTONIC; a malformed one is counted and ignored.
 */
void frames_ftl_clock_snapshot(struct frames_ftl *r, const uint8_t *buf,
			       size_t len);

#endif
