/*
 * What the parts of the libevdev source (input_evdev.h) share and no
 * caller needs: the layout of a struct input_evdev.
 */
#ifndef TAPD_INPUT_EVDEV_INT_H
#define TAPD_INPUT_EVDEV_INT_H

#include <limits.h>
#include <stdint.h>
#include <sys/inotify.h>

#include "input_evdev.h"
#include "status.h"

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
	EVDEV_TAG_CLONE,
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
	 * tapd's clone of it (input_evdev_clone.c), cfd -1 and cdev NULL
	 * when none; and which of the two the last event came from, 1 for
	 * the clone, to tell the tracker the slot when the other one speaks.
	 */
	int cfd;
	struct libevdev *cdev;
	char cpath[PATH_MAX];
	int last_from;
	/*
	 * A callback failed: libevdev may still hold events it read, which
	 * the device fd no longer signals, so the next dispatch reads anyway.
	 */
	int read_again;
	/*
	 * The time of the last event passed on, kept across devices, and
	 * whether the current device's going back was warned about.
	 */
	int64_t last_ns;
	int warned_back;

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

struct input_evdev_callbacks;
struct input_event;

/*
 * Passes one event read from the screen (from 0) or its clone (1) to the
 * event callback, with its time kept from going back.
 */
int input_evdev__deliver(struct input_evdev *ie,
			 const struct input_evdev_callbacks *cb, void *ctx,
			 const struct input_event *ev, int from);

#endif
