/*
 * The fields of a getevent event line: the kernel's names of types, codes
 * and values that `getevent -l` prints, and the numbers it prints
 * otherwise.
 */
#include "input_getevent_field.h"

#include <ctype.h>
#include <errno.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A table entry named after its constant. */
/* clang-format off */
#define LABEL(x) {#x, (x), sizeof(#x) - 1}
/* clang-format on */

static const struct input_getevent_label type_labels[] = {
	LABEL(EV_SYN), LABEL(EV_KEY), LABEL(EV_REL), LABEL(EV_ABS),
	LABEL(EV_MSC), LABEL(EV_SW),  LABEL(EV_LED), LABEL(EV_SND),
	LABEL(EV_REP), LABEL(EV_FF),  LABEL(EV_PWR), LABEL(EV_FF_STATUS),
	{NULL, 0, 0},
};

static const struct input_getevent_label syn_labels[] = {
	LABEL(SYN_REPORT),  LABEL(SYN_CONFIG), LABEL(SYN_MT_REPORT),
	LABEL(SYN_DROPPED), {NULL, 0, 0},
};

const struct input_getevent_label input_getevent_field_abs[] = {
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
	{NULL, 0, 0},
};

/*
 * Buttons in full, and the keys a phone or tablet has.  Other keys are
 * skipped: they never belong to a touch screen.
 */
static const struct input_getevent_label key_labels[] = {
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
	{NULL, 0, 0},
};

static const struct input_getevent_label rel_labels[] = {
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
	{NULL, 0, 0},
};

static const struct input_getevent_label msc_labels[] = {
	LABEL(MSC_SERIAL), LABEL(MSC_PULSELED), LABEL(MSC_GESTURE),
	LABEL(MSC_RAW),	   LABEL(MSC_SCAN),	LABEL(MSC_TIMESTAMP),
	{NULL, 0, 0},
};

static const struct input_getevent_label sw_labels[] = {
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
	{NULL, 0, 0},
};

/* getevent -l names key values, and tool types of ABS_MT_TOOL_TYPE. */
static const struct input_getevent_label key_value_labels[] = {
	{"UP", 0, 2},
	{"DOWN", 1, 4},
	{"REPEAT", 2, 6},
	{NULL, 0, 0},
};

static const struct input_getevent_label mt_tool_labels[] = {
	LABEL(MT_TOOL_FINGER), LABEL(MT_TOOL_PEN), LABEL(MT_TOOL_PALM),
#ifdef MT_TOOL_DIAL
	LABEL(MT_TOOL_DIAL),
#endif
	{NULL, 0, 0},
};

const struct input_getevent_label input_getevent_field_props[] = {
	LABEL(INPUT_PROP_POINTER),
	LABEL(INPUT_PROP_DIRECT),
	LABEL(INPUT_PROP_BUTTONPAD),
	LABEL(INPUT_PROP_SEMI_MT),
	LABEL(INPUT_PROP_TOPBUTTONPAD),
	LABEL(INPUT_PROP_POINTING_STICK),
#ifdef INPUT_PROP_ACCELEROMETER
	LABEL(INPUT_PROP_ACCELEROMETER),
#endif
	{NULL, 0, 0},
};

/*
 * Parses a hexadecimal number of 1 to maxdigits digits and nothing else
 * (no sign, no "0x", no blanks, which strtoull would accept).
 */
