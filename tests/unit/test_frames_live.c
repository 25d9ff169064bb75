/*
 * Tests of the live frame source against fakes of perfetto, dumpsys and
 * getprop: real child processes of the simulator (tapd-sim), run through
 * links named like the real programs.  The fakes write the real formats
 * and log what they emitted, so the frames the source delivers are
 * compared with what was really there: every frame exactly once.
 *
 * The simulator is found as $BUILD/tapd-sim (build/tapd-sim by default);
 * without it the tests skip.  Periods are shrunk so the whole file runs
 * in a few seconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "correlate.h"
#include "fixture.h"
#include "frames_ftl.h"
#include "frames_live.h"
#include "record.h"
#include "status.h"
#include "tracecfg.h"

#define MS_NS INT64_C(1000000)

#define MAIL	   "com.example.mail"
#define MAPS	   "com.example.maps"
#define MAIL_LAYER "com.example.mail/com.example.mail.MainActivity#1234"
#define MAPS_LAYER "com.example.maps/com.example.maps.MapActivity#1312"
#define MAPS_SV_BLAST                                                          \
	"SurfaceView[com.example.maps/com.example.maps.MapActivity](BLAST)"    \
	"#1321"

/* Frames received, as lines in the fake's log format. */
struct coll {
	char **lines;
	size_t n, cap;
	int latency; /* "desired actual layer" instead of "pid start ..." */
	int64_t max_present;
	int apps_ok; /* latency frames carried the layer's package */
};

/*
 * What a test has open, so that the teardown can clean up after a test
 * that failed half-way (cmocka leaves it with a longjmp): children are
 * killed, files removed.
 */
static struct fx *open_fx;
static struct frames_live *open_fl;

struct fx {
	char dir[PATH_MAX];
	char bin[PATH_MAX];
	char traces[PATH_MAX];
	char log[PATH_MAX];
	char calls[PATH_MAX];
	char marker[PATH_MAX];
	char perfetto[PATH_MAX];
	char dumpsys[PATH_MAX];
	char getprop[PATH_MAX];
	struct status *status;
	struct coll coll;
};

static const char *const fake_vars[] = {
	"TAPD_FAKE_FRAMES_LOG",
	"TAPD_FAKE_PERFETTO_REFUSE",
	"TAPD_FAKE_PERFETTO_DIE_AFTER",
	"TAPD_FAKE_PERFETTO_DIE_ONCE",
	"TAPD_FAKE_PERFETTO_MAX_MS",
	"TAPD_FAKE_PERFETTO_CLOCK",
	"TAPD_FAKE_PERFETTO_IDLE",
	"TAPD_FAKE_PERFETTO_DRAW_MS",
	"TAPD_FAKE_DUMPSYS_LIST",
	"TAPD_FAKE_DUMPSYS_MODE",
	"TAPD_FAKE_DUMPSYS_CALLS",
	"TAPD_FAKE_DUMPSYS_ONLY",
	"TAPD_FAKE_SDK",
};

static void
path_join(char *dst, const char *dir, const char *name)
{
	fixture_join(dst, PATH_MAX, dir, "%s", name);
}

/*
 * Makes a temporary directory with links to the simulator named like the
 * real tools, or skips the test when the simulator was not built.
 */
static struct fx *
fx_new(void)
{
	const char *build = getenv("BUILD");
	char sim[PATH_MAX], real[PATH_MAX];
	struct fx *f;
	size_t i;

	snprintf(sim, sizeof(sim), "%s/tapd-sim",
		 build && *build ? build : "build");
	if (!realpath(sim, real) || access(real, X_OK) != 0) {
		print_message("tapd-sim not found at '%s': build it first "
			      "(make)\n",
			      sim);
		skip();
	}
	for (i = 0; i < sizeof(fake_vars) / sizeof(fake_vars[0]); i++)
		unsetenv(fake_vars[i]);
	f = calloc(1, sizeof(*f));
	assert_non_null(f);
	assert_int_equal(fixture_tmpdir(f->dir, sizeof(f->dir), "frames-live"),
			 0);
	path_join(f->bin, f->dir, "bin");
	path_join(f->traces, f->dir, "traces");
	path_join(f->log, f->dir, "frames.log");
	path_join(f->calls, f->dir, "calls.log");
	path_join(f->marker, f->dir, "died");
	path_join(f->perfetto, f->bin, "perfetto");
	path_join(f->dumpsys, f->bin, "dumpsys");
	path_join(f->getprop, f->bin, "getprop");
	assert_int_equal(mkdir(f->bin, 0755), 0);
	assert_int_equal(mkdir(f->traces, 0755), 0);
	assert_int_equal(symlink(real, f->perfetto), 0);
	assert_int_equal(symlink(real, f->dumpsys), 0);
	assert_int_equal(symlink(real, f->getprop), 0);
	assert_int_equal(status_new("live", &f->status), 0);
	open_fx = f;
	setenv("TAPD_FAKE_FRAMES_LOG", f->log, 1);
	setenv("TAPD_FAKE_DUMPSYS_CALLS", f->calls, 1);
	return f;
}

static struct frames_live *
fl_new(const struct frames_live_config *cfg)
{
	struct frames_live *fl = NULL;

	assert_int_equal(frames_live_new(cfg, &fl), 0);
	open_fl = fl;
	return fl;
}

static void
fl_free(struct frames_live *fl)
{
	frames_live_free(fl);
	if (open_fl == fl)
		open_fl = NULL;
}

static void
coll_clear(struct coll *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->lines[i]);
	free(c->lines);
	memset(c, 0, sizeof(*c));
}

static void
fx_free(struct fx *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < sizeof(fake_vars) / sizeof(fake_vars[0]); i++)
		unsetenv(fake_vars[i]);
	fixture_rmtree(f->dir);
	if (open_fx == f)
		open_fx = NULL;
	status_free(f->status);
	coll_clear(&f->coll);
	free(f);
}

