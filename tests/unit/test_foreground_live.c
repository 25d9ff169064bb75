/*
 * Tests of the live foreground tracker against a fake sysroot the test
 * builds in a temporary directory (dev/cpuset/top-app/cgroup.procs and
 * proc/<pid>/{cmdline,stat,status,oom_score_adj}) and the simulator's
 * fake dumpsys (tests/sim/fake_android.h), run through a link named
 * dumpsys, which prints the canned `dumpsys window` outputs of
 * tests/fixtures/foreground.  The simulator is found as $BUILD/tapd-sim
 * (build/tapd-sim by default).  Run from the repository root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "foreground.h"
#include "foreground_live.h"
#include "foreground_window.h"
#include "loop.h"
#include "status.h"

#define FIXTURES "tests/fixtures/foreground/"
#define SHOP	 "com.example.shop"
#define MAPS	 "com.example.maps"
#define LAUNCHER "com.google.android.apps.nexuslauncher"
#define SYSUI	 "com.android.systemui"
#define SEC	 1000000000LL

struct fx {
	char root[256];
	char dsdir[300];
	char dumpsys[300];
	struct status *status;
	struct foreground *tl;
	struct foreground_live *fl;
};

static void
set_top(const struct fx *fx, const char *procs)
{
	char path[512];

	fixture_join(path, sizeof(path), fx->root,
		     "dev/cpuset/top-app/cgroup.procs");
	fixture_write_str(path, procs);
}

/*
 * Writes /proc/<pid> for a process named name (NULL: no cmdline file),
 * with uid (negative: no status file), a start time and an oom_score_adj.
 * The comm in stat holds a blank and a ')' to try the field counting.
 */
static void
add_proc(const struct fx *fx, int pid, const char *name, long uid,
	 unsigned long long start, int oom)
{
	char path[512], buf[1024];
	size_t n;
	int len;

	fixture_join(path, sizeof(path), fx->root, "proc/%d", pid);
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
	fixture_join(path, sizeof(path), fx->root, "proc/%d/cmdline", pid);
	if (name) {
		/* NUL-terminated and NUL-padded, as the zygote leaves it. */
		n = strlen(name);
		assert_true(n + 32 < sizeof(buf));
		memset(buf, 0, sizeof(buf));
		memcpy(buf, name, n);
		fixture_write(path, buf, n + 1 + (pid % 7));
	} else {
		unlink(path);
	}
	fixture_join(path, sizeof(path), fx->root, "proc/%d/stat", pid);
	len = snprintf(buf, sizeof(buf),
		       "%d (x) y:%d) S 1 1 0 0 -1 1077952832 12345 0 0 0 100 "
		       "50 0 0 20 0 45 0 %llu 15000000000 30000 "
		       "18446744073709551615 1 1 0 0 0 0 4612 1 1073775864\n",
		       pid, pid, start);
	assert_true(len > 0 && (size_t)len < sizeof(buf));
	fixture_write_str(path, buf);
	fixture_join(path, sizeof(path), fx->root, "proc/%d/status", pid);
	if (uid >= 0) {
		len = snprintf(buf, sizeof(buf),
			       "Name:\tx\nUmask:\t0077\nState:\tS (sleeping)\n"
			       "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t1\n"
			       "TracerPid:\t0\nUid:\t%ld\t%ld\t%ld\t%ld\n"
			       "Gid:\t%ld\t%ld\t%ld\t%ld\nFDSize:\t128\n",
			       pid, pid, uid, uid, uid, uid, uid, uid, uid,
			       uid);
		assert_true(len > 0 && (size_t)len < sizeof(buf));
		fixture_write_str(path, buf);
	} else {
		unlink(path);
	}
	fixture_join(path, sizeof(path), fx->root, "proc/%d/oom_score_adj",
		     pid);
	snprintf(buf, sizeof(buf), "%d\n", oom);
	fixture_write_str(path, buf);
}

static void
set_oom(const struct fx *fx, int pid, int oom)
{
	char path[512], buf[32];

	fixture_join(path, sizeof(path), fx->root, "proc/%d/oom_score_adj",
		     pid);
	snprintf(buf, sizeof(buf), "%d\n", oom);
	fixture_write_str(path, buf);
}

static void
rm_proc(const struct fx *fx, int pid)
{
	char path[512];

	fixture_join(path, sizeof(path), fx->root, "proc/%d", pid);
	fixture_rmtree(path);
}

/*
 * What the fake dumpsys does for "window": print fixture (NULL: nothing),
 * then hang for hang seconds (0: not) and exit with status.
 */
static void
set_dumpsys(const struct fx *fx, const char *fixture, int status, int hang)
{
	char path[512], buf[32];

	snprintf(path, sizeof(path), "%s/window.out", fx->dsdir);
	unlink(path);
	if (fixture)
		fixture_copy(fixture, path);
	snprintf(path, sizeof(path), "%s/window.exit", fx->dsdir);
	snprintf(buf, sizeof(buf), "%d\n", status);
	fixture_write_str(path, buf);
	snprintf(path, sizeof(path), "%s/window.hang", fx->dsdir);
	unlink(path);
	if (hang) {
		snprintf(buf, sizeof(buf), "%d\n", hang);
		fixture_write_str(path, buf);
	}
}

/* The lines the fake dumpsys logged: one per call, its arguments. */
static int
dumpsys_calls(const struct fx *fx, int *all_window)
{
	char path[512], line[256];
	FILE *fp;
	int n = 0;

	*all_window = 1;
	snprintf(path, sizeof(path), "%s/window.calls", fx->dsdir);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		n++;
		if (strcmp(line, "window\n") != 0)
			*all_window = 0;
	}
	fclose(fp);
	return n;
}

