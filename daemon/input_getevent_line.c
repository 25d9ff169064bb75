/*
 * The line reader of recorded getevent output: one pass over the log's
 * lines, filling the devices and the events of a struct input_getevent.
 */
#include "input_getevent_line.h"

#include <ctype.h>
#include <errno.h>
#include <linux/input.h>
#include <stdlib.h>
#include <string.h>

#include "input_getevent_fast.h"
#include "input_getevent_field.h"
#include "log.h"

/* At most this many skipped lines are described at debug level. */
#define GETEVENT_SKIP_LOG_MAX 10

static void
skip_line(struct input_getevent *g, const char *why)
{
	g->st.skipped++;
	if (g->skips_logged < GETEVENT_SKIP_LOG_MAX) {
		g->skips_logged++;
		log_debug("cannot parse '%s': line %llu: %s", g->name,
			  (unsigned long long)g->lineno, why);
	}
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *
skip_blanks(char *s)
{
	while (is_blank(*s))
		s++;
	return s;
}

static int
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * Splits s in place into at most max blank-separated tokens.  Returns the
 * number found, or max + 1 when there are more.
 */
static size_t
split(char *s, char **tok, size_t max)
{
	size_t n = 0;

	for (;;) {
		while (is_blank(*s))
			s++;
		if (*s == '\0')
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s != '\0' && !is_blank(*s))
			s++;
		if (*s != '\0')
			*s++ = '\0';
	}
}

/*
 * Parses "[%8ld.%06ld]" at the start of s.  Returns the rest of the line,
 * or NULL when the stamp is malformed or out of bounds.
 */
static char *
parse_stamp(char *s, int64_t *ns)
{
	unsigned long long sec, usec;
	char *p = s + 1, *dot, *close, *end;

	p = skip_blanks(p);
	dot = strchr(p, '.');
	if (dot == NULL || dot == p || dot - p > 20)
		return NULL;
	close = dot + 1;
	while (isdigit((unsigned char)*close))
		close++;
	if (*close != ']' || close - dot != 7)
		return NULL;
	if (close[1] != '\0' && !is_blank(close[1]))
		return NULL;
	for (end = p; end < dot; end++)
		if (!isdigit((unsigned char)*end))
			return NULL;
	*dot = '\0';
	*close = '\0';
	/*
	 * The digits are checked above, so they are summed here rather
	 * than by strtoull, which costs more than the rest of the line.
	 */
	for (sec = 0, end = p; end < dot; end++)
		if (__builtin_mul_overflow(sec, 10, &sec) ||
		    __builtin_add_overflow(sec, (unsigned)(*end - '0'), &sec))
			return NULL;
	if (sec > GETEVENT_SEC_MAX)
		return NULL;
	for (usec = 0, end = dot + 1; end < close; end++)
		usec = usec * 10 + (unsigned)(*end - '0');
	*ns = (int64_t)(sec * 1000000000ULL + usec * 1000ULL);
	return close + 1;
}

int
input_getevent_line_find_dev(struct input_getevent *g, const char *path)
{
	unsigned i;

	if (g->last_dev >= 0 && strcmp(g->devs[g->last_dev].path, path) == 0)
		return g->last_dev;
	for (i = 0; i < g->ndevs; i++)
		if (strcmp(g->devs[i].path, path) == 0)
			return (int)i;
	return -1;
}

/* Returns the device's index, adding it if new, or -1 when full. */
static int
get_dev(struct input_getevent *g, const char *path)
{
	struct input_getevent_dev *d;
	size_t len;
	int i;

	i = input_getevent_line_find_dev(g, path);
	if (i >= 0)
		return i;
	len = strlen(path);
	if (g->ndevs == GETEVENT_DEVICES_MAX || len >= GETEVENT_PATH_MAX)
		return -1;
	d = &g->devs[g->ndevs];
	memcpy(d->path, path, len + 1);
	return (int)g->ndevs++;
}

static int
push_event(struct input_getevent *g, const struct touch_event *ev, int dev)
{
	struct touch_event *nev;
	uint8_t *ndev;
	size_t ncap;

	if (g->nev == g->cap) {
		ncap = g->cap ? g->cap * 2 : 1024;
		if (ncap > SIZE_MAX / sizeof(*g->ev))
			return -ENOMEM;
		nev = realloc(g->ev, ncap * sizeof(*g->ev));
		if (nev == NULL)
			return -ENOMEM;
		g->ev = nev;
		ndev = realloc(g->ev_dev, ncap);
		if (ndev == NULL)
			return -ENOMEM;
		g->ev_dev = ndev;
		g->cap = ncap;
	}
	g->ev[g->nev] = *ev;
	g->ev_dev[g->nev] = (uint8_t)dev;
	g->nev++;
	return 0;
}

