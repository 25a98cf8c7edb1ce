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
 * Where the kept inner row at table position pos is read first: the
 * pointer to its tuple, this process's or a shared table's; NULL where no
 * inner column is kept.
 */
static inline const void *
gpuhash_inner_row_address(GpuJoinState *gs, uint64 pos)
{
	if (gs->n_inner_keep == 0)
		return NULL;
	if (gs->inner_tups)
		return &gs->inner_tups[pos];
	return gs->shared_rowptrs ? &gs->shared_rowptrs[pos] : NULL;
}

/*
 * The tuple of the kept inner row at table position pos, once its pointer
 * is in (gpuhash_inner_row_address); NULL where no inner column is kept.
 */
static inline const void *
gpuhash_inner_row_tuple(GpuJoinState *gs, uint64 pos)
{
	if (gs->n_inner_keep == 0)
		return NULL;
	if (gs->inner_tups)
		return gs->inner_tups[pos];
	return gs->shared_rowptrs ?
		dsa_get_address(gs->shared_area, gs->shared_rowptrs[pos]) : NULL;
}

/*
 * Starts loading that first read of the row at pos.  A statement, not a
 * function: GCC deems a function of prefetches alone free of effects and
 * drops its calls.
 */
#define GPUHASH_PREFETCH_INNER_ROW(gs, pos) \
	do { \
		const void *pa_ = gpuhash_inner_row_address((gs), (pos)); \
		if (pa_ != NULL) \
			gpuhash_prefetch(pa_); \
	} while (0)

/* Then the row's tuple itself. */
#define GPUHASH_PREFETCH_INNER_TUPLE(gs, pos) \
	do { \
		const void *pt_ = gpuhash_inner_row_tuple((gs), (pos)); \
		if (pt_ != NULL) \
			gpuhash_prefetch(pt_); \
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
