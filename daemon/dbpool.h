/*
 * A fixed pool of read-only connections to the database, for the HTTP
 * threads: a request checks one out, uses it on its own thread, and gives
 * it back when it ends.  It also serves a file copied off a device into a
 * read-only place, where SQLite could not create the WAL's side files.
 */
#ifndef TAPD_DBPOOL_H
#define TAPD_DBPOOL_H

#include <stddef.h>
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

/*
 * The answer cache: whole reply bodies kept per connection, under a key
 * the caller makes of every value its answer depends on (the route and
 * its parsed parameters), and valid while the file is unchanged.  Each
 * connection keeps at most DBPOOL_ANSWERS of them, each at most
 * DBPOOL_ANSWER_MAX bytes (a larger one is not kept), the oldest
 * replaced first.
 *
 * dbpool_answer_get() reads the connection's PRAGMA data_version, which
 * changes whenever another connection or process commits to the file
 * (the pool's own never write); a changed one drops every answer of the
 * connection.  It then looks key up: 1 and a malloc'd copy in *body
 * (*len bytes, NUL-terminated), 0 when there is none, or -ENOMEM.  The
 * caller holds st in a read transaction (store_read_begin()) in which
 * nothing was read yet, so that the answer it computes on a miss is of
 * the very snapshot whose version was read.
 *
 * dbpool_answer_put() keeps body under key, stamped with the version the
 * last dbpool_answer_get() on st read, and only when that call was the
 * last one on st (a put without a get keeps nothing).  An answer is thus
 * only ever served under the version it was computed under, on the
 * connection that computed it: byte for byte what a fresh one would be.
 * Returns 0 (kept, or not kept as above), or -ENOMEM.  st outside the
 * pool keeps nothing and finds nothing.
 */
#define DBPOOL_ANSWERS	  16
#define DBPOOL_ANSWER_MAX (32 * 1024)
#define DBPOOL_ANSWER_KEY 512
int dbpool_answer_get(struct dbpool *pool, struct store *st, const char *key,
		      char **body, size_t *len);
int dbpool_answer_put(struct dbpool *pool, struct store *st, const char *key,
		      const char *body, size_t len);

/*
 * store_read_begin() and store_read_end() on st through statements the
 * pool prepared once for each of its connections (sqlite3_exec() parses
 * its SQL on every call); any other store is handed to those two.
 * dbpool_read_begin() returns 0 or a negative errno.
 */
int dbpool_read_begin(struct dbpool *pool, struct store *st);
void dbpool_read_end(struct dbpool *pool, struct store *st);

/* The path given to dbpool_new(). */
const char *dbpool_path(const struct dbpool *pool);

/* 1 when the file had to be opened as immutable, else 0. */
int dbpool_immutable(const struct dbpool *pool);

#endif