static void
open_tracker(struct fx *fx, int timeout_ms, int refresh_ms)
{
	struct foreground_live_config cfg;

	foreground_live_free(fx->fl);
	foreground_free(fx->tl);
	fx->fl = NULL;
	fx->tl = NULL;
	assert_int_equal(foreground_new(&fx->tl), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = fx->root;
	cfg.dumpsys_bin = fx->dumpsys;
	cfg.dumpsys_timeout_ms = timeout_ms;
	cfg.dumpsys_refresh_ms = refresh_ms;
	cfg.status = fx->status;
	assert_int_equal(foreground_live_new(&cfg, fx->tl, &fx->fl), 0);
}

static int
setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	static const char *const dirs[] = {"dev", "dev/cpuset",
					   "dev/cpuset/top-app", "proc"};
	const char *build = getenv("BUILD");
	char path[512], sim[PATH_MAX], real[PATH_MAX];
	size_t i;

	assert_non_null(fx);
	assert_int_equal(fixture_tmpdir(fx->root, sizeof(fx->root), "fgl"), 0);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		fixture_join(path, sizeof(path), fx->root, "%s", dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(fx->dsdir, sizeof(fx->dsdir), "%s/dumpsys", fx->root);
	assert_int_equal(mkdir(fx->dsdir, 0755), 0);
	assert_int_equal(setenv("TAPD_FAKE_DUMPSYS_DIR", fx->dsdir, 1), 0);
	snprintf(sim, sizeof(sim), "%s/tapd-sim",
		 build && *build ? build : "build");
	if (!realpath(sim, real) || access(real, X_OK) != 0)
		fail_msg("'%s' is not executable: build it first (make) and "
			 "run from the repository root",
			 sim);
	/* The simulator is the fake dumpsys when run by that name. */
	fixture_join(path, sizeof(path), fx->root, "bin");
	assert_int_equal(mkdir(path, 0755), 0);
	fixture_join(fx->dumpsys, sizeof(fx->dumpsys), fx->root, "bin/dumpsys");
	assert_int_equal(symlink(real, fx->dumpsys), 0);
	assert_int_equal(status_new("live", &fx->status), 0);
	set_top(fx, "");
	open_tracker(fx, 2000, 0);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *fx = *state;

	foreground_live_free(fx->fl);
	foreground_free(fx->tl);
	status_free(fx->status);
	fixture_rmtree(fx->root);
	free(fx);
	return 0;
}

static void
expect_at(const struct fx *fx, int64_t t, int32_t pid, const char *pkg)
{
	const char *got = NULL;
	int32_t gpid = -1;

	assert_int_equal(foreground_at(fx->tl, t, &gpid, &got), 0);
	assert_int_equal(gpid, pid);
	assert_string_equal(got, pkg);
}

static uint64_t
entries(const struct fx *fx)
{
	struct foreground_stats st;

	foreground_get_stats(fx->tl, &st);
	return st.entries;
}

static struct foreground_live_stats
stats(const struct fx *fx)
{
	struct foreground_live_stats st;

	foreground_live_get_stats(fx->fl, &st);
	return st;
}

static struct status_source_state
health(const struct fx *fx)
{
	struct status_snapshot snap;

	status_get(fx->status, &snap);
	return snap.sources[STATUS_SOURCE_FOREGROUND];
}

static void
expect_health(const struct fx *fx, enum status_health h, const char *needle)
{
	struct status_source_state s = health(fx);

	if (s.health != h || strcmp(s.kind, "top-app") != 0 ||
	    !strstr(s.detail, needle))
		fail_msg("health %s '%s' kind '%s', wanted %s with '%s'",
			 status_health_name(s.health), s.detail, s.kind,
			 status_health_name(h), needle);
}

static void
expect_current(const struct fx *fx, int32_t pid, const char *pkg)
{
	const char *got = NULL;
	int32_t gpid = -1;

	assert_int_equal(foreground_live_current(fx->fl, &gpid, &got), 0);
	assert_int_equal(gpid, pid);
	assert_string_equal(got, pkg);
}

static void
test_single_app(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(foreground_live_current(fx->fl, NULL, NULL), -ENOENT);
	add_proc(fx, 812, "/system/bin/surfaceflinger", 1000, 300, -1000);
	add_proc(fx, 4321, SHOP, 10094, 90000, 0);
	add_proc(fx, 2, "", 0, 1, 0); /* a kernel thread: empty cmdline */
	set_top(fx, "812\n4321\n2\n");
	assert_int_equal(foreground_live_sample(fx->fl, 5 * SEC), 0);
	assert_int_equal(entries(fx), 1);
	assert_int_equal(foreground_at(fx->tl, 5 * SEC - 1, NULL, NULL),
			 -ENOENT);
	expect_at(fx, 5 * SEC, 4321, SHOP);
	expect_at(fx, INT64_MAX, 4321, SHOP);
	expect_current(fx, 4321, SHOP);
	expect_health(fx, STATUS_HEALTH_UP, SHOP);
	assert_int_equal(stats(fx).switches, 1);
	assert_int_equal(stats(fx).dumpsys_calls, 0);
	assert_int_equal(stats(fx).cache_misses, 3);
}

static void
test_app_switch(void **state)
{
	struct fx *fx = *state;

	add_proc(fx, 812, "/system/bin/surfaceflinger", 1000, 300, -1000);
	add_proc(fx, 4321, SHOP, 10094, 90000, 0);
	set_top(fx, "812\n4321\n");
	assert_int_equal(foreground_live_sample(fx->fl, 10 * SEC), 0);
	/* The user opens maps: the shop leaves top-app. */
	add_proc(fx, 5555, MAPS, 10101, 95000, 0);
	set_top(fx, "5555\n812\n");
	assert_int_equal(foreground_live_sample(fx->fl, 12 * SEC), 0);
	assert_int_equal(entries(fx), 2);
	expect_at(fx, 10 * SEC, 4321, SHOP);
	expect_at(fx, 12 * SEC - 1, 4321, SHOP);
	expect_at(fx, 12 * SEC, 5555, MAPS);
	expect_at(fx, 100 * SEC, 5555, MAPS);
	/* And back: a third switch, the first two unchanged. */
	set_top(fx, "4321\n812\n");
	assert_int_equal(foreground_live_sample(fx->fl, 15 * SEC), 0);
	assert_int_equal(entries(fx), 3);
	expect_at(fx, 11 * SEC, 4321, SHOP);
	expect_at(fx, 14 * SEC, 5555, MAPS);
	expect_at(fx, 15 * SEC, 4321, SHOP);
	assert_int_equal(stats(fx).switches, 3);
	/*
	 * The same package in a new process (the app was restarted) is a
	 * switch too: the pid is part of the answer.
	 */
	add_proc(fx, 6000, SHOP, 10094, 99000, 0);
	set_top(fx, "6000\n");
	assert_int_equal(foreground_live_sample(fx->fl, 16 * SEC), 0);
	assert_int_equal(entries(fx), 4);
	expect_at(fx, 16 * SEC, 6000, SHOP);
}

static void
test_no_change(void **state)
{
	struct fx *fx = *state;
	int i;

	add_proc(fx, 812, "/system/bin/surfaceflinger", 1000, 300, -1000);
	add_proc(fx, 4321, SHOP, 10094, 90000, 0);
	add_proc(fx, 4400, SHOP ":remote", 10094, 90100, 0);
	set_top(fx, "812\n4400\n4321\n");
	for (i = 0; i < 10; i++)
		assert_int_equal(foreground_live_sample(fx->fl, (20 + i) * SEC),
				 0);
	assert_int_equal(entries(fx), 1);
	/* The main process stands for the package, not the lower in line. */
	expect_at(fx, 25 * SEC, 4321, SHOP);
	assert_int_equal(stats(fx).samples, 10);
	assert_int_equal(stats(fx).switches, 1);
	assert_int_equal(stats(fx).cache_misses, 3);
	assert_int_equal(stats(fx).cache_hits, 9 * 3);
	assert_int_equal(stats(fx).dumpsys_calls, 0);
}

struct spelling {
	const char *file;
	const char *pkg;
	int pid;
};

/* App, launcher and SystemUI: dumpsys decides, in every spelling. */
static void
test_multi_process_dumpsys(void **state)
{
	static const struct spelling sp[] = {
		{FIXTURES "window-a7.txt", LAUNCHER, 2391},
		{FIXTURES "window-a9.txt", SHOP, 9811},
		{FIXTURES "window-a12.txt", LAUNCHER, 2391},
		{FIXTURES "window-a14.txt", SHOP, 9811},
		{FIXTURES "window-shade.txt", LAUNCHER, 2391},
	};
	/*
	 * The focused activity each names, expanded: from mCurrentFocus's
	 * window, or mFocusedApp's record when the window names none (A7's
	 * launcher, the shade over the launcher).
	 */
	static const char *const act[] = {
		LAUNCHER ".NexusLauncherActivity", SHOP ".CartActivity",
		LAUNCHER ".NexusLauncherActivity", SHOP ".MainActivityV2",
		LAUNCHER ".NexusLauncherActivity",
	};
	struct foreground_switch sw;
	struct fx *fx = *state;
	int all_window, calls = 0;
	size_t i;

	add_proc(fx, 1643, SYSUI, 10127, 2000, -800);
	add_proc(fx, 2391, LAUNCHER, 10054, 3000, 100);
	add_proc(fx, 9811, SHOP, 10094, 90000, 0);
	add_proc(fx, 9830, SHOP ":push", 10094, 90500, 0);
	set_top(fx, "1643\n9830\n2391\n9811\n");
	for (i = 0; i < sizeof(sp) / sizeof(sp[0]); i++) {
		set_dumpsys(fx, sp[i].file, 0, 0);
		open_tracker(fx, 2000, 0);
		assert_int_equal(foreground_live_sample(fx->fl, 30 * SEC), 0);
		calls++;
		assert_int_equal(dumpsys_calls(fx, &all_window), calls);
		assert_true(all_window);
		assert_int_equal(stats(fx).dumpsys_calls, 1);
		assert_int_equal(stats(fx).dumpsys_failures, 0);
		assert_int_equal(stats(fx).fallbacks, 0);
		assert_int_equal(entries(fx), 1);
		expect_at(fx, 30 * SEC, sp[i].pid, sp[i].pkg);
		assert_int_equal(foreground_switch_at(fx->tl, 30 * SEC, &sw),
				 0);
		assert_non_null(sw.activity);
		assert_string_equal(sw.activity, act[i]);
		/* Nothing outstanding: complete to the sample. */
		assert_int_equal(foreground_complete(fx->tl), 30 * SEC);
		expect_health(fx, STATUS_HEALTH_UP, sp[i].pkg);
	}
	/* SystemUI with top UI over one app: that app, no dumpsys. */
	open_tracker(fx, 2000, 0);
	set_top(fx, "1643\n9811\n");
	assert_int_equal(foreground_live_sample(fx->fl, 31 * SEC), 0);
	expect_current(fx, 9811, SHOP);
	/* SystemUI alone (lock screen): SystemUI. */
	set_top(fx, "1643\n");
	assert_int_equal(foreground_live_sample(fx->fl, 32 * SEC), 0);
	expect_current(fx, 1643, SYSUI);
	assert_int_equal(stats(fx).dumpsys_calls, 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), calls);
	assert_int_equal(entries(fx), 2);
}

