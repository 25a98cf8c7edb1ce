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
 * The plan's children are the outer and inner plans (custom_plans), its
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
#include "gpuhash.h"
#include "service.h"

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
 * Path
 * --------------------------------------------------------------------- */

/*
 * What the path carries to PlanCustomPath (in custom_private, as nodes):
 * the hash clauses' RestrictInfos, the join filter's, the outer/inner key
 * expressions, the plan info, and the pushed-down clauses' RestrictInfos.
 */
typedef struct KeyChoice
{
	List	   *hash_rinfos;
	List	   *other_rinfos;	/* join filter (with the recheck, if hashed) */
	List	   *pushed_rinfos;	/* an outer join's WHERE clauses: a filter */
	List	   *outer_exprs;
	List	   *inner_exprs;
	bool		fingerprint;
	bool		key_filter;		/* most outer rows expected to miss */
	double		outer_match_frac;	/* core's, where it costs matches by it; or -1 */
	int			nkeys;
	GpuKeySpec	keys[64];
} KeyChoice;

/* A hashable clause between the two sides, and how its key could be made. */
typedef struct KeyCandidate
{
	RestrictInfo *rinfo;
	bool		outer_is_left;
	bool		exact;
	GpuKeySpec	spec;
} KeyCandidate;

/* The hashable `a = b` clause of one side each, or false. */
static bool
key_candidate(RestrictInfo *rinfo, RelOptInfo *outerrel, RelOptInfo *innerrel,
			  KeyCandidate *c)
{
	OpExpr	   *op;

	/* keys are evaluated per side, outside the plan's expressions: no SubPlans */
	if (rinfo->pseudoconstant || !rinfo->can_join ||
		!OidIsValid(rinfo->hashjoinoperator) || !IsA(rinfo->clause, OpExpr) ||
		contain_subplans((Node *) rinfo->clause))
		return false;
	op = (OpExpr *) rinfo->clause;
	if (list_length(op->args) != 2)
		return false;
	if (bms_is_subset(rinfo->left_relids, outerrel->relids) &&
		bms_is_subset(rinfo->right_relids, innerrel->relids))
		c->outer_is_left = true;
	else if (bms_is_subset(rinfo->left_relids, innerrel->relids) &&
			 bms_is_subset(rinfo->right_relids, outerrel->relids))
		c->outer_is_left = false;
	else
		return false;
	c->rinfo = rinfo;
	c->exact = gpuhash_key_spec_for_op(op->opno, c->outer_is_left, &c->spec);
	return c->exact ||
		gpuhash_fingerprint_spec_for_op(op->opno, op->inputcollid, c->outer_is_left, &c->spec);
}

static void
add_key(KeyChoice *kc, KeyCandidate *c)
{
	OpExpr	   *op = (OpExpr *) c->rinfo->clause;

	kc->keys[kc->nkeys++] = c->spec;
	kc->hash_rinfos = lappend(kc->hash_rinfos, c->rinfo);
	kc->outer_exprs = lappend(kc->outer_exprs,
							  c->outer_is_left ? linitial(op->args) : lsecond(op->args));
	kc->inner_exprs = lappend(kc->inner_exprs,
							  c->outer_is_left ? lsecond(op->args) : linitial(op->args));
}

/*
 * Splits the join's clauses into hash keys, join filter and (for outer
 * joins) pushed-down filter.  Exact keys when every hashable clause maps
 * exactly and all of them fit in 64 bits; fingerprints otherwise, with the
 * hash clauses rechecked first in the join filter.
 */
