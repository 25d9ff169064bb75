/*
 * Tests of the store against real files in a temporary directory, checked
 * through a second, plain SQLite connection so that what is asserted is
 * what is on disk, not what the store believes.
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

static int64_t
clock_ns(clockid_t clock)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(clock, &ts), 0);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static sqlite3 *
raw_open(const char *path, int flags)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, flags, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 2000);
	return db;
}

static void
raw_exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("'%s' failed: %s", sql, err ? err : "?");
}

/* The first column of the first row of sql, as an integer. */
static int64_t
raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *stmt = NULL;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	v = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return v;
}

static void
raw_text(sqlite3 *db, const char *sql, char *buf, size_t size)
{
	sqlite3_stmt *stmt = NULL;
	const unsigned char *s;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	s = sqlite3_column_text(stmt, 0);
	assert_non_null(s);
	assert_true(strlen((const char *)s) < size);
	snprintf(buf, size, "%s", (const char *)s);
	sqlite3_finalize(stmt);
}

/* Rows in taps as a separate read-only connection sees them now. */
static int64_t
visible_taps(const char *path)
{
	sqlite3 *db;
	int64_t n;

	db = raw_open(path, SQLITE_OPEN_READONLY);
	n = raw_int(db, "SELECT count(*) FROM taps");
	sqlite3_close(db);
	return n;
}

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

static struct store_tap
sample_tap(void)
{
	struct store_tap t = {
		.app = "com.example.app",
		.pid = 4242,
		.kind = "tap",
		.status = "ok",
		.flags = STORE_FLAG_BUSY_BEFORE,
		.t_down_ns = 1000000000,
		.t_up_ns = 1080000000,
		.wall_ns = 1700000000123000000,
		.x = 540.5,
		.y = 1200.25,
		.first_frame_ns = 48000000,
		.settle_ns = 160000000,
		.frames = 7,
		.jank = 0,
		.session = 0,
	};

	return t;
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

	db = raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(raw_int(db, "PRAGMA application_id"),
			 STORE_APPLICATION_ID);
	assert_int_equal(raw_int(db, "PRAGMA user_version"),
			 store_schema_latest());
	/* 2 is INCREMENTAL; it only sticks if set before the first CREATE. */
	assert_int_equal(raw_int(db, "PRAGMA auto_vacuum"), 2);
	raw_text(db, "PRAGMA journal_mode", mode, sizeof(mode));
	assert_string_equal(mode, "wal");
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM sqlite_master"
			 " WHERE type = '%s' AND name = '%s'",
			 objects[i][0], objects[i][1]);
		if (raw_int(db, sql) != 1)
			fail_msg("%s '%s' missing", objects[i][0],
				 objects[i][1]);
	}
	/* 002 replaced 001's indexes on t_up_ns and on latency. */
	assert_int_equal(raw_int(db,
				 "SELECT count(*) FROM sqlite_master"
				 " WHERE name IN ('taps_t_up',"
				 " 'taps_app_t_up', 'taps_app_status_first',"
				 " 'taps_app_status_settle')"),
			 0);
	/* The session index is partial, as the schema means it to be. */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM pragma_index_list"
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
	db = raw_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	raw_text(db, "PRAGMA journal_mode = WAL", mode, sizeof(mode));
	assert_string_equal(mode, "wal");
	assert_int_equal(raw_int(db, "PRAGMA auto_vacuum"), 0);
	sqlite3_close(db);

	assert_int_equal(store_open(path, 0, &st), 0);
	store_close(st);
	db = raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(raw_int(db, "PRAGMA auto_vacuum"), 2);
	assert_int_equal(raw_int(db, "PRAGMA application_id"),
			 STORE_APPLICATION_ID);
	sqlite3_close(db);
}

static void
test_wal_persists(void **state)
{
	struct store *st = NULL;
	struct store_tap t = sample_tap();
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
	db = raw_open(path, SQLITE_OPEN_READWRITE);
	raw_text(db, "PRAGMA journal_mode", mode, sizeof(mode));
	assert_string_equal(mode, "wal");
	assert_int_equal(raw_int(db, "SELECT count(*) FROM taps"), 1);
	sqlite3_close(db);
}

