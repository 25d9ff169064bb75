#include "cmd_session.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arg.h"
#include "cmd.h"
#include "http.h"
#include "opt.h"
#include "view.h"

static int
cmd_session_show(struct cmd_ctx *ctx, const struct http_response *r,
		 const cJSON *root)
{
	if (!cJSON_IsObject(root))
		return cmd_shape(ctx, "the session is not an object");
	if (ctx->json)
		return cmd_print_raw(r);
	return cmd_flush(view_object(root, stdout) < 0 ? CMD_EXIT_LOCAL
						       : CMD_EXIT_OK);
}

void
cmd_session_usage(FILE *f)
{
	opt_synopsis(f, "session", NULL, 0, "start NAME | stop ID | list");
}

int
cmd_session(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct http_response r;
	const cJSON *list;
	cJSON *root = NULL, *req = NULL;
	char *body = NULL, path[64];
	const char *sub;
	int64_t id;
	int rc, next;

	memset(&r, 0, sizeof(r));
	if (opt_parse("session", NULL, 0, argc, argv, NULL, &next) < 0)
		return CMD_EXIT_USAGE;
	if (next >= argc) {
		cmd_err("session: start NAME, stop ID or list?");
		return CMD_EXIT_USAGE;
	}
	sub = argv[next++];
	/* "session start -- -x": a NAME that starts with '-' follows "--". */
	if (next < argc && strcmp(argv[next], "--") == 0)
		next++;
	if (strcmp(sub, "list") == 0) {
		if (opt_end("session list", argc, argv, next) < 0)
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
					       ? CMD_EXIT_LOCAL
					       : CMD_EXIT_OK);
		goto out;
	}
	if (strcmp(sub, "start") == 0) {
		if (next + 1 != argc || argv[next][0] == '\0') {
			cmd_err("session start: one NAME is needed");
			return CMD_EXIT_USAGE;
		}
		rc = CMD_EXIT_LOCAL;
		if ((req = cJSON_CreateObject()) == NULL ||
		    cJSON_AddStringToObject(req, "name", argv[next]) == NULL ||
		    (body = cJSON_PrintUnformatted(req)) == NULL)
			goto out;
		rc = cmd_call_json(ctx, "POST", "/v1/sessions", body, &r,
				   &root);
		if (rc == CMD_EXIT_OK)
			rc = cmd_session_show(ctx, &r, root);
		goto out;
	}
	if (strcmp(sub, "stop") == 0) {
		if (next + 1 != argc ||
		    arg_int64(argv[next], 1, INT64_MAX, &id) < 0) {
			cmd_err("session stop: one ID (a positive integer) is "
				"needed");
			return CMD_EXIT_USAGE;
		}
		if (snprintf(path, sizeof(path),
			     "/v1/sessions/%" PRId64 "/stop",
			     id) >= (int)sizeof(path))
			return CMD_EXIT_LOCAL;
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
