#include "pipeline_measure.h"

#include <inttypes.h>
#include <stdio.h>

#include "device.h"
#include "pipeline.h"

#define MS_NS 1000000.0

void
pipeline_measure_of(const struct pipeline_config *cfg, struct device_measure *m)
{
	device_measure_init(m);
	m->slop_px = cfg->gesture.slop_px;
	m->long_press_ns = cfg->gesture.long_press_ns;
	m->settle_quiet_ns = cfg->correlate.settle_quiet_ns;
	m->settle_cap_ns = cfg->correlate.settle_cap_ns;
	m->busy_before_ns = cfg->correlate.busy_before_ns;
	m->frame_latency_ns = cfg->correlate.frame_latency_ns;
	m->launch_cap_ns = cfg->correlate.launch_cap_ns;
}

/* One option: given in o (given), else taken from m when it has one. */
static void
take_ns(int64_t from, int64_t *to, int given, unsigned bit, unsigned *taken,
	unsigned *kept)
{
	if (from < 0)
		return;
	if (given) {
		*kept |= bit;
		return;
	}
	*to = from;
	*taken |= bit;
}

unsigned
pipeline_measure_apply(const struct device_measure *m,
		       struct pipeline_options *o, unsigned *kept)
{
	unsigned taken = 0;

	*kept = 0;
	if (m->slop_px >= 0) {
		if (o->slop_px >= 0 || o->slop_dp >= 0) {
			*kept |= PIPELINE_MEASURE_SLOP;
		} else {
			o->slop_px = m->slop_px;
			taken |= PIPELINE_MEASURE_SLOP;
		}
	}
	/* Zero is "not given" for the options that must be positive. */
	take_ns(m->long_press_ns > 0 ? m->long_press_ns : -1, &o->long_press_ns,
		o->long_press_ns > 0, PIPELINE_MEASURE_LONG_PRESS, &taken,
		kept);
	take_ns(m->settle_quiet_ns > 0 ? m->settle_quiet_ns : -1,
		&o->settle_quiet_ns, o->settle_quiet_ns > 0,
		PIPELINE_MEASURE_SETTLE_QUIET, &taken, kept);
	take_ns(m->settle_cap_ns > 0 ? m->settle_cap_ns : -1, &o->settle_cap_ns,
		o->settle_cap_ns > 0, PIPELINE_MEASURE_SETTLE_CAP, &taken,
		kept);
	take_ns(m->busy_before_ns, &o->busy_before_ns, o->busy_before_ns >= 0,
		PIPELINE_MEASURE_BUSY_BEFORE, &taken, kept);
	take_ns(m->frame_latency_ns, &o->frame_latency_ns,
		o->frame_latency_ns >= 0, PIPELINE_MEASURE_FRAME_LATENCY,
		&taken, kept);
	/* Zero is an option given here: launch detection off. */
	take_ns(m->launch_cap_ns, &o->launch_cap_ns, o->launch_cap_ns >= 0,
		PIPELINE_MEASURE_LAUNCH_CAP, &taken, kept);
	return taken;
}

static void
add(char *buf, size_t size, size_t *at, const char *key, double v)
{
	int n;

	if (*at >= size)
		return;
	n = snprintf(buf + *at, size - *at, "%s%s %g", *at ? ", " : "", key, v);
	if (n > 0)
		*at += (size_t)n;
}

void
pipeline_measure_describe(unsigned bits, const struct pipeline_options *o,
			  char *buf, size_t size)
{
	size_t at = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	if (bits & PIPELINE_MEASURE_SLOP) {
		if (o->slop_dp >= 0 && o->slop_px < 0)
			add(buf, size, &at, "slop_dp", o->slop_dp);
		else
			add(buf, size, &at, "slop_px", o->slop_px);
	}
	if (bits & PIPELINE_MEASURE_LONG_PRESS)
		add(buf, size, &at, "long_press_ms",
		    (double)o->long_press_ns / MS_NS);
	if (bits & PIPELINE_MEASURE_SETTLE_QUIET)
		add(buf, size, &at, "settle_quiet_ms",
		    (double)o->settle_quiet_ns / MS_NS);
	if (bits & PIPELINE_MEASURE_SETTLE_CAP)
		add(buf, size, &at, "settle_cap_ms",
		    (double)o->settle_cap_ns / MS_NS);
	if (bits & PIPELINE_MEASURE_BUSY_BEFORE)
		add(buf, size, &at, "busy_before_ms",
		    (double)o->busy_before_ns / MS_NS);
	if (bits & PIPELINE_MEASURE_FRAME_LATENCY)
		add(buf, size, &at, "frame_latency_ms",
		    (double)o->frame_latency_ns / MS_NS);
	if (bits & PIPELINE_MEASURE_LAUNCH_CAP)
		add(buf, size, &at, "launch_cap_ms",
		    (double)o->launch_cap_ns / MS_NS);
}
