/*
 * What the live sources say when tapd runs without root: the touch screen
 * it may not open, a /dev/input it may not read, a trace directory it may
 * not write, a top-app process whose /proc it may not read.  Each case
 * runs as a user the fixture's modes shut out: the test's own user when it
 * is not root, else (root passes every permission check) a child that
 * became OTHER_UID, which sends back the health.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "foreground.h"
#include "foreground_live.h"
#include "frames_live.h"
#include "input_evdev.h"
#include "log.h"
#include "status.h"

#define OTHER_UID 65534

struct fx {
	char root[256]; /* short enough for every path made from it */
};

/* A scenario: sets *out to one source's health; returns 0 or -1. */
typedef int (*scenario_fn)(const struct fx *fx,
			   struct status_source_state *out);

/* rel is absolute inside the tree: "/data/adb" is <root>/data/adb. */
static void
path_of(const struct fx *fx, const char *rel, char *buf, size_t size)
{
	fixture_join(buf, size, fx->root, "%s", rel + (rel[0] == '/'));
}

static int
setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	/* The other user must reach what it is then refused. */
	if (!fx || fixture_tmpdir(fx->root, sizeof(fx->root), "noroot") != 0 ||
	    chmod(fx->root, 0755) != 0) {
		free(fx);
		return -1;
	}
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

static void
make_dir(const struct fx *fx, const char *rel, mode_t mode)
{
	char path[PATH_MAX];

	path_of(fx, rel, path, sizeof(path));
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void
make_file(const struct fx *fx, const char *rel, mode_t mode)
{
	char path[PATH_MAX];

	path_of(fx, rel, path, sizeof(path));
	fixture_write(path, "", 0);
	assert_int_equal(chmod(path, mode), 0);
}

/*
 * Runs fn as a user the fixture shuts out and returns the health it saw.
 * The child of a root test drops to OTHER_UID; its result comes back
 * through a pipe, since cmocka's checks cannot run in it.
 */
static void
run_shut_out(const struct fx *fx, scenario_fn fn,
	     struct status_source_state *out)
{
	int pfd[2], status, rc;
	size_t got;
	ssize_t n;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (geteuid() != 0) {
		assert_int_equal(fn(fx, out), 0);
		return;
	}
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		if (setgroups(0, NULL) != 0 || setgid(OTHER_UID) != 0 ||
		    setuid(OTHER_UID) != 0)
			_exit(100);
		rc = fn(fx, out);
		if (write(pfd[1], out, sizeof(*out)) != (ssize_t)sizeof(*out))
			_exit(101);
		_exit(rc == 0 ? 0 : 102);
	}
	close(pfd[1]);
	for (got = 0; got < sizeof(*out); got += (size_t)n) {
		n = read(pfd[0], (char *)out + got, sizeof(*out) - got);
		if (n <= 0)
			break;
	}
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(got, sizeof(*out));
}

static int
input_scenario(const struct fx *fx, struct status_source_state *out)
{
	struct input_evdev_config cfg;
	struct input_evdev *ie = NULL;
	struct status_snapshot snap;
	struct status *st = NULL;

	if (status_new("live", &st) < 0)
		return -1;
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = fx->root;
	cfg.status = st;
	if (input_evdev_new(&cfg, &ie) < 0) {
		status_free(st);
		return -1;
	}
	status_get(st, &snap);
	*out = snap.sources[STATUS_SOURCE_INPUT];
	input_evdev_free(ie);
	status_free(st);
	return 0;
}

