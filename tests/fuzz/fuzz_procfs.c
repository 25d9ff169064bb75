/*
 * libFuzzer target for the /proc and cgroup readers of the live
 * foreground tracker (foreground_topapp.h, docs/formats.md 4.1), through
 * their sysroot: the input is split at each line "===" into the files
 * of a fake root, in this order: dev/cpuset/top-app/cgroup.procs, then
 * for each of the pids 100 to 103 proc/PID/stat, status, cmdline and
 * oom_score_adj.  A part the input does not reach is a missing file.
 * top-app is read twice (the second read answers from the cache), then
 * every pid's oom_score_adj; what comes out must be what the header
 * promises.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "foreground.h"
#include "foreground_topapp.h"
#include "log.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PIDS 4

static const char *const proc_files[] = {"stat", "status", "cmdline",
					 "oom_score_adj"};
static char root[512];

static void
mkdir_or_die(const char *path)
{
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		abort();
}

static void
cleanup(void)
{
	fuzz_rmtree(root);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[700];
	int i;

	(void)argc;
	(void)argv;
	log_init(NULL, LOG_LEVEL_ERROR);
	fuzz_tmpdir(root, sizeof(root), "procfs");
	snprintf(path, sizeof(path), "%s/dev", root);
	mkdir_or_die(path);
	snprintf(path, sizeof(path), "%s/dev/cpuset", root);
	mkdir_or_die(path);
	snprintf(path, sizeof(path), "%s/dev/cpuset/top-app", root);
	mkdir_or_die(path);
	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir_or_die(path);
	for (i = 0; i < PIDS; i++) {
		snprintf(path, sizeof(path), "%s/proc/%d", root, 100 + i);
		mkdir_or_die(path);
	}
	atexit(cleanup);
	return 0;
}

/* The next part of the input, up to "\n===\n" (the newline kept). */
static int
part(const uint8_t **p, const uint8_t *end, const uint8_t **start, size_t *len)
{
	const uint8_t *q;

	if (*p >= end)
		return 0;
	*start = *p;
	for (q = *p; end - q >= 5; q++)
		if (memcmp(q, "\n===\n", 5) == 0) {
			*len = (size_t)(q + 1 - *p);
			*p = q + 5;
			return 1;
		}
	*len = (size_t)(end - *p);
	*p = end;
	return 1;
}

static void
check(const struct foreground_topapp_proc *procs, size_t n, size_t pids)
{
	size_t i, len;

	if (n > pids || pids > FOREGROUND_TOPAPP_PIDS_MAX)
		abort();
	for (i = 0; i < n; i++) {
		const struct foreground_topapp_proc *e = &procs[i];

		if (e->pid < 1 || e->pid > FOREGROUND_PID_MAX)
			abort();
		len = strnlen(e->package, sizeof(e->package));
		if (len == sizeof(e->package))
			abort();
		/* An app is named by a valid package. */
		if (e->is_app && !foreground_valid_package(e->package))
			abort();
		if (e->is_main && !e->is_app)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *s;
	const struct foreground_topapp_proc *procs;
	struct foreground_topapp *t = NULL;
	char path[800];
	size_t len, n;
	int i, f, rc, oom;

	snprintf(path, sizeof(path), "%s/dev/cpuset/top-app/cgroup.procs",
		 root);
	if (part(&p, end, &s, &len))
		fuzz_write(path, s, len);
	else
		unlink(path);
	for (i = 0; i < PIDS; i++)
		for (f = 0; f < 4; f++) {
			snprintf(path, sizeof(path), "%s/proc/%d/%s", root,
				 100 + i, proc_files[f]);
			if (part(&p, end, &s, &len))
				fuzz_write(path, s, len);
			else
				unlink(path);
		}
	if (foreground_topapp_new(root, &t) != 0)
		abort();
	for (i = 0; i < 2; i++) {
		rc = foreground_topapp_read(t, &procs, &n);
		/* A missing or unreadable cgroup.procs is an error, no more. */
		if (rc == 0)
			check(procs, n, foreground_topapp_pids(t));
		else if (rc > 0)
			abort();
	}
	for (i = 0; i < PIDS + 1; i++) {
		oom = foreground_topapp_oom(t, 100 + i);
		if (oom != FOREGROUND_TOPAPP_OOM_UNKNOWN &&
		    (oom < -1000 || oom > 1000))
			abort();
	}
	foreground_topapp_free(t);
	return 0;
}
