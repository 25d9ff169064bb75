/*
 * Aligned text tables for tapctl's human-readable output: a header row and
 * any number of rows, each column as wide as its widest cell (counted in
 * characters, not bytes, so UTF-8 app names line up), two spaces apart.
 * Cells are copied, with control characters replaced by '?' so that a
 * hostile server cannot drive the terminal.
 */
#ifndef TAPCTL_TABLE_H
#define TAPCTL_TABLE_H

#include <stdio.h>

/* Column alignment. */
#define TABLE_LEFT  0
#define TABLE_RIGHT 1

struct table;

/*
 * A table of ncols columns (1..32) with the given headers (copied), or
 * none when headers is NULL.  Returns 0 and sets *out, -EINVAL or
 * -ENOMEM.  Free with table_free().
 */
int table_new(unsigned ncols, const char *const *headers, struct table **out);

/* NULL is a no-op. */
void table_free(struct table *t);

/* Sets the alignment of column col (TABLE_LEFT by default). */
void table_align(struct table *t, unsigned col, int align);

/*
 * Appends a row of ncols cells (NULL prints as "-").  Returns 0 or
 * -ENOMEM.
 */
int table_add(struct table *t, const char *const *cells);

/* The number of rows added. */
unsigned table_rows(const struct table *t);

/* Prints the header and the rows.  Returns 0 or -EIO. */
int table_print(const struct table *t, FILE *f);

/*
 * Copies s into out (size bytes, NUL-terminated, cut at a character
 * boundary) with control characters replaced by '?'.
 */
void table_clean(const char *s, char *out, size_t size);

/*
 * snprintf() for display: text that does not fit is cut at a character
 * boundary and ends with "..." (when size allows), so a cut is visible.
 * Returns 0, or -ENOSPC when the text was cut.
 */
int table_format(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The display width of a UTF-8 string: its number of characters. */
size_t table_width(const char *s);

#endif
