#include "live.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/input.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <unistd.h>

#include "api.h"
#include "control.h"
#include "datadir.h"
#include "dbpool.h"
#include "device.h"
#include "events.h"
#include "foreground.h"
#include "foreground_live.h"
#include "frames_live.h"
#include "input_evdev.h"
#include "log.h"
#include "loop.h"
#include "metrics.h"
#include "serve.h"
#include "status.h"
#include "store.h"

#define MS     INT64_C(1000000)
#define DAY_NS (INT64_C(86400) * 1000000000)

/* The loop's periods. */
#define TICK_MS		100   /* finalize, commit, announce, health */
#define FOREGROUND_MS	1000  /* foreground sample besides touch-downs */
#define WALL_MS		10000 /* REALTIME - MONOTONIC, for stepped clocks */
#define RETENTION_MS	10000 /* one retention batch */
#define RETENTION_BATCH 5000

/*
 * How far behind now the input is taken to be complete.  An event the
 * kernel stamped at t is read within milliseconds of t while the loop is
 * healthy; a window is closed only once no touch-down before its end can
 * still be unread.
 */
#define INPUT_LAG_NS (250 * MS)

struct live {
	const struct live_options *o;
	const char *db; /* --db, or the default the Android build picked */
	struct datadir_choice *dd; /* that pick, NULL with --db */
	struct loop *loop;
	struct store *store;
	struct status *status;
	struct events *events;
	struct control *control;
	struct metrics *metrics;
	struct api *api;
	struct foreground *timeline;
	struct foreground_live *fgl;
	struct input_evdev *input;
	struct frames_live *frames;
	struct pipeline *pipe;
	struct pipeline_config pcfg;
	int pidfd;
	int coverage_set;
	int need_maintain;
};

void
live_options_init(struct live_options *o)
{
	memset(o, 0, sizeof(*o));
	o->input = "evdev";
	o->frames = "auto";
	o->foreground = "auto";
	o->retain_days = 30;
	pipeline_options_init(&o->thresholds);
}

/*
 * The pidfile is locked for the daemon's life: a second tapd on the same
 * file finds it locked and refuses, and a stale file of a dead one is
 * simply taken over.
 */
static int
pidfile_take(struct live *l, const char *path)
{
	char buf[32];
	int fd, n, rc;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		log_error("cannot open pidfile '%s': %s", path,
			  strerror(errno));
		return rc;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		rc = errno == EWOULDBLOCK ? -EEXIST : -errno;
		n = (int)read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		log_error("cannot take pidfile '%s': tapd is already running "
			  "(pid %s)",
			  path, buf[0] ? buf : "?");
		close(fd);
		return rc;
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || write(fd, buf, (size_t)n) != n) {
		rc = -errno;
		log_error("cannot write pidfile '%s': %s", path,
			  strerror(errno));
		close(fd);
		return rc;
	}
	l->pidfd = fd;
	return 0;
}

static void
pidfile_release(struct live *l)
{
	if (l->pidfd < 0)
		return;
	unlink(l->o->pidfile);
	close(l->pidfd);
	l->pidfd = -1;
}

/*
 * Without --db: the Android build's default database, in Magisk's data
 * directory when tapd may use it (as root), else in /data/local/tmp; other
 * builds have no default, a desktop has no place that is obviously right.
 */
static int
pick_db(struct live *l)
{
#ifdef TAPD_ANDROID
	int rc;

	l->dd = calloc(1, sizeof(*l->dd));
	if (!l->dd)
		return -ENOMEM;
	rc = datadir_pick(l->o->sysroot, l->dd);
	if (rc < 0) {
		log_error("cannot place the database: %s; give --db PATH",
			  l->dd->why);
		return rc;
	}
	if (l->dd->fallback)
		log_warnx("%s; using '%s' instead", l->dd->why, l->dd->db);
	else
		log_info("database '%s'", l->dd->db);
	l->db = l->dd->db;
	return 0;
#else
	(void)l;
	log_error("run needs --db PATH");
	return -EINVAL;
#endif
}

static int
on_input_event(void *ctx, const struct touch_event *ev)
{
	struct live *l = ctx;

	return pipeline_input(l->pipe, ev);
}

static void
on_input_added(void *ctx, const char *path, const char *name)
{
	(void)ctx;
	log_info("reading touch screen '%s' \"%s\"", path, name);
}

static void
on_input_removed(void *ctx, const char *path)
{
	struct live *l = ctx;
	int rc;

	log_warnx("touch screen '%s' is gone; waiting for it to come back",
		  path);
	/* Contacts still down end here, flagged: their end was never seen. */
	rc = pipeline_input_lost(l->pipe, loop_now_ns());
	if (rc < 0)
		log_warnx("cannot end the contacts of '%s': %s", path,
			  strerror(-rc));
}

