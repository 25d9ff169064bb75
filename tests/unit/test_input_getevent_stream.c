/*
 * Tests of the live getevent stream (input_getevent_stream.h) over a real
 * FIFO: lines read as they come, split anywhere; the touch screen found
 * from its first multitouch event and other devices dropped; time going
 * back held; a writer going away; a regular file refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "input_getevent_stream.h"
#include "log.h"

#define EVENTS_MAX 64

struct got {
	struct touch_event ev[EVENTS_MAX];
	size_t n;
};

static int
collect(void *ctx, const struct touch_event *ev)
{
	struct got *g = ctx;

	assert_true(g->n < EVENTS_MAX);
	g->ev[g->n++] = *ev;
	return 0;
}

/* A FIFO in the group directory, with a writer on it. */
static int
open_fifo(const char *name, char *path, size_t size)
{
	int fd;

	fixture_path(path, size, name);
	assert_int_equal(mkfifo(path, 0600), 0);
	fd = open(path, O_RDWR | O_NONBLOCK);
	assert_true(fd >= 0);
	return fd;
}

static void
put(int fd, const char *s)
{
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
}

static void
test_tap(void **state)
{
	struct input_getevent_stream *s = NULL;
	struct input_getevent_stream_stats st;
	struct got g = {0};
	char path[512];
	int w;

	(void)state;
	w = open_fifo("tap.fifo", path, sizeof(path));
	assert_int_equal(input_getevent_stream_open(path, &s), 0);
	assert_int_equal(input_getevent_stream_read(s, collect, &g), 0);
	assert_int_equal(g.n, 0);
	/* A key device first, then the touch screen; a line cut in two. */
	put(w, "[     100.000000] /dev/input/event0: EV_KEY       "
	       "KEY_VOLUMEDOWN       DOWN\n"
	       "[     100.500000] /dev/input/event2: EV_ABS       "
	       "ABS_MT_TRACKING_ID   00000001\n"
	       "[     100.500000] /dev/input/event2: EV_ABS       ABS_MT_POS");
	assert_int_equal(input_getevent_stream_read(s, collect, &g), 0);
	assert_int_equal(g.n, 1);
	put(w, "ITION_X    0000010e\n"
	       "[     100.500000] /dev/input/event2: EV_SYN       SYN_REPORT   "
	       "        00000000\n"
	       "[     100.550000] /dev/input/event0: EV_KEY       "
	       "KEY_VOLUMEDOWN       UP\n"
	       "[     100.560000] /dev/input/event2: EV_ABS       "
	       "ABS_MT_TRACKING_ID   ffffffff\n"
	       "[     100.550000] /dev/input/event2: EV_SYN       SYN_REPORT   "
	       "        00000000\n");
	assert_int_equal(input_getevent_stream_read(s, collect, &g), 0);
	assert_int_equal(g.n, 5);
	assert_int_equal(g.ev[0].type, EV_ABS);
	assert_int_equal(g.ev[0].code, ABS_MT_TRACKING_ID);
	assert_int_equal(g.ev[0].value, 1);
	assert_true(g.ev[0].time_ns == 100500000000LL);
	assert_int_equal(g.ev[1].code, ABS_MT_POSITION_X);
	assert_int_equal(g.ev[1].value, 270);
	assert_int_equal(g.ev[3].value, -1);
	/* Time going back keeps the time of the event before. */
	assert_true(g.ev[4].time_ns == 100560000000LL);
	input_getevent_stream_get_stats(s, &st);
	assert_true(st.events == 5);
	assert_true(st.other == 2);
	assert_true(st.backwards == 1);

	/* The writer goes away: no end of file, the next one is read. */
	close(w);
	assert_int_equal(input_getevent_stream_read(s, collect, &g), 0);
	w = open(path, O_WRONLY | O_NONBLOCK);
	assert_true(w >= 0);
	put(w, "[     101.000000] /dev/input/event2: EV_SYN       SYN_REPORT   "
	       "        00000000\n");
	assert_int_equal(input_getevent_stream_read(s, collect, &g), 0);
	assert_int_equal(g.n, 6);
	close(w);
	input_getevent_stream_free(s);
}

static void
test_refused(void **state)
{
	struct input_getevent_stream *s = NULL;
	char path[512];

	(void)state;
	fixture_path(path, sizeof(path), "plain.log");
	fixture_write_str(path, "[     1.000000] EV_SYN SYN_REPORT 00000000\n");
	assert_int_equal(input_getevent_stream_open(path, &s), -EINVAL);
	assert_null(s);
	fixture_path(path, sizeof(path), "missing.fifo");
	assert_int_equal(input_getevent_stream_open(path, &s), -ENOENT);
	assert_null(s);
	input_getevent_stream_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tap),
		cmocka_unit_test(test_refused),
	};

	log_init("test_input_getevent_stream", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, fixture_group_setup,
				      fixture_group_teardown);
}
