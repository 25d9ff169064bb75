/*
 * The typed getters of a request's query parameters, declared in
 * api_request.h: each reads the raw value through api_request_param()
 * and queues the 400 of a bad one itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api_request.h"
#include "parse.h"
#include "timeparse.h"

/* Queues the 400 of a bad parameter value and returns -EINVAL. */
static int
api_request_bad_param(struct api_request *rq, const char *name,
		      const char *value, const char *why)
{
	api_request_reply_error(rq, 400, "bad_request",
				"bad parameter '%s' ('%.*s'): %s", name,
				API_REQUEST_QUOTE, value, why);
	return -EINVAL;
}

static bool
api_request_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' ||
	       c == '-';
}

int
api_request_param_word(struct api_request *rq, const char *name, size_t max,
		       const char **out)
{
	const char *v;
	char why[96];
	size_t i;

	v = api_request_param(rq, name);
	if (!v)
		return 0;
	if (!*v)
		return api_request_bad_param(rq, name, v, "must not be empty");
	for (i = 0; v[i]; i++) {
		if (i == max) {
			snprintf(why, sizeof(why), "longer than %zu bytes",
				 max);
			return api_request_bad_param(rq, name, v, why);
		}
		if (!api_request_word_char(v[i]))
			return api_request_bad_param(
				rq, name, v,
				"only letters, digits and . _ : - are allowed");
	}
	*out = v;
	return 1;
}

int
api_request_param_int(struct api_request *rq, const char *name, int64_t lo,
		      int64_t hi, int64_t *out)
{
	const char *v;
	char why[96];
	int64_t x;
	int rc;

	v = api_request_param(rq, name);
	if (!v)
		return 0;
	rc = parse_int64(v, lo, hi, &x);
	if (rc == -ERANGE) {
		snprintf(why, sizeof(why),
			 "must be between %" PRId64 " and %" PRId64, lo, hi);
		return api_request_bad_param(rq, name, v, why);
	}
	if (rc < 0)
		return api_request_bad_param(rq, name, v,
					     "must be a decimal integer");
	*out = x;
	return 1;
}

int
api_request_param_time(struct api_request *rq, const char *name, int64_t *out)
{
	const char *v;
	int64_t t;
	int rc;

	v = api_request_param(rq, name);
	if (!v)
		return 0;
	rc = timeparse_parse_now(v, &t);
	if (rc == -ERANGE)
		return api_request_bad_param(
			rq, name, v,
			"out of range (a date of the calendar between 1970 and "
			"2262, or a duration of at most 100 years)");
	if (rc < 0)
		return api_request_bad_param(
			rq, name, v,
			"expected RFC 3339 (2026-12-01T05:37:54Z), Unix "
			"seconds, or a duration back from now (90s, 15m, "
			"2h, 7d, 1w, 1h30m)");
	*out = t;
	return 1;
}

int
api_request_param_enum(struct api_request *rq, const char *name,
		       const char *const *choices, int *out)
{
	char why[256];
	const char *v;
	size_t i, used;
	int n;

	v = api_request_param(rq, name);
	if (!v)
		return 0;
	for (i = 0; choices[i]; i++) {
		if (strcmp(choices[i], v) == 0) {
			*out = (int)i;
			return 1;
		}
	}
	used = 0;
	n = snprintf(why, sizeof(why), "must be one of");
	for (i = 0; choices[i] && n >= 0 && (size_t)n < sizeof(why) - used;
	     i++) {
		used += (size_t)n;
		n = snprintf(why + used, sizeof(why) - used, "%s %s",
			     i ? "," : "", choices[i]);
	}
	/* A cut list still says what is wrong; no need to fail on it. */
	return api_request_bad_param(rq, name, v, why);
}

int
api_request_param_list(struct api_request *rq, const char *name, double lo,
		       double hi, double *out, size_t max, size_t *n)
{
	char item[64], why[128];
	const char *v, *p, *comma;
	size_t len, count = 0;
	double x;
	int rc;

	v = api_request_param(rq, name);
	if (!v)
		return 0;
	p = v;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0)
			return api_request_bad_param(rq, name, v,
						     "an empty list item");
		if (len >= sizeof(item))
			return api_request_bad_param(rq, name, v,
						     "a list item too long");
		if (count == max) {
			snprintf(why, sizeof(why), "more than %zu items", max);
			return api_request_bad_param(rq, name, v, why);
		}
		memcpy(item, p, len);
		item[len] = '\0';
		rc = parse_double(item, lo, hi, &x);
		if (rc == 0 && !(x > lo))
			rc = -ERANGE;
		if (rc == -ERANGE) {
			snprintf(why, sizeof(why),
				 "every item must be in (%g, %g]", lo, hi);
			return api_request_bad_param(rq, name, v, why);
		}
		if (rc < 0)
			return api_request_bad_param(
				rq, name, v,
				"must be a comma-separated list of numbers");
		out[count++] = x;
		if (!comma)
			break;
		p = comma + 1;
	}
	*n = count;
	return 1;
}

int
api_request_check_range(struct api_request *rq, int64_t since, int64_t until)
{
	if (since <= until)
		return 0;
	api_request_reply_error(
		rq, 400, "bad_request", "'since' (%s) is after 'until' (%s)",
		api_request_param(rq, "since") ? api_request_param(rq, "since")
					       : "?",
		api_request_param(rq, "until") ? api_request_param(rq, "until")
					       : "?");
	return -EINVAL;
}