static int
on_input(void *ctx, uint32_t events)
{
	static const struct input_evdev_callbacks cbs = {
		on_input_event,
		on_input_added,
		on_input_removed,
	};
	struct live *l = ctx;
	int rc;

	(void)events;
	rc = input_evdev_dispatch(l->input, &cbs, l);
	/* A source's trouble is its health's business, not a reason to stop. */
	if (rc < 0 && rc != -EAGAIN)
		log_debug("input: %s", strerror(-rc));
	return rc == -ENOMEM ? rc : 0;
}

static int
on_frame(void *ctx, const struct correlate_frame *f)
{
	struct live *l = ctx;

	return pipeline_frame(l->pipe, f);
}

static int
on_frames(void *ctx, uint32_t events)
{
	struct live *l = ctx;
	int64_t start;
	int rc;

	(void)events;
	rc = frames_live_dispatch(l->frames, on_frame, l);
	if (!l->coverage_set) {
		start = frames_live_coverage_start(l->frames);
		if (start != INT64_MIN) {
			pipeline_set_coverage(l->pipe, start);
			l->coverage_set = 1;
		}
	}
	if (rc < 0 && rc != -EAGAIN)
		log_debug("frames: %s", strerror(-rc));
	return rc == -ENOMEM ? rc : 0;
}

static int
on_control(void *ctx, uint32_t events)
{
	struct live *l = ctx;

	(void)events;
	control_serve(l->control, pipeline_control, l->pipe);
	return 0;
}

static void
on_touch_down(void *ctx, int64_t t_ns)
{
	struct live *l = ctx;

	/* The foreground at the tap's t_up is what counts: sample now. */
	if (l->fgl)
		foreground_live_sample(l->fgl, t_ns);
}

static int64_t
frames_watermark(const struct live *l)
{
	/* Without a frame source, no frame will ever hold a tap back. */
	if (!l->frames)
		return INT64_MAX;
	return frames_live_watermark(l->frames);
}

struct status_ctx {
	struct live *l;
	int64_t frames_wm;
};

static void
fill_status(struct status_snapshot *s, void *ctx)
{
	struct status_ctx *sc = ctx;
	struct live *l = sc->l;
	struct frames_live_stats fs;

	pipeline_fill_status(l->pipe, sc->frames_wm, s);
	if (l->frames) {
		frames_live_get_stats(l->frames, &fs);
		s->packets_read = fs.packets;
		s->packets_dropped = fs.packets_dropped;
	}
}

/* The heartbeat: finalize, commit, announce, tell the poller, health. */
static int
on_tick(void *ctx)
{
	struct live *l = ctx;
	const char *apps[16];
	struct status_ctx sc;
	int64_t now = loop_now_ns();
	size_t n;
	int rc;

	sc.l = l;
	sc.frames_wm = frames_watermark(l);
	rc = pipeline_advance(l->pipe, sc.frames_wm, now - INPUT_LAG_NS);
	if (rc == 0)
		rc = pipeline_flush(l->pipe);
	if (rc == 0)
		rc = store_tick(l->store, now);
	if (rc < 0)
		log_warnx("cannot store taps: %s", strerror(-rc));
	if (l->frames) {
		n = pipeline_pending_apps(l->pipe, apps,
					  sizeof(apps) / sizeof(apps[0]));
		frames_live_set_wanted(l->frames, pipeline_pending(l->pipe),
				       apps, n);
	}
	status_update(l->status, fill_status, &sc);
	/* Out of memory is the one failure a daemon cannot ride out. */
	return rc == -ENOMEM ? rc : 0;
}

/*
 * How long foreground switches are kept: far longer than a tap waits for
 * its frames (its window, the frame source's lag).
 */
#define FOREGROUND_KEEP_NS (600 * INT64_C(1000000000))

static int
on_foreground_timer(void *ctx)
{
	struct live *l = ctx;
	int64_t now = loop_now_ns();

	foreground_live_sample(l->fgl, now);
	foreground_prune(l->timeline, now - FOREGROUND_KEEP_NS);
	return 0;
}

static int
on_wall_timer(void *ctx)
{
	struct live *l = ctx;

	pipeline_set_wall_offset(l->pipe, loop_realtime_ns() - loop_now_ns());
	return 0;
}

/*
 * Retention, one small batch a tick so the write lock is never held long;
 * once a pass has nothing left to delete, the file is compacted and the
 * WAL truncated.
 */