/* A node tapd may not open: the health names it and the directory. */
static void
test_input_node_denied(void **state)
{
	struct fx *fx = *state;
	struct status_source_state h;
	char want[PATH_MAX + 64];

	make_dir(fx, "/dev", 0755);
	make_dir(fx, "/dev/input", 0755);
	/* Mode 0: root-only on a phone, and closed to its owner here too. */
	make_file(fx, "/dev/input/event0", 0);
	make_file(fx, "/dev/input/event1", 0);
	run_shut_out(fx, input_scenario, &h);
	assert_int_equal(h.health, STATUS_HEALTH_DOWN);
	/* The first node is the one named. */
	snprintf(want, sizeof(want), "cannot open '%s/dev/input/event0': %s",
		 fx->root, strerror(EACCES));
	assert_non_null(strstr(h.detail, want));
	snprintf(want, sizeof(want),
		 "no touch screen found under '%s/dev/input'", fx->root);
	assert_non_null(strstr(h.detail, want));
}

/* A /dev/input that cannot be listed says so. */
static void
test_input_dir_denied(void **state)
{
	struct fx *fx = *state;
	struct status_source_state h;
	char want[PATH_MAX + 64];

	make_dir(fx, "/dev", 0755);
	make_dir(fx, "/dev/input", 0);
	run_shut_out(fx, input_scenario, &h);
	assert_int_equal(h.health, STATUS_HEALTH_DOWN);
	snprintf(want, sizeof(want), "cannot read '%s/dev/input': %s", fx->root,
		 strerror(EACCES));
	assert_non_null(strstr(h.detail, want));
}

