/*
 * The unit tests' shared fixture: see fixture.h for what each function
 * does and who owns what it makes.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
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
#include "control.h"
#include "events.h"
#include "fixture.h"
#include "input_getevent.h"
#include "status.h"
#include "store.h"
#include "store_sql.h"
#include "touch.h"

/* The group directory, empty outside fixture_group_setup..teardown. */
static char group_dir[PATH_MAX];

int
fixture_tmpdir(char *buf, size_t size, const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(buf, size, "%s/tapd-%s-XXXXXX", tmp, tag);
	if (n < 0 || (size_t)n >= size || !mkdtemp(buf))
		return -1;
	return 0;
}

int
fixture_rmtree(const char *path)
{
	char child[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int rc = 0, n;

	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(sb.st_mode))
		return unlink(path) == 0 ? 0 : -1;
	/* A directory a test made read-only must still be emptied. */
	chmod(path, 0700);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		n = snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(child) ||
		    fixture_rmtree(child) != 0)
			rc = -1;
	}
	closedir(d);
	if (rmdir(path) != 0)
		rc = -1;
	return rc;
}

void
fixture_join(char *buf, size_t size, const char *dir, const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(rel));
	n = snprintf(buf, size, "%s/%s", dir, rel);
	assert_true(n > 0 && (size_t)n < size);
}

void
fixture_mkdirs(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	char *p;

	assert_true(strlen(path) < sizeof(buf));
	memcpy(buf, path, strlen(path) + 1);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		assert_true(mkdir(buf, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	assert_true(mkdir(buf, mode) == 0 || errno == EEXIST);
	/* The umask must not take away what the test asked for. */
	assert_int_equal(chmod(buf, mode), 0);
}

void
fixture_write(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

void
fixture_write_str(const char *path, const char *text)
{
	fixture_write(path, text, strlen(text));
}

void
fixture_copy(const char *from, const char *to)
{
	char *buf;
	size_t len;

	buf = fixture_slurp(from, &len);
	fixture_write(to, buf, len);
	free(buf);
}

char *
fixture_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	assert_non_null(fp);
	/* Read in pieces: files under /proc and pipes have no size. */
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		got = fread(buf + n, 1, cap - n - 1, fp);
		n += got;
	} while (got > 0);
	assert_int_equal(ferror(fp), 0);
	fclose(fp);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int
fixture_rounds(int full, int quick)
{
	const char *v = getenv("TAPD_TEST_EMULATED");

	return v && *v && strcmp(v, "0") != 0 ? quick : full;
}

int64_t
fixture_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
fixture_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct touch_event
fixture_event(int64_t t_ns, uint16_t type, uint16_t code, int32_t value)
{
	struct touch_event e;

	memset(&e, 0, sizeof(e));
	e.time_ns = t_ns;
	e.type = type;
	e.code = code;
	e.value = value;
	return e;
}

int
fixture_group_setup(void **state)
{
	(void)state;
	return fixture_tmpdir(group_dir, sizeof(group_dir), "test");
}

int
fixture_group_teardown(void **state)
{
	int rc;

	(void)state;
	rc = fixture_rmtree(group_dir);
	group_dir[0] = '\0';
	return rc;
}

const char *
fixture_dir(void)
{
	assert_true(group_dir[0] != '\0');
	return group_dir;
}

void
fixture_path(char *buf, size_t size, const char *name)
{
	fixture_join(buf, size, fixture_dir(), "%s", name);
}

void
fixture_db_remove(const char *path)
{
	static const char *const tails[] = {"", "-wal", "-shm"};
	char buf[PATH_MAX];
	size_t i;
	int n;

	for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		n = snprintf(buf, sizeof(buf), "%s%s", path, tails[i]);
		assert_true(n > 0 && (size_t)n < sizeof(buf));
		assert_true(unlink(buf) == 0 || errno == ENOENT);
	}
}

struct store *
fixture_store_new(const char *name, char *path, size_t size)
{
	struct store *st = NULL;

	fixture_path(path, size, name);
	fixture_db_remove(path);
	assert_int_equal(store_open(path, 0, &st), 0);
	return st;
}

void
fixture_store_drop(struct store *st, const char *path)
{
	store_close(st);
	fixture_db_remove(path);
}

/* The API tests' database, made by fixture_api_group_setup(). */
static char api_db[600];

const char *
fixture_api_db(void)
{
	return api_db;
}

/* A database of 5 taps, one of them in a session. */
int
fixture_api_group_setup(void **state)
{
	struct store *w = NULL;
	int n, rc;

	if (fixture_group_setup(state) != 0)
		return -1;
	n = snprintf(api_db, sizeof(api_db), "%s/taps.db", fixture_dir());
	if (n < 0 || (size_t)n >= sizeof(api_db) ||
	    store_open(api_db, 0, &w) != 0)
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

int
fixture_connect(uint16_t port)
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

void
fixture_send_all(int fd, const char *data, size_t len)
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
void
fixture_read_reply(int fd, struct fixture_reply *r)
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
void
fixture_http(uint16_t port, const char *method, const char *path,
	     const char *extra, const char *body, struct fixture_reply *r)
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
	fd = fixture_connect(port);
	fixture_send_all(fd, head, (size_t)n);
	if (body)
		fixture_send_all(fd, body, strlen(body));
	fixture_read_reply(fd, r);
}

/* The value of a header of r, or NULL (names are case-insensitive). */
const char *
fixture_header(struct fixture_reply *r, const char *name, char *buf,
	       size_t size)
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
void
fixture_expect_error(struct fixture_reply *r, int status, const char *code)
{
	cJSON *doc, *err;
	char buf[128];

	if (r->status != status)
		fail_msg("expected %d, got %d: %s", status, r->status, r->body);
	assert_non_null(fixture_header(r, "Content-Type", buf, sizeof(buf)));
	assert_string_equal(buf, "application/json; charset=utf-8");
	assert_non_null(fixture_header(r, "Cache-Control", buf, sizeof(buf)));
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

static void
fixture_ingest_serve(void *ctx, struct control_request *req)
{
	struct fixture_ingest *in = ctx;

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
fixture_ingest_main(void *arg)
{
	struct fixture_ingest *in = arg;
	struct pollfd p;

	while (!__atomic_load_n(&in->stop, __ATOMIC_ACQUIRE)) {
		p.fd = control_fd(in->control);
		p.events = POLLIN;
		if (poll(&p, 1, 20) == 1)
			control_serve(in->control, fixture_ingest_serve, in);
	}
	return NULL;
}

int
fixture_server_setup(void **state)
{
	struct fixture_server *f = calloc(1, sizeof(*f));
	struct api_config cfg;

	if (!f || status_new("live", &f->status) != 0 ||
	    events_new(16, &f->events) != 0 ||
	    control_new(&f->ingest.control) != 0 ||
	    store_open(fixture_api_db(), 0, &f->ingest.store) != 0)
		return -1;
	if (pthread_create(&f->ingest.thread, NULL, fixture_ingest_main,
			   &f->ingest) != 0)
		return -1;
	status_set_source(f->status, STATUS_SOURCE_INPUT, STATUS_HEALTH_UP,
			  "getevent", "'%s'", "input.getevent");
	setenv("TAPD_SSE_PING_MS", "200", 1);
	api_config_default(&cfg);
	cfg.listen = "127.0.0.1:0";
	cfg.db_path = fixture_api_db();
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

int
fixture_server_teardown(void **state)
{
	struct fixture_server *f = *state;

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

/* Reads from fd until needle shows up in what was read, or timeout. */
bool
fixture_read_until(int fd, char *buf, size_t size, size_t *len,
		   const char *needle, int timeout_ms)
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

int64_t
fixture_clock_ns(clockid_t clock)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(clock, &ts), 0);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

sqlite3 *
fixture_raw_open(const char *path, int flags)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, flags, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 2000);
	return db;
}

void
fixture_raw_exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("'%s' failed: %s", sql, err ? err : "?");
}

/* The first column of the first row of sql, as an integer. */
int64_t
fixture_raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *stmt = NULL;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	v = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return v;
}

