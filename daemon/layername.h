/*
 * Which package a SurfaceFlinger layer name belongs to: the one rule both
 * frame readers (FrameTimeline's layer_name, dumpsys SurfaceFlinger
 * --latency's layers) and the correlator's match by name follow
 * (docs/formats.md 3.2).
 *
 * A name is read as an optional "TX - " (FrameTimeline's transaction
 * names), then an optional wrapper: "SurfaceView[" (Android 11 and
 * later), "SurfaceView - " (Android 10) or "Splash Screen " (the starting
 * window WindowManager shows while an app launches); then the package,
 * up to the first '/', '#', ']', '(', '@' or blank.  So
 * "TX - com.foo/com.foo.Main#0", "com.foo#3",
 * "TX - SurfaceView[com.foo/com.foo.MainActivity](BLAST)#13" and
 * "Splash Screen com.foo#5" all belong to com.foo.  The package must
 * start with a letter and hold only letters, digits, '_' and '.'; names
 * whose head is something else ("54dfae7 com.foo/.Main#3", a window's
 * hash; "ActivityRecord{...}") belong to no package.  Window titles
 * without a package ("NavigationBar0#0") give the title itself, which is
 * no app's package.
 */
#ifndef TAPD_LAYERNAME_H
#define TAPD_LAYERNAME_H

#include <stddef.h>

/*
 * Finds the package of layer: sets *pkg to where it starts in layer and
 * *len to its length and returns 0, or -EINVAL when layer is NULL or
 * belongs to no package.
 */
int layername_span(const char *layer, const char **pkg, size_t *len);

/*
 * Writes the package of layer NUL-terminated to buf.  Returns 0, -EINVAL
 * as layername_span(), or -ERANGE when buf is too small.
 */
int layername_package(const char *layer, char *buf, size_t size);

/* Whether layer belongs to the package app[0..len): 1 or 0. */
int layername_belongs(const char *layer, const char *app, size_t len);

#endif
