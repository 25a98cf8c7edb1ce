/*-------------------------------------------------------------------------
 *
 * agg_star.c
 *	  GpuPreAgg over a star (agg_star_paths.c): the walked relation R
 *	  joined to several dimensions, each by its own exact key over R's
 *	  columns, the clauses left over run per combination of one row of
 *	  each.  The plan (agg_plan.h) has every dimension's plan in
 *	  custom_plans, custom_exprs the first dimension's outer and inner
 *	  keys, then each further dimension's, then the clauses, and
 *	  custom_private's star entry each further dimension's key count.
 *
 *	  The first dimension's GpuAggJoin is the node's join (as->join) and
 *	  holds the others (dims[]); each dimension runs its plan to its end at
 *	  the first fetch (in every participant: a dimension per participant,
 *	  never a shared one), keeps its rows with a non-NULL key and builds its
 *	  part, in this backend on the host twin; the parts side by side
 *	  (gh_agg_dim_star) are the dimension the walker probes.  The walker's
 *	  inner columns are the dimensions' columns side by side (col0), its
 *	  programs as over one dimension.  The CPU joins refused pages, and
 *	  every page of a plan the GPU cannot take, over the same rows: each
 *	  dimension's rows of the tuple's key (binary search, as agg_join.c),
 *	  every combination in turn, the clauses over the combination's rows
 *	  side by side in one virtual tuple (combo_slot, the inner tuple).
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"
#include "agg_plan.h"
#include "service_dim.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

/* Var v's dimension (its plan outputs it) and position there; -1: none. */
static int
var_dim(GpuAggJoin *j, const Var *v, int *tlpos)
{
	for (int d = 0; d < j->ndims; d++)
	{
		int			pos = gpuhash_preagg_inner_pos(j->cscan, d, v);

		if (pos > 0)
		{
			*tlpos = pos;
			return d;
		}
	}
	return -1;
}

/* A dimension's column index of v, or -1. */
static int
local_col(GpuAggJoin *dj, const Var *v)
{
	for (int c = 0; c < dj->ncols; c++)
		if (dj->cols[c].varno == v->varno && dj->cols[c].varattno == v->varattno)
			return c;
	return -1;
}

int
gpuhash_agg_star_col(GpuAggJoin *j, const Var *v)
{
	for (int d = 0; d < j->ndims; d++)
	{
		int			c = local_col(j->dims[d], v);

		if (c >= 0)
			return j->dims[d]->col0 + c;
	}
	return -1;
}

gh_col_type
gpuhash_agg_star_col_type(GpuAggJoin *j, int c)
{
	for (int d = j->ndims - 1; d >= 0; d--)
		if (c >= j->dims[d]->col0)
			return c - j->dims[d]->col0 < j->dims[d]->ncols ?
				j->dims[d]->cols[c - j->dims[d]->col0].gtype : GH_T_INT8;
	return GH_T_SKIP;
}

/* Every Var of the dimensions in node, as a column of its dimension. */
static void
add_star_cols(GpuAggJoin *j, Node *node, Index scanrelid)
{
	ListCell   *lc;

	foreach(lc, pull_var_clause(node, PVC_RECURSE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS))
	{
		Var		   *v = lfirst(lc);
		GpuAggJoin *dj;
		GpuAggInnerCol *c;
		int			pos = 0;
		int			d;

		if (v->varno == scanrelid || v->varlevelsup != 0)
			continue;
		if ((d = var_dim(j, v, &pos)) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpuhash: no dimension of GpuPreAgg outputs column %d of range table entry %u",
							v->varattno, v->varno)));
		dj = j->dims[d];
		if (local_col(dj, v) >= 0)
			continue;
		dj->cols = repalloc(dj->cols, sizeof(GpuAggInnerCol) * (dj->ncols + 1));
		c = &dj->cols[dj->ncols++];
		c->varno = v->varno;
		c->varattno = v->varattno;
		c->type = v->vartype;
		c->tlpos = pos;
		c->gtype = gpuhash_qual_col_type(v->vartype);
		get_typlenbyval(v->vartype, &c->typlen, &c->byval);
	}
}

