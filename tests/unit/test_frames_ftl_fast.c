/*
 * Differential tests of the FrameTimeline reader's fast path
 * (daemon/frames_ftl_fast.h): every trace is read twice, once as it
 * comes and once with general_only set, and the two runs must give the
 * same frames in the same order, the same counters (but fast_packets),
 * the same watermark after every chunk and the same coverage.  The
 * traces are the fixtures of tests/fixtures/perfetto, the real traces of
 * the shared fixtures beside the checkout (../shared/fixtures/real/
 * perfetto, skipped when absent), a simulator session ($BUILD/tapd-sim,
 * build/tapd-sim by default), mutants of it, and packets built here in
 * each shape the fast path must take or leave.  Run from the repository
 * root.
 */
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "frames_ftl.h"
#include "log.h"

#define FIXTURES  "tests/fixtures/perfetto"
#define PROTO	  FIXTURES "/frametimeline.proto"
#define REAL_DIR  "../shared/fixtures/real/perfetto"
#define MS	  1000000LL
#define MUTANTS	  300
#define CHUNK_ODD 4093

struct buf {
	uint8_t *b;
	size_t n;
};

/* Everything one run of the reader produced. */
struct run {
	struct frames_ftl_frame *f;
	size_t n, cap;
	int64_t *wm; /* the watermark after each chunk */
	size_t nwm, wm_cap;
	struct frames_ftl_stats st;
	int64_t cov;
};

/* ---- Buffers and a small protobuf writer ---- */

static void
buf_put(struct buf *b, const void *p, size_t n)
{
	uint8_t *nb = realloc(b->b, b->n + n + 1);

	assert_non_null(nb);
	b->b = nb;
	if (n > 0)
		memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void
buf_free(struct buf *b)
{
	free(b->b);
	b->b = NULL;
	b->n = 0;
}

static void
put_varint(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v != 0)
			tmp[n] |= 0x80;
		n++;
	} while (v != 0);
	buf_put(b, tmp, n);
}

static void
put_key(struct buf *b, uint32_t num, unsigned wire)
{
	put_varint(b, (uint64_t)num << 3 | wire);
}

static void
put_uint(struct buf *b, uint32_t num, uint64_t v)
{
	put_key(b, num, 0);
	put_varint(b, v);
}

static void
put_msg(struct buf *b, uint32_t num, const struct buf *m)
{
	put_key(b, num, 2);
	put_varint(b, m->n);
	buf_put(b, m->b, m->n);
}

/* ---- Running the reader ---- */

static void
run_free(struct run *r)
{
	free(r->f);
	free(r->wm);
	memset(r, 0, sizeof(*r));
}

static void
drain(struct frames_ftl *rd, struct run *out)
{
	struct frames_ftl_frame f;

	while (frames_ftl_next(rd, &f) == 1) {
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 256;
			out->f = realloc(out->f, out->cap * sizeof(*out->f));
			assert_non_null(out->f);
		}
		out->f[out->n++] = f;
	}
	if (out->nwm == out->wm_cap) {
		out->wm_cap = out->wm_cap ? 2 * out->wm_cap : 256;
		out->wm = realloc(out->wm, out->wm_cap * sizeof(*out->wm));
		assert_non_null(out->wm);
	}
	out->wm[out->nwm++] = frames_ftl_watermark(rd);
}

/*
 * Reads b in chunks of chunk bytes (0: whole) with cfg, the fast path on
 * or off.
 */
static void
run(const struct buf *b, const struct frames_ftl_config *base, size_t chunk,
    unsigned general_only, struct run *out)
{
	struct frames_ftl_config cfg = *base;
	struct frames_ftl *rd;
	size_t off = 0, n;

	memset(out, 0, sizeof(*out));
	cfg.general_only = general_only;
	assert_int_equal(frames_ftl_new(&cfg, &rd), 0);
	if (chunk == 0)
		chunk = b->n > 0 ? b->n : 1;
	while (off < b->n) {
		n = b->n - off < chunk ? b->n - off : chunk;
		assert_int_equal(frames_ftl_feed(rd, b->b + off, n), 0);
		drain(rd, out);
		off += n;
	}
	frames_ftl_eof(rd);
	drain(rd, out);
	frames_ftl_get_stats(rd, &out->st);
	out->cov = frames_ftl_coverage_start(rd);
	frames_ftl_free(rd);
}

