/*-------------------------------------------------------------------------
 *
 * partial_paths.c
 *	  The parallel GpuHashJoin paths: parallel-aware joins whose
 *	  participants probe one shared table with their shares of a partial
 *	  outer side, the table built by one of them from a whole inner side or
 *	  by all from a partial one, and what their costs add to costs.c's: a
 *	  partial inner side planned for more participants than the join has
 *	  (or, a GPU join, credited for fewer), and a whole inner side whose
 *	  relation's cheapest plan is parallel.
 *	  Whether a join can get such a path in either of its calls, so that
 *	  planner.c offers the serial path where it cannot.
 *
 *-------------------------------------------------------------------------
 */
#include "planner_int.h"
#include "service.h"

#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"

/*
 * The cheapest unparameterized path of rel that may run inside a parallel
 * plan (its cheapest total path is often a Gather, which may not).
 */
Path *
gpuhash_cheapest_parallel_safe(RelOptInfo *rel)
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

static Cost parallel_page_excess(Path *p);
static Path *one_input_subpath(Path *p);

/*
 * The part of a partial GPU join's cost that its participants divide
 * among them: its run, the work on each participant's share of the outer
 * side's rows (that side's own run, the keys, the matches, the output),
 * and, where all participants read a share of an inner side that is itself
 * a partial GPU join, that side's divided part at its share, at most 1.
 * The rest is not credited: the setup, the build and its wait (the share
 * of it each participant copies is not split out), an inner side one
 * participant reads, a right semi or anti join's fill (charged whole,
 * costs.c).  0 for any other path: what divides of a path of PostgreSQL's
 * is not known from its cost.
 */
static Cost
divided_cost(Path *p)
{
	CustomPath *cpath;
	GpuJoinPlanInfo info;
	Path	   *inner;
	Cost		divided;

	check_stack_depth();
	if (!gpuhash_is_join_path(p) || !p->parallel_aware)
		return 0.0;
	cpath = (CustomPath *) p;
	gpuhash_deform_private(gpuhash_path_private(cpath->custom_private, GPP_PLAN_INFO), &info);
	if (info.jointype == GPUHASH_JOIN_RIGHT_SEMI || info.jointype == GPUHASH_JOIN_RIGHT_ANTI)
		return 0.0;
	divided = Max(p->total_cost - p->startup_cost, 0.0);
	inner = lsecond(cpath->custom_paths);
	if (info.parallel_inner)
		divided += Min(gpuhash_inner_share(linitial(cpath->custom_paths), inner), 1.0) *
			divided_cost(inner);
	return divided;
}

/*
 * What a partial GPU join's cost misses: its participants are its outer
 * side's, and every one of them reads a share of a partial inner side, so
 * that side's plan runs in as many participants as the join has, not as
 * many as it was costed for (gpuhash_inner_share).  Planned for more, each
 * reads a larger share than that side's cost says: charged on the inner
 * side's whole cost.  Planned for fewer, each reads a smaller one: credited
 * on the part of its cost that divides (divided_cost), known where the
 * inner side is a GPU join; an inner side that is PostgreSQL's own path (a
 * Hash, a serial aggregate, its scans) is not credited.  The joined
 * GpuPreAgg's shared dimension made from its partial inner plan's rows
 * runs that plan in its participants the same way (agg_costs.c).
 */
Cost
gpuhash_inner_share_charge(Path *outer, Path *inner)
{
	double		share = gpuhash_inner_share(outer, inner);

	if (share > 1.0)
		return (share - 1.0) * inner->total_cost;
	return -(1.0 - share) * divided_cost(inner);
}

static Cost serial_inner_penalty(RelOptInfo *innerrel, Path *inner_path);
static void add_shared_inner_path(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
								  JoinType jt, bool single_match, Path *outer_partial,
								  Path *inner_partial, bool outer_scan, KeyChoice *kc);

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
	cpath = gpuhash_make_join_path(root, joinrel, jointype, single_match,
							   outer_partial, inner_path, parallel_inner, true,
							   outer_scan, kc, rows);
	cpath->path.parallel_aware = true;
	cpath->path.parallel_safe = true;
	cpath->path.parallel_workers = outer_partial->parallel_workers;

	/*
	 * A partial inner side read by fewer participants than its plan counted
	 * on costs more than it says, so that a GPU join of 1 worker whose inner
	 * side was planned for 8 does not outbid the rest; read by more, a GPU
	 * join's inner side costs less (gpuhash_inner_share_charge).
	 */
	if (parallel_inner)
	{
		Cost		d = gpuhash_inner_share_charge(outer_partial, inner_path);

		cpath->path.startup_cost += d;
		cpath->path.total_cost += d;
	}
	cpath->path.startup_cost += serial_penalty;
	cpath->path.total_cost += serial_penalty;
	if (gpuhash_gains_enough(&cpath->path, joinrel->partial_pathlist))
		add_partial_path(joinrel, &cpath->path);
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

/*
 * Will the join get a partial GPU path, in this call or in the one with the
 * sides swapped?  That needs a partial path of the outer side, which a
 * unique-ified outer side never is.  Core offers inner, left (as right) and
 * full joins both ways; a semi join as itself and as a unique-ified outer
 * side's join, whose inner side is the semi join's outer one; an anti join
 * one way only.
 */
bool
gpuhash_partial_join_possible(RelOptInfo *joinrel, RelOptInfo *outerrel, RelOptInfo *innerrel,
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
bool
gpuhash_swapped_partial_possible(RelOptInfo *outerrel, RelOptInfo *innerrel, JoinType jointype)
{
	if (jointype != JOIN_INNER && jointype != JOIN_LEFT && jointype != JOIN_RIGHT &&
		jointype != JOIN_FULL && jointype != JOIN_UNIQUE_OUTER)
		return false;
	return usable_partial(innerrel) &&
		(gpuhash_cheapest_parallel_safe(outerrel) != NULL || usable_partial(outerrel));
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
bool
gpuhash_add_partial_paths(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				  RelOptInfo *innerrel, JoinType jointype, JoinType jt,
				  bool single_match, Path *inner_path, KeyChoice *kc)
{
	Path	   *inner_safe;
	Path	   *inner_partial;
	Path	   *inner_absorbed;
	bool		absorb = gpuhash_outer_absorbable(root, outerrel, jointype);
	bool		made = false;

	if (jointype == JOIN_UNIQUE_OUTER || outerrel->partial_pathlist == NIL)
		return false;
	if (jointype == JOIN_UNIQUE_INNER)
		inner_safe = inner_path->parallel_safe ? inner_path : NULL;
	else
		inner_safe = gpuhash_cheapest_parallel_safe(innerrel);
	inner_partial = jointype != JOIN_UNIQUE_INNER && innerrel->partial_pathlist != NIL ?
		linitial(innerrel->partial_pathlist) : NULL;
	if (inner_partial && (inner_partial->param_info != NULL || !inner_partial->parallel_safe))
		inner_partial = NULL;

	/*
	 * A partial inner side that is not a Seq Scan is offered read by the
	 * join itself as well, as the outer side is (heap_scan.c).
	 */
	inner_absorbed = inner_partial != NULL && inner_partial->pathtype != T_SeqScan &&
		gpuhash_absorb_inner_scan && gpuhash_scan_absorbable(root, innerrel) ?
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