/*
 * The answer of dumpsys is kept while the set of apps stays the same, for
 * the refresh period; a changed set asks again at once.
 */
static void
test_dumpsys_refresh(void **state)
{
	struct fx *fx = *state;
	int all_window;

	add_proc(fx, 2391, LAUNCHER, 10054, 3000, 100);
	add_proc(fx, 9811, SHOP, 10094, 90000, 0);
	set_top(fx, "2391\n9811\n");
	set_dumpsys(fx, FIXTURES "window-a9.txt", 0, 0);
	open_tracker(fx, 2000, 3000);
	assert_int_equal(foreground_live_sample(fx->fl, 40 * SEC), 0);
	expect_current(fx, 9811, SHOP);
	/* The focus moves, but within 3 s the old answer stands. */
	set_dumpsys(fx, FIXTURES "window-a12.txt", 0, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 42 * SEC), 0);
	expect_current(fx, 9811, SHOP);
	assert_int_equal(dumpsys_calls(fx, &all_window), 1);
	/* Stale: asked again. */
	assert_int_equal(foreground_live_sample(fx->fl, 43 * SEC), 0);
	expect_current(fx, 2391, LAUNCHER);
	assert_int_equal(dumpsys_calls(fx, &all_window), 2);
	/* A new app joins: asked again at once. */
	add_proc(fx, 5555, MAPS, 10101, 95000, 0);
	set_top(fx, "2391\n9811\n5555\n");
	set_dumpsys(fx, FIXTURES "window-a14.txt", 0, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 43 * SEC + 1), 0);
	expect_current(fx, 9811, SHOP);
	assert_int_equal(dumpsys_calls(fx, &all_window), 3);
	assert_int_equal(stats(fx).dumpsys_calls, 3);
	assert_int_equal(entries(fx), 3);
	expect_at(fx, 42 * SEC, 9811, SHOP);
	expect_at(fx, 43 * SEC, 2391, LAUNCHER);
	expect_at(fx, 43 * SEC + 1, 9811, SHOP);
}

static void
multi_setup(struct fx *fx, int shop_oom, int launcher_oom)
{
	add_proc(fx, 1643, SYSUI, 10127, 2000, -800);
	add_proc(fx, 2391, LAUNCHER, 10054, 3000, launcher_oom);
	add_proc(fx, 9811, SHOP, 10094, 90000, shop_oom);
	set_top(fx, "1643\n2391\n9811\n");
}

static void
test_dumpsys_exit_1(void **state)
{
	struct fx *fx = *state;
	int all_window;

	/* Its output names the launcher, but a failed run is not trusted. */
	multi_setup(fx, 0, 100);
	set_dumpsys(fx, FIXTURES "window-a12.txt", 1, 0);
	open_tracker(fx, 2000, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 50 * SEC), 0);
	expect_current(fx, 9811, SHOP);
	expect_health(fx, STATUS_HEALTH_DEGRADED, "exited with status 1");
	expect_health(fx, STATUS_HEALTH_DEGRADED, "fallback");
	assert_int_equal(stats(fx).dumpsys_failures, 1);
	assert_int_equal(stats(fx).fallbacks, 1);
	/* The fallback follows oom_score_adj, not the order of the file. */
	set_oom(fx, 9811, 700);
	set_oom(fx, 2391, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 50 * SEC + 1), 0);
	expect_current(fx, 2391, LAUNCHER);
	/* Backing off: no second run within a second of the failure. */
	assert_int_equal(dumpsys_calls(fx, &all_window), 1);
	assert_int_equal(foreground_live_sample(fx->fl, 51 * SEC + 1), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 2);
	assert_int_equal(stats(fx).dumpsys_failures, 2);
	/* Two failures: two seconds. */
	set_dumpsys(fx, FIXTURES "window-a9.txt", 0, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 52 * SEC + 1), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 2);
	expect_health(fx, STATUS_HEALTH_DEGRADED, "exited with status 1");
	/* Nor when the set changes: a broken dumpsys must not stall us. */
	add_proc(fx, 5555, MAPS, 10101, 95000, 900);
	set_top(fx, "1643\n2391\n9811\n5555\n");
	assert_int_equal(foreground_live_sample(fx->fl, 52 * SEC + 2), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 2);
	expect_current(fx, 2391, LAUNCHER);
	expect_health(fx, STATUS_HEALTH_DEGRADED, "of 3 apps");
	/* Working again: up, and its answer wins over the fallback. */
	assert_int_equal(foreground_live_sample(fx->fl, 53 * SEC + 2), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 3);
	assert_true(all_window);
	expect_current(fx, 9811, SHOP);
	expect_health(fx, STATUS_HEALTH_UP, SHOP);
	expect_at(fx, 50 * SEC, 9811, SHOP);
	expect_at(fx, 50 * SEC + 1, 2391, LAUNCHER);
	expect_at(fx, 53 * SEC + 2, 9811, SHOP);
	assert_int_equal(entries(fx), 3);
}