static void
frame_equal(const struct frames_ftl_frame *a, const struct frames_ftl_frame *b,
	    size_t i)
{
	if (a->pid == b->pid && a->present_type == b->present_type &&
	    a->prediction_type == b->prediction_type && a->jank == b->jank &&
	    a->flags == b->flags && a->token == b->token &&
	    a->display_token == b->display_token &&
	    a->start_ns == b->start_ns && a->ready_ns == b->ready_ns &&
	    a->present_ns == b->present_ns && strcmp(a->layer, b->layer) == 0)
		return;
	fail_msg("frame %zu differs: token %lld/%lld present %lld/%lld "
		 "layer '%s'/'%s'",
		 i, (long long)a->token, (long long)b->token,
		 (long long)a->present_ns, (long long)b->present_ns, a->layer,
		 b->layer);
}

/* The fast run and the general run must agree on everything. */
static void
runs_equal(const struct run *fast, const struct run *gen)
{
	size_t i;

	assert_int_equal(fast->n, gen->n);
	for (i = 0; i < fast->n; i++)
		frame_equal(&fast->f[i], &gen->f[i], i);
	assert_int_equal(fast->nwm, gen->nwm);
	for (i = 0; i < fast->nwm; i++)
		assert_int_equal(fast->wm[i], gen->wm[i]);
	/* Every counter up to fast_packets, which alone may differ. */
	assert_memory_equal(&fast->st, &gen->st,
			    offsetof(struct frames_ftl_stats, fast_packets));
	assert_int_equal(fast->st.waiting, gen->st.waiting);
	assert_int_equal(fast->cov, gen->cov);
	assert_int_equal(gen->st.fast_packets, 0);
	assert_true(fast->st.fast_packets <= fast->st.packets);
}

/*
 * Reads b both ways with cfg, whole and in chunks; returns the packets
 * the fast path took in the whole run.
 */
static uint64_t
both_cfg(const struct buf *b, const struct frames_ftl_config *cfg, bool chunks)
{
	static const size_t sizes[] = {0, 1, 7, CHUNK_ODD, 65536};
	struct run fast, gen;
	uint64_t taken = 0;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (i > 0 && !chunks)
			break;
		/* Byte by byte only on small inputs, to keep the test quick. */
		if (sizes[i] == 1 && b->n > 65536)
			continue;
		run(b, cfg, sizes[i], 0, &fast);
		run(b, cfg, sizes[i], 1, &gen);
		runs_equal(&fast, &gen);
		if (i == 0)
			taken = fast.st.fast_packets;
		run_free(&fast);
		run_free(&gen);
	}
	return taken;
}

/*
 * Both ways, with the default configuration and with toy-clock
 * MONOTONIC, and with small tables so that every eviction path runs.
 */
static uint64_t
both(const struct buf *b, bool chunks)
{
	struct frames_ftl_config cfg;
	uint64_t taken;

	frames_ftl_config_default(&cfg);
	taken = both_cfg(b, &cfg, chunks);
	cfg.default_clock = 3;
	(void)both_cfg(b, &cfg, chunks);
	cfg.max_pending = 4;
	cfg.max_presents = 4;
	cfg.max_queue = 8;
	cfg.max_packet = 64;
	(void)both_cfg(b, &cfg, chunks);
	return taken;
}

static void
read_path(const char *path, struct buf *out)
{
	size_t len;
	char *data = fixture_slurp(path, &len);

	out->b = (uint8_t *)data;
	out->n = len;
}

