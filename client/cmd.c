#include "cmd.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http.h"
#include "table.h"

/* Set by SIGINT and SIGTERM while tail or trace runs. */
static volatile sig_atomic_t cmd_stop;

static void cmd_vsay(const char *label, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void
cmd_vsay(const char *label, const char *fmt, va_list ap)
{
	fprintf(stderr, "tapctl: %s", label);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
cmd_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cmd_vsay("error: ", fmt, ap);
	va_end(ap);
}

void
cmd_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cmd_vsay("warning: ", fmt, ap);
	va_end(ap);
}

void
cmd_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cmd_vsay("", fmt, ap);
	va_end(ap);
}

static void
cmd_on_signal(int sig)
{
	(void)sig;
	cmd_stop = 1;
}

const volatile sig_atomic_t *
cmd_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cmd_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return &cmd_stop;
}

/* ---- Talking to the server ---- */

/*
 * Turns a failed transfer or an HTTP status into an exit code, printing
 * why; CMD_EXIT_OK for a 2xx answer.
 */
int
cmd_outcome(struct cmd_ctx *ctx, int rc, const struct http_response *r)
{
	const cJSON *err, *msg, *code;
	cJSON *body = NULL;
	char text[512], name[64];
	int exit_code;

	if (rc < 0) {
		switch (r->fail) {
		case HTTP_CONNECT:
			cmd_err("cannot connect to '%s': %s",
				http_url(ctx->http), r->error);
			return CMD_EXIT_CONNECT;
		case HTTP_TIMEOUT:
			cmd_err("no answer from '%s' within %ld s: %s",
				http_url(ctx->http), ctx->timeout_s, r->error);
			return CMD_EXIT_CONNECT;
		default:
			cmd_err("bad response from '%s': %s",
				http_url(ctx->http), r->error);
			return CMD_EXIT_RESPONSE;
		}
	}
	if (r->status >= 200 && r->status < 300)
		return CMD_EXIT_OK;
	if (r->status < 400) {
		cmd_err("unexpected HTTP status %ld from '%s'", r->status,
			http_url(ctx->http));
		return CMD_EXIT_RESPONSE;
	}
	exit_code = CMD_EXIT_HTTP;
	if (r->body != NULL)
		body = cJSON_ParseWithLength(r->body, r->len);
	err = cJSON_GetObjectItemCaseSensitive(body, "error");
	msg = cJSON_GetObjectItemCaseSensitive(err, "message");
	code = cJSON_GetObjectItemCaseSensitive(err, "code");
	if (cJSON_IsString(msg)) {
		/* The server's words, without its control characters. */
		table_clean(msg->valuestring, text, sizeof(text));
		table_clean(cJSON_IsString(code) ? code->valuestring : "error",
			    name, sizeof(name));
		cmd_err("HTTP %ld (%s): %s", r->status, name, text);
	} else {
		cmd_err("HTTP %ld from '%s'", r->status, http_url(ctx->http));
	}
	cJSON_Delete(body);
	return exit_code;
}

int
cmd_content_type_is(const struct http_response *r, const char *type)
{
	size_t n = strlen(type);

	return strncasecmp(r->content_type, type, n) == 0 &&
	       (r->content_type[n] == '\0' || r->content_type[n] == ';' ||
		r->content_type[n] == ' ');
}

/*
 * GETs or POSTs path and parses the answer as JSON into *out (a new tree:
 * cJSON_Delete() it).  Returns an exit code; on CMD_EXIT_OK, *r holds the
 * raw body too.
 */
int
cmd_call_json(struct cmd_ctx *ctx, const char *method, const char *path,
	      const char *body, struct http_response *r, cJSON **out)
{
	const char *end = NULL;
	int rc;

	*out = NULL;
	rc = http_request(ctx->http, method, path, body, r);
	if ((rc = cmd_outcome(ctx, rc, r)) != CMD_EXIT_OK)
		return rc;
	*out = cJSON_ParseWithLengthOpts(r->body, r->len, &end, 0);
	if (*out == NULL) {
		cmd_err("bad response from '%s': not JSON (at byte %zu)",
			http_url(ctx->http),
			end ? (size_t)(end - r->body) : (size_t)0);
		return CMD_EXIT_RESPONSE;
	}
	/* Trailing blanks are fine, trailing junk is not. */
	for (; end != NULL && (size_t)(end - r->body) < r->len; end++)
		if (*end != ' ' && *end != '\n' && *end != '\r' &&
		    *end != '\t') {
			cmd_err("bad response from '%s': junk after the JSON",
				http_url(ctx->http));
			cJSON_Delete(*out);
			*out = NULL;
			return CMD_EXIT_RESPONSE;
		}
	return CMD_EXIT_OK;
}

int
cmd_shape(struct cmd_ctx *ctx, const char *what)
{
	cmd_err("bad response from '%s': %s", http_url(ctx->http), what);
	return CMD_EXIT_RESPONSE;
}

/* Ends the output: flushes stdout and reports a failure to write it. */
int
cmd_flush(int code)
{
	struct pollfd p;
	int err;

	if (fflush(stdout) == 0 && !ferror(stdout))
		return code;
	err = errno;
	/*
	 * A reader that stopped reading (head, less) is no error.  errno may
	 * be another call's by now: the pipe itself says it lost its reader.
	 */
	p.fd = STDOUT_FILENO;
	p.events = POLLOUT;
	p.revents = 0;
	if ((code == CMD_EXIT_OK || code == CMD_EXIT_LOCAL) &&
	    (err == EPIPE || (poll(&p, 1, 0) == 1 && (p.revents & POLLERR))))
		return CMD_EXIT_OK;
	if (err != 0)
		cmd_err("cannot write the output: %s", strerror(err));
	else
		cmd_err("cannot write the output");
	return code == CMD_EXIT_OK ? CMD_EXIT_LOCAL : code;
}

/* Prints a body as it came, with a final newline. */
int
cmd_print_raw(const struct http_response *r)
{
	if (r->len > 0)
		fwrite(r->body, 1, r->len, stdout);
	if (r->len == 0 || r->body[r->len - 1] != '\n')
		fputc('\n', stdout);
	return cmd_flush(CMD_EXIT_OK);
}

/*
 * The first member of obj that is an array of the given name, or obj itself
 * when it is an array.
 */
const cJSON *
cmd_list(const cJSON *root, const char *name)
{
	const cJSON *a;

	if (cJSON_IsArray(root))
		return root;
	a = cJSON_GetObjectItemCaseSensitive(root, name);
	return cJSON_IsArray(a) ? a : NULL;
}

int
cmd_query(struct cmd_ctx *ctx, const char *base, const struct opt_spec *specs,
	  const char *const *values, size_t n, char **out)
{
	char *q = NULL, *s;
	size_t i, len;

	*out = NULL;
	for (i = 0; i < n; i++) {
		if (specs[i].param == NULL)
			continue;
		if (http_query_add(ctx->http, &q, specs[i].param, values[i]) <
		    0) {
			cmd_err("out of memory");
			return -ENOMEM;
		}
	}
	len = strlen(base) + (q ? strlen(q) : 0) + 1;
	if ((s = malloc(len)) == NULL ||
	    snprintf(s, len, "%s%s", base, q ? q : "") != (int)len - 1) {
		free(s);
		free(q);
		return -ENOMEM;
	}
	free(q);
	*out = s;
	return 0;
}
