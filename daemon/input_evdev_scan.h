/*
 * Device discovery and hotplug of the libevdev source (input_evdev.h).
 */
#ifndef TAPD_INPUT_EVDEV_SCAN_H
#define TAPD_INPUT_EVDEV_SCAN_H

#include <stdint.h>

#include "input_evdev_int.h"

/* Looks for a device when there is none: the given node or every eventN. */
void input_evdev_scan(struct input_evdev *ie, int64_t now);

/* Watches ie->dir with inotify unless it is watched already. */
void input_evdev_scan_watch(struct input_evdev *ie);

/* Reads the inotify events of ie->dir and acts on them. */
void input_evdev_scan_inotify(struct input_evdev *ie, int64_t now);

/* Handles the timer: the watch poll, the retries and the rescan. */
void input_evdev_scan_timer(struct input_evdev *ie, int64_t now);

#endif
