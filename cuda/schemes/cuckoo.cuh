/*
 * schemes/cuckoo.cuh
 *		Bucketed cuckoo hashing (seed 001, after the static BGHT-style table
 *		of Hegeman et al.): view, lookup, geometry and attempt policy, for
 *		the GPU kernels and the host twin alike.
 *
 * A bucket is GH_CUCKOO_B slots of (key, off, cnt), 16 bytes each: four
 * slots fill two 32-byte sectors, 64 bytes, aligned.  A key has
 * GH_CUCKOO_H candidate buckets, b_j = reduce(uhash_j(key), n_buckets).
 *
 * Why 4 x 2 at fill 0.85 (a host simulation over 4-30 M random keys,
 * eviction chains unbounded): 0.40 evictions per key, longest chain ~50;
 * 74% of keys sit in b_0, so a hit reads 1.26 buckets (2.5 sectors) on
 * average and a miss ~1.65 (35% of buckets have room).  Buckets of 2
 * (one sector) with 3 choices read fewer sectors (hit 1.56, miss 2.35)
 * but need 1.56 dependent round trips per hit and chains of 0.68
 * evictions per key; where DRAM is read 64 bytes at a time they also move
 * more bytes.  -DGH_CUCKOO_B=2 -DGH_CUCKOO_H=3 builds that variant.
 * Chains: the longest was 55 at fill 0.85 over 30 M keys, 98 at 0.9 over
 * 10 M, ~250 at 0.95 over 1 M; a bound of 250 stashes next to nothing
 * up to 0.95, and only a few threads ever run that long.
 * Inserting (both builders): a key tries b_0 and takes its first empty
 * slot; a full bucket gives up a pseudo-random victim for it, and the
 * victim goes on to its next choice (b_{j+1 mod H} after b_j); after
 * GH_CUCKOO_MAX_CHAIN evictions the key in hand takes the first of its
 * buckets with room, or else a slot of a small stash at the end of the
 * slot array; a full stash fails the attempt (new seeds, more buckets:
 * build_driver.h).
 *
 * Slots are only ever filled or swapped, never emptied, and a key reaches
 * b_j (j > 0) only by being evicted from b_{j-1} or by finding b_0..b_{j-1}
 * full, which then stay full; a stashed key found all its buckets full.
 * (A key's "j" is the first choice naming its bucket.)  So a lookup reads
 * b_0, b_1, ... and stops at the first bucket with an empty slot (the key
 * is absent), and reads the stash only after H full buckets and only when
 * the stash is not empty: at most H bucket reads, usually one.
 *
 * Why not the paper's compact (quotiented) slots: quotienting saves
 * A = log2(n_buckets) key bits, ~20-27 here, but a slot must still hold
 * the 64-bit payload (off, cnt): (64 - A) + 2 (state) + 64 > 96 bits for
 * any A <= 32, so the slot stays 16 bytes and nothing is gained.  A 32-bit
 * key rank instead of (off, cnt) would fit 12 bytes, but costs a second,
 * dependent read (an offsets array) per hit to save ~5% of the bytes.
 */
#ifndef GPUHASH_SCHEME_CUCKOO_CUH
#define GPUHASH_SCHEME_CUCKOO_CUH

#include "../hash.cuh"

#include <string.h>

/* -D overrides them for experiments (any B >= 1, H >= 2) */
#ifndef GH_CUCKOO_B
#define GH_CUCKOO_B 4			/* slots per bucket: 4 x 16 B = 64 B */
#endif
#ifndef GH_CUCKOO_H
#define GH_CUCKOO_H 2			/* bucket choices per key */
#endif
#ifndef GH_CUCKOO_FILL
#define GH_CUCKOO_FILL 0.85		/* slots filled when the caller asks <= 0.5 */
#endif
#ifndef GH_CUCKOO_MAX_CHAIN
#define GH_CUCKOO_MAX_CHAIN 250	/* evictions before a key is stashed */
#endif
#ifndef GH_CUCKOO_STASH
#define GH_CUCKOO_STASH 32		/* stash slots after the buckets */
#endif

struct gh_cuckoo_view
{
	const gh_slot *slots;		/* n_buckets * B bucket slots, then the stash */
	uint32_t	n_buckets;
	uint32_t	n_stash;		/* stash slots in use */
	gh_uhash	h[GH_CUCKOO_H];
};

GH_HD uint32_t
gh_cuckoo_bucket(const gh_cuckoo_view &v, int j, uint64_t key)
{
	return gh_reduce(gh_uhash32(v.h[j], key), v.n_buckets);
}

/* The choice a key sitting in bucket b was placed by (the first that
 * names b; H when none does).  Loops of constant trip count, so that the
 * GPU keeps the view's hashes in registers. */
GH_HD int
gh_cuckoo_choice_of(const gh_cuckoo_view &v, uint64_t key, uint32_t b)
{
	int			c = GH_CUCKOO_H;

	for (int j = GH_CUCKOO_H - 1; j >= 0; j--)
		if (gh_cuckoo_bucket(v, j, key) == b)
			c = j;
	return c;
}

