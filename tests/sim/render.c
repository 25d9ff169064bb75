#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "rng.h"

/* One frame asked for: a drawn one, or one SurfaceFlinger drops. */
struct req {
	int app;
	int drop;
	int64_t k;
};

struct expl {
	int app;
	uint32_t jank;
	int64_t start_ns, present_ns;
};

struct span {
	int64_t from_ns, to_ns;
};

/* A drawn frame, for finding what supersedes a dropped one. */
struct made {
	int app;
	int64_t k, j;
};

struct render {
	struct world *w;
	struct render_config cfg;
	struct rng rng;
	uint64_t seed;
	struct req *reqs;
	size_t nreq, capreq;
	struct expl *expl;
	size_t nexpl, capexpl;
	struct span *blk;
	size_t nblk, capblk;
};

/* Grows *p (of *cap elements of size) to hold one more than n. */
static int
grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap == 0 ? 256 : *cap * 2;
	q = realloc(*p, c * size);
	if (q == NULL)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

int
render_new(struct world *w, const struct render_config *cfg, uint64_t seed,
	   struct render **out)
{
	struct render *r;

	if (cfg->hz < 10 || cfg->hz > 240 || cfg->nseq < 1 || cfg->nseq > 4 ||
	    cfg->end_ns <= cfg->vsync0_ns || cfg->flush_min_ns < 0 ||
	    cfg->flush_max_ns < cfg->flush_min_ns)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	r->w = w;
	r->cfg = *cfg;
	r->seed = seed;
	rng_seed(&r->rng, seed, "render");
	*out = r;
	return 0;
}

void
render_free(struct render *r)
{
	if (r == NULL)
		return;
	free(r->reqs);
	free(r->expl);
	free(r->blk);
	free(r);
}

int64_t
render_period(const struct render *r)
{
	return 1000000000LL / r->cfg.hz;
}

int64_t
render_vsync(const struct render *r, int64_t k)
{
	/* From the product, not by adding periods: no drift. */
	return r->cfg.vsync0_ns + k * 1000000000LL / r->cfg.hz;
}

int64_t
render_vsync_index(const struct render *r, int64_t t_ns)
{
	int64_t k;

	if (t_ns <= r->cfg.vsync0_ns)
		return 0;
	k = (t_ns - r->cfg.vsync0_ns) / 1000000000LL * r->cfg.hz +
	    (t_ns - r->cfg.vsync0_ns) % 1000000000LL * r->cfg.hz / 1000000000LL;
	while (k > 0 && render_vsync(r, k - 1) >= t_ns)
		k--;
	while (render_vsync(r, k) < t_ns)
		k++;
	return k;
}

static int
add_req(struct render *r, int app, int64_t k, int drop)
{
	if (grow((void **)&r->reqs, &r->capreq, r->nreq, sizeof(*r->reqs)) < 0)
		return -ENOMEM;
	r->reqs[r->nreq].app = app;
	r->reqs[r->nreq].k = k;
	r->reqs[r->nreq].drop = drop;
	r->nreq++;
	return 0;
}

int64_t
render_frames(struct render *r, int app, int64_t t_ns, int n, int step)
{
	int64_t k = render_vsync_index(r, t_ns), last = k;
	int i;

	if (step < 1)
		step = 1;
	for (i = 0; i < n; i++) {
		last = k + (int64_t)i * step;
		if (add_req(r, app, last, 0) < 0)
			return -ENOMEM;
	}
	return render_vsync(r, last);
}

int
render_drop(struct render *r, int app, int64_t t_ns)
{
	return add_req(r, app, render_vsync_index(r, t_ns), 1);
}

int
render_blackout(struct render *r, int64_t from_ns, int64_t to_ns)
{
	if (grow((void **)&r->blk, &r->capblk, r->nblk, sizeof(*r->blk)) < 0)
		return -ENOMEM;
	r->blk[r->nblk].from_ns = from_ns;
	r->blk[r->nblk].to_ns = to_ns;
	r->nblk++;
	return 0;
}

int
render_explicit(struct render *r, int app, int64_t start_ns, int64_t present_ns,
		uint32_t jank)
{
	if (present_ns <= start_ns)
		return -EINVAL;
	if (grow((void **)&r->expl, &r->capexpl, r->nexpl, sizeof(*r->expl)) <
	    0)
		return -ENOMEM;
	r->expl[r->nexpl].app = app;
	r->expl[r->nexpl].start_ns = start_ns;
	r->expl[r->nexpl].present_ns = present_ns;
	r->expl[r->nexpl].jank = jank;
	r->nexpl++;
	return 0;
}

static int
cmp_req(const void *a, const void *b)
{
	const struct req *x = a, *y = b;

	if (x->app != y->app)
		return x->app < y->app ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->drop - y->drop;
}

