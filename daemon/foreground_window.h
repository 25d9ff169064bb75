/*
 * The `dumpsys window` parser of the live foreground tracker: which
 * packages the mCurrentFocus and mFocusedApp lines name, in every spelling
 * Android 4 to 15 uses.  Input may be any bytes at all: what it cannot read
 * it counts or skips, and it never fails.
 */
#ifndef TAPD_FOREGROUND_WINDOW_H
#define TAPD_FOREGROUND_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "foreground.h"

/* How many focus names a parse keeps, of each key. */
#define FOREGROUND_WINDOW_FOCUS_MAX 8

/*
 * What `dumpsys window` says has the focus: the packages named by the
 * mCurrentFocus and mFocusedApp lines, in output order (Android 10+ prints
 * them once per display), duplicates dropped.
 */
struct foreground_window_focus {
	size_t n_current;
	size_t n_app;
	char current[FOREGROUND_WINDOW_FOCUS_MAX][FOREGROUND_PACKAGE_MAX + 1];
	char app[FOREGROUND_WINDOW_FOCUS_MAX][FOREGROUND_PACKAGE_MAX + 1];
	/*
	 * The activity each of those names ("com.foo/.Main" gives ".Main",
	 * as printed: foreground_add_activity() expands it), "" when the
	 * value names none (a splash screen, a window without one).
	 */
	char current_activity[FOREGROUND_WINDOW_FOCUS_MAX]
			     [FOREGROUND_ACTIVITY_MAX + 1];
	char app_activity[FOREGROUND_WINDOW_FOCUS_MAX]
			 [FOREGROUND_ACTIVITY_MAX + 1];
	uint64_t lines;	      /* lines read */
	uint64_t focus_lines; /* mCurrentFocus= and mFocusedApp= lines */
	uint64_t unnamed;     /* of those, naming no package (null, shade) */
	uint64_t long_lines;  /* lines cut at the line limit */
};

/* A parser fed an output in pieces, as it arrives from a pipe. */
struct foreground_window;

/* Returns 0 and sets *out, or -ENOMEM.  Free with foreground_window_free. */
int foreground_window_new(struct foreground_window **out);

/* NULL is a no-op. */
void foreground_window_free(struct foreground_window *w);

/*
 * Starts a new output, whose result goes to *focus (cleared now, complete
 * after foreground_window_end(); it must outlive the parse).
 */
void foreground_window_begin(struct foreground_window *w,
			     struct foreground_window_focus *focus);

/* The next len bytes of the output. */
void foreground_window_feed(struct foreground_window *w, const char *buf,
			    size_t len);

/* The output ended: its last line, without '\n', is parsed too. */
void foreground_window_end(struct foreground_window *w);

/*
 * Parses a whole output held in buf (len bytes; NULL for none) into *focus,
 * which it clears first.
 */
void foreground_window_parse(const char *buf, size_t len,
			     struct foreground_window_focus *focus);

/*
 * The package one mCurrentFocus= or mFocusedApp= value names, e.g.
 * "Window{4ed24c1 u0 com.foo/com.foo.Main}",
 * "ActivityRecord{5e6ac22 u0 com.foo/.Main t329}" or
 * "AppWindowToken{... ActivityRecord{... u0 com.foo/.Main t14}}}": returns
 * 1 and writes it into pkg (size bytes), or 0 for "null", windows without
 * a package (NotificationShade, InputMethod, PopupWindow:...) and garbage.
 */
int foreground_window_focus_package(const char *value, char *pkg, size_t size);

/*
 * The activity of such a value whose package is pkg: what follows
 * "pkg/" up to the first character that is not of an activity name
 * (foreground_valid_activity()).  Returns 1 and writes it into act (size
 * bytes), or 0 when there is none that fits.
 */
int foreground_window_focus_activity(const char *value, const char *pkg,
				     char *act, size_t size);

/*
 * Whether s (n bytes) is a Java package name: dot-separated non-empty parts
 * of [A-Za-z0-9_], at least two, starting with a letter.  Stricter than the
 * timeline's rule, since it has to tell apps from daemons such as
 * "surfaceflinger".  Returns 1 or 0.
 */
int foreground_window_package_ok(const char *s, size_t n);

#endif