static void
test_dumpsys_garbage(void **state)
{
	struct fx *fx = *state;
	char path[512], *junk;
	unsigned seed = 12345;
	size_t i, n = 256 * 1024;

	multi_setup(fx, 100, 0);
	set_dumpsys(fx, FIXTURES "window-garbage.txt", 0, 0);
	open_tracker(fx, 2000, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 60 * SEC), 0);
	expect_current(fx, 2391, LAUNCHER);
	expect_health(fx, STATUS_HEALTH_DEGRADED, "named no app");
	assert_int_equal(stats(fx).dumpsys_failures, 0);
	assert_int_equal(stats(fx).dumpsys_unnamed, 1);
	/* Nothing focused at all: the same. */
	set_dumpsys(fx, FIXTURES "window-null.txt", 0, 0);
	open_tracker(fx, 2000, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 61 * SEC), 0);
	expect_current(fx, 2391, LAUNCHER);
	expect_health(fx, STATUS_HEALTH_DEGRADED, "named no app");
	/* Random bytes. */
	junk = malloc(n);
	assert_non_null(junk);
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		junk[i] = (char)(seed >> 16);
	}
	snprintf(path, sizeof(path), "%s/window.out", fx->dsdir);
	fixture_write(path, junk, n);
	free(junk);
	open_tracker(fx, 2000, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 62 * SEC), 0);
	expect_current(fx, 2391, LAUNCHER);
	assert_int_equal(stats(fx).dumpsys_calls, 1);
	assert_int_equal(stats(fx).fallbacks, 1);
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
test_dumpsys_hang(void **state)
{
	struct fx *fx = *state;
	struct foreground_live_config cfg;
	char path[512];
	int64_t t0, took;
	int st;

	multi_setup(fx, 0, 100);
	/* Prints a focus naming the launcher, then never exits. */
	set_dumpsys(fx, FIXTURES "window-a12.txt", 0, 30);
	open_tracker(fx, 200, 0);
	t0 = mono_ms();
	assert_int_equal(foreground_live_sample(fx->fl, 70 * SEC), 0);
	took = mono_ms() - t0;
	assert_true(took >= 190);
	assert_true(took < 2000);
	expect_current(fx, 9811, SHOP);
	expect_health(fx, STATUS_HEALTH_DEGRADED, "timed out after 200 ms");
	assert_int_equal(stats(fx).dumpsys_failures, 1);
	/* Killed and reaped: no child of ours is left, not even a zombie. */
	errno = 0;
	assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	/* A dumpsys that does not exist: degraded, not broken. */
	foreground_live_free(fx->fl);
	foreground_free(fx->tl);
	assert_int_equal(foreground_new(&fx->tl), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = fx->root;
	fixture_join(path, sizeof(path), fx->root, "bin/no-such-dumpsys");
	cfg.dumpsys_bin = path;
	cfg.status = fx->status;
	assert_int_equal(foreground_live_new(&cfg, fx->tl, &fx->fl), 0);
	assert_int_equal(foreground_live_sample(fx->fl, 71 * SEC), 0);
	expect_current(fx, 9811, SHOP);
	expect_health(fx, STATUS_HEALTH_DEGRADED, "cannot run");
	assert_int_equal(stats(fx).dumpsys_failures, 1);
	assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
}

/* A big dump with the focus at its very end, read through the pipe. */
static void
test_dumpsys_large(void **state)
{
	struct fx *fx = *state;
	char path[512], line[160];
	FILE *fp;
	int i;

	multi_setup(fx, 0, 100);
	snprintf(path, sizeof(path), "%s/big.txt", fx->root);
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (i = 0; i < 40000; i++) {
		snprintf(line, sizeof(line),
			 "  Window #%d Window{%x u0 " SHOP "/" SHOP
			 ".Main}:\n    mDisplayId=0 rootTaskId=%d\n",
			 i, i, i);
		fputs(line, fp);
	}
	fputs("  mCurrentFocus=Window{5d2507e u0 " LAUNCHER "/" LAUNCHER
	      ".NexusLauncherActivity}\n",
	      fp);
	assert_int_equal(fclose(fp), 0);
	set_dumpsys(fx, path, 0, 0);
	open_tracker(fx, 5000, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 80 * SEC), 0);
	expect_current(fx, 2391, LAUNCHER);
	expect_health(fx, STATUS_HEALTH_UP, LAUNCHER);
}

static void
test_pid_reuse(void **state)
{
	struct fx *fx = *state;

	add_proc(fx, 4321, SHOP, 10094, 5000, 0);
	set_top(fx, "4321\n");
	assert_int_equal(foreground_live_sample(fx->fl, 90 * SEC), 0);
	expect_current(fx, 4321, SHOP);
	/*
	 * The name changes with the same start time: the cache answers, as
	 * proof that it is used (a live process cannot change its package).
	 */
	add_proc(fx, 4321, MAPS, 10101, 5000, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 91 * SEC), 0);
	expect_current(fx, 4321, SHOP);
	assert_int_equal(stats(fx).cache_hits, 1);
	/* A new process under the same pid: read again. */
	add_proc(fx, 4321, MAPS, 10101, 6000, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 92 * SEC), 0);
	expect_current(fx, 4321, MAPS);
	assert_int_equal(stats(fx).cache_misses, 2);
	assert_int_equal(entries(fx), 2);
	expect_at(fx, 92 * SEC - 1, 4321, SHOP);
	expect_at(fx, 92 * SEC, 4321, MAPS);
}

