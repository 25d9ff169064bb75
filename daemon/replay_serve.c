/*
 * The side of a replay that runs on the wall clock: the pacing of
 * --pace, the commits on the live daemon's timer, and with --listen the
 * API, its health and its session requests; see replay_serve.h.
 */
#include "replay_serve.h"

#include <poll.h>
#include <stdint.h>
#include <time.h>

#include "api.h"
#include "control.h"
#include "events.h"
#include "metrics.h"
#include "pipeline.h"
#include "replay_int.h"
#include "source.h"
#include "status.h"
#include "store.h"

struct status_ctx {
	struct replay *r;
	int64_t frames_wm;
};

/* What /v1/health says of the store: degraded while its disk is full. */
static void
report_store(struct replay *r)
{
	char why[160];

	if (!r->api)
		return;
	if (store_health(r->store, why, sizeof(why)))
		status_set_source(r->status, STATUS_SOURCE_STORE,
				  STATUS_HEALTH_DEGRADED, "sqlite", "'%s': %s",
				  r->opts->db, why);
	else
		status_set_source(r->status, STATUS_SOURCE_STORE,
				  STATUS_HEALTH_UP, "sqlite", "'%s'",
				  r->opts->db);
}

static void
fill_status(struct status_snapshot *s, void *ctx)
{
	struct status_ctx *sc = ctx;
	struct replay *r = sc->r;
	size_t i;

	pipeline_fill_status(r->pipe, sc->frames_wm, s);
	for (i = 0; i < r->n_src; i++)
		source_fill_status(r->src[i], s);
}

/*
 * A paced replay commits on the live daemon's timer: a batch is committed
 * once its first row is 100 ms old (store_tick()), so that a replay killed
 * midway loses only the taps of the last moments, as the daemon would.
 * An unpaced replay runs through its rows as fast as it can and commits
 * them by the batch, but for the held taps of a full disk, which are
 * tried again on the timer.
 */
static int
commit_tick(struct replay *r)
{
	struct timespec now;

	if (r->opts->pace <= 0 && !store_full(r->store))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return store_tick(r->store,
			  now.tv_sec * INT64_C(1000000000) + now.tv_nsec);
}

/*
 * Between input events: commit on the timer when paced and, with the API
 * up, commit and announce what was finalized, answer session requests,
 * refresh the health counters.
 */
int
replay_serve_tick(struct replay *r, int64_t frames_wm)
{
	struct status_ctx sc = {r, frames_wm};
	int rc;

	if (!r->api)
		return replay_space(r, commit_tick(r));
	rc = pipeline_flush(r->pipe);
	if (rc == 0)
		rc = commit_tick(r);
	control_serve(r->control, pipeline_control, r->pipe);
	status_update(r->status, fill_status, &sc);
	report_store(r);
	return replay_space(r, rc);
}

/*
 * With --pace, waits until the wall clock reaches the moment of the event
 * at t_ns, in slices short enough to answer the API and notice a stop.
 */
void
replay_serve_pace(struct replay *r, int64_t t_ns, int64_t t0_ns,
		  int64_t wall0_ns, int64_t frames_wm)
{
	struct timespec now, slice;
	int64_t due, left;

	if (r->opts->pace <= 0)
		return;
	due = wall0_ns + (int64_t)((double)(t_ns - t0_ns) / r->opts->pace);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = due - (now.tv_sec * INT64_C(1000000000) + now.tv_nsec);
		if (left <= 0 || replay_stopping(r))
			return;
		if (left > 50 * REPLAY_MS)
			left = 50 * REPLAY_MS;
		slice.tv_sec = 0;
		slice.tv_nsec = (long)left;
		nanosleep(&slice, NULL);
		replay_serve_tick(r, frames_wm);
	}
}

/* Waits for the stop signal, answering the API meanwhile. */
void
replay_serve_until_stopped(struct replay *r, int64_t frames_wm)
{
	struct pollfd pfd;

	pfd.fd = control_fd(r->control);
	pfd.events = POLLIN;
	while (!replay_stopping(r)) {
		/* A signal interrupts poll(); the flag is checked again. */
		poll(&pfd, 1, 200);
		replay_serve_tick(r, frames_wm);
	}
}

int
replay_serve_start(struct replay *r)
{
	struct api_config cfg;
	int rc;

	rc = status_new("replay", &r->status);
	if (rc == 0)
		rc = events_new(0, &r->events);
	if (rc == 0)
		rc = control_new(&r->control);
	if (rc == 0)
		rc = metrics_new(&r->metrics);
	if (rc == 0)
		rc = metrics_set_buckets(r->metrics, r->opts->buckets);
	if (rc < 0)
		return rc;
	metrics_set_device(r->metrics, &r->id);
	api_config_default(&cfg);
	cfg.listen = r->opts->listen;
	cfg.token_file = r->opts->token_file;
	cfg.no_ui = r->opts->no_ui;
	cfg.db_path = r->opts->db;
	cfg.status = r->status;
	cfg.events = r->events;
	cfg.control = r->control;
	cfg.metrics = r->metrics;
	return api_bring_up(&cfg, &r->api);
}

/* What /v1/health says of the sources: up while replaying, done after. */
void
replay_serve_report_sources(struct replay *r, int done)
{
	size_t i;

	if (!r->api)
		return;
	for (i = 0; i < r->n_src; i++)
		source_report(r->src[i], r->status, done);
	report_store(r);
}

void
replay_serve_stop(struct replay *r)
{
	if (r->control)
		control_shutdown(r->control);
	if (r->events)
		events_shutdown(r->events);
	api_stop(r->api);
	metrics_free(r->metrics);
	control_free(r->control);
	events_free(r->events);
	status_free(r->status);
}
