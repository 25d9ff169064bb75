#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/input.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "api.h"
#include "control.h"
#include "correlate.h"
#include "device.h"
#include "events.h"
#include "foreground.h"
#include "frames_source.h"
#include "gesture.h"
#include "input_getevent.h"
#include "log.h"
#include "metrics.h"
#include "pipeline.h"
#include "serve.h"
#include "status.h"
#include "store.h"
#include "touch.h"

#define MS INT64_C(1000000)

struct replay {
	const struct replay_options *opts;
	struct getevent *input;
	struct foreground *fg;
	struct frames_source *frames;
	struct store *store;
	struct pipeline *pipe;
	struct pipeline_config pcfg;

	/* With --listen: the API and what it reads. */
	struct api *api;
	struct status *status;
	struct events *events;
	struct control *control;
	struct metrics *metrics;

	const char *wall_source;
	int have_wall;
	int64_t last_input_ns;
	int64_t first_input_ns;
};

void
replay_options_init(struct replay_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	pipeline_options_init(&opts->thresholds);
}

/* Joins dir and name into a new string; NULL when out of memory. */
static char *
path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static int
path_exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

/*
 * Splits "getevent:FILE@DEVICE" into its parts.  The device part is
 * recognized only as "@/dev/...", so a file name with '@' still works.
 */
static int
parse_input(const char *spec, char **file, char **device)
{
	const char *at;

	*file = NULL;
	*device = NULL;
	if (strncmp(spec, "getevent:", 9) != 0 || spec[9] == '\0') {
		log_error("unknown input '%s': replay reads "
			  "getevent:FILE[@/dev/input/eventN]",
			  spec);
		return -EINVAL;
	}
	spec += 9;
	at = strstr(spec, "@/dev/");
	*file = at ? strndup(spec, (size_t)(at - spec)) : strdup(spec);
	if (at)
		*device = strdup(at + 1);
	if (!*file || (at && !*device))
		return -ENOMEM;
	return 0;
}

static int
stopping(const struct replay *r)
{
	return r->opts->stop && *r->opts->stop;
}

struct status_ctx {
	struct replay *r;
	int64_t frames_wm;
};

static void
fill_status(struct status_snapshot *s, void *ctx)
{
	struct status_ctx *sc = ctx;
	struct replay *r = sc->r;
	struct getevent_stats gs;

	pipeline_fill_status(r->pipe, sc->frames_wm, s);
	getevent_get_stats(r->input, &gs);
	s->input_lines_skipped = gs.skipped;
	frames_source_counts(r->frames, &s->frames_read, &s->packets_read,
			     &s->packets_dropped);
}

/*
 * Between input events, with the API up: commit and announce what was
 * finalized, answer session requests, refresh the health counters.
 */
static int
serve_api(struct replay *r, int64_t frames_wm)
{
	struct status_ctx sc = {r, frames_wm};
	int rc;

	if (!r->api)
		return 0;
	rc = pipeline_flush(r->pipe);
	control_serve(r->control, pipeline_control, r->pipe);
	status_update(r->status, fill_status, &sc);
	return rc;
}

/*
 * With --pace, waits until the wall clock reaches the moment of the event
 * at t_ns, in slices short enough to answer the API and notice a stop.
 */
static void
pace_to(struct replay *r, int64_t t_ns, int64_t t0_ns, int64_t wall0_ns,
	int64_t frames_wm)
{
	struct timespec now, slice;
	int64_t due, left;

	if (r->opts->pace <= 0)
		return;
	due = wall0_ns + (int64_t)((double)(t_ns - t0_ns) / r->opts->pace);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = due - (now.tv_sec * INT64_C(1000000000) + now.tv_nsec);
		if (left <= 0 || stopping(r))
			return;
		if (left > 50 * MS)
			left = 50 * MS;
		slice.tv_sec = 0;
		slice.tv_nsec = (long)left;
		nanosleep(&slice, NULL);
		serve_api(r, frames_wm);
	}
}