static void
test_vanished(void **state)
{
	struct fx *fx = *state;

	add_proc(fx, 2391, LAUNCHER, 10054, 3000, 100);
	add_proc(fx, 9811, SHOP, 10094, 90000, 0);
	add_proc(fx, 7777, MAPS, 10101, 95000, 0);
	set_dumpsys(fx, NULL, 1, 0);
	/* 5000 never had a /proc entry; 7777 lost its cmdline. */
	set_top(fx, "5000\n7777\n9811\n");
	add_proc(fx, 7777, NULL, 10101, 95000, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 100 * SEC), 0);
	expect_current(fx, 9811, SHOP);
	assert_int_equal(stats(fx).vanished, 2);
	assert_int_equal(stats(fx).dumpsys_calls, 0);
	/* The launcher dies after the top-app read: skipped, no dumpsys. */
	set_top(fx, "2391\n9811\n");
	rm_proc(fx, 2391);
	assert_int_equal(foreground_live_sample(fx->fl, 101 * SEC), 0);
	expect_current(fx, 9811, SHOP);
	assert_int_equal(stats(fx).vanished, 3);
	assert_int_equal(stats(fx).dumpsys_calls, 0);
	expect_health(fx, STATUS_HEALTH_UP, SHOP);
	assert_int_equal(entries(fx), 1);
}

static void
test_no_top_app(void **state)
{
	struct fx *fx = *state;
	char path[512];

	fixture_join(path, sizeof(path), fx->root, "dev/cpuset");
	fixture_rmtree(path);
	assert_int_equal(foreground_live_sample(fx->fl, 110 * SEC), -ENOENT);
	expect_health(fx, STATUS_HEALTH_DOWN,
		      "no /dev/cpuset/top-app (not Android?)");
	assert_int_equal(entries(fx), 0);
	assert_int_equal(foreground_live_current(fx->fl, NULL, NULL), -ENOENT);
	/* It comes (cpuset mounted late): up again. */
	assert_int_equal(mkdir(path, 0755), 0);
	fixture_join(path, sizeof(path), fx->root, "dev/cpuset/top-app");
	assert_int_equal(mkdir(path, 0755), 0);
	add_proc(fx, 4321, SHOP, 10094, 5000, 0);
	set_top(fx, "4321\n");
	assert_int_equal(foreground_live_sample(fx->fl, 111 * SEC), 0);
	expect_health(fx, STATUS_HEALTH_UP, SHOP);
	assert_int_equal(entries(fx), 1);
}

static void
test_non_apps(void **state)
{
	struct fx *fx = *state;

	add_proc(fx, 812, "/system/bin/surfaceflinger", 1000, 300, -1000);
	add_proc(fx, 700, "media.codec", 1046, 310, -1000);
	add_proc(fx, 1500, "system_server", 1000, 400, -900);
	add_proc(fx, 3000, SHOP, 2000, 500, 0); /* shell uid, not an app */
	add_proc(fx, 3100, "<pre-initialized>", 10094, 510, 0);
	add_proc(fx, 3200, "com.example.shop/../x", 10094, 520, 0);
	add_proc(fx, 3300, ".com.example", 10094, 530, 0);
	add_proc(fx, 3400, "com.", 10094, 540, 0);
	add_proc(fx, 3500, "zygote64", 0, 550, -1000);
	add_proc(fx, 2, "", 0, 1, 0);
	set_top(fx, "812\n700\n1500\n3000\n3100\n3200\n3300\n3400\n3500\n2\n");
	assert_int_equal(foreground_live_sample(fx->fl, 120 * SEC), 0);
	assert_int_equal(entries(fx), 0);
	assert_int_equal(foreground_live_current(fx->fl, NULL, NULL), -ENOENT);
	expect_health(fx, STATUS_HEALTH_UP, "no app in top-app");
	assert_int_equal(stats(fx).dumpsys_calls, 0);
	/*
	 * Settings runs with the system uid and is an app all the same; a
	 * second user's app (uid 10 * 100000 + app id) too.
	 */
	add_proc(fx, 4000, "com.android.settings", 1000, 600, 0);
	set_top(fx, "812\n4000\n1500\n");
	assert_int_equal(foreground_live_sample(fx->fl, 121 * SEC), 0);
	expect_current(fx, 4000, "com.android.settings");
	add_proc(fx, 4100, MAPS, 1010101, 700, 0);
	set_top(fx, "812\n4100\n");
	assert_int_equal(foreground_live_sample(fx->fl, 122 * SEC), 0);
	expect_current(fx, 4100, MAPS);
	/* Without a status file the name alone decides. */
	add_proc(fx, 4200, SHOP, -1, 800, 0);
	set_top(fx, "4200\n");
	assert_int_equal(foreground_live_sample(fx->fl, 123 * SEC), 0);
	expect_current(fx, 4200, SHOP);
	/* No app left: the last one stays in force. */
	set_top(fx, "812\n");
	assert_int_equal(foreground_live_sample(fx->fl, 124 * SEC), 0);
	expect_health(fx, STATUS_HEALTH_UP, "'" SHOP "' kept");
	assert_int_equal(entries(fx), 3);
	expect_at(fx, 200 * SEC, 4200, SHOP);
}

static void
test_garbage_procs(void **state)
{
	struct fx *fx = *state;
	char path[512], *big;
	size_t i;

	add_proc(fx, 4321, SHOP, 10094, 5000, 0);
	set_top(fx, "abc\n-5\n\n 4321 \r\n99999999999\n4321\n0\n4321x\n");
	assert_int_equal(foreground_live_sample(fx->fl, 130 * SEC), 0);
	expect_current(fx, 4321, SHOP);
	assert_int_equal(stats(fx).garbage, 5);
	assert_int_equal(stats(fx).cache_misses, 1);
	/* Empty: no app, not an error. */
	set_top(fx, "");
	assert_int_equal(foreground_live_sample(fx->fl, 131 * SEC), 0);
	/* A file far over the read limit: bounded, and the pids still read. */
	big = malloc(300000);
	assert_non_null(big);
	for (i = 0; i + 5 < 300000; i += 5)
		memcpy(big + i, "4321\n", 5);
	big[i] = '\0';
	fixture_join(path, sizeof(path), fx->root,
		     "dev/cpuset/top-app/cgroup.procs");
	fixture_write_str(path, big);
	free(big);
	assert_int_equal(foreground_live_sample(fx->fl, 132 * SEC), 0);
	expect_current(fx, 4321, SHOP);
	assert_true(stats(fx).dropped_pids >= 1);
	assert_int_equal(entries(fx), 1);
}

struct focus_case {
	const char *value;
	const char *pkg; /* NULL: names none */
};

