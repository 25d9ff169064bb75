/*
 * Correlator: pairs each tap (and long press) with the frames its app
 * presented afterwards, exactly as docs/DESIGN.md 1 defines, and emits
 * one finalized result per tap.  A pure state machine: no threads, files
 * or clocks.  Frames may arrive in any order and long after the tap; a tap
 * is finalized only once the frame source's watermark and the input's
 * watermark have both passed the end of its response window, so replay
 * and live runs give the same answers; the one exception is a live idle
 * screen's, correlate_expire().
 *
 * Definitions (all times CLOCK_MONOTONIC ns):
 *
 *  - The response window of a tap runs from t_up to window_end, the
 *    earlier of t_up + settle_cap and the first touch-down after t_up
 *    (correlate_touch_down()).  It is [t_up, window_end): a frame that
 *    starts exactly at window_end is outside.
 *  - A frame matches a tap when both have a pid > 0 and the pids are
 *    equal; otherwise when the frame's app is set and equals the tap's
 *    app; otherwise when the frame's layer belongs to the tap's app, as
 *    layername_package() decides (a window's layer, its SurfaceView's,
 *    its splash screen's: layername.h).
 *  - Response frames: matching frames with start_ns in the window, in
 *    present order (ties by start, then by arrival).
 *  - first_frame = present of the first response frame - t_up.
 *  - The burst: response frames R[0..k], where k is the largest index
 *    such that every R[i].present - R[i-1].present <= settle_quiet for
 *    0 < i <= k.  settle = R[k].present - t_up.
 *  - The burst still runs at the end of the window when k is the last
 *    response frame and window_end < R[k].present + settle_quiet: then
 *    the tap is flagged settle_capped if the window ended at the cap, or
 *    interrupted if it ended at the next touch-down.
 *  - busy_before: a matching frame presented in [t_up - busy_before,
 *    t_up).
 *  - frames = number of response frames (all of them, not only the
 *    burst); jank = OR of the jank bits of the response frames, and
 *    jank_tags the OR of their jank tags (janktag.h).
 *  - How the times were come by: clock_assumed when any response frame
 *    is CORRELATE_FRAME_CLOCK_ASSUMED; start_estimated when the first
 *    response frame is CORRELATE_FRAME_START_ESTIMATED (its start decided
 *    which tap it answers); present_estimated when the first response
 *    frame or the burst's last, whose presents are first_frame and
 *    settle, is CORRELATE_FRAME_PRESENT_ESTIMATED.
 *  - Launch and navigation (docs/DESIGN.md 1.5.1), with a foreground
 *    timeline given (correlate_set_foreground()) and launch_cap > 0: the
 *    launch window of a tap is [t_up, launch_end), where launch_end is the
 *    earlier of t_up + launch_cap and the first touch-down after t_up.
 *    The switch of a tap is the first switch of the timeline with
 *    t_up < t < launch_end that changes what was in force at t_up
 *    (foreground_find_change(): another package, or the same package with
 *    another activity).  Another package B is a launch: target is B (its
 *    pid and package, the switch's), and B's response frames are the
 *    frames that match B (the rule above, with B's pid and package) whose
 *    start lies in the launch window, in present order; launch_first_frame
 *    = present of the first - t_up, launch_settle = present of the last of
 *    their burst (the same rule as settle) - t_up, both -1 when B has
 *    none.  The same package with another activity is a navigation:
 *    target is that activity.  A tap with no such switch has neither.
 *    A tap's own values are not changed by either.
 *  - Status: frames_unavailable when the frame source never covered the
 *    window (no frame source, or its coverage starts after t_up: at or
 *    after t_up + CORRELATE_INPUT_RESOLUTION_NS, since a touch time is
 *    stamped to the microsecond);
 *    no_response when it did and there is no response frame; truncated
 *    when correlate_finish() came before the window could be closed
 *    (first_frame and settle are then reported if a response frame was
 *    seen, else -1, and no settle flag is set); ok otherwise.
 */
#ifndef TAPD_CORRELATE_H
#define TAPD_CORRELATE_H

#include <stddef.h>
#include <stdint.h>

struct correlate_config {
	int64_t settle_quiet_ns; /* default 300 ms */
	int64_t settle_cap_ns;	 /* default 5 s */
	int64_t busy_before_ns;	 /* default 100 ms */
	/*
	 * How long after its start a frame may be presented and still be
	 * waited for (default 1 s): correlate_advance() finalizes a tap only
	 * once frames_wm >= window_end + frame_latency, so a frame that
	 * started inside the window has been seen.
	 */
	int64_t frame_latency_ns;
	/*
	 * How long after t_up a switch of the foreground may still make the
	 * tap a launch or a navigation (default 10 s); 0 turns launch
	 * detection off.
	 */
	int64_t launch_cap_ns;
};

/* A tap or long press to measure.  Strings are copied. */
struct correlate_tap {
	uint64_t id; /* the caller's handle, passed back in the result */
	int64_t t_down_ns;
	int64_t t_up_ns;
	int32_t pid;	 /* 0 when unknown */
	const char *app; /* package, or NULL when unknown */
};

