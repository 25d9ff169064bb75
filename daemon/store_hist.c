/*
 * The histogram's bucket edges, shared by every reader and writer, and
 * the writer's histogram: the tap_hist counts of the open batch, added
 * up in memory as its taps are put and written before its COMMIT, one
 * UPSERT per row of the table and 16 rows a statement; and in a bulk
 * batch the tap_counts and tap_hist_sum counts the triggers would have
 * added, written the same way; see store_sql.h and docs/DESIGN.md 6.
 */
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store.h"
#include "store_sql.h"

_Static_assert(STORE_STMT_HIST_ADD16 == STORE_STMT_HIST_ADD + 2 &&
		       STORE_STMT_HIST_ADD4 == STORE_STMT_HIST_ADD + 1,
	       "tap_hist's statements of 1, 4 and 16 rows follow each other");

/*
 * The lower edges of the histogram's buckets (store.h), built once by
 * store_hist_init(): integers only, so that a database written on a
 * device and read on a host agrees on every edge.
 */
static int64_t store_hist_lo[STORE_HIST_BUCKETS];
static pthread_once_t store_hist_once = PTHREAD_ONCE_INIT;

static void
store_hist_init(void)
{
	int b;

	store_hist_lo[0] = 0;
	store_hist_lo[1] = STORE_HIST_MIN_NS;
	for (b = 2; b < STORE_HIST_BUCKETS; b++)
		store_hist_lo[b] =
			store_hist_lo[b - 1] + (store_hist_lo[b - 1] + 49) / 50;
}

