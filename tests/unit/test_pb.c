/*
 * Tests of the protobuf wire reader: varints at their limits, every wire
 * type (groups included), hostile lengths, nesting, and a walk over the
 * real FrameTimeline fixture.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pb.h"

#define FIXTURE "tests/fixtures/perfetto/one-app-frame.pftrace"

/* A small writer, so tests state their messages field by field. */
struct wbuf {
	uint8_t b[512];
	size_t n;
};

static void
put_byte(struct wbuf *w, uint8_t v)
{
	assert_true(w->n < sizeof(w->b));
	w->b[w->n++] = v;
}

static void
put_varint(struct wbuf *w, uint64_t v)
{
	while (v >= 0x80) {
		put_byte(w, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	put_byte(w, (uint8_t)v);
}

static void
put_key(struct wbuf *w, uint32_t num, unsigned wire)
{
	put_varint(w, (uint64_t)num << 3 | wire);
}

static void
put_fixed(struct wbuf *w, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		put_byte(w, (uint8_t)(v >> (8 * i)));
}

static void
put_bytes(struct wbuf *w, uint32_t num, const void *p, size_t len)
{
	put_key(w, num, PB_WIRE_LEN);
	put_varint(w, len);
	assert_true(w->n + len <= sizeof(w->b));
	memcpy(w->b + w->n, p, len);
	w->n += len;
}

static int
varint(const uint8_t *b, size_t len, uint64_t *v, size_t *used)
{
	*v = 12345;
	*used = 999;
	return pb_varint(b, len, v, used);
}

static void
test_varint_values(void **state)
{
	static const struct {
		uint8_t b[10];
		size_t len;
		uint64_t v;
	} ok[] = {
		{{0x00}, 1, 0},
		{{0x01}, 1, 1},
		{{0x7f}, 1, 127},
		{{0xac, 0x02}, 2, 300},
		{{0x80, 0x00}, 2, 0}, /* non-minimal, still valid */
		{{0xff, 0xff, 0xff, 0xff, 0x0f}, 5, 0xffffffffu},
		{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		 10,
		 UINT64_MAX},
		{{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
		 10,
		 1ull << 63},
	};
	uint64_t v;
	size_t used, i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(varint(ok[i].b, ok[i].len, &v, &used), 0);
		assert_true(v == ok[i].v);
		assert_int_equal(used, ok[i].len);
	}
}

static void
test_varint_truncated(void **state)
{
	static const uint8_t b[] = {0x80, 0x80, 0x80, 0x80, 0x80,
				    0x80, 0x80, 0x80, 0x80, 0x01};
	uint64_t v;
	size_t used, len;

	(void)state;
	/* Every strict prefix of a 10-byte varint may still complete. */
	for (len = 0; len < sizeof(b); len++)
		assert_int_equal(varint(b, len, &v, &used), -EAGAIN);
	assert_int_equal(varint(b, sizeof(b), &v, &used), 0);
	assert_true(v == 1ull << 63);
}

static void
test_varint_overlong(void **state)
{
	/* 11 bytes: ten with the continuation bit, then a terminator. */
	static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x00};
	/* Ten bytes whose last carries bits above 63. */
	static const uint8_t overflow[] = {0xff, 0xff, 0xff, 0xff, 0xff,
					   0xff, 0xff, 0xff, 0xff, 0x02};
	uint64_t v;
	size_t used;

	(void)state;
	assert_int_equal(varint(eleven, sizeof(eleven), &v, &used), -EBADMSG);
	/* Decided after ten bytes, whatever follows. */
	assert_int_equal(varint(eleven, 10, &v, &used), -EBADMSG);
	assert_int_equal(varint(overflow, sizeof(overflow), &v, &used),
			 -EBADMSG);
}

static void
test_every_wire_type(void **state)
{
	struct wbuf w = {.n = 0};
	struct pb_reader r;
	struct pb_field f;

	(void)state;
	put_key(&w, 1, PB_WIRE_VARINT);
	put_varint(&w, 150);
	put_key(&w, 2, PB_WIRE_I64);
	put_fixed(&w, 0x0102030405060708ull, 8);
	put_bytes(&w, 3, "hello", 5);
	put_key(&w, 4, PB_WIRE_SGROUP);
	put_key(&w, 1, PB_WIRE_VARINT);
	put_varint(&w, 7);
	put_key(&w, 4, PB_WIRE_EGROUP);
	put_key(&w, 5, PB_WIRE_I32);
	put_fixed(&w, 0xdeadbeef, 4);
	put_key(&w, PB_FIELD_MAX, PB_WIRE_VARINT);
	put_varint(&w, UINT64_MAX);

	pb_reader_init(&r, w.b, w.n);
	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, 1);
	assert_int_equal(f.wire, PB_WIRE_VARINT);
	assert_true(f.value == 150);

	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, 2);
	assert_int_equal(f.wire, PB_WIRE_I64);
	assert_true(f.value == 0x0102030405060708ull);

	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, 3);
	assert_int_equal(f.wire, PB_WIRE_LEN);
	assert_int_equal(f.len, 5);
	assert_memory_equal(f.data, "hello", 5);

	/* The group comes back whole, its body being the inner field. */
	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, 4);
	assert_int_equal(f.wire, PB_WIRE_SGROUP);
	assert_int_equal(f.len, 2);
	assert_int_equal(f.data[0], 0x08);
	assert_int_equal(f.data[1], 7);

	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, 5);
	assert_int_equal(f.wire, PB_WIRE_I32);
	assert_true(f.value == 0xdeadbeef);

	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, PB_FIELD_MAX);
	assert_true(f.value == UINT64_MAX);

	assert_int_equal(pb_next(&r, &f), 0);
	assert_int_equal(pb_reader_left(&r), 0);
	assert_int_equal(pb_next(&r, &f), 0);
}

