/*
 * What attrib.c and attrib_live.c share and no caller needs: the state
 * of an attribution.  Only those two files include it.
 */
#ifndef TAPD_ATTRIB_INT_H
#define TAPD_ATTRIB_INT_H

#include <stdint.h>
#include <stdio.h>

#include "attrib.h"

struct child;
struct child_set;
struct loop;
struct owner;
struct processes_log;
struct windows_log;

/* Live lists kept: the newest and those a late t_up may still need. */
#define ATTRIB_RING 4
/* Owners already written to processes.log, remembered to write once. */
#define ATTRIB_WRITTEN 64

/* A list the live daemon read (wl NULL: none holds from t_ns on). */
struct attrib_block {
	int64_t t_ns;
	struct winlist *wl;
};

struct attrib_written {
	int32_t pid;
	int64_t uid;
	char package[FOREGROUND_PACKAGE_MAX + 1];
};

struct attrib {
	struct hittest_axes axes;
	int have_axes;
	int have_down;
	int32_t down_x, down_y;
	int64_t down_ns;

	/* Replay. */
	struct windows_log *wlog;
	struct processes_log *plog;

	/* Live (attrib_live.c): lists, oldest first, and their recording. */
	int live;
	struct attrib_block ring[ATTRIB_RING];
	size_t nring;
	struct owner *owner;
	struct loop *loop;
	struct child_set *cs;
	struct child *child;
	const struct foreground *fg;
	int32_t fg_pid; /* the foreground the newest list was read under */
	char fg_app[FOREGROUND_PACKAGE_MAX + 1];
	char *dumpsys;
	FILE *windows_out;
	FILE *processes_out;
	/* With --record the two are the recording's (record.h). */
	struct record *record;
	unsigned record_gen;
	int record_stale; /* rotated: the list is read again */
	uint64_t windows_bytes;
	int64_t retry_ns; /* no read before it, after a failure */
	int timeout_ms;
	int windows_full;
	struct attrib_written written[ATTRIB_WRITTEN];
	size_t nwritten, next_written;

	char app[FOREGROUND_PACKAGE_MAX + 1];
	char window[WINLIST_NAME_MAX + 1];
	struct attrib_stats st;
};

/*
 * From attrib_live.c: the live list in force at t_ns (NULL when none),
 * the package of a window's owner (0, or -ENOENT), recorded in
 * processes.log, and the cleanup of the live part.
 */
const struct winlist *attrib__live_at(const struct attrib *a, int64_t t_ns);
int attrib__live_owner(struct attrib *a, int64_t t_ns, int32_t pid, int64_t uid,
		       char *package, size_t size);
void attrib__live_down(struct attrib *a, int64_t t_ns);
void attrib__live_free(struct attrib *a);

#endif