/* ---- Fixtures and recorded traces ---- */

static void
test_fixture(void **state)
{
	struct buf b = {0};

	(void)state;
	read_path(FIXTURES "/one-app-frame.pftrace", &b);
	assert_true(both(&b, true) > 0);
	buf_free(&b);
}

/* The textproto fixtures, encoded by protoc; skipped without it. */
static void
test_textprotos(void **state)
{
	static const char *const names[] = {"frame_timeline_events",
					    "scenarios"};
	char dir[PATH_MAX], bin[PATH_MAX + 64], cmd[4 * PATH_MAX];
	struct buf b = {0};
	size_t i;

	(void)state;
	if (system("protoc --version >/dev/null 2>&1") != 0)
		skip();
	assert_int_equal(fixture_tmpdir(dir, sizeof(dir), "ftlfast"), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(bin, sizeof(bin), "%s/%s.pftrace", dir, names[i]);
		snprintf(cmd, sizeof(cmd),
			 "protoc --encode=perfetto.protos.Trace -I %s %s "
			 "<%s/%s.textproto >'%s'",
			 FIXTURES, PROTO, FIXTURES, names[i], bin);
		assert_int_equal(system(cmd), 0);
		read_path(bin, &b);
		assert_true(both(&b, true) > 0);
		buf_free(&b);
	}
	fixture_rmtree(dir);
}

/* The real traces beside the checkout; the test skips when there are none. */
static void
test_real(void **state)
{
	char path[PATH_MAX];
	struct buf b = {0};
	struct dirent *de;
	size_t len, n = 0;
	DIR *d;

	(void)state;
	d = opendir(REAL_DIR);
	if (d == NULL)
		skip();
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 8 || strcmp(de->d_name + len - 8, ".pftrace") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", REAL_DIR, de->d_name);
		read_path(path, &b);
		(void)both(&b, true);
		buf_free(&b);
		n++;
	}
	closedir(d);
	if (n == 0)
		skip();
}

/* ---- Simulator traces and their mutants ---- */

static void
sim_trace(struct buf *out, int seed, int seconds)
{
	const char *build = getenv("BUILD");
	char dir[PATH_MAX], cmd[2 * PATH_MAX + 128], path[PATH_MAX + 32];

	assert_int_equal(fixture_tmpdir(dir, sizeof(dir), "ftlsim"), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s/tapd-sim gen --scenario long --seed %d --duration %d "
		 "--out '%s/s' >/dev/null 2>&1",
		 build && *build ? build : "build", seed, seconds, dir);
	if (system(cmd) != 0)
		fail_msg("tapd-sim gen failed: build it first (make) and run "
			 "from the repository root");
	snprintf(path, sizeof(path), "%s/s/frames.pftrace", dir);
	read_path(path, out);
	fixture_rmtree(dir);
}

/*
 * The simulator writes its FrameTimeline packets as SurfaceFlinger does:
 * the fast path takes every one of them, and leaves the service's own
 * packets (config, clock snapshot, system information) to the general
 * walk.
 */
static void
test_sim(void **state)
{
	struct buf b = {0};
	struct run fast;
	struct frames_ftl_config cfg;

	(void)state;
	sim_trace(&b, 3, 30);
	(void)both(&b, true);
	frames_ftl_config_default(&cfg);
	run(&b, &cfg, 0, 0, &fast);
	assert_true(fast.n > 1000);
	assert_int_equal(fast.st.fast_packets, fast.st.frame_events);
	assert_true(fast.st.fast_packets + 32 >= fast.st.packets);
	run_free(&fast);
	buf_free(&b);
}

static uint64_t
next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Mutants of a simulator trace: a few bytes flipped, set to a key or
 * continuation byte, or the trace cut, at random places.  Most land in
 * a packet the fast path then leaves to the general walk, or reads with
 * another value; some break the framing.
 */
