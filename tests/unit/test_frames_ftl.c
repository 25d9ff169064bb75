/*
 * Tests of the FrameTimeline reader.  Traces are the real fixtures under
 * tests/fixtures/perfetto/ and scenarios written as textprotos below,
 * encoded at test time by protoc with tests/fixtures/perfetto/
 * frametimeline.proto (an independent encoder: a bug in the reader cannot
 * hide in the test data).  Tests that need protoc skip without it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "frames_ftl.h"
#include "pb.h"

#define FIXTURES    "tests/fixtures/perfetto/"
#define ONE_FRAME   FIXTURES "one-app-frame.pftrace"
#define EVENTS_TEXT FIXTURES "frame_timeline_events.textproto"
#define PROTO_DIR   "tests/fixtures/perfetto"
#define PROTO	    PROTO_DIR "/frametimeline.proto"
#define SCENARIOS   PROTO_DIR "/scenarios.textproto"

#define MAX_FRAMES 64
#define S	   1000000000LL

struct buf {
	uint8_t *b;
	size_t n;
};

/* Everything one run of the reader produced. */
struct run {
	struct frames_ftl_frame f[MAX_FRAMES];
	size_t n;
	struct frames_ftl_stats st;
	int64_t wm;
	int64_t cov;
};

/* ---- Helpers ---- */

static void
buf_free(struct buf *b)
{
	free(b->b);
	b->b = NULL;
	b->n = 0;
}

static void
buf_append(struct buf *b, const void *p, size_t n)
{
	uint8_t *nb = realloc(b->b, b->n + n + 1);

	assert_non_null(nb);
	b->b = nb;
	if (n > 0)
		memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void
buf_varint(struct buf *b, uint64_t v)
{
	uint8_t c;

	while (v >= 0x80) {
		c = (uint8_t)(v | 0x80);
		buf_append(b, &c, 1);
		v >>= 7;
	}
	c = (uint8_t)v;
	buf_append(b, &c, 1);
}

/* Appends one Trace.packet record around a hand-made packet body. */
static void
buf_record(struct buf *b, const void *body, size_t n)
{
	static const uint8_t key = 0x0a;

	buf_append(b, &key, 1);
	buf_varint(b, n);
	buf_append(b, body, n);
}

static void
read_file(const char *path, struct buf *out)
{
	uint8_t tmp[4096];
	size_t n;
	FILE *fp;

	out->b = NULL;
	out->n = 0;
	fp = fopen(path, "rb");
	assert_non_null(fp);
	while ((n = fread(tmp, 1, sizeof(tmp), fp)) > 0)
		buf_append(out, tmp, n);
	assert_int_equal(ferror(fp), 0);
	fclose(fp);
}

static void
temp_path(char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	int n, fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	n = snprintf(path, size, "%s/tapd-ftl-XXXXXX", dir);
	assert_true(n > 0 && (size_t)n < size);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
}

static bool
have_protoc(void)
{
	static int have = -1;

	if (have < 0)
		have = system("protoc --version >/dev/null 2>&1") == 0;
	return have == 1;
}

/*
 * Encodes a Trace textproto with protoc into out.  Skips the calling test
 * when protoc is not installed.
 */
static void
encode(const char *text, struct buf *out)
{
	char in[512], bin[512], cmd[2048];
	FILE *fp;
	int n, rc;

	if (!have_protoc())
		skip();
	temp_path(in, sizeof(in));
	temp_path(bin, sizeof(bin));
	fp = fopen(in, "w");
	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	n = snprintf(cmd, sizeof(cmd),
		     "protoc --encode=perfetto.protos.Trace -I %s %s "
		     "<'%s' >'%s'",
		     PROTO_DIR, PROTO, in, bin);
	assert_true(n > 0 && (size_t)n < sizeof(cmd));
	rc = system(cmd);
	unlink(in);
	if (rc != 0)
		unlink(bin);
	assert_int_equal(rc, 0);
	read_file(bin, out);
	unlink(bin);
}

static void
encode_file(const char *path, struct buf *out)
{
	struct buf text;
	char nul = '\0';

	read_file(path, &text);
	buf_append(&text, &nul, 1);
	encode((const char *)text.b, out);
	buf_free(&text);
}

static void
config_mono(struct frames_ftl_config *cfg)
{
	frames_ftl_config_default(cfg);
	cfg->default_clock = FTL_CLOCK_MONOTONIC;
}

static void
drain(struct frames_ftl *r, struct run *out)
{
	struct frames_ftl_frame f;

	while (frames_ftl_next(r, &f) == 1) {
		assert_true(out->n < MAX_FRAMES);
		out->f[out->n++] = f;
	}
}

static void
finish(struct frames_ftl *r, struct run *out)
{
	frames_ftl_eof(r);
	drain(r, out);
	frames_ftl_get_stats(r, &out->st);
	out->wm = frames_ftl_watermark(r);
	out->cov = frames_ftl_coverage_start(r);
	frames_ftl_free(r);
}

static struct frames_ftl *
start(const struct frames_ftl_config *cfg, struct run *out)
{
	struct frames_ftl *r = NULL;

	memset(out, 0, sizeof(*out));
	assert_int_equal(frames_ftl_new(cfg, &r), 0);
	assert_non_null(r);
	return r;
}

/* Feeds b in chunks of the given sizes, cycling through them. */
static void
run_chunks(const struct buf *b, const struct frames_ftl_config *cfg,
	   const size_t *sizes, size_t nsizes, struct run *out)
{
	struct frames_ftl *r = start(cfg, out);
	size_t off = 0, n, i = 0;

	while (off < b->n) {
		n = sizes[i++ % nsizes];
		if (n > b->n - off)
			n = b->n - off;
		assert_int_equal(frames_ftl_feed(r, b->b + off, n), 0);
		drain(r, out);
		off += n;
	}
	finish(r, out);
}

static void
run_all(const struct buf *b, const struct frames_ftl_config *cfg,
	struct run *out)
{
	size_t all = b->n;

	run_chunks(b, cfg, &all, 1, out);
}

static void
run_split(const struct buf *b, const struct frames_ftl_config *cfg, size_t k,
	  struct run *out)
{
	struct frames_ftl *r = start(cfg, out);

	assert_int_equal(frames_ftl_feed(r, b->b, k), 0);
	drain(r, out);
	assert_int_equal(frames_ftl_feed(r, b->b + k, b->n - k), 0);
	drain(r, out);
	finish(r, out);
}

static void
assert_frame_equal(const struct frames_ftl_frame *a,
		   const struct frames_ftl_frame *b)
{
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->present_type, b->present_type);
	assert_int_equal(a->prediction_type, b->prediction_type);
	assert_int_equal(a->jank, b->jank);
	assert_int_equal(a->flags, b->flags);
	assert_true(a->token == b->token);
	assert_true(a->display_token == b->display_token);
	assert_true(a->start_ns == b->start_ns);
	assert_true(a->ready_ns == b->ready_ns);
	assert_true(a->present_ns == b->present_ns);
	assert_string_equal(a->layer, b->layer);
}