/* A dimension's keys: nk outer then nk inner expressions from exprs at pos. */
static GpuAggJoin *
make_dim(List *exprs, int pos, int nk)
{
	GpuAggJoin *dj = palloc0(sizeof(GpuAggJoin));

	dj->njoinkeys = nk;
	dj->expr_pos = pos;
	dj->outer_keys = list_copy_head(list_copy_tail(exprs, pos), nk);
	dj->inner_keys = list_copy_head(list_copy_tail(exprs, pos + nk), nk);
	dj->outer_conv = palloc(sizeof(GpuKeyConv) * nk);
	dj->inner_conv = palloc(sizeof(GpuKeyConv) * nk);
	dj->width = palloc(sizeof(int) * nk);
	for (int k = 0; k < nk; k++)
	{
		Oid			ot = getBaseType(exprType(list_nth(dj->outer_keys, k)));
		Oid			it = getBaseType(exprType(list_nth(dj->inner_keys, k)));

		/* the planner took the clause as an exact key (keys.c) */
		if (!gpuhash_conv_for_type(ot, &dj->outer_conv[k]) ||
			!gpuhash_conv_for_type(it, &dj->inner_conv[k]) ||
			dj->outer_conv[k] == GPUKEY_HASH || dj->inner_conv[k] == GPUKEY_HASH)
			elog(ERROR, "gpuhash: a GpuPreAgg star key of types %u and %u is not exact", ot, it);
		dj->width[k] = Max(gpuhash_conv_width(dj->outer_conv[k]),
						   gpuhash_conv_width(dj->inner_conv[k]));
	}
	dj->cols = palloc(sizeof(GpuAggInnerCol));
	dj->rows_cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuPreAgg dimension rows",
										 ALLOCSET_DEFAULT_SIZES);
	return dj;
}

/*
 * The star's parts and every dimension's plan state; the first
 * dimension's GpuAggJoin, the node's join, holds them.
 */
GpuAggJoin *
gpuhash_agg_star_init(GpuPreAggState *as, CustomScan *cscan, EState *estate, int eflags)
{
	List	   *tag = gpuhash_preagg_star_of(cscan->custom_private);
	int			ndims = list_length(tag);
	Index		scanrelid = cscan->scan.scanrelid;
	List	   *exprs = (List *) gpuhash_preagg_unindex((Node *) cscan->custom_exprs, cscan);
	GpuAggJoin **dims = palloc0(sizeof(GpuAggJoin *) * ndims);
	GpuAggJoin *j;
	List	   *children = NIL;
	TupleDesc	desc;
	int			pos = 0,
				natts = 0,
				col0 = 0;
	ListCell   *lc;

	if (ndims < 2 || ndims > GH_AGG_MAX_DIMS || list_length(cscan->custom_plans) != ndims)
		elog(ERROR, "gpuhash: a GpuPreAgg star of %d dimensions and %d plans", ndims,
			 list_length(cscan->custom_plans));
	for (int d = 0; d < ndims; d++)
	{
		int			nk = d == 0 ? gpuhash_preagg_njoinkeys(cscan) : intVal(list_nth(tag, d));
		Plan	   *plan = list_nth(cscan->custom_plans, d);

		if (nk < 1 || pos + 2 * nk > list_length(exprs))
			elog(ERROR, "gpuhash: a GpuPreAgg star dimension with %d keys", nk);
		dims[d] = make_dim(exprs, pos, nk);
		dims[d]->cscan = cscan;
		pos += 2 * nk;
		dims[d]->inner_ps = ExecInitNode(plan, estate,
										 eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK));
		dims[d]->row_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(dims[d]->inner_ps),
												   &TTSOpsMinimalTuple);
		dims[d]->tl_off = natts;
		natts += ExecGetResultType(dims[d]->inner_ps)->natts;
		children = lappend(children, dims[d]->inner_ps);
	}
	j = dims[0];
	j->ndims = ndims;
	j->dims = dims;
	j->batched_dim = -1;
	j->join_quals = list_copy_tail(exprs, pos);
	as->css.custom_ps = children;

	/* the columns the group keys, aggregates and clauses read, by dimension */
	foreach(lc, cscan->custom_scan_tlist)
	{
		if (!lfirst_node(TargetEntry, lc)->resjunk)
			add_star_cols(j, (Node *) lfirst_node(TargetEntry, lc)->expr, scanrelid);
	}
	add_star_cols(j, (Node *) j->join_quals, scanrelid);
	for (int d = 0; d < ndims; d++)
	{
		dims[d]->col0 = col0;
		col0 += Max(dims[d]->ncols, 1);
	}

	/* the CPU's combination: every dimension's plan's output side by side */
	desc = CreateTemplateTupleDesc(natts);
	for (int d = 0; d < ndims; d++)
	{
		TupleDesc	dd = ExecGetResultType(dims[d]->inner_ps);

		for (int a = 0; a < dd->natts; a++)
			TupleDescCopyEntry(desc, dims[d]->tl_off + a + 1, dd, a + 1);
	}
	j->combo_slot = ExecInitExtraTupleSlot(estate, desc, &TTSOpsVirtual);
	return j;
}

