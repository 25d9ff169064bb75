/*
 * What the parts of the FrameTimeline reader (frames_ftl.h) share and no
 * caller needs: the layout of a struct frames_ftl and of its pending state.
 */
#ifndef TAPD_FRAMES_FTL_INT_H
#define TAPD_FRAMES_FTL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frames_ftl.h"
#include "frames_ftl_event.h"
#include "frames_ftl_table.h"

#define NS_PER_S 1000000000LL

/* Perfetto drops timestamps this close to INT64_MAX as platform bugs. */
#define TS_LIMIT (INT64_MAX - 10 * NS_PER_S)

/* Builtin clock ids 1 .. CLOCK_SLOTS - 1 are kept from each snapshot. */
#define CLOCK_SLOTS 16

/*
 * Snapshots kept for conversion.  traced keeps a new one only after a
 * clock drifted (a suspend), so a handful covers any time still pending.
 */
#define SNAP_MAX 16

#define NONE_IDX UINT32_MAX

/* The header fields of one TracePacket. */
struct frames_ftl_pkt {
	bool has_ts;
	bool has_clock;
	uint32_t clock;
	uint32_t seq;
	uint64_t ts;
};

enum frames_ftl_surf_state {
	SURF_FREE,
	SURF_OPEN,    /* started, FrameEnd not seen */
	SURF_WAITING, /* ended, its display frame's present not seen */
};

/* A surface frame being assembled. */
struct frames_ftl_surf {
	enum frames_ftl_surf_state state;
	uint32_t seq;
	uint32_t next_free;
	int64_t cookie;
	int64_t t; /* start while open, ready time while waiting */
	struct frames_ftl_frame f;
};

/* A display present as it was added, for the sweep (frames_ftl_join.c). */
struct frames_ftl_pres {
	int64_t token;
	int64_t t;
	uint32_t seq;
};

/*
 * An event held back for a ClockSnapshot still to come: decoded, its
 * layer name copied into the reader's held_names at layer_off.
 */
struct frames_ftl_held {
	struct frames_ftl_pkt pk;
	int kind;
	struct frames_ftl_event ev;
	size_t layer_off;
};

struct frames_ftl_snap {
	int64_t val[CLOCK_SLOTS];
	uint32_t have; /* bit i: val[i] is set */
};

struct frames_ftl {
	struct frames_ftl_config cfg;
	struct frames_ftl_stats st;
	bool eof;
	bool broken;

	/* Framing: an incomplete record, or the rest of one to skip. */
	uint8_t *pend;
	size_t pend_len;
	size_t pend_cap;
	uint64_t pend_need; /* its full size, 0 while unknown */
	uint64_t skip;
	uint64_t rec_at;   /* stream offset of the next record to frame */
	uint64_t skip_at;  /* stream offset of the record being skipped */
	uint64_t skip_len; /* and its declared payload length */

	struct frames_ftl_snap snaps[SNAP_MAX];
	unsigned nsnaps;
	unsigned snap_next;
	uint32_t snap_clocks; /* bit i: some kept snapshot has clock i */
	uint32_t primary_clock;
	/*
	 * The last conversion's snapshot, valid for every time of conv_clock
	 * in [conv_lo, conv_hi): the one the search would find again.
	 * conv_clock 0 when none is kept (a snapshot came since).
	 */
	uint32_t conv_clock;
	int64_t conv_lo;
	int64_t conv_hi;
	const struct frames_ftl_snap *conv_snap;

	/* Events held back for a snapshot (frames_ftl_clock.h). */
	struct frames_ftl_held *held;
	uint32_t held_len;
	size_t held_cap;
	uint8_t *held_names;
	size_t names_len;
	size_t names_cap;
	int64_t held_wm; /* the watermark when the first was held */
	bool assume;	 /* stopped waiting: offset 0 without a snapshot */
	bool replaying;	 /* the held events are being applied */
	bool warned;

	struct frames_ftl_table open;
	/*
	 * No open start is older than this (INT64_MAX when none is open):
	 * a sweep whose horizon is not past it would drop none of them,
	 * and skips their table.
	 */
	int64_t open_oldest;
	struct frames_ftl_table presents;
	/*
	 * The presents in time order, a ring of pres_cap.  While it is
	 * sorted (pres_sorted) those a sweep drops are the first ones, and
	 * it drops them without a pass over the table.  One pushed out of
	 * the full table stays in the ring until it reaches the head.
	 */
	struct frames_ftl_pres *pres;
	uint32_t pres_head;
	uint32_t pres_len;
	uint32_t pres_cap;
	bool pres_sorted;
	struct frames_ftl_surf *pool;
	uint32_t pool_free;
	uint32_t waiting;

	int64_t now; /* newest FrameTimeline time seen */
	int64_t last_sweep;
	int64_t max_present;
	int64_t wm;
	int64_t cov;
	bool cov_fixed; /* cov came from a snapshot before any event */

	struct frames_ftl_frame *q;
	uint32_t q_head;
	uint32_t q_len;
	uint32_t q_cap;
};

#endif
