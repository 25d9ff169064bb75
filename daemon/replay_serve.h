/*
 * The wall-clock side of a replay, for replay.c: with --pace, the waits
 * until each event's moment and the commits on the live daemon's timer;
 * with --listen, the API brought up, served between input events and
 * after the end until the stop, its health kept, and stopped.
 */
#ifndef TAPD_REPLAY_SERVE_H
#define TAPD_REPLAY_SERVE_H

#include <stdint.h>

struct replay;

/*
 * Between input events: commit on the timer when paced and, with the API
 * up, commit and announce what was finalized, answer session requests,
 * refresh the health counters.  Returns 0 or the store's errno, as
 * replay_space() judges it.
 */
int replay_serve_tick(struct replay *r, int64_t frames_wm);

/*
 * With --pace, waits until the wall clock reaches the moment of the event
 * at t_ns (t0_ns at wall0_ns), in slices short enough to answer the API
 * and notice a stop.  Without --pace, returns at once.
 */
void replay_serve_pace(struct replay *r, int64_t t_ns, int64_t t0_ns,
		       int64_t wall0_ns, int64_t frames_wm);

/* Waits for the stop signal, answering the API meanwhile. */
void replay_serve_until_stopped(struct replay *r, int64_t frames_wm);

/*
 * Makes the status, events, control and metrics the API reads and brings
 * the API up on opts->listen.  Returns 0 or a negative errno.
 */
int replay_serve_start(struct replay *r);

/*
 * What /v1/health says of the sources (up while replaying, done after)
 * and of the store; nothing without the API.
 */
void replay_serve_report_sources(struct replay *r, int done);

/* Ends the streams and the control, stops the API and frees its parts. */
void replay_serve_stop(struct replay *r);

#endif
