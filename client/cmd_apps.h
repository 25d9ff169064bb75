/* tapctl apps: one row per app (GET /v1/apps). */
#ifndef TAPCTL_CMD_APPS_H
#define TAPCTL_CMD_APPS_H

#include <stdio.h>

#include "cmd.h"

/* Prints the synopsis of apps, for tapctl's usage. */
void cmd_apps_usage(FILE *f);

/*
 * Prints the apps as the replay summary shows them (gestures, taps, ok
 * and no_response counts, p50/p90/p99 of both latencies), or the JSON
 * with --json.  Returns an exit code (CMD_EXIT_*).
 */
int cmd_apps(struct cmd_ctx *ctx, int argc, char **argv);

#endif