/* The dimensions' key columns of R, for the walker to read beside extra[0 .. nextra). */
int
gpuhash_agg_star_extra(GpuAggJoin *j, AttrNumber *extra, int nextra)
{
	for (int d = 1; d < j->ndims; d++)
	{
		ListCell   *lc;

		foreach(lc, j->dims[d]->outer_keys)
		{
			Var		   *v = lfirst(lc);

			if (IsA(v, Var) && v->varattno > 0)
				extra[nextra++] = v->varattno;
		}
	}
	return nextra;
}

/*
 * The aggregation program's star (its keys, aggregates and clauses filled
 * as over one dimension, the first dimension's columns typed): every
 * dimension's columns and keys; as->why_cpu where the walker cannot.
 */
bool
gpuhash_agg_star_compile(GpuPreAggState *as, gh_agg_prog *ap)
{
	GpuAggJoin *j = as->join;
	gh_page_scan *s = as->pp.prog.scan;
	int			ninner = 0;

	for (int d = 0; d < j->ndims; d++)
	{
		GpuAggJoin *dj = j->dims[d];
		gh_agg_star_dim *sd = &ap->star.dim[d];
		ListCell   *lc;

		if (dj->col0 + Max(dj->ncols, 1) > GH_AGG_MAX_INNER)
		{
			as->why_cpu = "more dimension columns than the walker holds";
			return false;
		}
		for (int c = 0; c < dj->ncols; c++)
		{
			if (dj->cols[c].gtype == GH_T_SKIP)
			{
				as->why_cpu = "a dimension's column of a type the GPU does not read";
				return false;
			}
			ap->join.inner_type[dj->col0 + c] = (uint8) dj->cols[c].gtype;
		}
		/* a dimension holds one column at least */
		if (dj->ncols == 0)
			ap->join.inner_type[dj->col0] = GH_T_INT8;
		sd->col0 = (int16) dj->col0;
		sd->ninner = (int16) Max(dj->ncols, 1);
		ninner = dj->col0 + sd->ninner;
		if (dj->njoinkeys > GH_PAGE_MAX_KEYS)
		{
			as->why_cpu = "more join keys than the walker packs";
			return false;
		}
		sd->nkeys = (int16) dj->njoinkeys;
		foreach(lc, dj->outer_keys)
		{
			Var		   *v = lfirst(lc);
			int			k = foreach_current_index(lc);

			if (!IsA(v, Var) || v->varattno <= 0 || v->varattno > s->natts ||
				s->col[v->varattno - 1].type == GH_T_SKIP)
			{
				as->why_cpu = "a dimension's key the walker does not read";
				return false;
			}
			sd->key[k].col = v->varattno - 1;
			sd->key[k].conv = (uint8) dj->outer_conv[k];
			sd->key[k].width = (uint8) dj->width[k];
		}
	}
	ap->join.ninner = (int16) ninner;
	ap->star.ndims = (int16) j->ndims;
	return true;
}

