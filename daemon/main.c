/*
 * tapd: tap response time on Android, measured from the kernel's touch
 * events and SurfaceFlinger's frame present times.  main() is setup and
 * teardown only: it reads the command line, sets up logging and hands over
 * to the command.
 */
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buckets.h"
#include "inject_uinput.h"
#include "live.h"
#include "log.h"
#include "parse.h"
#include "replay.h"
#include "serve.h"
#include "source.h"
#include "store.h"
#include "version.h"

#define MS INT64_C(1000000)

/*
 * The live daemon's SQLite page caches (docs/DESIGN.md 6), where SQLite's
 * default is 2 MiB for each of the five connections: the writer appends
 * at the right edge of each b-tree and reads back little; a reader's
 * cache is thrown away at its next read after any commit of the writer
 * (WAL), so while taps come in it rarely outlives a request, and the
 * pages it reads again come from the kernel's cache.
 */
#define RUN_WRITER_CACHE_KIB 512
#define RUN_READER_CACHE_KIB 256

/* Set by SIGINT and SIGTERM: the command in progress ends cleanly. */
static volatile sig_atomic_t stop_flag;

static void
on_stop_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/*
 * No SA_RESTART: a blocking call (a paced replay's sleep, a poll) returns
 * at the signal and the flag is seen at once.
 */
static void
catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * What differs in the Android build: run has a default database, in the
 * places datadir.h names, which a sysroot moves like the rest.
 */
#ifdef TAPD_ANDROID
#define USAGE_RUN "usage: tapd [run] [--db PATH] [options]\n"
#define LIST_RUN                                                               \
	"tapd [run] [--db PATH] [options]   the live daemon (the default)"
#define HELP_RUN_DB                                                            \
	"  --db PATH              the database (default "                      \
	"/data/adb/tapd/taps.db; "                                             \
	"where\n"                                                              \
	"                         /data/adb cannot be used, as without "       \
	"root,\n"                                                              \
	"                         /data/local/tmp/tapd-data/taps.db, health "  \
	"degraded)\n"
#define HELP_SYSROOT                                                           \
	"  --sysroot DIR          tests only: read /dev and /proc under DIR, " \
	"and look for\n"                                                       \
	"                         the default database directories there "     \
	"too\n"
#else
#define USAGE_RUN "usage: tapd [run] --db PATH [options]\n"
#define LIST_RUN                                                               \
	"tapd [run] --db PATH [options]     the live daemon (the default)"
#define HELP_RUN_DB                                                            \
	"  --db PATH              the database (created if missing)\n"
#define HELP_SYSROOT                                                           \
	"  --sysroot DIR          tests only: read /dev and /proc under DIR\n"
#endif

/*
 * One --input, --frames or --foreground line of the usage text: the kinds
 * come from the table of sources, so a new kind shows up by itself.  With
 * help, it follows on the same line at the column the others use.
 */
static void
usage_kinds(FILE *out, enum source_mode mode, enum source_role role,
	    const char *option, const char *help)
{
	char kinds[256], line[300];

	if (source_kinds_usage(mode, role, kinds, sizeof(kinds)) < 0)
		kinds[0] = '\0';
	snprintf(line, sizeof(line), "  --%s %s", option, kinds);
	if (help)
		fprintf(out, "%-36s  %s\n", line, help);
	else
		fprintf(out, "%s\n", line);
}

/* The thresholds run and replay share. */
static void
usage_thresholds(FILE *out)
{
	fputs("  --slop-px N | --slop-dp N\n"
	      "                         touch slop (default 8 dp)\n"
	      "  --long-press-ms N      long-press timeout (default 400)\n"
	      "  --settle-quiet-ms N    quiet gap that ends a burst (default "
	      "300)\n"
	      "  --settle-cap-ms N      longest response window (default "
	      "5000)\n"
	      "  --launch-cap-ms N      longest wait for a tap to switch the "
	      "focus to another\n"
	      "                         app or activity (default 10000; 0: "
	      "off)\n",
	      out);
}

/* The options every command takes. */
static void
usage_common(FILE *out)
{
	fputs("  -v, --verbose          more messages (twice for debug)\n"
	      "  -q, --quiet            errors only\n"
	      "  -h, --help             this help\n"
	      "  --version              the version of tapd\n"
	      "exit status: 0 ok, 1 failure, 2 usage (a bad option or "
	      "value)\n",
	      out);
}

