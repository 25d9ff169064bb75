/*
 * The live frame source: when each app's frames reached the screen, read
 * from the device while the daemon runs.  Two ways (docs/formats.md 2 and 3):
 *
 *  ftl      a `perfetto` child records SurfaceFlinger's FrameTimeline
 *           (Android 12+) into a file under trace_dir, with a binary
 *           TraceConfig the daemon builds (tracecfg.h); the file is tailed
 *           with the FrameTimeline reader (frames_ftl.h) as it grows.
 *  latency  `dumpsys SurfaceFlinger --list`, then `--latency <layer>` for
 *           the layers of the apps whose taps wait for frames, polled
 *           while taps are pending (frames_latency.h).
 *  auto     `getprop ro.build.version.sdk` (run once, in
 *           frames_live_new(), waiting at most child_timeout_ms): 31 or
 *           more gives ftl, less gives latency.  When getprop cannot say
 *           (missing, failing, no number), ftl if perfetto_bin can be
 *           executed, else latency if dumpsys_bin can, else no source at
 *           all (health down, "no perfetto or dumpsys: frames
 *           unavailable"), reported by frames_live_mode() as
 *           FRAMES_LIVE_NONE.
 *
 * Programs are run as child processes (child.h) with an argv, never a
 * shell; a name without '/' is looked up in PATH.  Children get the
 * default signal dispositions and an empty signal mask (the loop blocks
 * signals for its signalfd), a process group of their own, stdin from
 * /dev/null or the config, and PR_SET_PDEATHSIG SIGTERM so that a
 * perfetto session dies with the daemon instead of holding its unique
 * session name.  They are reaped with waitpid(pid, WNOHANG), never
 * waitpid(-1): the process must not ignore SIGCHLD (SIG_IGN or
 * SA_NOCLDWAIT would reap them first) and nothing else may reap children
 * it did not start.
 *
 * One pollable fd: an epoll set of the module's own, holding a timerfd
 * armed for the next thing due (a poll cycle, a restart, a timeout, the
 * next read of a trace file that is not watched), the fd of its child set
 * (the children's pipes, exits and timeouts) and an inotify fd watching
 * the trace files (frames_perfetto_fd()).  When it is readable, call
 * frames_live_dispatch(), which never blocks.  The Perfetto side is
 * frames_perfetto.h, the
 * --latency side frames_dumpsys.h.
 *
 * FrameTimeline sessions.  A session is `<perfetto_bin> -c -` with the
 * config on stdin (no -o: perfetto refuses it with output_path), writing
 * `<trace_dir>/tapd-<pid>-<n>.pftrace`, unique_session_name
 * `<session_name>_0` or `_1` (two of ours overlap during a rotation), a
 * size cap of cap_bytes (by default twice rotate_bytes).  The file is
 * read when perfetto writes it (inotify, IN_MODIFY), so that an idle
 * screen, whose trace gets no write, costs no wake-up; without inotify
 * (or a watch) it is read every tail_ms.  Once rotate_bytes have been
 * read, a second session is started on a new file while the first keeps
 * running; both files are
 * read, and every frame is emitted once (see "No frame lost or
 * duplicated").  A file is deleted once its session has exited and the
 * file has been read to its end: at once after a clean exit, which
 * perfetto makes only after the service wrote the file, and
 * write_period_ms later after a crash, in case traced was still writing.
 * frames_live_new() deletes files left by a tapd that is no longer
 * running.  When the only session exits, a new one is started after a
 * backoff that doubles from restart_min_ms to restart_max_ms and goes
 * back to the minimum once a session is established (its file holds a
 * clock snapshot).  Health: degraded while starting or restarting, up
 * while a session is established, down after down_after failures in a
 * row (a session that exits, or cannot be run, before it is established),
 * with perfetto's last line on stderr: "perfetto refused: ...".
 *
 * No frame lost or duplicated.  A frame's identity is (pid, token,
 * display frame token, layer): the tokens are SurfaceFlinger's vsync ids,
 * the same in every session.  The keys of the last FRAMES_LIVE_SEEN_MAX
 * emitted frames are remembered and a frame whose key is among them is
 * dropped (counted as a duplicate), so the frames two overlapping sessions
 * both recorded come out once.  The old session is stopped only when the
 * new one has taken over: the new session has every frame presented from
 * its first frame P on (SurfaceFlinger writes display frames in present
 * order, each with its surface frames, and the new session's data source
 * was running when it wrote P), and the old one has emitted every frame up
 * to its watermark; once that watermark reaches P the two together have
 * everything, and the old session gets SIGTERM (it then writes its tail
 * and exits).  Frames are lost only when no session records them: between
 * a session's crash and the start of the next (counted in gaps and
 * gap_ns, and logged).
 *
 * Watermark (frames_live_watermark()): frames presented at or before it
 * have all been emitted; it never decreases.
 *  - ftl: the FrameTimeline reader's watermark of the sessions in use
 *    (frames_ftl.h: it lags the newest present by one display frame), and,
 *    once no FrameTimeline event has been read for ftl_lag_ms from a
 *    session still running, the latest present read from it: whatever
 *    SurfaceFlinger wrote has then reached the file (flush_period_ms makes
 *    it commit, write_period_ms puts it in the file).  No wall-clock rule
 *    goes further: SurfaceFlinger writes a display frame from
 *    flushPendingPresentFences() at its next composition (docs/formats.md 2.5),
 *    so the last frame before the screen goes idle (often the last frame
 *    of a tap's response) stays unwritten until something is drawn again,
 *    and its present time is unknown until then: the watermark stalls
 *    short of it, and "Idle screen" below completes what it holds back.
 *    After a gap the watermark moves past it.
 *  - latency: the minimum, over the layers polled in the last cycle, of
 *    their trackers' watermarks (frames_latency.h), or the cycle's capture
 *    time when the wanted apps have no layer; it does not move in a cycle
 *    where a dumpsys failed, and not at all while no tap is pending.  It
 *    covers the layers of the packages given to frames_live_set_wanted(),
 *    so give a tap's app there before waiting on the watermark for it.
 *  - none: INT64_MAX (no frame will ever come).
 * INT64_MIN when unknown.
 *
 * Idle screen (ftl; frames_live_idle(), docs/DESIGN.md 1.8).  Since the
 * last frame before the screen goes idle is not written, a tap whose
 * response ends there would wait for the next drawing.  So, while taps
 * are pending and the session in use has read no FrameTimeline event for
 * write_period_ms + tail_ms (longer than SurfaceFlinger's writes take to
 * reach the file on a screen that draws), a second poller runs the
 * latency side's cycles (`--list`, then `--latency LAYER` of the wanted
 * apps' layers, every poll_ms) beside the sessions: each row's actual
 * present is the present fence, which SurfaceFlinger signalled before it
 * would write the display frame.  Its rows complete the FrameTimeline
 * frames by their times: a row presented at or before the FrameTimeline
 * watermark is dropped (FrameTimeline has every frame up to it), and so
 * is a row whose layer (without "TX - ") has a FrameTimeline frame
 * presented within 1 ms of it among the last 64 emitted; the rest are
 * emitted (start_ns = the row's desired present), remembered, and a
 * FrameTimeline frame that later matches one of them the same way is
 * dropped as a duplicate.  The poller's watermark, from a cycle captured
 * after the stall began, is then how far the wanted apps' frames are
 * complete.  Without it (no dumpsys, or failing), once the session has
 * been quiet for ftl_lag_ms, a tap gives up waiting 1 s after its quiet
 * deadline (correlate.h).
 *
 * Coverage (frames_live_coverage_start(), for correlate_set_coverage()):
 * ftl: the first session's first clock snapshot, INT64_MIN until it is
 * read; latency: the time of frames_live_new() (the rings reach back
 * about a second, and polling starts within poll_ms of a tap);
 * none: INT64_MIN (never covered).
 *
 * Latency polling.  While set_wanted() says taps are pending, a cycle runs
 * at least every poll_ms: `--list`, then `--latency <layer>` for each
 * layer frames_latency_list_pick() chooses for a wanted package, one at a time.
 * Each snapshot's capture time is CLOCK_MONOTONIC read before its child
 * starts.  A child that outlives child_timeout_ms gets SIGTERM, SIGKILL
 * CHILD_KILL_GRACE_MS later, and is counted.  dumpsys exiting non-zero, writing
 * to stderr, printing only zero rows or lines of neither format is counted and
 * makes the source degraded until a clean cycle; nothing dumpsys does is fatal.
 * Frames are emitted with app = the package of the layer, start_ns = desired
 * present time (the queue time), present_ns = actual present time.
 */
