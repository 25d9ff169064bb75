/*
 * What the parts of the getevent reader (input_getevent.h) share and no
 * caller needs: the layout of a struct input_getevent and of its devices.
 */
#ifndef TAPD_INPUT_GETEVENT_INT_H
#define TAPD_INPUT_GETEVENT_INT_H

#include <linux/input.h>
#include <stddef.h>
#include <stdint.h>

#include "input_getevent.h"

#define GETEVENT_DEVICES_MAX 64
#define GETEVENT_PATH_MAX    256
#define GETEVENT_NAME_MAX    256
/* The longest line read; longer ones are skipped. */
#define GETEVENT_LINE_MAX 4096

/* The last second that still fits int64 nanoseconds with room to spare. */
#define GETEVENT_SEC_MAX 4294967295ULL

/* The longest type or code token the fast path remembers. */
#define GETEVENT_TOKEN_MAX 32
/* Type and code pairs the fast path remembers. */
#define GETEVENT_PAIRS 64

/*
 * A type and code token pair and what they mean, as
 * input_getevent_field_event() read them.
 */
struct input_getevent_pair {
	char a[GETEVENT_TOKEN_MAX];
	char b[GETEVENT_TOKEN_MAX];
	size_t na, nb;
	uint16_t type, code;
	int used;
};

/* Where in a device's header block the previous line left us. */
enum input_getevent_section {
	SECTION_NONE,	/* outside any header block */
	SECTION_DEVICE, /* after "add device": name, bus, version... */
	SECTION_EVENTS, /* after "events:": capability lines */
	SECTION_PROPS,	/* after "input props:" */
	SECTION_HID,	/* after "HID descriptor:": a hex dump */
};

struct input_getevent_dev {
	char path[GETEVENT_PATH_MAX]; /* "" for events without a prefix */
	char name[GETEVENT_NAME_MAX];
	int has_name;
	int gone; /* merged into another entry */
	struct input_getevent_axis axes[ABS_CNT];
	uint64_t axis_set; /* bit n: axes[n] was read */
	uint32_t props;	   /* bit n: INPUT_PROP n */
	uint64_t events;
	uint64_t mt_events;  /* positions, tracking ids and slots */
	uint64_t syn_events; /* SYN_REPORT and SYN_MT_REPORT */
	uint64_t backwards;
	int64_t last_ns;
	/* The first time that went back: where in ev, and from the line. */
	size_t back_at;
	struct input_getevent_jump back;
};

struct input_getevent {
	char *name; /* the log, for messages */
	struct input_getevent_dev devs[GETEVENT_DEVICES_MAX];
	unsigned ndevs;
	int chosen; /* index into devs, -1 when the log has no device */

	/* Parse state: the device whose header is being read. */
	int cur_dev;
	enum input_getevent_section section;
	int cap_type; /* type of the capability lines, -1 if none */
	int last_dev; /* device of the previous event line, a lookup cache */

	/* Events of every device while parsing, then of the chosen one. */
	struct touch_event *ev;
	uint8_t *ev_dev;
	size_t nev, cap;
	size_t pos;
	/* The chosen device's first jump back: its events end before it. */
	int have_jump;
	int jump_told;
	struct input_getevent_jump jump;

	uint64_t timed; /* event lines with a timestamp */
	uint64_t lineno;
	/* The line being read: at most GETEVENT_LINE_MAX + 1 bytes of it. */
	char *part;
	size_t partlen;
	int overlong;	   /* it ran over the limit and is being dropped */
	int in_line;	   /* bytes of it were seen */
	uint64_t nonblank; /* lines that are not blank */
	uint64_t parsed;   /* of those, lines that were not skipped */
	unsigned skips_logged;
	struct input_getevent_stats st;
	/* The fast path's pairs (input_getevent_line.c). */
	struct input_getevent_pair pairs[GETEVENT_PAIRS];
};

#endif
