/*
 * Reader of `dumpsys SurfaceFlinger --latency <layer>` and `--list` output
 * (docs/formats.md 3), the frame source for devices without
 * FrameTimeline.  Four parts:
 *
 *  1. frames_latency_snapshot: one `--latency <layer>` output parsed.  The
 *first line is the vsync period in ns; a vendor `now = <ns>` line may come
 *     before it.  Then up to 127 rows "desired actual ready" (tabs or
 *     spaces), oldest first, and one empty line.  CRLF line ends are
 *     accepted.  Lines that fit no part of the format are counted as
 *     garbage and skipped; nothing in the input can make the parser fail
 *     except a lack of memory.
 *
 *  2. frames_latency_tracker: the frames of one layer, from successive
 *snapshots of it, each emitted exactly once (see "De-duplication" below), and a
 *     watermark.
 *
 *  3. frames_latency_list: one `--list` output, the A10-A14 form (one layer
 *name a line) or the A15+ form (`RequestedLayerState{<name> parentId=N
 *     ...}` a line), and frames_latency_list_pick(), which chooses the layers
 *of a package worth querying.
 *
 *  4. frames_latency_dir: replay of a recorded `latency/` directory (format
 *     below), yielding frames and watermarks in the order the live source
 *     would.
 *
 * Each part is a module of its own: frames_latency_parse.c,
 * frames_latency_track.c, frames_latency_list.c and frames_latency_dir.c,
 * with a header each.  This header holds the types they share and
 * includes their headers, so that a caller needs only this one.
 *
 * All times are CLOCK_MONOTONIC ns, the clock SurfaceFlinger prints.
 *
 * Rows.  Column 1 is desiredPresentTime (for auto-timestamped buffers the
 * time the app queued the buffer: the frame's start for the correlator),
 * column 2 actualPresentTime (the present-fence time), column 3
 * frameReadyTime (acquire fence, GPU done).  A row is
 *  - zero: "0 0 0", an unused or cleared record;
 *  - pending: column 2 is INT64_MAX, the present fence has not signalled;
 *  - invalid: column 2 is -1 (invalid fence) or any other value <= 0, or
 *    column 1 is <= 0 or INT64_MAX;
 *  - presented: everything else.
 *
 * De-duplication.  A frame is identified by its column 1 within its layer.
 * A tracker remembers the keys of the last LATENCY_SEEN_MAX frames it has
 * finalized and the keys of the frames still pending, and for each row of
 * a snapshot, oldest first:
 *  - a presented row whose key is not finalized is emitted and finalized;
 *  - an invalid row whose key is not finalized is counted in
 *    frames_invalid and finalized, never emitted: without a present time
 *    it is not a presented frame and the correlator must not see it;
 *  - a pending row is remembered as pending until a later snapshot shows
 *    it presented (then it is emitted, in that snapshot's row order) or
 *    invalid, or until a complete snapshot no longer holds it (it left
 *    the ring unresolved: counted in pending_lost);
 *  - a row whose key is already finalized is a duplicate: counted, not
 *    emitted;
 *  - zero rows and rows invalid in column 1 carry no key and are skipped.
 *  - a presented row whose key is not finalized but whose present time is
 *    earlier than that of a frame the tracker emitted up to its last
 *    complete snapshot goes back (below).
 * Because the test is membership, not "newer than the last emitted", the
 * rules need no special case for `--latency-clear` (all rows turn to zero;
 * later frames have new keys) or for a layer destroyed and recreated under
 * the same name (A10-A12 reuse "#0": the new ring starts empty, its frames
 * have new keys, and a destroyed layer prints no rows at all).  Old rows
 * never reappear in a real ring, and if one did it would be recognised as
 * long as it is among the last LATENCY_SEEN_MAX finalized keys, four
 * times the ring.  A frame with a key never finalized is emitted even if
 * it is older than the last emitted one (apps may set explicit,
 * non-monotonic desired times).  Two distinct frames with the same
 * column 1 cannot be told apart; the second counts as a duplicate.
 *
 * Going back.  A ring is a FIFO of the frames latched, so a frame that
 * is in a snapshot and was latched before the previous complete snapshot
 * was printed was in that one too (as presented, pending or invalid: its
 * key is known).  A frame new to the tracker was therefore latched, and
 * presented, after every frame emitted up to then.  Successive snapshots
 * overlap (most rows are duplicates), apps may set non-monotonic desired
 * times, a snapshot may hold two rings when two layers share a name, and
 * a cut-off snapshot may miss frames that come later: none of that makes
 * a new frame present before what was emitted up to the last complete
 * snapshot.  One that does comes from another recording or an older
 * snapshot (a session recorded twice into one directory, two merged): it
 * is counted in backwards, finalized and never emitted.  A strict tracker
 * (a replay's) also stops there: the feed returns -ERANGE, the rows after
 * it are not looked at and the watermark stays; the live poller's
 * tracker goes on with the next row.
 *
 * Completeness.  dumpsys ends its output with an empty line after the
 * rows, or right after the period line when no layer has the name (the
 * layer is gone).  A snapshot without that ending (cut off, e.g. a
 * dumpsys killed by a timeout), or with rows beyond LATENCY_ROWS_MAX, is
 * incomplete: its presented rows are still emitted, but it cannot prove
 * that a pending frame left the ring and it does not advance the
 * watermark.
 *
 * Watermark.  The capture time of a snapshot must be read from
 * CLOCK_MONOTONIC before dumpsys is started.  Every frame presented before
 * that time had a signalled present fence when SurfaceFlinger printed the
 * rows, so it is in the snapshot as presented (unless more frames than the
 * ring holds came since the previous snapshot: counted in gaps).  Only
 * pending rows are still to come, and their present time is later than
 * their column 1.  So after a complete snapshot captured at C every frame
 * presented at or before
 *
 *	W = min(C, min(column 1 - 1 over the pending frames))
 *
 * has been emitted, and W is the watermark the correlator's frames_wm
 * expects.  The pending term is a margin: it costs a frame or two of
 * delay and keeps W below every frame the snapshot shows is still to come,
 * whatever the fine details of the clocks.  A pending frame queued more than
 * LATENCY_PENDING_STALE_NS before C no longer holds W back (so one fence
 * that never signals cannot stall the correlator); it is still emitted if
 * it resolves.  The watermark never decreases.
 *
 * Recorded format (what frames_latency_dir_open() reads and a recorder writes).
 * A directory holding
 *  - `<capture_ns>-<n>.txt`: one snapshot.  capture_ns is the capture time
 *    as above, in decimal, n = 0, 1, ... tells apart the layers queried in
 *    the same poll cycle (same capture_ns).  The first line is
 *    `# layer: <exact layer name>` (the name as passed to --latency, up to
 *    the end of the line), and the rest is the verbatim output of
 *    `dumpsys SurfaceFlinger --latency <layer name>`.
 *  - `<capture_ns>.list` (optional): the verbatim output of
 *    `dumpsys SurfaceFlinger --list`, taken in the cycle at capture_ns
 *    before the layers were queried.
 * capture_ns is 1 to 19 digits (0 .. INT64_MAX), n 1 to 6 digits.  Other
 * entries are skipped and counted.  A poll cycle that found no layer to
 * query is recorded as a `.list` file alone, so that the replay still
 * advances the watermark.
 */
