/*
 * Tests of the control channel: calls from HTTP-like threads served by an
 * "ingest" thread that polls the eventfd, timeouts that withdraw a call,
 * and shutdown.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "control.h"
#include "fixture.h"

static bool
fd_readable(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

/* The ingest thread's side: a tiny session table. */
struct server {
	struct control *c;
	pthread_mutex_t lock;
	int64_t next_id;
	int64_t open_id;
	unsigned served;
	pthread_t thread;
	int stop;
	pthread_t served_on;
};

static void
serve_one(void *ctx, struct control_request *req)
{
	struct server *s = ctx;

	pthread_mutex_lock(&s->lock);
	s->served++;
	s->served_on = pthread_self();
	switch (req->op) {
	case CONTROL_SESSION_START:
		if (s->open_id) {
			req->rc = -EALREADY;
			break;
		}
		s->open_id = ++s->next_id;
		req->result_id = s->open_id;
		req->started_ns = 1000 * s->open_id;
		req->rc = 0;
		break;
	case CONTROL_SESSION_STOP:
		if (req->id != s->open_id) {
			req->rc = req->id <= s->next_id ? -EALREADY : -ENOENT;
			break;
		}
		s->open_id = 0;
		req->result_id = req->id;
		req->stopped_ns = 2000 * req->id;
		req->rc = 0;
		break;
	}
	pthread_mutex_unlock(&s->lock);
}

/* Polls the eventfd like the ingest loop's epoll would. */
static void *
server_main(void *arg)
{
	struct server *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		if (fd_readable(control_fd(s->c), 20))
			control_serve(s->c, serve_one, s);
	}
	return NULL;
}

static void
server_start(struct server *s)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(control_new(&s->c), 0);
	assert_true(control_fd(s->c) >= 0);
	pthread_mutex_init(&s->lock, NULL);
	assert_int_equal(pthread_create(&s->thread, NULL, server_main, s), 0);
}

static void
server_stop(struct server *s)
{
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(s->thread, NULL), 0);
	pthread_mutex_destroy(&s->lock);
	control_free(s->c);
}

static void
test_served_by_other_thread(void **state)
{
	struct control_request req;
	struct server s;

	(void)state;
	server_start(&s);
	memset(&req, 0, sizeof(req));
	req.op = CONTROL_SESSION_START;
	req.name = "first";
	assert_int_equal(control_call(s.c, &req, 2000), 0);
	assert_int_equal(req.rc, 0);
	assert_int_equal(req.result_id, 1);
	assert_int_equal(req.started_ns, 1000);
	assert_true(pthread_equal(s.served_on, s.thread));
	assert_false(pthread_equal(s.served_on, pthread_self()));

	/* The outcome of the request travels back, not only "served". */
	memset(&req, 0, sizeof(req));
	req.op = CONTROL_SESSION_START;
	req.name = "second";
	assert_int_equal(control_call(s.c, &req, 2000), 0);
	assert_int_equal(req.rc, -EALREADY);

	memset(&req, 0, sizeof(req));
	req.op = CONTROL_SESSION_STOP;
	req.id = 1;
	assert_int_equal(control_call(s.c, &req, 2000), 0);
	assert_int_equal(req.rc, 0);
	assert_int_equal(req.stopped_ns, 2000);
	assert_int_equal(control_call(s.c, &req, 2000), 0);
	assert_int_equal(req.rc, -EALREADY);
	req.id = 99;
	assert_int_equal(control_call(s.c, &req, 2000), 0);
	assert_int_equal(req.rc, -ENOENT);
	assert_int_equal(s.served, 5);
	server_stop(&s);
}

static void
test_timeout_withdraws(void **state)
{
	struct control_request req;
	struct control *c = NULL;
	struct server s;
	int64_t t0, dt;

	(void)state;
	/* Nobody serves: the call times out and leaves the queue. */
	assert_int_equal(control_new(&c), 0);
	memset(&req, 0, sizeof(req));
	req.op = CONTROL_SESSION_START;
	req.name = "late";
	req.rc = 12345;
	t0 = fixture_now_ms();
	assert_int_equal(control_call(c, &req, 100), -ETIMEDOUT);
	dt = fixture_now_ms() - t0;
	assert_true(dt >= 95);
	assert_true(dt < 2000);
	/* The eventfd did fire; a late serve must find nothing to do. */
	assert_true(fd_readable(control_fd(c), 0));
	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&s.lock, NULL);
	control_serve(c, serve_one, &s);
	assert_int_equal(s.served, 0);
	assert_int_equal(req.rc, 12345);
	/* And the drained eventfd is quiet again. */
	assert_false(fd_readable(control_fd(c), 0));
	pthread_mutex_destroy(&s.lock);
	control_free(c);
}

