/*
 * Tests of the dumpsys --latency / --list reader: the formats from the
 * fixtures in tests/fixtures/latency/, and the de-duplication against a
 * small model of SurfaceFlinger's FrameTracker ring whose truth is known.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "frames_latency.h"

#define FIXTURES "tests/fixtures/latency/"
#define MS	 1000000LL
#define SEC	 1000000000LL
#define P60	 16666666LL
#define P120	 8333333LL

/* snprintf that fails the test instead of truncating. */
static void fmt(char *buf, size_t size, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

static void
fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < size);
}

static char *
slurp(const char *name, size_t *len)
{
	char path[512];

	fmt(path, sizeof(path), "%s%s", FIXTURES, name);
	return fixture_slurp(path, len);
}

static struct frames_latency_snapshot *
parse_fixture(const char *name)
{
	struct frames_latency_snapshot *snap = NULL;
	size_t len;
	char *buf = slurp(name, &len);

	assert_int_equal(frames_latency_snapshot_parse(buf, len, &snap), 0);
	free(buf);
	return snap;
}

static struct frames_latency_snapshot *
parse_str(const char *s)
{
	struct frames_latency_snapshot *snap = NULL;

	assert_int_equal(frames_latency_snapshot_parse(s, strlen(s), &snap), 0);
	return snap;
}

/* Frames a callback collected. */
struct sink {
	struct frames_latency_frame f[4096];
	char layer[4096][64];
	size_t n;
	size_t fail_at; /* refuse the frame with this index (0: never) */
};

static int
collect(void *ctx, const struct frames_latency_frame *frame)
{
	struct sink *s = ctx;

	if (s->fail_at && s->n + 1 == s->fail_at) {
		s->fail_at = 0;
		return -EIO;
	}
	assert_true(s->n < sizeof(s->f) / sizeof(s->f[0]));
	s->f[s->n] = *frame;
	fmt(s->layer[s->n], sizeof(s->layer[0]), "%s", frame->layer);
	s->f[s->n].layer = s->layer[s->n];
	s->n++;
	return 0;
}

/*
 * A model of one layer's FrameTracker: frames with known times, dumped
 * the way FrameTracker::dumpStats prints them at a capture time.  A frame
 * gets its record when it is latched; a fence not signalled by the
 * capture prints INT64_MAX.
 */
struct model_frame {
	int64_t desired, latch, ready, present;
};

struct model {
	struct model_frame f[1024];
	size_t n;
	int64_t period;
	int64_t cleared_at; /* records latched before this were zeroed */
	int gone;	    /* the layer no longer exists */
};

static void
model_gen(struct model *m, int64_t start, int64_t period, size_t n)
{
	size_t k;

	m->period = period;
	for (k = 0; k < n; k++) {
		struct model_frame *f = &m->f[m->n++];

		f->desired =
			start + (int64_t)k * period + (int64_t)(k % 7) * 1000;
		f->ready = f->desired + 6 * MS;
		f->latch = f->desired + period / 2;
		f->present = f->desired + 2 * period + 1234;
	}
}

static size_t
model_dump(const struct model *m, int64_t capture, char *buf, size_t size)
{
	size_t idx[LATENCY_RING_ROWS], k, n = 0, i, off = 0;
	int w;

	w = snprintf(buf, size, "%lld\n", (long long)m->period);
	assert_true(w > 0 && (size_t)w < size);
	off = (size_t)w;
	if (m->gone)
		return off;
	for (k = 0; k < m->n; k++) {
		if (m->f[k].latch > capture || m->f[k].latch < m->cleared_at)
			continue;
		if (n == LATENCY_RING_ROWS) {
			memmove(idx, idx + 1, (n - 1) * sizeof(idx[0]));
			n--;
		}
		idx[n++] = k;
	}
	for (i = n; i < LATENCY_RING_ROWS; i++) {
		w = snprintf(buf + off, size - off, "0\t0\t0\n");
		assert_true(w > 0 && (size_t)w < size - off);
		off += (size_t)w;
	}
	for (i = 0; i < n; i++) {
		const struct model_frame *f = &m->f[idx[i]];

		w = snprintf(buf + off, size - off, "%lld\t%lld\t%lld\n",
			     (long long)f->desired,
			     (long long)(f->present <= capture ? f->present
							       : INT64_MAX),
			     (long long)(f->ready <= capture ? f->ready
							     : INT64_MAX));
		assert_true(w > 0 && (size_t)w < size - off);
		off += (size_t)w;
	}
	w = snprintf(buf + off, size - off, "\n");
	assert_true(w == 1);
	return off + 1;
}

static void
model_feed(const struct model *m, struct frames_latency_tracker *t,
	   int64_t capture, struct sink *s)
{
	static char buf[16384];
	struct frames_latency_snapshot *snap;
	size_t len = model_dump(m, capture, buf, sizeof(buf));

	assert_int_equal(frames_latency_snapshot_parse(buf, len, &snap), 0);
	assert_true(frames_latency_snapshot_complete(snap));
	assert_int_equal(
		frames_latency_tracker_feed(t, capture, snap, collect, s), 0);
	frames_latency_snapshot_free(snap);
}

/* The model's frames that are presented by capture and were not cleared. */
static size_t
model_presented(const struct model *m, int64_t capture, int64_t *desired,
		size_t max)
{
	size_t k, n = 0;

	for (k = 0; k < m->n && n < max; k++)
		if (m->f[k].present <= capture)
			desired[n++] = m->f[k].desired;
	return n;
}

static const struct model_frame *
model_find(const struct model *m, int64_t desired)
{
	size_t k;

	for (k = 0; k < m->n; k++)
		if (m->f[k].desired == desired)
			return &m->f[k];
	return NULL;
}

static void
test_row_classify(void **state)
{
	struct frames_latency_row zero = {0, 0, 0};
	struct frames_latency_row pend = {100, INT64_MAX, 90};
	struct frames_latency_row pend2 = {100, INT64_MAX, INT64_MAX};
	struct frames_latency_row inval = {100, -1, 90};
	struct frames_latency_row inval0 = {100, 0, 90};
	struct frames_latency_row nokey = {0, 200, 90};
	struct frames_latency_row keymax = {INT64_MAX, 200, 90};
	struct frames_latency_row ok = {100, 200, 90};
	struct frames_latency_row ok_noready = {100, 200, -1};

	(void)state;
	assert_int_equal(frames_latency_row_classify(&zero), LATENCY_ROW_ZERO);
	assert_int_equal(frames_latency_row_classify(&pend),
			 LATENCY_ROW_PENDING);
	assert_int_equal(frames_latency_row_classify(&pend2),
			 LATENCY_ROW_PENDING);
	assert_int_equal(frames_latency_row_classify(&inval),
			 LATENCY_ROW_INVALID);
	assert_int_equal(frames_latency_row_classify(&inval0),
			 LATENCY_ROW_INVALID);
	assert_int_equal(frames_latency_row_classify(&nokey),
			 LATENCY_ROW_INVALID);
	assert_int_equal(frames_latency_row_classify(&keymax),
			 LATENCY_ROW_INVALID);
	assert_int_equal(frames_latency_row_classify(&ok),
			 LATENCY_ROW_PRESENTED);
	assert_int_equal(frames_latency_row_classify(&ok_noready),
			 LATENCY_ROW_PRESENTED);
}

/* Rows other than zero rows are in increasing column-1 order. */
static void
assert_rows_sane(const struct frames_latency_snapshot *snap)
{
	const struct frames_latency_row *r;
	int64_t last = 0;
	size_t i;

	for (i = 0; i < frames_latency_snapshot_rows(snap); i++) {
		r = frames_latency_snapshot_row(snap, i);
		assert_non_null(r);
		if (frames_latency_row_classify(r) == LATENCY_ROW_ZERO)
			continue;
		assert_true(r->desired_ns > last);
		last = r->desired_ns;
		if (frames_latency_row_classify(r) == LATENCY_ROW_PRESENTED)
			assert_true(r->actual_ns > r->desired_ns);
	}
	assert_null(frames_latency_snapshot_row(
		snap, frames_latency_snapshot_rows(snap)));
}

