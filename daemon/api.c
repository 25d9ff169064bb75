#include "api.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api_conns.h"
#include "api_events.h"
#include "api_gestures.h"
#include "api_health.h"
#include "api_metrics.h"
#include "api_request.h"
#include "api_series.h"
#include "api_sessions.h"
#include "api_stats.h"
#include "api_taps.h"
#include "api_trace.h"
#include "api_uri.h"
#include "dbpool.h"
#include "events.h"
#include "log.h"
#include "loop.h"
#include "metrics.h"
#include "parse.h"
#include "store.h"
#include "timeparse.h"
#include "ui.h"

#define API_DEFAULT_LISTEN "127.0.0.1:7878"
#define API_DEFAULT_POOL   4
#define API_DEFAULT_CONNS  512
/*
 * libmicrohttpd's idle timeout (no byte either way) is the backstop behind
 * the head and body deadlines, for a client that stops reading its answer.
 * It is longer than the head deadline so that idle connections are ended
 * by the watch, a few at a time (api_conns.c), not all at once.
 */
#define API_DEFAULT_TIMEOUT_S 30
/*
 * A thread per connection: Android's default stack, so that the limit
 * fits a 32-bit address space too (the glibc default is 8 MiB).
 */
#define API_THREAD_STACK (1024 * 1024)
#define API_TOKEN_MIN	 16
#define API_TOKEN_MAX	 1024
/* How long api_stop() lets the streams end by themselves. */
#define API_STOP_WAIT_MS 1500
/*
 * The largest request head (request line and headers) tapd reads: below
 * the 64 KiB of memory libmicrohttpd gives a connection, past which it
 * answers a 431 of its own in HTML.
 */
#define API_MAX_HEAD (32 * 1024)

struct api {
	struct MHD_Daemon *mhd;
	struct dbpool *pool;
	struct api_request_env env;
	char *token; /* NULL: no auth */
	size_t token_len;
	int stopping;
	int streams;
	uint16_t port;
	/* The deadlines of the connections (api_conns.h). */
	struct api_conns *conns;
	/* Whether a refused URI's query may be cut (api_uri.h). */
	bool cut_query;
	bool no_ui; /* --no-ui: the dashboard's paths are 404s */
};

/*
 * The routes of docs/DESIGN.md 7.6.  A GET route also answers HEAD (MHD
 * leaves the body out); a path with no handler for the method is a 405.
 */
struct api_route {
	/* exact, or a prefix ending in '*'; NULL for the session stop */
	const char *path;
	api_handler get; /* also serves HEAD */
	api_handler post;
	const char *allow;
};

static const struct api_route api_routes[] = {
	{"/v1/health", api_health_get, NULL, "GET, HEAD"},
	{"/v1/taps", api_taps_get, NULL, "GET, HEAD"},
	{"/v1/percentiles", api_stats_percentiles, NULL, "GET, HEAD"},
	{"/v1/apps", api_stats_apps, NULL, "GET, HEAD"},
	{"/v1/histogram", api_stats_histogram, NULL, "GET, HEAD"},
	{"/v1/trace", api_trace_get, NULL, "GET, HEAD"},
	{"/v1/events", api_events_get, NULL, "GET, HEAD"},
	{"/v1/sessions", api_sessions_list, api_sessions_start,
	 "GET, HEAD, POST"},
	{NULL, NULL, api_sessions_stop, "POST"},
	{"/metrics", api_metrics_get, NULL, "GET, HEAD"},
	{"/v1/series", api_series_get, NULL, "GET, HEAD"},
	{"/", ui_get, NULL, "GET, HEAD"},
	{"/ui/*", ui_get, NULL, "GET, HEAD"},
	{"/v1/gestures", api_gestures_list, api_gestures_post,
	 "GET, HEAD, POST"},
};

void
api_config_default(struct api_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->listen = API_DEFAULT_LISTEN;
	cfg->pool_size = API_DEFAULT_POOL;
	cfg->max_conns = API_DEFAULT_CONNS;
	cfg->timeout_s = API_DEFAULT_TIMEOUT_S;
}

/* "/v1/sessions/ID/stop" with ID a decimal number. */
static bool
api_is_session_stop(const char *path)
{
	static const char prefix[] = "/v1/sessions/";
	const char *p;
	size_t digits = 0;

	if (strncmp(path, prefix, sizeof(prefix) - 1) != 0)
		return false;
	p = path + sizeof(prefix) - 1;
	while (p[digits] >= '0' && p[digits] <= '9')
		digits++;
	return digits > 0 && digits <= 19 && strcmp(p + digits, "/stop") == 0;
}

