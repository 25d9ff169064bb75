/*
 * Tests of the Prometheus metrics.  Every rendered text goes through a
 * small checker of the exposition format (each sample belongs to a family
 * declared by a TYPE line, families are contiguous, histogram buckets are
 * cumulative with increasing le and end at +Inf equal to _count), and the
 * values asserted are derived from the taps each test feeds.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "devid.h"
#include "fixture.h"
#include "metrics.h"
#include "status.h"
#include "store.h"

#define MS 1000000LL

/*
 * The default bucket bounds buckets.h documents, in ns, built here from
 * its words: 10 ms, every millisecond to 60 ms, then each bound 2% above
 * the last, floored to 0.1 ms (to 1 ms from 1 s), up to 10 s.
 */
#define NBOUNDS 313
static int64_t bounds_ns[NBOUNDS];

static void
bounds_build(void)
{
	int64_t v = 10 * MS, next, grain;
	size_t n = 0;

	bounds_ns[n++] = v;
	while (v < 60 * MS) {
		v += MS;
		bounds_ns[n++] = v;
	}
	for (;;) {
		grain = v < 1000 * MS ? MS / 10 : MS;
		next = (v + v / 50) / grain * grain;
		if (next >= 10000 * MS)
			break;
		assert_true(n < NBOUNDS - 1);
		bounds_ns[n++] = v = next;
	}
	bounds_ns[n++] = 10000 * MS;
	assert_int_equal(n, NBOUNDS);
}

/* ---- The checker ---- */

#define CHECK_MAX_FAMILIES 64
#define CHECK_MAX_SERIES   4096

struct check_family {
	char name[128];
	char type[16];
	int closed; /* its samples ended: it must not come back */
};

struct check_series {
	char key[768]; /* family and labels without le */
	double last_le, last_count, inf_count;
	int have_inf;
};

struct checker {
	struct check_family fam[CHECK_MAX_FAMILIES];
	size_t nfam;
	struct check_series series[CHECK_MAX_SERIES];
	size_t nseries;
	int current; /* index of the family of the last sample, or -1 */
	int errors;
	size_t samples;
};

/* Counts a problem; returns 0 so that callers can "return check_fail()". */
static int
check_fail(struct checker *c, const char *line, const char *why)
{
	print_error("exposition: %s: '%s'\n", why, line);
	c->errors++;
	return 0;
}

static int
check_family_find(struct checker *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nfam; i++)
		if (strcmp(c->fam[i].name, name) == 0)
			return (int)i;
	return -1;
}

static struct check_series *
check_series_get(struct checker *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->nseries; i++)
		if (strcmp(c->series[i].key, key) == 0)
			return &c->series[i];
	assert_true(c->nseries < CHECK_MAX_SERIES);
	memset(&c->series[c->nseries], 0, sizeof(c->series[0]));
	snprintf(c->series[c->nseries].key, sizeof(c->series[0].key), "%s",
		 key);
	c->series[c->nseries].last_le = -INFINITY;
	return &c->series[c->nseries++];
}

static int
ends_with(const char *s, const char *suffix, size_t *stem)
{
	size_t n = strlen(s), m = strlen(suffix);

	if (n <= m || strcmp(s + n - m, suffix) != 0)
		return 0;
	*stem = n - m;
	return 1;
}

/*
 * Parses the labels at *p (just past '{') into key (the labels other than
 * le, as written) and le; returns 0 or -1.
 */
static int
check_labels(const char **p, char *key, size_t keysize, char *le, size_t lesize)
{
	const char *s = *p, *name;
	char value[512];
	size_t nlen, v, k = strlen(key);

	le[0] = '\0';
	while (*s != '}') {
		name = s;
		while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		       *s == '_' || (s > name && *s >= '0' && *s <= '9'))
			s++;
		nlen = (size_t)(s - name);
		if (nlen == 0 || s[0] != '=' || s[1] != '"')
			return -1;
		s += 2;
		v = 0;
		while (*s != '"') {
			if (*s == '\0' || *s == '\n' || v + 2 >= sizeof(value))
				return -1;
			if (*s == '\\') {
				s++;
				if (*s != '\\' && *s != '"' && *s != 'n')
					return -1;
			}
			value[v++] = *s++;
		}
		value[v] = '\0';
		s++;
		if (nlen == 2 && strncmp(name, "le", 2) == 0) {
			if (v >= lesize)
				return -1;
			memcpy(le, value, v + 1);
		} else {
			k += (size_t)snprintf(key + k, keysize - k, ",%.*s=%s",
					      (int)nlen, name, value);
			if (k >= keysize)
				return -1;
		}
		if (*s == ',')
			s++;
		else if (*s != '}')
			return -1;
	}
	*p = s + 1;
	return 0;
}

