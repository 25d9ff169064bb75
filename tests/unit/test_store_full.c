/*
 * Tests of the store on a full disk, made without a mount by capping the
 * file's page count: taps held with their ids and written once there is
 * room, the newest dropped past the limit, the end of a run kept
 * pending, and the one errno map of a lack of space.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "fixture.h"
#include "log.h"
#include "store.h"
#include "store_sql.h"

/* Past the store's retry delay, so that the next commit tries again. */
static void
wait_retry(void)
{
	struct timespec pause = {1, 50 * 1000 * 1000};

	nanosleep(&pause, NULL);
}

/*
 * Taps added while the disk is full keep their ids and reach the file,
 * once, when there is room again; meanwhile the store says it is full.
 */
static void
test_disk_full_holds(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	struct store_frame fr[7];
	char path[256], why[160];
	int64_t ids[600], id;
	sqlite3 *db;
	int i;

	(void)state;
	memset(fr, 0, sizeof(fr));
	for (i = 0; i < 7; i++) {
		fr[i].start_ns = t.t_up_ns + i * 16000000;
		fr[i].present_ns = fr[i].start_ns + 8000000;
	}
	fixture_path(path, sizeof(path), "full.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_health(st, why, sizeof(why)), 0);
	fixture_limit_pages(st, false);
	/* More than two batches' worth: the batch commits fail in between. */
	for (i = 0; i < 600; i++) {
		t.t_up_ns += 1000000;
		t.app = i % 2 ? "com.example.a" : "com.example.b";
		assert_int_equal(store_insert(st, &t, fr, 7, &ids[i]), 0);
		assert_int_equal(ids[i], i + 2);
	}
	assert_int_equal(store_full(st), 1);
	assert_int_equal(store_commit(st), -ENOSPC);
	assert_int_equal(store_held(st), 600);
	assert_int_equal(store_health(st, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "ENOSPC"));
	assert_non_null(strstr(why, "600 taps held"));
	assert_int_equal(fixture_visible_taps(path), 1);
	/* Still full: the retry fails again and holds on. */
	wait_retry();
	assert_int_equal(store_commit(st), -ENOSPC);
	assert_int_equal(store_held(st), 600);

	fixture_limit_pages(st, true);
	/* Within a second of the last attempt, nothing is tried. */
	assert_int_equal(store_commit(st), -ENOSPC);
	wait_retry();
	assert_int_equal(store_tick(st, fixture_clock_ns(CLOCK_MONOTONIC)), 0);
	assert_int_equal(store_full(st), 0);
	assert_int_equal(store_held(st), 0);
	assert_int_equal(store_health(st, why, sizeof(why)), 0);
	assert_int_equal(store_lost(st), 0);
	/* The next tap follows on. */
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	assert_int_equal(id, 602);
	store_close(st);

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM taps"), 602);
	assert_int_equal(
		fixture_raw_int(db, "SELECT count(DISTINCT id) FROM taps"),
		602);
	assert_int_equal(fixture_raw_int(db, "SELECT max(id) FROM taps"), 602);
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM tap_frames"),
			 600 * 7);
	/* The 300 odd ones, and the last tap, added after them. */
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM taps WHERE "
					     "app = 'com.example.a'"),
			 301);
	/* The histogram counts every ok tap once. */
	assert_int_equal(fixture_hist_sum(db, "*", 0, 1), 602);
	sqlite3_close(db);
}

/* Past STORE_HELD_MAX the newest taps are dropped, and counted. */
static void
test_disk_full_drops(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	char path[256], why[160];
	int64_t id = 0;
	int i;

	(void)state;
	fixture_path(path, sizeof(path), "drops.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	fixture_limit_pages(st, false);
	for (i = 0; i < STORE_HELD_MAX; i++)
		assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_full(st), 1);
	assert_int_equal(store_held(st), STORE_HELD_MAX);
	id = -7;
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), -ENOSPC);
	assert_int_equal(id, -7);
	assert_int_equal(store_add_tap(st, &t), -ENOSPC);
	assert_int_equal(store_dropped(st), 2);
	assert_int_equal(store_lost(st), 2);
	assert_int_equal(store_health(st, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "2 dropped"));
	fixture_limit_pages(st, true);
	wait_retry();
	assert_int_equal(store_commit(st), 0);
	/* Room again: taps are taken again. */
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	assert_int_equal(id, STORE_HELD_MAX + 1);
	store_close(st);
	assert_int_equal(fixture_visible_taps(path), STORE_HELD_MAX + 1);
}

/*
 * The end of a run is recorded even when its taps find no room; what
 * store_drain() cannot write is lost, and said.  No spurious ROLLBACK
 * reaches the log.
 */
static void
test_disk_full_end_run(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	char path[256], logpath[256], *text;
	int64_t run = 0;
	sqlite3 *db;
	int i;

	(void)state;
	fixture_path(path, sizeof(path), "endrun.db");
	fixture_path(logpath, sizeof(logpath), "endrun.log");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_begin_run(st, "replay", NULL, &run), 0);
	assert_int_equal(log_open_file(logpath), 0);
	fixture_limit_pages(st, false);
	for (i = 0; i < 300; i++)
		assert_int_equal(store_add_tap(st, &t), 0);
	/* The session's row would need a page too. */
	assert_int_equal(store_session_start(st, "s", NULL, NULL), -ENOSPC);
	assert_int_equal(store_end_run(st, "{}"), -ENOSPC);
	assert_int_equal(store_drain(st), -ENOSPC);
	assert_int_equal(store_held(st), 0);
	assert_int_equal(store_lost(st), 300);
	store_close(st);
	log_close();
	text = fixture_slurp(logpath, NULL);
	assert_non_null(strstr(text, "disk full (ENOSPC)"));
	assert_non_null(strstr(text, "lost 300 taps held in memory"));
	assert_null(strstr(text, "no transaction is active"));
	free(text);

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM taps"), 0);
	assert_int_equal(
		fixture_raw_int(db, "SELECT count(*) FROM runs WHERE "
				    "ended_ns IS NOT NULL AND stats = '{}'"),
		1);
	sqlite3_close(db);
}

/* The one errno map: SQLite's FULL, and an I/O error of ENOSPC. */
static void
test_errno_disk_full(void **state)
{
	(void)state;
	assert_int_equal(store__errno(NULL, SQLITE_FULL), -ENOSPC);
	assert_int_equal(store__errno(NULL, SQLITE_IOERR), -EIO);
	assert_int_equal(store__errno(NULL, SQLITE_IOERR_WRITE), -EIO);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disk_full_holds),
		cmocka_unit_test(test_disk_full_drops),
		cmocka_unit_test(test_disk_full_end_run),
		cmocka_unit_test(test_errno_disk_full),
	};

	log_init("test_store_full", LOG_LEVEL_WARN);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