/* One presented frame of some app.  Strings are copied. */
struct correlate_frame {
	int32_t pid;	    /* 0 when unknown */
	const char *app;    /* package when the source knows it, else NULL */
	const char *layer;  /* layer name, or NULL */
	int64_t start_ns;   /* app-side work start (or queue time) */
	int64_t present_ns; /* present time */
	uint32_t jank;	    /* FrameTimeline jank bits, 0 when unknown */
	uint32_t jank_tags; /* its JANKTAG_* tag (janktag.h), 0 when none */
	unsigned flags;	    /* CORRELATE_FRAME_* */
};

/* correlate_frame.flags: how the frame's times were come by. */
#define CORRELATE_FRAME_CLOCK_ASSUMED	  0x1u
#define CORRELATE_FRAME_START_ESTIMATED	  0x2u
#define CORRELATE_FRAME_PRESENT_ESTIMATED 0x4u

enum correlate_status {
	CORRELATE_OK,
	CORRELATE_NO_RESPONSE,
	CORRELATE_TRUNCATED,
	CORRELATE_FRAMES_UNAVAILABLE,
};

/* The resolution of touch times: an evdev timeval's microsecond. */
#define CORRELATE_INPUT_RESOLUTION_NS 1000

#define CORRELATE_FLAG_BUSY_BEFORE   0x1u
#define CORRELATE_FLAG_SETTLE_CAPPED 0x2u
#define CORRELATE_FLAG_INTERRUPTED   0x4u
/* Finalized by correlate_expire(): see there. */
#define CORRELATE_FLAG_END_FROM_LATENCY 0x8u
#define CORRELATE_FLAG_END_UNCONFIRMED	0x10u
/* From the response frames' CORRELATE_FRAME_* (see the definitions). */
#define CORRELATE_FLAG_CLOCK_ASSUMED	 0x20u
#define CORRELATE_FLAG_START_ESTIMATED	 0x40u
#define CORRELATE_FLAG_PRESENT_ESTIMATED 0x80u
/* The tap's switch (see the definitions). */
#define CORRELATE_FLAG_LAUNCH	  0x100u
#define CORRELATE_FLAG_NAVIGATION 0x200u

/* A response frame of a finalized tap. */
struct correlate_resp_frame {
	int64_t start_ns;
	int64_t present_ns;
	uint32_t jank;
	int in_burst; /* 1 up to the burst's last frame, 0 after it */
};

struct correlate_result {
	uint64_t id;
	enum correlate_status status;
	unsigned flags; /* CORRELATE_FLAG_* */
	int64_t window_end_ns;
	int64_t first_frame_ns; /* -1 when not measured */
	int64_t settle_ns;	/* -1 when not measured */
	int32_t frames;
	uint32_t jank;
	uint32_t jank_tags;
	int64_t first_present_ns; /* -1 when none */
	int64_t last_present_ns;  /* present of the burst's last frame, -1 when
				     none */
	/*
	 * The response frames in present order (ties by start, then by
	 * arrival), nresp == frames of them; NULL and 0 when there are none.
	 * They belong to the correlator and are valid only during the
	 * callback that receives the result.
	 */
	const struct correlate_resp_frame *resp;
	size_t nresp;
	/*
	 * With CORRELATE_FLAG_LAUNCH or _NAVIGATION: the switch's time, pid,
	 * package and activity (NULL when the timeline does not know it),
	 * valid during the callback; else 0, 0, NULL, NULL.
	 */
	int64_t switch_ns;
	int32_t target_pid;
	const char *target_app;
	const char *target_activity;
	/* With CORRELATE_FLAG_LAUNCH; -1 when not measured. */
	int64_t launch_first_frame_ns;
	int64_t launch_settle_ns;
	int32_t launch_frames; /* B's response frames */
};

/* Receives each finalized tap; returns 0 or a negative errno to stop. */
typedef int (*correlate_cb)(void *ctx, const struct correlate_result *res);

struct correlate;
struct foreground;

void correlate_config_default(struct correlate_config *cfg);

/*
 * Returns 0 and sets *out, -EINVAL for a bad config (a negative duration,
 * a cap <= 0), or -ENOMEM.  A NULL cfg means the defaults.
 */
int correlate_new(const struct correlate_config *cfg, struct correlate **out);

/* NULL is a no-op. */
void correlate_free(struct correlate *c);

/*
 * Declares where the frame data starts: frames are complete from
 * start_ns on.  Without a call, no frame source is attached and every
 * tap is frames_unavailable.
 */
void correlate_set_coverage(struct correlate *c, int64_t start_ns);