static void
test_focus_spellings(void **state)
{
	static const struct focus_case cases[] = {
		{"Window{4ed24c1 u0 com.getir.casestudy.dev/"
		 "com.getir.casestudy.modules.main.ui.MainActivity}",
		 "com.getir.casestudy.dev"},
		{"ActivityRecord{8730a17 u0 org.codeaurora.snapcam/"
		 "com.android.camera.CameraLauncher t1032}",
		 "org.codeaurora.snapcam"},
		{"ActivityRecord{d9b8281 u0 tv.danmaku.bili/.MainActivityV2} "
		 "t57}",
		 "tv.danmaku.bili"},
		{"AppWindowToken{422df168 token=Token{422def98 "
		 "ActivityRecord{422dee38 u0 com.example/.UI.play.PlayActivity "
		 "t14}}}",
		 "com.example"},
		{"Window{41f6b5d8 com.foo.bar/com.foo.bar.Main paused=false}",
		 "com.foo.bar"},
		{"Window{43e887a8 u0 com.lookout.enterprise}",
		 "com.lookout.enterprise"},
		{"Window{a1b2c3 u10 com.work.app/com.work.app.Main}",
		 "com.work.app"},
		{"Window{a1b2c3 u0 com.foo/com.foo.Main EXITING}", "com.foo"},
		{"Window{a1b2c3 u0 Splash Screen com.foo.splash}",
		 "com.foo.splash"},
		{"Window{a1b2c3 u0 com.foo",
		 "com.foo"}, /* a line cut before '}' */
		{"  Window{a1b2c3 u0 com.foo/.A}", "com.foo"},
		{"null", NULL},
		{"Window{974f581 u0 NotificationShade}", NULL},
		{"Window{974f581 u0 InputMethod}", NULL},
		{"Window{974f581 u0 PopupWindow:9c2b1e4}", NULL},
		{"Window{974f581 u0 StatusBar paused=false}", NULL},
		{"Window{}", NULL},
		{"Window{", NULL},
		{"{", NULL},
		{"", NULL},
		{"Window{zz u0 /}", NULL},
		{"Window{ab u0 /com.foo.Main}", NULL},
		{"Window{ab u0 com..foo/x}", NULL},
		{"Window{ab u0 9com.foo/x}", NULL},
		{"Window{ab u0 com.foo./x}", NULL},
		{"Window{ab u0 com-foo.bar/x}", NULL},
		{"Window{ab u0 singleword}", NULL},
		{"ActivityRecord{ab u0 com.foo/.A t3}} junk {", "com.foo"},
	};
	char pkg[FOREGROUND_PACKAGE_MAX + 1], small[4], big[700];
	size_t i;
	int r;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(pkg, 'x', sizeof(pkg));
		r = foreground_window_focus_package(cases[i].value, pkg,
						    sizeof(pkg));
		if (!cases[i].pkg) {
			if (r != 0)
				fail_msg("'%s' named '%s'", cases[i].value,
					 pkg);
			continue;
		}
		if (r != 1 || strcmp(pkg, cases[i].pkg) != 0)
			fail_msg("'%s': got %d '%s', wanted '%s'",
				 cases[i].value, r, r ? pkg : "", cases[i].pkg);
	}
	/* Too small a buffer, too long a name: nothing, no overflow. */
	assert_int_equal(
		foreground_window_focus_package("Window{ab u0 com.foo/.A}",
						small, sizeof(small)),
		0);
	memset(big, 'a', sizeof(big));
	memcpy(big, "Window{ab u0 ", 13);
	big[400] = '.';
	big[sizeof(big) - 2] = '}';
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(foreground_window_focus_package(big, pkg, sizeof(pkg)),
			 0);
	assert_int_equal(
		foreground_window_focus_package(NULL, pkg, sizeof(pkg)), 0);
}

struct parse_case {
	const char *file;
	size_t n_current, n_app;
	const char *current0, *app0;
	uint64_t unnamed;
};

static void
test_parse_fixtures(void **state)
{
	static const struct parse_case cases[] = {
		{FIXTURES "window-a7.txt", 1, 1, LAUNCHER, LAUNCHER, 0},
		{FIXTURES "window-a9.txt", 1, 1, SHOP, SHOP, 0},
		{FIXTURES "window-a12.txt", 1, 1, LAUNCHER, LAUNCHER, 0},
		{FIXTURES "window-a14.txt", 1, 1, SHOP, SHOP, 2},
		{FIXTURES "window-shade.txt", 0, 1, NULL, LAUNCHER, 1},
		{FIXTURES "window-null.txt", 0, 0, NULL, NULL, 2},
		{FIXTURES "window-garbage.txt", 0, 0, NULL, NULL, 8},
	};
	struct foreground_window_focus f;
	size_t i, len, cut;
	char *buf;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf = fixture_slurp(cases[i].file, &len);
		foreground_window_parse(buf, len, &f);
		if (f.n_current != cases[i].n_current ||
		    f.n_app != cases[i].n_app || f.unnamed != cases[i].unnamed)
			fail_msg("%s: %zu current, %zu app, %llu unnamed",
				 cases[i].file, f.n_current, f.n_app,
				 (unsigned long long)f.unnamed);
		if (cases[i].current0)
			assert_string_equal(f.current[0], cases[i].current0);
		if (cases[i].app0)
			assert_string_equal(f.app[0], cases[i].app0);
		assert_true(f.focus_lines >= f.unnamed);
		assert_true(f.lines > 0);
		/* Every cut gives a valid answer or none, never a crash. */
		for (cut = 0; cut <= len; cut += 7)
			foreground_window_parse(buf, cut, &f);
		free(buf);
	}
	/* A line over the limit is cut and counted, its start still read. */
	buf = malloc(5000);
	assert_non_null(buf);
	memset(buf, ' ', 5000);
	memcpy(buf, "mCurrentFocus=Window{1 u0 com.foo/.A}", 37);
	foreground_window_parse(buf, 5000, &f);
	assert_int_equal(f.long_lines, 1);
	assert_int_equal(f.n_current, 1);
	assert_string_equal(f.current[0], "com.foo");
	free(buf);
	foreground_window_parse(NULL, 0, &f);
	assert_int_equal(f.lines, 0);
}

static void
test_bad_config(void **state)
{
	struct foreground_live_config cfg;
	struct foreground_live *fl = NULL;
	struct fx *fx = *state;
	char longroot[5000];

	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(foreground_live_new(NULL, fx->tl, &fl), -EINVAL);
	assert_int_equal(foreground_live_new(&cfg, NULL, &fl), -EINVAL);
	cfg.dumpsys_timeout_ms = -1;
	assert_int_equal(foreground_live_new(&cfg, fx->tl, &fl), -EINVAL);
	cfg.dumpsys_timeout_ms = 0;
	memset(longroot, 'a', sizeof(longroot) - 1);
	longroot[sizeof(longroot) - 1] = '\0';
	cfg.sysroot = longroot;
	assert_int_equal(foreground_live_new(&cfg, fx->tl, &fl), -EINVAL);
	assert_null(fl);
	foreground_live_free(NULL);
}

/* The switch in force at t: its pid, package and activity (NULL: none). */
static void
expect_switch(const struct fx *fx, int64_t t, int32_t pid, const char *pkg,
	      const char *act)
{
	struct foreground_switch sw;

	assert_int_equal(foreground_switch_at(fx->tl, t, &sw), 0);
	assert_int_equal(sw.pid, pid);
	assert_string_equal(sw.package, pkg);
	if (act) {
		assert_non_null(sw.activity);
		assert_string_equal(sw.activity, act);
	} else {
		assert_null(sw.activity);
	}
}

