#include "pipeline.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "appsum.h"
#include "attrib.h"
#include "control.h"
#include "device.h"
#include "events.h"
#include "foreground.h"
#include "inject.h"
#include "log.h"
#include "metrics.h"
#include "status.h"
#include "store.h"
#include "tapjson.h"

/* Latencies of one app, for the summary's percentiles. */
/* A gesture waiting for the correlator, by the id the correlator returns. */
struct pending {
	struct gesture_record rec;
	int32_t pid;
	char *app;
	char *window;		 /* attrib.h: NULL for none */
	const char *attribution; /* attrib_how_name() */
	unsigned flags;		 /* STORE_FLAG_* of the injector */
};

/* A tap stored and not yet committed: its id and JSON, for the stream. */
struct publish {
	int64_t id;
	char *text;
};

struct pipeline {
	struct pipeline_config cfg;
	struct touch *touch;
	struct gesture *gesture;
	struct correlate *corr;

	/*
	 * Gestures handed to the correlator and not yet finalized:
	 * pending[head..npending), the one at head has id first_pending.
	 */
	struct pending *pending;
	size_t head, npending, cap_pending;
	uint64_t first_pending;

	int64_t session;       /* open session, 0 for none */
	int64_t last_input_ns; /* newest input event, INT64_MIN before one */
	struct touch_point first_down; /* of the gesture under way */
	int have_wall;
	int64_t wall_offset;
	/* Paced (wall_pace > 0): wall_offset + origin + (t - origin) / pace. */
	double wall_pace;
	int64_t wall_origin;

	struct publish *publish; /* taps stored, not yet committed */
	size_t npublish, cap_publish;

	struct pipeline_stats st;
	struct appsum *apps; /* the summary's table */
};

static const char *
status_name(enum correlate_status st)
{
	switch (st) {
	case CORRELATE_OK:
		return store_status_names[STORE_STATUS_OK];
	case CORRELATE_NO_RESPONSE:
		return store_status_names[STORE_STATUS_NO_RESPONSE];
	case CORRELATE_TRUNCATED:
		return store_status_names[STORE_STATUS_TRUNCATED];
	case CORRELATE_FRAMES_UNAVAILABLE:
		break;
	}
	return store_status_names[STORE_STATUS_FRAMES_UNAVAILABLE];
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
	if (corr_flags & CORRELATE_FLAG_END_FROM_LATENCY)
		f |= STORE_FLAG_END_FROM_LATENCY;
	if (corr_flags & CORRELATE_FLAG_END_UNCONFIRMED)
		f |= STORE_FLAG_END_UNCONFIRMED;
	if (corr_flags & CORRELATE_FLAG_CLOCK_ASSUMED)
		f |= STORE_FLAG_CLOCK_ASSUMED;
	if (corr_flags & CORRELATE_FLAG_START_ESTIMATED)
		f |= STORE_FLAG_START_ESTIMATED;
	if (corr_flags & CORRELATE_FLAG_PRESENT_ESTIMATED)
		f |= STORE_FLAG_PRESENT_ESTIMATED;
	if (corr_flags & CORRELATE_FLAG_LAUNCH)
		f |= STORE_FLAG_LAUNCH;
	if (corr_flags & CORRELATE_FLAG_NAVIGATION)
		f |= STORE_FLAG_NAVIGATION;
	return f;
}

/*
 * The wall time of t_ns: the clock anchor's REALTIME - MONOTONIC added
 * with an overflow check, since a replay's anchor comes from a file.  A
 * result outside [0, INT64_MAX] (before 1970, or past 2262) says the
 * anchor does not belong to the recording: an error naming it, not a
 * tap the store would refuse for its own wall time.
 */
