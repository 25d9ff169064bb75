/*
 * The input sources: the live touch screen (evdev) and a recorded
 * `getevent` log.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_evdev.h"
#include "input_getevent.h"
#include "input_getevent_stream.h"
#include "log.h"
#include "loop.h"
#include "pipeline.h"
#include "record.h"
#include "source.h"
#include "status.h"

/* ---- evdev: the live touch screen ---- */

struct source_evdev {
	struct input_evdev *ie;
	struct pipeline *pipe; /* during a dispatch only */
	struct record *record; /* NULL unless --record */
};

static int
source_evdev_event(void *ctx, const struct touch_event *ev)
{
	struct source_evdev *se = ctx;

	record_input(se->record, ev);
	return pipeline_input(se->pipe, ev);
}

static void
source_evdev_added(void *ctx, const char *path, const char *name)
{
	struct source_evdev *se = ctx;

	log_info("reading touch screen '%s' \"%s\"", path, name);
	record_input_device(se->record, path, name);
}

/*
 * Live input time never stops the daemon, unlike a recorded log's
 * (input_getevent.h).  A device that goes away and is opened again keeps
 * the same clock: CLOCK_MONOTONIC is set on its fd before the first read
 * and what it had queued is drained, so its new events come after the
 * old ones; the contacts still down when it went are ended here, at the
 * time of the removal.  Should a driver's own stamps still step back,
 * input_evdev.h gives such an event the time of the one before it, so
 * that taps reach the pipeline in time order, the order it pairs the
 * correlator's results in.
 */
static void
source_evdev_removed(void *ctx, const char *path)
{
	struct source_evdev *se = ctx;
	int rc;

	log_warnx("touch screen '%s' is gone; waiting for it to come back",
		  path);
	/* Contacts still down end here, flagged: their end was never seen. */
	rc = pipeline_input_lost(se->pipe, loop_now_ns());
	if (rc < 0)
		log_warnx("cannot end the contacts of '%s': %s", path,
			  strerror(-rc));
}

static int
source_evdev_fd(void *impl)
{
	struct source_evdev *se = impl;

	return input_evdev_fd(se->ie);
}

static int
source_evdev_dispatch(void *impl, struct pipeline *p)
{
	static const struct input_evdev_callbacks cbs = {
		source_evdev_event,
		source_evdev_added,
		source_evdev_removed,
	};
	struct source_evdev *se = impl;
	int rc;

	se->pipe = p;
	rc = input_evdev_dispatch(se->ie, &cbs, se);
	se->pipe = NULL;
	return rc;
}

static int
source_evdev_axis(void *impl, uint16_t code, int32_t *min, int32_t *max)
{
	struct source_evdev *se = impl;

	return input_evdev_axis(se->ie, code, min, max);
}

static const char *
source_evdev_device(void *impl)
{
	struct source_evdev *se = impl;

	return input_evdev_path(se->ie);
}

static const char *
source_evdev_clone(void *impl)
{
	struct source_evdev *se = impl;

	return input_evdev_clone_path(se->ie);
}

static void
source_evdev_free(void *impl)
{
	struct source_evdev *se = impl;

	if (!se)
		return;
	input_evdev_free(se->ie);
	free(se);
}

static const struct source_ops source_evdev_ops = {
	.fd = source_evdev_fd,
	.dispatch = source_evdev_dispatch,
	.axis = source_evdev_axis,
	.device = source_evdev_device,
	.clone = source_evdev_clone,
	.free = source_evdev_free,
};

static int
source_evdev_create(const char *arg, const struct source_env *env,
		    struct source **out)
{
	struct input_evdev_config cfg;
	struct source_evdev *se;
	int rc;

	*out = NULL;
	se = calloc(1, sizeof(*se));
	if (!se)
		return -ENOMEM;
	memset(&cfg, 0, sizeof(cfg));
	cfg.device = arg;
	cfg.sysroot = env->sysroot;
	cfg.status = env->status;
	se->record = env->record;
	rc = input_evdev_new(&cfg, &se->ie);
	if (rc < 0) {
		free(se);
		return rc;
	}
	return source_wrap(&source_input_evdev, &source_evdev_ops, se, out);
}

const struct source_kind source_input_evdev = {
	.name = "evdev",
	.syntax = "evdev[:/dev/input/eventN]",
	.mode = SOURCE_MODE_LIVE,
	.role = SOURCE_ROLE_INPUT,
	.arg = SOURCE_ARG_OPTIONAL,
	.create = source_evdev_create,
};

