/*
 * Store: the SQLite database of finalized taps.  One read-write connection
 * (the writer) owned by one thread, committing in batches; the schema comes
 * from the migrations in sql/, embedded in the binary, applied in order and
 * tracked with PRAGMA user_version.  A file whose application_id is not
 * tapd's is refused, never written.
 *
 * The store owns the schema: no SQL over its tables is written anywhere
 * else.  Readers get plain C data from store_taps.h (taps, frames, apps)
 * and store_query.h (statistics); the names of the kinds, statuses and
 * flags below are the daemon's only copy.  Its files: store.c (open,
 * the errno map), store_schema.c (the migrations, the version checks),
 * store_write.c (the batched writer and the sessions), store_held.c (the
 * taps held over a full disk), store_taps.c and store_query.c, sharing
 * store_sql.h.
 */
#ifndef TAPD_STORE_H
#define TAPD_STORE_H

#include <stddef.h>
#include <stdint.h>

/* Flags of a tap, as stored in taps.flags (a bit mask). */
#define STORE_FLAG_BUSY_BEFORE	 0x1u
#define STORE_FLAG_SETTLE_CAPPED 0x2u
#define STORE_FLAG_INTERRUPTED	 0x4u
#define STORE_FLAG_INPUT_DROPPED 0x8u
/* Finalized on an idle screen (docs/DESIGN.md 1.6). */
#define STORE_FLAG_END_FROM_LATENCY 0x10u
#define STORE_FLAG_END_UNCONFIRMED  0x20u
/*
 * How the response frames' times were come by (docs/DESIGN.md 1.6): a
 * response frame's clock taken with offset 0 (a trace without a
 * ClockSnapshot); the first response frame's start is SurfaceFlinger's
 * stand-in for an expired prediction; the present of the first response
 * frame or of the burst's last is one of SurfaceFlinger's fallbacks.
 */
#define STORE_FLAG_CLOCK_ASSUMED     0x40u
#define STORE_FLAG_START_ESTIMATED   0x80u
#define STORE_FLAG_PRESENT_ESTIMATED 0x100u
/*
 * Where the gesture came from (docs/DESIGN.md 1.6): tapd wrote it into the
 * touch screen itself (POST /v1/gestures), matched when read back; or the
 * touch screen is a uinput device of another program, an injector.
 */
#define STORE_FLAG_INJECTED	  0x200u
#define STORE_FLAG_VIRTUAL_DEVICE 0x400u
/*
 * The tap launched another app, or went to another activity of its own
 * (docs/DESIGN.md 1.5.1): target_app and the launch columns say more.
 */
#define STORE_FLAG_LAUNCH     0x800u
#define STORE_FLAG_NAVIGATION 0x1000u
#define STORE_FLAG_COUNT      13

/*
 * The gesture kinds and the statuses of a tap.  Their names below are the
 * only copy in the C code; the schema's CHECK constraints (sql/) hold the
 * other, which the store's own checks keep in step with these.
 */
enum store_kind {
	STORE_KIND_TAP,
	STORE_KIND_LONG_PRESS,
	STORE_KIND_SWIPE,
	STORE_KIND_MULTI,
	STORE_KIND_COUNT
};

/* Kinds as a mask: bit k is 1u << k. */
#define STORE_KINDS_ALL ((1u << STORE_KIND_COUNT) - 1)
/* The kinds that get response times: tap and long_press. */
#define STORE_KINDS_MEASURED                                                   \
	((1u << STORE_KIND_TAP) | (1u << STORE_KIND_LONG_PRESS))

enum store_status {
	STORE_STATUS_OK,
	STORE_STATUS_NO_RESPONSE,
	STORE_STATUS_TRUNCATED,
	STORE_STATUS_FRAMES_UNAVAILABLE,
	STORE_STATUS_NOT_MEASURED,
	STORE_STATUS_COUNT
};

/*
 * The names, indexed by enum store_kind, enum store_status and flag bit
 * (bit 0 first), each list NULL-terminated so that it can serve as a set
 * of choices.
 */