/* Waits for the stop signal, answering the API meanwhile. */
static void
serve_until_stopped(struct replay *r, int64_t frames_wm)
{
	struct pollfd pfd;

	pfd.fd = control_fd(r->control);
	pfd.events = POLLIN;
	while (!stopping(r)) {
		/* A signal interrupts poll(); the flag is checked again. */
		poll(&pfd, 1, 200);
		serve_api(r, frames_wm);
	}
}

static int
start_api(struct replay *r)
{
	struct api_config cfg;
	sigset_t block, old;
	char url[300];
	int rc;

	rc = status_new("replay", &r->status);
	if (rc == 0)
		rc = events_new(0, &r->events);
	if (rc == 0)
		rc = control_new(&r->control);
	if (rc == 0)
		rc = metrics_new(&r->metrics);
	if (rc < 0)
		return rc;
	api_config_default(&cfg);
	cfg.listen = r->opts->listen;
	cfg.token_file = r->opts->token_file;
	cfg.db_path = r->opts->db;
	cfg.status = r->status;
	cfg.events = r->events;
	cfg.control = r->control;
	cfg.metrics = r->metrics;
	/*
	 * The server's threads inherit the signal mask: blocked while they
	 * start, the stop signals reach only this thread.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = api_start(&cfg, &r->api);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc < 0)
		return rc;
	serve_url(cfg.listen, api_port(r->api), url, sizeof(url));
	printf("listening on http://%s\n", url);
	fflush(stdout);
	return 0;
}

/* What /v1/health says of the sources: up while replaying, done after. */
static void
set_sources(struct replay *r, enum status_health h, const char *input,
	    const char *frames, const char *fg)
{
	status_set_source(r->status, STATUS_SOURCE_INPUT, h, "getevent", "'%s'",
			  input);
	if (frames && strcmp(frames, "none") != 0)
		status_set_source(r->status, STATUS_SOURCE_FRAMES, h,
				  strncmp(frames, "ftl:", 4) == 0 ? "ftl"
								  : "latency",
				  "'%s'", strchr(frames, ':') + 1);
	else
		status_set_source(
			r->status, STATUS_SOURCE_FRAMES, STATUS_HEALTH_NONE,
			"none", "no frame source: taps are %s",
			store_status_names[STORE_STATUS_FRAMES_UNAVAILABLE]);
	if (fg)
		status_set_source(r->status, STATUS_SOURCE_FOREGROUND,
				  STATUS_HEALTH_UP,
				  strncmp(fg, "app:", 4) == 0 ? "app" : "log",
				  "%s", strchr(fg, ':') + 1);
	else
		status_set_source(r->status, STATUS_SOURCE_FOREGROUND,
				  STATUS_HEALTH_NONE, "none",
				  "no foreground source: taps have no app");
	status_set_source(r->status, STATUS_SOURCE_STORE, STATUS_HEALTH_UP,
			  "sqlite", "'%s'", r->opts->db);
}

static void
stop_api(struct replay *r)
{
	if (r->control)
		control_shutdown(r->control);
	if (r->events)
		events_shutdown(r->events);
	api_stop(r->api);
	metrics_free(r->metrics);
	control_free(r->control);
	events_free(r->events);
	status_free(r->status);
}

/*
 * Wall times of taps: from the session's clock anchor when it has one;
 * otherwise the replay is placed on today's clock, its first event at the
 * start of a paced replay, or its last event now, so that "the last 15
 * minutes" finds a replay just made.
 */
static void
setup_wall(struct replay *r, const struct device_info *dev, int have_dev)
{
	struct timespec rt;
	int64_t first, last, now_rt;

	if (have_dev && dev->have_clock) {
		r->have_wall = 1;
		pipeline_set_wall_offset(r->pipe,
					 dev->clock_realtime_ns -
						 dev->clock_monotonic_ns);
		r->wall_source = "the clock anchor of device.json";
		return;
	}
	if (getevent_time_range(r->input, &first, &last) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &rt);
	now_rt = rt.tv_sec * INT64_C(1000000000) + rt.tv_nsec;
	r->have_wall = 1;
	if (r->opts->pace > 0) {
		pipeline_set_wall_offset(r->pipe, now_rt - first);
		r->wall_source =
			"replay time (no clock anchor in device.json): "
			"first event at the start";
	} else {
		pipeline_set_wall_offset(r->pipe, now_rt - last);
		r->wall_source =
			"replay time (no clock anchor in device.json): "
			"last event now";
	}
}

static void
print_summary(struct replay *r, FILE *out, const char *input_file,
	      int64_t run_id)
{
	const struct gesture_config *g = &r->pcfg.gesture;
	struct getevent_stats gs;
	struct pipeline_stats ps;
	uint64_t total = 0;
	int k;

	getevent_get_stats(r->input, &gs);
	pipeline_get_stats(r->pipe, &ps);
	for (k = 0; k < GESTURE_KIND_COUNT; k++)
		total += ps.gestures[k];
	fprintf(out, "input      '%s'", input_file);
	if (getevent_device(r->input)[0])
		fprintf(out, " device %s", getevent_device(r->input));
	if (getevent_device_name(r->input))
		fprintf(out, " \"%s\"", getevent_device_name(r->input));
	fprintf(out, "\n");
	fprintf(out,
		"lines      %" PRIu64 " read, %" PRIu64 " skipped, %" PRIu64
		" events of this device, %" PRIu64 " of others\n",
		gs.lines, gs.skipped, gs.events, gs.other_events);
	fprintf(out,
		"touch      %" PRIu64 " contacts, %" PRIu64
		" SYN_DROPPED (%" PRIu64 " events discarded), %" PRIu64
		" gestures touched by a drop\n",
		ps.touch.contacts, ps.touch.syn_dropped, ps.touch.discarded,
		ps.dropped_gestures);
	fprintf(out,
		"gestures   %" PRIu64 ": %" PRIu64 " tap, %" PRIu64
		" long_press, %" PRIu64 " swipe, %" PRIu64 " multi\n",
		total, ps.gestures[GESTURE_TAP],
		ps.gestures[GESTURE_LONG_PRESS], ps.gestures[GESTURE_SWIPE],
		ps.gestures[GESTURE_MULTI]);
	if (g->have_mapping)
		fprintf(out,
			"positions  display px (%dx%d), slop %.1f px, long "
			"press %" PRId64 " ms\n",
			g->width_px, g->height_px, g->slop_px,
			g->long_press_ns / MS);
	else
		fprintf(out,
			"positions  raw units (no axis ranges in device.json "
			"or the log), slop %.1f raw units, long press %" PRId64
			" ms\n",
			g->slop_px, g->long_press_ns / MS);
	frames_source_print(r->frames, out);
	if (r->have_wall)
		fprintf(out, "wall times %s\n", r->wall_source);
	if (ps.unattributed)
		fprintf(out, "foreground %" PRIu64 " gestures of unknown app\n",
			ps.unattributed);
	fprintf(out, "stored     %" PRIu64 " rows in '%s' (run %" PRId64 ")",
		store_added(r->store), r->opts->db, run_id);
	if (store_lost(r->store))
		fprintf(out, ", %" PRIu64 " LOST", store_lost(r->store));
	fprintf(out, "\n\n");
	pipeline_print_apps(r->pipe, out);
}

/* The counters of the run as a JSON object, kept in the runs table. */
static char *
stats_json(struct replay *r)
{
	struct getevent_stats gs;
	struct pipeline_stats ps;
	char *s;

	getevent_get_stats(r->input, &gs);
	pipeline_get_stats(r->pipe, &ps);
	if (asprintf(&s,
		     "{\"lines\":%" PRIu64 ",\"skipped\":%" PRIu64
		     ",\"events\":%" PRIu64 ",\"syn_dropped\":%" PRIu64
		     ",\"tap\":%" PRIu64 ",\"long_press\":%" PRIu64
		     ",\"swipe\":%" PRIu64 ",\"multi\":%" PRIu64 "}",
		     gs.lines, gs.skipped, gs.events, ps.touch.syn_dropped,
		     ps.gestures[GESTURE_TAP], ps.gestures[GESTURE_LONG_PRESS],
		     ps.gestures[GESTURE_SWIPE],
		     ps.gestures[GESTURE_MULTI]) < 0)
		return NULL;
	return s;
}

static int
resolve_sources(const struct replay_options *o, char **input, char **frames,
		char **fg, char **device)
{
	char *p;

	*input = *frames = *fg = *device = NULL;
	if (o->input)
		*input = strdup(o->input);
	else if (o->session) {
		p = path_join(o->session, "input.getevent");
		if (p && asprintf(input, "getevent:%s", p) < 0)
			*input = NULL;
		free(p);
	}
	if (!*input) {
		log_error(
			"replay needs --input getevent:FILE or --session DIR");
		return -EINVAL;
	}
	if (o->frames)
		*frames = strdup(o->frames);
	else if (o->session) {
		p = path_join(o->session, "frames.pftrace");
		if (p && path_exists(p)) {
			if (asprintf(frames, "ftl:%s", p) < 0)
				*frames = NULL;
		} else {
			free(p);
			p = path_join(o->session, "latency");
			if (p && path_exists(p) &&
			    asprintf(frames, "latency:%s", p) < 0)
				*frames = NULL;
		}
		free(p);
	}
	if (o->foreground)
		*fg = strdup(o->foreground);
	else if (o->session) {
		p = path_join(o->session, "foreground.log");
		if (p && path_exists(p) && asprintf(fg, "log:%s", p) < 0)
			*fg = NULL;
		free(p);
	}
	if (o->device)
		*device = strdup(o->device);
	else if (o->session) {
		p = path_join(o->session, "device.json");
		if (p && path_exists(p))
			*device = p;
		else
			free(p);
	}
	return 0;
}

static int
open_foreground(const char *spec, struct foreground **out)
{
	*out = NULL;
	if (!spec)
		return 0;
	if (strncmp(spec, "app:", 4) == 0 && spec[4])
		return foreground_new_static(spec + 4, out);
	if (strncmp(spec, "log:", 4) == 0 && spec[4])
		return foreground_load_log(spec + 4, out);
	log_error("unknown foreground source '%s': replay reads log:FILE or "
		  "app:PACKAGE",
		  spec);
	return -EINVAL;
}

int
replay_run(const struct replay_options *opts, FILE *out)
{
	struct replay r;
	struct pipeline_options po;
	struct device_info dev;
	struct touch_event ev;
	struct getevent_axis gx, gy;
	struct gesture_axis ax, ay;
	int have_axes = 0;
	char *input_spec = NULL, *frames_spec = NULL, *fg_spec = NULL;
	char *device_path = NULL, *file = NULL, *devnode = NULL;
	char *stats = NULL, *source = NULL;
	int64_t run_id = 0, frames_wm = INT64_MIN, input_end, wall0;
	struct timespec ts0;
	int have_dev = 0;
	int rc;

	memset(&r, 0, sizeof(r));
	r.opts = opts;
	r.first_input_ns = INT64_MIN;
	r.last_input_ns = INT64_MIN;
	if (!opts->db) {
		log_error("replay needs --db PATH");
		return -EINVAL;
	}
	rc = resolve_sources(opts, &input_spec, &frames_spec, &fg_spec,
			     &device_path);
	if (rc < 0)
		goto out;
	rc = parse_input(input_spec, &file, &devnode);
	if (rc < 0)
		goto out;
	if (device_path) {
		rc = device_load(device_path, &dev);
		if (rc < 0) {
			if (rc != -EINVAL)
				log_error("cannot read '%s': %s", device_path,
					  strerror(-rc));
			goto out;
		}
		have_dev = 1;
	}
	rc = getevent_open(file, devnode, &r.input);
	if (rc < 0)
		goto out;
	rc = open_foreground(fg_spec, &r.fg);
	if (rc < 0)
		goto out;
	rc = store_open(opts->db, 0, &r.store);
	if (rc < 0)
		goto out;
	if (opts->listen) {
		rc = start_api(&r);
		if (rc < 0)
			goto out;
	}

	po = opts->thresholds;
	/* The log's own "getevent -p" block gives the ranges, if it has one. */
	if (getevent_get_axis(r.input, ABS_MT_POSITION_X, &gx) == 0 &&
	    getevent_get_axis(r.input, ABS_MT_POSITION_Y, &gy) == 0) {
		ax.min = gx.min;
		ax.max = gx.max;
		ay.min = gy.min;
		ay.max = gy.max;
		have_axes = 1;
	}
	memset(&r.pcfg, 0, sizeof(r.pcfg));
	pipeline_configure(&r.pcfg, &po, have_dev ? &dev : NULL,
			   have_axes ? &ax : NULL, have_axes ? &ay : NULL);
	r.pcfg.store = r.store;
	r.pcfg.fg = r.fg;
	r.pcfg.metrics = r.metrics;
	r.pcfg.events = r.events;
	rc = pipeline_new(&r.pcfg, &r.pipe);
	if (rc < 0)
		goto out;
	rc = frames_source_open(frames_spec, pipeline_correlate(r.pipe),
				&r.frames);
	if (rc < 0)
		goto out;
	if (asprintf(&source, "input=%s frames=%s foreground=%s", input_spec,
		     frames_spec ? frames_spec : "none",
		     fg_spec ? fg_spec : "none") < 0) {
		source = NULL;
		rc = -ENOMEM;
		goto out;
	}
	rc = store_begin_run(r.store, "replay", source, &run_id);
	if (rc < 0)
		goto out;
	setup_wall(&r, &dev, have_dev);
	if (r.api)
		set_sources(&r, STATUS_HEALTH_UP, file, frames_spec, fg_spec);
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	wall0 = ts0.tv_sec * INT64_C(1000000000) + ts0.tv_nsec;

	/*
	 * Event time drives everything: before an input event is used, the
	 * frame source is read far enough ahead that every frame the
	 * correlator may need for the taps before it is in.
	 */
	while (!stopping(&r) && (rc = getevent_next(r.input, &ev)) == 1) {
		if (r.first_input_ns == INT64_MIN)
			r.first_input_ns = ev.time_ns;
		if (ev.time_ns > r.last_input_ns)
			r.last_input_ns = ev.time_ns;
		pace_to(&r, ev.time_ns, r.first_input_ns, wall0, frames_wm);
		rc = frames_source_pump(r.frames, r.last_input_ns, &frames_wm);
		if (rc < 0)
			goto out;
		rc = pipeline_input(r.pipe, &ev);
		if (rc < 0)
			goto out;
		rc = pipeline_advance(r.pipe, frames_wm, r.last_input_ns);
		if (rc < 0)
			goto out;
		rc = serve_api(&r, frames_wm);
		if (rc < 0)
			goto out;
	}
	if (rc < 0)
		goto out;
	/* A contact still down at the end of the log never ended: no gesture.
	 */
	if (pipeline_gesture_in_progress(r.pipe))
		log_info("a gesture was still in progress at the end of the "
			 "input");
	if (stopping(&r)) {
		/*
		 * Stopped early: the frames read so far are all there is, and
		 * taps whose windows they do not cover are truncated.
		 */
		log_info("stopping: pending taps are stored as truncated");
		input_end = r.last_input_ns;
	} else {
		rc = frames_source_finish(r.frames, &frames_wm);
		if (rc < 0)
			goto out;
		/*
		 * The input was recorded as long as the frames were: no
		 * touch-down came after the last input event until the frame
		 * data ends.
		 */
		input_end = r.last_input_ns;
		if (frames_wm > input_end)
			input_end = frames_wm;
	}
	rc = pipeline_finish(r.pipe, frames_wm, input_end);
	if (rc < 0)
		goto out;
	if (r.api)
		set_sources(&r, STATUS_HEALTH_DONE, file, frames_spec, fg_spec);
	rc = serve_api(&r, frames_wm);
	if (rc < 0)
		goto out;
	stats = stats_json(&r);
	rc = store_end_run(r.store, stats);
	if (rc < 0)
		goto out;
	print_summary(&r, out, file, run_id);
	if (r.api) {
		fprintf(out, "\nreplay done; serving until interrupted\n");
		fflush(out);
		serve_until_stopped(&r, frames_wm);
	}
out:
	stop_api(&r);
	frames_source_close(r.frames);
	pipeline_free(r.pipe);
	store_close(r.store);
	foreground_free(r.fg);
	getevent_free(r.input);
	free(stats);
	free(source);
	free(input_spec);
	free(frames_spec);
	free(fg_spec);
	free(device_path);
	free(file);
	free(devnode);
	return rc < 0 ? rc : 0;
}
