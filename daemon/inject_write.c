/*
 * The injector's worker (inject.h): one gesture at a time, into the
 * device's node, each write() between two clock readings.
 */
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

#include "inject_int.h"
#include "log.h"

void
inject__close_device(struct inject *inj)
{
	/* The clone's fd is the clone's: it goes with inject__drop_clone(). */
	if (inj->fd >= 0 && !inj->using_clone)
		close(inj->fd);
	if (inj->slots_fd >= 0)
		close(inj->slots_fd);
	inj->fd = -1;
	inj->slots_fd = -1;
	inj->using_clone = 0;
	inj->fd_path[0] = '\0';
}

void
inject__drop_clone(struct inject *inj)
{
	if (!inj->clone)
		return;
	if (inj->using_clone)
		inject__close_device(inj);
	log_info("removing the clone \"%s\" of '%s'",
		 inject_uinput_name(inj->clone),
		 inject_uinput_screen(inj->clone));
	inject_uinput_free(inj->clone);
	inj->clone = NULL;
	if (inj->inited)
		pthread_mutex_lock(&inj->mu);
	inj->clone_node[0] = '\0';
	inj->clone_why[0] = '\0';
	if (inj->inited)
		pthread_mutex_unlock(&inj->mu);
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
read_caps(struct inject *inj, int fd)
{
	unsigned long keys[KEY_MAX / (8 * sizeof(unsigned long)) + 1];
	unsigned long abs[ABS_MAX / (8 * sizeof(unsigned long)) + 1];
	struct input_absinfo ai;
	int version;

	memset(&inj->caps, 0, sizeof(inj->caps));
	inj->nslots = 1;
	inj->is_evdev = ioctl(fd, EVIOCGVERSION, &version) == 0;
	if (!inj->is_evdev)
		return;
	memset(keys, 0, sizeof(keys));
	memset(abs, 0, sizeof(abs));
	if (ioctl(fd, EVIOCGBIT(EV_KEY, sizeof(keys)), keys) >= 0)
		inj->caps.btn_touch = bit_set(keys, BTN_TOUCH);
	if (ioctl(fd, EVIOCGBIT(EV_ABS, sizeof(abs)), abs) < 0)
		return;
	inj->caps.abs_xy = bit_set(abs, ABS_X) && bit_set(abs, ABS_Y);
	if (bit_set(abs, ABS_MT_PRESSURE) &&
	    ioctl(fd, EVIOCGABS(ABS_MT_PRESSURE), &ai) == 0) {
		inj->caps.pressure = 1;
		inj->caps.pressure_value =
			ai.minimum + (ai.maximum - ai.minimum) / 2;
	}
	if (bit_set(abs, ABS_MT_TOUCH_MAJOR) &&
	    ioctl(fd, EVIOCGABS(ABS_MT_TOUCH_MAJOR), &ai) == 0) {
		inj->caps.touch_major = 1;
		inj->caps.major_value =
			ai.minimum + (ai.maximum - ai.minimum) / 8;
	}
	if (bit_set(abs, ABS_MT_SLOT) &&
	    ioctl(fd, EVIOCGABS(ABS_MT_SLOT), &ai) == 0 && ai.maximum >= 0 &&
	    ai.maximum < TOUCH_MAX_SLOTS)
		inj->nslots = ai.maximum + 1;
	else if (bit_set(abs, ABS_MT_SLOT))
		inj->nslots = TOUCH_MAX_SLOTS;
}

static int
open_device(struct inject *inj, const char *path)
{
	int fd;

	if (inj->fd >= 0 && !inj->using_clone &&
	    strcmp(inj->fd_path, path) == 0)
		return 0;
	inject__close_device(inj);
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
	read_caps(inj, fd);
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

/*
 * The lowest slot no contact holds now: the kernel's view, else ours.
 * Through the clone, the highest slot the screen's contacts leave free:
 * the input source reads both into one tracker, where a finger landing
 * on the screen meanwhile takes a low slot.
 */
static int32_t
free_slot(struct inject *inj)
{
	struct input_mt_request_layout {
		uint32_t code;
		int32_t values[TOUCH_MAX_SLOTS];
	} req;
	int fd = inj->using_clone ? inj->slots_fd : inj->fd;
	int32_t s;

	memset(&req, 0, sizeof(req));
	req.code = ABS_MT_TRACKING_ID;
	if (inj->is_evdev && fd >= 0 &&
	    ioctl(fd, EVIOCGMTSLOTS(sizeof(req)), &req) >= 0) {
		for (s = 0; s < inj->nslots; s++) {
			int32_t k = inj->using_clone ? inj->nslots - 1 - s : s;

			if (req.values[k] < 0)
				return k;
		}
	}
	return inj->using_clone ? inj->nslots - 1 : 0;
}

static const char *
base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Whether the input source reads node now. */
static int
is_read(struct inject *inj, const char *node)
{
	int yes;

	pthread_mutex_lock(&inj->mu);
	yes = node && inj->clone_read[0] &&
	      strcmp(base_name(inj->clone_read), base_name(node)) == 0;
	pthread_mutex_unlock(&inj->mu);
	return yes;
}

/*
 * Waits until the input source reads node (its clone_read, by the node's
 * name: the source may see /dev/input through a sysroot), for at most
 * INJECT_CLONE_WAIT_MS: what is written before would never be read.
 */
static int
wait_read(struct inject *inj, const char *node)
{
	int64_t deadline = inject__now_ns() + INJECT_CLONE_WAIT_MS * NS_PER_MS;
	struct timespec ts;
	int rc = 0;

	pthread_mutex_lock(&inj->mu);
	while (!inj->clone_read[0] ||
	       strcmp(base_name(inj->clone_read), base_name(node)) != 0) {
		int64_t t;

		if (inj->stop) {
			rc = -ESHUTDOWN;
			break;
		}
		if (inject__now_ns() >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		t = (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec + 50 * NS_PER_MS;
		ts.tv_sec = (time_t)(t / NS_PER_S);
		ts.tv_nsec = (long)(t % NS_PER_S);
		pthread_cond_timedwait(&inj->work, &inj->mu, &ts);
	}
	pthread_mutex_unlock(&inj->mu);
	return rc;
}

/*
 * Makes the clone of screen the device written, made once and kept while
 * screen is the target; reason says why it is used.
 */
static int
use_clone(struct inject *inj, const char *screen, const char *reason)
{
	const char *node;
	int fd, rc;

	if (inj->using_clone &&
	    strcmp(inject_uinput_screen(inj->clone), screen) == 0 &&
	    is_read(inj, inject_uinput_devnode(inj->clone)))
		return 0;
	if (inj->clone && strcmp(inject_uinput_screen(inj->clone), screen) != 0)
		inject__drop_clone(inj);
	/*
	 * The source finds a clone when its node appears: one it no longer
	 * reads (the screen went and came back) is made anew.
	 */
	if (inj->clone && !is_read(inj, inject_uinput_devnode(inj->clone)))
		inject__drop_clone(inj);
	inject__close_device(inj);
	if (!inj->clone) {
		rc = inject_uinput_new(screen, inj->uinput, &inj->clone,
				       inj->why, sizeof(inj->why));
		if (rc < 0)
			return rc;
		node = inject_uinput_devnode(inj->clone);
		log_info("made \"%s\" at '%s', a uinput clone of '%s' (%s)",
			 inject_uinput_name(inj->clone), node ? node : "?",
			 screen, reason);
		pthread_mutex_lock(&inj->mu);
		snprintf(inj->clone_node, sizeof(inj->clone_node), "%s",
			 node ? node : "");
		snprintf(inj->clone_why, sizeof(inj->clone_why), "%s", reason);
		pthread_mutex_unlock(&inj->mu);
	}
	node = inject_uinput_devnode(inj->clone);
	if (!node) {
		snprintf(inj->why, sizeof(inj->why),
			 "cannot find the node of the clone of '%s'", screen);
		inject__drop_clone(inj);
		return -ENODEV;
	}
	rc = wait_read(inj, node);
	if (rc < 0) {
		snprintf(inj->why, sizeof(inj->why),
			 "the input source does not read the clone '%s' of "
			 "'%s'",
			 node, screen);
		inject__drop_clone(inj);
		return rc;
	}
	/* Its capabilities are the screen's: read from the screen. */
	fd = open(screen, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(inj->why, sizeof(inj->why), "cannot open '%s': %s",
			 screen, strerror(-rc));
		return rc;
	}
	read_caps(inj, fd);
	inj->slots_fd = fd;
	inj->fd = inject_uinput_fd(inj->clone);
	inj->using_clone = 1;
	snprintf(inj->fd_path, sizeof(inj->fd_path), "%s", node);
	inj->why[0] = '\0';
	return 0;
}

/*
 * The device to write for the screen path: its node, or its clone with
 * --inject-via uinput or once the node refused (auto).  A given file is
 * always written itself.
 */
static int
open_target(struct inject *inj, const char *path)
{
	char why[INJECT_WHY_MAX];
	int rc;

	if (!inj->device && inj->via == INJECT_VIA_UINPUT)
		return use_clone(inj, path, "--inject-via uinput");
	if (!inj->device && inj->clone &&
	    strcmp(inject_uinput_screen(inj->clone), path) == 0) {
		/* A copy: a clone made anew clears the one it had. */
		snprintf(why, sizeof(why), "%s", inj->clone_why);
		return use_clone(inj, path, why);
	}
	if (inj->clone)
		inject__drop_clone(inj);
	rc = open_device(inj, path);
	if (rc < 0 && !inj->device && inj->via == INJECT_VIA_AUTO &&
	    inject_uinput_refusal(rc)) {
		snprintf(why, sizeof(why), "%s", inj->why);
		return use_clone(inj, path, why);
	}
	return rc;
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

	rc = open_target(inj, path);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&inj->mu);
	s = inject__rec_of(inj, id);
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
again:
	r.slot = free_slot(inj);
	pthread_mutex_lock(&inj->mu);
	r.tid = inj->next_tid;
	inj->next_tid = inj->next_tid == INJECT_TID_LAST ? INJECT_TID_FIRST
							 : inj->next_tid + 1;
	s->r.slot = r.slot;
	s->r.tid = r.tid;
	s->r.raw_x = r.raw_x;
	s->r.raw_y = r.raw_y;
	s->r.first_before_ns = inject__now_ns();
	pthread_mutex_unlock(&inj->mu);
	rc = write_frame(inj, INJECT_SEQ_DOWN, &r, r.raw_x, r.raw_y);
	pthread_mutex_lock(&inj->mu);
	s->r.first_after_ns = inject__now_ns();
	t0 = s->r.first_before_ns;
	pthread_mutex_unlock(&inj->mu);
	/*
	 * The node refused the down (nothing of it went in): the gesture
	 * starts again on the clone, with brackets of its own.
	 */
	if (rc < 0 && !inj->device && !inj->using_clone &&
	    inj->via == INJECT_VIA_AUTO && inject_uinput_refusal(rc)) {
		char why[INJECT_WHY_MAX];

		snprintf(why, sizeof(why), "%s", inj->why);
		rc = use_clone(inj, path, why);
		if (rc < 0)
			return rc;
		goto again;
	}
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
	s->r.final_before_ns = inject__now_ns();
	pthread_mutex_unlock(&inj->mu);
	/* The contact is ended even after a failed move. */
	{
		int urc = write_frame(inj, INJECT_SEQ_UP, &r, 0, 0);

		if (rc == 0)
			rc = urc;
	}
	pthread_mutex_lock(&inj->mu);
	s->r.final_after_ns = inject__now_ns();
	pthread_mutex_unlock(&inj->mu);
	return rc;
}

void *
inject__worker(void *arg)
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
		s = inject__rec_of(inj, id);
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
			inject__close_device(inj);
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
