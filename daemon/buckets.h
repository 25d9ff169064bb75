/*
 * The upper bounds of the Prometheus latency histograms of /metrics
 * (metrics.c, their one user): the defaults, or the list of --buckets.
 * /v1/histogram has nothing to do with them: it groups the store's own
 * 2% buckets (store_hist.c).
 *
 * The defaults make every bucket at most max(1 ms, 2%) wide, which is
 * the error histogram_quantile() may make in it: 10 ms, then every
 * millisecond to 60 ms, then each bound 2% above the last (floored to
 * 0.1 ms, from 1 s to 1 ms) up to 10 s: BUCKETS_DEFAULT_COUNT bounds.
 * Over the simulator's long sessions, merged over any set of devices, the
 * p50 and p90 of histogram_quantile() stay within 2% (or 1 ms) of the
 * exact nearest rank (tests/e2e/prometheus_farm.sh); coarser buckets
 * did not (docs/DESIGN.md 7.6).
 */
#ifndef TAPD_BUCKETS_H
#define TAPD_BUCKETS_H

#include <stddef.h>
#include <stdint.h>

#define BUCKETS_DEFAULT_COUNT 313
/* The most bounds --buckets takes, and the largest, in seconds. */
#define BUCKETS_MAX	    1000
#define BUCKETS_MAX_SECONDS 3600

struct buckets;

/* The defaults.  Returns 0 and sets *out, or -ENOMEM. */
int buckets_new_default(struct buckets **out);

/*
 * Parses a list of upper bounds in seconds, comma-separated, strictly
 * increasing, each above 0 and at most BUCKETS_MAX_SECONDS with at most 9
 * decimals ("0.016,0.033,0.05"), 1 to BUCKETS_MAX of them.  Returns 0 and
 * sets *out; -EINVAL after logging why ("invalid --buckets ..."); or
 * -ENOMEM.
 */
int buckets_parse(const char *spec, struct buckets **out);

/* NULL is a no-op. */
void buckets_free(struct buckets *b);

/* The number of finite bounds; bucket buckets_count() is +Inf. */
size_t buckets_count(const struct buckets *b);

/* Bound i in ns (i < buckets_count()). */
int64_t buckets_bound_ns(const struct buckets *b, size_t i);

/* The le label of bucket i: the bound in seconds, or "+Inf" for the last. */
const char *buckets_le(const struct buckets *b, size_t i);

/* The bucket of a value: the first whose bound is >= ns (count: +Inf). */
size_t buckets_index(const struct buckets *b, int64_t ns);

#endif
