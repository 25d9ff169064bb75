/*
 * The store's ride over a full disk: the held taps (struct store__held)
 * kept, written again at most once a second, drained at the end, and the
 * state the health reports; see store.h and docs/DESIGN.md 3.7.  The
 * inserts that hold them are in store_write.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

#include "log.h"
#include "store.h"
#include "store_sql.h"

/*
 * Ends the open transaction, if SQLite has not ended it already: a
 * ROLLBACK with none open would only log "no transaction is active".
 */
static void
store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		store__step(st, STORE_STMT_ROLLBACK);
	st->in_batch = false;
	st->batch_rows = 0;
	/* The batch's counts went with it; a rewrite adds them up again. */
	st->nhist = 0;
	store__bulk(st, false);
}

/* Drops the open batch after a failure, counting its rows as lost. */
static void
store_abandon(struct store *st)
{
	store_rollback(st);
	if (st->nheld)
		log_warnx("lost %zu taps of '%s' with the failed transaction",
			  st->nheld, st->path);
	st->lost += st->nheld;
	store__held_clear(st);
	/* Nothing is held any more; the next write says whether it fits. */
	st->full = false;
}

/*
 * A write found no room: the held taps stay (the batch that failed among
 * them) and are written again by store__flush() once a second.
 */
static int
store_set_full(struct store *st)
{
	store_rollback(st);
	st->full = true;
	st->retry_ns = store__clock_ns(CLOCK_MONOTONIC);
	return -ENOSPC;
}

/*
 * A write of the batch failed: a full disk keeps the held taps, anything
 * else loses them.  Returns the errno.
 */
int
store__write_failed(struct store *st, int rc, const char *what)
{
	int err;

	err = store__errno(st->db, rc);
	if (err != -ENOSPC) {
		err = store__fail(st, rc, what);
		store_abandon(st);
		return err;
	}
	if (!st->full)
		log_warnx("cannot %s '%s': disk full (ENOSPC): %s; holding "
			  "taps in memory (at most %d) and trying again every "
			  "second",
			  what, st->path, sqlite3_errmsg(st->db),
			  STORE_HELD_MAX);
	return store_set_full(st);
}

/* Keeps a copy of a valid tap, with the next id and the open run. */
int
store__hold(struct store *st, const struct store_tap *tap,
	    const struct store_frame *frames, size_t nframes,
	    struct store__held **out)
{
	struct store__held *h;
	size_t cap;

