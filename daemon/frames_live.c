#include "frames_live.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "child.h"
#include "correlate.h"
#include "frames_dumpsys.h"
#include "frames_perfetto.h"
#include "log.h"
#include "loop.h"
#include "parse.h"
#include "record.h"
#include "status.h"
#include "tracecfg.h"

/* Output kept from getprop. */
#define GETPROP_OUT_MAX 256

/* The FrameTimeline data source is on Android 12 (API 31) and later. */
#define SDK_FTL_MIN 31

#define MS_NS 1000000LL

/*
 * The idle screen (frames_live.h, "Idle screen"): how far apart a
 * completing row and a FrameTimeline frame of the same layer may be
 * presented and still be one frame, the frames of each kind remembered
 * for that, and how long a tap gives up waiting before its end is
 * declared unconfirmed.
 */
#define IDLE_MATCH_NS	    (1 * MS_NS)
#define IDLE_RECENT	    64
#define IDLE_LAYER_MAX	    128
#define IDLE_UNCONFIRMED_NS (1000 * MS_NS)

/* A frame emitted lately, for matching the two kinds by their times. */
struct recent {
	int64_t present_ns;
	char layer[IDLE_LAYER_MAX];
};

struct recent_ring {
	struct recent r[IDLE_RECENT];
	unsigned next;
};

/* What a dispatch passes down to the wrappers of the caller's cb. */
struct emit_ctx {
	struct frames_live *fl;
	frames_live_cb cb;
	void *ctx;
};

struct frames_live {
	struct frames_live_config cfg; /* its strings are the copies below */
	char *perfetto_bin, *dumpsys_bin, *getprop_bin, *trace_dir,
		*session_name;
	enum frames_live_mode mode;
	int epfd, tfd;
	int64_t coverage; /* latency: the time of frames_live_new() */
	int stopping;
	struct frames_live_stats st;
	struct child_set *cs;
	struct frames_perfetto *ftl;	/* in FTL mode */
	struct frames_dumpsys *latency; /* in LATENCY mode */

	/* The idle screen, in FTL mode. */
	struct frames_dumpsys *idle;	/* the completing --latency poller */
	int idle_on;			/* its cycles wanted now */
	int64_t idle_since;		/* when they were switched on */
	int pending;			/* taps waiting, from set_wanted() */
	struct recent_ring ftl_recent;	/* FrameTimeline frames emitted */
	struct recent_ring idle_recent; /* completing frames emitted */

	/* health as last reported */
	enum status_health health;
	char detail[sizeof(((struct status_source_state *)0)->detail)];
	int health_set;
};

static const char *
mode_kind(enum frames_live_mode m)
{
	switch (m) {
	case FRAMES_LIVE_FTL:
		return "ftl";
	case FRAMES_LIVE_LATENCY:
		return "latency";
	default:
		return "none";
	}
}