static void
usage_replay(FILE *out)
{
	fprintf(out,
		"usage: tapd replay --db PATH [--session DIR] [options]\n"
		"Reads recorded sources to their end, stores every gesture and "
		"prints a summary.\n"
		"options:\n"
		"  --session DIR          a recorded session (input.getevent, "
		"frames.pftrace or latency/,\n"
		"                         foreground.log, windows.log, "
		"processes.log, device.json);\n"
		"                         the options below override its "
		"parts\n");
	usage_kinds(out, SOURCE_MODE_REPLAY, SOURCE_ROLE_INPUT, "input", NULL);
	fprintf(out,
		"                         a 'getevent -lt' or 'getevent -t' "
		"log; @ picks one device\n");
	usage_kinds(out, SOURCE_MODE_REPLAY, SOURCE_ROLE_FRAMES, "frames",
		    NULL);
	fprintf(out,
		"                         a Perfetto FrameTimeline trace, or "
		"'dumpsys SurfaceFlinger\n"
		"                         --latency' snapshots (default: none "
		"= frames_unavailable)\n");
	usage_kinds(out, SOURCE_MODE_REPLAY, SOURCE_ROLE_FOREGROUND,
		    "foreground", NULL);
	fprintf(out,
		"                         who was in front: a log of "
		"'<monotonic_ns> <pid> <package>'\n"
		"                         lines, or one app throughout\n"
		"  --windows log:FILE|none\n"
		"                         the window lists taps are hit-tested "
		"against: blocks of\n"
		"                         '@ <monotonic_ns>' and 'dumpsys "
		"input' "
		"(none: the foreground)\n"
		"  --processes log:FILE   the owners of those windows: "
		"'<monotonic_ns> <pid> <uid>\n"
		"                         <package>' lines\n"
		"  --device FILE          device.json: screen size, density, "
		"touch axis ranges\n"
		"  --db PATH              the database to write (created if "
		"missing)\n"
		"  --listen HOST:PORT     serve the HTTP API while replaying, "
		"and after it until\n"
		"                         interrupted (127.0.0.1:7878 is "
		"usual; port 0 picks one)\n"
		"  --token-file FILE      require 'Authorization: Bearer' with "
		"this token (needed\n"
		"                         for any address but loopback)\n"
		"  --no-ui                no dashboard at http://HOST:PORT/ "
		"(the API only)\n"
		"  --pace X               replay at X times the recorded speed "
		"(1 = real time;\n"
		"                         default: as fast as possible)\n"
		"  --buckets LIST         /metrics' histogram bounds in "
		"seconds, comma-separated\n"
		"                         (default: 313 from 0.01 to 10 s, "
		"each 1 ms or 2%% wide)\n");
	usage_thresholds(out);
	usage_common(out);
}

static void
usage_run(FILE *out)
{
	fprintf(out, USAGE_RUN "The live daemon, in the foreground until "
			       "SIGTERM or SIGINT (the default command).\n"
			       "options:\n");
	usage_kinds(out, SOURCE_MODE_LIVE, SOURCE_ROLE_INPUT, "input",
		    "the touch screen (default: found by its axes)");
	usage_kinds(out, SOURCE_MODE_LIVE, SOURCE_ROLE_FRAMES, "frames",
		    "FrameTimeline on Android 12+, else dumpsys");
	usage_kinds(out, SOURCE_MODE_LIVE, SOURCE_ROLE_FOREGROUND, "foreground",
		    "top-app cpuset and dumpsys window (auto)");
	fprintf(out, HELP_RUN_DB
		"  --listen HOST:PORT     serve the HTTP API there (default "
		"127.0.0.1:7878)\n"
		"  --token-file FILE      require 'Authorization: Bearer' with "
		"this token\n"
		"  --device FILE          device.json: screen size, density, "
		"touch axis ranges\n"
		"  --pidfile FILE         a locked pidfile: a second tapd on "
		"it refuses to start\n"
		"  --log-file FILE        log there instead of stderr; SIGHUP "
		"reopens it\n"
		"  --retain-days N        delete taps older than N days "
		"(default 30, 0 keeps all)\n"
		"  --trace-dir DIR        where perfetto writes (default "
		"/data/misc/perfetto-traces)\n"
		"  --record DIR           also write what is read as a session "
		"that tapd replay\n"
		"                         --session DIR replays (a new "
		"directory)\n"
		"  --record-max-mb N      rotate the recording to DIR.1 past N "
		"MiB (default 64)\n"
		"  --allow-inject         accept POST /v1/gestures (needs "
		"--token-file): tapd\n"
		"                         writes gestures into the touch "
		"screen itself\n"
		"  --inject-rate N        gestures accepted per second "
		"(default 20)\n"
		"  --inject-device FILE   write them there instead of the "
		"touch screen (tests)\n"
		"  --inject-via M         auto (default: the screen's node, a "
		"uinput clone\n"
		"                         of it once the node refuses), evdev "
		"or uinput\n"
		"  --perfetto-bin P, --dumpsys-bin D, --getprop-bin G\n"
		"                         the Android tools to run (for tests: "
		"fakes)\n"
		"  --buckets LIST         as for replay\n" HELP_SYSROOT);
	usage_thresholds(out);
	usage_common(out);
}

