/*
 * libFuzzer target for what the API reads from the database: the store
 * makes a file with its real schema once, and the server is started over
 * it (127.0.0.1, port 0).  Each input empties the tables and fills them
 * with rows of its choosing, written with sqlite3 directly as another
 * writer (or a damaged file) could leave them: any bytes in the strings,
 * invalid UTF-8 and NULs included, extreme integers, NaN and infinite
 * coordinates, NULL wherever the schema allows it.  Then the read
 * endpoints it selects are asked, through the server, and every answer
 * must be a well-formed HTTP answer whose JSON (or NDJSON) cJSON parses;
 * the metrics seeded from those rows must render valid Prometheus text.
 *
 * The input: two bytes, the mask of the requests to send (the first four
 * it names; the top bit asks for the metrics), then rows, each introduced
 * by a byte saying which table it goes to.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "status.h"
#include "store.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROWS_MAX 64
#define STR_(x)	 #x
#define STR(x)	 STR_(x)

static const char *const requests[] = {
	"/v1/taps",
	"/v1/taps?format=ndjson",
	"/v1/taps?format=csv",
	"/v1/taps?limit=2&after_id=1&kind=tap",
	"/v1/taps?app=com.example.mail&since=0&until=9999999999",
	"/v1/percentiles",
	"/v1/percentiles?metric=settle&app=com.example.mail&p=1,50,99.99",
	"/v1/percentiles?since=0&until=9999999999&session=1",
	"/v1/apps",
	"/v1/apps?since=0&until=9999999999",
	"/v1/histogram",
	"/v1/histogram?metric=settle&since=0&until=9999999999&buckets=7",
	"/v1/trace?since=0&until=9999999999",
	"/v1/sessions",
	"/v1/health",
	"/v1/trace",
};

static struct {
	char dir[512], db[600];
	sqlite3 *w;
	struct api *api;
	struct status *status;
	uint16_t port;
	sqlite3_stmt *tap, *frame, *hist, *session, *run;
} fx;

static void
prepare(const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(fx.w, sql, -1, st, NULL) != SQLITE_OK)
		abort();
}

static void
cleanup(void)
{
	api_stop(fx.api);
	sqlite3_finalize(fx.tap);
	sqlite3_finalize(fx.frame);
	sqlite3_finalize(fx.hist);
	sqlite3_finalize(fx.session);
	sqlite3_finalize(fx.run);
	sqlite3_close(fx.w);
	status_free(fx.status);
	fuzz_rmtree(fx.dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct api_config cfg;
	struct store *st = NULL;

	(void)argc;
	(void)argv;
	log_init(NULL, LOG_LEVEL_ERROR);
	fuzz_tmpdir(fx.dir, sizeof(fx.dir), "dbrows");
	snprintf(fx.db, sizeof(fx.db), "%s/taps.db", fx.dir);
	/* The store writes the schema, then hands the file over. */
	if (store_open(fx.db, 0, &st) != 0)
		abort();
	store_close(st);
	if (sqlite3_open_v2(fx.db, &fx.w, SQLITE_OPEN_READWRITE, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(fx.w,
			 "PRAGMA busy_timeout = 5000; PRAGMA synchronous = OFF",
			 NULL, NULL, NULL) != SQLITE_OK)
		abort();
	prepare("INSERT INTO taps (id, run, session, app, pid, kind, status,"
		" flags, t_down_ns, t_up_ns, wall_ns, x, y, first_frame_ns,"
		" settle_ns, frames, jank) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
		" ?, ?, ?, ?, ?, ?, ?, ?)",
		&fx.tap);
	prepare("INSERT OR IGNORE INTO tap_frames (tap_id, seq, start_ns,"
		" present_ns, jank, in_burst) VALUES (?, ?, ?, ?, ?, ?)",
		&fx.frame);
	prepare("INSERT OR IGNORE INTO tap_hist (app, metric, span, minute,"
		" bucket, count) VALUES (?, ?, ?, ?, ?, ?)",
		&fx.hist);
	prepare("INSERT OR IGNORE INTO sessions (id, name, started_ns,"
		" stopped_ns) VALUES (?, ?, ?, ?)",
		&fx.session);
	prepare("INSERT OR IGNORE INTO runs (id, mode, source, started_ns,"
		" ended_ns, stats) VALUES (?, ?, ?, ?, ?, ?)",
		&fx.run);
	if (status_new("serve", &fx.status) != 0)
		abort();
	api_config_default(&cfg);
	cfg.listen = "127.0.0.1:0";
	cfg.db_path = fx.db;
	cfg.pool_size = 2;
	cfg.timeout_s = 2;
	cfg.status = fx.status;
	if (api_start(&cfg, &fx.api) != 0)
		abort();
	fx.port = api_port(fx.api);
	atexit(cleanup);
	return 0;
}

