#include <errno.h>
#include <inttypes.h>
#include <linux/input-event-codes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "truth.h"

#define SLOTS 16

enum status {
	ST_OK,
	ST_NO_RESPONSE,
	ST_TRUNCATED,
	ST_FRAMES_UNAVAILABLE,
	ST_NOT_MEASURED,
};

static const char *const status_names[] = {
	"ok", "no_response", "truncated", "frames_unavailable", "not_measured",
};

static const char *const kind_names[WORLD_KIND_COUNT] = {
	"tap",
	"long_press",
	"swipe",
	"multi",
};

/* A gesture as the events show it, then its measurement. */
struct result {
	enum world_kind kind;
	int64_t t_down_ns, t_up_ns;
	double x, y, max_dist;
	int32_t raw_x, raw_y; /* the first finger's touch-down */
	unsigned fingers;
	int app;
	const struct world_win *win; /* the window that took it, or NULL */
	int32_t pid;
	enum status status;
	unsigned flags;
	int64_t window_end_ns;
	int64_t first_frame_ns, settle_ns; /* -1: not measured */
	int64_t first_present_ns, last_present_ns;
	int32_t frames;
	uint32_t jank;
	char note[24];
	/* TRUTH_FLAG_LAUNCH or _NAVIGATION: the foreground change. */
	int target; /* its world_fg index, or -1 */
	int64_t launch_first_frame_ns, launch_settle_ns; /* -1: none */
};

/* A presented app frame. */
struct frame {
	int32_t pid;
	int64_t start_ns, present_ns;
	uint32_t jank;
};

struct truth {
	struct result *res;
	size_t n;
};

const char *
truth_kind_name(enum world_kind kind)
{
	return (unsigned)kind < WORLD_KIND_COUNT ? kind_names[kind] : "?";
}

/* Slot state while re-reading the touch events. */
struct slot {
	int32_t id, new_id;
	int32_t x, y;
	int changed;
};

struct reader {
	const struct world *w;
	struct slot slot[SLOTS];
	int cur;
	int active;
	int first_slot;
	double down_x, down_y, max_before, max_all;
	int32_t down_rx, down_ry;
	int64_t t_down;
	unsigned fingers;
	struct result *res;
	size_t n, cap;
};

