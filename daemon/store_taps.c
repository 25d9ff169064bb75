/*
 * The readers of the taps table (store_taps.h) and what every statement
 * over it is built with: the statement builder and the one WHERE clause
 * of a struct store_filter.  Statements are built from fixed fragments
 * with every value bound, never printed into the SQL.
 */
#include "store_taps.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store_sql.h"

void
store_filter_init(struct store_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->kinds = STORE_KINDS_ALL;
	f->since_ns = INT64_MIN;
	f->until_ns = INT64_MAX;
	f->wall = STORE_WALL_ANY;
}

void
store_filter_app(struct store_filter *f, const char *app)
{
	f->app_unknown = app != NULL && strcmp(app, STORE_APP_UNKNOWN) == 0;
	f->app = f->app_unknown ? NULL : app;
}

int
store__db_fail(sqlite3 *db, int rc, const char *what)
{
	log_warnx("cannot %s: %s", what, sqlite3_errmsg(db));
	return store__errno(db, rc);
}

void
store__qb_add(struct store__qb *q, const char *s)
{
	size_t n = strlen(s);

	if (q->overflow || q->len + n >= sizeof(q->sql)) {
		q->overflow = true;
		return;
	}
	memcpy(q->sql + q->len, s, n + 1);
	q->len += n;
}

static void
store_qb_bind(struct store__qb *q, bool is_text, int64_t i, const char *s)
{
	if (q->nbind == STORE__QB_BINDS_MAX) {
		q->overflow = true;
		return;
	}
	q->bind[q->nbind].is_text = is_text;
	q->bind[q->nbind].i = i;
	q->bind[q->nbind].s = s;
	q->nbind++;
}

void
store__qb_int(struct store__qb *q, const char *s, int64_t v)
{
	store__qb_add(q, s);
	store_qb_bind(q, false, v, NULL);
}

void
store__qb_text(struct store__qb *q, const char *s, const char *v)
{
	store__qb_add(q, s);
	store_qb_bind(q, true, 0, v);
}

void
store__qb_cond(struct store__qb *q, const char *s)
{
	store__qb_add(q, q->where ? " AND " : " WHERE ");
	q->where = true;
	store__qb_add(q, s);
}

void
store__qb_cond_int(struct store__qb *q, const char *s, int64_t v)
{
	store__qb_cond(q, s);
	store_qb_bind(q, false, v, NULL);
}

void
store__qb_cond_text(struct store__qb *q, const char *s, const char *v)
{
	store__qb_cond(q, s);
	store_qb_bind(q, true, 0, v);
}

int
store__qb_prepare(sqlite3 *db, struct store__qb *q, sqlite3_stmt **out)
{
	sqlite3_stmt *stmt = NULL;
	int i, rc;

	if (q->overflow) {
		log_warnx("cannot build a query: more than %d bytes",
			  STORE__QB_SQL_MAX);
		return -E2BIG;
	}
	rc = sqlite3_prepare_v2(db, q->sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK)
		return store__db_fail(db, rc, "prepare a query");
	for (i = 0; i < q->nbind && rc == SQLITE_OK; i++)
		rc = q->bind[i].is_text
			     ? sqlite3_bind_text(stmt, i + 1, q->bind[i].s, -1,
						 SQLITE_STATIC)
			     : sqlite3_bind_int64(stmt, i + 1, q->bind[i].i);
	if (rc != SQLITE_OK) {
		rc = store__db_fail(db, rc, "bind a query");
		sqlite3_finalize(stmt);
		return rc;
	}
	*out = stmt;
	return 0;
}

