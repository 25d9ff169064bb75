#include "foreground_window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Longer lines are cut there (and counted): focus lines are short. */
#define WINDOW_LINE_MAX 1024

/* The output of one dumpsys, parsed a line at a time as it arrives. */
struct foreground_window {
	struct foreground_window_focus *focus;
	char line[WINDOW_LINE_MAX];
	size_t len;
	int cut;
};

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int
is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * A Java package name: dot-separated non-empty parts of [A-Za-z0-9_], at
 * least two, starting with a letter.  Stricter than the timeline's rule,
 * since here it has to tell apps from daemons such as "surfaceflinger".
 */
int
foreground_window_package_ok(const char *s, size_t n)
{
	size_t i;
	int dots = 0;

	if (n == 0 || n > FOREGROUND_PACKAGE_MAX || !is_alpha(s[0]))
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (s[i - 1] == '.' || i + 1 == n)
				return 0;
			dots++;
		} else if (!is_alpha(s[i]) && !is_digit(s[i]) && s[i] != '_') {
			return 0;
		}
	}
	return dots > 0;
}

/*
 * Finds key in line where it starts a word, so that "mFocusedApp=" does
 * not match inside a longer name.
 */
static const char *
find_key(const char *line, const char *key)
{
	const char *p = line;
	char c;

	while ((p = strstr(p, key)) != NULL) {
		if (p == line)
			return p;
		c = p[-1];
		if (!is_alpha(c) && !is_digit(c) && c != '_')
			return p;
		p++;
	}
	return NULL;
}

static const char *
last_strstr(const char *s, const char *needle)
{
	const char *p, *last = NULL;

	for (p = strstr(s, needle); p; p = strstr(p + 1, needle))
		last = p;
	return last;
}

int
foreground_window_focus_package(const char *value, char *pkg, size_t size)
{
	const char *p, *end, *w, *we, *slash = NULL, *last = NULL;
	size_t wlen, slen = 0, llen = 0, n;
	const char *name;
	int idx = 0, hex;

	if (!value || !pkg || size == 0)
		return 0;
	pkg[0] = '\0';
	while (*value == ' ' || *value == '\t')
		value++;
	if (strncmp(value, "null", 4) == 0 &&
	    (value[4] == '\0' || is_space(value[4])))
		return 0;
	/*
	 * Android 9 wraps the record: AppWindowToken{... token=Token{...
	 * ActivityRecord{hash u0 pkg/.Act t14}}}, so the innermost record
	 * is the one to read.
	 */
	if ((p = last_strstr(value, "ActivityRecord{")) != NULL)
		p += strlen("ActivityRecord{");
	else if ((p = strstr(value, "Window{")) != NULL)
		p += strlen("Window{");
	else if ((p = strchr(value, '{')) != NULL)
		p++;
	else
		return 0;
	end = strchr(p, '}');
	if (!end)
		end = p + strlen(p); /* a cut line: read what is there */
	/*
	 * Words: an identity hash, "u<user>" (Android 4.2+), then the title:
	 * "pkg/Activity" for an activity, "Splash Screen pkg" for a starting
	 * window, "NotificationShade" or "PopupWindow:1a2b" for others, and
	 * " EXITING" while it goes away.
	 */
	for (w = p; w < end; w = we, idx++) {
		while (w < end && (*w == ' ' || *w == '\t'))
			w++;
		if (w >= end)
			break;
		for (we = w; we < end && *we != ' ' && *we != '\t'; we++)
			;
		wlen = (size_t)(we - w);
		if (idx == 0) {
			for (n = 0, hex = 1; n < wlen; n++)
				hex &= is_hex(w[n]);
			if (hex)
				continue;
		}
		if (idx <= 1 && wlen >= 2 && w[0] == 'u') {
			for (n = 1; n < wlen && is_digit(w[n]); n++)
				;
			if (n == wlen)
				continue;
		}
		if (wlen == 7 && memcmp(w, "EXITING", 7) == 0)
			continue;
		if (!slash && memchr(w, '/', wlen)) {
			slash = w;
			slen = (size_t)((const char *)memchr(w, '/', wlen) - w);
		}
		last = w;
		llen = wlen;
	}
	if (slash) {
		name = slash;
		n = slen;
	} else if (last) {
		name = last;
		n = llen;
	} else {
		return 0;
	}
	if (!foreground_window_package_ok(name, n) || n >= size)
		return 0;
	memcpy(pkg, name, n);
	pkg[n] = '\0';
	return 1;
}