static void set_health(struct frames_live *fl, enum status_health h,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reports the health when it changed, so the status lock is rarely taken. */
static void
set_health(struct frames_live *fl, enum status_health h, const char *fmt, ...)
{
	char detail[sizeof(fl->detail)];
	va_list ap;

	va_start(ap, fmt);
	/* The detail is for display: cut-off text is fine. */
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (fl->health_set && fl->health == h &&
	    strcmp(fl->detail, detail) == 0)
		return;
	/*
	 * The poller's problems reach the log only here, when its health
	 * changes, not once per cycle; the perfetto side logs its events.
	 */
	if (fl->mode == FRAMES_LIVE_LATENCY && fl->health_set &&
	    fl->health != h) {
		if (h == STATUS_HEALTH_UP)
			log_info("frames: %s", detail);
		else
			log_warnx("frames: %s", detail);
	}
	fl->health_set = 1;
	fl->health = h;
	memcpy(fl->detail, detail, sizeof(detail));
	if (fl->cfg.status)
		status_set_source(fl->cfg.status, STATUS_SOURCE_FRAMES, h,
				  mode_kind(fl->mode), "%s", detail);
}

void
frames_live_config_default(struct frames_live_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = FRAMES_LIVE_AUTO;
	cfg->perfetto_bin = "perfetto";
	cfg->dumpsys_bin = "dumpsys";
	cfg->getprop_bin = "getprop";
	cfg->trace_dir = "/data/misc/perfetto-traces";
	cfg->session_name = "tapd";
	cfg->rotate_bytes = 32u << 20;
	cfg->buffer_kb = 4096;
	cfg->write_period_ms = 500;
	cfg->flush_period_ms = 500;
	cfg->tail_ms = 250;
	cfg->ftl_lag_ms = 3000;
	cfg->poll_ms = 500;
	cfg->child_timeout_ms = 2000;
	cfg->restart_min_ms = 1000;
	cfg->restart_max_ms = 60000;
	cfg->down_after = 3;
}

int
frames_live_parse_sdk(char *text, const char **trimmed)
{
	char *s = text, *e;
	int64_t sdk;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' ||
			 e[-1] == '\t'))
		*--e = '\0';
	*trimmed = s;
	if (parse_int64(s, 1, 10000, &sdk) < 0)
		return -1;
	return (int)sdk;
}

/* Runs getprop and waits for it: only at start, bounded by the timeout. */
static int
ask_sdk(struct frames_live *fl)
{
	char text[GETPROP_OUT_MAX + 1], why[160];
	struct child_spec spec;
	struct child *c = NULL;
	const char *out, *s;
	char *argv[3];
	int sdk = -1;
	size_t len;

	argv[0] = fl->getprop_bin;
	argv[1] = (char *)"ro.build.version.sdk";
	argv[2] = NULL;
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.out_max = GETPROP_OUT_MAX;
	spec.timeout_ms = fl->cfg.child_timeout_ms;
	if (child_spawn(fl->cs, &spec, &c, why, sizeof(why)) < 0) {
		log_info("%s", why);
		return -1;
	}
	child_set_wait(fl->cs, c);
	out = child_out(c, &len);
	if (child_clean_exit(c) && len > 0) {
		memcpy(text, out, len);
		text[len] = '\0';
		sdk = frames_live_parse_sdk(text, &s);
		if (sdk < 0)
			log_info("cannot parse '%s' output '%s': not an sdk "
				 "level",
				 fl->getprop_bin, s);
	} else {
		log_info("cannot read the sdk level from '%s'",
			 fl->getprop_bin);
	}
	child_free(c);
	return sdk;
}

static enum frames_live_mode
decide_mode(struct frames_live *fl)
{
	int sdk = ask_sdk(fl);

	fl->st.sdk = sdk;
	if (sdk > 0)
		record_set_sdk(fl->cfg.record, sdk);
	if (sdk >= SDK_FTL_MIN)
		return FRAMES_LIVE_FTL;
	if (sdk > 0)
		return FRAMES_LIVE_LATENCY;
	if (child_can_run(fl->perfetto_bin))
		return FRAMES_LIVE_FTL;
	if (child_can_run(fl->dumpsys_bin))
		return FRAMES_LIVE_LATENCY;
	return FRAMES_LIVE_NONE;
}

/* Deletes trace files a tapd that is no longer running left behind. */
static void
clean_stale(struct frames_live *fl)
{
	char path[PATH_MAX], pidbuf[16];
	struct dirent *de;
	const char *dash;
	int64_t pid;
	size_t n;
	DIR *d;

	d = opendir(fl->trace_dir);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "tapd-", 5) != 0)
			continue;
		n = strlen(de->d_name);
		if (n < 8 || strcmp(de->d_name + n - 8, ".pftrace") != 0)
			continue;
		dash = strchr(de->d_name + 5, '-');
		if (!dash || (size_t)(dash - de->d_name - 5) >= sizeof(pidbuf))
			continue;
		memcpy(pidbuf, de->d_name + 5, (size_t)(dash - de->d_name - 5));
		pidbuf[dash - de->d_name - 5] = '\0';
		if (parse_int64(pidbuf, 1, INT_MAX, &pid) < 0)
			continue;
		if (pid != getpid() &&
		    (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", fl->trace_dir,
			     de->d_name) >= (int)sizeof(path))
			continue;
		if (unlink(path) == 0)
			log_info("deleted '%s', left by an earlier tapd", path);
	}
	closedir(d);
}

