/* tapctl tail: the taps as the daemon finalizes them (GET /v1/events). */
#ifndef TAPCTL_CMD_TAIL_H
#define TAPCTL_CMD_TAIL_H

#include <stdio.h>

#include "cmd.h"

/* Prints the synopsis of tail, for tapctl's usage. */
void cmd_tail_usage(FILE *f);

/*
 * Prints one line per tap of the event stream (its JSON with --json),
 * flushed at once, until SIGINT or SIGTERM (CMD_EXIT_OK).  When the stream
 * ends or breaks (the daemon restarts), it reconnects with Last-Event-ID
 * set to the id of the last tap printed, so that no tap is lost or printed
 * twice, after the server's retry delay, doubled for each failed attempt
 * (at most 30 s), saying so on stderr ("warning: ..."); it gives up
 * (CMD_EXIT_CONNECT) once it has had no stream for --retry-for S seconds
 * (300 by default; 0 ends at the first loss, as the stream's end gives
 * CMD_EXIT_OK).  A first connection that fails ends it at once.  Returns
 * an exit code (CMD_EXIT_*).
 */
int cmd_tail(struct cmd_ctx *ctx, int argc, char **argv);

#endif
