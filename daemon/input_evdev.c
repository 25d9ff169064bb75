/*
 * Live touch input through libevdev.  The object is a small state machine
 * around one device slot: either a device is open (its fd in the epoll
 * set, its events read in dispatch) or the source waits for one, scanning
 * the directory whenever inotify or the timer says something changed.
 *
 * The timerfd serves three deadlines, only while no device is open:
 * retrying nodes that could not be opened yet (every 100 ms for 2 s), the
 * watch of a missing directory (every 500 ms), and the rescan after a read
 * error (1 s, so a device that keeps failing cannot spin the loop).  It
 * also fires at once when a device opened by input_evdev_new() still has
 * to be reported: the added callback only exists in dispatch.
 *
 * This part reads the current device and holds the object; the scan and
 * the hotplug are in input_evdev_scan.c, the opening of one node in
 * input_evdev_open.c and the health detail in input_evdev_health.c.
 */
#include "input_evdev.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libevdev/libevdev.h>

#include "input_evdev_clone.h"
#include "input_evdev_health.h"
#include "input_evdev_int.h"
#include "input_evdev_scan.h"
#include "log.h"
#include "loop.h"
#include "status.h"

/*
 * The kernel writes each event as two kernel longs of time (seconds and
 * microseconds), then type, code and value: 24 bytes for a 64-bit process
 * and 16 for a 32-bit one.  A 32-bit libc with a 64-bit time_t (musl, which
 * defines __USE_TIME_BITS64) gets a struct timeval of 16 bytes that would
 * no longer match, so linux/input.h then lays the time out as __sec and
 * __usec instead; input_event_sec and input_event_usec name the fields of
 * either layout, and nothing here may use ev->time.  A header that got it
 * wrong would shift every event read after the first.
 */
_Static_assert(sizeof(struct input_event) == 2 * sizeof(__kernel_ulong_t) + 8,
	       "struct input_event differs from what the kernel writes");
_Static_assert(offsetof(struct input_event, type) ==
		       2 * sizeof(__kernel_ulong_t),
	       "struct input_event has its time fields out of place");
_Static_assert(sizeof(struct input_event) == (sizeof(long) == 8 ? 24 : 16),
	       "struct input_event is neither the 32-bit nor the 64-bit size");