static void
assert_same(const struct run *a, const struct run *b)
{
	size_t i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++)
		assert_frame_equal(&a->f[i], &b->f[i]);
	assert_true(a->wm == b->wm);
	assert_true(a->cov == b->cov);
	assert_true(a->st.packets == b->st.packets);
	assert_true(a->st.frame_events == b->st.frame_events);
	assert_true(a->st.unpaired_ends == b->st.unpaired_ends);
	assert_true(a->st.malformed == b->st.malformed);
	assert_true(a->st.truncated == 0 && b->st.truncated == 0);
}

static const struct frames_ftl_frame *
find_token(const struct run *r, int64_t token)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->f[i].token == token)
			return &r->f[i];
	}
	return NULL;
}

/*
 * Record boundaries of a trace: 1 at every offset where a Trace.packet
 * record starts or the trace ends.
 */
static void
boundaries(const struct buf *b, uint8_t *at)
{
	struct pb_reader r;
	struct pb_field f;

	memset(at, 0, b->n + 1);
	pb_reader_init(&r, b->b, b->n);
	at[0] = 1;
	while (pb_next(&r, &f) > 0)
		at[b->n - pb_reader_left(&r)] = 1;
	assert_int_equal(pb_reader_left(&r), 0);
}

/*
 * The same trace cut at every offset, fed byte by byte and in odd chunks,
 * gives the same frames; a prefix alone gives a prefix of them, with the
 * cut record counted as truncated.
 */
static void
check_cuts(const struct buf *b, const struct frames_ftl_config *cfg,
	   const struct run *ref)
{
	static const size_t one = 1, odd[] = {3, 1, 7, 2, 13, 64, 5};
	struct run *got = malloc(sizeof(*got));
	uint8_t *at = malloc(b->n + 1);
	struct frames_ftl *r;
	size_t k, i;

	assert_non_null(got);
	assert_non_null(at);
	boundaries(b, at);
	for (k = 0; k <= b->n; k++) {
		run_split(b, cfg, k, got);
		assert_same(ref, got);

		r = start(cfg, got);
		assert_int_equal(frames_ftl_feed(r, b->b, k), 0);
		drain(r, got);
		finish(r, got);
		assert_true(got->n <= ref->n);
		for (i = 0; i < got->n; i++)
			assert_frame_equal(&got->f[i], &ref->f[i]);
		assert_true(got->st.truncated == (at[k] ? 0 : 1));
		assert_true(got->st.bytes == k);
	}
	run_chunks(b, cfg, &one, 1, got);
	assert_same(ref, got);
	run_chunks(b, cfg, odd, sizeof(odd) / sizeof(odd[0]), got);
	assert_same(ref, got);
	free(at);
	free(got);
}

/* ---- Scenario text ---- */

#define MONO1 "timestamp_clock_id: 3 trusted_packet_sequence_id: 1 "

#define DF(ts, cookie, token)                                                  \
	"packet { timestamp: " #ts " " MONO1                                   \
	"frame_timeline_event { actual_display_frame_start { cookie: " #cookie \
	" token: " #token " pid: 666 present_type: PRESENT_ON_TIME "           \
	"jank_type: 1 } } }\n"

#define SF(ts, cookie, token, dft, pid)                                        \
	"packet { timestamp: " #ts " " MONO1                                   \
	"frame_timeline_event { actual_surface_frame_start { cookie: " #cookie \
	" token: " #token " display_frame_token: " #dft " pid: " #pid          \
	" layer_name: \"TX - com.app/com.app.Main#0\" "                        \
	"present_type: PRESENT_ON_TIME on_time_finish: true jank_type: 1 "     \
	"prediction_type: PREDICTION_VALID is_buffer: true } } }\n"

#define END(ts, cookie)                                                        \
	"packet { timestamp: " #ts " " MONO1                                   \
	"frame_timeline_event { frame_end { cookie: " #cookie " } } }\n"

/* ---- Tests ---- */

static void
test_real_fixture(void **state)
{
	struct run *run = malloc(sizeof(*run));
	struct buf b;
	const struct frames_ftl_frame *f;

	(void)state;
	assert_non_null(run);
	read_file(ONE_FRAME, &b);
	assert_int_equal(b.n, 199);
	run_all(&b, NULL, run);

	assert_int_equal(run->n, 1);
	f = &run->f[0];
	assert_int_equal(f->pid, 1000);
	assert_true(f->start_ns == 999016000000LL);
	assert_true(f->ready_ns == 999027000000LL);
	assert_true(f->present_ns == 999041000000LL);
	assert_true(f->token == 1);
	assert_true(f->display_token == 4);
	assert_int_equal(f->present_type, FTL_PRESENT_ON_TIME);
	assert_int_equal(f->prediction_type, 1);
	assert_int_equal(f->jank, FTL_JANK_NONE);
	assert_int_equal(f->flags, FTL_FRAME_ON_TIME_FINISH | FTL_FRAME_BUFFER);
	assert_string_equal(f->layer,
			    "TX - com.example/com.example.MainActivity#123");

	/* The snapshot came first: coverage starts at its MONOTONIC time. */
	assert_true(run->cov == 999000000000LL);
	assert_true(run->wm == 999041000000LL);
	assert_true(run->st.packets == 5);
	assert_true(run->st.frame_events == 4);
	assert_true(run->st.clock_snapshots == 1);
	assert_true(run->st.frames == 1);
	assert_true(run->st.unpaired_ends == 0);
	assert_true(run->st.unpaired_starts == 0);
	assert_true(run->st.malformed == 0);
	assert_true(run->st.ts_unconvertible == 0);
	assert_true(run->st.bytes == 199);

	check_cuts(&b, NULL, run);
	buf_free(&b);
	free(run);
}