static void
test_reopen(void **state)
{
	struct store *st = NULL;
	struct store_tap t = sample_tap();
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
	db = raw_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	raw_exec(db, "CREATE TABLE contacts (name TEXT);"
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
	db = raw_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	raw_exec(db, "PRAGMA application_id = 305419896"); /* 0x12345678 */
	sqlite3_close(db);

	assert_int_equal(open_logged(path, 0, &st, &log_text), -EPROTO);
	assert_non_null(strstr(log_text, "(application_id 0x12345678)"));
	free(log_text);
	db = raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master"), 0);
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
	db = raw_open(path, SQLITE_OPEN_READWRITE);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", newer);
	raw_exec(db, sql);
	sqlite3_close(db);

	assert_int_equal(open_logged(path, 0, &st, &log_text), -EPROTO);
	snprintf(expect, sizeof(expect),
		 "'%s' has schema version %d, newer than this tapd (%d)", path,
		 newer, store_schema_latest());
	assert_non_null(strstr(log_text, expect));
	free(log_text);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &st), -EPROTO);
	db = raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), newer);
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
	struct store_tap t = sample_tap();
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
	assert_int_equal(visible_taps(path), 0);
	/* The 256th row fills the batch, which commits by itself. */
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(visible_taps(path), 256);
	for (i = 0; i < 44; i++)
		assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(visible_taps(path), 256);
	/* The writer sees its own open batch. */
	assert_int_equal(store_count(st, NULL, NULL, &n), 0);
	assert_int_equal(n, 300);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(visible_taps(path), 300);
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
	struct store_tap t = sample_tap();
	struct timespec pause = {0, 110 * 1000 * 1000};
	char path[256];
	int64_t before;

	(void)state;
	fixture_path(path, sizeof(path), "tick.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	/* Nothing pending: a tick does nothing. */
	assert_int_equal(store_tick(st, clock_ns(CLOCK_MONOTONIC)), 0);

	before = clock_ns(CLOCK_MONOTONIC);
	assert_int_equal(store_add_tap(st, &t), 0);
	/* The row is at most 99 ms old at before + 99 ms: too young. */
	assert_int_equal(store_tick(st, before), 0);
	assert_int_equal(store_tick(st, before + 99000000), 0);
	assert_int_equal(visible_taps(path), 0);

	nanosleep(&pause, NULL);
	assert_int_equal(store_tick(st, clock_ns(CLOCK_MONOTONIC)), 0);
	assert_int_equal(visible_taps(path), 1);
	store_close(st);
}

