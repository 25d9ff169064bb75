/*
 * Protocol Buffers wire-format reader: walks the fields of one serialized
 * message held in memory, without a schema, a library or any allocation.
 * Every read is bounded by the buffer; input is treated as hostile.
 *
 * A message is a sequence of fields, each a key varint (field number << 3 |
 * wire type) followed by a payload whose shape the wire type gives:
 *
 *   0 varint   1 to 10 bytes, 7 bits each, least significant group first
 *   1 i64      8 bytes, little endian (fixed64, sfixed64, double)
 *   2 len      a varint length, then that many bytes (strings, bytes,
 *              nested messages, packed repeated fields)
 *   3 sgroup   start of a group (deprecated): fields up to the matching
 *              end-group key of the same field number
 *   4 egroup   end of a group; never valid on its own
 *   5 i32      4 bytes, little endian (fixed32, sfixed32, float)
 *
 * pb_next() returns every field, known or not, so a caller skips what it
 * does not know simply by ignoring it.  Groups are skipped whole (nested
 * groups included, up to PB_GROUP_DEPTH_MAX deep) and returned as one
 * field whose payload is the group's body.
 */
#ifndef TAPD_PB_H
#define TAPD_PB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The longest valid varint: 64 bits in groups of 7. */
#define PB_VARINT_MAX 10

/* How deeply groups may nest inside one group before it is rejected. */
#define PB_GROUP_DEPTH_MAX 32

/* The largest field number protobuf allows (2^29 - 1). */
#define PB_FIELD_MAX 536870911u

enum pb_wire {
	PB_WIRE_VARINT = 0,
	PB_WIRE_I64 = 1,
	PB_WIRE_LEN = 2,
	PB_WIRE_SGROUP = 3,
	PB_WIRE_EGROUP = 4,
	PB_WIRE_I32 = 5,
};

/*
 * A cursor over one message.  Unlike the daemon's other objects it is not
 * opaque: a reader is made for every nested message, often several per
 * packet, and putting it on the caller's stack is what keeps decoding free
 * of allocation.  Callers must not touch the members; use
 * pb_reader_init(), pb_next() and pb_reader_left().
 */
struct pb_reader {
	const uint8_t *pos;
	const uint8_t *end;
};

/* One field, as pb_next() returns it. */
struct pb_field {
	uint32_t num;	   /* field number, 1 .. PB_FIELD_MAX */
	enum pb_wire wire; /* never PB_WIRE_EGROUP */
	/*
	 * The value of a varint, i64 or i32 field (an i32 in the low 32
	 * bits); 0 for len and group fields.
	 */
	uint64_t value;
	/*
	 * The payload of a len field, or the body of a group (between its
	 * start and end keys); NULL and 0 for the other wire types.  Points
	 * into the reader's buffer.
	 */
	const uint8_t *data;
	size_t len;
};

/*
 * Decodes the varint at the start of buf[0..len).  Returns 0, sets *v and
 * sets *used to the bytes it took (1 .. PB_VARINT_MAX); -EAGAIN when buf
 * ends before the varint does (fewer than PB_VARINT_MAX bytes, all with
 * the continuation bit: more input could complete it); -EBADMSG when the
 * varint is longer than PB_VARINT_MAX bytes or overflows 64 bits.
 * Non-minimal encodings (0x80 0x00 for 0) are valid protobuf and accepted.
 */
int pb_varint(const uint8_t *buf, size_t len, uint64_t *v, size_t *used);

/*
 * The varint at p, for decoders that walk a buffer themselves: returns
 * the position just past it and sets *v, or NULL wherever pb_varint()
 * would fail (the varint runs past end, is longer than PB_VARINT_MAX
 * bytes or overflows 64 bits).  Inline, with the one- and two-byte cases
 * first, since they are most keys and most values; a longer one with
 * eight bytes at hand (a timestamp) is decoded from one load, its 7-bit
 * groups gathered by three shifts rather than a loop.
 */
static inline __attribute__((always_inline)) const uint8_t *
pb_varint_at(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t w, stop, x, acc = 0;
	unsigned shift, n;
	uint8_t b;

	if (p < end && p[0] < 0x80) {
		*v = p[0];
		return p + 1;
	}
	if (end - p >= 2 && p[1] < 0x80) {
		*v = (p[0] & 0x7fu) | (uint64_t)p[1] << 7;
		return p + 2;
	}
	if (end - p >= 8) {
		memcpy(&w, p, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		stop = ~w & 0x8080808080808080ull;
		if (stop != 0) {
			/* n bytes, the last the first without its top bit. */
			n = (unsigned)__builtin_ctzll(stop) / 8 + 1;
			x = n == 8 ? w : w & ((1ull << (8 * n)) - 1);
			x &= 0x7f7f7f7f7f7f7f7full;
			x = (x & 0x007f007f007f007full) |
			    (x & 0x7f007f007f007f00ull) >> 1;
			x = (x & 0x00003fff00003fffull) |
			    (x & 0x3fff00003fff0000ull) >> 2;
			x = (x & 0x000000000fffffffull) |
			    (x & 0x0fffffff00000000ull) >> 4;
			*v = x;
			return p + n;
		}
	}
	for (shift = 0; shift < 7 * PB_VARINT_MAX; shift += 7) {
		if (p >= end)
			return NULL;
		b = *p++;
		/* The tenth byte holds bit 63 only, as in pb_varint(). */
		if (shift == 7 * (PB_VARINT_MAX - 1) && b > 1)
			return NULL;
		acc |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*v = acc;
			return p;
		}
	}
	return NULL;
}

/*
 * Points r at the message buf[0..len).  The buffer is not copied and must
 * outlive the reader and the fields it returns.
 */
void pb_reader_init(struct pb_reader *r, const void *buf, size_t len);

/*
 * Reads the next field.  Returns 1 and fills *f; 0 at the end of the
 * message; -EBADMSG when the message is malformed: a truncated or overlong
 * varint, field number 0 or above PB_FIELD_MAX, wire type 6 or 7, a
 * payload that runs past the end (lengths are checked against what is
 * left, so a huge length is just malformed), an end-group key with no
 * matching start, or groups nested too deeply or left open.  After an
 * error the reader is at the end, so later calls return 0.
 */
int pb_next(struct pb_reader *r, struct pb_field *f);

/* Bytes left to read in the message. */
size_t pb_reader_left(const struct pb_reader *r);

/*
 * Reinterpretations of a varint value, as protobuf defines them: int64 and
 * int32 are two's complement (int32 keeps the low 32 bits, as protobuf
 * parsers do); sint64 and sint32 are zigzag encoded.  Inline, since a
 * decoder calls one for nearly every field.  memcpy is the defined way to
 * reinterpret the bits, and compiles to nothing.
 */
static inline int64_t
pb_int64(uint64_t v)
{
	int64_t s;

	memcpy(&s, &v, sizeof(s));
	return s;
}

static inline int32_t
pb_int32(uint64_t v)
{
	uint32_t low = (uint32_t)v;
	int32_t s;

	memcpy(&s, &low, sizeof(s));
	return s;
}

static inline int64_t
pb_sint64(uint64_t v)
{
	return pb_int64((v >> 1) ^ (0 - (v & 1)));
}

static inline int32_t
pb_sint32(uint64_t v)
{
	uint32_t low = (uint32_t)v;

	return pb_int32((low >> 1) ^ (0u - (low & 1)));
}

#endif
