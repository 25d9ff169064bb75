/*
 * tapctl session: start a named session (POST /v1/sessions), stop one
 * (POST /v1/sessions/ID/stop), or list them (GET /v1/sessions).
 */
#ifndef TAPCTL_CMD_SESSION_H
#define TAPCTL_CMD_SESSION_H

#include <stdio.h>

#include "cmd.h"

/* Prints the synopsis of session, for tapctl's usage. */
void cmd_session_usage(FILE *f);

/*
 * Runs "session start NAME", "session stop ID" or "session list" and
 * prints the session or the sessions (the JSON with --json).  Returns an
 * exit code (CMD_EXIT_*).
 */
int cmd_session(struct cmd_ctx *ctx, int argc, char **argv);

#endif