static int
push_result(struct reader *rd, const struct result *r)
{
	struct result *p;

	if (rd->n == rd->cap) {
		size_t cap = rd->cap == 0 ? 64 : rd->cap * 2;

		p = realloc(rd->res, cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		rd->res = p;
		rd->cap = cap;
	}
	rd->res[rd->n++] = *r;
	return 0;
}

static int
classify(struct reader *rd, int64_t t_up)
{
	double slop = world_slop_px(rd->w), slop2 = slop * slop;
	struct result r;

	memset(&r, 0, sizeof(r));
	r.t_down_ns = rd->t_down;
	r.t_up_ns = t_up;
	r.x = rd->down_x;
	r.y = rd->down_y;
	r.raw_x = rd->down_rx;
	r.raw_y = rd->down_ry;
	r.fingers = rd->fingers;
	r.max_dist = rd->max_all;
	r.first_frame_ns = -1;
	r.settle_ns = -1;
	r.first_present_ns = -1;
	r.last_present_ns = -1;
	if (rd->fingers >= 2) {
		r.kind = WORLD_MULTI;
	} else if (rd->max_before * rd->max_before > slop2) {
		r.kind = WORLD_SWIPE;
		if (rd->max_before < 1.1 * slop) {
			msg_warnx("swipe at %" PRId64 " ns moved %.2f px, "
				  "too close to the %.2f px slop",
				  rd->t_down, rd->max_before, slop);
			return -EPROTO;
		}
	} else {
		/* Whatever moves after the timeout must stay clear too. */
		if (rd->max_all > 0.8 * slop) {
			msg_warnx("gesture at %" PRId64 " ns moved %.2f px, "
				  "too close to the %.2f px slop",
				  rd->t_down, rd->max_all, slop);
			return -EPROTO;
		}
		if (llabs(t_up - rd->t_down - TRUTH_LONG_NS) < 20000000LL) {
			msg_warnx("gesture at %" PRId64 " ns lasted %" PRId64
				  " ns, too close to the long-press timeout",
				  rd->t_down, t_up - rd->t_down);
			return -EPROTO;
		}
		r.kind = t_up - rd->t_down >= TRUTH_LONG_NS ? WORLD_LONG_PRESS
							    : WORLD_TAP;
	}
	return push_result(rd, &r);
}

static int
on_syn(struct reader *rd, int64_t t)
{
	int s, downs = 0, ups = 0, before;
	double x, y, dx, dy, d;

	before = rd->active;
	for (s = 0; s < SLOTS; s++) {
		struct slot *sl = &rd->slot[s];

		if (!sl->changed)
			continue;
		sl->changed = 0;
		if (sl->id < 0 && sl->new_id >= 0) {
			downs++;
			if (before == 0 && downs == 1)
				rd->first_slot = s;
		} else if (sl->id >= 0 && sl->new_id < 0) {
			ups++;
		}
		sl->id = sl->new_id;
	}
	rd->active += downs - ups;
	if (before == 0 && rd->active > 0) {
		rd->t_down = t;
		rd->fingers = 0;
		rd->max_before = 0;
		rd->max_all = 0;
		world_map(rd->w, rd->slot[rd->first_slot].x,
			  rd->slot[rd->first_slot].y, &rd->down_x, &rd->down_y);
		rd->down_rx = rd->slot[rd->first_slot].x;
		rd->down_ry = rd->slot[rd->first_slot].y;
	}
	if (rd->active > 0 || ups > 0) {
		if ((unsigned)rd->active > rd->fingers)
			rd->fingers = (unsigned)rd->active;
		if (rd->slot[rd->first_slot].id >= 0) {
			world_map(rd->w, rd->slot[rd->first_slot].x,
				  rd->slot[rd->first_slot].y, &x, &y);
			dx = x - rd->down_x;
			dy = y - rd->down_y;
			d = dx * dx + dy * dy;
			if (d > rd->max_all * rd->max_all)
				rd->max_all = __builtin_sqrt(d);
			if (t - rd->t_down < TRUTH_LONG_NS &&
			    d > rd->max_before * rd->max_before)
				rd->max_before = __builtin_sqrt(d);
		}
	}
	if (before > 0 && rd->active == 0)
		return classify(rd, t);
	return 0;
}

/* Re-reads the touch screen's events into gestures. */
static int
read_gestures(struct reader *rd)
{
	const struct world_event *ev;
	size_t n, i;
	int s, rc;

	for (s = 0; s < SLOTS; s++) {
		rd->slot[s].id = -1;
		rd->slot[s].new_id = -1;
	}
	ev = world_events(rd->w, &n);
	for (i = 0; i < n; i++) {
		const struct world_event *e = &ev[i];
		struct slot *sl = &rd->slot[rd->cur];

		if (e->dev != 0)
			continue;
		if (e->type == EV_SYN && e->code == SYN_REPORT) {
			rc = on_syn(rd, e->time_us * 1000);
			if (rc < 0)
				return rc;
			continue;
		}
		if (e->type != EV_ABS)
			continue;
		switch (e->code) {
		case ABS_MT_SLOT:
			if (e->value < 0 || e->value >= SLOTS)
				return -EPROTO;
			rd->cur = e->value;
			break;
		case ABS_MT_TRACKING_ID:
			sl->new_id = e->value;
			sl->changed = 1;
			break;
		case ABS_MT_POSITION_X:
			sl->x = e->value;
			break;
		case ABS_MT_POSITION_Y:
			sl->y = e->value;
			break;
		default:
			break;
		}
	}
	return rd->active == 0 ? 0 : -EPROTO;
}

static int
cmp_frame(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->present_ns != y->present_ns)
		return x->present_ns < y->present_ns ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return 0;
}

