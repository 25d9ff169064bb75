/*
 * The timeline is one array of switches sorted by time, searched by
 * bisection.  Switches come in time order from every source: the live
 * tracker's late ones (a dumpsys answer applied at the time it was asked)
 * are moved into place, and a log ends at its first line that goes back.
 */
#include "foreground.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "parse.h"

struct fg_entry {
	int64_t t_ns;
	char *package;
	char *activity; /* NULL when unknown */
	int32_t pid;
};

struct foreground {
	struct fg_entry *entries;
	size_t n;
	size_t cap;
	int64_t max_t_ns;    /* the latest switch added, to count late ones */
	int64_t complete_ns; /* no switch up to it is still to come */
	struct foreground_stats stats;
	int have_jump;
	struct foreground_jump jump;
};

int
foreground_valid_package(const char *s)
{
	size_t i;

	if (!s || !*s)
		return 0;
	for (i = 0; s[i]; i++) {
		char ch = s[i];

		if (i >= FOREGROUND_PACKAGE_MAX)
			return 0;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
		      ch == ':' || ch == '-'))
			return 0;
	}
	return 1;
}

int
foreground_valid_activity(const char *s)
{
	size_t i;

	if (!s || !*s)
		return 0;
	for (i = 0; s[i]; i++) {
		char ch = s[i];

		if (i >= FOREGROUND_ACTIVITY_MAX)
			return 0;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
		      ch == '$'))
			return 0;
	}
	return 1;
}

int
foreground_new(struct foreground **out)
{
	struct foreground *fg;

	fg = calloc(1, sizeof(*fg));
	if (!fg)
		return -ENOMEM;
	fg->complete_ns = INT64_MIN;
	*out = fg;
	return 0;
}

int64_t
foreground_complete(const struct foreground *fg)
{
	return fg->complete_ns;
}

void
foreground_set_complete(struct foreground *fg, int64_t t_ns)
{
	if (t_ns > fg->complete_ns)
		fg->complete_ns = t_ns;
}

void
foreground_free(struct foreground *fg)
{
	size_t i;

	if (!fg)
		return;
	for (i = 0; i < fg->n; i++) {
		free(fg->entries[i].package);
		free(fg->entries[i].activity);
	}
	free(fg->entries);
	free(fg);
}

