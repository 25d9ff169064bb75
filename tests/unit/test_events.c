/*
 * Tests of the event ring: taps kept and found by their database ids, a
 * slow reader told what it missed, ids that must grow, timeouts, and
 * readers on other threads, woken by new events and for good by
 * shutdown; waiters (an eventfd each) woken by a tap, a wake, their
 * socket's peer leaving, or shutdown, and never by a timer of their own.
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "events.h"
#include "fixture.h"

/* Publishes ids from..from+n-1, each as {"n":id}. */
static void
publish_n(struct events *ev, int64_t from, unsigned n)
{
	char json[32];
	int64_t id;

	for (id = from; id < from + n; id++) {
		snprintf(json, sizeof(json), "{\"n\":%lld}", (long long)id);
		assert_int_equal(events_publish(ev, id, json), 0);
	}
}

/* Waits for the tap after *after and checks it is id want, {"n":want}. */
static void
expect_event(struct events *ev, int64_t *after, int64_t want)
{
	char expected[32], *json = NULL;
	uint64_t missed = 0;

	snprintf(expected, sizeof(expected), "{\"n\":%lld}", (long long)want);
	assert_int_equal(events_wait(ev, after, 0, &json, &missed), 1);
	assert_non_null(json);
	assert_string_equal(json, expected);
	assert_int_equal(*after, want);
	free(json);
}

static void
test_order(void **state)
{
	struct events *ev = NULL;
	char *json = NULL;
	uint64_t missed;
	int64_t after, i;

	(void)state;
	assert_int_equal(events_new(8, &ev), 0);
	assert_int_equal(events_last_id(ev), 0);
	after = events_last_id(ev);
	/* Nothing yet: a timeout, with nothing written. */
	assert_int_equal(events_wait(ev, &after, 10, &json, &missed), 0);
	assert_null(json);
	assert_int_equal(after, 0);
	publish_n(ev, 1, 5);
	assert_int_equal(events_last_id(ev), 5);
	for (i = 1; i <= 5; i++)
		expect_event(ev, &after, i);
	assert_int_equal(events_wait(ev, &after, 0, &json, &missed), 0);
	assert_int_equal(after, 5);
	/* A reader joining now sees only what comes next. */
	after = events_last_id(ev);
	publish_n(ev, 6, 1);
	expect_event(ev, &after, 6);
	/* Any position is a place to start: the taps after it, in order. */
	after = 3;
	expect_event(ev, &after, 4);
	expect_event(ev, &after, 5);
	events_free(ev);
}

/*
 * A position is a tap id, whoever published the taps up to it: a reader
 * that had id 41 from a daemon before this one goes on at the first tap
 * above it, and ids that skip (taps of another writer, read from the
 * database) are no loss while nothing left the ring.
 */
static void
test_ids(void **state)
{
	struct events *ev = NULL;
	char *json = NULL;
	uint64_t missed = 0;
	int64_t after;

	(void)state;
	assert_int_equal(events_new(4, &ev), 0);
	assert_int_equal(events_publish(ev, 42, "{\"n\":42}"), 0);
	assert_int_equal(events_publish(ev, 50, "{\"n\":50}"), 0);
	after = 41;
	expect_event(ev, &after, 42);
	expect_event(ev, &after, 50);
	after = 0;
	expect_event(ev, &after, 42);
	after = 45;
	expect_event(ev, &after, 50);
	/* A position past the last waits for what comes above it. */
	after = 60;
	assert_int_equal(events_wait(ev, &after, 0, &json, &missed), 0);
	publish_n(ev, 51, 10);
	assert_int_equal(events_wait(ev, &after, 0, &json, &missed), 0);
	publish_n(ev, 61, 1);
	expect_event(ev, &after, 61);
	/* Ids only grow: the same one again, or a lower one, is refused. */
	assert_int_equal(events_publish(ev, 61, "{}"), -EINVAL);
	assert_int_equal(events_publish(ev, 7, "{}"), -EINVAL);
	assert_int_equal(events_publish(ev, 0, "{}"), -EINVAL);
	assert_int_equal(events_publish(ev, -3, "{}"), -EINVAL);
	assert_int_equal(events_last_id(ev), 61);
	/* And the refused ones left the ring as it was. */
	after = 57;
	expect_event(ev, &after, 58);
	expect_event(ev, &after, 59);
	expect_event(ev, &after, 60);
	expect_event(ev, &after, 61);
	events_free(ev);
}