/*
 * The foreground timeline whose switches make taps launches and
 * navigations; NULL (the default) for none.  The timeline must outlive
 * the correlator's use of it and keep the switches of every pending tap's
 * launch window (foreground_prune() with a time before the oldest
 * pending t_up).  A tap waits, besides for its own window, until
 * no switch and no frame of B that could change its answer is still to
 * come: until foreground_complete() has passed launch_end, or the switch
 * when one is known; then, for a launch, until launch_end <= input_wm and
 * launch_end + frame_latency <= frames_wm (B's frames), for a navigation
 * until its switch <= input_wm and switch + frame_latency <= frames_wm
 * (no touch-down before it).  Without a switch in a complete timeline it
 * waits for nothing more: no touch-down can make one; nor when nothing
 * is in force at t_up.
 */
void correlate_set_foreground(struct correlate *c, const struct foreground *fg);

/* Every touch-down, of any gesture, in time order. */
int correlate_touch_down(struct correlate *c, int64_t t_ns);

/* A finished tap or long press, in t_up order.  Returns 0 or -ENOMEM. */
int correlate_feed_tap(struct correlate *c, const struct correlate_tap *tap);

/*
 * A presented frame, in any order.  Returns 0 or -ENOMEM.  A frame
 * presented before it started is dropped and counted (frames_invalid).
 */
int correlate_feed_frame(struct correlate *c,
			 const struct correlate_frame *frame);

/*
 * Finalizes, in t_up order, every pending tap whose window has closed:
 * window_end <= input_wm (no touch-down before input_wm is still to come,
 * so the window cannot shrink) and window_end + frame_latency <= frames_wm
 * (every frame presented at or before frames_wm has been fed).  Returns 0
 * or what cb returned.
 *
 * Watermarks only move forward: a lower one than before is ignored.
 * Pruning relies on the input watermark's promise: no tap and no
 * touch-down fed after this call is earlier than input_wm.  A tap handed
 * to cb is consumed even when cb fails, and cb may be NULL.
 */
int correlate_advance(struct correlate *c, int64_t frames_wm, int64_t input_wm,
		      correlate_cb cb, void *ctx);

/*
 * Ends the run, when no more input or frames will come: taps with
 * window_end <= input_end and window_end <= frames_end (the last time the
 * frame data covers) are finalized normally, the rest as truncated.
 * When cb fails, the taps after the failing one stay pending.
 */
int correlate_finish(struct correlate *c, int64_t frames_end, int64_t input_end,
		     correlate_cb cb, void *ctx);

/*
 * Finalizes early, in t_up order, the pending taps whose burst has ended
 * by the frames fed so far, for a live frame source whose watermark has
 * stalled on an idle screen (docs/DESIGN.md 1.8): correlate_advance()
 * would wait for the next frame the screen draws.  The caller vouches
 * that every frame of the tap's app presented at or before complete_ns
 * has been fed (or gives up waiting for those presented before it), and
 * flags is ORed into the results (CORRELATE_FLAG_END_FROM_LATENCY or
 * CORRELATE_FLAG_END_UNCONFIRMED).
 *
 * The quiet deadline of a pending tap is the present of its latest
 * response frame fed so far plus settle_quiet (no frame presented after
 * it can still join the burst), or its window_end when no response frame
 * has been fed.  With launch detection, it is at least launch_end while
 * no switch is known (and then the timeline must also be complete to
 * it), and for a launch at least the same deadline of B's frames in the
 * launch window.  The oldest pending tap is finalized when its quiet
 * deadline is at or before both complete_ns and the input watermark of
 * the last correlate_advance() (no touch-down can still end its window
 * before the deadline); it is evaluated as correlate_advance() would,
 * against the frames fed so far.  Replays never call it.  Returns 0 or
 * what cb returned.
 */
int correlate_expire(struct correlate *c, int64_t complete_ns, unsigned flags,
		     correlate_cb cb, void *ctx);

/*
 * The quiet deadline of the oldest pending tap (see correlate_expire()),
 * INT64_MAX when none is pending.
 */
int64_t correlate_quiet_deadline(const struct correlate *c);

/* Taps waiting for their window to close, and frames held. */
unsigned correlate_pending(const struct correlate *c);
unsigned correlate_frames_held(const struct correlate *c);

/*
 * Counters since correlate_new().  Invalid frames were presented before
 * they started; stale ones came too late for any tap still to come;
 * evicted ones went to stay under the cap; late taps came out of t_up
 * order or behind the input watermark; dropped touch-downs were over the
 * cap of those remembered for taps still to come.
 */
struct correlate_stats {
	uint64_t taps;
	uint64_t taps_late;
	uint64_t frames;
	uint64_t frames_invalid;
	uint64_t frames_stale;
	uint64_t frames_evicted;
	uint64_t touch_downs_dropped;
};

void correlate_get_stats(const struct correlate *c, struct correlate_stats *st);

/*
 * Caps the frames held (default 1,000,000).  Past it the oldest frames by
 * present time are dropped in batches and counted as evicted; a tap that
 * needed them may then lose frames, so the cap is only a guard against a
 * frame source running far ahead of the input.  max 0 means the default.
 */
void correlate_set_max_frames(struct correlate *c, unsigned max);

#endif
