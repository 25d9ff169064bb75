#include "cmd_tail.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "arg.h"
#include "cmd.h"
#include "cmd_taps.h"
#include "http.h"
#include "opt.h"
#include "sse.h"
#include "table.h"

/* How long tail tries to get a stream back, unless --retry-for says. */
#define CMD_TAIL_RETRY_FOR_S 300
/* The first delay before reconnecting, until the server sends retry:. */
#define CMD_TAIL_RETRY_MS 2000
/* Failed attempts double the delay, up to this. */
#define CMD_TAIL_BACKOFF_MAX_MS 30000

enum { TAIL_RETRY_FOR, TAIL_N };

static const struct opt_spec cmd_tail_opts[TAIL_N] = {
	[TAIL_RETRY_FOR] = {.name = "retry-for",
			    .kind = OPT_INT,
			    .lo = 0,
			    .hi = 86400 * 366,
			    .arg = "S",
			    .help = "reconnect for up to S seconds (default "
				    "300; 0: never)"},
};

struct cmd_tail {
	struct cmd_ctx *ctx;
	struct sse *sse;
	int bad;	/* an event that is not a tap object */
	int out_failed; /* stdout is gone */
	unsigned long lines;
	/* The event id of the last tap printed, "" before one. */
	char last_id[SSE_MAX_ID + 1];
};

/* Whether id is one to send back as Last-Event-ID: a decimal. */
static int
cmd_tail_is_id(const char *id)
{
	const char *p;

	for (p = id; *p >= '0' && *p <= '9'; p++)
		;
	return p != id && *p == '\0' && p - id <= 19;
}

static int
cmd_tail_event(void *arg, const char *type, const char *id, const char *data,
	       size_t len)
{
	struct cmd_tail *tl = arg;
	const cJSON *missed;
	char cells[CMD_TAPS_NCELLS][256], text[256], *line;
	cJSON *tap;

	tap = cJSON_ParseWithLength(data, len);
	if (type[0] != '\0' && strcmp(type, "tap") != 0) {
		/* Not a tap: the stream says something about itself. */
		missed = cJSON_GetObjectItemCaseSensitive(tap, "missed");
		table_clean(type, text, sizeof(text));
		if (cJSON_IsNumber(missed))
			cmd_warn("%.0f taps missed: the server no "
				 "longer has them",
				 missed->valuedouble);
		else
			cmd_warn("event '%s' from the server", text);
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
			printf("%8s  %-24s  %-28s  %-10s  %-24s  %-10s  %-18s  "
			       "%9s  %9s  %6s  %-16s  %s\n",
			       "ID", "TIME", "APP", "BY", "WINDOW", "KIND",
			       "STATUS", "FIRST_MS", "SETTLE_MS", "FRAMES",
			       "FLAGS", "JANK");
		cmd_taps_cells(tap, cells);
		printf("%8s  %-24s  %-28s  %-10s  %-24s  %-10s  %-18s  %9s  "
		       "%9s  %6s  %-16s  %s\n",
		       cells[0], cells[1], cells[2], cells[3], cells[4],
		       cells[5], cells[6], cells[7], cells[8], cells[9],
		       cells[10], cells[11]);
	}
	cJSON_Delete(tap);
	tl->lines++;
	/*
	 * Where a reconnection resumes: after the last tap printed, so that
	 * none is lost and none printed twice.
	 */
	if (cmd_tail_is_id(id))
		snprintf(tl->last_id, sizeof(tl->last_id), "%s", id);
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
	opt_synopsis(f, "tail", cmd_tail_opts, TAIL_N, NULL);
}

static int64_t
cmd_tail_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleeps ms, or less when a stop signal comes. */
static void
cmd_tail_sleep(int64_t ms, const volatile sig_atomic_t *stop)
{
	struct timespec slice = {0, 100 * 1000 * 1000};
	int64_t end = cmd_tail_now_ms() + ms;

	while (!*stop && cmd_tail_now_ms() < end)
		nanosleep(&slice, NULL);
}

/*
 * The delay before the next attempt: the server's retry (or our
 * default), doubled for each attempt that failed since the last stream,
 * within the cap.
 */
static int64_t
cmd_tail_delay(const struct cmd_tail *tl, unsigned failures)
{
	int64_t ms = sse_retry_ms(tl->sse);

	if (ms < 0)
		ms = CMD_TAIL_RETRY_MS;
	while (failures-- > 0 && ms < CMD_TAIL_BACKOFF_MAX_MS)
		ms *= 2;
	return ms < CMD_TAIL_BACKOFF_MAX_MS ? ms : CMD_TAIL_BACKOFF_MAX_MS;
}

