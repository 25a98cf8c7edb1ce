/*-------------------------------------------------------------------------
 *
 * agg_join_compile.c
 *	  GpuPreAgg over an inner join: what the joined plan says (agg_plan.h:
 *	  the inner plan in custom_plans, the key and further join clauses in
 *	  custom_exprs), the inner side's columns the node reads, and the
 *	  programs: the join key in the scan program's key[] (packed as the
 *	  join's page path packs exact keys), the inner columns as
 *	  GH_AGG_INNER_COL0 + j, the join qual and the aggregates' conditions in
 *	  the aggregation program's insn[] (gpu_qual.c's compiler, its Vars
 *	  mapped); and the same clauses as ExprStates for the CPU's join.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"
#include "agg_plan.h"
#include "agg_qual.h"

#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"

int
gpuhash_agg_join_col(GpuAggJoin *j, const Var *v)
{
	for (int c = 0; c < j->ncols; c++)
		if (j->cols[c].varno == v->varno && j->cols[c].varattno == v->varattno)
			return c;
	/* a star's further dimensions (agg_star.c) */
	if (j->ndims > 1)
		return gpuhash_agg_star_col(j, v);
	return -1;
}

/* Every Var of the inner side (not scanrelid) in node, as a column of j. */
static void
add_inner_cols(GpuAggJoin *j, Node *node, Index scanrelid)
{
	ListCell   *lc;

	foreach(lc, pull_var_clause(node, PVC_RECURSE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS))
	{
		Var		   *v = lfirst(lc);
		GpuAggInnerCol *c;

		if (v->varno == scanrelid || v->varlevelsup != 0 || gpuhash_agg_join_col(j, v) >= 0)
			continue;
		if (IS_SPECIAL_VARNO(v->varno))
			elog(ERROR, "gpuhash: a GpuPreAgg join expression reads special Var %d", v->varno);
		j->cols = repalloc(j->cols, sizeof(GpuAggInnerCol) * (j->ncols + 1));
		c = &j->cols[j->ncols++];
		c->varno = v->varno;
		c->varattno = v->varattno;
		c->type = v->vartype;
		c->tlpos = gpuhash_preagg_inner_pos(j->cscan, 0, v);
		if (c->tlpos == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpuhash: GpuPreAgg's inner plan does not output column %d of range table entry %u",
							v->varattno, v->varno)));
		c->gtype = gpuhash_qual_col_type(v->vartype);
		get_typlenbyval(v->vartype, &c->typlen, &c->byval);
	}
}

/*
 * The joined plan's parts and the inner plan's state; NULL for a plan
 * without a join.  The inner plan runs whole in every participant (it is
 * not parallel-aware), at the first fetch (agg_join.c).
 */
