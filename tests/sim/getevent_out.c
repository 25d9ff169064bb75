#include <errno.h>
#include <linux/input-event-codes.h>
#include <stdio.h>
#include <string.h>

#include "getevent_out.h"
#include "msg.h"

struct label {
	uint16_t code;
	const char *name;
};

static const struct label abs_labels[] = {
	{ABS_MT_SLOT, "ABS_MT_SLOT"},
	{ABS_MT_TOUCH_MAJOR, "ABS_MT_TOUCH_MAJOR"},
	{ABS_MT_TOUCH_MINOR, "ABS_MT_TOUCH_MINOR"},
	{ABS_MT_WIDTH_MAJOR, "ABS_MT_WIDTH_MAJOR"},
	{ABS_MT_POSITION_X, "ABS_MT_POSITION_X"},
	{ABS_MT_POSITION_Y, "ABS_MT_POSITION_Y"},
	{ABS_MT_TRACKING_ID, "ABS_MT_TRACKING_ID"},
	{ABS_MT_PRESSURE, "ABS_MT_PRESSURE"},
	{ABS_X, "ABS_X"},
	{ABS_Y, "ABS_Y"},
	{ABS_Z, "ABS_Z"},
};

static const struct label key_labels[] = {
	{BTN_TOUCH, "BTN_TOUCH"},
	{BTN_TOOL_FINGER, "BTN_TOOL_FINGER"},
	{BTN_TOOL_DOUBLETAP, "BTN_TOOL_DOUBLETAP"},
	{KEY_VOLUMEDOWN, "KEY_VOLUMEDOWN"},
	{KEY_VOLUMEUP, "KEY_VOLUMEUP"},
	{KEY_POWER, "KEY_POWER"},
};

static const struct label syn_labels[] = {
	{SYN_REPORT, "SYN_REPORT"},
	{SYN_MT_REPORT, "SYN_MT_REPORT"},
	{SYN_DROPPED, "SYN_DROPPED"},
};

static const char *
find_label(const struct label *l, size_t n, uint16_t code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i].code == code)
			return l[i].name;
	return NULL;
}

static int
print_event(FILE *f, const struct world_event *e, const char *prefix)
{
	const char *type = NULL, *code = NULL, *value = NULL;

	switch (e->type) {
	case EV_SYN:
		type = "EV_SYN";
		code = find_label(syn_labels,
				  sizeof(syn_labels) / sizeof(syn_labels[0]),
				  e->code);
		break;
	case EV_KEY:
		type = "EV_KEY";
		code = find_label(key_labels,
				  sizeof(key_labels) / sizeof(key_labels[0]),
				  e->code);
		value = e->value == 0	? "UP"
			: e->value == 1 ? "DOWN"
					: "REPEAT";
		break;
	case EV_ABS:
		type = "EV_ABS";
		code = find_label(abs_labels,
				  sizeof(abs_labels) / sizeof(abs_labels[0]),
				  e->code);
		break;
	default:
		break;
	}
	if (fprintf(f, "[%8ld.%06ld] ", (long)(e->time_us / 1000000),
		    (long)(e->time_us % 1000000)) < 0)
		return -EIO;
	if (prefix != NULL && fprintf(f, "%s: ", prefix) < 0)
		return -EIO;
	if (type != NULL)
		fprintf(f, "%-12.12s", type);
	else
		fprintf(f, "%04x        ", e->type);
	if (code != NULL)
		fprintf(f, " %-20.20s", code);
	else
		fprintf(f, " %04x                ", e->code);
	if (value != NULL)
		fprintf(f, " %-20.20s", value);
	else
		fprintf(f, " %08x            ", (uint32_t)e->value);
	if (fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}

int
getevent_out_write(const struct world *w, const char *path, uint64_t *lines)
{
	const struct world_format *fmt = world_get_format(w);
	const struct world_indev *devs;
	const struct world_event *ev;
	size_t ndev, nev, i;
	uint64_t n = 0;
	FILE *f;
	int rc = 0;

	devs = world_indevs(w, &ndev);
	ev = world_events(w, &nev);
	if (ndev == 0) {
		msg_warnx("cannot write '%s': no input device", path);
		return -EINVAL;
	}
	f = fopen(path, "w");
	if (f == NULL) {
		rc = -errno;
		msg_warn("cannot create '%s'", path);
		return rc;
	}
	/*
	 * getevent lists the devices in the order it finds them in
	 * /dev/input (the last one first here, as readdir gives them);
	 * with an explicit device it names only that one.
	 */
	if (fmt->header) {
		size_t shown = fmt->prefix ? ndev : 1;

		for (i = 0; i < shown; i++) {
			const struct world_indev *d =
				fmt->prefix ? &devs[ndev - 1 - i] : &devs[0];

			fprintf(f, "add device %zu: %s\n", i + 1, d->path);
			fprintf(f, "  name:     \"%s\"\n", d->name);
			n += 2;
		}
	}
	for (i = 0; i < nev && rc == 0; i++) {
		const char *prefix = NULL;

		if (ev[i].dev < 0 || (size_t)ev[i].dev >= ndev)
			continue;
		if (fmt->prefix)
			prefix = devs[ev[i].dev].path;
		else if (ev[i].dev != 0)
			continue;
		rc = print_event(f, &ev[i], prefix);
		n++;
	}
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	if (rc < 0) {
		msg_warnx("cannot write '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (lines != NULL)
		*lines = n;
	return 0;
}