#ifndef TAPD_FRAMES_LATENCY_H
#define TAPD_FRAMES_LATENCY_H

#include <stddef.h>
#include <stdint.h>

/* Fence::SIGNAL_TIME_PENDING: a present (or ready) fence not yet signalled. */
#define LATENCY_PENDING INT64_MAX

/* Rows SurfaceFlinger prints for a layer (FrameTracker NUM_FRAME_RECORDS - 1).
 */
#define LATENCY_RING_ROWS 127

/* Rows kept per snapshot; more are dropped, counted in rows_over. */
#define LATENCY_ROWS_MAX 256

/* Finalized keys a tracker remembers. */
#define LATENCY_SEEN_MAX (2 * LATENCY_ROWS_MAX)

/* Longest layer name accepted, in bytes. */
#define LATENCY_NAME_MAX 1024

/* Largest recorded snapshot and --list file read, in bytes. */
#define LATENCY_SNAPSHOT_FILE_MAX (1 << 20)
#define LATENCY_LIST_FILE_MAX	  (8 << 20)

/* Names kept from one --list output; more are counted as garbage. */
#define LATENCY_LIST_NAMES_MAX 65536

/* Age past which a pending frame stops holding the watermark back. */
#define LATENCY_PENDING_STALE_NS 2000000000LL

