/*
 * Tests of the read-only pool against real files: checkout limits and
 * waits across threads, readers seeing the writer's commits, statements
 * left running, the answer cache dropped by a commit of another
 * connection or process, and a database copied off a device into a
 * place nobody may write (as an unprivileged user, which needs root to
 * become).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "dbpool.h"
#include "fixture.h"
#include "log.h"
#include "store.h"
#include "store_sql.h"
#include "store_taps.h"

/* Adds n taps through the writer's own connection and commits. */
static void
add_taps(struct store *w, int n)
{
	char sql[256];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO taps (kind, status, t_down_ns, t_up_ns)"
			 " VALUES ('tap', 'ok', %d, %d)",
			 i * 10, i * 10 + 5);
		assert_int_equal(
			sqlite3_exec(store__sqlite(w), sql, NULL, NULL, NULL),
			SQLITE_OK);
	}
}

/* A new database of n taps, closed again: no -wal or -shm is left. */
static void
make_db(const char *path, int n)
{
	struct store *w = NULL;

	assert_int_equal(store_open(path, 0, &w), 0);
	add_taps(w, n);
	store_close(w);
}

static int64_t
count_taps(struct store *st)
{
	sqlite3_stmt *stmt = NULL;
	int64_t n = -1;

	if (sqlite3_prepare_v2(store__sqlite(st), "SELECT count(*) FROM taps",
			       -1, &stmt, NULL) == SQLITE_OK &&
	    sqlite3_step(stmt) == SQLITE_ROW)
		n = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

static void
test_bad_args(void **state)
{
	struct dbpool *pool = NULL;
	char path[600];

	(void)state;
	fixture_path(path, sizeof(path), "args.db");
	assert_int_equal(dbpool_new(path, 0, &pool), -EINVAL);
	assert_int_equal(dbpool_new(path, 65, &pool), -EINVAL);
	assert_int_equal(dbpool_new(NULL, 1, &pool), -EINVAL);
	assert_int_equal(dbpool_new("", 1, &pool), -EINVAL);
	/* A reader never creates the file. */
	assert_true(dbpool_new(path, 1, &pool) < 0);
	assert_null(pool);
	assert_int_equal(access(path, F_OK), -1);
	dbpool_free(NULL);
}

struct waiter {
	struct dbpool *pool;
	struct store *got;
	int rc;
	int64_t ended_ms;
};

static void *
waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->rc = dbpool_get(w->pool, 5000, &w->got);
	w->ended_ms = fixture_now_ms();
	return NULL;
}

static void
test_checkout(void **state)
{
	struct dbpool *pool = NULL;
	struct store *a = NULL, *b = NULL, *c = NULL;
	struct timespec pause = {0, 100000000};
	struct waiter w;
	pthread_t th;
	char path[600];
	int64_t t0, dt, put_ms;

	(void)state;
	fixture_path(path, sizeof(path), "checkout.db");
	make_db(path, 3);
	assert_int_equal(dbpool_new(path, 2, &pool), 0);
	assert_string_equal(dbpool_path(pool), path);
	assert_int_equal(dbpool_immutable(pool), 0);
	assert_int_equal(dbpool_get(pool, 0, &a), 0);
	assert_int_equal(dbpool_get(pool, 0, &b), 0);
	assert_ptr_not_equal(a, b);
	assert_int_equal(count_taps(a), 3);
	assert_int_equal(count_taps(b), 3);
	/* Both out: the third waits its time and gives up. */
	t0 = fixture_now_ms();
	assert_int_equal(dbpool_get(pool, 150, &c), -ETIMEDOUT);
	dt = fixture_now_ms() - t0;
	assert_null(c);
	assert_true(dt >= 145 && dt < 2000);
	/* A waiter on another thread gets the one put back, at once. */
	memset(&w, 0, sizeof(w));
	w.pool = pool;
	assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
	nanosleep(&pause, NULL);
	put_ms = fixture_now_ms();
	dbpool_put(pool, a);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(w.rc, 0);
	assert_ptr_equal(w.got, a);
	assert_true(w.ended_ms - put_ms < 1000);
	dbpool_put(pool, w.got);
	dbpool_put(pool, b);
	dbpool_put(pool, NULL);
	dbpool_free(pool);
}

static pthread_mutex_t fifo_lock = PTHREAD_MUTEX_INITIALIZER;
static int fifo_seq;

struct fifo_waiter {
	struct dbpool *pool;
	int rc;
	int order; /* 1 for the first served */
};

static void *
fifo_main(void *arg)
{
	struct fifo_waiter *w = arg;
	struct store *st = NULL;

	w->rc = dbpool_get(w->pool, 5000, &st);
	pthread_mutex_lock(&fifo_lock);
	w->order = ++fifo_seq;
	pthread_mutex_unlock(&fifo_lock);
	dbpool_put(w->pool, st);
	return NULL;
}

