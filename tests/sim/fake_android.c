#include "fake_android.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"

/* The vsync grid: 60 Hz, and the period line SurfaceFlinger prints. */
#define PERIOD_NS	   16666667LL
#define PERIOD_PRINTED	   INT64_C(16666666)
#define RING_ROWS	   127
#define MS		   1000000LL
#define SIGNAL_PENDING	   INT64_MAX
#define TAPS_LAYER_DEFAULT "com.example.taps/com.example.taps.MainActivity#1400"

enum pattern {
	CONTAINER, /* no buffers: zero rows */
	MAIL,	   /* draws 0.5 s of every second */
	MAPS_WINDOW,
	MAPS_SV,
	STATUS_BAR,
	NEVER, /* a buffer layer that has not drawn since it was made */
};

struct layer {
	const char *name;
	int parent; /* index, -1 for none */
	enum pattern pattern;
};

static const struct layer layers[] = {
	{"Display Root#0", -1, CONTAINER},
	{"Display Overlays#1", 0, CONTAINER},
	{"WindowedMagnification:0:31#2", 0, CONTAINER},
	{"DefaultTaskDisplayArea#5", 2, CONTAINER},
	{"Task=12#1201", 3, CONTAINER},
	{"ActivityRecord{5c2e1a8 u0 com.example.mail/.MainActivity t12}#1225",
	 4, CONTAINER},
	{"54dfae7 com.example.mail/com.example.mail.MainActivity#1230", 5,
	 CONTAINER},
	{"com.example.mail/com.example.mail.MainActivity#1234", 6, MAIL},
	{"Bounds for - com.example.mail/com.example.mail.MainActivity#1231", 5,
	 CONTAINER},
	{"Task=13#1301", 3, CONTAINER},
	{"ActivityRecord{7b1c2d3 u0 com.example.maps/.MapActivity t13}#1310", 9,
	 CONTAINER},
	{"a1b2c3d com.example.maps/com.example.maps.MapActivity#1311", 10,
	 CONTAINER},
	{"com.example.maps/com.example.maps.MapActivity#1312", 11, MAPS_WINDOW},
	{"SurfaceView[com.example.maps/com.example.maps.MapActivity]#1320", 12,
	 CONTAINER},
	{"SurfaceView[com.example.maps/com.example.maps.MapActivity](BLAST)"
	 "#1321",
	 13, MAPS_SV},
	{"Background for SurfaceView[com.example.maps/"
	 "com.example.maps.MapActivity]#1322",
	 13, CONTAINER},
	{"StatusBar#80", 1, STATUS_BAR},
	{"NavigationBar0#78", 1, NEVER},
};
#define NLAYERS ((int)(sizeof(layers) / sizeof(layers[0])))

struct row {
	int64_t desired, actual, ready;
};

static int64_t
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
append_line(const char *path, const char *text, size_t len)
{
	int fd;
	ssize_t w;

	if (!path || !*path || len == 0)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		msg_warn("cannot open '%s'", path);
		return;
	}
	/* One write per call keeps concurrent writers' lines whole. */
	w = write(fd, text, len);
	if (w < 0 || (size_t)w != len)
		msg_warn("cannot write '%s'", path);
	close(fd);
}

static void
hang(void)
{
	fflush(stdout);
	for (;;)
		pause();
}

static const char *
mode_of(const char *var, const char *dflt)
{
	const char *s = getenv(var);

	return s && *s ? s : dflt;
}

/* A layer that never draws: a container, or a buffer layer left idle. */
static int
quiet(enum pattern p)
{
	return p == CONTAINER || p == NEVER;
}

/*
 * TAPD_FAKE_DRAW_UNTIL_NS (fake_android.h), shared with the fake
 * perfetto: only the mail app draws, every vsync, until then; 0 when
 * unset.
 */
static int64_t
draw_until(void)
{
	const char *s = getenv("TAPD_FAKE_DRAW_UNTIL_NS");
	long long v;
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end || v <= 0 ? 0 : (int64_t)v;
}

