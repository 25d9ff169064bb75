/*
 * Reader of recorded getevent output.  The log is parsed in one pass over
 * its bytes: device headers, `-p` capability blocks and event lines of
 * every device.  Events are kept in an array together with the device
 * they came from; once the whole log is known, one device is chosen and
 * the array is cut down to its events, which input_getevent_next() hands out in
 * log order.  The text itself is not kept.
 *
 * Decisions worth knowing:
 *
 * - A line whose type or code label is not in the tables below is skipped
 *   and counted (in skipped and in unknown).  Without a code the event
 *   cannot be replayed, and dropping one unknown key line leaves the frame
 *   structure intact.  The tables hold every SYN and ABS name, so the lines
 *   a touch tracker needs are never lost to a missing label.
 * - Timestamps must be getevent's "[%8ld.%06ld]": six digits after the
 *   point, seconds at most 2^32 - 1.  A line with any other stamp is
 *   skipped.
 * - A log with event lines but not one timestamp is refused.  In a
 *   timestamped log, event lines without a stamp are skipped and counted.
 * - Without an explicit device the touch screen is the device that emits
 *   the most multitouch events (positions, tracking ids, slots), or whose
 *   `-p` block lists ABS_MT_POSITION_X.  A device whose name contains
 *   "uinput" (a virtual device such as Xiaomi's touch_uinput, which mirrors
 *   the real screen) is chosen only when no other device qualifies.  Ties
 *   go to INPUT_PROP_DIRECT, then to the device seen first.  A log without
 *   device prefixes is one unnamed stream, chosen when it emits multitouch
 *   events or at least SYN events.
 * - A log that has unprefixed events and exactly one "add device" header
 *   (as `getevent -p DEV` followed by `getevent -lt DEV` writes) treats
 *   the two as one device: its path, name and axis ranges are the
 *   header's.
 * - An empty log, or one with headers only, gives no events and is not an
 *   error.
 * - The file is read once, 64 KiB at a time, so a pipe reads like a file
 *   and the device is chosen from the whole log either way; a regular
 *   file is read in place from a mapping (filemap.h), the same chunks
 *   without the copy through read().  Only the
 *   line being read is held: one over GETEVENT_LINE_MAX is dropped as it
 *   arrives, counted, and warned about once.  What grows is the events
 *   array, about 17 bytes per event line of the log, within the 1 GiB
 *   limit on the log.
 * - A file without one getevent line in its first 64 MiB (/dev/zero, a
 *   binary file, an endless line) is refused rather than read to the end.
 */
#include "input_getevent.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filemap.h"
#include "input_getevent_int.h"
#include "input_getevent_line.h"
#include "log.h"

#define GETEVENT_FILE_MAX ((size_t)1 << 30)
/* The file is read this much at a time. */
#define GETEVENT_CHUNK ((size_t)64 << 10)
/* A log with not one getevent line in this much is refused. */
#define GETEVENT_NOLINE_MAX ((size_t)64 << 20)
/* Phones have a dozen or two input devices; more is a hostile log. */

static int
is_uinput(const struct input_getevent_dev *d)
{
	return d->has_name && strcasestr(d->name, "uinput") != NULL;
}

static int
is_touch(const struct input_getevent_dev *d)
{
	return d->mt_events > 0 || ((d->axis_set >> ABS_MT_POSITION_X) & 1);
}

/* Is a a better touch screen than b? */
static int
better(const struct input_getevent_dev *a, const struct input_getevent_dev *b)
{
	if (is_uinput(a) != is_uinput(b))
		return !is_uinput(a);
	if (a->mt_events != b->mt_events)
		return a->mt_events > b->mt_events;
	return ((a->props >> INPUT_PROP_DIRECT) & 1) >
	       ((b->props >> INPUT_PROP_DIRECT) & 1);
}

/*
 * Unprefixed events with a single "add device" header are one device:
 * `getevent -p DEV` then `getevent -lt DEV`.
 */