/* Waiters are served in the order they came, whoever wakes first. */
static void
test_fifo(void **state)
{
	struct timespec pause = {0, 50000000};
	struct fifo_waiter w[4];
	struct dbpool *pool = NULL;
	struct store *a = NULL, *b = NULL;
	pthread_t th[4];
	char path[600];
	int i;

	(void)state;
	fixture_path(path, sizeof(path), "fifo.db");
	make_db(path, 1);
	assert_int_equal(dbpool_new(path, 1, &pool), 0);
	assert_int_equal(dbpool_get(pool, 0, &a), 0);
	fifo_seq = 0;
	for (i = 0; i < 4; i++) {
		w[i].pool = pool;
		w[i].rc = -1;
		w[i].order = 0;
		assert_int_equal(pthread_create(&th[i], NULL, fifo_main, &w[i]),
				 0);
		nanosleep(&pause, NULL);
	}
	/* One put back while others wait is not for a newcomer. */
	assert_int_equal(dbpool_get(pool, 0, &b), -ETIMEDOUT);
	dbpool_put(pool, a);
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(w[i].rc, 0);
		assert_int_equal(w[i].order, i + 1);
	}
	assert_int_equal(dbpool_get(pool, 0, &a), 0);
	dbpool_put(pool, a);
	dbpool_free(pool);
}

/* The count store_info() gives, kept until the writer commits again. */
static void
test_info(void **state)
{
	struct dbpool *pool = NULL;
	struct store *w = NULL, *r = NULL;
	int64_t version = 0, taps = 0;
	char path[600];

	(void)state;
	fixture_path(path, sizeof(path), "info.db");
	assert_int_equal(store_open(path, 0, &w), 0);
	add_taps(w, 2);
	assert_int_equal(dbpool_new(path, 1, &pool), 0);
	assert_int_equal(dbpool_get(pool, 0, &r), 0);
	assert_int_equal(dbpool_info(pool, r, &version, &taps), 0);
	assert_int_equal(taps, 2);
	assert_int_equal(version, store_schema_latest());
	taps = 0;
	assert_int_equal(dbpool_info(pool, r, &version, &taps), 0);
	assert_int_equal(taps, 2);
	dbpool_put(pool, r);
	add_taps(w, 3);
	assert_int_equal(dbpool_get(pool, 0, &r), 0);
	assert_int_equal(dbpool_info(pool, r, &version, &taps), 0);
	assert_int_equal(taps, 5);
	dbpool_put(pool, r);
	/* A store of no pool is asked directly. */
	taps = 0;
	assert_int_equal(dbpool_info(pool, w, &version, &taps), 0);
	assert_int_equal(taps, 5);
	assert_int_equal(dbpool_info(NULL, w, &version, &taps), 0);
	assert_int_equal(taps, 5);
	dbpool_free(pool);
	store_close(w);
}

/*
 * Looks key up on a connection checked out of pool, inside a read
 * transaction as a handler does: 1 and the body in buf, or 0.  With
 * keep, a miss keeps keep under key.
 */
static int
answer(struct dbpool *pool, const char *key, const char *keep, char *buf,
       size_t size)
{
	struct store *r = NULL;
	char *body = NULL;
	size_t len = 0;
	int rc;

	assert_int_equal(dbpool_get(pool, 0, &r), 0);
	assert_int_equal(store_read_begin(r), 0);
	rc = dbpool_answer_get(pool, r, key, &body, &len);
	assert_true(rc == 0 || rc == 1);
	if (rc == 1) {
		assert_int_equal(len, strlen(body));
		snprintf(buf, size, "%s", body);
	} else if (keep) {
		assert_int_equal(
			dbpool_answer_put(pool, r, key, keep, strlen(keep)), 0);
	}
	free(body);
	store_read_end(r);
	dbpool_put(pool, r);
	return rc;
}

