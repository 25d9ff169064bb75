#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "winscen.h"

#define SYSTEMUI   "com.android.systemui"
#define IME	   "com.google.android.inputmethod.latin"
#define PERMISSION "com.google.android.permissioncontroller"
#define PERMISSION_ACTIVITY                                                    \
	"com.android.permissioncontroller.permission.ui."                      \
	"GrantPermissionsActivity"

/* A tap lands this far inside its window and off every edge above it. */
#define MARGIN 14

/* The windows of the session; the lists are made from them. */
enum {
	W_SPY,
	W_DECOR,
	W_SHADE,
	W_BAR,
	W_NAV,
	W_IME,
	W_DIALOG,
	W_DIVIDER,
	W_APP0,
	W_APP1,
	W_WALLPAPER,
	W_COUNT,
};

struct winscen {
	enum winscen_kind kind;
	struct world *w;
	struct rng *rng;
	struct world_win win[W_COUNT];
	int32_t width, height; /* the display as it is turned */
	int orientation;
	int shown;	 /* keyboard, shade or dialog shown */
	int32_t split_y; /* top of the divider */
};

static void
rect(struct world_rect *r, int32_t l, int32_t t, int32_t rr, int32_t b)
{
	r->l = l;
	r->t = t;
	r->r = rr;
	r->b = b;
}

static int32_t
new_pid(struct winscen *ws, int32_t *pid_next)
{
	*pid_next += (int32_t)rng_range(ws->rng, 3, 400);
	return *pid_next;
}

static uint64_t
token(struct winscen *ws)
{
	uint64_t v = (uint64_t)rng_range(ws->rng, 0x10000000, 0xfffffff0);

	return 0xb400007c00000000ULL | (v & ~0xfULL);
}

/* A window with one region the size of its frame. */
static void
win(struct winscen *ws, int i, const char *name, uint32_t config, int layer,
    int32_t pid, int32_t uid, const char *package)
{
	struct world_win *x = &ws->win[i];

	memset(x, 0, sizeof(*x));
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->id = (int32_t)rng_range(ws->rng, 10, 900);
	x->config = config;
	x->nregion = 1;
	x->pid = pid;
	x->uid = uid;
	x->token = token(ws);
	x->layer = layer;
	snprintf(x->package, sizeof(x->package), "%s", package);
}

/* An activity's window: "HASH package/activity", with its record. */
static void
activity_win(struct winscen *ws, int i, const char *package,
	     const char *activity, int layer, int32_t pid, int32_t uid)
{
	struct world_win *x = &ws->win[i];
	char name[128];
	const char *short_name = activity;
	size_t n = strlen(package);
	unsigned hash = (unsigned)rng_range(ws->rng, 0x1000000, 0xfffffff);

	snprintf(name, sizeof(name), "%07x %s/%s", hash, package, activity);
	win(ws, i, name, 0, layer, pid, uid, package);
	if (strncmp(activity, package, n) == 0 && activity[n] == '.')
		short_name = activity + n;
	snprintf(x->app_name, sizeof(x->app_name),
		 "ActivityRecord{%07x u0 %s/%s t%d}",
		 (unsigned)rng_range(ws->rng, 0x1000000, 0xfffffff), package,
		 short_name, (int)rng_range(ws->rng, 20, 400));
	x->app_token = token(ws);
	/* Activities' windows come after the system's: higher ids. */
	x->id = (int32_t)rng_range(ws->rng, 100, 2000);
}

static int
add_layer(struct winscen *ws, const char *package, const char *layer,
	  int32_t pid)
{
	struct world_app a;

	memset(&a, 0, sizeof(a));
	snprintf(a.package, sizeof(a.package), "%s", package);
	snprintf(a.layer, sizeof(a.layer), "%s", layer);
	a.pid = pid;
	return world_add_app(ws->w, &a);
}

static int
add_proc(struct winscen *ws, int64_t t, const struct world_win *x)
{
	const struct world_proc *p;
	struct world_proc np;
	size_t n, i;

	p = world_procs(ws->w, &n);
	for (i = 0; i < n; i++)
		if (p[i].pid == x->pid && p[i].uid == x->uid)
			return 0;
	memset(&np, 0, sizeof(np));
	np.t_ns = t;
	np.pid = x->pid;
	np.uid = x->uid;
	snprintf(np.package, sizeof(np.package), "%s", x->package);
	return world_add_proc(ws->w, &np) < 0 ? -ENOMEM : 0;
}

static int
is_target(const struct world_win *x)
{
	return x->nregion > 0 &&
	       !(x->config & (WORLD_IC_NOT_VISIBLE | WORLD_IC_NOT_TOUCHABLE |
			      WORLD_IC_SPY));
}

