/*
 * The ingest thread's event loop: one epoll set over the sources' fds,
 * periodic timers (timerfd) and signals (signalfd).  Callbacks run on the
 * loop's thread, one at a time, so what they touch needs no lock.
 */
#ifndef TAPD_LOOP_H
#define TAPD_LOOP_H

#include <stdint.h>
#include <time.h>

struct loop;

/* An fd is ready (events: EPOLLIN, EPOLLHUP, ...); < 0 stops the loop. */
typedef int (*loop_fd_cb)(void *ctx, uint32_t events);
/* A timer fired; < 0 stops the loop. */
typedef int (*loop_timer_cb)(void *ctx);
/* A signal arrived; < 0 stops the loop. */
typedef int (*loop_signal_cb)(void *ctx, int signo);

/* Returns 0 and sets *out, or a negative errno.  Free with loop_free(). */
int loop_new(struct loop **out);

/*
 * Frees the loop and the timer and signal fds it made; fds given with
 * loop_add_fd() stay open (they are the caller's).  Signals taken with
 * loop_add_signals() are unblocked again.  NULL is a no-op.
 */
void loop_free(struct loop *l);

/* Watches fd for events (EPOLLIN...).  Returns 0 or a negative errno. */
int loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_cb cb,
		void *ctx);

/* Stops watching fd.  Returns 0 or a negative errno. */
int loop_del_fd(struct loop *l, int fd);

/*
 * Calls cb every interval_ms (CLOCK_MONOTONIC), first after interval_ms.
 * Returns 0 or a negative errno.
 */
int loop_add_timer(struct loop *l, int64_t interval_ms, loop_timer_cb cb,
		   void *ctx);

/*
 * A timer that fires once at a time it is given, then waits to be given
 * another: for work that has a next deadline rather than a period, so
 * that an idle loop sleeps until something is due instead of waking to
 * find nothing to do.  It belongs to the loop (loop_free() frees it).
 */
struct loop_timer;

/*
 * Makes a one-shot timer calling cb, not armed.  Returns 0 and sets *out,
 * or a negative errno.
 */
int loop_timer_new(struct loop *l, loop_timer_cb cb, void *ctx,
		   struct loop_timer **out);

/*
 * Arms t for at_ns (CLOCK_MONOTONIC; a time already past fires at the
 * next wait), replacing any earlier setting; INT64_MAX disarms it.
 * Returns 0 or a negative errno.
 */
int loop_timer_at(struct loop_timer *t, int64_t at_ns);

/* When t fires next, INT64_MAX when it is not armed. */
int64_t loop_timer_due(const struct loop_timer *t);

/*
 * Takes the signals in sigs[0..n) from normal delivery (blocks them in
 * the calling thread, which threads started later inherit) and delivers
 * them to cb through the loop.  Returns 0 or a negative errno.
 */
int loop_add_signals(struct loop *l, const int *sigs, unsigned n,
		     loop_signal_cb cb, void *ctx);

/*
 * Runs until loop_stop() or a callback returns < 0.  Returns 0, or the
 * first negative value a callback returned.
 */
int loop_run(struct loop *l);

/* Ends loop_run() once the current callback returns. */
void loop_stop(struct loop *l);

/* CLOCK_MONOTONIC and CLOCK_REALTIME now, in ns. */
int64_t loop_now_ns(void);
int64_t loop_realtime_ns(void);

/*
 * Sets *ts to timeout_ms from now on CLOCK_MONOTONIC, the clock the
 * daemon's condition variables wait on.
 */
void loop_deadline(struct timespec *ts, int timeout_ms);

#endif
