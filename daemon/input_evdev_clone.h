/*
 * tapd's uinput clone of the touch screen (inject_uinput.h), read by the
 * libevdev source beside the screen it clones: the injector's fallback
 * writes there, and its gestures must be read back like the screen's.
 * The scan passes it by (its phys starts with the ignore prefix); a node
 * that appears while the screen is open is taken as the clone when its
 * phys is INPUT_EVDEV_CLONE_PHYS and its name the screen's with
 * INPUT_EVDEV_CLONE_SUFFIX.
 */
#ifndef TAPD_INPUT_EVDEV_CLONE_H
#define TAPD_INPUT_EVDEV_CLONE_H

#include "input_evdev_int.h"

/*
 * Opens the node name of ie->dir and reads it as the clone if it is one.
 * Returns 0 when it is read now, -ENOTSUP when it is no clone of the
 * screen (or there is no screen, or a clone already), another negative
 * errno when it could not be opened or set up.
 */
int input_evdev_clone_try(struct input_evdev *ie, const char *name);

/* Reads what the clone queued; closes it once it is gone. */
int input_evdev_clone_read(struct input_evdev *ie,
			   const struct input_evdev_callbacks *cb, void *ctx,
			   int hangup);

/* Stops reading the clone.  Without one: a no-op. */
void input_evdev_clone_close(struct input_evdev *ie);

#endif
