#include <errno.h>
#include <linux/input-event-codes.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "rng.h"
#include "scenario.h"
#include "touchgen.h"
#include "winscen.h"

#define MS 1000000LL
#define S  1000000000LL

enum dev {
	DEV_PHONE, /* 1080x2400, 420 dpi, axes in display px */
	DEV_EMU,   /* the emulator: axes 0..32767 */
	DEV_SMALL, /* 720x1600, 320 dpi (himax-touchscreen of sdm670) */
	DEV_2X,	   /* 1080x2400, 440 dpi, axes at twice the resolution */
	DEV_QHD,   /* 1440x3120, 560 dpi */
};

enum special {
	SP_NONE,
	SP_EDGES,      /* hand-placed frames at every boundary */
	SP_CUT,	       /* the trace stops before the input does */
	SP_LATE_START, /* the trace starts after the first gestures */
	SP_LAUNCH,     /* launches, navigations and switches that are neither */
};

/* What an app does after a tap. */
enum reaction {
	R_NONE,	     /* nothing: a tap on nothing */
	R_NORMAL,    /* a burst, maybe paused, maybe a second one later */
	R_BUSY,	     /* already animating before the tap, then a burst */
	R_INTERRUPT, /* a long burst the next touch cuts */
	R_COUNT,
};

/*
 * A scenario.  Zero fields take the defaults of a modern phone (see
 * resolve()): 40 s, 1080x2400 at 120 Hz, Android 13, one app.
 */
struct scen {
	const char *name;
	const char *desc;
	int dur_s;
	enum dev dev;
	int hz, sdk;
	enum touchgen_order order;
	int no_slot_at_start, no_btn, tool;
	int multidev, header;
	int df_after, late_flush, write_period_ms, nseq;
	int napps, switching, launcher;
	int w[WORLD_KIND_COUNT]; /* weights of tap, long press, swipe, multi */
	int r[R_COUNT];		 /* weights of the tap reactions */
	int endless, systemui, suspend;
	enum special special;
	int gap_min_ms, gap_max_ms;
	enum winscen_kind win; /* windows over the app: windows.log */
};

static const struct scen scens[] = {
	{.name = "idle",
	 .desc = "one app, taps with clear reactions",
	 .w = {8, 1, 0, 0},
	 .r = {1, 8, 0, 0}},
	{.name = "busy",
	 .desc = "the app is animating when most taps land",
	 .w = {1, 0, 0, 0},
	 .r = {0, 2, 6, 0}},
	{.name = "mixed",
	 .desc = "long presses, swipes and two-finger gestures among taps",
	 .w = {5, 2, 3, 2},
	 .r = {1, 6, 1, 1}},
	{.name = "two-apps",
	 .desc = "the foreground switches between two apps",
	 .napps = 2,
	 .switching = 1,
	 .w = {6, 1, 1, 0},
	 .r = {1, 6, 1, 0}},
	{.name = "no-response",
	 .desc = "most taps land on nothing",
	 .w = {1, 0, 0, 0},
	 .r = {7, 2, 0, 0}},
	{.name = "endless",
	 .desc = "an endless animation: settle is capped or interrupted",
	 .endless = 1,
	 .w = {6, 1, 0, 0},
	 .r = {1, 4, 0, 0},
	 .gap_min_ms = 1500,
	 .gap_max_ms = 9000,
	 .dur_s = 60},
	{.name = "interrupted",
	 .desc = "taps follow each other before the reaction ends",
	 .w = {1, 0, 0, 0},
	 .r = {1, 2, 0, 6}},
	{.name = "systemui",
	 .desc = "SystemUI presents frames all along (another pid)",
	 .systemui = 1,
	 .w = {6, 1, 1, 0},
	 .r = {2, 6, 1, 0}},
	{.name = "emulator",
	 .desc = "emulator log: axes 0..32767, no ABS_MT_SLOT, no BTN_TOUCH",
	 .dev = DEV_EMU,
	 .hz = 60,
	 .sdk = 34,
	 .order = TOUCHGEN_ORDER_EMULATOR,
	 .no_slot_at_start = 1,
	 .no_btn = 1,
	 .w = {6, 2, 2, 1},
	 .r = {1, 6, 1, 0}},
	{.name = "a12",
	 .desc = "Android 12: FrameTimeline in MONOTONIC",
	 .sdk = 31,
	 .w = {6, 1, 1, 1},
	 .r = {1, 6, 1, 1}},
	{.name = "suspend",
	 .desc = "BOOTTIME trace across a suspend: a second clock snapshot",
	 .suspend = 1,
	 .w = {6, 1, 1, 0},
	 .r = {1, 6, 1, 0},
	 .dur_s = 50},
	{.name = "display-after",
	 .desc = "display frame packets after their surface frames",
	 .df_after = 1,
	 .nseq = 2,
	 .systemui = 1,
	 .w = {6, 1, 1, 0},
	 .r = {1, 6, 1, 1}},
	{.name = "display-before",
	 .desc = "display frames first (SurfaceFlinger's order), Android 16 "
		 "fields",
	 .sdk = 36,
	 .nseq = 2,
	 .systemui = 1,
	 .w = {6, 1, 1, 0},
	 .r = {1, 6, 1, 1}},
	{.name = "late-flush",
	 .desc = "packets written 2-5 s after the present, three sequences",
	 .late_flush = 1,
	 .nseq = 3,
	 .w = {6, 1, 1, 0},
	 .r = {1, 6, 1, 1}},
	{.name = "hz60",
	 .desc = "60 Hz, 720x1600 at 320 dpi, himax event order",
	 .dev = DEV_SMALL,
	 .hz = 60,
	 .order = TOUCHGEN_ORDER_ID_LAST,
	 .no_slot_at_start = 1,
	 .header = 1,
	 .w = {6, 1, 1, 1},
	 .r = {1, 6, 1, 1}},
	{.name = "hz90",
	 .desc = "90 Hz, touch axes at twice the display resolution, A15",
	 .dev = DEV_2X,
	 .hz = 90,
	 .sdk = 35,
	 .tool = 1,
	 .w = {6, 1, 1, 1},
	 .r = {1, 6, 1, 1}},
	{.name = "hz120",
	 .desc = "120 Hz, 1440x3120 at 560 dpi, A14",
	 .dev = DEV_QHD,
	 .sdk = 34,
	 .nseq = 2,
	 .w = {6, 1, 1, 1},
	 .r = {1, 6, 1, 1}},
	{.name = "multi-device",
	 .desc = "getevent of every device: headers, prefixes, volume keys",
	 .multidev = 1,
	 .header = 1,
	 .w = {6, 1, 1, 1},
	 .r = {1, 6, 1, 0}},
	{.name = "edges",
	 .desc = "frames placed exactly on every boundary of the definitions",
	 .special = SP_EDGES,
	 .dur_s = 90},
	{.name = "cut",
	 .desc = "the trace stops before the input: truncated",
	 .special = SP_CUT,
	 .w = {6, 1, 1, 0},
	 .r = {1, 6, 1, 0}},
	{.name = "late-start",
	 .desc = "the trace starts after the first taps: frames_unavailable",
	 .special = SP_LATE_START,
	 .w = {6, 1, 1, 0},
	 .r = {1, 6, 1, 0}},
	{.name = "long",
	 .desc = "a few minutes with several apps and a launcher, everything "
		 "mixed",
	 .dur_s = 240,
	 .napps = 4,
	 .launcher = 1,
	 .systemui = 1,
	 .endless = 2,
	 .nseq = 2,
	 .write_period_ms = 2500,
	 .w = {10, 2, 3, 1},
	 .r = {2, 8, 2, 1},
	 .gap_min_ms = 400,
	 .gap_max_ms = 3500},
	{.name = "launch",
	 .desc = "launcher icons that launch apps, taps that open another "
		 "activity, and switches after the cap or the next touch",
	 .special = SP_LAUNCH,
	 .napps = 3,
	 .launcher = 1,
	 .dur_s = 90},
	{.name = "ime",
	 .desc = "a keyboard over the bottom of the app takes the taps on it",
	 .sdk = 34,
	 .win = WINSCEN_IME,
	 .w = {1, 0, 0, 0},
	 .r = {1, 6, 1, 0}},
	{.name = "shade",
	 .desc = "taps on the notification shade pulled over the app",
	 .sdk = 35,
	 .win = WINSCEN_SHADE,
	 .w = {1, 0, 0, 0},
	 .r = {1, 6, 1, 0}},
	{.name = "split",
	 .desc = "split screen: two apps one above the other, taps on both",
	 .sdk = 35,
	 .napps = 2,
	 .win = WINSCEN_SPLIT,
	 .w = {1, 0, 0, 0},
	 .r = {1, 6, 1, 0}},
	{.name = "rotated",
	 .desc = "the display turned by 90 degrees, a keyboard at its bottom",
	 .sdk = 34,
	 .win = WINSCEN_ROTATED,
	 .w = {1, 0, 0, 0},
	 .r = {1, 6, 1, 0}},
	{.name = "dialog",
	 .desc = "another app's dialog over the app takes the taps on it",
	 .sdk = 35,
	 .win = WINSCEN_DIALOG,
	 .w = {1, 0, 0, 0},
	 .r = {1, 6, 1, 0}},
};

