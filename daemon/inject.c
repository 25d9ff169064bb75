#include "inject.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inject_int.h"
#include "log.h"
#include "store.h"

int64_t
inject__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Event times carry microseconds: a bracket's start is cut down alike. */
int64_t
inject__us_floor(int64_t ns)
{
	return ns / 1000 * 1000;
}

struct inject_slot_rec *
inject__rec_of(struct inject *inj, int64_t id)
{
	struct inject_slot_rec *s = &inj->ring[id & (INJECT_RING - 1)];

	return s->used && s->r.id == id ? s : NULL;
}

const char *
inject_kind_name(enum inject_kind k)
{
	switch (k) {
	case INJECT_TAP:
		return "tap";
	case INJECT_LONG_PRESS:
		return "long_press";
	case INJECT_SWIPE:
		return "swipe";
	}
	return "?";
}

const char *
inject_state_name(enum inject_state s)
{
	switch (s) {
	case INJECT_QUEUED:
		return "queued";
	case INJECT_WRITING:
		return "writing";
	case INJECT_WRITTEN:
		return "written";
	case INJECT_READ_BACK:
		return "read_back";
	case INJECT_FAILED:
		return "failed";
	}
	return "?";
}

int
inject_is_virtual(const char *sysroot, const char *path)
{
	char link[PATH_MAX], dest[PATH_MAX];
	const char *base = strrchr(path, '/');
	int len;

	base = base ? base + 1 : path;
	len = snprintf(link, sizeof(link), "%s/sys/class/input/%s",
		       sysroot ? sysroot : "", base);
	if (len < 0 || (size_t)len >= sizeof(link))
		return 0;
	/* The class entry links to the device's place in /sys/devices. */
	if (!realpath(link, dest))
		return 0;
	return strstr(dest, "/devices/virtual/") != NULL;
}

/* ---- the object ---- */

int
inject_new(const struct inject_config *cfg, struct inject **out)
{
	struct inject *inj;
	int rc = 0;

	*out = NULL;
	if (cfg->rate > INJECT_RATE_MAX || cfg->queue_max > INJECT_QUEUE_LIMIT)
		return -EINVAL;
	inj = calloc(1, sizeof(*inj));
	if (!inj)
		return -ENOMEM;
	inj->fd = -1;
	inj->slots_fd = -1;
	inj->via = cfg->via;
	inj->next_id = 1;
	inj->qhead = 1;
	inj->next_tid = INJECT_TID_FIRST;
	inj->rate = cfg->rate ? cfg->rate : INJECT_RATE_DEFAULT;
	inj->queue_max = cfg->queue_max ? cfg->queue_max : INJECT_QUEUE_DEFAULT;
	inj->accepted = calloc(inj->rate, sizeof(*inj->accepted));
	if (!inj->accepted ||
	    (cfg->device && !(inj->device = strdup(cfg->device))) ||
	    (cfg->sysroot && !(inj->sysroot = strdup(cfg->sysroot))) ||
	    (cfg->uinput && !(inj->uinput = strdup(cfg->uinput)))) {
		rc = -ENOMEM;
		goto out;
	}
	pthread_mutex_init(&inj->mu, NULL);
	pthread_cond_init(&inj->work, NULL);
	pthread_cond_init(&inj->done, NULL);
	inj->inited = 1;
	inj->enabled = cfg->enabled;
	if (inj->enabled) {
		rc = -pthread_create(&inj->thread, NULL, inject__worker, inj);
		if (rc == 0)
			inj->started = 1;
	}
out:
	if (rc < 0) {
		inject_free(inj);
		return rc;
	}
	*out = inj;
	return 0;
}

void
inject_free(struct inject *inj)
{
	if (!inj)
		return;
	if (inj->inited) {
		pthread_mutex_lock(&inj->mu);
		inj->stop = 1;
		pthread_cond_broadcast(&inj->work);
		pthread_cond_broadcast(&inj->done);
		pthread_mutex_unlock(&inj->mu);
		if (inj->started)
			pthread_join(inj->thread, NULL);
		inject__drop_clone(inj);
		pthread_cond_destroy(&inj->work);
		pthread_cond_destroy(&inj->done);
		pthread_mutex_destroy(&inj->mu);
	}
	inject__close_device(inj);
	free(inj->accepted);
	free(inj->device);
	free(inj->sysroot);
	free(inj->uinput);
	free(inj);
}

/* ---- the ingest thread ---- */

