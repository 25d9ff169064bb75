/*
 * Child processes that never block the caller's loop.
 *
 * A child is a program run with an argv, never a shell; a name without
 * '/' is looked up in PATH (in the parent, before fork(), since the child
 * of a threaded process may only make async-signal-safe calls).  The
 * child gets the default signal dispositions and an empty signal mask
 * (the loop blocks signals for its signalfd), a process group of its own,
 * PR_SET_PDEATHSIG SIGTERM (so that it dies with the daemon instead of
 * holding, say, a perfetto session name), stdin from the spec or
 * /dev/null, stdout kept, streamed or sent to /dev/null, and stderr read
 * for its last line.
 *
 * The children of a set share one pollable fd: an epoll set holding their
 * pipes, a pidfd each (pidfd_open(), Linux 5.3 and later) and a timerfd
 * armed for the next deadline.  When it is readable, call
 * child_set_dispatch(), which never blocks: it reads what the pipes hold,
 * kills children at their deadline, reaps those that exited and calls
 * their on_exit callbacks.  Where pidfd_open() is missing, a child's exit
 * is seen when its pipes close, then by looking again every few
 * milliseconds.  Children are reaped with waitpid(pid, WNOHANG), never
 * waitpid(-1): the process must not ignore SIGCHLD (SIG_IGN or
 * SA_NOCLDWAIT would reap them first), and nothing else reaped here.
 *
 * A timeout sends SIGTERM to the child's whole process group (a shell's
 * children would keep its pipes open), then SIGKILL CHILD_KILL_GRACE_MS
 * later if it is still there.  Not thread-safe: one thread owns a set and
 * its children.
 */
#ifndef TAPD_CHILD_H
#define TAPD_CHILD_H

#include <stddef.h>
#include <stdint.h>

/* How long a child has after SIGTERM at its deadline before SIGKILL. */
#define CHILD_KILL_GRACE_MS 100

struct child;
struct child_set;

/*
 * Receives a child's stdout as it arrives (n > 0 bytes at p).  Returns 0
 * to go on, or 1 when it has read enough: the pipe is closed and the
 * child's group killed at once (child_info.cut then says so).
 */
typedef int (*child_out_cb)(void *ctx, const char *p, size_t n);

/*
 * Called once from child_set_dispatch() (or child_set_wait()) when the
 * child has exited and its pipes have been read.  It may free the child
 * (child_free()) and spawn others.
 */
typedef void (*child_exit_cb)(void *ctx, struct child *c);

struct child_spec {
	char *const *argv; /* argv[0] is the program; not NULL */
	const void *in;	   /* stdin, in_len bytes; NULL for /dev/null */
	size_t in_len;
	/*
	 * stdout: with on_out, streamed to it; else with out_max > 0, up to
	 * out_max bytes kept (child_out()); else /dev/null.
	 */
	child_out_cb on_out;
	size_t out_max;
	uint32_t timeout_ms;   /* 0: no deadline */
	child_exit_cb on_exit; /* may be NULL: poll child_exited() */
	void *ctx;
};

/* Returns 0 and sets *out, or a negative errno.  Free with child_set_free. */
int child_set_new(struct child_set **out);

/*
 * Kills (SIGKILL, to the group) and reaps every child still running,
 * waiting for them, then frees the children and the set.  NULL is a no-op.
 */
void child_set_free(struct child_set *cs);

/* The fd to poll for reading; owned by cs. */
int child_set_fd(const struct child_set *cs);

/*
 * Does what is due without blocking (see above).  Returns 0 or a negative
 * errno of the timer.
 */
int child_set_dispatch(struct child_set *cs);

/*
 * Blocks, dispatching, until c has exited and its on_exit ran: for callers
 * outside the loop only (start-up, tests).  A child without a deadline may
 * make it wait forever.  Returns 0 or a negative errno of poll().
 */
int child_set_wait(struct child_set *cs, struct child *c);

/* Children started by child_spawn() (forked), and running now. */
void child_set_counts(const struct child_set *cs, uint64_t *started,
		      int *running);

/*
 * Starts a child in cs.  Returns 0 and sets *out (owned by the caller,
 * until child_free()), or a negative errno with *why (whysize bytes) saying
 * "cannot run 'PROGRAM': REASON".  An exec() that fails after the fork is
 * reported later, as an exit with status 127 and child_info.exec_errno set.
 */
int child_spawn(struct child_set *cs, const struct child_spec *spec,
		struct child **out, char *why, size_t whysize);

/*
 * Kills the child's group with SIGKILL and reaps it when it still runs
 * (waiting, which SIGKILL makes short), closes its pipes and frees it.  Its
 * on_exit is not called.  NULL is a no-op.
 */
void child_free(struct child *c);

/*
 * Sends sig to the child's process group, if it still runs.  SIGKILL
 * counts it as killed (child_killed()), as its deadline would.
 */
void child_signal(struct child *c, int sig);

/* These four take NULL as a child that never ran: 0. */
int child_running(const struct child *c);
int child_exited(const struct child *c);
/* Killed by its deadline (or child_signal() SIGKILL). */
int child_killed(const struct child *c);
/* Exited with status 0, neither killed nor cut. */
int child_clean_exit(const struct child *c);

/* The rest of what is known of a child, for the few who ask. */
struct child_info {
	int pid;
	int status;	/* waitpid()'s; 255 << 8 when reaped elsewhere */
	int exec_errno; /* of an exec() that failed, else 0 */
	int cut;	/* killed because on_out had read enough */
	int out_over;	/* more stdout than out_max came: the rest dropped */
	int64_t started_ns;
	int64_t exited_ns;
	uint64_t err_bytes; /* written to stderr */
};

void child_get_info(const struct child *c, struct child_info *info);

/*
 * The stdout kept (out_max): its bytes, NUL-terminated, and *len; "" when
 * none.  Valid until child_free().
 */
const char *child_out(const struct child *c, size_t *len);

/* The last line on stderr, control bytes as '?'; "" when none. */
const char *child_errline(const struct child *c);

/* "killed after its timeout", "signal 9", "status 1": for messages. */
void child_exit_text(const struct child *c, char *buf, size_t size);

/* 1 when name resolves (as for child_spawn()) to an executable file. */
int child_can_run(const char *name);

#endif
