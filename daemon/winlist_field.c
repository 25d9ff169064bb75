#include "winlist_field.h"

#include <errno.h>
#include <string.h>

#include "parse.h"

/* A bound well inside int32 for coordinates: real ones are in the tens of
 * thousands (regions reach ten times the display, see the gesture
 * monitors' [-12239,-26999][12240,27000]). */
#define COORD_MAX 100000000

struct flag_name {
	const char *name;
	uint32_t bit;
};

/* InputConfig names of Android 13 to 15 (InputConfig.aidl). */
static const struct flag_name config_names[] = {
	{"DEFAULT", 0},
	{"NO_INPUT_CHANNEL", WINLIST_NO_INPUT_CHANNEL},
	{"NOT_VISIBLE", WINLIST_NOT_VISIBLE},
	{"NOT_FOCUSABLE", WINLIST_NOT_FOCUSABLE},
	{"NOT_TOUCHABLE", WINLIST_NOT_TOUCHABLE},
	{"PREVENT_SPLITTING", WINLIST_PREVENT_SPLITTING},
	{"DUPLICATE_TOUCH_TO_WALLPAPER", WINLIST_DUPLICATE_TOUCH_TO_WALLPAPER},
	{"IS_WALLPAPER", WINLIST_IS_WALLPAPER},
	{"PAUSE_DISPATCHING", WINLIST_PAUSE_DISPATCHING},
	{"TRUSTED_OVERLAY", WINLIST_TRUSTED_OVERLAY},
	{"WATCH_OUTSIDE_TOUCH", WINLIST_WATCH_OUTSIDE_TOUCH},
	{"SLIPPERY", WINLIST_SLIPPERY},
	{"DISABLE_USER_ACTIVITY", WINLIST_DISABLE_USER_ACTIVITY},
	{"DROP_INPUT", WINLIST_DROP_INPUT},
	{"DROP_INPUT_IF_OBSCURED", WINLIST_DROP_INPUT_IF_OBSCURED},
	{"SPY", WINLIST_SPY},
	{"INTERCEPTS_STYLUS", WINLIST_INTERCEPTS_STYLUS},
	{"CLONE", WINLIST_CLONE},
	{"GLOBAL_STYLUS_BLOCKS_TOUCH", WINLIST_GLOBAL_STYLUS_BLOCKS_TOUCH},
	{"SENSITIVE_FOR_PRIVACY", WINLIST_SENSITIVE_FOR_PRIVACY},
	{NULL, 0},
};

/* WindowInfo::Flag names of Android 12: the LayoutParams flags. */
static const struct flag_name layout_names[] = {
	{"ALLOW_LOCK_WHILE_SCREEN_ON", 0x00000001u},
	{"DIM_BEHIND", 0x00000002u},
	{"BLUR_BEHIND", 0x00000004u},
	{"NOT_FOCUSABLE", WINLIST_LP_NOT_FOCUSABLE},
	{"NOT_TOUCHABLE", WINLIST_LP_NOT_TOUCHABLE},
	{"NOT_TOUCH_MODAL", WINLIST_LP_NOT_TOUCH_MODAL},
	{"TOUCHABLE_WHEN_WAKING", 0x00000040u},
	{"KEEP_SCREEN_ON", 0x00000080u},
	{"LAYOUT_IN_SCREEN", 0x00000100u},
	{"LAYOUT_NO_LIMITS", 0x00000200u},
	{"FULLSCREEN", 0x00000400u},
	{"FORCE_NOT_FULLSCREEN", 0x00000800u},
	{"DITHER", 0x00001000u},
	{"SECURE", 0x00002000u},
	{"SCALED", 0x00004000u},
	{"IGNORE_CHEEK_PRESSES", 0x00008000u},
	{"LAYOUT_INSET_DECOR", 0x00010000u},
	{"ALT_FOCUSABLE_IM", 0x00020000u},
	{"WATCH_OUTSIDE_TOUCH", WINLIST_LP_WATCH_OUTSIDE_TOUCH},
	{"SHOW_WHEN_LOCKED", 0x00080000u},
	{"SHOW_WALLPAPER", 0x00100000u},
	{"TURN_SCREEN_ON", 0x00200000u},
	{"DISMISS_KEYGUARD", 0x00400000u},
	{"SPLIT_TOUCH", WINLIST_LP_SPLIT_TOUCH},
	{"HARDWARE_ACCELERATED", 0x01000000u},
	{"LAYOUT_IN_OVERSCAN", 0x02000000u},
	{"TRANSLUCENT_STATUS", 0x04000000u},
	{"TRANSLUCENT_NAVIGATION", 0x08000000u},
	{"LOCAL_FOCUS_MODE", 0x10000000u},
	{"SLIPPERY", WINLIST_LP_SLIPPERY},
	{"LAYOUT_ATTACHED_IN_DECOR", 0x40000000u},
	{"DRAWS_SYSTEM_BAR_BACKGROUNDS", 0x80000000u},
	{NULL, 0},
};

