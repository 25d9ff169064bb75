/*
 * getevent log writer: the world's input events as `getevent -lt` prints
 * them (AOSP toolbox/getevent.c): "[%8ld.%06ld] ", then "<device>: " when
 * getevent watched every device, then the type label "%-12.12s", the code
 * label " %-20.20s" and the value, a label " %-20.20s" for keys or
 * " %08x" followed by twelve spaces.  Optional "add device" headers.
 */
#ifndef TAPD_SIM_GETEVENT_OUT_H
#define TAPD_SIM_GETEVENT_OUT_H

#include <stdint.h>

#include "world.h"

/*
 * Writes the log of w to path.  Returns 0 and sets *lines (may be NULL)
 * to the number of lines written, or a negative errno after printing why.
 */
int getevent_out_write(const struct world *w, const char *path,
		       uint64_t *lines);

#endif
