/*
 * Fills a tapd database for bench/query/run.sh: N gestures over D days for
 * A apps, written through the store's own writer (store_insert()), so the
 * file has tapd's schema and its histogram table is kept exactly as the
 * daemon keeps it.
 *
 *   fill --db PATH [--taps N] [--apps A] [--days D] [--end UNIX_SECONDS]
 *        [--frames] [--seed S]
 *
 * Apps are named com.bench.app00 ... and drawn with Zipf weights (app00
 * has the most taps: 28% of them with 20 apps).  Each app has its own
 * log-normal latencies: a median first frame of 25-150 ms and a settle
 * 80-900 ms after it, with a heavier tail for some.  Gestures are spread
 * evenly over the days with random jitter; 85% taps, 5% long presses, 10%
 * swipes; of the measured ones 91% ok, 6% no_response, 2% truncated, 1%
 * frames_unavailable.  --frames also stores response frames (one per
 * 16.7 ms of settle, at most 40).  The same arguments always give the
 * same file.  Prints the time the fill took on stderr.  --taps 0 only
 * opens the file, which migrates one made by an older tapd.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "log.h"
#include "parse.h"
#include "store.h"
#include "store_sql.h"

#define MS  1000000LL
#define SEC 1000000000LL

struct app_model {
	char name[32];
	double weight;
	double ff_median_ms, ff_sigma;
	double st_median_ms, st_sigma;
};

static uint64_t rng_state;

static uint64_t
splitmix(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
uniform(void)
{
	return (double)(splitmix() >> 11) / 9007199254740992.0;
}

static double
normal(void)
{
	double u = uniform(), v = uniform();

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

static int64_t
lognormal_ns(double median_ms, double sigma)
{
	double v = median_ms * exp(sigma * normal()) * (double)MS;

	if (v > 5.0 * SEC)
		v = 5.0 * SEC;
	return (int64_t)v;
}

static void
usage(void)
{
	fprintf(stderr, "usage: fill --db PATH [--taps N] [--apps A] "
			"[--days D] [--end UNIX_SECONDS] [--frames] "
			"[--seed S]\n");
	exit(1);
}

static int64_t
arg_int(const char *name, const char *s, int64_t lo, int64_t hi)
{
	int64_t v;

	if (!s || parse_int64(s, lo, hi, &v) < 0) {
		fprintf(stderr, "fill: bad value for %s: '%s'\n", name,
			s ? s : "");
		exit(1);
	}
	return v;
}

int
main(int argc, char **argv)
{
	static struct app_model apps[100];
	struct store_frame frames[40];
	const char *db = NULL;
	int64_t ntaps = 1000000, napps = 20, days = 30, end_s, seed = 1;
	int64_t i, start_ns, span_ns, wall, boot_ns, id;
	double total = 0.0, x, acc;
	struct timespec t0, t1;
	struct store *st = NULL;
	struct store_tap tap;
	int with_frames = 0, a, rc, k, nf;

	end_s = (int64_t)time(NULL);
	for (k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--db") == 0 && k + 1 < argc)
			db = argv[++k];
		else if (strcmp(argv[k], "--taps") == 0 && k + 1 < argc)
			ntaps = arg_int("--taps", argv[++k], 0, 100000000);
		else if (strcmp(argv[k], "--apps") == 0 && k + 1 < argc)
			napps = arg_int("--apps", argv[++k], 1, 100);
		else if (strcmp(argv[k], "--days") == 0 && k + 1 < argc)
			days = arg_int("--days", argv[++k], 1, 3650);
		else if (strcmp(argv[k], "--end") == 0 && k + 1 < argc)
			end_s = arg_int("--end", argv[++k], 86400 * 3650LL,
					4000000000LL);
		else if (strcmp(argv[k], "--seed") == 0 && k + 1 < argc)
			seed = arg_int("--seed", argv[++k], 0, INT64_MAX);
		else if (strcmp(argv[k], "--frames") == 0)
			with_frames = 1;
		else
			usage();
	}
	if (!db)
		usage();
	log_init("fill", LOG_LEVEL_WARN);
	rng_state = (uint64_t)seed;

	for (a = 0; a < napps; a++) {
		struct app_model *m = &apps[a];

		snprintf(m->name, sizeof(m->name), "com.bench.app%02d", a);
		m->weight = 1.0 / (a + 1);
		total += m->weight;
		m->ff_median_ms = 25.0 + 125.0 * uniform();
		m->ff_sigma = 0.25 + 0.35 * uniform();
		m->st_median_ms = 80.0 + 820.0 * uniform();
		m->st_sigma = a % 4 == 3 ? 0.9 : 0.4 + 0.3 * uniform();
	}

	rc = store_open(db, 0, &st);
	if (rc < 0) {
		fprintf(stderr, "fill: cannot open '%s': %s\n", db,
			strerror(-rc));
		return 1;
	}
	/*
	 * A bench-only setting: the writer's default 2 MiB page cache makes
	 * a million random index inserts read pages back from the OS; a
	 * larger one only makes the fill faster, not the file different.
	 */
	if (getenv("FILL_CACHE_KB") &&
	    parse_int64(getenv("FILL_CACHE_KB"), 0, 4 << 20, &i) == 0) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%" PRId64, i);
		sqlite3_exec(store__sqlite(st), sql, NULL, NULL, NULL);
	}
	span_ns = days * 86400 * SEC;
	start_ns = end_s * SEC - span_ns;
	/* Monotonic time as if the device booted a day before the start. */
	boot_ns = start_ns - 86400 * SEC;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < ntaps; i++) {
		const struct app_model *m;
		double r = uniform(), kr = uniform();

		x = uniform() * total;
		for (a = 0, acc = apps[0].weight; a + 1 < napps && acc < x; a++)
			acc += apps[a + 1].weight;
		m = &apps[a];
		wall = start_ns +
		       (int64_t)((double)span_ns * (double)i / (double)ntaps) +
		       (int64_t)(uniform() * (double)span_ns / (double)ntaps);
		memset(&tap, 0, sizeof(tap));
		tap.app = m->name;
		tap.pid = 1000 + a;
		tap.kind = kr < 0.85   ? "tap"
			   : kr < 0.90 ? "long_press"
				       : "swipe";
		tap.wall_ns = wall;
		tap.t_up_ns = wall - boot_ns;
		tap.t_down_ns =
			tap.t_up_ns -
			(strcmp(tap.kind, "long_press") == 0 ? 600 : 80) * MS;
		tap.x = 100 + 880 * uniform();
		tap.y = 200 + 2000 * uniform();
		tap.first_frame_ns = tap.settle_ns = -1;
		nf = 0;
		if (strcmp(tap.kind, "swipe") == 0) {
			tap.status = "not_measured";
		} else if (r < 0.91 || r >= 0.97) {
			tap.status = r < 0.91	? "ok"
				     : r < 0.99 ? "truncated"
						: "frames_unavailable";
			if (r < 0.99) {
				tap.first_frame_ns = lognormal_ns(
					m->ff_median_ms, m->ff_sigma);
				tap.settle_ns = tap.first_frame_ns +
						lognormal_ns(m->st_median_ms,
							     m->st_sigma);
				if (tap.settle_ns > 5 * SEC) {
					tap.settle_ns = 5 * SEC;
					tap.flags = STORE_FLAG_SETTLE_CAPPED;
				}
				nf = 1 + (int)((tap.settle_ns -
						tap.first_frame_ns) /
					       16666667);
				if (nf > 40)
					nf = 40;
			}
		} else {
			tap.status = "no_response";
		}
		tap.frames = nf;
		for (k = 0; with_frames && k < nf; k++) {
			int64_t present =
				tap.t_up_ns + tap.first_frame_ns +
				(nf > 1 ? (tap.settle_ns - tap.first_frame_ns) *
						  k / (nf - 1)
					: 0);

			frames[k].present_ns = present;
			frames[k].start_ns = present - 12 * MS;
			if (frames[k].start_ns < tap.t_up_ns)
				frames[k].start_ns = tap.t_up_ns;
			frames[k].jank = uniform() < 0.05 ? 64 : 0;
			frames[k].in_burst = 1;
		}
		rc = store_insert(st, &tap, frames,
				  with_frames ? (size_t)nf : 0, &id);
		if (rc < 0) {
			fprintf(stderr,
				"fill: cannot insert tap %" PRId64 ": %s\n", i,
				strerror(-rc));
			store_close(st);
			return 1;
		}
	}
	rc = store_commit(st);
	store_close(st);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc < 0)
		return 1;
	fprintf(stderr,
		"fill: %" PRId64 " gestures, %" PRId64 " apps, %" PRId64
		" days%s in %.1f s\n",
		ntaps, napps, days, with_frames ? " with frames" : "",
		(double)(t1.tv_sec - t0.tv_sec) +
			(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
