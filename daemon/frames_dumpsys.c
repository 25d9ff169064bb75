#include "frames_dumpsys.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "correlate.h"
#include "frames_latency.h"
#include "loop.h"
#include "record.h"

#define MS_NS INT64_C(1000000)

/* Room kept for a child's last line on stderr, in messages. */
#define ERRLINE_MAX 160

/* Latency trackers kept, least recently polled evicted first. */
#define TRACKERS_MAX 64

struct tracked {
	struct frames_latency_tracker *t;
	uint64_t used;
};

enum lat_state {
	LAT_IDLE,
	LAT_LIST,
	LAT_LAYER,
};

struct latency_poller {
	enum lat_state state;
	struct child *ch; /* the dumpsys of this step, or NULL */
	int64_t capture_ns;
	int64_t cycle_start_ns;
	int64_t next_poll_ns;
	char *layers[FRAMES_LIVE_LAYERS_MAX];
	size_t nlayers, ilayer;
	int64_t cycle_wm;
	int cycle_has_wm;
	int cycle_failed;
	unsigned cycle_snaps, cycle_zero_snaps;
	char problem[ERRLINE_MAX + 64];
	int down;
	struct tracked trackers[TRACKERS_MAX];
	uint64_t clock;
	char *wanted[FRAMES_LIVE_WANTED_MAX];
	size_t nwanted;
	int pending;
};

struct frames_dumpsys {
	struct frames_live_config cfg; /* its strings are the owner's */
	char *bin;		       /* cfg.dumpsys_bin, as argv[0] */
	struct child_set *cs;
	struct frames_live_stats *st;
	int64_t wm;
	int stopping;
	struct latency_poller lat;
	/* The health of the last cycle, until frames_dumpsys_health(). */
	int health_new;
	enum status_health health;
	char detail[sizeof(((struct status_source_state *)0)->detail)];
};

static void
release(struct latency_poller *lp)
{
	child_free(lp->ch);
	lp->ch = NULL;
}

static void
lat_clear_layers(struct latency_poller *lp)
{
	size_t i;

	for (i = 0; i < lp->nlayers; i++)
		free(lp->layers[i]);
	lp->nlayers = 0;
	lp->ilayer = 0;
}

static struct frames_latency_tracker *
lat_tracker(struct latency_poller *lp, const char *name)
{
	struct tracked *t, *lru = NULL;
	size_t i;

	for (i = 0; i < TRACKERS_MAX; i++) {
		t = &lp->trackers[i];
		if (t->t &&
		    strcmp(frames_latency_tracker_layer(t->t), name) == 0) {
			t->used = ++lp->clock;
			return t->t;
		}
		if (!lru || !t->t || (lru->t && t->used < lru->used))
			lru = t;
	}
	frames_latency_tracker_free(lru->t);
	lru->t = NULL;
	if (frames_latency_tracker_new(name, &lru->t) < 0)
		return NULL;
	lru->used = ++lp->clock;
	return lru->t;
}

struct lat_emit {
	struct frames_dumpsys *fl;
	frames_live_cb cb;
	void *ctx;
};

static int
on_lat_frame(void *arg, const struct frames_latency_frame *f)
{
	struct lat_emit *e = arg;
	struct correlate_frame cf;

	frames_latency_frame_to_correlate(f, &cf);
	e->fl->st->frames++;
	return e->cb(e->ctx, &cf);
}

