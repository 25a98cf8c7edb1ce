/*-------------------------------------------------------------------------
 *
 * inner_store.h
 *	  The inner store's inline reads and match bits (inner_store.c owns the
 *	  kept inner rows): inline, as they run once per match.  Included by
 *	  join_state.h, after the state they read.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_INNER_STORE_H
#define GPUHASH_INNER_STORE_H

/*
 * Where the kept inner row at table position pos is read first: its
 * columns (this process's rows), or the pointer to its tuple (a shared
 * table's); NULL where no inner column is kept.
 */
static inline const void *
gpuhash_inner_row_address(GpuJoinState *gs, uint64 pos)
{
	if (gs->n_inner_keep == 0)
		return NULL;
	if (gs->inner_vals)
		return gs->inner_vals + pos * gs->n_inner_keep;
	return gs->shared_rowptrs ? &gs->shared_rowptrs[pos] : NULL;
}

/*
 * Starts loading that first read of the row at pos (with its null flags).
 * A statement, not a function: GCC deems a function of prefetches alone
 * free of effects and drops its calls.
 */
#define GPUHASH_PREFETCH_INNER_ROW(gs, pos) \
	do { \
		GpuJoinState *pg_ = (gs); \
		uint64		pp_ = (pos); \
		const void *pa_ = gpuhash_inner_row_address(pg_, pp_); \
		if (pa_ != NULL) \
		{ \
			gpuhash_prefetch(pa_); \
			if (pg_->inner_vals) \
				gpuhash_prefetch(pg_->inner_nulls + pp_ * pg_->n_inner_keep); \
		} \
	} while (0)

/* Right/full joins: 32-bit words of match bits, one bit per inner row. */
static inline uint64
gpuhash_matched_words(const GpuJoinState *gs)
{
	return Max((gs->n_inner_all + 31) / 32, 1);
}

/*
 * The inner store's match bits (right/full joins): this join's own, or a
 * parallel plan's in shared memory.  Inner row `row` has matched.
 */
static inline void
gpuhash_inner_mark(GpuJoinState *gs, uint64 row)
{
	uint32		bit = ((uint32) 1) << (row & 31);

	if (gs->shared_matched)
	{
		pg_atomic_uint32 *w = &gs->shared_matched[row >> 5];

		/* most rows match again and again: write only the first time */
		if ((pg_atomic_read_u32(w) & bit) == 0)
			pg_atomic_fetch_or_u32(w, bit);
	}
	else
		gs->matched[row >> 5] |= bit;
}

static inline bool
gpuhash_inner_matched(GpuJoinState *gs, uint64 row)
{
	uint32		bit = ((uint32) 1) << (row & 31);

	if (gs->shared_matched)
		return (pg_atomic_read_u32(&gs->shared_matched[row >> 5]) & bit) != 0;
	return (gs->matched[row >> 5] & bit) != 0;
}

#endif							/* GPUHASH_INNER_STORE_H */
