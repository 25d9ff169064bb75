/*
 * Tests of the correlator against the definitions in correlate.h.  Each
 * scenario derives its expected numbers from the times it feeds, and the
 * long stream at the end is checked against a brute-force reading of the
 * same definitions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "correlate.h"

#define MS  1000000LL
#define SEC 1000000000LL

/* A far watermark: every window has closed by then. */
#define FAR (100000 * SEC)

#define MAX_RESULTS 1024

struct sink {
	struct correlate_result r[MAX_RESULTS];
	/* A digest of each result's response frames, which die with it. */
	uint64_t resp_sum[MAX_RESULTS];
	size_t n;
};

/* An order-sensitive digest of a list of response frames. */
static uint64_t
resp_digest(uint64_t h, int64_t start, int64_t present, uint32_t jank,
	    int in_burst)
{
	const uint64_t v[4] = {(uint64_t)start, (uint64_t)present, jank,
			       (uint64_t)in_burst};
	size_t i;

	for (i = 0; i < 4; i++)
		h = (h ^ v[i]) * 1099511628211ULL;
	return h;
}

/*
 * Checks what the response frames of every result must satisfy, whatever
 * the scenario: one per counted frame, in present order, the burst a
 * prefix that starts at the first present and ends at the last one, the
 * jank bits their union.
 */
static uint64_t
check_resp(const struct correlate_result *res)
{
	uint64_t h = 14695981039346656037ULL;
	uint32_t jank = 0;
	size_t i, burst = 0;

	assert_int_equal(res->nresp, (size_t)res->frames);
	if (res->nresp == 0) {
		assert_null(res->resp);
		return h;
	}
	assert_non_null(res->resp);
	assert_int_equal(res->resp[0].present_ns, res->first_present_ns);
	for (i = 0; i < res->nresp; i++) {
		const struct correlate_resp_frame *f = &res->resp[i];

		assert_true(f->in_burst == 0 || f->in_burst == 1);
		if (i > 0)
			assert_true(f->present_ns >=
				    res->resp[i - 1].present_ns);
		if (f->in_burst) {
			assert_int_equal(burst, i);
			burst++;
		}
		jank |= f->jank;
		h = resp_digest(h, f->start_ns, f->present_ns, f->jank,
				f->in_burst);
	}
	assert_true(burst >= 1);
	assert_int_equal(res->resp[burst - 1].present_ns, res->last_present_ns);
	assert_int_equal(jank, res->jank);
	return h;
}

static int
collect(void *ctx, const struct correlate_result *res)
{
	struct sink *s = ctx;

	assert_true(s->n < MAX_RESULTS);
	s->resp_sum[s->n] = check_resp(res);
	s->r[s->n] = *res;
	s->r[s->n].resp = NULL;
	s->n++;
	return 0;
}

static struct correlate *
new_correlator(void)
{
	struct correlate_config cfg;
	struct correlate *c = NULL;

	correlate_config_default(&cfg);
	assert_int_equal(correlate_new(&cfg, &c), 0);
	assert_non_null(c);
	correlate_set_coverage(c, 0);
	return c;
}

static void
feed_frame(struct correlate *c, int32_t pid, const char *app, const char *layer,
	   int64_t start, int64_t present, uint32_t jank)
{
	struct correlate_frame f;

	memset(&f, 0, sizeof(f));
	f.pid = pid;
	f.app = app;
	f.layer = layer;
	f.start_ns = start;
	f.present_ns = present;
	f.jank = jank;
	assert_int_equal(correlate_feed_frame(c, &f), 0);
}

/* A frame of app "com.foo", pid 100, with a short render time. */
static void
foo_frame(struct correlate *c, int64_t start, int64_t present)
{
	feed_frame(c, 100, NULL, "com.foo/com.foo.Main#0", start, present, 0);
}

static void
feed_tap(struct correlate *c, uint64_t id, int32_t pid, const char *app,
	 int64_t t_up)
{
	struct correlate_tap t;

	memset(&t, 0, sizeof(t));
	t.id = id;
	t.t_down_ns = t_up - 80 * MS;
	t.t_up_ns = t_up;
	t.pid = pid;
	t.app = app;
	assert_int_equal(correlate_feed_tap(c, &t), 0);
}

static void
foo_tap(struct correlate *c, uint64_t id, int64_t t_up)
{
	feed_tap(c, id, 100, "com.foo", t_up);
}

static void
drain(struct correlate *c, struct sink *s)
{
	assert_int_equal(correlate_advance(c, FAR, FAR, collect, s), 0);
	assert_int_equal(correlate_pending(c), 0);
}

/* One tap on com.foo at T, with the given frames, finalized. */
#define T (100 * SEC)

static void
test_defaults_and_bad_config(void **state)
{
	struct correlate_config cfg, bad;
	struct correlate *c = NULL;

	(void)state;
	correlate_config_default(&cfg);
	assert_int_equal(cfg.settle_quiet_ns, 300 * MS);
	assert_int_equal(cfg.settle_cap_ns, 5 * SEC);
	assert_int_equal(cfg.busy_before_ns, 100 * MS);
	assert_int_equal(cfg.frame_latency_ns, 1 * SEC);

	bad = cfg;
	bad.settle_cap_ns = 0;
	assert_int_equal(correlate_new(&bad, &c), -EINVAL);
	assert_null(c);
	bad = cfg;
	bad.settle_quiet_ns = -1;
	assert_int_equal(correlate_new(&bad, &c), -EINVAL);
	bad = cfg;
	bad.busy_before_ns = -1;
	assert_int_equal(correlate_new(&bad, &c), -EINVAL);
	bad = cfg;
	bad.frame_latency_ns = -1;
	assert_int_equal(correlate_new(&bad, &c), -EINVAL);
	assert_null(c);
	correlate_free(NULL);
}