static int
evdev_join(char *buf, size_t size, const char *a, const char *b)
{
	int n;

	n = snprintf(buf, size, "%s%s", a, b);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* Sets the timer to the earliest deadline that applies, or stops it. */
static void
evdev_rearm(struct input_evdev *ie, int64_t now)
{
	struct itimerspec its;
	int64_t when = INT64_MAX, d;

	if (ie->announce || (ie->read_again && ie->dev != NULL))
		when = now;
	if (ie->dev == NULL) {
		if (ie->npending > 0 && ie->retry_at < when)
			when = ie->retry_at;
		if (ie->wd < 0 && ie->poll_at < when)
			when = ie->poll_at;
		if (ie->rescan_at != 0 && ie->rescan_at < when)
			when = ie->rescan_at;
	}
	memset(&its, 0, sizeof(its));
	if (when != INT64_MAX) {
		d = when - now;
		/* A zero it_value would stop the timer, not fire it. */
		if (d < 1)
			d = 1;
		its.it_value.tv_sec = d / 1000000000LL;
		its.it_value.tv_nsec = d % 1000000000LL;
	}
	if (timerfd_settime(ie->tfd, 0, &its, NULL) != 0)
		log_warn("cannot set the timer of '%s'", ie->dir);
}

/* Calls the added callback for a device not reported yet. */
static void
evdev_announce(struct input_evdev *ie, const struct input_evdev_callbacks *cb,
	       void *ctx)
{
	if (!ie->announce || ie->dev == NULL)
		return;
	ie->announce = 0;
	ie->warned_back = 0;
	ie->st.devices_added++;
	if (cb != NULL && cb->added != NULL)
		cb->added(ctx, ie->path, ie->name);
}

/*
 * Closes the current device after it went away (err -ENODEV) or failed
 * (another negative errno) and tells the caller.
 */
static void
evdev_drop(struct input_evdev *ie, const struct input_evdev_callbacks *cb,
	   void *ctx, int err, int64_t now)
{
	if (err == -ENODEV) {
		log_info("touch screen '%s' \"%s\" removed", ie->path,
			 ie->name);
		input_evdev_health_set_why(ie, "'%s' removed", ie->path);
		ie->need_scan = 1;
	} else {
		log_warnx("cannot read '%s' \"%s\": %s; closed it", ie->path,
			  ie->name, strerror(-err));
		input_evdev_health_set_why(ie, "cannot read '%s': %s", ie->path,
					   strerror(-err));
		ie->rescan_at = now + EVDEV_ERROR_BACKOFF_NS;
	}
	/* A clone of the screen goes with it. */
	input_evdev_clone_close(ie);
	(void)epoll_ctl(ie->epfd, EPOLL_CTL_DEL, ie->dfd, NULL);
	libevdev_free(ie->dev);
	close(ie->dfd);
	ie->dev = NULL;
	ie->dfd = -1;
	ie->read_again = 0;
	/* A device never reported goes unreported. */
	if (ie->announce) {
		ie->announce = 0;
	} else {
		ie->st.devices_removed++;
		if (cb != NULL && cb->removed != NULL)
			cb->removed(ctx, ie->path);
	}
	ie->path[0] = '\0';
	ie->name[0] = '\0';
	input_evdev_health_down(ie);
}

int64_t
input_evdev_clamp_time(int64_t *last_ns, int64_t t_ns)
{
	if (t_ns < *last_ns)
		return *last_ns;
	*last_ns = t_ns;
	return t_ns;
}

/* Seconds and microseconds, as getevent writes its stamps. */
#define STAMP(ns)                                                              \
	(long long)((ns) / 1000000000), (long)((ns) % 1000000000 / 1000)

static int
evdev_deliver(struct input_evdev *ie, const struct input_evdev_callbacks *cb,
	      void *ctx, const struct input_event *ev)
{
	return input_evdev__deliver(ie, cb, ctx, ev, 0);
}

int
input_evdev__deliver(struct input_evdev *ie,
		     const struct input_evdev_callbacks *cb, void *ctx,
		     const struct input_event *ev, int from)
{
	struct libevdev *dev = from ? ie->cdev : ie->dev;
	struct touch_event te;
	int64_t t;
	int r;

	t = (int64_t)ev->input_event_sec * 1000000000LL +
	    (int64_t)ev->input_event_usec * 1000LL;
	te.time_ns = input_evdev_clamp_time(&ie->last_ns, t);
	if (te.time_ns != t) {
		ie->st.backwards++;
		if (!ie->warned_back)
			log_warnx("'%s': time goes back %lld.%06ld s (from "
				  "%lld.%06ld to %lld.%06ld); its events are "
				  "given the time of the last one until it "
				  "catches up",
				  ie->path, STAMP(te.time_ns - t),
				  STAMP(te.time_ns), STAMP(t));
		ie->warned_back = 1;
	}
	/*
	 * The screen and its clone share one tracker, and protocol B leaves
	 * out the slot while it does not change: when the other device
	 * spoke last, its slot is said first.  Both write whole frames,
	 * which the kernel queues whole, so this comes between frames.
	 */
	if (from != ie->last_from && dev != NULL &&
	    libevdev_has_event_code(dev, EV_ABS, ABS_MT_SLOT) &&
	    !(ev->type == EV_ABS && ev->code == ABS_MT_SLOT) && cb != NULL &&
	    cb->event != NULL) {
		te.type = EV_ABS;
		te.code = ABS_MT_SLOT;
		te.value = libevdev_get_current_slot(dev);
		r = cb->event(ctx, &te);
		if (r < 0)
			return r;
	}
	ie->last_from = from;
	te.type = ev->type;
	te.code = ev->code;
	te.value = ev->value;
	ie->st.events++;
	if (cb == NULL || cb->event == NULL)
		return 0;
	return cb->event(ctx, &te);
}

/*
 * Reads everything the device has queued.  Returns 0, or a callback's
 * negative errno.  A device that is gone or fails is dropped here.
 */
static int
evdev_read(struct input_evdev *ie, const struct input_evdev_callbacks *cb,
	   void *ctx, int hangup, int64_t now)
{
	struct input_event ev, rep;
	int rc, r;

	for (;;) {
		rc = libevdev_next_event(ie->dev, LIBEVDEV_READ_FLAG_NORMAL,
					 &ev);
		if (rc == LIBEVDEV_READ_STATUS_SUCCESS) {
			r = evdev_deliver(ie, cb, ctx, &ev);
			if (r < 0)
				return r;
			continue;
		}
		if (rc == -EAGAIN)
			break;
		if (rc != LIBEVDEV_READ_STATUS_SYNC)
			goto lost;
		/*
		 * The kernel's queue overflowed.  The tracker wants the
		 * SYN_DROPPED, then a SYN_REPORT to end the frame it throws
		 * away; libevdev's resync then comes as one ordinary frame
		 * ending in its own SYN_REPORT, so contacts that ended during
		 * the drop end there.
		 */
		ie->st.syn_dropped++;
		log_debug("'%s': the kernel dropped events, resyncing",
			  ie->path);
		r = evdev_deliver(ie, cb, ctx, &ev);
		if (r < 0)
			return r;
		rep = ev;
		rep.type = EV_SYN;
		rep.code = SYN_REPORT;
		rep.value = 0;
		r = evdev_deliver(ie, cb, ctx, &rep);
		if (r < 0)
			return r;
		for (;;) {
			rc = libevdev_next_event(ie->dev,
						 LIBEVDEV_READ_FLAG_SYNC, &ev);
			if (rc != LIBEVDEV_READ_STATUS_SYNC)
				break;
			r = evdev_deliver(ie, cb, ctx, &ev);
			if (r < 0)
				return r;
		}
		if (rc != -EAGAIN)
			goto lost;
	}
	/* Everything queued was read; a hang-up means it was the last. */
	if (hangup)
		evdev_drop(ie, cb, ctx, -ENODEV, now);
	return 0;
lost:
	evdev_drop(ie, cb, ctx, rc, now);
	return 0;
}

int
input_evdev_dispatch(struct input_evdev *ie,
		     const struct input_evdev_callbacks *cb, void *ctx)
{
	struct epoll_event evs[4];
	uint32_t dev_events = 0, clone_events = 0;
	int n, i, inotify = 0, timer = 0, r = 0;
	int64_t now;

	if (ie == NULL)
		return -EINVAL;
	n = epoll_wait(ie->epfd, evs, 4, 0);
	if (n < 0) {
		if (errno != EINTR)
			return -errno;
		n = 0;
	}
	for (i = 0; i < n; i++) {
		switch (evs[i].data.u32) {
		case EVDEV_TAG_INOTIFY:
			inotify = 1;
			break;
		case EVDEV_TAG_TIMER:
			timer = 1;
			break;
		case EVDEV_TAG_DEVICE:
			dev_events = evs[i].events;
			break;
		case EVDEV_TAG_CLONE:
			clone_events = evs[i].events;
			break;
		default:
			break;
		}
	}
	now = loop_now_ns();
	/* A device is always reported before its first event. */
	evdev_announce(ie, cb, ctx);
	if (ie->dev != NULL && (dev_events != 0 || ie->read_again)) {
		ie->read_again = 0;
		r = evdev_read(ie, cb, ctx,
			       (dev_events & (EPOLLHUP | EPOLLERR)) != 0, now);
		if (r < 0) {
			ie->read_again = 1;
			goto out;
		}
	}
	if (ie->cdev != NULL && clone_events != 0) {
		r = input_evdev_clone_read(
			ie, cb, ctx,
			(clone_events & (EPOLLHUP | EPOLLERR)) != 0);
		if (r < 0)
			goto out;
	}
	if (inotify)
		input_evdev_scan_inotify(ie, now);
	if (timer)
		input_evdev_scan_timer(ie, now);
	if (ie->need_scan)
		input_evdev_scan(ie, now);
	evdev_announce(ie, cb, ctx);
out:
	evdev_rearm(ie, now);
	return r;
}

int
input_evdev_new(const struct input_evdev_config *cfg, struct input_evdev **out)
{
	struct input_evdev *ie = NULL;
	struct epoll_event ee;
	char full[PATH_MAX];
	const char *sysroot, *ignore, *slash, *base;
	size_t dlen;
	int r;

	if (cfg == NULL || out == NULL)
		return -EINVAL;
	if (cfg->device != NULL &&
	    (cfg->device[0] == '\0' ||
	     cfg->device[strlen(cfg->device) - 1] == '/')) {
		log_warnx("cannot use input device '%s': not a device path",
			  cfg->device);
		return -EINVAL;
	}
	ie = calloc(1, sizeof(*ie));
	if (ie == NULL)
		return -ENOMEM;
	ie->epfd = ie->tfd = ie->ifd = ie->wd = ie->dfd = ie->cfd = -1;
	ie->status = cfg->status;
	ie->last_ns = INT64_MIN;

	sysroot = cfg->sysroot != NULL ? cfg->sysroot : "";
	ignore = cfg->ignore_prefix != NULL ? cfg->ignore_prefix
					    : EVDEV_DEFAULT_IGNORE;
	if (strlen(ignore) >= sizeof(ie->ignore)) {
		log_warnx("cannot use ignore prefix '%s': longer than %zu",
			  ignore, sizeof(ie->ignore) - 1);
		r = -ENAMETOOLONG;
		goto out;
	}
	memcpy(ie->ignore, ignore, strlen(ignore) + 1);
	if (cfg->device != NULL) {
		r = evdev_join(full, sizeof(full), sysroot, cfg->device);
		if (r < 0) {
			log_warnx("cannot use input device '%s%s': path too "
				  "long",
				  sysroot, cfg->device);
			goto out;
		}
		slash = strrchr(full, '/');
		if (slash == NULL) {
			memcpy(ie->dir, ".", 2);
			base = full;
		} else {
			dlen = slash == full ? 1 : (size_t)(slash - full);
			memcpy(ie->dir, full, dlen);
			ie->dir[dlen] = '\0';
			base = slash + 1;
		}
		if (strlen(base) >= sizeof(ie->only)) {
			log_warnx("cannot use input device '%s': name too "
				  "long",
				  full);
			r = -ENAMETOOLONG;
			goto out;
		}
		memcpy(ie->only, base, strlen(base) + 1);
	} else {
		r = evdev_join(ie->dir, sizeof(ie->dir), sysroot, "/dev/input");
		if (r < 0) {
			log_warnx("cannot use sysroot '%s': path too long",
				  sysroot);
			goto out;
		}
	}

	ie->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ie->epfd < 0) {
		r = -errno;
		log_warn("cannot create an epoll fd for '%s'", ie->dir);
		goto out;
	}
	ie->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (ie->tfd < 0) {
		r = -errno;
		log_warn("cannot create a timer for '%s'", ie->dir);
		goto out;
	}
	memset(&ee, 0, sizeof(ee));
	ee.events = EPOLLIN;
	ee.data.u32 = EVDEV_TAG_TIMER;
	if (epoll_ctl(ie->epfd, EPOLL_CTL_ADD, ie->tfd, &ee) != 0) {
		r = -errno;
		log_warn("cannot poll the timer of '%s'", ie->dir);
		goto out;
	}
	/*
	 * Without inotify the source still works: it rescans on the timer,
	 * as it does while the directory is missing.
	 */
	ie->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ie->ifd < 0) {
		log_warn("cannot watch '%s' for new devices; polling instead",
			 ie->dir);
	} else {
		ee.data.u32 = EVDEV_TAG_INOTIFY;
		if (epoll_ctl(ie->epfd, EPOLL_CTL_ADD, ie->ifd, &ee) != 0) {
			log_warn("cannot poll the watch of '%s'; polling "
				 "instead",
				 ie->dir);
			close(ie->ifd);
			ie->ifd = -1;
		}
	}
	input_evdev_scan_watch(ie);
	ie->poll_at = loop_now_ns() + EVDEV_POLL_EVERY_NS;
	input_evdev_scan(ie, loop_now_ns());
	evdev_rearm(ie, loop_now_ns());
	*out = ie;
	ie = NULL;
	r = 0;
