/*
 * libFuzzer target for the dumpsys --latency / --list reader: the input is
 * parsed as a --latency output and fed twice to a tracker (the second feed
 * of the same snapshot must emit nothing and must not lower the
 * watermark), then parsed as a --list output whose names go through the
 * package helper and the layer pick.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frames_latency.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
count_frame(void *ctx, const struct frames_latency_frame *f)
{
	size_t *n = ctx;

	/* Only presented frames may come out. */
	if (!f->layer || f->desired_ns <= 0 || f->present_ns <= 0 ||
	    f->present_ns == LATENCY_PENDING || f->ready_ns == 0)
		abort();
	(*n)++;
	return 0;
}

static void
fuzz_snapshot(const char *buf, size_t size)
{
	struct frames_latency_snapshot *snap = NULL;
	struct frames_latency_tracker *t = NULL;
	struct frames_latency_stats st;
	size_t n = 0, first, i;
	int64_t wm;

	if (frames_latency_snapshot_parse(buf, size, &snap) < 0)
		return;
	frames_latency_snapshot_get_stats(snap, &st);
	if (frames_latency_snapshot_rows(snap) > LATENCY_ROWS_MAX ||
	    st.rows != frames_latency_snapshot_rows(snap) + st.rows_over)
		abort();
	for (i = 0; i < frames_latency_snapshot_rows(snap); i++)
		(void)frames_latency_row_classify(
			frames_latency_snapshot_row(snap, i));
	if (frames_latency_tracker_new("com.foo/com.foo.Main#1", &t) < 0)
		goto out;
	if (frames_latency_tracker_feed(t, 1000000000, snap, count_frame, &n) !=
	    0)
		abort();
	first = n;
	wm = frames_latency_tracker_watermark(t);
	if (frames_latency_tracker_feed(t, 2000000000, snap, count_frame, &n) !=
	    0)
		abort();
	if (n != first || frames_latency_tracker_watermark(t) < wm)
		abort();
	frames_latency_tracker_get_stats(t, &st);
	if (st.frames != n)
		abort();
out:
	frames_latency_tracker_free(t);
	frames_latency_snapshot_free(snap);
}

static void
fuzz_list(const char *buf, size_t size)
{
	struct frames_latency_list *list = NULL;
	const char *names[8];
	char pkg[128];
	size_t i, n;
	int rc;

	if (frames_latency_list_parse(buf, size, &list) < 0)
		return;
	/* Names are checked one by one, picks only for the first few. */
	for (i = 0; i < frames_latency_list_count(list); i++) {
		const char *name = frames_latency_list_name(list, i);

		if (!name || strlen(name) == 0 ||
		    strlen(name) > LATENCY_NAME_MAX)
			abort();
		if (frames_latency_layer_package(name, pkg, sizeof(pkg)) == 0 &&
		    i < 8) {
			rc = frames_latency_list_pick(list, pkg, names, 8, &n);
			if ((rc != 0 && rc != -ENOSPC) || n > 8)
				abort();
		}
	}
	rc = frames_latency_list_pick(list, "com.foo", names, 8, &n);
	if ((rc != 0 && rc != -ENOSPC) || n > 8)
		abort();
	frames_latency_list_free(list);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *str;

	fuzz_snapshot((const char *)data, size);
	fuzz_list((const char *)data, size);

	/* The helper on the raw bytes, as a C string. */
	str = malloc(size + 1);
	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';
	{
		char pkg[64];

		(void)frames_latency_layer_package(str, pkg, sizeof(pkg));
	}
	free(str);
	return 0;
}
