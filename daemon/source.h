/*
 * One interface for every source of the pipeline: the touch input, the
 * frame present times and the foreground app, live (tapd run) or recorded
 * (tapd replay).  A source is a set of operations over an object of its
 * own; live.c and replay.c hold an array of them and call the same
 * functions on each, so that neither knows which kinds exist.
 *
 * The kinds are one table (source.c): a name, the role, the command it
 * serves, how its spec is written (for the usage text and the error
 * messages), a check of its argument and a constructor.  Adding a source
 * is one adapter file (source_input.c, source_frames.c and
 * source_foreground.c hold today's), one row of that table and the row's
 * declaration at the end of this header; the usage text and the error
 * messages list the kinds from the table.
 *
 * Specs are parsed and checked with source_parse() before anything is
 * opened, so that a bad one is refused before the database or the port.
 */
#ifndef TAPD_SOURCE_H
#define TAPD_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct foreground;
struct pipeline;
struct status;
struct status_snapshot;
struct touch_event;

enum source_role {
	SOURCE_ROLE_INPUT,
	SOURCE_ROLE_FRAMES,
	SOURCE_ROLE_FOREGROUND,
};
#define SOURCE_ROLE_COUNT 3

/* Which command a kind belongs to: live devices or recorded files. */
enum source_mode {
	SOURCE_MODE_LIVE,
	SOURCE_MODE_REPLAY,
};

/* Whether a kind's spec carries an argument after "name:". */
enum source_arg {
	SOURCE_ARG_NONE,     /* "auto" */
	SOURCE_ARG_OPTIONAL, /* "evdev" or "evdev:/dev/input/event2" */
	SOURCE_ARG_REQUIRED, /* "ftl:FILE" */
};

/* What a constructor may need of its host; unused fields may be NULL. */
struct source_env {
	const char *sysroot; /* tests only: prefix of /dev and /proc paths */
	const char *perfetto_bin;
	const char *dumpsys_bin;
	const char *getprop_bin;
	const char *trace_dir;
	struct status *status; /* where live sources report their health */
	int64_t now_ns;	       /* CLOCK_MONOTONIC at creation */
	/*
	 * The live daemon's event loop, NULL in replay: a source that runs
	 * children (dumpsys window) watches them there instead of waiting.
	 */
	struct loop *loop;
	/* tapd run --record: where live sources copy what they read. */
	struct record *record;
};

struct loop;
struct record;
struct source;

/*
 * The operations of a source.  Every member but free may be NULL: the
 * source_*() functions below then do what a source without that ability
 * does (say so next to each).  impl is the adapter's own object.
 */
struct source_ops {
	/* The fd to poll for reading; NULL for a pull source (files). */
	int (*fd)(void *impl);
	/* Live: reads what is ready, without blocking, into the pipeline. */
	int (*dispatch)(void *impl, struct pipeline *p);
	/* Replay input: the next event, 1; 0 at the end; a negative errno. */
	int (*next)(void *impl, struct touch_event *ev);
	/*
	 * Replay frames: reads far enough past input_ns for every tap up to
	 * it, and sets *wm to the watermark for pipeline_advance().
	 */
	int (*pump)(void *impl, struct pipeline *p, int64_t input_ns,
		    int64_t *wm);
	/* Replay frames: reads the rest, sets *end for pipeline_finish(). */
	int (*finish)(void *impl, struct pipeline *p, int64_t *end);
	/* Live frames: frames presented up to it have all been fed. */
	int64_t (*watermark)(void *impl);
	/* Live frames: the data covers from it on; INT64_MIN until known. */
	int64_t (*coverage)(void *impl);
	/* Input: an axis range of the touch screen, 0 or -ENOENT. */
	int (*axis)(void *impl, uint16_t code, int32_t *min, int32_t *max);
	/* Live input: the path of the device read now, NULL for none. */
	const char *(*device)(void *impl);
	/* Live input: tapd's clone of it read too (inject_uinput.h). */
	const char *(*clone)(void *impl);
	/* Replay input: the times of its first and last event. */
	int (*time_range)(void *impl, int64_t *first, int64_t *last);
	/*
	 * Replay: where the recording's time went back (the source logged
	 * the error naming where), 0 and *t_ns; -ENOENT while it did not.
	 * Its data holds up to t_ns only, so no input after it is replayed.
	 */
	int (*cut)(void *impl, int64_t *t_ns);
	/* Foreground: the timeline taps are attributed with. */
	struct foreground *(*timeline)(void *impl);
	/* A finger went down at t_ns. */
	void (*touch_down)(void *impl, int64_t t_ns);
	/* A tap's launch window opened (pipeline_config.launch_window). */
	void (*launch_window)(void *impl, int64_t t_up_ns, int64_t end_ns);
	/* Live: called every timer_ms (0: never) at now_ns. */
	int (*timer)(void *impl, int64_t now_ns);
	int64_t timer_ms;
	/* Live: the pipeline's state after a batch of work (pending taps). */
	void (*tick)(void *impl, struct pipeline *p);
	/* Its counters into the snapshot, under the status lock. */
	void (*fill_status)(void *impl, struct status_snapshot *s);
	/* Its health, at start and (done = 1) once read to the end. */
	void (*report)(void *impl, struct status *st, int done);
	/* Its lines of the replay summary. */
	void (*print)(void *impl, FILE *out);
	/* Its counters as JSON members ("\"a\":1,\"b\":2"), malloc'd. */
	char *(*json)(void *impl);
	/* Asks it to end: no more reading after what it has in flight. */
	void (*stop)(void *impl);
	/* 1 once stopped and drained. */
	int (*stopped)(void *impl);
	void (*free)(void *impl);
};

