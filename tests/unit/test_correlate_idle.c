/*
 * Tests of the idle screen (docs/DESIGN.md 1.8): correlate_expire() on
 * its own, then the live frame source's completion against the
 * simulator's fakes as real child processes, a perfetto whose screen
 * draws nothing (the last frames are never written) and a dumpsys whose
 * taps model presents a burst after each finger-up.
 *
 * The simulator is found as $BUILD/tapd-sim (build/tapd-sim by default);
 * without it the live tests skip.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
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

#include "correlate.h"
#include "fixture.h"
#include "frames_live.h"

#define MS_NS INT64_C(1000000)

#define TAPS_APP   "com.example.taps"
#define TAPS_LAYER "com.example.taps/com.example.taps.MainActivity#1400"

/* The fake dumpsys's taps model (tests/sim/fake_android.c). */
#define FAKE_PERIOD_NS	INT64_C(16666667)
#define FAKE_FIRST_NS	(4 * MS_NS)
#define FAKE_PRESENT_NS (12 * MS_NS)
#define FAKE_BURST	6

struct results {
	struct correlate_result r[8];
	size_t n;
};

static int
on_result(void *ctx, const struct correlate_result *res)
{
	struct results *rs = ctx;

	assert_true(rs->n < sizeof(rs->r) / sizeof(rs->r[0]));
	rs->r[rs->n] = *res;
	rs->r[rs->n].resp = NULL;
	rs->n++;
	return 0;
}

static struct correlate *
corr_new(int64_t cap_ms)
{
	struct correlate_config cfg;
	struct correlate *c = NULL;

	correlate_config_default(&cfg);
	if (cap_ms > 0)
		cfg.settle_cap_ns = cap_ms * MS_NS;
	assert_int_equal(correlate_new(&cfg, &c), 0);
	correlate_set_coverage(c, 0);
	return c;
}

static void
feed_tap(struct correlate *c, uint64_t id, int64_t t_up)
{
	struct correlate_tap t = {
		.id = id,
		.t_down_ns = t_up - 80 * MS_NS,
		.t_up_ns = t_up,
		.app = TAPS_APP,
	};

	assert_int_equal(correlate_feed_tap(c, &t), 0);
}

static void
feed_frame(struct correlate *c, int64_t start, int64_t present)
{
	struct correlate_frame f = {
		.app = TAPS_APP,
		.layer = TAPS_LAYER,
		.start_ns = start,
		.present_ns = present,
	};

	assert_int_equal(correlate_feed_frame(c, &f), 0);
}

/*
 * The burst's last frame at 1.1 s: its quiet deadline is 1.4 s; before
 * it nothing goes, at it the tap is finalized as advance would, flagged.
 */
static void
test_expire_at_quiet_deadline(void **state)
{
	struct correlate *c = corr_new(0);
	struct results rs = {0};

	(void)state;
	feed_tap(c, 1, 1000 * MS_NS);
	feed_frame(c, 1010 * MS_NS, 1030 * MS_NS);
	feed_frame(c, 1040 * MS_NS, 1100 * MS_NS);
	/* The frame watermark stalled before the last frame. */
	assert_int_equal(correlate_advance(c, 1050 * MS_NS, 3000 * MS_NS,
					   on_result, &rs),
			 0);
	assert_int_equal(rs.n, 0);
	assert_int_equal(correlate_quiet_deadline(c), 1400 * MS_NS);
	assert_int_equal(correlate_expire(c, 1399 * MS_NS,
					  CORRELATE_FLAG_END_FROM_LATENCY,
					  on_result, &rs),
			 0);
	assert_int_equal(rs.n, 0);
	assert_int_equal(correlate_expire(c, 1400 * MS_NS,
					  CORRELATE_FLAG_END_FROM_LATENCY,
					  on_result, &rs),
			 0);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.r[0].status, CORRELATE_OK);
	assert_int_equal(rs.r[0].flags, CORRELATE_FLAG_END_FROM_LATENCY);
	assert_int_equal(rs.r[0].first_frame_ns, 30 * MS_NS);
	assert_int_equal(rs.r[0].settle_ns, 100 * MS_NS);
	assert_int_equal(rs.r[0].frames, 2);
	assert_int_equal(correlate_pending(c), 0);
	assert_int_equal(correlate_quiet_deadline(c), INT64_MAX);
	correlate_free(c);
}

