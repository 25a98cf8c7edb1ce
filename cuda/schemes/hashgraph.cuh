/*
 * schemes/hashgraph.cuh
 *		HashGraph (Green et al.; the TNL thesis, seed 002): the static CSR
 *		layout.  View, bucket function, lookup, geometry and attempt policy,
 *		for the GPU kernels and the host twin alike.
 */
#ifndef GPUHASH_SCHEME_HASHGRAPH_CUH
#define GPUHASH_SCHEME_HASHGRAPH_CUH

#include "../hash.cuh"

#include <string.h>

/* ---------------------------------------------------------------------
 * HashGraph: closed addressing stored like a CSR sparse matrix.  Bucket b
 * owns slots [offs[b], offs[b+1]) of one slot array that holds every
 * distinct key exactly once, grouped by bucket; a lookup reads the two
 * offsets and scans the bucket (the thesis's Algorithm 5).  No slot is
 * empty and nothing is padded: 16 bytes per key plus 4 per bucket.
 *
 * The bucket is b = floor(hk * B / 2^64) of the mixed key
 * hk = fmix64(key ^ seed_key), a monotone function of hk.  The build
 * pipelines sort the rows by hk (the row's sort_seed), so the distinct
 * keys arrive already grouped by bucket, in bucket order: that sort is the
 * thesis's "Sort(X, h)" of its generalized build (Algorithm 4), and only
 * the offsets remain to be made (histogram + exclusive scan).  Within a
 * bucket the keys keep ascending hk, so the layout is a function of the
 * key set and the seed alone: GPU and host twin build the same bytes.
 *
 * B = the number of distinct keys (one bucket when there are none), the
 * thesis's m = n ("a good choice", load factor 1).  Bucket sizes are then
 * about Poisson(1): a hit scans 1.5 slots on average, a miss 1, a bucket
 * of two slots is one 32-byte sector, and the offsets cost 4 bytes per
 * key.  Halving B would save 2 bytes per key and add half a slot to every
 * hit and a whole one to every miss; doubling it costs 4 bytes per key for
 * a quarter slot less per hit.  The build's load factor is not used.
 * --------------------------------------------------------------------- */

struct gh_hg_view
{
	const uint32_t *offs;		/* n_buckets + 1 slot offsets */
	const gh_slot *slots;		/* the distinct keys, grouped by bucket */
	uint32_t	n_buckets;
	uint64_t	seed_key;
};

/* The key seed fixes the sort order, so it is fixed per build. */
GH_HD uint64_t
gh_hg_key_seed(uint64_t seed)
{
	uint64_t	s = seed ^ 0x13198a2e03707344ULL;

	return gh_splitmix64(&s);
}

/* Bucket of mixed key hk: the high word of hk * B, monotone in hk and
 * uniform for any B (all 64 bits of hk count). */
GH_HD uint32_t
gh_hg_bucket_of(uint64_t hk, uint32_t n_buckets)
{
#if defined(__CUDA_ARCH__)
	return (uint32_t) __umul64hi(hk, (uint64_t) n_buckets);
#else
	return (uint32_t) (((unsigned __int128) hk * n_buckets) >> 64);
#endif
}

GH_HD uint32_t
gh_hg_bucket(const gh_hg_view &v, uint64_t key)
{
	return gh_hg_bucket_of(gh_mix_key(v.seed_key, key), v.n_buckets);
}

GH_HD uint32_t
gh_hg_load_off(const uint32_t *p)
{
#if defined(__CUDA_ARCH__)
	return __ldg(p);
#else
	return *p;
#endif
}

/* Reads offs[b], offs[b+1] and scans bucket b; keys are distinct, so the
 * first match is the only one. */
GH_HD gh_hit
gh_hg_lookup(const gh_hg_view &v, uint64_t key)
{
	uint32_t	b = gh_hg_bucket(v, key);
	uint32_t	s = gh_hg_load_off(v.offs + b),
				e = gh_hg_load_off(v.offs + b + 1);
	gh_hit		h = {0, 0};

	for (; s < e; s++)
	{
		h = gh_slot_match(gh_slot_load_stream(v.slots + s), key);
		if (h.cnt)
			break;
	}
	return h;
}

/* ---------------------------------------------------------------------
 * Geometry and attempt policy, shared by both builders.
 * --------------------------------------------------------------------- */

/*
 * The longest bucket a build accepts.  Over random keys (Poisson(1)) it is
 * about 12 at 10^8 keys; keys crafted into one bucket (the seed is fixed)
 * would make every probe scan them all, so such a build fails cleanly
 * (GH_ERR_BUILD_FAILED) and the join takes the next scheme, as GPH does
 * with an oversize cell.
 */
#define GH_HG_MAX_BUCKET 64

/* One bucket per distinct key (one when there are none). */
GH_HD uint32_t
gh_hg_n_buckets(uint64_t u)
{
	return u ? (uint32_t) u : 1;
}

GH_HD size_t
gh_hg_offs_bytes(const gh_hg_view &v)
{
	return ((size_t) v.n_buckets + 1) * sizeof(uint32_t);
}

/*
 * Attempt policy (build_driver.h): one attempt; every key goes to its
 * bucket, and rounds reports the longest, which fails the attempt beyond
 * GH_HG_MAX_BUCKET.  Nothing is drawn per attempt: the one seed, seed_key,
 * already fixed the sort, so there is no second attempt.
 */
struct gh_hg_scheme
{
	typedef gh_hg_view view;
	static constexpr const char label[] = "HashGraph";
	static constexpr int max_attempts = 1;

	static bool init(view *v, uint64_t seed, uint64_t u, double)
	{
		memset(v, 0, sizeof(*v));
		if (u > 0xffffffffULL)
			return false;
		v->n_buckets = gh_hg_n_buckets(u);
		v->seed_key = gh_hg_key_seed(seed);
		return true;
	}
	static bool draw(view *, uint64_t, int, uint64_t, double)
	{
		return true;
	}
	static uint64_t cells(const view &v)
	{
		return v.n_buckets;
	}
};

#endif							/* GPUHASH_SCHEME_HASHGRAPH_CUH */
