/*-------------------------------------------------------------------------
 *
 * executor.c
 *	  Runs a GpuHashJoin: a state machine like nodeHashjoin.c's, one
 *	  enum (GpuJoinPhase, join_state.h) and one switch in exec_gpu_join.
 *
 *	  BUILD:       the scan starts.  Pseudoconstant quals, once: false, no
 *				   row at all.  Unless unmatched inner rows come out, read the
 *				   first outer row first: an empty outer side needs no table.
 *				   Run the inner plan to completion (hash batch 0 of it:
 *				   batch.c); keep each row's columns in node memory and its
 *				   64-bit key in an array (NULL keys never match an `=` join:
 *				   such rows are dropped, or kept apart for a right/full join
 *				   to emit); build the join table; reorder the kept rows by
 *				   the table's key-grouped rowid order, so a probe's range
 *				   [offset, offset + count) indexes them.
 *	  NEED_BATCH:  pull up to gpuhash.batch_rows outer rows of this hash
 *				   batch (columns copied, key encoded), probe them at once
 *				   for rowid ranges.
 *	  NEXT_OUTER:  the next outer row of the probe batch.
 *	  SCAN_RANGE:  each inner row of its range: the join filter (for
 *				   fingerprint keys, first the keys' own equality) decides a
 *				   match; a match marks the inner row for right/full, ends
 *				   the row for semi/anti; the filter on joined rows decides
 *				   what comes out.
 *	  FILL_OUTER:  left/full/anti: an outer row without a match, NULL-extended.
 *	  FILL_INNER:  right/full: the inner rows never matched, NULL-extended.
 *	  NEW_BATCH:   the next hash batch: its inner rows from their file,
 *				   built; its outer file becomes the outer side.
 *	  DONE
 *
 *	  A failed GPU call falls back to the host twin for this join (with a
 *	  NOTICE), or is an ERROR when gpuhash.device is "gpu".  The join table
 *	  is freed at end, at a rescan that changes a parameter the inner plan
 *	  or the inner key expressions read (it is then rebuilt), and through a
 *	  memory context callback when the query errors out or is cancelled.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"

#include "executor/executor.h"
#include "access/htup_details.h"
#include "common/hashfn.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "nodes/nodeFuncs.h"
#include "utils/datum.h"
#include "utils/memutils.h"

static void begin_gpu_join(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_gpu_join(CustomScanState *node);
static void end_gpu_join(CustomScanState *node);
static void rescan_gpu_join(CustomScanState *node);

static const CustomExecMethods gpuhash_exec_methods = {
	.CustomName = GPUHASH_NODE_NAME,
	.BeginCustomScan = begin_gpu_join,
	.ExecCustomScan = exec_gpu_join,
	.EndCustomScan = end_gpu_join,
	.ReScanCustomScan = rescan_gpu_join,
	.EstimateDSMCustomScan = gpuhash_estimate_dsm,
	.InitializeDSMCustomScan = gpuhash_init_dsm,
	.ReInitializeDSMCustomScan = gpuhash_reinit_dsm,
	.InitializeWorkerCustomScan = gpuhash_init_worker,
	.ShutdownCustomScan = gpuhash_shutdown,
	.ExplainCustomScan = gpuhash_explain,
};

Node *
gpuhash_create_scan_state(CustomScan *cscan)
{
	GpuJoinState *gs = palloc0(sizeof(GpuJoinState));

	NodeSetTag(gs, T_CustomScanState);
	gs->css.methods = &gpuhash_exec_methods;
	gs->css.flags = cscan->flags;
	return (Node *) gs;
}

GpuJoinStats *
gpuhash_state_stats(CustomScanState *node)
{
	return &((GpuJoinState *) node)->stats;
}

/* The scheme that built the table, or the plan's before the build. */
int
gpuhash_state_scheme(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;

	return gs->built ? gs->scheme : gs->info.scheme;
}

/* ---------------------------------------------------------------------
 * Setup
 * --------------------------------------------------------------------- */

typedef struct SideMap
{
	int			n_outer;
} SideMap;

/* INDEX_VAR column k -> OUTER_VAR k or INNER_VAR k - n_outer. */
static Node *
split_index_vars(Node *node, SideMap *map)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
	{
		Var		   *v = copyObject((Var *) node);

		if (v->varattno <= map->n_outer)
			v->varno = OUTER_VAR;
		else
		{
			v->varno = INNER_VAR;
			v->varattno -= map->n_outer;
		}
		return (Node *) v;
	}
	return expression_tree_mutator(node, split_index_vars, map);
}

/* Collects the scan-tuple columns an expression reads (0: the whole row). */
static bool
scan_columns_walker(Node *node, Bitmapset **cols)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
	{
		*cols = bms_add_member(*cols, ((Var *) node)->varattno);
		return false;
	}
	return expression_tree_walker(node, scan_columns_walker, cols);
}

/*
 * Which columns of each side must be kept for the join filter and the
 * target list.  Key columns need not be: keys are taken from the child's
 * row before it is copied.  For count(*) nothing is kept, and a match then
 * touches no inner row at all.
 */
static void
choose_kept_columns(GpuJoinState *gs, CustomScan *cscan)
{
	Bitmapset  *cols = NULL;
	bool		all;

	scan_columns_walker((Node *) cscan->scan.plan.targetlist, &cols);
	for (int which = GPE_JOIN_QUAL; which < GPE_N; which++)
		scan_columns_walker((Node *) gpuhash_plan_exprs(cscan->custom_exprs, &gs->info,
														(GpuPlanExprs) which), &cols);
	all = bms_is_member(0, cols);

	gs->outer_keep = palloc(sizeof(int) * Max(gs->n_outer_cols, 1));
	gs->inner_keep = palloc(sizeof(int) * Max(gs->n_inner_cols, 1));
	gs->n_outer_keep = gs->n_inner_keep = 0;
	for (int c = 1; c <= gs->n_outer_cols + gs->n_inner_cols; c++)
	{
		if (!all && !bms_is_member(c, cols))
			continue;
		if (c <= gs->n_outer_cols)
			gs->outer_keep[gs->n_outer_keep++] = c - 1;
		else
			gs->inner_keep[gs->n_inner_keep++] = c - 1 - gs->n_outer_cols;
	}
}

/* Collects the PARAM_EXEC ids an expression reads. */
static bool
exec_params_walker(Node *node, Bitmapset **params)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
	{
		*params = bms_add_member(*params, ((Param *) node)->paramid);
		return false;
	}
	return expression_tree_walker(node, exec_params_walker, params);
}

