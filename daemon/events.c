#include "events.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"

#define EVENTS_DEFAULT_CAPACITY 1024
/* More would only hold memory no reader could be that far behind. */
#define EVENTS_MAX_CAPACITY (1u << 20)

/* One tap of the ring. */
struct events_slot {
	int64_t id;
	char *json;
};

/* A reader with an eventfd (events_waiter_new()). */
struct events_waiter {
	struct events *ev;
	int efd;
	bool waiting;	/* in poll(): a publish writes efd */
	uint64_t wakes; /* the ring's wakes it has seen */
	struct events_waiter *prev, *next;
};

/*
 * A ring of the last capacity taps: the n-th published (from 0) lives in
 * ring[n % capacity] while n >= total - count, so the taps held are in id
 * order.  Readers copy out under the lock, so the publisher may free an
 * old slot at any time.
 */
struct events {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct events_slot *ring;
	unsigned capacity;
	uint64_t total;	    /* taps published */
	uint64_t count;	    /* taps held, <= capacity */
	int64_t last_id;    /* of the newest published, 0 before any */
	int64_t dropped_id; /* of the newest dropped from the ring, or 0 */
	bool shutdown;
	uint64_t wakes;		       /* events_wake() calls */
	struct events_waiter *waiters; /* every waiter, waiting or not */
};

/* Under the lock: the waiters in poll() wake up. */
static void
events_kick(struct events *ev)
{
	struct events_waiter *w;
	uint64_t one = 1;

	for (w = ev->waiters; w; w = w->next)
		if (w->waiting && write(w->efd, &one, sizeof(one)) < 0) {
			/* A counter at its maximum is readable already. */
		}
}

int
events_new(unsigned capacity, struct events **out)
{
	pthread_condattr_t attr;
	struct events *ev;
	int rc = -ENOMEM;

	if (!out)
		return -EINVAL;
	if (capacity == 0)
		capacity = EVENTS_DEFAULT_CAPACITY;
	if (capacity > EVENTS_MAX_CAPACITY)
		return -EINVAL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->capacity = capacity;
	ev->ring = calloc(capacity, sizeof(*ev->ring));
	if (!ev->ring)
		goto err_ring;
	if (pthread_mutex_init(&ev->lock, NULL) != 0)
		goto err_lock;
	/*
	 * The waits are timed on CLOCK_MONOTONIC, so that setting the wall
	 * clock neither cuts a wait short nor stretches it.
	 */
	if (pthread_condattr_init(&attr) != 0)
		goto err_attr;
	if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&ev->cond, &attr) != 0) {
		pthread_condattr_destroy(&attr);
		goto err_attr;
	}
	pthread_condattr_destroy(&attr);
	*out = ev;
	return 0;
err_attr:
	pthread_mutex_destroy(&ev->lock);
err_lock:
	free(ev->ring);
err_ring:
	free(ev);
	return rc;
}

void
events_free(struct events *ev)
{
	unsigned i;

	if (!ev)
		return;
	for (i = 0; i < ev->capacity; i++)
		free(ev->ring[i].json);
	free(ev->ring);
	pthread_cond_destroy(&ev->cond);
	pthread_mutex_destroy(&ev->lock);
	free(ev);
}

int
events_publish(struct events *ev, int64_t id, const char *json)
{
	struct events_slot *slot;
	char *copy, *old = NULL;
	int rc = 0;

	if (!json || id <= 0)
		return -EINVAL;
	/* Copied outside the lock: readers never wait for malloc. */
	copy = strdup(json);
	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&ev->lock);
	/*
	 * Readers find their place by id: one out of order would be skipped
	 * by some and sent twice to others.
	 */
	if (id <= ev->last_id) {
		old = copy;
		rc = -EINVAL;
		goto out;
	}
	slot = &ev->ring[ev->total % ev->capacity];
	if (ev->count == ev->capacity)
		ev->dropped_id = slot->id;
	else
		ev->count++;
	old = slot->json;
	slot->id = id;
	slot->json = copy;
	ev->total++;
	ev->last_id = id;
	pthread_cond_broadcast(&ev->cond);
	events_kick(ev);
out:
	pthread_mutex_unlock(&ev->lock);
	free(old);
	return rc;
}

int64_t
events_last_id(struct events *ev)
{
	int64_t id;

	pthread_mutex_lock(&ev->lock);
	id = ev->last_id;
	pthread_mutex_unlock(&ev->lock);
	return id;
}

/*
 * The position (from 0, as in total) of the first tap held with an id
 * above after, or total when there is none.  Called with the lock held.
 */
static uint64_t
events_find(const struct events *ev, int64_t after)
{
	uint64_t lo = ev->total - ev->count, hi = ev->total, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ev->ring[mid % ev->capacity].id > after)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Under the lock: what a wait returns now, as events_wait() says, or 2
 * when there is nothing yet.
 */
