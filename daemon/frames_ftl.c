/*
 * Perfetto FrameTimeline reader.  See frames_ftl.h for the contract and
 * docs/formats.md section 2 for the format it follows.
 *
 * This part reads the framing of the trace and its TracePackets, and
 * holds the object.  The other parts: frames_ftl_fast.c (the fast path of
 * the common FrameTimeline packet), frames_ftl_clock.c (ClockSnapshots
 * and time conversion), frames_ftl_event.c (FrameTimelineEvent messages),
 * frames_ftl_join.c (surface frames paired with their presents) and
 * frames_ftl_table.c (the hash tables that pairing uses).
 */
#include "frames_ftl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "correlate.h"
#include "frames_ftl_clock.h"
#include "frames_ftl_fast.h"
#include "frames_ftl_int.h"
#include "frames_ftl_join.h"
#include "janktag.h"
#include "log.h"
#include "pb.h"

/*
 * Bytes taken at a time while a record's key and length are incomplete:
 * both together are at most 2 * PB_VARINT_MAX bytes.
 */
#define HDR_CHUNK 32

/* A pending-record buffer above this is released once empty. */
#define PEND_KEEP (1u << 20)

#define READ_CHUNK (64u * 1024)

/* The key of a Trace's packet field: field 1, length-delimited. */
#define TRACE_PACKET_KEY (1u << 3 | PB_WIRE_LEN)

/* TracePacket fields (docs/formats.md 2.2). */
enum {
	TP_CLOCK_SNAPSHOT = 6,
	TP_TIMESTAMP = 8,
	TP_SEQUENCE_ID = 10,
	TP_PREVIOUS_PACKET_DROPPED = 42,
	TP_COMPRESSED_PACKETS = 50,
	TP_TIMESTAMP_CLOCK_ID = 58,
	TP_FRAME_TIMELINE_EVENT = 76,
	TP_ZSTD_COMPRESSED_PACKETS = 133,
};

void
frames_ftl_config_default(struct frames_ftl_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->default_clock = 0;
	cfg->join_window_ns = 10 * NS_PER_S;
	cfg->max_packet = 64u << 20;
	cfg->max_pending = 1024;
	cfg->max_presents = 4096;
	cfg->max_queue = 65536;
	cfg->max_held = 16384;
}

int
frames_ftl_next(struct frames_ftl *r, struct frames_ftl_frame *f)
{
	if (r->q_len == 0)
		return 0;
	*f = r->q[r->q_head];
	r->q_head = (r->q_head + 1) % r->q_cap;
	r->q_len--;
	return 1;
}

static void
on_packet(struct frames_ftl *r, const uint8_t *buf, size_t len)
{
	const uint8_t *snap = NULL, *event = NULL;
	size_t snap_len = 0, event_len = 0;
	bool lost = false, bad = false;
	struct pb_reader rd;
	struct pb_field f;
	struct frames_ftl_pkt pk;
	int rc;

	r->st.packets++;
	memset(&pk, 0, sizeof(pk));
	pb_reader_init(&rd, buf, len);
	while ((rc = pb_next(&rd, &f)) > 0) {
		switch (f.num) {
		case TP_TIMESTAMP:
			bad |= f.wire != PB_WIRE_VARINT;
			pk.ts = f.value;
			pk.has_ts = true;
			break;
		case TP_TIMESTAMP_CLOCK_ID:
			bad |= f.wire != PB_WIRE_VARINT;
			pk.clock = (uint32_t)f.value;
			pk.has_clock = true;
			break;
		case TP_SEQUENCE_ID:
			bad |= f.wire != PB_WIRE_VARINT;
			pk.seq = (uint32_t)f.value;
			break;
		case TP_PREVIOUS_PACKET_DROPPED:
			bad |= f.wire != PB_WIRE_VARINT;
			lost = f.value != 0;
			break;
		case TP_CLOCK_SNAPSHOT:
			bad |= f.wire != PB_WIRE_LEN;
			snap = f.data;
			snap_len = f.len;
			break;
		case TP_FRAME_TIMELINE_EVENT:
			bad |= f.wire != PB_WIRE_LEN;
			event = f.data;
			event_len = f.len;
			break;
		case TP_COMPRESSED_PACKETS:
		case TP_ZSTD_COMPRESSED_PACKETS:
			r->st.compressed++;
			break;
		}
	}
	if (rc < 0 || bad) {
		r->st.malformed++;
		return;
	}
	if (lost)
		r->st.packets_lost++;
	if (snap != NULL)
		frames_ftl_clock_snapshot(r, snap, snap_len);
	if (event != NULL)
		frames_ftl_join_event(r, &pk, event, event_len);
}

