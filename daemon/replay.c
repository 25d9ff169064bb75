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
#include "serve.h"
#include "status.h"
#include "store.h"
#include "tapjson.h"
#include "touch.h"

#define MS INT64_C(1000000)

/* Latencies of one app, for the summary's percentiles. */
struct app_stats {
	char *app;
	uint64_t measured; /* taps and long presses */
	uint64_t ok;
	uint64_t no_response;
	uint64_t other;	 /* truncated, frames_unavailable */
	int64_t *first;	 /* first_frame of ok taps */
	int64_t *settle; /* settle of ok taps */
	size_t n, cap;
};

/* A gesture waiting for the correlator, by the id the correlator returns. */
struct pending {
	struct gesture_record rec;
	int32_t pid;
	char *app;
};

struct replay {
	const struct replay_options *opts;
	struct getevent *input;
	struct touch *touch;
	struct gesture *gesture;
	struct correlate *corr;
	struct foreground *fg;
	struct frames_source *frames;
	struct store *store;
	struct gesture_config gcfg;

	/* With --listen: the API and what it reads. */
	struct api *api;
	struct status *status;
	struct events *events;
	struct control *control;
	struct metrics *metrics;
	int64_t session; /* open session, 0 for none */
	char **publish;	 /* JSON of taps stored, not yet committed */
	size_t npublish, cap_publish;

	/* REALTIME - MONOTONIC for the wall times of taps, if known. */
	int have_wall;
	int64_t wall_offset;
	const char *wall_source;

	/*
	 * Gestures handed to the correlator and not yet finalized:
	 * pending[head..npending), the one at head has id first_pending.
	 */
	struct pending *pending;
	size_t head, npending, cap_pending;
	uint64_t first_pending;

	uint64_t kinds[GESTURE_KIND_COUNT];
	uint64_t dropped_gestures;
	uint64_t unattributed;
	struct app_stats *apps;
	size_t napps;
	int64_t last_input_ns;
	int64_t first_input_ns;
};

