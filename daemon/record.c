#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "frames_ftl.h"
#include "frames_ftl_write.h"
#include "input_getevent_field.h"
#include "log.h"
#include "pb_write.h"
#include "touch.h"

#define INPUT_FILE	"input.getevent"
#define FOREGROUND_FILE "foreground.log"
#define DEVICE_FILE	"device.json"
#define LATENCY_DIR	"latency"
#define FRAMES_FILE	"frames.pftrace"

/* Frames remembered for the start of a new directory (RECORD_CARRY_NS). */
#define CARRY_MAX 256

static const char *const log_names[RECORD_LOGS] = {
	[RECORD_WINDOWS] = "windows.log",
	[RECORD_PROCESSES] = "processes.log",
};

struct record {
	char *dir;
	char *old; /* dir ".1", where a rotation moves it */
	uint64_t max_bytes;
	struct device_info dev; /* what --device said, zeroed without */
	int have_axes;
	struct device_axis x, y;
	int64_t anchor_rt, anchor_mono;
	FILE *input;
	FILE *fg;
	FILE *logs[RECORD_LOGS];
	unsigned generation;
	/* What a new directory starts with again. */
	char *dev_path, *dev_name;
	int header_done;
	int have_fg;
	int64_t fg_t;
	int32_t fg_pid;
	char *fg_pkg;
	char *fg_act;	     /* NULL: no activity */
	int64_t coverage_ns; /* the source's start: INT64_MIN until known */
	int64_t last_capture;
	unsigned last_n;
	uint64_t bytes; /* written by this module to the current directory */
	int have_measure;
	struct device_measure measure;
	/*
	 * FrameTimeline: the trace of this directory (NULL until the
	 * coverage is known), its encoder, what is encoded and not yet
	 * written (held while ftl_cov is INT64_MIN), and the last frames.
	 */
	FILE *frames;
	struct frames_ftl_writer *ftlw;
	struct pb_writer ftl_out;
	int64_t ftl_cov;
	int range_warned, pending_warned;
	struct frames_ftl_frame *carry;
	unsigned carry_next, carry_len;
	struct record_stats st;
};

static char *
join(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	return p;
}

/* The first failure ends the recording, said once. */
static void
fail(struct record *r, const char *what, int err)
{
	if (r->st.failed)
		return;
	r->st.failed = 1;
	log_warnx("cannot write %s in the recording '%s': %s; recording "
		  "stops, measuring goes on",
		  what, r->dir, strerror(err));
}

static FILE *
open_in(struct record *r, const char *name, const char *mode)
{
	char *p = join(r->dir, name);
	FILE *fp;

	if (!p) {
		fail(r, name, ENOMEM);
		return NULL;
	}
	fp = fopen(p, mode);
	if (!fp)
		fail(r, name, errno);
	free(p);
	return fp;
}

static void
read_anchor(struct record *r)
{
	struct timespec rt, mono;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &rt);
	r->anchor_mono = mono.tv_sec * INT64_C(1000000000) + mono.tv_nsec;
	r->anchor_rt = rt.tv_sec * INT64_C(1000000000) + rt.tv_nsec;
}

/* A time of "measure": whole ms as an integer, else to the ns. */
static void
write_ms(FILE *fp, int *n, const char *key, int64_t ns)
{
	const char *sep = (*n)++ ? ", " : "";

	if (ns % 1000000 == 0)
		fprintf(fp, "%s\"%s\": %" PRId64, sep, key, ns / 1000000);
	else
		fprintf(fp, "%s\"%s\": %" PRId64 ".%06" PRId64, sep, key,
			ns / 1000000, ns % 1000000);
}

