/* Part 4 of the --latency reader: replay of a recorded latency/ directory. */
#include "frames_latency_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frames_latency_int.h"
#include "log.h"

#define LAYER_HEADER "# layer: "

enum dir_kind {
	/* Sorted first: a cycle lists the layers before it queries them. */
	DIR_LIST = 0,
	DIR_SNAPSHOT = 1,
};

struct dir_entry {
	int64_t capture;
	int64_t n;
	enum dir_kind kind;
	char *name;
};

struct frames_latency_dir {
	char *path;
	struct dir_entry *entries;
	size_t nentries;
	size_t next;
	struct frames_latency_tracker *trackers[LATENCY_DIR_TRACKERS_MAX];
	uint64_t used[LATENCY_DIR_TRACKERS_MAX];
	size_t ntrackers;
	uint64_t cycle;
	int64_t wm;
	int64_t coverage;
	struct frames_latency_list *list;
	struct frames_latency_stats st;
	/* Where a layer went back: the replay of the directory ends there. */
	int have_jump;
	struct frames_latency_jump jump;
	char *jump_file;
	char *jump_layer;
};

/*
 * Reads "<capture>-<n>.txt" or "<capture>.list".  Returns 0 and fills the
 * entry's numbers and kind, or -EINVAL.
 */
static int
parse_entry_name(const char *name, struct dir_entry *e)
{
	size_t i = 0, j;

	while (frames_latency_is_digit(name[i]))
		i++;
	if (i == 0 || i > 19 ||
	    frames_latency_parse_i64(name, i, 0, INT64_MAX, &e->capture))
		return -EINVAL;
	if (strcmp(name + i, ".list") == 0) {
		e->kind = DIR_LIST;
		e->n = 0;
		return 0;
	}
	if (name[i] != '-')
		return -EINVAL;
	j = i + 1;
	while (frames_latency_is_digit(name[j]))
		j++;
	if (j == i + 1 || j - i - 1 > 6 ||
	    frames_latency_parse_i64(name + i + 1, j - i - 1, 0, 999999, &e->n))
		return -EINVAL;
	if (strcmp(name + j, ".txt") != 0)
		return -EINVAL;
	e->kind = DIR_SNAPSHOT;
	return 0;
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct dir_entry *x = a, *y = b;

	if (x->capture != y->capture)
		return x->capture < y->capture ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

int
frames_latency_dir_open(const char *path, struct frames_latency_dir **out)
{
	struct frames_latency_dir *d = NULL;
	struct dir_entry e, *grown;
	struct dirent *de;
	DIR *dir = NULL;
	size_t cap = 0;
	int rc = -ENOMEM;

	d = calloc(1, sizeof(*d));
	if (!d)
		goto out;
	d->wm = INT64_MIN;
	d->coverage = INT64_MAX;
	d->path = strdup(path);
	if (!d->path)
		goto out;
	dir = opendir(path);
	if (!dir) {
		rc = -errno;
		log_warn("cannot open latency directory '%s'", path);
		goto out;
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno != 0) {
				rc = -errno;
				log_warn("cannot read latency directory '%s'",
					 path);
				goto out;
			}
			break;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (parse_entry_name(de->d_name, &e) < 0 ||
		    d->nentries >= LATENCY_DIR_FILES_MAX) {
			log_debug("skipping '%s/%s': not a recorded snapshot",
				  path, de->d_name);
			d->st.files_skipped++;
			continue;
		}
		if (d->nentries == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(d->entries, cap * sizeof(*grown));
			if (!grown)
				goto out;
			d->entries = grown;
		}
		e.name = strdup(de->d_name);
		if (!e.name)
			goto out;
		d->entries[d->nentries++] = e;
	}
	if (d->nentries > 0) {
		qsort(d->entries, d->nentries, sizeof(*d->entries), cmp_entry);
		d->coverage = d->entries[0].capture;
	}
	*out = d;
	d = NULL;
	rc = 0;
out:
	if (dir)
		closedir(dir);
	frames_latency_dir_free(d);
	return rc;
}

void
frames_latency_dir_free(struct frames_latency_dir *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nentries; i++)
		free(d->entries[i].name);
	free(d->entries);
	for (i = 0; i < d->ntrackers; i++)
		frames_latency_tracker_free(d->trackers[i]);
	frames_latency_list_free(d->list);
	free(d->jump_file);
	free(d->jump_layer);
	free(d->path);
	free(d);
}

/*
 * Reads the regular file dir/name, at most max bytes, into a new
 * NUL-terminated buffer.  Returns 0, or a negative errno (-EFBIG when it
 * is larger than max, -EINVAL when it is not a regular file).
 */