static void
test_nulls_and_values(void **state)
{
	struct store *st = NULL;
	struct store_tap t = sample_tap();
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
	t = sample_tap();
	t.kind = "long_press";
	t.flags = STORE_FLAG_SETTLE_CAPPED | STORE_FLAG_INPUT_DROPPED;
	t.t_down_ns = INT64_MAX - 5;
	t.t_up_ns = INT64_MAX;
	t.first_frame_ns = 0;
	t.settle_ns = 5000000000;
	t.jank = 0x80000001u;
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_commit(st), 0);

	db = raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(
		raw_int(db, "SELECT count(*) FROM taps WHERE kind = 'swipe'"
			    " AND app IS NULL AND pid IS NULL"
			    " AND wall_ns IS NULL AND x IS NULL"
			    " AND y = 1200.25"
			    " AND first_frame_ns IS NULL AND settle_ns IS NULL"
			    " AND session IS NULL AND run IS NULL"
			    " AND frames = 0 AND flags = 0"),
		1);
	raw_text(db, "SELECT app FROM taps WHERE kind = 'long_press'", app,
		 sizeof(app));
	assert_string_equal(app, "com.example.app");
	assert_int_equal(raw_int(db, "SELECT count(*) FROM taps"
				     " WHERE kind = 'long_press'"
				     " AND status = 'ok' AND pid = 4242"
				     " AND flags = 10 AND x = 540.5"
				     " AND wall_ns = 1700000000123000000"
				     " AND first_frame_ns = 0"
				     " AND settle_ns = 5000000000"
				     " AND frames = 7"),
			 1);
	assert_true(raw_int(db, "SELECT t_up_ns FROM taps"
				" WHERE kind = 'long_press'") == INT64_MAX);
	assert_true(raw_int(db, "SELECT t_down_ns FROM taps"
				" WHERE kind = 'long_press'") == INT64_MAX - 5);
	/* Bit 31 of jank stays a positive number. */
	assert_int_equal(raw_int(db, "SELECT jank FROM taps"
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
		t = sample_tap();
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
	struct store_tap t = sample_tap();
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
	assert_int_equal(visible_taps(path), 2);
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
	struct store_tap t = sample_tap();
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
	struct store_tap t = sample_tap();
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

	wall_before = clock_ns(CLOCK_REALTIME);
	assert_int_equal(store_begin_run(st, "replay", "getevent:in.txt", &run),
			 0);
	assert_true(run > 0);
	assert_int_equal(store_begin_run(st, "live", NULL, &other), -EALREADY);
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_end_run(st, "{\"taps\": 2, \"dropped\": 0}"), 0);
	wall_after = clock_ns(CLOCK_REALTIME);
	assert_int_equal(store_end_run(st, NULL), -EINVAL);
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_begin_run(st, "live", NULL, &other), 0);
	assert_true(other > run);
	store_close(st);

	db = raw_open(path, SQLITE_OPEN_READONLY);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM taps WHERE run = %lld",
		 (long long)run);
	assert_int_equal(raw_int(db, sql), 2);
	assert_int_equal(
		raw_int(db, "SELECT count(*) FROM taps WHERE run IS NULL"), 2);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM runs WHERE id = %lld AND mode = "
		 "'replay' AND source = 'getevent:in.txt'",
		 (long long)run);
	assert_int_equal(raw_int(db, sql), 1);
	snprintf(sql, sizeof(sql), "SELECT stats FROM runs WHERE id = %lld",
		 (long long)run);
	raw_text(db, sql, text, sizeof(text));
	assert_string_equal(text, "{\"taps\": 2, \"dropped\": 0}");
	snprintf(sql, sizeof(sql),
		 "SELECT started_ns FROM runs WHERE id = %lld", (long long)run);
	assert_true(raw_int(db, sql) >= wall_before);
	snprintf(sql, sizeof(sql), "SELECT ended_ns FROM runs WHERE id = %lld",
		 (long long)run);
	assert_true(raw_int(db, sql) <= wall_after);
	assert_true(raw_int(db, sql) >= wall_before);
	/* The run never ended keeps a NULL end, and no stats. */
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM runs WHERE id = %lld"
		 " AND ended_ns IS NULL AND stats IS NULL AND source IS NULL",
		 (long long)other);
	assert_int_equal(raw_int(db, sql), 1);
	sqlite3_close(db);
}

/* The migrations of the store, generated from sql/ (see store_schema.c). */
extern const char *const store_migration_sql[];

#define MIN_NS	(60 * 1000000000LL)
#define HOUR_NS (60 * MIN_NS)
#define DAY_NS	(24 * HOUR_NS)
/* 2023-11-14T22:13:00Z: a whole minute, not a whole hour. */
#define WALL0 (1700000000LL * 1000000000LL - 20LL * 1000000000LL)