static void
usage_serve(FILE *out)
{
	fprintf(out,
		"usage: tapd serve --db PATH [--listen HOST:PORT] "
		"[--token-file FILE] [--no-ui]\n"
		"                  [--buckets LIST]\n"
		"Answers the HTTP API over an existing database, read-only, "
		"until SIGINT or\n"
		"SIGTERM; it prints 'listening on http://HOST:PORT' first.\n"
		"options:\n"
		"  --db PATH              the database to serve\n"
		"  --listen HOST:PORT     where (default 127.0.0.1:7878; port "
		"0 "
		"picks one)\n"
		"  --token-file FILE      require 'Authorization: Bearer' with "
		"this token (needed\n"
		"                         for any address but loopback)\n"
		"  --no-ui                no dashboard at http://HOST:PORT/ "
		"(the API only)\n"
		"  --buckets LIST         as for replay\n");
	usage_common(out);
}

static int
opt_ms(const char *name, const char *arg, int64_t lo, int64_t hi,
       int64_t *out_ns)
{
	int64_t v;

	if (parse_int64(arg, lo, hi, &v) < 0) {
		log_error("invalid %s '%s': expected a whole number of ms "
			  "from %lld to %lld",
			  name, arg, (long long)lo, (long long)hi);
		return -EINVAL;
	}
	*out_ns = v * MS;
	return 0;
}

static int
opt_slop(const char *name, const char *arg, double *out)
{
	if (parse_double(arg, 0, 10000, out) < 0) {
		log_error("invalid %s '%s': expected a number from 0 to 10000",
			  name, arg);
		return -EINVAL;
	}
	return 0;
}

/* Options of the thresholds, which run and replay share. */
enum {
	OPT_SLOP_PX = 200,
	OPT_SLOP_DP,
	OPT_LONG_PRESS,
	OPT_QUIET_MS,
	OPT_CAP_MS,
	OPT_LAUNCH_CAP_MS,
	/* A command's own options: OPT_OWN + their index in its table. */
	OPT_OWN = 256,
};

static const struct option threshold_options[] = {
	{"slop-px", required_argument, NULL, OPT_SLOP_PX},
	{"slop-dp", required_argument, NULL, OPT_SLOP_DP},
	{"long-press-ms", required_argument, NULL, OPT_LONG_PRESS},
	{"settle-quiet-ms", required_argument, NULL, OPT_QUIET_MS},
	{"settle-cap-ms", required_argument, NULL, OPT_CAP_MS},
	{"launch-cap-ms", required_argument, NULL, OPT_LAUNCH_CAP_MS},
};

/*
 * Options every command shares.  They come last: getopt lists the matches
 * of an ambiguous abbreviation in table order, and that text stays put.
 */
static const struct option verbosity_options[] = {
	{"verbose", no_argument, NULL, 'v'},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
};

/*
 * One option of a command's own: a string kept as given (str), or a value
 * parse() checks and stores at dst, logging a bad one and returning < 0.
 * With opt_switch() for parse, it takes no argument and sets the int at
 * dst.
 */
struct cmd_option {
	const char *name;
	const char **str;
	int (*parse)(const char *arg, void *dst);
	void *dst;
};

