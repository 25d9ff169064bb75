/*
 * The store's writer: runs, the batched inserts of taps and their frames,
 * and sessions; see store.h.  Reads of sessions are here too, next to the
 * rows they read.  A batch's histogram counts are added up in
 * store_hist.c; what a full disk holds, and its writing again, is in
 * store_held.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "store.h"
#include "store_sql.h"

static bool
store_run_mode_known(const char *mode)
{
	return mode &&
	       (strcmp(mode, "replay") == 0 || strcmp(mode, "live") == 0);
}

/*
 * A statement outside the batch (a run, a session) failed: logged, and a
 * lack of space marks the store full, as the health reports it.
 */
static int
store_single_failed(struct store *st, int rc, const char *what)
{
	int err;

	err = store__fail(st, rc, what);
	if (err == -ENOSPC && !st->full) {
		st->full = true;
		st->retry_ns = store__clock_ns(CLOCK_MONOTONIC);
	}
	return err;
}

int
store_begin_run(struct store *st, const char *mode, const char *source,
		int64_t *run_id)
{
	sqlite3_stmt *stmt;
	int rc;

	if (st->readonly)
		return store__refuse_readonly(st, "begin a run in");
	if (!run_id)
		return -EINVAL;
	if (!store_run_mode_known(mode)) {
		log_warnx("cannot begin a run in '%s': unknown mode '%s'",
			  st->path, mode ? mode : "(null)");
		return -EINVAL;
	}
	if (st->run_id) {
		log_warnx("cannot begin a run in '%s': run %" PRId64
			  " is still open",
			  st->path, st->run_id);
		return -EALREADY;
	}
	/* Taps added so far belong to no run; they go first. */
	rc = store__flush(st, true);
	if (rc < 0)
		return rc;
	stmt = st->stmt[STORE_STMT_INSERT_RUN];
	rc = sqlite3_bind_text(stmt, 1, mode, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = source ? sqlite3_bind_text(stmt, 2, source, -1,
						SQLITE_TRANSIENT)
			    : sqlite3_bind_null(stmt, 2);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 3,
					store__clock_ns(CLOCK_REALTIME));
	if (rc == SQLITE_OK)
		rc = store__step(st, STORE_STMT_INSERT_RUN);
	else
		sqlite3_clear_bindings(stmt);
	if (rc != SQLITE_OK)
		return store_single_failed(st, rc, "record a run in");
	st->run_id = sqlite3_last_insert_rowid(st->db);
	*run_id = st->run_id;
	return 0;
}

/*
 * Records the pending end of the run, in a statement of its own: it may
 * find room (a failed batch leaves its pages in the WAL file) even when
 * the held taps do not.
 */
int
store__write_end(struct store *st)
{
	sqlite3_stmt *stmt = st->stmt[STORE_STMT_END_RUN];
	int err, rc;

	rc = sqlite3_bind_int64(stmt, 1, st->end_ns);
	if (rc == SQLITE_OK)
		rc = st->end_stats ? sqlite3_bind_text(stmt, 2, st->end_stats,
						       -1, SQLITE_STATIC)
				   : sqlite3_bind_null(stmt, 2);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 3, st->run_id);
	if (rc == SQLITE_OK)
		rc = store__step(st, STORE_STMT_END_RUN);
	else
		sqlite3_clear_bindings(stmt);
	if (rc != SQLITE_OK) {
		err = store__errno(st->db, rc);
		/* Said once, when the disk was found full. */
		if (err == -ENOSPC && st->full)
			return err;
		err = store_single_failed(st, rc, "record the end of a run in");
		/* Only a full disk is worth waiting for. */
		if (err != -ENOSPC) {
			st->end_pending = false;
			st->run_id = 0;
		}
		return err;
	}
	st->end_pending = false;
	st->run_id = 0;
	free(st->end_stats);
	st->end_stats = NULL;
	return 0;
}

int
store_end_run(struct store *st, const char *stats_json)
{
	char *stats = NULL;

	if (st->readonly)
		return store__refuse_readonly(st, "end a run in");
	if (!st->run_id) {
		log_warnx("cannot end a run in '%s': no run is open", st->path);
		return -EINVAL;
	}
	if (stats_json) {
		stats = strdup(stats_json);
		if (!stats)
			return -ENOMEM;
	}
	free(st->end_stats);
	st->end_stats = stats;
	st->end_ns = store__clock_ns(CLOCK_REALTIME);
	st->end_pending = true;
	/*
	 * The run's last taps go first; the run is ended even when they are
	 * lost, since its counters say what happened.
	 */
	return store__flush(st, true);
}