GpuAggJoin *
gpuhash_agg_join_init(GpuPreAggState *as, CustomScan *cscan, EState *estate, int eflags)
{
	Index		scanrelid = cscan->scan.scanrelid;
	List	   *tlist = cscan->custom_scan_tlist;
	List	   *exprs;
	Plan	   *inner;
	GpuAggJoin *j;
	ListCell   *lc;
	int			nk;

	if (list_length(cscan->custom_private) <= GPUHASH_PREAGG_PRIV_NJOINKEYS ||
		(nk = intVal(list_nth(cscan->custom_private, GPUHASH_PREAGG_PRIV_NJOINKEYS))) == 0)
		return NULL;
	/* several dimensions (agg_star.c) */
	if (gpuhash_preagg_star_of(cscan->custom_private) != NIL)
		return gpuhash_agg_star_init(as, cscan, estate, eflags);
	if (nk < 0 || list_length(cscan->custom_plans) != 1 ||
		list_length(cscan->custom_exprs) < 2 * nk)
		elog(ERROR, "gpuhash: a joined GpuPreAgg with %d join keys, %d expressions and %d plans",
			 nk, list_length(cscan->custom_exprs), list_length(cscan->custom_plans));
	j = palloc0(sizeof(GpuAggJoin));
	j->cscan = cscan;
	j->njoinkeys = nk;
	j->shared_plan = list_length(cscan->custom_private) > GPUHASH_PREAGG_PRIV_SHARED_DIM &&
		intVal(list_nth(cscan->custom_private, GPUHASH_PREAGG_PRIV_SHARED_DIM)) != 0;
	j->preserve_inner = gpuhash_agg_outer_planned(cscan, j);
	exprs = (List *) gpuhash_preagg_unindex((Node *) cscan->custom_exprs, cscan);
	j->outer_keys = list_copy_head(exprs, nk);
	j->inner_keys = list_copy_head(list_copy_tail(exprs, nk), nk);
	j->join_quals = list_copy_tail(exprs, 2 * nk);
	j->outer_conv = palloc(sizeof(GpuKeyConv) * nk);
	j->inner_conv = palloc(sizeof(GpuKeyConv) * nk);
	j->width = palloc(sizeof(int) * nk);
	for (int k = 0; k < nk; k++)
	{
		Oid			ot = getBaseType(exprType(list_nth(j->outer_keys, k)));
		Oid			it = getBaseType(exprType(list_nth(j->inner_keys, k)));

		/* the planner took the clause as an exact key (keys.c) */
		if (!gpuhash_conv_for_type(ot, &j->outer_conv[k]) ||
			!gpuhash_conv_for_type(it, &j->inner_conv[k]) ||
			j->outer_conv[k] == GPUKEY_HASH || j->inner_conv[k] == GPUKEY_HASH)
			elog(ERROR, "gpuhash: a GpuPreAgg join key of types %u and %u is not exact", ot, it);
		j->width[k] = Max(gpuhash_conv_width(j->outer_conv[k]),
						  gpuhash_conv_width(j->inner_conv[k]));
	}

	inner = linitial(cscan->custom_plans);
	j->inner_ps = ExecInitNode(inner, estate, eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK));
	as->css.custom_ps = list_make1(j->inner_ps);
	j->row_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(j->inner_ps),
										 &TTSOpsMinimalTuple);

	/* the inner columns the group keys, aggregates and clauses read */
	j->cols = palloc(sizeof(GpuAggInnerCol));
	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		/*
		 * junk entries: the quals' and join clauses' columns, not the
		 * node's; carried columns: read from the inner rows by the CPU
		 */
		if (!tle->resjunk &&
			(foreach_current_index(lc) < as->nkeys || IsA(tle->expr, Aggref)))
			add_inner_cols(j, (Node *) tle->expr, scanrelid);
	}
	j->carry = gpuhash_agg_carry_init(as, cscan, estate, ExecGetResultType(j->inner_ps));
	add_inner_cols(j, (Node *) j->join_quals, scanrelid);
	j->rows_cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuPreAgg inner rows",
										ALLOCSET_DEFAULT_SIZES);
	return j;
}

/* The columns of a compile: the scanned relation's, or a dimension's. */
static int
dim_col(const Var *v, void *arg, gh_col_type *type)
{
	GpuAggJoin *j = arg;
	int			c = gpuhash_agg_join_col(j, v);

	if (c < 0 || c >= GH_AGG_MAX_INNER)
		return -1;
	*type = j->ndims > 1 ? gpuhash_agg_star_col_type(j, c) : j->cols[c].gtype;
	return GH_AGG_INNER_COL0 + c;
}

/* An operand: the scanned relation's column attno, or an inner Var's. */
static int16
operand_col(GpuAggJoin *j, AttrNumber attno, const Var *inner)
{
	if (inner != NULL)
		return (int16) (GH_AGG_INNER_COL0 + gpuhash_agg_join_col(j, inner));
	return attno > 0 ? attno - 1 : 0;
}

/* The walker's type of an integer constant's type. */
static uint8
const_gtype(Oid t)
{
	return (uint8) gpuhash_qual_col_type(t);
}

/*
 * The aggregation program's join (ap's keys and aggregates filled as for a
 * plan without one, their inner operands still to map) and the scan
 * program's join key; as->why_cpu where the GPU cannot take it.
 */