static void
merge_unnamed(struct input_getevent *g)
{
	struct input_getevent_dev *u, *d;
	int iu, id;
	size_t i;

	iu = input_getevent_line_find_dev(g, "");
	if (iu < 0 || g->ndevs != 2)
		return;
	id = iu == 0 ? 1 : 0;
	u = &g->devs[iu];
	d = &g->devs[id];
	if (d->events > 0)
		return;
	d->events = u->events;
	d->mt_events = u->mt_events;
	d->syn_events = u->syn_events;
	d->backwards = u->backwards;
	d->last_ns = u->last_ns;
	d->back_at = u->back_at;
	d->back = u->back;
	u->gone = 1;
	for (i = 0; i < g->nev; i++)
		if (g->ev_dev[i] == iu)
			g->ev_dev[i] = (uint8_t)id;
}

static int
choose(struct input_getevent *g, const char *device)
{
	int best = -1, unnamed = -1;
	unsigned i;

	if (device != NULL) {
		for (i = 0; i < g->ndevs; i++)
			if (!g->devs[i].gone &&
			    strcmp(g->devs[i].path, device) == 0 && *device)
				best = (int)i;
		if (best < 0) {
			log_warnx("cannot replay '%s': device '%s' is not in "
				  "the log%s",
				  g->name, device,
				  g->ndevs == 1 && g->devs[0].path[0] == '\0'
					  ? " (its events name no device; "
					    "leave the device out)"
					  : "");
			return -ENODEV;
		}
		g->chosen = best;
		return 0;
	}
	for (i = 0; i < g->ndevs; i++) {
		if (g->devs[i].gone)
			continue;
		if (g->devs[i].path[0] == '\0')
			unnamed = (int)i;
		if (is_touch(&g->devs[i]) &&
		    (best < 0 || better(&g->devs[i], &g->devs[best])))
			best = (int)i;
	}
	if (best < 0 && unnamed >= 0 && g->devs[unnamed].syn_events > 0)
		best = unnamed;
	if (best < 0 && g->timed > 0) {
		log_warnx("cannot replay '%s': none of its %u devices is a "
			  "touch screen (no multitouch events)",
			  g->name, g->st.devices);
		return -ENODEV;
	}
	g->chosen = best;
	return 0;
}

/*
 * Keeps the chosen device's events only, in log order, up to the first
 * one whose time went back.
 */
static void
keep_chosen(struct input_getevent *g)
{
	const struct input_getevent_dev *d;
	struct touch_event *nev;
	size_t i, n = 0, end = g->nev;

	if (g->chosen >= 0) {
		d = &g->devs[g->chosen];
		if (d->backwards > 0) {
			g->have_jump = 1;
			g->jump = d->back;
			end = d->back_at;
		}
	}
	for (i = 0; i < end; i++)
		if (g->chosen >= 0 && g->ev_dev[i] == g->chosen)
			g->ev[n++] = g->ev[i];
	g->nev = n;
	free(g->ev_dev);
	g->ev_dev = NULL;
	if (n == 0) {
		free(g->ev);
		g->ev = NULL;
	} else if (n < g->cap) {
		/* Giving memory back may fail; the larger block still works. */
		nev = realloc(g->ev, n * sizeof(*g->ev));
		if (nev != NULL)
			g->ev = nev;
	}
	g->cap = n;
}

static int
reader_new(const char *name, struct input_getevent **out)
{
	struct input_getevent *g;

	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	g->chosen = -1;
	g->cur_dev = -1;
	g->last_dev = -1;
	g->cap_type = -1;
	g->name = strdup(name);
	if (g->name == NULL) {
		free(g);
		return -ENOMEM;
	}
	*out = g;
	return 0;
}

