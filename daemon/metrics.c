/*
 * Prometheus metrics.  The tap metrics live here, per app, under one
 * mutex; the pipeline counters are read from the status snapshot at
 * scrape time, so that this module holds no copy that could drift from
 * /v1/health.
 *
 * App names come from the device (the foreground source) and, when
 * serving, from a database that may have been copied off anything, so they
 * are hostile: a label value is the name cut to METRICS_APP_MAX bytes with
 * every byte that is not part of valid UTF-8 replaced by '?', and at most
 * METRICS_APP_CAP distinct apps get a label of their own.  Later ones are
 * counted under app="other" (and in tapd_app_label_overflow_total): an
 * unbounded label set would let a misbehaving device exhaust the memory of
 * the daemon and of every Prometheus that scrapes it.  Taps of no known app
 * are counted under app="unknown".  Android package names always hold a
 * dot, so neither word can be a real package.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buckets.h"
#include "devid.h"
#include "log.h"
#include "metrics.h"
#include "status.h"
#include "store.h"
#include "store_taps.h"
#include "tapjson.h"
#include "version.h"

#define METRICS_APP_CAP 500
#define METRICS_APP_MAX 255

#define METRICS_APP_UNKNOWN "unknown"
#define METRICS_APP_OTHER   "other"

/*
 * The latency buckets are buckets.h's (the defaults or --buckets), the
 * same for every app and both latencies, fixed before the first tap.
 */

#define METRICS_NKINDS STORE_KIND_COUNT
/* The kinds that get response times: tap and long_press, the first two. */
#define METRICS_NMEASURED 2

#define METRICS_NSTATUSES STORE_STATUS_COUNT

struct metrics_hist {
	/* Per bucket, not cumulative; the last one is +Inf. */
	uint64_t *counts;
	uint64_t count;
	int64_t sum_ns;
};

struct metrics_app {
	char *name; /* the label value, sanitized */
	uint64_t taps[METRICS_NSTATUSES];
	/* Those of taps that tapd injected; any_injected once one was. */
	uint64_t injected[METRICS_NSTATUSES];
	int any_injected;
	struct metrics_hist first;
	struct metrics_hist settle;
	struct metrics_hist launch; /* launch_first_frame of its launches */
};

struct metrics {
	pthread_mutex_t lock;
	/* Sorted by name, so that lookups are a binary search. */
	struct metrics_app **apps;
	size_t napps, capacity;
	size_t nlabeled; /* apps other than "unknown" and "other" */
	uint64_t gestures[METRICS_NKINDS];
	uint64_t gestures_injected[METRICS_NKINDS];
	uint64_t overflow;
	int64_t created_wall_ns;
	struct buckets *buckets;
	/* The device's identity, for tapd_device_info and the API. */
	struct devid dev;
	int have_dev;
};

/*
 * A growing text buffer; the first failed append makes every later one fail
 * too, so the renderer checks once at the end.
 */
struct metrics_buf {
	char *text;
	size_t len, size;
	int failed;
};

