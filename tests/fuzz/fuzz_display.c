/*
 * libFuzzer target: the `dumpsys display` parser (display_dump.h) on
 * hostile input.  Beyond not crashing: every field within its bounds, a
 * size whole or not at all, 0 returned exactly when something is known,
 * the same answer twice, and each size and density a number the input
 * holds in decimal (a refresh rate is rounded, so only its bounds hold).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display_dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_in(const uint8_t *data, size_t size, int32_t v)
{
	char digits[16];
	int n;

	if (v == 0)
		return;
	n = snprintf(digits, sizeof(digits), "%d", (int)v);
	if (n <= 0 || !memmem(data, size, digits, (size_t)n))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct display_dump d, again;
	int rc;

	rc = display_dump_parse((const char *)data, size, &d);
	if (rc != 0 && rc != -ENOENT)
		abort();
	if ((rc == 0) != (d.width || d.refresh_hz || d.density_dpi))
		abort();
	if ((d.width == 0) != (d.height == 0))
		abort();
	if (d.width < 0 || d.width > DISPLAY_DUMP_SIZE_MAX || d.height < 0 ||
	    d.height > DISPLAY_DUMP_SIZE_MAX || d.density_dpi < 0 ||
	    d.density_dpi > DISPLAY_DUMP_DENSITY_MAX || d.refresh_hz < 0 ||
	    d.refresh_hz > DISPLAY_DUMP_REFRESH_MAX)
		abort();
	check_in(data, size, d.width);
	check_in(data, size, d.height);
	check_in(data, size, d.density_dpi);
	if (display_dump_parse((const char *)data, size, &again) != rc ||
	    memcmp(&d, &again, sizeof(d)) != 0)
		abort();
	return 0;
}
