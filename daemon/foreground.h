/*
 * Foreground timeline: which app was in the foreground when, kept as the
 * list of switches (t_ns, pid, package, activity) in time order.  A tap
 * is attributed to the switch in force at its t_up: the latest with
 * t_entry <= t.
 *
 * Sources (docs/DESIGN.md 7.4, docs/formats.md 4.3):
 *  - log:FILE, a recorded session's foreground.log, one line per switch,
 *    "<monotonic_ns> <pid> <package> [activity]" separated by blanks: the
 *    fourth field, the focused activity's class name, is optional (see
 *    FOREGROUND_ACTIVITY_MAX; a leading '.' stands for the package, as
 *    Android writes "com.foo/.Main", and is expanded).  Blank lines
 *    and lines starting with '#' are skipped.  A malformed line (a field
 *    missing or extra, a number out of range, a bad package name, a line
 *    over FOREGROUND_LINE_MAX bytes or with a NUL byte) is skipped and
 *    counted.  Equal times keep file order, so the later line wins.  A
 *    line whose time is earlier than a switch before it (a log recorded
 *    twice into one file, or two logs merged) ends the log: it and every
 *    line after it are not used, the jump is kept (foreground_get_jump())
 *    and logged as an error naming the file and the line, and the replay
 *    stops at the last switch before it, as it does for a getevent log
 *    (input_getevent.h).  Sorting such a log would interleave two
 *    recordings and give taps the app of the other one.
 *  - app:PACKAGE, one app in the foreground at all times, pid 0
 *    (unknown).
 *  - the live tracker, which appends with foreground_add().
 *
 * A package is 1 to FOREGROUND_PACKAGE_MAX characters of [A-Za-z0-9._:-]
 * (':' for process names such as "com.foo:remote"); a pid is 0 (unknown)
 * to FOREGROUND_PID_MAX.  An activity is 1 to FOREGROUND_ACTIVITY_MAX
 * characters of [A-Za-z0-9._$], or unknown (NULL).
 *
 * Completeness: a lookup of the switches after a time (launch detection,
 * foreground_find_change()) needs to know that no switch up to some time
 * is still to come.  A log or a static timeline is complete at every
 * time (INT64_MAX); a timeline made by foreground_new() is complete
 * nowhere (INT64_MIN) until its writer says how far it is
 * (foreground_set_complete()).
 */
#ifndef TAPD_FOREGROUND_H
#define TAPD_FOREGROUND_H

#include <stdint.h>
#include <stdio.h>

#define FOREGROUND_PACKAGE_MAX	255
#define FOREGROUND_PID_MAX	4194304
#define FOREGROUND_LINE_MAX	512
#define FOREGROUND_ENTRIES_MAX	1000000
#define FOREGROUND_ACTIVITY_MAX 255

/* One switch of the timeline; its strings belong to the timeline. */
struct foreground_switch {
	int64_t t_ns;
	int32_t pid;
	const char *package;
	const char *activity; /* NULL when unknown */
};

/* Counters since the timeline was made. */
struct foreground_stats {
	uint64_t lines;	    /* log lines read, blanks and comments included */
	uint64_t malformed; /* log lines skipped as malformed */
	uint64_t reordered; /* foreground_add(): switches older than the last */
	uint64_t dropped;   /* switches refused past FOREGROUND_ENTRIES_MAX */
	uint64_t entries;   /* switches held now */
};

/* Where a foreground log's time went back first. */
struct foreground_jump {
	uint64_t line;	 /* the line that went back, from 1 */
	int64_t from_ns; /* the latest switch before it */
	int64_t to_ns;	 /* its own time, less than from_ns */
};

struct foreground;

/* An empty timeline.  Returns 0 and sets *out, or -ENOMEM. */
int foreground_new(struct foreground **out);

/*
 * A timeline where package, with pid 0, is in the foreground at every
 * time.  Returns 0 and sets *out, -EINVAL for an invalid package name, or
 * -ENOMEM.
 */