extern const char *const store_kind_names[STORE_KIND_COUNT + 1];
extern const char *const store_status_names[STORE_STATUS_COUNT + 1];
extern const char *const store_flag_names[STORE_FLAG_COUNT + 1];

/* The index of a kind or status name, or -1 for NULL or an unknown one. */
int store_kind_index(const char *name);
int store_status_index(const char *name);

/*
 * The store's own copy of an attribution name: "window", "none", and
 * "foreground" for that one, NULL and any other.
 */
const char *store_attribution_name(const char *name);

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
	/* union of the response frames' jank tags (janktag.h) */
	uint32_t jank_tags;
	/*
	 * The window the tap hit, as dumpsys input names it (NULL for none),
	 * and how its app was decided: "window", "foreground" or "none"
	 * (attrib.h); NULL is "foreground".
	 */
	const char *window;
	const char *attribution;
	/*
	 * With STORE_FLAG_LAUNCH or _NAVIGATION: the app and activity
	 * switched to (NULL when unknown); the launched app's first_frame
	 * and settle, -1 when not measured (always for a navigation).
	 */
	const char *target_app;
	const char *target_activity;
	int64_t launch_first_frame_ns;
	int64_t launch_settle_ns;
};

struct store;

/*
 * Which taps a reader wants; store_filter_init() sets "every tap".  The
 * taps listing, the trace and the statistics all select through it, so
 * that a filter means the same rows everywhere.
 */
struct store_filter {
	const char *app;    /* NULL for every app */
	int app_unknown;    /* nonzero: only taps of unknown app (app NULL) */
	unsigned kinds;	    /* 1u << enum store_kind, STORE_KINDS_ALL for any */
	const char *status; /* NULL for any */
	/*
	 * Wall-clock (REALTIME) ns of t_up, both ends included; INT64_MIN and
	 * INT64_MAX leave an end open.  With either end set, taps whose wall
	 * time is unknown (NULL) match no range; with both open they count.
	 */
	int64_t since_ns;
	int64_t until_ns;
	int64_t session;  /* 0 for any */
	int64_t after_id; /* only ids above it; 0 for all */
	int wall;	  /* STORE_WALL_* */
	/* With before_id > 0: only taps before (before_wall_ns, before_id). */
	int64_t before_wall_ns;
	int64_t before_id;
};

/* store_filter.wall: which taps by whether their wall time is known. */
#define STORE_WALL_ANY	   0
#define STORE_WALL_KNOWN   1
#define STORE_WALL_UNKNOWN 2

void store_filter_init(struct store_filter *f);

/*
 * The one name of "no known app" in every output (the API's JSON, CSV and
 * tables, the metrics' label, the replay summary) and the app filter that
 * selects those taps.  An Android package name always holds a dot, so no
 * package can be called this (docs/DESIGN.md).
 */
#define STORE_APP_UNKNOWN "unknown"

/*
 * Sets the app of f from an app parameter: NULL for every app,
 * STORE_APP_UNKNOWN for the taps of no known app (app_unknown), else one
 * package.
 */
void store_filter_app(struct store_filter *f, const char *app);

/*
 * Opens (creating unless STORE_OPEN_READONLY) the database at path, sets up
 * the connection (WAL, synchronous=NORMAL, busy_timeout, temp_store=MEMORY)
 * and, for a writer, brings the schema to the current version.  Returns 0
 * and sets *out, or a negative errno after logging why: -EPROTO for a file
 * of another application or of a newer schema than this binary knows,
 * -EIO for a file that is not a database, -ENOSPC when the disk is full
 * (logged as "disk full").  A reader also refuses (-EPROTO) a file at an
 * older schema version, which only a writer can migrate.  A reader whose
 * disk is too full for the WAL's shared-memory file (-shm) opens it
 * read-only and keeps the WAL index in its own memory.  Close with
 * store_close().
 */
int store_open(const char *path, unsigned flags, struct store **out);

