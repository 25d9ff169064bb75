/*
 * The live foreground tracker.  A sample costs one small read of
 * cgroup.procs and one of /proc/<pid>/stat per member; the name and uid of
 * a process are read once per (pid, start time), so a reused pid is seen
 * as the new process it is.  dumpsys is the expensive part and runs only
 * when top-app holds several apps and the last answer no longer holds.
 */
#include "foreground_live.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "parse.h"
#include "status.h"

#define TOPAPP_PATH	   "/dev/cpuset/top-app/cgroup.procs"
#define SYSTEMUI	   "com.android.systemui"
#define KIND		   "top-app"
#define DETAIL_MAX	   160
#define PROCS_READ_MAX	   65536
#define CMDLINE_READ_MAX   4096
#define STATUS_READ_MAX	   4096
#define STAT_READ_MAX	   1024
#define OOM_READ_MAX	   32
#define OOM_UNKNOWN	   1001 /* worse than any real oom_score_adj */
#define WINDOW_LINE_MAX	   1024
#define WINDOW_OUTPUT_MAX  (16 * 1024 * 1024)
#define TIMEOUT_DEFAULT_MS 500
#define REFRESH_DEFAULT_MS 5000
#define RETRY_FIRST_NS	   1000000000LL
#define RETRY_MAX_NS	   60000000000LL
#define AID_SYSTEM	   1000
#define AID_RADIO	   1001
#define AID_APP_START	   10000
#define AID_USER_OFFSET	   100000
#define STAT_START_FIELD   22

/* One process of top-app, as read from /proc. */
struct proc_entry {
	int32_t pid;
	uint64_t start; /* clock ticks after boot: field 22 of stat */
	int is_app;
	int is_main; /* the process name is the package itself */
	char package[FOREGROUND_PACKAGE_MAX + 1];
};

/* One app of top-app: the process standing for its package. */
struct candidate {
	const struct proc_entry *rep;
	int oom;
};

struct dkey {
	int32_t pid;
	uint64_t start;
};

struct foreground_live {
	char sysroot[PATH_MAX];
	char dumpsys_bin[PATH_MAX];
	int timeout_ms;
	int64_t refresh_ns;
	struct status *status;
	struct foreground *timeline;

	char *buf; /* PROCS_READ_MAX bytes for cgroup.procs */
	int32_t *pids;
	size_t npids;

	/* Processes of the last sample, and the one being built. */
	struct proc_entry *cache, *next;
	size_t ncache;
	struct candidate *cands;
	size_t ncands;
	size_t cap;

	int have_cur;
	int32_t cur_pid;
	char cur_pkg[FOREGROUND_PACKAGE_MAX + 1];

	/*
	 * The last dumpsys answer: for which set of candidates, when, and
	 * the package it named (d_ok) or that it named none.
	 */
	struct dkey *dkey, *tmpkey;
	size_t ndkey;
	int d_valid;
	int d_ok;
	char d_pkg[FOREGROUND_PACKAGE_MAX + 1];
	char d_why[DETAIL_MAX];
	int64_t d_next_ns;  /* when the answer goes stale */
	unsigned d_fails;   /* consecutive failures */
	int64_t d_retry_ns; /* no run before this after a failure */

	/*
	 * The first top-app process of this sample whose /proc files tapd
	 * may not read (without root, hidepid), and how many: with no app
	 * found, the health must say it may be one of those.
	 */
	int32_t denied_pid;
	int denied_err;
	size_t ndenied;

	int reported;
	enum status_health health;
	char detail[DETAIL_MAX];

	struct foreground_live_stats stats;
};

/* The dumpsys output, parsed a line at a time as it arrives. */
struct wparse {
	struct foreground_live_focus *focus;
	char line[WINDOW_LINE_MAX];
	size_t len;
	int cut;
};

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int
is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * A Java package name: dot-separated non-empty parts of [A-Za-z0-9_], at
 * least two, starting with a letter.  Stricter than the timeline's rule,
 * since here it has to tell apps from daemons such as "surfaceflinger".
 */
