/*
 * fakedumpsys: the Android tools tapd runs, as the test VM provides them
 * (tests/vm/run.sh).  One binary, chosen by its name or its arguments:
 *
 *   dumpsys SurfaceFlinger --list
 *   dumpsys SurfaceFlinger --latency <layer>
 *   dumpsys window [windows]
 *   getprop [NAME [DEFAULT]]
 *   resetprop [-n] [NAME [VALUE]] | resetprop -w NAME [OLD]
 *
 * The properties are the lines NAME=VALUE of the file named by
 * $VMTEST_PROPS, else of /etc/vmtest.props; without either, only
 * ro.build.version.sdk is set (29).  resetprop, Magisk's tool, as the
 * module scripts use it: NAME prints the value, NAME VALUE sets it (the
 * file is rewritten), -w NAME OLD waits until the value is no longer OLD
 * (-w NAME: until it is set), polling the file.
 *
 * The output is the real format (docs/formats.md 4.2, 3.2 and 3):
 * --list prints one layer name a line, the Android 10-12 form; --latency
 * prints the refresh period, then 127 rows "desired\tactual\tready" (ns,
 * CLOCK_MONOTONIC, oldest first, "0\t0\t0" for unused records, INT64_MAX
 * for a present fence not yet signalled), then an empty line; for a layer
 * that does not exist, the period line only.
 *
 * The app's frames follow the injected taps: the frames file (FRAMES_FILE,
 * written by vmtest) holds the finger-up time of every tap and long
 * press, and each is answered by a burst of BURST_FRAMES frames, the first
 * queued FIRST_START_NS after the finger-up and presented PRESENT_NS after
 * it was queued, one every PERIOD_NS.  So a tap's first_frame is exactly
 * FIRST_START_NS + PRESENT_NS.  A frame appears only once its queue time
 * has passed, and as pending until its present time has, as
 * SurfaceFlinger's ring would show it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FRAMES_FILE "/tmp/vm/frames"
#define APP	    "com.vmtest.app"
#define ACTIVITY    "com.vmtest.app.MainActivity"
#define LAYER	    APP "/" ACTIVITY "#0"

#define PERIOD_NS      16666667LL
#define FIRST_START_NS 4000000LL
#define PRESENT_NS     12000000LL
#define READY_NS       8000000LL
#define BURST_FRAMES   6

#define RING_ROWS 127
#define TAPS_MAX  1024

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Reads up to max finger-up times; lines that are not numbers are skipped. */
static size_t
read_taps(int64_t *taps, size_t max)
{
	char line[64], *end;
	long long v;
	size_t n = 0;
	FILE *f;

	f = fopen(FRAMES_FILE, "r");
	if (f == NULL)
		return 0;
	while (n < max && fgets(line, sizeof(line), f) != NULL) {
		errno = 0;
		v = strtoll(line, &end, 10);
		if (errno != 0 || end == line || (*end != '\n' && *end != '\0'))
			continue;
		taps[n++] = v;
	}
	fclose(f);
	return n;
}

static int
latency(const char *layer)
{
	static int64_t taps[TAPS_MAX];
	static int64_t rows[TAPS_MAX * BURST_FRAMES][3];
	int64_t now = now_ns(), desired;
	size_t ntaps, nrows = 0, i, first;
	int k;

	printf("%lld\n", PERIOD_NS);
	if (strcmp(layer, LAYER) != 0)
		return 0;
	ntaps = read_taps(taps, TAPS_MAX);
	for (i = 0; i < ntaps; i++) {
		for (k = 0; k < BURST_FRAMES; k++) {
			desired = taps[i] + FIRST_START_NS + k * PERIOD_NS;
			if (desired > now)
				break;
			rows[nrows][0] = desired;
			rows[nrows][1] = desired + PRESENT_NS <= now
						 ? desired + PRESENT_NS
						 : INT64_MAX;
			rows[nrows][2] = desired + READY_NS <= now
						 ? desired + READY_NS
						 : INT64_MAX;
			nrows++;
		}
	}
	first = nrows > RING_ROWS ? nrows - RING_ROWS : 0;
	for (i = nrows - first; i < RING_ROWS; i++)
		printf("0\t0\t0\n");
	for (i = first; i < nrows; i++)
		printf("%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n", rows[i][0],
		       rows[i][1], rows[i][2]);
	printf("\n");
	return 0;
}

static int
surfaceflinger(int argc, char **argv)
{
	if (argc == 1 && strcmp(argv[0], "--list") == 0) {
		printf("Display 0 name=\"Built-in Screen\"#0\n"
		       "WindowedMagnification:0:31#0\n"
		       "com.android.launcher3/"
		       "com.android.launcher3.uioverrides.QuickstepLauncher#0\n"
		       "%s\n"
		       "StatusBar#0\n"
		       "NavigationBar0#0\n",
		       LAYER);
		return 0;
	}
	if (argc == 2 && strcmp(argv[0], "--latency") == 0)
		return latency(argv[1]);
	fprintf(stderr, "fakedumpsys: unsupported SurfaceFlinger arguments\n");
	return 1;
}