/* Kept answers are found by their key, on their connection only. */
static void
test_answers(void **state)
{
	struct dbpool *pool = NULL;
	struct store *r = NULL, *other = NULL;
	char path[600], buf[64], *big, *body = NULL;
	size_t len;

	(void)state;
	fixture_path(path, sizeof(path), "answers.db");
	make_db(path, 2);
	assert_int_equal(dbpool_new(path, 1, &pool), 0);
	assert_int_equal(answer(pool, "a", "one", buf, sizeof(buf)), 0);
	assert_int_equal(answer(pool, "a", NULL, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "one");
	assert_int_equal(answer(pool, "b", NULL, buf, sizeof(buf)), 0);
	assert_int_equal(answer(pool, "b", "two", buf, sizeof(buf)), 0);
	assert_int_equal(answer(pool, "b", NULL, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "two");
	assert_int_equal(answer(pool, "a", NULL, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "one");
	/* A put with no get before it keeps nothing. */
	assert_int_equal(dbpool_get(pool, 0, &r), 0);
	assert_int_equal(dbpool_answer_put(pool, r, "c", "x", 1), 0);
	dbpool_put(pool, r);
	assert_int_equal(answer(pool, "c", NULL, buf, sizeof(buf)), 0);
	/* Neither does a body larger than the limit. */
	big = malloc(DBPOOL_ANSWER_MAX + 2);
	assert_non_null(big);
	memset(big, 'x', DBPOOL_ANSWER_MAX + 1);
	big[DBPOOL_ANSWER_MAX + 1] = '\0';
	assert_int_equal(answer(pool, "big", big, buf, sizeof(buf)), 0);
	assert_int_equal(answer(pool, "big", NULL, buf, sizeof(buf)), 0);
	free(big);
	/* The oldest goes first once the connection keeps its most. */
	for (len = 0; len < DBPOOL_ANSWERS; len++) {
		snprintf(buf, sizeof(buf), "k%zu", len);
		assert_int_equal(answer(pool, buf, "v", buf, sizeof(buf)), 0);
	}
	assert_int_equal(answer(pool, "a", NULL, buf, sizeof(buf)), 0);
	assert_int_equal(answer(pool, "k1", NULL, buf, sizeof(buf)), 1);
	/* A store of no pool keeps and finds nothing. */
	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &other), 0);
	assert_int_equal(dbpool_answer_get(pool, other, "k1", &body, &len), 0);
	assert_int_equal(dbpool_answer_put(pool, other, "k1", "v", 1), 0);
	store_close(other);
	dbpool_free(pool);
}

/* A commit of another connection drops every answer kept before it. */
static void
test_answers_writer(void **state)
{
	struct dbpool *pool = NULL;
	struct store *w = NULL;
	char path[600], buf[64];

	(void)state;
	fixture_path(path, sizeof(path), "answers-writer.db");
	assert_int_equal(store_open(path, 0, &w), 0);
	add_taps(w, 2);
	assert_int_equal(dbpool_new(path, 1, &pool), 0);
	assert_int_equal(answer(pool, "a", "two taps", buf, sizeof(buf)), 0);
	assert_int_equal(answer(pool, "a", NULL, buf, sizeof(buf)), 1);
	add_taps(w, 1);
	assert_int_equal(answer(pool, "a", NULL, buf, sizeof(buf)), 0);
	assert_int_equal(answer(pool, "a", "three taps", buf, sizeof(buf)), 0);
	assert_int_equal(answer(pool, "a", NULL, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "three taps");
	dbpool_free(pool);
	store_close(w);
}

/* Adds one tap to path from a process of its own; its exit status. */
static int
child_writes(const char *path)
{
	struct store *w = NULL;

	if (store_open(path, 0, &w) != 0)
		return 1;
	add_taps(w, 1);
	store_close(w);
	return 0;
}

/* The same for a commit of another process, as a replay into the file. */
static void
test_answers_process(void **state)
{
	struct dbpool *pool = NULL;
	char path[600], buf[64];
	int status;
	pid_t pid;

	(void)state;
	fixture_path(path, sizeof(path), "answers-process.db");
	make_db(path, 2);
	assert_int_equal(dbpool_new(path, 1, &pool), 0);
	assert_int_equal(answer(pool, "a", "before", buf, sizeof(buf)), 0);
	assert_int_equal(answer(pool, "a", NULL, buf, sizeof(buf)), 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_writes(path));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(answer(pool, "a", NULL, buf, sizeof(buf)), 0);
	dbpool_free(pool);
}

static void
test_sees_writer(void **state)
{
	struct dbpool *pool = NULL;
	struct store *w = NULL, *r = NULL;
	sqlite3_stmt *stmt = NULL;
	char path[600];

	(void)state;
	fixture_path(path, sizeof(path), "live.db");
	assert_int_equal(store_open(path, 0, &w), 0);
	add_taps(w, 2);
	assert_int_equal(dbpool_new(path, 1, &pool), 0);
	assert_int_equal(dbpool_get(pool, 0, &r), 0);
	assert_int_equal(count_taps(r), 2);

	/*
	 * A statement stepped and left: it holds a read transaction, and
	 * the reader would not see the writer's next commit through it.
	 * Putting the connection back ends it.
	 */
	assert_int_equal(sqlite3_prepare_v2(store__sqlite(r),
					    "SELECT id FROM taps ORDER BY id",
					    -1, &stmt, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	assert_true(sqlite3_stmt_busy(stmt));
	assert_int_equal(sqlite3_get_autocommit(store__sqlite(r)), 1);
	dbpool_put(pool, r);
	assert_false(sqlite3_stmt_busy(stmt));
	sqlite3_finalize(stmt);

	/* An explicit transaction left open is rolled back too. */
	assert_int_equal(dbpool_get(pool, 0, &r), 0);
	assert_int_equal(
		sqlite3_exec(store__sqlite(r), "BEGIN", NULL, NULL, NULL),
		SQLITE_OK);
	assert_int_equal(count_taps(r), 2);
	dbpool_put(pool, r);
	add_taps(w, 3);
	assert_int_equal(dbpool_get(pool, 0, &r), 0);
	assert_int_equal(sqlite3_get_autocommit(store__sqlite(r)), 1);
	assert_int_equal(count_taps(r), 5);
	/* Read-only for real: the connection refuses to write. */
	assert_int_not_equal(sqlite3_exec(store__sqlite(r), "DELETE FROM taps",
					  NULL, NULL, NULL),
			     SQLITE_OK);
	dbpool_put(pool, r);
	dbpool_free(pool);
	store_close(w);
}

static void
copy_file(const char *from, const char *to, mode_t mode)
{
	fixture_copy(from, to);
	assert_int_equal(chmod(to, mode), 0);
}

/*
 * In a child that became nobody: opens the pool on path and checks what
 * it reads.  Exits 0 when all is as expected.
 */
static int
child_reads(const char *path, int64_t want, int want_immutable)
{
	struct dbpool *pool = NULL;
	struct store *st = NULL;
	int64_t n;
	int imm;

	if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0)
		return 10;
	if (dbpool_new(path, 2, &pool) != 0)
		return 11;
	if (dbpool_immutable(pool) != want_immutable)
		return 12;
	if (dbpool_get(pool, 0, &st) != 0)
		return 13;
	n = count_taps(st);
	dbpool_put(pool, st);
	dbpool_free(pool);
	if (n != want)
		return 14;
	/* One connection outside the pool, opened the same way. */
	st = NULL;
	imm = -1;
	if (dbpool_open_store(path, &st, &imm) != 0 || imm != want_immutable)
		return 15;
	n = count_taps(st);
	store_close(st);
	return n == want ? 0 : 16;
}

static void
test_copied_read_only(void **state)
{
	struct dbpool *pool = NULL;
	struct store *st = NULL;
	char src[600], dir[600], copy[700];
	int status;
	pid_t pid;

	(void)state;
	fixture_path(src, sizeof(src), "device.db");
	make_db(src, 7);
	assert_int_equal(access(src, F_OK), 0);

	/* A copy, mode 444, without its WAL files, in a writable place. */
	fixture_path(copy, sizeof(copy), "copy.db");
	copy_file(src, copy, 0444);
	assert_int_equal(dbpool_new(copy, 2, &pool), 0);
	assert_int_equal(dbpool_get(pool, 0, &st), 0);
	assert_int_equal(count_taps(st), 7);
	dbpool_put(pool, st);
	dbpool_free(pool);
	st = NULL;
	assert_int_equal(dbpool_open_store(copy, &st, NULL), 0);
	assert_int_equal(count_taps(st), 7);
	store_close(st);
	assert_int_equal(dbpool_open_store(NULL, &st, NULL), -EINVAL);

	/*
	 * The same in a directory nobody may write, with characters that
	 * mean something in a URI in its name.  Root may write anywhere,
	 * so the read-only case is run as nobody in a child.
	 */
	fixture_path(dir, sizeof(dir), "ro 50%?#x");
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(copy, sizeof(copy), "%s/taps.db", dir);
	copy_file(src, copy, 0444);
	assert_int_equal(chmod(dir, 0555), 0);
	assert_int_equal(chmod(fixture_dir(), 0755), 0);
	if (geteuid() != 0) {
		/* Already unprivileged: this process is the test. */
		assert_int_equal(dbpool_new(copy, 2, &pool), 0);
		assert_int_equal(dbpool_immutable(pool), 1);
		assert_int_equal(dbpool_get(pool, 0, &st), 0);
		assert_int_equal(count_taps(st), 7);
		dbpool_put(pool, st);
		dbpool_free(pool);
		return;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_reads(copy, 7, 1));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* Nothing was written next to the copy. */
	snprintf(copy, sizeof(copy), "%s/taps.db-shm", dir);
	assert_int_equal(access(copy, F_OK), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_checkout),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_answers_writer),
		cmocka_unit_test(test_answers_process),
		cmocka_unit_test(test_sees_writer),
		cmocka_unit_test(test_copied_read_only),
	};

	log_init("test_dbpool", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
