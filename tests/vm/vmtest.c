/*
 * vmtest: the guest half of the real-kernel test (tests/vm/run.sh).  It runs
 * inside the test VM as a child of tests/vm/init.sh and
 *
 *  - creates a uinput multitouch touch screen (protocol B, INPUT_PROP_DIRECT,
 *    named "vmtest touchscreen"), the kind Android's EventHub takes for a
 *    touch screen;
 *  - opens its own reader on the same event node with CLOCK_MONOTONIC set
 *    (EVIOCSCLOCKID), independent of tapd's, and takes the kernel timestamp
 *    of every SYN_REPORT it injects from there;
 *  - plays a fixed script of gestures: taps, a long press, a swipe, a
 *    two-finger gesture, an unplug and re-creation of the device, and a
 *    flood of events while tapd is stopped (SIGSTOP), which overflows
 *    tapd's evdev client buffer and so forces a SYN_DROPPED on it;
 *  - prints one JSON line per gesture on stdout: the kind it played, the
 *    kernel timestamps of its first finger-down and last finger-up
 *    SYN_REPORT as its reader saw them, and the CLOCK_MONOTONIC times read
 *    just before and just after the finger-up write() (the kernel stamps
 *    the events inside that call, so these two bracket t_up);
 *  - appends the finger-up time of every tap and long press to the frames
 *    file, from which the fake dumpsys (tapd-sim, its taps model) makes
 *    the app's response frames.
 *
 *   vmtest [--tapd-pid PID] [--api-port PORT] [--frames FILE] [--gap-ms N]
 *          [--one-tap]
 *   vmtest --hold SECONDS
 *   vmtest --no-dac-override PROGRAM [ARG...]
 *
 * Without --tapd-pid it only exercises the kernel side (no wait for tapd
 * to open the device, no SIGSTOP).  With --api-port it also waits, before
 * playing on a new device, until tapd's /v1/health says the input is up.
 * --one-tap plays a single tap.  --hold only creates the touch screen,
 * prints its record and keeps it for SECONDS (or until SIGTERM), playing
 * nothing; meanwhile SIGUSR1 puts a finger down and SIGUSR2 lifts it (a
 * "finger" record each, the times as the reader saw them).
 * --no-dac-override runs PROGRAM as root without CAP_DAC_OVERRIDE (taken
 * out of the bounding set, which an exec as root gets its capabilities
 * from): the permission bits of a file then hold for root too, so that a
 * node of mode 0400 is read but refuses to be opened for writing.  Exit status:
 * 0 when the whole script ran, 1 when something failed (the reason is on
 * stderr).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <linux/capability.h>
#include <linux/input.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_MS 1000000LL
#define NS_PER_S  1000000000LL

#define SCREEN_W 1080
#define SCREEN_H 2400
#define SLOTS	 10

/* Events one injected frame may hold, SYN_REPORT included. */
#define FRAME_MAX 32

/*
 * Frames per write() during the flood.  Each holds three events, so a
 * batch stays under the smallest evdev client buffer (64 events) and our
 * own reader, drained after every batch, never overflows.
 */
#define FLOOD_BATCH  16
#define FLOOD_FRAMES 3000

/* How long tapd may take to open a new device or close a dead one. */
#define TAPD_WAIT_MS 5000

struct vt {
	struct libevdev_uinput *ui;
	int rfd;	/* our reader, CLOCK_MONOTONIC */
	dev_t rdev;	/* the event node's device number */
	char node[64];	/* its path */
	int gen;	/* 1 for the first device, 2 after re-creation */
	pid_t tapd;	/* 0 when running without tapd */
	int api_port;	/* tapd's API on 127.0.0.1, 0 for none */
	FILE *frames;	/* NULL without a frames file */
	int next_id;	/* next tracking ID */
	int ids[SLOTS]; /* tracking ID per slot, -1 when up */
	int down;	/* fingers down */
	unsigned seq;	/* gestures played */
	unsigned reader_dropped; /* SYN_DROPPED seen by our reader */
	int64_t gesture_down_ns; /* kernel time of the current first down */
};

struct frame {
	struct input_event ev[FRAME_MAX];
	int n;
};