/* Says, for the warning line, why the stream is gone. */
static void
cmd_tail_why(const struct http_response *r, int rc, char *buf, size_t size)
{
	if (rc == 0 && r->status >= 200 && r->status < 300)
		snprintf(buf, size, "the server ended the event stream");
	else if (rc == 0)
		snprintf(buf, size, "HTTP %ld", r->status);
	else if (r->status >= 200 && r->status < 300)
		snprintf(buf, size, "the event stream broke: %s", r->error);
	else
		snprintf(buf, size, "no event stream: %s", r->error);
}

int
cmd_tail(struct cmd_ctx *ctx, int argc, char **argv)
{
	const volatile sig_atomic_t *stop;
	const char *values[TAIL_N];
	struct http_response r;
	struct cmd_tail tl;
	int64_t retry_for = CMD_TAIL_RETRY_FOR_S, lost_ms = 0, now, delay;
	unsigned failures = 0;
	char header[sizeof("Last-Event-ID: ") + SSE_MAX_ID], why[384];
	int rc, next, streamed, connected = 0;
	long idle;

	memset(&r, 0, sizeof(r));
	if (opt_parse("tail", cmd_tail_opts, TAIL_N, argc, argv, values,
		      &next) < 0 ||
	    opt_end("tail", argc, argv, next) < 0)
		return CMD_EXIT_USAGE;
	if (values[TAIL_RETRY_FOR] != NULL &&
	    arg_int64(values[TAIL_RETRY_FOR], cmd_tail_opts[TAIL_RETRY_FOR].lo,
		      cmd_tail_opts[TAIL_RETRY_FOR].hi, &retry_for) < 0)
		return CMD_EXIT_USAGE;
	memset(&tl, 0, sizeof(tl));
	tl.ctx = ctx;
	if (sse_new(cmd_tail_event, &tl, &tl.sse) < 0) {
		cmd_err("out of memory");
		return CMD_EXIT_LOCAL;
	}
	/*
	 * The server sends keep-alive comments while no tap comes; a stream
	 * silent for several of their periods is a dead one.
	 */
	idle = ctx->timeout_s > 60 ? ctx->timeout_s : 60;
	stop = cmd_catch_signals();
	for (;;) {
		http_response_release(&r);
		sse_restart(tl.sse);
		snprintf(header, sizeof(header), "Last-Event-ID: %s",
			 tl.last_id);
		rc = http_stream_header(ctx->http, "/v1/events",
					tl.last_id[0] ? header : NULL,
					cmd_tail_sink, &tl, 0, stop, idle, &r);
		if (*stop || (rc < 0 && r.fail == HTTP_ABORTED)) {
			if (tl.out_failed)
				rc = cmd_flush(CMD_EXIT_OK);
			else if (tl.bad)
				rc = cmd_shape(ctx,
					       "an event that is not a tap");
			else if (*stop)
				rc = CMD_EXIT_OK;
			else
				rc = cmd_shape(ctx,
					       "an event stream line too long");
			goto out;
		}
		streamed = r.status >= 200 && r.status < 300;
		if (streamed && !cmd_content_type_is(&r, "text/event-stream")) {
			rc = cmd_shape(ctx, "not an event stream");
			goto out;
		}
		/*
		 * Refusals are for good, but a server with too many streams
		 * (503) may have room later.
		 */
		if (rc == 0 && !streamed && r.status != 503) {
			rc = cmd_outcome(ctx, rc, &r);
			goto out;
		}
		now = cmd_tail_now_ms();
		if (streamed) {
			connected = 1;
			failures = 0;
			lost_ms = now;
		} else {
			failures++;
		}
		/* A first connection that fails is a wrong URL, not a restart.
		 */
		if (!connected || retry_for == 0) {
			if (rc == 0 && streamed) {
				cmd_note("the server ended the event stream");
				rc = cmd_flush(CMD_EXIT_OK);
			} else {
				rc = cmd_outcome(ctx, rc, &r);
			}
			goto out;
		}
		if (now - lost_ms >= retry_for * 1000) {
			cmd_err("no event stream for %lld s: giving up",
				(long long)retry_for);
			rc = cmd_outcome(ctx, rc, &r);
			if (rc == CMD_EXIT_OK)
				rc = CMD_EXIT_CONNECT;
			goto out;
		}
		delay = cmd_tail_delay(&tl, failures);
		if (delay > retry_for * 1000 - (now - lost_ms))
			delay = retry_for * 1000 - (now - lost_ms);
		cmd_tail_why(&r, rc, why, sizeof(why));
		if (tl.last_id[0])
			cmd_warn("%s; reconnecting in %.1f s, after "
				 "tap "
				 "%s",
				 why, (double)delay / 1000, tl.last_id);
		else
			cmd_warn("%s; reconnecting in %.1f s", why,
				 (double)delay / 1000);
		fflush(stdout);
		cmd_tail_sleep(delay, stop);
		if (*stop) {
			rc = CMD_EXIT_OK;
			goto out;
		}
	}
out:
	sse_free(tl.sse);
	http_response_release(&r);
	return rc;
}
