/*
 * Perfetto trace writer: the FrameTimeline packets SurfaceFlinger would
 * have written for the world's frames, with the tracing service's own
 * packets around them (trace config, system info, clock snapshots,
 * synchronization markers, trace stats), in the protobuf wire format of
 * perfetto's trace.proto: a `Trace` whose field 1 repeats `TracePacket`.
 * The encoder is the simulator's own; it shares nothing with the daemon's
 * reader, so a misreading on either side shows up as a disagreement.
 *
 * Each display frame is written with its app frames in one flush, display
 * frame first as SurfaceFlinger does or last when the world says so, each
 * start followed by its FrameEnd on the same sequence.  Cookies come from
 * one counter in flush order.  Packets reach the file in write order:
 * flush order, or with a periodic write, period by period and sequence by
 * sequence inside each period, as traced reads its buffer.
 */
#ifndef TAPD_SIM_PFTRACE_H
#define TAPD_SIM_PFTRACE_H

#include <stdint.h>

#include "world.h"

struct pftrace_stats {
	uint64_t packets;	/* TracePackets written */
	uint64_t frame_packets; /* of which FrameTimeline events */
	uint64_t bytes;
	uint64_t display_frames; /* actual display frames written */
	uint64_t surface_frames; /* actual surface frames written */
	uint64_t dropped_frames; /* of which PRESENT_DROPPED */
	uint64_t snapshots;
};

/*
 * Writes the trace of w to path.  Returns 0 and fills *st (may be NULL),
 * or a negative errno after printing why.
 */
int pftrace_write(const struct world *w, const char *path,
		  struct pftrace_stats *st);

#endif
