/*
 * The trace files' watch for frames_perfetto.c: one inotify fd, a watch
 * per open file (IN_MODIFY, IN_CLOSE_WRITE), so that a file is read when
 * perfetto writes it rather than on a timer.  Where inotify is missing or
 * out of watches, each call says so (-1) and the caller polls instead.
 */
#ifndef TAPD_FRAMES_NOTIFY_H
#define TAPD_FRAMES_NOTIFY_H

/*
 * A non-blocking inotify fd, or -1 (logged, with poll_ms: the period the
 * caller falls back to).  The caller closes it.
 */
int frames_notify_open(unsigned poll_ms);

/* The watch of path on fd (fd < 0: none), or -1. */
int frames_notify_watch(int fd, const char *path);

/* Ends a watch; wd < 0 (none) is a no-op. */
void frames_notify_unwatch(int fd, int wd);

/* Reads the events queued on fd: 1 when a watched file changed, else 0. */
int frames_notify_drain(int fd);

#endif
