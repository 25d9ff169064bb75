#include "cmd.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arg.h"
#include "http.h"
#include "sse.h"
#include "table.h"
#include "view.h"

/* At most this many --p values, as the server takes. */
#define CMD_MAX_P 32

/* Bars of the --histogram view, in characters. */
#define CMD_BAR_WIDTH 40

/* Set by SIGINT and SIGTERM while tail or trace runs. */
static volatile sig_atomic_t cmd_stop;

static void cmd_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
cmd_err(const char *fmt, ...)
{
	va_list ap;

	fputs("tapctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
cmd_on_signal(int sig)
{
	(void)sig;
	cmd_stop = 1;
}

/*
 * Lets SIGINT and SIGTERM end a long transfer cleanly: the handler only
 * sets a flag, which the transfer checks at least once a second.
 */
static void
cmd_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cmd_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* ---- Options ---- */

/*
 * Parses the options of a command with getopt_long.  Returns the option,
 * -1 at the end, or '?' after printing what is wrong (an unknown option or
 * a missing value).
 */
static int
cmd_opt(const char *cmd, int argc, char **argv, const struct option *longs)
{
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, "+:", longs, NULL);
	if (c == '?') {
		cmd_err("%s: unknown option '%s'", cmd, argv[optind - 1]);
	} else if (c == ':') {
		cmd_err("%s: option '%s' needs a value", cmd, argv[optind - 1]);
		c = '?';
	}
	return c;
}

static void
cmd_opt_reset(void)
{
	/* GNU getopt starts over (and rereads its settings) at 0. */
	optind = 0;
}

static int
cmd_no_args(const char *cmd, int argc, char **argv)
{
	if (optind < argc) {
		cmd_err("%s: unexpected argument '%s'", cmd, argv[optind]);
		return -1;
	}
	return 0;
}

static int
cmd_check_int(const char *cmd, const char *opt, const char *value, int64_t lo,
	      int64_t hi)
{
	int64_t v;

	if (arg_int64(value, lo, hi, &v) < 0) {
		cmd_err("%s: %s must be an integer in %" PRId64 "..%" PRId64
			": '%s'",
			cmd, opt, lo, hi, value);
		return -1;
	}
	return 0;
}

/* ---- Talking to the server ---- */

/*
 * Turns a failed transfer or an HTTP status into an exit code, printing
 * why; CMD_EXIT_OK for a 2xx answer.
 */
static int
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

static int
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
static int
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

static int
cmd_shape(struct cmd_ctx *ctx, const char *what)
{
	cmd_err("bad response from '%s': %s", http_url(ctx->http), what);
	return CMD_EXIT_RESPONSE;
}

/* Ends the output: flushes stdout and reports a failure to write it. */
static int
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
	if ((code == CMD_EXIT_OK || code == CMD_EXIT_USAGE) &&
	    (err == EPIPE || (poll(&p, 1, 0) == 1 && (p.revents & POLLERR))))
		return CMD_EXIT_OK;
	if (err != 0)
		cmd_err("cannot write the output: %s", strerror(err));
	else
		cmd_err("cannot write the output");
	return code == CMD_EXIT_OK ? CMD_EXIT_USAGE : code;
}

/* Prints a body as it came, with a final newline. */
static int
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
static const cJSON *
cmd_list(const cJSON *root, const char *name)
{
	const cJSON *a;

	if (cJSON_IsArray(root))
		return root;
	a = cJSON_GetObjectItemCaseSensitive(root, name);
	return cJSON_IsArray(a) ? a : NULL;
}

static int
cmd_add_params(struct cmd_ctx *ctx, char **q, const char *const *names,
	       const char *const *values, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (http_query_add(ctx->http, q, names[i], values[i]) < 0) {
			cmd_err("out of memory");
			return -1;
		}
	return 0;
}

static char *
cmd_path(const char *base, const char *query)
{
	size_t n = strlen(base) + (query ? strlen(query) : 0) + 1;
	char *s;

	if ((s = malloc(n)) == NULL)
		return NULL;
	if (snprintf(s, n, "%s%s", base, query ? query : "") != (int)n - 1) {
		free(s);
		return NULL;
	}
	return s;
}

