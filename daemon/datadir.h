/*
 * Where `tapd run` keeps its database when it is not given --db, as the
 * Android build does: Magisk's data directory (/data/adb/tapd), which only
 * root can reach, and otherwise a directory of its own under
 * /data/local/tmp, which any user of the device may use.  Falling back is
 * not an error but a degraded state: the taps are kept, in a place that
 * survives less well (a cleanup of /data/local/tmp) and that other users
 * of the device may see.
 *
 * A directory is used when it is a real directory (not a symbolic link)
 * owned by the effective user, who may write and search it; one that does
 * not exist is made, mode 0700, its parent must exist.  Under a sysroot
 * (tests only), both are looked for under it.
 */
#ifndef TAPD_DATADIR_H
#define TAPD_DATADIR_H

#include <limits.h>

/*
 * The directories, in the order they are tried, and the file in them.  The
 * fallback is not /data/local/tmp/tapd because that is where the binary
 * itself lands with the usual `adb push tapd /data/local/tmp/`.
 */
#define DATADIR_PRIMARY	 "/data/adb/tapd"
#define DATADIR_FALLBACK "/data/local/tmp/tapd-data"
#define DATADIR_DB_NAME	 "taps.db"

struct datadir_choice {
	char dir[PATH_MAX]; /* the directory used, under the sysroot */
	char db[PATH_MAX];  /* dir/taps.db */
	int fallback;	    /* 1 when the primary could not be used */
	/*
	 * Why the primary could not be used ("cannot use '/data/adb/tapd':
	 * Permission denied"), or why neither could when the pick failed;
	 * "" when the primary was used.
	 */
	char why[2 * PATH_MAX + 128];
};

/*
 * Makes or checks the primary directory and, if it cannot be used, the
 * fallback.  sysroot is NULL or "" for none.  Returns 0 with *out filled,
 * or the negative errno of the fallback when neither can be used (out->why
 * then tells both stories), -ENAMETOOLONG when a path does not fit.
 * Logs nothing: the caller decides how loudly to say it.
 */
int datadir_pick(const char *sysroot, struct datadir_choice *out);

/*
 * The same for any two directories: the primary one, then the fallback
 * (NULL for none).  For tests; datadir_pick() passes the two above.
 */
int datadir_pick_from(const char *sysroot, const char *primary,
		      const char *fallback, struct datadir_choice *out);

#endif