/* Reads one TracePacket: the fast path if it takes it, else the general. */
static void
packet(struct frames_ftl *r, const uint8_t *buf, size_t len)
{
	if (!r->cfg.general_only && frames_ftl_fast_packet(r, buf, len))
		return;
	on_packet(r, buf, len);
}

enum {
	REC_DONE,
	REC_MORE,
	REC_BIG,
	REC_BAD,
};

/*
 * Sizes the top-level record at buf[0..len): sets *total to its full size
 * (0 while its key or length is incomplete), *hdr to the bytes before its
 * payload and *plen to the length a len record declares (0 until known).
 * REC_BIG is a packet above max_packet, *total saturating.
 */
static int
record_size(const struct frames_ftl *r, const uint8_t *buf, size_t len,
	    uint64_t *total, size_t *hdr, bool *is_packet, uint64_t *plen)
{
	uint64_t key, v;
	size_t k, n;
	int rc;

	*total = 0;
	*plen = 0;
	rc = pb_varint(buf, len, &key, &k);
	if (rc == -EAGAIN)
		return REC_MORE;
	if (rc < 0 || key > UINT32_MAX || (key >> 3) == 0 ||
	    (key >> 3) > PB_FIELD_MAX)
		return REC_BAD;
	*is_packet = key == (1u << 3 | PB_WIRE_LEN);
	*hdr = k;
	switch (key & 7) {
	case PB_WIRE_VARINT:
		rc = pb_varint(buf + k, len - k, &v, &n);
		if (rc < 0)
			return rc == -EAGAIN ? REC_MORE : REC_BAD;
		*total = k + n;
		*hdr = k + n;
		return REC_DONE;
	case PB_WIRE_I64:
		*total = k + 8;
		break;
	case PB_WIRE_I32:
		*total = k + 4;
		break;
	case PB_WIRE_LEN:
		rc = pb_varint(buf + k, len - k, &v, &n);
		if (rc < 0)
			return rc == -EAGAIN ? REC_MORE : REC_BAD;
		*hdr = k + n;
		*plen = v;
		if (v > r->cfg.max_packet) {
			*total = v > UINT64_MAX - *hdr ? UINT64_MAX : v + *hdr;
			return REC_BIG;
		}
		*total = k + n + v;
		break;
	default:
		/* Groups never frame a trace; nothing after can be trusted. */
		return REC_BAD;
	}
	return *total <= len ? REC_DONE : REC_MORE;
}

/*
 * Sizes the packet record at buf[0..len), len > 4, when its length is a
 * varint of one to three bytes and the whole record is in buf and within
 * max_packet: sets *total and *hdr as record_size() would and returns
 * true.  False leaves the record to record_size().
 */
static inline bool
frame_short(const struct frames_ftl *r, const uint8_t *buf, size_t len,
	    uint64_t *total, size_t *hdr)
{
	uint64_t v;
	size_t n;

	if (buf[1] < 0x80) {
		v = buf[1];
		n = 1;
	} else if (buf[2] < 0x80) {
		v = (buf[1] & 0x7fu) | (uint64_t)buf[2] << 7;
		n = 2;
	} else if (buf[3] < 0x80) {
		v = (buf[1] & 0x7fu) | (uint64_t)(buf[2] & 0x7fu) << 7 |
		    (uint64_t)buf[3] << 14;
		n = 3;
	} else {
		return false;
	}
	if (v > r->cfg.max_packet || 1 + n + v > len)
		return false;
	*hdr = 1 + n;
	*total = 1 + n + v;
	return true;
}

static void
corrupt(struct frames_ftl *r)
{
	if (!r->broken)
		log_warnx("cannot read frame timeline trace: bad record "
			  "framing at byte %llu after %llu packets, ignoring "
			  "the rest",
			  (unsigned long long)r->rec_at,
			  (unsigned long long)r->st.packets);
	r->st.corrupt_at = r->rec_at;
	r->broken = true;
	r->st.corrupt++;
}

/*
 * Reads the complete records at the head of buf[0..len) and returns the
 * bytes used.  When it stops at an incomplete record, *need is that
 * record's size if known, else 0.
 */
