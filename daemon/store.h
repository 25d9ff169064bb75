/*
 * Store: the SQLite database of finalized taps.  One read-write connection
 * (the writer) owned by one thread, committing in batches; the schema comes
 * from the migrations in sql/, embedded in the binary, applied in order and
 * tracked with PRAGMA user_version.  A file whose application_id is not
 * tapd's is refused, never written.
 */
#ifndef TAPD_STORE_H
#define TAPD_STORE_H

#include <stdint.h>

/* Flags of a tap, as stored in taps.flags (a bit mask). */
#define STORE_FLAG_BUSY_BEFORE	 0x1u
#define STORE_FLAG_SETTLE_CAPPED 0x2u
#define STORE_FLAG_INTERRUPTED	 0x4u
#define STORE_FLAG_INPUT_DROPPED 0x8u
#define STORE_FLAG_COUNT	 4

/* The application_id in the database header: "tapd" in ASCII. */
#define STORE_APPLICATION_ID 0x74617064

/* store_open() flags. */
#define STORE_OPEN_READONLY 0x1u

/*
 * One gesture as stored.  Strings are borrowed: the store copies what it
 * keeps.  Times are CLOCK_MONOTONIC ns; a latency of -1 means "not
 * measured" and is stored as NULL.
 */
struct store_tap {
	const char *app;    /* package name, or NULL when unknown */
	int32_t pid;	    /* 0 when unknown */
	const char *kind;   /* "tap", "long_press", "swipe", "multi" */
	const char *status; /* "ok", "no_response", "truncated",
			       "frames_unavailable", "not_measured" */
	unsigned flags;	    /* STORE_FLAG_* */
	int64_t t_down_ns;
	int64_t t_up_ns;
	int64_t wall_ns;	/* REALTIME of t_up in ns, or -1 when unknown */
	double x, y;		/* display px (raw units when unmapped) */
	int64_t first_frame_ns; /* -1 when not measured */
	int64_t settle_ns;	/* -1 when not measured */
	int32_t frames;		/* response frames */
	uint32_t jank;		/* union of the response frames' jank bits */
	int64_t session;	/* 0 for none */
};

struct store;

/*
 * Opens (creating unless STORE_OPEN_READONLY) the database at path, sets up
 * the connection (WAL, synchronous=NORMAL, busy_timeout, temp_store=MEMORY)
 * and, for a writer, brings the schema to the current version.  Returns 0
 * and sets *out, or a negative errno after logging why: -EPROTO for a file
 * of another application or of a newer schema than this binary knows,
 * -EIO for a file that is not a database.  A reader also refuses (-EPROTO)
 * a file at an older schema version, which only a writer can migrate.
 * Close with store_close().
 */
int store_open(const char *path, unsigned flags, struct store **out);

/* Commits what is pending, then closes.  NULL is a no-op. */
void store_close(struct store *st);

/* The schema version of the open file (PRAGMA user_version). */
int store_schema_version(const struct store *st);

/* The schema version this binary brings files to. */
int store_schema_latest(void);

/*
 * Records the start of an ingest run (a replay or a live daemon start) and
 * returns its id in *run_id; later taps belong to it.  mode is "replay" or
 * "live", source a description of the inputs (or NULL).  Returns 0,
 * -EINVAL for another mode, -EALREADY while a run is open, -EROFS on a
 * read-only store, or a negative errno from SQLite.
 */
int store_begin_run(struct store *st, const char *mode, const char *source,
		    int64_t *run_id);

/*
 * Ends the current run, with its counters as a JSON object text (or NULL),
 * and commits.  Returns 0, -EINVAL when no run is open, -EROFS on a
 * read-only store, or a negative errno.
 */
int store_end_run(struct store *st, const char *stats_json);

/*
 * Adds a tap to the current batch.  The batch is committed when it holds
 * store's batch size (256 rows) or by store_commit()/store_tick().  Returns
 * 0, -EINVAL for a tap with an unknown kind, status or flag or a negative
 * pid, frame count, session or time below -1 (nothing is stored), -EROFS on
 * a read-only store, or a negative errno from SQLite (after which the batch
 * is rolled back and lost; the count of lost rows is in store_lost()).  A
 * row the database itself rejects, a session id that does not exist, gives
 * -EINVAL and is lost alone: the batch stays.
 */
int store_add_tap(struct store *st, const struct store_tap *tap);

/* Commits the current batch now.  Returns 0 or a negative errno. */
int store_commit(struct store *st);

/*
 * Commits the current batch if its first row is older than the batch delay
 * (100 ms) at now_ns (CLOCK_MONOTONIC).  For the ingest loop's timer.
 */
int store_tick(struct store *st, int64_t now_ns);

/*
 * Rows accepted by store_add_tap() since store_open(), and those of them
 * that never reached the file (a failed insert or commit).
 */
uint64_t store_added(const struct store *st);
uint64_t store_lost(const struct store *st);

/*
 * Counts the stored rows that match kind and status (either may be NULL
 * for any), the writer's open batch included.  Returns 0 and sets *count,
 * -EINVAL for an unknown kind or status, or a negative errno.
 */
int store_count(struct store *st, const char *kind, const char *status,
		int64_t *count);

#endif
