/*-------------------------------------------------------------------------
 *
 * node_setup.c
 *	  BeginCustomScan of a GpuHashJoin: the children, the columns each side
 *	  keeps (only those the join filter and target list read), the key
 *	  expressions of each side and the parameters the inner ones read, the
 *	  join filter, the filter on joined rows and the gate, the memory
 *	  contexts, hash batches and probe batch arrays.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "scan/page_scan.h"
#include "service.h"

#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "utils/memutils.h"

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

/* An absorbed scan: column j of the side's Vars -> the relation's column. */
typedef struct HeapMap
{
	int			varno;			/* OUTER_VAR or INNER_VAR */
	AttrNumber *attno;
} HeapMap;

static Node *
side_vars_to_heap(Node *node, HeapMap *map)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == map->varno)
	{
		Var		   *v = copyObject((Var *) node);

		v->varattno = map->attno[v->varattno - 1];
		return (Node *) v;
	}
	return expression_tree_mutator(node, side_vars_to_heap, map);
}

static List *
vars_to_heap(List *exprs, int varno, GpuHeapScan *scan)
{
	HeapMap		map;

	map.varno = varno;
	map.attno = scan->attno;
	return (List *) side_vars_to_heap((Node *) exprs, &map);
}

/* Which heap columns hold a side's kept columns. */
static void
map_kept_columns(GpuHeapScan *scan, const int *keep, int nkeep)
{
	scan->heap_keep = palloc(sizeof(int) * Max(nkeep, 1));
	for (int k = 0; k < nkeep; k++)
		scan->heap_keep[k] = scan->attno[keep[k]] - 1;
	scan->max_keep = gpuhash_keep_extent(scan->heap_keep, nkeep);
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

/*
 * A side's key evaluators: a plain column is read directly, anything else
 * evaluated.  True when every key is a plain column.
 */
static bool
init_keys(GpuJoinState *gs, List *exprs, GpuKeyEval *keys, bool outer, PlanState *parent)
{
	ListCell   *lc;
	int			i = 0;
	bool		plain = true;

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
		{
			keys[i].state = ExecInitExpr(lfirst(lc), parent);
			plain = false;
		}
		i++;
	}
	return plain;
}


/*
 * The node's memory goes (the end, or an error or cancel): probes still in
 * flight are given up before their table is freed.  Buffer pins are the
 * resource owner's to release.
 */
static void
cleanup_callback(void *arg)
{
	GpuJoinState *gs = (GpuJoinState *) arg;

	for (int i = 0; i < gs->pb_depth; i++)
	{
		gpuhash_probe_abandon(gs, &gs->pb[i]);
		/* a slot held while pages were read into it (page_scan.c) */
		if (gs->pb[i].ticket.slot >= 0)
			gpuhash_svc_probe_abandon(&gs->pb[i].ticket);
	}
	/* the inner page walk's requests and table (page_inner.c); the pins
	 * went with the resource owner */
	gpuhash_page_inner_release(gs, false);
	gpuhash_free_table(gs);
}

/* The node's state, made for PostgreSQL's ExecInitCustomScan. */
Node *
gpuhash_create_scan_state(CustomScan *cscan)
{
	GpuJoinState *gs = palloc0(sizeof(GpuJoinState));

	NodeSetTag(gs, T_CustomScanState);
	gs->css.methods = &gpuhash_exec_methods;
	gs->css.flags = cscan->flags;
	return (Node *) gs;
}

