/*
 * The health of the libevdev source (input_evdev.h): why no device is
 * read, told to the status as one detail.
 */
#ifndef TAPD_INPUT_EVDEV_HEALTH_H
#define TAPD_INPUT_EVDEV_HEALTH_H

#include "input_evdev_int.h"
#include "status.h"

/* Sets the reason there is no device (ie->why), cut to fit. */
void input_evdev_health_set_why(struct input_evdev *ie, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Sets the input source's health, when there is a status to tell. */
void input_evdev_health_set(struct input_evdev *ie, enum status_health health,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The same as input_evdev_health_set_why() for a given device only: in a
 * scan one node's story misleads.
 */
void input_evdev_health_given_why(struct input_evdev *ie, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Sets the health to down, with what is known of why. */
void input_evdev_health_down(struct input_evdev *ie);

/* Remembers the first node of a scan that could not be opened. */
void input_evdev_health_denied(struct input_evdev *ie, const char *name,
			       const char *path, int err);

/* Forgets the node remembered above (any node when name is NULL). */
void input_evdev_health_denied_clear(struct input_evdev *ie, const char *name);

#endif
