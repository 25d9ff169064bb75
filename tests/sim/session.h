/*
 * Writes a recorded-session directory (docs/DESIGN.md 7.2) from a world:
 * input.getevent, frames.pftrace, foreground.log, device.json, and the
 * ground truth, truth.json.
 */
#ifndef TAPD_SIM_SESSION_H
#define TAPD_SIM_SESSION_H

#include <stdint.h>

#include "world.h"

/*
 * Computes the truth of w and writes the session into dir (created if
 * missing).  Returns 0, or a negative errno after printing why (-EPROTO
 * when the truth refuses the world: a bug in a scenario).
 */
int session_write(const struct world *w, const char *dir, const char *scenario,
		  uint64_t seed);

#endif
