/*
 * tapd-sim: the ground-truth scenario simulator of tapd.  It writes
 * recorded-session directories whose every tap has a known answer, and
 * compares the database `tapd replay` made of one with that answer.  It
 * uses no daemon code: its getevent writer, Perfetto encoder and latency
 * definitions are its own.
 *
 *   tapd-sim list [--describe] [--windows|--no-windows]
 *   tapd-sim gen --scenario NAME --seed N --out DIR [--duration SECONDS]
 *   tapd-sim check --truth DIR/truth.json --db PATH [--verbose]
 *   tapd-sim fake-perfetto|fake-dumpsys|fake-getprop|
 *            fake-resetprop ARGS...
 *
 * The fakes stand in for Android's tools in tests of the live daemon
 * (fake_perfetto.h, fake_android.h).  Invoked through a link named
 * perfetto, dumpsys, getprop or resetprop, tapd-sim is that fake, so a test can
 * put the link where the daemon expects the real program.
 *
 * Exit status: 0 done (check: everything matches), 1 check found
 * differences or gen failed, 2 bad arguments or unreadable files.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_android.h"
#include "fake_perfetto.h"
#include "msg.h"
#include "scenario.h"
#include "session.h"
#include "world.h"

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: tapd-sim list [--describe] [--windows|--no-windows]\n"
		"       tapd-sim gen --scenario NAME --seed N --out DIR "
		"[--duration SECONDS]\n"
		"       tapd-sim check --truth FILE --db PATH [--verbose]\n"
		"       tapd-sim fake-perfetto|fake-dumpsys|fake-getprop|"
		"fake-resetprop ARGS...\n");
}

static int
parse_u64(const char *s, const char *what, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0' || *s == '-') {
		msg_warnx("cannot parse %s '%s': not a number", what,
			  s != NULL ? s : "");
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max) {
		msg_warnx("cannot parse %s '%s': not a number up to %" PRIu64,
			  what, s, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int
cmd_list(int argc, char **argv)
{
	int describe = 0, which = 0, i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--describe") == 0 && !describe) {
			describe = 1;
		} else if (strcmp(argv[i], "--windows") == 0 && which == 0) {
			which = 1;
		} else if (strcmp(argv[i], "--no-windows") == 0 && which == 0) {
			which = -1;
		} else {
			usage(stderr);
			return 2;
		}
	}
	scenario_list(stdout, describe, which);
	return 0;
}

static int
cmd_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{"scenario", required_argument, NULL, 's'},
		{"seed", required_argument, NULL, 'S'},
		{"out", required_argument, NULL, 'o'},
		{"duration", required_argument, NULL, 'd'},
		{NULL, 0, NULL, 0},
	};
	const char *name = NULL, *out = NULL, *seed_s = NULL;
	uint64_t seed = 0, dur = 0;
	struct world *w = NULL;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			name = optarg;
			break;
		case 'S':
			seed_s = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'd':
			if (parse_u64(optarg, "duration", 3600, &dur) < 0)
				return 2;
			if (dur < 5) {
				msg_warnx("cannot use duration '%s': at least "
					  "5 s",
					  optarg);
				return 2;
			}
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (name == NULL || out == NULL || seed_s == NULL || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (parse_u64(seed_s, "seed", UINT64_MAX, &seed) < 0)
		return 2;
	if (!scenario_exists(name)) {
		msg_warnx("cannot generate '%s': no such scenario (see "
			  "'tapd-sim list')",
			  name);
		return 2;
	}
	rc = scenario_build(name, seed, (int)dur, &w);
	if (rc < 0) {
		msg_warnx("cannot build scenario '%s': %s", name,
			  strerror(-rc));
		return 1;
	}
	rc = session_write(w, out, name, seed);
	world_free(w);
	return rc < 0 ? 1 : 0;
}

static int
cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{"truth", required_argument, NULL, 't'},
		{"db", required_argument, NULL, 'd'},
		{"verbose", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};
	const char *truth = NULL, *db = NULL;
	int c, verbose = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			truth = optarg;
			break;
		case 'd':
			db = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (truth == NULL || db == NULL || optind != argc) {
		usage(stderr);
		return 2;
	}
	return check_run(truth, db, verbose);
}

int
main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');

	base = base ? base + 1 : argv[0];
	if (strcmp(base, "perfetto") == 0)
		return fake_perfetto_main(argc, argv);
	if (strcmp(base, "dumpsys") == 0)
		return fake_android_dumpsys(argc, argv);
	if (strcmp(base, "getprop") == 0)
		return fake_android_getprop(argc, argv);
	if (strcmp(base, "resetprop") == 0)
		return fake_android_resetprop(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "gen") == 0)
		return cmd_gen(argc - 1, argv + 1);
	if (strcmp(argv[1], "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(argv[1], "fake-perfetto") == 0)
		return fake_perfetto_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "fake-dumpsys") == 0)
		return fake_android_dumpsys(argc - 1, argv + 1);
	if (strcmp(argv[1], "fake-getprop") == 0)
		return fake_android_getprop(argc - 1, argv + 1);
	if (strcmp(argv[1], "fake-resetprop") == 0)
		return fake_android_resetprop(argc - 1, argv + 1);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
