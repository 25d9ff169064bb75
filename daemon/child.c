#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"

#define MS_NS INT64_C(1000000)

/* Room kept for a child's last line on stderr. */
#define ERRLINE_MAX 160

/* After a child's pipes close, how soon to look again for its exit. */
#define REAP_RETRY_NS (5 * MS_NS)

/*
 * Bytes read from one pipe per dispatch: the rest stays readable, so a
 * child that writes fast never holds the loop for long.
 */
#define PIPE_BUDGET (1 << 20)

#define DEFAULT_PATH "/system/bin:/vendor/bin:/usr/bin:/bin"

struct child_set {
	int epfd;
	int tfd;
	struct child *list;
	uint64_t started;
	int running;
	struct child *waiting; /* of child_set_wait() */
	int waited;	       /* its on_exit ran */
};

struct child {
	struct child_set *set;
	struct child *next;
	pid_t pid;
	int pidfd, out_fd, err_fd, st_fd;
	child_out_cb on_out;
	child_exit_cb on_exit;
	void *ctx;
	char *out;
	size_t out_len, out_cap, out_max;
	int out_over;
	char argv0[64];
	char errline[ERRLINE_MAX];
	char errpart[ERRLINE_MAX];
	size_t errpart_len;
	uint64_t err_bytes;
	int64_t started_ns;
	int64_t deadline_ns; /* SIGTERM then; INT64_MAX for never */
	int64_t kill_at_ns;  /* SIGKILL then, after a SIGTERM at the deadline */
	int64_t reap_at_ns;  /* look for the exit again then */
	int killed;	     /* by its deadline or child_signal() */
	int sigkilled, cut, exec_errno;
	int exited, notified, status;
	int64_t exited_ns;
};

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void
unwatch(struct child_set *cs, int *fd)
{
	if (*fd < 0)
		return;
	epoll_ctl(cs->epfd, EPOLL_CTL_DEL, *fd, NULL);
	close_fd(fd);
}

static int
watch(struct child_set *cs, int fd)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = fd;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    epoll_ctl(cs->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	return 0;
}

int
child_set_new(struct child_set **out)
{
	struct child_set *cs;
	int rc = 0;

	*out = NULL;
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	cs->epfd = epoll_create1(EPOLL_CLOEXEC);
	cs->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (cs->epfd < 0 || cs->tfd < 0)
		rc = -errno;
	else
		rc = watch(cs, cs->tfd);
	if (rc < 0)
		goto out;
	*out = cs;
	cs = NULL;
out:
	child_set_free(cs);
	return rc;
}

void
child_set_free(struct child_set *cs)
{
	if (!cs)
		return;
	while (cs->list)
		child_free(cs->list);
	if (cs->tfd >= 0)
		close(cs->tfd);
	if (cs->epfd >= 0)
		close(cs->epfd);
	free(cs);
}

int
child_set_fd(const struct child_set *cs)
{
	return cs->epfd;
}

