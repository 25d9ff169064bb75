/*
 * The commands of tapctl.  Each takes its own arguments (argv[0] is the
 * command's name), talks to the API through the client in ctx, prints
 * results on stdout and diagnostics on stderr, and returns the exit code
 * of tapctl (CMD_EXIT_*).
 */
#ifndef TAPCTL_CMD_H
#define TAPCTL_CMD_H

#include <stdio.h>

#include "http.h"

/* The exit codes of tapctl (tapctl.1, README.md). */
#define CMD_EXIT_OK	  0 /* done */
#define CMD_EXIT_USAGE	  1 /* bad usage, or a local file or output failed */
#define CMD_EXIT_CONNECT  2 /* no connection, or no answer in time */
#define CMD_EXIT_HTTP	  3 /* the server answered with an HTTP error */
#define CMD_EXIT_RESPONSE 4 /* the answer is not what the API promises */

struct cmd_ctx {
	struct http *http;
	int json;	/* --json: print the server's JSON as it is */
	long timeout_s; /* --timeout, for messages and idle limits */
};

/* The command called name, or NULL; for tapctl.c's dispatch. */
typedef int (*cmd_fn)(struct cmd_ctx *ctx, int argc, char **argv);
cmd_fn cmd_find(const char *name);

/* Prints the synopsis of every command. */
void cmd_usage(FILE *f);

#endif
