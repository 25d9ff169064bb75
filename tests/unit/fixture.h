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
 */
#ifndef TAPD_TEST_FIXTURE_H
#define TAPD_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct store;
struct touch_event;

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

#endif