static void
test_snapshot_60hz(void **state)
{
	struct frames_latency_snapshot *snap =
		parse_fixture("a13-window-60hz.txt");
	struct frames_latency_stats st;
	const struct frames_latency_row *last;

	(void)state;
	assert_int_equal(frames_latency_snapshot_period(snap), P60);
	assert_int_equal(frames_latency_snapshot_now(snap), -1);
	assert_true(frames_latency_snapshot_complete(snap));
	assert_int_equal(frames_latency_snapshot_rows(snap), 127);
	frames_latency_snapshot_get_stats(snap, &st);
	assert_int_equal(st.snapshots, 1);
	assert_int_equal(st.rows, 127);
	assert_int_equal(st.zero_rows, 90);
	assert_int_equal(st.pending_rows, 2);
	assert_int_equal(st.invalid_rows, 0);
	assert_int_equal(st.garbage_lines, 0);
	assert_int_equal(st.incomplete, 0);
	assert_rows_sane(snap);
	last = frames_latency_snapshot_row(snap, 126);
	assert_int_equal(last->desired_ns, 184012945742738LL);
	assert_int_equal(last->actual_ns, LATENCY_PENDING);
	assert_int_equal(last->ready_ns, LATENCY_PENDING);
	assert_int_equal(frames_latency_row_classify(
				 frames_latency_snapshot_row(snap, 0)),
			 LATENCY_ROW_ZERO);
	frames_latency_snapshot_free(snap);
}

