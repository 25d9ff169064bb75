#include "frames_ftl_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frames_ftl_int.h"
#include "pb_write.h"

/* Trace and TracePacket fields (trace_packet.proto). */
#define TRACE_PACKET	  1
#define TP_CLOCK_SNAPSHOT 6
#define TP_TIMESTAMP	  8
#define TP_SEQ_ID	  10
#define TP_CLOCK_ID	  58
#define TP_FRAME_TIMELINE 76

/* ClockSnapshot and ClockSnapshot.Clock */
#define CS_CLOCKS	  1
#define CS_PRIMARY	  2
#define CLK_ID		  1
#define CLK_TIMESTAMP	  2
#define CLOCK_REALTIME_ID 1

/* FrameTimelineEvent's oneof, and the fields of its messages. */
#define FT_EXPECTED_DISPLAY 1
#define FT_ACTUAL_DISPLAY   2
#define FT_ACTUAL_SURFACE   4
#define FT_FRAME_END	    5
#define EV_COOKIE	    1
#define EV_TOKEN	    2
#define DISP_PID	    3
#define DISP_PRESENT_TYPE   4
#define DISP_ON_TIME	    5
#define DISP_GPU	    6
#define DISP_JANK	    7
#define DISP_PREDICTION	    8
#define SURF_DISPLAY_TOKEN  3
#define SURF_PID	    4
#define SURF_LAYER	    5
#define SURF_PRESENT_TYPE   6
#define SURF_ON_TIME	    7
#define SURF_GPU	    8
#define SURF_JANK	    9
#define SURF_PREDICTION	    10
#define SURF_IS_BUFFER	    11

/* The service writes the snapshot, SurfaceFlinger the frames. */
#define SERVICE_SEQ 1
#define FRAMES_SEQ  2

#define PREDICTION_VALID 1

struct frames_ftl_writer {
	int64_t cookie;
	int64_t display;
	/* The display frame last written, which the next frame may share. */
	int have_last;
	int64_t last_key, last_present;
	uint32_t last_clock;
	unsigned last_estimated;
	struct pb_writer pkt, ev, sub;
};

