/*
 * The HTTP API (docs/DESIGN.md 7.6) on libmicrohttpd: thread per
 * connection, loopback by default, a pool of read-only SQLite connections,
 * bearer-token auth for any other address, JSON errors everywhere.
 * Handlers live in api_*.c; this module owns the server, the routing, the
 * auth and the shutdown.
 */
#ifndef TAPD_API_H
#define TAPD_API_H

#include <stddef.h>
#include <stdint.h>

struct control;
struct events;
struct inject;
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
	unsigned max_conns;    /* connection (= thread) limit, default 512 */
	unsigned timeout_s;    /* idle connection timeout, default 30 */
	struct status *status; /* live counters for /v1/health; may be NULL */
	struct events *events; /* finalized taps for /v1/events; may be NULL */
	struct control *control; /* the writer, for POST /v1/sessions; NULL =
				    read-only */
	struct metrics *metrics; /* /metrics; may be NULL */
	int no_ui;		 /* nonzero: no dashboard at / (ui.h) */
	/*
	 * The injector of POST /v1/gestures (inject.h); NULL answers 403:
	 * injection is off.  Given only with a token file.
	 */
	struct inject *inject;
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

/*
 * Checks what api_start() would refuse, binding nothing: the address
 * ("HOST:PORT", NULL for the default), an address other than loopback
 * without a token file, a token file that cannot be used.  For commands
 * to refuse their options before they open anything.  Returns 0, or
 * -EINVAL after logging why.
 */
int api_check(const char *listen, const char *token_file);

/*
 * The API of a command, the same for run, replay --listen and serve:
 * seeds cfg->metrics (when not NULL) from the database at cfg->db_path,
 * starts the server with SIGINT and SIGTERM blocked (its threads inherit
 * the mask, so the caller's thread alone handles them), and prints
 * "listening on http://HOST:PORT" on stdout.  Returns 0 and sets *out
 * (stop with api_stop()); what api_start() returns; or the database's
 * errno.
 */
int api_bring_up(const struct api_config *cfg, struct api **out);

/*
 * Writes "HOST:PORT" for the address given to --listen (the default when
 * NULL) and the port actually bound.  Returns 0 or -ENOSPC.
 */
int api_url(const char *listen, uint16_t port, char *buf, size_t len);

/* The port actually bound (useful with port 0). */
uint16_t api_port(const struct api *api);

/*
 * Graceful shutdown: stop accepting, end the event streams, wait for the
 * requests in flight, close the pool, free.  NULL is a no-op.
 */
void api_stop(struct api *api);

#endif