static int
wall_time(const struct pipeline *p, const char *kind, int64_t t_ns,
	  int64_t *out)
{
	int64_t w;
	int over;

	if (!p->have_wall) {
		*out = -1;
		return 0;
	}
	if (p->wall_pace > 0) {
		double d = (double)(t_ns - p->wall_origin) / p->wall_pace;

		/* Within int64 by far: a replay spans days, not centuries. */
		if (d > 9e18 || d < -9e18)
			t_ns = d > 0 ? INT64_MAX : INT64_MIN;
		else
			t_ns = p->wall_origin + (int64_t)d;
	}
	over = __builtin_add_overflow(t_ns, p->wall_offset, &w);
	if (!over && w >= 0) {
		*out = w;
		return 0;
	}
	log_error("cannot give the %s at %" PRId64 " ns a wall time: the "
		  "clock anchor (REALTIME - MONOTONIC = %" PRId64
		  " ns; in a replay, the clock anchor of device.json, or "
		  "today's clock without one) puts it %s",
		  kind, t_ns, p->wall_offset,
		  over && t_ns > 0 ? "past 2262" : "before 1970");
	return -EINVAL;
}

static int
tap_from_record(const struct pipeline *p, struct store_tap *tap,
		const struct gesture_record *rec, const char *app, int32_t pid)
{
	memset(tap, 0, sizeof(*tap));
	tap->app = app;
	tap->pid = pid;
	tap->kind = gesture_kind_name(rec->kind);
	tap->status = store_status_names[STORE_STATUS_NOT_MEASURED];
	tap->flags = store_flags(rec->flags, 0);
	tap->t_down_ns = rec->t_down_ns;
	tap->t_up_ns = rec->t_up_ns;
	tap->session = p->session;
	tap->x = rec->x;
	tap->y = rec->y;
	tap->first_frame_ns = -1;
	tap->settle_ns = -1;
	tap->launch_first_frame_ns = -1;
	tap->launch_settle_ns = -1;
	return wall_time(p, tap->kind, rec->t_up_ns, &tap->wall_ns);
}

/*
 * Stores one gesture with its response frames, counts it in the metrics,
 * and queues it for the event stream, which gets it once it is committed.
 */
static int
keep_tap(struct pipeline *p, const struct store_tap *tap,
	 const struct correlate_resp_frame *resp, size_t nresp)
{
	struct store_frame frames[64];
	struct store_frame *fr = nresp ? frames : NULL;
	cJSON *json = NULL;
	int64_t id = 0;
	struct publish *q;
	size_t i, cap;
	char *text;
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
	rc = store_insert(p->cfg.store, tap, fr, nresp, &id);
	if (fr && fr != frames)
		free(fr);
	if (rc < 0)
		return rc;
	if (p->cfg.metrics)
		metrics_observe_tap(p->cfg.metrics, tap);
	if (!p->cfg.events)
		return 0;
	json = tapjson_new(id, tap);
	text = json ? cJSON_PrintUnformatted(json) : NULL;
	cJSON_Delete(json);
	if (!text)
		return -ENOMEM;
	if (p->npublish == p->cap_publish) {
		cap = p->cap_publish ? p->cap_publish * 2 : 16;
		q = realloc(p->publish, cap * sizeof(*q));
		if (!q) {
			cJSON_free(text);
			return -ENOMEM;
		}
		p->publish = q;
		p->cap_publish = cap;
	}
	p->publish[p->npublish].id = id;
	p->publish[p->npublish].text = text;
	p->npublish++;
	return 0;
}

