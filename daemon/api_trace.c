/*
 * GET /v1/trace: see api_trace.h for what the trace holds.
 *
 * Two passes inside one read transaction, so that both see the same rows:
 * the first walks the matching taps in time order to find where the size
 * limits cut (the cost of a tap is known from its frame count); the second
 * reads the taps up to that cut grouped by app, so that each app's process
 * and tracks are built in one go, and looks up each tap's frames.  The
 * answer is built in memory, bounded by the limits.
 */
#include "api_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_request.h"
#include "store_taps.h"
#include "tapjson.h"

#define TRACE_MAX_TAPS	     100000
#define TRACE_MAX_EVENTS     400000
#define TRACE_MAX_TAP_FRAMES 1000
#define TRACE_LANES	     16
#define TRACE_APP_MAX	     255
#define TID_TAPS	     1
#define TID_FRAMES	     101

static const char *const params[] = {"since", "until", "app", "session", NULL};

struct trace_query {
	const char *app;
	int64_t since, until; /* -1 when not set */
	int64_t session;      /* 0 when not set */
};

/* One response frame, in wall-clock microseconds. */
struct trace_frame {
	int64_t seq;
	int64_t start_us, present_us;
	uint32_t jank;
	int in_burst;
};

/*
 * The tracks of one app: the end of the last slice of each lane, so that
 * a slice goes to the first lane it does not overlap.  A lane's slices
 * then follow one another in time, whatever order they come in.
 */
struct trace_lanes {
	int64_t end[TRACE_LANES];
	int n;
};

struct trace {
	FILE *f;
	struct store *st;
	int64_t nevents; /* events written, for the commas */
	int pid;	 /* the current app's process */
	struct trace_lanes taps, frame_lanes;
	char *cur; /* the current app, NULL for the unknown one */
	int have;  /* set once the first app is begun */
	struct trace_frame *fr;
	size_t fr_cap;
	int64_t ntaps, nframes, overlaps, skipped;
};

static int
read_query(struct api_request *rq, struct trace_query *q)
{
	int rc;

	q->app = NULL;
	q->since = q->until = -1;
	q->session = 0;
	if ((rc = api_request_allow(rq, params)) < 0 ||
	    (rc = api_request_param_time(rq, "since", &q->since)) < 0 ||
	    (rc = api_request_param_time(rq, "until", &q->until)) < 0 ||
	    (rc = api_request_param_word(rq, "app", TRACE_APP_MAX, &q->app)) <
		    0 ||
	    (rc = api_request_param_int(rq, "session", 1, INT64_MAX,
					&q->session)) < 0)
		return rc;
	if (q->since >= 0 && q->until >= 0)
		return api_request_check_range(rq, q->since, q->until);
	return 0;
}

/*
 * The store's filter of the query: taps without a wall time cannot be
 * placed, so only those with one.
 */
static void
trace_filter(const struct trace_query *q, struct store_filter *f)
{
	store_filter_init(f);
	store_filter_app(f, q->app);
	f->session = q->session;
	f->wall = STORE_WALL_KNOWN;
	if (q->since >= 0)
		f->since_ns = q->since;
	if (q->until >= 0)
		f->until_ns = q->until;
}

/* The frames of a tap the trace shows, an upper bound of its cost. */
static int64_t
frames_shown(int64_t frames)
{
	if (frames < 0)
		return 0;
	return frames < TRACE_MAX_TAP_FRAMES ? frames : TRACE_MAX_TAP_FRAMES;
}

/* The walk that finds the cut: what fit so far, and where it ends. */
struct trace_cut {
	int64_t taps, events;
	int cut;
	int64_t wall, id;
};

static int
cut_row(void *ctx, int64_t id, const struct store_tap *tap)
{
	struct trace_cut *c = ctx;
	int64_t cost = 3 + 2 * frames_shown(tap->frames);

	if (c->taps == TRACE_MAX_TAPS || c->events + cost > TRACE_MAX_EVENTS) {
		c->cut = 1;
		c->wall = tap->wall_ns;
		c->id = id;
		return 1;
	}
	c->taps++;
	c->events += cost;
	return 0;
}

/*
 * Walks the matching taps in time order and finds the first one that
 * does not fit the limits: sets c->cut = 1 and its wall time and id, or
 * c->cut = 0 when all fit.  A tap costs at most its slice, its finger-down
 * and first-frame slices, and per frame a slice and an instant.
 */
static int
find_cut(struct store *st, const struct store_filter *f, struct trace_cut *c)
{
	memset(c, 0, sizeof(*c));
	return store_taps_walk(st, f, STORE_ORDER_WALL, 0, cut_row, c);
}

