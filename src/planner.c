/*-------------------------------------------------------------------------
 *
 * planner.c
 *	  Offers a GpuHashJoin custom path for inner equi-joins, and turns the
 *	  chosen path into a CustomScan plan.
 *
 * For every (outer, inner) pair the planner considers, the hook looks for
 * hashable `=` clauses between the two sides whose keys map exactly to 64
 * bits (keys.c); as many as pack into one 64-bit key become the hash key,
 * every other clause is checked on the CPU after a match.  The path costs
 * the inner side, a fixed setup, a cost per inner row kept and
 * per outer row probed, and the usual per-output-row costs, so that the
 * planner keeps PostgreSQL's own join where that is cheaper.
 *
 * The plan's children are the outer and inner plans (custom_plans), its
 * custom_scan_tlist is the outer child's target list followed by the inner
 * child's, so an INDEX_VAR column k refers to outer column k or inner column
 * k - n_outer.  custom_exprs holds the outer key expressions, the inner key
 * expressions, then the other join clauses (implicitly ANDed).
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"

static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

static Plan *plan_gpu_join(PlannerInfo *root, RelOptInfo *rel,
						   struct CustomPath *best_path, List *tlist,
						   List *clauses, List *custom_plans);

static const CustomPathMethods gpuhash_path_methods = {
	.CustomName = GPUHASH_NODE_NAME,
	.PlanCustomPath = plan_gpu_join,
};

CustomScanMethods gpuhash_scan_methods = {
	.CustomName = GPUHASH_NODE_NAME,
	.CreateCustomScanState = gpuhash_create_scan_state,
};

/* ---------------------------------------------------------------------
 * custom_private: a list of Integers, so copyObject and nodeToString work:
 * n_outer_cols, scheme, nkeys, then (outer_conv, inner_conv, width) per key.
 * --------------------------------------------------------------------- */

List *
gpuhash_form_private(const GpuJoinPlanInfo *info)
{
	List	   *l = list_make3(makeInteger(info->n_outer_cols),
							   makeInteger(info->scheme),
							   makeInteger(info->nkeys));

	for (int i = 0; i < info->nkeys; i++)
	{
		l = lappend(l, makeInteger(info->keys[i].outer_conv));
		l = lappend(l, makeInteger(info->keys[i].inner_conv));
		l = lappend(l, makeInteger(info->keys[i].width));
	}
	return l;
}

void
gpuhash_deform_private(List *priv, GpuJoinPlanInfo *info)
{
	int			pos = 0;

	info->n_outer_cols = intVal(list_nth(priv, pos++));
	info->scheme = intVal(list_nth(priv, pos++));
	info->nkeys = intVal(list_nth(priv, pos++));
	info->keys = palloc(sizeof(GpuKeySpec) * info->nkeys);
	for (int i = 0; i < info->nkeys; i++)
	{
		info->keys[i].outer_conv = (GpuKeyConv) intVal(list_nth(priv, pos++));
		info->keys[i].inner_conv = (GpuKeyConv) intVal(list_nth(priv, pos++));
		info->keys[i].width = intVal(list_nth(priv, pos++));
	}
}

/* ---------------------------------------------------------------------
 * Path
 * --------------------------------------------------------------------- */

/*
 * What the path carries to PlanCustomPath (in custom_private, as nodes):
 * the hash clauses' RestrictInfos, the other clauses' RestrictInfos, the
 * outer/inner key expressions, and the key specs.
 */
typedef struct KeyChoice
{
	List	   *hash_rinfos;
	List	   *other_rinfos;
	List	   *outer_exprs;
	List	   *inner_exprs;
	int			nkeys;
	GpuKeySpec	keys[64];
} KeyChoice;