static bool
api_path_match(const char *pattern, const char *path)
{
	size_t n = strlen(pattern);

	if (n > 0 && pattern[n - 1] == '*')
		return strncmp(pattern, path, n - 1) == 0;
	return strcmp(pattern, path) == 0;
}

static const struct api_route *
api_find_route(const struct api *api, const char *path)
{
	size_t i;

	for (i = 0; i < sizeof(api_routes) / sizeof(api_routes[0]); i++) {
		if (api_routes[i].path
			    ? api_path_match(api_routes[i].path, path)
			    : api_is_session_stop(path))
			return api->no_ui && api_routes[i].get == ui_get
				       ? NULL
				       : &api_routes[i];
	}
	return NULL;
}

/*
 * Compares the token sent with ours in time that depends only on our
 * token's length: every byte is looked at whatever differs, and a sent
 * token of another length is compared against itself padded with zeros.
 */
static bool
api_token_equal(const char *sent, size_t sent_len, const char *ours,
		size_t ours_len)
{
	volatile unsigned char diff;
	unsigned char c;
	size_t i;

	diff = sent_len != ours_len;
	for (i = 0; i < ours_len; i++) {
		c = i < sent_len ? (unsigned char)sent[i] : 0;
		diff |= c ^ (unsigned char)ours[i];
	}
	return diff == 0;
}

/* Whether the request carries "Authorization: Bearer <our token>". */
static bool
api_authorized(const struct api *api, struct MHD_Connection *conn)
{
	const char *v = NULL;
	size_t len = 0;

	if (MHD_lookup_connection_value_n(conn, MHD_HEADER_KIND,
					  MHD_HTTP_HEADER_AUTHORIZATION,
					  strlen(MHD_HTTP_HEADER_AUTHORIZATION),
					  &v, &len) != MHD_YES ||
	    !v)
		return false;
	/* The scheme is case-insensitive (RFC 7235), then one or more SP. */
	if (len < 7 || strncasecmp(v, "Bearer ", 7) != 0)
		return false;
	v += 7;
	len -= 7;
	while (len > 0 && *v == ' ') {
		v++;
		len--;
	}
	while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	return api_token_equal(v, len, api->token, api->token_len);
}

static enum MHD_Result
api_result(struct api_request *rq)
{
	return api_request__replied(rq) > 0 ? MHD_YES : MHD_NO;
}

/*
 * The first call, with the headers only: decides whatever can be decided
 * before a body is read, so that a refused request never uploads it.
 * Returns the route to run, or NULL when a reply is queued (or failed).
 */
static const struct api_route *
api_begin(struct api *api, struct api_request *rq, struct MHD_Connection *conn,
	  const char *method, const char *url)
{
	const union MHD_ConnectionInfo *info;
	const struct api_route *route;
	const char *clen;
	int64_t n;

	/*
	 * The dashboard's files hold no data and are what asks for the
	 * token, so they are served without it (ui.h).
	 */
	route = api_find_route(api, url);
	if (api->token && !(route && route->get == ui_get) &&
	    !api_authorized(api, conn)) {
		api_request__add_header(rq, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"tapd\"");
		api_request_reply_error(rq, 401, "unauthorized",
					"this server needs 'Authorization: "
					"Bearer <token>' with its token");
		return NULL;
	}
	if (api_request__send_refusal(rq))
		return NULL;
	info = MHD_get_connection_info(conn,
				       MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
	if (info && info->header_size > API_MAX_HEAD) {
		api_request_reply_error(rq, 431, "too_large",
					"the request head is %zu bytes, more "
					"than the %d allowed",
					info->header_size, API_MAX_HEAD);
		return NULL;
	}
	if (!route) {
		api_request_reply_error(rq, 404, "not_found",
					"no such endpoint: '%.128s'", url);
		return NULL;
	}
	if (!((route->get && (strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
			      strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)) ||
	      (route->post && strcmp(method, MHD_HTTP_METHOD_POST) == 0))) {
		api_request__add_header(rq, MHD_HTTP_HEADER_ALLOW,
					route->allow);
		api_request_reply_error(
			rq, 405, "method_not_allowed",
			"%.16s is not allowed on '%s' (allowed: "
			"%s)",
			method, url, route->allow);
		return NULL;
	}
	clen = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					   MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (clen && parse_int64(clen, 0, INT64_MAX, &n) == 0 &&
	    n > API_REQUEST_MAX_BODY) {
		api_request_reply_error(rq, 413, "too_large",
					"the request body is %s bytes, more "
					"than the %d allowed",
					clen, API_REQUEST_MAX_BODY);
		return NULL;
	}
	return route;
}

/*
 * libmicrohttpd's first look at a request: its raw URI, as soon as the
 * request line is in.  The request starts here, so that what only the
 * raw URI shows is refused with the JSON error of api_begin().
 */
static void *
api_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct api *api = cls;
	struct api_request *rq;

	/* Without memory, api_access() tries again the usual way. */
	if (api_request__new_early(conn, &api->env, &rq) < 0)
		return NULL;
	if (uri)
		api_uri_check(rq, uri, api->cut_query);
	return rq;
}