/*
 * Checks what the schema's CHECKs and foreign keys would otherwise reject
 * inside the batch, and what no producer may send: a failed INSERT is the
 * caller's mistake and must not cost the other rows of the batch.  Returns
 * what is wrong, or NULL.
 */
static const char *
store_tap_invalid(const struct store_tap *tap)
{
	if (store_kind_index(tap->kind) < 0)
		return "unknown kind";
	if (store_status_index(tap->status) < 0)
		return "unknown status";
	if (tap->flags & ~STORE_FLAG_MASK)
		return "unknown flags";
	if (tap->pid < 0)
		return "negative pid";
	if (tap->wall_ns < -1)
		return "negative wall time";
	if (tap->first_frame_ns < -1 || tap->settle_ns < -1 ||
	    tap->launch_first_frame_ns < -1 || tap->launch_settle_ns < -1)
		return "negative latency";
	if (tap->frames < 0)
		return "negative frame count";
	if (tap->session < 0)
		return "negative session";
	return NULL;
}

static int
store_bind_tap(struct store *st, const struct store__held *h)
{
	sqlite3_stmt *stmt = st->stmt[STORE_STMT_INSERT_TAP];
	const struct store_tap *tap = &h->tap;
	/*
	 * Launch values belong to launches only, so that a tap zeroed by a
	 * caller that knows nothing of them is not a launch of 0 ns.
	 */
	int launch = (tap->flags & STORE_FLAG_LAUNCH) != 0;
	int rc;

	/* Unknown is NULL in the table, never a made-up 0 or -1. */
	rc = h->run ? sqlite3_bind_int64(stmt, 1, h->run)
		    : sqlite3_bind_null(stmt, 1);
	if (rc == SQLITE_OK)
		rc = tap->session ? sqlite3_bind_int64(stmt, 2, tap->session)
				  : sqlite3_bind_null(stmt, 2);
	if (rc == SQLITE_OK)
		rc = tap->app ? sqlite3_bind_text(stmt, 3, tap->app, -1,
						  SQLITE_TRANSIENT)
			      : sqlite3_bind_null(stmt, 3);
	if (rc == SQLITE_OK)
		rc = tap->pid ? sqlite3_bind_int64(stmt, 4, tap->pid)
			      : sqlite3_bind_null(stmt, 4);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(stmt, 5, tap->kind, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(stmt, 6, tap->status, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 7, tap->flags);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 8, tap->t_down_ns);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 9, tap->t_up_ns);
	if (rc == SQLITE_OK)
		rc = tap->wall_ns >= 0
			     ? sqlite3_bind_int64(stmt, 10, tap->wall_ns)
			     : sqlite3_bind_null(stmt, 10);
	/* A NaN coordinate becomes NULL inside sqlite3_bind_double(). */
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(stmt, 11, tap->x);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(stmt, 12, tap->y);
	if (rc == SQLITE_OK)
		rc = tap->first_frame_ns >= 0
			     ? sqlite3_bind_int64(stmt, 13, tap->first_frame_ns)
			     : sqlite3_bind_null(stmt, 13);
	if (rc == SQLITE_OK)
		rc = tap->settle_ns >= 0
			     ? sqlite3_bind_int64(stmt, 14, tap->settle_ns)
			     : sqlite3_bind_null(stmt, 14);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 15, tap->frames);
	/* Through int64 so that bit 31 stays a positive number. */
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 16, (int64_t)tap->jank);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 17, h->id);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 18, (int64_t)tap->jank_tags);
	if (rc == SQLITE_OK)
		rc = tap->window ? sqlite3_bind_text(stmt, 19, tap->window, -1,
						     SQLITE_TRANSIENT)
				 : sqlite3_bind_null(stmt, 19);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(stmt, 20,
				       store_attribution_name(tap->attribution),
				       -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = tap->target_app
			     ? sqlite3_bind_text(stmt, 21, tap->target_app, -1,
						 SQLITE_TRANSIENT)
			     : sqlite3_bind_null(stmt, 21);
	if (rc == SQLITE_OK)
		rc = tap->target_activity
			     ? sqlite3_bind_text(stmt, 22, tap->target_activity,
						 -1, SQLITE_TRANSIENT)
			     : sqlite3_bind_null(stmt, 22);
	if (rc == SQLITE_OK)
		rc = launch && tap->launch_first_frame_ns >= 0
			     ? sqlite3_bind_int64(stmt, 23,
						  tap->launch_first_frame_ns)
			     : sqlite3_bind_null(stmt, 23);
	if (rc == SQLITE_OK)
		rc = launch && tap->launch_settle_ns >= 0
			     ? sqlite3_bind_int64(stmt, 24,
						  tap->launch_settle_ns)
			     : sqlite3_bind_null(stmt, 24);
	return rc;
}

