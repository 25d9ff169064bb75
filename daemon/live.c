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
#include <unistd.h>

#include "api.h"
#include "attrib_live.h"
#include "control.h"
#include "datadir.h"
#include "device.h"
#include "devid.h"
#include "display_live.h"
#include "events.h"
#include "inject.h"
#include "inject_target.h"
#include "log.h"
#include "loop.h"
#include "metrics.h"
#include "pidfile.h"
#include "pipeline_measure.h"
#include "record.h"
#include "retention.h"
#include "source.h"
#include "status.h"
#include "store.h"

#define MS INT64_C(1000000)

/*
 * The loop's periods.  Nothing here wakes an idle daemon: the heartbeat
 * runs while there is something to finish (a tap waiting for its frames,
 * a gesture under way, taps held on a full disk, activity in the last
 * ACTIVE_MS) and stops once there is not; any fd event starts it again.
 */
#define TICK_MS	  100	/* finalize, commit, announce, health */
#define ACTIVE_MS 1000	/* the heartbeat runs this long after activity */
#define WALL_MS	  10000 /* REALTIME - MONOTONIC, for stepped clocks */
/*
 * The sources' own timers (the foreground sample, every second) run at
 * their period while the daemon is busy and this often when it is not: a
 * touch-down samples the foreground itself, so an idle screen needs the
 * sample only to keep /v1/health's foreground current.
 */
#define SOURCE_IDLE_MS 10000

/*
 * How far behind now the input is taken to be complete.  An event the
 * kernel stamped at t is read within milliseconds of t while the loop is
 * healthy; a window is closed only once no touch-down before its end can
 * still be unread.
 */
#define INPUT_LAG_NS (250 * MS)

struct live;

/* What an fd or timer callback needs: the daemon and the source. */
struct live_watch {
	struct live *l;
	struct source *src;
	struct loop_timer *timer; /* the source's timer, if it has one */
};

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
	/* The specs, checked before anything is opened, by role. */
	struct source_spec specs[SOURCE_ROLE_COUNT];
	struct device_info dev;
	int have_dev;
	/*
	 * The device's identity: getprop, then dumpsys display's display,
	 * then device.json's keys.
	 */
	struct devid id;
	struct devid probed;	      /* getprop's alone */
	struct display_live *display; /* NULL where dumpsys cannot run */
	/* The sources, in the order they were made. */
	struct source *src[SOURCE_ROLE_COUNT];
	struct live_watch watch[SOURCE_ROLE_COUNT];
	size_t n_src;
	struct pipeline *pipe;
	struct pipeline_config pcfg;
	struct attrib *attrib; /* NULL: taps go to the foreground */
	struct inject *inject; /* gestures written, virtual devices */
	int pidfd;
	struct retention *retention; /* NULL without --retain-days */
	struct record *rec;	     /* NULL without --record */
	struct loop_timer *tick;     /* the heartbeat, armed while busy */
	int64_t last_tick_ns;	     /* when the heartbeat last ran */
	int64_t active_ns;	     /* the last fd event, for ACTIVE_MS */
	int64_t wall_due_ns;	     /* when the wall offset is read again */
	/* The run; 0 while a full disk keeps it from being recorded. */
	int64_t run_id;
	char *source;
};

