/*-------------------------------------------------------------------------
 *
 * planner.c
 *	  Offers a GpuHashJoin custom path for equi-joins of every join type
 *	  (inner, left, right, full, semi, anti, and semi joins made inner by
 *	  unique-ifying one side), and turns the chosen path into a CustomScan.
 *
 * For every (outer, inner) pair the planner considers, the hook looks for
 * hashable `=` clauses between the two sides.  When all of them map exactly
 * to 64 bits (keys.c) and pack into one 64-bit key, the key is the values
 * themselves; otherwise every such clause becomes a 64-bit fingerprint made
 * with PostgreSQL's extended hash functions, and the clauses are rechecked
 * on the CPU after a match.  Every other clause is checked on the CPU too:
 * as a join filter, or, for the clauses an outer join's WHERE pushed down,
 * as a filter on the joined (possibly NULL-extended) rows, as nodeHashjoin.c
 * splits joinqual and otherqual.  The path costs the inner side, a fixed
 * setup, a cost per inner row kept and per outer row probed, and the usual
 * per-output-row costs, so that the planner keeps PostgreSQL's own join
 * where that is cheaper.
 *
 * The serial path (keys, scheme, chain, the gain over PostgreSQL's plan) is
 * join_paths.c's, parallel paths are partial_paths.c's.  In plan.c, the plan's children
 * are the outer and inner plans (custom_plans), its
 * custom_scan_tlist is the outer child's target list followed by the inner
 * child's, so an INDEX_VAR column k refers to outer column k or inner column
 * k - n_outer.  What the path and the plan carry (keys, join filter, filter
 * on joined rows, pseudoconstant gate, plan facts) is laid out by
 * plan_info.c.  The filter is not plan.qual so that EXPLAIN can show it with
 * table prefixes.
 *
 * PostgreSQL calls set_join_pathlist_hook only for joins without
 * pseudoconstant quals, because createplan.c makes no gating Result for a
 * custom join.  This node gates itself (n_gate), so a join search hook hides
 * the pseudoconstants from that check while the join paths are made, unless
 * a foreign table could be offered a join pushdown.
 *
 *-------------------------------------------------------------------------
 */
#include "planner_int.h"
#include "agg/agg_plan.h"

#include <math.h>

#include "access/table.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class_d.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/geqo.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"

static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;
static join_search_hook_type prev_join_search_hook = NULL;

/*
 * Is gpuhash's join hook still called?  A library loaded after gpuhash
 * that sets set_join_pathlist_hook without calling the one it found (Citus
 * does) leaves gpuhash planning nothing, silently.  gpu_join_search counts
 * the hook's calls during each join search; a search that joined and never
 * called it says so, once per session (join_hook_check below).
 */
typedef enum JoinHookState
{
	JOIN_HOOK_UNCHECKED,		/* no join planned yet in this session */
	JOIN_HOOK_CALLED,
	JOIN_HOOK_MISSING
} JoinHookState;

static JoinHookState join_hook_state = JOIN_HOOK_UNCHECKED;
static uint64 join_hook_calls = 0;

/* the join search runs with the pseudoconstants hidden (gpu_join_search) */
static bool pseudoconstants_hidden = false;

CustomScanMethods gpuhash_scan_methods = {
	.CustomName = GPUHASH_NODE_NAME,
	.CreateCustomScanState = gpuhash_create_scan_state,
};

static bool
has_pseudoconstant(List *restrictlist)
{
	ListCell   *lc;

	foreach(lc, restrictlist)
	{
		if (lfirst_node(RestrictInfo, lc)->pseudoconstant)
			return true;
	}
	return false;
}

