/*
 * The default display out of `dumpsys display`: see display_dump.h.
 * Every search is bounded by the span it is given (a block is one line),
 * so that bytes of one display never describe another, and the next
 * block is looked for after the end of the last one, so that the time
 * stays linear in the dump's size whatever it holds.
 */
#include "display_dump.h"

#include <errno.h>
#include <string.h>

/* A piece of the text: p, n bytes. */
struct span {
	const char *p;
	size_t n;
};

/* The offset of key in s at or after from, or -1. */
static long
span_find(struct span s, size_t from, const char *key)
{
	const char *hit;

	if (from >= s.n)
		return -1;
	hit = memmem(s.p + from, s.n - from, key, strlen(key));
	return hit ? (long)(hit - s.p) : -1;
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A decimal number at s.p[*off], within [lo, hi], refused once it passes
 * INT32_MAX or when nothing follows it.  Advances *off past it.  Returns 0 or
 * -EINVAL.
 */
static int
read_uint(struct span s, size_t *off, int32_t lo, int32_t hi, int32_t *out)
{
	size_t i = *off;
	int64_t v = 0;

	while (i < s.n && is_digit(s.p[i])) {
		v = v * 10 + (s.p[i] - '0');
		if (v > INT32_MAX)
			return -EINVAL;
		i++;
	}
	/* Digits up to the span's end may be a number cut short. */
	if (i == *off || i == s.n || v < lo || v > hi)
		return -EINVAL;
	*off = i;
	*out = (int32_t)v;
	return 0;
}

/*
 * A rate as Java prints a float ("60.0", "59.94", "120.00001"), rounded
 * to whole Hz on its first decimal.  Returns 0 or -EINVAL.
 */
static int
read_rate(struct span s, size_t off, int32_t *hz)
{
	int32_t v;

	if (read_uint(s, &off, 0, DISPLAY_DUMP_REFRESH_MAX, &v) < 0)
		return -EINVAL;
	if (off + 1 < s.n && s.p[off] == '.' && is_digit(s.p[off + 1]) &&
	    s.p[off + 1] >= '5')
		v++;
	/* An exponent means a value far outside any display's rates. */
	while (off < s.n && (is_digit(s.p[off]) || s.p[off] == '.'))
		off++;
	if (off < s.n && (s.p[off] == 'E' || s.p[off] == 'e'))
		return -EINVAL;
	if (v < 1 || v > DISPLAY_DUMP_REFRESH_MAX)
		return -EINVAL;
	*hz = v;
	return 0;
}

/* The number after key (the first of it in s), within [lo, hi]. */
static int
keyed_uint(struct span s, const char *key, int32_t lo, int32_t hi, int32_t *out)
{
	long at = span_find(s, 0, key);
	size_t off;

	if (at < 0)
		return -ENOENT;
	off = (size_t)at + strlen(key);
	return read_uint(s, &off, lo, hi, out);
}

/* "W x H" at s.p[off]. */
static int
read_size(struct span s, size_t off, int32_t *w, int32_t *h)
{
	int32_t a, b;

	if (read_uint(s, &off, 1, DISPLAY_DUMP_SIZE_MAX, &a) < 0)
		return -EINVAL;
	if (off + 3 > s.n || memcmp(s.p + off, " x ", 3) != 0)
		return -EINVAL;
	off += 3;
	if (read_uint(s, &off, 1, DISPLAY_DUMP_SIZE_MAX, &b) < 0)
		return -EINVAL;
	*w = a;
	*h = b;
	return 0;
}

/*
 * The end of the bracketed group opening at s.p[open] ('{' or '['),
 * counting nested ones of the same kind: the offset past its closing
 * bracket, or s.n when it is not closed within s.
 */
static size_t
group_end(struct span s, size_t open)
{
	char o = s.p[open], c = o == '{' ? '}' : ']';
	size_t i, depth = 0;

	for (i = open; i < s.n; i++) {
		if (s.p[i] == o)
			depth++;
		else if (s.p[i] == c && --depth == 0)
			return i + 1;
	}
	return s.n;
}

/*
 * The refresh rate of mode id in the list after list_key ("modes [" or
 * "supportedModes ["): its entry "{id=ID, ..., fps=F, ...}", or
 * "refreshRate=F" there.
 */
static int
mode_rate(struct span s, const char *list_key, int32_t id, int32_t *hz)
{
	static const char *const keys[] = {"fps=", "refreshRate="};
	struct span list, mode;
	size_t i, off, end;
	long at, k;
	int32_t v;

	at = span_find(s, 0, list_key);
	if (at < 0)
		return -ENOENT;
	off = (size_t)at + strlen(list_key) - 1;
	list.p = s.p + off;
	list.n = group_end(s, off) - off;
	for (at = span_find(list, 0, "{id="); at >= 0;
	     at = span_find(list, end, "{id=")) {
		off = (size_t)at + 4;
		end = group_end(list, (size_t)at);
		if (read_uint(list, &off, 0, INT32_MAX / 2, &v) < 0 || v != id)
			continue;
		mode.p = list.p + at;
		mode.n = end - (size_t)at;
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			k = span_find(mode, 0, keys[i]);
			if (k > 0 &&
			    (mode.p[k - 1] == ' ' || mode.p[k - 1] == ',' ||
			     mode.p[k - 1] == '{') &&
			    read_rate(mode, (size_t)k + strlen(keys[i]), hz) ==
				    0)
				return 0;
		}
		return -ENOENT;
	}
	return -ENOENT;
}