void
gpuhash_agg_join_compile(GpuPreAggState *as, gh_agg_prog *ap)
{
	GpuAggJoin *j = as->join;
	gh_page_scan *s = as->pp.prog.scan;
	Index		scanrelid = ((Scan *) as->css.ss.ps.plan)->scanrelid;

	/* a star's dimensions come from their plans' rows, as they are */
	if (j->ndims <= 1)
		gpuhash_agg_join_pages_plan(as);
	if (j->pages == NULL && j->ndims <= 1)
		gpuhash_agg_join_conds_plan(as);
	if (j->ncols > GH_AGG_MAX_INNER)
	{
		as->why_cpu = "more inner columns than the GPU's dimension holds";
		return;
	}
	for (int c = 0; c < j->ncols; c++)
	{
		if (j->cols[c].gtype == GH_T_SKIP)
		{
			as->why_cpu = "an inner column of a type the GPU does not read";
			return;
		}
		ap->join.inner_type[c] = (uint8) j->cols[c].gtype;
	}
	ap->join.ninner = (int16) Max(j->ncols, 1);
	if (j->ncols == 0)
	{
		/* the dimension holds one column at least: the first key's */
		ap->join.inner_type[0] = GH_T_INT8;
	}
	/* a star: every dimension's columns and keys (agg_star.c) */
	if (j->ndims > 1 && !gpuhash_agg_star_compile(as, ap))
		return;
	if (s->nkeys != j->njoinkeys)
	{
		as->why_cpu = "a join key the walker does not read";
		return;
	}
	for (int k = 0; k < as->nkeys; k++)
		if (as->key_attno[k] == 0)
			ap->key[k].col = operand_col(j, 0, as->key_inner[k]);
	for (int a = 0; a < as->naggs; a++)
	{
		GpuAggSupport *g = &as->aggs[a];
		gh_agg_spec *sp = &ap->agg[a];

		sp->col = operand_col(j, g->attno[0], g->inner_var[0]);
		sp->col2 = operand_col(j, g->attno[1], g->inner_var[1]);
		sp->col3 = operand_col(j, g->attno[2], g->inner_var[2]);
		if (g->expr == GH_AGG_E_CONST)
		{
			sp->konst = g->konst;
			sp->type = const_gtype(g->const_type);
			sp->col = 0;
		}
		if (g->cond != NULL)
		{
			int16_t		start = ap->ninsns;

			if (!gpuhash_agg_join_cond_insns(j, a, ap) &&
				!gpuhash_qual_compile_into(s, as->os->desc, scanrelid,
										   list_make1(g->cond), dim_col, j,
										   ap->insn, &ap->ninsns, GH_AGG_MAX_INSNS))
			{
				as->why_cpu = "an aggregate's condition the GPU does not take";
				return;
			}
			sp->cond_start = start;
			sp->cond_len = ap->ninsns - start;
			sp->else_kind = g->else_kind;
		}
	}
	ap->join.jq_start = ap->ninsns;
	if (!gpuhash_qual_compile_into(s, as->os->desc, scanrelid, j->join_quals, dim_col, j,
								   ap->insn, &ap->ninsns, GH_AGG_MAX_INSNS))
	{
		as->why_cpu = "a join clause the GPU does not take";
		return;
	}
	ap->join.jq_len = ap->ninsns - ap->join.jq_start;
	/* an outer join: which inner rows matched (agg_join_outer.c) */
	if (j->preserve_inner)
		ap->join.flags |= GH_AGG_JOIN_MARK;
}

/* Inner Vars as INNER_VAR Vars of the inner plan's output; INDEX_VARs unindexed. */
static Node *
cpu_form_mutator(Node *node, GpuPreAggState *as)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varno != ((Scan *) as->css.ss.ps.plan)->scanrelid)
	{
		Var		   *v = copyObject((Var *) node);
		int			pos = gpuhash_preagg_inner_pos(as->join->cscan, 0, v);

		if (pos == 0)
			elog(ERROR, "gpuhash: GpuPreAgg's inner plan does not output column %d of %u",
				 v->varattno, v->varno);
		v->varno = INNER_VAR;
		v->varattno = pos;
		return (Node *) v;
	}
	return expression_tree_mutator(node, cpu_form_mutator, as);
}

static ExprState *
cpu_expr(GpuPreAggState *as, Node *e)
{
	return ExecInitExpr((Expr *) cpu_form_mutator(e, as), &as->css.ss.ps);
}

static ExprState *
cpu_tlist_expr(GpuPreAggState *as, Node *e, void *arg)
{
	return cpu_expr(as, e);
}

/*
 * The group columns' and the aggregates' arguments' ExprStates of the CPU's
 * join (a star's too: agg_star_cpu.c), each expression formed by form.
 */
