/*
 * Tests of the foreground timeline: loading logs (in order, going back,
 * malformed), lookups at and around switches, the static app, the live
 * appends and pruning.  Expected answers come from a linear scan of the
 * switches the test itself wrote.
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

#include "foreground.h"

struct sw {
	int64_t t;
	int32_t pid;
	const char *pkg;
};

/* Loads text through a memory stream. */
static struct foreground *
load_text(const char *text)
{
	struct foreground *fg = NULL;
	FILE *fp;

	fp = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
	assert_non_null(fp);
	assert_int_equal(foreground_load_stream(fp, "test", &fg), 0);
	assert_non_null(fg);
	fclose(fp);
	return fg;
}

/*
 * The switch in force at t by a linear scan: the last one, in the order
 * given, among those with the greatest time <= t.
 */
static const struct sw *
expect_at(const struct sw *sws, size_t n, int64_t t)
{
	const struct sw *best = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (sws[i].t <= t && (!best || sws[i].t >= best->t))
			best = &sws[i];
	return best;
}

static void
check_at(const struct foreground *fg, const struct sw *sws, size_t n, int64_t t)
{
	const struct sw *want = expect_at(sws, n, t);
	const char *pkg = NULL;
	int32_t pid = -1;
	int r;

	r = foreground_at(fg, t, &pid, &pkg);
	if (!want) {
		assert_int_equal(r, -ENOENT);
		return;
	}
	assert_int_equal(r, 0);
	assert_int_equal(pid, want->pid);
	assert_string_equal(pkg, want->pkg);
}

static const struct sw switches[] = {
	{1000000000, 1234, "com.android.launcher3"},
	{2500000000, 4321, "com.example.app"},
	{2500000001, 4400, "com.example.app:remote"},
	{9000000000, 1234, "com.android.launcher3"},
	{9000000000, 5555, "org.other_app-2"},
	{12000000000, 0, "com.unknown.pid"},
};
#define NSWITCHES (sizeof(switches) / sizeof(switches[0]))

static void
test_log_file(void **state)
{
	struct foreground_stats st;
	struct foreground *fg = NULL;
	char path[64];
	FILE *fp;
	size_t i;
	int fd;

	(void)state;
	/* Tests run from the repository root, where build/ is scratch. */
	snprintf(path, sizeof(path), "%s/test_foreground.XXXXXX",
		 access("build", W_OK) == 0 ? "build" : ".");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fprintf(fp, "# recorded by hand\n\n");
	for (i = 0; i < NSWITCHES; i++)
		fprintf(fp, i % 2 ? "%lld\t%d  %s\r\n" : "  %lld %d %s\n",
			(long long)switches[i].t, (int)switches[i].pid,
			switches[i].pkg);
	fprintf(fp, "   # trailing comment");
	fclose(fp);

	assert_int_equal(foreground_load_log(path, &fg), 0);
	unlink(path);
	foreground_get_stats(fg, &st);
	assert_int_equal(st.lines, NSWITCHES + 3);
	assert_int_equal(st.entries, NSWITCHES);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(st.reordered, 0);

	/* Before the first switch, at each, one ns around each, far after. */
	check_at(fg, switches, NSWITCHES, INT64_MIN);
	check_at(fg, switches, NSWITCHES, 0);
	for (i = 0; i < NSWITCHES; i++) {
		check_at(fg, switches, NSWITCHES, switches[i].t - 1);
		check_at(fg, switches, NSWITCHES, switches[i].t);
		check_at(fg, switches, NSWITCHES, switches[i].t + 1);
	}
	check_at(fg, switches, NSWITCHES, INT64_MAX);
	/* Spelled out once: equal times, the later line wins. */
	{
		const char *pkg;
		int32_t pid;

		assert_int_equal(foreground_at(fg, 9000000000, &pid, &pkg), 0);
		assert_int_equal(pid, 5555);
		assert_string_equal(pkg, "org.other_app-2");
		assert_int_equal(foreground_at(fg, 999999999, &pid, &pkg),
				 -ENOENT);
		assert_int_equal(foreground_at(fg, 1000000000, NULL, &pkg), 0);
		assert_string_equal(pkg, "com.android.launcher3");
	}
	foreground_free(fg);
}

