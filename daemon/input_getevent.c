/*
 * Reader of recorded getevent output.  The log is parsed in one pass over
 * its bytes: device headers, `-p` capability blocks and event lines of
 * every device.  Events are kept in an array together with the device
 * they came from; once the whole log is known, one device is chosen and
 * the array is cut down to its events, which getevent_next() hands out in
 * log order.  The text itself is not kept.
 *
 * Decisions worth knowing:
 *
 * - A line whose type or code label is not in the tables below is skipped
 *   and counted (in skipped and in unknown).  Without a code the event
 *   cannot be replayed, and dropping one unknown key line leaves the frame
 *   structure intact.  The tables hold every SYN and ABS name, so the lines
 *   a touch tracker needs are never lost to a missing label.
 * - Timestamps must be getevent's "[%8ld.%06ld]": six digits after the
 *   point, seconds at most 2^32 - 1.  A line with any other stamp is
 *   skipped.
 * - A log with event lines but not one timestamp is refused.  In a
 *   timestamped log, event lines without a stamp are skipped and counted.
 * - Without an explicit device the touch screen is the device that emits
 *   the most multitouch events (positions, tracking ids, slots), or whose
 *   `-p` block lists ABS_MT_POSITION_X.  A device whose name contains
 *   "uinput" (a virtual device such as Xiaomi's touch_uinput, which mirrors
 *   the real screen) is chosen only when no other device qualifies.  Ties
 *   go to INPUT_PROP_DIRECT, then to the device seen first.  A log without
 *   device prefixes is one unnamed stream, chosen when it emits multitouch
 *   events or at least SYN events.
 * - A log that has unprefixed events and exactly one "add device" header
 *   (as `getevent -p DEV` followed by `getevent -lt DEV` writes) treats
 *   the two as one device: its path, name and axis ranges are the
 *   header's.
 * - An empty log, or one with headers only, gives no events and is not an
 *   error.
 */
#include "input_getevent.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

/* The longest line read; longer ones are skipped. */
#define GETEVENT_LINE_MAX 4096
/* The largest log read, so that a wrong file cannot exhaust memory. */
#define GETEVENT_FILE_MAX ((size_t)1 << 30)
/* Phones have a dozen or two input devices; more is a hostile log. */
#define GETEVENT_DEVICES_MAX 64
#define GETEVENT_PATH_MAX    256
#define GETEVENT_NAME_MAX    256
/* The last second that still fits int64 nanoseconds with room to spare. */
#define GETEVENT_SEC_MAX 4294967295ULL
/* At most this many skipped lines are described at debug level. */
#define GETEVENT_SKIP_LOG_MAX 10

struct getevent_label {
	const char *name;
	int value;
};

/* A table entry named after its constant. */
/* clang-format off */
#define LABEL(x) {#x, (x)}
/* clang-format on */

static const struct getevent_label type_labels[] = {
	LABEL(EV_SYN), LABEL(EV_KEY), LABEL(EV_REL), LABEL(EV_ABS),
	LABEL(EV_MSC), LABEL(EV_SW),  LABEL(EV_LED), LABEL(EV_SND),
	LABEL(EV_REP), LABEL(EV_FF),  LABEL(EV_PWR), LABEL(EV_FF_STATUS),
	{NULL, 0},
};

static const struct getevent_label syn_labels[] = {
	LABEL(SYN_REPORT),  LABEL(SYN_CONFIG), LABEL(SYN_MT_REPORT),
	LABEL(SYN_DROPPED), {NULL, 0},
};

static const struct getevent_label abs_labels[] = {
	LABEL(ABS_X),
	LABEL(ABS_Y),
	LABEL(ABS_Z),
	LABEL(ABS_RX),
	LABEL(ABS_RY),
	LABEL(ABS_RZ),
	LABEL(ABS_THROTTLE),
	LABEL(ABS_RUDDER),
	LABEL(ABS_WHEEL),
	LABEL(ABS_GAS),
	LABEL(ABS_BRAKE),
	LABEL(ABS_HAT0X),
	LABEL(ABS_HAT0Y),
	LABEL(ABS_HAT1X),
	LABEL(ABS_HAT1Y),
	LABEL(ABS_HAT2X),
	LABEL(ABS_HAT2Y),
	LABEL(ABS_HAT3X),
	LABEL(ABS_HAT3Y),
	LABEL(ABS_PRESSURE),
	LABEL(ABS_DISTANCE),
	LABEL(ABS_TILT_X),
	LABEL(ABS_TILT_Y),
	LABEL(ABS_TOOL_WIDTH),
	LABEL(ABS_VOLUME),
#ifdef ABS_PROFILE
	LABEL(ABS_PROFILE),
#endif
	LABEL(ABS_MISC),
#ifdef ABS_RESERVED
	LABEL(ABS_RESERVED),
#endif
	LABEL(ABS_MT_SLOT),
	LABEL(ABS_MT_TOUCH_MAJOR),
	LABEL(ABS_MT_TOUCH_MINOR),
	LABEL(ABS_MT_WIDTH_MAJOR),
	LABEL(ABS_MT_WIDTH_MINOR),
	LABEL(ABS_MT_ORIENTATION),
	LABEL(ABS_MT_POSITION_X),
	LABEL(ABS_MT_POSITION_Y),
	LABEL(ABS_MT_TOOL_TYPE),
	LABEL(ABS_MT_BLOB_ID),
	LABEL(ABS_MT_TRACKING_ID),
	LABEL(ABS_MT_PRESSURE),
	LABEL(ABS_MT_DISTANCE),
	LABEL(ABS_MT_TOOL_X),
	LABEL(ABS_MT_TOOL_Y),
	{NULL, 0},
};

