#include "frames_live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "correlate.h"
#include "frames_ftl.h"
#include "frames_latency.h"
#include "log.h"
#include "parse.h"
#include "status.h"
#include "tracecfg.h"

#define MS_NS INT64_C(1000000)

/* Bytes of trace read per dispatch, so a backlog never stalls the loop. */
#define READ_BUDGET (4 << 20)
#define READ_CHUNK  65536

/* Room kept for a child's last line on stderr. */
#define ERRLINE_MAX 160

/* Output kept from getprop. */
#define GETPROP_OUT_MAX 256

/* After a child's pipes close, how soon to look again for its exit. */
#define REAP_RETRY_NS (5 * MS_NS)

/*
 * Slots for perfetto sessions: the current one, the one it replaces, and
 * room for ones still being read after they exited.
 */
#define SESSIONS_MAX 4

/* Latency trackers kept, least recently polled evicted first. */
#define TRACKERS_MAX 64

/* How long free() lets perfetto write its tail before killing it. */
#define FREE_GRACE_NS (1000 * MS_NS)

/* The FrameTimeline data source is on Android 12 (API 31) and later. */
#define SDK_FTL_MIN 31

#define SEEN_TABLE (2 * FRAMES_LIVE_SEEN_MAX)

#define DEFAULT_PATH "/system/bin:/vendor/bin:/usr/bin:/bin"

struct child {
	pid_t pid; /* -1 when none */
	int out_fd, err_fd;
	char *out;
	size_t out_len, out_cap, out_max;
	int out_over; /* more output than out_max: the rest was dropped */
	char errline[ERRLINE_MAX];
	char errpart[ERRLINE_MAX];
	size_t errpart_len;
	uint64_t err_bytes;
	int64_t started_ns;
	int64_t deadline_ns; /* killed then; INT64_MAX for never */
	int64_t reap_at_ns;  /* look for the exit again then */
	int killed;	     /* by us */
	int exited;
	int status;
	int64_t exited_ns;
};

struct session {
	int used;
	int name_idx;
	char path[PATH_MAX];
	struct child ch;
	int fd;
	struct ftl *rd;
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

struct tracked {
	struct latency_tracker *t;
	uint64_t used;
};

enum lat_state {
	LAT_IDLE,
	LAT_LIST,
	LAT_LAYER,
};

struct latency_poller {
	enum lat_state state;
	struct child ch;
	int64_t capture_ns;
	int64_t cycle_start_ns;
	int64_t next_poll_ns;
	char *layers[FRAMES_LIVE_LAYERS_MAX];
	size_t nlayers, ilayer;
	int64_t cycle_wm;
	int cycle_has_wm;
	int cycle_failed;
	unsigned cycle_snaps, cycle_zero_snaps;
	char problem[ERRLINE_MAX + 64];
	int down;
	struct tracked trackers[TRACKERS_MAX];
	uint64_t clock;
	char *wanted[FRAMES_LIVE_WANTED_MAX];
	size_t nwanted;
	int pending;
};

struct seen {
	uint64_t *table;
	uint64_t *ring;
	size_t nring, head;
};

struct frames_live {
	struct frames_live_config cfg;
	char *perfetto_bin, *dumpsys_bin, *getprop_bin, *trace_dir,
		*session_name;
	enum frames_live_mode mode;
	int epfd, tfd;
	int64_t wm;
	int64_t coverage;
	int stopping;
	int more; /* work left over from the last dispatch */
	struct frames_live_stats st;
	uint8_t *buf;

	/* ftl */
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
	char last_error[ERRLINE_MAX + 128];
	struct seen seen;
	uint64_t ftl_packets, ftl_dropped; /* of readers already freed */

	/* latency */
	struct latency_poller lat;

	/* health as last reported */
	enum status_health health;
	char detail[sizeof(((struct status_source_state *)0)->detail)];
	int health_set;
};

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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

/* Children. */

static void
child_init(struct child *c)
{
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->out_fd = -1;
	c->err_fd = -1;
	c->deadline_ns = INT64_MAX;
	c->reap_at_ns = INT64_MAX;
}

static int
child_running(const struct child *c)
{
	return c->pid > 0 && !c->exited;
}

static void
close_pipe(struct frames_live *fl, int *fd)
{
	if (*fd < 0)
		return;
	epoll_ctl(fl->epfd, EPOLL_CTL_DEL, *fd, NULL);
	close(*fd);
	*fd = -1;
}

/* Kills and reaps a child still running, waiting for it. */
static void
child_release(struct frames_live *fl, struct child *c)
{
	close_pipe(fl, &c->out_fd);
	close_pipe(fl, &c->err_fd);
	if (child_running(c)) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		fl->st.children_running--;
	}
	free(c->out);
	child_init(c);
}

/*
 * Looks up a program as execvp() would, but in the parent: the child of
 * a threaded process should only make async-signal-safe calls.
 */
static int
resolve(const char *name, char *buf, size_t size)
{
	const char *path, *p, *colon;
	size_t dlen;
	int n;

	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		n = snprintf(buf, size, "%s", name);
		if (n < 0 || (size_t)n >= size)
			return -ENAMETOOLONG;
		return access(buf, X_OK) == 0 ? 0 : -errno;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = DEFAULT_PATH;
	for (p = path; *p; p = colon + 1) {
		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		dlen = (size_t)(colon - p);
		n = snprintf(buf, size, "%.*s/%s", (int)dlen, dlen ? p : ".",
			     name);
		if (n > 0 && (size_t)n < size && access(buf, X_OK) == 0)
			return 0;
		if (!*colon)
			break;
	}
	return -ENOENT;
}

static int
can_run(const char *name)
{
	char path[PATH_MAX];

	return resolve(name, path, sizeof(path)) == 0;
}