static void
test_idle_app(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};

	(void)state;
	/* The app drew long before the tap, then nothing. */
	foo_frame(c, T - 3 * SEC, T - 3 * SEC + 10 * MS);
	foo_tap(c, 7, T);
	drain(c, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].id, 7);
	assert_int_equal(s.r[0].status, CORRELATE_NO_RESPONSE);
	assert_int_equal(s.r[0].flags, 0);
	assert_int_equal(s.r[0].window_end_ns, T + 5 * SEC);
	assert_int_equal(s.r[0].first_frame_ns, -1);
	assert_int_equal(s.r[0].settle_ns, -1);
	assert_int_equal(s.r[0].first_present_ns, -1);
	assert_int_equal(s.r[0].last_present_ns, -1);
	assert_int_equal(s.r[0].frames, 0);
	correlate_free(c);
}

static void
test_single_frame(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t start = T + 3 * MS, present = T + 21 * MS;

	(void)state;
	foo_tap(c, 1, T);
	foo_frame(c, start, present);
	drain(c, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].flags, 0);
	assert_int_equal(s.r[0].first_frame_ns, present - T);
	assert_int_equal(s.r[0].settle_ns, present - T);
	assert_int_equal(s.r[0].first_present_ns, present);
	assert_int_equal(s.r[0].last_present_ns, present);
	assert_int_equal(s.r[0].frames, 1);
	correlate_free(c);
}

static void
test_burst_quiet_gap(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t p[5];
	int i;

	(void)state;
	/* Three frames 16 ms apart, a 400 ms pause, then two more. */
	p[0] = T + 16 * MS;
	p[1] = p[0] + 16 * MS;
	p[2] = p[1] + 16 * MS;
	p[3] = p[2] + 400 * MS;
	p[4] = p[3] + 16 * MS;
	foo_tap(c, 1, T);
	for (i = 0; i < 5; i++)
		foo_frame(c, p[i] - 12 * MS, p[i]);
	drain(c, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].first_frame_ns, p[0] - T);
	/* The burst ends before the pause; every frame still counts. */
	assert_int_equal(s.r[0].settle_ns, p[2] - T);
	assert_int_equal(s.r[0].last_present_ns, p[2]);
	assert_int_equal(s.r[0].frames, 5);
	assert_int_equal(s.r[0].flags, 0);
	correlate_free(c);
}

static void
run_gap(int64_t gap, int64_t *settle, int32_t *frames)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t p0 = T + 20 * MS;

	foo_tap(c, 1, T);
	foo_frame(c, p0 - 10 * MS, p0);
	foo_frame(c, p0 + gap - 10 * MS, p0 + gap);
	drain(c, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].first_frame_ns, p0 - T);
	*settle = s.r[0].settle_ns;
	*frames = s.r[0].frames;
	correlate_free(c);
}

static void
test_quiet_gap_boundary(void **state)
{
	int64_t settle, p0 = T + 20 * MS, quiet = 300 * MS;
	int32_t frames;

	(void)state;
	run_gap(quiet, &settle, &frames);
	assert_int_equal(settle, p0 + quiet - T);
	assert_int_equal(frames, 2);
	run_gap(quiet + 1, &settle, &frames);
	assert_int_equal(settle, p0 - T);
	assert_int_equal(frames, 2);
}

static unsigned
busy_flags_for(int64_t present_before_up)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t present = T - present_before_up;
	unsigned flags;

	foo_frame(c, present - 8 * MS, present);
	foo_tap(c, 1, T);
	foo_frame(c, T + 2 * MS, T + 30 * MS);
	drain(c, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].frames, 1);
	flags = s.r[0].flags;
	correlate_free(c);
	return flags;
}

static void
test_busy_before(void **state)
{
	(void)state;
	assert_int_equal(busy_flags_for(99 * MS), CORRELATE_FLAG_BUSY_BEFORE);
	assert_int_equal(busy_flags_for(100 * MS), CORRELATE_FLAG_BUSY_BEFORE);
	assert_int_equal(busy_flags_for(1), CORRELATE_FLAG_BUSY_BEFORE);
	assert_int_equal(busy_flags_for(101 * MS), 0);
	assert_int_equal(busy_flags_for(100 * MS + 1), 0);
}

static void
test_busy_before_other_app(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};

	(void)state;
	/* Another app drew just before the tap: not our app's business. */
	feed_frame(c, 200, NULL, "com.bar/com.bar.Main#0", T - 50 * MS,
		   T - 40 * MS, 0);
	foo_tap(c, 1, T);
	drain(c, &s);
	assert_int_equal(s.r[0].status, CORRELATE_NO_RESPONSE);
	assert_int_equal(s.r[0].flags, 0);
	correlate_free(c);
}

static void
test_in_flight_excluded(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t p_flight = T + 10 * MS, p_first = T + 26 * MS;

	(void)state;
	foo_tap(c, 1, T);
	/* Started 5 ms before the tap, presented after it. */
	foo_frame(c, T - 5 * MS, p_flight);
	/* Started exactly at t_up: inside the window. */
	foo_frame(c, T, p_first);
	/* Started exactly at window_end: outside. */
	foo_frame(c, T + 5 * SEC, T + 5 * SEC + 10 * MS);
	drain(c, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].first_frame_ns, p_first - T);
	assert_int_equal(s.r[0].settle_ns, p_first - T);
	assert_int_equal(s.r[0].frames, 1);
	/* The frame in flight was presented after t_up: not busy_before. */
	assert_int_equal(s.r[0].flags, 0);
	correlate_free(c);
}

static void
test_endless_animation_capped(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t start, cap_end = T + 5 * SEC, last_present = -1;
	int32_t n = 0;

	(void)state;
	foo_tap(c, 1, T);
	for (start = T + 1 * MS; start < T + 7 * SEC; start += 16 * MS) {
		foo_frame(c, start, start + 10 * MS);
		if (start < cap_end) {
			n++;
			last_present = start + 10 * MS;
		}
	}
	drain(c, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].window_end_ns, cap_end);
	assert_int_equal(s.r[0].flags, CORRELATE_FLAG_SETTLE_CAPPED);
	assert_int_equal(s.r[0].frames, n);
	assert_int_equal(s.r[0].first_frame_ns, 11 * MS);
	assert_int_equal(s.r[0].settle_ns, last_present - T);
	assert_int_equal(s.r[0].last_present_ns, last_present);
	correlate_free(c);
}

