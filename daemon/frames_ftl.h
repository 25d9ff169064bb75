/*
 * Reader of Perfetto FrameTimeline traces (data source
 * "android.surfaceflinger.frametimeline", Android 12+): turns the packets
 * SurfaceFlinger writes into one record per app frame that reached the
 * screen, with its present time in CLOCK_MONOTONIC.  Pure: no files, no
 * clocks; frames_ftl_read_file() is a convenience over the same calls.
 *
 * Input.  A trace file is a protobuf `Trace`: a run of records
 * `0x0A <varint length> <TracePacket>`.  frames_ftl_feed() takes the bytes in
 * any chunks (a file still being written); a record cut by a chunk boundary is
 * kept until the rest comes.  A record longer than max_packet is skipped
 * without being buffered.  Top-level records other than field 1 are
 * skipped.  A framing error (a key or length that cannot be decoded) makes
 * the rest of the input unreadable, since protobuf has no resync point:
 * it is then ignored and counted.
 *
 * Packets.  Read: timestamp (8), timestamp_clock_id (58),
 * trusted_packet_sequence_id (10), previous_packet_dropped (42),
 * clock_snapshot (6) and frame_timeline_event (76).  Everything else,
 * compressed packets included, is skipped.  Of FrameTimelineEvent, the
 * actual timelines are used; expected-timeline starts are only tracked so
 * that their FrameEnd pairs.
 *
 * Clocks.  Every output time is CLOCK_MONOTONIC ns.  A packet's clock is
 * its timestamp_clock_id; without one, the trace's primary_trace_clock
 * (from a ClockSnapshot), else frames_ftl_config.default_clock, else BOOTTIME,
 * Perfetto's default.  TracePacketDefaults is not read: SurfaceFlinger
 * sets the clock on every packet.  MONOTONIC (3) is used as is (A12);
 * other builtin clocks (BOOTTIME, 6, on A13+) are converted with the
 * ClockSnapshot whose value of that clock is the latest one <= t:
 * t_mono = snap_mono + (t - snap_clock); a t before every snapshot uses
 * the earliest one, as Perfetto's trace processor does.  A clock id that
 * is not builtin (0, or 16 and above) cannot be converted: its packets
 * are dropped and counted as unconvertible.
 *
 * A ClockSnapshot may come after the data it converts (traced writes one
 * at the head of the file, but programs that build traces do not always), or
 * never.  So an event whose builtin clock no snapshot has yet is held back,
 * decoded, until one does: the snapshot that comes converts every held
 * event (a time before every snapshot uses the earliest one, as above).
 * At most max_held events are held.  When that bound is reached, or at
 * frames_ftl_eof() with events still held, the reader stops waiting: the
 * held events, and every later one whose clock still has no snapshot, are
 * read with an offset of 0 (the trace time taken as MONOTONIC, which is
 * what Perfetto's trace processor shows for a trace without a snapshot),
 * warned about once, counted in clock_assumed, and their frames flagged
 * FTL_FRAME_CLOCK_ASSUMED.  While events are held the watermark does not
 * move past where it was when the first was held.
 *
 * Timestamps that are negative, >= INT64_MAX - 10 s, or convert to a
 * negative time are rejected and counted (as Perfetto does, b/185978397).
 *
 * Joining.  A start and its FrameEnd pair by (trusted_packet_sequence_id,
 * cookie).  An app (surface) frame is joined to the display frame whose
 * token equals its display_frame_token, on the same sequence, in either
 * arrival order.  Its present time is the display frame's FrameEnd (the
 * present fence); its ready time is its own FrameEnd (buffer ready, which
 * is not the present).  Surface frames with present_type PRESENT_DROPPED
 * are counted and not emitted; display frames with token 0 (synthetic
 * skipped frames) or PRESENT_DROPPED give no present time.  When two
 * display frames carry one token, the first present stays.
 *
 * Memory is bounded.  Open starts, surface frames waiting for their display
 * frame and remembered display presents are dropped once they are
 * join_window_ns older (in trace time: the newest timestamp seen) or when
 * their table is full (the oldest goes first), and counted.
 * SurfaceFlinger writes a display frame and its surface frames in one
 * flush, so they are always close in time.  Emitted frames queue until
 * frames_ftl_next() takes them: drain after every frames_ftl_feed(); beyond
 * max_queue frames, new ones are dropped and counted.
 */