/* WindowInfo::Feature names of Android 12. */
static const struct flag_name feature_names[] = {
	{"DISABLE_TOUCH_PAD_GESTURES", 0x1u}, {"NO_INPUT_CHANNEL", 0x2u},
	{"DISABLE_USER_ACTIVITY", 0x4u},      {"DROP_INPUT", 0x8u},
	{"DROP_INPUT_IF_OBSCURED", 0x10u},    {NULL, 0},
};

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

const char *
winlist_field_int(const char *p, int64_t lo, int64_t hi, int64_t *out)
{
	uint64_t v = 0;
	int neg = 0, n = 0;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	/* 19 digits always fit in a uint64, so nothing can overflow. */
	while (is_digit(*p) && n < 19) {
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
		n++;
	}
	if (n == 0 || is_digit(*p) || v > (uint64_t)INT64_MAX)
		return NULL;
	if ((neg ? -(int64_t)v : (int64_t)v) < lo ||
	    (neg ? -(int64_t)v : (int64_t)v) > hi)
		return NULL;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return p;
}

const char *
winlist_field_hex(const char *p, uint32_t *out)
{
	uint32_t v = 0;
	int n = 0, d;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return NULL;
	p += 2;
	while ((d = parse_hex_digit(*p)) >= 0) {
		/* Leading zeros are fine; more than 32 bits are not. */
		if (v > 0x0fffffffu)
			return NULL;
		v = v << 4 | (uint32_t)d;
		p++;
		n++;
	}
	if (n == 0 || n > 16)
		return NULL;
	*out = v;
	return p;
}

const char *
winlist_field_double(const char *p, double lo, double hi, double *out)
{
	char buf[32];
	size_t n = 0;

	while (n < sizeof(buf) - 1 &&
	       (is_digit(p[n]) || p[n] == '.' || p[n] == '-' || p[n] == 'e' ||
		p[n] == 'E' || p[n] == '+'))
		n++;
	if (n == 0 || n == sizeof(buf) - 1)
		return NULL;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (parse_double(buf, lo, hi, out) < 0)
		return NULL;
	return p + n;
}

/* One coordinate, then the text sep that must follow it. */
static const char *
coord(const char *p, const char *sep, int32_t *out)
{
	int64_t v;
	size_t n = strlen(sep);

	if (!(p = winlist_field_int(p, -COORD_MAX, COORD_MAX, &v)))
		return NULL;
	if (strncmp(p, sep, n) != 0)
		return NULL;
	*out = (int32_t)v;
	return p + n;
}

const char *
winlist_field_rect(const char *p, struct winlist_rect *r)
{
	struct winlist_rect t;

	if (*p++ != '[' || !(p = coord(p, ",", &t.left)) ||
	    !(p = coord(p, "][", &t.top)) || !(p = coord(p, ",", &t.right)) ||
	    !(p = coord(p, "]", &t.bottom)))
		return NULL;
	*r = t;
	return p;
}

const char *
winlist_field_rect4(const char *p, struct winlist_rect *r)
{
	struct winlist_rect t;

	if (*p++ != '[' || !(p = coord(p, ", ", &t.left)) ||
	    !(p = coord(p, ", ", &t.top)) || !(p = coord(p, ", ", &t.right)) ||
	    !(p = coord(p, "]", &t.bottom)))
		return NULL;
	*r = t;
	return p;
}

const char *
winlist_field_region(const char *p, struct winlist_rect *rects, size_t max,
		     size_t *n, int *cut)
{
	struct winlist_rect r;
	const char *q;

	*n = 0;
	*cut = 0;
	if (strncmp(p, "<empty>", 7) == 0)
		return p + 7;
	for (;;) {
		if (!(q = winlist_field_rect(p, &r)))
			return *n > 0 || *cut ? p : NULL;
		if (*n < max)
			rects[(*n)++] = r;
		else
			*cut = 1;
		p = q;
		if (*p != '|')
			return p;
		p++;
	}
}

