/*
 * libFuzzer target: the `dumpsys window` focus parser of the live
 * foreground tracker, on hostile input.  Beyond not crashing, what it
 * returns must be well formed: counts within bounds, names non-empty,
 * NUL-terminated and package-like.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "foreground.h"
#include "foreground_window.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_name(const char *s)
{
	size_t n = strnlen(s, FOREGROUND_PACKAGE_MAX + 1);

	if (n == 0 || n > FOREGROUND_PACKAGE_MAX || !strchr(s, '.'))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct foreground_window_focus focus;
	char pkg[FOREGROUND_PACKAGE_MAX + 1];
	char *copy;
	size_t i;

	log_init("fuzz", LOG_LEVEL_ERROR);
	foreground_window_parse((const char *)data, size, &focus);
	if (focus.n_current > FOREGROUND_WINDOW_FOCUS_MAX ||
	    focus.n_app > FOREGROUND_WINDOW_FOCUS_MAX)
		abort();
	for (i = 0; i < focus.n_current; i++)
		check_name(focus.current[i]);
	for (i = 0; i < focus.n_app; i++)
		check_name(focus.app[i]);
	/* One value on its own, as a NUL-terminated string. */
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	if (foreground_window_focus_package(copy, pkg, sizeof(pkg)) == 1)
		check_name(pkg);
	free(copy);
	return 0;
}
