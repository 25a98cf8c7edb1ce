/*-------------------------------------------------------------------------
 *
 * agg_join_paths.c
 *	  Offers the GPU aggregate over a join: where the grouped relation's
 *	  input is an INNER join of a heap table R whose pages the walker reads
 *	  (GpuPreAgg's rules for its one relation) and another side I, a base
 *	  relation or a join that PostgreSQL plans.  I's rows become the
 *	  dimension the walker joins each row of R to on the device, by the
 *	  exact key the join's `=` clauses make (keys.c); the join's other
 *	  clauses, the group columns and the aggregates' arguments may read
 *	  columns of both sides, in forms the GPU computes.
 *
 *	  The clauses between R and I come from what the join hook saw
 *	  (agg_join_stash.c): create_upper_paths_hook gets only the join
 *	  relation.  I's path is its cheapest unparameterized one, run whole by
 *	  every participant (parallel-safe where the GpuPreAgg is
 *	  parallel-aware), as a parallel-oblivious hash join runs its inner
 *	  side.  The shapes are GpuPreAgg's own (agg_paths.c): Finalize
 *	  Aggregate over a Gather of a parallel-aware GpuPreAgg where core
 *	  could aggregate in parallel, else over a serial one; add_path weighs
 *	  them against core's paths, none of which changes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "agg_catalog.h"
#include "agg_plan.h"
#include "agg_qual.h"
#include "agg_resident.h"
#include "planner/planner_int.h"

#include "catalog/pg_constraint.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"

/* What one split of the join into R and I makes of it. */
typedef struct JoinAgg
{
	RelOptInfo *rel;			/* R: its pages walked */
	RelOptInfo *inner;			/* I */
	Path	   *inner_path;
	int			nkeys;
	AttrNumber	key_attno[GH_PAGE_MAX_KEYS];	/* R's key columns */
	GpuKeyConv	key_conv[GH_PAGE_MAX_KEYS];
	int			key_width[GH_PAGE_MAX_KEYS];
	List	   *outer_keys;		/* Vars of R */
	List	   *inner_keys;		/* expressions over I */
	List	   *clauses;		/* the join's further clauses, bare */
	List	   *conds;			/* the aggregates' CASE conditions */
	List	   *carried;		/* I's columns the GROUP BY determines
								 * (gpuhash_preagg_target_ok) */
	AttrNumber	cols[GH_AGG_TARGET_COLS];	/* R's columns read */
	int			ncols;
	bool		preserve_inner; /* I LEFT JOIN R (agg_join_outer.c) */
} JoinAgg;

static void
decline(const char *why)
{
	elog(DEBUG1, "gpuhash: no GPU aggregate over the join: %s", why);
}

/*
 * The join's clauses between R and I: each hashable `=` clause of an exact
 * key (keys.c) whose R side is a plain column becomes a key column, while
 * the packed key fits in 64 bits; every other clause is a further clause
 * the walker runs over each pair.  At least one key.
 */
static bool
split_clauses(GpuAggJoinStash *st, JoinAgg *ja)
{
	int			bits = 0;
	ListCell   *lc;

	foreach(lc, st->restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		GpuKeySpec	spec;
		Node	   *okey;
		Node	   *ikey;

		if (rinfo->pseudoconstant)
		{
			decline("a pseudoconstant join clause");
			return false;
		}
		/* above an outer join: a filter of the null-extended rows, not a join clause */
		if (ja->preserve_inner && RINFO_IS_PUSHED_DOWN(rinfo, st->joinrelids))
		{
			decline("a clause applied above the outer join");
			return false;
		}
		if (contain_volatile_functions((Node *) rinfo->clause) ||
			contain_subplans((Node *) rinfo->clause))
		{
			decline("a volatile join clause, or a subplan");
			return false;
		}
		if (ja->nkeys >= GH_PAGE_MAX_KEYS ||
			!gpuhash_agg_key_clause(rinfo, ja->rel, ja->inner->relids, bits, &spec, &okey, &ikey))
		{
			ja->clauses = lappend(ja->clauses, rinfo->clause);
			continue;
		}
		ja->key_attno[ja->nkeys] = ((Var *) okey)->varattno;
		ja->key_conv[ja->nkeys] = spec.outer_conv;
		ja->key_width[ja->nkeys] = spec.width;
		ja->outer_keys = lappend(ja->outer_keys, okey);
		ja->inner_keys = lappend(ja->inner_keys, ikey);
		ja->nkeys++;
		bits += spec.width;
	}
	if (ja->nkeys == 0)
	{
		decline("no `=` clause makes an exact key");
		return false;
	}
	return true;
}

