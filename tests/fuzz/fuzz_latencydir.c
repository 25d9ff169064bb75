/*
 * libFuzzer target for the replay of a recorded latency/ directory
 * (frames_latency_dir.h, docs/formats.md 3.3): the input is split into
 * files at each line "===", the first line of each giving its name
 * ("1000000000-0.txt", "1000000000.list", or anything else) and the rest
 * its content; they are written into a fresh directory, which is then
 * replayed cycle by cycle as tapd replay does.  Frames must be presented
 * ones, capture times must rise, the watermark must never move back.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frames_latency.h"
#include "frames_latency_dir.h"
#include "frames_latency_list.h"
#include "log.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILES_MAX 24

static char root[512];
static unsigned serial;

static int
on_frame(void *ctx, const struct frames_latency_frame *f)
{
	size_t *n = ctx;

	if (!f->layer || f->desired_ns <= 0 || f->present_ns <= 0 ||
	    f->present_ns == LATENCY_PENDING || f->ready_ns == 0)
		abort();
	(*n)++;
	return 0;
}

/* The end of the file starting at p: the next "\n===\n", or the end. */
static const uint8_t *
file_end(const uint8_t *p, const uint8_t *end, const uint8_t **next)
{
	static const char sep[] = "\n===\n";
	const uint8_t *q;

	for (q = p; end - q >= 5; q++)
		if (memcmp(q, sep, 5) == 0) {
			*next = q + 5;
			return q + 1; /* the content keeps its last newline */
		}
	*next = end;
	return end;
}

static void
cleanup(void)
{
	fuzz_rmtree(root);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_init(NULL, LOG_LEVEL_ERROR);
	fuzz_tmpdir(root, sizeof(root), "latencydir");
	atexit(cleanup);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *next, *fe, *nl;
	struct frames_latency_dir *d = NULL;
	struct frames_latency_stats st;
	char dir[600], path[1200], name[256];
	int64_t capture, last_capture = INT64_MIN, wm, last_wm = INT64_MIN;
	size_t n = 0, files = 0, i, len;
	int rc;

	/* A directory per input: names never clash with a previous one. */
	snprintf(dir, sizeof(dir), "%s/%u", root, serial++);
	if (mkdir(dir, 0700) != 0)
		abort();
	while (p < end && files < FILES_MAX) {
		fe = file_end(p, end, &next);
		nl = memchr(p, '\n', (size_t)(fe - p));
		len = nl ? (size_t)(nl - p) : (size_t)(fe - p);
		if (len > sizeof(name) - 1)
			len = sizeof(name) - 1;
		for (i = 0; i < len; i++) {
			char c = (char)p[i];

			/* A name is one path component, not "." or "..". */
			name[i] = (c == '/' || c == '\0') ? '_' : c;
		}
		name[len] = '\0';
		if (len == 0 || strcmp(name, ".") == 0 ||
		    strcmp(name, "..") == 0)
			snprintf(name, sizeof(name), "junk%zu", files);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		p = nl ? nl + 1 : fe;
		fuzz_write(path, p, (size_t)(fe - p));
		files++;
		p = next;
	}
	if (frames_latency_dir_open(dir, &d) != 0)
		abort();
	if (frames_latency_dir_watermark(d) != INT64_MIN)
		abort();
	while ((rc = frames_latency_dir_next(d, on_frame, &n, &capture)) == 1) {
		/* Cycles come in capture order, each time once. */
		if (capture <= last_capture)
			abort();
		last_capture = capture;
		wm = frames_latency_dir_watermark(d);
		if (wm < last_wm)
			abort();
		last_wm = wm;
		if (frames_latency_dir_list(d) &&
		    frames_latency_list_count(frames_latency_dir_list(d)) >
			    100000)
			abort();
		if (frames_latency_dir_coverage(d) > capture)
			abort();
	}
	if (rc != 0)
		abort();
	frames_latency_dir_get_stats(d, &st);
	if (st.files + st.files_skipped > files)
		abort();
	frames_latency_dir_free(d);
	fuzz_rmtree(dir);
	return 0;
}
