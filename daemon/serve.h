/*
 * `tapd serve`: the HTTP API over an existing database, read-only, until
 * SIGINT or SIGTERM.  Works on a database copied off a device.
 */
#ifndef TAPD_SERVE_H
#define TAPD_SERVE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct serve_options {
	const char *db;
	const char *listen;	/* NULL for the default 127.0.0.1:7878 */
	const char *token_file; /* NULL for none */
	int no_ui;		/* --no-ui: no dashboard at / */
	const char *buckets;	/* --buckets, NULL for the defaults */
	const volatile sig_atomic_t *stop; /* set by the signal handler */
};

/*
 * Serves until *stop is set.  Prints "listening on http://HOST:PORT" as
 * the first line on stdout once the port is bound.  Returns 0, -EINVAL
 * for a refused configuration (logged), or the negative errno of the
 * database or the socket.
 */
int serve_run(const struct serve_options *opts);

#endif