void
inject_set_target(struct inject *inj, const char *path, const char *clone_read,
		  const struct inject_geometry *geo)
{
	int changed;

	if (!inj)
		return;
	pthread_mutex_lock(&inj->mu);
	changed = path ? !inj->have_target || strcmp(inj->target, path) != 0
		       : inj->have_target;
	if (changed) {
		inj->have_target = path != NULL;
		snprintf(inj->target, sizeof(inj->target), "%s",
			 path ? path : "");
		inj->is_virtual = path && inject_is_virtual(inj->sysroot, path);
	}
	if (geo)
		inj->geo = *geo;
	if (strcmp(inj->clone_read, clone_read ? clone_read : "") != 0) {
		snprintf(inj->clone_read, sizeof(inj->clone_read), "%s",
			 clone_read ? clone_read : "");
		/* A worker may be waiting for the source to read its clone. */
		pthread_cond_broadcast(&inj->work);
	}
	pthread_mutex_unlock(&inj->mu);
}

/* Whether pt is the down of record s: its slot, its id, inside its write. */
static int
is_our_down(const struct inject_slot_rec *s, const struct touch_point *pt)
{
	const struct inject_record *r = &s->r;

	if (s->contact_known || r->first_before_ns == 0 ||
	    (r->state != INJECT_WRITING && r->state != INJECT_WRITTEN))
		return 0;
	if (pt->slot != r->slot ||
	    (pt->tracking_id >= 0 && pt->tracking_id != r->tid))
		return 0;
	return pt->time_ns >= inject__us_floor(r->first_before_ns) &&
	       (r->first_after_ns == 0 || pt->time_ns <= r->first_after_ns);
}

void
inject_observe(struct inject *inj, const struct touch_point *pt)
{
	struct inject_slot_rec *s;
	unsigned i;
	int64_t id;

	if (!inj || pt->phase == TOUCH_MOVE)
		return;
	pthread_mutex_lock(&inj->mu);
	if (pt->phase == TOUCH_DOWN) {
		for (id = inj->qhead - 1;
		     id > 0 && id >= inj->qhead - INJECT_LOOKBACK; id--) {
			s = inject__rec_of(inj, id);
			if (s && is_our_down(s, pt)) {
				s->contact_known = 1;
				s->contact = pt->contact;
				s->r.t_down_ns = pt->time_ns;
				goto out;
			}
		}
		if (inj->nphys < INJECT_PHYS_MAX)
			inj->phys[inj->nphys++] = pt->contact;
		else
			inj->phys_over++;
		goto out;
	}
	for (i = 0; i < inj->nphys; i++) {
		if (inj->phys[i] == pt->contact) {
			inj->phys[i] = inj->phys[--inj->nphys];
			goto lifted;
		}
	}
	/* Not one of ours either: one of those past the array. */
	for (id = inj->qhead - 1; id > 0 && id >= inj->qhead - INJECT_LOOKBACK;
	     id--) {
		s = inject__rec_of(inj, id);
		if (s && s->contact_known && s->contact == pt->contact)
			goto out;
	}
	if (inj->phys_over > 0)
		inj->phys_over--;
lifted:
	if (inj->nphys + inj->phys_over == 0 || pt->active == 0) {
		/* With nothing down the count starts afresh. */
		if (pt->active == 0) {
			inj->nphys = 0;
			inj->phys_over = 0;
		}
		pthread_cond_broadcast(&inj->work);
	}
out:
	pthread_mutex_unlock(&inj->mu);
}

unsigned
inject_flags(struct inject *inj, const struct touch_point *first,
	     int64_t t_up_ns)
{
	struct inject_slot_rec *s;
	unsigned flags;
	int64_t id;

	if (!inj)
		return 0;
	pthread_mutex_lock(&inj->mu);
	flags = inj->is_virtual && !inj->device ? STORE_FLAG_VIRTUAL_DEVICE : 0;
	for (id = inj->qhead - 1; id > 0 && id >= inj->qhead - INJECT_LOOKBACK;
	     id--) {
		s = inject__rec_of(inj, id);
		if (!s || !s->contact_known || s->read_back ||
		    s->contact != first->contact)
			continue;
		if (s->r.final_before_ns == 0 ||
		    t_up_ns < inject__us_floor(s->r.final_before_ns) ||
		    (s->r.final_after_ns != 0 &&
		     t_up_ns > s->r.final_after_ns)) {
			/* Its down was tapd's, its end was not tapd's write. */
			inj->mismatched++;
			break;
		}
		s->read_back = 1;
		s->r.t_up_ns = t_up_ns;
		if (s->r.state == INJECT_WRITTEN)
			s->r.state = INJECT_READ_BACK;
		inj->read_back++;
		/* tapd's own gesture: no other program injected it. */
		flags = STORE_FLAG_INJECTED;
		pthread_cond_broadcast(&inj->done);
		break;
	}
	pthread_mutex_unlock(&inj->mu);
	return flags;
}

