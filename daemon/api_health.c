#include "api_health.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "api_request.h"
#include "devid.h"
#include "gesture.h"
#include "inject.h"
#include "metrics.h"
#include "status.h"
#include "store.h"
#include "tapjson.h"
#include "timeparse.h"
#include "version.h"

static const char *const api_health_params[] = {NULL};

/*
 * Below this a count is printed here, as decimal digits: the same text
 * cJSON prints for the double (it prints 15 significant digits, then
 * checks them by reading them back, which cost /v1/health more than
 * its database), at a fraction of the cost.
 */
#define API_HEALTH_RAW_MAX 1000000000000000ULL

/* Adds a count (an integer >= 0) as a JSON number. */
static bool
api_health_add_count(cJSON *o, const char *name, uint64_t v)
{
	char buf[24];

	if (v >= API_HEALTH_RAW_MAX)
		return cJSON_AddNumberToObject(o, name, (double)v) != NULL;
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return cJSON_AddRawToObject(o, name, buf) != NULL;
}

/* The size of path + suffix in bytes, 0 when it does not exist. */
static uint64_t
api_health_file_size(const char *path, const char *suffix)
{
	char name[PATH_MAX];
	struct stat sb;
	int n;

	n = snprintf(name, sizeof(name), "%s%s", path, suffix);
	if (n < 0 || (size_t)n >= sizeof(name) || stat(name, &sb) != 0)
		return 0;
	return sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
}

/*
 * Adds "database": the file's schema version, row count and sizes.
 * Returns 1 when it could be read, 0 when not (then it says why), or
 * -ENOMEM.  A failed checkout has queued its 503 and returns that errno.
 */
static int
api_health_database(struct api_request *rq, cJSON *root)
{
	const char *path = api_request_db_path(rq);
	int64_t version = 0, taps = 0;
	struct store *st;
	cJSON *db_obj;
	int rc;

	if (!path)
		return cJSON_AddNullToObject(root, "database") ? 0 : -ENOMEM;
	rc = api_request_store(rq, &st);
	if (rc < 0)
		return rc;
	db_obj = cJSON_AddObjectToObject(root, "database");
	if (!db_obj || tapjson_add_string(db_obj, "path", path) < 0)
		return -ENOMEM;
	rc = api_request_store_info(rq, st, &version, &taps);
	if (rc < 0)
		return tapjson_add_string(db_obj, "error", store_errmsg(st));
	/* The rest needs no connection: another request may have it. */
	api_request_store_release(rq);
	if (!api_health_add_count(db_obj, "schema_version",
				  version > 0 ? (uint64_t)version : 0) ||
	    !api_health_add_count(db_obj, "taps",
				  taps > 0 ? (uint64_t)taps : 0) ||
	    !api_health_add_count(db_obj, "size_bytes",
				  api_health_file_size(path, "")) ||
	    !api_health_add_count(db_obj, "wal_bytes",
				  api_health_file_size(path, "-wal")))
		return -ENOMEM;
	return 1;
}

static cJSON *
api_health_sources(const struct status_snapshot *snap)
{
	const struct status_source_state *s;
	cJSON *sources, *src;
	int i;

	sources = cJSON_CreateObject();
	for (i = 0; sources && snap && i < STATUS_SOURCE_COUNT; i++) {
		s = &snap->sources[i];
		src = cJSON_AddObjectToObject(
			sources, status_source_name((enum status_source)i));
		if (!src ||
		    !cJSON_AddStringToObject(src, "health",
					     status_health_name(s->health)) ||
		    tapjson_add_string(src, "kind", s->kind) < 0 ||
		    tapjson_add_string(src, "detail", s->detail) < 0) {
			cJSON_Delete(sources);
			return NULL;
		}
	}
	return sources;
}

static cJSON *
api_health_counters(const struct status_snapshot *snap)
{
	const struct {
		const char *name;
		uint64_t value;
	} c[] = {
		{"input_events", snap->input_events},
		{"syn_dropped", snap->syn_dropped},
		{"contacts_cut", snap->contacts_cut},
		{"input_lines_skipped", snap->input_lines_skipped},
		{"frames_read", snap->frames_read},
		{"packets_read", snap->packets_read},
		{"packets_dropped", snap->packets_dropped},
		{"taps_finalized", snap->taps_finalized},
		{"taps_pending", snap->taps_pending},
		{"rows_stored", snap->rows_stored},
		{"rows_lost", snap->rows_lost},
	};
	cJSON *counters, *gestures;
	size_t i;

	counters = cJSON_CreateObject();
	if (!counters)
		return NULL;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (!api_health_add_count(counters, c[i].name, c[i].value))
			goto fail;
	gestures = cJSON_AddObjectToObject(counters, "gestures");
	if (!gestures)
		goto fail;
	for (i = 0; i < GESTURE_KIND_COUNT; i++)
		if (!api_health_add_count(
			    gestures, gesture_kind_name((enum gesture_kind)i),
			    snap->gestures[i]))
			goto fail;
	return counters;
fail:
	cJSON_Delete(counters);
	return NULL;
}

