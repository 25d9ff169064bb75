/*
 * The `dumpsys input` parser: InputDispatcher's window lists, one per
 * display in z-order (index 0 on top), and InputReader's viewports, in
 * every spelling of Android 9 to 15 and the newer releases seen in real
 * captures (docs/formats.md 4.4).  It is what hit-testing a tap
 * (hittest.h) needs: per window its name, display, owner, frame,
 * touchable region and flags; per display its orientation and sizes.
 *
 * Input may be any bytes at all.  What the parser cannot read it skips
 * and counts; it never fails but for memory, and what it keeps is
 * bounded: WINLIST_DISPLAYS_MAX displays, WINLIST_WINDOWS_MAX windows in
 * all, WINLIST_RECTS_MAX rectangles per region, WINLIST_VIEWPORTS_MAX
 * viewports and lines of WINLIST_LINE_MAX bytes (longer ones are parsed
 * from their start and counted).
 *
 * Window lines are read by their keys, not their positions: vendors
 * insert fields of their own anywhere (Samsung "samsungFlags=",
 * "pTouchableRegion=", MIUI "miuiFlags="), and from Android 14 QPR on the
 * name is unquoted and may hold blanks, commas and '=', so it is taken up
 * to the first ", id=" (a quoted one up to "', id=" or "', displayId=").
 * The keys AOSP prints before applicationInfo are taken at their first
 * appearance after the name, those after it at their last, so that an
 * application name holding ", ownerPid=" cannot fool the parser.
 *
 * Only the dispatcher's current state is read: the copy printed "at time
 * of last ANR" is older and ignored.
 */
#ifndef TAPD_WINLIST_H
#define TAPD_WINLIST_H

#include <stddef.h>
#include <stdint.h>

#define WINLIST_DISPLAYS_MAX  16
#define WINLIST_WINDOWS_MAX   1024
#define WINLIST_RECTS_MAX     64
#define WINLIST_VIEWPORTS_MAX 16
#define WINLIST_NAME_MAX      255
#define WINLIST_UNIQUE_ID_MAX 63
#define WINLIST_LINE_MAX      16384

/*
 * Window flags, numbered as Android 13's InputConfig (the bits 0 to 18
 * are AOSP's); older releases' fields are translated into them: visible=
 * into NOT_VISIBLE, paused= into PAUSE_DISPATCHING, hasWallpaper= into
 * DUPLICATE_TOUCH_TO_WALLPAPER, the layout flags FLAG_NOT_FOCUSABLE,
 * FLAG_NOT_TOUCHABLE, FLAG_WATCH_OUTSIDE_TOUCH and FLAG_SLIPPERY, the
 * input features NO_INPUT_CHANNEL and DISABLE_USER_ACTIVITY (DROP_INPUT
 * and DROP_INPUT_IF_OBSCURED on 12), trustedOverlay=true (12) and the
 * wallpaper type (2013).  Unknown bits printed in hex keep their place;
 * unknown names (vendors') are counted in winlist_window.vendor_flags.
 */
#define WINLIST_NO_INPUT_CHANNEL	     (1u << 0)
#define WINLIST_NOT_VISIBLE		     (1u << 1)
#define WINLIST_NOT_FOCUSABLE		     (1u << 2)
#define WINLIST_NOT_TOUCHABLE		     (1u << 3)
#define WINLIST_PREVENT_SPLITTING	     (1u << 4)
#define WINLIST_DUPLICATE_TOUCH_TO_WALLPAPER (1u << 5)
#define WINLIST_IS_WALLPAPER		     (1u << 6)
#define WINLIST_PAUSE_DISPATCHING	     (1u << 7)
#define WINLIST_TRUSTED_OVERLAY		     (1u << 8)
#define WINLIST_WATCH_OUTSIDE_TOUCH	     (1u << 9)
#define WINLIST_SLIPPERY		     (1u << 10)
#define WINLIST_DISABLE_USER_ACTIVITY	     (1u << 11)
#define WINLIST_DROP_INPUT		     (1u << 12)
#define WINLIST_DROP_INPUT_IF_OBSCURED	     (1u << 13)
#define WINLIST_SPY			     (1u << 14)
#define WINLIST_INTERCEPTS_STYLUS	     (1u << 15)
#define WINLIST_CLONE			     (1u << 16)
#define WINLIST_GLOBAL_STYLUS_BLOCKS_TOUCH   (1u << 17)
#define WINLIST_SENSITIVE_FOR_PRIVACY	     (1u << 18)
/*
 * tapd's own: before Android 13 a visible, touchable window with neither
 * FLAG_NOT_FOCUSABLE nor FLAG_NOT_TOUCH_MODAL is touch-modal, and the
 * dispatcher gives it every touch of its display, inside its touchable
 * region or not (findTouchedWindowAtLocked of Android 9 to 12).
 */
