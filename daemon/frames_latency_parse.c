/* Part 1 of the --latency reader: one --latency output. */
#include "frames_latency_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frames_latency_int.h"

/*
 * A real --latency line is at most three 20-character numbers and two
 * tabs; anything much longer is not one and is not worth tokenizing.
 */
#define LINE_LEN_MAX 256

/* The longest period line taken as one: 1 s, a 1 Hz display. */
#define PERIOD_MAX_NS 1000000000LL

struct token {
	const char *s;
	size_t len;
};

/*
 * Splits a line at runs of spaces and tabs into at most max tokens;
 * returns their number, or max + 1 when there are more.
 */
static int
split(const char *s, size_t len, struct token *tok, int max)
{
	size_t i = 0;
	int n = 0;

	for (;;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			return n;
		if (n == max)
			return max + 1;
		tok[n].s = s + i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
		tok[n].len = (size_t)(s + i - tok[n].s);
		n++;
	}
}

/* Reads "now = <ns>" (spaces optional around '='). */
static int
parse_now_line(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (len - i < 3 || memcmp(s + i, "now", 3) != 0)
		return -EINVAL;
	i += 3;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == len || s[i] != '=')
		return -EINVAL;
	i++;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	while (len > i && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return frames_latency_parse_i64(s + i, len - i, 0, INT64_MAX, out);
}

static void
snapshot_add_row(struct frames_latency_snapshot *snap,
		 const struct frames_latency_row *row)
{
	snap->st.rows++;
	switch (frames_latency_row_classify(row)) {
	case LATENCY_ROW_ZERO:
		snap->st.zero_rows++;
		break;
	case LATENCY_ROW_PENDING:
		snap->st.pending_rows++;
		break;
	case LATENCY_ROW_INVALID:
		snap->st.invalid_rows++;
		break;
	case LATENCY_ROW_PRESENTED:
		break;
	}
	if (snap->nrows < LATENCY_ROWS_MAX)
		snap->rows[snap->nrows++] = *row;
	else
		snap->st.rows_over++;
}

int
frames_latency_snapshot_parse(const char *buf, size_t len,
			      struct frames_latency_snapshot **out)
{
	struct frames_latency_snapshot *snap;
	struct frames_latency_lines it = {buf, buf + len};
	struct token tok[3];
	struct frames_latency_row row;
	const char *line;
	size_t llen;
	int terminated, ntok, any_row = 0, blank_after_rows = 0;
	int truncated = 0;
	int64_t v;

	snap = calloc(1, sizeof(*snap));
	if (!snap)
		return -ENOMEM;
	snap->period_ns = -1;
	snap->now_ns = -1;
	snap->st.snapshots = 1;

	while (frames_latency_next_line(&it, &line, &llen, &terminated)) {
		if (frames_latency_is_blank(line, llen)) {
			if (terminated && any_row)
				blank_after_rows = 1;
			continue;
		}
		/*
		 * A last line without its '\n' was cut off: "123\t45" may
		 * be the start of "123\t456789", so it is not believed.
		 */
		if (!terminated) {
			truncated = 1;
			snap->st.garbage_lines++;
			continue;
		}
		if (llen > LINE_LEN_MAX || memchr(line, '\0', llen)) {
			snap->st.garbage_lines++;
			continue;
		}
		ntok = split(line, llen, tok, 3);
		if (ntok == 3 &&
		    frames_latency_parse_i64(tok[0].s, tok[0].len, INT64_MIN,
					     INT64_MAX, &row.desired_ns) == 0 &&
		    frames_latency_parse_i64(tok[1].s, tok[1].len, INT64_MIN,
					     INT64_MAX, &row.actual_ns) == 0 &&
		    frames_latency_parse_i64(tok[2].s, tok[2].len, INT64_MIN,
					     INT64_MAX, &row.ready_ns) == 0) {
			snapshot_add_row(snap, &row);
			any_row = 1;
			blank_after_rows = 0;
			continue;
		}
		/*
		 * Before the rows: the period line, and on some vendor
		 * builds a "now = <ns>" line before or instead of it.
		 */
		if (!any_row && ntok == 1 && snap->period_ns < 0 &&
		    frames_latency_parse_i64(tok[0].s, tok[0].len, 0,
					     PERIOD_MAX_NS, &v) == 0) {
			snap->period_ns = v;
			continue;
		}
		if (!any_row && snap->now_ns < 0 && snap->period_ns < 0 &&
		    parse_now_line(line, llen, &v) == 0) {
			snap->now_ns = v;
			continue;
		}
		snap->st.garbage_lines++;
	}

	/*
	 * dumpsys ends the rows with an empty line; with no layer of that
	 * name it prints the period line alone.  Anything else was cut off
	 * or is not a --latency output at all.
	 */
	if (truncated || snap->st.rows_over > 0)
		snap->complete = 0;
	else if (any_row)
		snap->complete = blank_after_rows;
	else
		snap->complete = snap->period_ns >= 0 || snap->now_ns >= 0;
	if (!snap->complete)
		snap->st.incomplete = 1;
	*out = snap;
	return 0;
}

void
frames_latency_snapshot_free(struct frames_latency_snapshot *snap)
{
	free(snap);
}

int64_t
frames_latency_snapshot_period(const struct frames_latency_snapshot *snap)
{
	return snap->period_ns;
}

int64_t
frames_latency_snapshot_now(const struct frames_latency_snapshot *snap)
{
	return snap->now_ns;
}

int
frames_latency_snapshot_complete(const struct frames_latency_snapshot *snap)
{
	return snap->complete;
}

size_t
frames_latency_snapshot_rows(const struct frames_latency_snapshot *snap)
{
	return snap->nrows;
}

const struct frames_latency_row *
frames_latency_snapshot_row(const struct frames_latency_snapshot *snap,
			    size_t i)
{
	if (i >= snap->nrows)
		return NULL;
	return &snap->rows[i];
}

void
frames_latency_snapshot_get_stats(const struct frames_latency_snapshot *snap,
				  struct frames_latency_stats *st)
{
	*st = snap->st;
}