static int
opt_switch(const char *arg, void *dst)
{
	(void)arg;
	*(int *)dst = 1;
	return 0;
}

#define CMD_OPTIONS_MAX 48

static int
opt_inject_rate(const char *arg, void *dst)
{
	int64_t v;

	if (parse_int64(arg, 1, 1000, &v) < 0) {
		log_error("invalid --inject-rate '%s': expected gestures per "
			  "second, 1 to 1000",
			  arg);
		return -EINVAL;
	}
	*(unsigned *)dst = (unsigned)v;
	return 0;
}
static int
opt_inject_via(const char *arg, void *dst)
{
	enum inject_via v;

	if (inject_uinput_parse_via(arg, &v) < 0) {
		log_error("invalid --inject-via '%s': expected auto, evdev or "
			  "uinput",
			  arg);
		return -EINVAL;
	}
	*(int *)dst = (int)v;
	return 0;
}
#define N_OPTIONS(a) (sizeof(a) / sizeof(*(a)))

/*
 * Handles a threshold option: returns 1 when it was one, 0 when it was
 * not, -1 on a bad value (logged).
 */
static int
threshold_option(int c, struct pipeline_options *t)
{
	switch (c) {
	case OPT_SLOP_PX:
		return opt_slop("--slop-px", optarg, &t->slop_px) < 0 ? -1 : 1;
	case OPT_SLOP_DP:
		return opt_slop("--slop-dp", optarg, &t->slop_dp) < 0 ? -1 : 1;
	case OPT_LONG_PRESS:
		return opt_ms("--long-press-ms", optarg, 1, 60000,
			      &t->long_press_ns) < 0
			       ? -1
			       : 1;
	case OPT_QUIET_MS:
		return opt_ms("--settle-quiet-ms", optarg, 1, 60000,
			      &t->settle_quiet_ns) < 0
			       ? -1
			       : 1;
	case OPT_CAP_MS:
		return opt_ms("--settle-cap-ms", optarg, 1, 600000,
			      &t->settle_cap_ns) < 0
			       ? -1
			       : 1;
	case OPT_LAUNCH_CAP_MS:
		return opt_ms("--launch-cap-ms", optarg, 0, 600000,
			      &t->launch_cap_ns) < 0
			       ? -1
			       : 1;
	}
	return 0;
}

static int
check_thresholds(const struct pipeline_options *t)
{
	if (t->slop_px >= 0 && t->slop_dp >= 0) {
		log_error("--slop-px and --slop-dp do not go together");
		return -1;
	}
	return 0;
}

/*
 * A command of tapd: its name, its function (argv[0] is the command's
 * name, or "tapd" for the default run), its --help text and its line in
 * the list of commands.  A new command is an entry in main_cmds below; its
 * function reads its options with parse_command(), which gives it --help,
 * --version, -v and -q, and main() adds the "try 'tapd NAME --help'" line
 * after any usage error (exit 2) it returns.
 */
struct main_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	void (*help)(FILE *out);
	const char *synopsis;
};

/* The command whose options parse_command() reads. */
static const struct main_cmd *main_current;

/*
 * Whether s is an option word, never taken as the value of another
 * option: "-" alone and negative numbers are values.
 */
static int
is_option_word(const char *s)
{
	return s[0] == '-' && s[1] != '\0' &&
	       !((s[1] >= '0' && s[1] <= '9') || s[1] == '.');
}

/*
 * --help and --version win wherever they are before a "--": the rest of
 * the line is not read (nor its mistakes reported).  Returns the exit
 * code, or -1 when neither is there.
 */
static int
help_or_version(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			main_current->help(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("tapd %s\n", tapd_version);
			return 0;
		}
	}
	return -1;
}

/*
 * The option loop of every command: its own options from opts, then the
 * thresholds when it takes them (t), then verbosity and help.  Returns the
 * exit code when the command ends here (help, or a bad command line: one
 * line says what is wrong), or -1 when the options are good and the
 * command goes on.
 */
static int
parse_command(int argc, char **argv, const struct cmd_option *opts, size_t n,
	      struct pipeline_options *t)
{
	struct option longopts[CMD_OPTIONS_MAX];
	const char *name = main_current->name;
	size_t i, k = 0;
	int level = LOG_LEVEL_WARN;
	int c, rc;

