/*-------------------------------------------------------------------------
 *
 * keyfilter.h
 *	  The key filter of a GpuHashJoin (keyfilter.c): a bit filter of the
 *	  inner keys that outer rows are tested against before they are
 *	  probed; the test is inline, as it runs once per outer row.  Included
 *	  by join_state.h, after the state it reads.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_KEYFILTER_H
#define GPUHASH_KEYFILTER_H

/* keyfilter.c */
extern uint64 gpuhash_keyfilter_words(uint64 n_keys);
extern void gpuhash_keyfilter_add_shared(pg_atomic_uint64 *words, uint64 n_words,
										 const uint64 *keys, uint64 n);
extern void gpuhash_keyfilter_make(GpuJoinState *gs, MemoryContext cxt, uint64 n_keys,
								   const GpuKeyParts *keys);
extern void gpuhash_keyfilter_set(GpuJoinState *gs, uint64 *words, uint64 n_words);
extern void gpuhash_keyfilter_forget(GpuJoinState *gs);
extern void gpuhash_keyfilter_start(GpuJoinState *gs);
extern void gpuhash_keyfilter_pause(GpuJoinState *gs);
extern bool gpuhash_keyfilter_wanted(GpuJoinState *gs);

/*
 * The key filter's hash (keyfilter.c): inline, as it runs once per outer
 * row.  Murmur3's 64-bit finalizer, a few multiplies and shifts where a
 * call to hash_bytes_uint32_extended cost more than the rest of the test
 * (perf, host twin): the filter only spares work, any well-mixed hash
 * does, and nothing else depends on this one.  batch.c mixes keys its own
 * way (other constants and shifts): a batch's keys, which share some bits
 * of its hash, still spread over the whole filter.
 */
static inline uint64
gpuhash_kf_hash(uint64 key)
{
	key ^= key >> 33;
	key *= UINT64CONST(0xff51afd7ed558ccd);
	key ^= key >> 33;
	key *= UINT64CONST(0xc4ceb9fe1a85ec53);
	key ^= key >> 33;
	return key;
}

/* The word index from the low bits, three bit positions from the high ones. */
static inline uint64
gpuhash_kf_bits(uint64 h)
{
	return (UINT64CONST(1) << ((h >> 46) & 63)) |
		(UINT64CONST(1) << ((h >> 52) & 63)) |
		(UINT64CONST(1) << ((h >> 58) & 63));
}

static inline bool
gpuhash_keyfilter_test(const uint64 *words, uint64 n_words, uint64 key)
{
	uint64		h = gpuhash_kf_hash(key);
	uint64		bits = gpuhash_kf_bits(h);

	return (words[h & (n_words - 1)] & bits) == bits;
}

/*
 * Does the key filter let this outer key through?  A filter that lets most
 * keys through (a join where nearly every row matches) only costs a cache
 * miss per row: after a sample it is switched off for the rest of the scan.
 */
#define KF_SAMPLE 65536

static inline bool
gpuhash_key_filter_passes(GpuJoinState *gs, uint64 key)
{
	gs->kf.tested++;
	if (!gpuhash_keyfilter_test(gs->kf.words, gs->kf.nwords, key))
	{
		gs->stats.outer_filtered++;
		return false;
	}
	gs->kf.passed++;
	if (gs->kf.tested == KF_SAMPLE && gs->kf.passed * 4 > gs->kf.tested * 3)
		gs->kf_on = false;
	return true;
}

/*
 * Does an outer row read go into the probe batch?  One without a key
 * matches nothing: only where unmatched outer rows come out (left, full,
 * anti); one the key filter rules out, never.
 */
static inline bool
gpuhash_outer_row_wanted(GpuJoinState *gs, uint64 key, bool nokey)
{
	if (nokey)
		return gs->fill_outer;
	return !gs->kf_on || gpuhash_key_filter_passes(gs, key);
}

#endif							/* GPUHASH_KEYFILTER_H */
