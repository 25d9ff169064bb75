/*
 * The measuring options of a run as a recording keeps them (device.json
 * "measure", docs/formats.md 5.1): the thresholds that change what is
 * measured, so that `tapd replay --session DIR` of a recording measures
 * as the live run did without being told its command line again.  What
 * is written are the values in effect (defaults included), not the
 * options given, so a replay by a tapd with other defaults still agrees.
 */
#ifndef TAPD_PIPELINE_MEASURE_H
#define TAPD_PIPELINE_MEASURE_H

#include <stddef.h>

struct device_measure;
struct pipeline_config;
struct pipeline_options;

/* The options of "measure", as bits. */
#define PIPELINE_MEASURE_SLOP	       0x1u
#define PIPELINE_MEASURE_LONG_PRESS    0x2u
#define PIPELINE_MEASURE_SETTLE_QUIET  0x4u
#define PIPELINE_MEASURE_SETTLE_CAP    0x8u
#define PIPELINE_MEASURE_BUSY_BEFORE   0x10u
#define PIPELINE_MEASURE_FRAME_LATENCY 0x20u
#define PIPELINE_MEASURE_LAUNCH_CAP    0x40u

/* The values cfg (from pipeline_configure()) measures with, into *m. */
void pipeline_measure_of(const struct pipeline_config *cfg,
			 struct device_measure *m);

/*
 * Takes into o each option of m that o was not given (the command line
 * wins).  Returns the PIPELINE_MEASURE_* bits taken from m; *kept gets
 * those m has but o had already.
 */
unsigned pipeline_measure_apply(const struct device_measure *m,
				struct pipeline_options *o, unsigned *kept);

/*
 * Writes into buf the options of bits as they are named in "measure"
 * and on the command line, with their values in o ("settle_cap_ms 1000,
 * ..."); "" for none.
 */
void pipeline_measure_describe(unsigned bits, const struct pipeline_options *o,
			       char *buf, size_t size);

#endif
