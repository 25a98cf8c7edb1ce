/*-------------------------------------------------------------------------
 *
 * agg_join.c
 *	  GpuPreAgg over an inner join, at run time: at the first fetch the inner
 *	  plan runs to its end and each row is kept with its packed key (the
 *	  join's exact key, as the tuple path packs it: rows.c; a NULL key joins
 *	  nothing and is dropped), within work_mem x hash_mem_multiplier as a
 *	  Hash node's table is; the rows become the dimension (gh_agg_dim) that
 *	  the walker joins passing outer rows to.
 *
 * The CPU joins what the GPU does not: the tuples of a refused page, and
 * every page of a plan whose programs the GPU cannot take.  Each such outer
 * tuple's key finds its inner rows by binary search over the rows, sorted
 * by key at the first such need (a plan whose pages the GPU all takes
 * never sorts them);
 * each pair that passes the further join clauses (ExecQual: the outer tuple
 * as the scan tuple, the inner row as the inner tuple) goes out as one
 * partial row, its aggregates' arguments evaluated by PostgreSQL's own
 * expressions (CASE, products, constants alike).
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join_pages.h"
#include "service_dim.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

/*
 * The dimension freed, in the service or here; the rows kept.  Also the
 * node's memory reset callback's part (agg_fold.c): by then the rows'
 * context, a child, is gone, so this touches no palloc'd memory but j.
 */
void
gpuhash_agg_join_free_dim(GpuAggJoin *j)
{
	/* a star: its parts too (agg_star.c) */
	if (j->ndims > 1)
		gpuhash_agg_star_free_dims(j);
	if (j->dim != NULL)
		gh_agg_dim_free(j->dim);
	if (j->dim_id != 0 && !j->dim_shared)
		gpuhash_svc_dim_free(j->dim_id);
	j->dim = NULL;
	j->dim_id = 0;
	j->dim_shared = false;
}

/* Everything the join holds: the node's end, an error, a rescan. */
void
gpuhash_agg_join_release(GpuAggJoin *j)
{
	gpuhash_agg_join_free_dim(j);
	gpuhash_agg_carry_release(j->carry);
	MemoryContextReset(j->rows_cxt);
	j->rows = NULL;
	j->nrows = j->cap = 0;
	j->bytes = 0;
	j->collected = false;
	j->rows_loaded = false;
	j->rows_sorted = false;
	j->pass_out = false;
	j->have_cur = false;
	j->shared_batched = false;
	j->inner_batches = 0;
	gpuhash_agg_join_batches_release(j);
	gpuhash_agg_outer_release(j);
}

/* The packed key of the row in econtext's inner (or scan) tuple; false: NULL. */
static bool
eval_key(GpuAggJoin *j, ExprState **states, const GpuKeyConv *conv, ExprContext *econtext,
		 uint64 *key)
{
	uint64		k = 0;

	for (int i = 0; i < j->njoinkeys; i++)
	{
		bool		isnull;
		Datum		d = ExecEvalExpr(states[i], econtext, &isnull);

		if (isnull)
			return false;
		k = gpuhash_pack(k, gpuhash_encode_datum(d, conv[i]), j->width[i], j->njoinkeys);
	}
	*key = k;
	return true;
}

bool
gpuhash_agg_join_inner_key(GpuAggJoin *j, ExprContext *econtext, uint64 *key)
{
	return eval_key(j, j->inner_key_states, j->inner_conv, econtext, key);
}

/*
 * One inner row's dimension values (the program's inner columns; one zero
 * value where the dimension has none), by-reference data onto heap: made
 * alike by a dimension's builder and by each participant collecting its
 * share of a shared one (agg_join_par.c).  Leaves the row in row_slot.
 */
void
gpuhash_agg_join_row_values(GpuPreAggState *as, MinimalTuple tup, gh_agg_inval *vals,
							StringInfo heap)
{
	GpuAggJoin *j = as->join;

	if (j->ncols == 0)
	{
		memset(vals, 0, sizeof(gh_agg_inval));
		return;
	}
	ExecStoreMinimalTuple(tup, j->row_slot, false);
	for (int c = 0; c < j->ncols; c++)
		if (!gpuhash_agg_join_cond_value(as, c, &vals[c]))
			gpuhash_agg_join_dim_value(&j->cols[c], j->row_slot, &vals[c], heap);
}

