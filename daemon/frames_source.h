/*
 * Frame sources for replay: a Perfetto FrameTimeline trace ("ftl:FILE"),
 * a directory of `dumpsys SurfaceFlinger --latency` snapshots
 * ("latency:DIR"), or none.  The source reads ahead of the input in event
 * time and feeds every presented frame to the correlator, with the
 * watermark the correlator may finalize up to.
 */
#ifndef TAPD_FRAMES_SOURCE_H
#define TAPD_FRAMES_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct correlate;
struct frames_source;

/*
 * Opens the source named by spec (NULL or "none" for no frames).  Returns
 * 0 and sets *out, or a negative errno after logging why.  Close with
 * frames_source_close().
 */
int frames_source_open(const char *spec, struct frames_source **out);

/* NULL is a no-op. */
void frames_source_close(struct frames_source *fs);

/*
 * Reads until the frame data is complete well past input_ns (far enough
 * for any tap up to input_ns to be finalized) or the source ends, feeding
 * every frame to corr and telling it the coverage, and sets *frames_wm to
 * the watermark to pass to correlate_advance().  Returns 0 or a negative
 * errno.
 */
int frames_source_pump(struct frames_source *fs, struct correlate *corr,
		       int64_t input_ns, int64_t *frames_wm);

/*
 * Reads the rest of the source into corr and sets *frames_end to the last
 * time its data covers, for correlate_finish().  Returns 0 or a negative
 * errno.
 */
int frames_source_finish(struct frames_source *fs, struct correlate *corr,
			 int64_t *frames_end);

/*
 * Counters for the health endpoint: presented frames fed to the
 * correlator, packets read, and packets lost (dropped by the tracer,
 * malformed, never joined).  Zero for latency snapshots' packets.
 */
void frames_source_counts(const struct frames_source *fs, uint64_t *frames,
			  uint64_t *packets, uint64_t *dropped);

/*
 * What went wrong reading a trace, for the health endpoint's detail:
 * packets read, malformed packets skipped, bytes not framed and where the
 * trace was cut off.  An empty string when nothing did.
 */
void frames_source_problems(const struct frames_source *fs, char *buf,
			    size_t len);

/*
 * Where the source's data ends because its time went back (latency
 * snapshots, frames_latency_dir_get_jump()): returns 0 and sets *until_ns
 * to the time its frames are complete up to (INT64_MIN: none), or
 * -ENOENT.
 */
int frames_source_cut(const struct frames_source *fs, int64_t *until_ns);

/* Prints the source's summary line(s) ("frames ..."). */
void frames_source_print(const struct frames_source *fs, FILE *out);

#endif