#ifndef TAPD_FRAMES_LIVE_H
#define TAPD_FRAMES_LIVE_H

#include <stddef.h>
#include <stdint.h>

struct correlate_frame;
struct record;
struct status;

/* Frame keys remembered to drop frames recorded by two sessions. */
#define FRAMES_LIVE_SEEN_MAX 16384

/* Layers queried per cycle at most, over all wanted packages. */
#define FRAMES_LIVE_LAYERS_MAX 32

/* Packages remembered from frames_live_set_wanted(). */
#define FRAMES_LIVE_WANTED_MAX 16

enum frames_live_mode {
	FRAMES_LIVE_AUTO,
	FRAMES_LIVE_FTL,
	FRAMES_LIVE_LATENCY,
	FRAMES_LIVE_NONE, /* only as auto's outcome */
};

struct frames_live_config {
	enum frames_live_mode mode; /* AUTO, FTL or LATENCY */
	const char *perfetto_bin;   /* default "perfetto" */
	const char *dumpsys_bin;    /* default "dumpsys" */
	const char *getprop_bin;    /* default "getprop" */
	const char *trace_dir;	    /* default "/data/misc/perfetto-traces" */
	const char *session_name;   /* default "tapd" */
	uint64_t rotate_bytes;	    /* default 32 MiB */
	uint64_t cap_bytes;	    /* max_file_size_bytes, 0: 2 * rotate */
	uint32_t buffer_kb;	    /* traced's buffer, default 4096 */
	uint32_t write_period_ms;   /* file_write_period_ms, default 500 */
	uint32_t flush_period_ms;   /* flush_period_ms, default 500 */
	uint32_t tail_ms;	    /* file read period without inotify, 250 */
	uint32_t ftl_lag_ms;	    /* quiet time of the idle rule, 3000 */
	uint32_t poll_ms;	    /* latency cycle period, default 500 */
	uint32_t child_timeout_ms;  /* dumpsys and getprop, default 2000 */
	uint32_t restart_min_ms;    /* default 1000 */
	uint32_t restart_max_ms;    /* default 60000 */
	uint32_t down_after;	    /* failures before down, default 3 */
	struct status *status;	    /* health goes there; may be NULL */
	/*
	 * tapd run --record (record.h): latency's outputs are copied there,
	 * and FrameTimeline's frames, once each, with the start of their
	 * coverage.  NULL: nowhere.
	 */
	struct record *record;
};

