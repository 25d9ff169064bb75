/*
 * Differential tests of the store's summaries: after random inserts,
 * retention's deletes, batches held through a full disk and written
 * again, and rows the database refuses, tap_hist, tap_hist_sum and
 * tap_counts equal what a GROUP BY over the taps left in the file gives,
 * and tap_frames holds every frame of every tap, once, as given.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "fixture.h"
#include "store.h"
#include "store_sql.h"

#define DAY_NS	(86400 * 1000000000LL)
#define BASE_NS (19700 * DAY_NS)
#define NDAYS	4

/*
 * tap_hist from scratch, by the rule of sql/002-frames-hist.sql: the ok
 * taps of the measured kinds with a wall time, each known metric, in
 * its app's rows (a name that is neither '' nor '*') and the '*' rows,
 * at spans 1, 60 and 1440.
 */
#define HIST_EXPECTED                                                          \
	"WITH v (app, metric, minute, bucket) AS ("                            \
	" SELECT app, 0, wall_ns / 60000000000,"                               \
	"  tapd_hist_bucket(first_frame_ns) FROM taps"                         \
	" WHERE status = 'ok' AND kind IN ('tap', 'long_press')"               \
	"  AND wall_ns IS NOT NULL AND first_frame_ns IS NOT NULL"             \
	" UNION ALL"                                                           \
	" SELECT app, 1, wall_ns / 60000000000,"                               \
	"  tapd_hist_bucket(settle_ns) FROM taps"                              \
	" WHERE status = 'ok' AND kind IN ('tap', 'long_press')"               \
	"  AND wall_ns IS NOT NULL AND settle_ns IS NOT NULL),"                \
	" s (app, metric, minute, bucket) AS ("                                \
	" SELECT '*', metric, minute, bucket FROM v UNION ALL"                 \
	" SELECT app, metric, minute, bucket FROM v"                           \
	" WHERE app IS NOT NULL AND app NOT IN ('', '*'))"                     \
	" SELECT app, metric, span, minute / span * span, bucket, count(*)"    \
	" FROM s, (SELECT 1 AS span UNION ALL SELECT 60 UNION ALL"             \
	" SELECT 1440) GROUP BY 1, 2, 3, 4, 5"

#define HIST_SUM_EXPECTED                                                      \
	"SELECT app, metric, bucket, sum(count) FROM tap_hist"                 \
	" WHERE span = 1440 GROUP BY 1, 2, 3"

/* tap_counts from scratch, as sql/003-summaries.sql fills it. */
#define COUNTS_EXPECTED                                                        \
	"SELECT coalesce(app, ''), app IS NOT NULL, status, span,"             \
	" CASE WHEN span = 0 THEN 0"                                           \
	" ELSE wall_ns / 60000000000 / span * span END, count(*)"              \
	" FROM taps, (SELECT 0 AS span UNION ALL SELECT 60 UNION ALL"          \
	" SELECT 1440) WHERE (span = 0) = (wall_ns IS NULL)"                   \
	" GROUP BY 1, 2, 3, 4, 5"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int64_t
pick(int64_t n)
{
	return (int64_t)(next_rand() % (uint64_t)n);
}

/* Rows of one statement missing from the other, both ways. */
static int64_t
differ(sqlite3 *db, const char *a, const char *b)
{
	char sql[4096];

	snprintf(sql, sizeof(sql),
		 "SELECT (SELECT count(*) FROM (SELECT * FROM (%s)"
		 " EXCEPT SELECT * FROM (%s)))"
		 " + (SELECT count(*) FROM (SELECT * FROM (%s)"
		 " EXCEPT SELECT * FROM (%s)))",
		 a, b, b, a);
	return fixture_raw_int(db, sql);
}

/*
 * Every summary equals its recomputation, and the frames are those
 * random_tap() made: start, present, jank and in_burst follow from the
 * tap's t_up_ns and frame count and the frame's seq.
 */