static int
on_retention_timer(void *ctx)
{
	struct live *l = ctx;
	int64_t deleted = 0, cutoff;
	int rc;

	cutoff = loop_realtime_ns() - (int64_t)l->o->retain_days * DAY_NS;
	rc = store_retain(l->store, cutoff, RETENTION_BATCH, &deleted);
	if (rc < 0) {
		log_warnx("retention failed: %s", strerror(-rc));
		return 0;
	}
	if (deleted > 0) {
		log_info("retention: deleted %" PRId64 " taps older than %d "
			 "days",
			 deleted, l->o->retain_days);
		l->need_maintain = 1;
	} else if (l->need_maintain) {
		rc = store_maintain(l->store);
		if (rc < 0)
			log_warnx("cannot checkpoint after retention: %s",
				  strerror(-rc));
		l->need_maintain = 0;
	}
	return 0;
}

static int
on_signal(void *ctx, int signo)
{
	struct live *l = ctx;

	if (signo == SIGHUP) {
		if (log_reopen() < 0)
			log_warn("cannot reopen the log file");
		else
			log_info("log file reopened");
		return 0;
	}
	log_info("stopping on signal %d", signo);
	loop_stop(l->loop);
	return 0;
}

static int
start_api(struct live *l)
{
	struct api_config cfg;
	struct store *ro = NULL;
	char url[300];
	int rc;

	rc = status_new("live", &l->status);
	if (rc == 0)
		rc = events_new(0, &l->events);
	if (rc == 0)
		rc = control_new(&l->control);
	if (rc == 0)
		rc = metrics_new(&l->metrics);
	if (rc < 0)
		return rc;
	/* The counters go on from what the database already holds. */
	rc = dbpool_open_store(l->db, &ro, NULL);
	if (rc == 0)
		rc = metrics_load(l->metrics, store_db(ro));
	store_close(ro);
	if (rc < 0)
		return rc;
	api_config_default(&cfg);
	if (l->o->listen)
		cfg.listen = l->o->listen;
	cfg.token_file = l->o->token_file;
	cfg.db_path = l->db;
	cfg.status = l->status;
	cfg.events = l->events;
	cfg.control = l->control;
	cfg.metrics = l->metrics;
	rc = api_start(&cfg, &l->api);
	if (rc < 0)
		return rc;
	serve_url(cfg.listen, api_port(l->api), url, sizeof(url));
	printf("listening on http://%s\n", url);
	fflush(stdout);
	return 0;
}

static int
start_foreground(struct live *l)
{
	struct foreground_live_config cfg;
	const char *spec = l->o->foreground;
	int rc;

	if (strcmp(spec, "none") == 0) {
		status_set_source(l->status, STATUS_SOURCE_FOREGROUND,
				  STATUS_HEALTH_NONE, "none",
				  "no foreground source: taps have no app");
		return 0;
	}
	if (strncmp(spec, "app:", 4) == 0 && spec[4]) {
		rc = foreground_new_static(spec + 4, &l->timeline);
		if (rc == 0)
			status_set_source(l->status, STATUS_SOURCE_FOREGROUND,
					  STATUS_HEALTH_UP, "app", "%s",
					  spec + 4);
		return rc;
	}
	if (strcmp(spec, "auto") != 0) {
		log_error("unknown foreground source '%s': auto, app:PACKAGE "
			  "or none",
			  spec);
		return -EINVAL;
	}
	rc = foreground_new(&l->timeline);
	if (rc < 0)
		return rc;
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = l->o->sysroot;
	cfg.dumpsys_bin = l->o->dumpsys_bin;
	cfg.status = l->status;
	cfg.loop = l->loop;
	rc = foreground_live_new(&cfg, l->timeline, &l->fgl);
	if (rc < 0)
		return rc;
	foreground_live_sample(l->fgl, loop_now_ns());
	return 0;
}

static int
start_input(struct live *l)
{
	struct input_evdev_config cfg;
	const char *spec = l->o->input;

	memset(&cfg, 0, sizeof(cfg));
	if (strncmp(spec, "evdev:", 6) == 0 && spec[6])
		cfg.device = spec + 6;
	else if (strcmp(spec, "evdev") != 0) {
		log_error(
			"unknown input '%s': evdev or evdev:/dev/input/eventN",
			spec);
		return -EINVAL;
	}
	cfg.sysroot = l->o->sysroot;
	cfg.status = l->status;
	return input_evdev_new(&cfg, &l->input);
}