static int
draws(enum pattern p, int64_t j)
{
	int64_t until = draw_until();

	if (until)
		return p == MAIL && j * PERIOD_NS < until;
	switch (p) {
	case MAIL:
		return (j / 30) % 2 == 0;
	case MAPS_WINDOW:
		return j % 60 == 0;
	case MAPS_SV:
		return j % 2 == 0;
	case STATUS_BAR:
		return j % 120 == 7;
	default:
		return 0;
	}
}

static struct row
frame_of(int idx, int64_t j)
{
	struct row r;
	int64_t v = j * PERIOD_NS;

	r.desired = v - 12 * MS + idx * 100000LL;
	r.ready = v - 4 * MS + idx * 1000LL;
	r.actual = v + 200000LL + idx * 1000LL;
	return r;
}

static int
find_layer(const char *name)
{
	int i;

	for (i = 0; i < NLAYERS; i++)
		if (strcmp(layers[i].name, name) == 0)
			return i;
	return -1;
}

/*
 * The taps model (fake_android.h): a layer whose frames answer the
 * finger-up times in TAPD_FAKE_TAPS, a burst of TAPS_BURST frames for
 * each, the first queued TAPS_FIRST_NS after the finger-up and presented
 * TAPS_PRESENT_NS after it was queued.
 */
#define TAPS_FIRST_NS	4000000LL
#define TAPS_PRESENT_NS 12000000LL
#define TAPS_READY_NS	8000000LL
#define TAPS_BURST	6
#define TAPS_MAX	1024

/* The taps layer's name, or NULL when the model is off. */
static const char *
taps_layer(void)
{
	const char *path = getenv("TAPD_FAKE_TAPS");
	const char *name = getenv("TAPD_FAKE_TAPS_LAYER");

	if (!path || !*path)
		return NULL;
	return name && *name ? name : TAPS_LAYER_DEFAULT;
}

/* Reads up to max finger-up times; lines that are not numbers are skipped. */
static size_t
taps_read(int64_t *taps, size_t max)
{
	char line[64], *end;
	long long v;
	size_t n = 0;
	FILE *f;

	f = fopen(getenv("TAPD_FAKE_TAPS"), "r");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		errno = 0;
		v = strtoll(line, &end, 10);
		if (errno != 0 || end == line || (*end != '\n' && *end != '\0'))
			continue;
		taps[n++] = v;
	}
	fclose(f);
	return n;
}

/* The taps layer's ring: frames queued by now, oldest first. */
static int
taps_latency(void)
{
	static int64_t taps[TAPS_MAX];
	static struct row rows[TAPS_MAX * TAPS_BURST];
	int64_t now = mono_now(), desired;
	size_t ntaps, nrows = 0, i, first;
	int k;

	ntaps = taps_read(taps, TAPS_MAX);
	for (i = 0; i < ntaps; i++) {
		for (k = 0; k < TAPS_BURST; k++) {
			desired = taps[i] + TAPS_FIRST_NS + k * PERIOD_NS;
			if (desired > now)
				break;
			rows[nrows].desired = desired;
			rows[nrows].actual = desired + TAPS_PRESENT_NS <= now
						     ? desired + TAPS_PRESENT_NS
						     : SIGNAL_PENDING;
			rows[nrows].ready = desired + TAPS_READY_NS <= now
						    ? desired + TAPS_READY_NS
						    : SIGNAL_PENDING;
			nrows++;
		}
	}
	first = nrows > RING_ROWS ? nrows - RING_ROWS : 0;
	for (i = nrows - first; i < RING_ROWS; i++)
		printf("0\t0\t0\n");
	for (i = first; i < nrows; i++)
		printf("%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n",
		       rows[i].desired, rows[i].actual, rows[i].ready);
	printf("\n");
	return 0;
}