static void
check_summaries(struct store *st)
{
	sqlite3 *db;

	assert_int_equal(store_commit(st), 0);
	db = store__sqlite(st);
	assert_int_equal(differ(db, HIST_EXPECTED,
				"SELECT app, metric, span, minute, bucket,"
				" count FROM tap_hist"),
			 0);
	assert_int_equal(differ(db, HIST_SUM_EXPECTED,
				"SELECT app, metric, bucket, count"
				" FROM tap_hist_sum"),
			 0);
	assert_int_equal(differ(db, COUNTS_EXPECTED,
				"SELECT app, named, status, span, minute,"
				" count FROM tap_counts"),
			 0);
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM tap_hist"
					     " WHERE count <= 0"),
			 0);
	assert_int_equal(
		fixture_raw_int(db, "SELECT (SELECT count(*) FROM tap_frames)"
				    " - (SELECT coalesce(sum(frames), 0)"
				    " FROM taps)"),
		0);
	assert_int_equal(
		fixture_raw_int(
			db, "SELECT count(*) FROM tap_frames f"
			    " LEFT JOIN taps t ON t.id = f.tap_id"
			    " WHERE t.id IS NULL OR f.seq >= t.frames"
			    " OR f.start_ns != t.t_up_ns + f.seq * 16000000"
			    " OR f.present_ns != f.start_ns + 8000000 + f.seq"
			    " OR f.jank != (t.t_up_ns / 1000 + f.seq) % 5"
			    " OR f.in_burst != (f.seq * 2 < t.frames)"),
		0);
}

static const char *const apps[] = {"com.a", "com.b", "com.c", "*", "", NULL};

/*
 * A random valid tap over NDAYS days from BASE_NS (or without a wall
 * time), with its frames in fr[].
 */
static struct store_tap
random_tap(struct store_frame *fr, int64_t session)
{
	struct store_tap t = fixture_sample_tap();
	int i;

	t.app = apps[pick(6)];
	t.kind = store_kind_names[pick(STORE_KIND_COUNT)];
	/* Mostly ok, so that the histogram sees most taps. */
	t.status =
		pick(3) ? "ok" : store_status_names[pick(STORE_STATUS_COUNT)];
	t.wall_ns = pick(10) ? BASE_NS + pick(NDAYS * DAY_NS) : -1;
	t.first_frame_ns = pick(8) ? pick(2000000000) : -1;
	t.settle_ns = pick(8) ? pick(6000000000) : -1;
	t.t_up_ns = 1000000000 + pick(1000000000);
	t.t_down_ns = t.t_up_ns - 80000000;
	t.frames = (int32_t)pick(41);
	t.session = session;
	for (i = 0; i < t.frames; i++) {
		fr[i].start_ns = t.t_up_ns + i * 16000000LL;
		fr[i].present_ns = fr[i].start_ns + 8000000 + i;
		fr[i].jank = (uint32_t)((t.t_up_ns / 1000 + i) % 5);
		fr[i].in_burst = i * 2 < t.frames;
	}
	return t;
}

/* Adds n random taps; every tenth names a session that does not exist. */
static void
add_taps(struct store *st, int n, int64_t session, bool held)
{
	struct store_frame fr[40];
	struct store_tap t;
	int64_t id;
	int i, rc;

	for (i = 0; i < n; i++) {
		memset(fr, 0, sizeof(fr));
		t = random_tap(fr, i % 10 == 9 ? 99 : session);
		rc = store_insert(st, &t, fr, (size_t)t.frames, &id);
		/* Held, a refused row is only found when it is written. */
		if (t.session == 99 && (!held || rc != 0))
			assert_int_equal(rc, -EINVAL);
		else
			assert_int_equal(rc, 0);
	}
}

/* Retention to the end: until no tap before the cutoff is left. */
static void
retain_all(struct store *st, int64_t before_ns)
{
	int64_t deleted;

	do {
		assert_int_equal(store_retain(st, before_ns, 97, &deleted), 0);
	} while (deleted > 0);
}

static void
test_summaries_exact(void **state)
{
	struct timespec pause = {1, 50 * 1000 * 1000};
	struct store *st = NULL;
	char path[256];
	int64_t session;

	(void)state;
	fixture_path(path, sizeof(path), "summary.db");
	fixture_db_remove(path);
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_session_start(st, "diff", &session, NULL), 0);

	/* Whole batches, a partial one, and rows refused inside them. */
	add_taps(st, 900, session, false);
	check_summaries(st);

	/* Retention of the first day, then of half of what is left. */
	retain_all(st, BASE_NS + DAY_NS);
	check_summaries(st);
	add_taps(st, 300, 0, false);
	retain_all(st, BASE_NS + 2 * DAY_NS + DAY_NS / 2);
	check_summaries(st);

	/*
	 * A full disk: the taps are held, refused rows among them, and
	 * written again in one transaction when there is room.
	 */
	assert_int_equal(store_maintain(st), 0);
	fixture_limit_pages(st, false);
	add_taps(st, 600, session, true);
	assert_int_equal(store_commit(st), -ENOSPC);
	assert_true(store_held(st) > 0);
	fixture_limit_pages(st, true);
	nanosleep(&pause, NULL);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_held(st), 0);
	check_summaries(st);

	/* The file reopened: the writer starts from what is there. */
	store_close(st);
	st = NULL;
	assert_int_equal(store_open(path, 0, &st), 0);
	add_taps(st, 257, 0, false);
	retain_all(st, BASE_NS + 3 * DAY_NS);
	check_summaries(st);
	store_close(st);
	fixture_db_remove(path);
}