static enum MHD_Result
api_access(void *cls, struct MHD_Connection *conn, const char *url,
	   const char *method, const char *version, const char *upload_data,
	   size_t *upload_data_size, void **con_cls)
{
	struct api *api = cls;
	struct api_request *rq = *con_cls;
	const struct api_route *route;
	api_handler handler;
	int rc;

	(void)version;
	if (!rq || !api_request__begun(rq)) {
		rc = rq ? api_request__begin(rq, method, url)
			: api_request__new(conn, &api->env, method, url, &rq);
		if (rc < 0) {
			log_warnx("cannot serve '%s %s': out of memory", method,
				  url);
			return MHD_NO;
		}
		*con_cls = rq;
		/* The head is in: the body, if any, has its own deadline. */
		api_conns_arm(api->conns, conn, API_CONNS_BODY_TIMEOUT_S);
		if (!api_begin(api, rq, conn, method, url)) {
			api_conns_arm(api->conns, conn, 0);
			return api_result(rq);
		}
		return MHD_YES;
	}
	/* A reply queued by the first call: the rest is only drained. */
	if (api_request__replied(rq)) {
		*upload_data_size = 0;
		return api_result(rq);
	}
	if (*upload_data_size != 0) {
		/*
		 * A body without a Content-Length (chunked) is only found
		 * too large here, when no reply may be queued yet: it is
		 * dropped up to a point, and the 413 goes at the end.
		 */
		rc = api_request__append(rq, upload_data, *upload_data_size);
		if (rc == -ENOMEM || rc == -EMSGSIZE)
			return MHD_NO;
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* The whole request is in: answering it has no deadline. */
	api_conns_arm(api->conns, conn, 0);
	route = api_find_route(api, url);
	if (!route)
		return MHD_NO;
	/* Appending nothing tells whether the body was already too large. */
	if (api_request__append(rq, "", 0) == -E2BIG) {
		api_request_reply_error(rq, 413, "too_large",
					"the request body is larger than the "
					"%d bytes allowed",
					API_REQUEST_MAX_BODY);
		return api_result(rq);
	}
	handler = strcmp(method, MHD_HTTP_METHOD_POST) == 0 ? route->post
							    : route->get;
	rc = handler(rq);
	api_request__handled(rq);
	if (api_request__replied(rq) == 0) {
		if (rc < 0)
			log_warnx("cannot serve '%s %s': %s", method, url,
				  strerror(-rc));
		else
			log_warnx("BUG: '%s %s' ended without a reply", method,
				  url);
		api_request_reply_error(rq, 500, "internal",
					"the server failed to answer: %s",
					rc < 0 ? strerror(-rc) : "no reply");
	}
	return api_result(rq);
}

static void
api_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
	      enum MHD_RequestTerminationCode toe)
{
	struct api *api = cls;

	/* A kept-alive connection has the head deadline for its next one. */
	api_conns_arm(api->conns, conn, API_CONNS_HEAD_TIMEOUT_S);
	if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
		log_debug("request ended early (termination code %d)",
			  (int)toe);
	api_request__unref(*con_cls);
	*con_cls = NULL;
}

static void
api_panic(void *cls, const char *file, unsigned int line, const char *reason)
{
	(void)cls;
	log_error("microhttpd panic at %s:%u: %s", file ? file : "?", line,
		  reason ? reason : "no reason given");
	abort();
}

