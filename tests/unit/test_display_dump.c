/*
 * The parse of `dumpsys display` (display_dump.h): the default display of
 * each sample in tests/fixtures/display (its README says what they are
 * and what each should give), then the rules one at a time over short
 * lines: rotation, which DisplayInfo wins, the refresh rate's three
 * forms, the bounds, a dump cut short and bytes that are not text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "display_dump.h"
#include "fixture.h"

#define FIXTURES "tests/fixtures/display/"

static int
parse(const char *s, struct display_dump *d)
{
	return display_dump_parse(s, strlen(s), d);
}

static void
expect(const struct display_dump *d, int32_t w, int32_t h, int32_t hz,
       int32_t dpi)
{
	assert_int_equal(d->width, w);
	assert_int_equal(d->height, h);
	assert_int_equal(d->refresh_hz, hz);
	assert_int_equal(d->density_dpi, dpi);
}

static void
test_fixtures(void **state)
{
	static const struct {
		const char *file;
		int rc;
		int32_t w, h, hz, dpi;
	} cases[] = {
		{"android5.txt", 0, 1080, 1920, 60, 480},
		{"android9.txt", 0, 1080, 2280, 60, 440},
		{"android12-rotated.txt", 0, 1080, 2400, 90, 420},
		{"android14-vrr.txt", 0, 1440, 3120, 120, 560},
		{"android15-override.txt", 0, 720, 1600, 60, 320},
		{"device-only.txt", 0, 1080, 2340, 60, 400},
		{"garbage.txt", -ENOENT, 0, 0, 0, 0},
	};
	struct display_dump d;
	char path[256], *buf;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), FIXTURES "%s", cases[i].file);
		buf = fixture_slurp(path, &len);
		print_message("%s\n", cases[i].file);
		assert_int_equal(display_dump_parse(buf, len, &d), cases[i].rc);
		expect(&d, cases[i].w, cases[i].h, cases[i].hz, cases[i].dpi);
		free(buf);
	}
}

/* A DisplayInfo line of the Android 12 form, with its variable parts. */
static char *
info_line(const char *label, int id, int w, int h, int rot, int dpi)
{
	char *s;

	if (asprintf(&s,
		     "    %sDisplayInfo{\"Built-in Screen\", displayId %d, "
		     "displayGroupId 0, FLAG_SECURE, real %d x %d, largest app "
		     "%d x %d, mode 1, defaultMode 1, modes [{id=1, width=%d, "
		     "height=%d, fps=60.0, alternativeRefreshRates=[]}], "
		     "rotation %d, state ON, app %d x %d, density %d (420.0 x "
		     "420.0) dpi, layerStack 0}\n",
		     label, id, w, h, w, h, w, h, rot, w, h, dpi) < 0)
		fail();
	return s;
}

static void
test_rotation(void **state)
{
	struct display_dump d;
	char *s;

	(void)state;
	/* 1 and 3 are landscape on a portrait panel: the size turns back. */
	s = info_line("", 0, 2400, 1080, 3, 420);
	assert_int_equal(parse(s, &d), 0);
	expect(&d, 1080, 2400, 60, 420);
	free(s);
	s = info_line("", 0, 2400, 1080, 1, 420);
	assert_int_equal(parse(s, &d), 0);
	expect(&d, 1080, 2400, 60, 420);
	free(s);
	/* 2 is upside down: the same size. */
	s = info_line("", 0, 1080, 2400, 2, 420);
	assert_int_equal(parse(s, &d), 0);
	expect(&d, 1080, 2400, 60, 420);
	free(s);
	/* A tablet whose natural orientation is landscape stays so. */
	s = info_line("", 0, 2560, 1600, 0, 320);
	assert_int_equal(parse(s, &d), 0);
	expect(&d, 2560, 1600, 60, 320);
	free(s);
}

static void
test_which_info(void **state)
{
	struct display_dump d;
	char *base, *over, *other, *all;

	(void)state;
	base = info_line("mBaseDisplayInfo=", 0, 1080, 2400, 0, 420);
	over = info_line("mOverrideDisplayInfo=", 0, 720, 1600, 0, 320);
	other = info_line("mOverrideDisplayInfo=", 4, 800, 600, 0, 160);
	/* The override wins whatever the order; display 4 never. */
	assert_true(asprintf(&all, "%s%s%s", other, base, over) > 0);
	assert_int_equal(parse(all, &d), 0);
	expect(&d, 720, 1600, 60, 320);
	free(all);
	assert_true(asprintf(&all, "%s%s%s", over, other, base) > 0);
	assert_int_equal(parse(all, &d), 0);
	expect(&d, 720, 1600, 60, 320);
	free(all);
	/* The base one over an unlabelled one (WindowManager's copy). */
	free(over);
	over = info_line("  mDisplayInfo=", 0, 1440, 3200, 0, 560);
	assert_true(asprintf(&all, "%s%s", over, base) > 0);
	assert_int_equal(parse(all, &d), 0);
	expect(&d, 1080, 2400, 60, 420);
	free(all);
	/* Only other displays: nothing. */
	assert_int_equal(parse(other, &d), -ENOENT);
	expect(&d, 0, 0, 0, 0);
	free(base);
	free(over);
	free(other);
}