/* The input watermark bounds it too: a touch-down may still end the window. */
static void
test_expire_waits_for_input(void **state)
{
	struct correlate *c = corr_new(0);
	struct results rs = {0};

	(void)state;
	feed_tap(c, 1, 1000 * MS_NS);
	feed_frame(c, 1010 * MS_NS, 1030 * MS_NS);
	assert_int_equal(
		correlate_advance(c, INT64_MIN, 1200 * MS_NS, on_result, &rs),
		0);
	assert_int_equal(correlate_expire(c, 5000 * MS_NS,
					  CORRELATE_FLAG_END_UNCONFIRMED,
					  on_result, &rs),
			 0);
	assert_int_equal(rs.n, 0);
	/* A touch-down at 1.25 s ends the window inside the burst's quiet. */
	assert_int_equal(correlate_touch_down(c, 1250 * MS_NS), 0);
	assert_int_equal(
		correlate_advance(c, INT64_MIN, 1400 * MS_NS, on_result, &rs),
		0);
	assert_int_equal(correlate_quiet_deadline(c), 1330 * MS_NS);
	assert_int_equal(correlate_expire(c, 5000 * MS_NS,
					  CORRELATE_FLAG_END_UNCONFIRMED,
					  on_result, &rs),
			 0);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.r[0].flags, CORRELATE_FLAG_INTERRUPTED |
						CORRELATE_FLAG_END_UNCONFIRMED);
	assert_int_equal(rs.r[0].settle_ns, 30 * MS_NS);
	correlate_free(c);
}

/*
 * No response frame: the deadline is the window's end, and the result a
 * flagged no_response, never a silent one.  Taps go in t_up order: the
 * second waits behind the first.
 */
static void
test_expire_no_response_in_order(void **state)
{
	struct correlate *c = corr_new(1000);
	struct results rs = {0};

	(void)state;
	feed_tap(c, 1, 1000 * MS_NS);
	assert_int_equal(correlate_touch_down(c, 1420 * MS_NS), 0);
	feed_tap(c, 2, 1500 * MS_NS);
	assert_int_equal(
		correlate_advance(c, INT64_MIN, 9000 * MS_NS, on_result, &rs),
		0);
	/* The first window ends at the second tap's touch-down, 1.42 s. */
	assert_int_equal(correlate_quiet_deadline(c), 1420 * MS_NS);
	assert_int_equal(correlate_expire(c, 2000 * MS_NS,
					  CORRELATE_FLAG_END_UNCONFIRMED,
					  on_result, &rs),
			 0);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.r[0].id, 1);
	assert_int_equal(rs.r[0].status, CORRELATE_NO_RESPONSE);
	assert_int_equal(rs.r[0].flags, CORRELATE_FLAG_END_UNCONFIRMED);
	assert_int_equal(correlate_expire(c, 2500 * MS_NS,
					  CORRELATE_FLAG_END_UNCONFIRMED,
					  on_result, &rs),
			 0);
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.r[1].id, 2);
	assert_int_equal(rs.r[1].window_end_ns, 2500 * MS_NS);
	correlate_free(c);
}

/* ---- the live source against the fakes ---- */

/* Frames of one app as fed to the correlator, for the checks of a test. */
#define FED_MAX 1024

struct fed {
	int64_t start_ns, present_ns;
};

struct fx {
	const char *fed_app; /* whose frames go to fed[], or NULL */
	struct fed fed[FED_MAX];
	size_t nfed;
	char dir[PATH_MAX];
	char bin[PATH_MAX];
	char traces[PATH_MAX];
	char taps[PATH_MAX];
	char perfetto[PATH_MAX];
	char dumpsys[PATH_MAX];
	struct correlate *c;
	int64_t t_up;
};

static struct fx *open_fx;
static struct frames_live *open_fl;

