/*
 * Counter-based random numbers: every row owns an independent stream derived
 * from (seed, table, row number), so any chunk of any table can be generated
 * on its own and still produce exactly the same rows.
 */
#ifndef TPCH_RNG_H
#define TPCH_RNG_H

#include <stdint.h>

typedef struct {
	uint64_t state;
} rng_t;

/* SplitMix64 finaliser: a strong 64-bit mixing function. */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Position the stream at the start of one row of one table. */
static inline void rng_row(rng_t *r, uint64_t seed, unsigned table, uint64_t row)
{
	r->state = mix64(seed ^ mix64(((uint64_t)table << 56) ^ row ^ 0x5851f42d4c957f2dULL));
}

static inline uint64_t rng_next(rng_t *r)
{
	r->state += 0x9e3779b97f4a7c15ULL;
	return mix64(r->state);
}

/* Uniform integer in [lo, hi]; the multiply-shift bias is < 2^-32 here. */
static inline int64_t rng_range(rng_t *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;

	return lo + (int64_t)(((unsigned __int128)rng_next(r) * span) >> 64);
}

#endif