static void
test_snapshot_120hz(void **state)
{
	struct frames_latency_snapshot *snap =
		parse_fixture("a14-window-120hz.txt");
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;
	struct sink *s = calloc(1, sizeof(*s));
	const struct frames_latency_row *r;
	int64_t capture;
	size_t i;

	(void)state;
	assert_non_null(s);
	assert_int_equal(frames_latency_snapshot_period(snap), P120);
	assert_true(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_get_stats(snap, &st);
	assert_int_equal(st.rows, 127);
	assert_int_equal(st.zero_rows, 0);
	assert_int_equal(st.pending_rows, 1);
	assert_rows_sane(snap);

	/*
	 * Every presented row becomes a frame with its three columns, in row
	 * order; the pending one holds the watermark below its column 1.
	 */
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Feed#812", &t), 0);
	r = frames_latency_snapshot_row(snap, 126);
	capture = r->desired_ns + 12 * MS;
	assert_int_equal(
		frames_latency_tracker_feed(t, capture, snap, collect, s), 0);
	assert_int_equal(s->n, 126);
	for (i = 0; i < s->n; i++) {
		r = frames_latency_snapshot_row(snap, i);
		assert_int_equal(s->f[i].desired_ns, r->desired_ns);
		assert_int_equal(s->f[i].present_ns, r->actual_ns);
		assert_int_equal(s->f[i].ready_ns, r->ready_ns);
		assert_string_equal(s->f[i].app, "com.foo");
		assert_string_equal(s->f[i].layer, "com.foo/com.foo.Feed#812");
	}
	assert_int_equal(frames_latency_tracker_pending(t), 1);
	r = frames_latency_snapshot_row(snap, 126);
	assert_int_equal(frames_latency_tracker_watermark(t),
			 r->desired_ns - 1);
	frames_latency_tracker_free(t);
	frames_latency_snapshot_free(snap);
	free(s);
}

static void
test_snapshot_container(void **state)
{
	struct frames_latency_snapshot *snap =
		parse_fixture("a12-surfaceview-container.txt");
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;
	struct sink *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	assert_true(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_get_stats(snap, &st);
	assert_int_equal(st.rows, 127);
	assert_int_equal(st.zero_rows, 127);
	assert_int_equal(
		frames_latency_tracker_new(
			"SurfaceView[com.unity.demo/com.unity3d.player."
			"UnityPlayerActivity]#0",
			&t),
		0);
	assert_int_equal(frames_latency_tracker_watermark(t), INT64_MIN);
	assert_int_equal(
		frames_latency_tracker_feed(t, 5 * SEC, snap, collect, s), 0);
	assert_int_equal(s->n, 0);
	/* Nothing is pending, so the layer is known up to the capture. */
	assert_int_equal(frames_latency_tracker_watermark(t), 5 * SEC);
	frames_latency_tracker_free(t);
	frames_latency_snapshot_free(snap);
	free(s);
}

static void
test_snapshot_vendor_now(void **state)
{
	struct frames_latency_snapshot *snap = parse_fixture("vendor-now.txt");
	struct frames_latency_stats st;

	(void)state;
	assert_int_equal(frames_latency_snapshot_now(snap), 666332703981869LL);
	assert_int_equal(frames_latency_snapshot_period(snap), P60);
	assert_true(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_get_stats(snap, &st);
	assert_int_equal(st.rows, 127);
	assert_int_equal(st.garbage_lines, 0);
	assert_int_equal(st.pending_rows, 1);
	frames_latency_snapshot_free(snap);

	/* The `now` line alone, instead of the period, as SoloX#232 shows. */
	snap = parse_str("now = 666332703981869\n"
			 "666332600000000\t666332640000000\t666332610000000\n"
			 "\n");
	assert_int_equal(frames_latency_snapshot_now(snap), 666332703981869LL);
	assert_int_equal(frames_latency_snapshot_period(snap), -1);
	assert_int_equal(frames_latency_snapshot_rows(snap), 1);
	assert_true(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_free(snap);

	snap = parse_str("now=12\n8333333\n\n");
	assert_int_equal(frames_latency_snapshot_now(snap), 12);
	assert_int_equal(frames_latency_snapshot_period(snap), P120);
	frames_latency_snapshot_free(snap);
}

static void
test_snapshot_crlf(void **state)
{
	struct frames_latency_snapshot *crlf, *lf;
	struct frames_latency_stats st;
	size_t len, i, j = 0;
	char *buf = slurp("crlf-60hz.txt", &len);
	char *plain = malloc(len + 1);

	(void)state;
	assert_non_null(plain);
	assert_non_null(strstr(buf, "\r\n"));
	for (i = 0; i < len; i++)
		if (buf[i] != '\r')
			plain[j++] = buf[i];
	assert_int_equal(frames_latency_snapshot_parse(buf, len, &crlf), 0);
	assert_int_equal(frames_latency_snapshot_parse(plain, j, &lf), 0);
	assert_true(frames_latency_snapshot_complete(crlf));
	assert_int_equal(frames_latency_snapshot_period(crlf), P60);
	frames_latency_snapshot_get_stats(crlf, &st);
	assert_int_equal(st.garbage_lines, 0);
	assert_int_equal(st.zero_rows, 117);
	assert_int_equal(frames_latency_snapshot_rows(crlf),
			 frames_latency_snapshot_rows(lf));
	for (i = 0; i < frames_latency_snapshot_rows(lf); i++)
		assert_memory_equal(frames_latency_snapshot_row(crlf, i),
				    frames_latency_snapshot_row(lf, i),
				    sizeof(struct frames_latency_row));
	frames_latency_snapshot_free(crlf);
	frames_latency_snapshot_free(lf);
	free(buf);
	free(plain);
}

static void
test_snapshot_truncated(void **state)
{
	struct frames_latency_snapshot *snap = parse_fixture("truncated.txt");
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;
	struct sink *s = calloc(1, sizeof(*s));
	const struct frames_latency_row *last;

	(void)state;
	assert_non_null(s);
	assert_false(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_get_stats(snap, &st);
	/* 97 zero rows, 29 whole rows; the cut row is not believed. */
	assert_int_equal(st.rows, 126);
	assert_int_equal(st.zero_rows, 97);
	assert_int_equal(st.garbage_lines, 1);
	assert_int_equal(st.incomplete, 1);
	last = frames_latency_snapshot_row(snap, 125);
	assert_int_equal(last->desired_ns, 7700466721352LL);
	assert_int_equal(last->actual_ns, 7700499699847LL);

	/* Its frames are real, but it cannot move the watermark. */
	assert_int_equal(frames_latency_tracker_new("com.foo/com.foo.A#1", &t),
			 0);
	assert_int_equal(frames_latency_tracker_feed(t, 7701 * SEC / 1000, snap,
						     collect, s),
			 0);
	assert_int_equal(s->n, 29);
	assert_int_equal(frames_latency_tracker_watermark(t), INT64_MIN);
	frames_latency_tracker_free(t);
	frames_latency_snapshot_free(snap);
	free(s);
}

static void
test_snapshot_garbage(void **state)
{
	static const char text[] =
		"16666666\n"
		"garbage before the rows\n"
		"100\t200\t150\n"
		"101 201  151\n"       /* spaces are separators too */
		"102\t202\t152\t999\n" /* four columns */
		"103\t203\n"	       /* two */
		"+104\t204\t154\n"     /* a sign strtoll would take */
		"0x69\t205\t155\n"     /* hex */
		"106\t99999999999999999999\t156\n" /* out of range */
		"107\t2O7\t157\n"		   /* a letter O */
		"16666666\n"			   /* a period after the rows */
		"108\t-1\t158\n"
		"109\t9223372036854775807\t159\n"
		"\n";
	struct frames_latency_snapshot *snap = parse_str(text);
	struct frames_latency_stats st;
	char *withnul;
	size_t len = sizeof(text) - 1;

	(void)state;
	frames_latency_snapshot_get_stats(snap, &st);
	assert_int_equal(frames_latency_snapshot_period(snap), P60);
	assert_int_equal(st.rows, 4);
	assert_int_equal(st.garbage_lines, 8);
	assert_int_equal(st.invalid_rows, 1);
	assert_int_equal(st.pending_rows, 1);
	assert_true(frames_latency_snapshot_complete(snap));
	assert_int_equal(frames_latency_snapshot_row(snap, 1)->desired_ns, 101);
	assert_int_equal(frames_latency_snapshot_row(snap, 1)->ready_ns, 151);
	assert_int_equal(frames_latency_snapshot_row(snap, 2)->actual_ns, -1);
	frames_latency_snapshot_free(snap);

	/* A NUL inside a line makes it garbage, not a shorter line. */
	withnul = malloc(len);
	assert_non_null(withnul);
	memcpy(withnul, text, len);
	withnul[strlen("16666666\ngarbage before the rows\n100\t2")] = '\0';
	assert_int_equal(frames_latency_snapshot_parse(withnul, len, &snap), 0);
	frames_latency_snapshot_get_stats(snap, &st);
	assert_int_equal(st.rows, 3);
	assert_int_equal(st.garbage_lines, 9);
	frames_latency_snapshot_free(snap);
	free(withnul);

	/* Not a --latency output at all: nothing to go by. */
	snap = parse_str("Can't find service: SurfaceFlinger\n");
	assert_false(frames_latency_snapshot_complete(snap));
	assert_int_equal(frames_latency_snapshot_rows(snap), 0);
	frames_latency_snapshot_free(snap);
	assert_int_equal(frames_latency_snapshot_parse("", 0, &snap), 0);
	assert_false(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_free(snap);

	/*
	 * Cut inside the last column: "15" may have been "151234", so the
	 * row is not believed although it has three numbers.
	 */
	snap = parse_str("16666666\n100\t200\t150\n101\t201\t15");
	frames_latency_snapshot_get_stats(snap, &st);
	assert_int_equal(frames_latency_snapshot_rows(snap), 1);
	assert_int_equal(st.garbage_lines, 1);
	assert_false(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_free(snap);

	/* Rows with no empty line after them may have been cut. */
	snap = parse_str("16666666\n100\t200\t150\n");
	assert_false(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_free(snap);
}

static void
test_snapshot_layer_gone(void **state)
{
	struct frames_latency_snapshot *snap = parse_fixture("layer-gone.txt");

	(void)state;
	assert_int_equal(frames_latency_snapshot_period(snap), P60);
	assert_int_equal(frames_latency_snapshot_rows(snap), 0);
	assert_true(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_free(snap);
}

static void
test_snapshot_rows_over(void **state)
{
	struct frames_latency_snapshot *snap;
	struct frames_latency_stats st;
	char *buf = malloc(300 * 64 + 64);
	size_t off = 0;
	int i;

	(void)state;
	assert_non_null(buf);
	fmt(buf, 64, "8333333\n");
	off = strlen(buf);
	for (i = 0; i < 300; i++) {
		fmt(buf + off, 64, "%d\t%d\t%d\n", 1000 + i, 2000 + i,
		    1500 + i);
		off += strlen(buf + off);
	}
	buf[off++] = '\n';
	assert_int_equal(frames_latency_snapshot_parse(buf, off, &snap), 0);
	frames_latency_snapshot_get_stats(snap, &st);
	assert_int_equal(frames_latency_snapshot_rows(snap), LATENCY_ROWS_MAX);
	assert_int_equal(st.rows, 300);
	assert_int_equal(st.rows_over, 300 - LATENCY_ROWS_MAX);
	assert_false(frames_latency_snapshot_complete(snap));
	frames_latency_snapshot_free(snap);
	free(buf);
}

/* Snapshot 1: A, B presented, C pending; snapshot 2: all three and D. */
static void
test_tracker_pending_resolves(void **state)
{
	struct frames_latency_snapshot *s1, *s2;
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;
	struct sink *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	s1 = parse_str("16666666\n0\t0\t0\n"
		       "1000000000\t1033400000\t1006000000\n"
		       "1016700000\t1050100000\t1022000000\n"
		       "1033300000\t9223372036854775807\t1039000000\n"
		       "\n");
	s2 = parse_str("16666666\n"
		       "1000000000\t1033400000\t1006000000\n"
		       "1016700000\t1050100000\t1022000000\n"
		       "1033300000\t1066700000\t1039000000\n"
		       "1050000000\t1083400000\t9223372036854775807\n"
		       "\n");
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Main#3", &t), 0);
	assert_int_equal(
		frames_latency_tracker_feed(t, 1051000000, s1, collect, s), 0);
	assert_int_equal(s->n, 2);
	assert_int_equal(s->f[0].desired_ns, 1000000000);
	assert_int_equal(s->f[1].present_ns, 1050100000);
	assert_int_equal(frames_latency_tracker_pending(t), 1);
	/* C may still be presented after the capture: hold below it. */
	assert_int_equal(frames_latency_tracker_watermark(t), 1033300000 - 1);

	assert_int_equal(
		frames_latency_tracker_feed(t, 1090000000, s2, collect, s), 0);
	assert_int_equal(s->n, 4);
	assert_int_equal(s->f[2].desired_ns, 1033300000);
	assert_int_equal(s->f[2].present_ns, 1066700000);
	assert_int_equal(s->f[2].ready_ns, 1039000000);
	assert_int_equal(s->f[3].desired_ns, 1050000000);
	/* Its acquire fence is still pending although it was presented. */
	assert_int_equal(s->f[3].ready_ns, -1);
	assert_int_equal(frames_latency_tracker_pending(t), 0);
	assert_int_equal(frames_latency_tracker_watermark(t), 1090000000);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.frames, 4);
	assert_int_equal(st.duplicates, 2);
	assert_int_equal(st.snapshots, 2);
	assert_int_equal(st.pending_rows, 1);
	assert_int_equal(st.pending_lost, 0);

	/* Fed again, nothing new comes out. */
	assert_int_equal(
		frames_latency_tracker_feed(t, 1100000000, s2, collect, s), 0);
	assert_int_equal(s->n, 4);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.duplicates, 6);
	frames_latency_tracker_free(t);
	frames_latency_snapshot_free(s1);
	frames_latency_snapshot_free(s2);
	free(s);
}

static void
test_tracker_invalid(void **state)
{
	struct frames_latency_snapshot *snap =
		parse_fixture("invalid-rows.txt");
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;
	struct sink *s = calloc(1, sizeof(*s));
	size_t i, j;

	(void)state;
	assert_non_null(s);
	frames_latency_snapshot_get_stats(snap, &st);
	assert_int_equal(st.invalid_rows, 2);
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Main#0", &t), 0);
	assert_int_equal(frames_latency_tracker_feed(t, 31001 * SEC / 1000,
						     snap, collect, s),
			 0);
	assert_int_equal(s->n, 10);
	/* The frames are the presented rows, the -1 ones left out. */
	for (i = 0, j = 0; i < frames_latency_snapshot_rows(snap); i++) {
		const struct frames_latency_row *r =
			frames_latency_snapshot_row(snap, i);

		if (frames_latency_row_classify(r) != LATENCY_ROW_PRESENTED)
			continue;
		assert_int_equal(s->f[j].desired_ns, r->desired_ns);
		assert_true(s->f[j].present_ns > 0);
		j++;
	}
	assert_int_equal(j, 10);
	assert_int_equal(frames_latency_tracker_feed(t, 31002 * SEC / 1000,
						     snap, collect, s),
			 0);
	assert_int_equal(s->n, 10);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.frames, 10);
	assert_int_equal(st.frames_invalid, 2);
	assert_int_equal(st.duplicates, 12);
	assert_int_equal(st.invalid_rows, 4);
	frames_latency_tracker_free(t);
	frames_latency_snapshot_free(snap);
	free(s);
}

/*
 * Three overlapping snapshots of a 60 Hz animation: every frame comes out
 * once, in order, as soon as a snapshot shows it presented, and the
 * watermark is as high as the pending frames allow.
 */
static void
test_tracker_three_snapshots(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	struct sink *s = calloc(1, sizeof(*s));
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;
	int64_t truth[1024], base = 250 * SEC, capture, wm;
	size_t n, i, k;

	(void)state;
	assert_non_null(m);
	assert_non_null(s);
	model_gen(m, base, P60, 150);
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Game#9", &t), 0);
	for (k = 1; k <= 3; k++) {
		capture = base + (int64_t)k * 800 * MS;
		model_feed(m, t, capture, s);
		n = model_presented(m, capture, truth, 1024);
		assert_true(n > 40 * k);
		assert_int_equal(s->n, n);
		for (i = 0; i < n; i++) {
			const struct model_frame *f = model_find(m, truth[i]);

			assert_int_equal(s->f[i].desired_ns, truth[i]);
			assert_int_equal(s->f[i].present_ns, f->present);
			assert_int_equal(s->f[i].ready_ns, f->ready);
		}
		wm = frames_latency_tracker_watermark(t);
		assert_true(wm <= capture);
		assert_true(wm >= capture - 3 * P60);
		/* Nothing presented by the watermark is still to come. */
		for (i = 0; i < m->n; i++)
			if (m->f[i].present <= wm)
				assert_true(m->f[i].desired <=
					    s->f[s->n - 1].desired_ns);
	}
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.frames, s->n);
	assert_true(st.duplicates > 0);
	assert_int_equal(st.gaps, 0);
	assert_int_equal(st.pending_lost, 0);
	frames_latency_tracker_free(t);
	free(m);
	free(s);
}

/*
 * --latency-clear between two snapshots zeroes the ring: frames already
 * emitted stay emitted, the one pending at the clear is lost, and the
 * frames after the clear come out once.
 */
static void
test_tracker_clear(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	struct sink *s = calloc(1, sizeof(*s));
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;
	int64_t base = 40 * SEC, c1, clear, c2, c3;
	size_t n1, i, pending;

	(void)state;
	assert_non_null(m);
	assert_non_null(s);
	model_gen(m, base, P60, 120);
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Main#12", &t), 0);
	c1 = base + 500 * MS;
	model_feed(m, t, c1, s);
	n1 = s->n;
	pending = frames_latency_tracker_pending(t);
	assert_true(pending >= 1);

	/* Cleared just after c1: everything latched so far is zeroed. */
	clear = c1 + 1;
	m->cleared_at = clear;
	c2 = clear + 1;
	model_feed(m, t, c2, s);
	assert_int_equal(s->n, n1);
	assert_int_equal(frames_latency_tracker_pending(t), 0);
	assert_int_equal(frames_latency_tracker_watermark(t), c2);

	c3 = base + 1500 * MS;
	model_feed(m, t, c3, s);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.pending_lost, pending);
	/* After the clear: the frames latched since, presented by c3. */
	for (i = n1; i < s->n; i++) {
		const struct model_frame *f = model_find(m, s->f[i].desired_ns);

		assert_non_null(f);
		assert_true(f->latch >= clear);
		assert_true(f->present <= c3);
		assert_true(s->f[i].desired_ns > s->f[i - 1].desired_ns);
	}
	for (i = 0; i < m->n; i++)
		if (m->f[i].latch >= clear && m->f[i].present <= c3)
			n1++;
	assert_int_equal(s->n, n1);
	frames_latency_tracker_free(t);
	free(m);
	free(s);
}

/*
 * A layer destroyed (its name prints no rows) and recreated under the same
 * name, as A10-A12 "#0" names are: the new ring's frames come out, the
 * old ones do not come out again.
 */
static void
test_tracker_recreated(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	struct sink *s = calloc(1, sizeof(*s));
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;
	int64_t base = 70 * SEC, c1, c2, c3;
	size_t n1;

	(void)state;
	assert_non_null(m);
	assert_non_null(s);
	model_gen(m, base, P60, 30);
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Main#0", &t), 0);
	c1 = base + 300 * MS;
	model_feed(m, t, c1, s);
	n1 = s->n;
	assert_true(n1 > 10);

	m->gone = 1;
	c2 = base + 600 * MS;
	model_feed(m, t, c2, s);
	assert_int_equal(s->n, n1);
	assert_int_equal(frames_latency_tracker_watermark(t), c2);

	/* The new layer: an empty ring and new frames. */
	m->gone = 0;
	m->cleared_at = c2;
	model_gen(m, base + 700 * MS, P60, 20);
	c3 = base + 1200 * MS;
	model_feed(m, t, c3, s);
	assert_int_equal(s->n, n1 + 20);
	assert_int_equal(s->f[n1].desired_ns, base + 700 * MS);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.frames, n1 + 20);
	assert_int_equal(st.duplicates, 0);
	frames_latency_tracker_free(t);
	free(m);
	free(s);
}

/* Two full rings with nothing in common: frames in between were lost. */
static void
test_tracker_gap(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	struct sink *s = calloc(1, sizeof(*s));
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;
	int64_t base = 10 * SEC;

	(void)state;
	assert_non_null(m);
	assert_non_null(s);
	model_gen(m, base, P120, 600);
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Main#5", &t), 0);
	model_feed(m, t, base + 1200 * MS, s);
	model_feed(m, t, base + 1600 * MS, s);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.gaps, 0);
	/* 3 s later: the ring turned over about three times. */
	model_feed(m, t, base + 4600 * MS, s);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.gaps, 1);
	frames_latency_tracker_free(t);
	free(m);
	free(s);
}

/* A fence that never signals stops holding the watermark after a while. */
static void
test_tracker_stale_pending(void **state)
{
	struct frames_latency_snapshot *snap;
	struct frames_latency_tracker *t;
	struct frames_latency_stats st;

	(void)state;
	snap = parse_str("16666666\n"
			 "1000000000\t9223372036854775807\t1006000000\n"
			 "\n");
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Main#1", &t), 0);
	assert_int_equal(
		frames_latency_tracker_feed(t, 1100000000, snap, NULL, NULL),
		0);
	assert_int_equal(frames_latency_tracker_watermark(t), 999999999);
	assert_int_equal(
		frames_latency_tracker_feed(t, 2900000000, snap, NULL, NULL),
		0);
	assert_int_equal(frames_latency_tracker_watermark(t), 999999999);
	assert_int_equal(
		frames_latency_tracker_feed(t, 3100000000, snap, NULL, NULL),
		0);
	assert_int_equal(frames_latency_tracker_watermark(t), 3100000000);
	assert_int_equal(frames_latency_tracker_pending(t), 1);
	frames_latency_snapshot_free(snap);

	/* It resolves at last: emitted, and counted once. */
	snap = parse_str("16666666\n"
			 "1000000000\t3150000000\t1006000000\n"
			 "\n");
	assert_int_equal(
		frames_latency_tracker_feed(t, 3200000000, snap, NULL, NULL),
		0);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.frames, 1);
	assert_int_equal(frames_latency_tracker_pending(t), 0);
	frames_latency_tracker_free(t);
	frames_latency_snapshot_free(snap);
}