static void
test_interrupted(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t start, td = T + 1 * SEC, last_present = -1;
	int32_t n = 0;

	(void)state;
	foo_tap(c, 1, T);
	/* The tap's own touch-down and one exactly at t_up do not end it. */
	assert_int_equal(correlate_touch_down(c, T - 80 * MS), 0);
	assert_int_equal(correlate_touch_down(c, T), 0);
	assert_int_equal(correlate_touch_down(c, td), 0);
	for (start = T + 1 * MS; start < T + 2 * SEC; start += 16 * MS) {
		foo_frame(c, start, start + 10 * MS);
		if (start < td) {
			n++;
			last_present = start + 10 * MS;
		}
	}
	drain(c, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].window_end_ns, td);
	assert_int_equal(s.r[0].flags, CORRELATE_FLAG_INTERRUPTED);
	assert_int_equal(s.r[0].frames, n);
	assert_int_equal(s.r[0].settle_ns, last_present - T);
	correlate_free(c);
}

/* The flags of a one-frame reaction presented at p, window ended at td. */
static unsigned
interrupt_flags_for(int64_t p, int64_t td)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	unsigned flags;

	foo_tap(c, 1, T);
	foo_frame(c, T + 1 * MS, p);
	assert_int_equal(correlate_touch_down(c, td), 0);
	drain(c, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].window_end_ns, td);
	assert_int_equal(s.r[0].settle_ns, p - T);
	flags = s.r[0].flags;
	correlate_free(c);
	return flags;
}

static void
test_interrupted_boundary(void **state)
{
	int64_t td = T + 500 * MS, quiet = 300 * MS;

	(void)state;
	/* The burst went quiet well before the next touch. */
	assert_int_equal(interrupt_flags_for(T + 16 * MS, td), 0);
	/* window_end == present + quiet: it had gone quiet just in time. */
	assert_int_equal(interrupt_flags_for(td - quiet, td), 0);
	assert_int_equal(interrupt_flags_for(td - quiet + 1, td),
			 CORRELATE_FLAG_INTERRUPTED);
}

/*
 * The result of a tap at T with a reaction 20 ms later, the frame source
 * covering from cover (or absent when have_cover is 0).
 */
static void
coverage_result(int have_cover, int64_t cover, struct correlate_result *r)
{
	struct correlate_config cfg;
	struct correlate *c = NULL;
	struct sink s = {.n = 0};

	correlate_config_default(&cfg);
	assert_int_equal(correlate_new(&cfg, &c), 0);
	if (have_cover)
		correlate_set_coverage(c, cover);
	foo_frame(c, T - 50 * MS, T - 40 * MS);
	foo_tap(c, 1, T);
	foo_frame(c, T + 1 * MS, T + 20 * MS);
	drain(c, &s);
	assert_int_equal(s.n, 1);
	*r = s.r[0];
	correlate_free(c);
}

static void
test_frames_unavailable(void **state)
{
	struct correlate_result r;

	(void)state;
	/* No frame source at all. */
	coverage_result(0, 0, &r);
	assert_int_equal(r.status, CORRELATE_FRAMES_UNAVAILABLE);
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.first_frame_ns, -1);
	assert_int_equal(r.settle_ns, -1);
	assert_int_equal(r.first_present_ns, -1);
	assert_int_equal(r.last_present_ns, -1);
	assert_int_equal(r.frames, 0);
	/*
	 * Coverage starting after the microsecond of t_up (touch times are
	 * stamped to the microsecond).
	 */
	coverage_result(1, T + CORRELATE_INPUT_RESOLUTION_NS, &r);
	assert_int_equal(r.status, CORRELATE_FRAMES_UNAVAILABLE);
	assert_int_equal(r.frames, 0);
	/* Inside it, the tap may have come after the coverage began. */
	coverage_result(1, T + CORRELATE_INPUT_RESOLUTION_NS - 1, &r);
	assert_int_equal(r.status, CORRELATE_OK);
	assert_int_equal(r.first_frame_ns, 20 * MS);
	/* Coverage starting exactly at t_up. */
	coverage_result(1, T, &r);
	assert_int_equal(r.status, CORRELATE_OK);
	assert_int_equal(r.first_frame_ns, 20 * MS);
	assert_int_equal(r.flags, CORRELATE_FLAG_BUSY_BEFORE);
}