static void
test_slow_reader(void **state)
{
	struct events *ev = NULL;
	uint64_t missed = 0;
	char *json = NULL;
	int64_t after = 0;

	(void)state;
	assert_int_equal(events_new(4, &ev), 0);
	/* Ids 1..10 through a ring of 4: 1 to 6 are gone. */
	publish_n(ev, 1, 10);
	assert_int_equal(events_wait(ev, &after, 0, &json, &missed), -ENOBUFS);
	assert_null(json);
	assert_int_equal(missed, 6);
	assert_int_equal(after, 6);
	expect_event(ev, &after, 7);
	expect_event(ev, &after, 8);
	/* Falling behind again in the middle: 9, 10 and 11 are gone. */
	publish_n(ev, 11, 5);
	assert_int_equal(events_wait(ev, &after, 0, &json, &missed), -ENOBUFS);
	assert_int_equal(missed, 3);
	assert_int_equal(after, 11);
	expect_event(ev, &after, 12);
	/*
	 * A reader whose position is older than anything this ring had
	 * (Last-Event-ID from before a restart) is told of what the ring
	 * dropped, not of every id since its own.
	 */
	events_free(ev);
	assert_int_equal(events_new(4, &ev), 0);
	publish_n(ev, 101, 10);
	after = 3;
	assert_int_equal(events_wait(ev, &after, 0, &json, &missed), -ENOBUFS);
	assert_int_equal(missed, 6);
	assert_int_equal(after, 106);
	expect_event(ev, &after, 107);
	/* One still in the ring goes on without a word. */
	after = 107;
	expect_event(ev, &after, 108);
	events_free(ev);
}

static void
test_bad_args(void **state)
{
	struct events *ev = NULL;
	uint64_t missed;
	int64_t after = 0;
	char *json;

	(void)state;
	assert_int_equal(events_new(1u << 30, &ev), -EINVAL);
	assert_null(ev);
	/* 0 is the default capacity: 1024 events are kept. */
	assert_int_equal(events_new(0, &ev), 0);
	assert_int_equal(events_publish(ev, 1, NULL), -EINVAL);
	publish_n(ev, 1, 1025);
	assert_int_equal(events_wait(ev, &after, 0, &json, &missed), -ENOBUFS);
	assert_int_equal(missed, 1);
	assert_int_equal(after, 1);
	assert_int_equal(events_wait(ev, NULL, 0, &json, &missed), -EINVAL);
	events_free(ev);
	events_free(NULL);
}

static void
test_timeout(void **state)
{
	struct events *ev = NULL;
	int64_t after = 0, t0, dt;
	char *json = NULL;
	uint64_t missed;

	(void)state;
	assert_int_equal(events_new(4, &ev), 0);
	t0 = fixture_now_ms();
	assert_int_equal(events_wait(ev, &after, 150, &json, &missed), 0);
	dt = fixture_now_ms() - t0;
	assert_true(dt >= 145);
	assert_true(dt < 2000);
	events_free(ev);
}

struct reader {
	struct events *ev;
	int64_t after;
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
		rc = events_wait(r->ev, &r->after, 5000, &json, &missed);
		if (rc != 1) {
			r->end_rc = rc;
			break;
		}
		snprintf(expected, sizeof(expected), "{\"n\":%u}", r->got + 1);
		if (strcmp(json, expected) != 0 || r->after != r->got + 1)
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
		r[i].after = events_last_id(ev);
		assert_int_equal(
			pthread_create(&th[i], NULL, reader_main, &r[i]), 0);
	}
	for (i = 0; i < n; i++) {
		publish_n(ev, i + 1, 1);
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
	r[0].after = 0;
	assert_int_equal(events_wait(ev, &r[0].after, 1000, &(char *){NULL},
				     &(uint64_t){0}),
			 -ESHUTDOWN);
	events_free(ev);
}

