/*
 * The per-app table a replay prints at its end, with the columns of
 * `tapctl apps`: every gesture, the taps and long presses measured, how
 * many were ok and how many had no response (the rest were truncated or
 * frames_unavailable), the nearest-rank p50/p90/p99 of the ok ones'
 * first_frame and settle, and the launches made from the ok taps (those
 * with a launch_first_frame) with the same percentiles of it, in ms.
 */
#ifndef TAPD_APPSUM_H
#define TAPD_APPSUM_H

#include <stdint.h>
#include <stdio.h>

#include "correlate.h"

struct appsum;

/* A new, empty table in *out; 0 or -ENOMEM. */
int appsum_new(struct appsum **out);

/* Frees s and everything it holds; NULL is a no-op. */
void appsum_free(struct appsum *s);

/* A gesture that is not measured (a swipe...) of app (NULL: unknown). */
int appsum_gesture(struct appsum *s, const char *app);

/*
 * A measured tap or long press of app (NULL: unknown) with its status;
 * first_ns and settle_ns count when it is ok, launch_ns (the
 * launch_first_frame, -1 when none) too.  0 or -ENOMEM.
 */
int appsum_tap(struct appsum *s, const char *app, enum correlate_status st,
	       int64_t first_ns, int64_t settle_ns, int64_t launch_ns);

/* Prints the table, apps in the order they were first seen. */
void appsum_print(struct appsum *s, FILE *out);

#endif