/*
 * The memory of the connections opened from now on, for a process that
 * runs for days and queries little (the live daemon); the other commands
 * keep SQLite's defaults.  writer_kib and reader_kib: the page cache that
 * the writer and each reader may fill (PRAGMA cache_size), 0 for SQLite's
 * default of 2 MiB, at most STORE_CACHE_MAX_KIB.  Process-wide too,
 * which SQLite allows only before
 * its first use: no lookaside (Debian's SQLite is built without one) and
 * a page cache taken a page at a time instead of a first block of 20
 * pages per connection.  Call it before any thread uses SQLite.  Returns 0,
 * -EINVAL for a size over the maximum (nothing is set), or -EBUSY when
 * SQLite was already in use, with the cache sizes set anyway.
 */
#define STORE_CACHE_MAX_KIB (1024u * 1024u)
int store_set_memory(unsigned writer_kib, unsigned reader_kib);

/*
 * The page cache size, in KiB, that a connection of that role
 * (STORE_OPEN_READONLY or 0 in flags) gets at open: 0 for SQLite's
 * default.
 */
unsigned store_cache_kib(unsigned flags);

/*
 * The SQLite URI "file:PATH?QUERY" for a file path (SQLite is built with
 * URI names on), the characters that mean something in a URI escaped, so
 * that any path opens the file it names.  Returns a malloc'd string (the
 * caller frees it), or NULL without memory or for a path over PATH_MAX.
 */
char *store_file_uri(const char *path, const char *query);

/* Commits what is pending (store_drain()), then closes.  NULL is a no-op. */
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
 * and commits: the run's taps first, then its end, in a statement of its
 * own, which is written even when the taps could not be.  Returns 0,
 * -EINVAL when no run is open, -EROFS on a read-only store, -ENOSPC when
 * the disk is full (the held taps and the end stay pending, written by a
 * later store_commit() or store_tick() that finds room, or given up by
 * store_drain()), or a negative errno.
 */
int store_end_run(struct store *st, const char *stats_json);

struct devid;

/*
 * Records the device of the open run (sql/009-device.sql, store_device.c);
 * nothing when no field of id is known.  Returns 0, -EINVAL when no run
 * is open, -EROFS on a read-only store, or a negative errno from SQLite.
 */
int store_run_device(struct store *st, const struct devid *id);

/*
 * The device of the latest run that recorded one, into *id (cleared
 * first; a hand-edited text is made a valid label).  Returns 0, -ENOENT
 * when no run did (or the file predates the table), or a negative errno.
 */
int store_device_latest(struct store *st, struct devid *id);

/*
 * The most taps the writer holds in memory while its disk is full; past
 * it, new taps are dropped (store_dropped()).
 */
#define STORE_HELD_MAX 4096

/*
 * Adds a tap to the current batch.  The batch is committed when it holds
 * store's batch size (256 rows) or by store_commit()/store_tick().  Returns
 * 0, -EINVAL for a tap with an unknown kind, status or flag or a negative
 * pid, frame count, session or time below -1 (nothing is stored), -EROFS on
 * a read-only store, or a negative errno from SQLite (after which the batch
 * is rolled back and lost; the count of lost rows is in store_lost()).  A
 * row the database itself rejects, a session id that does not exist, gives
 * -EINVAL and is lost alone: the batch stays.
 *
 * A disk full (SQLITE_FULL, or an I/O error with ENOSPC) loses nothing:
 * the batch is rolled back but its taps stay in memory with their ids,
 * the store is full (store_full(), store_health()), and the taps that
 * follow are only held, STORE_HELD_MAX at most, until a store_commit() or
 * store_tick() writes them all (trying at most once a second).  Those
 * calls return -ENOSPC until then.  A tap that comes with STORE_HELD_MAX
 * held is refused with -ENOSPC, counted in store_dropped() and
 * store_lost().
 */
int store_add_tap(struct store *st, const struct store_tap *tap);

/*
 * One response frame of a tap, as stored in tap_frames (the frames
 * docs/DESIGN.md 1.4 counts: presented, started inside the window), in
 * present order.  Times are CLOCK_MONOTONIC ns.
 */
struct store_frame {
	int64_t start_ns;
	int64_t present_ns;
	uint32_t jank; /* FrameTimeline jank bits, 0 when unknown */
	int in_burst;  /* nonzero for the frames up to the end of the burst */
};