/* Taps of the other filters without a wall time, which are left out. */
static int
count_no_wall(struct store *st, const struct trace_query *q, int64_t *n)
{
	struct store_filter f;

	*n = 0;
	/* A time range excludes them by definition. */
	if (q->since >= 0 || q->until >= 0)
		return 0;
	store_filter_init(&f);
	store_filter_app(&f, q->app);
	f.session = q->session;
	f.wall = STORE_WALL_UNKNOWN;
	return store_taps_count(st, &f, n);
}

/*
 * Monotonic ns shifted by off to wall-clock ns, rounded to microseconds.
 * Returns 0, or -ERANGE when it does not fit.
 */
static int
to_us(int64_t mono_ns, int64_t off, int64_t *us)
{
	int64_t ns, q;

	if (__builtin_add_overflow(mono_ns, off, &ns) ||
	    __builtin_add_overflow(ns, 500, &ns))
		return -ERANGE;
	q = ns / 1000;
	if (ns % 1000 < 0)
		q--;
	*us = q;
	return 0;
}

/* The first lane free at start, given the slice's end, or -1. */
static int
lane_take(struct trace_lanes *l, int64_t start, int64_t end)
{
	int i;

	for (i = 0; i < l->n; i++) {
		if (l->end[i] <= start) {
			l->end[i] = end;
			return i;
		}
	}
	if (l->n == TRACE_LANES)
		return -1;
	l->end[l->n] = end;
	return l->n++;
}

/* A lane for an instant at ts: the first free one, else the first. */
static int
lane_point(struct trace_lanes *l, int64_t ts)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->end[i] <= ts)
			return i;
	if (l->n == 0) {
		l->end[0] = INT64_MIN;
		l->n = 1;
	}
	return 0;
}

static void
comma(struct trace *t)
{
	if (t->nevents > 0)
		fputc(',', t->f);
	t->nevents++;
}

static void
event_x(struct trace *t, const char *name, const char *cat, int64_t ts,
	int64_t dur, int tid, const char *args)
{
	comma(t);
	fprintf(t->f,
		"{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%" PRId64
		",\"dur\":%" PRId64 ",\"pid\":%d,\"tid\":%d,\"args\":%s}",
		name, cat, ts, dur, t->pid, tid, args);
}

static void
event_i(struct trace *t, const char *name, const char *cat, int64_t ts, int tid,
	const char *args)
{
	comma(t);
	fprintf(t->f,
		"{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\","
		"\"ts\":%" PRId64 ",\"pid\":%d,\"tid\":%d,\"args\":%s}",
		name, cat, ts, t->pid, tid, args);
}

/* A metadata event; value is JSON text (a string or a number). */
static void
event_m(struct trace *t, const char *name, int tid, const char *key,
	const char *value)
{
	comma(t);
	/* Consumers file metadata under the category "__metadata". */
	fprintf(t->f,
		"{\"name\":\"%s\",\"cat\":\"__metadata\",\"ph\":\"M\","
		"\"pid\":%d,\"tid\":%d,\"args\":{\"%s\":%s}}",
		name, t->pid, tid, key, value);
}

/*
 * Names n lanes from tid on: the first is plain label, the others
 * "label #2" and on, sorted in the order of their tids.
 */
static void
name_lanes(struct trace *t, int n, int tid, const char *label)
{
	char name[32], value[16];
	int i;

	for (i = 0; i < n; i++) {
		if (i == 0)
			snprintf(name, sizeof(name), "\"%s\"", label);
		else
			snprintf(name, sizeof(name), "\"%s #%d\"", label,
				 i + 1);
		event_m(t, "thread_name", tid + i, "name", name);
		snprintf(value, sizeof(value), "%d", tid + i);
		event_m(t, "thread_sort_index", tid + i, "sort_index", value);
	}
}

/* Names the tracks an app used, once its taps are all written. */
static void
end_app(struct trace *t)
{
	name_lanes(t, t->taps.n, TID_TAPS, "taps");
	name_lanes(t, t->frame_lanes.n, TID_FRAMES, "frames");
	t->taps.n = 0;
	t->frame_lanes.n = 0;
}

/*
 * Starts the process of an app; obj is the tap object of its first tap,
 * whose "app" member is the name made safe for JSON (or null).
 */
