#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "store_sql.h"

#define STORE_BUSY_MS 5000

/*
 * The page cache of each connection opened from now on, in KiB by role,
 * 0 for SQLite's default.  Written by store_set_memory() before any
 * thread opens a connection, so read without a lock.
 */
static unsigned store_writer_kib, store_reader_kib;

const char *const store_kind_names[STORE_KIND_COUNT + 1] = {
	[STORE_KIND_TAP] = "tap",     [STORE_KIND_LONG_PRESS] = "long_press",
	[STORE_KIND_SWIPE] = "swipe", [STORE_KIND_MULTI] = "multi",
	[STORE_KIND_COUNT] = NULL,
};

const char *const store_status_names[STORE_STATUS_COUNT + 1] = {
	[STORE_STATUS_OK] = "ok",
	[STORE_STATUS_NO_RESPONSE] = "no_response",
	[STORE_STATUS_TRUNCATED] = "truncated",
	[STORE_STATUS_FRAMES_UNAVAILABLE] = "frames_unavailable",
	[STORE_STATUS_NOT_MEASURED] = "not_measured",
	[STORE_STATUS_COUNT] = NULL,
};

const char *const store_flag_names[STORE_FLAG_COUNT + 1] = {
	"busy_before",	 "settle_capped",    "interrupted",
	"input_dropped", "end_from_latency", "end_unconfirmed",
	"clock_assumed", "start_estimated",  "present_estimated",
	"injected",	 "virtual_device",   NULL,
};

