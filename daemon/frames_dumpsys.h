/*
 * The `dumpsys SurfaceFlinger --latency` side of the live frame source
 * (frames_live.h, "Latency polling" and "Watermark"): while taps are
 * pending, a cycle of `--list` then `--latency <layer>` for the layers of
 * the wanted apps, one child at a time, each fed to a tracker of its
 * layer (frames_latency.h).  Its children run in the owner's child set,
 * which the owner dispatches; nothing here blocks.
 */
#ifndef TAPD_FRAMES_DUMPSYS_H
#define TAPD_FRAMES_DUMPSYS_H

#include <stddef.h>
#include <stdint.h>

#include "frames_live.h"
#include "status.h"

struct child_set;
struct frames_dumpsys;

/*
 * cfg has every default filled in (its strings not NULL); it is copied,
 * its strings are not and must outlive the object, as must cs and st (the
 * counters it adds to).  Returns 0 and sets *out, or -ENOMEM.  Free with
 * frames_dumpsys_free().
 */
int frames_dumpsys_new(const struct frames_live_config *cfg,
		       struct child_set *cs, struct frames_live_stats *st,
		       struct frames_dumpsys **out);

/* Kills the dumpsys running, if any (SIGKILL).  NULL is a no-op. */
void frames_dumpsys_free(struct frames_dumpsys *d);

/*
 * Does what is due at now: starts a cycle, takes the output of the child
 * that exited, starts the next, and calls cb for each new frame.  Returns
 * 0, what cb returned when negative, or -ENOMEM.
 */
int frames_dumpsys_work(struct frames_dumpsys *d, int64_t now,
			frames_live_cb cb, void *ctx);

/* When the next cycle is due; INT64_MAX while a child runs, or idle. */
int64_t frames_dumpsys_next_due(const struct frames_dumpsys *d);

/*
 * The health a cycle ended with: returns 1 and sets *h and *detail (valid
 * until the next work) once per cycle, else 0.
 */
int frames_dumpsys_health(struct frames_dumpsys *d, enum status_health *h,
			  const char **detail);

int64_t frames_dumpsys_watermark(const struct frames_dumpsys *d);

/* As frames_live_set_wanted(). */
int frames_dumpsys_set_wanted(struct frames_dumpsys *d, int pending_taps,
			      const char *const *packages, size_t n);

/* No new cycle starts; the one running ends after its child. */
void frames_dumpsys_stop(struct frames_dumpsys *d);

/* 1 once no child runs and no cycle is under way. */
int frames_dumpsys_stopped(const struct frames_dumpsys *d);

#endif
