#include "cmd_percentiles.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "http.h"
#include "opt.h"
#include "table.h"
#include "view.h"

/* Bars of the --histogram view, in characters. */
#define CMD_PERCENTILES_BAR 40

/*
 * The options, in the order of the synopsis and of the query; the first
 * PCT_HIST_N are the filters /v1/histogram takes as well.
 */
enum {
	PCT_APP,
	PCT_METRIC,
	PCT_SINCE,
	PCT_UNTIL,
	PCT_HIST_N,
	PCT_P = PCT_HIST_N,
	PCT_KIND,
	PCT_STATUS,
	PCT_SESSION,
	PCT_METHOD,
	PCT_HISTOGRAM,
	PCT_N
};

/*
 * The metric and the method go to the server as they are: it knows which
 * it takes, and says so with a 400.
 */
static const struct opt_spec cmd_percentiles_opts[PCT_N] = {
	[PCT_APP] = {.name = "app",
		     .kind = OPT_STRING,
		     .param = "app",
		     .arg = "A",
		     .help = "only app A's taps ('unknown': of no known app)"},
	[PCT_METRIC] = {.name = "metric",
			.kind = OPT_STRING,
			.param = "metric",
			.arg = "first_frame|settle|launch_first_frame|"
			       "launch_settle",
			.help = "first_frame (default), settle, "
				"launch_first_frame or launch_settle"},
	[PCT_SINCE] = {.name = "since",
		       .kind = OPT_STRING,
		       .param = "since",
		       .arg = "S",
		       .help = "taps from time S on (RFC 3339, Unix seconds, "
			       "90s, 2h, 7d)"},
	[PCT_UNTIL] = {.name = "until",
		       .kind = OPT_STRING,
		       .param = "until",
		       .arg = "S",
		       .help = "taps up to time S"},
	/* Up to 32 percentiles, as the server takes. */
	[PCT_P] = {.name = "p",
		   .kind = OPT_LIST,
		   .param = "p",
		   .lo = 0,
		   .hi = 100,
		   .max = 32,
		   .arg = "LIST",
		   .help = "up to 32 percentiles in (0, 100] (default "
			   "50,90,95,99)"},
	[PCT_KIND] =
		{.name = "kind",
		 .kind = OPT_STRING,
		 .param = "kind",
		 .arg = "K",
		 .help = "tap, long_press, swipe, multi (comma-separated)"},
	[PCT_STATUS] = {.name = "status",
			.kind = OPT_STRING,
			.param = "status",
			.arg = "S",
			.help = "ok (default), no_response, truncated, ..."},
	[PCT_SESSION] = {.name = "session",
			 .kind = OPT_INT,
			 .param = "session",
			 .lo = 1,
			 .hi = INT64_MAX,
			 .arg = "ID",
			 .help = "only the taps of session ID"},
	[PCT_METHOD] = {.name = "method",
			.kind = OPT_STRING,
			.param = "method",
			.arg = "auto|exact|histogram",
			.help = "how the server computes them (default auto)"},
	[PCT_HISTOGRAM] = {.name = "histogram",
			   .kind = OPT_FLAG,
			   .help = "the distribution too (GET /v1/histogram)"},
};

void
cmd_percentiles_usage(FILE *f)
{
	opt_synopsis(f, "percentiles", cmd_percentiles_opts, PCT_N, NULL);
}

/* The scalar members of obj as "key  value" lines. */
static int
cmd_percentiles_scalars(const cJSON *obj)
{
	const char *cells[2];
	struct table *t = NULL;
	const cJSON *v;
	char value[512];
	int rc;

	if ((rc = table_new(2, NULL, &t)) < 0)
		return rc;
	cJSON_ArrayForEach(v, obj)
	{
		if (v->string == NULL || cJSON_IsObject(v) || cJSON_IsArray(v))
			continue;
		view_cell(v, value, sizeof(value));
		cells[0] = v->string;
		cells[1] = value;
		if ((rc = table_add(t, cells)) < 0)
			goto out;
	}
	rc = table_print(t, stdout);
out:
	table_free(t);
	return rc;
}