/* Reads a one-field message and returns what pb_next() said about it. */
static int
first(const uint8_t *b, size_t len, struct pb_field *f)
{
	struct pb_reader r;

	pb_reader_init(&r, b, len);
	return pb_next(&r, f);
}

static void
test_nested_groups(void **state)
{
	struct wbuf w = {.n = 0};
	struct pb_reader r;
	struct pb_field f;
	unsigned i;

	(void)state;
	/* Groups nested to the limit are skipped as one field. */
	for (i = 0; i < PB_GROUP_DEPTH_MAX; i++)
		put_key(&w, 10 + i, PB_WIRE_SGROUP);
	put_bytes(&w, 1, "x", 1);
	for (i = PB_GROUP_DEPTH_MAX; i > 0; i--)
		put_key(&w, 10 + i - 1, PB_WIRE_EGROUP);
	put_key(&w, 2, PB_WIRE_VARINT);
	put_varint(&w, 1);
	pb_reader_init(&r, w.b, w.n);
	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, 10);
	assert_int_equal(f.wire, PB_WIRE_SGROUP);
	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, 2);
	assert_int_equal(pb_next(&r, &f), 0);

	/* One level more is refused rather than followed. */
	w.n = 0;
	for (i = 0; i < PB_GROUP_DEPTH_MAX + 1; i++)
		put_key(&w, 10 + i, PB_WIRE_SGROUP);
	for (i = PB_GROUP_DEPTH_MAX + 1; i > 0; i--)
		put_key(&w, 10 + i - 1, PB_WIRE_EGROUP);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);
}

static void
test_bad_groups(void **state)
{
	struct wbuf w = {.n = 0};
	struct pb_field f;

	(void)state;
	/* An end with no start. */
	put_key(&w, 4, PB_WIRE_EGROUP);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);

	/* An end that closes another field's group. */
	w.n = 0;
	put_key(&w, 4, PB_WIRE_SGROUP);
	put_key(&w, 5, PB_WIRE_EGROUP);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);

	/* A group left open at the end of the message. */
	w.n = 0;
	put_key(&w, 4, PB_WIRE_SGROUP);
	put_key(&w, 1, PB_WIRE_VARINT);
	put_varint(&w, 1);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);

	/* A malformed field inside a group. */
	w.n = 0;
	put_key(&w, 4, PB_WIRE_SGROUP);
	put_key(&w, 1, PB_WIRE_LEN);
	put_varint(&w, 100);
	put_key(&w, 4, PB_WIRE_EGROUP);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);
}

