/*
 * adb, for reaching the tapd of each phone from one host: the devices adb
 * sees, and a forward of a free local port to a device's tapd (adb picks
 * the port: `adb -s SERIAL forward tcp:0 tcp:7878`), removed after.  adb
 * is run from PATH (or $ADB), never through a shell.
 */
#ifndef TAPCTL_ADB_H
#define TAPCTL_ADB_H

#include <stddef.h>

/* The port tapd listens on, on the device. */
#define ADB_TAPD_PORT 7878

/* A device as `adb devices` lists it. */
struct adb_device {
	char serial[128];
	char state[32]; /* "device", "unauthorized", "offline", ... */
};

/*
 * Lists the devices (`adb devices`) into *out (malloc'd, free()) and *n.
 * Returns 0, or -1 after saying why on stderr.
 */
int adb_devices(struct adb_device **out, size_t *n);

/*
 * Forwards a free local port to remote_port on the device serial; sets
 * *local_port.  Returns 0, or -1 after saying why.
 */
int adb_forward(const char *serial, int remote_port, int *local_port);

/* Removes that forward.  Returns 0, or -1 after saying why. */
int adb_forward_remove(const char *serial, int local_port);

/*
 * Runs argv (argv[0] looked up in PATH, no shell) with its stdout into
 * *out (malloc'd, NUL-terminated, at most 4 MiB; free() it) and its
 * stderr left as it is: for adb, and for the children of tapctl --all.
 * Returns the exit status (128 when killed), or -1 after saying why it
 * could not run.
 */
int adb_exec(char **argv, char **out);

#endif
