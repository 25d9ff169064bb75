/*
 * Tests of the HTTP server through real sockets on 127.0.0.1 with port 0:
 * routing and its JSON errors, the headers every reply carries, body
 * limits, parameters, bearer auth, the refusals of api_start, sessions
 * started through a control served by another thread (the ingest thread
 * of tapd run), and the event stream: tap ids as event ids, its pings,
 * Last-Event-ID answered from the database (a reader the ring left
 * behind too, deleted taps called missed, a server without a ring
 * polling the file), and its end at shutdown.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "api.h"
#include "api_request.h"
#include "control.h"
#include "events.h"
#include "fixture.h"
#include "log.h"
#include "status.h"
#include "store.h"
#include "store_sql.h"
#include "store_taps.h"
#include "tapjson.h"

static char db_path[600];

/* A database of 5 taps, one of them in a session. */
static int
group_setup(void **state)
{
	struct store *w = NULL;
	int n, rc;

	if (fixture_group_setup(state) != 0)
		return -1;
	n = snprintf(db_path, sizeof(db_path), "%s/taps.db", fixture_dir());
	if (n < 0 || (size_t)n >= sizeof(db_path) ||
	    store_open(db_path, 0, &w) != 0)
		return -1;
	rc = sqlite3_exec(
		store__sqlite(w),
		"INSERT INTO sessions (name, started_ns, stopped_ns)"
		" VALUES ('old', 1796103474000000000, 1796103475000000000);"
		"INSERT INTO taps (kind, status, t_down_ns, t_up_ns, session)"
		" VALUES ('tap', 'ok', 1, 2, 1), ('tap', 'ok', 3, 4, NULL),"
		" ('tap', 'ok', 5, 6, NULL), ('swipe', 'ok', 7, 8, NULL),"
		" ('tap', 'no_response', 9, 10, NULL);",
		NULL, NULL, NULL);
	store_close(w);
	return rc == SQLITE_OK ? 0 : -1;
}

/* One HTTP exchange, read to the end. */
struct reply {
	int status;
	char head[4096]; /* status line and headers */
	char *body;
	size_t len;
};

static int
connect_to(uint16_t port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct timeval tv = {.tv_sec = 5};
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

static void
send_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, data, len, MSG_NOSIGNAL);
		if (n <= 0)
			return; /* the server may close early; read what it said
				 */
		data += n;
		len -= (size_t)n;
	}
}

/* Reads to EOF and splits the reply. */
static void
read_reply(int fd, struct reply *r)
{
	char *buf = NULL, *end;
	size_t len = 0, cap = 0;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
		n = recv(fd, buf + len, cap - len, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	assert_non_null(buf);
	buf[len] = '\0';
	end = strstr(buf, "\r\n\r\n");
	assert_non_null(end);
	assert_true((size_t)(end - buf) < sizeof(r->head));
	memcpy(r->head, buf, (size_t)(end - buf) + 2);
	r->head[end - buf + 2] = '\0';
	assert_int_equal(sscanf(buf, "HTTP/1.1 %d", &r->status), 1);
	r->len = len - (size_t)(end + 4 - buf);
	r->body = malloc(r->len + 1);
	assert_non_null(r->body);
	memcpy(r->body, end + 4, r->len);
	r->body[r->len] = '\0';
	free(buf);
}

/*
 * Sends method path with extra header lines (each ending in \r\n) and a
 * body, and reads the reply.
 */
static void
http(uint16_t port, const char *method, const char *path, const char *extra,
     const char *body, struct reply *r)
{
	char head[2048];
	int fd, n;

	n = snprintf(head, sizeof(head),
		     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		     "Connection: close\r\n%s",
		     method, path, extra ? extra : "");
	assert_true(n > 0 && (size_t)n < sizeof(head));
	if (body)
		n += snprintf(head + n, sizeof(head) - (size_t)n,
			      "Content-Length: %zu\r\n", strlen(body));
	n += snprintf(head + n, sizeof(head) - (size_t)n, "\r\n");
	fd = connect_to(port);
	send_all(fd, head, (size_t)n);
	if (body)
		send_all(fd, body, strlen(body));
	read_reply(fd, r);
}

/* The value of a header of r, or NULL (names are case-insensitive). */
static const char *
header(struct reply *r, const char *name, char *buf, size_t size)
{
	const char *p = r->head;
	size_t nlen = strlen(name);
	const char *eol;

	while ((p = strstr(p, "\r\n")) != NULL) {
		p += 2;
		if (strncasecmp(p, name, nlen) == 0 && p[nlen] == ':') {
			p += nlen + 1;
			while (*p == ' ')
				p++;
			eol = strstr(p, "\r\n");
			snprintf(buf, size, "%.*s", (int)(eol - p), p);
			return buf;
		}
	}
	return NULL;
}

/* Checks a JSON error reply: status, code, JSON type and no caching. */
static void
expect_error(struct reply *r, int status, const char *code)
{
	cJSON *doc, *err;
	char buf[128];

	if (r->status != status)
		fail_msg("expected %d, got %d: %s", status, r->status, r->body);
	assert_non_null(header(r, "Content-Type", buf, sizeof(buf)));
	assert_string_equal(buf, "application/json; charset=utf-8");
	assert_non_null(header(r, "Cache-Control", buf, sizeof(buf)));
	assert_string_equal(buf, "no-store");
	doc = cJSON_Parse(r->body);
	assert_non_null(doc);
	err = cJSON_GetObjectItemCaseSensitive(doc, "error");
	assert_true(cJSON_IsObject(err));
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(err, "code")->valuestring,
		code);
	assert_true(cJSON_IsString(
		cJSON_GetObjectItemCaseSensitive(err, "message")));
	cJSON_Delete(doc);
	free(r->body);
	r->body = NULL;
}

/* The writer side of tapd run: serves control requests with a store. */
struct ingest {
	struct control *control;
	struct store *store;
	pthread_t thread;
	int stop;
};

static void
ingest_serve(void *ctx, struct control_request *req)
{
	struct ingest *in = ctx;

	switch (req->op) {
	case CONTROL_SESSION_START:
		req->rc =
			store_session_start(in->store, req->name,
					    &req->result_id, &req->started_ns);
		break;
	case CONTROL_SESSION_STOP:
		req->rc = store_session_stop(in->store, req->id,
					     &req->stopped_ns);
		req->result_id = req->id;
		break;
	}
}