/*
 * The surface frame comes before its display frame here, so before the
 * end of input nothing marks the display frame's surfaces complete.
 */
static void
test_real_fixture_watermark(void **state)
{
	struct run run;
	struct frames_ftl *r;
	struct buf b;

	(void)state;
	read_file(ONE_FRAME, &b);
	r = start(NULL, &run);
	assert_true(frames_ftl_watermark(r) == FTL_TIME_NONE);
	assert_true(frames_ftl_coverage_start(r) == FTL_TIME_NONE);
	assert_int_equal(frames_ftl_feed(r, b.b, b.n), 0);
	drain(r, &run);
	assert_int_equal(run.n, 1);
	assert_true(frames_ftl_watermark(r) == FTL_TIME_NONE);
	frames_ftl_eof(r);
	assert_true(frames_ftl_watermark(r) == 999041000000LL);
	frames_ftl_eof(r);
	assert_int_equal(frames_ftl_feed(r, b.b, b.n), -EINVAL);
	frames_ftl_free(r);
	buf_free(&b);
}

static int
collect_cb(void *ctx, const struct frames_ftl_frame *f)
{
	struct run *run = ctx;

	assert_true(run->n < MAX_FRAMES);
	run->f[run->n++] = *f;
	return 0;
}

static int
stop_cb(void *ctx, const struct frames_ftl_frame *f)
{
	(void)ctx;
	(void)f;
	return -ECANCELED;
}

static void
test_read_file_cb(void **state)
{
	struct run run;
	struct frames_ftl *r;

	(void)state;
	r = start(NULL, &run);
	assert_int_equal(frames_ftl_read_file(r, ONE_FRAME, collect_cb, &run),
			 0);
	assert_int_equal(run.n, 1);
	assert_true(run.f[0].present_ns == 999041000000LL);
	assert_true(frames_ftl_watermark(r) == 999041000000LL);
	frames_ftl_free(r);

	r = start(NULL, &run);
	assert_int_equal(frames_ftl_read_file(r, ONE_FRAME, stop_cb, NULL),
			 -ECANCELED);
	frames_ftl_free(r);

	r = start(NULL, &run);
	assert_int_equal(frames_ftl_read_file(r,
					      FIXTURES "no-such-file.pftrace",
					      collect_cb, &run),
			 -ENOENT);
	frames_ftl_free(r);
}

/*
 * Perfetto's own test scenarios, toy timestamps taken as MONOTONIC:
 * display frame 2 has no surface frame; app token 1 is presented by
 * display frame 4 (FrameEnd 47), app token 5 by display frame 6 (88).
 */
static void
test_perfetto_events(void **state)
{
	struct run *run = malloc(sizeof(*run));
	struct frames_ftl_config cfg;
	const struct frames_ftl_frame *f;
	struct buf b;

	(void)state;
	assert_non_null(run);
	encode_file(EVENTS_TEXT, &b);
	config_mono(&cfg);
	run_all(&b, &cfg, run);

	assert_int_equal(run->n, 2);
	f = find_token(run, 1);
	assert_non_null(f);
	assert_int_equal(f->pid, 1000);
	assert_true(f->display_token == 4);
	assert_true(f->start_ns == 21);
	assert_true(f->ready_ns == 37);
	assert_true(f->present_ns == 47);
	assert_int_equal(f->present_type, FTL_PRESENT_ON_TIME);
	assert_int_equal(f->jank, FTL_JANK_NONE);
	assert_string_equal(f->layer, "Layer1");
	f = find_token(run, 5);
	assert_non_null(f);
	assert_true(f->display_token == 6);
	assert_true(f->start_ns == 41);
	assert_true(f->ready_ns == 74);
	assert_true(f->present_ns == 88);
	assert_int_equal(f->present_type, FTL_PRESENT_LATE);
	assert_int_equal(f->jank, FTL_JANK_APP_DEADLINE);
	assert_int_equal(f->flags & FTL_FRAME_ON_TIME_FINISH, 0);

	assert_true(run->st.packets == 20);
	assert_true(run->st.frame_events == 20);
	assert_true(run->st.unpaired_ends == 0);
	assert_true(run->st.unpaired_starts == 0);
	assert_true(run->st.malformed == 0);
	assert_true(run->st.evicted_waiting == 0);
	assert_true(run->cov == 20);
	assert_true(run->wm == 88);

	check_cuts(&b, &cfg, run);
	buf_free(&b);
	free(run);
}

/*
 * Without a snapshot, BOOTTIME toy times are held back until the end, then
 * read with offset 0, as Perfetto's trace processor shows them, and
 * flagged.
 */
static void
test_perfetto_events_no_clock(void **state)
{
	struct run *run = malloc(sizeof(*run));
	const struct frames_ftl_frame *f;
	struct frames_ftl *r;
	struct buf b;

	(void)state;
	assert_non_null(run);
	encode_file(EVENTS_TEXT, &b);
	r = start(NULL, run);
	assert_int_equal(frames_ftl_feed(r, b.b, b.n), 0);
	drain(r, run);
	/* Nothing comes out, and nothing is complete, while held. */
	assert_int_equal(run->n, 0);
	assert_true(frames_ftl_watermark(r) == FTL_TIME_NONE);
	finish(r, run);
	assert_int_equal(run->n, 2);
	f = find_token(run, 1);
	assert_non_null(f);
	assert_true(f->start_ns == 21 && f->present_ns == 47);
	assert_true((f->flags & FTL_FRAME_CLOCK_ASSUMED) != 0);
	f = find_token(run, 5);
	assert_non_null(f);
	assert_true(f->start_ns == 41 && f->present_ns == 88);
	assert_true((f->flags & FTL_FRAME_CLOCK_ASSUMED) != 0);
	assert_true(run->st.ts_unconvertible == 0);
	assert_true(run->st.clock_held == 20);
	assert_true(run->st.clock_assumed == 20);
	assert_true(run->st.unpaired_ends == 0);
	assert_true(run->cov == 20);
	assert_true(run->wm == 88);
	buf_free(&b);
	free(run);
}

static void
feed_text(struct frames_ftl *r, const char *text, struct run *out)
{
	struct buf b;

	encode(text, &b);
	assert_int_equal(frames_ftl_feed(r, b.b, b.n), 0);
	drain(r, out);
	buf_free(&b);
}

