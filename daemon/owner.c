#include "owner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "foreground_topapp.h"
#include "foreground_window.h"
#include "log.h"
#include "parse.h"

#define AID_SYSTEM	 1000
#define AID_USER_OFFSET	 100000
#define CMDLINE_READ_MAX 4096
#define SYSTEM_SERVER	 "system_server"

struct owner_pkg {
	int64_t appid;
	char *name;
};

struct owner_packages {
	struct owner_pkg *pkg;
	size_t n, cap;
	size_t malformed;
	char *names; /* every name, NUL-terminated, one after the other */
};

struct owner {
	char path[PATH_MAX]; /* of packages.list */
	struct foreground_topapp *proc;
	struct owner_packages *packages;
	struct stat seen; /* of packages.list when it was read */
	int loaded;
};

void
owner_packages_free(struct owner_packages *p)
{
	if (!p)
		return;
	free(p->pkg);
	free(p->names);
	free(p);
}

/* The next blank-separated field of [*p, end), or NULL at the end. */
static const char *
next_field(const char **p, const char *end, size_t *n)
{
	const char *s = *p, *e;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end)
		return NULL;
	for (e = s; e < end && *e != ' ' && *e != '\t'; e++)
		;
	*n = (size_t)(e - s);
	*p = e;
	return s;
}

/* One line of [s, end): 1 when kept, 0 when malformed. */
static int
parse_line(struct owner_packages *p, const char *s, const char *end,
	   char **names)
{
	const char *name, *f;
	char num[24];
	size_t n, nn, i;
	int64_t uid;

	if (!(name = next_field(&s, end, &nn)) ||
	    !foreground_window_package_ok(name, nn))
		return 0;
	if (!(f = next_field(&s, end, &n)) || n >= sizeof(num))
		return 0;
	memcpy(num, f, n);
	num[n] = '\0';
	if (parse_int64(num, 0, AID_USER_OFFSET - 1, &uid) < 0)
		return 0;
	/* debuggable and the data directory; the rest is not needed. */
	for (i = 0; i < 2; i++)
		if (!next_field(&s, end, &n))
			return 0;
	p->pkg[p->n].appid = uid;
	p->pkg[p->n].name = *names;
	memcpy(*names, name, nn);
	(*names)[nn] = '\0';
	*names += nn + 1;
	p->n++;
	return 1;
}

int
owner_packages_parse(const char *buf, size_t len, struct owner_packages **out)
{
	struct owner_packages *p;
	const char *s, *end, *nl, *le;
	char *names;
	size_t lines = 0, i;
	int r = 0;

	*out = NULL;
	if (!(p = calloc(1, sizeof(*p))))
		return -ENOMEM;
	for (i = 0; i < len; i++)
		lines += buf[i] == '\n';
	lines++;
	if (lines > OWNER_PACKAGES_MAX)
		lines = OWNER_PACKAGES_MAX;
	/* No name is longer than its line, so len + lines bytes hold all. */
	p->pkg = calloc(lines, sizeof(*p->pkg));
	p->names = malloc(len + lines + 1);
	if (!p->pkg || !p->names) {
		r = -ENOMEM;
		goto out;
	}
	names = p->names;
	for (s = buf, end = buf + len; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		le = nl > s && nl[-1] == '\r' ? nl - 1 : nl;
		if (le == s || *s == '#') {
			/* skipped: blank or a comment */
		} else if (p->n >= OWNER_PACKAGES_MAX) {
			p->malformed++;
		} else if (memchr(s, '\0', (size_t)(le - s)) ||
			   !parse_line(p, s, le, &names)) {
			p->malformed++;
		}
		if (nl == end)
			break;
	}
	*out = p;
	p = NULL;
out:
	owner_packages_free(p);
	return r;
}

