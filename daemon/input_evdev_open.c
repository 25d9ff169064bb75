/*
 * One node of the libevdev source opened and judged: its clock set, its
 * queue drained, its capabilities read, and by Android's rules a touch
 * screen or not.
 */
#include "input_evdev_open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libevdev/libevdev.h>

#include "input_evdev_health.h"
#include "log.h"

static int
evdev_any_key(const struct libevdev *dev, unsigned from, unsigned to)
{
	unsigned c;

	for (c = from; c < to; c++) {
		if (libevdev_has_event_code(dev, EV_KEY, c))
			return 1;
	}
	return 0;
}

enum input_evdev_class
input_evdev_classify(const struct libevdev *dev)
{
	int gamepad, touch = 0;

	if (dev == NULL)
		return INPUT_EVDEV_OTHER;
	/*
	 * EventHub's test: some joysticks (the PS3 controller) report axes
	 * that collide with the ABS_MT range, so multitouch axes count only
	 * with BTN_TOUCH or without joystick buttons.  Its ranges end before
	 * their second bound: BTN_MOUSE and BTN_DIGI are not in them.
	 */
	gamepad = evdev_any_key(dev, BTN_MISC, BTN_MOUSE) ||
		  evdev_any_key(dev, BTN_JOYSTICK, BTN_DIGI);
	if (libevdev_has_event_code(dev, EV_ABS, ABS_MT_POSITION_X) &&
	    libevdev_has_event_code(dev, EV_ABS, ABS_MT_POSITION_Y)) {
		touch = libevdev_has_event_code(dev, EV_KEY, BTN_TOUCH) ||
			!gamepad;
	} else if (libevdev_has_event_code(dev, EV_KEY, BTN_TOUCH) &&
		   libevdev_has_event_code(dev, EV_ABS, ABS_X) &&
		   libevdev_has_event_code(dev, EV_ABS, ABS_Y)) {
		touch = 1;
	}
	if (!touch)
		return INPUT_EVDEV_OTHER;
	/* TouchInputMapper: only INPUT_PROP_DIRECT makes a touch screen. */
	if (libevdev_has_property(dev, INPUT_PROP_DIRECT))
		return INPUT_EVDEV_TOUCHSCREEN;
	return INPUT_EVDEV_TOUCHPAD;
}

/* Whether a device is one of the daemon's own, by name, phys or uniq. */
static int
evdev_is_ours(const struct input_evdev *ie, const struct libevdev *dev)
{
	const char *s[3];
	size_t len = strlen(ie->ignore);
	unsigned i;

	if (len == 0)
		return 0;
	s[0] = libevdev_get_name(dev);
	s[1] = libevdev_get_phys(dev);
	s[2] = libevdev_get_uniq(dev);
	for (i = 0; i < 3; i++) {
		if (s[i] != NULL && strncmp(s[i], ie->ignore, len) == 0)
			return 1;
	}
	return 0;
}

/* Errors of open() that a node being set up by udev may show for a while. */
static int
evdev_retryable(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
	case ENOENT:
	case ENXIO:
	case ENODEV:
	case EBUSY:
	case EAGAIN:
	case EINTR:
		return 1;
	default:
		return 0;
	}
}

/*
 * Throws away what the kernel queued between open() and now, as libevdev
 * asks: its state is read afresh by libevdev_set_fd().  Returns 0 or a
 * negative errno (-ENODEV when the device is already gone).
 */
static int
evdev_drain(int fd)
{
	struct input_event buf[EVDEV_DRAIN_MAX];
	unsigned rounds;
	ssize_t n;

	/* Bounded: a device that never stops talking is drained enough. */
	for (rounds = 0; rounds < 64; rounds++) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0)
			continue;
		if (n == 0 || errno == EAGAIN)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/*
 * Opens the node name in dir and makes it the current device if it is a
 * touch screen (or, when it was given, any touch device).  Returns 0 when
 * it became the current device; -ENOTSUP when it is not wanted; -ENOENT
 * when there is no such node; another negative errno when it could not be
 * set up, with *retry set when open() failed in a way that may pass.
 * Failures that are final are logged and counted here.
 */
