/*
 * Tests of the recorded lists of a session: windows.log (blocks of
 * `dumpsys input` output, each parsed as a list on its own would be; the
 * block in force at a time; text that is no block; time going back;
 * files larger than a read) and processes.log (lookups by pid, uid and
 * time; malformed lines).
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
#include "processes_log.h"
#include "windows_log.h"
#include "winlist.h"

#define FIX_DIR	 "tests/fixtures/dumpsys-input/"
#define REAL_DIR "../shared/fixtures/real/dumpsys-input/"

struct text {
	char *p;
	size_t len, cap;
};

static void
add(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->p = realloc(t->p, t->cap);
		assert_non_null(t->p);
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = '\0';
}

static void
add_str(struct text *t, const char *s)
{
	add(t, s, strlen(s));
}

static void
add_file(struct text *t, const char *path)
{
	size_t len;
	char *s = fixture_slurp(path, &len);

	add(t, s, len);
	free(s);
}

static struct windows_log *
load_text(const struct text *t)
{
	struct windows_log *l;
	FILE *fp;

	fp = fmemopen(t->p, t->len, "r");
	assert_non_null(fp);
	assert_int_equal(windows_log_load_stream(fp, "test", &l), 0);
	fclose(fp);
	return l;
}

/* A block's list must be what parsing its file alone gives. */
static void
expect_same(const struct winlist *got, const char *path)
{
	const struct winlist_display *dg, *dw;
	struct winlist *want;
	size_t len, i, j;
	char *s;

	s = fixture_slurp(path, &len);
	assert_int_equal(winlist_parse(s, len, &want), 0);
	free(s);
	assert_int_equal(winlist_n_displays(got), winlist_n_displays(want));
	assert_int_equal(winlist_n_viewports(got), winlist_n_viewports(want));
	for (i = 0; i < winlist_n_displays(want); i++) {
		dg = winlist_display(got, i);
		dw = winlist_display(want, i);
		assert_int_equal(dg->id, dw->id);
		assert_int_equal(dg->n_windows, dw->n_windows);
		for (j = 0; j < dw->n_windows; j++) {
			assert_string_equal(winlist_window(got, dg, j)->name,
					    winlist_window(want, dw, j)->name);
			assert_int_equal(winlist_window(got, dg, j)->config,
					 winlist_window(want, dw, j)->config);
		}
	}
	winlist_free(want);
}

static const char *const files[] = {
	FIX_DIR "android9-ime.txt",
	FIX_DIR "android12-shade.txt",
	FIX_DIR "android15-dialog.txt",
	FIX_DIR "android11-split.txt",
};
static const int64_t times[] = {1000, 2000, 2000, 5000000000LL};

static void
test_blocks(void **state)
{
	struct windows_log_stats st;
	struct windows_log_jump j;
	const struct winlist *wl;
	struct windows_log *l;
	struct text t = {0};
	char mark[64];
	int64_t tb;
	size_t i;

	(void)state;
	add_str(&t, "stray text before any block\n");
	for (i = 0; i < 4; i++) {
		snprintf(mark, sizeof(mark), "@ %lld\n", (long long)times[i]);
		add_str(&t, mark);
		add_file(&t, files[i]);
		/* Lines with '@' that are no mark belong to the block. */
		if (i == 1)
			add_str(&t, "@x\n@ 12a\n@\n");
	}
	l = load_text(&t);
	assert_int_equal(windows_log_count(l), 4);
	for (i = 0; i < 4; i++) {
		wl = windows_log_block(l, i, &tb);
		assert_true(tb == times[i]);
		expect_same(wl, files[i]);
	}
	assert_null(windows_log_block(l, 4, &tb));
	windows_log_get_stats(l, &st);
	assert_true(st.blocks == 4);
	assert_true(st.bad_marks == 3);
	assert_true(st.stray_bytes == strlen("stray text before any block\n"));
	assert_true(st.bytes == t.len);
	assert_true(st.windows == 5 + 4 + 7 + 4);
	assert_int_equal(windows_log_get_jump(l, &j), -ENOENT);

	/* The block in force: the last at or before the time. */
	assert_int_equal(windows_log_at(l, 999, &wl, &tb), -ENOENT);
	assert_null(wl);
	assert_int_equal(windows_log_at(l, 1000, &wl, &tb), 0);
	assert_true(tb == 1000 && wl == windows_log_block(l, 0, NULL));
	assert_int_equal(windows_log_at(l, 1999, &wl, &tb), 0);
	assert_true(wl == windows_log_block(l, 0, NULL));
	/* Equal times: the later block wins. */
	assert_int_equal(windows_log_at(l, 2000, &wl, &tb), 0);
	assert_true(wl == windows_log_block(l, 2, NULL));
	assert_int_equal(windows_log_at(l, INT64_MAX, &wl, NULL), 0);
	assert_true(wl == windows_log_block(l, 3, NULL));
	windows_log_free(l);
	windows_log_free(NULL);
	free(t.p);
}

