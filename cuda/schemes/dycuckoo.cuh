/*
 * schemes/dycuckoo.cuh
 *		DyCuckoo (Li et al., "Dynamic Hash Tables on GPUs", seed 004): four
 *		cuckoo subtables, the two-layer choice (a key hashes to a pair of
 *		subtables, then to one bucket in each), one subtable resized at a
 *		time.  View, bucket arithmetic, lookup, geometry and attempt policy,
 *		for the GPU kernels and the host twin alike.
 *
 * A bucket is 8 slots of (key, off, cnt) = 128 bytes, one cache line, read
 * by 8 lanes with one 16-byte load each.  The paper keeps 4-byte keys in
 * 128-byte buckets and the values in a second array; here keys are 64-bit
 * and every key value is legal (cnt == 0 marks an empty slot, no sentinel),
 * so key and range share the slot and a bucket holds 8.  A probe reads at
 * most two buckets, hit or miss.
 *
 * Subtables: table i has 1 << (log2 + (i < n_big)) buckets, so at most two
 * sizes, never more than twice apart (the paper's invariant).  Upsizing
 * doubles the smallest table of lowest index, table n_big: (log2, n_big)
 * -> (log2, n_big + 1), and (log2, 4) is (log2 + 1, 0).  All four live in
 * one slot array, table i from bucket (i + min(i, n_big)) << log2, so a
 * doubled table keeps its first bucket and only the tables after it move.
 * A key's bucket in table i is fmix64(key ^ seed[i]) masked to the table's
 * size, so doubling sends a key of bucket loc to loc or loc + old size: the
 * paper's conflict-free split.
 *
 * Two-layer choice: pair p = reduce(hp >> 32, 6) over the six pairs of
 * four tables (hp = fmix64(key ^ seed_pair)).  The paper leaves the rule
 * that picks which table of the pair a new key tries first garbled
 * ("probability proportional to ..."); here it is the first with
 * probability size_a / (size_a + size_b), from the low half of hp, which
 * keeps the fill of the tables even (its Theorem 1).  The lookup reads that
 * table first.
 * --------------------------------------------------------------------- */
#ifndef GPUHASH_SCHEME_DYCUCKOO_CUH
#define GPUHASH_SCHEME_DYCUCKOO_CUH

#include "../hash.cuh"

#include <string.h>

#define GH_DYC_D 4				/* subtables */
#define GH_DYC_B 8				/* slots per bucket: 8 x 16 B = 128 B */
#define GH_DYC_PAIRS 6			/* pairs of 4 tables */
#define GH_DYC_MAX_LOG2 30		/* at most 2^30 buckets per table */
#define GH_DYC_MAX_EVICT 256	/* evictions per insert before it gives up */
#define GH_DYC_DEFAULT_FILL 0.85	/* the paper's upper fill bound beta */

struct gh_dyc_view
{
	const gh_slot *slots;		/* (4 + n_big) << log2 buckets of GH_DYC_B */
	uint32_t	log2;			/* small tables have 1 << log2 buckets */
	uint32_t	n_big;			/* tables 0 .. n_big - 1 have twice that */
	uint64_t	seed_pair;
	uint64_t	seed[GH_DYC_D];
};

GH_HD uint64_t
gh_dyc_buckets(const gh_dyc_view &v)
{
	return (uint64_t) (GH_DYC_D + v.n_big) << v.log2;
}

GH_HD uint64_t
gh_dyc_slots(const gh_dyc_view &v)
{
	return gh_dyc_buckets(v) * GH_DYC_B;
}

GH_HD uint32_t
gh_dyc_table_log2(const gh_dyc_view &v, uint32_t i)
{
	return v.log2 + (i < v.n_big ? 1 : 0);
}

/* First bucket of table i in the slot array. */
GH_HD uint64_t
gh_dyc_base(const gh_dyc_view &v, uint32_t i)
{
	return (uint64_t) (i + (i < v.n_big ? i : v.n_big)) << v.log2;
}

/* The two tables of pair p; every pair of the four once. */
GH_HD void
gh_dyc_pair_tables(uint32_t p, uint32_t *a, uint32_t *b)
{
	/* (0,1) (2,3) (0,2) (1,3) (0,3) (1,2), a nibble each, pair 0 lowest */
	const uint32_t pa = 0x101020U;
	const uint32_t pb = 0x233231U;

	*a = (pa >> (4 * p)) & 0xf;
	*b = (pb >> (4 * p)) & 0xf;
}

/* Global bucket of key in table i (hash bits above the table's size are
 * what an upsize of table i reads next). */
GH_HD uint64_t
gh_dyc_hash(const gh_dyc_view &v, uint32_t i, uint64_t key)
{
	return gh_fmix64(key ^ v.seed[i]);
}

GH_HD uint64_t
gh_dyc_bucket(const gh_dyc_view &v, uint32_t i, uint64_t key)
{
	uint64_t	mask = ((uint64_t) 1 << gh_dyc_table_log2(v, i)) - 1;

	return gh_dyc_base(v, i) + (gh_dyc_hash(v, i, key) & mask);
}

