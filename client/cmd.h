/*
 * What the commands of tapctl share (each command is a cmd_NAME.c of its
 * own): the context they run in, their exit codes, and the steps of
 * talking to the API and printing its answer.  A command takes its own
 * arguments (argv[0] is the command's name), talks to the API through the
 * client in ctx, prints results on stdout and diagnostics on stderr, and
 * returns the exit code of tapctl (CMD_EXIT_*).
 */
#ifndef TAPCTL_CMD_H
#define TAPCTL_CMD_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "http.h"
#include "opt.h"

/*
 * The exit codes of tapctl (tapctl.1, README.md).  A command that returns
 * CMD_EXIT_USAGE has said what is wrong in one line; tapctl.c adds the
 * "try 'tapctl CMD --help'" line after it.
 */
#define CMD_EXIT_OK	  0 /* done */
#define CMD_EXIT_LOCAL	  1 /* a local file, the output or memory failed */
#define CMD_EXIT_USAGE	  2 /* bad usage: command, option or argument */
#define CMD_EXIT_HTTP	  3 /* the server answered with an HTTP error */
#define CMD_EXIT_RESPONSE 4 /* the answer is not what the API promises */
#define CMD_EXIT_CONNECT  5 /* no connection, or no answer in time */

struct cmd_ctx {
	struct http *http;
	int json;	/* --json: print the server's JSON as it is */
	long timeout_s; /* --timeout, for messages and idle limits */
};

/* A command, as tapctl.c's table names it. */
typedef int (*cmd_fn)(struct cmd_ctx *ctx, int argc, char **argv);

/*
 * An entry of tapctl.c's table of commands: all tapctl needs to run a
 * command, list it in the usage, print its --help (and "tapctl help
 * NAME") and complete it in a shell.  usage prints the command's synopsis
 * through opt_synopsis(), whose mode (opt.h) makes the same call give the
 * synopsis line, the --help text with a line per option, or the words a
 * shell completes.  summary says what the command does, in a line or two
 * (NULL: none).
 */
struct cmd_entry {
	const char *name;
	cmd_fn fn;
	void (*usage)(FILE *f);
	const char *summary;
};

/*
 * Print "tapctl: error: " (what ends the command), "tapctl: warning: "
 * (what it survives) or "tapctl: " (a note) and the message, with a
 * newline, on stderr.
 */
void cmd_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Lets SIGINT and SIGTERM end a long transfer cleanly: the handler only
 * sets the flag returned, which the transfer checks at least once a
 * second.
 */
const volatile sig_atomic_t *cmd_catch_signals(void);

/*
 * Turns a failed transfer (rc < 0) or an HTTP status into an exit code,
 * printing why (with the server's message for an HTTP error);
 * CMD_EXIT_OK for a 2xx answer.
 */
int cmd_outcome(struct cmd_ctx *ctx, int rc, const struct http_response *r);

/* Whether the answer's media type is type, parameters aside. */
int cmd_content_type_is(const struct http_response *r, const char *type);

/*
 * GETs or POSTs path (body as JSON, or NULL) and parses the answer as
 * JSON into *out (a new tree: cJSON_Delete() it; NULL on failure).
 * Returns an exit code, after saying what failed; on CMD_EXIT_OK, *r
 * holds the raw body too.  Release *r with http_response_release()
 * whatever the outcome.
 */
int cmd_call_json(struct cmd_ctx *ctx, const char *method, const char *path,
		  const char *body, struct http_response *r, cJSON **out);

/* Reports an answer of the wrong shape; returns CMD_EXIT_RESPONSE. */
int cmd_shape(struct cmd_ctx *ctx, const char *what);

/*
 * Ends the output: flushes stdout and reports a failure to write it.
 * Returns code, or CMD_EXIT_LOCAL when writing failed (a reader that went
 * away is no failure).
 */
int cmd_flush(int code);

/* Prints a body as it came, with a final newline; returns cmd_flush(). */
int cmd_print_raw(const struct http_response *r);

/*
 * The member of root that is an array called name, or root itself when
 * it is an array; NULL when there is neither.
 */
const cJSON *cmd_list(const cJSON *root, const char *name);

/*
 * Builds the path base?param=value&... from the first n specs that name
 * a query parameter and whose value (values[i], from opt_parse()) is set,
 * in the order of the table.  Returns 0 and sets *out (free() it), or
 * -ENOMEM.
 */
int cmd_query(struct cmd_ctx *ctx, const char *base,
	      const struct opt_spec *specs, const char *const *values, size_t n,
	      char **out);

#endif