static void
test_display_before_surface(void **state)
{
	struct frames_ftl_stats st;
	struct run run;
	struct frames_ftl *r;

	(void)state;
	r = start(NULL, &run);
	feed_text(r, DF(100, 1, 10) END(150, 1) SF(90, 2, 5, 10, 42), &run);
	assert_int_equal(run.n, 0);
	/* The surface frames of display 10 may still be coming. */
	assert_true(frames_ftl_watermark(r) == FTL_TIME_NONE);
	feed_text(r, END(120, 2), &run);
	assert_int_equal(run.n, 1);
	assert_int_equal(run.f[0].pid, 42);
	assert_true(run.f[0].token == 5);
	assert_true(run.f[0].start_ns == 90);
	assert_true(run.f[0].ready_ns == 120);
	assert_true(run.f[0].present_ns == 150);
	assert_string_equal(run.f[0].layer, "TX - com.app/com.app.Main#0");
	frames_ftl_get_stats(r, &st);
	assert_int_equal(st.waiting, 0);
	/* The next display frame closes display 10. */
	feed_text(r, DF(160, 3, 11), &run);
	assert_true(frames_ftl_watermark(r) == 150);
	assert_true(frames_ftl_coverage_start(r) == 90);
	finish(r, &run);
	assert_true(run.st.unpaired_starts == 1);
	assert_true(run.wm == 150);
}

static void
test_surface_before_display(void **state)
{
	struct frames_ftl_stats st;
	struct run run;
	struct frames_ftl *r;

	(void)state;
	r = start(NULL, &run);
	feed_text(r, SF(200, 3, 6, 11, 43) END(220, 3), &run);
	assert_int_equal(run.n, 0);
	frames_ftl_get_stats(r, &st);
	assert_int_equal(st.waiting, 1);
	feed_text(r, DF(210, 4, 11), &run);
	assert_int_equal(run.n, 0);
	feed_text(r, END(250, 4), &run);
	assert_int_equal(run.n, 1);
	assert_true(run.f[0].token == 6);
	assert_true(run.f[0].start_ns == 200);
	assert_true(run.f[0].ready_ns == 220);
	assert_true(run.f[0].present_ns == 250);
	frames_ftl_get_stats(r, &st);
	assert_int_equal(st.waiting, 0);
	finish(r, &run);
	assert_true(run.wm == 250);
	assert_true(run.st.evicted_waiting == 0);
	assert_true(run.st.unpaired_starts == 0);
}

/* Several layers on one display frame, and one app frame dropped. */
static void
test_dropped_and_shared(void **state)
{
	struct run run;
	struct buf b;

	(void)state;
	encode(DF(100, 1, 10) END(150, 1) SF(90, 2, 5, 10, 42) END(120, 2) SF(
		       91, 3, 5, 10, 42)
		       END(121,
			   3) "packet { timestamp: 92 " MONO1
			      "frame_timeline_event { "
			      "actual_surface_frame_start { cookie: 4 token: 6 "
			      "display_frame_token: 10 pid: 42 layer_name: "
			      "\"x\" "
			      "present_type: PRESENT_DROPPED jank_type: 1024 } "
			      "} }\n" END(122, 4),
	       &b);
	run_all(&b, NULL, &run);
	assert_int_equal(run.n, 2);
	assert_true(run.f[0].token == 5 && run.f[1].token == 5);
	assert_true(run.f[0].start_ns == 90 && run.f[1].start_ns == 91);
	assert_true(run.f[1].present_ns == 150);
	assert_true(run.st.dropped_frames == 1);
	assert_true(run.st.unpaired_ends == 0);
	assert_true(find_token(&run, 6) == NULL);
	buf_free(&b);
}

/* Skipped-frame display slices (token 0) and dropped displays give no present.
 */
static void
test_token0_display(void **state)
{
	struct run run;
	struct buf b;

	(void)state;
	encode(DF(100, 1, 0) END(150, 1) SF(90, 2, 5, 0, 42)
		       END(120,
			   2) "packet { timestamp: 160 " MONO1
			      "frame_timeline_event { "
			      "actual_display_frame_start { cookie: 3 token: "
			      "12 pid: 666 "
			      "present_type: PRESENT_DROPPED jank_type: 1024 } "
			      "} }\n" END(170, 3) SF(155, 4, 7, 12, 42)
				      END(165, 4) DF(200, 5, 13) END(230, 5)
					      SF(190, 6, 8, 13, 42) END(210, 6),
	       &b);
	run_all(&b, NULL, &run);
	assert_int_equal(run.n, 1);
	assert_true(run.f[0].token == 8);
	assert_true(run.f[0].present_ns == 230);
	assert_true(run.st.ignored_displays == 2);
	/* The two surfaces that pointed at them never found a present. */
	assert_true(run.st.evicted_waiting == 2);
	assert_true(run.st.unpaired_ends == 0);
	/* A token-0 display frame's end is not a present either. */
	assert_true(run.wm == 230);
	buf_free(&b);
}

/*
 * BOOTTIME packets converted with the snapshot in force at their time: a
 * 60 s suspend between the two snapshots moves the offset from 1 s to
 * 61 s, and a late packet from before the suspend still uses the first.
 */