/* The key's pair: *first is the table it tries (and a probe reads) first. */
GH_HD void
gh_dyc_choices(const gh_dyc_view &v, uint64_t key, uint32_t *first, uint32_t *second)
{
	uint64_t	hp = gh_fmix64(key ^ v.seed_pair);
	uint32_t	a,
				b;

	gh_dyc_pair_tables(gh_reduce((uint32_t) (hp >> 32), GH_DYC_PAIRS), &a, &b);

	/* sizes in units of the small table: 1 or 2 each */
	uint32_t	wa = 1 + (a < v.n_big),
				wb = 1 + (b < v.n_big);
	bool		a_first = gh_reduce((uint32_t) hp, wa + wb) < wa;

	*first = a_first ? a : b;
	*second = a_first ? b : a;
}

/* The other table of key's pair than table i. */
GH_HD uint32_t
gh_dyc_other(const gh_dyc_view &v, uint64_t key, uint32_t i)
{
	uint32_t	f,
				s;

	gh_dyc_choices(v, key, &f, &s);
	return i == f ? s : f;
}

/* The slot of a full bucket an insert evicts at step `chain` of its walk. */
GH_HD uint32_t
gh_dyc_victim(uint64_t key, uint32_t chain)
{
	return gh_fmix32((uint32_t) key ^ (uint32_t) (key >> 32) ^ (chain * 0x9e3779b9U)) & (GH_DYC_B - 1);
}

GH_HD gh_hit
gh_dyc_bucket_match(const gh_dyc_view &v, uint64_t b, uint64_t key)
{
	const gh_slot *s = v.slots + b * GH_DYC_B;
	gh_hit		h = {0, 0};

	for (int i = 0; i < GH_DYC_B; i++)
	{
		gh_hit		m = gh_slot_match(s[i], key);

		if (m.cnt)
			h = m;
	}
	return h;
}

/* Scalar lookup (host twin, validation); the GPU kernel reads each bucket
 * with 8 lanes but locates it with gh_dyc_choices / gh_dyc_bucket. */
GH_HD gh_hit
gh_dyc_lookup(const gh_dyc_view &v, uint64_t key)
{
	uint32_t	f,
				s;

	gh_dyc_choices(v, key, &f, &s);

	gh_hit		h = gh_dyc_bucket_match(v, gh_dyc_bucket(v, f, key), key);

	if (h.cnt == 0)
		h = gh_dyc_bucket_match(v, gh_dyc_bucket(v, s, key), key);
	return h;
}

/* ---------------------------------------------------------------------
 * Geometry and attempt policy, shared by both builders and the
 * incremental path (dycuckoo.h).
 * --------------------------------------------------------------------- */

/* One upsize: double the smallest table of lowest index.  False when the
 * tables would outgrow GH_DYC_MAX_LOG2. */
GH_HD bool
gh_dyc_upsize_geometry(gh_dyc_view *v)
{
	if (v->n_big + 1 < GH_DYC_D)
		v->n_big++;
	else
	{
		if (v->log2 + 1 >= GH_DYC_MAX_LOG2)
			return false;
		v->log2++;
		v->n_big = 0;
	}
	return true;
}

/* The smallest geometry whose fill with u keys stays within fill. */
GH_HD bool
gh_dyc_geometry(uint64_t u, double fill, gh_dyc_view *v)
{
	v->log2 = 0;
	v->n_big = 0;
	while ((double) u > fill * (double) gh_dyc_slots(*v))
		if (!gh_dyc_upsize_geometry(v))
			return false;
	return true;
}

/*
 * Attempt policy (build_driver.h): the load factor is the fill bound;
 * attempt a starts a upsizes above the smallest geometry for it (the
 * paper's answer to an insert that fails: grow one table), with new
 * seeds.  An attempt fails when an insert exceeds GH_DYC_MAX_EVICT
 * evictions (or the test's lower bound, dycuckoo.h).
 */
struct gh_dyc_scheme
{
	typedef gh_dyc_view view;
	static constexpr const char label[] = "DyCuckoo";
	static constexpr int max_attempts = GH_MAX_ATTEMPTS;

	static bool init(view *v, uint64_t, uint64_t u, double lf)
	{
		memset(v, 0, sizeof(*v));
		return gh_dyc_geometry(u, lf, v);
	}
	static bool draw(view *v, uint64_t seed, int attempt, uint64_t u, double lf)
	{
		uint64_t	st = gh_attempt_seed(seed, attempt);

		if (!gh_dyc_geometry(u, lf, v))
			return false;
		for (int a = 0; a < attempt; a++)
			if (!gh_dyc_upsize_geometry(v))
				return false;
		v->seed_pair = gh_splitmix64(&st);
		for (int i = 0; i < GH_DYC_D; i++)
			v->seed[i] = gh_splitmix64(&st);
		return true;
	}
	static uint64_t cells(const view &)
	{
		return 0;
	}
};

#endif							/* GPUHASH_SCHEME_DYCUCKOO_CUH */
