/*
 * The fast path of the getevent line reader (input_getevent_line.h): a
 * whole line in the buffer, of the shape nearly every line of a
 * `getevent -lt` log has, "[ SEC.USEC] [PATH: ]TYPE CODE VALUE" with a
 * hex value, read where it lies, without the copy, the trimming and the
 * splitting of the general reader, and the pairs of type and code labels
 * looked up once.  Anything else in a line (a CR before its end, a NUL,
 * a named value, a rate, a stamp of another shape, an unknown label) is
 * left to the general reader, which then reads the line from its start:
 * both make of a line the same event and the same counts.
 */
#ifndef TAPD_INPUT_GETEVENT_FAST_H
#define TAPD_INPUT_GETEVENT_FAST_H

#include <stddef.h>

#include "input_getevent_int.h"

/*
 * Reads the line s[0..len), whose newline is s[len], nothing of it
 * having been held before.  Returns 1 when it took the line (the event
 * kept, the line counted), 0 when the general reader is to read it, or
 * a negative errno.
 */
int input_getevent_fast_line(struct input_getevent *g, const char *s,
			     size_t len);

#endif
