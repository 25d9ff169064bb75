/*
 * The default display as `dumpsys display` describes it: its natural
 * size, refresh rate and density, for the device identity (devid.h).
 *
 * DisplayManagerService prints each logical display's DisplayInfo
 * ("mBaseDisplayInfo=DisplayInfo{...}", "mOverrideDisplayInfo=..." under
 * "Logical Displays", one line each) and each display device's
 * DisplayDeviceInfo.  The display is the DisplayInfo with "displayId 0"
 * (Android 9 prints it inside the quoted name, later releases after it;
 * releases before 9 print none, and then any DisplayInfo will do), the
 * override first since it holds what `wm size` and `wm density` set,
 * then the base one, then any other; what it lacks, the first
 * DisplayDeviceInfo flagged FLAG_DEFAULT_DISPLAY (Android 11 and earlier)
 * or FLAG_ALLOWED_TO_BE_DEFAULT_DISPLAY (12 and later) gives.
 *
 * Of a DisplayInfo: "real W x H" (the logical size, in the current
 * rotation) turned back to rotation 0 by "rotation R" (1 and 3 swap it),
 * so that the size stays the same while the phone turns; "density D";
 * the refresh rate of the active mode ("mode M" and the "{id=M, ...,
 * fps=F}" of "modes [...]", "refreshRate=F" in some vendors' builds),
 * else "renderFrameRate F" (Android 14 and later), else "F fps" (Android
 * 5 and earlier).  Of a DisplayDeviceInfo: the first "W x H" after its
 * quoted name (the panel's own size, taken as printed), "density D" and
 * the fps of "modeId M" in "supportedModes [...]", else "F fps".  The rate is
 * rounded to whole Hz (59.94 is 60).  Anything else on the lines, and
 * lines of other sections, is ignored.
 */
#ifndef TAPD_DISPLAY_DUMP_H
#define TAPD_DISPLAY_DUMP_H

#include <stddef.h>
#include <stdint.h>

/* The bounds of what is believed, as device.json's (device.h). */
#define DISPLAY_DUMP_SIZE_MAX	 100000
#define DISPLAY_DUMP_DENSITY_MAX 10000
#define DISPLAY_DUMP_REFRESH_MAX 1000

/* Plain data; 0 is unknown. */
struct display_dump {
	int32_t width, height; /* px, at rotation 0 */
	int32_t refresh_hz;
	int32_t density_dpi;
};

/*
 * Parses len bytes of `dumpsys display` output (NULs are not special)
 * into *out, cleared first.  Returns 0 when any field was found, or
 * -ENOENT.
 */
int display_dump_parse(const char *text, size_t len, struct display_dump *out);

#endif
