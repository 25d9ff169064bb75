/*
 * The health of the libevdev source: why no device is read, told to the
 * status as one detail.
 */
#include "input_evdev_health.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
input_evdev_health_set_why(struct input_evdev *ie, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* A cut detail is still a useful one. */
	(void)vsnprintf(ie->why, sizeof(ie->why), fmt, ap);
	va_end(ap);
}

void
input_evdev_health_set(struct input_evdev *ie, enum status_health health,
		       const char *fmt, ...)
{
	char detail[EVDEV_WHY_MAX + PATH_MAX];
	va_list ap;

	if (ie->status == NULL)
		return;
	va_start(ap, fmt);
	/* The status cuts it shorter anyway. */
	(void)vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	status_set_source(ie->status, STATUS_SOURCE_INPUT, health, "evdev",
			  "%s", detail);
}

void
input_evdev_health_given_why(struct input_evdev *ie, const char *fmt, ...)
{
	va_list ap;

	if (ie->only[0] == '\0')
		return;
	va_start(ap, fmt);
	(void)vsnprintf(ie->why, sizeof(ie->why), fmt, ap);
	va_end(ap);
}

void
input_evdev_health_down(struct input_evdev *ie)
{
	if (ie->only[0] != '\0') {
		if (ie->why[0] != '\0')
			input_evdev_health_set(ie, STATUS_HEALTH_DOWN, "%s",
					       ie->why);
		else
			input_evdev_health_set(ie, STATUS_HEALTH_DOWN,
					       "'%s/%s' not found", ie->dir,
					       ie->only);
	} else {
		input_evdev_health_set(
			ie, STATUS_HEALTH_DOWN,
			"%s%s%s%sno touch screen found under '%s'", ie->why,
			ie->why[0] != '\0' ? ", " : "", ie->denied,
			ie->denied[0] != '\0' ? ", " : "", ie->dir);
	}
}

/* Remembers the first node of a scan that could not be opened. */
void
input_evdev_health_denied(struct input_evdev *ie, const char *name,
			  const char *path, int err)
{
	if (ie->only[0] != '\0' || ie->denied[0] != '\0')
		return;
	(void)snprintf(ie->denied_name, sizeof(ie->denied_name), "%s", name);
	(void)snprintf(ie->denied, sizeof(ie->denied), "cannot open '%s': %s",
		       path, strerror(err));
}

/* Forgets the node remembered above once it opens or is gone. */
void
input_evdev_health_denied_clear(struct input_evdev *ie, const char *name)
{
	if (name == NULL || strcmp(ie->denied_name, name) == 0) {
		ie->denied[0] = '\0';
		ie->denied_name[0] = '\0';
	}
}
