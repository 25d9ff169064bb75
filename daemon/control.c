#include "control.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"

/*
 * One waiting call.  It lives on the caller's stack: the caller never
 * returns while the entry is queued or being served, so the server may
 * use it without copying.
 */
struct control_entry {
	struct control_request *req;
	struct control_entry *next;
	bool serving;
	bool served;
};

struct control {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int fd;
	/* FIFO of waiting calls: the oldest is served first. */
	struct control_entry *head, **tail;
	bool shutdown;
};

int
control_new(struct control **out)
{
	pthread_condattr_t attr;
	struct control *c;
	int rc;

	if (!out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->tail = &c->head;
	c->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->fd < 0) {
		rc = -errno;
		log_warn("cannot create the control eventfd");
		goto err_fd;
	}
	rc = -ENOMEM;
	if (pthread_mutex_init(&c->lock, NULL) != 0)
		goto err_lock;
	/* Timeouts on CLOCK_MONOTONIC: a clock change must not move them. */
	if (pthread_condattr_init(&attr) != 0)
		goto err_cond;
	if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&c->cond, &attr) != 0) {
		pthread_condattr_destroy(&attr);
		goto err_cond;
	}
	pthread_condattr_destroy(&attr);
	*out = c;
	return 0;
err_cond:
	pthread_mutex_destroy(&c->lock);
err_lock:
	close(c->fd);
err_fd:
	free(c);
	return rc;
}

void
control_free(struct control *c)
{
	if (!c)
		return;
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	close(c->fd);
	free(c);
}

int
control_fd(const struct control *c)
{
	return c->fd;
}

/* Takes e out of the queue; the lock is held. */
static void
control_unlink(struct control *c, struct control_entry *e)
{
	struct control_entry **pp;

	for (pp = &c->head; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			if (c->tail == &e->next)
				c->tail = pp;
			e->next = NULL;
			return;
		}
	}
}

int
control_call(struct control *c, struct control_request *req, int timeout_ms)
{
	struct control_entry e = {.req = req};
	struct timespec deadline;
	uint64_t one = 1;
	bool timed_out = false;
	int rc;

	if (!req)
		return -EINVAL;
	if (timeout_ms < 0)
		timeout_ms = 0;
	loop_deadline(&deadline, timeout_ms);
	pthread_mutex_lock(&c->lock);
	if (c->shutdown) {
		pthread_mutex_unlock(&c->lock);
		return -ESHUTDOWN;
	}
	*c->tail = &e;
	c->tail = &e.next;
	/*
	 * An eventfd counter only overflows after 2^64 - 2 writes; EAGAIN
	 * would still leave it readable, which is all that matters.
	 */
	if (write(c->fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("cannot signal the control eventfd");
	for (;;) {
		if (e.served) {
			rc = 0;
			break;
		}
		/*
		 * A request being served cannot be withdrawn: the server
		 * works on it outside the lock and finishes soon.
		 */
		if (e.serving) {
			pthread_cond_wait(&c->cond, &c->lock);
			continue;
		}
		if (c->shutdown || timed_out) {
			control_unlink(c, &e);
			rc = c->shutdown ? -ESHUTDOWN : -ETIMEDOUT;
			break;
		}
		if (pthread_cond_timedwait(&c->cond, &c->lock, &deadline) ==
		    ETIMEDOUT)
			timed_out = true;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void
control_serve(struct control *c, control_handler fn, void *ctx)
{
	struct control_entry *e;
	uint64_t n;

	/*
	 * Drain first: a call queued after this read writes the eventfd
	 * again, so none is left waiting with the fd quiet.
	 */
	while (read(c->fd, &n, sizeof(n)) > 0)
		;
	pthread_mutex_lock(&c->lock);
	while ((e = c->head) != NULL) {
		c->head = e->next;
		if (!c->head)
			c->tail = &c->head;
		e->next = NULL;
		e->serving = true;
		pthread_mutex_unlock(&c->lock);
		fn(ctx, e->req);
		pthread_mutex_lock(&c->lock);
		e->serving = false;
		e->served = true;
		pthread_cond_broadcast(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
}

void
control_shutdown(struct control *c)
{
	pthread_mutex_lock(&c->lock);
	c->shutdown = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}
