/*
 * libFuzzer target: the `dumpsys input` parser (winlist.h) and the
 * hit-test over what it gives (hittest.h), on hostile input.  Beyond not
 * crashing, what it returns must be well formed: within its bounds,
 * names NUL-terminated, regions where they say; the same whole and fed
 * in pieces; a hit a window of the list that holds the point.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hittest.h"
#include "log.h"
#include "winlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const struct winlist *wl)
{
	const struct winlist_display *d;
	const struct winlist_window *w;
	size_t i, j, total = 0;

	if (winlist_n_displays(wl) > WINLIST_DISPLAYS_MAX ||
	    winlist_n_viewports(wl) > WINLIST_VIEWPORTS_MAX)
		abort();
	for (i = 0; i < winlist_n_displays(wl); i++) {
		d = winlist_display(wl, i);
		for (j = 0; (w = winlist_window(wl, d, j)) != NULL; j++) {
			if (strnlen(w->name, WINLIST_NAME_MAX + 1) >
				    WINLIST_NAME_MAX ||
			    w->n_touchable > WINLIST_RECTS_MAX ||
			    (w->n_touchable > 0 && !w->touchable) ||
			    w->display_id != d->id)
				abort();
			total++;
		}
		if (j != d->n_windows)
			abort();
	}
	if (total > WINLIST_WINDOWS_MAX)
		abort();
}

static void
hits(const struct winlist *wl, const uint8_t *data, size_t size)
{
	const struct hittest_axes axes = {0, 4095, 0, 8191};
	struct hittest_result res;
	const struct winlist_display *d;
	size_t i;
	int32_t x, y;

	for (i = 0; i + 4 <= size && i < 64; i += 4) {
		x = (int32_t)(data[i] | data[i + 1] << 8) - 4096;
		y = (int32_t)(data[i + 2] | data[i + 3] << 8) - 4096;
		d = winlist_display(wl, i % 3);
		if (!d)
			return;
		if (hittest_find(wl, d->id, x, y, i % 2, &res) < 0)
			abort();
		if (res.window && res.how != HITTEST_REGION &&
		    res.how != HITTEST_MODAL)
			abort();
		if (res.window &&
		    res.window != winlist_window(wl, d, res.index))
			abort();
		if (hittest_touch(wl, d->id, &axes, x, y, 0, &res) == 0 &&
		    (!isfinite(res.x) || !isfinite(res.y)))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct winlist_stats sa, sb;
	struct winlist *a, *b;
	size_t chunk, i;

	log_init("fuzz", LOG_LEVEL_ERROR);
	if (winlist_parse((const char *)data, size, &a) < 0)
		return 0;
	check(a);
	hits(a, data, size);
	/* The same in pieces of 1 to 64 bytes. */
	chunk = size ? 1 + data[0] % 64 : 1;
	if (winlist_new(&b) < 0) {
		winlist_free(a);
		return 0;
	}
	winlist_begin(b);
	for (i = 0; i < size; i += chunk)
		(void)winlist_feed(b, (const char *)data + i,
				   size - i < chunk ? size - i : chunk);
	(void)winlist_end(b);
	check(b);
	winlist_get_stats(a, &sa);
	winlist_get_stats(b, &sb);
	if (sa.windows != sb.windows || sa.lines != sb.lines ||
	    winlist_n_viewports(a) != winlist_n_viewports(b))
		abort();
	winlist_free(a);
	winlist_free(b);
	return 0;
}