/* The "error" mode: what dumpsys says when it may not dump the service. */
static int
denied(void)
{
	fprintf(stderr, "Error dumping service info: (Permission denied) "
			"SurfaceFlinger\n");
	return 1;
}

static int
print_list(void)
{
	const char *mode = mode_of("TAPD_FAKE_DUMPSYS_LIST", "a14");
	int i;

	if (strcmp(mode, "error") == 0)
		return denied();
	if (strcmp(mode, "garbage") == 0) {
		printf("Permission Denial: can't dump SurfaceFlinger from "
		       "pid=4242, uid=2000\n");
		return 0;
	}
	if (strcmp(mode, "hang") == 0)
		hang();
	for (i = 0; i < NLAYERS; i++) {
		/* In the taps model only the app's layer draws. */
		if (taps_layer() && !quiet(layers[i].pattern))
			continue;
		if (strcmp(mode, "a15") != 0)
			printf("%s\n", layers[i].name);
		else if (layers[i].parent < 0)
			printf("RequestedLayerState{%s z=0 layerStack=0}\n",
			       layers[i].name);
		else
			printf("RequestedLayerState{%s parentId=%s}\n",
			       layers[i].name,
			       strrchr(layers[layers[i].parent].name, '#') + 1);
	}
	if (taps_layer() && strcmp(mode, "a15") != 0)
		printf("%s\n", taps_layer());
	else if (taps_layer())
		printf("RequestedLayerState{%s z=0 layerStack=0}\n",
		       taps_layer());
	return 0;
}

static int
print_latency(const char *name)
{
	const char *mode = mode_of("TAPD_FAKE_DUMPSYS_MODE", "ok");
	const char *only = getenv("TAPD_FAKE_DUMPSYS_ONLY");
	const char *log = getenv("TAPD_FAKE_FRAMES_LOG");
	static struct row ring[RING_ROWS];
	char *logbuf = NULL;
	size_t loglen = 0, logcap = 0;
	int64_t now, j, jmax, stop;
	int idx, n = 0, i;

	if (only && *only && !strstr(name, only))
		mode = "ok";
	if (strcmp(mode, "error") == 0)
		return denied();
	if (strcmp(mode, "garbage") == 0) {
		printf("Permission Denial: can't dump SurfaceFlinger from "
		       "pid=4242, uid=2000\n"
		       "desired\tactual\tready\n"
		       "12\tabc\t34\n"
		       "\x7f\x01\x02 --\n");
		return 0;
	}
	printf("%" PRId64 "\n", PERIOD_PRINTED);
	if (strcmp(mode, "hang") == 0)
		hang();
	if (taps_layer() && strcmp(name, taps_layer()) == 0)
		return taps_latency();
	idx = find_layer(name);
	if (idx >= 0 && taps_layer() && !quiet(layers[idx].pattern))
		idx = -1;
	if (idx < 0)
		return 0; /* no such layer: the period line alone */
	now = mono_now();
	if (strcmp(mode, "zeros") != 0 && layers[idx].pattern != CONTAINER) {
		/* The newest frames queued by now, newest first. */
		jmax = (now + 12 * MS) / PERIOD_NS + 1;
		stop = jmax - RING_ROWS * 130;
		for (j = jmax; j >= 1 && j > stop && n < RING_ROWS; j--) {
			struct row r;

			if (!draws(layers[idx].pattern, j))
				continue;
			r = frame_of(idx, j);
			if (r.desired > now)
				continue;
			ring[n++] = r;
		}
	}
	for (i = 0; i < RING_ROWS - n; i++)
		printf("0\t0\t0\n");
	for (i = n - 1; i >= 0; i--) {
		struct row r = ring[i];
		int presented = r.actual <= now;

		printf("%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n", r.desired,
		       presented ? r.actual : SIGNAL_PENDING,
		       r.ready <= now ? r.ready : SIGNAL_PENDING);
		if (presented && log) {
			char line[512];
			int m = snprintf(line, sizeof(line),
					 "%" PRId64 " %" PRId64 " %s\n",
					 r.desired, r.actual, name);

			if (m > 0 && (size_t)m < sizeof(line)) {
				if (loglen + (size_t)m > logcap) {
					size_t cap =
						logcap ? logcap * 2 : 16384;
					char *p;

					while (cap < loglen + (size_t)m)
						cap *= 2;
					p = realloc(logbuf, cap);
					if (!p)
						break;
					logbuf = p;
					logcap = cap;
				}
				memcpy(logbuf + loglen, line, (size_t)m);
				loglen += (size_t)m;
			}
		}
	}
	printf("\n");
	/*
	 * The output goes out before the log is written: a reader that
	 * gets the rows has them in the log by the time dumpsys exits.
	 */
	fflush(stdout);
	append_line(log, logbuf, loglen);
	free(logbuf);
	return 0;
}

