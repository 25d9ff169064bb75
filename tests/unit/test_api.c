/*
 * Tests of the HTTP server through real sockets on 127.0.0.1 with port 0:
 * routing and its JSON errors, the headers every reply carries, body
 * limits, parameters, bearer auth, the refusals of api_start, and
 * sessions started through a control served by another thread (the
 * ingest thread of tapd run).  The event stream has test_api_events.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "api.h"
#include "api_request.h"
#include "fixture.h"
#include "log.h"
#include "status.h"
#include "store.h"

static void
test_health(void **state)
{
	struct fixture_server *f = *state;
	struct fixture_reply r;
	cJSON *doc, *db, *src;
	char buf[128];

	fixture_http(f->port, "GET", "/v1/health", NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(fixture_header(&r, "Content-Type", buf, sizeof(buf)));
	assert_string_equal(buf, "application/json; charset=utf-8");
	assert_non_null(fixture_header(&r, "Cache-Control", buf, sizeof(buf)));
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
		fixture_api_db());
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
	fixture_http(f->port, "GET", "/v1/health", NULL, NULL, &r);
	doc = cJSON_Parse(r.body);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(doc, "status")->valuestring,
		"degraded");
	cJSON_Delete(doc);
	free(r.body);
	status_set_source(f->status, STATUS_SOURCE_FRAMES, STATUS_HEALTH_NONE,
			  "", " ");

	/* HEAD: the same headers, no body. */
	fixture_http(f->port, "HEAD", "/v1/health", NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.len, 0);
	free(r.body);
}

static void
test_routing_errors(void **state)
{
	struct fixture_server *f = *state;
	struct fixture_reply r;
	char buf[128];

	fixture_http(f->port, "GET", "/v1/nothing", NULL, NULL, &r);
	fixture_expect_error(&r, 404, "not_found");
	fixture_http(f->port, "GET", "/v1/health/", NULL, NULL, &r);
	fixture_expect_error(&r, 404, "not_found");
	fixture_http(f->port, "GET", "/v1/sessions/12", NULL, NULL, &r);
	fixture_expect_error(&r, 404, "not_found");
	fixture_http(f->port, "POST", "/v1/sessions/x1/stop", NULL, "", &r);
	fixture_expect_error(&r, 404, "not_found");

	fixture_http(f->port, "POST", "/v1/health", NULL, "", &r);
	assert_non_null(fixture_header(&r, "Allow", buf, sizeof(buf)));
	assert_string_equal(buf, "GET, HEAD");
	fixture_expect_error(&r, 405, "method_not_allowed");
	fixture_http(f->port, "DELETE", "/v1/sessions", NULL, NULL, &r);
	assert_non_null(fixture_header(&r, "Allow", buf, sizeof(buf)));
	assert_string_equal(buf, "GET, HEAD, POST");
	fixture_expect_error(&r, 405, "method_not_allowed");
	fixture_http(f->port, "GET", "/v1/sessions/1/stop", NULL, NULL, &r);
	assert_non_null(fixture_header(&r, "Allow", buf, sizeof(buf)));
	assert_string_equal(buf, "POST");
	fixture_expect_error(&r, 405, "method_not_allowed");
}

static void
test_params(void **state)
{
	struct fixture_server *f = *state;
	struct fixture_reply r;
	size_t i;

	fixture_http(f->port, "GET", "/v1/health?x=1", NULL, NULL, &r);
	assert_non_null(strstr(r.body, "'x'"));
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "GET", "/v1/health?verbose", NULL, NULL, &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "GET", "/v1/sessions?a%00b=1", NULL, NULL, &r);
	fixture_expect_error(&r, 400, "bad_request");
	/* What the client sent is quoted back as UTF-8 only. */
	fixture_http(f->port, "GET", "/v1/health?%ff%c3=1", NULL, NULL, &r);
	for (i = 0; i < r.len; i++)
		assert_true((unsigned char)r.body[i] < 0x80);
	assert_non_null(strstr(r.body, "'?"
				       "?'"));
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "GET", "/v1/nothing/%e2%82%ac%e2%82", NULL, NULL,
		     &r);
	assert_non_null(strstr(r.body, "/v1/nothing/\xe2\x82\xac??"));
	fixture_expect_error(&r, 404, "not_found");
	/* Empty pairs ask for nothing; '+' is a space. */
	fixture_http(f->port, "GET", "/v1/health?&&", NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	fixture_http(f->port, "GET", "/v1/health?a+b=1", NULL, NULL, &r);
	assert_non_null(strstr(r.body, "'a b'"));
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(
		f->port, "GET",
		"/v1/health?a=1&b=1&c=1&d=1&e=1&f=1&g=1&h=1&i=1&j=1&k=1&l=1"
		"&m=1&n=1&o=1&p=1&q=1&r=1&s=1&t=1&u=1&v=1&w=1&x=1&y=1&z=1"
		"&aa=1&bb=1&cc=1&dd=1&ee=1&ff=1&gg=1",
		NULL, NULL, &r);
	fixture_expect_error(&r, 400, "bad_request");
}

