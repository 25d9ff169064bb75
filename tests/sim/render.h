/*
 * Frame model: apps draw on a vsync grid, SurfaceFlinger latches their
 * buffers and presents them, and writes each display frame with its app
 * frames to the trace some time after the present.  Scenarios ask for
 * frames ("app A draws n frames from time t"); render_finish() turns the
 * requests into the world's surface and display frames with start, buffer
 * ready and present times, tokens, jank, and when and on which sequence
 * their packets were written.
 *
 * Timing at refresh period P, for an app frame drawn at vsync k:
 * it starts at vsync(k) (Android 12 writes the predicted start) or a few
 * hundred microseconds later (Android 13+ writes the actual start), its
 * buffer is ready after 0.2-0.75 P (1.05-2.4 P when it misses its
 * deadline), SurfaceFlinger latches it at the first wake-up after that
 * (vsync(j) + 0.3-1.5 ms, j > k) and the display frame presents it at
 * vsync(j + 1) plus a fence delay.  An app's presents never go backwards:
 * a frame behind a late one waits (buffer stuffing).
 */
#ifndef TAPD_SIM_RENDER_H
#define TAPD_SIM_RENDER_H

#include <stdint.h>

#include "world.h"

struct render_config {
	int32_t hz;
	int actual_start;     /* 0: start = vsync (A12), 1: doFrame start */
	int64_t vsync0_ns;    /* time of vsync 0 */
	int64_t end_ns;	      /* no frame is drawn after this */
	double p_jank;	      /* share of app frames that miss their deadline */
	int expected;	      /* write expected timelines too */
	double dfonly_per_s;  /* display frames with no app frame */
	double token0_per_s;  /* synthetic skipped display frames (A14+) */
	int64_t flush_min_ns; /* delay from present to the packets' write */
	int64_t flush_max_ns;
	int late_monotonic; /* writes on one sequence never go backwards */
	uint32_t seqs[4];   /* trusted_packet_sequence_ids to spread over */
	int nseq;
	int64_t token_base;
};

struct render;

/* Returns 0 and sets *out, -EINVAL for a bad config, or -ENOMEM. */
int render_new(struct world *w, const struct render_config *cfg, uint64_t seed,
	       struct render **out);

/* NULL is a no-op. */
void render_free(struct render *r);

/* Refresh period in ns (rounded down). */
int64_t render_period(const struct render *r);

/* Time of vsync k, exact: vsync0 + k * 1e9 / hz in integers. */
int64_t render_vsync(const struct render *r, int64_t k);

/* The first vsync index at or after t_ns. */
int64_t render_vsync_index(const struct render *r, int64_t t_ns);

/*
 * App app draws n frames, one every step vsyncs, from the first vsync at
 * or after t_ns.  Requests of one app merge (one frame per vsync at most).
 * Returns the start time of the last vsync used, or -ENOMEM.
 */
int64_t render_frames(struct render *r, int app, int64_t t_ns, int n, int step);

/*
 * App app draws a frame at the first vsync at or after t_ns that
 * SurfaceFlinger drops, superseded by the app's next frame (which must
 * come within three vsyncs, or the request is ignored).
 */
int render_drop(struct render *r, int app, int64_t t_ns);

/* No app frame is drawn with a vsync in [from_ns, to_ns). */
int render_blackout(struct render *r, int64_t from_ns, int64_t to_ns);

/*
 * An app frame with exactly these start and present times, in a display
 * frame of its own (for boundary cases).
 */
int render_explicit(struct render *r, int app, int64_t start_ns,
		    int64_t present_ns, uint32_t jank);

/* Builds the frames into the world.  Returns 0, -EINVAL or -ENOMEM. */
int render_finish(struct render *r);

#endif
