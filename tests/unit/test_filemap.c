#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "filemap.h"
#include "fixture.h"

/* Writes len bytes of a pattern to name and opens it for reading. */
static int
make_file(const char *name, size_t len, char *path, size_t size)
{
	FILE *f;
	size_t i;
	int fd;

	fixture_path(path, size, name);
	f = fopen(path, "w");
	assert_non_null(f);
	for (i = 0; i < len; i++)
		assert_int_equal(fputc((int)(i * 7 % 251), f),
				 (int)(i * 7 % 251));
	assert_int_equal(fclose(f), 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	return fd;
}

/* The bytes read in place are the file's, also past what was given back. */
static void
test_maps_whole_file(void **state)
{
	/* Longer than two steps of filemap_done(), and not a page multiple. */
	const size_t len = (size_t)(20 << 20) + 123;
	struct filemap *m = NULL;
	const unsigned char *d;
	char path[256];
	size_t i, off;
	int fd;

	(void)state;
	fd = make_file("map.bin", len, path, sizeof(path));
	assert_int_equal(filemap_open(fd, len, &m), 0);
	/* The mapping outlives the descriptor. */
	close(fd);
	assert_int_equal(filemap_len(m), len);
	d = filemap_data(m);
	for (off = 0; off < len; off += 65536) {
		for (i = off; i < off + 65536 && i < len; i++)
			if (d[i] != (unsigned char)(i * 7 % 251))
				fail_msg("byte %zu differs", i);
		filemap_done(m, i);
	}
	filemap_free(m);
	filemap_free(NULL);
	unlink(path);
}

/* What cannot be mapped says why, for the caller to read it instead. */
static void
test_refuses(void **state)
{
	struct filemap *m = (struct filemap *)1;
	char path[256];
	int fd, p[2];

	(void)state;
	fd = make_file("empty.bin", 0, path, sizeof(path));
	assert_int_equal(filemap_open(fd, 100, &m), -ENODATA);
	assert_null(m);
	close(fd);
	unlink(path);
	fd = make_file("big.bin", 101, path, sizeof(path));
	assert_int_equal(filemap_open(fd, 100, &m), -EFBIG);
	assert_int_equal(filemap_open(fd, 101, &m), 0);
	filemap_free(m);
	close(fd);
	unlink(path);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(filemap_open(p[0], 100, &m), -ENODEV);
	close(p[0]);
	close(p[1]);
	assert_int_equal(filemap_open(-1, 100, &m), -EBADF);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_whole_file),
		cmocka_unit_test(test_refuses),
	};

	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