static void
test_boottime_two_snapshots(void **state)
{
	static const char text[] =
		"packet { trusted_packet_sequence_id: 1 clock_snapshot { "
		"clocks { clock_id: 6 timestamp: 1000000000000 } "
		"clocks { clock_id: 3 timestamp: 999000000000 } "
		"clocks { clock_id: 1 timestamp: 1700000000000000000 } "
		"primary_trace_clock: BUILTIN_CLOCK_BOOTTIME } }\n"
		/* Frame 1, without a clock id: the trace's BOOTTIME. */
		"packet { timestamp: 1000100000000 trusted_packet_sequence_id: "
		"2 "
		"frame_timeline_event { actual_display_frame_start { cookie: 1 "
		"token: 10 pid: 666 } } }\n"
		"packet { timestamp: 1000120000000 trusted_packet_sequence_id: "
		"2 "
		"frame_timeline_event { frame_end { cookie: 1 } } }\n"
		"packet { timestamp: 1000090000000 trusted_packet_sequence_id: "
		"2 "
		"frame_timeline_event { actual_surface_frame_start { cookie: 2 "
		"token: 1 display_frame_token: 10 pid: 42 } } }\n"
		"packet { timestamp: 1000110000000 trusted_packet_sequence_id: "
		"2 "
		"frame_timeline_event { frame_end { cookie: 2 } } }\n"
		/* The device slept 60 s: BOOTTIME ran on, MONOTONIC did not. */
		"packet { trusted_packet_sequence_id: 1 clock_snapshot { "
		"clocks { clock_id: 6 timestamp: 1100000000000 } "
		"clocks { clock_id: 3 timestamp: 1039000000000 } } }\n"
		"packet { timestamp: 1100100000000 timestamp_clock_id: 6 "
		"trusted_packet_sequence_id: 2 frame_timeline_event { "
		"actual_display_frame_start { cookie: 3 token: 11 pid: 666 } } "
		"}\n"
		"packet { timestamp: 1100120000000 timestamp_clock_id: 6 "
		"trusted_packet_sequence_id: 2 "
		"frame_timeline_event { frame_end { cookie: 3 } } }\n"
		"packet { timestamp: 1100090000000 timestamp_clock_id: 6 "
		"trusted_packet_sequence_id: 2 frame_timeline_event { "
		"actual_surface_frame_start { cookie: 4 token: 2 "
		"display_frame_token: 11 pid: 42 } } }\n"
		"packet { timestamp: 1100110000000 timestamp_clock_id: 6 "
		"trusted_packet_sequence_id: 2 "
		"frame_timeline_event { frame_end { cookie: 4 } } }\n"
		/* Written late, from before the suspend. */
		"packet { timestamp: 1050100000000 trusted_packet_sequence_id: "
		"2 "
		"frame_timeline_event { actual_display_frame_start { cookie: 5 "
		"token: 12 pid: 666 } } }\n"
		"packet { timestamp: 1050120000000 trusted_packet_sequence_id: "
		"2 "
		"frame_timeline_event { frame_end { cookie: 5 } } }\n"
		"packet { timestamp: 1050090000000 trusted_packet_sequence_id: "
		"2 "
		"frame_timeline_event { actual_surface_frame_start { cookie: 6 "
		"token: 3 display_frame_token: 12 pid: 42 } } }\n"
		"packet { timestamp: 1050110000000 trusted_packet_sequence_id: "
		"2 "
		"frame_timeline_event { frame_end { cookie: 6 } } }\n"
		/* REALTIME converts through the same snapshots. */
		"packet { timestamp: 1700000000500000000 timestamp_clock_id: 1 "
		"trusted_packet_sequence_id: 2 frame_timeline_event { "
		"frame_end { cookie: 77 } } }\n";
	const struct frames_ftl_frame *f;
	struct run *run = malloc(sizeof(*run));
	struct buf b;

	(void)state;
	assert_non_null(run);
	encode(text, &b);
	run_all(&b, NULL, run);
	assert_int_equal(run->n, 3);
	f = find_token(run, 1);
	assert_non_null(f);
	assert_true(f->start_ns == 999090000000LL);
	assert_true(f->ready_ns == 999110000000LL);
	assert_true(f->present_ns == 999120000000LL);
	f = find_token(run, 2);
	assert_non_null(f);
	assert_true(f->start_ns == 1039090000000LL);
	assert_true(f->present_ns == 1039120000000LL);
	f = find_token(run, 3);
	assert_non_null(f);
	assert_true(f->start_ns == 1049090000000LL);
	assert_true(f->present_ns == 1049120000000LL);
	assert_true(run->st.clock_snapshots == 2);
	assert_true(run->st.ts_unconvertible == 0);
	assert_true(run->st.unpaired_ends == 1);
	assert_true(run->cov == 999000000000LL);
	/* The snapshot's packets have no clock of their own to reject. */
	assert_true(run->st.ts_rejected == 0);
	check_cuts(&b, NULL, run);
	buf_free(&b);
	free(run);
}

static void
test_boottime_before_snapshot(void **state)
{
	struct run run;
	struct buf b;

	(void)state;
	encode("packet { timestamp: 5000 timestamp_clock_id: 6 "
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n"
	       "packet { timestamp: 5000 timestamp_clock_id: 42 "
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n"
	       "packet { timestamp: 5000 timestamp_clock_id: 200 "
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n"
	       "packet { clock_snapshot { clocks { clock_id: 6 timestamp: 100 "
	       "} "
	       "clocks { clock_id: 3 timestamp: 40 } } }\n"
	       /* Before the only snapshot: converted with it, as Perfetto does.
		*/
	       "packet { timestamp: 90 timestamp_clock_id: 6 "
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n"
	       /* Converts to a negative MONOTONIC time. */
	       "packet { timestamp: 10 timestamp_clock_id: 6 "
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n",
	       &b);
	run_all(&b, NULL, &run);
	/*
	 * The BOOTTIME event before the snapshot waits for it and is
	 * converted by it (5000 -> 4940); clocks 42 and 200 never convert.
	 */
	assert_true(run.st.clock_held == 1);
	assert_true(run.st.clock_assumed == 0);
	assert_true(run.st.ts_unconvertible == 2);
	assert_true(run.st.ts_rejected == 1);
	assert_true(run.st.unpaired_ends == 2);
	/*
	 * Data came before the snapshot, so the snapshot does not mark where
	 * the recording began: coverage is the data's own (90 -> 30).
	 */
	assert_true(run.cov == 30);
	buf_free(&b);
}

/* A primary_trace_clock of MONOTONIC makes clock-less packets MONOTONIC. */
static void
test_primary_clock(void **state)
{
	struct run run;
	struct buf b;

	(void)state;
	encode("packet { clock_snapshot { clocks { clock_id: 6 timestamp: 1000 "
	       "} clocks { clock_id: 3 timestamp: 10 } "
	       "primary_trace_clock: BUILTIN_CLOCK_MONOTONIC } }\n"
	       "packet { timestamp: 500 trusted_packet_sequence_id: 1 "
	       "frame_timeline_event { actual_display_frame_start { cookie: 1 "
	       "token: 3 pid: 1 } } }\n"
	       "packet { timestamp: 600 trusted_packet_sequence_id: 1 "
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n"
	       "packet { timestamp: 400 trusted_packet_sequence_id: 1 "
	       "frame_timeline_event { actual_surface_frame_start { cookie: 2 "
	       "token: 9 display_frame_token: 3 pid: 7 } } }\n"
	       "packet { timestamp: 450 trusted_packet_sequence_id: 1 "
	       "frame_timeline_event { frame_end { cookie: 2 } } }\n",
	       &b);
	run_all(&b, NULL, &run);
	assert_int_equal(run.n, 1);
	assert_true(run.f[0].start_ns == 400);
	assert_true(run.f[0].present_ns == 600);
	assert_string_equal(run.f[0].layer, "");
	buf_free(&b);
}

