/*
 * A stored tap as the API shows it (docs/DESIGN.md 7.6): the JSON object
 * of /v1/taps and /v1/events, and the CSV line of /v1/taps?format=csv.
 *
 * The object's members, in this order:
 *   id		number
 *   app	string, null when unknown
 *   pid	number, null when unknown (0)
 *   kind	"tap", "long_press", "swipe" or "multi"
 *   status	"ok", "no_response", "truncated", "frames_unavailable" or
 *		"not_measured"
 *   flags	array of names: "busy_before", "settle_capped",
 *		"interrupted", "input_dropped", "end_from_latency",
 *		"end_unconfirmed", "clock_assumed", "start_estimated",
 *		"present_estimated" (STORE_FLAG_* bits, in bit order;
 *		unknown bits are left out)
 *   t_down_ns, t_up_ns   decimal strings: CLOCK_MONOTONIC ns do not
 *		survive a JSON double
 *   wall_time	RFC 3339 UTC with milliseconds ("2026-12-01T05:37:54.123Z"),
 *		null when the wall time is unknown or not a year 0..9999
 *   x, y	numbers, null when unknown (NaN)
 *   first_frame_ms, settle_ms   numbers of ms with microsecond precision
 *		(ns / 1e6 rounded half away from zero to 3 decimals), null
 *		when not measured (negative)
 *   frames	number
 *   jank	array of FrameTimeline jank names, lower case without the
 *		JANK_ prefix, in bit order ("sf_scheduling", ...,
 *		"app_deadline_missed", ..., "dropped", ...); JANK_NONE is
 *		left out since it means "not janky", and so are unknown bits
 *   jank_tags	array of the response frames' jank tags, as Perfetto's
 *		trace processor derives them (janktag.h): "self_jank",
 *		"other_jank", "dropped_frame", "buffer_stuffing",
 *		"sf_stuffing", "non_perceivable", "unspecified"; frames
 *		without jank ("No Jank") add none
 *   jank_perceivable   true when a tag is self_jank, other_jank or
 *		dropped_frame, the jank a user sees
 *   session	number, null for none (0)
 *
 * Strings that are not valid UTF-8 (a hostile or damaged database) come
 * out with U+FFFD in place of each bad byte, so the output is always
 * valid JSON.
 */
#ifndef TAPD_TAPJSON_H
#define TAPD_TAPJSON_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>

#include "store.h"

/*
 * The JSON object of the tap stored as id.  Returns a new object (free it
 * with cJSON_Delete()), or NULL when out of memory.
 */
cJSON *tapjson_new(int64_t id, const struct store_tap *tap);

/*
 * Writes wall_ns (REALTIME ns) as RFC 3339 UTC with milliseconds,
 * truncated toward the past, into buf.  Returns 0, -ERANGE when the year
 * is outside 0..9999, or -ENOSPC when buf is shorter than
 * TAPJSON_WALL_TIME_SIZE.
 */
#define TAPJSON_WALL_TIME_SIZE sizeof("YYYY-MM-DDTHH:MM:SS.mmmZ")
int tapjson_wall_time(int64_t wall_ns, char *buf, size_t size);

/*
 * A duration in ns as ms with microsecond precision: ns / 1e6, rounded
 * half away from zero to 3 decimals.
 */
double tapjson_ms(int64_t ns);

/*
 * New arrays of the names of the STORE_FLAG_* bits of flags and of the
 * jank bits of jank, as in the tap object.  NULL when out of memory; free
 * with cJSON_Delete().
 */
cJSON *tapjson_flags_new(unsigned flags);
cJSON *tapjson_jank_new(uint32_t jank);

/* The array of names of the jank tags (janktag.h) in tags, as above. */
cJSON *tapjson_jank_tags_new(uint32_t tags);

/*
 * The CSV header line (RFC 4180, CRLF-terminated), with the columns of the
 * JSON object in the same order.
 */
const char *tapjson_csv_header(void);

/*
 * Writes the CSV line of a tap to f: the fields of the JSON object, empty
 * for null, flags and jank as names joined with '|', numbers as in JSON,
 * the app quoted when it holds a comma, a double quote, CR or LF (with
 * its double quotes doubled), and a CRLF at the end.  Returns 0, -EIO
 * when f reports an error, or -ENOMEM.
 */
int tapjson_csv_write(FILE *f, int64_t id, const struct store_tap *tap);

/*
 * The length of the valid UTF-8 sequence at s (1..4), or 0 when s does
 * not start one: overlong forms, surrogates and code points above
 * U+10FFFF are invalid (RFC 3629).  s is NUL-terminated: a sequence cut
 * short by the end of the string is not one.
 */
size_t tapjson_utf8_len(const unsigned char *s);

/*
 * The one way text that comes from the database or a request goes into
 * JSON: a new string item of s with U+FFFD in place of each byte that does
 * not belong to a valid UTF-8 sequence, so that a damaged name cannot make
 * the output invalid.  NULL when out of memory; free with cJSON_Delete().
 */
cJSON *tapjson_string_new(const char *s);

/*
 * Adds s to obj as name, cleaned as by tapjson_string_new(), or null when
 * s is NULL.  Returns 0 or -ENOMEM.
 */
int tapjson_add_string(cJSON *obj, const char *name, const char *s);

#endif