/*
 * Checks what the frames of a tap must be; the ids and seq numbers are the
 * store's own, so nothing else in them can fail a constraint.
 */
static const char *
store_frames_invalid(const struct store_tap *tap,
		     const struct store_frame *frames, size_t nframes)
{
	size_t i;

	if (nframes == 0)
		return NULL;
	if (!frames || nframes != (size_t)tap->frames)
		return "frame count differs from the frames given";
	for (i = 0; i < nframes; i++)
		if (frames[i].present_ns < frames[i].start_ns)
			return "frame presented before it started";
	return NULL;
}

_Static_assert(STORE_STMT_INSERT_FRAMES16 == STORE_STMT_INSERT_FRAME + 2 &&
		       STORE_STMT_INSERT_FRAMES4 == STORE_STMT_INSERT_FRAME + 1,
	       "the frames' statements of 1, 4 and 16 rows follow each other");

/* The statement of 16, 4 or 1 rows for the next of n rows left. */
size_t
store__rows(size_t n, enum store_stmt sixteen, enum store_stmt *which)
{
	if (n >= 16) {
		*which = sixteen;
		return 16;
	}
	if (n >= 4) {
		*which = (enum store_stmt)(sixteen - 1);
		return 4;
	}
	*which = (enum store_stmt)(sixteen - 2);
	return 1;
}

/*
 * Binds frames [first, first + n) of a tap as rows 0..n-1 of stmt, whose
 * rows each take STORE__FRAME_COLUMNS values.
 */
static int
store_bind_frames(sqlite3_stmt *stmt, int64_t tap_id,
		  const struct store_frame *frames, size_t first, size_t n)
{
	const struct store_frame *f;
	size_t i;
	int col, rc = SQLITE_OK;

	for (i = 0; i < n && rc == SQLITE_OK; i++) {
		f = &frames[first + i];
		col = (int)(i * STORE__FRAME_COLUMNS);
		rc = sqlite3_bind_int64(stmt, col + 1, tap_id);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(stmt, col + 2,
						(int64_t)(first + i));
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(stmt, col + 3, f->start_ns);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(stmt, col + 4, f->present_ns);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(stmt, col + 5,
						(int64_t)f->jank);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int(stmt, col + 6,
					      f->in_burst ? 1 : 0);
	}
	return rc;
}

/*
 * The frames of a tap, 16 rows a statement while 16 are left, then 4,
 * then one: a statement's own work (its program, its journal of the
 * statement) is paid about twice per tap instead of once per frame.
 */
static int
store_insert_frames(struct store *st, int64_t tap_id,
		    const struct store_frame *frames, size_t nframes)
{
	enum store_stmt which;
	size_t i, rows;
	int rc = SQLITE_OK;

	for (i = 0; i < nframes && rc == SQLITE_OK; i += rows) {
		rows = store__rows(nframes - i, STORE_STMT_INSERT_FRAMES16,
				   &which);
		rc = store_bind_frames(st->stmt[which], tap_id, frames, i,
				       rows);
		if (rc == SQLITE_OK)
			rc = store__step(st, which);
		else
			sqlite3_clear_bindings(st->stmt[which]);
	}
	return rc;
}

/*
 * BEGIN for a new batch; under the write lock, the next id is read again,
 * past the taps another writer of the file may have added.
 */
static int
store_begin(struct store *st)
{
	sqlite3_stmt *stmt = st->stmt[STORE_STMT_NEXT_ID];
	int rc;

	rc = store__step(st, STORE_STMT_BEGIN);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_int64(stmt, 0) > st->next_id)
			st->next_id = sqlite3_column_int64(stmt, 0);
		rc = SQLITE_OK;
	}
	sqlite3_reset(stmt);
	if (rc != SQLITE_OK)
		return rc;
	st->in_batch = true;
	st->batch_rows = 0;
	st->batch_first_ns = store__clock_ns(CLOCK_MONOTONIC);
	return SQLITE_OK;
}

