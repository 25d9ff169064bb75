/*
 * The measuring pipeline shared by replay and the live daemon: touch
 * events become contacts (touch), contacts become gestures (gesture),
 * taps and long presses are paired with their app's frames (correlate),
 * and every gesture is stored (store), counted (metrics) and announced
 * (events).  Sources feed it; it owns the touch tracker, the classifier
 * and the correlator.  Single-threaded: everything runs on the ingest
 * thread, so none of its state needs a lock.
 */
#ifndef TAPD_PIPELINE_H
#define TAPD_PIPELINE_H

#include <stdint.h>
#include <stdio.h>

#include "correlate.h"
#include "gesture.h"
#include "touch.h"

struct attrib;
struct control_request;
struct events;
struct foreground;
struct inject;
struct metrics;
struct status;
struct status_snapshot;
struct store;

/* The thresholds a user sets (--slop-px, --long-press-ms, ...). */
struct pipeline_options {
	double slop_px;		 /* < 0 when not given */
	double slop_dp;		 /* < 0 when not given */
	int64_t long_press_ns;	 /* <= 0 for the default */
	int64_t settle_quiet_ns; /* <= 0 for the default */
	int64_t settle_cap_ns;	 /* <= 0 for the default */
	int64_t launch_cap_ns;	 /* < 0 for the default; 0 turns it off */
	/*
	 * No command-line option sets these two: a replay takes them from
	 * the recording (pipeline_measure.h).  < 0 for the default.
	 */
	int64_t busy_before_ns;
	int64_t frame_latency_ns;
};

struct pipeline_config {
	struct gesture_config gesture;
	struct correlate_config correlate;
	struct store *store;	 /* required: the writer */
	struct foreground *fg;	 /* who is in front; NULL: unknown app */
	struct metrics *metrics; /* may be NULL */
	struct events *events;	 /* may be NULL: then nothing is announced */
	/* Hit-tested attribution (attrib.h); NULL: the foreground's app. */
	struct attrib *attrib;
	/* Called at every touch-down (the live foreground samples there). */
	void (*touch_down)(void *ctx, int64_t t_ns);
	/*
	 * Called for every tap and long press as it ends, with launch
	 * detection on: its launch window is [t_up_ns, end_ns) unless a
	 * touch-down comes first (the live foreground asks for the focused
	 * activity meanwhile).  NULL: not called.
	 */
	void (*launch_window)(void *ctx, int64_t t_up_ns, int64_t end_ns);
	void *ctx;
	/*
	 * The injector (inject.h), told of every contact and asked for the
	 * flags of every gesture (injected, virtual_device); NULL for none.
	 */
	struct inject *inject;
};

/* Counters of the pipeline. */
struct pipeline_stats {
	uint64_t gestures[GESTURE_KIND_COUNT];
	uint64_t dropped_gestures; /* touched by a SYN_DROPPED */
	uint64_t unattributed;	   /* of no known app */
	uint64_t finalized;	   /* taps and long presses measured */
	uint64_t frames;	   /* frames fed */
	struct touch_stats touch;
};

struct pipeline;
struct device_info;

/* Sets every option to "not given". */
void pipeline_options_init(struct pipeline_options *o);

/*
 * Fills cfg's gesture and correlation parts from the options, device.json
 * (dev, NULL when none) and the input device's own axis ranges (ax and ay,
 * NULL when unknown).  Positions map to display px when the screen size
 * and axis ranges are both known, else stay raw.  The slop is 8 dp unless
 * set; a dp is density_dpi / 160 px (1 px without a density, with a
 * warning when --slop-dp was given).
 */
void pipeline_configure(struct pipeline_config *cfg,
			const struct pipeline_options *o,
			const struct device_info *dev,
			const struct gesture_axis *ax,
			const struct gesture_axis *ay);

/*
 * Checks the thresholds of cfg as pipeline_new() does, making nothing
 * (cfg->store may still be NULL): for commands to refuse them before
 * they open the database.  Returns 0, -EINVAL (logged) or -ENOMEM.
 */
int pipeline_check(const struct pipeline_config *cfg);

