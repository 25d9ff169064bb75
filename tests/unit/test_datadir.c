/*
 * The default database directory of the Android build: Magisk's data
 * directory when it can be used, /data/local/tmp otherwise, both under a
 * sysroot made by each test.  The cases that need another user (a
 * directory of someone else's, a /data/adb tapd may not enter) run only as
 * root, which can become that user.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "datadir.h"
#include "fixture.h"

/* A user that owns nothing in the sysroot. */
#define OTHER_UID 65534

struct fx {
	char root[PATH_MAX];
	char adb[PATH_MAX];   /* <root>/data/adb */
	char local[PATH_MAX]; /* <root>/data/local/tmp */
};

/* rel is absolute inside the tree: "/data/adb" is <root>/data/adb. */
static void
path_of(const struct fx *fx, const char *rel, char *buf, size_t size)
{
	fixture_join(buf, size, fx->root, "%s", rel + (rel[0] == '/'));
}

/* An Android-like tree: /data/adb and /data/local/tmp. */
static int
setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	/* Another user must reach the tree to be refused inside it. */
	if (!fx || fixture_tmpdir(fx->root, sizeof(fx->root), "datadir") != 0 ||
	    chmod(fx->root, 0755) != 0) {
		free(fx);
		return -1;
	}
	path_of(fx, "/data/adb", fx->adb, sizeof(fx->adb));
	path_of(fx, "/data/local/tmp", fx->local, sizeof(fx->local));
	fixture_mkdirs(fx->adb, 0700);
	fixture_mkdirs(fx->local, 01777);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *fx = *state;

	fixture_rmtree(fx->root);
	free(fx);
	return 0;
}

static mode_t
mode_of(const char *path)
{
	struct stat sb;

	assert_int_equal(lstat(path, &sb), 0);
	return sb.st_mode & 07777;
}

/* The primary is made, 0700, and nothing is said about it. */
static void
test_primary_made(void **state)
{
	struct fx *fx = *state;
	struct datadir_choice c;
	char want[PATH_MAX];

	assert_int_equal(datadir_pick(fx->root, &c), 0);
	path_of(fx, "/data/adb/tapd", want, sizeof(want));
	assert_string_equal(c.dir, want);
	path_of(fx, "/data/adb/tapd/taps.db", want, sizeof(want));
	assert_string_equal(c.db, want);
	assert_int_equal(c.fallback, 0);
	assert_string_equal(c.why, "");
	assert_int_equal(mode_of(c.dir), 0700);
	/* Once made, it is used again as it is. */
	assert_int_equal(chmod(c.dir, 0750), 0);
	assert_int_equal(datadir_pick(fx->root, &c), 0);
	assert_int_equal(c.fallback, 0);
	assert_int_equal(mode_of(c.dir), 0750);
}

/* No Magisk: /data/adb is missing, /data/local/tmp/tapd-data is made. */
static void
test_no_adb(void **state)
{
	struct fx *fx = *state;
	struct datadir_choice c;
	char want[PATH_MAX];

	assert_int_equal(rmdir(fx->adb), 0);
	assert_int_equal(datadir_pick(fx->root, &c), 0);
	assert_int_equal(c.fallback, 1);
	path_of(fx, "/data/local/tmp/tapd-data/taps.db", want, sizeof(want));
	assert_string_equal(c.db, want);
	assert_int_equal(mode_of(c.dir), 0700);
	path_of(fx, "/data/adb/tapd", want, sizeof(want));
	assert_non_null(strstr(c.why, want));
	assert_non_null(strstr(c.why, "cannot use '"));
	assert_non_null(strstr(c.why, strerror(ENOENT)));
}