static void
fail(const char *what, int err)
{
	if (err != 0)
		fprintf(stderr, "vmtest: %s: %s\n", what, strerror(err));
	else
		fprintf(stderr, "vmtest: %s\n", what);
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void
sleep_ms(int64_t ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * NS_PER_MS;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static int64_t
event_ns(const struct input_event *ev)
{
	return (int64_t)ev->input_event_sec * NS_PER_S +
	       (int64_t)ev->input_event_usec * 1000;
}

static int
parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = (long)v;
	return 0;
}

static void
frame_add(struct frame *f, unsigned type, unsigned code, int value)
{
	struct input_event *ev;

	/* The script never comes near FRAME_MAX; a bug there must not pass. */
	if (f->n >= FRAME_MAX - 1) {
		fail("frame overflow", 0);
		abort();
	}
	ev = &f->ev[f->n++];
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->code = code;
	ev->value = value;
}

/*
 * Reads what our reader has, up to and including the first SYN_REPORT
 * when want_syn is set (waiting up to a second for it), else until the
 * queue is empty.  Sets *syn_ns to the kernel time of that SYN_REPORT.
 * Returns 0, -ETIMEDOUT, or a negative errno from read().
 */
static int
reader_drain(struct vt *vt, int want_syn, int64_t *syn_ns)
{
	struct input_event ev;
	struct pollfd pfd;
	ssize_t len;
	int rc;

	for (;;) {
		len = read(vt->rfd, &ev, sizeof(ev));
		if (len < 0 && errno == EAGAIN) {
			if (!want_syn)
				return 0;
			pfd.fd = vt->rfd;
			pfd.events = POLLIN;
			rc = poll(&pfd, 1, 1000);
			if (rc == 0)
				return -ETIMEDOUT;
			if (rc < 0 && errno != EINTR)
				return -errno;
			continue;
		}
		if (len < 0)
			return -errno;
		if (len != (ssize_t)sizeof(ev))
			return -EIO;
		if (ev.type != EV_SYN)
			continue;
		if (ev.code == SYN_DROPPED) {
			vt->reader_dropped++;
			continue;
		}
		if (ev.code == SYN_REPORT && want_syn) {
			*syn_ns = event_ns(&ev);
			return 0;
		}
	}
}

/*
 * Writes one frame (a SYN_REPORT is appended) with a single write() and
 * returns in *kernel_ns the timestamp our reader sees on its SYN_REPORT.
 * The kernel stamps the frame inside that write(), so the monotonic time
 * read just before it (*before_ns) and just after it returned (*after_ns)
 * bracket the timestamp, however long the write took.
 */
static int
frame_emit(struct vt *vt, struct frame *f, int64_t *kernel_ns,
	   int64_t *before_ns, int64_t *after_ns)
{
	int64_t k = 0, t0, t1;
	ssize_t len;
	size_t size;
	int rc;

	frame_add(f, EV_SYN, SYN_REPORT, 0);
	size = (size_t)f->n * sizeof(f->ev[0]);
	t0 = now_ns();
	len = write(libevdev_uinput_get_fd(vt->ui), f->ev, size);
	t1 = now_ns();
	if (len != (ssize_t)size) {
		fail("cannot write to uinput", len < 0 ? errno : EIO);
		return -EIO;
	}
	rc = reader_drain(vt, 1, &k);
	if (rc < 0) {
		fail("no SYN_REPORT on the reader", -rc);
		return rc;
	}
	if (kernel_ns != NULL)
		*kernel_ns = k;
	if (before_ns != NULL)
		*before_ns = t0;
	if (after_ns != NULL)
		*after_ns = t1;
	f->n = 0;
	return 0;
}

static void
add_down(struct vt *vt, struct frame *f, int slot, int x, int y)
{
	vt->ids[slot] = vt->next_id++;
	frame_add(f, EV_ABS, ABS_MT_SLOT, slot);
	frame_add(f, EV_ABS, ABS_MT_TRACKING_ID, vt->ids[slot]);
	frame_add(f, EV_ABS, ABS_MT_POSITION_X, x);
	frame_add(f, EV_ABS, ABS_MT_POSITION_Y, y);
	if (vt->down++ == 0) {
		frame_add(f, EV_KEY, BTN_TOUCH, 1);
		frame_add(f, EV_KEY, BTN_TOOL_FINGER, 1);
		frame_add(f, EV_ABS, ABS_X, x);
		frame_add(f, EV_ABS, ABS_Y, y);
	}
}

static void
add_move(struct frame *f, int slot, int x, int y)
{
	frame_add(f, EV_ABS, ABS_MT_SLOT, slot);
	frame_add(f, EV_ABS, ABS_MT_POSITION_X, x);
	frame_add(f, EV_ABS, ABS_MT_POSITION_Y, y);
	if (slot == 0) {
		frame_add(f, EV_ABS, ABS_X, x);
		frame_add(f, EV_ABS, ABS_Y, y);
	}
}

static void
add_up(struct vt *vt, struct frame *f, int slot)
{
	vt->ids[slot] = -1;
	frame_add(f, EV_ABS, ABS_MT_SLOT, slot);
	frame_add(f, EV_ABS, ABS_MT_TRACKING_ID, -1);
	if (--vt->down == 0) {
		frame_add(f, EV_KEY, BTN_TOUCH, 0);
		frame_add(f, EV_KEY, BTN_TOOL_FINGER, 0);
	}
}

/* Emits the frame that puts the first finger of a gesture down. */
static int
gesture_begin(struct vt *vt, struct frame *f)
{
	return frame_emit(vt, f, &vt->gesture_down_ns, NULL, NULL);
}

/*
 * Emits the frame that lifts the last finger, and prints the gesture's
 * record.  Taps and long presses get a response burst in the frames file.
 */
static int
gesture_end(struct vt *vt, struct frame *f, const char *kind, int x, int y,
	    int dropped)
{
	int64_t up_ns, before_ns, after_ns;
	int rc;

	rc = frame_emit(vt, f, &up_ns, &before_ns, &after_ns);
	if (rc < 0)
		return rc;
	vt->seq++;
	printf("{\"seq\":%u,\"gen\":%d,\"kind\":\"%s\",\"x\":%d,\"y\":%d,"
	       "\"t_down_ns\":\"%" PRId64 "\",\"t_up_ns\":\"%" PRId64 "\","
	       "\"inject_before_ns\":\"%" PRId64 "\","
	       "\"inject_after_ns\":\"%" PRId64 "\",\"dropped\":%s}\n",
	       vt->seq, vt->gen, kind, x, y, vt->gesture_down_ns, up_ns,
	       before_ns, after_ns, dropped ? "true" : "false");
	fflush(stdout);
	if (vt->frames != NULL &&
	    (strcmp(kind, "tap") == 0 || strcmp(kind, "long_press") == 0)) {
		fprintf(vt->frames, "%" PRId64 "\n", up_ns);
		fflush(vt->frames);
	}
	return 0;
}

/*
 * Whether tapd holds an open fd on the device numbered rdev: it opens the
 * node through its sysroot, so the fd's path says little, but stat()
 * through /proc/PID/fd reaches the device itself.
 */
static int
tapd_holds(pid_t pid, dev_t rdev)
{
	char dir[64], path[128];
	struct dirent *de;
	struct stat st;
	int found = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (d == NULL)
		return -errno;
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		if (stat(path, &st) == 0 && S_ISCHR(st.st_mode) &&
		    st.st_rdev == rdev)
			found = 1;
	}
	closedir(d);
	return found;
}

