/*
 * The foreground sources: the live top-app tracker (foreground_live.h),
 * one app throughout, a recorded foreground log (foreground.h), or none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foreground.h"
#include "foreground_live.h"
#include "log.h"
#include "record.h"
#include "source.h"
#include "status.h"

/*
 * How long foreground switches are kept: far longer than a tap waits for
 * its frames (its window, the frame source's lag).
 */
#define FOREGROUND_KEEP_NS (600 * INT64_C(1000000000))

/* How often the live tracker samples, besides at every touch-down. */
#define FOREGROUND_MS 1000

struct source_fg {
	struct foreground *timeline; /* NULL for none */
	struct foreground_live *fgl; /* the live tracker, or NULL */
	const char *kind;	     /* "app" or "log" in replay's health */
	char *arg;
};

static struct foreground *
source_fg_timeline(void *impl)
{
	struct source_fg *sf = impl;

	return sf->timeline;
}

/* The foreground at the tap's t_up is what counts: sample now. */
static void
source_fg_touch_down(void *impl, int64_t t_ns)
{
	struct source_fg *sf = impl;

	foreground_live_touch_down(sf->fgl, t_ns);
}

/* A tap's launch window: the tracker asks for the focused activity. */
static void
source_fg_launch_window(void *impl, int64_t t_up_ns, int64_t end_ns)
{
	struct source_fg *sf = impl;

	foreground_live_launch_window(sf->fgl, t_up_ns, end_ns);
}

static int
source_fg_timer(void *impl, int64_t now_ns)
{
	struct source_fg *sf = impl;

	foreground_live_sample(sf->fgl, now_ns);
	foreground_prune(sf->timeline, now_ns - FOREGROUND_KEEP_NS);
	return 0;
}

static void
source_fg_free(void *impl)
{
	struct source_fg *sf = impl;

	if (!sf)
		return;
	foreground_live_free(sf->fgl);
	foreground_free(sf->timeline);
	free(sf->arg);
	free(sf);
}

/* The live tracker reports its health itself ("top-app"). */
static const struct source_ops source_fg_auto_ops = {
	.timeline = source_fg_timeline,
	.touch_down = source_fg_touch_down,
	.launch_window = source_fg_launch_window,
	.timer = source_fg_timer,
	.timer_ms = FOREGROUND_MS,
	.free = source_fg_free,
};

static int
source_fg_auto_create(const char *arg, const struct source_env *env,
		      struct source **out)
{
	struct foreground_live_config cfg;
	struct source_fg *sf;
	int rc;

	(void)arg;
	*out = NULL;
	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return -ENOMEM;
	rc = foreground_new(&sf->timeline);
	if (rc < 0)
		goto out;
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysroot = env->sysroot;
	cfg.dumpsys_bin = env->dumpsys_bin;
	cfg.status = env->status;
	cfg.loop = env->loop;
	cfg.record = env->record;
	rc = foreground_live_new(&cfg, sf->timeline, &sf->fgl);
	if (rc < 0)
		goto out;
	foreground_live_sample(sf->fgl, env->now_ns);
out:
	if (rc < 0) {
		source_fg_free(sf);
		return rc;
	}
	return source_wrap(&source_foreground_auto, &source_fg_auto_ops, sf,
			   out);
}

const struct source_kind source_foreground_auto = {
	.name = "auto",
	.syntax = "auto",
	.mode = SOURCE_MODE_LIVE,
	.role = SOURCE_ROLE_FOREGROUND,
	.create = source_fg_auto_create,
};

/* ---- one app throughout, or a recorded log ---- */

static int
source_fg_check_app(const char *arg)
{
	if (foreground_valid_package(arg))
		return 0;
	log_error("invalid package '%s': expected 1 to %d characters of "
		  "[A-Za-z0-9._:-]",
		  arg, FOREGROUND_PACKAGE_MAX);
	return -EINVAL;
}

/* Up from start to end: a timeline has nothing left to read. */
static void
source_fg_report(void *impl, struct status *st, int done)
{
	struct source_fg *sf = impl;

	(void)done;
	status_set_source(st, STATUS_SOURCE_FOREGROUND, STATUS_HEALTH_UP,
			  sf->kind, "%s", sf->arg);
}

