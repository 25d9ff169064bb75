#include "inject.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "store.h"

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S  INT64_C(1000000000)

/* Gestures remembered (queued ones included), a power of two. */
#define INJECT_RING 256
/* How far back a contact read is matched against the records. */
#define INJECT_LOOKBACK	     8
#define INJECT_RATE_DEFAULT  20
#define INJECT_RATE_MAX	     1000
#define INJECT_QUEUE_DEFAULT 64
#define INJECT_QUEUE_LIMIT   (INJECT_RING / 2)
/* Contacts not tapd's tracked at once; more count as one more down. */
#define INJECT_PHYS_MAX 16
/*
 * The tracking ids tapd writes: a range of its own, far above the small
 * numbers drivers count up from, so that a reader's log tells them apart.
 */
#define INJECT_TID_FIRST 0x7a00
#define INJECT_TID_LAST	 0x7fff
/* A swipe's moves: one every this many ms. */
#define INJECT_MOVE_EVERY_MS 10
#define INJECT_WHY_MAX	     (PATH_MAX + 200)

struct inject_slot_rec {
	struct inject_record r;
	int used;
	int contact_known; /* the down was read back as this contact */
	uint64_t contact;
	int read_back; /* the up was read back too */
};

struct inject {
	char *device; /* the configured file, NULL for the input's */
	char *sysroot;
	unsigned rate, queue_max;
	int enabled;

	pthread_mutex_t mu;
	pthread_cond_t work; /* the worker: a gesture queued, a finger up */
	pthread_cond_t done; /* the waiters: a record changed */
	pthread_t thread;
	int inited, started;
	int stop;

	struct inject_slot_rec ring[INJECT_RING];
	int64_t next_id; /* the next id given; ids start at 1 */
	int64_t qhead;	 /* the first id not yet taken by the worker */

	/* The target, as the ingest thread last set it. */
	char target[PATH_MAX];
	int have_target;
	struct inject_geometry geo;
	int is_virtual;

	/* Contacts down that are not tapd's, by serial. */
	uint64_t phys[INJECT_PHYS_MAX];
	unsigned nphys, phys_over;

	/* The times of the last accepted gestures, for the rate limit. */
	int64_t *accepted;
	unsigned nacc, acc_head;
	int32_t next_tid;

	/* The worker's device (only the worker touches these but why). */
	int fd;
	char fd_path[PATH_MAX];
	int is_evdev;
	struct inject_caps caps;
	int32_t nslots;
	char why[INJECT_WHY_MAX];

	uint64_t submitted, written, read_back, failed;
	uint64_t refused_busy, rate_limited, mismatched;
};

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Event times carry microseconds: a bracket's start is cut down alike. */
static int64_t
us_floor(int64_t ns)
{
	return ns / 1000 * 1000;
}

static struct inject_slot_rec *
rec_of(struct inject *inj, int64_t id)
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

/* ---- the worker ---- */

static void
close_device(struct inject *inj)
{
	if (inj->fd >= 0)
		close(inj->fd);
	inj->fd = -1;
	inj->fd_path[0] = '\0';
}

static int
bit_set(const unsigned long *bits, unsigned bit)
{
	const unsigned per = 8 * sizeof(unsigned long);

	return (bits[bit / per] >> (bit % per)) & 1ul;
}

/*
 * What the device reports besides the protocol B axes, from its own
 * ioctls; a file that is no evdev node (a test's stand-in) has none.
 */
