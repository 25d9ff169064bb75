/*
 * The `dumpsys window` parser of the live foreground tracker on the real
 * excerpts beside the checkout (../shared/fixtures/real/window/, from
 * appium-adb's tests): each must give the focus its lines name, whole
 * and fed a byte at a time.  Skipped when the shared fixtures are not
 * there.
 */
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
#include "foreground_window.h"

#define REAL_DIR "../shared/fixtures/real/window/"

struct excerpt {
	const char *file;
	const char *current; /* mCurrentFocus's package, or NULL */
	const char *app;     /* mFocusedApp's package, or NULL */
	uint64_t focus_lines;
	uint64_t unnamed;
};

static const struct excerpt excerpts[] = {
	/* The old Window{hash pkg/activity paused=false}, no "u0". */
	{"01-apptoken-and-old-window.txt", "com.android.settings",
	 "com.example.android.contactmanager", 2, 0},
	/* ", isShadow:false" after the activity. */
	{"04-isshadow-comma.txt", NULL, "com.example.android.contactmanager", 1,
	 0},
	/* mFocusedApp=null, then an indented mCurrentFocus. */
	{"05-focus-only-paused.txt", "com.example.android.contactmanager", NULL,
	 2, 1},
};

static void
expect_focus(const struct foreground_window_focus *f, const struct excerpt *e)
{
	assert_int_equal(f->n_current, e->current ? 1 : 0);
	assert_int_equal(f->n_app, e->app ? 1 : 0);
	if (e->current)
		assert_string_equal(f->current[0], e->current);
	if (e->app)
		assert_string_equal(f->app[0], e->app);
	assert_true(f->focus_lines == e->focus_lines);
	assert_true(f->unnamed == e->unnamed);
	assert_true(f->long_lines == 0);
}

static void
test_real_excerpts(void **state)
{
	struct foreground_window_focus whole, bytes;
	struct foreground_window *w;
	char path[512], *text;
	size_t i, k, len;

	(void)state;
	if (access(REAL_DIR, R_OK) != 0)
		skip();
	assert_int_equal(foreground_window_new(&w), 0);
	for (i = 0; i < sizeof(excerpts) / sizeof(*excerpts); i++) {
		snprintf(path, sizeof(path), "%s%s", REAL_DIR,
			 excerpts[i].file);
		text = fixture_slurp(path, &len);
		foreground_window_parse(text, len, &whole);
		expect_focus(&whole, &excerpts[i]);
		foreground_window_begin(w, &bytes);
		for (k = 0; k < len; k++)
			foreground_window_feed(w, text + k, 1);
		foreground_window_end(w);
		expect_focus(&bytes, &excerpts[i]);
		free(text);
	}
	foreground_window_free(w);
}

/* The focused activity of each spelling, and the values that have none. */
static void
test_focus_activity(void **state)
{
	static const struct {
		const char *value, *pkg, *act;
	} cases[] = {
		{"Window{4ed24c1 u0 com.foo/com.foo.Main}", "com.foo",
		 "com.foo.Main"},
		{"ActivityRecord{5e6ac22 u0 com.foo/.Main t329}", "com.foo",
		 ".Main"},
		{"AppWindowToken{1 token=Token{2 ActivityRecord{3 u0 "
		 "com.foo/.a.B$C t14}}}",
		 "com.foo", ".a.B$C"},
		/* The package must be the whole word before the '/'. */
		{"Window{1 u0 xcom.foo/com.foo.Main}", "com.foo", NULL},
		{"Window{43e887a8 u0 com.foo}", "com.foo", NULL},
		{"Window{1 u0 Splash Screen com.foo}", "com.foo", NULL},
		{"Window{1 u0 com.foo/}", "com.foo", NULL},
	};
	struct foreground_window_focus f;
	char act[FOREGROUND_ACTIVITY_MAX + 1];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = foreground_window_focus_activity(
			cases[i].value, cases[i].pkg, act, sizeof(act));

		assert_int_equal(r, cases[i].act != NULL);
		if (cases[i].act)
			assert_string_equal(act, cases[i].act);
	}
	static const char two[] =
		"  mCurrentFocus=Window{c838dbe u0 com.s/com.s.V2}\n"
		"  mFocusedApp=ActivityRecord{d9b u0 com.s/.V2} t57}\n";

	foreground_window_parse(two, strlen(two), &f);
	assert_int_equal(f.n_current, 1);
	assert_string_equal(f.current_activity[0], "com.s.V2");
	assert_int_equal(f.n_app, 1);
	assert_string_equal(f.app_activity[0], ".V2");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_focus_activity),
		cmocka_unit_test(test_real_excerpts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