static void
test_missing_file(void **state)
{
	struct foreground *fg = NULL;

	(void)state;
	assert_int_equal(
		foreground_load_log("tests/unit/no-such-foreground.log", &fg),
		-ENOENT);
	assert_null(fg);
}

static void
test_static_app(void **state)
{
	struct foreground *fg = NULL;
	const char *pkg = NULL;
	int32_t pid = -1;
	int64_t ts[] = {INT64_MIN, -1, 0, 123456789, INT64_MAX};
	size_t i;

	(void)state;
	assert_int_equal(foreground_new_static("com.foo.bar", &fg), 0);
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		pid = -1;
		pkg = NULL;
		assert_int_equal(foreground_at(fg, ts[i], &pid, &pkg), 0);
		assert_int_equal(pid, 0);
		assert_string_equal(pkg, "com.foo.bar");
	}
	foreground_free(fg);

	fg = NULL;
	assert_int_equal(foreground_new_static("com/foo", &fg), -EINVAL);
	assert_int_equal(foreground_new_static("", &fg), -EINVAL);
	assert_int_equal(foreground_new_static(NULL, &fg), -EINVAL);
	assert_null(fg);
	foreground_free(NULL);
}

static void
test_open_spec(void **state)
{
	struct foreground *fg = NULL;
	const char *pkg = NULL;
	int32_t pid = -1;

	(void)state;
	assert_int_equal(foreground_open("app:com.foo", &fg), 0);
	assert_int_equal(foreground_at(fg, 42, &pid, &pkg), 0);
	assert_int_equal(pid, 0);
	assert_string_equal(pkg, "com.foo");
	foreground_free(fg);
	fg = NULL;
	assert_int_equal(foreground_open("auto", &fg), -EINVAL);
	assert_int_equal(foreground_open("log:", &fg), -EINVAL);
	assert_int_equal(foreground_open("app:", &fg), -EINVAL);
	assert_int_equal(foreground_open("APP:com.foo", &fg), -EINVAL);
	assert_int_equal(
		foreground_open("log:tests/unit/no-such-foreground.log", &fg),
		-ENOENT);
	assert_null(fg);
}