static void
test_unpaired_and_lost(void **state)
{
	struct run run;
	struct buf b;

	(void)state;
	encode(END(100, 99)
	       /* A start on sequence 1 does not pair with an end on 2. */
	       SF(110, 7, 5, 10,
		  42) "packet { timestamp: 120 timestamp_clock_id: 3 "
		      "trusted_packet_sequence_id: 2 previous_packet_dropped: "
		      "1 "
		      "frame_timeline_event { frame_end { cookie: 7 } } }\n"
		      "packet { timestamp: 130 timestamp_clock_id: 3 "
		      "trusted_packet_sequence_id: 1 previous_packet_dropped: "
		      "0 "
		      "frame_timeline_event { frame_end { cookie: 7 } } }\n"
		      "packet { trusted_packet_sequence_id: 1 "
		      "previous_packet_dropped: 2 }\n",
	       &b);
	run_all(&b, NULL, &run);
	assert_true(run.st.unpaired_ends == 2);
	assert_true(run.st.packets_lost == 2);
	assert_true(run.st.packets == 5);
	/* The start did pair on its own sequence, then waited in vain. */
	assert_true(run.st.unpaired_starts == 0);
	assert_true(run.st.evicted_waiting == 1);
	assert_int_equal(run.n, 0);
	buf_free(&b);
}

/* Unknown fields of every wire type, groups included, are skipped. */
static void
test_unknown_fields(void **state)
{
	static const uint8_t group[] = {
		0xfb, 0x3f,	  /* field 1023, start group */
		0x08, 0x05,	  /* field 1 varint */
		0x13, 0x08, 0x01, /* a nested group, field 2 */
		0x14, 0xfc, 0x3f, /* end group 1023 */
	};
	struct buf b, t = {NULL, 0};
	struct pb_reader rd;
	struct pb_field f;
	struct run run;

	(void)state;
	encode(DF(100, 1, 10) END(
		       150,
		       1) "packet { timestamp: 90 " MONO1
			  "trusted_uid: 1000 trusted_pid: 1234 sequence_flags: "
			  "2 "
			  "first_packet_on_sequence: true trace_config: "
			  "\"abc\" "
			  "synchronization_marker: \"0123456789abcdef\" "
			  "test_fixed64: 5 test_fixed32: 6 test_sint64: -7 "
			  "frame_timeline_event { actual_surface_frame_start { "
			  "cookie: 2 "
			  "token: 5 display_frame_token: 10 pid: 42 "
			  "layer_name: \"L\" "
			  "jank_severity_type: SEVERITY_NONE "
			  "jank_severity_score: 0.5 "
			  "present_delay_millis: 1.5 jank_type_experimental: 3 "
			  "present_type_experimental: PRESENT_LATE } } }\n" END(
				  120, 2),
	       &b);
	/* Put a group at the head of every packet body. */
	pb_reader_init(&rd, b.b, b.n);
	while (pb_next(&rd, &f) > 0) {
		uint8_t *body = malloc(sizeof(group) + f.len);

		assert_non_null(body);
		memcpy(body, group, sizeof(group));
		memcpy(body + sizeof(group), f.data, f.len);
		buf_record(&t, body, sizeof(group) + f.len);
		free(body);
	}
	run_all(&b, NULL, &run);
	assert_int_equal(run.n, 1);
	assert_true(run.st.malformed == 0);
	assert_string_equal(run.f[0].layer, "L");
	run_all(&t, NULL, &run);
	assert_int_equal(run.n, 1);
	assert_true(run.st.malformed == 0);
	assert_true(run.f[0].present_ns == 150);
	buf_free(&b);
	buf_free(&t);
}

static void
test_malformed(void **state)
{
	/* frame_end { cookie as a string } */
	static const uint8_t bad_type[] = {0x40, 0x05, 0xd0, 0x03, 0x03,
					   0xe2, 0x04, 0x05, 0x2a, 0x03,
					   0x0a, 0x01, 'x'};
	/* A timestamp whose varint runs past the packet. */
	static const uint8_t bad_varint[] = {0x40, 0xff, 0xff};
	/* A stray end-group key. */
	static const uint8_t stray_end[] = {0x0c};
	/* A top-level record that is not a packet (field 2, varint). */
	static const uint8_t other[] = {0x10, 0x01};
	static const uint8_t garbage[] = {0x0f, 0x00, 0x0a, 0x00};
	struct buf b, t = {NULL, 0};
	struct run run;

	(void)state;
	encode(DF(100, 1, 10) END(150, 1)
	       /* A surface start without a pid is refused. */
	       "packet { timestamp: 95 " MONO1 "frame_timeline_event { "
	       "actual_surface_frame_start { cookie: 3 token: 4 "
	       "display_frame_token: 10 } } }\n"
	       /* No timestamp. */
	       "packet { " MONO1
	       "frame_timeline_event { actual_surface_frame_start { "
	       "cookie: 4 token: 4 display_frame_token: 10 pid: 1 } } }\n"
	       /* An empty event. */
	       "packet { timestamp: 96 " MONO1 "frame_timeline_event { } }\n",
	       &b);
	buf_append(&t, b.b, b.n);
	buf_record(&t, bad_type, sizeof(bad_type));
	buf_record(&t, bad_varint, sizeof(bad_varint));
	buf_record(&t, stray_end, sizeof(stray_end));
	buf_append(&t, other, sizeof(other));
	buf_free(&b);
	encode(SF(90, 2, 5, 10, 42) END(120, 2), &b);
	buf_append(&t, b.b, b.n);
	buf_free(&b);

	run_all(&t, NULL, &run);
	assert_int_equal(run.n, 1);
	assert_true(run.st.malformed == 7);
	assert_true(run.st.corrupt == 0);
	assert_true(run.st.unpaired_ends == 0);

	/* Bad framing: what came before stands, the rest is ignored. */
	buf_append(&t, garbage, sizeof(garbage));
	encode(SF(91, 8, 6, 10, 42) END(121, 8), &b);
	buf_append(&t, b.b, b.n);
	run_all(&t, NULL, &run);
	assert_int_equal(run.n, 1);
	assert_true(run.st.corrupt == 1);
	assert_true(run.st.ignored_bytes == sizeof(garbage) + b.n);
	buf_free(&b);
	buf_free(&t);
}