/*
 * Inserts a held tap and its frames in the open transaction, and adds
 * its histogram counts to the batch's.  Returns the SQLite result; *row_only
 * says that the tap's own INSERT failed, which undoes that statement alone.
 */
int
store__put(struct store *st, const struct store__held *h, bool *row_only)
{
	int rc;

	*row_only = true;
	/*
	 * A batch this long is worth its statements prepared again: the
	 * taps from here on skip the triggers and CHECKs, and their counts
	 * are kept here (store__bulk()).
	 */
	if (!st->bulk && st->batch_rows >= STORE__BULK_ROWS) {
		rc = store__bulk(st, true);
		if (rc != SQLITE_OK)
			return rc;
	}
	rc = store_bind_tap(st, h);
	if (rc == SQLITE_OK)
		rc = store__step(st, STORE_STMT_INSERT_TAP);
	else
		sqlite3_clear_bindings(st->stmt[STORE_STMT_INSERT_TAP]);
	if (rc != SQLITE_OK)
		return rc;
	*row_only = false;
	rc = store_insert_frames(st, h->id, h->frames, h->nframes);
	if (rc == SQLITE_OK)
		rc = store__hist_tap(st, &h->tap);
	if (rc == SQLITE_OK)
		rc = store__counts_tap(st, &h->tap);
	return rc;
}

/*
 * Whether a failed store__put() lost that row alone: a constraint (a
 * session id that does not exist) on the tap's own INSERT, with the
 * transaction still open.
 */
bool
store__row_rejected(struct store *st, int rc, bool row_only)
{
	return row_only && store__errno(st->db, rc) == -EINVAL &&
	       !sqlite3_get_autocommit(st->db);
}

int
store_insert(struct store *st, const struct store_tap *tap,
	     const struct store_frame *frames, size_t nframes, int64_t *id)
{
	struct store__held *h;
	const char *why;
	int64_t tap_id;
	bool row_only;
	int rc;

	if (st->readonly)
		return store__refuse_readonly(st, "add a tap to");
	if (!tap)
		return -EINVAL;
	why = store_tap_invalid(tap);
	if (!why)
		why = store_frames_invalid(tap, frames, nframes);
	if (why) {
		log_warnx("cannot add a tap to '%s': %s (kind '%s', status "
			  "'%s')",
			  st->path, why, tap->kind ? tap->kind : "(null)",
			  tap->status ? tap->status : "(null)");
		return -EINVAL;
	}
	st->added++;
	/* Only a full disk holds this many: the newest tap is dropped. */
	if (st->nheld >= STORE_HELD_MAX) {
		st->lost++;
		st->dropped++;
		if (st->dropped == 1)
			log_warnx("'%s' is still full (ENOSPC) with %d taps "
				  "held in memory: dropping new taps",
				  st->path, STORE_HELD_MAX);
		return -ENOSPC;
	}
	if (!st->full && !st->in_batch) {
		rc = store_begin(st);
		if (rc != SQLITE_OK) {
			rc = store__write_failed(st, rc,
						 "begin a transaction in");
			if (rc != -ENOSPC) {
				st->lost++;
				return rc;
			}
		}
	}
	rc = store__hold(st, tap, frames, nframes, &h);
	if (rc < 0) {
		st->lost++;
		return rc;
	}
	tap_id = h->id;
	if (!st->full) {
		rc = store__put(st, h, &row_only);
		if (rc != SQLITE_OK && store__row_rejected(st, rc, row_only)) {
			/* The batch is intact and stays; this row is lost. */
			rc = store__fail(st, rc, "add a tap to");
			store__unhold(st, st->nheld - 1);
			st->next_id--;
			st->lost++;
			return rc;
		}
		if (rc != SQLITE_OK) {
			/*
			 * The tap's row may be in without its frames or
			 * counts: only dropping (or holding) the whole batch
			 * keeps the three tables agreeing.
			 */
			rc = store__write_failed(st, rc, "add a tap to");
			if (rc != -ENOSPC)
				return rc;
		} else {
			st->batch_rows++;
		}
	}
	if (id)
		*id = tap_id;
	if (!st->full && st->batch_rows >= (st->batch_max ? st->batch_max
							  : STORE_BATCH_ROWS)) {
		rc = store__flush(st, false);
		/* Held, the tap is still accepted, its id still final. */
		return rc == -ENOSPC ? 0 : rc;
	}
	return 0;
}