static bool
choose_keys(List *restrictlist, RelOptInfo *joinrel, RelOptInfo *outerrel,
			RelOptInfo *innerrel, bool isouter, KeyChoice *kc)
{
	KeyCandidate cands[64];
	int			ncand = 0;
	int			bits = 0;
	bool		all_exact = true;
	List	   *filter = NIL;
	ListCell   *lc;

	memset(kc, 0, sizeof(*kc));
	foreach(lc, restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		/* an outer join hashes only on its own clauses, as hash joins do */
		if (isouter && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids))
			kc->pushed_rinfos = lappend(kc->pushed_rinfos, rinfo);
		else if (ncand < lengthof(cands) &&
				 key_candidate(rinfo, outerrel, innerrel, &cands[ncand]))
		{
			all_exact &= cands[ncand].exact;
			bits += cands[ncand].spec.width;
			ncand++;
		}
		else
			filter = lappend(filter, rinfo);
	}
	if (ncand == 0)
		return false;

	kc->fingerprint = !all_exact || bits > 64;
	for (int i = 0; i < ncand; i++)
	{
		KeyCandidate *c = &cands[i];

		if (kc->fingerprint && c->exact)
		{
			OpExpr	   *op = (OpExpr *) c->rinfo->clause;

			if (!gpuhash_fingerprint_spec_for_op(op->opno, op->inputcollid,
												 c->outer_is_left, &c->spec))
			{
				filter = lappend(filter, c->rinfo);
				continue;
			}
		}
		add_key(kc, c);
	}
	if (kc->nkeys == 0)
		return false;
	/* a fingerprint match is only a candidate: recheck the keys, then the rest */
	kc->other_rinfos = kc->fingerprint ? list_concat_copy(kc->hash_rinfos, filter) : filter;
	return true;
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

static bool scan_absorbable(PlannerInfo *root, RelOptInfo *rel);

/*
 * Does the join read the inner side's pages itself?  When the inner path is
 * a plain (or Parallel) Seq Scan of an absorbable table: the build then runs
 * no child plan (heap_scan.c).
 */
static bool
inner_scan_absorbed(PlannerInfo *root, Path *inner_path)
{
	return gpuhash_absorb_inner_scan && inner_path->pathtype == T_SeqScan &&
		inner_path->param_info == NULL && scan_absorbable(root, inner_path->parent);
}

/*
 * The table's scheme: gpuhash.scheme, or with auto the one with the least
 * estimated build and probe time (cuda/scheme_choice.cpp) for this join's
 * inner rows, distinct keys and probes.  A parallel-aware join builds one
 * table for all participants' probes; any other builds one per participant
 * for its own share.
 */
static void
choose_scheme(PlannerInfo *root, GpuJoinPlanInfo *info, KeyChoice *kc, Path *outer_path,
			  Path *inner_path, bool parallel_inner, bool parallel_aware)
{
	info->scheme_auto = gpuhash_scheme == GPUHASH_SCHEME_AUTO;
	if (!info->scheme_auto)
	{
		info->scheme = gpuhash_scheme;
		return;
	}
	info->est_rows = gpuhash_table_rows(inner_path, parallel_inner);
	info->est_distinct = estimate_num_groups(root, kc->inner_exprs, info->est_rows, NULL, NULL);
	info->est_probes = outer_path->rows *
		(parallel_aware ? gpuhash_parallel_divisor(outer_path) : 1.0);
	info->scheme = gh_scheme_auto(info->est_rows, info->est_distinct, info->est_probes);
}

static bool is_gpu_join_path(Path *p);

/* A join a chain (chain.c) takes as a level: the probe alone decides its matches. */
static bool
chain_level_kind(JoinType jointype, bool has_join_filter)
{
	if (jointype == JOIN_INNER)
		return true;
	return (jointype == JOIN_SEMI || jointype == JOIN_ANTI || jointype == JOIN_LEFT) &&
		!has_join_filter;
}

/*
 * Will the executor run this join and the GpuHashJoin below it as one
 * chain?  Then the rows between them are never handed out, copied and
 * keyed one by one.  The executor decides for good at each scan; this is
 * its test on paths: both joins of kinds a chain takes, each within one
 * hash batch, and this join's outer keys plain columns.
 */