static void
test_truncated_at_finish(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t t1 = T, t2 = T + 20 * SEC, t3 = T + 23 * SEC, start;
	int64_t input_end = t3 + 2 * SEC, frames_end = t3 + 1 * SEC;

	(void)state;
	/* A tap whose window closed before the end: finalized normally. */
	foo_tap(c, 1, t1);
	foo_frame(c, t1 + 1 * MS, t1 + 20 * MS);
	/* An idle tap near the end: truncated, nothing measured. */
	foo_tap(c, 2, t2);
	assert_int_equal(correlate_touch_down(c, t3 - 80 * MS), 0);
	/* An animation still running at the end: no settle flag. */
	foo_tap(c, 3, t3);
	for (start = t3 + 5 * MS; start + 10 * MS <= frames_end;
	     start += 16 * MS)
		foo_frame(c, start, start + 10 * MS);
	/* The input watermark passed t2's window, the frames' did not. */
	assert_int_equal(correlate_advance(c, t2, input_end, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(correlate_pending(c), 2);
	assert_int_equal(
		correlate_finish(c, frames_end, input_end, collect, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(correlate_pending(c), 0);

	assert_int_equal(s.r[0].id, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].first_frame_ns, 20 * MS);

	/* t2's window ended at t3's touch-down, which frames_end covers. */
	assert_int_equal(s.r[1].id, 2);
	assert_int_equal(s.r[1].window_end_ns, t3 - 80 * MS);
	assert_int_equal(s.r[1].status, CORRELATE_NO_RESPONSE);

	assert_int_equal(s.r[2].id, 3);
	assert_int_equal(s.r[2].status, CORRELATE_TRUNCATED);
	assert_int_equal(s.r[2].flags, 0);
	assert_int_equal(s.r[2].first_frame_ns, 15 * MS);
	assert_true(s.r[2].settle_ns > 900 * MS);
	assert_true(s.r[2].settle_ns <= frames_end - t3);
	correlate_free(c);

	/* A tap with no frame at all before the end. */
	c = new_correlator();
	s.n = 0;
	foo_tap(c, 4, T);
	assert_int_equal(
		correlate_finish(c, T + 1 * SEC, T + 1 * SEC, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].status, CORRELATE_TRUNCATED);
	assert_int_equal(s.r[0].first_frame_ns, -1);
	assert_int_equal(s.r[0].settle_ns, -1);
	assert_int_equal(s.r[0].frames, 0);
	correlate_free(c);
}

static void
test_out_of_order_frames(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t p[6];
	int i;

	(void)state;
	for (i = 0; i < 6; i++)
		p[i] = T + (i + 1) * 16 * MS;
	p[5] = p[4] + 500 * MS; /* after a quiet gap */
	foo_tap(c, 1, T);
	foo_tap(c, 2, T + 20 * SEC);
	/* Frames fed last first, long after the taps. */
	for (i = 5; i >= 0; i--)
		foo_frame(c, p[i] - 8 * MS, p[i]);
	drain(c, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[0].id, 1);
	assert_int_equal(s.r[0].first_frame_ns, p[0] - T);
	assert_int_equal(s.r[0].settle_ns, p[4] - T);
	assert_int_equal(s.r[0].frames, 6);
	assert_int_equal(s.r[1].id, 2);
	assert_int_equal(s.r[1].status, CORRELATE_NO_RESPONSE);
	correlate_free(c);
}

static void
test_two_apps(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t start;
	int32_t bar_frames = 0;

	(void)state;
	foo_tap(c, 1, T);
	/* A tap on com.bar at the same moment, on another display say. */
	feed_tap(c, 2, 200, "com.bar", T);
	/* com.bar animates through the whole window. */
	for (start = T + 1 * MS; start < T + 6 * SEC; start += 16 * MS) {
		feed_frame(c, 200, NULL, "com.bar/com.bar.Main#0", start,
			   start + 8 * MS, 0);
		if (start < T + 5 * SEC)
			bar_frames++;
	}
	/*
	 * A frame of pid 200 whose layer names com.foo: both pids are
	 * known and differ, so it belongs to com.bar's process.
	 */
	feed_frame(c, 200, NULL, "com.foo/com.foo.Main#0", T + 2 * MS,
		   T + 18 * MS, 0);
	bar_frames++;
	/* com.foo's own reaction, one frame among com.bar's. */
	foo_frame(c, T + 40 * MS, T + 50 * MS);
	drain(c, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[0].id, 1);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].frames, 1);
	assert_int_equal(s.r[0].first_frame_ns, 50 * MS);
	assert_int_equal(s.r[0].flags, 0);
	assert_int_equal(s.r[1].id, 2);
	assert_int_equal(s.r[1].status, CORRELATE_OK);
	assert_int_equal(s.r[1].frames, bar_frames);
	assert_int_equal(s.r[1].first_frame_ns, 9 * MS);
	assert_int_equal(s.r[1].flags, CORRELATE_FLAG_SETTLE_CAPPED);
	correlate_free(c);
}

/* Frames of one tap (pid, app), one frame (pid, app, layer): matched? */
static int
matches(int32_t tap_pid, const char *tap_app, int32_t pid, const char *app,
	const char *layer)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int32_t frames;

	feed_tap(c, 1, tap_pid, tap_app, T);
	feed_frame(c, pid, app, layer, T + 1 * MS, T + 10 * MS, 0);
	drain(c, &s);
	assert_int_equal(s.n, 1);
	frames = s.r[0].frames;
	assert_int_equal(s.r[0].status,
			 frames ? CORRELATE_OK : CORRELATE_NO_RESPONSE);
	correlate_free(c);
	return frames == 1;
}

static void
test_match_rules(void **state)
{
	(void)state;
	/* By pid. */
	assert_true(matches(100, "com.foo", 100, NULL, "anything"));
	assert_false(matches(100, "com.foo", 101, "com.foo", "com.foo"));
	/* By app name, when a pid is unknown. */
	assert_true(matches(0, "com.foo", 0, "com.foo", NULL));
	assert_true(matches(100, "com.foo", 0, "com.foo", "unrelated"));
	assert_true(matches(0, "com.foo", 55, "com.foo", NULL));
	assert_false(matches(0, "com.foo", 0, "com.bar", "com.foo"));
	assert_false(matches(0, NULL, 0, "com.foo", NULL));
	/* By layer name. */
	assert_true(
		matches(0, "com.foo", 0, NULL, "TX - com.foo/com.foo.Main#0"));
	assert_true(matches(100, "com.foo", 0, NULL, "com.foo/com.foo.Main#0"));
	assert_true(matches(0, "com.foo", 77, NULL, "com.foo#12"));
	assert_true(matches(0, "com.foo", 0, NULL, "com.foo"));
	assert_true(matches(0, "com.foo", 0, NULL, "com.foo (BLAST)"));
	assert_true(matches(0, "com.foo", 0, NULL, "TX - com.foo"));
	assert_false(matches(0, "com.foo", 0, NULL, "com.foobar/x.Main#0"));
	assert_false(matches(0, "com.foo", 0, NULL, "com.foo.bar/x#0"));
	assert_false(matches(0, "com.foo", 0, NULL, "TX - com.fo"));
	assert_false(matches(0, "com.foo", 0, NULL, "TX -com.foo/x"));
	/*
	 * A SurfaceView's layer, and the splash screen of a launch, are the
	 * app's own (layername.h): games, video and maps draw there.
	 */
	assert_true(matches(0, "com.foo", 0, NULL,
			    "SurfaceView - com.foo/com.foo.Main#0"));
	assert_true(matches(0, "com.foo", 0, NULL,
			    "TX - SurfaceView[com.foo/com.foo.MainActivity]"
			    "(BLAST)#13"));
	assert_true(matches(0, "com.foo", 0, NULL, "Splash Screen com.foo#5"));
	assert_false(matches(0, "com.foo", 0, NULL,
			     "SurfaceView[com.foobar/x](BLAST)#2"));
	assert_false(matches(0, "com.foo", 0, NULL, "54dfae7 com.foo/x#3"));
	assert_false(matches(0, "com.foo", 0, NULL, "com.foo:remote/x"));
	assert_false(matches(0, NULL, 0, NULL, "com.foo/x"));
	assert_false(matches(0, "", 0, NULL, "/x"));
	assert_false(matches(0, "com.foo", 0, NULL, NULL));
}

