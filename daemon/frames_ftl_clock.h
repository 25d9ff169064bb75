/*
 * The clocks of the FrameTimeline reader (frames_ftl.h): ClockSnapshots
 * kept, and trace timestamps converted to CLOCK_MONOTONIC with them.
 */
#ifndef TAPD_FRAMES_FTL_CLOCK_H
#define TAPD_FRAMES_FTL_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "frames_ftl_int.h"

/*
 * The clock of packets without timestamp_clock_id: the snapshots' primary
 * clock, else the configured one, else BOOTTIME.
 */
uint32_t frames_ftl_clock_default(const struct frames_ftl *r);

/*
 * Converts ts of clock to MONOTONIC into *out.  Returns 0, -ERANGE for a
 * time out of range or -ENOENT for a clock without a snapshot, each
 * counted in r's stats.
 */
int frames_ftl_clock_to_mono(struct frames_ftl *r, uint32_t clock, uint64_t ts,
			     int64_t *out);

/*
 * Reads the ClockSnapshot message buf[0..len) and keeps it when it has
 * CLOCK_MONOTONIC; a malformed one is counted and ignored.
 */
void frames_ftl_clock_snapshot(struct frames_ftl *r, const uint8_t *buf,
			       size_t len);

#endif
