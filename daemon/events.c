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

/*
 * A ring of the last capacity events: event number seq lives in
 * ring[seq % capacity] while seq >= head - count.  Readers copy out under
 * the lock, so the publisher may free an old slot at any time.
 */
struct events {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char **ring;
	unsigned capacity;
	uint64_t head;	/* the next sequence number */
	uint64_t count; /* events held, <= capacity */
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
		free(ev->ring[i]);
	free(ev->ring);
	pthread_cond_destroy(&ev->cond);
	pthread_mutex_destroy(&ev->lock);
	free(ev);
}

int
events_publish(struct events *ev, const char *json)
{
	char *copy, *old;
	size_t slot;

	if (!json)
		return -EINVAL;
	/* Copied outside the lock: readers never wait for malloc. */
	copy = strdup(json);
	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&ev->lock);
	slot = ev->head % ev->capacity;
	old = ev->ring[slot];
	ev->ring[slot] = copy;
	ev->head++;
	if (ev->count < ev->capacity)
		ev->count++;
	pthread_cond_broadcast(&ev->cond);
	pthread_mutex_unlock(&ev->lock);
	free(old);
	return 0;
}

uint64_t
events_head(struct events *ev)
{
	uint64_t head;

	pthread_mutex_lock(&ev->lock);
	head = ev->head;
	pthread_mutex_unlock(&ev->lock);
	return head;
}

int
events_wait(struct events *ev, uint64_t *seq, int timeout_ms, char **json,
	    uint64_t *missed)
{
	struct timespec deadline;
	uint64_t oldest;
	char *copy;
	int rc;

	if (!seq || !json || !missed)
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
		oldest = ev->head - ev->count;
		if (*seq < oldest) {
			*missed = oldest - *seq;
			*seq = oldest;
			rc = -ENOBUFS;
			break;
		}
		if (*seq < ev->head) {
			copy = strdup(ev->ring[*seq % ev->capacity]);
			if (!copy) {
				rc = -ENOMEM;
				break;
			}
			*json = copy;
			(*seq)++;
			rc = 1;
			break;
		}
		/* A seq beyond head simply waits until it is published. */
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
