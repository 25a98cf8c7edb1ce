/*
 * hash.cuh
 *		Hash functions, slot layouts and the lookup of every scheme, written
 *		once for the GPU kernels and the host twin (__host__ __device__).
 *
 * A built table is reduced to a small read-only "view" per scheme (arrays
 * and seeds).  The builders (host_build.cpp, gpu_*.cu) fill the arrays so
 * that the locate functions below find every key; probing on either device
 * calls the same locate functions, so the two cannot drift apart.
 */
#ifndef GPUHASH_HASH_CUH
#define GPUHASH_HASH_CUH

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

/* ---------------------------------------------------------------------
 * FKS: two-level perfect hash.
 *
 * Level 1 has one bucket per distinct key, b = uhash(l1, key) reduced to
 * n1.  Bucket b owns level-2 slots [off[b], off[b+1]), n_b^2 of them, and
 * uses the level-2 constants of the round in which it became collision-
 * free (constants are per round, not per bucket, so a level-1 record is
 * just an offset and a round number).  A record packs (off << shift) |
 * round; 32-bit records keep level 1 at 4 bytes per key (L2-resident at
 * 10^7 keys) while off < 2^27, 64-bit records beyond that.
 * An empty bucket has size 0, gh_reduce(h, 0) = 0, and slot off[b] then
 * holds a key of another bucket (or the empty padding slot at the end),
 * which can never equal a key that hashes to b: no mod 0, no sentinel.
 * --------------------------------------------------------------------- */

#define GH_FKS_MAX_ROUNDS 32
#define GH_FKS_REC32_SHIFT 5
#define GH_FKS_REC64_SHIFT 8
#define GH_FKS_REC32_MAX_OFF ((1ULL << (32 - GH_FKS_REC32_SHIFT)) - 1)
#define GH_FKS_MAX_SPACE 4		/* redraw level 1 when sum n_b^2 > 4n */

struct gh_fks_view
{
	const void *rec;			/* n1 + 1 records */
	const gh_slot *slots;		/* space + 1 slots (last one always empty) */
	uint32_t	n1;
	uint32_t	rec64;
	gh_uhash	l1;
	gh_uhash	l2[GH_FKS_MAX_ROUNDS];
};

GH_HD uint32_t
gh_fks_bucket(const gh_fks_view &v, uint64_t key)
{
	return gh_reduce(gh_uhash32(v.l1, key), v.n1);
}

/* Level-2 slot of key in bucket b: one record pair read, no slot read. */
GH_HD uint64_t
gh_fks_slot(const gh_fks_view &v, uint64_t key)
{
	uint32_t	b = gh_fks_bucket(v, key);
	uint64_t	off,
				end;
	uint32_t	round;

	if (v.rec64)
	{
		const uint64_t *r = (const uint64_t *) v.rec;
		uint64_t	r0 = r[b],
					r1 = r[b + 1];

		off = r0 >> GH_FKS_REC64_SHIFT;
		end = r1 >> GH_FKS_REC64_SHIFT;
		round = (uint32_t) (r0 & ((1U << GH_FKS_REC64_SHIFT) - 1));
	}
	else
	{
		const uint32_t *r = (const uint32_t *) v.rec;
		uint32_t	r0 = r[b],
					r1 = r[b + 1];

		off = r0 >> GH_FKS_REC32_SHIFT;
		end = r1 >> GH_FKS_REC32_SHIFT;
		round = r0 & ((1U << GH_FKS_REC32_SHIFT) - 1);
	}
	return off + gh_reduce(gh_uhash32(v.l2[round & (GH_FKS_MAX_ROUNDS - 1)], key),
						   (uint32_t) (end - off));
}

GH_HD gh_hit
gh_fks_lookup(const gh_fks_view &v, uint64_t key)
{
	return gh_slot_match(v.slots[gh_fks_slot(v, key)], key);
}

/* ---------------------------------------------------------------------
 * GPH: bucketed perfect hash with a 1-byte cell index.
 *
 * A key's cell is c = H_c(key).  The cell byte holds (mapping phi, offset
 * delta) = (byte & 31, byte >> 5): the builder tries bytes in increasing
 * order, so consecutive tries change phi (a new split of the cell's keys
 * over its virtual buckets) before delta (a rotation of the same split,
 * useless while one virtual bucket alone holds more than M keys).  The key picks virtual bucket
 * j = H_v(key, phi) in [0, 8); virtual bucket j of cell c lives in physical
 * bucket H_b(c, (j + delta) mod 8, phi).  A bucket is 64 bytes: 4 slots of
 * (key, off, cnt), one 16-byte vector load per lane of a 4-lane group.  A
 * probe reads the cell (L2-resident: one byte per ~4 keys) and exactly one
 * bucket, for hits and misses alike.  The builder chooses each cell's byte
 * so that no bucket receives more than 4 keys.
 * --------------------------------------------------------------------- */

#define GH_GPH_R 8				/* virtual buckets per cell */
#define GH_GPH_M 4				/* slots per bucket: 4 x 16 B = 64 B */
#define GH_GPH_PHI 32			/* mappings (5 bits of the cell byte) */
#define GH_GPH_CANDIDATES (GH_GPH_PHI * GH_GPH_R)	/* cell byte values */
#define GH_GPH_KEYS_PER_CELL 4	/* average cell occupancy */
#define GH_GPH_SIZE_CLASSES 6	/* cells are placed largest class first */

/* Placement order of a cell with `size` keys: class 0 goes first, while the
 * buckets are still empty, as hash-and-displace places big groups first. */
