#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/input.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "api.h"
#include "attrib.h"
#include "device.h"
#include "gesture.h"
#include "log.h"
#include "pipeline.h"
#include "pipeline_measure.h"
#include "replay_int.h"
#include "replay_serve.h"
#include "source.h"
#include "store.h"
#include "touch.h"

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

int
replay_stopping(const struct replay *r)
{
	return r->opts->stop && *r->opts->stop;
}

/*
 * A paced or served replay rides out a full disk as the live daemon does:
 * its taps are held in memory and written once there is room.  A batch
 * replay stops at the limit instead, with an error.
 */
static int
holds_through_full(const struct replay *r)
{
	return r->opts->pace > 0 || r->api;
}

/*
 * The result of a step, on a full disk: a tap dropped (the store counts
 * it) is no failure while holding; a batch replay fails at once.
 */
int
replay_space(const struct replay *r, int rc)
{
	if (holds_through_full(r))
		return rc == -ENOSPC ? 0 : rc;
	if (rc == 0 && store_full(r->store))
		return -ENOSPC;
	return rc;
}

/*
 * Wall times of taps.  A paced replay is shown as it goes, so its taps
 * get the wall times at which they are replayed: its first event at the
 * start, each recorded second 1/pace s (a session started and stopped
 * meanwhile holds taps of its own time span, whatever the clock anchor
 * says).  Otherwise from the session's clock anchor when it has one, or
 * on today's clock with the last event now, so that "the last 15 minutes"
 * finds a replay just made.
 */
static void
setup_wall(struct replay *r, const struct device_info *dev, int have_dev)
{
	struct timespec rt;
	int64_t first, last, now_rt;

	if (have_dev && dev->have_clock && r->opts->pace <= 0) {
		r->have_wall = 1;
		pipeline_set_wall_offset(r->pipe,
					 dev->clock_realtime_ns -
						 dev->clock_monotonic_ns);
		r->wall_source = "the clock anchor of device.json";
		return;
	}
	if (source_time_range(r->input, &first, &last) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &rt);
	now_rt = rt.tv_sec * INT64_C(1000000000) + rt.tv_nsec;
	r->have_wall = 1;
	if (r->opts->pace > 0) {
		pipeline_set_wall_pace(r->pipe, first, now_rt, r->opts->pace);
		r->wall_source = "replay time at --pace: first event at the "
				 "start, a recorded second every 1/pace s";
	} else {
		pipeline_set_wall_offset(r->pipe, now_rt - last);
		r->wall_source =
			"replay time (no clock anchor in device.json): "
			"last event now";
	}
}

/* Which thresholds came from the recording, and which did not. */
static void
print_measure(const struct replay *r, FILE *out)
{
	char text[512];

	if (!r->measure_taken && !r->measure_kept)
		return;
	pipeline_measure_describe(r->measure_taken, &r->thresholds, text,
				  sizeof(text));
	fprintf(out, "thresholds %s%s", r->measure_taken ? "recorded: " : "",
		text);
	pipeline_measure_describe(r->measure_kept, &r->thresholds, text,
				  sizeof(text));
	if (r->measure_kept)
		fprintf(out,
			"%sfrom the command line instead of the "
			"recording's: %s",
			r->measure_taken ? "; " : "", text);
	fputc('\n', out);
}

