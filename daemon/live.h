/*
 * `tapd run`: the live daemon.  One ingest thread runs an epoll loop over
 * the touch screen (evdev), the frame source (a Perfetto child or dumpsys
 * polls), timers and signals, and drives the pipeline; the HTTP API runs
 * in its own threads.  A source that is missing or failing leaves the
 * daemon running and reported degraded in /v1/health, never crashing.
 */
#ifndef TAPD_LIVE_H
#define TAPD_LIVE_H

#include <stdint.h>

#include "pipeline.h"

struct live_options {
	const char *input;	/* "evdev" or "evdev:/dev/input/eventN" */
	const char *frames;	/* "auto", "ftl", "latency" or "none" */
	const char *foreground; /* "auto", "app:PACKAGE" or "none" */
	const char *device;  /* device.json (screen size, density), or NULL */
	const char *buckets; /* --buckets: /metrics' bounds, NULL: defaults */
	const char *db;
	const char *listen; /* NULL for 127.0.0.1:7878 */
	const char *token_file;
	int no_ui; /* --no-ui: no dashboard at / */
	const char *pidfile;
	const char *log_file;
	int retain_days;     /* 0 keeps everything */
	const char *sysroot; /* tests only: prefix of /dev and /proc paths */
	const char *perfetto_bin;
	const char *dumpsys_bin;
	const char *getprop_bin;
	const char *trace_dir; /* where perfetto writes; NULL for Android's */
	/* --record DIR: a recorded session of the run (record.h), or NULL. */
	const char *record;
	uint64_t record_max_bytes; /* 0 for RECORD_MAX_BYTES_DEFAULT */
	/*
	 * POST /v1/gestures (inject.h): off unless set, and then only with a
	 * token file.  inject_device replaces the touch screen as the file
	 * written (tests); inject_rate is gestures per second, 0 for 20;
	 * inject_via an enum inject_via (inject_uinput.h), -1 when not given
	 * (auto).
	 */
	int allow_inject;
	const char *inject_device;
	unsigned inject_rate;
	int inject_via;
	struct pipeline_options thresholds;
};

/* Sets the defaults: evdev, auto, auto, 127.0.0.1:7878, 30 days. */
void live_options_init(struct live_options *o);

/*
 * Runs until SIGTERM or SIGINT, then stops the sources, stores the taps
 * still waiting for their window as truncated, commits and closes.
 * SIGHUP reopens the log file.  Returns 0; -EINVAL for options that do not
 * fit (logged); the errno of what could not start (the database, the
 * listening socket, the pidfile of a running tapd).
 */
int live_run(const struct live_options *o);

#endif