/* The oldest releases' ", 60.0 fps": the number before " fps". */
static int
bare_fps(struct span s, int32_t *hz)
{
	long at;
	size_t b;

	for (at = span_find(s, 0, " fps"); at >= 0;
	     at = span_find(s, (size_t)at + 1, " fps")) {
		b = (size_t)at;
		while (b > 0 && (is_digit(s.p[b - 1]) || s.p[b - 1] == '.'))
			b--;
		if (b < 2 || b == (size_t)at || s.p[b - 1] != ' ' ||
		    s.p[b - 2] != ',')
			continue;
		if (read_rate(s, b, hz) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Fills what is still unknown in *out from a DisplayInfo block. */
static void
parse_info(struct span b, struct display_dump *out)
{
	int32_t w, h, rot = 0, mode, hz = 0, dpi;
	long at;

	at = span_find(b, 0, ", real ");
	if (at >= 0 && read_size(b, (size_t)at + 7, &w, &h) == 0 &&
	    !out->width) {
		keyed_uint(b, ", rotation ", 0, 3, &rot);
		out->width = rot == 1 || rot == 3 ? h : w;
		out->height = rot == 1 || rot == 3 ? w : h;
	}
	if (keyed_uint(b, ", density ", 1, DISPLAY_DUMP_DENSITY_MAX, &dpi) ==
		    0 &&
	    !out->density_dpi)
		out->density_dpi = dpi;
	if (out->refresh_hz)
		return;
	at = span_find(b, 0, ", renderFrameRate ");
	if ((keyed_uint(b, ", mode ", 0, INT32_MAX / 2, &mode) == 0 &&
	     mode_rate(b, ", modes [", mode, &hz) == 0) ||
	    (at >= 0 && read_rate(b, (size_t)at + strlen(", renderFrameRate "),
				  &hz) == 0) ||
	    bare_fps(b, &hz) == 0)
		out->refresh_hz = hz;
}

/* Fills what is still unknown in *out from a DisplayDeviceInfo block. */
static void
parse_device_info(struct span b, struct display_dump *out)
{
	int32_t w, h, mode, hz = 0, dpi;
	size_t from = 0;
	long at, q;

	/* The size comes after the quoted name, which may hold anything. */
	if (b.n > 2 && b.p[1] == '"' && (q = span_find(b, 2, "\"")) > 0)
		from = (size_t)q;
	for (at = span_find(b, from, ", "); at >= 0 && !out->width;
	     at = span_find(b, (size_t)at + 2, ", "))
		if (read_size(b, (size_t)at + 2, &w, &h) == 0) {
			out->width = w;
			out->height = h;
		}
	if (keyed_uint(b, ", density ", 1, DISPLAY_DUMP_DENSITY_MAX, &dpi) ==
		    0 &&
	    !out->density_dpi)
		out->density_dpi = dpi;
	if (!out->refresh_hz &&
	    ((keyed_uint(b, ", modeId ", 0, INT32_MAX / 2, &mode) == 0 &&
	      mode_rate(b, "supportedModes [", mode, &hz) == 0) ||
	     bare_fps(b, &hz) == 0))
		out->refresh_hz = hz;
}

/* The block whose '{' is at text.p[open]: to its '}' within its line. */
static struct span
block_at(struct span text, size_t open)
{
	struct span line, b;
	const char *nl;

	nl = memchr(text.p + open, '\n', text.n - open);
	line.p = text.p + open;
	line.n = nl ? (size_t)(nl - line.p) : text.n - open;
	b.p = line.p;
	b.n = group_end(line, 0);
	return b;
}

/* 1 when the bytes before at in text end with word. */
static int
ends_with(struct span text, size_t at, const char *word)
{
	size_t n = strlen(word);

	return at >= n && memcmp(text.p + at - n, word, n) == 0;
}

int
display_dump_parse(const char *p, size_t len, struct display_dump *out)
{
	static const char info[] = "DisplayInfo{", dev[] = "DisplayDeviceInfo{";
	struct span text = {p, len}, b, best = {NULL, 0};
	int score, best_score = -1;
	size_t next;
	int32_t id;
	long at;

	memset(out, 0, sizeof(*out));
	for (at = span_find(text, 0, info); at >= 0;
	     at = span_find(text, next, info)) {
		b = block_at(text, (size_t)at + sizeof(info) - 2);
		next = (size_t)(b.p + b.n - text.p);
		score = 0;
		if (keyed_uint(b, ", displayId ", 0, INT32_MAX / 2, &id) == 0) {
			if (id != 0)
				continue;
			score = 10;
		}
		if (ends_with(text, (size_t)at, "mOverrideDisplayInfo="))
			score += 2;
		else if (ends_with(text, (size_t)at, "mBaseDisplayInfo="))
			score += 1;
		if (score > best_score) {
			best = b;
			best_score = score;
		}
	}
	if (best.p)
		parse_info(best, out);
	for (at = span_find(text, 0, dev);
	     at >= 0 && (!out->width || !out->refresh_hz || !out->density_dpi);
	     at = span_find(text, next, dev)) {
		b = block_at(text, (size_t)at + sizeof(dev) - 2);
		next = (size_t)(b.p + b.n - text.p);
		if (span_find(b, 0, "_DEFAULT_DISPLAY") >= 0)
			parse_device_info(b, out);
	}
	return out->width || out->refresh_hz || out->density_dpi ? 0 : -ENOENT;
}
