/*
 * The simulated world: everything a scenario decides (device, apps, input
 * events, foreground changes, app and display frames, clock snapshots and
 * how SurfaceFlinger's packets reach the trace file), in CLOCK_MONOTONIC
 * ns unless a name says otherwise.  The generators fill it; the writers
 * (getevent log, Perfetto trace, session files) and the ground truth only
 * read it.  The container is opaque; its elements are plain data.
 */
#ifndef TAPD_SIM_WORLD_H
#define TAPD_SIM_WORLD_H

#include <stddef.h>
#include <stdint.h>

enum world_kind {
	WORLD_TAP,
	WORLD_LONG_PRESS,
	WORLD_SWIPE,
	WORLD_MULTI,
};
#define WORLD_KIND_COUNT 4

/* FrameTimeline PresentType values. */
#define WORLD_PRESENT_ON_TIME 1
#define WORLD_PRESENT_LATE    2
#define WORLD_PRESENT_DROPPED 4

/* FrameTimeline JankType bits used by the simulator. */
#define WORLD_JANK_NONE		0x1u
#define WORLD_JANK_SF_SCHED	0x2u
#define WORLD_JANK_SF_CPU	0x10u
#define WORLD_JANK_APP_DEADLINE 0x40u
#define WORLD_JANK_STUFFING	0x80u
#define WORLD_JANK_DROPPED	0x400u

/* Perfetto builtin clock ids. */
#define WORLD_CLOCK_MONOTONIC 3
#define WORLD_CLOCK_BOOTTIME  6

struct world_device {
	int32_t width, height;
	int32_t density_dpi;
	int32_t refresh_hz;
	int32_t android_sdk;
	int32_t x_min, x_max, y_min, y_max;
};

/* One layer of one process; an app with two layers is two entries. */
struct world_app {
	char package[64];
	char layer[160];
	int32_t pid;
};

/* An input device of the getevent log; device 0 is the touch screen. */
struct world_indev {
	char path[32];
	char name[64];
};

/* One evdev event as getevent prints it: times are whole microseconds. */
struct world_event {
	int64_t time_us;
	int dev;
	uint16_t type, code;
	int32_t value;
};

/* A gesture as the scenario meant it (the truth re-derives it). */
struct world_gesture {
	enum world_kind kind;
	int64_t t_down_ns, t_up_ns;
	char note[24]; /* what the app was made to do, for the truth file */
};

/*
 * From t_ns on, app is in the foreground, showing activity (a class name;
 * "" when the foreground log does not name one).
 */
struct world_fg {
	int64_t t_ns;
	int app;
	char activity[96];
};

/* An app's frame (FrameTimeline's actual surface frame). */
struct world_sf {
	int app;
	int df; /* display frame that presented (or dropped) it */
	int64_t token;
	int64_t start_ns, end_ns;
	int has_expected;
	int64_t exp_start_ns, exp_end_ns;
	int present_type;
	uint32_t jank;
};

/* A SurfaceFlinger display frame, with how its packets were written. */
struct world_df {
	int64_t token; /* 0 for a synthetic skipped frame */
	int64_t wake_ns, present_ns;
	int has_expected;
	int64_t exp_start_ns, exp_end_ns;
	int present_type;
	uint32_t jank;
	int64_t emit_ns; /* when SurfaceFlinger wrote its packets */
	uint32_t seq;	 /* trusted_packet_sequence_id */
	int in_trace;	 /* written before the trace stopped */
};

/* A ClockSnapshot the tracing service wrote at emit_ns. */
struct world_snapshot {
	int64_t mono_ns, boot_ns;
	int64_t emit_ns;
};

/* How the trace and the input log are written. */
struct world_format {
	int clock_id; /* WORLD_CLOCK_MONOTONIC (A12) or _BOOTTIME */
	int df_after; /* display frame packets after its surface frames */
	int64_t boot_offset_ns;	 /* BOOTTIME - MONOTONIC before any suspend */
	int64_t suspend_at_ns;	 /* MONOTONIC time of a suspend, or 0 */
	int64_t suspend_len_ns;	 /* how long BOOTTIME ran on meanwhile */
	int64_t write_period_ns; /* > 0: packets reach the file in periodic
				    reads, sequence by sequence */
	int64_t trace_start_ns;	 /* first packet (the service's snapshot) */
	int64_t trace_stop_ns;	 /* packets emitted later are lost */
	uint32_t sf_pid;
	int prefix;	/* getevent without a device: path prefixes */
	int header;	/* "add device" headers */
	int duration_s; /* length of the session the scenario played */
};