/* Without a problem to tell, the detail is as it always was. */
static void
test_input_none(void **state)
{
	struct fx *fx = *state;
	struct status_source_state h;

	make_dir(fx, "/dev", 0755);
	make_dir(fx, "/dev/input", 0755);
	run_shut_out(fx, input_scenario, &h);
	assert_int_equal(h.health, STATUS_HEALTH_DOWN);
	assert_non_null(strstr(h.detail, "no touch screen found under '"));
	assert_null(strstr(h.detail, "cannot"));
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
no_frame(void *ctx, const struct correlate_frame *f)
{
	(void)ctx;
	(void)f;
	return 0;
}

/*
 * A FrameTimeline source with its traces in <root>/traces, run until its
 * health says perfetto could not be started (or 3 s).
 */
static int
frames_scenario(const struct fx *fx, const char *perfetto,
		struct status_source_state *out)
{
	struct frames_live_config cfg;
	struct frames_live *fl = NULL;
	struct status_snapshot snap;
	struct status *st = NULL;
	char traces[PATH_MAX];
	struct pollfd pfd;
	int64_t until;
	int rc = -1;

	if (status_new("live", &st) < 0)
		return -1;
	snprintf(traces, sizeof(traces), "%s/traces", fx->root);
	frames_live_config_default(&cfg);
	cfg.mode = FRAMES_LIVE_FTL;
	cfg.perfetto_bin = perfetto;
	cfg.trace_dir = traces;
	cfg.restart_min_ms = 10;
	cfg.restart_max_ms = 20;
	cfg.status = st;
	if (frames_live_new(&cfg, &fl) < 0)
		goto out;
	pfd.fd = frames_live_fd(fl);
	pfd.events = POLLIN;
	for (until = mono_ms() + 3000; mono_ms() < until;) {
		(void)poll(&pfd, 1, 50);
		(void)frames_live_dispatch(fl, no_frame, NULL);
		status_get(st, &snap);
		*out = snap.sources[STATUS_SOURCE_FRAMES];
		if (strstr(out->detail, "cannot start perfetto")) {
			rc = 0;
			break;
		}
	}
out:
	frames_live_free(fl);
	status_free(st);
	return rc;
}

static int
frames_dir_scenario(const struct fx *fx, struct status_source_state *out)
{
	/* A program every system has: it is never reached. */
	return frames_scenario(fx, "/bin/sh", out);
}

static int
frames_missing_scenario(const struct fx *fx, struct status_source_state *out)
{
	char missing[PATH_MAX];

	snprintf(missing, sizeof(missing), "%s/no-such-program", fx->root);
	return frames_scenario(fx, missing, out);
}

/* A trace directory tapd cannot write: perfetto is not started for it. */
static void
test_frames_dir_denied(void **state)
{
	struct fx *fx = *state;
	struct status_source_state h;
	char want[PATH_MAX + 64];

	make_dir(fx, "/traces", 0555);
	run_shut_out(fx, frames_dir_scenario, &h);
	assert_int_not_equal(h.health, STATUS_HEALTH_UP);
	assert_string_equal(h.kind, "ftl");
	snprintf(want, sizeof(want),
		 "cannot start perfetto: cannot write to trace directory "
		 "'%s/traces': %s",
		 fx->root, strerror(EACCES));
	assert_non_null(strstr(h.detail, want));
}

/* A perfetto that cannot be run is named perfetto, whatever its path. */
static void
test_frames_missing(void **state)
{
	struct fx *fx = *state;
	struct status_source_state h;

	make_dir(fx, "/traces", 0777);
	run_shut_out(fx, frames_missing_scenario, &h);
	assert_non_null(
		strstr(h.detail, "cannot start perfetto: cannot run '"));
	assert_non_null(strstr(h.detail, "no-such-program"));
}

static void
write_file(const struct fx *fx, const char *rel, const char *text)
{
	char path[PATH_MAX];

	path_of(fx, rel, path, sizeof(path));
	fixture_write_str(path, text);
}

static int
foreground_scenario(const struct fx *fx, struct status_source_state *out)
{
	struct foreground_live_config cfg;
	struct foreground_live *fgl = NULL;
	struct foreground *tl = NULL;
	struct status_snapshot snap;
	struct status *st = NULL;
	int rc = -1;

	if (status_new("live", &st) < 0 || foreground_new(&tl) < 0)
		goto out;
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = fx->root;
	cfg.dumpsys_bin = "/nonexistent/dumpsys";
	cfg.status = st;
	if (foreground_live_new(&cfg, tl, &fgl) < 0)
		goto out;
	(void)foreground_live_sample(fgl, 1000000000);
	status_get(st, &snap);
	*out = snap.sources[STATUS_SOURCE_FOREGROUND];
	rc = 0;
out:
	foreground_live_free(fgl);
	foreground_free(tl);
	status_free(st);
	return rc;
}

/* An app in top-app whose /proc tapd may not read is not "no app". */
static void
test_foreground_denied(void **state)
{
	struct fx *fx = *state;
	struct status_source_state h;
	char path[PATH_MAX];

	make_dir(fx, "/dev", 0755);
	make_dir(fx, "/dev/cpuset", 0755);
	make_dir(fx, "/dev/cpuset/top-app", 0755);
	write_file(fx, "/dev/cpuset/top-app/cgroup.procs", "2001\n");
	make_dir(fx, "/proc", 0755);
	make_dir(fx, "/proc/2001", 0755);
	write_file(fx, "/proc/2001/cmdline", "com.example.shop");
	write_file(fx, "/proc/2001/stat",
		   "2001 (shop) S 1 1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1000 "
		   "0 0\n");
	write_file(fx, "/proc/2001/status", "Name:\tshop\nUid:\t10123\n");
	/* hidepid, as an app sees another's: the directory is closed. */
	path_of(fx, "/proc/2001", path, sizeof(path));
	assert_int_equal(chmod(path, 0), 0);
	run_shut_out(fx, foreground_scenario, &h);
	assert_int_equal(h.health, STATUS_HEALTH_DEGRADED);
	assert_string_equal(h.kind, "top-app");
	assert_non_null(strstr(h.detail, "cannot read '/proc/2001': "));
	assert_non_null(strstr(h.detail, strerror(EACCES)));
	assert_non_null(strstr(h.detail, "no app found"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_input_node_denied, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_input_dir_denied, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_input_none, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_frames_dir_denied, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_frames_missing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_foreground_denied, setup,
						teardown),
	};

	/* The sources log each refusal; the test reads their health. */
	log_init("test_live_noroot", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests_name("noroot", tests, NULL, NULL);
}
