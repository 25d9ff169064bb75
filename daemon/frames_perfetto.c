#include "frames_perfetto.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "correlate.h"
#include "frames_ftl.h"
#include "frames_notify.h"
#include "frames_seen.h"
#include "log.h"
#include "loop.h"
#include "record.h"
#include "tracecfg.h"

#define MS_NS INT64_C(1000000)

/* Bytes of trace read per dispatch, so a backlog never stalls the loop. */
#define READ_BUDGET (4 << 20)
#define READ_CHUNK  65536

/* Room kept for perfetto's last line on stderr, in messages. */
#define ERRLINE_MAX 160

/*
 * Slots for perfetto sessions: the current one, the one it replaces, and
 * room for ones still being read after they exited.
 */
#define SESSIONS_MAX 4

/* How long free() lets perfetto write its tail before killing it. */
#define FREE_GRACE_NS (1000 * MS_NS)

struct session {
	int used;
	int name_idx;
	char path[PATH_MAX];
	struct child *ch; /* NULL before it ran */
	int fd;
	int wd; /* its file's inotify watch, -1: the file is polled */
	struct frames_ftl *rd;
	int64_t started_ns;
	int64_t coverage;
	int64_t first_present;
	int64_t last_event_ns;
	int64_t max_present; /* latest present of a frame read */
	uint64_t frame_events;
	uint64_t bytes;
	int at_end; /* the last read reached the end of the file */
	int established;
	int joined;
	int stopping;
	int64_t stop_sent_ns;
	int eof_fed;
	int counted_exit;
	int timed_out;
};

struct frames_perfetto {
	struct frames_live_config cfg; /* its strings are the owner's */
	char *bin;		       /* cfg.perfetto_bin, as argv[0] */
	struct child_set *cs;
	struct frames_live_stats *st;
	int64_t wm;
	int64_t coverage;
	int stopping;
	int more; /* work left over from the last dispatch */
	uint8_t *buf;
	struct session sess[SESSIONS_MAX];
	struct session *cur, *old;
	unsigned file_seq;
	int name_flip;
	unsigned fails; /* failures in a row */
	int64_t backoff_ms;
	int64_t restart_at_ns;
	int64_t rotate_at_ns;
	int rotate_failed;
	int ever_joined;
	int64_t next_tail_ns;
	/*
	 * An inotify fd watching the open trace files, -1 where there is
	 * none (a file is then read every tail_ms): perfetto writes once a
	 * write period, and the file is read when it does, not on a timer.
	 */
	int ino;
	char last_error[ERRLINE_MAX + 128];
	struct frames_seen *seen;
	uint64_t ftl_packets, ftl_dropped; /* of readers already freed */
};

static const char *
session_name_of(struct frames_perfetto *fl, int idx, char *buf, size_t size)
{
	snprintf(buf, size, "%s_%d", fl->cfg.session_name, idx);
	return buf;
}

static void
fold_reader_stats(struct frames_perfetto *fl, const struct session *s)
{
	struct frames_ftl_stats st;

	if (!s->rd)
		return;
	frames_ftl_get_stats(s->rd, &st);
	fl->ftl_packets += st.packets;
	fl->ftl_dropped += st.packets_lost + st.malformed + st.evicted_waiting +
			   st.unpaired_ends + st.corrupt;
}

/* Frees a session slot, deleting its file. */
static void
session_release(struct frames_perfetto *fl, struct session *s, int delete_file)
{
	if (!s->used)
		return;
	child_free(s->ch);
	frames_notify_unwatch(fl->ino, s->wd);
	if (s->fd >= 0)
		close(s->fd);
	if (delete_file && s->path[0]) {
		if (unlink(s->path) == 0)
			fl->st->files_deleted++;
		else if (errno != ENOENT)
			log_warn("cannot delete '%s'", s->path);
	}
	fold_reader_stats(fl, s);
	frames_ftl_free(s->rd);
	if (fl->cur == s)
		fl->cur = NULL;
	if (fl->old == s)
		fl->old = NULL;
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->wd = -1;
}

static struct session *
session_slot(struct frames_perfetto *fl)
{
	int i;

	for (i = 0; i < SESSIONS_MAX; i++)
		if (!fl->sess[i].used)
			return &fl->sess[i];
	return NULL;
}

static void
ftl_failure(struct frames_perfetto *fl, int64_t now)
{
	fl->fails++;
	fl->st->session_failures++;
	fl->restart_at_ns = now + fl->backoff_ms * MS_NS;
	fl->backoff_ms *= 2;
	if (fl->backoff_ms > fl->cfg.restart_max_ms)
		fl->backoff_ms = fl->cfg.restart_max_ms;
}