/* Counters since frames_live_new(). */
struct frames_live_stats {
	uint64_t frames;      /* emitted */
	uint64_t duplicates;  /* ftl: recorded by two sessions, dropped */
	uint64_t children;    /* child processes started, of any kind */
	int children_running; /* of ours, now */
	/* ftl */
	uint64_t sessions;	   /* perfetto sessions started */
	uint64_t session_exits;	   /* of which exited (any reason) */
	uint64_t session_failures; /* exited or failed before established */
	uint64_t rotations;	   /* second sessions started for a rotation */
	uint64_t capped;	   /* sessions that ended at the size cap */
	uint64_t files_deleted;
	uint64_t bytes_read;
	uint64_t packets;	  /* TracePackets read, all files */
	uint64_t packets_dropped; /* lost, malformed or never joined */
	uint64_t gaps;		  /* times no session was recording */
	int64_t gap_ns;		  /* their total length, as far as known */
	/* latency (and ftl's idle poller, frames_live.h "Idle screen") */
	uint64_t polls;		   /* cycles run */
	uint64_t snapshots;	   /* --latency outputs fed */
	uint64_t dumpsys_errors;   /* could not run, or exited non-zero */
	uint64_t dumpsys_timeouts; /* killed after child_timeout_ms */
	uint64_t dumpsys_stderr;   /* runs that wrote to stderr */
	uint64_t zero_snapshots;   /* outputs with rows, all zero */
	uint64_t garbage_lines;	   /* lines of neither format */
	uint64_t idle_frames;	   /* ftl: rows that completed an idle screen */
	/* auto */
	int sdk; /* from getprop, -1 when unknown or not asked */
};