static int
store_index(const char *const *names, const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int
store_kind_index(const char *name)
{
	return store_index(store_kind_names, name);
}

int
store_status_index(const char *name)
{
	return store_index(store_status_names, name);
}

const char *
store_attribution_name(const char *name)
{
	static const char *const names[] = {"window", "foreground", "none",
					    NULL};
	int i = store_index(names, name);

	return names[i < 0 ? 1 : i];
}

/*
 * One and four rows of six values: tap_frames' (STORE__FRAME_COLUMNS),
 * tap_hist's (STORE__HIST_COLUMNS) and tap_counts' (STORE__COUNT_COLUMNS).
 */
#define STORE_ROW   "(?, ?, ?, ?, ?, ?)"
#define STORE_ROWS4 STORE_ROW "," STORE_ROW "," STORE_ROW "," STORE_ROW
/* One and four rows of tap_hist_sum (STORE__HIST_SUM_COLUMNS). */
#define STORE_SUM_ROW "(?, ?, ?, ?)"
#define STORE_SUM_ROWS4                                                        \
	STORE_SUM_ROW "," STORE_SUM_ROW "," STORE_SUM_ROW "," STORE_SUM_ROW

const char *const store__stmt_sql[STORE_STMT_N] = {
	[STORE_STMT_COUNT] = "SELECT count(*) FROM taps"
			     " WHERE (?1 IS NULL OR kind = ?1)"
			     " AND (?2 IS NULL OR status = ?2)",
	[STORE_STMT_SESSION_GET] = "SELECT stopped_ns FROM sessions"
				   " WHERE id = ?1",
	[STORE_STMT_SESSION_LIST] =
		"SELECT s.id, s.name, s.started_ns,"
		" s.stopped_ns, (SELECT count(*) FROM taps t"
		" WHERE t.session = s.id)"
		" FROM sessions s ORDER BY s.id",
	[STORE_STMT_SESSION_ONE] = "SELECT s.id, s.name, s.started_ns,"
				   " s.stopped_ns, (SELECT count(*) FROM taps t"
				   " WHERE t.session = s.id)"
				   " FROM sessions s WHERE s.id = ?1",
	[STORE_STMT_TAP_FRAMES] = "SELECT seq, start_ns, present_ns, jank,"
				  " in_burst FROM tap_frames WHERE tap_id = ?1"
				  " ORDER BY seq LIMIT ?2",
	/*
	 * IMMEDIATE takes the write lock up front, where busy_timeout
	 * applies, instead of failing at the first INSERT.
	 */
	[STORE_STMT_BEGIN] = "BEGIN IMMEDIATE",
	[STORE_STMT_COMMIT] = "COMMIT",
	[STORE_STMT_ROLLBACK] = "ROLLBACK",
	[STORE_STMT_INSERT_TAP] =
		"INSERT INTO taps (run, session, app, pid, kind, status,"
		" flags, t_down_ns, t_up_ns, wall_ns, x, y, first_frame_ns,"
		" settle_ns, frames, jank, id, jank_tags, window, attribution)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
		"?13,"
		" ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
	[STORE_STMT_INSERT_RUN] = "INSERT INTO runs (mode, source, started_ns)"
				  " VALUES (?1, ?2, ?3)",
	[STORE_STMT_END_RUN] = "UPDATE runs SET ended_ns = ?1, stats = ?2"
			       " WHERE id = ?3",
	[STORE_STMT_INSERT_FRAME] = "INSERT INTO tap_frames (tap_id, seq,"
				    " start_ns, present_ns, jank, in_burst)"
				    " VALUES " STORE_ROW,
	[STORE_STMT_INSERT_FRAMES4] = "INSERT INTO tap_frames (tap_id, seq,"
				      " start_ns, present_ns, jank, in_burst)"
				      " VALUES " STORE_ROWS4,
	[STORE_STMT_INSERT_FRAMES16] =
		"INSERT INTO tap_frames (tap_id, seq, start_ns, present_ns,"
		" jank, in_burst) VALUES " STORE_ROWS4 "," STORE_ROWS4
		"," STORE_ROWS4 "," STORE_ROWS4,
	/* A batch's counts of 1, 4 or 16 rows of the table, added up in C. */
	[STORE_STMT_HIST_ADD] = "INSERT INTO tap_hist (app, metric, span,"
				" minute, bucket, count) VALUES " STORE_ROW
				" ON CONFLICT DO UPDATE"
				" SET count = count + excluded.count",
	[STORE_STMT_HIST_ADD4] = "INSERT INTO tap_hist (app, metric, span,"
				 " minute, bucket, count) VALUES " STORE_ROWS4
				 " ON CONFLICT DO UPDATE"
				 " SET count = count + excluded.count",
	[STORE_STMT_HIST_ADD16] =
		"INSERT INTO tap_hist (app, metric, span, minute, bucket,"
		" count) VALUES " STORE_ROWS4 "," STORE_ROWS4 "," STORE_ROWS4
		"," STORE_ROWS4 " ON CONFLICT DO UPDATE"
		" SET count = count + excluded.count",
	/* The same for tap_counts and tap_hist_sum in a bulk batch. */
	[STORE_STMT_COUNTS_ADD] = "INSERT INTO tap_counts (app, named, status,"
				  " span, minute, count) VALUES " STORE_ROW
				  " ON CONFLICT DO UPDATE"
				  " SET count = count + excluded.count",
	[STORE_STMT_COUNTS_ADD4] = "INSERT INTO tap_counts (app, named, status,"
				   " span, minute, count) VALUES " STORE_ROWS4
				   " ON CONFLICT DO UPDATE"
				   " SET count = count + excluded.count",
	[STORE_STMT_COUNTS_ADD16] =
		"INSERT INTO tap_counts (app, named, status, span, minute,"
		" count) VALUES " STORE_ROWS4 "," STORE_ROWS4 "," STORE_ROWS4
		"," STORE_ROWS4 " ON CONFLICT DO UPDATE"
		" SET count = count + excluded.count",
	[STORE_STMT_HIST_SUM_ADD] =
		"INSERT INTO tap_hist_sum (app, metric,"
		" bucket, count) VALUES " STORE_SUM_ROW " ON CONFLICT DO UPDATE"
		" SET count = count + excluded.count",
	[STORE_STMT_HIST_SUM_ADD4] = "INSERT INTO tap_hist_sum (app, metric,"
				     " bucket, count) VALUES " STORE_SUM_ROWS4
				     " ON CONFLICT DO UPDATE"
				     " SET count = count + excluded.count",
	[STORE_STMT_HIST_SUM_ADD16] =
		"INSERT INTO tap_hist_sum (app, metric, bucket, count)"
		" VALUES " STORE_SUM_ROWS4 "," STORE_SUM_ROWS4
		"," STORE_SUM_ROWS4 "," STORE_SUM_ROWS4
		" ON CONFLICT DO UPDATE SET count = count + excluded.count",
	[STORE_STMT_SESSION_START] = "INSERT INTO sessions (name, started_ns)"
				     " VALUES (?1, ?2)",
	[STORE_STMT_SESSION_STOP] = "UPDATE sessions SET stopped_ns = ?2"
				    " WHERE id = ?1 AND stopped_ns IS NULL",
	/*
	 * The writer gives ids itself, so that a tap held through a full
	 * disk keeps the one it was announced with; AUTOINCREMENT's counter
	 * still rules, so ids of deleted taps are never given again.
	 */
	[STORE_STMT_NEXT_ID] = "SELECT max(coalesce((SELECT seq FROM"
			       " sqlite_sequence WHERE name = 'taps'), 0),"
			       " coalesce((SELECT max(id) FROM taps), 0)) + 1",
	/*
	 * A write that changes nothing, to learn whether a full disk has
	 * room again when no tap is waiting to be written.
	 */
	[STORE_STMT_PROBE] = "UPDATE runs SET started_ns = started_ns"
			     " WHERE id = (SELECT max(id) FROM runs)",
};

int64_t
store__clock_ns(int clock)
{
	struct timespec ts;

	if (clock_gettime((clockid_t)clock, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Maps an SQLite result code to a negative errno at the module's edge.
 * CANTOPEN carries the errno of the failed open(2) (ENOENT, EACCES, ...),
 * which says more than any fixed choice.
 */
int
store__errno(sqlite3 *db, int rc)
{
	int sys;

	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_IOERR:
		/*
		 * A WAL or shared-memory file that cannot grow is an I/O
		 * error to SQLite, and a full disk to whoever reads the log.
		 */
		sys = db ? sqlite3_system_errno(db) : 0;
		return sys == ENOSPC ? -ENOSPC : -EIO;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_INTERRUPT:
		return -EINTR;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
		return -EINVAL;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CANTOPEN:
		sys = db ? sqlite3_system_errno(db) : 0;
		return sys > 0 ? -sys : -ENOENT;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	default:
		return -EIO;
	}
}

int
store__fail(const struct store *st, int rc, const char *what)
{
	const char *msg;

	int err;

	msg = st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);
	err = store__errno(st->db, rc);
	if (err != -ENOSPC)
		log_warnx("cannot %s '%s': %s", what, st->path, msg);
	else if (st->quiet_full)
		log_debug("cannot %s '%s': disk full (ENOSPC): %s", what,
			  st->path, msg);
	else
		log_warnx("cannot %s '%s': disk full (ENOSPC): %s", what,
			  st->path, msg);
	return err;
}

int
store__exec(struct store *st, const char *sql, const char *what)
{
	int rc;

	rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return store__fail(st, rc, what);
	return 0;
}

/* Reads a pragma whose value is one integer (or one text, into text). */
static int
store_pragma(struct store *st, const char *name, int64_t *value, char *text,
	     size_t textsize)
{
	sqlite3_stmt *stmt = NULL;
	char sql[64];
	const unsigned char *s;
	int n, rc;

	n = snprintf(sql, sizeof(sql), "PRAGMA %s", name);
	if (n < 0 || (size_t)n >= sizeof(sql))
		return -EINVAL;
	rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK) {
		rc = store__fail(st, rc, "read");
		goto out;
	}
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		rc = store__fail(st, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				 "read");
		goto out;
	}
	if (value)
		*value = sqlite3_column_int64(stmt, 0);
	if (text) {
		s = sqlite3_column_text(stmt, 0);
		n = snprintf(text, textsize, "%s", s ? (const char *)s : "");
		if (n < 0 || (size_t)n >= textsize) {
			rc = -ERANGE;
			goto out;
		}
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
store__pragma_int(struct store *st, const char *name, int64_t *value)
{
	return store_pragma(st, name, value, NULL, 0);
}

/*
 * auto_vacuum only takes effect before the first page of the file is
 * written: sqlite 3.40 ignores it inside BEGIN IMMEDIATE and after
 * journal_mode = WAL, so it is set here, on a new file, first of all.  A
 * file that already has a first page but no table (another program set
 * WAL on it) needs a VACUUM, which is instant on an empty database.
 */
static int
store_init_vacuum(struct store *st)
{
	int64_t mode;
	int rc;

	rc = store__exec(st, "PRAGMA auto_vacuum = INCREMENTAL",
			 "set auto_vacuum on");
	if (rc < 0)
		return rc;
	rc = store__pragma_int(st, "auto_vacuum", &mode);
	if (rc < 0)
		return rc;
	if (mode == 2)
		return 0;
	rc = store__exec(st, "VACUUM", "vacuum");
	if (rc < 0)
		return rc;
	rc = store__pragma_int(st, "auto_vacuum", &mode);
	if (rc < 0)
		return rc;
	/* Only the file's growth after retention depends on it. */
	if (mode != 2)
		log_warnx("cannot set auto_vacuum on '%s': it stays %" PRId64,
			  st->path, mode);
	return 0;
}

/*
 * The page cache by role (store_set_memory()).  A negative cache_size is
 * in KiB, so that it means the same whatever the page size.
 */
static int
store_setup_cache(struct store *st)
{
	unsigned kib = store_cache_kib(st->readonly ? STORE_OPEN_READONLY : 0);
	char sql[48];

	if (kib == 0)
		return 0;
	snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%u", kib);
	return store__exec(st, sql, "set up");
}

/* The per-connection settings, in the order docs/DESIGN.md 6 gives. */
static int
store_setup(struct store *st)
{
	static const char *const pragmas[] = {
		/* Per connection, and FULL by default in Debian's build. */
		"PRAGMA synchronous = NORMAL",
		/*
		 * busy_timeout comes here in that order; it was set by
		 * sqlite3_busy_timeout() right after open, which is what
		 * the pragma calls.
		 */
		"PRAGMA foreign_keys = ON",
		/* Android has no temp directory sqlite would find. */
		"PRAGMA temp_store = MEMORY",
		NULL,
	};
	char mode[16];
	size_t i;
	int rc;

	/*
	 * WAL lets the API's readers read while the writer writes.  It is
	 * persistent in the file, and a reader could not set it anyway.
	 */
	if (!st->readonly) {
		rc = store_pragma(st, "journal_mode = WAL", NULL, mode,
				  sizeof(mode));
		if (rc < 0)
			return rc;
		if (strcmp(mode, "wal") != 0)
			log_warnx("cannot use WAL for '%s': journal mode is "
				  "'%s', so readers will wait for the writer",
				  st->path, mode);
	}
	for (i = 0; pragmas[i]; i++) {
		rc = store__exec(st, pragmas[i], "set up");
		if (rc < 0)
			return rc;
	}
	return store_setup_cache(st);
}

int
store_set_memory(unsigned writer_kib, unsigned reader_kib)
{
	int rc;

	if (writer_kib > STORE_CACHE_MAX_KIB ||
	    reader_kib > STORE_CACHE_MAX_KIB)
		return -EINVAL;
	store_writer_kib = writer_kib;
	store_reader_kib = reader_kib;
	/*
	 * Both fail with SQLITE_MISUSE once SQLite is initialized.  A
	 * lookaside is 120 KiB per connection, a first page cache block 80
	 * KiB, each touched whole when it is set up: for a writer and four
	 * readers on a small file, 1.1 MB of anonymous memory against 0.6 MB
	 * without them (the Android build's SQLite).
	 */
	rc = sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);
	if (rc == SQLITE_OK)
		rc = sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	return rc == SQLITE_OK ? 0 : -EBUSY;
}

unsigned
store_cache_kib(unsigned flags)
{
	return flags & STORE_OPEN_READONLY ? store_reader_kib
					   : store_writer_kib;
}

static int
store_prepare(struct store *st)
{
	int i, last, rc;

	last = st->readonly ? STORE_STMT_BEGIN : STORE_STMT_N;
	for (i = 0; i < last; i++) {
		/*
		 * Every statement lives as long as the connection: PERSISTENT
		 * tells SQLite not to take its memory from the lookaside.
		 */
		rc = sqlite3_prepare_v3(st->db, store__stmt_sql[i], -1,
					SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
					NULL);
		if (rc != SQLITE_OK)
			return store__fail(st, rc, "prepare statements for");
	}
	return 0;
}

int
store__step(struct store *st, enum store_stmt which)
{
	sqlite3_stmt *stmt = st->stmt[which];
	int rc;

	rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		rc = SQLITE_OK;
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	return rc;
}

void
store__held_clear(struct store *st)
{
	size_t i;

	for (i = 0; i < st->nheld; i++) {
		free(st->held[i].app);
		free(st->held[i].window);
		free(st->held[i].frames);
	}
	st->nheld = 0;
}

static void
store_free(struct store *st)
{
	int i, rc;

	if (!st)
		return;
	store__held_clear(st);
	free(st->held);
	free(st->hist);
	free(st->counts);
	free(st->end_stats);
	for (i = 0; i < STORE_STMT_N; i++)
		sqlite3_finalize(st->stmt[i]);
	if (st->db) {
		rc = sqlite3_close(st->db);
		if (rc != SQLITE_OK)
			log_warnx("cannot close '%s': %s", st->path,
				  sqlite3_errstr(rc));
	}
	free(st->path);
	free(st);
}

/*
 * The first id the writer gives; each batch reads it again under the write
 * lock (store_write.c).
 */
static int
store_read_next_id(struct store *st)
{
	sqlite3_stmt *stmt = st->stmt[STORE_STMT_NEXT_ID];
	int rc;

	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		st->next_id = sqlite3_column_int64(stmt, 0);
		rc = SQLITE_OK;
	}
	sqlite3_reset(stmt);
	return rc == SQLITE_OK ? 0 : store__fail(st, rc, "read");
}

