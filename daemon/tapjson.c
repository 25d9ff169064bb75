/*
 * A stored tap as JSON and CSV: see tapjson.h for the fields.
 */
#include "tapjson.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "janktag.h"

/*
 * Names of the FrameTimeline JankType bits (docs/formats.md 2.4), bit 0
 * first; NULL for JANK_NONE, which is not a kind of jank.
 */
static const char *const jank_names[] = {
	NULL,
	"sf_scheduling",
	"prediction_error",
	"display_hal",
	"sf_cpu_deadline_missed",
	"sf_gpu_deadline_missed",
	"app_deadline_missed",
	"buffer_stuffing",
	"unknown",
	"sf_stuffing",
	"dropped",
	"non_animating",
	"app_resynced_jitter",
	"display_not_on",
	"display_mode_change_in_progress",
	"display_power_mode_change_in_progress",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char csv_header[] =
	"id,app,pid,kind,status,flags,t_down_ns,t_up_ns,wall_time,x,y,"
	"first_frame_ms,settle_ms,frames,jank,jank_tags,jank_perceivable,"
	"session,window,attribution,target_app,target_activity,"
	"launch_first_frame_ms,launch_settle_ms\r\n";

size_t
tapjson_utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		/* A NUL here fails the test too, so s is never overrun. */
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

static int
utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = tapjson_utf8_len(p);
		if (n == 0)
			return 0;
		p += n;
	}
	return 1;
}

/*
 * A copy of s with U+FFFD in place of each byte that does not belong to a
 * valid UTF-8 sequence; free with free().  NULL when out of memory.
 */
static char *
utf8_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;
	size_t n;

	out = malloc(strlen(s) * 3 + 1);
	if (!out)
		return NULL;
	o = out;
	while (*p) {
		n = tapjson_utf8_len(p);
		if (n == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
			continue;
		}
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	*o = '\0';
	return out;
}

cJSON *
tapjson_string_new(const char *s)
{
	cJSON *item;
	char *clean;

	if (utf8_valid(s))
		return cJSON_CreateString(s);
	clean = utf8_clean(s);
	if (!clean)
		return NULL;
	item = cJSON_CreateString(clean);
	free(clean);
	return item;
}

int
tapjson_add_string(cJSON *obj, const char *name, const char *s)
{
	cJSON *item;

	if (!s)
		return cJSON_AddNullToObject(obj, name) ? 0 : -ENOMEM;
	item = tapjson_string_new(s);
	if (!item || !cJSON_AddItemToObject(obj, name, item)) {
		cJSON_Delete(item);
		return -ENOMEM;
	}
	return 0;
}

static int
add_int64_string(cJSON *obj, const char *name, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return cJSON_AddStringToObject(obj, name, buf) ? 0 : -ENOMEM;
}

/* Adds a number, or null when v is not finite (cJSON has no NaN). */
static int
add_double(cJSON *obj, const char *name, double v)
{
	if (!isfinite(v))
		return cJSON_AddNullToObject(obj, name) ? 0 : -ENOMEM;
	return cJSON_AddNumberToObject(obj, name, v) ? 0 : -ENOMEM;
}

/* A latency in ms, or null when not measured (negative). */
static int
add_ms(cJSON *obj, const char *name, int64_t ns)
{
	if (ns < 0)
		return cJSON_AddNullToObject(obj, name) ? 0 : -ENOMEM;
	return cJSON_AddNumberToObject(obj, name, tapjson_ms(ns)) ? 0 : -ENOMEM;
}

