/*-------------------------------------------------------------------------
 *
 * scan_tuple.c
 *	  The scan tuple a GpuHashJoin emits and its quals read: the outer
 *	  row's columns, then the inner row's (either NULL for an outer join's
 *	  unmatched row).
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "probe_internal.h"
#include "scan/page_scan.h"

#include "executor/executor.h"
#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "utils/datum.h"

bool
gpuhash_batch_rows_in_pages(GpuJoinState *gs)
{
	return batch_rows_in_pages(gs);
}

/* The inner columns of the scan tuple: inner row `inner`, or NULL (-1). */
static inline void
store_inner_columns(GpuJoinState *gs, Datum *sv, bool *sn, int64 inner)
{
	sv += gs->n_outer_cols;
	sn += gs->n_outer_cols;
	if (inner >= 0 && gs->n_inner_keep > 0)
	{
		const Datum *iv;
		const bool *in;

		gpuhash_inner_row(gs, (uint64) inner, &iv, &in);
		for (int k = 0; k < gs->n_inner_keep; k++)
		{
			sv[gs->inner_keep[k]] = iv[k];
			sn[gs->inner_keep[k]] = in[k];
		}
	}
	else if (inner < 0)
	{
		for (int k = 0; k < gs->n_inner_keep; k++)
			sn[gs->inner_keep[k]] = true;
	}
}

/*
 * The scan tuple: outer columns, then inner columns.  A side given as -1
 * is NULL (a NULL-extended row of an outer join).
 */
void
gpuhash_store_row(GpuJoinState *gs, int64 outer_row, int64 inner)
{
	TupleTableSlot *slot = gs->css.ss.ss_ScanTupleSlot;
	Datum	   *sv = slot->tts_values;
	bool	   *sn = slot->tts_isnull;

	/* nothing reads the joined row (a count(*) over the join): none is formed */
	if (gs->forms_no_rows)
		return;
	ExecClearTuple(slot);
	if (outer_row >= 0 && batch_rows_in_pages(gs))
	{
		GpuHeapScan *os = gs->oscan;
		TupleTableSlot *hs = os->slot;

		/* late materialisation: the matched row is deformed from its page */
		if (os->slot_row != outer_row)
		{
			ExecStoreHeapTuple(&gs->cb->tups[outer_row], hs, false);
			slot_getsomeattrs(hs, os->max_keep);
			os->slot_row = outer_row;
		}
		for (int k = 0; k < gs->n_outer_keep; k++)
		{
			sv[gs->outer_keep[k]] = hs->tts_values[os->heap_keep[k]];
			sn[gs->outer_keep[k]] = hs->tts_isnull[os->heap_keep[k]];
		}
	}
	else if (outer_row >= 0)
	{
		const Datum *ov = gs->cb->vals + outer_row * gs->n_outer_keep;
		const bool *on = gs->cb->nulls + outer_row * gs->n_outer_keep;

		for (int k = 0; k < gs->n_outer_keep; k++)
		{
			sv[gs->outer_keep[k]] = ov[k];
			sn[gs->outer_keep[k]] = on[k];
		}
	}
	else
	{
		for (int k = 0; k < gs->n_outer_keep; k++)
			sn[gs->outer_keep[k]] = true;
	}
	store_inner_columns(gs, sv, sn, inner);
	ExecStoreVirtualTuple(slot);
}

/*
 * The same, with the outer columns taken from a row of the level below
 * (a chain: chain.c).
 */
void
gpuhash_store_row_from(GpuJoinState *gs, TupleTableSlot *outer, int64 inner)
{
	TupleTableSlot *slot = gs->css.ss.ss_ScanTupleSlot;
	Datum	   *sv = slot->tts_values;
	bool	   *sn = slot->tts_isnull;

	ExecClearTuple(slot);
	if (gs->n_outer_keep > 0)
		slot_getsomeattrs(outer, gs->outer_keep[gs->n_outer_keep - 1] + 1);
	for (int k = 0; k < gs->n_outer_keep; k++)
	{
		sv[gs->outer_keep[k]] = outer->tts_values[gs->outer_keep[k]];
		sn[gs->outer_keep[k]] = outer->tts_isnull[gs->outer_keep[k]];
	}
	store_inner_columns(gs, sv, sn, inner);
	ExecStoreVirtualTuple(slot);
}