static bool
chains_with_outer(Path *outer_path, JoinType jointype, KeyChoice *kc, Path *inner_path,
				  bool parallel_aware, bool parallel_inner)
{
	CustomPath *below;
	GpuJoinPlanInfo binfo;
	ListCell   *lc;

	if (!gpuhash_chain_joins || !is_gpu_join_path(outer_path) ||
		!chain_level_kind(jointype, kc->other_rinfos != NIL || kc->fingerprint) ||
		!gpuhash_one_table(outer_path, inner_path, parallel_aware, parallel_inner))
		return false;
	below = (CustomPath *) outer_path;
	gpuhash_deform_private(gpuhash_path_private(below->custom_private, GPP_PLAN_INFO), &binfo);
	if (!chain_level_kind(binfo.jointype,
						  gpuhash_path_private(below->custom_private, GPP_OTHER_RINFOS) != NIL ||
						  binfo.fingerprint) ||
		!gpuhash_one_table(linitial(below->custom_paths), lsecond(below->custom_paths),
						   below->path.parallel_aware, binfo.parallel_inner))
		return false;
	/*
	 * The executor gathers a level's key from plain columns: of the chain's
	 * outer rows or of levels' inner rows.  Columns of several relations
	 * only for exact keys (their parts OR together; a fingerprint does not
	 * split), and from at most GH_CHAIN_KEY_PARTS of them.
	 */
	{
		Relids		rels = NULL;

		foreach(lc, kc->outer_exprs)
		{
			Node	   *e = lfirst(lc);

			while (IsA(e, RelabelType))
				e = (Node *) ((RelabelType *) e)->arg;
			if (!IsA(e, Var))
				return false;
			rels = bms_add_member(rels, ((Var *) e)->varno);
		}
		if (bms_num_members(rels) > (kc->fingerprint ? 1 : GH_CHAIN_KEY_PARTS))
			return false;
	}
	return true;
}

static CustomPath *
make_gpu_join_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
				   bool single_match, Path *outer_path, Path *inner_path,
				   bool parallel_inner, bool parallel_aware, bool outer_scan, KeyChoice *kc,
				   double rows)
{
	CustomPath *cpath = makeNode(CustomPath);
	GpuJoinPlanInfo info;

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = joinrel;
	cpath->path.pathtarget = joinrel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = parallel_aware;
	cpath->path.parallel_safe = false;
	cpath->path.parallel_workers = 0;
	cpath->path.pathkeys = NIL;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_paths = list_make2(outer_path, inner_path);
	memset(&info, 0, sizeof(info));
	choose_scheme(root, &info, kc, outer_path, inner_path, parallel_inner, parallel_aware);
	info.jointype = jointype;
	info.fingerprint = kc->fingerprint;
	info.single_match = single_match;
	info.parallel_inner = parallel_inner;
	info.outer_scan = outer_scan;
	info.inner_scan = inner_scan_absorbed(root, inner_path);
	info.key_filter = kc->key_filter;
	info.nkeys = kc->nkeys;
	info.keys = kc->keys;
	cpath->custom_private = gpuhash_form_path_private(kc->hash_rinfos, kc->other_rinfos,
													  kc->outer_exprs, kc->inner_exprs,
													  &info, kc->pushed_rinfos);
	cpath->methods = &gpuhash_path_methods;
	/*
	 * With gpuhash.shared_inner_pages, an absorbed parallel inner scan is
	 * charged its share of the pages, as the outer one is.
	 */
	gpuhash_cost_join(root, cpath, outer_path, inner_path, parallel_inner, outer_scan,
					  info.inner_scan, gpuhash_shared_inner_pages && parallel_inner,
					  list_concat_copy(kc->other_rinfos, kc->pushed_rinfos),
					  kc->nkeys, rows, kc->outer_match_frac, jointype == JOIN_ANTI,
					  chains_with_outer(outer_path, jointype, kc, inner_path, parallel_aware,
										parallel_inner));
	return cpath;
}

/* One of ours? */
static bool
is_gpu_join_path(Path *p)
{
	return IsA(p, CustomPath) && ((CustomPath *) p)->methods == &gpuhash_path_methods;
}

static Cost parallel_page_excess(Path *p);
static Path *one_input_subpath(Path *p);