static int
valid_package_n(const char *s, size_t n)
{
	size_t i;
	int dots = 0;

	if (n == 0 || n > FOREGROUND_PACKAGE_MAX || !is_alpha(s[0]))
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (s[i - 1] == '.' || i + 1 == n)
				return 0;
			dots++;
		} else if (!is_alpha(s[i]) && !is_digit(s[i]) && s[i] != '_') {
			return 0;
		}
	}
	return dots > 0;
}

static void report(struct foreground_live *fl, enum status_health health,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets the health, and logs when it changed. */
static void
report(struct foreground_live *fl, enum status_health health, const char *fmt,
       ...)
{
	char detail[DETAIL_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (fl->reported && fl->health == health &&
	    strcmp(fl->detail, detail) == 0)
		return;
	if (!fl->reported || fl->health != health) {
		if (health == STATUS_HEALTH_UP)
			log_info("foreground: %s", detail);
		else
			log_warnx("foreground %s: %s",
				  status_health_name(health), detail);
	}
	fl->reported = 1;
	fl->health = health;
	memcpy(fl->detail, detail, sizeof(detail));
	if (fl->status)
		status_set_source(fl->status, STATUS_SOURCE_FOREGROUND, health,
				  KIND, "%s", detail);
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
proc_path(const struct foreground_live *fl, int32_t pid, const char *name,
	  char *path, size_t size)
{
	int n;

	n = snprintf(path, size, "%s/proc/%d/%s", fl->sysroot, (int)pid, name);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

static int
read_proc(const struct foreground_live *fl, int32_t pid, const char *name,
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
read_start(const struct foreground_live *fl, int32_t pid, uint64_t *start)
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
read_uid(const struct foreground_live *fl, int32_t pid)
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
read_entry(const struct foreground_live *fl, int32_t pid, uint64_t start,
	   struct proc_entry *e)
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
	if (!valid_package_n(buf, n))
		return 0;
	if (!app_uid(read_uid(fl, pid)))
		return 0;
	memcpy(e->package, buf, n);
	e->package[n] = '\0';
	e->is_app = 1;
	e->is_main = colon == NULL;
	return 0;
}

static int
grow(struct foreground_live *fl, size_t need)
{
	size_t cap = fl->cap ? fl->cap : 16;
	void *p;

	if (need <= fl->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (!(p = realloc(fl->cache, cap * sizeof(*fl->cache))))
		return -ENOMEM;
	fl->cache = p;
	if (!(p = realloc(fl->next, cap * sizeof(*fl->next))))
		return -ENOMEM;
	fl->next = p;
	if (!(p = realloc(fl->cands, cap * sizeof(*fl->cands))))
		return -ENOMEM;
	fl->cands = p;
	if (!(p = realloc(fl->dkey, cap * sizeof(*fl->dkey))))
		return -ENOMEM;
	fl->dkey = p;
	if (!(p = realloc(fl->tmpkey, cap * sizeof(*fl->tmpkey))))
		return -ENOMEM;
	fl->tmpkey = p;
	fl->cap = cap;
	return 0;
}

/*
 * Reads the pids of top-app into fl->pids: one decimal per line, others
 * counted as garbage, duplicates dropped.
 */
static int
read_top_app(struct foreground_live *fl)
{
	char path[PATH_MAX], *line, *nl, *end;
	size_t len, i;
	int64_t v;
	int n, r;

	fl->npids = 0;
	n = snprintf(path, sizeof(path), "%s%s", fl->sysroot, TOPAPP_PATH);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if ((r = read_file(path, fl->buf, PROCS_READ_MAX, &len)) < 0) {
		if (r == -ENOENT || r == -ENOTDIR)
			report(fl, STATUS_HEALTH_DOWN,
			       "no /dev/cpuset/top-app (not Android?)");
		else
			report(fl, STATUS_HEALTH_DOWN,
			       "cannot read '" TOPAPP_PATH "': %s",
			       strerror(-r));
		return r == -ENOTDIR ? -ENOENT : r;
	}
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
		if (fl->npids >= FOREGROUND_LIVE_PIDS_MAX) {
			fl->stats.dropped_pids++;
			continue;
		}
		fl->pids[fl->npids++] = (int32_t)v;
	}
	return 0;
}

static const struct proc_entry *
cache_find(const struct foreground_live *fl, int32_t pid)
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
refresh_procs(struct foreground_live *fl)
{
	const struct proc_entry *old;
	struct proc_entry *e, *swap;
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

/*
 * Groups the app processes by package into fl->cands, each standing as
 * its main process when that is there, else its lowest pid.  SystemUI is
 * dropped when any other app is there.
 */
static void
collect_candidates(struct foreground_live *fl)
{
	const struct proc_entry *e;
	struct candidate *c;
	size_t i, k, others = 0;

	fl->ncands = 0;
	for (i = 0; i < fl->ncache; i++) {
		e = &fl->cache[i];
		if (!e->is_app)
			continue;
		for (k = 0; k < fl->ncands; k++)
			if (strcmp(fl->cands[k].rep->package, e->package) == 0)
				break;
		if (k == fl->ncands) {
			c = &fl->cands[fl->ncands++];
			c->rep = e;
			c->oom = OOM_UNKNOWN;
			if (strcmp(e->package, SYSTEMUI) != 0)
				others++;
			continue;
		}
		c = &fl->cands[k];
		if ((e->is_main && !c->rep->is_main) ||
		    (e->is_main == c->rep->is_main && e->pid < c->rep->pid))
			c->rep = e;
	}
	if (others == 0 || others == fl->ncands)
		return;
	for (i = 0, k = 0; i < fl->ncands; i++)
		if (strcmp(fl->cands[i].rep->package, SYSTEMUI) != 0)
			fl->cands[k++] = fl->cands[i];
	fl->ncands = k;
}

static struct candidate *
find_candidate(struct foreground_live *fl, const char *package)
{
	size_t i;

	for (i = 0; i < fl->ncands; i++)
		if (strcmp(fl->cands[i].rep->package, package) == 0)
			return &fl->cands[i];
	return NULL;
}

static int
read_oom(const struct foreground_live *fl, int32_t pid)
{
	char buf[OOM_READ_MAX], *end;
	size_t len;
	int64_t v;

	if (read_proc(fl, pid, "oom_score_adj", buf, sizeof(buf), &len) < 0)
		return OOM_UNKNOWN;
	end = buf + len;
	while (end > buf && is_space(end[-1]))
		*--end = '\0';
	if (parse_int64(buf, -1000, 1000, &v) < 0)
		return OOM_UNKNOWN;
	return (int)v;
}

/* Whether a should win over b by the fallback rule. */
static int
fallback_better(const struct foreground_live *fl, const struct candidate *a,
		const struct candidate *b)
{
	int a_cur, b_cur;

	if (a->oom != b->oom)
		return a->oom < b->oom;
	a_cur = fl->have_cur && strcmp(a->rep->package, fl->cur_pkg) == 0;
	b_cur = fl->have_cur && strcmp(b->rep->package, fl->cur_pkg) == 0;
	if (a_cur != b_cur)
		return a_cur;
	if (a->rep->start != b->rep->start)
		return a->rep->start > b->rep->start;
	return a->rep->pid < b->rep->pid;
}

/*
 * Without a word from dumpsys: the lowest oom_score_adj (the top app has
 * 0, a launcher animating 100), then the current foreground (no flapping
 * on a tie), then the newest process, then the lowest pid.
 */
static struct candidate *
fallback(struct foreground_live *fl)
{
	struct candidate *best;
	size_t i;

	fl->stats.fallbacks++;
	for (i = 0; i < fl->ncands; i++)
		fl->cands[i].oom = read_oom(fl, fl->cands[i].rep->pid);
	best = &fl->cands[0];
	for (i = 1; i < fl->ncands; i++)
		if (fallback_better(fl, &fl->cands[i], best))
			best = &fl->cands[i];
	return best;
}

/*
 * Finds key in line where it starts a word, so that "mFocusedApp=" does
 * not match inside a longer name.
 */
static const char *
find_key(const char *line, const char *key)
{
	const char *p = line;
	char c;

	while ((p = strstr(p, key)) != NULL) {
		if (p == line)
			return p;
		c = p[-1];
		if (!is_alpha(c) && !is_digit(c) && c != '_')
			return p;
		p++;
	}
	return NULL;
}

static const char *
last_strstr(const char *s, const char *needle)
{
	const char *p, *last = NULL;

	for (p = strstr(s, needle); p; p = strstr(p + 1, needle))
		last = p;
	return last;
}

int
foreground_live_focus_package(const char *value, char *pkg, size_t size)
{
	const char *p, *end, *w, *we, *slash = NULL, *last = NULL;
	size_t wlen, slen = 0, llen = 0, n;
	const char *name;
	int idx = 0, hex;

	if (!value || !pkg || size == 0)
		return 0;
	pkg[0] = '\0';
	while (*value == ' ' || *value == '\t')
		value++;
	if (strncmp(value, "null", 4) == 0 &&
	    (value[4] == '\0' || is_space(value[4])))
		return 0;
	/*
	 * Android 9 wraps the record: AppWindowToken{... token=Token{...
	 * ActivityRecord{hash u0 pkg/.Act t14}}}, so the innermost record
	 * is the one to read.
	 */
	if ((p = last_strstr(value, "ActivityRecord{")) != NULL)
		p += strlen("ActivityRecord{");
	else if ((p = strstr(value, "Window{")) != NULL)
		p += strlen("Window{");
	else if ((p = strchr(value, '{')) != NULL)
		p++;
	else
		return 0;
	end = strchr(p, '}');
	if (!end)
		end = p + strlen(p); /* a cut line: read what is there */
	/*
	 * Words: an identity hash, "u<user>" (Android 4.2+), then the title:
	 * "pkg/Activity" for an activity, "Splash Screen pkg" for a starting
	 * window, "NotificationShade" or "PopupWindow:1a2b" for others, and
	 * " EXITING" while it goes away.
	 */
	for (w = p; w < end; w = we, idx++) {
		while (w < end && (*w == ' ' || *w == '\t'))
			w++;
		if (w >= end)
			break;
		for (we = w; we < end && *we != ' ' && *we != '\t'; we++)
			;
		wlen = (size_t)(we - w);
		if (idx == 0) {
			for (n = 0, hex = 1; n < wlen; n++)
				hex &= is_hex(w[n]);
			if (hex)
				continue;
		}
		if (idx <= 1 && wlen >= 2 && w[0] == 'u') {
			for (n = 1; n < wlen && is_digit(w[n]); n++)
				;
			if (n == wlen)
				continue;
		}
		if (wlen == 7 && memcmp(w, "EXITING", 7) == 0)
			continue;
		if (!slash && memchr(w, '/', wlen)) {
			slash = w;
			slen = (size_t)((const char *)memchr(w, '/', wlen) - w);
		}
		last = w;
		llen = wlen;
	}
	if (slash) {
		name = slash;
		n = slen;
	} else if (last) {
		name = last;
		n = llen;
	} else {
		return 0;
	}
	if (!valid_package_n(name, n) || n >= size)
		return 0;
	memcpy(pkg, name, n);
	pkg[n] = '\0';
	return 1;
}

static void
focus_add(char list[][FOREGROUND_PACKAGE_MAX + 1], size_t *n, const char *pkg)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(list[i], pkg) == 0)
			return;
	if (*n >= FOREGROUND_LIVE_FOCUS_MAX)
		return;
	memcpy(list[*n], pkg, strlen(pkg) + 1);
	(*n)++;
}

static void
parse_line(struct foreground_live_focus *f, const char *line, int cut)
{
	static const char *const keys[] = {"mCurrentFocus=", "mFocusedApp="};
	char pkg[FOREGROUND_PACKAGE_MAX + 1];
	const char *p;
	size_t k;

	f->lines++;
	if (cut)
		f->long_lines++;
	for (k = 0; k < 2; k++) {
		p = find_key(line, keys[k]);
		if (!p)
			continue;
		f->focus_lines++;
		if (!foreground_live_focus_package(p + strlen(keys[k]), pkg,
						   sizeof(pkg))) {
			f->unnamed++;
			continue;
		}
		if (k == 0)
			focus_add(f->current, &f->n_current, pkg);
		else
			focus_add(f->app, &f->n_app, pkg);
	}
}

static void
wparse_init(struct wparse *wp, struct foreground_live_focus *focus)
{
	memset(focus, 0, sizeof(*focus));
	wp->focus = focus;
	wp->len = 0;
	wp->cut = 0;
}

static void
wparse_flush(struct wparse *wp)
{
	wp->line[wp->len] = '\0';
	parse_line(wp->focus, wp->line, wp->cut);
	wp->len = 0;
	wp->cut = 0;
}

static void
wparse_feed(struct wparse *wp, const char *buf, size_t len)
{
	size_t i;
	char c;

	for (i = 0; i < len; i++) {
		c = buf[i];
		if (c == '\n') {
			wparse_flush(wp);
			continue;
		}
		/* A NUL would hide the rest of the line from strstr(). */
		if (c == '\0')
			c = ' ';
		if (wp->len < sizeof(wp->line) - 1)
			wp->line[wp->len++] = c;
		else
			wp->cut = 1;
	}
}

static void
wparse_end(struct wparse *wp)
{
	if (wp->len > 0 || wp->cut)
		wparse_flush(wp);
}

void
foreground_live_parse_window(const char *buf, size_t len,
			     struct foreground_live_focus *focus)
{
	struct wparse wp;

	wparse_init(&wp, focus);
	if (buf)
		wparse_feed(&wp, buf, len);
	wparse_end(&wp);
}

/*
 * In the child, between fork() and exec: async-signal-safe calls only,
 * since the daemon has other threads.  An exec failure is reported
 * through err_fd, which exec closes on success.
 */
static void
child_exec(int out_fd, int err_fd, int null_fd, char *const argv[])
{
	sigset_t none;
	int e;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(null_fd, STDIN_FILENO) < 0 ||
	    dup2(out_fd, STDOUT_FILENO) < 0 ||
	    dup2(null_fd, STDERR_FILENO) < 0) {
		e = errno;
		(void)!write(err_fd, &e, sizeof(e));
		_exit(127);
	}
	/* dup2() onto itself keeps close-on-exec: clear it. */
	fcntl(STDIN_FILENO, F_SETFD, 0);
	fcntl(STDOUT_FILENO, F_SETFD, 0);
	fcntl(STDERR_FILENO, F_SETFD, 0);
	execvp(argv[0], argv);
	e = errno;
	(void)!write(err_fd, &e, sizeof(e));
	_exit(127);
}

static void
kill_child(pid_t pid, int *status)
{
	/* The whole group: a shell's children would keep the pipe open. */
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

/*
 * Runs `<dumpsys_bin> window` and parses its output into *focus.  Returns
 * 0 when it ran to a zero exit, else a negative errno with why set.
 */
static int
run_dumpsys(struct foreground_live *fl, struct foreground_live_focus *focus,
	    char *why, size_t whysize)
{
	static char arg_window[] = "window";
	char *argv[] = {fl->dumpsys_bin, arg_window, NULL};
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, null_fd = -1;
	int status = 0, e = 0, reaped = 0, timed_out = 0, eof = 0, r = 0;
	int rd_err = 0;
	struct timespec nap = {0, 1000000};
	int64_t deadline, left;
	struct pollfd pfd;
	struct wparse wp;
	size_t total = 0;
	char buf[16384];
	pid_t pid = -1;
	ssize_t k;

	wparse_init(&wp, focus);
	why[0] = '\0';
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    (null_fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		r = -errno;
		snprintf(why, whysize, "cannot start: %s", strerror(-r));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		snprintf(why, whysize, "cannot fork: %s", strerror(-r));
		goto out;
	}
	if (pid == 0)
		child_exec(out[1], errp[1], null_fd, argv);
	/* Also here, so that the group exists before any kill. */
	setpgid(pid, pid);
	close(out[1]);
	close(errp[1]);
	out[1] = errp[1] = -1;
	while ((k = read(errp[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	if (k == (ssize_t)sizeof(e)) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		pid = -1;
		r = -e;
		snprintf(why, whysize, "cannot run '%.80s': %s",
			 fl->dumpsys_bin, strerror(e));
		goto out;
	}
	fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
	deadline = mono_ns() + (int64_t)fl->timeout_ms * 1000000LL;
	while (!eof) {
		left = deadline - mono_ns();
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		pfd.fd = out[0];
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)((left + 999999) / 1000000)) < 0) {
			if (errno == EINTR)
				continue;
			rd_err = errno;
			break;
		}
		if (!pfd.revents)
			continue;
		k = read(out[0], buf, sizeof(buf));
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			rd_err = errno;
			break;
		}
		if (k == 0) {
			eof = 1;
			break;
		}
		wparse_feed(&wp, buf, (size_t)k);
		total += (size_t)k;
		if (total >= WINDOW_OUTPUT_MAX) {
			/* Enough: the focus lines come well before this. */
			log_debug("dumpsys window output cut at %zu bytes",
				  total);
			kill_child(pid, &status);
			pid = -1;
			eof = 1;
			reaped = 2; /* killed by us: its status means nothing */
		}
	}
	wparse_end(&wp);
	if (!eof && !timed_out) {
		r = -EIO;
		snprintf(why, whysize, "output unreadable: %s",
			 strerror(rd_err));
		goto out;
	}
	/* Output ended: give it until the deadline to exit. */
	while (pid > 0 && !timed_out) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid) {
			reaped = 1;
			pid = -1;
			break;
		}
		if (w < 0 && errno != EINTR) {
			/* Reaped elsewhere (SIGCHLD ignored): status unknown.
			 */
			reaped = 2;
			pid = -1;
			break;
		}
		if (mono_ns() >= deadline) {
			timed_out = 1;
			break;
		}
		nanosleep(&nap, NULL);
	}
	if (timed_out) {
		if (pid > 0)
			kill_child(pid, &status);
		pid = -1;
		r = -ETIMEDOUT;
		snprintf(why, whysize, "timed out after %d ms", fl->timeout_ms);
		goto out;
	}
	if (reaped == 1 && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		r = -EIO;
		snprintf(why, whysize, "exited with status %d",
			 WEXITSTATUS(status));
	} else if (reaped == 1 && WIFSIGNALED(status)) {
		r = -EIO;
		snprintf(why, whysize, "killed by signal %d", WTERMSIG(status));
	}
out:
	if (pid > 0)
		kill_child(pid, &status);
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
	if (errp[0] >= 0)
		close(errp[0]);
	if (errp[1] >= 0)
		close(errp[1]);
	if (null_fd >= 0)
		close(null_fd);
	return r;
}

