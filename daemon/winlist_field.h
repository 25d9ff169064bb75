/*
 * The pieces of a `dumpsys input` line that the window list parser
 * (winlist.h) reads: bounded numbers, rectangles, regions and flag
 * names.  Each reader takes a NUL-terminated text, returns where it
 * stopped, or NULL when the text there is not what it reads; none reads
 * past the NUL.
 */
#ifndef TAPD_WINLIST_FIELD_H
#define TAPD_WINLIST_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "winlist.h"

/* A decimal integer in [lo, hi]: an optional '-', then 1 to 19 digits. */
const char *winlist_field_int(const char *p, int64_t lo, int64_t hi,
			      int64_t *out);

/* "0x" and 1 to 8 hex digits. */
const char *winlist_field_hex(const char *p, uint32_t *out);

/*
 * A finite decimal number of at most 31 characters, such as "1", "1.00",
 * "0.0166321" or "1e-05", in [lo, hi].
 */
const char *winlist_field_double(const char *p, double lo, double hi,
				 double *out);

/*
 * A rectangle: "[l,t][r,b]" (a window's frame, a region's rectangle),
 * or with sep ", " between all four, "[l, t, r, b]" (a viewport's frame).
 */
const char *winlist_field_rect(const char *p, struct winlist_rect *r);
const char *winlist_field_rect4(const char *p, struct winlist_rect *r);

/*
 * A region: "<empty>", or rectangles joined by '|'.  Writes at most max
 * rectangles to rects and *n, and sets *cut when there were more.
 */
const char *winlist_field_region(const char *p, struct winlist_rect *rects,
				 size_t max, size_t *n, int *cut);

/* Which flag names a value holds (winlist_field_flags). */
enum winlist_field_set {
	WINLIST_FIELD_CONFIG,	/* inputConfig=: WINLIST_* bits */
	WINLIST_FIELD_LAYOUT,	/* flags= of Android 12: WINLIST_LP_* bits */
	WINLIST_FIELD_FEATURES, /* inputFeatures= of Android 12 */
};

/*
 * A flag value: names joined by " | ", or bits in hex ("0x0" for none),
 * up to the next ", " or the end.  ORs the bits into *bits, counts the
 * names of no known flag in *unknown, and returns the end of the value.
 * Android 12's input features come out as Android 9's bits (0x1, 0x2,
 * 0x4, then 0x8 and 0x10 for DROP_INPUT and DROP_INPUT_IF_OBSCURED).
 */
const char *winlist_field_flags(const char *p, enum winlist_field_set set,
				uint32_t *bits, uint32_t *unknown);

/*
 * A viewport at p, just after its "displayId=": 0 and *vp, or -EINVAL
 * when displayId, orientation, logicalFrame or deviceSize is missing.
 * physicalFrame defaults to the logical frame, isActive to 1.
 */
int winlist_field_viewport(const char *p, struct winlist_viewport *vp);

/* "true" or "false": 1 or 0, and the end of it. */
const char *winlist_field_bool(const char *p, int *out);

#endif