void
live_options_init(struct live_options *o)
{
	memset(o, 0, sizeof(*o));
	o->input = "evdev";
	o->frames = "auto";
	o->foreground = "auto";
	o->retain_days = 30;
	o->inject_via = -1;
	pipeline_options_init(&o->thresholds);
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

/*
 * Something happened: the heartbeat runs as soon as it may, and keeps
 * running while there is work.  After frames (a write of perfetto's, a
 * poll's answer: a few a second) it runs at once, since they are what
 * finalizes a tap; after anything else at most every TICK_MS, so that a
 * finger moving on the screen (an event every few ms) costs no more
 * heartbeats than before.
 */
static void
wake_tick(struct live *l, int now_too)
{
	int64_t now = loop_now_ns(), at = l->last_tick_ns + TICK_MS * MS;
	size_t i;

	l->active_ns = now;
	if (at < now || now_too)
		at = now;
	if (at < loop_timer_due(l->tick) && loop_timer_at(l->tick, at) < 0)
		log_warn("cannot arm the heartbeat");
	/* A source's timer slowed down while idle is back to its period. */
	for (i = 0; i < l->n_src; i++) {
		if (!l->watch[i].timer)
			continue;
		at = now + source_timer_ms(l->src[i]) * MS;
		if (at < loop_timer_due(l->watch[i].timer) &&
		    loop_timer_at(l->watch[i].timer, at) < 0)
			log_warn("cannot arm a source's timer");
	}
}

static int
on_source(void *ctx, uint32_t events)
{
	struct live_watch *w = ctx;
	int rc;

	(void)events;
	rc = source_dispatch(w->src, w->l->pipe);
	wake_tick(w->l, source_role(w->src) == SOURCE_ROLE_FRAMES);
	/* A gesture dropped on a full disk is counted by the store. */
	return rc == -ENOSPC ? 0 : rc;
}

static int
on_control(void *ctx, uint32_t events)
{
	struct live *l = ctx;

	(void)events;
	control_serve(l->control, pipeline_control, l->pipe);
	wake_tick(l, 0);
	return 0;
}

static void
on_touch_down(void *ctx, int64_t t_ns)
{
	struct live *l = ctx;
	size_t i;

	for (i = 0; i < l->n_src; i++)
		source_touch_down(l->src[i], t_ns);
}

static void
on_launch_window(void *ctx, int64_t t_up_ns, int64_t end_ns)
{
	struct live *l = ctx;
	size_t i;

	for (i = 0; i < l->n_src; i++)
		source_launch_window(l->src[i], t_up_ns, end_ns);
}

/* The lowest of the sources' watermarks; INT64_MAX without frames. */
static int64_t
frames_watermark(const struct live *l)
{
	int64_t wm = INT64_MAX, w;
	size_t i;

	for (i = 0; i < l->n_src; i++) {
		w = source_watermark(l->src[i]);
		if (w < wm)
			wm = w;
	}
	return wm;
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
	size_t i;

	pipeline_fill_status(l->pipe, sc->frames_wm, s);
	for (i = 0; i < l->n_src; i++)
		source_fill_status(l->src[i], s);
}

/*
 * What /v1/health says of the store: degraded while its disk is full (or
 * it is in the fallback place), else up.
 */
static void
report_store(struct live *l)
{
	char why[160];

	if (store_health(l->store, why, sizeof(why)))
		status_set_source(l->status, STATUS_SOURCE_STORE,
				  STATUS_HEALTH_DEGRADED, "sqlite", "'%s': %s",
				  l->db, why);
	else if (l->dd && l->dd->fallback)
		status_set_source(l->status, STATUS_SOURCE_STORE,
				  STATUS_HEALTH_DEGRADED, "sqlite",
				  "using '%s': %s", l->db, l->dd->why);
	else
		status_set_source(l->status, STATUS_SOURCE_STORE,
				  STATUS_HEALTH_UP, "sqlite", "'%s'", l->db);
}

/*
 * Records the run once the disk has room, when it was full at the start:
 * only after a write succeeded, so that a full disk is not tried more
 * than the store's own retries do.
 */
static void
begin_run_late(struct live *l)
{
	if (l->run_id || store_full(l->store))
		return;
	if (store_begin_run(l->store, "live", l->source, &l->run_id) == 0) {
		log_info("running (run %" PRId64 ")", l->run_id);
		store_run_device(l->store, &l->id);
	}
}

/*
 * Whether the heartbeat has work at its next period: a tap waiting for
 * its frames (its finalization, the idle-screen rules and the latency
 * poller are timed by it), a gesture under way, taps held on a full disk
 * or a run still to record, or an fd event in the last ACTIVE_MS (a batch
 * to commit, a source's state to report).
 */
static int
live_busy(const struct live *l, int64_t now)
{
	return pipeline_pending(l->pipe) > 0 ||
	       pipeline_gesture_in_progress(l->pipe) ||
	       store_held(l->store) > 0 || !l->run_id ||
	       now - l->active_ns < ACTIVE_MS * MS;
}

/* The heartbeat: finalize, commit, announce, tell the sources, health. */
static int
on_tick(void *ctx)
{
	struct live *l = ctx;
	struct status_ctx sc;
	int64_t now = loop_now_ns();
	size_t i;
	int rc;

	l->last_tick_ns = now;
	/* Read when taps may be finalized, not on a timer of its own. */
	if (now >= l->wall_due_ns) {
		pipeline_set_wall_offset(l->pipe,
					 loop_realtime_ns() - loop_now_ns());
		l->wall_due_ns = now + WALL_MS * MS;
	}
	sc.l = l;
	sc.frames_wm = frames_watermark(l);
	/*
	 * A tap dropped on a full disk (the store counts it) stops one
	 * pass; each pass takes one tap at least, so this ends.
	 */
	do
		rc = pipeline_advance(l->pipe, sc.frames_wm,
				      now - INPUT_LAG_NS);
	while (rc == -ENOSPC);
	begin_run_late(l);
	if (rc == 0)
		rc = pipeline_flush(l->pipe);
	if (rc == 0)
		rc = store_tick(l->store, now);
	/* A full disk is the store's to report, once, not every tick. */
	if (rc < 0 && rc != -ENOSPC)
		log_warnx("cannot store taps: %s", strerror(-rc));
	for (i = 0; i < l->n_src; i++)
		source_tick(l->src[i], l->pipe);
	/* A recording rotates between taps, never through one. */
	if (l->rec && pipeline_pending(l->pipe) == 0 &&
	    !pipeline_gesture_in_progress(l->pipe))
		record_idle(l->rec);
	inject_target_update(l->inject, l->src, l->n_src,
			     l->have_dev ? &l->dev : NULL, &l->pcfg.gesture,
			     l->attrib);
	status_update(l->status, fill_status, &sc);
	report_store(l);
	if (loop_timer_at(l->tick, live_busy(l, now) ? now + TICK_MS * MS
						     : INT64_MAX) < 0)
		log_warn("cannot arm the heartbeat");
	/* Out of memory is the one failure a daemon cannot ride out. */
	return rc == -ENOMEM ? rc : 0;
}

/*
 * A source's timer: at its period while the daemon is busy, at
 * SOURCE_IDLE_MS (or its period, when longer) otherwise.
 */
static int
on_source_timer(void *ctx)
{
	struct live_watch *w = ctx;
	int64_t now, ms = source_timer_ms(w->src);
	int rc;

	rc = source_timer(w->src);
	now = loop_now_ns();
	if (!live_busy(w->l, now) && ms < SOURCE_IDLE_MS)
		ms = SOURCE_IDLE_MS;
	if (loop_timer_at(w->timer, now + ms * MS) < 0)
		log_warn("cannot arm a source's timer");
	return rc;
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

/*
 * Every option is checked here, before anything is opened or bound: the
 * source specs, the address and token file, device.json and the
 * thresholds.
 */
static int
check_options(struct live *l)
{
	static const enum source_role roles[] = {
		SOURCE_ROLE_INPUT,
		SOURCE_ROLE_FRAMES,
		SOURCE_ROLE_FOREGROUND,
	};
	const char *specs[SOURCE_ROLE_COUNT];
	struct pipeline_config pcfg;
	size_t i;
	int rc;

	specs[SOURCE_ROLE_INPUT] = l->o->input;
	specs[SOURCE_ROLE_FRAMES] = l->o->frames;
	specs[SOURCE_ROLE_FOREGROUND] = l->o->foreground;
	for (i = 0; i < SOURCE_ROLE_COUNT; i++) {
		rc = source_parse(SOURCE_MODE_LIVE, roles[i], specs[roles[i]],
				  &l->specs[roles[i]]);
		if (rc < 0)
			return rc;
	}
	rc = api_check(l->o->listen, l->o->token_file);
	if (rc < 0)
		return rc;
	/* Injecting touches is a privilege: never without the token. */
	if (l->o->allow_inject && !l->o->token_file) {
		log_error("--allow-inject needs --token-file: any app on the "
			  "device can reach the API, loopback included");
		return -EINVAL;
	}
	if ((l->o->inject_device || l->o->inject_rate ||
	     l->o->inject_via >= 0) &&
	    !l->o->allow_inject) {
		log_error("--inject-device, --inject-rate and --inject-via go "
			  "with --allow-inject");
		return -EINVAL;
	}
	/* A given file is written itself: it has nothing to clone. */
	if (l->o->inject_device && l->o->inject_via == INJECT_VIA_UINPUT) {
		log_error("--inject-via uinput clones the touch screen, not "
			  "--inject-device '%s'",
			  l->o->inject_device);
		return -EINVAL;
	}
	if (l->o->device) {
		rc = device_load(l->o->device, &l->dev);
		if (rc < 0) {
			if (rc != -EINVAL)
				log_error("cannot read '%s': %s", l->o->device,
					  strerror(-rc));
			return rc;
		}
		l->have_dev = 1;
	}
	memset(&pcfg, 0, sizeof(pcfg));
	pipeline_configure(&pcfg, &l->o->thresholds,
			   l->have_dev ? &l->dev : NULL, NULL, NULL);
	return pipeline_check(&pcfg);
}

/*
 * The device's identity: getprop's (each property bounded by
 * DEVID_TIMEOUT_MS), then what device.json names, which the operator
 * gave on purpose.  A desktop without getprop has only device.json's.
 */
static void
identify(struct live *l)
{
	devid_clear(&l->id);
	if (devid_probe(&l->id, l->o->getprop_bin, DEVID_TIMEOUT_MS) < 0)
		log_info("no device identity from '%s'",
			 l->o->getprop_bin ? l->o->getprop_bin : "getprop");
	l->probed = l->id;
	if (l->have_dev)
		devid_from_device(&l->id, &l->dev);
}

/*
 * A reading of dumpsys display (display_live.h): its fields over
 * getprop's (its density is the one in force, ro.sf.lcd_density the
 * factory one), device.json's over both.  A change goes to /metrics and
 * /v1/health and to the run's row of run_devices.
 */
static void
on_display(void *ctx, const struct display_dump *d)
{
	struct live *l = ctx;
	struct devid id = l->probed;
	int rc;

	if (d->width > 0 && d->height > 0) {
		id.width = d->width;
		id.height = d->height;
	}
	if (d->refresh_hz > 0)
		id.refresh_hz = d->refresh_hz;
	if (d->density_dpi > 0)
		id.density_dpi = d->density_dpi;
	if (l->have_dev)
		devid_from_device(&id, &l->dev);
	if (memcmp(&id, &l->id, sizeof(id)) == 0)
		return;
	l->id = id;
	log_info("display %" PRId32 " x %" PRId32 ", %" PRId32 " Hz, %" PRId32
		 " dpi",
		 id.width, id.height, id.refresh_hz, id.density_dpi);
	metrics_set_device(l->metrics, &l->id);
	if (l->run_id && (rc = store_run_device(l->store, &l->id)) < 0 &&
	    rc != -ENOSPC)
		log_warnx("cannot record the display in '%s': %s", l->db,
			  strerror(-rc));
}

static int
start_display(struct live *l)
{
	struct display_live_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.loop = l->loop;
	cfg.dumpsys_bin = l->o->dumpsys_bin;
	cfg.on_read = on_display;
	cfg.ctx = l;
	return display_live_new(&cfg, &l->display);
}

static int
start_api(struct live *l)
{
	struct api_config cfg;
	int rc;

	struct inject_config icfg;

	memset(&icfg, 0, sizeof(icfg));
	icfg.device = l->o->inject_device;
	icfg.sysroot = l->o->sysroot;
	icfg.rate = l->o->inject_rate;
	icfg.via = l->o->inject_via >= 0 ? (enum inject_via)l->o->inject_via
					 : INJECT_VIA_AUTO;
	icfg.enabled = l->o->allow_inject;
	rc = inject_new(&icfg, &l->inject);
	if (rc == 0)
		rc = status_new("live", &l->status);
	if (rc == 0)
		rc = events_new(0, &l->events);
	if (rc == 0)
		rc = control_new(&l->control);
	if (rc == 0)
		rc = metrics_new(&l->metrics);
	if (rc == 0)
		rc = metrics_set_buckets(l->metrics, l->o->buckets);
	if (rc < 0)
		return rc;
	metrics_set_device(l->metrics, &l->id);
	api_config_default(&cfg);
	if (l->o->listen)
		cfg.listen = l->o->listen;
	cfg.token_file = l->o->token_file;
	cfg.no_ui = l->o->no_ui;
	cfg.db_path = l->db;
	cfg.status = l->status;
	cfg.events = l->events;
	cfg.control = l->control;
	cfg.metrics = l->metrics;
	cfg.inject = l->o->allow_inject ? l->inject : NULL;
	return api_bring_up(&cfg, &l->api);
}

/* Makes the source of one role and reports its health at once. */
static int
add_source(struct live *l, enum source_role role)
{
	struct source_env env;
	struct source *src = NULL;
	int rc;

	memset(&env, 0, sizeof(env));
	env.sysroot = l->o->sysroot;
	env.perfetto_bin = l->o->perfetto_bin;
	env.dumpsys_bin = l->o->dumpsys_bin;
	env.getprop_bin = l->o->getprop_bin;
	env.trace_dir = l->o->trace_dir;
	env.status = l->status;
	env.now_ns = loop_now_ns();
	env.loop = l->loop;
	env.record = l->rec;
	rc = source_create(&l->specs[role], &env, &src);
	if (rc < 0)
		return rc;
	source_report(src, l->status, 0);
	l->src[l->n_src++] = src;
	return 0;
}

/* Hit-testing through dumpsys input, where it can run (attrib_live.h). */
static int
start_attrib(struct live *l, const struct gesture_axis *ax,
	     const struct gesture_axis *ay)
{
	struct attrib_live_config cfg;
	struct hittest_axes axes;
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.loop = l->loop;
	cfg.dumpsys_bin = l->o->dumpsys_bin;
	cfg.sysroot = l->o->sysroot;
	cfg.db = l->db;
	cfg.fg = l->pcfg.fg;
	cfg.record = l->rec;
	rc = attrib_axes(l->have_dev ? &l->dev : NULL, ax, ay, &axes);
	rc = attrib_live_new(&cfg, rc == 0 ? &axes : NULL, &l->attrib);
	l->pcfg.attrib = l->attrib;
	return rc;
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
	struct device_measure measure;
	struct gesture_axis ax, ay;
	int have_axes = 0;
	size_t i;
	int rc;

	for (i = 0; i < l->n_src && !have_axes; i++)
		if (source_axis(l->src[i], ABS_MT_POSITION_X, &ax.min,
				&ax.max) == 0 &&
		    source_axis(l->src[i], ABS_MT_POSITION_Y, &ay.min,
				&ay.max) == 0)
			have_axes = 1;
	pipeline_configure(&l->pcfg, &l->o->thresholds,
			   l->have_dev ? &l->dev : NULL, have_axes ? &ax : NULL,
			   have_axes ? &ay : NULL);
	if (have_axes)
		record_set_axes(l->rec, ax.min, ax.max, ay.min, ay.max);
	/* The thresholds in effect, for a replay of the recording. */
	pipeline_measure_of(&l->pcfg, &measure);
	record_set_measure(l->rec, &measure);
	l->pcfg.store = l->store;
	for (i = 0; i < l->n_src && !l->pcfg.fg; i++)
		l->pcfg.fg = source_timeline(l->src[i]);
	rc = start_attrib(l, have_axes ? &ax : NULL, have_axes ? &ay : NULL);
	if (rc < 0)
		return rc;
	l->pcfg.metrics = l->metrics;
	l->pcfg.events = l->events;
	l->pcfg.touch_down = on_touch_down;
	l->pcfg.launch_window = on_launch_window;
	l->pcfg.ctx = l;
	l->pcfg.inject = l->inject;
	rc = pipeline_new(&l->pcfg, &l->pipe);
	if (rc == 0)
		pipeline_set_wall_offset(l->pipe,
					 loop_realtime_ns() - loop_now_ns());
	return rc;
}

/* Every source of the command line, as "starting", until it reports. */
static void
starting(struct live *l)
{
	static const enum status_source of_role[SOURCE_ROLE_COUNT] = {
		[SOURCE_ROLE_INPUT] = STATUS_SOURCE_INPUT,
		[SOURCE_ROLE_FRAMES] = STATUS_SOURCE_FRAMES,
		[SOURCE_ROLE_FOREGROUND] = STATUS_SOURCE_FOREGROUND,
	};
	size_t role;

	for (role = 0; role < SOURCE_ROLE_COUNT; role++) {
		if (!l->specs[role].kind)
			continue;
		status_set_source(l->status, of_role[role],
				  STATUS_HEALTH_DEGRADED,
				  l->specs[role].kind->name, "starting");
	}
}

/*
 * The foreground first (its first sample), then the input, whose axis
 * ranges the pipeline is configured with, then the frames, which feed
 * the pipeline.
 */
static int
start_sources(struct live *l)
{
	int rc;

	rc = add_source(l, SOURCE_ROLE_FOREGROUND);
	if (rc == 0)
		rc = add_source(l, SOURCE_ROLE_INPUT);
	if (rc == 0)
		rc = start_pipeline(l);
	if (rc == 0)
		rc = add_source(l, SOURCE_ROLE_FRAMES);
	return rc;
}

static int
watch(struct live *l)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < l->n_src; i++) {
		l->watch[i].l = l;
		l->watch[i].src = l->src[i];
		if (source_fd(l->src[i]) >= 0)
			rc = loop_add_fd(l->loop, source_fd(l->src[i]), EPOLLIN,
					 on_source, &l->watch[i]);
	}
	if (rc == 0)
		rc = loop_add_fd(l->loop, control_fd(l->control), EPOLLIN,
				 on_control, l);
	if (rc == 0)
		rc = loop_timer_new(l->loop, on_tick, l, &l->tick);
	/* The first heartbeat at once: it reports the sources' state. */
	if (rc == 0)
		rc = loop_timer_at(l->tick, loop_now_ns());
	for (i = 0; rc == 0 && i < l->n_src; i++) {
		if (source_timer_ms(l->src[i]) <= 0)
			continue;
		rc = loop_timer_new(l->loop, on_source_timer, &l->watch[i],
				    &l->watch[i].timer);
		if (rc == 0)
			rc = loop_timer_at(l->watch[i].timer,
					   loop_now_ns() +
						   source_timer_ms(l->src[i]) *
							   MS);
	}
	if (rc == 0 && l->o->retain_days > 0)
		rc = retention_new(l->loop, l->store, l->o->retain_days,
				   &l->retention);
	return rc;
}

