#include "status.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct status {
	pthread_mutex_t lock;
	struct status_snapshot snap;
};

static int64_t
status_realtime_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
status_new(const char *mode, struct status **out)
{
	struct status *st;
	int n;

	if (!mode || !out)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	if (pthread_mutex_init(&st->lock, NULL) != 0) {
		free(st);
		return -ENOMEM;
	}
	/* A mode that does not fit is a caller's bug, not a runtime state. */
	n = snprintf(st->snap.mode, sizeof(st->snap.mode), "%s", mode);
	if (n < 0 || (size_t)n >= sizeof(st->snap.mode)) {
		pthread_mutex_destroy(&st->lock);
		free(st);
		return -EINVAL;
	}
	st->snap.started_wall_ns = status_realtime_ns();
	st->snap.frames_watermark_ns = INT64_MIN;
	st->snap.input_time_ns = INT64_MIN;
	st->snap.frames_lag_ns = -1;
	*out = st;
	return 0;
}

void
status_free(struct status *st)
{
	if (!st)
		return;
	pthread_mutex_destroy(&st->lock);
	free(st);
}

void
status_get(struct status *st, struct status_snapshot *snap)
{
	pthread_mutex_lock(&st->lock);
	*snap = st->snap;
	pthread_mutex_unlock(&st->lock);
}

void
status_update(struct status *st,
	      void (*fn)(struct status_snapshot *s, void *ctx), void *ctx)
{
	pthread_mutex_lock(&st->lock);
	fn(&st->snap, ctx);
	pthread_mutex_unlock(&st->lock);
}

void
status_set_source(struct status *st, enum status_source src,
		  enum status_health health, const char *kind, const char *fmt,
		  ...)
{
	struct status_source_state s;
	va_list ap;

	/* Sources take an optional status: without one there is no report. */
	if (!st || (unsigned)src >= STATUS_SOURCE_COUNT)
		return;
	memset(&s, 0, sizeof(s));
	s.health = health;
	/* Both are for display: a cut-off text is better than none. */
	snprintf(s.kind, sizeof(s.kind), "%s", kind ? kind : "");
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(s.detail, sizeof(s.detail), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_lock(&st->lock);
	st->snap.sources[src] = s;
	pthread_mutex_unlock(&st->lock);
}

const char *
status_health_name(enum status_health h)
{
	switch (h) {
	case STATUS_HEALTH_NONE:
		return "none";
	case STATUS_HEALTH_UP:
		return "up";
	case STATUS_HEALTH_DEGRADED:
		return "degraded";
	case STATUS_HEALTH_DOWN:
		return "down";
	case STATUS_HEALTH_DONE:
		return "done";
	}
	return "unknown";
}

const char *
status_source_name(enum status_source src)
{
	switch (src) {
	case STATUS_SOURCE_INPUT:
		return "input";
	case STATUS_SOURCE_FRAMES:
		return "frames";
	case STATUS_SOURCE_FOREGROUND:
		return "foreground";
	case STATUS_SOURCE_STORE:
		return "store";
	}
	return "unknown";
}
