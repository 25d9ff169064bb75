#include "attrib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attrib_int.h"
#include "log.h"
#include "processes_log.h"
#include "windows_log.h"

static const char *const attrib_how_names[] = {
	[ATTRIB_FOREGROUND] = "foreground",
	[ATTRIB_WINDOW] = "window",
	[ATTRIB_NONE] = "none",
};

const char *
attrib_how_name(enum attrib_how how)
{
	if ((unsigned)how >=
	    sizeof(attrib_how_names) / sizeof(*attrib_how_names))
		return "foreground";
	return attrib_how_names[how];
}

int
attrib_new(const struct hittest_axes *axes, struct attrib **out)
{
	struct attrib *a;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	/* An empty range cannot be mapped: hittest_map() would refuse it. */
	if (axes && axes->x_max > axes->x_min && axes->y_max > axes->y_min) {
		a->axes = *axes;
		a->have_axes = 1;
	}
	*out = a;
	return 0;
}

void
attrib_free(struct attrib *a)
{
	if (!a)
		return;
	attrib__live_free(a);
	windows_log_free(a->wlog);
	processes_log_free(a->plog);
	free(a);
}

int
attrib_open_windows(struct attrib *a, const char *spec)
{
	struct windows_log_jump j;
	struct windows_log *l;
	int rc;

	if (strcmp(spec, "none") == 0) {
		windows_log_free(a->wlog);
		a->wlog = NULL;
		return 0;
	}
	if (strncmp(spec, "log:", 4) != 0 || !spec[4]) {
		log_error("bad --windows '%s': expected log:FILE or none",
			  spec);
		return -EINVAL;
	}
	rc = windows_log_load(spec + 4, &l);
	if (rc < 0) {
		log_error("cannot read the window lists '%s': %s", spec + 4,
			  strerror(-rc));
		return rc;
	}
	/* As a foreground log's: what comes after the jump is not used. */
	if (windows_log_get_jump(l, &j) == 0)
		log_warnx("window lists '%s': block %llu goes back in time; "
			  "it and the blocks after it are not used",
			  spec + 4, (unsigned long long)j.block);
	windows_log_free(a->wlog);
	a->wlog = l;
	return 0;
}

int
attrib_open_processes(struct attrib *a, const char *spec)
{
	struct processes_log_stats st;
	struct processes_log *l;
	int rc;

	if (strncmp(spec, "log:", 4) != 0 || !spec[4]) {
		log_error("bad --processes '%s': expected log:FILE", spec);
		return -EINVAL;
	}
	rc = processes_log_load(spec + 4, &l);
	if (rc < 0) {
		log_error("cannot read the processes '%s': %s", spec + 4,
			  strerror(-rc));
		return rc;
	}
	processes_log_get_stats(l, &st);
	if (st.malformed)
		log_warnx("processes '%s': %llu malformed lines skipped",
			  spec + 4, (unsigned long long)st.malformed);
	processes_log_free(a->plog);
	a->plog = l;
	return 0;
}

int
attrib_has_lists(const struct attrib *a)
{
	return a && (a->wlog || a->live);
}

void
attrib_down(struct attrib *a, int64_t t_ns, int32_t x, int32_t y)
{
	if (!a)
		return;
	a->have_down = 1;
	a->down_ns = t_ns;
	a->down_x = x;
	a->down_y = y;
	if (a->live)
		attrib__live_down(a, t_ns);
}

/* The list in force at t_ns, or NULL. */
static const struct winlist *
list_at(const struct attrib *a, int64_t t_ns)
{
	const struct winlist *wl;

	if (a->wlog)
		return windows_log_at(a->wlog, t_ns, &wl, NULL) == 0 ? wl
								     : NULL;
	if (a->live)
		return attrib__live_at(a, t_ns);
	return NULL;
}

/* The package of a window's owner into a->app: 0, or -ENOENT. */
static int
owner_package(struct attrib *a, int64_t t_ns, int32_t pid, int64_t uid)
{
	const char *pkg;

	if (a->plog) {
		if (pid <= 0 ||
		    processes_log_find(a->plog, t_ns, pid, uid, &pkg) < 0)
			return -ENOENT;
		if (strlen(pkg) >= sizeof(a->app))
			return -ENOENT;
		memcpy(a->app, pkg, strlen(pkg) + 1);
		return 0;
	}
	if (a->live)
		return attrib__live_owner(a, t_ns, pid, uid, a->app,
					  sizeof(a->app));
	return -ENOENT;
}

int
attrib_decide(struct attrib *a, int64_t t_ns, int32_t fg_pid,
	      const char *fg_app, struct attrib_result *res)
{
	const struct winlist_window *w;
	const struct winlist *wl;
	struct hittest_result hr;
	int32_t pid;
	size_t n;

	res->how = ATTRIB_FOREGROUND;
	res->pid = fg_pid;
	res->app = fg_app;
	res->window = NULL;
	if (!a)
		return 0;
	wl = a->have_down ? list_at(a, t_ns) : NULL;
	if (!wl || winlist_n_displays(wl) == 0) {
		a->st.no_list++;
		goto out;
	}
	if (!a->have_axes || hittest_touch(wl, ATTRIB_DISPLAY, &a->axes,
					   a->down_x, a->down_y, 0, &hr) < 0) {
		a->st.no_display++;
		goto out;
	}
	if (!hr.window) {
		res->how = ATTRIB_NONE;
		goto out;
	}
	w = hr.window;
	res->how = ATTRIB_WINDOW;
	n = strnlen(w->name, sizeof(a->window) - 1);
	memcpy(a->window, w->name, n);
	a->window[n] = '\0';
	res->window = a->window;
	pid = w->owner_pid > 0 && w->owner_pid <= FOREGROUND_PID_MAX
		      ? w->owner_pid
		      : 0;
	res->pid = pid;
	res->app = NULL;
	if (owner_package(a, t_ns, pid, w->owner_uid) == 0) {
		res->app = a->app;
	} else if (pid > 0 && pid == fg_pid && fg_app) {
		/* The owner is the foreground process: its name is known. */
		res->app = fg_app;
		a->st.owner_from_fg++;
	} else {
		a->st.owner_unknown++;
	}
out:
	a->st.decided[res->how]++;
	return 0;
}

int
attrib_axes(const struct device_info *dev, const struct gesture_axis *ax,
	    const struct gesture_axis *ay, struct hittest_axes *out)
{
	memset(out, 0, sizeof(*out));
	if (dev && dev->have_touch) {
		out->x_min = dev->x.min;
		out->x_max = dev->x.max;
		out->y_min = dev->y.min;
		out->y_max = dev->y.max;
		return 0;
	}
	if (!ax || !ay)
		return -ENOENT;
	out->x_min = ax->min;
	out->x_max = ax->max;
	out->y_min = ay->min;
	out->y_max = ay->max;
	return 0;
}

void
attrib_get_stats(const struct attrib *a, struct attrib_stats *st)
{
	if (!a) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = a->st;
}