int
input_getevent_field_hex(const char *s, size_t maxdigits, uint32_t *out)
{
	unsigned long long v;
	unsigned c, d;
	size_t n;

	/*
	 * Converted by hand: strtoull costs more than the rest of a line,
	 * and the digits are checked here anyway.  Past 16 digits the value
	 * would not fit; beyond UINT32_MAX it is refused either way.
	 */
	for (n = 0, v = 0; s[n] != '\0'; n++) {
		c = (unsigned char)s[n];
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		if (n < 16)
			v = v << 4 | d;
	}
	if (n == 0 || n > maxdigits || n > 16 || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* Parses a decimal integer in [lo, hi], optionally negative, nothing else. */
int
input_getevent_field_dec(const char *s, long long lo, long long hi,
			 long long *out)
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

int
input_getevent_field_lookup(const struct input_getevent_label *tab,
			    const char *name, int *out)
{
	size_t len = strlen(name);

	for (; tab->name != NULL; tab++) {
		if (tab->len == len && memcmp(tab->name, name, len) == 0) {
			*out = tab->value;
			return 0;
		}
	}
	return -ENOENT;
}

static const struct input_getevent_label *
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
		return input_getevent_field_abs;
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
int
input_getevent_field_parse(const char *s,
			   const struct input_getevent_label *tab,
			   uint32_t *out)
{
	int v;

	if (input_getevent_field_hex(s, 4, out) == 0)
		return 0;
	if (tab == NULL || input_getevent_field_lookup(tab, s, &v) < 0)
		return -ENOENT;
	*out = (uint32_t)v;
	return 0;
}

/*
 * Parses the type, code and value tokens of an event line and the
 * " rate N" that `getevent -r` adds after SYN_REPORT.  Returns 0,
 * -ENOENT for an unknown label, -EINVAL for anything else.
 */
int
input_getevent_field_event(char **tok, size_t n, struct touch_event *ev)
{
	uint32_t type, code, value;
	long long rate;
	int v;

	if (n != 3 && n != 5)
		return -EINVAL;
	if (input_getevent_field_parse(tok[0], type_labels, &type) < 0)
		return is_label(tok[0]) ? -ENOENT : -EINVAL;
	if (input_getevent_field_parse(tok[1], code_labels(type), &code) < 0)
		return is_label(tok[1]) ? -ENOENT : -EINVAL;
	if (input_getevent_field_hex(tok[2], 8, &value) < 0) {
		/* getevent names values of keys and of tool types only. */
		if (type == EV_KEY &&
		    input_getevent_field_lookup(key_value_labels, tok[2], &v) ==
			    0)
			value = (uint32_t)v;
		else if (type == EV_ABS && code == ABS_MT_TOOL_TYPE &&
			 input_getevent_field_lookup(mt_tool_labels, tok[2],
						     &v) == 0)
			value = (uint32_t)v;
		else
			return -EINVAL;
	}
	if (n == 5) {
		if (type != EV_SYN || code != SYN_REPORT ||
		    strcmp(tok[3], "rate") != 0 ||
		    input_getevent_field_dec(tok[4], INT64_MIN, INT64_MAX,
					     &rate) < 0)
			return -EINVAL;
	}
	ev->type = (uint16_t)type;
	ev->code = (uint16_t)code;
	/* getevent prints the value as %08x of a signed int. */
	ev->value = (int32_t)value;
	return 0;
}

/* The name of value in tab, or NULL (the first of aliases wins). */
static const char *
label_of(const struct input_getevent_label *tab, int value)
{
	for (; tab && tab->name != NULL; tab++)
		if (tab->value == value)
			return tab->name;
	return NULL;
}

int
input_getevent_field_format(const struct touch_event *ev, char *buf,
			    size_t size)
{
	const char *type, *code, *value = NULL;
	char tbuf[8], cbuf[8], vbuf[12];
	int n;

	type = label_of(type_labels, ev->type);
	code = label_of(code_labels(ev->type), ev->code);
	if (ev->type == EV_KEY)
		value = label_of(key_value_labels, ev->value);
	else if (ev->type == EV_ABS && ev->code == ABS_MT_TOOL_TYPE)
		value = label_of(mt_tool_labels, ev->value);
	/* What has no name is printed in hex, as getevent -l does. */
	if (!type) {
		snprintf(tbuf, sizeof(tbuf), "%04x", (unsigned)ev->type);
		type = tbuf;
	}
	if (!code) {
		snprintf(cbuf, sizeof(cbuf), "%04x", (unsigned)ev->code);
		code = cbuf;
	}
	if (!value) {
		snprintf(vbuf, sizeof(vbuf), "%08x", (uint32_t)ev->value);
		value = vbuf;
	}
	n = snprintf(buf, size, "%-12s %-20s %s", type, code, value);
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}
