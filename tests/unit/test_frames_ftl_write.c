/*
 * Tests of the FrameTimeline writer (frames_ftl_write.h): frames encoded
 * as a trace and read back through the real reader (frames_ftl.h), by
 * its general walk and its fast path, must come out as they went in,
 * with the reader's flags derived again from the fields written; the
 * snapshot gives the coverage.  protoc decodes the same bytes with
 * tests/fixtures/perfetto/frametimeline.proto, an independent check that
 * they are a Perfetto Trace (skipped without protoc).
 */
#include <errno.h>
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

#include "correlate.h"
#include "fixture.h"
#include "frames_ftl.h"
#include "frames_ftl_write.h"
#include "pb_write.h"

#define MS	  1000000LL
#define PROTO_DIR "tests/fixtures/perfetto"
#define COVERAGE  (5000 * MS)
#define NFRAMES	  6

static const char *const layers[] = {
	"TX - com.example.mail/com.example.mail.MainActivity#1234",
	"TX - com.example.maps/com.example.maps.MapActivity#77",
};

/*
 * Frames as the live source emits them: two sharing a display frame, one
 * of each flag the reader derives, and the fields that ride along.
 */
static void
make_frames(struct frames_ftl_frame *f)
{
	int i;

	memset(f, 0, NFRAMES * sizeof(*f));
	for (i = 0; i < NFRAMES; i++) {
		f[i].pid = i % 2 ? 2202 : 1431;
		f[i].present_type = FTL_PRESENT_ON_TIME;
		f[i].prediction_type = 1;
		f[i].jank = FTL_JANK_NONE;
		f[i].flags = FTL_FRAME_ON_TIME_FINISH | FTL_FRAME_BUFFER;
		f[i].token = 1000 + 4 * i;
		f[i].display_token = 900 + i;
		f[i].start_ns = COVERAGE + (int64_t)i * 17 * MS;
		f[i].ready_ns = f[i].start_ns + 9 * MS;
		f[i].present_ns = f[i].start_ns + 20 * MS + i * 1000;
		snprintf(f[i].layer, sizeof(f[i].layer), "%s", layers[i % 2]);
	}
	/* Frame 1 shares frame 0's display frame, as two apps do. */
	f[1].display_token = f[0].display_token;
	f[1].present_ns = f[0].present_ns;
	f[1].start_ns = f[0].start_ns + 2 * MS;
	f[1].ready_ns = f[1].start_ns + 3 * MS;
	/* A late, janky frame composed by the GPU. */
	f[2].present_type = FTL_PRESENT_LATE;
	f[2].jank = FTL_JANK_APP_DEADLINE | FTL_JANK_BUFFER_STUFFING;
	f[2].flags = FTL_FRAME_GPU_COMPOSITION;
	/* An expired prediction: the start is SurfaceFlinger's stand-in. */
	f[3].prediction_type = FTL_PREDICTION_EXPIRED;
	f[3].flags |= FTL_FRAME_START_ESTIMATED;
	/* A stale fence, whose present is a fallback. */
	f[4].flags |= FTL_FRAME_PRESENT_ESTIMATED;
	/* Presented before the coverage, as a frame carried over into a
	 * directory begun by a rotation. */
	f[5].start_ns = COVERAGE - 30 * MS;
	f[5].ready_ns = f[5].start_ns + 1 * MS;
	f[5].present_ns = f[5].ready_ns + 4 * MS;
}

/* Encodes n frames after a snapshot at COVERAGE into *out. */
static void
encode(const struct frames_ftl_frame *f, int n, struct pb_writer *out)
{
	struct frames_ftl_writer *w;
	int i;

	memset(out, 0, sizeof(*out));
	assert_int_equal(frames_ftl_write_new(&w), 0);
	assert_int_equal(
		frames_ftl_write_clock(w, out, COVERAGE, 1700000000000000000LL),
		0);
	for (i = 0; i < n; i++)
		assert_int_equal(frames_ftl_write_frame(w, out, &f[i]), 0);
	frames_ftl_write_free(w);
}

/* Feeds buf through a reader in chunks of step bytes; returns the frames. */
static int
read_back(const struct pb_writer *buf, size_t step, unsigned general_only,
	  struct frames_ftl_frame *got, int max, int64_t *wm_before_eof,
	  struct frames_ftl **out)
{
	struct frames_ftl_config cfg;
	struct frames_ftl *r;
	size_t off, k;
	int n = 0;

