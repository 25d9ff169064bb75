#include "cmd_tail.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_taps.h"
#include "http.h"
#include "opt.h"
#include "sse.h"
#include "table.h"

struct cmd_tail {
	struct cmd_ctx *ctx;
	struct sse *sse;
	int bad;	/* an event that is not a tap object */
	int out_failed; /* stdout is gone */
	unsigned long lines;
};

static int
cmd_tail_event(void *arg, const char *type, const char *data, size_t len)
{
	struct cmd_tail *tl = arg;
	const cJSON *missed;
	char cells[9][256], text[256], *line;
	cJSON *tap;

	tap = cJSON_ParseWithLength(data, len);
	if (type[0] != '\0' && strcmp(type, "tap") != 0) {
		/* Not a tap: the stream says something about itself. */
		missed = cJSON_GetObjectItemCaseSensitive(tap, "missed");
		table_clean(type, text, sizeof(text));
		if (cJSON_IsNumber(missed))
			cmd_err("fell behind: the server skipped %.0f taps",
				missed->valuedouble);
		else
			cmd_err("event '%s' from the server", text);
		cJSON_Delete(tap);
		return 0;
	}
	if (!cJSON_IsObject(tap)) {
		cJSON_Delete(tap);
		tl->bad = 1;
		return -EPROTO;
	}
	if (tl->ctx->json && memchr(data, '\n', len) == NULL) {
		fwrite(data, 1, len, stdout);
		fputc('\n', stdout);
	} else if (tl->ctx->json) {
		/* One line per tap, whatever the server's layout. */
		if ((line = cJSON_PrintUnformatted(tap)) == NULL) {
			cJSON_Delete(tap);
			return -ENOMEM;
		}
		puts(line);
		cJSON_free(line);
	} else {
		if (tl->lines == 0)
			printf("%8s  %-24s  %-28s  %-10s  %-18s  %9s  %9s  "
			       "%6s  %s\n",
			       "ID", "TIME", "APP", "KIND", "STATUS",
			       "FIRST_MS", "SETTLE_MS", "FRAMES", "FLAGS");
		cmd_taps_cells(tap, cells);
		printf("%8s  %-24s  %-28s  %-10s  %-18s  %9s  %9s  %6s  %s\n",
		       cells[0], cells[1], cells[2], cells[3], cells[4],
		       cells[5], cells[6], cells[7], cells[8]);
	}
	cJSON_Delete(tap);
	tl->lines++;
	/* One line per tap, as it comes, even into a pipe. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		tl->out_failed = 1;
		return -EIO;
	}
	return 0;
}

static int
cmd_tail_sink(void *arg, const char *data, size_t len)
{
	struct cmd_tail *tl = arg;

	return sse_feed(tl->sse, data, len) < 0 ? -1 : 0;
}

void
cmd_tail_usage(FILE *f)
{
	opt_synopsis(f, "tail", NULL, 0, NULL);
}

int
cmd_tail(struct cmd_ctx *ctx, int argc, char **argv)
{
	const volatile sig_atomic_t *stop;
	struct http_response r;
	struct cmd_tail tl;
	long idle;
	int rc, next;

	memset(&r, 0, sizeof(r));
	if (opt_parse("tail", NULL, 0, argc, argv, NULL, &next) < 0 ||
	    opt_end("tail", argc, argv, next) < 0)
		return CMD_EXIT_USAGE;
	memset(&tl, 0, sizeof(tl));
	tl.ctx = ctx;
	if (sse_new(cmd_tail_event, &tl, &tl.sse) < 0) {
		cmd_err("out of memory");
		return CMD_EXIT_USAGE;
	}
	/*
	 * The server sends keep-alive comments while no tap comes; a stream
	 * silent for several of their periods is a dead one.
	 */
	idle = ctx->timeout_s > 60 ? ctx->timeout_s : 60;
	stop = cmd_catch_signals();
	rc = http_stream(ctx->http, "/v1/events", cmd_tail_sink, &tl, 0, stop,
			 idle, &r);
	if (rc < 0 && r.fail == HTTP_ABORTED) {
		if (tl.out_failed)
			rc = cmd_flush(CMD_EXIT_OK);
		else if (tl.bad)
			rc = cmd_shape(ctx, "an event that is not a tap");
		else if (*stop)
			rc = CMD_EXIT_OK;
		else
			rc = cmd_shape(ctx, "an event stream line too long");
		goto out;
	}
	if ((rc = cmd_outcome(ctx, rc, &r)) != CMD_EXIT_OK)
		goto out;
	if (!cmd_content_type_is(&r, "text/event-stream")) {
		rc = cmd_shape(ctx, "not an event stream");
		goto out;
	}
	/* The server ended the stream: it is shutting down. */
	cmd_err("the server ended the event stream");
	rc = cmd_flush(CMD_EXIT_OK);
out:
	sse_free(tl.sse);
	http_response_release(&r);
	return rc;
}
