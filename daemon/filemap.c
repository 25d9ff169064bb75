/* A regular file mapped read-only; see filemap.h. */
#include "filemap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What filemap_done() gives back at least at a time, a multiple of pages. */
#define FILEMAP_DONE_STEP ((size_t)8 << 20)

struct filemap {
	unsigned char *data;
	size_t len;
	size_t done; /* bytes before it given back already */
};

int
filemap_open(int fd, size_t max, struct filemap **out)
{
	struct filemap *m;
	struct stat sb;
	void *p;

	*out = NULL;
	if (fstat(fd, &sb) < 0)
		return -errno;
	if (!S_ISREG(sb.st_mode))
		return -ENODEV;
	if (sb.st_size <= 0)
		return -ENODATA;
	if ((uintmax_t)sb.st_size > max || (uintmax_t)sb.st_size > SIZE_MAX)
		return -EFBIG;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	m->len = (size_t)sb.st_size;
	p = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		free(m);
		return -errno;
	}
	m->data = p;
	/* Read ahead generously; pages behind the reader are not wanted. */
	madvise(m->data, m->len, MADV_SEQUENTIAL);
	*out = m;
	return 0;
}

const unsigned char *
filemap_data(const struct filemap *m)
{
	return m->data;
}

size_t
filemap_len(const struct filemap *m)
{
	return m->len;
}

void
filemap_done(struct filemap *m, size_t off)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t end;

	if (page <= 0 || off > m->len || off - m->done < FILEMAP_DONE_STEP)
		return;
	end = off - off % (size_t)page;
	if (end <= m->done)
		return;
	/* Clean pages of a read-only map: the page cache keeps them. */
	madvise(m->data + m->done, end - m->done, MADV_DONTNEED);
	m->done = end;
}

void
filemap_free(struct filemap *m)
{
	if (m == NULL)
		return;
	munmap(m->data, m->len);
	free(m);
}