	if (st->nheld == st->cap_held) {
		cap = st->cap_held ? st->cap_held * 2 : 64;
		h = realloc(st->held, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		st->held = h;
		st->cap_held = cap;
	}
	h = &st->held[st->nheld];
	memset(h, 0, sizeof(*h));
	h->tap = *tap;
	/* The store's own names outlive the caller's strings. */
	h->tap.kind = store_kind_names[store_kind_index(tap->kind)];
	h->tap.status = store_status_names[store_status_index(tap->status)];
	if (tap->app) {
		h->app = strdup(tap->app);
		if (!h->app)
			return -ENOMEM;
	}
	h->tap.app = h->app;
	if (tap->window) {
		h->window = strdup(tap->window);
		if (!h->window) {
			free(h->app);
			return -ENOMEM;
		}
	}
	h->tap.window = h->window;
	h->tap.attribution = store_attribution_name(tap->attribution);
	if (tap->target_app && !(h->target_app = strdup(tap->target_app)))
		goto nomem;
	if (tap->target_activity &&
	    !(h->target_activity = strdup(tap->target_activity)))
		goto nomem;
	h->tap.target_app = h->target_app;
	h->tap.target_activity = h->target_activity;
	if (nframes) {
		h->frames = malloc(nframes * sizeof(*frames));
		if (!h->frames)
			goto nomem;
		memcpy(h->frames, frames, nframes * sizeof(*frames));
	}
	h->nframes = nframes;
	h->id = st->next_id++;
	h->run = st->run_id;
	st->nheld++;
	*out = h;
	return 0;
nomem:
	free(h->app);
	free(h->window);
	free(h->target_app);
	free(h->target_activity);
	return -ENOMEM;
}

/* Forgets held tap i, which the database refused. */
void
store__unhold(struct store *st, size_t i)
{
	free(st->held[i].app);
	free(st->held[i].window);
	free(st->held[i].target_app);
	free(st->held[i].target_activity);
	free(st->held[i].frames);
	memmove(&st->held[i], &st->held[i + 1],
		(st->nheld - i - 1) * sizeof(*st->held));
	st->nheld--;
}

/*
 * The free space below which a store found full stays full while it has
 * nothing to write.  The probe below rewrites one page, which the WAL
 * file may hold already with no byte free on the disk: without this, the
 * health would say "up" on a full disk while every insert still fails.
 */
#define STORE_ROOM_MIN (256 * 1024)

/* False when the file system holding the database still has no room. */
static bool
store_has_room(const struct store *st)
{
	struct statvfs vfs;

	/* A file system that cannot tell is left to the probe. */
	if (statvfs(st->path, &vfs) != 0)
		return true;
	return (unsigned long long)vfs.f_bavail * vfs.f_frsize >=
	       STORE_ROOM_MIN;
}

/*
 * Writes the held taps again, in one transaction, once the disk was found
 * full; with none held, free space and a write that changes nothing tell
 * whether there is room again.
 */
static int
store_rewrite(struct store *st)
{
	bool row_only = false;
	size_t i, n;
	int rc;

	if (st->nheld == 0 && !st->end_pending && !store_has_room(st))
		return -ENOSPC;
	rc = store__step(st, STORE_STMT_BEGIN);
	if (rc == SQLITE_OK && st->nheld >= STORE__BULK_ROWS)
		rc = store__bulk(st, true);
	for (i = 0; rc == SQLITE_OK && i < st->nheld;) {
		rc = store__put(st, &st->held[i], &row_only);
		if (rc != SQLITE_OK && store__row_rejected(st, rc, row_only)) {
			store__fail(st, rc, "add a held tap to");
			store__unhold(st, i);
			st->lost++;
			rc = SQLITE_OK;
			continue;
		}
		i++;
	}
	if (rc == SQLITE_OK)
		rc = store__hist_write(st);
	if (rc == SQLITE_OK && st->nheld == 0 && !st->end_pending)
		rc = store__step(st, STORE_STMT_PROBE);
	if (rc == SQLITE_OK)
		rc = store__step(st, STORE_STMT_COMMIT);
	if (rc != SQLITE_OK)
		return store__write_failed(st, rc, "write the held taps to");
	store__bulk(st, false);
	n = st->nheld;
	store__held_clear(st);
	st->full = false;
	if (n == 0 && st->dropped == 0)
		log_warnx("'%s' has room again", st->path);
	else
		log_warnx("'%s' has room again: taps held in memory written: "
			  "%zu, dropped since the start: %" PRIu64,
			  st->path, n, st->dropped);
	return 0;
}

/*
 * Writes what is pending: the open batch, or after a full disk the held
 * taps (at most once every STORE_RETRY_NS unless forced); then a pending
 * end of run, even when the taps did not fit.
 */
int
store__flush(struct store *st, bool force)
{
	int64_t now;
	int rc = 0, erc;

	if (st->full) {
		now = store__clock_ns(CLOCK_MONOTONIC);
		if (!force && now - st->retry_ns < STORE_RETRY_NS)
			return -ENOSPC;
		st->retry_ns = now;
		rc = store_rewrite(st);
	} else if (st->in_batch) {
		rc = store__hist_write(st);
		if (rc == SQLITE_OK)
			rc = store__step(st, STORE_STMT_COMMIT);
		if (rc != SQLITE_OK) {
			rc = store__write_failed(st, rc, "commit to");
		} else {
			store__bulk(st, false);
			st->in_batch = false;
			st->batch_rows = 0;
			store__held_clear(st);
		}
	}
	if (!st->end_pending)
		return rc;
	erc = store__write_end(st);
	return rc < 0 ? rc : erc;
}

int
store_commit(struct store *st)
{
	return store__flush(st, false);
}

int
store_tick(struct store *st, int64_t now_ns)
{
	if (st->full || st->end_pending)
		return store__flush(st, false);
	if (!st->in_batch || now_ns - st->batch_first_ns < STORE_BATCH_DELAY_NS)
		return 0;
	return store__flush(st, false);
}

int
store_drain(struct store *st)
{
	int rc;

	if (!st || st->readonly)
		return 0;
	/* A full disk with nothing waiting loses nothing. */
	if (st->full && st->nheld == 0 && !st->end_pending)
		return 0;
	rc = store__flush(st, true);
	if (rc == 0)
		return 0;
	if (st->nheld) {
		if (rc == -ENOSPC)
			log_warnx("lost %zu taps held in memory: '%s' is "
				  "still full (ENOSPC)",
				  st->nheld, st->path);
		st->lost += st->nheld;
		store__held_clear(st);
	}
	if (st->end_pending) {
		log_warnx("cannot record the end of run %" PRId64
			  " in '%s': disk full (ENOSPC)",
			  st->run_id, st->path);
		st->end_pending = false;
		st->run_id = 0;
	}
	return rc;
}

int
store_full(const struct store *st)
{
	return st->full;
}

uint64_t
store_held(const struct store *st)
{
	return st->nheld;
}

uint64_t
store_dropped(const struct store *st)
{
	return st->dropped;
}

int
store_health(const struct store *st, char *detail, size_t size)
{
	if (!st->full)
		return 0;
	snprintf(detail, size,
		 "disk full (ENOSPC): %zu taps held in memory (at most %d), "
		 "%" PRIu64 " dropped",
		 st->nheld, STORE_HELD_MAX, st->dropped);
	return 1;
}