/* What a helper thread does to a waiting waiter, 50 ms after it starts. */
enum poke { POKE_PUBLISH, POKE_WAKE, POKE_HANG_UP, POKE_SHUTDOWN };

struct poker {
	struct events *ev;
	enum poke what;
	int fd;
	int64_t at_ms;
};

static void *
poker_main(void *arg)
{
	struct poker *pk = arg;
	struct timespec pause = {0, 50000000};

	nanosleep(&pause, NULL);
	pk->at_ms = fixture_now_ms();
	switch (pk->what) {
	case POKE_PUBLISH:
		publish_n(pk->ev, events_last_id(pk->ev) + 1, 1);
		break;
	case POKE_WAKE:
		events_wake(pk->ev);
		break;
	case POKE_HANG_UP:
		close(pk->fd);
		break;
	case POKE_SHUTDOWN:
		events_shutdown(pk->ev);
		break;
	}
	return NULL;
}

/*
 * Waits without a timeout (-1) while a thread pokes; returns what the
 * wait returned and checks it returned soon after the poke.
 */
static int
wait_poked(struct events_waiter *w, struct poker *pk, int64_t *after, int peer)
{
	char *json = NULL;
	uint64_t missed = 0;
	pthread_t th;
	int rc;

	assert_int_equal(pthread_create(&th, NULL, poker_main, pk), 0);
	rc = events_waiter_wait(w, after, -1, peer, &json, &missed);
	assert_true(fixture_now_ms() - pk->at_ms < 2000);
	assert_int_equal(pthread_join(th, NULL), 0);
	if (rc == 1)
		assert_string_equal(json, "{\"n\":2}");
	free(json);
	return rc;
}

static void
test_waiter(void **state)
{
	struct events_waiter *w = NULL, *w2 = NULL;
	struct events *ev = NULL;
	struct poker pk;
	int64_t after = 0, t0, dt;
	char *json = NULL;
	uint64_t missed;
	int sv[2];

	(void)state;
	assert_int_equal(events_new(4, &ev), 0);
	assert_int_equal(events_waiter_new(ev, &w), 0);
	assert_int_equal(events_waiter_new(ev, &w2), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* What is there already comes at once, as with events_wait(). */
	publish_n(ev, 1, 1);
	assert_int_equal(
		events_waiter_wait(w, &after, -1, sv[0], &json, &missed), 1);
	assert_string_equal(json, "{\"n\":1}");
	free(json);
	json = NULL;
	/* A timeout with nothing new: 0, after the time asked. */
	t0 = fixture_now_ms();
	assert_int_equal(
		events_waiter_wait(w, &after, 100, sv[0], &json, &missed), 0);
	dt = fixture_now_ms() - t0;
	assert_true(dt >= 95);
	assert_true(dt < 2000);
	/* A tap published while it waits wakes it. */
	memset(&pk, 0, sizeof(pk));
	pk.ev = ev;
	pk.what = POKE_PUBLISH;
	assert_int_equal(wait_poked(w, &pk, &after, sv[0]), 1);
	assert_int_equal(after, 2);
	/* A wake returns 0 to one waiting... */
	pk.what = POKE_WAKE;
	assert_int_equal(wait_poked(w, &pk, &after, sv[0]), 0);
	/* ... and to one that was not: its next wait, at once. */
	assert_int_equal(events_waiter_wait(w2, &after, -1, -1, &json, &missed),
			 0);
	/* Its peer leaving ends the wait: -EPIPE. */
	pk.what = POKE_HANG_UP;
	pk.fd = sv[1];
	assert_int_equal(wait_poked(w, &pk, &after, sv[0]), -EPIPE);
	close(sv[0]);
	/* Shutdown, for good. */
	pk.what = POKE_SHUTDOWN;
	assert_int_equal(wait_poked(w, &pk, &after, -1), -ESHUTDOWN);
	assert_int_equal(events_waiter_wait(w2, &after, -1, -1, &json, &missed),
			 -ESHUTDOWN);
	events_waiter_free(w);
	events_waiter_free(w2);
	events_waiter_free(NULL);
	events_free(ev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_slow_reader),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_waiter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
