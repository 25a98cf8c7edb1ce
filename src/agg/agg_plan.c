/*-------------------------------------------------------------------------
 *
 * agg_plan.c
 *	  PlanCustomPath of a GpuPreAgg path: one absorbed heap scan whose
 *	  partial aggregates the node computes (layout in agg_plan.h), and the
 *	  scan methods registered so that parallel workers can copy the plan.
 *
 *	  The quals are the relation's restriction clauses, ordered as a Seq
 *	  Scan's.  setrefs fixes a CustomScan's quals against custom_scan_tlist
 *	  when it has one (set_customscan_references), so the columns they read
 *	  are added to that list as junk entries, and
 *	  gpuhash_preagg_scan_quals() maps them back to the relation's Vars.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "agg_plan.h"
#include "agg_resident.h"
#include "planner/planner_int.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"

static Plan *plan_preagg(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
						 List *tlist, List *clauses, List *custom_plans);
static List *inner_outputs(Index relid, List *custom_plans);

CustomPathMethods gpuhash_preagg_path_methods = {
	.CustomName = "GpuPreAgg",
	.PlanCustomPath = plan_preagg,
};

CustomScanMethods gpuhash_preagg_scan_methods = {
	.CustomName = "GpuPreAgg",
	.CreateCustomScanState = gpuhash_preagg_create_state,
};

static Plan *
plan_preagg(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
			List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	PathTarget *target = best_path->path.pathtarget;
	Index		relid = intVal(linitial(best_path->custom_private));
	RelOptInfo *baserel = find_base_rel(root, relid);
	List	   *quals = gpuhash_order_quals(root, baserel->baserestrictinfo);
	List	   *scan_tlist = NIL;
	List	   *out_tlist = NIL;
	List	   *exprs = NIL;
	int			ngroupcols = 0;
	int			i = 0;
	ListCell   *lc;

	/*
	 * The path's target, labelled as core labels it (build_path_tlist), in
	 * both lists: setrefs turns each output entry into an INDEX_VAR Var of
	 * its scan entry, and matches the parent's Aggrefs against these.
	 */
	foreach(lc, target->exprs)
	{
		Expr	   *e = lfirst(lc);
		TargetEntry *tle;

		tle = makeTargetEntry(copyObject(e), i + 1, NULL, false);
		tle->ressortgroupref = get_pathtarget_sortgroupref(target, i);
		/* the group columns lead; a carried column (agg_join_carry.c) is none */
		if (!IsA(e, Aggref) && tle->ressortgroupref != 0 && root->parse->groupClause != NIL &&
			get_sortgroupref_clause_noerr(tle->ressortgroupref, root->parse->groupClause) != NULL)
			ngroupcols++;
		out_tlist = lappend(out_tlist, tle);
		scan_tlist = lappend(scan_tlist, makeTargetEntry(copyObject(e), i + 1, NULL, false));
		i++;
	}
	/*
	 * The columns the quals read, beyond the group columns, and over a join
	 * those the keys and further clauses read (set_customscan_references
	 * fixes custom_exprs against custom_scan_tlist too): junk.
	 */
	if (list_length(best_path->custom_private) > 1)
		exprs = list_concat(list_concat(copyObject(lsecond(best_path->custom_private)),
										copyObject(lthird(best_path->custom_private))),
							copyObject(lfourth(best_path->custom_private)));
	foreach(lc, list_concat(pull_var_clause((Node *) quals, 0),
							pull_var_clause((Node *) exprs, 0)))
	{
		Var		   *v = lfirst(lc);

		if (tlist_member((Expr *) v, scan_tlist) == NULL)
			scan_tlist = lappend(scan_tlist,
								 makeTargetEntry((Expr *) copyObject(v),
												 list_length(scan_tlist) + 1, NULL, true));
	}

	cscan->scan.plan.targetlist = out_tlist;
	cscan->scan.plan.qual = quals;
	cscan->scan.scanrelid = relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_make1(makeInteger(ngroupcols));
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_relids = bms_make_singleton(relid);
	cscan->methods = &gpuhash_preagg_scan_methods;

	/*
	 * Over a join (agg_join_paths.c): the inner plan, built with its path's
	 * target (CP_EXACT_TLIST), and the keys of both sides and the further
	 * clauses as bare expressions; core sets custom_relids to R's and the
	 * inner side's.
	 */
	if (exprs != NIL)
	{
		Assert(list_length(custom_plans) >= 1);
		cscan->custom_plans = custom_plans;
		cscan->custom_exprs = exprs;
		cscan->custom_private =
			list_make3(makeInteger(ngroupcols),
					   makeInteger(list_length(lsecond(best_path->custom_private))),
					   makeInteger(list_length(best_path->custom_private) > 4 &&
								   intVal(list_nth(best_path->custom_private, 4))));
		/* GPUHASH_PREAGG_PRIV_PRESERVE_INNER: the path's sixth (agg_join_paths.c) */
		cscan->custom_private = lappend(cscan->custom_private,
										makeInteger(list_length(best_path->custom_private) > 5 &&
													intVal(list_nth(best_path->custom_private, 5))));
		cscan->custom_private = lappend(cscan->custom_private,
										inner_outputs(relid, custom_plans));
		/* a star's dimensions (agg_star_paths.c): its tag, as the path has it */
		if (gpuhash_preagg_star_of(best_path->custom_private) != NIL)
			cscan->custom_private = lappend(cscan->custom_private,
											copyObject(gpuhash_preagg_star_of(best_path->custom_private)));
	}

	/*
	 * The HAVING conjuncts the resident set applies, over R's aggregates
	 * (agg_having.c): over one relation or an inner join, never over an
	 * outer join, whose unmatched inner rows are folded beside the set.
	 */
	if (exprs == NIL ||
		!intVal(list_nth(cscan->custom_private, GPUHASH_PREAGG_PRIV_PRESERVE_INNER)))
		gpuhash_preagg_plan_having(root, cscan, target);
	return &cscan->scan.plan;
}