/* ---- health ---- */

static int
cmd_health(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option longs[] = {{NULL, 0, NULL, 0}};
	struct http_response r;
	cJSON *root = NULL;
	int rc;

	cmd_opt_reset();
	if (cmd_opt("health", argc, argv, longs) != -1 ||
	    cmd_no_args("health", argc, argv) < 0)
		return CMD_EXIT_USAGE;
	rc = cmd_call_json(ctx, "GET", "/v1/health", NULL, &r, &root);
	if (rc != CMD_EXIT_OK)
		goto out;
	if (!cJSON_IsObject(root)) {
		rc = cmd_shape(ctx, "the health is not an object");
		goto out;
	}
	if (ctx->json)
		rc = cmd_print_raw(&r);
	else
		rc = cmd_flush(view_object(root, stdout) < 0 ? CMD_EXIT_USAGE
							     : CMD_EXIT_OK);
out:
	cJSON_Delete(root);
	http_response_release(&r);
	return rc;
}

/* ---- apps ---- */

/*
 * A percentile of an app's metric object for the apps table, to 0.1 ms,
 * marked "~" when it came from the server's histogram (within
 * max_error_ms, not exact).
 */
static void
cmd_app_pct(const cJSON *metric, const char *p, char *buf, size_t size)
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
cmd_count(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/*
 * The apps as the replay summary shows them: gestures, taps (the measured
 * kinds, whatever their status), ok and no_response taps, and p50, p90
 * and p99 of both latencies in ms.  Returns 0, -EPROTO for objects of
 * another shape (then the generic table shows them), or another negative
 * errno.
 */
static int
cmd_apps_table(const cJSON *apps)
{
	static const char *const hdr[] = {
		"APP",	      "GESTURES",   "TAPS",	  "OK",
		"NO_RESP",    "FIRST_P50",  "FIRST_P90",  "FIRST_P99",
		"SETTLE_P50", "SETTLE_P90", "SETTLE_P99",
	};
	static const char *const ps[] = {"50", "90", "99"};
	char cells[11][64], app[256];
	const char *cp[11];
	const cJSON *e, *name, *st, *ff, *se;
	struct table *t = NULL;
	double total, nm, ok, nr;
	int rc, i, tilde = 0;

	cJSON_ArrayForEach(e, apps)
	{
		st = cJSON_GetObjectItemCaseSensitive(e, "statuses");
		if (!cJSON_IsObject(e) || !cJSON_IsObject(st) ||
		    cmd_count(e, "count") < 0)
			return -EPROTO;
	}
	if ((rc = table_new(11, hdr, &t)) < 0)
		return rc;
	for (i = 1; i < 11; i++)
		table_align(t, (unsigned)i, TABLE_RIGHT);
	for (i = 0; i < 11; i++)
		cp[i] = cells[i];
	cJSON_ArrayForEach(e, apps)
	{
		name = cJSON_GetObjectItemCaseSensitive(e, "app");
		st = cJSON_GetObjectItemCaseSensitive(e, "statuses");
		ff = cJSON_GetObjectItemCaseSensitive(e, "first_frame");
		se = cJSON_GetObjectItemCaseSensitive(e, "settle");
		total = cmd_count(e, "count");
		nm = cmd_count(st, "not_measured");
		ok = cmd_count(st, "ok");
		nr = cmd_count(st, "no_response");
		/* The unknown app is null in the JSON. */
		view_cell(name, app, sizeof(app));
		table_format(cells[0], sizeof(cells[0]), "%s",
			     cJSON_IsString(name) ? app : "(unknown)");
		table_format(cells[1], sizeof(cells[1]), "%.0f", total);
		table_format(cells[2], sizeof(cells[2]), "%.0f",
			     nm >= 0 ? total - nm : total);
		table_format(cells[3], sizeof(cells[3]), "%.0f", ok);
		table_format(cells[4], sizeof(cells[4]), "%.0f", nr);
		for (i = 0; i < 3; i++) {
			cmd_app_pct(ff, ps[i], cells[5 + i], sizeof(cells[0]));
			cmd_app_pct(se, ps[i], cells[8 + i], sizeof(cells[0]));
			tilde = tilde || strchr(cells[5 + i], '~') ||
				strchr(cells[8 + i], '~');
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

static int
cmd_apps(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option longs[] = {
		{"since", required_argument, NULL, 's'},
		{"until", required_argument, NULL, 'u'},
		{NULL, 0, NULL, 0},
	};
	const char *names[] = {"since", "until"};
	const char *values[2] = {NULL, NULL};
	struct http_response r;
	const cJSON *apps;
	cJSON *root = NULL;
	char *q = NULL, *path = NULL;
	int c, rc;

	memset(&r, 0, sizeof(r));
	cmd_opt_reset();
	while ((c = cmd_opt("apps", argc, argv, longs)) != -1) {
		if (c == 's')
			values[0] = optarg;
		else if (c == 'u')
			values[1] = optarg;
		else
			return CMD_EXIT_USAGE;
	}
	if (cmd_no_args("apps", argc, argv) < 0)
		return CMD_EXIT_USAGE;
	if (cmd_add_params(ctx, &q, names, values, 2) < 0 ||
	    (path = cmd_path("/v1/apps", q)) == NULL) {
		rc = CMD_EXIT_USAGE;
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
		rc = cmd_flush(rc < 0 ? CMD_EXIT_USAGE : CMD_EXIT_OK);
	}
out:
	cJSON_Delete(root);
	http_response_release(&r);
	free(q);
	free(path);
	return rc;
}

/* ---- percentiles ---- */

/* The scalar members of obj as "key  value" lines. */
static int
cmd_print_scalars(const cJSON *obj)
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
cmd_print_percentiles(struct cmd_ctx *ctx, const cJSON *root)
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
	if (cmd_print_scalars(root) < 0)
		return CMD_EXIT_USAGE;
	metric = cJSON_GetObjectItemCaseSensitive(root, "metric");
	table_format(head, sizeof(head), "%s_MS",
		     cJSON_IsString(metric) ? metric->valuestring : "VALUE");
	for (i = 0; head[i]; i++)
		if (head[i] >= 'a' && head[i] <= 'z')
			head[i] = (char)(head[i] - 'a' + 'A');
	hdr[0] = "P";
	hdr[1] = head;
	if ((rc = table_new(2, hdr, &t)) < 0)
		return CMD_EXIT_USAGE;
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
	return rc < 0 ? CMD_EXIT_USAGE : CMD_EXIT_OK;
}

/* The first number among the named members of obj, or NAN. */
static double
cmd_number(const cJSON *obj, const char *const *names)
{
	const cJSON *v;

	for (; *names; names++) {
		v = cJSON_GetObjectItemCaseSensitive(obj, *names);
		if (cJSON_IsNumber(v))
			return v->valuedouble;
	}
	return NAN;
}

struct cmd_bucket {
	double lo, hi, count;
};

/*
 * Reads the buckets of a /v1/histogram answer: either "buckets", an array
 * of objects with the edges and a count, or parallel arrays "edges_ms"
 * (n + 1 numbers) and "counts" (n).  Returns the count of buckets, or -1
 * for another shape.
 */
static int
cmd_buckets(const cJSON *root, struct cmd_bucket **out)
{
	static const char *const lo_names[] = {"lo_ms",	 "from_ms",  "lower_ms",
					       "min_ms", "start_ms", "lo",
					       NULL};
	static const char *const hi_names[] = {
		"hi_ms", "to_ms", "upper_ms", "max_ms", "end_ms", "hi", NULL};
	static const char *const count_names[] = {"count", "n", NULL};
	const cJSON *buckets, *edges, *counts, *e;
	struct cmd_bucket *b;
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
			b[i].lo = cmd_number(e, lo_names);
			b[i].hi = cmd_number(e, hi_names);
			b[i].count = cmd_number(e, count_names);
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
cmd_edge(double v, char *buf, size_t size)
{
	if (isnan(v))
		table_format(buf, size, "-");
	else if (isinf(v))
		table_format(buf, size, "%s", v > 0 ? "inf" : "-inf");
	else
		table_format(buf, size, "%.2f", v);
}

static int
cmd_print_histogram(struct cmd_ctx *ctx, const cJSON *root)
{
	static const char *const hdr[] = {"FROM_MS", "TO_MS", "COUNT", ""};
	const char *cells[4];
	struct cmd_bucket *b = NULL;
	struct table *t = NULL;
	char lo[32], hi[32], count[32], bar[CMD_BAR_WIDTH + 1];
	double max = 0;
	int n, i, first = -1, last = -1, rc = CMD_EXIT_OK;
	size_t w;

	if ((n = cmd_buckets(root, &b)) < 0)
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
		rc = CMD_EXIT_USAGE;
		goto out;
	}
	table_align(t, 0, TABLE_RIGHT);
	table_align(t, 1, TABLE_RIGHT);
	table_align(t, 2, TABLE_RIGHT);
	/* Empty buckets between the first and the last show the gaps. */
	for (i = first; i <= last; i++) {
		cmd_edge(b[i].lo, lo, sizeof(lo));
		cmd_edge(b[i].hi, hi, sizeof(hi));
		table_format(count, sizeof(count), "%.0f", b[i].count);
		w = (size_t)ceil(b[i].count / max * CMD_BAR_WIDTH);
		if (w > CMD_BAR_WIDTH)
			w = CMD_BAR_WIDTH;
		memset(bar, '#', w);
		bar[w] = '\0';
		cells[0] = lo;
		cells[1] = hi;
		cells[2] = count;
		cells[3] = bar;
		if (table_add(t, cells) < 0) {
			rc = CMD_EXIT_USAGE;
			goto out;
		}
	}
	if (table_print(t, stdout) < 0)
		rc = CMD_EXIT_USAGE;
out:
	table_free(t);
	free(b);
	return rc;
}

static int
cmd_percentiles(struct cmd_ctx *ctx, int argc, char **argv)
{
	enum {
		P_APP,
		P_METRIC,
		P_SINCE,
		P_UNTIL,
		P_P,
		P_KIND,
		P_STATUS,
		P_SESSION,
		P_METHOD,
		P_N
	};
	static const struct option longs[] = {
		{"app", required_argument, NULL, 'a'},
		{"metric", required_argument, NULL, 'm'},
		{"since", required_argument, NULL, 's'},
		{"until", required_argument, NULL, 'u'},
		{"p", required_argument, NULL, 'p'},
		{"kind", required_argument, NULL, 'k'},
		{"status", required_argument, NULL, 't'},
		{"session", required_argument, NULL, 'S'},
		{"histogram", no_argument, NULL, 'H'},
		{"method", required_argument, NULL, 'M'},
		{NULL, 0, NULL, 0},
	};
	const char *names[P_N] = {"app",  "metric", "since",   "until", "p",
				  "kind", "status", "session", "method"};
	const char *values[P_N] = {NULL};
	struct http_response r, hr;
	cJSON *root = NULL, *hroot = NULL, *both = NULL;
	char *q = NULL, *hq = NULL, *path = NULL, *hpath = NULL, *text;
	int c, rc, histogram = 0;

	memset(&r, 0, sizeof(r));
	memset(&hr, 0, sizeof(hr));
	cmd_opt_reset();
	while ((c = cmd_opt("percentiles", argc, argv, longs)) != -1) {
		switch (c) {
		case 'a':
			values[P_APP] = optarg;
			break;
		case 'm':
			values[P_METRIC] = optarg;
			break;
		case 's':
			values[P_SINCE] = optarg;
			break;
		case 'u':
			values[P_UNTIL] = optarg;
			break;
		case 'p':
			if (arg_list(optarg, 0, 100, CMD_MAX_P) < 0) {
				cmd_err("percentiles: --p must be up to %d "
					"numbers in (0, 100] separated by "
					"commas: '%s'",
					CMD_MAX_P, optarg);
				return CMD_EXIT_USAGE;
			}
			values[P_P] = optarg;
			break;
		case 'k':
			values[P_KIND] = optarg;
			break;
		case 't':
			values[P_STATUS] = optarg;
			break;
		case 'S':
			if (cmd_check_int("percentiles", "--session", optarg, 1,
					  INT64_MAX) < 0)
				return CMD_EXIT_USAGE;
			values[P_SESSION] = optarg;
			break;
		case 'H':
			histogram = 1;
			break;
		case 'M':
			values[P_METHOD] = optarg;
			break;
		default:
			return CMD_EXIT_USAGE;
		}
	}
	if (cmd_no_args("percentiles", argc, argv) < 0)
		return CMD_EXIT_USAGE;
	rc = CMD_EXIT_USAGE;
	if (cmd_add_params(ctx, &q, names, values, P_N) < 0 ||
	    (path = cmd_path("/v1/percentiles", q)) == NULL)
		goto out;
	/* The histogram takes the filters it knows: app, metric, range. */
	if (histogram && (cmd_add_params(ctx, &hq, names, values, 4) < 0 ||
			  (hpath = cmd_path("/v1/histogram", hq)) == NULL))
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
		rc = CMD_EXIT_USAGE;
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
		rc = cmd_print_percentiles(ctx, root);
		if (rc == CMD_EXIT_OK && histogram)
			rc = cmd_print_histogram(ctx, hroot);
		rc = cmd_flush(rc);
	}
out:
	cJSON_Delete(root);
	cJSON_Delete(hroot);
	cJSON_Delete(both);
	http_response_release(&r);
	http_response_release(&hr);
	free(q);
	free(hq);
	free(path);
	free(hpath);
	return rc;
}

/* ---- taps ---- */

static void
cmd_tap_cells(const cJSON *tap, char cells[9][256])
{
	static const char *const keys[] = {
		"id",	     "wall_time", "app",
		"kind",	     "status",	  "first_frame_ms",
		"settle_ms", "frames",	  "flags",
	};
	const cJSON *v;
	char raw[256];
	size_t i;

	for (i = 0; i < 9; i++) {
		v = cJSON_GetObjectItemCaseSensitive(tap, keys[i]);
		if (i == 5 || i == 6) {
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
	static const char *const hdr[] = {
		"ID",	    "TIME",	 "APP",	   "KIND",  "STATUS",
		"FIRST_MS", "SETTLE_MS", "FRAMES", "FLAGS",
	};
	char cells[9][256];
	const char *cp[9];
	struct table *t = NULL;
	const cJSON *tap;
	size_t i;
	int rc;

	if ((rc = table_new(9, hdr, &t)) < 0)
		return rc;
	table_align(t, 0, TABLE_RIGHT);
	table_align(t, 5, TABLE_RIGHT);
	table_align(t, 6, TABLE_RIGHT);
	table_align(t, 7, TABLE_RIGHT);
	for (i = 0; i < 9; i++)
		cp[i] = cells[i];
	cJSON_ArrayForEach(tap, taps)
	{
		cmd_tap_cells(tap, cells);
		if ((rc = table_add(t, cp)) < 0)
			goto out;
	}
	rc = table_print(t, stdout);
out:
	table_free(t);
	return rc;
}

static int
cmd_taps(struct cmd_ctx *ctx, int argc, char **argv)
{
	enum {
		T_APP,
		T_SINCE,
		T_UNTIL,
		T_KIND,
		T_STATUS,
		T_SESSION,
		T_AFTER,
		T_LIMIT,
		T_FORMAT,
		T_N
	};
	static const struct option longs[] = {
		{"app", required_argument, NULL, 'a'},
		{"since", required_argument, NULL, 's'},
		{"until", required_argument, NULL, 'u'},
		{"kind", required_argument, NULL, 'k'},
		{"status", required_argument, NULL, 't'},
		{"session", required_argument, NULL, 'S'},
		{"after-id", required_argument, NULL, 'A'},
		{"limit", required_argument, NULL, 'l'},
		{"format", required_argument, NULL, 'f'},
		{NULL, 0, NULL, 0},
	};
	static const char *const formats[] = {"json", "ndjson", "csv"};
	static const char *const ctypes[] = {
		"application/json", "application/x-ndjson", "text/csv"};
	const char *names[T_N] = {"app",      "since",	"until",
				  "kind",     "status", "session",
				  "after_id", "limit",	"format"};
	const char *values[T_N] = {NULL};
	struct http_response r;
	const cJSON *taps, *next;
	cJSON *root = NULL;
	char *q = NULL, *path = NULL;
	int c, rc, format = -1, i;

	memset(&r, 0, sizeof(r));
	cmd_opt_reset();
	while ((c = cmd_opt("taps", argc, argv, longs)) != -1) {
		switch (c) {
		case 'a':
			values[T_APP] = optarg;
			break;
		case 's':
			values[T_SINCE] = optarg;
			break;
		case 'u':
			values[T_UNTIL] = optarg;
			break;
		case 'k':
			values[T_KIND] = optarg;
			break;
		case 't':
			values[T_STATUS] = optarg;
			break;
		case 'S':
			if (cmd_check_int("taps", "--session", optarg, 1,
					  INT64_MAX) < 0)
				return CMD_EXIT_USAGE;
			values[T_SESSION] = optarg;
			break;
		case 'A':
			if (cmd_check_int("taps", "--after-id", optarg, 0,
					  INT64_MAX) < 0)
				return CMD_EXIT_USAGE;
			values[T_AFTER] = optarg;
			break;
		case 'l':
			/* The server says how many it allows per page. */
			if (cmd_check_int("taps", "--limit", optarg, 1,
					  INT64_MAX) < 0)
				return CMD_EXIT_USAGE;
			values[T_LIMIT] = optarg;
			break;
		case 'f':
			for (i = 0; i < 3; i++)
				if (strcmp(optarg, formats[i]) == 0)
					format = i;
			if (format < 0) {
				cmd_err("taps: --format must be json, ndjson "
					"or csv: '%s'",
					optarg);
				return CMD_EXIT_USAGE;
			}
			values[T_FORMAT] = optarg;
			break;
		default:
			return CMD_EXIT_USAGE;
		}
	}
	if (cmd_no_args("taps", argc, argv) < 0)
		return CMD_EXIT_USAGE;
	rc = CMD_EXIT_USAGE;
	if (cmd_add_params(ctx, &q, names, values, T_N) < 0 ||
	    (path = cmd_path("/v1/taps", q)) == NULL)
		goto out;
	if (format > 0) {
		/* ndjson and csv go out as the server wrote them. */
		rc = http_request(ctx->http, "GET", path, NULL, &r);
		if ((rc = cmd_outcome(ctx, rc, &r)) != CMD_EXIT_OK)
			goto out;
		if (!cmd_content_type_is(&r, ctypes[format])) {
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
	rc = cmd_flush(cmd_taps_table(taps) < 0 ? CMD_EXIT_USAGE : CMD_EXIT_OK);
	next = cJSON_GetObjectItemCaseSensitive(root, "next_after_id");
	if (rc == CMD_EXIT_OK && cJSON_IsNumber(next))
		cmd_err("more taps: add --after-id %.0f", next->valuedouble);
out:
	cJSON_Delete(root);
	http_response_release(&r);
	free(q);
	free(path);
	return rc;
}

/* ---- tail ---- */

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
		cmd_tap_cells(tap, cells);
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

static int
cmd_tail(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option longs[] = {{NULL, 0, NULL, 0}};
	struct http_response r;
	struct cmd_tail tl;
	long idle;
	int rc;

	memset(&r, 0, sizeof(r));
	cmd_opt_reset();
	if (cmd_opt("tail", argc, argv, longs) != -1 ||
	    cmd_no_args("tail", argc, argv) < 0)
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
	cmd_catch_signals();
	rc = http_stream(ctx->http, "/v1/events", cmd_tail_sink, &tl, 0,
			 &cmd_stop, idle, &r);
	if (rc < 0 && r.fail == HTTP_ABORTED) {
		if (tl.out_failed)
			rc = cmd_flush(CMD_EXIT_OK);
		else if (tl.bad)
			rc = cmd_shape(ctx, "an event that is not a tap");
		else if (cmd_stop)
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

/* ---- trace ---- */

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

static int
cmd_trace(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option longs[] = {
		{"output", required_argument, NULL, 'o'},
		{"since", required_argument, NULL, 's'},
		{"until", required_argument, NULL, 'u'},
		{"app", required_argument, NULL, 'a'},
		{"session", required_argument, NULL, 'S'},
		{NULL, 0, NULL, 0},
	};
	const char *names[] = {"since", "until", "app", "session"};
	const char *values[4] = {NULL, NULL, NULL, NULL};
	const char *file = NULL;
	struct http_response r;
	struct cmd_trace tr;
	char *q = NULL, *path = NULL, *tmp = NULL;
	size_t n;
	int c, rc, fd = -1;

	memset(&r, 0, sizeof(r));
	memset(&tr, 0, sizeof(tr));
	cmd_opt_reset();
	while ((c = getopt_long(argc, argv, "+:o:", longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			file = optarg;
			break;
		case 's':
			values[0] = optarg;
			break;
		case 'u':
			values[1] = optarg;
			break;
		case 'a':
			values[2] = optarg;
			break;
		case 'S':
			if (cmd_check_int("trace", "--session", optarg, 1,
					  INT64_MAX) < 0)
				return CMD_EXIT_USAGE;
			values[3] = optarg;
			break;
		case ':':
			cmd_err("trace: option '%s' needs a value",
				argv[optind - 1]);
			return CMD_EXIT_USAGE;
		default:
			cmd_err("trace: unknown option '%s'", argv[optind - 1]);
			return CMD_EXIT_USAGE;
		}
	}
	if (cmd_no_args("trace", argc, argv) < 0)
		return CMD_EXIT_USAGE;
	if (file == NULL || *file == '\0') {
		cmd_err("trace: -o FILE is required ('-' for stdout)");
		return CMD_EXIT_USAGE;
	}
	rc = CMD_EXIT_USAGE;
	if (cmd_add_params(ctx, &q, names, values, 4) < 0 ||
	    (path = cmd_path("/v1/trace", q)) == NULL)
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
		if ((fd = mkstemp(tmp)) < 0 ||
		    (tr.f = fdopen(fd, "w")) == NULL) {
			cmd_err("cannot create '%s': %s", tmp, strerror(errno));
			free(tmp);
			tmp = NULL;
			goto out;
		}
		fd = -1;
	}
	cmd_catch_signals();
	rc = http_stream(ctx->http, path, cmd_trace_sink, &tr, HTTP_MAX_FILE,
			 &cmd_stop, ctx->timeout_s, &r);
	if (rc < 0 && r.fail == HTTP_ABORTED && tr.failed) {
		cmd_err("cannot write '%s': %s", file, strerror(tr.err));
		rc = CMD_EXIT_USAGE;
		goto out;
	}
	if (rc < 0 && r.fail == HTTP_ABORTED && tr.bad_start) {
		rc = cmd_shape(ctx, "the trace is not JSON");
		goto out;
	}
	if (rc < 0 && r.fail == HTTP_ABORTED) {
		cmd_err("interrupted");
		rc = CMD_EXIT_USAGE;
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
		rc = CMD_EXIT_USAGE;
		goto out;
	}
	if (rename(tmp, file) < 0) {
		cmd_err("cannot rename '%s' to '%s': %s", tmp, file,
			strerror(errno));
		rc = CMD_EXIT_USAGE;
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
	free(q);
	free(path);
	return rc;
}

/* ---- session ---- */

static int
cmd_session_show(struct cmd_ctx *ctx, const struct http_response *r,
		 const cJSON *root)
{
	if (!cJSON_IsObject(root))
		return cmd_shape(ctx, "the session is not an object");
	if (ctx->json)
		return cmd_print_raw(r);
	return cmd_flush(view_object(root, stdout) < 0 ? CMD_EXIT_USAGE
						       : CMD_EXIT_OK);
}

static int
cmd_session(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option longs[] = {{NULL, 0, NULL, 0}};
	struct http_response r;
	const cJSON *list;
	cJSON *root = NULL, *req = NULL;
	char *body = NULL, path[64];
	const char *sub;
	int64_t id;
	int rc;

	memset(&r, 0, sizeof(r));
	cmd_opt_reset();
	if (cmd_opt("session", argc, argv, longs) != -1)
		return CMD_EXIT_USAGE;
	if (optind >= argc) {
		cmd_err("session: start NAME, stop ID or list?");
		return CMD_EXIT_USAGE;
	}
	sub = argv[optind++];
	if (strcmp(sub, "list") == 0) {
		if (cmd_no_args("session list", argc, argv) < 0)
			return CMD_EXIT_USAGE;
		rc = cmd_call_json(ctx, "GET", "/v1/sessions", NULL, &r, &root);
		if (rc != CMD_EXIT_OK)
			goto out;
		if ((list = cmd_list(root, "sessions")) == NULL)
			rc = cmd_shape(ctx, "no \"sessions\" array");
		else if (ctx->json)
			rc = cmd_print_raw(&r);
		else
			rc = cmd_flush(view_array(list, stdout) < 0
					       ? CMD_EXIT_USAGE
					       : CMD_EXIT_OK);
		goto out;
	}
	if (strcmp(sub, "start") == 0) {
		if (optind + 1 != argc || argv[optind][0] == '\0') {
			cmd_err("session start: one NAME is needed");
			return CMD_EXIT_USAGE;
		}
		rc = CMD_EXIT_USAGE;
		if ((req = cJSON_CreateObject()) == NULL ||
		    cJSON_AddStringToObject(req, "name", argv[optind]) ==
			    NULL ||
		    (body = cJSON_PrintUnformatted(req)) == NULL)
			goto out;
		rc = cmd_call_json(ctx, "POST", "/v1/sessions", body, &r,
				   &root);
		if (rc == CMD_EXIT_OK)
			rc = cmd_session_show(ctx, &r, root);
		goto out;
	}
	if (strcmp(sub, "stop") == 0) {
		if (optind + 1 != argc ||
		    arg_int64(argv[optind], 1, INT64_MAX, &id) < 0) {
			cmd_err("session stop: one ID (a positive integer) is "
				"needed");
			return CMD_EXIT_USAGE;
		}
		if (snprintf(path, sizeof(path),
			     "/v1/sessions/%" PRId64 "/stop",
			     id) >= (int)sizeof(path))
			return CMD_EXIT_USAGE;
		rc = cmd_call_json(ctx, "POST", path, NULL, &r, &root);
		if (rc == CMD_EXIT_OK)
			rc = cmd_session_show(ctx, &r, root);
		goto out;
	}
	cmd_err("session: unknown subcommand '%s' (start, stop or list)", sub);
	return CMD_EXIT_USAGE;
out:
	cJSON_Delete(root);
	cJSON_Delete(req);
	cJSON_free(body);
	http_response_release(&r);
	return rc;
}

/* ---- dispatch ---- */

static const struct {
	const char *name;
	cmd_fn fn;
	const char *synopsis;
} cmd_table[] = {
	{"health", cmd_health, "health"},
	{"apps", cmd_apps, "apps [--since S] [--until S]"},
	{"percentiles", cmd_percentiles,
	 "percentiles [--app A] [--metric first_frame|settle] [--since S]\n"
	 "                [--until S] [--p LIST] [--kind K] [--status S]\n"
	 "                [--session ID] [--method auto|exact|histogram]\n"
	 "                [--histogram]"},
	{"taps", cmd_taps,
	 "taps [--app A] [--limit N] [--format json|ndjson|csv] [--since S]\n"
	 "                [--until S] [--kind K] [--status S] [--session ID]\n"
	 "                [--after-id ID]"},
	{"tail", cmd_tail, "tail"},
	{"trace", cmd_trace,
	 "trace -o FILE [--since S] [--until S] [--app A] [--session ID]"},
	{"session", cmd_session, "session start NAME | stop ID | list"},
};

cmd_fn
cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cmd_table) / sizeof(cmd_table[0]); i++)
		if (strcmp(cmd_table[i].name, name) == 0)
			return cmd_table[i].fn;
	return NULL;
}

void
cmd_usage(FILE *f)
{
	size_t i;

	fputs("usage: tapctl [--url URL] [--token-file FILE] [--json] "
	      "[--timeout S] COMMAND\n"
	      "commands:\n",
	      f);
	for (i = 0; i < sizeof(cmd_table) / sizeof(cmd_table[0]); i++)
		fprintf(f, "  %s\n", cmd_table[i].synopsis);
}