static void
print_summary(struct replay *r, FILE *out, int64_t run_id)
{
	const struct gesture_config *g = &r->pcfg.gesture;
	struct pipeline_stats ps;
	struct attrib_stats as;
	uint64_t total = 0;
	size_t i;
	int k;

	pipeline_get_stats(r->pipe, &ps);
	for (k = 0; k < GESTURE_KIND_COUNT; k++)
		total += ps.gestures[k];
	for (i = 0; i < r->n_src; i++)
		if (source_role(r->src[i]) == SOURCE_ROLE_INPUT)
			source_print(r->src[i], out);
	fprintf(out,
		"touch      %" PRIu64 " contact%s, %" PRIu64
		" SYN_DROPPED (%" PRIu64 " events discarded), %" PRIu64
		" gestures touched by a drop\n",
		ps.touch.contacts, ps.touch.contacts == 1 ? "" : "s",
		ps.touch.syn_dropped, ps.touch.discarded, ps.dropped_gestures);
	/* Cut by the end of the log, a gesture is not stored, but said. */
	if (ps.touch.cut > 0)
		fprintf(out,
			"cut        %" PRIu64
			" contact%s still down at the end "
			"of the log (%s gesture was not stored)\n",
			ps.touch.cut, ps.touch.cut == 1 ? "" : "s",
			ps.touch.cut == 1 ? "its" : "their");
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
			g->long_press_ns / REPLAY_MS);
	else
		fprintf(out,
			"positions  raw units (no axis ranges in device.json "
			"or the log), slop %.1f raw units, long press %" PRId64
			" ms\n",
			g->slop_px, g->long_press_ns / REPLAY_MS);
	print_measure(r, out);
	for (i = 0; i < r->n_src; i++)
		if (source_role(r->src[i]) == SOURCE_ROLE_FRAMES ||
		    source_role(r->src[i]) == SOURCE_ROLE_FOREGROUND)
			source_print(r->src[i], out);
	if (r->have_wall)
		fprintf(out, "wall times %s\n", r->wall_source);
	if (ps.unattributed)
		fprintf(out, "foreground %" PRIu64 " gestures of unknown app\n",
			ps.unattributed);
	if (r->attrib) {
		attrib_get_stats(r->attrib, &as);
		fprintf(out,
			"windows    %" PRIu64 " gestures by window, %" PRIu64
			" by foreground, %" PRIu64 " on no window",
			as.decided[ATTRIB_WINDOW],
			as.decided[ATTRIB_FOREGROUND], as.decided[ATTRIB_NONE]);
		if (as.owner_unknown)
			fprintf(out, " (%" PRIu64 " of unknown owner)",
				as.owner_unknown);
		fputc('\n', out);
	}
	fprintf(out, "stored     %" PRIu64 " rows in '%s' (run %" PRId64 ")",
		store_added(r->store) - store_lost(r->store) -
			store_held(r->store),
		r->opts->db, run_id);
	if (store_held(r->store))
		fprintf(out, ", %" PRIu64 " held in memory (disk full)",
			store_held(r->store));
	if (store_lost(r->store))
		fprintf(out, ", %" PRIu64 " LOST", store_lost(r->store));
	if (store_dropped(r->store))
		fprintf(out, " (%" PRIu64 " dropped, the disk full)",
			store_dropped(r->store));
	fprintf(out, "\n\n");
	pipeline_print_apps(r->pipe, out);
}

/* The counters of the run as a JSON object, kept in the runs table. */
static char *
stats_json(struct replay *r)
{
	struct pipeline_stats ps;
	char *input, *s;

	input = source_json(r->input);
	if (!input)
		return NULL;
	pipeline_get_stats(r->pipe, &ps);
	if (asprintf(&s,
		     "{%s,\"syn_dropped\":%" PRIu64 ",\"tap\":%" PRIu64
		     ",\"long_press\":%" PRIu64 ",\"swipe\":%" PRIu64
		     ",\"multi\":%" PRIu64 "}",
		     input, ps.touch.syn_dropped, ps.gestures[GESTURE_TAP],
		     ps.gestures[GESTURE_LONG_PRESS],
		     ps.gestures[GESTURE_SWIPE],
		     ps.gestures[GESTURE_MULTI]) < 0)
		s = NULL;
	free(input);
	return s;
}

/*
 * The specs of the sources: as given, else the parts of the session
 * directory that exist.  Frames and foreground may stay NULL: none.
 */
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

/* The session's windows.log and processes.log, unless given. */
static int
resolve_lists(const struct replay_options *o, char **windows, char **procs)
{
	char *p;

	*windows = *procs = NULL;
	if (o->windows)
		*windows = strdup(o->windows);
	else if (o->session) {
		p = path_join(o->session, "windows.log");
		if (p && path_exists(p) && asprintf(windows, "log:%s", p) < 0)
			*windows = NULL;
		free(p);
	}
	if (o->processes)
		*procs = strdup(o->processes);
	else if (o->session) {
		p = path_join(o->session, "processes.log");
		if (p && path_exists(p) && asprintf(procs, "log:%s", p) < 0)
			*procs = NULL;
		free(p);
	}
	if ((o->windows && !*windows) || (o->processes && !*procs))
		return -ENOMEM;
	return 0;
}

/*
 * Every option is checked here, before the database is opened or a port
 * bound: the source specs, the address and token file, device.json.
 */
