/*
 * The histograms' bounds: see buckets.h.  Bounds are integers of ns, so
 * the bucket of a value is decided exactly, and their labels are written
 * once, as the shortest decimal of the seconds.
 */
#include "buckets.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#define NS_MS	       INT64_C(1000000)
#define NS_S	       INT64_C(1000000000)
#define BUCKETS_LE_MAX 24 /* "3600.000000001" and a NUL fit */

struct buckets {
	int64_t *bound_ns;
	char (*le)[BUCKETS_LE_MAX];
	size_t n;
};

void
buckets_free(struct buckets *b)
{
	if (!b)
		return;
	free(b->bound_ns);
	free(b->le);
	free(b);
}

/* An empty list with room for n bounds and the +Inf label. */
static int
buckets_alloc(size_t n, struct buckets **out)
{
	struct buckets *b;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		return -ENOMEM;
	b->bound_ns = calloc(n, sizeof(*b->bound_ns));
	b->le = calloc(n + 1, sizeof(*b->le));
	if (!b->bound_ns || !b->le) {
		buckets_free(b);
		return -ENOMEM;
	}
	*out = b;
	return 0;
}

/* Writes the labels of every bound: seconds without trailing zeros. */
static void
buckets_label(struct buckets *b)
{
	size_t i, len;
	int64_t v;

	for (i = 0; i < b->n; i++) {
		v = b->bound_ns[i];
		snprintf(b->le[i], BUCKETS_LE_MAX, "%" PRId64 ".%09" PRId64,
			 v / NS_S, v % NS_S);
		len = strlen(b->le[i]);
		while (b->le[i][len - 1] == '0')
			b->le[i][--len] = '\0';
		if (b->le[i][len - 1] == '.')
			b->le[i][--len] = '\0';
	}
	snprintf(b->le[b->n], BUCKETS_LE_MAX, "+Inf");
}

int
buckets_new_default(struct buckets **out)
{
	struct buckets *b;
	int64_t v, next, grain;
	int rc;

	if ((rc = buckets_alloc(BUCKETS_DEFAULT_COUNT, &b)) < 0)
		return rc;
	v = 10 * NS_MS;
	b->bound_ns[b->n++] = v;
	/* Below 50 ms, 2% is under a millisecond: 1 ms steps. */
	while (v < 60 * NS_MS && b->n < BUCKETS_DEFAULT_COUNT) {
		v += NS_MS;
		b->bound_ns[b->n++] = v;
	}
	while (b->n + 1 < BUCKETS_DEFAULT_COUNT) {
		grain = v < NS_S ? NS_MS / 10 : NS_MS;
		next = (v + v / 50) / grain * grain;
		if (next >= 10 * NS_S)
			break;
		v = next;
		b->bound_ns[b->n++] = v;
	}
	b->bound_ns[b->n++] = 10 * NS_S;
	/* The count is part of the contract (tapd.8's cardinality). */
	if (b->n != BUCKETS_DEFAULT_COUNT) {
		log_warnx("the default buckets are %zu, not %d", b->n,
			  BUCKETS_DEFAULT_COUNT);
		buckets_free(b);
		return -EINVAL;
	}
	buckets_label(b);
	*out = b;
	return 0;
}

/*
 * Parses one bound of len bytes at s ("0.05", "2") into ns.  Returns 0 or
 * -EINVAL.
 */
static int
buckets_parse_one(const char *s, size_t len, int64_t *out)
{
	int64_t whole = 0, frac = 0;
	size_t i = 0, digits = 0, fd = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9') {
		whole = whole * 10 + (s[i] - '0');
		if (whole > BUCKETS_MAX_SECONDS)
			return -EINVAL;
		i++;
		digits++;
	}
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			if (++fd > 9)
				return -EINVAL;
			frac = frac * 10 + (s[i] - '0');
			i++;
			digits++;
		}
	}
	if (i != len || digits == 0)
		return -EINVAL;
	for (; fd < 9; fd++)
		frac *= 10;
	*out = whole * NS_S + frac;
	if (*out <= 0 || *out > BUCKETS_MAX_SECONDS * NS_S)
		return -EINVAL;
	return 0;
}

int
buckets_parse(const char *spec, struct buckets **out)
{
	struct buckets *b = NULL;
	const char *p, *comma;
	size_t n = 1, len;
	int64_t v;
	int rc;

	for (p = spec; *p; p++)
		n += *p == ',';
	if (n > BUCKETS_MAX) {
		log_error("invalid --buckets: %zu bounds, at most %d", n,
			  BUCKETS_MAX);
		return -EINVAL;
	}
	if ((rc = buckets_alloc(n, &b)) < 0)
		return rc;
	for (p = spec;; p = comma + 1) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (buckets_parse_one(p, len, &v) < 0) {
			log_error("invalid --buckets bound '%.*s': expected "
				  "seconds above 0 and at most %d, with at "
				  "most 9 decimals",
				  (int)(len > 40 ? 40 : len), p,
				  BUCKETS_MAX_SECONDS);
			rc = -EINVAL;
			goto out;
		}
		if (b->n > 0 && v <= b->bound_ns[b->n - 1]) {
			log_error("invalid --buckets bound '%.*s': not above "
				  "the one before it",
				  (int)(len > 40 ? 40 : len), p);
			rc = -EINVAL;
			goto out;
		}
		b->bound_ns[b->n++] = v;
		if (!comma)
			break;
	}
	buckets_label(b);
	*out = b;
	b = NULL;
out:
	buckets_free(b);
	return rc;
}

size_t
buckets_count(const struct buckets *b)
{
	return b->n;
}

int64_t
buckets_bound_ns(const struct buckets *b, size_t i)
{
	return b->bound_ns[i];
}

const char *
buckets_le(const struct buckets *b, size_t i)
{
	return b->le[i];
}

size_t
buckets_index(const struct buckets *b, int64_t ns)
{
	size_t lo = 0, hi = b->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b->bound_ns[mid] >= ns)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