/* A callback that fails stops the feed; feeding again resumes. */
static void
test_tracker_cb_error(void **state)
{
	struct frames_latency_snapshot *snap =
		parse_fixture("a13-window-60hz.txt");
	struct frames_latency_tracker *t;
	struct sink *s = calloc(1, sizeof(*s));
	int64_t capture = 184012950000000LL;

	(void)state;
	assert_non_null(s);
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Main#2", &t), 0);
	s->fail_at = 3;
	assert_int_equal(
		frames_latency_tracker_feed(t, capture, snap, collect, s),
		-EIO);
	assert_int_equal(s->n, 2);
	assert_int_equal(frames_latency_tracker_watermark(t), INT64_MIN);
	assert_int_equal(
		frames_latency_tracker_feed(t, capture, snap, collect, s), 0);
	/* 35 presented rows; the refused third one counts as emitted. */
	assert_int_equal(s->n, 34);
	assert_true(s->f[2].desired_ns > s->f[1].desired_ns);
	assert_true(frames_latency_tracker_watermark(t) < capture);
	frames_latency_tracker_free(t);
	frames_latency_snapshot_free(snap);
	free(s);

	assert_int_equal(frames_latency_tracker_new("", &t), -EINVAL);
}

/*
 * Feeds the ring as it was at dump_at, as a snapshot captured at capture:
 * a stale snapshot when dump_at is earlier.  Returns what the feed did.
 */