static void
test_mutants(void **state)
{
	static const uint8_t bytes[] = {0x00, 0x01, 0x02, 0x05, 0x08, 0x0a,
					0x12, 0x1a, 0x22, 0x2a, 0x40, 0x50,
					0x7f, 0x80, 0xff, 0xe2, 0x04, 0xd0};
	struct buf orig = {0}, b = {0};
	uint64_t seed = 0x9e3779b97f4a7c15ull, x;
	size_t i, k, nflip, at, size;

	(void)state;
	/* A mutant's broken framing is warned about, twice per run. */
	log_set_level(LOG_LEVEL_ERROR);
	sim_trace(&orig, 5, 5);
	size = orig.n < 200000 ? orig.n : 200000;
	for (i = 0; i < MUTANTS; i++) {
		b.n = 0;
		buf_put(&b, orig.b, size);
		nflip = 1 + next_rand(&seed) % 4;
		for (k = 0; k < nflip; k++) {
			x = next_rand(&seed);
			at = (size_t)(x >> 8) % size;
			if ((x & 3) == 0)
				b.b[at] ^= (uint8_t)(1u << ((x >> 2) & 7));
			else
				b.b[at] = bytes[(x >> 4) % sizeof(bytes)];
		}
		if (i % 16 == 15)
			b.n = (size_t)(next_rand(&seed) % size);
		(void)both(&b, i % 32 == 0);
	}
	buf_free(&b);
	buf_free(&orig);
	log_set_level(LOG_LEVEL_WARN);
}

/* ---- Packets built in each shape ---- */

/*
 * A trace of four display frames, each with an app frame, on sequence 7
 * at toy times (MONOTONIC); extra_pkt is appended to every packet and
 * extra_ev to every event member.
 */
static void
build_trace(struct buf *t, const struct buf *extra_pkt,
	    const struct buf *extra_ev)
{
	struct buf m = {0}, ev = {0}, p = {0};
	int i;

	t->n = 0;
	for (i = 0; i < 4; i++) {
		int64_t base = (int64_t)(1 + i) * 20 * MS;
		int kind;

		for (kind = 0; kind < 4; kind++) {
			uint32_t member = kind == 0   ? 2
					  : kind == 1 ? 4
					  : kind == 2 ? 5
						      : 5;
			int64_t ts = base + kind * MS;

			m.n = ev.n = p.n = 0;
			put_uint(&m, 1,
				 (uint64_t)(100 + 4 * i +
					    (kind == 3 ? 0 : kind)));
			if (member == 2) {
				put_uint(&m, 2, (uint64_t)(1000 + i));
				put_uint(&m, 3, 42);
				put_uint(&m, 4, 1);
			} else if (member == 4) {
				put_uint(&m, 2, (uint64_t)(500 + i));
				put_uint(&m, 3, (uint64_t)(1000 + i));
				put_uint(&m, 4, 4242);
				put_key(&m, 5, 2);
				put_varint(&m, 10);
				buf_put(&m, "TX - app#0", 10);
				put_uint(&m, 6, 1);
				put_uint(&m, 9, 1);
				put_uint(&m, 11, 1);
			}
			if (extra_ev != NULL)
				buf_put(&m, extra_ev->b, extra_ev->n);
			put_msg(&ev, member, &m);
			/* Every other display frame in another field order. */
			if (i % 2 == 1)
				put_uint(&p, 10, 7);
			put_uint(&p, 8, (uint64_t)ts);
			put_uint(&p, 58, 3);
			put_msg(&p, 76, &ev);
			if (i % 2 == 0)
				put_uint(&p, 10, 7);
			if (extra_pkt != NULL)
				buf_put(&p, extra_pkt->b, extra_pkt->n);
			put_msg(t, 1, &p);
		}
	}
	buf_free(&m);
	buf_free(&ev);
	buf_free(&p);
}

/*
 * One shape: extra bytes in every packet or member.  Returns the packets
 * the fast path took, both paths having agreed.
 */