	/* The tables are fixed; this only guards the array against a new one.
	 */
	if (n + N_OPTIONS(threshold_options) + N_OPTIONS(verbosity_options) >=
	    CMD_OPTIONS_MAX) {
		log_error("too many options");
		return 1;
	}
	if ((rc = help_or_version(argc, argv)) >= 0)
		return rc;
	for (i = 0; i < n; i++) {
		longopts[k].name = opts[i].name;
		longopts[k].has_arg = opts[i].parse == opt_switch
					      ? no_argument
					      : required_argument;
		longopts[k].flag = NULL;
		longopts[k].val = OPT_OWN + (int)i;
		k++;
	}
	for (i = 0; t && i < N_OPTIONS(threshold_options); i++)
		longopts[k++] = threshold_options[i];
	for (i = 0; i < N_OPTIONS(verbosity_options); i++)
		longopts[k++] = verbosity_options[i];
	memset(&longopts[k], 0, sizeof(*longopts));

	optind = 1;
	/* Our own messages (':' for a missing value), not getopt's. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vqh", longopts, NULL)) != -1) {
		if (c == ':') {
			log_error("%s: option '%s' needs a value", name,
				  argv[optind - 1]);
			return 2;
		}
		/* A separate word that is an option is no value. */
		if (optarg && optind >= 2 && optarg == argv[optind - 1] &&
		    is_option_word(optarg)) {
			log_error("%s: option '%s' needs a value", name,
				  argv[optind - 2]);
			return 2;
		}
		if (c >= OPT_OWN && (size_t)(c - OPT_OWN) < n) {
			const struct cmd_option *co = &opts[c - OPT_OWN];

			if (co->str)
				*co->str = optarg;
			else if (co->parse(optarg, co->dst) < 0)
				return 2;
			continue;
		}
		switch (c) {
		case 'v':
			if (level < LOG_LEVEL_DEBUG)
				level++;
			log_set_level(level);
			continue;
		case 'q':
			level = LOG_LEVEL_ERROR;
			log_set_level(level);
			continue;
		case 'h':
			main_current->help(stdout);
			return 0;
		case 'V':
			printf("tapd %s\n", tapd_version);
			return 0;
		}
		rc = t && c != '?' ? threshold_option(c, t) : 0;
		if (rc == 0) {
			log_error("%s: unknown option '%s'", name,
				  argv[optind - 1]);
			return 2;
		}
		if (rc < 0)
			return 2;
	}
	if (optind < argc) {
		log_error("%s: unexpected argument '%s'", name, argv[optind]);
		return 2;
	}
	if (t && check_thresholds(t) < 0)
		return 2;
	return -1;
}

/* Checks --buckets before anything starts (the metrics parse it again). */
static int
check_buckets(const char *spec)
{
	struct buckets *b = NULL;
	int rc;

	if (!spec)
		return 0;
	rc = buckets_parse(spec, &b);
	buckets_free(b);
	return rc;
}

/* The exit code of a command's run: 2 for a bad setting, 1 for a failure. */
static int
exit_code(int rc)
{
	if (rc == -EINVAL)
		return 2;
	return rc < 0 ? 1 : 0;
}

static int
opt_pace(const char *arg, void *dst)
{
	if (parse_double(arg, 0.001, 1000000, dst) < 0) {
		log_error("invalid --pace '%s': expected a "
			  "number from 0.001 to 1000000",
			  arg);
		return -EINVAL;
	}
	return 0;
}

static int
opt_retain_days(const char *arg, void *dst)
{
	int64_t days;

	if (parse_int64(arg, 0, 36500, &days) < 0) {
		log_error("invalid --retain-days '%s': expected "
			  "a whole number from 0 (keep all) to "
			  "36500",
			  arg);
		return -EINVAL;
	}
	*(int *)dst = (int)days;
	return 0;
}

/* --record-max-mb: whole MiB. */
static int
opt_record_max(const char *arg, void *dst)
{
	int64_t mb;

	if (parse_int64(arg, 1, 1048576, &mb) < 0) {
		log_error("invalid --record-max-mb '%s': expected a whole "
			  "number of MiB from 1 to 1048576",
			  arg);
		return -EINVAL;
	}
	*(uint64_t *)dst = (uint64_t)mb * 1024 * 1024;
	return 0;
}

/*
 * The options run and replay share, in their place in both: the sources,
 * the device, the database and the API.  Both option structs name them
 * alike.
 */
