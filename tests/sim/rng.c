#include <stddef.h>

#include "rng.h"

static uint64_t
mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
rng_seed(struct rng *r, uint64_t seed, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;

	/* FNV-1a over the name, folded with the seed. */
	for (p = name; p != NULL && *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	r->state = mix(seed ^ mix(h));
}

uint64_t
rng_next(struct rng *r)
{
	r->state += 0x9e3779b97f4a7c15ULL;
	return mix(r->state);
}

int64_t
rng_range(struct rng *r, int64_t lo, int64_t hi)
{
	uint64_t span;

	if (hi <= lo)
		return lo;
	span = (uint64_t)hi - (uint64_t)lo + 1;
	if (span == 0)
		return (int64_t)rng_next(r);
	return lo + (int64_t)(rng_next(r) % span);
}

double
rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

double
rng_real(struct rng *r, double lo, double hi)
{
	return lo + (hi - lo) * rng_unit(r);
}

int
rng_chance(struct rng *r, double p)
{
	return rng_unit(r) < p;
}

int
rng_pick(struct rng *r, const int *w, int n)
{
	int64_t total = 0, x;
	int i;

	for (i = 0; i < n; i++)
		total += w[i] > 0 ? w[i] : 0;
	if (total <= 0)
		return -1;
	x = rng_range(r, 0, total - 1);
	for (i = 0; i < n; i++) {
		if (w[i] <= 0)
			continue;
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}

uint64_t
rng_hash(uint64_t a, uint64_t b)
{
	return mix(mix(a + 0x9e3779b97f4a7c15ULL) ^ b);
}