static struct fx *
fx_new(void)
{
	const char *build = getenv("BUILD");
	char sim[PATH_MAX], real[PATH_MAX];
	struct fx *f;

	snprintf(sim, sizeof(sim), "%s/tapd-sim",
		 build && *build ? build : "build");
	if (!realpath(sim, real) || access(real, X_OK) != 0) {
		print_message("tapd-sim not found at '%s': build it first\n",
			      sim);
		skip();
	}
	unsetenv("TAPD_FAKE_DUMPSYS_MODE");
	unsetenv("TAPD_FAKE_PERFETTO_DRAW_MS");
	f = calloc(1, sizeof(*f));
	assert_non_null(f);
	assert_int_equal(fixture_tmpdir(f->dir, sizeof(f->dir), "idle"), 0);
	fixture_join(f->bin, PATH_MAX, f->dir, "bin");
	fixture_join(f->traces, PATH_MAX, f->dir, "traces");
	fixture_join(f->taps, PATH_MAX, f->dir, "taps");
	fixture_join(f->perfetto, PATH_MAX, f->bin, "perfetto");
	fixture_join(f->dumpsys, PATH_MAX, f->bin, "dumpsys");
	assert_int_equal(mkdir(f->bin, 0755), 0);
	assert_int_equal(mkdir(f->traces, 0755), 0);
	assert_int_equal(symlink(real, f->perfetto), 0);
	assert_int_equal(symlink(real, f->dumpsys), 0);
	setenv("TAPD_FAKE_PERFETTO_IDLE", "1", 1);
	setenv("TAPD_FAKE_TAPS", f->taps, 1);
	unsetenv("TAPD_FAKE_TAPS_LAYER");
	open_fx = f;
	return f;
}

static int
teardown(void **state)
{
	(void)state;
	frames_live_free(open_fl);
	open_fl = NULL;
	if (open_fx) {
		correlate_free(open_fx->c);
		fixture_rmtree(open_fx->dir);
		free(open_fx);
		open_fx = NULL;
	}
	unsetenv("TAPD_FAKE_PERFETTO_IDLE");
	unsetenv("TAPD_FAKE_TAPS");
	unsetenv("TAPD_FAKE_DUMPSYS_MODE");
	unsetenv("TAPD_FAKE_DRAW_UNTIL_NS");
	return 0;
}

static void
fx_config(struct fx *f, struct frames_live_config *cfg)
{
	frames_live_config_default(cfg);
	cfg->mode = FRAMES_LIVE_FTL;
	cfg->perfetto_bin = f->perfetto;
	cfg->dumpsys_bin = f->dumpsys;
	cfg->trace_dir = f->traces;
	cfg->write_period_ms = 100;
	cfg->flush_period_ms = 100;
	cfg->tail_ms = 50;
	cfg->ftl_lag_ms = 300;
	cfg->poll_ms = 100;
	cfg->child_timeout_ms = 1000;
	cfg->restart_min_ms = 50;
	cfg->restart_max_ms = 400;
}

/*
 * Whether cf is a frame of app: by its package, or when the source does
 * not know it (FrameTimeline), by its layer's name.
 */
static int
of_app(const struct correlate_frame *cf, const char *app)
{
	const char *layer = cf->layer ? cf->layer : "";
	size_t n = strlen(app);

	if (cf->app)
		return strcmp(cf->app, app) == 0;
	if (strncmp(layer, "TX - ", 5) == 0)
		layer += 5;
	return strncmp(layer, app, n) == 0 && layer[n] == '/';
}

static int
on_frame(void *ctx, const struct correlate_frame *cf)
{
	struct fx *f = ctx;

	if (f->fed_app && of_app(cf, f->fed_app)) {
		assert_true(f->nfed < FED_MAX);
		f->fed[f->nfed].start_ns = cf->start_ns;
		f->fed[f->nfed].present_ns = cf->present_ns;
		f->nfed++;
	}
	return correlate_feed_frame(f->c, cf);
}

/*
 * Runs the source and the correlator as the daemon's heartbeat does,
 * until a tap is finalized or ms pass; returns when it was finalized.
 */