void
child_set_counts(const struct child_set *cs, uint64_t *started, int *running)
{
	*started = cs->started;
	*running = cs->running;
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

int
child_can_run(const char *name)
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
	setpgid(0, 0);
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
open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static void
arm(struct child_set *cs)
{
	struct itimerspec its;
	struct child *c;
	int64_t next = INT64_MAX;

	for (c = cs->list; c; c = c->next) {
		if (c->exited)
			continue;
		if (!c->killed && c->deadline_ns < next)
			next = c->deadline_ns;
		if (c->killed && !c->sigkilled && c->kill_at_ns < next)
			next = c->kill_at_ns;
		if (c->reap_at_ns < next)
			next = c->reap_at_ns;
	}
	memset(&its, 0, sizeof(its));
	if (next != INT64_MAX) {
		/* 0 would disarm the timer: what is due is due now. */
		if (next <= 0)
			next = 1;
		its.it_value.tv_sec = next / 1000000000;
		its.it_value.tv_nsec = next % 1000000000;
	}
	if (timerfd_settime(cs->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		log_warn("cannot arm the children's timer");
}

int
child_spawn(struct child_set *cs, const struct child_spec *spec,
	    struct child **out, char *why, size_t whysize)
{
	char path[PATH_MAX];
	int inp[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1};
	int stp[2] = {-1, -1};
	pid_t pid, parent = getpid();
	struct child *c = NULL;
	int rc, piped;

	*out = NULL;
	if (why && whysize)
		why[0] = '\0';
	rc = resolve(spec->argv[0], path, sizeof(path));
	if (rc < 0)
		goto out;
	c = calloc(1, sizeof(*c));
	if (!c) {
		rc = -ENOMEM;
		goto out;
	}
	c->set = cs;
	c->pid = -1;
	c->pidfd = c->out_fd = c->err_fd = c->st_fd = -1;
	c->deadline_ns = c->kill_at_ns = c->reap_at_ns = INT64_MAX;
	snprintf(c->argv0, sizeof(c->argv0), "%s", spec->argv[0]);
	piped = spec->on_out || spec->out_max;
	if (spec->in)
		rc = pipe2(inp, O_CLOEXEC);
	else
		rc = (inp[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0;
	if (rc == 0 && piped)
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
		child_exec(path, spec->argv, inp[0], outp[1], errp[1], stp[1],
			   parent);
	/* Also here, so that the group exists before any kill. */
	setpgid(pid, pid);
	cs->started++;
	cs->running++;
	c->pid = pid;
	c->next = cs->list;
	cs->list = c;
	c->started_ns = loop_now_ns();
	c->deadline_ns = spec->timeout_ms
				 ? c->started_ns + spec->timeout_ms * MS_NS
				 : INT64_MAX;
	c->on_out = spec->on_out;
	c->out_max = spec->on_out ? 0 : spec->out_max;
	c->on_exit = spec->on_exit;
	c->ctx = spec->ctx;
	close_fd(&inp[0]);
	close_fd(&outp[1]);
	close_fd(&errp[1]);
	close_fd(&stp[1]);
	if (spec->in) {
		/*
		 * A config never fills a pipe, but a stuck child must not
		 * stall the loop if one ever did.
		 */
		fcntl(inp[1], F_SETFL, O_NONBLOCK);
		feed_stdin(inp[1], spec->in, spec->in_len);
		close_fd(&inp[1]);
	}
	/*
	 * The exec closes the status pipe or writes why it failed: read
	 * later, since waiting for it here would wait for the child.
	 */
	c->st_fd = stp[0];
	stp[0] = -1;
	rc = watch(cs, c->st_fd);
	if (rc == 0 && piped) {
		c->out_fd = outp[0];
		outp[0] = -1;
		rc = watch(cs, c->out_fd);
	}
	if (rc == 0) {
		c->err_fd = errp[0];
		errp[0] = -1;
		rc = watch(cs, c->err_fd);
	}
	c->pidfd = open_pidfd(pid);
	if (rc == 0 && c->pidfd >= 0 && watch(cs, c->pidfd) < 0)
		close_fd(&c->pidfd);
	if (rc < 0) {
		child_free(c);
		c = NULL;
		goto out;
	}
	arm(cs);
	*out = c;
	c = NULL;
out:
	if (rc < 0 && why && whysize)
		snprintf(why, whysize, "cannot run '%s': %s", spec->argv[0],
			 strerror(-rc));
	free(c);
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
signal_group(struct child *c, int sig)
{
	kill(-c->pid, sig);
	kill(c->pid, sig);
}

void
child_signal(struct child *c, int sig)
{
	if (!child_running(c))
		return;
	signal_group(c, sig);
	if (sig == SIGKILL) {
		c->killed = 1;
		c->sigkilled = 1;
		arm(c->set);
	}
}

void
child_free(struct child *c)
{
	struct child **pp;
	struct child_set *cs;

	if (!c)
		return;
	cs = c->set;
	unwatch(cs, &c->out_fd);
	unwatch(cs, &c->err_fd);
	unwatch(cs, &c->st_fd);
	unwatch(cs, &c->pidfd);
	if (child_running(c)) {
		signal_group(c, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		cs->running--;
	}
	for (pp = &cs->list; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	free(c->out);
	free(c);
	arm(cs);
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

	if (c->on_out) {
		if (c->on_out(c->ctx, p, n)) {
			/* Enough: what follows is not wanted. */
			unwatch(c->set, &c->out_fd);
			signal_group(c, SIGKILL);
			c->cut = 1;
			c->sigkilled = 1;
		}
		return;
	}
	if (c->out_len + n > c->out_max) {
		c->out_over = 1;
		n = c->out_max - c->out_len;
	}
	if (n == 0)
		return;
	/* One byte more for the NUL child_out() promises. */
	if (c->out_len + n + 1 > c->out_cap) {
		cap = c->out_cap ? c->out_cap : 16384;
		while (cap < c->out_len + n + 1)
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
	c->out[c->out_len] = '\0';
}

/* Reads what a pipe has, up to the budget; closes it at its end. */
static void
drain_pipe(struct child *c, int *fd, int is_err)
{
	char buf[16384];
	size_t budget = PIPE_BUDGET;
	ssize_t n;

	while (*fd >= 0 && budget > 0) {
		n = read(*fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			unwatch(c->set, fd);
			break;
		}
		budget -= (size_t)n < budget ? (size_t)n : budget;
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

/* The exec's verdict: the pipe closes on success, carries errno if not. */
static void
read_exec_status(struct child *c)
{
	ssize_t n;
	int e;

	if (c->st_fd < 0)
		return;
	do
		n = read(c->st_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n == (ssize_t)sizeof(e)) {
		c->exec_errno = e;
		snprintf(c->errline, sizeof(c->errline), "cannot run '%s': %s",
			 c->argv0, strerror(e));
	}
	unwatch(c->set, &c->st_fd);
}

/*
 * Reads the child's pipes, signals it at its deadlines and reaps it once
 * it has exited.  Pipes stay open until they end, so output written just
 * before the exit is read.
 */
static void
pump(struct child *c, int64_t now)
{
	struct child_set *cs = c->set;
	pid_t r;
	int status;

	if (c->exited)
		return;
	read_exec_status(c);
	drain_pipe(c, &c->out_fd, 0);
	drain_pipe(c, &c->err_fd, 1);
	if (!c->killed && now >= c->deadline_ns) {
		signal_group(c, SIGTERM);
		c->killed = 1;
		c->kill_at_ns = now + CHILD_KILL_GRACE_MS * MS_NS;
	}
	if (c->killed && !c->sigkilled && now >= c->kill_at_ns) {
		signal_group(c, SIGKILL);
		c->sigkilled = 1;
	}
	do
		r = waitpid(c->pid, &status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		/* Without a pidfd: pipes closed but not yet a zombie. */
		if (c->pidfd < 0 &&
		    ((c->out_fd < 0 && c->err_fd < 0) || c->killed))
			c->reap_at_ns = now + REAP_RETRY_NS;
		else
			c->reap_at_ns = INT64_MAX;
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
	cs->running--;
	/* What the child wrote before it exited is still in the pipes. */
	read_exec_status(c);
	drain_pipe(c, &c->out_fd, 0);
	drain_pipe(c, &c->err_fd, 1);
	/*
	 * A grandchild may hold them open; nothing more is wanted.  Output
	 * past the budget is dropped with them: budgets are far above what
	 * any of our children writes after exiting.
	 */
	unwatch(cs, &c->out_fd);
	unwatch(cs, &c->err_fd);
	unwatch(cs, &c->st_fd);
	unwatch(cs, &c->pidfd);
}

int
child_set_dispatch(struct child_set *cs)
{
	uint64_t expirations;
	struct child *c;
	int64_t now = loop_now_ns();

	if (read(cs->tfd, &expirations, sizeof(expirations)) < 0 &&
	    errno != EAGAIN)
		return -errno;
	for (c = cs->list; c; c = c->next)
		pump(c, now);
	/*
	 * Callbacks may free children or spawn new ones: look for the next
	 * one to tell from the head of the list each time.
	 */
	for (;;) {
		for (c = cs->list; c; c = c->next)
			if (c->exited && !c->notified)
				break;
		if (!c)
			break;
		c->notified = 1;
		if (c == cs->waiting)
			cs->waited = 1;
		if (c->on_exit)
			c->on_exit(c->ctx, c);
	}
	arm(cs);
	return 0;
}

int
child_set_wait(struct child_set *cs, struct child *c)
{
	struct pollfd pfd;
	int rc = 0;

	if (c->notified)
		return 0;
	/* c may be freed by its on_exit: the set remembers that it ran. */
	cs->waiting = c;
	cs->waited = 0;
	while (!cs->waited) {
		pfd.fd = cs->epfd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		rc = child_set_dispatch(cs);
		if (rc < 0)
			break;
	}
	cs->waiting = NULL;
	return rc;
}

void
child_get_info(const struct child *c, struct child_info *info)
{
	info->pid = (int)c->pid;
	info->status = c->status;
	info->exec_errno = c->exec_errno;
	info->cut = c->cut;
	info->out_over = c->out_over;
	info->started_ns = c->started_ns;
	info->exited_ns = c->exited_ns;
	info->err_bytes = c->err_bytes;
}

int
child_running(const struct child *c)
{
	return c && c->pid > 0 && !c->exited;
}

int
child_exited(const struct child *c)
{
	return c && c->exited;
}

int
child_killed(const struct child *c)
{
	return c && c->killed;
}

int
child_clean_exit(const struct child *c)
{
	return c && c->exited && !c->killed && !c->cut &&
	       WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0;
}

const char *
child_out(const struct child *c, size_t *len)
{
	if (len)
		*len = c->out_len;
	return c->out ? c->out : "";
}

const char *
child_errline(const struct child *c)
{
	return c->errline;
}

void
child_exit_text(const struct child *c, char *buf, size_t size)
{
	if (c->killed)
		snprintf(buf, size, "killed after its timeout");
	else if (WIFSIGNALED(c->status))
		snprintf(buf, size, "signal %d", WTERMSIG(c->status));
	else
		snprintf(buf, size, "status %d", WEXITSTATUS(c->status));
}
