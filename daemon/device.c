#include "device.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "parse.h"
#include "tapjson.h"

/* device.json is a few hundred bytes; anything near this is not one. */
#define DEVICE_MAX_SIZE (1024 * 1024)

/*
 * Reads an integer member.  A missing member leaves *out as it is and
 * returns 0; a present one must be a whole number within [lo, hi].
 */
static int
get_int(const cJSON *obj, const char *key, const char *name, double lo,
	double hi, int32_t *out)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	double v;

	if (!item || cJSON_IsNull(item))
		return 0;
	if (!cJSON_IsNumber(item)) {
		log_warnx("cannot read '%s': \"%s\" is not a number", name,
			  key);
		return -EINVAL;
	}
	v = item->valuedouble;
	if (!isfinite(v) || v != floor(v) || v < lo || v > hi) {
		log_warnx("cannot read '%s': \"%s\" is %g, not a whole number "
			  "from %.0f to %.0f",
			  name, key, v, lo, hi);
		return -EINVAL;
	}
	*out = (int32_t)v;
	return 0;
}

static int
get_axis(const cJSON *touch, const char *key, const char *name,
	 struct device_axis *axis, int *have)
{
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(touch, key);
	int32_t min = 0, max = 0;
	int rc;

	if (!obj)
		return 0;
	if (!cJSON_IsObject(obj) ||
	    !cJSON_GetObjectItemCaseSensitive(obj, "min") ||
	    !cJSON_GetObjectItemCaseSensitive(obj, "max")) {
		log_warnx("cannot read '%s': \"touch.%s\" needs \"min\" and "
			  "\"max\"",
			  name, key);
		return -EINVAL;
	}
	rc = get_int(obj, "min", name, INT32_MIN, INT32_MAX, &min);
	if (rc == 0)
		rc = get_int(obj, "max", name, INT32_MIN, INT32_MAX, &max);
	if (rc < 0)
		return rc;
	if (max <= min) {
		log_warnx("cannot read '%s': \"touch.%s\" has max %d <= min %d",
			  name, key, max, min);
		return -EINVAL;
	}
	axis->min = min;
	axis->max = max;
	(*have)++;
	return 0;
}

/*
 * A text member of the identity: a string of 1 to max bytes of UTF-8
 * without control characters, since it becomes a Prometheus label and a
 * JSON string.  A missing member leaves out as it is.
 */
static int
get_text(const cJSON *obj, const char *key, const char *name, size_t max,
	 char *out)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	const unsigned char *p;
	size_t len, n;

	if (!item || cJSON_IsNull(item))
		return 0;
	if (!cJSON_IsString(item)) {
		log_warnx("cannot read '%s': \"%s\" is not a string", name,
			  key);
		return -EINVAL;
	}
	len = strlen(item->valuestring);
	if (len == 0 || len > max) {
		log_warnx("cannot read '%s': \"%s\" is %zu bytes long, not 1 "
			  "to %zu",
			  name, key, len, max);
		return -EINVAL;
	}
	for (p = (const unsigned char *)item->valuestring; *p; p += n) {
		n = tapjson_utf8_len(p);
		if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
			log_warnx("cannot read '%s': \"%s\" holds a control "
				  "character or a byte that is not UTF-8",
				  name, key);
			return -EINVAL;
		}
	}
	memcpy(out, item->valuestring, len + 1);
	return 0;
}

/*
 * An int64 member given as a decimal string (or a small whole number),
 * within [0, DEVICE_CLOCK_MAX_NS]: the bound keeps REALTIME - MONOTONIC
 * and the wall times made from it far from int64's ends.
 */
static int
get_i64(const cJSON *obj, const char *key, const char *name, int64_t *out)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	int rc;

	if (cJSON_IsString(item)) {
		rc = parse_int64(item->valuestring, 0, DEVICE_CLOCK_MAX_NS,
				 out);
		if (rc == 0)
			return 0;
		if (rc == -ERANGE) {
			log_warnx(
				"cannot read '%s': \"clock.%s\" is %.40s, out "
				"of range (0 to %" PRId64 " ns)",
				name, key, item->valuestring,
				(int64_t)DEVICE_CLOCK_MAX_NS);
			return -EINVAL;
		}
	}
	/* A double holds integers exactly only up to 2^53. */
	if (cJSON_IsNumber(item) && item->valuedouble >= 0 &&
	    item->valuedouble <= 9007199254740992.0 &&
	    item->valuedouble == floor(item->valuedouble)) {
		*out = (int64_t)item->valuedouble;
		return 0;
	}
	log_warnx("cannot read '%s': \"clock.%s\" is not a non-negative "
		  "integer in a string",
		  name, key);
	return -EINVAL;
}

void
device_measure_init(struct device_measure *m)
{
	m->slop_px = -1;
	m->long_press_ns = -1;
	m->settle_quiet_ns = -1;
	m->settle_cap_ns = -1;
	m->busy_before_ns = -1;
	m->frame_latency_ns = -1;
	m->launch_cap_ns = -1;
}

