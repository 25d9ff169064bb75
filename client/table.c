#include "table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_MAX_COLS 32

/* A cell longer than this is cut: a table is for reading, not for data. */
#define TABLE_CELL_MAX 512

struct table {
	unsigned ncols;
	int align[TABLE_MAX_COLS];
	char **cells; /* (rows + 1) * ncols, the header first */
	unsigned rows;
	unsigned capacity; /* rows, header included */
	int headless;	   /* the header row is empty and not printed */
};

size_t
table_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0u) != 0x80u)
			n++;
	return n;
}

int
table_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t end;
	int n;

	if (size == 0)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[0] = '\0';
		return -ENOSPC;
	}
	if ((size_t)n < size)
		return 0;
	if (size >= 4) {
		end = size - 4;
		/* Back to the start of a character. */
		while (end > 0 && ((unsigned char)buf[end] & 0xc0u) == 0x80u)
			end--;
		memcpy(buf + end, "...", 4);
	}
	return -ENOSPC;
}

void
table_clean(const char *s, char *out, size_t size)
{
	size_t o = 0, n;
	unsigned char c;

	if (size == 0)
		return;
	while (*s) {
		c = (unsigned char)*s;
		/* The length of the character: never cut one in half. */
		n = 1;
		if (c >= 0xc0u)
			while (n < 4 && ((unsigned char)s[n] & 0xc0u) == 0x80u)
				n++;
		if (o + n >= size)
			break;
		if (c < 0x20u || c == 0x7fu) {
			out[o++] = '?';
		} else {
			memcpy(out + o, s, n);
			o += n;
		}
		s += n;
	}
	out[o] = '\0';
}

static int
table_grow(struct table *t)
{
	char **cells;
	unsigned cap;

	if (t->rows + 1 < t->capacity)
		return 0;
	cap = t->capacity * 2;
	cells = realloc(t->cells, (size_t)cap * t->ncols * sizeof(*cells));
	if (cells == NULL)
		return -ENOMEM;
	t->cells = cells;
	t->capacity = cap;
	return 0;
}

static int
table_put_row(struct table *t, unsigned row, const char *const *cells)
{
	char buf[TABLE_CELL_MAX];
	unsigned i;

	for (i = 0; i < t->ncols; i++) {
		if (cells == NULL)
			buf[0] = '\0';
		else
			table_clean(cells[i] ? cells[i] : "-", buf,
				    sizeof(buf));
		if ((t->cells[row * t->ncols + i] = strdup(buf)) == NULL) {
			while (i-- > 0)
				free(t->cells[row * t->ncols + i]);
			return -ENOMEM;
		}
	}
	return 0;
}

int
table_new(unsigned ncols, const char *const *headers, struct table **out)
{
	struct table *t;

	if (ncols == 0 || ncols > TABLE_MAX_COLS)
		return -EINVAL;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return -ENOMEM;
	t->ncols = ncols;
	t->capacity = 16;
	t->headless = headers == NULL;
	t->cells = calloc((size_t)t->capacity * ncols, sizeof(*t->cells));
	if (t->cells == NULL || table_put_row(t, 0, headers) < 0) {
		free(t->cells);
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void
table_free(struct table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < (size_t)(t->rows + 1) * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}

void
table_align(struct table *t, unsigned col, int align)
{
	if (col < t->ncols)
		t->align[col] = align;
}

int
table_add(struct table *t, const char *const *cells)
{
	int rc;

	if ((rc = table_grow(t)) < 0)
		return rc;
	if ((rc = table_put_row(t, t->rows + 1, cells)) < 0)
		return rc;
	t->rows++;
	return 0;
}

unsigned
table_rows(const struct table *t)
{
	return t->rows;
}

int
table_print(const struct table *t, FILE *f)
{
	size_t width[TABLE_MAX_COLS] = {0}, w, pad;
	unsigned r, c, last;
	const char *cell;

	for (r = 0; r <= t->rows; r++)
		for (c = 0; c < t->ncols; c++) {
			w = table_width(t->cells[r * t->ncols + c]);
			if (w > width[c])
				width[c] = w;
		}
	for (r = t->headless ? 1 : 0; r <= t->rows; r++) {
		/* No trailing blanks: the line ends at its last cell. */
		last = 0;
		for (c = 0; c < t->ncols; c++)
			if (t->cells[r * t->ncols + c][0] != '\0')
				last = c;
		for (c = 0; c <= last; c++) {
			cell = t->cells[r * t->ncols + c];
			pad = width[c] - table_width(cell);
			if (t->align[c] == TABLE_RIGHT)
				fprintf(f, "%*s%s", (int)pad, "", cell);
			else if (c < last)
				fprintf(f, "%s%*s", cell, (int)pad, "");
			else
				fputs(cell, f);
			if (c < last)
				fputs("  ", f);
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}
