#include "events.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loop.h"

#define EVENTS_DEFAULT_CAPACITY 1024
/* More would only hold memory no reader could be that far behind. */
#define EVENTS_MAX_CAPACITY (1u << 20)

/* One tap of the ring. */
struct events_slot {
	int64_t id;
	char *json;
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
};

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

int
events_wait(struct events *ev, int64_t *after, int timeout_ms, char **json,
	    uint64_t *missed)
{
	const struct events_slot *slot;
	struct timespec deadline;
	uint64_t pos, dropped;
	int64_t oldest;
	char *copy;
	int rc;

	if (!after || !json || !missed)
		return -EINVAL;
	if (timeout_ms < 0)
		timeout_ms = 0;
	loop_deadline(&deadline, timeout_ms);
	pthread_mutex_lock(&ev->lock);
	for (;;) {
		if (ev->shutdown) {
			rc = -ESHUTDOWN;
			break;
		}
		if (ev->dropped_id > *after) {
			/*
			 * The ring is full whenever it has dropped one, so
			 * the oldest kept exists.  The store's ids are
			 * consecutive, so the ids between are the taps
			 * lost; no more than were dropped, though, for a
			 * reader from far back.
			 */
			oldest =
				ev->ring[(ev->total - ev->count) % ev->capacity]
					.id;
			dropped = ev->total - ev->count;
			*missed = (uint64_t)(oldest - *after - 1);
			if (*missed > dropped)
				*missed = dropped;
			*after = oldest - 1;
			rc = -ENOBUFS;
			break;
		}
		pos = events_find(ev, *after);
		if (pos < ev->total) {
			slot = &ev->ring[pos % ev->capacity];
			copy = strdup(slot->json);
			if (!copy) {
				rc = -ENOMEM;
				break;
			}
			*json = copy;
			*after = slot->id;
			rc = 1;
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

void
events_shutdown(struct events *ev)
{
	pthread_mutex_lock(&ev->lock);
	ev->shutdown = true;
	pthread_cond_broadcast(&ev->cond);
	pthread_mutex_unlock(&ev->lock);
}
