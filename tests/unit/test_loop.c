/*
 * Tests of the ingest loop: fd callbacks, periodic timers, one-shot
 * timers armed at a time (fired once, moved, disarmed), signals taken
 * through a signalfd, a callback's error ending the run, an fd removed
 * while its batch is dispatched, and the clocks.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop.h"

#define MS INT64_C(1000000)

struct counts {
	struct loop *loop;
	int fd_calls;
	int timer_calls;
	int other_calls;
	int signals;
	int last_signo;
	int stop_after;
	int fail_with;
	int rfd;
};

static int
on_fd(void *ctx, uint32_t events)
{
	struct counts *c = ctx;
	char buf[16];

	assert_true(events & EPOLLIN);
	assert_true(read(c->rfd, buf, sizeof(buf)) > 0);
	c->fd_calls++;
	if (c->fail_with)
		return c->fail_with;
	if (c->fd_calls >= c->stop_after)
		loop_stop(c->loop);
	return 0;
}

static int
on_timer(void *ctx)
{
	struct counts *c = ctx;

	c->timer_calls++;
	if (c->timer_calls >= c->stop_after)
		loop_stop(c->loop);
	return 0;
}

static int
on_other_timer(void *ctx)
{
	struct counts *c = ctx;

	c->other_calls++;
	return 0;
}

static int
on_signal(void *ctx, int signo)
{
	struct counts *c = ctx;

	c->signals++;
	c->last_signo = signo;
	loop_stop(c->loop);
	return 0;
}

/*
 * A new loop watching the read end of a new pipe p; the test sets what the
 * callback does before it runs the loop.
 */
static void
pipe_loop(struct counts *c, int p[2])
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(pipe(p), 0);
	c->rfd = p[0];
	assert_int_equal(loop_new(&c->loop), 0);
	assert_int_equal(loop_add_fd(c->loop, p[0], EPOLLIN, on_fd, c), 0);
}

static void
test_new_free(void **state)
{
	struct loop *l = NULL;

	(void)state;
	assert_int_equal(loop_new(&l), 0);
	assert_non_null(l);
	loop_free(l);
	loop_free(NULL);
}

static void
test_fd(void **state)
{
	struct counts c;
	int p[2];

	(void)state;
	pipe_loop(&c, p);
	c.stop_after = 2;
	/* The callback stops the run after its first call. */
	assert_int_equal(write(p[1], "a", 1), 1);
	c.stop_after = 1;
	assert_int_equal(loop_run(c.loop), 0);
	assert_int_equal(c.fd_calls, 1);
	/* A second run goes on where the first stopped. */
	assert_int_equal(write(p[1], "c", 1), 1);
	c.stop_after = 2;
	assert_int_equal(loop_run(c.loop), 0);
	assert_int_equal(c.fd_calls, 2);
	/* The fd is the caller's: still open after loop_free(). */
	loop_free(c.loop);
	assert_int_equal(write(p[1], "d", 1), 1);
	close(p[0]);
	close(p[1]);
}

static void
test_fd_error(void **state)
{
	struct counts c;
	int p[2];

	(void)state;
	pipe_loop(&c, p);
	c.fail_with = -ENOMEM;
	assert_int_equal(write(p[1], "a", 1), 1);
	/* A callback's negative value ends the run and is returned. */
	assert_int_equal(loop_run(c.loop), -ENOMEM);
	assert_int_equal(c.fd_calls, 1);
	loop_free(c.loop);
	close(p[0]);
	close(p[1]);
}

static void
test_del_fd(void **state)
{
	struct counts c;
	int p[2];

	(void)state;
	pipe_loop(&c, p);
	c.stop_after = 3;
	assert_int_equal(loop_del_fd(c.loop, p[0]), 0);
	assert_int_equal(loop_del_fd(c.loop, p[0]), -ENOENT);
	assert_int_equal(loop_del_fd(c.loop, 12345), -ENOENT);
	/* Removed, the fd is no longer watched: only the timer stops it. */
	assert_int_equal(write(p[1], "a", 1), 1);
	assert_int_equal(loop_add_timer(c.loop, 10, on_timer, &c), 0);
	assert_int_equal(loop_run(c.loop), 0);
	assert_int_equal(c.fd_calls, 0);
	assert_int_equal(c.timer_calls, 3);
	loop_free(c.loop);
	close(p[0]);
	close(p[1]);
}

static void
test_timers(void **state)
{
	struct counts c;
	int64_t t0, dt;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.stop_after = 5;
	assert_int_equal(loop_new(&c.loop), 0);
	assert_int_equal(loop_add_timer(c.loop, 0, on_timer, &c), -EINVAL);
	assert_int_equal(loop_add_timer(c.loop, -5, on_timer, &c), -EINVAL);
	assert_int_equal(loop_add_timer(c.loop, 10, on_timer, &c), 0);
	assert_int_equal(loop_add_timer(c.loop, 1000, on_other_timer, &c), 0);
	t0 = loop_now_ns();
	assert_int_equal(loop_run(c.loop), 0);
	dt = loop_now_ns() - t0;
	/* Five periods of 10 ms, the first after one period, not before. */
	assert_int_equal(c.timer_calls, 5);
	assert_true(dt >= 45 * MS);
	assert_true(dt < 900 * MS);
	/* The slow timer has not come due yet. */
	assert_int_equal(c.other_calls, 0);
	loop_free(c.loop);
}