static int
check_sample(struct checker *c, const char *line)
{
	char name[128], key[768], le[64], base[128];
	const char *p = line;
	struct check_series *sr;
	double value, lev;
	size_t n = 0, stem;
	char *end;
	int f, hist_part = 0;

	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
	       *p == '_' || *p == ':' || (n > 0 && *p >= '0' && *p <= '9')) {
		if (n + 1 >= sizeof(name))
			return check_fail(c, line, "name too long");
		name[n++] = *p++;
	}
	name[n] = '\0';
	if (n == 0)
		return check_fail(c, line, "no metric name");
	f = check_family_find(c, name);
	snprintf(base, sizeof(base), "%s", name);
	if (f < 0) {
		if (ends_with(name, "_bucket", &stem))
			hist_part = 1;
		else if (ends_with(name, "_count", &stem))
			hist_part = 2;
		else if (ends_with(name, "_sum", &stem))
			hist_part = 3;
		else
			return check_fail(c, line, "sample without TYPE");
		base[stem] = '\0';
		f = check_family_find(c, base);
		if (f < 0 || strcmp(c->fam[f].type, "histogram") != 0)
			return check_fail(c, line, "sample without TYPE");
	} else if (strcmp(c->fam[f].type, "histogram") == 0) {
		return check_fail(c, line, "bare sample of a histogram");
	}
	if (c->current != f) {
		if (c->fam[f].closed)
			return check_fail(c, line, "family not contiguous");
		if (c->current >= 0)
			c->fam[c->current].closed = 1;
		c->current = f;
	}
	snprintf(key, sizeof(key), "%s", base);
	le[0] = '\0';
	if (*p == '{') {
		p++;
		if (check_labels(&p, key, sizeof(key), le, sizeof(le)) < 0)
			return check_fail(c, line, "bad labels");
	}
	if (*p != ' ')
		return check_fail(c, line, "no space before the value");
	p++;
	value = strtod(p, &end);
	if (end == p || *end != '\0' || isnan(value))
		return check_fail(c, line, "bad value");
	c->samples++;
	if (value < 0 && strcmp(c->fam[f].type, "counter") == 0)
		return check_fail(c, line, "negative counter");
	if (hist_part == 0)
		return 0;
	sr = check_series_get(c, key);
	if (hist_part == 1) {
		if (le[0] == '\0')
			return check_fail(c, line, "bucket without le");
		if (strcmp(le, "+Inf") == 0) {
			lev = INFINITY;
		} else {
			lev = strtod(le, &end);
			if (end == le || *end != '\0')
				return check_fail(c, line, "bad le");
		}
		if (sr->have_inf)
			return check_fail(c, line, "bucket after +Inf");
		if (!(lev > sr->last_le))
			return check_fail(c, line, "le not increasing");
		if (value < sr->last_count)
			return check_fail(c, line, "bucket count decreases");
		sr->last_le = lev;
		sr->last_count = value;
		if (isinf(lev)) {
			sr->have_inf = 1;
			sr->inf_count = value;
		}
	} else if (hist_part == 2) {
		if (!sr->have_inf)
			return check_fail(c, line, "_count before +Inf bucket");
		if (value != sr->inf_count)
			return check_fail(c, line, "_count differs from +Inf");
	} else if (le[0] != '\0') {
		return check_fail(c, line, "le on _sum");
	}
	return 0;
}

static int
check_comment(struct checker *c, const char *line)
{
	char kw[8], name[128], type[16];
	int f;

	if (sscanf(line, "# %7s %127s %15s", kw, name, type) < 2)
		return check_fail(c, line, "bad comment");
	f = check_family_find(c, name);
	if (strcmp(kw, "HELP") == 0) {
		if (f >= 0 && c->fam[f].type[0] != '\0')
			return check_fail(c, line, "HELP after TYPE");
		if (f < 0) {
			assert_true(c->nfam < CHECK_MAX_FAMILIES);
			snprintf(c->fam[c->nfam].name, sizeof(name), "%s",
				 name);
			c->fam[c->nfam++].type[0] = '\0';
		}
		return 0;
	}
	if (strcmp(kw, "TYPE") != 0)
		return 0;
	if (strcmp(type, "counter") != 0 && strcmp(type, "gauge") != 0 &&
	    strcmp(type, "histogram") != 0)
		return check_fail(c, line, "unknown type");
	if (f < 0) {
		assert_true(c->nfam < CHECK_MAX_FAMILIES);
		f = (int)c->nfam++;
		snprintf(c->fam[f].name, sizeof(name), "%s", name);
	} else if (c->fam[f].type[0] != '\0') {
		return check_fail(c, line, "second TYPE line");
	}
	snprintf(c->fam[f].type, sizeof(type), "%s", type);
	return 0;
}

/* Checks a whole exposition; returns the number of problems found. */
static int
check_exposition(const char *text, size_t len)
{
	struct checker *c;
	char line[2048];
	const char *p = text, *nl;
	size_t n, i;
	int errors;

	c = calloc(1, sizeof(*c));
	assert_non_null(c);
	c->current = -1;
	assert_int_equal(strlen(text), len);
	assert_true(len > 0 && text[len - 1] == '\n');
	while (*p) {
		nl = strchr(p, '\n');
		n = (size_t)(nl - p);
		assert_true(n < sizeof(line));
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl + 1;
		if (line[0] == '#')
			check_comment(c, line);
		else if (line[0] != '\0')
			check_sample(c, line);
		else
			check_fail(c, line, "empty line");
	}
	for (i = 0; i < c->nseries; i++)
		if (!c->series[i].have_inf) {
			check_fail(c, c->series[i].key, "no +Inf bucket");
		}
	for (i = 0; i < c->nfam; i++)
		if (c->fam[i].type[0] == '\0')
			check_fail(c, c->fam[i].name, "HELP without TYPE");
	errors = c->errors;
	free(c);
	return errors;
}