/* The number of switches at or before t_ns. */
static size_t
upper_bound(const struct foreground *fg, int64_t t_ns)
{
	size_t lo = 0, hi = fg->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (fg->entries[mid].t_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A copy of activity with a leading '.' expanded to the package, as
 * Android abbreviates "com.foo/com.foo.Main" to "com.foo/.Main", so that
 * both spellings are one activity.  NULL stays NULL; *out NULL on -ENOMEM.
 */
static int
copy_activity(const char *package, const char *activity, char **out)
{
	size_t np, na;
	char *s;

	*out = NULL;
	if (!activity)
		return 0;
	np = activity[0] == '.' ? strlen(package) : 0;
	na = strlen(activity);
	s = malloc(np + na + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s, package, np);
	memcpy(s + np, activity, na + 1);
	*out = s;
	return 0;
}

/* Stores a switch, validated by the caller; a late one where it belongs. */
static int
add_entry(struct foreground *fg, int64_t t_ns, int32_t pid, const char *package,
	  const char *activity)
{
	struct fg_entry *e;
	char *copy, *act;
	size_t pos;

	if (fg->n >= FOREGROUND_ENTRIES_MAX) {
		fg->stats.dropped++;
		return -ENOSPC;
	}
	if (fg->n == fg->cap) {
		size_t cap = fg->cap ? fg->cap * 2 : 16;

		e = realloc(fg->entries, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		fg->entries = e;
		fg->cap = cap;
	}
	copy = strdup(package);
	if (!copy)
		return -ENOMEM;
	if (copy_activity(package, activity, &act) < 0) {
		free(copy);
		return -ENOMEM;
	}
	pos = fg->n;
	if (fg->n > 0 && fg->max_t_ns > t_ns) {
		fg->stats.reordered++;
		pos = upper_bound(fg, t_ns);
		memmove(fg->entries + pos + 1, fg->entries + pos,
			(fg->n - pos) * sizeof(*fg->entries));
	}
	e = &fg->entries[pos];
	e->t_ns = t_ns;
	e->pid = pid;
	e->package = copy;
	e->activity = act;
	if (fg->n == 0 || t_ns > fg->max_t_ns)
		fg->max_t_ns = t_ns;
	fg->n++;
	return 0;
}

int
foreground_add(struct foreground *fg, int64_t t_ns, int32_t pid,
	       const char *package)
{
	return foreground_add_activity(fg, t_ns, pid, package, NULL);
}

int
foreground_add_activity(struct foreground *fg, int64_t t_ns, int32_t pid,
			const char *package, const char *activity)
{
	if (t_ns < 0 || pid < 0 || pid > FOREGROUND_PID_MAX ||
	    !foreground_valid_package(package) ||
	    (activity && !foreground_valid_activity(activity)))
		return -EINVAL;
	return add_entry(fg, t_ns, pid, package, activity);
}

int
foreground_new_static(const char *package, struct foreground **out)
{
	struct foreground *fg = NULL;
	int r;

	if (!foreground_valid_package(package)) {
		log_warnx("cannot use foreground app '%s': not a package name",
			  package ? package : "");
		return -EINVAL;
	}
	if ((r = foreground_new(&fg)) < 0)
		goto out;
	/* In force since the beginning of time, so every lookup finds it. */
	if ((r = add_entry(fg, INT64_MIN, 0, package, NULL)) < 0)
		goto out;
	fg->complete_ns = INT64_MAX;
	*out = fg;
	fg = NULL;
out:
	foreground_free(fg);
	return r;
}

int
foreground_at(const struct foreground *fg, int64_t t_ns, int32_t *pid,
	      const char **package)
{
	size_t i = upper_bound(fg, t_ns);

	if (i == 0)
		return -ENOENT;
	if (pid)
		*pid = fg->entries[i - 1].pid;
	if (package)
		*package = fg->entries[i - 1].package;
	return 0;
}

static void
fill_switch(const struct fg_entry *e, struct foreground_switch *sw)
{
	sw->t_ns = e->t_ns;
	sw->pid = e->pid;
	sw->package = e->package;
	sw->activity = e->activity;
}

int
foreground_switch_at(const struct foreground *fg, int64_t t_ns,
		     struct foreground_switch *sw)
{
	size_t i = upper_bound(fg, t_ns);

	if (i == 0)
		return -ENOENT;
	fill_switch(&fg->entries[i - 1], sw);
	return 0;
}

int
foreground_find_change(const struct foreground *fg, int64_t from_ns,
		       int64_t until_ns, struct foreground_switch *sw)
{
	size_t i = upper_bound(fg, from_ns);
	const struct fg_entry *base, *e;

	if (i == 0)
		return -ENOENT;
	base = &fg->entries[i - 1];
	for (; i < fg->n && fg->entries[i].t_ns < until_ns; i++) {
		e = &fg->entries[i];
		/* Of switches at one time the last is in force there. */
		if (i + 1 < fg->n && fg->entries[i + 1].t_ns == e->t_ns)
			continue;
		if (strcmp(e->package, base->package) != 0 ||
		    (e->activity && base->activity &&
		     strcmp(e->activity, base->activity) != 0)) {
			fill_switch(e, sw);
			return 1;
		}
	}
	return 0;
}

void
foreground_prune(struct foreground *fg, int64_t before_ns)
{
	size_t i = upper_bound(fg, before_ns), k;

	/* Keep entries[i - 1]: it is in force at before_ns. */
	if (i <= 1)
		return;
	for (k = 0; k < i - 1; k++) {
		free(fg->entries[k].package);
		free(fg->entries[k].activity);
	}
	memmove(fg->entries, fg->entries + (i - 1),
		(fg->n - (i - 1)) * sizeof(*fg->entries));
	fg->n -= i - 1;
}

void
foreground_get_stats(const struct foreground *fg, struct foreground_stats *st)
{
	*st = fg->stats;
	st->entries = fg->n;
}

int
foreground_get_jump(const struct foreground *fg, struct foreground_jump *j)
{
	if (!fg->have_jump)
		return -ENOENT;
	*j = fg->jump;
	return 0;
}

/*
 * Reads one line into buf without its newline.  Returns 1 for a line, 0
 * at the end of the stream, or -EIO.  A line too long for buf is read to
 * its end and flagged, as is one holding a NUL byte, so that neither can
 * pass for a shorter valid line.
 */
static int
read_line(FILE *fp, char *buf, size_t size, int *bad)
{
	size_t len = 0;
	int ch, any = 0;

	*bad = 0;
	while ((ch = getc(fp)) != EOF) {
		any = 1;
		if (ch == '\n')
			break;
		if (ch == '\0' || len + 1 >= size) {
			*bad = 1;
			continue;
		}
		buf[len++] = (char)ch;
	}
	if (ferror(fp))
		return -EIO;
	buf[len] = '\0';
	return any;
}

/*
 * Parses "<monotonic_ns> <pid> <package> [activity]" from line, which it
 * cuts up.  Returns 1 for a switch, 0 for a blank or comment line, or
 * -EINVAL with *why set.
 */
static int
parse_line(char *line, int64_t *t_ns, int32_t *pid, char **package,
	   char **activity, const char **why)
{
	static const char blanks[] = " \t\r\v\f";
	char *field[4], *p = line;
	int64_t v;
	int n = 0;

	p += strspn(p, blanks);
	if (*p == '\0' || *p == '#')
		return 0;
	while (*p != '\0') {
		if (n == 4) {
			*why = "more than four fields";
			return -EINVAL;
		}
		field[n++] = p;
		p += strcspn(p, blanks);
		if (*p != '\0')
			*p++ = '\0';
		p += strspn(p, blanks);
	}
	if (n < 3) {
		*why = "fewer than three fields";
		return -EINVAL;
	}
	if (parse_int64(field[0], 0, INT64_MAX, &v) < 0) {
		*why = "bad time";
		return -EINVAL;
	}
	*t_ns = v;
	if (parse_int64(field[1], 0, FOREGROUND_PID_MAX, &v) < 0) {
		*why = "bad pid";
		return -EINVAL;
	}
	*pid = (int32_t)v;
	if (!foreground_valid_package(field[2])) {
		*why = "bad package name";
		return -EINVAL;
	}
	*package = field[2];
	*activity = NULL;
	if (n == 4) {
		if (!foreground_valid_activity(field[3])) {
			*why = "bad activity name";
			return -EINVAL;
		}
		*activity = field[3];
	}
	return 1;
}

/* Seconds and microseconds, as the getevent reader writes its jumps. */
#define STAMP(ns)                                                              \
	(long long)((ns) / 1000000000), (long)((ns) % 1000000000 / 1000)

/*
 * A line earlier than the switches before it ends the log: the rest is
 * from another recording, or out of order, and cannot be trusted.
 */
static void
log_jump(struct foreground *fg, const char *name, unsigned long lineno,
	 int64_t t_ns)
{
	int64_t back = fg->max_t_ns - t_ns;

	fg->have_jump = 1;
	fg->jump.line = lineno;
	fg->jump.from_ns = fg->max_t_ns;
	fg->jump.to_ns = t_ns;
	log_error("'%s' line %lu: time goes back %lld.%06ld s (from "
		  "%lld.%06ld to %lld.%06ld); the rest of the log is not "
		  "used, and the replay stops at %lld.%06ld",
		  name, lineno, STAMP(back), STAMP(fg->max_t_ns), STAMP(t_ns),
		  STAMP(fg->max_t_ns));
}

int
foreground_load_stream(FILE *fp, const char *name, struct foreground **out)
{
	struct foreground *fg = NULL;
	char line[FOREGROUND_LINE_MAX];
	const char *why = NULL;
	unsigned long lineno = 0;
	char *package, *activity = NULL;
	int64_t t_ns;
	int32_t pid;
	int r, bad;

	if ((r = foreground_new(&fg)) < 0)
		goto out;
	while ((r = read_line(fp, line, sizeof(line), &bad)) > 0) {
		lineno++;
		fg->stats.lines++;
		if (bad) {
			why = "line too long or holding a NUL byte";
			r = -EINVAL;
		} else {
			r = parse_line(line, &t_ns, &pid, &package, &activity,
				       &why);
		}
		if (r == 0)
			continue;
		if (r < 0) {
			fg->stats.malformed++;
			log_debug("cannot parse '%s': line %lu: %s", name,
				  lineno, why);
			continue;
		}
		if (fg->n > 0 && t_ns < fg->max_t_ns) {
			log_jump(fg, name, lineno, t_ns);
			r = 0;
			break;
		}
		/* Past the cap the rest is counted, not kept. */
		r = add_entry(fg, t_ns, pid, package, activity);
		if (r < 0 && r != -ENOSPC)
			goto out;
	}
	if (r < 0) {
		log_warnx("cannot read '%s': line %lu: %s", name, lineno + 1,
			  strerror(-r));
		goto out;
	}
	if (fg->stats.malformed > 0)
		log_warnx("cannot parse %llu lines of '%s': skipped",
			  (unsigned long long)fg->stats.malformed, name);
	if (fg->stats.dropped > 0)
		log_warnx("cannot keep %llu switches of '%s': over %d",
			  (unsigned long long)fg->stats.dropped, name,
			  FOREGROUND_ENTRIES_MAX);
	fg->complete_ns = INT64_MAX;
	*out = fg;
	fg = NULL;
	r = 0;
out:
	foreground_free(fg);
	return r;
}

int
foreground_load_log(const char *path, struct foreground **out)
{
	FILE *fp;
	int r;

	/* A replay without its foreground log ends: an error. */
	fp = fopen(path, "re");
	if (!fp) {
		r = -errno;
		log_error("cannot open '%s': %s", path, strerror(-r));
		return r;
	}
	r = foreground_load_stream(fp, path, out);
	fclose(fp);
	return r;
}

int
foreground_open(const char *spec, struct foreground **out)
{
	if (strncmp(spec, "log:", 4) == 0 && spec[4] != '\0')
		return foreground_load_log(spec + 4, out);
	if (strncmp(spec, "app:", 4) == 0)
		return foreground_new_static(spec + 4, out);
	log_warnx("cannot use foreground source '%s': expected log:FILE or "
		  "app:PACKAGE",
		  spec);
	return -EINVAL;
}