/* A config for fast tests, with the fakes as the tools. */
static void
fx_config(struct fx *f, struct frames_live_config *cfg,
	  enum frames_live_mode mode)
{
	frames_live_config_default(cfg);
	cfg->mode = mode;
	cfg->perfetto_bin = f->perfetto;
	cfg->dumpsys_bin = f->dumpsys;
	cfg->getprop_bin = f->getprop;
	cfg->trace_dir = f->traces;
	cfg->write_period_ms = 100;
	cfg->flush_period_ms = 100;
	cfg->tail_ms = 50;
	cfg->ftl_lag_ms = 300;
	cfg->poll_ms = 100;
	cfg->child_timeout_ms = 1000;
	cfg->restart_min_ms = 50;
	cfg->restart_max_ms = 400;
	cfg->status = f->status;
}

static int
on_frame(void *ctx, const struct correlate_frame *cf)
{
	struct coll *c = ctx;
	char line[600];
	int n;

	assert_non_null(cf->layer);
	assert_true(cf->present_ns > cf->start_ns);
	if (c->n == 0 || cf->present_ns > c->max_present)
		c->max_present = cf->present_ns;
	if (c->latency) {
		n = snprintf(line, sizeof(line), "%" PRId64 " %" PRId64 " %s",
			     cf->start_ns, cf->present_ns, cf->layer);
		/* The app is the layer's package. */
		if (!cf->app || !strstr(cf->layer, cf->app) ||
		    (strcmp(cf->app, MAIL) != 0 && strcmp(cf->app, MAPS) != 0))
			c->apps_ok = 0;
	} else {
		assert_true(cf->pid > 0);
		n = snprintf(line, sizeof(line),
			     "%d %" PRId64 " %" PRId64 " %s", cf->pid,
			     cf->start_ns, cf->present_ns, cf->layer);
	}
	assert_true(n > 0 && (size_t)n < sizeof(line));
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->lines = realloc(c->lines, c->cap * sizeof(*c->lines));
		assert_non_null(c->lines);
	}
	c->lines[c->n] = strdup(line);
	assert_non_null(c->lines[c->n]);
	c->n++;
	return 0;
}

typedef int (*cond_fn)(struct frames_live *fl, void *arg);

/* Runs the source as the daemon's loop would, until cond or ms pass. */
static int
pump(struct frames_live *fl, struct coll *c, int ms, cond_fn cond, void *arg)
{
	int64_t end = fixture_now_ns() + ms * MS_NS, left;
	struct pollfd pfd;

	for (;;) {
		if (cond && cond(fl, arg))
			return 1;
		left = end - fixture_now_ns();
		if (left <= 0)
			return cond ? cond(fl, arg) : 1;
		pfd.fd = frames_live_fd(fl);
		pfd.events = POLLIN;
		pfd.revents = 0;
		poll(&pfd, 1, (int)(left / MS_NS) + 1);
		assert_int_equal(frames_live_dispatch(fl, on_frame, c), 0);
	}
}

static int
is_stopped(struct frames_live *fl, void *arg)
{
	(void)arg;
	return frames_live_stopped(fl);
}

static int
no_child_running(struct frames_live *fl, void *arg)
{
	struct frames_live_stats st;

	(void)arg;
	frames_live_get_stats(fl, &st);
	return st.children_running == 0;
}

static int
frames_at_least(struct frames_live *fl, void *arg)
{
	struct frames_live_stats st;

	frames_live_get_stats(fl, &st);
	return st.frames >= *(const uint64_t *)arg;
}

static int
polls_at_least(struct frames_live *fl, void *arg)
{
	struct frames_live_stats st;

	frames_live_get_stats(fl, &st);
	return st.polls >= *(const uint64_t *)arg;
}

static int
snapshots_at_least(struct frames_live *fl, void *arg)
{
	struct frames_live_stats st;

	frames_live_get_stats(fl, &st);
	return st.snapshots >= *(const uint64_t *)arg;
}

static struct status_source_state
health(struct fx *f)
{
	struct status_snapshot snap;

	status_get(f->status, &snap);
	return snap.sources[STATUS_SOURCE_FRAMES];
}

static int
health_is(struct frames_live *fl, void *arg)
{
	struct fx *f = arg;
	struct status_source_state s = health(f);

	(void)fl;
	return s.health == STATUS_HEALTH_DOWN;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads a log file's lines, sorted, duplicates removed. */
static size_t
read_log(const char *path, char ***out)
{
	char **lines = NULL, *line = NULL;
	size_t n = 0, cap = 0, len = 0, i, m;
	ssize_t r;
	FILE *fp = fopen(path, "r");

	*out = NULL;
	if (!fp)
		return 0;
	while ((r = getline(&line, &len, fp)) > 0) {
		if (line[r - 1] == '\n')
			line[r - 1] = '\0';
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			lines = realloc(lines, cap * sizeof(*lines));
			assert_non_null(lines);
		}
		lines[n] = strdup(line);
		assert_non_null(lines[n]);
		n++;
	}
	free(line);
	fclose(fp);
	if (n == 0) {
		free(lines);
		return 0;
	}
	qsort(lines, n, sizeof(*lines), cmp_str);
	for (i = 1, m = 1; i < n; i++) {
		if (strcmp(lines[i], lines[m - 1]) == 0)
			free(lines[i]);
		else
			lines[m++] = lines[i];
	}
	*out = lines;
	return m;
}

