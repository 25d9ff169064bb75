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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_excerpts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