static int
check_options(struct replay *r)
{
	const struct replay_options *o = r->opts;
	int rc;

	rc = resolve_sources(o, &r->text[SOURCE_ROLE_INPUT],
			     &r->text[SOURCE_ROLE_FRAMES],
			     &r->text[SOURCE_ROLE_FOREGROUND], &r->device_path);
	if (rc == 0)
		rc = resolve_lists(o, &r->windows, &r->processes);
	if (rc < 0)
		return rc;
	rc = source_parse(SOURCE_MODE_REPLAY, SOURCE_ROLE_INPUT,
			  r->text[SOURCE_ROLE_INPUT],
			  &r->specs[SOURCE_ROLE_INPUT]);
	if (rc < 0)
		return rc;
	rc = source_parse(SOURCE_MODE_REPLAY, SOURCE_ROLE_FRAMES,
			  r->text[SOURCE_ROLE_FRAMES]
				  ? r->text[SOURCE_ROLE_FRAMES]
				  : "none",
			  &r->specs[SOURCE_ROLE_FRAMES]);
	if (rc < 0)
		return rc;
	/* Without a foreground, taps have no app: the live kind "none". */
	if (r->text[SOURCE_ROLE_FOREGROUND])
		rc = source_parse(SOURCE_MODE_REPLAY, SOURCE_ROLE_FOREGROUND,
				  r->text[SOURCE_ROLE_FOREGROUND],
				  &r->specs[SOURCE_ROLE_FOREGROUND]);
	else
		r->specs[SOURCE_ROLE_FOREGROUND].kind = &source_foreground_none;
	if (rc < 0)
		return rc;
	if (o->listen) {
		rc = api_check(o->listen, o->token_file);
		if (rc < 0)
			return rc;
	}
	if (r->device_path) {
		rc = device_load(r->device_path, &r->dev);
		if (rc < 0) {
			if (rc != -EINVAL)
				log_error("cannot read '%s': %s",
					  r->device_path, strerror(-rc));
			return rc;
		}
		r->have_dev = 1;
		devid_from_device(&r->id, &r->dev);
	}
	return 0;
}

/*
 * The window lists and their owners, for hit-testing (attrib.h), with the
 * touch panel's ranges from device.json, else from the log's own.
 */
static int
open_lists(struct replay *r, const struct gesture_axis *ax,
	   const struct gesture_axis *ay)
{
	struct hittest_axes axes;
	int rc;

	if (!r->windows)
		return 0;
	rc = attrib_axes(r->have_dev ? &r->dev : NULL, ax, ay, &axes);
	rc = attrib_new(rc == 0 ? &axes : NULL, &r->attrib);
	if (rc == 0)
		rc = attrib_open_windows(r->attrib, r->windows);
	if (rc == 0 && r->processes)
		rc = attrib_open_processes(r->attrib, r->processes);
	return rc;
}

/*
 * Opens the recordings, then sets up the pipeline's configuration from
 * device.json and the log's own "getevent -p" block, and checks it: all
 * before the database is opened.
 */
static int
open_sources(struct replay *r)
{
	static const enum source_role order[] = {
		SOURCE_ROLE_INPUT,
		SOURCE_ROLE_FOREGROUND,
		SOURCE_ROLE_FRAMES,
	};
	struct gesture_axis ax, ay;
	struct source_env env;
	int have_axes = 0;
	size_t i;
	int rc;

	memset(&env, 0, sizeof(env));
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		rc = source_create(&r->specs[order[i]], &env,
				   &r->src[r->n_src]);
		if (rc < 0)
			return rc;
		if (order[i] == SOURCE_ROLE_INPUT)
			r->input = r->src[r->n_src];
		r->n_src++;
	}
	for (i = 0; i < r->n_src && !have_axes; i++)
		if (source_axis(r->src[i], ABS_MT_POSITION_X, &ax.min,
				&ax.max) == 0 &&
		    source_axis(r->src[i], ABS_MT_POSITION_Y, &ay.min,
				&ay.max) == 0)
			have_axes = 1;
	memset(&r->pcfg, 0, sizeof(r->pcfg));
	r->thresholds = r->opts->thresholds;
	if (r->have_dev && r->dev.have_measure) {
		char text[512];

		r->measure_taken = pipeline_measure_apply(
			&r->dev.measure, &r->thresholds, &r->measure_kept);
		pipeline_measure_describe(r->measure_taken, &r->thresholds,
					  text, sizeof(text));
		log_info("thresholds of '%s': %s", r->device_path, text);
	}
	pipeline_configure(&r->pcfg, &r->thresholds,
			   r->have_dev ? &r->dev : NULL, have_axes ? &ax : NULL,
			   have_axes ? &ay : NULL);
	for (i = 0; i < r->n_src && !r->pcfg.fg; i++)
		r->pcfg.fg = source_timeline(r->src[i]);
	rc = open_lists(r, have_axes ? &ax : NULL, have_axes ? &ay : NULL);
	if (rc < 0)
		return rc;
	r->pcfg.attrib = r->attrib;
	return pipeline_check(&r->pcfg);
}

