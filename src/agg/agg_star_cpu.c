/*-------------------------------------------------------------------------
 *
 * agg_star_cpu.c
 *	  GpuPreAgg over a star (agg_star.c): the CPU's join of the tuples the
 *	  GPU does not fold, and EXPLAIN.
 *
 *	  The CPU's expressions read a combination of one row of each dimension
 *	  as one virtual tuple, the dimensions' plans' outputs side by side
 *	  (combo_slot, the inner tuple; a dimension's Var is INNER_VAR at its
 *	  dimension's tl_off plus its position), the outer tuple as the scan
 *	  tuple (the heap tuple's slot); a dimension's key is evaluated over its
 *	  own plan's output, as over one dimension.  An outer tuple's
 *	  combinations are those of every dimension's rows of its key (sorted
 *	  by key at the first need, binary search), the first dimension's row
 *	  varying fastest; each one the clauses pass goes out as one partial
 *	  row.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"
#include "agg_plan.h"

#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/ruleutils.h"

typedef struct StarForm
{
	GpuPreAggState *as;
	int			dim;			/* -1: the combination's Vars; else that
								 * dimension's own plan's */
} StarForm;

/* Dimension Vars as INNER_VAR Vars of the combination (or of one dimension's output). */
static Node *
star_form_mutator(Node *node, StarForm *f)
{
	GpuAggJoin *j = f->as->join;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varno != ((Scan *) f->as->css.ss.ps.plan)->scanrelid)
	{
		Var		   *v = copyObject((Var *) node);
		int			d;
		int			pos = 0;

		for (d = 0; d < j->ndims; d++)
			if ((f->dim < 0 || f->dim == d) &&
				(pos = gpuhash_preagg_inner_pos(j->cscan, d, v)) > 0)
				break;
		if (d == j->ndims)
			elog(ERROR, "gpuhash: no dimension of GpuPreAgg outputs column %d of %u",
				 v->varattno, v->varno);
		v->varno = INNER_VAR;
		v->varattno = (f->dim < 0 ? j->dims[d]->tl_off : 0) + pos;
		return (Node *) v;
	}
	return expression_tree_mutator(node, star_form_mutator, f);
}

static ExprState *
star_expr(GpuPreAggState *as, Node *e, int dim)
{
	StarForm	f = {as, dim};

	return ExecInitExpr((Expr *) star_form_mutator(e, &f), &as->css.ss.ps);
}

/* A group column or an aggregate's argument, over the combination. */
static ExprState *
star_tlist_expr(GpuPreAggState *as, Node *e, void *arg)
{
	return star_expr(as, e, -1);
}

/*
 * The ExprStates of the CPU's join, as gpuhash_agg_join_cpu_init makes
 * them over one dimension (the scan slot's settings lent the same way).
 */
void
gpuhash_agg_star_cpu_init(GpuPreAggState *as, CustomScan *cscan)
{
	GpuAggJoin *j = as->join;
	PlanState  *ps = &as->css.ss.ps;
	const TupleTableSlotOps *ops = ps->scanops;
	TupleDesc	scandesc = ps->scandesc;
	bool		fixed = ps->scanopsfixed,
				set = ps->scanopsset;
	StarForm	f = {as, -1};

	ps->scanops = &TTSOpsHeapTuple;
	ps->scandesc = as->os->desc;
	ps->scanopsfixed = ps->scanopsset = true;

	for (int d = 0; d < j->ndims; d++)
	{
		GpuAggJoin *dj = j->dims[d];

		dj->inner_key_states = palloc(sizeof(ExprState *) * dj->njoinkeys);
		dj->outer_key_states = palloc(sizeof(ExprState *) * dj->njoinkeys);
		for (int k = 0; k < dj->njoinkeys; k++)
		{
			dj->inner_key_states[k] = star_expr(as, list_nth(dj->inner_keys, k), d);
			dj->outer_key_states[k] = star_expr(as, list_nth(dj->outer_keys, k), -1);
		}
	}
	j->join_qual = ExecInitQual((List *) star_form_mutator((Node *) j->join_quals, &f), ps);
	gpuhash_agg_join_tlist_states(as, cscan, star_tlist_expr, NULL);
	ps->scanops = ops;
	ps->scandesc = scandesc;
	ps->scanopsfixed = fixed;
	ps->scanopsset = set;
}

/* dj's rows of key: [next_match, end_match); false: none. */
static bool
find_rows(GpuAggJoin *dj, uint64 key)
{
	uint64		lo = gpuhash_agg_join_lower_bound(dj, key);

	dj->next_match = dj->end_match = lo;
	while (dj->end_match < dj->nrows && dj->rows[dj->end_match].key == key)
		dj->end_match++;
	dj->star_pos = dj->next_match;
	return dj->end_match > dj->next_match;
}

