/*
 * Store rank: exact nearest-rank percentiles from the histogram, for
 * store_query.c.  The exact counts of tap_hist by bucket say which bucket
 * holds rank k and how many values come before it; only that bucket's
 * rows in the range are then read, in the order of the metric, from the
 * partial indexes taps_rank_first and taps_rank_settle
 * (sql/003-summaries.sql): a few thousand index entries instead of a sort
 * of every matching row.  The answer is the stored value at rank k, the
 * same as the exact path's.
 *
 * It relies on tap_hist counting exactly the rows, which the writer keeps
 * in one transaction, except while retention deletes old taps in steps
 * (their histogram rows go after the last step): store_rank__percentiles()
 * checks for that and for each bucket it reads, and says when it cannot
 * answer so that the caller takes the plain exact path.
 *
 * Private to the store's query files.
 */
#ifndef TAPD_STORE_RANK_H
#define TAPD_STORE_RANK_H

#include <sqlite3.h>
#include <stdint.h>

#include "store.h"
#include "store_query.h"

/*
 * Below this many matching taps, sorting them is cheaper than this
 * path's dozen statements: in bench/query, 634 taps of one app took
 * 0.33 ms sorted and 1.0 ms by their buckets, and a sort costs about
 * 0.5 us a row.
 */
#define STORE_RANK_MIN 2000

/*
 * The most values of one bucket an all-apps query gathers and sorts in
 * memory (8 bytes each: 32 MiB); a bucket holding more goes to the plain
 * exact path, which sorts no less.  One app's rows need no memory: they
 * come in order.
 */
#define STORE_RANK_SORT_MAX (1 << 22)

/*
 * The percentiles out->p[0..out->np) of the metric over f's taps (a
 * filter tap_hist serves), given hist[STORE_HIST_BUCKETS], their exact
 * counts by bucket over f's range.  Returns 0 with out filled (method
 * EXACT), 1 when this path cannot answer (retention under way, a bucket
 * whose rows disagree with its count, an all-apps bucket of more than
 * STORE_RANK_SORT_MAX values), or a negative errno.
 */
int store_rank__percentiles(sqlite3 *db, const struct store_filter *f,
			    enum store_query_metric metric, const int64_t *hist,
			    struct store_query_percentiles *out);

#endif
