/*
 * Tests of the event ring: order and sequence numbers, a slow reader told
 * what it missed, timeouts, and readers on other threads, woken by new
 * events and for good by shutdown.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "events.h"
#include "fixture.h"

static void
publish_n(struct events *ev, unsigned from, unsigned n)
{
	char json[32];
	unsigned i;

	for (i = from; i < from + n; i++) {
		snprintf(json, sizeof(json), "{\"n\":%u}", i);
		assert_int_equal(events_publish(ev, json), 0);
	}
}

/* Waits for one event and checks it is {"n":want}. */
static void
expect_event(struct events *ev, uint64_t *seq, unsigned want)
{
	char expected[32], *json = NULL;
	uint64_t missed = 0, before = *seq;

	snprintf(expected, sizeof(expected), "{\"n\":%u}", want);
	assert_int_equal(events_wait(ev, seq, 0, &json, &missed), 1);
	assert_non_null(json);
	assert_string_equal(json, expected);
	assert_int_equal(*seq, before + 1);
	free(json);
}

static void
test_order(void **state)
{
	struct events *ev = NULL;
	uint64_t seq, missed;
	char *json = NULL;
	unsigned i;

	(void)state;
	assert_int_equal(events_new(8, &ev), 0);
	assert_int_equal(events_head(ev), 0);
	seq = events_head(ev);
	/* Nothing yet: a timeout, with nothing written. */
	assert_int_equal(events_wait(ev, &seq, 10, &json, &missed), 0);
	assert_null(json);
	assert_int_equal(seq, 0);
	publish_n(ev, 0, 5);
	assert_int_equal(events_head(ev), 5);
	for (i = 0; i < 5; i++)
		expect_event(ev, &seq, i);
	assert_int_equal(events_wait(ev, &seq, 0, &json, &missed), 0);
	/* A reader joining now sees only what comes next. */
	seq = events_head(ev);
	publish_n(ev, 5, 1);
	expect_event(ev, &seq, 5);
	events_free(ev);
}

static void
test_slow_reader(void **state)
{
	struct events *ev = NULL;
	uint64_t seq = 0, missed = 0;
	char *json = NULL;

	(void)state;
	assert_int_equal(events_new(4, &ev), 0);
	/* 10 events through a ring of 4: the first 6 are gone. */
	publish_n(ev, 0, 10);
	assert_int_equal(events_wait(ev, &seq, 0, &json, &missed), -ENOBUFS);
	assert_null(json);
	assert_int_equal(missed, 6);
	assert_int_equal(seq, 6);
	expect_event(ev, &seq, 6);
	expect_event(ev, &seq, 7);
	/* Falling behind again in the middle. */
	publish_n(ev, 10, 5);
	assert_int_equal(events_wait(ev, &seq, 0, &json, &missed), -ENOBUFS);
	assert_int_equal(missed, 3);
	assert_int_equal(seq, 11);
	expect_event(ev, &seq, 11);
	events_free(ev);
}

static void
test_bad_args(void **state)
{
	struct events *ev = NULL;
	uint64_t seq = 0, missed;
	char *json;

	(void)state;
	assert_int_equal(events_new(1u << 30, &ev), -EINVAL);
	assert_null(ev);
	/* 0 is the default capacity: 1024 events are kept. */
	assert_int_equal(events_new(0, &ev), 0);
	assert_int_equal(events_publish(ev, NULL), -EINVAL);
	publish_n(ev, 0, 1025);
	assert_int_equal(events_wait(ev, &seq, 0, &json, &missed), -ENOBUFS);
	assert_int_equal(missed, 1);
	assert_int_equal(events_wait(ev, NULL, 0, &json, &missed), -EINVAL);
	events_free(ev);
	events_free(NULL);
}

static void
test_timeout(void **state)
{
	struct events *ev = NULL;
	uint64_t seq = 0, missed;
	char *json = NULL;
	int64_t t0, dt;

	(void)state;
	assert_int_equal(events_new(4, &ev), 0);
	t0 = fixture_now_ms();
	assert_int_equal(events_wait(ev, &seq, 150, &json, &missed), 0);
	dt = fixture_now_ms() - t0;
	assert_true(dt >= 145);
	assert_true(dt < 2000);
	events_free(ev);
}

struct reader {
	struct events *ev;
	uint64_t seq;
	unsigned want;	  /* events to read */
	unsigned got;	  /* read in order */
	unsigned errors;  /* out of order or malformed */
	int end_rc;	  /* what ended the loop */
	int64_t ended_ms; /* when */
};

static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	char expected[32], *json;
	uint64_t missed;
	int rc;

	for (;;) {
		json = NULL;
		rc = events_wait(r->ev, &r->seq, 5000, &json, &missed);
		if (rc != 1) {
			r->end_rc = rc;
			break;
		}
		snprintf(expected, sizeof(expected), "{\"n\":%u}", r->got);
		if (strcmp(json, expected) != 0)
			r->errors++;
		r->got++;
		free(json);
	}
	r->ended_ms = fixture_now_ms();
	return NULL;
}

static void
test_threads(void **state)
{
	struct reader r[3];
	pthread_t th[3];
	struct events *ev = NULL;
	int64_t shut_ms;
	unsigned i, n = 2000;
	struct timespec pause = {0, 1000000};

	(void)state;
	/* A ring as large as the run: no reader may miss anything. */
	assert_int_equal(events_new(n, &ev), 0);
	for (i = 0; i < 3; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].ev = ev;
		r[i].seq = events_head(ev);
		assert_int_equal(
			pthread_create(&th[i], NULL, reader_main, &r[i]), 0);
	}
	for (i = 0; i < n; i++) {
		publish_n(ev, i, 1);
		/* Now and then, let the readers catch up and sleep. */
		if (i % 500 == 0)
			nanosleep(&pause, NULL);
	}
	/* Readers blocked in a 5 s wait must wake at once on shutdown. */
	pause.tv_nsec = 100000000;
	nanosleep(&pause, NULL);
	shut_ms = fixture_now_ms();
	events_shutdown(ev);
	for (i = 0; i < 3; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(r[i].errors, 0);
		assert_int_equal(r[i].got, n);
		assert_int_equal(r[i].end_rc, -ESHUTDOWN);
		assert_true(r[i].ended_ms - shut_ms < 1000);
	}
	/* After shutdown, every wait fails at once, even with events left. */
	r[0].seq = 0;
	assert_int_equal(events_wait(ev, &r[0].seq, 1000, &(char *){NULL},
				     &(uint64_t){0}),
			 -ESHUTDOWN);
	events_free(ev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_slow_reader),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