static void
test_bad_keys(void **state)
{
	static const uint8_t field0[] = {0x00, 0x01};
	static const uint8_t wire6[] = {0x0e, 0x01};
	static const uint8_t wire7[] = {0x0f, 0x01};
	/* A key above 32 bits. */
	static const uint8_t bigkey[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
	static const uint8_t cutkey[] = {0x80};
	struct pb_field f;

	(void)state;
	assert_int_equal(first(field0, sizeof(field0), &f), -EBADMSG);
	assert_int_equal(first(wire6, sizeof(wire6), &f), -EBADMSG);
	assert_int_equal(first(wire7, sizeof(wire7), &f), -EBADMSG);
	assert_int_equal(first(bigkey, sizeof(bigkey), &f), -EBADMSG);
	assert_int_equal(first(cutkey, sizeof(cutkey), &f), -EBADMSG);
	/* An empty message is fine, and so is a NULL one. */
	assert_int_equal(first(field0, 0, &f), 0);
	assert_int_equal(first(NULL, 0, &f), 0);
}

static void
test_huge_lengths(void **state)
{
	struct wbuf w = {.n = 0};
	struct pb_reader r;
	struct pb_field f;

	(void)state;
	/* 2^64 - 1 must not wrap around the pointer arithmetic. */
	put_key(&w, 1, PB_WIRE_LEN);
	put_varint(&w, UINT64_MAX);
	put_bytes(&w, 2, "abc", 3);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);

	w.n = 0;
	put_key(&w, 1, PB_WIRE_LEN);
	put_varint(&w, (uint64_t)SIZE_MAX - 1);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);

	/* One byte more than is left, then exactly what is left. */
	w.n = 0;
	put_key(&w, 1, PB_WIRE_LEN);
	put_varint(&w, 4);
	put_fixed(&w, 0x61626364, 3);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);
	w.b[1] = 3;
	assert_int_equal(first(w.b, w.n, &f), 1);
	assert_int_equal(f.len, 3);

	/* After an error the reader stays at the end. */
	w.n = 0;
	put_key(&w, 1, PB_WIRE_LEN);
	put_varint(&w, 50);
	put_key(&w, 2, PB_WIRE_VARINT);
	put_varint(&w, 1);
	pb_reader_init(&r, w.b, w.n);
	assert_int_equal(pb_next(&r, &f), -EBADMSG);
	assert_int_equal(pb_next(&r, &f), 0);
}

static void
test_truncated_fixed(void **state)
{
	struct wbuf w = {.n = 0};
	struct pb_field f;

	(void)state;
	put_key(&w, 1, PB_WIRE_I64);
	put_fixed(&w, 1, 7);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);
	w.n = 0;
	put_key(&w, 1, PB_WIRE_I32);
	put_fixed(&w, 1, 3);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);
	w.n = 0;
	put_key(&w, 1, PB_WIRE_VARINT);
	put_byte(&w, 0x80);
	assert_int_equal(first(w.b, w.n, &f), -EBADMSG);
}

/* Walks a message and its len fields as messages, to a depth. */
static int
walk(const uint8_t *b, size_t len, int depth, unsigned *fields)
{
	struct pb_reader r;
	struct pb_field f;
	int rc;

	pb_reader_init(&r, b, len);
	while ((rc = pb_next(&r, &f)) > 0) {
		(*fields)++;
		if (f.wire == PB_WIRE_LEN && depth > 0)
			(void)walk(f.data, f.len, depth - 1, fields);
	}
	return rc;
}

static void
test_every_cut(void **state)
{
	struct wbuf w = {.n = 0}, inner = {.n = 0};
	unsigned fields, full = 0;
	size_t k;
	int rc;

	(void)state;
	put_key(&inner, 1, PB_WIRE_VARINT);
	put_varint(&inner, 1ull << 40);
	put_key(&inner, 2, PB_WIRE_I32);
	put_fixed(&inner, 7, 4);
	put_key(&w, 7, PB_WIRE_I64);
	put_fixed(&w, 9, 8);
	put_bytes(&w, 8, inner.b, inner.n);
	put_key(&w, 9, PB_WIRE_SGROUP);
	put_bytes(&w, 1, "zz", 2);
	put_key(&w, 9, PB_WIRE_EGROUP);
	put_bytes(&w, 10, "tail", 4);
	assert_int_equal(walk(w.b, w.n, 3, &full), 0);
	assert_int_equal(full, 6);

	/*
	 * Every prefix either ends on a field boundary or is malformed;
	 * never more fields than the whole, never a read past the cut
	 * (the sanitizers check that).
	 */
	for (k = 0; k < w.n; k++) {
		uint8_t *cut = malloc(k + 1);

		assert_non_null(cut);
		memcpy(cut, w.b, k);
		fields = 0;
		rc = walk(cut, k, 3, &fields);
		assert_true(rc == 0 || rc == -EBADMSG);
		assert_true(fields <= full);
		free(cut);
	}
}

static void
test_reinterpret(void **state)
{
	(void)state;
	assert_true(pb_int64(UINT64_MAX) == -1);
	assert_true(pb_int64(1ull << 63) == INT64_MIN);
	assert_true(pb_int32(UINT64_MAX) == -1);
	assert_true(pb_int32(0x1ffffffffull) == -1);
	assert_true(pb_int32(0x100000005ull) == 5);
	assert_true(pb_sint64(0) == 0);
	assert_true(pb_sint64(1) == -1);
	assert_true(pb_sint64(2) == 1);
	assert_true(pb_sint64(UINT64_MAX) == INT64_MIN);
	assert_true(pb_sint64(UINT64_MAX - 1) == INT64_MAX);
	assert_true(pb_sint32(3) == -2);
	assert_true(pb_sint32(0xffffffffu) == INT32_MIN);
	assert_true(pb_sint32(0xfffffffeu) == INT32_MAX);
}