#define WINLIST_TOUCH_MODAL (1u << 31)

/* WindowManager.LayoutParams flags (Android 9 to 12) that tapd reads. */
#define WINLIST_LP_NOT_FOCUSABLE       0x00000008u
#define WINLIST_LP_NOT_TOUCHABLE       0x00000010u
#define WINLIST_LP_NOT_TOUCH_MODAL     0x00000020u
#define WINLIST_LP_WATCH_OUTSIDE_TOUCH 0x00040000u
#define WINLIST_LP_SPLIT_TOUCH	       0x00800000u
#define WINLIST_LP_SLIPPERY	       0x20000000u

/* A window type nobody printed (Android 13 and later fold it away). */
#define WINLIST_TYPE_NONE (-1)
/* An id nobody printed (before Android 12). */
#define WINLIST_ID_NONE INT64_MIN
/* An owner nobody printed, or printed as something other than a number. */
#define WINLIST_OWNER_NONE (-1)

/* Which window line spelling a window was read from. */
enum winlist_format {
	WINLIST_FORMAT_UNKNOWN = 0,
	WINLIST_FORMAT_9,      /* layer=, scale= */
	WINLIST_FORMAT_10,     /* layer=, globalScale=, windowScale= */
	WINLIST_FORMAT_11,     /* portalToDisplayId=, no layer= */
	WINLIST_FORMAT_12,     /* flags= and type= as names, focusable= */
	WINLIST_FORMAT_13,     /* inputConfig=, hasToken=true|false */
	WINLIST_FORMAT_14,     /* inputConfig=, hasToken=0x...|<null> */
	WINLIST_FORMAT_14_QPR, /* unquoted name=, token= (14 QPR, 15, later) */
};

/* Which fields a window line had (winlist_window.fields). */
#define WINLIST_HAS_ID	      (1u << 0)
#define WINLIST_HAS_DISPLAY   (1u << 1)
#define WINLIST_HAS_FLAGS     (1u << 2) /* inputConfig=, or flags= */
#define WINLIST_HAS_VISIBLE   (1u << 3) /* visible= (Android 9 to 12) */
#define WINLIST_HAS_FRAME     (1u << 4)
#define WINLIST_HAS_TOUCHABLE (1u << 5)
#define WINLIST_HAS_PID	      (1u << 6)
#define WINLIST_HAS_UID	      (1u << 7)
#define WINLIST_HAS_ALPHA     (1u << 8)

/* Edges as Android prints them: left and top inside, right and bottom out. */
struct winlist_rect {
	int32_t left, top, right, bottom;
};

struct winlist_window {
	char name[WINLIST_NAME_MAX + 1]; /* cut at WINLIST_NAME_MAX bytes */
	int64_t id;			 /* WINLIST_ID_NONE before Android 12 */
	int32_t display_id;
	uint32_t config;       /* WINLIST_* flags above */
	uint32_t layout_flags; /* LayoutParams flags, Android 9 to 12 */
	int32_t type;	       /* LayoutParams type, or WINLIST_TYPE_NONE */
	uint32_t vendor_flags; /* flag names tapd does not know */
	double alpha;	       /* 1 when not printed */
	int32_t owner_pid;     /* or WINLIST_OWNER_NONE */
	int64_t owner_uid;     /* or WINLIST_OWNER_NONE */
	struct winlist_rect frame;
	const struct winlist_rect *touchable; /* n_touchable rects */
	size_t n_touchable;
	int touchable_cut; /* rects past WINLIST_RECTS_MAX were dropped */
	unsigned fields;   /* WINLIST_HAS_* */
	enum winlist_format format;
};