static void
read_caps(struct inject *inj)
{
	unsigned long keys[KEY_MAX / (8 * sizeof(unsigned long)) + 1];
	unsigned long abs[ABS_MAX / (8 * sizeof(unsigned long)) + 1];
	struct input_absinfo ai;
	int version;

	memset(&inj->caps, 0, sizeof(inj->caps));
	inj->nslots = 1;
	inj->is_evdev = ioctl(inj->fd, EVIOCGVERSION, &version) == 0;
	if (!inj->is_evdev)
		return;
	memset(keys, 0, sizeof(keys));
	memset(abs, 0, sizeof(abs));
	if (ioctl(inj->fd, EVIOCGBIT(EV_KEY, sizeof(keys)), keys) >= 0)
		inj->caps.btn_touch = bit_set(keys, BTN_TOUCH);
	if (ioctl(inj->fd, EVIOCGBIT(EV_ABS, sizeof(abs)), abs) < 0)
		return;
	inj->caps.abs_xy = bit_set(abs, ABS_X) && bit_set(abs, ABS_Y);
	if (bit_set(abs, ABS_MT_PRESSURE) &&
	    ioctl(inj->fd, EVIOCGABS(ABS_MT_PRESSURE), &ai) == 0) {
		inj->caps.pressure = 1;
		inj->caps.pressure_value =
			ai.minimum + (ai.maximum - ai.minimum) / 2;
	}
	if (bit_set(abs, ABS_MT_TOUCH_MAJOR) &&
	    ioctl(inj->fd, EVIOCGABS(ABS_MT_TOUCH_MAJOR), &ai) == 0) {
		inj->caps.touch_major = 1;
		inj->caps.major_value =
			ai.minimum + (ai.maximum - ai.minimum) / 8;
	}
	if (bit_set(abs, ABS_MT_SLOT) &&
	    ioctl(inj->fd, EVIOCGABS(ABS_MT_SLOT), &ai) == 0 &&
	    ai.maximum >= 0 && ai.maximum < TOUCH_MAX_SLOTS)
		inj->nslots = ai.maximum + 1;
	else if (bit_set(abs, ABS_MT_SLOT))
		inj->nslots = TOUCH_MAX_SLOTS;
}

static int
open_device(struct inject *inj, const char *path)
{
	int fd;

	if (inj->fd >= 0 && strcmp(inj->fd_path, path) == 0)
		return 0;
	close_device(inj);
	/* Not blocking: a FIFO without a reader fails rather than hangs. */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int err = errno;

		snprintf(inj->why, sizeof(inj->why), "cannot open '%s': %s",
			 path, strerror(err));
		return -err;
	}
	inj->fd = fd;
	snprintf(inj->fd_path, sizeof(inj->fd_path), "%s", path);
	read_caps(inj);
	inj->why[0] = '\0';
	log_info("injecting gestures into '%s'%s", path,
		 inj->is_evdev ? "" : " (not an evdev node)");
	return 0;
}

static int
write_frame(struct inject *inj, enum inject_seq_phase phase,
	    const struct inject_record *r, int32_t x, int32_t y)
{
	struct input_event ev[INJECT_SEQ_FRAME_MAX];
	size_t n =
		inject_seq_frame(&inj->caps, phase, r->slot, r->tid, x, y, ev);
	ssize_t w = write(inj->fd, ev, n * sizeof(ev[0]));

	if (w < 0) {
		int err = errno;

		snprintf(inj->why, sizeof(inj->why), "cannot write '%s': %s",
			 inj->fd_path, strerror(err));
		return -err;
	}
	if ((size_t)w != n * sizeof(ev[0])) {
		snprintf(inj->why, sizeof(inj->why),
			 "short write to '%s': %zd of %zu bytes", inj->fd_path,
			 w, n * sizeof(ev[0]));
		return -EIO;
	}
	return 0;
}