/* The next combination (the first where !star_started); false: no more. */
static bool
next_combo(GpuAggJoin *j)
{
	if (j->star_empty)
		return false;
	if (!j->star_started)
	{
		j->star_started = true;
		return true;
	}
	for (int d = 0; d < j->ndims; d++)
	{
		GpuAggJoin *dj = j->dims[d];

		if (++dj->star_pos < dj->end_match)
			return true;
		dj->star_pos = dj->next_match;
	}
	j->star_empty = true;
	return false;
}

/* The combination's rows side by side in combo_slot. */
static void
store_combo(GpuAggJoin *j)
{
	TupleTableSlot *cs = j->combo_slot;

	ExecClearTuple(cs);
	for (int d = 0; d < j->ndims; d++)
	{
		GpuAggJoin *dj = j->dims[d];
		TupleTableSlot *rs = dj->row_slot;
		int			n = rs->tts_tupleDescriptor->natts;

		ExecStoreMinimalTuple(dj->rows[dj->star_pos].tup, rs, false);
		slot_getallattrs(rs);
		memcpy(cs->tts_values + dj->tl_off, rs->tts_values, sizeof(Datum) * n);
		memcpy(cs->tts_isnull + dj->tl_off, rs->tts_isnull, sizeof(bool) * n);
	}
	ExecStoreVirtualTuple(cs);
}

/*
 * gpuhash_agg_join_next_pair over a star: the next combination of t's (a
 * new outer tuple where fresh) that passes the clauses, its rows in
 * combo_slot; false when t has no more.
 */
bool
gpuhash_agg_star_next_pair(GpuPreAggState *as, HeapTuple t, bool fresh)
{
	GpuAggJoin *j = as->join;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;
	TupleTableSlot *hs = as->os->slot;

	if (fresh)
	{
		j->cur = *t;
		ExecStoreHeapTuple(&j->cur, hs, false);
		as->os->slot_row = -1;
		econtext->ecxt_scantuple = hs;
		j->star_started = false;
		j->star_empty = false;
		for (int d = 0; d < j->ndims && !j->star_empty; d++)
		{
			GpuAggJoin *dj = j->dims[d];
			uint64		key;

			gpuhash_agg_join_sort(dj);
			if (!gpuhash_agg_star_key(dj, dj->outer_key_states, dj->outer_conv, econtext, &key) ||
				!find_rows(dj, key))
				j->star_empty = true;
		}
		ResetExprContext(econtext);
	}
	while (next_combo(j))
	{
		store_combo(j);
		econtext->ecxt_scantuple = hs;
		econtext->ecxt_innertuple = j->combo_slot;
		if (j->join_qual == NULL || ExecQual(j->join_qual, econtext))
			return true;
		ResetExprContext(econtext);
	}
	return false;
}

/* EXPLAIN: each dimension's keys, the clauses; ANALYZE: each dimension's build. */
void
gpuhash_agg_star_explain(GpuPreAggState *as, List *context, bool useprefix, ExplainState *es)
{
	GpuAggJoin *j = as->join;
	CustomScan *cscan = (CustomScan *) as->css.ss.ps.plan;
	int			nexprs = 0;

	for (int d = 0; d < j->ndims; d++)
	{
		GpuAggJoin *dj = j->dims[d];
		StringInfoData buf;

		initStringInfo(&buf);
		for (int k = 0; k < dj->njoinkeys; k++)
		{
			Node	   *o = list_nth(cscan->custom_exprs, dj->expr_pos + k);
			Node	   *i = list_nth(cscan->custom_exprs, dj->expr_pos + dj->njoinkeys + k);

			appendStringInfo(&buf, "%s(%s = %s)", k > 0 ? " AND " : "",
							 deparse_expression(o, context, useprefix, false),
							 deparse_expression(i, context, useprefix, false));
		}
		ExplainPropertyText(psprintf("GPU Star Dimension %d", d + 1), buf.data, es);
		nexprs = dj->expr_pos + 2 * dj->njoinkeys;
	}
	if (list_length(cscan->custom_exprs) > nexprs)
		ExplainPropertyText("GPU Join Filter",
							deparse_expression((Node *) make_ands_explicit(list_copy_tail(cscan->custom_exprs,
																						  nexprs)),
											   context, useprefix, false), es);
	if (!es->analyze)
		return;
	for (int d = 0; d < j->ndims; d++)
	{
		ExplainPropertyUInteger(psprintf("Dimension %d Rows", d + 1), NULL,
								j->dims[d]->inner_rows, es);
		if (j->dims[d]->inner_batches > 1)
			ExplainPropertyInteger(psprintf("Dimension %d Batches", d + 1), NULL,
								   j->dims[d]->inner_batches, es);
		ExplainPropertyUInteger(psprintf("Dimension %d Bytes", d + 1), NULL,
								j->dims[d]->dim_bytes, es);
		if (es->timing)
			ExplainPropertyFloat(psprintf("Dimension %d Build Time", d + 1), "ms",
								 j->dims[d]->build_ms, 3, es);
	}
}