void
store__filter_where(struct store__qb *q, const struct store_filter *f,
		    unsigned opts)
{
	bool plain = !(opts & STORE__WHERE_NO_INDEX);
	const char *sep = "";
	int k;

	if (f->app)
		store__qb_cond_text(q, plain ? "app = ?" : "+app = ?", f->app);
	else if (f->app_unknown)
		store__qb_cond(q, "app IS NULL");
	if (f->status)
		store__qb_cond_text(q, plain ? "status = ?" : "+status = ?",
				    f->status);
	if ((f->kinds & STORE_KINDS_ALL) != STORE_KINDS_ALL) {
		store__qb_cond(q, plain ? "kind IN (" : "+kind IN (");
		for (k = 0; k < STORE_KIND_COUNT; k++) {
			if (!(f->kinds & (1u << k)))
				continue;
			store__qb_add(q, sep);
			store__qb_text(q, "?", store_kind_names[k]);
			sep = ", ";
		}
		store__qb_add(q, ")");
	}
	if (f->session)
		store__qb_cond_int(q, "session = ?", f->session);
	/* A range implies a known wall time: say so only without one. */
	if (f->wall == STORE_WALL_KNOWN && f->since_ns == INT64_MIN &&
	    f->until_ns == INT64_MAX)
		store__qb_cond(q, "wall_ns IS NOT NULL");
	else if (f->wall == STORE_WALL_UNKNOWN)
		store__qb_cond(q, "wall_ns IS NULL");
	if (f->since_ns != INT64_MIN)
		store__qb_cond_int(q, plain ? "wall_ns >= ?" : "+wall_ns >= ?",
				   f->since_ns);
	if (f->until_ns != INT64_MAX)
		store__qb_cond_int(q, plain ? "wall_ns <= ?" : "+wall_ns <= ?",
				   f->until_ns);
	if (f->after_id > 0)
		store__qb_cond_int(q, "id > ?", f->after_id);
	if (f->before_id > 0) {
		store__qb_cond_int(q, "(wall_ns, id) < (?", f->before_wall_ns);
		store__qb_int(q, ", ?)", f->before_id);
	}
}

int
store__read_begin(sqlite3 *db, bool *began)
{
	int rc;

	*began = false;
	if (!sqlite3_get_autocommit(db))
		return 0;
	rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return store__db_fail(db, rc, "begin a read transaction");
	*began = true;
	return 0;
}