/*
 * The value of the sample whose name and labels are exactly prefix, or
 * NAN when there is none.
 */
static double
sample(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;
	char *end;
	double v;

	while (p && *p) {
		if (strncmp(p, prefix, n) == 0 && p[n] == ' ') {
			v = strtod(p + n + 1, &end);
			assert_true(*end == '\n');
			return v;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NAN;
}

static char *
render(struct metrics *m, const struct status_snapshot *snap)
{
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(metrics_render(m, snap, &text, &len), 0);
	assert_non_null(text);
	assert_int_equal(check_exposition(text, len), 0);
	return text;
}

static struct store_tap
make_tap(const char *app, const char *kind, const char *status,
	 int64_t first_ns, int64_t settle_ns)
{
	struct store_tap t;

	memset(&t, 0, sizeof(t));
	t.app = app;
	t.pid = 100;
	t.kind = kind;
	t.status = status;
	t.t_down_ns = 1000 * MS;
	t.t_up_ns = 1100 * MS;
	t.wall_ns = -1;
	t.first_frame_ns = first_ns;
	t.settle_ns = settle_ns;
	t.frames = first_ns >= 0 ? 2 : 0;
	return t;
}

static void
observe(struct metrics *m, const char *app, const char *kind,
	const char *status, int64_t first_ns, int64_t settle_ns)
{
	struct store_tap t = make_tap(app, kind, status, first_ns, settle_ns);

	assert_int_equal(metrics_observe_tap(m, &t), 0);
}

/* The number of bounds a value is at most: its cumulative contribution. */
static int
bucket_of(int64_t v)
{
	size_t i;

	for (i = 0; i < NBOUNDS; i++)
		if (v <= bounds_ns[i])
			return (int)i;
	return (int)NBOUNDS;
}

/* ---- Tests ---- */

static void
test_empty(void **state)
{
	char *text;

	(void)state;
	/* Neither metrics nor status: build info alone. */
	text = render(NULL, NULL);
	assert_non_null(strstr(text, "# TYPE tapd_build_info gauge\n"));
	assert_non_null(strstr(text, "\ntapd_build_info{version=\""));
	assert_non_null(strstr(text, "\"} 1\n"));
	assert_null(strstr(text, "tapd_taps_total"));
	assert_null(strstr(text, "tapd_input_events_total"));
	free(text);
}

/*
 * --buckets: a list of its own, the labels as given, a value on a bound in
 * it; once a tap is counted the list stays.  And the device's identity as
 * the two info metrics, a label escaped, unknown fields empty.
 */
static void
test_buckets_device(void **state)
{
	struct devid id, back;
	struct metrics *m;
	char *text;

	(void)state;
	assert_int_equal(metrics_new(&m), 0);
	assert_int_equal(metrics_device(m, &back), -ENOENT);
	assert_int_equal(metrics_set_buckets(m, "0.05,x"), -EINVAL);
	assert_int_equal(metrics_set_buckets(m, "0.016,0.05,1"), 0);
	observe(m, "com.x", "tap", "ok", 16 * MS, 50 * MS + 1);
	assert_int_equal(metrics_set_buckets(m, "0.1"), -EBUSY);
	devid_clear(&id);
	snprintf(id.serial, sizeof(id.serial), "S1");
	snprintf(id.model, sizeof(id.model), "Phone \"7\"");
	id.sdk = 34;
	id.refresh_hz = 90;
	metrics_set_device(m, &id);
	assert_int_equal(metrics_device(m, &back), 0);
	assert_string_equal(back.model, "Phone \"7\"");
	text = render(m, NULL);
	assert_true(sample(text, "tapd_tap_first_frame_seconds_bucket{app=\""
				 "com.x\",le=\"0.016\"}") == 1);
	assert_true(sample(text, "tapd_tap_settle_seconds_bucket{app=\""
				 "com.x\",le=\"0.05\"}") == 0);
	assert_true(sample(text, "tapd_tap_settle_seconds_bucket{app=\""
				 "com.x\",le=\"1\"}") == 1);
	assert_null(strstr(text, "le=\"0.01\""));
	assert_non_null(strstr(
		text, "\ntapd_device_info{serial=\"S1\",manufacturer=\"\","
		      "model=\"Phone \\\"7\\\"\",fingerprint=\"\",sdk=\"34\","
		      "abi=\"\"} 1\n"));
	assert_non_null(strstr(text, "\ntapd_display_info{refresh_hz=\"90\","
				     "width=\"\",height=\"\",density_dpi=\"\"} "
				     "1\n"));
	free(text);
	/* An identity with nothing known takes it away. */
	devid_clear(&id);
	metrics_set_device(m, &id);
	text = render(m, NULL);
	assert_null(strstr(text, "tapd_device_info"));
	free(text);
	metrics_free(m);
}

static void
test_observe(void **state)
{
	/* Values on both sides of bounds, exactly on them, and past 5 s. */
	static const int64_t firsts[] = {
		1 * MS,	 8 * MS,   8 * MS + 1, 16 * MS,	  40 * MS,
		33 * MS, 100 * MS, 999 * MS,   5000 * MS, 7000 * MS,
	};
	size_t nf = sizeof(firsts) / sizeof(firsts[0]);
	struct metrics *m = NULL;
	char *text, key[256];
	uint64_t want[NBOUNDS + 1] = {0}, cum;
	int64_t sum = 0;
	double v;
	size_t i;

	(void)state;
	assert_int_equal(metrics_new(&m), 0);
	for (i = 0; i < nf; i++) {
		observe(m, "com.example.a", i % 2 ? "tap" : "long_press", "ok",
			firsts[i], firsts[i] * 2);
		want[bucket_of(firsts[i])]++;
		sum += firsts[i];
	}
	observe(m, "com.example.a", "tap", "no_response", -1, -1);
	observe(m, "com.example.a", "tap", "no_response", -1, -1);
	observe(m, "com.example.b", "tap", "frames_unavailable", -1, -1);
	observe(m, NULL, "tap", "ok", 20 * MS, 30 * MS);
	/* Swipes count as gestures, never as taps. */
	observe(m, "com.example.a", "swipe", "not_measured", -1, -1);
	observe(m, "com.example.c", "multi", "not_measured", -1, -1);
	text = render(m, NULL);

	cum = 0;
	for (i = 0; i <= NBOUNDS; i++) {
		cum += want[i];
		if (i < NBOUNDS)
			snprintf(key, sizeof(key),
				 "tapd_tap_first_frame_seconds_bucket{app=\""
				 "com.example.a\",le=\"%g\"}",
				 (double)bounds_ns[i] / 1e9);
		else
			snprintf(key, sizeof(key),
				 "tapd_tap_first_frame_seconds_bucket{app=\""
				 "com.example.a\",le=\"+Inf\"}");
		v = sample(text, key);
		if (v != (double)cum)
			print_error("%s: %g, want %g\n", key, v, (double)cum);
		assert_true(v == (double)cum);
	}
	assert_true(sample(text, "tapd_tap_first_frame_seconds_count{app=\""
				 "com.example.a\"}") == (double)nf);
	v = sample(text, "tapd_tap_first_frame_seconds_sum{app=\""
			 "com.example.a\"}");
	assert_true(fabs(v - (double)sum / 1e9) < 1e-9);
	v = sample(text, "tapd_tap_settle_seconds_sum{app=\"com.example.a\"}");
	assert_true(fabs(v - 2.0 * (double)sum / 1e9) < 1e-9);
	/*
	 * The settle times are twice the first ones, so only 2 ms and 16 ms
	 * are within 16 ms: (8 ms + 1 ns) * 2 is just past the bound.
	 */
	assert_true(sample(text, "tapd_tap_settle_seconds_bucket{app=\""
				 "com.example.a\",le=\"0.016\"}") == 2);

	assert_true(sample(text, "tapd_taps_total{app=\"com.example.a\","
				 "status=\"ok\"}") == (double)nf);
	assert_true(sample(text, "tapd_taps_total{app=\"com.example.a\","
				 "status=\"no_response\"}") == 2);
	assert_true(sample(text, "tapd_taps_total{app=\"com.example.b\","
				 "status=\"frames_unavailable\"}") == 1);
	assert_true(sample(text, "tapd_taps_total{app=\"com.example.b\","
				 "status=\"ok\"}") == 0);
	assert_true(sample(text, "tapd_taps_total{app=\"unknown\","
				 "status=\"ok\"}") == 1);
	assert_true(sample(text, "tapd_tap_first_frame_seconds_bucket{app=\""
				 "unknown\",le=\"0.016\"}") == 0);
	assert_true(sample(text, "tapd_tap_first_frame_seconds_bucket{app=\""
				 "unknown\",le=\"0.025\"}") == 1);
	/* An app seen only in a multi-finger gesture gets no series. */
	assert_null(strstr(text, "com.example.c"));
	assert_true(sample(text, "tapd_gestures_total{kind=\"tap\"}") ==
		    (double)(nf / 2 + 4));
	assert_true(sample(text, "tapd_gestures_total{kind=\"long_press\"}") ==
		    (double)(nf - nf / 2));
	assert_true(sample(text, "tapd_gestures_total{kind=\"swipe\"}") == 1);
	assert_true(sample(text, "tapd_gestures_total{kind=\"multi\"}") == 1);
	assert_true(sample(text, "tapd_app_label_overflow_total") == 0);
	assert_true(sample(text, "tapd_start_time_seconds") > 1e9);
	free(text);
	metrics_free(m);
}

static void
test_bad_tap(void **state)
{
	struct metrics *m = NULL;
	struct store_tap t;
	char *text;

	(void)state;
	assert_int_equal(metrics_new(&m), 0);
	t = make_tap("com.x", "flick", "ok", 10 * MS, 10 * MS);
	assert_int_equal(metrics_observe_tap(m, &t), -EINVAL);
	t = make_tap("com.x", "tap", "fine", 10 * MS, 10 * MS);
	assert_int_equal(metrics_observe_tap(m, &t), -EINVAL);
	t = make_tap("com.x", NULL, "ok", 10 * MS, 10 * MS);
	assert_int_equal(metrics_observe_tap(m, &t), -EINVAL);
	/* NULL metrics: nothing to count into, and no crash. */
	t = make_tap("com.x", "tap", "ok", 10 * MS, 10 * MS);
	assert_int_equal(metrics_observe_tap(NULL, &t), 0);
	text = render(m, NULL);
	assert_null(strstr(text, "com.x"));
	assert_true(sample(text, "tapd_gestures_total{kind=\"tap\"}") == 0);
	free(text);
	metrics_free(m);
	metrics_free(NULL);
}

static void
test_escaping(void **state)
{
	struct metrics *m = NULL;
	char *text, bad[8], longname[400];

	(void)state;
	assert_int_equal(metrics_new(&m), 0);
	observe(m, "a\\b\"c\nd", "tap", "ok", 10 * MS, 10 * MS);
	/* Invalid UTF-8: a lone continuation byte and a cut sequence. */
	bad[0] = 'x';
	bad[1] = (char)0x80;
	bad[2] = 'y';
	bad[3] = (char)0xe2;
	bad[4] = (char)0x82;
	bad[5] = '\0';
	observe(m, bad, "tap", "ok", 10 * MS, 10 * MS);
	observe(m, "caf\xc3\xa9", "tap", "ok", 10 * MS, 10 * MS);
	memset(longname, 'z', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	observe(m, longname, "tap", "ok", 10 * MS, 10 * MS);
	text = render(m, NULL);
	assert_true(sample(text, "tapd_taps_total{app=\"a\\\\b\\\"c\\nd\","
				 "status=\"ok\"}") == 1);
	assert_true(sample(text, "tapd_taps_total{app=\"x?y??\","
				 "status=\"ok\"}") == 1);
	assert_true(sample(text, "tapd_taps_total{app=\"caf\xc3\xa9\","
				 "status=\"ok\"}") == 1);
	/* The long name is cut to 255 bytes. */
	longname[255] = '\0';
	assert_non_null(strstr(text, longname));
	memset(longname, 'z', 256);
	longname[256] = '\0';
	assert_null(strstr(text, longname));
	free(text);
	metrics_free(m);
}

static void
test_cap(void **state)
{
	struct metrics *m = NULL;
	char app[64], *text;
	size_t i, labels = 0;
	const char *p;

	(void)state;
	assert_int_equal(metrics_new(&m), 0);
	for (i = 0; i < 510; i++) {
		snprintf(app, sizeof(app), "com.app%03zu", i);
		observe(m, app, "tap", "ok", 10 * MS, 20 * MS);
		/*
		 * A second tap of an app that already has a label stays under
		 * it, even past the cap.
		 */
		observe(m, "com.app000", "tap", "no_response", -1, -1);
	}
	observe(m, NULL, "tap", "ok", 10 * MS, 20 * MS);
	text = render(m, NULL);
	for (p = text; (p = strstr(p, "tapd_taps_total{app=\"")) != NULL; p++)
		if (strstr(p, "status=\"ok\"}") == strchr(p, ',') + 1)
			labels++;
	/* 500 apps, "other" and "unknown". */
	assert_int_equal(labels, 502);
	assert_true(sample(text, "tapd_taps_total{app=\"com.app499\","
				 "status=\"ok\"}") == 1);
	assert_true(isnan(sample(text, "tapd_taps_total{app=\"com.app500\","
				       "status=\"ok\"}")));
	assert_true(sample(text, "tapd_taps_total{app=\"other\","
				 "status=\"ok\"}") == 10);
	assert_true(sample(text, "tapd_taps_total{app=\"com.app000\","
				 "status=\"no_response\"}") == 510);
	assert_true(sample(text, "tapd_app_label_overflow_total") == 10);
	assert_true(sample(text, "tapd_tap_first_frame_seconds_count{app=\""
				 "other\"}") == 10);
	free(text);
	metrics_free(m);
}

static void
test_status(void **state)
{
	struct status_snapshot s;
	char *text;

	(void)state;
	memset(&s, 0, sizeof(s));
	snprintf(s.mode, sizeof(s.mode), "live");
	s.started_wall_ns = 1800000000LL * 1000000000LL + 250000000;
	s.sources[STATUS_SOURCE_INPUT].health = STATUS_HEALTH_UP;
	snprintf(s.sources[STATUS_SOURCE_INPUT].kind, 32, "evdev");
	s.sources[STATUS_SOURCE_FRAMES].health = STATUS_HEALTH_DOWN;
	snprintf(s.sources[STATUS_SOURCE_FRAMES].kind, 32, "ftl");
	s.sources[STATUS_SOURCE_FOREGROUND].health = STATUS_HEALTH_DONE;
	snprintf(s.sources[STATUS_SOURCE_FOREGROUND].kind, 32, "log");
	s.sources[STATUS_SOURCE_STORE].health = STATUS_HEALTH_NONE;
	s.input_events = 12345;
	s.syn_dropped = 2;
	s.input_lines_skipped = 3;
	s.frames_read = 678;
	s.packets_read = 900;
	s.packets_dropped = 4;
	s.taps_pending = 5;
	s.rows_stored = 77;
	s.rows_lost = 1;
	s.frames_lag_ns = 1500 * MS;
	text = render(NULL, &s);
	assert_true(sample(text, "tapd_input_events_total") == 12345);
	assert_true(sample(text, "tapd_input_syn_dropped_total") == 2);
	assert_true(sample(text, "tapd_input_lines_skipped_total") == 3);
	assert_true(sample(text, "tapd_frames_read_total") == 678);
	assert_true(sample(text, "tapd_frame_packets_total") == 900);
	assert_true(sample(text, "tapd_frame_packets_dropped_total") == 4);
	assert_true(sample(text, "tapd_taps_pending") == 5);
	assert_true(sample(text, "tapd_rows_stored_total") == 77);
	assert_true(sample(text, "tapd_rows_lost_total") == 1);
	assert_non_null(strstr(text, "# TYPE tapd_taps_pending gauge\n"));
	assert_true(sample(text, "tapd_frame_source_lag_seconds") == 1.5);
	assert_non_null(strstr(text, "tapd_start_time_seconds "
				     "1800000000.250000000\n"));
	assert_non_null(strstr(text, "kind=\"evdev\"} 1\n"));
	assert_non_null(strstr(text, "kind=\"ftl\"} 0\n"));
	assert_non_null(strstr(text, "kind=\"log\"} 1\n"));
	/* The unconfigured store has no line. */
	assert_null(strstr(text, "kind=\"\""));
	free(text);

	/* An unknown lag is left out rather than shown as 0. */
	s.frames_lag_ns = -1;
	text = render(NULL, &s);
	assert_null(strstr(text, "tapd_frame_source_lag_seconds"));
	free(text);
}

static char test_dir[PATH_MAX];

/*
 * A copy of text without its start time, the one line two metrics objects
 * never share.
 */
static char *
without_start(const char *text)
{
	const char *p = strstr(text, "\ntapd_start_time_seconds ");
	const char *nl;
	char *out;
	size_t head;

	assert_non_null(p);
	nl = strchr(p + 1, '\n');
	assert_non_null(nl);
	head = (size_t)(p - text) + 1;
	out = malloc(strlen(text) + 1);
	assert_non_null(out);
	memcpy(out, text, head);
	memcpy(out + head, nl + 1, strlen(nl + 1) + 1);
	return out;
}

/* Prints the first line where two texts differ (cmocka cuts long ones). */
static void
report_first_difference(const char *a, const char *b)
{
	size_t line = 1, i;

	for (i = 0; a[i] == b[i] && a[i] != '\0'; i++)
		if (a[i] == '\n')
			line++;
	if (a[i] == b[i])
		return;
	while (i > 0 && a[i - 1] != '\n')
		i--;
	print_error("line %zu differs:\n  %.*s\n  %.*s\n", line,
		    (int)strcspn(a + i, "\n"), a + i, (int)strcspn(b + i, "\n"),
		    b + i);
}

/*
 * Seeding from a database gives the same exposition as observing the same
 * taps one by one: the load path (SQL GROUP BY into buckets) and the live
 * path must agree, bucket edges included.
 */
static void
test_load(void **state)
{
	static const char *const kinds[] = {"tap", "long_press", "swipe",
					    "multi"};
	static const char *const statuses[] = {"ok", "no_response", "truncated",
					       "frames_unavailable",
					       "not_measured"};
	static const char *const apps[] = {"com.a", "com.b", "com.c", NULL};
	struct metrics *live = NULL, *loaded = NULL;
	struct store *st = NULL;
	struct store_tap t;
	char path[600], *a, *b, *text;
	struct store *db = NULL;
	uint64_t seed = 42;
	int64_t first;
	int i;

	(void)state;
	assert_int_equal(
		fixture_tmpdir(test_dir, sizeof(test_dir), "test-metrics"), 0);
	fixture_join(path, sizeof(path), test_dir, "taps.db");

	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(metrics_new(&live), 0);
	assert_int_equal(metrics_new(&loaded), 0);
	for (i = 0; i < 3000; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		t = make_tap(
			apps[(seed >> 20) % 4],
			kinds[(seed >> 30) % 4 < 3 ? (seed >> 34) % 2
						   : 2 + (seed >> 36) % 2],
			statuses[(seed >> 40) % 8 < 4 ? 0 : (seed >> 44) % 5],
			-1, -1);
		if (strcmp(t.kind, "swipe") == 0 ||
		    strcmp(t.kind, "multi") == 0) {
			t.status = "not_measured";
		} else if (strcmp(t.status, "ok") == 0) {
			/* Some exactly on a bound, some just past it. */
			first = (seed >> 48) % 4 == 0
					? bounds_ns[(seed >> 52) % NBOUNDS] +
						  (int64_t)((seed >> 50) % 2)
					: (int64_t)((seed >> 24) % 6000000) *
						  1000;
			t.first_frame_ns = first;
			t.settle_ns =
				first + (int64_t)((seed >> 8) % 1000) * MS;
			t.frames = 3;
		}
		assert_int_equal(store_add_tap(st, &t), 0);
		assert_int_equal(metrics_observe_tap(live, &t), 0);
	}
	assert_int_equal(store_commit(st), 0);
	store_close(st);

	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &db), 0);
	assert_int_equal(metrics_load(loaded, db), 0);
	store_close(db);

	text = render(live, NULL);
	a = without_start(text);
	free(text);
	text = render(loaded, NULL);
	b = without_start(text);
	free(text);
	report_first_difference(a, b);
	assert_true(strcmp(a, b) == 0);
	/* And the checks are not vacuous: there are ok taps of every app. */
	assert_true(sample(a, "tapd_tap_first_frame_seconds_count{app=\""
			      "com.b\"}") > 100);
	assert_true(sample(a, "tapd_taps_total{app=\"unknown\","
			      "status=\"ok\"}") > 100);
	free(a);
	free(b);
	metrics_free(live);
	metrics_free(loaded);
	assert_int_equal(fixture_rmtree(test_dir), 0);
}

/*
 * Injected taps: tapd_taps_injected_total by app and status, a subset of
 * tapd_taps_total, with series only for the apps that had one, and
 * tapd_gestures_injected_total by kind; virtual_device alone (another
 * program's injector) is not tapd's injection.  Seeded from a database
 * the same taps give the same exposition as observed live.
 */
/* Fails unless the sample key of text is want. */
static void
expect(const char *text, const char *key, double want)
{
	double got = sample(text, key);

	if (!(got == want)) {
		print_error("%s: %g, not %g\n", key, got, want);
		fail();
	}
}

struct inj_tap {
	const char *app, *kind, *status;
	unsigned flags;
	int n;
};

static void
test_injected(void **state)
{
	static const struct inj_tap taps[] = {
		{"com.a", "tap", "ok", 0, 4},
		{"com.a", "tap", "no_response", 0, 1},
		{"com.b", "tap", "ok", STORE_FLAG_INJECTED, 3},
		{"com.b", "tap", "ok", 0, 2},
		{"com.b", "long_press", "no_response",
		 STORE_FLAG_INJECTED | STORE_FLAG_BUSY_BEFORE, 1},
		{"com.b", "swipe", "not_measured", STORE_FLAG_INJECTED, 2},
		{"com.b", "swipe", "not_measured", 0, 1},
		{"com.c", "tap", "ok", STORE_FLAG_VIRTUAL_DEVICE, 2},
		{NULL, "tap", "ok", STORE_FLAG_INJECTED, 1},
	};
	struct metrics *live = NULL, *loaded = NULL, *none = NULL;
	struct store *st = NULL;
	struct store_tap t;
	char path[600], *text, *a, *b;
	size_t i;
	int k;

	(void)state;
	assert_int_equal(
		fixture_tmpdir(test_dir, sizeof(test_dir), "test-metrics"), 0);
	fixture_join(path, sizeof(path), test_dir, "taps.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(metrics_new(&live), 0);
	assert_int_equal(metrics_new(&loaded), 0);
	assert_int_equal(metrics_new(&none), 0);
	for (i = 0; i < sizeof(taps) / sizeof(taps[0]); i++) {
		for (k = 0; k < taps[i].n; k++) {
			t = make_tap(taps[i].app, taps[i].kind, taps[i].status,
				     -1, -1);
			if (strcmp(t.status, "ok") == 0) {
				t.first_frame_ns = (20 + k) * MS;
				t.settle_ns = (90 + k) * MS;
				t.frames = 2;
			}
			t.flags = taps[i].flags;
			assert_int_equal(store_add_tap(st, &t), 0);
			assert_int_equal(metrics_observe_tap(live, &t), 0);
			t.flags = 0;
			assert_int_equal(metrics_observe_tap(none, &t), 0);
		}
	}
	assert_int_equal(store_commit(st), 0);
	store_close(st);

	text = render(live, NULL);
	expect(text,
	       "tapd_taps_injected_total{app=\"com.b\","
	       "status=\"ok\"}",
	       3);
	expect(text,
	       "tapd_taps_injected_total{app=\"com.b\","
	       "status=\"no_response\"}",
	       1);
	expect(text,
	       "tapd_taps_injected_total{app=\"com.b\","
	       "status=\"truncated\"}",
	       0);
	expect(text,
	       "tapd_taps_injected_total{app="
	       "\"unknown\",status=\"ok\"}",
	       1);
	/* The injected ones are in the totals too. */
	expect(text,
	       "tapd_taps_total{app=\"com.b\","
	       "status=\"ok\"}",
	       5);
	/* No series for the apps without one, virtual_device included. */
	assert_null(strstr(text, "tapd_taps_injected_total{app=\"com.a\""));
	assert_null(strstr(text, "tapd_taps_injected_total{app=\"com.c\""));
	assert_non_null(strstr(text, "# TYPE tapd_taps_injected_total "
				     "counter\n"));
	assert_non_null(strstr(text, "# TYPE tapd_gestures_injected_total "
				     "counter\n"));
	expect(text,
	       "tapd_gestures_injected_total{kind="
	       "\"tap\"}",
	       4);
	expect(text,
	       "tapd_gestures_injected_total{kind="
	       "\"long_press\"}",
	       1);
	expect(text,
	       "tapd_gestures_injected_total{kind="
	       "\"swipe\"}",
	       2);
	expect(text,
	       "tapd_gestures_injected_total{kind="
	       "\"multi\"}",
	       0);
	expect(text, "tapd_gestures_total{kind=\"swipe\"}", 3);
	a = without_start(text);
	free(text);

	/* Nothing injected: the families with no series of apps at all. */
	text = render(none, NULL);
	assert_null(strstr(text, "tapd_taps_injected_total{"));
	expect(text,
	       "tapd_gestures_injected_total{kind="
	       "\"tap\"}",
	       0);
	free(text);

	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &st), 0);
	assert_int_equal(metrics_load(loaded, st), 0);
	store_close(st);
	text = render(loaded, NULL);
	b = without_start(text);
	free(text);
	report_first_difference(a, b);
	assert_true(strcmp(a, b) == 0);
	free(a);
	free(b);
	metrics_free(live);
	metrics_free(loaded);
	metrics_free(none);
	assert_int_equal(fixture_rmtree(test_dir), 0);
}

