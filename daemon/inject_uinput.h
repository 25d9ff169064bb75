/*
 * The injector's fallback (docs/DESIGN.md 3.12): a uinput device cloning
 * the touch screen, for a screen whose own node refuses writes.  Its name
 * is the screen's with INPUT_EVDEV_CLONE_SUFFIX, its phys
 * INPUT_EVDEV_CLONE_PHYS (input_evdev.h): the phys makes the scan of the
 * input source pass it by as one of tapd's own devices, and both make
 * the source read it beside the screen it clones, so that what tapd
 * writes there is read back like any touch.  Everything else is the
 * screen's, read through libevdev: its ids, its event bits (keys, ABS
 * axes with their ranges and resolution, MSC), its INPUT_PROP_* bits.
 */
#ifndef TAPD_INJECT_UINPUT_H
#define TAPD_INJECT_UINPUT_H

#include <stddef.h>

/* The choice of --inject-via. */
enum inject_via {
	INJECT_VIA_AUTO,  /* the node; the clone once the node refuses */
	INJECT_VIA_EVDEV, /* the node only */
	INJECT_VIA_UINPUT /* the clone always */
};

struct inject_uinput;

/*
 * "auto", "evdev", "uinput": 0 and *out; -EINVAL for anything else.
 */
int inject_uinput_parse_via(const char *s, enum inject_via *out);
const char *inject_uinput_via_name(enum inject_via v);

/*
 * Whether a write()'s or open()'s errno, or a short write (-EIO from the
 * writer), is the node refusing to be written, for which the clone is
 * the fallback: EPERM, EACCES, EROFS, EINVAL and a short write.  Other
 * errors (a device gone, out of memory) are not helped by a clone.
 */
int inject_uinput_refusal(int err);

/*
 * Makes the clone of the evdev node screen through uinput_path (NULL for
 * /dev/uinput).  Returns 0 and sets *out, or a negative errno with why
 * set.  Free with inject_uinput_free().
 */
int inject_uinput_new(const char *screen, const char *uinput_path,
		      struct inject_uinput **out, char *why, size_t why_size);

/* Destroys the device.  NULL is a no-op. */
void inject_uinput_free(struct inject_uinput *u);

/* The fd that takes struct input_event writes, as an evdev node would. */
int inject_uinput_fd(const struct inject_uinput *u);

/* Its node ("/dev/input/event7"), NULL while the kernel did not say. */
const char *inject_uinput_devnode(const struct inject_uinput *u);

/* The name it was given, and the screen it clones. */
const char *inject_uinput_name(const struct inject_uinput *u);
const char *inject_uinput_screen(const struct inject_uinput *u);

#endif
