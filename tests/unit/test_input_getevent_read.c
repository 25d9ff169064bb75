/*
 * Tests of the getevent log reader at its edges: time going back on the
 * chosen device and on another, the timestamps, the limits of a line and
 * of a file, a NUL byte, and a log read in chunks of any size, from
 * memory and from a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "input_getevent.h"
#include "input_getevent_int.h"
#include "input_getevent_line.h"
#include "log.h"

/* The reader's own limits, restated: the tests check them from outside. */
#define FILE_MAX ((size_t)1 << 30)
#define LINE_MAX 4096

static void
test_backwards(void **state)
{
	static const char log[] =
		"[       2.000000] EV_ABS       ABS_MT_TRACKING_ID   00000001\n"
		"[       2.000000] EV_SYN       SYN_REPORT           00000000\n"
		"[       1.999999] EV_ABS       ABS_MT_TRACKING_ID   ffffffff\n"
		"[       1.999999] EV_SYN       SYN_REPORT           00000000\n"
		"[       3.000000] EV_SYN       SYN_REPORT           00000000\n"
		"[       0.000000] EV_SYN       SYN_REPORT           "
		"00000000\n";
	struct input_getevent *g = NULL;
	struct input_getevent_jump j;
	struct touch_event ev;
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(fixture_getevent_open_mem(log, NULL, &e), 0);
	/* The events end before the first one that goes back. */
	assert_int_equal(e.n, 2);
	assert_int_equal(e.ev[1].time_ns, 2000000000LL);
	assert_int_equal(e.st.backwards, 2);
	assert_int_equal(e.st.other_events, 0);

	assert_int_equal(
		input_getevent_open_mem(log, strlen(log), "test", NULL, &g), 0);
	assert_int_equal(input_getevent_next(g, &ev), 1);
	assert_int_equal(input_getevent_next(g, &ev), 1);
	assert_int_equal(input_getevent_next(g, &ev), -ERANGE);
	assert_int_equal(input_getevent_next(g, &ev), 0);
	assert_int_equal(input_getevent_get_jump(g, &j), 0);
	assert_int_equal(j.line, 3);
	assert_int_equal(j.from_ns, 2000000000LL);
	assert_int_equal(j.to_ns, 1999999000LL);
	input_getevent_free(g);
}

/* Equal times are not a jump, and other devices' clocks are their own. */
static void
test_backwards_other_device(void **state)
{
	static const char log[] =
		"[       5.000000] /dev/input/event2: EV_ABS "
		"ABS_MT_TRACKING_ID "
		"00000001\n"
		"[       5.000000] /dev/input/event2: EV_SYN SYN_REPORT "
		"00000000\n"
		"[       4.000000] /dev/input/event0: EV_KEY KEY_POWER "
		"00000001\n"
		"[       3.000000] /dev/input/event0: EV_SYN SYN_REPORT "
		"00000000\n"
		"[       5.000000] /dev/input/event2: EV_ABS "
		"ABS_MT_TRACKING_ID "
		"ffffffff\n"
		"[       5.000001] /dev/input/event2: EV_SYN SYN_REPORT "
		"00000000\n";
	struct input_getevent *g = NULL;
	struct input_getevent_jump j;
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(fixture_getevent_open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 4);
	assert_int_equal(e.st.backwards, 0);
	assert_int_equal(e.st.other_events, 2);
	assert_int_equal(
		input_getevent_open_mem(log, strlen(log), "test", NULL, &g), 0);
	assert_int_equal(input_getevent_get_jump(g, &j), -ENOENT);
	input_getevent_free(g);
}