/* The name array of the set bits of mask, names[] naming bit 0 first. */
static cJSON *
names_new(uint32_t mask, const char *const *names, size_t n)
{
	cJSON *arr, *s;
	size_t i;

	arr = cJSON_CreateArray();
	if (!arr)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!(mask & (UINT32_C(1) << i)) || !names[i])
			continue;
		s = cJSON_CreateString(names[i]);
		if (!s || !cJSON_AddItemToArray(arr, s)) {
			cJSON_Delete(s);
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

cJSON *
tapjson_flags_new(unsigned flags)
{
	return names_new(flags, store_flag_names, STORE_FLAG_COUNT);
}

cJSON *
tapjson_jank_new(uint32_t jank)
{
	return names_new(jank, jank_names, NELEM(jank_names));
}

cJSON *
tapjson_jank_tags_new(uint32_t tags)
{
	return names_new(tags, janktag_names, JANKTAG_COUNT);
}

double
tapjson_ms(int64_t ns)
{
	int64_t us = ns / 1000, rem = ns % 1000;

	if (rem >= 500)
		us++;
	else if (rem <= -500)
		us--;
	return (double)us / 1000.0;
}

int
tapjson_wall_time(int64_t wall_ns, char *buf, size_t size)
{
	int64_t sec = wall_ns / 1000000000, rem = wall_ns % 1000000000;
	time_t t;
	struct tm tm;
	size_t n;
	int len;

	if (size < TAPJSON_WALL_TIME_SIZE)
		return -ENOSPC;
	/* Floor division: a time before 1970 still counts up to its ms. */
	if (rem < 0) {
		sec--;
		rem += 1000000000;
	}
	t = (time_t)sec;
	if ((int64_t)t != sec || !gmtime_r(&t, &tm))
		return -ERANGE;
	/* RFC 3339 has four-digit years only. */
	if (tm.tm_year < -1900 || tm.tm_year > 9999 - 1900)
		return -ERANGE;
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	if (n == 0)
		return -ENOSPC;
	len = snprintf(buf + n, size - n, ".%03dZ", (int)(rem / 1000000));
	if (len < 0 || (size_t)len >= size - n)
		return -ENOSPC;
	return 0;
}

/* Adds the members of the tap object to obj; see tapjson.h. */
static int
fill(cJSON *obj, int64_t id, const struct store_tap *tap)
{
	char wall[TAPJSON_WALL_TIME_SIZE];
	cJSON *arr;
	int rc, launch;

	if (!cJSON_AddNumberToObject(obj, "id", (double)id))
		return -ENOMEM;
	if ((rc = tapjson_add_string(
		     obj, "app", tap->app ? tap->app : STORE_APP_UNKNOWN)) < 0)
		return rc;
	if (tap->pid > 0) {
		if (!cJSON_AddNumberToObject(obj, "pid", tap->pid))
			return -ENOMEM;
	} else if (!cJSON_AddNullToObject(obj, "pid")) {
		return -ENOMEM;
	}
	if ((rc = tapjson_add_string(obj, "kind", tap->kind)) < 0 ||
	    (rc = tapjson_add_string(obj, "status", tap->status)) < 0)
		return rc;
	arr = tapjson_flags_new(tap->flags);
	if (!arr || !cJSON_AddItemToObject(obj, "flags", arr)) {
		cJSON_Delete(arr);
		return -ENOMEM;
	}
	if ((rc = add_int64_string(obj, "t_down_ns", tap->t_down_ns)) < 0 ||
	    (rc = add_int64_string(obj, "t_up_ns", tap->t_up_ns)) < 0)
		return rc;
	if (tap->wall_ns != -1 &&
	    tapjson_wall_time(tap->wall_ns, wall, sizeof(wall)) == 0) {
		if (!cJSON_AddStringToObject(obj, "wall_time", wall))
			return -ENOMEM;
	} else if (!cJSON_AddNullToObject(obj, "wall_time")) {
		return -ENOMEM;
	}
	if ((rc = add_double(obj, "x", tap->x)) < 0 ||
	    (rc = add_double(obj, "y", tap->y)) < 0 ||
	    (rc = add_ms(obj, "first_frame_ms", tap->first_frame_ns)) < 0 ||
	    (rc = add_ms(obj, "settle_ms", tap->settle_ns)) < 0)
		return rc;
	if (!cJSON_AddNumberToObject(obj, "frames", tap->frames))
		return -ENOMEM;
	arr = tapjson_jank_new(tap->jank);
	if (!arr || !cJSON_AddItemToObject(obj, "jank", arr)) {
		cJSON_Delete(arr);
		return -ENOMEM;
	}
	arr = tapjson_jank_tags_new(tap->jank_tags);
	if (!arr || !cJSON_AddItemToObject(obj, "jank_tags", arr)) {
		cJSON_Delete(arr);
		return -ENOMEM;
	}
	if (!cJSON_AddBoolToObject(obj, "jank_perceivable",
				   (tap->jank_tags & JANKTAG_PERCEIVABLE) != 0))
		return -ENOMEM;
	if (tap->session > 0) {
		if (!cJSON_AddNumberToObject(obj, "session",
					     (double)tap->session))
			return -ENOMEM;
	} else if (!cJSON_AddNullToObject(obj, "session")) {
		return -ENOMEM;
	}
	if ((rc = tapjson_add_string(obj, "window", tap->window)) < 0 ||
	    (rc = tapjson_add_string(
		     obj, "attribution",
		     store_attribution_name(tap->attribution))) < 0)
		return rc;
	/* Launch values belong to launches only (store.h). */
	launch = (tap->flags & STORE_FLAG_LAUNCH) != 0;
	if ((rc = tapjson_add_string(obj, "target_app", tap->target_app)) < 0 ||
	    (rc = tapjson_add_string(obj, "target_activity",
				     tap->target_activity)) < 0 ||
	    (rc = add_ms(obj, "launch_first_frame_ms",
			 launch ? tap->launch_first_frame_ns : -1)) < 0 ||
	    (rc = add_ms(obj, "launch_settle_ms",
			 launch ? tap->launch_settle_ns : -1)) < 0)
		return rc;
	return 0;
}

cJSON *
tapjson_new(int64_t id, const struct store_tap *tap)
{
	cJSON *obj;

	obj = cJSON_CreateObject();
	if (!obj)
		return NULL;
	if (fill(obj, id, tap) < 0) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

const char *
tapjson_csv_header(void)
{
	return csv_header;
}

/*
 * Writes a string field: as is when it needs no quotes, else between
 * double quotes with its double quotes doubled (RFC 4180 section 2).
 */
static int
csv_string(FILE *f, const char *s)
{
	char *clean = NULL;
	const char *p;

	if (!s)
		return 0;
	if (!utf8_valid(s)) {
		clean = utf8_clean(s);
		if (!clean)
			return -ENOMEM;
		s = clean;
	}
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		goto out;
	}
	fputc('"', f);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
out:
	free(clean);
	return 0;
}

/* Names of the set bits joined with '|'. */
static void
csv_names(FILE *f, uint32_t mask, const char *const *names, size_t n)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(mask & (UINT32_C(1) << i)) || !names[i])
			continue;
		fprintf(f, "%s%s", sep, names[i]);
		sep = "|";
	}
}