/*
 * Loading more apps than the cap gives labels to the busiest: five apps
 * with three taps each come after 505 apps with one, by name, and still
 * get theirs, while the last ten of the single-tap apps fold into "other".
 */
static void
test_load_cap(void **state)
{
	struct metrics *m = NULL;
	struct store *st = NULL;
	struct store_tap t;
	char path[600], app[64], key[128], *text;
	struct store *db = NULL;
	int i, j, n;

	(void)state;
	assert_int_equal(
		fixture_tmpdir(test_dir, sizeof(test_dir), "test-metrics"), 0);
	fixture_join(path, sizeof(path), test_dir, "cap.db");
	assert_int_equal(store_open(path, 0, &st), 0);
	for (i = 0; i < 505; i++) {
		snprintf(app, sizeof(app), "com.a.few%03d", i);
		t = make_tap(app, "tap", "ok", 10 * MS, 20 * MS);
		assert_int_equal(store_add_tap(st, &t), 0);
	}
	for (i = 0; i < 5; i++)
		for (j = 0; j < 3; j++) {
			snprintf(app, sizeof(app), "com.z.busy%d", i);
			t = make_tap(app, "long_press", "no_response", -1, -1);
			assert_int_equal(store_add_tap(st, &t), 0);
		}
	assert_int_equal(store_commit(st), 0);
	store_close(st);

	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &db), 0);
	assert_int_equal(metrics_new(&m), 0);
	assert_int_equal(metrics_load(m, db), 0);
	store_close(db);
	text = render(m, NULL);
	for (i = 0; i < 5; i++) {
		n = snprintf(key, sizeof(key),
			     "tapd_taps_total{app=\"com.z.busy%d\","
			     "status=\"no_response\"}",
			     i);
		assert_true(n > 0 && (size_t)n < sizeof(key));
		assert_true(sample(text, key) == 3);
	}
	assert_true(sample(text, "tapd_taps_total{app=\"com.a.few494\","
				 "status=\"ok\"}") == 1);
	assert_true(isnan(sample(text, "tapd_taps_total{app=\"com.a.few495\","
				       "status=\"ok\"}")));
	assert_true(sample(text, "tapd_taps_total{app=\"other\","
				 "status=\"ok\"}") == 10);
	assert_true(sample(text, "tapd_app_label_overflow_total") == 10);
	assert_true(sample(text, "tapd_gestures_total{kind=\"long_press\"}") ==
		    15);
	free(text);
	metrics_free(m);
	assert_int_equal(fixture_rmtree(test_dir), 0);
}

