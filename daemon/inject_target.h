/*
 * Where the live daemon's injector writes and how it turns px into panel
 * units (inject.h, inject_seq.h), worked out on the ingest thread at every
 * heartbeat: the device the input source reads now, its axis ranges
 * (device.json's first, as the attribution takes them), the screen size
 * of the gesture mapping, and the viewport of display 0 in the newest
 * window list the attribution read (its rotation).
 */
#ifndef TAPD_INJECT_TARGET_H
#define TAPD_INJECT_TARGET_H

#include <stddef.h>

#include "attrib.h"
#include "device.h"
#include "gesture.h"
#include "inject.h"
#include "source.h"

/* dev and attrib may be NULL; so may inj (a no-op). */
void inject_target_update(struct inject *inj, struct source *const *src,
			  size_t nsrc, const struct device_info *dev,
			  const struct gesture_config *g,
			  const struct attrib *attrib);

#endif