void
store__read_end(sqlite3 *db, bool began)
{
	/* A read transaction has nothing to keep: ROLLBACK ends it. */
	if (began && !sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

int
store_read_begin(struct store *st)
{
	bool began;

	return store__read_begin(st->db, &began);
}

void
store_read_end(struct store *st)
{
	store__read_end(st->db, true);
}

/* Column text as a C string, NULL for SQL NULL. */
static const char *
store_column_text(sqlite3_stmt *stmt, int col)
{
	if (sqlite3_column_type(stmt, col) == SQLITE_NULL)
		return NULL;
	return (const char *)sqlite3_column_text(stmt, col);
}

/* Column integer, or def for SQL NULL. */
static int64_t
store_column_int64(sqlite3_stmt *stmt, int col, int64_t def)
{
	if (sqlite3_column_type(stmt, col) == SQLITE_NULL)
		return def;
	return sqlite3_column_int64(stmt, col);
}

static double
store_column_double(sqlite3_stmt *stmt, int col)
{
	if (sqlite3_column_type(stmt, col) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(stmt, col);
}

/* A pid or frame count outside int32 (a damaged file) becomes 0. */
static int32_t
store_column_int32(sqlite3_stmt *stmt, int col)
{
	int64_t v = store_column_int64(stmt, col, 0);

	return v >= INT32_MIN && v <= INT32_MAX ? (int32_t)v : 0;
}

int
store__tap_row(sqlite3_stmt *stmt, int64_t *id, struct store_tap *tap)
{
	if (sqlite3_column_count(stmt) < STORE__TAP_NCOLUMNS)
		return -EINVAL;
	memset(tap, 0, sizeof(*tap));
	*id = sqlite3_column_int64(stmt, 0);
	tap->app = store_column_text(stmt, 1);
	tap->pid = store_column_int32(stmt, 2);
	tap->kind = store_column_text(stmt, 3);
	tap->status = store_column_text(stmt, 4);
	tap->flags = (unsigned)store_column_int64(stmt, 5, 0);
	tap->t_down_ns = store_column_int64(stmt, 6, 0);
	tap->t_up_ns = store_column_int64(stmt, 7, 0);
	tap->wall_ns = store_column_int64(stmt, 8, -1);
	tap->x = store_column_double(stmt, 9);
	tap->y = store_column_double(stmt, 10);
	tap->first_frame_ns = store_column_int64(stmt, 11, -1);
	tap->settle_ns = store_column_int64(stmt, 12, -1);
	tap->frames = store_column_int32(stmt, 13);
	tap->jank = (uint32_t)store_column_int64(stmt, 14, 0);
	tap->session = store_column_int64(stmt, 15, 0);
	tap->jank_tags = (uint32_t)store_column_int64(stmt, 16, 0);
	tap->window = store_column_text(stmt, 17);
	tap->attribution = store_column_text(stmt, 18);
	tap->target_app = store_column_text(stmt, 19);
	tap->target_activity = store_column_text(stmt, 20);
	tap->launch_first_frame_ns = store_column_int64(stmt, 21, -1);
	tap->launch_settle_ns = store_column_int64(stmt, 22, -1);
	return 0;
}

/*
 * Steps stmt to its end, handing each row to row(); a positive return of
 * row() stops the walk without an error.
 */
static int
store_rows(sqlite3 *db, sqlite3_stmt *stmt, const char *what,
	   int (*row)(sqlite3_stmt *stmt, void *arg), void *arg)
{
	int rc, crc;

	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		crc = row(stmt, arg);
		if (crc < 0)
			return crc;
		if (crc > 0)
			return 0;
	}
	if (rc != SQLITE_DONE)
		return store__db_fail(db, rc, what);
	return 0;
}

struct store_walk {
	store_tap_cb cb;
	void *ctx;
};

static int
store_walk_row(sqlite3_stmt *stmt, void *arg)
{
	struct store_walk *w = arg;
	struct store_tap tap;
	int64_t id;
	int rc;

	if ((rc = store__tap_row(stmt, &id, &tap)) < 0)
		return rc;
	return w->cb(w->ctx, id, &tap);
}

int
store_taps_walk(struct store *st, const struct store_filter *f,
		enum store_order order, int64_t limit, store_tap_cb cb,
		void *ctx)
{
	static const char *const orders[] = {
		[STORE_ORDER_ID] = " ORDER BY id",
		[STORE_ORDER_WALL] = " ORDER BY wall_ns, id",
		[STORE_ORDER_APP_WALL] = " ORDER BY app, wall_ns, id",
	};
	struct store_walk w = {cb, ctx};
	sqlite3_stmt *stmt = NULL;
	struct store__qb q;
	int rc;

	if (!st || !f || !cb || limit < 0 || order < STORE_ORDER_ID ||
	    order > STORE_ORDER_APP_WALL)
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT " STORE__TAP_COLUMNS " FROM taps");
	store__filter_where(
		&q, f, order == STORE_ORDER_ID ? STORE__WHERE_NO_INDEX : 0);
	store__qb_add(&q, orders[order]);
	if (limit > 0)
		store__qb_int(&q, " LIMIT ?", limit);
	if ((rc = store__qb_prepare(st->db, &q, &stmt)) < 0)
		return rc;
	rc = store_rows(st->db, stmt, "read taps", store_walk_row, &w);
	sqlite3_finalize(stmt);
	return rc;
}

/*
 * Runs sql, a statement of one integer row, into *out; what names it in
 * the error.  A NULL (max() of no rows) reads as 0.
 */
static int
store_taps_int(struct store *st, const char *sql, const char *what,
	       int64_t *out)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK)
		return store__db_fail(st->db, rc, "prepare a query");
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(stmt, 0);
		rc = 0;
	} else {
		rc = store__db_fail(
			st->db, rc == SQLITE_DONE ? SQLITE_ERROR : rc, what);
	}
	sqlite3_finalize(stmt);
	return rc;
}

int
store_taps_last_id(struct store *st, int64_t *id)
{
	if (!st || !id)
		return -EINVAL;
	return store_taps_int(st, "SELECT max(id) FROM taps",
			      "read the last tap id", id);
}

int
store_taps_count(struct store *st, const struct store_filter *f, int64_t *n)
{
	sqlite3_stmt *stmt = NULL;
	struct store__qb q;
	int rc;

	if (!st || !f || !n)
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT count(*) FROM taps");
	store__filter_where(&q, f, 0);
	if ((rc = store__qb_prepare(st->db, &q, &stmt)) < 0)
		return rc;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*n = sqlite3_column_int64(stmt, 0);
		rc = 0;
	} else {
		rc = store__db_fail(st->db,
				    rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				    "count taps");
	}
	sqlite3_finalize(stmt);
	return rc;
}

