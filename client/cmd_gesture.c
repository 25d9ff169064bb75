#include "cmd_gesture.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arg.h"
#include "cmd.h"
#include "http.h"
#include "opt.h"
#include "table.h"
#include "view.h"

/* The largest script line, and the most gestures --repeat plays. */
#define GESTURE_LINE_MAX   4096
#define GESTURE_REPEAT_MAX 100000
/* The API's bounds of timeout_ms. */
#define GESTURE_WAIT_MIN_MS 100
#define GESTURE_WAIT_MAX_MS 120000

/* The measurements of the gestures played, for the percentile table. */
struct gesture_stats {
	double *first, *settle;
	size_t nfirst, nsettle, cap;
};

static void
sleep_ms(int64_t ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* "16.000 ms" for a number member, "-" for null or absent. */
static void
ms_cell(const cJSON *tap, const char *name, char *buf, size_t size)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(tap, name);

	if (cJSON_IsNumber(v))
		snprintf(buf, size, "%.3f ms", v->valuedouble);
	else
		snprintf(buf, size, "-");
}

static int
stats_add(struct gesture_stats *st, const cJSON *tap)
{
	const cJSON *f =
		cJSON_GetObjectItemCaseSensitive(tap, "first_frame_ms");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(tap, "settle_ms");
	double *nf, *ns;
	size_t cap;

	if (st->nfirst == st->cap || st->nsettle == st->cap) {
		cap = st->cap ? st->cap * 2 : 32;
		nf = realloc(st->first, cap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		st->first = nf;
		ns = realloc(st->settle, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		st->settle = ns;
		st->cap = cap;
	}
	if (cJSON_IsNumber(f))
		st->first[st->nfirst++] = f->valuedouble;
	if (cJSON_IsNumber(s))
		st->settle[st->nsettle++] = s->valuedouble;
	return 0;
}

/*
 * Prints the line of one gesture's tap: kind, app, first frame, settle,
 * launch (the launch fields where the server gives them), status.
 */
static int
print_tap(struct cmd_ctx *ctx, const struct http_response *r, const cJSON *tap)
{
	char first[32], settle[32], lfirst[32], lsettle[32], launch[80];
	char kind[32], app[128], status[32];
	const cJSON *v;

	if (ctx->json)
		return printf("%.*s\n", (int)r->len, r->body) < 0 ? -EIO : 0;
	v = cJSON_GetObjectItemCaseSensitive(tap, "kind");
	table_clean(cJSON_IsString(v) ? v->valuestring : "?", kind,
		    sizeof(kind));
	v = cJSON_GetObjectItemCaseSensitive(tap, "app");
	table_clean(cJSON_IsString(v) ? v->valuestring : "-", app, sizeof(app));
	v = cJSON_GetObjectItemCaseSensitive(tap, "status");
	table_clean(cJSON_IsString(v) ? v->valuestring : "?", status,
		    sizeof(status));
	ms_cell(tap, "first_frame_ms", first, sizeof(first));
	ms_cell(tap, "settle_ms", settle, sizeof(settle));
	ms_cell(tap, "launch_first_frame_ms", lfirst, sizeof(lfirst));
	ms_cell(tap, "launch_settle_ms", lsettle, sizeof(lsettle));
	if (strcmp(lfirst, "-") == 0 && strcmp(lsettle, "-") == 0)
		snprintf(launch, sizeof(launch), "-");
	else
		snprintf(launch, sizeof(launch), "%s/%s", lfirst, lsettle);
	return printf("%-10s %-32s first_frame %-12s settle %-12s launch %s "
		      "(%s)\n",
		      kind, app, first, settle, launch, status) < 0
		       ? -EIO
		       : 0;
}

/*
 * Plays one gesture (a JSON body) and waits for its tap: prints its line
 * and adds it to st (may be NULL).  Returns an exit code.
 */
static int
play(struct cmd_ctx *ctx, const char *body, struct gesture_stats *st)
{
	struct http_response r;
	char path[96];
	cJSON *tap = NULL;
	long wait_ms;
	int rc;

	memset(&r, 0, sizeof(r));
	/* The server's wait ends before ours, so that its answer comes. */
	wait_ms = ctx->timeout_s * 1000 - 1000;
	if (wait_ms < GESTURE_WAIT_MIN_MS)
		wait_ms = GESTURE_WAIT_MIN_MS;
	if (wait_ms > GESTURE_WAIT_MAX_MS)
		wait_ms = GESTURE_WAIT_MAX_MS;
	snprintf(path, sizeof(path), "/v1/gestures?wait=1&timeout_ms=%ld",
		 wait_ms);
	rc = cmd_call_json(ctx, "POST", path, body, &r, &tap);
	if (rc != CMD_EXIT_OK)
		goto out;
	if (!cJSON_IsObject(tap) ||
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(tap, "t_up_ns"))) {
		rc = cmd_shape(ctx, "the gesture's answer is not a tap");
		goto out;
	}
	if (st && stats_add(st, tap) < 0) {
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	rc = print_tap(ctx, &r, tap) < 0 ? CMD_EXIT_LOCAL : CMD_EXIT_OK;
	fflush(stdout);
out:
	cJSON_Delete(tap);
	http_response_release(&r);
	return rc;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p% at or below it. */
static double
percentile(const double *v, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);

	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

static int
print_percentiles(struct cmd_ctx *ctx, struct gesture_stats *st)
{
	static const char *const headers[] = {"metric", "n", "p50", "p90",
					      "p99"};
	static const double ps[] = {50, 90, 99};
	char cells[5][32];
	const char *row[5];
	struct table *t = NULL;
	double *v;
	size_t n, m, i;
	int rc = -ENOMEM;

	if (ctx->json) {
		cJSON *o = cJSON_CreateObject(), *p;
		char *s;

		for (m = 0; o && m < 2; m++) {
			v = m == 0 ? st->first : st->settle;
			n = m == 0 ? st->nfirst : st->nsettle;
			qsort(v, n, sizeof(*v), cmp_double);
			p = cJSON_AddObjectToObject(o, m == 0 ? "first_frame_ms"
							      : "settle_ms");
			if (!p || !cJSON_AddNumberToObject(p, "n", (double)n))
				goto json_out;
			for (i = 0; i < 3; i++) {
				char key[8];

				snprintf(key, sizeof(key), "p%.0f", ps[i]);
				if (n ? !cJSON_AddNumberToObject(
						p, key, percentile(v, n, ps[i]))
				      : !cJSON_AddNullToObject(p, key))
					goto json_out;
			}
		}
		s = o ? cJSON_PrintUnformatted(o) : NULL;
		if (s) {
			rc = printf("{\"percentiles\":%s}\n", s) < 0 ? -EIO : 0;
			cJSON_free(s);
		}
	json_out:
		cJSON_Delete(o);
		return rc;
	}
	if (table_new(5, headers, &t) < 0)
		return -ENOMEM;
	for (i = 1; i < 5; i++)
		table_align(t, (unsigned)i, 1);
	for (m = 0; m < 2; m++) {
		v = m == 0 ? st->first : st->settle;
		n = m == 0 ? st->nfirst : st->nsettle;
		qsort(v, n, sizeof(*v), cmp_double);
		snprintf(cells[0], sizeof(cells[0]), "%s",
			 m == 0 ? "first_frame_ms" : "settle_ms");
		snprintf(cells[1], sizeof(cells[1]), "%zu", n);
		for (i = 0; i < 3; i++) {
			if (n)
				snprintf(cells[2 + i], sizeof(cells[0]), "%.3f",
					 percentile(v, n, ps[i]));
			else
				snprintf(cells[2 + i], sizeof(cells[0]), "-");
		}
		for (i = 0; i < 5; i++)
			row[i] = cells[i];
		if (table_add(t, row) < 0)
			goto out;
	}
	rc = table_print(t, stdout);
out:
	table_free(t);
	return rc;
}

/*
 * The synopses put the coordinates first ("tap X Y --hold MS"), which
 * opt_parse() would take for the end of the options: the arguments are
 * split here, options (each with its value) into opts, the rest into
 * pos.  Returns 0, or -EINVAL for an option without its value.
 */
static int
split_args(const char *cmd, int argc, char **argv, char **opts, int *nopts,
	   char **pos, int *npos, int maxpos)
{
	int i;

	*nopts = 0;
	*npos = 0;
	opts[(*nopts)++] = argv[0];
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) == 0 && argv[i][2] != '\0') {
			opts[(*nopts)++] = argv[i];
			if (strchr(argv[i], '=') == NULL) {
				if (i + 1 >= argc) {
					cmd_err("%s: %s needs a value", cmd,
						argv[i]);
					return -EINVAL;
				}
				opts[(*nopts)++] = argv[++i];
			}
		} else if (*npos < maxpos) {
			pos[(*npos)++] = argv[i];
		} else {
			cmd_err("%s: unexpected argument '%s'", cmd, argv[i]);
			return -EINVAL;
		}
	}
	opts[*nopts] = NULL;
	return 0;
}