static int
window(void)
{
	printf("WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
	       "  mCurrentFocus=Window{5d2c0e1 u0 %s/%s}\n"
	       "  mFocusedApp=ActivityRecord{8a1b3f2 u0 %s/.MainActivity "
	       "t42}\n",
	       APP, ACTIVITY, APP);
	return 0;
}

#define PROPS_MAX      128
#define PROP_NAME_MAX  128
#define PROP_VALUE_MAX 256
#define PROPS_DEFAULT  "/etc/vmtest.props"

struct prop {
	char name[PROP_NAME_MAX];
	char value[PROP_VALUE_MAX];
};

static struct prop props[PROPS_MAX];
static size_t nprops;

static const char *
props_path(void)
{
	const char *p = getenv("VMTEST_PROPS");

	return p != NULL && *p != '\0' ? p : PROPS_DEFAULT;
}

/* Loads the properties; returns 0, or -1 when the file cannot be read. */
static int
props_load(void)
{
	char line[PROP_NAME_MAX + PROP_VALUE_MAX + 4], *eq, *nl;
	FILE *f;

	nprops = 0;
	f = fopen(props_path(), "r");
	if (f == NULL) {
		if (getenv("VMTEST_PROPS") != NULL)
			return -1;
		snprintf(props[0].name, sizeof(props[0].name), "%s",
			 "ro.build.version.sdk");
		snprintf(props[0].value, sizeof(props[0].value), "%s", "29");
		nprops = 1;
		return 0;
	}
	while (nprops < PROPS_MAX && fgets(line, sizeof(line), f) != NULL) {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl = '\0';
		eq = strchr(line, '=');
		if (line[0] == '#' || eq == NULL || eq == line ||
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

/* Sets one property and rewrites the file (a new one, renamed in). */
static int
prop_set(const char *name, const char *value)
{
	char tmp[PATH_MAX];
	size_t i;
	FILE *f;

	if (strlen(name) >= PROP_NAME_MAX || strlen(value) >= PROP_VALUE_MAX ||
	    strchr(name, '=') != NULL || strchr(value, '\n') != NULL)
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
	if (snprintf(tmp, sizeof(tmp), "%s.%d", props_path(), (int)getpid()) >=
	    (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (f == NULL)
		return -1;
	for (i = 0; i < nprops; i++)
		fprintf(f, "%s=%s\n", props[i].name, props[i].value);
	if (fclose(f) != 0 || rename(tmp, props_path()) != 0) {
		remove(tmp);
		return -1;
	}
	return 0;
}

static int
getprop(int argc, char **argv)
{
	const char *v;

	if (props_load() < 0) {
		fprintf(stderr, "getprop: cannot read %s\n", props_path());
		return 1;
	}
	if (argc == 0) {
		props_list();
		return 0;
	}
	v = prop_get(argv[0]);
	if (v == NULL)
		v = argc >= 2 ? argv[1] : "";
	printf("%s\n", v);
	return 0;
}

static int
resetprop(int argc, char **argv)
{
	struct timespec ts = {0, 100000000L};
	const char *v;

	if (argc >= 1 && strcmp(argv[0], "-n") == 0) {
		argc--;
		argv++;
	}
	if (props_load() < 0) {
		fprintf(stderr, "resetprop: cannot read %s\n", props_path());
		return 1;
	}
	if (argc >= 2 && strcmp(argv[0], "-w") == 0) {
		for (;;) {
			v = prop_get(argv[1]);
			if (v != NULL && (argc < 3 || strcmp(v, argv[2]) != 0))
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
	if (argc == 1) {
		v = prop_get(argv[0]);
		if (v == NULL)
			return 1;
		printf("%s\n", v);
		return 0;
	}
	if (argc == 2) {
		if (prop_set(argv[0], argv[1]) < 0) {
			fprintf(stderr, "resetprop: cannot set %s\n", argv[0]);
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "resetprop: unsupported arguments\n");
	return 1;
}

int
main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');

	name = name != NULL ? name + 1 : argv[0];
	if (strcmp(name, "getprop") == 0)
		return getprop(argc - 1, argv + 1);
	if (strcmp(name, "resetprop") == 0)
		return resetprop(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "SurfaceFlinger") == 0)
		return surfaceflinger(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "window") == 0)
		return window();
	fprintf(stderr, "fakedumpsys: unsupported arguments\n");
	return 1;
}
