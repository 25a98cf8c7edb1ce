/*
 * schemes/gph.cuh
 *		GPH: bucketed perfect hash with a 1-byte cell index.  View, locate
 *		and lookup, geometry, the placement's packed-counter arithmetic and
 *		the attempt policy, for the GPU kernels and the host twin alike.
 *
 * GPH is laid out for a bulk build: keys are sorted by a bijective mix hk
 * whose high half picks the cell monotonically, cells are grouped into
 * regions of 256 that own their buckets, and every region is placed on its
 * own by one warp (the paper's one-by-one insert runs at ~0.1 G keys/s).
 * The placement order and the slot order are fixed by definition, so the
 * GPU and the host twin build bit-identical cells and slots.
 */
#ifndef GPUHASH_SCHEME_GPH_CUH
#define GPUHASH_SCHEME_GPH_CUH

#include "../hash.cuh"

#include <string.h>

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

/* hk of a key under the build's seed_key (before a view exists). */
GH_HD uint64_t
gh_gph_mix_seeded(uint64_t seed_key, uint64_t key)
{
	return gh_mix_key(seed_key, key);
}

GH_HD uint64_t
gh_gph_mix(const gh_gph_view &v, uint64_t key)
{
	return gh_mix_key(v.seed_key, key);
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
 * Geometry and attempt policy, shared by both builders.
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

/*
 * Attempt policy (build_driver.h): cells, regions and seed_key (hence the
 * sort) are fixed per build; each attempt redraws seed_cell and seed_vb and
 * grows the buckets by 1/0.9, until the buckets outgrow 32-bit indexes.
 */
struct gh_gph_scheme
{
	typedef gh_gph_view view;
	static constexpr const char label[] = "GPH";
	static constexpr int max_attempts = GH_MAX_ATTEMPTS;

	static bool init(view *v, uint64_t seed, uint64_t u, double lf)
	{
		memset(v, 0, sizeof(*v));
		if (!gh_gph_geometry(u, lf, 0, v))
			return false;
		v->seed_key = gh_gph_key_seed(seed);
		return true;
	}
	static bool draw(view *v, uint64_t seed, int attempt, uint64_t u, double lf)
	{
		uint64_t	st = gh_attempt_seed(seed, attempt);

		if (!gh_gph_geometry(u, lf, attempt, v))
			return false;
		v->seed_cell = (uint32_t) gh_splitmix64(&st);
		v->seed_vb = (uint32_t) gh_splitmix64(&st);
		return true;
	}
	static uint64_t cells(const view &v)
	{
		return v.n_cells;
	}
};

#endif							/* GPUHASH_SCHEME_GPH_CUH */