/*
 * Parses "HOST:PORT": an IPv4 address, "[v6]" or "localhost" (which is
 * 127.0.0.1: a name server has no say in where the API listens).
 */
static int
api_parse_listen(const char *listen, struct sockaddr_storage *ss,
		 socklen_t *sslen, bool *loopback)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *colon, *host, *close;
	char buf[INET6_ADDRSTRLEN + 1];
	size_t hlen;
	int64_t port;

	memset(ss, 0, sizeof(*ss));
	colon = strrchr(listen, ':');
	if (!colon || parse_int64(colon + 1, 0, 65535, &port) < 0) {
		log_error("cannot listen on '%s': expected HOST:PORT with a "
			  "port of 0 to 65535",
			  listen);
		return -EINVAL;
	}
	host = listen;
	hlen = (size_t)(colon - listen);
	if (hlen > 0 && host[0] == '[') {
		close = memchr(host, ']', hlen);
		if (!close || close != colon - 1) {
			log_error("cannot listen on '%s': an IPv6 address is "
				  "written [ADDRESS]:PORT",
				  listen);
			return -EINVAL;
		}
		host++;
		hlen -= 2;
		if (hlen >= sizeof(buf))
			goto bad;
		memcpy(buf, host, hlen);
		buf[hlen] = '\0';
		if (inet_pton(AF_INET6, buf, &sin6->sin6_addr) != 1)
			goto bad;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*sslen = sizeof(*sin6);
		*loopback = IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) ||
			    (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) &&
			     sin6->sin6_addr.s6_addr[12] == 127);
		return 0;
	}
	if (hlen >= sizeof(buf))
		goto bad;
	memcpy(buf, host, hlen);
	buf[hlen] = '\0';
	if (strcasecmp(buf, "localhost") == 0) {
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else if (inet_pton(AF_INET, buf, &sin->sin_addr) != 1) {
		goto bad;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	*sslen = sizeof(*sin);
	*loopback = (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	return 0;
bad:
	log_error("cannot listen on '%s': the host must be an IPv4 address, "
		  "[IPv6] or localhost",
		  listen);
	return -EINVAL;
}

/*
 * Reads the token: the first line of a regular file that others cannot
 * read, of API_TOKEN_MIN..API_TOKEN_MAX visible ASCII characters.
 */
static int
api_read_token(struct api *api, const char *path)
{
	char buf[API_TOKEN_MAX + 2];
	struct stat sb;
	ssize_t n;
	size_t len, i;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		log_error("cannot open token file '%s': %s", path,
			  strerror(-rc));
		return rc == -ENOENT || rc == -EACCES ? -EINVAL : rc;
	}
	if (fstat(fd, &sb) != 0) {
		rc = -errno;
		log_error("cannot stat token file '%s': %s", path,
			  strerror(-rc));
		goto out;
	}
	rc = -EINVAL;
	if (!S_ISREG(sb.st_mode)) {
		log_error("cannot use token file '%s': not a regular file",
			  path);
		goto out;
	}
	/*
	 * Anyone who can read the token can use the API as its owner, so a
	 * file any user can read is refused; a group is a deliberate
	 * choice, so it only earns a warning.
	 */
	if (sb.st_mode & (S_IROTH | S_IWOTH)) {
		log_error("refusing token file '%s': other users can read or "
			  "write it (mode %04o): chmod 600 it",
			  path, (unsigned)(sb.st_mode & 07777));
		goto out;
	}
	if (sb.st_mode & (S_IRGRP | S_IWGRP))
		log_warnx("token file '%s' is open to its group (mode %04o)",
			  path, (unsigned)(sb.st_mode & 07777));
	len = 0;
	while (len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			log_error("cannot read token file '%s': %s", path,
				  strerror(-rc));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	/* The first line, without its line ending. */
	for (i = 0; i < len && buf[i] != '\n'; i++)
		;
	len = i;
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	if (len > API_TOKEN_MAX) {
		log_error("cannot use token file '%s': the token is longer "
			  "than %d characters",
			  path, API_TOKEN_MAX);
		goto out;
	}
	if (len < API_TOKEN_MIN) {
		log_error("cannot use token file '%s': the token has %zu "
			  "characters, fewer than %d",
			  path, len, API_TOKEN_MIN);
		goto out;
	}
	for (i = 0; i < len; i++) {
		if (buf[i] <= ' ' || buf[i] > '~') {
			log_error("cannot use token file '%s': the token may "
				  "hold visible ASCII characters only",
				  path);
			goto out;
		}
	}
	api->token = malloc(len + 1);
	if (!api->token) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(api->token, buf, len);
	api->token[len] = '\0';
	api->token_len = len;
	rc = 0;
out:
	/* The token leaves no copy behind on the stack. */
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return rc;
}

static void
api_free(struct api *api)
{
	if (!api)
		return;
	api_conns_free(api->conns);
	dbpool_free(api->pool);
	if (api->token)
		explicit_bzero(api->token, api->token_len);
	free(api->token);
	free(api);
}

int
api_start(const struct api_config *cfg, struct api **out)
{
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss;
	struct api *api = NULL;
	socklen_t sslen = 0;
	const char *listen;
	unsigned pool_size, conns, per_ip, timeout, flags;
	bool loopback = false;
	int rc, err;

	if (!cfg || !out)
		return -EINVAL;
	listen = cfg->listen ? cfg->listen : API_DEFAULT_LISTEN;
	pool_size = cfg->pool_size ? cfg->pool_size : API_DEFAULT_POOL;
	conns = cfg->max_conns ? cfg->max_conns : API_DEFAULT_CONNS;
	timeout = cfg->timeout_s ? cfg->timeout_s : API_DEFAULT_TIMEOUT_S;
	rc = api_parse_listen(listen, &ss, &sslen, &loopback);
	if (rc < 0)
		return rc;
	if (!loopback && !cfg->token_file) {
		log_error("refusing to listen on '%s' without a token file: "
			  "any address but loopback needs --token-file",
			  listen);
		return -EINVAL;
	}
	api = calloc(1, sizeof(*api));
	if (!api)
		return -ENOMEM;
	rc = api_conns_new(&api->conns);
	if (rc < 0)
		goto out;
	if (cfg->token_file) {
		rc = api_read_token(api, cfg->token_file);
		if (rc < 0)
			goto out;
	}
	if (cfg->db_path) {
		rc = dbpool_new(cfg->db_path, pool_size, &api->pool);
		if (rc < 0)
			goto out;
	}
	api->no_ui = cfg->no_ui != 0;
	api->env.status = cfg->status;
	api->env.events = cfg->events;
	api->env.control = cfg->control;
	api->env.metrics = cfg->metrics;
	api->env.inject = cfg->inject;
	api->env.pool = api->pool;
	api->env.started_ns = timeparse_realtime_ns();
	api->env.stopping = &api->stopping;
	api->env.streams = &api->streams;

	MHD_set_panic_func(api_panic, NULL);
	/*
	 * A thread per connection: the handlers block (SQLite, the event
	 * stream's waits), which would stall every other client of a
	 * polling thread (docs/DESIGN.md 4).  ITC makes quiescing possible.
	 */
	flags = MHD_USE_INTERNAL_POLLING_THREAD |
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO |
		MHD_USE_ERROR_LOG | MHD_USE_ITC;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/*
	 * On loopback every client is 127.0.0.1 (adb forward), so a limit
	 * per address would cap them all together: there is none.  Anywhere
	 * else half the connections leave room for a second address.
	 */
	per_ip = loopback ? 0 : conns / 2 ? conns / 2 : 1;
	api->cut_query = strncmp(MHD_get_version(), "0.9.", 4) == 0;
	errno = 0;
	api->mhd = MHD_start_daemon(
		flags, 0, NULL, NULL, api_access, api,
		/* The logger first, so that option errors reach it. */
		MHD_OPTION_EXTERNAL_LOGGER, api_conns_log, NULL,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_THREAD_STACK_SIZE, (size_t)API_THREAD_STACK,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)conns,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)per_ip,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
		MHD_OPTION_NOTIFY_COMPLETED, api_completed, api,
		MHD_OPTION_NOTIFY_CONNECTION, api_conns_notify, api->conns,
		MHD_OPTION_URI_LOG_CALLBACK, api_uri, api, MHD_OPTION_END);
	if (!api->mhd) {
		err = errno;
		rc = err == EADDRINUSE || err == EACCES ||
				     err == EADDRNOTAVAIL || err == EAFNOSUPPORT
			     ? -err
			     : -EIO;
		log_error("cannot listen on '%s': %s", listen,
			  rc == -EIO ? "the HTTP server did not start"
				     : strerror(err));
		goto out;
	}
	rc = api_conns_start(api->conns);
	if (rc < 0) {
		log_warnx("cannot start the connection watch: %s",
			  strerror(-rc));
		MHD_stop_daemon(api->mhd);
		goto out;
	}
	info = MHD_get_daemon_info(api->mhd, MHD_DAEMON_INFO_BIND_PORT);
	api->port = info ? info->port : 0;
	log_info("serving the API on '%s' (port %u)%s", listen,
		 (unsigned)api->port, api->token ? " with a token" : "");
	*out = api;
	api = NULL;
	rc = 0;
out:
	api_free(api);
	return rc;
}