static int
feed_dump(const struct model *m, struct frames_latency_tracker *t,
	  int64_t dump_at, int64_t capture, struct sink *s)
{
	static char buf[16384];
	struct frames_latency_snapshot *snap;
	size_t len = model_dump(m, dump_at, buf, sizeof(buf));
	int rc;

	assert_int_equal(frames_latency_snapshot_parse(buf, len, &snap), 0);
	rc = frames_latency_tracker_feed(t, capture, snap, collect, s);
	frames_latency_snapshot_free(snap);
	return rc;
}

/*
 * What is normal and what goes back.  Successive snapshots overlap, and
 * a snapshot of an earlier ring fed again (its rows all known) is only
 * duplicates.  A snapshot of a ring so old that its frames are no longer
 * remembered shows frames presented before what was taken: the live
 * tracker drops them and goes on, a strict one stops at the first.
 */
static void
test_tracker_goes_back(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	struct sink *s = calloc(1, sizeof(*s));
	struct sink *s2 = calloc(1, sizeof(*s2));
	struct frames_latency_tracker *t, *strict;
	struct frames_latency_stats st;
	struct frames_latency_jump j;
	int64_t base = 500 * SEC, c = 0, last_present = 0, wm;
	size_t n, i;
	int k;

	(void)state;
	assert_non_null(m);
	assert_non_null(s);
	assert_non_null(s2);
	model_gen(m, base, P60, 1000);
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Main#3", &t), 0);
	assert_int_equal(
		frames_latency_tracker_new("com.foo/com.foo.Main#3", &strict),
		0);
	frames_latency_tracker_set_strict(strict, 1);
	for (k = 1; k <= 24; k++) {
		c = base + (int64_t)k * 500 * MS;
		assert_int_equal(feed_dump(m, t, c, c, s), 0);
		assert_int_equal(feed_dump(m, strict, c, c, s2), 0);
		/* The previous ring again, as a later file: duplicates. */
		if (k == 12) {
			assert_int_equal(
				feed_dump(m, t, c - 500 * MS, c + 1, s), 0);
			assert_int_equal(
				feed_dump(m, strict, c - 500 * MS, c + 1, s2),
				0);
		}
	}
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.backwards, 0);
	assert_int_equal(frames_latency_tracker_get_jump(t, &j), -ENOENT);
	assert_int_equal(st.frames, s->n);
	for (i = 0; i < s->n; i++)
		if (s->f[i].present_ns > last_present)
			last_present = s->f[i].present_ns;

	/* The ring of 11.5 s earlier, fed at 12.5 s: every frame goes back. */
	n = s->n;
	wm = frames_latency_tracker_watermark(t);
	assert_int_equal(feed_dump(m, t, base + 1000 * MS, c + 1, s), 0);
	assert_int_equal(s->n, n);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(
		st.backwards,
		model_presented(m, base + 1000 * MS, (int64_t[1024]){0}, 1024));
	assert_int_equal(frames_latency_tracker_get_jump(t, &j), 0);
	assert_int_equal(j.from_ns, last_present);
	assert_int_equal(j.to_ns, m->f[0].present);
	assert_string_equal(j.layer, "com.foo/com.foo.Main#3");
	/* The live tracker goes on with what comes next. */
	c += 500 * MS;
	assert_int_equal(feed_dump(m, t, c, c, s), 0);
	assert_true(s->n > n);
	assert_true(s->f[n].present_ns >= last_present);
	assert_true(frames_latency_tracker_watermark(t) >= wm);

	/* The strict one stops at the first, the watermark where it was. */
	wm = frames_latency_tracker_watermark(strict);
	assert_int_equal(
		feed_dump(m, strict, base + 1000 * MS, c - 500 * MS + 1, s2),
		-ERANGE);
	frames_latency_tracker_get_stats(strict, &st);
	assert_int_equal(st.backwards, 1);
	assert_int_equal(frames_latency_tracker_watermark(strict), wm);
	assert_int_equal(frames_latency_tracker_get_jump(strict, &j), 0);
	assert_int_equal(j.to_ns, m->f[0].present);
	assert_int_equal(s2->n, n);
	frames_latency_tracker_free(strict);
	frames_latency_tracker_free(t);
	free(m);
	free(s);
	free(s2);
}

/* One presented row "desired present ready". */
static int
row(char *buf, size_t size, int64_t desired, int64_t present)
{
	return snprintf(buf, size, "%lld\t%lld\t%lld\n", (long long)desired,
			(long long)present, (long long)(present - 4 * MS));
}

/*
 * Two rings in one snapshot (two layers of one name print one after the
 * other): the second ring's presents are earlier than the first's, and
 * when a cut-off snapshot loses the second ring, its frames come in the
 * next one, earlier than frames already emitted.  Neither goes back.
 */