static int
blacked_out(const struct render *r, int64_t t)
{
	size_t i;

	for (i = 0; i < r->nblk; i++)
		if (t >= r->blk[i].from_ns && t < r->blk[i].to_ns)
			return 1;
	return 0;
}

/* SurfaceFlinger's wake-up for vsync j, and the present fence after it. */
static int64_t
wake_at(const struct render *r, int64_t j)
{
	return render_vsync(r, j) + 300000 +
	       (int64_t)(rng_hash(r->seed, (uint64_t)j) % 1200000);
}

static int64_t
present_at(const struct render *r, int64_t j)
{
	return render_vsync(r, j + 1) + 50000 +
	       (int64_t)(rng_hash(r->seed ^ 0x5a5a, (uint64_t)j) % 450000);
}

static int64_t
start_at(const struct render *r, int app, int64_t k)
{
	if (!r->cfg.actual_start)
		return render_vsync(r, k);
	return render_vsync(r, k) + 100000 +
	       (int64_t)(rng_hash(r->seed ^ (uint64_t)(app + 1) << 20,
				  (uint64_t)k) %
			 1400000);
}

/* Something that takes a token: an app frame or a display frame. */
struct tok {
	int64_t t;
	int is_df;
	int32_t pid;
	size_t idx;
};

static int
cmp_tok(const void *a, const void *b)
{
	const struct tok *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->is_df != y->is_df)
		return x->is_df - y->is_df;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
cmp_made(const struct made *m, int app, int64_t k)
{
	if (m->app != app)
		return m->app < app ? -1 : 1;
	if (m->k != k)
		return m->k < k ? -1 : 1;
	return 0;
}