#ifndef TAPD_FRAMES_FTL_H
#define TAPD_FRAMES_FTL_H

#include <stddef.h>
#include <stdint.h>

/* "No time yet": what the time getters return before any data. */
#define FTL_TIME_NONE INT64_MIN

/* Room for a layer name and its NUL; longer names are cut and flagged. */
#define FTL_LAYER_MAX 256

/* Perfetto BuiltinClock ids used here. */
#define FTL_CLOCK_MONOTONIC 3
#define FTL_CLOCK_BOOTTIME  6

/* FrameTimelineEvent.PresentType. */
enum frames_ftl_present {
	FTL_PRESENT_UNSPECIFIED = 0,
	FTL_PRESENT_ON_TIME = 1,
	FTL_PRESENT_LATE = 2,
	FTL_PRESENT_EARLY = 3,
	FTL_PRESENT_DROPPED = 4,
	FTL_PRESENT_UNKNOWN = 5,
};

/* FrameTimelineEvent.JankType bits, as found in frames_ftl_frame.jank. */
#define FTL_JANK_NONE		  0x1u
#define FTL_JANK_SF_SCHEDULING	  0x2u
#define FTL_JANK_PREDICTION_ERROR 0x4u
#define FTL_JANK_DISPLAY_HAL	  0x8u
#define FTL_JANK_SF_CPU_DEADLINE  0x10u
#define FTL_JANK_SF_GPU_DEADLINE  0x20u
#define FTL_JANK_APP_DEADLINE	  0x40u
#define FTL_JANK_BUFFER_STUFFING  0x80u
#define FTL_JANK_UNKNOWN	  0x100u
#define FTL_JANK_SF_STUFFING	  0x200u
#define FTL_JANK_DROPPED	  0x400u

/* frames_ftl_frame.flags */
#define FTL_FRAME_ON_TIME_FINISH  0x1u /* the app finished on time */
#define FTL_FRAME_GPU_COMPOSITION 0x2u
#define FTL_FRAME_BUFFER	  0x4u /* is_buffer: not a buffer-less transaction */
#define FTL_FRAME_LAYER_CUT	  0x8u /* layer was longer than FTL_LAYER_MAX - 1 */
/*
 * A time of the frame was read with an assumed clock offset of 0: no
 * ClockSnapshot converted it (see Clocks above).
 */
#define FTL_FRAME_CLOCK_ASSUMED 0x10u
/*
 * The start is SurfaceFlinger's stand-in, not the app's: the frame's
 * prediction had expired (prediction_type PREDICTION_EXPIRED), and AOSP
 * then writes ready - 2 ms (kPredictionExpiredStartTimeDelta).
 */
#define FTL_FRAME_START_ESTIMATED 0x20u
/*
 * The present is one of SurfaceFlinger's fallbacks, not a present fence:
 * the display frame's jank holds both JANK_DISPLAY_HAL and JANK_UNKNOWN
 * (an invalid or stale fence, for which AOSP writes the composition's end
 * instead), or its end is exactly its start + 4 ms (what newer releases
 * write when the present is at or before the start: the display was off
 * and the fence stale).
 */
#define FTL_FRAME_PRESENT_ESTIMATED 0x40u

/* The stand-in offsets of AOSP's FrameTimeline.cpp (see the flags above). */
#define FTL_EXPIRED_START_DELTA_NS 2000000LL
#define FTL_STALE_PRESENT_DELTA_NS 4000000LL
#define FTL_PREDICTION_EXPIRED	   2

