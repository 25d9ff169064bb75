#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "pftrace.h"

/* Protobuf wire types. */
#define WT_VARINT  0
#define WT_LEN	   2
#define WT_FIXED32 5

/* TracePacket fields. */
#define TP_TRUSTED_UID	  3
#define TP_CLOCK_SNAPSHOT 6
#define TP_TIMESTAMP	  8
#define TP_SEQ_ID	  10
#define TP_SEQ_FLAGS	  13
#define TP_TRACE_CONFIG	  33
#define TP_TRACE_STATS	  35
#define TP_SYNC_MARKER	  36
#define TP_SYSTEM_INFO	  45
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

/* The service's own sequence. */
#define SERVICE_SEQ 1
#define SF_UID	    1000

/* A growable protobuf output buffer; oom sticks. */
struct pb {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

static void
pb_put(struct pb *b, const void *data, size_t n)
{
	unsigned char *q;
	size_t cap;

	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		cap = b->cap == 0 ? 256 : b->cap;
		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (q == NULL) {
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
pb_varint(struct pb *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v != 0)
			tmp[n] |= 0x80;
		n++;
	} while (v != 0);
	pb_put(b, tmp, n);
}

static void
pb_key(struct pb *b, unsigned field, unsigned wt)
{
	pb_varint(b, (uint64_t)field << 3 | wt);
}

/* int32 and int64 fields: negatives are sign-extended to ten bytes. */
static void
pb_int(struct pb *b, unsigned field, int64_t v)
{
	pb_key(b, field, WT_VARINT);
	pb_varint(b, (uint64_t)v);
}

static void
pb_bytes(struct pb *b, unsigned field, const void *data, size_t n)
{
	pb_key(b, field, WT_LEN);
	pb_varint(b, n);
	pb_put(b, data, n);
}

static void
pb_str(struct pb *b, unsigned field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

static void
pb_msg(struct pb *b, unsigned field, const struct pb *child)
{
	if (child->oom)
		b->oom = 1;
	pb_bytes(b, field, child->p, child->len);
}

static void
pb_float(struct pb *b, unsigned field, float f)
{
	unsigned char le[4];
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	le[0] = u & 0xff;
	le[1] = u >> 8 & 0xff;
	le[2] = u >> 16 & 0xff;
	le[3] = u >> 24 & 0xff;
	pb_key(b, field, WT_FIXED32);
	pb_put(b, le, sizeof(le));
}

static void
pb_reset(struct pb *b)
{
	b->len = 0;
}

static void
pb_release(struct pb *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* What the file is made of, in write order. */
enum item_kind {
	ITEM_HEADER,   /* config, system info, marker, first snapshot */
	ITEM_SNAPSHOT, /* a later clock snapshot */
	ITEM_MARKER,   /* periodic synchronization marker */
	ITEM_GROUP,    /* a display frame and its surface frames */
	ITEM_STATS,    /* trace stats at the end */
};

struct item {
	int64_t emit_ns;
	int64_t key;
	uint32_t seq;
	enum item_kind kind;
	size_t idx;
};

struct writer {
	const struct world *w;
	FILE *f;
	struct pb pkt, ev, sub;
	struct pftrace_stats st;
	uint32_t seen_seq[16];
	int nseen;
	const size_t *sf_of;	/* surface frames by display frame */
	const size_t *sf_first; /* their start in sf_of, per display frame */
	const int64_t *cookie_base;
	int err;
};

static int
write_packet(struct writer *wr)
{
	struct pb hdr = {0};

	if (wr->pkt.oom)
		return -ENOMEM;
	pb_key(&hdr, 1, WT_LEN);
	pb_varint(&hdr, wr->pkt.len);
	if (hdr.oom)
		return -ENOMEM;
	if (fwrite(hdr.p, 1, hdr.len, wr->f) != hdr.len ||
	    fwrite(wr->pkt.p, 1, wr->pkt.len, wr->f) != wr->pkt.len) {
		pb_release(&hdr);
		return -EIO;
	}
	wr->st.packets++;
	wr->st.bytes += hdr.len + wr->pkt.len;
	pb_release(&hdr);
	return 0;
}

/* The trace-clock value of MONOTONIC time t, offset sampled at emit. */
static uint64_t
trace_ts(const struct writer *wr, int64_t t, int64_t emit)
{
	const struct world_format *fmt = world_get_format(wr->w);

	if (fmt->clock_id == WORLD_CLOCK_MONOTONIC)
		return (uint64_t)t;
	return (uint64_t)(t + (world_boottime(wr->w, emit) - emit));
}

/* Packet header fields a FrameTimeline packet carries, then its event. */
static int
frame_packet(struct writer *wr, uint64_t ts, uint32_t seq)
{
	const struct world_format *fmt = world_get_format(wr->w);
	int i, first = 1;

	pb_reset(&wr->pkt);
	pb_int(&wr->pkt, TP_TIMESTAMP, (int64_t)ts);
	pb_int(&wr->pkt, TP_CLOCK_ID, fmt->clock_id);
	pb_msg(&wr->pkt, TP_FRAME_TIMELINE, &wr->ev);
	/* The service appends the trusted fields. */
	pb_int(&wr->pkt, TP_TRUSTED_UID, SF_UID);
	pb_int(&wr->pkt, TP_SEQ_ID, seq);
	pb_int(&wr->pkt, TP_TRUSTED_PID, fmt->sf_pid);
	for (i = 0; i < wr->nseen; i++)
		if (wr->seen_seq[i] == seq)
			first = 0;
	if (first && wr->nseen < 16) {
		wr->seen_seq[wr->nseen++] = seq;
		pb_int(&wr->pkt, TP_SEQ_FLAGS, 1);
		pb_int(&wr->pkt, TP_FIRST_ON_SEQ, 1);
	}
	wr->st.frame_packets++;
	return write_packet(wr);
}

/* Wraps wr->sub as event field `which` into wr->ev. */
static void
event_of(struct writer *wr, unsigned which)
{
	pb_reset(&wr->ev);
	pb_msg(&wr->ev, which, &wr->sub);
}

static int
frame_end(struct writer *wr, int64_t cookie, uint64_t ts, uint32_t seq)
{
	pb_reset(&wr->sub);
	pb_int(&wr->sub, 1, cookie);
	event_of(wr, FT_FRAME_END);
	return frame_packet(wr, ts, seq);
}

static uint32_t
severity(uint32_t jank)
{
	/* JankSeverityType: NONE = 1, FULL = 3. */
	return jank == WORLD_JANK_NONE ? 1 : 3;
}

static int
write_display(struct writer *wr, const struct world_df *df, int64_t *cookie)
{
	const struct world_format *fmt = world_get_format(wr->w);
	int sdk = world_get_device(wr->w)->android_sdk;
	int rc;

	if (df->has_expected && df->token != 0) {
		pb_reset(&wr->sub);
		pb_int(&wr->sub, 1, *cookie);
		pb_int(&wr->sub, 2, df->token);
		pb_int(&wr->sub, 3, fmt->sf_pid);
		event_of(wr, FT_EXPECTED_DISPLAY);
		rc = frame_packet(wr,
				  trace_ts(wr, df->exp_start_ns, df->emit_ns),
				  df->seq);
		if (rc == 0)
			rc = frame_end(
				wr, *cookie,
				trace_ts(wr, df->exp_end_ns, df->emit_ns),
				df->seq);
		if (rc < 0)
			return rc;
		++*cookie;
	}
	pb_reset(&wr->sub);
	pb_int(&wr->sub, 1, *cookie);
	pb_int(&wr->sub, 2, df->token);
	pb_int(&wr->sub, 3, fmt->sf_pid);
	pb_int(&wr->sub, 4, df->present_type);
	pb_int(&wr->sub, 5, df->present_type == WORLD_PRESENT_ON_TIME);
	pb_int(&wr->sub, 6, 0);
	pb_int(&wr->sub, 7, df->jank);
	pb_int(&wr->sub, 8, df->token != 0 ? 1 : 2);
	if (sdk >= 35)
		pb_int(&wr->sub, 9, severity(df->jank));
	if (sdk >= 36)
		pb_float(&wr->sub, 10, 0.0f);
	event_of(wr, FT_ACTUAL_DISPLAY);
	rc = frame_packet(wr, trace_ts(wr, df->wake_ns, df->emit_ns), df->seq);
	if (rc == 0)
		rc = frame_end(wr, *cookie,
			       trace_ts(wr, df->present_ns, df->emit_ns),
			       df->seq);
	++*cookie;
	wr->st.display_frames++;
	return rc;
}

static int
write_surface(struct writer *wr, const struct world_sf *sf,
	      const struct world_df *df, int64_t *cookie)
{
	const struct world_app *apps;
	const struct world_app *app;
	int sdk = world_get_device(wr->w)->android_sdk;
	size_t napps;
	int rc;

	apps = world_apps(wr->w, &napps);
	app = &apps[sf->app];
	if (sf->has_expected) {
		pb_reset(&wr->sub);
		pb_int(&wr->sub, 1, *cookie);
		pb_int(&wr->sub, 2, sf->token);
		pb_int(&wr->sub, 3, df->token);
		pb_int(&wr->sub, 4, app->pid);
		pb_str(&wr->sub, 5, app->layer);
		event_of(wr, FT_EXPECTED_SURFACE);
		rc = frame_packet(wr,
				  trace_ts(wr, sf->exp_start_ns, df->emit_ns),
				  df->seq);
		if (rc == 0)
			rc = frame_end(
				wr, *cookie,
				trace_ts(wr, sf->exp_end_ns, df->emit_ns),
				df->seq);
		if (rc < 0)
			return rc;
		++*cookie;
	}
	pb_reset(&wr->sub);
	pb_int(&wr->sub, 1, *cookie);
	pb_int(&wr->sub, 2, sf->token);
	pb_int(&wr->sub, 3, df->token);
	pb_int(&wr->sub, 4, app->pid);
	pb_str(&wr->sub, 5, app->layer);
	pb_int(&wr->sub, 6, sf->present_type);
	pb_int(&wr->sub, 7, sf->jank == WORLD_JANK_NONE);
	pb_int(&wr->sub, 8, 0);
	pb_int(&wr->sub, 9, sf->jank);
	pb_int(&wr->sub, 10, 1);
	pb_int(&wr->sub, 11, 1);
	if (sdk >= 35)
		pb_int(&wr->sub, 12, severity(sf->jank));
	if (sdk >= 36) {
		pb_float(&wr->sub, 13,
			 (float)(df->present_ns - sf->end_ns) / 1e6f);
		pb_float(&wr->sub, 14, 0.0f);
	}
	event_of(wr, FT_ACTUAL_SURFACE);
	rc = frame_packet(wr, trace_ts(wr, sf->start_ns, df->emit_ns), df->seq);
	if (rc == 0)
		rc = frame_end(wr, *cookie,
			       trace_ts(wr, sf->end_ns, df->emit_ns), df->seq);
	++*cookie;
	wr->st.surface_frames++;
	if (sf->present_type == WORLD_PRESENT_DROPPED)
		wr->st.dropped_frames++;
	return rc;
}

static int
write_group(struct writer *wr, size_t d)
{
	const struct world_df *dfs, *df;
	const struct world_sf *sfs;
	const struct world_format *fmt = world_get_format(wr->w);
	size_t ndf, nsf, i;
	int64_t cookie = wr->cookie_base[d];
	int rc = 0;

	dfs = world_dfs(wr->w, &ndf);
	sfs = world_sfs(wr->w, &nsf);
	df = &dfs[d];
	if (!fmt->df_after)
		rc = write_display(wr, df, &cookie);
	for (i = wr->sf_first[d]; rc == 0 && i < wr->sf_first[d + 1]; i++)
		rc = write_surface(wr, &sfs[wr->sf_of[i]], df, &cookie);
	if (rc == 0 && fmt->df_after)
		rc = write_display(wr, df, &cookie);
	return rc;
}

/* Service packets: sequence 1, BOOTTIME stamps, as traced writes them. */
static int
service_packet(struct writer *wr, int64_t emit, unsigned field,
	       const struct pb *body)
{
	pb_reset(&wr->pkt);
	pb_int(&wr->pkt, TP_TIMESTAMP, (int64_t)world_boottime(wr->w, emit));
	pb_int(&wr->pkt, TP_CLOCK_ID, WORLD_CLOCK_BOOTTIME);
	pb_msg(&wr->pkt, field, body);
	pb_int(&wr->pkt, TP_SEQ_ID, SERVICE_SEQ);
	return write_packet(wr);
}

static int
write_snapshot(struct writer *wr, const struct world_snapshot *s)
{
	/*
	 * BOOTTIME, REALTIME_COARSE, MONOTONIC_COARSE, REALTIME, MONOTONIC
	 * and MONOTONIC_RAW: the clocks traced captures, in its order.
	 */
	static const unsigned ids[] = {6, 2, 4, 1, 3, 5};
	const int64_t realtime_off = 1700000000000000000LL;
	struct pb snap = {0}, clk = {0};
	int64_t v;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		switch (ids[i]) {
		case 6:
			v = s->boot_ns;
			break;
		case 1:
			v = s->boot_ns + realtime_off;
			break;
		case 2:
			v = (s->boot_ns + realtime_off) / 4000000 * 4000000;
			break;
		case 4:
			v = s->mono_ns / 4000000 * 4000000;
			break;
		case 5:
			v = s->mono_ns - s->mono_ns / 50000;
			break;
		default:
			v = s->mono_ns;
			break;
		}
		pb_reset(&clk);
		pb_int(&clk, 1, ids[i]);
		pb_int(&clk, 2, v);
		pb_msg(&snap, 1, &clk);
	}
	pb_int(&snap, 2, WORLD_CLOCK_BOOTTIME);
	pb_reset(&wr->pkt);
	pb_int(&wr->pkt, TP_TIMESTAMP, s->boot_ns);
	pb_int(&wr->pkt, TP_CLOCK_ID, WORLD_CLOCK_BOOTTIME);
	pb_msg(&wr->pkt, TP_CLOCK_SNAPSHOT, &snap);
	pb_int(&wr->pkt, TP_SEQ_ID, SERVICE_SEQ);
	rc = write_packet(wr);
	pb_release(&snap);
	pb_release(&clk);
	wr->st.snapshots++;
	return rc;
}

static int
write_marker(struct writer *wr)
{
	static const unsigned char uuid[16] = {
		0x82, 0x47, 0x7a, 0x76, 0xb2, 0x8d, 0x42, 0xba,
		0x81, 0xdc, 0x33, 0x32, 0x6d, 0x57, 0xa0, 0x79,
	};

	pb_reset(&wr->pkt);
	pb_bytes(&wr->pkt, TP_SYNC_MARKER, uuid, sizeof(uuid));
	return write_packet(wr);
}

static int
write_header(struct writer *wr, int64_t emit)
{
	const struct world_device *dev = world_get_device(wr->w);
	struct pb cfg = {0}, a = {0}, b = {0};
	char release[64];
	int rc;

	rc = write_marker(wr);
	/* TraceConfig: one buffer, the FrameTimeline data source, to a file. */
	pb_int(&a, 1, 65536);
	pb_int(&a, 4, 2);
	pb_msg(&cfg, 1, &a);
	pb_reset(&a);
	pb_str(&a, 1, "android.surfaceflinger.frametimeline");
	pb_msg(&b, 1, &a);
	pb_msg(&cfg, 2, &b);
	pb_int(&cfg, 29, 1);
	pb_int(&cfg, 30, 2500);
	if (rc == 0)
		rc = service_packet(wr, emit, TP_TRACE_CONFIG, &cfg);
	/* SystemInfo: utsname and the build fingerprint. */
	pb_reset(&a);
	pb_reset(&b);
	snprintf(release, sizeof(release), "5.10.%d-android%d-4-gabcdef",
		 100 + dev->android_sdk, dev->android_sdk - 20);
	pb_str(&a, 1, "Linux");
	pb_str(&a, 2, "#1 SMP PREEMPT");
	pb_str(&a, 3, release);
	pb_str(&a, 4, "aarch64");
	pb_msg(&b, 1, &a);
	pb_str(&b, 2,
	       "google/sim/sim:14/UQ1A.240105.004/11206848:user/"
	       "release-keys");
	if (rc == 0)
		rc = service_packet(wr, emit, TP_SYSTEM_INFO, &b);
	pb_release(&cfg);
	pb_release(&a);
	pb_release(&b);
	return rc;
}

static int
write_stats(struct writer *wr, int64_t emit)
{
	struct pb stats = {0}, buf = {0};
	int rc;

	pb_int(&buf, 1, (int64_t)wr->st.bytes);
	pb_int(&buf, 12, 67108864);
	pb_msg(&stats, 1, &buf);
	pb_int(&stats, 2, 3);
	pb_int(&stats, 3, 5);
	rc = service_packet(wr, emit, TP_TRACE_STATS, &stats);
	pb_release(&stats);
	pb_release(&buf);
	return rc;
}

static int
cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->emit_ns != y->emit_ns)
		return x->emit_ns < y->emit_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
cmp_flush(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->emit_ns != y->emit_ns)
		return x->emit_ns < y->emit_ns ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Counts the starts of a group: each takes a cookie. */
static int64_t
group_cookies(const struct writer *wr, size_t d)
{
	const struct world_df *dfs;
	const struct world_sf *sfs;
	size_t ndf, nsf, i;
	int64_t n;

	dfs = world_dfs(wr->w, &ndf);
	sfs = world_sfs(wr->w, &nsf);
	n = 1 + (dfs[d].has_expected && dfs[d].token != 0);
	for (i = wr->sf_first[d]; i < wr->sf_first[d + 1]; i++)
		n += 1 + sfs[wr->sf_of[i]].has_expected;
	return n;
}

int
pftrace_write(const struct world *w, const char *path, struct pftrace_stats *st)
{
	const struct world_format *fmt = world_get_format(w);
	const struct world_df *dfs;
	const struct world_sf *sfs;
	const struct world_snapshot *snaps;
	struct writer wr;
	struct item *items = NULL, *flush = NULL;
	size_t ndf, nsf, nsnap, nitems = 0, i, *sf_of = NULL, *first = NULL;
	size_t *fill = NULL;
	int64_t *cookie_base = NULL, cookie, t, period;
	int rc = -ENOMEM;

	memset(&wr, 0, sizeof(wr));
	wr.w = w;
	dfs = world_dfs(w, &ndf);
	sfs = world_sfs(w, &nsf);
	snaps = world_snapshots(w, &nsnap);
	period = fmt->write_period_ns;

	/* Surface frames grouped by display frame, in their order. */
	sf_of = calloc(nsf + 1, sizeof(*sf_of));
	first = calloc(ndf + 2, sizeof(*first));
	fill = calloc(ndf + 1, sizeof(*fill));
	cookie_base = calloc(ndf + 1, sizeof(*cookie_base));
	items = calloc(
		ndf + nsnap + 8 +
			(size_t)((fmt->trace_stop_ns - fmt->trace_start_ns) /
					 10000000000LL +
				 2),
		sizeof(*items));
	flush = calloc(ndf + 1, sizeof(*flush));
	if (sf_of == NULL || first == NULL || fill == NULL ||
	    cookie_base == NULL || items == NULL || flush == NULL)
		goto out;
	for (i = 0; i < nsf; i++) {
		if (sfs[i].df < 0 || (size_t)sfs[i].df >= ndf) {
			msg_warnx("cannot write '%s': frame %zu has no "
				  "display frame",
				  path, i);
			rc = -EINVAL;
			goto out;
		}
		first[sfs[i].df + 1]++;
	}
	for (i = 0; i < ndf; i++)
		first[i + 1] += first[i];
	for (i = 0; i < nsf; i++)
		sf_of[first[sfs[i].df] + fill[sfs[i].df]++] = i;
	wr.sf_of = sf_of;
	wr.sf_first = first;
	wr.cookie_base = cookie_base;

	/* Cookies in flush order: SurfaceFlinger's one counter. */
	for (i = 0; i < ndf; i++) {
		flush[i].emit_ns = dfs[i].emit_ns;
		flush[i].idx = i;
	}
	qsort(flush, ndf, sizeof(*flush), cmp_flush);
	cookie = 1;
	for (i = 0; i < ndf; i++) {
		cookie_base[flush[i].idx] = cookie;
		cookie += group_cookies(&wr, flush[i].idx);
	}

	/* Everything that goes into the file, keyed by write order. */
	items[nitems].emit_ns = fmt->trace_start_ns;
	items[nitems].kind = ITEM_HEADER;
	items[nitems].seq = SERVICE_SEQ;
	nitems++;
	for (i = 1; i < nsnap; i++) {
		items[nitems].emit_ns = snaps[i].emit_ns;
		items[nitems].kind = ITEM_SNAPSHOT;
		items[nitems].seq = SERVICE_SEQ;
		items[nitems].idx = i;
		nitems++;
	}
	for (t = fmt->trace_start_ns + 10000000000LL; t < fmt->trace_stop_ns;
	     t += 10000000000LL) {
		items[nitems].emit_ns = t;
		items[nitems].kind = ITEM_MARKER;
		items[nitems].seq = SERVICE_SEQ;
		nitems++;
	}
	for (i = 0; i < ndf; i++) {
		if (!dfs[i].in_trace)
			continue;
		items[nitems].emit_ns = dfs[i].emit_ns;
		items[nitems].kind = ITEM_GROUP;
		items[nitems].seq = dfs[i].seq;
		items[nitems].idx = i;
		nitems++;
	}
	items[nitems].emit_ns = fmt->trace_stop_ns;
	items[nitems].kind = ITEM_STATS;
	items[nitems].seq = SERVICE_SEQ;
	nitems++;
	for (i = 0; i < nitems; i++) {
		/*
		 * A periodic write reads the buffer sequence by sequence: a
		 * period's packets are grouped by sequence.  Otherwise the
		 * file is in flush order.
		 */
		if (period > 0) {
			items[i].key =
				(items[i].emit_ns - fmt->trace_start_ns) /
				period;
		} else {
			items[i].key = 0;
			items[i].seq = 0;
		}
		if (items[i].kind == ITEM_HEADER)
			items[i].key = -1;
		if (items[i].kind == ITEM_STATS)
			items[i].key = INT64_MAX;
	}
	qsort(items, nitems, sizeof(*items), cmp_item);

	wr.f = fopen(path, "wb");
	if (wr.f == NULL) {
		rc = -errno;
		msg_warn("cannot create '%s'", path);
		goto out;
	}
	rc = 0;
	for (i = 0; i < nitems && rc == 0; i++) {
		switch (items[i].kind) {
		case ITEM_HEADER:
			rc = write_header(&wr, fmt->trace_start_ns);
			if (rc == 0 && nsnap > 0)
				rc = write_snapshot(&wr, &snaps[0]);
			break;
		case ITEM_SNAPSHOT:
			rc = write_snapshot(&wr, &snaps[items[i].idx]);
			break;
		case ITEM_MARKER:
			rc = write_marker(&wr);
			break;
		case ITEM_GROUP:
			rc = write_group(&wr, items[i].idx);
			break;
		case ITEM_STATS:
			rc = write_stats(&wr, fmt->trace_stop_ns);
			break;
		}
	}
	if (fclose(wr.f) != 0 && rc == 0)
		rc = -EIO;
	if (rc < 0)
		msg_warnx("cannot write '%s': %s", path, strerror(-rc));
	if (rc == 0 && st != NULL)
		*st = wr.st;
out:
	pb_release(&wr.pkt);
	pb_release(&wr.ev);
	pb_release(&wr.sub);
	free(sf_of);
	free(first);
	free(fill);
	free(cookie_base);
	free(items);
	free(flush);
	return rc;
}
