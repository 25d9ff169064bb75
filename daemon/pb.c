/*
 * Protocol Buffers wire-format reader.  See pb.h for the contract.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "pb.h"

int
pb_varint(const uint8_t *buf, size_t len, uint64_t *v, size_t *used)
{
	uint64_t acc = 0;
	size_t i;

	for (i = 0; i < len && i < PB_VARINT_MAX; i++) {
		uint8_t b = buf[i];

		/*
		 * The tenth byte holds bit 63 only: anything more is either
		 * an overflow or a continuation into an eleventh byte.
		 */
		if (i == PB_VARINT_MAX - 1 && b > 1)
			return -EBADMSG;
		acc |= (uint64_t)(b & 0x7f) << (7 * i);
		if ((b & 0x80) == 0) {
			*v = acc;
			*used = i + 1;
			return 0;
		}
	}
	return -EAGAIN;
}

void
pb_reader_init(struct pb_reader *r, const void *buf, size_t len)
{
	if (buf == NULL) {
		r->pos = r->end = NULL;
		return;
	}
	r->pos = buf;
	r->end = r->pos + len;
}

size_t
pb_reader_left(const struct pb_reader *r)
{
	return (size_t)(r->end - r->pos);
}

static uint64_t
load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/*
 * Reads one key and, for every wire type but the group ones, its payload,
 * from *pos.  Shared by pb_next() and the group skipper so both apply the
 * same bounds.  Returns 0 and advances *pos, or -EBADMSG.
 */
static int
read_field(const uint8_t **pos, const uint8_t *end, struct pb_field *f)
{
	const uint8_t *p = *pos;
	uint64_t key, v;
	size_t n;

	if (pb_varint(p, (size_t)(end - p), &key, &n) < 0)
		return -EBADMSG;
	p += n;
	if (key > UINT32_MAX || (key >> 3) == 0 || (key >> 3) > PB_FIELD_MAX)
		return -EBADMSG;
	f->num = (uint32_t)(key >> 3);
	f->wire = (enum pb_wire)(key & 7);
	f->value = 0;
	f->data = NULL;
	f->len = 0;
	switch (key & 7) {
	case PB_WIRE_VARINT:
		if (pb_varint(p, (size_t)(end - p), &v, &n) < 0)
			return -EBADMSG;
		f->value = v;
		p += n;
		break;
	case PB_WIRE_I64:
		if (end - p < 8)
			return -EBADMSG;
		f->value = load_le(p, 8);
		p += 8;
		break;
	case PB_WIRE_I32:
		if (end - p < 4)
			return -EBADMSG;
		f->value = load_le(p, 4);
		p += 4;
		break;
	case PB_WIRE_LEN:
		if (pb_varint(p, (size_t)(end - p), &v, &n) < 0)
			return -EBADMSG;
		p += n;
		/* Compared as unsigned 64-bit so no length can wrap. */
		if (v > (uint64_t)(end - p))
			return -EBADMSG;
		f->data = p;
		f->len = (size_t)v;
		p += v;
		break;
	case PB_WIRE_SGROUP:
	case PB_WIRE_EGROUP:
		break;
	default:
		return -EBADMSG;
	}
	*pos = p;
	return 0;
}

/*
 * Skips the body of the group that field num opened, *pos being just past
 * its start key.  Nested groups are tracked on a small stack rather than by
 * recursion, so hostile nesting costs neither stack nor time beyond the
 * input's length.  On success sets f's payload to the body and moves *pos
 * past the end key.
 */
static int
skip_group(const uint8_t **pos, const uint8_t *end, uint32_t num,
	   struct pb_field *f)
{
	uint32_t open[PB_GROUP_DEPTH_MAX];
	const uint8_t *body = *pos, *p = *pos, *key_at;
	struct pb_field in;
	unsigned depth = 0;

	open[depth++] = num;
	while (depth > 0) {
		if (p >= end)
			return -EBADMSG;
		key_at = p;
		if (read_field(&p, end, &in) < 0)
			return -EBADMSG;
		if (in.wire == PB_WIRE_SGROUP) {
			if (depth == PB_GROUP_DEPTH_MAX)
				return -EBADMSG;
			open[depth++] = in.num;
		} else if (in.wire == PB_WIRE_EGROUP) {
			if (in.num != open[depth - 1])
				return -EBADMSG;
			depth--;
			if (depth == 0) {
				f->data = body;
				f->len = (size_t)(key_at - body);
			}
		}
	}
	*pos = p;
	return 0;
}

int
pb_next(struct pb_reader *r, struct pb_field *f)
{
	const uint8_t *p = r->pos;

	if (p >= r->end)
		return 0;
	if (read_field(&p, r->end, f) < 0)
		goto bad;
	if (f->wire == PB_WIRE_EGROUP)
		goto bad;
	if (f->wire == PB_WIRE_SGROUP && skip_group(&p, r->end, f->num, f) < 0)
		goto bad;
	r->pos = p;
	return 1;
bad:
	r->pos = r->end;
	memset(f, 0, sizeof(*f));
	return -EBADMSG;
}