/* The further dimensions' service ids freed (the first's is the join's dim_id). */
static void
free_service_dims(GpuAggJoin *j)
{
	for (int d = 1; d < j->ndims; d++)
	{
		if (j->dims[d]->dim_id != 0)
			gpuhash_svc_dim_free(j->dims[d]->dim_id);
		j->dims[d]->dim_id = 0;
	}
}

/*
 * The dimensions' parts, freed (their star first); also the node's memory
 * reset callback's part, through gpuhash_agg_join_free_dim: it touches
 * only the node's GpuAggJoins.
 */
void
gpuhash_agg_star_free_dims(GpuAggJoin *j)
{
	if (j->dim != NULL)
		gh_agg_dim_free(j->dim);
	j->dim = NULL;
	free_service_dims(j);
	for (int d = 0; d < j->ndims; d++)
	{
		if (j->dims[d]->part != NULL)
			gh_agg_dim_free(j->dims[d]->part);
		j->dims[d]->part = NULL;
	}
}

/*
 * A dimension's packed key (as the tuple path packs exact keys) of the row
 * econtext holds, by states (its inner keys over its plan's row, or its
 * outer keys over the scan tuple); false: a NULL.
 */
bool
gpuhash_agg_star_key(GpuAggJoin *dj, ExprState **states, const GpuKeyConv *conv,
					 ExprContext *econtext, uint64 *key)
{
	uint64		k = 0;

	for (int i = 0; i < dj->njoinkeys; i++)
	{
		bool		isnull;
		Datum		d = ExecEvalExpr(states[i], econtext, &isnull);

		if (isnull)
			return false;
		k = gpuhash_pack(k, gpuhash_encode_datum(d, conv[i]), dj->width[i], dj->njoinkeys);
	}
	*key = k;
	return true;
}

/* The dimensions' rows in memory, all together. */
static Size
held_bytes(GpuAggJoin *j)
{
	Size		held = 0;

	for (int d = 0; d < j->ndims; d++)
		held += j->dims[d]->bytes;
	return held;
}

/*
 * The dimensions' rows passed limit: one dimension's rows go to batches
 * (the one that holds most when it first happens, the same one after
 * that), its share the limit less the others' rows; where the node cannot
 * walk its pages again, or the others alone fill the limit, the error.
 */
static void
fit_star(GpuPreAggState *as, Size limit)
{
	GpuAggJoin *j = as->join;
	GpuAggJoin *bj;
	Size		others;

	if (j->batched_dim < 0 && gpuhash_agg_join_can_batch(as))
	{
		j->batched_dim = 0;
		for (int d = 1; d < j->ndims; d++)
			if (j->dims[d]->bytes > j->dims[j->batched_dim]->bytes)
				j->batched_dim = d;
	}
	bj = j->batched_dim >= 0 ? j->dims[j->batched_dim] : NULL;
	others = bj != NULL ? held_bytes(j) - bj->bytes : 0;
	if (bj == NULL || others >= limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpuhash: the dimensions of a GPU aggregate's star join need more than work_mem x hash_mem_multiplier (%zu kB)",
						limit / 1024),
				 errhint("Raise work_mem or hash_mem_multiplier, or SET gpuhash.gpu_aggregate = off.")));
	gpuhash_agg_join_batches_fit(bj, limit - others);
}

/*
 * One dimension's rows: its plan run to its end, each row with a non-NULL
 * key; all dimensions' rows together within work_mem x
 * hash_mem_multiplier, as the planner weighed them, one of them in
 * batches past it (fit_star).
 */