static void
test_hist_buckets(void **state)
{
	int64_t lo, hi, prev_hi = -1, width;
	double est;
	int b;

	(void)state;
	for (b = 0; b < STORE_HIST_BUCKETS; b++) {
		assert_int_equal(store_hist_edges(b, &lo, &hi), 0);
		/* Contiguous, non-empty, and each edge maps back to b. */
		assert_true(lo == prev_hi + 1);
		assert_true(lo <= hi);
		assert_int_equal(store_hist_bucket(lo), b);
		assert_int_equal(store_hist_bucket(hi), b);
		prev_hi = hi;
		if (b == 0) {
			assert_true(lo == 0 && hi == STORE_HIST_MIN_NS - 1);
			continue;
		}
		if (b == STORE_HIST_BUCKETS - 1)
			break;
		/*
		 * Each bucket is 2% of its lower edge wide, rounded up: so
		 * its midpoint is within 1% (+1 ns) of anything in it.
		 */
		width = hi - lo + 1;
		assert_true(width * 50 >= lo);
		assert_true(width <= lo / 50 + 1);
		assert_true((hi - lo + 1) / 2 <= lo / 100 + 1);
		/* The same bucket as the plain logarithm says, give or take. */
		est = floor(log((double)lo / STORE_HIST_MIN_NS) / log(1.02)) +
		      1;
		assert_true(fabs(est - b) <= 1.0);
	}
	assert_true(hi == INT64_MAX);
	assert_int_equal(store_hist_bucket(INT64_MAX), STORE_HIST_BUCKETS - 1);
	assert_int_equal(store_hist_bucket(-1), 0);
	assert_int_equal(store_hist_bucket(INT64_MIN), 0);
	assert_int_equal(store_hist_bucket(STORE_HIST_MIN_NS), 1);
	assert_int_equal(store_hist_bucket(STORE_HIST_MIN_NS * 102 / 100), 2);
	assert_int_equal(store_hist_edges(-1, &lo, &hi), -EINVAL);
	assert_int_equal(store_hist_edges(STORE_HIST_BUCKETS, &lo, &hi),
			 -EINVAL);
}

static void
test_insert_frames(void **state)
{
	struct store *st = NULL;
	struct store_tap t = sample_tap();
	const struct store_frame fr[3] = {
		{1100000000, 1130000000, 0, 1},
		{1110000000, 1150000000, 64, 7},
		{1500000000, 1600000000, 0x80000000u, 0},
	};
	struct store_frame bad[3];
	char path[256], sql[256];
	int64_t id = 0, id2 = 0, id3 = -5;
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "frames.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	t.frames = 3;
	assert_int_equal(store_insert(st, &t, fr, 3, &id), 0);
	assert_true(id > 0);
	assert_int_equal(store_insert(st, &t, fr, 3, &id2), 0);
	assert_int_equal(id2, id + 1);
	/* What does not agree with the tap is refused, and nothing kept. */
	t.frames = 2;
	assert_int_equal(store_insert(st, &t, fr, 3, &id3), -EINVAL);
	assert_int_equal(store_insert(st, &t, NULL, 2, &id3), -EINVAL);
	t.frames = 3;
	memcpy(bad, fr, sizeof(bad));
	bad[2].present_ns = bad[2].start_ns - 1;
	assert_int_equal(store_insert(st, &t, bad, 3, &id3), -EINVAL);
	assert_int_equal(id3, -5);
	/* Without frames (the old call), the tap alone. */
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_added(st), 3);
	assert_int_equal(store_lost(st), 0);
	store_close(st);

	db = raw_open(path, SQLITE_OPEN_READWRITE);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM taps"), 3);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM tap_frames"), 6);
	snprintf(sql, sizeof(sql),
		 "SELECT group_concat(seq || ':' || start_ns || ':' ||"
		 " present_ns || ':' || jank || ':' || in_burst, ' ')"
		 " FROM (SELECT * FROM tap_frames WHERE tap_id = %lld"
		 " ORDER BY seq)",
		 (long long)id2);
	{
		char text[256];

		raw_text(db, sql, text, sizeof(text));
		assert_string_equal(text,
				    "0:1100000000:1130000000:0:1 "
				    "1:1110000000:1150000000:64:1 "
				    "2:1500000000:1600000000:2147483648:0");
	}
	/* Deleting a tap deletes its frames (the writer's foreign keys). */
	raw_exec(db, "PRAGMA foreign_keys = ON");
	snprintf(sql, sizeof(sql), "DELETE FROM taps WHERE id = %lld",
		 (long long)id);
	raw_exec(db, sql);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM tap_frames"), 3);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM tap_frames WHERE tap_id = %lld",
		 (long long)id2);
	assert_int_equal(raw_int(db, sql), 3);
	sqlite3_close(db);
}