int
store_hist_bucket(int64_t ns)
{
	int lo = 0, hi = STORE_HIST_BUCKETS - 1, mid;

	pthread_once(&store_hist_once, store_hist_init);
	if (ns < STORE_HIST_MIN_NS)
		return 0;
	/* The last bucket whose lower edge is at or below ns. */
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (store_hist_lo[mid] <= ns)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int
store_hist_edges(int bucket, int64_t *lo, int64_t *hi)
{
	if (bucket < 0 || bucket >= STORE_HIST_BUCKETS)
		return -EINVAL;
	pthread_once(&store_hist_once, store_hist_init);
	*lo = store_hist_lo[bucket];
	*hi = bucket + 1 < STORE_HIST_BUCKETS ? store_hist_lo[bucket + 1] - 1
					      : INT64_MAX;
	return 0;
}

/*
 * One count more for the histogram row of (app, metric, span, minute,
 * ns), kept in memory until the batch's commit (store__hist_write()).
 */
static int
store_hist_add(struct store *st, const char *app, int metric, int span,
	       int64_t minute, int64_t ns)
{
	struct store__hist_add *h;
	size_t cap;

	if (st->nhist == st->cap_hist) {
		cap = st->cap_hist ? st->cap_hist * 2 : 1024;
		h = realloc(st->hist, cap * sizeof(*h));
		if (!h)
			return SQLITE_NOMEM;
		st->hist = h;
		st->cap_hist = cap;
	}
	h = &st->hist[st->nhist++];
	h->app = app;
	h->metric = metric;
	h->span = span;
	h->minute = minute - minute % span;
	h->bucket = store_hist_bucket(ns);
	h->count = 1;
	return SQLITE_OK;
}

/* The order of tap_hist's primary key, so that equal rows are adjacent. */
static int
store_hist_cmp(const void *pa, const void *pb)
{
	const struct store__hist_add *a = pa, *b = pb;
	int c;

	c = a->app == b->app ? 0 : strcmp(a->app, b->app);
	if (c)
		return c;
	if (a->metric != b->metric)
		return a->metric < b->metric ? -1 : 1;
	if (a->span != b->span)
		return a->span < b->span ? -1 : 1;
	if (a->minute != b->minute)
		return a->minute < b->minute ? -1 : 1;
	if (a->bucket != b->bucket)
		return a->bucket < b->bucket ? -1 : 1;
	return 0;
}

/* Binds rows [first, first + n) of st->hist as rows 0..n-1 of stmt. */
static int
store_bind_hist(struct store *st, sqlite3_stmt *stmt, size_t first, size_t n)
{
	const struct store__hist_add *h;
	size_t i;
	int col, rc = SQLITE_OK;

	for (i = 0; i < n && rc == SQLITE_OK; i++) {
		h = &st->hist[first + i];
		col = (int)(i * STORE__HIST_COLUMNS);
		rc = sqlite3_bind_text(stmt, col + 1, h->app, -1,
				       SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int(stmt, col + 2, h->metric);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int(stmt, col + 3, h->span);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(stmt, col + 4, h->minute);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int(stmt, col + 5, h->bucket);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(stmt, col + 6, h->count);
	}
	return rc;
}

/*
 * Sorts st->hist[0..n) in the key's order and adds up equal rows; returns
 * how many rows are left.
 */
static size_t
store_hist_merge(struct store *st, size_t n)
{
	size_t i, m = 0;

	if (n > 1)
		qsort(st->hist, n, sizeof(*st->hist), store_hist_cmp);
	for (i = 0; i < n; i++) {
		if (m > 0 &&
		    store_hist_cmp(&st->hist[m - 1], &st->hist[i]) == 0)
			st->hist[m - 1].count += st->hist[i].count;
		else
			st->hist[m++] = st->hist[i];
	}
	return m;
}

/* Binds rows [first, first + n) of st->hist as tap_hist_sum rows. */
static int
store_bind_hist_sum(struct store *st, sqlite3_stmt *stmt, size_t first,
		    size_t n)
{
	const struct store__hist_add *h;
	size_t i;
	int col, rc = SQLITE_OK;

	for (i = 0; i < n && rc == SQLITE_OK; i++) {
		h = &st->hist[first + i];
		col = (int)(i * STORE__HIST_SUM_COLUMNS);
		rc = sqlite3_bind_text(stmt, col + 1, h->app, -1,
				       SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int(stmt, col + 2, h->metric);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int(stmt, col + 3, h->bucket);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(stmt, col + 4, h->count);
	}
	return rc;
}

/* Binds rows [first, first + n) of st->counts as tap_counts rows. */
static int
store_bind_counts(struct store *st, sqlite3_stmt *stmt, size_t first, size_t n)
{
	const struct store__count_add *c;
	size_t i;
	int col, rc = SQLITE_OK;

	for (i = 0; i < n && rc == SQLITE_OK; i++) {
		c = &st->counts[first + i];
		col = (int)(i * STORE__COUNT_COLUMNS);
		rc = sqlite3_bind_text(stmt, col + 1, c->app, -1,
				       SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int(stmt, col + 2, c->named);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(stmt, col + 3, c->status, -1,
					       SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int(stmt, col + 4, c->span);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(stmt, col + 5, c->minute);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(stmt, col + 6, c->count);
	}
	return rc;
}

/*
 * Writes rows [0, n) through the statements of 16, 4 and 1 rows whose
 * first is sixteen, each bound by bind.
 */
static int
store_write_rows(struct store *st, size_t n, enum store_stmt sixteen,
		 int (*bind)(struct store *, sqlite3_stmt *, size_t, size_t))
{
	enum store_stmt which;
	size_t i, rows;
	int rc = SQLITE_OK;

	for (i = 0; i < n && rc == SQLITE_OK; i += rows) {
		rows = store__rows(n - i, sixteen, &which);
		rc = bind(st, st->stmt[which], i, rows);
		if (rc == SQLITE_OK)
			rc = store__step(st, which);
		else
			sqlite3_clear_bindings(st->stmt[which]);
	}
	return rc;
}

/* The order of tap_counts' primary key, so that equal rows are adjacent. */
static int
store_count_cmp(const void *pa, const void *pb)
{
	const struct store__count_add *a = pa, *b = pb;
	int c;

	c = a->app == b->app ? 0 : strcmp(a->app, b->app);
	if (c)
		return c;
	if (a->named != b->named)
		return a->named < b->named ? -1 : 1;
	if (a->span != b->span)
		return a->span < b->span ? -1 : 1;
	if (a->minute != b->minute)
		return a->minute < b->minute ? -1 : 1;
	return a->status == b->status ? 0 : strcmp(a->status, b->status);
}

/* Writes the bulk batch's tap_counts counts, added up, in the key's order. */
static int
store_counts_write(struct store *st)
{
	size_t i, n = 0;

	if (st->ncounts > 1)
		qsort(st->counts, st->ncounts, sizeof(*st->counts),
		      store_count_cmp);
	for (i = 0; i < st->ncounts; i++) {
		if (n > 0 &&
		    store_count_cmp(&st->counts[n - 1], &st->counts[i]) == 0)
			st->counts[n - 1].count += st->counts[i].count;
		else
			st->counts[n++] = st->counts[i];
	}
	return store_write_rows(st, n, STORE_STMT_COUNTS_ADD16,
				store_bind_counts);
}

/*
 * tap_hist_sum from the day rows just written (st->hist[0..n), merged):
 * what tap_hist_sum_add and tap_hist_sum_update would add, the day rows'
 * counts summed by app, metric and bucket.
 */
static int
store_hist_sum_write(struct store *st, size_t n)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		if (st->hist[i].span != STORE_HIST_SPAN_DAY)
			continue;
		st->hist[m] = st->hist[i];
		st->hist[m].span = 0;
		st->hist[m].minute = 0;
		m++;
	}
	m = store_hist_merge(st, m);
	return store_write_rows(st, m, STORE_STMT_HIST_SUM_ADD16,
				store_bind_hist_sum);
}

/*
 * Writes the open batch's tap_hist counts: equal rows added up, then 16
 * rows a statement in the key's order, each an UPSERT whose triggers
 * keep tap_hist_sum as they would one count at a time.  In a bulk batch
 * no trigger fires: tap_hist_sum gets the same sums from here, and
 * tap_counts the batch's counts.  The counts are forgotten whatever the
 * result: a failure ends the transaction, and the taps held through it
 * are put again, counts and all.
 */
int
store__hist_write(struct store *st)
{
	size_t n;
	int rc;

	n = store_hist_merge(st, st->nhist);
	rc = store_write_rows(st, n, STORE_STMT_HIST_ADD16, store_bind_hist);
	if (rc == SQLITE_OK && st->bulk)
		rc = store_hist_sum_write(st, n);
	if (rc == SQLITE_OK && st->bulk)
		rc = store_counts_write(st);
	st->nhist = 0;
	st->ncounts = 0;
	return rc;
}

int
store__bulk(struct store *st, bool on)
{
	int rc;

	if (st->bulk == on)
		return SQLITE_OK;
	/*
	 * Both settings are compiled into the statements, which SQLite
	 * prepares again at their next step.
	 */
	rc = sqlite3_db_config(st->db, SQLITE_DBCONFIG_ENABLE_TRIGGER,
			       on ? 0 : 1, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(st->db,
				  on ? "PRAGMA ignore_check_constraints = 1"
				     : "PRAGMA ignore_check_constraints = 0",
				  NULL, NULL, NULL);
	if (rc != SQLITE_OK && on) {
		/* Half on is off again: the triggers keep the counts. */
		sqlite3_db_config(st->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 1,
				  NULL);
		sqlite3_exec(st->db, "PRAGMA ignore_check_constraints = 0",
			     NULL, NULL, NULL);
		return rc;
	}
	if (rc != SQLITE_OK)
		log_warnx("cannot turn the triggers of '%s' back on: %s",
			  st->path, sqlite3_errstr(rc));
	st->bulk = on;
	st->ncounts = 0;
	return SQLITE_OK;
}

/* One count more for the tap_counts row of the key given. */
static int
store_count_add(struct store *st, const char *app, int named,
		const char *status, int span, int64_t minute)
{
	struct store__count_add *c;
	size_t cap;

	if (st->ncounts == st->cap_counts) {
		cap = st->cap_counts ? st->cap_counts * 2 : 512;
		c = realloc(st->counts, cap * sizeof(*c));
		if (!c)
			return SQLITE_NOMEM;
		st->counts = c;
		st->cap_counts = cap;
	}
	c = &st->counts[st->ncounts++];
	c->app = app;
	c->named = named;
	c->status = status;
	c->span = span;
	c->minute = minute;
	c->count = 1;
	return SQLITE_OK;
}

/*
 * Counts a tap in tap_counts in a bulk batch, by the rule of the
 * tap_counts_add triggers: every gesture, its hour and its day by wall
 * time, or span 0 without one; an unknown app is '' with named 0.
 */
int
store__counts_tap(struct store *st, const struct store_tap *tap)
{
	const int64_t hour_ns = 3600 * 1000000000LL;
	const int64_t day_ns = 24 * hour_ns;
	const char *app = tap->app ? tap->app : "";
	int named = tap->app != NULL, rc;

	if (!st->bulk)
		return SQLITE_OK;
	if (tap->wall_ns < 0)
		return store_count_add(st, app, named, tap->status, 0, 0);
	rc = store_count_add(st, app, named, tap->status, STORE_HIST_SPAN_HOUR,
			     tap->wall_ns / hour_ns * STORE_HIST_SPAN_HOUR);
	if (rc == SQLITE_OK)
		rc = store_count_add(
			st, app, named, tap->status, STORE_HIST_SPAN_DAY,
			tap->wall_ns / day_ns * STORE_HIST_SPAN_DAY);
	return rc;
}

/*
 * Counts a tap in tap_hist, by the rule of sql/002-frames-hist.sql (which
 * does the same for the taps of a file it migrates): measured kinds, 'ok',
 * known wall time; its own app's rows and the all-apps rows, at every
 * span.
 */
int
store__hist_tap(struct store *st, const struct store_tap *tap)
{
	static const int spans[] = {STORE_HIST_SPAN_MINUTE,
				    STORE_HIST_SPAN_HOUR, STORE_HIST_SPAN_DAY};
	/* Launch values belong to launches only (store.h). */
	int launch = (tap->flags & STORE_FLAG_LAUNCH) != 0;
	const int64_t values[] = {tap->first_frame_ns, tap->settle_ns,
				  launch ? tap->launch_first_frame_ns : -1,
				  launch ? tap->launch_settle_ns : -1};
	const char *scopes[2];
	size_t nscopes = 0, i, j, k;
	int64_t minute;
	int kind, rc = SQLITE_OK;

	kind = store_kind_index(tap->kind);
	if (store_status_index(tap->status) != STORE_STATUS_OK ||
	    tap->wall_ns < 0 || kind < 0 ||
	    !(STORE_KINDS_MEASURED & (1u << kind)))
		return SQLITE_OK;
	minute = tap->wall_ns / (60 * 1000000000LL);
	/* An app named like the all-apps rows would be counted twice. */
	if (tap->app && tap->app[0] &&
	    strcmp(tap->app, STORE_HIST_ALL_APPS) != 0)
		scopes[nscopes++] = tap->app;
	scopes[nscopes++] = STORE_HIST_ALL_APPS;
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		if (values[i] < 0)
			continue;
		for (j = 0; j < nscopes; j++)
			for (k = 0; k < sizeof(spans) / sizeof(spans[0]); k++) {
				rc = store_hist_add(st, scopes[j], (int)i,
						    spans[k], minute,
						    values[i]);
				if (rc != SQLITE_OK)
					return rc;
			}
	}
	return rc;
}