/*
 * Returns 0 and sets *out; -EINVAL for thresholds that make no sense
 * (logged); -ENOMEM.  The pipeline does not own the store, foreground,
 * metrics or events.
 */
int pipeline_new(const struct pipeline_config *cfg, struct pipeline **out);

/* NULL is a no-op.  Taps still pending are dropped: finish first. */
void pipeline_free(struct pipeline *p);

/* One input event, in time order. */
int pipeline_input(struct pipeline *p, const struct touch_event *ev);

/*
 * The input device went away at t_ns: the contacts still down end there,
 * flagged input_dropped, since their real end was never seen.
 */
int pipeline_input_lost(struct pipeline *p, int64_t t_ns);

/* One presented frame, in any order. */
int pipeline_frame(struct pipeline *p, const struct correlate_frame *f);

/* The frame source covers from start_ns on (correlate_set_coverage()). */
void pipeline_set_coverage(struct pipeline *p, int64_t start_ns);

/* The correlator, for frame sources that feed it directly. */
struct correlate *pipeline_correlate(struct pipeline *p);

/*
 * REALTIME - MONOTONIC, for the wall times of taps; unset, they have
 * none.  The live daemon refreshes it as the clock is stepped.  A tap
 * whose wall time t_up + offset_ns would fall outside [0, INT64_MAX] is
 * an error (-EINVAL, logged naming the clock anchor) from the call that
 * finalizes it, never a wrapped value.
 */
void pipeline_set_wall_offset(struct pipeline *p, int64_t offset_ns);

/*
 * The wall times of a replay paced at pace times the recorded speed: the
 * event at origin_ns is at wall0_ns and each recorded second after it
 * takes 1/pace s, as the replay shows it, so that taps carry the wall
 * time at which they were replayed (and a session opened meanwhile holds
 * taps of its own time span).  Out of range as above.
 */
void pipeline_set_wall_pace(struct pipeline *p, int64_t origin_ns,
			    int64_t wall0_ns, double pace);

/* Finalizes and stores what the watermarks allow (correlate_advance()). */
int pipeline_advance(struct pipeline *p, int64_t frames_wm, int64_t input_wm);

/*
 * Finalizes early what an idle screen holds back (correlate_expire()):
 * the live frame source's business, never a replay's.
 */
int pipeline_expire(struct pipeline *p, int64_t complete_ns, unsigned flags);

/* The quiet deadline of the oldest pending tap (correlate.h), or INT64_MAX. */
int64_t pipeline_quiet_deadline(const struct pipeline *p);

/*
 * The end: finalizes everything (correlate_finish()); taps whose window
 * the data does not cover are stored as truncated.  Contacts still down
 * end nowhere (touch_end()): their gesture is not stored, and they are
 * counted (pipeline_stats.touch.cut) and warned about.
 */
int pipeline_finish(struct pipeline *p, int64_t frames_end, int64_t input_end);

/*
 * Commits what was stored and announces it on the event stream.  The
 * caller runs it after each batch of work, or on a short timer.
 */
int pipeline_flush(struct pipeline *p);

/* Serves a session request of the API (a control_handler). */
void pipeline_control(void *p, struct control_request *req);

/* The open session (0 for none). */
int64_t pipeline_session(const struct pipeline *p);

/* Whether a gesture is in progress, and how many taps wait for frames. */
int pipeline_gesture_in_progress(const struct pipeline *p);
unsigned pipeline_pending(const struct pipeline *p);

/* The apps of the taps waiting for frames (for the latency poller). */
size_t pipeline_pending_apps(const struct pipeline *p, const char **apps,
			     size_t max);

void pipeline_get_stats(const struct pipeline *p, struct pipeline_stats *st);

/*
 * Fills the pipeline's part of a status snapshot: its counters, the time
 * of the newest input event, the frame watermark frames_wm (as given to
 * pipeline_advance()) and the lag between the two.
 */
void pipeline_fill_status(const struct pipeline *p, int64_t frames_wm,
			  struct status_snapshot *s);

/* Prints the per-app table of appsum.h, the columns of tapctl apps. */
void pipeline_print_apps(struct pipeline *p, FILE *out);

#endif
