#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "winlog_out.h"

/* InputConfig's names by bit, as ftl::Flags<InputConfig>::string() has them. */
static const char *const config_names[] = {
	"NO_INPUT_CHANNEL",
	"NOT_VISIBLE",
	"NOT_FOCUSABLE",
	"NOT_TOUCHABLE",
	"PREVENT_SPLITTING",
	"DUPLICATE_TOUCH_TO_WALLPAPER",
	"IS_WALLPAPER",
	"PAUSE_DISPATCHING",
	"TRUSTED_OVERLAY",
	"WATCH_OUTSIDE_TOUCH",
	"SLIPPERY",
	"DISABLE_USER_ACTIVITY",
	"DROP_INPUT",
	"DROP_INPUT_IF_OBSCURED",
	"SPY",
	"INTERCEPTS_STYLUS",
};

static void
put_config(FILE *f, uint32_t config)
{
	size_t i;
	int first = 1;

	if (config == 0) {
		fputs("0x0", f);
		return;
	}
	for (i = 0; i < sizeof(config_names) / sizeof(config_names[0]); i++) {
		if (!(config & 1u << i))
			continue;
		fprintf(f, "%s%s", first ? "" : " | ", config_names[i]);
		first = 0;
	}
}

static void
put_token(FILE *f, uint64_t token, const char *none)
{
	if (token == 0)
		fputs(none, f);
	else
		fprintf(f, "0x%" PRIx64, token);
}

/* Transform::dump() of a translation by (-left, -top), prefix "    ". */
static void
put_transform(FILE *f, const char *prefix, int32_t left, int32_t top)
{
	if (left == 0 && top == 0) {
		fprintf(f, "%stransform (ROT_0) (IDENTITY)\n", prefix);
		return;
	}
	fprintf(f, "%stransform (ROT_0) (TRANSLATE)\n", prefix);
	fprintf(f, "%s    1.0000  0.0000  %.4f\n", prefix, (double)(0 - left));
	fprintf(f, "%s    0.0000  1.0000  %.4f\n", prefix, (double)(0 - top));
	fprintf(f, "%s    0.0000  0.0000  1.0000\n", prefix);
}

static void
put_window(FILE *f, int i, const struct world_win *x)
{
	int j;

	fprintf(f,
		"      %d: name=%s, id=%" PRId32 ", displayId=0, inputConfig=",
		i, x->name, x->id);
	put_config(f, x->config);
	fprintf(f,
		", alpha=1, frame=[%" PRId32 ",%" PRId32 "][%" PRId32
		",%" PRId32 "], globalScale=1, applicationInfo.name=%s, "
		"applicationInfo.token=",
		x->frame.l, x->frame.t, x->frame.r, x->frame.b, x->app_name);
	put_token(f, x->app_token, "<null>");
	fputs(", touchableRegion=", f);
	if (x->nregion == 0)
		fputs("<empty>", f);
	for (j = 0; j < x->nregion; j++)
		fprintf(f,
			"%s[%" PRId32 ",%" PRId32 "][%" PRId32 ",%" PRId32 "]",
			j > 0 ? "|" : "", x->region[j].l, x->region[j].t,
			x->region[j].r, x->region[j].b);
	fprintf(f,
		", ownerPid=%" PRId32 ", ownerUid=%" PRId32
		", dispatchingTimeout=5000ms, token=",
		x->pid, x->uid);
	put_token(f, x->token, "0x0");
	fputs(", touchOcclusionMode=BLOCK_UNTRUSTED", f);
	if (x->app_token != 0)
		fputs(", canOccludePresentation", f);
	fputc('\n', f);
	put_transform(f, "    ", x->frame.l, x->frame.t);
}

