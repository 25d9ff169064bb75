/*
 * The fields of a getevent event line (input_getevent.h): types, codes
 * and values by the kernel's names or in hex, as getevent prints them.
 */
#ifndef TAPD_INPUT_GETEVENT_FIELD_H
#define TAPD_INPUT_GETEVENT_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "touch.h"

/* One name of a table, and the constant it stands for. */
struct input_getevent_label {
	const char *name;
	int value;
	/* strlen(name), so that a lookup compares lengths before bytes. */
	unsigned len;
};

/* The ABS_ codes and the INPUT_PROP_ names, each ended by a NULL name. */
extern const struct input_getevent_label input_getevent_field_abs[];
extern const struct input_getevent_label input_getevent_field_props[];

/*
 * Parses a hexadecimal number of 1 to maxdigits digits and nothing else
 * (no sign, no "0x", no blanks).  Returns 0 or -EINVAL.
 */
int input_getevent_field_hex(const char *s, size_t maxdigits, uint32_t *out);

/*
 * Parses a decimal integer in [lo, hi], optionally negative, nothing
 * else.  Returns 0 or -EINVAL.
 */
int input_getevent_field_dec(const char *s, long long lo, long long hi,
			     long long *out);

/* The value of name in tab: returns 0 and sets *out, or -ENOENT. */
int input_getevent_field_lookup(const struct input_getevent_label *tab,
				const char *name, int *out);

/*
 * A type or code: four hex digits, or a name of tab (which may be NULL).
 * Returns 0 or -ENOENT.
 */
int input_getevent_field_parse(const char *s,
			       const struct input_getevent_label *tab,
			       uint32_t *out);

/*
 * Parses the type, code and value tokens of an event line (n of them in
 * tok) and the " rate N" that `getevent -r` adds after SYN_REPORT into
 * ev's type, code and value.  Returns 0, -ENOENT for an unknown label,
 * -EINVAL for anything else.
 */
int input_getevent_field_event(char **tok, size_t n, struct touch_event *ev);

/*
 * The type, code and value of ev as `getevent -l` prints them, the names
 * padded to its columns and what has no name in hex, so that
 * input_getevent_field_event() reads back the same event.  Returns 0, or
 * -ENOSPC when it does not fit in size bytes (64 always do).
 */
int input_getevent_field_format(const struct touch_event *ev, char *buf,
				size_t size);

#endif