	frames_ftl_config_default(&cfg);
	cfg.general_only = general_only;
	assert_int_equal(frames_ftl_new(&cfg, &r), 0);
	for (off = 0; off < buf->len; off += k) {
		k = buf->len - off < step ? buf->len - off : step;
		assert_int_equal(frames_ftl_feed(r, buf->p + off, k), 0);
		while (n < max && frames_ftl_next(r, &got[n]) == 1)
			n++;
	}
	*wm_before_eof = frames_ftl_watermark(r);
	frames_ftl_eof(r);
	while (n < max && frames_ftl_next(r, &got[n]) == 1)
		n++;
	*out = r;
	return n;
}

static void
assert_same(const struct frames_ftl_frame *want,
	    const struct frames_ftl_frame *got)
{
	assert_int_equal(got->pid, want->pid);
	assert_string_equal(got->layer, want->layer);
	assert_int_equal(got->token, want->token);
	assert_int_equal(got->present_type, want->present_type);
	assert_int_equal(got->prediction_type, want->prediction_type);
	assert_int_equal(got->jank, want->jank);
	assert_int_equal(got->flags, want->flags);
	assert_int_equal(got->start_ns, want->start_ns);
	assert_int_equal(got->ready_ns, want->ready_ns);
	assert_int_equal(got->present_ns, want->present_ns);
}

static void
test_round_trip(void **state)
{
	struct frames_ftl_frame want[NFRAMES], got[NFRAMES + 1];
	static const size_t steps[] = {1, 7, 64, 1 << 20};
	struct frames_ftl_stats st;
	struct pb_writer buf;
	struct frames_ftl *r;
	int64_t wm, last = INT64_MIN, before = INT64_MIN;
	size_t s;
	unsigned g;
	int i, n;

	(void)state;
	make_frames(want);
	for (i = 0; i < NFRAMES; i++) {
		if (i < NFRAMES - 1 && want[i].present_ns > before)
			before = want[i].present_ns;
		if (want[i].present_ns > last)
			last = want[i].present_ns;
	}
	encode(want, NFRAMES, &buf);
	assert_false(buf.oom);
	for (g = 0; g < 2; g++) {
		for (s = 0; s < sizeof(steps) / sizeof(*steps); s++) {
			n = read_back(&buf, steps[s], g, got, NFRAMES + 1, &wm,
				      &r);
			assert_int_equal(n, NFRAMES);
			for (i = 0; i < NFRAMES; i++)
				assert_same(&want[i], &got[i]);
			/* The frames of one display frame share it again. */
			assert_int_equal(got[1].display_token,
					 got[0].display_token);
			assert_int_not_equal(got[2].display_token,
					     got[1].display_token);
			assert_int_equal(frames_ftl_coverage_start(r),
					 COVERAGE);
			/*
			 * Before the end, the watermark lags by the last
			 * display frame, as with SurfaceFlinger's traces.
			 */
			assert_int_equal(wm, before);
			assert_int_equal(frames_ftl_watermark(r), last);
			frames_ftl_get_stats(r, &st);
			assert_int_equal(st.clock_snapshots, 1);
			assert_int_equal(st.malformed, 0);
			assert_int_equal(st.unpaired_ends, 0);
			assert_int_equal(st.unpaired_starts, 0);
			assert_int_equal(st.clock_assumed, 0);
			assert_int_equal(st.fast_packets == 0, g == 1);
			frames_ftl_free(r);
		}
	}
	pb_write_release(&buf);
}

/* What the correlator gets from the frames read back: the same flags. */
static void
test_correlate_flags(void **state)
{
	struct frames_ftl_frame want[NFRAMES], got[NFRAMES];
	struct correlate_frame a, b;
	struct pb_writer buf;
	struct frames_ftl *r;
	int64_t wm;
	int i;

	(void)state;
	make_frames(want);
	encode(want, NFRAMES, &buf);
	assert_int_equal(read_back(&buf, 4096, 0, got, NFRAMES, &wm, &r),
			 NFRAMES);
	for (i = 0; i < NFRAMES; i++) {
		frames_ftl_frame_to_correlate(&want[i], &a);
		frames_ftl_frame_to_correlate(&got[i], &b);
		assert_int_equal(b.flags, a.flags);
		assert_int_equal(b.jank_tags, a.jank_tags);
		assert_int_equal(b.present_ns, a.present_ns);
		assert_int_equal(b.start_ns, a.start_ns);
	}
	frames_ftl_frame_to_correlate(&got[3], &b);
	assert_int_equal(b.flags, CORRELATE_FRAME_START_ESTIMATED);
	frames_ftl_frame_to_correlate(&got[4], &b);
	assert_int_equal(b.flags, CORRELATE_FRAME_PRESENT_ESTIMATED);
	frames_ftl_free(r);
	pb_write_release(&buf);
}

