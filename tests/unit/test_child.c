/*
 * The child runner: output kept and streamed, stderr's last line, stdin,
 * exit status, a timeout that ends the whole process group, a program
 * that cannot run, and a loop that keeps turning while a child hangs.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"
#include "loop.h"

#define MS INT64_C(1000000)

struct run {
	int exits;
	struct child *seen;
	size_t streamed;
	size_t stop_after; /* on_out says enough past this, 0: never */
};

static void
on_exit_count(void *ctx, struct child *c)
{
	struct run *r = ctx;

	r->exits++;
	r->seen = c;
}

static int
on_out_count(void *ctx, const char *p, size_t n)
{
	struct run *r = ctx;

	(void)p;
	r->streamed += n;
	return r->stop_after && r->streamed >= r->stop_after;
}

static struct child *
spawn(struct child_set *cs, char **argv, struct run *r, size_t out_max,
      uint32_t timeout_ms)
{
	struct child_spec spec;
	struct child *c = NULL;
	char why[160];

	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.out_max = out_max;
	spec.timeout_ms = timeout_ms;
	spec.on_exit = on_exit_count;
	spec.ctx = r;
	assert_int_equal(child_spawn(cs, &spec, &c, why, sizeof(why)), 0);
	assert_non_null(c);
	return c;
}

static void
no_child_left(void)
{
	int st;

	errno = 0;
	assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void
test_output_and_status(void **state)
{
	char *argv[] = {"/bin/sh", "-c",
			"echo hello; echo first >&2; echo last >&2; exit 3",
			NULL};
	struct child_set *cs;
	struct child_info ci;
	struct run r;
	struct child *c;
	const char *out;
	char how[64];
	size_t len;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(child_set_new(&cs), 0);
	c = spawn(cs, argv, &r, 1024, 5000);
	assert_true(child_running(c));
	assert_int_equal(child_set_wait(cs, c), 0);
	assert_int_equal(r.exits, 1);
	assert_ptr_equal(r.seen, c);
	assert_true(child_exited(c));
	assert_false(child_running(c));
	assert_false(child_killed(c));
	assert_false(child_clean_exit(c));
	out = child_out(c, &len);
	assert_int_equal(len, 6);
	assert_string_equal(out, "hello\n");
	assert_string_equal(child_errline(c), "last");
	child_get_info(c, &ci);
	assert_true(WIFEXITED(ci.status));
	assert_int_equal(WEXITSTATUS(ci.status), 3);
	assert_int_equal(ci.err_bytes, strlen("first\nlast\n"));
	assert_int_equal(ci.exec_errno, 0);
	assert_false(ci.out_over);
	child_exit_text(c, how, sizeof(how));
	assert_string_equal(how, "status 3");
	child_free(c);
	no_child_left();
	child_set_free(cs);
}

static void
test_stdin_and_bound(void **state)
{
	char *cat[] = {"cat", NULL};
	struct child_spec spec;
	struct child_set *cs;
	struct child_info ci;
	struct child *c = NULL;
	struct run r;
	size_t len;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(child_set_new(&cs), 0);
	memset(&spec, 0, sizeof(spec));
	spec.argv = cat;
	spec.in = "abcdefgh";
	spec.in_len = 8;
	spec.out_max = 5;
	spec.timeout_ms = 5000;
	spec.on_exit = on_exit_count;
	spec.ctx = &r;
	assert_int_equal(child_spawn(cs, &spec, &c, NULL, 0), 0);
	assert_int_equal(child_set_wait(cs, c), 0);
	assert_true(child_clean_exit(c));
	assert_string_equal(child_out(c, &len), "abcde");
	assert_int_equal(len, 5);
	child_get_info(c, &ci);
	assert_true(ci.out_over);
	child_free(c);
	child_set_free(cs);
}

/* A child that ignores SIGTERM and has a child of its own: both end. */
/*
 * Members of process group pgid that are not zombies: the sleep a killed
 * shell leaves is reparented, and a container's init may never reap it.
 */
static int
group_alive(int pgid)
{
	char path[300], buf[512], *p, state;
	int n = 0, ppid, pg;
	struct dirent *de;
	FILE *fp;
	DIR *d;

	d = opendir("/proc");
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		p = fgets(buf, sizeof(buf), fp) ? strrchr(buf, ')') : NULL;
		fclose(fp);
		if (p && sscanf(p + 1, " %c %d %d", &state, &ppid, &pg) == 3 &&
		    pg == pgid && state != 'Z')
			n++;
	}
	closedir(d);
	return n;
}

static void
test_timeout_kills_group(void **state)
{
	char *argv[] = {"/bin/sh", "-c", "trap '' TERM; sleep 30 & wait", NULL};
	struct child_set *cs;
	struct child_info ci;
	struct run r;
	struct child *c;
	int64_t t0, took;
	char how[64];

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(child_set_new(&cs), 0);
	t0 = loop_now_ns();
	c = spawn(cs, argv, &r, 0, 100);
	child_get_info(c, &ci);
	assert_int_equal(child_set_wait(cs, c), 0);
	took = loop_now_ns() - t0;
	/* SIGTERM at 100 ms, ignored; SIGKILL CHILD_KILL_GRACE_MS later. */
	assert_true(took >= (100 + CHILD_KILL_GRACE_MS) * MS);
	assert_true(took < 3000 * MS);
	assert_true(child_killed(c));
	child_exit_text(c, how, sizeof(how));
	assert_string_equal(how, "killed after its timeout");
	/* The group is gone too: its sleep would hold the pipes open. */
	usleep(50000);
	assert_int_equal(group_alive(ci.pid), 0);
	child_free(c);
	no_child_left();
	child_set_free(cs);
}

