/*-------------------------------------------------------------------------
 *
 * probe_internal.h
 *	  Between the state machine (executor.c), the probe pipeline that feeds
 *	  it outer rows in batches (probe_pipeline.c), the start and end of a
 *	  scan (scan_start.c) and the scan tuple it emits (scan_tuple.c): not
 *	  for the rest of the node.
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

/* The last hash batch is over: a split parallel join's next shared batch, or the end. */
static inline GpuJoinPhase
gpuhash_after_last_batch(GpuJoinState *gs)
{
	return gs->split ? GJ_NEXT_SPLIT : GJ_DONE;
}

/* A hash batch is over: the next one, or the end. */
static inline GpuJoinPhase
gpuhash_batch_done(GpuJoinState *gs)
{
	return gs->curbatch + 1 < gs->nbatch ? GJ_NEW_BATCH : gpuhash_after_last_batch(gs);
}

/* probe_pipeline.c */
extern bool gpuhash_next_batch(GpuJoinState *gs);
extern bool gpuhash_next_hash_batch(GpuJoinState *gs);
extern void gpuhash_release_batches(GpuJoinState *gs);
extern GpuJoinPhase gpuhash_split_outer(GpuJoinState *gs);
extern bool gpuhash_outer_peek(GpuJoinState *gs);
extern void gpuhash_probe_restart(GpuJoinState *gs);

/* scan_start.c */
extern GpuJoinPhase gpuhash_scan_start(GpuJoinState *gs, ExprContext *econtext);

#endif							/* GPUHASH_PROBE_INTERNAL_H */