/*
 * Taps that cover each rule of what goes into tap_hist; hist_counted
 * says which are counted there.
 */
static void
hist_taps(struct store_tap *t, size_t *n)
{
	struct store_tap base = sample_tap();
	size_t i = 0;

	base.app = "com.a";
	base.flags = 0;
	base.wall_ns = WALL0 + 10LL * 1000000000;
	base.first_frame_ns = 48000000;
	base.settle_ns = 160000000;
	t[i++] = base; /* A: counted */
	t[i] = base;
	t[i].kind = "long_press";
	t[i++].wall_ns += 20LL * 1000000000; /* B: same minute, counted */
	t[i] = base;
	t[i].app = "com.b";
	t[i].wall_ns += 2 * HOUR_NS;
	t[i].first_frame_ns = 10000000;
	t[i++].settle_ns = -1; /* C: counted, first_frame only */
	t[i] = base;
	t[i].app = NULL;
	t[i++].wall_ns += DAY_NS; /* D: all apps only */
	t[i] = base;
	t[i].status = "no_response";
	t[i].first_frame_ns = -1;
	t[i++].settle_ns = -1; /* E: not ok */
	t[i] = base;
	t[i++].kind = "swipe"; /* F: not a measured kind */
	t[i] = base;
	t[i++].wall_ns = -1; /* G: no wall time */
	t[i] = base;
	t[i].app = STORE_HIST_ALL_APPS;
	t[i++].first_frame_ns = 7000000; /* H: all apps, once */
	t[i] = base;
	t[i].app = "";
	t[i].wall_ns = 3 * DAY_NS + HOUR_NS + 59 * MIN_NS + 59999999999LL;
	t[i++].settle_ns = 5000; /* I: all apps only; bucket 0 */
	*n = i;
}

/* The whole of tap_hist as one text, in key order. */
static void
hist_text(const char *path, char *buf, size_t size)
{
	sqlite3 *db;

	db = raw_open(path, SQLITE_OPEN_READONLY);
	raw_text(db,
		 "SELECT coalesce(group_concat(app || ',' || metric || ',' ||"
		 " span || ',' || minute || ',' || bucket || ',' || count,"
		 " ';'), '') FROM (SELECT * FROM tap_hist"
		 " ORDER BY app, metric, span, minute, bucket)",
		 buf, size);
	sqlite3_close(db);
}

static int64_t
hist_sum(sqlite3 *db, const char *app, int metric, int span)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "SELECT coalesce(sum(count), 0) FROM tap_hist WHERE app = '%s'"
		 " AND metric = %d AND span = %d",
		 app, metric, span);
	return raw_int(db, sql);
}

static int64_t
hist_count(sqlite3 *db, const char *app, int metric, int span, int64_t wall_ns,
	   int64_t value)
{
	char sql[256];
	int64_t minute = wall_ns / MIN_NS;

	snprintf(sql, sizeof(sql),
		 "SELECT coalesce(sum(count), 0) FROM tap_hist WHERE app = '%s'"
		 " AND metric = %d AND span = %d AND minute = %lld"
		 " AND bucket = %d",
		 app, metric, span, (long long)(minute - minute % span),
		 store_hist_bucket(value));
	return raw_int(db, sql);
}

