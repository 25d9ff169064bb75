/*
 * Tests of the store against real files in a temporary directory, checked
 * through a second, plain SQLite connection so that what is asserted is
 * what is on disk, not what the store believes: opening, the schema and
 * the refusals, the batched writer, runs and sessions.  The frames, the
 * histogram and retention have test_store_hist.c, a full disk
 * test_store_full.c.
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

/*
 * Runs store_open with the log going to a file and returns its result;
 * the log text lands in log_text (free it).
 */
static int
open_logged(const char *path, unsigned flags, struct store **st,
	    char **log_text)
{
	char logpath[256];
	int rc;

	fixture_path(logpath, sizeof(logpath), "open.log");
	unlink(logpath);
	log_set_level(LOG_LEVEL_INFO);
	assert_int_equal(log_open_file(logpath), 0);
	rc = store_open(path, flags, st);
	log_close();
	log_set_level(LOG_LEVEL_WARN);
	*log_text = fixture_slurp(logpath, NULL);
	return rc;
}

static void
test_migrate_fresh(void **state)
{
	static const char *const objects[][2] = {
		{"table", "runs"},	   {"table", "sessions"},
		{"table", "taps"},	   {"table", "tap_frames"},
		{"table", "tap_hist"},	   {"index", "taps_app_status_wall"},
		{"index", "taps_wall"},	   {"index", "taps_app_wall"},
		{"index", "taps_session"},
	};
	struct store *st = NULL;
	char path[256], sql[256], mode[16];
	char *log_text = NULL;
	sqlite3 *db;
	size_t i;

	(void)state;
	fixture_path(path, sizeof(path), "fresh.db");
	assert_true(store_schema_latest() >= 1);
	assert_int_equal(open_logged(path, 0, &st, &log_text), 0);
	assert_non_null(strstr(log_text, "migrated '"));
	free(log_text);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(st);

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(fixture_raw_int(db, "PRAGMA application_id"),
			 STORE_APPLICATION_ID);
	assert_int_equal(fixture_raw_int(db, "PRAGMA user_version"),
			 store_schema_latest());
	/* 2 is INCREMENTAL; it only sticks if set before the first CREATE. */
	assert_int_equal(fixture_raw_int(db, "PRAGMA auto_vacuum"), 2);
	fixture_raw_text(db, "PRAGMA journal_mode", mode, sizeof(mode));
	assert_string_equal(mode, "wal");
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM sqlite_master"
			 " WHERE type = '%s' AND name = '%s'",
			 objects[i][0], objects[i][1]);
		if (fixture_raw_int(db, sql) != 1)
			fail_msg("%s '%s' missing", objects[i][0],
				 objects[i][1]);
	}
	/* 002 replaced 001's indexes on t_up_ns and on latency. */
	assert_int_equal(
		fixture_raw_int(db, "SELECT count(*) FROM sqlite_master"
				    " WHERE name IN ('taps_t_up',"
				    " 'taps_app_t_up', 'taps_app_status_first',"
				    " 'taps_app_status_settle')"),
		0);
	/* The session index is partial, as the schema means it to be. */
	assert_int_equal(
		fixture_raw_int(db, "SELECT count(*) FROM pragma_index_list"
				    "('taps') WHERE name = 'taps_session'"
				    " AND partial = 1"),
		1);
	sqlite3_close(db);
}

/*
 * A file that another program put in WAL mode before any table existed
 * already has its first page, where auto_vacuum can no longer be set
 * directly.
 */
static void
test_fresh_file_with_header(void **state)
{
	struct store *st = NULL;
	char path[256], mode[16];
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "header-only.db");
	db = fixture_raw_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	fixture_raw_text(db, "PRAGMA journal_mode = WAL", mode, sizeof(mode));
	assert_string_equal(mode, "wal");
	assert_int_equal(fixture_raw_int(db, "PRAGMA auto_vacuum"), 0);
	sqlite3_close(db);

	assert_int_equal(store_open(path, 0, &st), 0);
	store_close(st);
	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(fixture_raw_int(db, "PRAGMA auto_vacuum"), 2);
	assert_int_equal(fixture_raw_int(db, "PRAGMA application_id"),
			 STORE_APPLICATION_ID);
	sqlite3_close(db);
}