static void
test_tracker_two_rings(void **state)
{
	struct frames_latency_tracker *t;
	struct frames_latency_snapshot *snap;
	struct frames_latency_stats st;
	struct sink *s = calloc(1, sizeof(*s));
	static char buf[8192];
	int64_t a = 80 * SEC, b = 79 * SEC;
	size_t off;
	int i;

	(void)state;
	assert_non_null(s);
	assert_int_equal(frames_latency_tracker_new("com.foo/A#0", &t), 0);
	/* Complete: ring A (10 frames at 80 s), then ring B (5 at 79 s). */
	off = (size_t)snprintf(buf, sizeof(buf), "16666666\n");
	for (i = 0; i < 10; i++)
		off += (size_t)row(buf + off, sizeof(buf) - off, a + i * P60,
				   a + i * P60 + 30 * MS);
	for (i = 0; i < 5; i++)
		off += (size_t)row(buf + off, sizeof(buf) - off, b + i * P60,
				   b + i * P60 + 30 * MS);
	off += (size_t)snprintf(buf + off, sizeof(buf) - off, "\n");
	snap = parse_str(buf);
	assert_true(frames_latency_snapshot_complete(snap));
	assert_int_equal(
		frames_latency_tracker_feed(t, a + SEC, snap, collect, s), 0);
	frames_latency_snapshot_free(snap);
	assert_int_equal(s->n, 15);

	/* Cut off: ring A with 10 more frames, ring B not printed. */
	off = (size_t)snprintf(buf, sizeof(buf), "16666666\n");
	for (i = 0; i < 20; i++)
		off += (size_t)row(buf + off, sizeof(buf) - off, a + i * P60,
				   a + i * P60 + 30 * MS);
	snap = parse_str(buf);
	assert_false(frames_latency_snapshot_complete(snap));
	assert_int_equal(
		frames_latency_tracker_feed(t, a + 2 * SEC, snap, collect, s),
		0);
	frames_latency_snapshot_free(snap);
	assert_int_equal(s->n, 25);

	/*
	 * Complete again: ring B's new frames, latched after the first
	 * snapshot, are presented before ring A's last one.
	 */
	off = (size_t)snprintf(buf, sizeof(buf), "16666666\n");
	for (i = 0; i < 20; i++)
		off += (size_t)row(buf + off, sizeof(buf) - off, a + i * P60,
				   a + i * P60 + 30 * MS);
	for (i = 0; i < 5; i++)
		off += (size_t)row(buf + off, sizeof(buf) - off, b + i * P60,
				   b + i * P60 + 30 * MS);
	for (i = 0; i < 8; i++)
		off += (size_t)row(buf + off, sizeof(buf) - off,
				   a + 10 * P60 + 5 * MS + i * P60,
				   a + 10 * P60 + 45 * MS + i * P60);
	off += (size_t)snprintf(buf + off, sizeof(buf) - off, "\n");
	snap = parse_str(buf);
	assert_int_equal(
		frames_latency_tracker_feed(t, a + 3 * SEC, snap, collect, s),
		0);
	frames_latency_snapshot_free(snap);
	assert_int_equal(s->n, 33);
	assert_true(s->f[25].present_ns < s->f[24].present_ns);
	frames_latency_tracker_get_stats(t, &st);
	assert_int_equal(st.backwards, 0);
	frames_latency_tracker_free(t);
	free(s);
}

static struct frames_latency_list *
list_fixture(const char *name)
{
	struct frames_latency_list *list = NULL;
	size_t len;
	char *buf = slurp(name, &len);

	assert_int_equal(frames_latency_list_parse(buf, len, &list), 0);
	free(buf);
	return list;
}

static void
assert_pick(const struct frames_latency_list *list, const char *pkg,
	    const char *const *want, size_t nwant)
{
	const char *names[16];
	size_t n, i;

	assert_int_equal(frames_latency_list_pick(list, pkg, names, 16, &n), 0);
	assert_int_equal(n, nwant);
	for (i = 0; i < n; i++)
		assert_string_equal(names[i], want[i]);
}

static void
test_list_a10(void **state)
{
	struct frames_latency_list *list = list_fixture("list-a10.txt");
	struct frames_latency_stats st;
	static const char *const shop[] = {
		"com.example.shop/com.example.shop.activity.Main#0",
		"SurfaceView - "
		"com.example.shop/com.example.shop.activity.Main#0",
	};
	static const char *const launcher[] = {
		"com.meizu.flyme.launcher/com.meizu.flyme.launcher.Launcher#0",
	};

	(void)state;
	assert_int_equal(frames_latency_list_count(list), 28);
	assert_string_equal(frames_latency_list_name(list, 0),
			    "Display Root#0");
	assert_null(frames_latency_list_name(list, 28));
	frames_latency_list_get_stats(list, &st);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.list_names, 28);
	assert_int_equal(st.garbage_lines, 0);
	/* Pre-BLAST: the SurfaceView layer itself holds the buffers. */
	assert_pick(list, "com.example.shop", shop, 2);
	assert_pick(list, "com.meizu.flyme.launcher", launcher, 1);
	assert_pick(list, "com.example", NULL, 0);
	frames_latency_list_free(list);
}

static void
test_list_a12(void **state)
{
	struct frames_latency_list *list = list_fixture("list-a12.txt");
	static const char *const unity[] = {
		"SurfaceView[com.unity.demo/com.unity3d.player."
		"UnityPlayerActivity](BLAST)#0",
		"com.unity.demo/com.unity3d.player.UnityPlayerActivity#0",
	};
	const char *names[1];
	size_t n;

	(void)state;
	assert_int_equal(frames_latency_list_count(list), 24);
	assert_string_equal(frames_latency_list_name(list, 0),
			    "Display 0 name=\"Built-in Screen\"#0");
	/* The container that printed zeros in SoloX#249 is not chosen. */
	assert_pick(list, "com.unity.demo", unity, 2);
	assert_int_equal(
		frames_latency_list_pick(list, "com.unity.demo", names, 1, &n),
		-ENOSPC);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], unity[0]);
	assert_int_equal(frames_latency_list_pick(list, "", names, 1, &n),
			 -EINVAL);
	frames_latency_list_free(list);
}

static void
test_list_a13(void **state)
{
	struct frames_latency_list *list = list_fixture("list-a13.txt");
	static const char *const maps[] = {
		"com.example.maps/com.example.maps.MapActivity#36990",
		"SurfaceView[com.example.maps/com.example.maps.MapActivity]@0"
		"(BLAST)#36995",
	};

	(void)state;
	assert_int_equal(frames_latency_list_count(list), 20);
	/*
	 * Not the ActivityRecord, its input sink, the splash screen, the
	 * WindowState container or the bounds and background layers.
	 */
	assert_pick(list, "com.example.maps", maps, 2);
	frames_latency_list_free(list);
}

