/*
 * tapctl: the command-line client of the tapd HTTP API.  A command (a
 * cmd_NAME.c each, in the table below) with its own options, and the
 * global options anywhere before a "--".  Results go to stdout,
 * diagnostics to stderr, and the exit code says what happened (cmd.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adb.h"
#include "arg.h"
#include "cmd.h"
#include "cmd_apps.h"
#include "cmd_devices.h"
#include "cmd_gesture.h"
#include "cmd_health.h"
#include "cmd_percentiles.h"
#include "cmd_session.h"
#include "cmd_tail.h"
#include "cmd_taps.h"
#include "cmd_trace.h"
#include "complete.h"
#include "http.h"
#include "opt.h"
#include "version.h"

#define TAPCTL_DEFAULT_URL	 "http://127.0.0.1:7878"
#define TAPCTL_DEFAULT_TIMEOUT_S 30.0

/* A token is one line; anything longer than this is not one. */
#define TAPCTL_TOKEN_MAX 4096

static int tapctl_help(struct cmd_ctx *ctx, int argc, char **argv);
static void tapctl_help_usage(FILE *f);
static int tapctl_completion(struct cmd_ctx *ctx, int argc, char **argv);
static void tapctl_completion_usage(FILE *f);

/*
 * The commands, in the order of the usage.  A new command is a line here:
 * its name, its function, its usage function (opt_synopsis() over its
 * option table, whose help fields --help shows) and what it does; --help,
 * "tapctl help NAME" and the shell completion come from that.
 */
static const struct cmd_entry tapctl_cmds[] = {
	{"health", cmd_health, cmd_health_usage,
	 "The daemon's state (GET /v1/health): version, mode, counters and "
	 "sources."},
	{"apps", cmd_apps, cmd_apps_usage,
	 "One row per app (GET /v1/apps): gestures, taps, ok and no_response "
	 "taps,\nand p50, p90 and p99 of both latencies in ms."},
	{"percentiles", cmd_percentiles, cmd_percentiles_usage,
	 "Nearest-rank percentiles of one latency in ms (GET "
	 "/v1/percentiles),\nwith --histogram its distribution too (GET "
	 "/v1/histogram)."},
	{"taps", cmd_taps, cmd_taps_usage,
	 "The stored taps, oldest first (GET /v1/taps)."},
	{"tail", cmd_tail, cmd_tail_usage,
	 "Follows the taps as the daemon stores them (GET /v1/events), until "
	 "SIGINT."},
	{"trace", cmd_trace, cmd_trace_usage,
	 "Writes the taps as a Chrome Trace Event Format file (GET "
	 "/v1/trace)."},
	{"session", cmd_session, cmd_session_usage,
	 "Starts, stops or lists named sessions (/v1/sessions); NAME may "
	 "follow\n'--' when it starts with '-'."},
	{"devices", cmd_devices, cmd_devices_usage,
	 "The adb devices, whether a tapd answers on each (through a "
	 "forward of a\nfree local port, removed after), its version and "
	 "model."},
	{"tap", cmd_tap, cmd_tap_usage,
	 "Injects a tap at X Y (display px) through the touch screen and "
	 "waits for\nits result (POST /v1/gestures?wait=1); --repeat N for "
	 "a p50/p90/p99 table."},
	{"press", cmd_press, cmd_press_usage,
	 "Injects a long press at X Y and waits for its result."},
	{"swipe", cmd_swipe, cmd_swipe_usage,
	 "Injects a swipe from X1 Y1 to X2 Y2 and waits for its result."},
	{"run", cmd_run, cmd_run_usage,
	 "Runs a script of gestures and pauses (one JSON object a line) "
	 "inside a\nnamed session and prints the session's summary."},
	{"help", tapctl_help, tapctl_help_usage,
	 "The usage of tapctl, or the --help of COMMAND."},
	{"completion", tapctl_completion, tapctl_completion_usage,
	 "Prints a completion script: source <(tapctl completion bash)."},
};