static int
start_frames(struct live *l)
{
	struct frames_live_config cfg;
	const char *spec = l->o->frames;

	if (strcmp(spec, "none") == 0) {
		status_set_source(l->status, STATUS_SOURCE_FRAMES,
				  STATUS_HEALTH_NONE, "none",
				  "no frame source: taps are "
				  "frames_unavailable");
		return 0;
	}
	frames_live_config_default(&cfg);
	if (strcmp(spec, "auto") == 0)
		cfg.mode = FRAMES_LIVE_AUTO;
	else if (strcmp(spec, "ftl") == 0)
		cfg.mode = FRAMES_LIVE_FTL;
	else if (strcmp(spec, "latency") == 0)
		cfg.mode = FRAMES_LIVE_LATENCY;
	else {
		log_error("unknown frame source '%s': auto, ftl, latency or "
			  "none",
			  spec);
		return -EINVAL;
	}
	if (l->o->perfetto_bin)
		cfg.perfetto_bin = l->o->perfetto_bin;
	if (l->o->dumpsys_bin)
		cfg.dumpsys_bin = l->o->dumpsys_bin;
	if (l->o->getprop_bin)
		cfg.getprop_bin = l->o->getprop_bin;
	if (l->o->trace_dir)
		cfg.trace_dir = l->o->trace_dir;
	cfg.status = l->status;
	return frames_live_new(&cfg, &l->frames);
}

/*
 * Gesture thresholds and the px mapping: device.json for the screen and
 * density; the touch screen's own axis ranges when device.json has none.
 * The mapping is fixed at start: a different panel later keeps the first
 * one's ranges.
 */
static int
start_pipeline(struct live *l)
{
	struct gesture_axis ax, ay;
	struct device_info dev;
	int have_dev = 0, have_axes = 0;
	int rc;

	if (l->o->device) {
		rc = device_load(l->o->device, &dev);
		if (rc < 0) {
			if (rc != -EINVAL)
				log_error("cannot read '%s': %s", l->o->device,
					  strerror(-rc));
			return rc;
		}
		have_dev = 1;
	}
	if (input_evdev_axis(l->input, ABS_MT_POSITION_X, &ax.min, &ax.max) ==
		    0 &&
	    input_evdev_axis(l->input, ABS_MT_POSITION_Y, &ay.min, &ay.max) ==
		    0)
		have_axes = 1;
	pipeline_configure(&l->pcfg, &l->o->thresholds, have_dev ? &dev : NULL,
			   have_axes ? &ax : NULL, have_axes ? &ay : NULL);
	l->pcfg.store = l->store;
	l->pcfg.fg = l->timeline;
	l->pcfg.metrics = l->metrics;
	l->pcfg.events = l->events;
	l->pcfg.touch_down = on_touch_down;
	l->pcfg.ctx = l;
	rc = pipeline_new(&l->pcfg, &l->pipe);
	if (rc == 0)
		pipeline_set_wall_offset(l->pipe,
					 loop_realtime_ns() - loop_now_ns());
	return rc;
}

static int
watch(struct live *l)
{
	int rc;

	rc = loop_add_fd(l->loop, input_evdev_fd(l->input), EPOLLIN, on_input,
			 l);
	if (rc == 0 && l->frames)
		rc = loop_add_fd(l->loop, frames_live_fd(l->frames), EPOLLIN,
				 on_frames, l);
	if (rc == 0)
		rc = loop_add_fd(l->loop, control_fd(l->control), EPOLLIN,
				 on_control, l);
	if (rc == 0)
		rc = loop_add_timer(l->loop, TICK_MS, on_tick, l);
	if (rc == 0 && l->fgl)
		rc = loop_add_timer(l->loop, FOREGROUND_MS, on_foreground_timer,
				    l);
	if (rc == 0)
		rc = loop_add_timer(l->loop, WALL_MS, on_wall_timer, l);
	if (rc == 0 && l->o->retain_days > 0) {
		rc = loop_add_timer(l->loop, RETENTION_MS, on_retention_timer,
				    l);
		/* A daemon that was off for a while starts by catching up. */
		if (rc == 0)
			on_retention_timer(l);
	}
	return rc;
}

/*
 * Lets the frame source write what it has: perfetto flushes its last data
 * on SIGTERM.  Bounded, so a stuck child cannot hold the stop.
 */
static void
drain_frames(struct live *l)
{
	struct pollfd pfd;
	int64_t until = loop_now_ns() + 2000 * MS;

	if (!l->frames)
		return;
	frames_live_stop(l->frames);
	pfd.fd = frames_live_fd(l->frames);
	pfd.events = POLLIN;
	while (!frames_live_stopped(l->frames) && loop_now_ns() < until) {
		poll(&pfd, 1, 100);
		on_frames(l, 0);
	}
}

