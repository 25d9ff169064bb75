/*
 * The frame sources: SurfaceFlinger live (FrameTimeline or dumpsys, see
 * frames_live.h), recorded traces and snapshots (frames_source.h), or
 * none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames_live.h"
#include "frames_source.h"
#include "loop.h"
#include "pipeline.h"
#include "source.h"
#include "status.h"

/* ---- live: auto, ftl, latency ---- */

/* Apps of pending taps told to the latency poller at most. */
#define SOURCE_FRAMES_APPS 16

struct source_live_frames {
	struct frames_live *fl;
	struct pipeline *pipe; /* during a dispatch only */
};

static int
source_live_frame(void *ctx, const struct correlate_frame *f)
{
	struct source_live_frames *sf = ctx;

	return pipeline_frame(sf->pipe, f);
}

static int
source_live_frames_fd(void *impl)
{
	struct source_live_frames *sf = impl;

	return frames_live_fd(sf->fl);
}

static int
source_live_frames_dispatch(void *impl, struct pipeline *p)
{
	struct source_live_frames *sf = impl;
	int rc;

	sf->pipe = p;
	rc = frames_live_dispatch(sf->fl, source_live_frame, sf);
	sf->pipe = NULL;
	return rc;
}

static int64_t
source_live_frames_watermark(void *impl)
{
	struct source_live_frames *sf = impl;

	return frames_live_watermark(sf->fl);
}

static int64_t
source_live_frames_coverage(void *impl)
{
	struct source_live_frames *sf = impl;

	return frames_live_coverage_start(sf->fl);
}

/* The latency poller runs only while taps wait, for their apps' layers. */
static void
source_live_frames_tick(void *impl, struct pipeline *p)
{
	struct source_live_frames *sf = impl;
	const char *apps[SOURCE_FRAMES_APPS];
	int64_t from_latency, unconfirmed;
	size_t n;

	n = pipeline_pending_apps(p, apps, SOURCE_FRAMES_APPS);
	frames_live_set_wanted(sf->fl, pipeline_pending(p), apps, n);
	if (!pipeline_pending(p))
		return;
	/*
	 * An idle screen holds the last frame back: what the completing
	 * poller confirmed first, then what waited too long.  A failure
	 * is the store's to report, at the next advance.
	 */
	frames_live_idle(sf->fl, loop_now_ns(), &from_latency, &unconfirmed);
	if (from_latency != INT64_MIN)
		(void)pipeline_expire(p, from_latency,
				      CORRELATE_FLAG_END_FROM_LATENCY);
	if (unconfirmed != INT64_MIN)
		(void)pipeline_expire(p, unconfirmed,
				      CORRELATE_FLAG_END_UNCONFIRMED);
}

static void
source_live_frames_fill_status(void *impl, struct status_snapshot *s)
{
	struct source_live_frames *sf = impl;
	struct frames_live_stats fs;

	frames_live_get_stats(sf->fl, &fs);
	s->packets_read = fs.packets;
	s->packets_dropped = fs.packets_dropped;
}

static void
source_live_frames_stop(void *impl)
{
	struct source_live_frames *sf = impl;

	frames_live_stop(sf->fl);
}

static int
source_live_frames_stopped(void *impl)
{
	struct source_live_frames *sf = impl;

	return frames_live_stopped(sf->fl);
}

static void
source_live_frames_free(void *impl)
{
	struct source_live_frames *sf = impl;

	if (!sf)
		return;
	frames_live_free(sf->fl);
	free(sf);
}

static const struct source_ops source_live_frames_ops = {
	.fd = source_live_frames_fd,
	.dispatch = source_live_frames_dispatch,
	.watermark = source_live_frames_watermark,
	.coverage = source_live_frames_coverage,
	.tick = source_live_frames_tick,
	.fill_status = source_live_frames_fill_status,
	.stop = source_live_frames_stop,
	.stopped = source_live_frames_stopped,
	.free = source_live_frames_free,
};

