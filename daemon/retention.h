/*
 * The live daemon's retention: taps older than the days kept are deleted
 * in small batches (the write lock is never held long), one every
 * RETENTION_MS while there are more; once a pass finds nothing left, the
 * file is compacted and the WAL truncated.  Then it looks again only once
 * an hour: a tap becomes old enough at most an hour before it goes, which
 * at days of keeping is nothing, and an idle daemon pays one wake-up an
 * hour for it.  It runs on the ingest thread, the store's writer, on a
 * one-shot timer of the loop.
 */
#ifndef TAPD_RETENTION_H
#define TAPD_RETENTION_H

struct loop;
struct retention;
struct store;

/*
 * Makes the retention of st for days (> 0) and runs its first batch at
 * once: a daemon that was off for a while starts by catching up.  loop
 * and st must outlive it.  Returns 0 and sets *out, or a negative errno.
 */
int retention_new(struct loop *loop, struct store *st, int days,
		  struct retention **out);

/* After the loop has stopped.  NULL is a no-op. */
void retention_free(struct retention *r);

#endif