/*
 * Adds a tap and its response frames (frames[0..nframes), which become
 * tap_frames rows with seq 0..nframes-1) to the current batch, with the
 * same batching and errors as store_add_tap().  nframes 0 means that the
 * frames are not recorded; otherwise it must equal tap->frames, and every
 * frame must be presented at or after its start (-EINVAL otherwise).  A
 * tap with status "ok", kind "tap" or "long_press" and a known wall time
 * is also counted in the histogram table tap_hist, in the same
 * transaction (see sql/002-frames-hist.sql).  On success sets *id (when
 * id is not NULL) to the new row's id, which is final although the row
 * is committed only with its batch.  A failure after the row was
 * inserted (a frame or histogram row) rolls the whole batch back.
 */
int store_insert(struct store *st, const struct store_tap *tap,
		 const struct store_frame *frames, size_t nframes, int64_t *id);

/*
 * The batch size from now on: rows (1 .. STORE_HELD_MAX) instead of 256,
 * with a page cache of 16 MiB so that SQLite keeps a batch's pages until
 * its COMMIT rather than spilling them into the WAL twice.  A batch
 * replay, which commits by the batch and not on a timer, takes the
 * largest: fewer commits and histogram rows, and a replay stopped midway
 * loses at most that many taps, which replaying again restores.  Returns
 * 0, -EINVAL, or the errno of setting the cache.
 */
int store_set_batch(struct store *st, unsigned rows);

/*
 * Commits the current batch now; on a full disk, writes the held taps
 * again if the last attempt is a second old.  Returns 0 or a negative
 * errno (-ENOSPC while the taps are held).
 */
int store_commit(struct store *st);

/*
 * Commits the current batch if its first row is older than the batch delay
 * (100 ms) at now_ns (CLOCK_MONOTONIC), and on a full disk tries the held
 * taps again as store_commit() does.  For the ingest loop's timer.
 */
int store_tick(struct store *st, int64_t now_ns);

/*
 * The writer's last attempt, before it closes: writes the held taps and a
 * pending end of run now, and gives up (with a warning naming what is
 * lost) what still does not fit.  Returns 0 when everything was written,
 * else -ENOSPC or the errno of the failure.  store_close() calls it too.
 */
int store_drain(struct store *st);

/*
 * Whether the last write found the disk full (1) or not (0); it is 0
 * again once a write succeeds.
 */
int store_full(const struct store *st);

/* Taps held in memory, not yet written; taps dropped since open. */
uint64_t store_held(const struct store *st);
uint64_t store_dropped(const struct store *st);

/*
 * The writer's health for /v1/health: 0 when it writes, 1 when the disk
 * is full, with detail set to what is held and dropped ("disk full
 * (ENOSPC): ...").
 */
int store_health(const struct store *st, char *detail, size_t size);

/*
 * Rows accepted by store_add_tap() since store_open(), and those of them
 * that never reached the file (a failed insert or commit, a tap dropped
 * or still held when the disk was full at the end).
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

/* The longest session name store_session_start() accepts, in bytes. */
#define STORE_SESSION_NAME_MAX 128

/*
 * Starts a named session (1..STORE_SESSION_NAME_MAX bytes, no control
 * characters): commits the current batch, then records the session at
 * once, outside any batch, so that its id is durable before a tap can
 * carry it.  Sets *id and *started_ns (CLOCK_REALTIME ns; either may be
 * NULL).  Several sessions may be open at once; the store does not decide
 * which one a tap belongs to.  Returns 0, -EINVAL for a bad name, -EROFS
 * on a read-only store, or a negative errno from SQLite.
 */
int store_session_start(struct store *st, const char *name, int64_t *id,
			int64_t *started_ns);

/*
 * Stops a session now, committed at once like store_session_start(), and
 * sets *stopped_ns (may be NULL).  Returns 0, -ENOENT for an unknown id,
 * -EALREADY for a session already stopped, -EROFS on a read-only store,
 * or a negative errno from SQLite.
 */
int store_session_stop(struct store *st, int64_t id, int64_t *stopped_ns);