/* A log whose time went back holds up to its last switch before that. */
static int
source_fg_cut(void *impl, int64_t *t_ns)
{
	struct source_fg *sf = impl;
	struct foreground_jump j;

	if (foreground_get_jump(sf->timeline, &j) < 0)
		return -ENOENT;
	*t_ns = j.from_ns;
	return 0;
}

static void
source_fg_print(void *impl, FILE *out)
{
	struct source_fg *sf = impl;
	struct foreground_jump j;

	if (foreground_get_jump(sf->timeline, &j) < 0)
		return;
	fprintf(out,
		"STOPPED    at line %" PRIu64
		" of '%s': time goes back %.6f s (from %.6f to %.6f); the "
		"rest of the log was not used, nor input after %.6f\n",
		j.line, sf->arg, (double)(j.from_ns - j.to_ns) / 1e9,
		(double)j.from_ns / 1e9, (double)j.to_ns / 1e9,
		(double)j.from_ns / 1e9);
}

static const struct source_ops source_fg_file_ops = {
	.cut = source_fg_cut,
	.timeline = source_fg_timeline,
	.report = source_fg_report,
	.print = source_fg_print,
	.free = source_fg_free,
};

static int
source_fg_file_create(const struct source_kind *kind, const char *arg,
		      struct source **out)
{
	struct source_fg *sf;
	int rc;

	*out = NULL;
	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return -ENOMEM;
	sf->kind = strcmp(kind->name, "log") == 0 ? "log" : "app";
	sf->arg = strdup(arg);
	if (!sf->arg)
		rc = -ENOMEM;
	else if (kind == &source_foreground_log)
		rc = foreground_load_log(arg, &sf->timeline);
	else
		rc = foreground_new_static(arg, &sf->timeline);
	if (rc < 0) {
		source_fg_free(sf);
		return rc;
	}
	return source_wrap(kind, &source_fg_file_ops, sf, out);
}

static int
source_fg_app_create(const char *arg, const struct source_env *env,
		     struct source **out)
{
	/* One app from the start: a recording says so from time 0 on. */
	record_foreground(env->record, 0, 0, arg);
	return source_fg_file_create(&source_foreground_app, arg, out);
}

static int
source_fg_replay_app_create(const char *arg, const struct source_env *env,
			    struct source **out)
{
	(void)env;
	return source_fg_file_create(&source_foreground_replay_app, arg, out);
}

static int
source_fg_log_create(const char *arg, const struct source_env *env,
		     struct source **out)
{
	(void)env;
	return source_fg_file_create(&source_foreground_log, arg, out);
}

const struct source_kind source_foreground_app = {
	.name = "app",
	.syntax = "app:PACKAGE",
	.mode = SOURCE_MODE_LIVE,
	.role = SOURCE_ROLE_FOREGROUND,
	.arg = SOURCE_ARG_REQUIRED,
	.check = source_fg_check_app,
	.create = source_fg_app_create,
};

const struct source_kind source_foreground_log = {
	.name = "log",
	.syntax = "log:FILE",
	.mode = SOURCE_MODE_REPLAY,
	.role = SOURCE_ROLE_FOREGROUND,
	.arg = SOURCE_ARG_REQUIRED,
	.create = source_fg_log_create,
};

const struct source_kind source_foreground_replay_app = {
	.name = "app",
	.syntax = "app:PACKAGE",
	.mode = SOURCE_MODE_REPLAY,
	.role = SOURCE_ROLE_FOREGROUND,
	.arg = SOURCE_ARG_REQUIRED,
	.check = source_fg_check_app,
	.create = source_fg_replay_app_create,
};

/* ---- none ---- */

static void
source_fg_none_report(void *impl, struct status *st, int done)
{
	(void)impl;
	(void)done;
	status_set_source(st, STATUS_SOURCE_FOREGROUND, STATUS_HEALTH_NONE,
			  "none", "no foreground source: taps have no app");
}

static const struct source_ops source_fg_none_ops = {
	.report = source_fg_none_report,
	.free = source_fg_free,
};

static int
source_fg_none_create(const char *arg, const struct source_env *env,
		      struct source **out)
{
	(void)arg;
	(void)env;
	return source_wrap(&source_foreground_none, &source_fg_none_ops, NULL,
			   out);
}

const struct source_kind source_foreground_none = {
	.name = "none",
	.syntax = "none",
	.mode = SOURCE_MODE_LIVE,
	.role = SOURCE_ROLE_FOREGROUND,
	.create = source_fg_none_create,
};
