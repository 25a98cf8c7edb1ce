/*-------------------------------------------------------------------------
 *
 * scan_start.c
 *	  The start of a GpuHashJoin's scan (GJ_BUILD: the gate, the first outer
 *	  row, the build) and the end of its probe (on to the unmatched inner
 *	  rows, the next hash batch, or the end), for the state machine
 *	  (executor.c) and for a chain's levels (chain.c), which run them
 *	  without it.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "probe_internal.h"

#include "executor/executor.h"

/* The end of this participant's outer side: on to the unmatched inner rows? */
void
gpuhash_end_probe(GpuJoinState *gs)
{
	bool		fill = gs->fill_inner;

	if (gs->oscan)
	{
		uint64		pages,
					filtered;
		double		page_ms;

		/* this scan's figures: summed over participants below */
		gpuhash_heap_scan_take_figures(gs->oscan, &pages, &page_ms, &filtered);
		gs->stats.scan_pages += pages;
		gs->stats.scan_page_ms += page_ms;
		gs->stats.scan_filtered += filtered;
	}
	if (gs->shared)
	{
		gpuhash_shared_add_counts(gs);
		/* one table for all: the last participant to probe it fills */
		if (gpuhash_shares_table(gs))
			fill = gpuhash_shared_probe_done(gs, &gs->step.fill_shared) && fill;
	}
	gs->step.phase = fill ? GJ_FILL_INNER : gpuhash_batch_done(gs);
	gs->step.fill_pos = 0;
	gs->step.fill_end = gs->step.fill_shared ? 0 : gs->n_inner_all;
}

/*
 * GJ_BUILD: the start of a scan.  Pseudoconstant quals (WHERE now() IS NULL
 * above the join) decide once per scan whether any row comes out, as a
 * gating Result would.  Then, as nodeHashjoin.c: an empty outer side needs
 * no table (and must not raise the errors its inner keys could), unless the
 * unmatched inner rows come out; parallel participants build together.  A
 * table kept from an earlier scan is probed again.
 */
GpuJoinPhase
gpuhash_scan_start(GpuJoinState *gs, ExprContext *econtext)
{
	if (gs->gate != NULL && !ExecQual(gs->gate, econtext))
	{
		ResetExprContext(econtext);
		return GJ_DONE;
	}
	if (!gs->built && gs->split == NULL)
	{
		if (!gs->fill_inner && gs->shared == NULL && gs->oscan)
		{
			HeapTuple	first;

			/* the first tuple stays the scan's next one */
			if (gpuhash_heap_scan_next(gs->oscan, gs->key_econtext, &first) == OS_END)
				return GJ_DONE;
			gpuhash_heap_scan_push_back(gs->oscan);
		}
		else if (!gs->fill_inner && gs->shared == NULL && !gpuhash_outer_peek(gs))
			return GJ_DONE;
		if (gs->shared)
			gpuhash_shared_build(gs);
		else
			gpuhash_build_inner(gs);
	}
	/* too large for all participants: split into shared batches */
	if (gs->split)
		return GJ_SPLIT_OUTER;

	/*
	 * An empty inner side joins nothing: then the outer side need not be
	 * read (unless later hash batches have inner rows).
	 */
	if (gs->n_inner == 0 && !gs->fill_outer && gs->nbatch == 1)
	{
		gpuhash_end_probe(gs);
		return gs->step.phase;
	}
	return GJ_NEED_BATCH;
}

GpuJoinPhase
gpuhash_start_scan(GpuJoinState *gs)
{
	return gpuhash_scan_start(gs, gs->css.ss.ps.ps_ExprContext);
}

/*
 * A chain's levels run their state machines from chain.c: the phase a
 * level goes on from.
 */
void
gpuhash_step_set_phase(GpuJoinState *gs, GpuJoinPhase phase)
{
	gs->step.phase = phase;
}