static void
test_cannot_run(void **state)
{
	char *argv[] = {"tests/fakes/no-such-program", NULL};
	struct child_spec spec;
	struct child_set *cs;
	struct child *c = NULL;
	char why[160];

	(void)state;
	assert_int_equal(child_set_new(&cs), 0);
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	assert_int_equal(child_spawn(cs, &spec, &c, why, sizeof(why)), -ENOENT);
	assert_null(c);
	assert_string_equal(why, "cannot run 'tests/fakes/no-such-program': "
				 "No such file or directory");
	assert_false(child_can_run("tests/fakes/no-such-program"));
	assert_true(child_can_run("sh"));
	child_free(NULL);
	child_set_free(cs);
	child_set_free(NULL);
}

/* Streamed output: on_out says when it has enough, and the child ends. */
static void
test_stream_cut(void **state)
{
	char *argv[] = {"yes", NULL};
	struct child_spec spec;
	struct child_set *cs;
	struct child_info ci;
	struct child *c = NULL;
	struct run r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.stop_after = 100000;
	assert_int_equal(child_set_new(&cs), 0);
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.on_out = on_out_count;
	spec.timeout_ms = 5000;
	spec.on_exit = on_exit_count;
	spec.ctx = &r;
	assert_int_equal(child_spawn(cs, &spec, &c, NULL, 0), 0);
	assert_int_equal(child_set_wait(cs, c), 0);
	assert_true(r.streamed >= 100000);
	child_get_info(c, &ci);
	assert_true(ci.cut);
	assert_false(child_killed(c));
	assert_false(child_clean_exit(c));
	child_free(c);
	no_child_left();
	child_set_free(cs);
}

/* An on_exit that frees its child, as the owners do. */
static void
on_exit_free(void *ctx, struct child *c)
{
	int *n = ctx;

	(*n)++;
	child_free(c);
}

struct ticker {
	struct loop *loop;
	struct child_set *cs;
	int ticks, exits;
	int64_t last_ns, max_late_ns, longest_dispatch_ns;
};

static int
on_children(void *ctx, uint32_t events)
{
	struct ticker *t = ctx;
	int64_t t0 = loop_now_ns(), took;

	(void)events;
	assert_int_equal(child_set_dispatch(t->cs), 0);
	took = loop_now_ns() - t0;
	if (took > t->longest_dispatch_ns)
		t->longest_dispatch_ns = took;
	return 0;
}

static int
on_tick(void *ctx)
{
	struct ticker *t = ctx;
	int64_t now = loop_now_ns();

	if (t->last_ns && now - t->last_ns - MS > t->max_late_ns)
		t->max_late_ns = now - t->last_ns - MS;
	t->last_ns = now;
	if (++t->ticks >= 500 || t->exits == 2)
		loop_stop(t->loop);
	return 0;
}

/*
 * Through a loop: a hanging child and a quick one at once; the quick one
 * is told at once, the hanging one at its timeout, and the loop's ticks
 * go on meanwhile.
 */
static void
test_loop_keeps_turning(void **state)
{
	char *hang[] = {"/bin/sh", "-c", "sleep 30", NULL};
	char *quick[] = {"/bin/sh", "-c", "echo ok", NULL};
	struct child_spec spec;
	struct child *c = NULL;
	struct ticker t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(loop_new(&t.loop), 0);
	assert_int_equal(child_set_new(&t.cs), 0);
	assert_int_equal(loop_add_fd(t.loop, child_set_fd(t.cs), EPOLLIN,
				     on_children, &t),
			 0);
	assert_int_equal(loop_add_timer(t.loop, 1, on_tick, &t), 0);
	memset(&spec, 0, sizeof(spec));
	spec.on_exit = on_exit_free;
	spec.ctx = &t.exits;
	spec.argv = hang;
	spec.timeout_ms = 200;
	assert_int_equal(child_spawn(t.cs, &spec, &c, NULL, 0), 0);
	spec.argv = quick;
	spec.out_max = 64;
	assert_int_equal(child_spawn(t.cs, &spec, &c, NULL, 0), 0);
	assert_int_equal(loop_run(t.loop), 0);
	print_message("child runner: longest dispatch %.3f ms, longest late "
		      "tick %.3f ms (%d ticks)\n",
		      (double)t.longest_dispatch_ns / 1e6,
		      (double)t.max_late_ns / 1e6, t.ticks);
	assert_int_equal(t.exits, 2);
	assert_true(t.ticks >= 150);
	assert_true(t.longest_dispatch_ns < 5 * MS);
	no_child_left();
	loop_del_fd(t.loop, child_set_fd(t.cs));
	child_set_free(t.cs);
	loop_free(t.loop);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_and_status),
		cmocka_unit_test(test_stdin_and_bound),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_cannot_run),
		cmocka_unit_test(test_stream_cut),
		cmocka_unit_test(test_loop_keeps_turning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
