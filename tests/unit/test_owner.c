/*
 * Tests of owner resolution: packages.list parsing (shared uids, users,
 * malformed lines), pid -> package through a sysroot's /proc as the
 * top-app reader reads it, uid -> package where the pid does not tell
 * (the system server, a pid reused, a process gone), a packages.list
 * that changes, and the owners of every window of a real capture.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "owner.h"
#include "winlist.h"

#define REAL_HONOR                                                             \
	"../shared/fixtures/real/dumpsys-input/android14_honor_magicos.txt"

static const char packages[] =
	"com.example.app 10123 0 /data/user/0/com.example.app "
	"default:targetSdkVersion=33 3003\n"
	"com.android.settings 1000 0 /data/user_de/0/com.android.settings "
	"platform:privapp 2001,3002,3003 0 33\n"
	"com.android.providers.settings 1000 0 /data/user_de/0/"
	"com.android.providers.settings platform:privapp none 0 33\n"
	"com.android.phone 1001 0 /data/user_de/0/com.android.phone "
	"platform:privapp 3002\n"
	"\n"
	"# a comment\n"
	"bad\n"
	"com.x notanumber 0 /data/x default none\n"
	"com.y 10200\n"
	"surfaceflinger 1003 0 /data/x default none\n"
	"com.z 100000 0 /data/z default none\n"
	"com.win 10124 1 /data/user/0/com.win default none\r\n"
	"com.last 10125 0 /data/user/0/com.last default none";

static void
test_packages_parse(void **state)
{
	static const char with_nul[] = "com.a 10001 0 /d x\n"
				       "com.b 10\0002 0 /d x\n";
	struct owner_packages *p;
	const char *pkg;
	size_t shared;
	int64_t uid;

	(void)state;
	assert_int_equal(
		owner_packages_parse(packages, sizeof(packages) - 1, &p), 0);
	assert_int_equal(owner_packages_count(p), 6);
	assert_int_equal(owner_packages_malformed(p), 5);
	assert_string_equal(owner_packages_at(p, 4, &uid), "com.win");
	assert_true(uid == 10124);
	assert_string_equal(owner_packages_at(p, 5, &uid), "com.last");
	assert_null(owner_packages_at(p, 6, &uid));

	assert_int_equal(owner_packages_find(p, 10123, &pkg, &shared), 0);
	assert_string_equal(pkg, "com.example.app");
	assert_int_equal(shared, 0);
	/* User 10's uid of the same app. */
	assert_int_equal(owner_packages_find(p, 1010123, &pkg, &shared), 0);
	assert_string_equal(pkg, "com.example.app");
	/* A shared uid: the first in file order, the others counted. */
	assert_int_equal(owner_packages_find(p, 1000, &pkg, &shared), 0);
	assert_string_equal(pkg, "com.android.settings");
	assert_int_equal(shared, 1);
	assert_int_equal(owner_packages_find(p, 10200, &pkg, &shared), -ENOENT);
	assert_null(pkg);
	assert_int_equal(owner_packages_find(p, -1, &pkg, &shared), -ENOENT);
	owner_packages_free(p);

	/* A NUL inside a line makes it malformed, not shorter. */
	assert_int_equal(
		owner_packages_parse(with_nul, sizeof(with_nul) - 1, &p), 0);
	assert_int_equal(owner_packages_count(p), 1);
	assert_int_equal(owner_packages_malformed(p), 1);
	owner_packages_free(p);
	assert_int_equal(owner_packages_parse(NULL, 0, &p), 0);
	assert_int_equal(owner_packages_count(p), 0);
	owner_packages_free(p);
	owner_packages_free(NULL);
	assert_int_equal(owner_packages_load("/nonexistent/packages.list", &p),
			 -ENOENT);
}