/* A number of display px from the command line. */
static int
coord(const char *cmd, const char *s, double *out)
{
	if (arg_double(s, -1e9, 1e9, out) < 0) {
		cmd_err("%s: '%s' is not a coordinate in px", cmd, s);
		return -EINVAL;
	}
	return 0;
}

static int
point_body(const char *kind, double x, double y, int64_t hold, char **out)
{
	cJSON *o = cJSON_CreateObject();
	int ok = o && cJSON_AddStringToObject(o, "kind", kind) &&
		 cJSON_AddNumberToObject(o, "x", x) &&
		 cJSON_AddNumberToObject(o, "y", y) &&
		 (hold <= 0 ||
		  cJSON_AddNumberToObject(o, "hold_ms", (double)hold));

	*out = ok ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	return *out ? 0 : -ENOMEM;
}

/* tap and press: X Y, a hold, repeats. */
static int
point_cmd(struct cmd_ctx *ctx, const char *cmd, const char *kind, int argc,
	  char **argv)
{
	static const struct opt_spec specs[] = {
		{.name = "hold",
		 .kind = OPT_INT,
		 .lo = 1,
		 .hi = 10000,
		 .arg = "MS"},
		{.name = "repeat",
		 .kind = OPT_INT,
		 .lo = 1,
		 .hi = GESTURE_REPEAT_MAX,
		 .arg = "N"},
		{.name = "interval",
		 .kind = OPT_INT,
		 .lo = 0,
		 .hi = 3600000,
		 .arg = "MS"},
	};
	const char *values[3];
	struct gesture_stats st;
	int64_t hold = 0, repeat = 1, interval = 0, i;
	char *opts[2 * OPT_MAX + 2], *pos[2];
	int rc, next, nopts, npos;
	double x, y;
	char *body = NULL;

	memset(&st, 0, sizeof(st));
	if (argc > 2 * OPT_MAX ||
	    split_args(cmd, argc, argv, opts, &nopts, pos, &npos, 2) < 0 ||
	    opt_parse(cmd, specs, 3, nopts, opts, values, &next) < 0 ||
	    opt_end(cmd, nopts, opts, next) < 0)
		return CMD_EXIT_USAGE;
	if (npos != 2) {
		cmd_err("%s: X and Y (display px) are needed", cmd);
		return CMD_EXIT_USAGE;
	}
	if (coord(cmd, pos[0], &x) < 0 || coord(cmd, pos[1], &y) < 0)
		return CMD_EXIT_USAGE;
	if ((values[0] && arg_int64(values[0], 1, 10000, &hold) < 0) ||
	    (values[1] &&
	     arg_int64(values[1], 1, GESTURE_REPEAT_MAX, &repeat) < 0) ||
	    (values[2] && arg_int64(values[2], 0, 3600000, &interval) < 0))
		return CMD_EXIT_USAGE;
	if (point_body(kind, x, y, hold, &body) < 0)
		return CMD_EXIT_USAGE;
	rc = CMD_EXIT_OK;
	for (i = 0; i < repeat && rc == CMD_EXIT_OK; i++) {
		if (i > 0)
			sleep_ms(interval);
		rc = play(ctx, body, &st);
	}
	if (rc == CMD_EXIT_OK && values[1] && print_percentiles(ctx, &st) < 0)
		rc = CMD_EXIT_LOCAL;
	cJSON_free(body);
	free(st.first);
	free(st.settle);
	return cmd_flush(rc);
}