/* How many taps one advance with these watermarks finalizes. */
static size_t
finalized_by(int64_t frames_wm, int64_t input_wm)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};

	foo_tap(c, 1, T);
	foo_frame(c, T + 1 * MS, T + 17 * MS);
	assert_int_equal(correlate_advance(c, frames_wm, input_wm, collect, &s),
			 0);
	assert_int_equal(correlate_pending(c), 1 - s.n);
	correlate_free(c);
	return s.n;
}

static void
test_watermarks(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t end = T + 5 * SEC, lat = 1 * SEC;

	(void)state;
	/* The frames are far enough, the input is one ns short. */
	assert_int_equal(finalized_by(FAR, end - 1), 0);
	/* The input is far enough, the frames are one ns short. */
	assert_int_equal(finalized_by(end + lat - 1, FAR), 0);
	assert_int_equal(finalized_by(end + lat, end), 1);

	/* Watermarks never go back: a later, lower input_wm still counts. */
	foo_tap(c, 1, T);
	foo_frame(c, T + 1 * MS, T + 17 * MS);
	assert_int_equal(correlate_advance(c, end + lat - 1, end, collect, &s),
			 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(correlate_pending(c), 1);
	assert_int_equal(correlate_advance(c, end + lat, 0, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(correlate_pending(c), 0);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].first_frame_ns, 17 * MS);
	correlate_free(c);
}

static void
test_touch_down_before_tap(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t t2 = T + 800 * MS;

	(void)state;
	/* The next gesture's touch-down is seen before the tap itself. */
	assert_int_equal(correlate_touch_down(c, T - 80 * MS), 0);
	assert_int_equal(correlate_touch_down(c, t2 - 70 * MS), 0);
	foo_tap(c, 1, T);
	foo_tap(c, 2, t2);
	foo_frame(c, T + 2 * MS, T + 18 * MS);
	foo_frame(c, t2 + 2 * MS, t2 + 18 * MS);
	/* Only the first window has closed for the input. */
	assert_int_equal(correlate_advance(c, FAR, t2, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].id, 1);
	assert_int_equal(s.r[0].window_end_ns, t2 - 70 * MS);
	assert_int_equal(s.r[0].frames, 1);
	assert_int_equal(s.r[0].flags, 0);
	drain(c, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[1].id, 2);
	assert_int_equal(s.r[1].window_end_ns, t2 + 5 * SEC);
	/* The first tap's frame came long before t2 - 100 ms. */
	assert_int_equal(s.r[1].flags, 0);
	correlate_free(c);
}

static void
test_results_in_order(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};
	int64_t t;
	uint64_t i;

	(void)state;
	for (i = 0; i < 20; i++) {
		t = T + (int64_t)i * 700 * MS;
		assert_int_equal(correlate_touch_down(c, t - 60 * MS), 0);
		foo_tap(c, 100 + i, t);
		foo_frame(c, t + 3 * MS, t + 19 * MS);
	}
	assert_int_equal(correlate_pending(c), 20);
	/* Each advance may only finalize taps whose window has closed. */
	for (t = T; t < T + 30 * SEC; t += 333 * MS)
		assert_int_equal(correlate_advance(c, t, t, collect, &s), 0);
	drain(c, &s);
	assert_int_equal(s.n, 20);
	for (i = 0; i < 20; i++) {
		assert_int_equal(s.r[i].id, 100 + i);
		assert_int_equal(s.r[i].status, CORRELATE_OK);
		assert_int_equal(s.r[i].first_frame_ns, 19 * MS);
		if (i < 19)
			assert_int_equal(s.r[i].window_end_ns,
					 T + (int64_t)(i + 1) * 700 * MS -
						 60 * MS);
	}
	correlate_free(c);
}

static void
test_jank_union(void **state)
{
	struct correlate *c = new_correlator();
	struct sink s = {.n = 0};

	(void)state;
	foo_tap(c, 1, T);
	/* In flight at t_up: its jank is not the reaction's. */
	feed_frame(c, 100, NULL, "com.foo", T - 4 * MS, T + 8 * MS, 0x10);
	feed_frame(c, 100, NULL, "com.foo", T + 1 * MS, T + 17 * MS, 0x1);
	feed_frame(c, 100, NULL, "com.foo", T + 17 * MS, T + 33 * MS, 0);
	feed_frame(c, 100, NULL, "com.foo", T + 33 * MS, T + 49 * MS, 0x4);
	/* After the quiet gap: not in the burst, still a response frame. */
	feed_frame(c, 100, NULL, "com.foo", T + 1 * SEC, T + 1 * SEC + 9 * MS,
		   0x2);
	/* Another app's jank. */
	feed_frame(c, 200, NULL, "com.bar", T + 1 * MS, T + 17 * MS, 0x20);
	drain(c, &s);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].frames, 4);
	assert_int_equal(s.r[0].jank, 0x1 | 0x4 | 0x2);
	assert_int_equal(s.r[0].settle_ns, 49 * MS);
	correlate_free(c);
}

static void
test_invalid_and_stale_frames(void **state)
{
	struct correlate *c = new_correlator();
	struct correlate_stats st;
	struct sink s = {.n = 0};

	(void)state;
	foo_tap(c, 1, T);
	/* Presented before it started: nonsense, dropped. */
	foo_frame(c, T + 30 * MS, T + 20 * MS);
	drain(c, &s);
	assert_int_equal(s.r[0].status, CORRELATE_NO_RESPONSE);
	/* Long past every tap still to come: not kept. */
	foo_frame(c, T + 1 * MS, T + 20 * MS);
	assert_int_equal(correlate_frames_held(c), 0);
	correlate_get_stats(c, &st);
	assert_int_equal(st.frames, 2);
	assert_int_equal(st.frames_invalid, 1);
	assert_int_equal(st.frames_stale, 1);
	assert_int_equal(st.taps, 1);
	correlate_free(c);
}