static void
slow_serve(void *ctx, struct control_request *req)
{
	struct timespec pause = {0, 300000000};

	(void)ctx;
	nanosleep(&pause, NULL);
	req->rc = 0;
	req->result_id = 42;
}

static void *
slow_server_main(void *arg)
{
	struct control *c = arg;

	/* One request, however long it takes to come. */
	while (!fd_readable(control_fd(c), 20))
		;
	control_serve(c, slow_serve, NULL);
	return NULL;
}

static void
test_timeout_while_served(void **state)
{
	struct control_request req;
	struct control *c = NULL;
	pthread_t th;

	(void)state;
	/*
	 * A request the server has started on is not withdrawn when the
	 * timeout passes meanwhile: the caller gets the outcome.
	 */
	assert_int_equal(control_new(&c), 0);
	assert_int_equal(pthread_create(&th, NULL, slow_server_main, c), 0);
	memset(&req, 0, sizeof(req));
	req.op = CONTROL_SESSION_START;
	req.name = "slow";
	assert_int_equal(control_call(c, &req, 100), 0);
	assert_int_equal(req.rc, 0);
	assert_int_equal(req.result_id, 42);
	assert_int_equal(pthread_join(th, NULL), 0);
	control_free(c);
}

struct caller {
	struct control *c;
	struct control_request req;
	int rc;
	int64_t ended_ms;
};

static void *
caller_main(void *arg)
{
	struct caller *k = arg;

	k->rc = control_call(k->c, &k->req, 10000);
	k->ended_ms = fixture_now_ms();
	return NULL;
}

static void
test_many_callers(void **state)
{
	struct caller k[8];
	pthread_t th[8];
	struct server s;
	bool seen[9] = {false};
	unsigned i, started = 0;

	(void)state;
	server_start(&s);
	for (i = 0; i < 8; i++) {
		memset(&k[i], 0, sizeof(k[i]));
		k[i].c = s.c;
		/* Each stop of an unknown id: all get -ENOENT or -EALREADY. */
		k[i].req.op =
			i % 2 ? CONTROL_SESSION_STOP : CONTROL_SESSION_START;
		k[i].req.name = "x";
		k[i].req.id = 100 + i;
		assert_int_equal(
			pthread_create(&th[i], NULL, caller_main, &k[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(k[i].rc, 0);
		if (k[i].req.op == CONTROL_SESSION_START && k[i].req.rc == 0) {
			started++;
			assert_true(k[i].req.result_id >= 1 &&
				    k[i].req.result_id <= 8);
			assert_false(seen[k[i].req.result_id]);
			seen[k[i].req.result_id] = true;
		}
		if (k[i].req.op == CONTROL_SESSION_STOP)
			assert_int_equal(k[i].req.rc, -ENOENT);
	}
	/* One session opened; the other starts found it open. */
	assert_int_equal(started, 1);
	assert_int_equal(s.served, 8);
	server_stop(&s);
}

static void
test_shutdown(void **state)
{
	struct caller k;
	struct control *c = NULL;
	pthread_t th;
	struct timespec pause = {0, 100000000};
	int64_t shut_ms;

	(void)state;
	assert_int_equal(control_new(&c), 0);
	memset(&k, 0, sizeof(k));
	k.c = c;
	k.req.op = CONTROL_SESSION_START;
	k.req.name = "never";
	assert_int_equal(pthread_create(&th, NULL, caller_main, &k), 0);
	nanosleep(&pause, NULL);
	shut_ms = fixture_now_ms();
	control_shutdown(c);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(k.rc, -ESHUTDOWN);
	assert_true(k.ended_ms - shut_ms < 1000);
	/* Later calls fail at once. */
	assert_int_equal(control_call(c, &k.req, 5000), -ESHUTDOWN);
	control_free(c);
	control_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_served_by_other_thread),
		cmocka_unit_test(test_timeout_withdraws),
		cmocka_unit_test(test_timeout_while_served),
		cmocka_unit_test(test_many_callers),
		cmocka_unit_test(test_shutdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
