#include "foreground_topapp.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "foreground_window.h"
#include "log.h"
#include "parse.h"

#define TOPAPP_PATH	 "/dev/cpuset/top-app/cgroup.procs"
#define PROCS_READ_MAX	 65536
#define CMDLINE_READ_MAX 4096
#define STATUS_READ_MAX	 4096
#define STAT_READ_MAX	 1024
#define OOM_READ_MAX	 32
#define AID_SYSTEM	 1000
#define AID_RADIO	 1001
#define AID_APP_START	 10000
#define AID_USER_OFFSET	 100000
#define STAT_START_FIELD 22

struct foreground_topapp {
	char sysroot[PATH_MAX];
	char *buf; /* PROCS_READ_MAX bytes for cgroup.procs */
	int32_t *pids;
	size_t npids;

	/* Processes of the last sample, and the one being built. */
	struct foreground_topapp_proc *cache, *next;
	size_t ncache;
	size_t cap;

	/*
	 * The first top-app process of this sample whose /proc files tapd
	 * may not read (without root, hidepid), and how many.
	 */
	int32_t denied_pid;
	int denied_err;
	size_t ndenied;

	struct foreground_topapp_stats stats;
};

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Reads at most size - 1 bytes of path into buf and NUL-terminates them.
 * Returns 0 and sets *len, or a negative errno.
 */
static int
read_file(const char *path, char *buf, size_t size, size_t *len)
{
	size_t n = 0;
	ssize_t k;
	int fd, r = 0;

	*len = 0;
	buf[0] = '\0';
	/* O_NONBLOCK: a FIFO planted in a sysroot must not hang the loop. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	while (n < size - 1) {
		k = read(fd, buf + n, size - 1 - n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return r;
}

static int
proc_path(const struct foreground_topapp *fl, int32_t pid, const char *name,
	  char *path, size_t size)
{
	int n;

	n = snprintf(path, size, "%s/proc/%d/%s", fl->sysroot, (int)pid, name);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

static int
read_proc(const struct foreground_topapp *fl, int32_t pid, const char *name,
	  char *buf, size_t size, size_t *len)
{
	char path[PATH_MAX];
	int r;

	if ((r = proc_path(fl, pid, name, path, sizeof(path))) < 0)
		return r;
	return read_file(path, buf, size, len);
}

/*
 * The start time of pid from /proc/<pid>/stat.  The name in parentheses
 * may hold blanks and ')', so fields are counted after the last ')'.
 */
static int
read_start(const struct foreground_topapp *fl, int32_t pid, uint64_t *start)
{
	char buf[STAT_READ_MAX], *p, *end;
	unsigned long long v;
	size_t len;
	int field, r;

	if ((r = read_proc(fl, pid, "stat", buf, sizeof(buf), &len)) < 0)
		return r;
	if (len == 0)
		return -ENOENT; /* an exiting process */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	for (field = 3; field < STAT_START_FIELD; field++) {
		while (is_space(*p))
			p++;
		if (!*p)
			return -EINVAL;
		while (*p && !is_space(*p))
			p++;
	}
	while (is_space(*p))
		p++;
	if (!is_digit(*p))
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || (*end && !is_space(*end)))
		return -EINVAL;
	*start = v;
	return 0;
}

/* The real uid from the "Uid:" line of /proc/<pid>/status, or -1. */
static int64_t
read_uid(const struct foreground_topapp *fl, int32_t pid)
{
	char buf[STATUS_READ_MAX], *p, *end;
	long long v;
	size_t len;

	if (read_proc(fl, pid, "status", buf, sizeof(buf), &len) < 0)
		return -1;
	for (p = buf; *p; p++) {
		if (strncmp(p, "Uid:", 4) != 0) {
			p = strchr(p, '\n');
			if (!p)
				break;
			continue;
		}
		p += 4;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!is_digit(*p))
			return -1;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (errno || v > UINT32_MAX || (*end && !is_space(*end)))
			return -1;
		return v;
	}
	return -1;
}

/*
 * Apps run with an app id of 10000 and up; Settings and Phone are apps
 * too but share the system and radio uids.  Media and other daemons with
 * dotted names ("media.codec") have their own ids below 10000.
 */
static int
app_uid(int64_t uid)
{
	int64_t appid;

	if (uid < 0)
		return 1; /* unknown: the name decides */
	appid = uid % AID_USER_OFFSET;
	return appid >= AID_APP_START || appid == AID_SYSTEM ||
	       appid == AID_RADIO;
}

