/* The replay's per-app table (appsum.h). */
#include "appsum.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

/* Values of one latency, grown as they come. */
struct appsum_values {
	int64_t *v;
	size_t n, cap;
};

struct appsum_app {
	char *app;
	uint64_t gestures; /* every kind, as tapctl apps counts them */
	uint64_t measured; /* taps and long presses */
	uint64_t ok;
	uint64_t no_response;
	struct appsum_values first, settle, launch; /* of ok taps */
};

struct appsum {
	struct appsum_app *apps;
	size_t napps;
};

int
appsum_new(struct appsum **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void
appsum_free(struct appsum *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->napps; i++) {
		free(s->apps[i].app);
		free(s->apps[i].first.v);
		free(s->apps[i].settle.v);
		free(s->apps[i].launch.v);
	}
	free(s->apps);
	free(s);
}

static struct appsum_app *
appsum_get(struct appsum *s, const char *app)
{
	struct appsum_app *a;
	size_t i;

	if (!app)
		app = STORE_APP_UNKNOWN;
	for (i = 0; i < s->napps; i++)
		if (strcmp(s->apps[i].app, app) == 0)
			return &s->apps[i];
	a = realloc(s->apps, (s->napps + 1) * sizeof(*a));
	if (!a)
		return NULL;
	s->apps = a;
	a = &s->apps[s->napps];
	memset(a, 0, sizeof(*a));
	if ((a->app = strdup(app)) == NULL)
		return NULL;
	s->napps++;
	return a;
}

static int
appsum_push(struct appsum_values *vs, int64_t v)
{
	int64_t *grown;
	size_t cap;

	if (vs->n == vs->cap) {
		cap = vs->cap ? vs->cap * 2 : 64;
		if ((grown = realloc(vs->v, cap * sizeof(*grown))) == NULL)
			return -ENOMEM;
		vs->v = grown;
		vs->cap = cap;
	}
	vs->v[vs->n++] = v;
	return 0;
}

int
appsum_gesture(struct appsum *s, const char *app)
{
	struct appsum_app *a = appsum_get(s, app);

	if (!a)
		return -ENOMEM;
	a->gestures++;
	return 0;
}

int
appsum_tap(struct appsum *s, const char *app, enum correlate_status st,
	   int64_t first_ns, int64_t settle_ns, int64_t launch_ns)
{
	struct appsum_app *a = appsum_get(s, app);

	if (!a)
		return -ENOMEM;
	a->gestures++;
	a->measured++;
	if (st == CORRELATE_NO_RESPONSE)
		a->no_response++;
	if (st != CORRELATE_OK)
		return 0;
	a->ok++;
	if (appsum_push(&a->first, first_ns) < 0 ||
	    appsum_push(&a->settle, settle_ns) < 0 ||
	    (launch_ns >= 0 && appsum_push(&a->launch, launch_ns) < 0))
		return -ENOMEM;
	return 0;
}

static int
appsum_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank of sorted values: the smallest with p% of them <= it. */
static void
appsum_print_ms(FILE *out, const struct appsum_values *vs, unsigned pct,
		int width)
{
	size_t rank = (vs->n * pct + 99) / 100;

	if (vs->n == 0) {
		fprintf(out, " %*s", width, "-");
		return;
	}
	if (rank == 0)
		rank = 1;
	fprintf(out, " %*.1f", width, vs->v[rank - 1] / 1e6);
}

static void
appsum_print_three(FILE *out, struct appsum_values *vs, int width)
{
	if (vs->n > 0)
		qsort(vs->v, vs->n, sizeof(*vs->v), appsum_cmp);
	appsum_print_ms(out, vs, 50, width);
	appsum_print_ms(out, vs, 90, width);
	appsum_print_ms(out, vs, 99, width);
}

void
appsum_print(struct appsum *s, FILE *out)
{
	struct appsum_app *a;
	size_t i;

	fprintf(out,
		"%-40s %8s %6s %6s %7s %12s %12s %12s %13s %13s %13s %8s %13s "
		"%13s %13s\n",
		"APP", "GESTURES", "TAPS", "OK", "NO_RESP", "FIRST_P50_MS",
		"FIRST_P90_MS", "FIRST_P99_MS", "SETTLE_P50_MS",
		"SETTLE_P90_MS", "SETTLE_P99_MS", "LAUNCHES", "LAUNCH_P50_MS",
		"LAUNCH_P90_MS", "LAUNCH_P99_MS");
	for (i = 0; i < s->napps; i++) {
		a = &s->apps[i];
		fprintf(out,
			"%-40.40s %8" PRIu64 " %6" PRIu64 " %6" PRIu64
			" %7" PRIu64,
			a->app, a->gestures, a->measured, a->ok,
			a->no_response);
		appsum_print_three(out, &a->first, 12);
		appsum_print_three(out, &a->settle, 13);
		fprintf(out, " %8zu", a->launch.n);
		appsum_print_three(out, &a->launch, 13);
		fprintf(out, "\n");
	}
	if (s->napps == 0)
		fprintf(out, "(no taps or long presses)\n");
}
