/*
 * Device discovery and hotplug of the libevdev source: the scan of the
 * directory, its inotify watch (or the poll for it while it is missing),
 * and the retries of nodes that could not be opened yet.
 */
#include "input_evdev_scan.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "input_evdev_clone.h"
#include "input_evdev_health.h"
#include "input_evdev_open.h"
#include "log.h"

/* "event12" gives 0 and 12; anything else -EINVAL. */
static int
evdev_node_number(const char *name, unsigned *num)
{
	unsigned long long v;
	char *end;

	if (strncmp(name, "event", 5) != 0)
		return -EINVAL;
	name += 5;
	if (*name < '0' || *name > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(name, &end, 10);
	if (errno != 0 || *end != '\0' || v > EVDEV_NUMBER_MAX)
		return -EINVAL;
	*num = (unsigned)v;
	return 0;
}

/* Whether a node name in dir is one this source considers. */
static int
evdev_wanted(const struct input_evdev *ie, const char *name)
{
	unsigned num;

	if (ie->only[0] != '\0')
		return strcmp(name, ie->only) == 0;
	return evdev_node_number(name, &num) == 0;
}

static void
evdev_pending_remove(struct input_evdev *ie, unsigned i)
{
	ie->npending--;
	if (i < ie->npending)
		ie->pending[i] = ie->pending[ie->npending];
}

static void
evdev_pending_forget(struct input_evdev *ie, const char *name)
{
	unsigned i;

	for (i = 0; i < ie->npending; i++) {
		if (strcmp(ie->pending[i].name, name) == 0) {
			evdev_pending_remove(ie, i);
			return;
		}
	}
}

/* Remembers a node to retry; one already waiting keeps its first time. */
static void
evdev_pending_add(struct input_evdev *ie, const char *name, int64_t now)
{
	struct evdev_pending *p;
	unsigned i;

	for (i = 0; i < ie->npending; i++) {
		if (strcmp(ie->pending[i].name, name) == 0)
			return;
	}
	if (ie->npending == EVDEV_PENDING_MAX) {
		log_warnx("cannot retry '%s/%s': %u nodes already waiting",
			  ie->dir, name, ie->npending);
		ie->st.open_failures++;
		return;
	}
	if (ie->npending == 0)
		ie->retry_at = now + EVDEV_RETRY_EVERY_NS;
	p = &ie->pending[ie->npending++];
	(void)snprintf(p->name, sizeof(p->name), "%s", name);
	p->first_ns = now;
}

/* Tries one node as a candidate, queueing it for retries if that may help. */
static int
evdev_consider(struct input_evdev *ie, const char *name, int64_t now)
{
	int r, retry;

	r = input_evdev_open_try(ie, name, &retry);
	if (r < 0 && retry)
		evdev_pending_add(ie, name, now);
	return r;
}

static int
evdev_cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* Looks for a device when there is none: the given node or every eventN. */
void
input_evdev_scan(struct input_evdev *ie, int64_t now)
{
	unsigned *nums = NULL;
	unsigned n = 0, i, num, skipped = 0;
	char name[32];
	int err;
	struct dirent *de;
	DIR *d = NULL;

	ie->need_scan = 0;
	if (ie->dev != NULL)
		return;
	if (ie->only[0] != '\0') {
		(void)evdev_consider(ie, ie->only, now);
		goto out;
	}
	/* Every node is tried again: each tells its own story anew. */
	input_evdev_health_denied_clear(ie, NULL);
	d = opendir(ie->dir);
	if (d == NULL) {
		if (errno != ENOENT) {
			err = errno;
			log_warn("cannot scan '%s'", ie->dir);
			(void)snprintf(ie->denied, sizeof(ie->denied),
				       "cannot read '%s': %s", ie->dir,
				       strerror(err));
		}
		goto out;
	}
	nums = calloc(EVDEV_NODES_MAX, sizeof(*nums));
	if (nums == NULL) {
		log_warnx("cannot scan '%s': out of memory", ie->dir);
		goto out;
	}
	while ((de = readdir(d)) != NULL) {
		if (evdev_node_number(de->d_name, &num) != 0)
			continue;
		if (n == EVDEV_NODES_MAX) {
			skipped++;
			continue;
		}
		nums[n++] = num;
	}
	if (skipped > 0)
		log_warnx("cannot consider every node of '%s': %u over %d",
			  ie->dir, skipped, EVDEV_NODES_MAX);
	/* The lowest number first, so the choice does not depend on readdir. */
	qsort(nums, n, sizeof(*nums), evdev_cmp_unsigned);
	for (i = 0; i < n && ie->dev == NULL; i++) {
		(void)snprintf(name, sizeof(name), "event%u", nums[i]);
		(void)evdev_consider(ie, name, now);
	}
out:
	if (ie->dev == NULL) {
		if (ie->only[0] == '\0')
			log_debug("no touch screen under '%s'", ie->dir);
		input_evdev_health_down(ie);
	}
	free(nums);
	if (d != NULL)
		closedir(d);
}

void
input_evdev_scan_watch(struct input_evdev *ie)
{
	int err;

	if (ie->ifd < 0 || ie->wd >= 0)
		return;
	ie->wd = inotify_add_watch(ie->ifd, ie->dir, EVDEV_WATCH_MASK);
	if (ie->wd >= 0) {
		if (ie->watch_err != 0)
			log_info("watching '%s' again", ie->dir);
		ie->watch_err = 0;
		return;
	}
	err = errno;
	if (err != ie->watch_err) {
		if (err == ENOENT)
			log_info("cannot watch '%s': %s; polling for it",
				 ie->dir, strerror(err));
		else
			log_warnx("cannot watch '%s': %s; polling instead",
				  ie->dir, strerror(err));
	}
	ie->watch_err = err;
}

void
input_evdev_scan_inotify(struct input_evdev *ie, int64_t now)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	unsigned num;
	ssize_t n;
	size_t off;

	for (;;) {
		n = read(ie->ifd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno != EAGAIN)
				log_warn("cannot read the watch of '%s'",
					 ie->dir);
			return;
		}
		if (n == 0)
			return;
		for (off = 0; off + sizeof(*ev) <= (size_t)n;
		     off += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(buf + off);
			if (off + sizeof(*ev) + ev->len > (size_t)n)
				break;
			if (ev->mask & IN_Q_OVERFLOW) {
				ie->need_scan = 1;
				continue;
			}
			if (ev->wd != ie->wd || ie->wd < 0)
				continue;
			if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF |
					IN_IGNORED | IN_UNMOUNT)) {
				/* The directory went away: poll for it. */
				if (!(ev->mask & IN_IGNORED))
					(void)inotify_rm_watch(ie->ifd, ie->wd);
				ie->wd = -1;
				ie->watch_err = 0;
				ie->poll_at = now + EVDEV_POLL_EVERY_NS;
				log_info("'%s' went away", ie->dir);
				continue;
			}
			/*
			 * A node new while the screen is open may be tapd's
			 * clone of it, whatever the source was told to read.
			 */
			if (ev->len > 0 && ie->dev != NULL &&
			    ie->cdev == NULL &&
			    !(ev->mask & (IN_DELETE | IN_MOVED_FROM)) &&
			    evdev_node_number(ev->name, &num) == 0)
				(void)input_evdev_clone_try(ie, ev->name);
			if (ev->len == 0 || !evdev_wanted(ie, ev->name))
				continue;
			if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
				evdev_pending_forget(ie, ev->name);
				input_evdev_health_denied_clear(ie, ev->name);
				continue;
			}
			/* New, renamed here, or its permissions changed. */
			if (ie->dev == NULL)
				(void)evdev_consider(ie, ev->name, now);
		}
	}
}

