#include "fake_perfetto.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"

#define FT_DATA_SOURCE "android.surfaceflinger.frametimeline"

/* Largest config read; a real one is a few hundred bytes. */
#define CONFIG_MAX (1 << 20)

/* The vsync grid: 60 Hz, or $TAPD_FAKE_PERFETTO_HZ. */
static int64_t period_ns = 16666667LL;

/* A data source starts a little after the session (an IPC round trip). */
#define DS_START_NS 20000000LL

/*
 * SurfaceFlinger writes a display frame at its next composition, once the
 * frame's present fence has signalled (flushPendingPresentFences() from
 * setSfPresent(), docs/formats.md 2.5): this long after that composition's
 * wake-up.  The last frame before the screen goes idle is not written
 * until something is drawn again.
 */
#define EMIT_DELAY_NS 2000000LL

/* How far ahead the next composition is looked for (10 s of vsyncs). */
#define NEXT_MAX 600

#define MS 1000000LL

/* Protobuf wire types. */
#define WT_VARINT 0
#define WT_I64	  1
#define WT_LEN	  2
#define WT_I32	  5

/* TraceConfig fields read. */
#define TC_BUFFERS		1
#define TC_DATA_SOURCES		2
#define TC_DURATION_MS		3
#define TC_WRITE_INTO_FILE	8
#define TC_FILE_WRITE_PERIOD_MS 9
#define TC_MAX_FILE_SIZE_BYTES	10
#define TC_BUILTIN_DATA_SOURCES 20
#define TC_UNIQUE_SESSION_NAME	22
#define TC_OUTPUT_PATH		29

/* TracePacket fields written. */
#define TP_TRUSTED_UID	  3
#define TP_CLOCK_SNAPSHOT 6
#define TP_TIMESTAMP	  8
#define TP_SEQ_ID	  10
#define TP_SEQ_FLAGS	  13
#define TP_TRACE_CONFIG	  33
#define TP_CLOCK_ID	  58
#define TP_FRAME_TIMELINE 76
#define TP_TRUSTED_PID	  79
#define TP_FIRST_ON_SEQ	  87

/* FrameTimelineEvent's oneof. */
#define FT_EXPECTED_DISPLAY 1
#define FT_ACTUAL_DISPLAY   2
#define FT_EXPECTED_SURFACE 3
#define FT_ACTUAL_SURFACE   4
#define FT_FRAME_END	    5

#define CLOCK_ID_REALTIME  1
#define CLOCK_ID_MONOTONIC 3
#define CLOCK_ID_BOOTTIME  6

#define SERVICE_SEQ 1
#define SF_SEQ	    2
#define SF_PID	    600
#define SF_UID	    1000

struct app {
	int32_t pid;
	const char *layer;
};

static const struct app apps[] = {
	{1431, "TX - com.example.mail/com.example.mail.MainActivity#1234"},
	{2202, "TX - com.example.maps/com.example.maps.MapActivity#77"},
};
#define NAPPS ((int)(sizeof(apps) / sizeof(apps[0])))

/* What was read from the config. */
struct config {
	const uint8_t *raw;
	size_t len;
	int has_ft;
	int write_into_file;
	char output_path[4096];
	char session_name[256];
	uint64_t write_period_ms;
	uint64_t max_file_size;
	int no_config_echo; /* builtin_data_sources.disable_trace_config */
};

