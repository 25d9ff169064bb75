/*
 * Replay: the tapd pipeline fed from recorded files instead of devices.
 * It reads the sources to their end, stores every gesture, prints a
 * summary and returns.  The pipeline is the live one (touch tracker,
 * gesture classifier, correlator, store), driven by event time, so a
 * recording gives the answers the daemon would have given live.
 */
#ifndef TAPD_REPLAY_H
#define TAPD_REPLAY_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "pipeline.h"

struct replay_options {
	/*
	 * A recorded-session directory: input.getevent, frames.pftrace or
	 * latency/, foreground.log, device.json.  Each of the options below
	 * overrides its part.
	 */
	const char *session;
	const char *input;	/* "getevent:FILE" or
				   "getevent:FILE@/dev/input/eventN" */
	const char *frames;	/* "ftl:FILE", "latency:DIR" or "none" */
	const char *foreground; /* "log:FILE" or "app:PACKAGE" */
	const char *device;	/* device.json */
	const char *buckets;   /* --buckets: /metrics' bounds, NULL: defaults */
	const char *windows;   /* "log:FILE" or "none" (attrib.h) */
	const char *processes; /* "log:FILE" */
	const char *db;	       /* the database to write (required) */
	struct pipeline_options
		thresholds; /* --slop-px, --long-press-ms, ... */
	/*
	 * Serve the HTTP API while replaying ("HOST:PORT"), and afterwards
	 * until *stop is set; NULL for none.  token_file as for api_config.
	 */
	const char *listen;
	const char *token_file;
	int no_ui; /* --no-ui: no dashboard at / */
	/*
	 * Event time runs pace times as fast as wall time (1 = as recorded);
	 * 0 replays as fast as it can.
	 */
	double pace;
	/* Set by a signal handler to end the replay early (may be NULL). */
	const volatile sig_atomic_t *stop;
};

/* Sets every field to "not given". */
void replay_options_init(struct replay_options *opts);

/*
 * Runs the replay and prints the summary to out.  Stopped early through
 * opts->stop, the taps still waiting for their window are stored as
 * truncated.  Returns 0, -EINVAL for
 * options that do not fit together (after logging which), or the negative
 * errno of the first source or store failure.  Lines of a log that do not
 * parse are not failures: they are counted in the summary.
 */
int replay_run(const struct replay_options *opts, FILE *out);

#endif