static int
begin_app(struct trace *t, const cJSON *obj)
{
	const cJSON *app = cJSON_GetObjectItemCaseSensitive(obj, "app");
	char value[16], *name;
	cJSON *s;

	t->pid++;
	if (cJSON_IsString(app))
		name = cJSON_PrintUnformatted(app);
	else if ((s = cJSON_CreateString(STORE_APP_UNKNOWN)) != NULL) {
		name = cJSON_PrintUnformatted(s);
		cJSON_Delete(s);
	} else {
		name = NULL;
	}
	if (!name)
		return -ENOMEM;
	event_m(t, "process_name", 0, "name", name);
	cJSON_free(name);
	snprintf(value, sizeof(value), "%d", t->pid);
	event_m(t, "process_sort_index", 0, "sort_index", value);
	return 0;
}

static int
frame_cmp(const void *a, const void *b)
{
	const struct trace_frame *x = a, *y = b;

	if (x->start_us != y->start_us)
		return x->start_us < y->start_us ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Where read_frames() puts the frames of one tap. */
struct frames_read {
	struct trace *t;
	int64_t off;
	size_t k, n;
};

static int
frame_row(void *ctx, int64_t seq, const struct store_frame *in)
{
	struct frames_read *r = ctx;
	struct trace_frame *fr;

	/* The store's limit says so too: the array is never overrun. */
	if (r->k == r->n)
		return 1;
	fr = &r->t->fr[r->k];
	fr->seq = seq;
	fr->jank = in->jank;
	fr->in_burst = in->in_burst;
	if (to_us(in->start_ns, r->off, &fr->start_us) < 0 ||
	    to_us(in->present_ns, r->off, &fr->present_us) < 0 ||
	    fr->present_us < fr->start_us)
		return 0;
	r->k++;
	return 0;
}

/*
 * Reads a tap's frames (at most n, the tap's own count, capped) into
 * t->fr in wall-clock microseconds, dropping any presented before it
 * started.  Returns their number or a negative errno.
 */
static int
read_frames(struct trace *t, int64_t id, int64_t off, int64_t n)
{
	struct frames_read r = {t, off, 0, 0};
	struct trace_frame *fr;
	int rc;

	if (n <= 0)
		return 0;
	if ((size_t)n > t->fr_cap) {
		fr = realloc(t->fr, (size_t)n * sizeof(*fr));
		if (!fr)
			return -ENOMEM;
		t->fr = fr;
		t->fr_cap = (size_t)n;
	}
	r.n = (size_t)n;
	rc = store_tap_frames(t->st, id, n, frame_row, &r);
	if (rc < 0)
		return rc;
	return (int)r.k;
}

/* The args of a frame's events. */
static int
frame_args(const struct trace_frame *fr, int64_t id, char *buf, size_t size)
{
	char *jank = NULL;
	cJSON *arr;
	int n;

	/* JANK_NONE alone, the usual case, needs no allocation. */
	if (fr->jank & ~UINT32_C(1)) {
		arr = tapjson_jank_new(fr->jank);
		jank = arr ? cJSON_PrintUnformatted(arr) : NULL;
		cJSON_Delete(arr);
		if (!jank)
			return -ENOMEM;
	}
	n = snprintf(buf, size,
		     "{\"tap\":%" PRId64 ",\"seq\":%" PRId64
		     ",\"in_burst\":%s,\"jank\":%s}",
		     id, fr->seq, fr->in_burst ? "true" : "false",
		     jank ? jank : "[]");
	cJSON_free(jank);
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

/*
 * Writes a tap's frames: each a slice on the frames tracks, and each of
 * the burst also an instant on the tap's own track when the tap is a
 * slice there (tap_tid > 0) that holds it.
 */
static int
write_frames(struct trace *t, int nfr, int64_t id, int tap_tid,
	     int64_t tap_start, int64_t tap_end)
{
	const struct trace_frame *fr;
	char args[1024];
	int i, lane, rc;

	if (nfr > 0)
		qsort(t->fr, (size_t)nfr, sizeof(*t->fr), frame_cmp);
	for (i = 0; i < nfr; i++) {
		fr = &t->fr[i];
		if ((rc = frame_args(fr, id, args, sizeof(args))) < 0)
			return rc;
		lane = lane_take(&t->frame_lanes, fr->start_us, fr->present_us);
		if (lane >= 0) {
			event_x(t,
				fr->in_burst ? "frame" : "frame (after burst)",
				"frame", fr->start_us,
				fr->present_us - fr->start_us,
				TID_FRAMES + lane, args);
		} else {
			t->overlaps++;
			event_i(t, "frame", "frame", fr->present_us,
				TID_FRAMES + lane_point(&t->frame_lanes,
							fr->present_us),
				args);
		}
		if (fr->in_burst && tap_tid > 0 &&
		    fr->present_us >= tap_start && fr->present_us <= tap_end)
			event_i(t, "present", "present", fr->present_us,
				tap_tid, args);
		t->nframes++;
	}
	return 0;
}

/* Writes one tap (the current row of stmt) and its frames. */
static int
write_tap(struct trace *t, int64_t id, const struct store_tap *tap,
	  const char *args)
{
	int64_t off, start, end, ff_end, down;
	int kind, lane, nfr, tid = 0;
	char name[64], ffargs[96];

	kind = store_kind_index(tap->kind);
	if (kind < 0)
		kind = STORE_KIND_COUNT;
	if (__builtin_sub_overflow(tap->wall_ns, tap->t_up_ns, &off) ||
	    to_us(tap->t_up_ns, off, &start) < 0) {
		t->skipped++;
		return 0;
	}
	t->ntaps++;
	if (kind >= STORE_KIND_COUNT ||
	    !(STORE_KINDS_MEASURED & (1u << kind))) {
		event_i(t,
			kind < STORE_KIND_COUNT ? store_kind_names[kind]
						: "gesture",
			"gesture", start,
			TID_TAPS + lane_point(&t->taps, start), args);
		return 0;
	}
	if (tap->settle_ns < 0 ||
	    __builtin_add_overflow(tap->t_up_ns, tap->settle_ns, &end) ||
	    to_us(end, off, &end) < 0 || end < start) {
		snprintf(name, sizeof(name), "%s (%s)", store_kind_names[kind],
			 tap->status ? tap->status : "unknown");
		/* The status is the database's: keep only known words. */
		if (strspn(name, "abcdefghijklmnopqrstuvwxyz_ ()") !=
		    strlen(name))
			snprintf(name, sizeof(name), "%s",
				 store_kind_names[kind]);
		event_i(t, name, "tap", start,
			TID_TAPS + lane_point(&t->taps, start), args);
	} else {
		/*
		 * The finger on the glass, t_down to t_up, just before the
		 * tap's slice on the same lane: the lane holds both.
		 */
		if (to_us(tap->t_down_ns, off, &down) < 0 || down > start)
			down = start;
		lane = lane_take(&t->taps, down, end);
		if (lane < 0) {
			t->overlaps++;
			event_i(t, store_kind_names[kind], "tap", start,
				TID_TAPS + lane_point(&t->taps, start), args);
		} else {
			tid = TID_TAPS + lane;
			snprintf(ffargs, sizeof(ffargs),
				 "{\"tap\":%" PRId64 "}", id);
			event_x(t, "finger down", "finger", down, start - down,
				tid, ffargs);
			event_x(t, store_kind_names[kind], "tap", start,
				end - start, tid, args);
			/* first_frame <= settle, so this cannot overflow. */
			if (tap->first_frame_ns >= 0 &&
			    tap->first_frame_ns <= tap->settle_ns &&
			    to_us(tap->t_up_ns + tap->first_frame_ns, off,
				  &ff_end) == 0) {
				snprintf(ffargs, sizeof(ffargs),
					 "{\"tap\":%" PRId64
					 ",\"first_frame_ms\":%.3f}",
					 id, tapjson_ms(tap->first_frame_ns));
				event_x(t, "first frame", "first_frame", start,
					ff_end - start, tid, ffargs);
			}
		}
	}
	nfr = read_frames(t, id, off, frames_shown(tap->frames));
	if (nfr < 0)
		return nfr;
	return write_frames(t, nfr, id, tid, start, tid ? end : start);
}

/* Is the app of this row another than the current one? */
static int
app_changed(const char *cur, int have, const char *app)
{
	if (!have)
		return 1;
	if (!cur || !app)
		return cur != app;
	return strcmp(cur, app) != 0;
}

/* Writes one tap of the second pass, which comes app after app. */
static int
trace_row(void *ctx, int64_t id, const struct store_tap *tap)
{
	struct trace *t = ctx;
	char *args = NULL;
	cJSON *obj;
	int rc;

	obj = tapjson_new(id, tap);
	args = obj ? cJSON_PrintUnformatted(obj) : NULL;
	if (!args) {
		rc = -ENOMEM;
		goto out;
	}
	if (app_changed(t->cur, t->have, tap->app)) {
		if (t->have)
			end_app(t);
		free(t->cur);
		t->cur = tap->app ? strdup(tap->app) : NULL;
		t->have = 1;
		if (tap->app && !t->cur) {
			rc = -ENOMEM;
			goto out;
		}
		if ((rc = begin_app(t, obj)) < 0)
			goto out;
	}
	rc = write_tap(t, id, tap, args);
out:
	cJSON_free(args);
	cJSON_Delete(obj);
	return rc;
}

/* Writes every tap of the second pass, app after app. */
static int
write_taps(struct trace *t, const struct store_filter *f)
{
	int rc;

	rc = store_taps_walk(t->st, f, STORE_ORDER_APP_WALL, 0, trace_row, t);
	if (rc == 0 && t->have)
		end_app(t);
	return rc;
}

/* Adds a wall time as RFC 3339 text, or null when absent (-1). */
static int
add_time(cJSON *obj, const char *name, int64_t ns)
{
	char buf[TAPJSON_WALL_TIME_SIZE];

	if (ns >= 0 && tapjson_wall_time(ns, buf, sizeof(buf)) == 0)
		return cJSON_AddStringToObject(obj, name, buf) ? 0 : -ENOMEM;
	return cJSON_AddNullToObject(obj, name) ? 0 : -ENOMEM;
}

/* Writes the closing members: displayTimeUnit and otherData. */
static int
write_other(struct trace *t, const struct trace_query *q, int cut,
	    int64_t cut_wall, int64_t no_wall)
{
	cJSON *o;
	char *text = NULL;
	int rc = -ENOMEM;

	o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "generator", "tapd") ||
	    !cJSON_AddStringToObject(
		    o, "clock",
		    "ts and dur: wall-clock microseconds since the Unix epoch; "
		    "each tap's monotonic times shifted by its wall_ns - "
		    "t_up_ns") ||
	    add_time(o, "since", q->since) < 0 ||
	    add_time(o, "until", q->until) < 0 ||
	    tapjson_add_string(o, "app", q->app) < 0 ||
	    !(q->session > 0 ? cJSON_AddNumberToObject(o, "session",
						       (double)q->session)
			     : cJSON_AddNullToObject(o, "session")) ||
	    !cJSON_AddNumberToObject(o, "taps", (double)t->ntaps) ||
	    !cJSON_AddNumberToObject(o, "frames", (double)t->nframes) ||
	    !cJSON_AddBoolToObject(o, "truncated", cut) ||
	    add_time(o, "next_since", cut ? cut_wall : -1) < 0 ||
	    !cJSON_AddNumberToObject(o, "skipped_no_wall_time",
				     (double)(no_wall + t->skipped)) ||
	    !cJSON_AddNumberToObject(o, "overlaps", (double)t->overlaps))
		goto out;
	text = cJSON_PrintUnformatted(o);
	if (!text)
		goto out;
	fprintf(t->f, "],\"displayTimeUnit\":\"ms\",\"otherData\":%s}", text);
	rc = 0;
out:
	cJSON_free(text);
	cJSON_Delete(o);
	return rc;
}