int
store_tap_frames(struct store *st, int64_t id, int64_t limit, store_frame_cb cb,
		 void *ctx)
{
	sqlite3_stmt *stmt = st->stmt[STORE_STMT_TAP_FRAMES];
	struct store_frame fr;
	int rc, crc = 0;

	if (!cb)
		return -EINVAL;
	rc = sqlite3_bind_int64(stmt, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 2, limit);
	if (rc != SQLITE_OK) {
		rc = store__db_fail(st->db, rc, "bind a query");
		goto out;
	}
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		fr.start_ns = sqlite3_column_int64(stmt, 1);
		fr.present_ns = sqlite3_column_int64(stmt, 2);
		fr.jank = (uint32_t)sqlite3_column_int64(stmt, 3);
		fr.in_burst = sqlite3_column_int64(stmt, 4) != 0;
		crc = cb(ctx, sqlite3_column_int64(stmt, 0), &fr);
		if (crc != 0)
			break;
	}
	if (crc < 0)
		rc = crc;
	else if (crc > 0 || rc == SQLITE_DONE)
		rc = 0;
	else
		rc = store__db_fail(st->db, rc, "select frames");
out:
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	return rc;
}

int
store_apps_count(struct store *st, int64_t *n)
{
	return store_taps_int(
		st, "SELECT count(*) FROM (SELECT DISTINCT app FROM taps)",
		"count apps", n);
}

struct store_app_walk {
	store_app_cb cb;
	void *ctx;
};

static int
store_app_row(sqlite3_stmt *stmt, void *arg)
{
	struct store_app_walk *w = arg;

	return w->cb(w->ctx, (const char *)sqlite3_column_text(stmt, 0));
}

int
store_apps_busiest(struct store *st, int64_t limit, store_app_cb cb, void *ctx)
{
	struct store_app_walk w = {cb, ctx};
	sqlite3_stmt *stmt = NULL;
	struct store_filter f;
	struct store__qb q;
	int rc;

	if (!cb || limit <= 0)
		return -EINVAL;
	store_filter_init(&f);
	f.kinds = STORE_KINDS_MEASURED;
	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT app FROM taps");
	store__qb_cond(&q, "app IS NOT NULL");
	store__filter_where(&q, &f, 0);
	store__qb_int(&q, " GROUP BY app ORDER BY count(*) DESC, app LIMIT ?",
		      limit);
	if ((rc = store__qb_prepare(st->db, &q, &stmt)) < 0)
		return rc;
	rc = store_rows(st->db, stmt, "rank apps", store_app_row, &w);
	sqlite3_finalize(stmt);
	return rc;
}

static int
store_scan_row(sqlite3_stmt *stmt, void *arg)
{
	struct store_walk *w = arg;
	struct store_tap tap;

	memset(&tap, 0, sizeof(tap));
	tap.app = store_column_text(stmt, 0);
	tap.kind = store_column_text(stmt, 1);
	tap.status = store_column_text(stmt, 2);
	tap.first_frame_ns = store_column_int64(stmt, 3, -1);
	tap.settle_ns = store_column_int64(stmt, 4, -1);
	tap.flags = (unsigned)store_column_int64(stmt, 5, 0);
	tap.launch_first_frame_ns = store_column_int64(stmt, 6, -1);
	tap.launch_settle_ns = -1;
	return w->cb(w->ctx, 0, &tap);
}

int
store_taps_scan(struct store *st, store_tap_cb cb, void *ctx)
{
	/*
	 * In rowid order: one pass over the table and no sort, where GROUP
	 * BY queries would sort a million rows.
	 */
	static const char sql[] =
		"SELECT app, kind, status, first_frame_ns, settle_ns, flags,"
		" launch_first_frame_ns FROM taps";
	struct store_walk w = {cb, ctx};
	sqlite3_stmt *stmt = NULL;
	int rc;

	if (!cb)
		return -EINVAL;
	rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK)
		return store__db_fail(st->db, rc, "prepare a query");
	rc = store_rows(st->db, stmt, "read taps", store_scan_row, &w);
	sqlite3_finalize(stmt);
	return rc;
}
