#include "device.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "parse.h"

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

/* An int64 member given as a decimal string (or a small whole number). */
static int
get_i64(const cJSON *obj, const char *key, const char *name, int64_t *out)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsString(item) &&
	    parse_int64(item->valuestring, 0, INT64_MAX, out) == 0)
		return 0;
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

int
device_parse(const char *json, size_t len, const char *name,
	     struct device_info *info)
{
	const cJSON *screen, *touch, *clock;
	cJSON *root = NULL;
	int axes = 0;
	int rc = 0;

	memset(info, 0, sizeof(*info));
	root = cJSON_ParseWithLength(json, len);
	if (!root || !cJSON_IsObject(root)) {
		log_warnx("cannot read '%s': not a JSON object", name);
		rc = -EINVAL;
		goto out;
	}
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
		rc = get_i64(clock, "realtime_ns", name,
			     &info->clock_realtime_ns);
		if (rc == 0)
			rc = get_i64(clock, "monotonic_ns", name,
				     &info->clock_monotonic_ns);
		if (rc < 0)
			goto out;
		info->have_clock = 1;
	}
out:
	cJSON_Delete(root);
	if (rc < 0)
		memset(info, 0, sizeof(*info));
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