static size_t
consume(struct frames_ftl *r, const uint8_t *buf, size_t len, uint64_t *need)
{
	size_t off = 0, hdr = 0;
	bool is_packet = false;
	uint64_t total, plen;

	*need = 0;
	while (off < len) {
		/*
		 * The common record, a packet whose length takes one to three
		 * bytes, framed inline: what record_size() would find.
		 */
		if (buf[off] == TRACE_PACKET_KEY && len - off > 4 &&
		    frame_short(r, buf + off, len - off, &total, &hdr)) {
			packet(r, buf + off + hdr, (size_t)total - hdr);
			r->rec_at += total;
			off += (size_t)total;
			continue;
		}
		switch (record_size(r, buf + off, len - off, &total, &hdr,
				    &is_packet, &plen)) {
		case REC_BAD:
			corrupt(r);
			r->st.ignored_bytes += len - off;
			return len;
		case REC_MORE:
			*need = total;
			return off;
		case REC_BIG:
			/* Kept to say which record eof cut off, if it does. */
			r->st.oversized++;
			r->skip_at = r->rec_at;
			r->skip_len = plen;
			r->rec_at = total > UINT64_MAX - r->rec_at
					    ? UINT64_MAX
					    : r->rec_at + total;
			if (total <= len - off) {
				r->st.skipped_bytes += total;
				off += (size_t)total;
				break;
			}
			r->st.skipped_bytes += len - off;
			r->skip = total - (len - off);
			return len;
		case REC_DONE:
			if (is_packet)
				packet(r, buf + off + hdr, (size_t)total - hdr);
			else
				r->st.malformed++;
			r->rec_at += total;
			off += (size_t)total;
			break;
		}
	}
	return off;
}

/* Appends to the incomplete record, with room for all of it. */
static int
pend_add(struct frames_ftl *r, const uint8_t *buf, size_t len, uint64_t need)
{
	size_t want = r->pend_len + len, cap;
	uint8_t *np;

	if (need > want)
		want = (size_t)need;
	if (want > r->pend_cap) {
		cap = r->pend_cap < HDR_CHUNK ? 2 * HDR_CHUNK : r->pend_cap;
		while (cap < want)
			cap *= 2;
		np = realloc(r->pend, cap);
		if (np == NULL) {
			log_warnx("cannot buffer a frame timeline record of "
				  "%zu bytes: out of memory",
				  want);
			r->broken = true;
			return -ENOMEM;
		}
		r->pend = np;
		r->pend_cap = cap;
	}
	memcpy(r->pend + r->pend_len, buf, len);
	r->pend_len += len;
	return 0;
}

int
frames_ftl_feed(struct frames_ftl *r, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t need;
	size_t n;
	int rc;

	if (r->eof)
		return -EINVAL;
	r->st.bytes += len;
	while (len > 0) {
		if (r->broken) {
			r->st.ignored_bytes += len;
			break;
		}
		if (r->skip > 0) {
			n = len < r->skip ? len : (size_t)r->skip;
			r->skip -= n;
			r->st.skipped_bytes += n;
			p += n;
			len -= n;
			continue;
		}
		if (r->pend_len == 0) {
			/* The common case: records straight from the input. */
			n = consume(r, p, len, &need);
			p += n;
			len -= n;
			if (len == 0 || r->broken || r->skip > 0)
				continue;
			rc = pend_add(r, p, len, need);
			if (rc < 0)
				return rc;
			r->pend_need = need;
			break;
		}
		/*
		 * Complete the kept record: exactly its missing bytes when
		 * its size is known, else enough to read its key and length.
		 */
		if (r->pend_need > r->pend_len)
			n = r->pend_need - r->pend_len < len
				    ? (size_t)(r->pend_need - r->pend_len)
				    : len;
		else
			n = len < HDR_CHUNK ? len : HDR_CHUNK;
		rc = pend_add(r, p, n, r->pend_need);
		if (rc < 0)
			return rc;
		p += n;
		len -= n;
		n = consume(r, r->pend, r->pend_len, &need);
		memmove(r->pend, r->pend + n, r->pend_len - n);
		r->pend_len -= n;
		r->pend_need = r->pend_len > 0 ? need : 0;
		if (r->pend_len == 0 && r->pend_cap > PEND_KEEP) {
			free(r->pend);
			r->pend = NULL;
			r->pend_cap = 0;
		}
	}
	return 0;
}

void
frames_ftl_eof(struct frames_ftl *r)
{
	if (r->eof)
		return;
	r->eof = true;
	if (r->skip > 0) {
		r->st.truncated++;
		r->st.cut_at = r->skip_at;
		r->st.cut_len = r->skip_len;
	} else if (r->pend_len > 0) {
		uint64_t total, plen;
		bool is_packet;
		size_t hdr;

		r->st.truncated++;
		r->st.cut_at = r->rec_at;
		r->st.skipped_bytes += r->pend_len;
		(void)record_size(r, r->pend, r->pend_len, &total, &hdr,
				  &is_packet, &plen);
		r->st.cut_len = plen;
	}
	r->pend_len = 0;
	r->pend_need = 0;
	r->skip = 0;
	frames_ftl_clock_end(r);
	frames_ftl_join_end(r);
}