static int
dkey_cmp(const void *a, const void *b)
{
	const struct dkey *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Whether the candidates differ from those of the last dumpsys answer. */
static int
set_changed(struct foreground_live *fl)
{
	size_t i;

	for (i = 0; i < fl->ncands; i++) {
		fl->tmpkey[i].pid = fl->cands[i].rep->pid;
		fl->tmpkey[i].start = fl->cands[i].rep->start;
	}
	qsort(fl->tmpkey, fl->ncands, sizeof(*fl->tmpkey), dkey_cmp);
	if (!fl->d_valid || fl->ndkey != fl->ncands)
		return 1;
	for (i = 0; i < fl->ncands; i++)
		if (fl->tmpkey[i].pid != fl->dkey[i].pid ||
		    fl->tmpkey[i].start != fl->dkey[i].start)
			return 1;
	return 0;
}

/* Records a dumpsys answer for the current candidates. */
static void
remember(struct foreground_live *fl, int64_t next_ns, const char *pkg,
	 const char *why)
{
	memcpy(fl->dkey, fl->tmpkey, fl->ncands * sizeof(*fl->dkey));
	fl->ndkey = fl->ncands;
	fl->d_valid = 1;
	fl->d_ok = pkg != NULL;
	snprintf(fl->d_pkg, sizeof(fl->d_pkg), "%s", pkg ? pkg : "");
	snprintf(fl->d_why, sizeof(fl->d_why), "%s", why ? why : "");
	fl->d_next_ns = next_ns;
}

/* The first focus dumpsys named that is one of the candidates. */
static struct candidate *
match_focus(struct foreground_live *fl,
	    const struct foreground_live_focus *focus)
{
	struct candidate *c;
	size_t i;

	for (i = 0; i < focus->n_current; i++)
		if ((c = find_candidate(fl, focus->current[i])) != NULL)
			return c;
	for (i = 0; i < focus->n_app; i++)
		if ((c = find_candidate(fl, focus->app[i])) != NULL)
			return c;
	return NULL;
}

/* The fallback's choice, reported as degraded with what dumpsys did. */
static const struct candidate *
by_fallback(struct foreground_live *fl, const char *why)
{
	const struct candidate *c = fallback(fl);

	report(fl, STATUS_HEALTH_DEGRADED,
	       "%s (pid %d) of %zu apps by fallback: dumpsys window %s",
	       c->rep->package, (int)c->rep->pid, fl->ncands, why);
	return c;
}

/*
 * Chooses among several apps; sets the health.  dumpsys runs when the set
 * changed or the answer is stale, and not while backing off after
 * failures.
 */
static const struct candidate *
choose_among(struct foreground_live *fl, int64_t now_ns)
{
	struct foreground_live_focus focus;
	struct candidate *c;
	char why[DETAIL_MAX];
	int64_t wait;
	unsigned i;
	int changed, r;

	changed = set_changed(fl);
	if (fl->d_fails > 0 && now_ns < fl->d_retry_ns) {
		return by_fallback(fl, fl->d_why);
	}
	if (!changed && now_ns < fl->d_next_ns) {
		c = fl->d_ok ? find_candidate(fl, fl->d_pkg) : NULL;
		if (c) {
			report(fl, STATUS_HEALTH_UP,
			       "%s (pid %d) of %zu apps, focus from dumpsys "
			       "window",
			       c->rep->package, (int)c->rep->pid, fl->ncands);
			return c;
		}
		if (!fl->d_ok)
			return by_fallback(fl, fl->d_why);
	}
	fl->stats.dumpsys_calls++;
	r = run_dumpsys(fl, &focus, why, sizeof(why));
	if (r < 0) {
		fl->stats.dumpsys_failures++;
		fl->d_fails++;
		/* 1 s after the first failure, doubling up to a minute. */
		wait = RETRY_FIRST_NS;
		for (i = 1; i < fl->d_fails && wait < RETRY_MAX_NS; i++)
			wait *= 2;
		if (wait > RETRY_MAX_NS)
			wait = RETRY_MAX_NS;
		fl->d_retry_ns = now_ns + wait;
		remember(fl, fl->d_retry_ns, NULL, why);
		return by_fallback(fl, why);
	}
	fl->d_fails = 0;
	c = match_focus(fl, &focus);
	if (c) {
		remember(fl, now_ns + fl->refresh_ns, c->rep->package, NULL);
		report(fl, STATUS_HEALTH_UP,
		       "%s (pid %d) of %zu apps, focus from dumpsys window",
		       c->rep->package, (int)c->rep->pid, fl->ncands);
		return c;
	}
	fl->stats.dumpsys_unnamed++;
	if (focus.n_current > 0)
		snprintf(why, sizeof(why), "named only '%.100s'",
			 focus.current[0]);
	else if (focus.n_app > 0)
		snprintf(why, sizeof(why), "named only '%.100s'", focus.app[0]);
	else
		snprintf(why, sizeof(why), "named no app");
	remember(fl, now_ns + fl->refresh_ns, NULL, why);
	return by_fallback(fl, why);
}

int
foreground_live_new(const struct foreground_live_config *cfg,
		    struct foreground *timeline, struct foreground_live **out)
{
	struct foreground_live *fl = NULL;
	const char *sysroot, *bin;
	int n, r = 0;

	if (!cfg || !timeline || !out || cfg->dumpsys_timeout_ms < 0 ||
	    cfg->dumpsys_refresh_ms < 0)
		return -EINVAL;
	sysroot = cfg->sysroot ? cfg->sysroot : "";
	bin = cfg->dumpsys_bin && *cfg->dumpsys_bin ? cfg->dumpsys_bin
						    : "dumpsys";
	if (!(fl = calloc(1, sizeof(*fl)))) {
		r = -ENOMEM;
		goto out;
	}
	n = snprintf(fl->sysroot, sizeof(fl->sysroot), "%s", sysroot);
	if (n < 0 || (size_t)n >= sizeof(fl->sysroot) - 64) {
		log_warnx("cannot use sysroot '%.64s...': path too long",
			  sysroot);
		r = -EINVAL;
		goto out;
	}
	n = snprintf(fl->dumpsys_bin, sizeof(fl->dumpsys_bin), "%s", bin);
	if (n < 0 || (size_t)n >= sizeof(fl->dumpsys_bin)) {
		log_warnx("cannot use dumpsys '%s': path too long", bin);
		r = -EINVAL;
		goto out;
	}
	fl->timeout_ms = cfg->dumpsys_timeout_ms ? cfg->dumpsys_timeout_ms
						 : TIMEOUT_DEFAULT_MS;
	fl->refresh_ns =
		(int64_t)(cfg->dumpsys_refresh_ms ? cfg->dumpsys_refresh_ms
						  : REFRESH_DEFAULT_MS) *
		1000000LL;
	fl->status = cfg->status;
	fl->timeline = timeline;
	fl->buf = malloc(PROCS_READ_MAX);
	fl->pids = calloc(FOREGROUND_LIVE_PIDS_MAX, sizeof(*fl->pids));
	if (!fl->buf || !fl->pids || grow(fl, 16) < 0) {
		r = -ENOMEM;
		goto out;
	}
	*out = fl;
	fl = NULL;
out:
	foreground_live_free(fl);
	return r;
}

void
foreground_live_free(struct foreground_live *fl)
{
	if (!fl)
		return;
	free(fl->buf);
	free(fl->pids);
	free(fl->cache);
	free(fl->next);
	free(fl->cands);
	free(fl->dkey);
	free(fl->tmpkey);
	free(fl);
}

int
foreground_live_sample(struct foreground_live *fl, int64_t now_ns)
{
	const struct candidate *c;
	int r;

	fl->stats.samples++;
	if ((r = read_top_app(fl)) < 0)
		return r;
	if ((r = refresh_procs(fl)) < 0)
		return r;
	collect_candidates(fl);
	if (fl->ncands == 0 && fl->ndenied > 0) {
		report(fl, STATUS_HEALTH_DEGRADED,
		       "cannot read '/proc/%d': %s (%zu of %zu top-app "
		       "processes), no app found%s%s%s",
		       (int)fl->denied_pid, strerror(fl->denied_err),
		       fl->ndenied, fl->npids, fl->have_cur ? ", '" : "",
		       fl->have_cur ? fl->cur_pkg : "",
		       fl->have_cur ? "' kept" : "");
		return 0;
	}
	if (fl->ncands == 0) {
		if (fl->have_cur)
			report(fl, STATUS_HEALTH_UP,
			       "no app in top-app, '%s' kept", fl->cur_pkg);
		else
			report(fl, STATUS_HEALTH_UP, "no app in top-app");
		return 0;
	}
	if (fl->ncands == 1) {
		c = &fl->cands[0];
		report(fl, STATUS_HEALTH_UP, "%s (pid %d)", c->rep->package,
		       (int)c->rep->pid);
	} else {
		c = choose_among(fl, now_ns);
	}
	if (fl->have_cur && fl->cur_pid == c->rep->pid &&
	    strcmp(fl->cur_pkg, c->rep->package) == 0)
		return 0;
	r = foreground_add(fl->timeline, now_ns, c->rep->pid, c->rep->package);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fl->stats.add_errors++;
		log_warnx("cannot add foreground switch to '%s' (pid %d): %s",
			  c->rep->package, (int)c->rep->pid, strerror(-r));
	} else {
		fl->stats.switches++;
		log_debug("foreground: '%s' (pid %d) at %lld", c->rep->package,
			  (int)c->rep->pid, (long long)now_ns);
	}
	/* Also after a refusal, so that it is not retried every sample. */
	fl->have_cur = 1;
	fl->cur_pid = c->rep->pid;
	memcpy(fl->cur_pkg, c->rep->package, sizeof(fl->cur_pkg));
	return 0;
}

int
foreground_live_current(const struct foreground_live *fl, int32_t *pid,
			const char **package)
{
	if (!fl->have_cur)
		return -ENOENT;
	if (pid)
		*pid = fl->cur_pid;
	if (package)
		*package = fl->cur_pkg;
	return 0;
}

void
foreground_live_get_stats(const struct foreground_live *fl,
			  struct foreground_live_stats *st)
{
	*st = fl->stats;
}