/*
 * A bulk batch (STORE__BULK_ROWS rows and more) keeps the summaries in C
 * with the writer's triggers and CHECKs off; once it is committed or
 * rolled back they are on again, so that hand edits through the same
 * connection are still followed, and refused.
 */
static void
test_bulk_ends(void **state)
{
	struct store *st = NULL;
	char path[256];
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "bulk.db");
	fixture_db_remove(path);
	assert_int_equal(store_open(path, 0, &st), 0);
	db = store__sqlite(st);
	add_taps(st, STORE__BULK_ROWS * 3, 0, false);
	check_summaries(st);
	fixture_raw_exec(db, "INSERT INTO taps (app, kind, status, t_down_ns,"
			     " t_up_ns, wall_ns) VALUES ('com.hand', 'tap',"
			     " 'ok', 1, 2, 1700000000000000000)");
	fixture_raw_exec(db, "UPDATE taps SET app = 'com.renamed'"
			     " WHERE app = 'com.a'");
	fixture_raw_exec(db, "DELETE FROM taps WHERE app = 'com.b'");
	fixture_raw_exec(db, "DELETE FROM tap_hist WHERE span = 1440"
			     " AND app = 'com.c'");
	/* tap_hist is the writer's own; the triggers keep the other two. */
	assert_int_equal(differ(db, COUNTS_EXPECTED,
				"SELECT app, named, status, span, minute,"
				" count FROM tap_counts"),
			 0);
	assert_int_equal(differ(db, HIST_SUM_EXPECTED,
				"SELECT app, metric, bucket, count"
				" FROM tap_hist_sum"),
			 0);
	assert_int_not_equal(sqlite3_exec(db,
					  "INSERT INTO taps (kind, status,"
					  " t_down_ns, t_up_ns) VALUES"
					  " ('poke', 'ok', 1, 2)",
					  NULL, NULL, NULL),
			     SQLITE_OK);
	/* A bulk batch lost with a failed write ends its mode too. */
	fixture_limit_pages(st, false);
	add_taps(st, STORE__BULK_ROWS * 2, 0, true);
	assert_int_equal(store_commit(st), -ENOSPC);
	fixture_limit_pages(st, true);
	fixture_raw_exec(db, "DELETE FROM taps WHERE app = 'com.c'");
	assert_int_equal(differ(db, COUNTS_EXPECTED,
				"SELECT app, named, status, span, minute,"
				" count FROM tap_counts"),
			 0);
	store_close(st);
	fixture_db_remove(path);
}

/*
 * A batch replay's batch (store_set_batch()): its taps are committed
 * together, once it is full or by a commit, with the summaries exact.
 */
static void
test_large_batch(void **state)
{
	struct store *st = NULL, *ro = NULL;
	char path[256];
	int64_t n = -1;

	(void)state;
	fixture_path(path, sizeof(path), "large.db");
	fixture_db_remove(path);
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_set_batch(st, 0), -EINVAL);
	assert_int_equal(store_set_batch(st, STORE_HELD_MAX + 1), -EINVAL);
	assert_int_equal(store_set_batch(st, 1000), 0);
	add_taps(st, 600, 0, false);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	/* Past 256 rows and still one open batch: nothing committed yet. */
	assert_int_equal(store_count(ro, NULL, NULL, &n), 0);
	assert_int_equal(n, 0);
	add_taps(st, 600, 0, false);
	/* The 1000th row committed the first batch. */
	assert_int_equal(store_count(ro, NULL, NULL, &n), 0);
	assert_true(n >= 900 && n <= 1000);
	check_summaries(st);
	assert_int_equal(store_count(ro, NULL, NULL, &n), 0);
	assert_true(n >= 1000);
	store_close(ro);
	store_close(st);
	fixture_db_remove(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summaries_exact),
		cmocka_unit_test(test_bulk_ends),
		cmocka_unit_test(test_large_batch),
	};

	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