static void
test_list_a15(void **state)
{
	struct frames_latency_list *list = list_fixture("list-a15.txt");
	struct frames_latency_stats st;
	static const char *const chat[] = {
		"com.example.chat/com.example.chat.ui.ChatActivity#29149",
		"SurfaceView[com.example.chat/com.example.chat.ui.ChatActivity]"
		"@0(BLAST)#29161",
	};
	static const char odd_lines[] =
		"RequestedLayerState{com.foo/com.foo.A#7 parentId=3\r\n"
		"RequestedLayerState{weird z=1 title#8 z=2}\r\n"
		"RequestedLayerState{com.foo/com.foo.B#9\r\n";
	struct frames_latency_list *odd;

	(void)state;
	frames_latency_list_get_stats(list, &st);
	/* The last line, "RequestedLayerState{}", has no name. */
	assert_int_equal(frames_latency_list_count(list), 17);
	assert_int_equal(st.garbage_lines, 1);
	assert_string_equal(frames_latency_list_name(list, 0),
			    "Display 0 name=\"Built-in Screen\"#1");
	assert_string_equal(frames_latency_list_name(list, 3),
			    "DefaultTaskDisplayArea#11");
	assert_string_equal(frames_latency_list_name(list, 5),
			    "ActivityRecord{9a8b7c6 u0 com.example.chat/"
			    ".ui.ChatActivity t329 mVisible=false "
			    "mClientVisible=true}#28983");
	assert_string_equal(frames_latency_list_name(list, 6),
			    "54dfae7 com.example.chat/com.example.chat.ui."
			    "ChatActivity#28989");
	assert_string_equal(frames_latency_list_name(list, 8),
			    "SurfaceView[com.example.chat/com.example.chat.ui."
			    "ChatActivity]@0#29160");
	assert_string_equal(frames_latency_list_name(list, 13),
			    "Mirror root#30011");
	assert_string_equal(frames_latency_list_name(list, 16),
			    "NavigationBar0#27331");
	/* The old window whose handle is gone is not chosen either. */
	assert_pick(list, "com.example.chat", chat, 2);
	frames_latency_list_free(list);

	/*
	 * A build that printed no closing brace, a name holding " z=" before
	 * its "#<seq>", and CRLF.
	 */
	odd = NULL;
	assert_int_equal(frames_latency_list_parse(odd_lines,
						   sizeof(odd_lines) - 1, &odd),
			 0);
	assert_int_equal(frames_latency_list_count(odd), 3);
	assert_string_equal(frames_latency_list_name(odd, 0),
			    "com.foo/com.foo.A#7");
	assert_string_equal(frames_latency_list_name(odd, 1),
			    "weird z=1 title#8");
	assert_string_equal(frames_latency_list_name(odd, 2),
			    "com.foo/com.foo.B#9");
	frames_latency_list_free(odd);
}

