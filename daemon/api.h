/*
 * The HTTP API (DESIGN.md section 4) on libmicrohttpd: thread per
 * connection, loopback by default, a pool of read-only SQLite connections,
 * bearer-token auth for any other address, JSON errors everywhere.
 * Handlers live in api_*.c; this module owns the server, the routing, the
 * auth and the shutdown.
 */
#ifndef TAPD_API_H
#define TAPD_API_H

#include <stdint.h>

struct control;
struct events;
struct status;
struct metrics;

struct api_config {
	/*
	 * "HOST:PORT" (IPv4 or "[v6]:PORT"); port 0 picks a free one.
	 * Default "127.0.0.1:7878".
	 */
	const char *listen;
	/*
	 * A file holding the bearer token (first line, trailing newline
	 * stripped; at least 16 characters).  Required for any non-loopback
	 * address; when given, every request must carry it.
	 */
	const char *token_file;
	const char *db_path;   /* opened read-only by the pool */
	unsigned pool_size;    /* read-only connections, default 4 */
	unsigned max_conns;    /* connection (= thread) limit, default 32 */
	unsigned timeout_s;    /* idle connection timeout, default 30 */
	struct status *status; /* live counters for /v1/health; may be NULL */
	struct events *events; /* finalized taps for /v1/events; may be NULL */
	struct control *control; /* the writer, for POST /v1/sessions; NULL =
				    read-only */
	struct metrics *metrics; /* /metrics; may be NULL */
};

struct api;

void api_config_default(struct api_config *cfg);

/*
 * Checks the config, opens the pool and starts serving.  Returns 0 and
 * sets *out; -EINVAL after logging why (a bad address, a non-loopback
 * address without a token file, a token file that is unreadable, too
 * permissive or too short); -EADDRINUSE and friends from bind; the
 * store's errors for the database.  Stop with api_stop().
 */
int api_start(const struct api_config *cfg, struct api **out);

/* The port actually bound (useful with port 0). */
uint16_t api_port(const struct api *api);

/*
 * Graceful shutdown: stop accepting, end the event streams, wait for the
 * requests in flight, close the pool, free.  NULL is a no-op.
 */
void api_stop(struct api *api);

#endif
