/*-------------------------------------------------------------------------
 *
 * chain_carry.c
 *	  A chain's carried keys (chain.c): the keys of the upper levels that
 *	  read a level's inner rows, made from those rows as the upper levels'
 *	  own probes would make them.  The inner store of a parallel build
 *	  (shared_inner.c) and its shared state (parallel.c) ask here, below
 *	  the chain.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "chain_internal.h"

#include "miscadmin.h"

/* How many upper levels' key columns gs's inner rows carry (0: none). */
int
gpuhash_carried_columns(GpuJoinState *gs)
{
	return gs->carrier ? gs->carrier->lv[gs->carrier_level].n_carry : 0;
}

/*
 * The carried keys of n inner rows of carrier level gs, kept as tups:
 * column c of row i goes to keys[c * ld + i], as the upper level's own
 * probe would make its key.  The readers of a parallel inner side call this
 * on their share, in its storage order; a walk over the shared rows in the
 * table's order would deform each tuple at a cache miss, in one
 * participant.
 */
void
gpuhash_carried_keys(GpuJoinState *gs, const MinimalTuple *tups, uint64 n,
					 uint64 *keys, uint8 *valid, uint64 ld)
{
	GpuChain   *ch = gs->carrier;
	ChainLevel *l = &ch->lv[gs->carrier_level];
	Datum		d[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];

	if (l->n_carry == 0)
		return;
	for (uint64 p = 0; p < n; p++)
	{
		if ((p & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		/* every carried column from one deform of the row */
		gpuhash_inner_deform(gs, tups[p], gs->row_vals, gs->row_nulls);
		for (int c = 0; c < l->n_carry; c++)
		{
			ChainLevel *up = &ch->lv[l->carry_for[c]];
			uint32		mask = l->carry_mask[c];
			uint64		key;

			for (int i = 0; i < up->gs->info.nkeys; i++)
			{
				if (!(mask & (UINT32_C(1) << i)))
					continue;
				d[i] = gs->row_vals[up->src[i]];
				isnull[i] = gs->row_nulls[up->src[i]];
			}
			valid[c * ld + p] = gpuhash_datums_key(up->gs, d, isnull, mask, &key);
			keys[c * ld + p] = valid[c * ld + p] ? key : 0;
		}
	}
}
