#include "loop.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define LOOP_MAX_EVENTS 16

enum loop_kind {
	LOOP_FD,
	LOOP_TIMER,
	LOOP_ONESHOT,
	LOOP_SIGNAL,
};

struct loop_source {
	enum loop_kind kind;
	int fd;
	union {
		loop_fd_cb fd;
		loop_timer_cb timer;
		loop_signal_cb signal;
	} cb;
	void *ctx;
	int dead;    /* removed; freed after the current batch of events */
	int64_t due; /* LOOP_ONESHOT: when it fires, INT64_MAX: not armed */
	struct loop_source *next;
};

/* A one-shot timer is its source; the header keeps the type opaque. */
struct loop_timer {
	struct loop_source src;
};

struct loop {
	int epfd;
	int stop;
	struct loop_source *sources;
	sigset_t sigs;
	int have_sigs;
};

int64_t
loop_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * INT64_C(1000000000) + ts.tv_nsec;
}

int64_t
loop_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * INT64_C(1000000000) + ts.tv_nsec;
}

void
loop_deadline(struct timespec *ts, int timeout_ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += timeout_ms / 1000;
	ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

int
loop_new(struct loop **out)
{
	struct loop *l;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		int rc = -errno;

		free(l);
		return rc;
	}
	sigemptyset(&l->sigs);
	*out = l;
	return 0;
}

void
loop_free(struct loop *l)
{
	struct loop_source *s, *next;

	if (!l)
		return;
	for (s = l->sources; s; s = next) {
		next = s->next;
		if (s->kind != LOOP_FD)
			close(s->fd);
		free(s);
	}
	if (l->have_sigs)
		pthread_sigmask(SIG_UNBLOCK, &l->sigs, NULL);
	close(l->epfd);
	free(l);
}

static int
add_source(struct loop *l, enum loop_kind kind, int fd, uint32_t events,
	   void *cb, void *ctx)
{
	struct epoll_event ev;
	struct loop_source *s;

	/* Large enough for a one-shot timer, which is a source too. */
	s = calloc(1, sizeof(struct loop_timer));
	if (!s)
		return -ENOMEM;
	s->kind = kind;
	s->fd = fd;
	s->ctx = ctx;
	switch (kind) {
	case LOOP_FD:
		s->cb.fd = (loop_fd_cb)cb;
		break;
	case LOOP_TIMER:
	case LOOP_ONESHOT:
		s->cb.timer = (loop_timer_cb)cb;
		break;
	case LOOP_SIGNAL:
		s->cb.signal = (loop_signal_cb)cb;
		break;
	}
	s->due = INT64_MAX;
	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.ptr = s;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int rc = -errno;

		free(s);
		return rc;
	}
	s->next = l->sources;
	l->sources = s;
	return 0;
}

int
loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_cb cb, void *ctx)
{
	return add_source(l, LOOP_FD, fd, events, (void *)cb, ctx);
}

int
loop_del_fd(struct loop *l, int fd)
{
	struct loop_source *s;

	for (s = l->sources; s; s = s->next) {
		if (s->kind == LOOP_FD && s->fd == fd && !s->dead) {
			/*
			 * The batch being dispatched may still point at it:
			 * it is freed once the batch is done.
			 */
			s->dead = 1;
			epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
			return 0;
		}
	}
	return -ENOENT;
}

static void
sweep(struct loop *l)
{
	struct loop_source **pp, *s;

	for (pp = &l->sources; (s = *pp);) {
		if (s->dead) {
			*pp = s->next;
			free(s);
		} else {
			pp = &s->next;
		}
	}
}

int
loop_add_timer(struct loop *l, int64_t interval_ms, loop_timer_cb cb, void *ctx)
{
	struct itimerspec its;
	int fd, rc;

	if (interval_ms <= 0)
		return -EINVAL;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&its, 0, sizeof(its));
	its.it_interval.tv_sec = interval_ms / 1000;
	its.it_interval.tv_nsec = (long)(interval_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	rc = add_source(l, LOOP_TIMER, fd, EPOLLIN, (void *)cb, ctx);
	if (rc < 0)
		close(fd);
	return rc;
}

