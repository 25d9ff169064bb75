#include "processes_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "foreground.h"
#include "log.h"
#include "parse.h"

#define PROC_UID_MAX INT64_C(4294967295)

struct entry {
	int64_t t_ns;
	int64_t uid;
	int32_t pid;
	char *package;
};

struct processes_log {
	struct entry *e;
	size_t n, cap;
	struct processes_log_stats stats;
};

void
processes_log_free(struct processes_log *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->e[i].package);
	free(l->e);
	free(l);
}

/* Splits line into at most max blank-separated fields; returns how many
 * there were (max + 1 when there were more). */
static size_t
split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		f[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* One line without its '\n': 1 kept, 0 skipped, -1 malformed. */
static int
parse_line(struct processes_log *l, char *line, int *err)
{
	struct entry e, *ne;
	char *f[4];
	int64_t v;
	size_t cap;

	*err = 0;
	if (!line[0] || line[0] == '#')
		return 0;
	if (split(line, f, 4) != 4)
		return -1;
	if (parse_int64(f[0], 0, INT64_MAX, &e.t_ns) < 0 ||
	    parse_int64(f[1], 1, FOREGROUND_PID_MAX, &v) < 0)
		return -1;
	e.pid = (int32_t)v;
	if (parse_int64(f[2], 0, PROC_UID_MAX, &e.uid) < 0 ||
	    !foreground_valid_package(f[3]))
		return -1;
	if (l->n >= PROCESSES_LOG_ENTRIES_MAX) {
		l->stats.dropped++;
		return 0;
	}
	if (l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 64;
		if (!(ne = realloc(l->e, cap * sizeof(*ne)))) {
			*err = -ENOMEM;
			return 0;
		}
		l->e = ne;
		l->cap = cap;
	}
	if (!(e.package = strdup(f[3]))) {
		*err = -ENOMEM;
		return 0;
	}
	l->e[l->n++] = e;
	l->stats.entries++;
	return 1;
}

int
processes_log_load_stream(FILE *fp, const char *name,
			  struct processes_log **out)
{
	struct processes_log *l;
	char line[PROCESSES_LOG_LINE_MAX + 1];
	size_t len;
	int c, r = 0, bad;

	*out = NULL;
	if (!(l = calloc(1, sizeof(*l))))
		return -ENOMEM;
	for (;;) {
		/* A line by hand: fgets cannot tell a NUL inside it. */
		len = 0;
		bad = 0;
		while ((c = getc(fp)) != EOF && c != '\n') {
			if (c == '\0' || len >= PROCESSES_LOG_LINE_MAX)
				bad = 1;
			else
				line[len++] = (char)c;
		}
		if (c == EOF && len == 0 && !bad)
			break;
		l->stats.lines++;
		line[len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (bad || parse_line(l, line, &r) < 0)
			l->stats.malformed++;
		if (r < 0)
			goto out;
		if (c == EOF)
			break;
	}
	if (ferror(fp)) {
		r = -EIO;
		goto out;
	}
	if (l->stats.malformed > 0)
		log_warnx("cannot parse %llu lines of '%s': skipped",
			  (unsigned long long)l->stats.malformed, name);
	*out = l;
	l = NULL;
out:
	processes_log_free(l);
	return r;
}

int
processes_log_load(const char *path, struct processes_log **out)
{
	FILE *fp;
	int r;

	*out = NULL;
	if (!(fp = fopen(path, "re")))
		return -errno;
	r = processes_log_load_stream(fp, path, out);
	fclose(fp);
	return r;
}

int
processes_log_find(const struct processes_log *l, int64_t t_ns, int32_t pid,
		   int64_t uid, const char **package)
{
	const struct entry *before = NULL, *after = NULL, *e;
	size_t i;

	*package = NULL;
	for (i = 0; i < l->n; i++) {
		e = &l->e[i];
		if (e->pid != pid || (uid >= 0 && e->uid != uid))
			continue;
		if (e->t_ns <= t_ns) {
			if (!before || e->t_ns >= before->t_ns)
				before = e;
		} else if (!after || e->t_ns < after->t_ns) {
			after = e;
		}
	}
	if (!before)
		before = after;
	if (!before)
		return -ENOENT;
	*package = before->package;
	return 0;
}

void
processes_log_get_stats(const struct processes_log *l,
			struct processes_log_stats *st)
{
	*st = l->stats;
}
