/*-------------------------------------------------------------------------
 *
 * keyfilter.c
 *	  A Bloom filter of the join table's keys, checked on the CPU before an
 *	  outer row is copied into a batch.
 *
 * Most of a selective join's outer rows match nothing (a 60 M-row fact
 * table probed for the ~2,000 rows a filter keeps of a dimension).  PostgreSQL's hash join drops such a row
 * after one lookup; a GPU join would first copy its kept columns into the
 * batch and ship its key.  The filter lets the row go at the cost of one
 * cache line: 16 bits per key, three of them set in one 64-bit word
 * (a blocked Bloom filter), so about 1% of the keys that are absent pass.
 * A pass is only a candidate: the table decides.  It is not a hash of the
 * table (that lives in cuda/hash.cuh for the kernels and the host twin): it
 * never decides a match, only spares work.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"

#include "portability/instr_time.h"

/* 16 bits per key, at most 2^22 words (32 MB) */
#define KF_BITS_PER_KEY	16
#define KF_MAX_WORDS	(UINT64CONST(1) << 22)

/* Words of the filter for n keys: a power of two. */
uint64
gpuhash_keyfilter_words(uint64 n_keys)
{
	uint64		want = Max(n_keys * KF_BITS_PER_KEY / 64, 1);
	uint64		words = 1;

	while (words < want && words < KF_MAX_WORDS)
		words <<= 1;
	return words;
}

/* Adds n keys to a filter */
static void
kf_add(uint64 *words, uint64 n_words, const uint64 *keys, uint64 n)
{
	uint64		mask = n_words - 1;

	for (uint64 i = 0; i < n; i++)
	{
		uint64		h = gpuhash_kf_hash(keys[i]);

		words[h & mask] |= gpuhash_kf_bits(h);
	}
}

/*
 * Adds n keys to a filter that the participants of a parallel join fill
 * together (shared_inner.c): each takes blocks of the shares' keys, so the
 * filter costs the builder no serial pass while the others wait (one
 * process took 32 ms to add 2.3 M keys).  A word is set with an atomic OR: two
 * participants may add keys to one word at once.
 */
void
gpuhash_keyfilter_add_shared(pg_atomic_uint64 *words, uint64 n_words, const uint64 *keys,
							 uint64 n)
{
	uint64		mask = n_words - 1;

	for (uint64 i = 0; i < n; i++)
	{
		uint64		h = gpuhash_kf_hash(keys[i]);

		pg_atomic_fetch_or_u64(&words[h & mask], gpuhash_kf_bits(h));
	}
}

/* Fills the filter of a join's table, timed for EXPLAIN ANALYZE. */
static void
keyfilter_build(GpuJoinState *gs, uint64 *words, uint64 n_words, const GpuKeyParts *keys)
{
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	memset(words, 0, sizeof(uint64) * n_words);
	for (int p = 0; p < keys->nparts; p++)
		kf_add(words, n_words, keys->keys[p], keys->n[p]);
	gs->stats.filter_ms += gpuhash_ms_since(t0);
}

/*
 * Only where a row ruled out can simply go: not when unmatched outer rows
 * come out (left, full, anti).
 */
bool
gpuhash_keyfilter_wanted(GpuJoinState *gs)
{
	return gpuhash_outer_filter && !gs->fill_outer && gs->info.key_filter;
}

/* The filter of a join's table of n_keys keys, made in cxt. */
void
gpuhash_keyfilter_make(GpuJoinState *gs, MemoryContext cxt, uint64 n_keys,
					   const GpuKeyParts *keys)
{
	gs->kf.nwords = gpuhash_keyfilter_words(n_keys);
	gs->kf.words = MemoryContextAllocHuge(cxt, sizeof(uint64) * gs->kf.nwords);
	keyfilter_build(gs, gs->kf.words, gs->kf.nwords, keys);
}

/* A filter made elsewhere (a parallel plan's, in its DSA); NULL: none. */
void
gpuhash_keyfilter_set(GpuJoinState *gs, uint64 *words, uint64 n_words)
{
	gs->kf.words = words;
	gs->kf.nwords = n_words;
}

/* The table's filter is gone with its memory. */
void
gpuhash_keyfilter_forget(GpuJoinState *gs)
{
	gs->kf.words = NULL;
	gs->kf_on = false;
}

/* A scan of the table starts: the filter is checked again, counts anew. */
void
gpuhash_keyfilter_start(GpuJoinState *gs)
{
	gs->kf_on = gs->kf.words != NULL;
	gs->kf.tested = gs->kf.passed = 0;
}

/* Outer rows read before the table (and its filter) exist go unfiltered. */
void
gpuhash_keyfilter_pause(GpuJoinState *gs)
{
	gs->kf_on = false;
}
