/*
 * Stand-ins for Android's `dumpsys` and `getprop`, and Magisk's
 * `resetprop`, for tests of the live
 * frame source and the live foreground tracker: the one fake of each
 * tool the tests use.  SurfaceFlinger's dumps are modelled (they print
 * the real formats of docs/formats.md, "dumpsys SurfaceFlinger
 * --latency" and "--list"); every other service prints what the test
 * wrote for it.
 *
 * dumpsys SurfaceFlinger --list prints the layers of a phone showing two
 * apps: com.example.mail (its window's buffer layer
 * "com.example.mail/com.example.mail.MainActivity#1234" plus the usual
 * containers) and com.example.maps (a window layer and a SurfaceView whose
 * "(BLAST)" child carries the map's buffers), SystemUI's bars and the
 * display's containers: one name a line (Android 13-14), or
 * `RequestedLayerState{...}` lines (Android 15+).
 *
 * dumpsys SurfaceFlinger --latency NAME prints the vsync period, then the
 * layer's ring of 127 frames, oldest first, then an empty line: for a
 * buffer layer, its last 127 frames queued by now (a frame is a pure
 * function of CLOCK_MONOTONIC time on a 60 Hz grid: the mail window draws
 * for 0.5 s every second, the map's SurfaceView every other vsync, the
 * maps window once a second), with INT64_MAX for fences not yet signalled
 * and "0 0 0" rows before a layer's first frame; 127 zero rows for a
 * container; only the period line for an unknown name.
 *
 * Environment:
 *   TAPD_FAKE_DUMPSYS_LIST=a14|a15|error|garbage|hang  (--list)
 *   TAPD_FAKE_DUMPSYS_MODE=ok|zeros|error|garbage|hang (--latency):
 *     zeros: every layer prints zero rows; error: a message on stderr and
 *     exit 1; garbage: a permission denial and junk on stdout, exit 0;
 *     hang: the period line, then nothing until killed
 *   TAPD_FAKE_DUMPSYS_ONLY=TEXT     the --latency mode applies only to
 *                                  layers whose name contains TEXT
 *   TAPD_FAKE_DUMPSYS_CALLS=PATH   append "list" or "latency NAME" for
 *                                  each run
 *   TAPD_FAKE_FRAMES_LOG=PATH      append "desired actual layer" for every
 *                                  presented row printed
 *   TAPD_FAKE_SDK=N                what getprop prints for
 *                                  ro.build.version.sdk (default: empty)
 *                                  without TAPD_FAKE_PROPS
 *   TAPD_FAKE_PROPS=PATH           the properties, NAME=VALUE lines, for
 *                                  getprop and resetprop
 *   TAPD_FAKE_DRAW_UNTIL_NS=T      only the mail layer draws, every
 *                                  vsync before T (CLOCK_MONOTONIC ns),
 *                                  as the fake perfetto draws with it
 *   TAPD_FAKE_TAPS=PATH            the taps model, below
 *   TAPD_FAKE_TAPS_LAYER=NAME      its app's layer (default
 *                                  com.example.taps/
 *                                  com.example.taps.MainActivity#1400)
 *
 * The taps model, for a test that injects real touches (tests/vm): PATH
 * holds the finger-up time of every tap (CLOCK_MONOTONIC ns, one a line,
 * appended as the test goes), and the phone shows one app, whose layer
 * answers each with a burst of 6 frames, one a vsync, the first queued
 * 4 ms after the finger-up and presented 12 ms after it was queued (so a
 * tap's first frame is at 16 ms).  --list prints the layers that never
 * draw (the containers, the navigation bar) and that layer; --latency
 * shows a frame once its queue time has passed, pending until its
 * present time has, as SurfaceFlinger's ring would.
 *
 * getprop with TAPD_FAKE_PROPS: NAME prints the value, or DEFAULT or an
 * empty line when it is unset; no NAME lists "[NAME]: [VALUE]" lines; a
 * file that cannot be read is exit 1.  Without it, only
 * ro.build.version.sdk is set, from TAPD_FAKE_SDK.
 *
 * resetprop, Magisk's tool, as the module's scripts use it, on the file
 * of TAPD_FAKE_PROPS (exit 2 without it): NAME prints the value (exit 1
 * when unset), NAME VALUE sets it (the file is written anew and renamed
 * in), -w NAME OLD waits until the value is no longer OLD (-w NAME: until
 * it is set), polling the file every 100 ms; -n is accepted and ignored.
 *
 * dumpsys SERVICE ARGS... for any other SERVICE (`dumpsys window`, whose
 * output is docs/formats.md's "dumpsys window") is canned, with
 * TAPD_FAKE_DUMPSYS_DIR=DIR: it appends "SERVICE ARGS..." to
 * DIR/SERVICE.calls, copies DIR/SERVICE.out to stdout, then sleeps as
 * many seconds as DIR/SERVICE.hang says and exits 0 when that file
 * exists, or else exits with the status in DIR/SERVICE.exit (0 without
 * it).  A service with none of .out, .hang and .exit is unknown: "Can't
 * find service: SERVICE" on stderr and exit 1, as on a phone; the same
 * without TAPD_FAKE_DUMPSYS_DIR.  DIR not a directory, or a SERVICE with a
 * '/' or a leading '.', is exit 2; a .out that cannot be read, exit 3.
 */
#ifndef TAPD_SIM_FAKE_ANDROID_H
#define TAPD_SIM_FAKE_ANDROID_H

/* Each runs the fake; argv[0] is the program name.  Return exit status. */
int fake_android_dumpsys(int argc, char **argv);
int fake_android_getprop(int argc, char **argv);
int fake_android_resetprop(int argc, char **argv);

#endif