static void
free_lines(char **lines, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/*
 * The frames received are exactly the frames the fakes logged: none
 * missing, none extra, none twice.
 */
static void
assert_same_frames(struct fx *f)
{
	char **want = NULL;
	size_t nwant, i, missing = 0, extra = 0, a = 0, b = 0;
	struct coll *c = &f->coll;

	nwant = read_log(f->log, &want);
	qsort(c->lines, c->n, sizeof(*c->lines), cmp_str);
	for (i = 1; i < c->n; i++)
		if (strcmp(c->lines[i], c->lines[i - 1]) == 0)
			fail_msg("frame delivered twice: %s", c->lines[i]);
	while (a < nwant || b < c->n) {
		int d = a == nwant  ? 1
			: b == c->n ? -1
				    : strcmp(want[a], c->lines[b]);

		if (d < 0) {
			if (missing++ < 5)
				print_message("missing: %s\n", want[a]);
			a++;
		} else if (d > 0) {
			if (extra++ < 5)
				print_message("extra: %s\n", c->lines[b]);
			b++;
		} else {
			a++;
			b++;
		}
	}
	free_lines(want, nwant);
	if (missing || extra)
		fail_msg("%zu frames logged, %zu received: %zu missing, %zu "
			 "extra",
			 nwant, c->n, missing, extra);
	assert_true(nwant > 0);
}

static size_t
trace_files(struct fx *f)
{
	char cmd[PATH_MAX + 64];
	size_t n = 0;
	int c;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -1 '%s' | grep -c pftrace", f->traces);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (fscanf(p, "%d", &c) == 1 && c > 0)
		n = (size_t)c;
	pclose(p);
	return n;
}

/* Stops the source cleanly, reading its last frames. */
static void
stop_and_drain(struct fx *f, struct frames_live *fl)
{
	frames_live_stop(fl);
	assert_true(pump(fl, &f->coll, 3000, is_stopped, NULL));
}

/* FrameTimeline: every frame perfetto wrote arrives once, in MONOTONIC. */
static void
test_ftl_frames_match(void **state)
{
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	uint64_t want = 15;
	int64_t t0 = fixture_now_ns(), wm;

	(void)state;
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	fl = fl_new(&cfg);
	assert_int_equal(frames_live_mode(fl), FRAMES_LIVE_FTL);
	assert_int_equal(frames_live_coverage_start(fl), INT64_MIN);
	assert_true(pump(fl, &f->coll, 3000, frames_at_least, &want));

	/* The session started after t0 and its snapshot says so. */
	assert_true(frames_live_coverage_start(fl) > t0);
	assert_true(frames_live_coverage_start(fl) < fixture_now_ns());
	wm = frames_live_watermark(fl);
	assert_true(wm > frames_live_coverage_start(fl));
	assert_true(wm < fixture_now_ns());
	assert_int_equal(health(f).health, STATUS_HEALTH_UP);
	assert_string_equal(health(f).kind, "ftl");
	assert_int_equal(trace_files(f), 1);

	stop_and_drain(f, fl);
	frames_live_get_stats(fl, &st);
	assert_int_equal(st.sessions, 1);
	assert_int_equal(st.session_failures, 0);
	assert_int_equal(st.files_deleted, 1);
	assert_int_equal(st.duplicates, 0);
	assert_int_equal(st.gaps, 0);
	assert_true(st.packets > st.frames);
	assert_int_equal(st.frames, f->coll.n);
	assert_int_equal(trace_files(f), 0);
	/* The watermark never passed a frame still to come. */
	assert_true(frames_live_watermark(fl) >= wm);
	assert_same_frames(f);
	fl_free(fl);
	fx_free(f);
}

static int
restarted(struct frames_live *fl, void *arg)
{
	struct frames_live_stats st;
	struct fx *f = arg;

	frames_live_get_stats(fl, &st);
	return st.sessions >= 2 && health(f).health == STATUS_HEALTH_UP &&
	       st.frames > 12;
}

/* perfetto killed by SIGKILL: restarted, frames go on, none twice. */
static void
test_ftl_killed_restarts(void **state)
{
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	uint64_t first = 8;
	int saw_degraded = 0;
	int64_t end;

	(void)state;
	setenv("TAPD_FAKE_PERFETTO_DIE_AFTER", "8", 1);
	setenv("TAPD_FAKE_PERFETTO_DIE_ONCE", f->marker, 1);
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	cfg.restart_min_ms = 100;
	fl = fl_new(&cfg);
	assert_true(pump(fl, &f->coll, 3000, frames_at_least, &first));
	end = fixture_now_ns() + 3000 * MS_NS;
	while (!restarted(fl, f) && fixture_now_ns() < end) {
		pump(fl, &f->coll, 20, NULL, NULL);
		if (health(f).health == STATUS_HEALTH_DEGRADED &&
		    strstr(health(f).detail, "signal 9"))
			saw_degraded = 1;
	}
	assert_true(restarted(fl, f));
	assert_true(saw_degraded);
	assert_int_equal(access(f->marker, F_OK), 0);

	stop_and_drain(f, fl);
	frames_live_get_stats(fl, &st);
	assert_int_equal(st.sessions, 2);
	assert_int_equal(st.session_exits, 2);
	assert_int_equal(st.session_failures, 0);
	assert_int_equal(st.gaps, 1);
	assert_true(st.gap_ns > 0);
	assert_int_equal(st.files_deleted, 2);
	assert_int_equal(trace_files(f), 0);
	assert_same_frames(f);
	fl_free(fl);
	fx_free(f);
}

static int
rotated(struct frames_live *fl, void *arg)
{
	struct frames_live_stats st;

	(void)arg;
	frames_live_get_stats(fl, &st);
	return st.rotations >= 2 && st.files_deleted >= 2;
}

/* Rotation: several files, each deleted once read, frames exactly once. */
static void
test_ftl_rotation(void **state)
{
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	int64_t wm_before;

	(void)state;
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	/* A cap far above: the handover must never race it. */
	cfg.rotate_bytes = 4096;
	cfg.cap_bytes = 16 * 4096;
	fl = fl_new(&cfg);
	assert_true(pump(fl, &f->coll, 5000, rotated, NULL));
	/* At most the session and the one it replaces have files. */
	assert_true(trace_files(f) <= 2);
	wm_before = frames_live_watermark(fl);
	stop_and_drain(f, fl);
	frames_live_get_stats(fl, &st);
	assert_same_frames(f);
	/* The overlapping sessions recorded the same frames twice. */
	assert_true(st.duplicates > 0);
	/* Each old session was stopped once replaced, not at its cap. */
	assert_int_equal(st.capped, 0);
	assert_int_equal(st.session_failures, 0);
	assert_int_equal(st.gaps, 0);
	assert_int_equal(st.files_deleted, st.sessions);
	assert_int_equal(trace_files(f), 0);
	assert_true(frames_live_watermark(fl) >= wm_before);
	fl_free(fl);
	fx_free(f);
}

static int
on_recorded(void *ctx, const struct frames_ftl_frame *f)
{
	struct correlate_frame cf;

	frames_ftl_frame_to_correlate(f, &cf);
	return on_frame(ctx, &cf);
}

/*
 * --record over rotating sessions: frames.pftrace holds the frames the
 * source emitted, each once (the duplicates of the overlapping sessions
 * left out), and the reader finds there the coverage the source had.
 */
static void
test_ftl_rotation_recorded(void **state)
{
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct record_config rcfg;
	struct record_stats rst;
	struct frames_live *fl = NULL;
	struct frames_ftl *rd = NULL;
	struct record *rec = NULL;
	struct coll got = {0};
	struct fx *f = fx_new();
	char dir[PATH_MAX], trace[PATH_MAX];
	size_t i;

	(void)state;
	path_join(dir, f->dir, "rec");
	memset(&rcfg, 0, sizeof(rcfg));
	rcfg.dir = dir;
	assert_int_equal(record_open(&rcfg, &rec), 0);
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	cfg.rotate_bytes = 4096;
	cfg.cap_bytes = 16 * 4096;
	cfg.record = rec;
	fl = fl_new(&cfg);
	assert_true(pump(fl, &f->coll, 5000, rotated, NULL));
	stop_and_drain(f, fl);
	frames_live_get_stats(fl, &st);
	assert_true(st.duplicates > 0);
	record_get_stats(rec, &rst);
	assert_int_equal(rst.frames, st.frames);
	assert_int_equal(rst.failed, 0);
	record_free(rec);

	path_join(trace, dir, "frames.pftrace");
	assert_int_equal(frames_ftl_new(NULL, &rd), 0);
	assert_int_equal(frames_ftl_read_file(rd, trace, on_recorded, &got), 0);
	assert_int_equal(frames_ftl_coverage_start(rd),
			 frames_live_coverage_start(fl));
	assert_int_equal(got.n, f->coll.n);
	qsort(f->coll.lines, f->coll.n, sizeof(*f->coll.lines), cmp_str);
	qsort(got.lines, got.n, sizeof(*got.lines), cmp_str);
	for (i = 0; i < got.n; i++)
		assert_string_equal(got.lines[i], f->coll.lines[i]);
	assert_same_frames(f);
	frames_ftl_free(rd);
	coll_clear(&got);
	fl_free(fl);
	fx_free(f);
}

/* perfetto refusing: down with its message, retried with backoff. */
static void
test_ftl_refused(void **state)
{
	struct frames_live_config cfg;
	struct frames_live_stats st, st2;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	uint64_t want = 3;
	int64_t t0;

	(void)state;
	setenv("TAPD_FAKE_PERFETTO_REFUSE",
	       "Could not connect to the traced socket", 1);
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	cfg.restart_min_ms = 20;
	cfg.restart_max_ms = 160;
	t0 = fixture_now_ns();
	fl = fl_new(&cfg);
	assert_int_equal(health(f).health, STATUS_HEALTH_DEGRADED);
	assert_true(pump(fl, &f->coll, 3000, health_is, f));
	assert_string_equal(health(f).detail, "perfetto refused: Could not "
					      "connect to the traced socket");
	frames_live_get_stats(fl, &st);
	assert_int_equal(st.session_failures, 3);
	assert_int_equal(st.sessions, 3);
	/* The backoff doubles: 20 + 40 ms at least before the third. */
	assert_true(fixture_now_ns() - t0 >= 60 * MS_NS);
	pump(fl, &f->coll, 250, NULL, NULL);
	frames_live_get_stats(fl, &st2);
	/* 80, 160 ms: one or two more in 250 ms, not dozens. */
	assert_true(st2.session_failures > st.session_failures);
	assert_true(st2.session_failures <= st.session_failures + 2);
	assert_int_equal(st2.frames, 0);
	assert_int_equal(health(f).health, STATUS_HEALTH_DOWN);
	assert_int_equal(frames_live_watermark(fl), INT64_MIN);

	/* Once perfetto accepts, the source recovers by itself. */
	unsetenv("TAPD_FAKE_PERFETTO_REFUSE");
	assert_true(pump(fl, &f->coll, 3000, frames_at_least, &want));
	assert_int_equal(health(f).health, STATUS_HEALTH_UP);
	stop_and_drain(f, fl);
	assert_same_frames(f);
	fl_free(fl);
	fx_free(f);
}

/* A perfetto that cannot be run at all is reported as such. */
static void
test_ftl_missing_program(void **state)
{
	struct frames_live_config cfg;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	char missing[PATH_MAX];

	(void)state;
	path_join(missing, f->bin, "no-such-perfetto");
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	cfg.perfetto_bin = missing;
	cfg.restart_min_ms = 10;
	cfg.restart_max_ms = 20;
	fl = fl_new(&cfg);
	assert_true(pump(fl, &f->coll, 2000, health_is, f));
	assert_non_null(strstr(health(f).detail, "cannot run '"));
	assert_non_null(strstr(health(f).detail, "No such file"));
	fl_free(fl);
	fx_free(f);
}

static int
wm_at_last_present(struct frames_live *fl, void *arg)
{
	struct coll *c = arg;

	return c->n > 0 && frames_live_watermark(fl) == c->max_present;
}

/*
 * The screen goes idle: SurfaceFlinger never writes its last frame, whose
 * present time is unknown, so the watermark goes as far as the latest
 * present read once the file is quiet, and no further, however long the
 * wait.  With nothing drawn at all, it does not move.
 */
static void
test_ftl_idle_watermark(void **state)
{
	struct frames_live_config cfg;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	int64_t wm;

	(void)state;
	setenv("TAPD_FAKE_PERFETTO_IDLE", "1", 1);
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	cfg.ftl_lag_ms = 200;
	fl = fl_new(&cfg);
	pump(fl, &f->coll, 500, NULL, NULL);
	assert_true(frames_live_coverage_start(fl) != INT64_MIN);
	assert_int_equal(frames_live_watermark(fl), INT64_MIN);
	assert_int_equal(f->coll.n, 0);
	fl_free(fl);
	fx_free(f);

	f = fx_new();
	setenv("TAPD_FAKE_PERFETTO_DRAW_MS", "250", 1);
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	cfg.ftl_lag_ms = 200;
	fl = fl_new(&cfg);
	assert_true(pump(fl, &f->coll, 4000, wm_at_last_present, &f->coll));
	wm = frames_live_watermark(fl);
	/* Reached only after the drawing stopped and the file went quiet. */
	assert_true(wm < fixture_now_ns() - cfg.ftl_lag_ms * MS_NS);
	pump(fl, &f->coll, 200, NULL, NULL);
	assert_int_equal(frames_live_watermark(fl), wm);
	stop_and_drain(f, fl);
	/* The last frame drawn never reached the file: not in the log. */
	assert_same_frames(f);
	assert_int_equal(f->coll.max_present, wm);
	fl_free(fl);
	fx_free(f);
}

/*
 * How often the source's fd was readable in ms of running it as the loop
 * would: the wake-ups it costs the daemon.
 */
static int
count_wakeups(struct frames_live *fl, struct coll *c, int ms)
{
	int64_t end = fixture_now_ns() + ms * MS_NS, left;
	struct pollfd pfd;
	int n = 0;

	while ((left = end - fixture_now_ns()) > 0) {
		pfd.fd = frames_live_fd(fl);
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)(left / MS_NS) + 1) > 0)
			n++;
		assert_int_equal(frames_live_dispatch(fl, on_frame, c), 0);
	}
	return n;
}