static int
is_mt_code(uint16_t code)
{
	return code == ABS_MT_POSITION_X || code == ABS_MT_POSITION_Y ||
	       code == ABS_MT_TRACKING_ID || code == ABS_MT_SLOT;
}

/*
 * An event line, with or without a stamp: "[ sec.usec] " then an optional
 * "/dev/input/eventN: " then type, code and value.  Returns 1 when the
 * line was an event line (kept or skipped), 0 when it is not one at all,
 * or a negative errno.
 */
static int
read_event_line(struct input_getevent *g, char *s, int stamped)
{
	struct touch_event ev;
	char *tok[6], **t;
	const char *path = "";
	int64_t ns = 0;
	size_t n, len;
	int r;

	if (stamped) {
		s = parse_stamp(s, &ns);
		if (s == NULL) {
			skip_line(g, "bad timestamp");
			return 1;
		}
	}
	n = split(s, tok, 6);
	t = tok;
	if (n >= 1) {
		len = strlen(tok[0]);
		if (len > 1 && tok[0][len - 1] == ':') {
			tok[0][len - 1] = '\0';
			path = tok[0];
			t++;
			n--;
		}
	}
	r = input_getevent_field_event(t, n, &ev);
	if (r < 0) {
		if (!stamped && *path == '\0')
			return 0;
		if (r == -ENOENT) {
			g->st.unknown++;
			skip_line(g, "unknown label");
		} else {
			skip_line(g, "not an event");
		}
		return 1;
	}
	g->section = SECTION_NONE;
	g->cur_dev = -1;
	if (!stamped) {
		g->st.untimed++;
		skip_line(g, "no timestamp");
		return 1;
	}
	return input_getevent_line_keep(g, path, &ev, ns);
}

int
input_getevent_line_keep(struct input_getevent *g, const char *path,
			 const struct touch_event *parsed, int64_t ns)
{
	struct touch_event ev = *parsed;
	struct input_getevent_dev *d;
	int dev, r;

	g->section = SECTION_NONE;
	g->cur_dev = -1;
	dev = get_dev(g, path);
	if (dev < 0) {
		skip_line(g, "too many devices or device path too long");
		return 1;
	}
	g->last_dev = dev;
	d = &g->devs[dev];
	ev.time_ns = ns;
	r = push_event(g, &ev, dev);
	if (r < 0)
		return r;
	g->timed++;
	if (d->events > 0 && ns < d->last_ns) {
		if (d->backwards == 0) {
			d->back_at = g->nev - 1;
			d->back.line = g->lineno;
			d->back.from_ns = d->last_ns;
			d->back.to_ns = ns;
		}
		d->backwards++;
	}
	d->last_ns = ns;
	d->events++;
	if (ev.type == EV_ABS && is_mt_code(ev.code))
		d->mt_events++;
	if (ev.type == EV_SYN &&
	    (ev.code == SYN_REPORT || ev.code == SYN_MT_REPORT))
		d->syn_events++;
	return 1;
}

/* "add device N: PATH" and "remove device N: PATH". */
static void
read_device_line(struct input_getevent *g, char *s, int add)
{
	char *tok[4];
	long long num;
	size_t n, len;
	int dev;

	g->cur_dev = -1;
	g->section = SECTION_NONE;
	n = split(s, tok, 3);
	if (n != 3) {
		skip_line(g, "bad device line");
		return;
	}
	len = strlen(tok[1]);
	if (len < 2 || tok[1][len - 1] != ':') {
		skip_line(g, "bad device line");
		return;
	}
	tok[1][len - 1] = '\0';
	if (input_getevent_field_dec(tok[1], 0, INT32_MAX, &num) < 0) {
		skip_line(g, "bad device number");
		return;
	}
	if (!add)
		return;
	dev = get_dev(g, tok[2]);
	if (dev < 0) {
		skip_line(g, "too many devices or device path too long");
		return;
	}
	g->cur_dev = dev;
	g->section = SECTION_DEVICE;
}

