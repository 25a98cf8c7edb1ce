/*-------------------------------------------------------------------------
 *
 * agg_join_tlist.c
 *	  Where a column of the inner side lies in an inner plan's output: the
 *	  base relation's column a target list entry is, followed through the
 *	  references setrefs leaves (agg_join_compile.c's inner columns, and
 *	  agg_star.c's dimensions').
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"

/*
 * The base relation's column a target list entry of plan p is, followed
 * through the OUTER_VAR and INNER_VAR references setrefs leaves in joins,
 * hashes, sorts and projections, and the INDEX_VAR ones of scans with a scan
 * tlist (a GpuHashJoin's custom_scan_tlist, a foreign join's, an index-only
 * scan's); false if it is not a plain column.
 */
static bool
trace_column(Plan *p, Expr *e, Index *varno, AttrNumber *attno)
{
	while (e != NULL && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	if (e == NULL || !IsA(e, Var) || ((Var *) e)->varlevelsup != 0)
		return false;
	if (((Var *) e)->varno == OUTER_VAR || ((Var *) e)->varno == INNER_VAR)
	{
		Var		   *v = (Var *) e;
		Plan	   *c = v->varno == OUTER_VAR ? outerPlan(p) : innerPlan(p);

		if (c == NULL || v->varattno < 1 || v->varattno > list_length(c->targetlist))
			return false;
		return trace_column(c, list_nth_node(TargetEntry, c->targetlist, v->varattno - 1)->expr,
							varno, attno);
	}
	if (((Var *) e)->varno == INDEX_VAR)
	{
		/* a scan that outputs through its own scan tlist (a GpuHashJoin) */
		Var		   *v = (Var *) e;
		List	   *stl = NIL;

		if (IsA(p, CustomScan))
			stl = ((CustomScan *) p)->custom_scan_tlist;
		else if (IsA(p, ForeignScan))
			stl = ((ForeignScan *) p)->fdw_scan_tlist;
		else if (IsA(p, IndexOnlyScan))
			stl = ((IndexOnlyScan *) p)->indextlist;
		if (v->varattno < 1 || v->varattno > list_length(stl))
			return false;
		return trace_column(p, list_nth_node(TargetEntry, stl, v->varattno - 1)->expr,
							varno, attno);
	}
	if (IS_SPECIAL_VARNO(((Var *) e)->varno))
		return false;
	*varno = ((Var *) e)->varno;
	*attno = ((Var *) e)->varattno;
	return true;
}

/* Var v of the inner side: its position in the inner plan's output, or 0. */
int
gpuhash_agg_join_tlpos(Plan *inner, const Var *v)
{
	ListCell   *lc;

	foreach(lc, inner->targetlist)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		Index		varno;
		AttrNumber	attno;

		if (trace_column(inner, te->expr, &varno, &attno) &&
			varno == v->varno && attno == v->varattno)
			return te->resno;
	}
	return 0;
}