/*
 * The columns of I that the dimension keeps (those the group columns,
 * arguments, conditions and further clauses read) and those the inner
 * keys read: each must be in the inner plan's output (the executor finds
 * it there), the kept ones no more than a dimension holds; the carried
 * columns are read from the inner rows on the CPU, never kept in it.  R's columns
 * that the conditions and clauses read are added to those the walker reads.
 */
static bool
columns_ok(PathTarget *target, JoinAgg *ja, int *ninner)
{
	List	   *kept = pull_var_clause((Node *) list_make3(list_difference_ptr(target->exprs,
																			   ja->carried),
														  ja->conds, ja->clauses),
									   PVC_RECURSE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS);
	List	   *keyvars = pull_var_clause((Node *) list_concat_copy(ja->inner_keys, ja->carried),
										  PVC_RECURSE_PLACEHOLDERS);
	int			nkept = list_length(kept);
	List	   *distinct = NIL;
	ListCell   *lc;

	foreach(lc, list_concat(kept, keyvars))
	{
		Var		   *v = lfirst(lc);
		ListCell   *lc2;
		bool		output = false;

		if (v->varno == ja->rel->relid)
		{
			gpuhash_preagg_add_col(ja->cols, &ja->ncols, v->varattno);
			continue;
		}
		/* the executor matches them by varno and varattno */
		foreach(lc2, ja->inner_path->pathtarget->exprs)
		{
			Var		   *o = lfirst(lc2);

			if (IsA(o, Var) && o->varno == v->varno && o->varattno == v->varattno &&
				o->varlevelsup == 0)
				output = true;
		}
		if (!bms_is_member(v->varno, ja->inner->relids) || !output)
		{
			decline("a column of the inner side that its plan does not output");
			return false;
		}
		if (foreach_current_index(lc) < nkept)
			distinct = list_append_unique(distinct, v);
	}
	*ninner = list_length(distinct);
	if (*ninner > GH_AGG_MAX_INNER)
	{
		decline("more inner columns than a dimension holds");
		return false;
	}
	return true;
}

/*
 * An outer join preserving I: after the walk its matched flags come back
 * (a byte per dimension row, through the service's staging) and are
 * scanned, and each inner row that matched nothing goes up as a row of
 * its own, its columns evaluated by the CPU; costed as if none matched,
 * the most it can be.
 */
static void
cost_unmatched_fold(CustomPath *cp, double inner_rows)
{
	cp->path.total_cost += inner_rows * cpu_operator_cost +
		inner_rows * (cpu_tuple_cost + cpu_operator_cost *
					  list_length(cp->path.pathtarget->exprs));
}

/*
 * Do the dimension's rows fit?  The executor holds them within work_mem x
 * hash_mem_multiplier, and past it batches some shapes only and raises an
 * error in the others, so a dimension estimated beyond it (or beyond
 * gpuhash.max_inner_memory) is not offered.  Its bytes are the executor's
 * own charge for how it will build the dimension (gpuhash_preagg_dim_memory).
 */