struct worker {
	struct metrics *m;
	int id;
};

static void *
worker_run(void *arg)
{
	struct worker *w = arg;
	struct store_tap t;
	char app[32];
	int i;

	for (i = 0; i < 5000; i++) {
		snprintf(app, sizeof(app), "com.w%d.%d", w->id, i % 7);
		t = make_tap(app, "tap", "ok", (i % 100) * MS, (i % 100) * MS);
		if (metrics_observe_tap(w->m, &t) != 0)
			return w;
	}
	return NULL;
}

/* Two writers and a reader at once: no count is lost. */
static void
test_threads(void **state)
{
	struct worker w[2];
	pthread_t th[2];
	struct metrics *m = NULL;
	char *text;
	void *ret;
	size_t len;
	int i;

	(void)state;
	assert_int_equal(metrics_new(&m), 0);
	for (i = 0; i < 2; i++) {
		w[i].m = m;
		w[i].id = i;
		assert_int_equal(
			pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
	}
	for (i = 0; i < 20; i++) {
		assert_int_equal(metrics_render(m, NULL, &text, &len), 0);
		assert_int_equal(check_exposition(text, len), 0);
		free(text);
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_null(ret);
	}
	text = render(m, NULL);
	assert_true(sample(text, "tapd_gestures_total{kind=\"tap\"}") == 10000);
	assert_true(sample(text, "tapd_tap_first_frame_seconds_count{app=\""
				 "com.w1.3\"}") > 700);
	free(text);
	metrics_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_observe),
		cmocka_unit_test(test_bad_tap),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_load_cap),
		cmocka_unit_test(test_injected),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_buckets_device),
	};

	bounds_build();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