/*
 * What a partial GPU join's cost misses: its participants are its outer
 * side's, so a partial inner side planned for more of them gives each a
 * larger share than that side's cost says (gpuhash_inner_share above 1),
 * charged on the inner side's whole cost.  An inner side planned for fewer
 * participants than the join has is not credited: its plan's unshared
 * parts (a Hash, a serial aggregate) and its scans' pages do not divide
 * further, and what does is not known from its cost.
 */
static Cost
inner_share_charge(Path *outer, Path *inner)
{
	double		share = gpuhash_inner_share(outer, inner);

	return share > 1.0 ? (share - 1.0) * inner->total_cost : 0.0;
}

static Cost serial_inner_penalty(RelOptInfo *innerrel, Path *inner_path);
static void add_shared_inner_path(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
								  JoinType jt, bool single_match, Path *outer_partial,
								  Path *inner_partial, bool outer_scan, KeyChoice *kc);

/*
 * PostgreSQL's cheapest unparameterized path for this join in paths (a
 * pathlist or partial_pathlist) so far, or NULL.
 */
static Path *
native_best(List *paths)
{
	Path	   *best = NULL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *p = lfirst(lc);

		if (p->param_info != NULL || is_gpu_join_path(p))
			continue;
		if (best == NULL || p->total_cost < best->total_cost)
			best = p;
	}
	return best;
}

/*
 * Does a GPU join path gain enough over PostgreSQL's cheapest path of the
 * same join to be offered (gpuhash.min_gain)?  The gain must exceed that
 * fraction of the native join's own cost (its total less its inputs'):
 * within the margin the cost model cannot tell them apart, and
 * PostgreSQL's plan is kept.  A native path that a setting disabled
 * (enable_hashjoin = off: disable_cost) is no plan to keep.
 */
static bool
gains_enough(Path *path, List *native_paths)
{
	Path	   *native = native_best(native_paths);
	Cost		own;

	if (native == NULL || native->total_cost >= disable_cost)
		return true;
	own = native->total_cost;
	if (IsA(native, NestPath) || IsA(native, MergePath) || IsA(native, HashPath))
	{
		JoinPath   *jp = (JoinPath *) native;

		own -= jp->outerjoinpath->total_cost + jp->innerjoinpath->total_cost;
	}
	return path->total_cost < native->total_cost - gpuhash_min_gain * Max(own, 0.0);
}

/* Path types with one input, and where it is (parallel_page_excess's walk). */
static const struct
{
	NodeTag		tag;
	size_t		subpath;
}			one_input_paths[] =
{
	{T_SubqueryScanPath, offsetof(SubqueryScanPath, subpath)},
	{T_ProjectionPath, offsetof(ProjectionPath, subpath)},
	{T_SortPath, offsetof(SortPath, subpath)},
	{T_IncrementalSortPath, offsetof(IncrementalSortPath, spath.subpath)},
	{T_AggPath, offsetof(AggPath, subpath)},
	{T_GroupPath, offsetof(GroupPath, subpath)},
	{T_UpperUniquePath, offsetof(UpperUniquePath, subpath)},
	{T_UniquePath, offsetof(UniquePath, subpath)},
	{T_MaterialPath, offsetof(MaterialPath, subpath)},
	{T_GatherPath, offsetof(GatherPath, subpath)},
	{T_GatherMergePath, offsetof(GatherMergePath, subpath)},
};

/* The input of a one-input path (one_input_paths), or NULL. */
static Path *
one_input_subpath(Path *p)
{
	for (int i = 0; i < lengthof(one_input_paths); i++)
	{
		if (one_input_paths[i].tag == nodeTag(p))
			return *(Path **) ((char *) p + one_input_paths[i].subpath);
	}
	return NULL;
}

/*
 * What PostgreSQL's costs charge the Parallel Seq Scans in path beyond
 * their participants' shares of the pages (gpuhash_parallel_page_excess).
 * GPU joins are not walked: their absorbed scans are charged so already.
 */
