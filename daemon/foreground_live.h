/*
 * Live foreground tracking on Android: which app is on top, sampled from
 * the top-app cpuset and appended to a foreground timeline at each change.
 *
 * A sample (foreground_topapp.h) reads
 * <sysroot>/dev/cpuset/top-app/cgroup.procs, then for each
 * pid /proc/<pid>/stat (its start time).  A pid seen before with the same
 * start time is answered from a cache; a new one, or a reused pid, is read
 * from /proc/<pid>/cmdline (the process name: its first NUL-terminated
 * argument, less any ":service" suffix, is the package) and
 * /proc/<pid>/status (the uid).  App processes are the candidates: a name
 * of [A-Za-z0-9._] holding a dot and, when the uid is known, an app id
 * (uid % 100000) of at least 10000, or 1000 or 1001 (Settings and Phone
 * share the system and radio uids).  Native processes (paths, or dotted
 * names such as "media.codec" with daemon uids), system_server and kernel
 * threads are ignored.  Processes of one package (com.foo and
 * com.foo:remote) count once, as the main process when it is there.
 *
 * Which candidate is the foreground:
 *  - com.android.systemui joins top-app while it shows top UI (the shade,
 *    animations), so it is chosen only when it is the only candidate;
 *  - one other package: that one;
 *  - several (split screen, a launcher animating, an app starting): the
 *    focus that `<dumpsys_bin> window` prints (mCurrentFocus first, then
 *    mFocusedApp, in every spelling Android 4 to 15 uses: see
 *    foreground_window.h).  dumpsys runs as a child (child.h: argv, no
 *    shell) with a timeout, only when that set of candidates changed or
 *    the last answer is older than the refresh period, since it costs a
 *    binder dump of system_server;
 *  - when dumpsys fails, times out or names none of them, the fallback
 *    rule picks, and the health says degraded and why: the lowest
 *    /proc/<pid>/oom_score_adj (0 is the top app, 100 a visible one such
 *    as a launcher animating), then the current foreground, then the
 *    newest process, then the lowest pid.  After a failure dumpsys
 *    waits 1 s, doubling up to a minute, even when the set changes: a
 *    hanging dumpsys must not stall every sample.
 *  - no candidate at all (screen off, only native processes): nothing is
 *    appended; the last switch stays in force.
 *
 * Launch windows (docs/DESIGN.md 1.5.1).  A navigation is a change of the
 * focused activity of the same app, which top-app cannot show.  So while
 * a tap's launch window is open (foreground_live_launch_window(): from
 * its t_up until its launch cap or the next touch-down,
 * foreground_live_touch_down()), every sample also asks dumpsys for the
 * focus when one app holds top-app, and with several ignores the answer
 * it keeps: the window opens with a sample at t_up, for the activity in
 * force there, and the samples that follow (once a second) see a change.
 * The app of such a sample is applied at once, as without a window; the
 * activity dumpsys names goes in when its answer comes, at the sample's
 * time, appended as a switch of the same app with that activity (an
 * answer that names another app, or fails, adds nothing and leaves the
 * health alone: the app is certain).  Outside launch windows nothing of
 * this runs: an idle phone costs what it did.  With one dumpsys at a
 * time, a window costs one run at t_up and at most one a second after.
 *
 * Waiting for dumpsys.  With a loop in the config, a sample never waits
 * for dumpsys: it starts it and returns, and the answer is taken when the
 * child exits, from the loop.  Until then the foreground stays what it
 * was (the previous known state: a tap sampled meanwhile gets that app,
 * and no sample starts a second dumpsys); the answer is then read against
 * the candidates of the sample that asked, and its choice appended to the
 * timeline at that sample's time, so that the taps since are attributed
 * as if dumpsys had answered at once.  Only when a later sample has
 * appended a switch in the meantime (one app left) is the answer kept for
 * the next samples without being appended.  Without a loop (tests, tools),
 * a sample waits for the answer: at most dumpsys_timeout_ms, and
 * CHILD_KILL_GRACE_MS more for a dumpsys that ignores SIGTERM.  Beyond
 * that, a sample does a few file reads.  Health goes to
 * STATUS_SOURCE_FOREGROUND, kind "top-app". Not thread-safe: one thread owns
 * the object.
 */
#ifndef TAPD_FOREGROUND_LIVE_H
#define TAPD_FOREGROUND_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "foreground.h"

struct loop;
struct record;
struct status;

/* Largest number of pids of top-app looked at in one sample. */
#define FOREGROUND_LIVE_PIDS_MAX 512