static bool
dim_fits(PlannerInfo *root, JoinAgg *ja, Path *inner_path, int ninner, double rows, bool shared)
{
	double		bytes = gpuhash_preagg_dim_memory(root, inner_path, ninner, rows, shared,
												  ja->preserve_inner, ja->carried != NIL);

	/* carried columns: each participant's table of the rows (agg_join_carry.c) */
	if (ja->carried != NIL)
		bytes += rows * 2.0 * (sizeof(void *) + sizeof(uint32));

	if (bytes > (double) gpuhash_max_inner_memory_kb * 1024.0)
	{
		decline("the inner side is beyond gpuhash.max_inner_memory");
		return false;
	}
	if (bytes > (double) get_hash_memory_limit())
	{
		decline("the inner side is beyond work_mem x hash_mem_multiplier");
		return false;
	}
	return true;
}

/*
 * The carried rows' table's key (agg_join_carry.c): the primary key columns
 * of the carried columns' relations, each among the group columns
 * (carried_ok).
 */
static int
carry_key_columns(PlannerInfo *root, List *carried)
{
	Relids		rels = NULL;
	int			n = 0;
	int			rel = -1;
	ListCell   *lc;

	foreach(lc, carried)
		rels = bms_add_member(rels, ((Var *) lfirst(lc))->varno);
	while ((rel = bms_next_member(rels, rel)) >= 0)
	{
		Oid			constraint;

		n += bms_num_members(get_primary_key_attnos(planner_rt_fetch(rel, root)->relid, false,
													&constraint));
	}
	return n;
}

/* One CustomPath over the split, in parent (copied: relids of R and I). */
static CustomPath *
make_join_path(PlannerInfo *root, RelOptInfo *parent, RelOptInfo *input_rel, JoinAgg *ja,
			   PathTarget *target, Path *partial_scan, int ninner,
			   GroupPathExtraData *extra, Path *shared_inner)
{
	CustomPath *cp = makeNode(CustomPath);
	RelOptInfo *named = makeNode(RelOptInfo);
	double		participants = partial_scan ? gpuhash_parallel_divisor(partial_scan) : 1.0;
	double		pairs = input_rel->rows / participants;

	/* as make_preagg_path: core sets custom_relids from the parent's relids */
	memcpy(named, parent, sizeof(RelOptInfo));
	named->relids = bms_copy(input_rel->relids);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = named;
	cp->path.pathtarget = target;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = partial_scan != NULL;
	cp->path.parallel_safe = partial_scan != NULL;
	cp->path.parallel_workers = partial_scan ? partial_scan->parallel_workers : 0;
	cp->path.pathkeys = NIL;
	cp->flags = 0;
	cp->custom_paths = list_make1(shared_inner ? shared_inner : ja->inner_path);
	/*
	 * for PlanCustomPath: R, the key expressions of each side, the clauses,
	 * shared, whether I is preserved
	 */
	cp->custom_private = lappend(list_make5(makeInteger(ja->rel->relid), ja->outer_keys,
											ja->inner_keys, ja->clauses,
											makeInteger(shared_inner != NULL)),
								 makeInteger(ja->preserve_inner));
	cp->methods = &gpuhash_preagg_path_methods;
	gpuhash_cost_preagg_join(root, cp, ja->rel, shared_inner ? shared_inner : ja->inner_path,
							 ja->nkeys, ninner, partial_scan, pairs,
							 gpuhash_preagg_groups(root, extra, pairs),
							 shared_inner ? ja->inner->rows : -1.0, ja->preserve_inner,
							 gpuhash_preagg_resident_planned(root) ?
							 gpuhash_preagg_groups(root, extra, input_rel->rows) : -1.0,
							 ja->carried != NIL);
	if (ja->preserve_inner)
		cost_unmatched_fold(cp, ja->inner_path->rows);
	if (ja->carried != NIL)
		gpuhash_cost_preagg_carry(cp, shared_inner ? ja->inner->rows : ja->inner_path->rows,
								  carry_key_columns(root, ja->carried), list_length(ja->carried));
	return cp;
}