static void
test_hist_maintained(void **state)
{
	static const int spans[] = {1, 60, 1440};
	struct store *st = NULL;
	struct store_tap t[16], bad;
	char path[256];
	size_t n, i;
	sqlite3 *db;

	(void)state;
	hist_taps(t, &n);
	fixture_path(path, sizeof(path), "hist.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(store_insert(st, &t[i], NULL, 0, NULL), 0);
	/* A row the database refuses leaves the histogram alone. */
	bad = t[0];
	bad.session = 99;
	assert_int_equal(store_insert(st, &bad, NULL, 0, NULL), -EINVAL);
	store_close(st);

	db = raw_open(path, SQLITE_OPEN_READONLY);
	for (i = 0; i < 3; i++) {
		/* A B C D H I, and all but C and H have a settle. */
		assert_int_equal(hist_sum(db, "*", 0, spans[i]), 6);
		assert_int_equal(hist_sum(db, "*", 1, spans[i]), 5);
		assert_int_equal(hist_sum(db, "com.a", 0, spans[i]), 2);
		assert_int_equal(hist_sum(db, "com.a", 1, spans[i]), 2);
		assert_int_equal(hist_sum(db, "com.b", 0, spans[i]), 1);
		assert_int_equal(hist_sum(db, "com.b", 1, spans[i]), 0);
		/* A and B share their minute, hour, day and bucket. */
		assert_int_equal(hist_count(db, "com.a", 0, spans[i],
					    t[0].wall_ns, 48000000),
				 2);
		assert_int_equal(hist_count(db, "*", 1, spans[i], t[0].wall_ns,
					    160000000),
				 3);
		assert_int_equal(hist_count(db, "com.b", 0, spans[i],
					    t[2].wall_ns, 10000000),
				 1);
		assert_int_equal(hist_count(db, "*", 0, spans[i], t[3].wall_ns,
					    48000000),
				 1);
		assert_int_equal(
			hist_count(db, "*", 1, spans[i], t[8].wall_ns, 5000),
			1);
	}
	/* I is the last ns of its minute, hour and day: it stays in them. */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM tap_hist WHERE"
				     " app = '*' AND metric = 1 AND bucket = 0"
				     " AND ((span = 1 AND minute = 4439)"
				     " OR (span = 60 AND minute = 4380)"
				     " OR (span = 1440 AND minute = 4320))"),
			 3);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM tap_hist WHERE"
				     " app NOT IN ('*', 'com.a', 'com.b')"),
			 0);
	/* No other rows: every row holds one of the counts above. */
	assert_int_equal(raw_int(db, "SELECT sum(count) FROM tap_hist"),
			 (6 + 5 + 2 + 2 + 1) * 3);
	sqlite3_close(db);
}

static void
raw_insert_tap(sqlite3 *db, const struct store_tap *t)
{
	sqlite3_stmt *stmt = NULL;

	assert_int_equal(
		sqlite3_prepare_v2(db,
				   "INSERT INTO taps (app, kind, status, flags,"
				   " t_down_ns, t_up_ns, wall_ns,"
				   " first_frame_ns, settle_ns, frames)"
				   " VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7,"
				   " ?8, ?9)",
				   -1, &stmt, NULL),
		SQLITE_OK);
	if (t->app)
		sqlite3_bind_text(stmt, 1, t->app, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, t->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, t->status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 4, t->t_down_ns);
	sqlite3_bind_int64(stmt, 5, t->t_up_ns);
	if (t->wall_ns >= 0)
		sqlite3_bind_int64(stmt, 6, t->wall_ns);
	if (t->first_frame_ns >= 0)
		sqlite3_bind_int64(stmt, 7, t->first_frame_ns);
	if (t->settle_ns >= 0)
		sqlite3_bind_int64(stmt, 8, t->settle_ns);
	sqlite3_bind_int(stmt, 9, t->frames);
	assert_int_equal(sqlite3_step(stmt), SQLITE_DONE);
	sqlite3_finalize(stmt);
}

/*
 * A file of schema version 1 that already holds taps gets the same
 * histogram from the migration as store_insert() builds tap by tap.
 */