/* Reads the frame sources ahead of input_ns: the lowest watermark. */
static int
pump_frames(struct replay *r, int64_t input_ns, int64_t *frames_wm)
{
	int64_t wm;
	size_t i;
	int rc;

	*frames_wm = INT64_MAX;
	for (i = 0; i < r->n_src; i++) {
		rc = source_pump(r->src[i], r->pipe, input_ns, &wm);
		if (rc < 0)
			return rc;
		if (wm < *frames_wm)
			*frames_wm = wm;
	}
	return 0;
}

/* Reads the frame sources to their end: where the first one ends. */
static int
finish_frames(struct replay *r, int64_t *frames_end)
{
	int64_t end;
	size_t i;
	int rc;

	*frames_end = INT64_MAX;
	for (i = 0; i < r->n_src; i++) {
		rc = source_finish(r->src[i], r->pipe, &end);
		if (rc < 0)
			return rc;
		if (end < *frames_end)
			*frames_end = end;
	}
	return 0;
}

/*
 * The earliest time a source's data ends at, having gone back: 1 and
 * *cut_ns, or 0 when none did.
 */
static int
find_cut(const struct replay *r, int64_t *cut_ns)
{
	int64_t t;
	size_t i;
	int found = 0;

	for (i = 0; i < r->n_src; i++)
		if (source_cut(r->src[i], &t) == 0 && (!found || t < *cut_ns)) {
			*cut_ns = t;
			found = 1;
		}
	return found;
}

/*
 * Event time drives everything: before an input event is used, the frame
 * sources are read far enough ahead that every frame the correlator may
 * need for the taps before it is in.
 */
static int
replay_events(struct replay *r, int64_t *frames_wm)
{
	struct touch_event ev;
	struct timespec ts0;
	int64_t wall0;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts0);
	wall0 = ts0.tv_sec * INT64_C(1000000000) + ts0.tv_nsec;
	while (!replay_stopping(r) && (rc = source_next(r->input, &ev)) == 1) {
		if (r->first_input_ns == INT64_MIN)
			r->first_input_ns = ev.time_ns;
		replay_serve_pace(r, ev.time_ns, r->first_input_ns, wall0,
				  *frames_wm);
		rc = pump_frames(r,
				 ev.time_ns > r->last_input_ns
					 ? ev.time_ns
					 : r->last_input_ns,
				 frames_wm);
		if (rc < 0)
			return rc;
		/*
		 * A foreground log or frame data that went back holds up to
		 * where it did: input past it would be measured against data
		 * that is not there, or attributed to the wrong app.
		 */
		if (find_cut(r, &r->cut_ns) && ev.time_ns > r->cut_ns) {
			r->have_cut = 1;
			break;
		}
		if (ev.time_ns > r->last_input_ns)
			r->last_input_ns = ev.time_ns;
		rc = replay_space(r, pipeline_input(r->pipe, &ev));
		if (rc < 0)
			return rc;
		rc = replay_space(r, pipeline_advance(r->pipe, *frames_wm,
						      r->last_input_ns));
		if (rc < 0)
			return rc;
		rc = replay_serve_tick(r, *frames_wm);
		if (rc < 0)
			return rc;
	}
	/*
	 * Events after a bad one would be stored twice or out of order; the
	 * taps before it are finished as at the end of the input.
	 */
	if (rc < 0) {
		r->input_rc = rc;
		rc = 0;
	}
	return rc;
}

/* The end of the input: every tap still waiting is finalized. */
static int
replay_finish(struct replay *r, int64_t *frames_wm)
{
	int64_t input_end;
	int rc;

	if (replay_stopping(r)) {
		/*
		 * Stopped early: the frames read so far are all there is, and
		 * taps whose windows they do not cover are truncated.
		 */
		log_info("replay_stopping: pending taps are stored as "
			 "truncated");
		input_end = r->last_input_ns;
	} else {
		rc = finish_frames(r, frames_wm);
		if (rc < 0)
			return rc;
		/*
		 * The input was recorded as long as the frames were: no
		 * touch-down came after the last input event until the frame
		 * data ends.  Cut short, it is known up to the cut only.
		 */
		input_end = r->last_input_ns;
		if (r->have_cut) {
			if (r->cut_ns > input_end)
				input_end = r->cut_ns;
		} else if (*frames_wm > input_end) {
			input_end = *frames_wm;
		}
	}
	/* A tap dropped on a full disk ends one pass; each takes one. */
	do
		rc = replay_space(
			r, pipeline_finish(r->pipe, *frames_wm, input_end));
	while (rc == 0 && pipeline_pending(r->pipe) > 0);
	return rc;
}