/*
 * An idle screen's trace gets no write, and the file is watched rather
 * than read on a timer: once the session is established and the quiet
 * rule has run, the source wakes nobody, where reading every tail_ms
 * would wake the loop twenty times a second here.
 */
static void
test_ftl_sleeps_when_idle(void **state)
{
	struct frames_live_config cfg;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	uint64_t want = 1;
	int n;

	(void)state;
	setenv("TAPD_FAKE_PERFETTO_DRAW_MS", "150", 1);
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	cfg.ftl_lag_ms = 200;
	fl = fl_new(&cfg);
	assert_true(pump(fl, &f->coll, 4000, frames_at_least, &want));
	/* The drawing stops and the quiet rule moves the watermark. */
	assert_true(pump(fl, &f->coll, 4000, wm_at_last_present, &f->coll));
	n = count_wakeups(fl, &f->coll, 1000);
	print_message("     %d wake-ups in 1 s of an idle screen "
		      "(tail_ms %u)\n",
		      n, cfg.tail_ms);
	assert_true(n <= 2);
	stop_and_drain(f, fl);
	assert_same_frames(f);
	fl_free(fl);
	fx_free(f);
}

/* The layers a dumpsys run was asked about, from the calls log. */
static int
called(struct fx *f, const char *line)
{
	char **lines = NULL;
	size_t n, i;
	int found = 0;

	n = read_log(f->calls, &lines);
	for (i = 0; i < n; i++)
		if (strcmp(lines[i], line) == 0)
			found = 1;
	free_lines(lines, n);
	return found;
}