static void
test_wal_persists(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	char path[256], wal[300], mode[16];
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "wal.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_commit(st), 0);
	store_close(st);

	/*
	 * The last connection checkpoints and removes the -wal file: every
	 * committed row is in the main file, so copying it alone is safe.
	 */
	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_int_equal(access(wal, F_OK), -1);
	/* A connection that sets nothing still finds the file in WAL mode. */
	db = fixture_raw_open(path, SQLITE_OPEN_READWRITE);
	fixture_raw_text(db, "PRAGMA journal_mode", mode, sizeof(mode));
	assert_string_equal(mode, "wal");
	assert_int_equal(fixture_raw_int(db, "SELECT count(*) FROM taps"), 1);
	sqlite3_close(db);
}

static void
test_reopen(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	char path[256];
	char *log_text = NULL;
	int64_t n = -1;
	int i;

	(void)state;
	fixture_path(path, sizeof(path), "reopen.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(store_add_tap(st, &t), 0);
	/* No commit: closing must commit the pending batch. */
	store_close(st);

	assert_int_equal(open_logged(path, 0, &st, &log_text), 0);
	/* Nothing to migrate: the migration would fail on existing tables. */
	assert_null(strstr(log_text, "migrat"));
	free(log_text);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	assert_int_equal(store_count(st, NULL, NULL, &n), 0);
	assert_int_equal(n, 5);
	store_close(st);
}

static void
test_refuse_foreign_sqlite(void **state)
{
	struct store *st = NULL;
	char path[256], expect[400];
	char *before, *after, *log_text = NULL;
	size_t len_before, len_after;
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "foreign.db");
	db = fixture_raw_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	fixture_raw_exec(db, "CREATE TABLE contacts (name TEXT);"
			     "INSERT INTO contacts VALUES ('alice')");
	sqlite3_close(db);
	before = fixture_slurp(path, &len_before);

	assert_int_equal(open_logged(path, 0, &st, &log_text), -EPROTO);
	assert_null(st);
	snprintf(expect, sizeof(expect),
		 "refusing '%s': not a tapd database (application_id "
		 "0x00000000)",
		 path);
	assert_non_null(strstr(log_text, expect));
	free(log_text);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &st), -EPROTO);

	/* Refused means untouched: not even switched to WAL. */
	after = fixture_slurp(path, &len_after);
	assert_int_equal(len_before, len_after);
	assert_memory_equal(before, after, len_before);
	free(before);
	free(after);
}

static void
test_refuse_other_application(void **state)
{
	struct store *st = NULL;
	char path[256];
	char *log_text = NULL;
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "other-app.db");
	db = fixture_raw_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	fixture_raw_exec(db,
			 "PRAGMA application_id = 305419896"); /* 0x12345678 */
	sqlite3_close(db);

	assert_int_equal(open_logged(path, 0, &st, &log_text), -EPROTO);
	assert_non_null(strstr(log_text, "(application_id 0x12345678)"));
	free(log_text);
	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(
		fixture_raw_int(db, "SELECT count(*) FROM sqlite_master"), 0);
	sqlite3_close(db);
}

static void
test_refuse_text_file(void **state)
{
	static const char text[] = "# not a database\nthis is a text file "
				   "that happens to be named like one\n";
	struct store *st = NULL;
	char path[256];

	(void)state;
	fixture_path(path, sizeof(path), "text.db");
	fixture_write(path, text, sizeof(text) - 1);
	assert_int_equal(store_open(path, 0, &st), -EIO);
	assert_null(st);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &st), -EIO);
}

static void
test_refuse_newer_schema(void **state)
{
	struct store *st = NULL;
	char path[256], sql[64], expect[400];
	char *log_text = NULL;
	int newer = store_schema_latest() + 1;
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "newer.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	store_close(st);
	db = fixture_raw_open(path, SQLITE_OPEN_READWRITE);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", newer);
	fixture_raw_exec(db, sql);
	sqlite3_close(db);

	assert_int_equal(open_logged(path, 0, &st, &log_text), -EPROTO);
	snprintf(expect, sizeof(expect),
		 "'%s' has schema version %d, newer than this tapd (%d)", path,
		 newer, store_schema_latest());
	assert_non_null(strstr(log_text, expect));
	free(log_text);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &st), -EPROTO);
	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(fixture_raw_int(db, "PRAGMA user_version"), newer);
	sqlite3_close(db);
}

