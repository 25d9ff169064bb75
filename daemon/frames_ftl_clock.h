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
 * Whether an event of clock must wait for a snapshot: a builtin clock
 * other than MONOTONIC that no snapshot has, while the reader still waits
 * (frames_ftl.h, Clocks).  Inline: it is asked of every event.
 */
static inline bool
frames_ftl_clock_waits(const struct frames_ftl *r, uint32_t clock)
{
	return clock != FTL_CLOCK_MONOTONIC && clock != 0 &&
	       clock < CLOCK_SLOTS && (r->snap_clocks & (1u << clock)) == 0 &&
	       !r->assume;
}

/*
 * Holds the event ev of kind, in the packet whose header is pk, whose
 * clock frames_ftl_clock_waits() for; the layer name is copied.  Returns
 * true when the event was taken: it is applied through
 * frames_ftl_join_apply() when a snapshot comes, at the bound or at
 * frames_ftl_clock_end(); false for a timestamp out of range, which the
 * conversion rejects and counts.
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
