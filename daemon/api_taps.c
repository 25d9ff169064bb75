/*
 * GET /v1/taps: see api_taps.h.  A page is at most 10,000 rows, so it is
 * built in memory by one statement (one short read transaction) and sent
 * as one buffer.
 */
#include "api_taps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_request.h"
#include "log.h"
#include "tapjson.h"

#define TAPS_LIMIT_DEFAULT 100
#define TAPS_LIMIT_MAX	   10000
#define TAPS_APP_MAX	   255

enum taps_format { FORMAT_JSON, FORMAT_NDJSON, FORMAT_CSV };

static const char *const params[] = {
	"app",	   "since",    "until", "kind",	  "status",
	"session", "after_id", "limit", "format", NULL,
};

static const char *const kinds[] = {"tap", "long_press", "swipe", "multi",
				    NULL};
static const char *const statuses[] = {
	"ok",		"no_response", "truncated", "frames_unavailable",
	"not_measured", NULL,
};
static const char *const formats[] = {"json", "ndjson", "csv", NULL};

/* The validated filters of one request. */
struct taps_query {
	const char *app;
	int kind, status;     /* index in kinds[] or statuses[], -1 for any */
	int64_t since, until; /* -1 when not set */
	int64_t session;      /* 0 when not set */
	int64_t after_id;
	int64_t limit;
	int format;
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
	if ((rc = api_request_allow(rq, params)) < 0 ||
	    (rc = api_request_param_word(rq, "app", TAPS_APP_MAX, &q->app)) <
		    0 ||
	    (rc = api_request_param_time(rq, "since", &q->since)) < 0 ||
	    (rc = api_request_param_time(rq, "until", &q->until)) < 0 ||
	    (rc = api_request_param_enum(rq, "kind", kinds, &q->kind)) < 0 ||
	    (rc = api_request_param_enum(rq, "status", statuses, &q->status)) <
		    0 ||
	    (rc = api_request_param_int(rq, "session", 1, INT64_MAX,
					&q->session)) < 0 ||
	    (rc = api_request_param_int(rq, "after_id", 0, INT64_MAX,
					&q->after_id)) < 0 ||
	    (rc = api_request_param_int(rq, "limit", 1, TAPS_LIMIT_MAX,
					&q->limit)) < 0 ||
	    (rc = api_request_param_enum(rq, "format", formats, &q->format)) <
		    0)
		return rc;
	if (q->since >= 0 && q->until >= 0)
		return api_request_check_range(rq, q->since, q->until);
	return 0;
}

/*
 * The statement text for the filters that are set, from constant pieces
 * only: every value is bound.  The page walks the table in id order and
 * stops after limit + 1 matches, one more than the page to learn whether
 * another follows.  The unary '+' keeps the planner from serving app,
 * kind, status or wall_ns from an index ordered by something else, which
 * would sort every match on every page: walking ids from after_id costs
 * the rows up to the page's end instead.  A session is short, and its
 * partial index lists its rows in id order, so that one may use it.
 */
static int
build_sql(const struct taps_query *q, char *sql, size_t size)
{
	int n;

	n = snprintf(sql, size,
		     "SELECT " TAPJSON_COLUMNS " FROM taps WHERE id > ?1"
		     "%s%s%s%s%s%s ORDER BY id LIMIT ?8",
		     q->app ? " AND +app = ?2" : "",
		     q->kind >= 0 ? " AND +kind = ?3" : "",
		     q->status >= 0 ? " AND +status = ?4" : "",
		     q->session > 0 ? " AND session = ?5" : "",
		     q->since >= 0 ? " AND +wall_ns >= ?6" : "",
		     q->until >= 0 ? " AND +wall_ns <= ?7" : "");
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return 0;
}

static int
bind_query(sqlite3_stmt *stmt, const struct taps_query *q)
{
	int rc;

	rc = sqlite3_bind_int64(stmt, 1, q->after_id);
	if (rc == SQLITE_OK && q->app)
		rc = sqlite3_bind_text(stmt, 2, q->app, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK && q->kind >= 0)
		rc = sqlite3_bind_text(stmt, 3, kinds[q->kind], -1,
				       SQLITE_STATIC);
	if (rc == SQLITE_OK && q->status >= 0)
		rc = sqlite3_bind_text(stmt, 4, statuses[q->status], -1,
				       SQLITE_STATIC);
	if (rc == SQLITE_OK && q->session > 0)
		rc = sqlite3_bind_int64(stmt, 5, q->session);
	if (rc == SQLITE_OK && q->since >= 0)
		rc = sqlite3_bind_int64(stmt, 6, q->since);
	if (rc == SQLITE_OK && q->until >= 0)
		rc = sqlite3_bind_int64(stmt, 7, q->until);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 8, q->limit + 1);
	return rc;
}

static int
errno_of_sqlite(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return -EIO;
	default:
		return -EIO;
	}
}

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
	fputs(text, f);
	if (q->format == FORMAT_NDJSON)
		fputc('\n', f);
	cJSON_free(text);
	return 0;
}

int
api_taps_get(struct api_request *rq)
{
	static const char *const ctypes[] = {
		"application/json",
		"application/x-ndjson",
		"text/csv; charset=utf-8; header=present",
	};
	struct taps_query q;
	struct store_tap tap;
	sqlite3_stmt *stmt = NULL;
	sqlite3 *db = NULL;
	FILE *f = NULL;
	char *buf = NULL;
	char sql[512];
	size_t len = 0;
	int64_t id, last_id = 0, count = 0;
	int more = 0, rc, src;

	if ((rc = read_query(rq, &q)) < 0)
		return rc;
	if ((rc = build_sql(&q, sql, sizeof(sql))) < 0)
		goto out;
	if ((rc = api_request_db(rq, &db)) < 0)
		goto out;
	src = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
	if (src == SQLITE_OK)
		src = bind_query(stmt, &q);
	if (src != SQLITE_OK) {
		log_warnx("cannot query taps: %s", sqlite3_errmsg(db));
		rc = errno_of_sqlite(src);
		goto out;
	}
	f = open_memstream(&buf, &len);
	if (!f) {
		rc = -errno;
		goto out;
	}
	if (q.format == FORMAT_JSON)
		fputs("{\"taps\":[", f);
	else if (q.format == FORMAT_CSV)
		fputs(tapjson_csv_header(), f);
	while ((src = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (count == q.limit) {
			more = 1;
			break;
		}
		if ((rc = tapjson_row(stmt, &id, &tap)) < 0 ||
		    (rc = write_tap(f, &q, id, &tap, count == 0)) < 0)
			goto out;
		last_id = id;
		count++;
	}
	if (src != SQLITE_ROW && src != SQLITE_DONE) {
		log_warnx("cannot read taps: %s", sqlite3_errmsg(db));
		rc = errno_of_sqlite(src);
		goto out;
	}
	/* The read transaction ends here, before the reply goes out. */
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (q.format == FORMAT_JSON) {
		if (more)
			fprintf(f, "],\"next_after_id\":%" PRId64, last_id);
		else
			fputs("],\"next_after_id\":null", f);
		fprintf(f, ",\"count\":%" PRId64 "}", count);
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
	sqlite3_finalize(stmt);
	return rc;
}