static void
test_migration_backfill(void **state)
{
	struct store *st = NULL;
	struct store_tap t[16];
	char path1[256], path2[256], sql[64], text1[4096], text2[4096];
	size_t n, i;
	sqlite3 *db;

	(void)state;
	hist_taps(t, &n);
	fixture_path(path1, sizeof(path1), "v1.db");
	db = raw_open(path1, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d",
		 STORE_APPLICATION_ID);
	raw_exec(db, sql);
	raw_exec(db, store_migration_sql[0]);
	raw_exec(db, "PRAGMA user_version = 1");
	for (i = 0; i < n; i++)
		raw_insert_tap(db, &t[i]);
	sqlite3_close(db);
	assert_int_equal(store_open(path1, 0, &st), 0);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(st);

	fixture_path(path2, sizeof(path2), "v2.db");
	assert_int_equal(store_open(path2, 0, &st), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(store_insert(st, &t[i], NULL, 0, NULL), 0);
	store_close(st);

	hist_text(path1, text1, sizeof(text1));
	hist_text(path2, text2, sizeof(text2));
	assert_true(strlen(text1) > 100);
	assert_string_equal(text1, text2);
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
	struct store_tap t = sample_tap();
	struct session_list l;
	char path[256], sql[128], longname[STORE_SESSION_NAME_MAX + 2];
	int64_t id = 0, id2 = 0, started = 0, stopped = 0, before, after;
	sqlite3 *db;

	(void)state;
	fixture_path(path, sizeof(path), "sessions.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	/* A tap waits in the open batch when the session starts. */
	assert_int_equal(store_add_tap(st, &t), 0);
	before = clock_ns(CLOCK_REALTIME);
	assert_int_equal(store_session_start(st, "cold start", &id, &started),
			 0);
	after = clock_ns(CLOCK_REALTIME);
	assert_true(id >= 1);
	assert_true(started >= before && started <= after);
	/* Both are on disk at once: the batch went first. */
	assert_int_equal(visible_taps(path), 1);
	db = raw_open(path, SQLITE_OPEN_READONLY);
	snprintf(sql, sizeof(sql),
		 "SELECT started_ns FROM sessions WHERE id = %lld"
		 " AND name = 'cold start' AND stopped_ns IS NULL",
		 (long long)id);
	assert_int_equal(raw_int(db, sql), started);
	sqlite3_close(db);

	t.session = id;
	assert_int_equal(store_add_tap(st, &t), 0);
	assert_int_equal(store_session_stop(st, id, &stopped), 0);
	assert_true(stopped >= started);
	assert_int_equal(visible_taps(path), 2);
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

	db = raw_open(path, SQLITE_OPEN_READONLY);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM taps WHERE session = %lld",
		 (long long)id);
	assert_int_equal(raw_int(db, sql), 1);
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

/*
 * Retention deletes whole days of taps, in batches, with their frames and
 * histogram rows, and leaves the rest (and taps without a wall time)
 * alone.
 */
static void
test_retention(void **state)
{
	const int64_t day = INT64_C(86400) * 1000000000;
	const int64_t day0 = INT64_C(20000) * day; /* a UTC midnight */
	struct store_frame fr[2] = {{1080000000, 1120000000, 0, 1},
				    {1100000000, 1140000000, 0, 1}};
	struct store *st = NULL;
	struct store_tap t;
	char path[600];
	int64_t deleted, total = 0, id;
	sqlite3 *db;
	int i, rc;

	(void)state;
	fixture_path(path, sizeof(path), "retention.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	/* Ten taps a day over five days, noon to afternoon. */
	for (i = 0; i < 50; i++) {
		t = sample_tap();
		t.wall_ns = day0 + (i / 10) * day + day / 2 + i * 1000000000LL;
		t.frames = 2;
		assert_int_equal(store_insert(st, &t, fr, 2, &id), 0);
	}
	t = sample_tap();
	t.wall_ns = -1;
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	assert_int_equal(store_commit(st), 0);

	/* Keep from the middle of day 3 on: days 0..2 go, rounded down. */
	do {
		rc = store_retain(st, day0 + 3 * day + day / 3, 7, &deleted);
		assert_int_equal(rc, 0);
		assert_true(deleted <= 7);
		total += deleted;
	} while (deleted > 0);
	assert_int_equal(total, 30);
	assert_int_equal(store_maintain(st), 0);
	store_close(st);

	db = raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM taps"), 21);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM taps WHERE "
				     "wall_ns IS NULL"),
			 1);
	/* The frames went with their taps. */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM tap_frames"), 40);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM tap_frames WHERE "
				     "tap_id NOT IN (SELECT id FROM taps)"),
			 0);
	/* Histogram rows: only the kept days, and they count 20 taps. */
	assert_int_equal(hist_sum(db, "*", 0, 1440), 20);
	assert_int_equal(hist_sum(db, "*", 0, 1), 20);
	assert_int_equal(hist_sum(db, "com.example.app", 1, 60), 20);
	sqlite3_close(db);
}