/*
 * Fills e from /proc/<pid>/cmdline and status.  Returns 0, or a negative
 * errno when the process is gone.
 */
static int
read_entry(const struct foreground_topapp *fl, int32_t pid, uint64_t start,
	   struct foreground_topapp_proc *e)
{
	char buf[CMDLINE_READ_MAX];
	const char *colon;
	size_t len, n;
	int r;

	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->start = start;
	if ((r = read_proc(fl, pid, "cmdline", buf, sizeof(buf), &len)) < 0)
		return r;
	/* The first argument ends at the first NUL; the rest is padding. */
	n = strlen(buf);
	if (n == 0 || buf[0] == '/')
		return 0; /* a kernel thread, a zombie, or a native binary */
	colon = memchr(buf, ':', n);
	if (colon)
		n = (size_t)(colon - buf);
	if (!foreground_window_package_ok(buf, n))
		return 0;
	if (!app_uid(read_uid(fl, pid)))
		return 0;
	memcpy(e->package, buf, n);
	e->package[n] = '\0';
	e->is_app = 1;
	e->is_main = colon == NULL;
	return 0;
}

int
foreground_topapp_grow(const struct foreground_topapp_array *a, size_t n,
		       size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 16, i;
	void *old, *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	/* The pointers move through memcpy: their types differ. */
	for (i = 0; i < n; i++) {
		memcpy(&old, a[i].ptr, sizeof(old));
		if (!(p = realloc(old, c * a[i].size)))
			return -ENOMEM;
		memcpy(a[i].ptr, &p, sizeof(p));
	}
	*cap = c;
	return 0;
}

static int
grow(struct foreground_topapp *fl, size_t need)
{
	const struct foreground_topapp_array a[] = {
		{&fl->cache, sizeof(*fl->cache)},
		{&fl->next, sizeof(*fl->next)},
	};

	return foreground_topapp_grow(a, sizeof(a) / sizeof(*a), &fl->cap,
				      need);
}

/*
 * Reads the pids of top-app into fl->pids: one decimal per line, others
 * counted as garbage, duplicates dropped.
 */
static int
read_top_app(struct foreground_topapp *fl)
{
	char path[PATH_MAX], *line, *nl, *end;
	size_t len, i;
	int64_t v;
	int n, r;

	fl->npids = 0;
	n = snprintf(path, sizeof(path), "%s%s", fl->sysroot, TOPAPP_PATH);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if ((r = read_file(path, fl->buf, PROCS_READ_MAX, &len)) < 0)
		return r == -ENOTDIR ? -ENOENT : r;
	if (len == PROCS_READ_MAX - 1) {
		/* Cut short: the last line may be part of a pid. */
		end = strrchr(fl->buf, '\n');
		if (end)
			end[1] = '\0';
		fl->stats.dropped_pids++;
	}
	for (line = fl->buf; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		while (is_space(*line))
			line++;
		end = line + strlen(line);
		while (end > line && is_space(end[-1]))
			*--end = '\0';
		if (!*line)
			continue;
		if (parse_int64(line, 1, FOREGROUND_PID_MAX, &v) < 0) {
			fl->stats.garbage++;
			continue;
		}
		for (i = 0; i < fl->npids; i++)
			if (fl->pids[i] == (int32_t)v)
				break;
		if (i < fl->npids)
			continue;
		if (fl->npids >= FOREGROUND_TOPAPP_PIDS_MAX) {
			fl->stats.dropped_pids++;
			continue;
		}
		fl->pids[fl->npids++] = (int32_t)v;
	}
	return 0;
}

static const struct foreground_topapp_proc *
cache_find(const struct foreground_topapp *fl, int32_t pid)
{
	size_t i;

	for (i = 0; i < fl->ncache; i++)
		if (fl->cache[i].pid == pid)
			return &fl->cache[i];
	return NULL;
}

/*
 * Builds the process list of this sample from the pids, reusing what the
 * last sample read for a pid with the same start time.
 */