static void
sleep_until(int64_t t_ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(t_ns / NS_PER_S);
	ts.tv_nsec = (long)(t_ns % NS_PER_S);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* The lowest slot no contact holds now: the kernel's view, else ours. */
static int32_t
free_slot(struct inject *inj)
{
	struct input_mt_request_layout {
		uint32_t code;
		int32_t values[TOUCH_MAX_SLOTS];
	} req;
	int32_t s;

	memset(&req, 0, sizeof(req));
	req.code = ABS_MT_TRACKING_ID;
	if (inj->is_evdev &&
	    ioctl(inj->fd, EVIOCGMTSLOTS(sizeof(req)), &req) >= 0) {
		for (s = 0; s < inj->nslots; s++)
			if (req.values[s] < 0)
				return s;
	}
	return 0;
}

/*
 * Writes one gesture: the down frame, the moves of a swipe or the hold,
 * the up frame, each write() bracketed by clock readings kept in the
 * record under the lock, where the ingest thread matches them.
 */
static int
perform(struct inject *inj, int64_t id, const char *path,
	const struct inject_geometry *geo)
{
	struct inject_slot_rec *s;
	struct inject_gesture g;
	struct inject_record r;
	int32_t x2 = 0, y2 = 0, mx, my;
	int64_t t0, end, steps, k;
	int rc;

	rc = open_device(inj, path);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&inj->mu);
	s = rec_of(inj, id);
	g = s->r.g;
	pthread_mutex_unlock(&inj->mu);
	memset(&r, 0, sizeof(r));
	rc = inject_seq_to_panel(geo, g.x, g.y, &r.raw_x, &r.raw_y);
	if (rc == 0 && g.kind == INJECT_SWIPE)
		rc = inject_seq_to_panel(geo, g.x2, g.y2, &x2, &y2);
	if (rc < 0) {
		snprintf(inj->why, sizeof(inj->why),
			 "gesture %lld: the point is outside the panel",
			 (long long)id);
		return rc;
	}
	r.slot = free_slot(inj);
	pthread_mutex_lock(&inj->mu);
	r.tid = inj->next_tid;
	inj->next_tid = inj->next_tid == INJECT_TID_LAST ? INJECT_TID_FIRST
							 : inj->next_tid + 1;
	s->r.slot = r.slot;
	s->r.tid = r.tid;
	s->r.raw_x = r.raw_x;
	s->r.raw_y = r.raw_y;
	s->r.first_before_ns = now_ns();
	pthread_mutex_unlock(&inj->mu);
	rc = write_frame(inj, INJECT_SEQ_DOWN, &r, r.raw_x, r.raw_y);
	pthread_mutex_lock(&inj->mu);
	s->r.first_after_ns = now_ns();
	t0 = s->r.first_before_ns;
	pthread_mutex_unlock(&inj->mu);
	if (rc < 0)
		return rc;
	if (g.kind == INJECT_SWIPE) {
		end = t0 + g.duration_ms * NS_PER_MS;
		steps = g.duration_ms / INJECT_MOVE_EVERY_MS;
		if (steps < 1)
			steps = 1;
		for (k = 1; k <= steps && rc == 0; k++) {
			sleep_until(t0 + (end - t0) * k / (steps + 1));
			mx = r.raw_x +
			     (int32_t)((int64_t)(x2 - r.raw_x) * k / steps);
			my = r.raw_y +
			     (int32_t)((int64_t)(y2 - r.raw_y) * k / steps);
			rc = write_frame(inj, INJECT_SEQ_MOVE, &r, mx, my);
		}
		if (rc < 0)
			goto up;
	} else {
		end = t0 + g.hold_ms * NS_PER_MS;
	}
	sleep_until(end);
up:
	pthread_mutex_lock(&inj->mu);
	s->r.final_before_ns = now_ns();
	pthread_mutex_unlock(&inj->mu);
	/* The contact is ended even after a failed move. */
	{
		int urc = write_frame(inj, INJECT_SEQ_UP, &r, 0, 0);

		if (rc == 0)
			rc = urc;
	}
	pthread_mutex_lock(&inj->mu);
	s->r.final_after_ns = now_ns();
	pthread_mutex_unlock(&inj->mu);
	return rc;
}