static int64_t
run(struct fx *f, struct frames_live *fl, struct results *rs, int ms)
{
	static const char *const apps[] = {TAPS_APP};
	int64_t end = fixture_now_ns() + ms * MS_NS, now, lat, unc;
	struct pollfd pfd;

	for (;;) {
		now = fixture_now_ns();
		if (now >= end)
			return -1;
		pfd.fd = frames_live_fd(fl);
		pfd.events = POLLIN;
		pfd.revents = 0;
		poll(&pfd, 1, 20);
		assert_int_equal(frames_live_dispatch(fl, on_frame, f), 0);
		now = fixture_now_ns();
		assert_int_equal(
			correlate_advance(f->c, frames_live_watermark(fl),
					  now - 50 * MS_NS, on_result, rs),
			0);
		assert_int_equal(
			frames_live_set_wanted(fl, (int)correlate_pending(f->c),
					       apps, 1),
			0);
		frames_live_idle(fl, now, &lat, &unc);
		if (lat != INT64_MIN)
			assert_int_equal(
				correlate_expire(
					f->c, lat,
					CORRELATE_FLAG_END_FROM_LATENCY,
					on_result, rs),
				0);
		if (unc != INT64_MIN)
			assert_int_equal(
				correlate_expire(f->c, unc,
						 CORRELATE_FLAG_END_UNCONFIRMED,
						 on_result, rs),
				0);
		if (rs->n > 0)
			return fixture_now_ns();
	}
}

/* A tap now, written where the fake dumpsys's taps model reads it. */
static void
tap_now(struct fx *f, struct frames_live *fl)
{
	char line[32];

	f->t_up = fixture_now_ns();
	snprintf(line, sizeof(line), "%" PRId64 "\n", f->t_up);
	fixture_write_str(f->taps, line);
	correlate_set_coverage(f->c, frames_live_coverage_start(fl));
	feed_tap(f->c, 7, f->t_up);
}

/* Waits for the first session's coverage. */
static void
wait_covered(struct fx *f, struct frames_live *fl)
{
	int64_t end = fixture_now_ns() + 3000 * MS_NS;
	struct pollfd pfd;

	while (frames_live_coverage_start(fl) == INT64_MIN &&
	       fixture_now_ns() < end) {
		pfd.fd = frames_live_fd(fl);
		pfd.events = POLLIN;
		pfd.revents = 0;
		poll(&pfd, 1, 20);
		assert_int_equal(frames_live_dispatch(fl, on_frame, f), 0);
	}
	assert_true(frames_live_coverage_start(fl) != INT64_MIN);
}

/*
 * Nothing reaches the trace, yet the tap's burst is the one dumpsys
 * presented: finalized from it, to the nanosecond of the fake's model,
 * within the bound of frames_live.h after its quiet deadline.
 */
static void
test_live_completed_from_latency(void **state)
{
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct results rs = {0};
	struct fx *f = fx_new();
	int64_t done, qd, bound;

	(void)state;
	f->c = corr_new(0);
	fx_config(f, &cfg);
	assert_int_equal(frames_live_new(&cfg, &open_fl), 0);
	wait_covered(f, open_fl);
	tap_now(f, open_fl);
	done = run(f, open_fl, &rs, 5000);
	assert_true(done > 0);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.r[0].status, CORRELATE_OK);
	assert_true(rs.r[0].flags & CORRELATE_FLAG_END_FROM_LATENCY);
	assert_int_equal(rs.r[0].first_frame_ns,
			 FAKE_FIRST_NS + FAKE_PRESENT_NS);
	assert_int_equal(rs.r[0].settle_ns,
			 FAKE_FIRST_NS + FAKE_PRESENT_NS +
				 (FAKE_BURST - 1) * FAKE_PERIOD_NS);
	assert_int_equal(rs.r[0].frames, FAKE_BURST);
	/*
	 * The bound: the later of the quiet deadline and the stall, plus a
	 * poll period and a dumpsys run (generous for a loaded machine).
	 */
	qd = f->t_up + rs.r[0].settle_ns + 300 * MS_NS;
	bound = (int64_t)(cfg.write_period_ms + cfg.tail_ms + cfg.poll_ms) *
		MS_NS;
	print_message("finalized %.1f ms after the quiet deadline\n",
		      (double)(done - qd) / 1e6);
	assert_true(done >= qd);
	assert_true(done - qd <= bound + 1000 * MS_NS);
	frames_live_get_stats(open_fl, &st);
	assert_int_equal(st.idle_frames, FAKE_BURST);
}