static int
metrics_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	if (s == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

static int64_t
metrics_add_sat(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/*
 * Writes the label value of an app name into out (METRICS_APP_MAX + 1
 * bytes): the name cut at a character boundary, invalid bytes as '?'.
 */
static void
metrics_sanitize(const char *name, char *out)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t avail = strlen(name), o = 0, n;

	while (avail > 0) {
		/* Prometheus refuses what tapjson_utf8_len() refuses. */
		n = tapjson_utf8_len(s);
		if (n == 0) {
			if (o + 1 > METRICS_APP_MAX)
				break;
			out[o++] = '?';
			s++;
			avail--;
			continue;
		}
		if (o + n > METRICS_APP_MAX)
			break;
		memcpy(out + o, s, n);
		o += n;
		s += n;
		avail -= n;
	}
	out[o] = '\0';
}

/*
 * The position of name in m->apps, or with *found 0 the position where it
 * would go.
 */
static size_t
metrics_search(const struct metrics *m, const char *name, int *found)
{
	size_t lo = 0, hi = m->napps, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(m->apps[mid]->name, name);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

static void
metrics_app_free(struct metrics_app *a)
{
	free(a->first.counts);
	free(a->settle.counts);
	free(a->launch.counts);
	free(a->name);
	free(a);
}

static int
metrics_insert(struct metrics *m, size_t pos, const char *name,
	       struct metrics_app **out)
{
	struct metrics_app **apps, *a;
	size_t cap;

	if (m->napps == m->capacity) {
		cap = m->capacity ? m->capacity * 2 : 16;
		apps = realloc(m->apps, cap * sizeof(*apps));
		if (apps == NULL)
			return -ENOMEM;
		m->apps = apps;
		m->capacity = cap;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return -ENOMEM;
	a->first.counts =
		calloc(buckets_count(m->buckets) + 1, sizeof(*a->first.counts));
	a->settle.counts = calloc(buckets_count(m->buckets) + 1,
				  sizeof(*a->settle.counts));
	a->launch.counts = calloc(buckets_count(m->buckets) + 1,
				  sizeof(*a->launch.counts));
	if (!a->first.counts || !a->settle.counts || !a->launch.counts ||
	    (a->name = strdup(name)) == NULL) {
		metrics_app_free(a);
		return -ENOMEM;
	}
	memmove(m->apps + pos + 1, m->apps + pos,
		(m->napps - pos) * sizeof(*m->apps));
	m->apps[pos] = a;
	m->napps++;
	*out = a;
	return 0;
}

/*
 * The entry of an app (NULL for unknown), created if needed; past the cap,
 * the "other" entry, with *folded set.  Called with the lock held.
 */
static int
metrics_app_get(struct metrics *m, const char *app, struct metrics_app **out,
		int *folded)
{
	char label[METRICS_APP_MAX + 1];
	size_t pos;
	int found, reserved, rc;

	*folded = 0;
	if (app == NULL)
		metrics_sanitize(METRICS_APP_UNKNOWN, label);
	else
		metrics_sanitize(app, label);
	pos = metrics_search(m, label, &found);
	if (found) {
		*out = m->apps[pos];
		return 0;
	}
	reserved = strcmp(label, METRICS_APP_UNKNOWN) == 0 ||
		   strcmp(label, METRICS_APP_OTHER) == 0;
	if (!reserved && m->nlabeled >= METRICS_APP_CAP) {
		*folded = 1;
		pos = metrics_search(m, METRICS_APP_OTHER, &found);
		if (found) {
			*out = m->apps[pos];
			return 0;
		}
		return metrics_insert(m, pos, METRICS_APP_OTHER, out);
	}
	if ((rc = metrics_insert(m, pos, label, out)) < 0)
		return rc;
	if (!reserved)
		m->nlabeled++;
	return 0;
}

static void
metrics_hist_add(const struct metrics *m, struct metrics_hist *h, int64_t v_ns)
{
	h->counts[buckets_index(m->buckets, v_ns)]++;
	h->count++;
	h->sum_ns = metrics_add_sat(h->sum_ns, v_ns);
}

static int64_t
metrics_wall_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
metrics_new(struct metrics **out)
{
	struct metrics *m;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return -ENOMEM;
	if (buckets_new_default(&m->buckets) < 0) {
		free(m);
		return -ENOMEM;
	}
	if (pthread_mutex_init(&m->lock, NULL) != 0) {
		buckets_free(m->buckets);
		free(m);
		return -ENOMEM;
	}
	m->created_wall_ns = metrics_wall_ns();
	*out = m;
	return 0;
}

void
metrics_free(struct metrics *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->napps; i++)
		metrics_app_free(m->apps[i]);
	free(m->apps);
	buckets_free(m->buckets);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/*
 * Counts one gesture; kind and status are indexes, latencies -1 when not
 * measured, injected whether tapd wrote it (STORE_FLAG_INJECTED).  The one
 * place both the live and the loading path count, so that they cannot
 * disagree.  Called with the lock held.
 */
static int
metrics_count(struct metrics *m, const char *app, int kind, int status,
	      int injected, int64_t first_ns, int64_t settle_ns,
	      int64_t launch_ns)
{
	struct metrics_app *a;
	int folded, rc;

	m->gestures[kind]++;
	if (injected)
		m->gestures_injected[kind]++;
	if (kind >= METRICS_NMEASURED)
		return 0;
	if ((rc = metrics_app_get(m, app, &a, &folded)) < 0)
		return rc;
	if (folded)
		m->overflow++;
	a->taps[status]++;
	if (injected) {
		a->injected[status]++;
		a->any_injected = 1;
	}
	if (status != 0)
		return 0;
	if (first_ns >= 0)
		metrics_hist_add(m, &a->first, first_ns);
	if (settle_ns >= 0)
		metrics_hist_add(m, &a->settle, settle_ns);
	if (launch_ns >= 0)
		metrics_hist_add(m, &a->launch, launch_ns);
	return 0;
}

/* A tap's launch_first_frame, -1 unless it is a launch (store.h). */
static int64_t
metrics_launch_ns(const struct store_tap *tap)
{
	return tap->flags & STORE_FLAG_LAUNCH ? tap->launch_first_frame_ns : -1;
}

/* Whether tapd injected the gesture itself (store.h, DESIGN 1.6). */
static int
metrics_injected(const struct store_tap *tap)
{
	return (tap->flags & STORE_FLAG_INJECTED) != 0;
}

int
metrics_set_buckets(struct metrics *m, const char *spec)
{
	struct buckets *b = NULL;
	int rc;

	if (spec == NULL)
		return 0;
	if ((rc = buckets_parse(spec, &b)) < 0)
		return rc;
	pthread_mutex_lock(&m->lock);
	if (m->napps > 0) {
		rc = -EBUSY;
	} else {
		buckets_free(m->buckets);
		m->buckets = b;
		b = NULL;
	}
	pthread_mutex_unlock(&m->lock);
	buckets_free(b);
	return rc;
}

void
metrics_set_device(struct metrics *m, const struct devid *id)
{
	if (m == NULL)
		return;
	pthread_mutex_lock(&m->lock);
	m->dev = *id;
	m->have_dev = devid_known(id);
	pthread_mutex_unlock(&m->lock);
}

int
metrics_device(struct metrics *m, struct devid *out)
{
	int rc = -ENOENT;

	devid_clear(out);
	if (m == NULL)
		return rc;
	pthread_mutex_lock(&m->lock);
	if (m->have_dev) {
		*out = m->dev;
		rc = 0;
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

int
metrics_observe_tap(struct metrics *m, const struct store_tap *tap)
{
	int kind, status, rc;

	if (m == NULL)
		return 0;
	kind = metrics_index(store_kind_names, METRICS_NKINDS, tap->kind);
	status = metrics_index(store_status_names, METRICS_NSTATUSES,
			       tap->status);
	if (kind < 0 || status < 0)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	rc = metrics_count(m, tap->app, kind, status, metrics_injected(tap),
			   tap->first_frame_ns, tap->settle_ns,
			   metrics_launch_ns(tap));
	pthread_mutex_unlock(&m->lock);
	return rc;
}

/* Gives a label to one of the busiest apps. */
static int
metrics_load_app(void *ctx, const char *app)
{
	struct metrics_app *a;
	int folded;

	/* Names that sanitize alike share a label. */
	return metrics_app_get(ctx, app, &a, &folded);
}

/*
 * When the database holds more apps than the cap, gives labels to the
 * busiest first, so that "other" gathers the ones with the fewest taps.
 * Counting the distinct names walks an index; the ranking, which needs
 * the kind of every row, only runs past the cap.
 */
static int
metrics_load_apps(struct metrics *m, struct store *st)
{
	int64_t n = 0;
	int rc;

	rc = store_apps_count(st, &n);
	if (rc < 0 || n <= METRICS_APP_CAP)
		return rc;
	return store_apps_busiest(st, METRICS_APP_CAP, metrics_load_app, m);
}

/* Counts one stored tap. */
static int
metrics_load_tap(void *ctx, int64_t id, const struct store_tap *tap)
{
	int kind, status;

	(void)id;
	kind = metrics_index(store_kind_names, METRICS_NKINDS, tap->kind);
	status = metrics_index(store_status_names, METRICS_NSTATUSES,
			       tap->status);
	/* The schema's CHECKs keep other words out of a tapd file. */
	if (kind < 0 || status < 0)
		return 0;
	return metrics_count(ctx, tap->app, kind, status, metrics_injected(tap),
			     tap->first_frame_ns, tap->settle_ns,
			     metrics_launch_ns(tap));
}

int
metrics_load(struct metrics *m, struct store *st)
{
	int rc;

	pthread_mutex_lock(&m->lock);
	/*
	 * One read transaction, so both passes see the same rows even while a
	 * writer commits.
	 */
	rc = store_read_begin(st);
	if (rc < 0)
		goto out;
	if ((rc = metrics_load_apps(m, st)) < 0 ||
	    (rc = store_taps_scan(st, metrics_load_tap, m)) < 0)
		log_warnx("cannot read the taps for the metrics");
	/* A served file names the device of its latest run. */
	if (rc == 0 && !m->have_dev && store_device_latest(st, &m->dev) == 0)
		m->have_dev = devid_known(&m->dev);
	store_read_end(st);
out:
	pthread_mutex_unlock(&m->lock);
	return rc;
}

static void
metrics_putn(struct metrics_buf *b, const char *s, size_t n)
{
	size_t size;
	char *text;

	if (b->failed)
		return;
	if (b->len + n + 1 > b->size) {
		size = b->size ? b->size : 4096;
		while (size < b->len + n + 1)
			size *= 2;
		if ((text = realloc(b->text, size)) == NULL) {
			b->failed = 1;
			return;
		}
		b->text = text;
		b->size = size;
	}
	memcpy(b->text + b->len, s, n);
	b->len += n;
	b->text[b->len] = '\0';
}

static void
metrics_puts(struct metrics_buf *b, const char *s)
{
	metrics_putn(b, s, strlen(s));
}

static void metrics_printf(struct metrics_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
metrics_printf(struct metrics_buf *b, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Every format here is short; a cut line would be a corrupt one. */
	if (n < 0 || (size_t)n >= sizeof(line)) {
		b->failed = 1;
		return;
	}
	metrics_putn(b, line, (size_t)n);
}

/* A label value between its quotes: \, " and newline escaped. */
static void
metrics_put_label(struct metrics_buf *b, const char *s)
{
	const char *p;

	for (p = s; *p; p++) {
		switch (*p) {
		case '\\':
			metrics_puts(b, "\\\\");
			break;
		case '"':
			metrics_puts(b, "\\\"");
			break;
		case '\n':
			metrics_puts(b, "\\n");
			break;
		default:
			metrics_putn(b, p, 1);
		}
	}
}

static void
metrics_family(struct metrics_buf *b, const char *name, const char *type,
	       const char *help)
{
	metrics_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
		       type);
}

/* ns as decimal seconds, exactly. */
static void
metrics_put_seconds(struct metrics_buf *b, int64_t ns)
{
	uint64_t u;

	if (ns < 0) {
		metrics_puts(b, "-");
		u = (uint64_t) - (ns + 1) + 1;
	} else {
		u = (uint64_t)ns;
	}
	metrics_printf(b, "%" PRIu64 ".%09" PRIu64, u / 1000000000,
		       u % 1000000000);
}

static void
metrics_render_hist(struct metrics_buf *b, const struct metrics *m,
		    const char *name, int which)
{
	const struct metrics_hist *h;
	size_t i, j, nb = buckets_count(m->buckets);
	uint64_t cum;

	for (i = 0; i < m->napps; i++) {
		h = which == 2	 ? &m->apps[i]->launch
		    : which == 1 ? &m->apps[i]->settle
				 : &m->apps[i]->first;
		cum = 0;
		for (j = 0; j <= nb; j++) {
			cum += h->counts[j];
			metrics_printf(b, "%s_bucket{app=\"", name);
			metrics_put_label(b, m->apps[i]->name);
			metrics_printf(b, "\",le=\"%s\"} %" PRIu64 "\n",
				       buckets_le(m->buckets, j), cum);
		}
		metrics_printf(b, "%s_sum{app=\"", name);
		metrics_put_label(b, m->apps[i]->name);
		metrics_puts(b, "\"} ");
		metrics_put_seconds(b, h->sum_ns);
		metrics_printf(b, "\n%s_count{app=\"", name);
		metrics_put_label(b, m->apps[i]->name);
		metrics_printf(b, "\"} %" PRIu64 "\n", h->count);
	}
}

/* The tap metrics; called with the lock held. */
static void
metrics_render_taps(struct metrics_buf *b, const struct metrics *m)
{
	size_t i, j;

	metrics_family(b, "tapd_tap_first_frame_seconds", "histogram",
		       "Time from finger up to the first response frame on "
		       "screen, of taps and long presses with status ok.");
	metrics_render_hist(b, m, "tapd_tap_first_frame_seconds", 0);
	metrics_family(b, "tapd_tap_settle_seconds", "histogram",
		       "Time from finger up to the last frame of the response "
		       "burst, of taps and long presses with status ok.");
	metrics_render_hist(b, m, "tapd_tap_settle_seconds", 1);
	metrics_family(
		b, "tapd_launch_first_frame_seconds", "histogram",
		"Time from finger up to the first frame of the app a tap "
		"launched, by the tapped app, of taps and long presses "
		"with status ok.");
	metrics_render_hist(b, m, "tapd_launch_first_frame_seconds", 2);

	metrics_family(b, "tapd_taps_total", "counter",
		       "Taps and long presses stored, by app and status.");
	for (i = 0; i < m->napps; i++) {
		for (j = 0; j < METRICS_NSTATUSES; j++) {
			metrics_puts(b, "tapd_taps_total{app=\"");
			metrics_put_label(b, m->apps[i]->name);
			metrics_printf(b, "\",status=\"%s\"} %" PRIu64 "\n",
				       store_status_names[j],
				       m->apps[i]->taps[j]);
		}
	}

	/*
	 * A subset of tapd_taps_total, so that physical taps are the
	 * difference.  Only the apps tapd injected into get series: injection
	 * is for the few apps under test, and the rest would be rows of 0 as
	 * many as tapd_taps_total's.
	 */
	metrics_family(b, "tapd_taps_injected_total", "counter",
		       "Taps and long presses stored that tapd injected "
		       "itself (POST /v1/gestures), by app and status; only "
		       "apps with one.");
	for (i = 0; i < m->napps; i++) {
		if (!m->apps[i]->any_injected)
			continue;
		for (j = 0; j < METRICS_NSTATUSES; j++) {
			metrics_puts(b, "tapd_taps_injected_total{app=\"");
			metrics_put_label(b, m->apps[i]->name);
			metrics_printf(b, "\",status=\"%s\"} %" PRIu64 "\n",
				       store_status_names[j],
				       m->apps[i]->injected[j]);
		}
	}

	metrics_family(b, "tapd_gestures_total", "counter",
		       "Gestures stored, by kind.");
	for (j = 0; j < METRICS_NKINDS; j++)
		metrics_printf(b,
			       "tapd_gestures_total{kind=\"%s\"} %" PRIu64 "\n",
			       store_kind_names[j], m->gestures[j]);
	metrics_family(b, "tapd_gestures_injected_total", "counter",
		       "Gestures stored that tapd injected itself, by kind.");
	for (j = 0; j < METRICS_NKINDS; j++)
		metrics_printf(b,
			       "tapd_gestures_injected_total{kind=\"%s\"} "
			       "%" PRIu64 "\n",
			       store_kind_names[j], m->gestures_injected[j]);

	metrics_family(b, "tapd_app_label_overflow_total", "counter",
		       "Taps counted under app=\"other\" because more apps "
		       "than the label cap were seen.");
	metrics_printf(b, "tapd_app_label_overflow_total %" PRIu64 "\n",
		       m->overflow);
}

static void
metrics_counter(struct metrics_buf *b, const char *name, const char *type,
		const char *help, uint64_t v)
{
	metrics_family(b, name, type, help);
	metrics_printf(b, "%s %" PRIu64 "\n", name, v);
}

/* The pipeline's counters and sources, from the status snapshot. */
static void
metrics_render_status(struct metrics_buf *b, const struct status_snapshot *s)
{
	const struct status_source_state *src;
	enum status_health h;
	size_t i;

	metrics_counter(b, "tapd_input_events_total", "counter",
			"Input events read.", s->input_events);
	metrics_counter(b, "tapd_input_syn_dropped_total", "counter",
			"SYN_DROPPED events: the kernel's input buffer "
			"overflowed.",
			s->syn_dropped);
	metrics_counter(b, "tapd_input_contacts_cut_total", "counter",
			"Contacts still down when the input ended: their "
			"gesture never ended and was not stored.",
			s->contacts_cut);
	metrics_counter(b, "tapd_input_lines_skipped_total", "counter",
			"Lines of the input log that could not be parsed.",
			s->input_lines_skipped);
	metrics_counter(b, "tapd_frames_read_total", "counter",
			"Presented app frames read from the frame source.",
			s->frames_read);
	metrics_counter(b, "tapd_frame_packets_total", "counter",
			"FrameTimeline packets read.", s->packets_read);
	metrics_counter(b, "tapd_frame_packets_dropped_total", "counter",
			"FrameTimeline packets lost by the tracer, malformed "
			"or never joined.",
			s->packets_dropped);
	metrics_counter(b, "tapd_taps_pending", "gauge",
			"Taps waiting for their response window to close.",
			s->taps_pending);
	metrics_counter(b, "tapd_rows_stored_total", "counter",
			"Rows written to the database.", s->rows_stored);
	metrics_counter(b, "tapd_rows_lost_total", "counter",
			"Rows that never reached the database.", s->rows_lost);

	metrics_family(b, "tapd_source_up", "gauge",
		       "1 when the source is up (or a replayed source read to "
		       "its end), 0 when degraded or down.");
	for (i = 0; i < STATUS_SOURCE_COUNT; i++) {
		src = &s->sources[i];
		h = src->health;
		if (h == STATUS_HEALTH_NONE)
			continue;
		metrics_printf(b, "tapd_source_up{source=\"");
		metrics_put_label(b, status_source_name((enum status_source)i));
		metrics_puts(b, "\",kind=\"");
		/* kind is a fixed array: never read past it. */
		metrics_putn(b, src->kind,
			     strnlen(src->kind, sizeof(src->kind)));
		metrics_printf(b, "\"} %d\n",
			       h == STATUS_HEALTH_UP ||
				       h == STATUS_HEALTH_DONE);
	}

	/* An unknown lag is left out, not shown as 0. */
	if (s->frames_lag_ns >= 0) {
		metrics_family(b, "tapd_frame_source_lag_seconds", "gauge",
			       "How far the frame source's watermark trails "
			       "the newest input event.");
		metrics_puts(b, "tapd_frame_source_lag_seconds ");
		metrics_put_seconds(b, s->frames_lag_ns);
		metrics_puts(b, "\n");
	}
}

/* A label of the device's: name="value" (empty when unknown). */
static void
metrics_put_pair(struct metrics_buf *b, const char *name, const char *value,
		 int last)
{
	metrics_printf(b, "%s=\"", name);
	metrics_put_label(b, value);
	metrics_puts(b, last ? "\"} 1\n" : "\",");
}

static void
metrics_put_number(struct metrics_buf *b, const char *name, int32_t v, int last)
{
	char text[16] = "";

	if (v > 0)
		snprintf(text, sizeof(text), "%d", (int)v);
	metrics_put_pair(b, name, text, last);
}

/*
 * The device's identity and display as info metrics, so that a query
 * joins them to the tap metrics of the same target (on instance) without
 * labels set by hand in the scrape config.  Called with the lock held.
 */
static void
metrics_render_device(struct metrics_buf *b, const struct devid *d)
{
	metrics_family(b, "tapd_device_info", "gauge",
		       "Always 1; the labels name the device measured.");
	metrics_puts(b, "tapd_device_info{");
	metrics_put_pair(b, "serial", d->serial, 0);
	metrics_put_pair(b, "manufacturer", d->manufacturer, 0);
	metrics_put_pair(b, "model", d->model, 0);
	metrics_put_pair(b, "fingerprint", d->fingerprint, 0);
	metrics_put_number(b, "sdk", d->sdk, 0);
	metrics_put_pair(b, "abi", d->abi, 1);
	metrics_family(b, "tapd_display_info", "gauge",
		       "Always 1; the labels describe the device's display.");
	metrics_puts(b, "tapd_display_info{");
	metrics_put_number(b, "refresh_hz", d->refresh_hz, 0);
	metrics_put_number(b, "width", d->width, 0);
	metrics_put_number(b, "height", d->height, 0);
	metrics_put_number(b, "density_dpi", d->density_dpi, 1);
}

int
metrics_render(struct metrics *m, const struct status_snapshot *snap,
	       char **text, size_t *len)
{
	struct metrics_buf b = {0};
	int64_t start;

	if (m != NULL) {
		pthread_mutex_lock(&m->lock);
		metrics_render_taps(&b, m);
		if (m->have_dev)
			metrics_render_device(&b, &m->dev);
		pthread_mutex_unlock(&m->lock);
	}
	if (snap != NULL)
		metrics_render_status(&b, snap);

	metrics_family(&b, "tapd_build_info", "gauge",
		       "Always 1; the label names the version of tapd.");
	metrics_puts(&b, "tapd_build_info{version=\"");
	metrics_put_label(&b, tapd_version);
	metrics_puts(&b, "\"} 1\n");

	start = snap != NULL ? snap->started_wall_ns
		: m != NULL  ? m->created_wall_ns
			     : -1;
	if (start >= 0) {
		metrics_family(&b, "tapd_start_time_seconds", "gauge",
			       "When tapd started, in seconds since the Unix "
			       "epoch.");
		metrics_puts(&b, "tapd_start_time_seconds ");
		metrics_put_seconds(&b, start);
		metrics_puts(&b, "\n");
	}
	if (b.failed) {
		free(b.text);
		return -ENOMEM;
	}
	*text = b.text;
	*len = b.len;
	return 0;
}
