/*
 * The frames of the correlator (correlate.h): a pool indexed by start and
 * by present, fed by correlate_feed_frame() and pruned behind the oldest
 * tap still to come.
 */
#ifndef TAPD_CORRELATE_FRAMES_H
#define TAPD_CORRELATE_FRAMES_H

#include <stdint.h>

#include "correlate_int.h"

/* The first index of by_start whose frame starts at or after t. */
uint32_t correlate_frames_lower_start(const struct correlate *c, int64_t t);

/* The first index of by_present whose frame is presented at or after t. */
uint32_t correlate_frames_lower_present(const struct correlate *c, int64_t t);

/*
 * Moves the horizon up to the oldest t_up still to come and drops the
 * frames no tap can read any more (see correlate.c).
 */
void correlate_frames_prune(struct correlate *c);

#endif