/*
 * The real fixture, walked down to the layer name: Trace.packet (1) ->
 * TracePacket.frame_timeline_event (76) -> actual_surface_frame_start (4)
 * -> layer_name (5).
 */
static void
test_fixture(void **state)
{
	static const char layer[] =
		"TX - com.example/com.example.MainActivity#123";
	struct pb_reader tr, pr, er, sr;
	struct pb_field f, pf, ef, sf;
	uint8_t buf[1024];
	unsigned packets = 0, layers = 0;
	size_t n;
	FILE *fp;

	(void)state;
	fp = fopen(FIXTURE, "rb");
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	assert_int_equal(n, 199);

	pb_reader_init(&tr, buf, n);
	while (pb_next(&tr, &f) > 0) {
		assert_int_equal(f.num, 1);
		assert_int_equal(f.wire, PB_WIRE_LEN);
		packets++;
		pb_reader_init(&pr, f.data, f.len);
		while (pb_next(&pr, &pf) > 0) {
			if (pf.num != 76)
				continue;
			pb_reader_init(&er, pf.data, pf.len);
			while (pb_next(&er, &ef) > 0) {
				if (ef.num != 4)
					continue;
				pb_reader_init(&sr, ef.data, ef.len);
				while (pb_next(&sr, &sf) > 0) {
					if (sf.num != 5)
						continue;
					assert_int_equal(sf.len, strlen(layer));
					assert_memory_equal(sf.data, layer,
							    sf.len);
					layers++;
				}
			}
		}
	}
	assert_int_equal(pb_reader_left(&tr), 0);
	assert_int_equal(packets, 5);
	assert_int_equal(layers, 1);
}

/*
 * pb_varint_at() must agree with pb_varint() on every input: the same
 * value and length where pb_varint() succeeds, NULL wherever it fails.
 * Checked on every value class (each length from 1 to 10 bytes, each
 * with every byte at its extremes), non-minimal encodings, bad tenth
 * bytes and overlong runs, each cut at every length and placed at the
 * end of the buffer (where the eight-byte load may not be used) and
 * before more bytes (where it is).
 */
static void
varint_at_agrees(const uint8_t *buf, size_t len)
{
	const uint8_t *end;
	uint64_t v1 = 0, v2 = 0;
	size_t used = 0;
	int rc;

	rc = pb_varint(buf, len, &v1, &used);
	end = pb_varint_at(buf, buf + len, &v2);
	if (rc < 0) {
		assert_null(end);
		return;
	}
	assert_non_null(end);
	assert_int_equal((size_t)(end - buf), used);
	assert_int_equal(v2, v1);
}

static void
test_varint_at(void **state)
{
	static const uint8_t fill[] = {0x00, 0x01, 0x7f, 0x80, 0x81, 0xff};
	uint8_t buf[32];
	uint64_t seed = 88172645463325252ull;
	size_t n, k, i, cut, f, r;

	(void)state;
	for (n = 1; n <= 12; n++) {
		for (f = 0; f < sizeof(fill); f++) {
			/* n bytes: n - 1 continuations of one fill, then a
			 * last. */
			for (k = 0; k < sizeof(fill); k++) {
				for (i = 0; i + 1 < n; i++)
					buf[i] = fill[f] | 0x80;
				buf[n - 1] = fill[k];
				for (i = n; i < sizeof(buf); i++)
					buf[i] = 0xff;
				for (cut = 0; cut <= n + 1; cut++)
					varint_at_agrees(buf, cut);
				varint_at_agrees(buf, sizeof(buf));
				for (i = n; i < sizeof(buf); i++)
					buf[i] = 0x00;
				varint_at_agrees(buf, sizeof(buf));
			}
		}
	}
	/* Random bytes with random lengths. */
	for (r = 0; r < 200000; r++) {
		for (i = 0; i < 12; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			buf[i] = (uint8_t)(seed >> 11);
			/* Mostly continuation bytes, so long varints come up.
			 */
			if ((seed & 3) != 0)
				buf[i] |= 0x80;
		}
		varint_at_agrees(buf, (size_t)(seed >> 40) % 13);
	}
	/* Empty input and the largest values. */
	assert_null(pb_varint_at(buf, buf, &seed));
	memcpy(buf, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
	varint_at_agrees(buf, 10);
	buf[9] = 0x02;
	varint_at_agrees(buf, 10);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint_values),
		cmocka_unit_test(test_varint_truncated),
		cmocka_unit_test(test_varint_overlong),
		cmocka_unit_test(test_varint_at),
		cmocka_unit_test(test_every_wire_type),
		cmocka_unit_test(test_nested_groups),
		cmocka_unit_test(test_bad_groups),
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_huge_lengths),
		cmocka_unit_test(test_truncated_fixed),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_reinterpret),
		cmocka_unit_test(test_fixture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
