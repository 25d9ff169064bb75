#include "api_uri.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api_request.h"
#include "parse.h"

/*
 * The longest URI and the most query pairs ('&'-separated, empty ones
 * too) tapd reads.  Both are checked on the raw URI, before
 * libmicrohttpd parses the query into its per-connection memory, which
 * a few hundred pairs exhaust.
 */
#define API_URI_MAX	  8192
#define API_URI_MAX_PAIRS 64

/* Whether a byte is a control character (C0 or DEL). */
static bool
api_uri_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/*
 * Whether the first len bytes of a raw path hold a control character,
 * as is or percent-encoded: decoded, "%00" would end the C string the
 * handlers see, and "/v1/health%00" would be /v1/health.
 */
static bool
api_uri_path_has_control(const char *path, size_t len)
{
	size_t i;
	int hi, lo;

	for (i = 0; i < len; i++) {
		if (api_uri_is_control((unsigned char)path[i]))
			return true;
		if (path[i] != '%' || i + 2 >= len)
			continue;
		hi = parse_hex_digit(path[i + 1]);
		lo = parse_hex_digit(path[i + 2]);
		if (hi >= 0 && lo >= 0 &&
		    api_uri_is_control((unsigned char)(hi << 4 | lo)))
			return true;
	}
	return false;
}

void
api_uri_check(struct api_request *rq, const char *uri, bool cut_query)
{
	const char *query;
	size_t len, pairs, i;

	len = strlen(uri);
	query = strchr(uri, '?');
	pairs = 0;
	if (query) {
		pairs = 1;
		for (i = (size_t)(query - uri); i < len; i++)
			pairs += uri[i] == '&';
	}
	if (len > API_URI_MAX)
		api_request__refuse(rq, 414, "too_large",
				    "the URI is %zu bytes, more than the %d "
				    "allowed",
				    len, API_URI_MAX);
	else if (pairs > API_URI_MAX_PAIRS)
		api_request__refuse(rq, 400, "bad_request",
				    "the query has %zu parameters, more than "
				    "the %d allowed",
				    pairs, API_URI_MAX_PAIRS);
	else if (api_uri_path_has_control(uri,
					  query ? (size_t)(query - uri) : len))
		api_request__refuse(rq, 400, "bad_request",
				    "the path holds a control character");
	else
		return;
	/*
	 * Right after this call libmicrohttpd 0.9.x parses the query into
	 * the connection's memory pool; a query of many hundred pairs runs
	 * it out, and the connection is then dropped without an answer.
	 * The URI lies in the connection's read buffer, which is writable:
	 * ending it after the '?' leaves nothing to parse, and the refusal
	 * above is what the client hears.
	 */
	if (query && cut_query)
		((char *)(uintptr_t)query)[1] = '\0';
}