/* An integer of the kind the selector byte asks for. */
static int64_t
number(struct fuzz_in *in)
{
	static const int64_t extremes[] = {INT64_MIN,
					   INT64_MIN + 1,
					   -1,
					   0,
					   1,
					   INT64_MAX - 1,
					   INT64_MAX,
					   INT32_MAX,
					   INT32_MIN,
					   (int64_t)1e18,
					   (int64_t)9e15,
					   -(int64_t)1e9};
	uint8_t sel = fuzz_u8(in);

	switch (sel & 3) {
	case 0:
		return (int16_t)fuzz_u16(in);
	case 1:
		return (int64_t)fuzz_u64(in);
	case 2:
		return extremes[(sel >> 2) %
				(sizeof(extremes) / sizeof(extremes[0]))];
	default:
		/* Plausible nanoseconds: around 2026 for wall times. */
		return INT64_C(1796103474000000000) +
		       (int64_t)(int32_t)fuzz_u32(in) * 1000;
	}
}

/* Binds an integer, or NULL when the selector's top bit says so. */
static void
bind_number(sqlite3_stmt *st, int col, struct fuzz_in *in, int nullable)
{
	if (nullable && in->left > 0 && (in->p[0] & 0x80)) {
		fuzz_u8(in);
		sqlite3_bind_null(st, col);
		return;
	}
	sqlite3_bind_int64(st, col, number(in));
}

/* A string: NULL, a usual one, or up to 63 bytes of the input. */
static void
bind_string(sqlite3_stmt *st, int col, struct fuzz_in *in, int nullable)
{
	static const char *const usual[] = {"com.example.mail", "*", "",
					    "com.example.maps"};
	uint8_t sel = fuzz_u8(in);
	size_t n;

	if (sel < 0x40) {
		sqlite3_bind_text(st, col, usual[sel & 3], -1, SQLITE_STATIC);
	} else if (sel < 0x50 && nullable) {
		sqlite3_bind_null(st, col);
	} else {
		n = sel & 63;
		if (n > in->left)
			n = in->left;
		sqlite3_bind_text(st, col, (const char *)in->p, (int)n,
				  SQLITE_TRANSIENT);
		in->p += n;
		in->left -= n;
	}
}

static void
bind_double(sqlite3_stmt *st, int col, struct fuzz_in *in)
{
	uint64_t bits;
	double d;
	uint8_t sel = fuzz_u8(in);

	switch (sel & 3) {
	case 0:
		sqlite3_bind_null(st, col);
		return;
	case 1:
		bits = fuzz_u64(in);
		memcpy(&d, &bits, sizeof(d));
		break;
	case 2:
		d = (sel & 4) ? INFINITY : -HUGE_VAL;
		break;
	default:
		d = (int16_t)fuzz_u16(in) / 4.0;
		break;
	}
	sqlite3_bind_double(st, col, d);
}