/* Retries the nodes that could not be opened yet, giving up after 2 s. */
static void
evdev_retry(struct input_evdev *ie, int64_t now)
{
	struct evdev_pending p;
	unsigned i = 0;
	int r, retry;

	while (i < ie->npending && ie->dev == NULL) {
		p = ie->pending[i];
		r = input_evdev_open_try(ie, p.name, &retry);
		if (r == 0)
			break;
		if (retry && now - p.first_ns < EVDEV_RETRY_FOR_NS) {
			i++;
			continue;
		}
		if (retry) {
			log_warnx("cannot open '%s/%s': %s (gave up after "
				  "%lld ms)",
				  ie->dir, p.name, strerror(-r),
				  (long long)((now - p.first_ns) / EVDEV_MS));
			ie->st.open_failures++;
		}
		evdev_pending_remove(ie, i);
	}
	if (ie->dev != NULL)
		ie->npending = 0;
	ie->retry_at = now + EVDEV_RETRY_EVERY_NS;
	if (ie->dev == NULL)
		input_evdev_health_down(ie);
}

void
input_evdev_scan_timer(struct input_evdev *ie, int64_t now)
{
	uint64_t ticks;

	/* Only to clear its readiness: the deadlines say what is due. */
	(void)!read(ie->tfd, &ticks, sizeof(ticks));
	if (ie->dev != NULL)
		return;
	if (ie->wd < 0 && now >= ie->poll_at) {
		input_evdev_scan_watch(ie);
		/* Nodes made before the watch existed were not announced. */
		ie->need_scan = 1;
		ie->poll_at = now + EVDEV_POLL_EVERY_NS;
	}
	if (ie->npending > 0 && now >= ie->retry_at)
		evdev_retry(ie, now);
	if (ie->rescan_at != 0 && now >= ie->rescan_at) {
		ie->rescan_at = 0;
		ie->need_scan = 1;
	}
}
