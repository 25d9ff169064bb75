/*
 * The unit tests' shared fixture: see fixture.h for what each function
 * does and who owns what it makes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "fixture.h"
#include "store.h"
#include "touch.h"

/* The group directory, empty outside fixture_group_setup..teardown. */
static char group_dir[PATH_MAX];

int
fixture_tmpdir(char *buf, size_t size, const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(buf, size, "%s/tapd-%s-XXXXXX", tmp, tag);
	if (n < 0 || (size_t)n >= size || !mkdtemp(buf))
		return -1;
	return 0;
}

int
fixture_rmtree(const char *path)
{
	char child[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int rc = 0, n;

	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(sb.st_mode))
		return unlink(path) == 0 ? 0 : -1;
	/* A directory a test made read-only must still be emptied. */
	chmod(path, 0700);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		n = snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(child) ||
		    fixture_rmtree(child) != 0)
			rc = -1;
	}
	closedir(d);
	if (rmdir(path) != 0)
		rc = -1;
	return rc;
}

void
fixture_join(char *buf, size_t size, const char *dir, const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(rel));
	n = snprintf(buf, size, "%s/%s", dir, rel);
	assert_true(n > 0 && (size_t)n < size);
}

void
fixture_mkdirs(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	char *p;

	assert_true(strlen(path) < sizeof(buf));
	memcpy(buf, path, strlen(path) + 1);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		assert_true(mkdir(buf, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	assert_true(mkdir(buf, mode) == 0 || errno == EEXIST);
	/* The umask must not take away what the test asked for. */
	assert_int_equal(chmod(buf, mode), 0);
}

void
fixture_write(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

void
fixture_write_str(const char *path, const char *text)
{
	fixture_write(path, text, strlen(text));
}

void
fixture_copy(const char *from, const char *to)
{
	char *buf;
	size_t len;

	buf = fixture_slurp(from, &len);
	fixture_write(to, buf, len);
	free(buf);
}

char *
fixture_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	assert_non_null(fp);
	/* Read in pieces: files under /proc and pipes have no size. */
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		got = fread(buf + n, 1, cap - n - 1, fp);
		n += got;
	} while (got > 0);
	assert_int_equal(ferror(fp), 0);
	fclose(fp);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int64_t
fixture_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
fixture_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct touch_event
fixture_event(int64_t t_ns, uint16_t type, uint16_t code, int32_t value)
{
	struct touch_event e;

	memset(&e, 0, sizeof(e));
	e.time_ns = t_ns;
	e.type = type;
	e.code = code;
	e.value = value;
	return e;
}

int
fixture_group_setup(void **state)
{
	(void)state;
	return fixture_tmpdir(group_dir, sizeof(group_dir), "test");
}

int
fixture_group_teardown(void **state)
{
	int rc;

	(void)state;
	rc = fixture_rmtree(group_dir);
	group_dir[0] = '\0';
	return rc;
}

const char *
fixture_dir(void)
{
	assert_true(group_dir[0] != '\0');
	return group_dir;
}

void
fixture_path(char *buf, size_t size, const char *name)
{
	fixture_join(buf, size, fixture_dir(), "%s", name);
}

void
fixture_db_remove(const char *path)
{
	static const char *const tails[] = {"", "-wal", "-shm"};
	char buf[PATH_MAX];
	size_t i;
	int n;

	for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		n = snprintf(buf, sizeof(buf), "%s%s", path, tails[i]);
		assert_true(n > 0 && (size_t)n < sizeof(buf));
		assert_true(unlink(buf) == 0 || errno == ENOENT);
	}
}

struct store *
fixture_store_new(const char *name, char *path, size_t size)
{
	struct store *st = NULL;

	fixture_path(path, size, name);
	fixture_db_remove(path);
	assert_int_equal(store_open(path, 0, &st), 0);
	return st;
}

void
fixture_store_drop(struct store *st, const char *path)
{
	store_close(st);
	fixture_db_remove(path);
}