/* One row of the table of kinds. */
struct source_kind {
	const char *name;   /* "ftl", matched before ':' */
	const char *syntax; /* "ftl:FILE", as the usage text writes it */
	enum source_mode mode;
	enum source_role role;
	enum source_arg arg;
	/* Checks the argument (NULL without one); -EINVAL after logging. */
	int (*check)(const char *arg);
	/* Makes the source; its argument is NULL without one. */
	int (*create)(const char *arg, const struct source_env *env,
		      struct source **out);
};

/* A parsed spec: which kind, and its argument within text. */
struct source_spec {
	const struct source_kind *kind;
	const char *text; /* the spec as given, not copied */
	const char *arg;  /* points into text, or NULL */
};

/*
 * Finds the kind spec names among the kinds of mode and role, and checks
 * its argument.  Returns 0 and fills *out, or -EINVAL after logging what
 * was expected.
 */
int source_parse(enum source_mode mode, enum source_role role, const char *spec,
		 struct source_spec *out);

/* Makes the source of a parsed spec.  Returns 0 or a negative errno. */
int source_create(const struct source_spec *spec, const struct source_env *env,
		  struct source **out);

/*
 * Writes the kinds of mode and role as the usage text lists them
 * ("ftl:FILE|latency:DIR|none") into buf.  Returns 0 or -ENOSPC.
 */
int source_kinds_usage(enum source_mode mode, enum source_role role, char *buf,
		       size_t len);

/*
 * For adapters: wraps impl, which the source then owns (ops->free frees
 * it, also when this fails).  Returns 0 and sets *out, or -ENOMEM.
 */
int source_wrap(const struct source_kind *kind, const struct source_ops *ops,
		void *impl, struct source **out);

/* Frees the source and its object.  NULL is a no-op. */
void source_free(struct source *src);

const struct source_kind *source_kind(const struct source *src);
enum source_role source_role(const struct source *src);

/* -1 for a pull source. */
int source_fd(const struct source *src);

/*
 * Live: reads what is ready into p, and tells p the frame coverage once
 * the source knows it.  A source's own trouble is its health's business:
 * only -ENOMEM is returned; 0 otherwise.
 */
int source_dispatch(struct source *src, struct pipeline *p);

/* 0 (the end) for a source that gives no events. */
int source_next(struct source *src, struct touch_event *ev);

/* INT64_MAX for a source that gives no frames (nothing to wait for). */
int source_pump(struct source *src, struct pipeline *p, int64_t input_ns,
		int64_t *wm);

/* INT64_MAX as well for a source that gives no frames. */
int source_finish(struct source *src, struct pipeline *p, int64_t *end);

/* INT64_MAX for a source that gives no frames. */
int64_t source_watermark(const struct source *src);

/* -ENOENT when the source knows no axes. */
int source_axis(const struct source *src, uint16_t code, int32_t *min,
		int32_t *max);

/* NULL when the source reads no device node. */
const char *source_device(const struct source *src);

/* NULL when the source reads no clone of its device. */
const char *source_clone(const struct source *src);

/* -ENOENT when the source knows no times. */
int source_time_range(const struct source *src, int64_t *first, int64_t *last);

/* -ENOENT for a source that cannot go back, or did not. */
int source_cut(const struct source *src, int64_t *t_ns);

/* NULL for a source that is no timeline. */
struct foreground *source_timeline(const struct source *src);

void source_touch_down(struct source *src, int64_t t_ns);
void source_launch_window(struct source *src, int64_t t_up_ns, int64_t end_ns);

/* The timer period (0: none), and the timer itself as a loop_timer_cb. */
int64_t source_timer_ms(const struct source *src);
int source_timer(void *src);

void source_tick(struct source *src, struct pipeline *p);
void source_fill_status(struct source *src, struct status_snapshot *s);
void source_report(struct source *src, struct status *st, int done);
void source_print(struct source *src, FILE *out);

/* NULL when the source has no counters to keep, or out of memory. */
char *source_json(struct source *src);

void source_stop(struct source *src);

/* 1 for a source that has nothing to drain. */
int source_stopped(const struct source *src);

/* The kinds, one adapter each, as the table in source.c lists them. */
extern const struct source_kind source_input_evdev;
extern const struct source_kind source_input_getevent;
extern const struct source_kind source_input_getevent_stream;
extern const struct source_kind source_frames_auto;
extern const struct source_kind source_frames_ftl;
extern const struct source_kind source_frames_latency;
extern const struct source_kind source_frames_none;
extern const struct source_kind source_frames_ftl_file;
extern const struct source_kind source_frames_latency_dir;
extern const struct source_kind source_frames_replay_none;
extern const struct source_kind source_foreground_auto;
extern const struct source_kind source_foreground_app;
extern const struct source_kind source_foreground_none;
extern const struct source_kind source_foreground_log;
extern const struct source_kind source_foreground_replay_app;

#endif
