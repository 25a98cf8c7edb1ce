/*-------------------------------------------------------------------------
 *
 * probe_internal.h
 *	  Between the state machine (executor.c), the probe pipeline that feeds
 *	  it outer rows in batches (probe_pipeline.c) and the scan tuple it
 *	  emits (scan_tuple.c): not for the rest of the node.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_PROBE_INTERNAL_H
#define GPUHASH_PROBE_INTERNAL_H

#include "join_state.h"

/*
 * Are the probe batch's rows heap tuples in pinned pages (batch_tups)?  Those
 * of hash batch 0 of an absorbed scan whose columns the join emits.
 */
static inline bool
batch_rows_in_pages(GpuJoinState *gs)
{
	return gs->oscan && gs->oscan->keep_rows && gs->curbatch == 0 && gs->split == NULL;
}

/* probe_pipeline.c */
extern bool gpuhash_next_batch(GpuJoinState *gs);
extern bool gpuhash_next_hash_batch(GpuJoinState *gs);
extern void gpuhash_release_batches(GpuJoinState *gs);
extern GpuJoinPhase gpuhash_split_outer(GpuJoinState *gs);

#endif							/* GPUHASH_PROBE_INTERNAL_H */
