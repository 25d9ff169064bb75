/*
 * Store rank: exact percentiles from the histogram and the partial
 * latency indexes (store_rank.h).  The statements spell the indexes'
 * WHERE (status 'ok', the measured kinds, the metric known) as the
 * migration does, in literals: the planner may only use a partial index
 * for a query whose WHERE implies the index's.
 */
#include "store_rank.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store_cover.h"
#include "store_sql.h"

#define MINUTE_NS (60 * 1000000000LL)

/* The rows of the indexes, by enum store_query_metric. */
static const char *const store_rank_where[] = {
	" status = 'ok' AND kind IN ('tap', 'long_press')"
	" AND first_frame_ns IS NOT NULL",
	" status = 'ok' AND kind IN ('tap', 'long_press')"
	" AND settle_ns IS NOT NULL",
	" status = 'ok' AND kind IN ('tap', 'long_press')"
	" AND launch_first_frame_ns IS NOT NULL",
	" status = 'ok' AND kind IN ('tap', 'long_press')"
	" AND launch_settle_ns IS NOT NULL",
};
static const char *const store_rank_col[] = {"first_frame_ns", "settle_ns",
					     "launch_first_frame_ns",
					     "launch_settle_ns"};
static const char *const store_rank_index[] = {
	"taps_rank_first", "taps_rank_settle", "taps_rank_launch_first",
	"taps_rank_launch_settle"};

/* The apps of an all-apps query: names[n - 1] is NULL, the unknown app. */
struct store_rank_apps {
	char **names;
	size_t n;
};

static void
store_rank_apps_release(struct store_rank_apps *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->names[i]);
	free(a->names);
	a->names = NULL;
	a->n = 0;
}

/* Runs a statement of one integer; *found is false without a value. */
static int
store_rank_int(sqlite3 *db, struct store__qb *q, int64_t *v, bool *found)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	*found = false;
	rc = store__qb_prepare(db, q, &stmt);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_type(stmt, 0) != SQLITE_NULL) {
			*v = sqlite3_column_int64(stmt, 0);
			*found = true;
		}
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = store__db_fail(db, rc, "read taps");
	}
	sqlite3_finalize(stmt);
	return rc;
}

/*
 * Whether tap_hist counts the metric's taps exactly, as far as retention
 * can make it wrong: retention deletes the oldest taps first, and their
 * histogram rows only after the last of them, so while it is under way
 * the oldest minute of tap_hist is older than the oldest tap it counts,
 * or that minute counts more taps than are left in it.  Returns 0 when
 * the counts hold, 1 when not, or a negative errno.
 */
static int
store_rank_current(sqlite3 *db, enum store_query_metric metric)
{
	struct store__qb q;
	int64_t h0 = 0, t0 = 0, hc = 0, tc = 0;
	bool hf, tf, f;
	int rc;

	memset(&q, 0, sizeof(q));
	store__qb_text(&q, "SELECT minute FROM tap_hist WHERE app = ?",
		       STORE_HIST_ALL_APPS);
	store__qb_int(&q, " AND metric = ?", metric);
	store__qb_int(&q, " AND span = ? ORDER BY minute LIMIT 1",
		      STORE_HIST_SPAN_MINUTE);
	rc = store_rank_int(db, &q, &h0, &hf);
	if (rc < 0)
		return rc;
	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT wall_ns FROM taps INDEXED BY taps_wall"
			  " WHERE wall_ns IS NOT NULL AND");
	store__qb_add(&q, store_rank_where[metric]);
	store__qb_add(&q, " ORDER BY wall_ns LIMIT 1");
	rc = store_rank_int(db, &q, &t0, &tf);
	if (rc < 0)
		return rc;
	if (!hf && !tf)
		return 0;
	if (hf != tf || t0 / MINUTE_NS != h0)
		return 1;
	memset(&q, 0, sizeof(q));
	store__qb_text(&q, "SELECT sum(count) FROM tap_hist WHERE app = ?",
		       STORE_HIST_ALL_APPS);
	store__qb_int(&q, " AND metric = ?", metric);
	store__qb_int(&q, " AND span = ?", STORE_HIST_SPAN_MINUTE);
	store__qb_int(&q, " AND minute = ?", h0);
	rc = store_rank_int(db, &q, &hc, &f);
	if (rc < 0)
		return rc;
	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT count(*) FROM taps INDEXED BY taps_wall"
			  " WHERE");
	store__qb_add(&q, store_rank_where[metric]);
	store__qb_int(&q, " AND wall_ns >= ?", h0 * MINUTE_NS);
	store__qb_int(&q, " AND wall_ns < ?", (h0 + 1) * MINUTE_NS);
	rc = store_rank_int(db, &q, &tc, &f);
	if (rc < 0)
		return rc;
	return hc == tc ? 0 : 1;
}

/*
 * The rows of one app (NULL: unknown) in bucket [lo, hi] and f's range,
 * in the order of the metric, from the partial index.
 */
static int
store_rank_prepare(sqlite3 *db, const struct store_filter *f,
		   enum store_query_metric metric, const char *app, int64_t lo,
		   int64_t hi, sqlite3_stmt **stmt)
{
	const char *col = store_rank_col[metric];
	struct store__qb q;

	/* A NULL text binds NULL, which IS matches like any value. */
	memset(&q, 0, sizeof(q));
	store__qb_add(&q, "SELECT ");
	store__qb_add(&q, col);
	store__qb_add(&q, " FROM taps INDEXED BY ");
	store__qb_add(&q, store_rank_index[metric]);
	store__qb_text(&q, " WHERE app IS ?", app);
	store__qb_add(&q, " AND");
	store__qb_add(&q, store_rank_where[metric]);
	store__qb_add(&q, " AND ");
	store__qb_add(&q, col);
	store__qb_int(&q, " >= ?", lo);
	store__qb_add(&q, " AND ");
	store__qb_add(&q, col);
	store__qb_int(&q, " <= ?", hi);
	if (f->since_ns != INT64_MIN)
		store__qb_int(&q, " AND wall_ns >= ?", f->since_ns);
	if (f->until_ns != INT64_MAX)
		store__qb_int(&q, " AND wall_ns <= ?", f->until_ns);
	store__qb_add(&q, " ORDER BY ");
	store__qb_add(&q, col);
	return store__qb_prepare(db, &q, stmt);
}