/*
 * The dimension from the collected rows: in the GPU service where it takes
 * it (service), held by owner_pid, else in this backend on its device (the
 * host twin where it has no GPU) where local.  A dimension that cannot be
 * built in this backend leaves every page to the CPU.  False: none built.
 */
bool
gpuhash_agg_join_build(GpuPreAggState *as, int owner_pid, bool service, bool local)
{
	GpuAggJoin *j = as->join;
	int			ninner = as->aprog->join.ninner;
	uint64	   *keys;
	gh_agg_inval *vals;
	StringInfoData heap;
	MemoryContext old = MemoryContextSwitchTo(j->rows_cxt);
	instr_time	t0;
	bool		built;

	INSTR_TIME_SET_CURRENT(t0);

	/*
	 * An outer join's matched flags are by the dimension's positions, and
	 * the CPU's marks and the unmatched fold by the rows' (agg_join_outer.c):
	 * the rows sorted before the build, so that the CPU join's sort never
	 * moves them after it.
	 */
	if (j->preserve_inner)
		gpuhash_agg_join_sort(j);
	j->ship_bytes = j->nrows * (sizeof(uint64) + sizeof(gh_agg_inval) * ninner);
	keys = palloc_extended(sizeof(uint64) * Max(j->nrows, 1), MCXT_ALLOC_HUGE);
	vals = palloc_extended(sizeof(gh_agg_inval) * Max(j->nrows, 1) * ninner,
						   MCXT_ALLOC_HUGE);
	initStringInfo(&heap);
	for (uint64 r = 0; r < j->nrows; r++)
	{
		keys[r] = j->rows[r].key;
		gpuhash_agg_join_row_values(as, j->rows[r].tup, &vals[r * ninner], &heap);
		CHECK_FOR_INTERRUPTS();
	}
	ExecClearTuple(j->row_slot);
	MemoryContextSwitchTo(old);
	j->ship_bytes += heap.len;
	j->values_ms += gpuhash_ms_since(t0);

	built = gpuhash_agg_join_build_arrays(as, owner_pid, service, local, keys, j->nrows, vals,
										  (const uint8 *) heap.data, (uint64) heap.len);
	pfree(keys);
	pfree(vals);
	pfree(heap.data);
	j->build_ms += gpuhash_ms_since(t0);
	return built;
}

/*
 * Runs the inner plan to its end: its rows with a non-NULL key.  Past
 * work_mem x hash_mem_multiplier of rows they go to batches where the node
 * can walk its outer pages once a batch (agg_join_batches.c); elsewhere
 * that is an error, as the plan promised they fit.
 */
static void
collect_rows(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;
	Size		limit = get_hash_memory_limit();
	bool		can_batch = gpuhash_agg_join_can_batch(as);
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(j->inner_ps);
		uint64		key;
		bool		ok;

		if (TupIsNull(slot))
			break;
		j->inner_rows++;
		econtext->ecxt_innertuple = slot;
		ok = eval_key(j, j->inner_key_states, j->inner_conv, econtext, &key);
		ResetExprContext(econtext);
		if (!ok)
		{
			/* a NULL key joins nothing; a preserved side keeps the row */
			gpuhash_agg_outer_keep_null(j, slot);
			continue;
		}
		if (j->batches != NULL)
			gpuhash_agg_join_batch_row(j, key, slot, limit);
		else
		{
			gpuhash_agg_join_keep_row(j, key, slot, can_batch ? SIZE_MAX : limit);
			if (can_batch && j->bytes > limit)
				gpuhash_agg_join_batches_begin(j, limit);
		}
	}
	/* a participant walks again the blocks it is handed in the first walk */
	if (j->batches != NULL && as->os->parallel)
		gpuhash_heap_scan_keep_blocks(as->os);
	j->collected = true;
	j->rows_loaded = true;
	j->collect_ms += gpuhash_ms_since(t0);
	j->build_ms += gpuhash_ms_since(t0);
}

/*
 * The dimension, where the GPU folds: from the inner relation's pages
 * (agg_join_pages.c), else from the inner plan's rows.
 */
