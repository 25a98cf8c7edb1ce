/*
 * hash.cuh
 *		Hash functions, slot layouts and the lookup of every scheme, written
 *		once for the GPU kernels and the host twin (__host__ __device__).
 *
 * A built table is reduced to a small read-only "view" per scheme (arrays
 * and seeds).  The builders (host_build.cpp, gpu_*.cu) fill the arrays so
 * that the locate functions below find every key; probing on either device
 * calls the same locate functions, so the two cannot drift apart.
 *
 * GPH is laid out for a bulk build (see its section): keys are sorted by a
 * bijective mix hk whose high half picks the cell monotonically, cells are
 * grouped into regions of 256 that own their buckets, and every region is
 * placed on its own by one warp (the paper's one-by-one insert runs at
 * ~0.1 G keys/s).  The placement order and the slot order are fixed by
 * definition, so the GPU and the host twin build bit-identical cells and
 * slots.  The geometry, the placement's packed-counter arithmetic and the
 * locate functions all live here.
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
	return gh_slot_match(gh_slot_load_stream(v.slots + gh_fks_slot(v, key)), key);
}

/* ---------------------------------------------------------------------
 * GPH: bucketed perfect hash with a 1-byte cell index, built region by
 * region.
 *
 * A key's mixed value is hk = fmix64(key ^ seed_key), a bijection; its high
 * half picks the cell c = reduce(hk >> 32, n_cells), which is monotone in
 * hk, and its low half picks the virtual bucket.  Cells come in regions of
 * 2^cr_log2 consecutive cells (256 for all but tiny tables, ~1024 keys); a
 * region owns br consecutive buckets (a multiple of 8) and its cells place
 * keys only there, so every region is built on its own (one GPU warp, its
 * state in shared memory) and, the build having sorted keys by hk, a
 * region's keys and each of its cells' keys are contiguous runs.
 *
 * The cell byte holds (mapping phi, offset delta) = (byte & 31, byte >> 5).
 * Mapping phi sends the cell to one aligned group of 8 buckets in its region,
 * g = reduce(fmix32(fmix32(c ^ seed_cell) + phi * golden), br / 8), and
 * splits the cell's keys over 8 virtual buckets j = H_v(hk, phi); virtual
 * bucket j lives in bucket 8g + ((j + delta) mod 8) of the group, so delta
 * rotates one split over the group's 8 buckets.  A bucket is 64 bytes:
 * 4 slots of (key, off, cnt), one 16-byte vector load per lane of a 4-lane
 * group.  A probe reads the cell (L2-resident: one byte per ~4 keys) and
 * exactly one bucket, for hits and misses alike.
 *
 * Placement (host twin and GPU alike, sequential semantics per region):
 * cells by size descending (ties by cell id); each takes the first byte
 * 0..255 under which no bucket would exceed M keys; no such byte fails the
 * attempt (new seed_cell/seed_vb and ~11% more buckets; seed_key and hence
 * the sort stay).  Slots: keys in index order, each at its bucket's next
 * free slot, so slots too are deterministic.  Why this and not the paper's
 * insert kernel: one-by-one inserts with locked moves run at ~0.1 G keys/s;
 * whole regions placed by one warp each, with a group's 8 fill counters in
 * one 8-byte shared-memory word and 32 candidate bytes judged per ballot,
 * run at sort speed.  Mapping to an aligned group (instead of 8 independent
 * buckets) makes a candidate one hash and one word compare, never lets two
 * virtual buckets of one cell share a bucket, and measured no worse: fewer
 * candidates per cell and fewer failed regions at load 0.9.
 * --------------------------------------------------------------------- */

#define GH_GPH_R 8				/* virtual buckets per cell = buckets per group */
#define GH_GPH_M 4				/* slots per bucket: 4 x 16 B = 64 B */
#define GH_GPH_PHI 32			/* mappings (5 bits of the cell byte) */
#define GH_GPH_CANDIDATES (GH_GPH_PHI * GH_GPH_R)	/* cell byte values */
#define GH_GPH_KEYS_PER_CELL 4	/* average cell occupancy */
#define GH_GPH_REGION_LOG2 8	/* at most 256 cells per region */
#define GH_GPH_REGION_MAX (1U << GH_GPH_REGION_LOG2)
#define GH_GPH_MAX_CELL (GH_GPH_R * GH_GPH_M)	/* more keys never fit a cell */
#define GH_GOLDEN32 0x9e3779b9U

struct gh_gph_view
{
	const uint8_t *cells;		/* n_cells bytes */
	const gh_slot *slots;		/* n_buckets * GH_GPH_M slots */
	uint32_t	n_cells;		/* n_regions << cr_log2 */
	uint32_t	n_buckets;		/* n_regions * br */
	uint32_t	n_regions;
	uint32_t	cr_log2;		/* cells per region = 1 << cr_log2 */
	uint32_t	br;				/* buckets per region, a multiple of 8 */
	uint32_t	seed_cell;
	uint32_t	seed_vb;
	uint64_t	seed_key;
};