/*
 * The fakes' frame of the mail app at vsync k (tests/sim): the fake
 * perfetto's app 0 starts it one period before vsync k plus 200 us and
 * presents it at vsync k + 250 us + (k % 5) * 10 us; the fake dumpsys's
 * mail layer (index 7) queues it 12 ms - 700 us before vsync k and
 * presents it at vsync k + 207 us.  Sets *k and returns 1 for the
 * former, 2 for the latter, 0 for neither.
 */
static int
mail_source(const struct fed *fr, int64_t *k)
{
	int64_t v;

	*k = fr->present_ns / FAKE_PERIOD_NS;
	v = *k * FAKE_PERIOD_NS;
	if (fr->start_ns == v - FAKE_PERIOD_NS + 200000 &&
	    fr->present_ns == v + 250000 + (*k % 5) * 10000)
		return 1;
	if (fr->start_ns == v - 12 * MS_NS + 700000 &&
	    fr->present_ns == v + 207000)
		return 2;
	return 0;
}

/*
 * The screen draws, then goes idle: the mail app animates every vsync
 * until a time both fakes share, and its last frame never reaches the
 * trace.  The rows of --latency that FrameTimeline already gave match
 * its frames by their presents (within 1 ms, the fakes' presents differ
 * by tens of us) and are dropped; the last one completes the burst,
 * with its row's present.
 */
static void
test_live_completes_the_last_frame(void **state)
{
	static const char *const apps[] = {"com.example.mail"};
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct results rs = {0};
	struct fx *f = fx_new();
	int64_t until, k, k_first, k_last, first_present = 0, now, lat, unc;
	int64_t done = -1;
	uint64_t rows = 0;
	int src, last_src = 0;
	char num[32];
	struct correlate_tap t;
	struct pollfd pfd;
	size_t i, j;

	(void)state;
	unsetenv("TAPD_FAKE_PERFETTO_IDLE");
	unsetenv("TAPD_FAKE_TAPS");
	until = fixture_now_ns() + 2500 * MS_NS;
	snprintf(num, sizeof(num), "%" PRId64, until);
	setenv("TAPD_FAKE_DRAW_UNTIL_NS", num, 1);
	f->c = corr_new(0);
	f->fed_app = apps[0];
	fx_config(f, &cfg);
	assert_int_equal(frames_live_new(&cfg, &open_fl), 0);
	wait_covered(f, open_fl);
	/*
	 * The app has been drawing for a while (busy_before is certain), and
	 * the tap comes a second before it stops however long the start
	 * took, so that a slow start does not leave the burst too short.
	 */
	now = fixture_now_ns() + 200 * MS_NS;
	if (now < until - 1000 * MS_NS)
		now = until - 1000 * MS_NS;
	while (fixture_now_ns() < now) {
		pfd.fd = frames_live_fd(open_fl);
		pfd.events = POLLIN;
		pfd.revents = 0;
		poll(&pfd, 1, 20);
		assert_int_equal(frames_live_dispatch(open_fl, on_frame, f), 0);
	}
	memset(&t, 0, sizeof(t));
	t.id = 9;
	t.t_up_ns = fixture_now_ns();
	t.t_down_ns = t.t_up_ns - 80 * MS_NS;
	t.app = apps[0];
	assert_true(t.t_up_ns < until - 500 * MS_NS);
	correlate_set_coverage(f->c, frames_live_coverage_start(open_fl));
	assert_int_equal(correlate_feed_tap(f->c, &t), 0);
	while (rs.n == 0 && fixture_now_ns() < until + 5000 * MS_NS) {
		pfd.fd = frames_live_fd(open_fl);
		pfd.events = POLLIN;
		pfd.revents = 0;
		poll(&pfd, 1, 20);
		assert_int_equal(frames_live_dispatch(open_fl, on_frame, f), 0);
		now = fixture_now_ns();
		assert_int_equal(
			correlate_advance(f->c, frames_live_watermark(open_fl),
					  now - 50 * MS_NS, on_result, &rs),
			0);
		assert_int_equal(
			frames_live_set_wanted(
				open_fl, (int)correlate_pending(f->c), apps, 1),
			0);
		frames_live_idle(open_fl, now, &lat, &unc);
		if (lat != INT64_MIN)
			assert_int_equal(
				correlate_expire(
					f->c, lat,
					CORRELATE_FLAG_END_FROM_LATENCY,
					on_result, &rs),
				0);
		if (rs.n > 0)
			done = fixture_now_ns();
	}
	unsetenv("TAPD_FAKE_DRAW_UNTIL_NS");
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.r[0].status, CORRELATE_OK);
	assert_int_equal(rs.r[0].flags,
			 CORRELATE_FLAG_BUSY_BEFORE |
				 CORRELATE_FLAG_END_FROM_LATENCY);
	/*
	 * Which fake gave a frame depends on when the fake perfetto's writes
	 * reached the file: one later than the stall time (write_period_ms +
	 * tail_ms) switches the poller on while the app still draws, and its
	 * rows then give frames that FrameTimeline gives later and that are
	 * dropped as duplicates.  So each frame fed is checked against the
	 * fake that gave it, to the nanosecond: every vsync's frame fed once,
	 * the last one (never written to the trace) from its row, the first
	 * response the first frame started at or after the tap, and every
	 * row fed counted in idle_frames.
	 */
	k_last = (until - 1) / FAKE_PERIOD_NS;
	k_first = INT64_MAX;
	for (i = 0; i < f->nfed; i++) {
		src = mail_source(&f->fed[i], &k);
		if (src == 0)
			print_message("frame started %" PRId64
				      ", presented %" PRId64
				      ": of neither fake\n",
				      f->fed[i].start_ns, f->fed[i].present_ns);
		assert_true(src != 0);
		assert_true(k <= k_last);
		for (j = 0; j < i; j++)
			assert_true(f->fed[j].present_ns / FAKE_PERIOD_NS != k);
		if (src == 2)
			rows++;
		if (k == k_last)
			last_src = src;
		if (f->fed[i].start_ns >= t.t_up_ns && k < k_first) {
			k_first = k;
			first_present = f->fed[i].present_ns;
		}
	}
	assert_int_equal(last_src, 2);
	assert_true(k_first <= k_last);
	assert_int_equal(rs.r[0].first_frame_ns, first_present - t.t_up_ns);
	assert_int_equal(rs.r[0].settle_ns,
			 k_last * FAKE_PERIOD_NS + 207000 - t.t_up_ns);
	assert_int_equal(rs.r[0].frames, k_last - k_first + 1);
	frames_live_get_stats(open_fl, &st);
	assert_int_equal(st.idle_frames, rows);
	print_message(
		"finalized %.1f ms after the quiet deadline, %" PRIu64
		" frames from rows\n",
		(double)(done - (t.t_up_ns + rs.r[0].settle_ns + 300 * MS_NS)) /
			1e6,
		rows);
}