/* The text of DIR/SERVICE.EXT in buf, or -1 when the file is not there. */
static int
read_small(const char *dir, const char *svc, const char *ext, char *buf,
	   size_t size)
{
	char path[1024];
	FILE *fp;
	size_t n;
	int m;

	m = snprintf(path, sizeof(path), "%s/%s.%s", dir, svc, ext);
	if (m < 0 || (size_t)m >= sizeof(path))
		return -1;
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	n = fread(buf, 1, size - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return 0;
}

/* Copies DIR/SERVICE.out to stdout: 1 when it is not there, -1 on error. */
static int
print_file(const char *dir, const char *svc)
{
	char path[1024], buf[65536];
	FILE *fp;
	size_t n;
	int m, rc = 0;

	m = snprintf(path, sizeof(path), "%s/%s.out", dir, svc);
	if (m < 0 || (size_t)m >= sizeof(path))
		return -1;
	fp = fopen(path, "rb");
	if (!fp)
		return errno == ENOENT ? 1 : -1;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		if (fwrite(buf, 1, n, stdout) != n) {
			rc = -1;
			break;
		}
	if (ferror(fp))
		rc = -1;
	fclose(fp);
	return rc;
}

/*
 * Every service but SurfaceFlinger: what the test wrote in
 * TAPD_FAKE_DUMPSYS_DIR (fake_android.h).  A test that reads one dump
 * (dumpsys window) needs its exact bytes, failures and hangs more than a
 * model of the service, so the files say what to do.
 */
static int
canned(int argc, char **argv)
{
	const char *dir = getenv("TAPD_FAKE_DUMPSYS_DIR");
	const char *svc = argv[1];
	char line[2048], hang_s[64], exit_s[64], path[1024];
	size_t len = 0;
	struct stat st;
	int i, n, printed, has_hang, has_exit;

	if (!dir || !*dir) {
		fprintf(stderr, "Can't find service: %s\n", svc);
		return 1;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr,
			"fake dumpsys: TAPD_FAKE_DUMPSYS_DIR '%s' is not a "
			"directory\n",
			dir);
		return 2;
	}
	if (!*svc || strchr(svc, '/') || svc[0] == '.') {
		fprintf(stderr, "fake dumpsys: bad service name '%s'\n", svc);
		return 2;
	}
	/* The call, logged first: a test sees it even when it hangs. */
	for (i = 1; i < argc; i++) {
		n = snprintf(line + len, sizeof(line) - len, "%s%s",
			     i > 1 ? " " : "", argv[i]);
		if (n < 0 || (size_t)n >= sizeof(line) - len - 1)
			break;
		len += (size_t)n;
	}
	line[len++] = '\n';
	n = snprintf(path, sizeof(path), "%s/%s.calls", dir, svc);
	if (n > 0 && (size_t)n < sizeof(path))
		append_line(path, line, len);
	has_hang = read_small(dir, svc, "hang", hang_s, sizeof(hang_s)) == 0;
	has_exit = read_small(dir, svc, "exit", exit_s, sizeof(exit_s)) == 0;
	printed = print_file(dir, svc);
	if (printed < 0) {
		msg_warn("cannot copy '%s/%s.out'", dir, svc);
		return 3;
	}
	if (printed == 1 && !has_hang && !has_exit) {
		fprintf(stderr, "Can't find service: %s\n", svc);
		return 1;
	}
	if (fflush(stdout) != 0)
		return 3;
	if (has_hang) {
		/* Killed by the reader's timeout, or done sleeping: exit 0. */
		double secs = strtod(hang_s, NULL);
		struct timespec ts;

		if (secs > 0) {
			ts.tv_sec = (time_t)secs;
			ts.tv_nsec = (long)((secs - floor(secs)) * 1e9);
			while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
				;
		}
		return 0;
	}
	return has_exit ? atoi(exit_s) : 0;
}

