/* The fast path of the FrameTimeline reader. */
#include "frames_ftl_fast.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "frames_ftl_event.h"
#include "frames_ftl_join.h"
#include "pb.h"

/* The keys of the TracePacket fields taken (docs/formats.md 2.2). */
#define KEY(num, wire) ((uint64_t)(num) << 3 | (wire))
#define K_TIMESTAMP    KEY(8, PB_WIRE_VARINT)
#define K_SEQUENCE_ID  KEY(10, PB_WIRE_VARINT)
#define K_LOST	       KEY(42, PB_WIRE_VARINT)
#define K_CLOCK_ID     KEY(58, PB_WIRE_VARINT)
#define K_EVENT	       KEY(76, PB_WIRE_LEN)

/*
 * Field numbers of a TracePacket that the general walk reads, or counts,
 * whatever their wire type: one of them in any other shape than the keys
 * above is the general walk's to judge.
 */
static bool
packet_field_known(uint64_t num)
{
	switch (num) {
	case 6:	  /* clock_snapshot */
	case 8:	  /* timestamp */
	case 10:  /* trusted_packet_sequence_id */
	case 42:  /* previous_packet_dropped */
	case 50:  /* compressed_packets */
	case 58:  /* timestamp_clock_id */
	case 76:  /* frame_timeline_event */
	case 133: /* zstd_compressed_packets */
		return true;
	}
	return false;
}

/*
 * Skips the payload of a field of wire type i32 or i64; NULL for any other
 * wire type (a varint is read where it is met) or a payload past end.
 */
static inline __attribute__((always_inline)) const uint8_t *
skip_fixed(const uint8_t *p, const uint8_t *end, uint64_t wire)
{
	if (wire == PB_WIRE_I64)
		return end - p >= 8 ? p + 8 : NULL;
	if (wire == PB_WIRE_I32)
		return end - p >= 4 ? p + 4 : NULL;
	return NULL;
}

/* The key at p, checked as pb_next() checks it; NULL when it fails. */
static inline __attribute__((always_inline)) const uint8_t *
key_at(const uint8_t *p, const uint8_t *end, uint64_t *key)
{
	/* One byte: fields 1 to 15, 0 being the only bad number. */
	if (p < end && *p < 0x80) {
		*key = *p;
		return *p >= 8 ? p + 1 : NULL;
	}
	p = pb_varint_at(p, end, key);
	if (p == NULL || *key > UINT32_MAX || (*key >> 3) == 0 ||
	    (*key >> 3) > PB_FIELD_MAX)
		return NULL;
	return p;
}

/*
 * The length-delimited payload at p: sets *data and *len and returns the
 * position after it, or NULL when the length does not fit.
 */
static inline __attribute__((always_inline)) const uint8_t *
len_at(const uint8_t *p, const uint8_t *end, const uint8_t **data, size_t *len)
{
	uint64_t v;

	p = pb_varint_at(p, end, &v);
	if (p == NULL || v > (uint64_t)(end - p))
		return NULL;
	*data = p;
	*len = (size_t)v;
	return p + v;
}

/*
 * Decodes the member body buf[0..len) of kind into *ev, as
 * frames_ftl_event_parse() does.  Returns false when the body is not of
 * the fast path's shapes or lacks a required field.
 */
static bool
member(int kind, const uint8_t *p, size_t len, struct frames_ftl_event *ev)
{
	const uint8_t *end = p + len;
	const uint8_t *map = frames_ftl_event_map[kind];
	uint64_t key, v = 0;
	unsigned what;

	memset(ev, 0, sizeof(*ev));
	/* A FrameEnd, half of all packets, is its cookie alone. */
	if (kind == EV_FRAME_END && len >= 2 && p[0] == 0x08) {
		p = pb_varint_at(p + 1, end, &v);
		if (p == end) {
			frames_ftl_event_store(ev, F_COOKIE, v);
			return true;
		}
		p = end - len;
	}
	while (p < end) {
		p = key_at(p, end, &key);
		if (p == NULL)
			return false;
		what = (key >> 3) < EV_FIELDS ? map[key >> 3] : F_SKIP;
		if (what == F_LAYER) {
			if ((key & 7) != PB_WIRE_LEN)
				return false;
			p = len_at(p, end, &ev->layer, &ev->layer_len);
			if (p == NULL)
				return false;
			ev->have |= HAVE(F_LAYER);
			continue;
		}
		if ((key & 7) != PB_WIRE_VARINT) {
			/* Only a field of no meaning may be of another type. */
			if (what != F_SKIP)
				return false;
			p = skip_fixed(p, end, key & 7);
			if (p == NULL)
				return false;
			continue;
		}
		p = pb_varint_at(p, end, &v);
		if (p == NULL)
			return false;
		if (what != F_SKIP)
			frames_ftl_event_store(ev, what, v);
	}
	return (ev->have & frames_ftl_event_required[kind]) ==
	       frames_ftl_event_required[kind];
}

