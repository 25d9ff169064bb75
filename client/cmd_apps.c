#include "cmd_apps.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "http.h"
#include "opt.h"
#include "table.h"
#include "view.h"

enum { APPS_SINCE, APPS_UNTIL, APPS_N };

static const struct opt_spec cmd_apps_opts[APPS_N] = {
	[APPS_SINCE] = {.name = "since",
			.kind = OPT_STRING,
			.param = "since",
			.arg = "S",
			.help = "taps from time S on (RFC 3339, Unix seconds, "
				"90s, 2h, 7d)"},
	[APPS_UNTIL] = {.name = "until",
			.kind = OPT_STRING,
			.param = "until",
			.arg = "S",
			.help = "taps up to time S"},
};

void
cmd_apps_usage(FILE *f)
{
	opt_synopsis(f, "apps", cmd_apps_opts, APPS_N, NULL);
}

/*
 * A percentile of an app's metric object for the apps table, to 0.1 ms,
 * marked "~" when it came from the server's histogram (within
 * max_error_ms, not exact).
 */
static void
cmd_apps_pct(const cJSON *metric, const char *p, char *buf, size_t size)
{
	const cJSON *ps, *v, *method;

	ps = cJSON_GetObjectItemCaseSensitive(metric, "percentiles");
	v = cJSON_GetObjectItemCaseSensitive(ps, p);
	method = cJSON_GetObjectItemCaseSensitive(metric, "method");
	if (!cJSON_IsNumber(v)) {
		table_format(buf, size, "-");
		return;
	}
	table_format(buf, size, "%.1f%s", v->valuedouble,
		     cJSON_IsString(method) && strcmp(method->valuestring,
						      "histogram") == 0
			     ? "~"
			     : "");
}

/* A count of an object, or -1. */
static double
cmd_apps_count(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/*
 * The apps as the replay summary shows them: gestures, taps (the measured
 * kinds, whatever their status), ok and no_response taps, and p50, p90
 * and p99 of both latencies in ms; then the launches made from the app's
 * taps and p50, p90 and p99 of their launch_first_frame, "-" where a
 * server too old to know launches says nothing.  Returns 0, -EPROTO for
 * objects of
 * another shape (then the generic table shows them), or another negative
 * errno.
 */
#define NCOLS 15

static int
cmd_apps_table(const cJSON *apps)
{
	static const char *const hdr[] = {
		"APP",		 "GESTURES",
		"TAPS",		 "OK",
		"NO_RESP",	 "FIRST_P50_MS",
		"FIRST_P90_MS",	 "FIRST_P99_MS",
		"SETTLE_P50_MS", "SETTLE_P90_MS",
		"SETTLE_P99_MS", "LAUNCHES",
		"LAUNCH_P50_MS", "LAUNCH_P90_MS",
		"LAUNCH_P99_MS",
	};
	static const char *const ps[] = {"50", "90", "99"};
	char cells[NCOLS][64], app[256];
	const char *cp[NCOLS];
	const cJSON *e, *name, *st, *ff, *se, *lf;
	struct table *t = NULL;
	double total, nm, ok, nr, nl;
	int rc, i, tilde = 0;

	cJSON_ArrayForEach(e, apps)
	{
		st = cJSON_GetObjectItemCaseSensitive(e, "statuses");
		if (!cJSON_IsObject(e) || !cJSON_IsObject(st) ||
		    cmd_apps_count(e, "count") < 0)
			return -EPROTO;
	}
	if ((rc = table_new(NCOLS, hdr, &t)) < 0)
		return rc;
	for (i = 1; i < NCOLS; i++)
		table_align(t, (unsigned)i, TABLE_RIGHT);
	for (i = 0; i < NCOLS; i++)
		cp[i] = cells[i];
	cJSON_ArrayForEach(e, apps)
	{
		name = cJSON_GetObjectItemCaseSensitive(e, "app");
		st = cJSON_GetObjectItemCaseSensitive(e, "statuses");
		ff = cJSON_GetObjectItemCaseSensitive(e, "first_frame");
		se = cJSON_GetObjectItemCaseSensitive(e, "settle");
		lf = cJSON_GetObjectItemCaseSensitive(e, "launch_first_frame");
		total = cmd_apps_count(e, "count");
		nm = cmd_apps_count(st, "not_measured");
		ok = cmd_apps_count(st, "ok");
		nr = cmd_apps_count(st, "no_response");
		/* The server names the unknown app "unknown"; an older null. */
		view_cell(name, app, sizeof(app));
		table_format(cells[0], sizeof(cells[0]), "%s",
			     cJSON_IsString(name) ? app : "unknown");
		table_format(cells[1], sizeof(cells[1]), "%.0f", total);
		table_format(cells[2], sizeof(cells[2]), "%.0f",
			     nm >= 0 ? total - nm : total);
		table_format(cells[3], sizeof(cells[3]), "%.0f", ok);
		table_format(cells[4], sizeof(cells[4]), "%.0f", nr);
		nl = cmd_apps_count(lf, "count");
		if (nl >= 0)
			table_format(cells[11], sizeof(cells[11]), "%.0f", nl);
		else
			table_format(cells[11], sizeof(cells[11]), "-");
		for (i = 0; i < 3; i++) {
			cmd_apps_pct(ff, ps[i], cells[5 + i], sizeof(cells[0]));
			cmd_apps_pct(se, ps[i], cells[8 + i], sizeof(cells[0]));
			cmd_apps_pct(lf, ps[i], cells[12 + i],
				     sizeof(cells[0]));
			tilde = tilde || strchr(cells[5 + i], '~') ||
				strchr(cells[8 + i], '~') ||
				strchr(cells[12 + i], '~');
		}
		if ((rc = table_add(t, cp)) < 0)
			goto out;
	}
	if (table_rows(t) == 0) {
		fputs("(no apps)\n", stdout);
		goto out;
	}
	rc = table_print(t, stdout);
	if (rc == 0 && tilde)
		fputs("~ from the server's histogram, within its "
		      "max_error_ms\n",
		      stdout);
out:
	table_free(t);
	return rc;
}

int
cmd_apps(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *values[APPS_N];
	struct http_response r;
	const cJSON *apps;
	cJSON *root = NULL;
	char *path = NULL;
	int rc, next;

	memset(&r, 0, sizeof(r));
	if (opt_parse("apps", cmd_apps_opts, APPS_N, argc, argv, values,
		      &next) < 0 ||
	    opt_end("apps", argc, argv, next) < 0)
		return CMD_EXIT_USAGE;
	if (cmd_query(ctx, "/v1/apps", cmd_apps_opts, values, APPS_N, &path) <
	    0) {
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	if ((rc = cmd_call_json(ctx, "GET", path, NULL, &r, &root)) != 0)
		goto out;
	if ((apps = cmd_list(root, "apps")) == NULL) {
		rc = cmd_shape(ctx, "no \"apps\" array");
		goto out;
	}
	if (ctx->json) {
		rc = cmd_print_raw(&r);
	} else {
		rc = cmd_apps_table(apps);
		if (rc == -EPROTO)
			rc = view_array(apps, stdout);
		rc = cmd_flush(rc < 0 ? CMD_EXIT_LOCAL : CMD_EXIT_OK);
	}
out:
	cJSON_Delete(root);
	http_response_release(&r);
	free(path);
	return rc;
}