/*
 * Waits until tapd holds (want = 1) or no longer holds (want = 0) the
 * device; returns the milliseconds it took, or -1 after TAPD_WAIT_MS.
 */
static long
tapd_wait(const struct vt *vt, int want)
{
	int64_t start = now_ns(), t;
	int rc;

	for (;;) {
		rc = tapd_holds(vt->tapd, vt->rdev);
		t = now_ns();
		if (rc == want)
			return (long)((t - start) / NS_PER_MS);
		if (rc < 0 || t - start > TAPD_WAIT_MS * NS_PER_MS)
			return -1;
		sleep_ms(5);
	}
}

/* The state letter of /proc/PID/stat, or 0. */
static char
proc_state(pid_t pid)
{
	char path[64], buf[512];
	const char *p;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	/* The command name may hold spaces and parentheses: skip to the last.
	 */
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ')
		return 0;
	return p[2];
}

static void
abs_enable(struct libevdev *dev, unsigned code, int max)
{
	struct input_absinfo abs;

	memset(&abs, 0, sizeof(abs));
	abs.maximum = max;
	abs.resolution =
		code == ABS_MT_SLOT || code == ABS_MT_TRACKING_ID ? 0 : 10;
	libevdev_enable_event_code(dev, EV_ABS, code, &abs);
}

