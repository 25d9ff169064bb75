/*
 * The device's identity: see devid.h.  getprop is asked one property at a
 * time, which both Android's getprop and a test's stand-in answer alike.
 */
#include "devid.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "device.h"
#include "log.h"
#include "parse.h"
#include "tapjson.h"

/* A property's value is at most 91 bytes, the fingerprint's a few more. */
#define DEVID_OUT_MAX 1024

void
devid_clear(struct devid *id)
{
	memset(id, 0, sizeof(*id));
}

int
devid_known(const struct devid *id)
{
	return id->serial[0] || id->manufacturer[0] || id->model[0] ||
	       id->fingerprint[0] || id->abi[0] || id->sdk > 0 ||
	       id->refresh_hz > 0 || id->width > 0 || id->height > 0 ||
	       id->density_dpi > 0;
}

void
devid_set_text(char *out, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, o = 0, n;

	if (size == 0)
		return;
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	len = strlen((const char *)p);
	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t' ||
			   p[len - 1] == '\r' || p[len - 1] == '\n'))
		len--;
	while (len > 0) {
		n = tapjson_utf8_len(p);
		if (n > len)
			n = 0;
		if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
			if (o + 1 >= size)
				break;
			out[o++] = '?';
			p++;
			len--;
			continue;
		}
		if (o + n >= size)
			break;
		memcpy(out + o, p, n);
		o += n;
		p += n;
		len -= n;
	}
	out[o] = '\0';
}

void
devid_from_device(struct devid *id, const struct device_info *dev)
{
	if (dev->serial[0])
		devid_set_text(id->serial, sizeof(id->serial), dev->serial);
	if (dev->manufacturer[0])
		devid_set_text(id->manufacturer, sizeof(id->manufacturer),
			       dev->manufacturer);
	if (dev->model[0])
		devid_set_text(id->model, sizeof(id->model), dev->model);
	if (dev->fingerprint[0])
		devid_set_text(id->fingerprint, sizeof(id->fingerprint),
			       dev->fingerprint);
	if (dev->android_sdk > 0)
		id->sdk = dev->android_sdk;
	if (dev->refresh_hz > 0)
		id->refresh_hz = dev->refresh_hz;
	if (dev->have_screen) {
		id->width = dev->width;
		id->height = dev->height;
	}
	if (dev->density_dpi > 0)
		id->density_dpi = dev->density_dpi;
}

/*
 * Runs `getprop NAME` and waits for it; copies its line into out.
 * Returns 1 when it answered, 0 when it ran but gave nothing usable,
 * -ENOENT when it cannot be run.
 */
static int
devid_getprop(struct child_set *cs, const char *bin, const char *name,
	      uint32_t timeout_ms, char *out, size_t size)
{
	char text[DEVID_OUT_MAX + 1], why[160], prop[64];
	struct child_spec spec;
	struct child *c = NULL;
	const char *o;
	char *argv[3];
	size_t len;
	int rc = 0;

	/* argv is not const: the names are copied. */
	snprintf(prop, sizeof(prop), "%s", name);
	if ((argv[0] = strdup(bin)) == NULL)
		return -ENOMEM;
	argv[1] = prop;
	argv[2] = NULL;
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.out_max = DEVID_OUT_MAX;
	spec.timeout_ms = timeout_ms;
	if (child_spawn(cs, &spec, &c, why, sizeof(why)) < 0) {
		log_debug("%s", why);
		free(argv[0]);
		return -ENOENT;
	}
	child_set_wait(cs, c);
	o = child_out(c, &len);
	if (child_clean_exit(c) && o && len > 0) {
		memcpy(text, o, len);
		text[len] = '\0';
		/* One line: the value, newline-terminated. */
		text[strcspn(text, "\n")] = '\0';
		devid_set_text(out, size, text);
		rc = out[0] != '\0';
	}
	child_free(c);
	free(argv[0]);
	return rc;
}

/* A positive whole number property, or 0. */
static int32_t
devid_number(const char *s, int64_t hi)
{
	int64_t v;

	if (parse_int64(s, 1, hi, &v) < 0)
		return 0;
	return (int32_t)v;
}

int
devid_probe(struct devid *id, const char *getprop_bin, uint32_t timeout_ms)
{
	static const struct {
		const char *prop;
		size_t off, size;
	} texts[] = {
		{"ro.serialno", offsetof(struct devid, serial),
		 sizeof(((struct devid *)0)->serial)},
		{"ro.product.manufacturer",
		 offsetof(struct devid, manufacturer),
		 sizeof(((struct devid *)0)->manufacturer)},
		{"ro.product.model", offsetof(struct devid, model),
		 sizeof(((struct devid *)0)->model)},
		{"ro.build.fingerprint", offsetof(struct devid, fingerprint),
		 sizeof(((struct devid *)0)->fingerprint)},
		{"ro.product.cpu.abi", offsetof(struct devid, abi),
		 sizeof(((struct devid *)0)->abi)},
	};
	char buf[DEVID_FINGERPRINT_MAX + 1];
	struct child_set *cs = NULL;
	int answered = 0, rc;
	size_t i;

	if (!getprop_bin)
		getprop_bin = "getprop";
	if ((rc = child_set_new(&cs)) < 0)
		return rc;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		rc = devid_getprop(cs, getprop_bin, texts[i].prop, timeout_ms,
				   buf, sizeof(buf));
		if (rc < 0)
			goto out;
		answered = 1;
		if (rc > 0)
			devid_set_text((char *)id + texts[i].off, texts[i].size,
				       buf);
	}
	if (devid_getprop(cs, getprop_bin, "ro.build.version.sdk", timeout_ms,
			  buf, sizeof(buf)) > 0)
		id->sdk = devid_number(buf, 1000);
	if (id->density_dpi == 0 &&
	    devid_getprop(cs, getprop_bin, "ro.sf.lcd_density", timeout_ms, buf,
			  sizeof(buf)) > 0)
		id->density_dpi = devid_number(buf, 10000);
	rc = 0;
out:
	child_set_free(cs);
	if (rc == -ENOENT && answered)
		rc = 0;
	return rc;
}

/* A text member, or null when unknown. */
static int
devid_json_text(cJSON *obj, const char *key, const char *s)
{
	return (s[0] ? cJSON_AddStringToObject(obj, key, s)
		     : cJSON_AddNullToObject(obj, key)) != NULL;
}

static int
devid_json_number(cJSON *obj, const char *key, int32_t v)
{
	return (v > 0 ? cJSON_AddNumberToObject(obj, key, v)
		      : cJSON_AddNullToObject(obj, key)) != NULL;
}

int
devid_to_json(const struct devid *id, cJSON *obj)
{
	cJSON *d;

	if (!devid_json_text(obj, "serial", id->serial) ||
	    !devid_json_text(obj, "manufacturer", id->manufacturer) ||
	    !devid_json_text(obj, "model", id->model) ||
	    !devid_json_text(obj, "fingerprint", id->fingerprint) ||
	    !devid_json_number(obj, "sdk", id->sdk) ||
	    !devid_json_text(obj, "abi", id->abi))
		return -ENOMEM;
	d = cJSON_AddObjectToObject(obj, "display");
	if (!d || !devid_json_number(d, "refresh_hz", id->refresh_hz) ||
	    !devid_json_number(d, "width", id->width) ||
	    !devid_json_number(d, "height", id->height) ||
	    !devid_json_number(d, "density_dpi", id->density_dpi))
		return -ENOMEM;
	return 0;
}