static void lat_problem(struct latency_poller *lp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
lat_problem(struct latency_poller *lp, const char *fmt, ...)
{
	va_list ap;

	if (lp->problem[0])
		return; /* the first problem of a cycle is reported */
	va_start(ap, fmt);
	vsnprintf(lp->problem, sizeof(lp->problem), fmt, ap);
	va_end(ap);
}

static void
lat_end_cycle(struct frames_dumpsys *fl)
{
	struct latency_poller *lp = &fl->lat;

	if (lp->cycle_snaps > 0 && lp->cycle_zero_snaps == lp->cycle_snaps)
		lat_problem(lp,
			    "dumpsys SurfaceFlinger --latency printed only "
			    "zero rows, for all %u layers of the tapped apps",
			    lp->cycle_snaps);
	if (!lp->cycle_failed && lp->cycle_wm != INT64_MIN &&
	    lp->cycle_wm > fl->wm)
		fl->wm = lp->cycle_wm;
	fl->health_new = 1;
	if (lp->down) {
		fl->health = STATUS_HEALTH_DOWN;
		snprintf(fl->detail, sizeof(fl->detail), "%s", lp->problem);
	} else if (lp->problem[0]) {
		fl->health = STATUS_HEALTH_DEGRADED;
		snprintf(fl->detail, sizeof(fl->detail), "%s", lp->problem);
	} else {
		fl->health = STATUS_HEALTH_UP;
		snprintf(fl->detail, sizeof(fl->detail),
			 "dumpsys SurfaceFlinger --latency, %zu layers",
			 lp->nlayers);
	}
	lat_clear_layers(lp);
	lp->state = LAT_IDLE;
	lp->next_poll_ns = lp->cycle_start_ns + fl->cfg.poll_ms * MS_NS;
}

/* Starts `dumpsys SurfaceFlinger <arg> [layer]`; the cycle fails if not. */
static int
lat_spawn(struct frames_dumpsys *fl, char *arg, char *layer, size_t out_max)
{
	struct latency_poller *lp = &fl->lat;
	struct child_spec spec;
	char *argv[5], why[ERRLINE_MAX];
	int rc;

	argv[0] = fl->bin;
	argv[1] = (char *)"SurfaceFlinger";
	argv[2] = arg;
	argv[3] = layer;
	argv[4] = NULL;
	lp->capture_ns = loop_now_ns();
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.out_max = out_max;
	spec.timeout_ms = fl->cfg.child_timeout_ms;
	rc = child_spawn(fl->cs, &spec, &lp->ch, why, sizeof(why));
	if (rc < 0) {
		fl->st->dumpsys_errors++;
		lp->cycle_failed = 1;
		lp->down = 1;
		lat_problem(lp, "%s", why);
		lp->ch = NULL;
	}
	return rc;
}

/* Whether a finished dumpsys child did its job; counts what went wrong. */
static int
lat_child_ok(struct frames_dumpsys *fl, const char *what)
{
	struct latency_poller *lp = &fl->lat;
	struct child *c = lp->ch;
	struct child_info ci;
	char how[64];

	child_get_info(c, &ci);
	if (child_killed(c)) {
		fl->st->dumpsys_timeouts++;
		lat_problem(lp,
			    "dumpsys SurfaceFlinger %s did not answer within "
			    "%" PRIu32 " ms",
			    what, fl->cfg.child_timeout_ms);
		return 0;
	}
	if (ci.err_bytes)
		fl->st->dumpsys_stderr++;
	if (!child_clean_exit(c)) {
		fl->st->dumpsys_errors++;
		child_exit_text(c, how, sizeof(how));
		lat_problem(lp, "dumpsys SurfaceFlinger %s failed (%s): %s",
			    what, how, child_errline(c));
		return 0;
	}
	if (ci.err_bytes)
		lat_problem(lp, "dumpsys SurfaceFlinger %s wrote: %s", what,
			    child_errline(c));
	return 1;
}

static void
lat_pick(struct frames_dumpsys *fl, const struct frames_latency_list *list)
{
	struct latency_poller *lp = &fl->lat;
	const char *names[FRAMES_LIVE_LAYERS_MAX];
	size_t i, j, k, n;
	int dup;

	for (i = 0; i < lp->nwanted; i++) {
		n = 0;
		frames_latency_list_pick(list, lp->wanted[i], names,
					 FRAMES_LIVE_LAYERS_MAX, &n);
		for (j = 0; j < n && lp->nlayers < FRAMES_LIVE_LAYERS_MAX;
		     j++) {
			dup = 0;
			for (k = 0; k < lp->nlayers; k++)
				if (strcmp(lp->layers[k], names[j]) == 0)
					dup = 1;
			if (dup)
				continue;
			lp->layers[lp->nlayers] = strdup(names[j]);
			if (lp->layers[lp->nlayers])
				lp->nlayers++;
		}
	}
}

static int
lat_snapshot(struct frames_dumpsys *fl, frames_live_cb cb, void *ctx)
{
	struct latency_poller *lp = &fl->lat;
	const char *layer = lp->layers[lp->ilayer];
	struct frames_latency_snapshot *snap = NULL;
	struct frames_latency_tracker *t;
	struct frames_latency_stats ss;
	struct lat_emit e = {fl, cb, ctx};
	struct child_info ci;
	const char *out;
	int64_t wm;
	size_t len;
	int rc;

	out = child_out(lp->ch, &len);
	child_get_info(lp->ch, &ci);
	record_latency(fl->cfg.record, lp->capture_ns, layer, out, len);
	rc = frames_latency_snapshot_parse(out, len, &snap);
	if (rc < 0)
		return rc;
	frames_latency_snapshot_get_stats(snap, &ss);
	fl->st->snapshots++;
	fl->st->garbage_lines += ss.garbage_lines;
	if (ss.garbage_lines || frames_latency_snapshot_period(snap) < 0)
		lat_problem(lp,
			    "dumpsys SurfaceFlinger --latency '%s' printed "
			    "%" PRIu64 " unexpected lines",
			    layer, ss.garbage_lines);
	lp->cycle_snaps++;
	if (ss.rows > 0 && ss.zero_rows == ss.rows) {
		/*
		 * A buffer layer that has not drawn yet prints zeros too, so
		 * only a cycle where every layer did is a problem.
		 */
		fl->st->zero_snapshots++;
		lp->cycle_zero_snaps++;
	}
	if (ci.out_over)
		lat_problem(lp,
			    "dumpsys SurfaceFlinger --latency '%s' printed "
			    "too much",
			    layer);
	t = lat_tracker(lp, layer);
	if (!t) {
		frames_latency_snapshot_free(snap);
		return -ENOMEM;
	}
	rc = frames_latency_tracker_feed(t, lp->capture_ns, snap, on_lat_frame,
					 &e);
	frames_latency_snapshot_free(snap);
	/* The minimum over the cycle's layers; INT64_MIN is unknown. */
	wm = frames_latency_tracker_watermark(t);
	if (!lp->cycle_has_wm || wm < lp->cycle_wm)
		lp->cycle_wm = wm;
	lp->cycle_has_wm = 1;
	return rc;
}

/* Whether some name ends in "#<digits>", as every layer name does. */
static int
list_has_layers(const struct frames_latency_list *list)
{
	const char *name, *hash;
	size_t i;

	for (i = 0; i < frames_latency_list_count(list); i++) {
		name = frames_latency_list_name(list, i);
		hash = name ? strrchr(name, '#') : NULL;
		if (hash && hash[1] >= '0' && hash[1] <= '9')
			return 1;
	}
	return 0;
}

int
frames_dumpsys_work(struct frames_dumpsys *fl, int64_t now, frames_live_cb cb,
		    void *ctx)
{
	struct latency_poller *lp = &fl->lat;
	struct frames_latency_list *list = NULL;
	const char *out;
	size_t len;
	int rc;

	for (;;) {
		if (lp->state == LAT_IDLE) {
			if (fl->stopping || lp->pending <= 0 ||
			    now < lp->next_poll_ns)
				return 0;
			fl->st->polls++;
			lp->cycle_start_ns = now;
			lp->cycle_failed = 0;
			lp->cycle_snaps = 0;
			lp->cycle_zero_snaps = 0;
			lp->down = 0;
			lp->problem[0] = '\0';
			lp->cycle_wm = INT64_MIN;
			lp->cycle_has_wm = 0;
			if (lp->nwanted == 0) {
				/* Taps of unknown apps match no frame. */
				lp->cycle_wm = now;
				lat_end_cycle(fl);
				return 0;
			}
			lp->state = LAT_LIST;
			if (lat_spawn(fl, "--list", NULL,
				      LATENCY_LIST_FILE_MAX) < 0) {
				lat_end_cycle(fl);
				return 0;
			}
		}
		if (!lp->ch) {
			/* No child for this step (cannot happen): recover. */
			lp->cycle_failed = 1;
			lat_end_cycle(fl);
			return 0;
		}
		if (!child_exited(lp->ch))
			return 0;
		if (lp->state == LAT_LIST) {
			if (lat_child_ok(fl, "--list")) {
				out = child_out(lp->ch, &len);
				record_latency_list(fl->cfg.record,
						    lp->capture_ns, out, len);
				rc = frames_latency_list_parse(out, len, &list);
				if (rc < 0)
					return rc;
				if (!list_has_layers(list)) {
					/*
					 * Every SurfaceFlinger has layers
					 * ("Display Root#0"): this is not a
					 * layer list but, say, a permission
					 * denial.
					 */
					lat_problem(lp,
						    "dumpsys SurfaceFlinger "
						    "--list printed no layer "
						    "names");
					lp->cycle_failed = 1;
				}
				lat_pick(fl, list);
				frames_latency_list_free(list);
				if (lp->nlayers == 0)
					lp->cycle_wm = lp->capture_ns;
			} else {
				lp->cycle_failed = 1;
			}
			release(lp);
			lp->state = LAT_LAYER;
			lp->ilayer = 0;
			if (lp->cycle_failed || lp->nlayers == 0) {
				lat_end_cycle(fl);
				return 0;
			}
		} else {
			if (lat_child_ok(fl, "--latency")) {
				rc = lat_snapshot(fl, cb, ctx);
				if (rc < 0) {
					/*
					 * The tracker keeps its place: the next
					 * cycle's snapshot resumes after the
					 * refused frame.
					 */
					release(lp);
					lp->cycle_failed = 1;
					lat_end_cycle(fl);
					return rc;
				}
			} else {
				lp->cycle_failed = 1;
			}
			release(lp);
			lp->ilayer++;
		}
		if (lp->ilayer >= lp->nlayers || fl->stopping) {
			lat_end_cycle(fl);
			return 0;
		}
		if (lat_spawn(fl, "--latency", lp->layers[lp->ilayer],
			      LATENCY_SNAPSHOT_FILE_MAX) < 0) {
			lat_end_cycle(fl);
			return 0;
		}
	}
}

int
frames_dumpsys_set_wanted(struct frames_dumpsys *fl, int pending_taps,
			  const char *const *packages, size_t n)
{
	struct latency_poller *lp = &fl->lat;
	char *copy[FRAMES_LIVE_WANTED_MAX];
	size_t i, j, m = 0;
	int dup;

	for (i = 0; i < n && m < FRAMES_LIVE_WANTED_MAX; i++) {
		if (!packages[i] || !packages[i][0])
			continue;
		dup = 0;
		for (j = 0; j < m; j++)
			if (strcmp(copy[j], packages[i]) == 0)
				dup = 1;
		if (dup)
			continue;
		copy[m] = strdup(packages[i]);
		if (!copy[m]) {
			while (m > 0)
				free(copy[--m]);
			return -ENOMEM;
		}
		m++;
	}
	for (i = 0; i < lp->nwanted; i++)
		free(lp->wanted[i]);
	memcpy(lp->wanted, copy, m * sizeof(copy[0]));
	lp->nwanted = m;
	if (lp->pending <= 0 && pending_taps > 0 && lp->state == LAT_IDLE) {
		/* A tap is waiting: poll now, not a period later. */
		lp->next_poll_ns = 0;
	}
	lp->pending = pending_taps;
	return 0;
}

int
frames_dumpsys_new(const struct frames_live_config *cfg, struct child_set *cs,
		   struct frames_live_stats *st, struct frames_dumpsys **out)
{
	struct frames_dumpsys *fl;

	*out = NULL;
	fl = calloc(1, sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	fl->cfg = *cfg;
	fl->cs = cs;
	fl->st = st;
	fl->wm = INT64_MIN;
	fl->bin = strdup(cfg->dumpsys_bin);
	if (!fl->bin) {
		free(fl);
		return -ENOMEM;
	}
	*out = fl;
	return 0;
}

void
frames_dumpsys_free(struct frames_dumpsys *fl)
{
	size_t i;

	if (!fl)
		return;
	release(&fl->lat);
	lat_clear_layers(&fl->lat);
	for (i = 0; i < TRACKERS_MAX; i++)
		frames_latency_tracker_free(fl->lat.trackers[i].t);
	for (i = 0; i < fl->lat.nwanted; i++)
		free(fl->lat.wanted[i]);
	free(fl->bin);
	free(fl);
}

int64_t
frames_dumpsys_next_due(const struct frames_dumpsys *fl)
{
	const struct latency_poller *lp = &fl->lat;

	/* A child's deadline and exit come through the child set. */
	if (!lp->ch && lp->state == LAT_IDLE && lp->pending > 0 &&
	    !fl->stopping)
		return lp->next_poll_ns;
	return INT64_MAX;
}

int
frames_dumpsys_health(struct frames_dumpsys *fl, enum status_health *h,
		      const char **detail)
{
	if (!fl->health_new)
		return 0;
	fl->health_new = 0;
	*h = fl->health;
	*detail = fl->detail;
	return 1;
}

int64_t
frames_dumpsys_watermark(const struct frames_dumpsys *fl)
{
	return fl->wm;
}

void
frames_dumpsys_stop(struct frames_dumpsys *fl)
{
	fl->stopping = 1;
}

int
frames_dumpsys_stopped(const struct frames_dumpsys *fl)
{
	return !child_running(fl->lat.ch) && fl->lat.state == LAT_IDLE;
}