static Cost
parallel_page_excess(Path *p)
{
	Cost		excess = 0;
	ListCell   *lc;

	check_stack_depth();
	if (p == NULL)
		return 0;
	switch (nodeTag(p))
	{
		case T_Path:
			return gpuhash_parallel_page_excess(p);
		case T_NestPath:
		case T_MergePath:
		case T_HashPath:
			return parallel_page_excess(((JoinPath *) p)->outerjoinpath) +
				parallel_page_excess(((JoinPath *) p)->innerjoinpath);
		case T_AppendPath:
			foreach(lc, ((AppendPath *) p)->subpaths)
				excess += parallel_page_excess(lfirst(lc));
			return excess;
		default:
			return parallel_page_excess(one_input_subpath(p));
	}
}

/*
 * What a whole (non-partial) inner side of a parallel-aware join pays where
 * the inner relation's cheapest plan runs in parallel (under a Gather, which
 * cannot go inside the join's parallel plan): the inner side then runs in
 * one process while the join's other participants wait, the work a
 * parallel plan spread.  PostgreSQL's costs see only part of that
 * difference: its parallel plan's Parallel Seq Scans are charged all of
 * their pages in each process, where each reads its share
 * (parallel_page_excess takes that back, as costs.c charges an absorbed
 * outer scan; bench/RESULTS.md section 29 measured a serial aggregate
 * 2.1 times as long as its parallel plan, costed 1.3 times, 3.3 times with
 * the pages shared).  0 where the relation's cheapest plan is serial
 * anyway.  Charged gpuhash.serial_inner_penalty times.
 */
static Cost
serial_inner_penalty(RelOptInfo *innerrel, Path *inner_path)
{
	Path	   *best = innerrel->cheapest_total_path;
	Cost		parallel_cost;

	if (best == NULL || best == inner_path || best->parallel_safe ||
		best->param_info != NULL || best->total_cost >= inner_path->total_cost)
		return 0.0;
	parallel_cost = Max(best->total_cost - parallel_page_excess(best), 0.0);
	return gpuhash_serial_inner_penalty * (inner_path->total_cost - parallel_cost);
}

/* A partial path whose participants share one table (parallel.c). */
static void
add_parallel_aware_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
						bool single_match, Path *outer_partial, Path *inner_path,
						bool parallel_inner, bool outer_scan, KeyChoice *kc,
						Cost serial_penalty)
{
	CustomPath *cpath;
	double		participants = gpuhash_parallel_divisor(outer_partial);
	double		rows = joinrel->rows / participants;

	/*
	 * Participants share one table while the inner side fits what Parallel
	 * Hash may take, work_mem x hash_mem_multiplier for each of them;
	 * beyond that the join splits into shared batches (parallel_split.c),
	 * as a Parallel Hash does, and its cost says so (costs.c).  (Offered
	 * only while the inner side fitted, no GPU join was left in a parallel
	 * plan over a larger inner side at PostgreSQL's default work_mem.)
	 */
	cpath = make_gpu_join_path(root, joinrel, jointype, single_match,
							   outer_partial, inner_path, parallel_inner, true,
							   outer_scan, kc, rows);
	cpath->path.parallel_aware = true;
	cpath->path.parallel_safe = true;
	cpath->path.parallel_workers = outer_partial->parallel_workers;

	/*
	 * A partial inner side read by fewer participants than its plan counted
	 * on costs more than it says (inner_share_charge), so that a GPU join of
	 * 1 worker whose inner side was planned for 8 does not outbid the rest.
	 */
	if (parallel_inner)
	{
		Cost		d = inner_share_charge(outer_partial, inner_path);

		cpath->path.startup_cost += d;
		cpath->path.total_cost += d;
	}
	cpath->path.startup_cost += serial_penalty;
	cpath->path.total_cost += serial_penalty;
	if (gains_enough(&cpath->path, joinrel->partial_pathlist))
		add_partial_path(joinrel, &cpath->path);
}

/*
 * Can the join read rel's pages itself (heap_scan.c)?  A plain heap table
 * without inheritance or sampling, whose columns the join reads are plain
 * user columns: no whole-row or system column, no expression evaluated at
 * the scan.
 */