static void
collect_dim(GpuPreAggState *as, GpuAggJoin *dj)
{
	GpuAggJoin *j = as->join;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;
	Size		limit = get_hash_memory_limit();
	Size		held = held_bytes(j);
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(dj->inner_ps);
		uint64		key;
		bool		ok;
		Size		before;

		if (TupIsNull(slot))
			break;
		dj->inner_rows++;
		econtext->ecxt_innertuple = slot;
		ok = gpuhash_agg_star_key(dj, dj->inner_key_states, dj->inner_conv, econtext, &key);
		ResetExprContext(econtext);
		if (!ok)
			continue;			/* a NULL key joins nothing */
		before = dj->bytes;
		if (dj->batches != NULL)
			gpuhash_agg_join_batch_row(dj, key, slot, SIZE_MAX);
		else
			gpuhash_agg_join_keep_row(dj, key, slot, SIZE_MAX);
		held += dj->bytes - before;
		if (held > limit)
		{
			fit_star(as, limit);
			held = held_bytes(j);
		}
	}
	dj->collected = true;
	dj->rows_loaded = true;
	dj->collect_ms += gpuhash_ms_since(t0);
	dj->build_ms += gpuhash_ms_since(t0);
}

/*
 * One dimension's part from its rows: in the GPU service where service
 * (its id in dim_id, held by this backend), else in this backend on the
 * host twin (part), as a backend's dimension over one join is: the join's
 * fold reads pages through gh_page_agg_join_mapped only.  False: none built.
 */