static size_t
calls_count(struct fx *f)
{
	char **lines = NULL;
	size_t n = read_log(f->calls, &lines);

	free_lines(lines, n);
	return n;
}

static void
run_latency_match(const char *list_form)
{
	static const char *const apps[] = {MAIL, MAPS};
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	uint64_t two_cycles = 6;
	int64_t before;

	if (list_form)
		setenv("TAPD_FAKE_DUMPSYS_LIST", list_form, 1);
	fx_config(f, &cfg, FRAMES_LIVE_LATENCY);
	cfg.poll_ms = 50;
	before = fixture_now_ns();
	fl = fl_new(&cfg);
	assert_int_equal(frames_live_mode(fl), FRAMES_LIVE_LATENCY);
	f->coll.latency = 1;
	f->coll.apps_ok = 1;
	assert_true(frames_live_coverage_start(fl) >= before);
	assert_int_equal(frames_live_set_wanted(fl, 2, apps, 2), 0);
	/* Two full cycles: a list and three layers each. */
	assert_true(pump(fl, &f->coll, 3000, snapshots_at_least, &two_cycles));
	assert_int_equal(frames_live_set_wanted(fl, 0, NULL, 0), 0);
	assert_true(pump(fl, &f->coll, 2000, no_child_running, NULL));
	pump(fl, &f->coll, 20, NULL, NULL);

	frames_live_get_stats(fl, &st);
	assert_true(st.polls >= 2);
	assert_true(st.snapshots >= two_cycles);
	assert_int_equal(st.dumpsys_errors, 0);
	assert_int_equal(st.dumpsys_timeouts, 0);
	assert_int_equal(st.garbage_lines, 0);
	assert_int_equal(health(f).health, STATUS_HEALTH_UP);
	assert_string_equal(health(f).kind, "latency");
	/* The buffer layers, never the containers. */
	assert_true(called(f, "list"));
	assert_true(called(f, "latency " MAIL_LAYER));
	assert_true(called(f, "latency " MAPS_LAYER));
	assert_true(called(f, "latency " MAPS_SV_BLAST));
	assert_int_equal(calls_count(f), 4);
	/* Complete up to a recent capture, not beyond now. */
	assert_true(frames_live_watermark(fl) > before);
	assert_true(frames_live_watermark(fl) < fixture_now_ns());
	assert_true(f->coll.apps_ok);
	assert_same_frames(f);
	fl_free(fl);
	fx_free(f);
}

/* dumpsys --latency: frames equal the rings' content, each once. */
static void
test_latency_frames_match(void **state)
{
	(void)state;
	run_latency_match(NULL);
}

/* The same through Android 15's --list form. */
static void
test_latency_a15_list(void **state)
{
	(void)state;
	run_latency_match("a15");
}

struct failure_case {
	const char *list_mode; /* TAPD_FAKE_DUMPSYS_LIST */
	const char *mode;      /* TAPD_FAKE_DUMPSYS_MODE */
	const char *detail;    /* part of the health detail */
	int errors, timeouts, zeros, garbage;
};

static struct fx *cur_fx;

static int
degraded_with(struct frames_live *fl, void *arg)
{
	const char *detail = arg;
	struct status_source_state s = health(cur_fx);

	(void)fl;
	return s.health == STATUS_HEALTH_DEGRADED && strstr(s.detail, detail);
}

static int
health_up(struct frames_live *fl, void *arg)
{
	struct fx *f = arg;

	(void)fl;
	return health(f).health == STATUS_HEALTH_UP;
}

/*
 * Zeros, errors, garbage, hangs, of --list and of --latency: counted,
 * degraded, never fatal; and up again once dumpsys behaves.
 */
