/*
 * Part 3 of the --latency reader (frames_latency.h): --list.
 */
#ifndef TAPD_FRAMES_LATENCY_LIST_H
#define TAPD_FRAMES_LATENCY_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "frames_latency.h"

struct frames_latency_list;

/*
 * Parses one --list output; both forms, and a mix of them, are accepted.
 * Blank lines are skipped.  Lines longer than LATENCY_NAME_MAX + 256
 * bytes or holding a NUL, names longer than LATENCY_NAME_MAX, a
 * `RequestedLayerState{` with no name, and lines past
 * LATENCY_LIST_NAMES_MAX names are garbage.  Returns 0 and sets *out, or
 * -ENOMEM.  Free with frames_latency_list_free().
 */
int frames_latency_list_parse(const char *buf, size_t len,
			      struct frames_latency_list **out);

/* NULL is a no-op. */
void frames_latency_list_free(struct frames_latency_list *list);

/* Layer names read, in output order. */
size_t frames_latency_list_count(const struct frames_latency_list *list);

/*
 * Name i, with the A15 wrapper removed: the text after
 * `RequestedLayerState{` up to the first of " parentId=",
 * " relativeParentId=", " isRelativeOf=", " mirrorId=", " !handle",
 * " z=", " layerStack=" or the closing '}' that follows "#<digits>" (names
 * hold spaces and braces themselves); if none follows "#<digits>", the
 * first of them.  NULL when i is out of range.
 */
const char *frames_latency_list_name(const struct frames_latency_list *list,
				     size_t i);

/*
 * Chooses the layers of package worth passing to --latency: the buffer
 * layers, never the containers, which only print zeros (docs/formats.md 3.2):
 *  - the window layers, named by the window title "<package>/<activity>"
 *    (or a title that is the package itself), e.g.
 *    "com.foo/com.foo.MainActivity#0" (A10-A12), "...#28989" (A13+),
 *    "com.foo/com.foo.MainActivity(BLAST)#0";
 *  - the SurfaceView layers "SurfaceView[<package>/...]..." (A11+) and
 *    "SurfaceView - <package>/..." (A10).
 * Not chosen: layers whose A15 line says " !handle" (the app let go of
 * them: no buffer can come any more), WindowState containers
 * ("<hash> com.foo/..."),
 * "ActivityRecord{...}", "ActivityRecordInputSink ...", "Bounds for - ...",
 * "Background for SurfaceView[...]", "Splash Screen ..." and every other
 * name that does not start as above.  A chosen name without "(BLAST)" is
 * dropped when a chosen name with it is the same after removing "(BLAST)"
 * and the "#<digits>" suffixes: with BLAST (A12+), only the "(BLAST)"
 * child carries buffers ("SurfaceView[com.foo/com.foo.Main](BLAST)#1",
 * not its parent "SurfaceView[com.foo/com.foo.Main]#0"); before BLAST
 * there is no such child and the layer itself carries them.
 *
 * Stores pointers to the chosen names (owned by list) in names, in list
 * order, and their number in *n.  Returns 0; -EINVAL for an empty
 * package; -ENOSPC when more than max were chosen (the first max are
 * stored).
 */
int frames_latency_list_pick(const struct frames_latency_list *list,
			     const char *package, const char **names,
			     size_t max, size_t *n);

/* Fills lists (1), list_names and garbage_lines. */
void frames_latency_list_get_stats(const struct frames_latency_list *list,
				   struct frames_latency_stats *st);

#endif
