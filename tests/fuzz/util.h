/*
 * What several fuzz targets share: a reader that takes numbers from the
 * front of the input (zeros once it runs out, so every input decodes),
 * temporary directories and files.  Header-only, since the Makefile builds
 * each target from its one source file.
 */
#ifndef TAPD_FUZZ_UTIL_H
#define TAPD_FUZZ_UTIL_H

#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fuzz_in {
	const uint8_t *p;
	size_t left;
};

static inline uint8_t
fuzz_u8(struct fuzz_in *in)
{
	if (in->left == 0)
		return 0;
	in->left--;
	return *in->p++;
}

static inline uint16_t
fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);

	return (uint16_t)(lo | (uint16_t)(fuzz_u8(in) << 8));
}

static inline uint32_t
fuzz_u32(struct fuzz_in *in)
{
	uint32_t lo = fuzz_u16(in);

	return lo | ((uint32_t)fuzz_u16(in) << 16);
}

static inline uint64_t
fuzz_u64(struct fuzz_in *in)
{
	uint64_t lo = fuzz_u32(in);

	return lo | ((uint64_t)fuzz_u32(in) << 32);
}

/*
 * The next chunk: a 16-bit length, then that many bytes (fewer when the
 * input ends first).  *len gets the length.
 */
static inline const uint8_t *
fuzz_chunk(struct fuzz_in *in, size_t *len)
{
	const uint8_t *p;
	size_t n = fuzz_u16(in);

	if (n > in->left)
		n = in->left;
	p = in->p;
	in->p += n;
	in->left -= n;
	*len = n;
	return p;
}

/*
 * Makes a fresh directory under $TMPDIR, else /dev/shm when there is one
 * (the targets write files for every input: memory is much faster than a
 * disk), else /tmp; aborts when it cannot.
 */
static inline void
fuzz_tmpdir(char *buf, size_t size, const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	n = snprintf(buf, size, "%s/tapd-fuzz-%s-XXXXXX", tmp, tag);
	if (n < 0 || (size_t)n >= size || !mkdtemp(buf))
		abort();
}

/* Writes len bytes to path, replacing it; aborts on failure. */
static inline void
fuzz_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const char *p = data;
	ssize_t n;

	if (fd < 0)
		abort();
	while (len > 0) {
		n = write(fd, p, len);
		if (n <= 0)
			abort();
		p += n;
		len -= (size_t)n;
	}
	close(fd);
}

static inline int
fuzz_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Removes path and everything under it. */
static inline void
fuzz_rmtree(const char *path)
{
	nftw(path, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