#define SOURCE_OPTIONS(o)                                                      \
	{"input", &(o).input, NULL, NULL},                                     \
		{"frames", &(o).frames, NULL, NULL},                           \
		{"foreground", &(o).foreground, NULL, NULL},                   \
		{"device", &(o).device, NULL, NULL},                           \
		{"buckets", &(o).buckets, NULL, NULL},                         \
		{"db", &(o).db, NULL, NULL},                                   \
		{"listen", &(o).listen, NULL, NULL},                           \
		{"token-file", &(o).token_file, NULL, NULL},                   \
	{                                                                      \
		"no-ui", NULL, opt_switch, &(o).no_ui                          \
	}

static int
cmd_replay(int argc, char **argv)
{
	struct replay_options o;
	int rc;

	replay_options_init(&o);
	{
		const struct cmd_option opts[] = {
			{"session", &o.session, NULL, NULL},
			SOURCE_OPTIONS(o),
			{"windows", &o.windows, NULL, NULL},
			{"processes", &o.processes, NULL, NULL},
			{"pace", NULL, opt_pace, &o.pace},
		};

		rc = parse_command(argc, argv, opts, N_OPTIONS(opts),
				   &o.thresholds);
		if (rc >= 0)
			return rc;
	}
	if (!o.db) {
		log_error("replay needs --db PATH");
		return 2;
	}
	if (check_buckets(o.buckets) < 0)
		return 2;
	if (o.token_file && !o.listen) {
		log_error("--token-file goes with --listen");
		return 2;
	}
	o.stop = &stop_flag;
	catch_stop_signals();
	return exit_code(replay_run(&o, stdout));
}

/*
 * The live daemon runs for days on a phone, where its resident memory is
 * what it costs: SQLite's caches bounded, and, with glibc, two malloc
 * arenas instead of one per HTTP thread that allocates (up to eight per
 * core), each holding what its thread freed: with a dashboard's queries
 * over a month of taps they held 4 MB.  A fixed mmap threshold
 * (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD) was tried too and saved nothing
 * measurable.  musl's malloc has no arenas.  Before any thread starts.
 */
static void
run_memory_setup(void)
{
	if (store_set_memory(RUN_WRITER_CACHE_KIB, RUN_READER_CACHE_KIB) < 0)
		log_debug("sqlite already initialized: its lookaside and page "
			  "cache stay as they are");
#ifdef __GLIBC__
	mallopt(M_ARENA_MAX, 2);
#endif
}

static int
cmd_run(int argc, char **argv)
{
	struct live_options o;
	int rc;

	live_options_init(&o);
	{
		const struct cmd_option opts[] = {
			SOURCE_OPTIONS(o),
			{"pidfile", &o.pidfile, NULL, NULL},
			{"log-file", &o.log_file, NULL, NULL},
			{"retain-days", NULL, opt_retain_days, &o.retain_days},
			{"sysroot", &o.sysroot, NULL, NULL},
			{"perfetto-bin", &o.perfetto_bin, NULL, NULL},
			{"dumpsys-bin", &o.dumpsys_bin, NULL, NULL},
			{"getprop-bin", &o.getprop_bin, NULL, NULL},
			{"trace-dir", &o.trace_dir, NULL, NULL},
			{"record", &o.record, NULL, NULL},
			{"record-max-mb", NULL, opt_record_max,
			 &o.record_max_bytes},
			{"allow-inject", NULL, opt_switch, &o.allow_inject},
			{"inject-device", &o.inject_device, NULL, NULL},
			{"inject-rate", NULL, opt_inject_rate, &o.inject_rate},
			{"inject-via", NULL, opt_inject_via, &o.inject_via},
		};

		rc = parse_command(argc, argv, opts, N_OPTIONS(opts),
				   &o.thresholds);
		if (rc >= 0)
			return rc;
	}
#ifndef TAPD_ANDROID
	/* The Android build has a default (live.c); others must be told. */
	if (!o.db) {
		log_error("run needs --db PATH");
		return 2;
	}
#endif
	if (check_buckets(o.buckets) < 0)
		return 2;
	run_memory_setup();
	return exit_code(live_run(&o));
}