/*
 * Buttons in full, and the keys a phone or tablet has.  Other keys are
 * skipped: they never belong to a touch screen.
 */
static const struct getevent_label key_labels[] = {
	LABEL(KEY_ESC),
	LABEL(KEY_ENTER),
	LABEL(KEY_HOME),
	LABEL(KEY_UP),
	LABEL(KEY_LEFT),
	LABEL(KEY_RIGHT),
	LABEL(KEY_END),
	LABEL(KEY_DOWN),
	LABEL(KEY_DELETE),
	LABEL(KEY_MUTE),
	LABEL(KEY_VOLUMEDOWN),
	LABEL(KEY_VOLUMEUP),
	LABEL(KEY_POWER),
	LABEL(KEY_PAUSE),
	LABEL(KEY_STOP),
	LABEL(KEY_MENU),
	LABEL(KEY_SLEEP),
	LABEL(KEY_WAKEUP),
	LABEL(KEY_BACK),
	LABEL(KEY_FORWARD),
	LABEL(KEY_NEXTSONG),
	LABEL(KEY_PLAYPAUSE),
	LABEL(KEY_PREVIOUSSONG),
	LABEL(KEY_STOPCD),
	LABEL(KEY_PHONE),
	LABEL(KEY_HOMEPAGE),
	LABEL(KEY_PLAY),
	LABEL(KEY_CAMERA),
	LABEL(KEY_SEARCH),
	LABEL(KEY_MEDIA),
	LABEL(KEY_SEND),
	LABEL(KEY_BRIGHTNESSDOWN),
	LABEL(KEY_BRIGHTNESSUP),
	LABEL(KEY_POWER2),
	LABEL(KEY_CAMERA_FOCUS),
	LABEL(KEY_APPSELECT),
#ifdef KEY_ASSISTANT
	LABEL(KEY_ASSISTANT),
#endif
	LABEL(BTN_MISC),
	LABEL(BTN_0),
	LABEL(BTN_1),
	LABEL(BTN_2),
	LABEL(BTN_3),
	LABEL(BTN_4),
	LABEL(BTN_5),
	LABEL(BTN_6),
	LABEL(BTN_7),
	LABEL(BTN_8),
	LABEL(BTN_9),
	LABEL(BTN_MOUSE),
	LABEL(BTN_LEFT),
	LABEL(BTN_RIGHT),
	LABEL(BTN_MIDDLE),
	LABEL(BTN_SIDE),
	LABEL(BTN_EXTRA),
	LABEL(BTN_FORWARD),
	LABEL(BTN_BACK),
	LABEL(BTN_TASK),
	LABEL(BTN_JOYSTICK),
	LABEL(BTN_TRIGGER),
	LABEL(BTN_THUMB),
	LABEL(BTN_THUMB2),
	LABEL(BTN_TOP),
	LABEL(BTN_TOP2),
	LABEL(BTN_PINKIE),
	LABEL(BTN_BASE),
	LABEL(BTN_BASE2),
	LABEL(BTN_BASE3),
	LABEL(BTN_BASE4),
	LABEL(BTN_BASE5),
	LABEL(BTN_BASE6),
	LABEL(BTN_DEAD),
	LABEL(BTN_GAMEPAD),
	LABEL(BTN_SOUTH),
	LABEL(BTN_A),
	LABEL(BTN_EAST),
	LABEL(BTN_B),
	LABEL(BTN_C),
	LABEL(BTN_NORTH),
	LABEL(BTN_X),
	LABEL(BTN_WEST),
	LABEL(BTN_Y),
	LABEL(BTN_Z),
	LABEL(BTN_TL),
	LABEL(BTN_TR),
	LABEL(BTN_TL2),
	LABEL(BTN_TR2),
	LABEL(BTN_SELECT),
	LABEL(BTN_START),
	LABEL(BTN_MODE),
	LABEL(BTN_THUMBL),
	LABEL(BTN_THUMBR),
	LABEL(BTN_DIGI),
	LABEL(BTN_TOOL_PEN),
	LABEL(BTN_TOOL_RUBBER),
	LABEL(BTN_TOOL_BRUSH),
	LABEL(BTN_TOOL_PENCIL),
	LABEL(BTN_TOOL_AIRBRUSH),
	LABEL(BTN_TOOL_FINGER),
	LABEL(BTN_TOOL_MOUSE),
	LABEL(BTN_TOOL_LENS),
	LABEL(BTN_TOOL_QUINTTAP),
#ifdef BTN_STYLUS3
	LABEL(BTN_STYLUS3),
#endif
	LABEL(BTN_TOUCH),
	LABEL(BTN_STYLUS),
	LABEL(BTN_STYLUS2),
	LABEL(BTN_TOOL_DOUBLETAP),
	LABEL(BTN_TOOL_TRIPLETAP),
	LABEL(BTN_TOOL_QUADTAP),
	LABEL(BTN_WHEEL),
	LABEL(BTN_GEAR_DOWN),
	LABEL(BTN_GEAR_UP),
	{NULL, 0},
};

