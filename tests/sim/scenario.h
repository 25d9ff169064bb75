/*
 * Scenarios: named, seeded scripts that build a simulated world (device,
 * apps, gestures and what each app draws in reaction, the foreground
 * changes, and how the trace is written).  The same name, seed and
 * duration always give the same world.
 */
#ifndef TAPD_SIM_SCENARIO_H
#define TAPD_SIM_SCENARIO_H

#include <stdint.h>
#include <stdio.h>

#include "world.h"

/*
 * Prints the scenario names, one per line; with describe, a summary too.
 * which > 0 lists only the scenarios with window lists (windows.log),
 * which < 0 only the others, 0 all.
 */
void scenario_list(FILE *out, int describe, int which);

/* 1 when name is a scenario, else 0. */
int scenario_exists(const char *name);

/*
 * Builds scenario name with seed.  duration_s sets the length of the
 * session in seconds (0: the scenario's own).  Returns 0 and sets *out
 * (free with world_free()), -ENOENT for an unknown name, -EINVAL for a
 * duration out of range (5 s to 1 h), or -ENOMEM.
 */
int scenario_build(const char *name, uint64_t seed, int duration_s,
		   struct world **out);

#endif