static void
test_malformed_lines(void **state)
{
	static const char *const bad[] = {
		"100 1",			 /* a field missing */
		"100",				 /* two missing */
		"100 1 com.foo .Main extra",	 /* one too many */
		"100 1 com.foo com/foo.Main",	 /* not an activity character */
		"100 1 com.foo # comment",	 /* no comments after data */
		"-100 1 com.foo",		 /* negative time */
		"9223372036854775808 1 com.foo", /* time past int64 */
		"12x 1 com.foo",		 /* not a number */
		"0x10 1 com.foo",		 /* hex is not decimal */
		"100 4194305 com.foo",		 /* pid past PID_MAX_LIMIT */
		"100 -1 com.foo",		 /* negative pid */
		"100 1.5 com.foo",		 /* fractional pid */
		"100 1 com/foo",		 /* not a package character */
		"100 1 com.foo\xc3\xa9",	 /* nor is UTF-8 */
		"100,1,com.foo",		 /* wrong separator */
	};
	char text[8192], longpkg[FOREGROUND_PACKAGE_MAX + 2];
	char longline[FOREGROUND_LINE_MAX + 64];
	struct foreground_stats st;
	struct foreground *fg;
	const char *pkg;
	size_t i, len = 0, nbad = sizeof(bad) / sizeof(bad[0]);
	int32_t pid;
	FILE *fp;
	int n;

	(void)state;
	memset(longpkg, 'a', sizeof(longpkg) - 1);
	longpkg[sizeof(longpkg) - 1] = '\0'; /* 256 characters: too long */
	/* A line over the limit that would parse if it were cut short. */
	n = snprintf(longline, sizeof(longline), "300 3 com.cut");
	memset(longline + n, ' ', sizeof(longline) - n - 1);
	longline[sizeof(longline) - 1] = '\0';

	n = snprintf(text, sizeof(text), "50 5 com.good\n");
	len += n;
	for (i = 0; i < nbad; i++) {
		n = snprintf(text + len, sizeof(text) - len, "%s\n", bad[i]);
		assert_true(n > 0 && (size_t)n < sizeof(text) - len);
		len += n;
	}
	n = snprintf(text + len, sizeof(text) - len, "100 1 %s\n%s\n", longpkg,
		     longline);
	assert_true(n > 0 && (size_t)n < sizeof(text) - len);
	len += n;
	/* The longest valid package, and the largest pid. */
	longpkg[FOREGROUND_PACKAGE_MAX] = '\0';
	n = snprintf(text + len, sizeof(text) - len, "200 %d %s\n",
		     FOREGROUND_PID_MAX, longpkg);
	assert_true(n > 0 && (size_t)n < sizeof(text) - len);
	len += n;
	/* A NUL byte inside a line that would otherwise be valid. */
	memcpy(text + len, "400 4 com.nul\0x\n", 16);
	len += 16;

	fp = fmemopen(text, len, "r");
	assert_non_null(fp);
	fg = NULL;
	assert_int_equal(foreground_load_stream(fp, "bad", &fg), 0);
	fclose(fp);
	foreground_get_stats(fg, &st);
	assert_int_equal(st.lines, 1 + nbad + 2 + 1 + 1);
	assert_int_equal(st.malformed, nbad + 2 + 1);
	assert_int_equal(st.entries, 2);

	assert_int_equal(foreground_at(fg, 199, &pid, &pkg), 0);
	assert_int_equal(pid, 5);
	assert_string_equal(pkg, "com.good");
	assert_int_equal(foreground_at(fg, 10000, &pid, &pkg), 0);
	assert_int_equal(pid, FOREGROUND_PID_MAX);
	assert_int_equal(strlen(pkg), FOREGROUND_PACKAGE_MAX);
	foreground_free(fg);
}

static void
test_empty_and_comments_only(void **state)
{
	struct foreground_stats st;
	struct foreground *fg;

	(void)state;
	fg = load_text("");
	foreground_get_stats(fg, &st);
	assert_int_equal(st.lines, 0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(foreground_at(fg, 0, NULL, NULL), -ENOENT);
	foreground_free(fg);

	fg = load_text("# nothing\n\n   \n\t# still nothing\n");
	foreground_get_stats(fg, &st);
	assert_int_equal(st.lines, 4);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(foreground_at(fg, INT64_MAX, NULL, NULL), -ENOENT);
	foreground_free(fg);
}

/*
 * A log whose time goes back ends at that line: the switches before it
 * are the timeline, nothing after it is used, and where it went back is
 * kept.  Equal times are not going back.
 */
static void
test_goes_back(void **state)
{
	static const struct sw kept[] = {
		{1000, 1, "com.a"},
		{2000, 2, "com.b"},
		{2000, 22, "com.b2"},
		{3000, 3, "com.c"},
	};
	size_t n = sizeof(kept) / sizeof(kept[0]);
	struct foreground_stats st;
	struct foreground_jump j;
	struct foreground *fg;
	int64_t t;

	(void)state;
	/* A log recorded twice: line 6 goes back to the first one's start. */
	fg = load_text("# first\n1000 1 com.a\n2000 2 com.b\n2000 22 com.b2\n"
		       "3000 3 com.c\n1000 1 com.a\n2000 2 com.b\n"
		       "4000 4 com.d\n");
	foreground_get_stats(fg, &st);
	assert_int_equal(st.entries, n);
	assert_int_equal(st.lines, 6);
	assert_int_equal(st.reordered, 0);
	assert_int_equal(foreground_get_jump(fg, &j), 0);
	assert_int_equal(j.line, 6);
	assert_int_equal(j.from_ns, 3000);
	assert_int_equal(j.to_ns, 1000);
	for (t = 0; t <= 5000; t += 250) {
		check_at(fg, kept, n, t - 1);
		check_at(fg, kept, n, t);
	}
	foreground_free(fg);

	/* One ns back, after a malformed line, is going back too. */
	fg = load_text("5000 5 com.e\nnot a line\n4999 4 com.d\n");
	assert_int_equal(foreground_get_jump(fg, &j), 0);
	assert_int_equal(j.line, 3);
	assert_int_equal(j.from_ns, 5000);
	assert_int_equal(j.to_ns, 4999);
	foreground_get_stats(fg, &st);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.malformed, 1);
	foreground_free(fg);

	/* In order, and a static app: no jump. */
	fg = load_text("1 1 com.a\n1 2 com.b\n2 3 com.c\n");
	assert_int_equal(foreground_get_jump(fg, &j), -ENOENT);
	foreground_free(fg);
	assert_int_equal(foreground_new_static("com.a", &fg), 0);
	assert_int_equal(foreground_get_jump(fg, &j), -ENOENT);
	foreground_free(fg);
}