/*
 * One app in top-app: outside launch windows no dumpsys runs, however
 * many samples; in a tap's window its samples ask for the focus, so that
 * a change of activity of that app (a navigation) is appended at the
 * sample that saw it, with the activity in force at t_up named too.
 */
static void
test_launch_window_navigation(void **state)
{
	struct foreground_switch sw;
	struct fx *fx = *state;
	int all_window;
	int64_t t;

	add_proc(fx, 9811, SHOP, 10094, 90000, 0);
	set_top(fx, "9811\n");
	set_dumpsys(fx, FIXTURES "window-a14.txt", 0, 0);
	/* Idle: samples and touch-downs, no window, no dumpsys. */
	for (t = 1 * SEC; t <= 5 * SEC; t += SEC)
		assert_int_equal(foreground_live_sample(fx->fl, t), 0);
	assert_int_equal(foreground_live_touch_down(fx->fl, 5 * SEC + 1), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 0);
	assert_int_equal(stats(fx).dumpsys_calls, 0);
	assert_int_equal(entries(fx), 1);
	expect_switch(fx, 5 * SEC, 9811, SHOP, NULL);

	/* A tap ends at 6 s: its window opens with a sample at t_up. */
	assert_int_equal(
		foreground_live_launch_window(fx->fl, 6 * SEC, 16 * SEC), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 1);
	assert_true(all_window);
	assert_int_equal(stats(fx).focus_calls, 1);
	expect_switch(fx, 6 * SEC, 9811, SHOP, SHOP ".MainActivityV2");
	expect_switch(fx, 6 * SEC - 1, 9811, SHOP, NULL);
	assert_int_equal(foreground_complete(fx->tl), 6 * SEC);
	/* The same activity a second later: asked, nothing appended. */
	assert_int_equal(foreground_live_sample(fx->fl, 7 * SEC), 0);
	assert_int_equal(stats(fx).focus_calls, 2);
	assert_int_equal(entries(fx), 2);
	/* The shop goes to its cart: seen by the next sample. */
	set_dumpsys(fx, FIXTURES "window-a9.txt", 0, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 8 * SEC), 0);
	assert_int_equal(stats(fx).focus_calls, 3);
	assert_int_equal(entries(fx), 3);
	expect_switch(fx, 8 * SEC, 9811, SHOP, SHOP ".CartActivity");
	assert_int_equal(foreground_find_change(fx->tl, 6 * SEC, 16 * SEC, &sw),
			 1);
	assert_int_equal(sw.t_ns, 8 * SEC);
	assert_string_equal(sw.package, SHOP);
	assert_string_equal(sw.activity, SHOP ".CartActivity");
	assert_int_equal(foreground_complete(fx->tl), 8 * SEC);
	expect_health(fx, STATUS_HEALTH_UP, SHOP);
	assert_int_equal(stats(fx).switches, 3);

	/* The next touch-down closes the window: its sample asks nothing. */
	assert_int_equal(foreground_live_touch_down(fx->fl, 9 * SEC), 0);
	assert_int_equal(foreground_live_sample(fx->fl, 10 * SEC), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 3);
	/* So does the cap: a 1 s window, then idle samples again. */
	set_dumpsys(fx, FIXTURES "window-a14.txt", 0, 0);
	assert_int_equal(
		foreground_live_launch_window(fx->fl, 11 * SEC, 12 * SEC), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 4);
	expect_switch(fx, 11 * SEC, 9811, SHOP, SHOP ".MainActivityV2");
	for (t = 12 * SEC; t <= 15 * SEC; t += SEC)
		assert_int_equal(foreground_live_sample(fx->fl, t), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 4);
	assert_int_equal(stats(fx).dumpsys_calls, 4);
	assert_int_equal(stats(fx).focus_calls, 4);
	/* An empty window opens nothing. */
	assert_int_equal(
		foreground_live_launch_window(fx->fl, 20 * SEC, 20 * SEC), 0);
	assert_int_equal(stats(fx).dumpsys_calls, 4);
	assert_int_equal(stats(fx).samples, 16);
}

/*
 * In a window, a focus on another app's window (the shade over the
 * launcher) or a failing dumpsys adds nothing and leaves the health up:
 * the one app is certain.  A failure backs off as any other.
 */
static void
test_launch_window_no_focus(void **state)
{
	struct fx *fx = *state;
	int all_window;

	add_proc(fx, 9811, SHOP, 10094, 90000, 0);
	set_top(fx, "9811\n");
	assert_int_equal(foreground_live_sample(fx->fl, 1 * SEC), 0);
	set_dumpsys(fx, FIXTURES "window-shade.txt", 0, 0);
	assert_int_equal(
		foreground_live_launch_window(fx->fl, 2 * SEC, 12 * SEC), 0);
	assert_int_equal(stats(fx).focus_calls, 1);
	assert_int_equal(stats(fx).dumpsys_unnamed, 1);
	assert_int_equal(entries(fx), 1);
	expect_switch(fx, 2 * SEC, 9811, SHOP, NULL);
	expect_health(fx, STATUS_HEALTH_UP, SHOP);
	set_dumpsys(fx, FIXTURES "window-a14.txt", 1, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 3 * SEC), 0);
	assert_int_equal(stats(fx).dumpsys_failures, 1);
	assert_int_equal(entries(fx), 1);
	expect_health(fx, STATUS_HEALTH_UP, SHOP);
	/* Backing off: the sample 0.5 s later asks nothing. */
	assert_int_equal(foreground_live_sample(fx->fl, 3 * SEC + SEC / 2), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 2);
	set_dumpsys(fx, FIXTURES "window-a14.txt", 0, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 4 * SEC), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 3);
	expect_switch(fx, 4 * SEC, 9811, SHOP, SHOP ".MainActivityV2");
}

/*
 * With several apps, a window's samples do not keep the answer dumpsys
 * gave for the same set: a change of activity is asked for each second.
 */
static void
test_launch_window_several(void **state)
{
	struct fx *fx = *state;
	int all_window;

	multi_setup(fx, 0, 100);
	set_dumpsys(fx, FIXTURES "window-a14.txt", 0, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 1 * SEC), 0);
	assert_int_equal(foreground_live_sample(fx->fl, 2 * SEC), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 1);
	assert_int_equal(
		foreground_live_launch_window(fx->fl, 3 * SEC, 13 * SEC), 0);
	set_dumpsys(fx, FIXTURES "window-a9.txt", 0, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 4 * SEC), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 3);
	assert_int_equal(stats(fx).focus_calls, 0);
	expect_switch(fx, 3 * SEC, 9811, SHOP, SHOP ".MainActivityV2");
	expect_switch(fx, 4 * SEC, 9811, SHOP, SHOP ".CartActivity");
	/* Out of the window the answer is kept again. */
	assert_int_equal(foreground_live_touch_down(fx->fl, 5 * SEC), 0);
	assert_int_equal(dumpsys_calls(fx, &all_window), 3);
}