/* `  name:     "himax-touchscreen"`: the name runs to the last quote. */
static void
read_name(struct input_getevent *g, char *s)
{
	struct input_getevent_dev *d = &g->devs[g->cur_dev];
	char *end;
	size_t len;

	s = skip_blanks(s);
	len = strlen(s);
	if (len < 2 || s[0] != '"' || s[len - 1] != '"') {
		skip_line(g, "bad device name");
		return;
	}
	end = s + len - 1;
	*end = '\0';
	len = (size_t)(end - (s + 1));
	if (len >= sizeof(d->name)) {
		skip_line(g, "device name too long");
		return;
	}
	memcpy(d->name, s + 1, len + 1);
	d->has_name = 1;
}

/*
 * One axis of a `-p` block: "0035  : value 0, min 0, max 719, fuzz 0,
 * flat 0, resolution 0", or with -l "ABS_MT_POSITION_X     : value ...".
 * A code without the range (getevent could not read it) is accepted.
 */
static void
read_axis(struct input_getevent *g, char *s)
{
	struct input_getevent_dev *d = &g->devs[g->cur_dev];
	char *colon, *field, *next, *tok[3];
	long long num, min = 0, max = 0;
	int have_min = 0, have_max = 0;
	uint32_t code;
	size_t n, len;

	colon = strchr(s, ':');
	if (colon != NULL)
		*colon = '\0';
	n = split(s, tok, 1);
	if (n != 1) {
		skip_line(g, "bad axis");
		return;
	}
	/* A '*' after the code marks a key that is down; harmless here. */
	len = strlen(tok[0]);
	if (len > 1 && tok[0][len - 1] == '*')
		tok[0][len - 1] = '\0';
	if (input_getevent_field_parse(tok[0], input_getevent_field_abs,
				       &code) < 0 ||
	    code >= ABS_CNT) {
		skip_line(g, "bad axis code");
		return;
	}
	if (colon == NULL)
		return;
	for (field = colon + 1; field != NULL; field = next) {
		next = strchr(field, ',');
		if (next != NULL)
			*next++ = '\0';
		if (split(field, tok, 2) != 2 ||
		    input_getevent_field_dec(tok[1], INT32_MIN, INT32_MAX,
					     &num) < 0) {
			skip_line(g, "bad axis range");
			return;
		}
		if (strcmp(tok[0], "min") == 0) {
			min = num;
			have_min = 1;
		} else if (strcmp(tok[0], "max") == 0) {
			max = num;
			have_max = 1;
		}
	}
	if (!have_min || !have_max || min > max) {
		skip_line(g, "bad axis range");
		return;
	}
	d->axes[code].min = (int32_t)min;
	d->axes[code].max = (int32_t)max;
	d->axis_set |= 1ULL << code;
}

/*
 * "ABS (0003): ..." opens the capability lines of one type; the first
 * entry follows on the same line.  Returns 1 if s was such a line.
 */
static int
read_caps_header(struct input_getevent *g, char *s)
{
	char *open, *close, hex[5];
	uint32_t type;

	open = strstr(s, " (");
	if (open == NULL || open == s || open - s > 3)
		return 0;
	close = strstr(open, "):");
	if (close == NULL || close - open != 6)
		return 0;
	memcpy(hex, open + 2, 4);
	hex[4] = '\0';
	if (input_getevent_field_hex(hex, 4, &type) < 0)
		return 0;
	g->cap_type = (int)type;
	if (type == EV_ABS && *skip_blanks(close + 2) != '\0')
		read_axis(g, close + 2);
	return 1;
}

static void
read_prop(struct input_getevent *g, char *s)
{
	char *tok[2];
	uint32_t prop;
	int v;

	if (strcmp(s, "<none>") == 0 || strcmp(s, "<not available") == 0)
		return;
	if (split(s, tok, 1) != 1) {
		skip_line(g, "bad input property");
		return;
	}
	if (input_getevent_field_lookup(input_getevent_field_props, tok[0],
					&v) == 0)
		prop = (uint32_t)v;
	else if (input_getevent_field_hex(tok[0], 4, &prop) < 0 || prop >= 32) {
		skip_line(g, "bad input property");
		return;
	}
	g->devs[g->cur_dev].props |= 1u << prop;
}

/*
 * A line of a device's header block: the name, the `-i` details, the
 * `-p` capabilities and input properties.  Returns 1 if s was one.
 */
