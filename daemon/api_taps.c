/*
 * GET /v1/taps: see api_taps.h.  A page is at most 10,000 rows, so it is
 * built in memory by one walk of the store (one short read transaction)
 * and sent as one buffer.
 */
#include "api_taps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_request.h"
#include "devid.h"
#include "metrics.h"
#include "store_taps.h"
#include "tapjson.h"

#define TAPS_LIMIT_DEFAULT 100
#define TAPS_LIMIT_MAX	   10000
#define TAPS_APP_MAX	   255

enum taps_format { FORMAT_JSON, FORMAT_NDJSON, FORMAT_CSV };

static const char *const params[] = {
	"app",	    "since", "until",  "kind", "status", "session",
	"after_id", "limit", "format", "with", NULL,
};

static const char *const formats[] = {"json", "ndjson", "csv", NULL};

/*
 * with=device: the device's identity (devid.h) on every tap, so that the
 * lines of many phones loaded into one table say whose they are.
 */
static const char *const withs[] = {"device", NULL};

/* The validated filters of one request. */
struct taps_query {
	const char *app;
	int kind, status;     /* enum store_kind or store_status, -1 for any */
	int64_t since, until; /* -1 when not set */
	int64_t session;      /* 0 when not set */
	int64_t after_id;
	int64_t limit;
	int format;
	int with;     /* -1, or 0 for with=device */
	char *device; /* with=device: the identity as JSON text */
};

/* Reads and checks every parameter; a bad one has its 400 queued. */
static int
read_query(struct api_request *rq, struct taps_query *q)
{
	int rc;

	q->app = NULL;
	q->kind = q->status = -1;
	q->since = q->until = -1;
	q->session = 0;
	q->after_id = 0;
	q->limit = TAPS_LIMIT_DEFAULT;
	q->format = FORMAT_JSON;
	q->with = -1;
	q->device = NULL;
	if ((rc = api_request_allow(rq, params)) < 0 ||
	    (rc = api_request_param_word(rq, "app", TAPS_APP_MAX, &q->app)) <
		    0 ||
	    (rc = api_request_param_time(rq, "since", &q->since)) < 0 ||
	    (rc = api_request_param_time(rq, "until", &q->until)) < 0 ||
	    (rc = api_request_param_enum(rq, "kind", store_kind_names,
					 &q->kind)) < 0 ||
	    (rc = api_request_param_enum(rq, "status", store_status_names,
					 &q->status)) < 0 ||
	    (rc = api_request_param_int(rq, "session", 1, INT64_MAX,
					&q->session)) < 0 ||
	    (rc = api_request_param_int(rq, "after_id", 0, INT64_MAX,
					&q->after_id)) < 0 ||
	    (rc = api_request_param_int(rq, "limit", 1, TAPS_LIMIT_MAX,
					&q->limit)) < 0 ||
	    (rc = api_request_param_enum(rq, "format", formats, &q->format)) <
		    0 ||
	    (rc = api_request_param_enum(rq, "with", withs, &q->with)) < 0)
		return rc;
	if (q->with == 0 && q->format == FORMAT_CSV) {
		api_request_reply_error(rq, 400, "bad_request",
					"with=device goes with format=json or "
					"ndjson");
		return -EINVAL;
	}
	if (q->since >= 0 && q->until >= 0)
		return api_request_check_range(rq, q->since, q->until);
	return 0;
}

/*
 * The store's filter of the query.  Times are those the parameters give;
 * a negative one, as -1, leaves its end open.
 */
static void
taps_filter(const struct taps_query *q, struct store_filter *f)
{
	store_filter_init(f);
	store_filter_app(f, q->app);
	if (q->kind >= 0)
		f->kinds = 1u << q->kind;
	if (q->status >= 0)
		f->status = store_status_names[q->status];
	f->session = q->session;
	f->after_id = q->after_id;
	if (q->since >= 0)
		f->since_ns = q->since;
	if (q->until >= 0)
		f->until_ns = q->until;
}

/* The page being written. */
struct taps_page {
	const struct taps_query *q;
	FILE *f;
	int64_t last_id, count;
	int more;
};