/*
 * Opens name (a path or a "file:" URI) as path, the name messages give.
 * quiet: a lack of space is logged at debug level only, since the caller
 * tries again another way.
 */
static int
store_open_name(const char *name, const char *path, unsigned flags, bool quiet,
		struct store **out)
{
	struct store *st = NULL;
	bool fresh = false;
	int oflags, rc;

	st = calloc(1, sizeof(*st));
	if (!st) {
		rc = -ENOMEM;
		goto out;
	}
	st->path = strdup(path);
	if (!st->path) {
		rc = -ENOMEM;
		goto out;
	}
	st->quiet_full = quiet;
	st->readonly = (flags & STORE_OPEN_READONLY) != 0;
	/*
	 * NOMUTEX: each connection belongs to one thread at a time (the
	 * writer to the ingest thread, a reader to the handler that checked
	 * it out), so SQLite's own locking would only cost.
	 */
	oflags = SQLITE_OPEN_NOMUTEX;
	/*
	 * Readers take "file:" URIs so the pool can open a copied database
	 * read-only with ?immutable=1; builds of SQLite without URI names by
	 * default (Android's static ones) need the flag.
	 */
	oflags |= st->readonly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
			       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(name, &st->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		rc = store__fail(st, rc, "open");
		goto out;
	}
	/* The identity check may meet a writer's lock; wait for it. */
	rc = sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	if (rc != SQLITE_OK) {
		rc = store__fail(st, rc, "set up");
		goto out;
	}
	rc = store__identify(st, &fresh);
	if (rc < 0)
		goto out;
	if (fresh && !st->readonly) {
		rc = store_init_vacuum(st);
		if (rc < 0)
			goto out;
	}
	rc = store_setup(st);
	if (rc < 0)
		goto out;
	if (!st->readonly) {
		/*
		 * DIRECTONLY: only the migrations' own statements may call
		 * it, never a trigger or view planted in the file.
		 */
		rc = sqlite3_create_function_v2(
			st->db, "tapd_hist_bucket", 1,
			SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY,
			NULL, store__sql_hist_bucket, NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			rc = store__fail(st, rc, "set up");
			goto out;
		}
		rc = store__migrate(st);
		if (rc < 0)
			goto out;
	}
	rc = store_prepare(st);
	if (rc == 0 && !st->readonly)
		rc = store_read_next_id(st);
	if (rc < 0)
		goto out;
	st->ready = true;
	st->quiet_full = false;
	*out = st;
	st = NULL;
out:
	store_free(st);
	return rc;
}