static void
init_keys(GpuJoinState *gs, List *exprs, GpuKeyEval *keys, bool outer, PlanState *parent)
{
	ListCell   *lc;
	int			i = 0;

	foreach(lc, exprs)
	{
		Expr	   *e = lfirst(lc);
		GpuKeySpec *spec = &gs->info.keys[i];

		if (gs->info.fingerprint)
			fmgr_info(outer ? spec->outer_hashfn : spec->inner_hashfn, &keys[i].hashfn);

		while (IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (IsA(e, Var) && (((Var *) e)->varno == OUTER_VAR ||
							((Var *) e)->varno == INNER_VAR))
		{
			keys[i].state = NULL;
			keys[i].attno = ((Var *) e)->varattno;
		}
		else
			keys[i].state = ExecInitExpr(lfirst(lc), parent);
		i++;
	}
}

/* Frees the join table, unless a parallel plan's leader owns it. */
static void
free_table(GpuJoinState *gs)
{
	if (gs->owns_table)
		gpuhash_table_free(&gs->table);
	else
		memset(&gs->table, 0, sizeof(gs->table));
}


/* Runs when the node's memory goes away, normally or by error/cancel. */
static void
cleanup_callback(void *arg)
{
	free_table((GpuJoinState *) arg);
}

static void
begin_gpu_join(CustomScanState *node, EState *estate, int eflags)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	SideMap		map;
	List	   *outer_exprs;
	List	   *inner_exprs;
	int			nkeys;

	gpuhash_deform_private(cscan->custom_private, &gs->info);
	nkeys = gs->info.nkeys;

	gs->outer_ps = ExecInitNode(linitial(cscan->custom_plans), estate, eflags);
	gs->inner_ps = ExecInitNode(lsecond(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make2(gs->outer_ps, gs->inner_ps);
	gs->n_outer_cols = gs->info.n_outer_cols;
	gs->n_inner_cols = list_length(cscan->custom_scan_tlist) - gs->n_outer_cols;
	choose_kept_columns(gs, cscan);
	/* columns never kept are never read: NULL once and for all */
	memset(node->ss.ss_ScanTupleSlot->tts_isnull, true,
		   sizeof(bool) * (gs->n_outer_cols + gs->n_inner_cols));

	/*
	 * Keys are evaluated on each side's own rows: their INDEX_VAR columns
	 * become OUTER_VAR / INNER_VAR (the planner keeps SubPlans out of keys).
	 * The other clauses and the target list stay as planned, over the scan
	 * tuple (outer columns then inner columns), so that EXPLAIN and SubPlan
	 * parameters resolve through custom_scan_tlist.
	 */
	map.n_outer = gs->n_outer_cols;
	outer_exprs = (List *) split_index_vars((Node *) gpuhash_plan_exprs(cscan->custom_exprs, &gs->info,
																		GPE_OUTER_KEYS), &map);
	inner_exprs = (List *) split_index_vars((Node *) gpuhash_plan_exprs(cscan->custom_exprs, &gs->info,
																		GPE_INNER_KEYS), &map);
	gs->outer_keys = palloc0(sizeof(GpuKeyEval) * nkeys);
	gs->inner_keys = palloc0(sizeof(GpuKeyEval) * nkeys);
	init_keys(gs, outer_exprs, gs->outer_keys, true, &node->ss.ps);
	init_keys(gs, inner_exprs, gs->inner_keys, false, &node->ss.ps);

	/*
	 * The inner keys are evaluated here, not in the inner plan: a parameter
	 * they read (a correlated subquery's, LATERAL's) changes the table, so a
	 * rescan that changes one rebuilds it (rescan_gpu_join).
	 */
	exec_params_walker((Node *) inner_exprs, &gs->inner_key_params);
	gs->qual = ExecInitQual(gpuhash_plan_exprs(cscan->custom_exprs, &gs->info, GPE_JOIN_QUAL),
							&node->ss.ps);
	gs->filter = ExecInitQual(gpuhash_plan_exprs(cscan->custom_exprs, &gs->info, GPE_FILTER),
							  &node->ss.ps);
	gs->gate = ExecInitQual(gpuhash_plan_exprs(cscan->custom_exprs, &gs->info, GPE_GATE),
							&node->ss.ps);
	gs->key_econtext = CreateExprContext(estate);
	gs->fp_mask = gpuhash_fingerprint_bits >= 64 ? ~UINT64CONST(0) :
		(UINT64CONST(1) << gpuhash_fingerprint_bits) - 1;
	gs->fill_outer = gs->info.jointype == JOIN_LEFT || gs->info.jointype == JOIN_FULL ||
		gs->info.jointype == JOIN_ANTI;
	gs->fill_inner = gs->info.jointype == JOIN_RIGHT || gs->info.jointype == JOIN_FULL;

	gs->cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuHashJoin",
									ALLOCSET_DEFAULT_SIZES);
	gs->inner_cxt = AllocSetContextCreate(gs->cxt, "GpuHashJoin inner",
										  ALLOCSET_DEFAULT_SIZES);
	gs->batch_cxt = AllocSetContextCreate(gs->cxt, "GpuHashJoin batch",
										  ALLOCSET_DEFAULT_SIZES);
	gs->cleanup.func = cleanup_callback;
	gs->cleanup.arg = gs;
	MemoryContextRegisterResetCallback(gs->cxt, &gs->cleanup);

	/* a parallel-aware node's table belongs to its shared state (parallel.c) */
	gs->owns_table = true;
	if (gs->n_inner_keep > 0)
	{
		TupleDesc	child = ExecGetResultType(gs->inner_ps);

		gs->inner_desc = CreateTemplateTupleDesc(gs->n_inner_keep);
		for (int k = 0; k < gs->n_inner_keep; k++)
			TupleDescCopyEntry(gs->inner_desc, k + 1, child, gs->inner_keep[k] + 1);
		gs->row_vals = palloc(sizeof(Datum) * gs->n_inner_keep);
		gs->row_nulls = palloc(sizeof(bool) * gs->n_inner_keep);
	}
	/* the outer columns as a tuple: spilled outer rows (batch.c) */
	{
		TupleDesc	child = ExecGetResultType(gs->outer_ps);
		int			nmax = Max(Max(gs->n_outer_keep, gs->n_inner_keep), 1);

		gs->outer_desc = CreateTemplateTupleDesc(gs->n_outer_keep);
		for (int k = 0; k < gs->n_outer_keep; k++)
			TupleDescCopyEntry(gs->outer_desc, k + 1, child, gs->outer_keep[k] + 1);
		gs->ident_keep = palloc(sizeof(int) * nmax);
		for (int k = 0; k < nmax; k++)
			gs->ident_keep[k] = k;
		gs->spill_vals = palloc(sizeof(Datum) * nmax);
		gs->spill_nulls = palloc(sizeof(bool) * nmax);
		if (gs->inner_desc)
			gs->inner_spill_slot = ExecInitExtraTupleSlot(estate, gs->inner_desc,
														  &TTSOpsMinimalTuple);
	}
	gs->spill_cxt = AllocSetContextCreate(gs->cxt, "GpuHashJoin spill",
										  ALLOCSET_DEFAULT_SIZES);

	/*
	 * Within work_mem x hash_mem_multiplier, as a hash join: start with the
	 * batches the planner's estimate calls for, split further when the real
	 * inner side outgrows it.  Parallel-aware plans share one table whole.
	 */
	gs->can_batch = !node->ss.ps.plan->parallel_aware;
	gs->mem_limit = gpuhash_memory_limit();
	gs->nbatch = gs->can_batch ?
		gpuhash_initial_nbatch(gs->inner_ps->plan->plan_rows, gs->inner_ps->plan->plan_width) : 1;
	gs->grow_enabled = gs->can_batch;
	gpuhash_batch_files_grow(gs, gs->nbatch);

	gs->batch_cap = gpuhash_batch_rows;
	gs->batch_vals = MemoryContextAllocHuge(gs->cxt, sizeof(Datum) * gs->batch_cap * Max(gs->n_outer_keep, 1));
	gs->batch_nulls = MemoryContextAllocHuge(gs->cxt, sizeof(bool) * gs->batch_cap * Max(gs->n_outer_keep, 1));
	gs->batch_keys = MemoryContextAllocHuge(gs->cxt, sizeof(uint64) * gs->batch_cap);
	gs->batch_nokey = MemoryContextAllocHuge(gs->cxt, sizeof(bool) * gs->batch_cap);
	gs->batch_ranges = MemoryContextAllocHuge(gs->cxt, sizeof(gh_range) * gs->batch_cap);
	gs->cur = -1;
	gs->phase = GJ_BUILD;
}

/* ---------------------------------------------------------------------
 * Keys and row copies
 * --------------------------------------------------------------------- */

/*
 * The 64-bit key of the row in slot: its key columns packed (exact keys) or
 * their combined extended hashes (fingerprints); false if a key column is
 * NULL (such a row matches nothing).
 */
static bool
row_key(GpuJoinState *gs, TupleTableSlot *slot, GpuKeyEval *keys, bool outer,
		uint64 *key)
{
	ExprContext *econtext = gs->key_econtext;
	MemoryContext old;
	uint64		k = 0;
	bool		ok = true;

	/* detoasting and hashing allocate: all of it goes with the row */
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	for (int i = 0; i < gs->info.nkeys; i++)
	{
		GpuKeySpec *spec = &gs->info.keys[i];
		Datum		d;
		bool		isnull;

		if (keys[i].state == NULL)
			d = slot_getattr(slot, keys[i].attno, &isnull);
		else
		{
			if (outer)
				econtext->ecxt_outertuple = slot;
			else
				econtext->ecxt_innertuple = slot;
			d = ExecEvalExpr(keys[i].state, econtext, &isnull);
		}
		if (isnull)
		{
			ok = false;
			break;
		}
		if (gs->info.fingerprint)
		{
			uint64		h = DatumGetUInt64(FunctionCall2Coll(&keys[i].hashfn, spec->collation,
															 d, UInt64GetDatum(0)));

			k = i == 0 ? h : hash_combine64(k, h);
		}
		else
			k = gpuhash_pack(k, gpuhash_encode_datum(d, outer ? spec->outer_conv : spec->inner_conv),
							 spec->width, gs->info.nkeys);
	}
	MemoryContextSwitchTo(old);
	ResetExprContext(econtext);
	*key = gs->info.fingerprint ? k & gs->fp_mask : k;
	return ok;
}

/* Copies the kept columns of the slot; by-reference values into cxt. */
static void
copy_row(TupleTableSlot *slot, const int *keep, int nkeep, Datum *vals, bool *nulls,
		 MemoryContext cxt)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;

	if (nkeep == 0)
		return;
	slot_getsomeattrs(slot, keep[nkeep - 1] + 1);
	for (int k = 0; k < nkeep; k++)
	{
		int			i = keep[k];
		Form_pg_attribute att = TupleDescAttr(desc, i);

		nulls[k] = slot->tts_isnull[i];
		if (nulls[k] || att->attbyval)
			vals[k] = slot->tts_values[i];
		else
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);

			vals[k] = datumCopy(slot->tts_values[i], false, att->attlen);
			MemoryContextSwitchTo(old);
		}
	}
}