int
owner_packages_load(const char *path, struct owner_packages **out)
{
	char *buf = NULL;
	size_t len = 0;
	ssize_t k;
	int fd, r = 0;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (!(buf = malloc(OWNER_LIST_READ_MAX))) {
		r = -ENOMEM;
		goto out;
	}
	while (len < OWNER_LIST_READ_MAX) {
		k = read(fd, buf + len, OWNER_LIST_READ_MAX - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			goto out;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	if (len == OWNER_LIST_READ_MAX)
		log_warnx("packages list '%s' cut at %d bytes", path,
			  OWNER_LIST_READ_MAX);
	r = owner_packages_parse(buf, len, out);
out:
	free(buf);
	close(fd);
	return r;
}

size_t
owner_packages_count(const struct owner_packages *p)
{
	return p->n;
}

size_t
owner_packages_malformed(const struct owner_packages *p)
{
	return p->malformed;
}

int
owner_packages_find(const struct owner_packages *p, int64_t uid,
		    const char **package, size_t *shared)
{
	int64_t appid;
	size_t i, n = 0;

	*package = NULL;
	*shared = 0;
	if (uid < 0)
		return -ENOENT;
	appid = uid % AID_USER_OFFSET;
	for (i = 0; i < p->n; i++) {
		if (p->pkg[i].appid != appid)
			continue;
		if (n++ == 0)
			*package = p->pkg[i].name;
	}
	if (n == 0)
		return -ENOENT;
	*shared = n - 1;
	return 0;
}

const char *
owner_packages_at(const struct owner_packages *p, size_t i, int64_t *uid)
{
	if (i >= p->n)
		return NULL;
	*uid = p->pkg[i].appid;
	return p->pkg[i].name;
}

int
owner_new(const char *sysroot, struct owner **out)
{
	struct owner *o;
	int n, r;

	*out = NULL;
	if (!sysroot)
		sysroot = "";
	if (!(o = calloc(1, sizeof(*o))))
		return -ENOMEM;
	n = snprintf(o->path, sizeof(o->path), "%s%s", sysroot,
		     OWNER_PACKAGES_PATH);
	if (n < 0 || (size_t)n >= sizeof(o->path)) {
		log_warnx("cannot use sysroot '%.64s...': path too long",
			  sysroot);
		r = -EINVAL;
		goto out;
	}
	if ((r = foreground_topapp_new(sysroot, &o->proc)) < 0)
		goto out;
	*out = o;
	o = NULL;
out:
	owner_free(o);
	return r;
}

void
owner_free(struct owner *o)
{
	if (!o)
		return;
	foreground_topapp_free(o->proc);
	owner_packages_free(o->packages);
	free(o);
}

/* Reads packages.list when it is new or changed since the last read. */
static void
refresh_packages(struct owner *o)
{
	struct owner_packages *p;
	struct stat st;
	int r;

	if (stat(o->path, &st) < 0) {
		if (o->loaded)
			log_debug("cannot stat '%s': %s", o->path,
				  strerror(errno));
		return;
	}
	if (o->loaded && st.st_size == o->seen.st_size &&
	    st.st_mtim.tv_sec == o->seen.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == o->seen.st_mtim.tv_nsec &&
	    st.st_ino == o->seen.st_ino)
		return;
	if ((r = owner_packages_load(o->path, &p)) < 0) {
		log_warnx("cannot read packages list '%s': %s", o->path,
			  strerror(-r));
		return;
	}
	owner_packages_free(o->packages);
	o->packages = p;
	o->seen = st;
	o->loaded = 1;
}

/*
 * The process's name from cmdline: its first argument, which ends at the
 * first NUL.  Returns 0 and fills name, or a negative errno.
 */
static int
proc_name(struct owner *o, int32_t pid, char *name, size_t size)
{
	char buf[CMDLINE_READ_MAX];
	size_t len, n;
	int r;

	r = foreground_topapp_proc_file(o->proc, pid, "cmdline", buf,
					sizeof(buf), &len);
	if (r < 0)
		return r;
	n = strlen(buf);
	if (n == 0)
		return -ENOENT; /* a kernel thread or a zombie */
	if (n >= size)
		n = size - 1;
	memcpy(name, buf, n);
	name[n] = '\0';
	return 0;
}

static void
set_result(struct owner_result *res, const char *package, size_t n,
	   enum owner_how how)
{
	if (n > FOREGROUND_PACKAGE_MAX)
		n = FOREGROUND_PACKAGE_MAX;
	memcpy(res->package, package, n);
	res->package[n] = '\0';
	res->how = how;
}

/*
 * The pid's answer: 1 when its process is named as a package or is the
 * system server, and its uid is the window's; 0 otherwise.  The start
 * time read before and after tells a pid reused meanwhile.
 */
static int
by_pid(struct owner *o, int32_t pid, int64_t uid, struct owner_result *res)
{
	char name[FOREGROUND_PACKAGE_MAX + 2];
	uint64_t start, again;
	const char *colon;
	int64_t puid;
	size_t n;

	if (pid <= 0 || foreground_topapp_proc_start(o->proc, pid, &start) < 0)
		return 0;
	if (proc_name(o, pid, name, sizeof(name)) < 0)
		return 0;
	puid = foreground_topapp_proc_uid(o->proc, pid);
	if (foreground_topapp_proc_start(o->proc, pid, &again) < 0 ||
	    again != start)
		return 0;
	if (uid >= 0 && puid >= 0 && puid != uid)
		return 0;
	if (strcmp(name, SYSTEM_SERVER) == 0) {
		set_result(res, OWNER_SYSTEM_PACKAGE,
			   strlen(OWNER_SYSTEM_PACKAGE), OWNER_SYSTEM);
		return 1;
	}
	colon = strchr(name, ':');
	n = colon ? (size_t)(colon - name) : strlen(name);
	if (!foreground_window_package_ok(name, n))
		return 0;
	set_result(res, name, n, OWNER_PROC);
	return 1;
}

int
owner_resolve(struct owner *o, int32_t pid, int64_t uid,
	      struct owner_result *res)
{
	const char *pkg;
	size_t shared;

	memset(res, 0, sizeof(*res));
	if (by_pid(o, pid, uid, res))
		return 0;
	if (uid < 0)
		return -ENOENT;
	if (uid % AID_USER_OFFSET == AID_SYSTEM) {
		set_result(res, OWNER_SYSTEM_PACKAGE,
			   strlen(OWNER_SYSTEM_PACKAGE), OWNER_SYSTEM);
		return 0;
	}
	refresh_packages(o);
	if (!o->packages ||
	    owner_packages_find(o->packages, uid, &pkg, &shared) < 0)
		return -ENOENT;
	set_result(res, pkg, strlen(pkg), OWNER_UID);
	res->shared = shared;
	return 0;
}

const char *
owner_how_name(enum owner_how how)
{
	switch (how) {
	case OWNER_PROC:
		return "proc";
	case OWNER_UID:
		return "uid";
	case OWNER_SYSTEM:
		return "system";
	case OWNER_NONE:
	default:
		return "none";
	}
}