char *
store_file_uri(const char *path, const char *query)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;
	size_t len, qlen;
	char *uri, *q;

	len = strlen(path);
	qlen = strlen(query);
	if (len > PATH_MAX)
		return NULL;
	uri = malloc(len * 3 + sizeof("file:?") + qlen);
	if (!uri)
		return NULL;
	q = uri;
	memcpy(q, "file:", 5);
	q += 5;
	for (p = (const unsigned char *)path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p <= 0x20 ||
		    *p >= 0x7f) {
			*q++ = '%';
			*q++ = hex[*p >> 4];
			*q++ = hex[*p & 0xf];
		} else {
			*q++ = (char)*p;
		}
	}
	*q++ = '?';
	memcpy(q, query, qlen + 1);
	return uri;
}

int
store_open(const char *path, unsigned flags, struct store **out)
{
	static int warned;
	bool reader;
	char *uri;
	int rc;

	if (!path || !out || (flags & ~STORE_OPEN_READONLY))
		return -EINVAL;
	reader = (flags & STORE_OPEN_READONLY) != 0 &&
		 strncmp(path, "file:", 5) != 0;
	rc = store_open_name(path, path, flags, reader, out);
	if (rc != -ENOSPC || !reader)
		return rc;
	/*
	 * A reader of a WAL file needs its shared-memory file (-shm) at
	 * full size, and on a full disk it cannot grow.  Opened read-only,
	 * the -shm SQLite has just made is left alone and the WAL index
	 * kept in the reader's own memory: slower, but the taps are served.
	 * A process with a writer never gets here: its readers share the
	 * writer's -shm, at full size since the writer opened.
	 */
	uri = store_file_uri(path, "readonly_shm=1");
	if (!uri)
		return -ENOMEM;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		log_warnx("'%s': disk full (ENOSPC): reading it without "
			  "growing its shared-memory file '-shm'",
			  path);
	rc = store_open_name(uri, path, flags, false, out);
	free(uri);
	return rc;
}

