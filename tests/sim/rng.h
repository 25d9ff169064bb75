/*
 * Deterministic pseudo-random numbers for the simulator: splitmix64, so a
 * scenario and a seed always give the same session on every machine (no
 * rand(), no time).  The state is a plain value the caller owns.
 */
#ifndef TAPD_SIM_RNG_H
#define TAPD_SIM_RNG_H

#include <stdint.h>

struct rng {
	uint64_t state;
};

/* Seeds r from a seed and a name, so streams for different uses differ. */
void rng_seed(struct rng *r, uint64_t seed, const char *name);

/* The next 64 random bits. */
uint64_t rng_next(struct rng *r);

/* A uniform integer in [lo, hi]; lo when hi <= lo. */
int64_t rng_range(struct rng *r, int64_t lo, int64_t hi);

/* A uniform double in [0, 1). */
double rng_unit(struct rng *r);

/* A uniform double in [lo, hi). */
double rng_real(struct rng *r, double lo, double hi);

/* 1 with probability p, else 0. */
int rng_chance(struct rng *r, double p);

/* Picks an index with probability proportional to w[i]; -1 if all are 0. */
int rng_pick(struct rng *r, const int *w, int n);

/*
 * A stateless hash of two values, for per-vsync jitter that must not
 * depend on the order in which things are generated.
 */
uint64_t rng_hash(uint64_t a, uint64_t b);

#endif
