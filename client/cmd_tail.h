/* tapctl tail: the taps as the daemon finalizes them (GET /v1/events). */
#ifndef TAPCTL_CMD_TAIL_H
#define TAPCTL_CMD_TAIL_H

#include <stdio.h>

#include "cmd.h"

/* Prints the synopsis of tail, for tapctl's usage. */
void cmd_tail_usage(FILE *f);

/*
 * Prints one line per tap of the event stream (its JSON with --json),
 * flushed at once, until SIGINT or SIGTERM (CMD_EXIT_OK) or the server
 * ends the stream.  Takes no options.  Returns an exit code (CMD_EXIT_*).
 */
int cmd_tail(struct cmd_ctx *ctx, int argc, char **argv);

#endif