static bool
scan_absorbable(PlannerInfo *root, RelOptInfo *rel)
{
	RangeTblEntry *rte;
	Relation	r;
	bool		heap;
	ListCell   *lc;

	if (rel->reloptkind != RELOPT_BASEREL || rel->rtekind != RTE_RELATION)
		return false;
	rte = planner_rt_fetch(rel->relid, root);
	if (rte->inh || rte->tablesample != NULL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return false;
	foreach(lc, rel->reltarget->exprs)
	{
		Var		   *v = lfirst(lc);

		if (!IsA(v, Var) || v->varno != rel->relid || v->varattno <= 0)
			return false;
	}
	/* the planner holds a lock on every table of the query */
	r = table_open(rte->relid, NoLock);
	heap = r->rd_rel->relam == HEAP_TABLE_AM_OID;
	table_close(r, NoLock);
	return heap;
}

/*
 * A partial Seq Scan path of rel to absorb, with as many workers as rel's
 * cheapest partial path has, or as core gives a Parallel Seq Scan of its
 * pages, whichever is more.  Not only the one in rel's partial paths: where
 * an index-only scan is cheaper alone, core drops its Parallel Seq Scan (a
 * wide table with a narrow primary key), yet absorbed the join reads the
 * pages faster than that scan hands it rows.  And core sizes a Parallel Seq
 * Scan's workers by the table's pages where an index scan's count the index
 * too; absorbed, the scan is the join's CPU
 * work, which a further worker shares.  min_workers: at least that many
 * (an absorbed outer scan takes the workers of the partial inner side it
 * joins, below), unless the table sets parallel_workers.
 */
static Path *
partial_seqscan(PlannerInfo *root, RelOptInfo *rel, int min_workers)
{
	ListCell   *lc;
	int			workers;

	workers = Max(((Path *) linitial(rel->partial_pathlist))->parallel_workers,
				  compute_parallel_worker(rel, rel->pages, -1, max_parallel_workers_per_gather));
	/* a table's own parallel_workers setting stands */
	if (rel->rel_parallel_workers < 0)
		workers = Max(workers, Min(min_workers, max_parallel_workers_per_gather));
	if (workers <= 0)
		return NULL;
	foreach(lc, rel->partial_pathlist)
	{
		Path	   *p = lfirst(lc);

		if (p->pathtype == T_SeqScan && p->param_info == NULL &&
			p->parallel_workers >= workers)
			return p;
	}
	return create_seqscan_path(root, rel, NULL, workers);
}

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

/* May the join read its outer table's pages itself (heap_scan.c)? */
static bool
outer_absorbable(PlannerInfo *root, RelOptInfo *outerrel, JoinType jointype)
{
	/* a unique-ified outer side stays a child */
	return gpuhash_absorb_outer_scan && jointype != JOIN_UNIQUE_OUTER &&
		scan_absorbable(root, outerrel);
}

/*
 * Will the join get a partial GPU path, in this call or in the one with the
 * sides swapped?  That needs a partial path of the outer side, which a
 * unique-ified outer side never is.  Core offers inner, left (as right) and
 * full joins both ways; a semi join as itself and as a unique-ified outer
 * side's join, whose inner side is the semi join's outer one; an anti join
 * one way only.
 */
static bool
partial_join_possible(RelOptInfo *joinrel, RelOptInfo *outerrel, RelOptInfo *innerrel,
					  JoinType jointype)
{
	if (!joinrel->consider_parallel || !gpuhash_service_ready())
		return false;
	if (jointype != JOIN_UNIQUE_OUTER && outerrel->partial_pathlist != NIL)
		return true;
	return (jointype == JOIN_INNER || jointype == JOIN_LEFT || jointype == JOIN_RIGHT ||
			jointype == JOIN_FULL || jointype == JOIN_UNIQUE_OUTER) &&
		innerrel->partial_pathlist != NIL;
}

/* A partial path of rel a parallel GPU join can take as its outer side? */
static bool
usable_partial(RelOptInfo *rel)
{
	Path	   *p = rel->partial_pathlist != NIL ? linitial(rel->partial_pathlist) : NULL;

	return p != NULL && p->param_info == NULL && p->parallel_safe;
}

/*
 * Can the call with the sides swapped make a partial GPU path
 * (add_partial_paths)?  Its outer side, this call's inner, needs a partial
 * path, and its inner side, this call's outer, a parallel-safe path or a
 * partial one.  For a unique-ified outer side, that is the semi join's own
 * call, with the semi join's outer side outer.
 */
static bool
swapped_partial_possible(RelOptInfo *outerrel, RelOptInfo *innerrel, JoinType jointype)
{
	if (jointype != JOIN_INNER && jointype != JOIN_LEFT && jointype != JOIN_RIGHT &&
		jointype != JOIN_FULL && jointype != JOIN_UNIQUE_OUTER)
		return false;
	return usable_partial(innerrel) &&
		(cheapest_parallel_safe(outerrel) != NULL || usable_partial(outerrel));
}

/*
 * A parallel-aware path: every participant probes the one shared table
 * with its share of a partial outer path; one of them reads the inner
 * side and builds the table, or all read a share of it (parallel.c).
 * Right and full joins too:
 * the participants mark matched inner rows in shared memory, and the
 * last one to finish probing emits the unmatched ones.  A unique-ified
 * outer side cannot be partial.  The outer side is the cheapest partial
 * path and, for a plain table, also its Parallel Seq Scan absorbed.
 * False when no partial path could be made (none priced).
 */
static bool
add_partial_paths(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				  RelOptInfo *innerrel, JoinType jointype, JoinType jt,
				  bool single_match, Path *inner_path, KeyChoice *kc)
{
	Path	   *inner_safe;
	Path	   *inner_partial;
	Path	   *inner_absorbed;
	bool		absorb = outer_absorbable(root, outerrel, jointype);
	bool		made = false;

	if (jointype == JOIN_UNIQUE_OUTER || outerrel->partial_pathlist == NIL)
		return false;
	if (jointype == JOIN_UNIQUE_INNER)
		inner_safe = inner_path->parallel_safe ? inner_path : NULL;
	else
		inner_safe = cheapest_parallel_safe(innerrel);
	inner_partial = jointype != JOIN_UNIQUE_INNER && innerrel->partial_pathlist != NIL ?
		linitial(innerrel->partial_pathlist) : NULL;
	if (inner_partial && (inner_partial->param_info != NULL || !inner_partial->parallel_safe))
		inner_partial = NULL;

	/*
	 * A partial inner side that is not a Seq Scan is offered read by the
	 * join itself as well, as the outer side is (heap_scan.c).
	 */
	inner_absorbed = inner_partial != NULL && inner_partial->pathtype != T_SeqScan &&
		gpuhash_absorb_inner_scan && scan_absorbable(root, innerrel) ?
		partial_seqscan(root, innerrel, 0) : NULL;
	if (inner_absorbed != NULL && !inner_absorbed->parallel_safe)
		inner_absorbed = NULL;
	for (int scan = 0; scan < 2; scan++)
	{
		Path	   *outer_partial = scan == 0 ? linitial(outerrel->partial_pathlist) :
			absorb ? partial_seqscan(root, outerrel, 0) : NULL;

		if (outer_partial == NULL || outer_partial->param_info != NULL ||
			!outer_partial->parallel_safe)
			continue;
		if (inner_safe != NULL)
			add_parallel_aware_path(root, joinrel, jt, single_match, outer_partial,
									inner_safe, false, scan == 1, kc,
									serial_inner_penalty(innerrel, inner_safe));
		made |= inner_safe != NULL || inner_partial != NULL || inner_absorbed != NULL;

		/*
		 * And with every participant reading a share of a partial inner
		 * path, as Parallel Hash does (not for a unique-ified inner side:
		 * unique needs all of it in one place).
		 */
		if (inner_partial != NULL)
			add_shared_inner_path(root, joinrel, outerrel, jt, single_match, outer_partial,
								  inner_partial, scan == 1, kc);
		if (inner_absorbed != NULL)
			add_shared_inner_path(root, joinrel, outerrel, jt, single_match, outer_partial,
								  inner_absorbed, scan == 1, kc);
	}
	return made;
}

/*
 * A parallel-aware path whose participants all read a share of the partial
 * inner side.  The participants are the outer path's.  An absorbed outer
 * scan can be sized to any count: with gpuhash.shared_inner_pages, where
 * the inner side was planned for more workers than the outer table's pages
 * give it (a large filtered inner table joined to a smaller outer one),
 * the outer scan takes the inner side's
 * count, rather than each participant reading a larger share of the inner
 * side than its plan costed.
 */
static void
add_shared_inner_path(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
					  JoinType jt, bool single_match, Path *outer_partial,
					  Path *inner_partial, bool outer_scan, KeyChoice *kc)
{
	if (gpuhash_shared_inner_pages && outer_scan &&
		inner_partial->parallel_workers > outer_partial->parallel_workers)
		outer_partial = partial_seqscan(root, outerrel, inner_partial->parallel_workers);
	add_parallel_aware_path(root, joinrel, jt, single_match, outer_partial,
							inner_partial, true, outer_scan, kc, 0.0);
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
	bool		single_match;
	JoinType	jt = jointype;

	/* other extensions see the joins core would show them, no more */
	if (prev_join_pathlist_hook &&
		!(pseudoconstants_hidden && has_pseudoconstant(extra->restrictlist)))
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	if (gpuhash_test_bypass_join_hook)
		return;
	join_hook_calls++;

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

	if (!choose_keys(extra->restrictlist, joinrel, outerrel, innerrel,
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

	inner_bytes = inner_path->rows * (inner_path->pathtarget->width + 32.0);
	if (inner_bytes > (double) gpuhash_max_inner_memory_kb * 1024.0)
		return;

	/* as nodeHashjoin.c: a semi join, or a unique inner side, stops at one match */
	single_match = jt == JOIN_SEMI || extra->inner_unique;

	/*
	 * Inside a parallel plan the node needs the GPU service: a worker must
	 * not start a CUDA context of its own, and a parallel-aware join shares
	 * one table in the service.
	 */
	parallel_ok = joinrel->consider_parallel && gpuhash_service_ready() &&
		outer_path->parallel_safe && inner_path->parallel_safe;

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
	if (partial_join_possible(joinrel, outerrel, innerrel, jointype) &&
		(add_partial_paths(root, joinrel, outerrel, innerrel, jointype, jt, single_match,
						   inner_path, &kc) ||
		 swapped_partial_possible(outerrel, innerrel, jointype)))
		return;

	cpath = make_gpu_join_path(root, joinrel, jt, single_match, outer_path, inner_path, false,
							   false, false, &kc, joinrel->rows);
	cpath->path.parallel_safe = parallel_ok;
	if (gains_enough(&cpath->path, joinrel->pathlist))
		add_path(joinrel, &cpath->path);

	/*
	 * The same over a Seq Scan of a plain outer table that the join reads
	 * itself (heap_scan.c), even where another scan of the table is its
	 * cheapest alone: the join reads pages faster than any child hands it
	 * rows.
	 */
	if (outer_absorbable(root, outerrel, jointype))
	{
		Path	   *seq = outer_path->pathtype == T_SeqScan ? outer_path :
			create_seqscan_path(root, outerrel, NULL, 0);

		cpath = make_gpu_join_path(root, joinrel, jt, single_match, seq, inner_path, false,
								   false, true, &kc, joinrel->rows);
		cpath->path.parallel_safe = parallel_ok && seq->parallel_safe;
		if (gains_enough(&cpath->path, joinrel->pathlist))
			add_path(joinrel, &cpath->path);
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

static Plan *
plan_gpu_join(PlannerInfo *root, RelOptInfo *rel, struct CustomPath *best_path,
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