/* A link or a file where the directory should be is not followed. */
static void
test_not_a_directory(void **state)
{
	struct fx *fx = *state;
	struct datadir_choice c;
	char primary[PATH_MAX];
	FILE *f;

	path_of(fx, "/data/adb/tapd", primary, sizeof(primary));
	assert_int_equal(symlink(fx->local, primary), 0);
	assert_int_equal(datadir_pick(fx->root, &c), 0);
	assert_int_equal(c.fallback, 1);
	assert_non_null(strstr(c.why, "symbolic link"));

	assert_int_equal(unlink(primary), 0);
	f = fopen(primary, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(datadir_pick(fx->root, &c), 0);
	assert_int_equal(c.fallback, 1);
	assert_non_null(strstr(c.why, "not a directory"));
}

/* Neither can be used: an error that tells both stories. */
static void
test_neither(void **state)
{
	struct fx *fx = *state;
	struct datadir_choice c;

	assert_int_equal(rmdir(fx->adb), 0);
	assert_int_equal(rmdir(fx->local), 0);
	assert_int_equal(datadir_pick(fx->root, &c), -ENOENT);
	assert_non_null(strstr(c.why, "/data/adb/tapd"));
	assert_non_null(strstr(c.why, "; cannot use '"));
	assert_non_null(strstr(c.why, "/data/local/tmp/tapd-data"));
	assert_string_equal(c.db, "");
	/* Without a fallback only the first story is told. */
	assert_int_equal(
		datadir_pick_from(fx->root, "/data/adb/tapd", NULL, &c),
		-ENOENT);
	assert_null(strstr(c.why, ";"));
}

static void
test_too_long(void **state)
{
	struct fx *fx = *state;
	struct datadir_choice c;
	char longdir[PATH_MAX + 16];

	memset(longdir, 'a', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	assert_int_equal(datadir_pick_from(fx->root, longdir, NULL, &c),
			 -ENAMETOOLONG);
	assert_non_null(strstr(c.why, "path too long"));
	assert_int_equal(datadir_pick_from(fx->root, NULL, NULL, &c), -EINVAL);
}

/* What datadir_pick() did in a child running as OTHER_UID. */
struct picked {
	int rc;
	struct datadir_choice c;
};

static void
pick_as_other(struct fx *fx, struct picked *p)
{
	int pfd[2], status;
	size_t got;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		if (setgroups(0, NULL) != 0 || setgid(OTHER_UID) != 0 ||
		    setuid(OTHER_UID) != 0)
			_exit(100);
		memset(p, 0, sizeof(*p));
		p->rc = datadir_pick(fx->root, &p->c);
		if (write(pfd[1], p, sizeof(*p)) != (ssize_t)sizeof(*p))
			_exit(101);
		_exit(0);
	}
	close(pfd[1]);
	for (got = 0; got < sizeof(*p); got += (size_t)n) {
		n = read(pfd[0], (char *)p + got, sizeof(*p) - got);
		if (n <= 0)
			break;
	}
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(got, sizeof(*p));
}

/* Without root: /data/adb cannot be entered, /data/local/tmp is used. */
static void
test_not_root(void **state)
{
	struct fx *fx = *state;
	struct picked *p;
	char want[PATH_MAX];
	struct stat sb;

	if (geteuid() != 0) {
		skip();
		return;
	}
	p = calloc(1, sizeof(*p));
	assert_non_null(p);
	pick_as_other(fx, p);
	assert_int_equal(p->rc, 0);
	assert_int_equal(p->c.fallback, 1);
	path_of(fx, "/data/local/tmp/tapd-data/taps.db", want, sizeof(want));
	assert_string_equal(p->c.db, want);
	path_of(fx, "/data/adb/tapd", want, sizeof(want));
	assert_non_null(strstr(p->c.why, want));
	assert_non_null(strstr(p->c.why, strerror(EACCES)));
	free(p);
	path_of(fx, "/data/local/tmp/tapd-data", want, sizeof(want));
	assert_int_equal(lstat(want, &sb), 0);
	assert_int_equal(sb.st_uid, OTHER_UID);
	assert_int_equal(sb.st_mode & 07777, 0700);
}

/* Another user's directory is not trusted, even by root. */
static void
test_foreign_owner(void **state)
{
	struct fx *fx = *state;
	struct datadir_choice c;
	char primary[PATH_MAX], fallback[PATH_MAX];

	if (geteuid() != 0) {
		skip();
		return;
	}
	path_of(fx, "/data/adb/tapd", primary, sizeof(primary));
	path_of(fx, "/data/local/tmp/tapd-data", fallback, sizeof(fallback));
	assert_int_equal(mkdir(primary, 0700), 0);
	assert_int_equal(chown(primary, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(mkdir(fallback, 0700), 0);
	assert_int_equal(chown(fallback, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(datadir_pick(fx->root, &c), -EPERM);
	assert_non_null(strstr(c.why, "owned by uid 65534, not by uid 0"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_primary_made, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_adb, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_directory, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_neither, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_owner, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("datadir", tests, NULL, NULL);
}