struct foreground_live_config {
	/* Prefix of every /dev and /proc path (tests only); NULL or "". */
	const char *sysroot;
	/* The dumpsys program, searched in PATH; NULL for "dumpsys". */
	const char *dumpsys_bin;
	/* How long dumpsys may take before it is killed; 0 for 500 ms. */
	int dumpsys_timeout_ms;
	/*
	 * How long the focus dumpsys gave stays good for an unchanged set of
	 * candidates; 0 for 5000 ms.
	 */
	int dumpsys_refresh_ms;
	/* Where the health of STATUS_SOURCE_FOREGROUND goes; may be NULL. */
	struct status *status;
	/*
	 * The loop that reads dumpsys's answers (see "Waiting for dumpsys");
	 * NULL: samples wait for them.  It must outlive the tracker.
	 */
	struct loop *loop;
	/* tapd run --record: each switch is copied there; NULL: nowhere. */
	struct record *record;
};

/* Counters since foreground_live_new(). */
struct foreground_live_stats {
	uint64_t samples;	   /* foreground_live_sample() calls */
	uint64_t switches;	   /* switches appended to the timeline */
	uint64_t dumpsys_calls;	   /* dumpsys children started */
	uint64_t focus_calls;	   /* of them, for one app's activity */
	uint64_t dumpsys_failures; /* failed, timed out or killed */
	uint64_t dumpsys_unnamed;  /* ran fine but named no candidate */
	uint64_t fallbacks;	   /* choices made by the fallback rule */
	uint64_t cache_hits;	   /* pids answered from the cache */
	uint64_t cache_misses;	   /* pids read from /proc */
	uint64_t vanished;	   /* pids gone before /proc was read */
	uint64_t proc_errors;	   /* pids whose /proc files were unreadable */
	uint64_t garbage;	   /* cgroup.procs lines that are not pids */
	uint64_t dropped_pids;	   /* pids past FOREGROUND_LIVE_PIDS_MAX */
	uint64_t add_errors;	   /* switches the timeline refused */
	/*
	 * The longest wall time of a foreground_live_sample() call or of the
	 * loop's dispatch of dumpsys's output and exit: how long the tracker
	 * held its loop.  Without a loop it includes dumpsys's run.
	 */
	int64_t longest_call_ns;
};

struct foreground_live;

/*
 * Makes a tracker that appends to timeline, which the caller owns and
 * must keep until foreground_live_free().  Reads nothing yet.  Returns 0
 * and sets *out, -EINVAL for a bad config or a sysroot path too long, or
 * -ENOMEM.
 */
int foreground_live_new(const struct foreground_live_config *cfg,
			struct foreground *timeline,
			struct foreground_live **out);

/* NULL is a no-op.  The timeline is left alone. */
void foreground_live_free(struct foreground_live *fl);

/*
 * Samples the foreground at now_ns (CLOCK_MONOTONIC), and appends
 * (now_ns, pid, package) to the timeline when the foreground differs from
 * the last one this tracker appended; when dumpsys must decide, see
 * "Waiting for dumpsys" for when.  Returns 0 (also when top-app holds
 * no app), -ENOENT when top-app does not exist (not Android: health
 * "down"), another negative errno when it cannot be read, or -ENOMEM.
 */
int foreground_live_sample(struct foreground_live *fl, int64_t now_ns);

/*
 * A finger went down at t_ns: closes the launch window open, if any,
 * then samples as foreground_live_sample().
 */
int foreground_live_touch_down(struct foreground_live *fl, int64_t t_ns);

/*
 * A tap ended at t_up_ns, and its launch window lasts until end_ns (t_up
 * plus the launch cap) unless a touch-down comes first: opens it (see
 * "Launch windows") and samples at t_up_ns, or just after the latest
 * sample when that is later.  Returns 0 when end_ns <= t_up_ns (nothing
 * opens), else what foreground_live_sample() returns.
 */
int foreground_live_launch_window(struct foreground_live *fl, int64_t t_up_ns,
				  int64_t end_ns);

/*
 * The foreground as of the last sample, or of the last answer of dumpsys
 * taken since: returns 0 and sets *pid and
 * *package (valid until the next sample), or -ENOENT before the first
 * app was seen.  Either out-param may be NULL.
 */
int foreground_live_current(const struct foreground_live *fl, int32_t *pid,
			    const char **package);

void foreground_live_get_stats(const struct foreground_live *fl,
			       struct foreground_live_stats *st);

#endif