static void
test_goes_back(void **state)
{
	struct windows_log_jump j;
	const struct winlist *wl;
	struct windows_log *l;
	struct text t = {0};

	(void)state;
	add_str(&t, "@ 5000\n");
	add_file(&t, files[0]);
	add_str(&t, "@ 6000\n");
	add_file(&t, files[1]);
	add_str(&t, "@ 4000\n");
	add_file(&t, files[2]);
	add_str(&t, "@ 9000\n");
	add_file(&t, files[3]);
	l = load_text(&t);
	assert_int_equal(windows_log_count(l), 2);
	assert_int_equal(windows_log_get_jump(l, &j), 0);
	assert_true(j.block == 3 && j.from_ns == 6000 && j.to_ns == 4000);
	assert_int_equal(windows_log_at(l, 9999, &wl, NULL), 0);
	assert_true(wl == windows_log_block(l, 1, NULL));
	windows_log_free(l);
	free(t.p);
}

/* Files larger than one read, marks and lines cut across reads. */
static void
test_large(void **state)
{
	struct windows_log *l;
	struct text t = {0};
	char mark[64], path[512];
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < 12; i++) {
		snprintf(mark, sizeof(mark), "@ %zu\r\n", 1000 + i);
		add_str(&t, mark);
		snprintf(path, sizeof(path), "%s", files[i % 4]);
		if (i % 3 == 2 &&
		    access(REAL_DIR "android14_honor_magicos.txt", R_OK) == 0)
			snprintf(path, sizeof(path), "%s",
				 REAL_DIR "android14_honor_magicos.txt");
		add_file(&t, path);
		n++;
	}
	/* A last block without a final newline, after a mark at the end. */
	add_str(&t, "@ 99999");
	assert_true(t.len > 65536);
	l = load_text(&t);
	assert_int_equal(windows_log_count(l), n + 1);
	for (i = 0; i < n; i++) {
		int64_t tb;

		(void)windows_log_block(l, i, &tb);
		assert_true(tb == (int64_t)(1000 + i));
	}
	windows_log_free(l);
	free(t.p);

	/* A file that is not there. */
	assert_int_equal(windows_log_load("/nonexistent/windows.log", &l),
			 -ENOENT);
	assert_null(l);
}

/* Blocks past the limit are dropped, and so is every one after. */
static void
test_block_limit(void **state)
{
	struct windows_log_stats st;
	const struct winlist *wl;
	struct windows_log *l;
	struct text t = {0};
	char block[256];
	int64_t tb;
	size_t i;

	(void)state;
	for (i = 0; i < WINDOWS_LOG_BLOCKS_MAX + 3; i++) {
		snprintf(block, sizeof(block),
			 "@ %zu\nInput Dispatcher State:\n  Display: 0\n"
			 "    Windows:\n      0: name=w%zu, id=1, displayId=0, "
			 "inputConfig=0x0, frame=[0,0][1,1], "
			 "touchableRegion=[0,0][1,1], ownerPid=1, ownerUid=2\n",
			 i * 10, i);
		add_str(&t, block);
	}
	l = load_text(&t);
	windows_log_get_stats(l, &st);
	assert_int_equal(windows_log_count(l), WINDOWS_LOG_BLOCKS_MAX);
	assert_true(st.dropped == 3);
	assert_true(st.windows == WINDOWS_LOG_BLOCKS_MAX);
	assert_int_equal(windows_log_at(l, INT64_MAX, &wl, &tb), 0);
	assert_true(tb == (int64_t)(WINDOWS_LOG_BLOCKS_MAX - 1) * 10);
	snprintf(block, sizeof(block), "w%d", WINDOWS_LOG_BLOCKS_MAX - 1);
	assert_string_equal(
		winlist_window(wl, winlist_find_display(wl, 0), 0)->name,
		block);
	windows_log_free(l);
	free(t.p);
}