static void
test_layer_package(void **state)
{
	char buf[64], tiny[4];

	(void)state;
	assert_int_equal(
		frames_latency_layer_package("com.foo/com.foo.MainActivity#0",
					     buf, sizeof(buf)),
		0);
	assert_string_equal(buf, "com.foo");
	assert_int_equal(
		frames_latency_layer_package("TX - com.foo/com.foo.Main#28989",
					     buf, sizeof(buf)),
		0);
	assert_string_equal(buf, "com.foo");
	assert_int_equal(
		frames_latency_layer_package("SurfaceView[com.foo_2/com.foo_2."
					     "Main](BLAST)#1",
					     buf, sizeof(buf)),
		0);
	assert_string_equal(buf, "com.foo_2");
	assert_int_equal(
		frames_latency_layer_package("TX - SurfaceView[com.foo/x]@0"
					     "(BLAST)#4",
					     buf, sizeof(buf)),
		0);
	assert_string_equal(buf, "com.foo");
	assert_int_equal(
		frames_latency_layer_package(
			"SurfaceView - com.bar/com.bar.M#0", buf, sizeof(buf)),
		0);
	assert_string_equal(buf, "com.bar");
	assert_int_equal(frames_latency_layer_package("NavigationBar0#0", buf,
						      sizeof(buf)),
			 0);
	assert_string_equal(buf, "NavigationBar0");
	assert_int_equal(
		frames_latency_layer_package("54dfae7 com.foo/com.foo.Main#3",
					     buf, sizeof(buf)),
		-EINVAL);
	/* A launch's starting window is the app's (layername.h). */
	assert_int_equal(frames_latency_layer_package("Splash Screen com.foo#5",
						      buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "com.foo");
	assert_int_equal(
		frames_latency_layer_package("ActivityRecord{1 u0 com.foo/.A "
					     "t3}#4",
					     buf, sizeof(buf)),
		-EINVAL);
	assert_int_equal(frames_latency_layer_package("#0", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(frames_latency_layer_package("", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(
		frames_latency_layer_package("com.foo/x#1", tiny, sizeof(tiny)),
		-ERANGE);
}

/* Replay of a recorded latency/ directory. */

static void
write_file(const char *dir, const char *name, const char *head,
	   const char *body, size_t len)
{
	char path[512];
	FILE *f;

	fmt(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (head)
		fputs(head, f);
	assert_int_equal(fwrite(body, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void
write_snapshot(const char *dir, int64_t capture, int n, const char *layer,
	       const struct model *m)
{
	static char body[16384];
	char name[64], head[256];
	size_t len = model_dump(m, capture, body, sizeof(body));

	fmt(name, sizeof(name), "%lld-%d.txt", (long long)capture, n);
	fmt(head, sizeof(head), "# layer: %s\n", layer);
	write_file(dir, name, head, body, len);
}

static int
rm_entry(const char *dir, const char *name)
{
	char path[512];

	fmt(path, sizeof(path), "%s/%s", dir, name);
	return remove(path);
}

static void
test_dir_replay(void **state)
{
	static const char win[] = "com.foo/com.foo.MainActivity#42";
	static const char sv[] =
		"SurfaceView[com.foo/com.foo.MainActivity]@0(BLAST)#44";
	static const char *const junk[] = {
		"README",	 "notes.txt",
		"12-x.txt",	 "-5-0.txt",
		"7.txt",	 "7-1.TXT",
		"7-1234567.txt", "99999999999999999999-0.txt",
		".hidden",
	};
	struct model *mw = calloc(1, sizeof(*mw));
	struct model *ms = calloc(1, sizeof(*ms));
	struct sink *s = calloc(1, sizeof(*s));
	struct frames_latency_dir *d;
	struct frames_latency_stats st;
	const struct frames_latency_list *list;
	char dir[512], path[600], listbuf[256];
	int64_t base = 900 * SEC, c[5], capture, wm_after[5];
	size_t i, k, nw = 0, nsv = 0, count, expect_w, expect_sv;
	int rc;

	(void)state;
	assert_non_null(mw);
	assert_non_null(ms);
	assert_non_null(s);
	assert_int_equal(fixture_tmpdir(dir, sizeof(dir), "latency"), 0);

	model_gen(mw, base, P60, 200);
	model_gen(ms, base + 3 * MS, P60, 200);
	for (k = 0; k < 5; k++)
		c[k] = base + (int64_t)k * 700 * MS;
	/* Cycle 0 found no layer yet: a --list alone. */
	fmt(listbuf, sizeof(listbuf), "%s\n%s\nStatusBar#7\n", win, sv);
	write_file(dir, "900000000000.list", NULL, listbuf, strlen(listbuf));
	assert_int_equal(c[0], 900000000000LL);
	for (k = 1; k < 5; k++) {
		write_snapshot(dir, c[k], 0, win, mw);
		/* The SurfaceView was not polled in cycle 2. */
		if (k != 2)
			write_snapshot(dir, c[k], 1, sv, ms);
	}
	/* A file with no "# layer: " line, and a directory with a good name. */
	fmt(path, sizeof(path), "%lld-2.txt", (long long)c[3]);
	write_file(dir, path, NULL, "16666666\n\n", 10);
	fmt(path, sizeof(path), "%s/%lld-3.txt", dir, (long long)c[4]);
	assert_int_equal(mkdir(path, 0700), 0);
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		write_file(dir, junk[i], NULL, "x\n", 2);

	assert_int_equal(frames_latency_dir_open(dir, &d), 0);
	assert_int_equal(frames_latency_dir_coverage(d), c[0]);
	assert_int_equal(frames_latency_dir_watermark(d), INT64_MIN);
	assert_null(frames_latency_dir_list(d));
	for (k = 0; k < 5; k++) {
		count = s->n;
		rc = frames_latency_dir_next(d, collect, s, &capture);
		assert_int_equal(rc, 1);
		assert_int_equal(capture, c[k]);
		wm_after[k] = frames_latency_dir_watermark(d);
		assert_true(wm_after[k] <= capture);
		if (k > 0)
			assert_true(wm_after[k] >= wm_after[k - 1]);
		/* Snapshot by snapshot: the window's frames, then the SV's. */
		for (i = count + 1; i < s->n; i++)
			if (strcmp(s->f[i].layer, win) == 0)
				assert_string_equal(s->f[i - 1].layer, win);
	}
	assert_int_equal(frames_latency_dir_next(d, collect, s, &capture), 0);
	assert_int_equal(wm_after[0], c[0]);
	list = frames_latency_dir_list(d);
	assert_non_null(list);
	assert_int_equal(frames_latency_list_count(list), 3);

	/* Each layer's frames: its truth up to the last capture, once each. */
	expect_w = model_presented(mw, c[4], (int64_t[1024]){0}, 1024);
	expect_sv = model_presented(ms, c[4], (int64_t[1024]){0}, 1024);
	for (i = 0; i < s->n; i++) {
		if (strcmp(s->f[i].layer, win) == 0) {
			assert_int_equal(s->f[i].desired_ns, mw->f[nw].desired);
			assert_int_equal(s->f[i].present_ns, mw->f[nw].present);
			nw++;
		} else {
			assert_string_equal(s->f[i].layer, sv);
			assert_int_equal(s->f[i].desired_ns,
					 ms->f[nsv].desired);
			nsv++;
		}
		assert_string_equal(s->f[i].app, "com.foo");
	}
	assert_int_equal(nw, expect_w);
	assert_int_equal(nsv, expect_sv);
	/* After the last cycle both layers hold only their pending frames. */
	assert_true(wm_after[4] >= c[4] - 3 * P60);

	frames_latency_dir_get_stats(d, &st);
	assert_int_equal(st.files, 1 + 4 + 3);
	assert_int_equal(st.files_skipped, sizeof(junk) / sizeof(junk[0]) + 2);
	assert_int_equal(st.snapshots, 7);
	assert_int_equal(st.frames, nw + nsv);
	assert_true(st.duplicates > 0);
	assert_int_equal(st.rows, 7 * 127);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.list_names, 3);
	assert_int_equal(st.gaps, 0);
	frames_latency_dir_free(d);

	/* Clean up the temporary directory. */
	fmt(path, sizeof(path), "%s/%lld-3.txt", dir, (long long)c[4]);
	assert_int_equal(rmdir(path), 0);
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		assert_int_equal(rm_entry(dir, junk[i]), 0);
	assert_int_equal(rm_entry(dir, "900000000000.list"), 0);
	for (k = 1; k < 5; k++) {
		fmt(path, sizeof(path), "%lld-0.txt", (long long)c[k]);
		assert_int_equal(rm_entry(dir, path), 0);
		fmt(path, sizeof(path), "%lld-1.txt", (long long)c[k]);
		if (k != 2)
			assert_int_equal(rm_entry(dir, path), 0);
	}
	fmt(path, sizeof(path), "%lld-2.txt", (long long)c[3]);
	assert_int_equal(rm_entry(dir, path), 0);
	assert_int_equal(rmdir(dir), 0);

	assert_int_equal(frames_latency_dir_open("no/such/latency/dir", &d),
			 -ENOENT);
	free(mw);
	free(ms);
	free(s);
}

/*
 * A directory holding, after 12 s of snapshots of one layer, a copy of
 * the previous snapshot under a later name (normal: only duplicates) and
 * then the ring of 11 s earlier (a session recorded twice into one
 * directory): its replay ends at that file, which and where it says.
 */
static void
test_dir_goes_back(void **state)
{
	static const char win[] = "com.foo/com.foo.MainActivity#7";
	struct model *m = calloc(1, sizeof(*m));
	struct sink *s = calloc(1, sizeof(*s));
	struct frames_latency_dir *d;
	struct frames_latency_stats st;
	struct frames_latency_jump j;
	static char body[16384];
	char dir[512], name[64], head[128];
	int64_t base = 300 * SEC, c[26], capture, wm;
	size_t len, n;
	int k, rc;

	(void)state;
	assert_non_null(m);
	assert_non_null(s);
	assert_int_equal(fixture_tmpdir(dir, sizeof(dir), "latency"), 0);
	model_gen(m, base, P60, 1000);
	fmt(head, sizeof(head), "# layer: %s\n", win);
	for (k = 0; k < 26; k++) {
		c[k] = base + (int64_t)(k + 1) * 500 * MS;
		/* File 23 is 22's ring again; file 24 the ring of 1 s. */
		len = model_dump(m,
				 k == 23   ? c[22]
				 : k == 24 ? base + SEC
					   : c[k],
				 body, sizeof(body));
		fmt(name, sizeof(name), "%lld-0.txt", (long long)c[k]);
		write_file(dir, name, head, body, len);
	}
	assert_int_equal(frames_latency_dir_open(dir, &d), 0);
	for (k = 0; k < 24; k++) {
		rc = frames_latency_dir_next(d, collect, s, &capture);
		assert_int_equal(rc, 1);
		assert_int_equal(capture, c[k]);
	}
	assert_int_equal(frames_latency_dir_get_jump(d, &j), -ENOENT);
	wm = frames_latency_dir_watermark(d);
	n = s->n;
	assert_int_equal(frames_latency_dir_next(d, collect, s, &capture), 0);
	assert_int_equal(frames_latency_dir_next(d, collect, s, &capture), 0);
	assert_int_equal(s->n, n);
	assert_int_equal(frames_latency_dir_watermark(d), wm);
	assert_int_equal(frames_latency_dir_get_jump(d, &j), 0);
	fmt(name, sizeof(name), "%lld-0.txt", (long long)c[24]);
	assert_string_equal(j.file, name);
	assert_string_equal(j.layer, win);
	assert_int_equal(j.until_ns, wm);
	assert_int_equal(j.to_ns, m->f[0].present);
	assert_int_equal(j.from_ns, s->f[n - 1].present_ns);
	frames_latency_dir_get_stats(d, &st);
	assert_int_equal(st.backwards, 1);
	assert_int_equal(st.snapshots, 25);
	frames_latency_dir_free(d);

	for (k = 0; k < 26; k++) {
		fmt(name, sizeof(name), "%lld-0.txt", (long long)c[k]);
		assert_int_equal(rm_entry(dir, name), 0);
	}
	assert_int_equal(rmdir(dir), 0);
	free(m);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_classify),
		cmocka_unit_test(test_snapshot_60hz),
		cmocka_unit_test(test_snapshot_120hz),
		cmocka_unit_test(test_snapshot_container),
		cmocka_unit_test(test_snapshot_vendor_now),
		cmocka_unit_test(test_snapshot_crlf),
		cmocka_unit_test(test_snapshot_truncated),
		cmocka_unit_test(test_snapshot_garbage),
		cmocka_unit_test(test_snapshot_layer_gone),
		cmocka_unit_test(test_snapshot_rows_over),
		cmocka_unit_test(test_tracker_pending_resolves),
		cmocka_unit_test(test_tracker_invalid),
		cmocka_unit_test(test_tracker_three_snapshots),
		cmocka_unit_test(test_tracker_clear),
		cmocka_unit_test(test_tracker_recreated),
		cmocka_unit_test(test_tracker_gap),
		cmocka_unit_test(test_tracker_stale_pending),
		cmocka_unit_test(test_tracker_cb_error),
		cmocka_unit_test(test_tracker_goes_back),
		cmocka_unit_test(test_tracker_two_rings),
		cmocka_unit_test(test_list_a10),
		cmocka_unit_test(test_list_a12),
		cmocka_unit_test(test_list_a13),
		cmocka_unit_test(test_list_a15),
		cmocka_unit_test(test_layer_package),
		cmocka_unit_test(test_dir_replay),
		cmocka_unit_test(test_dir_goes_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
