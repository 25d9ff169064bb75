/*
 * Touch tracker: turns raw evdev events (multitouch protocol A or B) into
 * contacts that go down, move and go up, stamped with the kernel time of
 * the SYN_REPORT that carried each change.  Pure: no I/O, no clocks, so
 * the same code serves libevdev, getevent logs, tests and the fuzzer.
 */
#ifndef TAPD_TOUCH_H
#define TAPD_TOUCH_H

#include <stdint.h>

/* One evdev event as read from the kernel or a log, time in CLOCK_MONOTONIC ns.
 */
struct touch_event {
	int64_t time_ns;
	uint16_t type;
	uint16_t code;
	int32_t value;
};

enum touch_phase {
	TOUCH_DOWN,
	TOUCH_MOVE,
	TOUCH_UP,
};

/*
 * Contacts tracked at once: protocol B slots 0 to TOUCH_MAX_SLOTS - 1, and
 * as many protocol A contacts per frame.  More are counted in
 * touch_stats.slots_overflow and ignored.
 */
#define TOUCH_MAX_SLOTS 16

/* A SYN_DROPPED happened while this contact was down (or hid its start or end).
 */
#define TOUCH_FLAG_DROPPED 0x1u

/* One change of one contact, delivered when the SYN_REPORT that ends its frame
 * arrives. */
struct touch_point {
	enum touch_phase phase;
	uint64_t contact; /* serial number of the contact, unique per tracker */
	int64_t time_ns;  /* time of the SYN_REPORT */
	int32_t x, y;	  /* raw axis values (last known position) */
	unsigned active;  /* contacts down after this change */
	unsigned flags;	  /* TOUCH_FLAG_* */
	/*
	 * The protocol B slot of the contact and its tracking id, -1 for a
	 * protocol A or single-touch contact (and an id never seen).
	 */
	int32_t slot;
	int32_t tracking_id;
};

/* Counters since touch_new(). */
struct touch_stats {
	uint64_t events;      /* events fed */
	uint64_t frames;      /* SYN_REPORTs */
	uint64_t contacts;    /* contacts that went down */
	uint64_t syn_dropped; /* SYN_DROPPED events */
	uint64_t
		discarded; /* events thrown away while resyncing after a drop */
	uint64_t ignored;  /* events of no interest (other axes, keys) */
	uint64_t slots_overflow; /* contacts beyond the tracker's slot limit */
	uint64_t cut; /* contacts still down when the input ended (touch_end())
		       */
};

/*
 * Receives the changes of one frame.  Within a frame, ups come first, then
 * moves, then downs, so a finger that lifts while another lands ends its
 * gesture before the next one starts.  Returns 0, or a negative errno that
 * touch_feed() passes back to its caller.
 */
typedef int (*touch_cb)(void *ctx, const struct touch_point *pt);

struct touch;

/* Allocates a tracker.  Returns 0 and sets *out, or -ENOMEM.  Free with
 * touch_free(). */
int touch_new(struct touch **out);

/* NULL is a no-op. */
void touch_free(struct touch *t);

/*
 * Feeds one event.  When ev is a SYN_REPORT that ends a frame with changes,
 * calls cb once per change.  Returns 0, or what cb returned if negative.
 */
int touch_feed(struct touch *t, const struct touch_event *ev, touch_cb cb,
	       void *ctx);

/*
 * Ends every contact still down, as at the end of a recording or an
 * unplugged device: each gets a TOUCH_UP at time_ns with TOUCH_FLAG_DROPPED
 * set, since its real end was never seen.  Returns as touch_feed().
 */
int touch_flush(struct touch *t, int64_t time_ns, touch_cb cb, void *ctx);

/*
 * The input ended (a log read to its end, a live source stopped) with
 * contacts still down.  Their gesture never ended, so nothing says what
 * it was: unlike touch_flush(), no TOUCH_UP is delivered.  They are
 * forgotten, counted in touch_stats.cut, and their number is returned; a
 * second call returns 0.
 */
unsigned touch_end(struct touch *t);

/* Copies the counters into *st. */
void touch_get_stats(const struct touch *t, struct touch_stats *st);

#endif
