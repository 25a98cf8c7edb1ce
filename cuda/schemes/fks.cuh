/*
 * schemes/fks.cuh
 *		FKS: two-level perfect hash.  View, lookup, geometry, record layout
 *		and attempt policy, for the GPU kernels and the host twin alike.
 */
#ifndef GPUHASH_SCHEME_FKS_CUH
#define GPUHASH_SCHEME_FKS_CUH

#include "../hash.cuh"

#include <stddef.h>
#include <string.h>

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
 * Geometry and records, shared by both builders and the digests.
 * --------------------------------------------------------------------- */

/* One level-1 bucket per distinct key (one bucket when there are none). */
GH_HD uint32_t
gh_fks_n1(uint64_t u)
{
	return u ? (uint32_t) u : 1;
}

/* Level 1 is kept when sum n_b^2 <= 4n: FKS's expected space bound. */
GH_HD bool
gh_fks_space_ok(uint64_t space, uint32_t n1)
{
	return space <= (uint64_t) GH_FKS_MAX_SPACE * n1;
}

/* 64-bit records once an offset no longer fits 27 bits. */
GH_HD bool
gh_fks_rec64_for(uint64_t space)
{
	return space + 1 > GH_FKS_REC32_MAX_OFF;
}

GH_HD size_t
gh_fks_rec_bytes(const gh_fks_view &v)
{
	return ((size_t) v.n1 + 1) * (v.rec64 ? 8 : 4);
}

/* Record of a bucket whose level-2 slots start at off, found in round. */
GH_HD uint64_t
gh_fks_record(uint64_t off, uint32_t round, bool rec64)
{
	return (off << (rec64 ? GH_FKS_REC64_SHIFT : GH_FKS_REC32_SHIFT)) | round;
}

/*
 * Attempt policy (build_driver.h): level 1 and the GH_FKS_MAX_ROUNDS
 * level-2 constants are redrawn per attempt; an attempt fails when level 1
 * is too uneven or a bucket has no injective round.
 */
struct gh_fks_scheme
{
	typedef gh_fks_view view;
	static constexpr const char label[] = "FKS";
	static constexpr int max_attempts = GH_MAX_ATTEMPTS;

	static bool init(view *v, uint64_t, uint64_t u, double)
	{
		memset(v, 0, sizeof(*v));
		v->n1 = gh_fks_n1(u);
		return true;
	}
	static bool draw(view *v, uint64_t seed, int attempt, uint64_t, double)
	{
		uint64_t	st = gh_attempt_seed(seed, attempt);

		v->l1 = gh_uhash_draw(&st);
		for (int r = 0; r < GH_FKS_MAX_ROUNDS; r++)
			v->l2[r] = gh_uhash_draw(&st);
		return true;
	}
	static uint64_t cells(const view &v)
	{
		return v.n1;
	}
};

#endif							/* GPUHASH_SCHEME_FKS_CUH */
