/*
 * Live touch input from the kernel through libevdev.
 *
 * The source finds the touch screen under <sysroot>/dev/input the way
 * Android's EventHub does (input_evdev_classify()), or uses the one device
 * it was given, and reads it without ever grabbing it: Android's own
 * InputReader keeps reading the same device.  Event times are the
 * kernel's, in CLOCK_MONOTONIC (EVIOCSCLOCKID is set right after open(); a
 * device that refuses it is not used, since REALTIME stamps would corrupt
 * every latency).
 *
 * Event times never go back: an event stamped before the one passed on
 * before it (a driver's own timestamps, a device that came back with a
 * clock of its own) is given that one's time instead, counted and warned
 * about once per device opened.  Gestures, the foreground and the
 * correlator all rely on input in time order, and a tap whose finger-up
 * came before one still waiting would be paired out of order; a few
 * microseconds of latency on the late event is the price.  With
 * CLOCK_MONOTONIC set the kernel's own stamps never go back, also across
 * an unplug and a re-open.
 *
 * Devices come and go: an unplugged device (-ENODEV, or a hang-up on its
 * fd) is closed and reported, and inotify on the device directory picks up
 * new or returning devices at once.  A node that cannot be opened yet (udev
 * still setting its permissions) is retried every 100 ms for 2 s.  When the
 * directory itself is missing, or inotify is unavailable, the directory is
 * rescanned every 500 ms.  Having no touch screen is not an error: the
 * source waits for one, its health "down".
 *
 * Devices whose name, phys or uniq starts with the ignore prefix are never
 * read: they are the daemon's own uinput devices, whose events would
 * otherwise come back as input.
 *
 * Everything is behind one pollable fd (an epoll fd holding the inotify
 * fd, a timerfd and the device fd), read by input_evdev_dispatch() when it
 * is readable.  Not thread-safe: one thread owns the object.
 */
#ifndef TAPD_INPUT_EVDEV_H
#define TAPD_INPUT_EVDEV_H

#include <stdint.h>

#include "touch.h"

/*
 * tapd's uinput clone of the touch screen (inject_uinput.h), read beside
 * the screen it clones: its phys, and what its name adds to the screen's
 * (a long name is cut before the suffix, the 80 bytes of uinput).
 */
#define INPUT_EVDEV_CLONE_PHYS	    "tapd-inject"
#define INPUT_EVDEV_CLONE_SUFFIX    " tapd-inject"
#define INPUT_EVDEV_NAME_MAX_UINPUT 80

struct libevdev;
struct status;

struct input_evdev_config {
	/*
	 * Prefix of every path (tests only): the scan reads
	 * <sysroot>/dev/input and a given device is <sysroot><device>.  NULL
	 * or "" for none.
	 */
	const char *sysroot;
	/*
	 * The device to read ("/dev/input/event3"), or NULL to pick the touch
	 * screen with the lowest event number.  A given device is used when it
	 * has touch axes, with a warning when it lacks INPUT_PROP_DIRECT.
	 */
	const char *device;
	/* Name, phys or uniq prefix of devices never read; NULL for "tapd-". */
	const char *ignore_prefix;
	/* Where the health of STATUS_SOURCE_INPUT goes; may be NULL. */
	struct status *status;
};

/*
 * Called from input_evdev_dispatch().  event receives every event of the
 * device in kernel order; returning a negative errno stops the dispatch,
 * which returns it (the events not yet read stay queued).  added is called
 * once a device is open, before any of its events, and removed after it
 * went away and was closed, so that the caller can end the contacts still
 * down (touch_flush()).  Any of the three may be NULL.
 *
 * After a SYN_DROPPED the events are, in order: the SYN_DROPPED itself, a
 * SYN_REPORT made up here with the same time (it ends the incomplete frame
 * the touch tracker throws away), then libevdev's resync, the device state
 * that changed during the drop, stamped with the drop's time: a frame with
 * ABS_MT_TRACKING_ID -1 for every touch that stopped or changed (a finger
 * lifted meanwhile ends there), then a frame with the rest (keys, axes,
 * touches that started), each ending with a SYN_REPORT.  Strings passed
 * to added and removed are valid only during the call.
 */
