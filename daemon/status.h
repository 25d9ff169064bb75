/*
 * Live state of the pipeline, for /v1/health and /metrics: counters and
 * the health of each source.  The ingest thread writes, HTTP threads read
 * a consistent copy; a mutex guards it (the snapshot is small).
 */
#ifndef TAPD_STATUS_H
#define TAPD_STATUS_H

#include <stdint.h>

enum status_source {
	STATUS_SOURCE_INPUT,
	STATUS_SOURCE_FRAMES,
	STATUS_SOURCE_FOREGROUND,
	STATUS_SOURCE_STORE,
};
#define STATUS_SOURCE_COUNT 4

enum status_health {
	STATUS_HEALTH_NONE, /* not configured */
	STATUS_HEALTH_UP,
	STATUS_HEALTH_DEGRADED, /* running, but losing or missing data */
	STATUS_HEALTH_DOWN,
	STATUS_HEALTH_DONE, /* a replay source read to its end */
};

struct status_source_state {
	enum status_health health;
	char kind[32]; /* "getevent", "evdev", "ftl", "latency", "log", ... */
	char detail[256]; /* what it reads, or why it is down */
};

/* A consistent copy of everything. */
struct status_snapshot {
	char mode[16];		 /* "replay", "live", "serve" */
	int64_t started_wall_ns; /* REALTIME at start */
	struct status_source_state sources[STATUS_SOURCE_COUNT];
	uint64_t input_events;
	uint64_t syn_dropped;
	uint64_t contacts_cut; /* still down when the input ended */
	uint64_t input_lines_skipped;
	uint64_t gestures[4];	  /* by enum gesture_kind */
	uint64_t frames_read;	  /* presented app frames fed */
	uint64_t packets_read;	  /* FrameTimeline packets */
	uint64_t packets_dropped; /* lost by the tracer, malformed, unjoined */
	uint64_t taps_finalized;
	uint64_t taps_pending;
	uint64_t rows_stored;
	uint64_t rows_lost;
	int64_t frames_watermark_ns; /* MONOTONIC, INT64_MIN when none */
	int64_t input_time_ns;	     /* MONOTONIC of the newest input event */
	int64_t frames_lag_ns; /* input time - frames watermark, -1 when unknown
				*/
	int64_t session;       /* open session id, 0 when none */
};

struct status;

/* Returns 0 and sets *out, or -ENOMEM.  mode is copied. */
int status_new(const char *mode, struct status **out);

/* NULL is a no-op. */
void status_free(struct status *st);

/* Copies the current state into *snap. */
void status_get(struct status *st, struct status_snapshot *snap);

/*
 * Updates under the lock: fn is called with the live state and may change
 * any field.  Used by the ingest thread once per batch of work, not per
 * event.
 */
void status_update(struct status *st,
		   void (*fn)(struct status_snapshot *s, void *ctx), void *ctx);

/* Sets one source's health and detail (printf-style). */
void status_set_source(struct status *st, enum status_source src,
		       enum status_health health, const char *kind,
		       const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* "up", "degraded", ... for the API. */
const char *status_health_name(enum status_health h);
const char *status_source_name(enum status_source src);

#endif
