/*
 * windows.log and processes.log (docs/formats.md 4.5) of a world with
 * window lists: each list as a block `@ MONOTONIC_NS` and the text
 * Android 14 (from its QPR releases) and 15 print for `dumpsys input`
 * (docs/formats.md 4.4), and one line per window owner.
 */
#ifndef TAPD_SIM_WINLOG_OUT_H
#define TAPD_SIM_WINLOG_OUT_H

#include "world.h"

/*
 * Writes both files, windows_path and processes_path, when w has window
 * lists (nothing otherwise).  Returns 0 or a negative errno after
 * printing why.
 */
int winlog_out_write(const struct world *w, const char *windows_path,
		     const char *processes_path);

#endif
