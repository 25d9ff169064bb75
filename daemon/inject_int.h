/*
 * What the parts of the injector (inject.h) share and no caller needs:
 * the layout of a struct inject.  inject.c has the object, the ingest
 * thread's side and the HTTP threads'; inject_write.c the worker, which
 * writes the gestures; inject_json.c their JSON.
 */
#ifndef TAPD_INJECT_INT_H
#define TAPD_INJECT_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "inject.h"
#include "inject_uinput.h"

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S  INT64_C(1000000000)

/* Gestures remembered (queued ones included), a power of two. */
#define INJECT_RING 256
/* How far back a contact read is matched against the records. */
#define INJECT_LOOKBACK	     8
#define INJECT_RATE_DEFAULT  20
#define INJECT_RATE_MAX	     1000
#define INJECT_QUEUE_DEFAULT 64
#define INJECT_QUEUE_LIMIT   (INJECT_RING / 2)
/* Contacts not tapd's tracked at once; more count as one more down. */
#define INJECT_PHYS_MAX 16
/*
 * The tracking ids tapd writes: a range of its own, far above the small
 * numbers drivers count up from, so that a reader's log tells them apart.
 */
#define INJECT_TID_FIRST 0x7a00
#define INJECT_TID_LAST	 0x7fff
/* A swipe's moves: one every this many ms. */
#define INJECT_MOVE_EVERY_MS 10
#define INJECT_WHY_MAX	     (PATH_MAX + 200)
/* How long a new clone waits for the input source to read it. */
#define INJECT_CLONE_WAIT_MS 3000

struct inject_slot_rec {
	struct inject_record r;
	int used;
	int contact_known; /* the down was read back as this contact */
	uint64_t contact;
	int read_back; /* the up was read back too */
};

struct inject {
	char *device; /* the configured file, NULL for the input's */
	char *sysroot;
	char *uinput;
	unsigned rate, queue_max;
	int enabled;
	enum inject_via via;

	pthread_mutex_t mu;
	pthread_cond_t work; /* the worker: a gesture queued, a finger up */
	pthread_cond_t done; /* the waiters: a record changed */
	pthread_t thread;
	int inited, started;
	int stop;

	struct inject_slot_rec ring[INJECT_RING];
	int64_t next_id; /* the next id given; ids start at 1 */
	int64_t qhead;	 /* the first id not yet taken by the worker */

	/* The target, as the ingest thread last set it. */
	char target[PATH_MAX];
	int have_target;
	struct inject_geometry geo;
	int is_virtual;
	/* The clone the input source reads beside the screen, "" for none. */
	char clone_read[PATH_MAX];
	/* What the health shows of the clone: its node, why it is used. */
	char clone_node[PATH_MAX];
	char clone_why[INJECT_WHY_MAX];

	/* Contacts down that are not tapd's, by serial. */
	uint64_t phys[INJECT_PHYS_MAX];
	unsigned nphys, phys_over;

	/* The times of the last accepted gestures, for the rate limit. */
	int64_t *accepted;
	unsigned nacc, acc_head;
	int32_t next_tid;

	/* The worker's device: only the worker touches these, and why. */
	int fd;
	char fd_path[PATH_MAX];
	int is_evdev;
	/*
	 * The clone (inject_uinput.h), kept while its screen is the target;
	 * fd is then its fd, and slots_fd the screen's node opened to read
	 * which slots its contacts hold.
	 */
	struct inject_uinput *clone;
	int using_clone;
	int slots_fd;
	struct inject_caps caps;
	int32_t nslots;
	char why[INJECT_WHY_MAX];

	uint64_t submitted, written, read_back, failed;
	uint64_t refused_busy, rate_limited, mismatched;
};

/* CLOCK_MONOTONIC ns. */
int64_t inject__now_ns(void);

/* Event times carry microseconds: a bracket's start is cut down alike. */
int64_t inject__us_floor(int64_t ns);

/* The record of gesture id, or NULL once it is forgotten. */
struct inject_slot_rec *inject__rec_of(struct inject *inj, int64_t id);

/* The worker thread (inject_write.c), and the device it closes. */
void *inject__worker(void *arg);
void inject__close_device(struct inject *inj);

/* Destroys the clone, if there is one (the worker, or inject_free()). */
void inject__drop_clone(struct inject *inj);

#endif
