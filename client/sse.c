#include "sse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct sse {
	sse_event_fn fn;
	void *ctx;
	char *line; /* the line being read */
	size_t line_len;
	int skip_lf; /* the last line ended with CR: a LF next is its end */
	char *data;  /* the data lines of the event so far */
	size_t data_len;
	int have_data;
	char type[64];
	char id[SSE_MAX_ID + 1];
	long retry_ms; /* -1 until a retry field comes */
};

int
sse_new(sse_event_fn fn, void *ctx, struct sse **out)
{
	struct sse *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return -ENOMEM;
	p->line = malloc(SSE_MAX_LINE + 1);
	p->data = malloc(SSE_MAX_LINE + 1);
	if (p->line == NULL || p->data == NULL) {
		sse_free(p);
		return -ENOMEM;
	}
	p->fn = fn;
	p->ctx = ctx;
	p->retry_ms = -1;
	*out = p;
	return 0;
}

void
sse_free(struct sse *p)
{
	if (p == NULL)
		return;
	free(p->line);
	free(p->data);
	free(p);
}

static int
sse_dispatch(struct sse *p)
{
	int rc = 0;

	if (p->have_data) {
		p->data[p->data_len] = '\0';
		rc = p->fn(p->ctx, p->type, p->id, p->data, p->data_len);
	}
	p->data_len = 0;
	p->have_data = 0;
	p->type[0] = '\0';
	return rc;
}

/*
 * A retry field: ASCII digits only, else ignored, as the standard says;
 * a value past a day is taken as a day.
 */
static void
sse_retry(struct sse *p, const char *value, size_t len)
{
	long ms = 0;
	size_t i;

	if (len == 0)
		return;
	for (i = 0; i < len; i++) {
		if (value[i] < '0' || value[i] > '9')
			return;
		if (ms < 86400000L)
			ms = ms * 10 + (value[i] - '0');
	}
	p->retry_ms = ms < 86400000L ? ms : 86400000L;
}

/* One complete line, without its end. */
static int
sse_line(struct sse *p)
{
	const char *value;
	size_t name_len, value_len;
	char *colon;

	p->line[p->line_len] = '\0';
	if (p->line_len == 0)
		return sse_dispatch(p);
	if (p->line[0] == ':')
		return 0;
	colon = memchr(p->line, ':', p->line_len);
	if (colon != NULL) {
		name_len = (size_t)(colon - p->line);
		value = colon + 1;
		if (*value == ' ')
			value++;
	} else {
		name_len = p->line_len;
		value = p->line + p->line_len;
	}
	value_len = p->line_len - (size_t)(value - p->line);
	if (name_len == 4 && memcmp(p->line, "data", 4) == 0) {
		if (p->data_len + value_len + 1 > SSE_MAX_LINE)
			return -E2BIG;
		if (p->have_data)
			p->data[p->data_len++] = '\n';
		memcpy(p->data + p->data_len, value, value_len);
		p->data_len += value_len;
		p->have_data = 1;
	} else if (name_len == 5 && memcmp(p->line, "event", 5) == 0) {
		/* A type longer than any tapd sends is cut, not refused. */
		if (value_len >= sizeof(p->type))
			value_len = sizeof(p->type) - 1;
		memcpy(p->type, value, value_len);
		p->type[value_len] = '\0';
	} else if (name_len == 2 && memcmp(p->line, "id", 2) == 0) {
		/* As the standard says, an id holding a NUL is ignored. */
		if (value_len <= SSE_MAX_ID &&
		    !memchr(value, '\0', value_len)) {
			memcpy(p->id, value, value_len);
			p->id[value_len] = '\0';
		}
	} else if (name_len == 5 && memcmp(p->line, "retry", 5) == 0) {
		sse_retry(p, value, value_len);
	}
	return 0;
}

int
sse_feed(struct sse *p, const char *buf, size_t len)
{
	size_t i;
	char c;
	int rc;

	for (i = 0; i < len; i++) {
		c = buf[i];
		if (p->skip_lf) {
			p->skip_lf = 0;
			if (c == '\n')
				continue;
		}
		if (c == '\r' || c == '\n') {
			p->skip_lf = c == '\r';
			rc = sse_line(p);
			p->line_len = 0;
			if (rc < 0)
				return rc;
			continue;
		}
		if (p->line_len == SSE_MAX_LINE)
			return -E2BIG;
		p->line[p->line_len++] = c;
	}
	return 0;
}

void
sse_restart(struct sse *p)
{
	p->line_len = 0;
	p->skip_lf = 0;
	p->data_len = 0;
	p->have_data = 0;
	p->type[0] = '\0';
}

long
sse_retry_ms(const struct sse *p)
{
	return p->retry_ms;
}