static int
store_rank_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Reads bucket [lo, hi] of f's taps, which hist says holds count values,
 * and sets value[i] to the value at rank at[i] (1-based, within the
 * bucket) for i in [0, n).  One app's rows come in order from one range
 * of the index; every app's are gathered app by app and sorted here.
 * Returns 0, 1 when the rows are not count, or a negative errno.
 */
static int
store_rank_bucket(sqlite3 *db, const struct store_filter *f,
		  enum store_query_metric metric,
		  const struct store_rank_apps *apps, int64_t lo, int64_t hi,
		  int64_t count, const int64_t *at, int64_t *value, size_t n)
{
	sqlite3_stmt *stmt = NULL;
	int64_t *all = NULL, seen = 0, v;
	size_t i, j, next = 0, napps = f->app ? 1 : apps->n;
	int rc = 0;

	if (!f->app) {
		all = malloc((size_t)count * sizeof(*all) + 1);
		if (!all)
			return -ENOMEM;
	}
	for (i = 0; i < napps && rc == 0; i++) {
		rc = store_rank_prepare(db, f, metric,
					f->app ? f->app : apps->names[i], lo,
					hi, &stmt);
		if (rc < 0)
			break;
		while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
			v = sqlite3_column_int64(stmt, 0);
			if (++seen > count)
				break;
			if (all)
				all[seen - 1] = v;
			for (; !all && next < n && at[next] == seen; next++)
				value[next] = v;
		}
		if (rc == SQLITE_ROW || rc == SQLITE_DONE)
			rc = 0;
		else
			rc = store__db_fail(db, rc, "read taps");
		sqlite3_finalize(stmt);
		stmt = NULL;
		if (seen > count)
			break;
	}
	if (rc < 0)
		goto out;
	if (seen != count) {
		log_debug("tap_hist counts %lld taps in [%lld, %lld], the "
			  "rows %lld or more",
			  (long long)count, (long long)lo, (long long)hi,
			  (long long)seen);
		rc = 1;
		goto out;
	}
	if (all) {
		qsort(all, (size_t)count, sizeof(*all), store_rank_cmp);
		for (j = 0; j < n; j++)
			value[j] = all[at[j] - 1];
	}
	rc = 0;
out:
	free(all);
	return rc;
}

int
store_rank__percentiles(sqlite3 *db, const struct store_filter *f,
			enum store_query_metric metric, const int64_t *hist,
			struct store_query_percentiles *out)
{
	struct store_rank_apps apps = {NULL, 0};
	int64_t rank[STORE_QUERY_MAX_P], at[STORE_QUERY_MAX_P];
	int64_t value[STORE_QUERY_MAX_P], cum, rows = 0, n = 0, lo, hi;
	int bucket[STORE_QUERY_MAX_P], b, last = -1;
	size_t i, j, k, order[STORE_QUERY_MAX_P];
	int rc;

	for (b = 0; b < STORE_HIST_BUCKETS; b++)
		n += hist[b];
	/* Each rank's bucket and its rank inside it, ranks in order. */
	for (i = 0; i < out->np; i++) {
		rank[i] = store_query_rank(out->p[i], n);
		order[i] = i;
		for (j = i; j > 0 && rank[order[j - 1]] > rank[order[j]]; j--) {
			k = order[j];
			order[j] = order[j - 1];
			order[j - 1] = k;
		}
	}
	for (i = 0, b = 0, cum = 0; i < out->np; i++) {
		k = order[i];
		if (rank[k] == 0) {
			bucket[k] = -1;
			continue;
		}
		while (cum + hist[b] < rank[k])
			cum += hist[b++];
		bucket[k] = b;
		at[k] = rank[k] - cum;
		if (b != last)
			rows += hist[b];
		last = b;
	}
	if (!f->app && rows > STORE_RANK_SORT_MAX)
		return 1;
	rc = store_rank_current(db, metric);
	if (rc != 0)
		return rc;
	if (!f->app && n > 0) {
		rc = store_cover__app_names(db, &apps.names, &apps.n);
		if (rc < 0)
			goto out;
	}
	/* One read per bucket, for every rank it holds. */
	for (i = 0; i < out->np; i = j) {
		int64_t want[STORE_QUERY_MAX_P], got[STORE_QUERY_MAX_P];

		k = order[i];
		for (j = i; j < out->np && bucket[order[j]] == bucket[k]; j++)
			want[j - i] = at[order[j]];
		if (bucket[k] < 0)
			continue;
		store_hist_edges(bucket[k], &lo, &hi);
		rc = store_rank_bucket(db, f, metric, &apps, lo, hi,
				       hist[bucket[k]], want, got, j - i);
		if (rc != 0)
			goto out;
		for (k = i; k < j; k++)
			value[order[k]] = got[k - i];
	}
	out->method = STORE_QUERY_METHOD_EXACT;
	out->count = n;
	out->max_error_ns = 0;
	for (i = 0; i < out->np; i++) {
		out->value_ns[i] = bucket[i] < 0 ? -1 : value[i];
		out->error_ns[i] = 0;
	}
	rc = 0;
out:
	store_rank_apps_release(&apps);
	return rc;
}