int
store_set_batch(struct store *st, unsigned rows)
{
	if (rows == 0 || rows > STORE_HELD_MAX)
		return -EINVAL;
	st->batch_max = rows;
	/*
	 * The default 2 MiB fill with dirty pages long before such a batch
	 * ends, and SQLite writes them out early, then again at the COMMIT.
	 */
	return store__exec(st, "PRAGMA cache_size = -16384",
			   "set the page cache of");
}

int
store_add_tap(struct store *st, const struct store_tap *tap)
{
	return store_insert(st, tap, NULL, 0, NULL);
}

uint64_t
store_added(const struct store *st)
{
	return st->added;
}

uint64_t
store_lost(const struct store *st)
{
	return st->lost;
}

int
store_count(struct store *st, const char *kind, const char *status,
	    int64_t *count)
{
	sqlite3_stmt *stmt = st->stmt[STORE_STMT_COUNT];
	int rc;

	/* An unknown name would match nothing and hide a typo as a 0. */
	if ((kind && store_kind_index(kind) < 0) ||
	    (status && store_status_index(status) < 0) || !count)
		return -EINVAL;
	rc = kind ? sqlite3_bind_text(stmt, 1, kind, -1, SQLITE_STATIC)
		  : sqlite3_bind_null(stmt, 1);
	if (rc == SQLITE_OK)
		rc = status ? sqlite3_bind_text(stmt, 2, status, -1,
						SQLITE_STATIC)
			    : sqlite3_bind_null(stmt, 2);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*count = sqlite3_column_int64(stmt, 0);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_ERROR;
	}
	if (rc != SQLITE_OK)
		rc = store__fail(st, rc, "count taps in");
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	return rc;
}

static bool
store_session_name_ok(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strlen(name);
	if (len == 0 || len > STORE_SESSION_NAME_MAX)
		return false;
	for (; *name; name++)
		if ((unsigned char)*name < 0x20 || *name == 0x7f)
			return false;
	return true;
}

int
store_session_start(struct store *st, const char *name, int64_t *id,
		    int64_t *started_ns)
{
	sqlite3_stmt *stmt = st->stmt[STORE_STMT_SESSION_START];
	int64_t now;
	int rc;

	if (st->readonly)
		return store__refuse_readonly(st, "start a session in");
	if (!store_session_name_ok(name)) {
		log_warnx("cannot start a session in '%s': the name must be "
			  "1 to %d bytes without control characters",
			  st->path, STORE_SESSION_NAME_MAX);
		return -EINVAL;
	}
	/*
	 * Outside any batch, so that the session row is durable as soon as
	 * the caller learns its id; the taps added so far go first.
	 */
	rc = store__flush(st, true);
	if (rc < 0)
		return rc;
	now = store__clock_ns(CLOCK_REALTIME);
	rc = sqlite3_bind_text(stmt, 1, name, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 2, now);
	if (rc == SQLITE_OK)
		rc = store__step(st, STORE_STMT_SESSION_START);
	else
		sqlite3_clear_bindings(stmt);
	if (rc != SQLITE_OK)
		return store_single_failed(st, rc, "start a session in");
	if (id)
		*id = sqlite3_last_insert_rowid(st->db);
	if (started_ns)
		*started_ns = now;
	return 0;
}