/* A packet above max_packet is skipped, even when it spans chunks. */
static void
test_oversized(void **state)
{
	static const size_t one = 1;
	struct frames_ftl_config cfg;
	struct run run;
	struct buf b;

	(void)state;
	encode(DF(100, 1, 10)
		       END(150,
			   1) "packet { timestamp: 91 " MONO1
			      "frame_timeline_event { "
			      "actual_surface_frame_start { cookie: 3 token: 4 "
			      "display_frame_token: 10 pid: 42 layer_name: \""
			      "a long layer name that makes this packet too "
			      "big for the test"
			      "\" } } }\n" END(121, 3) SF(90, 2, 5, 10, 42)
				      END(120, 2),
	       &b);
	frames_ftl_config_default(&cfg);
	cfg.max_packet = 64;
	run_all(&b, &cfg, &run);
	assert_int_equal(run.n, 1);
	assert_true(run.f[0].token == 5);
	assert_true(run.st.oversized == 1);
	assert_true(run.st.unpaired_ends == 1);
	run_chunks(&b, &cfg, &one, 1, &run);
	assert_int_equal(run.n, 1);
	assert_true(run.st.oversized == 1);
	buf_free(&b);
}

/* A length of 2^64 - 1 at the top level. */
static void
test_huge_record(void **state)
{
	static const uint8_t huge[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0x01, 0x00};
	struct run run;
	struct frames_ftl *r;

	(void)state;
	r = start(NULL, &run);
	assert_int_equal(frames_ftl_feed(r, huge, sizeof(huge)), 0);
	assert_int_equal(frames_ftl_feed(r, huge, sizeof(huge)), 0);
	finish(r, &run);
	assert_true(run.st.oversized == 1);
	assert_true(run.st.truncated == 1);
	assert_int_equal(run.n, 0);
}

/*
 * Where framing failed and what it cost, as the replay summary reports
 * it: the record cut off, its declared length, and the bytes not framed.
 * Hand-made packets, so this runs without protoc.
 */
static void
check_cut(const struct buf *t, uint64_t packets, uint64_t at, uint64_t len,
	  uint64_t skipped)
{
	static const size_t sizes[] = {1, 3, 7};
	struct run run;
	int i;

	for (i = 0; i < 2; i++) {
		if (i == 0)
			run_all(t, NULL, &run);
		else
			run_chunks(t, NULL, sizes, 3, &run);
		assert_true(run.st.packets == packets);
		assert_true(run.st.truncated == 1);
		assert_true(run.st.cut_at == at);
		assert_true(run.st.cut_len == len);
		assert_true(run.st.skipped_bytes == skipped);
		assert_true(run.st.corrupt == 0);
	}
}

static void
test_framing_counters(void **state)
{
	static const uint8_t pkt[] = {0x40, 0x05}; /* timestamp: 5 */
	static const uint8_t garbage[] = {0x0f, 0x00};
	static const uint8_t cut[] = {0x0a, 0x07, 0x40};
	static const uint8_t key = 0x0a;
	struct buf t = {NULL, 0};
	struct run run;
	size_t good;

	(void)state;
	/* A first length of 2^62: nothing is framed, the file is cut. */
	buf_append(&t, &key, 1);
	buf_varint(&t, UINT64_C(1) << 62);
	buf_append(&t, pkt, sizeof(pkt));
	check_cut(&t, 0, 0, UINT64_C(1) << 62, t.n);
	run_all(&t, NULL, &run);
	assert_true(run.st.oversized == 1);
	buf_free(&t);

	/* Two packets, then one cut in its payload. */
	buf_record(&t, pkt, sizeof(pkt));
	buf_record(&t, pkt, sizeof(pkt));
	good = t.n;
	buf_append(&t, cut, sizeof(cut));
	check_cut(&t, 2, good, 7, sizeof(cut));
	buf_free(&t);

	/* A cut in the length varint: the length is unknown. */
	buf_record(&t, pkt, sizeof(pkt));
	good = t.n;
	buf_append(&t, &key, 1);
	buf_append(&t, "\x80", 1);
	check_cut(&t, 1, good, 0, 2);
	buf_free(&t);

	/* Bad framing after a packet: where, and the bytes ignored. */
	buf_record(&t, pkt, sizeof(pkt));
	good = t.n;
	buf_append(&t, garbage, sizeof(garbage));
	buf_record(&t, pkt, sizeof(pkt));
	run_all(&t, NULL, &run);
	assert_true(run.st.packets == 1);
	assert_true(run.st.corrupt == 1);
	assert_true(run.st.corrupt_at == good);
	assert_true(run.st.ignored_bytes == t.n - good);
	assert_true(run.st.truncated == 0 && run.st.skipped_bytes == 0);
	buf_free(&t);
}

static void
test_eviction(void **state)
{
	struct frames_ftl_config cfg;
	struct frames_ftl_stats st;
	struct run run;
	struct frames_ftl *r;

	(void)state;
	/* A surface frame whose display frame never comes ages out. */
	frames_ftl_config_default(&cfg);
	cfg.join_window_ns = 1 * S;
	r = start(&cfg, &run);
	feed_text(r, SF(1000000000, 1, 5, 77, 42) END(1100000000, 1), &run);
	frames_ftl_get_stats(r, &st);
	assert_int_equal(st.waiting, 1);
	feed_text(r, DF(5000000000, 2, 78) END(5100000000, 2), &run);
	frames_ftl_get_stats(r, &st);
	assert_int_equal(st.waiting, 0);
	assert_true(st.evicted_waiting == 1);
	/* So does a remembered present. */
	feed_text(r, SF(9000000000, 3, 6, 78, 42) END(9100000000, 3), &run);
	assert_int_equal(run.n, 0);
	finish(r, &run);
	assert_true(run.st.evicted_waiting == 2);

	/* A full table drops its oldest entry. */
	frames_ftl_config_default(&cfg);
	cfg.max_pending = 4;
	r = start(&cfg, &run);
	feed_text(r,
		  SF(100, 1, 1, 101, 42) END(110, 1) SF(101, 2, 2, 102, 42)
			  END(111, 2) SF(102, 3, 3, 103,
					 42) END(112, 3) SF(103, 4, 4, 104, 42)
				  END(113, 4) SF(104, 5, 5, 105, 42) END(114, 5)
					  SF(105, 6, 6, 106, 42) END(115, 6),
		  &run);
	frames_ftl_get_stats(r, &st);
	assert_int_equal(st.waiting, 4);
	assert_true(st.evicted_waiting == 2);
	feed_text(r, DF(200, 7, 106) END(210, 7) DF(201, 8, 101) END(211, 8),
		  &run);
	assert_int_equal(run.n, 1);
	assert_true(run.f[0].token == 6);
	finish(r, &run);
	assert_true(run.st.evicted_waiting == 5);
}