void
store_close(struct store *st)
{
	if (!st)
		return;
	if (st->ready && !st->readonly) {
		/* Failures are logged inside; closing goes on regardless. */
		store_drain(st);
		/*
		 * Recommended before closing a long-lived connection: it
		 * runs ANALYZE only where the statistics have gone stale;
		 * on a full disk it could only fail.
		 */
		if (!st->full)
			store__exec(st, "PRAGMA optimize", "optimize");
	}
	store_free(st);
}

int
store__refuse_readonly(const struct store *st, const char *what)
{
	log_warnx("cannot %s '%s': opened read-only", what, st->path);
	return -EROFS;
}

sqlite3 *
store__sqlite(struct store *st)
{
	return st->db;
}

void
store_reset(struct store *st)
{
	sqlite3_stmt *stmt = NULL;

	if (!st)
		return;
	/*
	 * A statement stepped but never reset keeps its read transaction,
	 * and with it the WAL from being checkpointed, until it is reused:
	 * a reader that forgot one must not starve the writer.
	 */
	while ((stmt = sqlite3_next_stmt(st->db, stmt)) != NULL) {
		if (sqlite3_stmt_busy(stmt)) {
			log_debug("resetting a statement left running: '%s'",
				  sqlite3_sql(stmt));
			sqlite3_reset(stmt);
		}
	}
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

const char *
store_errmsg(struct store *st)
{
	return sqlite3_errmsg(st->db);
}

/* One integer from a statement of one row and one column. */
static int
store_info_int(struct store *st, const char *sql, int64_t *out)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(stmt, 0);
		rc = SQLITE_OK;
	}
	/* The message stays until the next call on the connection. */
	sqlite3_finalize(stmt);
	return rc == SQLITE_OK ? 0 : store__errno(st->db, rc);
}

int
store_info(struct store *st, int64_t *version, int64_t *taps)
{
	int rc;

	rc = store_info_int(st, "PRAGMA user_version", version);
	if (rc == 0)
		rc = store_info_int(st, "SELECT count(*) FROM taps", taps);
	return rc;
}