static void
test_max_frames(void **state)
{
	struct correlate *c = new_correlator();
	struct correlate_stats st;
	struct sink s = {.n = 0};
	int64_t i;

	(void)state;
	correlate_set_max_frames(c, 100);
	for (i = 0; i < 1000; i++)
		foo_frame(c, i * 16 * MS, i * 16 * MS + 8 * MS);
	assert_true(correlate_frames_held(c) <= 100);
	correlate_get_stats(c, &st);
	assert_int_equal(st.frames_evicted, 1000 - correlate_frames_held(c));
	/* The newest frames stay: a tap among them still sees them. */
	foo_tap(c, 1, 990 * 16 * MS - 1);
	drain(c, &s);
	assert_int_equal(s.r[0].status, CORRELATE_OK);
	assert_int_equal(s.r[0].frames, 10);
	assert_int_equal(s.r[0].first_frame_ns, 8 * MS + 1);
	correlate_free(c);
}

/* The frames of one result, copied out during the callback. */
struct resp_copy {
	struct correlate_resp_frame f[16];
	size_t n;
	int calls;
};

static int
copy_resp(void *ctx, const struct correlate_result *res)
{
	struct resp_copy *rc = ctx;

	check_resp(res);
	assert_true(res->nresp <= 16);
	if (res->nresp)
		memcpy(rc->f, res->resp, res->nresp * sizeof(*res->resp));
	rc->n = res->nresp;
	rc->calls++;
	return 0;
}

static void
test_response_frames(void **state)
{
	struct correlate *c = new_correlator();
	struct resp_copy rc;
	/* start, present, jank, in_burst (expected), in present order. */
	static const int64_t want[][4] = {
		{T, T + 20 * MS, 0, 1},
		{T + 10 * MS, T + 36 * MS, 64, 1},
		{T + 12 * MS, T + 36 * MS, 0, 1},
		{T + 40 * MS, T + 52 * MS, 0, 1},
		{T + 340 * MS, T + 400 * MS, 128, 0},
		{T + 360 * MS, T + 410 * MS, 0, 0},
	};
	size_t i;

	(void)state;
	memset(&rc, 0, sizeof(rc));
	foo_tap(c, 1, T);
	/* Busy before, in flight at t_up, and another app: none counts. */
	foo_frame(c, T - 50 * MS, T - 20 * MS);
	foo_frame(c, T - 1, T + 5 * MS);
	feed_frame(c, 200, NULL, "com.bar/com.bar.Main#0", T + 1 * MS,
		   T + 9 * MS, 1);
	/* Fed out of order; the tie at T+36 ms goes by start. */
	for (i = 6; i-- > 0;)
		feed_frame(c, 100, NULL, "com.foo/com.foo.Main#0", want[i][0],
			   want[i][1], (uint32_t)want[i][2]);
	assert_int_equal(correlate_advance(c, FAR, FAR, copy_resp, &rc), 0);
	assert_int_equal(rc.calls, 1);
	assert_int_equal(rc.n, 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(rc.f[i].start_ns, want[i][0]);
		assert_int_equal(rc.f[i].present_ns, want[i][1]);
		assert_int_equal(rc.f[i].jank, want[i][2]);
		assert_int_equal(rc.f[i].in_burst, want[i][3]);
	}

	/* A tap without response frames has none to give. */
	memset(&rc, 0, sizeof(rc));
	foo_tap(c, 2, T + 20 * SEC);
	assert_int_equal(correlate_advance(c, FAR, FAR, copy_resp, &rc), 0);
	assert_int_equal(rc.calls, 1);
	assert_int_equal(rc.n, 0);
	correlate_free(c);
}

/*
 * The long stream: gestures on two apps while three apps draw, frames
 * delivered up to MAX_DELAY late and out of order, and the correlator
 * advanced every 100 ms as a live run would.  Its results must equal those
 * of a run that is only finished at the end (nothing ever pruned) and
 * those of a brute-force reading of the definitions.
 */
#define STREAM_END  (600 * SEC)
#define FRAMES_END  (STREAM_END - 3 * SEC)
#define COVERAGE_AT (20 * SEC)
#define MAX_DELAY   (1500 * MS)
#define STEP	    (100 * MS)

struct sim_frame {
	int32_t pid;
	const char *app;
	const char *layer;
	int64_t start, present, arrive;
	uint32_t jank;
};

struct sim_tap {
	uint64_t id;
	int64_t t_down, t_up;
	int32_t pid;
	const char *app;
};

struct sim {
	struct sim_frame *frames;
	size_t nframes, frames_cap;
	struct sim_tap taps[1024];
	size_t ntaps;
	int64_t tds[2048];
	size_t ntds;
	uint64_t rng;
};

static uint32_t
rnd(struct sim *s, uint32_t n)
{
	s->rng = s->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(s->rng >> 33) % n;
}

static void
sim_add_frame(struct sim *s, int32_t pid, const char *app, const char *layer,
	      int64_t start, int64_t present)
{
	struct sim_frame *f;

	if (s->nframes == s->frames_cap) {
		s->frames_cap = s->frames_cap ? s->frames_cap * 2 : 4096;
		s->frames =
			realloc(s->frames, s->frames_cap * sizeof(*s->frames));
		assert_non_null(s->frames);
	}
	f = &s->frames[s->nframes++];
	f->pid = pid;
	f->app = app;
	f->layer = layer;
	f->start = start;
	f->present = present;
	f->jank = rnd(s, 40) == 0 ? 1u << rnd(s, 8) : 0;
	f->arrive = rnd(s, 3) == 0 ? present : present + rnd(s, 1500) * MS;
}

/* One app's drawing: bursts at various rates, with pauses around 300 ms. */
static void
sim_app_frames(struct sim *s, int32_t pid, const char *app, const char *layer)
{
	static const int64_t iv[] = {8333333,  16666667, 16666667,
				     250 * MS, 300 * MS, 301 * MS};
	static const int64_t dur[] = {50 * MS, 300 * MS, 1 * SEC, 2 * SEC,
				      8 * SEC};
	static const int64_t idle[] = {100 * MS, 299 * MS, 300 * MS,
				       2 * SEC,	 5 * SEC,  12 * SEC};
	int64_t t = rnd(s, 1000) * MS, end, step, start;

	while (t < FRAMES_END) {
		step = iv[rnd(s, 6)];
		end = t + dur[rnd(s, 5)];
		for (; t < end && t < FRAMES_END; t += step) {
			start = t + rnd(s, 2000) * 1000;
			sim_add_frame(s, pid, app, layer, start,
				      start + (4 + rnd(s, 37)) * MS);
		}
		t += idle[rnd(s, 6)];
	}
}

