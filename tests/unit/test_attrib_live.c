/*
 * The live attribution (attrib_live.h): a fake dumpsys prints a real
 * window list, the loop takes it in without blocking, the owner comes
 * from a sysroot's /proc, and what was used is recorded so that a replay
 * of the recorded logs decides exactly as the live run did.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "attrib.h"
#include "attrib_live.h"
#include "fixture.h"
#include "foreground.h"
#include "loop.h"

#define FIX "tests/fixtures/dumpsys-input/android14-ime-vendor.txt"

static char dir[256];

static int
setup(void **state)
{
	(void)state;
	return fixture_tmpdir(dir, sizeof(dir), "attrib-live");
}

static int
teardown(void **state)
{
	(void)state;
	fixture_rmtree(dir);
	return 0;
}

/* Makes <root>/proc/<pid> with cmdline, status (its uid) and stat. */
static void
make_proc(const char *root, int32_t pid, const char *cmdline, int64_t uid)
{
	char pdir[512], path[600], text[256];
	size_t n = strlen(cmdline);

	fixture_join(pdir, sizeof(pdir), root, "proc/%d", (int)pid);
	fixture_mkdirs(pdir, 0755);
	fixture_join(path, sizeof(path), pdir, "cmdline");
	memset(text, 0, sizeof(text));
	memcpy(text, cmdline, n);
	fixture_write(path, text, n + 1);
	fixture_join(path, sizeof(path), pdir, "status");
	snprintf(text, sizeof(text), "Name:\tx\nUid:\t%lld\t%lld\t%lld\t%lld\n",
		 (long long)uid, (long long)uid, (long long)uid,
		 (long long)uid);
	fixture_write_str(path, text);
	fixture_join(path, sizeof(path), pdir, "stat");
	snprintf(text, sizeof(text),
		 "%d (x) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %d "
		 "100 200\n",
		 (int)pid, (int)pid * 7);
	fixture_write_str(path, text);
}

/*
 * What the waiting timer looks at.  The loop has no way to remove a
 * periodic timer, so the timer is added once per loop and its context
 * lives as long as the loop: the test that owns the loop owns it too.
 */
struct waiter {
	struct attrib *a;
	struct loop *loop;
	uint64_t want; /* lists + failures to wait for */
	int ticks;
	int added;
};

static int
on_tick(void *ctx)
{
	struct waiter *w = ctx;
	struct attrib_stats st;

	if (!w->a)
		return 0;
	attrib_get_stats(w->a, &st);
	/* 10 s at most: a slow machine, never a tight bound. */
	if (st.lists + st.read_failures >= w->want || ++w->ticks > 1000) {
		w->a = NULL;
		loop_stop(w->loop);
	}
	return 0;
}

static void
wait_reads(struct waiter *w, struct loop *loop, struct attrib *a, uint64_t want)
{
	w->a = a;
	w->loop = loop;
	w->want = want;
	w->ticks = 0;
	if (!w->added) {
		assert_int_equal(loop_add_timer(loop, 10, on_tick, w), 0);
		w->added = 1;
	}
	assert_int_equal(loop_run(loop), 0);
}

