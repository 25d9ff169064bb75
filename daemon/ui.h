/*
 * The dashboard (docs/DESIGN.md 7.6): GET / and GET /ui/NAME serve the
 * files of daemon/ui/ and the charting library, embedded in the binary at
 * build time (the Makefile generates the table ui.c reads), so that a
 * phone or a lab without a network still has it.  The page itself reads
 * nothing but the API of the same origin.
 *
 * Every file is answered with its media type, "Cache-Control: no-cache"
 * and a strong ETag (the hash of its bytes, so a new binary with other
 * files has other tags), 304 for an If-None-Match that names it, gzip
 * (from the build) when the client accepts it, and a
 * Content-Security-Policy that lets the page load scripts, styles and
 * data from its own origin only.  The files hold no data, so they are
 * served without the bearer token: the page asks for the token and sends
 * it with every request to the API, which refuses anything without it
 * as before.
 */
#ifndef TAPD_UI_H
#define TAPD_UI_H

struct api_request;

/* GET / (the page) and GET /ui/NAME (its scripts and styles). */
int ui_get(struct api_request *rq);

#endif
