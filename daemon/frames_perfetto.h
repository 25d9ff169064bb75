/*
 * The FrameTimeline side of the live frame source (frames_live.h,
 * "FrameTimeline sessions", "No frame lost or duplicated" and
 * "Watermark"): perfetto sessions started, rotated, restarted and
 * stopped, their trace files tailed with the FrameTimeline reader and
 * deleted once read.  Its children run in the owner's child set, which
 * the owner dispatches; it never blocks, except frames_perfetto_free().
 */
#ifndef TAPD_FRAMES_PERFETTO_H
#define TAPD_FRAMES_PERFETTO_H

#include <stddef.h>
#include <stdint.h>

#include "frames_live.h"
#include "status.h"

struct child_set;
struct frames_perfetto;

/*
 * cfg has every default filled in (its strings not NULL, cap_bytes set);
 * it is copied, its strings are not and must outlive the object, as must
 * cs and st (the counters it adds to).  Returns 0 and sets *out, or
 * -ENOMEM.  Free with frames_perfetto_free().
 */
int frames_perfetto_new(const struct frames_live_config *cfg,
			struct child_set *cs, struct frames_live_stats *st,
			struct frames_perfetto **out);

/*
 * SIGTERM to the sessions and up to a second for them to exit (waiting,
 * dispatching cs), then SIGKILL; deletes the trace files.  NULL is a
 * no-op.
 */
void frames_perfetto_free(struct frames_perfetto *p);

/*
 * Does what is due at now: reads the files, starts, joins, rotates and
 * restarts sessions, and calls cb for each new frame.  Returns 0, what cb
 * returned when negative, or a negative errno of the reader.
 */
int frames_perfetto_work(struct frames_perfetto *p, int64_t now,
			 frames_live_cb cb, void *ctx);

/*
 * The inotify fd that watches the trace files (readable when perfetto
 * wrote one), or -1 without inotify: the owner polls it beside cs and
 * calls frames_perfetto_work() when it is readable.
 */
int frames_perfetto_fd(const struct frames_perfetto *p);

/*
 * When frames_perfetto_work() is next due besides the fd; INT64_MAX for
 * never.  A file that is watched is not read on a timer: only the rules
 * that run on time (a start or stop that takes too long, the watermark
 * of a quiet session, a rotation or restart) make work due.
 */
int64_t frames_perfetto_next_due(const struct frames_perfetto *p, int64_t now);

/* The health as of the last work, and its detail (size bytes). */
void frames_perfetto_health(struct frames_perfetto *p, enum status_health *h,
			    char *detail, size_t size);

int64_t frames_perfetto_watermark(const struct frames_perfetto *p);
/*
 * When the session in use last read a FrameTimeline event, while it runs
 * and its file is read to the end; INT64_MAX when that cannot be said
 * (no session, a rotation under way, a stop).
 */
int64_t frames_perfetto_quiet_since(const struct frames_perfetto *p);

int64_t frames_perfetto_coverage_start(const struct frames_perfetto *p);

/* SIGTERM to every session; none is started again. */
void frames_perfetto_stop(struct frames_perfetto *p, int64_t now);

/* 1 once every session has exited and its file has been read. */
int frames_perfetto_stopped(const struct frames_perfetto *p);

/* TracePackets read, and lost, malformed or never joined, all files. */
void frames_perfetto_packets(const struct frames_perfetto *p, uint64_t *packets,
			     uint64_t *dropped);

#endif