static bool
placeholder_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, PlaceHolderVar))
		return true;
	return expression_tree_walker(node, placeholder_walker, context);
}

static bool
contains_placeholder(Node *node)
{
	return placeholder_walker(node, NULL);
}

/* The paths of one split, st, of input_rel into R and I. */
static void
add_split_paths(PlannerInfo *root, GpuAggJoinStash *st, RelOptInfo *input_rel,
				RelOptInfo *grouped_rel, RelOptInfo *partial_rel, PathTarget *target,
				GroupPathExtraData *extra, List *native)
{
	JoinAgg		ja;
	Path	   *scan = NULL;
	Path	   *each;
	CustomPath *cp;
	int			ninner;

	memset(&ja, 0, sizeof(ja));
	ja.preserve_inner = st->preserve_inner;
	ja.rel = find_base_rel(root, st->outer_relid);
	ja.inner = bms_membership(st->inner_relids) == BMS_SINGLETON ?
		find_base_rel(root, bms_singleton_member(st->inner_relids)) :
		find_join_rel(root, st->inner_relids);
	/* GEQO may have thrown this split's join relation away */
	if (ja.inner == NULL || !gpuhash_preagg_rel_ok(root, ja.rel))
		return;
	if (ja.inner->lateral_relids != NULL || IS_DUMMY_REL(ja.inner))
	{
		decline("the inner side has no unparameterized path");
		return;
	}

	/*
	 * Where core could aggregate in parallel, the parallel-aware GpuPreAgg
	 * is the offer, its inner path the cheapest one that may run in every
	 * participant; else (or where there is none) the serial one, over the
	 * inner side's cheapest path.
	 */
	if (partial_rel != NULL && partial_rel->consider_parallel &&
		(scan = gpuhash_preagg_partial_seqscan(root, ja.rel)) != NULL &&
		(ja.inner_path = gpuhash_cheapest_parallel_safe(ja.inner)) == NULL)
		scan = NULL;
	if (scan == NULL)
		ja.inner_path = ja.inner->cheapest_total_path;
	if (ja.inner_path == NULL || ja.inner_path->param_info != NULL)
	{
		decline("the inner side has no unparameterized path");
		return;
	}
	/*
	 * Over an outer join a PlaceHolderVar of R's side goes NULL with its
	 * row, which the expression it stands for need not: not taken.
	 */
	if (ja.preserve_inner && contains_placeholder((Node *) target->exprs))
	{
		decline("a placeholder over the outer join");
		return;
	}
	if (!split_clauses(st, &ja) ||
		!gpuhash_preagg_target_ok(root, target, ja.rel->relid, ja.inner->relids,
								  ja.cols, &ja.ncols, &ja.conds,
								  ja.preserve_inner ? NULL : &ja.carried) ||
		!columns_ok(target, &ja, &ninner))
		return;
	/* the executor compiles both into one program: so here */
	if (!gpuhash_agg_qual_compiles(list_concat_copy(ja.clauses, ja.conds), ja.rel->relid,
								   ja.inner->relids))
	{
		decline("a join clause or condition the GPU does not take");
		return;
	}
	if (!gpuhash_preagg_walker_takes(root, ja.rel, ja.key_attno, ja.key_conv, ja.key_width,
									 ja.nkeys, ja.cols, ja.ncols))
		return;

	/* where core could go parallel */
	if (partial_rel != NULL && partial_rel->consider_parallel)
		scan = gpuhash_preagg_partial_seqscan(root, ja.rel);
	/*
	 * I's cheapest path run whole by each participant: where it may run in
	 * workers.  Not over an outer join preserving I: a participant cannot
	 * tell the inner rows only another one matched (agg_join_outer.c).
	 */
	each = ja.inner_path->parallel_safe && !ja.preserve_inner ? scan : NULL;
	if (dim_fits(root, &ja, ja.inner_path, ninner, ja.inner_path->rows, false))
	{
		cp = make_join_path(root, each ? partial_rel : grouped_rel, input_rel, &ja, target, each,
							ninner, extra, NULL);
		elog(DEBUG1, "gpuhash: GPU aggregate over the join of %u and %d relation(s)%s: cost %.2f..%.2f, %.0f groups",
			 ja.rel->relid, bms_num_members(ja.inner->relids), each ? ", parallel" : "",
			 cp->path.startup_cost, cp->path.total_cost, cp->path.rows);
		gpuhash_preagg_offer(root, grouped_rel, partial_rel, cp, extra, input_rel->rows, native);
		if (!ja.preserve_inner)
			gpuhash_preagg_offer_owned(root, grouped_rel, cp, extra, native);
	}

	/*
	 * In parallel, where I has a partial path: the participants read I's
	 * rows together with it and build one dimension that all of them probe
	 * (agg_join_par.c), as a Parallel Hash shares one table; add_path keeps
	 * whichever of the two variants is cheaper.
	 */
	if (scan != NULL && gpuhash_preagg_shared_dim &&
		(ja.inner->reloptkind == RELOPT_BASEREL || ja.inner->partial_pathlist != NIL))
	{
		/*
		 * A base relation's Parallel Seq Scan; a join's cheapest partial
		 * path, whose plan's output the executor reads I's columns from
		 * (agg_plan.c's inner_outputs)
		 */
		Path	   *pi = ja.inner->reloptkind == RELOPT_BASEREL ?
			gpuhash_preagg_partial_seqscan(root, ja.inner) :
			linitial(ja.inner->partial_pathlist);

		if (pi != NULL && pi->param_info != NULL)
			pi = NULL;

		if (pi != NULL && pi->parallel_safe &&
			dim_fits(root, &ja, pi, ninner, ja.inner->rows, true))
		{
			cp = make_join_path(root, partial_rel, input_rel, &ja, target, scan, ninner, extra,
								pi);
			elog(DEBUG1, "gpuhash: ... with one shared dimension: cost %.2f..%.2f",
				 cp->path.startup_cost, cp->path.total_cost);
			gpuhash_preagg_offer(root, grouped_rel, partial_rel, cp, extra, input_rel->rows,
								 native);
			if (!ja.preserve_inner)
				gpuhash_preagg_offer_owned(root, grouped_rel, cp, extra, native);
		}
	}
}