/* What a one-shot timer's callback does: counts, re-arms, stops. */
struct oneshot {
	struct loop *loop;
	struct loop_timer *t;
	int calls;
	int64_t fired_ns[4];
	int64_t due_in_cb; /* loop_timer_due() inside the callback */
	int rearm;	   /* re-arm 20 ms later this many times */
};

static int
on_oneshot(void *ctx)
{
	struct oneshot *o = ctx;

	o->due_in_cb = loop_timer_due(o->t);
	if (o->calls < 4)
		o->fired_ns[o->calls] = loop_now_ns();
	o->calls++;
	if (o->rearm > 0) {
		o->rearm--;
		assert_int_equal(loop_timer_at(o->t, loop_now_ns() + 20 * MS),
				 0);
	}
	return 0;
}

/* Stops the loop from a periodic timer, once the test has seen enough. */
static int
on_stop_timer(void *ctx)
{
	struct counts *c = ctx;

	loop_stop(c->loop);
	return 0;
}

static void
test_oneshot(void **state)
{
	struct oneshot o, idle;
	struct counts c;
	int64_t t0;

	(void)state;
	memset(&o, 0, sizeof(o));
	memset(&idle, 0, sizeof(idle));
	memset(&c, 0, sizeof(c));
	assert_int_equal(loop_new(&c.loop), 0);
	o.loop = idle.loop = c.loop;
	assert_int_equal(loop_timer_new(c.loop, on_oneshot, &o, &o.t), 0);
	assert_int_equal(loop_timer_new(c.loop, on_oneshot, &idle, &idle.t), 0);
	/* Made disarmed: it never fires until armed. */
	assert_true(loop_timer_due(idle.t) == INT64_MAX);
	t0 = loop_now_ns();
	/* Armed far off, then moved earlier: the later setting wins. */
	assert_int_equal(loop_timer_at(o.t, t0 + 10000 * MS), 0);
	assert_int_equal(loop_timer_at(o.t, t0 + 30 * MS), 0);
	assert_true(loop_timer_due(o.t) == t0 + 30 * MS);
	/* Armed, then disarmed: it must not fire. */
	assert_int_equal(loop_timer_at(idle.t, t0 + 10 * MS), 0);
	assert_int_equal(loop_timer_at(idle.t, INT64_MAX), 0);
	o.rearm = 2;
	assert_int_equal(loop_add_timer(c.loop, 400, on_stop_timer, &c), 0);
	assert_int_equal(loop_run(c.loop), 0);
	/* Once at 30 ms, then twice more 20 ms apart, then no more. */
	assert_int_equal(o.calls, 3);
	assert_true(o.fired_ns[0] >= t0 + 30 * MS);
	assert_true(o.fired_ns[1] >= o.fired_ns[0] + 20 * MS);
	assert_true(o.fired_ns[2] >= o.fired_ns[1] + 20 * MS);
	/* Fired, it is no longer armed (the callback re-arms it or not). */
	assert_true(o.due_in_cb == INT64_MAX);
	assert_true(loop_timer_due(o.t) == INT64_MAX);
	assert_int_equal(idle.calls, 0);
	/* A time already past fires at the next wait. */
	c.stop_after = 1;
	assert_int_equal(loop_timer_at(idle.t, t0), 0);
	assert_int_equal(loop_add_timer(c.loop, 300, on_stop_timer, &c), 0);
	assert_int_equal(loop_run(c.loop), 0);
	assert_int_equal(idle.calls, 1);
	loop_free(c.loop);
}

static void
test_signals(void **state)
{
	static const int sigs[] = {SIGUSR1, SIGUSR2};
	struct counts c;
	sigset_t now;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(loop_new(&c.loop), 0);
	assert_int_equal(loop_add_signals(c.loop, sigs, 2, on_signal, &c), 0);
	/* Blocked now, so that the signal waits in the signalfd. */
	assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &now), 0);
	assert_true(sigismember(&now, SIGUSR1));
	assert_true(sigismember(&now, SIGUSR2));
	assert_int_equal(kill(getpid(), SIGUSR2), 0);
	assert_int_equal(loop_run(c.loop), 0);
	assert_int_equal(c.signals, 1);
	assert_int_equal(c.last_signo, SIGUSR2);
	/* Freed, the loop gives the signals back to normal delivery. */
	loop_free(c.loop);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &now), 0);
	assert_false(sigismember(&now, SIGUSR1));
	assert_false(sigismember(&now, SIGUSR2));
}

static void
test_clocks(void **state)
{
	int64_t a, b, rt;

	(void)state;
	a = loop_now_ns();
	b = loop_now_ns();
	rt = loop_realtime_ns();
	assert_true(a > 0);
	assert_true(b >= a);
	/* Some time after 2020: the wall clock is a real one. */
	assert_true(rt > INT64_C(1577836800) * 1000000000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_free), cmocka_unit_test(test_fd),
		cmocka_unit_test(test_fd_error), cmocka_unit_test(test_del_fd),
		cmocka_unit_test(test_timers),	 cmocka_unit_test(test_oneshot),
		cmocka_unit_test(test_signals),	 cmocka_unit_test(test_clocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
