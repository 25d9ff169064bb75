/*
 * GET /v1/taps (docs/DESIGN.md 7.6): the stored taps, oldest id first, a
 * page at a time.
 *
 * Parameters, each optional and each validated (anything else is a 400):
 *   app	the package (a word of [A-Za-z0-9._:-], 1..255 bytes)
 *   since, until   wall time of t_up, as api_request_param_time() reads
 *		it: since <= wall <= until, both ends included as in
 *		/v1/percentiles; a tap whose wall time is unknown never
 *		matches a time filter
 *   kind	tap | long_press | swipe | multi
 *   status	ok | no_response | truncated | frames_unavailable |
 *		not_measured
 *   session	a session id (1..)
 *   after_id	keyset paging: only taps with a greater id (0.., default 0)
 *   limit	page size, 1..10000, default 100
 *   format	json (default) | ndjson | csv
 *
 * format=json answers {"taps": [...], "next_after_id": N, "count": n},
 * where next_after_id is the id of the page's last tap when more taps
 * match, to pass as after_id for the next page, and null when this page is
 * the last.  format=ndjson answers one tap object per line
 * (application/x-ndjson), format=csv a header line and one line per tap
 * (text/csv, RFC 4180); both end the page the same way but say nothing
 * about a next one: the client pages with the last id it got until a page
 * comes back shorter than limit.  The tap objects are tapjson.h's.
 */
#ifndef TAPD_API_TAPS_H
#define TAPD_API_TAPS_H

struct api_request;

/*
 * The handler: answers exactly once, or returns a negative errno (the
 * reply is then a 500, except after a 400 already queued).
 */
int api_taps_get(struct api_request *rq);

#endif
