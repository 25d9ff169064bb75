/*
 * libFuzzer target for the API's request handling, through the real
 * server: two of them are started once, on 127.0.0.1 with port 0, over a
 * database with a few taps and sessions, with an event stream holding a
 * few events and a writer thread that serves POST /v1/sessions; one asks
 * for no token, the other for a bearer token.  Each input becomes one
 * HTTP request sent over a loopback socket, and the whole answer is read
 * and checked (http.h): a well-formed HTTP answer, and JSON that cJSON
 * parses wherever the type says JSON.
 *
 * The input: a byte of method and flags, a byte choosing the route, then
 * up to four fields separated by newlines: the query string (bytes that
 * cannot stand in a request line are sent percent-encoded), Last-Event-ID,
 * Authorization and the body.  With the top bit of the first byte, the
 * rest is sent as it is, a raw request, and the socket half-closed.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"
#include "control.h"
#include "events.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "status.h"
#include "store.h"
#include "store_sql.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TOKEN "fuzz-token-0123456789abcdef"
/* The taps the database holds, ids 1 to TAPS. */
#define TAPS 40
#define S    INT64_C(1000000000)

static const char *const methods[] = {"GET", "HEAD",   "POST",	  "GET",
				      "PUT", "DELETE", "OPTIONS", "GET"};
static const char *const routes[] = {"/v1/health",
				     "/v1/taps",
				     "/v1/percentiles",
				     "/v1/apps",
				     "/v1/histogram",
				     "/v1/trace",
				     "/v1/events",
				     "/v1/sessions",
				     "/v1/sessions/1/stop",
				     "/metrics",
				     "/v1/sessions/2/stop",
				     "/v1/sessions/99/stop",
				     "/v1/taps",
				     "/v1/percentiles",
				     "/v1/nothing",
				     "/v1/sessions/0/stop"};

static struct {
	char dir[512], db[600], token[600];
	struct store *writer;
	struct control *control;
	struct events *events;
	struct status *status;
	struct metrics *metrics;
	struct api *open, *locked;
	uint16_t open_port, locked_port;
	pthread_t thread;
	int stop;
} fx;

/* The ingest thread's side of the sessions API. */
static void
serve(void *ctx, struct control_request *req)
{
	sqlite3 *db = store__sqlite(fx.writer);

	(void)ctx;
	switch (req->op) {
	case CONTROL_SESSION_START:
		/* The fuzzer starts many: keep the first few only. */
		sqlite3_exec(db,
			     "DELETE FROM sessions WHERE id > 3 AND"
			     " (SELECT count(*) FROM sessions) > 32",
			     NULL, NULL, NULL);
		req->rc =
			store_session_start(fx.writer, req->name,
					    &req->result_id, &req->started_ns);
		break;
	case CONTROL_SESSION_STOP:
		req->rc = store_session_stop(fx.writer, req->id,
					     &req->stopped_ns);
		req->result_id = req->id;
		break;
	}
}

static void *
ingest(void *arg)
{
	struct pollfd p;

	(void)arg;
	while (!__atomic_load_n(&fx.stop, __ATOMIC_ACQUIRE)) {
		p.fd = control_fd(fx.control);
		p.events = POLLIN;
		if (poll(&p, 1, 20) == 1)
			control_serve(fx.control, serve, NULL);
	}
	return NULL;
}