/* A growable output buffer; running out of memory sticks. */
struct buf {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

struct fake {
	struct config cfg;
	int fd;
	int clock_id;
	int64_t boot_off; /* BOOTTIME - MONOTONIC */
	int64_t next_k;	  /* next vsync whose display frame is written */
	int64_t cookie;
	int seq_started;
	uint64_t written;
	uint64_t frames;
	int idle;
	int64_t draw_until; /* apps draw only before this MONOTONIC time */
	int animate;	    /* both apps draw every vsync until draw_until */
	const char *log_path;
	uint64_t die_after;
	const char *die_once;
	struct buf file, log, pkt, ev, sub;
};

static volatile sig_atomic_t stop_flag;

static void
on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void
b_put(struct buf *b, const void *data, size_t n)
{
	uint8_t *q;
	size_t cap;

	if (b->oom || n == 0)
		return;
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void
b_varint(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	b_put(b, tmp, n);
}

static void
b_int(struct buf *b, unsigned field, int64_t v)
{
	b_varint(b, (uint64_t)field << 3 | WT_VARINT);
	b_varint(b, (uint64_t)v);
}

static void
b_bytes(struct buf *b, unsigned field, const void *data, size_t n)
{
	b_varint(b, (uint64_t)field << 3 | WT_LEN);
	b_varint(b, n);
	b_put(b, data, n);
}

static void
b_str(struct buf *b, unsigned field, const char *s)
{
	b_bytes(b, field, s, strlen(s));
}

static void
b_msg(struct buf *b, unsigned field, const struct buf *child)
{
	if (child->oom)
		b->oom = 1;
	b_bytes(b, field, child->p, child->len);
}

static void
b_release(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Protobuf decoding of the config: bounded, for hostile input. */
static int
get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t c = *(*p)++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/*
 * Calls fn for each field of the message buf[0..len); returns -1 when the
 * message is malformed or fn fails.
 */
static int
walk(const uint8_t *buf, size_t len,
     int (*fn)(void *ctx, unsigned field, unsigned wt, uint64_t v,
	       const uint8_t *data, size_t n),
     void *ctx)
{
	const uint8_t *p = buf, *end = buf + len;
	uint64_t key, v;

	while (p < end) {
		if (get_varint(&p, end, &key) < 0 || key >> 3 == 0)
			return -1;
		v = 0;
		switch (key & 7) {
		case WT_VARINT:
			if (get_varint(&p, end, &v) < 0)
				return -1;
			if (fn(ctx, key >> 3, WT_VARINT, v, NULL, 0) < 0)
				return -1;
			break;
		case WT_I64:
			if (end - p < 8)
				return -1;
			p += 8;
			break;
		case WT_I32:
			if (end - p < 4)
				return -1;
			p += 4;
			break;
		case WT_LEN:
			if (get_varint(&p, end, &v) < 0 ||
			    v > (uint64_t)(end - p))
				return -1;
			if (fn(ctx, key >> 3, WT_LEN, 0, p, v) < 0)
				return -1;
			p += v;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

static int
on_ds_config(void *ctx, unsigned field, unsigned wt, uint64_t v,
	     const uint8_t *data, size_t n)
{
	struct config *c = ctx;

	(void)v;
	if (field == 1 && wt == WT_LEN && n == strlen(FT_DATA_SOURCE) &&
	    memcmp(data, FT_DATA_SOURCE, n) == 0)
		c->has_ft = 1;
	return 0;
}

static int
on_data_source(void *ctx, unsigned field, unsigned wt, uint64_t v,
	       const uint8_t *data, size_t n)
{
	(void)v;
	if (field == 1 && wt == WT_LEN)
		return walk(data, n, on_ds_config, ctx);
	return 0;
}

static int
on_builtin(void *ctx, unsigned field, unsigned wt, uint64_t v,
	   const uint8_t *data, size_t n)
{
	struct config *c = ctx;

	(void)data;
	(void)n;
	if (field == 2 && wt == WT_VARINT)
		c->no_config_echo = v != 0;
	return 0;
}

static int
copy_string(char *dst, size_t size, const uint8_t *data, size_t n)
{
	if (n >= size || memchr(data, '\0', n))
		return -1;
	memcpy(dst, data, n);
	dst[n] = '\0';
	return 0;
}

static int
on_config(void *ctx, unsigned field, unsigned wt, uint64_t v,
	  const uint8_t *data, size_t n)
{
	struct config *c = ctx;

	switch (field) {
	case TC_DATA_SOURCES:
		if (wt == WT_LEN)
			return walk(data, n, on_data_source, c);
		break;
	case TC_WRITE_INTO_FILE:
		if (wt == WT_VARINT)
			c->write_into_file = v != 0;
		break;
	case TC_FILE_WRITE_PERIOD_MS:
		if (wt == WT_VARINT)
			c->write_period_ms = (uint32_t)v;
		break;
	case TC_MAX_FILE_SIZE_BYTES:
		if (wt == WT_VARINT)
			c->max_file_size = v;
		break;
	case TC_BUILTIN_DATA_SOURCES:
		if (wt == WT_LEN)
			return walk(data, n, on_builtin, c);
		break;
	case TC_UNIQUE_SESSION_NAME:
		if (wt == WT_LEN)
			return copy_string(c->session_name,
					   sizeof(c->session_name), data, n);
		break;
	case TC_OUTPUT_PATH:
		if (wt == WT_LEN)
			return copy_string(c->output_path,
					   sizeof(c->output_path), data, n);
		break;
	default:
		break;
	}
	return 0;
}

static int
read_all(int fd, uint8_t **out, size_t *len)
{
	struct buf b = {0};
	uint8_t chunk[4096];
	ssize_t n;

	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			b_release(&b);
			return -errno;
		}
		if (n == 0)
			break;
		b_put(&b, chunk, (size_t)n);
		if (b.len > CONFIG_MAX || b.oom) {
			b_release(&b);
			return -EFBIG;
		}
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

static int64_t
now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Holds the session name for as long as the process lives: an abstract
 * unix socket is released by the kernel when its owner dies, even by
 * SIGKILL, as traced forgets a session whose client went away.
 */
static int
claim_session(const struct config *c)
{
	struct sockaddr_un sa;
	char dir[sizeof(c->output_path)];
	char *slash;
	int fd, n;

	if (!c->session_name[0])
		return 0;
	snprintf(dir, sizeof(dir), "%s", c->output_path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     "tapd-fake-perfetto:%u:%s:%s", (unsigned)getuid(),
		     c->session_name, dir);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof(sa.sun_path) - 1)
		n = (int)sizeof(sa.sun_path) - 2;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			     (size_t)n)) < 0) {
		close(fd);
		return -1;
	}
	/* Kept open on purpose until exit. */
	return 0;
}

static int64_t
vsync(int64_t k)
{
	return k * period_ns;
}

/* The app frames: a pure function of the vsync index. */
static int
app_draws(const struct fake *f, int a, int64_t k)
{
	if (f->idle || vsync(k) >= f->draw_until)
		return 0;
	if (f->animate)
		return 1;
	if (f->draw_until != INT64_MAX)
		return a == 0; /* one app animates until it stops */
	if (a == 0)
		return (k / 30) % 2 == 0;
	return k % 3 == 0 && (k / 90) % 3 != 2;
}

static int
display_exists(const struct fake *f, int64_t k)
{
	int a;

	for (a = 0; a < NAPPS; a++)
		if (app_draws(f, a, k))
			return 1;
	return 0;
}

static int64_t
display_start(int64_t k)
{
	return vsync(k) - 4 * MS;
}

static int64_t
present_of(int64_t k)
{
	return vsync(k) + 250000 + (k % 5) * 10000;
}

static int64_t
app_start(int a, int64_t k)
{
	return vsync(k) - period_ns + 200000 + a * 150000;
}

static int64_t
app_ready(int64_t k)
{
	return vsync(k) - 3 * MS;
}

/*
 * When SurfaceFlinger writes display frame k: at the first composition
 * after its present, or never (INT64_MAX) when nothing is drawn again.
 */
static int64_t
emit_of(const struct fake *f, int64_t k)
{
	int64_t j, t;

	for (j = k + 1; j <= k + NEXT_MAX; j++) {
		if (!display_exists(f, j))
			continue;
		t = display_start(j) + EMIT_DELAY_NS;
		return t > present_of(k) + EMIT_DELAY_NS
			       ? t
			       : present_of(k) + EMIT_DELAY_NS;
	}
	return INT64_MAX;
}

/* The trace clock's value of MONOTONIC time t. */
static uint64_t
trace_ts(const struct fake *f, int64_t t)
{
	if (f->clock_id == CLOCK_ID_MONOTONIC)
		return (uint64_t)t;
	return (uint64_t)(t + f->boot_off);
}

static void
add_packet(struct fake *f)
{
	b_varint(&f->file, 1 << 3 | WT_LEN);
	b_varint(&f->file, f->pkt.len);
	b_put(&f->file, f->pkt.p, f->pkt.len);
	if (f->pkt.oom)
		f->file.oom = 1;
}

static void
frame_packet(struct fake *f, int64_t t)
{
	f->pkt.len = 0;
	b_int(&f->pkt, TP_TIMESTAMP, (int64_t)trace_ts(f, t));
	b_int(&f->pkt, TP_CLOCK_ID, f->clock_id);
	b_msg(&f->pkt, TP_FRAME_TIMELINE, &f->ev);
	b_int(&f->pkt, TP_TRUSTED_UID, SF_UID);
	b_int(&f->pkt, TP_SEQ_ID, SF_SEQ);
	b_int(&f->pkt, TP_TRUSTED_PID, SF_PID);
	if (!f->seq_started) {
		/* SEQ_INCREMENTAL_STATE_CLEARED on the sequence's first. */
		b_int(&f->pkt, TP_SEQ_FLAGS, 1);
		b_int(&f->pkt, TP_FIRST_ON_SEQ, 1);
		f->seq_started = 1;
	}
	add_packet(f);
}

static void
event(struct fake *f, unsigned which, int64_t t)
{
	f->ev.len = 0;
	b_msg(&f->ev, which, &f->sub);
	frame_packet(f, t);
}

static void
frame_end(struct fake *f, int64_t cookie, int64_t t)
{
	f->sub.len = 0;
	b_int(&f->sub, 1, cookie);
	event(f, FT_FRAME_END, t);
}

static void
write_group(struct fake *f, int64_t k)
{
	int64_t dtoken = 4 * k, c;
	char line[256];
	int a, n;

	/* Expected and actual display frame, as SurfaceFlinger writes. */
	c = f->cookie++;
	f->sub.len = 0;
	b_int(&f->sub, 1, c);
	b_int(&f->sub, 2, dtoken);
	b_int(&f->sub, 3, SF_PID);
	event(f, FT_EXPECTED_DISPLAY, display_start(k));
	frame_end(f, c, vsync(k));
	c = f->cookie++;
	f->sub.len = 0;
	b_int(&f->sub, 1, c);
	b_int(&f->sub, 2, dtoken);
	b_int(&f->sub, 3, SF_PID);
	b_int(&f->sub, 4, 1); /* PRESENT_ON_TIME */
	b_int(&f->sub, 5, 1);
	b_int(&f->sub, 6, 0);
	b_int(&f->sub, 7, 1); /* JANK_NONE */
	b_int(&f->sub, 8, 1); /* PREDICTION_VALID */
	event(f, FT_ACTUAL_DISPLAY, display_start(k));
	frame_end(f, c, present_of(k));

	for (a = 0; a < NAPPS; a++) {
		if (!app_draws(f, a, k))
			continue;
		c = f->cookie++;
		f->sub.len = 0;
		b_int(&f->sub, 1, c);
		b_int(&f->sub, 2, dtoken + 1 + a);
		b_int(&f->sub, 3, dtoken);
		b_int(&f->sub, 4, apps[a].pid);
		b_str(&f->sub, 5, apps[a].layer);
		event(f, FT_EXPECTED_SURFACE, vsync(k) - period_ns);
		frame_end(f, c, vsync(k) - 4 * MS);
		c = f->cookie++;
		f->sub.len = 0;
		b_int(&f->sub, 1, c);
		b_int(&f->sub, 2, dtoken + 1 + a);
		b_int(&f->sub, 3, dtoken);
		b_int(&f->sub, 4, apps[a].pid);
		b_str(&f->sub, 5, apps[a].layer);
		b_int(&f->sub, 6, 1);
		b_int(&f->sub, 7, 1);
		b_int(&f->sub, 8, 0);
		b_int(&f->sub, 9, 1);
		b_int(&f->sub, 10, 1);
		b_int(&f->sub, 11, 1);
		event(f, FT_ACTUAL_SURFACE, app_start(a, k));
		frame_end(f, c, app_ready(k));
		n = snprintf(line, sizeof(line),
			     "%d %" PRId64 " %" PRId64 " %s\n", apps[a].pid,
			     app_start(a, k), present_of(k), apps[a].layer);
		if (n > 0 && (size_t)n < sizeof(line))
			b_put(&f->log, line, (size_t)n);
		f->frames++;
	}
}

static void
write_header(struct fake *f, int64_t mono, int64_t boot)
{
	struct buf snap = {0}, clk = {0};
	static const int ids[] = {CLOCK_ID_BOOTTIME, CLOCK_ID_REALTIME,
				  CLOCK_ID_MONOTONIC};
	int64_t v;
	size_t i;

	/* The service echoes the config it was given, unless told not to. */
	if (!f->cfg.no_config_echo) {
		f->pkt.len = 0;
		b_int(&f->pkt, TP_TIMESTAMP, boot);
		b_int(&f->pkt, TP_CLOCK_ID, CLOCK_ID_BOOTTIME);
		b_bytes(&f->pkt, TP_TRACE_CONFIG, f->cfg.raw, f->cfg.len);
		b_int(&f->pkt, TP_SEQ_ID, SERVICE_SEQ);
		add_packet(f);
	}

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (ids[i] == CLOCK_ID_BOOTTIME)
			v = boot;
		else if (ids[i] == CLOCK_ID_MONOTONIC)
			v = mono;
		else
			v = boot + 1700000000000000000LL;
		clk.len = 0;
		b_int(&clk, 1, ids[i]);
		b_int(&clk, 2, v);
		b_msg(&snap, 1, &clk);
	}
	b_int(&snap, 2, CLOCK_ID_BOOTTIME);
	f->pkt.len = 0;
	b_int(&f->pkt, TP_TIMESTAMP, boot);
	b_int(&f->pkt, TP_CLOCK_ID, CLOCK_ID_BOOTTIME);
	b_msg(&f->pkt, TP_CLOCK_SNAPSHOT, &snap);
	b_int(&f->pkt, TP_SEQ_ID, SERVICE_SEQ);
	add_packet(f);
	b_release(&snap);
	b_release(&clk);
}

static int
write_fully(int fd, const uint8_t *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
append_log(struct fake *f)
{
	int fd;

	if (!f->log_path || f->log.len == 0)
		return;
	fd = open(f->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		msg_warn("cannot open '%s'", f->log_path);
		return;
	}
	/* One write, so concurrent fakes never interleave within a line. */
	if (write_fully(fd, f->log.p, f->log.len) < 0)
		msg_warn("cannot write '%s'", f->log_path);
	close(fd);
}

/*
 * One periodic write: every display frame SurfaceFlinger has written by
 * now (its emit time passed), as whole groups, within the size cap, and
 * the log lines of their frames.  Returns 1 when the cap stopped the
 * session, 0, or -1 on a write error.
 */
static int
periodic_write(struct fake *f, int64_t now)
{
	size_t file_len, log_len;
	uint64_t frames;
	int64_t cookie;
	int seq_started, capped = 0;

	f->log.len = 0;
	for (;;) {
		while (!display_exists(f, f->next_k) && vsync(f->next_k) <= now)
			f->next_k++;
		if (!display_exists(f, f->next_k) ||
		    emit_of(f, f->next_k) > now)
			break;
		file_len = f->file.len;
		log_len = f->log.len;
		frames = f->frames;
		cookie = f->cookie;
		seq_started = f->seq_started;
		write_group(f, f->next_k);
		if (f->cfg.max_file_size &&
		    f->written + f->file.len > f->cfg.max_file_size) {
			/* Traced stops at the cap: not this group. */
			f->file.len = file_len;
			f->log.len = log_len;
			f->frames = frames;
			f->cookie = cookie;
			f->seq_started = seq_started;
			capped = 1;
			break;
		}
		f->next_k++;
	}
	if (f->file.oom || f->log.oom) {
		msg_warnx("cannot write '%s': out of memory",
			  f->cfg.output_path);
		return -1;
	}
	if (f->file.len > 0 && write_fully(f->fd, f->file.p, f->file.len) < 0) {
		msg_warn("cannot write '%s'", f->cfg.output_path);
		return -1;
	}
	f->written += f->file.len;
	f->file.len = 0;
	append_log(f);
	return capped;
}

/* Writes every period until a signal, the cap or the maximum duration. */
static int
fake_loop(struct fake *f, int64_t max_ns)
{
	int64_t start = now_ns(CLOCK_MONOTONIC), now, period;
	struct timespec ts;
	int rc, die;

	period = (int64_t)(f->cfg.write_period_ms ? f->cfg.write_period_ms
						  : 5000) *
		 MS;
	if (period < 100 * MS)
		period = 100 * MS;
	for (;;) {
		now = now_ns(CLOCK_MONOTONIC);
		if (stop_flag)
			fprintf(stderr, "SIGINT/SIGTERM received: disabling "
					"tracing.\n");
		rc = periodic_write(f, now);
		if (rc < 0)
			return 1;
		if (f->die_after && f->frames >= f->die_after) {
			die = 1;
			if (f->die_once) {
				int fd = open(f->die_once,
					      O_WRONLY | O_CREAT | O_EXCL |
						      O_CLOEXEC,
					      0644);

				die = fd >= 0;
				if (fd >= 0)
					close(fd);
			}
			if (die)
				raise(SIGKILL);
			f->die_after = 0;
		}
		if (rc == 1 || stop_flag || now - start >= max_ns)
			break;
		ts.tv_sec = period / 1000000000LL;
		ts.tv_nsec = period % 1000000000LL;
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "Trace written into the output file\n");
	return 0;
}

static int
env_u64(const char *name, uint64_t *out)
{
	const char *s = getenv(name);
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || *s == '-') {
		msg_warnx("cannot parse %s '%s': not a number", name, s);
		return -1;
	}
	*out = v;
	return 1;
}

int
fake_perfetto_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"out", required_argument, NULL, 'o'},
		{"txt", no_argument, NULL, 't'},
		{"background", no_argument, NULL, 'b'},
		{"no-guardrails", no_argument, NULL, 'g'},
		{NULL, 0, NULL, 0},
	};
	const char *config_path = NULL, *out_path = NULL, *refuse, *s;
	struct fake f;
	struct sigaction sa;
	uint8_t *raw = NULL;
	size_t rawlen = 0;
	uint64_t max_ms = 120000, draw_ms = 0, animate_ms = 0, hz = 0;
	uint64_t draw_abs = 0;
	int64_t mono, boot;
	int c, fd, rc = 1;

	memset(&f, 0, sizeof(f));
	f.fd = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config_path = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 't':
			fprintf(stderr, "fake perfetto: --txt is not "
					"supported: tapd sends a binary "
					"config\n");
			return 1;
		case 'b':
			fprintf(stderr, "fake perfetto: --background is not "
					"supported\n");
			return 1;
		case 'g':
			break;
		default:
			fprintf(stderr, "perfetto: unrecognized option\n");
			return 1;
		}
	}
	if (!config_path || optind != argc) {
		fprintf(stderr, "perfetto: usage: perfetto -c CONFIG|-\n");
		return 1;
	}
	if (strcmp(config_path, "-") == 0) {
		rc = read_all(STDIN_FILENO, &raw, &rawlen);
	} else {
		fd = open(config_path, O_RDONLY | O_CLOEXEC);
		rc = fd < 0 ? -errno : read_all(fd, &raw, &rawlen);
		if (fd >= 0)
			close(fd);
	}
	if (rc < 0) {
		fprintf(stderr, "Could not open %s: %s\n", config_path,
			strerror(-rc));
		return 1;
	}
	rc = 1;
	f.cfg.raw = raw;
	f.cfg.len = rawlen;
	if (rawlen == 0) {
		fprintf(stderr, "The TraceConfig is empty\n");
		goto out;
	}
	if (walk(raw, rawlen, on_config, &f.cfg) < 0) {
		fprintf(stderr, "The trace config is invalid, bailing out.\n");
		goto out;
	}
	if (f.cfg.output_path[0]) {
		if (out_path) {
			fprintf(stderr,
				"Can't pass --out or --dropbox if output_path "
				"is set in the trace config\n");
			goto out;
		}
		if (access(f.cfg.output_path, F_OK) == 0) {
			fprintf(stderr,
				"The output_path must not exist, the service "
				"cannot overwrite existing files for security "
				"reasons. Remove %s or use a different path.\n",
				f.cfg.output_path);
			goto out;
		}
	}
	if (!f.cfg.write_into_file || !f.cfg.output_path[0]) {
		fprintf(stderr, "fake perfetto: the config must set "
				"write_into_file and output_path\n");
		goto out;
	}
	if (!f.cfg.has_ft) {
		fprintf(stderr,
			"fake perfetto: no '%s' data source in the "
			"config\n",
			FT_DATA_SOURCE);
		goto out;
	}
	refuse = getenv("TAPD_FAKE_PERFETTO_REFUSE");
	if (refuse && *refuse) {
		fprintf(stderr, "%s\n", refuse);
		goto out;
	}
	if (claim_session(&f.cfg) < 0) {
		fprintf(stderr,
			"fake perfetto: a session named '%s' is already "
			"active\n",
			f.cfg.session_name);
		goto out;
	}
	if (env_u64("TAPD_FAKE_PERFETTO_MAX_MS", &max_ms) < 0 ||
	    env_u64("TAPD_FAKE_PERFETTO_DIE_AFTER", &f.die_after) < 0)
		goto out;
	f.die_once = getenv("TAPD_FAKE_PERFETTO_DIE_ONCE");
	f.log_path = getenv("TAPD_FAKE_FRAMES_LOG");
	s = getenv("TAPD_FAKE_PERFETTO_CLOCK");
	f.clock_id = s && strcmp(s, "mono") == 0 ? CLOCK_ID_MONOTONIC
						 : CLOCK_ID_BOOTTIME;
	s = getenv("TAPD_FAKE_PERFETTO_IDLE");
	f.idle = s && strcmp(s, "1") == 0;
	f.draw_until = INT64_MAX;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	fprintf(stderr,
		"Connected to the Perfetto traced service, starting tracing\n");
	f.fd = open(f.cfg.output_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
	if (f.fd < 0) {
		fprintf(stderr, "Failed to create %s: %s\n", f.cfg.output_path,
			strerror(errno));
		goto out;
	}
	/* Traced creates the file 0600, then makes it readable. */
	fchmod(f.fd, 0644);
	mono = now_ns(CLOCK_MONOTONIC);
	boot = now_ns(CLOCK_BOOTTIME);
	f.boot_off = boot - mono;
	if (env_u64("TAPD_FAKE_PERFETTO_DRAW_MS", &draw_ms) < 0)
		goto out;
	if (draw_ms)
		f.draw_until = mono + (int64_t)draw_ms * MS;
	if (env_u64("TAPD_FAKE_PERFETTO_ANIMATE_MS", &animate_ms) < 0 ||
	    env_u64("TAPD_FAKE_PERFETTO_HZ", &hz) < 0)
		goto out;
	if (animate_ms) {
		f.animate = 1;
		f.draw_until = mono + (int64_t)animate_ms * MS;
	}
	if (hz >= 1 && hz <= 1000)
		period_ns = (1000000000LL + (int64_t)hz / 2) / (int64_t)hz;
	/* An absolute time, shared with the fake dumpsys (fake_android.h). */
	if (env_u64("TAPD_FAKE_DRAW_UNTIL_NS", &draw_abs) < 0)
		goto out;
	if (draw_abs && draw_abs <= INT64_MAX)
		f.draw_until = (int64_t)draw_abs;
	f.cookie = 1;
	f.next_k = (mono + DS_START_NS + 4 * MS) / period_ns + 1;
	write_header(&f, mono, boot);
	if (f.file.oom || write_fully(f.fd, f.file.p, f.file.len) < 0) {
		fprintf(stderr, "Failed to write %s\n", f.cfg.output_path);
		goto out;
	}
	f.written = f.file.len;
	f.file.len = 0;
	rc = fake_loop(&f, (int64_t)max_ms * MS);
out:
	if (f.fd >= 0)
		close(f.fd);
	b_release(&f.file);
	b_release(&f.log);
	b_release(&f.pkt);
	b_release(&f.ev);
	b_release(&f.sub);
	free(raw);
	return rc;
}