/* A session as store_session_list() reports it; name is borrowed. */
struct store_session {
	int64_t id;
	const char *name;
	int64_t started_ns;
	int64_t stopped_ns; /* -1 while the session is open */
	int64_t taps;	    /* the taps that carry its id */
};

/* Receives one session; returns 0, or a negative errno to stop. */
typedef int (*store_session_cb)(void *ctx, const struct store_session *s);

/*
 * Calls cb for every session, by id, on any store (read-only ones too).
 * Returns 0, what cb returned, or a negative errno from SQLite.
 */
int store_session_list(struct store *st, store_session_cb cb, void *ctx);

/*
 * Calls cb for the session id alone, on any store.  Returns 0, what cb
 * returned, -ENOENT when there is no such session, or a negative errno
 * from SQLite.
 */
int store_session_get(struct store *st, int64_t id, store_session_cb cb,
		      void *ctx);

/*
 * The latency histogram of tap_hist (sql/002-frames-hist.sql).  Bucket 0
 * holds [0, STORE_HIST_MIN_NS); bucket b >= 1 holds [lo(b), lo(b+1)) with
 * lo(1) = STORE_HIST_MIN_NS and lo(b+1) = lo(b) + ceil(lo(b) / 50), so
 * every bucket but the first is at most 2% (plus 1 ns) wide relative to
 * its lower edge; the last one ends at INT64_MAX.  The edges are integers
 * computed without floating point, so every build agrees on them.
 */
#define STORE_HIST_BUCKETS 1625
#define STORE_HIST_MIN_NS  100000

/* tap_hist.metric */
#define STORE_METRIC_FIRST_FRAME	0
#define STORE_METRIC_SETTLE		1
#define STORE_METRIC_LAUNCH_FIRST_FRAME 2
#define STORE_METRIC_LAUNCH_SETTLE	3

/*
 * tap_hist.span: the length in minutes of the period a row counts, which
 * starts at tap_hist.minute (a multiple of the span, in minutes since the
 * Unix epoch, UTC).
 */
#define STORE_HIST_SPAN_MINUTE 1
#define STORE_HIST_SPAN_HOUR   60
#define STORE_HIST_SPAN_DAY    1440

/* tap_hist.app of the rows that count every app's taps together. */
#define STORE_HIST_ALL_APPS "*"

/* The bucket of a latency in ns (negative values go to bucket 0). */
int store_hist_bucket(int64_t ns);

/*
 * The edges of bucket b in ns: [*lo, *hi], both inclusive (the largest
 * value the bucket holds is *hi).  Returns 0, or -EINVAL for a bucket out
 * of range.
 */
int store_hist_edges(int bucket, int64_t *lo, int64_t *hi);

/*
 * Ends what a reader left running on st: resets every statement still
 * stepping and rolls back an open read transaction, so that none outlives
 * its user and holds up checkpoints.  For the pool, when a connection
 * comes back.
 */
void store_reset(struct store *st);

/*
 * SQLite's message for the last failure on st's connection, for replies
 * that carry it.  Owned by the store, valid until its next call.
 */
const char *store_errmsg(struct store *st);

/*
 * Reads what /v1/health shows of the file now: its schema version (read
 * again from the file, not the one seen at open) and its count of taps.
 * Returns 0, or a negative errno (store_errmsg() says why).
 */
int store_info(struct store *st, int64_t *version, int64_t *taps);

/*
 * Retention: deletes at most batch taps (and their response frames) whose
 * wall time is before before_wall_ns, rounded down to a whole UTC day so
 * the histogram's minute, hour and day rows go with them exactly; when no
 * such tap is left, deletes those histogram rows too.  One short write
 * transaction, so the caller runs it in small steps on a timer.  Taps
 * without a wall time are never deleted.  Sets *deleted (taps) and
 * returns 0, or a negative errno; -EROFS on a read-only store.
 */
int store_retain(struct store *st, int64_t before_wall_ns, unsigned batch,
		 int64_t *deleted);

/*
 * After retention: gives freed pages back to the file system
 * (incremental_vacuum) and truncates the WAL (wal_checkpoint(TRUNCATE)).
 * Returns 0 or a negative errno.
 */
int store_maintain(struct store *st);

#endif
