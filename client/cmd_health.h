/* tapctl health: the daemon's state (GET /v1/health). */
#ifndef TAPCTL_CMD_HEALTH_H
#define TAPCTL_CMD_HEALTH_H

#include <stdio.h>

#include "cmd.h"

/* Prints the synopsis of health, for tapctl's usage. */
void cmd_health_usage(FILE *f);

/*
 * Prints the health as "name value" lines and a table of the sources, or
 * its JSON with --json.  Takes no options.  Returns an exit code
 * (CMD_EXIT_*).
 */
int cmd_health(struct cmd_ctx *ctx, int argc, char **argv);

#endif
