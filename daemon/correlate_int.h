/*
 * What the parts of the correlator (correlate.h) share and no caller
 * needs: the layout of a struct correlate and of what it holds, and the
 * saturating arithmetic every part uses on times.
 */
#ifndef TAPD_CORRELATE_INT_H
#define TAPD_CORRELATE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "correlate.h"

/* A shared, reference-counted copy of an app or layer name. */
struct istr {
	struct istr *next;
	uint32_t hash;
	uint32_t refs;
	size_t len;
	char s[];
};

struct frame {
	int64_t start_ns;
	int64_t present_ns;
	uint64_t seq; /* arrival order, for ties */
	struct istr *app;
	struct istr *layer;
	int32_t pid;
	uint32_t jank;
	uint32_t jank_tags;
	unsigned flags; /* CORRELATE_FRAME_* */
	int dead;
};

struct ptap {
	uint64_t id;
	int64_t t_down_ns;
	int64_t t_up_ns;
	int64_t window_end_ns;
	struct istr *app;
	int32_t pid;
	int by_touch; /* the window ended at a touch-down, not at the cap */
	int64_t launch_end_ns; /* docs: the launch window's end */
};

/* A response frame copied out for sorting. */
struct rframe {
	int64_t present_ns;
	int64_t start_ns;
	uint64_t seq;
	uint32_t jank;
	uint32_t jank_tags;
	unsigned flags;
};

struct correlate {
	struct correlate_config cfg;
	int have_coverage;
	int64_t coverage_start_ns;

	struct istr **buckets;
	size_t nbuckets;
	size_t nstrings;
	struct istr *last_intern; /* the name interned last, while kept */

	struct frame *pool;
	uint32_t *free_slots;
	/*
	 * The two indexes, each a window of nframes entries into an array
	 * of idx_cap: dropping the oldest frames moves the window's start,
	 * and the window goes back to the array's start only when its end
	 * reaches the array's, so a drop costs what it drops.
	 */
	uint32_t *by_start;
	uint32_t *by_present;
	uint32_t *start_mem;
	uint32_t *present_mem;
	uint32_t idx_cap;
	uint32_t pool_cap;  /* slots allocated, and size of free_slots */
	uint32_t pool_used; /* slots ever handed out */
	uint32_t nfree;
	uint32_t nframes;
	uint32_t max_frames;
	uint64_t next_seq;

	struct ptap *taps;
	size_t tap_head;
	size_t tap_end;
	size_t tap_cap;
	int64_t last_tap_up_ns;

	int64_t *tds;
	size_t ntds;
	size_t tds_cap;

	const struct foreground *fg; /* launch detection's timeline, or NULL */

	int64_t input_wm;
	int64_t frames_wm;
	int64_t horizon;

	struct rframe *scratch;
	size_t scratch_cap;
	/* The response frames of the result being handed out. */
	struct correlate_resp_frame *resp;
	size_t resp_cap;

	struct correlate_stats stats;
};

static inline int64_t
correlate_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t
correlate_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t
correlate_max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

#endif