static int
read_header_line(struct input_getevent *g, char *s, int indented)
{
	static const char *const ignored[] = {
		"bus:",	    "vendor ",	 "product ", "version ",
		"version:", "location:", "id:",	     NULL,
	};
	size_t i;

	if (starts_with(s, "name:")) {
		read_name(g, s + 5);
		return 1;
	}
	if (strcmp(s, "events:") == 0) {
		g->section = SECTION_EVENTS;
		g->cap_type = -1;
		return 1;
	}
	if (strcmp(s, "input props:") == 0) {
		g->section = SECTION_PROPS;
		return 1;
	}
	if (starts_with(s, "HID descriptor:")) {
		g->section = SECTION_HID;
		return 1;
	}
	for (i = 0; ignored[i] != NULL; i++)
		if (starts_with(s, ignored[i]))
			return 1;
	if (!indented)
		return 0;
	switch (g->section) {
	case SECTION_EVENTS:
		if (read_caps_header(g, s))
			return 1;
		/* Key lists need nothing; axes continue the ABS entry. */
		if (g->cap_type == EV_ABS)
			read_axis(g, s);
		else if (g->cap_type < 0)
			return 0;
		return 1;
	case SECTION_PROPS:
		read_prop(g, s);
		return 1;
	case SECTION_HID:
		return 1;
	default:
		return 0;
	}
}

static int
read_line(struct input_getevent *g, char *line, size_t len)
{
	char *s;
	int indented, r;

	if (memchr(line, '\0', len) != NULL) {
		skip_line(g, "NUL byte");
		return 0;
	}
	line[len] = '\0';
	while (len > 0 && (is_blank(line[len - 1]) || line[len - 1] == '\r'))
		line[--len] = '\0';
	s = skip_blanks(line);
	indented = s != line;
	if (*s == '\0')
		return 0;
	g->nonblank++;
	if (*s == '[') {
		r = read_event_line(g, s, 1);
		return r < 0 ? r : 0;
	}
	if (starts_with(s, "add device ")) {
		read_device_line(g, s + 4, 1);
		return 0;
	}
	if (starts_with(s, "remove device ")) {
		read_device_line(g, s + 7, 0);
		return 0;
	}
	if (g->cur_dev >= 0 && read_header_line(g, s, indented))
		return 0;
	r = read_event_line(g, s, 0);
	if (r < 0)
		return r;
	if (r == 0)
		skip_line(g, "not a getevent line");
	return 0;
}

/*
 * Ends the line held in g->part: reads it unless it ran over the limit.
 * A line counts as parsed when it is not blank and was not skipped.
 */
static int
end_line(struct input_getevent *g)
{
	uint64_t skipped = g->st.skipped, nonblank = g->nonblank;
	size_t n = g->partlen;
	int r = 0;

	g->lineno++;
	g->st.lines++;
	/* A CR before the newline does not count against the limit. */
	if (g->overlong ||
	    (n == GETEVENT_LINE_MAX + 1 && g->part[n - 1] != '\r')) {
		g->st.too_long++;
		skip_line(g, "line too long");
	} else {
		r = read_line(g, g->part, n);
		if (g->nonblank != nonblank && g->st.skipped == skipped)
			g->parsed++;
	}
	g->partlen = 0;
	g->overlong = 0;
	g->in_line = 0;
	return r;
}

int
input_getevent_line_feed(struct input_getevent *g, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	size_t n;
	int r;

	if (g->part == NULL) {
		g->part = malloc(GETEVENT_LINE_MAX + 2);
		if (g->part == NULL)
			return -ENOMEM;
	}
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl ? nl : end) - p);
		/* A whole line, nothing of it held before. */
		if (nl != NULL && g->partlen == 0 && !g->overlong) {
			r = input_getevent_fast_line(g, p, n);
			if (r < 0)
				return r;
			if (r == 1) {
				p = nl + 1;
				continue;
			}
		}
		g->in_line = 1;
		/*
		 * A line over the limit is dropped as it arrives, never held
		 * whole: memory stays bounded however long it runs.
		 */
		if (!g->overlong && g->partlen + n > GETEVENT_LINE_MAX + 1) {
			g->overlong = 1;
			g->partlen = 0;
		}
		if (!g->overlong) {
			memcpy(g->part + g->partlen, p, n);
			g->partlen += n;
		}
		if (nl == NULL)
			break;
		r = end_line(g);
		if (r < 0)
			return r;
		p = nl + 1;
	}
	return 0;
}

int
input_getevent_line_end(struct input_getevent *g)
{
	/* The last line may lack its newline. */
	if (!g->in_line)
		return 0;
	if (g->part == NULL)
		return -ENOMEM;
	return end_line(g);
}

int
input_getevent_line_parse(struct input_getevent *g, const char *buf, size_t len)
{
	int r;

	r = input_getevent_line_feed(g, buf, len);
	if (r == 0)
		r = input_getevent_line_end(g);
	return r;
}
