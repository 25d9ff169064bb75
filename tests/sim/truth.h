/*
 * Ground truth: what tapd must find in a simulated session, computed from
 * the world with the simulator's own code, following the definitions of
 * docs/DESIGN.md 1 and daemon/correlate.h (not its code):
 *
 *  - gestures are re-derived from the input events (protocol B slots and
 *    tracking ids, SYN_REPORT times) and classified with Android's rules:
 *    multi when a second finger joined, swipe when the first finger moved
 *    more than the slop (8 dp) before the long-press timeout (400 ms),
 *    long press when held that long, else tap; they must agree with what
 *    the scenario meant, with a margin, or the scenario is refused;
 *  - the app is the foreground app at t_up or, in a world with window
 *    lists, the owner of the window that takes the touch-down point (the
 *    dispatcher's walk from the top, with the simulator's own code), whose
 *    name the truth gives as "window", with "attribution": "window";
 *  - the response window is [t_up, min(t_up + 5 s, next touch-down));
 *    response frames are the app's (same pid) presented frames whose start
 *    is in the window, in present order; first_frame = first present -
 *    t_up; the burst runs while presents are at most 300 ms apart;
 *    settle = the burst's last present - t_up; settle_capped or
 *    interrupted when the burst's last frame is the last response frame
 *    and the window ends less than 300 ms after its present;
 *    busy_before when the app presented a frame in [t_up - 100 ms, t_up);
 *  - frames_unavailable before the trace started, truncated when the
 *    window ends after the last present in the trace; swipes and multi
 *    are not_measured;
 *  - launch and navigation (docs/DESIGN.md 1.5.1): the launch window is
 *    [t_up, min(t_up + 10 s, next touch-down)); the first foreground
 *    change strictly inside (t_up, that end) to another package is a
 *    launch of it, to another activity of the same package (both named)
 *    a navigation; a launch's launch_first_frame and launch_settle are
 *    measured as first_frame and settle are, on the launched app's frames
 *    (its pid) whose start is in the launch window; taps of a measured
 *    kind only, values only when the trace covers the tap.  A change
 *    within 1 ms of the window's end is refused as a tie.
 */
#ifndef TAPD_SIM_TRUTH_H
#define TAPD_SIM_TRUTH_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "world.h"

#define TRUTH_FLAG_BUSY_BEFORE	 0x1u
#define TRUTH_FLAG_SETTLE_CAPPED 0x2u
#define TRUTH_FLAG_INTERRUPTED	 0x4u
#define TRUTH_FLAG_INPUT_DROPPED 0x8u
#define TRUTH_FLAG_LAUNCH	 0x10u
#define TRUTH_FLAG_NAVIGATION	 0x20u

#define TRUTH_QUIET_NS	    300000000LL
#define TRUTH_CAP_NS	    5000000000LL
#define TRUTH_BUSY_NS	    100000000LL
#define TRUTH_LONG_NS	    400000000LL
#define TRUTH_LAUNCH_CAP_NS 10000000000LL

struct truth;

/*
 * Computes the truth of w.  Returns 0 and sets *out; -EPROTO (after
 * printing why) when the input does not give the gestures the scenario
 * meant or a case sits too close to a threshold to be certain; -ENOMEM.
 */
int truth_compute(const struct world *w, struct truth **out);

/* NULL is a no-op. */
void truth_free(struct truth *t);

/* Gestures found, and how many of each world_kind. */
size_t truth_count(const struct truth *t, unsigned counts[WORLD_KIND_COUNT]);

/*
 * Adds "counts", "statuses" and "gestures" (one object per gesture, int64
 * values as decimal strings) to obj.  Returns 0 or -ENOMEM.
 */
int truth_to_json(const struct truth *t, const struct world *w, cJSON *obj);

/* The name of a world_kind as the database spells it. */
const char *truth_kind_name(enum world_kind kind);

#endif