static struct processes_log *
load_procs(const char *text, size_t len)
{
	struct processes_log *l;
	FILE *fp;

	fp = fmemopen((void *)(uintptr_t)text, len, "r");
	assert_non_null(fp);
	assert_int_equal(processes_log_load_stream(fp, "test", &l), 0);
	fclose(fp);
	return l;
}

static void
expect_pkg(const struct processes_log *l, int64_t t, int32_t pid, int64_t uid,
	   const char *want)
{
	const char *pkg;

	if (!want) {
		assert_int_equal(processes_log_find(l, t, pid, uid, &pkg),
				 -ENOENT);
		assert_null(pkg);
		return;
	}
	assert_int_equal(processes_log_find(l, t, pid, uid, &pkg), 0);
	assert_string_equal(pkg, want);
}

static void
test_processes(void **state)
{
	static const char text[] = "# owners\n"
				   "1000 4711 10123 com.example.notes\n"
				   "\n"
				   "1500 2673 1000 android\n"
				   "3000 4711 10200 com.example.other\n"
				   "4000 4711 10123 com.example.notes:remote\n"
				   "bad line\n"
				   "5000 4711\n"
				   "5000 4711 10123 com.x extra\n"
				   "-1 4711 10123 com.x\n"
				   "5000 0 10123 com.x\n"
				   "5000 4711 10123 com/x\n"
				   "5000 4711 4294967296 com.x\n"
				   "5000 7 10\0007 com.x\n"
				   "6000 3960 10070 com.android.systemui\r\n"
				   "7000 42 10042 com.last";
	struct processes_log_stats st;
	struct processes_log *l;
	struct text t = {0};
	size_t i;

	(void)state;
	l = load_procs(text, sizeof(text) - 1);
	processes_log_get_stats(l, &st);
	assert_true(st.entries == 6);
	assert_true(st.malformed == 8);
	assert_true(st.lines == 16);
	/* Before the first line of a pid: the earliest after. */
	expect_pkg(l, 10, 4711, 10123, "com.example.notes");
	expect_pkg(l, 1000, 4711, 10123, "com.example.notes");
	expect_pkg(l, 3999, 4711, 10123, "com.example.notes");
	expect_pkg(l, 4000, 4711, 10123, "com.example.notes:remote");
	/* A reused pid: its uid tells them apart; -1 takes any. */
	expect_pkg(l, 3500, 4711, 10200, "com.example.other");
	expect_pkg(l, 3500, 4711, -1, "com.example.other");
	expect_pkg(l, 100, 4711, 10999, NULL);
	expect_pkg(l, 100, 2673, 1000, "android");
	expect_pkg(l, 100, 3960, 10070, "com.android.systemui");
	expect_pkg(l, 100, 42, 10042, "com.last");
	expect_pkg(l, 100, 43, -1, NULL);
	processes_log_free(l);
	processes_log_free(NULL);

	/* A line over the limit is malformed, the next one is not. */
	for (i = 0; i < PROCESSES_LOG_LINE_MAX + 10; i++)
		add_str(&t, "x");
	add_str(&t, "\n1 2 3 com.ok\n");
	l = load_procs(t.p, t.len);
	processes_log_get_stats(l, &st);
	assert_true(st.entries == 1 && st.malformed == 1 && st.lines == 2);
	expect_pkg(l, 1, 2, 3, "com.ok");
	processes_log_free(l);
	free(t.p);
	assert_int_equal(processes_log_load("/nonexistent/processes.log", &l),
			 -ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_goes_back),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_block_limit),
		cmocka_unit_test(test_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