/* Creates the touch screen and opens our reader on it. */
static int
device_create(struct vt *vt)
{
	struct libevdev *dev = NULL;
	const char *node;
	struct stat st;
	int clk = CLOCK_MONOTONIC;
	int i, rc;

	dev = libevdev_new();
	if (dev == NULL)
		return -ENOMEM;
	libevdev_set_name(dev, "vmtest touchscreen");
	libevdev_set_id_bustype(dev, BUS_VIRTUAL);
	libevdev_set_id_vendor(dev, 0x7a7d);
	libevdev_set_id_product(dev, 0x0001);
	libevdev_enable_property(dev, INPUT_PROP_DIRECT);
	libevdev_enable_event_type(dev, EV_SYN);
	libevdev_enable_event_code(dev, EV_KEY, BTN_TOUCH, NULL);
	libevdev_enable_event_code(dev, EV_KEY, BTN_TOOL_FINGER, NULL);
	abs_enable(dev, ABS_X, SCREEN_W - 1);
	abs_enable(dev, ABS_Y, SCREEN_H - 1);
	abs_enable(dev, ABS_MT_SLOT, SLOTS - 1);
	abs_enable(dev, ABS_MT_TRACKING_ID, 65535);
	abs_enable(dev, ABS_MT_POSITION_X, SCREEN_W - 1);
	abs_enable(dev, ABS_MT_POSITION_Y, SCREEN_H - 1);
	rc = libevdev_uinput_create_from_device(
		dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &vt->ui);
	if (rc < 0) {
		fail("cannot create the uinput device", -rc);
		goto out;
	}
	node = libevdev_uinput_get_devnode(vt->ui);
	if (node == NULL || snprintf(vt->node, sizeof(vt->node), "%s", node) >=
				    (int)sizeof(vt->node)) {
		fail("no event node for the uinput device", 0);
		rc = -ENODEV;
		goto out;
	}
	vt->rfd = open(vt->node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (vt->rfd < 0) {
		rc = -errno;
		fail("cannot open the event node", -rc);
		goto out;
	}
	/* Before anything is queued, so the switch drops nothing. */
	if (ioctl(vt->rfd, EVIOCSCLOCKID, &clk) != 0) {
		rc = -errno;
		fail("cannot set CLOCK_MONOTONIC on the reader", -rc);
		goto out;
	}
	if (fstat(vt->rfd, &st) != 0) {
		rc = -errno;
		goto out;
	}
	vt->rdev = st.st_rdev;
	for (i = 0; i < SLOTS; i++)
		vt->ids[i] = -1;
	vt->down = 0;
	vt->gen++;
	printf("{\"event\":\"device\",\"gen\":%d,\"node\":\"%s\"}\n", vt->gen,
	       vt->node);
	fflush(stdout);
	rc = 0;
out:
	libevdev_free(dev);
	return rc;
}

/*
 * Removes the device (an unplug, as tapd sees it) and checks that our
 * reader is told with ENODEV, as the kernel documents.
 */
static int
device_destroy(struct vt *vt)
{
	struct input_event ev;
	ssize_t len;
	int err;

	libevdev_uinput_destroy(vt->ui);
	vt->ui = NULL;
	len = read(vt->rfd, &ev, sizeof(ev));
	err = len < 0 ? errno : 0;
	close(vt->rfd);
	vt->rfd = -1;
	if (err != ENODEV) {
		fail("the reader of a removed device did not get ENODEV", err);
		return -EIO;
	}
	return 0;
}

/*
 * GETs path from tapd's API into buf (NUL-terminated, cut to size - 1).
 * HTTP/1.0, so the server closes when done.  Returns the bytes read or a
 * negative errno.
 */
static ssize_t
api_get(const struct vt *vt, const char *path, char *buf, size_t size)
{
	struct sockaddr_in sa;
	char req[256];
	size_t len = 0;
	ssize_t n;
	int fd, r;

	r = snprintf(req, sizeof(req),
		     "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	if (r < 0 || (size_t)r >= sizeof(req))
		return -ENAMETOOLONG;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)vt->api_port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    write(fd, req, (size_t)r) != r) {
		r = -errno;
		close(fd);
		return r;
	}
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fd);
	return (ssize_t)len;
}

/*
 * The input source's health in /v1/health: 1 when "up", 0 otherwise, or a
 * negative errno.  The API writes compact JSON, so a string search does.
 */
