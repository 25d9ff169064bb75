/*
 * libFuzzer target for the FrameTimeline reader and the protobuf reader
 * under it.  The input is fed in two chunks split at data[0] % size, so
 * every record boundary gets cut some of the time, then the frames are
 * drained and the input ended.  Small tables make the eviction paths run.
 * The same bytes are also walked as nested protobuf messages.
 */
#include <stddef.h>
#include <stdint.h>

#include "frames_ftl.h"
#include "pb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
walk(const uint8_t *buf, size_t len, int depth)
{
	struct pb_reader r;
	struct pb_field f;

	pb_reader_init(&r, buf, len);
	while (pb_next(&r, &f) > 0) {
		if ((f.wire == PB_WIRE_LEN || f.wire == PB_WIRE_SGROUP) &&
		    depth > 0)
			walk(f.data, f.len, depth - 1);
	}
}

static void
drain(struct frames_ftl *r)
{
	struct frames_ftl_frame f;

	while (frames_ftl_next(r, &f) == 1) {
		/* Every emitted frame carries a terminated layer name. */
		if (f.layer[FTL_LAYER_MAX - 1] != '\0')
			__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frames_ftl_config cfg;
	struct frames_ftl_stats st;
	struct frames_ftl *r;
	size_t k;

	if (size == 0)
		return 0;
	walk(data, size, 8);

	frames_ftl_config_default(&cfg);
	/* Odd sizes read clock-less packets as MONOTONIC, like the tests. */
	if (size & 1)
		cfg.default_clock = FTL_CLOCK_MONOTONIC;
	cfg.max_pending = 8;
	cfg.max_presents = 8;
	cfg.max_queue = 16;
	cfg.max_packet = 4096;
	if (frames_ftl_new(&cfg, &r) < 0)
		return 0;
	k = data[0] % size;
	(void)frames_ftl_feed(r, data, k);
	drain(r);
	(void)frames_ftl_feed(r, data + k, size - k);
	drain(r);
	frames_ftl_eof(r);
	drain(r);
	frames_ftl_get_stats(r, &st);
	if (st.bytes != size || st.waiting != 0)
		__builtin_trap();
	(void)frames_ftl_watermark(r);
	(void)frames_ftl_coverage_start(r);
	frames_ftl_free(r);
	return 0;
}
