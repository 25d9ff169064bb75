#include "winlist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "winlist_field.h"

#define AID_MAX	       INT64_C(4294967295)
#define PID_MAX	       INT64_C(2147483647)
#define TYPE_WALLPAPER 2013

/* A display and the windows of it, top first. */
struct display {
	struct winlist_display pub;
	struct winlist_window *w;
	size_t cap;
};

struct winlist {
	struct display disp[WINLIST_DISPLAYS_MAX];
	size_t n_disp;
	size_t n_windows; /* over all displays */
	struct winlist_viewport vp[WINLIST_VIEWPORTS_MAX];
	size_t n_vp;
	struct winlist_stats stats;

	/*
	 * The line being read, cut at WINLIST_LINE_MAX bytes: allocated by
	 * the first feed and freed at the end of the output, so that a
	 * parsed list kept for later (windows_log.h) holds no buffer.
	 */
	char *line;
	size_t len;
	int cut;

	/*
	 * Where the parse is: in the dispatcher's current state (not the
	 * copy of the last ANR), under which "Display: N", and under a
	 * "Windows:" header of which indent (-1: none).
	 */
	int in_dispatcher;
	int anr;
	int has_display;
	int32_t display_id;
	int windows_indent;
};

/* Keys AOSP prints after applicationInfo.token, taken at their last
 * appearance; every other one is taken at its first. */
static const char *const late_keys[] = {
	"touchableRegion",    "inputFeatures",	    "ownerPid", "ownerUid",
	"dispatchingTimeout", "trustedOverlay",	    "hasToken", "token",
	"touchOcclusionMode", "displayOrientation", NULL,
};

/* Every key AOSP prints in a window line, from Android 9 to 15. */
static const char *const known_keys[] = {
	"id",
	"displayId",
	"portalToDisplayId",
	"paused",
	"hasFocus",
	"hasWallpaper",
	"visible",
	"canReceiveKeys",
	"focusable",
	"alpha",
	"flags",
	"type",
	"layer",
	"frame",
	"scale",
	"globalScale",
	"windowScale",
	"inputConfig",
	"applicationInfo.name",
	"applicationInfo.token",
	"touchableRegion",
	"inputFeatures",
	"ownerPid",
	"ownerUid",
	"dispatchingTimeout",
	"trustedOverlay",
	"hasToken",
	"token",
	"touchOcclusionMode",
	"displayOrientation",
	NULL,
};

static void
clear(struct winlist *wl)
{
	size_t i, j;

	for (i = 0; i < wl->n_disp; i++) {
		for (j = 0; j < wl->disp[i].pub.n_windows; j++)
			free((void *)(uintptr_t)wl->disp[i].w[j].touchable);
		free(wl->disp[i].w);
	}
	memset(wl->disp, 0, sizeof(wl->disp));
	wl->n_disp = 0;
	wl->n_windows = 0;
	wl->n_vp = 0;
	memset(&wl->stats, 0, sizeof(wl->stats));
	free(wl->line);
	wl->line = NULL;
	wl->len = 0;
	wl->cut = 0;
	wl->in_dispatcher = 0;
	wl->anr = 0;
	wl->has_display = 0;
	wl->display_id = 0;
	wl->windows_indent = -1;
}

int
winlist_new(struct winlist **out)
{
	struct winlist *wl;

	*out = NULL;
	if (!(wl = calloc(1, sizeof(*wl))))
		return -ENOMEM;
	wl->windows_indent = -1;
	*out = wl;
	return 0;
}

void
winlist_free(struct winlist *wl)
{
	if (!wl)
		return;
	clear(wl);
	free(wl);
}

void
winlist_begin(struct winlist *wl)
{
	clear(wl);
}

/* The display with that id, made when new; NULL past the limit. */
static struct display *
display_get(struct winlist *wl, int32_t id)
{
	size_t i;

	for (i = 0; i < wl->n_disp; i++)
		if (wl->disp[i].pub.id == id)
			return &wl->disp[i];
	if (wl->n_disp >= WINLIST_DISPLAYS_MAX) {
		wl->stats.dropped++;
		return NULL;
	}
	wl->disp[wl->n_disp].pub.id = id;
	return &wl->disp[wl->n_disp++];
}