/* Index of the first drawn frame after (app, k), or n. */
static size_t
find_after(const struct made *m, size_t n, int app, int64_t k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_made(&m[mid], app, k) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int
add_df(struct render *r, int64_t j, int64_t *dfidx)
{
	struct world_df df;
	int idx;

	memset(&df, 0, sizeof(df));
	df.wake_ns = wake_at(r, j);
	df.present_ns = present_at(r, j);
	df.has_expected = r->cfg.expected;
	df.exp_start_ns = render_vsync(r, j) + 500000;
	df.exp_end_ns = render_vsync(r, j + 1);
	df.present_type = WORLD_PRESENT_ON_TIME;
	df.jank = rng_chance(&r->rng, 0.02) ? WORLD_JANK_SF_SCHED
					    : WORLD_JANK_NONE;
	df.in_trace = 1;
	idx = world_add_df(r->w, &df);
	if (idx < 0)
		return idx;
	dfidx[j] = idx;
	return 0;
}

static int
build_grid(struct render *r, int64_t *dfidx, int64_t kmax)
{
	struct made *made = NULL;
	size_t nmade = 0, i, n0;
	int64_t *sf_j = NULL, prev_j = -1, P = render_period(r), j, jn, k;
	int prev_app = -1, rc = -ENOMEM, idx;
	struct world_sf sf;
	double dur_s;
	uint32_t dropped_jank;

	qsort(r->reqs, r->nreq, sizeof(*r->reqs), cmp_req);
	made = calloc(r->nreq + 1, sizeof(*made));
	sf_j = calloc(r->nreq + 1, sizeof(*sf_j));
	if (made == NULL || sf_j == NULL)
		goto out;
	world_sfs(r->w, &n0);
	/* Drawn frames, one app at a time, in vsync order. */
	for (i = 0; i < r->nreq; i++) {
		const struct req *q = &r->reqs[i];
		int64_t start, end;

		if (q->drop)
			continue;
		if (i > 0 && !r->reqs[i - 1].drop &&
		    r->reqs[i - 1].app == q->app && r->reqs[i - 1].k == q->k)
			continue;
		if (q->app != prev_app) {
			prev_app = q->app;
			prev_j = -1;
		}
		k = q->k;
		if (k + 6 >= kmax || blacked_out(r, render_vsync(r, k)))
			continue;
		start = start_at(r, q->app, k);
		if (rng_chance(&r->rng, r->cfg.p_jank))
			end = start + (int64_t)(rng_real(&r->rng, 1.05, 2.4) *
						(double)P);
		else
			end = start + (int64_t)(rng_real(&r->rng, 0.2, 0.75) *
						(double)P);
		for (jn = k + 1; wake_at(r, jn) <= end; jn++)
			;
		j = jn > prev_j + 1 ? jn : prev_j + 1;
		if (j + 2 >= kmax)
			continue;
		prev_j = j;
		memset(&sf, 0, sizeof(sf));
		sf.app = q->app;
		sf.df = -1;
		sf.start_ns = start;
		sf.end_ns = end;
		sf.has_expected = r->cfg.expected;
		sf.exp_start_ns = render_vsync(r, k);
		sf.exp_end_ns = render_vsync(r, k + 1) - 500000;
		if (j == k + 1) {
			sf.present_type = WORLD_PRESENT_ON_TIME;
			sf.jank = WORLD_JANK_NONE;
		} else {
			sf.present_type = WORLD_PRESENT_LATE;
			sf.jank = jn > k + 1 ? WORLD_JANK_APP_DEADLINE
					     : WORLD_JANK_STUFFING;
		}
		idx = world_add_sf(r->w, &sf);
		if (idx < 0)
			goto out;
		sf_j[(size_t)idx - n0] = j;
		made[nmade].app = q->app;
		made[nmade].k = k;
		made[nmade].j = j;
		nmade++;
		if (dfidx[j] < 0 && add_df(r, j, dfidx) < 0)
			goto out;
	}
	/* Dropped frames: superseded by the app's next frame. */
	dropped_jank = world_get_device(r->w)->android_sdk >= 34
			       ? WORLD_JANK_DROPPED
			       : WORLD_JANK_NONE;
	for (i = 0; i < r->nreq; i++) {
		const struct req *q = &r->reqs[i];
		size_t m;

		if (!q->drop || blacked_out(r, render_vsync(r, q->k)))
			continue;
		m = find_after(made, nmade, q->app, q->k);
		if (m > 0 && cmp_made(&made[m - 1], q->app, q->k) == 0)
			continue;
		if (m >= nmade || made[m].app != q->app || made[m].k > q->k + 3)
			continue;
		memset(&sf, 0, sizeof(sf));
		sf.app = q->app;
		sf.df = (int)dfidx[made[m].j];
		sf.start_ns = start_at(r, q->app, q->k);
		sf.end_ns = wake_at(r, made[m].j);
		sf.has_expected = r->cfg.expected;
		sf.exp_start_ns = render_vsync(r, q->k);
		sf.exp_end_ns = render_vsync(r, q->k + 1) - 500000;
		sf.present_type = WORLD_PRESENT_DROPPED;
		sf.jank = dropped_jank;
		if (world_add_sf(r->w, &sf) < 0)
			goto out;
	}
	/* Compositions without an app frame (A12, A13 write those). */
	dur_s = (double)(r->cfg.end_ns - r->cfg.vsync0_ns) / 1e9;
	for (i = 0; i < (size_t)(r->cfg.dfonly_per_s * dur_s); i++) {
		j = rng_range(&r->rng, 4, kmax - 8);
		if (dfidx[j] < 0 && !blacked_out(r, render_vsync(r, j)) &&
		    add_df(r, j, dfidx) < 0)
			goto out;
	}
	for (i = 0; i < nmade; i++) {
		struct world_sf *s = world_sf_at(r->w, n0 + i);

		if (s != NULL && s->df < 0)
			s->df = (int)dfidx[sf_j[i]];
	}
	rc = 0;
out:
	free(made);
	free(sf_j);
	return rc;
}

static int
build_explicit(struct render *r)
{
	struct world_df df;
	struct world_sf sf;
	int64_t P = render_period(r);
	size_t i;
	int idx;

	for (i = 0; i < r->nexpl; i++) {
		const struct expl *e = &r->expl[i];

		memset(&df, 0, sizeof(df));
		df.present_ns = e->present_ns;
		df.wake_ns = e->present_ns - P / 2;
		if (df.wake_ns <= e->start_ns)
			df.wake_ns =
				e->start_ns + (e->present_ns - e->start_ns) / 2;
		df.has_expected = r->cfg.expected;
		df.exp_start_ns = df.wake_ns;
		df.exp_end_ns = df.present_ns;
		df.present_type = WORLD_PRESENT_ON_TIME;
		df.jank = WORLD_JANK_NONE;
		df.in_trace = 1;
		idx = world_add_df(r->w, &df);
		if (idx < 0)
			return idx;
		memset(&sf, 0, sizeof(sf));
		sf.app = e->app;
		sf.df = idx;
		sf.start_ns = e->start_ns;
		sf.end_ns = e->start_ns + (df.wake_ns - e->start_ns) / 2;
		sf.has_expected = r->cfg.expected;
		sf.exp_start_ns = e->start_ns;
		sf.exp_end_ns = e->start_ns + P;
		sf.present_type = WORLD_PRESENT_ON_TIME;
		sf.jank = e->jank;
		if (world_add_sf(r->w, &sf) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int
cmp_df_present(const void *a, const void *b, void *ctx)
{
	const struct world_df *dfs = ctx;
	const size_t *x = a, *y = b;

	if (dfs[*x].present_ns != dfs[*y].present_ns)
		return dfs[*x].present_ns < dfs[*y].present_ns ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

/* When and on which sequence each display frame's packets were written. */
static int
schedule(struct render *r)
{
	size_t n, i;
	size_t *order;
	int64_t last[4] = {0, 0, 0, 0};

	world_dfs(r->w, &n);
	order = calloc(n + 1, sizeof(*order));
	if (order == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		order[i] = i;
	if (n > 0)
		qsort_r(order, n, sizeof(*order), cmp_df_present,
			world_df_at(r->w, 0));
	for (i = 0; i < n; i++) {
		struct world_df *df = world_df_at(r->w, order[i]);
		int s = (int)rng_range(&r->rng, 0, r->cfg.nseq - 1);
		int64_t emit;

		emit = df->present_ns + rng_range(&r->rng, r->cfg.flush_min_ns,
						  r->cfg.flush_max_ns);
		/*
		 * One writer flushes display frames in present order; with
		 * a long flush delay a stall holds back the frames after it.
		 */
		if (emit < last[s])
			emit = last[s];
		last[s] = emit;
		df->emit_ns = emit;
		df->seq = r->cfg.seqs[s];
	}
	free(order);
	return 0;
}

/* Synthetic skipped display frames, written with a real one. */
static int
add_token0(struct render *r)
{
	const struct world_df *dfs;
	struct world_df df, host;
	size_t n, i, count;
	double dur_s;
	int64_t P = render_period(r);

	dfs = world_dfs(r->w, &n);
	if (n == 0)
		return 0;
	dur_s = (double)(r->cfg.end_ns - r->cfg.vsync0_ns) / 1e9;
	count = (size_t)(r->cfg.token0_per_s * dur_s);
	for (i = 0; i < count; i++) {
		dfs = world_dfs(r->w, &n);
		host = dfs[rng_range(&r->rng, 0, (int64_t)n - 1)];
		if (host.token == 0)
			continue;
		memset(&df, 0, sizeof(df));
		df.token = 0;
		df.wake_ns = host.wake_ns - P;
		df.present_ns = host.present_ns - P;
		df.present_type = WORLD_PRESENT_DROPPED;
		df.jank = WORLD_JANK_DROPPED;
		df.emit_ns = host.emit_ns;
		df.seq = host.seq;
		df.in_trace = 1;
		if (world_add_df(r->w, &df) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Vsync ids, in the order the app and SurfaceFlinger got them. */
static int
assign_tokens(struct render *r)
{
	const struct world_sf *sfs;
	const struct world_df *dfs;
	const struct world_app *apps;
	size_t nsf, ndf, napps, i, n = 0;
	struct tok *t;
	int64_t token = r->cfg.token_base;

	sfs = world_sfs(r->w, &nsf);
	dfs = world_dfs(r->w, &ndf);
	apps = world_apps(r->w, &napps);
	t = calloc(nsf + ndf + 1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < nsf; i++) {
		t[n].t = sfs[i].exp_start_ns;
		t[n].is_df = 0;
		t[n].pid = apps[sfs[i].app].pid;
		t[n].idx = i;
		n++;
	}
	for (i = 0; i < ndf; i++) {
		t[n].t = dfs[i].wake_ns;
		t[n].is_df = 1;
		t[n].pid = 0;
		t[n].idx = i;
		n++;
	}
	qsort(t, n, sizeof(*t), cmp_tok);
	for (i = 0; i < n; i++) {
		/*
		 * The layers of one process draw on one Choreographer: frames
		 * of one vsync share its vsync id.
		 */
		if (i == 0 || t[i].is_df || t[i - 1].is_df ||
		    t[i].t != t[i - 1].t || t[i].pid != t[i - 1].pid)
			token += rng_range(&r->rng, 1, 3);
		if (t[i].is_df)
			world_df_at(r->w, t[i].idx)->token = token;
		else
			world_sf_at(r->w, t[i].idx)->token = token;
	}
	free(t);
	return 0;
}

int
render_finish(struct render *r)
{
	int64_t kmax, *dfidx, j;
	int rc;

	kmax = render_vsync_index(r, r->cfg.end_ns) + 16;
	if (kmax > 100000000)
		return -EINVAL;
	dfidx = malloc((size_t)(kmax + 8) * sizeof(*dfidx));
	if (dfidx == NULL)
		return -ENOMEM;
	for (j = 0; j < kmax + 8; j++)
		dfidx[j] = -1;
	rc = build_grid(r, dfidx, kmax);
	free(dfidx);
	if (rc == 0)
		rc = build_explicit(r);
	if (rc == 0)
		rc = assign_tokens(r);
	if (rc == 0)
		rc = schedule(r);
	if (rc == 0 && world_get_device(r->w)->android_sdk >= 34)
		rc = add_token0(r);
	return rc;
}