/* Once the whole log is read: chooses the device and keeps its events. */
static int
finish(struct input_getevent *g, const char *device)
{
	unsigned i;
	int r;

	free(g->part);
	g->part = NULL;
	if (g->st.too_long > 0)
		log_warnx("'%s': %llu lines longer than %d bytes skipped",
			  g->name, (unsigned long long)g->st.too_long,
			  GETEVENT_LINE_MAX);
	if (g->timed == 0 && g->st.untimed > 0) {
		log_warnx("cannot replay '%s': the log has no timestamps; "
			  "record it with 'getevent -lt'",
			  g->name);
		return -EINVAL;
	}
	merge_unnamed(g);
	for (i = 0; i < g->ndevs; i++)
		if (!g->devs[i].gone)
			g->st.devices++;
	r = choose(g, device);
	if (r < 0)
		return r;
	if (g->chosen >= 0) {
		g->st.other_events = g->timed - g->devs[g->chosen].events;
		g->st.backwards = g->devs[g->chosen].backwards;
	} else {
		g->st.other_events = g->timed;
	}
	keep_chosen(g);
	/* After a jump back, the events that are replayed. */
	g->st.events = g->nev;
	log_debug("replaying '%s' from '%s': %llu events, %llu lines "
		  "skipped",
		  input_getevent_device(g), g->name,
		  (unsigned long long)g->st.events,
		  (unsigned long long)g->st.skipped);
	return 0;
}

int
input_getevent_open_mem(const char *buf, size_t len, const char *name,
			const char *device, struct input_getevent **out)
{
	struct input_getevent *g;
	int r;

	if ((buf == NULL && len > 0) || out == NULL)
		return -EINVAL;
	if (name == NULL)
		name = "(buffer)";
	if (len > GETEVENT_FILE_MAX) {
		log_warnx("cannot replay '%s': the log is larger than %zu MiB",
			  name, GETEVENT_FILE_MAX >> 20);
		return -EFBIG;
	}
	r = reader_new(name, &g);
	if (r < 0)
		return r;
	r = input_getevent_line_parse(g, buf ? buf : "", len);
	if (r < 0)
		log_warnx("cannot replay '%s': out of memory", name);
	else
		r = finish(g, device);
	if (r < 0) {
		input_getevent_free(g);
		return r;
	}
	*out = g;
	return 0;
}

/*
 * Feeds the next chunk of the log to the line reader, checking its size
 * and, for a file that is not a getevent log, that a line came early
 * enough.
 */
static int
feed_chunk(struct input_getevent *g, const char *buf, size_t n, uint64_t *total,
	   const char *path)
{
	int r;

	*total += (uint64_t)n;
	if (*total > GETEVENT_FILE_MAX) {
		log_warnx("cannot replay '%s': the log is larger than %zu MiB",
			  path, GETEVENT_FILE_MAX >> 20);
		return -EFBIG;
	}
	r = input_getevent_line_feed(g, buf, n);
	if (r < 0) {
		log_warnx("cannot replay '%s': out of memory", path);
		return r;
	}
	/*
	 * /dev/zero, or any file that is not a getevent log, would otherwise
	 * be read for a long while to no end.
	 */
	if (*total >= GETEVENT_NOLINE_MAX && g->parsed == 0) {
		log_warnx("cannot replay '%s': not one getevent line in its "
			  "first %zu MiB",
			  path, GETEVENT_NOLINE_MAX >> 20);
		return -EINVAL;
	}
	return 0;
}

/*
 * A regular file is read in place from its mapping (filemap.h), a chunk
 * at a time as read_file() would, without copying it through read().
 */
static int
read_mapped(struct input_getevent *g, struct filemap *m, const char *path)
{
	const char *data = (const char *)filemap_data(m);
	size_t off, n, len = filemap_len(m);
	uint64_t total = 0;
	int r = 0;

	for (off = 0; off < len && r == 0; off += n) {
		n = len - off < GETEVENT_CHUNK ? len - off : GETEVENT_CHUNK;
		r = feed_chunk(g, data + off, n, &total, path);
		filemap_done(m, off + n);
	}
	if (r == 0)
		r = input_getevent_line_end(g);
	return r;
}

/*
 * Reads the file in chunks into g.  Only the line being read is held, so
 * memory does not grow with the text: it grows with the events kept.
 */
static int
read_file(struct input_getevent *g, int fd, const char *path)
{
	struct filemap *m = NULL;
	uint64_t total = 0;
	char *buf;
	ssize_t n;
	int r = 0;

	if (filemap_open(fd, GETEVENT_FILE_MAX, &m) == 0) {
		r = read_mapped(g, m, path);
		filemap_free(m);
		return r;
	}
	buf = malloc(GETEVENT_CHUNK);
	if (buf == NULL)
		return -ENOMEM;
	for (;;) {
		n = read(fd, buf, GETEVENT_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			log_warn("cannot read '%s'", path);
			break;
		}
		if (n == 0)
			break;
		r = feed_chunk(g, buf, (size_t)n, &total, path);
		if (r < 0)
			break;
	}
	free(buf);
	if (r == 0)
		r = input_getevent_line_end(g);
	return r;
}

