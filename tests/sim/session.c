#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "getevent_out.h"
#include "msg.h"
#include "pftrace.h"
#include "session.h"
#include "truth.h"
#include "winlog_out.h"

static int
join(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= size) {
		msg_warnx("cannot use '%s': path too long", dir);
		return -ENAMETOOLONG;
	}
	return 0;
}

static cJSON *
add_i64(cJSON *obj, const char *name, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return cJSON_AddStringToObject(obj, name, buf);
}

/* A number while a double holds it exactly, else a decimal string. */
static cJSON *
add_seed(cJSON *obj, uint64_t seed)
{
	char buf[32];

	if (seed <= (1ULL << 53))
		return cJSON_AddNumberToObject(obj, "seed", (double)seed);
	snprintf(buf, sizeof(buf), "%" PRIu64, seed);
	return cJSON_AddStringToObject(obj, "seed", buf);
}

/* device.json's object, as docs/formats.md 5 gives it. */
static cJSON *
device_json(const struct world *w)
{
	const struct world_device *d = world_get_device(w);
	cJSON *o, *screen, *touch, *x, *y;

	o = cJSON_CreateObject();
	if (o == NULL)
		return NULL;
	screen = cJSON_AddObjectToObject(o, "screen");
	if (screen == NULL ||
	    cJSON_AddNumberToObject(screen, "width", d->width) == NULL ||
	    cJSON_AddNumberToObject(screen, "height", d->height) == NULL ||
	    cJSON_AddNumberToObject(o, "density_dpi", d->density_dpi) == NULL ||
	    cJSON_AddNumberToObject(o, "refresh_hz", d->refresh_hz) == NULL ||
	    cJSON_AddNumberToObject(o, "android_sdk", d->android_sdk) == NULL)
		goto fail;
	touch = cJSON_AddObjectToObject(o, "touch");
	x = touch != NULL ? cJSON_AddObjectToObject(touch, "x") : NULL;
	y = touch != NULL ? cJSON_AddObjectToObject(touch, "y") : NULL;
	if (x == NULL || y == NULL ||
	    cJSON_AddNumberToObject(x, "min", d->x_min) == NULL ||
	    cJSON_AddNumberToObject(x, "max", d->x_max) == NULL ||
	    cJSON_AddNumberToObject(y, "min", d->y_min) == NULL ||
	    cJSON_AddNumberToObject(y, "max", d->y_max) == NULL)
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

static int
write_text(const char *path, const char *text)
{
	FILE *f;
	int rc = 0;

	f = fopen(path, "w");
	if (f == NULL) {
		rc = -errno;
		msg_warn("cannot create '%s'", path);
		return rc;
	}
	if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	if (rc < 0)
		msg_warnx("cannot write '%s'", path);
	return rc;
}

static int
write_json(const char *path, const cJSON *obj)
{
	char *text;
	int rc;

	text = cJSON_Print(obj);
	if (text == NULL)
		return -ENOMEM;
	rc = write_text(path, text);
	cJSON_free(text);
	return rc;
}

static int
write_foreground(const struct world *w, const char *path)
{
	const struct world_fg *fg;
	const struct world_app *apps;
	size_t n, napps, i;
	FILE *f;
	int rc = 0;

	fg = world_fgs(w, &n);
	apps = world_apps(w, &napps);
	f = fopen(path, "w");
	if (f == NULL) {
		rc = -errno;
		msg_warn("cannot create '%s'", path);
		return rc;
	}
	/* The activity, when the scenario names one, is the fourth field. */
	for (i = 0; i < n; i++)
		if (fprintf(f, "%" PRId64 " %d %s%s%s\n", fg[i].t_ns,
			    apps[fg[i].app].pid, apps[fg[i].app].package,
			    fg[i].activity[0] ? " " : "", fg[i].activity) < 0)
			rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	if (rc < 0)
		msg_warnx("cannot write '%s'", path);
	return rc;
}

/* What the truth file says about how the session was made. */
static int
add_meta(cJSON *root, const struct world *w, const struct pftrace_stats *ps,
	 uint64_t lines)
{
	const struct world_format *fmt = world_get_format(w);
	const struct world_device *d = world_get_device(w);
	cJSON *th, *tr, *in;
	size_t nev, ndev, nfg;

	world_events(w, &nev);
	world_indevs(w, &ndev);
	world_fgs(w, &nfg);
	th = cJSON_AddObjectToObject(root, "thresholds");
	if (th == NULL ||
	    cJSON_AddNumberToObject(th, "slop_px", world_slop_px(w)) == NULL ||
	    cJSON_AddNumberToObject(th, "long_press_ms", 400) == NULL ||
	    cJSON_AddNumberToObject(th, "settle_quiet_ms", 300) == NULL ||
	    cJSON_AddNumberToObject(th, "settle_cap_ms", 5000) == NULL ||
	    cJSON_AddNumberToObject(th, "busy_before_ms", 100) == NULL)
		return -ENOMEM;
	tr = cJSON_AddObjectToObject(root, "trace");
	if (tr == NULL ||
	    cJSON_AddStringToObject(tr, "clock",
				    fmt->clock_id == WORLD_CLOCK_MONOTONIC
					    ? "MONOTONIC"
					    : "BOOTTIME") == NULL ||
	    add_i64(tr, "start_ns", fmt->trace_start_ns) == NULL ||
	    add_i64(tr, "stop_ns", fmt->trace_stop_ns) == NULL ||
	    add_i64(tr, "boot_offset_ns", fmt->boot_offset_ns) == NULL ||
	    add_i64(tr, "suspend_at_ns", fmt->suspend_at_ns) == NULL ||
	    add_i64(tr, "suspend_len_ns", fmt->suspend_len_ns) == NULL ||
	    cJSON_AddBoolToObject(tr, "display_after", fmt->df_after) == NULL ||
	    add_i64(tr, "write_period_ns", fmt->write_period_ns) == NULL ||
	    cJSON_AddNumberToObject(tr, "packets", (double)ps->packets) ==
		    NULL ||
	    cJSON_AddNumberToObject(tr, "frame_packets",
				    (double)ps->frame_packets) == NULL ||
	    cJSON_AddNumberToObject(tr, "bytes", (double)ps->bytes) == NULL ||
	    cJSON_AddNumberToObject(tr, "display_frames",
				    (double)ps->display_frames) == NULL ||
	    cJSON_AddNumberToObject(tr, "surface_frames",
				    (double)ps->surface_frames) == NULL ||
	    cJSON_AddNumberToObject(tr, "dropped_frames",
				    (double)ps->dropped_frames) == NULL ||
	    cJSON_AddNumberToObject(tr, "clock_snapshots",
				    (double)ps->snapshots) == NULL ||
	    cJSON_AddNumberToObject(tr, "surfaceflinger_pid", fmt->sf_pid) ==
		    NULL)
		return -ENOMEM;
	in = cJSON_AddObjectToObject(root, "input");
	if (in == NULL ||
	    cJSON_AddNumberToObject(in, "events", (double)nev) == NULL ||
	    cJSON_AddNumberToObject(in, "lines", (double)lines) == NULL ||
	    cJSON_AddNumberToObject(in, "devices", (double)ndev) == NULL ||
	    cJSON_AddBoolToObject(in, "device_prefix", fmt->prefix) == NULL ||
	    cJSON_AddBoolToObject(in, "headers", fmt->header) == NULL ||
	    cJSON_AddNumberToObject(in, "refresh_hz", d->refresh_hz) == NULL ||
	    cJSON_AddNumberToObject(root, "foreground_changes", (double)nfg) ==
		    NULL)
		return -ENOMEM;
	return 0;
}

int
session_write(const struct world *w, const char *dir, const char *scenario,
	      uint64_t seed)
{
	struct truth *t = NULL;
	struct pftrace_stats ps;
	cJSON *root = NULL, *dev = NULL;
	char path[4096], path2[4096];
	uint64_t lines = 0;
	int rc;

	rc = truth_compute(w, &t);
	if (rc < 0) {
		msg_warnx("cannot compute the truth of '%s' seed %" PRIu64
			  ": the scenario is wrong",
			  scenario, seed);
		goto out;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		rc = -errno;
		msg_warn("cannot create '%s'", dir);
		goto out;
	}
	rc = join(path, sizeof(path), dir, "input.getevent");
	if (rc == 0)
		rc = getevent_out_write(w, path, &lines);
	if (rc == 0)
		rc = join(path, sizeof(path), dir, "frames.pftrace");
	if (rc == 0)
		rc = pftrace_write(w, path, &ps);
	if (rc == 0)
		rc = join(path, sizeof(path), dir, "foreground.log");
	if (rc == 0)
		rc = write_foreground(w, path);
	if (rc == 0)
		rc = join(path, sizeof(path), dir, "windows.log");
	if (rc == 0)
		rc = join(path2, sizeof(path2), dir, "processes.log");
	if (rc == 0)
		rc = winlog_out_write(w, path, path2);
	if (rc < 0)
		goto out;
	rc = -ENOMEM;
	dev = device_json(w);
	if (dev == NULL)
		goto out;
	rc = join(path, sizeof(path), dir, "device.json");
	if (rc == 0)
		rc = write_json(path, dev);
	if (rc < 0)
		goto out;
	rc = -ENOMEM;
	root = cJSON_CreateObject();
	if (root == NULL ||
	    cJSON_AddStringToObject(root, "scenario", scenario) == NULL ||
	    add_seed(root, seed) == NULL ||
	    cJSON_AddStringToObject(root, "generator", "tapd-sim") == NULL ||
	    cJSON_AddNumberToObject(root, "duration_s",
				    world_get_format(w)->duration_s) == NULL)
		goto out;
	cJSON_AddItemToObject(root, "device", dev);
	dev = NULL;
	if (add_meta(root, w, &ps, lines) < 0 || truth_to_json(t, w, root) < 0)
		goto out;
	rc = join(path, sizeof(path), dir, "truth.json");
	if (rc == 0)
		rc = write_json(path, root);
out:
	if (rc == -ENOMEM)
		msg_warnx("cannot write '%s': out of memory", dir);
	cJSON_Delete(dev);
	cJSON_Delete(root);
	truth_free(t);
	return rc;
}
