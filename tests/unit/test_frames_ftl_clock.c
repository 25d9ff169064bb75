/*
 * Tests of FrameTimeline read as Perfetto reads it: traces without a
 * ClockSnapshot or with one after their data (frames_ftl.h, Clocks), the
 * flags of estimated starts and presents, the jank tags (janktag.h), the
 * one rule for layer names (layername.h), and Perfetto's own test traces
 * (../shared/fixtures/real/perfetto/, SOURCES.md there) through the
 * reader and the correlator.  Packets the tests build themselves are
 * encoded here field by field, from the field numbers of docs/formats.md
 * 2.2 and 2.3.  Tests that need the shared fixtures skip without them.
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

#include <cmocka.h>

#include "correlate.h"
#include "frames_ftl.h"
#include "janktag.h"
#include "layername.h"

#define REAL_DIR "../shared/fixtures/real/perfetto/"
#define EVENTS	 REAL_DIR "frame_timeline_events.pftrace"
#define POWER	 REAL_DIR "frame_timeline_power_mode.pftrace"

#define MAX_FRAMES 32
#define MS	   1000000LL

struct buf {
	uint8_t b[1 << 16];
	size_t n;
};

struct run {
	struct frames_ftl_frame f[MAX_FRAMES];
	size_t n;
	struct frames_ftl_stats st;
};

/* ---- A protobuf writer for the packets built here ---- */

