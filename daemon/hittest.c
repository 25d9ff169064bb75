#include "hittest.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* The viewport's sizes in the panel's natural orientation. */
struct natural {
	double logical_w, logical_h;
	double physical_w, physical_h;
	double physical_left, physical_top;
	double device_w, device_h;
};

/*
 * The natural sizes of a viewport, as Android 9's
 * TouchInputMapper::configureSurface takes them: a display turned by 90
 * or 270 degrees has its width and height swapped back.
 */
static void
natural_of(const struct winlist_viewport *vp, struct natural *n)
{
	const struct winlist_rect *l = &vp->logical, *p = &vp->physical;
	int turned = vp->orientation == WINLIST_ROT_90 ||
		     vp->orientation == WINLIST_ROT_270;

	n->logical_w = turned ? l->bottom - l->top : l->right - l->left;
	n->logical_h = turned ? l->right - l->left : l->bottom - l->top;
	n->physical_w = turned ? p->bottom - p->top : p->right - p->left;
	n->physical_h = turned ? p->right - p->left : p->bottom - p->top;
	n->device_w = turned ? vp->device_height : vp->device_width;
	n->device_h = turned ? vp->device_width : vp->device_height;
	switch (vp->orientation) {
	case WINLIST_ROT_90:
		n->physical_left = vp->device_height - p->bottom;
		n->physical_top = p->left;
		break;
	case WINLIST_ROT_180:
		n->physical_left = vp->device_width - p->right;
		n->physical_top = vp->device_height - p->bottom;
		break;
	case WINLIST_ROT_270:
		n->physical_left = p->top;
		n->physical_top = vp->device_width - p->right;
		break;
	case WINLIST_ROT_0:
	default:
		n->physical_left = p->left;
		n->physical_top = p->top;
		break;
	}
}

int
hittest_map(const struct winlist_viewport *vp, const struct hittest_axes *axes,
	    int32_t raw_x, int32_t raw_y, double *x, double *y)
{
	double raw_w, raw_h, surf_w, surf_h, xs, ys, xt, yt;
	double rx = raw_x, ry = raw_y;
	struct natural n;

	raw_w = (double)axes->x_max - axes->x_min + 1;
	raw_h = (double)axes->y_max - axes->y_min + 1;
	if (raw_w <= 0 || raw_h <= 0)
		return -EINVAL;
	natural_of(vp, &n);
	if (n.logical_w <= 0 || n.logical_h <= 0 || n.physical_w <= 0 ||
	    n.physical_h <= 0 || n.device_w <= 0 || n.device_h <= 0)
		return -EINVAL;
	/*
	 * The panel covers the whole device; the logical display is the
	 * physical frame inside it, scaled to the logical size.
	 */
	surf_w = n.logical_w * n.device_w / n.physical_w;
	surf_h = n.logical_h * n.device_h / n.physical_h;
	xt = -(n.physical_left * n.logical_w / n.physical_w);
	yt = -(n.physical_top * n.logical_h / n.physical_h);
	xs = surf_w / raw_w;
	ys = surf_h / raw_h;
	/* cookPointerData's four cases, translations where it has them. */
	switch (vp->orientation) {
	case WINLIST_ROT_90:
		*x = (ry - axes->y_min) * ys + yt;
		*y = ((double)axes->x_max - rx) * xs + xt;
		break;
	case WINLIST_ROT_180:
		*x = ((double)axes->x_max - rx) * xs;
		*y = ((double)axes->y_max - ry) * ys + yt;
		break;
	case WINLIST_ROT_270:
		*x = ((double)axes->y_max - ry) * ys;
		*y = (rx - axes->x_min) * xs + xt;
		break;
	case WINLIST_ROT_0:
	default:
		*x = (rx - axes->x_min) * xs + xt;
		*y = (ry - axes->y_min) * ys + yt;
		break;
	}
	*x += vp->logical.left;
	*y += vp->logical.top;
	return 0;
}

