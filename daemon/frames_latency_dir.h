/*
 * Part 4 of the --latency reader (frames_latency.h): the replay of a
 * recorded latency/ directory.
 */
#ifndef TAPD_FRAMES_LATENCY_DIR_H
#define TAPD_FRAMES_LATENCY_DIR_H

#include <stddef.h>
#include <stdint.h>

#include "frames_latency.h"

/* Part 3's list, which a directory keeps the last of. */
struct frames_latency_list;

struct frames_latency_dir;

/*
 * Lists the directory at path and sorts its recorded files by capture
 * time (in one cycle the .list file first, then the snapshots by n).
 * Files are read one cycle at a time by frames_latency_dir_next().  Returns 0
 * and sets *out (also when no file is recorded), or a negative errno from
 * opendir() after logging why, or -ENOMEM.  Free with
 * frames_latency_dir_free().
 */
int frames_latency_dir_open(const char *path, struct frames_latency_dir **out);

/* NULL is a no-op. */
void frames_latency_dir_free(struct frames_latency_dir *d);

/*
 * Replays the next poll cycle (all files with the next capture time):
 * feeds each snapshot to its layer's tracker, calling cb for each frame
 * emitted, and reads the cycle's --list.  Returns 1 and sets *capture_ns
 * (when not NULL), 0 at the end, or what cb returned.  A snapshot whose
 * layer goes back (frames_latency.h) ends the replay: it is logged as an
 * error that names the file, the layer and the jump, its cycle does not
 * move the watermark, and the call returns 0 as at the end
 * (frames_latency_dir_get_jump() tells the two apart).  Files that cannot
 * be read, are too large, or lack the "# layer: " line are skipped,
 * counted and logged.  The watermark then moves to the minimum of the
 * watermarks of the trackers fed in the cycle, or to the capture time of
 * a cycle that recorded only a --list (it never moves back).
 */
int frames_latency_dir_next(struct frames_latency_dir *d,
			    frames_latency_frame_cb cb, void *ctx,
			    int64_t *capture_ns);

/*
 * Every frame of the layers polled in the last cycle presented at or
 * before this time has been emitted.  INT64_MIN before the first cycle
 * that advanced it.
 */
int64_t frames_latency_dir_watermark(const struct frames_latency_dir *d);

/*
 * The capture time of the first recorded file: frames starting from then
 * on are in the replay (correlate_set_coverage()).  INT64_MAX when the
 * directory holds no recorded file.
 */
int64_t frames_latency_dir_coverage(const struct frames_latency_dir *d);

/*
 * Where the replay ended because a layer went back: returns 0 and fills
 * *j (its strings valid while d is; until_ns is the watermark, which
 * frames after it may not have reached), or -ENOENT when none did.
 */
int frames_latency_dir_get_jump(const struct frames_latency_dir *d,
				struct frames_latency_jump *j);

/* The --list read last, or NULL.  Valid until the next call. */
const struct frames_latency_list *
frames_latency_dir_list(const struct frames_latency_dir *d);

/*
 * Fills files, files_skipped, the snapshot and tracker counters summed
 * over every snapshot replayed so far, and lists, list_names (their
 * garbage lines are in garbage_lines).
 */
void frames_latency_dir_get_stats(const struct frames_latency_dir *d,
				  struct frames_latency_stats *st);

#endif
