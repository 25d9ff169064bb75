#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "fixture.h"
#include "log.h"

static char path[64];

/* Reads the whole log file into a new string. */
static char *
slurp(void)
{
	return fixture_slurp(path, NULL);
}

static int
setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/tapd-log-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	log_init("test", LOG_LEVEL_INFO);
	return log_open_file(path);
}

static int
teardown(void **state)
{
	(void)state;
	log_close();
	unlink(path);
	return 0;
}

static void
test_levels(void **state)
{
	char *s;

	(void)state;
	log_info("shown %d", 1);
	log_debug("hidden %d", 2);
	log_set_level(LOG_LEVEL_DEBUG);
	log_debug("shown %d", 3);
	log_set_level(LOG_LEVEL_ERROR);
	log_warnx("hidden %d", 4);
	log_error("shown %d", 5);
	log_set_level(LOG_LEVEL_INFO);
	s = slurp();
	assert_non_null(strstr(s, "test: info: shown 1\n"));
	assert_null(strstr(s, "hidden 2"));
	assert_non_null(strstr(s, "test: debug: shown 3\n"));
	assert_null(strstr(s, "hidden 4"));
	assert_non_null(strstr(s, "test: error: shown 5\n"));
	free(s);
}

static void
test_errno(void **state)
{
	char *s;

	(void)state;
	errno = ENOENT;
	log_warn("cannot open '%s'", "x");
	/* The logger must not clobber errno for its caller. */
	assert_int_equal(errno, ENOENT);
	s = slurp();
	assert_non_null(strstr(
		s, "warning: cannot open 'x': No such file or directory"));
	free(s);
}

static void
test_long_message(void **state)
{
	char big[5000];
	char *s;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_warnx("%s", big);
	s = slurp();
	/* Cut, marked as cut, and still one whole line. */
	assert_non_null(strstr(s, "aaa...\n"));
	free(s);
}

static void
test_reopen(void **state)
{
	char moved[80];
	char *s;

	(void)state;
	snprintf(moved, sizeof(moved), "%s.1", path);
	log_info("before rotation");
	assert_int_equal(rename(path, moved), 0);
	assert_int_equal(log_reopen(), 0);
	log_info("after rotation");
	s = slurp();
	assert_null(strstr(s, "before rotation"));
	assert_non_null(strstr(s, "after rotation"));
	free(s);
	unlink(moved);
}

static void
test_sqlite_routed(void **state)
{
	sqlite3 *db = NULL;
	char *s;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	/* A bad statement makes SQLite report through its log hook. */
	assert_int_not_equal(sqlite3_exec(db, "select * from no_such_table",
					  NULL, NULL, NULL),
			     SQLITE_OK);
	sqlite3_close(db);
	s = slurp();
	assert_non_null(strstr(s, "sqlite: no such table: no_such_table"));
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errno, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_message, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sqlite_routed, setup,
						teardown),
	};

	/* Before any SQLite call, as the daemon does. */
	log_route_libraries();
	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