/* Makes <root>/proc/<pid> with cmdline, status (its uid) and stat. */
static void
make_proc(const char *root, int32_t pid, const char *cmdline, int64_t uid)
{
	char dir[1024], path[1100], text[512];
	size_t n = strlen(cmdline);

	fixture_join(dir, sizeof(dir), root, "proc/%d", (int)pid);
	fixture_mkdirs(dir, 0755);
	fixture_join(path, sizeof(path), dir, "cmdline");
	/* NUL-terminated and padded, as zygote's children leave it. */
	memset(text, 0, sizeof(text));
	memcpy(text, cmdline, n);
	fixture_write(path, text, n + 8);
	fixture_join(path, sizeof(path), dir, "status");
	snprintf(text, sizeof(text),
		 "Name:\tx\nState:\tS "
		 "(sleeping)\nUid:\t%lld\t%lld\t%lld\t%lld\n",
		 (long long)uid, (long long)uid, (long long)uid,
		 (long long)uid);
	fixture_write_str(path, text);
	fixture_join(path, sizeof(path), dir, "stat");
	snprintf(text, sizeof(text),
		 "%d (x y) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 "
		 "%d 100 200\n",
		 (int)pid, (int)pid * 7);
	fixture_write_str(path, text);
}

static void
write_packages(const char *root, const char *text)
{
	char dir[1024], path[1100];

	fixture_join(dir, sizeof(dir), root, "data/system");
	fixture_mkdirs(dir, 0755);
	fixture_join(path, sizeof(path), dir, "packages.list");
	fixture_write_str(path, text);
}

static void
expect_owner(struct owner *o, int32_t pid, int64_t uid, enum owner_how how,
	     const char *package, size_t shared)
{
	struct owner_result res;

	assert_int_equal(owner_resolve(o, pid, uid, &res),
			 how == OWNER_NONE ? -ENOENT : 0);
	assert_int_equal(res.how, how);
	assert_string_equal(res.package, package);
	assert_int_equal(res.shared, shared);
}

static void
test_resolve(void **state)
{
	char root[512];
	struct owner *o;

	(void)state;
	assert_int_equal(fixture_tmpdir(root, sizeof(root), "owner"), 0);
	make_proc(root, 100, "com.example.app", 10123);
	make_proc(root, 101, "com.example.app:remote", 10123);
	make_proc(root, 102, "system_server", 1000);
	make_proc(root, 103, "/system/bin/surfaceflinger", 1000);
	make_proc(root, 104, "com.example.other", 10999);
	make_proc(root, 105, "com.android.phone", 1001);
	write_packages(root, packages);
	assert_int_equal(owner_new(root, &o), 0);

	expect_owner(o, 100, 10123, OWNER_PROC, "com.example.app", 0);
	expect_owner(o, 101, 10123, OWNER_PROC, "com.example.app", 0);
	expect_owner(o, 100, -1, OWNER_PROC, "com.example.app", 0);
	expect_owner(o, 102, 1000, OWNER_SYSTEM, OWNER_SYSTEM_PACKAGE, 0);
	/* Not a package name: the uid decides. */
	expect_owner(o, 103, 1000, OWNER_SYSTEM, OWNER_SYSTEM_PACKAGE, 0);
	/* A pid whose uid is not the window's was reused: the uid decides. */
	expect_owner(o, 104, 10123, OWNER_UID, "com.example.app", 0);
	/* Gone: the uid decides, a shared one with its others counted. */
	expect_owner(o, 999, 1001, OWNER_UID, "com.android.phone", 0);
	expect_owner(o, 999, 1010123, OWNER_UID, "com.example.app", 0);
	expect_owner(o, 105, 1001, OWNER_PROC, "com.android.phone", 0);
	expect_owner(o, 0, -1, OWNER_NONE, "", 0);
	expect_owner(o, 998, 10555, OWNER_NONE, "", 0);
	/* The list is read again when it changed. */
	write_packages(root, "com.new.app 10555 0 /data/user/0/com.new.app "
			     "default none\n"
			     "com.new.app2 10555 0 /data/user/0/com.new.app2 "
			     "default none\n");
	expect_owner(o, 998, 10555, OWNER_UID, "com.new.app", 1);
	expect_owner(o, 999, 1001, OWNER_NONE, "", 0);
	owner_free(o);
	owner_free(NULL);

	/* No packages.list at all: only the pid tells. */
	fixture_rmtree(root);
	assert_int_equal(fixture_tmpdir(root, sizeof(root), "owner"), 0);
	make_proc(root, 100, "com.example.app", 10123);
	assert_int_equal(owner_new(root, &o), 0);
	expect_owner(o, 100, 10123, OWNER_PROC, "com.example.app", 0);
	expect_owner(o, 999, 10123, OWNER_NONE, "", 0);
	owner_free(o);
	fixture_rmtree(root);
	assert_string_equal(owner_how_name(OWNER_UID), "uid");
	assert_string_equal(owner_how_name(OWNER_PROC), "proc");
	assert_string_equal(owner_how_name(OWNER_SYSTEM), "system");
	assert_string_equal(owner_how_name(OWNER_NONE), "none");
}