int
api_check(const char *listen, const char *token_file)
{
	struct sockaddr_storage ss;
	struct api *probe;
	socklen_t sslen = 0;
	bool loopback = false;
	int rc;

	if (!listen)
		listen = API_DEFAULT_LISTEN;
	rc = api_parse_listen(listen, &ss, &sslen, &loopback);
	if (rc < 0)
		return rc;
	if (!loopback && !token_file) {
		log_error("refusing to listen on '%s' without a token file: "
			  "any address but loopback needs --token-file",
			  listen);
		return -EINVAL;
	}
	if (!token_file)
		return 0;
	/* The token is read the way api_start() reads it, then forgotten. */
	probe = calloc(1, sizeof(*probe));
	if (!probe)
		return -ENOMEM;
	rc = api_read_token(probe, token_file);
	api_free(probe);
	return rc;
}

int
api_url(const char *listen, uint16_t port, char *buf, size_t len)
{
	const char *colon;
	int n;

	if (!listen)
		listen = API_DEFAULT_LISTEN;
	/* The host is everything before the last colon ("[::1]" included). */
	colon = strrchr(listen, ':');
	n = snprintf(buf, len, "%.*s:%u",
		     colon ? (int)(colon - listen) : (int)strlen(listen),
		     listen, (unsigned)port);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* Seeds the tap metrics from what the database already holds. */
static int
api_seed_metrics(const char *db, struct metrics *m)
{
	struct store *st = NULL;
	int rc;

	/* Opened the way the pool opens it, so a read-only copy works too. */
	rc = dbpool_open_store(db, &st, NULL);
	if (rc == 0)
		rc = metrics_load(m, st);
	store_close(st);
	return rc;
}

int
api_bring_up(const struct api_config *cfg, struct api **out)
{
	sigset_t block, old;
	char url[300];
	int rc;

	*out = NULL;
	/* The counters go on from what the database already holds. */
	if (cfg->metrics && cfg->db_path) {
		rc = api_seed_metrics(cfg->db_path, cfg->metrics);
		if (rc < 0)
			return rc;
	}
	/*
	 * The server's threads inherit the signal mask: with the stop
	 * signals blocked while they start, only the caller's thread ever
	 * handles them.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = api_start(cfg, out);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc < 0)
		return rc;
	api_url(cfg->listen, api_port(*out), url, sizeof(url));
	printf("listening on http://%s\n", url);
	fflush(stdout);
	return 0;
}

uint16_t
api_port(const struct api *api)
{
	return api->port;
}

void
api_stop(struct api *api)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	MHD_socket ls;
	int waited;

	if (!api)
		return;
	/* Stop accepting first, so that nothing new starts meanwhile. */
	ls = MHD_quiesce_daemon(api->mhd);
	/*
	 * Streams look at the flag when woken (or every quarter second
	 * without a ring) and end
	 * their response properly (the last chunk, then the connection
	 * stays or closes as usual).  MHD_stop_daemon closes every socket
	 * at once, so it waits until they have, or for a bounded time.
	 */
	__atomic_store_n(&api->stopping, 1, __ATOMIC_RELEASE);
	/* Streams on the ring sleep until woken: they look at the flag. */
	if (api->env.events)
		events_wake(api->env.events);
	for (waited = 0; waited < API_STOP_WAIT_MS &&
			 __atomic_load_n(&api->streams, __ATOMIC_ACQUIRE) > 0;
	     waited += 10)
		nanosleep(&tick, NULL);
	/* Requests in flight finish: it joins their threads. */
	MHD_stop_daemon(api->mhd);
	api_conns_stop(api->conns);
	/* Only now, as the header says for threaded modes. */
	if (ls != MHD_INVALID_SOCKET)
		close(ls);
	api_free(api);
}
