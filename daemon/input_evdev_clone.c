#include "input_evdev_clone.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <libevdev/libevdev.h>

#include "log.h"

/* Whether dev is the clone of the screen named screen. */
static int
is_clone_of(const struct libevdev *dev, const char *screen)
{
	const char *phys = libevdev_get_phys(dev);
	const char *name = libevdev_get_name(dev);
	size_t suffix = strlen(INPUT_EVDEV_CLONE_SUFFIX), len;

	if (!phys || strcmp(phys, INPUT_EVDEV_CLONE_PHYS) != 0 || !name)
		return 0;
	len = strlen(name);
	if (len < suffix ||
	    strcmp(name + len - suffix, INPUT_EVDEV_CLONE_SUFFIX) != 0)
		return 0;
	/* A long name of the screen was cut to fit the suffix in. */
	return strncmp(name, screen, len - suffix) == 0 &&
	       (screen[len - suffix] == '\0' ||
		len == INPUT_EVDEV_NAME_MAX_UINPUT - 1);
}

int
input_evdev_clone_try(struct input_evdev *ie, const char *name)
{
	char path[PATH_MAX];
	struct libevdev *dev = NULL;
	struct epoll_event ee;
	int clk = CLOCK_MONOTONIC, fd = -1, r;

	if (ie->dev == NULL || ie->cdev != NULL)
		return -ENOTSUP;
	r = snprintf(path, sizeof(path), "%s/%s", ie->dir, name);
	if (r < 0 || (size_t)r >= sizeof(path) || strcmp(path, ie->path) == 0)
		return -ENOTSUP;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	/* As for the screen: the clock before libevdev reads anything. */
	if (ioctl(fd, EVIOCSCLOCKID, &clk) != 0) {
		r = -errno;
		goto out;
	}
	dev = libevdev_new();
	if (dev == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = libevdev_set_fd(dev, fd);
	if (r < 0)
		goto out;
	if (!is_clone_of(dev, ie->name)) {
		r = -ENOTSUP;
		goto out;
	}
	memset(&ee, 0, sizeof(ee));
	ee.events = EPOLLIN;
	ee.data.u32 = EVDEV_TAG_CLONE;
	if (epoll_ctl(ie->epfd, EPOLL_CTL_ADD, fd, &ee) != 0) {
		r = -errno;
		log_warn("cannot poll '%s'", path);
		goto out;
	}
	memcpy(ie->cpath, path, sizeof(ie->cpath));
	ie->cfd = fd;
	ie->cdev = dev;
	fd = -1;
	dev = NULL;
	log_info("reading '%s' \"%s\" too: tapd's clone of '%s'", ie->cpath,
		 libevdev_get_name(ie->cdev), ie->path);
	r = 0;
out:
	if (r < 0)
		log_debug("'%s' is not read as a clone of '%s': %s", path,
			  ie->path,
			  r == -ENOTSUP ? "not tapd's clone of it"
					: strerror(-r));
	libevdev_free(dev);
	if (fd >= 0)
		close(fd);
	return r;
}

void
input_evdev_clone_close(struct input_evdev *ie)
{
	if (ie->cdev == NULL)
		return;
	log_info("no longer reading '%s'", ie->cpath);
	(void)epoll_ctl(ie->epfd, EPOLL_CTL_DEL, ie->cfd, NULL);
	libevdev_free(ie->cdev);
	close(ie->cfd);
	ie->cdev = NULL;
	ie->cfd = -1;
	ie->cpath[0] = '\0';
}

int
input_evdev_clone_read(struct input_evdev *ie,
		       const struct input_evdev_callbacks *cb, void *ctx,
		       int hangup)
{
	struct input_event ev;
	unsigned flag = LIBEVDEV_READ_FLAG_NORMAL;
	int rc, r;

	for (;;) {
		rc = libevdev_next_event(ie->cdev, flag, &ev);
		if (rc == LIBEVDEV_READ_STATUS_SYNC &&
		    flag == LIBEVDEV_READ_FLAG_NORMAL) {
			/*
			 * A drop is passed on as the screen's is: the
			 * SYN_DROPPED, a SYN_REPORT ending the frame thrown
			 * away, then libevdev's resync.
			 */
			ie->st.syn_dropped++;
			r = input_evdev__deliver(ie, cb, ctx, &ev, 1);
			if (r < 0)
				return r;
			ev.type = EV_SYN;
			ev.code = SYN_REPORT;
			ev.value = 0;
			flag = LIBEVDEV_READ_FLAG_SYNC;
		} else if (rc == -EAGAIN && flag == LIBEVDEV_READ_FLAG_SYNC) {
			flag = LIBEVDEV_READ_FLAG_NORMAL;
			continue;
		} else if (rc != LIBEVDEV_READ_STATUS_SUCCESS &&
			   rc != LIBEVDEV_READ_STATUS_SYNC) {
			break;
		}
		r = input_evdev__deliver(ie, cb, ctx, &ev, 1);
		if (r < 0)
			return r;
	}
	if (rc != -EAGAIN || hangup)
		input_evdev_clone_close(ie);
	return 0;
}