static const struct flag_name *
names_of(enum winlist_field_set set)
{
	switch (set) {
	case WINLIST_FIELD_LAYOUT:
		return layout_names;
	case WINLIST_FIELD_FEATURES:
		return feature_names;
	case WINLIST_FIELD_CONFIG:
	default:
		return config_names;
	}
}

const char *
winlist_field_flags(const char *p, enum winlist_field_set set, uint32_t *bits,
		    uint32_t *unknown)
{
	const struct flag_name *names = names_of(set), *f;
	const char *end, *q;
	size_t n;
	uint32_t v;

	for (;;) {
		/* A name is [A-Z0-9_]; a hex value "0x..." is one too. */
		end = p;
		while ((*end >= 'A' && *end <= 'Z') || is_digit(*end) ||
		       *end == '_' || (*end >= 'a' && *end <= 'f') ||
		       *end == 'x')
			end++;
		n = (size_t)(end - p);
		if (n == 0)
			return p;
		if ((q = winlist_field_hex(p, &v)) == end) {
			*bits |= v;
		} else {
			for (f = names; f->name; f++)
				if (strlen(f->name) == n &&
				    memcmp(f->name, p, n) == 0)
					break;
			if (f->name)
				*bits |= f->bit;
			else if (*unknown < UINT32_MAX)
				(*unknown)++;
		}
		p = end;
		if (strncmp(p, " | ", 3) != 0)
			return p;
		p += 3;
	}
}

const char *
winlist_field_bool(const char *p, int *out)
{
	if (strncmp(p, "true", 4) == 0) {
		*out = 1;
		return p + 4;
	}
	if (strncmp(p, "false", 5) == 0) {
		*out = 0;
		return p + 5;
	}
	return NULL;
}

const char *
winlist_flag_name(uint32_t bit)
{
	const struct flag_name *f;

	if (bit == WINLIST_TOUCH_MODAL)
		return "TOUCH_MODAL";
	for (f = config_names; f->name; f++)
		if (f->bit == bit && bit != 0)
			return f->name;
	return NULL;
}

/* The value of ", key=" in p, or NULL. */
static const char *
field(const char *p, const char *key)
{
	size_t n = strlen(key);

	while ((p = strstr(p, ", ")) != NULL) {
		if (strncmp(p + 2, key, n) == 0 && p[2 + n] == '=')
			return p + 3 + n;
		p += 2;
	}
	return NULL;
}

int
winlist_field_viewport(const char *p, struct winlist_viewport *vp)
{
	const char *v, *e;
	int64_t x;
	size_t n;

	memset(vp, 0, sizeof(*vp));
	vp->active = 1;
	if (!winlist_field_int(p, INT32_MIN, INT32_MAX, &x))
		return -EINVAL;
	vp->display_id = (int32_t)x;
	if (!(v = field(p, "orientation")) || !winlist_field_int(v, 0, 3, &x))
		return -EINVAL;
	vp->orientation = (enum winlist_rotation)x;
	if (!(v = field(p, "logicalFrame")) ||
	    !winlist_field_rect4(v, &vp->logical))
		return -EINVAL;
	vp->physical = vp->logical;
	if ((v = field(p, "physicalFrame")))
		winlist_field_rect4(v, &vp->physical);
	if (!(v = field(p, "deviceSize")) || *v++ != '[' ||
	    !(v = winlist_field_int(v, 0, INT32_MAX, &x)) ||
	    strncmp(v, ", ", 2) != 0)
		return -EINVAL;
	vp->device_width = (int32_t)x;
	if (!(v = winlist_field_int(v + 2, 0, INT32_MAX, &x)) || *v != ']')
		return -EINVAL;
	vp->device_height = (int32_t)x;
	/* Vendors glue their own fields to it: "isActive=[1]deviceName=". */
	if ((v = strstr(p, "isActive=[")) &&
	    winlist_field_int(v + 10, 0, 1, &x))
		vp->active = (int)x;
	if ((v = field(p, "uniqueId"))) {
		if (*v == '\'')
			v++;
		for (e = v; *e && *e != ',' && *e != '\''; e++)
			;
		n = (size_t)(e - v);
		if (n > WINLIST_UNIQUE_ID_MAX)
			n = WINLIST_UNIQUE_ID_MAX;
		memcpy(vp->unique_id, v, n);
	}
	return 0;
}
