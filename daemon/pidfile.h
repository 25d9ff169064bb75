/*
 * The live daemon's pidfile, locked for the daemon's life: a second tapd
 * on the same file finds it locked and refuses, and a stale file of a
 * dead one is simply taken over.
 */
#ifndef TAPD_PIDFILE_H
#define TAPD_PIDFILE_H

/*
 * Opens, locks and writes path (the pid and a newline).  Returns 0 and
 * sets *out to the locked file, which stays open until pidfile_release();
 * -EEXIST when another process holds it, or a negative errno, after
 * logging what failed.
 */
int pidfile_take(const char *path, int *out);

/* Deletes path and closes fd; fd < 0 (never taken) is a no-op. */
void pidfile_release(const char *path, int fd);

#endif