/* What a kept inner row costs: its columns, their copies, key and table share. */
static size_t
kept_row_bytes(GpuJoinState *gs, const Datum *vals, const bool *nulls)
{
	int			nc = gs->n_inner_keep;
	size_t		bytes = nc * (sizeof(Datum) + sizeof(bool)) + GPUHASH_ROW_OVERHEAD;

	for (int k = 0; k < nc; k++)
	{
		Form_pg_attribute att = TupleDescAttr(gs->inner_desc, k);

		if (!nulls[k] && !att->attbyval)
			bytes += MAXALIGN(datumGetSize(vals[k], false, att->attlen)) + 16;
	}
	return bytes;
}

/* Frees a kept row's by-reference copies (a row moved to a batch file). */
static void
free_row_copies(GpuJoinState *gs, Datum *vals, const bool *nulls)
{
	for (int k = 0; k < gs->n_inner_keep; k++)
	{
		if (!nulls[k] && !TupleDescAttr(gs->inner_desc, k)->attbyval)
			pfree(DatumGetPointer(vals[k]));
	}
}

/* A row's kept columns (keep[] of the slot) as a tuple of desc, or NULL. */
static MinimalTuple
form_kept_tuple(GpuJoinState *gs, TupleTableSlot *slot, const int *keep, int nkeep,
				TupleDesc desc)
{
	if (nkeep == 0)
		return NULL;
	slot_getsomeattrs(slot, keep[nkeep - 1] + 1);
	for (int k = 0; k < nkeep; k++)
	{
		gs->spill_vals[k] = slot->tts_values[keep[k]];
		gs->spill_nulls[k] = slot->tts_isnull[keep[k]];
	}
	return heap_form_minimal_tuple(desc, gs->spill_vals, gs->spill_nulls);
}

/* The kept columns of inner row `row` (key-grouped position). */
static void
inner_row(GpuJoinState *gs, uint64 row, const Datum **iv, const bool **in)
{
	if (gs->inner_vals)
	{
		*iv = gs->inner_vals + row * gs->n_inner_keep;
		*in = gs->inner_nulls + row * gs->n_inner_keep;
	}
	else
	{
		/* a parallel plan's shared row, kept by another participant */
		MinimalTuple mt = dsa_get_address(gs->shared_area, gs->shared_rowptrs[row]);
		HeapTupleData ht;

		ht.t_len = mt->t_len + MINIMAL_TUPLE_OFFSET;
		ht.t_data = (HeapTupleHeader) ((char *) mt - MINIMAL_TUPLE_OFFSET);
		heap_deform_tuple(&ht, gs->inner_desc, gs->row_vals, gs->row_nulls);
		*iv = gs->row_vals;
		*in = gs->row_nulls;
	}
}

/*
 * The scan tuple: outer columns, then inner columns.  A side given as -1
 * is NULL (a NULL-extended row of an outer join).
 */
static void
store_row(GpuJoinState *gs, int64 outer_row, int64 inner)
{
	TupleTableSlot *slot = gs->css.ss.ss_ScanTupleSlot;
	Datum	   *sv = slot->tts_values;
	bool	   *sn = slot->tts_isnull;

	ExecClearTuple(slot);
	if (outer_row >= 0)
	{
		const Datum *ov = gs->batch_vals + outer_row * gs->n_outer_keep;
		const bool *on = gs->batch_nulls + outer_row * gs->n_outer_keep;

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
	sv += gs->n_outer_cols;
	sn += gs->n_outer_cols;
	if (inner >= 0 && gs->n_inner_keep > 0)
	{
		const Datum *iv;
		const bool *in;

		inner_row(gs, (uint64) inner, &iv, &in);
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
	ExecStoreVirtualTuple(slot);
}

/* ---------------------------------------------------------------------
 * Build
 * --------------------------------------------------------------------- */

static void
gpu_failed(GpuJoinState *gs, const char *what)
{
	if (gpuhash_device_mode == GPUHASH_DEVICE_GPU)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("gpuhash: %s on the GPU failed: %s", what, gh_last_error())));
	ereport(NOTICE,
			(errmsg("gpuhash: %s on the GPU failed, this join continues on the host: %s",
					what, gh_last_error())));
	gs->stats.fallbacks++;
}