static int
source_live_frames_create(const struct source_kind *kind,
			  enum frames_live_mode mode,
			  const struct source_env *env, struct source **out)
{
	struct frames_live_config cfg;
	struct source_live_frames *sf;
	int rc;

	*out = NULL;
	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return -ENOMEM;
	frames_live_config_default(&cfg);
	cfg.mode = mode;
	if (env->perfetto_bin)
		cfg.perfetto_bin = env->perfetto_bin;
	if (env->dumpsys_bin)
		cfg.dumpsys_bin = env->dumpsys_bin;
	if (env->getprop_bin)
		cfg.getprop_bin = env->getprop_bin;
	if (env->trace_dir)
		cfg.trace_dir = env->trace_dir;
	cfg.status = env->status;
	cfg.record = env->record;
	rc = frames_live_new(&cfg, &sf->fl);
	if (rc < 0) {
		free(sf);
		return rc;
	}
	return source_wrap(kind, &source_live_frames_ops, sf, out);
}

static int
source_frames_auto_create(const char *arg, const struct source_env *env,
			  struct source **out)
{
	(void)arg;
	return source_live_frames_create(&source_frames_auto, FRAMES_LIVE_AUTO,
					 env, out);
}

static int
source_frames_ftl_create(const char *arg, const struct source_env *env,
			 struct source **out)
{
	(void)arg;
	return source_live_frames_create(&source_frames_ftl, FRAMES_LIVE_FTL,
					 env, out);
}

static int
source_frames_latency_create(const char *arg, const struct source_env *env,
			     struct source **out)
{
	(void)arg;
	return source_live_frames_create(&source_frames_latency,
					 FRAMES_LIVE_LATENCY, env, out);
}

const struct source_kind source_frames_auto = {
	.name = "auto",
	.syntax = "auto",
	.mode = SOURCE_MODE_LIVE,
	.role = SOURCE_ROLE_FRAMES,
	.create = source_frames_auto_create,
};

const struct source_kind source_frames_ftl = {
	.name = "ftl",
	.syntax = "ftl",
	.mode = SOURCE_MODE_LIVE,
	.role = SOURCE_ROLE_FRAMES,
	.create = source_frames_ftl_create,
};

const struct source_kind source_frames_latency = {
	.name = "latency",
	.syntax = "latency",
	.mode = SOURCE_MODE_LIVE,
	.role = SOURCE_ROLE_FRAMES,
	.create = source_frames_latency_create,
};

/* ---- live: none ---- */

/*
 * No frame source: nothing to poll, and a watermark of INT64_MAX (the
 * default of a source without one), since no frame will ever hold a tap
 * back.
 */
static void
source_frames_none_report(void *impl, struct status *st, int done)
{
	(void)impl;
	(void)done;
	status_set_source(st, STATUS_SOURCE_FRAMES, STATUS_HEALTH_NONE, "none",
			  "no frame source: taps are frames_unavailable");
}

static void
source_nothing_free(void *impl)
{
	(void)impl;
}

static const struct source_ops source_frames_none_ops = {
	.report = source_frames_none_report,
	.free = source_nothing_free,
};

static int
source_frames_none_create(const char *arg, const struct source_env *env,
			  struct source **out)
{
	(void)arg;
	(void)env;
	return source_wrap(&source_frames_none, &source_frames_none_ops, NULL,
			   out);
}

const struct source_kind source_frames_none = {
	.name = "none",
	.syntax = "none",
	.mode = SOURCE_MODE_LIVE,
	.role = SOURCE_ROLE_FRAMES,
	.create = source_frames_none_create,
};

/* ---- replay: ftl:FILE, latency:DIR, none ---- */

struct source_file_frames {
	struct frames_source *fs;
	const struct source_kind *kind;
	char *path; /* NULL for none */
};

static int
source_file_frames_pump(void *impl, struct pipeline *p, int64_t input_ns,
			int64_t *wm)
{
	struct source_file_frames *sf = impl;

	return frames_source_pump(sf->fs, pipeline_correlate(p), input_ns, wm);
}

static int
source_file_frames_finish(void *impl, struct pipeline *p, int64_t *end)
{
	struct source_file_frames *sf = impl;

	return frames_source_finish(sf->fs, pipeline_correlate(p), end);
}