static bool
build_dim(GpuPreAggState *as, GpuAggJoin *dj, bool service)
{
	int			ninner = Max(dj->ncols, 1);
	uint64	   *keys;
	gh_agg_inval *vals;
	StringInfoData heap;
	MemoryContext old = MemoryContextSwitchTo(dj->rows_cxt);
	instr_time	t0;
	gh_status	st;
	bool		built = false;

	INSTR_TIME_SET_CURRENT(t0);
	keys = palloc_extended(sizeof(uint64) * Max(dj->nrows, 1), MCXT_ALLOC_HUGE);
	vals = palloc_extended(sizeof(gh_agg_inval) * Max(dj->nrows, 1) * ninner,
						   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	initStringInfo(&heap);
	for (uint64 r = 0; r < dj->nrows; r++)
	{
		keys[r] = dj->rows[r].key;
		if (dj->ncols == 0)
			continue;
		ExecStoreMinimalTuple(dj->rows[r].tup, dj->row_slot, false);
		for (int c = 0; c < dj->ncols; c++)
			gpuhash_agg_join_dim_value(&dj->cols[c], dj->row_slot, &vals[r * ninner + c], &heap);
		CHECK_FOR_INTERRUPTS();
	}
	ExecClearTuple(dj->row_slot);
	MemoryContextSwitchTo(old);
	dj->ship_bytes = dj->nrows * (sizeof(uint64) + sizeof(gh_agg_inval) * ninner) + heap.len;
	dj->values_ms += gpuhash_ms_since(t0);

	if (service)
	{
		GhSvcDimInfo info;

		memset(&info, 0, sizeof(info));
		built = gpuhash_svc_dim_build_info(keys, dj->nrows, vals, ninner,
										   (const uint8 *) heap.data, (uint64) heap.len,
										   as->device, &dj->dim_id, &info);
		if (built)
		{
			dj->ship_ms += info.ship_ms;
			dj->service_ms += info.build_ms - info.ship_ms;
			dj->dim_bytes = info.bytes;
			dj->dim_where = info.device == GH_AGG_HOST ? "host" : "gpu";
		}
		else
			dj->dim_id = 0;
	}
	else
	{
		st = gh_agg_dim_build(GH_AGG_HOST, keys, dj->nrows, vals, ninner,
							  (const uint8 *) heap.data, (uint64) heap.len, 0, &dj->part);
		built = st == GH_OK;
		if (!built)
		{
			dj->part = NULL;
			as->why_cpu = psprintf("a dimension of the star could not be built: %s",
								   gh_last_error());
		}
		else
		{
			dj->dim_bytes = gh_agg_dim_bytes(dj->part);
			dj->dim_where = "host";
		}
	}
	pfree(keys);
	pfree(vals);
	pfree(heap.data);
	dj->build_ms += gpuhash_ms_since(t0);
	return built;
}

static void build_star(GpuPreAggState *as);

/* At the first fetch: every dimension's rows, then their parts (build_star). */
void
gpuhash_agg_star_collect(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;

	for (int d = 0; d < j->ndims; d++)
		collect_dim(as, j->dims[d]);
	/* a participant walks again the blocks it is handed in the first walk */
	if (j->batched_dim >= 0 && as->os->parallel)
		gpuhash_heap_scan_keep_blocks(as->os);
	build_star(as);
}

/*
 * The walk of the outer pages is over: where a dimension is in batches,
 * its next batch replaces its rows and the star is built again (true); the
 * caller walks the pages again.
 */
bool
gpuhash_agg_star_next_batch(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoin *bj;

	if (j->batched_dim < 0 || !gpuhash_agg_join_more_batches(j->dims[j->batched_dim]))
		return false;
	bj = j->dims[j->batched_dim];
	/* every part and the star of them, the first dimension's service id too */
	gpuhash_agg_star_free_dims(j);
	if (j->dim_id != 0)
		gpuhash_svc_dim_free(j->dim_id);
	j->dim_id = 0;
	j->have_cur = false;
	gpuhash_agg_join_load_next_batch(bj, get_hash_memory_limit() -
									 (held_bytes(j) - bj->bytes));
	build_star(as);
	return true;
}

/*
 * The dimensions' parts from their rows (where the GPU folds): in the GPU
 * service where it takes them all (a request names the first, its program
 * the others: service_dim_star.c), else in this backend with the star of
 * them.
 */
static void
build_star(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	const gh_agg_dim *parts[GH_AGG_MAX_DIMS];
	bool		service = as->use_service;

	if (as->why_cpu != NULL || as->aprog == NULL)
		return;
	for (int d = 0; d < j->ndims && service; d++)
		service = build_dim(as, j->dims[d], true);
	if (service)
	{
		for (int d = 0; d < j->ndims; d++)
			as->aprog->star.dim[d].ref = j->dims[d]->dim_id;
		return;
	}
	/* not all of them in the service: every one here */
	free_service_dims(j);
	if (j->dim_id != 0)
		gpuhash_svc_dim_free(j->dim_id);
	j->dim_id = 0;
	for (int d = 0; d < j->ndims; d++)
	{
		if (!build_dim(as, j->dims[d], false))
			return;
		parts[d] = j->dims[d]->part;
	}
	if (gh_agg_dim_star(parts, j->ndims, &j->dim) != GH_OK)
	{
		j->dim = NULL;
		as->why_cpu = psprintf("the star's dimension: %s", gh_last_error());
	}
}

/* A rescan: the further dimensions' rows go, their plans run again. */
void
gpuhash_agg_star_rescan(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	PlanState  *ps = &as->css.ss.ps;

	j->batched_dim = -1;
	for (int d = 1; d < j->ndims; d++)
	{
		GpuAggJoin *dj = j->dims[d];

		MemoryContextReset(dj->rows_cxt);
		dj->rows = NULL;
		dj->nrows = dj->cap = 0;
		dj->bytes = 0;
		gpuhash_agg_join_batches_release(dj);
		dj->inner_batches = 0;
		dj->collected = false;
		dj->rows_loaded = false;
		dj->rows_sorted = false;
		if (ps->chgParam != NULL)
			UpdateChangedParamSet(dj->inner_ps, ps->chgParam);
		ExecReScan(dj->inner_ps);
	}
}

/* The node's end: the further dimensions' plans (the first's is the join's). */
void
gpuhash_agg_star_end(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;

	for (int d = 1; d < j->ndims; d++)
	{
		gpuhash_agg_join_batches_release(j->dims[d]);
		ExecEndNode(j->dims[d]->inner_ps);
	}
}
