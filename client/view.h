/*
 * JSON answers of the API as text for people: scalars as cells, objects as
 * two-column key/value tables, arrays of objects as tables with a column
 * per member.  Nested objects are flattened into dotted names
 * ("first_frame.p50"), so that a member the server adds later shows up
 * without a change here.
 */
#ifndef TAPCTL_VIEW_H
#define TAPCTL_VIEW_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Writes a scalar as text into buf: strings as they are, integers without
 * a fraction, other numbers with up to 3 decimals, null as "-", arrays of
 * scalars joined with ",", objects as "{...}".
 */
void view_cell(const cJSON *v, char *buf, size_t size);

/*
 * Prints an object as "key  value" lines, nested objects flattened; an
 * array of objects among its members is printed after them as a table of
 * its own, under its name.  Returns 0, -EIO or -ENOMEM.
 */
int view_object(const cJSON *obj, FILE *f);

/*
 * Prints an array of objects as a table: one row per element, one column
 * per (flattened) member seen in any element, in order of appearance, up
 * to 32 of them.  Number columns are right-aligned.  Returns 0, -EIO or
 * -ENOMEM.
 */
int view_array(const cJSON *arr, FILE *f);

#endif