static void *
ingest_main(void *arg)
{
	struct ingest *in = arg;
	struct pollfd p;

	while (!__atomic_load_n(&in->stop, __ATOMIC_ACQUIRE)) {
		p.fd = control_fd(in->control);
		p.events = POLLIN;
		if (poll(&p, 1, 20) == 1)
			control_serve(in->control, ingest_serve, in);
	}
	return NULL;
}

/* A server as tapd run would start it, with events and a control. */
struct server {
	struct api *api;
	struct status *status;
	struct events *events;
	struct ingest ingest;
	uint16_t port;
};

static int
server_setup(void **state)
{
	struct server *f = calloc(1, sizeof(*f));
	struct api_config cfg;

	if (!f || status_new("live", &f->status) != 0 ||
	    events_new(16, &f->events) != 0 ||
	    control_new(&f->ingest.control) != 0 ||
	    store_open(db_path, 0, &f->ingest.store) != 0)
		return -1;
	if (pthread_create(&f->ingest.thread, NULL, ingest_main, &f->ingest) !=
	    0)
		return -1;
	status_set_source(f->status, STATUS_SOURCE_INPUT, STATUS_HEALTH_UP,
			  "getevent", "'%s'", "input.getevent");
	setenv("TAPD_SSE_PING_MS", "200", 1);
	api_config_default(&cfg);
	cfg.listen = "127.0.0.1:0";
	cfg.db_path = db_path;
	cfg.pool_size = 2;
	cfg.status = f->status;
	cfg.events = f->events;
	cfg.control = f->ingest.control;
	if (api_start(&cfg, &f->api) != 0)
		return -1;
	f->port = api_port(f->api);
	if (f->port == 0)
		return -1;
	*state = f;
	return 0;
}

static int
server_teardown(void **state)
{
	struct server *f = *state;

	api_stop(f->api);
	__atomic_store_n(&f->ingest.stop, 1, __ATOMIC_RELEASE);
	pthread_join(f->ingest.thread, NULL);
	control_free(f->ingest.control);
	store_close(f->ingest.store);
	events_free(f->events);
	status_free(f->status);
	free(f);
	return 0;
}

static void
test_health(void **state)
{
	struct server *f = *state;
	struct reply r;
	cJSON *doc, *db, *src;
	char buf[128];

	http(f->port, "GET", "/v1/health", NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(header(&r, "Content-Type", buf, sizeof(buf)));
	assert_string_equal(buf, "application/json; charset=utf-8");
	assert_non_null(header(&r, "Cache-Control", buf, sizeof(buf)));
	assert_string_equal(buf, "no-store");
	doc = cJSON_Parse(r.body);
	assert_non_null(doc);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(doc, "status")->valuestring,
		"ok");
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(doc, "mode")->valuestring,
		"live");
	assert_true(cJSON_IsString(
		cJSON_GetObjectItemCaseSensitive(doc, "version")));
	assert_true(cJSON_IsNumber(
		cJSON_GetObjectItemCaseSensitive(doc, "uptime_s")));
	src = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(doc, "sources"), "input");
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(src, "health")->valuestring,
		"up");
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(src, "detail")->valuestring,
		"'input.getevent'");
	db = cJSON_GetObjectItemCaseSensitive(doc, "database");
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(db, "path")->valuestring,
		db_path);
	assert_int_equal(
		cJSON_GetObjectItemCaseSensitive(db, "taps")->valuedouble, 5);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(db, "schema_version")
				 ->valuedouble,
			 store_schema_latest());
	assert_true(cJSON_GetObjectItemCaseSensitive(db, "size_bytes")
			    ->valuedouble > 0);
	cJSON_Delete(doc);
	free(r.body);

	/* A source going down turns the status to degraded. */
	status_set_source(f->status, STATUS_SOURCE_FRAMES, STATUS_HEALTH_DOWN,
			  "ftl", "gone");
	http(f->port, "GET", "/v1/health", NULL, NULL, &r);
	doc = cJSON_Parse(r.body);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(doc, "status")->valuestring,
		"degraded");
	cJSON_Delete(doc);
	free(r.body);
	status_set_source(f->status, STATUS_SOURCE_FRAMES, STATUS_HEALTH_NONE,
			  "", " ");

	/* HEAD: the same headers, no body. */
	http(f->port, "HEAD", "/v1/health", NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.len, 0);
	free(r.body);
}

static void
test_routing_errors(void **state)
{
	struct server *f = *state;
	struct reply r;
	char buf[128];

	http(f->port, "GET", "/v1/nothing", NULL, NULL, &r);
	expect_error(&r, 404, "not_found");
	http(f->port, "GET", "/v1/health/", NULL, NULL, &r);
	expect_error(&r, 404, "not_found");
	http(f->port, "GET", "/v1/sessions/12", NULL, NULL, &r);
	expect_error(&r, 404, "not_found");
	http(f->port, "POST", "/v1/sessions/x1/stop", NULL, "", &r);
	expect_error(&r, 404, "not_found");

	http(f->port, "POST", "/v1/health", NULL, "", &r);
	assert_non_null(header(&r, "Allow", buf, sizeof(buf)));
	assert_string_equal(buf, "GET, HEAD");
	expect_error(&r, 405, "method_not_allowed");
	http(f->port, "DELETE", "/v1/sessions", NULL, NULL, &r);
	assert_non_null(header(&r, "Allow", buf, sizeof(buf)));
	assert_string_equal(buf, "GET, HEAD, POST");
	expect_error(&r, 405, "method_not_allowed");
	http(f->port, "GET", "/v1/sessions/1/stop", NULL, NULL, &r);
	assert_non_null(header(&r, "Allow", buf, sizeof(buf)));
	assert_string_equal(buf, "POST");
	expect_error(&r, 405, "method_not_allowed");
}