void
gpuhash_begin_join(CustomScanState *node, EState *estate, int eflags)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	SideMap		map;
	List	   *outer_exprs;
	List	   *inner_exprs;
	int			nkeys;

	gpuhash_deform_private(cscan->custom_private, &gs->info);
	nkeys = gs->info.nkeys;

	/* an absorbed Seq Scan is read by the node itself (heap_scan.c) */
	if (gs->info.outer_scan)
		gs->oscan = gpuhash_heap_scan_begin(gs, linitial_node(SeqScan, cscan->custom_plans),
											estate, eflags);
	else
		gs->outer_ps = ExecInitNode(linitial(cscan->custom_plans), estate, eflags);
	gs->inner_plan = lsecond(cscan->custom_plans);
	if (gs->info.inner_scan)
		gs->iscan = gpuhash_heap_scan_begin(gs, castNode(SeqScan, gs->inner_plan), estate, eflags);
	else
		gs->inner_ps = ExecInitNode(gs->inner_plan, estate, eflags);
	node->custom_ps = NIL;
	if (gs->outer_ps)
		node->custom_ps = lappend(node->custom_ps, gs->outer_ps);
	if (gs->inner_ps)
		node->custom_ps = lappend(node->custom_ps, gs->inner_ps);
	gs->n_outer_cols = gs->info.n_outer_cols;
	gs->n_inner_cols = list_length(cscan->custom_scan_tlist) - gs->n_outer_cols;
	choose_kept_columns(gs, cscan);
	if (gs->oscan)
	{
		/* a matched row's kept columns are read from its page: pin them */
		gs->oscan->keep_rows = gs->n_outer_keep > 0;
		map_kept_columns(gs->oscan, gs->outer_keep, gs->n_outer_keep);
	}
	if (gs->iscan)
		map_kept_columns(gs->iscan, gs->inner_keep, gs->n_inner_keep);
	/* columns never kept are never read: NULL once and for all */
	memset(node->ss.ss_ScanTupleSlot->tts_isnull, true,
		   sizeof(bool) * (gs->n_outer_cols + gs->n_inner_cols));
	/* its quals and projection read the scan tuple: a chain's levels too,
	 * run without ExecProcNode (chain.c) */
	node->ss.ps.ps_ExprContext->ecxt_scantuple = node->ss.ss_ScanTupleSlot;

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
	if (gs->oscan)
		outer_exprs = vars_to_heap(outer_exprs, OUTER_VAR, gs->oscan);
	inner_exprs = (List *) split_index_vars((Node *) gpuhash_plan_exprs(cscan->custom_exprs, &gs->info,
																		GPE_INNER_KEYS), &map);
	if (gs->iscan)
		inner_exprs = vars_to_heap(inner_exprs, INNER_VAR, gs->iscan);
	gs->outer_keys = palloc0(sizeof(GpuKeyEval) * nkeys);
	gs->inner_keys = palloc0(sizeof(GpuKeyEval) * nkeys);
	gs->outer_keys_plain = init_keys(gs, outer_exprs, gs->outer_keys, true, &node->ss.ps);
	gs->inner_keys_plain = init_keys(gs, inner_exprs, gs->inner_keys, false, &node->ss.ps);
	if (gs->oscan)
		gpuhash_heap_fast_key_setup(gs, gs->oscan, true);
	if (gs->iscan)
		gpuhash_heap_fast_key_setup(gs, gs->iscan, false);

	/*
	 * The inner keys are evaluated here, not in the inner plan: a parameter
	 * they read (a correlated subquery's, LATERAL's) changes the table, so a
	 * rescan that changes one rebuilds it (rescan_gpu_join).  So do those of
	 * an absorbed inner scan's quals.
	 */
	exec_params_walker((Node *) inner_exprs, &gs->inner_key_params);
	if (gs->iscan)
		exec_params_walker((Node *) gs->inner_plan->qual, &gs->inner_key_params);
	gs->qual = ExecInitQual(gpuhash_plan_exprs(cscan->custom_exprs, &gs->info, GPE_JOIN_QUAL),
							&node->ss.ps);
	gs->filter = ExecInitQual(gpuhash_plan_exprs(cscan->custom_exprs, &gs->info, GPE_FILTER),
							  &node->ss.ps);
	gs->gate = ExecInitQual(gpuhash_plan_exprs(cscan->custom_exprs, &gs->info, GPE_GATE),
							&node->ss.ps);
	/*
	 * A parent that reads no column of the joined rows (count(*) over the
	 * join), and no join filter or filter that would: each match comes out
	 * as the same empty row, and the scan tuple is never formed (executor.c).
	 */
	gs->forms_no_rows = cscan->scan.plan.targetlist == NIL && gs->qual == NULL &&
		gs->filter == NULL && node->ss.ps.ps_ProjInfo != NULL;
	gs->key_econtext = CreateExprContext(estate);
	gs->fp_mask = gpuhash_fingerprint_bits >= 64 ? ~UINT64CONST(0) :
		(UINT64CONST(1) << gpuhash_fingerprint_bits) - 1;
	gs->fill_outer = gs->info.jointype == JOIN_LEFT || gs->info.jointype == JOIN_FULL ||
		gs->info.jointype == JOIN_ANTI;
	gs->marks_only = gs->info.jointype == GPUHASH_JOIN_RIGHT_SEMI ||
		gs->info.jointype == GPUHASH_JOIN_RIGHT_ANTI;
	gs->fill_matched = gs->info.jointype == GPUHASH_JOIN_RIGHT_SEMI;
	gs->fill_inner = gs->info.jointype == JOIN_RIGHT || gs->info.jointype == JOIN_FULL ||
		gs->marks_only;
	/* ... and, with no unmatched row to emit, no turn of the state machine */
	gs->bare_matches = gs->forms_no_rows && !gs->fill_outer && !gs->fill_inner;

	gs->cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuHashJoin",
									ALLOCSET_DEFAULT_SIZES);
	gs->cleanup.func = cleanup_callback;
	gs->cleanup.arg = gs;
	MemoryContextRegisterResetCallback(gs->cxt, &gs->cleanup);

	/* a parallel-aware node's table belongs to its shared state (parallel.c) */
	gpuhash_table_set_owns(gs, true);
	if (gs->n_inner_keep > 0)
	{
		TupleDesc	child = gs->inner_ps ? ExecGetResultType(gs->inner_ps) :
			ExecTypeFromTL(gs->inner_plan->targetlist);

		gs->inner_desc = CreateTemplateTupleDesc(gs->n_inner_keep);
		for (int k = 0; k < gs->n_inner_keep; k++)
			TupleDescCopyEntry(gs->inner_desc, k + 1, child, gs->inner_keep[k] + 1);
	}
	gpuhash_inner_begin(gs);
	/* the outer columns as a tuple: spilled outer rows (batch.c) */
	{
		TupleDesc	child = gs->outer_ps ? ExecGetResultType(gs->outer_ps) :
			ExecTypeFromTL(linitial_node(SeqScan, cscan->custom_plans)->scan.plan.targetlist);
		int			nmax = Max(Max(gs->n_outer_keep, gs->n_inner_keep), 1);

		gs->outer_desc = CreateTemplateTupleDesc(gs->n_outer_keep);
		for (int k = 0; k < gs->n_outer_keep; k++)
			TupleDescCopyEntry(gs->outer_desc, k + 1, child, gs->outer_keep[k] + 1);
		gs->ident_keep = palloc(sizeof(int) * nmax);
		for (int k = 0; k < nmax; k++)
			gs->ident_keep[k] = k;
		gpuhash_rows_begin(gs, nmax);
	}
	gpuhash_batches_begin(gs, estate);

	gpuhash_probe_begin(gs);
	gpuhash_step_begin(gs);

	/* a GpuHashJoin below: perhaps one chain with it (chain.c) */
	gpuhash_chain_init(gs);

	/* the absorbed outer scan's pages to the page walker (page_scan.c) */
	if (gs->oscan)
		gpuhash_page_setup(gs, linitial_node(SeqScan, cscan->custom_plans), estate);
	/* and the absorbed inner scan's (page_inner.c) */
	if (gs->iscan)
		gpuhash_page_inner_setup(gs, castNode(SeqScan, gs->inner_plan), estate);
}