static uint64_t
shape(const uint8_t *pkt, size_t pkt_len, const uint8_t *ev, size_t ev_len)
{
	struct buf t = {0}, xp = {0}, xe = {0};
	uint64_t taken;

	buf_put(&xp, pkt, pkt_len);
	buf_put(&xe, ev, ev_len);
	build_trace(&t, &xp, &xe);
	taken = both(&t, true);
	buf_free(&t);
	buf_free(&xp);
	buf_free(&xe);
	return taken;
}

#define TAKEN(p, e)                                                            \
	shape((const uint8_t *)(p), sizeof(p) - 1, (const uint8_t *)(e),       \
	      sizeof(e) - 1)

static void
test_shapes(void **state)
{
	(void)state;
	/* Plain packets: all 16 taken, and the frames come out. */
	assert_int_equal(TAKEN("", ""), 16);
	/* trusted_uid and trusted_pid, as SurfaceFlinger's carry. */
	assert_int_equal(TAKEN("\x18\xe8\x07\xf8\x04\xb6\x04", ""), 16);
	/* previous_packet_dropped: taken, and counted. */
	assert_int_equal(TAKEN("\xd0\x02\x01", ""), 16);
	/* A later timestamp or sequence id wins, both ways. */
	assert_int_equal(TAKEN("\x40\x05", ""), 16);
	assert_int_equal(TAKEN("\x50\x09", ""), 16);
	/* Unknown fixed-width fields, in the packet and in the member. */
	assert_int_equal(TAKEN("\x99\x06\x01\x02\x03\x04\x05\x06\x07\x08",
			       "\x7d\x00\x00\x80\x3f"),
			 16);
	assert_int_equal(TAKEN("", "\x60\x01\x68\x02"), 16);
	/* A later clock id, of two bytes, wins: unconvertible both ways. */
	assert_int_equal(TAKEN("\xd0\x03\x80\x01", ""), 16);
	/* A non-minimal varint is still a varint. */
	assert_int_equal(TAKEN("\x50\x87\x80\x80\x00", ""), 16);
	/* Left to the general walk: unknown length-delimited fields. */
	assert_int_equal(TAKEN("\x62\x02\x08\x01", ""), 0);
	assert_int_equal(TAKEN("", "\x72\x01\x00"), 0);
	/* TracePacketDefaults, interned data, a group, a clock snapshot. */
	assert_int_equal(TAKEN("\xda\x03\x00", ""), 0);
	assert_int_equal(TAKEN("\x8b\x01\x08\x01\x8c\x01", ""), 0);
	assert_int_equal(TAKEN("\x32\x00", ""), 0);
	/* Compressed packets, of any wire type. */
	assert_int_equal(TAKEN("\x90\x03\x01", ""), 0);
	/* Known fields of the wrong wire type. */
	assert_int_equal(TAKEN("\x45\x00\x00\x00\x00", ""), 0);
	assert_int_equal(TAKEN("", "\x0d\x00\x00\x00\x00"), 0);
	assert_int_equal(TAKEN("\xe0\x04\x01", ""), 0);
	/* Two members: the second (an expected display start) wins. */
	assert_int_equal(TAKEN("\xe2\x04\x04\x0a\x02\x08\x63", ""), 16);
	/* A member past the oneof, or a bad field number, or truncated. */
	assert_int_equal(TAKEN("\xe2\x04\x02\x32\x00", ""), 0);
	assert_int_equal(TAKEN("", "\x00\x01"), 0);
	assert_int_equal(TAKEN("", "\x10"), 0);
	/* A timestamp out of range: taken, and rejected both ways. */
	assert_int_equal(TAKEN("\x40\xff\xff\xff\xff\xff\xff\xff\xff\x7f", ""),
			 16);
	/* An overlong varint. */
	assert_int_equal(
		TAKEN("\x50\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", ""), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_textprotos),
		cmocka_unit_test(test_real),
		cmocka_unit_test(test_sim),
		cmocka_unit_test(test_mutants),
		cmocka_unit_test(test_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
