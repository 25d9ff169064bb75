/*
 * The identity of the device whose taps these are: serial, maker, model,
 * build fingerprint, SDK level and ABI, and its display (refresh rate,
 * size, density).  Live it is read from getprop and the display given to
 * the daemon; in a replay from device.json (device.h).  It labels
 * /metrics (tapd_device_info, tapd_display_info), the health's "device"
 * object and the warehouse export of /v1/taps, and is stored with each
 * run (store_run_device()), so that `tapd serve` of a copied database
 * still names its phone.
 */
#ifndef TAPD_DEVID_H
#define TAPD_DEVID_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;
struct device_info;

/* The longest text kept of each field, in bytes (getprop's own limit). */
#define DEVID_TEXT_MAX 92
/* Fingerprints are longer than other properties. */
#define DEVID_FINGERPRINT_MAX 255

/* How long one getprop may take at the live daemon's start. */
#define DEVID_TIMEOUT_MS 2000

/* Plain data; "" and 0 are unknown. */
struct devid {
	char serial[DEVID_TEXT_MAX + 1];
	char manufacturer[DEVID_TEXT_MAX + 1];
	char model[DEVID_TEXT_MAX + 1];
	char fingerprint[DEVID_FINGERPRINT_MAX + 1];
	char abi[DEVID_TEXT_MAX + 1];
	int32_t sdk;
	int32_t refresh_hz;
	int32_t width, height; /* display px */
	int32_t density_dpi;
};

/* Sets every field unknown. */
void devid_clear(struct devid *id);

/* Nonzero when any field is known. */
int devid_known(const struct devid *id);

/*
 * Fills the fields device.json gives (identity and display); those it
 * leaves out are left as they are, so that a probe's values stay.
 */
void devid_from_device(struct devid *id, const struct device_info *dev);

/*
 * Reads the identity from getprop: ro.serialno, ro.product.manufacturer,
 * ro.product.model, ro.build.fingerprint, ro.build.version.sdk,
 * ro.product.cpu.abi, and ro.sf.lcd_density for a density not known yet.
 * One child a property, each bounded by timeout_ms, through child.c: for
 * the start of the live daemon only.  A property that cannot be read stays
 * unknown; returns 0 when getprop answered at least once, -ENOENT when it
 * could not be run at all (a desktop), or -ENOMEM.
 */
int devid_probe(struct devid *id, const char *getprop_bin, uint32_t timeout_ms);

/*
 * Copies s into out (size bytes): white space trimmed at both ends, cut at
 * a character boundary, bytes that are not UTF-8 and control characters
 * as '?', so that a value is always a valid label and JSON string.
 */
void devid_set_text(char *out, size_t size, const char *s);

/*
 * Adds the known fields to obj (serial, manufacturer, model, fingerprint,
 * sdk, abi, and "display": {refresh_hz, width, height, density_dpi});
 * unknown ones are null.  Returns 0 or -ENOMEM.
 */
int devid_to_json(const struct devid *id, struct cJSON *obj);

#endif