/* ---- getevent: a live stream (a pipe or a FIFO) ---- */

struct source_stream {
	struct input_getevent_stream *s;
	struct pipeline *pipe; /* during a dispatch only */
	struct record *record; /* NULL unless --record */
};

static int
source_stream_event(void *ctx, const struct touch_event *ev)
{
	struct source_stream *ss = ctx;

	record_input(ss->record, ev);
	return pipeline_input(ss->pipe, ev);
}

static int
source_stream_fd(void *impl)
{
	struct source_stream *ss = impl;

	return input_getevent_stream_fd(ss->s);
}

static int
source_stream_dispatch(void *impl, struct pipeline *p)
{
	struct source_stream *ss = impl;
	int rc;

	ss->pipe = p;
	rc = input_getevent_stream_read(ss->s, source_stream_event, ss);
	ss->pipe = NULL;
	return rc;
}

static void
source_stream_fill_status(void *impl, struct status_snapshot *s)
{
	struct source_stream *ss = impl;
	struct input_getevent_stream_stats st;

	input_getevent_stream_get_stats(ss->s, &st);
	s->input_lines_skipped = st.skipped;
}

static void
source_stream_report(void *impl, struct status *st, int done)
{
	struct source_stream *ss = impl;

	(void)done;
	status_set_source(st, STATUS_SOURCE_INPUT, STATUS_HEALTH_UP, "getevent",
			  "stream '%s'", input_getevent_stream_name(ss->s));
}

static void
source_stream_free(void *impl)
{
	struct source_stream *ss = impl;

	if (!ss)
		return;
	input_getevent_stream_free(ss->s);
	free(ss);
}

static const struct source_ops source_stream_ops = {
	.fd = source_stream_fd,
	.dispatch = source_stream_dispatch,
	.fill_status = source_stream_fill_status,
	.report = source_stream_report,
	.free = source_stream_free,
};

/*
 * Before anything is opened: the stream must be a FIFO, or standard input
 * a pipe ("-"); a recorded log is for tapd replay.
 */
static int
source_stream_check(const char *arg)
{
	struct stat sb;
	int rc;

	rc = strcmp(arg, "-") == 0 ? fstat(STDIN_FILENO, &sb) : stat(arg, &sb);
	if (rc == 0 && S_ISFIFO(sb.st_mode))
		return 0;
	if (rc < 0)
		log_error("cannot use the getevent stream '%s': %s", arg,
			  strerror(errno));
	else
		log_error("the getevent stream '%s' is not a FIFO or a pipe; "
			  "replay a recorded log with 'tapd replay'",
			  arg);
	return -EINVAL;
}

static int
source_stream_create(const char *arg, const struct source_env *env,
		     struct source **out)
{
	struct source_stream *ss;
	int rc;

	*out = NULL;
	ss = calloc(1, sizeof(*ss));
	if (!ss)
		return -ENOMEM;
	rc = input_getevent_stream_open(arg, &ss->s);
	if (rc < 0) {
		free(ss);
		return rc;
	}
	/* The events the stream's chosen device gave, as one device. */
	ss->record = env->record;
	record_input_device(ss->record, input_getevent_stream_name(ss->s),
			    "getevent stream");
	return source_wrap(&source_input_getevent_stream, &source_stream_ops,
			   ss, out);
}

const struct source_kind source_input_getevent_stream = {
	.name = "getevent",
	.syntax = "getevent:FIFO",
	.mode = SOURCE_MODE_LIVE,
	.role = SOURCE_ROLE_INPUT,
	.arg = SOURCE_ARG_REQUIRED,
	.check = source_stream_check,
	.create = source_stream_create,
};

/* ---- getevent: a recorded log ---- */

struct source_getevent {
	struct input_getevent *g;
	char *file;
};

/*
 * Splits "FILE@DEVICE".  The device part is recognized only as
 * "@/dev/...", so a file name with '@' still works.
 */