/*
 * Where ", key=" starts in [from, to), its first appearance or its last;
 * returns the value after '=' or NULL.
 */
static const char *
find_key(const char *from, const char *to, const char *key, int last)
{
	const char *p = from, *hit = NULL;
	size_t n = strlen(key);

	while ((p = strstr(p, ", ")) != NULL && p < to) {
		if (strncmp(p + 2, key, n) == 0 && p[2 + n] == '=') {
			hit = p + 3 + n;
			if (!last)
				break;
		}
		p += 2;
	}
	return hit;
}

static int
is_late(const char *key)
{
	size_t i;

	for (i = 0; late_keys[i]; i++)
		if (strcmp(late_keys[i], key) == 0)
			return 1;
	return 0;
}

/* A window line's fields, in the order of the checks. */
struct line_keys {
	const char *rest, *end; /* after the name, and the line's end */
	const char *app_name;	/* ", applicationInfo.name=", or end */
};

static const char *
key(const struct line_keys *k, const char *name)
{
	if (is_late(name))
		return find_key(k->rest, k->end, name, 1);
	return find_key(k->rest, k->app_name, name, 0);
}

/*
 * Counts the keys of [from, to) that AOSP never prints: the vendors'
 * (samsungFlags=, miuiFlags=, ...).
 */