GH_HD int
gh_gph_size_class(uint32_t size)
{
	return size >= 16 ? 0 : size >= 12 ? 1 : size >= 9 ? 2 : size >= 7 ? 3 : size >= 5 ? 4 : 5;
}

struct gh_gph_view
{
	const uint8_t *cells;		/* n_cells bytes */
	const gh_slot *slots;		/* n_buckets * GH_GPH_M slots */
	uint32_t	n_cells;
	uint32_t	n_buckets;
	uint64_t	seed_key;
	uint64_t	seed_bucket;
	uint32_t	seed_vb;
};

/* The key's mixed value: its high half picks the cell, its low half the
 * virtual bucket (independent halves of one avalanche). */
GH_HD uint64_t
gh_gph_mix(const gh_gph_view &v, uint64_t key)
{
	return gh_fmix64(key ^ v.seed_key);
}

GH_HD uint32_t
gh_gph_cell(const gh_gph_view &v, uint64_t hk)
{
	return gh_reduce((uint32_t) (hk >> 32), v.n_cells);
}

/* Physical bucket of key (mixed value hk) in cell c whose byte is state. */
GH_HD uint32_t
gh_gph_bucket(const gh_gph_view &v, uint64_t hk, uint32_t c, uint32_t state)
{
	uint32_t	phi = state & (GH_GPH_PHI - 1);
	uint32_t	delta = state >> 5;
	uint32_t	j = gh_fmix32((uint32_t) hk ^ (v.seed_vb + phi * 0x9e3779b9U)) >> 29;
	uint32_t	x = (j + delta) & (GH_GPH_R - 1);
	uint64_t	hb = gh_fmix64((((uint64_t) c << 8) | (phi << 3) | x) ^ v.seed_bucket);

	return gh_reduce((uint32_t) (hb >> 32), v.n_buckets);
}

/* The one bucket a probe of key reads. */
GH_HD uint32_t
gh_gph_locate(const gh_gph_view &v, uint64_t key)
{
	uint64_t	hk = gh_gph_mix(v, key);
	uint32_t	c = gh_gph_cell(v, hk);

	return gh_gph_bucket(v, hk, c, v.cells[c]);
}

/* Scalar lookup (host twin, validators); kernels read the bucket with a
 * 4-lane group instead but locate it with gh_gph_locate. */
GH_HD gh_hit
gh_gph_lookup(const gh_gph_view &v, uint64_t key)
{
	const gh_slot *b = v.slots + (uint64_t) gh_gph_locate(v, key) * GH_GPH_M;
	gh_hit		h = {0, 0};

	for (int i = 0; i < GH_GPH_M; i++)
	{
		gh_hit		m = gh_slot_match(b[i], key);

		if (m.cnt)
			h = m;
	}
	return h;
}

/* ---------------------------------------------------------------------
 * Linear probing over distinct keys: the in-project baseline.
 * capacity is a power of two with load <= 0.5, so a run always ends in an
 * empty slot (cnt == 0).
 * --------------------------------------------------------------------- */

struct gh_lin_view
{
	const gh_slot *slots;
	uint64_t	mask;
	uint64_t	seed;
};

GH_HD uint64_t
gh_lin_home(const gh_lin_view &v, uint64_t key)
{
	return gh_fmix64(key ^ v.seed) & v.mask;
}

GH_HD gh_hit
gh_lin_lookup(const gh_lin_view &v, uint64_t key)
{
	gh_hit		h = {0, 0};

	for (uint64_t i = gh_lin_home(v, key);; i = (i + 1) & v.mask)
	{
		gh_slot		s = v.slots[i];

		if (s.cnt == 0)
			break;
		if (s.key == key)
		{
			h.off = s.off;
			h.cnt = s.cnt;
			break;
		}
	}
	return h;
}

/* ---------------------------------------------------------------------
 * Sizing shared by both builders, so both build the same geometry.
 * --------------------------------------------------------------------- */

GH_HD uint32_t
gh_gph_buckets_for(uint64_t n_distinct, double load_factor, int attempt)
{
	/* each failed attempt lowers the load by 10% */
	double		lf = load_factor;

	for (int i = 0; i < attempt; i++)
		lf *= 0.9;
	double		nb = (double) n_distinct / (GH_GPH_M * lf);
	uint64_t	b = (uint64_t) nb + 1;

	return (uint32_t) (b > 0xffffffffULL ? 0xffffffffULL : b);
}

GH_HD uint32_t
gh_gph_cells_for(uint64_t n_distinct)
{
	return (uint32_t) ((n_distinct + GH_GPH_KEYS_PER_CELL - 1) / GH_GPH_KEYS_PER_CELL + 1);
}

GH_HD uint64_t
gh_lin_capacity_for(uint64_t n_distinct, double load_factor)
{
	uint64_t	want = (uint64_t) ((double) n_distinct / load_factor) + 1;
	uint64_t	cap = 2;

	while (cap < want || cap < 2 * n_distinct)
		cap <<= 1;
	return cap;
}

/* Seeds of build attempt a: independent of the key data. */
GH_HD uint64_t
gh_attempt_seed(uint64_t seed, int attempt)
{
	uint64_t	s = seed ^ (0x6a09e667f3bcc909ULL * (uint64_t) (attempt + 1));

	return gh_splitmix64(&s);
}

#define GH_MAX_ATTEMPTS 8
#define GH_DEFAULT_SEED 0x67707568617368ULL	/* "gpuhash" */

#endif							/* GPUHASH_HASH_CUH */
