/*
 * Tests of the table of sources: which spec names which kind for each
 * command, the arguments a kind takes or refuses, the usage text's lists,
 * and what a source without an operation answers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "foreground.h"
#include "source.h"
#include "touch.h"

static void
test_parse_live(void **state)
{
	struct source_spec s;

	(void)state;
	assert_int_equal(
		source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_INPUT, "evdev", &s),
		0);
	assert_ptr_equal(s.kind, &source_input_evdev);
	assert_null(s.arg);
	assert_int_equal(source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_INPUT,
				      "evdev:/dev/input/event3", &s),
			 0);
	assert_string_equal(s.arg, "/dev/input/event3");
	assert_int_equal(
		source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_INPUT, "evdev:", &s),
		-EINVAL);
	assert_int_equal(
		source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_INPUT, "evdevx", &s),
		-EINVAL);

	assert_int_equal(source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_FRAMES,
				      "latency", &s),
			 0);
	assert_ptr_equal(s.kind, &source_frames_latency);
	assert_string_equal(s.text, "latency");
	/* A kind without an argument takes none. */
	assert_int_equal(source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_FRAMES,
				      "auto:x", &s),
			 -EINVAL);
	assert_int_equal(
		source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_FRAMES, "bogus", &s),
		-EINVAL);
	assert_null(s.kind);

	assert_int_equal(source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_FOREGROUND,
				      "app:com.example.mail", &s),
			 0);
	assert_ptr_equal(s.kind, &source_foreground_app);
	assert_string_equal(s.arg, "com.example.mail");
	/* The package is checked with the spec. */
	assert_int_equal(source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_FOREGROUND,
				      "app:not a package", &s),
			 -EINVAL);
	assert_int_equal(source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_FOREGROUND,
				      "app", &s),
			 -EINVAL);
	assert_int_equal(source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_FOREGROUND,
				      NULL, &s),
			 -EINVAL);
}

static void
test_parse_replay(void **state)
{
	struct source_spec s;

	(void)state;
	assert_int_equal(source_parse(SOURCE_MODE_REPLAY, SOURCE_ROLE_INPUT,
				      "getevent:touch.log@/dev/input/event2",
				      &s),
			 0);
	assert_ptr_equal(s.kind, &source_input_getevent);
	assert_string_equal(s.arg, "touch.log@/dev/input/event2");
	assert_int_equal(source_parse(SOURCE_MODE_REPLAY, SOURCE_ROLE_INPUT,
				      "getevent", &s),
			 -EINVAL);
	/* The live kinds are not the replay's, and the other way round. */
	assert_int_equal(source_parse(SOURCE_MODE_REPLAY, SOURCE_ROLE_INPUT,
				      "evdev", &s),
			 -EINVAL);
	assert_int_equal(source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_INPUT,
				      "getevent:touch.log", &s),
			 -EINVAL);
	assert_int_equal(source_parse(SOURCE_MODE_REPLAY, SOURCE_ROLE_FRAMES,
				      "ftl:trace.pftrace", &s),
			 0);
	assert_ptr_equal(s.kind, &source_frames_ftl_file);
	assert_int_equal(
		source_parse(SOURCE_MODE_REPLAY, SOURCE_ROLE_FRAMES, "ftl", &s),
		-EINVAL);
	assert_int_equal(source_parse(SOURCE_MODE_REPLAY, SOURCE_ROLE_FRAMES,
				      "none", &s),
			 0);
	assert_ptr_equal(s.kind, &source_frames_replay_none);
	assert_int_equal(source_parse(SOURCE_MODE_REPLAY,
				      SOURCE_ROLE_FOREGROUND, "log:fg.log", &s),
			 0);
	assert_ptr_equal(s.kind, &source_foreground_log);
	assert_int_equal(source_parse(SOURCE_MODE_REPLAY,
				      SOURCE_ROLE_FOREGROUND, "auto", &s),
			 -EINVAL);
}

static void
test_usage(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(source_kinds_usage(SOURCE_MODE_LIVE,
					    SOURCE_ROLE_FRAMES, buf,
					    sizeof(buf)),
			 0);
	assert_string_equal(buf, "auto|ftl|latency|none");
	assert_int_equal(source_kinds_usage(SOURCE_MODE_LIVE,
					    SOURCE_ROLE_FOREGROUND, buf,
					    sizeof(buf)),
			 0);
	assert_string_equal(buf, "auto|app:PACKAGE|none");
	assert_int_equal(source_kinds_usage(SOURCE_MODE_REPLAY,
					    SOURCE_ROLE_FRAMES, buf,
					    sizeof(buf)),
			 0);
	assert_string_equal(buf, "ftl:FILE|latency:DIR|none");
	assert_int_equal(source_kinds_usage(SOURCE_MODE_REPLAY,
					    SOURCE_ROLE_INPUT, buf,
					    sizeof(buf)),
			 0);
	assert_string_equal(buf, "getevent:FILE[@/dev/input/eventN]");
	assert_int_equal(source_kinds_usage(SOURCE_MODE_LIVE,
					    SOURCE_ROLE_FRAMES, buf, 8),
			 -ENOSPC);
}

/* The "none" kinds have hardly any operation: the defaults answer. */
static void
test_defaults(void **state)
{
	struct source_env env;
	struct source_spec spec;
	struct source *src = NULL;
	struct touch_event ev;
	int32_t min, max;
	int64_t first, last, wm;

	(void)state;
	memset(&env, 0, sizeof(env));
	assert_int_equal(source_parse(SOURCE_MODE_LIVE, SOURCE_ROLE_FRAMES,
				      "none", &spec),
			 0);
	assert_int_equal(source_create(&spec, &env, &src), 0);
	assert_non_null(src);
	assert_ptr_equal(source_kind(src), &source_frames_none);
	assert_int_equal(source_role(src), SOURCE_ROLE_FRAMES);
	assert_int_equal(source_fd(src), -1);
	/* No frame will ever come, so none holds a tap back. */
	assert_true(source_watermark(src) == INT64_MAX);
	assert_int_equal(source_pump(src, NULL, 0, &wm), 0);
	assert_true(wm == INT64_MAX);
	assert_int_equal(source_next(src, &ev), 0);
	assert_int_equal(source_axis(src, 0, &min, &max), -ENOENT);
	assert_int_equal(source_time_range(src, &first, &last), -ENOENT);
	assert_null(source_timeline(src));
	assert_int_equal(source_timer_ms(src), 0);
	assert_int_equal(source_timer(src), 0);
	assert_null(source_json(src));
	assert_int_equal(source_stopped(src), 1);
	source_stop(src);
	source_report(src, NULL, 0);
	source_free(src);
	source_free(NULL);
}

static void
test_replay_app(void **state)
{
	struct source_env env;
	struct source_spec spec;
	struct source *src = NULL;
	const char *pkg = NULL;

	(void)state;
	memset(&env, 0, sizeof(env));
	assert_int_equal(source_parse(SOURCE_MODE_REPLAY,
				      SOURCE_ROLE_FOREGROUND,
				      "app:com.example.mail", &spec),
			 0);
	assert_int_equal(source_create(&spec, &env, &src), 0);
	assert_non_null(source_timeline(src));
	assert_int_equal(foreground_at(source_timeline(src), 12345, NULL, &pkg),
			 0);
	assert_string_equal(pkg, "com.example.mail");
	source_free(src);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_live),
		cmocka_unit_test(test_parse_replay),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_replay_app),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
