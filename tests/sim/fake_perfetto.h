/*
 * A stand-in for Android's `perfetto` command-line client, for tests of
 * the live frame source.  It accepts the command line tapd uses
 * (`perfetto -c FILE|-`, a binary TraceConfig), checks the config as
 * perfetto_cmd and traced would, and then plays the tracing service:
 * it writes a growing Perfetto trace to the config's output_path, one
 * write every file_write_period_ms (at least 100 ms), in the real format
 * (TracePackets with a ClockSnapshot, then SurfaceFlinger's FrameTimeline
 * events for two apps on a 60 Hz vsync grid, or $TAPD_FAKE_PERFETTO_HZ)
 * until SIGTERM or SIGINT (a final write, then exit 0), its size cap
 * (exit 0) or a maximum duration.
 *
 * Frames are a pure function of CLOCK_MONOTONIC time: vsync k is at
 * k * 16666667 ns (at 60 Hz), and the tokens are derived from k, so two
 * sessions that overlap (a rotation) record the same frames with the same
 * tokens, as two real sessions of the same SurfaceFlinger would.  A
 * session records the frames whose display frame starts from 20 ms after
 * it started (the data source's start-up).  As SurfaceFlinger does, a
 * display frame is written at the next composition after its present, so
 * the last one before the screen goes idle waits for the next frame drawn.
 *
 * Refusals (a message on stderr, exit 1), as perfetto_cmd words them where
 * it has the check: an empty or undecodable config; output_path together
 * with -o; an output_path that exists; and, the fake's own: no
 * "android.surfaceflinger.frametimeline" data source, no write_into_file
 * or no output_path (the only mode tapd uses), `--txt` (tapd sends binary
 * configs), and a unique_session_name already active (another fake with
 * the same name and output directory running).
 *
 * Environment:
 *   TAPD_FAKE_FRAMES_LOG=PATH   append "pid start_ns present_ns layer" for
 *                               every app frame once its packets are in the
 *                               file (MONOTONIC ns; layer as in the trace)
 *   TAPD_FAKE_PERFETTO_REFUSE=MSG  print MSG on stderr and exit 1
 *   TAPD_FAKE_PERFETTO_DIE_AFTER=N raise SIGKILL on itself once N frames
 *                               are written and logged
 *   TAPD_FAKE_PERFETTO_DIE_ONCE=PATH  with DIE_AFTER: only the fake that
 *                               creates PATH first dies
 *   TAPD_FAKE_PERFETTO_MAX_MS=N stop after N ms (default 120000)
 *   TAPD_FAKE_PERFETTO_CLOCK=mono  MONOTONIC timestamps (Android 12);
 *                               default BOOTTIME (13+)
 *   TAPD_FAKE_PERFETTO_IDLE=1   no app draws: only the service packets
 *   TAPD_FAKE_PERFETTO_DRAW_MS=N  the mail app animates (a frame every
 *                               vsync) for N ms after the start, then
 *                               nothing draws: the last frame is never
 *                               written
 *   TAPD_FAKE_PERFETTO_ANIMATE_MS=N  both apps animate (a frame every vsync)
 *                               for N ms after the start, then nothing
 *                               draws (the benchmark of the live daemon)
 *   TAPD_FAKE_PERFETTO_HZ=N     the vsync grid at N Hz instead of 60
 *   TAPD_FAKE_DRAW_UNTIL_NS=T   the same until T (CLOCK_MONOTONIC ns),
 *                               which the fake dumpsys shares
 */
#ifndef TAPD_SIM_FAKE_PERFETTO_H
#define TAPD_SIM_FAKE_PERFETTO_H

/* Runs the fake; argv[0] is the program name.  Returns the exit status. */
int fake_perfetto_main(int argc, char **argv);

#endif