static void
test_readonly_refusals(void **state)
{
	struct store *st = NULL;
	char path[256];

	(void)state;
	fixture_path(path, sizeof(path), "missing.db");
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &st), -ENOENT);
	assert_null(st);
	/* A reader never creates the file it was asked to read. */
	assert_int_equal(access(path, F_OK), -1);

	/* An empty file has no schema yet, and a reader cannot add one. */
	fixture_path(path, sizeof(path), "empty.db");
	fixture_write(path, "", 0);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &st), -EPROTO);
	assert_int_equal(store_open(path, 0x80, &st), -EINVAL);
}

static void
test_batching(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	char path[256];
	int64_t n = -1;
	int i;

	(void)state;
	fixture_path(path, sizeof(path), "batch.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	for (i = 0; i < 255; i++) {
		t.t_up_ns += 1000000;
		assert_int_equal(store_add_tap(st, &t), 0);
	}
	assert_int_equal(fixture_visible_taps(path), 0);
	/* The 256th row fills the batch, which commits by itself. */
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(fixture_visible_taps(path), 256);
	for (i = 0; i < 44; i++)
		assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(fixture_visible_taps(path), 256);
	/* The writer sees its own open batch. */
	assert_int_equal(store_count(st, NULL, NULL, &n), 0);
	assert_int_equal(n, 300);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(fixture_visible_taps(path), 300);
	/* A commit with nothing pending is fine. */
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_added(st), 300);
	assert_int_equal(store_lost(st), 0);
	store_close(st);
}

static void
test_tick(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	struct timespec pause = {0, 110 * 1000 * 1000};
	char path[256];
	int64_t before;

	(void)state;
	fixture_path(path, sizeof(path), "tick.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	/* Nothing pending: a tick does nothing. */
	assert_int_equal(store_tick(st, fixture_clock_ns(CLOCK_MONOTONIC)), 0);

	before = fixture_clock_ns(CLOCK_MONOTONIC);
	assert_int_equal(store_add_tap(st, &t), 0);
	/* The row is at most 99 ms old at before + 99 ms: too young. */
	assert_int_equal(store_tick(st, before), 0);
	assert_int_equal(store_tick(st, before + 99000000), 0);
	assert_int_equal(fixture_visible_taps(path), 0);

	nanosleep(&pause, NULL);
	assert_int_equal(store_tick(st, fixture_clock_ns(CLOCK_MONOTONIC)), 0);
	assert_int_equal(fixture_visible_taps(path), 1);
	store_close(st);
}

static void
test_nulls_and_values(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	char path[256], app[64];
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "values.db");
	assert_int_equal(store_open(path, 0, &st), 0);

	/* Every field at its "unknown" value. */
	t.app = NULL;
	t.pid = 0;
	t.kind = "swipe";
	t.status = "not_measured";
	t.flags = 0;
	t.wall_ns = -1;
	t.x = NAN;
	t.first_frame_ns = -1;
	t.settle_ns = -1;
	t.frames = 0;
	t.session = 0;
	assert_int_equal(store_add_tap(st, &t), 0);

	/* Every field at an extreme known value. */
	t = fixture_sample_tap();
	t.kind = "long_press";
	t.flags = STORE_FLAG_SETTLE_CAPPED | STORE_FLAG_INPUT_DROPPED;
	t.t_down_ns = INT64_MAX - 5;
	t.t_up_ns = INT64_MAX;
	t.first_frame_ns = 0;
	t.settle_ns = 5000000000;
	t.jank = 0x80000001u;
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_commit(st), 0);

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(
		fixture_raw_int(
			db, "SELECT count(*) FROM taps WHERE kind = 'swipe'"
			    " AND app IS NULL AND pid IS NULL"
			    " AND wall_ns IS NULL AND x IS NULL"
			    " AND y = 1200.25"
			    " AND first_frame_ns IS NULL AND settle_ns IS NULL"
			    " AND session IS NULL AND run IS NULL"
			    " AND frames = 0 AND flags = 0"),
		1);
	fixture_raw_text(db, "SELECT app FROM taps WHERE kind = 'long_press'",
			 app, sizeof(app));
	assert_string_equal(app, "com.example.app");
	assert_int_equal(fixture_raw_int(db,
					 "SELECT count(*) FROM taps"
					 " WHERE kind = 'long_press'"
					 " AND status = 'ok' AND pid = 4242"
					 " AND flags = 10 AND x = 540.5"
					 " AND wall_ns = 1700000000123000000"
					 " AND first_frame_ns = 0"
					 " AND settle_ns = 5000000000"
					 " AND frames = 7"),
			 1);
	assert_true(fixture_raw_int(db,
				    "SELECT t_up_ns FROM taps"
				    " WHERE kind = 'long_press'") == INT64_MAX);
	assert_true(fixture_raw_int(db, "SELECT t_down_ns FROM taps"
					" WHERE kind = 'long_press'") ==
		    INT64_MAX - 5);
	/* Bit 31 of jank stays a positive number. */
	assert_int_equal(fixture_raw_int(db, "SELECT jank FROM taps"
					     " WHERE kind = 'long_press'"),
			 2147483649);
	sqlite3_close(db);
	store_close(st);
}