static void
put_varint(struct buf *b, uint64_t v)
{
	do {
		assert_true(b->n < sizeof(b->b));
		b->b[b->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
}

static void
put_int(struct buf *b, unsigned field, uint64_t v)
{
	put_varint(b, (uint64_t)field << 3);
	put_varint(b, v);
}

static void
put_bytes(struct buf *b, unsigned field, const void *p, size_t n)
{
	put_varint(b, (uint64_t)field << 3 | 2);
	put_varint(b, n);
	assert_true(b->n + n <= sizeof(b->b));
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

/*
 * Appends to out a TracePacket record: timestamp ts in clock (0 for
 * none), sequence 1, and the FrameTimelineEvent member kind whose body is
 * body.
 */
static void
put_event(struct buf *out, uint64_t ts, unsigned clock, unsigned kind,
	  const struct buf *body)
{
	static struct buf ev, pkt;

	ev.n = pkt.n = 0;
	put_bytes(&ev, kind, body->b, body->n);
	put_int(&pkt, 8, ts);
	if (clock != 0)
		put_int(&pkt, 58, clock);
	put_int(&pkt, 10, 1);
	put_bytes(&pkt, 76, ev.b, ev.n);
	put_bytes(out, 1, pkt.b, pkt.n);
}

static void
display_start(struct buf *out, uint64_t ts, int64_t cookie, int64_t token,
	      uint32_t jank)
{
	static struct buf b;

	b.n = 0;
	put_int(&b, 1, (uint64_t)cookie);
	put_int(&b, 2, (uint64_t)token);
	put_int(&b, 3, 666);
	put_int(&b, 4, 1);
	put_int(&b, 7, jank);
	put_event(out, ts, 6, 2, &b);
}

static void
surface_start(struct buf *out, uint64_t ts, int64_t cookie, int64_t token,
	      int64_t display_token, uint32_t jank, int prediction)
{
	static struct buf b;

	b.n = 0;
	put_int(&b, 1, (uint64_t)cookie);
	put_int(&b, 2, (uint64_t)token);
	put_int(&b, 3, (uint64_t)display_token);
	put_int(&b, 4, 1000);
	put_bytes(&b, 5, "TX - com.foo/com.foo.Main#0", 27);
	put_int(&b, 6, 1);
	put_int(&b, 9, jank);
	put_int(&b, 10, (uint64_t)prediction);
	put_event(out, ts, 6, 4, &b);
}

static void
frame_end(struct buf *out, uint64_t ts, int64_t cookie)
{
	static struct buf b;

	b.n = 0;
	put_int(&b, 1, (uint64_t)cookie);
	put_event(out, ts, 6, 5, &b);
}

/* A ClockSnapshot packet: BOOTTIME boot is MONOTONIC mono. */
static void
snapshot(struct buf *out, uint64_t boot, uint64_t mono)
{
	static struct buf c1, c2, snap, pkt;

	c1.n = c2.n = snap.n = pkt.n = 0;
	put_int(&c1, 1, 6);
	put_int(&c1, 2, boot);
	put_int(&c2, 1, 3);
	put_int(&c2, 2, mono);
	put_bytes(&snap, 1, c1.b, c1.n);
	put_bytes(&snap, 1, c2.b, c2.n);
	put_bytes(&pkt, 6, snap.b, snap.n);
	put_bytes(out, 1, pkt.b, pkt.n);
}

/* ---- Running the reader ---- */

static int
slurp(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");

	b->n = 0;
	if (!f)
		return -1;
	b->n = fread(b->b, 1, sizeof(b->b), f);
	assert_int_equal(ferror(f), 0);
	assert_true(feof(f));
	fclose(f);
	return 0;
}

static void
run_buf(const struct buf *b, const struct frames_ftl_config *cfg,
	struct run *out)
{
	struct frames_ftl_frame f;
	struct frames_ftl *r = NULL;

	memset(out, 0, sizeof(*out));
	assert_int_equal(frames_ftl_new(cfg, &r), 0);
	assert_int_equal(frames_ftl_feed(r, b->b, b->n), 0);
	frames_ftl_eof(r);
	while (frames_ftl_next(r, &f) == 1) {
		assert_true(out->n < MAX_FRAMES);
		out->f[out->n++] = f;
	}
	frames_ftl_get_stats(r, &out->st);
	frames_ftl_free(r);
}

static const struct frames_ftl_frame *
find(const struct run *run, int64_t token, const char *layer)
{
	size_t i;

	for (i = 0; i < run->n; i++)
		if (run->f[i].token == token &&
		    strcmp(run->f[i].layer, layer) == 0)
			return &run->f[i];
	return NULL;
}

/* What Perfetto's test_actual_frame_timeline_events has for pid 1000. */
static const struct {
	int64_t token;
	const char *layer;
	int64_t start, ready, present;
	uint32_t jank;
	uint32_t tag;
} perfetto_frames[] = {
	{1, "Layer1", 21, 37, 47, 0x1, 0},
	{5, "Layer1", 41, 74, 88, 0x40, JANKTAG_SELF},
	{7, "Layer1", 90, 106, 112, 0x2, JANKTAG_OTHER},
	{14, "Layer1", 150, 167, 176, 0x1, 0},
	{14, "Layer2", 150, 167, 176, 0x1, 0},
	{16, "Layer1", 80, 190, 206, 0x100, JANKTAG_SELF},
};

#define NPERFETTO (sizeof(perfetto_frames) / sizeof(perfetto_frames[0]))

static void
check_perfetto_frames(const struct run *run, int64_t shift, bool assumed)
{
	const struct frames_ftl_frame *f;
	struct correlate_frame cf;
	size_t i;

	assert_int_equal(run->n, NPERFETTO);
	for (i = 0; i < NPERFETTO; i++) {
		f = find(run, perfetto_frames[i].token,
			 perfetto_frames[i].layer);
		assert_non_null(f);
		assert_int_equal(f->pid, 1000);
		assert_true(f->start_ns == perfetto_frames[i].start + shift);
		assert_true(f->ready_ns == perfetto_frames[i].ready + shift);
		assert_true(f->present_ns ==
			    perfetto_frames[i].present + shift);
		assert_int_equal(f->jank, perfetto_frames[i].jank);
		assert_int_equal((f->flags & FTL_FRAME_CLOCK_ASSUMED) != 0,
				 assumed);
		/* Only token 16's prediction expired. */
		assert_int_equal((f->flags & FTL_FRAME_START_ESTIMATED) != 0,
				 perfetto_frames[i].token == 16);
		assert_int_equal(f->flags & FTL_FRAME_PRESENT_ESTIMATED, 0);
		frames_ftl_frame_to_correlate(f, &cf);
		assert_int_equal(cf.jank_tags, perfetto_frames[i].tag);
		assert_int_equal((cf.flags & CORRELATE_FRAME_CLOCK_ASSUMED) !=
					 0,
				 assumed);
		assert_int_equal((cf.flags & CORRELATE_FRAME_START_ESTIMATED) !=
					 0,
				 perfetto_frames[i].token == 16);
	}
}

/* ---- Tests ---- */

/* No snapshot: the trace's times with offset 0, flagged; nothing lost. */
static void
test_no_snapshot(void **state)
{
	static struct buf b;
	static struct run run;

	(void)state;
	if (slurp(EVENTS, &b) < 0) {
		skip();
		return;
	}
	run_buf(&b, NULL, &run);
	check_perfetto_frames(&run, 0, true);
	assert_true(run.st.packets == 58);
	assert_true(run.st.ts_unconvertible == 0);
	assert_true(run.st.clock_held == 58);
	assert_true(run.st.clock_assumed == 58);
	/* The dropped display frame of token 18 presents nothing. */
	assert_true(run.st.ignored_displays == 1);
}

/* A snapshot after all the data converts all of it. */
static void
test_snapshot_after_data(void **state)
{
	static struct buf b;
	static struct run run;

	(void)state;
	if (slurp(EVENTS, &b) < 0) {
		skip();
		return;
	}
	snapshot(&b, 0, 5000 * MS);
	run_buf(&b, NULL, &run);
	check_perfetto_frames(&run, 5000 * MS, false);
	assert_true(run.st.clock_held == 58);
	assert_true(run.st.clock_assumed == 0);
	assert_true(run.st.clock_snapshots == 1);
}

/*
 * The bound: past max_held the reader stops waiting, counts and flags
 * what it read without a snapshot, and a snapshot that comes later
 * converts only what follows it.
 */
static void
test_held_bound(void **state)
{
	static struct buf b;
	static struct run run;
	struct frames_ftl_config cfg;

	(void)state;
	if (slurp(EVENTS, &b) < 0) {
		skip();
		return;
	}
	frames_ftl_config_default(&cfg);
	cfg.max_held = 10;
	run_buf(&b, &cfg, &run);
	check_perfetto_frames(&run, 0, true);
	assert_true(run.st.clock_held == 10);
	assert_true(run.st.clock_assumed == 58);

	/* A frame after a late snapshot is converted by it, unflagged. */
	snapshot(&b, 1000, 1000 + 7 * MS);
	display_start(&b, 2000, 100, 500, 0x1);
	surface_start(&b, 1990, 101, 501, 500, 0x1, 1);
	frame_end(&b, 1995, 101);
	frame_end(&b, 2010, 100);
	run_buf(&b, &cfg, &run);
	assert_int_equal(run.n, NPERFETTO + 1);
	assert_true(run.f[NPERFETTO].present_ns == 2010 + 7 * MS);
	assert_int_equal(run.f[NPERFETTO].flags & FTL_FRAME_CLOCK_ASSUMED, 0);
	assert_true(run.st.clock_assumed == 58);
}

/* While events are held, the watermark does not move past them. */
static void
test_held_watermark(void **state)
{
	static struct buf b;
	struct frames_ftl *r = NULL;

	(void)state;
	b.n = 0;
	display_start(&b, 100, 1, 10, 0x1);
	frame_end(&b, 110, 1);
	display_start(&b, 200, 2, 11, 0x1);
	assert_int_equal(frames_ftl_new(NULL, &r), 0);
	assert_int_equal(frames_ftl_feed(r, b.b, b.n), 0);
	assert_true(frames_ftl_watermark(r) == FTL_TIME_NONE);
	b.n = 0;
	snapshot(&b, 0, 0);
	assert_int_equal(frames_ftl_feed(r, b.b, b.n), 0);
	/* Converted now: display 10 presented at 110, 11 has started. */
	assert_true(frames_ftl_watermark(r) == 110);
	frames_ftl_free(r);
}

/*
 * AOSP's fallbacks for a present: the composition's end with a jank of
 * UNKNOWN | DISPLAY_HAL, or start + 4 ms; a real present is neither.
 */
static void
test_present_estimated(void **state)
{
	static struct buf b;
	static struct run run;
	const struct frames_ftl_frame *f;

	(void)state;
	b.n = 0;
	snapshot(&b, 0, 0);
	/* Token 1: an ordinary present. */
	display_start(&b, 100 * MS, 1, 10, 0x1);
	frame_end(&b, 108 * MS, 1);
	surface_start(&b, 90 * MS, 2, 1, 10, 0x1, 1);
	frame_end(&b, 99 * MS, 2);
	/* Token 2: the invalid fence's fallback. */
	display_start(&b, 200 * MS, 3, 20, 0x100 | 0x8);
	frame_end(&b, 203 * MS, 3);
	surface_start(&b, 190 * MS, 4, 2, 20, 0x100, 1);
	frame_end(&b, 199 * MS, 4);
	/* Token 3: a present at or before the start, written as start + 4. */
	display_start(&b, 300 * MS, 5, 30, 0x1);
	frame_end(&b, 304 * MS, 5);
	surface_start(&b, 290 * MS, 6, 3, 30, 0x1, 1);
	frame_end(&b, 299 * MS, 6);
	/* Token 4: Display HAL alone is a real classification. */
	display_start(&b, 400 * MS, 7, 40, 0x8);
	frame_end(&b, 411 * MS, 7);
	/* Its surface frame comes before it this time, expired. */
	surface_start(&b, 397 * MS, 8, 4, 40, 0x40, FTL_PREDICTION_EXPIRED);
	frame_end(&b, 399 * MS, 8);
	run_buf(&b, NULL, &run);
	assert_int_equal(run.n, 4);
	f = find(&run, 1, "TX - com.foo/com.foo.Main#0");
	assert_non_null(f);
	assert_int_equal(f->flags & FTL_FRAME_PRESENT_ESTIMATED, 0);
	f = find(&run, 2, "TX - com.foo/com.foo.Main#0");
	assert_non_null(f);
	assert_int_not_equal(f->flags & FTL_FRAME_PRESENT_ESTIMATED, 0);
	f = find(&run, 3, "TX - com.foo/com.foo.Main#0");
	assert_non_null(f);
	assert_int_not_equal(f->flags & FTL_FRAME_PRESENT_ESTIMATED, 0);
	f = find(&run, 4, "TX - com.foo/com.foo.Main#0");
	assert_non_null(f);
	assert_int_equal(f->flags & FTL_FRAME_PRESENT_ESTIMATED, 0);
	assert_int_not_equal(f->flags & FTL_FRAME_START_ESTIMATED, 0);
	assert_int_equal(f->flags & FTL_FRAME_CLOCK_ASSUMED, 0);
}

/* ---- Through the correlator ---- */

struct results {
	struct correlate_result r[8];
	size_t n;
};

static int
collect(void *ctx, const struct correlate_result *res)
{
	struct results *out = ctx;

	assert_true(out->n < 8);
	out->r[out->n] = *res;
	out->r[out->n].resp = NULL;
	out->n++;
	return 0;
}

/*
 * Feeds the frames of run and taps of pid 1000 that each go up at
 * ups[i] and whose window ends at the next one's touch-down, the same
 * instant; the last runs to the cap.
 */
static void
correlate_run(const struct run *run, const int64_t *ups, size_t n,
	      struct results *out)
{
	struct correlate_frame cf;
	struct correlate_tap tap;
	struct correlate *c = NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	assert_int_equal(correlate_new(NULL, &c), 0);
	correlate_set_coverage(c, 0);
	for (i = 0; i < run->n; i++) {
		frames_ftl_frame_to_correlate(&run->f[i], &cf);
		assert_int_equal(correlate_feed_frame(c, &cf), 0);
	}
	for (i = 0; i < n; i++) {
		assert_int_equal(correlate_touch_down(c, ups[i]), 0);
		memset(&tap, 0, sizeof(tap));
		tap.id = i;
		tap.t_down_ns = ups[i];
		tap.t_up_ns = ups[i];
		tap.pid = 1000;
		assert_int_equal(correlate_feed_tap(c, &tap), 0);
	}
	assert_int_equal(
		correlate_finish(c, INT64_MAX, INT64_MAX, collect, out), 0);
	assert_int_equal(out->n, n);
	correlate_free(c);
}

/*
 * Perfetto's frames as the first response frame of taps placed before
 * each: every present its tests expect is some tap's first frame, with
 * the flags and tags that frame carries.
 */
static void
test_perfetto_first_frames(void **state)
{
	static const int64_t ups[] = {0, 22, 42, 81, 91};
	static const int64_t first[] = {47, 88, 206, 112, 176};
	static const uint32_t tags[] = {
		0, JANKTAG_SELF, JANKTAG_SELF, JANKTAG_OTHER, 0,
	};
	static struct buf b;
	static struct run run;
	static struct results res;
	size_t i;

	(void)state;
	if (slurp(EVENTS, &b) < 0) {
		skip();
		return;
	}
	run_buf(&b, NULL, &run);
	correlate_run(&run, ups, 5, &res);
	for (i = 0; i < 5; i++) {
		assert_int_equal(res.r[i].status, CORRELATE_OK);
		assert_true(res.r[i].first_present_ns == first[i]);
		assert_true(res.r[i].first_frame_ns == first[i] - ups[i]);
		assert_int_equal(res.r[i].jank_tags, tags[i]);
		assert_int_not_equal(
			res.r[i].flags & CORRELATE_FLAG_CLOCK_ASSUMED, 0);
		/* Token 16 (start 80, expired) answers the third tap only. */
		assert_int_equal(
			(res.r[i].flags & CORRELATE_FLAG_START_ESTIMATED) != 0,
			i == 2);
		assert_int_equal(
			res.r[i].flags & CORRELATE_FLAG_PRESENT_ESTIMATED, 0);
	}
	/* The last tap gets both frames of token 14. */
	assert_int_equal(res.r[4].frames, 2);
}

/*
 * The power-mode trace: its app frame is presented (110) before it
 * starts (120); the correlator refuses it, so no latency comes of it.
 */
static void
test_power_mode(void **state)
{
	static const int64_t ups[] = {0};
	static struct buf b;
	static struct run run;
	static struct results res;
	struct correlate_frame cf;

	(void)state;
	if (slurp(POWER, &b) < 0) {
		skip();
		return;
	}
	run_buf(&b, NULL, &run);
	assert_int_equal(run.n, 1);
	assert_true(run.f[0].start_ns == 120 && run.f[0].present_ns == 110);
	assert_true(run.f[0].jank == 0x8000);
	frames_ftl_frame_to_correlate(&run.f[0], &cf);
	assert_int_equal(cf.jank_tags, JANKTAG_NON_PERCEIVABLE);
	correlate_run(&run, ups, 1, &res);
	assert_int_equal(res.r[0].status, CORRELATE_NO_RESPONSE);
	assert_true(res.r[0].first_frame_ns == -1);
}

/* One frame of pid 1000 for the correlator, with its flags. */
static void
flagged_frame(struct correlate *c, int64_t start, int64_t present,
	      unsigned flags)
{
	struct correlate_frame cf;

	memset(&cf, 0, sizeof(cf));
	cf.pid = 1000;
	cf.start_ns = start;
	cf.present_ns = present;
	cf.jank = 0x1;
	cf.flags = flags;
	assert_int_equal(correlate_feed_frame(c, &cf), 0);
}

/*
 * Which response frames make a tap's flags: start_estimated from the
 * first only, present_estimated from the first or the burst's last,
 * clock_assumed from any.
 */
static void
test_tap_flags(void **state)
{
	static const struct {
		unsigned f0, f1, f2, f3;
		unsigned want;
	} cases[] = {
		{0, 0, 0, 0, 0},
		{CORRELATE_FRAME_START_ESTIMATED, 0, 0, 0,
		 CORRELATE_FLAG_START_ESTIMATED},
		{0, CORRELATE_FRAME_START_ESTIMATED, 0, 0, 0},
		{CORRELATE_FRAME_PRESENT_ESTIMATED, 0, 0, 0,
		 CORRELATE_FLAG_PRESENT_ESTIMATED},
		/* The middle of the burst makes neither latency. */
		{0, CORRELATE_FRAME_PRESENT_ESTIMATED, 0, 0, 0},
		{0, 0, CORRELATE_FRAME_PRESENT_ESTIMATED, 0,
		 CORRELATE_FLAG_PRESENT_ESTIMATED},
		/* After the burst, a frame is in no latency either. */
		{0, 0, 0, CORRELATE_FRAME_PRESENT_ESTIMATED, 0},
		{0, 0, 0, CORRELATE_FRAME_CLOCK_ASSUMED,
		 CORRELATE_FLAG_CLOCK_ASSUMED},
	};
	const unsigned mask = CORRELATE_FLAG_START_ESTIMATED |
			      CORRELATE_FLAG_PRESENT_ESTIMATED |
			      CORRELATE_FLAG_CLOCK_ASSUMED;
	static struct results res;
	struct correlate_tap tap;
	struct correlate *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = NULL;
		memset(&res, 0, sizeof(res));
		assert_int_equal(correlate_new(NULL, &c), 0);
		correlate_set_coverage(c, 0);
		/* A burst of three 16 ms apart, then one 1 s later. */
		flagged_frame(c, 1100 * MS, 1116 * MS, cases[i].f0);
		flagged_frame(c, 1116 * MS, 1132 * MS, cases[i].f1);
		flagged_frame(c, 1132 * MS, 1148 * MS, cases[i].f2);
		flagged_frame(c, 2100 * MS, 2116 * MS, cases[i].f3);
		memset(&tap, 0, sizeof(tap));
		tap.t_down_ns = 1000 * MS;
		tap.t_up_ns = 1050 * MS;
		tap.pid = 1000;
		assert_int_equal(correlate_feed_tap(c, &tap), 0);
		assert_int_equal(correlate_finish(c, INT64_MAX, INT64_MAX,
						  collect, &res),
				 0);
		assert_int_equal(res.n, 1);
		assert_int_equal(res.r[0].frames, 4);
		assert_true(res.r[0].settle_ns == 98 * MS);
		assert_int_equal(res.r[0].flags & mask, cases[i].want);
		correlate_free(c);
	}
}

/* Perfetto's CalculateSurfaceFrameJankTag, case by case. */
static void
test_jank_tags(void **state)
{
	(void)state;
	assert_int_equal(janktag_surface(0, 1), JANKTAG_UNSPECIFIED);
	assert_int_equal(janktag_surface(0x1, 1), 0);
	assert_int_equal(janktag_surface(0x40, 2), JANKTAG_SELF);
	assert_int_equal(janktag_surface(0x1000, 2), JANKTAG_SELF);
	assert_int_equal(janktag_surface(0x100 | 0x8, 5), JANKTAG_SELF);
	assert_int_equal(janktag_surface(0x2, 3), JANKTAG_OTHER);
	assert_int_equal(janktag_surface(0x80 | 0x8, 2), JANKTAG_OTHER);
	assert_int_equal(janktag_surface(0x80, 2), JANKTAG_BUFFER_STUFFING);
	assert_int_equal(janktag_surface(0x200, 2), JANKTAG_SF_STUFFING);
	assert_int_equal(janktag_surface(0x400, 4), JANKTAG_DROPPED);
	assert_int_equal(janktag_surface(0x400, 2), 0);
	assert_int_equal(janktag_surface(0x800, 1), JANKTAG_NON_PERCEIVABLE);
	assert_int_equal(janktag_surface(0x2000, 1), JANKTAG_NON_PERCEIVABLE);
	assert_int_equal(janktag_surface(0x8000, 1), JANKTAG_NON_PERCEIVABLE);
	/* A mix no rule names is "No Jank", as in Perfetto. */
	assert_int_equal(janktag_surface(0x80 | 0x200, 2), 0);
	assert_int_equal(janktag_surface(0x8000 | 0x80, 2), 0);
	assert_int_equal(JANKTAG_PERCEIVABLE & JANKTAG_BUFFER_STUFFING, 0);
	assert_int_equal(JANKTAG_PERCEIVABLE & JANKTAG_NON_PERCEIVABLE, 0);
}

/* The one rule for layer names. */
static void
test_layer_names(void **state)
{
	static const char *const foo[] = {
		"com.foo",
		"com.foo#3",
		"TX - com.foo/com.foo.Main#0",
		"TX - SurfaceView[com.foo/com.foo.MainActivity](BLAST)#13",
		"SurfaceView[com.foo/com.foo.Main](BLAST)#1",
		"SurfaceView - com.foo/com.foo.Main#0",
		"Splash Screen com.foo#5",
		"TX - Splash Screen com.foo#5",
		"com.foo(BLAST)#2",
		"com.foo (BLAST)",
	};
	static const char *const other[] = {
		"com.foobar/x#0",
		"com.foo.bar#1",
		"54dfae7 com.foo/.Main#3",
		"ActivityRecord{1 u0 com.foo/.A t3}#4",
		"#0",
		"",
		"TX - ",
		"NavigationBar0#0",
		"com.foo:remote/x",
	};
	char buf[64], tiny[4];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(foo) / sizeof(foo[0]); i++) {
		assert_int_equal(layername_package(foo[i], buf, sizeof(buf)),
				 0);
		assert_string_equal(buf, "com.foo");
		assert_int_equal(layername_belongs(foo[i], "com.foo", 7), 1);
	}
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		assert_int_equal(layername_belongs(other[i], "com.foo", 7), 0);
	assert_int_equal(layername_package(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(layername_package("com.foo#1", tiny, sizeof(tiny)),
			 -ERANGE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_snapshot),
		cmocka_unit_test(test_snapshot_after_data),
		cmocka_unit_test(test_held_bound),
		cmocka_unit_test(test_held_watermark),
		cmocka_unit_test(test_present_estimated),
		cmocka_unit_test(test_perfetto_first_frames),
		cmocka_unit_test(test_power_mode),
		cmocka_unit_test(test_tap_flags),
		cmocka_unit_test(test_jank_tags),
		cmocka_unit_test(test_layer_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