int
fake_android_dumpsys(int argc, char **argv)
{
	const char *calls = getenv("TAPD_FAKE_DUMPSYS_CALLS");
	char line[1200];
	int n, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: dumpsys SERVICE [ARGS]\n");
		return 1;
	}
	if (strcmp(argv[1], "SurfaceFlinger") != 0)
		return canned(argc, argv);
	if (argc == 3 && strcmp(argv[2], "--list") == 0) {
		append_line(calls, "list\n", 5);
		rc = print_list();
	} else if ((argc == 3 || argc == 4) &&
		   strcmp(argv[2], "--latency") == 0) {
		n = snprintf(line, sizeof(line), "latency %s\n",
			     argc == 4 ? argv[3] : "");
		if (n > 0 && (size_t)n < sizeof(line))
			append_line(calls, line, (size_t)n);
		if (argc == 3) {
			printf("%" PRId64 "\n", PERIOD_PRINTED);
			rc = 0;
		} else {
			rc = print_latency(argv[3]);
		}
	} else {
		fprintf(stderr, "fake dumpsys: only SurfaceFlinger --list and "
				"--latency [NAME] are faked\n");
		return 1;
	}
	if (fflush(stdout) != 0)
		return 1;
	return rc;
}

/*
 * The properties of TAPD_FAKE_PROPS (fake_android.h): NAME=VALUE lines,
 * '#' comments and lines without a '=' skipped.
 */
#define PROPS_MAX      128
#define PROP_NAME_MAX  128
#define PROP_VALUE_MAX 256

struct prop {
	char name[PROP_NAME_MAX];
	char value[PROP_VALUE_MAX];
};

static struct prop props[PROPS_MAX];
static size_t nprops;

static const char *
props_path(void)
{
	return mode_of("TAPD_FAKE_PROPS", NULL);
}

/* Loads the properties: 0, or -1 when the file cannot be read. */
static int
props_load(void)
{
	char line[PROP_NAME_MAX + PROP_VALUE_MAX + 4], *eq, *nl;
	FILE *f;

	nprops = 0;
	f = fopen(props_path(), "r");
	if (!f)
		return -1;
	while (nprops < PROPS_MAX && fgets(line, sizeof(line), f)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		eq = strchr(line, '=');
		if (line[0] == '#' || !eq || eq == line ||
		    (size_t)(eq - line) >= PROP_NAME_MAX ||
		    strlen(eq + 1) >= PROP_VALUE_MAX)
			continue;
		*eq = '\0';
		memcpy(props[nprops].name, line, (size_t)(eq - line) + 1);
		memcpy(props[nprops].value, eq + 1, strlen(eq + 1) + 1);
		nprops++;
	}
	fclose(f);
	return 0;
}

static const char *
prop_get(const char *name)
{
	size_t i;

	for (i = 0; i < nprops; i++)
		if (strcmp(props[i].name, name) == 0)
			return props[i].value;
	return NULL;
}

static void
props_list(void)
{
	size_t i;

	for (i = 0; i < nprops; i++)
		printf("[%s]: [%s]\n", props[i].name, props[i].value);
}

