/*
 * The live reading of the display (display_live.h) through the
 * simulator's fake dumpsys (tests/sim/fake_android.h) over the samples of
 * tests/fixtures/display: the first read at start, a refresh that sees a
 * change, a dumpsys that fails (no answer, the reads go on), one that
 * hangs (freed at once), and none at all.  The simulator is found as
 * $BUILD/tapd-sim (build/tapd-sim by default).  Run from the repository
 * root.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "display_live.h"
#include "fixture.h"
#include "loop.h"

#define FIXTURES "tests/fixtures/display/"
#define MS	 INT64_C(1000000)

struct fx {
	char root[256];
	char dir[300];	   /* TAPD_FAKE_DUMPSYS_DIR */
	char dumpsys[320]; /* the link to the simulator */
	struct loop *loop;
	struct display_live *dl;
	struct display_dump got[8];
	int n;
	/* Stop once n reads came, or when display.calls has calls lines. */
	int want_reads, want_calls;
	int64_t give_up_ns;
	int gave_up;
};

static void
on_read(void *ctx, const struct display_dump *d)
{
	struct fx *fx = ctx;

	if (fx->n < 8)
		fx->got[fx->n] = *d;
	fx->n++;
}

static int
count_calls(struct fx *fx)
{
	char path[600];
	int n = 0, c;
	FILE *f;

	snprintf(path, sizeof(path), "%s/display.calls", fx->dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void
put_out(struct fx *fx, const char *fixture)
{
	char path[600], *buf;
	size_t len;

	buf = fixture_slurp(fixture, &len);
	snprintf(path, sizeof(path), "%s/display.out.new", fx->dir);
	fixture_write(path, buf, len);
	free(buf);
	/* Renamed, so that a read under way sees one file or the other. */
	{
		char to[600];

		snprintf(to, sizeof(to), "%s/display.out", fx->dir);
		assert_int_equal(rename(path, to), 0);
	}
}

static int
tick(void *ctx)
{
	struct fx *fx = ctx;

	if ((fx->want_reads && fx->n >= fx->want_reads) ||
	    (fx->want_calls && count_calls(fx) >= fx->want_calls))
		loop_stop(fx->loop);
	if (loop_now_ns() > fx->give_up_ns) {
		fx->gave_up = 1;
		loop_stop(fx->loop);
	}
	return 0;
}

static int
setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	const char *build = getenv("BUILD");
	char sim[PATH_MAX], real[PATH_MAX], bin[300];

	assert_non_null(fx);
	assert_int_equal(fixture_tmpdir(fx->root, sizeof(fx->root), "dpl"), 0);
	snprintf(fx->dir, sizeof(fx->dir), "%s/dumpsys", fx->root);
	assert_int_equal(mkdir(fx->dir, 0755), 0);
	assert_int_equal(setenv("TAPD_FAKE_DUMPSYS_DIR", fx->dir, 1), 0);
	snprintf(sim, sizeof(sim), "%s/tapd-sim",
		 build && *build ? build : "build");
	if (!realpath(sim, real) || access(real, X_OK) != 0)
		fail_msg("'%s' is not executable: build it first (make) and "
			 "run from the repository root",
			 sim);
	snprintf(bin, sizeof(bin), "%s/bin", fx->root);
	assert_int_equal(mkdir(bin, 0755), 0);
	snprintf(fx->dumpsys, sizeof(fx->dumpsys), "%s/dumpsys", bin);
	assert_int_equal(symlink(real, fx->dumpsys), 0);
	assert_int_equal(loop_new(&fx->loop), 0);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *fx = *state;

	display_live_free(fx->dl);
	loop_free(fx->loop);
	fixture_rmtree(fx->root);
	free(fx);
	return 0;
}

static void
start(struct fx *fx, int64_t refresh_ms)
{
	struct display_live_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.loop = fx->loop;
	cfg.dumpsys_bin = fx->dumpsys;
	cfg.on_read = on_read;
	cfg.ctx = fx;
	cfg.refresh_ms = refresh_ms;
	assert_int_equal(display_live_new(&cfg, &fx->dl), 0);
	assert_non_null(fx->dl);
}

static void
run(struct fx *fx, int64_t max_ms)
{
	fx->gave_up = 0;
	fx->give_up_ns = loop_now_ns() + max_ms * MS;
	assert_int_equal(loop_run(fx->loop), 0);
	assert_false(fx->gave_up);
}

/* The first read at start; a refresh that finds the display changed. */
static void
test_read_and_refresh(void **state)
{
	struct fx *fx = *state;

	put_out(fx, FIXTURES "android9.txt");
	assert_int_equal(loop_add_timer(fx->loop, 5, tick, fx), 0);
	/* A refresh far away: the first read comes at start, alone. */
	start(fx, 3600 * 1000);
	fx->want_reads = 1;
	run(fx, 10000);
	assert_int_equal(fx->n, 1);
	assert_int_equal(count_calls(fx), 1);
	assert_int_equal(fx->got[0].width, 1080);
	assert_int_equal(fx->got[0].height, 2280);
	assert_int_equal(fx->got[0].refresh_hz, 60);
	assert_int_equal(fx->got[0].density_dpi, 440);
	display_live_free(fx->dl);
	fx->dl = NULL;
	/* Every 50 ms: the next read gives the new display. */
	fx->n = 0;
	start(fx, 50);
	fx->want_reads = 1;
	run(fx, 10000);
	put_out(fx, FIXTURES "android14-vrr.txt");
	fx->want_reads = 0;
	fx->want_calls = count_calls(fx) + 2;
	run(fx, 10000);
	assert_true(fx->n >= 2 && fx->n <= 8);
	assert_int_equal(fx->got[fx->n - 1].width, 1440);
	assert_int_equal(fx->got[fx->n - 1].height, 3120);
	assert_int_equal(fx->got[fx->n - 1].refresh_hz, 120);
	assert_int_equal(fx->got[fx->n - 1].density_dpi, 560);
}

/* A dumpsys that fails gives nothing, and the next reads still run. */
static void
test_failure(void **state)
{
	struct fx *fx = *state;
	char path[600];

	snprintf(path, sizeof(path), "%s/display.exit", fx->dir);
	fixture_write_str(path, "1\n");
	assert_int_equal(loop_add_timer(fx->loop, 5, tick, fx), 0);
	start(fx, 20);
	/* One read at a time: a third call means two were over. */
	fx->want_calls = 3;
	run(fx, 10000);
	assert_int_equal(fx->n, 0);
	/* Output that names no display is no answer either. */
	put_out(fx, FIXTURES "garbage.txt");
	unlink(path);
	fx->want_calls = count_calls(fx) + 2;
	run(fx, 10000);
	assert_int_equal(fx->n, 0);
}

/* A read that hangs is killed by display_live_free(), which returns. */
static void
test_free_while_hanging(void **state)
{
	struct fx *fx = *state;
	char path[600];
	int64_t t0;

	snprintf(path, sizeof(path), "%s/display.hang", fx->dir);
	fixture_write_str(path, "30\n");
	assert_int_equal(loop_add_timer(fx->loop, 5, tick, fx), 0);
	start(fx, 3600 * 1000);
	fx->want_calls = 1;
	run(fx, 10000);
	t0 = loop_now_ns();
	display_live_free(fx->dl);
	fx->dl = NULL;
	assert_int_equal(fx->n, 0);
	/* SIGKILL and the reap, not the 30 s of the hang. */
	assert_true(loop_now_ns() - t0 < 10000 * MS);
}

/* Without dumpsys (a desktop): nothing, and no error. */
static void
test_no_dumpsys(void **state)
{
	struct fx *fx = *state;
	struct display_live_config cfg;
	char none[600];

	snprintf(none, sizeof(none), "%s/none", fx->root);
	memset(&cfg, 0, sizeof(cfg));
	cfg.loop = fx->loop;
	cfg.dumpsys_bin = none;
	cfg.on_read = on_read;
	cfg.ctx = fx;
	fx->dl = (struct display_live *)fx;
	assert_int_equal(display_live_new(&cfg, &fx->dl), 0);
	assert_null(fx->dl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_and_refresh, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_while_hanging, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_dumpsys, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
