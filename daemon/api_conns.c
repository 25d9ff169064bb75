#include "api_conns.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "log.h"
#include "loop.h"

/*
 * At most this many sockets are shut down a tick, and the next tick comes
 * sooner while more are due.  Each closed connection's thread is joined
 * by libmicrohttpd's polling thread, which accepts nothing meanwhile:
 * hundreds of sockets opened together and cut together stalled new
 * requests for most of a second.  Spread out, 200 take about 0.6 s.
 */
#define API_CONNS_CUT_MAX      16
#define API_CONNS_BUSY_TICK_MS 50
/* At most one line about refused connections this often. */
#define API_CONNS_REFUSED_LOG_NS (10 * 1000000000LL)

/* A connection as the deadlines see it. */
struct api_conns_item {
	struct api_conns_item *prev;
	struct api_conns_item *next;
	int fd;
	int64_t since_ns; /* when the current deadline started */
	int64_t limit_ns; /* how long it lasts; 0: none (being answered) */
	bool cut;
};

/* The list of connections and the thread that watches it. */
struct api_conns {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running;
	bool stop;
	struct api_conns_item *list;
	/*
	 * When the watch wakes next, INT64_MAX while it sleeps without a
	 * deadline: a deadline set earlier than that wakes it.
	 */
	int64_t wake_ns;
};

int
api_conns_new(struct api_conns **out)
{
	pthread_condattr_t attr;
	struct api_conns *w;
	int rc;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->wake_ns = INT64_MAX;
	rc = pthread_condattr_init(&attr);
	if (rc != 0)
		goto fail;
	rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (rc != 0)
		goto fail;
	rc = pthread_mutex_init(&w->lock, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&w->wake);
		goto fail;
	}
	*out = w;
	return 0;
fail:
	free(w);
	return -rc;
}

/*
 * Under the lock: wakes the watch when c's deadline comes before the one
 * it sleeps until, so that it sleeps until the earliest deadline and is
 * never woken for one that is later.
 */
static void
wake_for(struct api_conns *w, const struct api_conns_item *c)
{
	if (!c->limit_ns || c->since_ns + c->limit_ns >= w->wake_ns)
		return;
	w->wake_ns = c->since_ns + c->limit_ns;
	pthread_cond_signal(&w->wake);
}

void
api_conns_arm(struct api_conns *w, struct MHD_Connection *conn, int limit_s)
{
	const union MHD_ConnectionInfo *info;
	struct api_conns_item *c;

	info = MHD_get_connection_info(conn,
				       MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	c = info ? info->socket_context : NULL;
	if (!c)
		return;
	pthread_mutex_lock(&w->lock);
	c->since_ns = loop_now_ns();
	c->limit_ns = (int64_t)limit_s * 1000000000LL;
	wake_for(w, c);
	pthread_mutex_unlock(&w->lock);
}

void
api_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		 enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *info;
	struct api_conns *w = cls;
	struct api_conns_item *c = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(
			conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		/*
		 * Without memory the connection goes unwatched: the idle
		 * timeout still ends one that sends nothing.
		 */
		c = info ? calloc(1, sizeof(*c)) : NULL;
		if (!c)
			return;
		c->fd = info->connect_fd;
		c->limit_ns = (int64_t)API_CONNS_HEAD_TIMEOUT_S * 1000000000LL;
		pthread_mutex_lock(&w->lock);
		c->since_ns = loop_now_ns();
		c->next = w->list;
		if (w->list)
			w->list->prev = c;
		w->list = c;
		wake_for(w, c);
		pthread_mutex_unlock(&w->lock);
		*socket_context = c;
		return;
	}
	if (!c)
		return;
	/*
	 * libmicrohttpd says a connection is closed before it closes the
	 * socket: once off the list, its descriptor is never shut down
	 * again, even if a new connection gets the same number.
	 */
	pthread_mutex_lock(&w->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		w->list = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&w->lock);
	free(c);
	*socket_context = NULL;
}

/*
 * The watch: shuts down the sockets of the connections past their
 * deadline, then sleeps until the earliest deadline still to come (or
 * until one is set, with none), so that an idle server costs no wake-up.
 * The connection's own thread then reads the end of the stream and
 * closes it the usual way.
 */
static void *
api_conns_watch(void *arg)
{
	struct api_conns *w = arg;
	struct api_conns_item *c;
	struct timespec ts;
	int64_t now, due, next;
	unsigned cut;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		now = loop_now_ns();
		cut = 0;
		next = INT64_MAX;
		for (c = w->list; c; c = c->next) {
			if (c->cut || !c->limit_ns)
				continue;
			due = c->since_ns + c->limit_ns;
			if (due > now) {
				if (due < next)
					next = due;
				continue;
			}
			if (cut == API_CONNS_CUT_MAX) {
				next = now + API_CONNS_BUSY_TICK_MS * 1000000LL;
				break;
			}
			shutdown(c->fd, SHUT_RDWR);
			c->cut = true;
			cut++;
		}
		if (cut)
			log_debug("closed %u connection%s past the deadline of "
				  "a request",
				  cut, cut == 1 ? "" : "s");
		w->wake_ns = next;
		if (next == INT64_MAX) {
			pthread_cond_wait(&w->wake, &w->lock);
			continue;
		}
		ts.tv_sec = (time_t)(next / 1000000000LL);
		ts.tv_nsec = (long)(next % 1000000000LL);
		pthread_cond_timedwait(&w->wake, &w->lock, &ts);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int
api_conns_start(struct api_conns *w)
{
	int err;

	err = pthread_create(&w->thread, NULL, api_conns_watch, w);
	if (err != 0)
		return -err;
	w->running = true;
	return 0;
}

void
api_conns_stop(struct api_conns *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->running = false;
}

void
api_conns_free(struct api_conns *w)
{
	if (!w)
		return;
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/*
 * libmicrohttpd logs each connection it refuses (past the limit, or when
 * accept fails), which a crowd of clients turns into a flood: those lines
 * come at most every API_CONNS_REFUSED_LOG_NS, with the count of the ones
 * left out.  Everything else goes to log_mhd() as it is.
 */
void
api_conns_log(void *cls, const char *fmt, va_list ap)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static int64_t last_ns;
	static unsigned long suppressed;
	unsigned long before;
	char msg[512];
	int64_t now;
	va_list copy;

	va_copy(copy, ap);
	vsnprintf(msg, sizeof(msg), fmt, copy);
	va_end(copy);
	if (!strcasestr(msg, "connection limit") &&
	    !strcasestr(msg, "accepting connection") &&
	    !strcasestr(msg, "connection rejected")) {
		log_mhd(cls, fmt, ap);
		return;
	}
	now = loop_now_ns();
	pthread_mutex_lock(&lock);
	if (last_ns && now - last_ns < API_CONNS_REFUSED_LOG_NS) {
		suppressed++;
		pthread_mutex_unlock(&lock);
		return;
	}
	last_ns = now;
	before = suppressed;
	suppressed = 0;
	pthread_mutex_unlock(&lock);
	msg[strcspn(msg, "\r\n")] = '\0';
	if (before)
		log_warnx("microhttpd: %s (%lu more like it suppressed since "
			  "the last such line)",
			  msg, before);
	else
		log_warnx("microhttpd: %s", msg);
}
