#include "source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "pipeline.h"

struct source {
	const struct source_kind *kind;
	const struct source_ops *ops;
	void *impl;
	int coverage_set;
};

/*
 * Every kind there is.  The order is the usage text's, within each mode
 * and role.
 */
static const struct source_kind *const source_kinds[] = {
	&source_input_evdev,	       &source_input_getevent_stream,
	&source_frames_auto,	       &source_frames_ftl,
	&source_frames_latency,	       &source_frames_none,
	&source_foreground_auto,       &source_foreground_app,
	&source_foreground_none,       &source_input_getevent,
	&source_frames_ftl_file,       &source_frames_latency_dir,
	&source_frames_replay_none,    &source_foreground_log,
	&source_foreground_replay_app,
};

#define SOURCE_KINDS_COUNT (sizeof(source_kinds) / sizeof(source_kinds[0]))

static const char *
source_role_noun(enum source_role role)
{
	switch (role) {
	case SOURCE_ROLE_INPUT:
		return "input";
	case SOURCE_ROLE_FRAMES:
		return "frame source";
	case SOURCE_ROLE_FOREGROUND:
		return "foreground source";
	}
	return "source";
}

/*
 * Whether spec names kind k: its name alone, or "name:ARG" with an
 * argument that is not empty.  Sets *arg to the argument or NULL.
 */
static int
source_matches(const struct source_kind *k, const char *spec, const char **arg)
{
	size_t n = strlen(k->name);

	*arg = NULL;
	if (strncmp(spec, k->name, n) != 0)
		return 0;
	if (spec[n] == '\0')
		return k->arg != SOURCE_ARG_REQUIRED;
	if (spec[n] != ':' || spec[n + 1] == '\0' || k->arg == SOURCE_ARG_NONE)
		return 0;
	*arg = spec + n + 1;
	return 1;
}

/* What goes before the seen-th of total kinds in a list. */
static const char *
source_list_sep(const char *sep, size_t seen, size_t total)
{
	if (seen == 1)
		return "";
	if (sep)
		return sep;
	return seen == total ? " or " : ", ";
}

/* Lists the kinds as "a, b or c" (sep NULL) or "a|b|c" into buf. */
static int
source_list(enum source_mode mode, enum source_role role, const char *sep,
	    char *buf, size_t len)
{
	const struct source_kind *k;
	size_t i, total = 0, seen = 0, used = 0;
	int n;

	for (i = 0; i < SOURCE_KINDS_COUNT; i++)
		if (source_kinds[i]->mode == mode &&
		    source_kinds[i]->role == role)
			total++;
	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (i = 0; i < SOURCE_KINDS_COUNT; i++) {
		k = source_kinds[i];
		if (k->mode != mode || k->role != role)
			continue;
		seen++;
		n = snprintf(buf + used, len - used, "%s%s",
			     source_list_sep(sep, seen, total), k->syntax);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
	}
	return 0;
}

int
source_kinds_usage(enum source_mode mode, enum source_role role, char *buf,
		   size_t len)
{
	return source_list(mode, role, "|", buf, len);
}

int
source_parse(enum source_mode mode, enum source_role role, const char *spec,
	     struct source_spec *out)
{
	const struct source_kind *k;
	const char *arg;
	char list[256];
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; spec && i < SOURCE_KINDS_COUNT; i++) {
		k = source_kinds[i];
		if (k->mode != mode || k->role != role ||
		    !source_matches(k, spec, &arg))
			continue;
		if (k->check && k->check(arg) < 0)
			return -EINVAL;
		out->kind = k;
		out->text = spec;
		out->arg = arg;
		return 0;
	}
	if (source_list(mode, role, NULL, list, sizeof(list)) < 0)
		list[0] = '\0';
	log_error("unknown %s '%s': %s takes %s", source_role_noun(role),
		  spec ? spec : "", mode == SOURCE_MODE_LIVE ? "run" : "replay",
		  list);
	return -EINVAL;
}

int
source_create(const struct source_spec *spec, const struct source_env *env,
	      struct source **out)
{
	*out = NULL;
	if (!spec->kind)
		return -EINVAL;
	return spec->kind->create(spec->arg, env, out);
}

int
source_wrap(const struct source_kind *kind, const struct source_ops *ops,
	    void *impl, struct source **out)
{
	struct source *src;

	*out = NULL;
	src = calloc(1, sizeof(*src));
	if (!src) {
		ops->free(impl);
		return -ENOMEM;
	}
	src->kind = kind;
	src->ops = ops;
	src->impl = impl;
	*out = src;
	return 0;
}

