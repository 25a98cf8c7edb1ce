/*-------------------------------------------------------------------------
 *
 * plan.c
 *	  PlanCustomPath of a GpuHashJoin path: the CustomScan, its children
 *	  (custom_plans), its custom_scan_tlist (the outer child's target list
 *	  followed by the inner child's), and custom_exprs and custom_private
 *	  laid out by plan_info.c.
 *
 *-------------------------------------------------------------------------
 */
#include "planner_int.h"

#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"

static List *
append_tlist(List *dst, List *src)
{
	ListCell   *lc;

	foreach(lc, src)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		dst = lappend(dst, makeTargetEntry(copyObject(tle->expr),
										   list_length(dst) + 1, NULL, false));
	}
	return dst;
}

/* A Seq Scan whose target list is plain columns of its relation? */
static bool
plain_seqscan(Plan *plan)
{
	ListCell   *lc;

	if (!IsA(plan, SeqScan))
		return false;
	foreach(lc, plan->targetlist)
	{
		Var		   *v = (Var *) lfirst_node(TargetEntry, lc)->expr;

		if (!IsA(v, Var) || v->varno != ((Scan *) plan)->scanrelid || v->varattno <= 0)
			return false;
	}
	return true;
}

Plan *
gpuhash_plan_gpu_join(PlannerInfo *root, RelOptInfo *rel, struct CustomPath *best_path,
			  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *outer_plan = linitial(custom_plans);
	Plan	   *inner_plan = lsecond(custom_plans);
	List	   *priv = best_path->custom_private;
	List	   *other_rinfos = gpuhash_path_private(priv, GPP_OTHER_RINFOS);
	List	   *pushed_rinfos = gpuhash_path_private(priv, GPP_PUSHED_RINFOS);
	GpuJoinPlanInfo info;
	List	   *quals = NIL;
	List	   *filter = NIL;
	List	   *gate = NIL;
	ListCell   *lc;

	gpuhash_deform_private(gpuhash_path_private(priv, GPP_PLAN_INFO), &info);
	info.n_outer_cols = list_length(outer_plan->targetlist);

	/* an absorbed scan must have become a Seq Scan of plain columns */
	info.outer_scan = info.outer_scan && plain_seqscan(outer_plan);
	info.inner_scan = info.inner_scan && plain_seqscan(inner_plan);

	/*
	 * Every clause that is not the hash key is checked per match; an outer
	 * join's pushed-down clauses filter the joined rows.  Pseudoconstants
	 * (no Vars, not volatile) decide once for the whole scan, as the gating
	 * Result createplan.c puts over other joins.
	 */
	foreach(lc, other_rinfos)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->pseudoconstant)
			gate = lappend(gate, rinfo->clause);
		else
			quals = lappend(quals, rinfo->clause);
	}
	foreach(lc, list_concat_copy(pushed_rinfos, clauses))
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->pseudoconstant)
			gate = lappend(gate, rinfo->clause);
		else
			filter = lappend(filter, rinfo->clause);
	}

	/*
	 * The join filter and the filter ride in custom_exprs after the keys
	 * rather than in plan.qual, so EXPLAIN shows them with table prefixes.
	 */
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = gpuhash_form_exprs(&info,
											 gpuhash_path_private(priv, GPP_OUTER_KEYS),
											 gpuhash_path_private(priv, GPP_INNER_KEYS),
											 quals, filter, gate);
	cscan->custom_private = gpuhash_form_private(&info);
	cscan->custom_scan_tlist = append_tlist(append_tlist(NIL, outer_plan->targetlist),
											inner_plan->targetlist);
	cscan->methods = &gpuhash_scan_methods;
	return &cscan->scan.plan;
}