static void
test_bad_timestamps(void **state)
{
	struct run run;
	struct buf b;

	(void)state;
	encode("packet { timestamp: 9223372036854775807 " MONO1
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n"
	       "packet { timestamp: 18446744073709551615 " MONO1
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n"
	       "packet { timestamp: 9223372026854775807 " MONO1
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n"
	       "packet { timestamp: 9223372026854775806 " MONO1
	       "frame_timeline_event { frame_end { cookie: 1 } } }\n",
	       &b);
	run_all(&b, NULL, &run);
	assert_true(run.st.ts_rejected == 3);
	assert_true(run.st.unpaired_ends == 1);
	buf_free(&b);
}

static void
test_long_layer(void **state)
{
	char name[301], text[2048];
	struct run run;
	struct buf b;
	int n;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	n = snprintf(
		text, sizeof(text),
		DF(100, 1, 10) END(
			150,
			1) "packet { timestamp: 90 " MONO1
			   "frame_timeline_event { actual_surface_frame_start "
			   "{ "
			   "cookie: 2 token: 5 display_frame_token: 10 pid: 42 "
			   "layer_name: \"%s\" } } }\n" END(120, 2),
		name);
	assert_true(n > 0 && (size_t)n < sizeof(text));
	encode(text, &b);
	run_all(&b, NULL, &run);
	assert_int_equal(run.n, 1);
	assert_int_equal(strlen(run.f[0].layer), FTL_LAYER_MAX - 1);
	assert_true(run.f[0].flags & FTL_FRAME_LAYER_CUT);
	assert_int_equal(strncmp(run.f[0].layer, name, FTL_LAYER_MAX - 1), 0);
	buf_free(&b);
}

/* The scenario fixture reads as its header comment says. */
static void
test_scenarios(void **state)
{
	static const char app1[] =
		"TX - com.example/com.example.MainActivity#123";
	struct run *run = malloc(sizeof(*run));
	const struct frames_ftl_frame *f;
	struct buf b;

	(void)state;
	assert_non_null(run);
	encode_file(SCENARIOS, &b);
	run_all(&b, NULL, run);
	assert_int_equal(run->n, 4);
	f = find_token(run, 101);
	assert_non_null(f);
	assert_int_equal(f->pid, 1000);
	assert_string_equal(f->layer, app1);
	assert_true(f->start_ns == 999016000000LL);
	assert_true(f->ready_ns == 999027000000LL);
	assert_true(f->present_ns == 999041000000LL);
	f = find_token(run, 102);
	assert_non_null(f);
	assert_true(f->start_ns == 999033000000LL);
	assert_true(f->present_ns == 999058000000LL);
	assert_int_equal(f->jank, FTL_JANK_APP_DEADLINE);
	assert_int_equal(f->present_type, FTL_PRESENT_LATE);
	assert_null(find_token(run, 103));
	f = find_token(run, 201);
	assert_non_null(f);
	assert_int_equal(f->pid, 2000);
	assert_string_equal(f->layer, "TX - org.other/org.other.Main#7");
	assert_true(f->start_ns == 1039016000000LL);
	assert_true(f->present_ns == 1039041000000LL);
	f = find_token(run, 202);
	assert_non_null(f);
	assert_true(f->ready_ns == 1039044000000LL);
	assert_true(f->present_ns == 1039058000000LL);

	assert_true(run->st.dropped_frames == 1);
	assert_true(run->st.ignored_displays == 1);
	assert_true(run->st.packets_lost == 1);
	assert_true(run->st.unpaired_ends == 1);
	assert_true(run->st.unpaired_starts == 0);
	assert_true(run->st.evicted_waiting == 0);
	assert_true(run->st.clock_snapshots == 2);
	assert_true(run->st.malformed == 0);
	assert_true(run->cov == 999000000000LL);
	assert_true(run->wm == 1039058000000LL);
	check_cuts(&b, NULL, run);
	buf_free(&b);
	free(run);
}

static void
test_config(void **state)
{
	struct frames_ftl_config cfg;
	struct frames_ftl *r = NULL;

	(void)state;
	frames_ftl_free(NULL);
	frames_ftl_config_default(&cfg);
	assert_int_equal(frames_ftl_new(&cfg, &r), 0);
	frames_ftl_free(r);
	r = NULL;
	cfg.max_pending = 0;
	assert_int_equal(frames_ftl_new(&cfg, &r), -EINVAL);
	frames_ftl_config_default(&cfg);
	cfg.join_window_ns = 0;
	assert_int_equal(frames_ftl_new(&cfg, &r), -EINVAL);
	frames_ftl_config_default(&cfg);
	cfg.default_clock = 64;
	assert_int_equal(frames_ftl_new(&cfg, &r), -EINVAL);
	frames_ftl_config_default(&cfg);
	cfg.max_packet = 8;
	assert_int_equal(frames_ftl_new(&cfg, &r), -EINVAL);
	assert_null(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_fixture),
		cmocka_unit_test(test_real_fixture_watermark),
		cmocka_unit_test(test_read_file_cb),
		cmocka_unit_test(test_perfetto_events),
		cmocka_unit_test(test_perfetto_events_no_clock),
		cmocka_unit_test(test_display_before_surface),
		cmocka_unit_test(test_surface_before_display),
		cmocka_unit_test(test_dropped_and_shared),
		cmocka_unit_test(test_token0_display),
		cmocka_unit_test(test_boottime_two_snapshots),
		cmocka_unit_test(test_boottime_before_snapshot),
		cmocka_unit_test(test_primary_clock),
		cmocka_unit_test(test_unpaired_and_lost),
		cmocka_unit_test(test_unknown_fields),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_huge_record),
		cmocka_unit_test(test_framing_counters),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_bad_timestamps),
		cmocka_unit_test(test_long_layer),
		cmocka_unit_test(test_scenarios),
		cmocka_unit_test(test_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