static void *
worker(void *arg)
{
	struct inject *inj = arg;
	struct inject_geometry geo;
	struct inject_slot_rec *s;
	char path[PATH_MAX];
	int64_t id;
	int rc;

	pthread_mutex_lock(&inj->mu);
	for (;;) {
		while (!inj->stop && (inj->qhead == inj->next_id ||
				      inj->nphys + inj->phys_over > 0))
			pthread_cond_wait(&inj->work, &inj->mu);
		if (inj->stop)
			break;
		id = inj->qhead++;
		s = rec_of(inj, id);
		if (!s)
			continue;
		if (!inj->device && !inj->have_target) {
			s->r.state = INJECT_FAILED;
			s->r.err = -ENODEV;
			inj->failed++;
			snprintf(inj->why, sizeof(inj->why),
				 "no touch screen to write");
			pthread_cond_broadcast(&inj->done);
			continue;
		}
		s->r.state = INJECT_WRITING;
		snprintf(path, sizeof(path), "%s",
			 inj->device ? inj->device : inj->target);
		geo = inj->geo;
		pthread_mutex_unlock(&inj->mu);
		rc = perform(inj, id, path, &geo);
		pthread_mutex_lock(&inj->mu);
		if (rc < 0) {
			log_warnx("cannot inject gesture %lld: %s",
				  (long long)id, inj->why);
			close_device(inj);
			s->r.state = INJECT_FAILED;
			s->r.err = rc;
			inj->failed++;
		} else {
			inj->written++;
			s->r.state = s->read_back ? INJECT_READ_BACK
						  : INJECT_WRITTEN;
			if (s->read_back && s->r.t_up_ns > s->r.final_after_ns)
				log_warnx("gesture %lld: read back after its "
					  "final write returned",
					  (long long)id);
		}
		pthread_cond_broadcast(&inj->done);
	}
	pthread_mutex_unlock(&inj->mu);
	return NULL;
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
	inj->next_id = 1;
	inj->qhead = 1;
	inj->next_tid = INJECT_TID_FIRST;
	inj->rate = cfg->rate ? cfg->rate : INJECT_RATE_DEFAULT;
	inj->queue_max = cfg->queue_max ? cfg->queue_max : INJECT_QUEUE_DEFAULT;
	inj->accepted = calloc(inj->rate, sizeof(*inj->accepted));
	if (!inj->accepted ||
	    (cfg->device && !(inj->device = strdup(cfg->device))) ||
	    (cfg->sysroot && !(inj->sysroot = strdup(cfg->sysroot)))) {
		rc = -ENOMEM;
		goto out;
	}
	pthread_mutex_init(&inj->mu, NULL);
	pthread_cond_init(&inj->work, NULL);
	pthread_cond_init(&inj->done, NULL);
	inj->inited = 1;
	inj->enabled = cfg->enabled;
	if (inj->enabled) {
		rc = -pthread_create(&inj->thread, NULL, worker, inj);
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
		pthread_cond_destroy(&inj->work);
		pthread_cond_destroy(&inj->done);
		pthread_mutex_destroy(&inj->mu);
	}
	close_device(inj);
	free(inj->accepted);
	free(inj->device);
	free(inj->sysroot);
	free(inj);
}

/* ---- the ingest thread ---- */