void
gpuhash_agg_join_collect(GpuPreAggState *as)
{
	if (as->join->ndims > 1)
	{
		gpuhash_agg_star_collect(as);
		return;
	}
	if (gpuhash_agg_join_pages_collect(as))
		return;
	collect_rows(as);
	if (as->why_cpu == NULL && as->aprog != NULL)
		(void) gpuhash_agg_join_build(as, MyProcPid, true, true);
}

/*
 * The inner rows for the CPU's join, at its first need, where the
 * dimension was made without them (from pages): the inner plan run here.
 */
void
gpuhash_agg_join_load_rows(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	uint64		inner_rows = j->inner_rows;

	/*
	 * A shared dimension's rows are read from its chunks (agg_exec.c); one
	 * from pages reads the table (agg_join_pages_rows.c), as an outer
	 * join's from pages does, its positions the walk's
	 */
	if (j->rows_loaded || (j->shared != NULL && (j->pages == NULL || !j->pages->shared)))
		return;
	/* the dimension's figure stays: these rows are counted in it */
	if (!gpuhash_agg_join_pages_rows(as))
		collect_rows(as);
	j->inner_rows = inner_rows;
}

/*
 * The walk of the outer pages is over: where the inner rows are in batches
 * (agg_join_batches.c), the next batch becomes the dimension (true), and
 * the caller walks the pages again.
 */
bool
gpuhash_agg_join_next_batch(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;

	if (j->ndims > 1)
		return gpuhash_agg_star_next_batch(as);
	if (!gpuhash_agg_join_more_batches(j))
		return false;
	gpuhash_agg_join_free_dim(j);
	j->have_cur = false;
	/* the carried rows' table points into the rows that go now */
	gpuhash_agg_carry_release(j->carry);
	j->pass_out = false;
	gpuhash_agg_join_load_next_batch(j, get_hash_memory_limit());
	if (as->why_cpu == NULL && as->aprog != NULL)
		(void) gpuhash_agg_join_build(as, MyProcPid, true, true);
	return true;
}

/* A rescan: the inner plan runs again (its parameters may have changed). */
void
gpuhash_agg_join_rescan(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	PlanState  *ps = &as->css.ss.ps;

	gpuhash_agg_join_release(j);
	gpuhash_agg_join_pages_rescan(as);
	gpuhash_agg_star_rescan(as);
	if (ps->chgParam != NULL)
		UpdateChangedParamSet(j->inner_ps, ps->chgParam);
	ExecReScan(j->inner_ps);
}

/*
 * The next pair of the CPU's join that passes the further clauses, its
 * outer tuple in the heap scan's slot (the scan tuple) and its inner row in
 * row_slot (the inner tuple); fresh: t is a new outer tuple (the page it
 * lies on pinned while its pairs go out).  false when t has no more pairs.
 */
bool
gpuhash_agg_join_next_pair(GpuPreAggState *as, HeapTuple t, bool fresh)
{
	GpuAggJoin *j = as->join;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;
	TupleTableSlot *hs = as->os->slot;

	if (j->ndims > 1)
		return gpuhash_agg_star_next_pair(as, t, fresh);
	if (fresh)
	{
		uint64		key;

		gpuhash_agg_join_load_rows(as);
		gpuhash_agg_join_sort(j);

		j->cur = *t;
		ExecStoreHeapTuple(&j->cur, hs, false);
		as->os->slot_row = -1;
		econtext->ecxt_scantuple = hs;
		j->next_match = j->end_match = 0;
		if (eval_key(j, j->outer_key_states, j->outer_conv, econtext, &key))
		{
			j->next_match = gpuhash_agg_join_lower_bound(j, key);
			j->end_match = j->next_match;
			while (j->end_match < j->nrows && j->rows[j->end_match].key == key)
				j->end_match++;
		}
		ResetExprContext(econtext);
	}
	while (j->next_match < j->end_match)
	{
		ExecStoreMinimalTuple(j->rows[j->next_match++].tup, j->row_slot, false);
		econtext->ecxt_scantuple = hs;
		econtext->ecxt_innertuple = j->row_slot;
		if (j->join_qual == NULL || ExecQual(j->join_qual, econtext))
		{
			if (j->preserve_inner)
				gpuhash_agg_outer_mark(j, j->next_match - 1);
			return true;
		}
		ResetExprContext(econtext);
	}
	return false;
}

