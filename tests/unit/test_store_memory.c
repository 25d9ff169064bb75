/*
 * Tests of the live daemon's memory settings of the store
 * (store_set_memory()) on real files: sizes out of bounds refused, the
 * page cache each role gets, that a scan of a file larger than a reader's
 * cache stays within it, and that the process-wide part is refused once
 * SQLite is in use.  The settings
 * are process-wide, so the tests run in this order in their own binary.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "fixture.h"
#include "log.h"
#include "store.h"
#include "store_sql.h"

#define WRITER_KIB 384
#define READER_KIB 64

/* The page cache SQLite holds for st's connection now, in bytes. */
static int
cache_used(struct store *st)
{
	int cur = -1, hi = -1;

	assert_int_equal(sqlite3_db_status(store__sqlite(st),
					   SQLITE_DBSTATUS_CACHE_USED, &cur,
					   &hi, 0),
			 SQLITE_OK);
	return cur;
}

/* Taps enough for a file of several hundred KiB, in one commit. */
static void
fill(struct store *st, int n)
{
	struct store_tap t = fixture_sample_tap();
	int i;

	for (i = 0; i < n; i++) {
		t.t_down_ns = (int64_t)i * 1000000000;
		t.t_up_ns = t.t_down_ns + 80000000;
		assert_int_equal(store_add_tap(st, &t), 0);
	}
	assert_int_equal(store_commit(st), 0);
}

/*
 * Before SQLite's first use: accepted, and each role's connections get
 * their cache size.  A reader scanning a file several times its cache
 * keeps no more than the cache (and a few pages SQLite pins while it
 * reads); with SQLite's default it keeps the file.
 */
static void
test_roles(void **state)
{
	struct store *w, *r = NULL, *big = NULL;
	char path[512];
	int64_t pages;
	int used;

	(void)state;
	/* Refused whole, before SQLite is touched. */
	assert_int_equal(store_set_memory(STORE_CACHE_MAX_KIB + 1, 1), -EINVAL);
	assert_int_equal(store_set_memory(1, STORE_CACHE_MAX_KIB + 1), -EINVAL);
	assert_int_equal(store_cache_kib(0), 0);
	assert_int_equal(store_cache_kib(STORE_OPEN_READONLY), 0);
	assert_int_equal(store_set_memory(WRITER_KIB, READER_KIB), 0);
	assert_int_equal(store_cache_kib(0), WRITER_KIB);
	assert_int_equal(store_cache_kib(STORE_OPEN_READONLY), READER_KIB);
	w = fixture_store_new("roles.db", path, sizeof(path));
	assert_int_equal(fixture_raw_int(store__sqlite(w), "PRAGMA cache_size"),
			 -WRITER_KIB);
	fill(w, 4000);
	pages = fixture_raw_int(store__sqlite(w), "PRAGMA page_count");
	assert_true(pages * 4 > 4 * READER_KIB);

	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &r), 0);
	assert_int_equal(fixture_raw_int(store__sqlite(r), "PRAGMA cache_size"),
			 -READER_KIB);
	assert_int_equal(
		fixture_raw_int(store__sqlite(r),
				"SELECT count(*) FROM taps"
				" WHERE x + y >= 0 AND app IS NOT NULL"),
		4000);
	used = cache_used(r);
	assert_true(used > 0);
	assert_true(used <= (READER_KIB + 32) * 1024);
	store_close(r);

	/*
	 * The same scan through a connection left at the default keeps
	 * more than the reader's cap: the cap above is what bounded it.
	 */
	store_set_memory(WRITER_KIB, 0);
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &big), 0);
	assert_int_equal(
		fixture_raw_int(store__sqlite(big), "PRAGMA cache_size"),
		-2000);
	assert_int_equal(
		fixture_raw_int(store__sqlite(big),
				"SELECT count(*) FROM taps"
				" WHERE x + y >= 0 AND app IS NOT NULL"),
		4000);
	assert_true(cache_used(big) > (READER_KIB + 32) * 1024);
	store_close(big);
	fixture_store_drop(w, path);
}

/* Once SQLite is in use, refused, but the cache sizes still apply. */
static void
test_after_init(void **state)
{
	struct store *w;
	char path[512];

	(void)state;
	assert_int_equal(store_set_memory(200, 100), -EBUSY);
	assert_int_equal(store_cache_kib(0), 200);
	assert_int_equal(store_cache_kib(STORE_OPEN_READONLY), 100);
	w = fixture_store_new("late.db", path, sizeof(path));
	assert_int_equal(fixture_raw_int(store__sqlite(w), "PRAGMA cache_size"),
			 -200);
	fixture_store_drop(w, path);
	/* 0 is SQLite's own default again. */
	assert_int_equal(store_set_memory(0, 0), -EBUSY);
	w = fixture_store_new("default.db", path, sizeof(path));
	assert_int_equal(fixture_raw_int(store__sqlite(w), "PRAGMA cache_size"),
			 -2000);
	fixture_store_drop(w, path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_after_init),
	};

	log_init("test_store_memory", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