static bool
choose_keys(List *restrictlist, RelOptInfo *outerrel, RelOptInfo *innerrel,
			KeyChoice *kc)
{
	int			bits = 0;
	ListCell   *lc;

	memset(kc, 0, sizeof(*kc));
	foreach(lc, restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		OpExpr	   *op;
		bool		outer_is_left;
		GpuKeySpec	spec;

		/* keys are evaluated per side, outside the plan's expressions:
		 * no SubPlans in them */
		if (rinfo->pseudoconstant || !rinfo->can_join ||
			!OidIsValid(rinfo->hashjoinoperator) || !IsA(rinfo->clause, OpExpr) ||
			contain_subplans((Node *) rinfo->clause))
			goto other;
		op = (OpExpr *) rinfo->clause;
		if (list_length(op->args) != 2)
			goto other;
		if (bms_is_subset(rinfo->left_relids, outerrel->relids) &&
			bms_is_subset(rinfo->right_relids, innerrel->relids))
			outer_is_left = true;
		else if (bms_is_subset(rinfo->left_relids, innerrel->relids) &&
				 bms_is_subset(rinfo->right_relids, outerrel->relids))
			outer_is_left = false;
		else
			goto other;
		if (!gpuhash_key_spec_for_op(op->opno, outer_is_left, &spec))
			goto other;
		/* keys pack into one 64-bit word; the rest are rechecked on the CPU */
		if (bits + spec.width > 64 || kc->nkeys == lengthof(kc->keys))
			goto other;
		bits += spec.width;
		kc->keys[kc->nkeys++] = spec;
		kc->hash_rinfos = lappend(kc->hash_rinfos, rinfo);
		kc->outer_exprs = lappend(kc->outer_exprs,
								  outer_is_left ? linitial(op->args) : lsecond(op->args));
		kc->inner_exprs = lappend(kc->inner_exprs,
								  outer_is_left ? lsecond(op->args) : linitial(op->args));
		continue;
other:
		kc->other_rinfos = lappend(kc->other_rinfos, rinfo);
	}
	return kc->nkeys > 0;
}

static void
cost_gpu_join(PlannerInfo *root, CustomPath *cpath, Path *outer_path,
			  Path *inner_path, KeyChoice *kc, double rows)
{
	QualCost	qc;
	double		inner_rows = inner_path->rows;
	double		outer_rows = outer_path->rows;
	Cost		startup,
				run;

	cost_qual_eval(&qc, kc->other_rinfos, root);

	/* the inner side is consumed whole before the first row comes out */
	startup = inner_path->total_cost + outer_path->startup_cost + gpuhash_setup_cost;
	startup += inner_rows * (gpuhash_build_row_cost + cpu_operator_cost * kc->nkeys);
	startup += qc.startup;

	run = outer_path->total_cost - outer_path->startup_cost;
	run += outer_rows * (gpuhash_probe_row_cost + cpu_operator_cost * kc->nkeys);
	/* each hash match is checked against the other clauses, then emitted */
	run += rows * (qc.per_tuple + cpu_tuple_cost);
	run += rows * cpath->path.pathtarget->cost.per_tuple + cpath->path.pathtarget->cost.startup;

	cpath->path.rows = rows;
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = startup + run;
}

/* Rows per participant of a partial path, as costsize.c divides them. */
static double
parallel_divisor(Path *path)
{
	double		divisor = path->parallel_workers;

	if (parallel_leader_participation)
	{
		double		leader = 1.0 - (0.3 * path->parallel_workers);

		if (leader > 0)
			divisor += leader;
	}
	return divisor > 0 ? divisor : 1.0;
}

/*
 * The cheapest unparameterized path of rel that may run inside a parallel
 * plan (its cheapest total path is often a Gather, which may not).
 */
static Path *
cheapest_parallel_safe(RelOptInfo *rel)
{
	Path	   *best = NULL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *p = lfirst(lc);

		if (p->parallel_safe && p->param_info == NULL &&
			(best == NULL || p->total_cost < best->total_cost))
			best = p;
	}
	return best;
}

static CustomPath *
make_gpu_join_path(PlannerInfo *root, RelOptInfo *joinrel, Path *outer_path,
				   Path *inner_path, KeyChoice *kc, double rows)
{
	CustomPath *cpath = makeNode(CustomPath);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = joinrel;
	cpath->path.pathtarget = joinrel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = false;
	cpath->path.parallel_workers = 0;
	cpath->path.pathkeys = NIL;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_paths = list_make2(outer_path, inner_path);
	cpath->custom_private = list_make4(kc->hash_rinfos, kc->other_rinfos,
									   list_make2(kc->outer_exprs, kc->inner_exprs),
									   gpuhash_form_private(&(GpuJoinPlanInfo)
															{
																0, gpuhash_scheme, kc->nkeys, kc->keys
															}));
	cpath->methods = &gpuhash_path_methods;
	cost_gpu_join(root, cpath, outer_path, inner_path, kc, rows);
	return cpath;
}