int
frames_ftl_new(const struct frames_ftl_config *cfg, struct frames_ftl **out)
{
	struct frames_ftl_config def;
	struct frames_ftl *r = NULL;
	uint32_t i;
	int rc = -EINVAL;

	if (cfg == NULL) {
		frames_ftl_config_default(&def);
		cfg = &def;
	}
	if (cfg->default_clock > 63 || cfg->join_window_ns <= 0 ||
	    cfg->join_window_ns > 3600 * NS_PER_S || cfg->max_packet < 16 ||
	    cfg->max_packet > (1u << 30) || cfg->max_pending == 0 ||
	    cfg->max_pending > (1u << 20) || cfg->max_presents == 0 ||
	    cfg->max_presents > (1u << 20) || cfg->max_queue == 0 ||
	    cfg->max_queue > (1u << 24) || cfg->max_held == 0 ||
	    cfg->max_held > (1u << 22))
		goto out;
	rc = -ENOMEM;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		goto out;
	r->cfg = *cfg;
	r->now = r->last_sweep = r->max_present = FTL_TIME_NONE;
	r->wm = r->cov = FTL_TIME_NONE;
	r->open_oldest = INT64_MAX;
	if (frames_ftl_table_init(&r->open, cfg->max_pending) < 0 ||
	    frames_ftl_table_init(&r->presents, cfg->max_presents) < 0)
		goto out;
	r->pool = calloc(cfg->max_pending, sizeof(*r->pool));
	if (r->pool == NULL)
		goto out;
	/* A power of two, so that the ring's indexes wrap with a mask. */
	r->pres_cap = 16;
	while (r->pres_cap < 2 * cfg->max_presents)
		r->pres_cap *= 2;
	r->pres = calloc(r->pres_cap, sizeof(*r->pres));
	if (r->pres == NULL)
		goto out;
	r->pres_sorted = true;
	for (i = 0; i < cfg->max_pending; i++)
		r->pool[i].next_free =
			i + 1 < cfg->max_pending ? i + 1 : NONE_IDX;
	r->pool_free = 0;
	*out = r;
	r = NULL;
	rc = 0;
out:
	frames_ftl_free(r);
	return rc;
}

void
frames_ftl_free(struct frames_ftl *r)
{
	if (r == NULL)
		return;
	frames_ftl_clock_free(r);
	free(r->pend);
	free(r->open.slot);
	free(r->presents.slot);
	free(r->pool);
	free(r->pres);
	free(r->q);
	free(r);
}

int64_t
frames_ftl_watermark(const struct frames_ftl *r)
{
	/* A held event may still give a frame presented before r->wm. */
	return r->held_len > 0 ? r->held_wm : r->wm;
}

int64_t
frames_ftl_coverage_start(const struct frames_ftl *r)
{
	return r->cov;
}

void
frames_ftl_get_stats(const struct frames_ftl *r, struct frames_ftl_stats *st)
{
	*st = r->st;
	st->waiting = r->waiting;
}

void
frames_ftl_frame_to_correlate(const struct frames_ftl_frame *f,
			      struct correlate_frame *cf)
{
	memset(cf, 0, sizeof(*cf));
	cf->pid = f->pid;
	cf->layer = f->layer;
	cf->start_ns = f->start_ns;
	cf->present_ns = f->present_ns;
	cf->jank = f->jank;
	cf->jank_tags = janktag_surface(f->jank, f->present_type);
	if (f->flags & FTL_FRAME_CLOCK_ASSUMED)
		cf->flags |= CORRELATE_FRAME_CLOCK_ASSUMED;
	if (f->flags & FTL_FRAME_START_ESTIMATED)
		cf->flags |= CORRELATE_FRAME_START_ESTIMATED;
	if (f->flags & FTL_FRAME_PRESENT_ESTIMATED)
		cf->flags |= CORRELATE_FRAME_PRESENT_ESTIMATED;
}

static int
drain(struct frames_ftl *r, frames_ftl_frame_cb cb, void *ctx)
{
	struct frames_ftl_frame f;
	int rc;

	while (frames_ftl_next(r, &f) == 1) {
		rc = cb(ctx, &f);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
frames_ftl_read_file(struct frames_ftl *r, const char *path,
		     frames_ftl_frame_cb cb, void *ctx)
{
	uint8_t *buf = NULL;
	ssize_t n;
	int fd = -1, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		log_warn("cannot open '%s'", path);
		goto out;
	}
	rc = -ENOMEM;
	buf = malloc(READ_CHUNK);
	if (buf == NULL)
		goto out;
	for (;;) {
		n = read(fd, buf, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			log_warn("cannot read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		rc = frames_ftl_feed(r, buf, (size_t)n);
		if (rc < 0)
			goto out;
		rc = drain(r, cb, ctx);
		if (rc < 0)
			goto out;
	}
	frames_ftl_eof(r);
	rc = drain(r, cb, ctx);
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}
