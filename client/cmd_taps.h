/* tapctl taps: stored taps, oldest first (GET /v1/taps). */
#ifndef TAPCTL_CMD_TAPS_H
#define TAPCTL_CMD_TAPS_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "cmd.h"

/* Prints the synopsis of taps, for tapctl's usage. */
void cmd_taps_usage(FILE *f);

/*
 * Prints a page of taps as a table, with a line on stderr naming the
 * --after-id of the next page when there is one; the server's JSON, NDJSON
 * or CSV as it is with --json or --format.  Returns an exit code
 * (CMD_EXIT_*).
 */
int cmd_taps(struct cmd_ctx *ctx, int argc, char **argv);

/* The columns of a tap's row. */
#define CMD_TAPS_NCELLS 12

/*
 * The cells of a tap's row (id, time, app, how the app was decided, the
 * window hit, kind, status, both latencies in ms to the microsecond,
 * frames, flags, and the jank tags the server derived as Perfetto does,
 * "-" for none or from a server without them), cleaned of control
 * characters; for tail too, which prints the same columns.
 */
void cmd_taps_cells(const cJSON *tap, char cells[CMD_TAPS_NCELLS][256]);

#endif