/* A few taps of every kind and status, and two sessions. */
static void
fill(struct store *st)
{
	static const char *const apps[] = {"com.example.mail", NULL,
					   "com.example.maps"};
	struct store_frame fr[2] = {{100, 200, 0, 1}, {300, 400, 2, 0}};
	struct store_tap t;
	int64_t run, sess;
	int i;

	if (store_begin_run(st, "replay", "fuzz", &run) != 0 ||
	    store_session_start(st, "first", &sess, NULL) != 0 ||
	    store_session_start(st, "second", &sess, NULL) != 0 ||
	    store_session_stop(st, 1, NULL) != 0)
		abort();
	for (i = 0; i < TAPS; i++) {
		memset(&t, 0, sizeof(t));
		t.app = apps[i % 3];
		t.pid = i % 3 == 1 ? 0 : 1000 + i;
		t.kind = store_kind_names[i % STORE_KIND_COUNT];
		t.status = i % STORE_KIND_COUNT >= 2
				   ? "not_measured"
				   : store_status_names[i % 4];
		t.flags = (unsigned)i & 15;
		t.t_down_ns = i * S;
		t.t_up_ns = i * S + 80000000;
		t.wall_ns = i % 7 == 6 ? -1 : INT64_C(1796103474) * S + i * S;
		t.x = i * 10.5;
		t.y = i * 20.25;
		t.first_frame_ns =
			strcmp(t.status, "ok") == 0 ? 20000000 + i : -1;
		t.settle_ns = t.first_frame_ns >= 0 ? 90000000 + i : -1;
		t.frames = t.first_frame_ns >= 0 ? 2 : 0;
		t.jank = (uint32_t)i;
		t.session = i % 5 == 0 ? 1 : i % 5 == 1 ? 2 : 0;
		if (store_insert(st, &t, t.frames ? fr : NULL, (size_t)t.frames,
				 NULL) != 0)
			abort();
	}
	if (store_commit(st) != 0 || store_end_run(st, NULL) != 0)
		abort();
}

static void
cleanup(void)
{
	api_stop(fx.open);
	api_stop(fx.locked);
	__atomic_store_n(&fx.stop, 1, __ATOMIC_RELEASE);
	pthread_join(fx.thread, NULL);
	control_free(fx.control);
	store_close(fx.writer);
	events_free(fx.events);
	status_free(fx.status);
	metrics_free(fx.metrics);
	fuzz_rmtree(fx.dir);
}

static struct api *
start(const char *token, uint16_t *port)
{
	struct api_config cfg;
	struct api *api = NULL;

	api_config_default(&cfg);
	cfg.listen = "127.0.0.1:0";
	cfg.db_path = fx.db;
	cfg.pool_size = 2;
	cfg.timeout_s = 2;
	cfg.token_file = token;
	cfg.status = fx.status;
	cfg.events = fx.events;
	cfg.control = fx.control;
	cfg.metrics = fx.metrics;
	if (api_start(&cfg, &api) != 0)
		abort();
	*port = api_port(api);
	return api;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct store *ro = NULL;
	int i;

	(void)argc;
	(void)argv;
	log_init(NULL, LOG_LEVEL_ERROR);
	fuzz_tmpdir(fx.dir, sizeof(fx.dir), "http");
	snprintf(fx.db, sizeof(fx.db), "%s/taps.db", fx.dir);
	snprintf(fx.token, sizeof(fx.token), "%s/token", fx.dir);
	fuzz_write(fx.token, TOKEN "\n", strlen(TOKEN) + 1);
	if (store_open(fx.db, 0, &fx.writer) != 0)
		abort();
	fill(fx.writer);
	/* The streams would wait 15 s for their first ping. */
	setenv("TAPD_SSE_PING_MS", "100", 1);
	if (status_new("live", &fx.status) != 0 ||
	    events_new(8, &fx.events) != 0 || control_new(&fx.control) != 0 ||
	    metrics_new(&fx.metrics) != 0)
		abort();
	/* The ring holds the newest stored taps, under their ids. */
	for (i = 0; i < 5; i++) {
		char ev[64];

		snprintf(ev, sizeof(ev), "{\"id\":%d,\"kind\":\"tap\"}",
			 TAPS - 4 + i);
		if (events_publish(fx.events, TAPS - 4 + i, ev) != 0)
			abort();
	}
	if (store_open(fx.db, STORE_OPEN_READONLY, &ro) != 0 ||
	    metrics_load(fx.metrics, ro) != 0)
		abort();
	store_close(ro);
	if (pthread_create(&fx.thread, NULL, ingest, NULL) != 0)
		abort();
	fx.open = start(NULL, &fx.open_port);
	fx.locked = start(fx.token, &fx.locked_port);
	atexit(cleanup);
	return 0;
}