static void
step(sqlite3_stmt *st)
{
	/* A row the schema's CHECKs refuse is simply not there. */
	(void)sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

static void
fill(struct fuzz_in *in)
{
	unsigned rows = 0;
	uint8_t table;

	while (in->left > 0 && rows++ < ROWS_MAX) {
		table = fuzz_u8(in);
		switch (table % 8) {
		case 0:
		case 1:
		case 2:
		case 3:
			sqlite3_bind_int64(fx.tap, 1, 1 + (table >> 3));
			sqlite3_bind_int64(fx.tap, 2, 1);
			if (table & 0x80)
				sqlite3_bind_null(fx.tap, 3);
			else
				sqlite3_bind_int64(fx.tap, 3,
						   1 + ((table >> 3) & 3));
			bind_string(fx.tap, 4, in, 1);
			bind_number(fx.tap, 5, in, 1);
			sqlite3_bind_text(fx.tap, 6,
					  store_kind_names[fuzz_u8(in) % 4], -1,
					  SQLITE_STATIC);
			sqlite3_bind_text(fx.tap, 7,
					  store_status_names[fuzz_u8(in) % 5],
					  -1, SQLITE_STATIC);
			bind_number(fx.tap, 8, in, 0);
			bind_number(fx.tap, 9, in, 0);
			bind_number(fx.tap, 10, in, 0);
			bind_number(fx.tap, 11, in, 1);
			bind_double(fx.tap, 12, in);
			bind_double(fx.tap, 13, in);
			bind_number(fx.tap, 14, in, 1);
			bind_number(fx.tap, 15, in, 1);
			bind_number(fx.tap, 16, in, 0);
			bind_number(fx.tap, 17, in, 0);
			step(fx.tap);
			break;
		case 4:
			sqlite3_bind_int64(fx.frame, 1, 1 + (table >> 3));
			sqlite3_bind_int64(fx.frame, 2, fuzz_u8(in));
			bind_number(fx.frame, 3, in, 0);
			bind_number(fx.frame, 4, in, 0);
			bind_number(fx.frame, 5, in, 0);
			bind_number(fx.frame, 6, in, 0);
			step(fx.frame);
			break;
		case 5:
			bind_string(fx.hist, 1, in, 0);
			sqlite3_bind_int64(fx.hist, 2, (table >> 3) & 1);
			sqlite3_bind_int64(fx.hist, 3,
					   (table & 0x40)   ? 1440
					   : (table & 0x20) ? 60
							    : 1);
			bind_number(fx.hist, 4, in, 0);
			bind_number(fx.hist, 5, in, 0);
			bind_number(fx.hist, 6, in, 0);
			step(fx.hist);
			break;
		case 6:
			sqlite3_bind_int64(fx.session, 1,
					   1 + ((table >> 3) & 3));
			bind_string(fx.session, 2, in, 0);
			bind_number(fx.session, 3, in, 0);
			bind_number(fx.session, 4, in, 1);
			step(fx.session);
			break;
		default:
			sqlite3_bind_int64(fx.run, 1, 1 + ((table >> 3) & 1));
			sqlite3_bind_text(fx.run, 2,
					  (table & 0x80) ? "live" : "replay",
					  -1, SQLITE_STATIC);
			bind_string(fx.run, 3, in, 1);
			bind_number(fx.run, 4, in, 0);
			bind_number(fx.run, 5, in, 1);
			bind_string(fx.run, 6, in, 1);
			step(fx.run);
			break;
		}
	}
}

/* Sets *ctx when the query returns a row. */
static int
found(void *ctx, int ncols, char **vals, char **names)
{
	(void)ncols;
	(void)vals;
	(void)names;
	*(int *)ctx = 1;
	return 0;
}

/* The metrics seeded from the rows, as tapd serve does. */
static void
check_metrics(void)
{
	struct metrics *m = NULL;
	struct store *st = NULL;
	char *text = NULL;
	size_t len = 0;

	if (store_open(fx.db, STORE_OPEN_READONLY, &st) != 0)
		abort();
	if (metrics_new(&m) != 0)
		abort();
	if (metrics_load(m, st) == 0) {
		if (metrics_render(m, NULL, &text, &len) != 0)
			abort();
		fuzz_check_prometheus(text, len);
		free(text);
	}
	metrics_free(m);
	store_close(st);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	struct fuzz_reply r;
	char req[512];
	unsigned mask = fuzz_u16(&in), i, sent = 0;
	int n, refused = 0;

	if (sqlite3_exec(fx.w,
			 "BEGIN; DELETE FROM tap_frames; DELETE FROM tap_hist;"
			 " DELETE FROM taps; DELETE FROM sessions;"
			 " DELETE FROM runs;",
			 NULL, NULL, NULL) != SQLITE_OK)
		abort();
	fill(&in);
	if (sqlite3_exec(fx.w, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		abort();
	/*
	 * The readers refuse, with a 500, tap_hist rows no device could
	 * write (store_query.c): with those, a 500 is the right answer.
	 */
	if (sqlite3_exec(fx.w,
			 "SELECT 1 FROM tap_hist WHERE bucket < 0 OR"
			 " bucket >= " STR(
				 STORE_HIST_BUCKETS) " OR count < 0 OR count > "
						     "1000000000000 LIMIT 1",
			 found, &refused, NULL) != SQLITE_OK)
		abort();
	for (i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		/* A few at a time: each costs a connection and a thread. */
		if (!(mask & (1u << i)) || sent == 4)
			continue;
		sent++;
		n = snprintf(req, sizeof(req),
			     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			     "Connection: close\r\n\r\n",
			     requests[i]);
		if (n < 0 || (size_t)n >= sizeof(req))
			abort();
		if (fuzz_http(fx.port, req, (size_t)n, 0, 0, 8000, &r) != 0) {
			fprintf(stderr, "no answer to %s\n", requests[i]);
			abort();
		}
		/* Otherwise a read must not fail: the rows are all legal. */
		if (r.status >= 500 && !refused) {
			fprintf(stderr, "%s: %d %s\n", requests[i], r.status,
				r.body);
			abort();
		}
		fuzz_check_reply(&r, 0, 0);
		fuzz_reply_free(&r);
	}
	if (mask & 0x8000u)
		check_metrics();
	return 0;
}