/*
 * A double as cJSON prints it: the shortest of 15 or 17 significant
 * digits that reads back as the same value.  Nothing when not finite.
 */
static void
csv_double(FILE *f, double v)
{
	char buf[32];

	if (!isfinite(v))
		return;
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, f);
}

/*
 * A latency in ms with 3 decimals, from the rounded microseconds in
 * integers so that no binary fraction shows; nothing when not measured.
 */
static void
csv_ms(FILE *f, int64_t ns)
{
	int64_t us;

	if (ns < 0)
		return;
	us = ns / 1000 + (ns % 1000 >= 500);
	fprintf(f, "%" PRId64 ".%03d", us / 1000, (int)(us % 1000));
}

int
tapjson_csv_write(FILE *f, int64_t id, const struct store_tap *tap)
{
	char wall[TAPJSON_WALL_TIME_SIZE];
	int rc;

	fprintf(f, "%" PRId64 ",", id);
	if ((rc = csv_string(f, tap->app ? tap->app : STORE_APP_UNKNOWN)) < 0)
		return rc;
	fputc(',', f);
	if (tap->pid > 0)
		fprintf(f, "%" PRId32, tap->pid);
	fputc(',', f);
	if ((rc = csv_string(f, tap->kind)) < 0)
		return rc;
	fputc(',', f);
	if ((rc = csv_string(f, tap->status)) < 0)
		return rc;
	fputc(',', f);
	csv_names(f, tap->flags, store_flag_names, STORE_FLAG_COUNT);
	fprintf(f, ",%" PRId64 ",%" PRId64 ",", tap->t_down_ns, tap->t_up_ns);
	if (tap->wall_ns != -1 &&
	    tapjson_wall_time(tap->wall_ns, wall, sizeof(wall)) == 0)
		fputs(wall, f);
	fputc(',', f);
	csv_double(f, tap->x);
	fputc(',', f);
	csv_double(f, tap->y);
	fputc(',', f);
	csv_ms(f, tap->first_frame_ns);
	fputc(',', f);
	csv_ms(f, tap->settle_ns);
	fprintf(f, ",%" PRId32 ",", tap->frames);
	csv_names(f, tap->jank, jank_names, NELEM(jank_names));
	fputc(',', f);
	csv_names(f, tap->jank_tags, janktag_names, JANKTAG_COUNT);
	fputs((tap->jank_tags & JANKTAG_PERCEIVABLE) ? ",true," : ",false,", f);
	if (tap->session > 0)
		fprintf(f, "%" PRId64, tap->session);
	fputc(',', f);
	if ((rc = csv_string(f, tap->window)) < 0)
		return rc;
	fputc(',', f);
	if ((rc = csv_string(f, store_attribution_name(tap->attribution))) < 0)
		return rc;
	fputc(',', f);
	if ((rc = csv_string(f, tap->target_app)) < 0)
		return rc;
	fputc(',', f);
	if ((rc = csv_string(f, tap->target_activity)) < 0)
		return rc;
	fputc(',', f);
	csv_ms(f, tap->flags & STORE_FLAG_LAUNCH ? tap->launch_first_frame_ns
						 : -1);
	fputc(',', f);
	csv_ms(f, tap->flags & STORE_FLAG_LAUNCH ? tap->launch_settle_ns : -1);
	fputs("\r\n", f);
	return ferror(f) ? -EIO : 0;
}