static void
test_body_limit(void **state)
{
	struct fixture_server *f = *state;
	char chunk[16 + 8192], head[512];
	struct fixture_reply r;
	int fd, i, n;

	/*
	 * Refused on the headers alone: the reply comes before a byte of
	 * the body is sent.
	 */
	fd = fixture_connect(f->port);
	n = snprintf(head, sizeof(head),
		     "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n"
		     "Content-Length: 102400\r\n\r\n");
	fixture_send_all(fd, head, (size_t)n);
	fixture_read_reply(fd, &r);
	fixture_expect_error(&r, 413, "too_large");

	/* Chunked, with no length to judge by: refused at the end. */
	fd = fixture_connect(f->port);
	n = snprintf(head, sizeof(head),
		     "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n"
		     "Connection: close\r\n"
		     "Transfer-Encoding: chunked\r\n\r\n");
	fixture_send_all(fd, head, (size_t)n);
	n = snprintf(chunk, sizeof(chunk), "2000\r\n");
	memset(chunk + n, 'a', 8192);
	memcpy(chunk + n + 8192, "\r\n", 2);
	for (i = 0; i < 9; i++)
		fixture_send_all(fd, chunk, (size_t)n + 8192 + 2);
	fixture_send_all(fd, "0\r\n\r\n", 5);
	fixture_read_reply(fd, &r);
	fixture_expect_error(&r, 413, "too_large");
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
	struct fixture_server *f = *state;
	char path[64], name[200];
	struct fixture_reply r;
	cJSON *doc, *list, *last;
	int64_t id;

	/* The one in the database, with its tap. */
	fixture_http(f->port, "GET", "/v1/sessions", NULL, NULL, &r);
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
	fixture_http(f->port, "POST", "/v1/sessions", NULL, "", &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": ", &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL,
		     "{\"name\": \"a\"} x", &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL, "[\"a\"]", &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": 5}",
		     &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL, "{\"name\": \"\"}",
		     &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL,
		     "{\"name\": \"a\", \"x\": 1}", &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL,
		     "{\"name\": \"a\\nb\"}", &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL,
		     "{\"name\": \"\xc3\x28\"}", &r);
	fixture_expect_error(&r, 400, "bad_request");
	/* A NUL escape would cut the name (or a key) short in cJSON. */
	fixture_http(f->port, "POST", "/v1/sessions", NULL,
		     "{\"name\": \"a\\u0000b\"}", &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL,
		     "{\"name\\u0000x\": \"a\"}", &r);
	fixture_expect_error(&r, 400, "bad_request");
	fixture_http(f->port, "POST", "/v1/sessions", NULL,
		     "{\"name\": \"a\\u001fb\"}", &r);
	fixture_expect_error(&r, 400, "bad_request");
	snprintf(name, sizeof(name), "{\"name\": \"%0129d\"}", 0);
	fixture_http(f->port, "POST", "/v1/sessions", NULL, name, &r);
	fixture_expect_error(&r, 400, "bad_request");

	/* Start, list, stop, stop again. */
	fixture_http(f->port, "POST", "/v1/sessions", NULL,
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

	fixture_http(f->port, "GET", "/v1/sessions", NULL, NULL, &r);
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
	fixture_http(f->port, "POST", path, NULL, NULL, &r);
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
	fixture_http(f->port, "POST", path, NULL, NULL, &r);
	fixture_expect_error(&r, 409, "conflict");
	fixture_http(f->port, "POST", "/v1/sessions/999/stop", NULL, NULL, &r);
	fixture_expect_error(&r, 404, "not_found");
	fixture_http(f->port, "POST", "/v1/sessions/0/stop", NULL, NULL, &r);
	fixture_expect_error(&r, 404, "not_found");
	fixture_http(f->port, "POST", "/v1/sessions/99999999999999999999/stop",
		     NULL, NULL, &r);
	fixture_expect_error(&r, 404, "not_found");
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
	struct fixture_reply r;
	uint16_t port;

	(void)state;
	fixture_path(path, sizeof(path), "token");
	write_file(path, "0123456789abcdef0123456789abcdef\n", 0600);
	api_config_default(&cfg);
	cfg.listen = "127.0.0.1:0";
	cfg.token_file = path;
	assert_int_equal(api_start(&cfg, &api), 0);
	port = api_port(api);

	fixture_http(port, "GET", "/v1/health", NULL, NULL, &r);
	assert_non_null(
		fixture_header(&r, "WWW-Authenticate", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "Bearer"));
	fixture_expect_error(&r, 401, "unauthorized");
	/* Unknown paths too: nothing is told before the token. */
	fixture_http(port, "GET", "/v1/nothing", NULL, NULL, &r);
	fixture_expect_error(&r, 401, "unauthorized");
	fixture_http(
		port, "GET", "/v1/health",
		"Authorization: Bearer 0123456789abcdef0123456789abcdeX\r\n",
		NULL, &r);
	fixture_expect_error(&r, 401, "unauthorized");
	fixture_http(
		port, "GET", "/v1/health",
		"Authorization: Bearer 0123456789abcdef0123456789abcde\r\n",
		NULL, &r);
	fixture_expect_error(&r, 401, "unauthorized");
	fixture_http(
		port, "GET", "/v1/health",
		"Authorization: Bearer 0123456789abcdef0123456789abcdef0\r\n",
		NULL, &r);
	fixture_expect_error(&r, 401, "unauthorized");
	fixture_http(port, "GET", "/v1/health",
		     "Authorization: Basic MDEyMzQ1Njc4OWFiY2RlZg==\r\n", NULL,
		     &r);
	fixture_expect_error(&r, 401, "unauthorized");
	fixture_http(port, "GET", "/v1/health", "Authorization: Bearer\r\n",
		     NULL, &r);
	fixture_expect_error(&r, 401, "unauthorized");

	snprintf(buf, sizeof(buf), "Authorization: Bearer %s\r\n", token);
	fixture_http(port, "GET", "/v1/health", buf, NULL, &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	snprintf(buf, sizeof(buf), "authorization: bearer  %s\r\n", token);
	fixture_http(port, "GET", "/v1/health", buf, NULL, &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	/* With the token, the usual errors again. */
	snprintf(buf, sizeof(buf), "Authorization: Bearer %s\r\n", token);
	fixture_http(port, "GET", "/v1/nothing", buf, NULL, &r);
	fixture_expect_error(&r, 404, "not_found");
	/* No database configured: health says so, sessions cannot list. */
	fixture_http(port, "GET", "/v1/sessions", buf, NULL, &r);
	fixture_expect_error(&r, 503, "unavailable");
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
		cmocka_unit_test_setup_teardown(test_health,
						fixture_server_setup,
						fixture_server_teardown),
		cmocka_unit_test_setup_teardown(test_routing_errors,
						fixture_server_setup,
						fixture_server_teardown),
		cmocka_unit_test_setup_teardown(test_params,
						fixture_server_setup,
						fixture_server_teardown),
		cmocka_unit_test_setup_teardown(test_body_limit,
						fixture_server_setup,
						fixture_server_teardown),
		cmocka_unit_test_setup_teardown(test_sessions,
						fixture_server_setup,
						fixture_server_teardown),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_start_refusals),
		cmocka_unit_test(test_param_helpers),
		cmocka_unit_test(test_early_request),
	};

	log_init("test_api", LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, fixture_api_group_setup,
				      fixture_group_teardown);
}