void
fixture_limit_pages(struct store *st, bool lift)
{
	sqlite3 *db = store__sqlite(st);
	char sql[64];

	if (lift) {
		fixture_raw_exec(db, "PRAGMA max_page_count = 1000000");
		return;
	}
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %" PRId64,
		 fixture_raw_int(db, "PRAGMA page_count"));
	fixture_raw_exec(db, sql);
}

void
fixture_raw_text(sqlite3 *db, const char *sql, char *buf, size_t size)
{
	sqlite3_stmt *stmt = NULL;
	const unsigned char *s;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	s = sqlite3_column_text(stmt, 0);
	assert_non_null(s);
	assert_true(strlen((const char *)s) < size);
	snprintf(buf, size, "%s", (const char *)s);
	sqlite3_finalize(stmt);
}

/* Rows in taps as a separate read-only connection sees them now. */
int64_t
fixture_visible_taps(const char *path)
{
	sqlite3 *db;
	int64_t n;

	db = fixture_raw_open(path, SQLITE_OPEN_READONLY);
	n = fixture_raw_int(db, "SELECT count(*) FROM taps");
	sqlite3_close(db);
	return n;
}

struct store_tap
fixture_sample_tap(void)
{
	struct store_tap t = {
		.app = "com.example.app",
		.pid = 4242,
		.kind = "tap",
		.status = "ok",
		.flags = STORE_FLAG_BUSY_BEFORE,
		.t_down_ns = 1000000000,
		.t_up_ns = 1080000000,
		.wall_ns = 1700000000123000000,
		.x = 540.5,
		.y = 1200.25,
		.first_frame_ns = 48000000,
		.settle_ns = 160000000,
		.frames = 7,
		.jank = 0,
		.session = 0,
	};

	return t;
}

int64_t
fixture_hist_sum(sqlite3 *db, const char *app, int metric, int span)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "SELECT coalesce(sum(count), 0) FROM tap_hist WHERE app = '%s'"
		 " AND metric = %d AND span = %d",
		 app, metric, span);
	return fixture_raw_int(db, sql);
}

/* Reads every event of g into *out, failing the test beyond
 * FIXTURE_GETEVENT_MAX. */
void
fixture_getevent_drain(struct input_getevent *g, struct fixture_getevent *out)
{
	struct touch_event ev;

	out->n = 0;
	while (input_getevent_next(g, &ev) == 1) {
		assert_true(out->n < FIXTURE_GETEVENT_MAX);
		out->ev[out->n++] = ev;
	}
	/* The end stays the end. */
	assert_int_equal(input_getevent_next(g, &ev), 0);
	input_getevent_get_stats(g, &out->st);
	assert_int_equal(out->st.events, out->n);
}

int
fixture_getevent_open_mem(const char *text, const char *device,
			  struct fixture_getevent *out)
{
	struct input_getevent *g = NULL;
	int r;

	r = input_getevent_open_mem(text, strlen(text), "test", device, &g);
	if (r == 0) {
		fixture_getevent_drain(g, out);
		input_getevent_free(g);
	} else {
		assert_null(g);
	}
	return r;
}

void
fixture_expect_event(const struct touch_event *ev, int64_t t, uint16_t type,
		     uint16_t code, int32_t value)
{
	assert_int_equal(ev->time_ns, t);
	assert_int_equal(ev->type, type);
	assert_int_equal(ev->code, code);
	assert_int_equal(ev->value, value);
}