/* Lays the windows out for the current state and writes the list. */
static int
publish(struct winscen *ws, int64_t t)
{
	struct world_winlist l;
	int32_t W = ws->width, H = ws->height, bar, nav;
	int order[W_COUNT], n = 0, i, rc;
	struct world_win *x;

	bar = ws->orientation ? 80 : 118;
	nav = ws->orientation ? 36 : 63;
	rect(&ws->win[W_SPY].frame, 0, 0, 0, 0);
	rect(&ws->win[W_SPY].region[0], -10 * W, -10 * H, 10 * W, 10 * H);
	rect(&ws->win[W_DECOR].frame, 0, 0, W, H);
	ws->win[W_DECOR].region[0] = ws->win[W_DECOR].frame;
	rect(&ws->win[W_BAR].frame, 0, 0, W, bar);
	rect(&ws->win[W_NAV].frame, 0, H - nav, W, H);
	rect(&ws->win[W_SHADE].frame, 0, 0, W, H);
	rect(&ws->win[W_WALLPAPER].frame, 0, 0, W, H);
	ws->win[W_WALLPAPER].nregion = 0;
	rect(&ws->win[W_APP0].frame, 0, 0, W, H);
	/* The keyboard's frame reaches above its keys: not touchable there. */
	rect(&ws->win[W_IME].frame, 0, H * 6 / 10, W, H);
	rect(&ws->win[W_IME].region[0], 0, H * 13 / 20, W, H);
	rect(&ws->win[W_DIALOG].frame, W / 12, H * 35 / 100, W - W / 12,
	     H * 66 / 100);
	if (ws->kind == WINSCEN_SPLIT) {
		rect(&ws->win[W_APP0].frame, 0, 0, W, ws->split_y);
		rect(&ws->win[W_DIVIDER].frame, 0, ws->split_y, W,
		     ws->split_y + 48);
		rect(&ws->win[W_APP1].frame, 0, ws->split_y + 48, W, H);
	}
	for (i = 0; i < W_COUNT; i++)
		if (i != W_IME && i != W_SPY && i != W_DECOR)
			ws->win[i].region[0] = ws->win[i].frame;
	ws->win[W_SHADE].config = WORLD_IC_TRUSTED_OVERLAY;
	ws->win[W_IME].config =
		WORLD_IC_NOT_FOCUSABLE | WORLD_IC_TRUSTED_OVERLAY;
	if (!ws->shown) {
		ws->win[W_SHADE].config |=
			WORLD_IC_NOT_VISIBLE | WORLD_IC_NOT_FOCUSABLE;
		ws->win[W_IME].config |= WORLD_IC_NOT_VISIBLE;
	}

	order[n++] = W_SPY;
	order[n++] = W_DECOR;
	if (ws->kind == WINSCEN_SHADE)
		order[n++] = W_SHADE;
	order[n++] = W_BAR;
	order[n++] = W_NAV;
	if (ws->kind == WINSCEN_IME || ws->kind == WINSCEN_ROTATED)
		order[n++] = W_IME;
	if (ws->kind == WINSCEN_DIALOG && ws->shown)
		order[n++] = W_DIALOG;
	if (ws->kind == WINSCEN_SPLIT) {
		order[n++] = W_DIVIDER;
		order[n++] = W_APP1;
	}
	order[n++] = W_APP0;
	order[n++] = W_WALLPAPER;

	memset(&l, 0, sizeof(l));
	l.t_ns = t;
	l.orientation = ws->orientation;
	l.width = W;
	l.height = H;
	l.focus = -1;
	l.n = n;
	for (i = 0; i < n; i++) {
		x = &ws->win[order[i]];
		l.win[i] = *x;
		if (l.focus < 0 && !(x->config & (WORLD_IC_NOT_FOCUSABLE |
						  WORLD_IC_NOT_VISIBLE)))
			l.focus = i;
		rc = add_proc(ws, t, x);
		if (rc < 0)
			return rc;
	}
	return world_add_winlist(ws->w, &l) < 0 ? -ENOMEM : 0;
}

