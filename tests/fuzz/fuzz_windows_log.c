/*
 * libFuzzer target: the readers of a session's recorded lists,
 * windows.log (windows_log.h) and processes.log (processes_log.h), on
 * hostile input.  Beyond not crashing: blocks in time order and within
 * their bound, each lookup the block in force at its time, every package
 * found a valid one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foreground.h"
#include "log.h"
#include "processes_log.h"
#include "windows_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_windows(const uint8_t *data, size_t size)
{
	const struct winlist *wl, *at;
	struct windows_log *l;
	int64_t t, prev = INT64_MIN, tb;
	FILE *fp;
	size_t i, n;

	if (size == 0 || !(fp = fmemopen((void *)(uintptr_t)data, size, "r")))
		return;
	if (windows_log_load_stream(fp, "fuzz", &l) < 0) {
		fclose(fp);
		return;
	}
	fclose(fp);
	n = windows_log_count(l);
	if (n > WINDOWS_LOG_BLOCKS_MAX)
		abort();
	for (i = 0; i < n; i++) {
		wl = windows_log_block(l, i, &t);
		if (!wl || t < prev)
			abort();
		/* The block in force at its own time is it or a later twin. */
		if (windows_log_at(l, t, &at, &tb) < 0 || tb != t)
			abort();
		prev = t;
	}
	if (n > 0 && windows_log_at(l, INT64_MAX, &at, NULL) < 0)
		abort();
	windows_log_free(l);
}

static void
check_processes(const uint8_t *data, size_t size)
{
	struct processes_log *l;
	const char *pkg;
	FILE *fp;
	size_t i;

	if (size == 0 || !(fp = fmemopen((void *)(uintptr_t)data, size, "r")))
		return;
	if (processes_log_load_stream(fp, "fuzz", &l) < 0) {
		fclose(fp);
		return;
	}
	fclose(fp);
	for (i = 0; i + 2 <= size && i < 32; i += 2)
		if (processes_log_find(l, data[i] * 1000, data[i + 1], -1,
				       &pkg) == 0 &&
		    !foreground_valid_package(pkg))
			abort();
	processes_log_free(l);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;

	/* A log whose time goes back is reported: not on every input. */
	log_init("fuzz", LOG_LEVEL_ERROR);
	if (!quiet)
		quiet = log_open_file("/dev/null") == 0;
	check_windows(data, size);
	check_processes(data, size);
	return 0;
}