static int
api_input_up(const struct vt *vt)
{
	static const char key[] = "\"input\":{\"health\":\"";
	char buf[8192];
	const char *p;
	ssize_t n;

	n = api_get(vt, "/v1/health", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	p = strstr(buf, key);
	if (p == NULL)
		return -EPROTO;
	return strncmp(p + sizeof(key) - 1, "up\"", 3) == 0;
}

/*
 * Waits until the API says the input source is up (want = 1) or not
 * (want = 0); returns the milliseconds it took, or -1 after TAPD_WAIT_MS.
 */
static long
api_wait(const struct vt *vt, int want)
{
	int64_t start = now_ns(), t;
	int rc;

	for (;;) {
		rc = api_input_up(vt);
		t = now_ns();
		if (rc == want)
			return (long)((t - start) / NS_PER_MS);
		if (t - start > TAPD_WAIT_MS * NS_PER_MS)
			return -1;
		sleep_ms(5);
	}
}

/*
 * Waits for tapd to pick the current device up, and reports how long it
 * took to open it.  Then it waits for the API to report the source up:
 * tapd opens the node, drains it and only then reads the device's state,
 * and a finger that went down in between was already down when tapd
 * started: not a gesture it can measure, so the script must not begin
 * before.
 */
static int
wait_pickup(struct vt *vt)
{
	long ms, ready = 0;

	if (vt->tapd <= 0)
		return 0;
	ms = tapd_wait(vt, 1);
	if (ms >= 0 && vt->api_port > 0)
		ready = api_wait(vt, 1);
	printf("{\"event\":\"pickup\",\"gen\":%d,\"ms\":%ld,"
	       "\"ready_ms\":%ld}\n",
	       vt->gen, ms, ready);
	fflush(stdout);
	if (ms < 0 || ready < 0) {
		fail("tapd did not open the touch screen", 0);
		return -ETIMEDOUT;
	}
	return 0;
}

static int
play_tap(struct vt *vt, int x, int y, int hold_ms)
{
	struct frame f = {.n = 0};
	int rc;

	add_down(vt, &f, 0, x, y);
	if ((rc = gesture_begin(vt, &f)) < 0)
		return rc;
	sleep_ms(hold_ms / 2);
	/* A jitter of one unit, well within the slop, as real fingers do. */
	add_move(&f, 0, x + 1, y);
	if ((rc = frame_emit(vt, &f, NULL, NULL, NULL)) < 0)
		return rc;
	sleep_ms(hold_ms - hold_ms / 2);
	add_up(vt, &f, 0);
	return gesture_end(vt, &f, "tap", x, y, 0);
}

static int
play_long_press(struct vt *vt, int x, int y, int hold_ms)
{
	struct frame f = {.n = 0};
	int rc, i;

	add_down(vt, &f, 0, x, y);
	if ((rc = gesture_begin(vt, &f)) < 0)
		return rc;
	for (i = 1; i <= 3; i++) {
		sleep_ms(hold_ms / 4);
		add_move(&f, 0, x + (i & 1), y + 1);
		if ((rc = frame_emit(vt, &f, NULL, NULL, NULL)) < 0)
			return rc;
	}
	sleep_ms(hold_ms - 3 * (hold_ms / 4));
	add_up(vt, &f, 0);
	return gesture_end(vt, &f, "long_press", x, y, 0);
}

static int
play_swipe(struct vt *vt, int x, int y0, int y1, int steps)
{
	struct frame f = {.n = 0};
	int rc, i;

	add_down(vt, &f, 0, x, y0);
	if ((rc = gesture_begin(vt, &f)) < 0)
		return rc;
	for (i = 1; i <= steps; i++) {
		sleep_ms(16);
		add_move(&f, 0, x, y0 + (y1 - y0) * i / steps);
		if ((rc = frame_emit(vt, &f, NULL, NULL, NULL)) < 0)
			return rc;
	}
	sleep_ms(16);
	add_up(vt, &f, 0);
	return gesture_end(vt, &f, "swipe", x, y0, 0);
}

/* Two fingers, a pinch-out: the second goes down while the first is down. */
static int
play_two_fingers(struct vt *vt, int x, int y)
{
	struct frame f = {.n = 0};
	int rc, i;

	add_down(vt, &f, 0, x, y);
	if ((rc = gesture_begin(vt, &f)) < 0)
		return rc;
	sleep_ms(30);
	add_down(vt, &f, 1, x + 200, y);
	if ((rc = frame_emit(vt, &f, NULL, NULL, NULL)) < 0)
		return rc;
	for (i = 1; i <= 5; i++) {
		sleep_ms(16);
		add_move(&f, 0, x - 20 * i, y);
		add_move(&f, 1, x + 200 + 20 * i, y);
		if ((rc = frame_emit(vt, &f, NULL, NULL, NULL)) < 0)
			return rc;
	}
	sleep_ms(30);
	add_up(vt, &f, 1);
	if ((rc = frame_emit(vt, &f, NULL, NULL, NULL)) < 0)
		return rc;
	sleep_ms(30);
	add_up(vt, &f, 0);
	return gesture_end(vt, &f, "multi", x, y, 0);
}

/*
 * A finger held down while tapd is stopped and thousands of events go by:
 * tapd's client buffer overflows, the kernel drops what it held and queues
 * a SYN_DROPPED.  The finger goes down before the stop and up after tapd
 * has caught up, so the gesture itself is seen whole: one long press,
 * touched by the drop, and nothing else.
 */
static int
play_flood(struct vt *vt, int x, int y)
{
	struct frame f = {.n = 0};
	struct input_event batch[FLOOD_BATCH * 3];
	int64_t start, unused;
	size_t size;
	ssize_t len;
	int rc, i, j, n = 0;

	add_down(vt, &f, 0, x, y);
	if ((rc = gesture_begin(vt, &f)) < 0)
		return rc;
	start = now_ns();
	/* Let tapd read the finger-down before it is stopped. */
	sleep_ms(150);
	if (vt->tapd > 0) {
		if (kill(vt->tapd, SIGSTOP) != 0) {
			fail("cannot stop tapd", errno);
			return -errno;
		}
		for (i = 0; i < 1000 && proc_state(vt->tapd) != 'T'; i++)
			sleep_ms(2);
		if (proc_state(vt->tapd) != 'T') {
			fail("tapd did not stop", 0);
			return -EIO;
		}
	}
	memset(batch, 0, sizeof(batch));
	for (i = 0; i < FLOOD_FRAMES / FLOOD_BATCH; i++) {
		for (j = 0; j < FLOOD_BATCH; j++, n++) {
			/* Alternate x and x + 1: every frame is a change. */
			batch[3 * j].type = EV_ABS;
			batch[3 * j].code = ABS_MT_POSITION_X;
			batch[3 * j].value = x + ((n + 1) & 1);
			batch[3 * j + 1].type = EV_ABS;
			batch[3 * j + 1].code = ABS_X;
			batch[3 * j + 1].value = x + ((n + 1) & 1);
			batch[3 * j + 2].type = EV_SYN;
			batch[3 * j + 2].code = SYN_REPORT;
		}
		size = sizeof(batch);
		len = write(libevdev_uinput_get_fd(vt->ui), batch, size);
		if (len != (ssize_t)size) {
			fail("cannot write the flood", len < 0 ? errno : EIO);
			return -EIO;
		}
		if ((rc = reader_drain(vt, 0, &unused)) < 0) {
			fail("cannot drain the reader", -rc);
			return rc;
		}
	}
	printf("{\"event\":\"flood\",\"frames\":%d,\"events\":%d}\n", n, 3 * n);
	fflush(stdout);
	if (vt->tapd > 0 && kill(vt->tapd, SIGCONT) != 0) {
		fail("cannot continue tapd", errno);
		return -errno;
	}
	/* The finger rests where it went down, whatever the flood left. */
	add_move(&f, 0, x + 1, y);
	if ((rc = frame_emit(vt, &f, NULL, NULL, NULL)) < 0)
		return rc;
	add_move(&f, 0, x, y);
	if ((rc = frame_emit(vt, &f, NULL, NULL, NULL)) < 0)
		return rc;
	/* Time for tapd to drain its queue and resync: then the finger up. */
	sleep_ms(300);
	if (now_ns() - start < 700 * NS_PER_MS)
		sleep_ms(700 - (now_ns() - start) / NS_PER_MS);
	add_up(vt, &f, 0);
	return gesture_end(vt, &f, "long_press", x, y, 1);
}

static int
script(struct vt *vt, int gap_ms)
{
	long ms, down;
	int rc;

	if ((rc = device_create(vt)) < 0 || (rc = wait_pickup(vt)) < 0)
		return rc;
	if ((rc = play_tap(vt, 300, 500, 60)) < 0)
		return rc;
	sleep_ms(gap_ms);
	if ((rc = play_tap(vt, 800, 1800, 90)) < 0)
		return rc;
	sleep_ms(gap_ms);
	if ((rc = play_long_press(vt, 540, 1200, 700)) < 0)
		return rc;
	sleep_ms(gap_ms);
	if ((rc = play_swipe(vt, 540, 2000, 1200, 10)) < 0)
		return rc;
	sleep_ms(gap_ms);
	if ((rc = play_two_fingers(vt, 400, 1000)) < 0)
		return rc;
	sleep_ms(gap_ms);
	if ((rc = play_tap(vt, 200, 300, 50)) < 0)
		return rc;
	sleep_ms(gap_ms);

	/* Unplug: tapd must let the dead device go, then take the new one. */
	if ((rc = device_destroy(vt)) < 0)
		return rc;
	if (vt->tapd > 0) {
		ms = tapd_wait(vt, 0);
		/* Then the API, so its "up" is the new device's, not a stale
		 * one. */
		down = vt->api_port > 0 && ms >= 0 ? api_wait(vt, 0) : 0;
		printf("{\"event\":\"release\",\"gen\":%d,\"ms\":%ld,"
		       "\"down_ms\":%ld}\n",
		       vt->gen, ms, down);
		fflush(stdout);
	}
	sleep_ms(300);
	if ((rc = device_create(vt)) < 0 || (rc = wait_pickup(vt)) < 0)
		return rc;
	if ((rc = play_tap(vt, 500, 600, 70)) < 0)
		return rc;
	sleep_ms(gap_ms);
	if ((rc = play_tap(vt, 900, 2200, 40)) < 0)
		return rc;
	sleep_ms(gap_ms);
	if ((rc = play_flood(vt, 540, 1500)) < 0)
		return rc;
	sleep_ms(gap_ms);
	if ((rc = play_tap(vt, 300, 900, 60)) < 0)
		return rc;
	/*
	 * The device goes when vmtest exits, and the kernel answers a read
	 * of a removed device with ENODEV before the events still queued:
	 * give tapd time to read the last ones, however slow it runs.
	 */
	sleep_ms(1000);
	return 0;
}

/*
 * One tap, then a pause long enough for tapd to read its finger-up but far
 * shorter than its response window: the init script stops tapd then, so
 * the tap is still waiting for its frames.
 */
static int
script_one_tap(struct vt *vt)
{
	int rc;

	if ((rc = device_create(vt)) < 0 || (rc = wait_pickup(vt)) < 0)
		return rc;
	if ((rc = play_tap(vt, 250, 400, 60)) < 0)
		return rc;
	sleep_ms(150);
	return 0;
}

static volatile sig_atomic_t hold_stop;
/* --hold: SIGUSR1 puts a finger down, SIGUSR2 lifts it. */
static volatile sig_atomic_t hold_finger;

static void
hold_signal(int sig)
{
	if (sig == SIGUSR1)
		hold_finger = 1;
	else if (sig == SIGUSR2)
		hold_finger = 0;
	else
		hold_stop = 1;
}

/*
 * A finger of the held screen goes down or lifts, as hold_finger says;
 * what others wrote into the node meanwhile (tapd's own gestures) is read
 * away first, so that the SYN_REPORT read back is this frame's.  Prints
 * the finger's record when it lifts.
 */
static int
hold_move_finger(struct vt *vt, int down)
{
	struct frame f = {.n = 0};
	int64_t up_ns, before_ns, after_ns;
	int rc;

	if ((rc = reader_drain(vt, 0, NULL)) < 0)
		return rc;
	if (down) {
		add_down(vt, &f, 0, 500, 1500);
		rc = gesture_begin(vt, &f);
		printf("{\"event\":\"finger\",\"phase\":\"down\","
		       "\"t_down_ns\":\"%" PRId64 "\"}\n",
		       vt->gesture_down_ns);
	} else {
		add_up(vt, &f, 0);
		rc = frame_emit(vt, &f, &up_ns, &before_ns, &after_ns);
		printf("{\"event\":\"finger\",\"phase\":\"up\","
		       "\"t_down_ns\":\"%" PRId64 "\",\"t_up_ns\":\"%" PRId64
		       "\"}\n",
		       vt->gesture_down_ns, up_ns);
	}
	fflush(stdout);
	return rc;
}

/*
 * Only the touch screen, for a test of who may open it: created, its
 * record printed, kept for seconds or until SIGTERM, then removed.
 */
static int
script_hold(struct vt *vt, long seconds)
{
	struct sigaction sa;
	int64_t end;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = hold_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	if ((rc = device_create(vt)) < 0)
		return rc;
	end = now_ns() + seconds * NS_PER_S;
	while (!hold_stop && now_ns() < end) {
		if (hold_finger != (vt->down > 0) &&
		    (rc = hold_move_finger(vt, hold_finger)) < 0)
			return rc;
		sleep_ms(20);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct vt vt;
	long v, gap_ms = 600, hold = -1;
	const char *frames = NULL;
	int i, rc, one_tap = 0;

	memset(&vt, 0, sizeof(vt));
	vt.rfd = -1;
	vt.next_id = 100;
	if (argc > 2 && strcmp(argv[1], "--no-dac-override") == 0) {
		if (prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0) != 0) {
			fprintf(stderr,
				"vmtest: cannot drop CAP_DAC_OVERRIDE: %s\n",
				strerror(errno));
			return 1;
		}
		execvp(argv[2], argv + 2);
		fprintf(stderr, "vmtest: cannot run '%s': %s\n", argv[2],
			strerror(errno));
		return 1;
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--tapd-pid") == 0 && i + 1 < argc) {
			if (parse_long(argv[++i], 1, INT32_MAX, &v) < 0)
				goto usage;
			vt.tapd = (pid_t)v;
		} else if (strcmp(argv[i], "--api-port") == 0 && i + 1 < argc) {
			if (parse_long(argv[++i], 1, 65535, &v) < 0)
				goto usage;
			vt.api_port = (int)v;
		} else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
			frames = argv[++i];
		} else if (strcmp(argv[i], "--one-tap") == 0) {
			one_tap = 1;
		} else if (strcmp(argv[i], "--hold") == 0 && i + 1 < argc) {
			if (parse_long(argv[++i], 0, 86400, &v) < 0)
				goto usage;
			hold = v;
		} else if (strcmp(argv[i], "--gap-ms") == 0 && i + 1 < argc) {
			if (parse_long(argv[++i], 0, 60000, &v) < 0)
				goto usage;
			gap_ms = v;
		} else {
			goto usage;
		}
	}
	/*
	 * The bracket closes when the clock is read after write() returns.
	 * On the VM's one CPU the write wakes tapd, and a normal task may be
	 * preempted by it before it reads the clock, which only widens the
	 * bracket; a real-time task is not, so it stays narrow.  It sleeps
	 * between gestures, so tapd still runs.  The system call itself:
	 * musl's sched_setscheduler() always fails with ENOSYS.
	 */
	if (vt.tapd > 0) {
		struct sched_param sp = {.sched_priority = 10};

		if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp) != 0)
			fail("cannot run as SCHED_FIFO", errno);
	}
	if (frames != NULL) {
		vt.frames = fopen(frames, "a");
		if (vt.frames == NULL) {
			fail("cannot open the frames file", errno);
			return 1;
		}
	}
	if (hold >= 0)
		rc = script_hold(&vt, hold);
	else if (one_tap)
		rc = script_one_tap(&vt);
	else
		rc = script(&vt, (int)gap_ms);
	printf("{\"event\":\"done\",\"ok\":%s,\"gestures\":%u,"
	       "\"reader_syn_dropped\":%u}\n",
	       rc == 0 ? "true" : "false", vt.seq, vt.reader_dropped);
	fflush(stdout);
	if (vt.tapd > 0)
		kill(vt.tapd, SIGCONT);
	if (vt.ui != NULL)
		libevdev_uinput_destroy(vt.ui);
	if (vt.rfd >= 0)
		close(vt.rfd);
	if (vt.frames != NULL)
		fclose(vt.frames);
	return rc == 0 ? 0 : 1;
usage:
	fprintf(stderr, "usage: vmtest [--tapd-pid PID] [--api-port PORT] "
			"[--frames FILE] [--gap-ms N] [--one-tap]\n"
			"       vmtest --hold SECONDS\n");
	return 1;
}
