#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"

/* A growable array of fixed-size elements. */
struct vec {
	void *data;
	size_t len, cap, size;
};

struct world {
	struct world_device device;
	struct world_format format;
	struct vec apps, indevs, events, gestures, fgs, sfs, dfs, snaps;
	struct vec winlists, procs;
};

static void
vec_init(struct vec *v, size_t size)
{
	v->data = NULL;
	v->len = 0;
	v->cap = 0;
	v->size = size;
}

static int
vec_push(struct vec *v, const void *elem)
{
	void *p;
	size_t cap;

	if (v->len >= (size_t)INT32_MAX)
		return -ENOMEM;
	if (v->len == v->cap) {
		cap = v->cap == 0 ? 64 : v->cap * 2;
		p = realloc(v->data, cap * v->size);
		if (p == NULL)
			return -ENOMEM;
		v->data = p;
		v->cap = cap;
	}
	memcpy((char *)v->data + v->len * v->size, elem, v->size);
	return (int)v->len++;
}

int
world_new(struct world **out)
{
	struct world *w;

	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	vec_init(&w->apps, sizeof(struct world_app));
	vec_init(&w->indevs, sizeof(struct world_indev));
	vec_init(&w->events, sizeof(struct world_event));
	vec_init(&w->gestures, sizeof(struct world_gesture));
	vec_init(&w->fgs, sizeof(struct world_fg));
	vec_init(&w->sfs, sizeof(struct world_sf));
	vec_init(&w->dfs, sizeof(struct world_df));
	vec_init(&w->snaps, sizeof(struct world_snapshot));
	vec_init(&w->winlists, sizeof(struct world_winlist));
	vec_init(&w->procs, sizeof(struct world_proc));
	*out = w;
	return 0;
}

void
world_free(struct world *w)
{
	if (w == NULL)
		return;
	free(w->apps.data);
	free(w->indevs.data);
	free(w->events.data);
	free(w->gestures.data);
	free(w->fgs.data);
	free(w->sfs.data);
	free(w->dfs.data);
	free(w->snaps.data);
	free(w->winlists.data);
	free(w->procs.data);
	free(w);
}

struct world_device *
world_device(struct world *w)
{
	return &w->device;
}

const struct world_device *
world_get_device(const struct world *w)
{
	return &w->device;
}

struct world_format *
world_format(struct world *w)
{
	return &w->format;
}

const struct world_format *
world_get_format(const struct world *w)
{
	return &w->format;
}

int
world_add_app(struct world *w, const struct world_app *a)
{
	return vec_push(&w->apps, a);
}

const struct world_app *
world_apps(const struct world *w, size_t *n)
{
	*n = w->apps.len;
	return w->apps.data;
}

int
world_add_indev(struct world *w, const struct world_indev *d)
{
	return vec_push(&w->indevs, d);
}

const struct world_indev *
world_indevs(const struct world *w, size_t *n)
{
	*n = w->indevs.len;
	return w->indevs.data;
}

int
world_add_event(struct world *w, const struct world_event *e)
{
	return vec_push(&w->events, e);
}

const struct world_event *
world_events(const struct world *w, size_t *n)
{
	*n = w->events.len;
	return w->events.data;
}

int
world_add_gesture(struct world *w, const struct world_gesture *g)
{
	return vec_push(&w->gestures, g);
}

const struct world_gesture *
world_gestures(const struct world *w, size_t *n)
{
	*n = w->gestures.len;
	return w->gestures.data;
}

int
world_add_fg(struct world *w, const struct world_fg *f)
{
	return vec_push(&w->fgs, f);
}

const struct world_fg *
world_fgs(const struct world *w, size_t *n)
{
	*n = w->fgs.len;
	return w->fgs.data;
}

int
world_add_sf(struct world *w, const struct world_sf *f)
{
	return vec_push(&w->sfs, f);
}

const struct world_sf *
world_sfs(const struct world *w, size_t *n)
{
	*n = w->sfs.len;
	return w->sfs.data;
}

