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
 * Parallel paths are partial_paths.c's.  In plan.c, the plan's children
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


static const CustomPathMethods gpuhash_path_methods = {
	.CustomName = GPUHASH_NODE_NAME,
	.PlanCustomPath = gpuhash_plan_gpu_join,
};

CustomScanMethods gpuhash_scan_methods = {
	.CustomName = GPUHASH_NODE_NAME,
	.CreateCustomScanState = gpuhash_create_scan_state,
};

/* ---------------------------------------------------------------------
 * Path
 * --------------------------------------------------------------------- */

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
 * Does the join read the inner side's pages itself?  When the inner path is
 * a plain (or Parallel) Seq Scan of an absorbable table: the build then runs
 * no child plan (heap_scan.c).
 */
static bool
inner_scan_absorbed(PlannerInfo *root, Path *inner_path)
{
	return gpuhash_absorb_inner_scan && inner_path->pathtype == T_SeqScan &&
		inner_path->param_info == NULL && gpuhash_scan_absorbable(root, inner_path->parent);
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

CustomPath *
gpuhash_make_join_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
				   bool single_match, Path *outer_path, Path *inner_path,
				   bool parallel_inner, bool parallel_aware, bool outer_scan, KeyChoice *kc,
				   double rows)
{
	CustomPath *cpath = makeNode(CustomPath);
	GpuJoinPlanInfo info;
	GpuPagePrice page;
	bool		chained,
				by_pages;

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
	chained = chains_with_outer(outer_path, jointype, kc, inner_path, parallel_aware,
								parallel_inner);
	by_pages = outer_scan &&
		gpuhash_page_price_of(root, outer_path, inner_path, jointype, kc, parallel_aware,
							  parallel_inner, chained, &page);
	gpuhash_cost_join(root, cpath, outer_path, inner_path, parallel_inner, outer_scan,
					  info.inner_scan, gpuhash_shared_inner_pages && parallel_inner,
					  list_concat_copy(kc->other_rinfos, kc->pushed_rinfos),
					  kc->nkeys, rows, kc->outer_match_frac, jointype == JOIN_ANTI,
					  chained, by_pages ? &page : NULL);
	return cpath;
}

/* One of ours? */
static bool
is_gpu_join_path(Path *p)
{
	return IsA(p, CustomPath) && ((CustomPath *) p)->methods == &gpuhash_path_methods;
}

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
bool
gpuhash_gains_enough(Path *path, List *native_paths)
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

/*
 * Can the join read rel's pages itself (heap_scan.c)?  A plain heap table
 * without inheritance or sampling, whose columns the join reads are plain
 * user columns: no whole-row or system column, no expression evaluated at
 * the scan.
 */
bool
gpuhash_scan_absorbable(PlannerInfo *root, RelOptInfo *rel)
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
bool
gpuhash_outer_absorbable(PlannerInfo *root, RelOptInfo *outerrel, JoinType jointype)
{
	/* a unique-ified outer side stays a child */
	return gpuhash_absorb_outer_scan && jointype != JOIN_UNIQUE_OUTER &&
		gpuhash_scan_absorbable(root, outerrel);
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
	if (gpuhash_partial_join_possible(joinrel, outerrel, innerrel, jointype) &&
		(gpuhash_add_partial_paths(root, joinrel, outerrel, innerrel, jointype, jt, single_match,
						   inner_path, &kc) ||
		 gpuhash_swapped_partial_possible(outerrel, innerrel, jointype)))
		return;

	cpath = gpuhash_make_join_path(root, joinrel, jt, single_match, outer_path, inner_path, false,
							   false, false, &kc, joinrel->rows);
	cpath->path.parallel_safe = parallel_ok;
	if (gpuhash_gains_enough(&cpath->path, joinrel->pathlist))
		add_path(joinrel, &cpath->path);

	/*
	 * The same over a Seq Scan of a plain outer table that the join reads
	 * itself (heap_scan.c), even where another scan of the table is its
	 * cheapest alone: the join reads pages faster than any child hands it
	 * rows.
	 */
	if (gpuhash_outer_absorbable(root, outerrel, jointype))
	{
		Path	   *seq = outer_path->pathtype == T_SeqScan ? outer_path :
			create_seqscan_path(root, outerrel, NULL, 0);

		cpath = gpuhash_make_join_path(root, joinrel, jt, single_match, seq, inner_path, false,
								   false, true, &kc, joinrel->rows);
		cpath->path.parallel_safe = parallel_ok && seq->parallel_safe;
		if (gpuhash_gains_enough(&cpath->path, joinrel->pathlist))
			add_path(joinrel, &cpath->path);
	}

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