static void
raise_build_error(gh_status st)
{
	ereport(ERROR,
			(errcode(st == GH_ERR_HOST_MEMORY ? ERRCODE_OUT_OF_MEMORY :
					 st == GH_ERR_TOO_LARGE ? ERRCODE_PROGRAM_LIMIT_EXCEEDED :
					 ERRCODE_INTERNAL_ERROR),
			 errmsg("gpuhash: could not build the join table: %s", gh_last_error())));
}

/*
 * Builds gs->table over the kept keys.  A GPU failure moves the build to the
 * host twin; a scheme that cannot place the keys within its retry budget
 * (a GPH cell of crafted keys can hold more keys than any bucket group)
 * gives way to the next scheme: gph -> fks -> linear, which always builds.
 * With may_split, a table the GPU has no memory for is not built (false):
 * the caller splits the batch and tries again on the GPU.
 */
static bool
build_table(GpuJoinState *gs, const uint64 *keys, uint64 n, gh_device device,
			bool may_split)
{
	gh_build_options opt;
	gh_status	st;

	gs->device = device;
	gs->scheme = gs->info.scheme;
	for (;;)
	{
		gpuhash_build_options(&opt, gs->device, gs->scheme);
		st = gpuhash_table_build(&gs->table, &opt, keys, n, gs->table_owner_pid);
		if (st == GH_OK)
		{
			gs->stats.in_service = gs->table.remote;
			return true;
		}
		if (st == GH_ERR_BUILD_FAILED && gs->scheme != GH_SCHEME_LINEAR)
		{
			ereport(NOTICE,
					(errmsg("gpuhash: %s could not place the join keys, using %s: %s",
							gh_scheme_name((gh_scheme) gs->scheme),
							gh_scheme_name(gs->scheme == GH_SCHEME_GPH ? GH_SCHEME_FKS : GH_SCHEME_LINEAR),
							gh_last_error())));
			gs->scheme = gs->scheme == GH_SCHEME_GPH ? GH_SCHEME_FKS : GH_SCHEME_LINEAR;
			continue;
		}
		if (st == GH_ERR_GPU_MEMORY && may_split && gs->device == GH_DEVICE_GPU)
			return false;
		if (gs->device == GH_DEVICE_GPU && st != GH_ERR_HOST_MEMORY && st != GH_ERR_TOO_LARGE)
		{
			gpu_failed(gs, "building the join table");
			gs->device = GH_DEVICE_HOST;
			continue;
		}
		raise_build_error(st);
	}
}

/*
 * The table's key-grouped rowid order: a probe's range [offset, offset +
 * count) indexes rows in this order.  A GPU failure here rebuilds the table
 * on the host twin (same order: the host twin builds the same layout).
 */
static const uint32 *
table_order(GpuJoinState *gs, const uint64 *keys, uint64 n)
{
	const uint32 *order = gpuhash_table_rowids(&gs->table, gs->inner_cxt);

	if (order == NULL)
	{
		gpu_failed(gs, "fetching the row order");
		free_table(gs);
		build_table(gs, keys, n, GH_DEVICE_HOST, false);
		order = gpuhash_table_rowids(&gs->table, gs->inner_cxt);
		if (order == NULL)
			raise_build_error(GH_ERR_HOST_MEMORY);
	}
	return order;
}

/* No inner column is read and no inner row marked: the row order is moot. */
static bool
order_needed(GpuJoinState *gs)
{
	return gs->n_inner_keep > 0 || gs->fill_inner;
}

/*
 * After a build: the table's row order (NULL when none is needed: a
 * count(*) or a semi/anti join reads no inner row) and its figures for
 * EXPLAIN ANALYZE.
 */
static const uint32 *
table_built(GpuJoinState *gs, const uint64 *keys, uint64 n)
{
	const uint32 *order;
	gh_table_info ti;

	order = order_needed(gs) ? table_order(gs, keys, n) : NULL;
	gpuhash_table_info(&gs->table, &ti);
	gs->stats.distinct_keys = ti.n_distinct;
	gs->stats.gpu_bytes = Max(gs->stats.gpu_bytes, ti.device_bytes);
	return order;
}

/*
 * Builds the table over n keys (n > 0) and returns its row order, or NULL
 * (table_built).  Parallel plans reorder shared rows by it.
 */
const uint32 *
gpuhash_build_keys(GpuJoinState *gs, const uint64 *keys, uint64 n)
{
	free_table(gs);
	build_table(gs, keys, n, gpuhash_exec_device(), false);
	return table_built(gs, keys, n);
}

static void
reorder_inner(GpuJoinState *gs, const uint32 *order)
{
	int			nc = gs->n_inner_keep;
	uint64		n_all = gs->n_inner_all;
	Datum	   *vals;
	bool	   *nulls;
	uint64	   *keys;

	if (order == NULL)
		return;					/* nothing reads the rows' order */
	vals = MemoryContextAllocHuge(gs->inner_cxt, sizeof(Datum) * Max(n_all * nc, 1));
	nulls = MemoryContextAllocHuge(gs->inner_cxt, sizeof(bool) * Max(n_all * nc, 1));
	keys = MemoryContextAllocHuge(gs->inner_cxt, sizeof(uint64) * Max(gs->n_inner, 1));
	for (uint64 i = 0; i < gs->n_inner; i++)
	{
		uint64		src = order[i];

		memcpy(vals + i * nc, gs->inner_vals + src * nc, sizeof(Datum) * nc);
		memcpy(nulls + i * nc, gs->inner_nulls + src * nc, sizeof(bool) * nc);
		keys[i] = gs->inner_keys_arr[src];
	}
	/* a right/full join's NULL-key rows stay behind the table's rows */
	memcpy(vals + gs->n_inner * nc, gs->inner_vals + gs->n_inner * nc,
		   sizeof(Datum) * (n_all - gs->n_inner) * nc);
	memcpy(nulls + gs->n_inner * nc, gs->inner_nulls + gs->n_inner * nc,
		   sizeof(bool) * (n_all - gs->n_inner) * nc);
	pfree(gs->inner_vals);
	pfree(gs->inner_nulls);
	pfree(gs->inner_keys_arr);
	gs->inner_vals = vals;
	gs->inner_nulls = nulls;
	gs->inner_keys_arr = keys;
}

/*
 * Room for one more row of nc kept columns, and its key, in arrays of *cap
 * rows.
 */
static void
ensure_row_room(Datum **vals, bool **nulls, uint64 **keys, uint64 n, uint64 *cap, int nc)
{
	if (n < *cap)
		return;
	if (*cap >= GH_MAX_ROWS / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpuhash: inner side of a GPU hash join exceeds %llu rows",
						(unsigned long long) GH_MAX_ROWS)));
	*cap = Max(*cap * 2, 1024);
	*vals = repalloc_huge(*vals, sizeof(Datum) * *cap * Max(nc, 1));
	*nulls = repalloc_huge(*nulls, sizeof(bool) * *cap * Max(nc, 1));
	*keys = repalloc_huge(*keys, sizeof(uint64) * *cap);
}

/*
 * Keeps an inner row of this batch: keyed rows in arrival order, a right or
 * full join's NULL-key rows apart (they go behind the table's rows).
 */