void
cmd_tap_usage(FILE *f)
{
	opt_synopsis(f, "tap", NULL, 0,
		     "X Y [--hold MS] [--repeat N] [--interval MS]");
}

void
cmd_press_usage(FILE *f)
{
	opt_synopsis(f, "press", NULL, 0, "X Y [--hold MS]");
}

void
cmd_swipe_usage(FILE *f)
{
	opt_synopsis(f, "swipe", NULL, 0, "X1 Y1 X2 Y2 [--duration MS]");
}

void
cmd_run_usage(FILE *f)
{
	opt_synopsis(f, "run", NULL, 0, "FILE [--session NAME]");
}

int
cmd_tap(struct cmd_ctx *ctx, int argc, char **argv)
{
	return point_cmd(ctx, "tap", "tap", argc, argv);
}

int
cmd_press(struct cmd_ctx *ctx, int argc, char **argv)
{
	return point_cmd(ctx, "press", "long_press", argc, argv);
}

int
cmd_swipe(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct opt_spec specs[] = {
		{.name = "duration",
		 .kind = OPT_INT,
		 .lo = 1,
		 .hi = 10000,
		 .arg = "MS"},
	};
	const char *values[1];
	double p[4];
	int64_t duration = 0;
	cJSON *o = NULL, *from, *to;
	char *opts[2 * OPT_MAX + 2], *pos[4], *body = NULL;
	int rc = CMD_EXIT_USAGE, next, i, nopts, npos;

	if (argc > 2 * OPT_MAX ||
	    split_args("swipe", argc, argv, opts, &nopts, pos, &npos, 4) < 0 ||
	    opt_parse("swipe", specs, 1, nopts, opts, values, &next) < 0 ||
	    opt_end("swipe", nopts, opts, next) < 0)
		return CMD_EXIT_USAGE;
	if (npos != 4) {
		cmd_err("swipe: X1 Y1 X2 Y2 (display px) are needed");
		return CMD_EXIT_USAGE;
	}
	for (i = 0; i < 4; i++)
		if (coord("swipe", pos[i], &p[i]) < 0)
			return CMD_EXIT_USAGE;
	if (values[0] && arg_int64(values[0], 1, 10000, &duration) < 0)
		return CMD_EXIT_USAGE;
	o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "kind", "swipe") ||
	    !(from = cJSON_AddArrayToObject(o, "from")) ||
	    !(to = cJSON_AddArrayToObject(o, "to")) ||
	    !cJSON_AddItemToArray(from, cJSON_CreateNumber(p[0])) ||
	    !cJSON_AddItemToArray(from, cJSON_CreateNumber(p[1])) ||
	    !cJSON_AddItemToArray(to, cJSON_CreateNumber(p[2])) ||
	    !cJSON_AddItemToArray(to, cJSON_CreateNumber(p[3])) ||
	    (duration > 0 &&
	     !cJSON_AddNumberToObject(o, "duration_ms", (double)duration)) ||
	    !(body = cJSON_PrintUnformatted(o)))
		goto out;
	rc = cmd_flush(play(ctx, body, NULL));
