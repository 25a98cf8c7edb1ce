/*-------------------------------------------------------------------------
 *
 * agg_plan.h
 *	  The planner's side of the GPU aggregate (GpuPreAgg): the upper-path
 *	  hook that offers it (agg_paths.c), its costs (agg_costs.c) and the
 *	  CustomScan it becomes (agg_plan.c).
 *
 *	  The plan, as the executor (agg_exec.c) reads it after setrefs:
 *	  scan.scanrelid is the relation; custom_scan_tlist holds the group
 *	  columns (Vars of the relation), then the partial Aggrefs
 *	  (AGGSPLIT_INITIAL_SERIAL), then, marked resjunk, the relation's
 *	  columns the quals read that are not group columns; scan.plan.targetlist
 *	  is one INDEX_VAR Var per non-junk custom_scan_tlist entry, in order;
 *	  scan.plan.qual, as setrefs leaves it, reads INDEX_VAR Vars of that
 *	  list: gpuhash_preagg_scan_quals() gives them back as the relation's
 *	  Vars, in a Seq Scan's order; custom_private is
 *	  list_make1(makeInteger(number of group columns)).
 *
 *	  Over a join (the aggregate over a join, agg_join_paths.c): scanrelid
 *	  is R, the relation whose pages are walked; custom_plans is the inner
 *	  plan (not parallel-aware; its targetlist every column of the inner
 *	  side I the node reads); custom_relids R's and I's relids;
 *	  custom_private list_make2(makeInteger(group columns),
 *	  makeInteger(njoinkeys)); custom_exprs the njoinkeys key columns of R
 *	  (Vars), then the njoinkeys inner key expressions over I, then the
 *	  join's further clauses (bare, implicitly ANDed, over R and I).
 *	  set_customscan_references fixes custom_exprs against
 *	  custom_scan_tlist as it fixes the quals: the columns of R and I they
 *	  read are junk entries of custom_scan_tlist (after the quals' columns),
 *	  and their Vars INDEX_VAR ones; the Vars of I in custom_scan_tlist stay
 *	  plain (varno the range table index).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_AGG_PLAN_H
#define GPUHASH_AGG_PLAN_H

#include "postgres.h"

#include "gpuhash.h"

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

/* custom_private's slots (extend only by appending) */
#define GPUHASH_PREAGG_PRIV_NGROUPCOLS 0
#define GPUHASH_PREAGG_PRIV_NJOINKEYS 1	/* absent or 0: no join */
#define GPUHASH_PREAGG_PRIV_SHARED_DIM 2	/* absent or 0: a dimension per
												 * participant */
#define GPUHASH_PREAGG_PRIV_PRESERVE_INNER 3	/* absent or 0: an inner join;
												 * 1: I LEFT JOIN R (agg_join_outer.c) */

/* agg_plan.c */
extern CustomScanMethods gpuhash_preagg_scan_methods;
extern CustomPathMethods gpuhash_preagg_path_methods;
extern int	gpuhash_preagg_ngroupcols(const CustomScan *cscan);
extern int	gpuhash_preagg_njoinkeys(const CustomScan *cscan);
extern int	gpuhash_preagg_noutputs(const CustomScan *cscan);
extern List *gpuhash_preagg_scan_quals(const CustomScan *cscan);
extern Node *gpuhash_preagg_unindex(Node *node, const CustomScan *cscan);
extern int	gpuhash_preagg_inner_pos(const CustomScan *cscan, int d, const Var *v);

/* agg_exec.c: the executor's state of a GpuPreAgg plan */
extern Node *gpuhash_preagg_create_state(CustomScan *cscan);

/* agg_hook.c */
extern void gpuhash_agg_planner_init(void);

/* agg_paths.c */
extern void gpuhash_add_preagg_paths(PlannerInfo *root, RelOptInfo *input_rel,
									 RelOptInfo *grouped_rel, GroupPathExtraData *extra);
/* the relation's columns a GPU aggregate's keys and arguments read, at most */
#define GH_AGG_TARGET_COLS (GH_AGG_MAX_KEYS + 3 * GH_AGG_MAX_AGGS)
extern void gpuhash_preagg_add_col(AttrNumber *cols, int *ncols, AttrNumber attno);
extern bool gpuhash_preagg_target_ok(PlannerInfo *root, PathTarget *target, Index relid,
									 Relids inner_relids, AttrNumber *cols, int *ncols,
									 List **conds, List **carried);
extern bool gpuhash_preagg_query_ok(PlannerInfo *root, GroupPathExtraData *extra);
extern bool gpuhash_preagg_rel_ok(PlannerInfo *root, RelOptInfo *rel);
extern bool gpuhash_preagg_walker_takes(PlannerInfo *root, RelOptInfo *rel,
										const AttrNumber *key_attno, const GpuKeyConv *conv,
										const int *width, int nkeys,
										const AttrNumber *cols, int ncols);