int
foreground_window_focus_activity(const char *value, const char *pkg, char *act,
				 size_t size)
{
	size_t np, n = 0;
	const char *p;

	if (!value || !pkg || !act || size == 0)
		return 0;
	act[0] = '\0';
	np = strlen(pkg);
	for (p = strstr(value, pkg); p; p = strstr(p + 1, pkg)) {
		/* The package as a whole word, then its '/'. */
		if ((p > value && !is_space(p[-1]) && p[-1] != '{') ||
		    p[np] != '/')
			continue;
		p += np + 1;
		while ((is_alpha(p[n]) || is_digit(p[n]) || p[n] == '.' ||
			p[n] == '_' || p[n] == '$') &&
		       n < FOREGROUND_ACTIVITY_MAX)
			n++;
		if (n == 0 || n >= size)
			return 0;
		memcpy(act, p, n);
		act[n] = '\0';
		return 1;
	}
	return 0;
}

static void
focus_add(char list[][FOREGROUND_PACKAGE_MAX + 1],
	  char acts[][FOREGROUND_ACTIVITY_MAX + 1], size_t *n, const char *pkg,
	  const char *value)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(list[i], pkg) == 0)
			return;
	if (*n >= FOREGROUND_WINDOW_FOCUS_MAX)
		return;
	memcpy(list[*n], pkg, strlen(pkg) + 1);
	foreground_window_focus_activity(value, pkg, acts[*n],
					 FOREGROUND_ACTIVITY_MAX + 1);
	(*n)++;
}

static void
parse_line(struct foreground_window_focus *f, const char *line, int cut)
{
	static const char *const keys[] = {"mCurrentFocus=", "mFocusedApp="};
	char pkg[FOREGROUND_PACKAGE_MAX + 1];
	const char *p;
	size_t k;

	f->lines++;
	if (cut)
		f->long_lines++;
	for (k = 0; k < 2; k++) {
		p = find_key(line, keys[k]);
		if (!p)
			continue;
		f->focus_lines++;
		if (!foreground_window_focus_package(p + strlen(keys[k]), pkg,
						     sizeof(pkg))) {
			f->unnamed++;
			continue;
		}
		if (k == 0)
			focus_add(f->current, f->current_activity,
				  &f->n_current, pkg, p + strlen(keys[k]));
		else
			focus_add(f->app, f->app_activity, &f->n_app, pkg,
				  p + strlen(keys[k]));
	}
}

int
foreground_window_new(struct foreground_window **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void
foreground_window_free(struct foreground_window *w)
{
	free(w);
}

void
foreground_window_begin(struct foreground_window *w,
			struct foreground_window_focus *focus)
{
	memset(focus, 0, sizeof(*focus));
	w->focus = focus;
	w->len = 0;
	w->cut = 0;
}

static void
flush_line(struct foreground_window *w)
{
	w->line[w->len] = '\0';
	parse_line(w->focus, w->line, w->cut);
	w->len = 0;
	w->cut = 0;
}

void
foreground_window_feed(struct foreground_window *w, const char *buf, size_t len)
{
	size_t i;
	char c;

	for (i = 0; i < len; i++) {
		c = buf[i];
		if (c == '\n') {
			flush_line(w);
			continue;
		}
		/* A NUL would hide the rest of the line from strstr(). */
		if (c == '\0')
			c = ' ';
		if (w->len < sizeof(w->line) - 1)
			w->line[w->len++] = c;
		else
			w->cut = 1;
	}
}

void
foreground_window_end(struct foreground_window *w)
{
	if (w->len > 0 || w->cut)
		flush_line(w);
}

void
foreground_window_parse(const char *buf, size_t len,
			struct foreground_window_focus *focus)
{
	struct foreground_window w;

	foreground_window_begin(&w, focus);
	if (buf)
		foreground_window_feed(&w, buf, len);
	foreground_window_end(&w);
}