void
replay_options_init(struct replay_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->slop_px = -1;
	opts->slop_dp = -1;
	opts->long_press_ns = -1;
	opts->settle_quiet_ns = -1;
	opts->settle_cap_ns = -1;
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

static struct app_stats *
app_stats_get(struct replay *r, const char *app)
{
	struct app_stats *a;
	size_t i;

	if (!app)
		app = "(unknown)";
	for (i = 0; i < r->napps; i++)
		if (strcmp(r->apps[i].app, app) == 0)
			return &r->apps[i];
	a = realloc(r->apps, (r->napps + 1) * sizeof(*a));
	if (!a)
		return NULL;
	r->apps = a;
	a = &r->apps[r->napps];
	memset(a, 0, sizeof(*a));
	a->app = strdup(app);
	if (!a->app)
		return NULL;
	r->napps++;
	return a;
}

static int
app_stats_add(struct replay *r, const char *app,
	      const struct correlate_result *res)
{
	struct app_stats *a = app_stats_get(r, app);
	int64_t *f, *s;
	size_t cap;

	if (!a)
		return -ENOMEM;
	a->measured++;
	switch (res->status) {
	case CORRELATE_OK:
		a->ok++;
		break;
	case CORRELATE_NO_RESPONSE:
		a->no_response++;
		return 0;
	default:
		a->other++;
		return 0;
	}
	if (a->n == a->cap) {
		cap = a->cap ? a->cap * 2 : 64;
		f = realloc(a->first, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		a->first = f;
		s = realloc(a->settle, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		a->settle = s;
		a->cap = cap;
	}
	a->first[a->n] = res->first_frame_ns;
	a->settle[a->n] = res->settle_ns;
	a->n++;
	return 0;
}

static const char *
status_name(enum correlate_status st)
{
	switch (st) {
	case CORRELATE_OK:
		return "ok";
	case CORRELATE_NO_RESPONSE:
		return "no_response";
	case CORRELATE_TRUNCATED:
		return "truncated";
	case CORRELATE_FRAMES_UNAVAILABLE:
		break;
	}
	return "frames_unavailable";
}

static unsigned
store_flags(unsigned gesture_flags, unsigned corr_flags)
{
	unsigned f = 0;

	if (gesture_flags & GESTURE_FLAG_INPUT_DROPPED)
		f |= STORE_FLAG_INPUT_DROPPED;
	if (corr_flags & CORRELATE_FLAG_BUSY_BEFORE)
		f |= STORE_FLAG_BUSY_BEFORE;
	if (corr_flags & CORRELATE_FLAG_SETTLE_CAPPED)
		f |= STORE_FLAG_SETTLE_CAPPED;
	if (corr_flags & CORRELATE_FLAG_INTERRUPTED)
		f |= STORE_FLAG_INTERRUPTED;
	return f;
}

static void
tap_from_record(const struct replay *r, struct store_tap *tap,
		const struct gesture_record *rec, const char *app, int32_t pid)
{
	memset(tap, 0, sizeof(*tap));
	tap->app = app;
	tap->pid = pid;
	tap->kind = gesture_kind_name(rec->kind);
	tap->status = "not_measured";
	tap->flags = store_flags(rec->flags, 0);
	tap->t_down_ns = rec->t_down_ns;
	tap->t_up_ns = rec->t_up_ns;
	tap->wall_ns = r->have_wall ? rec->t_up_ns + r->wall_offset : -1;
	tap->session = r->session;
	tap->x = rec->x;
	tap->y = rec->y;
	tap->first_frame_ns = -1;
	tap->settle_ns = -1;
}

/*
 * Stores one gesture with its response frames, counts it in the metrics,
 * and queues it for the event stream, which gets it once it is committed.
 */
static int
keep_tap(struct replay *r, const struct store_tap *tap,
	 const struct correlate_resp_frame *resp, size_t nresp)
{
	struct store_frame frames[64];
	struct store_frame *fr = nresp ? frames : NULL;
	cJSON *json = NULL;
	int64_t id = 0;
	char *text, **q;
	size_t i, cap;
	int rc;

	/* A response burst rarely has more than a few dozen frames. */
	if (nresp > sizeof(frames) / sizeof(frames[0])) {
		fr = calloc(nresp, sizeof(*fr));
		if (!fr)
			return -ENOMEM;
	}
	for (i = 0; i < nresp; i++) {
		fr[i].start_ns = resp[i].start_ns;
		fr[i].present_ns = resp[i].present_ns;
		fr[i].jank = resp[i].jank;
		fr[i].in_burst = resp[i].in_burst;
	}
	rc = store_insert(r->store, tap, fr, nresp, &id);
	if (fr && fr != frames)
		free(fr);
	if (rc < 0)
		return rc;
	if (r->metrics)
		metrics_observe_tap(r->metrics, tap);
	if (!r->events)
		return 0;
	json = tapjson_new(id, tap);
	text = json ? cJSON_PrintUnformatted(json) : NULL;
	cJSON_Delete(json);
	if (!text)
		return -ENOMEM;
	if (r->npublish == r->cap_publish) {
		cap = r->cap_publish ? r->cap_publish * 2 : 16;
		q = realloc(r->publish, cap * sizeof(*q));
		if (!q) {
			cJSON_free(text);
			return -ENOMEM;
		}
		r->publish = q;
		r->cap_publish = cap;
	}
	r->publish[r->npublish++] = text;
	return 0;
}

/* Commits what was stored and hands it to the event stream. */
static int
publish(struct replay *r)
{
	size_t i;
	int rc;

	if (r->npublish == 0)
		return 0;
	rc = store_commit(r->store);
	for (i = 0; i < r->npublish; i++) {
		/* A tap that did not reach the file is not announced. */
		if (rc == 0)
			events_publish(r->events, r->publish[i]);
		cJSON_free(r->publish[i]);
	}
	r->npublish = 0;
	return rc;
}

/*
 * The correlator finalized a tap: store it with its measurements.  Results
 * come in t_up order, the order the taps went in, so the one finalized is
 * always the oldest queued.
 */
static int
on_result(void *ctx, const struct correlate_result *res)
{
	struct replay *r = ctx;
	struct store_tap tap;
	struct pending *p;
	int rc;

	if (r->head == r->npending || res->id != r->first_pending) {
		log_error("correlator returned tap %" PRIu64 " out of order",
			  res->id);
		return -EPROTO;
	}
	p = &r->pending[r->head];
	tap_from_record(r, &tap, &p->rec, p->app, p->pid);
	tap.status = status_name(res->status);
	tap.flags = store_flags(p->rec.flags, res->flags);
	tap.first_frame_ns = res->first_frame_ns;
	tap.settle_ns = res->settle_ns;
	tap.frames = res->frames;
	tap.jank = res->jank;
	rc = keep_tap(r, &tap, res->resp, res->nresp);
	if (rc == 0)
		rc = app_stats_add(r, p->app, res);
	free(p->app);
	p->app = NULL;
	r->head++;
	r->first_pending++;
	return rc;
}

static int
queue_pending(struct replay *r, const struct gesture_record *rec,
	      const char *app, int32_t pid, uint64_t *id)
{
	struct pending *p;
	size_t cap;

	/* Reclaim the finalized front before growing. */
	if (r->head > 0 && r->npending == r->cap_pending) {
		memmove(r->pending, r->pending + r->head,
			(r->npending - r->head) * sizeof(*r->pending));
		r->npending -= r->head;
		r->head = 0;
	}
	if (r->npending == r->cap_pending) {
		cap = r->cap_pending ? r->cap_pending * 2 : 64;
		p = realloc(r->pending, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		r->pending = p;
		r->cap_pending = cap;
	}
	p = &r->pending[r->npending];
	p->rec = *rec;
	p->pid = pid;
	p->app = NULL;
	if (app) {
		p->app = strdup(app);
		if (!p->app)
			return -ENOMEM;
	}
	*id = r->first_pending + (r->npending - r->head);
	r->npending++;
	return 0;
}

static int
on_gesture(struct replay *r, const struct gesture_record *rec)
{
	const char *app = NULL;
	struct correlate_tap ct;
	struct store_tap tap;
	int32_t pid = 0;
	uint64_t id;
	int rc;

	r->kinds[rec->kind]++;
	if (rec->flags & GESTURE_FLAG_INPUT_DROPPED)
		r->dropped_gestures++;
	if (r->fg && foreground_at(r->fg, rec->t_up_ns, &pid, &app) < 0) {
		app = NULL;
		pid = 0;
	}
	if (!app)
		r->unattributed++;
	if (rec->kind != GESTURE_TAP && rec->kind != GESTURE_LONG_PRESS) {
		/* Swipes and multi-finger gestures are counted, not measured.
		 */
		tap_from_record(r, &tap, rec, app, pid);
		return keep_tap(r, &tap, NULL, 0);
	}
	rc = queue_pending(r, rec, app, pid, &id);
	if (rc < 0)
		return rc;
	memset(&ct, 0, sizeof(ct));
	ct.id = id;
	ct.t_down_ns = rec->t_down_ns;
	ct.t_up_ns = rec->t_up_ns;
	ct.pid = pid;
	ct.app = app;
	return correlate_feed_tap(r->corr, &ct);
}

static int
on_touch(void *ctx, const struct touch_point *pt)
{
	struct gesture_record rec;
	struct replay *r = ctx;
	int rc;

	if (pt->phase == TOUCH_DOWN) {
		rc = correlate_touch_down(r->corr, pt->time_ns);
		if (rc < 0)
			return rc;
	}
	rc = gesture_feed(r->gesture, pt, &rec);
	if (rc == 1)
		rc = on_gesture(r, &rec);
	return rc;
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
setup_gesture(struct replay *r, const struct device_info *dev, int have_dev)
{
	const struct replay_options *o = r->opts;
	struct getevent_axis ax, ay;
	double density;

	gesture_config_default(&r->gcfg);
	if (o->long_press_ns > 0)
		r->gcfg.long_press_ns = o->long_press_ns;
	if (have_dev && dev->have_screen && dev->have_touch) {
		r->gcfg.have_mapping = 1;
		r->gcfg.x.min = dev->x.min;
		r->gcfg.x.max = dev->x.max;
		r->gcfg.y.min = dev->y.min;
		r->gcfg.y.max = dev->y.max;
	} else if (have_dev && dev->have_screen &&
		   getevent_get_axis(r->input, ABS_MT_POSITION_X, &ax) == 0 &&
		   getevent_get_axis(r->input, ABS_MT_POSITION_Y, &ay) == 0) {
		/* The log's own "getevent -p" block gives the ranges. */
		r->gcfg.have_mapping = 1;
		r->gcfg.x.min = ax.min;
		r->gcfg.x.max = ax.max;
		r->gcfg.y.min = ay.min;
		r->gcfg.y.max = ay.max;
	}
	if (r->gcfg.have_mapping) {
		r->gcfg.width_px = dev->width;
		r->gcfg.height_px = dev->height;
	}
	/* Android's slop is 8 dp; a dp is dpi/160 px. */
	density = have_dev && dev->density_dpi > 0 ? dev->density_dpi / 160.0
						   : 1.0;
	if (o->slop_px >= 0)
		r->gcfg.slop_px = o->slop_px;
	else if (o->slop_dp >= 0)
		r->gcfg.slop_px = o->slop_dp * density;
	else
		r->gcfg.slop_px = 8.0 * density;
	if (o->slop_dp >= 0 && !(have_dev && dev->density_dpi > 0))
		log_warnx("--slop-dp without a density in device.json: "
			  "taking 160 dpi (1 dp = 1 px)");
	return gesture_new(&r->gcfg, &r->gesture);
}

static int
stopping(const struct replay *r)
{
	return r->opts->stop && *r->opts->stop;
}

/* Serves a session request of the API on this, the writer's, thread. */
static void
on_control(void *ctx, struct control_request *req)
{
	struct replay *r = ctx;

	switch (req->op) {
	case CONTROL_SESSION_START:
		/* One session at a time: taps carry a single session id. */
		if (r->session) {
			req->rc = -EALREADY;
			req->result_id = r->session;
			return;
		}
		req->rc = store_session_start(
			r->store, req->name, &req->result_id, &req->started_ns);
		if (req->rc == 0)
			r->session = req->result_id;
		break;
	case CONTROL_SESSION_STOP:
		req->rc =
			store_session_stop(r->store, req->id, &req->stopped_ns);
		req->result_id = req->id;
		if (req->rc == 0 && req->id == r->session)
			r->session = 0;
		break;
	}
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
	struct touch_stats ts;
	int k;

	getevent_get_stats(r->input, &gs);
	touch_get_stats(r->touch, &ts);
	s->input_events = ts.events;
	s->syn_dropped = ts.syn_dropped;
	s->input_lines_skipped = gs.skipped;
	for (k = 0; k < GESTURE_KIND_COUNT; k++)
		s->gestures[k] = r->kinds[k];
	frames_source_counts(r->frames, &s->frames_read, &s->packets_read,
			     &s->packets_dropped);
	s->taps_pending = correlate_pending(r->corr);
	s->taps_finalized = r->first_pending;
	s->rows_stored = store_added(r->store);
	s->rows_lost = store_lost(r->store);
	s->input_time_ns = r->last_input_ns;
	s->frames_watermark_ns = sc->frames_wm;
	/* Frames read ahead of the input are no lag at all. */
	if (sc->frames_wm == INT64_MIN || sc->frames_wm == INT64_MAX ||
	    r->last_input_ns == INT64_MIN)
		s->frames_lag_ns = -1;
	else if (sc->frames_wm >= r->last_input_ns)
		s->frames_lag_ns = 0;
	else
		s->frames_lag_ns = r->last_input_ns - sc->frames_wm;
	s->session = r->session;
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
	rc = publish(r);
	control_serve(r->control, on_control, r);
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
		status_set_source(r->status, STATUS_SOURCE_FRAMES,
				  STATUS_HEALTH_NONE, "none",
				  "no frame source: taps are "
				  "frames_unavailable");
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
	size_t i;

	if (r->control)
		control_shutdown(r->control);
	if (r->events)
		events_shutdown(r->events);
	api_stop(r->api);
	metrics_free(r->metrics);
	control_free(r->control);
	events_free(r->events);
	status_free(r->status);
	for (i = 0; i < r->npublish; i++)
		cJSON_free(r->publish[i]);
	free(r->publish);
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
	struct timespec rt, mono;
	int64_t first, last, now_rt, now_mono;

	if (have_dev && dev->have_clock) {
		r->have_wall = 1;
		r->wall_offset =
			dev->clock_realtime_ns - dev->clock_monotonic_ns;
		r->wall_source = "the clock anchor of device.json";
		return;
	}
	if (getevent_time_range(r->input, &first, &last) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	now_rt = rt.tv_sec * INT64_C(1000000000) + rt.tv_nsec;
	now_mono = mono.tv_sec * INT64_C(1000000000) + mono.tv_nsec;
	(void)now_mono;
	r->have_wall = 1;
	if (r->opts->pace > 0) {
		r->wall_offset = now_rt - first;
		r->wall_source =
			"replay time (no clock anchor in device.json): "
			"first event at the start";
	} else {
		r->wall_offset = now_rt - last;
		r->wall_source =
			"replay time (no clock anchor in device.json): "
			"last event now";
	}
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p% of values <= it. */
static double
percentile_ms(const int64_t *sorted, size_t n, unsigned p)
{
	size_t rank = (n * p + 99) / 100;

	if (rank == 0)
		rank = 1;
	return sorted[rank - 1] / 1e6;
}

static void
print_ms(FILE *out, const int64_t *v, size_t n, unsigned p)
{
	if (n == 0)
		fprintf(out, " %8s", "-");
	else
		fprintf(out, " %8.1f", percentile_ms(v, n, p));
}

static void
print_summary(struct replay *r, FILE *out, const char *input_file,
	      int64_t run_id)
{
	struct getevent_stats gs;
	struct touch_stats ts;
	struct app_stats *a;
	uint64_t total = 0;
	size_t i;
	int k;

	getevent_get_stats(r->input, &gs);
	touch_get_stats(r->touch, &ts);
	for (k = 0; k < GESTURE_KIND_COUNT; k++)
		total += r->kinds[k];
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
		ts.contacts, ts.syn_dropped, ts.discarded, r->dropped_gestures);
	fprintf(out,
		"gestures   %" PRIu64 ": %" PRIu64 " tap, %" PRIu64
		" long_press, %" PRIu64 " swipe, %" PRIu64 " multi\n",
		total, r->kinds[GESTURE_TAP], r->kinds[GESTURE_LONG_PRESS],
		r->kinds[GESTURE_SWIPE], r->kinds[GESTURE_MULTI]);
	if (r->gcfg.have_mapping)
		fprintf(out,
			"positions  display px (%dx%d), slop %.1f px, long "
			"press %" PRId64 " ms\n",
			r->gcfg.width_px, r->gcfg.height_px, r->gcfg.slop_px,
			r->gcfg.long_press_ns / MS);
	else
		fprintf(out,
			"positions  raw units (no axis ranges in device.json "
			"or the log), slop %.1f raw units, long press %" PRId64
			" ms\n",
			r->gcfg.slop_px, r->gcfg.long_press_ns / MS);
	frames_source_print(r->frames, out);
	if (r->have_wall)
		fprintf(out, "wall times %s\n", r->wall_source);
	if (r->unattributed)
		fprintf(out, "foreground %" PRIu64 " gestures of unknown app\n",
			r->unattributed);
	fprintf(out, "stored     %" PRIu64 " rows in '%s' (run %" PRId64 ")",
		store_added(r->store), r->opts->db, run_id);
	if (store_lost(r->store))
		fprintf(out, ", %" PRIu64 " LOST", store_lost(r->store));
	fprintf(out, "\n\n");
	/*
	 * Per app: gestures measured, how many had no response, how many
	 * could not be measured (truncated, frames_unavailable), and the
	 * nearest-rank percentiles of the ok ones.
	 */
	fprintf(out, "%-40s %6s %7s %6s  %-26s  %-26s\n", "", "", "", "",
		"first_frame ms", "settle ms");
	fprintf(out, "%-40s %6s %7s %6s  %8s %8s %8s  %8s %8s %8s\n", "app",
		"taps", "no_resp", "other", "p50", "p90", "p99", "p50", "p90",
		"p99");
	for (i = 0; i < r->napps; i++) {
		a = &r->apps[i];
		if (a->n > 0) {
			qsort(a->first, a->n, sizeof(*a->first), cmp_i64);
			qsort(a->settle, a->n, sizeof(*a->settle), cmp_i64);
		}
		fprintf(out, "%-40.40s %6" PRIu64 " %7" PRIu64 " %6" PRIu64 " ",
			a->app, a->measured, a->no_response, a->other);
		print_ms(out, a->first, a->n, 50);
		print_ms(out, a->first, a->n, 90);
		print_ms(out, a->first, a->n, 99);
		fprintf(out, " ");
		print_ms(out, a->settle, a->n, 50);
		print_ms(out, a->settle, a->n, 90);
		print_ms(out, a->settle, a->n, 99);
		fprintf(out, "\n");
	}
	if (r->napps == 0)
		fprintf(out, "(no taps or long presses)\n");
}

/* The counters of the run as a JSON object, kept in the runs table. */
static char *
stats_json(struct replay *r)
{
	struct getevent_stats gs;
	struct touch_stats ts;
	char *s;

	getevent_get_stats(r->input, &gs);
	touch_get_stats(r->touch, &ts);
	if (asprintf(&s,
		     "{\"lines\":%" PRIu64 ",\"skipped\":%" PRIu64
		     ",\"events\":%" PRIu64 ",\"syn_dropped\":%" PRIu64
		     ",\"tap\":%" PRIu64 ",\"long_press\":%" PRIu64
		     ",\"swipe\":%" PRIu64 ",\"multi\":%" PRIu64 "}",
		     gs.lines, gs.skipped, gs.events, ts.syn_dropped,
		     r->kinds[GESTURE_TAP], r->kinds[GESTURE_LONG_PRESS],
		     r->kinds[GESTURE_SWIPE], r->kinds[GESTURE_MULTI]) < 0)
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
	struct correlate_config ccfg;
	struct device_info dev;
	struct touch_event ev;
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
	rc = touch_new(&r.touch);
	if (rc < 0)
		goto out;
	rc = setup_gesture(&r, &dev, have_dev);
	if (rc < 0) {
		log_error("invalid gesture thresholds");
		goto out;
	}
	correlate_config_default(&ccfg);
	if (opts->settle_quiet_ns > 0)
		ccfg.settle_quiet_ns = opts->settle_quiet_ns;
	if (opts->settle_cap_ns > 0)
		ccfg.settle_cap_ns = opts->settle_cap_ns;
	rc = correlate_new(&ccfg, &r.corr);
	if (rc < 0) {
		log_error("invalid correlation thresholds");
		goto out;
	}
	rc = open_foreground(fg_spec, &r.fg);
	if (rc < 0)
		goto out;
	rc = frames_source_open(frames_spec, r.corr, &r.frames);
	if (rc < 0)
		goto out;
	rc = store_open(opts->db, 0, &r.store);
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
	if (opts->listen) {
		rc = start_api(&r);
		if (rc < 0)
			goto out;
		set_sources(&r, STATUS_HEALTH_UP, file, frames_spec, fg_spec);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	wall0 = ts0.tv_sec * INT64_C(1000000000) + ts0.tv_nsec;
	frames_wm = INT64_MIN;

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
		rc = touch_feed(r.touch, &ev, on_touch, &r);
		if (rc < 0)
			goto out;
		rc = correlate_advance(r.corr, frames_wm, r.last_input_ns,
				       on_result, &r);
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
	if (gesture_in_progress(r.gesture))
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
	rc = correlate_finish(r.corr, frames_wm, input_end, on_result, &r);
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
	store_close(r.store);
	frames_source_close(r.frames);
	foreground_free(r.fg);
	correlate_free(r.corr);
	gesture_free(r.gesture);
	touch_free(r.touch);
	getevent_free(r.input);
	for (size_t i = r.head; i < r.npending; i++)
		free(r.pending[i].app);
	free(r.pending);
	for (size_t i = 0; i < r.napps; i++) {
		free(r.apps[i].app);
		free(r.apps[i].first);
		free(r.apps[i].settle);
	}
	free(r.apps);
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