static void
write_measure(FILE *fp, const struct device_measure *m, const char *sep)
{
	int n = 0;

	fprintf(fp, "%s\"measure\": {", sep);
	/* 17 digits: the double reads back as the same one. */
	if (m->slop_px >= 0)
		fprintf(fp, "%s\"slop_px\": %.17g", n++ ? ", " : "",
			m->slop_px);
	if (m->long_press_ns >= 0)
		write_ms(fp, &n, "long_press_ms", m->long_press_ns);
	if (m->settle_quiet_ns >= 0)
		write_ms(fp, &n, "settle_quiet_ms", m->settle_quiet_ns);
	if (m->settle_cap_ns >= 0)
		write_ms(fp, &n, "settle_cap_ms", m->settle_cap_ns);
	if (m->busy_before_ns >= 0)
		write_ms(fp, &n, "busy_before_ms", m->busy_before_ns);
	if (m->frame_latency_ns >= 0)
		write_ms(fp, &n, "frame_latency_ms", m->frame_latency_ns);
	if (m->launch_cap_ns >= 0)
		write_ms(fp, &n, "launch_cap_ms", m->launch_cap_ns);
	fputc('}', fp);
}

/* device.json, whole, through a temporary file and a rename. */
static void
write_device(struct record *r)
{
	const struct device_info *d = &r->dev;
	char *tmp = NULL, *path = NULL;
	FILE *fp = NULL;
	int sep = 0;

	if (r->st.failed)
		return;
	path = join(r->dir, DEVICE_FILE);
	tmp = join(r->dir, DEVICE_FILE ".tmp");
	if (!path || !tmp) {
		fail(r, DEVICE_FILE, ENOMEM);
		goto out;
	}
	fp = fopen(tmp, "we");
	if (!fp) {
		fail(r, DEVICE_FILE, errno);
		goto out;
	}
	fputc('{', fp);
	if (d->have_screen) {
		fprintf(fp,
			"\"screen\": {\"width\": %" PRId32
			", \"height\": %" PRId32 "}",
			d->width, d->height);
		sep = 1;
	}
	if (d->density_dpi > 0)
		fprintf(fp, "%s\"density_dpi\": %" PRId32, sep++ ? ", " : "",
			d->density_dpi);
	if (d->refresh_hz > 0)
		fprintf(fp, "%s\"refresh_hz\": %" PRId32, sep++ ? ", " : "",
			d->refresh_hz);
	if (d->android_sdk > 0)
		fprintf(fp, "%s\"android_sdk\": %" PRId32, sep++ ? ", " : "",
			d->android_sdk);
	if (r->have_axes)
		fprintf(fp,
			"%s\"touch\": {\"x\": {\"min\": %" PRId32
			", \"max\": %" PRId32 "}, \"y\": {\"min\": %" PRId32
			", \"max\": %" PRId32 "}}",
			sep++ ? ", " : "", r->x.min, r->x.max, r->y.min,
			r->y.max);
	if (r->have_measure)
		write_measure(fp, &r->measure, sep++ ? ", " : "");
	fprintf(fp,
		"%s\"clock\": {\"realtime_ns\": \"%" PRId64
		"\", \"monotonic_ns\": \"%" PRId64 "\"}}\n",
		sep ? ", " : "", r->anchor_rt, r->anchor_mono);
	if (fclose(fp) != 0) {
		fp = NULL;
		fail(r, DEVICE_FILE, errno);
		goto out;
	}
	fp = NULL;
	if (rename(tmp, path) < 0)
		fail(r, DEVICE_FILE, errno);
out:
	if (fp)
		fclose(fp);
	free(tmp);
	free(path);
}

static void
count(struct record *r, FILE *fp, const char *what, int n)
{
	if (n < 0 || fflush(fp) != 0) {
		fail(r, what, errno ? errno : EIO);
		return;
	}
	r->bytes += (uint64_t)n;
}

static void
write_header(struct record *r)
{
	int n;

	if (r->st.failed || !r->input || !r->dev_path)
		return;
	n = fprintf(r->input, "add device 1: %s\n  name:     \"%s\"\n",
		    r->dev_path, r->dev_name ? r->dev_name : "");
	count(r, r->input, INPUT_FILE, n);
	r->header_done = 1;
}