/* Where a key evicted from bucket b goes: its choice after b's. */
GH_HD uint32_t
gh_cuckoo_next_bucket(const gh_cuckoo_view &v, uint64_t key, uint32_t b)
{
	uint32_t	bk[GH_CUCKOO_H];
	int			c = GH_CUCKOO_H;
	uint32_t	next = 0;

	for (int j = GH_CUCKOO_H - 1; j >= 0; j--)
	{
		bk[j] = gh_cuckoo_bucket(v, j, key);
		if (bk[j] == b)
			c = j;
	}
	for (int j = 0; j < GH_CUCKOO_H; j++)
		if (j == (c + 1) % GH_CUCKOO_H)
			next = bk[j];
	return next;
}

/* Bucket slot an insert evicts on its chain'th eviction: pseudo-random in
 * the carried item and the chain step, so that two items do not swap each
 * other back and forth, and the same on both devices. */
GH_HD uint32_t
gh_cuckoo_victim(uint32_t item, uint32_t chain)
{
	return gh_reduce(gh_fmix32(item * 0x9e3779b9U + chain), GH_CUCKOO_B);
}

/* The stash's answer for a key all of whose buckets are full. */
GH_HD gh_hit
gh_cuckoo_stash_lookup(const gh_cuckoo_view &v, uint64_t key)
{
	gh_hit		h = {0, 0};
	const gh_slot *st = v.slots + (uint64_t) v.n_buckets * GH_CUCKOO_B;

	for (uint32_t i = 0; i < v.n_stash; i++)
		if (st[i].key == key)
		{
			h.off = st[i].off;
			h.cnt = st[i].cnt;
			break;
		}
	return h;
}

GH_HD gh_hit
gh_cuckoo_lookup(const gh_cuckoo_view &v, uint64_t key)
{
	gh_hit		h = {0, 0};

	for (int j = 0; j < GH_CUCKOO_H; j++)
	{
		const gh_slot *b = v.slots + (uint64_t) gh_cuckoo_bucket(v, j, key) * GH_CUCKOO_B;
		gh_slot		s[GH_CUCKOO_B];
		bool		full = true;

		/* the bucket's loads go out together, then the compares */
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
		for (int i = 0; i < GH_CUCKOO_B; i++)
			s[i] = gh_slot_load_stream(b + i);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
		for (int i = 0; i < GH_CUCKOO_B; i++)
		{
			if (s[i].cnt != 0 && s[i].key == key)
			{
				h.off = s[i].off;
				h.cnt = s[i].cnt;
				return h;
			}
			full = full && s[i].cnt != 0;
		}
		if (!full)
			return h;
	}
	return gh_cuckoo_stash_lookup(v, key);
}

/* ---------------------------------------------------------------------
 * Geometry and attempt policy.
 * --------------------------------------------------------------------- */

/* Slots filled: the caller's load factor when it asks for more than the
 * 0.5 default of the other schemes, else GH_CUCKOO_FILL. */
GH_HD double
gh_cuckoo_fill(double lf)
{
	return lf > 0.5 ? lf : GH_CUCKOO_FILL;
}

/* Buckets of attempt a: u / (B * fill), 1/8 more per attempt after the
 * first; false when that does not fit 32 bits. */
GH_HD bool
gh_cuckoo_geometry(uint64_t u, double lf, int attempt, gh_cuckoo_view *v)
{
	double		nb = (double) u / (GH_CUCKOO_B * gh_cuckoo_fill(lf)) * (1.0 + attempt / 8.0);
	uint64_t	n = (uint64_t) nb + 1;

	if (n > UINT32_MAX)
		return false;
	v->n_buckets = (uint32_t) n;
	return true;
}

GH_HD uint64_t
gh_cuckoo_n_slots(const gh_cuckoo_view &v)
{
	return (uint64_t) v.n_buckets * GH_CUCKOO_B + GH_CUCKOO_STASH;
}

/*
 * Attempt policy (build_driver.h): each attempt draws H new bucket hashes;
 * from the second on the table grows (a full stash is far more likely a
 * crowded table than bad luck).
 */
struct gh_cuckoo_scheme
{
	typedef gh_cuckoo_view view;
	static constexpr const char label[] = "cuckoo";
	static constexpr int max_attempts = GH_MAX_ATTEMPTS;

	static bool init(view *v, uint64_t, uint64_t u, double lf)
	{
		memset(v, 0, sizeof(*v));
		return gh_cuckoo_geometry(u, lf, 0, v);
	}
	static bool draw(view *v, uint64_t seed, int attempt, uint64_t u, double lf)
	{
		uint64_t	st = gh_attempt_seed(seed, attempt);

		if (!gh_cuckoo_geometry(u, lf, attempt, v))
			return false;
		for (int j = 0; j < GH_CUCKOO_H; j++)
			v->h[j] = gh_uhash_draw(&st);
		v->n_stash = 0;
		return true;
	}
	static uint64_t cells(const view &v)
	{
		return v.n_buckets;
	}
};

#endif							/* GPUHASH_SCHEME_CUCKOO_CUH */