/*
 * The tracker with a loop: the loop runs a 1 ms timer that records the
 * longest stall (how late a tick came after the one before, less the
 * period); the sample is taken from a tick, as a touch-down would be.
 */
struct async_run {
	struct fx *fx;
	struct loop *loop;
	int64_t sample_at; /* the timestamp given to the sample */
	int ticks, sample_tick, stop_tick;
	int64_t last_ns, max_stall_ns;
	const char *until; /* stop once this is the foreground */
};

static int
async_tick(void *ctx)
{
	struct async_run *ar = ctx;
	int64_t now = loop_now_ns(), stall;
	const char *pkg = NULL;

	if (ar->last_ns) {
		stall = now - ar->last_ns - 1000000;
		if (stall > ar->max_stall_ns)
			ar->max_stall_ns = stall;
	}
	ar->ticks++;
	if (ar->ticks == ar->sample_tick || ar->ticks == ar->sample_tick + 20) {
		/* The second sample finds the answer still pending. */
		assert_int_equal(
			foreground_live_sample(ar->fx->fl, ar->sample_at), 0);
	}
	if (ar->ticks >= ar->sample_tick && ar->until &&
	    foreground_live_current(ar->fx->fl, NULL, &pkg) == 0 &&
	    strcmp(pkg, ar->until) == 0)
		loop_stop(ar->loop);
	if (ar->ticks >= ar->stop_tick)
		loop_stop(ar->loop);
	ar->last_ns = now;
	return 0;
}

static void
open_async(struct fx *fx, struct async_run *ar, int timeout_ms)
{
	struct foreground_live_config cfg;

	foreground_live_free(fx->fl);
	fx->fl = NULL;
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = fx->root;
	cfg.dumpsys_bin = fx->dumpsys;
	cfg.dumpsys_timeout_ms = timeout_ms;
	cfg.status = fx->status;
	cfg.loop = ar->loop;
	assert_int_equal(foreground_live_new(&cfg, fx->tl, &fx->fl), 0);
}

/*
 * A dumpsys that hangs does not hold the loop: the sample returns at
 * once, the foreground stays what it was until the timeout, and then the
 * fallback's choice is appended at the sample's time.
 */
static void
test_async_hang_no_stall(void **state)
{
	struct fx *fx = *state;
	struct async_run ar;
	int st;

	memset(&ar, 0, sizeof(ar));
	ar.fx = fx;
	assert_int_equal(loop_new(&ar.loop), 0);
	multi_setup(fx, 0, 100);
	set_dumpsys(fx, FIXTURES "window-a12.txt", 0, 30);
	open_async(fx, &ar, 200);
	ar.sample_at = 70 * SEC;
	ar.sample_tick = 5;
	ar.stop_tick = 600; /* 600 ms: the timeout, the kill and the reap */
	assert_int_equal(loop_add_timer(ar.loop, 1, async_tick, &ar), 0);
	assert_int_equal(loop_run(ar.loop), 0);
	/*
	 * The tracker's own calls must stay short.  The gaps between ticks
	 * also hold the scheduling of a loaded machine, so they are bounded
	 * far below the 200 ms a waiting sample would take.
	 */
	print_message("loop stall with a hanging dumpsys: longest tracker "
		      "call %.3f ms, longest late tick %.3f ms (%d ticks)\n",
		      (double)stats(fx).longest_call_ns / 1e6,
		      (double)ar.max_stall_ns / 1e6, ar.ticks);
	assert_true(stats(fx).longest_call_ns < 5000000);
	assert_true(ar.max_stall_ns < 100000000);
	expect_current(fx, 9811, SHOP);
	expect_at(fx, 70 * SEC, 9811, SHOP);
	assert_int_equal(entries(fx), 1);
	expect_health(fx, STATUS_HEALTH_DEGRADED, "timed out after 200 ms");
	assert_int_equal(stats(fx).dumpsys_calls, 1);
	assert_int_equal(stats(fx).dumpsys_failures, 1);
	/* Killed and reaped: no child of ours is left, not even a zombie. */
	errno = 0;
	assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	foreground_live_free(fx->fl);
	fx->fl = NULL;
	loop_free(ar.loop);
}

/*
 * While dumpsys is asked, a sample gets the previous known state; the
 * answer, when it comes, switches at the time of the sample that asked.
 */
static void
test_async_previous_state(void **state)
{
	struct fx *fx = *state;
	struct async_run ar;
	const char *pkg = NULL;

	memset(&ar, 0, sizeof(ar));
	ar.fx = fx;
	assert_int_equal(loop_new(&ar.loop), 0);
	open_async(fx, &ar, 2000);
	add_proc(fx, 9811, SHOP, 10094, 90000, 0);
	set_top(fx, "9811\n");
	assert_int_equal(foreground_live_sample(fx->fl, 80 * SEC), 0);
	expect_current(fx, 9811, SHOP);
	multi_setup(fx, 0, 100);
	set_dumpsys(fx, FIXTURES "window-a12.txt", 0, 0);
	assert_int_equal(foreground_live_sample(fx->fl, 81 * SEC), 0);
	/* Asked, not answered: the shop stays, nothing is appended. */
	expect_current(fx, 9811, SHOP);
	assert_int_equal(entries(fx), 1);
	ar.until = LAUNCHER;
	ar.sample_tick = 1000000; /* no sample from the ticks */
	ar.stop_tick = 5000;
	assert_int_equal(loop_add_timer(ar.loop, 1, async_tick, &ar), 0);
	assert_int_equal(loop_run(ar.loop), 0);
	assert_int_equal(foreground_live_current(fx->fl, NULL, &pkg), 0);
	assert_string_equal(pkg, LAUNCHER);
	expect_current(fx, 2391, LAUNCHER);
	expect_at(fx, 81 * SEC - 1, 9811, SHOP);
	expect_at(fx, 81 * SEC, 2391, LAUNCHER);
	expect_health(fx, STATUS_HEALTH_UP, "focus from dumpsys window");
	assert_int_equal(stats(fx).dumpsys_calls, 1);
	/* The answer stays good: the next sample needs no dumpsys. */
	assert_int_equal(foreground_live_sample(fx->fl, 82 * SEC), 0);
	assert_int_equal(stats(fx).dumpsys_calls, 1);
	foreground_live_free(fx->fl);
	fx->fl = NULL;
	loop_free(ar.loop);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single_app, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_app_switch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_change, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_multi_process_dumpsys,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_dumpsys_refresh, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dumpsys_exit_1, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dumpsys_garbage, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dumpsys_hang, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_async_hang_no_stall, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_async_previous_state,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_dumpsys_large, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pid_reuse, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_vanished, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_top_app, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_non_apps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_procs, setup,
						teardown),
		cmocka_unit_test(test_focus_spellings),
		cmocka_unit_test(test_parse_fixtures),
		cmocka_unit_test_setup_teardown(test_launch_window_navigation,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_launch_window_no_focus,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_launch_window_several,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_config, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