/*
 * Lets the sources write what they have: perfetto flushes its last data
 * on SIGTERM.  Bounded, so a stuck child cannot hold the stop.
 */
static void
drain_sources(struct live *l)
{
	struct pollfd pfd[SOURCE_ROLE_COUNT];
	struct source *busy[SOURCE_ROLE_COUNT];
	int64_t until = loop_now_ns() + 2000 * MS;
	size_t i, n;

	for (i = 0; i < l->n_src; i++)
		source_stop(l->src[i]);
	while (loop_now_ns() < until) {
		for (i = 0, n = 0; i < l->n_src; i++) {
			if (source_stopped(l->src[i]))
				continue;
			busy[n] = l->src[i];
			pfd[n].fd = source_fd(l->src[i]);
			pfd[n].events = POLLIN;
			n++;
		}
		if (n == 0)
			break;
		poll(pfd, (nfds_t)n, 100);
		for (i = 0; i < n; i++)
			source_dispatch(busy[i], l->pipe);
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

	drain_sources(l);
	now = loop_now_ns();
	/* As in on_tick(): a dropped tap ends one pass, not the finish. */
	do
		rc = pipeline_finish(l->pipe, frames_watermark(l), now);
	while (rc == -ENOSPC);
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
	char *stats = NULL;
	int running = 0;
	size_t i;
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
	rc = check_options(&l);
	if (rc < 0)
		goto out;
	if (!l.db) {
		rc = pick_db(&l);
		if (rc < 0)
			goto out;
	}
	if (o->pidfile) {
		rc = pidfile_take(o->pidfile, &l.pidfd);
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
	if (rc < 0) {
		if (rc == -ENOSPC)
			log_error("cannot open the database '%s': disk full "
				  "(ENOSPC); free some space and start again",
				  l.db);
		goto out;
	}
	/*
	 * The API answers while the sources start (getprop, the first
	 * perfetto session, the first foreground sample take time on a slow
	 * device): until each reports, /v1/health says it is starting
	 * rather than not configured.
	 */
	starting(&l);
	identify(&l);
	rc = start_api(&l);
	if (rc < 0)
		goto out;
	report_store(&l);
	if (o->record) {
		struct record_config rcfg;

		memset(&rcfg, 0, sizeof(rcfg));
		rcfg.dir = o->record;
		rcfg.max_bytes = o->record_max_bytes;
		rcfg.dev = l.have_dev ? &l.dev : NULL;
		rc = record_open(&rcfg, &l.rec);
		if (rc < 0)
			goto out;
	}
	rc = start_sources(&l);
	if (rc < 0)
		goto out;
	if (asprintf(&l.source, "input=%s frames=%s foreground=%s", o->input,
		     o->frames, o->foreground) < 0) {
		l.source = NULL;
		rc = -ENOMEM;
		goto out;
	}
	/*
	 * A database that opens on a full disk still measures: the taps are
	 * held in memory, and the run is recorded once there is room.
	 */
	rc = store_begin_run(l.store, "live", l.source, &l.run_id);
	if (rc == 0)
		rc = store_run_device(l.store, &l.id);
	if (rc == -ENOSPC) {
		log_warnx("running without a run recorded in '%s': disk full "
			  "(ENOSPC); taps are held in memory until there is "
			  "room",
			  l.db);
		rc = 0;
	}
	if (rc < 0)
		goto out;
	running = 1;
	report_store(&l);
	rc = watch(&l);
	if (rc == 0)
		rc = start_display(&l);
	if (rc < 0)
		goto out;
	if (l.run_id)
		log_info("running (run %" PRId64 ")", l.run_id);
	rc = loop_run(l.loop);
	if (rc < 0)
		log_error("the event loop failed: %s", strerror(-rc));
out:
	if (running) {
		int frc = finish(&l);

		if (frc < 0 && frc != -ENOSPC)
			log_error("cannot store the last taps: %s",
				  strerror(-frc));
		stats = stats_json(&l);
		if (l.run_id)
			store_end_run(l.store, stats);
		/*
		 * On a disk still full the held taps are lost: said, and
		 * the exit status is not 0, so a supervisor sees it.
		 */
		frc = store_drain(l.store);
		if (frc < 0) {
			log_error("stopped without storing every tap in '%s': "
				  "%s",
				  l.db,
				  frc == -ENOSPC ? "disk full (ENOSPC)"
						 : strerror(-frc));
			if (rc == 0)
				rc = frc;
		}
	}
	if (l.control)
		control_shutdown(l.control);
	if (l.events)
		events_shutdown(l.events);
	api_stop(l.api);
	/* The reverse of the order they were made in. */
	for (i = l.n_src; i > 0; i--)
		source_free(l.src[i - 1]);
	pipeline_free(l.pipe);
	inject_free(l.inject);
	attrib_free(l.attrib);
	display_live_free(l.display);
	retention_free(l.retention);
	/* After the sources and the attribution, which write into it. */
	record_free(l.rec);
	metrics_free(l.metrics);
	control_free(l.control);
	events_free(l.events);
	status_free(l.status);
	store_close(l.store);
	loop_free(l.loop);
	pidfile_release(o->pidfile, l.pidfd);
	free(l.dd);
	free(l.source);
	free(stats);
	return rc;
}