static void
keep_inner_row(GpuJoinState *gs, TupleTableSlot *slot, const int *keep, uint64 key,
			   bool nokey)
{
	int			nc = gs->n_inner_keep;
	Datum	   *vals;
	bool	   *nulls;

	if (nokey)
	{
		ensure_row_room(&gs->nk_vals, &gs->nk_nulls, &gs->nk_keys, gs->n_nk, &gs->nk_cap, nc);
		vals = gs->nk_vals + gs->n_nk * nc;
		nulls = gs->nk_nulls + gs->n_nk * nc;
		gs->nk_keys[gs->n_nk++] = key;
	}
	else
	{
		ensure_row_room(&gs->inner_vals, &gs->inner_nulls, &gs->inner_keys_arr,
						gs->n_inner, &gs->inner_cap, nc);
		vals = gs->inner_vals + gs->n_inner * nc;
		nulls = gs->inner_nulls + gs->n_inner * nc;
		gs->inner_keys_arr[gs->n_inner++] = key;
	}
	copy_row(slot, keep, nc, vals, nulls, gs->inner_cxt);
	gs->mem_used += kept_row_bytes(gs, vals, nulls);
	gs->stats.mem_peak = Max(gs->stats.mem_peak, gs->mem_used);
}

/*
 * Moves the kept rows (n of them, keys alike) that no longer belong to
 * curbatch to their batch files; returns how many stay.
 */
static uint64
move_out_rows(GpuJoinState *gs, Datum *vals, bool *nulls, uint64 *keys, uint64 n,
			  bool nokey, uint64 *moved)
{
	int			nc = gs->n_inner_keep;
	uint64		j = 0;

	for (uint64 i = 0; i < n; i++)
	{
		Datum	   *v = vals + i * nc;
		bool	   *nl = nulls + i * nc;
		int			b = gpuhash_batch_of(keys[i], gs->nbatch);

		if (b != gs->curbatch)
		{
			MinimalTuple tup = nc > 0 ? heap_form_minimal_tuple(gs->inner_desc, v, nl) : NULL;

			gpuhash_spill_write(gs, &gs->inner_files[b], keys[i], nokey, tup);
			if (tup)
				pfree(tup);
			free_row_copies(gs, v, nl);
			(*moved)++;
			continue;
		}
		if (j != i)
		{
			memmove(vals + j * nc, v, sizeof(Datum) * nc);
			memmove(nulls + j * nc, nl, sizeof(bool) * nc);
			keys[j] = keys[i];
		}
		gs->mem_used += kept_row_bytes(gs, vals + j * nc, nulls + j * nc);
		j++;
	}
	return j;
}

/*
 * Doubles the batches, as ExecHashIncreaseNumBatches: the kept rows whose
 * key now falls in a later batch go to its file.  A split that moves all
 * rows or none (every key alike) will not help: batches stop growing, and
 * this batch goes over the limit, as PostgreSQL's hash join does.
 */
static void
increase_batches(GpuJoinState *gs)
{
	uint64		before = gs->n_inner + gs->n_nk;
	uint64		moved = 0;

	if (!gs->grow_enabled)
		return;
	if (gs->nbatch >= GPUHASH_MAX_BATCHES)
	{
		gs->grow_enabled = false;
		return;
	}
	gs->nbatch *= 2;
	gpuhash_batch_files_grow(gs, gs->nbatch);
	gs->stats.hash_batches = Max(gs->stats.hash_batches, gs->nbatch);
	gs->mem_used = 0;
	gs->n_inner = move_out_rows(gs, gs->inner_vals, gs->inner_nulls, gs->inner_keys_arr,
								gs->n_inner, false, &moved);
	gs->n_nk = move_out_rows(gs, gs->nk_vals, gs->nk_nulls, gs->nk_keys, gs->n_nk,
							 true, &moved);
	if (moved == 0 || moved == before)
		gs->grow_enabled = false;
}

/*
 * The next inner row of this batch's source: the inner plan for batch 0,
 * the batch's file after it.  Rows without a key count once and are
 * dropped unless a right/full join must emit them; those get a made-up key
 * that places them in a batch.
 */
static bool
next_inner_row(GpuJoinState *gs, TupleTableSlot **slot, const int **keep, uint64 *key,
			   bool *nokey)
{
	if (gs->curbatch == 0)
	{
		for (;;)
		{
			*slot = ExecProcNode(gs->inner_ps);
			if (TupIsNull(*slot))
				return false;
			*keep = gs->inner_keep;
			*nokey = !row_key(gs, *slot, gs->inner_keys, false, key);
			if (!*nokey)
				return true;
			gs->stats.null_key_rows++;
			if (gs->fill_inner)
			{
				*key = gs->null_seq++;
				return true;
			}
		}
	}
	else
	{
		BufFile    *file = gs->inner_files[gs->curbatch];
		MinimalTuple tup;

		MemoryContextReset(gs->spill_cxt);
		if (file == NULL || !gpuhash_spill_read(file, key, nokey, &tup, gs->spill_cxt))
			return false;
		*keep = gs->ident_keep;
		*slot = NULL;
		if (tup)
			*slot = ExecStoreMinimalTuple(tup, gs->inner_spill_slot, false);
		return true;
	}
}

/* Resets the kept inner rows to none (a new batch, a rebuild). */
static void
start_inner(GpuJoinState *gs)
{
	int			nc = gs->n_inner_keep;

	MemoryContextReset(gs->inner_cxt);
	gs->matched = NULL;
	gs->kf_words = NULL;
	gs->kf_on = false;
	gs->inner_cap = gs->nk_cap = 1024;
	gs->n_inner = gs->n_nk = 0;
	gs->mem_used = 0;
	gs->inner_vals = MemoryContextAllocHuge(gs->inner_cxt, sizeof(Datum) * gs->inner_cap * Max(nc, 1));
	gs->inner_nulls = MemoryContextAllocHuge(gs->inner_cxt, sizeof(bool) * gs->inner_cap * Max(nc, 1));
	gs->inner_keys_arr = MemoryContextAllocHuge(gs->inner_cxt, sizeof(uint64) * gs->inner_cap);
	gs->nk_vals = MemoryContextAllocHuge(gs->inner_cxt, sizeof(Datum) * gs->nk_cap * Max(nc, 1));
	gs->nk_nulls = MemoryContextAllocHuge(gs->inner_cxt, sizeof(bool) * gs->nk_cap * Max(nc, 1));
	gs->nk_keys = MemoryContextAllocHuge(gs->inner_cxt, sizeof(uint64) * gs->nk_cap);
	if (gs->curbatch == 0)
		gs->stats.null_key_rows = 0;
}

/*
 * Reads this batch's inner rows: those of later batches go to their files,
 * and the batches double whenever the kept rows outgrow the memory limit.
 */
static void
read_inner_rows(GpuJoinState *gs)
{
	start_inner(gs);
	for (;;)
	{
		TupleTableSlot *slot;
		const int  *keep;
		uint64		key;
		bool		nokey;
		int			b;

		if (!next_inner_row(gs, &slot, &keep, &key, &nokey))
			break;
		b = gpuhash_batch_of(key, gs->nbatch);
		if (b != gs->curbatch)
		{
			MinimalTuple tup = slot ? form_kept_tuple(gs, slot, keep, gs->n_inner_keep,
													  gs->inner_desc) : NULL;

			gpuhash_spill_write(gs, &gs->inner_files[b], key, nokey, tup);
			if (tup)
				pfree(tup);
			continue;
		}
		keep_inner_row(gs, slot, keep, key, nokey);
		if (gs->can_batch && gs->mem_used > gs->mem_limit)
			increase_batches(gs);
	}
}