static void
test_live(void **state)
{
	const struct hittest_axes axes = {0, 1079, 0, 2339};
	struct attrib_live_config cfg;
	char bin[512], root[512], db[512], wlog[600], plog[600], spec[700];
	struct winlist_viewport vp;
	struct attrib_result res, rep;
	struct attrib *a, *r;
	struct attrib_stats st;
	struct foreground *fg;
	struct waiter w = {0};
	struct loop *loop;
	int64_t t0, t1, t2;
	size_t len;
	char *text;
	FILE *f;

	(void)state;
	fixture_join(bin, sizeof(bin), dir, "dumpsys");
	f = fopen(bin, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n[ \"$1\" = input ] || exit 3\ncat '%s/%s'\n",
		getcwd(spec, sizeof(spec)), FIX);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(bin, 0755), 0);
	fixture_join(root, sizeof(root), dir, "root");
	make_proc(root, 3300, "com.example.ime", 10095);
	make_proc(root, 4400, "com.example.chat", 10200);
	fixture_join(db, sizeof(db), dir, "tapd.db");
	fixture_join(wlog, sizeof(wlog), dir, "windows.log");
	fixture_join(plog, sizeof(plog), dir, "processes.log");

	assert_int_equal(loop_new(&loop), 0);
	assert_int_equal(foreground_new(&fg), 0);
	assert_int_equal(foreground_add(fg, 0, 4400, "com.example.chat"), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.loop = loop;
	cfg.dumpsys_bin = bin;
	cfg.sysroot = root;
	cfg.db = db;
	cfg.fg = fg;
	cfg.timeout_ms = 5000;
	/* Without the panel's ranges there is nothing to hit-test. */
	assert_int_equal(attrib_live_new(&cfg, NULL, &a), 0);
	assert_null(a);
	assert_int_equal(attrib_live_new(&cfg, &axes, &a), 0);
	assert_non_null(a);
	assert_true(attrib_has_lists(a));
	/* No list yet: no viewport for the injector either. */
	assert_int_equal(attrib_viewport(a, ATTRIB_DISPLAY, &vp), -ENOENT);

	/* The first touch-down starts a read and does not wait for it. */
	t0 = loop_now_ns();
	attrib_down(a, t0, 540, 2000);
	assert_int_equal(attrib_decide(a, t0, 4400, "com.example.chat", &res),
			 0);
	assert_int_equal(res.how, ATTRIB_FOREGROUND);
	wait_reads(&w, loop, a, 1);
	/* The list's display 0, as the fixture prints it. */
	assert_int_equal(attrib_viewport(a, ATTRIB_DISPLAY, &vp), 0);
	assert_int_equal(vp.orientation, WINLIST_ROT_0);
	assert_int_equal(vp.logical.right, 1080);
	assert_int_equal(vp.logical.bottom, 2340);
	assert_int_equal(vp.device_height, 2340);
	assert_int_equal(attrib_viewport(a, 7, &vp), -ENOENT);
	attrib_get_stats(a, &st);
	assert_int_equal(st.reads, 1);
	assert_int_equal(st.lists, 1);

	/* A tap ending now: the keyboard's, its owner from /proc. */
	t1 = loop_now_ns();
	attrib_down(a, t1, 540, 2000);
	assert_int_equal(attrib_decide(a, t1, 4400, "com.example.chat", &res),
			 0);
	assert_int_equal(res.how, ATTRIB_WINDOW);
	assert_string_equal(res.window, "c3d4e5f InputMethod");
	assert_int_equal(res.pid, 3300);
	assert_string_equal(res.app, "com.example.ime");
	/* The list is fresh: no second read. */
	attrib_get_stats(a, &st);
	assert_int_equal(st.reads, 1);
	assert_int_equal(st.processes_lines, 1);

	/* The foreground changes: the list no longer holds. */
	t2 = loop_now_ns();
	assert_int_equal(foreground_add(fg, t2, 8100, "com.example.news"), 0);
	attrib_down(a, t2, 540, 2000);
	assert_int_equal(attrib_decide(a, t2, 8100, "com.example.news", &res),
			 0);
	assert_int_equal(res.how, ATTRIB_FOREGROUND);
	assert_string_equal(res.app, "com.example.news");
	attrib_get_stats(a, &st);
	assert_int_equal(st.invalidations, 1);
	assert_int_equal(st.reads, 2);
	wait_reads(&w, loop, a, 2);
	attrib_free(a);

	/* What was recorded: two lists around an empty block, one owner. */
	text = fixture_slurp(wlog, &len);
	assert_int_equal(strncmp(text, "@ ", 2), 0);
	assert_non_null(strstr(text, "c3d4e5f InputMethod"));
	free(text);
	text = fixture_slurp(plog, &len);
	snprintf(spec, sizeof(spec), "%lld 3300 10095 com.example.ime\n",
		 (long long)t1);
	assert_string_equal(text, spec);
	free(text);

	/* A replay of the logs decides each of the three as live did. */
	assert_int_equal(attrib_new(&axes, &r), 0);
	snprintf(spec, sizeof(spec), "log:%s", wlog);
	assert_int_equal(attrib_open_windows(r, spec), 0);
	snprintf(spec, sizeof(spec), "log:%s", plog);
	assert_int_equal(attrib_open_processes(r, spec), 0);
	attrib_down(r, t0, 540, 2000);
	assert_int_equal(attrib_decide(r, t0, 4400, "com.example.chat", &rep),
			 0);
	assert_int_equal(rep.how, ATTRIB_FOREGROUND);
	attrib_down(r, t1, 540, 2000);
	assert_int_equal(attrib_decide(r, t1, 4400, "com.example.chat", &rep),
			 0);
	assert_int_equal(rep.how, ATTRIB_WINDOW);
	assert_string_equal(rep.window, "c3d4e5f InputMethod");
	assert_int_equal(rep.pid, 3300);
	assert_string_equal(rep.app, "com.example.ime");
	attrib_down(r, t2, 540, 2000);
	assert_int_equal(attrib_decide(r, t2, 8100, "com.example.news", &rep),
			 0);
	assert_int_equal(rep.how, ATTRIB_FOREGROUND);
	attrib_free(r);
	foreground_free(fg);
	loop_free(loop);
}

/* A dumpsys that fails: an empty block, and the foreground. */
static void
test_live_failure(void **state)
{
	const struct hittest_axes axes = {0, 1079, 0, 2339};
	struct attrib_live_config cfg;
	char bin[512], db[512], wlog[600];
	struct attrib_result res;
	struct attrib_stats st;
	struct attrib *a;
	struct waiter w = {0};
	struct loop *loop;
	int64_t t;
	size_t len;
	char *text;

	(void)state;
	fixture_join(bin, sizeof(bin), dir, "dumpsys-fails");
	fixture_write_str(bin, "#!/bin/sh\necho 'no service' >&2\nexit 1\n");
	assert_int_equal(chmod(bin, 0755), 0);
	fixture_join(db, sizeof(db), dir, "fail/tapd.db");
	fixture_mkdirs(dir, 0755);
	fixture_join(wlog, sizeof(wlog), dir, "fail");
	fixture_mkdirs(wlog, 0755);
	fixture_join(wlog, sizeof(wlog), dir, "fail/windows.log");
	assert_int_equal(loop_new(&loop), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.loop = loop;
	cfg.dumpsys_bin = bin;
	cfg.db = db;
	assert_int_equal(attrib_live_new(&cfg, &axes, &a), 0);
	assert_non_null(a);
	attrib_down(a, loop_now_ns(), 540, 2000);
	wait_reads(&w, loop, a, 1);
	attrib_get_stats(a, &st);
	assert_int_equal(st.read_failures, 1);
	t = loop_now_ns();
	/* No second read right after a failure. */
	attrib_down(a, t, 540, 2000);
	assert_int_equal(attrib_decide(a, t, 7, "com.example.seven", &res), 0);
	assert_int_equal(res.how, ATTRIB_FOREGROUND);
	attrib_get_stats(a, &st);
	assert_int_equal(st.reads, 1);
	attrib_free(a);
	text = fixture_slurp(wlog, &len);
	/* One mark alone: "@ <ns>\n". */
	assert_int_equal(strncmp(text, "@ ", 2), 0);
	assert_int_equal(strchr(text, '\n') - text + 1, (long)len);
	free(text);
	loop_free(loop);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_live_failure),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