int
frames_ftl_write_new(struct frames_ftl_writer **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void
frames_ftl_write_free(struct frames_ftl_writer *w)
{
	if (!w)
		return;
	pb_write_release(&w->pkt);
	pb_write_release(&w->ev);
	pb_write_release(&w->sub);
	free(w);
}

static int
in_range(int64_t t)
{
	return t >= 0 && t < TS_LIMIT;
}

/* The packet built in w->pkt, framed as a Trace's repeated field. */
static void
put_packet(struct frames_ftl_writer *w, struct pb_writer *out)
{
	pb_write_msg(out, TRACE_PACKET, &w->pkt);
	pb_write_reset(&w->pkt);
}

/* The event message in w->sub as member which of a FrameTimelineEvent. */
static void
put_event(struct frames_ftl_writer *w, struct pb_writer *out, unsigned which,
	  int64_t t, uint32_t clock)
{
	pb_write_reset(&w->ev);
	pb_write_msg(&w->ev, which, &w->sub);
	pb_write_reset(&w->sub);
	pb_write_uint(&w->pkt, TP_TIMESTAMP, (uint64_t)t);
	pb_write_uint(&w->pkt, TP_CLOCK_ID, clock);
	pb_write_msg(&w->pkt, TP_FRAME_TIMELINE, &w->ev);
	pb_write_uint(&w->pkt, TP_SEQ_ID, FRAMES_SEQ);
	put_packet(w, out);
}

static void
put_end(struct frames_ftl_writer *w, struct pb_writer *out, int64_t cookie,
	int64_t t, uint32_t clock)
{
	pb_write_int(&w->sub, EV_COOKIE, cookie);
	put_event(w, out, FT_FRAME_END, t, clock);
}

int
frames_ftl_write_clock(struct frames_ftl_writer *w, struct pb_writer *out,
		       int64_t mono_ns, int64_t realtime_ns)
{
	struct pb_writer snap = {0}, clk = {0};

	if (!in_range(mono_ns))
		return -ERANGE;
	pb_write_uint(&clk, CLK_ID, FTL_CLOCK_MONOTONIC);
	pb_write_uint(&clk, CLK_TIMESTAMP, (uint64_t)mono_ns);
	pb_write_msg(&snap, CS_CLOCKS, &clk);
	if (in_range(realtime_ns)) {
		pb_write_reset(&clk);
		pb_write_uint(&clk, CLK_ID, CLOCK_REALTIME_ID);
		pb_write_uint(&clk, CLK_TIMESTAMP, (uint64_t)realtime_ns);
		pb_write_msg(&snap, CS_CLOCKS, &clk);
	}
	pb_write_uint(&snap, CS_PRIMARY, FTL_CLOCK_MONOTONIC);
	pb_write_uint(&w->pkt, TP_TIMESTAMP, (uint64_t)mono_ns);
	pb_write_uint(&w->pkt, TP_CLOCK_ID, FTL_CLOCK_MONOTONIC);
	pb_write_msg(&w->pkt, TP_CLOCK_SNAPSHOT, &snap);
	pb_write_uint(&w->pkt, TP_SEQ_ID, SERVICE_SEQ);
	put_packet(w, out);
	pb_write_release(&snap);
	pb_write_release(&clk);
	w->have_last = 0;
	return out->oom ? -ENOMEM : 0;
}

/* The expected and actual display frame that presents at present. */
static void
put_display(struct frames_ftl_writer *w, struct pb_writer *out, int64_t present,
	    uint32_t clock, unsigned estimated)
{
	int64_t lead = FRAMES_FTL_WRITE_DISPLAY_LEAD_NS;
	int64_t start = present >= lead ? present - lead : present;
	int64_t token = ++w->display, c;

	c = ++w->cookie;
	pb_write_int(&w->sub, EV_COOKIE, c);
	pb_write_int(&w->sub, EV_TOKEN, token);
	pb_write_int(&w->sub, DISP_PID, 0);
	put_event(w, out, FT_EXPECTED_DISPLAY, start, clock);
	put_end(w, out, c, present, clock);
	c = ++w->cookie;
	pb_write_int(&w->sub, EV_COOKIE, c);
	pb_write_int(&w->sub, EV_TOKEN, token);
	pb_write_int(&w->sub, DISP_PID, 0);
	pb_write_int(&w->sub, DISP_PRESENT_TYPE, FTL_PRESENT_ON_TIME);
	pb_write_int(&w->sub, DISP_ON_TIME, 1);
	pb_write_int(&w->sub, DISP_GPU, 0);
	/* AOSP's stale-fence fallback is what makes the present estimated. */
	pb_write_uint(&w->sub, DISP_JANK,
		      estimated ? FTL_JANK_DISPLAY_HAL | FTL_JANK_UNKNOWN
				: FTL_JANK_NONE);
	pb_write_int(&w->sub, DISP_PREDICTION, PREDICTION_VALID);
	put_event(w, out, FT_ACTUAL_DISPLAY, start, clock);
	put_end(w, out, c, present, clock);
}

int
frames_ftl_write_frame(struct frames_ftl_writer *w, struct pb_writer *out,
		       const struct frames_ftl_frame *f)
{
	uint32_t clock = f->flags & FTL_FRAME_CLOCK_ASSUMED
				 ? FTL_CLOCK_BOOTTIME
				 : FTL_CLOCK_MONOTONIC;
	unsigned estimated = f->flags & FTL_FRAME_PRESENT_ESTIMATED;
	int32_t prediction = f->prediction_type;
	int64_t c;

	if (!in_range(f->start_ns) || !in_range(f->ready_ns) ||
	    !in_range(f->present_ns))
		return -ERANGE;
	if (!w->have_last || w->last_key != f->display_token ||
	    w->last_present != f->present_ns || w->last_clock != clock ||
	    w->last_estimated != estimated) {
		put_display(w, out, f->present_ns, clock, estimated);
		w->have_last = 1;
		w->last_key = f->display_token;
		w->last_present = f->present_ns;
		w->last_clock = clock;
		w->last_estimated = estimated;
	}
	/* The prediction type is what the reader reads the flag from. */
	if (f->flags & FTL_FRAME_START_ESTIMATED)
		prediction = FTL_PREDICTION_EXPIRED;
	else if (prediction == FTL_PREDICTION_EXPIRED)
		prediction = PREDICTION_VALID;
	c = ++w->cookie;
	pb_write_int(&w->sub, EV_COOKIE, c);
	pb_write_int(&w->sub, EV_TOKEN, f->token);
	pb_write_int(&w->sub, SURF_DISPLAY_TOKEN, w->display);
	pb_write_int(&w->sub, SURF_PID, f->pid);
	pb_write_str(&w->sub, SURF_LAYER, f->layer);
	pb_write_int(&w->sub, SURF_PRESENT_TYPE, f->present_type);
	pb_write_int(&w->sub, SURF_ON_TIME,
		     (f->flags & FTL_FRAME_ON_TIME_FINISH) != 0);
	pb_write_int(&w->sub, SURF_GPU,
		     (f->flags & FTL_FRAME_GPU_COMPOSITION) != 0);
	pb_write_uint(&w->sub, SURF_JANK, f->jank);
	pb_write_int(&w->sub, SURF_PREDICTION, prediction);
	pb_write_int(&w->sub, SURF_IS_BUFFER,
		     (f->flags & FTL_FRAME_BUFFER) != 0);
	put_event(w, out, FT_ACTUAL_SURFACE, f->start_ns, clock);
	put_end(w, out, c, f->ready_ns, clock);
	return out->oom ? -ENOMEM : 0;
}
