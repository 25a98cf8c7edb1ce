/*-------------------------------------------------------------------------
 *
 * agg_join_stash.c
 *	  What the join hook saw, kept for the aggregate over a join.
 *
 *	  create_upper_paths_hook gets the grouped relation's input, a join
 *	  relation, but not the clauses that join its sides: PostgreSQL builds
 *	  a join's restriction list for each split of it into two sides, and
 *	  hands it only to set_join_pathlist_hook.  So gpuhash's join hook
 *	  (planner.c) records here, for each INNER join of the query's final
 *	  join relation whose one side is a single base relation that the page
 *	  walker could read (or outer join whose nullable side it is), that
 *	  relation R, the other side I and the clauses between them; the upper
 *	  hook (agg_join_paths.c) looks them up.
 *
 *	  Entries are kept per PlannerInfo (each subquery has its own) in the
 *	  planner's memory, root->planner_cxt, which outlives GEQO's per-tour
 *	  contexts; the list is emptied around each planner() call, so nothing
 *	  outlives the planning that made it, and a planning nested in another
 *	  (a function planned while estimating) gets a list of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "agg_plan.h"
#include "planner/planner_int.h"

#include "optimizer/planner.h"

static planner_hook_type prev_planner_hook = NULL;

/* the current planner() call's entries (GpuAggJoinStash), or NIL */
static List *stashed = NIL;

static PlannedStmt *
stash_planner(Query *parse, const char *query_string, int cursorOptions,
			  ParamListInfo boundParams)
{
	List	   *outer = stashed;
	PlannedStmt *result;

	stashed = NIL;
	PG_TRY();
	{
		if (prev_planner_hook)
			result = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
		else
			result = standard_planner(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		stashed = outer;
	}
	PG_END_TRY();
	return result;
}

/* Could the GPU aggregate walk rel's pages (its rules, agg_paths.c)? */
static bool
walkable_side(PlannerInfo *root, RelOptInfo *rel)
{
	return rel->reloptkind == RELOPT_BASEREL && rel->lateral_relids == NULL &&
		!IS_DUMMY_REL(rel) && gpuhash_scan_absorbable(root, rel);
}

static void
stash_one(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *r, RelOptInfo *i,
		  List *restrictlist, bool preserve_inner)
{
	GpuAggJoinStash *st;
	ListCell   *lc;
	MemoryContext old;

	foreach(lc, stashed)
	{
		st = lfirst(lc);
		if (st->root == root && st->outer_relid == r->relid &&
			bms_equal(st->joinrelids, joinrel->relids))
			return;				/* the same split, seen in the other order */
	}
	old = MemoryContextSwitchTo(root->planner_cxt);
	st = palloc0(sizeof(GpuAggJoinStash));
	st->root = root;
	st->joinrelids = bms_copy(joinrel->relids);
	st->outer_relid = r->relid;
	st->inner_relids = bms_copy(i->relids);
	st->restrictlist = list_copy(restrictlist);
	st->preserve_inner = preserve_inner;
	stashed = lappend(stashed, st);
	MemoryContextSwitchTo(old);
}

/*
 * From set_join_pathlist_hook, before anything else it does: records the
 * join if it may be the input of a GPU aggregate over a join (an INNER
 * join making the query's whole join relation, in an aggregating query;
 * or an outer join whose nullable side is the walked relation R: I LEFT
 * JOIN R, seen as JOIN_LEFT with R inner and as JOIN_RIGHT with R outer).
 * Changes nothing the hook or PostgreSQL does.
 */
void
gpuhash_agg_stash_join(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
					   RelOptInfo *innerrel, JoinType jointype, List *restrictlist)
{
	Query	   *parse = root->parse;

	if ((jointype != JOIN_INNER && jointype != JOIN_LEFT && jointype != JOIN_RIGHT) ||
		!enable_gpuhashjoin || !gpuhash_gpu_aggregate ||
		!gpuhash_gpu_aggregate_join ||
		(!parse->hasAggs && parse->groupClause == NIL) || parse->groupingSets != NIL ||
		!bms_equal(joinrel->relids, root->all_baserels))
		return;
	/* R is the nullable side of an outer join, never the preserved one */
	if (jointype != JOIN_LEFT && walkable_side(root, outerrel))
		stash_one(root, joinrel, outerrel, innerrel, restrictlist, jointype == JOIN_RIGHT);
	if (jointype != JOIN_RIGHT && walkable_side(root, innerrel))
		stash_one(root, joinrel, innerrel, outerrel, restrictlist, jointype == JOIN_LEFT);
}

/* The entries recorded for joinrelids in this planning of root. */
List *
gpuhash_agg_stashed_joins(PlannerInfo *root, Relids joinrelids)
{
	List	   *found = NIL;
	ListCell   *lc;

	foreach(lc, stashed)
	{
		GpuAggJoinStash *st = lfirst(lc);

		if (st->root == root && bms_equal(st->joinrelids, joinrelids))
			found = lappend(found, st);
	}
	return found;
}

/* _PG_init, through gpuhash_agg_planner_init: the planner hook, chained */
void
gpuhash_agg_stash_init(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = stash_planner;
}

/*
 * Is rinfo a hashable `=` clause of an exact key (keys.c) between R (rel)
 * and inner relids whose R side is a plain column of R, the packed key
 * still within 64 bits after bits?  Its spec and both sides' expressions.
 */
bool
gpuhash_agg_key_clause(RestrictInfo *rinfo, RelOptInfo *rel, Relids inner, int bits,
					   GpuKeySpec *spec, Node **okey, Node **ikey)
{
	OpExpr	   *op = (OpExpr *) rinfo->clause;
	bool		outer_is_left;

	if (!rinfo->can_join || !OidIsValid(rinfo->hashjoinoperator) || !IsA(op, OpExpr) ||
		list_length(op->args) != 2)
		return false;
	outer_is_left = bms_is_subset(rinfo->left_relids, rel->relids) &&
		bms_is_subset(rinfo->right_relids, inner);
	if (!outer_is_left && !(bms_is_subset(rinfo->left_relids, inner) &&
							bms_is_subset(rinfo->right_relids, rel->relids)))
		return false;
	*okey = outer_is_left ? linitial(op->args) : lsecond(op->args);
	*ikey = outer_is_left ? lsecond(op->args) : linitial(op->args);
	return gpuhash_key_spec_for_op(op->opno, outer_is_left, spec) &&
		bits + spec->width <= 64 && IsA(*okey, Var) &&
		((Var *) *okey)->varno == rel->relid && ((Var *) *okey)->varattno > 0;
}
