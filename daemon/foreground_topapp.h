/*
 * The apps in Android's top-app cpuset, for the live foreground tracker
 * (foreground_live.h, which says which processes count as apps).
 *
 * A read takes <sysroot>/dev/cpuset/top-app/cgroup.procs, then for each
 * pid /proc/<pid>/stat (its start time).  A pid seen in the last read
 * with the same start time is answered from a cache; a new one, or a
 * reused pid, is read from /proc/<pid>/cmdline (the package: the first
 * argument, less any ":service" suffix) and /proc/<pid>/status (the
 * uid).  Files are opened O_NONBLOCK and read to a bound, so a read never
 * waits on anything but the kernel.  Not thread-safe.
 */
#ifndef TAPD_FOREGROUND_TOPAPP_H
#define TAPD_FOREGROUND_TOPAPP_H

#include <stddef.h>
#include <stdint.h>

#include "foreground.h"

/* Largest number of pids of top-app looked at in one read. */
#define FOREGROUND_TOPAPP_PIDS_MAX 512

/* What foreground_topapp_oom() says when it cannot tell: worse than any. */
#define FOREGROUND_TOPAPP_OOM_UNKNOWN 1001

/* One process of top-app, as read from /proc. */
struct foreground_topapp_proc {
	int32_t pid;
	uint64_t start; /* clock ticks after boot: field 22 of stat */
	int is_app;	/* an app's name and uid (see foreground_live.h) */
	int is_main;	/* the process name is the package itself */
	char package[FOREGROUND_PACKAGE_MAX + 1];
};

/* Counters since foreground_topapp_new(). */
struct foreground_topapp_stats {
	uint64_t cache_hits;   /* pids answered from the cache */
	uint64_t cache_misses; /* pids read from /proc */
	uint64_t vanished;     /* pids gone before /proc was read */
	uint64_t proc_errors;  /* pids whose /proc files were unreadable */
	uint64_t garbage;      /* cgroup.procs lines that are not pids */
	uint64_t dropped_pids; /* pids past FOREGROUND_TOPAPP_PIDS_MAX */
};

struct foreground_topapp;

/*
 * sysroot prefixes every /dev and /proc path (tests only; NULL or "").
 * Returns 0 and sets *out; -EINVAL for a sysroot too long (logged), or
 * -ENOMEM.  Free with foreground_topapp_free().
 */
int foreground_topapp_new(const char *sysroot, struct foreground_topapp **out);

/* NULL is a no-op. */
void foreground_topapp_free(struct foreground_topapp *t);

/*
 * Reads top-app: returns 0 and sets *procs to its n processes (valid
 * until the next read), -ENOENT when top-app does not exist (not
 * Android), another negative errno when cgroup.procs cannot be read, or
 * -ENOMEM.
 */
int foreground_topapp_read(struct foreground_topapp *t,
			   const struct foreground_topapp_proc **procs,
			   size_t *n);

/* The pids of top-app in the last read, readable or not. */
size_t foreground_topapp_pids(const struct foreground_topapp *t);

/*
 * How many processes of the last read tapd was denied (EACCES, EPERM),
 * and the first of them with its errno.
 */
size_t foreground_topapp_denied(const struct foreground_topapp *t, int32_t *pid,
				int *err);

/* /proc/<pid>/oom_score_adj, or FOREGROUND_TOPAPP_OOM_UNKNOWN. */
int foreground_topapp_oom(const struct foreground_topapp *t, int32_t pid);

void foreground_topapp_get_stats(const struct foreground_topapp *t,
				 struct foreground_topapp_stats *st);

/*
 * The /proc readers of a top-app read, for any process: the file name
 * of <sysroot>/proc/<pid> read to at most size - 1 bytes, NUL-terminated
 * (0 and *len, or a negative errno); its start time, field 22 of stat
 * (0, or a negative errno: -ENOENT for a process exiting); its real uid
 * from status, or -1.
 */
int foreground_topapp_proc_file(const struct foreground_topapp *t, int32_t pid,
				const char *name, char *buf, size_t size,
				size_t *len);
int foreground_topapp_proc_start(const struct foreground_topapp *t, int32_t pid,
				 uint64_t *start);
int64_t foreground_topapp_proc_uid(const struct foreground_topapp *t,
				   int32_t pid);

/*
 * One of several arrays that grow together: the address of its pointer
 * and the size of an element.
 */
struct foreground_topapp_array {
	void *ptr;
	size_t size;
};

/*
 * Grows the n arrays to hold need elements each, doubling *cap from 16;
 * *cap changes only when all of them grew.  Returns 0 or -ENOMEM.
 */
int foreground_topapp_grow(const struct foreground_topapp_array *a, size_t n,
			   size_t *cap, size_t need);

#endif
