/*
 * Tests of the store against real files in a temporary directory, checked
 * through a second, plain SQLite connection so that what is asserted is
 * what is on disk, not what the store believes.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

#include "log.h"
#include "store.h"

static char test_dir[512];

static int
remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

static int
group_setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	(void)state;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(test_dir, sizeof(test_dir), "%s/tapd-test-store-XXXXXX",
		     tmp);
	if (n < 0 || (size_t)n >= sizeof(test_dir) || !mkdtemp(test_dir))
		return -1;
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	return nftw(test_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A path inside the test directory; each test uses names of its own. */
static void
path_of(char *buf, size_t size, const char *name)
{
	int n;

	n = snprintf(buf, size, "%s/%s", test_dir, name);
	assert_true(n > 0 && (size_t)n < size);
}

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

/* Reads a whole (small) file into a malloc'ed NUL-terminated buffer. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f;
	char *buf;
	size_t n;

	f = fopen(path, "rb");
	assert_non_null(f);
	buf = malloc(1 << 20);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	assert_int_equal(ferror(f), 0);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void
write_file(const char *path, const void *data, size_t len)
{
	FILE *f;

	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
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

	path_of(logpath, sizeof(logpath), "open.log");
	unlink(logpath);
	log_set_level(LOG_LEVEL_INFO);
	assert_int_equal(log_open_file(logpath), 0);
	rc = store_open(path, flags, st);
	log_close();
	log_set_level(LOG_LEVEL_WARN);
	*log_text = slurp(logpath, NULL);
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
		{"table", "runs"},
		{"table", "sessions"},
		{"table", "taps"},
		{"index", "taps_app_status_first"},
		{"index", "taps_app_status_settle"},
		{"index", "taps_t_up"},
		{"index", "taps_app_t_up"},
		{"index", "taps_session"},
	};
	struct store *st = NULL;
	char path[256], sql[256], mode[16];
	char *log_text = NULL;
	sqlite3 *db;
	size_t i;

	(void)state;
	path_of(path, sizeof(path), "fresh.db");
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
	path_of(path, sizeof(path), "header-only.db");
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
	path_of(path, sizeof(path), "wal.db");
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
	path_of(path, sizeof(path), "reopen.db");
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
	path_of(path, sizeof(path), "foreign.db");
	db = raw_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	raw_exec(db, "CREATE TABLE contacts (name TEXT);"
		     "INSERT INTO contacts VALUES ('alice')");
	sqlite3_close(db);
	before = slurp(path, &len_before);

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
	after = slurp(path, &len_after);
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
	path_of(path, sizeof(path), "other-app.db");
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
	path_of(path, sizeof(path), "text.db");
	write_file(path, text, sizeof(text) - 1);
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
	path_of(path, sizeof(path), "newer.db");
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
	path_of(path, sizeof(path), "missing.db");
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &st), -ENOENT);
	assert_null(st);
	/* A reader never creates the file it was asked to read. */
	assert_int_equal(access(path, F_OK), -1);

	/* An empty file has no schema yet, and a reader cannot add one. */
	path_of(path, sizeof(path), "empty.db");
	write_file(path, "", 0);
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
	path_of(path, sizeof(path), "batch.db");
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
	path_of(path, sizeof(path), "tick.db");
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
	path_of(path, sizeof(path), "values.db");
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
	path_of(path, sizeof(path), "invalid.db");
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
	path_of(path, sizeof(path), "fk.db");
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
copy_file(const char *from, const char *to)
{
	char *buf;
	size_t len;

	buf = slurp(from, &len);
	write_file(to, buf, len);
	free(buf);
}

static void
test_readonly(void **state)
{
	struct store *st = NULL, *ro = NULL, *live = NULL;
	struct store_tap t = sample_tap();
	char path[256], copy[256];
	int64_t n = -1, run = 0;

	(void)state;
	path_of(path, sizeof(path), "ro.db");
	path_of(copy, sizeof(copy), "ro-copy.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_add_tap(st, &t), 0);
	t.kind = "multi";
	t.status = "not_measured";
	assert_int_equal(store_add_tap(st, &t), 0);
	store_close(st);
	copy_file(path, copy);

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
	path_of(path, sizeof(path), "runs.db");
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
	};

	log_init("test_store", LOG_LEVEL_WARN);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