struct world_sf *
world_sf_at(struct world *w, size_t i)
{
	return i < w->sfs.len ? (struct world_sf *)w->sfs.data + i : NULL;
}

int
world_add_df(struct world *w, const struct world_df *f)
{
	return vec_push(&w->dfs, f);
}

const struct world_df *
world_dfs(const struct world *w, size_t *n)
{
	*n = w->dfs.len;
	return w->dfs.data;
}

struct world_df *
world_df_at(struct world *w, size_t i)
{
	return i < w->dfs.len ? (struct world_df *)w->dfs.data + i : NULL;
}

int
world_add_snapshot(struct world *w, const struct world_snapshot *s)
{
	return vec_push(&w->snaps, s);
}

const struct world_snapshot *
world_snapshots(const struct world *w, size_t *n)
{
	*n = w->snaps.len;
	return w->snaps.data;
}

/*
 * A merge sort: qsort() is not stable, and events of one time must keep
 * the order the kernel gave them.
 */
static void
merge_sort(struct world_event *a, struct world_event *tmp, size_t n)
{
	size_t mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	merge_sort(a, tmp, mid);
	merge_sort(a + mid, tmp, n - mid);
	i = 0;
	j = mid;
	k = 0;
	while (i < mid && j < n) {
		if (a[j].time_us < a[i].time_us)
			tmp[k++] = a[j++];
		else
			tmp[k++] = a[i++];
	}
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof(*a));
}

void
world_sort_events(struct world *w)
{
	struct world_event *tmp;

	if (w->events.len < 2)
		return;
	tmp = malloc(w->events.len * sizeof(*tmp));
	if (tmp == NULL)
		abort();
	merge_sort(w->events.data, tmp, w->events.len);
	free(tmp);
}

int
world_fg_at(const struct world *w, int64_t t_ns)
{
	const struct world_fg *f = w->fgs.data;
	size_t lo = 0, hi = w->fgs.len;

	/* The first change after t_ns; the one before it rules. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].t_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? -1 : f[lo - 1].app;
}

int
world_fg_index_at(const struct world *w, int64_t t_ns)
{
	const struct world_fg *f = w->fgs.data;
	size_t lo = 0, hi = w->fgs.len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].t_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? -1 : (int)(lo - 1);
}

int64_t
world_boottime(const struct world *w, int64_t t_ns)
{
	const struct world_format *f = &w->format;

	/*
	 * MONOTONIC stops while suspended and BOOTTIME runs on, so after
	 * the suspend the offset between them has grown by its length.
	 */
	if (f->suspend_len_ns > 0 && t_ns >= f->suspend_at_ns)
		return t_ns + f->boot_offset_ns + f->suspend_len_ns;
	return t_ns + f->boot_offset_ns;
}

double
world_slop_px(const struct world *w)
{
	return 8.0 * w->device.density_dpi / 160.0;
}

void
world_map(const struct world *w, int32_t raw_x, int32_t raw_y, double *x,
	  double *y)
{
	const struct world_device *d = &w->device;

	*x = (double)(raw_x - d->x_min) * d->width /
	     ((double)d->x_max - d->x_min + 1);
	*y = (double)(raw_y - d->y_min) * d->height /
	     ((double)d->y_max - d->y_min + 1);
}

int
world_add_winlist(struct world *w, const struct world_winlist *l)
{
	return vec_push(&w->winlists, l);
}

const struct world_winlist *
world_winlists(const struct world *w, size_t *n)
{
	*n = w->winlists.len;
	return w->winlists.data;
}

int
world_add_proc(struct world *w, const struct world_proc *p)
{
	return vec_push(&w->procs, p);
}

const struct world_proc *
world_procs(const struct world *w, size_t *n)
{
	*n = w->procs.len;
	return w->procs.data;
}

const struct world_winlist *
world_winlist_at(const struct world *w, int64_t t_ns)
{
	const struct world_winlist *l = w->winlists.data, *found = NULL;
	size_t i;

	for (i = 0; i < w->winlists.len && l[i].t_ns <= t_ns; i++)
		found = &l[i];
	return found;
}
