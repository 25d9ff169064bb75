/*
 * The store's own header, shared by its files (store.c, store_schema.c,
 * store_write.c, store_held.c, store_taps.c, store_query.c) and by the
 * tests that look inside a file: the connection, the statements, the one
 * SQLite-to-errno map and the one builder of WHERE clauses over the taps.
 * Nothing else in the daemon includes it: SQL stays inside the store.  The
 * double underscore marks names shared by the module's files, not part of its
 * contract.
 */
#ifndef TAPD_STORE_SQL_H
#define TAPD_STORE_SQL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

#define STORE_BATCH_ROWS     256
#define STORE_BATCH_DELAY_NS (100 * 1000 * 1000LL)
#define STORE_FLAG_MASK	     ((1u << STORE_FLAG_COUNT) - 1)
/* How often a writer whose disk is full tries again. */
#define STORE_RETRY_NS (1000 * 1000 * 1000LL)

enum store_stmt {
	STORE_STMT_COUNT,
	STORE_STMT_SESSION_GET,
	STORE_STMT_SESSION_LIST,
	STORE_STMT_SESSION_ONE,
	STORE_STMT_TAP_FRAMES,
	/* Statements from here on are the writer's only. */
	STORE_STMT_BEGIN,
	STORE_STMT_COMMIT,
	STORE_STMT_ROLLBACK,
	STORE_STMT_INSERT_TAP,
	STORE_STMT_INSERT_RUN,
	STORE_STMT_END_RUN,
	STORE_STMT_INSERT_FRAME,
	STORE_STMT_INSERT_FRAMES4,
	STORE_STMT_INSERT_FRAMES16,
	STORE_STMT_HIST_ADD,
	STORE_STMT_HIST_ADD4,
	STORE_STMT_HIST_ADD16,
	STORE_STMT_COUNTS_ADD,
	STORE_STMT_COUNTS_ADD4,
	STORE_STMT_COUNTS_ADD16,
	STORE_STMT_HIST_SUM_ADD,
	STORE_STMT_HIST_SUM_ADD4,
	STORE_STMT_HIST_SUM_ADD16,
	STORE_STMT_SESSION_START,
	STORE_STMT_SESSION_STOP,
	STORE_STMT_NEXT_ID,
	STORE_STMT_PROBE,
	STORE_STMT_N
};

extern const char *const store__stmt_sql[STORE_STMT_N];

/*
 * The frames of a tap go in by STORE_STMT_INSERT_FRAMES16 (16 rows a
 * statement), then _FRAMES4, then one by one: a statement's own cost is
 * paid once for up to 16 rows.  Each row binds STORE__FRAME_COLUMNS
 * values, in the order of STORE_STMT_INSERT_FRAME.
 */
#define STORE__FRAME_COLUMNS 6

/* The same for tap_hist's rows, STORE_STMT_HIST_ADD16, _ADD4, _ADD. */
#define STORE__HIST_COLUMNS 6

/*
 * Counts of the open batch for one row of tap_hist, added up by
 * store_write.c and written before the batch's COMMIT: one UPSERT per
 * row of the table rather than twelve per tap, 16 rows a statement.  app
 * is the held tap's copy or STORE_HIST_ALL_APPS, valid until the batch
 * ends.
 */
struct store__hist_add {
	const char *app;
	int metric;
	int span;
	int64_t minute;
	int bucket;
	int64_t count;
};

/*
 * Counts of the open batch for one row of tap_counts (the key of
 * sql/003-summaries.sql: app or '' with named 0, status, span, minute),
 * kept by the writer while the batch is bulk (store__bulk()) and written
 * before its COMMIT, as the hist counts are.  app and status are the held
 * tap's copy and the store's name, valid until the batch ends.
 */
struct store__count_add {
	const char *app;
	int named;
	const char *status;
	int span;
	int64_t minute;
	int64_t count;
};

/* The columns of a tap_counts row, and of a tap_hist_sum row. */
#define STORE__COUNT_COLUMNS	6
#define STORE__HIST_SUM_COLUMNS 4

/*
 * A batch goes bulk (store__bulk()) from this many rows on: leaving bulk
 * mode makes SQLite prepare the writer's statements again, which a batch
 * of a row or two (a live daemon's) would pay for more than it saves.
 */
#define STORE__BULK_ROWS 16

/*
 * A tap the writer accepted and has not committed yet, with its final id
 * and run: the rows of the open batch, and all of them while the disk is
 * full, so that a failed commit can be written again.  tap.app points at
 * app; kind and status at the store's names.
 */
struct store__held {
	int64_t id;
	int64_t run; /* 0 for none */
	struct store_tap tap;
	char *app;
	char *window;
	char *target_app;
	char *target_activity;
	struct store_frame *frames;
	size_t nframes;
};

