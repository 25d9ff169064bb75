/*
 * fakedumpsys: the Android tools tapd runs, as the test VM provides them
 * (tests/vm/run.sh).  One binary, chosen by its name or its arguments:
 *
 *   dumpsys SurfaceFlinger --list
 *   dumpsys SurfaceFlinger --latency <layer>
 *   dumpsys window [windows]
 *   getprop [NAME]
 *
 * The output is the real format (input.md 5.3 and 5.6; frames.md 2):
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static int
getprop(int argc, char **argv)
{
	if (argc == 0) {
		printf("[ro.build.version.sdk]: [29]\n");
		return 0;
	}
	if (strcmp(argv[0], "ro.build.version.sdk") == 0)
		printf("29\n");
	else
		printf("\n");
	return 0;
}

int
main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');

	name = name != NULL ? name + 1 : argv[0];
	if (strcmp(name, "getprop") == 0)
		return getprop(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "SurfaceFlinger") == 0)
		return surfaceflinger(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "window") == 0)
		return window();
	fprintf(stderr, "fakedumpsys: unsupported arguments\n");
	return 1;
}
