/*
 * The live part of the attribution (attrib.h): reading InputDispatcher's
 * window list with `dumpsys input` at a touch-down, without waiting for
 * it, and recording what was used in windows.log and processes.log
 * (docs/formats.md 4.5) so that a replay of the session attributes its
 * taps exactly as the live run did.
 *
 * A first touch-down reads a list when the newest one is stale: none was
 * read yet, it is empty, it is older than ATTRIB_LIVE_REFRESH_MS (the
 * keyboard and the shade come and go without a change of focus), or the
 * foreground changed since it was read (then an empty block is recorded
 * first, at the touch-down: the old list no longer holds).  One read at
 * a time, through the child runner (child.h), killed after its timeout;
 * after a failure none is started for ATTRIB_LIVE_RETRY_MS.
 *
 * A list is in force from the moment its output was taken in, on the
 * daemon's CLOCK_MONOTONIC, which is the time its block carries in
 * windows.log; a read that failed records an empty block at that time.
 * A gesture ending at t_up is decided against the newest list taken in
 * at or before t_up, as a replay of windows.log decides it, and its
 * window's owner (owner.h) is written to processes.log at t_up the first
 * time that pid, uid and package are seen (an owner without a uid or a
 * pid is not looked up, in either).  windows.log stops growing at
 * ATTRIB_LIVE_LOG_MAX bytes, with a warning; lists are still read.
 * Under --record they are the recording's, bounded by its rotation.
 */
#ifndef TAPD_ATTRIB_LIVE_H
#define TAPD_ATTRIB_LIVE_H

#include "attrib.h"

struct foreground;
struct loop;

#define ATTRIB_LIVE_REFRESH_MS 2000
#define ATTRIB_LIVE_RETRY_MS   5000
#define ATTRIB_LIVE_TIMEOUT_MS 800
#define ATTRIB_LIVE_OUT_MAX    (8 * 1024 * 1024)
#define ATTRIB_LIVE_LOG_MAX    (64LL * 1024 * 1024)

struct attrib_live_config {
	struct loop *loop;	 /* required: the children's fd goes on it */
	const char *dumpsys_bin; /* NULL for "dumpsys" */
	const char *sysroot;	 /* prefix of /proc and /data; NULL or "" */
	const char *db;		 /* the logs go beside it; NULL: nowhere */
	/*
	 * tapd run --record: the logs go into the recording instead, and
	 * start over after each of its rotations (record.h).
	 */
	struct record *record;
	const struct foreground *fg; /* its switches make a list stale */
	int timeout_ms;		     /* 0 for ATTRIB_LIVE_TIMEOUT_MS */
};

/*
 * The live attribution of a daemon: *out NULL (and 0) when dumpsys
 * cannot run (no Android) or the panel's ranges are unknown, as there is
 * nothing to hit-test then.  Returns 0, or what attrib_live_start()
 * returned.
 */
int attrib_live_new(const struct attrib_live_config *cfg,
		    const struct hittest_axes *axes, struct attrib **out);

/*
 * Makes a the live reader's.  Returns 0, or a negative errno (logged)
 * when the children's fd, the owner lookup or a log cannot be set up.
 */
int attrib_live_start(struct attrib *a, const struct attrib_live_config *cfg);

#endif