int
input_getevent_open(const char *path, const char *device,
		    struct input_getevent **out)
{
	struct input_getevent *g = NULL;
	struct stat sb;
	int fd, r;

	if (path == NULL || out == NULL)
		return -EINVAL;
	/* A replay without its input ends: these are errors, not warnings. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		log_error("cannot open '%s': %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &sb) < 0) {
		r = -errno;
		log_error("cannot stat '%s': %s", path, strerror(-r));
		goto out;
	}
	if (S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size > GETEVENT_FILE_MAX) {
		log_error("cannot replay '%s': the log is larger than %zu MiB",
			  path, GETEVENT_FILE_MAX >> 20);
		r = -EFBIG;
		goto out;
	}
	r = reader_new(path, &g);
	if (r < 0)
		goto out;
	r = read_file(g, fd, path);
	if (r == 0)
		r = finish(g, device);
	if (r == 0) {
		*out = g;
		g = NULL;
	}
out:
	input_getevent_free(g);
	close(fd);
	return r;
}

void
input_getevent_free(struct input_getevent *g)
{
	if (g == NULL)
		return;
	free(g->ev);
	free(g->ev_dev);
	free(g->name);
	free(g->part);
	free(g);
}

/* Seconds and microseconds, as getevent writes its stamps. */
#define STAMP(ns)                                                              \
	(long long)((ns) / 1000000000), (long)((ns) % 1000000000 / 1000)

int
input_getevent_next(struct input_getevent *g, struct touch_event *ev)
{
	int64_t back;

	if (g->pos < g->nev) {
		*ev = g->ev[g->pos++];
		return 1;
	}
	if (!g->have_jump || g->jump_told)
		return 0;
	g->jump_told = 1;
	back = g->jump.from_ns - g->jump.to_ns;
	log_error("'%s' line %llu: time goes back %lld.%06ld s (from "
		  "%lld.%06ld to %lld.%06ld); the rest of the log is not "
		  "replayed",
		  g->name, (unsigned long long)g->jump.line, STAMP(back),
		  STAMP(g->jump.from_ns), STAMP(g->jump.to_ns));
	return -ERANGE;
}

int
input_getevent_get_jump(const struct input_getevent *g,
			struct input_getevent_jump *j)
{
	if (!g->have_jump)
		return -ENOENT;
	*j = g->jump;
	return 0;
}

int
input_getevent_time_range(const struct input_getevent *g, int64_t *first,
			  int64_t *last)
{
	size_t i;

	if (g->nev == 0)
		return -ENOENT;
	/* Kept events never go back; the extremes are checked anyway. */
	*first = *last = g->ev[0].time_ns;
	for (i = 1; i < g->nev; i++) {
		if (g->ev[i].time_ns < *first)
			*first = g->ev[i].time_ns;
		if (g->ev[i].time_ns > *last)
			*last = g->ev[i].time_ns;
	}
	return 0;
}

int
input_getevent_get_axis(const struct input_getevent *g, uint16_t code,
			struct input_getevent_axis *axis)
{
	const struct input_getevent_dev *d;

	if (g->chosen < 0 || code >= ABS_CNT)
		return -ENOENT;
	d = &g->devs[g->chosen];
	if (!((d->axis_set >> code) & 1))
		return -ENOENT;
	*axis = d->axes[code];
	return 0;
}

const char *
input_getevent_device(const struct input_getevent *g)
{
	return g->chosen < 0 ? "" : g->devs[g->chosen].path;
}

const char *
input_getevent_device_name(const struct input_getevent *g)
{
	if (g->chosen < 0 || !g->devs[g->chosen].has_name)
		return NULL;
	return g->devs[g->chosen].name;
}

void
input_getevent_get_stats(const struct input_getevent *g,
			 struct input_getevent_stats *st)
{
	*st = g->st;
}