static void
system_windows(struct winscen *ws, const struct winscen_env *env,
	       int32_t ui_uid)
{
	const struct world_app *apps;
	size_t napps;
	int32_t ui = 0, home = 0, home_uid;
	char name[128];

	apps = world_apps(env->w, &napps);
	ui = apps[env->bar].pid;
	home = apps[env->launcher].pid;
	home_uid = (int32_t)rng_range(ws->rng, 10100, 10150);
	win(ws, W_SPY, "[Gesture Monitor] swipe-up",
	    WORLD_IC_NOT_FOCUSABLE | WORLD_IC_TRUSTED_OVERLAY | WORLD_IC_SPY,
	    env->launcher, home, home_uid,
	    "com.google.android.apps.nexuslauncher");
	snprintf(ws->win[W_SPY].app_name, sizeof(ws->win[W_SPY].app_name), "%s",
		 ws->win[W_SPY].name);
	win(ws, W_DECOR, "ScreenDecorOverlay",
	    WORLD_IC_NOT_FOCUSABLE | WORLD_IC_NOT_TOUCHABLE |
		    WORLD_IC_TRUSTED_OVERLAY,
	    env->bar, ui, ui_uid, SYSTEMUI);
	snprintf(name, sizeof(name), "%07x StatusBar",
		 (unsigned)rng_range(ws->rng, 0x1000000, 0xfffffff));
	win(ws, W_BAR, name, WORLD_IC_NOT_FOCUSABLE | WORLD_IC_TRUSTED_OVERLAY,
	    env->bar, ui, ui_uid, SYSTEMUI);
	snprintf(name, sizeof(name), "%07x NavigationBar0",
		 (unsigned)rng_range(ws->rng, 0x1000000, 0xfffffff));
	win(ws, W_NAV, name, WORLD_IC_NOT_FOCUSABLE | WORLD_IC_TRUSTED_OVERLAY,
	    env->bar, ui, ui_uid, SYSTEMUI);
	snprintf(name, sizeof(name),
		 "%07x com.android.systemui.wallpapers.ImageWallpaper",
		 (unsigned)rng_range(ws->rng, 0x1000000, 0xfffffff));
	win(ws, W_WALLPAPER, name,
	    WORLD_IC_NOT_VISIBLE | WORLD_IC_NOT_FOCUSABLE |
		    WORLD_IC_NOT_TOUCHABLE | WORLD_IC_PREVENT_SPLITTING |
		    WORLD_IC_IS_WALLPAPER,
	    -1, ui, ui_uid, SYSTEMUI);
}

int
winscen_new(enum winscen_kind kind, const struct winscen_env *env, int64_t t_ns,
	    struct winscen **out)
{
	const struct world_app *apps;
	struct winscen *ws;
	size_t napps;
	int32_t ui_uid, pid;
	char name[160];
	int layer, rc = -ENOMEM;

	if (kind == WINSCEN_NONE)
		return -EINVAL;
	ws = calloc(1, sizeof(*ws));
	if (ws == NULL)
		return -ENOMEM;
	ws->kind = kind;
	ws->w = env->w;
	ws->rng = env->rng;
	ws->width = 1080;
	ws->height = 2400;
	if (kind == WINSCEN_ROTATED) {
		ws->orientation = 1;
		ws->width = 2400;
		ws->height = 1080;
	}
	ws->split_y = 1176;
	ui_uid = (int32_t)rng_range(ws->rng, 10040, 10090);
	system_windows(ws, env, ui_uid);
	apps = world_apps(env->w, &napps);
	activity_win(ws, W_APP0, apps[env->app[0]].package, env->activity[0],
		     env->app[0], apps[env->app[0]].pid,
		     (int32_t)rng_range(ws->rng, 10160, 10220));
	if (env->app[1] >= 0)
		activity_win(ws, W_APP1, apps[env->app[1]].package,
			     env->activity[1], env->app[1],
			     apps[env->app[1]].pid,
			     (int32_t)rng_range(ws->rng, 10230, 10290));
	pid = apps[env->bar].pid;
	snprintf(name, sizeof(name), "%07x DockedStackDivider",
		 (unsigned)rng_range(ws->rng, 0x1000000, 0xfffffff));
	win(ws, W_DIVIDER, name,
	    WORLD_IC_NOT_FOCUSABLE | WORLD_IC_TRUSTED_OVERLAY, env->bar, pid,
	    ui_uid, SYSTEMUI);
	/* The shade draws on a layer of its own, in SystemUI's process. */
	snprintf(name, sizeof(name), "NotificationShade#%d",
		 (int)rng_range(ws->rng, 40, 900));
	layer = add_layer(ws, SYSTEMUI, name, pid);
	if (layer < 0)
		goto out;
	snprintf(name, sizeof(name), "%07x NotificationShade",
		 (unsigned)rng_range(ws->rng, 0x1000000, 0xfffffff));
	win(ws, W_SHADE, name, 0, layer, pid, ui_uid, SYSTEMUI);
	/* The keyboard is a process of its own. */
	pid = new_pid(ws, env->pid_next);
	snprintf(name, sizeof(name), "InputMethod#%d",
		 (int)rng_range(ws->rng, 40, 900));
	layer = add_layer(ws, IME, name, pid);
	if (layer < 0)
		goto out;
	snprintf(name, sizeof(name), "%07x InputMethod",
		 (unsigned)rng_range(ws->rng, 0x1000000, 0xfffffff));
	win(ws, W_IME, name, 0, layer, pid,
	    (int32_t)rng_range(ws->rng, 10300, 10340), IME);
	/* So is the app whose dialog opens over the foreground one. */
	pid = new_pid(ws, env->pid_next);
	snprintf(name, sizeof(name), "TX - %s/%s#%d", PERMISSION,
		 PERMISSION_ACTIVITY, (int)rng_range(ws->rng, 40, 1500));
	layer = add_layer(ws, PERMISSION, name, pid);
	if (layer < 0)
		goto out;
	activity_win(ws, W_DIALOG, PERMISSION, PERMISSION_ACTIVITY, layer, pid,
		     (int32_t)rng_range(ws->rng, 10350, 10390));
	ws->shown = kind == WINSCEN_ROTATED;
	rc = publish(ws, t_ns);
	if (rc < 0)
		goto out;
	*out = ws;
	ws = NULL;
out:
	free(ws);
	return rc;
}

