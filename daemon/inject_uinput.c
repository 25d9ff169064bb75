#include "inject_uinput.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/uinput.h>

#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>

#include "input_evdev.h"

struct inject_uinput {
	struct libevdev_uinput *ui;
	int fd; /* /dev/uinput, which the device lives as long as */
	char name[INPUT_EVDEV_NAME_MAX_UINPUT];
	char *screen;
};

int
inject_uinput_parse_via(const char *s, enum inject_via *out)
{
	if (strcmp(s, "auto") == 0)
		*out = INJECT_VIA_AUTO;
	else if (strcmp(s, "evdev") == 0)
		*out = INJECT_VIA_EVDEV;
	else if (strcmp(s, "uinput") == 0)
		*out = INJECT_VIA_UINPUT;
	else
		return -EINVAL;
	return 0;
}

const char *
inject_uinput_via_name(enum inject_via v)
{
	switch (v) {
	case INJECT_VIA_AUTO:
		return "auto";
	case INJECT_VIA_EVDEV:
		return "evdev";
	case INJECT_VIA_UINPUT:
		return "uinput";
	}
	return "?";
}

int
inject_uinput_refusal(int err)
{
	switch (err < 0 ? -err : err) {
	case EPERM:
	case EACCES:
	case EROFS:
	case EINVAL:
	case EIO: /* the writer's short write */
		return 1;
	default:
		return 0;
	}
}

int
inject_uinput_new(const char *screen, const char *uinput_path,
		  struct inject_uinput **out, char *why, size_t why_size)
{
	struct inject_uinput *u;
	struct libevdev *dev = NULL;
	const char *name;
	size_t keep, suffix = strlen(INPUT_EVDEV_CLONE_SUFFIX);
	int sfd = -1, rc;

	*out = NULL;
	if (!uinput_path)
		uinput_path = "/dev/uinput";
	u = calloc(1, sizeof(*u));
	if (!u || !(u->screen = strdup(screen))) {
		snprintf(why, why_size, "cannot clone '%s': out of memory",
			 screen);
		rc = -ENOMEM;
		goto out;
	}
	u->fd = -1;
	/* Read only: what is copied is the screen's capabilities. */
	sfd = open(screen, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (sfd < 0) {
		rc = -errno;
		snprintf(why, why_size, "cannot open '%s' to clone it: %s",
			 screen, strerror(-rc));
		goto out;
	}
	rc = libevdev_new_from_fd(sfd, &dev);
	if (rc < 0) {
		snprintf(why, why_size,
			 "cannot read the capabilities of '%s': %s", screen,
			 strerror(-rc));
		goto out;
	}
	name = libevdev_get_name(dev);
	keep = strlen(name);
	if (keep + suffix >= sizeof(u->name))
		keep = sizeof(u->name) - 1 - suffix;
	snprintf(u->name, sizeof(u->name), "%.*s%s", (int)keep, name,
		 INPUT_EVDEV_CLONE_SUFFIX);
	libevdev_set_name(dev, u->name);
	u->fd = open(uinput_path, O_RDWR | O_CLOEXEC);
	if (u->fd < 0) {
		rc = -errno;
		snprintf(why, why_size, "cannot open '%s': %s", uinput_path,
			 strerror(-rc));
		goto out;
	}
	/*
	 * libevdev copies the name, not the phys: it is set here, before
	 * the device is made, where uinput takes it.
	 */
	if (ioctl(u->fd, UI_SET_PHYS, INPUT_EVDEV_CLONE_PHYS) != 0) {
		rc = -errno;
		snprintf(why, why_size,
			 "cannot set the phys of a clone of '%s': %s", screen,
			 strerror(-rc));
		goto out;
	}
	rc = libevdev_uinput_create_from_device(dev, u->fd, &u->ui);
	if (rc < 0) {
		snprintf(why, why_size, "cannot clone '%s' through '%s': %s",
			 screen, uinput_path, strerror(-rc));
		goto out;
	}
	rc = 0;
out:
	libevdev_free(dev);
	if (sfd >= 0)
		close(sfd);
	if (rc < 0) {
		inject_uinput_free(u);
		return rc;
	}
	*out = u;
	return 0;
}

void
inject_uinput_free(struct inject_uinput *u)
{
	if (!u)
		return;
	/* The device goes with its fd: libevdev leaves the fd to us. */
	libevdev_uinput_destroy(u->ui);
	if (u->fd >= 0)
		close(u->fd);
	free(u->screen);
	free(u);
}

int
inject_uinput_fd(const struct inject_uinput *u)
{
	return u->fd;
}

const char *
inject_uinput_devnode(const struct inject_uinput *u)
{
	return libevdev_uinput_get_devnode(u->ui);
}

const char *
inject_uinput_name(const struct inject_uinput *u)
{
	return u->name;
}

const char *
inject_uinput_screen(const struct inject_uinput *u)
{
	return u->screen;
}