/* Layer trackers a frames_latency_dir keeps; the least recently fed goes first.
 */
#define LATENCY_DIR_TRACKERS_MAX 256

/* Recorded files a frames_latency_dir accepts; more are skipped. */
#define LATENCY_DIR_FILES_MAX (1 << 22)

/* One row as printed. */
struct frames_latency_row {
	int64_t desired_ns; /* column 1, desiredPresentTime */
	int64_t actual_ns;  /* column 2, actualPresentTime */
	int64_t ready_ns;   /* column 3, frameReadyTime */
};

enum frames_latency_row_kind {
	LATENCY_ROW_ZERO,
	LATENCY_ROW_PENDING,
	LATENCY_ROW_INVALID,
	LATENCY_ROW_PRESENTED,
};

/*
 * Counters.  Each function that fills one says which fields it uses; the
 * others are 0.  Row counters count a row each time a snapshot shows it
 * (a frame sits in about 127 successive rings); frames, frames_invalid,
 * duplicates and pending_lost count distinct frames or rows suppressed.
 */
struct frames_latency_stats {
	uint64_t files;		 /* recorded files read */
	uint64_t files_skipped;	 /* directory entries skipped */
	uint64_t snapshots;	 /* --latency outputs parsed */
	uint64_t incomplete;	 /* of which incomplete (see above) */
	uint64_t rows;		 /* rows of every kind */
	uint64_t zero_rows;	 /* "0 0 0" rows */
	uint64_t pending_rows;	 /* rows with a pending present */
	uint64_t invalid_rows;	 /* invalid rows */
	uint64_t rows_over;	 /* rows past LATENCY_ROWS_MAX, dropped */
	uint64_t garbage_lines;	 /* lines of neither format, skipped */
	uint64_t duplicates;	 /* rows of frames already finalized */
	uint64_t frames;	 /* frames emitted */
	uint64_t frames_invalid; /* frames dropped for an invalid present */
	uint64_t pending_lost;	 /* pending frames gone without a present */
	uint64_t backwards;	 /* frames presented before ones emitted */
	uint64_t gaps;		 /* snapshots sharing no frame with the last */
	uint64_t lists;		 /* --list outputs parsed */
	uint64_t list_names;	 /* layer names read from them */
};

/* The kind of a row, by the rules above. */
enum frames_latency_row_kind
frames_latency_row_classify(const struct frames_latency_row *row);

/*
 * The package a layer name belongs to, for the correlator's match by app:
 * layername_package() (layername.h), the one rule of both frame readers
 * and the correlator.  Writes it NUL-terminated to buf and returns 0;
 * -EINVAL when the name belongs to no package; -ERANGE when buf is too
 * small.
 */
int frames_latency_layer_package(const char *layer, char *buf, size_t size);

/* Where the frames of a layer went back first. */
struct frames_latency_jump {
	int64_t from_ns;  /* the latest present emitted before */
	int64_t to_ns;	  /* the present of the frame that went back */
	int64_t until_ns; /* frames_latency_dir: its watermark at the stop */
	const char *layer;
	const char *file; /* frames_latency_dir: the snapshot's file name */
};

/* One presented frame.  The strings belong to the tracker. */
struct frames_latency_frame {
	const char *layer;  /* the layer name */
	const char *app;    /* frames_latency_layer_package() of it, or NULL */
	int64_t desired_ns; /* column 1: the correlator's start_ns */
	int64_t present_ns; /* column 2: the correlator's present_ns */
	int64_t ready_ns;   /* column 3, or -1 when pending or invalid */
};

/*
 * Receives each emitted frame; returns 0, or a negative errno to stop the
 * feed.
 */
typedef int (*frames_latency_frame_cb)(
	void *ctx, const struct frames_latency_frame *frame);

struct correlate_frame;

/*
 * Fills *cf from f for the correlator: the queue time (desired_ns) is the
 * nearest this source has to a frame's start.
 */
void frames_latency_frame_to_correlate(const struct frames_latency_frame *f,
				       struct correlate_frame *cf);

/*
 * The parts come after the types above, which they use: the header of a
 * part includes this one first.
 */
#include "frames_latency_dir.h"
#include "frames_latency_list.h"
#include "frames_latency_parse.h"
#include "frames_latency_track.h"

#endif