static void
test_stamps(void **state)
{
	static const char log[] =
		"[0.000001] 0000 0000 00000000\n"
		"[4294967295.999999] EV_ABS       ABS_MT_TRACKING_ID   "
		"00000001\n"
		"[4294967296.000000] EV_SYN       SYN_REPORT           "
		"00000000\n"
		"[99999999999999999999999.000000] EV_SYN SYN_REPORT 00000000\n"
		"[      -1.000000] EV_SYN       SYN_REPORT           00000000\n"
		"[       1.00000] EV_SYN       SYN_REPORT           00000000\n"
		"[       1.0000000] EV_SYN       SYN_REPORT           "
		"00000000\n"
		"[       1.000000]EV_SYN       SYN_REPORT           00000000\n"
		"[       1 000000] EV_SYN       SYN_REPORT           00000000\n"
		"[       1.00 000] EV_SYN       SYN_REPORT           00000000\n"
		"[        .000000] EV_SYN       SYN_REPORT           "
		"00000000\n";
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(fixture_getevent_open_mem(log, NULL, &e), 0);
	assert_int_equal(e.n, 2);
	/* In time order: a stamp that went back would end the events. */
	fixture_expect_event(&e.ev[0], 1000LL, EV_SYN, SYN_REPORT, 0);
	fixture_expect_event(&e.ev[1], 4294967295999999000LL, EV_ABS,
			     ABS_MT_TRACKING_ID, 1);
	assert_int_equal(e.st.skipped, 9);
}

static void
test_long_line(void **state)
{
	static const char ev[] =
		"[       1.000000] EV_SYN       SYN_REPORT           00000000";
	size_t evlen = sizeof(ev) - 1, pad, n = 0;
	struct fixture_getevent e;
	char *buf;

	(void)state;
	buf = malloc(3 * LINE_MAX);
	assert_non_null(buf);
	/* A valid event padded to the limit is read. */
	pad = LINE_MAX - evlen;
	memcpy(buf + n, ev, evlen);
	n += evlen;
	memset(buf + n, ' ', pad);
	n += pad;
	buf[n++] = '\n';
	/* One more character and it is skipped. */
	memcpy(buf + n, ev, evlen);
	n += evlen;
	memset(buf + n, ' ', pad + 1);
	n += pad + 1;
	buf[n++] = '\n';
	memcpy(buf + n, ev, evlen);
	n += evlen;
	buf[n] = '\0';
	assert_int_equal(fixture_getevent_open_mem(buf, NULL, &e), 0);
	assert_int_equal(e.n, 2);
	assert_int_equal(e.st.lines, 3);
	assert_int_equal(e.st.skipped, 1);
	free(buf);
}

static void
test_nul_byte(void **state)
{
	static const char log[] =
		"[       1.000000] EV_ABS       ABS_MT_TRACKING_ID   00000001\n"
		"[       1.000000] EV_SYN\0      SYN_REPORT           "
		"00000000\n"
		"[       1.000000] EV_SYN       SYN_REPORT           "
		"00000000\n";
	struct input_getevent *g = NULL;
	struct fixture_getevent e;

	(void)state;
	assert_int_equal(
		input_getevent_open_mem(log, sizeof(log) - 1, "nul", NULL, &g),
		0);
	fixture_getevent_drain(g, &e);
	input_getevent_free(g);
	assert_int_equal(e.n, 2);
	assert_int_equal(e.st.skipped, 1);
	assert_int_equal(e.st.lines, 3);
}

static void
test_too_big(void **state)
{
	struct input_getevent *g = NULL;
	const char *dir = getenv("TMPDIR");
	char path[4096];
	void *map;
	int fd, n;

	(void)state;
	/* Untouched anonymous memory costs nothing. */
	map = mmap(NULL, FILE_MAX + 1, PROT_READ,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(
		input_getevent_open_mem(map, FILE_MAX + 1, "big", NULL, &g),
		-EFBIG);
	assert_null(g);
	munmap(map, FILE_MAX + 1);

	/* Nor does a sparse file. */
	n = snprintf(path, sizeof(path), "%s/test_getevent.XXXXXX",
		     dir && *dir ? dir : P_tmpdir);
	assert_true(n > 0 && (size_t)n < sizeof(path));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)FILE_MAX + 1), 0);
	close(fd);
	assert_int_equal(input_getevent_open(path, NULL, &g), -EFBIG);
	assert_null(g);
	unlink(path);
}

/* A reader's parse state, as input_getevent_open() sets it up. */
static struct input_getevent *
new_parser(void)
{
	struct input_getevent *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	g->chosen = -1;
	g->cur_dev = -1;
	g->last_dev = -1;
	g->cap_type = -1;
	return g;
}

