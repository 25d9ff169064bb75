/*
 * The description of the recorded device (device.json in a recorded
 * session, docs/formats.md 5): screen size, density, refresh rate,
 * Android version and the touch panel's axis ranges.  Every field is
 * optional; what is missing stays unknown (0 / have_* unset), and callers
 * fall back to raw units and default thresholds.
 */
#ifndef TAPD_DEVICE_H
#define TAPD_DEVICE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The largest clock value of device.json's anchor: 2100-01-01T00:00:00Z
 * as REALTIME, 130 years as MONOTONIC.  Any device reads far less, and
 * the margin to int64's end keeps REALTIME - MONOTONIC and the wall time
 * of every tap computable.
 */
#define DEVICE_CLOCK_MAX_NS INT64_C(4102444800000000000)

/* The longest serial, manufacturer and model (getprop's value limit). */
#define DEVICE_TEXT_MAX 91
/* The longest build fingerprint. */
#define DEVICE_FINGERPRINT_MAX 255

struct device_axis {
	int32_t min, max;
};

/*
 * The measuring options a recording was made with (device.json
 * "measure", docs/formats.md 5.1), which a replay of it takes as its
 * defaults: the gesture slop in the units positions are in, and the
 * times in ns.  A member absent from the file is negative.
 */
struct device_measure {
	double slop_px;
	int64_t long_press_ns;
	int64_t settle_quiet_ns;
	int64_t settle_cap_ns;
	int64_t busy_before_ns;
	int64_t frame_latency_ns;
	int64_t launch_cap_ns; /* 0: launch detection was off */
};

/* The largest time of "measure", in ms: a day. */
#define DEVICE_MEASURE_MAX_MS 86400000

/* Every member of m absent. */
void device_measure_init(struct device_measure *m);

/* Plain data, filled by device_load(). */
struct device_info {
	int have_screen;
	int32_t width, height; /* display px */
	int32_t density_dpi;   /* 0 when unknown */
	int32_t refresh_hz;    /* 0 when unknown */
	int32_t android_sdk;   /* 0 when unknown */
	int have_touch;
	struct device_axis x, y; /* raw touch axis ranges */
	/*
	 * A clock anchor: REALTIME and MONOTONIC read together on the device
	 * ("clock": {"realtime_ns": "…", "monotonic_ns": "…"}, decimal strings
	 * since int64 ns do not survive a JSON double), giving wall times to
	 * a replay.
	 */
	int have_clock;
	int64_t clock_realtime_ns, clock_monotonic_ns;
	/*
	 * The device's identity (devid.h): "serial", "manufacturer", "model"
	 * and "fingerprint", as getprop gives ro.serialno and the rest; ""
	 * when absent.
	 */
	char serial[DEVICE_TEXT_MAX + 1];
	char manufacturer[DEVICE_TEXT_MAX + 1];
	char model[DEVICE_TEXT_MAX + 1];
	char fingerprint[DEVICE_FINGERPRINT_MAX + 1];
	int have_measure;
	struct device_measure measure;
};

/*
 * Reads device.json at path into *info (zeroed first).  Unknown keys are
 * ignored.  Returns 0; -ENOENT (or another errno) when the file cannot be
 * read; -EINVAL after logging why (the file and the key named) when it is
 * not one JSON object and nothing else (a UTF-8 byte order mark, a NUL
 * byte, or anything but white space after the value is refused), has a
 * key twice in any object, or a known key has a value of the wrong type
 * or out of range (sizes 1 to 100000, density 1 to 10000 dpi, refresh 1
 * to 1000 Hz, sdk 1 to 1000, axis min < max, clock values 0 to
 * DEVICE_CLOCK_MAX_NS, the identity's texts 1 to DEVICE_TEXT_MAX bytes
 * (the fingerprint DEVICE_FINGERPRINT_MAX) of UTF-8 without control
 * characters, "measure" numbers from 0: a slop up to 100000, times up to
 * DEVICE_MEASURE_MAX_MS).
 */
int device_load(const char *path, struct device_info *info);

/* The same over a JSON text of len bytes; name is used in messages. */
int device_parse(const char *json, size_t len, const char *name,
		 struct device_info *info);

#endif