/* The reader's part: the touch panel and the display's viewport. */
static void
put_reader(FILE *f, const struct world *w, const struct world_winlist *l)
{
	const struct world_device *d = world_get_device(w);
	const struct world_indev *dev;
	size_t n;

	dev = world_indevs(w, &n);
	fprintf(f, "Input Reader State (Nums of device: 1):\n");
	fprintf(f, "  Device 2: %s\n", n > 0 ? dev[0].name : "touchscreen");
	fprintf(f, "    Touch Input Mapper (mode - DIRECT):\n");
	fprintf(f, "      Raw Touch Axes:\n");
	fprintf(f,
		"        X: min=%" PRId32 ", max=%" PRId32
		", flat=0, fuzz=0, resolution=0\n",
		d->x_min, d->x_max);
	fprintf(f,
		"        Y: min=%" PRId32 ", max=%" PRId32
		", flat=0, fuzz=0, resolution=0\n",
		d->y_min, d->y_max);
	fprintf(f,
		"      Viewport INTERNAL: displayId=0, "
		"uniqueId=local:4619827259835644672, port=129, "
		"orientation=%d, logicalFrame=[0, 0, %" PRId32 ", %" PRId32
		"], physicalFrame=[0, 0, %" PRId32 ", %" PRId32
		"], deviceSize=[%" PRId32 ", %" PRId32 "], isActive=[1]\n\n",
		l->orientation, l->width, l->height, l->width, l->height,
		l->width, l->height);
}

static void
put_block(FILE *f, const struct world *w, const struct world_winlist *l)
{
	const struct world_win *focus =
		l->focus >= 0 ? &l->win[l->focus] : NULL;
	int i;

	fprintf(f, "@ %" PRId64 "\n", l->t_ns);
	fputs("INPUT MANAGER (dumpsys input)\n\n", f);
	put_reader(f, w, l);
	fputs("Input Dispatcher State:\n"
	      "  DispatchEnabled: true\n"
	      "  DispatchFrozen: false\n"
	      "  InputFilterEnabled: false\n"
	      "  FocusedDisplayId: 0\n",
	      f);
	if (focus != NULL && focus->app_name[0] != '\0')
		fprintf(f,
			"  FocusedApplications:\n"
			"    displayId=0, name='%s', "
			"dispatchingTimeout=5000ms\n",
			focus->app_name);
	else
		fputs("  FocusedApplications: <none>\n", f);
	if (focus != NULL)
		fprintf(f,
			"  FocusedWindows:\n"
			"    displayId=0, name='%s'\n"
			"  FocusRequests:\n"
			"    displayId=0, name='%s' result='OK'\n",
			focus->name, focus->name);
	else
		fputs("  FocusedWindows: <none>\n  FocusRequests: <none>\n", f);
	fputs("  Pointer Capture Requested: false\n"
	      "  Current Window with Pointer Capture: None\n"
	      "  TouchStates: <no displays touched>\n"
	      "  Display: 0\n",
	      f);
	fprintf(f, "    logicalSize=%" PRId32 "x%" PRId32 "\n", l->width,
		l->height);
	if (l->orientation == 1)
		fprintf(f,
			"        transform (ROT_270) (ROTATE TRANSLATE)\n"
			"            0.0000  -1.0000  %" PRId32 ".0000\n"
			"            1.0000  0.0000  0.0000\n"
			"            0.0000  0.0000  1.0000\n",
			l->height);
	else
		fputs("        transform (ROT_0) (IDENTITY)\n", f);
	fputs("    Windows:\n", f);
	for (i = 0; i < l->n; i++)
		put_window(f, i, &l->win[i]);
	fputs("  Global monitors on display 0:\n"
	      "    0: 'PointerEventDispatcher0 (server)', \n"
	      "\n",
	      f);
}

static int
close_file(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad) {
		msg_warnx("cannot write '%s'", path);
		return -EIO;
	}
	return 0;
}

int
winlog_out_write(const struct world *w, const char *windows_path,
		 const char *processes_path)
{
	const struct world_winlist *l;
	const struct world_proc *p;
	size_t nl, np, i;
	FILE *f;
	int rc;

	l = world_winlists(w, &nl);
	if (nl == 0)
		return 0;
	f = fopen(windows_path, "w");
	if (f == NULL) {
		rc = -errno;
		msg_warn("cannot create '%s'", windows_path);
		return rc;
	}
	for (i = 0; i < nl; i++)
		put_block(f, w, &l[i]);
	rc = close_file(f, windows_path);
	if (rc < 0)
		return rc;
	f = fopen(processes_path, "w");
	if (f == NULL) {
		rc = -errno;
		msg_warn("cannot create '%s'", processes_path);
		return rc;
	}
	p = world_procs(w, &np);
	for (i = 0; i < np; i++)
		fprintf(f, "%" PRId64 " %" PRId32 " %" PRId32 " %s\n",
			p[i].t_ns, p[i].pid, p[i].uid, p[i].package);
	return close_file(f, processes_path);
}