static const struct getevent_label rel_labels[] = {
	LABEL(REL_X),
	LABEL(REL_Y),
	LABEL(REL_Z),
	LABEL(REL_RX),
	LABEL(REL_RY),
	LABEL(REL_RZ),
	LABEL(REL_HWHEEL),
	LABEL(REL_DIAL),
	LABEL(REL_WHEEL),
	LABEL(REL_MISC),
#ifdef REL_WHEEL_HI_RES
	LABEL(REL_WHEEL_HI_RES),
	LABEL(REL_HWHEEL_HI_RES),
#endif
	{NULL, 0},
};

static const struct getevent_label msc_labels[] = {
	LABEL(MSC_SERIAL), LABEL(MSC_PULSELED), LABEL(MSC_GESTURE),
	LABEL(MSC_RAW),	   LABEL(MSC_SCAN),	LABEL(MSC_TIMESTAMP),
	{NULL, 0},
};

static const struct getevent_label sw_labels[] = {
	LABEL(SW_LID),
	LABEL(SW_TABLET_MODE),
	LABEL(SW_HEADPHONE_INSERT),
	LABEL(SW_RFKILL_ALL),
	LABEL(SW_RADIO),
	LABEL(SW_MICROPHONE_INSERT),
	LABEL(SW_DOCK),
	LABEL(SW_LINEOUT_INSERT),
	LABEL(SW_JACK_PHYSICAL_INSERT),
	LABEL(SW_VIDEOOUT_INSERT),
	LABEL(SW_CAMERA_LENS_COVER),
	LABEL(SW_KEYPAD_SLIDE),
	LABEL(SW_FRONT_PROXIMITY),
	LABEL(SW_ROTATE_LOCK),
	LABEL(SW_LINEIN_INSERT),
	LABEL(SW_MUTE_DEVICE),
	LABEL(SW_PEN_INSERTED),
#ifdef SW_MACHINE_COVER
	LABEL(SW_MACHINE_COVER),
#endif
	{NULL, 0},
};

/* getevent -l names key values, and tool types of ABS_MT_TOOL_TYPE. */
static const struct getevent_label key_value_labels[] = {
	{"UP", 0},
	{"DOWN", 1},
	{"REPEAT", 2},
	{NULL, 0},
};

static const struct getevent_label mt_tool_labels[] = {
	LABEL(MT_TOOL_FINGER),
	LABEL(MT_TOOL_PEN),
	LABEL(MT_TOOL_PALM),
#ifdef MT_TOOL_DIAL
	LABEL(MT_TOOL_DIAL),
#endif
	{NULL, 0},
};

static const struct getevent_label prop_labels[] = {
	LABEL(INPUT_PROP_POINTER),
	LABEL(INPUT_PROP_DIRECT),
	LABEL(INPUT_PROP_BUTTONPAD),
	LABEL(INPUT_PROP_SEMI_MT),
	LABEL(INPUT_PROP_TOPBUTTONPAD),
	LABEL(INPUT_PROP_POINTING_STICK),
#ifdef INPUT_PROP_ACCELEROMETER
	LABEL(INPUT_PROP_ACCELEROMETER),
#endif
	{NULL, 0},
};

/* Where in a device's header block the previous line left us. */
enum getevent_section {
	SECTION_NONE,	/* outside any header block */
	SECTION_DEVICE, /* after "add device": name, bus, version... */
	SECTION_EVENTS, /* after "events:": capability lines */
	SECTION_PROPS,	/* after "input props:" */
	SECTION_HID,	/* after "HID descriptor:": a hex dump */
};

struct getevent_dev {
	char path[GETEVENT_PATH_MAX]; /* "" for events without a prefix */
	char name[GETEVENT_NAME_MAX];
	int has_name;
	int gone; /* merged into another entry */
	struct getevent_axis axes[ABS_CNT];
	uint64_t axis_set; /* bit n: axes[n] was read */
	uint32_t props;	   /* bit n: INPUT_PROP n */
	uint64_t events;
	uint64_t mt_events;  /* positions, tracking ids and slots */
	uint64_t syn_events; /* SYN_REPORT and SYN_MT_REPORT */
	uint64_t backwards;
	int64_t last_ns;
};

struct getevent {
	char *name; /* the log, for messages */
	struct getevent_dev devs[GETEVENT_DEVICES_MAX];
	unsigned ndevs;
	int chosen; /* index into devs, -1 when the log has no device */

	/* Parse state: the device whose header is being read. */
	int cur_dev;
	enum getevent_section section;
	int cap_type; /* type of the capability lines, -1 if none */
	int last_dev; /* device of the previous event line, a lookup cache */

	/* Events of every device while parsing, then of the chosen one. */
	struct touch_event *ev;
	uint8_t *ev_dev;
	size_t nev, cap;
	size_t pos;

	uint64_t timed; /* event lines with a timestamp */
	uint64_t lineno;
	unsigned skips_logged;
	struct getevent_stats st;
};

static void
skip_line(struct getevent *g, const char *why)
{
	g->st.skipped++;
	if (g->skips_logged < GETEVENT_SKIP_LOG_MAX) {
		g->skips_logged++;
		log_debug("cannot parse '%s': line %llu: %s", g->name,
			  (unsigned long long)g->lineno, why);
	}
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *
skip_blanks(char *s)
{
	while (is_blank(*s))
		s++;
	return s;
}

static int
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * Splits s in place into at most max blank-separated tokens.  Returns the
 * number found, or max + 1 when there are more.
 */
static size_t
split(char *s, char **tok, size_t max)
{
	size_t n = 0;

	for (;;) {
		while (is_blank(*s))
			s++;
		if (*s == '\0')
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s != '\0' && !is_blank(*s))
			s++;
		if (*s != '\0')
			*s++ = '\0';
	}
}

