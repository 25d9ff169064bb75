/*
 * What the unit tests share: temporary directories and the files in them,
 * and fresh stores inside them.  Every function that can fail inside a
 * test fails it with a cmocka assertion, so a test needs no checks of its
 * own; those meant for cmocka's setup and teardown return 0 or -1 instead,
 * as a setup may not assert.
 *
 * Ownership: a directory made by fixture_tmpdir belongs to the caller,
 * who removes it with fixture_rmtree.  The group directory belongs to this
 * module: fixture_group_setup makes it, fixture_group_teardown removes it
 * with everything in it, and fixture_dir returns it in between.  Buffers
 * returned by fixture_slurp belong to the caller (free them); a store from
 * fixture_store_new belongs to the caller, who closes it with store_close
 * or with fixture_store_drop, which removes its files as well.
 *
 * The tests of the HTTP API share an HTTP client over real sockets on
 * 127.0.0.1 (fixture_http and the functions next to it), a database of
 * five taps, and a server started as tapd run starts it.  The body of a
 * fixture_reply belongs to the caller (free it); a fixture_server belongs
 * to fixture_server_setup..teardown.  The tests of the store share plain
 * SQLite connections and a sample tap, those of the getevent reader the
 * draining of a log into a struct fixture_getevent.
 */
#ifndef TAPD_TEST_FIXTURE_H
#define TAPD_TEST_FIXTURE_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "input_getevent.h"
#include "store.h"
#include "touch.h"

struct api;
struct control;
struct events;
struct status;
struct store;

/*
 * Makes a new directory $TMPDIR/tapd-<tag>-XXXXXX (/tmp without TMPDIR),
 * mode 0700, and writes its path to buf.  Returns 0, or -1 when it could
 * not be made or its path does not fit.
 */
int fixture_tmpdir(char *buf, size_t size, const char *tag);

/*
 * Removes path and everything below it, making directories writable and
 * searchable first so that those a test made read-only go too.  Links are
 * removed, never followed.  Returns 0, or -1 when anything stayed.
 */
int fixture_rmtree(const char *path);

