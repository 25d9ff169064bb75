#include "cmd_health.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "http.h"
#include "opt.h"
#include "view.h"

void
cmd_health_usage(FILE *f)
{
	opt_synopsis(f, "health", NULL, 0, NULL);
}

int
cmd_health(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct http_response r;
	cJSON *root = NULL;
	int rc, next;

	memset(&r, 0, sizeof(r));
	if (opt_parse("health", NULL, 0, argc, argv, NULL, &next) < 0 ||
	    opt_end("health", argc, argv, next) < 0)
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
		rc = cmd_flush(view_object(root, stdout) < 0 ? CMD_EXIT_LOCAL
							     : CMD_EXIT_OK);
out:
	cJSON_Delete(root);
	http_response_release(&r);
	return rc;
}