/* The key seed is fixed per build (the sort order depends on it); the
 * other seeds are redrawn per attempt. */
GH_HD uint64_t
gh_gph_key_seed(uint64_t seed)
{
	uint64_t	s = seed ^ 0x243f6a8885a308d3ULL;

	return gh_splitmix64(&s);
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

GH_HD uint64_t
gh_gph_mix_seeded(uint64_t seed_key, uint64_t key)
{
	return gh_fmix64(key ^ seed_key);
}

GH_HD uint64_t
gh_gph_mix(const gh_gph_view &v, uint64_t key)
{
	return gh_fmix64(key ^ v.seed_key);
}

GH_HD uint64_t
gh_gph_unmix(const gh_gph_view &v, uint64_t hk)
{
	return gh_fmix64_inv(hk) ^ v.seed_key;
}

GH_HD uint32_t
gh_gph_cell(const gh_gph_view &v, uint64_t hk)
{
	return gh_reduce((uint32_t) (hk >> 32), v.n_cells);
}

/* Virtual bucket (0..7) of a key under mapping phi. */
GH_HD uint32_t
gh_gph_vbucket(const gh_gph_view &v, uint64_t hk, uint32_t phi)
{
	return gh_fmix32((uint32_t) hk ^ (v.seed_vb + phi * GH_GOLDEN32)) >> 29;
}

/* Per-cell hash, and the region-local first bucket of cell c's group under
 * phi (a multiple of 8). */
GH_HD uint32_t
gh_gph_cell_hash(const gh_gph_view &v, uint32_t c)
{
	return gh_fmix32(c ^ v.seed_cell);
}

GH_HD uint32_t
gh_gph_group(const gh_gph_view &v, uint32_t cell_hash, uint32_t phi)
{
	return gh_reduce(gh_fmix32(cell_hash + phi * GH_GOLDEN32), v.br >> 3) << 3;
}

/* Physical bucket of key (mixed value hk) in cell c whose byte is state. */
GH_HD uint32_t
gh_gph_bucket(const gh_gph_view &v, uint64_t hk, uint32_t c, uint32_t state)
{
	uint32_t	phi = state & (GH_GPH_PHI - 1);
	uint32_t	delta = state >> 5;
	uint32_t	x = (gh_gph_vbucket(v, hk, phi) + delta) & (GH_GPH_R - 1);

	return (c >> v.cr_log2) * v.br + gh_gph_group(v, gh_gph_cell_hash(v, c), phi) + x;
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

/*
 * Placement arithmetic on packed counters: 8 byte-wide counters in a
 * uint64, one per bucket of a group (or per virtual bucket).  Every counter
 * stays below 128 (fills <= 4, a cell's keys <= 32), so adding two packed
 * words never carries between bytes, and a counter is <= M = 4 iff adding
 * 123 leaves its top bit clear.
 */
#define GH_GPH_BYTES_LE4(w) \
	((((w) + 0x7b7b7b7b7b7b7b7bULL) & 0x8080808080808080ULL) == 0)

/* Virtual bucket j's count moves to byte (j + delta) mod 8. */
GH_HD uint64_t
gh_gph_rotate(uint64_t w, uint32_t delta)
{
	uint32_t	r = 8 * (delta & 7);

	return r ? (w << r) | (w >> (64 - r)) : w;
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

/*
 * GPH geometry of attempt a over u distinct keys: cells per region the
 * smallest power of two holding u keys at 4 per cell, at most 256; as many
 * regions as needed for 4 keys per cell; buckets per region for the load
 * factor over the average region (1/0.9 more per failed attempt), rounded
 * up to whole groups of 8.  Cells and regions do not depend on the attempt.
 * Returns false when the buckets would not fit 32-bit indexes.
 */
GH_HD bool
gh_gph_geometry(uint64_t u, double load_factor, int attempt, gh_gph_view *v)
{
	uint32_t	cr_log2 = 0;

	while (cr_log2 < GH_GPH_REGION_LOG2 &&
		   ((uint64_t) GH_GPH_KEYS_PER_CELL << cr_log2) < u)
		cr_log2++;

	uint64_t	per_region = (uint64_t) GH_GPH_KEYS_PER_CELL << cr_log2;
	uint64_t	regions = u ? (u + per_region - 1) / per_region : 1;
	double		lf = load_factor;

	for (int i = 0; i < attempt; i++)
		lf *= 0.9;
	uint64_t	br = (uint64_t) ((double) u / (double) regions / (GH_GPH_M * lf)) + 1;

	br = (br + GH_GPH_R - 1) & ~(uint64_t) (GH_GPH_R - 1);
	v->cr_log2 = cr_log2;
	v->n_regions = (uint32_t) regions;
	v->n_cells = (uint32_t) (regions << cr_log2);
	v->br = (uint32_t) br;
	v->n_buckets = (uint32_t) (regions * br);
	return br <= 0xffffffffULL && regions * br <= 0xffffffffULL;
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
