/*
 * Prometheus metrics (text exposition format 0.0.4) for /metrics: per-app
 * histograms of both latencies in seconds (buckets.h), counters of
 * taps by app and status and of gestures by kind (and of those tapd
 * injected, STORE_FLAG_INJECTED: by app and status for the apps that had
 * one, by kind), input events,
 * SYN_DROPPED, frames read, packets dropped, source up/down gauges, the
 * frame source's lag, build info and the device's identity.  Tap metrics are
 * fed by the ingest thread as taps are stored (or seeded from the database when
 * serving one); the rest is read from the status snapshot at scrape time.
 */
#ifndef TAPD_METRICS_H
#define TAPD_METRICS_H

#include <stddef.h>

struct devid;
struct metrics;
struct status_snapshot;
struct store;
struct store_tap;

/* Returns 0 and sets *out, or -ENOMEM.  Free with metrics_free(). */
int metrics_new(struct metrics **out);

/* NULL is a no-op. */
void metrics_free(struct metrics *m);

/*
 * Replaces the latency buckets (the defaults until then) with the list
 * spec, as --buckets gives it (buckets_parse()); NULL keeps them.
 * Returns 0, -EINVAL for a bad list (logged), -EBUSY once a tap was
 * counted, or -ENOMEM.
 */
int metrics_set_buckets(struct metrics *m, const char *spec);

/*
 * Sets the device's identity (tapd_device_info, tapd_display_info, and
 * for the API metrics_device()); one with no field known takes it away.
 * A NULL m is a no-op.  Without it, metrics_load() takes the identity of
 * the database's latest run.
 */
void metrics_set_device(struct metrics *m, const struct devid *id);

/* Copies the identity into *out: 0, or -ENOENT when none is known. */
int metrics_device(struct metrics *m, struct devid *out);

/*
 * Counts one stored gesture (any kind).  Thread-safe.  Returns 0, -EINVAL
 * for an unknown kind or status (nothing is counted), or -ENOMEM.  A NULL
 * m is a no-op, so that callers need not check whether metrics are on.
 *
 * App labels: NULL counts as app="unknown"; a name is cut to 255 bytes
 * and bytes that are not UTF-8 become '?'; past 500 distinct apps, further
 * ones count as app="other" (and in tapd_app_label_overflow_total).
 */
int metrics_observe_tap(struct metrics *m, const struct store_tap *tap);

/*
 * Seeds the tap metrics from every row of the store st (a read-only one
 * with no transaction open: this reads in one), for `tapd serve`; the
 * counts add to what m holds.  The busiest apps get labels first.
 * Returns 0 or a negative errno.
 */
int metrics_load(struct metrics *m, struct store *st);

/*
 * Renders the exposition text; snap may be NULL (no live counters).
 * Returns 0 and sets *text (malloc'd, caller frees) and *len, or -ENOMEM.
 */
int metrics_render(struct metrics *m, const struct status_snapshot *snap,
		   char **text, size_t *len);

#endif
