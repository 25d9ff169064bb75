/*
 * A fixed pool of read-only connections to the database, for the HTTP
 * threads: a request checks one out, uses it on its own thread, and gives
 * it back when it ends.  It also serves a file copied off a device into a
 * read-only place, where SQLite could not create the WAL's side files.
 */
#ifndef TAPD_DBPOOL_H
#define TAPD_DBPOOL_H

#include <stdint.h>

struct dbpool;
struct store;

/*
 * Opens size (1..64) connections with store_open(path,
 * STORE_OPEN_READONLY).  A WAL database whose -wal or -shm file is
 * missing and cannot be created (its directory is not writable) is opened
 * as immutable instead, which SQLite allows only when nothing writes the
 * file, as is the case for such a copy.  Returns 0 and sets *out, -EINVAL
 * for a bad size, -ENOMEM, or the store's error (logged there).
 */
int dbpool_new(const char *path, unsigned size, struct dbpool **out);

/*
 * Opens one read-only connection the way the pool opens each of its own
 * (immutable when needed), for a reader outside the pool, such as
 * `tapd serve` seeding its metrics.  Sets *immutable (may be NULL).
 * Returns 0 and sets *out (close with store_close()), or the store's
 * error.
 */
int dbpool_open_store(const char *path, struct store **out, int *immutable);

/* Closes every connection; all must have been put back.  NULL is a no-op. */
void dbpool_free(struct dbpool *pool);

/*
 * Checks a connection out, waiting up to timeout_ms for one to be put
 * back.  Returns 0 and sets *out, or -ETIMEDOUT.
 */
int dbpool_get(struct dbpool *pool, int timeout_ms, struct store **out);

/*
 * Gives st back.  Any statement left running is reset first, so that no
 * read transaction outlives the request and holds up checkpoints.
 */
void dbpool_put(struct dbpool *pool, struct store *st);

/*
 * store_info() on st, a connection checked out of pool (or any other
 * store, which is asked directly): the file's schema version and count
 * of taps.  The pool remembers the answer of each of its connections
 * until the file changes, so that the count is not done again while
 * nothing was written.  Returns what store_info() returns.
 */
int dbpool_info(struct dbpool *pool, struct store *st, int64_t *version,
		int64_t *taps);

/* The path given to dbpool_new(). */
const char *dbpool_path(const struct dbpool *pool);

/* 1 when the file had to be opened as immutable, else 0. */
int dbpool_immutable(const struct dbpool *pool);

#endif
