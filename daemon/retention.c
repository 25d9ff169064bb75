#include "retention.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "store.h"

#define MS     INT64_C(1000000)
#define DAY_NS (INT64_C(86400) * 1000000000)

#define RETENTION_MS	  10000	  /* the next batch, while there is more */
#define RETENTION_IDLE_MS 3600000 /* once nothing was left to delete */
#define RETENTION_BATCH	  5000

struct retention {
	struct store *st;
	struct loop_timer *timer;
	int days;
	int need_maintain;
};

/* One batch, and when the next is due. */
static int
on_timer(void *ctx)
{
	struct retention *r = ctx;
	int64_t deleted = 0, cutoff;
	int rc;

	cutoff = loop_realtime_ns() - (int64_t)r->days * DAY_NS;
	rc = store_retain(r->st, cutoff, RETENTION_BATCH, &deleted);
	/* More to do soon: another batch, or the checkpoint after them. */
	if (loop_timer_at(r->timer,
			  loop_now_ns() +
				  (rc < 0 || deleted > 0 || r->need_maintain
					   ? RETENTION_MS
					   : RETENTION_IDLE_MS) *
					  MS) < 0)
		log_warn("cannot arm the retention timer");
	/* On a full disk it waits for the held taps to be written. */
	if (rc < 0) {
		if (rc != -ENOSPC)
			log_warnx("retention failed: %s", strerror(-rc));
		return 0;
	}
	if (deleted > 0) {
		log_info("retention: deleted %" PRId64 " taps older than %d "
			 "days",
			 deleted, r->days);
		r->need_maintain = 1;
	} else if (r->need_maintain) {
		rc = store_maintain(r->st);
		if (rc < 0)
			log_warnx("cannot checkpoint after retention: %s",
				  strerror(-rc));
		r->need_maintain = 0;
	}
	return 0;
}

int
retention_new(struct loop *loop, struct store *st, int days,
	      struct retention **out)
{
	struct retention *r;
	int rc;

	*out = NULL;
	if (days <= 0)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->st = st;
	r->days = days;
	rc = loop_timer_new(loop, on_timer, r, &r->timer);
	if (rc < 0) {
		free(r);
		return rc;
	}
	on_timer(r);
	*out = r;
	return 0;
}

void
retention_free(struct retention *r)
{
	free(r);
}
