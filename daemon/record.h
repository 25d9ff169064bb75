/*
 * `tapd run --record DIR`: the live daemon writes what it reads, while it
 * measures, as a recorded session (docs/formats.md 5) that `tapd replay
 * --session DIR` replays into the same rows:
 *
 *   input.getevent  every event of the touch screen the pipeline was fed,
 *                   in `getevent -lt` form (docs/formats.md 1.2): one
 *                   "add device" header for the first device opened, then
 *                   the events unprefixed, so that a device unplugged and
 *                   opened again stays one device, as it does live;
 *   latency/        each `dumpsys SurfaceFlinger --latency` output the
 *                   poller took in, verbatim, as CAPTURE_NS-0.txt under a
 *                   "# layer: NAME" line, each --list as CAPTURE_NS.list,
 *                   and an empty list at the time the source started (the
 *                   start of the frames' coverage) (docs/formats.md 3.3);
 *   foreground.log  each switch the live tracker appended (4.3);
 *   windows.log, processes.log
 *                   the live attribution's own logs (attrib_live.h), which
 *                   it writes here instead of beside the database;
 *   frames.pftrace  the FrameTimeline frames the live source took in,
 *                   once each (after its de-duplication across perfetto
 *                   sessions), re-framed as a Perfetto trace
 *                   (frames_ftl_write.h): a ClockSnapshot at the start of
 *                   the frames' coverage, then each frame;
 *   device.json     the clock anchor read when the recording (or its
 *                   segment) began, the touch panel's axis ranges the
 *                   pipeline maps with, what --device said of the
 *                   screen, the sdk level getprop gave, and the
 *                   measuring options in effect ("measure"), which a
 *                   replay of it takes as its defaults.
 *
 * Size.  Once the files of the directory pass max_bytes, the recording is
 * rotated at the next moment the pipeline is idle (no finger down, no tap
 * waiting for its frames): DIR is renamed DIR.1, an older DIR.1 removed
 * first, and a new DIR begun, with a new device.json, the input header,
 * the foreground in force and a new start of coverage (in latency/, or
 * frames.pftrace's ClockSnapshot, followed by the frames presented in the
 * RECORD_CARRY_NS before it, which a tap just after may look back at).  At most
 * twice max_bytes are on disk.  Each directory is a whole session that replays
 * on its own; a tap is in one of them, never split.  After a rotation
 * the attribution reads a new window list at the next touch-down, and the
 * taps before it came in are attributed to the foreground app in a
 * replay of the new directory.
 *
 * Failures to write are warned about once and end the recording (the
 * daemon goes on measuring); record_failed() says so.
 */
#ifndef TAPD_RECORD_H
#define TAPD_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct device_info;
struct device_measure;
struct frames_ftl_frame;
struct touch_event;

#define RECORD_MAX_BYTES_DEFAULT (64ULL * 1024 * 1024)

/*
 * How far back a new directory's frames.pftrace begins: the frames
 * presented this long before the rotation are written again after its
 * ClockSnapshot, more than a tap's busy_before looks back.
 */
#define RECORD_CARRY_NS (1000 * 1000000LL)

/*
 * Encoded FrameTimeline frames held in memory while the start of their
 * coverage is not known yet (the first session's frames come before it
 * is joined); beyond, frames are dropped with a warning.
 */
#define RECORD_FTL_PENDING_MAX (8u << 20)

/* The files a writer of its own (attrib_live.h) appends to. */
enum record_log {
	RECORD_WINDOWS,
	RECORD_PROCESSES,
};
#define RECORD_LOGS 2

struct record_config {
	const char *dir;
	uint64_t max_bytes; /* 0 for RECORD_MAX_BYTES_DEFAULT */
	/* --device: its screen, density, refresh and sdk; may be NULL. */
	const struct device_info *dev;
};

struct record_stats {
	uint64_t bytes;	    /* in the current directory */
	uint64_t events;    /* input events written */
	uint64_t snapshots; /* --latency outputs written */
	uint64_t switches;  /* foreground lines written */
	uint64_t frames;    /* FrameTimeline frames written */
	uint64_t rotations;
	int failed; /* a write failed: nothing more is recorded */
};

struct record;

/*
 * Creates dir (one level) unless it exists, and refuses one that already
 * holds input.getevent: a second recording appended to a first would go
 * back in time.  Writes device.json with the clock anchor.  Returns 0 and
 * sets *out, or a negative errno after logging why.
 */
int record_open(const struct record_config *cfg, struct record **out);

/* Closes the files.  NULL is a no-op. */
void record_free(struct record *r);

/* The panel's axis ranges the pipeline maps with, into device.json. */
void record_set_axes(struct record *r, int32_t xmin, int32_t xmax, int32_t ymin,
		     int32_t ymax);

/* The Android sdk level getprop gave, into device.json (unless --device's). */
void record_set_sdk(struct record *r, int sdk);

/* A touch screen was opened: the header, for the first one only. */
void record_input_device(struct record *r, const char *path, const char *name);

/* One event, as the pipeline got it. */
void record_input(struct record *r, const struct touch_event *ev);

/* A --list output taken in at capture_ns (an empty one: text NULL). */
void record_latency_list(struct record *r, int64_t capture_ns, const char *text,
			 size_t len);

/* A --latency output of layer, its dumpsys started at capture_ns. */
void record_latency(struct record *r, int64_t capture_ns, const char *layer,
		    const char *text, size_t len);

/*
 * FrameTimeline: where the live source's frames are covered from
 * (frames_live_coverage_start()), once it is known.  frames.pftrace is
 * begun then, with its ClockSnapshot there and the frames recorded
 * before it.  Later calls change nothing.
 */
void record_ftl_coverage(struct record *r, int64_t coverage_ns);

/* A FrameTimeline frame the live source emitted (not a duplicate). */
void record_ftl_frame(struct record *r, const struct frames_ftl_frame *f);

/* The measuring options in effect, into device.json ("measure"). */
void record_set_measure(struct record *r, const struct device_measure *m);

/* A foreground switch appended to the live timeline. */
void record_foreground(struct record *r, int64_t t_ns, int32_t pid,
		       const char *package);

/* The same with the focused activity, its fourth field (NULL: none). */
void record_foreground_activity(struct record *r, int64_t t_ns, int32_t pid,
				const char *package, const char *activity);

/*
 * The open file of a log with a writer of its own, NULL when recording
 * failed; *generation changes at each rotation, after which the writer
 * starts over (its first block, the owners it wrote).
 */
FILE *record_log(struct record *r, enum record_log which, unsigned *generation);

/*
 * Called by the daemon when the pipeline is idle: rotates when the
 * directory has passed its bound.  Returns 1 after a rotation, else 0.
 */
int record_idle(struct record *r);

void record_get_stats(const struct record *r, struct record_stats *st);

#endif