static void
test_invalid_taps(void **state)
{
	struct store *st = NULL;
	struct store_tap t;
	char path[256];
	int64_t n = -1;
	size_t i;

	(void)state;
	fixture_path(path, sizeof(path), "invalid.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	for (i = 0; i < 10; i++) {
		t = fixture_sample_tap();
		switch (i) {
		case 0:
			t.kind = "tapp";
			break;
		case 1:
			t.kind = NULL;
			break;
		case 2:
			t.status = "OK";
			break;
		case 3:
			t.status = NULL;
			break;
		case 4:
			t.flags = 1u << STORE_FLAG_COUNT;
			break;
		case 5:
			t.first_frame_ns = -2;
			break;
		case 6:
			t.settle_ns = INT64_MIN;
			break;
		case 7:
			t.pid = -1;
			break;
		case 8:
			t.frames = -1;
			break;
		case 9:
			t.session = -3;
			break;
		}
		if (store_add_tap(st, &t) != -EINVAL)
			fail_msg("invalid tap %zu was accepted", i);
	}
	assert_int_equal(store_add_tap(st, NULL), -EINVAL);
	assert_int_equal(store_added(st), 0);
	assert_int_equal(store_count(st, "tapp", NULL, &n), -EINVAL);
	assert_int_equal(store_count(st, NULL, "bad", &n), -EINVAL);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_count(st, NULL, NULL, &n), 0);
	assert_int_equal(n, 0);
	store_close(st);
}

/*
 * A row the database rejects (here a session that does not exist) is lost
 * alone; the rows around it in the batch are kept.
 */