/* Starts a perfetto session writing a new file.  Returns it or NULL. */
static struct session *
session_start(struct frames_perfetto *fl, int64_t now)
{
	struct tracecfg_params p;
	struct session *s = session_slot(fl);
	struct child_spec spec;
	char name[64], why[ERRLINE_MAX];
	char *argv[4];
	uint8_t *cfg = NULL;
	size_t len = 0;
	int rc, n, tries;

	if (!s)
		return NULL;
	/*
	 * The trace file is made there and then read and deleted by tapd:
	 * without write access (tapd without root, a read-only or missing
	 * directory) perfetto would run for nothing.
	 */
	if (faccessat(AT_FDCWD, fl->cfg.trace_dir, W_OK | X_OK, AT_EACCESS) <
	    0) {
		snprintf(fl->last_error, sizeof(fl->last_error),
			 "cannot start perfetto: cannot write to trace "
			 "directory '%s': %s",
			 fl->cfg.trace_dir, strerror(errno));
		log_warnx("%s", fl->last_error);
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->wd = -1;
	for (tries = 0; tries < 1000; tries++) {
		n = snprintf(s->path, sizeof(s->path), "%s/tapd-%d-%u.pftrace",
			     fl->cfg.trace_dir, (int)getpid(), ++fl->file_seq);
		if (n < 0 || (size_t)n >= sizeof(s->path)) {
			snprintf(fl->last_error, sizeof(fl->last_error),
				 "trace directory name too long: '%s'",
				 fl->cfg.trace_dir);
			return NULL;
		}
		if (access(s->path, F_OK) < 0 && errno == ENOENT)
			break;
	}
	/* Two sessions of ours overlap in a rotation: names must differ. */
	if (fl->cur && fl->cur->ch)
		s->name_idx = !fl->cur->name_idx;
	else
		s->name_idx = fl->name_flip;
	fl->name_flip = !s->name_idx;
	tracecfg_params_default(&p);
	p.buffer_kb = fl->cfg.buffer_kb;
	p.output_path = s->path;
	p.session_name = session_name_of(fl, s->name_idx, name, sizeof(name));
	p.file_write_period_ms = fl->cfg.write_period_ms;
	p.flush_period_ms = fl->cfg.flush_period_ms;
	p.max_file_size_bytes = fl->cfg.cap_bytes;
	rc = tracecfg_encode(&p, &cfg, &len);
	if (rc == 0)
		rc = frames_ftl_new(NULL, &s->rd);
	if (rc < 0) {
		snprintf(fl->last_error, sizeof(fl->last_error),
			 "cannot prepare a perfetto session: %s",
			 strerror(-rc));
		free(cfg);
		frames_ftl_free(s->rd);
		s->rd = NULL;
		return NULL;
	}
	argv[0] = fl->bin;
	argv[1] = (char *)"-c";
	argv[2] = (char *)"-";
	argv[3] = NULL;
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.in = cfg;
	spec.in_len = len;
	rc = child_spawn(fl->cs, &spec, &s->ch, why, sizeof(why));
	free(cfg);
	fl->st->sessions++;
	if (rc < 0) {
		/* The health must say it is perfetto, whatever its path. */
		snprintf(fl->last_error, sizeof(fl->last_error),
			 "cannot start perfetto: %s", why);
		log_warnx("%s", fl->last_error);
		frames_ftl_free(s->rd);
		s->rd = NULL;
		s->ch = NULL;
		return NULL;
	}
	s->used = 1;
	s->started_ns = now;
	s->last_event_ns = now;
	s->coverage = INT64_MIN;
	s->first_present = INT64_MIN;
	s->max_present = INT64_MIN;
	log_info("started perfetto session '%s' writing '%s'", name, s->path);
	return s;
}

static int
emit_ftl(struct frames_perfetto *fl, struct session *s, frames_live_cb cb,
	 void *ctx)
{
	struct correlate_frame cf;
	struct frames_ftl_frame f;
	uint64_t key;
	int rc;

	while (frames_ftl_next(s->rd, &f) == 1) {
		if (s->first_present == INT64_MIN)
			s->first_present = f.present_ns;
		if (f.present_ns > s->max_present)
			s->max_present = f.present_ns;
		key = frames_seen_key(&f);
		if (frames_seen_has(fl->seen, key)) {
			fl->st->duplicates++;
			continue;
		}
		frames_seen_add(fl->seen, key);
		record_ftl_frame(fl->cfg.record, &f);
		frames_ftl_frame_to_correlate(&f, &cf);
		fl->st->frames++;
		rc = cb(ctx, &cf);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Reads what the file has (up to *budget bytes) and emits its frames. */
static int
session_read(struct frames_perfetto *fl, struct session *s, int64_t now,
	     size_t *budget, frames_live_cb cb, void *ctx)
{
	struct frames_ftl_stats st;
	ssize_t n;
	int rc;

	if (s->fd < 0 && !s->eof_fed) {
		s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0 && errno != ENOENT)
			log_warn("cannot open '%s'", s->path);
		/*
		 * Watched before it is read, so that no write after the
		 * read below goes unnoticed.  Without a watch (no inotify, or
		 * out of watches) the file is polled as before.
		 */
		if (s->fd >= 0)
			s->wd = frames_notify_watch(fl->ino, s->path);
	}
	s->at_end = 0;
	while (s->fd >= 0 && !s->eof_fed && *budget > 0) {
		n = read(s->fd, fl->buf,
			 *budget < READ_CHUNK ? *budget : READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_warn("cannot read '%s'", s->path);
			break;
		}
		if (n == 0) {
			s->at_end = 1;
			break;
		}
		*budget -= (size_t)n;
		s->bytes += (uint64_t)n;
		fl->st->bytes_read += (uint64_t)n;
		rc = frames_ftl_feed(s->rd, fl->buf, (size_t)n);
		if (rc < 0)
			return rc;
		rc = emit_ftl(fl, s, cb, ctx);
		if (rc < 0)
			return rc;
	}
	if (*budget == 0)
		fl->more = 1;
	frames_ftl_get_stats(s->rd, &st);
	if (st.frame_events != s->frame_events) {
		s->frame_events = st.frame_events;
		s->last_event_ns = now;
	}
	if (s->coverage == INT64_MIN)
		s->coverage = frames_ftl_coverage_start(s->rd);
	if (!s->established && s->coverage != INT64_MIN) {
		s->established = 1;
		fl->fails = 0;
		fl->backoff_ms = fl->cfg.restart_min_ms;
		fl->rotate_failed = 0;
	}
	return emit_ftl(fl, s, cb, ctx);
}

/*
 * The session's data now counts toward the watermark.  Without another
 * session of ours that covered the time before it, frames between the
 * watermark and its start were recorded by nobody: a gap.
 */
static void
session_join(struct frames_perfetto *fl, struct session *s, int continuous)
{
	int64_t from = fl->wm, to = s->coverage;

	s->joined = 1;
	if (fl->coverage == INT64_MIN && !fl->ever_joined) {
		fl->coverage = s->coverage;
		record_ftl_coverage(fl->cfg.record, fl->coverage);
	}
	if (fl->ever_joined && !continuous) {
		fl->st->gaps++;
		if (from != INT64_MIN && to > from) {
			fl->st->gap_ns += to - from;
			log_warnx("frame data has a gap of %.3f s: no perfetto "
				  "session was recording",
				  (double)(to - from) / 1e9);
		} else {
			log_warnx("frame data may have a gap: no perfetto "
				  "session was recording");
		}
	}
	fl->ever_joined = 1;
}

/* Ends a session whose child exited, once its file has been read. */
static int
session_finish(struct frames_perfetto *fl, struct session *s, int64_t now,
	       frames_live_cb cb, void *ctx)
{
	size_t budget = SIZE_MAX;
	struct child_info ci;
	int64_t grace, wm;
	int rc;

	child_get_info(s->ch, &ci);
	grace = child_clean_exit(s->ch) ? 0 : fl->cfg.write_period_ms * MS_NS;
	if (now < ci.exited_ns + grace)
		return 0;
	rc = session_read(fl, s, now, &budget, cb, ctx);
	if (rc < 0)
		return rc;
	if (!s->eof_fed) {
		frames_ftl_eof(s->rd);
		s->eof_fed = 1;
	}
	rc = emit_ftl(fl, s, cb, ctx);
	if (rc < 0)
		return rc;
	wm = frames_ftl_watermark(s->rd);
	if (s->joined && wm > fl->wm)
		fl->wm = wm;
	log_info("perfetto session file '%s' read: %" PRIu64 " bytes", s->path,
		 s->bytes);
	session_release(fl, s, 1);
	return 0;
}

/* A session's child has exited: what it means for the others. */
static void
session_exited(struct frames_perfetto *fl, struct session *s, int64_t now)
{
	char how[64];

	if (s->counted_exit)
		return;
	s->counted_exit = 1;
	fl->st->session_exits++;
	child_exit_text(s->ch, how, sizeof(how));
	if (s->stopping) {
		/* Asked to stop (rotation or stop()): nothing went wrong. */
	} else if (s == fl->old && child_clean_exit(s->ch)) {
		/*
		 * The session being replaced reached its size cap before the
		 * new one took over; the new one carries on, and if it does
		 * not reach back far enough the join records the gap.
		 */
		fl->st->capped++;
		log_info("perfetto session '%s' ended at its size cap",
			 s->path);
	} else if (!s->established) {
		if (s->timed_out)
			snprintf(fl->last_error, sizeof(fl->last_error),
				 "perfetto did not start recording: %s",
				 child_errline(s->ch)[0] ? child_errline(s->ch)
							 : how);
		else
			snprintf(fl->last_error, sizeof(fl->last_error),
				 "perfetto refused: %s",
				 child_errline(s->ch)[0] ? child_errline(s->ch)
							 : how);
		log_warnx("%s", fl->last_error);
		ftl_failure(fl, now);
		if (s == fl->cur && fl->old) {
			/* A rotation failed: the old session carries on. */
			fl->rotate_failed = 1;
			fl->rotate_at_ns = fl->restart_at_ns;
		}
	} else {
		if (child_clean_exit(s->ch))
			fl->st->capped++;
		snprintf(fl->last_error, sizeof(fl->last_error),
			 "perfetto exited (%s): %s", how,
			 child_errline(s->ch)[0] ? child_errline(s->ch)
						 : "no message");
		log_warnx("%s", fl->last_error);
		fl->restart_at_ns = now + fl->backoff_ms * MS_NS;
		fl->backoff_ms *= 2;
		if (fl->backoff_ms > fl->cfg.restart_max_ms)
			fl->backoff_ms = fl->cfg.restart_max_ms;
	}
	if (s == fl->cur) {
		fl->cur = fl->old;
		fl->old = NULL;
	} else if (s == fl->old) {
		fl->old = NULL;
	}
}

static void
session_stop(struct session *s, int64_t now)
{
	if (s->stopping || !child_running(s->ch))
		return;
	child_signal(s->ch, SIGTERM);
	s->stopping = 1;
	s->stop_sent_ns = now;
}

static int64_t
ftl_establish_timeout_ns(const struct frames_perfetto *fl)
{
	int64_t t = 5 * (int64_t)fl->cfg.write_period_ms * MS_NS;

	return t < 3000 * MS_NS ? 3000 * MS_NS : t;
}

int
frames_perfetto_work(struct frames_perfetto *fl, int64_t now, frames_live_cb cb,
		     void *ctx)
{
	size_t budget = READ_BUDGET;
	struct session *s;
	int64_t cand, lag = fl->cfg.ftl_lag_ms * MS_NS;
	int i, rc, tail = now >= fl->next_tail_ns;

	if (frames_notify_drain(fl->ino))
		tail = 1;
	if (tail)
		fl->next_tail_ns = now + fl->cfg.tail_ms * MS_NS;
	for (i = 0; i < SESSIONS_MAX; i++) {
		s = &fl->sess[i];
		if (!s->used)
			continue;
		if (child_running(s->ch) && !s->established &&
		    !child_killed(s->ch) &&
		    now - s->started_ns >= ftl_establish_timeout_ns(fl)) {
			child_signal(s->ch, SIGKILL);
			s->timed_out = 1;
		}
		if (child_running(s->ch) && s->stopping &&
		    !child_killed(s->ch) &&
		    now - s->stop_sent_ns >= ftl_establish_timeout_ns(fl)) {
			child_signal(s->ch, SIGKILL);
		}
		if (child_exited(s->ch))
			session_exited(fl, s, now);
		if (tail || fl->more) {
			rc = session_read(fl, s, now, &budget, cb, ctx);
			if (rc < 0)
				return rc;
		}
		if (child_exited(s->ch)) {
			rc = session_finish(fl, s, now, cb, ctx);
			if (rc < 0)
				return rc;
		}
	}
	if (budget > 0)
		fl->more = 0;

	/* Joining: continuity through a rotation, or a fresh start. */
	s = fl->cur;
	if (s && !s->joined && s->established) {
		if (fl->old && fl->old->joined) {
			cand = frames_ftl_watermark(fl->old->rd);
			if (cand < fl->wm)
				cand = fl->wm;
			if (s->first_present != INT64_MIN &&
			    cand != INT64_MIN && cand >= s->first_present - 1) {
				session_join(fl, s, 1);
				session_stop(fl->old, now);
				fl->old = NULL;
			}
		} else if (!fl->old) {
			session_join(fl, s,
				     fl->wm != INT64_MIN &&
					     s->first_present != INT64_MIN &&
					     s->first_present <= fl->wm + 1);
		}
	}

	/* Rotation before the cap, restart after an exit. */
	if (!fl->stopping) {
		s = fl->cur;
		if (s && s->joined && !fl->old && child_running(s->ch) &&
		    !s->stopping && s->bytes >= fl->cfg.rotate_bytes &&
		    now >= fl->rotate_at_ns) {
			struct session *n = session_start(fl, now);

			if (n) {
				fl->st->rotations++;
				fl->old = s;
				fl->cur = n;
			} else {
				ftl_failure(fl, now);
				fl->rotate_failed = 1;
				fl->rotate_at_ns = fl->restart_at_ns;
			}
		}
		if (!fl->cur && now >= fl->restart_at_ns) {
			fl->cur = session_start(fl, now);
			if (!fl->cur)
				ftl_failure(fl, now);
		}
	}

	/*
	 * The watermark: joined sessions' data, and once a session has been
	 * quiet for the lag, its latest present (the reader alone waits for
	 * the next display frame, which on an idle screen does not come).
	 */
	for (i = 0; i < SESSIONS_MAX; i++) {
		s = &fl->sess[i];
		if (!s->used || !s->joined)
			continue;
		cand = frames_ftl_watermark(s->rd);
		if (cand > fl->wm)
			fl->wm = cand;
		if (child_running(s->ch) && !s->stopping && s->at_end &&
		    now - s->last_event_ns >= lag && s->max_present > fl->wm)
			fl->wm = s->max_present;
	}
	return 0;
}

void
frames_perfetto_health(struct frames_perfetto *fl, enum status_health *h,
		       char *detail, size_t size)
{
	const struct session *s = fl->cur;

	if (s && s->joined && child_running(s->ch)) {
		*h = fl->rotate_failed ? STATUS_HEALTH_DEGRADED
				       : STATUS_HEALTH_UP;
		if (fl->rotate_failed)
			snprintf(detail, size,
				 "cannot rotate the trace file: %s",
				 fl->last_error);
		else
			snprintf(detail, size,
				 "perfetto FrameTimeline session, file '%s'",
				 s->path);
	} else if (fl->fails >= fl->cfg.down_after) {
		*h = STATUS_HEALTH_DOWN;
		snprintf(detail, size, "%s", fl->last_error);
	} else if (fl->last_error[0]) {
		*h = STATUS_HEALTH_DEGRADED;
		snprintf(detail, size, "%s; restarting", fl->last_error);
	} else {
		*h = STATUS_HEALTH_DEGRADED;
		snprintf(detail, size, "starting perfetto");
	}
}

int
frames_perfetto_new(const struct frames_live_config *cfg, struct child_set *cs,
		    struct frames_live_stats *st, struct frames_perfetto **out)
{
	struct frames_perfetto *fl;
	int i, rc;

	*out = NULL;
	fl = calloc(1, sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	fl->cfg = *cfg;
	fl->cs = cs;
	fl->st = st;
	fl->wm = INT64_MIN;
	fl->coverage = INT64_MIN;
	fl->backoff_ms = cfg->restart_min_ms;
	for (i = 0; i < SESSIONS_MAX; i++) {
		fl->sess[i].fd = -1;
		fl->sess[i].wd = -1;
	}
	fl->ino = frames_notify_open(cfg->tail_ms);
	fl->buf = malloc(READ_CHUNK);
	fl->bin = strdup(cfg->perfetto_bin);
	rc = fl->buf && fl->bin ? frames_seen_new(&fl->seen) : -ENOMEM;
	if (rc < 0) {
		frames_perfetto_free(fl);
		return rc;
	}
	*out = fl;
	return 0;
}

void
frames_perfetto_free(struct frames_perfetto *fl)
{
	struct pollfd pfd;
	int64_t deadline;
	size_t i;
	int any;

	if (!fl)
		return;
	/* perfetto stops cleanly on SIGTERM, so traced ends the session. */
	frames_perfetto_stop(fl, loop_now_ns());
	deadline = loop_now_ns() + FREE_GRACE_NS;
	for (;;) {
		any = 0;
		for (i = 0; i < SESSIONS_MAX; i++)
			if (fl->sess[i].used && child_running(fl->sess[i].ch))
				any = 1;
		if (!any || loop_now_ns() >= deadline)
			break;
		pfd.fd = child_set_fd(fl->cs);
		pfd.events = POLLIN;
		poll(&pfd, 1, 10);
		child_set_dispatch(fl->cs);
	}
	for (i = 0; i < SESSIONS_MAX; i++)
		session_release(fl, &fl->sess[i], 1);
	if (fl->ino >= 0)
		close(fl->ino);
	frames_seen_free(fl->seen);
	free(fl->bin);
	free(fl->buf);
	free(fl);
}

int
frames_perfetto_fd(const struct frames_perfetto *fl)
{
	return fl->ino;
}

/* The earlier of *next and t. */
static void
due_at(int64_t *next, int64_t t)
{
	if (t < *next)
		*next = t;
}

int64_t
frames_perfetto_next_due(const struct frames_perfetto *fl, int64_t now)
{
	const struct session *s;
	int64_t next = INT64_MAX;
	int i;

	if (fl->more)
		return now;
	for (i = 0; i < SESSIONS_MAX; i++) {
		s = &fl->sess[i];
		if (!s->used)
			continue;
		/*
		 * A file not yet open or not watched is read on a timer, as
		 * is a session that exited (the grace after a crash, in
		 * case traced was still writing, is short and rare).
		 */
		if (s->wd < 0 || child_exited(s->ch)) {
			due_at(&next, fl->next_tail_ns);
			continue;
		}
		/* A watched file: only the rules that run on time. */
		if (child_running(s->ch) && !child_killed(s->ch) &&
		    !s->established)
			due_at(&next,
			       s->started_ns + ftl_establish_timeout_ns(fl));
		if (child_running(s->ch) && !child_killed(s->ch) && s->stopping)
			due_at(&next,
			       s->stop_sent_ns + ftl_establish_timeout_ns(fl));
		if (s->joined && child_running(s->ch) && !s->stopping &&
		    s->at_end && s->max_present > fl->wm)
			due_at(&next,
			       s->last_event_ns + fl->cfg.ftl_lag_ms * MS_NS);
	}
	s = fl->cur;
	if (s && s->joined && !fl->old && child_running(s->ch) &&
	    !s->stopping && s->bytes >= fl->cfg.rotate_bytes && !fl->stopping)
		due_at(&next, fl->rotate_at_ns);
	if (!fl->cur && !fl->stopping)
		due_at(&next, fl->restart_at_ns);
	return next;
}

int64_t
frames_perfetto_watermark(const struct frames_perfetto *fl)
{
	return fl->wm;
}

int64_t
frames_perfetto_quiet_since(const struct frames_perfetto *fl)
{
	const struct session *s = fl->cur;

	/*
	 * Only a running, joined session read to the end of its file says
	 * that nothing more was written: during a start, a rotation's
	 * catch-up or a restart, the quiet is ours, not the screen's.
	 */
	if (!s || !s->joined || !child_running(s->ch) || s->stopping ||
	    !s->at_end || (fl->old && fl->old->used))
		return INT64_MAX;
	return s->last_event_ns;
}

int64_t
frames_perfetto_coverage_start(const struct frames_perfetto *fl)
{
	return fl->coverage;
}

void
frames_perfetto_stop(struct frames_perfetto *fl, int64_t now)
{
	int i;

	fl->stopping = 1;
	for (i = 0; i < SESSIONS_MAX; i++)
		if (fl->sess[i].used)
			session_stop(&fl->sess[i], now);
}

int
frames_perfetto_stopped(const struct frames_perfetto *fl)
{
	int i;

	for (i = 0; i < SESSIONS_MAX; i++)
		if (fl->sess[i].used)
			return 0;
	return 1;
}

void
frames_perfetto_packets(const struct frames_perfetto *fl, uint64_t *packets,
			uint64_t *dropped)
{
	struct frames_ftl_stats fs;
	int i;

	*packets = fl->ftl_packets;
	*dropped = fl->ftl_dropped;
	for (i = 0; i < SESSIONS_MAX; i++) {
		if (!fl->sess[i].used || !fl->sess[i].rd)
			continue;
		frames_ftl_get_stats(fl->sess[i].rd, &fs);
		*packets += fs.packets;
		*dropped += fs.packets_lost + fs.malformed +
			    fs.evicted_waiting + fs.unpaired_ends + fs.corrupt;
	}
}