out:
	input_evdev_free(ie);
	return r;
}

void
input_evdev_free(struct input_evdev *ie)
{
	if (ie == NULL)
		return;
	input_evdev_clone_close(ie);
	libevdev_free(ie->dev);
	if (ie->dfd >= 0)
		close(ie->dfd);
	if (ie->ifd >= 0)
		close(ie->ifd);
	if (ie->tfd >= 0)
		close(ie->tfd);
	if (ie->epfd >= 0)
		close(ie->epfd);
	free(ie);
}

int
input_evdev_fd(const struct input_evdev *ie)
{
	return ie != NULL ? ie->epfd : -EINVAL;
}

int
input_evdev_axis(const struct input_evdev *ie, uint16_t code, int32_t *min,
		 int32_t *max)
{
	const struct input_absinfo *ai;

	if (ie == NULL || ie->dev == NULL)
		return -ENODEV;
	ai = libevdev_get_abs_info(ie->dev, code);
	if (ai == NULL)
		return -ENOENT;
	if (min != NULL)
		*min = ai->minimum;
	if (max != NULL)
		*max = ai->maximum;
	return 0;
}

const char *
input_evdev_path(const struct input_evdev *ie)
{
	return ie != NULL && ie->dev != NULL ? ie->path : NULL;
}

const char *
input_evdev_clone_path(const struct input_evdev *ie)
{
	return ie != NULL && ie->cdev != NULL ? ie->cpath : NULL;
}

const char *
input_evdev_name(const struct input_evdev *ie)
{
	return ie != NULL && ie->dev != NULL ? ie->name : NULL;
}

void
input_evdev_get_stats(const struct input_evdev *ie,
		      struct input_evdev_stats *st)
{
	if (st == NULL)
		return;
	if (ie == NULL) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = ie->st;
}