void
inject_set_target(struct inject *inj, const char *path,
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
	return pt->time_ns >= us_floor(r->first_before_ns) &&
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
			s = rec_of(inj, id);
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
		s = rec_of(inj, id);
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
		s = rec_of(inj, id);
		if (!s || !s->contact_known || s->read_back ||
		    s->contact != first->contact)
			continue;
		if (s->r.final_before_ns == 0 ||
		    t_up_ns < us_floor(s->r.final_before_ns) ||
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
	if (rate_take(inj, now_ns()) < 0) {
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
	s = rec_of(inj, id);
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
		s = rec_of(inj, id);
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
		if (now_ns() >= deadline_ns) {
			rc = -ETIMEDOUT;
			break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		{
			int64_t left = deadline_ns - now_ns(), t;

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

static cJSON *
ns_json(int64_t ns)
{
	char buf[24];

	if (ns <= 0)
		return cJSON_CreateNull();
	snprintf(buf, sizeof(buf), "%lld", (long long)ns);
	return cJSON_CreateString(buf);
}

cJSON *
inject_record_json(const struct inject_record *r)
{
	cJSON *o = cJSON_CreateObject();
	int ok = o != NULL;

	if (!ok)
		return NULL;
	ok = cJSON_AddNumberToObject(o, "id", (double)r->id) &&
	     cJSON_AddStringToObject(o, "kind", inject_kind_name(r->g.kind)) &&
	     cJSON_AddStringToObject(o, "state", inject_state_name(r->state));
	if (ok && r->state == INJECT_FAILED)
		ok = cJSON_AddStringToObject(o, "error", strerror(-r->err)) !=
		     NULL;
	if (ok && r->g.kind == INJECT_SWIPE) {
		cJSON *from = cJSON_AddArrayToObject(o, "from");
		cJSON *to = cJSON_AddArrayToObject(o, "to");

		ok = from && to &&
		     cJSON_AddItemToArray(from, cJSON_CreateNumber(r->g.x)) &&
		     cJSON_AddItemToArray(from, cJSON_CreateNumber(r->g.y)) &&
		     cJSON_AddItemToArray(to, cJSON_CreateNumber(r->g.x2)) &&
		     cJSON_AddItemToArray(to, cJSON_CreateNumber(r->g.y2)) &&
		     cJSON_AddNumberToObject(o, "duration_ms",
					     (double)r->g.duration_ms);
	} else if (ok) {
		ok = cJSON_AddNumberToObject(o, "x", r->g.x) &&
		     cJSON_AddNumberToObject(o, "y", r->g.y) &&
		     cJSON_AddNumberToObject(o, "hold_ms",
					     (double)r->g.hold_ms);
	}
	if (ok && r->slot >= 0)
		ok = cJSON_AddNumberToObject(o, "slot", r->slot) &&
		     cJSON_AddNumberToObject(o, "tracking_id", r->tid) &&
		     cJSON_AddNumberToObject(o, "raw_x", r->raw_x) &&
		     cJSON_AddNumberToObject(o, "raw_y", r->raw_y);
	ok = ok &&
	     cJSON_AddItemToObject(o, "first_write_before_ns",
				   ns_json(r->first_before_ns)) &&
	     cJSON_AddItemToObject(o, "first_write_after_ns",
				   ns_json(r->first_after_ns)) &&
	     cJSON_AddItemToObject(o, "final_write_before_ns",
				   ns_json(r->final_before_ns)) &&
	     cJSON_AddItemToObject(o, "final_write_after_ns",
				   ns_json(r->final_after_ns)) &&
	     cJSON_AddItemToObject(o, "t_down_ns", ns_json(r->t_down_ns)) &&
	     cJSON_AddItemToObject(o, "t_up_ns", ns_json(r->t_up_ns));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *
inject_list_json(struct inject *inj)
{
	struct inject_record *copy;
	cJSON *root = NULL, *arr, *item;
	size_t n = 0, i;
	int64_t id, first;

	copy = calloc(INJECT_RING, sizeof(*copy));
	if (!copy)
		return NULL;
	pthread_mutex_lock(&inj->mu);
	first = inj->next_id > INJECT_RING ? inj->next_id - INJECT_RING : 1;
	for (id = first; id < inj->next_id; id++) {
		struct inject_slot_rec *s = rec_of(inj, id);

		if (s)
			copy[n++] = s->r;
	}
	pthread_mutex_unlock(&inj->mu);
	root = cJSON_CreateObject();
	arr = root ? cJSON_AddArrayToObject(root, "gestures") : NULL;
	for (i = 0; arr && i < n; i++) {
		item = inject_record_json(&copy[i]);
		if (!item || !cJSON_AddItemToArray(arr, item)) {
			cJSON_Delete(item);
			arr = NULL;
		}
	}
	free(copy);
	if (!arr) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

cJSON *
inject_health_json(struct inject *inj)
{
	const char *path, *mode;
	struct stat st;
	cJSON *o;
	int ok;

	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	pthread_mutex_lock(&inj->mu);
	path = inj->device ? inj->device
			   : (inj->have_target ? inj->target : NULL);
	/*
	 * "evdev": the touch screen's own node, written as its driver
	 * would; "file": a given file that is no character device.
	 */
	if (!path)
		mode = "none";
	else if (stat(path, &st) == 0 && !S_ISCHR(st.st_mode))
		mode = "file";
	else
		mode = "evdev";
	ok = cJSON_AddStringToObject(o, "mode", mode) &&
	     cJSON_AddItemToObject(o, "device",
				   path ? cJSON_CreateString(path)
					: cJSON_CreateNull()) &&
	     cJSON_AddItemToObject(o, "problem",
				   inj->why[0] ? cJSON_CreateString(inj->why)
					       : cJSON_CreateNull()) &&
	     cJSON_AddNumberToObject(o, "rate_per_s", inj->rate) &&
	     cJSON_AddNumberToObject(o, "queued",
				     (double)(inj->next_id - inj->qhead)) &&
	     cJSON_AddNumberToObject(o, "fingers_down",
				     inj->nphys + inj->phys_over) &&
	     cJSON_AddNumberToObject(o, "submitted", (double)inj->submitted) &&
	     cJSON_AddNumberToObject(o, "written", (double)inj->written) &&
	     cJSON_AddNumberToObject(o, "read_back", (double)inj->read_back) &&
	     cJSON_AddNumberToObject(o, "failed", (double)inj->failed) &&
	     cJSON_AddNumberToObject(o, "refused_finger_down",
				     (double)inj->refused_busy) &&
	     cJSON_AddNumberToObject(o, "rate_limited",
				     (double)inj->rate_limited) &&
	     cJSON_AddNumberToObject(o, "unmatched", (double)inj->mismatched) &&
	     cJSON_AddBoolToObject(o, "virtual_device", inj->is_virtual);
	pthread_mutex_unlock(&inj->mu);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