static void
write_fg(struct record *r)
{
	int n;

	if (r->st.failed || !r->fg || !r->have_fg)
		return;
	n = fprintf(r->fg, "%" PRId64 " %" PRId32 " %s%s%s\n", r->fg_t,
		    r->fg_pid, r->fg_pkg, r->fg_act ? " " : "",
		    r->fg_act ? r->fg_act : "");
	count(r, r->fg, FOREGROUND_FILE, n);
}

static void
write_file(struct record *r, const char *name, const char *head,
	   const char *text, size_t len)
{
	char *rel = join(LATENCY_DIR, name);
	FILE *fp;
	int n = 0;

	if (!rel) {
		fail(r, LATENCY_DIR, ENOMEM);
		return;
	}
	fp = open_in(r, rel, "we");
	free(rel);
	if (!fp)
		return;
	if (head)
		n = fprintf(fp, "%s", head);
	if (len && fwrite(text, 1, len, fp) != len)
		n = -1;
	if (fclose(fp) != 0 || n < 0) {
		fail(r, LATENCY_DIR, errno ? errno : EIO);
		return;
	}
	r->bytes += (uint64_t)n + len;
}

static void
close_files(struct record *r)
{
	size_t i;

	if (r->input)
		fclose(r->input);
	if (r->fg)
		fclose(r->fg);
	if (r->frames)
		fclose(r->frames);
	for (i = 0; i < RECORD_LOGS; i++)
		if (r->logs[i])
			fclose(r->logs[i]);
	r->input = r->fg = r->frames = NULL;
	memset(r->logs, 0, sizeof(r->logs));
}

/* Writes what is encoded into frames.pftrace, once it is begun. */
static void
ftl_flush(struct record *r)
{
	struct pb_writer *o = &r->ftl_out;

	if (r->st.failed || !r->frames || o->len == 0)
		return;
	if (fwrite(o->p, 1, o->len, r->frames) != o->len ||
	    fflush(r->frames) != 0) {
		fail(r, FRAMES_FILE, errno ? errno : EIO);
		return;
	}
	r->bytes += o->len;
	pb_write_reset(o);
}

/* Encodes f after what is pending; 0 or a negative errno (said). */
static int
ftl_encode(struct record *r, const struct frames_ftl_frame *f)
{
	int rc = frames_ftl_write_frame(r->ftlw, &r->ftl_out, f);

	if (rc == -ENOMEM) {
		fail(r, FRAMES_FILE, ENOMEM);
	} else if (rc < 0 && !r->range_warned) {
		r->range_warned = 1;
		log_warnx("a frame of layer '%s' has a time out of range: "
			  "not recorded",
			  f->layer);
	}
	return rc;
}

/*
 * Begins frames.pftrace: its ClockSnapshot at the start of coverage,
 * with REALTIME from the clock anchor, and whatever is pending.
 */
static void
ftl_begin(struct record *r)
{
	struct pb_writer head = {0};
	int rc;

	r->frames = open_in(r, FRAMES_FILE, "we");
	if (!r->frames)
		return;
	rc = frames_ftl_write_clock(r->ftlw, &head, r->ftl_cov,
				    r->ftl_cov +
					    (r->anchor_rt - r->anchor_mono));
	if (rc == 0 && fwrite(head.p, 1, head.len, r->frames) != head.len)
		rc = -(errno ? errno : EIO);
	if (rc < 0)
		fail(r, FRAMES_FILE, -rc);
	else
		r->bytes += head.len;
	pb_write_release(&head);
	ftl_flush(r);
}

/* After a rotation: the frames presented shortly before it, again. */
static void
ftl_carry(struct record *r)
{
	unsigned i, at;

	for (i = 0; i < r->carry_len; i++) {
		at = (r->carry_next + CARRY_MAX - r->carry_len + i) % CARRY_MAX;
		if (r->carry[at].present_ns >= r->ftl_cov - RECORD_CARRY_NS)
			(void)ftl_encode(r, &r->carry[at]);
	}
	ftl_flush(r);
}