/* Android 13's InputConfig bits, the window flags dumpsys input prints. */
#define WORLD_IC_NOT_VISIBLE		(1u << 1)
#define WORLD_IC_NOT_FOCUSABLE		(1u << 2)
#define WORLD_IC_NOT_TOUCHABLE		(1u << 3)
#define WORLD_IC_PREVENT_SPLITTING	(1u << 4)
#define WORLD_IC_DUPLICATE_TO_WALLPAPER (1u << 5)
#define WORLD_IC_IS_WALLPAPER		(1u << 6)
#define WORLD_IC_TRUSTED_OVERLAY	(1u << 8)
#define WORLD_IC_SPY			(1u << 14)

/* A rectangle of display px: left and top inside, right and bottom out. */
struct world_rect {
	int32_t l, t, r, b;
};

#define WORLD_WIN_MAX	  14
#define WORLD_WIN_REGIONS 2

/* One input window as the dispatcher lists it. */
struct world_win {
	char name[128];
	char app_name[192]; /* applicationInfo.name, "" for none */
	int32_t id;
	uint32_t config; /* WORLD_IC_* */
	struct world_rect frame;
	struct world_rect region[WORLD_WIN_REGIONS];
	int nregion; /* 0: <empty> */
	int32_t pid, uid;
	uint64_t token, app_token; /* 0 prints <null> */
	int layer; /* the world_app that draws its responses, or -1 */
	char package[64];
};

/* The windows of display 0 from t_ns on, index 0 on top. */
struct world_winlist {
	int64_t t_ns;
	int orientation;       /* quarter turns counter-clockwise, 0..3 */
	int32_t width, height; /* the display in its current orientation */
	int focus;	       /* the focused window, or -1 */
	int n;
	struct world_win win[WORLD_WIN_MAX];
};

/* A window owner as the daemon resolved it at t_ns. */
struct world_proc {
	int64_t t_ns;
	int32_t pid, uid;
	char package[64];
};

struct world;

/* Allocates an empty world.  Returns 0 and sets *out, or -ENOMEM. */
int world_new(struct world **out);

/* NULL is a no-op. */
void world_free(struct world *w);

/* The device and format parts, read and written in place. */
struct world_device *world_device(struct world *w);
const struct world_device *world_get_device(const struct world *w);
struct world_format *world_format(struct world *w);
const struct world_format *world_get_format(const struct world *w);

/*
 * Adders copy the element and return its index (>= 0), or -ENOMEM.
 * Getters return the array and its length in *n; the pointers stay valid
 * until the next add of the same kind.
 */
int world_add_app(struct world *w, const struct world_app *a);
const struct world_app *world_apps(const struct world *w, size_t *n);
int world_add_indev(struct world *w, const struct world_indev *d);
const struct world_indev *world_indevs(const struct world *w, size_t *n);
int world_add_event(struct world *w, const struct world_event *e);
const struct world_event *world_events(const struct world *w, size_t *n);
int world_add_gesture(struct world *w, const struct world_gesture *g);
const struct world_gesture *world_gestures(const struct world *w, size_t *n);
int world_add_fg(struct world *w, const struct world_fg *f);
const struct world_fg *world_fgs(const struct world *w, size_t *n);
int world_add_sf(struct world *w, const struct world_sf *f);
const struct world_sf *world_sfs(const struct world *w, size_t *n);
struct world_sf *world_sf_at(struct world *w, size_t i);
int world_add_df(struct world *w, const struct world_df *f);
const struct world_df *world_dfs(const struct world *w, size_t *n);
struct world_df *world_df_at(struct world *w, size_t i);
int world_add_snapshot(struct world *w, const struct world_snapshot *s);
const struct world_snapshot *world_snapshots(const struct world *w, size_t *n);

int world_add_winlist(struct world *w, const struct world_winlist *l);
const struct world_winlist *world_winlists(const struct world *w, size_t *n);
int world_add_proc(struct world *w, const struct world_proc *p);
const struct world_proc *world_procs(const struct world *w, size_t *n);

/*
 * The window list in force at t_ns (the last added at or before it), or
 * NULL when none.  Lists must have been added in time order.
 */
const struct world_winlist *world_winlist_at(const struct world *w,
					     int64_t t_ns);

/* Sorts the input events by time, keeping the order of equal times. */
void world_sort_events(struct world *w);

/*
 * The foreground app at t_ns (the latest change at or before it), or -1
 * when none.  The changes must have been added in time order.
 */
int world_fg_at(const struct world *w, int64_t t_ns);

/* The index of that change in world_fgs(), or -1 when none. */
int world_fg_index_at(const struct world *w, int64_t t_ns);

/* The BOOTTIME value of MONOTONIC time t_ns under the world's suspend. */
int64_t world_boottime(const struct world *w, int64_t t_ns);

/* Touch slop in display px: 8 dp. */
double world_slop_px(const struct world *w);

/* Maps raw touch values to display px, as device.json says. */
void world_map(const struct world *w, int32_t raw_x, int32_t raw_y, double *x,
	       double *y);

#endif