static int
events_take(struct events *ev, int64_t *after, char **json, uint64_t *missed)
{
	const struct events_slot *slot;
	uint64_t pos, dropped;
	int64_t oldest;
	char *copy;

	if (ev->shutdown)
		return -ESHUTDOWN;
	if (ev->dropped_id > *after) {
		/*
		 * The ring is full whenever it has dropped one, so the
		 * oldest kept exists.  The store's ids are consecutive, so
		 * the ids between are the taps lost; no more than were
		 * dropped, though, for a reader from far back.
		 */
		oldest = ev->ring[(ev->total - ev->count) % ev->capacity].id;
		dropped = ev->total - ev->count;
		*missed = (uint64_t)(oldest - *after - 1);
		if (*missed > dropped)
			*missed = dropped;
		*after = oldest - 1;
		return -ENOBUFS;
	}
	pos = events_find(ev, *after);
	if (pos >= ev->total)
		return 2;
	slot = &ev->ring[pos % ev->capacity];
	copy = strdup(slot->json);
	if (!copy)
		return -ENOMEM;
	*json = copy;
	*after = slot->id;
	return 1;
}

int
events_wait(struct events *ev, int64_t *after, int timeout_ms, char **json,
	    uint64_t *missed)
{
	struct timespec deadline;
	uint64_t wakes;
	int rc;

	if (!after || !json || !missed)
		return -EINVAL;
	if (timeout_ms < 0)
		timeout_ms = 0;
	loop_deadline(&deadline, timeout_ms);
	pthread_mutex_lock(&ev->lock);
	wakes = ev->wakes;
	for (;;) {
		rc = events_take(ev, after, json, missed);
		if (rc != 2)
			break;
		if (ev->wakes != wakes) {
			rc = 0;
			break;
		}
		if (pthread_cond_timedwait(&ev->cond, &ev->lock, &deadline) ==
		    ETIMEDOUT) {
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ev->lock);
	return rc;
}

int
events_waiter_new(struct events *ev, struct events_waiter **out)
{
	struct events_waiter *w;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0) {
		int rc = -errno;

		free(w);
		return rc;
	}
	w->ev = ev;
	pthread_mutex_lock(&ev->lock);
	w->wakes = ev->wakes;
	w->next = ev->waiters;
	if (ev->waiters)
		ev->waiters->prev = w;
	ev->waiters = w;
	pthread_mutex_unlock(&ev->lock);
	*out = w;
	return 0;
}

void
events_waiter_free(struct events_waiter *w)
{
	struct events *ev;

	if (!w)
		return;
	ev = w->ev;
	pthread_mutex_lock(&ev->lock);
	if (w->prev)
		w->prev->next = w->next;
	else
		ev->waiters = w->next;
	if (w->next)
		w->next->prev = w->prev;
	pthread_mutex_unlock(&ev->lock);
	close(w->efd);
	free(w);
}

int
events_waiter_wait(struct events_waiter *w, int64_t *after, int timeout_ms,
		   int peer_fd, char **json, uint64_t *missed)
{
	struct events *ev = w->ev;
	struct pollfd pfd[2];
	int64_t until = 0, left = -1;
	uint64_t count;
	int rc, n;

	if (!after || !json || !missed)
		return -EINVAL;
	if (timeout_ms >= 0)
		until = loop_now_ns() / 1000000 + timeout_ms;
	for (;;) {
		pthread_mutex_lock(&ev->lock);
		rc = events_take(ev, after, json, missed);
		if (rc == 2 && w->wakes != ev->wakes) {
			w->wakes = ev->wakes;
			rc = 0;
		}
		/* Armed under the lock: a publish from now on writes efd. */
		w->waiting = rc == 2;
		pthread_mutex_unlock(&ev->lock);
		if (rc != 2)
			return rc;
		if (timeout_ms >= 0) {
			left = until - loop_now_ns() / 1000000;
			if (left <= 0)
				rc = 0;
		}
		n = 0;
		if (rc == 2) {
			pfd[0].fd = w->efd;
			pfd[0].events = POLLIN;
			pfd[1].fd = peer_fd;
			pfd[1].events = POLLRDHUP;
			pfd[1].revents = 0;
			n = poll(pfd, peer_fd >= 0 ? 2 : 1,
				 left > INT32_MAX ? INT32_MAX : (int)left);
		}
		pthread_mutex_lock(&ev->lock);
		w->waiting = false;
		pthread_mutex_unlock(&ev->lock);
		/* Cleared for the next wait; news is looked at above. */
		if (read(w->efd, &count, sizeof(count)) < 0) {
			/* Nothing written: EAGAIN. */
		}
		if (rc == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0 && peer_fd >= 0 &&
		    (pfd[1].revents & (POLLRDHUP | POLLHUP | POLLERR)))
			return -EPIPE;
		if (n == 0)
			return 0;
	}
}

void
events_shutdown(struct events *ev)
{
	pthread_mutex_lock(&ev->lock);
	ev->shutdown = true;
	pthread_cond_broadcast(&ev->cond);
	events_kick(ev);
	pthread_mutex_unlock(&ev->lock);
}

void
events_wake(struct events *ev)
{
	pthread_mutex_lock(&ev->lock);
	ev->wakes++;
	pthread_cond_broadcast(&ev->cond);
	events_kick(ev);
	pthread_mutex_unlock(&ev->lock);
}