/* The files of a new directory, and what it starts with again. */
static int
begin(struct record *r)
{
	char *lat;
	size_t i;

	r->bytes = 0;
	read_anchor(r);
	lat = join(r->dir, LATENCY_DIR);
	if (!lat)
		return -ENOMEM;
	if (mkdir(lat, 0777) < 0 && errno != EEXIST) {
		int err = errno;

		fail(r, LATENCY_DIR, err);
		free(lat);
		return -err;
	}
	free(lat);
	r->input = open_in(r, INPUT_FILE, "we");
	r->fg = open_in(r, FOREGROUND_FILE, "we");
	for (i = 0; i < RECORD_LOGS; i++)
		r->logs[i] = open_in(r, log_names[i], "we");
	if (r->st.failed)
		return -EIO;
	write_device(r);
	if (r->dev_path)
		write_header(r);
	write_fg(r);
	if (r->coverage_ns != INT64_MIN) {
		/* The frames are covered from here on, in this directory. */
		r->coverage_ns = r->anchor_mono;
		record_latency_list(r, r->coverage_ns, NULL, 0);
	}
	if (r->ftl_cov != INT64_MIN) {
		r->ftl_cov = r->anchor_mono;
		ftl_begin(r);
		ftl_carry(r);
	}
	return r->st.failed ? -EIO : 0;
}