int
input_evdev_open_try(struct input_evdev *ie, const char *name, int *retry)
{
	char path[PATH_MAX];
	struct libevdev *dev = NULL;
	struct epoll_event ee;
	struct stat sb;
	enum input_evdev_class cls;
	const char *dname;
	int clk = CLOCK_MONOTONIC;
	int fd = -1, r, given = ie->only[0] != '\0';

	*retry = 0;
	r = snprintf(path, sizeof(path), "%s/%s", ie->dir, name);
	if (r < 0 || (size_t)r >= sizeof(path)) {
		log_warnx("cannot open '%s/%s': path too long", ie->dir, name);
		ie->st.open_failures++;
		r = -ENAMETOOLONG;
		goto out;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		/*
		 * Gone (or not there yet): nothing to retry, inotify tells
		 * when it comes.  A link to nowhere is retried: udev may be
		 * making its target.
		 */
		if (r == -ENOENT && lstat(path, &sb) != 0) {
			log_debug("no '%s'", path);
			goto out;
		}
		input_evdev_health_given_why(ie, "cannot open '%s': %s", path,
					     strerror(-r));
		input_evdev_health_denied(ie, name, path, -r);
		if (evdev_retryable(-r)) {
			log_debug("cannot open '%s' yet: %s", path,
				  strerror(-r));
			*retry = 1;
		} else {
			log_warnx("cannot open '%s': %s", path, strerror(-r));
			ie->st.open_failures++;
		}
		goto out;
	}
	input_evdev_health_denied_clear(ie, name);
	/*
	 * Before libevdev sees the fd: changing the clock later makes the
	 * kernel flush the queue and inject a SYN_DROPPED.  REALTIME stamps
	 * would jump with every clock step, so a device that refuses is not
	 * used at all.
	 */
	if (ioctl(fd, EVIOCSCLOCKID, &clk) != 0) {
		r = -errno;
		log_warnx("cannot set CLOCK_MONOTONIC on '%s': %s", path,
			  strerror(-r));
		input_evdev_health_given_why(
			ie, "cannot set CLOCK_MONOTONIC on '%s': %s", path,
			strerror(-r));
		ie->st.open_failures++;
		goto out;
	}
	r = evdev_drain(fd);
	if (r < 0) {
		log_warnx("cannot read '%s': %s", path, strerror(-r));
		input_evdev_health_given_why(ie, "cannot read '%s': %s", path,
					     strerror(-r));
		ie->st.open_failures++;
		goto out;
	}
	dev = libevdev_new();
	if (dev == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = libevdev_set_fd(dev, fd);
	if (r < 0) {
		log_warnx("cannot read the capabilities of '%s': %s", path,
			  strerror(-r));
		input_evdev_health_given_why(
			ie, "cannot read the capabilities of '%s': %s", path,
			strerror(-r));
		ie->st.open_failures++;
		goto out;
	}
	dname = libevdev_get_name(dev);
	if (evdev_is_ours(ie, dev)) {
		log_debug("skipping '%s' \"%s\": one of our own devices", path,
			  dname);
		input_evdev_health_given_why(
			ie, "'%s' is one of our own devices", path);
		r = -ENOTSUP;
		goto out;
	}
	cls = input_evdev_classify(dev);
	if (cls == INPUT_EVDEV_OTHER ||
	    (cls == INPUT_EVDEV_TOUCHPAD && !given)) {
		if (cls == INPUT_EVDEV_TOUCHPAD)
			log_debug("skipping '%s' \"%s\": touch axes without "
				  "INPUT_PROP_DIRECT, a touchpad or pointer",
				  path, dname);
		else if (given)
			log_warnx("cannot use '%s' \"%s\": not a touch device",
				  path, dname);
		else
			log_debug("skipping '%s' \"%s\": not a touch device",
				  path, dname);
		input_evdev_health_given_why(
			ie, "'%s' \"%s\" is not a touch device", path, dname);
		r = -ENOTSUP;
		goto out;
	}
	if (cls == INPUT_EVDEV_TOUCHPAD)
		log_warnx("'%s' \"%s\" lacks INPUT_PROP_DIRECT: a touchpad "
			  "to Android, read as a touch screen since it was "
			  "given",
			  path, dname);

	memset(&ee, 0, sizeof(ee));
	ee.events = EPOLLIN;
	ee.data.u32 = EVDEV_TAG_DEVICE;
	if (epoll_ctl(ie->epfd, EPOLL_CTL_ADD, fd, &ee) != 0) {
		r = -errno;
		log_warn("cannot poll '%s'", path);
		input_evdev_health_given_why(ie, "cannot poll '%s': %s", path,
					     strerror(-r));
		ie->st.open_failures++;
		goto out;
	}
	/* Fits: both buffers are PATH_MAX and path was built above. */
	memcpy(ie->path, path, sizeof(ie->path));
	(void)snprintf(ie->name, sizeof(ie->name), "%s", dname);
	ie->dfd = fd;
	ie->dev = dev;
	ie->announce = 1;
	ie->why[0] = '\0';
	input_evdev_health_denied_clear(ie, NULL);
	ie->npending = 0;
	ie->rescan_at = 0;
	fd = -1;
	dev = NULL;
	log_info("reading touch screen '%s' \"%s\" (%s, %d slots)", ie->path,
		 ie->name,
		 libevdev_has_event_code(ie->dev, EV_ABS, ABS_MT_POSITION_X)
			 ? "multitouch"
			 : "single-touch",
		 libevdev_get_num_slots(ie->dev));
	input_evdev_health_set(ie, STATUS_HEALTH_UP, "'%s' \"%s\"", ie->path,
			       ie->name);
	r = 0;
out:
	/* libevdev_free() leaves the fd open: it is closed here. */
	libevdev_free(dev);
	if (fd >= 0)
		close(fd);
	/* A given device's health tells why it is not read. */
	if (r < 0 && given)
		input_evdev_health_down(ie);
	return r;
}
