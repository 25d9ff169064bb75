/*
 * Store taps: the rows of the taps table as plain C data, for the readers
 * of the API (the taps listing, the trace, the sessions) and for the
 * metrics, each selected by a struct store_filter.  No SQL leaves the
 * store: a reader gets each row through a callback, its strings borrowed
 * for the length of the call.
 */
#ifndef TAPD_STORE_TAPS_H
#define TAPD_STORE_TAPS_H

#include <stdint.h>

#include "store.h"

/*
 * Receives one tap and its id.  Returns 0 to go on, 1 to stop the walk
 * there (not an error), or a negative errno to fail it.
 */
typedef int (*store_tap_cb)(void *ctx, int64_t id, const struct store_tap *tap);

/* The orders of store_taps_walk(). */
enum store_order {
	/*
	 * By id.  The filter's app, kind, status and time range are then
	 * checked on the rows as the walk goes rather than through their
	 * indexes, which would sort every match before the first row came
	 * out: a page of the listing costs the rows up to its end.  A
	 * session's partial index lists its rows in id order, so that one is
	 * still used.
	 */
	STORE_ORDER_ID,
	STORE_ORDER_WALL,     /* by wall_ns, then id */
	STORE_ORDER_APP_WALL, /* by app (unknown first), wall_ns, then id */
};

/*
 * Calls cb for the taps that match f, in order, at most limit of them (0
 * for no limit).  Returns 0 (all walked, or cb stopped it), what cb
 * returned when negative, -EINVAL for a bad argument, or a negative errno
 * from SQLite.
 */
int store_taps_walk(struct store *st, const struct store_filter *f,
		    enum store_order order, int64_t limit, store_tap_cb cb,
		    void *ctx);

/*
 * The id of the newest tap (the largest: ids only grow), 0 when there is
 * none.  One look at the end of the table's b-tree, cheap enough to ask
 * often.  Returns 0 and sets *id, or a negative errno.
 */
int store_taps_last_id(struct store *st, int64_t *id);

/* Counts the taps that match f.  Returns 0 and sets *n, or an errno. */
int store_taps_count(struct store *st, const struct store_filter *f,
		     int64_t *n);

/* Receives one response frame of a tap and its seq; returns as above. */
typedef int (*store_frame_cb)(void *ctx, int64_t seq,
			      const struct store_frame *fr);

/*
 * Calls cb for the response frames of tap id, by seq, at most limit of
 * them.  Returns 0, what cb returned when negative, or an errno.
 */
int store_tap_frames(struct store *st, int64_t id, int64_t limit,
		     store_frame_cb cb, void *ctx);

/*
 * One read transaction over several calls, so that they all see the same
 * rows while the writer commits: store_read_begin() opens it unless one
 * is open already, store_read_end() ends any (a reader has nothing to
 * keep).  Returns 0 or a negative errno.
 */
int store_read_begin(struct store *st);
void store_read_end(struct store *st);

/*
 * The number of distinct apps of the taps, the unknown app counted as one
 * when it has taps.  Returns 0 and sets *n, or a negative errno.
 */
int store_apps_count(struct store *st, int64_t *n);

/* Receives an app name; returns as store_tap_cb does. */
typedef int (*store_app_cb)(void *ctx, const char *app);

/*
 * Calls cb for the limit known apps with the most taps of the measured
 * kinds, the busiest first (ties by name).  Returns 0, what cb returned
 * when negative, or an errno.
 */
int store_apps_busiest(struct store *st, int64_t limit, store_app_cb cb,
		       void *ctx);

/*
 * Calls cb for every tap in storage order, one pass over the table with
 * no sort.  Only app, kind, status, first_frame_ns, settle_ns, flags and
 * launch_first_frame_ns of the tap are read; the other members are 0, the
 * other latencies -1.  Returns 0, what cb returned
 * when negative, or an errno.
 */
int store_taps_scan(struct store *st, store_tap_cb cb, void *ctx);

#endif
