/*-------------------------------------------------------------------------
 *
 * join_paths.c
 *	  A GpuHashJoin's serial CustomPath: the join keys chosen among the
 *	  hashable `=` clauses (exact or fingerprint), the hash scheme, the
 *	  chain a join over another GPU join's output makes, and whether the
 *	  path gains enough over PostgreSQL's best to be offered; and whether a
 *	  side's scan can be absorbed.  planner.c and partial_paths.c call
 *	  these; nothing here calls them.
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
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"

static const CustomPathMethods gpuhash_path_methods = {
	.CustomName = GPUHASH_NODE_NAME,
	.PlanCustomPath = gpuhash_plan_gpu_join,
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
bool
gpuhash_choose_keys(List *restrictlist, RelOptInfo *joinrel, RelOptInfo *outerrel,
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

	if (!gpuhash_chain_joins || !gpuhash_is_join_path(outer_path) ||
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
	if (jointype == GPUHASH_JOIN_RIGHT_SEMI || jointype == GPUHASH_JOIN_RIGHT_ANTI)
		cpath->path.total_cost += gpuhash_right_fill_cost(inner_path, parallel_inner,
														  joinrel->rows, rows,
														  cpath->path.pathtarget);
	return cpath;
}

/* Does the inner side fit gpuhash.max_inner_memory (its estimated rows kept)? */
bool
gpuhash_inner_fits(Path *inner_path)
{
	return inner_path->rows * (inner_path->pathtarget->width + 32.0) <=
		(double) gpuhash_max_inner_memory_kb * 1024.0;
}

/*
 * May a join of these sides run inside a parallel plan?  It needs the GPU
 * service there: a worker must not start a CUDA context of its own, and a
 * parallel-aware join shares one table in the service.
 */
bool
gpuhash_parallel_ok(RelOptInfo *joinrel, Path *outer_path, Path *inner_path)
{
	return joinrel->consider_parallel && gpuhash_service_ready() &&
		outer_path->parallel_safe && inner_path->parallel_safe;
}

/*
 * The serial paths of a join: over the outer side's cheapest path, and over
 * a Seq Scan of a plain outer table that the join reads itself (heap_scan.c),
 * even where another scan of the table is its cheapest alone: the join
 * reads pages faster than any child hands it rows.  Each added where it
 * gains enough.  jointype: the hook's (absorbability), jt: the node's.
 */
void
gpuhash_add_serial_paths(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
						 JoinType jointype, JoinType jt, bool single_match, Path *outer_path,
						 Path *inner_path, KeyChoice *kc, bool parallel_ok)
{
	CustomPath *cpath;

	cpath = gpuhash_make_join_path(root, joinrel, jt, single_match, outer_path, inner_path, false,
								   false, false, kc, joinrel->rows);
	cpath->path.parallel_safe = parallel_ok;
	if (gpuhash_gains_enough(&cpath->path, joinrel->pathlist))
		add_path(joinrel, &cpath->path);
	if (gpuhash_outer_absorbable(root, outerrel, jointype))
	{
		Path	   *seq = outer_path->pathtype == T_SeqScan ? outer_path :
			create_seqscan_path(root, outerrel, NULL, 0);

		cpath = gpuhash_make_join_path(root, joinrel, jt, single_match, seq, inner_path, false,
									   false, true, kc, joinrel->rows);
		cpath->path.parallel_safe = parallel_ok && seq->parallel_safe;
		if (gpuhash_gains_enough(&cpath->path, joinrel->pathlist))
			add_path(joinrel, &cpath->path);
	}
}

/* One of ours? */
bool
gpuhash_is_join_path(Path *p)
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

		if (p->param_info != NULL || gpuhash_is_join_path(p))
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

/* May the join read its outer table's pages itself (heap_scan.c)? */
bool
gpuhash_outer_absorbable(PlannerInfo *root, RelOptInfo *outerrel, JoinType jointype)
{
	/* a unique-ified outer side stays a child */
	return gpuhash_absorb_outer_scan && jointype != JOIN_UNIQUE_OUTER &&
		gpuhash_scan_absorbable(root, outerrel);
}
