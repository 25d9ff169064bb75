/*
 * Store cover: sums of the pre-aggregated tables over a range of wall
 * time, for store_query.c.  A range is covered by the coarsest periods
 * that fit in it (days, then hours, then minutes at its ends); what is
 * left at its very ends is read from the rows.  Both answers are exact
 * counts, never estimates:
 *
 *  - the latency histogram of tap_hist over whole minutes, from the
 *    periods inside the range, or from tap_hist_sum (every day row
 *    summed) less the periods outside it, whichever reads fewer rows;
 *  - the gestures of one app by status, from tap_counts (hours and days)
 *    and the rows of the partial hours at the range's ends
 *    (sql/003-summaries.sql).
 *
 * Private to the store's query files: the functions take the reader's
 * connection, inside a read transaction the caller holds.
 */
#ifndef TAPD_STORE_COVER_H
#define TAPD_STORE_COVER_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/*
 * Adds to hist[STORE_HIST_BUCKETS] the counts of tap_hist for scope (an
 * app or STORE_HIST_ALL_APPS) and metric over the whole minutes [m0, m1).
 * Returns 0, -ENOMEM, -EIO for a row out of range, or a negative errno
 * from SQLite.
 */
int store_cover__hist(sqlite3 *db, const char *scope, int metric, int64_t m0,
		      int64_t m1, int64_t *hist);

/*
 * Counts the gestures of app (NULL: those of unknown app), of any kind,
 * with wall time in f's range (both ends open: every one, known wall time
 * or not) and of f's session (0: any), by status into
 * status[STORE_STATUS_COUNT] (set, not added to), and their sum into
 * *total.  f's other fields are ignored.  A session has no summary: its
 * taps are counted from the rows, through their own index.  Returns 0 or
 * a negative errno.
 */
int store_cover__status(sqlite3 *db, const struct store_filter *f,
			const char *app, int64_t *status, int64_t *total);

/*
 * Lists every app name of the file, in order, then NULL for the taps of
 * unknown app: *names (n entries, each and the array malloc'd; the caller
 * frees them).  Returns 0, -ENOMEM or a negative errno from SQLite.
 */
int store_cover__app_names(sqlite3 *db, char ***names, size_t *n);

#endif