static void
test_params(void **state)
{
	struct server *f = *state;
	struct reply r;
	size_t i;

	http(f->port, "GET", "/v1/health?x=1", NULL, NULL, &r);
	assert_non_null(strstr(r.body, "'x'"));
	expect_error(&r, 400, "bad_request");
	http(f->port, "GET", "/v1/health?verbose", NULL, NULL, &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "GET", "/v1/sessions?a%00b=1", NULL, NULL, &r);
	expect_error(&r, 400, "bad_request");
	/* What the client sent is quoted back as UTF-8 only. */
	http(f->port, "GET", "/v1/health?%ff%c3=1", NULL, NULL, &r);
	for (i = 0; i < r.len; i++)
		assert_true((unsigned char)r.body[i] < 0x80);
	assert_non_null(strstr(r.body, "'?"
				       "?'"));
	expect_error(&r, 400, "bad_request");
	http(f->port, "GET", "/v1/nothing/%e2%82%ac%e2%82", NULL, NULL, &r);
	assert_non_null(strstr(r.body, "/v1/nothing/\xe2\x82\xac??"));
	expect_error(&r, 404, "not_found");
	/* Empty pairs ask for nothing; '+' is a space. */
	http(f->port, "GET", "/v1/health?&&", NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	http(f->port, "GET", "/v1/health?a+b=1", NULL, NULL, &r);
	assert_non_null(strstr(r.body, "'a b'"));
	expect_error(&r, 400, "bad_request");
	http(f->port, "GET",
	     "/v1/health?a=1&b=1&c=1&d=1&e=1&f=1&g=1&h=1&i=1&j=1&k=1&l=1"
	     "&m=1&n=1&o=1&p=1&q=1&r=1&s=1&t=1&u=1&v=1&w=1&x=1&y=1&z=1"
	     "&aa=1&bb=1&cc=1&dd=1&ee=1&ff=1&gg=1",
	     NULL, NULL, &r);
	expect_error(&r, 400, "bad_request");
}

static void
test_body_limit(void **state)
{
	struct server *f = *state;
	char chunk[16 + 8192], head[512];
	struct reply r;
	int fd, i, n;

	/*
	 * Refused on the headers alone: the reply comes before a byte of
	 * the body is sent.
	 */
	fd = connect_to(f->port);
	n = snprintf(head, sizeof(head),
		     "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n"
		     "Content-Length: 102400\r\n\r\n");
	send_all(fd, head, (size_t)n);
	read_reply(fd, &r);
	expect_error(&r, 413, "too_large");

	/* Chunked, with no length to judge by: refused at the end. */
	fd = connect_to(f->port);
	n = snprintf(head, sizeof(head),
		     "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n"
		     "Connection: close\r\n"
		     "Transfer-Encoding: chunked\r\n\r\n");
	send_all(fd, head, (size_t)n);
	n = snprintf(chunk, sizeof(chunk), "2000\r\n");
	memset(chunk + n, 'a', 8192);
	memcpy(chunk + n + 8192, "\r\n", 2);
	for (i = 0; i < 9; i++)
		send_all(fd, chunk, (size_t)n + 8192 + 2);
	send_all(fd, "0\r\n\r\n", 5);
	read_reply(fd, &r);
	expect_error(&r, 413, "too_large");
}

static int64_t
json_number(cJSON *doc, const char *name)
{
	cJSON *item = cJSON_GetObjectItemCaseSensitive(doc, name);

	assert_true(cJSON_IsNumber(item));
	return (int64_t)item->valuedouble;
}

static void
test_sessions(void **state)
{
	struct server *f = *state;
	char path[64], name[200];
	struct reply r;
	cJSON *doc, *list, *last;
	int64_t id;

	/* The one in the database, with its tap. */
	http(f->port, "GET", "/v1/sessions", NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	doc = cJSON_Parse(r.body);
	list = cJSON_GetObjectItemCaseSensitive(doc, "sessions");
	assert_int_equal(cJSON_GetArraySize(list), 1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(
				    cJSON_GetArrayItem(list, 0), "started")
				    ->valuestring,
			    "2026-12-01T05:37:54.000Z");
	assert_int_equal(json_number(cJSON_GetArrayItem(list, 0), "taps"), 1);
	cJSON_Delete(doc);
	free(r.body);

	/* Bad bodies. */
	http(f->port, "POST", "/v1/sessions", NULL, "", &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": ", &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": \"a\"} x", &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL, "[\"a\"]", &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": 5}", &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": \"\"}", &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL,
	     "{\"name\": \"a\", \"x\": 1}", &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": \"a\\nb\"}",
	     &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": \"\xc3\x28\"}",
	     &r);
	expect_error(&r, 400, "bad_request");
	/* A NUL escape would cut the name (or a key) short in cJSON. */
	http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": \"a\\u0000b\"}",
	     &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL, "{\"name\\u0000x\": \"a\"}",
	     &r);
	expect_error(&r, 400, "bad_request");
	http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": \"a\\u001fb\"}",
	     &r);
	expect_error(&r, 400, "bad_request");
	snprintf(name, sizeof(name), "{\"name\": \"%0129d\"}", 0);
	http(f->port, "POST", "/v1/sessions", NULL, name, &r);
	expect_error(&r, 400, "bad_request");

	/* Start, list, stop, stop again. */
	http(f->port, "POST", "/v1/sessions", NULL,
	     "{\"name\": \"lab run \xc3\xa9\"}", &r);
	assert_int_equal(r.status, 201);
	doc = cJSON_Parse(r.body);
	assert_non_null(doc);
	id = json_number(doc, "id");
	assert_int_equal(id, 2);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(doc, "name")->valuestring,
		"lab run \xc3\xa9");
	assert_true(
		cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "stopped")));
	assert_true(cJSON_IsString(
		cJSON_GetObjectItemCaseSensitive(doc, "started")));
	cJSON_Delete(doc);
	free(r.body);

	http(f->port, "GET", "/v1/sessions", NULL, NULL, &r);
	doc = cJSON_Parse(r.body);
	list = cJSON_GetObjectItemCaseSensitive(doc, "sessions");
	assert_int_equal(cJSON_GetArraySize(list), 2);
	last = cJSON_GetArrayItem(list, 1);
	assert_int_equal(json_number(last, "id"), id);
	assert_true(cJSON_IsNull(
		cJSON_GetObjectItemCaseSensitive(last, "stopped")));
	cJSON_Delete(doc);
	free(r.body);

	snprintf(path, sizeof(path), "/v1/sessions/%lld/stop", (long long)id);
	http(f->port, "POST", path, NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	doc = cJSON_Parse(r.body);
	assert_int_equal(json_number(doc, "id"), id);
	assert_true(cJSON_IsString(
		cJSON_GetObjectItemCaseSensitive(doc, "stopped")));
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(doc, "name")->valuestring,
		"lab run \xc3\xa9");
	cJSON_Delete(doc);
	free(r.body);
	http(f->port, "POST", path, NULL, NULL, &r);
	expect_error(&r, 409, "conflict");
	http(f->port, "POST", "/v1/sessions/999/stop", NULL, NULL, &r);
	expect_error(&r, 404, "not_found");
	http(f->port, "POST", "/v1/sessions/0/stop", NULL, NULL, &r);
	expect_error(&r, 404, "not_found");
	http(f->port, "POST", "/v1/sessions/99999999999999999999/stop", NULL,
	     NULL, &r);
	expect_error(&r, 404, "not_found");
}