static void
count_vendor_keys(struct winlist *wl, const char *from, const char *to)
{
	const char *p = from, *q;
	size_t i, n;

	while ((p = strstr(p, ", ")) != NULL && p < to) {
		p += 2;
		for (q = p;
		     (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		     (*q >= '0' && *q <= '9') || *q == '_' || *q == '.';
		     q++)
			;
		if (q == p || *q != '=')
			continue;
		n = (size_t)(q - p);
		for (i = 0; known_keys[i]; i++)
			if (strlen(known_keys[i]) == n &&
			    memcmp(known_keys[i], p, n) == 0)
				break;
		if (!known_keys[i])
			wl->stats.vendor_fields++;
	}
}

/*
 * The name at s (just after "name="): quoted up to "', id=" or
 * "', displayId=" (a quote inside the name then does no harm), unquoted
 * up to ", id=" and a number.  Returns where the fields start, or NULL.
 */
static const char *
read_name(const char *s, struct winlist_window *w)
{
	const char *end = NULL, *q, *rest;
	size_t n;

	if (*s == '\'') {
		s++;
		end = strstr(s, "', id=");
		q = strstr(s, "', displayId=");
		if (!end || (q && q < end))
			end = q;
		if (!end)
			end = strchr(s, '\'');
		if (!end)
			return NULL;
		rest = end + 1;
	} else {
		for (q = s; (q = strstr(q, ", id=")) != NULL; q += 5)
			if ((q[5] >= '0' && q[5] <= '9') || q[5] == '-')
				break;
		if (!q)
			return NULL;
		end = q;
		rest = q;
	}
	n = (size_t)(end - s);
	if (n > WINLIST_NAME_MAX)
		n = WINLIST_NAME_MAX;
	memcpy(w->name, s, n);
	w->name[n] = '\0';
	return rest;
}

static enum winlist_format
format_of(const struct line_keys *k, int quoted)
{
	const char *v;

	if (!quoted)
		return WINLIST_FORMAT_14_QPR;
	if (key(k, "inputConfig")) {
		v = key(k, "hasToken");
		if (v &&
		    (strncmp(v, "true", 4) == 0 || strncmp(v, "false", 5) == 0))
			return WINLIST_FORMAT_13;
		return WINLIST_FORMAT_14;
	}
	if (key(k, "focusable") || key(k, "trustedOverlay"))
		return WINLIST_FORMAT_12;
	if (key(k, "layer"))
		return key(k, "windowScale") ? WINLIST_FORMAT_10
					     : WINLIST_FORMAT_9;
	if (key(k, "portalToDisplayId"))
		return WINLIST_FORMAT_11;
	return WINLIST_FORMAT_UNKNOWN;
}

/* A true/false field of Android 9 to 12 that sets bit when it is want. */
static void
bool_bit(const struct line_keys *k, const char *name, int want, uint32_t bit,
	 struct winlist_window *w)
{
	const char *v = key(k, name);
	int b;

	if (v && winlist_field_bool(v, &b) && b == want)
		w->config |= bit;
}

/*
 * The flags of Android 9 to 12 in InputConfig's terms: the layout flags
 * (hex, or names on 12), visible=, paused=, hasWallpaper=, focusable=,
 * trustedOverlay=, the input features and the type.
 */
static void
old_flags(const struct line_keys *k, struct winlist_window *w)
{
	uint32_t lp = 0, feat = 0;
	const char *v;
	int64_t t;

	if ((v = key(k, "flags"))) {
		if (strncmp(v, "0x", 2) == 0 && w->format != WINLIST_FORMAT_12)
			winlist_field_hex(v, &lp);
		else
			winlist_field_flags(v, WINLIST_FIELD_LAYOUT, &lp,
					    &w->vendor_flags);
		w->fields |= WINLIST_HAS_FLAGS;
		w->layout_flags = lp;
	}
	if ((v = key(k, "inputFeatures"))) {
		if (w->format == WINLIST_FORMAT_12)
			winlist_field_flags(v, WINLIST_FIELD_FEATURES, &feat,
					    &w->vendor_flags);
		else
			winlist_field_hex(v, &feat);
	}
	if ((v = key(k, "type"))) {
		uint32_t hex;

		if (winlist_field_hex(v, &hex) && hex <= INT32_MAX)
			w->type = (int32_t)hex;
		else if (winlist_field_int(v, 0, INT32_MAX, &t))
			w->type = (int32_t)t;
	}
	if (lp & WINLIST_LP_NOT_FOCUSABLE)
		w->config |= WINLIST_NOT_FOCUSABLE;
	if (lp & WINLIST_LP_NOT_TOUCHABLE)
		w->config |= WINLIST_NOT_TOUCHABLE;
	if (lp & WINLIST_LP_WATCH_OUTSIDE_TOUCH)
		w->config |= WINLIST_WATCH_OUTSIDE_TOUCH;
	if (lp & WINLIST_LP_SLIPPERY)
		w->config |= WINLIST_SLIPPERY;
	if (feat & 0x2u)
		w->config |= WINLIST_NO_INPUT_CHANNEL;
	if (feat & 0x4u)
		w->config |= WINLIST_DISABLE_USER_ACTIVITY;
	if (feat & 0x8u)
		w->config |= WINLIST_DROP_INPUT;
	if (feat & 0x10u)
		w->config |= WINLIST_DROP_INPUT_IF_OBSCURED;
	if (w->type == TYPE_WALLPAPER)
		w->config |= WINLIST_IS_WALLPAPER;
	if (key(k, "visible"))
		w->fields |= WINLIST_HAS_VISIBLE;
	bool_bit(k, "visible", 0, WINLIST_NOT_VISIBLE, w);
	bool_bit(k, "focusable", 0, WINLIST_NOT_FOCUSABLE, w);
	bool_bit(k, "paused", 1, WINLIST_PAUSE_DISPATCHING, w);
	bool_bit(k, "hasWallpaper", 1, WINLIST_DUPLICATE_TOUCH_TO_WALLPAPER, w);
	bool_bit(k, "trustedOverlay", 1, WINLIST_TRUSTED_OVERLAY, w);
	if ((w->fields & WINLIST_HAS_FLAGS) &&
	    !(lp & (WINLIST_LP_NOT_FOCUSABLE | WINLIST_LP_NOT_TOUCH_MODAL)))
		w->config |= WINLIST_TOUCH_MODAL;
}

/* Reads the touchable region at v into a new array of w. */
static int
read_region(const char *v, struct winlist_window *w)
{
	struct winlist_rect *rects;
	size_t n = 0;

	rects = malloc(WINLIST_RECTS_MAX * sizeof(*rects));
	if (!rects)
		return -ENOMEM;
	if (!winlist_field_region(v, rects, WINLIST_RECTS_MAX, &n,
				  &w->touchable_cut)) {
		free(rects);
		return 0;
	}
	w->fields |= WINLIST_HAS_TOUCHABLE;
	if (n == 0) {
		free(rects);
		return 0;
	}
	/* Most regions are one rectangle: keep no more than they hold. */
	if (n < WINLIST_RECTS_MAX) {
		struct winlist_rect *fit = realloc(rects, n * sizeof(*rects));

		if (fit)
			rects = fit;
	}
	w->touchable = rects;
	w->n_touchable = n;
	return 0;
}

static int
add_window(struct winlist *wl, struct winlist_window *w)
{
	struct display *d;
	struct winlist_window *nw;
	size_t cap;

	if (wl->n_windows >= WINLIST_WINDOWS_MAX ||
	    !(d = display_get(wl, w->display_id))) {
		if (wl->n_windows >= WINLIST_WINDOWS_MAX)
			wl->stats.dropped++;
		return -ENOSPC;
	}
	if (d->pub.n_windows == d->cap) {
		cap = d->cap ? d->cap * 2 : 16;
		if (!(nw = realloc(d->w, cap * sizeof(*nw))))
			return -ENOMEM;
		d->w = nw;
		d->cap = cap;
	}
	d->w[d->pub.n_windows++] = *w;
	wl->n_windows++;
	wl->stats.windows++;
	return 0;
}

/*
 * One window line, s just after "N: ".  A line without a frame is a
 * touched window of a touch state, not one of the list.
 */
static int
parse_window(struct winlist *wl, const char *s)
{
	struct winlist_window w;
	struct line_keys k;
	const char *v;
	int64_t x;
	double a;
	int quoted, r;

	if (strncmp(s, "name=", 5) != 0 || !strstr(s, ", frame=["))
		return 0;
	memset(&w, 0, sizeof(w));
	w.id = WINLIST_ID_NONE;
	w.type = WINLIST_TYPE_NONE;
	w.owner_pid = WINLIST_OWNER_NONE;
	w.owner_uid = WINLIST_OWNER_NONE;
	w.alpha = 1;
	w.display_id = wl->has_display ? wl->display_id : 0;
	s += 5;
	quoted = *s == '\'';
	if (!(k.rest = read_name(s, &w))) {
		wl->stats.bad_windows++;
		return 0;
	}
	k.end = k.rest + strlen(k.rest);
	k.app_name = find_key(k.rest, k.end, "applicationInfo.name", 0);
	if (k.app_name) {
		k.app_name -= strlen(", applicationInfo.name=");
		v = find_key(k.app_name, k.end, "applicationInfo.token", 0);
		count_vendor_keys(wl, k.rest, k.app_name);
		count_vendor_keys(wl, v ? v : k.end, k.end);
	} else {
		k.app_name = k.end;
		count_vendor_keys(wl, k.rest, k.end);
	}
	w.format = format_of(&k, quoted);
	if (!(v = key(&k, "frame")) || !winlist_field_rect(v, &w.frame)) {
		wl->stats.bad_windows++;
		return 0;
	}
	w.fields |= WINLIST_HAS_FRAME;
	if ((v = key(&k, "id")) &&
	    winlist_field_int(v, INT64_MIN + 1, INT64_MAX, &x)) {
		w.id = x;
		w.fields |= WINLIST_HAS_ID;
	}
	if ((v = key(&k, "displayId")) &&
	    winlist_field_int(v, INT32_MIN, INT32_MAX, &x)) {
		w.display_id = (int32_t)x;
		w.fields |= WINLIST_HAS_DISPLAY;
	}
	if ((v = key(&k, "alpha")) && winlist_field_double(v, 0, 1e6, &a)) {
		w.alpha = a;
		w.fields |= WINLIST_HAS_ALPHA;
	}
	if ((v = key(&k, "ownerPid")) &&
	    winlist_field_int(v, -1, PID_MAX, &x)) {
		w.owner_pid = (int32_t)x;
		w.fields |= WINLIST_HAS_PID;
	}
	if ((v = key(&k, "ownerUid")) &&
	    winlist_field_int(v, -1, AID_MAX, &x)) {
		w.owner_uid = x;
		w.fields |= WINLIST_HAS_UID;
	}
	if ((v = key(&k, "inputConfig"))) {
		winlist_field_flags(v, WINLIST_FIELD_CONFIG, &w.config,
				    &w.vendor_flags);
		/* tapd's own bit is never Android's. */
		w.config &= ~WINLIST_TOUCH_MODAL;
		w.fields |= WINLIST_HAS_FLAGS;
	} else {
		old_flags(&k, &w);
	}
	if ((v = key(&k, "touchableRegion")) && (r = read_region(v, &w)) < 0)
		return r;
	if ((r = add_window(wl, &w)) < 0) {
		free((void *)(uintptr_t)w.touchable);
		return r == -ENOSPC ? 0 : r;
	}
	return 0;
}

/*
 * A viewport at p, just after "displayId=".  Identical ones (the reader's
 * list and every touch device print the same) are kept once.
 */
static void
parse_viewport(struct winlist *wl, const char *p)
{
	struct winlist_viewport vp;
	size_t i;

	wl->stats.viewports_seen++;
	if (winlist_field_viewport(p, &vp) < 0)
		return;
	for (i = 0; i < wl->n_vp; i++)
		if (memcmp(&wl->vp[i], &vp, sizeof(vp)) == 0)
			return;
	if (wl->n_vp >= WINLIST_VIEWPORTS_MAX) {
		wl->stats.dropped++;
		return;
	}
	wl->vp[wl->n_vp++] = vp;
}

/*
 * Viewport lines: "Viewport INTERNAL: displayId=" (10 and later, also
 * behind a prefix such as "viewport: "), "Viewport: displayId=" (9).
 */
static void
find_viewport(struct winlist *wl, const char *line)
{
	const char *p = line, *q;

	while ((p = strstr(p, "Viewport")) != NULL) {
		q = p + 8;
		if (*q == ' ') {
			q++;
			while (*q >= 'A' && *q <= 'Z')
				q++;
		}
		if (strncmp(q, ": displayId=", 12) == 0) {
			parse_viewport(wl, q + 12);
			return;
		}
		p += 8;
	}
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "N: " at t, a window's index: returns what follows, or NULL. */
static const char *
window_index(const char *t)
{
	int n = 0;

	while (is_digit(*t) && n < 10) {
		t++;
		n++;
	}
	if (n == 0 || t[0] != ':' || t[1] != ' ')
		return NULL;
	return t + 2;
}

static int
process_line(struct winlist *wl, char *line)
{
	const char *t, *s;
	int64_t x;
	int indent = 0;

	wl->stats.lines++;
	/* A \r of a capture that went through Windows is no part of it. */
	if (wl->len > 0 && line[wl->len - 1] == '\r')
		line[--wl->len] = '\0';
	find_viewport(wl, line);
	while (line[indent] == ' ')
		indent++;
	t = line + indent;
	if (!*t)
		return 0;
	if (indent == 0) {
		if (strcmp(t, "Input Dispatcher State:") == 0 && !wl->anr) {
			wl->in_dispatcher = 1;
			wl->stats.dispatcher = 1;
		} else {
			if (strncmp(t,
				    "Input Dispatcher State at time of last "
				    "ANR",
				    42) == 0)
				wl->anr = 1;
			wl->in_dispatcher = 0;
		}
		wl->has_display = 0;
		wl->windows_indent = -1;
		return 0;
	}
	if (!wl->in_dispatcher)
		return 0;
	/*
	 * A line no deeper than "Windows:" ends the list, but for the
	 * transform under each window: Android 15 streams it with a prefix
	 * of 4 blanks, as deep as the header.
	 */
	if (wl->windows_indent >= 0 && indent <= wl->windows_indent &&
	    strncmp(t, "transform (", 11) != 0)
		wl->windows_indent = -1;
	if (strncmp(t, "Display: ", 9) == 0 &&
	    (s = winlist_field_int(t + 9, INT32_MIN, INT32_MAX, &x)) && !*s) {
		wl->has_display = 1;
		wl->display_id = (int32_t)x;
		return 0;
	}
	if (wl->has_display && strncmp(t, "logicalSize=", 12) == 0) {
		struct display *d = display_get(wl, wl->display_id);
		int64_t h;

		if (d && (s = winlist_field_int(t + 12, 0, INT32_MAX, &x)) &&
		    *s == 'x' && winlist_field_int(s + 1, 0, INT32_MAX, &h)) {
			d->pub.logical_width = (int32_t)x;
			d->pub.logical_height = (int32_t)h;
		}
		return 0;
	}
	if (strcmp(t, "Windows:") == 0) {
		wl->windows_indent = indent;
		return 0;
	}
	if (wl->windows_indent >= 0 && (s = window_index(t)))
		return parse_window(wl, s);
	return 0;
}

int
winlist_feed(struct winlist *wl, const char *buf, size_t len)
{
	const char *nl;
	size_t n, room;
	int r = 0, r2;

	if (len > 0 && !wl->line && !(wl->line = malloc(WINLIST_LINE_MAX + 1)))
		return -ENOMEM;
	while (len > 0) {
		nl = memchr(buf, '\n', len);
		n = nl ? (size_t)(nl - buf) : len;
		room = WINLIST_LINE_MAX - wl->len;
		if (n > room) {
			if (!wl->cut)
				wl->stats.long_lines++;
			wl->cut = 1;
		}
		memcpy(wl->line + wl->len, buf, n < room ? n : room);
		wl->len += n < room ? n : room;
		if (!nl)
			break;
		wl->line[wl->len] = '\0';
		if ((r2 = process_line(wl, wl->line)) < 0 && r == 0)
			r = r2;
		wl->len = 0;
		wl->cut = 0;
		buf = nl + 1;
		len -= n + 1;
	}
	return r;
}

int
winlist_end(struct winlist *wl)
{
	int r = 0;

	if (wl->len > 0) {
		wl->line[wl->len] = '\0';
		r = process_line(wl, wl->line);
	}
	free(wl->line);
	wl->line = NULL;
	wl->len = 0;
	wl->cut = 0;
	return r;
}

int
winlist_parse(const char *buf, size_t len, struct winlist **out)
{
	struct winlist *wl;
	int r;

	*out = NULL;
	if ((r = winlist_new(&wl)) < 0)
		return r;
	winlist_begin(wl);
	if (buf && (r = winlist_feed(wl, buf, len)) < 0)
		goto out;
	if ((r = winlist_end(wl)) < 0)
		goto out;
	*out = wl;
	wl = NULL;
out:
	winlist_free(wl);
	return r;
}

size_t
winlist_n_displays(const struct winlist *wl)
{
	return wl->n_disp;
}

const struct winlist_display *
winlist_display(const struct winlist *wl, size_t i)
{
	return i < wl->n_disp ? &wl->disp[i].pub : NULL;
}

const struct winlist_display *
winlist_find_display(const struct winlist *wl, int32_t display_id)
{
	size_t i;

	for (i = 0; i < wl->n_disp; i++)
		if (wl->disp[i].pub.id == display_id)
			return &wl->disp[i].pub;
	return NULL;
}

const struct winlist_window *
winlist_window(const struct winlist *wl, const struct winlist_display *d,
	       size_t i)
{
	size_t k;

	for (k = 0; k < wl->n_disp; k++)
		if (&wl->disp[k].pub == d)
			return i < d->n_windows ? &wl->disp[k].w[i] : NULL;
	return NULL;
}

size_t
winlist_n_viewports(const struct winlist *wl)
{
	return wl->n_vp;
}

const struct winlist_viewport *
winlist_viewport(const struct winlist *wl, size_t i)
{
	return i < wl->n_vp ? &wl->vp[i] : NULL;
}

const struct winlist_viewport *
winlist_find_viewport(const struct winlist *wl, int32_t display_id)
{
	const struct winlist_viewport *first = NULL;
	size_t i;

	for (i = 0; i < wl->n_vp; i++) {
		if (wl->vp[i].display_id != display_id)
			continue;
		if (wl->vp[i].active)
			return &wl->vp[i];
		if (!first)
			first = &wl->vp[i];
	}
	return first;
}

void
winlist_get_stats(const struct winlist *wl, struct winlist_stats *st)
{
	*st = wl->stats;
}