static void
test_add_and_prune(void **state)
{
	struct sw sws[64];
	char names[64][32];
	struct foreground_stats st;
	struct foreground *fg = NULL;
	int64_t t;
	size_t n = 0, i;

	(void)state;
	assert_int_equal(foreground_new(&fg), 0);
	assert_int_equal(foreground_at(fg, 0, NULL, NULL), -ENOENT);
	/* Live appends, one of them late. */
	for (i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "com.app%zu", i);
		sws[n].t = (int64_t)i * 1000 + (i == 17 ? -2500 : 0);
		sws[n].pid = (int32_t)(100 + i);
		sws[n].pkg = names[i];
		assert_int_equal(
			foreground_add(fg, sws[n].t, sws[n].pid, sws[n].pkg),
			0);
		n++;
	}
	foreground_get_stats(fg, &st);
	assert_int_equal(st.entries, 40);
	assert_int_equal(st.reordered, 1);
	for (t = -500; t < 41000; t += 500)
		check_at(fg, sws, n, t);

	/* Refused: bad package, pid, time; nothing is added. */
	assert_int_equal(foreground_add(fg, 1, 1, "bad pkg"), -EINVAL);
	assert_int_equal(foreground_add(fg, 1, -1, "com.x"), -EINVAL);
	assert_int_equal(foreground_add(fg, 1, FOREGROUND_PID_MAX + 1, "com.x"),
			 -EINVAL);
	assert_int_equal(foreground_add(fg, -1, 1, "com.x"), -EINVAL);
	assert_int_equal(foreground_add(fg, 1, 1, NULL), -EINVAL);
	foreground_get_stats(fg, &st);
	assert_int_equal(st.entries, 40);

	/* Pruning keeps every answer at or after the cut. */
	foreground_prune(fg, 20500);
	foreground_get_stats(fg, &st);
	assert_true(st.entries < 40);
	assert_int_equal(st.entries, 40 - 20);
	for (t = 20500; t < 41000; t += 250)
		check_at(fg, sws, n, t);
	foreground_prune(fg, INT64_MIN);
	foreground_prune(fg, INT64_MAX);
	foreground_get_stats(fg, &st);
	assert_int_equal(st.entries, 1);
	check_at(fg, sws, n, INT64_MAX);
	foreground_free(fg);
}