static int
config_ok(const struct frames_live_config *c)
{
	if (c->mode != FRAMES_LIVE_AUTO && c->mode != FRAMES_LIVE_FTL &&
	    c->mode != FRAMES_LIVE_LATENCY) {
		log_error("cannot start the frame source: unknown mode %d",
			  (int)c->mode);
		return 0;
	}
	if (c->rotate_bytes < 4096 || c->rotate_bytes > (UINT64_MAX >> 2) ||
	    c->buffer_kb == 0 ||
	    c->write_period_ms < TRACECFG_WRITE_PERIOD_MIN_MS ||
	    c->tail_ms == 0 || c->poll_ms == 0 || c->child_timeout_ms == 0 ||
	    c->restart_min_ms == 0 || c->restart_max_ms < c->restart_min_ms ||
	    c->down_after == 0 ||
	    (c->cap_bytes && c->cap_bytes <= c->rotate_bytes)) {
		log_error("cannot start the frame source: a period, size or "
			  "count in its configuration is out of range");
		return 0;
	}
	return 1;
}

static void
arm_timer(struct frames_live *fl, int64_t now)
{
	struct itimerspec its;
	int64_t next = INT64_MAX;

	if (fl->ftl)
		next = frames_perfetto_next_due(fl->ftl, now);
	else if (fl->latency)
		next = frames_dumpsys_next_due(fl->latency);
	if (fl->idle && frames_dumpsys_next_due(fl->idle) < next)
		next = frames_dumpsys_next_due(fl->idle);
	memset(&its, 0, sizeof(its));
	if (next != INT64_MAX) {
		if (next <= now)
			next = now + 1;
		its.it_value.tv_sec = next / 1000000000;
		its.it_value.tv_nsec = next % 1000000000;
	}
	if (timerfd_settime(fl->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		log_warn("cannot arm the frame source timer");
}

/*
 * The trace files' inotify fd joins the epoll set: a write of perfetto's
 * wakes the loop, and the timer is left for what runs on time.
 */
static int
watch_notify(struct frames_live *fl)
{
	struct epoll_event ev;
	int fd = frames_perfetto_fd(fl->ftl);

	if (fd < 0)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = fd;
	if (epoll_ctl(fl->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		log_error("cannot watch the trace files: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* The epoll set: the timer, and the children's own set. */
static int
make_fds(struct frames_live *fl)
{
	struct epoll_event ev;
	int fds[2], i;

	fl->epfd = epoll_create1(EPOLL_CLOEXEC);
	fl->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fl->epfd < 0 || fl->tfd < 0) {
		log_error("cannot create the frame source's fds: %s",
			  strerror(errno));
		return -errno;
	}
	fds[0] = fl->tfd;
	fds[1] = child_set_fd(fl->cs);
	for (i = 0; i < 2; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.fd = fds[i];
		if (epoll_ctl(fl->epfd, EPOLL_CTL_ADD, fds[i], &ev) < 0) {
			log_error("cannot watch the frame source's fds: %s",
				  strerror(errno));
			return -errno;
		}
	}
	return 0;
}

int
frames_live_new(const struct frames_live_config *cfg, struct frames_live **out)
{
	struct frames_live *fl;
	int rc = 0;

	if (!config_ok(cfg))
		return -EINVAL;
	fl = calloc(1, sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	fl->cfg = *cfg;
	if (!fl->cfg.cap_bytes)
		fl->cfg.cap_bytes = 2 * cfg->rotate_bytes;
	fl->epfd = -1;
	fl->tfd = -1;
	fl->coverage = INT64_MIN;
	fl->st.sdk = -1;
	fl->perfetto_bin =
		strdup(cfg->perfetto_bin ? cfg->perfetto_bin : "perfetto");
	fl->dumpsys_bin =
		strdup(cfg->dumpsys_bin ? cfg->dumpsys_bin : "dumpsys");
	fl->getprop_bin =
		strdup(cfg->getprop_bin ? cfg->getprop_bin : "getprop");
	fl->trace_dir = strdup(cfg->trace_dir ? cfg->trace_dir
					      : "/data/misc/perfetto-traces");
	fl->session_name =
		strdup(cfg->session_name ? cfg->session_name : "tapd");
	if (!fl->perfetto_bin || !fl->dumpsys_bin || !fl->getprop_bin ||
	    !fl->trace_dir || !fl->session_name) {
		rc = -ENOMEM;
		goto out;
	}
	fl->cfg.perfetto_bin = fl->perfetto_bin;
	fl->cfg.dumpsys_bin = fl->dumpsys_bin;
	fl->cfg.getprop_bin = fl->getprop_bin;
	fl->cfg.trace_dir = fl->trace_dir;
	fl->cfg.session_name = fl->session_name;
	rc = child_set_new(&fl->cs);
	if (rc == 0)
		rc = make_fds(fl);
	if (rc < 0)
		goto out;
	fl->mode = cfg->mode;
	if (fl->mode == FRAMES_LIVE_AUTO)
		fl->mode = decide_mode(fl);
	switch (fl->mode) {
	case FRAMES_LIVE_FTL:
		rc = frames_perfetto_new(&fl->cfg, fl->cs, &fl->st, &fl->ftl);
		if (rc == 0)
			rc = watch_notify(fl);
		if (rc == 0)
			rc = frames_dumpsys_new(&fl->cfg, fl->cs, &fl->st,
						&fl->idle);
		if (rc < 0)
			goto out;
		clean_stale(fl);
		set_health(fl, STATUS_HEALTH_DEGRADED, "starting perfetto");
		log_info("frames: perfetto FrameTimeline (sdk %d)", fl->st.sdk);
		break;
	case FRAMES_LIVE_LATENCY:
		rc = frames_dumpsys_new(&fl->cfg, fl->cs, &fl->st,
					&fl->latency);
		if (rc < 0)
			goto out;
		fl->coverage = loop_now_ns();
		record_latency_list(fl->cfg.record, fl->coverage, NULL, 0);
		set_health(fl, STATUS_HEALTH_UP,
			   "dumpsys SurfaceFlinger --latency, polled while "
			   "taps are pending");
		log_info("frames: dumpsys SurfaceFlinger --latency (sdk %d)",
			 fl->st.sdk);
		break;
	default:
		set_health(fl, STATUS_HEALTH_DOWN,
			   "no perfetto or dumpsys: frames unavailable");
		log_warnx("no perfetto or dumpsys: frames unavailable");
		break;
	}
	arm_timer(fl, loop_now_ns());
out:
	if (rc < 0) {
		frames_live_free(fl);
		return rc;
	}
	*out = fl;
	return 0;
}

void
frames_live_free(struct frames_live *fl)
{
	if (!fl)
		return;
	frames_perfetto_free(fl->ftl);
	frames_dumpsys_free(fl->idle);
	frames_dumpsys_free(fl->latency);
	child_set_free(fl->cs);
	if (fl->tfd >= 0)
		close(fl->tfd);
	if (fl->epfd >= 0)
		close(fl->epfd);
	free(fl->perfetto_bin);
	free(fl->dumpsys_bin);
	free(fl->getprop_bin);
	free(fl->trace_dir);
	free(fl->session_name);
	free(fl);
}

int
frames_live_fd(const struct frames_live *fl)
{
	return fl->epfd;
}

enum frames_live_mode
frames_live_mode(const struct frames_live *fl)
{
	return fl->mode;
}

/* The layer name without SurfaceFlinger's "TX - " prefix, cut to fit. */
static void
recent_put(struct recent_ring *rr, const struct correlate_frame *f)
{
	struct recent *r = &rr->r[rr->next++ % IDLE_RECENT];
	const char *layer = f->layer ? f->layer : "";

	if (strncmp(layer, "TX - ", 5) == 0)
		layer += 5;
	r->present_ns = f->present_ns;
	snprintf(r->layer, sizeof(r->layer), "%s", layer);
}

/* Whether rr holds a frame of f's layer presented within the tolerance. */
static int
recent_has(const struct recent_ring *rr, const struct correlate_frame *f)
{
	const char *layer = f->layer ? f->layer : "";
	char cut[IDLE_LAYER_MAX];
	unsigned i;

	if (strncmp(layer, "TX - ", 5) == 0)
		layer += 5;
	snprintf(cut, sizeof(cut), "%s", layer);
	for (i = 0; i < IDLE_RECENT; i++) {
		const struct recent *r = &rr->r[i];
		int64_t d = r->present_ns - f->present_ns;

		if (r->layer[0] && d <= IDLE_MATCH_NS && d >= -IDLE_MATCH_NS &&
		    strcmp(r->layer, cut) == 0)
			return 1;
	}
	return 0;
}

/*
 * A FrameTimeline frame: dropped when the completing poller already gave
 * it (the screen drew again after an idle completion), else remembered.
 */
static int
emit_ftl(void *ctx, const struct correlate_frame *f)
{
	struct emit_ctx *e = ctx;

	if (recent_has(&e->fl->idle_recent, f)) {
		e->fl->st.duplicates++;
		return 0;
	}
	recent_put(&e->fl->ftl_recent, f);
	return e->cb(e->ctx, f);
}

/*
 * A completing row: only what FrameTimeline has not given, presented
 * after its watermark (below it, FrameTimeline has every frame) and not
 * matching a FrameTimeline frame of the layer by its present.
 */
static int
emit_idle(void *ctx, const struct correlate_frame *f)
{
	struct emit_ctx *e = ctx;

	if (f->present_ns <= frames_perfetto_watermark(e->fl->ftl) ||
	    recent_has(&e->fl->ftl_recent, f))
		return 0;
	recent_put(&e->fl->idle_recent, f);
	e->fl->st.idle_frames++;
	return e->cb(e->ctx, f);
}

/*
 * Switches the completing poller on once the FrameTimeline side has been
 * quiet for the stall time while taps wait, and off otherwise.
 */
static int
idle_update(struct frames_live *fl, int64_t now, const char *const *packages,
	    size_t n, int set)
{
	int64_t quiet = frames_perfetto_quiet_since(fl->ftl);
	int64_t stall =
		(int64_t)(fl->cfg.write_period_ms + fl->cfg.tail_ms) * MS_NS;
	int on = fl->pending > 0 && !fl->stopping && quiet != INT64_MAX &&
		 now - quiet >= stall;

	if (on && !fl->idle_on)
		fl->idle_since = now;
	if (on != fl->idle_on || set) {
		fl->idle_on = on;
		return frames_dumpsys_set_wanted(fl->idle, on ? fl->pending : 0,
						 packages, n);
	}
	return 0;
}

int
frames_live_dispatch(struct frames_live *fl, frames_live_cb cb, void *ctx)
{
	struct emit_ctx e = {fl, cb, ctx};
	enum status_health h;
	uint64_t expirations;
	char detail[sizeof(fl->detail)];
	const char *text;
	int64_t now;
	int rc = 0;

	if (read(fl->tfd, &expirations, sizeof(expirations)) < 0 &&
	    errno != EAGAIN)
		log_warn("cannot read the frame source timer");
	/* The children first: their output and exits are the news. */
	child_set_dispatch(fl->cs);
	now = loop_now_ns();
	if (fl->ftl) {
		rc = frames_perfetto_work(fl->ftl, now, emit_ftl, &e);
		if (rc == 0)
			rc = frames_dumpsys_work(fl->idle, now, emit_idle, &e);
		if (!fl->stopping) {
			frames_perfetto_health(fl->ftl, &h, detail,
					       sizeof(detail));
			set_health(fl, h, "%s", detail);
		}
	} else if (fl->latency) {
		rc = frames_dumpsys_work(fl->latency, now, cb, ctx);
		if (frames_dumpsys_health(fl->latency, &h, &text))
			set_health(fl, h, "%s", text);
	}
	arm_timer(fl, now);
	return rc;
}

int64_t
frames_live_watermark(const struct frames_live *fl)
{
	if (fl->ftl)
		return frames_perfetto_watermark(fl->ftl);
	if (fl->latency)
		return frames_dumpsys_watermark(fl->latency);
	/* none: no frame will ever come. */
	return INT64_MAX;
}

int64_t
frames_live_coverage_start(const struct frames_live *fl)
{
	if (fl->ftl)
		return frames_perfetto_coverage_start(fl->ftl);
	return fl->coverage;
}

int
frames_live_set_wanted(struct frames_live *fl, int pending_taps,
		       const char *const *packages, size_t n)
{
	int rc;

	if (fl->ftl) {
		fl->pending = pending_taps;
		rc = idle_update(fl, loop_now_ns(), packages, n, 1);
		arm_timer(fl, loop_now_ns());
		return rc;
	}
	if (!fl->latency)
		return 0;
	rc = frames_dumpsys_set_wanted(fl->latency, pending_taps, packages, n);
	/* A tap that starts waiting makes a cycle due now. */
	arm_timer(fl, loop_now_ns());
	return rc;
}

void
frames_live_stop(struct frames_live *fl)
{
	int64_t now = loop_now_ns();

	fl->stopping = 1;
	if (fl->ftl)
		frames_perfetto_stop(fl->ftl, now);
	if (fl->idle)
		frames_dumpsys_stop(fl->idle);
	if (fl->latency)
		frames_dumpsys_stop(fl->latency);
	arm_timer(fl, now);
}

int
frames_live_stopped(const struct frames_live *fl)
{
	if (!fl->stopping)
		return 0;
	if (fl->ftl && !frames_perfetto_stopped(fl->ftl))
		return 0;
	if (fl->idle && !frames_dumpsys_stopped(fl->idle))
		return 0;
	return !fl->latency || frames_dumpsys_stopped(fl->latency);
}

void
frames_live_idle(struct frames_live *fl, int64_t now, int64_t *from_latency_ns,
		 int64_t *unconfirmed_ns)
{
	int64_t quiet, wm;

	*from_latency_ns = INT64_MIN;
	*unconfirmed_ns = INT64_MIN;
	if (!fl->ftl || fl->stopping)
		return;
	quiet = frames_perfetto_quiet_since(fl->ftl);
	if (quiet == INT64_MAX)
		return;
	wm = frames_dumpsys_watermark(fl->idle);
	/* Only a cycle of this stall counts: one captured after it began. */
	if (fl->idle_on && wm != INT64_MIN && wm >= fl->idle_since)
		*from_latency_ns = wm;
	if (now - quiet >= (int64_t)fl->cfg.ftl_lag_ms * MS_NS)
		*unconfirmed_ns = now - IDLE_UNCONFIRMED_NS;
}

void
frames_live_get_stats(const struct frames_live *fl,
		      struct frames_live_stats *st)
{
	*st = fl->st;
	child_set_counts(fl->cs, &st->children, &st->children_running);
	st->packets = 0;
	st->packets_dropped = 0;
	if (fl->ftl)
		frames_perfetto_packets(fl->ftl, &st->packets,
					&st->packets_dropped);
}