/* Between fork() and exec(): async-signal-safe calls only. */
static void __attribute__((noreturn))
child_exec(const char *path, char *const argv[], int in, int out, int err,
	   int status_fd, pid_t parent)
{
	struct sigaction sa;
	sigset_t none;
	int fds[3], i, e;

	fds[0] = in;
	fds[1] = out;
	fds[2] = err;
	/*
	 * Ignored signals stay ignored across exec and the loop blocks the
	 * ones it takes through a signalfd: perfetto must see SIGTERM.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			sigaction(i, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	/* Out of 0-2 first, so that no dup2() overwrites a later source. */
	for (i = 0; i < 3; i++)
		if (fds[i] < 3 && (fds[i] = fcntl(fds[i], F_DUPFD, 3)) < 0)
			goto fail;
	for (i = 0; i < 3; i++)
		if (dup2(fds[i], i) < 0)
			goto fail;
	execv(path, argv);
fail:
	e = errno;
	if (write(status_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Writes the child's stdin without dying of SIGPIPE if it already left. */
static void
feed_stdin(int fd, const void *data, size_t len)
{
	sigset_t pipe_set, old, pending;
	struct timespec zero = {0, 0};
	const uint8_t *p = data;
	int was_pending;
	ssize_t n;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		len -= (size_t)n;
	}
	if (!was_pending)
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 &&
		       errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int
watch(struct frames_live *fl, int fd)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = fd;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    epoll_ctl(fl->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	return 0;
}

/*
 * Starts argv as a child.  in (len bytes) becomes its stdin, else
 * /dev/null; with out_max > 0 up to out_max bytes of its stdout are kept,
 * else it goes to /dev/null; stderr is read for its last line.  Returns 0,
 * or a negative errno with c->errline saying why.
 */
static int
child_spawn(struct frames_live *fl, struct child *c, char *const argv[],
	    const void *in, size_t len, size_t out_max, uint32_t timeout_ms)
{
	char path[PATH_MAX];
	int inp[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1};
	int stp[2] = {-1, -1};
	pid_t pid, parent = getpid();
	ssize_t n;
	int rc, e;

	child_init(c);
	rc = resolve(argv[0], path, sizeof(path));
	if (rc < 0) {
		snprintf(c->errline, sizeof(c->errline), "cannot run '%s': %s",
			 argv[0], strerror(-rc));
		return rc;
	}
	if (in)
		rc = pipe2(inp, O_CLOEXEC);
	else
		rc = (inp[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0;
	if (rc == 0 && out_max)
		rc = pipe2(outp, O_CLOEXEC);
	else if (rc == 0)
		rc = (outp[1] = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0;
	if (rc == 0)
		rc = pipe2(errp, O_CLOEXEC);
	if (rc == 0)
		rc = pipe2(stp, O_CLOEXEC);
	if (rc != 0) {
		rc = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	if (pid == 0)
		child_exec(path, argv, inp[0], outp[1], errp[1], stp[1],
			   parent);
	fl->st.children++;
	fl->st.children_running++;
	close_fd(&inp[0]);
	close_fd(&outp[1]);
	close_fd(&errp[1]);
	close_fd(&stp[1]);
	/* The exec either closes this pipe or reports why it failed. */
	do
		n = read(stp[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		fl->st.children_running--;
		rc = -e;
		goto out;
	}
	c->pid = pid;
	c->started_ns = now_ns();
	c->deadline_ns =
		timeout_ms ? c->started_ns + timeout_ms * MS_NS : INT64_MAX;
	c->out_max = out_max;
	if (in) {
		/*
		 * A config never fills a pipe, but a stuck child must not
		 * stall the loop if one ever did.
		 */
		fcntl(inp[1], F_SETFL, O_NONBLOCK);
		feed_stdin(inp[1], in, len);
		close_fd(&inp[1]);
	}
	if (out_max) {
		c->out_fd = outp[0];
		outp[0] = -1;
		rc = watch(fl, c->out_fd);
	}
	c->err_fd = errp[0];
	errp[0] = -1;
	if (rc == 0)
		rc = watch(fl, c->err_fd);
	if (rc < 0)
		child_release(fl, c);
out:
	if (rc < 0 && !c->errline[0])
		snprintf(c->errline, sizeof(c->errline), "cannot run '%s': %s",
			 argv[0], strerror(-rc));
	close_fd(&inp[0]);
	close_fd(&inp[1]);
	close_fd(&outp[0]);
	close_fd(&outp[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	close_fd(&stp[0]);
	close_fd(&stp[1]);
	return rc;
}

static void
err_bytes(struct child *c, const char *p, size_t n)
{
	size_t i;

	c->err_bytes += n;
	for (i = 0; i < n; i++) {
		if (p[i] == '\n' || p[i] == '\r') {
			if (c->errpart_len) {
				memcpy(c->errline, c->errpart, c->errpart_len);
				c->errline[c->errpart_len] = '\0';
			}
			c->errpart_len = 0;
		} else if (c->errpart_len < sizeof(c->errpart) - 1) {
			/* Control bytes would garble the health text. */
			c->errpart[c->errpart_len++] =
				(unsigned char)p[i] < 0x20 ? '?' : p[i];
		}
	}
}

static void
out_bytes(struct child *c, const char *p, size_t n)
{
	char *q;
	size_t cap;

	if (c->out_len + n > c->out_max) {
		c->out_over = 1;
		n = c->out_max - c->out_len;
	}
	if (n == 0)
		return;
	if (c->out_len + n > c->out_cap) {
		cap = c->out_cap ? c->out_cap : 16384;
		while (cap < c->out_len + n)
			cap *= 2;
		q = realloc(c->out, cap);
		if (!q) {
			c->out_over = 1;
			return;
		}
		c->out = q;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, p, n);
	c->out_len += n;
}

/* Reads what a pipe has; closes it at its end. */
static void
drain_pipe(struct frames_live *fl, struct child *c, int *fd, int is_err)
{
	char buf[4096];
	ssize_t n;

	while (*fd >= 0) {
		n = read(*fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close_pipe(fl, fd);
			break;
		}
		if (is_err)
			err_bytes(c, buf, (size_t)n);
		else
			out_bytes(c, buf, (size_t)n);
	}
	if (is_err && c->errpart_len) {
		memcpy(c->errline, c->errpart, c->errpart_len);
		c->errline[c->errpart_len] = '\0';
		c->errpart_len = 0;
	}
}

/*
 * Reads the child's pipes, kills it at its deadline and reaps it once it
 * has exited.  Pipes stay open until they end, so output written just
 * before the exit is read.
 */
static void
child_pump(struct frames_live *fl, struct child *c, int64_t now)
{
	pid_t r;
	int status;

	if (c->pid <= 0 || c->exited)
		return;
	drain_pipe(fl, c, &c->out_fd, 0);
	drain_pipe(fl, c, &c->err_fd, 1);
	if (!c->killed && now >= c->deadline_ns) {
		kill(c->pid, SIGKILL);
		c->killed = 1;
	}
	do
		r = waitpid(c->pid, &status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		/* Pipes closed but not yet a zombie: look again shortly. */
		c->reap_at_ns = (c->out_fd < 0 && c->err_fd < 0) || c->killed
					? now + REAP_RETRY_NS
					: INT64_MAX;
		return;
	}
	c->exited = 1;
	if (r < 0) {
		/* Someone else reaped it: its status is unknown. */
		log_warnx("cannot wait for child %d: %s", (int)c->pid,
			  strerror(errno));
		status = 255 << 8;
	}
	c->status = status;
	c->exited_ns = now;
	c->reap_at_ns = INT64_MAX;
	fl->st.children_running--;
	/* What the child wrote before it exited is still in the pipes. */
	drain_pipe(fl, c, &c->out_fd, 0);
	drain_pipe(fl, c, &c->err_fd, 1);
	/* A grandchild may hold them open; nothing more is wanted. */
	close_pipe(fl, &c->out_fd);
	close_pipe(fl, &c->err_fd);
}

static int
child_clean_exit(const struct child *c)
{
	return c->exited && !c->killed && WIFEXITED(c->status) &&
	       WEXITSTATUS(c->status) == 0;
}

/* "status 1", "signal 9": how a child ended, for messages. */
static void
exit_text(const struct child *c, char *buf, size_t size)
{
	if (c->killed)
		snprintf(buf, size, "killed after its timeout");
	else if (WIFSIGNALED(c->status))
		snprintf(buf, size, "signal %d", WTERMSIG(c->status));
	else
		snprintf(buf, size, "status %d", WEXITSTATUS(c->status));
}

/* The set of frame keys already emitted. */

static int
seen_init(struct seen *s)
{
	s->table = calloc(SEEN_TABLE, sizeof(*s->table));
	s->ring = calloc(FRAMES_LIVE_SEEN_MAX, sizeof(*s->ring));
	return s->table && s->ring ? 0 : -ENOMEM;
}

static void
seen_release(struct seen *s)
{
	free(s->table);
	free(s->ring);
}

static size_t
seen_slot(uint64_t k)
{
	return (size_t)((k * UINT64_C(0x9e3779b97f4a7c15)) >> 32) &
	       (SEEN_TABLE - 1);
}

static int
seen_has(const struct seen *s, uint64_t k)
{
	size_t i = seen_slot(k);

	while (s->table[i]) {
		if (s->table[i] == k)
			return 1;
		i = (i + 1) & (SEEN_TABLE - 1);
	}
	return 0;
}

/* Linear probing: deletion moves later entries of the run back. */
static void
seen_del(struct seen *s, uint64_t k)
{
	size_t i = seen_slot(k), j, h;

	while (s->table[i] && s->table[i] != k)
		i = (i + 1) & (SEEN_TABLE - 1);
	if (!s->table[i])
		return;
	j = i;
	for (;;) {
		j = (j + 1) & (SEEN_TABLE - 1);
		if (!s->table[j])
			break;
		h = seen_slot(s->table[j]);
		/* Move j to i unless its home lies cyclically in (i, j]. */
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			s->table[i] = s->table[j];
			i = j;
		}
	}
	s->table[i] = 0;
}

static void
seen_add(struct seen *s, uint64_t k)
{
	size_t i;

	if (s->nring == FRAMES_LIVE_SEEN_MAX) {
		seen_del(s, s->ring[s->head]);
		s->ring[s->head] = k;
		s->head = (s->head + 1) % FRAMES_LIVE_SEEN_MAX;
	} else {
		s->ring[s->nring++] = k;
	}
	i = seen_slot(k);
	while (s->table[i])
		i = (i + 1) & (SEEN_TABLE - 1);
	s->table[i] = k;
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 29;
	return h;
}

static uint64_t
frame_key(const struct ftl_frame *f)
{
	uint64_t h = UINT64_C(1469598103934665603);
	const unsigned char *p;

	h = mix(h, (uint64_t)(uint32_t)f->pid);
	h = mix(h, (uint64_t)f->token);
	h = mix(h, (uint64_t)f->display_token);
	for (p = (const unsigned char *)f->layer; *p; p++)
		h = (h ^ *p) * UINT64_C(1099511628211);
	h = mix(h, 0);
	return h ? h : 1;
}

/* FrameTimeline. */

static const char *
session_name_of(struct frames_live *fl, int idx, char *buf, size_t size)
{
	snprintf(buf, size, "%s_%d", fl->session_name, idx);
	return buf;
}

static void
fold_reader_stats(struct frames_live *fl, const struct session *s)
{
	struct ftl_stats st;

	if (!s->rd)
		return;
	ftl_get_stats(s->rd, &st);
	fl->ftl_packets += st.packets;
	fl->ftl_dropped += st.packets_lost + st.malformed + st.evicted_waiting +
			   st.unpaired_ends + st.corrupt;
}

/* Frees a session slot, deleting its file. */
static void
session_release(struct frames_live *fl, struct session *s, int delete_file)
{
	if (!s->used)
		return;
	child_release(fl, &s->ch);
	if (s->fd >= 0)
		close(s->fd);
	if (delete_file && s->path[0]) {
		if (unlink(s->path) == 0)
			fl->st.files_deleted++;
		else if (errno != ENOENT)
			log_warn("cannot delete '%s'", s->path);
	}
	fold_reader_stats(fl, s);
	ftl_free(s->rd);
	if (fl->cur == s)
		fl->cur = NULL;
	if (fl->old == s)
		fl->old = NULL;
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	child_init(&s->ch);
}

static struct session *
session_slot(struct frames_live *fl)
{
	int i;

	for (i = 0; i < SESSIONS_MAX; i++)
		if (!fl->sess[i].used)
			return &fl->sess[i];
	return NULL;
}

static void
ftl_failure(struct frames_live *fl, int64_t now)
{
	fl->fails++;
	fl->st.session_failures++;
	fl->restart_at_ns = now + fl->backoff_ms * MS_NS;
	fl->backoff_ms *= 2;
	if (fl->backoff_ms > fl->cfg.restart_max_ms)
		fl->backoff_ms = fl->cfg.restart_max_ms;
}

/* Starts a perfetto session writing a new file.  Returns it or NULL. */
static struct session *
session_start(struct frames_live *fl, int64_t now)
{
	struct tracecfg_params p;
	struct session *s = session_slot(fl);
	char name[64];
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
	if (faccessat(AT_FDCWD, fl->trace_dir, W_OK | X_OK, AT_EACCESS) < 0) {
		snprintf(fl->last_error, sizeof(fl->last_error),
			 "cannot start perfetto: cannot write to trace "
			 "directory '%s': %s",
			 fl->trace_dir, strerror(errno));
		log_warnx("%s", fl->last_error);
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	child_init(&s->ch);
	for (tries = 0; tries < 1000; tries++) {
		n = snprintf(s->path, sizeof(s->path), "%s/tapd-%d-%u.pftrace",
			     fl->trace_dir, (int)getpid(), ++fl->file_seq);
		if (n < 0 || (size_t)n >= sizeof(s->path)) {
			snprintf(fl->last_error, sizeof(fl->last_error),
				 "trace directory name too long: '%s'",
				 fl->trace_dir);
			return NULL;
		}
		if (access(s->path, F_OK) < 0 && errno == ENOENT)
			break;
	}
	/* Two sessions of ours overlap in a rotation: names must differ. */
	if (fl->cur && fl->cur->ch.pid > 0)
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
		rc = ftl_new(NULL, &s->rd);
	if (rc < 0) {
		snprintf(fl->last_error, sizeof(fl->last_error),
			 "cannot prepare a perfetto session: %s",
			 strerror(-rc));
		free(cfg);
		ftl_free(s->rd);
		s->rd = NULL;
		return NULL;
	}
	argv[0] = fl->perfetto_bin;
	argv[1] = (char *)"-c";
	argv[2] = (char *)"-";
	argv[3] = NULL;
	rc = child_spawn(fl, &s->ch, argv, cfg, len, 0, 0);
	free(cfg);
	fl->st.sessions++;
	if (rc < 0) {
		/* The health must say it is perfetto, whatever its path. */
		snprintf(fl->last_error, sizeof(fl->last_error),
			 "cannot start perfetto: %s", s->ch.errline);
		log_warnx("%s", fl->last_error);
		ftl_free(s->rd);
		s->rd = NULL;
		child_init(&s->ch);
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
emit_ftl(struct frames_live *fl, struct session *s, frames_live_cb cb,
	 void *ctx)
{
	struct correlate_frame cf;
	struct ftl_frame f;
	uint64_t key;
	int rc;

	while (ftl_next(s->rd, &f) == 1) {
		if (s->first_present == INT64_MIN)
			s->first_present = f.present_ns;
		if (f.present_ns > s->max_present)
			s->max_present = f.present_ns;
		key = frame_key(&f);
		if (seen_has(&fl->seen, key)) {
			fl->st.duplicates++;
			continue;
		}
		seen_add(&fl->seen, key);
		memset(&cf, 0, sizeof(cf));
		cf.pid = f.pid;
		cf.layer = f.layer;
		cf.start_ns = f.start_ns;
		cf.present_ns = f.present_ns;
		cf.jank = f.jank;
		fl->st.frames++;
		rc = cb(ctx, &cf);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Reads what the file has (up to *budget bytes) and emits its frames. */
static int
session_read(struct frames_live *fl, struct session *s, int64_t now,
	     size_t *budget, frames_live_cb cb, void *ctx)
{
	struct ftl_stats st;
	ssize_t n;
	int rc;

	if (s->fd < 0 && !s->eof_fed) {
		s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0 && errno != ENOENT)
			log_warn("cannot open '%s'", s->path);
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
		fl->st.bytes_read += (uint64_t)n;
		rc = ftl_feed(s->rd, fl->buf, (size_t)n);
		if (rc < 0)
			return rc;
		rc = emit_ftl(fl, s, cb, ctx);
		if (rc < 0)
			return rc;
	}
	if (*budget == 0)
		fl->more = 1;
	ftl_get_stats(s->rd, &st);
	if (st.frame_events != s->frame_events) {
		s->frame_events = st.frame_events;
		s->last_event_ns = now;
	}
	if (s->coverage == INT64_MIN)
		s->coverage = ftl_coverage_start(s->rd);
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
session_join(struct frames_live *fl, struct session *s, int continuous)
{
	int64_t from = fl->wm, to = s->coverage;

	s->joined = 1;
	if (fl->coverage == INT64_MIN && !fl->ever_joined)
		fl->coverage = s->coverage;
	if (fl->ever_joined && !continuous) {
		fl->st.gaps++;
		if (from != INT64_MIN && to > from) {
			fl->st.gap_ns += to - from;
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
session_finish(struct frames_live *fl, struct session *s, int64_t now,
	       frames_live_cb cb, void *ctx)
{
	size_t budget = SIZE_MAX;
	int64_t grace, wm;
	int rc;

	grace = child_clean_exit(&s->ch) ? 0 : fl->cfg.write_period_ms * MS_NS;
	if (now < s->ch.exited_ns + grace)
		return 0;
	rc = session_read(fl, s, now, &budget, cb, ctx);
	if (rc < 0)
		return rc;
	if (!s->eof_fed) {
		ftl_eof(s->rd);
		s->eof_fed = 1;
	}
	rc = emit_ftl(fl, s, cb, ctx);
	if (rc < 0)
		return rc;
	wm = ftl_watermark(s->rd);
	if (s->joined && wm > fl->wm)
		fl->wm = wm;
	log_info("perfetto session file '%s' read: %" PRIu64 " bytes", s->path,
		 s->bytes);
	session_release(fl, s, 1);
	return 0;
}

/* A session's child has exited: what it means for the others. */
static void
session_exited(struct frames_live *fl, struct session *s, int64_t now)
{
	char how[64];

	if (s->counted_exit)
		return;
	s->counted_exit = 1;
	fl->st.session_exits++;
	exit_text(&s->ch, how, sizeof(how));
	if (s->stopping) {
		/* Asked to stop (rotation or stop()): nothing went wrong. */
	} else if (s == fl->old && child_clean_exit(&s->ch)) {
		/*
		 * The session being replaced reached its size cap before the
		 * new one took over; the new one carries on, and if it does
		 * not reach back far enough the join records the gap.
		 */
		fl->st.capped++;
		log_info("perfetto session '%s' ended at its size cap",
			 s->path);
	} else if (!s->established) {
		if (s->timed_out)
			snprintf(fl->last_error, sizeof(fl->last_error),
				 "perfetto did not start recording: %s",
				 s->ch.errline[0] ? s->ch.errline : how);
		else
			snprintf(fl->last_error, sizeof(fl->last_error),
				 "perfetto refused: %s",
				 s->ch.errline[0] ? s->ch.errline : how);
		log_warnx("%s", fl->last_error);
		ftl_failure(fl, now);
		if (s == fl->cur && fl->old) {
			/* A rotation failed: the old session carries on. */
			fl->rotate_failed = 1;
			fl->rotate_at_ns = fl->restart_at_ns;
		}
	} else {
		if (child_clean_exit(&s->ch))
			fl->st.capped++;
		snprintf(fl->last_error, sizeof(fl->last_error),
			 "perfetto exited (%s): %s", how,
			 s->ch.errline[0] ? s->ch.errline : "no message");
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
	if (s->stopping || !child_running(&s->ch))
		return;
	kill(s->ch.pid, SIGTERM);
	s->stopping = 1;
	s->stop_sent_ns = now;
}

static int64_t
ftl_establish_timeout_ns(const struct frames_live *fl)
{
	int64_t t = 5 * (int64_t)fl->cfg.write_period_ms * MS_NS;

	return t < 3000 * MS_NS ? 3000 * MS_NS : t;
}

static int
ftl_work(struct frames_live *fl, int64_t now, frames_live_cb cb, void *ctx)
{
	size_t budget = READ_BUDGET;
	struct session *s;
	int64_t cand, lag = fl->cfg.ftl_lag_ms * MS_NS;
	int i, rc, tail = now >= fl->next_tail_ns;

	if (tail)
		fl->next_tail_ns = now + fl->cfg.tail_ms * MS_NS;
	for (i = 0; i < SESSIONS_MAX; i++) {
		s = &fl->sess[i];
		if (!s->used)
			continue;
		child_pump(fl, &s->ch, now);
		if (child_running(&s->ch) && !s->established && !s->ch.killed &&
		    now - s->started_ns >= ftl_establish_timeout_ns(fl)) {
			kill(s->ch.pid, SIGKILL);
			s->ch.killed = 1;
			s->timed_out = 1;
		}
		if (child_running(&s->ch) && s->stopping && !s->ch.killed &&
		    now - s->stop_sent_ns >= ftl_establish_timeout_ns(fl)) {
			kill(s->ch.pid, SIGKILL);
			s->ch.killed = 1;
		}
		if (s->ch.exited)
			session_exited(fl, s, now);
		if (tail || fl->more) {
			rc = session_read(fl, s, now, &budget, cb, ctx);
			if (rc < 0)
				return rc;
		}
		if (s->ch.exited) {
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
			cand = ftl_watermark(fl->old->rd);
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
		if (s && s->joined && !fl->old && child_running(&s->ch) &&
		    !s->stopping && s->bytes >= fl->cfg.rotate_bytes &&
		    now >= fl->rotate_at_ns) {
			struct session *n = session_start(fl, now);

			if (n) {
				fl->st.rotations++;
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
		cand = ftl_watermark(s->rd);
		if (cand > fl->wm)
			fl->wm = cand;
		if (child_running(&s->ch) && !s->stopping && s->at_end &&
		    now - s->last_event_ns >= lag && s->max_present > fl->wm)
			fl->wm = s->max_present;
	}
	return 0;
}

static void
ftl_health(struct frames_live *fl)
{
	const struct session *s = fl->cur;

	if (s && s->joined && child_running(&s->ch)) {
		if (fl->rotate_failed)
			set_health(fl, STATUS_HEALTH_DEGRADED,
				   "cannot rotate the trace file: %s",
				   fl->last_error);
		else
			set_health(fl, STATUS_HEALTH_UP,
				   "perfetto FrameTimeline session, file '%s'",
				   s->path);
	} else if (fl->fails >= fl->cfg.down_after) {
		set_health(fl, STATUS_HEALTH_DOWN, "%s", fl->last_error);
	} else if (fl->last_error[0]) {
		set_health(fl, STATUS_HEALTH_DEGRADED, "%s; restarting",
			   fl->last_error);
	} else {
		set_health(fl, STATUS_HEALTH_DEGRADED, "starting perfetto");
	}
}

/* dumpsys --latency. */

static void
lat_clear_layers(struct latency_poller *lp)
{
	size_t i;

	for (i = 0; i < lp->nlayers; i++)
		free(lp->layers[i]);
	lp->nlayers = 0;
	lp->ilayer = 0;
}

static struct latency_tracker *
lat_tracker(struct latency_poller *lp, const char *name)
{
	struct tracked *t, *lru = NULL;
	size_t i;

	for (i = 0; i < TRACKERS_MAX; i++) {
		t = &lp->trackers[i];
		if (t->t && strcmp(latency_tracker_layer(t->t), name) == 0) {
			t->used = ++lp->clock;
			return t->t;
		}
		if (!lru || !t->t || (lru->t && t->used < lru->used))
			lru = t;
	}
	latency_tracker_free(lru->t);
	lru->t = NULL;
	if (latency_tracker_new(name, &lru->t) < 0)
		return NULL;
	lru->used = ++lp->clock;
	return lru->t;
}

struct lat_emit {
	struct frames_live *fl;
	frames_live_cb cb;
	void *ctx;
};

static int
on_lat_frame(void *arg, const struct latency_frame *f)
{
	struct lat_emit *e = arg;
	struct correlate_frame cf;

	memset(&cf, 0, sizeof(cf));
	cf.app = f->app;
	cf.layer = f->layer;
	cf.start_ns = f->desired_ns;
	cf.present_ns = f->present_ns;
	e->fl->st.frames++;
	return e->cb(e->ctx, &cf);
}

static void lat_problem(struct latency_poller *lp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
lat_problem(struct latency_poller *lp, const char *fmt, ...)
{
	va_list ap;

	if (lp->problem[0])
		return; /* the first problem of a cycle is reported */
	va_start(ap, fmt);
	vsnprintf(lp->problem, sizeof(lp->problem), fmt, ap);
	va_end(ap);
}

static void
lat_end_cycle(struct frames_live *fl)
{
	struct latency_poller *lp = &fl->lat;

	if (lp->cycle_snaps > 0 && lp->cycle_zero_snaps == lp->cycle_snaps)
		lat_problem(lp,
			    "dumpsys SurfaceFlinger --latency printed only "
			    "zero rows, for all %u layers of the tapped apps",
			    lp->cycle_snaps);
	if (!lp->cycle_failed && lp->cycle_wm != INT64_MIN &&
	    lp->cycle_wm > fl->wm)
		fl->wm = lp->cycle_wm;
	if (lp->down)
		set_health(fl, STATUS_HEALTH_DOWN, "%s", lp->problem);
	else if (lp->problem[0])
		set_health(fl, STATUS_HEALTH_DEGRADED, "%s", lp->problem);
	else
		set_health(fl, STATUS_HEALTH_UP,
			   "dumpsys SurfaceFlinger --latency, %zu layers",
			   lp->nlayers);
	lat_clear_layers(lp);
	lp->state = LAT_IDLE;
	lp->next_poll_ns = lp->cycle_start_ns + fl->cfg.poll_ms * MS_NS;
}

/* Starts `dumpsys SurfaceFlinger <arg> [layer]`; the cycle fails if not. */
static int
lat_spawn(struct frames_live *fl, char *arg, char *layer, size_t out_max)
{
	struct latency_poller *lp = &fl->lat;
	char *argv[5];
	int rc;

	argv[0] = fl->dumpsys_bin;
	argv[1] = (char *)"SurfaceFlinger";
	argv[2] = arg;
	argv[3] = layer;
	argv[4] = NULL;
	lp->capture_ns = now_ns();
	rc = child_spawn(fl, &lp->ch, argv, NULL, 0, out_max,
			 fl->cfg.child_timeout_ms);
	if (rc < 0) {
		fl->st.dumpsys_errors++;
		lp->cycle_failed = 1;
		lp->down = 1;
		lat_problem(lp, "%s", lp->ch.errline);
		child_init(&lp->ch);
	}
	return rc;
}

/* Whether a finished dumpsys child did its job; counts what went wrong. */
static int
lat_child_ok(struct frames_live *fl, const char *what)
{
	struct latency_poller *lp = &fl->lat;
	struct child *c = &lp->ch;
	char how[64];

	if (c->killed) {
		fl->st.dumpsys_timeouts++;
		lat_problem(lp,
			    "dumpsys SurfaceFlinger %s did not answer within "
			    "%" PRIu32 " ms",
			    what, fl->cfg.child_timeout_ms);
		return 0;
	}
	if (c->err_bytes)
		fl->st.dumpsys_stderr++;
	if (!child_clean_exit(c)) {
		fl->st.dumpsys_errors++;
		exit_text(c, how, sizeof(how));
		lat_problem(lp, "dumpsys SurfaceFlinger %s failed (%s): %s",
			    what, how, c->errline);
		return 0;
	}
	if (c->err_bytes)
		lat_problem(lp, "dumpsys SurfaceFlinger %s wrote: %s", what,
			    c->errline);
	return 1;
}

static void
lat_pick(struct frames_live *fl, const struct latency_list *list)
{
	struct latency_poller *lp = &fl->lat;
	const char *names[FRAMES_LIVE_LAYERS_MAX];
	size_t i, j, k, n;
	int dup;

	for (i = 0; i < lp->nwanted; i++) {
		n = 0;
		latency_list_pick(list, lp->wanted[i], names,
				  FRAMES_LIVE_LAYERS_MAX, &n);
		for (j = 0; j < n && lp->nlayers < FRAMES_LIVE_LAYERS_MAX;
		     j++) {
			dup = 0;
			for (k = 0; k < lp->nlayers; k++)
				if (strcmp(lp->layers[k], names[j]) == 0)
					dup = 1;
			if (dup)
				continue;
			lp->layers[lp->nlayers] = strdup(names[j]);
			if (lp->layers[lp->nlayers])
				lp->nlayers++;
		}
	}
}

static int
lat_snapshot(struct frames_live *fl, frames_live_cb cb, void *ctx)
{
	struct latency_poller *lp = &fl->lat;
	const char *layer = lp->layers[lp->ilayer];
	struct latency_snapshot *snap = NULL;
	struct latency_tracker *t;
	struct latency_stats ss;
	struct lat_emit e = {fl, cb, ctx};
	int64_t wm;
	int rc;

	rc = latency_snapshot_parse(lp->ch.out ? lp->ch.out : "",
				    lp->ch.out_len, &snap);
	if (rc < 0)
		return rc;
	latency_snapshot_get_stats(snap, &ss);
	fl->st.snapshots++;
	fl->st.garbage_lines += ss.garbage_lines;
	if (ss.garbage_lines || latency_snapshot_period(snap) < 0)
		lat_problem(lp,
			    "dumpsys SurfaceFlinger --latency '%s' printed "
			    "%" PRIu64 " unexpected lines",
			    layer, ss.garbage_lines);
	lp->cycle_snaps++;
	if (ss.rows > 0 && ss.zero_rows == ss.rows) {
		/*
		 * A buffer layer that has not drawn yet prints zeros too, so
		 * only a cycle where every layer did is a problem.
		 */
		fl->st.zero_snapshots++;
		lp->cycle_zero_snaps++;
	}
	if (lp->ch.out_over)
		lat_problem(lp,
			    "dumpsys SurfaceFlinger --latency '%s' printed "
			    "too much",
			    layer);
	t = lat_tracker(lp, layer);
	if (!t) {
		latency_snapshot_free(snap);
		return -ENOMEM;
	}
	rc = latency_tracker_feed(t, lp->capture_ns, snap, on_lat_frame, &e);
	latency_snapshot_free(snap);
	/* The minimum over the cycle's layers; INT64_MIN is unknown. */
	wm = latency_tracker_watermark(t);
	if (!lp->cycle_has_wm || wm < lp->cycle_wm)
		lp->cycle_wm = wm;
	lp->cycle_has_wm = 1;
	return rc;
}

/* Whether some name ends in "#<digits>", as every layer name does. */
static int
list_has_layers(const struct latency_list *list)
{
	const char *name, *hash;
	size_t i;

	for (i = 0; i < latency_list_count(list); i++) {
		name = latency_list_name(list, i);
		hash = name ? strrchr(name, '#') : NULL;
		if (hash && hash[1] >= '0' && hash[1] <= '9')
			return 1;
	}
	return 0;
}

static int
lat_work(struct frames_live *fl, int64_t now, frames_live_cb cb, void *ctx)
{
	struct latency_poller *lp = &fl->lat;
	struct latency_list *list = NULL;
	int rc;

	for (;;) {
		if (lp->state == LAT_IDLE) {
			if (fl->stopping || lp->pending <= 0 ||
			    now < lp->next_poll_ns)
				return 0;
			fl->st.polls++;
			lp->cycle_start_ns = now;
			lp->cycle_failed = 0;
			lp->cycle_snaps = 0;
			lp->cycle_zero_snaps = 0;
			lp->down = 0;
			lp->problem[0] = '\0';
			lp->cycle_wm = INT64_MIN;
			lp->cycle_has_wm = 0;
			if (lp->nwanted == 0) {
				/* Taps of unknown apps match no frame. */
				lp->cycle_wm = now;
				lat_end_cycle(fl);
				return 0;
			}
			lp->state = LAT_LIST;
			if (lat_spawn(fl, "--list", NULL,
				      LATENCY_LIST_FILE_MAX) < 0) {
				lat_end_cycle(fl);
				return 0;
			}
		}
		if (lp->ch.pid <= 0) {
			/* No child for this step (cannot happen): recover. */
			lp->cycle_failed = 1;
			lat_end_cycle(fl);
			return 0;
		}
		child_pump(fl, &lp->ch, now);
		if (!lp->ch.exited)
			return 0;
		if (lp->state == LAT_LIST) {
			if (lat_child_ok(fl, "--list")) {
				rc = latency_list_parse(lp->ch.out ? lp->ch.out
								   : "",
							lp->ch.out_len, &list);
				if (rc < 0)
					return rc;
				if (!list_has_layers(list)) {
					/*
					 * Every SurfaceFlinger has layers
					 * ("Display Root#0"): this is not a
					 * layer list but, say, a permission
					 * denial.
					 */
					lat_problem(lp,
						    "dumpsys SurfaceFlinger "
						    "--list printed no layer "
						    "names");
					lp->cycle_failed = 1;
				}
				lat_pick(fl, list);
				latency_list_free(list);
				if (lp->nlayers == 0)
					lp->cycle_wm = lp->capture_ns;
			} else {
				lp->cycle_failed = 1;
			}
			child_release(fl, &lp->ch);
			lp->state = LAT_LAYER;
			lp->ilayer = 0;
			if (lp->cycle_failed || lp->nlayers == 0) {
				lat_end_cycle(fl);
				return 0;
			}
		} else {
			if (lat_child_ok(fl, "--latency")) {
				rc = lat_snapshot(fl, cb, ctx);
				if (rc < 0) {
					/*
					 * The tracker keeps its place: the next
					 * cycle's snapshot resumes after the
					 * refused frame.
					 */
					child_release(fl, &lp->ch);
					lp->cycle_failed = 1;
					lat_end_cycle(fl);
					return rc;
				}
			} else {
				lp->cycle_failed = 1;
			}
			child_release(fl, &lp->ch);
			lp->ilayer++;
		}
		if (lp->ilayer >= lp->nlayers || fl->stopping) {
			lat_end_cycle(fl);
			return 0;
		}
		if (lat_spawn(fl, "--latency", lp->layers[lp->ilayer],
			      LATENCY_SNAPSHOT_FILE_MAX) < 0) {
			lat_end_cycle(fl);
			return 0;
		}
	}
}

/* Setup and the loop's interface. */

static void
arm_timer(struct frames_live *fl, int64_t now)
{
	struct itimerspec its;
	int64_t next = INT64_MAX;
	const struct session *s;
	int i;

	if (fl->more) {
		next = now;
	} else if (fl->mode == FRAMES_LIVE_FTL) {
		/*
		 * The files are read on a timer (a growing file gives no
		 * event); it also covers establishment and stop timeouts and
		 * the grace after a crash.
		 */
		for (i = 0; i < SESSIONS_MAX; i++) {
			s = &fl->sess[i];
			if (!s->used)
				continue;
			if (s->ch.reap_at_ns < next)
				next = s->ch.reap_at_ns;
			if (fl->next_tail_ns < next)
				next = fl->next_tail_ns;
		}
		if (!fl->cur && !fl->stopping && fl->restart_at_ns < next)
			next = fl->restart_at_ns;
	} else if (fl->mode == FRAMES_LIVE_LATENCY) {
		if (child_running(&fl->lat.ch)) {
			next = fl->lat.ch.deadline_ns;
			if (fl->lat.ch.reap_at_ns < next)
				next = fl->lat.ch.reap_at_ns;
		} else if (fl->lat.state == LAT_IDLE && fl->lat.pending > 0 &&
			   !fl->stopping) {
			next = fl->lat.next_poll_ns;
		}
	}
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
	cfg->write_period_ms = 1000;
	cfg->flush_period_ms = 1000;
	cfg->tail_ms = 250;
	cfg->ftl_lag_ms = 3000;
	cfg->poll_ms = 500;
	cfg->child_timeout_ms = 2000;
	cfg->restart_min_ms = 1000;
	cfg->restart_max_ms = 60000;
	cfg->down_after = 3;
}

/* Runs getprop and waits for it: only at start, bounded by the timeout. */
static int
ask_sdk(struct frames_live *fl)
{
	struct child c;
	struct pollfd pfd[2];
	char text[GETPROP_OUT_MAX + 1];
	char *argv[3], *s, *e;
	int64_t sdk = -1, now;
	nfds_t n;
	int wait_ms;

	argv[0] = fl->getprop_bin;
	argv[1] = (char *)"ro.build.version.sdk";
	argv[2] = NULL;
	if (child_spawn(fl, &c, argv, NULL, 0, GETPROP_OUT_MAX,
			fl->cfg.child_timeout_ms) < 0) {
		log_info("%s", c.errline);
		return -1;
	}
	for (;;) {
		now = now_ns();
		child_pump(fl, &c, now);
		if (c.exited)
			break;
		n = 0;
		if (c.out_fd >= 0) {
			pfd[n].fd = c.out_fd;
			pfd[n++].events = POLLIN;
		}
		if (c.err_fd >= 0) {
			pfd[n].fd = c.err_fd;
			pfd[n++].events = POLLIN;
		}
		wait_ms = (int)((c.deadline_ns - now) / MS_NS) + 1;
		if (n == 0 || c.killed || wait_ms < 1)
			wait_ms = 5;
		poll(pfd, n, wait_ms);
	}
	if (child_clean_exit(&c) && c.out_len > 0) {
		memcpy(text, c.out, c.out_len);
		text[c.out_len] = '\0';
		s = text;
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' ||
				 e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (parse_int64(s, 1, 10000, &sdk) < 0) {
			log_info("cannot parse '%s' output '%s': not an sdk "
				 "level",
				 fl->getprop_bin, s);
			sdk = -1;
		}
	} else {
		log_info("cannot read the sdk level from '%s'",
			 fl->getprop_bin);
	}
	child_release(fl, &c);
	return (int)sdk;
}

static enum frames_live_mode
decide_mode(struct frames_live *fl)
{
	int sdk = ask_sdk(fl);

	fl->st.sdk = sdk;
	if (sdk >= SDK_FTL_MIN)
		return FRAMES_LIVE_FTL;
	if (sdk > 0)
		return FRAMES_LIVE_LATENCY;
	if (can_run(fl->perfetto_bin))
		return FRAMES_LIVE_FTL;
	if (can_run(fl->dumpsys_bin))
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

int
frames_live_new(const struct frames_live_config *cfg, struct frames_live **out)
{
	struct frames_live *fl;
	struct epoll_event ev;
	int i, rc = 0;

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
	fl->wm = INT64_MIN;
	fl->coverage = INT64_MIN;
	fl->st.sdk = -1;
	fl->backoff_ms = cfg->restart_min_ms;
	child_init(&fl->lat.ch);
	for (i = 0; i < SESSIONS_MAX; i++) {
		fl->sess[i].fd = -1;
		child_init(&fl->sess[i].ch);
	}
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
	fl->buf = malloc(READ_CHUNK);
	if (!fl->perfetto_bin || !fl->dumpsys_bin || !fl->getprop_bin ||
	    !fl->trace_dir || !fl->session_name || !fl->buf ||
	    seen_init(&fl->seen) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	fl->epfd = epoll_create1(EPOLL_CLOEXEC);
	fl->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fl->epfd < 0 || fl->tfd < 0) {
		rc = -errno;
		log_error("cannot create the frame source's fds: %s",
			  strerror(errno));
		goto out;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = fl->tfd;
	if (epoll_ctl(fl->epfd, EPOLL_CTL_ADD, fl->tfd, &ev) < 0) {
		rc = -errno;
		log_error("cannot watch the frame source timer: %s",
			  strerror(errno));
		goto out;
	}
	fl->mode = cfg->mode;
	if (fl->mode == FRAMES_LIVE_AUTO)
		fl->mode = decide_mode(fl);
	switch (fl->mode) {
	case FRAMES_LIVE_FTL:
		clean_stale(fl);
		set_health(fl, STATUS_HEALTH_DEGRADED, "starting perfetto");
		log_info("frames: perfetto FrameTimeline (sdk %d)", fl->st.sdk);
		break;
	case FRAMES_LIVE_LATENCY:
		fl->coverage = now_ns();
		set_health(fl, STATUS_HEALTH_UP,
			   "dumpsys SurfaceFlinger --latency, polled while "
			   "taps are pending");
		log_info("frames: dumpsys SurfaceFlinger --latency (sdk %d)",
			 fl->st.sdk);
		break;
	default:
		fl->wm = INT64_MAX;
		set_health(fl, STATUS_HEALTH_DOWN,
			   "no perfetto or dumpsys: frames unavailable");
		log_warnx("no perfetto or dumpsys: frames unavailable");
		break;
	}
	arm_timer(fl, now_ns());
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
	struct session *s;
	int64_t deadline;
	size_t i;
	int any;

	if (!fl)
		return;
	/* perfetto stops cleanly on SIGTERM, so traced ends the session. */
	for (i = 0; i < SESSIONS_MAX; i++)
		if (fl->sess[i].used)
			session_stop(&fl->sess[i], now_ns());
	deadline = now_ns() + FREE_GRACE_NS;
	do {
		any = 0;
		for (i = 0; i < SESSIONS_MAX; i++) {
			s = &fl->sess[i];
			if (!s->used || !child_running(&s->ch))
				continue;
			child_pump(fl, &s->ch, now_ns());
			if (child_running(&s->ch))
				any = 1;
		}
		if (any) {
			struct timespec ts = {0, 10 * MS_NS};

			nanosleep(&ts, NULL);
		}
	} while (any && now_ns() < deadline);
	for (i = 0; i < SESSIONS_MAX; i++)
		session_release(fl, &fl->sess[i], 1);
	child_release(fl, &fl->lat.ch);
	lat_clear_layers(&fl->lat);
	for (i = 0; i < TRACKERS_MAX; i++)
		latency_tracker_free(fl->lat.trackers[i].t);
	for (i = 0; i < fl->lat.nwanted; i++)
		free(fl->lat.wanted[i]);
	seen_release(&fl->seen);
	if (fl->tfd >= 0)
		close(fl->tfd);
	if (fl->epfd >= 0)
		close(fl->epfd);
	free(fl->perfetto_bin);
	free(fl->dumpsys_bin);
	free(fl->getprop_bin);
	free(fl->trace_dir);
	free(fl->session_name);
	free(fl->buf);
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

int
frames_live_dispatch(struct frames_live *fl, frames_live_cb cb, void *ctx)
{
	uint64_t expirations;
	int64_t now = now_ns();
	int rc = 0;

	if (read(fl->tfd, &expirations, sizeof(expirations)) < 0 &&
	    errno != EAGAIN)
		log_warn("cannot read the frame source timer");
	if (fl->mode == FRAMES_LIVE_FTL) {
		rc = ftl_work(fl, now, cb, ctx);
		if (!fl->stopping)
			ftl_health(fl);
	} else if (fl->mode == FRAMES_LIVE_LATENCY) {
		rc = lat_work(fl, now, cb, ctx);
	}
	arm_timer(fl, now);
	return rc;
}

int64_t
frames_live_watermark(const struct frames_live *fl)
{
	return fl->wm;
}

int64_t
frames_live_coverage_start(const struct frames_live *fl)
{
	return fl->coverage;
}

int
frames_live_set_wanted(struct frames_live *fl, int pending_taps,
		       const char *const *packages, size_t n)
{
	struct latency_poller *lp = &fl->lat;
	char *copy[FRAMES_LIVE_WANTED_MAX];
	size_t i, j, m = 0;
	int dup;

	if (fl->mode != FRAMES_LIVE_LATENCY)
		return 0;
	for (i = 0; i < n && m < FRAMES_LIVE_WANTED_MAX; i++) {
		if (!packages[i] || !packages[i][0])
			continue;
		dup = 0;
		for (j = 0; j < m; j++)
			if (strcmp(copy[j], packages[i]) == 0)
				dup = 1;
		if (dup)
			continue;
		copy[m] = strdup(packages[i]);
		if (!copy[m]) {
			while (m > 0)
				free(copy[--m]);
			return -ENOMEM;
		}
		m++;
	}
	for (i = 0; i < lp->nwanted; i++)
		free(lp->wanted[i]);
	memcpy(lp->wanted, copy, m * sizeof(copy[0]));
	lp->nwanted = m;
	if (lp->pending <= 0 && pending_taps > 0 && lp->state == LAT_IDLE) {
		/* A tap is waiting: poll now, not a period later. */
		lp->next_poll_ns = 0;
		lp->pending = pending_taps;
		arm_timer(fl, now_ns());
	}
	lp->pending = pending_taps;
	return 0;
}

void
frames_live_stop(struct frames_live *fl)
{
	int64_t now = now_ns();
	int i;

	fl->stopping = 1;
	for (i = 0; i < SESSIONS_MAX; i++)
		if (fl->sess[i].used)
			session_stop(&fl->sess[i], now);
	arm_timer(fl, now);
}

int
frames_live_stopped(const struct frames_live *fl)
{
	int i;

	if (!fl->stopping)
		return 0;
	for (i = 0; i < SESSIONS_MAX; i++)
		if (fl->sess[i].used)
			return 0;
	return !child_running(&fl->lat.ch) && fl->lat.state == LAT_IDLE;
}

void
frames_live_get_stats(const struct frames_live *fl,
		      struct frames_live_stats *st)
{
	struct ftl_stats fs;
	int i;

	*st = fl->st;
	st->packets = fl->ftl_packets;
	st->packets_dropped = fl->ftl_dropped;
	for (i = 0; i < SESSIONS_MAX; i++) {
		if (!fl->sess[i].used || !fl->sess[i].rd)
			continue;
		ftl_get_stats(fl->sess[i].rd, &fs);
		st->packets += fs.packets;
		st->packets_dropped += fs.packets_lost + fs.malformed +
				       fs.evicted_waiting + fs.unpaired_ends +
				       fs.corrupt;
	}
}
