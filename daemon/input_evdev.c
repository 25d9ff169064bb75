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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libevdev/libevdev.h>

#include "input_evdev.h"
#include "log.h"
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

#define EVDEV_MS	       1000000LL
#define EVDEV_RETRY_EVERY_NS   (100 * EVDEV_MS)
#define EVDEV_RETRY_FOR_NS     (2000 * EVDEV_MS)
#define EVDEV_POLL_EVERY_NS    (500 * EVDEV_MS)
#define EVDEV_ERROR_BACKOFF_NS (1000 * EVDEV_MS)
#define EVDEV_PENDING_MAX      32
#define EVDEV_NODES_MAX	       1024
#define EVDEV_NUMBER_MAX       999999999ULL
#define EVDEV_DEFAULT_IGNORE   "tapd-"
#define EVDEV_IGNORE_MAX       64
#define EVDEV_NAME_MAX	       256
#define EVDEV_WHY_MAX	       160
#define EVDEV_DRAIN_MAX	       64
#define EVDEV_WATCH_MASK                                                       \
	(IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM |     \
	 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* What an epoll event is about. */
enum evdev_tag {
	EVDEV_TAG_INOTIFY = 1,
	EVDEV_TAG_TIMER,
	EVDEV_TAG_DEVICE,
};

/* A node that could not be opened yet, retried until first_ns + 2 s. */
struct evdev_pending {
	char name[NAME_MAX + 1];
	int64_t first_ns;
};

struct input_evdev {
	char dir[PATH_MAX];	 /* the directory watched and scanned */
	char only[NAME_MAX + 1]; /* the given device's node, "" to scan */
	char ignore[EVDEV_IGNORE_MAX];
	struct status *status;

	int epfd;
	int tfd;
	int ifd;
	int wd;	       /* the watch of dir, -1 when there is none */
	int watch_err; /* the last errno of inotify_add_watch(), not to repeat
			*/

	/* The current device, dfd -1 and dev NULL when none. */
	int dfd;
	struct libevdev *dev;
	char path[PATH_MAX];
	char name[EVDEV_NAME_MAX];
	int announce; /* opened, the added callback still to come */
	/*
	 * A callback failed: libevdev may still hold events it read, which
	 * the device fd no longer signals, so the next dispatch reads anyway.
	 */
	int read_again;

	/* Why there is no device, for the health detail. */
	char why[EVDEV_WHY_MAX];
	/*
	 * In a scan, the first node (or the directory, denied_name "") that
	 * could not be opened, and why: with no touch screen found, a node
	 * tapd cannot read may well be it (tapd without root), so the health
	 * names it.  Cleared when the node opens or goes, and by a new scan.
	 */
	char denied[EVDEV_WHY_MAX + PATH_MAX];
	char denied_name[NAME_MAX + 1];

	struct evdev_pending pending[EVDEV_PENDING_MAX];
	unsigned npending;
	int need_scan;
	int64_t retry_at;  /* next retry of pending nodes */
	int64_t poll_at;   /* next watch attempt while wd < 0 */
	int64_t rescan_at; /* deferred rescan after an error, 0 when none */

	struct input_evdev_stats st;
};

static int64_t
evdev_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

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

/* "event12" gives 0 and 12; anything else -EINVAL. */
static int
evdev_node_number(const char *name, unsigned *num)
{
	unsigned long long v;
	char *end;

	if (strncmp(name, "event", 5) != 0)
		return -EINVAL;
	name += 5;
	if (*name < '0' || *name > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(name, &end, 10);
	if (errno != 0 || *end != '\0' || v > EVDEV_NUMBER_MAX)
		return -EINVAL;
	*num = (unsigned)v;
	return 0;
}

/* Whether a node name in dir is one this source considers. */
static int
evdev_wanted(const struct input_evdev *ie, const char *name)
{
	unsigned num;

	if (ie->only[0] != '\0')
		return strcmp(name, ie->only) == 0;
	return evdev_node_number(name, &num) == 0;
}

static int
evdev_join(char *buf, size_t size, const char *a, const char *b)
{
	int n;

	n = snprintf(buf, size, "%s%s", a, b);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

static void evdev_set_why(struct input_evdev *ie, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
evdev_set_why(struct input_evdev *ie, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* A cut detail is still a useful one. */
	(void)vsnprintf(ie->why, sizeof(ie->why), fmt, ap);
	va_end(ap);
}

/* Sets the input source's health, when there is a status to tell. */
static void evdev_health(struct input_evdev *ie, enum status_health health,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
evdev_health(struct input_evdev *ie, enum status_health health, const char *fmt,
	     ...)
{
	char detail[EVDEV_WHY_MAX + PATH_MAX];
	va_list ap;

	if (ie->status == NULL)
		return;
	va_start(ap, fmt);
	/* The status cuts it shorter anyway. */
	(void)vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	status_set_source(ie->status, STATUS_SOURCE_INPUT, health, "evdev",
			  "%s", detail);
}

/* The same for a given device only: in a scan one node's story misleads. */
static void evdev_given_why(struct input_evdev *ie, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
evdev_given_why(struct input_evdev *ie, const char *fmt, ...)
{
	va_list ap;

	if (ie->only[0] == '\0')
		return;
	va_start(ap, fmt);
	(void)vsnprintf(ie->why, sizeof(ie->why), fmt, ap);
	va_end(ap);
}

static void
evdev_health_down(struct input_evdev *ie)
{
	if (ie->only[0] != '\0') {
		if (ie->why[0] != '\0')
			evdev_health(ie, STATUS_HEALTH_DOWN, "%s", ie->why);
		else
			evdev_health(ie, STATUS_HEALTH_DOWN,
				     "'%s/%s' not found", ie->dir, ie->only);
	} else {
		evdev_health(ie, STATUS_HEALTH_DOWN,
			     "%s%s%s%sno touch screen found under '%s'",
			     ie->why, ie->why[0] != '\0' ? ", " : "",
			     ie->denied, ie->denied[0] != '\0' ? ", " : "",
			     ie->dir);
	}
}

/* Remembers the first node of a scan that could not be opened. */
static void
evdev_denied(struct input_evdev *ie, const char *name, const char *path,
	     int err)
{
	if (ie->only[0] != '\0' || ie->denied[0] != '\0')
		return;
	(void)snprintf(ie->denied_name, sizeof(ie->denied_name), "%s", name);
	(void)snprintf(ie->denied, sizeof(ie->denied), "cannot open '%s': %s",
		       path, strerror(err));
}

/* Forgets the node remembered above once it opens or is gone. */
static void
evdev_denied_clear(struct input_evdev *ie, const char *name)
{
	if (name == NULL || strcmp(ie->denied_name, name) == 0) {
		ie->denied[0] = '\0';
		ie->denied_name[0] = '\0';
	}
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
static int
evdev_try(struct input_evdev *ie, const char *name, int *retry)
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
		evdev_given_why(ie, "cannot open '%s': %s", path, strerror(-r));
		evdev_denied(ie, name, path, -r);
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
	evdev_denied_clear(ie, name);
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
		evdev_given_why(ie, "cannot set CLOCK_MONOTONIC on '%s': %s",
				path, strerror(-r));
		ie->st.open_failures++;
		goto out;
	}
	r = evdev_drain(fd);
	if (r < 0) {
		log_warnx("cannot read '%s': %s", path, strerror(-r));
		evdev_given_why(ie, "cannot read '%s': %s", path, strerror(-r));
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
		evdev_given_why(ie, "cannot read the capabilities of '%s': %s",
				path, strerror(-r));
		ie->st.open_failures++;
		goto out;
	}
	dname = libevdev_get_name(dev);
	if (evdev_is_ours(ie, dev)) {
		log_debug("skipping '%s' \"%s\": one of our own devices", path,
			  dname);
		evdev_given_why(ie, "'%s' is one of our own devices", path);
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
		evdev_given_why(ie, "'%s' \"%s\" is not a touch device", path,
				dname);
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
		evdev_given_why(ie, "cannot poll '%s': %s", path, strerror(-r));
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
	evdev_denied_clear(ie, NULL);
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
	evdev_health(ie, STATUS_HEALTH_UP, "'%s' \"%s\"", ie->path, ie->name);
	r = 0;
out:
	/* libevdev_free() leaves the fd open: it is closed here. */
	libevdev_free(dev);
	if (fd >= 0)
		close(fd);
	/* A given device's health tells why it is not read. */
	if (r < 0 && given)
		evdev_health_down(ie);
	return r;
}

static void
evdev_pending_remove(struct input_evdev *ie, unsigned i)
{
	ie->npending--;
	if (i < ie->npending)
		ie->pending[i] = ie->pending[ie->npending];
}

static void
evdev_pending_forget(struct input_evdev *ie, const char *name)
{
	unsigned i;

	for (i = 0; i < ie->npending; i++) {
		if (strcmp(ie->pending[i].name, name) == 0) {
			evdev_pending_remove(ie, i);
			return;
		}
	}
}

/* Remembers a node to retry; one already waiting keeps its first time. */
static void
evdev_pending_add(struct input_evdev *ie, const char *name, int64_t now)
{
	struct evdev_pending *p;
	unsigned i;

	for (i = 0; i < ie->npending; i++) {
		if (strcmp(ie->pending[i].name, name) == 0)
			return;
	}
	if (ie->npending == EVDEV_PENDING_MAX) {
		log_warnx("cannot retry '%s/%s': %u nodes already waiting",
			  ie->dir, name, ie->npending);
		ie->st.open_failures++;
		return;
	}
	if (ie->npending == 0)
		ie->retry_at = now + EVDEV_RETRY_EVERY_NS;
	p = &ie->pending[ie->npending++];
	(void)snprintf(p->name, sizeof(p->name), "%s", name);
	p->first_ns = now;
}

/* Tries one node as a candidate, queueing it for retries if that may help. */
static int
evdev_consider(struct input_evdev *ie, const char *name, int64_t now)
{
	int r, retry;

	r = evdev_try(ie, name, &retry);
	if (r < 0 && retry)
		evdev_pending_add(ie, name, now);
	return r;
}

static int
evdev_cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* Looks for a device when there is none: the given node or every eventN. */
static void
evdev_scan(struct input_evdev *ie, int64_t now)
{
	unsigned *nums = NULL;
	unsigned n = 0, i, num, skipped = 0;
	char name[32];
	int err;
	struct dirent *de;
	DIR *d = NULL;

	ie->need_scan = 0;
	if (ie->dev != NULL)
		return;
	if (ie->only[0] != '\0') {
		(void)evdev_consider(ie, ie->only, now);
		goto out;
	}
	/* Every node is tried again: each tells its own story anew. */
	evdev_denied_clear(ie, NULL);
	d = opendir(ie->dir);
	if (d == NULL) {
		if (errno != ENOENT) {
			err = errno;
			log_warn("cannot scan '%s'", ie->dir);
			(void)snprintf(ie->denied, sizeof(ie->denied),
				       "cannot read '%s': %s", ie->dir,
				       strerror(err));
		}
		goto out;
	}
	nums = calloc(EVDEV_NODES_MAX, sizeof(*nums));
	if (nums == NULL) {
		log_warnx("cannot scan '%s': out of memory", ie->dir);
		goto out;
	}
	while ((de = readdir(d)) != NULL) {
		if (evdev_node_number(de->d_name, &num) != 0)
			continue;
		if (n == EVDEV_NODES_MAX) {
			skipped++;
			continue;
		}
		nums[n++] = num;
	}
	if (skipped > 0)
		log_warnx("cannot consider every node of '%s': %u over %d",
			  ie->dir, skipped, EVDEV_NODES_MAX);
	/* The lowest number first, so the choice does not depend on readdir. */
	qsort(nums, n, sizeof(*nums), evdev_cmp_unsigned);
	for (i = 0; i < n && ie->dev == NULL; i++) {
		(void)snprintf(name, sizeof(name), "event%u", nums[i]);
		(void)evdev_consider(ie, name, now);
	}
out:
	if (ie->dev == NULL) {
		if (ie->only[0] == '\0')
			log_debug("no touch screen under '%s'", ie->dir);
		evdev_health_down(ie);
	}
	free(nums);
	if (d != NULL)
		closedir(d);
}

static void
evdev_watch(struct input_evdev *ie)
{
	int err;

	if (ie->ifd < 0 || ie->wd >= 0)
		return;
	ie->wd = inotify_add_watch(ie->ifd, ie->dir, EVDEV_WATCH_MASK);
	if (ie->wd >= 0) {
		if (ie->watch_err != 0)
			log_info("watching '%s' again", ie->dir);
		ie->watch_err = 0;
		return;
	}
	err = errno;
	if (err != ie->watch_err) {
		if (err == ENOENT)
			log_info("cannot watch '%s': %s; polling for it",
				 ie->dir, strerror(err));
		else
			log_warnx("cannot watch '%s': %s; polling instead",
				  ie->dir, strerror(err));
	}
	ie->watch_err = err;
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
		evdev_set_why(ie, "'%s' removed", ie->path);
		ie->need_scan = 1;
	} else {
		log_warnx("cannot read '%s' \"%s\": %s; closed it", ie->path,
			  ie->name, strerror(-err));
		evdev_set_why(ie, "cannot read '%s': %s", ie->path,
			      strerror(-err));
		ie->rescan_at = now + EVDEV_ERROR_BACKOFF_NS;
	}
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
	evdev_health_down(ie);
}

static int
evdev_deliver(struct input_evdev *ie, const struct input_evdev_callbacks *cb,
	      void *ctx, const struct input_event *ev)
{
	struct touch_event te;

	te.time_ns = (int64_t)ev->input_event_sec * 1000000000LL +
		     (int64_t)ev->input_event_usec * 1000LL;
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

static void
evdev_inotify(struct input_evdev *ie, int64_t now)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	size_t off;

	for (;;) {
		n = read(ie->ifd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno != EAGAIN)
				log_warn("cannot read the watch of '%s'",
					 ie->dir);
			return;
		}
		if (n == 0)
			return;
		for (off = 0; off + sizeof(*ev) <= (size_t)n;
		     off += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(buf + off);
			if (off + sizeof(*ev) + ev->len > (size_t)n)
				break;
			if (ev->mask & IN_Q_OVERFLOW) {
				ie->need_scan = 1;
				continue;
			}
			if (ev->wd != ie->wd || ie->wd < 0)
				continue;
			if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF |
					IN_IGNORED | IN_UNMOUNT)) {
				/* The directory went away: poll for it. */
				if (!(ev->mask & IN_IGNORED))
					(void)inotify_rm_watch(ie->ifd, ie->wd);
				ie->wd = -1;
				ie->watch_err = 0;
				ie->poll_at = now + EVDEV_POLL_EVERY_NS;
				log_info("'%s' went away", ie->dir);
				continue;
			}
			if (ev->len == 0 || !evdev_wanted(ie, ev->name))
				continue;
			if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
				evdev_pending_forget(ie, ev->name);
				evdev_denied_clear(ie, ev->name);
				continue;
			}
			/* New, renamed here, or its permissions changed. */
			if (ie->dev == NULL)
				(void)evdev_consider(ie, ev->name, now);
		}
	}
}

/* Retries the nodes that could not be opened yet, giving up after 2 s. */
static void
evdev_retry(struct input_evdev *ie, int64_t now)
{
	struct evdev_pending p;
	unsigned i = 0;
	int r, retry;

	while (i < ie->npending && ie->dev == NULL) {
		p = ie->pending[i];
		r = evdev_try(ie, p.name, &retry);
		if (r == 0)
			break;
		if (retry && now - p.first_ns < EVDEV_RETRY_FOR_NS) {
			i++;
			continue;
		}
		if (retry) {
			log_warnx("cannot open '%s/%s': %s (gave up after "
				  "%lld ms)",
				  ie->dir, p.name, strerror(-r),
				  (long long)((now - p.first_ns) / EVDEV_MS));
			ie->st.open_failures++;
		}
		evdev_pending_remove(ie, i);
	}
	if (ie->dev != NULL)
		ie->npending = 0;
	ie->retry_at = now + EVDEV_RETRY_EVERY_NS;
	if (ie->dev == NULL)
		evdev_health_down(ie);
}

static void
evdev_timer(struct input_evdev *ie, int64_t now)
{
	uint64_t ticks;

	/* Only to clear its readiness: the deadlines say what is due. */
	(void)!read(ie->tfd, &ticks, sizeof(ticks));
	if (ie->dev != NULL)
		return;
	if (ie->wd < 0 && now >= ie->poll_at) {
		evdev_watch(ie);
		/* Nodes made before the watch existed were not announced. */
		ie->need_scan = 1;
		ie->poll_at = now + EVDEV_POLL_EVERY_NS;
	}
	if (ie->npending > 0 && now >= ie->retry_at)
		evdev_retry(ie, now);
	if (ie->rescan_at != 0 && now >= ie->rescan_at) {
		ie->rescan_at = 0;
		ie->need_scan = 1;
	}
}

int
input_evdev_dispatch(struct input_evdev *ie,
		     const struct input_evdev_callbacks *cb, void *ctx)
{
	struct epoll_event evs[4];
	uint32_t dev_events = 0;
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
		default:
			break;
		}
	}
	now = evdev_now();
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
	if (inotify)
		evdev_inotify(ie, now);
	if (timer)
		evdev_timer(ie, now);
	if (ie->need_scan)
		evdev_scan(ie, now);
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
	ie->epfd = ie->tfd = ie->ifd = ie->wd = ie->dfd = -1;
	ie->status = cfg->status;

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
	evdev_watch(ie);
	ie->poll_at = evdev_now() + EVDEV_POLL_EVERY_NS;
	evdev_scan(ie, evdev_now());
	evdev_rearm(ie, evdev_now());
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
