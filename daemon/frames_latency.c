#include "frames_latency.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

/*
 * A real --latency line is at most three 20-character numbers and two
 * tabs; anything much longer is not one and is not worth tokenizing.
 */
#define LINE_LEN_MAX 256

/* The longest period line taken as one: 1 s, a 1 Hz display. */
#define PERIOD_MAX_NS 1000000000LL

/* A --list line is a name plus, on A15+, a wrapper of a few fields. */
#define LIST_LINE_MAX (LATENCY_NAME_MAX + 256)

#define TX_PREFIX	 "TX - "
#define SV_PREFIX	 "SurfaceView["
#define SV_PREFIX_A10	 "SurfaceView - "
#define BLAST_TAG	 "(BLAST)"
#define REQUESTED_PREFIX "RequestedLayerState{"
#define LAYER_HEADER	 "# layer: "

struct latency_snapshot {
	int64_t period_ns;
	int64_t now_ns;
	int complete;
	size_t nrows;
	struct latency_stats st;
	struct latency_row rows[LATENCY_ROWS_MAX];
};

struct latency_tracker {
	char *layer;
	char *app;
	int64_t wm;
	int had_keys;
	/* The last LATENCY_SEEN_MAX finalized keys, a ring. */
	int64_t seen[LATENCY_SEEN_MAX];
	size_t nseen;
	size_t seen_head;
	/* Keys of the frames waiting for a present, oldest first. */
	int64_t pending[LATENCY_ROWS_MAX];
	size_t npending;
	struct latency_stats st;
};

struct latency_list {
	char **names;
	/* Per name: the A15 line said " !handle" (the layer is going away). */
	unsigned char *dead;
	size_t n;
	size_t cap;
	struct latency_stats st;
};

enum dir_kind {
	/* Sorted first: a cycle lists the layers before it queries them. */
	DIR_LIST = 0,
	DIR_SNAPSHOT = 1,
};

struct dir_entry {
	int64_t capture;
	int64_t n;
	enum dir_kind kind;
	char *name;
};

struct latency_dir {
	char *path;
	struct dir_entry *entries;
	size_t nentries;
	size_t next;
	struct latency_tracker *trackers[LATENCY_DIR_TRACKERS_MAX];
	uint64_t used[LATENCY_DIR_TRACKERS_MAX];
	size_t ntrackers;
	uint64_t cycle;
	int64_t wm;
	int64_t coverage;
	struct latency_list *list;
	struct latency_stats st;
};

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

static int
starts_with(const char *s, size_t len, const char *prefix)
{
	size_t plen = strlen(prefix);

	return len >= plen && memcmp(s, prefix, plen) == 0;
}

/*
 * Parses s[0..len) as a whole decimal integer in [lo, hi].  Returns 0,
 * -EINVAL when it is not one, or -ERANGE.  The copy gives strtoll() a
 * terminator and the first-character test keeps it from skipping spaces
 * or taking a '+'.
 */
static int
parse_i64(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out)
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
	if (i >= len || !is_digit(buf[i]))
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

/* A position in a buffer that is read line by line. */
struct line_iter {
	const char *p;
	const char *end;
};

/*
 * Returns 1 and sets the next line (without its '\n' and a '\r' before
 * it) and whether a '\n' ended it, or 0 at the end of the buffer.
 */
static int
next_line(struct line_iter *it, const char **line, size_t *len, int *terminated)
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

static void
stats_add(struct latency_stats *dst, const struct latency_stats *a,
	  const struct latency_stats *b)
{
	/* dst += a - b, field by field; b may be NULL. */
	static const struct latency_stats zero;

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
	ADD(gaps);
	ADD(lists);
	ADD(list_names);
#undef ADD
}

enum latency_row_kind
latency_row_classify(const struct latency_row *row)
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

static int
is_package_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || c == '_' || c == '.';
}

