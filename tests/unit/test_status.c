/*
 * Tests of the live status: its starting state, sources' health and
 * detail (cut to fit, never overflowing), updates under the lock, and a
 * reader on another thread that only ever sees whole updates.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "status.h"

static void
test_new(void **state)
{
	struct status_snapshot s;
	struct status *st = NULL;
	int i;

	(void)state;
	assert_int_equal(status_new("replay", &st), 0);
	assert_non_null(st);
	status_get(st, &s);
	assert_string_equal(s.mode, "replay");
	assert_true(s.started_wall_ns > 0);
	assert_true(s.frames_watermark_ns == INT64_MIN);
	assert_true(s.input_time_ns == INT64_MIN);
	assert_true(s.frames_lag_ns == -1);
	assert_int_equal(s.input_events, 0);
	assert_int_equal(s.contacts_cut, 0);
	assert_int_equal(s.rows_stored, 0);
	for (i = 0; i < STATUS_SOURCE_COUNT; i++) {
		assert_int_equal(s.sources[i].health, STATUS_HEALTH_NONE);
		assert_string_equal(s.sources[i].kind, "");
	}
	status_free(st);
	status_free(NULL);
}

static void
test_new_bad(void **state)
{
	struct status *st = NULL;

	(void)state;
	assert_int_equal(status_new(NULL, &st), -EINVAL);
	assert_int_equal(status_new("live", NULL), -EINVAL);
	/* A mode longer than the snapshot's field is refused, not cut. */
	assert_int_equal(status_new("a-mode-far-too-long-for-it", &st),
			 -EINVAL);
	assert_null(st);
}

static void
test_set_source(void **state)
{
	struct status_snapshot s;
	struct status *st = NULL;
	char longer[600];

	(void)state;
	assert_int_equal(status_new("live", &st), 0);
	status_set_source(st, STATUS_SOURCE_FRAMES, STATUS_HEALTH_DEGRADED,
			  "ftl", "restarting after %d failures", 2);
	status_get(st, &s);
	assert_int_equal(s.sources[STATUS_SOURCE_FRAMES].health,
			 STATUS_HEALTH_DEGRADED);
	assert_string_equal(s.sources[STATUS_SOURCE_FRAMES].kind, "ftl");
	assert_string_equal(s.sources[STATUS_SOURCE_FRAMES].detail,
			    "restarting after 2 failures");
	assert_int_equal(s.sources[STATUS_SOURCE_INPUT].health,
			 STATUS_HEALTH_NONE);

	/* Texts too long for the snapshot are cut, NUL-terminated. */
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	status_set_source(st, STATUS_SOURCE_INPUT, STATUS_HEALTH_UP, longer,
			  "%s", longer);
	status_get(st, &s);
	assert_int_equal(strlen(s.sources[STATUS_SOURCE_INPUT].kind),
			 sizeof(s.sources[0].kind) - 1);
	assert_int_equal(strlen(s.sources[STATUS_SOURCE_INPUT].detail),
			 sizeof(s.sources[0].detail) - 1);

	/* No kind and no detail are empty strings. */
	status_set_source(st, STATUS_SOURCE_STORE, STATUS_HEALTH_DOWN, NULL,
			  NULL);
	status_get(st, &s);
	assert_int_equal(s.sources[STATUS_SOURCE_STORE].health,
			 STATUS_HEALTH_DOWN);
	assert_string_equal(s.sources[STATUS_SOURCE_STORE].kind, "");
	assert_string_equal(s.sources[STATUS_SOURCE_STORE].detail, "");

	/* Without a status, or for a source that does not exist, nothing. */
	status_set_source(NULL, STATUS_SOURCE_INPUT, STATUS_HEALTH_UP, "x",
			  "y");
	status_set_source(st, (enum status_source)STATUS_SOURCE_COUNT,
			  STATUS_HEALTH_UP, "x", "y");
	status_free(st);
}

static void
fill(struct status_snapshot *s, void *ctx)
{
	const uint64_t *n = ctx;

	s->input_events = *n;
	s->contacts_cut = *n + 1;
	s->rows_stored = *n;
	s->taps_finalized = *n;
}

static void
test_update(void **state)
{
	struct status_snapshot s;
	struct status *st = NULL;
	uint64_t n = 42;

	(void)state;
	assert_int_equal(status_new("serve", &st), 0);
	status_update(st, fill, &n);
	status_get(st, &s);
	assert_int_equal(s.input_events, 42);
	assert_int_equal(s.contacts_cut, 43);
	assert_int_equal(s.rows_stored, 42);
	assert_string_equal(s.mode, "serve");
	status_free(st);
}

struct reader {
	struct status *st;
	int stop;
	int torn;
	uint64_t reads;
};

static void *
read_loop(void *arg)
{
	struct reader *r = arg;
	struct status_snapshot s;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		status_get(r->st, &s);
		if (s.input_events != s.rows_stored ||
		    s.rows_stored != s.taps_finalized)
			r->torn++;
		__atomic_add_fetch(&r->reads, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* A reader sees every update whole: the three counters always agree. */
static void
test_threads(void **state)
{
	struct reader r;
	pthread_t th;
	uint64_t n;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(status_new("live", &r.st), 0);
	assert_int_equal(pthread_create(&th, NULL, read_loop, &r), 0);
	/* Past 20000 updates, on until the reader has read some of them. */
	for (n = 1;
	     n <= 20000 || __atomic_load_n(&r.reads, __ATOMIC_ACQUIRE) < 100;
	     n++)
		status_update(r.st, fill, &n);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	assert_int_equal(r.torn, 0);
	assert_true(r.reads > 0);
	status_free(r.st);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(status_health_name(STATUS_HEALTH_NONE), "none");
	assert_string_equal(status_health_name(STATUS_HEALTH_UP), "up");
	assert_string_equal(status_health_name(STATUS_HEALTH_DEGRADED),
			    "degraded");
	assert_string_equal(status_health_name(STATUS_HEALTH_DOWN), "down");
	assert_string_equal(status_health_name(STATUS_HEALTH_DONE), "done");
	assert_string_equal(status_health_name((enum status_health)99),
			    "unknown");
	assert_string_equal(status_source_name(STATUS_SOURCE_INPUT), "input");
	assert_string_equal(status_source_name(STATUS_SOURCE_FRAMES), "frames");
	assert_string_equal(status_source_name(STATUS_SOURCE_FOREGROUND),
			    "foreground");
	assert_string_equal(status_source_name(STATUS_SOURCE_STORE), "store");
	assert_string_equal(status_source_name((enum status_source)99),
			    "unknown");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_new_bad),
		cmocka_unit_test(test_set_source),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
