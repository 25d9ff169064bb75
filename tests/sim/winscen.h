/*
 * The window scenarios: windows over the app that take some taps (a
 * keyboard, the notification shade, a dialog of another app), two apps
 * in split screen, a display turned by a quarter.  This module keeps the
 * window lists (world_winlist) and the owners (world_proc) of the
 * session, changes them between gestures, and picks each tap's point and
 * the layer that answers it: the owner of the window that takes it.
 */
#ifndef TAPD_SIM_WINSCEN_H
#define TAPD_SIM_WINSCEN_H

#include <stdint.h>

#include "rng.h"
#include "world.h"

enum winscen_kind {
	WINSCEN_NONE = 0,
	WINSCEN_IME,	 /* a keyboard over the bottom of the app */
	WINSCEN_SHADE,	 /* the notification shade pulled down */
	WINSCEN_SPLIT,	 /* two apps, one above the other */
	WINSCEN_ROTATED, /* the display turned by 90 degrees, a keyboard */
	WINSCEN_DIALOG,	 /* another app's dialog over the app */
};

/* What the scenario made before: the layers and pids it has. */
struct winscen_env {
	struct world *w;
	struct rng *rng;
	int32_t *pid_next;	 /* the last pid given out, advanced */
	int app[2];		 /* the apps' main layers; app[1] may be -1 */
	const char *activity[2]; /* their activities' class names */
	int bar;		 /* SystemUI's status bar layer */
	int launcher;		 /* the launcher's layer */
};

struct winscen;

/*
 * Makes the windows of a scenario and writes its first list at t_ns.
 * Returns 0 and sets *out, or -ENOMEM, -EINVAL for WINSCEN_NONE.
 */
int winscen_new(enum winscen_kind kind, const struct winscen_env *env,
		int64_t t_ns, struct winscen **out);

/* NULL is a no-op. */
void winscen_free(struct winscen *ws);

/*
 * Between gestures: maybe changes the windows at t_ns (a keyboard shown
 * or hidden, the shade pulled, a dialog opened, the split moved) and
 * writes the new list.  Returns 1 when it did, with *anim the layer that
 * animates the change, 0 when nothing changed, or -ENOMEM.
 */
int winscen_step(struct winscen *ws, int64_t t_ns, int *anim);

/*
 * The touch-down point of the next tap, in the panel's natural display
 * px (what the touch generator takes), well inside one window of the
 * current list and clear of the others' edges, and the layer of that
 * window's owner.  Returns 0, or -EAGAIN when no point fits.
 */
int winscen_point(struct winscen *ws, double *x, double *y, int *layer);

#endif