static void
gpu_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				  RelOptInfo *innerrel, JoinType jointype,
				  JoinPathExtraData *extra)
{
	Path	   *outer_path,
			   *inner_path;
	KeyChoice	kc;
	int			device;
	bool		parallel_ok;
	bool		single_match;
	JoinType	jt = jointype;

	/* other extensions see the joins core would show them, no more */
	if (prev_join_pathlist_hook &&
		!(pseudoconstants_hidden && has_pseudoconstant(extra->restrictlist)))
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	if (gpuhash_test_bypass_join_hook)
		return;
	join_hook_calls++;
	/* what the aggregate over a join needs to know (agg_join_stash.c) */
	gpuhash_agg_stash_join(root, joinrel, outerrel, innerrel, jointype, extra->restrictlist);

	if (!enable_gpuhashjoin)
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

	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_LEFT:
		case JOIN_FULL:
		case JOIN_RIGHT:
		case JOIN_SEMI:
		case JOIN_ANTI:
			break;

			/* a semi join as an inner join with one side made unique */
		case JOIN_UNIQUE_OUTER:
			outer_path = (Path *) create_unique_path(root, outerrel, outer_path, extra->sjinfo);
			jt = JOIN_INNER;
			break;
		case JOIN_UNIQUE_INNER:
			inner_path = (Path *) create_unique_path(root, innerrel, inner_path, extra->sjinfo);
			jt = JOIN_INNER;
			break;
		default:
			return;
	}
	if (outer_path == NULL || inner_path == NULL)
		return;

	/* and the same join with its table built of its preserved side */
	if (jointype == JOIN_SEMI || jointype == JOIN_ANTI)
	{
		gpuhash_add_right_paths(root, joinrel, outerrel, innerrel, jointype, extra);
		if (gpuhash_right_semi_anti == GPUHASH_RIGHT_ONLY)
			return;
	}
	else if (gpuhash_right_semi_anti == GPUHASH_RIGHT_ONLY &&
			 (jointype == JOIN_UNIQUE_INNER || jointype == JOIN_UNIQUE_OUTER))
		return;

	if (!gpuhash_choose_keys(extra->restrictlist, joinrel, outerrel, innerrel,
					 IS_OUTER_JOIN(jt), &kc))
		return;
	device = gpuhash_plan_device();
	if (device < 0)
		return;					/* auto mode without a GPU: PostgreSQL's joins */

	/*
	 * A row estimate too doubtful to put a GPU join early in the plan on
	 * (costs.c): PostgreSQL's joins are left alone, as within
	 * gpuhash.min_gain (0: no margin of either kind).
	 */
	if (gpuhash_min_gain > 0 &&
		gpuhash_estimate_untrusted(root, joinrel, outerrel, innerrel, jointype, extra,
								   kc.hash_rinfos))
		return;
	kc.key_filter = gpuhash_key_filter_pays(root, outerrel, innerrel, jointype, extra,
											 kc.hash_rinfos);

	/*
	 * Where core costs a hash join's matches by its semi-join factors (a
	 * semi or anti join, or a unique inner side: final_cost_hashjoin), the
	 * GPU join's matches are counted the same way, so that the two are
	 * weighed on the same rows.
	 */
	kc.outer_match_frac = jointype == JOIN_SEMI || jointype == JOIN_ANTI || extra->inner_unique ?
		extra->semifactors.outer_match_frac : -1.0;

	if (!gpuhash_inner_fits(inner_path))
		return;

	/* as nodeHashjoin.c: a semi join, or a unique inner side, stops at one match */
	single_match = jt == JOIN_SEMI || extra->inner_unique;

	parallel_ok = gpuhash_parallel_ok(joinrel, outer_path, inner_path);

	/*
	 * Where the join can run in parallel, it is offered only as a partial
	 * path.  A serial GPU join there would trade a parallel subtree for a
	 * serial one on a cost that does not pay for it: PostgreSQL charges a
	 * Parallel Seq Scan all of its pages, so a small per-row saving on one
	 * CPU outbids the CPUs a Gather brings.  Where neither this call nor
	 * the one with the sides swapped can make one (one side's paths all
	 * hold a Gather, as an aggregated subquery's do), the serial path is
	 * offered: otherwise the join gets no GPU path at all.
	 */
	if (gpuhash_partial_join_possible(joinrel, outerrel, innerrel, jointype) &&
		(gpuhash_add_partial_paths(root, joinrel, outerrel, innerrel, jointype, jt, single_match,
						   inner_path, &kc) ||
		 gpuhash_swapped_partial_possible(outerrel, innerrel, jointype)))
		return;

	gpuhash_add_serial_paths(root, joinrel, outerrel, jointype, jt, single_match, outer_path,
							 inner_path, &kc, parallel_ok);
}

