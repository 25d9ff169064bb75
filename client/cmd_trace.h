/*
 * tapctl trace: the taps as a Chrome Trace Event Format file (GET
 * /v1/trace), streamed to the file, never held in memory.
 */
#ifndef TAPCTL_CMD_TRACE_H
#define TAPCTL_CMD_TRACE_H

#include <stdio.h>

#include "cmd.h"

/* Prints the synopsis of trace, for tapctl's usage. */
void cmd_trace_usage(FILE *f);

/*
 * Writes the trace to the file of -o under a temporary name beside it,
 * renamed when complete (so a failed export leaves nothing behind), or
 * to stdout for "-o -"; then says how many bytes it wrote.  Returns an
 * exit code (CMD_EXIT_*).
 */
int cmd_trace(struct cmd_ctx *ctx, int argc, char **argv);

#endif