/* Sets one property; the file is written anew and renamed in. */
static int
prop_set(const char *name, const char *value)
{
	char tmp[1024];
	size_t i;
	FILE *f;
	int m;

	if (strlen(name) >= PROP_NAME_MAX || strlen(value) >= PROP_VALUE_MAX ||
	    strchr(name, '=') || strchr(value, '\n'))
		return -1;
	for (i = 0; i < nprops && strcmp(props[i].name, name) != 0; i++)
		;
	if (i == nprops) {
		if (nprops == PROPS_MAX)
			return -1;
		nprops++;
	}
	snprintf(props[i].name, PROP_NAME_MAX, "%s", name);
	snprintf(props[i].value, PROP_VALUE_MAX, "%s", value);
	m = snprintf(tmp, sizeof(tmp), "%s.%d", props_path(), (int)getpid());
	if (m < 0 || (size_t)m >= sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	for (i = 0; i < nprops; i++)
		fprintf(f, "%s=%s\n", props[i].name, props[i].value);
	if (fclose(f) != 0 || rename(tmp, props_path()) != 0) {
		remove(tmp);
		return -1;
	}
	return 0;
}

/* getprop [NAME [DEFAULT]] on the properties file. */
static int
getprop_file(int argc, char **argv)
{
	const char *v;

	if (argc > 3) {
		fprintf(stderr, "usage: getprop [NAME [DEFAULT]]\n");
		return 1;
	}
	if (props_load() < 0) {
		fprintf(stderr, "getprop: cannot read '%s'\n", props_path());
		return 1;
	}
	if (argc == 1) {
		props_list();
		return 0;
	}
	v = prop_get(argv[1]);
	printf("%s\n", v ? v : argc == 3 ? argv[2] : "");
	return 0;
}

int
fake_android_getprop(int argc, char **argv)
{
	const char *sdk = getenv("TAPD_FAKE_SDK");

	if (props_path())
		return getprop_file(argc, argv);
	if (argc != 2) {
		fprintf(stderr, "usage: getprop NAME\n");
		return 1;
	}
	/* An unset property prints an empty line, as getprop does. */
	if (strcmp(argv[1], "ro.build.version.sdk") == 0 && sdk)
		printf("%s\n", sdk);
	else
		printf("\n");
	return 0;
}

int
fake_android_resetprop(int argc, char **argv)
{
	struct timespec ts = {0, 100000000L};
	const char *v;

	if (!props_path()) {
		fprintf(stderr, "fake resetprop: TAPD_FAKE_PROPS is not set\n");
		return 2;
	}
	argc--;
	argv++;
	if (argc >= 1 && strcmp(argv[0], "-n") == 0) {
		argc--;
		argv++;
	}
	if (props_load() < 0) {
		fprintf(stderr, "resetprop: cannot read '%s'\n", props_path());
		return 1;
	}
	if ((argc == 2 || argc == 3) && strcmp(argv[0], "-w") == 0) {
		/* Polled: the file is rewritten whole, never in place. */
		for (;;) {
			v = prop_get(argv[1]);
			if (v && (argc == 2 || strcmp(v, argv[2]) != 0))
				return 0;
			nanosleep(&ts, NULL);
			if (props_load() < 0)
				return 1;
		}
	}
	if (argc == 0) {
		props_list();
		return 0;
	}
	if (argc == 1 && argv[0][0] != '-') {
		v = prop_get(argv[0]);
		if (!v)
			return 1;
		printf("%s\n", v);
		return 0;
	}
	if (argc == 2 && argv[0][0] != '-') {
		if (prop_set(argv[0], argv[1]) < 0) {
			fprintf(stderr, "resetprop: cannot set '%s'\n",
				argv[0]);
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "fake resetprop: only NAME, NAME VALUE and -w NAME "
			"[OLD] are faked\n");
	return 1;
}