static void
gpu_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				  RelOptInfo *innerrel, JoinType jointype,
				  JoinPathExtraData *extra)
{
	Path	   *outer_path,
			   *inner_path;
	KeyChoice	kc;
	CustomPath *cpath;
	int			device;
	double		inner_bytes;
	bool		parallel_ok;
	Path	   *inner_safe;

	if (prev_join_pathlist_hook)
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);

	if (!enable_gpuhashjoin || jointype != JOIN_INNER)
		return;
	/* no EvalPlanQual rechecks here: plain reads only */
	if ((root->parse->commandType != CMD_SELECT &&
		 root->parse->commandType != CMD_INSERT) || root->rowMarks != NIL)
		return;

	outer_path = outerrel->cheapest_total_path;
	inner_path = innerrel->cheapest_total_path;
	if (!outer_path || !inner_path ||
		outer_path->param_info || inner_path->param_info)
		return;
	if (!choose_keys(extra->restrictlist, outerrel, innerrel, &kc))
		return;

	inner_bytes = inner_path->rows * (inner_path->pathtarget->width + 32.0);
	if (inner_bytes > (double) gpuhash_max_inner_memory_kb * 1024.0)
		return;

	device = gpuhash_plan_device();
	if (device < 0)
		return;					/* auto mode without a GPU: PostgreSQL's joins */

	/*
	 * Inside a parallel plan the node needs the GPU service: a worker must
	 * not start a CUDA context of its own, and a parallel-aware join shares
	 * one table in the service.
	 */
	parallel_ok = joinrel->consider_parallel && gpuhash_service_ready() &&
		outer_path->parallel_safe && inner_path->parallel_safe;

	cpath = make_gpu_join_path(root, joinrel, outer_path, inner_path, &kc, joinrel->rows);
	cpath->path.parallel_safe = parallel_ok;
	add_path(joinrel, &cpath->path);

	/*
	 * A parallel-aware path: every participant probes the one shared table
	 * with its share of a partial outer path; one of them reads the inner
	 * side and builds the table (parallel.c).
	 */
	if (joinrel->consider_parallel && gpuhash_service_ready() &&
		outerrel->partial_pathlist != NIL &&
		(inner_safe = cheapest_parallel_safe(innerrel)) != NULL)
	{
		Path	   *outer_partial = linitial(outerrel->partial_pathlist);

		if (outer_partial->param_info == NULL && outer_partial->parallel_safe)
		{
			cpath = make_gpu_join_path(root, joinrel, outer_partial, inner_safe, &kc,
									   joinrel->rows / parallel_divisor(outer_partial));
			cpath->path.parallel_aware = true;
			cpath->path.parallel_safe = true;
			cpath->path.parallel_workers = outer_partial->parallel_workers;
			add_partial_path(joinrel, &cpath->path);
		}
	}
}

/* ---------------------------------------------------------------------
 * Plan
 * --------------------------------------------------------------------- */

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

static Plan *
plan_gpu_join(PlannerInfo *root, RelOptInfo *rel, struct CustomPath *best_path,
			  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *outer_plan = linitial(custom_plans);
	Plan	   *inner_plan = lsecond(custom_plans);
	List	   *other_rinfos = lsecond(best_path->custom_private);
	List	   *key_exprs = lthird(best_path->custom_private);
	GpuJoinPlanInfo info;
	List	   *quals = NIL;
	ListCell   *lc;

	gpuhash_deform_private(lfourth(best_path->custom_private), &info);
	info.n_outer_cols = list_length(outer_plan->targetlist);

	/* every clause that is not the hash key is checked per match */
	foreach(lc, other_rinfos)
		quals = lappend(quals, lfirst_node(RestrictInfo, lc)->clause);
	foreach(lc, clauses)
		quals = lappend(quals, lfirst_node(RestrictInfo, lc)->clause);

	/*
	 * The other clauses ride in custom_exprs after the keys rather than in
	 * plan.qual, so EXPLAIN shows them as a join filter with table prefixes.
	 */
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = list_concat(list_concat_copy(linitial(key_exprs), lsecond(key_exprs)),
									  quals);
	cscan->custom_private = gpuhash_form_private(&info);
	cscan->custom_scan_tlist = append_tlist(append_tlist(NIL, outer_plan->targetlist),
											inner_plan->targetlist);
	cscan->methods = &gpuhash_scan_methods;
	return &cscan->scan.plan;
}

void
gpuhash_planner_init(void)
{
	prev_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = gpu_join_pathlist;
}