/* Writes dir/<fmt...> to buf; the test fails if it does not fit. */
void fixture_join(char *buf, size_t size, const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Makes path and its missing parents (those 0755), as mkdir -p does; path
 * itself gets mode, even when it was there already.
 */
void fixture_mkdirs(const char *path, mode_t mode);

/* Writes data to path, replacing what was there. */
void fixture_write(const char *path, const void *data, size_t len);

/* Writes the string text to path, replacing what was there. */
void fixture_write_str(const char *path, const char *text);

/* Copies the file from to the file to, replacing what was there. */
void fixture_copy(const char *from, const char *to);

/*
 * Reads the whole of path into a malloc'ed buffer with a NUL after it, and
 * its length (without the NUL) to *len unless len is NULL.
 */
char *fixture_slurp(const char *path, size_t *len);

/* CLOCK_MONOTONIC now, in milliseconds and in nanoseconds. */
/*
 * How many rounds a randomized test runs: full natively, quick when
 * TAPD_TEST_EMULATED is set (tests/android/unit.sh sets it for the
 * qemu-user runs, where each round costs ten times as much and the
 * point is the ABI, which a few rounds cover).
 */
int fixture_rounds(int full, int quick);

int64_t fixture_now_ms(void);
int64_t fixture_now_ns(void);

/* An input event as the kernel's reader hands it on. */
struct touch_event fixture_event(int64_t t_ns, uint16_t type, uint16_t code,
				 int32_t value);

/* The group directory: cmocka group setup and teardown functions. */
int fixture_group_setup(void **state);
int fixture_group_teardown(void **state);

/* The group directory's path, while the group runs. */
const char *fixture_dir(void);

/* Writes <group directory>/name to buf; the test fails if it does not fit. */
void fixture_path(char *buf, size_t size, const char *name);

/*
 * Opens a writable store on a new file name in the group directory (its
 * path goes to path); a file left there by an earlier test is removed
 * first, so that every store starts empty.
 */
struct store *fixture_store_new(const char *name, char *path, size_t size);

/* Removes the database file path with its -wal and -shm, those there are. */
void fixture_db_remove(const char *path);

/* Closes st and removes its database file, as fixture_db_remove does. */
void fixture_store_drop(struct store *st, const char *path);

/*
 * The group setup of the API tests: fixture_group_setup, then a database
 * of 5 taps, one of them in a session, whose path fixture_api_db gives.
 */
int fixture_api_group_setup(void **state);
const char *fixture_api_db(void);

/* One HTTP exchange, read to the end. */
struct fixture_reply {
	int status;
	char head[4096]; /* status line and headers */
	char *body;
	size_t len;
};

/* The writer side of tapd run: serves control requests with a store. */
struct fixture_ingest {
	struct control *control;
	struct store *store;
	pthread_t thread;
	int stop;
};

/* A server as tapd run would start it, with events and a control. */
struct fixture_server {
	struct api *api;
	struct status *status;
	struct events *events;
	struct fixture_ingest ingest;
	uint16_t port;
};

/* A TCP connection to 127.0.0.1:port, with a receive timeout of 5 s. */
int fixture_connect(uint16_t port);

/* Sends all of data; a server that closes early ends it quietly. */
void fixture_send_all(int fd, const char *data, size_t len);

/* Reads to EOF, closes fd and splits the reply. */
void fixture_read_reply(int fd, struct fixture_reply *r);

/*
 * Sends method path with extra header lines (each ending in \r\n) and a
 * body, and reads the reply.
 */
void fixture_http(uint16_t port, const char *method, const char *path,
		  const char *extra, const char *body, struct fixture_reply *r);

/*
 * The value of a header of r, written to buf, or NULL (names are
 * case-insensitive).
 */
const char *fixture_header(struct fixture_reply *r, const char *name, char *buf,
			   size_t size);

/*
 * Checks a JSON error reply: status, code, JSON type and no caching; then
 * frees its body.
 */
void fixture_expect_error(struct fixture_reply *r, int status,
			  const char *code);

/* Reads from fd until needle shows up in what was read, or timeout. */
bool fixture_read_until(int fd, char *buf, size_t size, size_t *len,
			const char *needle, int timeout_ms);

/*
 * cmocka setup and teardown of a struct fixture_server on
 * fixture_api_db(), at 127.0.0.1 on a free port, its event stream
 * pinging every 200 ms.
 */
int fixture_server_setup(void **state);
int fixture_server_teardown(void **state);

/*
 * The tests of the store check what is on disk, not what the store
 * believes, through plain SQLite connections of their own, opened with
 * fixture_raw_open (close them with sqlite3_close).
 */

/* clock_gettime(clock) now, in nanoseconds. */
int64_t fixture_clock_ns(clockid_t clock);

/* Opens path with SQLite's flags and a busy timeout of 2 s. */
sqlite3 *fixture_raw_open(const char *path, int flags);

/* Runs sql, failing the test with SQLite's message if it fails. */
void fixture_raw_exec(sqlite3 *db, const char *sql);

/* The first column of the first row of sql, as an integer. */
int64_t fixture_raw_int(sqlite3 *db, const char *sql);

/*
 * A full disk without a mount: max_page_count at the file's size makes
 * every write of st that needs a new page fail with SQLITE_FULL, as a
 * disk with no room does.  lift lifts it.
 */
void fixture_limit_pages(struct store *st, bool lift);

/* The same as text, written to buf (the test fails if it does not fit). */
void fixture_raw_text(sqlite3 *db, const char *sql, char *buf, size_t size);

/* Rows in taps as a separate read-only connection sees them now. */
int64_t fixture_visible_taps(const char *path);

/* A valid tap of "com.example.app", its latencies and position known. */
struct store_tap fixture_sample_tap(void);

/* The sum of the tap_hist counts of app, metric and span. */
int64_t fixture_hist_sum(sqlite3 *db, const char *app, int metric, int span);

/* The getevent logs of the tests, relative to the tree. */
#define FIXTURE_GETEVENT_DIR "tests/fixtures/getevent/"

/* The events of a getevent log as the reader gave them, and its counts. */
#define FIXTURE_GETEVENT_MAX 256

struct fixture_getevent {
	struct touch_event ev[FIXTURE_GETEVENT_MAX];
	size_t n;
	struct input_getevent_stats st;
};

/*
 * Reads every event of g into *out, failing the test beyond
 * FIXTURE_GETEVENT_MAX; the end must stay the end, and the counts agree.
 */
void fixture_getevent_drain(struct input_getevent *g,
			    struct fixture_getevent *out);

/*
 * Opens the log text (device as input_getevent_open_mem takes it) and
 * drains it into *out.  Returns what the open returned.
 */
int fixture_getevent_open_mem(const char *text, const char *device,
			      struct fixture_getevent *out);

/* Checks an event's time, type, code and value. */
void fixture_expect_event(const struct touch_event *ev, int64_t t,
			  uint16_t type, uint16_t code, int32_t value);

#endif
