/* The package of a layer name (layername.h). */
#include "layername.h"

#include <errno.h>
#include <string.h>

static const char tx_prefix[] = "TX - ";

/* The wrappers around a package, in the order they are tried. */
static const char *const wrappers[] = {
	"SurfaceView[",
	"SurfaceView - ",
	"Splash Screen ",
};

static int
is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
is_package_char(char c)
{
	return is_letter(c) || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static const char *
skip(const char *p, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(p, prefix, n) == 0 ? p + n : NULL;
}

int
layername_span(const char *layer, const char **pkg, size_t *len)
{
	const char *p = layer, *q;
	size_t i, n;

	if (!layer)
		return -EINVAL;
	if ((q = skip(p, tx_prefix)) != NULL)
		p = q;
	for (i = 0; i < sizeof(wrappers) / sizeof(wrappers[0]); i++) {
		if ((q = skip(p, wrappers[i])) != NULL) {
			p = q;
			break;
		}
	}
	n = strcspn(p, "/#](@ ");
	if (n == 0 || !is_letter(p[0]))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!is_package_char(p[i]))
			return -EINVAL;
	*pkg = p;
	*len = n;
	return 0;
}

int
layername_package(const char *layer, char *buf, size_t size)
{
	const char *pkg;
	size_t n;
	int rc;

	rc = layername_span(layer, &pkg, &n);
	if (rc < 0)
		return rc;
	if (n >= size)
		return -ERANGE;
	memcpy(buf, pkg, n);
	buf[n] = '\0';
	return 0;
}

int
layername_belongs(const char *layer, const char *app, size_t len)
{
	const char *pkg;
	size_t n;

	if (layername_span(layer, &pkg, &n) < 0)
		return 0;
	return n == len && memcmp(pkg, app, n) == 0;
}
