/*
 * libFuzzer target for the fast path of the FrameTimeline reader
 * (daemon/frames_ftl_fast.h): every input is read by two readers, one
 * with the fast path and one with general_only set, in the same two
 * chunks (split at data[0] % size), and they must agree on every frame,
 * on every counter but fast_packets, and on the watermark and coverage
 * after each step.  Small tables make the eviction paths run; odd sizes
 * read clock-less packets as MONOTONIC, as fuzz_ftl.c does.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "frames_ftl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
same_frame(const struct frames_ftl_frame *a, const struct frames_ftl_frame *b)
{
	if (a->pid != b->pid || a->present_type != b->present_type ||
	    a->prediction_type != b->prediction_type || a->jank != b->jank ||
	    a->flags != b->flags || a->token != b->token ||
	    a->display_token != b->display_token ||
	    a->start_ns != b->start_ns || a->ready_ns != b->ready_ns ||
	    a->present_ns != b->present_ns || strcmp(a->layer, b->layer) != 0)
		__builtin_trap();
}

/* Both readers' queues, frame by frame, then their state. */
static void
same(struct frames_ftl *fast, struct frames_ftl *gen)
{
	struct frames_ftl_frame a, b;
	struct frames_ftl_stats sa, sb;
	int ra, rb;

	for (;;) {
		ra = frames_ftl_next(fast, &a);
		rb = frames_ftl_next(gen, &b);
		if (ra != rb)
			__builtin_trap();
		if (ra == 0)
			break;
		same_frame(&a, &b);
	}
	frames_ftl_get_stats(fast, &sa);
	frames_ftl_get_stats(gen, &sb);
	if (memcmp(&sa, &sb, offsetof(struct frames_ftl_stats, fast_packets)) !=
		    0 ||
	    sa.waiting != sb.waiting || sb.fast_packets != 0 ||
	    frames_ftl_watermark(fast) != frames_ftl_watermark(gen) ||
	    frames_ftl_coverage_start(fast) != frames_ftl_coverage_start(gen))
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frames_ftl *fast = NULL, *gen = NULL;
	struct frames_ftl_config cfg;
	size_t k;

	if (size == 0)
		return 0;
	frames_ftl_config_default(&cfg);
	if (size & 1)
		cfg.default_clock = FTL_CLOCK_MONOTONIC;
	cfg.max_pending = 8;
	cfg.max_presents = 8;
	cfg.max_queue = 16;
	cfg.max_packet = 4096;
	if (frames_ftl_new(&cfg, &fast) < 0)
		return 0;
	cfg.general_only = 1;
	if (frames_ftl_new(&cfg, &gen) < 0)
		goto out;
	k = data[0] % size;
	(void)frames_ftl_feed(fast, data, k);
	(void)frames_ftl_feed(gen, data, k);
	same(fast, gen);
	(void)frames_ftl_feed(fast, data + k, size - k);
	(void)frames_ftl_feed(gen, data + k, size - k);
	same(fast, gen);
	frames_ftl_eof(fast);
	frames_ftl_eof(gen);
	same(fast, gen);
out:
	frames_ftl_free(fast);
	frames_ftl_free(gen);
	return 0;
}