static int
cmd_serve(int argc, char **argv)
{
	struct serve_options o;
	int rc;

	memset(&o, 0, sizeof(o));
	{
		const struct cmd_option opts[] = {
			{"db", &o.db, NULL, NULL},
			{"listen", &o.listen, NULL, NULL},
			{"token-file", &o.token_file, NULL, NULL},
			{"no-ui", NULL, opt_switch, &o.no_ui},
			{"buckets", &o.buckets, NULL, NULL},
		};

		rc = parse_command(argc, argv, opts, N_OPTIONS(opts), NULL);
		if (rc >= 0)
			return rc;
	}
	if (!o.db) {
		log_error("serve needs --db PATH");
		return 2;
	}
	if (check_buckets(o.buckets) < 0)
		return 2;
	o.stop = &stop_flag;
	catch_stop_signals();
	return exit_code(serve_run(&o));
}

static void usage(FILE *out);
static int cmd_help(int argc, char **argv);

static void
usage_help(FILE *out)
{
	fputs("usage: tapd help [COMMAND]\n"
	      "The list of commands, or the --help of COMMAND.\n",
	      out);
}

/* The commands, in the order of the usage. */
static const struct main_cmd main_cmds[] = {
	{"run", cmd_run, usage_run, LIST_RUN},
	{"replay", cmd_replay, usage_replay,
	 "tapd replay --db PATH [options]    recorded sources, then a "
	 "summary"},
	{"serve", cmd_serve, usage_serve,
	 "tapd serve --db PATH [options]     the HTTP API over a database"},
	{"help", cmd_help, usage_help,
	 "tapd help [COMMAND]                this list, or a command's "
	 "options"},
};

#define MAIN_NCMDS N_OPTIONS(main_cmds)

static const struct main_cmd *
find_command(const char *name)
{
	size_t i;

	for (i = 0; i < MAIN_NCMDS; i++)
		if (strcmp(main_cmds[i].name, name) == 0)
			return &main_cmds[i];
	return NULL;
}

static void
usage(FILE *out)
{
	size_t i;

	fputs("usage: tapd COMMAND [options]\n"
	      "Tap response time on Android, from the kernel's touch events "
	      "and\n"
	      "SurfaceFlinger's frame present times.\n"
	      "commands:\n",
	      out);
	for (i = 0; i < MAIN_NCMDS; i++)
		fprintf(out, "  %s\n", main_cmds[i].synopsis);
	fprintf(out,
		"'tapd COMMAND --help' or 'tapd help COMMAND' for a command's "
		"options.\n"
		"  -h, --help             this list\n"
		"  --version              the version of tapd (%s)\n"
		"exit status: 0 ok, 1 failure, 2 usage (a bad option or "
		"value)\n",
		tapd_version);
}

static int
cmd_help(int argc, char **argv)
{
	const struct main_cmd *c;
	int rc;

	if ((rc = help_or_version(argc, argv)) >= 0)
		return rc;
	if (argc > 2) {
		log_error("help: one COMMAND at most");
		return 2;
	}
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if ((c = find_command(argv[1])) == NULL) {
		log_error("help: unknown command '%s'", argv[1]);
		return 2;
	}
	c->help(stdout);
	return 0;
}

/*
 * After a usage error, the one line that says where the usage is
 * (the error itself was the line before).
 */
static void
usage_hint(const struct main_cmd *c)
{
	if (c != NULL && c->fn != cmd_help)
		fprintf(stderr, "try 'tapd %s --help'\n", c->name);
	else
		fputs("try 'tapd --help'\n", stderr);
}

int
main(int argc, char **argv)
{
	const char *cmd;
	int rc;

	log_init("tapd", LOG_LEVEL_WARN);
	log_route_libraries();
	/* A closed reader of our stdout must not kill the process. */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		log_error("no command given");
		usage_hint(NULL);
		return 2;
	}
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("tapd %s\n", tapd_version);
		return 0;
	}
	if ((main_current = find_command(cmd)) != NULL) {
		rc = main_current->fn(argc - 1, argv + 1);
	} else if (cmd[0] == '-') {
		/* Options without a command: the live daemon, the default. */
		main_current = find_command("run");
		rc = main_current->fn(argc, argv);
	} else {
		log_error("unknown command '%s'", cmd);
		usage_hint(NULL);
		return 2;
	}
	if (rc == 2)
		usage_hint(main_current);
	return rc;
}
