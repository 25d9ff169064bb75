#include "cmd_taps.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "http.h"
#include "opt.h"
#include "table.h"
#include "view.h"

/* The options, in the order of the synopsis (and of the query). */
enum {
	TAPS_APP,
	TAPS_LIMIT,
	TAPS_FORMAT,
	TAPS_SINCE,
	TAPS_UNTIL,
	TAPS_KIND,
	TAPS_STATUS,
	TAPS_SESSION,
	TAPS_AFTER,
	TAPS_N
};

/* The words of --format, and the content type of the answer to each. */
static const char *const cmd_taps_formats[] = {"json", "ndjson", "csv", NULL};
static const char *const cmd_taps_ctypes[] = {
	"application/json", "application/x-ndjson", "text/csv"};

static const struct opt_spec cmd_taps_opts[TAPS_N] = {
	[TAPS_APP] = {.name = "app",
		      .kind = OPT_STRING,
		      .param = "app",
		      .arg = "A",
		      .help = "only app A's taps ('unknown': of no known app)"},
	/* At most the server's cap per page (its TAPS_LIMIT_MAX). */
	[TAPS_LIMIT] = {.name = "limit",
			.kind = OPT_INT,
			.param = "limit",
			.lo = 1,
			.hi = 10000,
			.arg = "N",
			.help = "at most N taps (1..10000, the server's cap; "
				"default 100)"},
	[TAPS_FORMAT] =
		{.name = "format",
		 .kind = OPT_CHOICE,
		 .param = "format",
		 .choices = cmd_taps_formats,
		 .arg = "json|ndjson|csv",
		 .help = "print the server's JSON, NDJSON or CSV as it is"},
	[TAPS_SINCE] = {.name = "since",
			.kind = OPT_STRING,
			.param = "since",
			.arg = "S",
			.help = "taps from time S on (RFC 3339, Unix seconds, "
				"90s, 2h, 7d)"},
	[TAPS_UNTIL] = {.name = "until",
			.kind = OPT_STRING,
			.param = "until",
			.arg = "S",
			.help = "taps up to time S"},
	[TAPS_KIND] =
		{.name = "kind",
		 .kind = OPT_STRING,
		 .param = "kind",
		 .arg = "K",
		 .help = "tap, long_press, swipe, multi (comma-separated)"},
	[TAPS_STATUS] = {.name = "status",
			 .kind = OPT_STRING,
			 .param = "status",
			 .arg = "S",
			 .help = "ok, no_response, truncated, "
				 "frames_unavailable, not_measured"},
	[TAPS_SESSION] = {.name = "session",
			  .kind = OPT_INT,
			  .param = "session",
			  .lo = 1,
			  .hi = INT64_MAX,
			  .arg = "ID",
			  .help = "only the taps of session ID"},
	[TAPS_AFTER] = {.name = "after-id",
			.kind = OPT_INT,
			.param = "after_id",
			.lo = 0,
			.hi = INT64_MAX,
			.arg = "ID",
			.help = "the next page: taps after tap ID"},
};

void
cmd_taps_usage(FILE *f)
{
	opt_synopsis(f, "taps", cmd_taps_opts, TAPS_N, NULL);
}

void
cmd_taps_cells(const cJSON *tap, char cells[CMD_TAPS_NCELLS][256])
{
	static const char *const keys[CMD_TAPS_NCELLS] = {
		"id",	     "wall_time", "app",    "attribution",
		"window",    "kind",	  "status", "first_frame_ms",
		"settle_ms", "frames",	  "flags",  "jank_tags",
	};
	const cJSON *v;
	char raw[256];
	size_t i;

	for (i = 0; i < CMD_TAPS_NCELLS; i++) {
		v = cJSON_GetObjectItemCaseSensitive(tap, keys[i]);
		if (i == 7 || i == 8) {
			/* Latencies to the microsecond, as the API gives. */
			if (cJSON_IsNumber(v))
				table_format(raw, sizeof(raw), "%.3f",
					     v->valuedouble);
			else
				table_format(raw, sizeof(raw), "-");
		} else {
			view_cell(v, raw, sizeof(raw));
		}
		table_clean(raw, cells[i], 256);
	}
}

static int
cmd_taps_table(const cJSON *taps)
{
	static const char *const hdr[CMD_TAPS_NCELLS] = {
		"ID",	  "TIME",     "APP",	   "BY",     "WINDOW", "KIND",
		"STATUS", "FIRST_MS", "SETTLE_MS", "FRAMES", "FLAGS",  "JANK",
	};
	char cells[CMD_TAPS_NCELLS][256];
	const char *cp[CMD_TAPS_NCELLS];
	struct table *t = NULL;
	const cJSON *tap;
	size_t i;
	int rc;

	if ((rc = table_new(CMD_TAPS_NCELLS, hdr, &t)) < 0)
		return rc;
	table_align(t, 0, TABLE_RIGHT);
	table_align(t, 7, TABLE_RIGHT);
	table_align(t, 8, TABLE_RIGHT);
	table_align(t, 9, TABLE_RIGHT);
	for (i = 0; i < CMD_TAPS_NCELLS; i++)
		cp[i] = cells[i];
	cJSON_ArrayForEach(tap, taps)
	{
		cmd_taps_cells(tap, cells);
		if ((rc = table_add(t, cp)) < 0)
			goto out;
	}
	rc = table_print(t, stdout);
out:
	table_free(t);
	return rc;
}

int
cmd_taps(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *values[TAPS_N];
	struct http_response r;
	const cJSON *taps, *next;
	cJSON *root = NULL;
	char *path = NULL;
	int rc, first, format;

	memset(&r, 0, sizeof(r));
	if (opt_parse("taps", cmd_taps_opts, TAPS_N, argc, argv, values,
		      &first) < 0 ||
	    opt_end("taps", argc, argv, first) < 0)
		return CMD_EXIT_USAGE;
	format = opt_choice(&cmd_taps_opts[TAPS_FORMAT], values[TAPS_FORMAT]);
	rc = CMD_EXIT_LOCAL;
	if (cmd_query(ctx, "/v1/taps", cmd_taps_opts, values, TAPS_N, &path) <
	    0)
		goto out;
	if (format > 0) {
		/* ndjson and csv go out as the server wrote them. */
		rc = http_request(ctx->http, "GET", path, NULL, &r);
		if ((rc = cmd_outcome(ctx, rc, &r)) != CMD_EXIT_OK)
			goto out;
		if (!cmd_content_type_is(&r, cmd_taps_ctypes[format])) {
			rc = cmd_shape(ctx, "not the format asked for");
			goto out;
		}
		if (r.len > 0)
			fwrite(r.body, 1, r.len, stdout);
		rc = cmd_flush(CMD_EXIT_OK);
		goto out;
	}
	if ((rc = cmd_call_json(ctx, "GET", path, NULL, &r, &root)) != 0)
		goto out;
	if ((taps = cmd_list(root, "taps")) == NULL) {
		rc = cmd_shape(ctx, "no \"taps\" array");
		goto out;
	}
	if (ctx->json || format == 0) {
		rc = cmd_print_raw(&r);
		goto out;
	}
	rc = cmd_flush(cmd_taps_table(taps) < 0 ? CMD_EXIT_LOCAL : CMD_EXIT_OK);
	next = cJSON_GetObjectItemCaseSensitive(root, "next_after_id");
	if (rc == CMD_EXIT_OK && cJSON_IsNumber(next))
		cmd_note("more taps: add --after-id %.0f", next->valuedouble);
out:
	cJSON_Delete(root);
	http_response_release(&r);
	free(path);
	return rc;
}