static void
test_latency_failures(void **state)
{
	static const struct failure_case cases[] = {
		{NULL, "zeros", "only zero rows", 0, 0, 1, 0},
		{NULL, "error", "--latency failed (status 1): Error dumping", 1,
		 0, 0, 0},
		{NULL, "garbage", "unexpected lines", 0, 0, 0, 1},
		{NULL, "hang", "--latency did not answer within 250 ms", 0, 1,
		 0, 0},
		{"error", NULL, "--list failed (status 1)", 1, 0, 0, 0},
		{"garbage", NULL, "--list printed no layer names", 0, 0, 0, 0},
		{"hang", NULL, "--list did not answer", 0, 1, 0, 0},
	};
	static const char *const apps[] = {MAIL};
	struct frames_live_config cfg;
	struct frames_live_stats st, prev;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	const struct failure_case *fc;
	int64_t wm;
	size_t i;

	(void)state;
	cur_fx = f;
	f->coll.latency = 1;
	f->coll.apps_ok = 1;
	fx_config(f, &cfg, FRAMES_LIVE_LATENCY);
	cfg.poll_ms = 50;
	cfg.child_timeout_ms = 250;
	fl = fl_new(&cfg);
	assert_int_equal(frames_live_set_wanted(fl, 1, apps, 1), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fc = &cases[i];
		frames_live_get_stats(fl, &prev);
		wm = frames_live_watermark(fl);
		if (fc->list_mode)
			setenv("TAPD_FAKE_DUMPSYS_LIST", fc->list_mode, 1);
		else
			unsetenv("TAPD_FAKE_DUMPSYS_LIST");
		if (fc->mode)
			setenv("TAPD_FAKE_DUMPSYS_MODE", fc->mode, 1);
		else
			unsetenv("TAPD_FAKE_DUMPSYS_MODE");
		if (!pump(fl, &f->coll, 2000, degraded_with,
			  (void *)(uintptr_t)fc->detail))
			fail_msg("case %zu: health %s '%s', not '%s'", i,
				 status_health_name(health(f).health),
				 health(f).detail, fc->detail);
		/* A second bad cycle, to see what it does and does not do. */
		assert_true(pump(fl, &f->coll, 2000, no_child_running, NULL));
		frames_live_get_stats(fl, &st);
		if (fc->errors) {
			assert_true(st.dumpsys_errors > prev.dumpsys_errors);
			assert_true(st.dumpsys_stderr > prev.dumpsys_stderr);
		} else {
			assert_int_equal(st.dumpsys_errors,
					 prev.dumpsys_errors);
		}
		/* (A loaded machine may time out in the other cases too.) */
		if (fc->timeouts)
			assert_true(st.dumpsys_timeouts >
				    prev.dumpsys_timeouts);
		if (fc->zeros)
			assert_true(st.zero_snapshots > prev.zero_snapshots);
		if (fc->garbage)
			assert_true(st.garbage_lines >= prev.garbage_lines + 3);
		/* Only a clean cycle of zeros says the frames are complete. */
		if (!fc->zeros)
			assert_int_equal(frames_live_watermark(fl), wm);
		assert_int_equal(health(f).health, STATUS_HEALTH_DEGRADED);
	}
	assert_true(frames_live_watermark(fl) > INT64_MIN);
	assert_int_equal(f->coll.n, 0);

	/* dumpsys behaving again: up again, frames again. */
	unsetenv("TAPD_FAKE_DUMPSYS_LIST");
	unsetenv("TAPD_FAKE_DUMPSYS_MODE");
	wm = frames_live_watermark(fl);
	assert_true(pump(fl, &f->coll, 2000, health_up, f));
	assert_true(frames_live_watermark(fl) > wm);
	assert_true(f->coll.n > 0);
	assert_true(f->coll.apps_ok);
	fl_free(fl);
	fx_free(f);
}

/*
 * The watermark covers every layer polled: one layer whose output cannot
 * be trusted holds it back, however well the others answer.
 */
static void
test_latency_watermark_waits_for_every_layer(void **state)
{
	static const char *const apps[] = {MAIL, MAPS};
	struct frames_live_config cfg;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	uint64_t two_cycles = 6;
	size_t n;

	(void)state;
	f->coll.latency = 1;
	f->coll.apps_ok = 1;
	setenv("TAPD_FAKE_DUMPSYS_MODE", "garbage", 1);
	setenv("TAPD_FAKE_DUMPSYS_ONLY", MAIL "/", 1);
	fx_config(f, &cfg, FRAMES_LIVE_LATENCY);
	cfg.poll_ms = 50;
	fl = fl_new(&cfg);
	/* The bad layer is polled first, the good ones after it. */
	assert_int_equal(frames_live_set_wanted(fl, 2, apps, 2), 0);
	assert_true(pump(fl, &f->coll, 3000, snapshots_at_least, &two_cycles));
	assert_true(f->coll.n > 0);
	assert_int_equal(frames_live_watermark(fl), INT64_MIN);
	assert_int_equal(health(f).health, STATUS_HEALTH_DEGRADED);

	unsetenv("TAPD_FAKE_DUMPSYS_MODE");
	n = f->coll.n;
	assert_true(pump(fl, &f->coll, 2000, health_up, f));
	assert_true(frames_live_watermark(fl) > INT64_MIN);
	assert_true(f->coll.n > n);
	fl_free(fl);
	fx_free(f);
}

/* A dumpsys that cannot be run: down, never a crash, retried. */
static void
test_latency_missing_program(void **state)
{
	static const char *const apps[] = {MAIL};
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	char missing[PATH_MAX];
	uint64_t three = 3;

	(void)state;
	path_join(missing, f->bin, "no-such-dumpsys");
	fx_config(f, &cfg, FRAMES_LIVE_LATENCY);
	cfg.dumpsys_bin = missing;
	cfg.poll_ms = 20;
	fl = fl_new(&cfg);
	assert_int_equal(frames_live_set_wanted(fl, 1, apps, 1), 0);
	assert_true(pump(fl, &f->coll, 2000, polls_at_least, &three));
	frames_live_get_stats(fl, &st);
	assert_int_equal(st.dumpsys_errors, st.polls);
	assert_int_equal(st.children, 0);
	assert_int_equal(health(f).health, STATUS_HEALTH_DOWN);
	assert_non_null(strstr(health(f).detail, "no-such-dumpsys': No such"));
	assert_int_equal(frames_live_watermark(fl), INT64_MIN);
	fl_free(fl);
	fx_free(f);
}

