/*
 * What the parts of the --latency reader share: the text helpers of
 * frames_latency_int.h, the row kinds and the package of a layer name.
 */
#include "frames_latency.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "correlate.h"
#include "frames_latency_int.h"
#include "layername.h"

int
frames_latency_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int
frames_latency_is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

/*
 * Parses s[0..len) as a whole decimal integer in [lo, hi].  Returns 0,
 * -EINVAL when it is not one, or -ERANGE.  The copy gives strtoll() a
 * terminator and the first-character test keeps it from skipping spaces
 * or taking a '+'.
 */
int
frames_latency_parse_i64(const char *s, size_t len, int64_t lo, int64_t hi,
			 int64_t *out)
{
	char buf[24];
	char *end;
	long long v;
	size_t i = 0;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[0] == '-')
		i = 1;
	if (i >= len || !frames_latency_is_digit(buf[i]))
		return -EINVAL;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno != 0 || end != buf + len)
		return -EINVAL;
	if (v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * Returns 1 and sets the next line (without its '\n' and a '\r' before
 * it) and whether a '\n' ended it, or 0 at the end of the buffer.
 */
int
frames_latency_next_line(struct frames_latency_lines *it, const char **line,
			 size_t *len, int *terminated)
{
	const char *nl;

	if (it->p >= it->end)
		return 0;
	*line = it->p;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	if (nl) {
		*len = (size_t)(nl - it->p);
		it->p = nl + 1;
		*terminated = 1;
	} else {
		*len = (size_t)(it->end - it->p);
		it->p = it->end;
		*terminated = 0;
	}
	if (*len > 0 && (*line)[*len - 1] == '\r')
		(*len)--;
	return 1;
}

void
frames_latency_stats_add(struct frames_latency_stats *dst,
			 const struct frames_latency_stats *a,
			 const struct frames_latency_stats *b)
{
	/* dst += a - b, field by field; b may be NULL. */
	static const struct frames_latency_stats zero;

	if (!b)
		b = &zero;
#define ADD(f) dst->f += a->f - b->f
	ADD(files);
	ADD(files_skipped);
	ADD(snapshots);
	ADD(incomplete);
	ADD(rows);
	ADD(zero_rows);
	ADD(pending_rows);
	ADD(invalid_rows);
	ADD(rows_over);
	ADD(garbage_lines);
	ADD(duplicates);
	ADD(frames);
	ADD(frames_invalid);
	ADD(pending_lost);
	ADD(backwards);
	ADD(gaps);
	ADD(lists);
	ADD(list_names);
#undef ADD
}

enum frames_latency_row_kind
frames_latency_row_classify(const struct frames_latency_row *row)
{
	if (row->desired_ns == 0 && row->actual_ns == 0 && row->ready_ns == 0)
		return LATENCY_ROW_ZERO;
	if (row->desired_ns <= 0 || row->desired_ns == LATENCY_PENDING)
		return LATENCY_ROW_INVALID;
	if (row->actual_ns == LATENCY_PENDING)
		return LATENCY_ROW_PENDING;
	if (row->actual_ns <= 0)
		return LATENCY_ROW_INVALID;
	return LATENCY_ROW_PRESENTED;
}

int
frames_latency_layer_package(const char *layer, char *buf, size_t size)
{
	return layername_package(layer, buf, size);
}

void
frames_latency_frame_to_correlate(const struct frames_latency_frame *f,
				  struct correlate_frame *cf)
{
	memset(cf, 0, sizeof(*cf));
	cf->app = f->app;
	cf->layer = f->layer;
	cf->start_ns = f->desired_ns;
	cf->present_ns = f->present_ns;
}