static int
cmd_percentiles_print(struct cmd_ctx *ctx, const cJSON *root)
{
	const cJSON *ps, *p, *metric;
	const char *hdr[2], *cells[2];
	struct table *t = NULL;
	char head[96], name[64], value[64];
	size_t i;
	int rc;

	ps = cJSON_GetObjectItemCaseSensitive(root, "percentiles");
	if (!cJSON_IsObject(ps))
		return cmd_shape(ctx, "no \"percentiles\" object");
	cJSON_ArrayForEach(p, ps)
	{
		if (!cJSON_IsNumber(p) && !cJSON_IsNull(p))
			return cmd_shape(ctx, "a percentile is not a number");
	}
	if (cmd_percentiles_scalars(root) < 0)
		return CMD_EXIT_LOCAL;
	metric = cJSON_GetObjectItemCaseSensitive(root, "metric");
	table_format(head, sizeof(head), "%s_MS",
		     cJSON_IsString(metric) ? metric->valuestring : "VALUE");
	for (i = 0; head[i]; i++)
		if (head[i] >= 'a' && head[i] <= 'z')
			head[i] = (char)(head[i] - 'a' + 'A');
	hdr[0] = "P";
	hdr[1] = head;
	if ((rc = table_new(2, hdr, &t)) < 0)
		return CMD_EXIT_LOCAL;
	table_align(t, 0, TABLE_RIGHT);
	table_align(t, 1, TABLE_RIGHT);
	cJSON_ArrayForEach(p, ps)
	{
		table_format(name, sizeof(name), "p%s", p->string);
		view_cell(p, value, sizeof(value));
		cells[0] = name;
		cells[1] = value;
		if (table_add(t, cells) < 0)
			break;
	}
	fputc('\n', stdout);
	rc = table_print(t, stdout);
	table_free(t);
	return rc < 0 ? CMD_EXIT_LOCAL : CMD_EXIT_OK;
}

/* The first number among the named members of obj, or NAN. */
static double
cmd_percentiles_number(const cJSON *obj, const char *const *names)
{
	const cJSON *v;

	for (; *names; names++) {
		v = cJSON_GetObjectItemCaseSensitive(obj, *names);
		if (cJSON_IsNumber(v))
			return v->valuedouble;
	}
	return NAN;
}

struct cmd_percentiles_bucket {
	double lo, hi, count;
};

/*
 * Reads the buckets of a /v1/histogram answer: either "buckets", an array
 * of objects with the edges and a count, or parallel arrays "edges_ms"
 * (n + 1 numbers) and "counts" (n).  Returns the count of buckets, or -1
 * for another shape.
 */
