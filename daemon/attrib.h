/*
 * Whose tap it was: the owner of the window the touch landed on
 * (docs/DESIGN.md 3.5.2), decided once per gesture from the window list
 * in force when it ended.
 *
 * The point is where the gesture's first contact went down, in the
 * panel's raw coordinates (attrib_down()); it is mapped to display 0 and
 * hit-tested against the list (hittest.h, trusted overlays included: the
 * keyboard and the shade take their touches).  The list in force at a
 * time t is the newest one read at or before t: from a recorded
 * windows.log in a replay (windows_log.h), from the daemon's own reads
 * of `dumpsys input` live (attrib_live.h), which records them there so
 * that a replay decides as the live run did.
 *
 * The decision, attrib_decide(), at the gesture's t_up:
 *  - "window": a window took the point.  The tap's pid is the window's
 *    ownerPid (0 when not printed), its app the owner's package: from
 *    processes.log in a replay, from /proc and packages.list live
 *    (owner.h); when neither tells, the foreground's package if the
 *    foreground's pid is the owner's, else unknown.  Its window is the
 *    window's name as dumpsys input prints it.
 *  - "none": a list was in force and mapped the point (it has display 0
 *    with a viewport or a logical size, and the panel's axis ranges are
 *    known), but no window of the display takes it.  The app and pid
 *    stay the foreground's.
 *  - "foreground": no list could be used: none was read (--windows none,
 *    no windows.log, no dumpsys), none is in force yet, the one in force
 *    is empty (a read that failed, or the mark the live daemon writes
 *    when the foreground changed and the old list no longer holds), it
 *    has no display 0, or the panel's axis ranges are unknown.  The app
 *    and pid are the foreground's, as without hit-testing.
 */
#ifndef TAPD_ATTRIB_H
#define TAPD_ATTRIB_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "foreground.h"
#include "gesture.h"
#include "hittest.h"
#include "winlist.h"

/* How a tap's app was decided. */
enum attrib_how {
	ATTRIB_FOREGROUND = 0,
	ATTRIB_WINDOW,
	ATTRIB_NONE,
};

/* The display touches are hit-tested on: the built-in screen. */
#define ATTRIB_DISPLAY 0

struct attrib_result {
	enum attrib_how how;
	int32_t pid;	    /* 0 when unknown */
	const char *app;    /* NULL when unknown */
	const char *window; /* NULL unless ATTRIB_WINDOW */
};

struct attrib_stats {
	uint64_t decided[3];	/* by enum attrib_how */
	uint64_t no_list;	/* foreground: no list in force, or empty */
	uint64_t no_display;	/* foreground: the list cannot map the point */
	uint64_t owner_unknown; /* window: no package for its owner */
	uint64_t owner_from_fg; /* window: the foreground's, by its pid */
	uint64_t reads;		/* live: dumpsys input started */
	uint64_t lists;		/* live: lists taken in */
	uint64_t read_failures; /* live: failed, killed or empty */
	uint64_t invalidations; /* live: the foreground changed */
	uint64_t processes_lines; /* live: processes.log lines written */
};

struct attrib;

/*
 * An attribution without lists: every tap goes to the foreground until
 * lists are given.  axes are the touch panel's raw ranges, NULL when
 * unknown.  Returns 0 and sets *out, or -ENOMEM.
 */
int attrib_new(const struct hittest_axes *axes, struct attrib **out);

/* NULL is a no-op. */
void attrib_free(struct attrib *a);

/*
 * Replay: the window lists of a --windows spec, "log:FILE" or "none",
 * and the owners of a --processes spec, "log:FILE".  Returns 0, -EINVAL
 * for another spec (logged), or the loader's errno (logged).
 */
int attrib_open_windows(struct attrib *a, const char *spec);
int attrib_open_processes(struct attrib *a, const char *spec);

/* Whether any list can be in force (a log, or the live reader). */
int attrib_has_lists(const struct attrib *a);

/*
 * The first contact of a gesture went down at t_ns at the raw panel
 * point (x, y).  Live, this is when a list is read if the cached one is
 * stale (attrib_live.h).
 */
void attrib_down(struct attrib *a, int64_t t_ns, int32_t x, int32_t y);

/*
 * Decides the gesture that ended at t_ns, as the header says, given the
 * foreground's pid (0 unknown) and package (NULL unknown).  Always fills
 * *res; its strings stay valid until the next call or attrib_free().
 * Returns 0.
 */
int attrib_decide(struct attrib *a, int64_t t_ns, int32_t fg_pid,
		  const char *fg_app, struct attrib_result *res);

void attrib_get_stats(const struct attrib *a, struct attrib_stats *st);

/*
 * The touch panel's raw ranges: device.json's touch ranges (dev, NULL
 * for none), else the input device's own (ax and ay, NULL when
 * unknown).  Returns 0 and fills *out, or -ENOENT when neither is known.
 */
int attrib_axes(const struct device_info *dev, const struct gesture_axis *ax,
		const struct gesture_axis *ay, struct hittest_axes *out);

/*
 * The viewport of display_id in the newest window list read live (the
 * rotation injected gestures are mapped through, inject_seq.h); the marks
 * of a foreground change hold no list and are passed over, since a new
 * foreground seldom turns the display.  Returns 0 and fills *out, or
 * -ENOENT without a list or a viewport.
 */
int attrib_viewport(const struct attrib *a, int32_t display_id,
		    struct winlist_viewport *out);

/* "window", "foreground", "none": the taps.attribution column. */
const char *attrib_how_name(enum attrib_how how);

#endif