/*
 * Parses a hexadecimal number of 1 to maxdigits digits and nothing else
 * (no sign, no "0x", no blanks, which strtoull would accept).
 */
static int
parse_hex(const char *s, size_t maxdigits, uint32_t *out)
{
	unsigned long long v;
	char *end;
	size_t n;

	for (n = 0; s[n] != '\0'; n++)
		if (!isxdigit((unsigned char)s[n]))
			return -EINVAL;
	if (n == 0 || n > maxdigits)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno != 0 || *end != '\0' || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* Parses a decimal integer in [lo, hi], optionally negative, nothing else. */
static int
parse_dec(const char *s, long long lo, long long hi, long long *out)
{
	long long v;
	char *end;

	if (!(isdigit((unsigned char)s[0]) ||
	      (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
lookup(const struct getevent_label *tab, const char *name, int *out)
{
	for (; tab->name != NULL; tab++) {
		if (strcmp(tab->name, name) == 0) {
			*out = tab->value;
			return 0;
		}
	}
	return -ENOENT;
}

static const struct getevent_label *
code_labels(uint32_t type)
{
	switch (type) {
	case EV_SYN:
		return syn_labels;
	case EV_KEY:
		return key_labels;
	case EV_REL:
		return rel_labels;
	case EV_ABS:
		return abs_labels;
	case EV_MSC:
		return msc_labels;
	case EV_SW:
		return sw_labels;
	default:
		return NULL;
	}
}

/* Does s look like a kernel name (EV_ABS, ABS_MT_SLOT), known or not? */
static int
is_label(const char *s)
{
	const char *p;

	if (!isupper((unsigned char)s[0]) || strchr(s, '_') == NULL)
		return 0;
	for (p = s; *p != '\0'; p++)
		if (!isupper((unsigned char)*p) &&
		    !isdigit((unsigned char)*p) && *p != '_')
			return 0;
	return 1;
}

/* A type or code: four hex digits, or a label of the table. */
static int
parse_field(const char *s, const struct getevent_label *tab, uint32_t *out)
{
	int v;

	if (parse_hex(s, 4, out) == 0)
		return 0;
	if (tab == NULL || lookup(tab, s, &v) < 0)
		return -ENOENT;
	*out = (uint32_t)v;
	return 0;
}

/*
 * Parses the type, code and value tokens of an event line and the
 * " rate N" that `getevent -r` adds after SYN_REPORT.  Returns 0,
 * -ENOENT for an unknown label, -EINVAL for anything else.
 */
static int
parse_event(char **tok, size_t n, struct touch_event *ev)
{
	uint32_t type, code, value;
	long long rate;
	int v;

	if (n != 3 && n != 5)
		return -EINVAL;
	if (parse_field(tok[0], type_labels, &type) < 0)
		return is_label(tok[0]) ? -ENOENT : -EINVAL;
	if (parse_field(tok[1], code_labels(type), &code) < 0)
		return is_label(tok[1]) ? -ENOENT : -EINVAL;
	if (parse_hex(tok[2], 8, &value) < 0) {
		/* getevent names values of keys and of tool types only. */
		if (type == EV_KEY && lookup(key_value_labels, tok[2], &v) == 0)
			value = (uint32_t)v;
		else if (type == EV_ABS && code == ABS_MT_TOOL_TYPE &&
			 lookup(mt_tool_labels, tok[2], &v) == 0)
			value = (uint32_t)v;
		else
			return -EINVAL;
	}
	if (n == 5) {
		if (type != EV_SYN || code != SYN_REPORT ||
		    strcmp(tok[3], "rate") != 0 ||
		    parse_dec(tok[4], INT64_MIN, INT64_MAX, &rate) < 0)
			return -EINVAL;
	}
	ev->type = (uint16_t)type;
	ev->code = (uint16_t)code;
	/* getevent prints the value as %08x of a signed int. */
	ev->value = (int32_t)value;
	return 0;
}

/*
 * Parses "[%8ld.%06ld]" at the start of s.  Returns the rest of the line,
 * or NULL when the stamp is malformed or out of bounds.
 */
static char *
parse_stamp(char *s, int64_t *ns)
{
	unsigned long long sec, usec;
	char *p = s + 1, *dot, *close, *end;

	p = skip_blanks(p);
	dot = strchr(p, '.');
	if (dot == NULL || dot == p || dot - p > 20)
		return NULL;
	close = dot + 1;
	while (isdigit((unsigned char)*close))
		close++;
	if (*close != ']' || close - dot != 7)
		return NULL;
	if (close[1] != '\0' && !is_blank(close[1]))
		return NULL;
	for (end = p; end < dot; end++)
		if (!isdigit((unsigned char)*end))
			return NULL;
	*dot = '\0';
	*close = '\0';
	errno = 0;
	sec = strtoull(p, &end, 10);
	if (errno != 0 || *end != '\0' || sec > GETEVENT_SEC_MAX)
		return NULL;
	errno = 0;
	usec = strtoull(dot + 1, &end, 10);
	if (errno != 0 || *end != '\0' || usec > 999999)
		return NULL;
	*ns = (int64_t)(sec * 1000000000ULL + usec * 1000ULL);
	return close + 1;
}

static int
find_dev(struct getevent *g, const char *path)
{
	unsigned i;

	if (g->last_dev >= 0 && strcmp(g->devs[g->last_dev].path, path) == 0)
		return g->last_dev;
	for (i = 0; i < g->ndevs; i++)
		if (strcmp(g->devs[i].path, path) == 0)
			return (int)i;
	return -1;
}

/* Returns the device's index, adding it if new, or -1 when full. */
static int
get_dev(struct getevent *g, const char *path)
{
	struct getevent_dev *d;
	size_t len;
	int i;

	i = find_dev(g, path);
	if (i >= 0)
		return i;
	len = strlen(path);
	if (g->ndevs == GETEVENT_DEVICES_MAX || len >= GETEVENT_PATH_MAX)
		return -1;
	d = &g->devs[g->ndevs];
	memcpy(d->path, path, len + 1);
	return (int)g->ndevs++;
}

static int
push_event(struct getevent *g, const struct touch_event *ev, int dev)
{
	struct touch_event *nev;
	uint8_t *ndev;
	size_t ncap;

	if (g->nev == g->cap) {
		ncap = g->cap ? g->cap * 2 : 1024;
		if (ncap > SIZE_MAX / sizeof(*g->ev))
			return -ENOMEM;
		nev = realloc(g->ev, ncap * sizeof(*g->ev));
		if (nev == NULL)
			return -ENOMEM;
		g->ev = nev;
		ndev = realloc(g->ev_dev, ncap);
		if (ndev == NULL)
			return -ENOMEM;
		g->ev_dev = ndev;
		g->cap = ncap;
	}
	g->ev[g->nev] = *ev;
	g->ev_dev[g->nev] = (uint8_t)dev;
	g->nev++;
	return 0;
}

static int
is_mt_code(uint16_t code)
{
	return code == ABS_MT_POSITION_X || code == ABS_MT_POSITION_Y ||
	       code == ABS_MT_TRACKING_ID || code == ABS_MT_SLOT;
}

/*
 * An event line, with or without a stamp: "[ sec.usec] " then an optional
 * "/dev/input/eventN: " then type, code and value.  Returns 1 when the
 * line was an event line (kept or skipped), 0 when it is not one at all,
 * or a negative errno.
 */
static int
read_event_line(struct getevent *g, char *s, int stamped)
{
	struct touch_event ev;
	struct getevent_dev *d;
	char *tok[6], **t;
	const char *path = "";
	int64_t ns = 0;
	size_t n, len;
	int dev, r;

	if (stamped) {
		s = parse_stamp(s, &ns);
		if (s == NULL) {
			skip_line(g, "bad timestamp");
			return 1;
		}
	}
	n = split(s, tok, 6);
	t = tok;
	if (n >= 1) {
		len = strlen(tok[0]);
		if (len > 1 && tok[0][len - 1] == ':') {
			tok[0][len - 1] = '\0';
			path = tok[0];
			t++;
			n--;
		}
	}
	r = parse_event(t, n, &ev);
	if (r < 0) {
		if (!stamped && *path == '\0')
			return 0;
		if (r == -ENOENT) {
			g->st.unknown++;
			skip_line(g, "unknown label");
		} else {
			skip_line(g, "not an event");
		}
		return 1;
	}
	g->section = SECTION_NONE;
	g->cur_dev = -1;
	if (!stamped) {
		g->st.untimed++;
		skip_line(g, "no timestamp");
		return 1;
	}
	dev = get_dev(g, path);
	if (dev < 0) {
		skip_line(g, "too many devices or device path too long");
		return 1;
	}
	g->last_dev = dev;
	d = &g->devs[dev];
	ev.time_ns = ns;
	r = push_event(g, &ev, dev);
	if (r < 0)
		return r;
	g->timed++;
	if (d->events > 0 && ns < d->last_ns)
		d->backwards++;
	d->last_ns = ns;
	d->events++;
	if (ev.type == EV_ABS && is_mt_code(ev.code))
		d->mt_events++;
	if (ev.type == EV_SYN &&
	    (ev.code == SYN_REPORT || ev.code == SYN_MT_REPORT))
		d->syn_events++;
	return 1;
}

/* "add device N: PATH" and "remove device N: PATH". */
static void
read_device_line(struct getevent *g, char *s, int add)
{
	char *tok[4];
	long long num;
	size_t n, len;
	int dev;

	g->cur_dev = -1;
	g->section = SECTION_NONE;
	n = split(s, tok, 3);
	if (n != 3) {
		skip_line(g, "bad device line");
		return;
	}
	len = strlen(tok[1]);
	if (len < 2 || tok[1][len - 1] != ':') {
		skip_line(g, "bad device line");
		return;
	}
	tok[1][len - 1] = '\0';
	if (parse_dec(tok[1], 0, INT32_MAX, &num) < 0) {
		skip_line(g, "bad device number");
		return;
	}
	if (!add)
		return;
	dev = get_dev(g, tok[2]);
	if (dev < 0) {
		skip_line(g, "too many devices or device path too long");
		return;
	}
	g->cur_dev = dev;
	g->section = SECTION_DEVICE;
}

/* `  name:     "himax-touchscreen"`: the name runs to the last quote. */
static void
read_name(struct getevent *g, char *s)
{
	struct getevent_dev *d = &g->devs[g->cur_dev];
	char *end;
	size_t len;

	s = skip_blanks(s);
	len = strlen(s);
	if (len < 2 || s[0] != '"' || s[len - 1] != '"') {
		skip_line(g, "bad device name");
		return;
	}
	end = s + len - 1;
	*end = '\0';
	len = (size_t)(end - (s + 1));
	if (len >= sizeof(d->name)) {
		skip_line(g, "device name too long");
		return;
	}
	memcpy(d->name, s + 1, len + 1);
	d->has_name = 1;
}

/*
 * One axis of a `-p` block: "0035  : value 0, min 0, max 719, fuzz 0,
 * flat 0, resolution 0", or with -l "ABS_MT_POSITION_X     : value ...".
 * A code without the range (getevent could not read it) is accepted.
 */
static void
read_axis(struct getevent *g, char *s)
{
	struct getevent_dev *d = &g->devs[g->cur_dev];
	char *colon, *field, *next, *tok[3];
	long long num, min = 0, max = 0;
	int have_min = 0, have_max = 0;
	uint32_t code;
	size_t n, len;

	colon = strchr(s, ':');
	if (colon != NULL)
		*colon = '\0';
	n = split(s, tok, 1);
	if (n != 1) {
		skip_line(g, "bad axis");
		return;
	}
	/* A '*' after the code marks a key that is down; harmless here. */
	len = strlen(tok[0]);
	if (len > 1 && tok[0][len - 1] == '*')
		tok[0][len - 1] = '\0';
	if (parse_field(tok[0], abs_labels, &code) < 0 || code >= ABS_CNT) {
		skip_line(g, "bad axis code");
		return;
	}
	if (colon == NULL)
		return;
	for (field = colon + 1; field != NULL; field = next) {
		next = strchr(field, ',');
		if (next != NULL)
			*next++ = '\0';
		if (split(field, tok, 2) != 2 ||
		    parse_dec(tok[1], INT32_MIN, INT32_MAX, &num) < 0) {
			skip_line(g, "bad axis range");
			return;
		}
		if (strcmp(tok[0], "min") == 0) {
			min = num;
			have_min = 1;
		} else if (strcmp(tok[0], "max") == 0) {
			max = num;
			have_max = 1;
		}
	}
	if (!have_min || !have_max || min > max) {
		skip_line(g, "bad axis range");
		return;
	}
	d->axes[code].min = (int32_t)min;
	d->axes[code].max = (int32_t)max;
	d->axis_set |= 1ULL << code;
}

/*
 * "ABS (0003): ..." opens the capability lines of one type; the first
 * entry follows on the same line.  Returns 1 if s was such a line.
 */
static int
read_caps_header(struct getevent *g, char *s)
{
	char *open, *close, hex[5];
	uint32_t type;

	open = strstr(s, " (");
	if (open == NULL || open == s || open - s > 3)
		return 0;
	close = strstr(open, "):");
	if (close == NULL || close - open != 6)
		return 0;
	memcpy(hex, open + 2, 4);
	hex[4] = '\0';
	if (parse_hex(hex, 4, &type) < 0)
		return 0;
	g->cap_type = (int)type;
	if (type == EV_ABS && *skip_blanks(close + 2) != '\0')
		read_axis(g, close + 2);
	return 1;
}

static void
read_prop(struct getevent *g, char *s)
{
	char *tok[2];
	uint32_t prop;
	int v;

	if (strcmp(s, "<none>") == 0 || strcmp(s, "<not available") == 0)
		return;
	if (split(s, tok, 1) != 1) {
		skip_line(g, "bad input property");
		return;
	}
	if (lookup(prop_labels, tok[0], &v) == 0)
		prop = (uint32_t)v;
	else if (parse_hex(tok[0], 4, &prop) < 0 || prop >= 32) {
		skip_line(g, "bad input property");
		return;
	}
	g->devs[g->cur_dev].props |= 1u << prop;
}

/*
 * A line of a device's header block: the name, the `-i` details, the
 * `-p` capabilities and input properties.  Returns 1 if s was one.
 */
static int
read_header_line(struct getevent *g, char *s, int indented)
{
	static const char *const ignored[] = {
		"bus:",	    "vendor ",	 "product ", "version ",
		"version:", "location:", "id:",	     NULL,
	};
	size_t i;

	if (starts_with(s, "name:")) {
		read_name(g, s + 5);
		return 1;
	}
	if (strcmp(s, "events:") == 0) {
		g->section = SECTION_EVENTS;
		g->cap_type = -1;
		return 1;
	}
	if (strcmp(s, "input props:") == 0) {
		g->section = SECTION_PROPS;
		return 1;
	}
	if (starts_with(s, "HID descriptor:")) {
		g->section = SECTION_HID;
		return 1;
	}
	for (i = 0; ignored[i] != NULL; i++)
		if (starts_with(s, ignored[i]))
			return 1;
	if (!indented)
		return 0;
	switch (g->section) {
	case SECTION_EVENTS:
		if (read_caps_header(g, s))
			return 1;
		/* Key lists need nothing; axes continue the ABS entry. */
		if (g->cap_type == EV_ABS)
			read_axis(g, s);
		else if (g->cap_type < 0)
			return 0;
		return 1;
	case SECTION_PROPS:
		read_prop(g, s);
		return 1;
	case SECTION_HID:
		return 1;
	default:
		return 0;
	}
}

static int
read_line(struct getevent *g, char *line, size_t len)
{
	char *s;
	int indented, r;

	if (memchr(line, '\0', len) != NULL) {
		skip_line(g, "NUL byte");
		return 0;
	}
	line[len] = '\0';
	while (len > 0 && (is_blank(line[len - 1]) || line[len - 1] == '\r'))
		line[--len] = '\0';
	s = skip_blanks(line);
	indented = s != line;
	if (*s == '\0')
		return 0;
	if (*s == '[') {
		r = read_event_line(g, s, 1);
		return r < 0 ? r : 0;
	}
	if (starts_with(s, "add device ")) {
		read_device_line(g, s + 4, 1);
		return 0;
	}
	if (starts_with(s, "remove device ")) {
		read_device_line(g, s + 7, 0);
		return 0;
	}
	if (g->cur_dev >= 0 && read_header_line(g, s, indented))
		return 0;
	r = read_event_line(g, s, 0);
	if (r < 0)
		return r;
	if (r == 0)
		skip_line(g, "not a getevent line");
	return 0;
}

static int
parse(struct getevent *g, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	char *line;
	size_t n;
	int r = 0;

	line = malloc(GETEVENT_LINE_MAX + 2);
	if (line == NULL)
		return -ENOMEM;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl ? nl : end) - p);
		g->lineno++;
		g->st.lines++;
		/* A CR before the newline does not count against the limit. */
		if (n > GETEVENT_LINE_MAX + 1 ||
		    (n == GETEVENT_LINE_MAX + 1 && p[n - 1] != '\r')) {
			skip_line(g, "line too long");
		} else {
			memcpy(line, p, n);
			r = read_line(g, line, n);
			if (r < 0)
				break;
		}
		p = nl ? nl + 1 : end;
	}
	free(line);
	return r;
}

static int
is_uinput(const struct getevent_dev *d)
{
	return d->has_name && strcasestr(d->name, "uinput") != NULL;
}

static int
is_touch(const struct getevent_dev *d)
{
	return d->mt_events > 0 || ((d->axis_set >> ABS_MT_POSITION_X) & 1);
}

/* Is a a better touch screen than b? */
static int
better(const struct getevent_dev *a, const struct getevent_dev *b)
{
	if (is_uinput(a) != is_uinput(b))
		return !is_uinput(a);
	if (a->mt_events != b->mt_events)
		return a->mt_events > b->mt_events;
	return ((a->props >> INPUT_PROP_DIRECT) & 1) >
	       ((b->props >> INPUT_PROP_DIRECT) & 1);
}

/*
 * Unprefixed events with a single "add device" header are one device:
 * `getevent -p DEV` then `getevent -lt DEV`.
 */
static void
merge_unnamed(struct getevent *g)
{
	struct getevent_dev *u, *d;
	int iu, id;
	size_t i;

	iu = find_dev(g, "");
	if (iu < 0 || g->ndevs != 2)
		return;
	id = iu == 0 ? 1 : 0;
	u = &g->devs[iu];
	d = &g->devs[id];
	if (d->events > 0)
		return;
	d->events = u->events;
	d->mt_events = u->mt_events;
	d->syn_events = u->syn_events;
	d->backwards = u->backwards;
	d->last_ns = u->last_ns;
	u->gone = 1;
	for (i = 0; i < g->nev; i++)
		if (g->ev_dev[i] == iu)
			g->ev_dev[i] = (uint8_t)id;
}

static int
choose(struct getevent *g, const char *device)
{
	int best = -1, unnamed = -1;
	unsigned i;

	if (device != NULL) {
		for (i = 0; i < g->ndevs; i++)
			if (!g->devs[i].gone &&
			    strcmp(g->devs[i].path, device) == 0 && *device)
				best = (int)i;
		if (best < 0) {
			log_warnx("cannot replay '%s': device '%s' is not in "
				  "the log%s",
				  g->name, device,
				  g->ndevs == 1 && g->devs[0].path[0] == '\0'
					  ? " (its events name no device; "
					    "leave the device out)"
					  : "");
			return -ENODEV;
		}
		g->chosen = best;
		return 0;
	}
	for (i = 0; i < g->ndevs; i++) {
		if (g->devs[i].gone)
			continue;
		if (g->devs[i].path[0] == '\0')
			unnamed = (int)i;
		if (is_touch(&g->devs[i]) &&
		    (best < 0 || better(&g->devs[i], &g->devs[best])))
			best = (int)i;
	}
	if (best < 0 && unnamed >= 0 && g->devs[unnamed].syn_events > 0)
		best = unnamed;
	if (best < 0 && g->timed > 0) {
		log_warnx("cannot replay '%s': none of its %u devices is a "
			  "touch screen (no multitouch events)",
			  g->name, g->st.devices);
		return -ENODEV;
	}
	g->chosen = best;
	return 0;
}

/* Keeps the chosen device's events only, in log order. */
static void
keep_chosen(struct getevent *g)
{
	struct touch_event *nev;
	size_t i, n = 0;

	for (i = 0; i < g->nev; i++)
		if (g->chosen >= 0 && g->ev_dev[i] == g->chosen)
			g->ev[n++] = g->ev[i];
	g->nev = n;
	free(g->ev_dev);
	g->ev_dev = NULL;
	if (n == 0) {
		free(g->ev);
		g->ev = NULL;
	} else if (n < g->cap) {
		/* Giving memory back may fail; the larger block still works. */
		nev = realloc(g->ev, n * sizeof(*g->ev));
		if (nev != NULL)
			g->ev = nev;
	}
	g->cap = n;
}

static int
load(const char *buf, size_t len, const char *name, const char *device,
     struct getevent **out)
{
	struct getevent *g;
	unsigned i;
	int r;

	if (len > GETEVENT_FILE_MAX) {
		log_warnx("cannot replay '%s': the log is larger than %zu MiB",
			  name, GETEVENT_FILE_MAX >> 20);
		return -EFBIG;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	g->chosen = -1;
	g->cur_dev = -1;
	g->last_dev = -1;
	g->cap_type = -1;
	g->name = strdup(name);
	if (g->name == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = parse(g, buf, len);
	if (r < 0) {
		log_warnx("cannot replay '%s': out of memory", name);
		goto out;
	}
	if (g->timed == 0 && g->st.untimed > 0) {
		log_warnx("cannot replay '%s': the log has no timestamps; "
			  "record it with 'getevent -lt'",
			  name);
		r = -EINVAL;
		goto out;
	}
	merge_unnamed(g);
	for (i = 0; i < g->ndevs; i++)
		if (!g->devs[i].gone)
			g->st.devices++;
	r = choose(g, device);
	if (r < 0)
		goto out;
	keep_chosen(g);
	if (g->chosen >= 0) {
		g->st.events = g->devs[g->chosen].events;
		g->st.backwards = g->devs[g->chosen].backwards;
	}
	g->st.other_events = g->timed - g->st.events;
	log_debug("replaying '%s' from '%s': %llu events, %llu lines "
		  "skipped",
		  getevent_device(g), name, (unsigned long long)g->st.events,
		  (unsigned long long)g->st.skipped);
	*out = g;
	g = NULL;
out:
	getevent_free(g);
	return r;
}

int
getevent_open_mem(const char *buf, size_t len, const char *name,
		  const char *device, struct getevent **out)
{
	if ((buf == NULL && len > 0) || out == NULL)
		return -EINVAL;
	return load(buf ? buf : "", len, name ? name : "(buffer)", device, out);
}

int
getevent_open(const char *path, const char *device, struct getevent **out)
{
	struct stat sb;
	char *buf = NULL, *nbuf;
	size_t len = 0, cap;
	ssize_t n;
	int fd, r;

	if (path == NULL || out == NULL)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		log_warn("cannot open '%s'", path);
		return r;
	}
	if (fstat(fd, &sb) < 0) {
		r = -errno;
		log_warn("cannot stat '%s'", path);
		goto out;
	}
	if (S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size > GETEVENT_FILE_MAX) {
		log_warnx("cannot replay '%s': the log is larger than %zu MiB",
			  path, GETEVENT_FILE_MAX >> 20);
		r = -EFBIG;
		goto out;
	}
	/* Pipes report no size; they grow the buffer as they are read. */
	cap = S_ISREG(sb.st_mode) && sb.st_size > 0 ? (size_t)sb.st_size + 1
						    : 65536;
	buf = malloc(cap);
	if (buf == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (len == cap) {
			if (cap > GETEVENT_FILE_MAX) {
				log_warnx("cannot replay '%s': the log is "
					  "larger than %zu MiB",
					  path, GETEVENT_FILE_MAX >> 20);
				r = -EFBIG;
				goto out;
			}
			cap = cap * 2 > GETEVENT_FILE_MAX + 1
				      ? GETEVENT_FILE_MAX + 1
				      : cap * 2;
			nbuf = realloc(buf, cap);
			if (nbuf == NULL) {
				r = -ENOMEM;
				goto out;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			log_warn("cannot read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	r = load(buf, len, path, device, out);
out:
	free(buf);
	close(fd);
	return r;
}

void
getevent_free(struct getevent *g)
{
	if (g == NULL)
		return;
	free(g->ev);
	free(g->ev_dev);
	free(g->name);
	free(g);
}

int
getevent_next(struct getevent *g, struct touch_event *ev)
{
	if (g->pos >= g->nev)
		return 0;
	*ev = g->ev[g->pos++];
	return 1;
}

int
getevent_time_range(const struct getevent *g, int64_t *first, int64_t *last)
{
	size_t i;

	if (g->nev == 0)
		return -ENOENT;
	/* Logs can step back in time; the range is the extremes. */
	*first = *last = g->ev[0].time_ns;
	for (i = 1; i < g->nev; i++) {
		if (g->ev[i].time_ns < *first)
			*first = g->ev[i].time_ns;
		if (g->ev[i].time_ns > *last)
			*last = g->ev[i].time_ns;
	}
	return 0;
}

int
getevent_get_axis(const struct getevent *g, uint16_t code,
		  struct getevent_axis *axis)
{
	const struct getevent_dev *d;

	if (g->chosen < 0 || code >= ABS_CNT)
		return -ENOENT;
	d = &g->devs[g->chosen];
	if (!((d->axis_set >> code) & 1))
		return -ENOENT;
	*axis = d->axes[code];
	return 0;
}

const char *
getevent_device(const struct getevent *g)
{
	return g->chosen < 0 ? "" : g->devs[g->chosen].path;
}

const char *
getevent_device_name(const struct getevent *g)
{
	if (g->chosen < 0 || !g->devs[g->chosen].has_name)
		return NULL;
	return g->devs[g->chosen].name;
}

void
getevent_get_stats(const struct getevent *g, struct getevent_stats *st)
{
	*st = g->st;
}
