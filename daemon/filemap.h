/*
 * A regular file mapped read-only into memory, for the replay's readers
 * (the getevent log, the trace), which then walk the page cache in
 * place instead of copying every byte through read().  What cannot be
 * mapped (a pipe, a FIFO, an empty file, a file larger than the address
 * space takes) is refused with an errno the caller answers by reading
 * the file as before.
 */
#ifndef TAPD_FILEMAP_H
#define TAPD_FILEMAP_H

#include <stddef.h>

struct filemap;

/*
 * Maps the regular file open at fd (which the caller keeps and may close
 * afterwards) whole, read-only, for a pass from start to end.  Returns 0
 * and sets *out; -ENODEV for what is not a regular file, -ENODATA for an
 * empty one, -EFBIG for one larger than max bytes, or the errno of
 * fstat() or mmap().  Nothing is logged: the caller reads instead.  Free
 * with filemap_free().
 */
int filemap_open(int fd, size_t max, struct filemap **out);

/* The file's bytes and their count, valid until filemap_free(). */
const unsigned char *filemap_data(const struct filemap *m);
size_t filemap_len(const struct filemap *m);

/*
 * Tells the kernel that the bytes before off are done with, so that a
 * long pass does not keep the whole file counted in its memory.
 */
void filemap_done(struct filemap *m, size_t off);

/* Unmaps; NULL is a no-op. */
void filemap_free(struct filemap *m);

#endif
