#include "datadir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * Makes dir, or checks the one there, as a place for the database.
 * Returns 0, or a negative errno with why (size bytes) saying what is
 * wrong with it, without the directory's name.
 */
static int
datadir_use(const char *dir, char *why, size_t size)
{
	struct stat sb;
	int rc;

	if (mkdir(dir, 0700) == 0)
		return 0;
	if (errno != EEXIST) {
		rc = -errno;
		(void)snprintf(why, size, "%s", strerror(-rc));
		return rc;
	}
	/* lstat: a link there could point the database anywhere. */
	if (lstat(dir, &sb) != 0) {
		rc = -errno;
		(void)snprintf(why, size, "%s", strerror(-rc));
		return rc;
	}
	if (S_ISLNK(sb.st_mode)) {
		(void)snprintf(why, size, "a symbolic link, not a directory");
		return -ENOTDIR;
	}
	if (!S_ISDIR(sb.st_mode)) {
		(void)snprintf(why, size, "not a directory");
		return -ENOTDIR;
	}
	/*
	 * Another user's directory (a world-writable /data/local/tmp lets
	 * anyone make it first) could have its files swapped under us.
	 */
	if (sb.st_uid != geteuid()) {
		(void)snprintf(why, size, "owned by uid %lu, not by uid %lu",
			       (unsigned long)sb.st_uid,
			       (unsigned long)geteuid());
		return -EPERM;
	}
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
		rc = -errno;
		(void)snprintf(why, size, "%s", strerror(-rc));
		return rc;
	}
	return 0;
}

static int
datadir_join(char *buf, size_t size, const char *a, const char *b,
	     const char *c)
{
	int n;

	n = snprintf(buf, size, "%s%s%s", a, b, c);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* Tries one directory: fills out->dir and out->db, or says why not. */
static int
datadir_try(const char *sysroot, const char *dir, struct datadir_choice *out,
	    char *why, size_t size)
{
	char reason[128];
	int rc;

	rc = datadir_join(out->dir, sizeof(out->dir), sysroot, dir, "");
	if (rc == 0)
		rc = datadir_join(out->db, sizeof(out->db), out->dir, "/",
				  DATADIR_DB_NAME);
	if (rc < 0) {
		(void)snprintf(why, size, "cannot use '%s%s': path too long",
			       sysroot, dir);
		return rc;
	}
	rc = datadir_use(out->dir, reason, sizeof(reason));
	if (rc < 0)
		(void)snprintf(why, size, "cannot use '%s': %s", out->dir,
			       reason);
	return rc;
}

int
datadir_pick_from(const char *sysroot, const char *primary,
		  const char *fallback, struct datadir_choice *out)
{
	char why2[sizeof(out->why)];
	int rc;

	if (!primary || !out)
		return -EINVAL;
	if (!sysroot)
		sysroot = "";
	memset(out, 0, sizeof(*out));
	rc = datadir_try(sysroot, primary, out, out->why, sizeof(out->why));
	if (rc == 0 || !fallback) {
		if (rc < 0)
			out->dir[0] = out->db[0] = '\0';
		return rc;
	}
	rc = datadir_try(sysroot, fallback, out, why2, sizeof(why2));
	if (rc < 0) {
		/* Both stories: the first explains why the second was tried. */
		(void)snprintf(out->why + strlen(out->why),
			       sizeof(out->why) - strlen(out->why), "; %s",
			       why2);
		out->dir[0] = out->db[0] = '\0';
		return rc;
	}
	out->fallback = 1;
	return 0;
}

int
datadir_pick(const char *sysroot, struct datadir_choice *out)
{
	return datadir_pick_from(sysroot, DATADIR_PRIMARY, DATADIR_FALLBACK,
				 out);
}
