/*
 * hash.cuh
 *		What every scheme shares, written once for the GPU kernels and the host
 *		twin (__host__ __device__): the slot, the hash functions, the lookup
 *		answer, and the seeds of a build attempt.
 *
 * A built table is reduced to a small read-only "view" per scheme (arrays
 * and seeds).  Each scheme's header (schemes/fks.cuh, gph.cuh, linear.cuh)
 * holds its view, its locate and lookup functions, its geometry and its
 * attempt policy; the builders (host_*.cpp, gpu_*.cu) fill the arrays so
 * that those locate functions find every key, and probing on either device
 * calls the same functions, so the two cannot drift apart.
 */
#ifndef GPUHASH_HASH_CUH
#define GPUHASH_HASH_CUH

#include <stdint.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define GH_HD __host__ __device__ __forceinline__
#else
#define GH_HD static inline
#endif

/*
 * A slot of every scheme: a distinct key and its range in the key-grouped
 * rowid array.  cnt == 0 marks an empty slot, so no key value is reserved
 * as a sentinel: every 64-bit pattern is a legal key.
 */
struct alignas(16) gh_slot
{
	uint64_t	key;
	uint32_t	off;
	uint32_t	cnt;
};

/* ---------------------------------------------------------------------
 * Hash functions
 * --------------------------------------------------------------------- */

/* MurmurHash3's 64-bit finalizer: a bijection with full avalanche. */
GH_HD uint64_t
gh_fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* MurmurHash3's 32-bit finalizer. */
GH_HD uint32_t
gh_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bU;
	h ^= h >> 13;
	h *= 0xc2b2ae35U;
	h ^= h >> 16;
	return h;
}

/* Maps a uniform 32-bit value onto [0, m) without division (m may be 0). */
GH_HD uint32_t
gh_reduce(uint32_t h, uint32_t m)
{
	return (uint32_t) (((uint64_t) h * m) >> 32);
}

/* splitmix64: derives independent constants from one seed. */
GH_HD uint64_t
gh_splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Strongly universal multilinear hash of a 64-bit key to 32 bits (Lemire,
 * "Strongly universal string hashing is fast"): the top half of
 * a0 + a1*lo + a2*hi mod 2^64 with random 64-bit a's.  FKS's expected-space
 * and expected-retry bounds assume a universal family; this is one.
 */
struct gh_uhash
{
	uint64_t	a0,
				a1,
				a2;
};

GH_HD uint32_t
gh_uhash32(const gh_uhash &c, uint64_t k)
{
	return (uint32_t) ((c.a0 + c.a1 * (k & 0xffffffffULL) + c.a2 * (k >> 32)) >> 32);
}

GH_HD gh_uhash
gh_uhash_draw(uint64_t *state)
{
	gh_uhash	c;

	c.a0 = gh_splitmix64(state);
	c.a1 = gh_splitmix64(state);
	c.a2 = gh_splitmix64(state);
	return c;
}

/* The answer of a lookup: the key's rowid range, cnt == 0 when absent. */
struct gh_hit
{
	uint32_t	off;
	uint32_t	cnt;
};

GH_HD gh_hit
gh_slot_match(const gh_slot &s, uint64_t key)
{
	gh_hit		h;
	bool		m = (s.cnt != 0 && s.key == key);

	h.off = m ? s.off : 0;
	h.cnt = m ? s.cnt : 0;
	return h;
}

/*
 * A slot read by a probe.  On the GPU the load is marked evict-first
 * (streaming): a probe touches a random slot once, and the slots of a big
 * table would otherwise push the small, hot index arrays (GPH cells, FKS
 * level 1) out of L2.
 */
GH_HD gh_slot
gh_slot_load_stream(const gh_slot *p)
{
#if defined(__CUDA_ARCH__)
	ulonglong2	w = __ldcs(reinterpret_cast<const ulonglong2 *>(p));
	gh_slot		s;

	s.key = w.x;
	s.off = (uint32_t) w.y;
	s.cnt = (uint32_t) (w.y >> 32);
	return s;
#else
	return *p;
#endif
}


/* Inverse of gh_fmix64: x ^= x >> 33 undoes itself, the multiplications
 * are undone by the constants' inverses mod 2^64. */
GH_HD uint64_t
gh_fmix64_inv(uint64_t k)
{
	k ^= k >> 33;
	k *= 0x9cb4b2f8129337dbULL;
	k ^= k >> 33;
	k *= 0x4f74430c22a54005ULL;
	k ^= k >> 33;
	return k;
}

static_assert(0xff51afd7ed558ccdULL * 0x4f74430c22a54005ULL == 1, "fmix64 inverse");
static_assert(0xc4ceb9fe1a85ec53ULL * 0x9cb4b2f8129337dbULL == 1, "fmix64 inverse");

/* A seeded bijection of the 64-bit keys (equal mix = equal key): GPH sorts
 * by it so that its cells come out as contiguous runs. */
GH_HD uint64_t
gh_mix_key(uint64_t seed_key, uint64_t key)
{
	return gh_fmix64(key ^ seed_key);
}

/*
 * The part that holds a key in a table partitioned over n parts (GPUs):
 * its own seeded mix, so that the parts are independent of every scheme's
 * placement, and the host and the GPUs split keys alike.
 */
#define GH_PART_SEED 0x7061727469746e73ULL	/* "partitns" */

GH_HD uint32_t
gh_part_of(uint64_t key, uint32_t n_parts)
{
	return gh_reduce((uint32_t) (gh_fmix64(key ^ GH_PART_SEED) >> 32), n_parts);
}

/* ---------------------------------------------------------------------
 * Build attempts (build_driver.h runs them): attempt a draws its seeds from
 * gh_attempt_seed(seed, a), independent of the key data, so the GPU and
 * the host twin draw the same ones.
 * --------------------------------------------------------------------- */

GH_HD uint64_t
gh_attempt_seed(uint64_t seed, int attempt)
{
	uint64_t	s = seed ^ (0x6a09e667f3bcc909ULL * (uint64_t) (attempt + 1));

	return gh_splitmix64(&s);
}

#define GH_MAX_ATTEMPTS 8
#define GH_DEFAULT_SEED 0x67707568617368ULL	/* "gpuhash" */

#endif							/* GPUHASH_HASH_CUH */