#define NSCENS (sizeof(scens) / sizeof(scens[0]))

static const struct {
	const char *package;
	const char *activity;
	const char *second; /* another activity, for navigations */
} app_pool[] = {
	{"com.example.mail", "com.example.mail.MainActivity",
	 "com.example.mail.ComposeActivity"},
	{"com.example.shop", "com.example.shop.ui.HomeActivity",
	 "com.example.shop.ui.CartActivity"},
	{"org.example.news", "org.example.news.MainActivity",
	 "org.example.news.ArticleActivity$Reader"},
	{"com.android.settings", "com.android.settings.Settings", NULL},
	{"com.example.maps", "com.example.maps.MapsActivity", NULL},
	{"com.example.chat", "com.example.chat.ConversationActivity", NULL},
};

#define LAUNCHER "com.google.android.apps.nexuslauncher"

struct gen {
	const struct scen *sc;
	struct world *w;
	struct rng rng;
	struct touchgen *tg;
	struct render *rd;
	int64_t period, tick_us, t0;
	double slop;
	int app[8], napp;
	int popup[8];  /* each app's PopupWindow layer (menus) */
	int second[8]; /* the launch scenario: each app's second activity */
	int on_second; /* the launch scenario: fg shows its second activity */
	int launcher, bar, shade;
	int fg;
	int64_t t;   /* start of the next gesture (whole microseconds) */
	int64_t end; /* no gesture starts after this */
	int64_t last_up;
	int since_switch;
	int64_t cut_at; /* where the trace is meant to stop */
	int cut_done;
	int suspended;
	int32_t pid_next;
	struct winscen *ws; /* the window scenarios' windows, or NULL */
	int hit;	    /* the layer that owns the last tap's window */
};

static int32_t
new_pid(struct gen *g)
{
	g->pid_next += (int32_t)rng_range(&g->rng, 3, 400);
	return g->pid_next;
}

static int
add_app(struct gen *g, const char *package, const char *layer, int32_t pid)
{
	struct world_app a;

	memset(&a, 0, sizeof(a));
	snprintf(a.package, sizeof(a.package), "%s", package);
	snprintf(a.layer, sizeof(a.layer), "%s", layer);
	a.pid = pid;
	return world_add_app(g->w, &a);
}

static int
add_activity(struct gen *g, const char *package, const char *activity)
{
	char layer[160];

	snprintf(layer, sizeof(layer), "TX - %s/%s#%d", package, activity,
		 (int)rng_range(&g->rng, 0, 1500));
	return add_app(g, package, layer, new_pid(g));
}

static int
set_fg(struct gen *g, int64_t t, int app)
{
	struct world_fg f;

	memset(&f, 0, sizeof(f));
	f.t_ns = t;
	f.app = app;
	g->fg = app;
	g->since_switch = 0;
	return world_add_fg(g->w, &f) < 0 ? -ENOMEM : 0;
}

static void
set_device(struct gen *g)
{
	struct world_device *d = world_device(g->w);

	d->refresh_hz = g->sc->hz;
	d->android_sdk = g->sc->sdk;
	d->width = 1080;
	d->height = 2400;
	d->density_dpi = 420;
	d->x_min = 0;
	d->y_min = 0;
	d->x_max = 1079;
	d->y_max = 2399;
	switch (g->sc->dev) {
	case DEV_PHONE:
		break;
	case DEV_EMU:
		d->x_max = 32767;
		d->y_max = 32767;
		break;
	case DEV_SMALL:
		d->width = 720;
		d->height = 1600;
		d->density_dpi = 320;
		d->x_max = 719;
		d->y_max = 1599;
		break;
	case DEV_2X:
		d->density_dpi = 440;
		d->x_max = 2159;
		d->y_max = 4799;
		break;
	case DEV_QHD:
		d->width = 1440;
		d->height = 3120;
		d->density_dpi = 560;
		d->x_max = 1439;
		d->y_max = 3119;
		break;
	}
}

