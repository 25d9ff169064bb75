/*
 * tapctl devices and tapctl --all: see cmd_devices.h.  --all runs tapctl
 * itself once per device (each with its own forward), reads its table,
 * splits the columns where tapctl's tables put two spaces, and prints
 * them again under one header with the device first.
 */
#include "cmd_devices.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adb.h"
#include "http.h"
#include "table.h"

/* How long `devices` waits for each tapd. */
#define DEVICES_TIMEOUT_MS 3000
/* Columns of a table --all reads back (table.h's limit, less DEVICE). */
#define DEVICES_COLS 31

void
cmd_devices_usage(FILE *f)
{
	opt_synopsis(f, "devices", NULL, 0, NULL);
}

/* A string member of obj, or "-". */
static const char *
cmd_devices_str(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsString(v) ? v->valuestring : "-";
}

/*
 * Asks the tapd of one device for its health through a forward: sets
 * *answers, version and model (size bytes each).
 */
static void
cmd_devices_probe(const char *serial, int *answers, char *version, char *model,
		  size_t size)
{
	struct http_response r;
	struct http *h = NULL;
	cJSON *root = NULL;
	char url[64];
	int port;

	*answers = 0;
	snprintf(version, size, "-");
	snprintf(model, size, "-");
	if (adb_forward(serial, ADB_TAPD_PORT, &port) < 0)
		return;
	memset(&r, 0, sizeof(r));
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	if (http_new(url, NULL, DEVICES_TIMEOUT_MS, &h) == 0 &&
	    http_request(h, "GET", "/v1/health", NULL, &r) == 0 &&
	    r.status == 200 && (root = cJSON_Parse(r.body)) != NULL) {
		*answers = 1;
		table_clean(cmd_devices_str(root, "version"), version, size);
		table_clean(cmd_devices_str(cJSON_GetObjectItemCaseSensitive(
						    root, "device"),
					    "model"),
			    model, size);
	} else if (r.status == 401) {
		/* A tapd that wants a token answers all the same. */
		*answers = 1;
		snprintf(version, size, "(token needed)");
	}
	cJSON_Delete(root);
	http_response_release(&r);
	http_free(h);
	adb_forward_remove(serial, port);
}

int
cmd_devices(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const char *const hdr[] = {"SERIAL", "STATE", "TAPD", "VERSION",
					  "MODEL"};
	char version[128], model[128];
	struct adb_device *devs = NULL;
	struct table *t = NULL;
	const char *cells[5];
	cJSON *arr = NULL, *o;
	size_t n = 0, i;
	int answers, rc = CMD_EXIT_OK;
	char *text;

	if (argc > 1) {
		cmd_err("devices takes no arguments: '%s'", argv[1]);
		return CMD_EXIT_USAGE;
	}
	if (adb_devices(&devs, &n) < 0)
		return CMD_EXIT_CONNECT;
	if (ctx->json ? (arr = cJSON_CreateArray()) == NULL
		      : table_new(5, hdr, &t) < 0) {
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		answers = 0;
		snprintf(version, sizeof(version), "-");
		snprintf(model, sizeof(model), "-");
		if (strcmp(devs[i].state, "device") == 0)
			cmd_devices_probe(devs[i].serial, &answers, version,
					  model, sizeof(version));
		if (arr) {
			o = cJSON_CreateObject();
			if (!o || !cJSON_AddItemToArray(arr, o) ||
			    !cJSON_AddStringToObject(o, "serial",
						     devs[i].serial) ||
			    !cJSON_AddStringToObject(o, "state",
						     devs[i].state) ||
			    !cJSON_AddBoolToObject(o, "tapd", answers) ||
			    !cJSON_AddStringToObject(o, "version", version) ||
			    !cJSON_AddStringToObject(o, "model", model)) {
				rc = CMD_EXIT_LOCAL;
				goto out;
			}
			continue;
		}
		cells[0] = devs[i].serial;
		cells[1] = devs[i].state;
		cells[2] = answers ? "yes" : "no";
		cells[3] = version;
		cells[4] = model;
		if (table_add(t, cells) < 0) {
			rc = CMD_EXIT_LOCAL;
			goto out;
		}
	}
	if (arr) {
		if ((text = cJSON_PrintUnformatted(arr)) == NULL) {
			rc = CMD_EXIT_LOCAL;
			goto out;
		}
		puts(text);
		cJSON_free(text);
	} else if (n == 0) {
		fputs("(no devices)\n", stdout);
	} else if (table_print(t, stdout) < 0) {
		rc = CMD_EXIT_LOCAL;
	}
	rc = cmd_flush(rc);
out:
	cJSON_Delete(arr);
	table_free(t);
	free(devs);
	return rc;
}

/*
 * Splits a line of a tapctl table into its cells, in place: cells are
 * two or more spaces apart.  Returns the number of cells (at most max).
 */
static size_t
cmd_devices_split(char *line, char **cells, size_t max)
{
	size_t n = 0;
	char *p = line, *gap;

	while (*p == ' ')
		p++;
	while (*p && n < max) {
		cells[n++] = p;
		gap = strstr(p, "  ");
		if (!gap)
			break;
		*gap = '\0';
		p = gap + 2;
		while (*p == ' ')
			p++;
	}
	return n;
}

/* One device's output, split into lines. */
struct cmd_devices_out {
	const char *serial;
	char *text;
	int rc;
};

static int
cmd_devices_read_only(const char *cmd)
{
	static const char *const reads[] = {"health", "apps", "percentiles",
					    "taps"};
	size_t i;

	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (strcmp(reads[i], cmd) == 0)
			return 1;
	return 0;
}

/*
 * Prints the outputs as one table: the header of the first that has one,
 * then every row whose cells match it, with the device first; lines of
 * another shape (notes, "(no apps)") after it, with their device.
 */