/* Appends to a growing request buffer. */
struct buf {
	char *p;
	size_t len, cap;
};

static void
put(struct buf *b, const void *data, size_t len)
{
	char *q;

	if (b->len + len + 1 > b->cap) {
		b->cap = (b->len + len + 1) * 2;
		q = realloc(b->p, b->cap);
		if (!q)
			abort();
		b->p = q;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = '\0';
}

static void
puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* The next field, up to a newline or the end. */
static const uint8_t *
field(struct fuzz_in *in, size_t *len)
{
	const uint8_t *p = in->p, *nl = memchr(p, '\n', in->left);
	size_t n = nl ? (size_t)(nl - p) : in->left;

	*len = n;
	in->p += n + (nl ? 1 : 0);
	in->left -= n + (nl ? 1 : 0);
	return p;
}

/* A header value with no CR (the newlines were the separators). */
static void
put_header(struct buf *b, const char *name, const uint8_t *v, size_t n)
{
	size_t i;

	puts_(b, name);
	puts_(b, ": ");
	for (i = 0; i < n; i++)
		if (v[i] != '\r')
			put(b, v + i, 1);
	puts_(b, "\r\n");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	struct fuzz_reply r;
	struct buf b = {NULL, 0, 0};
	const uint8_t *q, *last, *auth, *body;
	size_t qn, lastn, authn, bodyn, i;
	uint8_t b0 = fuzz_u8(&in), b1 = fuzz_u8(&in);
	const char *method = methods[b0 & 7];
	int locked = (b0 & 0x40) != 0, raw = (b0 & 0x80) != 0, rc, head;
	uint16_t port = locked ? fx.locked_port : fx.open_port;
	char num[32];

	if (raw) {
		rc = fuzz_http(port, (const char *)in.p, in.left, 1, 150, 8000,
			       &r);
		if (rc == 0) {
			head = strncmp((const char *)in.p, "HEAD", 4) == 0;
			fuzz_check_reply(&r, head, 1);
			fuzz_reply_free(&r);
		}
		return 0;
	}
	q = field(&in, &qn);
	last = field(&in, &lastn);
	auth = field(&in, &authn);
	body = in.p;
	bodyn = in.left;
	puts_(&b, method);
	puts_(&b, " ");
	puts_(&b, routes[b1 % (sizeof(routes) / sizeof(routes[0]))]);
	if (qn > 0 || (b0 & 0x08))
		puts_(&b, "?");
	for (i = 0; i < qn; i++) {
		if (q[i] <= 0x20 || q[i] >= 0x7f || q[i] == '#') {
			snprintf(num, sizeof(num), "%%%02X", q[i]);
			puts_(&b, num);
		} else {
			put(&b, q + i, 1);
		}
	}
	puts_(&b, " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
	if (lastn > 0 || (b0 & 0x10))
		put_header(&b, "Last-Event-ID", last, lastn);
	if (authn > 0)
		put_header(&b, "Authorization", auth, authn);
	else if (locked && (b0 & 0x20))
		puts_(&b, "Authorization: Bearer " TOKEN "\r\n");
	if (bodyn > 0 || strcmp(method, "POST") == 0) {
		snprintf(num, sizeof(num), "%zu", bodyn);
		puts_(&b, "Content-Type: application/json\r\nContent-Length: ");
		puts_(&b, num);
		puts_(&b, "\r\n");
	}
	puts_(&b, "\r\n");
	put(&b, body, bodyn);
	rc = fuzz_http(port, b.p, b.len, 0, 150, 8000, &r);
	/* A whole, well-formed request always gets an answer. */
	if (rc != 0) {
		fprintf(stderr, "no answer to: %.300s\n", b.p);
		abort();
	}
	fuzz_check_reply(&r, strcmp(method, "HEAD") == 0, 0);
	fuzz_reply_free(&r);
	free(b.p);
	return 0;
}