#define TAPCTL_NCMDS (sizeof(tapctl_cmds) / sizeof(tapctl_cmds[0]))

/* The global options, accepted before and after the command. */
enum {
	GLOBAL_URL,
	GLOBAL_SERIAL,
	GLOBAL_ALL,
	GLOBAL_TOKEN_FILE,
	GLOBAL_JSON,
	GLOBAL_TIMEOUT,
	GLOBAL_HELP,
	GLOBAL_VERSION,
	GLOBAL_N
};

static const struct opt_spec tapctl_globals[GLOBAL_N] = {
	[GLOBAL_URL] =
		{.name = "url",
		 .kind = OPT_STRING,
		 .arg = "URL",
		 .help = "the API (default $TAPD_URL, else " TAPCTL_DEFAULT_URL
			 ")"},
	[GLOBAL_SERIAL] =
		{.name = "serial",
		 .kind = OPT_STRING,
		 .arg = "SERIAL",
		 .help = "the tapd of that adb device, through an adb "
			 "forward of a free local port, removed "
			 "after"},
	[GLOBAL_ALL] = {.name = "all",
			.kind = OPT_FLAG,
			.help = "a read command (health, apps, percentiles, "
				"taps) on every adb device, one table"},
	[GLOBAL_TOKEN_FILE] = {.name = "token-file",
			       .kind = OPT_STRING,
			       .arg = "FILE",
			       .help = "send the bearer token in FILE's first "
				       "line (else $TAPD_TOKEN is the token)"},
	[GLOBAL_JSON] = {.name = "json",
			 .kind = OPT_FLAG,
			 .help = "print the server's JSON instead of tables"},
	[GLOBAL_TIMEOUT] =
		{.name = "timeout",
		 .kind = OPT_STRING,
		 .arg = "S",
		 .help = "seconds to wait for an answer (default 30)"},
	[GLOBAL_HELP] = {.name = "help",
			 .letter = 'h',
			 .kind = OPT_FLAG,
			 .help = "this usage, or the command's"},
	[GLOBAL_VERSION] = {.name = "version",
			    .kind = OPT_FLAG,
			    .help = "print the version and exit"},
};

static const char tapctl_exit_help[] =
	"exit status: 0 ok, 1 local failure (a file, the output), 2 usage, "
	"3 HTTP error,\n4 bad response, 5 cannot connect\n";

/* The entry called name, or NULL. */
static const struct cmd_entry *
tapctl_find(const char *name)
{
	size_t i;

	for (i = 0; i < TAPCTL_NCMDS; i++)
		if (strcmp(tapctl_cmds[i].name, name) == 0)
			return &tapctl_cmds[i];
	return NULL;
}

static void
tapctl_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: tapctl [GLOBAL OPTIONS] COMMAND [OPTIONS]\n"
		   "commands:\n");
	opt_set_mode(OPT_MODE_SYNOPSIS, NULL);
	for (i = 0; i < TAPCTL_NCMDS; i++)
		tapctl_cmds[i].usage(f);
	fputs("global options (before or after the command; '--' ends "
	      "options):\n",
	      f);
	opt_options(f, tapctl_globals, GLOBAL_N);
	fputs("'tapctl COMMAND --help' or 'tapctl help COMMAND' for a "
	      "command's options.\n",
	      f);
	fputs(tapctl_exit_help, f);
	fprintf(f, "version: %s\n", tapd_version);
}

/* The --help of one command: its synopsis, what it does, its options. */
static void
tapctl_command_help(FILE *f, const struct cmd_entry *c)
{
	opt_set_mode(OPT_MODE_HELP, c->summary);
	c->usage(f);
	opt_set_mode(OPT_MODE_SYNOPSIS, NULL);
	fputs("global options: --url URL, --serial SERIAL, --all, "
	      "--token-file FILE,\n--json, --timeout S (tapctl --help)\n",
	      f);
	fputs(tapctl_exit_help, f);
}