int
record_open(const struct record_config *cfg, struct record **out)
{
	struct record *r;
	struct stat sb;
	char *p;
	int rc;

	*out = NULL;
	if (mkdir(cfg->dir, 0777) < 0 && errno != EEXIST) {
		rc = -errno;
		log_error("cannot create the recording '%s': %s", cfg->dir,
			  strerror(errno));
		return rc;
	}
	p = join(cfg->dir, INPUT_FILE);
	if (!p)
		return -ENOMEM;
	rc = stat(p, &sb);
	free(p);
	if (rc == 0) {
		log_error("'%s' already holds a recording: give a new "
			  "directory",
			  cfg->dir);
		return -EEXIST;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->dir = strdup(cfg->dir);
	if (!r->dir || asprintf(&r->old, "%s.1", cfg->dir) < 0) {
		r->old = NULL;
		record_free(r);
		return -ENOMEM;
	}
	r->max_bytes =
		cfg->max_bytes ? cfg->max_bytes : RECORD_MAX_BYTES_DEFAULT;
	if (cfg->dev)
		r->dev = *cfg->dev;
	r->dev.have_touch = 0;
	r->dev.have_clock = 0;
	r->dev.have_measure = 0;
	if (cfg->dev && cfg->dev->have_touch) {
		r->have_axes = 1;
		r->x = cfg->dev->x;
		r->y = cfg->dev->y;
	}
	r->coverage_ns = INT64_MIN;
	r->last_capture = INT64_MIN;
	r->ftl_cov = INT64_MIN;
	rc = begin(r);
	if (rc < 0) {
		log_error("cannot start the recording '%s'", r->dir);
		record_free(r);
		return rc;
	}
	log_info("recording into '%s' (rotated past %" PRIu64 " bytes)", r->dir,
		 r->max_bytes);
	*out = r;
	return 0;
}

void
record_free(struct record *r)
{
	if (!r)
		return;
	close_files(r);
	free(r->dir);
	free(r->old);
	free(r->dev_path);
	free(r->dev_name);
	free(r->fg_pkg);
	free(r->fg_act);
	frames_ftl_write_free(r->ftlw);
	pb_write_release(&r->ftl_out);
	free(r->carry);
	free(r);
}

void
record_set_axes(struct record *r, int32_t xmin, int32_t xmax, int32_t ymin,
		int32_t ymax)
{
	if (!r || r->have_axes)
		return;
	r->have_axes = 1;
	r->x.min = xmin;
	r->x.max = xmax;
	r->y.min = ymin;
	r->y.max = ymax;
	write_device(r);
}

void
record_set_sdk(struct record *r, int sdk)
{
	if (!r || r->dev.android_sdk > 0 || sdk <= 0)
		return;
	r->dev.android_sdk = sdk;
	write_device(r);
}

void
record_set_measure(struct record *r, const struct device_measure *m)
{
	if (!r)
		return;
	r->have_measure = 1;
	r->measure = *m;
	write_device(r);
}

/* The encoder and the frames remembered, at the first use; 0 or -ENOMEM. */
static int
ftl_ready(struct record *r)
{
	if (r->ftlw)
		return 0;
	r->carry = calloc(CARRY_MAX, sizeof(*r->carry));
	if (!r->carry || frames_ftl_write_new(&r->ftlw) < 0) {
		fail(r, FRAMES_FILE, ENOMEM);
		return -ENOMEM;
	}
	return 0;
}

void
record_ftl_coverage(struct record *r, int64_t coverage_ns)
{
	if (!r || r->st.failed || r->ftl_cov != INT64_MIN ||
	    coverage_ns == INT64_MIN || ftl_ready(r) < 0)
		return;
	r->ftl_cov = coverage_ns;
	ftl_begin(r);
}

void
record_ftl_frame(struct record *r, const struct frames_ftl_frame *f)
{
	if (!r || r->st.failed || ftl_ready(r) < 0)
		return;
	r->carry[r->carry_next] = *f;
	r->carry_next = (r->carry_next + 1) % CARRY_MAX;
	if (r->carry_len < CARRY_MAX)
		r->carry_len++;
	if (!r->frames && r->ftl_out.len >= RECORD_FTL_PENDING_MAX) {
		if (!r->pending_warned)
			log_warnx("%u bytes of frames wait for the start of "
				  "their coverage: later ones are not recorded",
				  RECORD_FTL_PENDING_MAX);
		r->pending_warned = 1;
		return;
	}
	if (ftl_encode(r, f) < 0)
		return;
	r->st.frames++;
	ftl_flush(r);
}

void
record_input_device(struct record *r, const char *path, const char *name)
{
	if (!r || r->dev_path)
		return;
	r->dev_path = strdup(path);
	r->dev_name = strdup(name ? name : "");
	if (!r->dev_path || !r->dev_name) {
		fail(r, INPUT_FILE, ENOMEM);
		return;
	}
	write_header(r);
}

void
record_input(struct record *r, const struct touch_event *ev)
{
	char fields[64];
	int n;

	if (!r || r->st.failed || !r->input)
		return;
	if (input_getevent_field_format(ev, fields, sizeof(fields)) < 0)
		return;
	/* getevent -t: the kernel's stamp, seconds and microseconds. */
	n = fprintf(r->input, "[%8" PRId64 ".%06" PRId64 "] %s\n",
		    ev->time_ns / 1000000000, ev->time_ns % 1000000000 / 1000,
		    fields);
	r->st.events++;
	if (n < 0) {
		fail(r, INPUT_FILE, errno);
		return;
	}
	r->bytes += (uint64_t)n;
	/* Whole frames reach the disk: a crash loses at most one. */
	if (ev->type == 0 /* EV_SYN */ && fflush(r->input) != 0)
		fail(r, INPUT_FILE, errno);
}

void
record_latency_list(struct record *r, int64_t capture_ns, const char *text,
		    size_t len)
{
	char name[40];

	if (!r || r->st.failed)
		return;
	if (r->coverage_ns == INT64_MIN)
		r->coverage_ns = capture_ns;
	snprintf(name, sizeof(name), "%" PRId64 ".list", capture_ns);
	write_file(r, name, NULL, text, len);
}

void
record_latency(struct record *r, int64_t capture_ns, const char *layer,
	       const char *text, size_t len)
{
	char name[48], *head;

	if (!r || r->st.failed)
		return;
	/* N tells apart snapshots taken at the same time. */
	if (capture_ns == r->last_capture)
		r->last_n++;
	else
		r->last_n = 0;
	r->last_capture = capture_ns;
	snprintf(name, sizeof(name), "%" PRId64 "-%u.txt", capture_ns,
		 r->last_n);
	if (asprintf(&head, "# layer: %s\n", layer) < 0) {
		fail(r, LATENCY_DIR, ENOMEM);
		return;
	}
	write_file(r, name, head, text, len);
	free(head);
	r->st.snapshots++;
}

void
record_foreground(struct record *r, int64_t t_ns, int32_t pid,
		  const char *package)
{
	record_foreground_activity(r, t_ns, pid, package, NULL);
}

void
record_foreground_activity(struct record *r, int64_t t_ns, int32_t pid,
			   const char *package, const char *activity)
{
	char *copy, *act = NULL;

	if (!r)
		return;
	copy = strdup(package);
	if (activity && *activity)
		act = strdup(activity);
	if (!copy || (activity && *activity && !act)) {
		free(copy);
		free(act);
		fail(r, FOREGROUND_FILE, ENOMEM);
		return;
	}
	free(r->fg_pkg);
	free(r->fg_act);
	r->fg_pkg = copy;
	r->fg_act = act;
	r->fg_t = t_ns;
	r->fg_pid = pid;
	r->have_fg = 1;
	r->st.switches++;
	write_fg(r);
}

FILE *
record_log(struct record *r, enum record_log which, unsigned *generation)
{
	if (generation)
		*generation = r ? r->generation : 0;
	if (!r || r->st.failed || which >= RECORD_LOGS)
		return NULL;
	return r->logs[which];
}

/* The size of the directory: this module's writes and the logs'. */
static uint64_t
dir_bytes(const struct record *r)
{
	uint64_t n = r->bytes;
	long at;
	size_t i;

	for (i = 0; i < RECORD_LOGS; i++) {
		if (!r->logs[i])
			continue;
		at = ftell(r->logs[i]);
		if (at > 0)
			n += (uint64_t)at;
	}
	return n;
}

/* Removes what a recording holds in dir, then dir; 0 or a negative errno. */
static int
remove_recording(const char *dir)
{
	static const char *const names[] = {
		INPUT_FILE,    FOREGROUND_FILE, DEVICE_FILE,
		"windows.log", "processes.log", FRAMES_FILE,
	};
	struct dirent *de;
	char *p, *lat;
	DIR *d;
	size_t i;

	lat = join(dir, LATENCY_DIR);
	if (!lat)
		return -ENOMEM;
	d = opendir(lat);
	if (d) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			p = join(lat, de->d_name);
			if (p)
				unlink(p);
			free(p);
		}
		closedir(d);
		rmdir(lat);
	}
	free(lat);
	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		p = join(dir, names[i]);
		if (p)
			unlink(p);
		free(p);
	}
	if (rmdir(dir) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int
record_idle(struct record *r)
{
	int rc;

	if (!r || r->st.failed || dir_bytes(r) < r->max_bytes)
		return 0;
	close_files(r);
	rc = remove_recording(r->old);
	if (rc < 0) {
		fail(r, r->old, -rc);
		return 0;
	}
	if (rename(r->dir, r->old) < 0 || mkdir(r->dir, 0777) < 0) {
		fail(r, r->dir, errno);
		return 0;
	}
	r->generation++;
	r->st.rotations++;
	if (begin(r) < 0)
		return 0;
	log_info("recording '%s' rotated: the part before is in '%s'", r->dir,
		 r->old);
	return 1;
}

void
record_get_stats(const struct record *r, struct record_stats *st)
{
	*st = r->st;
	st->bytes = dir_bytes(r);
}