/* dumpsys runs only while taps are pending. */
static void
test_latency_polls_only_when_pending(void **state)
{
	static const char *const apps[] = {MAIL};
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	uint64_t children, polls, three = 3;
	int64_t t0;

	(void)state;
	f->coll.latency = 1;
	f->coll.apps_ok = 1;
	fx_config(f, &cfg, FRAMES_LIVE_LATENCY);
	cfg.poll_ms = 50;
	fl = fl_new(&cfg);
	assert_int_equal(frames_live_set_wanted(fl, 0, apps, 1), 0);
	pump(fl, &f->coll, 150, NULL, NULL);
	frames_live_get_stats(fl, &st);
	assert_int_equal(st.children, 0);
	assert_int_equal(st.polls, 0);
	assert_int_equal(calls_count(f), 0);
	assert_int_equal(frames_live_watermark(fl), INT64_MIN);

	t0 = fixture_now_ns();
	assert_int_equal(frames_live_set_wanted(fl, 1, apps, 1), 0);
	assert_true(pump(fl, &f->coll, 3000, polls_at_least, &three));
	frames_live_get_stats(fl, &st);
	/* A cycle at once, then at most one every 50 ms. */
	assert_true(st.polls <=
		    (uint64_t)((fixture_now_ns() - t0) / (50 * MS_NS)) + 1);
	/* A --list and one --latency each. */
	/* The cycle still running may have started only its --list. */
	assert_true(st.children <= 2 * st.polls);
	assert_true(st.children + 1 >= 2 * st.polls);
	assert_true(f->coll.n > 0);

	assert_int_equal(frames_live_set_wanted(fl, 0, NULL, 0), 0);
	assert_true(pump(fl, &f->coll, 2000, no_child_running, NULL));
	frames_live_get_stats(fl, &st);
	children = st.children;
	polls = st.polls;
	pump(fl, &f->coll, 200, NULL, NULL);
	frames_live_get_stats(fl, &st);
	assert_int_equal(st.children, children);
	assert_int_equal(st.polls, polls);
	assert_same_frames(f);
	fl_free(fl);
	fx_free(f);
}

static enum frames_live_mode
auto_mode(struct fx *f, const char *getprop, const char *perfetto,
	  const char *dumpsys, int *sdk)
{
	struct frames_live_config cfg;
	struct frames_live_stats st;
	struct frames_live *fl = NULL;
	enum frames_live_mode m;

	fx_config(f, &cfg, FRAMES_LIVE_AUTO);
	cfg.getprop_bin = getprop;
	cfg.perfetto_bin = perfetto;
	cfg.dumpsys_bin = dumpsys;
	fl = fl_new(&cfg);
	m = frames_live_mode(fl);
	frames_live_get_stats(fl, &st);
	*sdk = st.sdk;
	if (m == FRAMES_LIVE_NONE) {
		assert_int_equal(health(f).health, STATUS_HEALTH_DOWN);
		assert_string_equal(
			health(f).detail,
			"no perfetto or dumpsys: frames unavailable");
		assert_int_equal(frames_live_watermark(fl), INT64_MAX);
		assert_int_equal(frames_live_coverage_start(fl), INT64_MIN);
	}
	fl_free(fl);
	return m;
}

/* auto: getprop's sdk level decides; without it, what can be run. */
static void
test_auto(void **state)
{
	struct fx *f = fx_new();
	char none[PATH_MAX];
	int sdk;

	(void)state;
	path_join(none, f->bin, "missing");
	setenv("TAPD_FAKE_SDK", "33", 1);
	assert_int_equal(
		auto_mode(f, f->getprop, f->perfetto, f->dumpsys, &sdk),
		FRAMES_LIVE_FTL);
	assert_int_equal(sdk, 33);
	setenv("TAPD_FAKE_SDK", "31", 1);
	assert_int_equal(
		auto_mode(f, f->getprop, f->perfetto, f->dumpsys, &sdk),
		FRAMES_LIVE_FTL);
	setenv("TAPD_FAKE_SDK", "30", 1);
	assert_int_equal(
		auto_mode(f, f->getprop, f->perfetto, f->dumpsys, &sdk),
		FRAMES_LIVE_LATENCY);
	assert_int_equal(sdk, 30);
	/* getprop prints nothing useful: what can be run decides. */
	setenv("TAPD_FAKE_SDK", "thirty", 1);
	assert_int_equal(auto_mode(f, f->getprop, none, f->dumpsys, &sdk),
			 FRAMES_LIVE_LATENCY);
	assert_int_equal(sdk, -1);
	assert_int_equal(auto_mode(f, none, f->perfetto, f->dumpsys, &sdk),
			 FRAMES_LIVE_FTL);
	assert_int_equal(auto_mode(f, none, none, none, &sdk),
			 FRAMES_LIVE_NONE);
	fx_free(f);
}

static void
touch(const char *dir, const char *name)
{
	char path[PATH_MAX];

	path_join(path, dir, name);
	fixture_write(path, "", 0);
}

static int
exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	path_join(path, dir, name);
	return access(path, F_OK) == 0;
}

/* Trace files of a tapd no longer running are deleted; others stay. */
static void
test_ftl_cleans_stale_files(void **state)
{
	struct frames_live_config cfg;
	struct frames_live *fl = NULL;
	struct fx *f = fx_new();
	char dead[64], alive[64];
	pid_t pid;

	(void)state;
	/* A pid no process has, probed downwards from a high one. */
	for (pid = 4000000; kill(pid, 0) == 0 || errno != ESRCH; pid--)
		;
	snprintf(dead, sizeof(dead), "tapd-%d-3.pftrace", (int)pid);
	snprintf(alive, sizeof(alive), "tapd-%d-1.pftrace", (int)getppid());
	touch(f->traces, dead);
	touch(f->traces, alive);
	touch(f->traces, "tapd-x-1.pftrace");
	touch(f->traces, "other.pftrace");
	fx_config(f, &cfg, FRAMES_LIVE_FTL);
	fl = fl_new(&cfg);
	assert_false(exists(f->traces, dead));
	assert_true(exists(f->traces, alive));
	assert_true(exists(f->traces, "tapd-x-1.pftrace"));
	assert_true(exists(f->traces, "other.pftrace"));
	fl_free(fl);
	fx_free(f);
}