int
pipeline_flush(struct pipeline *p)
{
	size_t i;
	int rc;

	if (p->npublish == 0)
		return 0;
	rc = store_commit(p->cfg.store);
	/*
	 * On a full disk the store holds the taps, ids and all, and writes
	 * them later: they are announced once a commit succeeds.
	 */
	if (rc == -ENOSPC)
		return rc;
	for (i = 0; i < p->npublish; i++) {
		/* A tap that did not reach the file is not announced. */
		if (rc == 0)
			events_publish(p->cfg.events, p->publish[i].id,
				       p->publish[i].text);
		cJSON_free(p->publish[i].text);
	}
	p->npublish = 0;
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
	struct pipeline *p = ctx;
	struct store_tap tap;
	struct pending *q;
	int rc;

	if (p->head == p->npending || res->id != p->first_pending) {
		log_error("correlator returned tap %" PRIu64 " out of order",
			  res->id);
		return -EPROTO;
	}
	q = &p->pending[p->head];
	rc = tap_from_record(p, &tap, &q->rec, q->app, q->pid);
	tap.window = q->window;
	tap.attribution = q->attribution;
	if (rc == 0) {
		tap.status = status_name(res->status);
		tap.flags = store_flags(q->rec.flags, res->flags) | q->flags;
		tap.first_frame_ns = res->first_frame_ns;
		tap.settle_ns = res->settle_ns;
		tap.frames = res->frames;
		tap.jank = res->jank;
		tap.jank_tags = res->jank_tags;
		tap.target_app = res->target_app;
		tap.target_activity = res->target_activity;
		tap.launch_first_frame_ns = res->launch_first_frame_ns;
		tap.launch_settle_ns = res->launch_settle_ns;
		rc = keep_tap(p, &tap, res->resp, res->nresp);
	}
	if (rc == 0)
		rc = appsum_tap(p->apps, q->app, res->status,
				res->first_frame_ns, res->settle_ns,
				res->launch_first_frame_ns);
	free(q->app);
	q->app = NULL;
	free(q->window);
	q->window = NULL;
	p->head++;
	p->first_pending++;
	p->st.finalized++;
	return rc;
}