void
gpuhash_agg_join_tlist_states(GpuPreAggState *as, CustomScan *cscan, GpuAggFormExpr form,
							  void *arg)
{
	GpuAggJoin *j = as->join;
	ListCell   *lc;
	int			a = 0;

	j->group_states = palloc0(sizeof(ExprState *) * Max(as->nkeys, 1));
	j->arg_states = palloc0(sizeof(ExprState *) * Max(as->naggs, 1));
	foreach(lc, cscan->custom_scan_tlist)
	{
		Expr	   *e = lfirst_node(TargetEntry, lc)->expr;
		int			k = foreach_current_index(lc);

		if (k < as->nkeys)
			j->group_states[k] = form(as, (Node *) e, arg);
		else if (IsA(e, Aggref))
		{
			Aggref	   *ag = (Aggref *) e;

			if (as->aggs[a].fn != GH_AGG_COUNT_STAR)
				j->arg_states[a] = form(as, (Node *) linitial_node(TargetEntry, ag->args)->expr,
										arg);
			a++;
		}
	}
}

/*
 * The ExprStates of the CPU's join over one dimension (a star's:
 * agg_star_cpu.c): keys, clauses, group columns, arguments.
 * Their scan tuple is the relation's heap tuple (the absorbed scan's slot),
 * not the node's virtual scan slot: the scan slot settings the expression
 * compiler reads are lent meanwhile, as gpuhash_heap_qual_init lends them.
 */
void
gpuhash_agg_join_cpu_init(GpuPreAggState *as, CustomScan *cscan)
{
	GpuAggJoin *j = as->join;
	PlanState  *ps = &as->css.ss.ps;
	const TupleTableSlotOps *ops = ps->scanops;
	TupleDesc	scandesc = ps->scandesc;
	bool		fixed = ps->scanopsfixed,
				set = ps->scanopsset;

	ps->scanops = &TTSOpsHeapTuple;
	ps->scandesc = as->os->desc;
	ps->scanopsfixed = ps->scanopsset = true;

	j->inner_key_states = palloc(sizeof(ExprState *) * j->njoinkeys);
	j->outer_key_states = palloc(sizeof(ExprState *) * j->njoinkeys);
	for (int k = 0; k < j->njoinkeys; k++)
	{
		j->inner_key_states[k] = cpu_expr(as, list_nth(j->inner_keys, k));
		j->outer_key_states[k] = cpu_expr(as, list_nth(j->outer_keys, k));
	}
	j->join_qual = ExecInitQual((List *) cpu_form_mutator((Node *) j->join_quals, as),
								&as->css.ss.ps);
	gpuhash_agg_join_tlist_states(as, cscan, cpu_tlist_expr, NULL);
	ps->scanops = ops;
	ps->scandesc = scandesc;
	ps->scanopsfixed = fixed;
	ps->scanopsset = set;
}

/* agg_qual.h: the planner's check of clauses over both sides. */
static int
plan_col(const Var *v, void *arg, gh_col_type *type)
{
	List	  **seen = arg;
	Relids		inner = linitial(*seen);
	ListCell   *lc;
	int			c = 0;

	if (!bms_is_member(v->varno, inner))
		return -1;
	for_each_from(lc, *seen, 1)
	{
		Var		   *w = lfirst(lc);

		if (w->varno == v->varno && w->varattno == v->varattno)
			break;
		c++;
	}
	if (lc == NULL)
		*seen = lappend(*seen, (Var *) v);
	if (c >= GH_AGG_MAX_INNER)
		return -1;
	*type = gpuhash_qual_col_type(v->vartype);
	return GH_AGG_INNER_COL0 + c;
}

bool
gpuhash_agg_qual_compiles(List *clauses, Index scanrelid, Relids inner_relids)
{
	gh_page_scan *s = palloc0(sizeof(gh_page_scan));
	gh_qinsn   *insn = palloc0(sizeof(gh_qinsn) * GH_AGG_MAX_INSNS);
	int16_t		n = 0;
	List	   *seen = list_make1(inner_relids);
	bool		ok;

	ok = gpuhash_qual_compile_into(s, NULL, scanrelid, clauses, plan_col, &seen, insn, &n,
								   GH_AGG_MAX_INSNS);
	pfree(s);
	pfree(insn);
	return ok;
}
