/*
 * The writer's histogram: the tap_hist counts of the open batch, added
 * up in memory as its taps are put and written before its COMMIT, one
 * UPSERT per row of the table and 16 rows a statement; see store_sql.h
 * and docs/DESIGN.md 6.
 */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_sql.h"

_Static_assert(STORE_STMT_HIST_ADD16 == STORE_STMT_HIST_ADD + 2 &&
		       STORE_STMT_HIST_ADD4 == STORE_STMT_HIST_ADD + 1,
	       "tap_hist's statements of 1, 4 and 16 rows follow each other");

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
 * Writes the open batch's tap_hist counts: equal rows added up, then 16
 * rows a statement in the key's order, each an UPSERT whose triggers
 * keep tap_hist_sum as they would one count at a time.  The counts are
 * forgotten whatever the result: a failure ends the transaction, and the
 * taps held through it are put again, counts and all.
 */
int
store__hist_write(struct store *st)
{
	enum store_stmt which;
	size_t i, n = 0, rows;
	int rc = SQLITE_OK;

	if (st->nhist > 1)
		qsort(st->hist, st->nhist, sizeof(*st->hist), store_hist_cmp);
	for (i = 0; i < st->nhist; i++) {
		if (n > 0 &&
		    store_hist_cmp(&st->hist[n - 1], &st->hist[i]) == 0)
			st->hist[n - 1].count += st->hist[i].count;
		else
			st->hist[n++] = st->hist[i];
	}
	for (i = 0; i < n && rc == SQLITE_OK; i += rows) {
		rows = store__rows(n - i, STORE_STMT_HIST_ADD16, &which);
		rc = store_bind_hist(st, st->stmt[which], i, rows);
		if (rc == SQLITE_OK)
			rc = store__step(st, which);
		else
			sqlite3_clear_bindings(st->stmt[which]);
	}
	st->nhist = 0;
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
	const int64_t values[] = {tap->first_frame_ns, tap->settle_ns};
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
	for (i = 0; i < 2; i++) {
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