/* ---- the HTTP threads ---- */

static int
check_gesture(const struct inject_gesture *g)
{
	switch (g->kind) {
	case INJECT_TAP:
	case INJECT_LONG_PRESS:
		if (g->hold_ms < 1 || g->hold_ms > INJECT_HOLD_MAX_MS)
			return -EINVAL;
		break;
	case INJECT_SWIPE:
		if (g->duration_ms < 1 ||
		    g->duration_ms > INJECT_DURATION_MAX_MS)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* Whether one more gesture fits the last second's count; counts it. */
static int
rate_take(struct inject *inj, int64_t now)
{
	if (inj->nacc == inj->rate) {
		if (inj->accepted[inj->acc_head] > now - NS_PER_S)
			return -EAGAIN;
		inj->acc_head = (inj->acc_head + 1) % inj->rate;
		inj->nacc--;
	}
	inj->accepted[(inj->acc_head + inj->nacc) % inj->rate] = now;
	inj->nacc++;
	return 0;
}

int
inject_submit(struct inject *inj, const struct inject_gesture *g,
	      unsigned flags, int64_t events_after, int64_t *id)
{
	struct inject_slot_rec *s;
	int32_t rx, ry;
	int rc;

	if (!inj->enabled)
		return -EPERM;
	if ((rc = check_gesture(g)) < 0)
		return rc;
	pthread_mutex_lock(&inj->mu);
	if (!inj->device && !inj->have_target) {
		rc = -ENODEV;
		goto out;
	}
	if (inject_seq_to_panel(&inj->geo, g->x, g->y, &rx, &ry) < 0 ||
	    (g->kind == INJECT_SWIPE &&
	     inject_seq_to_panel(&inj->geo, g->x2, g->y2, &rx, &ry) < 0)) {
		rc = -ERANGE;
		goto out;
	}
	if (inj->nphys + inj->phys_over > 0 && !(flags & INJECT_QUEUE)) {
		inj->refused_busy++;
		rc = -EBUSY;
		goto out;
	}
	if ((uint64_t)(inj->next_id - inj->qhead) >= inj->queue_max) {
		rc = -ENOSPC;
		goto out;
	}
	if (rate_take(inj, inject__now_ns()) < 0) {
		inj->rate_limited++;
		rc = -EAGAIN;
		goto out;
	}
	*id = inj->next_id++;
	s = &inj->ring[*id & (INJECT_RING - 1)];
	memset(s, 0, sizeof(*s));
	s->used = 1;
	s->r.id = *id;
	s->r.g = *g;
	s->r.state = INJECT_QUEUED;
	s->r.slot = -1;
	s->r.tid = -1;
	s->r.t_down_ns = -1;
	s->r.t_up_ns = -1;
	s->r.events_after = events_after;
	inj->submitted++;
	pthread_cond_broadcast(&inj->work);
out:
	pthread_mutex_unlock(&inj->mu);
	return rc;
}

int
inject_get(struct inject *inj, int64_t id, struct inject_record *out)
{
	struct inject_slot_rec *s;
	int rc = -ENOENT;

	pthread_mutex_lock(&inj->mu);
	s = inject__rec_of(inj, id);
	if (s) {
		*out = s->r;
		rc = 0;
	}
	pthread_mutex_unlock(&inj->mu);
	return rc;
}

int
inject_wait(struct inject *inj, int64_t id, int64_t deadline_ns,
	    struct inject_record *out)
{
	struct inject_slot_rec *s;
	struct timespec ts;
	int rc = 0;

	/* The condition's clock is REALTIME: the deadline is moved there. */
	pthread_mutex_lock(&inj->mu);
	for (;;) {
		s = inject__rec_of(inj, id);
		if (!s) {
			rc = -ENOENT;
			break;
		}
		*out = s->r;
		if (s->r.state == INJECT_READ_BACK ||
		    s->r.state == INJECT_FAILED)
			break;
		if (inj->stop) {
			rc = -ESHUTDOWN;
			break;
		}
		if (inject__now_ns() >= deadline_ns) {
			rc = -ETIMEDOUT;
			break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		{
			int64_t left = deadline_ns - inject__now_ns(), t;

			if (left > 200 * NS_PER_MS)
				left = 200 * NS_PER_MS;
			if (left < 0)
				left = 0;
			t = (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec + left;
			ts.tv_sec = (time_t)(t / NS_PER_S);
			ts.tv_nsec = (long)(t % NS_PER_S);
		}
		pthread_cond_timedwait(&inj->done, &inj->mu, &ts);
	}
	pthread_mutex_unlock(&inj->mu);
	return rc;
}