static int
cmd_percentiles_buckets(const cJSON *root, struct cmd_percentiles_bucket **out)
{
	static const char *const lo_names[] = {"lo_ms",	 "from_ms",  "lower_ms",
					       "min_ms", "start_ms", "lo",
					       NULL};
	static const char *const hi_names[] = {
		"hi_ms", "to_ms", "upper_ms", "max_ms", "end_ms", "hi", NULL};
	static const char *const count_names[] = {"count", "n", NULL};
	const cJSON *buckets, *edges, *counts, *e;
	struct cmd_percentiles_bucket *b;
	int n, i;

	*out = NULL;
	buckets = cJSON_GetObjectItemCaseSensitive(root, "buckets");
	edges = cJSON_GetObjectItemCaseSensitive(root, "edges_ms");
	counts = cJSON_GetObjectItemCaseSensitive(root, "counts");
	if (cJSON_IsArray(buckets))
		n = cJSON_GetArraySize(buckets);
	else if (cJSON_IsArray(edges) && cJSON_IsArray(counts) &&
		 cJSON_GetArraySize(edges) == cJSON_GetArraySize(counts) + 1)
		n = cJSON_GetArraySize(counts);
	else
		return -1;
	if (n == 0)
		return 0;
	if ((b = calloc((size_t)n, sizeof(*b))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (cJSON_IsArray(buckets)) {
			e = cJSON_GetArrayItem(buckets, i);
			b[i].lo = cmd_percentiles_number(e, lo_names);
			b[i].hi = cmd_percentiles_number(e, hi_names);
			b[i].count = cmd_percentiles_number(e, count_names);
		} else {
			e = cJSON_GetArrayItem(edges, i);
			b[i].lo = cJSON_IsNumber(e) ? e->valuedouble : NAN;
			e = cJSON_GetArrayItem(edges, i + 1);
			b[i].hi = cJSON_IsNumber(e) ? e->valuedouble : NAN;
			e = cJSON_GetArrayItem(counts, i);
			b[i].count = cJSON_IsNumber(e) ? e->valuedouble : NAN;
		}
		if (isnan(b[i].count) || b[i].count < 0) {
			free(b);
			return -1;
		}
	}
	*out = b;
	return n;
}

static void
cmd_percentiles_edge(double v, char *buf, size_t size)
{
	if (isnan(v))
		table_format(buf, size, "-");
	else if (isinf(v))
		table_format(buf, size, "%s", v > 0 ? "inf" : "-inf");
	else
		table_format(buf, size, "%.2f", v);
}

static int
cmd_percentiles_histogram(struct cmd_ctx *ctx, const cJSON *root)
{
	static const char *const hdr[] = {"FROM_MS", "TO_MS", "COUNT", ""};
	const char *cells[4];
	struct cmd_percentiles_bucket *b = NULL;
	struct table *t = NULL;
	char lo[32], hi[32], count[32], bar[CMD_PERCENTILES_BAR + 1];
	double max = 0;
	int n, i, first = -1, last = -1, rc = CMD_EXIT_OK;
	size_t w;

	if ((n = cmd_percentiles_buckets(root, &b)) < 0)
		return cmd_shape(ctx, "no histogram buckets");
	for (i = 0; i < n; i++) {
		if (b[i].count > 0) {
			if (first < 0)
				first = i;
			last = i;
		}
		if (b[i].count > max)
			max = b[i].count;
	}
	fputc('\n', stdout);
	if (first < 0) {
		fputs("(no taps)\n", stdout);
		goto out;
	}
	if (table_new(4, hdr, &t) < 0) {
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	table_align(t, 0, TABLE_RIGHT);
	table_align(t, 1, TABLE_RIGHT);
	table_align(t, 2, TABLE_RIGHT);
	/* Empty buckets between the first and the last show the gaps. */
	for (i = first; i <= last; i++) {
		cmd_percentiles_edge(b[i].lo, lo, sizeof(lo));
		cmd_percentiles_edge(b[i].hi, hi, sizeof(hi));
		table_format(count, sizeof(count), "%.0f", b[i].count);
		w = (size_t)ceil(b[i].count / max * CMD_PERCENTILES_BAR);
		if (w > CMD_PERCENTILES_BAR)
			w = CMD_PERCENTILES_BAR;
		memset(bar, '#', w);
		bar[w] = '\0';
		cells[0] = lo;
		cells[1] = hi;
		cells[2] = count;
		cells[3] = bar;
		if (table_add(t, cells) < 0) {
			rc = CMD_EXIT_LOCAL;
			goto out;
		}
	}
	if (table_print(t, stdout) < 0)
		rc = CMD_EXIT_LOCAL;
out:
	table_free(t);
	free(b);
	return rc;
}

int
cmd_percentiles(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *values[PCT_N];
	struct http_response r, hr;
	cJSON *root = NULL, *hroot = NULL, *both = NULL;
	char *path = NULL, *hpath = NULL, *text;
	int rc, next, histogram;

	memset(&r, 0, sizeof(r));
	memset(&hr, 0, sizeof(hr));
	if (opt_parse("percentiles", cmd_percentiles_opts, PCT_N, argc, argv,
		      values, &next) < 0 ||
	    opt_end("percentiles", argc, argv, next) < 0)
		return CMD_EXIT_USAGE;
	histogram = values[PCT_HISTOGRAM] != NULL;
	rc = CMD_EXIT_LOCAL;
	if (cmd_query(ctx, "/v1/percentiles", cmd_percentiles_opts, values,
		      PCT_N, &path) < 0)
		goto out;
	/* The histogram takes the filters it knows: app, metric, range. */
	if (histogram && cmd_query(ctx, "/v1/histogram", cmd_percentiles_opts,
				   values, PCT_HIST_N, &hpath) < 0)
		goto out;
	if ((rc = cmd_call_json(ctx, "GET", path, NULL, &r, &root)) != 0)
		goto out;
	if (!cJSON_IsObject(root)) {
		rc = cmd_shape(ctx, "the percentiles are not an object");
		goto out;
	}
	if (histogram &&
	    (rc = cmd_call_json(ctx, "GET", hpath, NULL, &hr, &hroot)) != 0)
		goto out;
	if (histogram && !cJSON_IsObject(hroot)) {
		rc = cmd_shape(ctx, "the histogram is not an object");
		goto out;
	}
	if (ctx->json && !histogram) {
		rc = cmd_print_raw(&r);
	} else if (ctx->json) {
		/* Both answers, as one document. */
		rc = CMD_EXIT_LOCAL;
		if ((both = cJSON_CreateObject()) == NULL ||
		    !cJSON_AddItemToObject(both, "percentiles", root))
			goto out;
		root = NULL;
		if (!cJSON_AddItemToObject(both, "histogram", hroot))
			goto out;
		hroot = NULL;
		if ((text = cJSON_PrintUnformatted(both)) == NULL)
			goto out;
		puts(text);
		cJSON_free(text);
		rc = cmd_flush(CMD_EXIT_OK);
	} else {
		rc = cmd_percentiles_print(ctx, root);
		if (rc == CMD_EXIT_OK && histogram)
			rc = cmd_percentiles_histogram(ctx, hroot);
		rc = cmd_flush(rc);
	}
out:
	cJSON_Delete(root);
	cJSON_Delete(hroot);
	cJSON_Delete(both);
	http_response_release(&r);
	http_response_release(&hr);
	free(path);
	free(hpath);
	return rc;
}