/* One app frame that was presented.  Times are CLOCK_MONOTONIC ns. */
struct frames_ftl_frame {
	int32_t pid;	      /* the app (owner of the layer) */
	int32_t present_type; /* enum frames_ftl_present, as the trace had it */
	int32_t prediction_type;
	uint32_t jank;		   /* FTL_JANK_* bits of the app frame */
	unsigned flags;		   /* FTL_FRAME_* */
	int64_t token;		   /* the app's vsync id */
	int64_t display_token;	   /* the display frame that presented it */
	int64_t start_ns;	   /* actual start of the app's work */
	int64_t ready_ns;	   /* buffer ready (max of GPU done, queued) */
	int64_t present_ns;	   /* present fence of the display frame */
	char layer[FTL_LAYER_MAX]; /* "TX - <layer>", NUL-terminated */
};

struct frames_ftl_config {
	/*
	 * Clock of packets without timestamp_clock_id when no ClockSnapshot
	 * names a primary clock; 0 means BOOTTIME.  Tests set MONOTONIC for
	 * hand-written traces with toy timestamps.
	 */
	uint32_t default_clock;
	/* How long in trace time pending state is kept (default 10 s). */
	int64_t join_window_ns;
	/* Largest TracePacket read (default 64 MiB); longer are skipped. */
	uint32_t max_packet;
	/* Most open starts, and most surface frames pending (default 1024). */
	uint32_t max_pending;
	/* Most display presents remembered (default 4096). */
	uint32_t max_presents;
	/* Most frames queued for frames_ftl_next() (default 65536). */
	uint32_t max_queue;
	/*
	 * Most events held back for a ClockSnapshot still to come (default
	 * 16384, about 2 MiB); see Clocks above.
	 */
	uint32_t max_held;
	/*
	 * Non-zero: every packet is read by the general walk, never by the
	 * fast path (frames_ftl_fast.h).  The results are the same either
	 * way; the tests and the fuzzer compare the two with it.
	 */
	unsigned general_only;
};

/* Counters since frames_ftl_new(); none is ever reset. */
struct frames_ftl_stats {
	uint64_t bytes;		   /* bytes fed */
	uint64_t packets;	   /* TracePackets read */
	uint64_t frame_events;	   /* packets with a frame_timeline_event */
	uint64_t clock_snapshots;  /* usable ClockSnapshots */
	uint64_t frames;	   /* frames emitted */
	uint64_t dropped_frames;   /* PRESENT_DROPPED surface frames */
	uint64_t ignored_displays; /* display frames with token 0 or dropped */
	uint64_t unpaired_ends;	   /* FrameEnds with an unknown cookie */
	uint64_t unpaired_starts;  /* starts never ended (aged out, replaced,
				      eof) */
	uint64_t evicted_waiting;  /* surface frames whose display frame never
				      came */
	uint64_t packets_lost; /* packets with previous_packet_dropped set */
	uint64_t malformed;    /* undecodable packets, events missing fields */
	uint64_t ts_rejected;  /* out-of-range timestamps */
	uint64_t ts_unconvertible; /* timestamps in a clock we cannot convert */
	uint64_t clock_held;	   /* events held back for a later snapshot */
	uint64_t clock_assumed;	   /* events read with an assumed offset 0 */
	uint64_t compressed;	   /* compressed packet bundles skipped */
	uint64_t oversized;	   /* records longer than max_packet, skipped */
	uint64_t truncated;	   /* a record cut short by frames_ftl_eof() */
	uint64_t corrupt;	   /* framing errors (the rest is ignored) */
	uint64_t ignored_bytes;	   /* bytes ignored after a framing error */
	uint64_t skipped_bytes;	   /* bytes of oversized or cut-off records */
	uint64_t corrupt_at;	   /* byte offset of the framing error */
	uint64_t cut_at;	   /* byte offset of the record cut off, or of
				      the first oversized one */
	uint64_t cut_len;	   /* its declared payload length, 0 unknown */
	uint64_t queue_dropped;	   /* frames lost to a full queue */
	/*
	 * Of the packets, those the fast path read (frames_ftl_fast.h); the
	 * only counter that differs with general_only.
	 */
	uint64_t fast_packets;
	uint32_t waiting; /* surface frames pending right now */
};

