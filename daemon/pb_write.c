#include "pb_write.h"

#include <stdlib.h>
#include <string.h>

#include "pb.h"

void
pb_write_put(struct pb_writer *w, const void *data, size_t n)
{
	uint8_t *q;
	size_t cap;

	if (w->oom || n == 0)
		return;
	if (n > SIZE_MAX / 2 - w->len) {
		w->oom = 1;
		return;
	}
	if (w->len + n > w->cap) {
		cap = w->cap ? w->cap : 128;
		while (cap < w->len + n)
			cap *= 2;
		q = realloc(w->p, cap);
		if (!q) {
			w->oom = 1;
			return;
		}
		w->p = q;
		w->cap = cap;
	}
	memcpy(w->p + w->len, data, n);
	w->len += n;
}

void
pb_write_varint(struct pb_writer *w, uint64_t v)
{
	uint8_t tmp[PB_VARINT_MAX];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	pb_write_put(w, tmp, n);
}

static void
key(struct pb_writer *w, uint32_t field, enum pb_wire wire)
{
	pb_write_varint(w, (uint64_t)field << 3 | (uint64_t)wire);
}

void
pb_write_uint(struct pb_writer *w, uint32_t field, uint64_t v)
{
	key(w, field, PB_WIRE_VARINT);
	pb_write_varint(w, v);
}

void
pb_write_int(struct pb_writer *w, uint32_t field, int64_t v)
{
	uint64_t u;

	/* Two's complement, as protobuf writes int64 and int32. */
	memcpy(&u, &v, sizeof(u));
	pb_write_uint(w, field, u);
}

void
pb_write_bytes(struct pb_writer *w, uint32_t field, const void *data, size_t n)
{
	key(w, field, PB_WIRE_LEN);
	pb_write_varint(w, n);
	pb_write_put(w, data, n);
}

void
pb_write_str(struct pb_writer *w, uint32_t field, const char *s)
{
	pb_write_bytes(w, field, s, strlen(s));
}

void
pb_write_msg(struct pb_writer *w, uint32_t field, const struct pb_writer *child)
{
	if (child->oom)
		w->oom = 1;
	pb_write_bytes(w, field, child->p, child->len);
}

void
pb_write_reset(struct pb_writer *w)
{
	w->len = 0;
}

void
pb_write_release(struct pb_writer *w)
{
	free(w->p);
	w->p = NULL;
	w->len = w->cap = 0;
}
