#include "windows_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "parse.h"

#define READ_CHUNK 65536

struct block {
	int64_t t_ns;
	struct winlist *list;
};

struct windows_log {
	struct block *b;
	size_t n, cap;
	struct windows_log_stats stats;
	struct windows_log_jump jump;
	int jumped;
	int full; /* a block was dropped: every later one is */
	const char *name;

	/* The block being read, and whether a line has begun. */
	struct winlist *cur;
	int64_t cur_t;
	int mid_line;
	int in_mark;
	char mark[WINDOWS_LOG_MARK_MAX + 1];
	size_t mark_len;
	uint64_t marks; /* good marks seen, the one that jumped included */
};

void
windows_log_free(struct windows_log *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		winlist_free(l->b[i].list);
	free(l->b);
	winlist_free(l->cur);
	free(l);
}

static int
text(struct windows_log *l, const char *p, size_t n)
{
	if (!l->cur) {
		l->stats.stray_bytes += n;
		return 0;
	}
	return winlist_feed(l->cur, p, n);
}

/* Ends the block being read and keeps it. */
static int
close_block(struct windows_log *l)
{
	struct winlist_stats st;
	struct block *nb;
	size_t cap;
	int r;

	if (!l->cur)
		return 0;
	r = winlist_end(l->cur);
	if (r == 0 && l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 16;
		if (!(nb = realloc(l->b, cap * sizeof(*nb))))
			r = -ENOMEM;
		else {
			l->b = nb;
			l->cap = cap;
		}
	}
	if (r < 0) {
		winlist_free(l->cur);
		l->cur = NULL;
		return r;
	}
	winlist_get_stats(l->cur, &st);
	if (l->full ||
	    l->stats.windows + st.windows > WINDOWS_LOG_WINDOWS_MAX) {
		/* Later blocks go too, or lookups would skip this one. */
		l->full = 1;
		l->stats.dropped++;
		winlist_free(l->cur);
		l->cur = NULL;
		return 0;
	}
	l->stats.windows += st.windows;
	l->b[l->n].t_ns = l->cur_t;
	l->b[l->n].list = l->cur;
	l->n++;
	l->stats.blocks++;
	l->cur = NULL;
	return 0;
}

/* A new block at t_ns, unless the time went back or the log is full. */
static int
open_block(struct windows_log *l, int64_t t_ns)
{
	int64_t last;
	int r;

	l->marks++;
	if (l->cur || l->n > 0) {
		last = l->cur ? l->cur_t : l->b[l->n - 1].t_ns;
		if (t_ns < last) {
			l->jumped = 1;
			l->jump.block = l->marks;
			l->jump.from_ns = last;
			l->jump.to_ns = t_ns;
			log_error("'%s' block %llu: time goes back from %lld "
				  "to %lld ns: the log ends there",
				  l->name, (unsigned long long)l->marks,
				  (long long)last, (long long)t_ns);
			return close_block(l);
		}
	}
	if ((r = close_block(l)) < 0)
		return r;
	if (l->full || l->n >= WINDOWS_LOG_BLOCKS_MAX) {
		l->full = 1;
		l->stats.dropped++;
		/* Its text is counted as stray: no list holds it. */
		return 0;
	}
	if ((r = winlist_new(&l->cur)) < 0)
		return r;
	winlist_begin(l->cur);
	l->cur_t = t_ns;
	return 0;
}

/* A line that started with '@', without its '\n'. */
static int
end_mark(struct windows_log *l, int newline)
{
	char *s = l->mark;
	size_t n = l->mark_len;
	int64_t t;
	int r;

	l->in_mark = 0;
	s[n] = '\0';
	if (n > 0 && s[n - 1] == '\r')
		s[--n] = '\0';
	if (n > 2 && s[1] == ' ' && parse_int64(s + 2, 0, INT64_MAX, &t) == 0)
		return open_block(l, t);
	l->stats.bad_marks++;
	if ((r = text(l, l->mark, l->mark_len)) < 0)
		return r;
	return newline ? text(l, "\n", 1) : 0;
}

static int
feed(struct windows_log *l, const char *buf, size_t len)
{
	const char *nl;
	size_t n;
	int r;

	l->stats.bytes += len;
	while (len > 0 && !l->jumped) {
		if (!l->mid_line && !l->in_mark && buf[0] == '@') {
			l->in_mark = 1;
			l->mark_len = 0;
		}
		nl = memchr(buf, '\n', len);
		n = nl ? (size_t)(nl - buf) : len;
		if (l->in_mark && l->mark_len + n > WINDOWS_LOG_MARK_MAX) {
			/* Too long for a mark: text after all. */
			l->in_mark = 0;
			l->stats.bad_marks++;
			if ((r = text(l, l->mark, l->mark_len)) < 0)
				return r;
		}
		if (l->in_mark) {
			memcpy(l->mark + l->mark_len, buf, n);
			l->mark_len += n;
			if (nl && (r = end_mark(l, 1)) < 0)
				return r;
		} else if ((r = text(l, buf, nl ? n + 1 : n)) < 0) {
			return r;
		}
		l->mid_line = nl == NULL;
		if (!nl)
			break;
		buf = nl + 1;
		len -= n + 1;
	}
	return 0;
}

int
windows_log_load_stream(FILE *fp, const char *name, struct windows_log **out)
{
	struct windows_log *l;
	char *buf = NULL;
	size_t k;
	int r = 0;

	*out = NULL;
	if (!(l = calloc(1, sizeof(*l))))
		return -ENOMEM;
	l->name = name;
	if (!(buf = malloc(READ_CHUNK))) {
		r = -ENOMEM;
		goto out;
	}
	/* What follows a jump is not used: not read either. */
	while (!l->jumped && (k = fread(buf, 1, READ_CHUNK, fp)) > 0)
		if ((r = feed(l, buf, k)) < 0)
			goto out;
	if (ferror(fp)) {
		r = -EIO;
		goto out;
	}
	if (l->in_mark && !l->jumped && (r = end_mark(l, 0)) < 0)
		goto out;
	if ((r = close_block(l)) < 0)
		goto out;
	l->name = NULL;
	*out = l;
	l = NULL;
out:
	free(buf);
	windows_log_free(l);
	return r;
}

int
windows_log_load(const char *path, struct windows_log **out)
{
	FILE *fp;
	int r;

	*out = NULL;
	if (!(fp = fopen(path, "re")))
		return -errno;
	r = windows_log_load_stream(fp, path, out);
	fclose(fp);
	return r;
}

size_t
windows_log_count(const struct windows_log *l)
{
	return l->n;
}

const struct winlist *
windows_log_block(const struct windows_log *l, size_t i, int64_t *t_ns)
{
	if (i >= l->n)
		return NULL;
	if (t_ns)
		*t_ns = l->b[i].t_ns;
	return l->b[i].list;
}

int
windows_log_at(const struct windows_log *l, int64_t t_ns,
	       const struct winlist **list, int64_t *t_block)
{
	size_t lo = 0, hi = l->n, mid;

	*list = NULL;
	/* The first block later than t_ns; the one before it is in force. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->b[mid].t_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -ENOENT;
	*list = l->b[lo - 1].list;
	if (t_block)
		*t_block = l->b[lo - 1].t_ns;
	return 0;
}

void
windows_log_get_stats(const struct windows_log *l, struct windows_log_stats *st)
{
	*st = l->stats;
}

int
windows_log_get_jump(const struct windows_log *l, struct windows_log_jump *j)
{
	if (!l->jumped)
		return -ENOENT;
	*j = l->jump;
	return 0;
}
