/*
 * Stand-ins for Android's `dumpsys` and `getprop`, for tests of the live
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

#endif