static void
test_rates(void **state)
{
	struct display_dump d;

	(void)state;
	/* The active mode, not the first nor the default. */
	assert_int_equal(
		parse("DisplayInfo{\"a\", displayId 0, real 1 x 2, mode 7, "
		      "defaultMode 3, modes [{id=3, width=1, height=2, "
		      "fps=60.0}, {id=17, fps=30.0}, {id=7, width=1, "
		      "height=2, fps=119.99998, "
		      "alternativeRefreshRates=[60.0]}],"
		      " renderFrameRate 60.0, density 2}",
		      &d),
		0);
	expect(&d, 1, 2, 120, 2);
	/* A vendor's refreshRate= key. */
	assert_int_equal(parse("DisplayInfo{\"a\", displayId 0, mode 2, "
			       "modes [{id=2, refreshRate=90.0}]}",
			       &d),
			 0);
	expect(&d, 0, 0, 90, 0);
	/* The mode is not listed: renderFrameRate. */
	assert_int_equal(parse("DisplayInfo{\"a\", displayId 0, mode 2, "
			       "renderFrameRate 144.0, modes [{id=1, "
			       "fps=60.0}]}",
			       &d),
			 0);
	expect(&d, 0, 0, 144, 0);
	/* Android 5: the bare "F fps"; 59.94 is 60, 29.4 is 29. */
	assert_int_equal(parse("DisplayInfo{\"a\", real 1 x 2, 59.94 fps, "
			       "rotation 0}",
			       &d),
			 0);
	expect(&d, 1, 2, 60, 0);
	assert_int_equal(parse("DisplayInfo{\"a\", 29.4 fps}", &d), 0);
	expect(&d, 0, 0, 29, 0);
	/* Out of range or not a number: unknown. */
	assert_int_equal(parse("DisplayInfo{\"a\", mode 1, modes [{id=1, "
			       "fps=1.0E9}], 0.0 fps, renderFrameRate NaN}",
			       &d),
			 -ENOENT);
	assert_int_equal(parse("DisplayInfo{\"a\", mode 1, modes [{id=1, "
			       "fps=5000.0}]}",
			       &d),
			 -ENOENT);
}

static void
test_bounds(void **state)
{
	struct display_dump d;

	(void)state;
	assert_int_equal(parse("DisplayInfo{\"a\", real 100001 x 2, density "
			       "10001}",
			       &d),
			 -ENOENT);
	assert_int_equal(parse("DisplayInfo{\"a\", real 0 x 2, density 0}", &d),
			 -ENOENT);
	assert_int_equal(parse("DisplayInfo{\"a\", real "
			       "99999999999999999999 x 2, density "
			       "4294967716}",
			       &d),
			 -ENOENT);
	assert_int_equal(parse("DisplayInfo{\"a\", real 1 x 100000, density "
			       "10000}",
			       &d),
			 0);
	expect(&d, 1, 100000, 0, 10000);
	/* A display id too large is not 0. */
	assert_int_equal(parse("DisplayInfo{\"a\", displayId 4294967296, "
			       "density 300}",
			       &d),
			 0);
	expect(&d, 0, 0, 0, 300);
}

static void
test_cut_and_bytes(void **state)
{
	static const char line[] =
		"mOverrideDisplayInfo=DisplayInfo{\"a\", displayId 0, real "
		"1080 x 2400, mode 1, modes [{id=1, fps=60.0}], rotation 0, "
		"density 420 (420.0 x 420.0) dpi}\n";
	struct display_dump d;
	char buf[sizeof(line)];
	size_t cut;
	int rc;

	(void)state;
	/*
	 * Cut anywhere (as a dump over its size limit is), what is read is
	 * right: a number cut short ("2400" as "24") is unknown.  Each field
	 * is read once its number is whole.
	 */
	for (cut = 0; cut < sizeof(line) - 1; cut++) {
		rc = display_dump_parse(line, cut, &d);
		assert_int_equal(rc, d.width || d.refresh_hz || d.density_dpi
					     ? 0
					     : -ENOENT);
		assert_true(d.width == 0 || d.width == 1080);
		assert_true(d.height == 0 || d.height == 2400);
		assert_int_equal(d.width == 0, d.height == 0);
		assert_true(d.refresh_hz == 0 || d.refresh_hz == 60);
		assert_true(d.density_dpi == 0 || d.density_dpi == 420);
		if (cut > (size_t)(strstr(line, " (420.0") - line))
			assert_int_equal(d.density_dpi, 420);
		if (cut < (size_t)(strstr(line, "2400") - line) + 5)
			assert_int_equal(d.width, 0);
	}
	assert_int_equal(display_dump_parse(line, sizeof(line) - 1, &d), 0);
	expect(&d, 1080, 2400, 60, 420);
	/* A NUL before the block's end changes nothing: bytes, not text. */
	memcpy(buf, line, sizeof(line));
	buf[strlen("mOverrideDisplayInfo=DisplayInfo{\"a")] = '\0';
	assert_int_equal(display_dump_parse(buf, sizeof(line) - 1, &d), 0);
	expect(&d, 1080, 2400, 60, 420);
	/* A block ends at its line: the next line's numbers are not its. */
	assert_int_equal(parse("DisplayInfo{\"a\", displayId 0, real 1 x 2, "
			       "rotation 1\n, density 300}\n",
			       &d),
			 0);
	expect(&d, 1, 2, 0, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_which_info),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_cut_and_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