int
api_trace_get(struct api_request *rq)
{
	struct trace_query q;
	struct store_filter f;
	struct trace_cut cut;
	struct trace t;
	char *buf = NULL;
	int64_t no_wall = 0;
	size_t len = 0;
	int rc;

	memset(&t, 0, sizeof(t));
	memset(&cut, 0, sizeof(cut));
	if ((rc = read_query(rq, &q)) < 0)
		return rc;
	if ((rc = api_request_store(rq, &t.st)) < 0)
		return rc;
	trace_filter(&q, &f);
	if ((rc = store_read_begin(t.st)) < 0 ||
	    (rc = find_cut(t.st, &f, &cut)) < 0 ||
	    (rc = count_no_wall(t.st, &q, &no_wall)) < 0)
		goto out;
	if (cut.cut) {
		f.before_wall_ns = cut.wall;
		f.before_id = cut.id;
	}
	t.f = open_memstream(&buf, &len);
	if (!t.f) {
		rc = -errno;
		goto out;
	}
	fputs("{\"traceEvents\":[", t.f);
	if ((rc = write_taps(&t, &f)) < 0 ||
	    (rc = write_other(&t, &q, cut.cut, cut.wall, no_wall)) < 0)
		goto out;
	if (ferror(t.f)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = fclose(t.f) == 0 ? 0 : -ENOMEM;
	t.f = NULL;
	if (rc < 0)
		goto out;
	/* End the read transaction before the reply goes out. */
	store_read_end(t.st);
	rc = api_request_reply_buffer(rq, 200, "application/json", buf, len);
	buf = NULL;
out:
	if (t.f)
		fclose(t.f);
	free(buf);
	free(t.fr);
	free(t.cur);
	/* The connection goes back to the pool: never inside a transaction. */
	if (t.st)
		store_read_end(t.st);
	return rc;
}