/* Reads from fd until needle shows up in what was read, or timeout. */
static bool
read_until(int fd, char *buf, size_t size, size_t *len, const char *needle,
	   int timeout_ms)
{
	int64_t end = fixture_now_ms() + timeout_ms;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	ssize_t n;

	while (!strstr(buf, needle)) {
		if (fixture_now_ms() >= end || *len + 1 >= size)
			return false;
		if (poll(&p, 1, (int)(end - fixture_now_ms())) != 1)
			return false;
		n = recv(fd, buf + *len, size - 1 - *len, 0);
		if (n <= 0)
			return false;
		*len += (size_t)n;
		buf[*len] = '\0';
	}
	return true;
}

/* How many times needle occurs in s. */
static int
count_str(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* The newest tap id of the file at path. */
static int64_t
last_tap_id(const char *path)
{
	struct store *ro = NULL;
	int64_t id = -1;

	assert_int_equal(store_open(path, STORE_OPEN_READONLY, &ro), 0);
	assert_int_equal(store_taps_last_id(ro, &id), 0);
	store_close(ro);
	return id;
}

/* Opens a stream, with "Last-Event-ID: last" unless last is NULL. */
static int
open_stream(uint16_t port, const char *last, char *buf, size_t size,
	    size_t *len)
{
	char req[256];
	int fd;

	snprintf(req, sizeof(req),
		 "GET /v1/events HTTP/1.1\r\nHost: x\r\n%s%s%s\r\n",
		 last ? "Last-Event-ID: " : "", last ? last : "",
		 last ? "\r\n" : "");
	fd = connect_to(port);
	send_all(fd, req, strlen(req));
	buf[0] = '\0';
	*len = 0;
	assert_true(read_until(fd, buf, size, len,
			       ": tapd events\nretry: 2000\n\n", 2000));
	assert_non_null(strstr(buf, "HTTP/1.1 200"));
	return fd;
}

static void
test_events_stream(void **state)
{
	static const char *const bad[] = {
		"",
		"abc",
		"-1",
		"+3",
		"3 4",
		"3x",
		"0x10",
		"1.5",
		"9223372036854775808",
		"99999999999999999999",
	};
	struct server *f = *state;
	char buf[16384] = "", want[256], line[64], *p, *nl;
	struct reply r;
	size_t len = 0, i;
	int64_t top, id;
	int fd;

	top = last_tap_id(db_path);
	assert_true(top >= 3);
	fd = open_stream(f->port, NULL, buf, sizeof(buf), &len);
	assert_non_null(strcasestr(buf, "Content-Type: text/event-stream"));
	assert_non_null(strcasestr(buf, "Cache-Control: no-store"));
	/* Each event's id is the tap's, as the ingest thread publishes it. */
	for (id = top + 1; id <= top + 3; id++) {
		snprintf(want, sizeof(want), "{\"id\":%lld}", (long long)id);
		assert_int_equal(events_publish(f->events, id, want), 0);
	}
	snprintf(want, sizeof(want),
		 "id: %lld\nevent: tap\ndata: {\"id\":%lld}\n\n",
		 (long long)top + 3, (long long)top + 3);
	assert_true(read_until(fd, buf, sizeof(buf), &len, want, 2000));
	snprintf(want, sizeof(want),
		 "id: %lld\nevent: tap\ndata: {\"id\":%lld}\n\n",
		 (long long)top + 1, (long long)top + 1);
	assert_non_null(strstr(buf, want));
	snprintf(line, sizeof(line), "data: {\"id\":%lld}", (long long)top + 2);
	assert_true(strstr(buf, want) < strstr(buf, line));
	/* Without Last-Event-ID, the taps stored before are not sent. */
	assert_int_equal(count_str(buf, "event: tap"), 3);
	/* Idle: a ping within the 200 ms the fixture set (and slack). */
	assert_true(read_until(fd, buf, sizeof(buf), &len, ": ping\n\n", 2000));
	close(fd);

	/*
	 * A reconnecting client resumes after its Last-Event-ID: the stored
	 * taps above it from the database, each exactly as /v1/taps gives
	 * it, then the ring's, each once, in id order.
	 */
	fd = open_stream(f->port, "2", buf, sizeof(buf), &len);
	snprintf(want, sizeof(want),
		 "id: %lld\nevent: tap\ndata: {\"id\":%lld}",
		 (long long)top + 3, (long long)top + 3);
	assert_true(read_until(fd, buf, sizeof(buf), &len, want, 2000));
	close(fd);
	http(f->port, "GET", "/v1/taps?after_id=2&format=ndjson", NULL, NULL,
	     &r);
	assert_int_equal(r.status, 200);
	p = r.body;
	for (id = 3; id <= top + 3; id++) {
		if (id <= top) {
			nl = strchr(p, '\n');
			assert_non_null(nl);
			*nl = '\0';
			snprintf(want, sizeof(want),
				 "id: %lld\nevent: tap\ndata: %s\n\n",
				 (long long)id, p);
			p = nl + 1;
		} else {
			snprintf(
				want, sizeof(want),
				"id: %lld\nevent: tap\ndata: {\"id\":%lld}\n\n",
				(long long)id, (long long)id);
		}
		if (count_str(buf, want) != 1)
			fail_msg("tap %lld: %d times in %s", (long long)id,
				 count_str(buf, want), buf);
		snprintf(line, sizeof(line), "\nid: %lld\n", (long long)id);
		assert_int_equal(count_str(buf, line), 1);
		if (id > 3) {
			snprintf(want, sizeof(want), "\nid: %lld\n",
				 (long long)id - 1);
			assert_true(strstr(buf, want) < strstr(buf, line));
		}
	}
	free(r.body);
	assert_null(strstr(buf, "\nid: 2\n"));
	assert_null(strstr(buf, "\nid: 1\n"));
	assert_null(strstr(buf, "missed"));

	/* Anything but a decimal tap id is a 400, never a guess. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "Last-Event-ID: %s\r\n", bad[i]);
		http(f->port, "GET", "/v1/events", want, NULL, &r);
		expect_error(&r, 400, "bad_request");
	}
}

/* A tap of the resume tests, n of them apart. */
static struct store_tap
resume_tap(int64_t n)
{
	struct store_tap t;

	memset(&t, 0, sizeof(t));
	t.app = n % 3 ? "com.example.mail" : "com.example.shop";
	t.pid = 4000 + (int32_t)(n % 7);
	t.kind = n % 5 ? "tap" : "long_press";
	t.status = n % 4 ? "ok" : "no_response";
	t.t_down_ns = 1000000000LL + n * 900000000LL;
	t.t_up_ns = t.t_down_ns + 80000000;
	t.wall_ns = 1796103474000000000LL + n * 900000000LL;
	t.x = 100.5 + (double)n;
	t.y = 2000.25 - (double)n;
	t.first_frame_ns = n % 4 ? 16000000 + n * 1000 : -1;
	t.settle_ns = n % 4 ? 48000000 + n * 3000 : -1;
	return t;
}

/* Stores n taps with w and returns their JSON as the pipeline makes it. */
static void
resume_store(struct store *w, int64_t n, char **text)
{
	struct store_tap t;
	cJSON *obj;
	int64_t i, id;

	for (i = 0; i < n; i++) {
		t = resume_tap(i);
		assert_int_equal(store_insert(w, &t, NULL, 0, &id), 0);
		obj = tapjson_new(id, &t);
		assert_non_null(obj);
		text[id] = cJSON_PrintUnformatted(obj);
		assert_non_null(text[id]);
		cJSON_Delete(obj);
	}
	assert_int_equal(store_commit(w), 0);
}

/* Checks that buf holds taps from..to exactly once each, in order. */
static void
expect_taps(const char *buf, int64_t from, int64_t to, char **text)
{
	const char *prev = buf, *at;
	char *want;
	int64_t id;

	for (id = from; id <= to; id++) {
		if (!text[id])
			continue;
		assert_true(asprintf(&want,
				     "id: %lld\nevent: tap\ndata: %s\n\n",
				     (long long)id, text[id]) > 0);
		at = strstr(buf, want);
		if (!at || count_str(buf, want) != 1 || at < prev)
			fail_msg("tap %lld missing, repeated or out of order",
				 (long long)id);
		prev = at;
		free(want);
	}
}

/*
 * Resuming from the database: a reader the ring left behind reads the
 * rest from the file instead of being told it missed them, a gap the
 * database has (taps deleted) is the only thing called missed, and a
 * server without a ring (tapd serve) follows the file by polling it.
 */
static void
test_events_resume(void **state)
{
	enum { N = 300 };
	char path[600], *text[N + 8], want[128], *buf;
	struct api_config cfg;
	struct events *ev = NULL;
	struct api *api = NULL;
	struct store *w = NULL;
	size_t len = 0, size = 1 << 20;
	int64_t id;
	int fd, fd2, i;

	(void)state;
	memset(text, 0, sizeof(text));
	buf = malloc(size);
	assert_non_null(buf);
	fixture_path(path, sizeof(path), "events.db");
	assert_int_equal(store_open(path, 0, &w), 0);
	assert_int_equal(events_new(16, &ev), 0);
	api_config_default(&cfg);
	cfg.listen = "127.0.0.1:0";
	cfg.db_path = path;
	cfg.pool_size = 2;
	cfg.events = ev;
	assert_int_equal(api_start(&cfg, &api), 0);

	/*
	 * N taps through a ring of 16 as fast as they can be published: the
	 * reader falls behind, and must still get every one, once.
	 */
	fd = open_stream(api_port(api), NULL, buf, size, &len);
	resume_store(w, N, text);
	for (id = 1; id <= N; id++)
		assert_int_equal(events_publish(ev, id, text[id]), 0);
	snprintf(want, sizeof(want), "\nid: %d\n", N);
	assert_true(read_until(fd, buf, size, &len, want, 5000));
	assert_true(read_until(fd, buf, size, &len, "\n\n", 2000));
	expect_taps(buf, 1, N, text);
	assert_null(strstr(buf, "missed"));
	close(fd);

	/* Taps 10..19 deleted: resuming from 5 says so, between 9 and 20. */
	assert_int_equal(sqlite3_exec(store__sqlite(w),
				      "DELETE FROM taps WHERE id BETWEEN 10 "
				      "AND 19",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	for (i = 10; i <= 19; i++) {
		cJSON_free(text[i]);
		text[i] = NULL;
	}
	fd = open_stream(api_port(api), "5", buf, size, &len);
	snprintf(want, sizeof(want), "\nid: %d\n", N);
	assert_true(read_until(fd, buf, size, &len, want, 5000));
	assert_true(read_until(fd, buf, size, &len, "\n\n", 2000));
	close(fd);
	expect_taps(buf, 6, N, text);
	assert_int_equal(count_str(buf, "event: missed"), 1);
	assert_non_null(strstr(buf, "\nid: 9\n"));
	assert_true(strstr(buf, "\nid: 9\n") <
		    strstr(buf, "event: missed\ndata: {\"missed\": 10}\n\n"));
	assert_true(strstr(buf, "event: missed") < strstr(buf, "\nid: 20\n"));
	assert_null(strstr(buf, "\nid: 5\n"));
	api_stop(api);

	/*
	 * Without a ring, as tapd serve: the taps after Last-Event-ID, then
	 * those another writer stores, found by polling; a stream without
	 * one starts at the newest.
	 */
	cfg.events = NULL;
	assert_int_equal(api_start(&cfg, &api), 0);
	fd = open_stream(api_port(api), "298", buf, size, &len);
	assert_true(read_until(fd, buf, size, &len, "\nid: 300\n", 5000));
	resume_store(w, 2, text);
	assert_true(read_until(fd, buf, size, &len, "\nid: 302\n", 5000));
	assert_true(read_until(fd, buf, size, &len, "\n\n", 2000));
	expect_taps(buf, 299, 302, text);
	assert_null(strstr(buf, "\nid: 298\n"));
	fd2 = open_stream(api_port(api), NULL, buf, size, &len);
	resume_store(w, 1, text);
	assert_true(read_until(fd2, buf, size, &len, "\nid: 303\n", 5000));
	assert_true(read_until(fd2, buf, size, &len, "\n\n", 2000));
	expect_taps(buf, 303, 303, text);
	assert_int_equal(count_str(buf, "event: tap"), 1);
	close(fd2);
	close(fd);
	api_stop(api);
	events_free(ev);
	store_close(w);
	for (i = 0; i < N + 8; i++)
		cJSON_free(text[i]);
	free(buf);
}

/* The stream ends cleanly, and promptly, when the server stops. */
static void
test_stop_ends_streams(void **state)
{
	static const char req[] = "GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n";
	struct server *f = NULL;
	char buf[8192] = "";
	size_t len = 0;
	int64_t t0, dt;
	int fd[2], i;

	(void)state;
	assert_int_equal(server_setup((void **)&f), 0);
	/* Pings no sooner than in 15 s: only the stop may end the wait. */
	setenv("TAPD_SSE_PING_MS", "15000", 1);
	for (i = 0; i < 2; i++) {
		fd[i] = connect_to(f->port);
		send_all(fd[i], req, sizeof(req) - 1);
		buf[0] = '\0';
		len = 0;
		assert_true(read_until(fd[i], buf, sizeof(buf), &len,
				       ": tapd events", 2000));
	}
	t0 = fixture_now_ms();
	api_stop(f->api);
	dt = fixture_now_ms() - t0;
	f->api = NULL;
	assert_true(dt < 1500);
	/* The chunked body was terminated, not cut. */
	assert_true(
		read_until(fd[0], buf, sizeof(buf), &len, "0\r\n\r\n", 2000));
	close(fd[0]);
	close(fd[1]);
	server_teardown((void **)&f);
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	unlink(path);
	fixture_write_str(path, text);
	assert_int_equal(chmod(path, mode), 0);
}

static void
test_auth(void **state)
{
	static const char token[] = "0123456789abcdef0123456789abcdef";
	struct api_config cfg;
	struct api *api = NULL;
	char path[600], buf[128];
	struct reply r;
	uint16_t port;

	(void)state;
	fixture_path(path, sizeof(path), "token");
	write_file(path, "0123456789abcdef0123456789abcdef\n", 0600);
	api_config_default(&cfg);
	cfg.listen = "127.0.0.1:0";
	cfg.token_file = path;
	assert_int_equal(api_start(&cfg, &api), 0);
	port = api_port(api);

	http(port, "GET", "/v1/health", NULL, NULL, &r);
	assert_non_null(header(&r, "WWW-Authenticate", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "Bearer"));
	expect_error(&r, 401, "unauthorized");
	/* Unknown paths too: nothing is told before the token. */
	http(port, "GET", "/v1/nothing", NULL, NULL, &r);
	expect_error(&r, 401, "unauthorized");
	http(port, "GET", "/v1/health",
	     "Authorization: Bearer 0123456789abcdef0123456789abcdeX\r\n", NULL,
	     &r);
	expect_error(&r, 401, "unauthorized");
	http(port, "GET", "/v1/health",
	     "Authorization: Bearer 0123456789abcdef0123456789abcde\r\n", NULL,
	     &r);
	expect_error(&r, 401, "unauthorized");
	http(port, "GET", "/v1/health",
	     "Authorization: Bearer 0123456789abcdef0123456789abcdef0\r\n",
	     NULL, &r);
	expect_error(&r, 401, "unauthorized");
	http(port, "GET", "/v1/health",
	     "Authorization: Basic MDEyMzQ1Njc4OWFiY2RlZg==\r\n", NULL, &r);
	expect_error(&r, 401, "unauthorized");
	http(port, "GET", "/v1/health", "Authorization: Bearer\r\n", NULL, &r);
	expect_error(&r, 401, "unauthorized");

	snprintf(buf, sizeof(buf), "Authorization: Bearer %s\r\n", token);
	http(port, "GET", "/v1/health", buf, NULL, &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	snprintf(buf, sizeof(buf), "authorization: bearer  %s\r\n", token);
	http(port, "GET", "/v1/health", buf, NULL, &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	/* With the token, the usual errors again. */
	snprintf(buf, sizeof(buf), "Authorization: Bearer %s\r\n", token);
	http(port, "GET", "/v1/nothing", buf, NULL, &r);
	expect_error(&r, 404, "not_found");
	/* No database configured: health says so, sessions cannot list. */
	http(port, "GET", "/v1/sessions", buf, NULL, &r);
	expect_error(&r, 503, "unavailable");
	api_stop(api);
}

static void
test_start_refusals(void **state)
{
	static const char *const bad_listen[] = {
		"127.0.0.1",	   "127.0.0.1:",
		"127.0.0.1:65536", "127.0.0.1:-1",
		"127.0.0.1:80x",   "example.com:80",
		"[::1:80",	   "::1:80",
		"[::1]80",	   "[nothing]:80",
		"1.2.3:80",	   ":80",
		"127.0.0.1: 80",   NULL,
	};
	struct api_config cfg;
	struct api *api = NULL;
	char path[600];
	size_t i;
	int rc;

	(void)state;
	api_config_default(&cfg);
	for (i = 0; bad_listen[i]; i++) {
		cfg.listen = bad_listen[i];
		if (api_start(&cfg, &api) != -EINVAL)
			fail_msg("'%s' was accepted", bad_listen[i]);
		assert_null(api);
	}
	/* Any address but loopback needs a token. */
	cfg.listen = "0.0.0.0:0";
	assert_int_equal(api_start(&cfg, &api), -EINVAL);
	cfg.listen = "[::]:0";
	assert_int_equal(api_start(&cfg, &api), -EINVAL);
	cfg.listen = "192.168.1.1:0";
	assert_int_equal(api_start(&cfg, &api), -EINVAL);

	fixture_path(path, sizeof(path), "token2");
	cfg.listen = "127.0.0.1:0";
	cfg.token_file = path;
	/* Missing, world-readable, short, with a space, empty. */
	unlink(path);
	assert_int_equal(api_start(&cfg, &api), -EINVAL);
	write_file(path, "0123456789abcdef0123\n", 0644);
	assert_int_equal(api_start(&cfg, &api), -EINVAL);
	write_file(path, "0123456789abcde\n", 0600);
	assert_int_equal(api_start(&cfg, &api), -EINVAL);
	write_file(path, "0123456789 abcdef0123\n", 0600);
	assert_int_equal(api_start(&cfg, &api), -EINVAL);
	write_file(path, "", 0600);
	assert_int_equal(api_start(&cfg, &api), -EINVAL);
	/* Group-readable is allowed (with a warning), and so is CRLF. */
	write_file(path, "0123456789abcdef0123\r\nsecond line\n", 0640);
	assert_int_equal(api_start(&cfg, &api), 0);
	api_stop(api);
	api = NULL;

	/* A database that is not there. */
	cfg.token_file = NULL;
	fixture_path(path, sizeof(path), "missing.db");
	cfg.db_path = path;
	assert_true(api_start(&cfg, &api) < 0);
	assert_null(api);
	cfg.db_path = NULL;

	/* localhost is loopback; a busy port is EADDRINUSE. */
	cfg.listen = "localhost:0";
	assert_int_equal(api_start(&cfg, &api), 0);
	snprintf(path, sizeof(path), "127.0.0.1:%u", api_port(api));
	cfg.listen = path;
	{
		struct api *second = NULL;

		rc = api_start(&cfg, &second);
		assert_int_equal(rc, -EADDRINUSE);
		assert_null(second);
	}
	api_stop(api);
	api = NULL;

	/* IPv6 loopback, where the machine has it. */
	cfg.listen = "[::1]:0";
	rc = api_start(&cfg, &api);
	if (rc == 0) {
		assert_true(api_port(api) > 0);
		api_stop(api);
	} else {
		assert_true(rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT ||
			    rc == -EIO);
	}
	api_stop(NULL);
}

/* A request with no connection, for the parameter helpers. */
static struct api_request *
fake_request(const struct api_request_env *env, const char *const *kv)
{
	struct api_request *rq = NULL;
	size_t i;

	assert_int_equal(api_request__new(NULL, env, "GET", "/v1/x", &rq), 0);
	for (i = 0; kv && kv[i]; i += 2)
		assert_int_equal(api_request__add_param(rq, kv[i], kv[i + 1]),
				 0);
	return rq;
}

/*
 * A request seen first by its raw URI: no method nor path until it
 * begins, and a refusal recorded then is the reply it gets, the first
 * one recorded only.
 */
static void
test_early_request(void **state)
{
	struct api_request_env env;
	struct api_request *rq = NULL;

	(void)state;
	memset(&env, 0, sizeof(env));
	assert_int_equal(api_request__new_early(NULL, &env, &rq), 0);
	assert_false(api_request__begun(rq));
	assert_int_equal(api_request__send_refusal(rq), 0);
	api_request__refuse(rq, 414, "too_large", "the URI is %d bytes", 9000);
	api_request__refuse(rq, 400, "bad_request", "second");
	assert_int_equal(api_request__begin(rq, "GET", "/v1/health"), 0);
	assert_true(api_request__begun(rq));
	assert_string_equal(api_request_method(rq), "GET");
	assert_string_equal(api_request_path(rq), "/v1/health");
	assert_int_equal(api_request__begin(rq, "POST", "/x"), -EALREADY);
	assert_string_equal(api_request_method(rq), "GET");
	assert_int_equal(api_request__status(rq), 0);
	assert_int_equal(api_request__send_refusal(rq), 1);
	assert_int_equal(api_request__status(rq), 414);
	api_request__unref(rq);

	/* Unreferenced before it began: nothing of it is left behind. */
	assert_int_equal(api_request__new_early(NULL, &env, &rq), 0);
	api_request__unref(rq);
}

/*
 * Runs one getter on a request holding name=value; checks what it
 * returned and that a 400 was queued exactly when it said -EINVAL.
 */
#define EXPECT_PARAM(value, want_rc, call)                                     \
	do {                                                                   \
		const char *kv_[] = {"v", value, NULL};                        \
		struct api_request *rq_ = fake_request(&env, kv_);             \
		int rc_ = (call);                                              \
		if (rc_ != (want_rc))                                          \
			fail_msg("'%s': got %d, expected %d", value, rc_,      \
				 (want_rc));                                   \
		assert_int_equal(api_request__status(rq_),                     \
				 rc_ == -EINVAL ? 400 : 0);                    \
		api_request__unref(rq_);                                       \
	} while (0)

static void
test_param_helpers(void **state)
{
	static const char *const allowed[] = {"a", "b", NULL};
	static const char *const metrics[] = {"first_frame", "settle", NULL};
	/* Values each parser refuses with a 400, whatever its bounds. */
	static const char *const bad_words[] = {"", "a b", "a/b", "\xc3\xa9"};
	static const char *const bad_ints[] = {"0",  "101", "4x", "",	" 5",
					       "+5", "+0",  "5 ", "\t5"};
	static const char *const bad_lists[] = {
		"0", "100.01", "1,2,3,4,5", "50,", ",50", "50,,90", "nan"};
	struct api_request_env env;
	struct api_request *rq;
	const char *word = NULL;
	double list[4];
	size_t n = 0;
	int64_t i64 = -7, t = 0, now;
	int idx = -1;
	size_t k;

	(void)state;
	memset(&env, 0, sizeof(env));
	/* allow(): unknown and repeated names, and the absent ones. */
	rq = fake_request(&env, (const char *const[]){"a", "1", "b", "", NULL});
	assert_int_equal(api_request_allow(rq, allowed), 0);
	assert_string_equal(api_request_param(rq, "a"), "1");
	assert_string_equal(api_request_param(rq, "b"), "");
	assert_null(api_request_param(rq, "c"));
	assert_null(api_request_param(rq, "A"));
	/* Absent: 0, and *out untouched. */
	assert_int_equal(api_request_param_int(rq, "c", 0, 9, &i64), 0);
	assert_int_equal(i64, -7);
	assert_int_equal(api_request__status(rq), 0);
	api_request__unref(rq);
	rq = fake_request(&env,
			  (const char *const[]){"a", "1", "c", "2", NULL});
	assert_int_equal(api_request_allow(rq, allowed), -EINVAL);
	assert_int_equal(api_request__status(rq), 400);
	/* The handler passes -EINVAL up; a second reply is refused. */
	assert_true(api_request_reply_error(rq, 500, "internal", "x") < 0);
	assert_int_equal(api_request__status(rq), 400);
	api_request__unref(rq);
	rq = fake_request(&env,
			  (const char *const[]){"a", "1", "a", "2", NULL});
	assert_int_equal(api_request_allow(rq, allowed), -EINVAL);
	api_request__unref(rq);
	rq = fake_request(&env, NULL);
	assert_int_equal(api_request_allow(rq, allowed), 0);
	assert_string_equal(api_request_body(rq, &n), "");
	assert_int_equal(n, 0);
	api_request__unref(rq);

	EXPECT_PARAM("com.example.app:ui-1_2", 1,
		     api_request_param_word(rq_, "v", 64, &word));
	assert_string_equal(word, "com.example.app:ui-1_2");
	for (k = 0; k < sizeof(bad_words) / sizeof(bad_words[0]); k++)
		EXPECT_PARAM(bad_words[k], -EINVAL,
			     api_request_param_word(rq_, "v", 64, &word));
	EXPECT_PARAM("abcd", 1, api_request_param_word(rq_, "v", 4, &word));
	EXPECT_PARAM("abcde", -EINVAL,
		     api_request_param_word(rq_, "v", 4, &word));

	EXPECT_PARAM("42", 1, api_request_param_int(rq_, "v", 1, 100, &i64));
	assert_int_equal(i64, 42);
	EXPECT_PARAM("1", 1, api_request_param_int(rq_, "v", 1, 100, &i64));
	EXPECT_PARAM("100", 1, api_request_param_int(rq_, "v", 1, 100, &i64));
	for (k = 0; k < sizeof(bad_ints) / sizeof(bad_ints[0]); k++)
		EXPECT_PARAM(bad_ints[k], -EINVAL,
			     api_request_param_int(rq_, "v", 1, 100, &i64));
	EXPECT_PARAM("99999999999999999999", -EINVAL,
		     api_request_param_int(rq_, "v", 1, INT64_MAX, &i64));
	assert_int_equal(i64, 100);

	EXPECT_PARAM("2026-12-01T05:37:54Z", 1,
		     api_request_param_time(rq_, "v", &t));
	assert_int_equal(t, 1796103474000000000LL);
	EXPECT_PARAM("1796103474.5", 1, api_request_param_time(rq_, "v", &t));
	assert_int_equal(t, 1796103474500000000LL);
	now = (int64_t)time(NULL) * 1000000000LL;
	EXPECT_PARAM("15m", 1, api_request_param_time(rq_, "v", &t));
	assert_true(t > now - 905000000000LL && t < now - 895000000000LL);
	EXPECT_PARAM("yesterday", -EINVAL,
		     api_request_param_time(rq_, "v", &t));
	EXPECT_PARAM("2026-02-30T00:00:00Z", -EINVAL,
		     api_request_param_time(rq_, "v", &t));

	EXPECT_PARAM("settle", 1,
		     api_request_param_enum(rq_, "v", metrics, &idx));
	assert_int_equal(idx, 1);
	EXPECT_PARAM("Settle", -EINVAL,
		     api_request_param_enum(rq_, "v", metrics, &idx));
	EXPECT_PARAM("", -EINVAL,
		     api_request_param_enum(rq_, "v", metrics, &idx));

	EXPECT_PARAM("50,90,99.9,100", 1,
		     api_request_param_list(rq_, "v", 0, 100, list, 4, &n));
	assert_int_equal(n, 4);
	assert_true(list[0] == 50 && list[1] == 90 && list[2] == 99.9 &&
		    list[3] == 100);
	EXPECT_PARAM("50", 1,
		     api_request_param_list(rq_, "v", 0, 100, list, 4, &n));
	assert_int_equal(n, 1);
	for (k = 0; k < sizeof(bad_lists) / sizeof(bad_lists[0]); k++)
		EXPECT_PARAM(
			bad_lists[k], -EINVAL,
			api_request_param_list(rq_, "v", 0, 100, list, 4, &n));
	EXPECT_PARAM("1e1", 1,
		     api_request_param_list(rq_, "v", 0, 100, list, 4, &n));
	assert_true(list[0] == 10);
	assert_int_equal(n, 1);

	rq = fake_request(&env, NULL);
	assert_int_equal(api_request_check_range(rq, 5, 5), 0);
	assert_int_equal(api_request_check_range(rq, 4, 5), 0);
	assert_int_equal(api_request__status(rq), 0);
	assert_int_equal(api_request_check_range(rq, 6, 5), -EINVAL);
	assert_int_equal(api_request__status(rq), 400);
	api_request__unref(rq);

	/* No pool: a 503, queued by the checkout itself. */
	rq = fake_request(&env, NULL);
	{
		struct store *db = NULL;

		assert_true(api_request_store(rq, &db) < 0);
		assert_null(db);
		assert_int_equal(api_request__status(rq), 503);
	}
	assert_null(api_request_status(rq));
	assert_null(api_request_events(rq));
	assert_null(api_request_control(rq));
	assert_null(api_request_metrics(rq));
	assert_null(api_request_db_path(rq));
	assert_int_equal(api_request_stopping(rq), 0);
	assert_string_equal(api_request_method(rq), "GET");
	assert_string_equal(api_request_path(rq), "/v1/x");
	api_request__unref(rq);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_health, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_routing_errors,
						server_setup, server_teardown),
		cmocka_unit_test_setup_teardown(test_params, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_body_limit, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_sessions, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_events_stream,
						server_setup, server_teardown),
		cmocka_unit_test(test_events_resume),
		cmocka_unit_test(test_stop_ends_streams),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_start_refusals),
		cmocka_unit_test(test_param_helpers),
		cmocka_unit_test(test_early_request),
	};

	log_init("test_api", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, group_setup,
				      fixture_group_teardown);
}