/*
 * Which column of the query each inner plan outputs where (agg_plan.h), read
 * now because setrefs may remove a plan level whose output the node names:
 * a trivial subquery scan or a one-child Append leaves its child, whose
 * output has the same positions but the child's columns.
 */
static List *
inner_outputs(Index relid, List *custom_plans)
{
	List	   *out = list_make2(makeString(GPUHASH_PREAGG_OUTPUTS_TAG), makeInteger(relid));
	ListCell   *lp;

	foreach(lp, custom_plans)
	{
		List	   *varnos = NIL;
		List	   *attnos = NIL;
		ListCell   *lc;

		foreach(lc, ((Plan *) lfirst(lp))->targetlist)
		{
			Expr	   *e = lfirst_node(TargetEntry, lc)->expr;
			bool		plain;

			while (e != NULL && IsA(e, RelabelType))
				e = ((RelabelType *) e)->arg;
			plain = e != NULL && IsA(e, Var) && ((Var *) e)->varlevelsup == 0 &&
				!IS_SPECIAL_VARNO(((Var *) e)->varno);
			varnos = lappend_int(varnos, plain ? (int) ((Var *) e)->varno : 0);
			attnos = lappend_int(attnos, plain ? (int) ((Var *) e)->varattno : 0);
		}
		out = lappend(lappend(out, varnos), attnos);
	}
	return out;
}

/*
 * Var v's 1-based position in inner plan d's output, or 0.  setrefs moved
 * every range table index of the plan by one offset, the scanned
 * relation's too, so the offset is read from it.
 */
int
gpuhash_preagg_inner_pos(const CustomScan *cscan, int d, const Var *v)
{
	ListCell   *lc;

	foreach(lc, cscan->custom_private)
	{
		List	   *l = lfirst(lc);
		int			offset;
		List	   *varnos;
		List	   *attnos;

		if (l == NIL || !IsA(l, List) || list_length(l) < 2 || !IsA(linitial(l), String) ||
			strcmp(strVal(linitial(l)), GPUHASH_PREAGG_OUTPUTS_TAG) != 0)
			continue;
		if (list_length(l) < 2 + 2 * (d + 1))
			elog(ERROR, "gpuhash: GpuPreAgg has no output map of inner plan %d", d);
		offset = (int) cscan->scan.scanrelid - intVal(lsecond(l));
		varnos = list_nth(l, 2 + 2 * d);
		attnos = list_nth(l, 3 + 2 * d);
		for (int i = 0; i < list_length(varnos); i++)
			if (list_nth_int(varnos, i) != 0 &&
				list_nth_int(varnos, i) + offset == (int) v->varno &&
				list_nth_int(attnos, i) == v->varattno)
				return i + 1;
		return 0;
	}
	elog(ERROR, "gpuhash: GpuPreAgg over a join without its inner output map");
	return 0;
}

int
gpuhash_preagg_ngroupcols(const CustomScan *cscan)
{
	return intVal(list_nth(cscan->custom_private, GPUHASH_PREAGG_PRIV_NGROUPCOLS));
}

/* The join's key columns: 0 for a GpuPreAgg over one relation. */
int
gpuhash_preagg_njoinkeys(const CustomScan *cscan)
{
	if (list_length(cscan->custom_private) <= GPUHASH_PREAGG_PRIV_NJOINKEYS)
		return 0;
	return intVal(list_nth(cscan->custom_private, GPUHASH_PREAGG_PRIV_NJOINKEYS));
}

/* The node's output columns: group columns and partial aggregates. */
int
gpuhash_preagg_noutputs(const CustomScan *cscan)
{
	return list_length(cscan->scan.plan.targetlist);
}

static Node *
scan_var_mutator(Node *node, void *context)
{
	List	   *scan_tlist = context;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
	{
		Var		   *v = (Var *) node;

		if (v->varattno < 1 || v->varattno > list_length(scan_tlist))
			elog(ERROR, "gpuhash: GpuPreAgg expression column %d out of range", v->varattno);
		return copyObject((Node *) list_nth_node(TargetEntry, scan_tlist, v->varattno - 1)->expr);
	}
	return expression_tree_mutator(node, scan_var_mutator, context);
}

/*
 * node with every Var that setrefs pointed at custom_scan_tlist (INDEX_VAR)
 * that entry's expression again.
 */
Node *
gpuhash_preagg_unindex(Node *node, const CustomScan *cscan)
{
	return scan_var_mutator(node, cscan->custom_scan_tlist);
}

/*
 * The plan's quals over the relation's own Vars (varno scanrelid), as the
 * scan program's compiler and ExecQual over the heap tuple want them.
 */
List *
gpuhash_preagg_scan_quals(const CustomScan *cscan)
{
	return (List *) scan_var_mutator((Node *) cscan->scan.plan.qual,
									 cscan->custom_scan_tlist);
}

/* The star's entry of custom_private (a path's or a plan's; agg_plan.h), or NIL. */
List *
gpuhash_preagg_star_of(const List *custom_private)
{
	ListCell   *lc;

	foreach(lc, custom_private)
	{
		List	   *l = lfirst(lc);

		/* a path's entries may be NIL (no clauses) */
		if (l != NIL && IsA(l, List) && list_length(l) >= 2 && IsA(linitial(l), String) &&
			strcmp(strVal(linitial(l)), GPUHASH_PREAGG_STAR_TAG) == 0)
			return l;
	}
	return NIL;
}
