/*
 * The refusals of what only a request's raw URI shows, for api.c's URI
 * callback (libmicrohttpd's first look at a request, as soon as the
 * request line is in): a URI too long, a query of too many pairs, a path
 * holding a control character.  libmicrohttpd parses the query into its
 * per-connection memory right after, which a few hundred pairs exhaust,
 * so these cannot wait for the handler.
 */
#ifndef TAPD_API_URI_H
#define TAPD_API_URI_H

#include <stdbool.h>

struct api_request;

/*
 * Looks at the raw uri of the request rq has begun and queues on rq the
 * refusal it earns (api_request__refuse()), if any.  With cut_query (a
 * libmicrohttpd of 0.9.x), a refused URI's query is ended after its '?'
 * in place, in the connection's read buffer, so that nothing is left to
 * parse and the refusal is what the client hears.
 */
void api_uri_check(struct api_request *rq, const char *uri, bool cut_query);

#endif