void
winscen_free(struct winscen *ws)
{
	free(ws);
}

int
winscen_step(struct winscen *ws, int64_t t_ns, int *anim)
{
	int rc;

	*anim = -1;
	if (!rng_chance(ws->rng, 0.3))
		return 0;
	switch (ws->kind) {
	case WINSCEN_SPLIT:
		ws->split_y = (int32_t)rng_range(ws->rng, 700, 1600);
		*anim = ws->win[W_DIVIDER].layer;
		break;
	case WINSCEN_IME:
	case WINSCEN_ROTATED:
		ws->shown = !ws->shown;
		*anim = ws->win[W_IME].layer;
		break;
	case WINSCEN_SHADE:
		ws->shown = !ws->shown;
		*anim = ws->win[W_SHADE].layer;
		break;
	case WINSCEN_DIALOG:
		ws->shown = !ws->shown;
		*anim = ws->win[W_DIALOG].layer;
		break;
	case WINSCEN_NONE:
		return 0;
	}
	rc = publish(ws, t_ns);
	return rc < 0 ? rc : 1;
}

/* (x, y) is within MARGIN of r, edges included. */
static int
near(const struct world_rect *r, double x, double y)
{
	return x > r->l - MARGIN && x < r->r + MARGIN && y > r->t - MARGIN &&
	       y < r->b + MARGIN;
}

int
winscen_point(struct winscen *ws, double *x, double *y, int *layer)
{
	const struct world_winlist *l;
	const struct world_win *cand[WORLD_WIN_MAX], *t;
	const struct world_rect *r;
	size_t nl;
	int n = 0, i, j, k, tries, ok;
	double px, py;

	l = world_winlists(ws->w, &nl);
	l = &l[nl - 1];
	/* The bars and the divider take touches, but no tap aims at them. */
	for (i = 0; i < l->n; i++)
		if (is_target(&l->win[i]) &&
		    strcmp(l->win[i].name, ws->win[W_BAR].name) != 0 &&
		    strcmp(l->win[i].name, ws->win[W_NAV].name) != 0 &&
		    strcmp(l->win[i].name, ws->win[W_DIVIDER].name) != 0)
			cand[n++] = &l->win[i];
	if (n == 0)
		return -EAGAIN;
	for (tries = 0; tries < 20000; tries++) {
		/* The upper windows first: the keyboard, the shade, a dialog.
		 */
		k = rng_chance(ws->rng, 0.6)
			    ? 0
			    : (int)rng_range(ws->rng, 0, n - 1);
		t = cand[k];
		r = &t->region[0];
		if (r->r - r->l < 4 * MARGIN || r->b - r->t < 4 * MARGIN)
			continue;
		px = rng_real(ws->rng, r->l + 2 * MARGIN, r->r - 2 * MARGIN);
		py = rng_real(ws->rng, r->t + 2 * MARGIN, r->b - 2 * MARGIN);
		ok = 1;
		for (j = 0; j < l->n && &l->win[j] != t && ok; j++)
			if (is_target(&l->win[j]) &&
			    near(&l->win[j].region[0], px, py))
				ok = 0;
		if (!ok)
			continue;
		*layer = t->layer;
		/*
		 * Back to the panel: a quarter turn maps the panel's (x, y)
		 * to (y, width - 1 - x) on the display.
		 */
		if (ws->orientation == 1) {
			*x = ws->height - 1 - py + 0.5;
			*y = px;
		} else {
			*x = px;
			*y = py;
		}
		return 0;
	}
	return -EAGAIN;
}
