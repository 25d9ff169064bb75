#include "cmd_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "http.h"
#include "opt.h"

enum {
	TRACE_OUTPUT,
	TRACE_SINCE,
	TRACE_UNTIL,
	TRACE_APP,
	TRACE_SESSION,
	TRACE_N
};

static const struct opt_spec cmd_trace_opts[TRACE_N] = {
	/* Not a filter: where the trace goes, checked by cmd_trace(). */
	[TRACE_OUTPUT] = {.name = "output",
			  .letter = 'o',
			  .kind = OPT_STRING,
			  .arg = "FILE",
			  .required = 1,
			  .help = "the file to write ('-': standard output)"},
	[TRACE_SINCE] = {.name = "since",
			 .kind = OPT_STRING,
			 .param = "since",
			 .arg = "S",
			 .help = "taps from time S on (RFC 3339, Unix seconds, "
				 "90s, 2h, 7d)"},
	[TRACE_UNTIL] = {.name = "until",
			 .kind = OPT_STRING,
			 .param = "until",
			 .arg = "S",
			 .help = "taps up to time S"},
	[TRACE_APP] =
		{.name = "app",
		 .kind = OPT_STRING,
		 .param = "app",
		 .arg = "A",
		 .help = "only app A's taps ('unknown': of no known app)"},
	[TRACE_SESSION] = {.name = "session",
			   .kind = OPT_INT,
			   .param = "session",
			   .lo = 1,
			   .hi = INT64_MAX,
			   .arg = "ID",
			   .help = "only the taps of session ID"},
};

struct cmd_trace {
	FILE *f;
	int started;   /* a non-blank byte came */
	int bad_start; /* and it did not open an object or array */
	int failed;    /* writing failed, with errno err */
	int err;
	char last; /* the last non-blank byte */
};

static int
cmd_trace_sink(void *arg, const char *data, size_t len)
{
	struct cmd_trace *tr = arg;
	size_t i;

	for (i = 0; i < len; i++) {
		if (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' ||
		    data[i] == '\t')
			continue;
		if (!tr->started) {
			tr->started = 1;
			if (data[i] != '{' && data[i] != '[') {
				tr->bad_start = 1;
				return -1;
			}
		}
		tr->last = data[i];
	}
	if (fwrite(data, 1, len, tr->f) != len) {
		tr->failed = 1;
		tr->err = errno;
		return -1;
	}
	return 0;
}

void
cmd_trace_usage(FILE *f)
{
	opt_synopsis(f, "trace", cmd_trace_opts, TRACE_N, NULL);
}

int
cmd_trace(struct cmd_ctx *ctx, int argc, char **argv)
{
	const volatile sig_atomic_t *stop;
	const char *values[TRACE_N], *file;
	struct http_response r;
	struct cmd_trace tr;
	char *path = NULL, *tmp = NULL;
	mode_t mask;
	size_t n;
	int c, rc, next, fd = -1;

	memset(&r, 0, sizeof(r));
	memset(&tr, 0, sizeof(tr));
	if (opt_parse("trace", cmd_trace_opts, TRACE_N, argc, argv, values,
		      &next) < 0 ||
	    opt_end("trace", argc, argv, next) < 0)
		return CMD_EXIT_USAGE;
	file = values[TRACE_OUTPUT];
	if (file == NULL || *file == '\0') {
		cmd_err("trace: -o FILE is required ('-' for stdout)");
		return CMD_EXIT_USAGE;
	}
	rc = CMD_EXIT_LOCAL;
	if (cmd_query(ctx, "/v1/trace", cmd_trace_opts, values, TRACE_N,
		      &path) < 0)
		goto out;
	if (strcmp(file, "-") == 0) {
		tr.f = stdout;
	} else {
		/*
		 * Into a temporary file beside the target, renamed at the
		 * end: a failed export never leaves half a trace behind
		 * under the name asked for.
		 */
		n = strlen(file) + sizeof(".XXXXXX");
		if ((tmp = malloc(n)) == NULL)
			goto out;
		if (snprintf(tmp, n, "%s.XXXXXX", file) != (int)n - 1) {
			free(tmp);
			tmp = NULL;
			goto out;
		}
		/*
		 * mkstemp() makes it 0600; the trace gets the mode any new
		 * file of the user gets, 0666 less the umask.
		 */
		mask = umask(0);
		umask(mask);
		if ((fd = mkstemp(tmp)) < 0 || fchmod(fd, 0666 & ~mask) < 0 ||
		    (tr.f = fdopen(fd, "w")) == NULL) {
			cmd_err("cannot create '%s': %s", tmp, strerror(errno));
			/* A file made is removed at the end, not left. */
			if (fd < 0) {
				free(tmp);
				tmp = NULL;
			}
			goto out;
		}
		fd = -1;
	}
	stop = cmd_catch_signals();
	rc = http_stream(ctx->http, path, cmd_trace_sink, &tr, HTTP_MAX_FILE,
			 stop, ctx->timeout_s, &r);
	if (rc < 0 && r.fail == HTTP_ABORTED && tr.failed) {
		cmd_err("cannot write '%s': %s", file, strerror(tr.err));
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	if (rc < 0 && r.fail == HTTP_ABORTED && tr.bad_start) {
		rc = cmd_shape(ctx, "the trace is not JSON");
		goto out;
	}
	if (rc < 0 && r.fail == HTTP_ABORTED) {
		cmd_err("interrupted");
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	if ((rc = cmd_outcome(ctx, rc, &r)) != CMD_EXIT_OK)
		goto out;
	if (!cmd_content_type_is(&r, "application/json") ||
	    (tr.last != '}' && tr.last != ']')) {
		rc = cmd_shape(ctx, "the trace is not JSON");
		goto out;
	}
	if (tr.f == stdout) {
		rc = cmd_flush(CMD_EXIT_OK);
		goto out;
	}
	c = fclose(tr.f);
	tr.f = NULL;
	if (c != 0) {
		cmd_err("cannot write '%s': %s", file, strerror(errno));
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	if (rename(tmp, file) < 0) {
		cmd_err("cannot rename '%s' to '%s': %s", tmp, file,
			strerror(errno));
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	free(tmp);
	tmp = NULL;
	printf("wrote %" PRIu64 " bytes to %s\n", r.streamed, file);
	rc = cmd_flush(CMD_EXIT_OK);
out:
	if (tr.f != NULL && tr.f != stdout)
		fclose(tr.f);
	if (fd >= 0)
		close(fd);
	if (tmp != NULL) {
		unlink(tmp);
		free(tmp);
	}
	http_response_release(&r);
	free(path);
	return rc;
}