static int
refresh_procs(struct foreground_topapp *fl)
{
	const struct foreground_topapp_proc *old;
	struct foreground_topapp_proc *e, *swap;
	uint64_t start, again;
	size_t i, n = 0;
	int r;

	if ((r = grow(fl, fl->npids)) < 0)
		return r;
	fl->ndenied = 0;
	for (i = 0; i < fl->npids; i++) {
		e = &fl->next[n];
		r = read_start(fl, fl->pids[i], &start);
		if (r == 0) {
			old = cache_find(fl, fl->pids[i]);
			if (old && old->start == start) {
				*e = *old;
				fl->stats.cache_hits++;
				n++;
				continue;
			}
			fl->stats.cache_misses++;
			r = read_entry(fl, fl->pids[i], start, e);
		}
		/*
		 * The pid may have died and been reused while its files were
		 * read: the start time read again tells.
		 */
		if (r == 0 &&
		    (read_start(fl, fl->pids[i], &again) < 0 || again != start))
			r = -ESRCH;
		if (r == -ENOENT || r == -ESRCH) {
			fl->stats.vanished++;
			continue;
		}
		if (r < 0) {
			log_debug("cannot read process %d: %s",
				  (int)fl->pids[i], strerror(-r));
			fl->stats.proc_errors++;
			if ((r == -EACCES || r == -EPERM) &&
			    fl->ndenied++ == 0) {
				fl->denied_pid = fl->pids[i];
				fl->denied_err = -r;
			}
			continue;
		}
		n++;
	}
	swap = fl->cache;
	fl->cache = fl->next;
	fl->next = swap;
	fl->ncache = n;
	return 0;
}

int
foreground_topapp_oom(const struct foreground_topapp *fl, int32_t pid)
{
	char buf[OOM_READ_MAX], *end;
	size_t len;
	int64_t v;

	if (read_proc(fl, pid, "oom_score_adj", buf, sizeof(buf), &len) < 0)
		return FOREGROUND_TOPAPP_OOM_UNKNOWN;
	end = buf + len;
	while (end > buf && is_space(end[-1]))
		*--end = '\0';
	if (parse_int64(buf, -1000, 1000, &v) < 0)
		return FOREGROUND_TOPAPP_OOM_UNKNOWN;
	return (int)v;
}

int
foreground_topapp_new(const char *sysroot, struct foreground_topapp **out)
{
	struct foreground_topapp *fl;
	int n, r = 0;

	*out = NULL;
	if (!sysroot)
		sysroot = "";
	if (!(fl = calloc(1, sizeof(*fl))))
		return -ENOMEM;
	n = snprintf(fl->sysroot, sizeof(fl->sysroot), "%s", sysroot);
	if (n < 0 || (size_t)n >= sizeof(fl->sysroot) - 64) {
		log_warnx("cannot use sysroot '%.64s...': path too long",
			  sysroot);
		r = -EINVAL;
		goto out;
	}
	fl->buf = malloc(PROCS_READ_MAX);
	fl->pids = calloc(FOREGROUND_TOPAPP_PIDS_MAX, sizeof(*fl->pids));
	if (!fl->buf || !fl->pids || grow(fl, 16) < 0) {
		r = -ENOMEM;
		goto out;
	}
	*out = fl;
	fl = NULL;
out:
	foreground_topapp_free(fl);
	return r;
}

void
foreground_topapp_free(struct foreground_topapp *fl)
{
	if (!fl)
		return;
	free(fl->buf);
	free(fl->pids);
	free(fl->cache);
	free(fl->next);
	free(fl);
}

int
foreground_topapp_read(struct foreground_topapp *fl,
		       const struct foreground_topapp_proc **procs, size_t *n)
{
	int r;

	*procs = NULL;
	*n = 0;
	fl->ndenied = 0;
	if ((r = read_top_app(fl)) < 0 || (r = refresh_procs(fl)) < 0)
		return r;
	*procs = fl->cache;
	*n = fl->ncache;
	return 0;
}

size_t
foreground_topapp_pids(const struct foreground_topapp *fl)
{
	return fl->npids;
}

size_t
foreground_topapp_denied(const struct foreground_topapp *fl, int32_t *pid,
			 int *err)
{
	*pid = fl->denied_pid;
	*err = fl->denied_err;
	return fl->ndenied;
}

void
foreground_topapp_get_stats(const struct foreground_topapp *fl,
			    struct foreground_topapp_stats *st)
{
	*st = fl->stats;
}

int
foreground_topapp_proc_file(const struct foreground_topapp *fl, int32_t pid,
			    const char *name, char *buf, size_t size,
			    size_t *len)
{
	return read_proc(fl, pid, name, buf, size, len);
}

int
foreground_topapp_proc_start(const struct foreground_topapp *fl, int32_t pid,
			     uint64_t *start)
{
	return read_start(fl, pid, start);
}

int64_t
foreground_topapp_proc_uid(const struct foreground_topapp *fl, int32_t pid)
{
	return read_uid(fl, pid);
}