out:
	cJSON_Delete(o);
	cJSON_free(body);
	return rc;
}

/* POSTs path (a session start or stop) and returns the session's id. */
static int
session_call(struct cmd_ctx *ctx, const char *path, const char *body,
	     int64_t *id, int show)
{
	struct http_response r;
	const cJSON *v;
	cJSON *root = NULL;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = cmd_call_json(ctx, "POST", path, body, &r, &root);
	if (rc != CMD_EXIT_OK)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "id");
	if (!cJSON_IsNumber(v) || v->valuedouble < 1) {
		rc = cmd_shape(ctx, "the session has no id");
		goto out;
	}
	*id = (int64_t)v->valuedouble;
	if (show) {
		if (ctx->json)
			rc = cmd_print_raw(&r);
		else
			rc = view_object(root, stdout) < 0 ? CMD_EXIT_LOCAL
							   : CMD_EXIT_OK;
	}
out:
	cJSON_Delete(root);
	http_response_release(&r);
	return rc;
}

/* The apps of the session, as tapctl apps shows them. */
static int
session_apps(struct cmd_ctx *ctx, int64_t id)
{
	struct http_response r;
	const cJSON *list;
	cJSON *root = NULL;
	char path[64];
	int rc;

	memset(&r, 0, sizeof(r));
	snprintf(path, sizeof(path), "/v1/apps?session=%" PRId64, id);
	rc = cmd_call_json(ctx, "GET", path, NULL, &r, &root);
	if (rc != CMD_EXIT_OK)
		goto out;
	if ((list = cmd_list(root, "apps")) == NULL)
		rc = cmd_shape(ctx, "no \"apps\" array");
	else if (ctx->json)
		rc = cmd_print_raw(&r);
	else
		rc = view_array(list, stdout) < 0 ? CMD_EXIT_LOCAL
						  : CMD_EXIT_OK;
out:
	cJSON_Delete(root);
	http_response_release(&r);
	return rc;
}