/*
 * A number of "measure" within [0, hi], into *out (*out as it is when the
 * member is missing).
 */
static int
get_measure(const cJSON *obj, const char *key, const char *name, double hi,
	    double *out)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!item)
		return 0;
	if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) ||
	    item->valuedouble < 0 || item->valuedouble > hi) {
		log_warnx("cannot read '%s': \"measure.%s\" is not a number "
			  "from 0 to %.0f",
			  name, key, hi);
		return -EINVAL;
	}
	*out = item->valuedouble;
	return 0;
}

/* The times of "measure", in ms in the file, in ns in m. */
static int
get_measure_ms(const cJSON *obj, const char *key, const char *name,
	       int64_t *out_ns)
{
	double ms = -1;
	int rc;

	rc = get_measure(obj, key, name, DEVICE_MEASURE_MAX_MS, &ms);
	if (rc == 0 && ms >= 0)
		*out_ns = llround(ms * 1e6);
	return rc;
}

static int
get_measures(const cJSON *root, const char *name, struct device_info *info)
{
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "measure");
	struct device_measure *m = &info->measure;
	int rc;

	device_measure_init(m);
	if (!obj)
		return 0;
	if (!cJSON_IsObject(obj)) {
		log_warnx("cannot read '%s': \"measure\" is not an object",
			  name);
		return -EINVAL;
	}
	rc = get_measure(obj, "slop_px", name, 100000, &m->slop_px);
	if (rc == 0)
		rc = get_measure_ms(obj, "long_press_ms", name,
				    &m->long_press_ns);
	if (rc == 0)
		rc = get_measure_ms(obj, "settle_quiet_ms", name,
				    &m->settle_quiet_ns);
	if (rc == 0)
		rc = get_measure_ms(obj, "settle_cap_ms", name,
				    &m->settle_cap_ns);
	if (rc == 0)
		rc = get_measure_ms(obj, "busy_before_ms", name,
				    &m->busy_before_ns);
	if (rc == 0)
		rc = get_measure_ms(obj, "frame_latency_ms", name,
				    &m->frame_latency_ns);
	if (rc == 0)
		rc = get_measure_ms(obj, "launch_cap_ms", name,
				    &m->launch_cap_ns);
	if (rc == 0)
		info->have_measure = 1;
	return rc;
}

/* Compares two keys through pointers to them, for qsort. */
static int
key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Refuses a key given twice in any object of the tree: cJSON keeps both
 * and a lookup finds the first, so the file would mean one thing to tapd
 * and perhaps another to whatever wrote or checked it.  The keys of each
 * object are sorted (a hostile file may have many) and neighbours
 * compared.  path is the dotted path of item, "" at the top.
 */
static int
check_keys(const cJSON *item, const char *path, const char *name)
{
	const cJSON *c;
	const char **keys;
	char sub[256];
	size_t n = 0, i;
	int rc = 0;

	if (!cJSON_IsObject(item) && !cJSON_IsArray(item))
		return 0;
	for (c = item->child; c; c = c->next) {
		if (cJSON_IsArray(item))
			snprintf(sub, sizeof(sub), "%s[%zu]", path, n);
		else
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", c->string ? c->string : "");
		rc = check_keys(c, sub, name);
		if (rc < 0)
			return rc;
		n++;
	}
	if (!cJSON_IsObject(item) || n < 2)
		return 0;
	keys = calloc(n, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0, c = item->child; c; c = c->next, i++)
		keys[i] = c->string ? c->string : "";
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 1; i < n; i++) {
		if (strcmp(keys[i - 1], keys[i]) == 0) {
			log_warnx(
				"cannot read '%s': \"%s%s%.64s\" appears twice",
				name, path, *path ? "." : "", keys[i]);
			rc = -EINVAL;
			break;
		}
	}
	free(keys);
	return rc;
}

/*
 * Parses the whole of json[0..len) as one JSON value: a byte order mark,
 * a NUL, or anything but white space after the value is refused, since
 * cJSON would skip the first and stop at the others, reading less than
 * the file holds.
 */
static int
parse_whole(const char *json, size_t len, const char *name, cJSON **out)
{
	const char *nul, *end = NULL;
	char *text;
	cJSON *root;

	*out = NULL;
	if (len >= 3 && memcmp(json, "\xef\xbb\xbf", 3) == 0) {
		log_warnx("cannot read '%s': starts with a UTF-8 byte order "
			  "mark",
			  name);
		return -EINVAL;
	}
	nul = memchr(json, '\0', len);
	if (nul) {
		log_warnx("cannot read '%s': a NUL byte at offset %zu", name,
			  (size_t)(nul - json));
		return -EINVAL;
	}
	/* cJSON's check for the end needs the terminating NUL in the length. */
	text = malloc(len + 1);
	if (!text)
		return -ENOMEM;
	memcpy(text, json, len);
	text[len] = '\0';
	root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
	if (root && end == text + len) {
		free(text);
		*out = root;
		return 0;
	}
	cJSON_Delete(root);
	/* Without the check, a JSON value followed by something else parses. */
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (root) {
		while (end < text + len && strchr(" \t\r\n", *end))
			end++;
		log_warnx("cannot read '%s': something after the JSON value at "
			  "offset %zu",
			  name, (size_t)(end - text));
	} else {
		log_warnx("cannot read '%s': not a JSON object", name);
	}
	cJSON_Delete(root);
	free(text);
	return -EINVAL;
}

