/*
 * What the files of the replay share and no caller needs: the state of
 * one replay, and the two answers both replay.c and replay_serve.c ask
 * of it.  Only replay.c and replay_serve.c include it.
 */
#ifndef TAPD_REPLAY_INT_H
#define TAPD_REPLAY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "devid.h"
#include "pipeline.h"
#include "replay.h"
#include "source.h"

struct api;
struct attrib;
struct control;
struct events;
struct metrics;
struct status;
struct store;

#define REPLAY_MS INT64_C(1000000)

struct replay {
	const struct replay_options *opts;
	/* The specs as given or found in the session, and their parse. */
	char *text[SOURCE_ROLE_COUNT];
	struct source_spec specs[SOURCE_ROLE_COUNT];
	char *device_path;
	/* The device's identity from device.json, stored with the run. */
	struct devid id;
	struct device_info dev;
	int have_dev;
	/* The sources, in the order they were made; input is among them. */
	struct source *src[SOURCE_ROLE_COUNT];
	size_t n_src;
	struct source *input;
	struct store *store;
	struct pipeline *pipe;
	struct pipeline_config pcfg;
	/*
	 * The thresholds: the command line's, and the recording's
	 * (device.json "measure") where it gave none; the options taken
	 * from the recording and those the command line overrode there.
	 */
	struct pipeline_options thresholds;
	unsigned measure_taken, measure_kept;
	/* Hit-testing: the --windows and --processes specs, and their use. */
	char *windows;
	char *processes;
	struct attrib *attrib;

	/* With --listen: the API and what it reads. */
	struct api *api;
	struct status *status;
	struct events *events;
	struct control *control;
	struct metrics *metrics;

	/*
	 * The input's own failure (its time went back): the replay stops
	 * reading it, finishes what came before and still ends its run.
	 */
	int input_rc;
	/*
	 * A recording other than the input went back (source_cut()): the
	 * input stops where that one's data ends, at cut_ns.
	 */
	int have_cut;
	int64_t cut_ns;

	const char *wall_source;
	int have_wall;
	int64_t last_input_ns;
	int64_t first_input_ns;
};

/* Whether the replay was asked to stop (opts->stop is set). */
int replay_stopping(const struct replay *r);

/*
 * The result of a step, on a full disk: a tap dropped (the store counts
 * it) is no failure for a paced or served replay, which holds its taps
 * through a full disk; a batch replay fails at once with -ENOSPC.
 */
int replay_space(const struct replay *r, int rc);

#endif