/* Receives frames from frames_ftl_read_file(); returns 0 or a negative errno.
 */
typedef int (*frames_ftl_frame_cb)(void *ctx, const struct frames_ftl_frame *f);

struct frames_ftl;

void frames_ftl_config_default(struct frames_ftl_config *cfg);

/*
 * Allocates a reader; cfg NULL means the defaults.  Returns 0 and sets
 * *out, -EINVAL for a bad config (a zero limit or max_held above 2^22, a window
 * <= 0, a max_packet below 16 or above 1 GiB, a default clock above 63), or
 * -ENOMEM.  Free with frames_ftl_free().
 */
int frames_ftl_new(const struct frames_ftl_config *cfg,
		   struct frames_ftl **out);

/* NULL is a no-op. */
void frames_ftl_free(struct frames_ftl *r);

/*
 * Feeds the next len bytes of the trace.  Bad data is never an error: it
 * is skipped and counted.  Returns 0; -ENOMEM (the reader then ignores the
 * rest of its input); -EINVAL after frames_ftl_eof().
 */
int frames_ftl_feed(struct frames_ftl *r, const void *buf, size_t len);

/*
 * Declares the end of the input: a record still incomplete is counted as
 * truncated, pending starts and surface frames are counted as lost, and
 * the watermark moves to the latest present seen.  Idempotent.
 */
void frames_ftl_eof(struct frames_ftl *r);

/* Returns 1 and fills *f with the oldest queued frame, or 0 when none. */
int frames_ftl_next(struct frames_ftl *r, struct frames_ftl_frame *f);

/*
 * The MONOTONIC time up to which frame data is complete, or FTL_TIME_NONE:
 * every frame presented at or before it has been emitted.  SurfaceFlinger
 * writes display frames in present order, each followed (or, in other
 * producers, preceded) by its surface frames, and a display frame's
 * surface frames all come before the next display frame starts.  So the
 * watermark is the latest present of a display frame after which another
 * display frame has started; frames_ftl_eof() moves it to the latest present.
 * It lags the newest present by one display frame, and does not move
 * while the screen is idle (no display frames are written then): a live
 * caller that needs progress during idle periods must add its own
 * wall-clock rule.
 */
int64_t frames_ftl_watermark(const struct frames_ftl *r);

/*
 * Where the frame data starts, or FTL_TIME_NONE: the MONOTONIC time of the
 * first ClockSnapshot if it came before any FrameTimeline packet (traced
 * writes it when the session starts, so it marks when recording began);
 * otherwise the earliest converted FrameTimeline timestamp seen so far
 * (which can still move earlier while data comes).
 */
int64_t frames_ftl_coverage_start(const struct frames_ftl *r);

struct correlate_frame;

/*
 * Fills *cf from f for the correlator: pid, layer (pointing into f),
 * start, present, jank bits, the frame's jank tag (janktag.h, from its
 * jank bits and present type) and the CORRELATE_FRAME_* flags of its
 * FTL_FRAME_CLOCK_ASSUMED, _START_ESTIMATED and _PRESENT_ESTIMATED.
 */
void frames_ftl_frame_to_correlate(const struct frames_ftl_frame *f,
				   struct correlate_frame *cf);

/* Copies the counters into *st. */
void frames_ftl_get_stats(const struct frames_ftl *r,
			  struct frames_ftl_stats *st);

/*
 * Reads the trace file at path to its end through r: feeds it in chunks,
 * passes every frame to cb (which must not be NULL), then calls
 * frames_ftl_eof() and passes the last ones. Returns 0, a negative errno for
 * the file (logged), or what cb returned when negative (reading stops there).
 */
int frames_ftl_read_file(struct frames_ftl *r, const char *path,
			 frames_ftl_frame_cb cb, void *ctx);

#endif