struct store {
	sqlite3 *db;
	char *path;
	bool readonly;
	/* Set once open succeeded: only then may close write to the file. */
	bool ready;
	/* A first attempt at a reader: its lack of space is not news yet. */
	bool quiet_full;
	int version;
	sqlite3_stmt *stmt[STORE_STMT_N];
	int64_t run_id; /* 0 when no run is open */
	bool in_batch;
	unsigned batch_rows;
	unsigned batch_max; /* rows a batch commits at, STORE_BATCH_ROWS */
	int64_t batch_first_ns;
	uint64_t added;
	uint64_t lost;
	/* The id the next tap gets (explicit, so a held tap keeps its id). */
	int64_t next_id;
	struct store__held *held;
	size_t nheld, cap_held;
	/* The open batch's tap_hist counts, not yet written. */
	struct store__hist_add *hist;
	size_t nhist, cap_hist;
	/*
	 * The open batch is bulk: the connection's triggers are off and its
	 * CHECKs skipped (store__bulk()), and the writer keeps tap_counts
	 * and tap_hist_sum itself, from these counts and the hist ones.
	 */
	bool bulk;
	struct store__count_add *counts;
	size_t ncounts, cap_counts;
	/*
	 * The last write failed for lack of space: new taps are only held,
	 * and the held ones are written again at most every STORE_RETRY_NS.
	 */
	bool full;
	int64_t retry_ns; /* MONOTONIC of the last attempt */
	uint64_t dropped; /* taps refused with STORE_HELD_MAX held */
	/* store_end_run() met a full disk: the end is written later. */
	bool end_pending;
	int64_t end_ns;
	char *end_stats;
};

/*
 * Maps an SQLite result code to a negative errno (0 for OK, ROW and
 * DONE).  The only such map in tapd: every caller of SQLite goes through
 * it.  SQLITE_FULL, and an I/O error whose system errno is ENOSPC (the
 * WAL or its shared-memory file could not grow), are -ENOSPC.  db may be
 * NULL.
 */
int store__errno(sqlite3 *db, int rc);

/*
 * Logs what failed with SQLite's own message and returns the errno; a
 * lack of space is named as such ("disk full (ENOSPC)").
 */
int store__fail(const struct store *st, int rc, const char *what);

/* Frees the held taps (store__held) and forgets them. */
void store__held_clear(struct store *st);

/*
 * From store.c, for store_schema.c: reads a pragma whose value is one
 * integer.  Logs and returns the errno on failure.
 */
int store__pragma_int(struct store *st, const char *name, int64_t *value);

/*
 * From store_schema.c, for store.c's open: store__identify() decides
 * from the header whether the file may be used, before anything writes
 * to it (*fresh: a new, empty file); store__migrate() brings the schema
 * to the latest version, one migration per transaction;
 * store__sql_hist_bucket() is tapd_hist_bucket(ns) in SQL, for the
 * migrations.
 */
int store__identify(struct store *st, bool *fresh);
int store__migrate(struct store *st);
void store__sql_hist_bucket(sqlite3_context *ctx, int argc,
			    sqlite3_value **argv);

/*
 * The writer's halves, store_write.c (the batched inserts) and
 * store_held.c (the taps held over a full disk), call each other through
 * the seven functions below.
 *
 * From store_write.c, for store_held.c: store__put() inserts a held tap
 * and its frames in the open transaction, adds its histogram counts to
 * the batch's (store_hist.c), and
 * returns the SQLite result, *row_only saying that the tap's own INSERT
 * failed (which undoes that statement alone); store__row_rejected() says
 * whether such a failure lost that row alone (a constraint, the
 * transaction still open); store__write_end() writes the pending end of
 * the open run in a statement of its own.
 */
int store__put(struct store *st, const struct store__held *h, bool *row_only);
bool store__row_rejected(struct store *st, int rc, bool row_only);
int store__write_end(struct store *st);

/*
 * From store_hist.c, for store_write.c and store_held.c: store__hist_tap()
 * adds a tap's tap_hist counts to the open batch's (SQLITE_NOMEM when
 * they do not fit); store__hist_write() writes them before the COMMIT,
 * and forgets them whatever the result.
 */
int store__hist_tap(struct store *st, const struct store_tap *tap);
int store__hist_write(struct store *st);

/*
 * Also from store_hist.c: store__bulk() turns the open batch's bulk mode
 * on or off.  On, the writer's connection fires no trigger of the file
 * (SQLITE_DBCONFIG_ENABLE_TRIGGER) and skips its CHECKs (PRAGMA
 * ignore_check_constraints; store_insert() checks the same in C first),
 * and what the triggers of sql/003-summaries.sql would add to tap_counts
 * and tap_hist_sum, the writer adds up itself: store__counts_tap() per
 * tap put, written with the hist counts by store__hist_write().  Off
 * (every batch ends so), every other write of the connection, and every
 * other connection, keeps them through the triggers.  Returns the SQLite
 * result of turning it on; turning it off cannot fail but is logged.
 */
int store__bulk(struct store *st, bool on);
int store__counts_tap(struct store *st, const struct store_tap *tap);

/*
 * From store_write.c, for store_hist.c: the statement of 16, 4 or 1
 * rows for the next of n rows left, where sixteen is the statement of
 * 16 rows and those of 4 and 1 rows its two predecessors in enum
 * store_stmt.  Returns its row count and sets *which.
 */