/* Index of the first frame of pid presented at or after t, in f[0..n). */
static size_t
lower_bound(const struct frame *f, size_t n, int32_t pid, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].pid < pid ||
		    (f[mid].pid == pid && f[mid].present_ns < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
measure(struct result *r, const struct frame *f, size_t nf, int truncated)
{
	size_t i, b;
	int64_t prev = -1, burst_last = -1, last_resp = -1;
	int in_burst = 1;

	/* busy_before: a frame presented in [t_up - 100 ms, t_up). */
	b = lower_bound(f, nf, r->pid, r->t_up_ns - TRUTH_BUSY_NS);
	if (b < nf && f[b].pid == r->pid && f[b].present_ns < r->t_up_ns)
		r->flags |= TRUTH_FLAG_BUSY_BEFORE;
	/*
	 * Response frames in present order.  A frame starts before it is
	 * presented, so none presented before t_up can have started in the
	 * window.
	 */
	for (i = lower_bound(f, nf, r->pid, r->t_up_ns);
	     i < nf && f[i].pid == r->pid; i++) {
		if (f[i].start_ns < r->t_up_ns ||
		    f[i].start_ns >= r->window_end_ns)
			continue;
		r->frames++;
		r->jank |= f[i].jank;
		if (prev < 0) {
			r->first_present_ns = f[i].present_ns;
			burst_last = f[i].present_ns;
		} else if (in_burst &&
			   f[i].present_ns - prev <= TRUTH_QUIET_NS) {
			burst_last = f[i].present_ns;
		} else {
			in_burst = 0;
		}
		prev = f[i].present_ns;
		last_resp = f[i].present_ns;
	}
	if (r->frames == 0) {
		r->status = truncated ? ST_TRUNCATED : ST_NO_RESPONSE;
		return;
	}
	r->status = truncated ? ST_TRUNCATED : ST_OK;
	r->first_frame_ns = r->first_present_ns - r->t_up_ns;
	r->settle_ns = burst_last - r->t_up_ns;
	r->last_present_ns = burst_last;
	if (!truncated && in_burst && burst_last == last_resp &&
	    r->window_end_ns < burst_last + TRUTH_QUIET_NS) {
		if (r->window_end_ns == r->t_up_ns + TRUTH_CAP_NS)
			r->flags |= TRUTH_FLAG_SETTLE_CAPPED;
		else
			r->flags |= TRUTH_FLAG_INTERRUPTED;
	}
}

/*
 * The launch or navigation of r (truth.h), its frames from f[0..nf)
 * (sorted by pid and present); covered says the trace covers the tap.
 */
static int
launch(const struct world *w, struct result *r, int64_t next_down,
       const struct frame *f, size_t nf, int covered)
{
	const struct world_app *apps;
	const struct world_fg *fgs;
	size_t nfg, napps, i;
	int64_t end = r->t_up_ns + TRUTH_LAUNCH_CAP_NS, prev = -1, last = -1;
	int b = world_fg_index_at(w, r->t_up_ns);
	int32_t pid;

	r->target = -1;
	r->launch_first_frame_ns = -1;
	r->launch_settle_ns = -1;
	if (b < 0)
		return 0;
	if (next_down < end)
		end = next_down;
	fgs = world_fgs(w, &nfg);
	apps = world_apps(w, &napps);
	for (i = (size_t)b + 1; i < nfg; i++) {
		const struct world_fg *x = &fgs[i], *y = &fgs[b];
		int other =
			strcmp(apps[x->app].package, apps[y->app].package) != 0;

		if (!other && !(x->activity[0] && y->activity[0] &&
				strcmp(x->activity, y->activity) != 0))
			continue;
		if (llabs(x->t_ns - end) < 1000000) {
			msg_warnx("tap at %" PRId64 " ns: a foreground change "
				  "at %" PRId64 " ns is too close to the end "
				  "of its launch window",
				  r->t_up_ns, x->t_ns);
			return -EPROTO;
		}
		if (x->t_ns >= end)
			return 0;
		r->target = (int)i;
		r->flags |= other ? TRUTH_FLAG_LAUNCH : TRUTH_FLAG_NAVIGATION;
		if (!other || !covered)
			return 0;
		pid = apps[x->app].pid;
		for (i = lower_bound(f, nf, pid, r->t_up_ns);
		     i < nf && f[i].pid == pid; i++) {
			if (f[i].start_ns < r->t_up_ns || f[i].start_ns >= end)
				continue;
			if (prev < 0) {
				r->launch_first_frame_ns =
					f[i].present_ns - r->t_up_ns;
				last = f[i].present_ns;
			} else if (last == prev &&
				   f[i].present_ns - prev <= TRUTH_QUIET_NS) {
				last = f[i].present_ns;
			}
			prev = f[i].present_ns;
		}
		if (last >= 0)
			r->launch_settle_ns = last - r->t_up_ns;
		return 0;
	}
	return 0;
}

static int
collect_frames(const struct world *w, struct frame **out, size_t *nout,
	       int64_t *last_present)
{
	const struct world_sf *sfs;
	const struct world_df *dfs;
	const struct world_app *apps;
	size_t nsf, ndf, napps, i, n = 0;
	struct frame *f;

	sfs = world_sfs(w, &nsf);
	dfs = world_dfs(w, &ndf);
	apps = world_apps(w, &napps);
	*last_present = INT64_MIN;
	for (i = 0; i < ndf; i++)
		if (dfs[i].in_trace && dfs[i].token != 0 &&
		    dfs[i].present_type != WORLD_PRESENT_DROPPED &&
		    dfs[i].present_ns > *last_present)
			*last_present = dfs[i].present_ns;
	f = calloc(nsf + 1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	for (i = 0; i < nsf; i++) {
		const struct world_df *df = &dfs[sfs[i].df];

		if (sfs[i].present_type == WORLD_PRESENT_DROPPED ||
		    !df->in_trace || df->token == 0)
			continue;
		f[n].pid = apps[sfs[i].app].pid;
		f[n].start_ns = sfs[i].start_ns;
		f[n].present_ns = df->present_ns;
		f[n].jank = sfs[i].jank;
		n++;
	}
	qsort(f, n, sizeof(*f), cmp_frame);
	*out = f;
	*nout = n;
	return 0;
}

/* The scenario's gestures must be the ones the events give. */
static int
check_intent(const struct world *w, const struct result *res, size_t n)
{
	const struct world_gesture *g;
	size_t ng, i;

	g = world_gestures(w, &ng);
	if (ng != n) {
		msg_warnx("the input gives %zu gestures, the scenario meant "
			  "%zu",
			  n, ng);
		return -EPROTO;
	}
	for (i = 0; i < n; i++) {
		if (g[i].kind != res[i].kind ||
		    g[i].t_down_ns != res[i].t_down_ns ||
		    g[i].t_up_ns != res[i].t_up_ns) {
			msg_warnx("gesture %zu: the input gives a %s from "
				  "%" PRId64 " to %" PRId64
				  ", the scenario meant a %s "
				  "from %" PRId64 " to %" PRId64,
				  i, truth_kind_name(res[i].kind),
				  res[i].t_down_ns, res[i].t_up_ns,
				  truth_kind_name(g[i].kind), g[i].t_down_ns,
				  g[i].t_up_ns);
			return -EPROTO;
		}
	}
	return 0;
}

/* The display point of a raw one, the display turned as l says. */
static void
to_display(const struct world *w, const struct world_winlist *l, int32_t rx,
	   int32_t ry, double *x, double *y)
{
	const struct world_device *d = world_get_device(w);
	double sx = (double)d->width / ((double)d->x_max - d->x_min + 1);
	double sy = (double)d->height / ((double)d->y_max - d->y_min + 1);

	if (l->orientation == 1) {
		*x = ((double)ry - d->y_min) * sy;
		*y = ((double)d->x_max - rx) * sx;
	} else {
		*x = ((double)rx - d->x_min) * sx;
		*y = ((double)ry - d->y_min) * sy;
	}
}

/* (x, y) is less than a pixel from an edge of r. */
static int
edge_close(const struct world_rect *r, double x, double y)
{
	int out = x < r->l - 1 || x > r->r + 1 || y < r->t - 1 || y > r->b + 1;
	int in = x > r->l + 1 && x < r->r - 1 && y > r->t + 1 && y < r->b - 1;

	return !out && !in;
}

/*
 * The window that takes a touch-down, as the dispatcher finds it: from
 * the top, past the windows that are not visible, not touchable or spies,
 * the first whose touchable region holds the point cut to an integer.  A
 * point within a pixel of an edge it is tested against is refused.
 */
static int
hit(const struct world *w, struct result *r)
{
	const struct world_winlist *l = world_winlist_at(w, r->t_down_ns);
	const struct world_win *x;
	double px, py;
	int64_t ix, iy;
	int i, j;

	if (l == NULL || l != world_winlist_at(w, r->t_up_ns)) {
		msg_warnx("gesture at %" PRId64 " ns: the windows change while "
			  "the finger is down, or there are none",
			  r->t_up_ns);
		return -EPROTO;
	}
	to_display(w, l, r->raw_x, r->raw_y, &px, &py);
	ix = (int64_t)px;
	iy = (int64_t)py;
	for (i = 0; i < l->n; i++) {
		x = &l->win[i];
		if (x->config & (WORLD_IC_NOT_VISIBLE | WORLD_IC_NOT_TOUCHABLE |
				 WORLD_IC_SPY))
			continue;
		for (j = 0; j < x->nregion; j++) {
			if (edge_close(&x->region[j], px, py)) {
				msg_warnx("gesture at %" PRId64 " ns lands on "
					  "an edge of '%s'",
					  r->t_up_ns, x->name);
				return -EPROTO;
			}
			if (ix >= x->region[j].l && ix < x->region[j].r &&
			    iy >= x->region[j].t && iy < x->region[j].b) {
				r->win = x;
				r->pid = x->pid;
				return 0;
			}
		}
	}
	msg_warnx("gesture at %" PRId64 " ns lands on no window", r->t_up_ns);
	return -EPROTO;
}

int
truth_compute(const struct world *w, struct truth **out)
{
	const struct world_format *fmt = world_get_format(w);
	const struct world_gesture *g;
	const struct world_app *apps;
	struct reader rd;
	struct frame *frames = NULL;
	struct truth *t = NULL;
	size_t nframes = 0, i, ng, napps, nwl;
	int64_t last_present, next_down;
	int rc;

	memset(&rd, 0, sizeof(rd));
	rd.w = w;
	rc = read_gestures(&rd);
	if (rc == -EPROTO)
		msg_warnx("the touch events do not end with every finger up");
	if (rc < 0)
		goto out;
	rc = check_intent(w, rd.res, rd.n);
	if (rc < 0)
		goto out;
	rc = collect_frames(w, &frames, &nframes, &last_present);
	if (rc < 0)
		goto out;
	g = world_gestures(w, &ng);
	apps = world_apps(w, &napps);
	for (i = 0; i < rd.n; i++) {
		struct result *r = &rd.res[i];
		int truncated;

		memcpy(r->note, g[i].note, sizeof(r->note));
		r->note[sizeof(r->note) - 1] = '\0';
		r->app = world_fg_at(w, r->t_up_ns);
		r->pid = r->app >= 0 ? apps[r->app].pid : 0;
		if (world_winlists(w, &nwl) != NULL && nwl > 0 && r->app >= 0) {
			rc = hit(w, r);
			if (rc < 0)
				goto out;
		}
		next_down = i + 1 < rd.n ? rd.res[i + 1].t_down_ns : INT64_MAX;
		r->window_end_ns = r->t_up_ns + TRUTH_CAP_NS;
		if (next_down < r->window_end_ns)
			r->window_end_ns = next_down;
		r->target = -1;
		r->launch_first_frame_ns = -1;
		r->launch_settle_ns = -1;
		if (r->kind == WORLD_SWIPE || r->kind == WORLD_MULTI) {
			r->status = ST_NOT_MEASURED;
			continue;
		}
		rc = launch(w, r, next_down, frames, nframes,
			    r->t_up_ns >= fmt->trace_start_ns);
		if (rc < 0)
			goto out;
		/* Cases the definitions leave to a tie are refused. */
		if (llabs(next_down - (r->t_up_ns + TRUTH_CAP_NS)) < 1000000 ||
		    llabs(r->t_up_ns - fmt->trace_start_ns) < 500000000LL ||
		    (last_present != INT64_MIN &&
		     r->window_end_ns > last_present - 1000000000LL &&
		     r->window_end_ns < last_present + 1000000000LL)) {
			msg_warnx("tap at %" PRId64 " ns is too close to the "
				  "cap, the trace start or the trace end",
				  r->t_up_ns);
			rc = -EPROTO;
			goto out;
		}
		if (r->t_up_ns < fmt->trace_start_ns || r->app < 0) {
			r->status = ST_FRAMES_UNAVAILABLE;
			continue;
		}
		truncated = r->window_end_ns > last_present;
		measure(r, frames, nframes, truncated);
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	t->res = rd.res;
	t->n = rd.n;
	rd.res = NULL;
	*out = t;
	rc = 0;
out:
	free(rd.res);
	free(frames);
	return rc;
}

void
truth_free(struct truth *t)
{
	if (t == NULL)
		return;
	free(t->res);
	free(t);
}

size_t
truth_count(const struct truth *t, unsigned counts[WORLD_KIND_COUNT])
{
	size_t i;

	for (i = 0; i < WORLD_KIND_COUNT; i++)
		counts[i] = 0;
	for (i = 0; i < t->n; i++)
		counts[t->res[i].kind]++;
	return t->n;
}

static cJSON *
add_i64(cJSON *obj, const char *name, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return cJSON_AddStringToObject(obj, name, buf);
}

static cJSON *
add_opt(cJSON *obj, const char *name, int64_t v)
{
	if (v < 0)
		return cJSON_AddNullToObject(obj, name);
	return add_i64(obj, name, v);
}

static int
gesture_json(const struct result *r, const struct world *w, cJSON *arr)
{
	static const char *const flag_names[] = {
		"busy_before",	 "settle_capped", "interrupted",
		"input_dropped", "launch",	  "navigation",
	};
	const struct world_app *apps;
	const struct world_fg *fgs;
	size_t nfg;
	cJSON *o, *flags;
	size_t napps, i;

	apps = world_apps(w, &napps);
	o = cJSON_CreateObject();
	if (o == NULL || !cJSON_AddItemToArray(arr, o))
		goto fail;
	if (cJSON_AddStringToObject(o, "kind", kind_names[r->kind]) == NULL)
		return -ENOMEM;
	if ((r->win != NULL ? cJSON_AddStringToObject(o, "app", r->win->package)
	     : r->app >= 0
		     ? cJSON_AddStringToObject(o, "app", apps[r->app].package)
		     : cJSON_AddNullToObject(o, "app")) == NULL ||
	    cJSON_AddNumberToObject(o, "pid", r->pid) == NULL ||
	    add_i64(o, "t_down_ns", r->t_down_ns) == NULL ||
	    add_i64(o, "t_up_ns", r->t_up_ns) == NULL ||
	    add_i64(o, "window_end_ns", r->window_end_ns) == NULL ||
	    cJSON_AddStringToObject(o, "status", status_names[r->status]) ==
		    NULL)
		return -ENOMEM;
	flags = cJSON_AddArrayToObject(o, "flags");
	if (flags == NULL)
		return -ENOMEM;
	for (i = 0; i < 6; i++) {
		if (!(r->flags & 1u << i))
			continue;
		/* cJSON_AddItemToArray() refuses a NULL item. */
		if (!cJSON_AddItemToArray(flags,
					  cJSON_CreateString(flag_names[i])))
			return -ENOMEM;
	}
	if (add_opt(o, "first_frame_ns", r->first_frame_ns) == NULL ||
	    add_opt(o, "settle_ns", r->settle_ns) == NULL ||
	    cJSON_AddNumberToObject(o, "frames", r->frames) == NULL ||
	    cJSON_AddNumberToObject(o, "jank", r->jank) == NULL ||
	    add_opt(o, "first_present_ns", r->first_present_ns) == NULL ||
	    add_opt(o, "last_present_ns", r->last_present_ns) == NULL ||
	    cJSON_AddNumberToObject(o, "x", (double)(int)(r->x * 10) / 10) ==
		    NULL ||
	    cJSON_AddNumberToObject(o, "y", (double)(int)(r->y * 10) / 10) ==
		    NULL ||
	    cJSON_AddNumberToObject(o, "fingers", r->fingers) == NULL ||
	    cJSON_AddNumberToObject(o, "max_dist_px",
				    (double)(int)(r->max_dist * 100) / 100) ==
		    NULL ||
	    cJSON_AddStringToObject(o, "note", r->note) == NULL)
		return -ENOMEM;
	fgs = world_fgs(w, &nfg);
	if ((r->target >= 0
		     ? cJSON_AddStringToObject(o, "target_app",
					       apps[fgs[r->target].app].package)
		     : cJSON_AddNullToObject(o, "target_app")) == NULL ||
	    (r->target >= 0 && fgs[r->target].activity[0]
		     ? cJSON_AddStringToObject(o, "target_activity",
					       fgs[r->target].activity)
		     : cJSON_AddNullToObject(o, "target_activity")) == NULL ||
	    add_opt(o, "launch_first_frame_ns", r->launch_first_frame_ns) ==
		    NULL ||
	    add_opt(o, "launch_settle_ns", r->launch_settle_ns) == NULL)
		return -ENOMEM;
	/* Only sessions with window lists attribute by window. */
	if (r->win != NULL &&
	    (cJSON_AddStringToObject(o, "window", r->win->name) == NULL ||
	     cJSON_AddStringToObject(o, "attribution", "window") == NULL))
		return -ENOMEM;
	return 0;
fail:
	cJSON_Delete(o);
	return -ENOMEM;
}

int
truth_to_json(const struct truth *t, const struct world *w, cJSON *obj)
{
	cJSON *counts, *statuses, *arr;
	unsigned kc[WORLD_KIND_COUNT], sc[5] = {0, 0, 0, 0, 0};
	size_t i;

	truth_count(t, kc);
	for (i = 0; i < t->n; i++)
		sc[t->res[i].status]++;
	counts = cJSON_AddObjectToObject(obj, "counts");
	statuses = cJSON_AddObjectToObject(obj, "statuses");
	if (counts == NULL || statuses == NULL)
		return -ENOMEM;
	for (i = 0; i < WORLD_KIND_COUNT; i++)
		if (cJSON_AddNumberToObject(counts, kind_names[i], kc[i]) ==
		    NULL)
			return -ENOMEM;
	for (i = 0; i < 5; i++)
		if (cJSON_AddNumberToObject(statuses, status_names[i], sc[i]) ==
		    NULL)
			return -ENOMEM;
	arr = cJSON_AddArrayToObject(obj, "gestures");
	if (arr == NULL)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		if (gesture_json(&t->res[i], w, arr) < 0)
			return -ENOMEM;
	return 0;
}
