/*
 * Many phones from one host, through adb (adb.h): `tapctl devices` lists
 * the devices adb sees, whether a tapd answers on each and its version;
 * `tapctl --all COMMAND` runs a read command on every device and prints
 * one table with a DEVICE column.
 */
#ifndef TAPCTL_CMD_DEVICES_H
#define TAPCTL_CMD_DEVICES_H

#include <stdio.h>

#include "cmd.h"

void cmd_devices_usage(FILE *f);

int cmd_devices(struct cmd_ctx *ctx, int argc, char **argv);

/*
 * The global options a child of --all gets again (NULL: not given).
 * token_file and timeout as given on the command line.
 */
struct cmd_devices_globals {
	const char *token_file;
	const char *timeout;
};

/*
 * Runs `tapctl [globals] --serial SERIAL argv...` for every device in the
 * "device" state, and prints their tables as one, the device first.
 * argv[0] is the command, which must be a read command (health, apps,
 * percentiles, taps).  Returns the worst exit code of the children, or
 * CMD_EXIT_USAGE.
 */
int cmd_devices_all(const struct cmd_devices_globals *g, int argc, char **argv);

#endif