/* The NULL-key rows go behind the keyed ones: never in the table. */
static void
finish_inner(GpuJoinState *gs)
{
	int			nc = gs->n_inner_keep;
	uint64		n_nk = gs->n_nk;

	gs->n_inner_all = gs->n_inner + n_nk;
	if (n_nk > 0)
	{
		uint64		cap = gs->inner_cap;

		while (cap < gs->n_inner_all)
			ensure_row_room(&gs->inner_vals, &gs->inner_nulls, &gs->inner_keys_arr, cap, &cap, nc);
		gs->inner_cap = cap;
		memcpy(gs->inner_vals + gs->n_inner * nc, gs->nk_vals, sizeof(Datum) * n_nk * nc);
		memcpy(gs->inner_nulls + gs->n_inner * nc, gs->nk_nulls, sizeof(bool) * n_nk * nc);
	}
	gs->n_nk = 0;
}

/*
 * Runs the inner plan to its end: the kept columns of rows with a key, in
 * arrival order, then (right/full) those of rows with a NULL key.  Parallel
 * plans (one batch) share them.
 */
void
gpuhash_read_inner(GpuJoinState *gs)
{
	read_inner_rows(gs);
	finish_inner(gs);
}

/*
 * Does a GPU table leave a quarter of gpuhash.max_gpu_memory for the probes'
 * keys and ranges?  (Without a budget the GPU itself says when it is full.)
 */
static bool
leaves_probe_room(GpuJoinState *gs)
{
	gh_table_info ti;
	size_t		budget = (size_t) gpuhash_max_gpu_memory_mb * 1024 * 1024;

	if (gs->device != GH_DEVICE_GPU || budget == 0)
		return true;
	gpuhash_table_info(&gs->table, &ti);
	return ti.device_bytes <= budget / 4 * 3;
}

/* Reads this batch's inner rows and builds its table. */
void
gpuhash_build_inner(GpuJoinState *gs)
{
	instr_time	t0,
				t1;

	read_inner_rows(gs);
	INSTR_TIME_SET_CURRENT(t0);
	free_table(gs);

	/*
	 * A table the GPU has no room for (gpuhash.max_gpu_memory), or none
	 * left to probe it in: split further.
	 */
	while (gs->n_inner > 0)
	{
		bool		may_split = gs->can_batch && gs->grow_enabled;

		if (build_table(gs, gs->inner_keys_arr, gs->n_inner, gpuhash_exec_device(), may_split))
		{
			if (!may_split || leaves_probe_room(gs))
				break;
			free_table(gs);
		}
		increase_batches(gs);
	}
	finish_inner(gs);
	if (gs->n_inner > 0)
	{
		reorder_inner(gs, table_built(gs, gs->inner_keys_arr, gs->n_inner));
		if (gpuhash_keyfilter_wanted(gs))
		{
			gs->kf_nwords = gpuhash_keyfilter_words(gs->n_inner);
			gs->kf_words = MemoryContextAllocHuge(gs->inner_cxt, sizeof(uint64) * gs->kf_nwords);
			gpuhash_keyfilter_fill(gs->kf_words, gs->kf_nwords, gs->inner_keys_arr, gs->n_inner);
		}
	}
	gs->kf_on = gs->kf_words != NULL;
	gs->kf_tested = gs->kf_passed = 0;
	if (gs->fill_inner && gs->shared == NULL)
		gs->matched = MemoryContextAllocHuge(gs->inner_cxt,
											 sizeof(uint32) * gpuhash_matched_words(gs));
	if (gs->matched)
		memset(gs->matched, 0, sizeof(uint32) * gpuhash_matched_words(gs));
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	gs->stats.build_ms += INSTR_TIME_GET_MILLISEC(t1);
	/* a scan's figures: its batches together */
	if (gs->curbatch == 0)
	{
		gs->stats.inner_rows = 0;
		gs->stats.builds++;
	}
	gs->stats.inner_rows += gs->n_inner;
	gs->stats.hash_batches = Max(gs->stats.hash_batches, gs->nbatch);
	gs->stats.device = gs->device;
	gs->stats.built = true;
	gs->built = true;
}

/* ---------------------------------------------------------------------
 * Probe and emit
 * --------------------------------------------------------------------- */

/*
 * Probes n keys; a GPU without memory for all of them at once (a budget
 * that the table alone nearly fills) is asked for halves.
 */
static gh_status
probe_keys(GpuJoinState *gs, const uint64 *keys, int n, gh_range *ranges)
{
	gh_status	st = gpuhash_table_probe(&gs->table, keys, n, ranges);
	int			half = n / 2;

	if (st != GH_ERR_GPU_MEMORY || gs->device != GH_DEVICE_GPU || n < 256)
		return st;
	st = probe_keys(gs, keys, half, ranges);
	if (st == GH_OK)
		st = probe_keys(gs, keys + half, n - half, ranges + half);
	return st;
}

/* Probes the batch; after a GPU failure, rebuilds on the host and retries. */
static void
probe_batch(GpuJoinState *gs)
{
	gh_status	st;
	gh_table_info before,
				after;

	gpuhash_table_info(&gs->table, &before);
	st = probe_keys(gs, gs->batch_keys, gs->batch_n, gs->batch_ranges);
	if (st != GH_OK && gs->shared)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("gpuhash: probing the shared join table of a parallel plan failed: %s",
						gh_last_error())));
	if (st != GH_OK && gs->device == GH_DEVICE_GPU)
	{
		gpu_failed(gs, "probing the join table");
		free_table(gs);
		build_table(gs, gs->inner_keys_arr, gs->n_inner, GH_DEVICE_HOST, false);
		/* the kept rows are in this scheme's order already: normally a no-op */
		if (order_needed(gs))
			reorder_inner(gs, table_order(gs, gs->inner_keys_arr, gs->n_inner));
		gpuhash_table_info(&gs->table, &before);
		st = gpuhash_table_probe(&gs->table, gs->batch_keys, gs->batch_n, gs->batch_ranges);
	}
	if (st != GH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpuhash: probing the join table failed: %s", gh_last_error())));
	gpuhash_table_info(&gs->table, &after);
	gs->stats.probe_ms += after.probe_ms - before.probe_ms;
	gs->stats.transfer_ms += after.transfer_ms - before.transfer_ms;
	gs->stats.batches++;
	gs->stats.outer_rows += gs->batch_n;
	gpuhash_shared_count_batch(gs, gs->batch_n);
	gs->stats.device = gs->device;
}

/*
 * Does the key filter let this outer key through?  A filter that lets most
 * keys through (a join where nearly every row matches) only costs a cache
 * miss per row: after a sample it is switched off for the rest of the scan.
 */
#define KF_SAMPLE 65536

static inline bool
filter_passes(GpuJoinState *gs, uint64 key)
{
	gs->kf_tested++;
	if (!gpuhash_keyfilter_test(gs->kf_words, gs->kf_nwords, key))
	{
		gs->stats.outer_filtered++;
		return false;
	}
	gs->kf_passed++;
	if (gs->kf_tested == KF_SAMPLE && gs->kf_passed * 4 > gs->kf_tested * 3)
		gs->kf_on = false;
	return true;
}