static int
read_file(const char *dir, const char *name, size_t max, char **out,
	  size_t *outlen)
{
	char path[PATH_MAX];
	struct stat sb;
	char *buf = NULL;
	size_t len = 0;
	ssize_t r;
	int fd = -1, n, rc;

	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0) {
		rc = -errno;
		goto out;
	}
	rc = -EINVAL;
	if (!S_ISREG(sb.st_mode))
		goto out;
	rc = -EFBIG;
	if (sb.st_size < 0 || (uint64_t)sb.st_size > max)
		goto out;
	rc = -ENOMEM;
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf)
		goto out;
	/* A file that grows while read is cut at the size fstat() gave. */
	while (len < (size_t)sb.st_size) {
		r = read(fd, buf + len, (size_t)sb.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	close(fd);
	return rc;
}

/*
 * Splits a recorded snapshot into its "# layer: " name (NUL-terminated in
 * place) and the dumpsys output after it.  Returns 0 or -EINVAL.
 */
static int
split_recorded(char *buf, size_t len, const char **layer, const char **body,
	       size_t *blen)
{
	size_t hlen = strlen(LAYER_HEADER), nlen;
	char *nl, *name;

	nl = memchr(buf, '\n', len);
	nlen = nl ? (size_t)(nl - buf) : len;
	if (nlen < hlen || memcmp(buf, LAYER_HEADER, hlen) != 0)
		return -EINVAL;
	name = buf + hlen;
	nlen -= hlen;
	if (nlen > 0 && name[nlen - 1] == '\r')
		nlen--;
	if (nlen == 0 || nlen > LATENCY_NAME_MAX || memchr(name, '\0', nlen))
		return -EINVAL;
	name[nlen] = '\0';
	*layer = name;
	*body = nl ? nl + 1 : buf + len;
	*blen = nl ? len - (size_t)(nl + 1 - buf) : 0;
	return 0;
}

/* The tracker of layer, made (and the stalest one dropped) if needed. */
static int
dir_tracker(struct frames_latency_dir *d, const char *layer,
	    struct frames_latency_tracker **out)
{
	size_t i, victim = 0;
	int rc;

	for (i = 0; i < d->ntrackers; i++) {
		if (strcmp(frames_latency_tracker_layer(d->trackers[i]),
			   layer) == 0) {
			d->used[i] = d->cycle;
			*out = d->trackers[i];
			return 0;
		}
	}
	if (d->ntrackers == LATENCY_DIR_TRACKERS_MAX) {
		for (i = 1; i < d->ntrackers; i++)
			if (d->used[i] < d->used[victim])
				victim = i;
		frames_latency_tracker_free(d->trackers[victim]);
		d->trackers[victim] = d->trackers[--d->ntrackers];
		d->used[victim] = d->used[d->ntrackers];
	}
	rc = frames_latency_tracker_new(layer, &d->trackers[d->ntrackers]);
	if (rc < 0)
		return rc;
	frames_latency_tracker_set_strict(d->trackers[d->ntrackers], 1);
	d->used[d->ntrackers] = d->cycle;
	*out = d->trackers[d->ntrackers++];
	return 0;
}

/* Seconds and microseconds, as the getevent reader writes its jumps. */
#define STAMP(ns)                                                              \
	(long long)((ns) / 1000000000), (long)((ns) % 1000000000 / 1000)

/*
 * A snapshot whose layer went back ends the replay of the directory: the
 * files after it, and the rest of it, are from another recording or out
 * of order.  Returns 0, or -ENOMEM.
 */
static int
dir_jump(struct frames_latency_dir *d, const struct dir_entry *e,
	 const struct frames_latency_tracker *t)
{
	struct frames_latency_jump j;
	int64_t back;

	if (frames_latency_tracker_get_jump(t, &j) < 0)
		return -EPROTO;
	d->jump_file = strdup(e->name);
	d->jump_layer = strdup(j.layer);
	if (!d->jump_file || !d->jump_layer)
		return -ENOMEM;
	d->have_jump = 1;
	d->jump = j;
	d->jump.file = d->jump_file;
	d->jump.layer = d->jump_layer;
	d->jump.until_ns = d->wm;
	d->next = d->nentries;
	back = j.from_ns - j.to_ns;
	log_error("'%s/%s' layer '%s': time goes back %lld.%06ld s (a frame "
		  "presented at %lld.%06ld after frames up to %lld.%06ld); "
		  "the rest of the directory is not replayed",
		  d->path, e->name, d->jump_layer, STAMP(back), STAMP(j.to_ns),
		  STAMP(j.from_ns));
	return 0;
}

/*
 * Replays one recorded snapshot.  Returns 0, setting *fed and *wm to its
 * tracker's watermark unless the file was skipped, or a negative errno.
 */
static int
dir_snapshot(struct frames_latency_dir *d, const struct dir_entry *e, char *buf,
	     size_t len, frames_latency_frame_cb cb, void *ctx, int *fed,
	     int64_t *wm)
{
	struct frames_latency_snapshot *snap = NULL;
	struct frames_latency_tracker *t;
	struct frames_latency_stats before, after;
	const char *layer, *body;
	size_t blen;
	int rc;

	if (split_recorded(buf, len, &layer, &body, &blen) < 0) {
		log_warnx("cannot parse '%s/%s': the first line is not "
			  "'%s<layer name>'",
			  d->path, e->name, LAYER_HEADER);
		d->st.files_skipped++;
		return 0;
	}
	rc = frames_latency_snapshot_parse(body, blen, &snap);
	if (rc < 0)
		return rc;
	rc = dir_tracker(d, layer, &t);
	if (rc < 0)
		goto out;
	d->st.files++;
	frames_latency_tracker_get_stats(t, &before);
	rc = frames_latency_tracker_feed(t, e->capture, snap, cb, ctx);
	frames_latency_tracker_get_stats(t, &after);
	frames_latency_stats_add(&d->st, &after, &before);
	if (rc == -ERANGE) {
		rc = dir_jump(d, e, t);
		goto out;
	}
	*wm = frames_latency_tracker_watermark(t);
	*fed = 1;
out:
	frames_latency_snapshot_free(snap);
	return rc;
}

/* Reads one recorded --list; returns 0 or -ENOMEM. */
static int
dir_list(struct frames_latency_dir *d, const char *buf, size_t len)
{
	struct frames_latency_list *list;
	struct frames_latency_stats st;
	int rc;

	rc = frames_latency_list_parse(buf, len, &list);
	if (rc < 0)
		return rc;
	frames_latency_list_get_stats(list, &st);
	frames_latency_stats_add(&d->st, &st, NULL);
	d->st.files++;
	frames_latency_list_free(d->list);
	d->list = list;
	return 0;
}

int
frames_latency_dir_next(struct frames_latency_dir *d,
			frames_latency_frame_cb cb, void *ctx,
			int64_t *capture_ns)
{
	const struct dir_entry *e;
	int64_t capture, wm, cycle_wm = INT64_MAX;
	char *buf = NULL;
	size_t len, max;
	int rc = 0, fed = 0, fed_one, listed = 0;

	if (d->next >= d->nentries)
		return 0;
	capture = d->entries[d->next].capture;
	d->cycle++;
	while (d->next < d->nentries &&
	       d->entries[d->next].capture == capture) {
		e = &d->entries[d->next++];
		max = e->kind == DIR_LIST ? LATENCY_LIST_FILE_MAX
					  : LATENCY_SNAPSHOT_FILE_MAX;
		rc = read_file(d->path, e->name, max, &buf, &len);
		if (rc == -ENOMEM)
			goto out;
		if (rc < 0) {
			log_warnx("cannot read '%s/%s': %s", d->path, e->name,
				  strerror(-rc));
			d->st.files_skipped++;
			continue;
		}
		if (e->kind == DIR_LIST) {
			rc = dir_list(d, buf, len);
			if (rc == 0)
				listed = 1;
		} else {
			fed_one = 0;
			rc = dir_snapshot(d, e, buf, len, cb, ctx, &fed_one,
					  &wm);
			if (fed_one) {
				fed = 1;
				if (wm < cycle_wm)
					cycle_wm = wm;
			}
		}
		free(buf);
		buf = NULL;
		if (rc != 0)
			goto out;
		/* The cycle that went back is not replayed to its end. */
		if (d->have_jump)
			goto out;
	}
	/*
	 * Frames of every layer polled in this cycle are known up to the
	 * lowest of their watermarks; a cycle that polled no layer (only a
	 * --list) had nothing to wait for.
	 */
	if (fed) {
		if (cycle_wm > d->wm)
			d->wm = cycle_wm;
	} else if (listed && capture > d->wm) {
		d->wm = capture;
	}
	if (capture_ns)
		*capture_ns = capture;
	rc = 1;
out:
	free(buf);
	return rc;
}

int64_t
frames_latency_dir_watermark(const struct frames_latency_dir *d)
{
	return d->wm;
}

int64_t
frames_latency_dir_coverage(const struct frames_latency_dir *d)
{
	return d->coverage;
}

int
frames_latency_dir_get_jump(const struct frames_latency_dir *d,
			    struct frames_latency_jump *j)
{
	if (!d->have_jump)
		return -ENOENT;
	*j = d->jump;
	return 0;
}

const struct frames_latency_list *
frames_latency_dir_list(const struct frames_latency_dir *d)
{
	return d->list;
}

void
frames_latency_dir_get_stats(const struct frames_latency_dir *d,
			     struct frames_latency_stats *st)
{
	*st = d->st;
}