/* The members that come from the status snapshot (snap may be NULL). */
static int
api_health_live(cJSON *root, const struct status_snapshot *snap,
		int64_t started_ns, bool *degraded)
{
	char started[TIMEPARSE_RFC3339_SIZE];
	cJSON *sources, *counters;
	int64_t now;
	int i;

	for (i = 0; snap && i < STATUS_SOURCE_COUNT; i++)
		if (snap->sources[i].health == STATUS_HEALTH_DEGRADED ||
		    snap->sources[i].health == STATUS_HEALTH_DOWN)
			*degraded = true;
	if (snap)
		started_ns = snap->started_wall_ns;
	now = timeparse_realtime_ns();
	if (!cJSON_AddStringToObject(root, "mode", snap ? snap->mode : "serve"))
		return -ENOMEM;
	if (!api_health_add_count(
		    root, "uptime_s",
		    now > started_ns
			    ? (uint64_t)((now - started_ns) / 1000000000)
			    : 0))
		return -ENOMEM;
	if (timeparse_format(started_ns, started, sizeof(started)) == 0
		    ? !cJSON_AddStringToObject(root, "started", started)
		    : !cJSON_AddNullToObject(root, "started"))
		return -ENOMEM;
	sources = api_health_sources(snap);
	if (!sources)
		return -ENOMEM;
	cJSON_AddItemToObject(root, "sources", sources);
	counters = snap ? api_health_counters(snap) : cJSON_CreateObject();
	if (!counters)
		return -ENOMEM;
	cJSON_AddItemToObject(root, "counters", counters);
	if (snap && snap->frames_lag_ns >= 0
		    ? !cJSON_AddNumberToObject(root, "frames_lag_ms",
					       (double)snap->frames_lag_ns /
						       1e6)
		    : !cJSON_AddNullToObject(root, "frames_lag_ms"))
		return -ENOMEM;
	if (snap && snap->session > 0
		    ? !api_health_add_count(root, "session",
					    (uint64_t)snap->session)
		    : !cJSON_AddNullToObject(root, "session"))
		return -ENOMEM;
	return 0;
}

/* "device": the identity (devid.h), or null when none is known. */
static int
api_health_device(struct api_request *rq, cJSON *root)
{
	struct devid id;
	cJSON *obj;

	if (metrics_device(api_request_metrics(rq), &id) < 0)
		return cJSON_AddNullToObject(root, "device") ? 0 : -ENOMEM;
	obj = cJSON_AddObjectToObject(root, "device");
	return obj ? devid_to_json(&id, obj) : -ENOMEM;
}

int
api_health_get(struct api_request *rq)
{
	struct status_snapshot snap;
	struct status *status;
	cJSON *root = NULL, *state;
	bool degraded = false;
	int rc;

	rc = api_request_allow(rq, api_health_params);
	if (rc < 0)
		return rc;
	status = api_request_status(rq);
	if (status)
		status_get(status, &snap);
	rc = -ENOMEM;
	root = cJSON_CreateObject();
	/* "status" comes first for a reader's eye; its value is set last. */
	state = cJSON_AddStringToObject(root, "status", "ok");
	if (!state || !cJSON_AddStringToObject(root, "version", tapd_version))
		goto out;
	rc = api_health_live(root, status ? &snap : NULL,
			     api_request_started_ns(rq), &degraded);
	if (rc < 0)
		goto out;
	rc = api_health_device(rq, root);
	if (rc < 0)
		goto out;
	rc = api_health_database(rq, root);
	if (rc < 0)
		goto out;
	/* The injector: null when it is off (no --allow-inject). */
	if (api_request_inject(rq)
		    ? !cJSON_AddItemToObject(
			      root, "inject",
			      inject_health_json(api_request_inject(rq)))
		    : !cJSON_AddNullToObject(root, "inject")) {
		rc = -ENOMEM;
		goto out;
	}
	if (rc == 0 && api_request_db_path(rq))
		degraded = true;
	if (degraded && !cJSON_SetValuestring(state, "degraded"))
		goto out;
	rc = api_request_reply_json(rq, 200, root);
	root = NULL;
out:
	cJSON_Delete(root);
	return rc;
}