static void
test_rejected_row_keeps_batch(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	char path[256];
	int64_t n = -1;

	(void)state;
	fixture_path(path, sizeof(path), "fk.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_add_tap(st, &t), 0);
	t.session = 42;
	assert_int_equal(store_add_tap(st, &t), -EINVAL);
	t.session = 0;
	t.status = "no_response";
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(fixture_visible_taps(path), 2);
	assert_int_equal(store_count(st, "tap", "no_response", &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(store_added(st), 3);
	assert_int_equal(store_lost(st), 1);
	store_close(st);
}

static void
test_readonly(void **state)
{
	struct store *st = NULL, *ro = NULL, *live = NULL;
	struct store_tap t = fixture_sample_tap();
	char path[256], copy[256];
	int64_t n = -1, run = 0;

	(void)state;
	fixture_path(path, sizeof(path), "ro.db");
	fixture_path(copy, sizeof(copy), "ro-copy.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_add_tap(st, &t), 0);
	t.kind = "multi";
	t.status = "not_measured";
	assert_int_equal(store_add_tap(st, &t), 0);
	store_close(st);
	fixture_copy(path, copy);

	assert_int_equal(store_open(copy, STORE_OPEN_READONLY, &ro), 0);
	assert_int_equal(store_schema_version(ro), store_schema_latest());
	assert_int_equal(store_count(ro, NULL, NULL, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(store_count(ro, "multi", "not_measured", &n), 0);
	assert_int_equal(n, 1);
	/* Writes are refused before they reach SQLite, with -EROFS. */
	assert_int_equal(store_add_tap(ro, &t), -EROFS);
	assert_int_equal(store_begin_run(ro, "live", NULL, &run), -EROFS);
	assert_int_equal(store_end_run(ro, NULL), -EROFS);
	assert_int_equal(store_commit(ro), 0);
	assert_int_equal(store_tick(ro, INT64_MAX), 0);
	store_close(ro);

	/* A reader beside the live writer sees what the writer committed. */
	assert_int_equal(store_open(path, 0, &live), 0);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	assert_int_equal(store_add_tap(live, &t), 0);
	assert_int_equal(store_count(ro, NULL, NULL, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(store_commit(live), 0);
	assert_int_equal(store_count(ro, NULL, NULL, &n), 0);
	assert_int_equal(n, 3);
	store_close(ro);
	store_close(live);
}

static void
test_runs(void **state)
{
	struct store *st = NULL;
	struct store_tap t = fixture_sample_tap();
	char path[256], sql[160], text[64];
	int64_t run = 0, other = 0, wall_before, wall_after;
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "runs.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	/* A tap before any run belongs to none, even if still pending. */
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_begin_run(st, "bogus", "x", &run), -EINVAL);
	assert_int_equal(store_begin_run(st, NULL, "x", &run), -EINVAL);
	assert_int_equal(store_end_run(st, NULL), -EINVAL);

	wall_before = fixture_clock_ns(CLOCK_REALTIME);
	assert_int_equal(store_begin_run(st, "replay", "getevent:in.txt", &run),
			 0);
	assert_true(run > 0);
	assert_int_equal(store_begin_run(st, "live", NULL, &other), -EALREADY);
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_end_run(st, "{\"taps\": 2, \"dropped\": 0}"), 0);
	wall_after = fixture_clock_ns(CLOCK_REALTIME);
	assert_int_equal(store_end_run(st, NULL), -EINVAL);
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_begin_run(st, "live", NULL, &other), 0);
	assert_true(other > run);
	store_close(st);

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM taps WHERE run = %lld",
		 (long long)run);
	assert_int_equal(fixture_raw_int(db, sql), 2);
	assert_int_equal(
		fixture_raw_int(db,
				"SELECT count(*) FROM taps WHERE run IS NULL"),
		2);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM runs WHERE id = %lld AND mode = "
		 "'replay' AND source = 'getevent:in.txt'",
		 (long long)run);
	assert_int_equal(fixture_raw_int(db, sql), 1);
	snprintf(sql, sizeof(sql), "SELECT stats FROM runs WHERE id = %lld",
		 (long long)run);
	fixture_raw_text(db, sql, text, sizeof(text));
	assert_string_equal(text, "{\"taps\": 2, \"dropped\": 0}");
	snprintf(sql, sizeof(sql),
		 "SELECT started_ns FROM runs WHERE id = %lld", (long long)run);
	assert_true(fixture_raw_int(db, sql) >= wall_before);
	snprintf(sql, sizeof(sql), "SELECT ended_ns FROM runs WHERE id = %lld",
		 (long long)run);
	assert_true(fixture_raw_int(db, sql) <= wall_after);
	assert_true(fixture_raw_int(db, sql) >= wall_before);
	/* The run never ended keeps a NULL end, and no stats. */
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM runs WHERE id = %lld"
		 " AND ended_ns IS NULL AND stats IS NULL AND source IS NULL",
		 (long long)other);
	assert_int_equal(fixture_raw_int(db, sql), 1);
	sqlite3_close(db);
}

struct session_list {
	int n;
	int stop_after;
	int64_t id[4];
	int64_t stopped[4];
	char name[4][STORE_SESSION_NAME_MAX + 1];
};

static int
collect_session(void *ctx, const struct store_session *s)
{
	struct session_list *l = ctx;

	if (l->n >= 4)
		return -ENOSPC;
	l->id[l->n] = s->id;
	l->stopped[l->n] = s->stopped_ns;
	snprintf(l->name[l->n], sizeof(l->name[0]), "%s", s->name);
	l->n++;
	return l->n == l->stop_after ? -ECANCELED : 0;
}

static void
test_sessions(void **state)
{
	struct store *st = NULL, *ro = NULL;
	struct store_tap t = fixture_sample_tap();
	struct session_list l;
	char path[256], sql[128], longname[STORE_SESSION_NAME_MAX + 2];
	int64_t id = 0, id2 = 0, started = 0, stopped = 0, before, after;
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "sessions.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	/* A tap waits in the open batch when the session starts. */
	assert_int_equal(store_add_tap(st, &t), 0);
	before = fixture_clock_ns(CLOCK_REALTIME);
	assert_int_equal(store_session_start(st, "cold start", &id, &started),
			 0);
	after = fixture_clock_ns(CLOCK_REALTIME);
	assert_true(id >= 1);
	assert_true(started >= before && started <= after);
	/* Both are on disk at once: the batch went first. */
	assert_int_equal(fixture_visible_taps(path), 1);
	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	snprintf(sql, sizeof(sql),
		 "SELECT started_ns FROM sessions WHERE id = %lld"
		 " AND name = 'cold start' AND stopped_ns IS NULL",
		 (long long)id);
	assert_int_equal(fixture_raw_int(db, sql), started);
	sqlite3_close(db);

	t.session = id;
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_session_stop(st, id, &stopped), 0);
	assert_true(stopped >= started);
	assert_int_equal(fixture_visible_taps(path), 2);
	assert_int_equal(store_session_stop(st, id, &stopped), -EALREADY);
	assert_int_equal(store_session_stop(st, id + 100, NULL), -ENOENT);

	assert_int_equal(store_session_start(st, "", &id2, NULL), -EINVAL);
	assert_int_equal(store_session_start(st, NULL, &id2, NULL), -EINVAL);
	assert_int_equal(store_session_start(st, "a\nb", &id2, NULL), -EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(store_session_start(st, longname, &id2, NULL),
			 -EINVAL);
	longname[STORE_SESSION_NAME_MAX] = '\0';
	assert_int_equal(store_session_start(st, longname, &id2, NULL), 0);
	assert_int_equal(id2, id + 1);

	memset(&l, 0, sizeof(l));
	assert_int_equal(store_session_list(st, collect_session, &l), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.id[0], id);
	assert_int_equal(l.stopped[0], stopped);
	assert_string_equal(l.name[0], "cold start");
	assert_int_equal(l.id[1], id2);
	assert_int_equal(l.stopped[1], -1);
	assert_string_equal(l.name[1], longname);
	store_close(st);

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM taps WHERE session = %lld",
		 (long long)id);
	assert_int_equal(fixture_raw_int(db, sql), 1);
	sqlite3_close(db);

	/* A reader lists, stops at the callback's word, and writes nothing. */
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	memset(&l, 0, sizeof(l));
	l.stop_after = 1;
	assert_int_equal(store_session_list(ro, collect_session, &l),
			 -ECANCELED);
	assert_int_equal(l.n, 1);
	assert_int_equal(store_session_start(ro, "x", NULL, NULL), -EROFS);
	assert_int_equal(store_session_stop(ro, id2, NULL), -EROFS);
	store_close(ro);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate_fresh),
		cmocka_unit_test(test_fresh_file_with_header),
		cmocka_unit_test(test_wal_persists),
		cmocka_unit_test(test_reopen),
		cmocka_unit_test(test_refuse_foreign_sqlite),
		cmocka_unit_test(test_refuse_other_application),
		cmocka_unit_test(test_refuse_text_file),
		cmocka_unit_test(test_refuse_newer_schema),
		cmocka_unit_test(test_readonly_refusals),
		cmocka_unit_test(test_batching),
		cmocka_unit_test(test_tick),
		cmocka_unit_test(test_nulls_and_values),
		cmocka_unit_test(test_invalid_taps),
		cmocka_unit_test(test_rejected_row_keeps_batch),
		cmocka_unit_test(test_readonly),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_sessions),
	};

	log_init("test_store", LOG_LEVEL_WARN);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