/* The fourth field, the lookups of switches after a time, completeness. */
static void
test_activity_and_changes(void **state)
{
	struct foreground_switch sw;
	struct foreground_stats st;
	struct foreground *fg;

	(void)state;
	fg = load_text(
		"100 10 com.launcher\n"
		"200 20 com.foo .Main\n"
		"300 20 com.foo com.foo.Main\n" /* the same, spelled out */
		"350 21 com.foo com.foo.Main\n" /* only the pid */
		"400 20 com.foo com.foo.Detail$Inner\n"
		"500 20 com.foo\n" /* activity unknown: no change */
		"600 30 com.bar .Start\n");
	foreground_get_stats(fg, &st);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(st.entries, 7);
	assert_int_equal(foreground_complete(fg), INT64_MAX);

	assert_int_equal(foreground_switch_at(fg, 99, &sw), -ENOENT);
	assert_int_equal(foreground_switch_at(fg, 250, &sw), 0);
	assert_int_equal(sw.t_ns, 200);
	assert_string_equal(sw.package, "com.foo");
	assert_string_equal(sw.activity, "com.foo.Main");
	assert_int_equal(foreground_switch_at(fg, 100, &sw), 0);
	assert_null(sw.activity);

	/* From the launcher: the first switch after is another package. */
	assert_int_equal(foreground_find_change(fg, 100, 1000, &sw), 1);
	assert_int_equal(sw.t_ns, 200);
	assert_int_equal(sw.pid, 20);
	/* The bound is open at both ends. */
	assert_int_equal(foreground_find_change(fg, 100, 200, &sw), 0);
	assert_int_equal(foreground_find_change(fg, 99, 1000, &sw), -ENOENT);
	/* A respelling and a pid change are no change; a new activity is. */
	assert_int_equal(foreground_find_change(fg, 200, 1000, &sw), 1);
	assert_int_equal(sw.t_ns, 400);
	assert_string_equal(sw.activity, "com.foo.Detail$Inner");
	assert_int_equal(foreground_find_change(fg, 200, 400, &sw), 0);
	/* An unknown activity changes nothing; another package does. */
	assert_int_equal(foreground_find_change(fg, 400, 1000, &sw), 1);
	assert_int_equal(sw.t_ns, 600);
	assert_string_equal(sw.package, "com.bar");
	assert_string_equal(sw.activity, "com.bar.Start");
	assert_int_equal(foreground_find_change(fg, 600, INT64_MAX, &sw), 0);
	foreground_free(fg);

	/* A timeline of the live tracker is complete as far as it says. */
	assert_int_equal(foreground_new(&fg), 0);
	assert_int_equal(foreground_complete(fg), INT64_MIN);
	assert_int_equal(foreground_add_activity(fg, 5, 1, "com.a", ".X"), 0);
	assert_int_equal(foreground_add_activity(fg, 6, 1, "com.a", "a/b"),
			 -EINVAL);
	foreground_set_complete(fg, 50);
	foreground_set_complete(fg, 40);
	assert_int_equal(foreground_complete(fg), 50);
	assert_int_equal(foreground_switch_at(fg, 5, &sw), 0);
	assert_string_equal(sw.activity, "com.a.X");
	foreground_free(fg);

	assert_int_equal(foreground_new_static("com.s", &fg), 0);
	assert_int_equal(foreground_complete(fg), INT64_MAX);
	foreground_free(fg);

	/*
	 * Switches at one time: the last is the one in force there, and the
	 * only one a change is looked for in (the live tracker appends an
	 * app at once and its activity when dumpsys answers, at one time).
	 */
	fg = load_text("100 10 com.launcher .Home\n"
		       "200 20 com.foo\n"
		       "200 20 com.foo .Main\n"
		       "300 10 com.launcher .Home\n"
		       "300 20 com.foo .Main\n"
		       "400 20 com.foo .Main\n"
		       "400 20 com.foo .Cart\n");
	assert_int_equal(foreground_find_change(fg, 100, 1000, &sw), 1);
	assert_int_equal(sw.t_ns, 200);
	assert_string_equal(sw.activity, "com.foo.Main");
	/* At 300 the shop is back as it was: no change there. */
	assert_int_equal(foreground_find_change(fg, 250, 350, &sw), 0);
	assert_int_equal(foreground_find_change(fg, 300, 1000, &sw), 1);
	assert_int_equal(sw.t_ns, 400);
	assert_string_equal(sw.activity, "com.foo.Cart");
	foreground_free(fg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_file),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_static_app),
		cmocka_unit_test(test_open_spec),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_empty_and_comments_only),
		cmocka_unit_test(test_goes_back),
		cmocka_unit_test(test_add_and_prune),
		cmocka_unit_test(test_activity_and_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