/*
 * dumpsys refused: the tap is given up on 1 s after its quiet deadline
 * (the window's end: no response frame was ever seen), flagged
 * end_unconfirmed.
 */
static void
test_live_unconfirmed(void **state)
{
	struct frames_live_config cfg;
	struct results rs = {0};
	struct fx *f = fx_new();
	int64_t done, qd;

	(void)state;
	setenv("TAPD_FAKE_DUMPSYS_MODE", "error", 1);
	f->c = corr_new(1000);
	fx_config(f, &cfg);
	assert_int_equal(frames_live_new(&cfg, &open_fl), 0);
	wait_covered(f, open_fl);
	tap_now(f, open_fl);
	done = run(f, open_fl, &rs, 6000);
	assert_true(done > 0);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.r[0].status, CORRELATE_NO_RESPONSE);
	assert_int_equal(rs.r[0].flags, CORRELATE_FLAG_END_UNCONFIRMED);
	qd = f->t_up + 1000 * MS_NS;
	print_message("given up %.1f ms after the quiet deadline\n",
		      (double)(done - qd) / 1e6);
	assert_true(done >= qd + 1000 * MS_NS);
	assert_true(done - qd <= 2000 * MS_NS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expire_at_quiet_deadline),
		cmocka_unit_test(test_expire_waits_for_input),
		cmocka_unit_test(test_expire_no_response_in_order),
		cmocka_unit_test_teardown(test_live_completed_from_latency,
					  teardown),
		cmocka_unit_test_teardown(test_live_completes_the_last_frame,
					  teardown),
		cmocka_unit_test_teardown(test_live_unconfirmed, teardown),
	};

	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