static int
queue_pending(struct pipeline *p, const struct gesture_record *rec,
	      const struct attrib_result *ar, uint64_t *id)
{
	const char *app = ar->app;
	int32_t pid = ar->pid;
	struct pending *q;
	size_t cap;

	/* Reclaim the finalized front before growing. */
	if (p->head > 0 && p->npending == p->cap_pending) {
		memmove(p->pending, p->pending + p->head,
			(p->npending - p->head) * sizeof(*p->pending));
		p->npending -= p->head;
		p->head = 0;
	}
	if (p->npending == p->cap_pending) {
		cap = p->cap_pending ? p->cap_pending * 2 : 64;
		q = realloc(p->pending, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		p->pending = q;
		p->cap_pending = cap;
	}
	q = &p->pending[p->npending];
	q->rec = *rec;
	q->pid = pid;
	q->app = NULL;
	q->window = NULL;
	q->attribution = attrib_how_name(ar->how);
	if (app) {
		q->app = strdup(app);
		if (!q->app)
			return -ENOMEM;
	}
	if (ar->window) {
		q->window = strdup(ar->window);
		if (!q->window) {
			free(q->app);
			q->app = NULL;
			return -ENOMEM;
		}
	}
	*id = p->first_pending + (p->npending - p->head);
	p->npending++;
	return 0;
}

static int
on_gesture(struct pipeline *p, const struct gesture_record *rec)
{
	struct attrib_result ar;
	const char *app = NULL;
	struct correlate_tap ct;
	struct store_tap tap;
	int32_t pid = 0;
	unsigned flags;
	uint64_t id;
	int rc;

	/* Whether tapd wrote it, from its first contact and its end. */
	flags = inject_flags(p->cfg.inject, &p->first_down, rec->t_up_ns);
	p->st.gestures[rec->kind]++;
	if (rec->flags & GESTURE_FLAG_INPUT_DROPPED)
		p->st.dropped_gestures++;
	if (p->cfg.fg &&
	    foreground_at(p->cfg.fg, rec->t_up_ns, &pid, &app) < 0) {
		app = NULL;
		pid = 0;
	}
	/* The owner of the window hit, when a window list tells. */
	attrib_decide(p->cfg.attrib, rec->t_up_ns, pid, app, &ar);
	app = ar.app;
	pid = ar.pid;
	if (!app)
		p->st.unattributed++;
	if (rec->kind != GESTURE_TAP && rec->kind != GESTURE_LONG_PRESS) {
		/* Swipes and multi-finger gestures are counted, not measured.
		 */
		if (appsum_gesture(p->apps, app) < 0)
			return -ENOMEM;
		rc = tap_from_record(p, &tap, rec, app, pid);
		tap.window = ar.window;
		tap.attribution = attrib_how_name(ar.how);
		tap.flags |= flags;
		return rc < 0 ? rc : keep_tap(p, &tap, NULL, 0);
	}
	rc = queue_pending(p, rec, &ar, &id);
	if (rc < 0)
		return rc;
	p->pending[p->npending - 1].flags = flags;
	memset(&ct, 0, sizeof(ct));
	ct.id = id;
	ct.t_down_ns = rec->t_down_ns;
	ct.t_up_ns = rec->t_up_ns;
	ct.pid = pid;
	ct.app = app;
	if (p->cfg.launch_window && p->cfg.correlate.launch_cap_ns > 0 &&
	    rec->t_up_ns <= INT64_MAX - p->cfg.correlate.launch_cap_ns)
		p->cfg.launch_window(p->cfg.ctx, rec->t_up_ns,
				     rec->t_up_ns +
					     p->cfg.correlate.launch_cap_ns);
	return correlate_feed_tap(p->corr, &ct);
}

static int
on_touch(void *ctx, const struct touch_point *pt)
{
	struct gesture_record rec;
	struct pipeline *p = ctx;
	int rc;

	inject_observe(p->cfg.inject, pt);
	if (pt->phase == TOUCH_DOWN) {
		if (!gesture_in_progress(p->gesture))
			p->first_down = *pt;
		if (p->cfg.touch_down)
			p->cfg.touch_down(p->cfg.ctx, pt->time_ns);
		/*
		 * The first contact's down point is the one hit-tested, after
		 * the foreground sampled at this touch-down, which tells the
		 * live attribution whether its list still holds.
		 */
		if (!gesture_in_progress(p->gesture))
			attrib_down(p->cfg.attrib, pt->time_ns, pt->x, pt->y);
		rc = correlate_touch_down(p->corr, pt->time_ns);
		if (rc < 0)
			return rc;
	}
	rc = gesture_feed(p->gesture, pt, &rec);
	if (rc == 1)
		rc = on_gesture(p, &rec);
	return rc;
}

void
pipeline_options_init(struct pipeline_options *o)
{
	memset(o, 0, sizeof(*o));
	o->slop_px = -1;
	o->slop_dp = -1;
	o->launch_cap_ns = -1;
	o->busy_before_ns = -1;
	o->frame_latency_ns = -1;
}

void
pipeline_configure(struct pipeline_config *cfg,
		   const struct pipeline_options *o,
		   const struct device_info *dev, const struct gesture_axis *ax,
		   const struct gesture_axis *ay)
{
	struct gesture_config *g = &cfg->gesture;
	double density;

	gesture_config_default(g);
	correlate_config_default(&cfg->correlate);
	if (o->long_press_ns > 0)
		g->long_press_ns = o->long_press_ns;
	if (o->settle_quiet_ns > 0)
		cfg->correlate.settle_quiet_ns = o->settle_quiet_ns;
	if (o->settle_cap_ns > 0)
		cfg->correlate.settle_cap_ns = o->settle_cap_ns;
	if (o->launch_cap_ns >= 0)
		cfg->correlate.launch_cap_ns = o->launch_cap_ns;
	if (o->busy_before_ns >= 0)
		cfg->correlate.busy_before_ns = o->busy_before_ns;
	if (o->frame_latency_ns >= 0)
		cfg->correlate.frame_latency_ns = o->frame_latency_ns;
	if (dev && dev->have_screen && dev->have_touch) {
		g->have_mapping = 1;
		g->x.min = dev->x.min;
		g->x.max = dev->x.max;
		g->y.min = dev->y.min;
		g->y.max = dev->y.max;
	} else if (dev && dev->have_screen && ax && ay) {
		/* The input device's own ranges (getevent -p, evdev). */
		g->have_mapping = 1;
		g->x = *ax;
		g->y = *ay;
	}
	if (g->have_mapping) {
		g->width_px = dev->width;
		g->height_px = dev->height;
	}
	/* Android's slop is 8 dp; a dp is dpi/160 px. */
	density = dev && dev->density_dpi > 0 ? dev->density_dpi / 160.0 : 1.0;
	if (o->slop_px >= 0)
		g->slop_px = o->slop_px;
	else if (o->slop_dp >= 0)
		g->slop_px = o->slop_dp * density;
	else
		g->slop_px = 8.0 * density;
	if (o->slop_dp >= 0 && !(dev && dev->density_dpi > 0))
		log_warnx("--slop-dp without a density in device.json: "
			  "taking 160 dpi (1 dp = 1 px)");
}

int
pipeline_check(const struct pipeline_config *cfg)
{
	struct correlate *corr = NULL;
	struct gesture *g = NULL;
	int rc;

	/* The same checks as pipeline_new(), with nothing kept. */
	rc = gesture_new(&cfg->gesture, &g);
	if (rc < 0) {
		if (rc == -EINVAL)
			log_error("invalid gesture thresholds");
		goto out;
	}
	rc = correlate_new(&cfg->correlate, &corr);
	if (rc == -EINVAL)
		log_error("invalid correlation thresholds");
out:
	correlate_free(corr);
	gesture_free(g);
	return rc;
}

int
pipeline_new(const struct pipeline_config *cfg, struct pipeline **out)
{
	struct pipeline *p;
	int rc;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	p->last_input_ns = INT64_MIN;
	rc = appsum_new(&p->apps);
	if (rc == 0)
		rc = touch_new(&p->touch);
	if (rc < 0)
		goto out;
	rc = gesture_new(&cfg->gesture, &p->gesture);
	if (rc < 0) {
		log_error("invalid gesture thresholds");
		goto out;
	}
	rc = correlate_new(&cfg->correlate, &p->corr);
	if (rc < 0) {
		log_error("invalid correlation thresholds");
		goto out;
	}
	/* The foreground's switches make launches and navigations. */
	correlate_set_foreground(p->corr, cfg->fg);
out:
	if (rc < 0) {
		pipeline_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void
pipeline_free(struct pipeline *p)
{
	size_t i;

	if (!p)
		return;
	correlate_free(p->corr);
	gesture_free(p->gesture);
	touch_free(p->touch);
	for (i = p->head; i < p->npending; i++) {
		free(p->pending[i].app);
		free(p->pending[i].window);
	}
	free(p->pending);
	for (i = 0; i < p->npublish; i++)
		cJSON_free(p->publish[i].text);
	free(p->publish);
	appsum_free(p->apps);
	free(p);
}

int
pipeline_input(struct pipeline *p, const struct touch_event *ev)
{
	if (ev->time_ns > p->last_input_ns)
		p->last_input_ns = ev->time_ns;
	return touch_feed(p->touch, ev, on_touch, p);
}

int
pipeline_input_lost(struct pipeline *p, int64_t t_ns)
{
	return touch_flush(p->touch, t_ns, on_touch, p);
}

int
pipeline_frame(struct pipeline *p, const struct correlate_frame *f)
{
	p->st.frames++;
	return correlate_feed_frame(p->corr, f);
}

void
pipeline_set_coverage(struct pipeline *p, int64_t start_ns)
{
	correlate_set_coverage(p->corr, start_ns);
}

struct correlate *
pipeline_correlate(struct pipeline *p)
{
	return p->corr;
}

void
pipeline_set_wall_offset(struct pipeline *p, int64_t offset_ns)
{
	p->have_wall = 1;
	p->wall_offset = offset_ns;
	p->wall_pace = 0;
}

void
pipeline_set_wall_pace(struct pipeline *p, int64_t origin_ns, int64_t wall0_ns,
		       double pace)
{
	p->have_wall = 1;
	p->wall_pace = pace;
	p->wall_origin = origin_ns;
	p->wall_offset = wall0_ns - origin_ns;
}

int
pipeline_advance(struct pipeline *p, int64_t frames_wm, int64_t input_wm)
{
	return correlate_advance(p->corr, frames_wm, input_wm, on_result, p);
}

int
pipeline_expire(struct pipeline *p, int64_t complete_ns, unsigned flags)
{
	return correlate_expire(p->corr, complete_ns, flags, on_result, p);
}

int64_t
pipeline_quiet_deadline(const struct pipeline *p)
{
	return correlate_quiet_deadline(p->corr);
}

int
pipeline_finish(struct pipeline *p, int64_t frames_end, int64_t input_end)
{
	unsigned cut = touch_end(p->touch);

	gesture_cancel(p->gesture);
	/* A gesture cut by the end of the input is not stored, but told. */
	if (cut > 0)
		log_warnx("%u contact%s still down at the end of the input: "
			  "%s gesture never ended and is not stored",
			  cut, cut == 1 ? "" : "s", cut == 1 ? "its" : "their");
	return correlate_finish(p->corr, frames_end, input_end, on_result, p);
}

void
pipeline_control(void *ctx, struct control_request *req)
{
	struct pipeline *p = ctx;

	switch (req->op) {
	case CONTROL_SESSION_START:
		/* One session at a time: taps carry a single session id. */
		if (p->session) {
			req->rc = -EALREADY;
			req->result_id = p->session;
			return;
		}
		req->rc =
			store_session_start(p->cfg.store, req->name,
					    &req->result_id, &req->started_ns);
		if (req->rc == 0)
			p->session = req->result_id;
		break;
	case CONTROL_SESSION_STOP:
		req->rc = store_session_stop(p->cfg.store, req->id,
					     &req->stopped_ns);
		req->result_id = req->id;
		if (req->rc == 0 && req->id == p->session)
			p->session = 0;
		break;
	}
}

int64_t
pipeline_session(const struct pipeline *p)
{
	return p->session;
}

int
pipeline_gesture_in_progress(const struct pipeline *p)
{
	return gesture_in_progress(p->gesture);
}

unsigned
pipeline_pending(const struct pipeline *p)
{
	return correlate_pending(p->corr);
}

size_t
pipeline_pending_apps(const struct pipeline *p, const char **apps, size_t max)
{
	size_t i, j, n = 0;

	for (i = p->head; i < p->npending && n < max; i++) {
		if (!p->pending[i].app)
			continue;
		for (j = 0; j < n; j++)
			if (strcmp(apps[j], p->pending[i].app) == 0)
				break;
		if (j == n)
			apps[n++] = p->pending[i].app;
	}
	return n;
}

void
pipeline_get_stats(const struct pipeline *p, struct pipeline_stats *st)
{
	*st = p->st;
	touch_get_stats(p->touch, &st->touch);
}

void
pipeline_fill_status(const struct pipeline *p, int64_t frames_wm,
		     struct status_snapshot *s)
{
	struct touch_stats ts;
	int k;

	touch_get_stats(p->touch, &ts);
	s->input_events = ts.events;
	s->syn_dropped = ts.syn_dropped;
	s->contacts_cut = ts.cut;
	for (k = 0; k < GESTURE_KIND_COUNT; k++)
		s->gestures[k] = p->st.gestures[k];
	s->frames_read = p->st.frames;
	s->taps_pending = correlate_pending(p->corr);
	s->taps_finalized = p->st.finalized;
	s->rows_stored = store_added(p->cfg.store);
	s->rows_lost = store_lost(p->cfg.store);
	s->session = p->session;
	s->input_time_ns = p->last_input_ns;
	s->frames_watermark_ns = frames_wm;
	/* Frames read ahead of the input are no lag at all. */
	if (frames_wm == INT64_MIN || frames_wm == INT64_MAX ||
	    p->last_input_ns == INT64_MIN)
		s->frames_lag_ns = -1;
	else if (frames_wm >= p->last_input_ns)
		s->frames_lag_ns = 0;
	else
		s->frames_lag_ns = p->last_input_ns - frames_wm;
}

void
pipeline_print_apps(struct pipeline *p, FILE *out)
{
	appsum_print(p->apps, out);
}