/* Writes one tap in the page's format. */
static int
write_tap(FILE *f, const struct taps_query *q, int64_t id,
	  const struct store_tap *tap, int first)
{
	cJSON *obj;
	char *text;

	if (q->format == FORMAT_CSV)
		return tapjson_csv_write(f, id, tap);
	obj = tapjson_new(id, tap);
	text = obj ? cJSON_PrintUnformatted(obj) : NULL;
	cJSON_Delete(obj);
	if (!text)
		return -ENOMEM;
	if (q->format == FORMAT_JSON && !first)
		fputc(',', f);
	if (q->device) {
		/* The object's closing brace, after the device. */
		fwrite(text, 1, strlen(text) - 1, f);
		fprintf(f, ",\"device\":%s}", q->device);
	} else {
		fputs(text, f);
	}
	if (q->format == FORMAT_NDJSON)
		fputc('\n', f);
	cJSON_free(text);
	return 0;
}

/*
 * Writes one row of the walk, which asks for one more than the page to
 * learn whether another follows.
 */
static int
taps_row(void *ctx, int64_t id, const struct store_tap *tap)
{
	struct taps_page *pg = ctx;
	int rc;

	if (pg->count == pg->q->limit) {
		pg->more = 1;
		return 1;
	}
	if ((rc = write_tap(pg->f, pg->q, id, tap, pg->count == 0)) < 0)
		return rc;
	pg->last_id = id;
	pg->count++;
	return 0;
}

/* The device's identity as one JSON object text ("null" when unknown). */
static int
device_text(struct api_request *rq, char **out)
{
	struct devid id;
	cJSON *obj = NULL;

	*out = NULL;
	if (metrics_device(api_request_metrics(rq), &id) == 0) {
		obj = cJSON_CreateObject();
		if (!obj || devid_to_json(&id, obj) < 0) {
			cJSON_Delete(obj);
			return -ENOMEM;
		}
	} else {
		obj = cJSON_CreateNull();
	}
	*out = obj ? cJSON_PrintUnformatted(obj) : NULL;
	cJSON_Delete(obj);
	return *out ? 0 : -ENOMEM;
}

int
api_taps_get(struct api_request *rq)
{
	static const char *const ctypes[] = {
		"application/json; charset=utf-8",
		"application/x-ndjson; charset=utf-8",
		"text/csv; charset=utf-8; header=present",
	};
	struct taps_query q;
	struct taps_page pg;
	struct store_filter filter;
	struct store *st = NULL;
	FILE *f = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if ((rc = read_query(rq, &q)) < 0)
		return rc;
	if (q.with == 0 && (rc = device_text(rq, &q.device)) < 0)
		return rc;
	taps_filter(&q, &filter);
	if ((rc = api_request_store(rq, &st)) < 0)
		goto out;
	f = open_memstream(&buf, &len);
	if (!f) {
		rc = -errno;
		goto out;
	}
	if (q.format == FORMAT_JSON)
		fputs("{\"taps\":[", f);
	else if (q.format == FORMAT_CSV)
		fputs(tapjson_csv_header(), f);
	memset(&pg, 0, sizeof(pg));
	pg.q = &q;
	pg.f = f;
	/* The read transaction ends with the walk, before the reply goes. */
	rc = store_taps_walk(st, &filter, STORE_ORDER_ID, q.limit + 1, taps_row,
			     &pg);
	if (rc < 0)
		goto out;
	if (q.format == FORMAT_JSON) {
		if (pg.more)
			fprintf(f, "],\"next_after_id\":%" PRId64, pg.last_id);
		else
			fputs("],\"next_after_id\":null", f);
		fprintf(f, ",\"count\":%" PRId64 "}", pg.count);
	}
	if (ferror(f)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = fclose(f) == 0 ? 0 : -ENOMEM;
	f = NULL;
	if (rc < 0)
		goto out;
	rc = api_request_reply_buffer(rq, 200, ctypes[q.format], buf, len);
	buf = NULL;
out:
	if (f)
		fclose(f);
	free(buf);
	cJSON_free(q.device);
	return rc;
}