/*
 * A frame read with an assumed clock goes out in a clock the trace has
 * no snapshot of: read back at the end, with the same times and flag,
 * the others as they were.
 */
static void
test_clock_assumed(void **state)
{
	/* make_frames() fills NFRAMES; the test uses the first three. */
	struct frames_ftl_frame want[NFRAMES], got[4];
	struct frames_ftl_stats st;
	struct pb_writer buf;
	struct frames_ftl *r;
	int64_t wm;
	int n;

	(void)state;
	make_frames(want);
	memmove(&want[1], &want[2], sizeof(want[1]));
	want[1].flags |= FTL_FRAME_CLOCK_ASSUMED;
	want[2] = want[0];
	want[2].token += 100;
	want[2].start_ns += 100 * MS;
	want[2].ready_ns += 100 * MS;
	want[2].present_ns += 100 * MS;
	encode(want, 3, &buf);
	n = read_back(&buf, 1 << 20, 0, got, 4, &wm, &r);
	assert_int_equal(n, 3);
	assert_same(&want[0], &got[0]);
	assert_same(&want[2], &got[1]);
	/* Held for a snapshot until the end, as live. */
	assert_same(&want[1], &got[2]);
	frames_ftl_get_stats(r, &st);
	assert_true(st.clock_assumed > 0);
	frames_ftl_free(r);
	pb_write_release(&buf);
}

/* A time the reader would refuse: nothing written, -ERANGE. */
static void
test_range(void **state)
{
	struct frames_ftl_frame f[NFRAMES];
	struct frames_ftl_writer *w;
	struct pb_writer buf = {0};

	(void)state;
	make_frames(f);
	assert_int_equal(frames_ftl_write_new(&w), 0);
	assert_int_equal(frames_ftl_write_clock(w, &buf, -1, 0), -ERANGE);
	assert_int_equal(buf.len, 0);
	f[0].start_ns = -5;
	assert_int_equal(frames_ftl_write_frame(w, &buf, &f[0]), -ERANGE);
	f[0].start_ns = 0;
	f[0].present_ns = INT64_MAX;
	assert_int_equal(frames_ftl_write_frame(w, &buf, &f[0]), -ERANGE);
	assert_int_equal(buf.len, 0);
	frames_ftl_write_free(w);
	frames_ftl_write_free(NULL);
	pb_write_release(&buf);
}

/* protoc reads the bytes as a perfetto.protos.Trace. */
static void
test_protoc_decodes(void **state)
{
	struct frames_ftl_frame f[NFRAMES];
	char dir[] = "/tmp/test_ftl_write.XXXXXX", cmd[1024], path[256];
	struct pb_writer buf;
	char *text;
	size_t len;
	FILE *fp;

	(void)state;
	if (system("protoc --version >/dev/null 2>&1") != 0) {
		skip();
		return;
	}
	make_frames(f);
	encode(f, NFRAMES, &buf);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.pftrace", dir);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf.p, 1, buf.len, fp), buf.len);
	assert_int_equal(fclose(fp), 0);
	snprintf(cmd, sizeof(cmd),
		 "protoc --decode=perfetto.protos.Trace -I %s "
		 "%s/frametimeline.proto <%s >%s/t.txt 2>&1",
		 PROTO_DIR, PROTO_DIR, path, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	text = fixture_slurp(path, &len);
	assert_non_null(text);
	assert_non_null(strstr(text, "primary_trace_clock: BUILTIN_CLOCK_"
				     "MONOTONIC"));
	assert_non_null(strstr(text, "layer_name: \"TX - com.example.mail"));
	assert_non_null(strstr(text, "prediction_type: PREDICTION_EXPIRED"));
	assert_non_null(strstr(text, "actual_display_frame_start"));
	assert_non_null(strstr(text, "expected_display_frame_start"));
	free(text);
	fixture_rmtree(dir);
	pb_write_release(&buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_correlate_flags),
		cmocka_unit_test(test_clock_assumed),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_protoc_decodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