size_t store__rows(size_t n, enum store_stmt sixteen, enum store_stmt *which);

/*
 * From store_held.c, for store_write.c: store__write_failed() handles a
 * failed write of the batch (a full disk keeps the held taps, anything
 * else loses them) and returns the errno; store__hold() keeps a copy of
 * a valid tap with the next id and the open run; store__unhold() forgets
 * held tap i, which the database refused; store__flush() writes what is
 * pending (the open batch, or the held taps at most every
 * STORE_RETRY_NS unless forced, then a pending end of run).
 */
int store__write_failed(struct store *st, int rc, const char *what);
int store__hold(struct store *st, const struct store_tap *tap,
		const struct store_frame *frames, size_t nframes,
		struct store__held **out);
void store__unhold(struct store *st, size_t i);
int store__flush(struct store *st, bool force);

/* Runs SQL without results; logs and returns the errno on failure. */
int store__exec(struct store *st, const char *sql, const char *what);

/*
 * Runs a prepared statement that returns no rows and makes it ready for
 * the next use.  Returns the SQLite result code; the caller logs.
 */
int store__step(struct store *st, enum store_stmt which);

/* -EROFS after logging that st cannot do what. */
int store__refuse_readonly(const struct store *st, const char *what);

/* CLOCK_REALTIME or CLOCK_MONOTONIC now, in ns (0 when unreadable). */
int64_t store__clock_ns(int clock);

/*
 * The connection itself, for the store's files and for tests that check
 * a file with SQL of their own.  It stays owned by the store.
 */
sqlite3 *store__sqlite(struct store *st);

/*
 * The columns store__tap_row() reads, in its order, for "SELECT "
 * STORE__TAP_COLUMNS " FROM taps ...".
 */
#define STORE__TAP_COLUMNS                                                     \
	"id, app, pid, kind, status, flags, t_down_ns, t_up_ns, wall_ns, x, "  \
	"y, first_frame_ns, settle_ns, frames, jank, session, jank_tags, "     \
	"window, attribution, target_app, target_activity, "                   \
	"launch_first_frame_ns, launch_settle_ns"
#define STORE__TAP_NCOLUMNS 23

/*
 * Reads the current row of a statement that selected STORE__TAP_COLUMNS
 * first into *id and *tap, with the store_tap conventions: NULL becomes
 * NULL (app, kind, status), 0 (pid, session), -1 (wall_ns, latencies) or
 * NAN (x, y).  Strings are borrowed from the statement, valid until its
 * next step.  Returns 0, or -EINVAL when the statement has fewer columns.
 */
int store__tap_row(sqlite3_stmt *stmt, int64_t *id, struct store_tap *tap);

/* A statement being built: its text and the values for its "?"s. */
#define STORE__QB_SQL_MAX   1024
#define STORE__QB_BINDS_MAX 16

struct store__qb {
	char sql[STORE__QB_SQL_MAX];
	size_t len;
	bool overflow;
	bool where; /* a WHERE is written: the next condition takes AND */
	struct {
		bool is_text;
		int64_t i;
		const char *s;
	} bind[STORE__QB_BINDS_MAX];
	int nbind;
};

/* Appends text; a value to bind for the "?" text ends with. */
void store__qb_add(struct store__qb *q, const char *s);
void store__qb_int(struct store__qb *q, const char *s, int64_t v);
void store__qb_text(struct store__qb *q, const char *s, const char *v);

/* Appends " WHERE " or " AND ", then the condition (and its value). */
void store__qb_cond(struct store__qb *q, const char *s);
void store__qb_cond_int(struct store__qb *q, const char *s, int64_t v);
void store__qb_cond_text(struct store__qb *q, const char *s, const char *v);

/*
 * Prepares the statement and binds its values.  Returns 0 and sets *out,
 * -E2BIG for a statement that did not fit, or the errno of SQLite's
 * failure after logging it.
 */
int store__qb_prepare(sqlite3 *db, struct store__qb *q, sqlite3_stmt **out);

/* store__filter_where() options. */
/*
 * A unary '+' on app, kind, status and wall_ns, so that the planner
 * serves none of them from an index ordered by something else (the taps
 * listing walks ids instead); session keeps its index.
 */
#define STORE__WHERE_NO_INDEX 0x1u

/*
 * Appends the conditions of f: app, kinds, status, session, wall time
 * (known or unknown), the range, after_id and the (wall_ns, id) bound,
 * every value bound.  The one WHERE builder over the taps.
 */
void store__filter_where(struct store__qb *q, const struct store_filter *f,
			 unsigned opts);

/*
 * BEGIN unless the connection is in a transaction already; *began says
 * which, for store__read_end(), which ends only what it began.
 */
int store__read_begin(sqlite3 *db, bool *began);
void store__read_end(sqlite3 *db, bool began);

/* Logs "cannot what: SQLite's message" and returns the errno. */
int store__db_fail(sqlite3 *db, int rc, const char *what);

#endif