static void
tapctl_help_usage(FILE *f)
{
	opt_synopsis(f, "help", NULL, 0, "[COMMAND]");
}

static int
tapctl_help(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *c;
	int next;

	(void)ctx;
	if (opt_parse("help", NULL, 0, argc, argv, NULL, &next) < 0)
		return CMD_EXIT_USAGE;
	if (next == argc) {
		tapctl_usage(stdout);
		return cmd_flush(CMD_EXIT_OK);
	}
	if (next + 1 != argc) {
		cmd_err("help: one COMMAND at most");
		return CMD_EXIT_USAGE;
	}
	if ((c = tapctl_find(argv[next])) == NULL) {
		cmd_err("help: unknown command '%s'", argv[next]);
		return CMD_EXIT_USAGE;
	}
	tapctl_command_help(stdout, c);
	return cmd_flush(CMD_EXIT_OK);
}

static void
tapctl_completion_usage(FILE *f)
{
	opt_synopsis(f, "completion", NULL, 0, "bash | zsh");
}

static int
tapctl_completion(struct cmd_ctx *ctx, int argc, char **argv)
{
	int next;

	(void)ctx;
	if (opt_parse("completion", NULL, 0, argc, argv, NULL, &next) < 0)
		return CMD_EXIT_USAGE;
	if (next + 1 != argc) {
		cmd_err("completion: one shell is needed: bash or zsh");
		return CMD_EXIT_USAGE;
	}
	if (complete_script(stdout, argv[next], tapctl_cmds, TAPCTL_NCMDS,
			    tapctl_globals, GLOBAL_N) < 0) {
		cmd_err("completion: unknown shell '%s' (bash or zsh)",
			argv[next]);
		return CMD_EXIT_USAGE;
	}
	return cmd_flush(CMD_EXIT_OK);
}

/* Whether a token holds a control character, which no header may carry. */
static int
tapctl_token_bad(const char *token)
{
	size_t i;

	for (i = 0; token[i] != '\0'; i++)
		if ((unsigned char)token[i] < 0x20u || token[i] == 0x7f)
			return 1;
	return 0;
}

/*
 * Reads the first line of path into token (TAPCTL_TOKEN_MAX bytes), its
 * line end stripped.  Returns 0, or -1 after saying why.
 */