/*
 * From the upper hook, for a grouped relation over a join relation: a
 * GpuPreAgg path for each split of it the join hook recorded.
 */
void
gpuhash_add_preagg_join_paths(PlannerInfo *root, RelOptInfo *input_rel,
							  RelOptInfo *grouped_rel, GroupPathExtraData *extra)
{
	List	   *splits = gpuhash_agg_stashed_joins(root, input_rel->relids);
	RelOptInfo *partial_rel;
	PathTarget *target;
	List	   *native;
	ListCell   *lc;

	if (!gpuhash_gpu_aggregate_join || IS_DUMMY_REL(input_rel) || gpuhash_plan_device() < 0 ||
		(splits == NIL && !bms_equal(input_rel->relids, root->all_baserels)))
		return;
	partial_rel = gpuhash_preagg_core_partial_rel(root, grouped_rel);
	target = partial_rel ? partial_rel->reltarget :
		gpuhash_preagg_partial_target(root, grouped_rel->reltarget, extra->havingQual);
	native = gpuhash_preagg_native_copies(grouped_rel->pathlist);
	foreach(lc, splits)
		add_split_paths(root, lfirst(lc), input_rel, grouped_rel, partial_rel, target, extra,
						native);
	/* the join as a star of several dimensions (agg_star_paths.c) */
	gpuhash_add_preagg_star_paths(root, input_rel, grouped_rel, partial_rel, target, extra,
								  native);
}