/* Could a foreign table of this query be offered a join pushdown? */
static bool
has_foreign_rels(PlannerInfo *root)
{
	for (int i = 1; i < root->simple_rel_array_size; i++)
	{
		RelOptInfo *rel = root->simple_rel_array[i];

		if (rel != NULL && rel->fdwroutine != NULL)
			return true;
	}
	return false;
}

/*
 * After a join search of levels_needed relations that made rel.  Its joins
 * went through add_paths_to_joinrel, which calls set_join_pathlist_hook,
 * except those PostgreSQL knew empty (a dummy input, a constant false
 * qual) or gated by pseudoconstant quals left visible.  When none reached
 * gpuhash's hook and another hook has taken its place, that one does not
 * call it: warn, once per session, while GPU joins are on.
 */
static void
join_hook_check(PlannerInfo *root, int levels_needed, RelOptInfo *rel, bool called)
{
	static bool warned = false;
	bool		replaced = set_join_pathlist_hook != gpu_join_pathlist ||
		gpuhash_test_bypass_join_hook;

	if (levels_needed < 2)
		return;
	if (called)
	{
		join_hook_state = JOIN_HOOK_CALLED;
		return;
	}
	if (!replaced || rel == NULL || IS_DUMMY_REL(rel) || root->hasPseudoConstantQuals)
		return;
	join_hook_state = JOIN_HOOK_MISSING;
	if (enable_gpuhashjoin && !warned)
	{
		warned = true;
		ereport(WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuhash: its join hook is not called, so no GPU hash join is planned"),
				 errdetail("A library loaded after gpuhash set set_join_pathlist_hook without calling the hook it replaced."),
				 errhint("Load that library before gpuhash in shared_preload_libraries; for Citus: shared_preload_libraries = 'citus,gpuhash'.")));
	}
}

/* For gpuhash_info(): "called", "missing" or "unchecked". */
const char *
gpuhash_join_hook_state(void)
{
	switch (join_hook_state)
	{
		case JOIN_HOOK_CALLED:
			return "called";
		case JOIN_HOOK_MISSING:
			return "missing: load other planner extensions before gpuhash";
		case JOIN_HOOK_UNCHECKED:
			break;
	}
	return "unchecked: no join planned yet in this session";
}

/*
 * The join search, with the query's pseudoconstant quals hidden from
 * add_paths_to_joinrel's check so that set_join_pathlist_hook runs for
 * their joins too (see the file header).  Nothing else reads the flag while
 * join paths are made; createplan.c, which makes the gating Results of the
 * other joins, sees it restored.  FDW join pushdown has the same check and
 * no gate of its own: queries with a foreign table keep the check.
 */
static RelOptInfo *
gpu_join_search(PlannerInfo *root, int levels_needed, List *initial_rels)
{
	bool		hide = root->hasPseudoConstantQuals && enable_gpuhashjoin &&
		!has_foreign_rels(root);
	bool		was_hidden = pseudoconstants_hidden;
	RelOptInfo *rel;
	uint64		calls = join_hook_calls;

	if (hide)
	{
		root->hasPseudoConstantQuals = false;
		pseudoconstants_hidden = true;
	}
	PG_TRY();
	{
		/* as make_rel_from_joinlist chooses when no hook is set */
		if (prev_join_search_hook)
			rel = prev_join_search_hook(root, levels_needed, initial_rels);
		else if (enable_geqo && levels_needed >= geqo_threshold)
			rel = geqo(root, levels_needed, initial_rels);
		else
			rel = standard_join_search(root, levels_needed, initial_rels);
	}
	PG_FINALLY();
	{
		if (hide)
			root->hasPseudoConstantQuals = true;
		pseudoconstants_hidden = was_hidden;
	}
	PG_END_TRY();
	join_hook_check(root, levels_needed, rel, join_hook_calls != calls);
	return rel;
}

void
gpuhash_planner_init(void)
{
	prev_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = gpu_join_pathlist;
	prev_join_search_hook = join_search_hook;
	join_search_hook = gpu_join_search;
}