struct input_evdev_callbacks {
	int (*event)(void *ctx, const struct touch_event *ev);
	void (*added)(void *ctx, const char *path, const char *name);
	void (*removed)(void *ctx, const char *path);
};

/* Counters since input_evdev_new(). */
struct input_evdev_stats {
	uint64_t events;	  /* passed to the event callback */
	uint64_t syn_dropped;	  /* SYN_DROPPED read from the device */
	uint64_t devices_added;	  /* devices opened and reported */
	uint64_t devices_removed; /* devices gone and reported */
	/*
	 * Candidate nodes that could not be used: open() failing after the
	 * retries, or EVIOCSCLOCKID or libevdev refusing the fd.
	 */
	uint64_t open_failures;
	/* Events stamped before the one before them, given its time. */
	uint64_t backwards;
};

/* What a device is, by Android's rules (EventHub and TouchInputMapper). */
enum input_evdev_class {
	INPUT_EVDEV_OTHER,    /* no touch axes, or a joystick's */
	INPUT_EVDEV_TOUCHPAD, /* touch axes without INPUT_PROP_DIRECT */
	INPUT_EVDEV_TOUCHSCREEN,
};

struct input_evdev;

/*
 * Sets up the watch and opens the touch screen if there is one now.
 * Succeeds without a device (health "down") and waits for one.  Returns 0
 * and sets *out, -EINVAL for a bad config, -ENAMETOOLONG for a path that
 * does not fit, -ENOMEM, or the negative errno of epoll or timerfd.  The
 * strings in cfg are copied.  Free with input_evdev_free().
 */
int input_evdev_new(const struct input_evdev_config *cfg,
		    struct input_evdev **out);

/* Closes every fd it opened.  NULL is a no-op. */
void input_evdev_free(struct input_evdev *ie);

/*
 * The fd to poll for reading: when readable, call input_evdev_dispatch().
 * Owned by the object, valid until input_evdev_free().
 */
int input_evdev_fd(const struct input_evdev *ie);

/*
 * Does what is ready without blocking: reports a new device, reads its
 * events, notices unplugs, hotplug and retries.  Returns 0, or a negative
 * errno from a callback or from epoll.  Problems with devices are handled
 * here (logged, counted, in the health) and never returned.
 */
int input_evdev_dispatch(struct input_evdev *ie,
			 const struct input_evdev_callbacks *cb, void *ctx);

/*
 * The range of an absolute axis of the current device: ABS_MT_POSITION_X
 * and _Y on a multitouch screen, ABS_X and ABS_Y on a single-touch one.
 * Returns 0 and sets *min and *max, -ENODEV when no device is open, or
 * -ENOENT when it lacks the axis.  Valid from the added callback on.
 */
int input_evdev_axis(const struct input_evdev *ie, uint16_t code, int32_t *min,
		     int32_t *max);

/*
 * The time an event stamped t_ns is passed on with, when *last_ns is the
 * time of the one passed on before it (INT64_MIN before the first): t_ns,
 * or *last_ns when t_ns is earlier.  Updates *last_ns.
 */
int64_t input_evdev_clamp_time(int64_t *last_ns, int64_t t_ns);

/* The current device's path and name, or NULL when none is open. */
const char *input_evdev_path(const struct input_evdev *ie);

/*
 * The path of tapd's clone of the current device (inject_uinput.h), read
 * beside it, or NULL when there is none.
 */
const char *input_evdev_clone_path(const struct input_evdev *ie);
const char *input_evdev_name(const struct input_evdev *ie);

/* Copies the counters into *st. */
void input_evdev_get_stats(const struct input_evdev *ie,
			   struct input_evdev_stats *st);

/*
 * Classifies a device from its capabilities alone (no fd needed): touch
 * axes are ABS_MT_POSITION_X and _Y with BTN_TOUCH or no joystick buttons,
 * or else ABS_X, ABS_Y and BTN_TOUCH (a single-touch screen); with
 * INPUT_PROP_DIRECT they make a touch screen, without it a pointer.
 */
enum input_evdev_class input_evdev_classify(const struct libevdev *dev);

#endif