/*
 * The next outer row of this hash batch, as a slot (batch 0: the outer plan,
 * whose rows of later batches go to their files) or, read back from the
 * batch's file, straight into batch row `row`; false at the end.  Rows
 * without a key are never spilled: they match nothing, and batch 0 emits
 * them where unmatched outer rows come out.
 */
static bool
next_outer_row(GpuJoinState *gs, int row, TupleTableSlot **slot, uint64 *key, bool *nokey)
{
	int			nc = gs->n_outer_keep;

	for (;;)
	{
		int			b;

		if (gs->curbatch == 0)
		{
			if (gs->first_outer != NULL)
			{
				*slot = gs->first_outer;
				gs->first_outer = NULL;
			}
			else
				*slot = ExecProcNode(gs->outer_ps);
			if (TupIsNull(*slot))
				return false;
			*nokey = !row_key(gs, *slot, gs->outer_keys, true, key);
			if (*nokey || gs->nbatch == 1 ||
				(b = gpuhash_batch_of(*key, gs->nbatch)) == 0)
				return true;
			{
				MinimalTuple tup = form_kept_tuple(gs, *slot, gs->outer_keep, nc, gs->outer_desc);

				gpuhash_spill_write(gs, &gs->outer_files[b], *key, false, tup);
				if (tup)
					pfree(tup);
			}
		}
		else
		{
			BufFile    *file = gs->outer_files[gs->curbatch];
			MinimalTuple tup;

			/* the tuple lives with the batch: its columns point into it */
			if (file == NULL || !gpuhash_spill_read(file, key, nokey, &tup, gs->batch_cxt))
				return false;
			*slot = NULL;
			b = gpuhash_batch_of(*key, gs->nbatch);
			if (b != gs->curbatch)
			{
				/* the batches doubled since it was written */
				gpuhash_spill_write(gs, &gs->outer_files[b], *key, false, tup);
				continue;
			}
			if (tup)
			{
				HeapTupleData ht;

				ht.t_len = tup->t_len + MINIMAL_TUPLE_OFFSET;
				ht.t_data = (HeapTupleHeader) ((char *) tup - MINIMAL_TUPLE_OFFSET);
				heap_deform_tuple(&ht, gs->outer_desc, gs->batch_vals + (size_t) row * nc,
								  gs->batch_nulls + (size_t) row * nc);
			}
			return true;
		}
	}
}

/*
 * Fills and probes the next outer batch; false when the outer side is done.
 * Outer rows with a NULL key match nothing: they are skipped, unless
 * unmatched outer rows come out (left, full, anti).
 */
static bool
next_batch(GpuJoinState *gs)
{
	int			nc = gs->n_outer_keep;
	bool		any_key = false;

	MemoryContextReset(gs->batch_cxt);
	gs->batch_n = 0;
	while (!gs->outer_done && gs->batch_n < gs->batch_cap)
	{
		TupleTableSlot *slot;
		uint64		key;
		bool		nokey;

		if (!next_outer_row(gs, gs->batch_n, &slot, &key, &nokey))
		{
			gs->outer_done = true;
			break;
		}
		if (nokey && !gs->fill_outer)
			continue;
		if (gs->kf_on && !nokey && !filter_passes(gs, key))
			continue;
		if (slot != NULL)
			copy_row(slot, gs->outer_keep, nc, gs->batch_vals + (size_t) gs->batch_n * nc,
					 gs->batch_nulls + (size_t) gs->batch_n * nc, gs->batch_cxt);
		gs->batch_nokey[gs->batch_n] = nokey;
		gs->batch_keys[gs->batch_n++] = nokey ? 0 : key;
		any_key |= !nokey;
	}
	if (gs->batch_n == 0)
		return false;
	if (gs->n_inner > 0 && any_key)
	{
		probe_batch(gs);
		for (int i = 0; i < gs->batch_n; i++)
			if (gs->batch_nokey[i])
				gs->batch_ranges[i].count = 0;
	}
	else
	{
		/* no table, or no key to look up: nothing matches */
		memset(gs->batch_ranges, 0, sizeof(gh_range) * gs->batch_n);
		gs->stats.outer_rows += gs->batch_n;
	}
	gs->cur = -1;
	return true;
}

/*
 * After a hash batch: the next one that can yield rows.  A batch without
 * inner rows yields only unmatched outer rows, one without outer rows only
 * unmatched inner rows.  Its inner rows are read back and built, its outer
 * file becomes the outer side.
 */
static bool
next_hash_batch(GpuJoinState *gs)
{
	while (gs->curbatch + 1 < gs->nbatch)
	{
		int			prev = gs->curbatch++;
		BufFile    *inner;
		BufFile    *outer;

		if (gs->inner_files[prev])
			BufFileClose(gs->inner_files[prev]);
		if (gs->outer_files[prev])
			BufFileClose(gs->outer_files[prev]);
		gs->inner_files[prev] = gs->outer_files[prev] = NULL;

		inner = gs->inner_files[gs->curbatch];
		outer = gs->outer_files[gs->curbatch];
		if ((inner == NULL && !(gs->fill_outer && outer != NULL)) ||
			(outer == NULL && !(gs->fill_inner && inner != NULL)))
			continue;
		if (inner)
			gpuhash_spill_rewind(inner);
		gpuhash_build_inner(gs);
		if (gs->outer_files[gs->curbatch])
			gpuhash_spill_rewind(gs->outer_files[gs->curbatch]);
		gs->outer_done = false;
		gs->batch_n = 0;
		gs->cur = -1;
		return true;
	}
	return false;
}

/* Right/full joins: inner row `row` has matched. */
static inline void
mark_matched(GpuJoinState *gs, uint64 row)
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
is_matched(GpuJoinState *gs, uint64 row)
{
	uint32		bit = ((uint32) 1) << (row & 31);

	if (gs->shared_matched)
		return (pg_atomic_read_u32(&gs->shared_matched[row >> 5]) & bit) != 0;
	return (gs->matched[row >> 5] & bit) != 0;
}

/* The row in the scan slot passed: the filter on joined rows decides. */
static TupleTableSlot *
emit(GpuJoinState *gs, ExprContext *econtext)
{
	CustomScanState *node = &gs->css;

	if (gs->filter == NULL || ExecQual(gs->filter, econtext))
	{
		if (node->ss.ps.ps_ProjInfo == NULL)
			return node->ss.ss_ScanTupleSlot;
		return ExecProject(node->ss.ps.ps_ProjInfo);
	}
	InstrCountFiltered1(node, 1);
	ResetExprContext(econtext);
	return NULL;
}

/* A hash batch is over: the next one, or the end. */
static GpuJoinPhase
batch_done(GpuJoinState *gs)
{
	return gs->curbatch + 1 < gs->nbatch ? GJ_NEW_BATCH : GJ_DONE;
}

/* The end of this participant's outer side: on to the unmatched inner rows? */
static void
end_probe(GpuJoinState *gs)
{
	bool		fill = gs->fill_inner;

	if (gs->shared)
	{
		gpuhash_shared_count_filtered(gs);
		fill = gpuhash_shared_probe_done(gs) && fill;
	}
	gs->phase = fill ? GJ_FILL_INNER : batch_done(gs);
	gs->fill_pos = 0;
}

/*
 * GJ_BUILD: the start of a scan.  Pseudoconstant quals (WHERE now() IS NULL
 * above the join) decide once per scan whether any row comes out, as a
 * gating Result would.  Then, as nodeHashjoin.c: an empty outer side needs
 * no table (and must not raise the errors its inner keys could), unless the
 * unmatched inner rows come out; parallel participants build together.  A
 * table kept from an earlier scan is probed again.
 */