int
loop_timer_new(struct loop *l, loop_timer_cb cb, void *ctx,
	       struct loop_timer **out)
{
	int fd, rc;

	*out = NULL;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = add_source(l, LOOP_ONESHOT, fd, EPOLLIN, (void *)cb, ctx);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	/* add_source() put it first and sized it as a loop_timer. */
	*out = (struct loop_timer *)l->sources;
	return 0;
}

int
loop_timer_at(struct loop_timer *t, int64_t at_ns)
{
	struct itimerspec its;

	if (t->src.due == at_ns)
		return 0;
	memset(&its, 0, sizeof(its));
	if (at_ns != INT64_MAX) {
		/* 0 would disarm it: a time past is the earliest there is. */
		if (at_ns < 1)
			at_ns = 1;
		its.it_value.tv_sec = (time_t)(at_ns / 1000000000);
		its.it_value.tv_nsec = (long)(at_ns % 1000000000);
	}
	if (timerfd_settime(t->src.fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	t->src.due = at_ns;
	return 0;
}

int64_t
loop_timer_due(const struct loop_timer *t)
{
	return t->src.due;
}

int
loop_add_signals(struct loop *l, const int *sigs, unsigned n, loop_signal_cb cb,
		 void *ctx)
{
	sigset_t set;
	unsigned i;
	int fd, rc;

	sigemptyset(&set);
	for (i = 0; i < n; i++) {
		sigaddset(&set, sigs[i]);
		sigaddset(&l->sigs, sigs[i]);
	}
	/* Blocked, the signals wait in the signalfd instead of killing us. */
	rc = pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (rc != 0)
		return -rc;
	l->have_sigs = 1;
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = add_source(l, LOOP_SIGNAL, fd, EPOLLIN, (void *)cb, ctx);
	if (rc < 0)
		close(fd);
	return rc;
}

static int
dispatch(struct loop_source *s, uint32_t events)
{
	struct signalfd_siginfo si;
	uint64_t expirations;
	ssize_t n;
	int rc = 0;

	switch (s->kind) {
	case LOOP_FD:
		return s->cb.fd(s->ctx, events);
	case LOOP_TIMER:
		/* Missed expirations (a slow callback) collapse into one. */
		n = read(s->fd, &expirations, sizeof(expirations));
		if (n != (ssize_t)sizeof(expirations))
			return 0;
		return s->cb.timer(s->ctx);
	case LOOP_ONESHOT:
		/*
		 * Re-armed since it fired (read gives EAGAIN): not due yet,
		 * the timerfd fires again at the new time.
		 */
		n = read(s->fd, &expirations, sizeof(expirations));
		if (n != (ssize_t)sizeof(expirations))
			return 0;
		s->due = INT64_MAX;
		return s->cb.timer(s->ctx);
	case LOOP_SIGNAL:
		while ((n = read(s->fd, &si, sizeof(si))) ==
		       (ssize_t)sizeof(si)) {
			rc = s->cb.signal(s->ctx, (int)si.ssi_signo);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	return 0;
}

int
loop_run(struct loop *l)
{
	struct epoll_event evs[LOOP_MAX_EVENTS];
	int i, n, rc;

	l->stop = 0;
	while (!l->stop) {
		n = epoll_wait(l->epfd, evs, LOOP_MAX_EVENTS, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			log_warn("epoll_wait failed");
			return rc;
		}
		rc = 0;
		for (i = 0; i < n && !l->stop && rc >= 0; i++) {
			struct loop_source *s = evs[i].data.ptr;

			if (!s->dead)
				rc = dispatch(s, evs[i].events);
		}
		sweep(l);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void
loop_stop(struct loop *l)
{
	l->stop = 1;
}