void
source_free(struct source *src)
{
	if (!src)
		return;
	src->ops->free(src->impl);
	free(src);
}

const struct source_kind *
source_kind(const struct source *src)
{
	return src->kind;
}

enum source_role
source_role(const struct source *src)
{
	return src->kind->role;
}

int
source_fd(const struct source *src)
{
	return src->ops->fd ? src->ops->fd(src->impl) : -1;
}

int
source_dispatch(struct source *src, struct pipeline *p)
{
	int64_t start;
	int rc;

	if (!src->ops->dispatch)
		return 0;
	rc = src->ops->dispatch(src->impl, p);
	if (!src->coverage_set && src->ops->coverage) {
		start = src->ops->coverage(src->impl);
		if (start != INT64_MIN) {
			pipeline_set_coverage(p, start);
			src->coverage_set = 1;
		}
	}
	if (rc < 0 && rc != -EAGAIN)
		log_debug("%s: %s", source_role_noun(src->kind->role),
			  strerror(-rc));
	return rc == -ENOMEM ? rc : 0;
}

int
source_next(struct source *src, struct touch_event *ev)
{
	return src->ops->next ? src->ops->next(src->impl, ev) : 0;
}

int
source_pump(struct source *src, struct pipeline *p, int64_t input_ns,
	    int64_t *wm)
{
	*wm = INT64_MAX;
	if (!src->ops->pump)
		return 0;
	return src->ops->pump(src->impl, p, input_ns, wm);
}

int
source_finish(struct source *src, struct pipeline *p, int64_t *end)
{
	*end = INT64_MAX;
	if (!src->ops->finish)
		return 0;
	return src->ops->finish(src->impl, p, end);
}

int64_t
source_watermark(const struct source *src)
{
	if (!src->ops->watermark)
		return INT64_MAX;
	return src->ops->watermark(src->impl);
}

int
source_axis(const struct source *src, uint16_t code, int32_t *min, int32_t *max)
{
	if (!src->ops->axis)
		return -ENOENT;
	return src->ops->axis(src->impl, code, min, max);
}

const char *
source_device(const struct source *src)
{
	return src->ops->device ? src->ops->device(src->impl) : NULL;
}

const char *
source_clone(const struct source *src)
{
	return src->ops->clone ? src->ops->clone(src->impl) : NULL;
}

int
source_time_range(const struct source *src, int64_t *first, int64_t *last)
{
	if (!src->ops->time_range)
		return -ENOENT;
	return src->ops->time_range(src->impl, first, last);
}

int
source_cut(const struct source *src, int64_t *t_ns)
{
	if (!src->ops->cut)
		return -ENOENT;
	return src->ops->cut(src->impl, t_ns);
}

struct foreground *
source_timeline(const struct source *src)
{
	return src->ops->timeline ? src->ops->timeline(src->impl) : NULL;
}

void
source_touch_down(struct source *src, int64_t t_ns)
{
	if (src->ops->touch_down)
		src->ops->touch_down(src->impl, t_ns);
}

void
source_launch_window(struct source *src, int64_t t_up_ns, int64_t end_ns)
{
	if (src->ops->launch_window)
		src->ops->launch_window(src->impl, t_up_ns, end_ns);
}

int64_t
source_timer_ms(const struct source *src)
{
	return src->ops->timer ? src->ops->timer_ms : 0;
}

int
source_timer(void *ctx)
{
	struct source *src = ctx;

	if (!src->ops->timer)
		return 0;
	return src->ops->timer(src->impl, loop_now_ns());
}

void
source_tick(struct source *src, struct pipeline *p)
{
	if (src->ops->tick)
		src->ops->tick(src->impl, p);
}

void
source_fill_status(struct source *src, struct status_snapshot *s)
{
	if (src->ops->fill_status)
		src->ops->fill_status(src->impl, s);
}

void
source_report(struct source *src, struct status *st, int done)
{
	if (st && src->ops->report)
		src->ops->report(src->impl, st, done);
}

void
source_print(struct source *src, FILE *out)
{
	if (src->ops->print)
		src->ops->print(src->impl, out);
}

char *
source_json(struct source *src)
{
	return src->ops->json ? src->ops->json(src->impl) : NULL;
}

void
source_stop(struct source *src)
{
	if (src->ops->stop)
		src->ops->stop(src->impl);
}

int
source_stopped(const struct source *src)
{
	return src->ops->stopped ? src->ops->stopped(src->impl) : 1;
}
