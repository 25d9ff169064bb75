/*
 * Gestures injected through the kernel (docs/DESIGN.md 3.12): tapd writes
 * input_events into the touch screen's own evdev node, as a finger's
 * driver would report them, so that they go through the kernel, the
 * InputReader and the InputDispatcher like any touch, and tapd reads them
 * back from the same node like any touch.
 *
 * Three sides, each from its own thread:
 *  - the HTTP threads submit gestures (inject_submit()), which queue in
 *    order, and wait for them (inject_wait());
 *  - one worker thread of the injector's own writes them, one at a time:
 *    never while a finger that is not tapd's is down (it waits), in the
 *    lowest slot no contact holds, with a tracking id of its own, reading
 *    CLOCK_MONOTONIC just before and just after each write();
 *  - the ingest thread tells it every contact it reads (inject_observe())
 *    and asks at the end of each gesture whether it was one tapd wrote
 *    (inject_flags()).  A contact is tapd's when its slot and tracking id
 *    are the ones written and its kernel times lie inside the writes'
 *    clock readings: matched, never assumed from a gesture being due.
 *
 * The target is the device the input source reads, or the one given
 * (--inject-device, any file: a test's stand-in), set by the ingest
 * thread with the geometry that turns display px into panel units
 * (inject_seq.h).  Besides, a device that is a uinput device (its sysfs
 * node under /sys/devices/virtual) and not tapd's makes its gestures
 * virtual_device: some other program injects them.
 */
#ifndef TAPD_INJECT_H
#define TAPD_INJECT_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "inject_seq.h"
#include "inject_uinput.h"
#include "touch.h"

enum inject_kind {
	INJECT_TAP,
	INJECT_LONG_PRESS,
	INJECT_SWIPE,
};

/* One gesture as asked for, in display px and ms. */
struct inject_gesture {
	enum inject_kind kind;
	double x, y;	     /* where it goes down */
	double x2, y2;	     /* a swipe's end */
	int64_t hold_ms;     /* tap, long_press: from down to up */
	int64_t duration_ms; /* swipe: from down to up */
};

/* Bounds of what inject_submit() takes. */
#define INJECT_HOLD_MAX_MS     10000
#define INJECT_DURATION_MAX_MS 10000
#define INJECT_TAP_HOLD_MS     60
#define INJECT_PRESS_HOLD_MS   800
#define INJECT_SWIPE_MS	       300

enum inject_state {
	INJECT_QUEUED,
	INJECT_WRITING,
	INJECT_WRITTEN,	  /* every frame written, not read back (yet) */
	INJECT_READ_BACK, /* read back from the touch screen */
	INJECT_FAILED,
};

/* One gesture of the injector, as inject_get() copies it. */
struct inject_record {
	int64_t id;
	struct inject_gesture g;
	enum inject_state state;
	int err; /* INJECT_FAILED: the negative errno */
	int32_t slot, tid;
	int32_t raw_x, raw_y;
	/* CLOCK_MONOTONIC just before and after the first and last write(). */
	int64_t first_before_ns, first_after_ns;
	int64_t final_before_ns, final_after_ns;
	/* The kernel's times as read back; -1 until then. */
	int64_t t_down_ns, t_up_ns;
	/* events_last_id() when it was queued, for a wait on the stream. */
	int64_t events_after;
};

struct inject_config {
	/* The file written instead of the input's device; NULL for none. */
	const char *device;
	const char *sysroot; /* prefix of /sys paths, NULL or "" for none */
	/*
	 * --inject-via: the screen's node, a uinput clone of it, or the clone
	 * once the node refuses (inject_uinput.h); and the uinput node, NULL
	 * for /dev/uinput.
	 */
	enum inject_via via;
	const char *uinput;
	unsigned rate;	    /* gestures accepted per second, default 20 */
	unsigned queue_max; /* gestures waiting, default 64 */
	/*
	 * Whether gestures are written at all (--allow-inject): without it
	 * there is no worker, inject_submit() fails with -EPERM, and only
	 * the virtual_device flag is given.
	 */
	int enabled;
};

struct inject;

/*
 * Makes the injector and starts its worker.  Returns 0 and sets *out,
 * -EINVAL for a rate above 1000, -ENOMEM, or pthread's errno.  Free with
 * inject_free().
 */
int inject_new(const struct inject_config *cfg, struct inject **out);

/* Stops the worker (a gesture being written is finished).  NULL: no-op. */
void inject_free(struct inject *inj);

/*
 * Ingest thread: the device the input source reads now (NULL when none),
 * the clone of it the source reads too (NULL when none), and what turns
 * px into its units.  The device given in the config, when there is one,
 * is written instead, with the same geometry.
 */
void inject_set_target(struct inject *inj, const char *path,
		       const char *clone_read,
		       const struct inject_geometry *geo);

/* Ingest thread: one change of a contact, as the touch tracker made it. */
void inject_observe(struct inject *inj, const struct touch_point *pt);

/*
 * Ingest thread: the flags of the gesture whose first contact went down
 * as first and which ended at t_up_ns: STORE_FLAG_INJECTED when it is a
 * gesture the injector wrote (its record is then read back),
 * STORE_FLAG_VIRTUAL_DEVICE when the device is a uinput device not
 * tapd's.  NULL inj: 0.
 */
unsigned inject_flags(struct inject *inj, const struct touch_point *first,
		      int64_t t_up_ns);

/* inject_submit() flags. */
#define INJECT_QUEUE 0x1u /* wait for a finger down to lift */

/*
 * HTTP thread: queues g; *id is its id.  Returns 0; -EINVAL for a gesture
 * out of bounds; -EAGAIN past the rate limit; -EBUSY when a finger that
 * is not tapd's is down (unless INJECT_QUEUE); -ENOSPC with the queue
 * full; -ENODEV with no device to write; -ERANGE for a point outside the
 * panel.  events_after is kept in the record.
 */
int inject_submit(struct inject *inj, const struct inject_gesture *g,
		  unsigned flags, int64_t events_after, int64_t *id);

/* A copy of gesture id: 0, or -ENOENT when it is unknown or forgotten. */
int inject_get(struct inject *inj, int64_t id, struct inject_record *out);

/*
 * Waits until gesture id is read back or failed, or until deadline_ns
 * (CLOCK_MONOTONIC).  Returns 0 with *out filled (its state says which),
 * -ETIMEDOUT with *out as it is then, -ENOENT, or -ESHUTDOWN.
 */
int inject_wait(struct inject *inj, int64_t id, int64_t deadline_ns,
		struct inject_record *out);

/* {"gestures": [...]}: the gestures remembered, oldest first. */
cJSON *inject_list_json(struct inject *inj);

/* One record as the API shows it. */
cJSON *inject_record_json(const struct inject_record *r);

/* The injector's part of /v1/health: mode, device, counters. */
cJSON *inject_health_json(struct inject *inj);

/* "tap", "long_press", "swipe"; "queued", "writing", ... */
const char *inject_kind_name(enum inject_kind k);
const char *inject_state_name(enum inject_state s);

/*
 * Whether the evdev node path (…/eventN) is a uinput device: its entry
 * in <sysroot>/sys/class/input resolves into /sys/devices/virtual.
 */
int inject_is_virtual(const char *sysroot, const char *path);

#endif