static int
arrive_cmp(const void *a, const void *b)
{
	const struct sim_frame *x = a, *y = b;

	if (x->arrive != y->arrive)
		return x->arrive < y->arrive ? -1 : 1;
	if (x->present != y->present)
		return x->present < y->present ? -1 : 1;
	return 0;
}

static void
sim_build(struct sim *s)
{
	static const int64_t gaps[] = {20 * MS, 150 * MS, 400 * MS,
				       1 * SEC, 3 * SEC,  7 * SEC};
	int64_t t = 2 * SEC, down, up;
	uint32_t who;

	memset(s, 0, sizeof(*s));
	s->rng = 0x5eed;
	/* com.a: FrameTimeline-like, pid and layer. */
	sim_app_frames(s, 100, NULL, "com.a/com.a.Main#0");
	/* com.b: --latency-like, layer only. */
	sim_app_frames(s, 0, NULL, "TX - com.b/com.b.Main#3");
	/* com.c: never tapped, only noise. */
	sim_app_frames(s, 300, NULL, "com.c/com.c.Main#0");
	/* com.a also seen with its package named. */
	sim_app_frames(s, 0, "com.a", NULL);
	qsort(s->frames, s->nframes, sizeof(*s->frames), arrive_cmp);

	while (t < STREAM_END - 1 * SEC) {
		down = t;
		up = down + (30 + rnd(s, 320)) * MS;
		assert_true(s->ntds < 2048);
		s->tds[s->ntds++] = down;
		/* One gesture in six is a swipe: a touch-down, no tap. */
		if (rnd(s, 6) != 0) {
			struct sim_tap *tp = &s->taps[s->ntaps];

			assert_true(s->ntaps < 1024);
			tp->id = s->ntaps + 1;
			tp->t_down = down;
			tp->t_up = up;
			who = rnd(s, 3);
			tp->pid = who == 0 ? 100 : who == 1 ? 200 : 0;
			tp->app = who == 1 ? "com.b" : "com.a";
			s->ntaps++;
		}
		t = up + gaps[rnd(s, 6)] + rnd(s, 100) * MS;
	}
}

static int
ref_match(const struct sim_frame *f, const struct sim_tap *tp)
{
	const char *l;
	size_t n;

	if (f->pid > 0 && tp->pid > 0)
		return f->pid == tp->pid;
	if (f->app != NULL)
		return tp->app != NULL && strcmp(f->app, tp->app) == 0;
	if (f->layer == NULL || tp->app == NULL)
		return 0;
	l = f->layer;
	if (memcmp(l, "TX - ", 5) == 0)
		l += 5;
	n = strlen(tp->app);
	if (strlen(l) < n || memcmp(l, tp->app, n) != 0)
		return 0;
	return l[n] == 0 || l[n] == '/' || l[n] == '#' || l[n] == ' ';
}

struct ref_frame {
	int64_t present, start;
	size_t order;
	uint32_t jank;
};

static int
ref_cmp(const void *a, const void *b)
{
	const struct ref_frame *x = a, *y = b;

	if (x->present != y->present)
		return x->present < y->present ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void
ref_eval(const struct sim *s, const struct sim_tap *tp,
	 struct correlate_result *r, uint64_t *resp_sum)
{
	static struct ref_frame rf[100000];
	int64_t we = tp->t_up + 5 * SEC;
	int by_touch = 0;
	size_t i, n = 0, k;
	int truncated;

	*resp_sum = 14695981039346656037ULL;
	for (i = 0; i < s->ntds; i++) {
		if (s->tds[i] > tp->t_up && s->tds[i] < we) {
			we = s->tds[i];
			by_touch = 1;
		}
	}
	memset(r, 0, sizeof(*r));
	r->id = tp->id;
	r->window_end_ns = we;
	r->first_frame_ns = r->settle_ns = -1;
	r->first_present_ns = r->last_present_ns = -1;
	if (tp->t_up < COVERAGE_AT) {
		r->status = CORRELATE_FRAMES_UNAVAILABLE;
		return;
	}
	for (i = 0; i < s->nframes; i++) {
		const struct sim_frame *f = &s->frames[i];

		if (!ref_match(f, tp))
			continue;
		if (f->present >= tp->t_up - 100 * MS && f->present < tp->t_up)
			r->flags |= CORRELATE_FLAG_BUSY_BEFORE;
		if (f->start >= tp->t_up && f->start < we) {
			assert_true(n < 100000);
			rf[n].present = f->present;
			rf[n].start = f->start;
			rf[n].order = i;
			rf[n].jank = f->jank;
			n++;
		}
	}
	qsort(rf, n, sizeof(*rf), ref_cmp);
	r->frames = (int32_t)n;
	for (i = 0; i < n; i++)
		r->jank |= rf[i].jank;
	truncated = we > STREAM_END || we > FRAMES_END;
	if (n == 0) {
		r->status =
			truncated ? CORRELATE_TRUNCATED : CORRELATE_NO_RESPONSE;
		return;
	}
	for (k = 0; k + 1 < n && rf[k + 1].present - rf[k].present <= 300 * MS;
	     k++)
		;
	for (i = 0; i < n; i++)
		*resp_sum = resp_digest(*resp_sum, rf[i].start, rf[i].present,
					rf[i].jank, i <= k);
	r->first_present_ns = rf[0].present;
	r->last_present_ns = rf[k].present;
	r->first_frame_ns = rf[0].present - tp->t_up;
	r->settle_ns = rf[k].present - tp->t_up;
	r->status = truncated ? CORRELATE_TRUNCATED : CORRELATE_OK;
	if (!truncated && k == n - 1 && we < rf[k].present + 300 * MS)
		r->flags |= by_touch ? CORRELATE_FLAG_INTERRUPTED
				     : CORRELATE_FLAG_SETTLE_CAPPED;
}

static void
feed_sim_frame(struct correlate *c, const struct sim_frame *f)
{
	feed_frame(c, f->pid, f->app, f->layer, f->start, f->present, f->jank);
}

static void
feed_sim_tap(struct correlate *c, const struct sim_tap *tp)
{
	struct correlate_tap t;

	memset(&t, 0, sizeof(t));
	t.id = tp->id;
	t.t_down_ns = tp->t_down;
	t.t_up_ns = tp->t_up;
	t.pid = tp->pid;
	t.app = tp->app;
	assert_int_equal(correlate_feed_tap(c, &t), 0);
}

static void
assert_same(const struct correlate_result *a, const struct correlate_result *b)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->window_end_ns, b->window_end_ns);
	assert_int_equal(a->first_frame_ns, b->first_frame_ns);
	assert_int_equal(a->settle_ns, b->settle_ns);
	assert_int_equal(a->frames, b->frames);
	assert_int_equal(a->jank, b->jank);
	assert_int_equal(a->first_present_ns, b->first_present_ns);
	assert_int_equal(a->last_present_ns, b->last_present_ns);
}

