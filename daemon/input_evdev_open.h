/*
 * One node of the libevdev source (input_evdev.h) opened and judged.
 */
#ifndef TAPD_INPUT_EVDEV_OPEN_H
#define TAPD_INPUT_EVDEV_OPEN_H

#include "input_evdev_int.h"

/*
 * Opens the node name in ie->dir and makes it the current device if it
 * is a touch screen (or, when it was given, any touch device).  Returns
 * 0 when it became the current device; -ENOTSUP when it is not wanted;
 * -ENOENT when there is no such node; another negative errno when it
 * could not be set up, with *retry set when open() failed in a way that
 * may pass.
 */
int input_evdev_open_try(struct input_evdev *ie, const char *name, int *retry);

#endif