struct frames_live;

/*
 * Receives each frame; f and its strings are valid only during the call.
 * Returns 0, or a negative errno to stop the dispatch.
 */
typedef int (*frames_live_cb)(void *ctx, const struct correlate_frame *f);

/* Fills cfg with the defaults above, mode AUTO. */
void frames_live_config_default(struct frames_live_config *cfg);

/*
 * The sdk level in the output of `getprop ro.build.version.sdk`, text
 * NUL-terminated: one number from 1 to 10000 with blanks around it.
 * Strips the blanks in place and sets *trimmed to what is left, for
 * messages.  Returns the level, or -1 for any other output.
 */
int frames_live_parse_sdk(char *text, const char **trimmed);

/*
 * Starts the source (auto: decides it first).  Strings are copied.
 * Returns 0 and sets *out; -EINVAL for a bad config (a zero period,
 * rotate_bytes below 4 KiB or a cap not above it, logged); -ENOMEM; or the
 * errno of the epoll or timer fd.  A program that is missing or fails is not an
 * error here: it is reported through the health and retried.  Free with
 * frames_live_free().
 */
int frames_live_new(const struct frames_live_config *cfg,
		    struct frames_live **out);

/*
 * Kills what is still running (perfetto gets SIGTERM and up to a second
 * to exit, then SIGKILL; dumpsys SIGKILL), reaps it and deletes the trace
 * files.  Frames not yet dispatched are lost: frames_live_stop() first
 * for a clean end.  NULL is a no-op.
 */
void frames_live_free(struct frames_live *fl);

/* The fd to poll for reading; owned by fl. */
int frames_live_fd(const struct frames_live *fl);

/* What the source is: FTL, LATENCY or, when auto found nothing, NONE. */
enum frames_live_mode frames_live_mode(const struct frames_live *fl);

/*
 * Does what is due without blocking: reads the children's output and the
 * trace files, reaps children, starts, stops and restarts them, and calls
 * cb (not NULL) for each new frame.  Returns 0, or what cb returned when
 * negative (the frame it refused is not offered again; the rest stay for the
 * next call), or -ENOMEM.
 */
int frames_live_dispatch(struct frames_live *fl, frames_live_cb cb, void *ctx);

/* See "Watermark" above. */
int64_t frames_live_watermark(const struct frames_live *fl);

/* See "Coverage" above. */
int64_t frames_live_coverage_start(const struct frames_live *fl);

/*
 * Tells the latency poller how many taps wait for frames and of which
 * apps (packages, copied; at most FRAMES_LIVE_WANTED_MAX are kept).  With
 * pending_taps 0 no dumpsys runs; going above 0 starts a cycle at once.
 * Ignored in the other modes.  Returns 0 or -ENOMEM.
 */
int frames_live_set_wanted(struct frames_live *fl, int pending_taps,
			   const char *const *packages, size_t n);

/*
 * Asks the source to end: perfetto sessions get SIGTERM (they write their
 * last data and exit), nothing is restarted, no new poll cycle starts.
 * Keep dispatching until frames_live_stopped() to get the last frames.
 */
void frames_live_stop(struct frames_live *fl);

/* 1 once, after frames_live_stop(), every child has exited and been read. */
int frames_live_stopped(const struct frames_live *fl);

/*
 * The idle screen (see "Idle screen"), at now: *from_latency_ns is how
 * far the frames of the wanted apps are complete by the completing
 * poller, and *unconfirmed_ns the time before which a tap's quiet
 * deadline gives up waiting; each INT64_MIN while it does not apply
 * (outside ftl, a screen that draws, a session not in a steady state).
 */
void frames_live_idle(struct frames_live *fl, int64_t now,
		      int64_t *from_latency_ns, int64_t *unconfirmed_ns);

void frames_live_get_stats(const struct frames_live *fl,
			   struct frames_live_stats *st);

#endif