/* Display orientations, as the viewport's orientation= prints them. */
enum winlist_rotation {
	WINLIST_ROT_0 = 0,
	WINLIST_ROT_90 = 1,
	WINLIST_ROT_180 = 2,
	WINLIST_ROT_270 = 3,
};

/* One InputReader viewport (DisplayViewport::toString()). */
struct winlist_viewport {
	int32_t display_id;
	enum winlist_rotation orientation;
	struct winlist_rect logical;  /* logicalFrame=[l, t, r, b] */
	struct winlist_rect physical; /* physicalFrame=, or the logical frame */
	int32_t device_width, device_height; /* deviceSize=: rotated */
	int active; /* isActive=[1]; 1 when not printed */
	char unique_id[WINLIST_UNIQUE_ID_MAX + 1];
};

/* A display of the dispatcher, with its windows top first. */
struct winlist_display {
	int32_t id;
	int32_t logical_width, logical_height; /* 0 when not printed */
	size_t n_windows;
};

struct winlist_stats {
	uint64_t lines;		 /* lines read */
	uint64_t long_lines;	 /* lines cut at WINLIST_LINE_MAX */
	uint64_t windows;	 /* window lines kept */
	uint64_t bad_windows;	 /* window lines without a name or a frame */
	uint64_t dropped;	 /* windows or displays past the limits */
	uint64_t vendor_fields;	 /* window fields tapd does not know */
	uint64_t viewports_seen; /* viewport lines, duplicates included */
	int dispatcher;		 /* an "Input Dispatcher State:" was seen */
};

struct winlist;

/* An empty list.  Returns 0 and sets *out, or -ENOMEM. */
int winlist_new(struct winlist **out);

/* NULL is a no-op. */
void winlist_free(struct winlist *wl);

/*
 * Starts a new output: what the last one gave is forgotten.  Then feed
 * it in pieces as it arrives, and end it: its last line, without '\n',
 * is parsed too.  Returns 0, or -ENOMEM (the list then holds what fitted).
 */
void winlist_begin(struct winlist *wl);
int winlist_feed(struct winlist *wl, const char *buf, size_t len);
int winlist_end(struct winlist *wl);

/* Parses a whole output of len bytes (buf NULL for none) into *out. */
int winlist_parse(const char *buf, size_t len, struct winlist **out);

/* Displays the dispatcher printed (windows or a logicalSize=), in order. */
size_t winlist_n_displays(const struct winlist *wl);
const struct winlist_display *winlist_display(const struct winlist *wl,
					      size_t i);

/* The display with that id, or NULL. */
const struct winlist_display *winlist_find_display(const struct winlist *wl,
						   int32_t display_id);

/*
 * The i-th window of display d (0 on top), or NULL past its end.  The
 * pointers stay valid until the next winlist_begin() or winlist_free().
 */
const struct winlist_window *winlist_window(const struct winlist *wl,
					    const struct winlist_display *d,
					    size_t i);

/* Distinct viewports, in output order. */
size_t winlist_n_viewports(const struct winlist *wl);
const struct winlist_viewport *winlist_viewport(const struct winlist *wl,
						size_t i);

/*
 * The viewport of a display: its first active one, else its first, or
 * NULL when none was printed.
 */
const struct winlist_viewport *winlist_find_viewport(const struct winlist *wl,
						     int32_t display_id);

void winlist_get_stats(const struct winlist *wl, struct winlist_stats *st);

/* "NOT_TOUCHABLE" for WINLIST_NOT_TOUCHABLE, ...; NULL for other bits. */
const char *winlist_flag_name(uint32_t bit);

#endif
