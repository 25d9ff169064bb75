/*
 * libFuzzer target for the small text parsers that take outside input:
 * device.json (device_parse), foreground logs (foreground_load_stream)
 * and the API's time parameters (timeparse_parse).  The first byte picks
 * the parser.  Beyond not crashing, each answer must be consistent: a
 * device with a mapping has ordered axes, a foreground timeline answers
 * lookups, a parsed time is the same when parsed again.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "foreground.h"
#include "log.h"
#include "timeparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_device(const char *s, size_t n)
{
	struct device_info d;

	if (device_parse(s, n, "fuzz", &d) == 0) {
		if (d.have_touch && (d.x.max <= d.x.min || d.y.max <= d.y.min))
			abort();
		if (d.have_screen && (d.width <= 0 || d.height <= 0))
			abort();
	}
}

static void
fuzz_foreground(const char *s, size_t n)
{
	struct foreground *fg = NULL;
	const char *pkg;
	int32_t pid;
	FILE *f;

	/* Opened read-only: the buffer is never written. */
	f = fmemopen((void *)(uintptr_t)s, n, "r");
	if (!f)
		return;
	if (foreground_load_stream(f, "fuzz", &fg) == 0) {
		if (foreground_at(fg, INT64_MAX, &pid, &pkg) == 0 &&
		    (!pkg || !foreground_valid_package(pkg)))
			abort();
		foreground_at(fg, INT64_MIN, &pid, &pkg);
		foreground_free(fg);
	}
	fclose(f);
}

static void
fuzz_time(const char *s)
{
	const int64_t now = INT64_C(1764567474) * 1000000000;
	int64_t a, b;

	if (timeparse_parse(s, now, &a) == 0) {
		if (timeparse_parse(s, now, &b) != 0 || a != b)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	log_init("fuzz", LOG_LEVEL_ERROR);
	/* The parsers that take C strings get a NUL-terminated copy. */
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		fuzz_device(s, size - 1);
		break;
	case 1:
		fuzz_foreground(s, size - 1);
		break;
	default:
		fuzz_time(s);
		break;
	}
	free(s);
	return 0;
}