/* The pair in the slots as one partial row: group columns, one-row states. */
void
gpuhash_agg_join_cpu_row(GpuPreAggState *as, TupleTableSlot *slot)
{
	GpuAggJoin *j = as->join;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;

	econtext->ecxt_scantuple = as->os->slot;
	/* a star: the combination's rows side by side (agg_star.c) */
	econtext->ecxt_innertuple = j->ndims > 1 ? j->combo_slot : j->row_slot;
	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
	for (int k = 0; k < as->nkeys; k++)
		slot->tts_values[k] = ExecEvalExpr(j->group_states[k], econtext,
										   &slot->tts_isnull[k]);
	if (j->carry != NULL)
		gpuhash_agg_carry_pair(j->carry, j->row_slot, slot);
	for (int a = 0; a < as->naggs; a++)
	{
		GpuAggSupport s = as->aggs[a];
		bool		isnull = false;

		as->nulls[0] = true;
		as->vals[0] = (Datum) 0;
		if (j->arg_states[a] != NULL)
			as->vals[0] = ExecEvalExpr(j->arg_states[a], econtext, &as->nulls[0]);

		/*
		 * The argument is PostgreSQL's own value of the aggregate's input
		 * (a CASE, a product, a constant): its state is a column's.
		 */
		s.expr = GH_AGG_E_COL;
		as->nulls[1] = as->nulls[2] = false;
		if (s.input_type == InvalidOid && s.fn != GH_AGG_COUNT_STAR)
			s.input_type = exprType((Node *) j->arg_states[a]->expr);
		slot->tts_values[as->agg_pos[a]] = gpuhash_agg_row_datum(&s, as->vals, as->nulls,
																  &isnull);
		slot->tts_isnull[as->agg_pos[a]] = isnull;
	}
	ExecStoreVirtualTuple(slot);
	as->rows_out_cpu++;
	as->emitted_any = true;
}

/* EXPLAIN: the join's clauses; ANALYZE: the inner side and its dimension. */
void
gpuhash_agg_join_explain(GpuPreAggState *as, List *context, bool useprefix, ExplainState *es)
{
	GpuAggJoin *j = as->join;
	CustomScan *cscan = (CustomScan *) as->css.ss.ps.plan;
	StringInfoData buf;

	if (j->ndims > 1)
	{
		gpuhash_agg_star_explain(as, context, useprefix, es);
		return;
	}
	initStringInfo(&buf);
	for (int k = 0; k < j->njoinkeys; k++)
	{
		Node	   *o = list_nth(cscan->custom_exprs, k);
		Node	   *i = list_nth(cscan->custom_exprs, j->njoinkeys + k);

		appendStringInfo(&buf, "%s(%s = %s)", k > 0 ? " AND " : "",
						 deparse_expression(o, context, useprefix, false),
						 deparse_expression(i, context, useprefix, false));
	}
	ExplainPropertyText("GPU Join", buf.data, es);
	if (list_length(cscan->custom_exprs) > 2 * j->njoinkeys)
		ExplainPropertyText("GPU Join Filter",
							deparse_expression((Node *) make_ands_explicit(list_copy_tail(cscan->custom_exprs,
																						  2 * j->njoinkeys)),
											   context, useprefix, false), es);
	gpuhash_agg_outer_explain(as, es);
	/* one dimension for all participants (agg_join_par.c); else one each */
	if (j->shared_plan && j->pages == NULL)
		ExplainPropertyText("Dimension", "shared", es);
	gpuhash_agg_join_conds_explain(as, context, useprefix, es);
	gpuhash_agg_join_pages_explain(as, context, useprefix, es);
	if (!es->analyze)
		return;
	ExplainPropertyUInteger("Inner Rows", NULL, j->inner_rows, es);
	if (j->inner_batches > 1)
		ExplainPropertyInteger("Inner Batches", NULL, j->inner_batches, es);
	ExplainPropertyUInteger("Dimension Bytes", NULL, j->dim_bytes, es);
	gpuhash_agg_carry_explain(j->carry, es);
	if (es->timing)
		ExplainPropertyFloat("Dimension Build Time", "ms", j->build_ms, 3, es);
	gpuhash_agg_join_explain_build(as, es);
}