int foreground_new_static(const char *package, struct foreground **out);

/*
 * Reads a foreground log from path.  Returns 0 and sets *out (even when
 * every line was malformed: the stats say so, and when its time went
 * back: foreground_get_jump() says where), or a negative errno when the
 * file cannot be opened or read.
 */
int foreground_load_log(const char *path, struct foreground **out);

/*
 * The same from an open stream, which stays open; name is used in
 * messages only.
 */
int foreground_load_stream(FILE *fp, const char *name, struct foreground **out);

/*
 * Builds a timeline from a --foreground argument: "log:FILE" or
 * "app:PACKAGE".  Returns 0 and sets *out, -EINVAL for any other spec
 * ("auto" is the live tracker's, not this module's), or what the loader
 * returned.
 */
int foreground_open(const char *spec, struct foreground **out);

/* NULL is a no-op. */
void foreground_free(struct foreground *fg);

/*
 * Appends a switch.  A switch older than the last one goes into its place
 * (after any of equal time) and is counted as reordered.  Returns 0,
 * -EINVAL for an invalid pid, package or negative time, -ENOSPC past
 * FOREGROUND_ENTRIES_MAX switches, or -ENOMEM.  package is copied.
 */
int foreground_add(struct foreground *fg, int64_t t_ns, int32_t pid,
		   const char *package);

/*
 * The same with the focused activity (NULL when unknown; a leading '.' is
 * expanded to the package).  -EINVAL also for an invalid activity.
 */
int foreground_add_activity(struct foreground *fg, int64_t t_ns, int32_t pid,
			    const char *package, const char *activity);

/*
 * The switch in force at t_ns, with its activity: returns 0 and fills *sw,
 * or -ENOENT before the first switch.  Its strings stay valid until
 * foreground_prune() or foreground_free().
 */
int foreground_switch_at(const struct foreground *fg, int64_t t_ns,
			 struct foreground_switch *sw);

/*
 * The first switch with from_ns < t < until_ns that changes what was in
 * force at from_ns: another package, or the same package with another
 * activity (both known).  A switch that changes only the pid, or names the
 * same package and activity, changes nothing.  Of several switches at one
 * time only the last counts, as it is the one in force at that time.  Returns 1
 * and fills *sw, 0 when there is none, or -ENOENT when nothing is in force at
 * from_ns.
 */
int foreground_find_change(const struct foreground *fg, int64_t from_ns,
			   int64_t until_ns, struct foreground_switch *sw);

/*
 * How far the timeline is complete (see "Completeness"), and its writer's
 * way to move it; it only moves forward.
 */
int64_t foreground_complete(const struct foreground *fg);
void foreground_set_complete(struct foreground *fg, int64_t t_ns);

/* Returns 1 when s is a valid activity name, else 0. */
int foreground_valid_activity(const char *s);

/*
 * The switch in force at t_ns: returns 0 and sets *pid and *package, or
 * -ENOENT when t_ns is before the first switch (the app is unknown).
 * Either out-param may be NULL.  *package stays valid until
 * foreground_prune() or foreground_free().
 */
int foreground_at(const struct foreground *fg, int64_t t_ns, int32_t *pid,
		  const char **package);

/*
 * Forgets the switches that no lookup at or after before_ns can return,
 * keeping the one in force at before_ns: for the live tracker, which
 * would otherwise grow without end.
 */
void foreground_prune(struct foreground *fg, int64_t before_ns);

void foreground_get_stats(const struct foreground *fg,
			  struct foreground_stats *st);

/*
 * Where the log's time went back: returns 0 and fills *j, or -ENOENT when
 * it never did (and for a timeline that is no log).
 */
int foreground_get_jump(const struct foreground *fg, struct foreground_jump *j);

/* Returns 1 when s is a valid package name, else 0. */
int foreground_valid_package(const char *s);

#endif