/*
 * One script line: a gesture, played, or {"sleep_ms": N}.  Returns an
 * exit code; blank lines and lines starting with '#' are skipped.
 */
static int
run_line(struct cmd_ctx *ctx, const char *file, unsigned lineno, char *line)
{
	const cJSON *sleep_v;
	cJSON *o;
	size_t len = strlen(line);
	int rc;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (len == 0 || line[0] == '#')
		return CMD_EXIT_OK;
	o = cJSON_Parse(line);
	if (!cJSON_IsObject(o)) {
		cmd_err("run: '%s' line %u is not a JSON object", file, lineno);
		cJSON_Delete(o);
		return CMD_EXIT_LOCAL;
	}
	sleep_v = cJSON_GetObjectItemCaseSensitive(o, "sleep_ms");
	if (sleep_v) {
		if (!cJSON_IsNumber(sleep_v) || sleep_v->valuedouble < 0 ||
		    sleep_v->valuedouble > 3600000 ||
		    cJSON_GetArraySize(o) != 1) {
			cmd_err("run: '%s' line %u: {\"sleep_ms\": N} takes "
				"0 to 3600000 ms and nothing else",
				file, lineno);
			rc = CMD_EXIT_LOCAL;
		} else {
			sleep_ms((int64_t)sleep_v->valuedouble);
			rc = CMD_EXIT_OK;
		}
		cJSON_Delete(o);
		return rc;
	}
	cJSON_Delete(o);
	rc = play(ctx, line, NULL);
	if (rc != CMD_EXIT_OK)
		cmd_err("run: '%s' line %u failed", file, lineno);
	return rc;
}

int
cmd_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct opt_spec specs[] = {
		{.name = "session", .kind = OPT_STRING, .arg = "NAME"},
	};
	const char *values[1], *file, *name;
	char line[GESTURE_LINE_MAX], path[64];
	char *opts[2 * OPT_MAX + 2], *pos[1];
	cJSON *req = NULL;
	char *body = NULL;
	unsigned lineno = 0;
	int64_t id = 0, stopped;
	FILE *f = NULL;
	int rc, src, next, nopts, npos;

	if (argc > 2 * OPT_MAX ||
	    split_args("run", argc, argv, opts, &nopts, pos, &npos, 1) < 0 ||
	    opt_parse("run", specs, 1, nopts, opts, values, &next) < 0 ||
	    opt_end("run", nopts, opts, next) < 0)
		return CMD_EXIT_USAGE;
	if (npos != 1) {
		cmd_err("run: one FILE is needed");
		return CMD_EXIT_USAGE;
	}
	file = pos[0];
	name = values[0] ? values[0] : file;
	f = fopen(file, "r");
	if (!f) {
		cmd_err("run: cannot open '%s': %s", file, strerror(errno));
		return CMD_EXIT_LOCAL;
	}
	rc = CMD_EXIT_LOCAL;
	if (!(req = cJSON_CreateObject()) ||
	    !cJSON_AddStringToObject(req, "name", name) ||
	    !(body = cJSON_PrintUnformatted(req)))
		goto out;
	rc = session_call(ctx, "/v1/sessions", body, &id, 0);
	if (rc != CMD_EXIT_OK) {
		id = 0;
		goto out;
	}
	while (rc == CMD_EXIT_OK && fgets(line, sizeof(line), f)) {
		lineno++;
		if (strlen(line) == sizeof(line) - 1 &&
		    line[sizeof(line) - 2] != '\n') {
			cmd_err("run: '%s' line %u is longer than %d bytes",
				file, lineno, GESTURE_LINE_MAX - 2);
			rc = CMD_EXIT_LOCAL;
			break;
		}
		rc = run_line(ctx, file, lineno, line);
	}
out:
	/* The session ends whatever happened to the script. */
	if (id > 0) {
		snprintf(path, sizeof(path), "/v1/sessions/%" PRId64 "/stop",
			 id);
		src = session_call(ctx, path, NULL, &stopped,
				   rc == CMD_EXIT_OK);
		if (src == CMD_EXIT_OK && rc == CMD_EXIT_OK)
			src = session_apps(ctx, id);
		if (rc == CMD_EXIT_OK)
			rc = src;
	}
	fclose(f);
	cJSON_Delete(req);
	cJSON_free(body);
	return cmd_flush(rc);
}
