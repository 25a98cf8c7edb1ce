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
 * In a parallel plan only with one shared dimension (agg_join_par.c):
 * every participant's GPU walks mark the same dimension, and each folds the
 * inner rows nobody matched only once every participant's walk is over.
 * The node's DSM holds, after the dimension's coordination, a barrier that
 * each participant attaches to before its walk (before it can be handed a
 * block) and leaves when its walk is over, having ORed its own marks (its
 * CPU's, and those of a dimension of its own where the service did not
 * build the shared one) into a shared array of flags; the last to leave
 * reads the shared dimension's flags, ORs the array and folds.  Nobody
 * waits, so no participant can wait on one blocked on a full Gather queue.
 * One attaching after the fold was done has no block left to walk, and
 * folds nothing.  The rows' positions are the same in every participant:
 * the same chunks, sorted by the same sort.  The NULL-key rows are each
 * participant's own share of the inner plan: each folds its own.
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
#include "storage/barrier.h"
#include "storage/spin.h"

/* The outer join's part of the node's DSM, after the shared dimension's. */
typedef struct GpuAggOuterShared
{
	Barrier		walk;			/* participants walking; the last out folds */
	slock_t		mutex;
	dsa_pointer matched;		/* under mutex: nrows flags, the participants'
								 * own marks ORed in */
	uint64		nrows;
} GpuAggOuterShared;

/* The plan's join type: is I preserved?  In parallel, with a shared dimension only. */
bool
gpuhash_agg_outer_planned(const CustomScan *cscan, GpuAggJoin *j)
{
	bool		preserve = list_length(cscan->custom_private) > GPUHASH_PREAGG_PRIV_PRESERVE_INNER &&
		intVal(list_nth(cscan->custom_private, GPUHASH_PREAGG_PRIV_PRESERVE_INNER)) != 0;

	if (preserve && !j->shared_plan && IsParallelWorker())
		elog(ERROR, "gpuhash: a GpuPreAgg over an outer join in parallel needs one shared dimension");
	j->outer_folds = -1;
	return preserve;
}

Size
gpuhash_agg_outer_par_estimate(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;

	return j != NULL && j->preserve_inner && j->shared_plan ?
		MAXALIGN(sizeof(GpuAggOuterShared)) : 0;
}

/*
 * The leader's InitializeDSM (after the dimension's: j->shared says whether
 * the query has a DSA), and ReInitializeDSM's reset after a rescan.
 */
void
gpuhash_agg_outer_par_init(GpuPreAggState *as, void *space, bool reinit)
{
	GpuAggJoin *j = as->join;
	GpuAggOuterShared *sh = space;

	if (gpuhash_agg_outer_par_estimate(as) == 0)
		return;
	if (reinit && j->outer_sh != NULL && DsaPointerIsValid(sh->matched))
		dsa_free(j->dsa, sh->matched);
	BarrierInit(&sh->walk, 0);
	SpinLockInit(&sh->mutex);
	sh->matched = InvalidDsaPointer;
	sh->nrows = 0;
	j->outer_sh = j->shared != NULL ? sh : NULL;
}

/* A worker's InitializeWorker, after the dimension's attach. */
void
gpuhash_agg_outer_par_attach(GpuPreAggState *as, void *space)
{
	GpuAggJoin *j = as->join;

	if (gpuhash_agg_outer_par_estimate(as) == 0)
		return;
	j->outer_sh = j->shared != NULL ? (GpuAggOuterShared *) space : NULL;
}

/*
 * Before the participant's first block: it joins the walkers, unless the
 * fold is done already (then no block is left for it).
 */
void
gpuhash_agg_outer_par_begin(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;

	if (j == NULL || !j->preserve_inner || j->outer_sh == NULL || j->outer_attached ||
		j->outer_folds >= 0)
		return;
	if (BarrierAttach(&j->outer_sh->walk) == 0)
		j->outer_attached = true;
	else
	{
		BarrierDetach(&j->outer_sh->walk);
		j->outer_folds = 0;
	}
}

