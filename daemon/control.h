/*
 * Requests from the HTTP threads to the ingest thread, which owns the only
 * writable database connection: start and stop sessions.  The HTTP thread
 * blocks in control_call() until the ingest thread has served the request
 * in control_serve() (or the timeout passes); the ingest thread polls the
 * eventfd of control_fd(), or calls control_serve() between batches.
 */
#ifndef TAPD_CONTROL_H
#define TAPD_CONTROL_H

#include <stdint.h>

enum control_op {
	CONTROL_SESSION_START, /* name -> id */
	CONTROL_SESSION_STOP,  /* id */
};

struct control_request {
	enum control_op op;
	const char *name; /* CONTROL_SESSION_START: 1..128 bytes */
	int64_t id;	  /* CONTROL_SESSION_STOP */
	/* Filled by the server: */
	int rc;		   /* 0, -ENOENT (no such session), -EALREADY (stopped
			      already / one open), -EROFS, other -errno */
	int64_t result_id; /* the session started or stopped */
	int64_t started_ns, stopped_ns; /* REALTIME */
};

/* Serves one request on the ingest thread; sets req->rc and results. */
typedef void (*control_handler)(void *ctx, struct control_request *req);

struct control;

int control_new(struct control **out);
void control_free(struct control *c); /* NULL is a no-op */

/* An eventfd that becomes readable when a request waits. */
int control_fd(const struct control *c);

/*
 * From any thread: queues req and waits up to timeout_ms for it to be
 * served.  Returns 0 (req->rc holds the outcome) or -ETIMEDOUT (the request
 * is withdrawn; it will not be served later) or -ESHUTDOWN.
 */
int control_call(struct control *c, struct control_request *req,
		 int timeout_ms);

/* On the ingest thread: serves every queued request with fn. */
void control_serve(struct control *c, control_handler fn, void *ctx);

/* Fails every waiting and future call with -ESHUTDOWN. */
void control_shutdown(struct control *c);

#endif