static int
set_indevs(struct gen *g)
{
	static const struct {
		const char *path, *name;
	} devs[] = {
		{"/dev/input/event2", "fts_ts"},
		{"/dev/input/event1", "gpio-keys"},
		{"/dev/input/event0", "qpnp_pon"},
		{"/dev/input/event5", "sdm670-mtp-snd-card Headset Jack"},
		{"/dev/input/event6", "uinput-fpc"},
	};
	struct world_indev d;
	size_t i, n = g->sc->multidev ? sizeof(devs) / sizeof(devs[0]) : 1;

	for (i = 0; i < n; i++) {
		memset(&d, 0, sizeof(d));
		snprintf(d.path, sizeof(d.path), "%s", devs[i].path);
		snprintf(d.name, sizeof(d.name), "%s", devs[i].name);
		if (g->sc->dev == DEV_EMU && i == 0)
			snprintf(d.path, sizeof(d.path), "/dev/input/event1");
		if (g->sc->dev == DEV_EMU && i == 0)
			snprintf(d.name, sizeof(d.name),
				 "virtio_input_multi_touch_1");
		if (g->sc->dev == DEV_SMALL && i == 0)
			snprintf(d.name, sizeof(d.name), "himax-touchscreen");
		if (world_add_indev(g->w, &d) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Ticks of the panel for a duration. */
static int
ticks(const struct gen *g, int64_t dur_ms)
{
	int64_t n = (dur_ms * 1000 + g->tick_us - 1) / g->tick_us;

	return n < 1 ? 1 : (int)n;
}

static void
random_point(struct gen *g, double *x, double *y, double margin)
{
	const struct world_device *d = world_get_device(g->w);

	*x = rng_real(&g->rng, margin, d->width - margin);
	*y = rng_real(&g->rng, 200, d->height - 200);
}

/* Variants of a gesture. */
enum variant {
	V_PLAIN,
	V_JUST_BEYOND, /* a swipe just beyond the slop */
	V_HOME,	       /* a swipe up from the bottom edge */
	V_SAME_SPOT,   /* a tap where the last one landed, without wobble */
};

/*
 * Plays one gesture from g->t and records what it is meant to be.
 * Sets *down and *up (ns).
 */
static int
gesture(struct gen *g, enum world_kind kind, enum variant var, const char *note,
	int64_t *down, int64_t *up)
{
	const struct world_device *d = world_get_device(g->w);
	struct touchgen_contact c[2];
	struct world_gesture wg;
	int32_t rx, ry;
	int n = 1, rc;
	double len, ang;

	/* A touch-down exactly 5 s after a t_up would tie with the cap. */
	if (llabs(g->t - (g->last_up + 5 * S)) < 10 * MS)
		g->t += 25 * MS;
	memset(c, 0, sizeof(c));
	switch (kind) {
	case WORLD_TAP:
		if (g->ws != NULL && var != V_SAME_SPOT) {
			rc = winscen_point(g->ws, &c[0].x0, &c[0].y0, &g->hit);
			if (rc < 0)
				return rc;
		} else {
			random_point(g, &c[0].x0, &c[0].y0, 60);
		}
		c[0].up_tick = ticks(g, rng_range(&g->rng, 45, 285));
		if (var == V_SAME_SPOT) {
			/*
			 * The same raw position again: the input core sends
			 * no ABS_MT_POSITION_X/Y for the new contact.  A
			 * quarter of a raw unit in, so it maps back exactly.
			 */
			touchgen_last_raw(g->tg, &rx, &ry);
			c[0].x0 = (rx - d->x_min + 0.25) * d->width /
				  ((double)d->x_max - d->x_min + 1);
			c[0].y0 = (ry - d->y_min + 0.25) * d->height /
				  ((double)d->y_max - d->y_min + 1);
			c[0].up_tick = ticks(g, rng_range(&g->rng, 45, 120));
		} else if (g->sc->order != TOUCHGEN_ORDER_EMULATOR ||
			   rng_chance(&g->rng, 0.5)) {
			c[0].wobble = 0.25 * g->slop;
		}
		if (var != V_SAME_SPOT && rng_chance(&g->rng, 0.2))
			c[0].wobble = 0;
		break;
	case WORLD_LONG_PRESS:
		random_point(g, &c[0].x0, &c[0].y0, 60);
		c[0].up_tick = ticks(g, rng_range(&g->rng, 460, 1500));
		c[0].wobble = 0.2 * g->slop;
		break;
	case WORLD_SWIPE:
		c[0].up_tick = ticks(g, rng_range(&g->rng, 110, 340));
		if (c[0].up_tick < 4)
			c[0].up_tick = 4;
		c[0].move_ticks = c[0].up_tick - 1;
		if (var == V_JUST_BEYOND) {
			len = rng_real(&g->rng, 1.25, 1.45) * g->slop;
			ang = rng_real(&g->rng, 0, 6.283185307179586);
			random_point(g, &c[0].x0, &c[0].y0, 100);
			c[0].dx = len * __builtin_cos(ang);
			c[0].dy = len * __builtin_sin(ang);
		} else if (var == V_HOME) {
			c[0].x0 = rng_real(&g->rng, d->width * 0.3,
					   d->width * 0.7);
			c[0].y0 = d->height - rng_real(&g->rng, 2, 20);
			c[0].dx = rng_real(&g->rng, -40, 40);
			c[0].dy = -rng_real(&g->rng, 500, d->height * 0.5);
		} else {
			/* Mostly vertical scrolls, some horizontal pages. */
			c[0].x0 = rng_real(&g->rng, d->width * 0.2,
					   d->width * 0.8);
			if (rng_chance(&g->rng, 0.75)) {
				c[0].y0 = rng_real(&g->rng, d->height * 0.3,
						   d->height * 0.7);
				c[0].dx = rng_real(&g->rng, -60, 60);
				c[0].dy = rng_real(&g->rng, 100,
						   d->height * 0.25);
				if (rng_chance(&g->rng, 0.5))
					c[0].dy = -c[0].dy;
			} else {
				c[0].y0 =
					rng_real(&g->rng, 400, d->height - 400);
				c[0].dx =
					rng_real(&g->rng, 100, d->width * 0.15);
				if (c[0].x0 + c[0].dx > d->width - 20)
					c[0].dx = -c[0].dx;
				c[0].dy = rng_real(&g->rng, -30, 30);
			}
			c[0].wobble = 1.0;
		}
		break;
	case WORLD_MULTI:
		n = 2;
		c[0].x0 = rng_real(&g->rng, d->width * 0.3, d->width * 0.45);
		c[0].y0 = rng_real(&g->rng, d->height * 0.35, d->height * 0.5);
		c[1].x0 = rng_real(&g->rng, d->width * 0.55, d->width * 0.7);
		c[1].y0 = rng_real(&g->rng, d->height * 0.5, d->height * 0.65);
		c[0].up_tick = ticks(g, rng_range(&g->rng, 250, 900));
		if (c[0].up_tick < 8)
			c[0].up_tick = 8;
		c[1].down_tick = (int)rng_range(&g->rng, 1, 4);
		c[1].up_tick = (int)rng_range(&g->rng, c[0].up_tick - 3,
					      c[0].up_tick + 3);
		c[0].move_ticks = c[0].up_tick - 1;
		c[1].move_ticks = c[1].up_tick - c[1].down_tick - 1;
		len = rng_real(&g->rng, 40, 200);
		if (rng_chance(&g->rng, 0.5))
			len = -len;
		c[0].dx = -len * 0.7;
		c[0].dy = -len * 0.7;
		c[1].dx = len * 0.7;
		c[1].dy = len * 0.7;
		c[0].wobble = 1.0;
		c[1].wobble = 1.0;
		break;
	}
	rc = touchgen_gesture(g->tg, g->t / 1000, c, n, down, up);
	if (rc < 0)
		return rc;
	memset(&wg, 0, sizeof(wg));
	wg.kind = kind;
	wg.t_down_ns = *down;
	wg.t_up_ns = *up;
	snprintf(wg.note, sizeof(wg.note), "%s", note);
	if (world_add_gesture(g->w, &wg) < 0)
		return -ENOMEM;
	g->last_up = *up;
	g->since_switch++;
	return 0;
}

/* Frames every vsync from t for dur_ns (at least one). */
static int
animate(struct gen *g, int app, int64_t t, int64_t dur_ns, int step)
{
	int64_t n = dur_ns / (g->period * step) + 1;

	return render_frames(g->rd, app, t, (int)n, step) < 0 ? -ENOMEM : 0;
}

/* A burst after a tap, as most apps draw one. */
static int
react_normal(struct gen *g, int app, int64_t up)
{
	int64_t t = up + rng_range(&g->rng, 10, 120) * MS, last;
	int n = (int)rng_range(&g->rng, 3, 40), n1;

	if (rng_chance(&g->rng, 0.12)) {
		if (render_drop(g->rd, app, t) < 0)
			return -ENOMEM;
		t += g->period;
	}
	if (n >= 6 && rng_chance(&g->rng, 0.3)) {
		/* A short pause inside the burst (less than the quiet gap). */
		n1 = (int)rng_range(&g->rng, 2, n - 3);
		last = render_frames(g->rd, app, t, n1, 1);
		if (last < 0)
			return -ENOMEM;
		t = last + rng_range(&g->rng, 30, 200) * MS;
		n -= n1;
	}
	last = render_frames(g->rd, app, t, n, 1);
	if (last < 0)
		return -ENOMEM;
	if (rng_chance(&g->rng, 0.25)) {
		/* Content that arrives later: a second burst after a gap. */
		t = last + rng_range(&g->rng, 450, 1500) * MS;
		if (render_frames(g->rd, app, t, (int)rng_range(&g->rng, 2, 20),
				  1) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int
react_tap(struct gen *g, enum reaction r, int app, int64_t down, int64_t up)
{
	int64_t from, to;
	int rc;

	switch (r) {
	case R_NONE:
		return 0;
	case R_NORMAL:
		return react_normal(g, app, up);
	case R_BUSY:
		/* Still animating from before; it may stop just before. */
		from = down - rng_range(&g->rng, 150, 700) * MS;
		to = up + rng_range(&g->rng, -180, 150) * MS;
		if (to < from)
			to = from;
		rc = animate(g, app, from, to - from, 1);
		if (rc == 0 && rng_chance(&g->rng, 0.8))
			rc = react_normal(g, app, up);
		return rc;
	case R_INTERRUPT:
		return render_frames(g->rd, app,
				     up + rng_range(&g->rng, 10, 60) * MS,
				     (int)rng_range(&g->rng, 60, 160), 1) < 0
			       ? -ENOMEM
			       : 0;
	case R_COUNT:
		break;
	}
	return 0;
}

/* Next gesture start after up: never a tie with the 5 s cap. */
static void
next_start(struct gen *g, int64_t up, int64_t gap_ms)
{
	int64_t t = up + gap_ms * MS;

	if (llabs(t - (up + 5 * S)) < 10 * MS)
		t += 25 * MS;
	g->t = t / 1000 * 1000;
}

static int
switch_to(struct gen *g, int64_t t, int app)
{
	int old = g->fg, rc;

	rc = set_fg(g, t, app);
	if (rc == 0)
		rc = animate(g, app, t + rng_range(&g->rng, 15, 60) * MS,
			     rng_range(&g->rng, 200, 450) * MS, 1);
	if (rc == 0 && old >= 0 && old != app)
		rc = animate(g, old, t, rng_range(&g->rng, 40, 120) * MS, 1);
	return rc;
}

/* Home, then an icon on the launcher, then the app it opens. */
static int
launch_via_home(struct gen *g)
{
	int64_t down, up, t;
	int rc, target;

	rc = gesture(g, WORLD_SWIPE, V_HOME, "home", &down, &up);
	if (rc == 0)
		rc = animate(g, g->fg, down + 20 * MS, up - down, 1);
	if (rc < 0)
		return rc;
	t = up + rng_range(&g->rng, 120, 250) * MS;
	rc = switch_to(g, t, g->launcher);
	if (rc < 0)
		return rc;
	next_start(g, up, rng_range(&g->rng, 700, 1800));
	rc = gesture(g, WORLD_TAP, V_PLAIN, "launcher-icon", &down, &up);
	if (rc == 0)
		rc = render_frames(g->rd, g->launcher,
				   up + rng_range(&g->rng, 8, 40) * MS,
				   (int)rng_range(&g->rng, 8, 20), 1) < 0
			     ? -ENOMEM
			     : 0;
	if (rc < 0)
		return rc;
	do
		target = g->app[rng_range(&g->rng, 0, g->napp - 1)];
	while (g->napp > 1 && target == g->fg);
	t = up + rng_range(&g->rng, 60, 150) * MS;
	rc = switch_to(g, t, target);
	next_start(g, up, rng_range(&g->rng, 900, 2500));
	return rc;
}

static int
maybe_switch(struct gen *g)
{
	int target, rc;

	if (g->sc->launcher && g->since_switch >= 4 &&
	    rng_chance(&g->rng, 0.15))
		return launch_via_home(g);
	if (!g->sc->switching || g->since_switch < 3 ||
	    !rng_chance(&g->rng, 0.3))
		return 0;
	do
		target = g->app[rng_range(&g->rng, 0, g->napp - 1)];
	while (target == g->fg);
	rc = switch_to(g, g->t, target);
	g->t += rng_range(&g->rng, 500, 1500) * MS;
	return rc;
}

static int
do_suspend(struct gen *g)
{
	struct world_format *fmt = world_format(g->w);
	struct world_snapshot s;
	int64_t p = g->t + 1 * S;
	int rc;

	/*
	 * Nothing is drawn around the suspend, so no frame is presented
	 * before it and written after it.
	 */
	rc = render_blackout(g->rd, p - 300 * MS, p + 150 * MS);
	if (rc < 0)
		return rc;
	fmt->suspend_at_ns = p;
	fmt->suspend_len_ns =
		rng_range(&g->rng, 30, 7200) * S + rng_range(&g->rng, 0, S - 1);
	s.mono_ns = p + 1 * MS;
	s.boot_ns = world_boottime(g->w, s.mono_ns);
	s.emit_ns = s.mono_ns;
	if (world_add_snapshot(g->w, &s) < 0)
		return -ENOMEM;
	g->suspended = 1;
	g->t = (p + rng_range(&g->rng, 800, 1500) * MS) / 1000 * 1000;
	return 0;
}

static int
maybe_key(struct gen *g, int64_t up)
{
	if (!g->sc->multidev || !rng_chance(&g->rng, 0.35))
		return 0;
	return touchgen_key(g->tg, 1,
			    rng_chance(&g->rng, 0.5) ? KEY_VOLUMEDOWN
						     : KEY_VOLUMEUP,
			    (up + rng_range(&g->rng, 50, 900) * MS) / 1000,
			    rng_range(&g->rng, 70000, 220000));
}

/* The menu layer of an app, or the app itself when it has none. */
static int
popup_of(const struct gen *g, int app)
{
	int i;

	for (i = 0; i < g->napp; i++)
		if (g->app[i] == app)
			return g->popup[i];
	return app;
}

/* One interaction with the foreground app. */
static int
interact(struct gen *g)
{
	const struct scen *sc = g->sc;
	enum world_kind kind;
	enum reaction r = R_NONE;
	int64_t down, up, gap, t;
	int app = g->fg, rc, just, n;

	kind = (enum world_kind)rng_pick(&g->rng, sc->w, WORLD_KIND_COUNT);
	gap = rng_range(&g->rng, sc->gap_min_ms, sc->gap_max_ms);
	switch (kind) {
	case WORLD_TAP:
		r = (enum reaction)rng_pick(&g->rng, sc->r, R_COUNT);
		rc = gesture(g, kind, V_PLAIN,
			     r == R_NONE     ? "none"
			     : r == R_NORMAL ? "burst"
			     : r == R_BUSY   ? "busy"
					     : "long-burst",
			     &down, &up);
		if (g->ws != NULL)
			app = g->hit;
		if (rc == 0)
			rc = react_tap(g, r, app, down, up);
		if (r == R_INTERRUPT) {
			gap = rng_range(&g->rng, 120, 400);
		} else if (rc == 0 && rng_chance(&g->rng, 0.1)) {
			/* A double tap: the second lands on the same spot. */
			next_start(g, up, rng_range(&g->rng, 60, 250));
			rc = gesture(g, kind, V_SAME_SPOT, "double-tap", &down,
				     &up);
			if (rc == 0)
				rc = react_normal(g, app, up);
		}
		break;
	case WORLD_LONG_PRESS:
		rc = gesture(g, kind, V_PLAIN, "menu", &down, &up);
		/*
		 * The menu opens at the timeout, while the finger is down, in
		 * a layer of its own; the app's window dims with it, and both
		 * may animate again after the finger lifts.
		 */
		t = down + rng_range(&g->rng, 405, 430) * MS;
		n = (int)rng_range(&g->rng, 6, 25);
		if (rc == 0 &&
		    render_frames(g->rd, popup_of(g, app), t, n, 1) < 0)
			rc = -ENOMEM;
		if (rc == 0 && render_frames(g->rd, app, t, n, 1) < 0)
			rc = -ENOMEM;
		t = up + rng_range(&g->rng, 10, 80) * MS;
		n = (int)rng_range(&g->rng, 3, 15);
		if (rc == 0 && rng_chance(&g->rng, 0.4) &&
		    render_frames(g->rd, popup_of(g, app), t, n, 1) < 0)
			rc = -ENOMEM;
		if (rc == 0 && rng_chance(&g->rng, 0.5))
			rc = react_normal(g, app, up);
		break;
	case WORLD_SWIPE:
		just = rng_chance(&g->rng, 0.25);
		rc = gesture(g, kind, just ? V_JUST_BEYOND : V_PLAIN,
			     just ? "just-beyond-slop" : "scroll", &down, &up);
		/* Scrolling follows the finger, then a fling settles. */
		if (rc == 0)
			rc = animate(
				g, app, down + rng_range(&g->rng, 10, 30) * MS,
				up - down + rng_range(&g->rng, 100, 900) * MS,
				1);
		break;
	case WORLD_MULTI:
		rc = gesture(g, kind, V_PLAIN, "pinch", &down, &up);
		if (rc == 0)
			rc = animate(g, app, down + 50 * MS,
				     up - down +
					     rng_range(&g->rng, 50, 300) * MS,
				     1);
		break;
	default:
		return -EINVAL;
	}
	if (rc == 0)
		rc = maybe_key(g, up);
	next_start(g, up, gap);
	return rc;
}

/* Gestures before the trace starts: their frames are not recorded. */
static int
pre_trace(struct gen *g)
{
	int64_t down, up;
	int i, rc;

	g->t = (g->t0 - 9 * S) / 1000 * 1000;
	for (i = 0; i < 5; i++) {
		rc = gesture(g, i == 2 ? WORLD_SWIPE : WORLD_TAP, V_PLAIN,
			     "before-trace", &down, &up);
		if (rc < 0)
			return rc;
		next_start(g, up, rng_range(&g->rng, 900, 1400));
		if (g->t > g->t0 - 2 * S)
			break;
	}
	g->t = (g->t0 + rng_range(&g->rng, 1200, 2000) * MS) / 1000 * 1000;
	return 0;
}

/*
 * The cut scenario's tap whose window is open when the trace stops: it is
 * truncated, with what the frames seen before the cut show.  Its window
 * ends well after the cut, and every earlier one well before.
 */
static int
straddle_cut(struct gen *g)
{
	int64_t down, up, t = g->cut_at - rng_range(&g->rng, 3200, 3400) * MS;
	int rc;

	if (t > g->t)
		g->t = t / 1000 * 1000;
	rc = gesture(g, WORLD_TAP, V_PLAIN, "straddles-cut", &down, &up);
	if (rc == 0)
		rc = react_normal(g, g->fg, up);
	g->t = (g->cut_at + rng_range(&g->rng, 2000, 3000) * MS) / 1000 * 1000;
	g->cut_done = 1;
	return rc;
}

/*
 * Between gestures, the windows may change: the owner animates the change
 * and the next gesture waits until it is over.
 */
static int
win_change(struct gen *g)
{
	int anim, rc;

	rc = winscen_step(g->ws, g->t, &anim);
	if (rc <= 0)
		return rc;
	if (anim >= 0) {
		rc = animate(g, anim, g->t + rng_range(&g->rng, 5, 20) * MS,
			     rng_range(&g->rng, 150, 350) * MS, 1);
		if (rc < 0)
			return rc;
	}
	g->t += rng_range(&g->rng, 700, 1200) * MS;
	return 0;
}

static int
run_generic(struct gen *g)
{
	const struct scen *sc = g->sc;
	int64_t endless_from = 0, endless_to = 0, up;
	int rc;

	if (sc->endless == 1) {
		endless_from = g->t0 + (g->end - g->t0) * 2 / 10;
		endless_to = g->t0 + (g->end - g->t0) * 9 / 10;
		rc = animate(g, g->fg, endless_from, endless_to - endless_from,
			     sc->hz >= 90 ? 2 : 1);
		if (rc < 0)
			return rc;
	}
	while (g->t < g->end) {
		if (sc->special == SP_CUT && !g->cut_done &&
		    g->t >= g->cut_at - 6 * S) {
			rc = straddle_cut(g);
			if (rc < 0)
				return rc;
		}
		if (sc->suspend && !g->suspended &&
		    g->t > g->t0 + (g->end - g->t0) / 2) {
			rc = do_suspend(g);
			if (rc < 0)
				return rc;
		}
		rc = maybe_switch(g);
		if (rc == 0 && g->ws != NULL)
			rc = win_change(g);
		if (rc < 0)
			return rc;
		if (g->t >= g->end)
			break;
		rc = interact(g);
		if (rc < 0)
			return rc;
		up = g->last_up;
		if (sc->endless == 2 && rng_chance(&g->rng, 0.04)) {
			/* A spinner that runs a while: waiting on the net. */
			rc = animate(g, g->fg, up + 30 * MS,
				     rng_range(&g->rng, 3000, 12000) * MS, 2);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* The launch scenario: the foreground, with its activity, from t on. */
static int
fg_activity(struct gen *g, int64_t t, int app, const char *activity)
{
	struct world_fg f;

	memset(&f, 0, sizeof(f));
	f.t_ns = t;
	f.app = app;
	snprintf(f.activity, sizeof(f.activity), "%s", activity);
	g->fg = app;
	return world_add_fg(g->w, &f) < 0 ? -ENOMEM : 0;
}

/* The index of app among the scenario's apps, or -1 (the launcher). */
static int
app_slot(const struct gen *g, int app)
{
	int i;

	for (i = 0; i < g->napp; i++)
		if (g->app[i] == app || g->second[i] == app)
			return i;
	return -1;
}

/* Home: a swipe from the bottom edge, then the launcher in front. */
static int
go_home(struct gen *g)
{
	int64_t down, up;
	int rc;

	rc = gesture(g, WORLD_SWIPE, V_HOME, "home", &down, &up);
	if (rc == 0)
		rc = animate(g, g->fg, down + 20 * MS, up - down, 1);
	if (rc == 0)
		rc = fg_activity(g, up + rng_range(&g->rng, 120, 250) * MS,
				 g->launcher,
				 LAUNCHER ".NexusLauncherActivity");
	if (rc == 0)
		rc = animate(g, g->launcher, up + 150 * MS, 300 * MS, 1);
	next_start(g, up, rng_range(&g->rng, 900, 1500));
	return rc;
}

/* A tap on a launcher icon; the icon's own animation follows. */
static int
icon_tap(struct gen *g, const char *note, int64_t *up)
{
	int64_t down;
	int rc;

	if (g->fg != g->launcher && (rc = go_home(g)) < 0)
		return rc;
	rc = gesture(g, WORLD_TAP, V_PLAIN, note, &down, up);
	if (rc == 0 && render_frames(g->rd, g->launcher,
				     *up + rng_range(&g->rng, 8, 40) * MS,
				     (int)rng_range(&g->rng, 8, 20), 1) < 0)
		rc = -ENOMEM;
	return rc;
}

/* The app at slot i comes to the front at t and draws its first frames. */
static int
app_starts(struct gen *g, int64_t t, int i)
{
	int64_t f;
	int rc;

	rc = fg_activity(g, t, g->app[i], app_pool[i].activity);
	g->on_second = 0;
	f = t + rng_range(&g->rng, 90, 400) * MS;
	if (rc == 0 && render_frames(g->rd, g->app[i], f,
				     (int)rng_range(&g->rng, 5, 30), 1) < 0)
		rc = -ENOMEM;
	/* Content that arrives later, after a gap: out of the burst. */
	if (rc == 0 && rng_chance(&g->rng, 0.4) &&
	    render_frames(g->rd, g->app[i],
			  f + rng_range(&g->rng, 900, 2000) * MS,
			  (int)rng_range(&g->rng, 2, 10), 1) < 0)
		rc = -ENOMEM;
	return rc;
}

/*
 * The launch scenario: each round one of a launch from the launcher, a
 * navigation to the other activity of the app in front, a tap that
 * switches nothing, a launch whose switch comes only after the next
 * touch-down, and one whose switch comes after the launch cap.
 */
static int
run_launch(struct gen *g)
{
	static const int weights[] = {3, 2, 2, 1, 1};
	int64_t down, up, t;
	int rc = 0, i, what;
	size_t n;

	for (i = 0; i < g->napp; i++) {
		char layer[160];

		snprintf(layer, sizeof(layer), "TX - %s/%s#%d",
			 app_pool[i].package, app_pool[i].second,
			 (int)rng_range(&g->rng, 0, 1500));
		/* Another activity of the same process. */
		g->second[i] = add_app(g, app_pool[i].package, layer,
				       world_apps(g->w, &n)[g->app[i]].pid);
		if (g->second[i] < 0)
			return -ENOMEM;
	}
	rc = fg_activity(g, g->t - 500 * MS, g->app[0], app_pool[0].activity);
	while (rc == 0 && g->t < g->end - 15 * S) {
		what = (int)rng_pick(&g->rng, weights, 5);
		i = app_slot(g, g->fg);
		if (what == 1 && i < 0)
			what = 0;
		switch (what) {
		case 0: /* a launcher icon that launches an app */
			rc = icon_tap(g, "launch", &up);
			i = (int)rng_range(&g->rng, 0, g->napp - 1);
			if (rc == 0)
				rc = app_starts(
					g,
					up + rng_range(&g->rng, 60, 150) * MS,
					i);
			next_start(g, up, rng_range(&g->rng, 1800, 3500));
			break;
		case 1: /* another activity of the app in front */
			rc = gesture(g, WORLD_TAP, V_PLAIN, "navigate", &down,
				     &up);
			t = up + rng_range(&g->rng, 40, 150) * MS;
			g->on_second = !g->on_second;
			if (rc == 0)
				rc = fg_activity(
					g, t,
					g->on_second ? g->second[i] : g->app[i],
					g->on_second ? app_pool[i].second
						     : app_pool[i].activity);
			if (rc == 0 &&
			    render_frames(
				    g->rd,
				    g->on_second ? g->second[i] : g->app[i],
				    up + rng_range(&g->rng, 10, 60) * MS,
				    (int)rng_range(&g->rng, 5, 25), 1) < 0)
				rc = -ENOMEM;
			next_start(g, up, rng_range(&g->rng, 1200, 2500));
			break;
		case 2: /* a control: a reaction, no switch */
			rc = gesture(g, WORLD_TAP, V_PLAIN, "control", &down,
				     &up);
			if (rc == 0)
				rc = react_normal(g, g->fg, up);
			next_start(g, up, rng_range(&g->rng, 1200, 2500));
			break;
		case 3: /* the switch comes after the next touch-down */
			rc = icon_tap(g, "slow-launch", &up);
			next_start(g, up, rng_range(&g->rng, 600, 1200));
			if (rc == 0)
				rc = gesture(g, WORLD_TAP, V_PLAIN,
					     "after-slow-launch", &down, &up);
			i = (int)rng_range(&g->rng, 0, g->napp - 1);
			if (rc == 0)
				rc = app_starts(
					g,
					up + rng_range(&g->rng, 50, 300) * MS,
					i);
			next_start(g, up, rng_range(&g->rng, 1800, 3500));
			break;
		default: /* the switch comes after the launch cap */
			rc = icon_tap(g, "late-launch", &up);
			t = up + 10 * S + rng_range(&g->rng, 200, 900) * MS;
			i = (int)rng_range(&g->rng, 0, g->napp - 1);
			if (rc == 0)
				rc = app_starts(g, t, i);
			next_start(g, t - 1000 * MS,
				   rng_range(&g->rng, 2200, 3500));
			break;
		}
	}
	return rc;
}

/*
 * Hand-placed frames on each boundary of the definitions, each case a tap
 * of its own far from the others.
 */
static int
place(struct gen *g, int64_t start, int64_t present)
{
	return render_explicit(g->rd, g->fg, start, present, WORLD_JANK_NONE);
}

static int
edge_tap(struct gen *g, const char *note, int64_t *down, int64_t *up)
{
	int rc = gesture(g, WORLD_TAP, V_PLAIN, note, down, up);

	next_start(g, *up, 6500 + rng_range(&g->rng, 0, 1000));
	return rc;
}

static int
run_edges(struct gen *g)
{
	int64_t d, u, d2, u2, p, q;
	int rc = 0, m;

	/*
	 * rc gathers the results with |: errors are negative, so it ends
	 * negative if any step failed, and the script stays readable.
	 */

	/* A frame that starts exactly at t_up is a response. */
	rc |= edge_tap(g, "start-at-t_up", &d, &u);
	rc |= place(g, u, u + 21 * MS + 1234);
	rc |= place(g, u + 8 * MS, u + 29 * MS + 17);
	rc |= place(g, u + 16 * MS, u + 38 * MS + 999);
	/* One started a nanosecond before is in flight: not a response. */
	rc |= edge_tap(g, "start-1ns-before", &d, &u);
	rc |= place(g, u - 1, u + 12 * MS + 345);
	rc |= place(g, u + 16 * MS, u + 33 * MS + 6);
	rc |= place(g, u + 25 * MS, u + 42 * MS + 789);
	/* busy_before: presented exactly 100 ms before t_up counts. */
	rc |= edge_tap(g, "busy-exact", &d, &u);
	rc |= place(g, u - 130 * MS, u - 100 * MS);
	rc |= place(g, u + 40 * MS, u + 61 * MS + 4321);
	rc |= place(g, u + 48 * MS, u + 70 * MS + 1);
	/* ... one nanosecond earlier does not, nor a present at t_up. */
	rc |= edge_tap(g, "not-busy", &d, &u);
	rc |= place(g, u - 130 * MS, u - 100 * MS - 1);
	rc |= place(g, u - 5 * MS, u);
	rc |= place(g, u + 30 * MS, u + 52 * MS + 77);
	/* A gap of exactly 300 ms stays in the burst, 300 ms + 1 ns not. */
	rc |= edge_tap(g, "gap-300ms", &d, &u);
	p = u + 30 * MS + 555;
	rc |= place(g, u + 10 * MS, p);
	rc |= place(g, p + 280 * MS, p + 300 * MS);
	rc |= place(g, p + 580 * MS + 1, p + 600 * MS + 1);
	rc |= edge_tap(g, "gap-300ms-plus", &d, &u);
	p = u + 30 * MS + 555;
	rc |= place(g, u + 10 * MS, p);
	rc |= place(g, p + 280 * MS + 1, p + 300 * MS + 1);
	/*
	 * The next touch-down ends the window: a frame starting 1 ns before
	 * it is a response (and the burst is interrupted), one starting at
	 * it is not, and is no response of the next tap either.
	 */
	rc |= gesture(g, WORLD_TAP, V_PLAIN, "next-down-edge", &d, &u);
	next_start(g, u, rng_range(&g->rng, 150, 220));
	rc |= gesture(g, WORLD_TAP, V_PLAIN, "after-next-down", &d2, &u2);
	next_start(g, u2, 7000);
	rc |= place(g, u + 15 * MS, u + 35 * MS + 3);
	rc |= place(g, d2 - 1, d2 + 15 * MS + 11);
	rc |= place(g, d2, d2 + 30 * MS + 22);
	rc |= place(g, u2 + 20 * MS, u2 + 41 * MS + 9);
	/*
	 * The cap: the last response frame presented 300 ms before the
	 * window's end is not capped; one presented 1 ns later is.  A frame
	 * starting exactly at t_up + 5 s is outside the window.
	 */
	rc |= edge_tap(g, "cap-not-reached", &d, &u);
	q = u + 4700 * MS;
	for (m = 18; m >= 0; m--)
		rc |= place(g, q - m * 250 * MS - 20 * MS, q - m * 250 * MS);
	rc |= place(g, u + 5 * S, u + 5 * S + 20 * MS);
	rc |= edge_tap(g, "cap-reached-1ns", &d, &u);
	q = u + 4700 * MS + 1;
	for (m = 18; m >= 0; m--)
		rc |= place(g, q - m * 250 * MS - 20 * MS, q - m * 250 * MS);
	/* The last frame starts 1 ns before the cap and is a response. */
	rc |= edge_tap(g, "cap-last-start", &d, &u);
	for (m = 0; m < 25; m++)
		rc |= place(g, u + 5 * S - 1 - m * 200 * MS,
			    u + 5 * S - 1 - m * 200 * MS + 18 * MS);
	rc |= place(g, u + 5 * S, u + 5 * S + 18 * MS);
	/* No frame at all. */
	rc |= edge_tap(g, "nothing", &d, &u);
	/* Long press: the menu before t_up does not count. */
	rc |= gesture(g, WORLD_LONG_PRESS, V_PLAIN, "menu-before-up", &d, &u);
	next_start(g, u, 6500);
	rc |= place(g, d + 410 * MS, d + 430 * MS);
	rc |= place(g, u - 2 * MS, u + 15 * MS);
	rc |= place(g, u + 30 * MS, u + 50 * MS + 5);
	return rc < 0 ? -EINVAL : 0;
}

static const struct scen *
find(const char *name)
{
	size_t i;

	for (i = 0; i < NSCENS; i++)
		if (strcmp(scens[i].name, name) == 0)
			return &scens[i];
	return NULL;
}

void
scenario_list(FILE *out, int describe, int which)
{
	size_t i;

	for (i = 0; i < NSCENS; i++) {
		if ((which > 0 && scens[i].win == WINSCEN_NONE) ||
		    (which < 0 && scens[i].win != WINSCEN_NONE))
			continue;
		if (describe)
			fprintf(out, "%-15s %s\n", scens[i].name,
				scens[i].desc);
		else
			fprintf(out, "%s\n", scens[i].name);
	}
}

int
scenario_exists(const char *name)
{
	return find(name) != NULL;
}

/* The windows of a window scenario, listed from before the trace. */
static int
win_setup(struct gen *g)
{
	struct winscen_env env;

	memset(&env, 0, sizeof(env));
	env.w = g->w;
	env.rng = &g->rng;
	env.pid_next = &g->pid_next;
	env.app[0] = g->app[0];
	env.app[1] = g->napp > 1 ? g->app[1] : -1;
	env.activity[0] = app_pool[0].activity;
	env.activity[1] = app_pool[1].activity;
	env.bar = g->bar;
	env.launcher = g->launcher;
	return winscen_new(g->sc->win, &env, g->t0 - 2 * S, &g->ws);
}

static int
setup(struct gen *g, int dur_s)
{
	const struct scen *sc = g->sc;
	struct world_format *fmt = world_format(g->w);
	struct touchgen_style ts;
	struct render_config rc;
	struct world_snapshot snap;
	char layer[160];
	int i, idx;

	set_device(g);
	g->slop = world_slop_px(g->w);
	g->period = 1000000000LL / sc->hz;
	g->tick_us = sc->order == TOUCHGEN_ORDER_EMULATOR ? 16000 : 8333;
	g->t0 = rng_range(&g->rng, 3000, 90000) * S +
		rng_range(&g->rng, 0, S - 1);
	g->pid_next = (int32_t)rng_range(&g->rng, 900, 3000);

	fmt->clock_id =
		sc->sdk >= 33 ? WORLD_CLOCK_BOOTTIME : WORLD_CLOCK_MONOTONIC;
	fmt->df_after = sc->df_after;
	fmt->boot_offset_ns = rng_range(&g->rng, 5, 200000) * S +
			      rng_range(&g->rng, 0, S - 1);
	fmt->write_period_ns = sc->write_period_ms * MS;
	fmt->trace_start_ns = g->t0;
	fmt->sf_pid = (uint32_t)rng_range(&g->rng, 400, 700);
	fmt->prefix = sc->multidev;
	fmt->header = sc->header;
	if (set_indevs(g) < 0)
		return -ENOMEM;
	/* The service's first clock snapshot opens the trace. */
	snap.mono_ns = g->t0;
	snap.boot_ns = world_boottime(g->w, g->t0);
	snap.emit_ns = g->t0;
	if (world_add_snapshot(g->w, &snap) < 0)
		return -ENOMEM;

	/* Apps: the ones tapped, a launcher, SystemUI's two layers. */
	g->napp = sc->napps;
	for (i = 0; i < g->napp; i++) {
		idx = add_activity(g, app_pool[i].package,
				   app_pool[i].activity);
		if (idx < 0)
			return idx;
		g->app[i] = idx;
		/* A second layer of the same process, for context menus. */
		snprintf(layer, sizeof(layer), "TX - PopupWindow:%x#0",
			 (unsigned)rng_range(&g->rng, 0x1000000, 0xfffffff));
		idx = add_app(g, app_pool[i].package, layer, g->pid_next);
		if (idx < 0)
			return idx;
		g->popup[i] = idx;
	}
	g->launcher =
		add_activity(g, LAUNCHER, LAUNCHER ".NexusLauncherActivity");
	g->bar = add_app(g, "com.android.systemui", "TX - StatusBar#0",
			 new_pid(g));
	if (g->launcher < 0 || g->bar < 0)
		return -ENOMEM;
	g->shade = add_app(g, "com.android.systemui",
			   "TX - NotificationShade#0", g->pid_next);
	if (g->shade < 0)
		return -ENOMEM;

	g->end = g->t0 + (int64_t)dur_s * S;
	fmt->duration_s = dur_s;
	g->cut_at = g->t0 + (g->end - g->t0) * 55 / 100;
	g->t = (g->t0 + rng_range(&g->rng, 1500, 2500) * MS) / 1000 * 1000;

	memset(&ts, 0, sizeof(ts));
	ts.order = sc->order;
	ts.slot_at_start = !sc->no_slot_at_start;
	ts.btn_touch = !sc->no_btn;
	ts.tool_keys = sc->tool;
	ts.period_us = g->tick_us;
	ts.first_tracking_id = sc->order == TOUCHGEN_ORDER_EMULATOR
				       ? 0
				       : (int32_t)rng_range(&g->rng, 20, 4000);
	if (touchgen_new(g->w, &ts, rng_next(&g->rng), &g->tg) < 0)
		return -ENOMEM;

	memset(&rc, 0, sizeof(rc));
	rc.hz = sc->hz;
	rc.actual_start = sc->sdk >= 33;
	rc.vsync0_ns = g->t0 - rng_range(&g->rng, 0, g->period);
	rc.end_ns = g->end + 40 * S;
	rc.p_jank = 0.05;
	rc.expected = 1;
	rc.dfonly_per_s = sc->sdk <= 33 ? 0.3 : 0;
	rc.token0_per_s = sc->sdk >= 34 ? 0.4 : 0;
	if (sc->late_flush) {
		rc.flush_min_ns = 2 * S;
		rc.flush_max_ns = 5 * S;
	} else {
		rc.flush_min_ns = 2 * MS;
		rc.flush_max_ns = 2 * g->period;
	}
	rc.seqs[0] = 2;
	rc.seqs[1] = 5;
	rc.seqs[2] = 9;
	rc.seqs[3] = 12;
	rc.nseq = sc->nseq;
	rc.token_base = rng_range(&g->rng, 10000, 5000000);
	if (render_new(g->w, &rc, rng_next(&g->rng), &g->rd) < 0)
		return -ENOMEM;
	return sc->win != WINSCEN_NONE ? win_setup(g) : 0;
}

/* Frames that keep the trace going: a status bar, SystemUI animations. */
static int
background(struct gen *g, int64_t hb_end)
{
	int64_t t;
	int rc;

	for (t = g->t0 + 20 * MS; t < hb_end;
	     t += rng_range(&g->rng, 800, 3000) * MS) {
		rc = animate(g, g->bar, t, rng_range(&g->rng, 0, 40) * MS, 1);
		if (rc < 0)
			return rc;
	}
	rc = animate(g, g->bar, hb_end, 30 * MS, 1);
	if (rc < 0 || !g->sc->systemui)
		return rc;
	for (t = g->t0 + 500 * MS; t < hb_end - 2 * S;) {
		int64_t len = rng_range(&g->rng, 300, 3000) * MS;

		if (rng_chance(&g->rng, 0.6)) {
			rc = animate(g, g->shade, t, len,
				     rng_chance(&g->rng, 0.5) ? 1 : 2);
			if (rc < 0)
				return rc;
		}
		t += len + rng_range(&g->rng, 200, 2500) * MS;
	}
	return 0;
}

/*
 * Where the trace stops, for the cut scenario: no tap's window may end
 * near it, so that truncated or not is certain.
 */
static int64_t
choose_cut(struct gen *g)
{
	const struct world_gesture *gs;
	size_t n, i;
	int64_t s, we;
	int ok;

	gs = world_gestures(g->w, &n);
	for (s = g->cut_at; s < g->end + 20 * S; s += 100 * MS) {
		ok = 1;
		for (i = 0; i < n && ok; i++) {
			if (gs[i].kind != WORLD_TAP &&
			    gs[i].kind != WORLD_LONG_PRESS)
				continue;
			we = gs[i].t_up_ns + 5 * S;
			if (i + 1 < n && gs[i + 1].t_down_ns < we)
				we = gs[i + 1].t_down_ns;
			if (we > s - 2500 * MS && we < s + 1500 * MS)
				ok = 0;
		}
		if (ok)
			return s;
	}
	return g->end + 20 * S;
}

static int
finish(struct gen *g)
{
	struct world_format *fmt = world_format(g->w);
	const struct world_df *dfs;
	size_t n, i;
	int64_t cut = 0, stop = g->t0;
	int rc;

	rc = background(g, g->last_up + 8500 * MS);
	if (rc == 0 && g->sc->special == SP_CUT) {
		cut = choose_cut(g);
		/* Dense frames up to the cut, so its last present is near. */
		rc = animate(g, g->shade, cut - 3 * S, 4 * S, 2);
	}
	if (rc == 0)
		rc = render_finish(g->rd);
	if (rc < 0)
		return rc;
	dfs = world_dfs(g->w, &n);
	for (i = 0; i < n; i++) {
		struct world_df *df = world_df_at(g->w, i);

		if (cut > 0 && dfs[i].emit_ns > cut)
			df->in_trace = 0;
		if (df->in_trace && df->emit_ns > stop)
			stop = df->emit_ns;
	}
	fmt->trace_stop_ns = cut > 0 ? cut : stop + 5 * MS;
	world_sort_events(g->w);
	return 0;
}

/* Fills in the defaults of the fields a scenario leaves at zero. */
static void
resolve(const struct scen *in, struct scen *out)
{
	*out = *in;
	if (out->dur_s == 0)
		out->dur_s = 40;
	if (out->hz == 0)
		out->hz = 120;
	if (out->sdk == 0)
		out->sdk = 33;
	if (out->nseq == 0)
		out->nseq = 1;
	if (out->napps == 0)
		out->napps = 1;
	if (out->gap_min_ms == 0)
		out->gap_min_ms = 600;
	if (out->gap_max_ms == 0)
		out->gap_max_ms = 2500;
}

int
scenario_build(const char *name, uint64_t seed, int duration_s,
	       struct world **out)
{
	const struct scen *found = find(name);
	struct scen scen;
	const struct scen *sc = &scen;
	struct gen g;
	int rc;

	if (found == NULL)
		return -ENOENT;
	resolve(found, &scen);
	if (duration_s != 0 && (duration_s < 5 || duration_s > 3600))
		return -EINVAL;
	memset(&g, 0, sizeof(g));
	g.sc = sc;
	g.fg = -1;
	rng_seed(&g.rng, seed, name);
	rc = world_new(&g.w);
	if (rc < 0)
		return rc;
	rc = setup(&g, duration_s != 0 ? duration_s : sc->dur_s);
	if (rc < 0)
		goto out;
	rc = set_fg(&g, g.t0 - rng_range(&g.rng, 20, 600) * S, g.app[0]);
	if (rc < 0)
		goto out;
	if (sc->special == SP_LATE_START)
		rc = pre_trace(&g);
	if (rc == 0 && sc->special == SP_EDGES)
		rc = run_edges(&g);
	else if (rc == 0 && sc->special == SP_LAUNCH)
		rc = run_launch(&g);
	else if (rc == 0)
		rc = run_generic(&g);
	if (rc == 0)
		rc = finish(&g);
	if (rc < 0)
		goto out;
	*out = g.w;
	g.w = NULL;
out:
	touchgen_free(g.tg);
	render_free(g.rd);
	winscen_free(g.ws);
	world_free(g.w);
	return rc;
}