extern double gpuhash_preagg_groups(PlannerInfo *root, GroupPathExtraData *extra,
									double input_rows);
extern Path *gpuhash_preagg_partial_seqscan(PlannerInfo *root, RelOptInfo *rel);
extern PathTarget *gpuhash_preagg_partial_target(PlannerInfo *root,
												 PathTarget *grouping_target, Node *having);
extern RelOptInfo *gpuhash_preagg_core_partial_rel(PlannerInfo *root,
												   RelOptInfo *grouped_rel);
extern List *gpuhash_preagg_native_copies(List *pathlist);
extern void gpuhash_preagg_offer(PlannerInfo *root, RelOptInfo *grouped_rel,
								 RelOptInfo *partial_rel, CustomPath *cp,
								 GroupPathExtraData *extra, double input_rows, List *native);
extern void gpuhash_preagg_offer_owned(PlannerInfo *root, RelOptInfo *grouped_rel,
									   CustomPath *cp, GroupPathExtraData *extra,
									   List *native);

/* agg_join_paths.c: the aggregate over a join */
extern void gpuhash_add_preagg_join_paths(PlannerInfo *root, RelOptInfo *input_rel,
										  RelOptInfo *grouped_rel, GroupPathExtraData *extra);

/*
 * agg_join_stash.c: an INNER join the join hook saw, of a base relation R
 * the walker could read and another side I, making joinrelids.
 */
typedef struct GpuAggJoinStash
{
	PlannerInfo *root;
	Relids		joinrelids;
	Index		outer_relid;	/* R */
	Relids		inner_relids;	/* I */
	List	   *restrictlist;	/* RestrictInfos of the join of R and I */
	bool		preserve_inner; /* I LEFT JOIN R: every row of I goes up, R's
								 * columns NULL where no row of R matched */
} GpuAggJoinStash;

extern void gpuhash_agg_stash_join(PlannerInfo *root, RelOptInfo *joinrel,
								   RelOptInfo *outerrel, RelOptInfo *innerrel,
								   JoinType jointype, List *restrictlist);
extern List *gpuhash_agg_stashed_joins(PlannerInfo *root, Relids joinrelids);
extern void gpuhash_agg_stash_init(void);
extern bool gpuhash_agg_key_clause(RestrictInfo *rinfo, RelOptInfo *rel, Relids inner, int bits,
								   GpuKeySpec *spec, Node **okey, Node **ikey);

/*
 * custom_private's last entry over a star (agg_star_paths.c): a List of
 * this tag, then each further dimension's key count (the first's is
 * GPUHASH_PREAGG_PRIV_NJOINKEYS); custom_plans then holds every
 * dimension's plan, in order.
 */
#define GPUHASH_PREAGG_STAR_TAG "gpuhash star"

/* agg_star_paths.c: the aggregate over a star */
extern void gpuhash_add_preagg_star_paths(PlannerInfo *root, RelOptInfo *input_rel,
										  RelOptInfo *grouped_rel, RelOptInfo *partial_rel,
										  PathTarget *target, GroupPathExtraData *extra,
										  List *native);
extern List *gpuhash_preagg_star_of(const List *custom_private);

/*
 * custom_private's entry over a join (agg_plan.c): a List of this tag, the
 * scanned relation's range table index when planned, then per inner plan
 * (custom_plans' order) two IntLists: the range table index and column of
 * the plain Var each output position carries (0, 0 for any other
 * expression), as the plan was made, before setrefs.
 */
#define GPUHASH_PREAGG_OUTPUTS_TAG "gpuhash inner outputs"

/* agg_costs.c */
extern void gpuhash_cost_preagg(PlannerInfo *root, CustomPath *cpath, RelOptInfo *baserel,
								Path *partial_scan, double groups);
extern void gpuhash_cost_preagg_join(PlannerInfo *root, CustomPath *cpath, RelOptInfo *baserel,
									 Path *inner_path, int nkeys, int ninner,
									 Path *partial_scan, double pairs, double groups,
									 double shared_rows, bool preserve_inner,
									 double all_groups, bool from_rows);
extern double gpuhash_preagg_dim_memory(PlannerInfo *root, Path *inner_path, int ninner,
										double rows, bool shared, bool preserve_inner,
										bool from_rows);
extern void gpuhash_cost_preagg_carry(CustomPath *cpath, double inner_rows, int nkeycols,
									  int ncarried);
extern void gpuhash_cost_preagg_star_dim(CustomPath *cpath, RelOptInfo *baserel,
										 Path *inner_path, int nkeys, int ninner,
										 Path *partial_scan);

#endif							/* GPUHASH_AGG_PLAN_H */
