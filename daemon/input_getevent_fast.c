/*
 * The fast path of the getevent line reader: the usual event line read
 * in place; see input_getevent_fast.h.
 */
#include "input_getevent_fast.h"

#include <stdint.h>
#include <string.h>

#include "input_getevent_field.h"
#include "input_getevent_line.h"

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* What a byte is to the fast path's tokens. */
enum {
	FAST_TOKEN = 0, /* part of a token */
	FAST_BLANK,	/* a space or a tab, between tokens */
	FAST_END,	/* the newline that ends the line */
	FAST_OTHER,	/* a NUL or a CR: the general reader's to judge */
};

static unsigned char
fast_class(unsigned char c)
{
	switch (c) {
	case ' ':
	case '\t':
		return FAST_BLANK;
	case '\n':
		return FAST_END;
	case '\0':
	case '\r':
		return FAST_OTHER;
	}
	return FAST_TOKEN;
}

/*
 * The hex value of s[0..n), by the rule of input_getevent_field_hex()
 * with 8 digits at most; -1 when it is not one.
 */
static int
fast_hex(const char *s, size_t n, uint32_t *out)
{
	uint32_t v = 0, d;
	size_t i;
	char c;

	if (n == 0 || n > 8)
		return -1;
	for (i = 0; i < n; i++) {
		c = s[i];
		if (c >= '0' && c <= '9')
			d = (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (uint32_t)(c - 'A' + 10);
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/*
 * The type and code of tokens a and b, through the cache of the pairs
 * seen last: a log has a few dozen of them, each looked up in the
 * tables once.  Returns 0, or -1 when input_getevent_field_event() is to
 * judge the line.
 */
static int
fast_type_code(struct input_getevent *g, const char *a, size_t na,
	       const char *b, size_t nb, struct touch_event *ev)
{
	struct input_getevent_pair *c;
	char zero[2] = "0", *tok[3];
	unsigned h;

	if (na >= GETEVENT_TOKEN_MAX || nb >= GETEVENT_TOKEN_MAX)
		return -1;
	h = (unsigned)(na * 7 + nb * 13 + (unsigned char)b[nb - 1] * 3 +
		       (unsigned char)b[nb / 2]) %
	    GETEVENT_PAIRS;
	c = &g->pairs[h];
	if (c->used && c->na == na && c->nb == nb && memcmp(c->a, a, na) == 0 &&
	    memcmp(c->b, b, nb) == 0) {
		ev->type = c->type;
		ev->code = c->code;
		return 0;
	}
	memcpy(c->a, a, na);
	c->a[na] = '\0';
	memcpy(c->b, b, nb);
	c->b[nb] = '\0';
	c->used = 0;
	tok[0] = c->a;
	tok[1] = c->b;
	tok[2] = zero;
	if (input_getevent_field_event(tok, 3, ev) < 0)
		return -1;
	c->na = na;
	c->nb = nb;
	c->type = ev->type;
	c->code = ev->code;
	c->used = 1;
	return 0;
}

/*
 * The usual event line, "[ SEC.USEC] [PATH: ]TYPE CODE VALUE" with a hex
 * value, read where it lies in the buffer (s[len] is its newline),
 * without the copy and the passes of the general reader: it makes of it
 * what read_line() would, the same event and the same counts.  Returns 1
 * when it took the line, 0 when anything in it is otherwise (the general
 * reader then reads it), or a negative errno.
 */
int
input_getevent_fast_line(struct input_getevent *g, const char *s, size_t len)
{
	const char *p = s + 1, *end = s + len, *tok[4];
	char path[GETEVENT_PATH_MAX];
	size_t ntok[4], n = 0, first = 0, digits = 0;
	unsigned long long sec = 0, usec = 0;
	struct touch_event ev;
	unsigned char cls;
	uint32_t value;
	uint64_t skipped;
	int r;

	if (len > GETEVENT_LINE_MAX || len < 2 || s[0] != '[')
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	for (; is_digit(*p); p++, digits++)
		if (__builtin_mul_overflow(sec, 10, &sec) ||
		    __builtin_add_overflow(sec, (unsigned)(*p - '0'), &sec))
			return 0;
	if (digits == 0 || digits > 20 || sec > GETEVENT_SEC_MAX ||
	    end - p < 9 || *p != '.')
		return 0;
	for (digits = 0, p++; digits < 6; digits++, p++) {
		if (!is_digit(*p))
			return 0;
		usec = usec * 10 + (unsigned)(*p - '0');
	}
	if (*p != ']' || (p[1] != ' ' && p[1] != '\t'))
		return 0;
	/* The newline at end stops every loop below. */
	for (p += 2;;) {
		/* getevent pads its columns with runs of spaces. */
		while (end - p >= 8 && memcmp(p, "        ", 8) == 0)
			p += 8;
		while ((cls = fast_class((unsigned char)*p)) == FAST_BLANK)
			p++;
		if (cls != FAST_TOKEN)
			break;
		if (n == 4)
			return 0;
		tok[n] = p;
		while ((cls = fast_class((unsigned char)*p)) == FAST_TOKEN)
			p++;
		ntok[n] = (size_t)(p - tok[n]);
		n++;
	}
	/* A CR is trimmed by read_line() only after the last token. */
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return 0;
	path[0] = '\0';
	if (n == 4 && ntok[0] > 1 && tok[0][ntok[0] - 1] == ':') {
		if (ntok[0] > sizeof(path))
			return 0;
		memcpy(path, tok[0], ntok[0] - 1);
		path[ntok[0] - 1] = '\0';
		first = 1;
		n = 3;
	}
	if (n != 3 ||
	    fast_type_code(g, tok[first], ntok[first], tok[first + 1],
			   ntok[first + 1], &ev) < 0 ||
	    fast_hex(tok[first + 2], ntok[first + 2], &value) < 0)
		return 0;
	/* getevent prints the value as %08x of a signed int. */
	ev.value = (int32_t)value;
	g->lineno++;
	g->st.lines++;
	g->nonblank++;
	skipped = g->st.skipped;
	r = input_getevent_line_keep(
		g, path, &ev, (int64_t)(sec * 1000000000ULL + usec * 1000ULL));
	if (r < 0)
		return r;
	if (g->st.skipped == skipped)
		g->parsed++;
	g->in_line = 0;
	return 1;
}