/*
 * Every window of the real Honor capture: its processes (the system
 * server, SystemUI, the launcher, the app, as the window names and the
 * capture's connections say) in a sysroot; each window's owner is the
 * package of its pid, an activity's window the package its name holds.
 */
static void
test_real_owners(void **state)
{
	static const struct {
		int32_t pid;
		const char *cmdline;
		int64_t uid;
		const char *package;
	} procs[] = {
		{2673, "system_server", 1000, OWNER_SYSTEM_PACKAGE},
		{3960, "com.android.systemui", 10070, "com.android.systemui"},
		{4271, "com.hihonor.android.launcher", 10106,
		 "com.hihonor.android.launcher"},
		{17675, "com.hihonor.android.honorsuite", 10297,
		 "com.hihonor.android.honorsuite"},
	};
	const struct winlist_display *d;
	const struct winlist_window *w;
	struct owner_result res;
	struct winlist *wl;
	struct owner *o;
	char root[512], *text;
	const char *slash;
	size_t len, i, k, apps = 0;

	(void)state;
	if (access(REAL_HONOR, R_OK) != 0)
		skip();
	text = fixture_slurp(REAL_HONOR, &len);
	assert_int_equal(winlist_parse(text, len, &wl), 0);
	free(text);
	assert_int_equal(fixture_tmpdir(root, sizeof(root), "owner"), 0);
	for (k = 0; k < sizeof(procs) / sizeof(*procs); k++)
		make_proc(root, procs[k].pid, procs[k].cmdline, procs[k].uid);
	assert_int_equal(owner_new(root, &o), 0);
	d = winlist_find_display(wl, 0);
	assert_int_equal(d->n_windows, 13);
	for (i = 0; (w = winlist_window(wl, d, i)) != NULL; i++) {
		for (k = 0; k < sizeof(procs) / sizeof(*procs); k++)
			if (procs[k].pid == w->owner_pid)
				break;
		assert_true(k < sizeof(procs) / sizeof(*procs));
		assert_true(procs[k].uid == w->owner_uid);
		assert_int_equal(
			owner_resolve(o, w->owner_pid, w->owner_uid, &res), 0);
		assert_string_equal(res.package, procs[k].package);
		assert_int_equal(res.how, procs[k].uid == 1000 ? OWNER_SYSTEM
							       : OWNER_PROC);
		/* "fa1cb8c com.foo/com.foo.Main": the app's own window. */
		slash = strchr(w->name, '/');
		if (slash && strncmp(w->name + 8, res.package,
				     strlen(res.package)) == 0) {
			assert_int_equal(w->name[8 + strlen(res.package)], '/');
			apps++;
		}
	}
	assert_int_equal(apps, 1);
	owner_free(o);
	winlist_free(wl);
	fixture_rmtree(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packages_parse),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_real_owners),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