int
latency_layer_package(const char *layer, char *buf, size_t size)
{
	const char *p = layer;
	size_t len, i;

	if (!layer)
		return -EINVAL;
	if (strncmp(p, TX_PREFIX, strlen(TX_PREFIX)) == 0)
		p += strlen(TX_PREFIX);
	if (strncmp(p, SV_PREFIX, strlen(SV_PREFIX)) == 0)
		p += strlen(SV_PREFIX);
	else if (strncmp(p, SV_PREFIX_A10, strlen(SV_PREFIX_A10)) == 0)
		p += strlen(SV_PREFIX_A10);
	len = strcspn(p, "/#](");
	if (len == 0 ||
	    !((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')))
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!is_package_char(p[i]))
			return -EINVAL;
	if (len >= size)
		return -ERANGE;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return 0;
}

/* Part 1: one --latency output. */

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
	return parse_i64(s + i, len - i, 0, INT64_MAX, out);
}

static void
snapshot_add_row(struct latency_snapshot *snap, const struct latency_row *row)
{
	snap->st.rows++;
	switch (latency_row_classify(row)) {
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
latency_snapshot_parse(const char *buf, size_t len,
		       struct latency_snapshot **out)
{
	struct latency_snapshot *snap;
	struct line_iter it = {buf, buf + len};
	struct token tok[3];
	struct latency_row row;
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

	while (next_line(&it, &line, &llen, &terminated)) {
		if (is_blank(line, llen)) {
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
		    parse_i64(tok[0].s, tok[0].len, INT64_MIN, INT64_MAX,
			      &row.desired_ns) == 0 &&
		    parse_i64(tok[1].s, tok[1].len, INT64_MIN, INT64_MAX,
			      &row.actual_ns) == 0 &&
		    parse_i64(tok[2].s, tok[2].len, INT64_MIN, INT64_MAX,
			      &row.ready_ns) == 0) {
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
		    parse_i64(tok[0].s, tok[0].len, 0, PERIOD_MAX_NS, &v) ==
			    0) {
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
latency_snapshot_free(struct latency_snapshot *snap)
{
	free(snap);
}

int64_t
latency_snapshot_period(const struct latency_snapshot *snap)
{
	return snap->period_ns;
}

int64_t
latency_snapshot_now(const struct latency_snapshot *snap)
{
	return snap->now_ns;
}

int
latency_snapshot_complete(const struct latency_snapshot *snap)
{
	return snap->complete;
}

size_t
latency_snapshot_rows(const struct latency_snapshot *snap)
{
	return snap->nrows;
}

const struct latency_row *
latency_snapshot_row(const struct latency_snapshot *snap, size_t i)
{
	if (i >= snap->nrows)
		return NULL;
	return &snap->rows[i];
}

void
latency_snapshot_get_stats(const struct latency_snapshot *snap,
			   struct latency_stats *st)
{
	*st = snap->st;
}

/* Part 2: the frames of one layer. */

int
latency_tracker_new(const char *layer, struct latency_tracker **out)
{
	struct latency_tracker *t = NULL;
	char app[LATENCY_NAME_MAX + 1];
	size_t len;
	int rc = -ENOMEM;

	if (!layer)
		return -EINVAL;
	len = strnlen(layer, LATENCY_NAME_MAX + 1);
	if (len == 0 || len > LATENCY_NAME_MAX)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto out;
	t->wm = INT64_MIN;
	t->layer = strdup(layer);
	if (!t->layer)
		goto out;
	if (latency_layer_package(layer, app, sizeof(app)) == 0) {
		t->app = strdup(app);
		if (!t->app)
			goto out;
	}
	*out = t;
	t = NULL;
	rc = 0;
out:
	latency_tracker_free(t);
	return rc;
}

void
latency_tracker_free(struct latency_tracker *t)
{
	if (!t)
		return;
	free(t->layer);
	free(t->app);
	free(t);
}

static int
seen_has(const struct latency_tracker *t, int64_t key)
{
	size_t i;

	for (i = 0; i < t->nseen; i++)
		if (t->seen[i] == key)
			return 1;
	return 0;
}

static void
seen_add(struct latency_tracker *t, int64_t key)
{
	t->seen[t->seen_head] = key;
	t->seen_head = (t->seen_head + 1) % LATENCY_SEEN_MAX;
	if (t->nseen < LATENCY_SEEN_MAX)
		t->nseen++;
}

static int
pending_find(const struct latency_tracker *t, int64_t key)
{
	size_t i;

	for (i = 0; i < t->npending; i++)
		if (t->pending[i] == key)
			return (int)i;
	return -1;
}

static void
pending_remove(struct latency_tracker *t, size_t i)
{
	memmove(&t->pending[i], &t->pending[i + 1],
		(t->npending - i - 1) * sizeof(t->pending[0]));
	t->npending--;
}

static void
pending_add(struct latency_tracker *t, int64_t key)
{
	/* Only a hostile input has more pending rows than a ring holds. */
	if (t->npending == LATENCY_ROWS_MAX) {
		pending_remove(t, 0);
		t->st.pending_lost++;
	}
	t->pending[t->npending++] = key;
}

static int
snapshot_has_key(const struct latency_snapshot *snap, int64_t key)
{
	size_t i;

	for (i = 0; i < snap->nrows; i++)
		if (snap->rows[i].desired_ns == key)
			return 1;
	return 0;
}

/* After a complete snapshot: see the header's "Watermark". */
static void
tracker_advance(struct latency_tracker *t, int64_t capture_ns)
{
	int64_t w = capture_ns;
	size_t i;

	for (i = 0; i < t->npending; i++) {
		int64_t p = t->pending[i];

		/* Keys are > 0, so capture_ns - p cannot overflow. */
		if (p <= capture_ns &&
		    capture_ns - p > LATENCY_PENDING_STALE_NS)
			continue;
		if (p - 1 < w)
			w = p - 1;
	}
	if (w > t->wm)
		t->wm = w;
}

int
latency_tracker_feed(struct latency_tracker *t, int64_t capture_ns,
		     const struct latency_snapshot *snap, latency_frame_cb cb,
		     void *ctx)
{
	const struct latency_row *r;
	struct latency_frame f;
	size_t i, keyed = 0;
	int overlap = 0, pi, rc;

	stats_add(&t->st, &snap->st, NULL);
	for (i = 0; i < snap->nrows; i++) {
		r = &snap->rows[i];
		if (r->desired_ns <= 0 || r->desired_ns == LATENCY_PENDING)
			continue;
		keyed++;
		if (seen_has(t, r->desired_ns)) {
			t->st.duplicates++;
			overlap = 1;
			continue;
		}
		pi = pending_find(t, r->desired_ns);
		if (pi >= 0)
			overlap = 1;
		switch (latency_row_classify(r)) {
		case LATENCY_ROW_ZERO:
			break;
		case LATENCY_ROW_PENDING:
			if (pi < 0)
				pending_add(t, r->desired_ns);
			break;
		case LATENCY_ROW_INVALID:
			if (pi >= 0)
				pending_remove(t, (size_t)pi);
			seen_add(t, r->desired_ns);
			t->st.frames_invalid++;
			break;
		case LATENCY_ROW_PRESENTED:
			if (pi >= 0)
				pending_remove(t, (size_t)pi);
			seen_add(t, r->desired_ns);
			t->st.frames++;
			if (!cb)
				break;
			f.layer = t->layer;
			f.app = t->app;
			f.desired_ns = r->desired_ns;
			f.present_ns = r->actual_ns;
			f.ready_ns = r->ready_ns > 0 && r->ready_ns !=
								LATENCY_PENDING
					     ? r->ready_ns
					     : -1;
			rc = cb(ctx, &f);
			if (rc != 0)
				return rc;
			break;
		}
	}
	if (!snap->complete)
		goto out;

	/*
	 * A complete snapshot shows the whole ring: a pending frame not in
	 * it was pushed out, or cleared, before its fence was read.
	 */
	for (i = t->npending; i-- > 0;) {
		if (snapshot_has_key(snap, t->pending[i]))
			continue;
		pending_remove(t, i);
		t->st.pending_lost++;
	}
	/*
	 * A full ring with nothing in common with what came before means
	 * more frames came between the two snapshots than the ring holds.
	 */
	if (t->had_keys && !overlap && keyed >= LATENCY_RING_ROWS &&
	    snap->st.zero_rows == 0) {
		t->st.gaps++;
		log_debug("frames of layer '%s' may be missing before %lld: "
			  "the ring overflowed between two snapshots",
			  t->layer, (long long)capture_ns);
	}
	tracker_advance(t, capture_ns);
out:
	if (keyed > 0)
		t->had_keys = 1;
	return 0;
}

int64_t
latency_tracker_watermark(const struct latency_tracker *t)
{
	return t->wm;
}

const char *
latency_tracker_layer(const struct latency_tracker *t)
{
	return t->layer;
}

unsigned
latency_tracker_pending(const struct latency_tracker *t)
{
	return (unsigned)t->npending;
}

void
latency_tracker_get_stats(const struct latency_tracker *t,
			  struct latency_stats *st)
{
	*st = t->st;
}

/* Part 3: --list. */

/* Whether s[0..p) ends with '#' and at least one digit. */
static int
ends_with_seq(const char *s, size_t p)
{
	size_t j = p;

	while (j > 0 && is_digit(s[j - 1]))
		j--;
	return j < p && j > 0 && s[j - 1] == '#';
}

/*
 * The name inside an A15 `RequestedLayerState{...}` line body (what
 * follows the prefix), as latency_list_name() describes.  Returns its
 * length.
 */
static size_t
requested_name_len(const char *s, size_t len)
{
	static const char *const markers[] = {
		" parentId=",	" relativeParentId=", " isRelativeOf=",
		" mirrorId=",	" !handle",	      " z=",
		" layerStack=",
	};
	size_t i, k, first = len, endc;

	for (i = 1; i < len; i++) {
		if (s[i] != ' ')
			continue;
		for (k = 0; k < sizeof(markers) / sizeof(markers[0]); k++) {
			if (!starts_with(s + i, len - i, markers[k]))
				continue;
			if (ends_with_seq(s, i))
				return i;
			if (first == len)
				first = i;
		}
	}
	endc = len > 0 && s[len - 1] == '}' ? len - 1 : len;
	if (ends_with_seq(s, endc))
		return endc;
	return first < endc ? first : endc;
}

static int
list_add(struct latency_list *list, const char *name, size_t len, int dead)
{
	unsigned char *grown_dead;
	char **grown, *copy;
	size_t cap;

	if (list->n == list->cap) {
		cap = list->cap ? 2 * list->cap : 64;
		grown = realloc(list->names, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		list->names = grown;
		grown_dead = realloc(list->dead, cap);
		if (!grown_dead)
			return -ENOMEM;
		list->dead = grown_dead;
		list->cap = cap;
	}
	copy = strndup(name, len);
	if (!copy)
		return -ENOMEM;
	list->dead[list->n] = (unsigned char)dead;
	list->names[list->n++] = copy;
	list->st.list_names++;
	return 0;
}

/* Whether the rest of an A15 line after the name holds " !handle". */
static int
has_dead_handle(const char *s, size_t len)
{
	static const char mark[] = " !handle";
	size_t i, mlen = sizeof(mark) - 1;

	for (i = 0; i + mlen <= len; i++)
		if (memcmp(s + i, mark, mlen) == 0 &&
		    (i + mlen == len || s[i + mlen] == ' ' ||
		     s[i + mlen] == '}'))
			return 1;
	return 0;
}

int
latency_list_parse(const char *buf, size_t len, struct latency_list **out)
{
	struct latency_list *list = NULL;
	struct line_iter it = {buf, buf + len};
	const char *line;
	size_t llen, nlen, plen = strlen(REQUESTED_PREFIX);
	int terminated, dead, rc = -ENOMEM;

	list = calloc(1, sizeof(*list));
	if (!list)
		goto out;
	list->st.lists = 1;
	while (next_line(&it, &line, &llen, &terminated)) {
		if (is_blank(line, llen))
			continue;
		if (llen > LIST_LINE_MAX || memchr(line, '\0', llen) ||
		    list->n >= LATENCY_LIST_NAMES_MAX) {
			list->st.garbage_lines++;
			continue;
		}
		dead = 0;
		nlen = llen;
		if (starts_with(line, llen, REQUESTED_PREFIX)) {
			line += plen;
			llen -= plen;
			nlen = requested_name_len(line, llen);
			dead = has_dead_handle(line + nlen, llen - nlen);
		}
		/*
		 * Names may end in spaces and so are kept verbatim, but an
		 * all-blank one cannot be passed to --latency.
		 */
		if (nlen == 0 || nlen > LATENCY_NAME_MAX ||
		    is_blank(line, nlen)) {
			list->st.garbage_lines++;
			continue;
		}
		rc = list_add(list, line, nlen, dead);
		if (rc < 0)
			goto out;
	}
	*out = list;
	list = NULL;
	rc = 0;
out:
	latency_list_free(list);
	return rc;
}

void
latency_list_free(struct latency_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++)
		free(list->names[i]);
	free(list->names);
	free(list->dead);
	free(list);
}

size_t
latency_list_count(const struct latency_list *list)
{
	return list->n;
}

const char *
latency_list_name(const struct latency_list *list, size_t i)
{
	if (i >= list->n)
		return NULL;
	return list->names[i];
}

void
latency_list_get_stats(const struct latency_list *list,
		       struct latency_stats *st)
{
	*st = list->st;
}

static int
pkg_follows(const char *s, const char *pkg, size_t plen, const char *stops)
{
	return strncmp(s, pkg, plen) == 0 && s[plen] != '\0' &&
	       strchr(stops, s[plen]) != NULL;
}

static int
is_app_layer(const char *name, const char *pkg, size_t plen)
{
	if (pkg_follows(name, pkg, plen, "/#("))
		return 1;
	if (strncmp(name, SV_PREFIX, strlen(SV_PREFIX)) == 0)
		return pkg_follows(name + strlen(SV_PREFIX), pkg, plen, "/]");
	if (strncmp(name, SV_PREFIX_A10, strlen(SV_PREFIX_A10)) == 0)
		return pkg_follows(name + strlen(SV_PREFIX_A10), pkg, plen,
				   "/#");
	return 0;
}

/*
 * The name without its first "(BLAST)" and then without a "#<digits>"
 * suffix, so that a BLAST child and its parent compare equal.  Returns a
 * string to free, or NULL.
 */
static char *
blast_base(const char *name)
{
	const char *tag = strstr(name, BLAST_TAG);
	size_t len = strlen(name), tlen = strlen(BLAST_TAG), j;
	char *base;

	base = malloc(len + 1);
	if (!base)
		return NULL;
	if (tag) {
		memcpy(base, name, (size_t)(tag - name));
		memcpy(base + (tag - name), tag + tlen,
		       len - (size_t)(tag - name) - tlen + 1);
		len -= tlen;
	} else {
		memcpy(base, name, len + 1);
	}
	j = len;
	while (j > 0 && is_digit(base[j - 1]))
		j--;
	if (j < len && j > 0 && base[j - 1] == '#')
		base[j - 1] = '\0';
	return base;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
latency_list_pick(const struct latency_list *list, const char *package,
		  const char **names, size_t max, size_t *n)
{
	size_t *cand = NULL, ncand = 0, nblast = 0, i, plen, count = 0;
	char **bases = NULL, *base = NULL;
	const char *name;
	int rc = -ENOMEM;

	*n = 0;
	if (!package || package[0] == '\0')
		return -EINVAL;
	plen = strlen(package);
	if (list->n == 0)
		return 0;
	cand = malloc(list->n * sizeof(*cand));
	bases = calloc(list->n, sizeof(*bases));
	if (!cand || !bases)
		goto out;
	for (i = 0; i < list->n; i++) {
		if (list->dead[i] ||
		    !is_app_layer(list->names[i], package, plen))
			continue;
		cand[ncand++] = i;
		if (strstr(list->names[i], BLAST_TAG)) {
			bases[nblast] = blast_base(list->names[i]);
			if (!bases[nblast])
				goto out;
			nblast++;
		}
	}
	qsort(bases, nblast, sizeof(*bases), cmp_str);
	for (i = 0; i < ncand; i++) {
		name = list->names[cand[i]];
		if (!strstr(name, BLAST_TAG) && nblast > 0) {
			base = blast_base(name);
			if (!base)
				goto out;
			if (bsearch(&base, bases, nblast, sizeof(*bases),
				    cmp_str)) {
				free(base);
				base = NULL;
				continue;
			}
			free(base);
			base = NULL;
		}
		if (count < max)
			names[count] = name;
		count++;
	}
	*n = count < max ? count : max;
	rc = count > max ? -ENOSPC : 0;
out:
	if (bases)
		for (i = 0; i < nblast; i++)
			free(bases[i]);
	free(bases);
	free(cand);
	return rc;
}

/* Part 4: replay of a recorded latency/ directory. */

/*
 * Reads "<capture>-<n>.txt" or "<capture>.list".  Returns 0 and fills the
 * entry's numbers and kind, or -EINVAL.
 */
static int
parse_entry_name(const char *name, struct dir_entry *e)
{
	size_t i = 0, j;

	while (is_digit(name[i]))
		i++;
	if (i == 0 || i > 19 || parse_i64(name, i, 0, INT64_MAX, &e->capture))
		return -EINVAL;
	if (strcmp(name + i, ".list") == 0) {
		e->kind = DIR_LIST;
		e->n = 0;
		return 0;
	}
	if (name[i] != '-')
		return -EINVAL;
	j = i + 1;
	while (is_digit(name[j]))
		j++;
	if (j == i + 1 || j - i - 1 > 6 ||
	    parse_i64(name + i + 1, j - i - 1, 0, 999999, &e->n))
		return -EINVAL;
	if (strcmp(name + j, ".txt") != 0)
		return -EINVAL;
	e->kind = DIR_SNAPSHOT;
	return 0;
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct dir_entry *x = a, *y = b;

	if (x->capture != y->capture)
		return x->capture < y->capture ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

int
latency_dir_open(const char *path, struct latency_dir **out)
{
	struct latency_dir *d = NULL;
	struct dir_entry e, *grown;
	struct dirent *de;
	DIR *dir = NULL;
	size_t cap = 0;
	int rc = -ENOMEM;

	d = calloc(1, sizeof(*d));
	if (!d)
		goto out;
	d->wm = INT64_MIN;
	d->coverage = INT64_MAX;
	d->path = strdup(path);
	if (!d->path)
		goto out;
	dir = opendir(path);
	if (!dir) {
		rc = -errno;
		log_warn("cannot open latency directory '%s'", path);
		goto out;
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno != 0) {
				rc = -errno;
				log_warn("cannot read latency directory '%s'",
					 path);
				goto out;
			}
			break;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (parse_entry_name(de->d_name, &e) < 0 ||
		    d->nentries >= LATENCY_DIR_FILES_MAX) {
			log_debug("skipping '%s/%s': not a recorded snapshot",
				  path, de->d_name);
			d->st.files_skipped++;
			continue;
		}
		if (d->nentries == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(d->entries, cap * sizeof(*grown));
			if (!grown)
				goto out;
			d->entries = grown;
		}
		e.name = strdup(de->d_name);
		if (!e.name)
			goto out;
		d->entries[d->nentries++] = e;
	}
	if (d->nentries > 0) {
		qsort(d->entries, d->nentries, sizeof(*d->entries), cmp_entry);
		d->coverage = d->entries[0].capture;
	}
	*out = d;
	d = NULL;
	rc = 0;
out:
	if (dir)
		closedir(dir);
	latency_dir_free(d);
	return rc;
}

void
latency_dir_free(struct latency_dir *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nentries; i++)
		free(d->entries[i].name);
	free(d->entries);
	for (i = 0; i < d->ntrackers; i++)
		latency_tracker_free(d->trackers[i]);
	latency_list_free(d->list);
	free(d->path);
	free(d);
}

/*
 * Reads the regular file dir/name, at most max bytes, into a new
 * NUL-terminated buffer.  Returns 0, or a negative errno (-EFBIG when it
 * is larger than max, -EINVAL when it is not a regular file).
 */
static int
read_file(const char *dir, const char *name, size_t max, char **out,
	  size_t *outlen)
{
	char path[PATH_MAX];
	struct stat sb;
	char *buf = NULL;
	size_t len = 0;
	ssize_t r;
	int fd = -1, n, rc;

	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0) {
		rc = -errno;
		goto out;
	}
	rc = -EINVAL;
	if (!S_ISREG(sb.st_mode))
		goto out;
	rc = -EFBIG;
	if (sb.st_size < 0 || (uint64_t)sb.st_size > max)
		goto out;
	rc = -ENOMEM;
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf)
		goto out;
	/* A file that grows while read is cut at the size fstat() gave. */
	while (len < (size_t)sb.st_size) {
		r = read(fd, buf + len, (size_t)sb.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	close(fd);
	return rc;
}

/*
 * Splits a recorded snapshot into its "# layer: " name (NUL-terminated in
 * place) and the dumpsys output after it.  Returns 0 or -EINVAL.
 */
static int
split_recorded(char *buf, size_t len, const char **layer, const char **body,
	       size_t *blen)
{
	size_t hlen = strlen(LAYER_HEADER), nlen;
	char *nl, *name;

	nl = memchr(buf, '\n', len);
	nlen = nl ? (size_t)(nl - buf) : len;
	if (nlen < hlen || memcmp(buf, LAYER_HEADER, hlen) != 0)
		return -EINVAL;
	name = buf + hlen;
	nlen -= hlen;
	if (nlen > 0 && name[nlen - 1] == '\r')
		nlen--;
	if (nlen == 0 || nlen > LATENCY_NAME_MAX || memchr(name, '\0', nlen))
		return -EINVAL;
	name[nlen] = '\0';
	*layer = name;
	*body = nl ? nl + 1 : buf + len;
	*blen = nl ? len - (size_t)(nl + 1 - buf) : 0;
	return 0;
}

/* The tracker of layer, made (and the stalest one dropped) if needed. */
static int
dir_tracker(struct latency_dir *d, const char *layer,
	    struct latency_tracker **out)
{
	size_t i, victim = 0;
	int rc;

	for (i = 0; i < d->ntrackers; i++) {
		if (strcmp(latency_tracker_layer(d->trackers[i]), layer) == 0) {
			d->used[i] = d->cycle;
			*out = d->trackers[i];
			return 0;
		}
	}
	if (d->ntrackers == LATENCY_DIR_TRACKERS_MAX) {
		for (i = 1; i < d->ntrackers; i++)
			if (d->used[i] < d->used[victim])
				victim = i;
		latency_tracker_free(d->trackers[victim]);
		d->trackers[victim] = d->trackers[--d->ntrackers];
		d->used[victim] = d->used[d->ntrackers];
	}
	rc = latency_tracker_new(layer, &d->trackers[d->ntrackers]);
	if (rc < 0)
		return rc;
	d->used[d->ntrackers] = d->cycle;
	*out = d->trackers[d->ntrackers++];
	return 0;
}

/*
 * Replays one recorded snapshot.  Returns 0, setting *fed and *wm to its
 * tracker's watermark unless the file was skipped, or a negative errno.
 */
static int
dir_snapshot(struct latency_dir *d, const struct dir_entry *e, char *buf,
	     size_t len, latency_frame_cb cb, void *ctx, int *fed, int64_t *wm)
{
	struct latency_snapshot *snap = NULL;
	struct latency_tracker *t;
	struct latency_stats before, after;
	const char *layer, *body;
	size_t blen;
	int rc;

	if (split_recorded(buf, len, &layer, &body, &blen) < 0) {
		log_warnx("cannot parse '%s/%s': the first line is not "
			  "'%s<layer name>'",
			  d->path, e->name, LAYER_HEADER);
		d->st.files_skipped++;
		return 0;
	}
	rc = latency_snapshot_parse(body, blen, &snap);
	if (rc < 0)
		return rc;
	rc = dir_tracker(d, layer, &t);
	if (rc < 0)
		goto out;
	d->st.files++;
	latency_tracker_get_stats(t, &before);
	rc = latency_tracker_feed(t, e->capture, snap, cb, ctx);
	latency_tracker_get_stats(t, &after);
	stats_add(&d->st, &after, &before);
	*wm = latency_tracker_watermark(t);
	*fed = 1;
out:
	latency_snapshot_free(snap);
	return rc;
}

/* Reads one recorded --list; returns 0 or -ENOMEM. */
static int
dir_list(struct latency_dir *d, const char *buf, size_t len)
{
	struct latency_list *list;
	struct latency_stats st;
	int rc;

	rc = latency_list_parse(buf, len, &list);
	if (rc < 0)
		return rc;
	latency_list_get_stats(list, &st);
	stats_add(&d->st, &st, NULL);
	d->st.files++;
	latency_list_free(d->list);
	d->list = list;
	return 0;
}

int
latency_dir_next(struct latency_dir *d, latency_frame_cb cb, void *ctx,
		 int64_t *capture_ns)
{
	const struct dir_entry *e;
	int64_t capture, wm, cycle_wm = INT64_MAX;
	char *buf = NULL;
	size_t len, max;
	int rc = 0, fed = 0, fed_one, listed = 0;

	if (d->next >= d->nentries)
		return 0;
	capture = d->entries[d->next].capture;
	d->cycle++;
	while (d->next < d->nentries &&
	       d->entries[d->next].capture == capture) {
		e = &d->entries[d->next++];
		max = e->kind == DIR_LIST ? LATENCY_LIST_FILE_MAX
					  : LATENCY_SNAPSHOT_FILE_MAX;
		rc = read_file(d->path, e->name, max, &buf, &len);
		if (rc == -ENOMEM)
			goto out;
		if (rc < 0) {
			log_warnx("cannot read '%s/%s': %s", d->path, e->name,
				  strerror(-rc));
			d->st.files_skipped++;
			continue;
		}
		if (e->kind == DIR_LIST) {
			rc = dir_list(d, buf, len);
			if (rc == 0)
				listed = 1;
		} else {
			fed_one = 0;
			rc = dir_snapshot(d, e, buf, len, cb, ctx, &fed_one,
					  &wm);
			if (fed_one) {
				fed = 1;
				if (wm < cycle_wm)
					cycle_wm = wm;
			}
		}
		free(buf);
		buf = NULL;
		if (rc != 0)
			goto out;
	}
	/*
	 * Frames of every layer polled in this cycle are known up to the
	 * lowest of their watermarks; a cycle that polled no layer (only a
	 * --list) had nothing to wait for.
	 */
	if (fed) {
		if (cycle_wm > d->wm)
			d->wm = cycle_wm;
	} else if (listed && capture > d->wm) {
		d->wm = capture;
	}
	if (capture_ns)
		*capture_ns = capture;
	rc = 1;
out:
	free(buf);
	return rc;
}

int64_t
latency_dir_watermark(const struct latency_dir *d)
{
	return d->wm;
}

int64_t
latency_dir_coverage(const struct latency_dir *d)
{
	return d->coverage;
}

const struct latency_list *
latency_dir_list(const struct latency_dir *d)
{
	return d->list;
}

void
latency_dir_get_stats(const struct latency_dir *d, struct latency_stats *st)
{
	*st = d->st;
}
