/*
 * The connections of the HTTP API as its deadlines see them, for api.c
 * only.  libmicrohttpd's own timeout is an idle one that every byte
 * resets, so a client sending a byte a second would keep its connection
 * (and thread) for ever: every connection opened joins a list, each step
 * of a request has a deadline, and a thread shuts down the sockets of
 * the connections past theirs.  The module also keeps the lines about
 * refused connections from flooding the log.
 */
#ifndef TAPD_API_CONNS_H
#define TAPD_API_CONNS_H

#include <microhttpd.h>
#include <stdarg.h>

/*
 * A connection must deliver a whole request head this long after it
 * opened or after its previous answer, and a request body this long
 * after its head (docs/tapd.8, HTTP API).
 */
#define API_CONNS_HEAD_TIMEOUT_S 10
#define API_CONNS_BODY_TIMEOUT_S 30

struct api_conns;

/*
 * Allocates the watch, its list empty and its thread not started.
 * Returns 0 and sets *out, or a negative errno.
 */
int api_conns_new(struct api_conns **out);

/*
 * Starts the watch's thread, once the server runs.  Returns 0, or the
 * negative errno of pthread_create().
 */
int api_conns_start(struct api_conns *w);

/*
 * Ends the watch's thread, once the server has closed every connection.
 * A watch whose thread never started is left as it is.
 */
void api_conns_stop(struct api_conns *w);

/* Frees the watch, after api_conns_stop().  NULL is a no-op. */
void api_conns_free(struct api_conns *w);

/*
 * Starts the deadline of conn's next step: limit_s to go from now, or
 * none (0).  A connection unknown to the watch (no memory when it
 * opened) has none.
 */
void api_conns_arm(struct api_conns *w, struct MHD_Connection *conn,
		   int limit_s);

/*
 * The MHD_OPTION_NOTIFY_CONNECTION callback, with the watch as cls:
 * opened connections join the list with the head deadline, closed ones
 * leave it.
 */
void api_conns_notify(void *cls, struct MHD_Connection *conn,
		      void **socket_context,
		      enum MHD_ConnectionNotificationCode code);

/*
 * The MHD_OPTION_EXTERNAL_LOGGER callback: the lines about refused
 * connections at most every ten seconds, with the count of the ones
 * left out; everything else to log_mhd() as it is.
 */
void api_conns_log(void *cls, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