int
store_session_stop(struct store *st, int64_t id, int64_t *stopped_ns)
{
	sqlite3_stmt *stmt;
	int64_t now;
	int rc;

	if (st->readonly)
		return store__refuse_readonly(st, "stop a session in");
	rc = store__flush(st, true);
	if (rc < 0)
		return rc;
	now = store__clock_ns(CLOCK_REALTIME);
	stmt = st->stmt[STORE_STMT_SESSION_STOP];
	rc = sqlite3_bind_int64(stmt, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 2, now);
	if (rc == SQLITE_OK)
		rc = store__step(st, STORE_STMT_SESSION_STOP);
	else
		sqlite3_clear_bindings(stmt);
	if (rc != SQLITE_OK)
		return store_single_failed(st, rc, "stop a session in");
	if (sqlite3_changes(st->db) == 1) {
		if (stopped_ns)
			*stopped_ns = now;
		return 0;
	}
	/* Nothing changed: either no such session or it is stopped. */
	stmt = st->stmt[STORE_STMT_SESSION_GET];
	rc = sqlite3_bind_int64(stmt, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		rc = -EALREADY;
	else if (rc == SQLITE_DONE)
		rc = -ENOENT;
	else
		rc = store__fail(st, rc, "read sessions of");
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	return rc;
}

/* The session the current row of stmt describes, name borrowed. */
static void
store_session_row(sqlite3_stmt *stmt, struct store_session *s)
{
	const unsigned char *name;

	name = sqlite3_column_text(stmt, 1);
	s->id = sqlite3_column_int64(stmt, 0);
	s->name = name ? (const char *)name : "";
	s->started_ns = sqlite3_column_int64(stmt, 2);
	s->stopped_ns = sqlite3_column_type(stmt, 3) == SQLITE_NULL
				? -1
				: sqlite3_column_int64(stmt, 3);
	s->taps = sqlite3_column_int64(stmt, 4);
}

int
store_session_list(struct store *st, store_session_cb cb, void *ctx)
{
	sqlite3_stmt *stmt = st->stmt[STORE_STMT_SESSION_LIST];
	struct store_session s;
	int rc, crc = 0;

	if (!cb)
		return -EINVAL;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		store_session_row(stmt, &s);
		crc = cb(ctx, &s);
		if (crc != 0)
			break;
	}
	if (crc != 0)
		rc = crc;
	else if (rc == SQLITE_DONE)
		rc = 0;
	else
		rc = store__fail(st, rc, "read sessions of");
	sqlite3_reset(stmt);
	return rc;
}

int
store_session_get(struct store *st, int64_t id, store_session_cb cb, void *ctx)
{
	sqlite3_stmt *stmt = st->stmt[STORE_STMT_SESSION_ONE];
	struct store_session s;
	int rc;

	if (!cb)
		return -EINVAL;
	rc = sqlite3_bind_int64(stmt, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		store_session_row(stmt, &s);
		rc = cb(ctx, &s);
	} else if (rc == SQLITE_DONE) {
		rc = -ENOENT;
	} else {
		rc = store__fail(st, rc, "read sessions of");
	}
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	return rc;
}

int
store_retain(struct store *st, int64_t before_wall_ns, unsigned batch,
	     int64_t *deleted)
{
	const int64_t day_ns = INT64_C(86400) * 1000000000;
	sqlite3_stmt *stmt = NULL;
	int64_t cutoff;
	int rc;

	*deleted = 0;
	if (st->readonly)
		return store__refuse_readonly(st, "delete from");
	if (before_wall_ns <= 0 || batch == 0)
		return -EINVAL;
	cutoff = before_wall_ns - before_wall_ns % day_ns;
	/* Taps of the open batch are the newest: commit them first. */
	rc = store_commit(st);
	if (rc < 0)
		return rc;
	rc = sqlite3_prepare_v2(st->db,
				"DELETE FROM taps WHERE id IN (SELECT id FROM "
				"taps WHERE wall_ns < ?1 ORDER BY wall_ns "
				"LIMIT ?2)",
				-1, &stmt, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 1, cutoff);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 2, batch);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc != SQLITE_DONE) {
		rc = store_single_failed(st, rc, "delete old taps from");
		goto out;
	}
	*deleted = sqlite3_changes64(st->db);
	rc = 0;
	if (*deleted > 0)
		goto out;
	/*
	 * The taps are gone; their histogram rows go in one statement, as
	 * the cutoff is a whole day every span's row starts before it or at
	 * it.
	 */
	sqlite3_finalize(stmt);
	stmt = NULL;
	rc = sqlite3_prepare_v2(st->db,
				"DELETE FROM tap_hist WHERE minute < ?1", -1,
				&stmt, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 1, cutoff / 60000000000LL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc != SQLITE_DONE) {
		rc = store_single_failed(st, rc, "delete old histograms from");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(stmt);
	return rc;
}

int
store_maintain(struct store *st)
{
	int rc;

	if (st->readonly)
		return store__refuse_readonly(st, "maintain");
	rc = store_commit(st);
	if (rc == 0)
		rc = store__exec(st, "PRAGMA incremental_vacuum(2000)",
				 "vacuum");
	if (rc == 0)
		rc = store__exec(st, "PRAGMA wal_checkpoint(TRUNCATE)",
				 "checkpoint");
	return rc;
}