/*
 * A full disk without a mount: max_page_count at the file's size makes
 * every write that needs a new page fail with SQLITE_FULL, as a disk
 * with no room does.  limit 0 lifts it.
 */
static void
limit_pages(struct store *st, int lift)
{
	sqlite3 *db = store__sqlite(st);
	char sql[64];

	if (lift) {
		raw_exec(db, "PRAGMA max_page_count = 1000000");
		return;
	}
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %" PRId64,
		 raw_int(db, "PRAGMA page_count"));
	raw_exec(db, sql);
}

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
	struct store_tap t = sample_tap();
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
	limit_pages(st, 0);
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
	assert_int_equal(visible_taps(path), 1);
	/* Still full: the retry fails again and holds on. */
	wait_retry();
	assert_int_equal(store_commit(st), -ENOSPC);
	assert_int_equal(store_held(st), 600);

	limit_pages(st, 1);
	/* Within a second of the last attempt, nothing is tried. */
	assert_int_equal(store_commit(st), -ENOSPC);
	wait_retry();
	assert_int_equal(store_tick(st, clock_ns(CLOCK_MONOTONIC)), 0);
	assert_int_equal(store_full(st), 0);
	assert_int_equal(store_held(st), 0);
	assert_int_equal(store_health(st, why, sizeof(why)), 0);
	assert_int_equal(store_lost(st), 0);
	/* The next tap follows on. */
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	assert_int_equal(id, 602);
	store_close(st);

	db = raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM taps"), 602);
	assert_int_equal(raw_int(db, "SELECT count(DISTINCT id) FROM taps"),
			 602);
	assert_int_equal(raw_int(db, "SELECT max(id) FROM taps"), 602);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM tap_frames"),
			 600 * 7);
	/* The 300 odd ones, and the last tap, added after them. */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM taps WHERE "
				     "app = 'com.example.a'"),
			 301);
	/* The histogram counts every ok tap once. */
	assert_int_equal(hist_sum(db, "*", 0, 1), 602);
	sqlite3_close(db);
}

/* Past STORE_HELD_MAX the newest taps are dropped, and counted. */
static void
test_disk_full_drops(void **state)
{
	struct store *st = NULL;
	struct store_tap t = sample_tap();
	char path[256], why[160];
	int64_t id = 0;
	int i;

	(void)state;
	fixture_path(path, sizeof(path), "drops.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	limit_pages(st, 0);
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
	limit_pages(st, 1);
	wait_retry();
	assert_int_equal(store_commit(st), 0);
	/* Room again: taps are taken again. */
	assert_int_equal(store_insert(st, &t, NULL, 0, &id), 0);
	assert_int_equal(id, STORE_HELD_MAX + 1);
	store_close(st);
	assert_int_equal(visible_taps(path), STORE_HELD_MAX + 1);
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
	struct store_tap t = sample_tap();
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
	limit_pages(st, 0);
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

	db = raw_open(path, SQLITE_OPEN_READONLY);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM taps"), 0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM runs WHERE "
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
		cmocka_unit_test(test_hist_buckets),
		cmocka_unit_test(test_insert_frames),
		cmocka_unit_test(test_hist_maintained),
		cmocka_unit_test(test_migration_backfill),
		cmocka_unit_test(test_sessions),
		cmocka_unit_test(test_retention),
		cmocka_unit_test(test_disk_full_holds),
		cmocka_unit_test(test_disk_full_drops),
		cmocka_unit_test(test_disk_full_end_run),
		cmocka_unit_test(test_errno_disk_full),
	};

	log_init("test_store", LOG_LEVEL_WARN);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