static int
source_getevent_split(const char *arg, char **file, char **device)
{
	const char *at = strstr(arg, "@/dev/");

	*file = at ? strndup(arg, (size_t)(at - arg)) : strdup(arg);
	*device = at ? strdup(at + 1) : NULL;
	if (!*file || (at && !*device)) {
		free(*file);
		free(*device);
		*file = *device = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int
source_getevent_next(void *impl, struct touch_event *ev)
{
	struct source_getevent *sg = impl;

	return input_getevent_next(sg->g, ev);
}

static int
source_getevent_axis(void *impl, uint16_t code, int32_t *min, int32_t *max)
{
	struct source_getevent *sg = impl;
	struct input_getevent_axis a;
	int rc;

	rc = input_getevent_get_axis(sg->g, code, &a);
	if (rc < 0)
		return rc;
	*min = a.min;
	*max = a.max;
	return 0;
}

static int
source_getevent_time_range(void *impl, int64_t *first, int64_t *last)
{
	struct source_getevent *sg = impl;

	return input_getevent_time_range(sg->g, first, last);
}

static void
source_getevent_fill_status(void *impl, struct status_snapshot *s)
{
	struct source_getevent *sg = impl;
	struct input_getevent_stats gs;

	input_getevent_get_stats(sg->g, &gs);
	s->input_lines_skipped = gs.skipped;
}

static void
source_getevent_report(void *impl, struct status *st, int done)
{
	struct source_getevent *sg = impl;

	status_set_source(st, STATUS_SOURCE_INPUT,
			  done ? STATUS_HEALTH_DONE : STATUS_HEALTH_UP,
			  "getevent", "'%s'", sg->file);
}

static void
source_getevent_print(void *impl, FILE *out)
{
	struct source_getevent *sg = impl;
	struct input_getevent_stats gs;
	struct input_getevent_jump j;
	int64_t back;

	input_getevent_get_stats(sg->g, &gs);
	fprintf(out, "input      '%s'", sg->file);
	if (input_getevent_device(sg->g)[0])
		fprintf(out, " device %s", input_getevent_device(sg->g));
	if (input_getevent_device_name(sg->g))
		fprintf(out, " \"%s\"", input_getevent_device_name(sg->g));
	fprintf(out, "\n");
	fprintf(out,
		"lines      %" PRIu64 " read, %" PRIu64 " skipped, %" PRIu64
		" events of this device, %" PRIu64 " of others\n",
		gs.lines, gs.skipped, gs.events, gs.other_events);
	if (input_getevent_get_jump(sg->g, &j) == 0) {
		back = j.from_ns - j.to_ns;
		fprintf(out,
			"STOPPED    at line %" PRIu64
			": time goes back %.6f s (from %.6f to %.6f); the "
			"rest of the log was not replayed\n",
			j.line, (double)back / 1e9, (double)j.from_ns / 1e9,
			(double)j.to_ns / 1e9);
	}
}

static char *
source_getevent_json(void *impl)
{
	struct source_getevent *sg = impl;
	struct input_getevent_stats gs;
	char *s;

	input_getevent_get_stats(sg->g, &gs);
	if (asprintf(&s,
		     "\"lines\":%" PRIu64 ",\"skipped\":%" PRIu64
		     ",\"events\":%" PRIu64,
		     gs.lines, gs.skipped, gs.events) < 0)
		return NULL;
	return s;
}

static void
source_getevent_free(void *impl)
{
	struct source_getevent *sg = impl;

	if (!sg)
		return;
	input_getevent_free(sg->g);
	free(sg->file);
	free(sg);
}

static const struct source_ops source_getevent_ops = {
	.next = source_getevent_next,
	.axis = source_getevent_axis,
	.time_range = source_getevent_time_range,
	.fill_status = source_getevent_fill_status,
	.report = source_getevent_report,
	.print = source_getevent_print,
	.json = source_getevent_json,
	.free = source_getevent_free,
};

static int
source_getevent_create(const char *arg, const struct source_env *env,
		       struct source **out)
{
	struct source_getevent *sg;
	char *device = NULL;
	int rc;

	(void)env;
	*out = NULL;
	sg = calloc(1, sizeof(*sg));
	if (!sg)
		return -ENOMEM;
	rc = source_getevent_split(arg, &sg->file, &device);
	if (rc == 0)
		rc = input_getevent_open(sg->file, device, &sg->g);
	free(device);
	if (rc < 0) {
		source_getevent_free(sg);
		return rc;
	}
	return source_wrap(&source_input_getevent, &source_getevent_ops, sg,
			   out);
}

const struct source_kind source_input_getevent = {
	.name = "getevent",
	.syntax = "getevent:FILE[@/dev/input/eventN]",
	.mode = SOURCE_MODE_REPLAY,
	.role = SOURCE_ROLE_INPUT,
	.arg = SOURCE_ARG_REQUIRED,
	.create = source_getevent_create,
};
