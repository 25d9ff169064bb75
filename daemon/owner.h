/*
 * Whose window a tap hit: the package of a window's owner, from the
 * ownerPid and ownerUid that `dumpsys input` prints (winlist.h).
 *
 * The pid comes first: <sysroot>/proc/<pid>/cmdline names the process,
 * read by the top-app reader's own helpers (foreground_topapp.h), and a
 * process named as a package ("com.foo", "com.foo:remote" less its
 * ":remote") is that package, as long as the uid in its status is the
 * window's (a pid reused since the list was read is not).  Processes
 * that host the windows of others do not carry a package's name: the
 * system server ("system_server", uid 1000) owns the gesture strips, the
 * pointer location and the activities' input sinks.  For those the uid
 * decides, through <sysroot>/data/system/packages.list: uid 1000 is the
 * platform package "android" (which packages.list leaves out: it has no
 * data directory), any other the first package of that uid in the file;
 * a shared uid's other packages are counted in owner_result.shared.
 *
 * packages.list is read when a uid is first needed and again when its
 * size or time of change differ; lines are "pkg uid debuggable datadir
 * seinfo gids..." (Settings.writePackageListLPr), the uid being the app
 * id of user 0: user N's uid is N * 100000 plus it.
 */
#ifndef TAPD_OWNER_H
#define TAPD_OWNER_H

#include <stddef.h>
#include <stdint.h>

#include "foreground.h"

#define OWNER_PACKAGES_PATH  "/data/system/packages.list"
#define OWNER_PACKAGES_MAX   100000
#define OWNER_LIST_READ_MAX  (16 * 1024 * 1024)
#define OWNER_SYSTEM_PACKAGE "android"

/* How an owner was found. */
enum owner_how {
	OWNER_NONE = 0, /* neither the pid nor the uid told */
	OWNER_PROC,	/* the process's cmdline */
	OWNER_UID,	/* packages.list */
	OWNER_SYSTEM,	/* the system server: uid 1000 or its process name */
};

struct owner_result {
	char package[FOREGROUND_PACKAGE_MAX + 1]; /* "" for OWNER_NONE */
	enum owner_how how;
	size_t shared; /* OWNER_UID: other packages of that uid */
};

/* A parsed packages.list. */
struct owner_packages;

/*
 * Parses the text of a packages.list (len bytes).  Malformed lines (no
 * package name, a uid out of range, fewer than four fields) are skipped
 * and counted; lines past OWNER_PACKAGES_MAX are dropped and counted.
 * Returns 0 and sets *out, or -ENOMEM.
 */
int owner_packages_parse(const char *buf, size_t len,
			 struct owner_packages **out);

/* Reads and parses path: 0, or a negative errno when it cannot be read. */
int owner_packages_load(const char *path, struct owner_packages **out);

/* NULL is a no-op. */
void owner_packages_free(struct owner_packages *p);

/* Packages held, and lines skipped as malformed or dropped. */
size_t owner_packages_count(const struct owner_packages *p);
size_t owner_packages_malformed(const struct owner_packages *p);

/*
 * The first package of uid's app id in file order: returns 0, sets
 * *package (valid until the list is freed) and *shared to the number of
 * other packages of that app id, or -ENOENT.
 */
int owner_packages_find(const struct owner_packages *p, int64_t uid,
			const char **package, size_t *shared);

/* The package of the i-th line kept, with its uid; NULL past the end. */
const char *owner_packages_at(const struct owner_packages *p, size_t i,
			      int64_t *uid);

struct owner;

/*
 * sysroot prefixes /proc and /data (tests only; NULL or "").  Returns 0
 * and sets *out, -EINVAL for a sysroot too long, or -ENOMEM.
 */
int owner_new(const char *sysroot, struct owner **out);

/* NULL is a no-op. */
void owner_free(struct owner *o);

/*
 * The owner of a window with that pid and uid (either may be -1 when
 * unknown), as the header says.  Always fills *res; returns 0, or
 * -ENOENT when nothing told (res->how is then OWNER_NONE).
 */
int owner_resolve(struct owner *o, int32_t pid, int64_t uid,
		  struct owner_result *res);

/* "proc", "uid", "system", "none". */
const char *owner_how_name(enum owner_how how);

#endif