static int
rect_has(const struct winlist_rect *r, int64_t x, int64_t y)
{
	return x >= r->left && x < r->right && y >= r->top && y < r->bottom;
}

static int
region_has(const struct winlist_window *w, int64_t x, int64_t y)
{
	size_t i;

	for (i = 0; i < w->n_touchable; i++)
		if (rect_has(&w->touchable[i], x, y))
			return 1;
	return 0;
}

int
hittest_find(const struct winlist *wl, int32_t display_id, double x, double y,
	     unsigned opts, struct hittest_result *res)
{
	const struct winlist_display *d;
	const struct winlist_window *w;
	int64_t ix, iy;
	size_t i;

	memset(res, 0, sizeof(*res));
	res->x = x;
	res->y = y;
	if (!isfinite(x) || !isfinite(y) || fabs(x) > 2e9 || fabs(y) > 2e9)
		return -EINVAL;
	if (!(d = winlist_find_display(wl, display_id))) {
		res->how = HITTEST_NO_DISPLAY;
		return 0;
	}
	/* The dispatcher casts the float coordinates to int32_t. */
	ix = (int64_t)x;
	iy = (int64_t)y;
	for (i = 0; (w = winlist_window(wl, d, i)) != NULL; i++) {
		if (w->config & WINLIST_NOT_VISIBLE) {
			res->skipped_invisible++;
			continue;
		}
		if (w->config & WINLIST_NOT_TOUCHABLE) {
			res->skipped_untouchable++;
			continue;
		}
		if (w->config & WINLIST_SPY) {
			res->skipped_spy++;
			continue;
		}
		if ((opts & HITTEST_SKIP_TRUSTED) &&
		    (w->config & WINLIST_TRUSTED_OVERLAY)) {
			res->skipped_trusted++;
			continue;
		}
		if (region_has(w, ix, iy)) {
			res->how = HITTEST_REGION;
		} else if (w->config & WINLIST_TOUCH_MODAL) {
			res->how = HITTEST_MODAL;
		} else {
			res->skipped_outside++;
			continue;
		}
		res->window = w;
		res->index = i;
		return 0;
	}
	res->how = HITTEST_NONE;
	return 0;
}

int
hittest_touch(const struct winlist *wl, int32_t display_id,
	      const struct hittest_axes *axes, int32_t raw_x, int32_t raw_y,
	      unsigned opts, struct hittest_result *res)
{
	const struct winlist_viewport *vp =
		winlist_find_viewport(wl, display_id);
	const struct winlist_display *d = winlist_find_display(wl, display_id);
	struct winlist_viewport flat;
	enum hittest_map map = HITTEST_MAP_VIEWPORT;
	double x, y;
	int r;

	memset(res, 0, sizeof(*res));
	if (!vp && d && d->logical_width > 0 && d->logical_height > 0) {
		/* No viewport: the dispatcher's size, unrotated. */
		memset(&flat, 0, sizeof(flat));
		flat.display_id = display_id;
		flat.logical.right = d->logical_width;
		flat.logical.bottom = d->logical_height;
		flat.physical = flat.logical;
		flat.device_width = d->logical_width;
		flat.device_height = d->logical_height;
		vp = &flat;
		map = HITTEST_MAP_LOGICAL;
	}
	if (!vp) {
		res->how = HITTEST_NO_DISPLAY;
		return -ENOENT;
	}
	if ((r = hittest_map(vp, axes, raw_x, raw_y, &x, &y)) < 0)
		return r;
	if ((r = hittest_find(wl, display_id, x, y, opts, res)) < 0)
		return r;
	res->map = map;
	return 0;
}

const char *
hittest_how_name(enum hittest_how how)
{
	switch (how) {
	case HITTEST_REGION:
		return "region";
	case HITTEST_MODAL:
		return "modal";
	case HITTEST_NO_DISPLAY:
		return "no-display";
	case HITTEST_NONE:
	default:
		return "none";
	}
}
