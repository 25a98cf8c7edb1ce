/*-------------------------------------------------------------------------
 *
 * agg_join_outer.c
 *	  GpuPreAgg over an outer join that preserves the inner side I (I LEFT
 *	  JOIN R, R RIGHT JOIN I; R the walked relation): every pair is folded
 *	  as over an inner join, and every row of I that no row of R matched
 *	  goes up once more, as a row whose R columns are all NULL, as
 *	  PostgreSQL's hash join null-extends the unmatched rows of its
 *	  preserved side.
 *
 * Which inner rows matched: the walker marks each folded pair's inner row
 * in the dimension (GH_AGG_JOIN_MARK; a byte per row, by the position the
 * rows were sorted into, the same on the GPU and the host twin), and the
 * CPU's join of refused pages (and of plans the GPU cannot take) marks its
 * own pairs here, in cpu_matched.  A refused page marks nothing on the
 * device, so each pair is marked by whoever folds it.  After the walk the
 * dimension's flags come back (from the service, DIM_MATCHED) and are ORed
 * with the CPU's; the rows with neither, and the rows with a NULL key
 * (which match nothing), are folded one by one on the CPU, their columns
 * and the aggregates' arguments evaluated by PostgreSQL's expressions over
 * the inner row and an all-NULL tuple of R, one partial row each.
 *
 * Serial plans only (the planner offers no parallel variant): each
 * participant would see only its own matches.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"
#include "service_dim.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"

/* The plan's join type: is I preserved?  Never in a parallel plan. */
bool
gpuhash_agg_outer_planned(const CustomScan *cscan, const GpuAggJoin *j)
{
	bool		preserve = list_length(cscan->custom_private) > GPUHASH_PREAGG_PRIV_PRESERVE_INNER &&
		intVal(list_nth(cscan->custom_private, GPUHASH_PREAGG_PRIV_PRESERVE_INNER)) != 0;

	if (preserve && (j->shared_plan || IsParallelWorker()))
		elog(ERROR, "gpuhash: a GpuPreAgg over an outer join runs in a serial plan only");
	return preserve;
}

/* What the rows' context held is gone (agg_join.c's release). */
void
gpuhash_agg_outer_release(GpuAggJoin *j)
{
	j->null_rows = NULL;
	j->n_null_rows = j->cap_null_rows = 0;
	j->cpu_matched = NULL;
	j->matched = NULL;
	j->null_tuple = NULL;
	j->outer_pos = 0;
	j->outer_started = false;
}

/* An inner row with a NULL key: it matches nothing, but I is preserved. */
void
gpuhash_agg_outer_keep_null(GpuAggJoin *j, TupleTableSlot *slot)
{
	MemoryContext old;

	if (!j->preserve_inner)
		return;
	old = MemoryContextSwitchTo(j->rows_cxt);
	if (j->n_null_rows == j->cap_null_rows)
	{
		j->cap_null_rows = Max(j->cap_null_rows * 2, 64);
		j->null_rows = j->null_rows == NULL ?
			palloc_extended(sizeof(MinimalTuple) * j->cap_null_rows, MCXT_ALLOC_HUGE) :
			repalloc_huge(j->null_rows, sizeof(MinimalTuple) * j->cap_null_rows);
	}
	j->null_rows[j->n_null_rows] = ExecCopySlotMinimalTuple(slot);
	j->bytes += j->null_rows[j->n_null_rows]->t_len + sizeof(MinimalTuple);
	j->n_null_rows++;
	MemoryContextSwitchTo(old);
}

/* The CPU's join folded a pair with rows[pos]. */
void
gpuhash_agg_outer_mark(GpuAggJoin *j, uint64 pos)
{
	if (j->cpu_matched == NULL)
		j->cpu_matched = MemoryContextAllocExtended(j->rows_cxt, Max(j->nrows, 1),
													MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	j->cpu_matched[pos] = 1;
}

/* After the walk: the dimension's flags ORed with the CPU's, and R's NULL row. */
static void
gather_matched(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	Datum	   *values;
	bool	   *isnull;
	MemoryContext old = MemoryContextSwitchTo(j->rows_cxt);
	int			natts = as->os->desc->natts;

	j->matched = palloc_extended(Max(j->nrows, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	if (j->nrows > 0 && j->dim_id != 0)
		gpuhash_svc_dim_matched(j->dim_id, j->nrows, j->matched);
	else if (j->nrows > 0 && j->dim != NULL &&
			 gh_agg_dim_matched(j->dim, 0, j->nrows, j->matched) != GH_OK)
		elog(ERROR, "gpuhash: the join's matched rows: %s", gh_last_error());
	if (j->cpu_matched != NULL)
		for (uint64 r = 0; r < j->nrows; r++)
			j->matched[r] |= j->cpu_matched[r];

	values = palloc0(sizeof(Datum) * Max(natts, 1));
	isnull = palloc(sizeof(bool) * Max(natts, 1));
	memset(isnull, true, sizeof(bool) * Max(natts, 1));
	j->null_tuple = heap_form_tuple(as->os->desc, values, isnull);
	MemoryContextSwitchTo(old);
	j->outer_started = true;
}

/*
 * The next unmatched inner row (then the NULL-key ones), null-extended: the
 * inner row in row_slot, R's all-NULL tuple in the heap scan's slot, as
 * gpuhash_agg_join_cpu_row reads a pair; false when none is left.  Called
 * once the walk, its groups and its refused pages are done.
 */
bool
gpuhash_agg_outer_next(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	MinimalTuple tup = NULL;

	if (j == NULL || !j->preserve_inner || !j->collected)
		return false;
	if (!j->outer_started)
		gather_matched(as);
	while (j->outer_pos < j->nrows && tup == NULL)
	{
		uint64		r = j->outer_pos++;

		if (!j->matched[r])
			tup = j->rows[r].tup;
	}
	if (tup == NULL && j->outer_pos - j->nrows < j->n_null_rows)
		tup = j->null_rows[j->outer_pos++ - j->nrows];
	if (tup == NULL)
		return false;
	CHECK_FOR_INTERRUPTS();
	ExecStoreMinimalTuple(tup, j->row_slot, false);
	ExecStoreHeapTuple(j->null_tuple, as->os->slot, false);
	as->os->slot_row = -1;
	j->unmatched++;
	return true;
}

/* EXPLAIN: the join's type; ANALYZE: the inner rows null-extended. */
void
gpuhash_agg_outer_explain(GpuPreAggState *as, ExplainState *es)
{
	GpuAggJoin *j = as->join;

	if (!j->preserve_inner)
		return;
	ExplainPropertyText("GPU Join Type", "Left (the inner side preserved)", es);
	if (es->analyze)
		ExplainPropertyUInteger("Unmatched Inner Rows", NULL, j->unmatched, es);
}
