/*
 * tapctl percentiles: nearest-rank percentiles of one latency (GET
 * /v1/percentiles), with the distribution (GET /v1/histogram) after them
 * for --histogram.
 */
#ifndef TAPCTL_CMD_PERCENTILES_H
#define TAPCTL_CMD_PERCENTILES_H

#include <stdio.h>

#include "cmd.h"

/* Prints the synopsis of percentiles, for tapctl's usage. */
void cmd_percentiles_usage(FILE *f);

/*
 * Prints the answer's fields and a table of the percentiles, then the
 * histogram's buckets with bars; with --json the server's JSON (both
 * answers as one object with --histogram).  Returns an exit code
 * (CMD_EXIT_*).
 */
int cmd_percentiles(struct cmd_ctx *ctx, int argc, char **argv);

#endif