/* This participant's own marks into the shared flags. */
static void
publish_marks(GpuAggJoin *j)
{
	GpuAggOuterShared *sh = j->outer_sh;
	uint8	   *mine = NULL;
	uint8	   *all;
	dsa_pointer dp = InvalidDsaPointer;

	if (j->nrows == 0 || (j->cpu_matched == NULL && j->dim == NULL))
		return;
	if (j->dim != NULL)
	{
		mine = palloc_extended(j->nrows, MCXT_ALLOC_HUGE);
		if (gh_agg_dim_matched(j->dim, 0, j->nrows, mine) != GH_OK)
			elog(ERROR, "gpuhash: the join's matched rows: %s", gh_last_error());
	}
	/* the first to publish allocates the flags (never under the spinlock) */
	if (!DsaPointerIsValid(sh->matched))
		dp = dsa_allocate_extended(j->dsa, j->nrows, DSA_ALLOC_HUGE | DSA_ALLOC_ZERO);
	SpinLockAcquire(&sh->mutex);
	if (!DsaPointerIsValid(sh->matched) && DsaPointerIsValid(dp))
	{
		sh->matched = dp;
		sh->nrows = j->nrows;
		dp = InvalidDsaPointer;
	}
	SpinLockRelease(&sh->mutex);
	if (DsaPointerIsValid(dp))
		dsa_free(j->dsa, dp);	/* another was first */
	if (sh->nrows != j->nrows)
		elog(ERROR, "gpuhash: the outer join's shared flags hold " UINT64_FORMAT " rows, not "
			 UINT64_FORMAT, sh->nrows, j->nrows);
	all = dsa_get_address(j->dsa, sh->matched);
	/* stores of 1 only: participants writing the same byte agree */
	for (uint64 r = 0; r < j->nrows; r++)
		if ((mine != NULL && mine[r]) || (j->cpu_matched != NULL && j->cpu_matched[r]))
			all[r] = 1;
	if (mine != NULL)
		pfree(mine);
}

/*
 * Once this participant's walk is over: does it fold the unmatched inner
 * rows?  Serial: yes.  Parallel: its marks published, the last walker out.
 */
bool
gpuhash_agg_outer_folds(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;

	if (j == NULL || !j->preserve_inner)
		return false;
	if (j->outer_folds >= 0)
		return j->outer_folds > 0;
	if (j->outer_sh == NULL)
		j->outer_folds = 1;
	else if (!j->outer_attached)
		j->outer_folds = 0;
	else
	{
		publish_marks(j);
		j->outer_attached = false;
		j->outer_folds = BarrierArriveAndDetach(&j->outer_sh->walk) ? 1 : 0;
	}
	return j->outer_folds > 0;
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
	j->outer_folds = -1;
	j->outer_attached = false;
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

/*
 * After the walk: the dimension's flags ORed with the CPU's (in parallel,
 * with every participant's), and R's NULL row.  A participant that does
 * not fold goes straight to its NULL-key rows.
 */
static void
gather_matched(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	Datum	   *values;
	bool	   *isnull;
	MemoryContext old = MemoryContextSwitchTo(j->rows_cxt);
	int			natts = as->os->desc->natts;
	bool		folds = gpuhash_agg_outer_folds(as);

	j->matched = palloc_extended(Max(j->nrows, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	if (!folds)
		j->outer_pos = j->nrows;
	else if (j->nrows > 0 && j->dim_id != 0)
		gpuhash_svc_dim_matched(j->dim_id, j->nrows, j->matched);
	else if (j->nrows > 0 && j->dim != NULL && j->outer_sh == NULL &&
			 gh_agg_dim_matched(j->dim, 0, j->nrows, j->matched) != GH_OK)
		elog(ERROR, "gpuhash: the join's matched rows: %s", gh_last_error());
	/* in parallel this participant's own marks are in the shared flags */
	if (folds && j->cpu_matched != NULL && j->outer_sh == NULL)
		for (uint64 r = 0; r < j->nrows; r++)
			j->matched[r] |= j->cpu_matched[r];
	if (folds && j->outer_sh != NULL && DsaPointerIsValid(j->outer_sh->matched))
	{
		const uint8 *all = dsa_get_address(j->dsa, j->outer_sh->matched);

		if (j->outer_sh->nrows != j->nrows)
			elog(ERROR, "gpuhash: the outer join's shared flags hold " UINT64_FORMAT
				 " rows, not " UINT64_FORMAT, j->outer_sh->nrows, j->nrows);
		for (uint64 r = 0; r < j->nrows; r++)
			j->matched[r] |= all[r];
	}

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