static int
source_file_frames_cut(void *impl, int64_t *t_ns)
{
	struct source_file_frames *sf = impl;

	return frames_source_cut(sf->fs, t_ns);
}

static void
source_file_frames_fill_status(void *impl, struct status_snapshot *s)
{
	struct source_file_frames *sf = impl;

	frames_source_counts(sf->fs, &s->frames_read, &s->packets_read,
			     &s->packets_dropped);
}

static void
source_file_frames_report(void *impl, struct status *st, int done)
{
	struct source_file_frames *sf = impl;
	char problems[256];

	if (!sf->path) {
		source_frames_none_report(NULL, st, done);
		return;
	}
	/* A trace read with losses says so where the source is described. */
	frames_source_problems(sf->fs, problems, sizeof(problems));
	status_set_source(st, STATUS_SOURCE_FRAMES,
			  done ? STATUS_HEALTH_DONE : STATUS_HEALTH_UP,
			  sf->kind->name, "'%s'%s%s", sf->path,
			  problems[0] ? ": " : "", problems);
}

static void
source_file_frames_print(void *impl, FILE *out)
{
	struct source_file_frames *sf = impl;

	frames_source_print(sf->fs, out);
}

static void
source_file_frames_free(void *impl)
{
	struct source_file_frames *sf = impl;

	if (!sf)
		return;
	frames_source_close(sf->fs);
	free(sf->path);
	free(sf);
}

static const struct source_ops source_file_frames_ops = {
	.pump = source_file_frames_pump,
	.finish = source_file_frames_finish,
	.cut = source_file_frames_cut,
	.fill_status = source_file_frames_fill_status,
	.report = source_file_frames_report,
	.print = source_file_frames_print,
	.free = source_file_frames_free,
};

static int
source_file_frames_create(const struct source_kind *kind, const char *arg,
			  struct source **out)
{
	struct source_file_frames *sf;
	char *spec = NULL;
	int rc;

	*out = NULL;
	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return -ENOMEM;
	sf->kind = kind;
	if (arg) {
		sf->path = strdup(arg);
		if (!sf->path ||
		    asprintf(&spec, "%s:%s", kind->name, arg) < 0) {
			spec = NULL;
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = frames_source_open(spec, &sf->fs);
out:
	free(spec);
	if (rc < 0) {
		source_file_frames_free(sf);
		return rc;
	}
	return source_wrap(kind, &source_file_frames_ops, sf, out);
}

static int
source_ftl_file_create(const char *arg, const struct source_env *env,
		       struct source **out)
{
	(void)env;
	return source_file_frames_create(&source_frames_ftl_file, arg, out);
}

static int
source_latency_dir_create(const char *arg, const struct source_env *env,
			  struct source **out)
{
	(void)env;
	return source_file_frames_create(&source_frames_latency_dir, arg, out);
}

static int
source_replay_frames_none_create(const char *arg, const struct source_env *env,
				 struct source **out)
{
	(void)arg;
	(void)env;
	return source_file_frames_create(&source_frames_replay_none, NULL, out);
}

const struct source_kind source_frames_ftl_file = {
	.name = "ftl",
	.syntax = "ftl:FILE",
	.mode = SOURCE_MODE_REPLAY,
	.role = SOURCE_ROLE_FRAMES,
	.arg = SOURCE_ARG_REQUIRED,
	.create = source_ftl_file_create,
};

const struct source_kind source_frames_latency_dir = {
	.name = "latency",
	.syntax = "latency:DIR",
	.mode = SOURCE_MODE_REPLAY,
	.role = SOURCE_ROLE_FRAMES,
	.arg = SOURCE_ARG_REQUIRED,
	.create = source_latency_dir_create,
};

const struct source_kind source_frames_replay_none = {
	.name = "none",
	.syntax = "none",
	.mode = SOURCE_MODE_REPLAY,
	.role = SOURCE_ROLE_FRAMES,
	.create = source_replay_frames_none_create,
};
