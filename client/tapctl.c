/*
 * tapctl: the command-line client of the tapd HTTP API.  Global options,
 * then a command and its own options (a cmd_NAME.c each, in the table
 * below).  Results go to stdout, diagnostics to stderr, and the exit code
 * says what happened (cmd.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arg.h"
#include "cmd.h"
#include "cmd_apps.h"
#include "cmd_gesture.h"
#include "cmd_health.h"
#include "cmd_percentiles.h"
#include "cmd_session.h"
#include "cmd_tail.h"
#include "cmd_taps.h"
#include "cmd_trace.h"
#include "http.h"

#ifndef TAPD_VERSION
#define TAPD_VERSION "unknown"
#endif

#define TAPCTL_DEFAULT_URL	 "http://127.0.0.1:7878"
#define TAPCTL_DEFAULT_TIMEOUT_S 30.0

/* A token is one line; anything longer than this is not one. */
#define TAPCTL_TOKEN_MAX 4096

/* The commands, in the order of the usage. */
static const struct {
	const char *name;
	cmd_fn fn;
	void (*usage)(FILE *f); /* prints the command's synopsis line */
} tapctl_cmds[] = {
	{"health", cmd_health, cmd_health_usage},
	{"apps", cmd_apps, cmd_apps_usage},
	{"percentiles", cmd_percentiles, cmd_percentiles_usage},
	{"taps", cmd_taps, cmd_taps_usage},
	{"tail", cmd_tail, cmd_tail_usage},
	{"trace", cmd_trace, cmd_trace_usage},
	{"session", cmd_session, cmd_session_usage},
	{"tap", cmd_tap, cmd_tap_usage},
	{"press", cmd_press, cmd_press_usage},
	{"swipe", cmd_swipe, cmd_swipe_usage},
	{"run", cmd_run, cmd_run_usage},
};

#define TAPCTL_NCMDS (sizeof(tapctl_cmds) / sizeof(tapctl_cmds[0]))

/* The command called name, or NULL. */
static cmd_fn
tapctl_find(const char *name)
{
	size_t i;

	for (i = 0; i < TAPCTL_NCMDS; i++)
		if (strcmp(tapctl_cmds[i].name, name) == 0)
			return tapctl_cmds[i].fn;
	return NULL;
}

static void
tapctl_usage(FILE *f)
{
	size_t i;

	fputs("usage: tapctl [--url URL] [--token-file FILE] [--json] "
	      "[--timeout S] COMMAND\n"
	      "commands:\n",
	      f);
	for (i = 0; i < TAPCTL_NCMDS; i++)
		tapctl_cmds[i].usage(f);
	fputs("options:\n"
	      "  --url URL          the API (default $TAPD_URL, "
	      "else " TAPCTL_DEFAULT_URL ")\n"
	      "  --token-file FILE  send the bearer token in FILE's first "
	      "line\n"
	      "  --json             print the server's JSON instead of tables\n"
	      "  --timeout S        seconds to wait for an answer (default "
	      "30)\n"
	      "exit status: 0 ok, 1 usage, 2 cannot connect, 3 HTTP error, "
	      "4 bad response\n",
	      f);
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
		fprintf(stderr, "tapctl: cannot open token file '%s': %s\n",
			path, strerror(errno));
		return -1;
	}
	while (len < TAPCTL_TOKEN_MAX - 1) {
		n = read(fd, token + len, TAPCTL_TOKEN_MAX - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr,
				"tapctl: cannot read token file '%s': %s\n",
				path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	token[len] = '\0';
	token[strcspn(token, "\r\n")] = '\0';
	if (token[0] == '\0') {
		fprintf(stderr, "tapctl: token file '%s' holds no token\n",
			path);
		goto out;
	}
	for (n = 0; token[n] != '\0'; n++)
		if ((unsigned char)token[n] < 0x20u || token[n] == 0x7f) {
			fprintf(stderr,
				"tapctl: token file '%s' holds a control "
				"character\n",
				path);
			goto out;
		}
	rc = 0;
out:
	close(fd);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option longs[] = {
		{"url", required_argument, NULL, 'u'},
		{"token-file", required_argument, NULL, 't'},
		{"json", no_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	static char token[TAPCTL_TOKEN_MAX];
	const char *url = NULL, *token_file = NULL, *env;
	double timeout_s = TAPCTL_DEFAULT_TIMEOUT_S;
	struct cmd_ctx ctx;
	cmd_fn fn;
	int c, rc;

	memset(&ctx, 0, sizeof(ctx));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", longs, NULL)) != -1) {
		switch (c) {
		case 'u':
			url = optarg;
			break;
		case 't':
			token_file = optarg;
			break;
		case 'j':
			ctx.json = 1;
			break;
		case 'T':
			if (arg_double(optarg, 0.001, 86400, &timeout_s) < 0) {
				fprintf(stderr,
					"tapctl: --timeout must be seconds in "
					"0.001..86400: '%s'\n",
					optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'h':
			tapctl_usage(stdout);
			return CMD_EXIT_OK;
		case 'V':
			printf("tapctl %s\n", TAPD_VERSION);
			return CMD_EXIT_OK;
		case ':':
			fprintf(stderr, "tapctl: option '%s' needs a value\n",
				argv[optind - 1]);
			return CMD_EXIT_USAGE;
		default:
			fprintf(stderr, "tapctl: unknown option '%s'\n",
				argv[optind - 1]);
			tapctl_usage(stderr);
			return CMD_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		tapctl_usage(stderr);
		return CMD_EXIT_USAGE;
	}
	if (strcmp(argv[optind], "help") == 0) {
		tapctl_usage(stdout);
		return CMD_EXIT_OK;
	}
	if ((fn = tapctl_find(argv[optind])) == NULL) {
		fprintf(stderr, "tapctl: unknown command '%s'\n", argv[optind]);
		tapctl_usage(stderr);
		return CMD_EXIT_USAGE;
	}
	if (url == NULL && (env = getenv("TAPD_URL")) != NULL && *env != '\0')
		url = env;
	if (url == NULL)
		url = TAPCTL_DEFAULT_URL;
	if (token_file != NULL && tapctl_read_token(token_file, token) < 0)
		return CMD_EXIT_USAGE;
	ctx.timeout_s = (long)ceil(timeout_s);
	rc = http_new(url, token_file ? token : NULL,
		      (long)ceil(timeout_s * 1000), &ctx.http);
	memset(token, 0, sizeof(token));
	if (rc == -EINVAL) {
		fprintf(stderr,
			"tapctl: bad URL '%s': it must be http://HOST:PORT or "
			"https://HOST:PORT\n",
			url);
		return CMD_EXIT_USAGE;
	}
	if (rc < 0) {
		fprintf(stderr, "tapctl: cannot set up the HTTP client: %s\n",
			strerror(-rc));
		return CMD_EXIT_USAGE;
	}
	/* A closed pipe on stdout is a write error to report, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	rc = fn(&ctx, argc - optind, argv + optind);
	http_free(ctx.http);
	return rc;
}
