/*
 * The live daemon's reading of its display: `dumpsys display` through the
 * child runner (child.h), never waiting for it, parsed by display_dump.h.
 *
 * It reads once at start and again every DISPLAY_LIVE_REFRESH_MS, which
 * follows a change of refresh rate, `wm size` or `wm density` within
 * minutes while costing an idle daemon one wake-up in that time.  The
 * size is the panel's natural one (display_dump.h), so that turning the
 * phone changes nothing.  One read at a time, killed after
 * DISPLAY_LIVE_TIMEOUT_MS; a read that fails or says nothing is logged
 * the first time and leaves the last values as they were.
 */
#ifndef TAPD_DISPLAY_LIVE_H
#define TAPD_DISPLAY_LIVE_H

#include <stdint.h>

#include "display_dump.h"

struct display_live;
struct loop;

#define DISPLAY_LIVE_REFRESH_MS (5 * 60 * 1000)
#define DISPLAY_LIVE_TIMEOUT_MS 2000
#define DISPLAY_LIVE_OUT_MAX	(4 * 1024 * 1024)

/* A read gave the display d (at least one field known). */
typedef void (*display_live_cb)(void *ctx, const struct display_dump *d);

struct display_live_config {
	struct loop *loop;	 /* required: the children's fd goes on it */
	const char *dumpsys_bin; /* NULL for "dumpsys" */
	display_live_cb on_read; /* required */
	void *ctx;
	int64_t refresh_ms; /* 0 for DISPLAY_LIVE_REFRESH_MS */
};

/*
 * Starts the first read.  *out is NULL (and 0 returned) when dumpsys
 * cannot run (not Android).  Returns 0, or a negative errno (logged) when
 * the children's fd or the timer cannot be set up.
 */
int display_live_new(const struct display_live_config *cfg,
		     struct display_live **out);

/* Kills a read under way and frees dl.  NULL is a no-op. */
void display_live_free(struct display_live *dl);

#endif
