#include "inject_target.h"

#include <linux/input.h>
#include <string.h>

void
inject_target_update(struct inject *inj, struct source *const *src, size_t nsrc,
		     const struct device_info *dev,
		     const struct gesture_config *g,
		     const struct attrib *attrib)
{
	struct gesture_axis ax, ay;
	struct inject_geometry geo;
	const char *path = NULL, *clone = NULL;
	int have = 0;
	size_t i;

	if (!inj)
		return;
	memset(&geo, 0, sizeof(geo));
	for (i = 0; i < nsrc && !path; i++) {
		path = source_device(src[i]);
		clone = source_clone(src[i]);
		have = path &&
		       source_axis(src[i], ABS_MT_POSITION_X, &ax.min,
				   &ax.max) == 0 &&
		       source_axis(src[i], ABS_MT_POSITION_Y, &ay.min,
				   &ay.max) == 0;
	}
	geo.have_axes = attrib_axes(dev, have ? &ax : NULL, have ? &ay : NULL,
				    &geo.axes) == 0;
	geo.have_viewport =
		attrib && attrib_viewport(attrib, ATTRIB_DISPLAY, &geo.vp) == 0;
	if (g->have_mapping) {
		geo.width_px = g->width_px;
		geo.height_px = g->height_px;
	}
	inject_set_target(inj, path, clone, &geo);
}