/*
 * A clean stop: no more input or frames will come, so every tap still
 * waiting is finalized with what the frame source covered (as truncated
 * where it did not cover the window), stored, committed.
 */
static int
finish(struct live *l)
{
	int64_t now;
	int rc;

	drain_frames(l);
	now = loop_now_ns();
	rc = pipeline_finish(l->pipe, frames_watermark(l), now);
	if (rc == 0)
		rc = pipeline_flush(l->pipe);
	if (rc == 0)
		rc = store_commit(l->store);
	return rc;
}

static char *
stats_json(struct live *l)
{
	struct pipeline_stats ps;
	char *s;

	pipeline_get_stats(l->pipe, &ps);
	if (asprintf(&s,
		     "{\"events\":%" PRIu64 ",\"syn_dropped\":%" PRIu64
		     ",\"tap\":%" PRIu64 ",\"long_press\":%" PRIu64
		     ",\"swipe\":%" PRIu64 ",\"multi\":%" PRIu64
		     ",\"frames\":%" PRIu64 "}",
		     ps.touch.events, ps.touch.syn_dropped,
		     ps.gestures[GESTURE_TAP], ps.gestures[GESTURE_LONG_PRESS],
		     ps.gestures[GESTURE_SWIPE], ps.gestures[GESTURE_MULTI],
		     ps.frames) < 0)
		return NULL;
	return s;
}

int
live_run(const struct live_options *o)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct live l;
	char *source = NULL, *stats = NULL;
	int64_t run_id = 0;
	int running = 0;
	int rc;

	memset(&l, 0, sizeof(l));
	l.o = o;
	l.pidfd = -1;
	l.db = o->db;
	if (o->log_file) {
		rc = log_open_file(o->log_file);
		if (rc < 0) {
			log_error("cannot open log file '%s': %s", o->log_file,
				  strerror(-rc));
			return rc;
		}
	}
	if (!l.db) {
		rc = pick_db(&l);
		if (rc < 0)
			goto out;
	}
	if (o->pidfile) {
		rc = pidfile_take(&l, o->pidfile);
		if (rc < 0)
			goto out;
	}
	rc = loop_new(&l.loop);
	if (rc < 0)
		goto out;
	/* Before any thread starts, so that they all inherit the mask. */
	rc = loop_add_signals(l.loop, sigs, 3, on_signal, &l);
	if (rc < 0)
		goto out;
	rc = store_open(l.db, 0, &l.store);
	if (rc < 0)
		goto out;
	rc = start_api(&l);
	if (rc < 0)
		goto out;
	if (l.dd && l.dd->fallback)
		status_set_source(l.status, STATUS_SOURCE_STORE,
				  STATUS_HEALTH_DEGRADED, "sqlite",
				  "using '%s': %s", l.db, l.dd->why);
	else
		status_set_source(l.status, STATUS_SOURCE_STORE,
				  STATUS_HEALTH_UP, "sqlite", "'%s'", l.db);
	rc = start_foreground(&l);
	if (rc == 0)
		rc = start_input(&l);
	if (rc == 0)
		rc = start_pipeline(&l);
	if (rc == 0)
		rc = start_frames(&l);
	if (rc < 0)
		goto out;
	if (asprintf(&source, "input=%s frames=%s foreground=%s", o->input,
		     o->frames, o->foreground) < 0) {
		source = NULL;
		rc = -ENOMEM;
		goto out;
	}
	rc = store_begin_run(l.store, "live", source, &run_id);
	if (rc < 0)
		goto out;
	running = 1;
	rc = watch(&l);
	if (rc < 0)
		goto out;
	log_info("running (run %" PRId64 ")", run_id);
	rc = loop_run(l.loop);
	if (rc < 0)
		log_error("the event loop failed: %s", strerror(-rc));
out:
	if (running) {
		int frc = finish(&l);

		if (frc < 0)
			log_error("cannot store the last taps: %s",
				  strerror(-frc));
		stats = stats_json(&l);
		store_end_run(l.store, stats);
	}
	if (l.control)
		control_shutdown(l.control);
	if (l.events)
		events_shutdown(l.events);
	api_stop(l.api);
	frames_live_free(l.frames);
	input_evdev_free(l.input);
	foreground_live_free(l.fgl);
	pipeline_free(l.pipe);
	foreground_free(l.timeline);
	metrics_free(l.metrics);
	control_free(l.control);
	events_free(l.events);
	status_free(l.status);
	store_close(l.store);
	loop_free(l.loop);
	pidfile_release(&l);
	free(l.dd);
	free(source);
	free(stats);
	return rc;
}