static int64_t
min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static void
test_pruning_keeps_results(void **state)
{
	static struct sim s;
	static struct sink live, batch;
	struct correlate *a = new_correlator(), *b = new_correlator();
	struct correlate_result ref;
	uint64_t ref_sum;
	size_t fi = 0, ti = 0, di = 0, i;
	unsigned max_held = 0, seen[8] = {0};
	int64_t now;

	(void)state;
	sim_build(&s);
	live.n = batch.n = 0;
	correlate_set_coverage(a, COVERAGE_AT);
	correlate_set_coverage(b, COVERAGE_AT);

	/* Live: input fed as it happens, frames as they arrive. */
	for (now = 0; now <= STREAM_END + MAX_DELAY; now += STEP) {
		while (di < s.ntds || ti < s.ntaps) {
			int64_t td = di < s.ntds ? s.tds[di] : INT64_MAX;
			int64_t tu = ti < s.ntaps ? s.taps[ti].t_up : INT64_MAX;

			if (min64(td, tu) > now)
				break;
			if (td <= tu)
				assert_int_equal(
					correlate_touch_down(a, s.tds[di++]),
					0);
			else
				feed_sim_tap(a, &s.taps[ti++]);
		}
		for (; fi < s.nframes && s.frames[fi].arrive <= now; fi++)
			feed_sim_frame(a, &s.frames[fi]);
		assert_int_equal(
			correlate_advance(a, min64(now - MAX_DELAY, FRAMES_END),
					  min64(now, STREAM_END), collect,
					  &live),
			0);
		if (correlate_frames_held(a) > max_held)
			max_held = correlate_frames_held(a);
	}
	assert_int_equal(fi, s.nframes);
	assert_int_equal(
		correlate_finish(a, FRAMES_END, STREAM_END, collect, &live), 0);

	/* Batch: everything first, then the end, with nothing pruned. */
	for (i = 0; i < s.nframes; i++)
		feed_sim_frame(b, &s.frames[i]);
	for (i = 0; i < s.ntaps; i++)
		feed_sim_tap(b, &s.taps[i]);
	for (i = 0; i < s.ntds; i++)
		assert_int_equal(correlate_touch_down(b, s.tds[i]), 0);
	assert_int_equal(correlate_frames_held(b), s.nframes);
	assert_int_equal(
		correlate_finish(b, FRAMES_END, STREAM_END, collect, &batch),
		0);

	assert_int_equal(live.n, s.ntaps);
	assert_int_equal(batch.n, s.ntaps);
	for (i = 0; i < s.ntaps; i++) {
		ref_eval(&s, &s.taps[i], &ref, &ref_sum);
		assert_same(&live.r[i], &ref);
		assert_same(&batch.r[i], &ref);
		/* The very frames, in the same order, with the same burst. */
		assert_true(live.resp_sum[i] == ref_sum);
		assert_true(batch.resp_sum[i] == ref_sum);
		seen[ref.status]++;
		if (ref.flags & CORRELATE_FLAG_BUSY_BEFORE)
			seen[4]++;
		if (ref.flags & CORRELATE_FLAG_SETTLE_CAPPED)
			seen[5]++;
		if (ref.flags & CORRELATE_FLAG_INTERRUPTED)
			seen[6]++;
		if (ref.status == CORRELATE_OK && ref.jank)
			seen[7]++;
	}
	/* The stream exercises every outcome, or it proves little. */
	for (i = 0; i < 8; i++)
		assert_true(seen[i] > 0);
	/* Pruning bounded what the live run held. */
	assert_true(max_held < s.nframes / 20);
	assert_int_equal(correlate_frames_held(a), 0);
	correlate_free(a);
	correlate_free(b);
	free(s.frames);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_bad_config),
		cmocka_unit_test(test_idle_app),
		cmocka_unit_test(test_single_frame),
		cmocka_unit_test(test_burst_quiet_gap),
		cmocka_unit_test(test_quiet_gap_boundary),
		cmocka_unit_test(test_busy_before),
		cmocka_unit_test(test_busy_before_other_app),
		cmocka_unit_test(test_in_flight_excluded),
		cmocka_unit_test(test_endless_animation_capped),
		cmocka_unit_test(test_interrupted),
		cmocka_unit_test(test_interrupted_boundary),
		cmocka_unit_test(test_frames_unavailable),
		cmocka_unit_test(test_truncated_at_finish),
		cmocka_unit_test(test_out_of_order_frames),
		cmocka_unit_test(test_two_apps),
		cmocka_unit_test(test_match_rules),
		cmocka_unit_test(test_watermarks),
		cmocka_unit_test(test_touch_down_before_tap),
		cmocka_unit_test(test_results_in_order),
		cmocka_unit_test(test_jank_union),
		cmocka_unit_test(test_invalid_and_stale_frames),
		cmocka_unit_test(test_max_frames),
		cmocka_unit_test(test_pruning_keeps_results),
		cmocka_unit_test(test_response_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