static int
tapctl_read_token(const char *path, char *token)
{
	ssize_t n;
	size_t len = 0;
	int fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		cmd_err("cannot open token file '%s': %s", path,
			strerror(errno));
		return -1;
	}
	while (len < TAPCTL_TOKEN_MAX - 1) {
		n = read(fd, token + len, TAPCTL_TOKEN_MAX - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cmd_err("cannot read token file '%s': %s", path,
				strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	token[len] = '\0';
	token[strcspn(token, "\r\n")] = '\0';
	if (token[0] == '\0') {
		cmd_err("token file '%s' holds no token", path);
		goto out;
	}
	if (tapctl_token_bad(token)) {
		cmd_err("token file '%s' holds a control character", path);
		goto out;
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

/*
 * The token: from --token-file, else from $TAPD_TOKEN when it is set and
 * not empty, else none (*out NULL).  Returns 0, or -1 after saying why.
 */
static int
tapctl_token(const char *token_file, char *token, const char **out)
{
	const char *env;

	*out = NULL;
	if (token_file != NULL) {
		if (tapctl_read_token(token_file, token) < 0)
			return -1;
		*out = token;
		return 0;
	}
	env = getenv("TAPD_TOKEN");
	if (env == NULL || *env == '\0')
		return 0;
	if (strlen(env) >= TAPCTL_TOKEN_MAX || tapctl_token_bad(env)) {
		cmd_err("TAPD_TOKEN is not a token: longer than %d bytes or "
			"with a control character",
			TAPCTL_TOKEN_MAX - 1);
		return -1;
	}
	*out = env;
	return 0;
}

/* A usage error of the command line: the line after the message. */
static int
tapctl_usage_error(const char *cmd)
{
	if (cmd != NULL)
		fprintf(stderr, "try 'tapctl %s --help'\n", cmd);
	else
		fputs("try 'tapctl --help'\n", stderr);
	return CMD_EXIT_USAGE;
}

/*
 * The global option that arg is ("--json", "--url", "--url=VALUE", "-h"),
 * its index, or -1.  *inline_value is the part after '=' or NULL.
 */
static int
tapctl_global(const char *arg, const char **inline_value)
{
	const char *eq;
	size_t i, len;

	*inline_value = NULL;
	if (arg[0] != '-')
		return -1;
	if (arg[1] != '-') {
		for (i = 0; i < GLOBAL_N; i++)
			if (tapctl_globals[i].letter != 0 &&
			    arg[1] == tapctl_globals[i].letter && arg[2] == 0)
				return (int)i;
		return -1;
	}
	eq = strchr(arg, '=');
	len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	for (i = 0; i < GLOBAL_N; i++) {
		if (strlen(tapctl_globals[i].name) != len ||
		    strncmp(arg + 2, tapctl_globals[i].name, len) != 0)
			continue;
		if (eq != NULL && tapctl_globals[i].kind == OPT_FLAG)
			return -1;
		*inline_value = eq ? eq + 1 : NULL;
		return (int)i;
	}
	return -1;
}

int
main(int argc, char **argv)
{
	static char token_buf[TAPCTL_TOKEN_MAX];
	const char *globals[GLOBAL_N], *value, *url, *env, *token;
	const struct cmd_entry *cmd = NULL;
	double timeout_s = TAPCTL_DEFAULT_TIMEOUT_S;
	struct cmd_devices_globals dglobals = {NULL, NULL};
	struct cmd_ctx ctx;
	char fwd_url[64];
	char **cargv;
	int cargc = 0, i, g, rc, ended = 0, fwd_port = 0;

	memset(&ctx, 0, sizeof(ctx));
	memset(globals, 0, sizeof(globals));
	/* The command's own words: its name first, the globals taken out. */
	if ((cargv = calloc((size_t)argc + 1, sizeof(*cargv))) == NULL) {
		cmd_err("out of memory");
		return CMD_EXIT_LOCAL;
	}
	for (i = 1; i < argc; i++) {
		if (ended) {
			cargv[cargc++] = argv[i];
			continue;
		}
		if (strcmp(argv[i], "--") == 0) {
			/* The command sees the "--" too, to end its own. */
			ended = 1;
			if (cmd != NULL)
				cargv[cargc++] = argv[i];
			else if (i + 1 < argc &&
				 (cmd = tapctl_find(argv[i + 1])) != NULL)
				cargv[cargc++] = argv[++i];
			continue;
		}
		if ((g = tapctl_global(argv[i], &value)) >= 0) {
			if (tapctl_globals[g].kind == OPT_FLAG) {
				globals[g] = tapctl_globals[g].name;
				continue;
			}
			if (value == NULL) {
				if (i + 1 >= argc ||
				    opt_is_option(argv[i + 1])) {
					cmd_err("option '%s' needs a value",
						argv[i]);
					rc = tapctl_usage_error(cmd ? cmd->name
								    : NULL);
					goto out;
				}
				value = argv[++i];
			}
			globals[g] = value;
			continue;
		}
		if (cmd != NULL) {
			cargv[cargc++] = argv[i];
			continue;
		}
		if (opt_is_option(argv[i])) {
			cmd_err("unknown option '%s'", argv[i]);
			rc = tapctl_usage_error(NULL);
			goto out;
		}
		if ((cmd = tapctl_find(argv[i])) == NULL) {
			cmd_err("unknown command '%s'", argv[i]);
			rc = tapctl_usage_error(NULL);
			goto out;
		}
		cargv[cargc++] = argv[i];
	}
	if (globals[GLOBAL_HELP] != NULL) {
		if (cmd != NULL)
			tapctl_command_help(stdout, cmd);
		else
			tapctl_usage(stdout);
		rc = cmd_flush(CMD_EXIT_OK);
		goto out;
	}
	if (globals[GLOBAL_VERSION] != NULL) {
		printf("tapctl %s\n", tapd_version);
		rc = cmd_flush(CMD_EXIT_OK);
		goto out;
	}
	if (cmd == NULL) {
		cmd_err("no command given");
		rc = tapctl_usage_error(NULL);
		goto out;
	}
	if (globals[GLOBAL_TIMEOUT] != NULL &&
	    arg_double(globals[GLOBAL_TIMEOUT], 0.001, 86400, &timeout_s) < 0) {
		cmd_err("--timeout must be seconds in 0.001..86400: '%s'",
			globals[GLOBAL_TIMEOUT]);
		rc = tapctl_usage_error(NULL);
		goto out;
	}
	ctx.json = globals[GLOBAL_JSON] != NULL;
	url = globals[GLOBAL_URL];
	if ((url != NULL) + (globals[GLOBAL_SERIAL] != NULL) +
		    (globals[GLOBAL_ALL] != NULL) >
	    1) {
		cmd_err("--url, --serial and --all do not go together");
		rc = tapctl_usage_error(NULL);
		goto out;
	}
	if (globals[GLOBAL_ALL] != NULL) {
		if (ctx.json) {
			cmd_err("--all prints tables, not --json");
			rc = tapctl_usage_error(NULL);
			goto out;
		}
		dglobals.token_file = globals[GLOBAL_TOKEN_FILE];
		dglobals.timeout = globals[GLOBAL_TIMEOUT];
		rc = cmd_devices_all(&dglobals, cargc, cargv);
		goto out;
	}
	if (globals[GLOBAL_SERIAL] != NULL) {
		if (adb_forward(globals[GLOBAL_SERIAL], ADB_TAPD_PORT,
				&fwd_port) < 0) {
			rc = CMD_EXIT_CONNECT;
			goto out;
		}
		snprintf(fwd_url, sizeof(fwd_url), "http://127.0.0.1:%d",
			 fwd_port);
		url = fwd_url;
	}
	if (url == NULL && (env = getenv("TAPD_URL")) != NULL && *env != '\0')
		url = env;
	if (url == NULL)
		url = TAPCTL_DEFAULT_URL;
	if (tapctl_token(globals[GLOBAL_TOKEN_FILE], token_buf, &token) < 0) {
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	ctx.timeout_s = (long)ceil(timeout_s);
	rc = http_new(url, token, (long)ceil(timeout_s * 1000), &ctx.http);
	memset(token_buf, 0, sizeof(token_buf));
	if (rc == -EINVAL) {
		cmd_err("bad URL '%s': it must be http://HOST:PORT or "
			"https://HOST:PORT",
			url);
		rc = tapctl_usage_error(NULL);
		goto out;
	}
	if (rc < 0) {
		cmd_err("cannot set up the HTTP client: %s", strerror(-rc));
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	/* A closed pipe on stdout is a write error to report, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	rc = cmd->fn(&ctx, cargc, cargv);
	http_free(ctx.http);
	if (rc == CMD_EXIT_USAGE)
		tapctl_usage_error(cmd->name);
out:
	/* The forward goes whatever the command did. */
	if (fwd_port > 0 &&
	    adb_forward_remove(globals[GLOBAL_SERIAL], fwd_port) < 0 &&
	    rc == CMD_EXIT_OK)
		rc = CMD_EXIT_CONNECT;
	free(cargv);
	return rc;
}