static int
cmd_devices_merge(struct cmd_devices_out *outs, size_t n, const char *header)
{
	char *cells[DEVICES_COLS + 1], *hdr_line = NULL, *line, *next, *copy;
	const char *row[DEVICES_COLS + 1];
	struct table *t = NULL;
	size_t i, k, ncols = 0, c, nnotes = 0;
	char **notes = NULL, **grown;
	const char **note_dev = NULL, **grown_dev;
	int rc = 0, first;
	char hdr_copy[64];

	/* Output without a header row of its own (health's fields) gets one. */
	if (header) {
		snprintf(hdr_copy, sizeof(hdr_copy), "%s", header);
		hdr_line = hdr_copy;
		ncols = cmd_devices_split(hdr_line, cells + 1, DEVICES_COLS);
		cells[0] = (char *)(uintptr_t) "DEVICE";
		for (c = 0; c <= ncols; c++)
			row[c] = cells[c];
		if (table_new((unsigned)ncols + 1, row, &t) < 0)
			return -ENOMEM;
	}

	for (i = 0; i < n; i++) {
		first = header == NULL;
		for (line = outs[i].text; line && *line; line = next) {
			next = line + strcspn(line, "\n");
			if (*next)
				*next++ = '\0';
			if (first) {
				first = 0;
				if (!hdr_line) {
					hdr_line = line;
					ncols = cmd_devices_split(hdr_line,
								  cells + 1,
								  DEVICES_COLS);
					cells[0] = (char *)(uintptr_t) "DEVICE";
					for (c = 0; c <= ncols; c++)
						row[c] = cells[c];
					if (table_new((unsigned)ncols + 1, row,
						      &t) < 0)
						return -ENOMEM;
				}
				continue;
			}
			if ((copy = strdup(line)) == NULL) {
				rc = -ENOMEM;
				goto out;
			}
			k = cmd_devices_split(line, cells + 1, DEVICES_COLS);
			if (k != ncols) {
				grown = realloc(notes,
						(nnotes + 1) * sizeof(*notes));
				if (grown)
					notes = grown;
				grown_dev = realloc(note_dev,
						    (nnotes + 1) *
							    sizeof(*note_dev));
				if (grown_dev)
					note_dev = grown_dev;
				if (!grown || !grown_dev) {
					free(copy);
					rc = -ENOMEM;
					goto out;
				}
				notes[nnotes] = copy;
				note_dev[nnotes++] = outs[i].serial;
				continue;
			}
			free(copy);
			row[0] = outs[i].serial;
			for (c = 1; c <= ncols; c++)
				row[c] = cells[c];
			if ((rc = table_add(t, row)) < 0)
				goto out;
		}
	}
	if (t)
		rc = table_print(t, stdout);
	for (i = 0; rc == 0 && i < nnotes; i++)
		printf("%s: %s\n", note_dev[i], notes[i]);
out:
	for (i = 0; i < nnotes; i++)
		free(notes[i]);
	free(notes);
	free(note_dev);
	table_free(t);
	return rc;
}

int
cmd_devices_all(const struct cmd_devices_globals *g, int argc, char **argv)
{
	struct cmd_devices_out *outs = NULL;
	struct adb_device *devs = NULL;
	char **cargv = NULL;
	size_t n = 0, i, k, nout = 0;
	int rc = CMD_EXIT_OK, worst = CMD_EXIT_OK;

	if (argc < 1 || !cmd_devices_read_only(argv[0])) {
		cmd_err("--all runs a read command (health, apps, percentiles, "
			"taps), not '%s'",
			argc < 1 ? "" : argv[0]);
		return CMD_EXIT_USAGE;
	}
	if (adb_devices(&devs, &n) < 0)
		return CMD_EXIT_CONNECT;
	outs = calloc(n ? n : 1, sizeof(*outs));
	cargv = calloc((size_t)argc + 8, sizeof(*cargv));
	if (!outs || !cargv) {
		rc = CMD_EXIT_LOCAL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(devs[i].state, "device") != 0)
			continue;
		k = 0;
		/* This very program, wherever it was run from. */
		cargv[k++] = (char *)(uintptr_t) "/proc/self/exe";
		if (g->token_file) {
			cargv[k++] = (char *)(uintptr_t) "--token-file";
			cargv[k++] = (char *)(uintptr_t)g->token_file;
		}
		if (g->timeout) {
			cargv[k++] = (char *)(uintptr_t) "--timeout";
			cargv[k++] = (char *)(uintptr_t)g->timeout;
		}
		cargv[k++] = (char *)(uintptr_t) "--serial";
		cargv[k++] = devs[i].serial;
		memcpy(cargv + k, argv, (size_t)argc * sizeof(*argv));
		cargv[k + (size_t)argc] = NULL;
		outs[nout].serial = devs[i].serial;
		outs[nout].rc = adb_exec(cargv, &outs[nout].text);
		if (outs[nout].rc != 0) {
			cmd_err("device '%s': '%s' failed (exit %d)",
				devs[i].serial, argv[0], outs[nout].rc);
			if (outs[nout].rc < 0 || outs[nout].rc > worst)
				worst = outs[nout].rc < 0 ? CMD_EXIT_LOCAL
							  : outs[nout].rc;
		}
		nout++;
	}
	if (nout == 0)
		fputs("(no devices)\n", stdout);
	else if (cmd_devices_merge(outs, nout,
				   strcmp(argv[0], "health") == 0
					   ? "FIELD  VALUE"
					   : NULL) < 0)
		worst = CMD_EXIT_LOCAL;
	rc = cmd_flush(worst);
out:
	for (i = 0; i < nout; i++)
		free(outs[i].text);
	free(outs);
	free(cargv);
	free(devs);
	return rc;
}