/*
 * Finds the member of the FrameTimelineEvent buf[0..len): the last one on
 * the wire, as a oneof reads.  Returns its kind, or EV_NONE when the
 * event is not of the fast path's shapes.
 */
static int
event(const uint8_t *p, size_t len, const uint8_t **body, size_t *body_len)
{
	const uint8_t *end = p + len;
	int kind = EV_NONE;
	uint64_t key;

	while (p < end) {
		p = key_at(p, end, &key);
		if (p == NULL || (key & 7) != PB_WIRE_LEN ||
		    (key >> 3) >= EV_COUNT)
			return EV_NONE;
		p = len_at(p, end, body, body_len);
		if (p == NULL)
			return EV_NONE;
		kind = (int)(key >> 3);
	}
	return kind;
}

int
frames_ftl_fast_packet(struct frames_ftl *r, const uint8_t *buf, size_t len)
{
	const uint8_t *p = buf, *end = buf + len, *ev_buf = NULL, *body;
	struct frames_ftl_event ev;
	struct frames_ftl_pkt pk;
	size_t ev_len = 0, body_len;
	uint64_t key, v;
	bool lost = false;
	int kind;

	pk.has_ts = false;
	pk.has_clock = false;
	pk.clock = 0;
	pk.seq = 0;
	pk.ts = 0;
	/*
	 * SurfaceFlinger's packets open with the timestamp and the clock,
	 * which are read without the loop's dispatch when they do; any
	 * other order goes through the loop, which reads the same.
	 */
	if (end - p >= 2 && p[0] == K_TIMESTAMP) {
		p = pb_varint_at(p + 1, end, &pk.ts);
		if (p == NULL)
			return 0;
		pk.has_ts = true;
		if (end - p >= 3 && p[0] == (K_CLOCK_ID & 0x7f) + 0x80 &&
		    p[1] == K_CLOCK_ID >> 7 && p[2] < 0x80) {
			pk.clock = p[2];
			pk.has_clock = true;
			p += 3;
		}
	}
	while (p < end) {
		p = key_at(p, end, &key);
		if (p == NULL)
			return 0;
		if (key == K_EVENT) {
			p = len_at(p, end, &ev_buf, &ev_len);
			if (p == NULL)
				return 0;
			continue;
		}
		if ((key & 7) != PB_WIRE_VARINT) {
			if (packet_field_known(key >> 3))
				return 0;
			p = skip_fixed(p, end, key & 7);
			if (p == NULL)
				return 0;
			continue;
		}
		p = pb_varint_at(p, end, &v);
		if (p == NULL)
			return 0;
		switch (key) {
		case K_TIMESTAMP:
			pk.ts = v;
			pk.has_ts = true;
			break;
		case K_CLOCK_ID:
			pk.clock = (uint32_t)v;
			pk.has_clock = true;
			break;
		case K_SEQUENCE_ID:
			pk.seq = (uint32_t)v;
			break;
		case K_LOST:
			lost = v != 0;
			break;
		default:
			/* Any of the others as a varint is the general walk's.
			 */
			if (packet_field_known(key >> 3))
				return 0;
			break;
		}
	}
	if (ev_buf == NULL || !pk.has_ts)
		return 0;
	kind = event(ev_buf, ev_len, &body, &body_len);
	if (kind == EV_NONE || !member(kind, body, body_len, &ev))
		return 0;
	r->st.packets++;
	r->st.fast_packets++;
	if (lost)
		r->st.packets_lost++;
	r->st.frame_events++;
	frames_ftl_join_apply(r, &pk, kind, &ev);
	return 1;
}