/* What one parse gave: the stats and every device's events. */
static void
expect_same_parse(const struct input_getevent *a,
		  const struct input_getevent *b)
{
	size_t i;

	assert_memory_equal(&a->st, &b->st, sizeof(a->st));
	assert_int_equal(a->ndevs, b->ndevs);
	assert_int_equal(a->timed, b->timed);
	assert_int_equal(a->parsed, b->parsed);
	assert_int_equal(a->nev, b->nev);
	for (i = 0; i < a->nev; i++) {
		fixture_expect_event(&b->ev[i], a->ev[i].time_ns, a->ev[i].type,
				     a->ev[i].code, a->ev[i].value);
		assert_int_equal(a->ev_dev[i], b->ev_dev[i]);
	}
	for (i = 0; i < a->ndevs; i++) {
		assert_string_equal(a->devs[i].path, b->devs[i].path);
		assert_string_equal(a->devs[i].name, b->devs[i].name);
	}
}

/*
 * A log read in two parts split at every byte, and one byte at a time,
 * parses as it does whole: a line split across reads is one line, a long
 * line split anywhere is still skipped, a CR before a split newline still
 * does not count against the limit.
 */
static void
test_chunk_boundaries(void **state)
{
	static const char head[] =
		"add device 1: /dev/input/event2\n"
		"  name:     \"fts_ts\"\n"
		"[    5.000000] /dev/input/event2: EV_ABS ABS_MT_TRACKING_ID "
		"00000001\r\n"
		"\n"
		"[    5.000000] /dev/input/event2: EV_ABS ABS_MT_POSITION_X "
		"0000022c\n";
	static const char tail[] =
		"[    5.000100] /dev/input/event2: EV_SYN SYN_REPORT 00000000\n"
		"garbage\n"
		"[    5.080000] /dev/input/event2: EV_ABS ABS_MT_TRACKING_ID "
		"ffffffff\n"
		"[    5.080000] /dev/input/event2: EV_SYN SYN_REPORT 00000000";
	struct input_getevent *whole, *g;
	size_t len = 0, k, i;
	char *buf;

	(void)state;
	buf = malloc(sizeof(head) + sizeof(tail) + 3 * LINE_MAX);
	assert_non_null(buf);
	memcpy(buf, head, sizeof(head) - 1);
	len += sizeof(head) - 1;
	/* At the limit with a CR, then one over it. */
	memset(buf + len, ' ', LINE_MAX);
	len += LINE_MAX;
	buf[len++] = '\r';
	buf[len++] = '\n';
	memset(buf + len, 'x', LINE_MAX + 2);
	len += LINE_MAX + 2;
	buf[len++] = '\n';
	memcpy(buf + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;

	whole = new_parser();
	assert_int_equal(input_getevent_line_parse(whole, buf, len), 0);
	assert_int_equal(whole->nev, 5);
	assert_int_equal(whole->st.lines, 11);
	assert_int_equal(whole->st.skipped, 2);
	assert_int_equal(whole->st.too_long, 1);

	for (k = 0; k <= len; k++) {
		g = new_parser();
		assert_int_equal(input_getevent_line_feed(g, buf, k), 0);
		assert_int_equal(input_getevent_line_feed(g, buf + k, len - k),
				 0);
		assert_int_equal(input_getevent_line_end(g), 0);
		expect_same_parse(whole, g);
		input_getevent_free(g);
	}
	g = new_parser();
	for (i = 0; i < len; i++)
		assert_int_equal(input_getevent_line_feed(g, buf + i, 1), 0);
	assert_int_equal(input_getevent_line_end(g), 0);
	expect_same_parse(whole, g);
	input_getevent_free(g);
	input_getevent_free(whole);
	free(buf);
}

/*
 * Whole lines go through the fast path of the line reader, lines split
 * across reads through the general one: every shape of event line, the
 * usual and the odd, parses the same both ways, events and counts.
 */
static void
test_fast_path_same(void **state)
{
	static const char log[] =
		"[    5.000000] EV_ABS       ABS_MT_SLOT          00000000   \n"
		"[    5.000000] EV_ABS ABS_MT_TRACKING_ID 0000abcd\r\n"
		"[\t5.000001]\tEV_ABS\tABS_MT_POSITION_X\t0000022C\t\n"
		"[    5.000002] 0003 0036 000003ad\n"
		"[    5.000003] EV_SYN SYN_REPORT 00000000 rate 120\n"
		"[    5.000004] EV_ABS ABS_MT_TOOL_TYPE MT_TOOL_FINGER\n"
		"[    5.000005] EV_ABS ABS_MT_BOGUS 00000001\n"
		"[    5.000006] EV_BOGUS ABS_MT_SLOT 00000001\n"
		"[    5.000007] EV_ABS ABS_MT_SLOT 123456789\n"
		"[    5.000008] EV_ABS ABS_MT_SLOT 00000001 extra\n"
		"[    5.000009] EV_ABS ABS_MT_SLOT 0000000g\n"
		"[    5.0000100] EV_ABS ABS_MT_SLOT 00000001\n"
		"[    5.00001] EV_ABS ABS_MT_SLOT 00000001\n"
		"[    5.000011]EV_ABS ABS_MT_SLOT 00000001\n"
		"[ 4294967296.000000] EV_ABS ABS_MT_SLOT 00000001\n"
		"[ 99999999999999999999999.000000] EV_ABS ABS_MT_SLOT 0\n"
		"[ 4294967295.000000] EV_ABS ABS_MT_SLOT 00000001\n"
		"[    6.000000] /dev/input/event4: EV_KEY BTN_TOUCH 00000001\n"
		"[    6.000001] : EV_KEY BTN_TOUCH 00000001\n"
		"[    6.000002] /dev/input/event4: EV_ABS ABS_X\r00000001\n"
		"[    6.000003] /dev/input/event4: EV_ABS ABS_X 00000001\r \r\n"
		"[    6.000004] dev EV_ABS ABS_X 00000001\n"
		"[    1.000000] /dev/input/event4: EV_SYN SYN_REPORT 00000000\n"
		"  [    7.000000] EV_SYN SYN_REPORT 00000000\n"
		"[    7.000001] EV_SYN\n"
		"[    7.000002] \n"
		"[\n"
		"[    7.000003] EV_SYN SYN_REPORT \0 00000000\n"
		"[    7.000004] EV_SYN SYN_REPORT 1\n";
	struct input_getevent *whole, *g;
	size_t len = sizeof(log) - 1, i;

	(void)state;
	whole = new_parser();
	assert_int_equal(input_getevent_line_parse(whole, log, len), 0);
	/* The odd ones are skipped, not lost silently. */
	assert_true(whole->st.skipped >= 10);
	assert_true(whole->nev >= 10);
	g = new_parser();
	for (i = 0; i < len; i++)
		assert_int_equal(input_getevent_line_feed(g, log + i, 1), 0);
	assert_int_equal(input_getevent_line_end(g), 0);
	expect_same_parse(whole, g);
	assert_int_equal(whole->devs[0].backwards, g->devs[0].backwards);
	assert_int_equal(whole->lineno, g->lineno);
	assert_int_equal(whole->nonblank, g->nonblank);
	for (i = 0; i < whole->ndevs; i++) {
		assert_int_equal(whole->devs[i].events, g->devs[i].events);
		assert_int_equal(whole->devs[i].mt_events,
				 g->devs[i].mt_events);
		assert_int_equal(whole->devs[i].syn_events,
				 g->devs[i].syn_events);
		assert_int_equal(whole->devs[i].backwards,
				 g->devs[i].backwards);
		assert_int_equal(whole->devs[i].back.line,
				 g->devs[i].back.line);
	}
	input_getevent_free(g);
	input_getevent_free(whole);
}

/* Writes len bytes of buf to a new file under TMPDIR; fills path. */
static void
write_tmp(char *path, size_t size, const char *buf, size_t len)
{
	const char *dir = getenv("TMPDIR");
	ssize_t w;
	size_t off;
	int fd, n;

	n = snprintf(path, size, "%s/test_getevent.XXXXXX",
		     dir && *dir ? dir : P_tmpdir);
	assert_true(n > 0 && (size_t)n < size);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	for (off = 0; off < len; off += (size_t)w) {
		w = write(fd, buf + off, len - off);
		assert_true(w > 0);
	}
	close(fd);
}

/*
 * A file is read in chunks: lines that straddle a chunk, and a line far
 * longer than a chunk, read as they do from memory.  The long line is
 * skipped and counted, and the tap after it is kept.
 */
static void
test_file_chunks(void **state)
{
	static const char tap[] =
		"[    7.000000] EV_ABS ABS_MT_TRACKING_ID 00000001\n"
		"[    7.000000] EV_ABS ABS_MT_POSITION_X 00000010\n"
		"[    7.000000] EV_SYN SYN_REPORT 00000000\n"
		"[    7.050000] EV_ABS ABS_MT_TRACKING_ID ffffffff\n"
		"[    7.050000] EV_SYN SYN_REPORT 00000000\n";
	static const char tap2[] =
		"[    8.000000] EV_ABS ABS_MT_TRACKING_ID 00000002\n"
		"[    8.000000] EV_ABS ABS_MT_POSITION_X 00000020\n"
		"[    8.000000] EV_SYN SYN_REPORT 00000000\n"
		"[    8.050000] EV_ABS ABS_MT_TRACKING_ID ffffffff\n"
		"[    8.050000] EV_SYN SYN_REPORT 00000000\n";
	static const char blank[] = "    \n";
	struct input_getevent *g = NULL;
	struct fixture_getevent file, mem;
	size_t len = 0, big = (size_t)300 << 10, cap;
	char path[4096], *buf;

	(void)state;
	cap = 65536 + 2 * big + 8 * sizeof(tap);
	buf = malloc(cap);
	assert_non_null(buf);
	/* Blank lines up to the first chunk's end, then the tap across it. */
	while (len + sizeof(blank) - 1 < 65536 - 20) {
		memcpy(buf + len, blank, sizeof(blank) - 1);
		len += sizeof(blank) - 1;
	}
	memcpy(buf + len, tap, sizeof(tap) - 1);
	len += sizeof(tap) - 1;
	memset(buf + len, 'x', big);
	len += big;
	buf[len++] = '\n';
	memcpy(buf + len, tap2, sizeof(tap2) - 1);
	len += sizeof(tap2) - 1;
	/* And a long last line without a newline. */
	memset(buf + len, 'y', big);
	len += big;
	assert_true(len <= cap);
	write_tmp(path, sizeof(path), buf, len);

	assert_int_equal(input_getevent_open(path, NULL, &g), 0);
	fixture_getevent_drain(g, &file);
	input_getevent_free(g);
	g = NULL;
	assert_int_equal(input_getevent_open_mem(buf, len, "chunks", NULL, &g),
			 0);
	fixture_getevent_drain(g, &mem);
	input_getevent_free(g);
	assert_int_equal(file.n, 10);
	assert_int_equal(file.st.skipped, 2);
	assert_int_equal(file.st.too_long, 2);
	assert_memory_equal(&file.st, &mem.st, sizeof(file.st));
	assert_memory_equal(file.ev, mem.ev, file.n * sizeof(file.ev[0]));
	unlink(path);
	free(buf);
}

/* A sparse file of NUL bytes has no line at all: refused, not read on. */
static void
test_no_line(void **state)
{
	struct input_getevent *g = NULL;
	char path[4096];
	int fd;

	(void)state;
	write_tmp(path, sizeof(path), "", 0);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)65 << 20), 0);
	close(fd);
	assert_int_equal(input_getevent_open(path, NULL, &g), -EINVAL);
	assert_null(g);
	unlink(path);
}

static void
test_missing_file(void **state)
{
	struct input_getevent *g = NULL;

	(void)state;
	assert_int_equal(input_getevent_open(
				 FIXTURE_GETEVENT_DIR "no-such-file", NULL, &g),
			 -ENOENT);
	assert_null(g);
	assert_int_equal(input_getevent_open(FIXTURE_GETEVENT_DIR, NULL, &g),
			 -EISDIR);
	assert_null(g);
	input_getevent_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backwards),
		cmocka_unit_test(test_backwards_other_device),
		cmocka_unit_test(test_stamps),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_chunk_boundaries),
		cmocka_unit_test(test_fast_path_same),
		cmocka_unit_test(test_file_chunks),
		cmocka_unit_test(test_no_line),
	};

	log_init("test_input_getevent_read", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