int
replay_run(const struct replay_options *opts, FILE *out)
{
	struct replay r;
	char *stats = NULL, *source = NULL;
	int64_t run_id = 0, frames_wm = INT64_MIN;
	size_t i;
	int erc, rc;

	memset(&r, 0, sizeof(r));
	r.opts = opts;
	r.first_input_ns = INT64_MIN;
	r.last_input_ns = INT64_MIN;
	if (!opts->db) {
		log_error("replay needs --db PATH");
		return -EINVAL;
	}
	rc = check_options(&r);
	if (rc == 0)
		rc = open_sources(&r);
	if (rc < 0)
		goto out;
	rc = store_open(opts->db, 0, &r.store);
	if (rc < 0) {
		if (rc == -ENOSPC)
			log_error("cannot open the database '%s': disk full "
				  "(ENOSPC)",
				  opts->db);
		goto out;
	}
	/*
	 * A batch replay commits by the batch, never on the timer, and the
	 * largest batch writes the fewest commits and histogram rows.
	 */
	if (opts->pace <= 0 && !opts->listen)
		store_set_batch(r.store, STORE_HELD_MAX);
	if (opts->listen) {
		rc = replay_serve_start(&r);
		if (rc < 0)
			goto out;
	}
	r.pcfg.store = r.store;
	r.pcfg.metrics = r.metrics;
	r.pcfg.events = r.events;
	rc = pipeline_new(&r.pcfg, &r.pipe);
	if (rc < 0)
		goto out;
	if (asprintf(&source, "input=%s frames=%s foreground=%s",
		     r.text[SOURCE_ROLE_INPUT],
		     r.text[SOURCE_ROLE_FRAMES] ? r.text[SOURCE_ROLE_FRAMES]
						: "none",
		     r.text[SOURCE_ROLE_FOREGROUND]
			     ? r.text[SOURCE_ROLE_FOREGROUND]
			     : "none") < 0) {
		source = NULL;
		rc = -ENOMEM;
		goto out;
	}
	rc = store_begin_run(r.store, "replay", source, &run_id);
	if (rc == 0)
		rc = store_run_device(r.store, &r.id);
	if (rc < 0) {
		if (rc == -ENOSPC)
			log_error("cannot record the run in '%s': disk full "
				  "(ENOSPC)",
				  opts->db);
		goto out;
	}
	setup_wall(&r, &r.dev, r.have_dev);
	replay_serve_report_sources(&r, 0);
	rc = replay_events(&r, &frames_wm);
	if (rc == 0)
		rc = replay_finish(&r, &frames_wm);
	if (rc == 0) {
		replay_serve_report_sources(&r, 1);
		rc = replay_serve_tick(&r, frames_wm);
	}
	/* A replay stopped by a full disk still ends its run. */
	if (rc < 0 && rc != -ENOSPC)
		goto out;
	stats = stats_json(&r);
	erc = store_end_run(r.store, stats);
	/* Served, it holds its last taps and the end until there is room. */
	if (rc == 0 && !(erc == -ENOSPC && r.api))
		rc = erc;
	if (rc == -ENOSPC) {
		store_drain(r.store);
		log_error("cannot store the replay in '%s': disk full "
			  "(ENOSPC): %" PRIu64 " of %" PRIu64
			  " taps stored (run %" PRId64 ")",
			  opts->db, store_added(r.store) - store_lost(r.store),
			  store_added(r.store), run_id);
		goto out;
	}
	if (rc < 0)
		goto out;
	print_summary(&r, out, run_id);
	/* A recording that went back, found before or after the input's end. */
	if (r.input_rc == 0 && find_cut(&r, &r.cut_ns))
		r.input_rc = -ERANGE;
	if (r.input_rc < 0) {
		rc = r.input_rc;
		goto out;
	}
	if (r.api) {
		fprintf(out, "\nreplay done; serving until interrupted\n");
		fflush(out);
		replay_serve_until_stopped(&r, frames_wm);
		if (store_drain(r.store) < 0) {
			log_error("stopped without storing every tap in '%s': "
				  "disk full (ENOSPC)",
				  opts->db);
			rc = -ENOSPC;
		}
	}
out:
	replay_serve_stop(&r);
	pipeline_free(r.pipe);
	attrib_free(r.attrib);
	free(r.windows);
	free(r.processes);
	store_close(r.store);
	for (i = r.n_src; i > 0; i--)
		source_free(r.src[i - 1]);
	for (i = 0; i < SOURCE_ROLE_COUNT; i++)
		free(r.text[i]);
	free(stats);
	free(source);
	free(r.device_path);
	return rc < 0 ? rc : 0;
}