int
device_parse(const char *json, size_t len, const char *name,
	     struct device_info *info)
{
	const cJSON *screen, *touch, *clock;
	cJSON *root = NULL;
	int64_t boot_ns;
	int axes = 0;
	int rc = 0;

	memset(info, 0, sizeof(*info));
	device_measure_init(&info->measure);
	rc = parse_whole(json, len, name, &root);
	if (rc < 0)
		goto out;
	if (!cJSON_IsObject(root)) {
		log_warnx("cannot read '%s': not a JSON object", name);
		rc = -EINVAL;
		goto out;
	}
	rc = check_keys(root, "", name);
	if (rc < 0)
		goto out;
	screen = cJSON_GetObjectItemCaseSensitive(root, "screen");
	if (screen) {
		if (!cJSON_IsObject(screen)) {
			log_warnx("cannot read '%s': \"screen\" is not an "
				  "object",
				  name);
			rc = -EINVAL;
			goto out;
		}
		rc = get_int(screen, "width", name, 1, 100000, &info->width);
		if (rc == 0)
			rc = get_int(screen, "height", name, 1, 100000,
				     &info->height);
		if (rc < 0)
			goto out;
		info->have_screen = info->width > 0 && info->height > 0;
	}
	rc = get_int(root, "density_dpi", name, 1, 10000, &info->density_dpi);
	if (rc == 0)
		rc = get_int(root, "refresh_hz", name, 1, 1000,
			     &info->refresh_hz);
	if (rc == 0)
		rc = get_int(root, "android_sdk", name, 1, 1000,
			     &info->android_sdk);
	if (rc == 0)
		rc = get_text(root, "serial", name, DEVICE_TEXT_MAX,
			      info->serial);
	if (rc == 0)
		rc = get_text(root, "manufacturer", name, DEVICE_TEXT_MAX,
			      info->manufacturer);
	if (rc == 0)
		rc = get_text(root, "model", name, DEVICE_TEXT_MAX,
			      info->model);
	if (rc == 0)
		rc = get_text(root, "fingerprint", name, DEVICE_FINGERPRINT_MAX,
			      info->fingerprint);
	if (rc < 0)
		goto out;
	touch = cJSON_GetObjectItemCaseSensitive(root, "touch");
	if (touch) {
		if (!cJSON_IsObject(touch)) {
			log_warnx(
				"cannot read '%s': \"touch\" is not an object",
				name);
			rc = -EINVAL;
			goto out;
		}
		rc = get_axis(touch, "x", name, &info->x, &axes);
		if (rc == 0)
			rc = get_axis(touch, "y", name, &info->y, &axes);
		if (rc < 0)
			goto out;
		info->have_touch = axes == 2;
	}
	clock = cJSON_GetObjectItemCaseSensitive(root, "clock");
	if (clock) {
		if (!cJSON_IsObject(clock)) {
			log_warnx(
				"cannot read '%s': \"clock\" is not an object",
				name);
			rc = -EINVAL;
			goto out;
		}
		rc = get_i64(clock, "realtime_ns", name,
			     &info->clock_realtime_ns);
		if (rc == 0)
			rc = get_i64(clock, "monotonic_ns", name,
				     &info->clock_monotonic_ns);
		if (rc < 0)
			goto out;
		/*
		 * Both are within [0, DEVICE_CLOCK_MAX_NS], so this cannot
		 * fail; it is checked all the same, since every wall time of
		 * the replay is made from the difference.
		 */
		if (__builtin_sub_overflow(info->clock_realtime_ns,
					   info->clock_monotonic_ns,
					   &boot_ns)) {
			log_warnx("cannot read '%s': \"clock\" has "
				  "realtime_ns - monotonic_ns out of range",
				  name);
			rc = -EINVAL;
			goto out;
		}
		info->have_clock = 1;
	}
	rc = get_measures(root, name, info);
out:
	cJSON_Delete(root);
	if (rc < 0) {
		memset(info, 0, sizeof(*info));
		device_measure_init(&info->measure);
	}
	return rc;
}

int
device_load(const char *path, struct device_info *info)
{
	struct stat sb;
	char *buf = NULL;
	size_t got = 0;
	ssize_t n;
	int fd = -1;
	int rc = 0;

	memset(info, 0, sizeof(*info));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		rc = -errno;
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size > DEVICE_MAX_SIZE) {
		log_warnx("cannot read '%s': not a device.json file", path);
		rc = -EINVAL;
		goto out;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)sb.st_size) {
		n = read(fd, buf + got, (size_t)sb.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	rc = device_parse(buf, got, path, info);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}