/*
 * Runs the fake perfetto on config bytes, as tapd does but with the
 * config in a file; returns its exit status and its output in out.
 */
static int
run_fake_perfetto(struct fx *f, const uint8_t *cfg, size_t len,
		  const char *extra, char *out, size_t size)
{
	char path[PATH_MAX], cmd[3 * PATH_MAX];
	size_t n;
	FILE *fp;
	int rc;

	path_join(path, f->dir, "config.bin");
	fixture_write(path, cfg, len);
	snprintf(cmd, sizeof(cmd), "'%s' -c '%s' %s 2>&1 </dev/null",
		 f->perfetto, path, extra);
	fp = popen(cmd, "r");
	assert_non_null(fp);
	n = fread(out, 1, size - 1, fp);
	out[n] = '\0';
	rc = pclose(fp);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The fake refuses what perfetto would, so it cannot hide a bad config. */
static void
test_fake_perfetto_checks_config(void **state)
{
	static const uint8_t no_ds[] = {
		0x40, 0x01, /* write_into_file: true */
		0xea, 0x01, 0x04, '/', 'x', '/', 'y', /* output_path */
	};
	static const uint8_t
		no_write[] =
			{
				/* data_sources { config { name: FrameTimeline }
				   } */
				0x12, 0x28, 0x0a, 0x26, 0x0a, 0x24, 'a', 'n',
				'd',  'r',  'o',  'i',	'd',  '.',  's', 'u',
				'r',  'f',  'a',  'c',	'e',  'f',  'l', 'i',
				'n',  'g',  'e',  'r',	'.',  'f',  'r', 'a',
				'm',  'e',  't',  'i',	'm',  'e',  'l', 'i',
				'n',  'e',  0xea, 0x01, 0x04, '/',  'x', '/',
				'y', /* output_path
				      */
			};
	struct tracecfg_params p;
	struct fx *f = fx_new();
	char out[1024], path[PATH_MAX];
	uint8_t *cfg = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(run_fake_perfetto(f, no_ds, sizeof(no_ds), "", out,
					   sizeof(out)),
			 1);
	assert_non_null(strstr(out, "android.surfaceflinger.frametimeline"));
	assert_int_equal(run_fake_perfetto(f, no_write, sizeof(no_write), "",
					   out, sizeof(out)),
			 1);
	assert_non_null(strstr(out, "write_into_file"));

	/* The daemon's config, but with -o or onto an existing file. */
	path_join(path, f->traces, "exists.pftrace");
	touch(f->traces, "exists.pftrace");
	tracecfg_params_default(&p);
	p.output_path = path;
	assert_int_equal(tracecfg_encode(&p, &cfg, &len), 0);
	assert_int_equal(run_fake_perfetto(f, cfg, len, "", out, sizeof(out)),
			 1);
	assert_non_null(strstr(out, "The output_path must not exist"));
	assert_int_equal(run_fake_perfetto(f, cfg, len, "-o /dev/null", out,
					   sizeof(out)),
			 1);
	assert_non_null(strstr(out, "Can't pass --out"));
	free(cfg);
	fx_free(f);
}

static void
test_config_invalid(void **state)
{
	struct frames_live_config cfg;
	struct frames_live *fl = (struct frames_live *)&cfg;

	(void)state;
	frames_live_config_default(&cfg);
	assert_int_equal(cfg.mode, FRAMES_LIVE_AUTO);
	assert_int_equal(cfg.rotate_bytes, 32u << 20);
	assert_string_equal(cfg.trace_dir, "/data/misc/perfetto-traces");
	cfg.poll_ms = 0;
	assert_int_equal(frames_live_new(&cfg, &fl), -EINVAL);
	frames_live_config_default(&cfg);
	cfg.write_period_ms = 50;
	assert_int_equal(frames_live_new(&cfg, &fl), -EINVAL);
	frames_live_config_default(&cfg);
	cfg.rotate_bytes = 100;
	assert_int_equal(frames_live_new(&cfg, &fl), -EINVAL);
	frames_live_config_default(&cfg);
	cfg.cap_bytes = cfg.rotate_bytes;
	assert_int_equal(frames_live_new(&cfg, &fl), -EINVAL);
	frames_live_config_default(&cfg);
	cfg.mode = FRAMES_LIVE_NONE;
	assert_int_equal(frames_live_new(&cfg, &fl), -EINVAL);
	assert_ptr_equal(fl, (struct frames_live *)&cfg);
	frames_live_free(NULL);
}

static int
teardown(void **state)
{
	(void)state;
	fl_free(open_fl);
	fx_free(open_fx);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_config_invalid, teardown),
		cmocka_unit_test_teardown(test_ftl_frames_match, teardown),
		cmocka_unit_test_teardown(test_ftl_killed_restarts, teardown),
		cmocka_unit_test_teardown(test_ftl_rotation, teardown),
		cmocka_unit_test_teardown(test_ftl_rotation_recorded, teardown),
		cmocka_unit_test_teardown(test_ftl_refused, teardown),
		cmocka_unit_test_teardown(test_ftl_missing_program, teardown),
		cmocka_unit_test_teardown(test_ftl_idle_watermark, teardown),
		cmocka_unit_test_teardown(test_ftl_sleeps_when_idle, teardown),
		cmocka_unit_test_teardown(test_ftl_cleans_stale_files,
					  teardown),
		cmocka_unit_test_teardown(test_fake_perfetto_checks_config,
					  teardown),
		cmocka_unit_test_teardown(test_latency_frames_match, teardown),
		cmocka_unit_test_teardown(test_latency_a15_list, teardown),
		cmocka_unit_test_teardown(test_latency_failures, teardown),
		cmocka_unit_test_teardown(
			test_latency_watermark_waits_for_every_layer, teardown),
		cmocka_unit_test_teardown(test_latency_missing_program,
					  teardown),
		cmocka_unit_test_teardown(test_latency_polls_only_when_pending,
					  teardown),
		cmocka_unit_test_teardown(test_auto, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