static GpuJoinPhase
start_scan(GpuJoinState *gs, ExprContext *econtext)
{
	if (gs->gate != NULL && !ExecQual(gs->gate, econtext))
	{
		ResetExprContext(econtext);
		return GJ_DONE;
	}
	if (!gs->built)
	{
		if (!gs->fill_inner && gs->shared == NULL)
		{
			gs->first_outer = ExecProcNode(gs->outer_ps);
			if (TupIsNull(gs->first_outer))
			{
				gs->first_outer = NULL;
				return GJ_DONE;
			}
		}
		if (gs->shared)
			gpuhash_shared_build(gs);
		else
			gpuhash_build_inner(gs);
	}

	/*
	 * An empty inner side joins nothing: then the outer side need not be
	 * read (unless later hash batches have inner rows).
	 */
	if (gs->n_inner == 0 && !gs->fill_outer && gs->nbatch == 1)
	{
		end_probe(gs);
		return gs->phase;
	}
	return GJ_NEED_BATCH;
}

/* GJ_NEXT_OUTER: the batch's next outer row with matches (any, when filling). */
static GpuJoinPhase
next_outer(GpuJoinState *gs)
{
	do
		gs->cur++;
	while (!gs->fill_outer && gs->cur < gs->batch_n &&
		   gs->batch_ranges[gs->cur].count == 0);
	if (gs->cur >= gs->batch_n)
		return GJ_NEED_BATCH;
	gs->cur_match = 0;
	gs->cur_matched = false;
	return GJ_SCAN_RANGE;
}

/*
 * GJ_SCAN_RANGE: the current outer row against each inner row of its range.
 * The join filter decides a match; a match marks the inner row (right,
 * full), ends the row (anti: no row; semi or a unique inner side: one is
 * all).  Returns a joined row, or NULL once the range is done.
 */
static TupleTableSlot *
scan_range(GpuJoinState *gs, ExprContext *econtext)
{
	gh_range   *r = &gs->batch_ranges[gs->cur];
	bool		anti = gs->info.jointype == JOIN_ANTI;
	TupleTableSlot *out;

	while (gs->cur_match < r->count)
	{
		uint64		row = (uint64) r->offset + gs->cur_match++;

		/* a key can have millions of rows: stay cancellable */
		CHECK_FOR_INTERRUPTS();
		store_row(gs, gs->cur, (int64) row);
		if (gs->qual != NULL && !ExecQual(gs->qual, econtext))
		{
			InstrCountFiltered2(&gs->css, 1);
			ResetExprContext(econtext);
			continue;
		}
		gs->cur_matched = true;
		if (gs->fill_inner)
			mark_matched(gs, row);
		if (anti || gs->info.single_match)
			gs->cur_match = r->count;
		if (anti)
			continue;
		if ((out = emit(gs, econtext)) != NULL)
			return out;
	}
	/* the row's matches are done: unmatched, it may come out alone */
	gs->phase = gs->fill_outer && !gs->cur_matched ? GJ_FILL_OUTER : GJ_NEXT_OUTER;
	return NULL;
}

/* GJ_FILL_INNER: the next inner row of this batch never matched, or NULL. */
static TupleTableSlot *
fill_inner(GpuJoinState *gs, ExprContext *econtext)
{
	while (gs->fill_pos < gs->n_inner_all && is_matched(gs, gs->fill_pos))
		gs->fill_pos++;
	if (gs->fill_pos >= gs->n_inner_all)
	{
		gs->phase = batch_done(gs);
		return NULL;
	}
	store_row(gs, -1, (int64) gs->fill_pos++);
	return emit(gs, econtext);
}

/*
 * The node's state machine (join_state.h's GpuJoinPhase), one step per
 * turn of the loop, until a row comes out or the join is done.
 */
static TupleTableSlot *
exec_gpu_join(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *out;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = node->ss.ss_ScanTupleSlot;
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		switch (gs->phase)
		{
			case GJ_BUILD:
				gs->phase = start_scan(gs, econtext);
				break;
			case GJ_NEED_BATCH:
				if (next_batch(gs))
					gs->phase = GJ_NEXT_OUTER;
				else
					end_probe(gs);
				break;
			case GJ_NEXT_OUTER:
				gs->phase = next_outer(gs);
				break;
			case GJ_SCAN_RANGE:
				if ((out = scan_range(gs, econtext)) != NULL)
					return out;
				break;
			case GJ_FILL_OUTER:
				gs->phase = GJ_NEXT_OUTER;
				store_row(gs, gs->cur, -1);
				if ((out = emit(gs, econtext)) != NULL)
					return out;
				break;
			case GJ_FILL_INNER:
				if ((out = fill_inner(gs, econtext)) != NULL)
					return out;
				break;
			case GJ_NEW_BATCH:
				gs->phase = next_hash_batch(gs) ? GJ_NEED_BATCH : GJ_DONE;
				break;
			case GJ_DONE:
				return NULL;
		}
	}
}

/* ---------------------------------------------------------------------
 * End and rescan
 * --------------------------------------------------------------------- */

static void
end_gpu_join(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;

	free_table(gs);
	gpuhash_batch_files_close(gs);
	ExecEndNode(gs->outer_ps);
	ExecEndNode(gs->inner_ps);
}

/*
 * Custom children are not known to ExecReScan: pass changed parameters
 * down ourselves.  A child with changed parameters rescans itself on its
 * next ExecProcNode; the join table is rebuilt only when the inner side's
 * parameters changed, as nodeHashjoin.c does.
 */
static void
rescan_gpu_join(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	Bitmapset  *chg = node->ss.ps.chgParam;

	if (chg)
	{
		UpdateChangedParamSet(gs->outer_ps, chg);
		UpdateChangedParamSet(gs->inner_ps, chg);
	}
	if (gs->inner_ps->chgParam != NULL || gs->shared)
	{
		/* a parallel plan's shared table is rebuilt with its shared state */
		free_table(gs);
		gs->built = false;
	}
	else if (!gs->built || gs->nbatch > 1 || bms_overlap(chg, gs->inner_key_params))
	{
		/*
		 * The same inner rows, but keys that read a changed parameter; or a
		 * table of one batch among several: as nodeHashjoin.c, start over.
		 */
		free_table(gs);
		gs->built = false;
		ExecReScan(gs->inner_ps);
	}
	if (!gs->built)
	{
		gpuhash_batch_files_close(gs);
		gs->curbatch = 0;
		gs->grow_enabled = gs->can_batch;
	}
	if (gs->outer_ps->chgParam == NULL)
		ExecReScan(gs->outer_ps);

	/* a kept table starts over unmatched, as nodeHashjoin.c resets match flags */
	if (gs->built && gs->matched)
		memset(gs->matched, 0, sizeof(uint32) * gpuhash_matched_words(gs));
	gs->outer_done = false;
	gs->first_outer = NULL;
	gs->batch_n = 0;
	gs->cur = -1;
	gs->cur_match = 0;
	gs->cur_matched = false;
	gs->kf_on = gs->kf_words != NULL;
	gs->kf_tested = gs->kf_passed = 0;
	gs->phase = GJ_BUILD;
	gs->fill_pos = 0;
}
