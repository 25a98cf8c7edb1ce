/*-------------------------------------------------------------------------
 *
 * planner_int.h
 *	  What the planner's files share: the keys and clauses a GPU join path
 *	  is made of, and the functions that make, offer and plan its paths.
 *	  planner.c makes the paths, partial_paths.c the parallel ones, plan.c
 *	  turns the chosen one into a CustomScan.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_PLANNER_INT_H
#define GPUHASH_PLANNER_INT_H

#include "gpuhash.h"

#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

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

/*
 * An absorbed outer scan that will go by pages (page_price.c): what the
 * CPU still does per row that comes back.
 */
typedef struct GpuPagePrice
{
	bool		all_rows;		/* every row passing the walker's clauses comes
								 * back, not only the joining ones */
	QualCost	cpu_quals;		/* the clauses left to the CPU */
	Selectivity gpu_sel;		/* of the clauses the walker runs */
	Selectivity cpu_sel;		/* of those left to the CPU */
} GpuPagePrice;

/* join_paths.c */
extern bool gpuhash_choose_keys(List *restrictlist, RelOptInfo *joinrel, RelOptInfo *outerrel,
								RelOptInfo *innerrel, bool isouter, KeyChoice *kc);
extern CustomPath *gpuhash_make_join_path(PlannerInfo *root, RelOptInfo *joinrel,
										  JoinType jointype, bool single_match,
										  Path *outer_path, Path *inner_path,
										  bool parallel_inner, bool parallel_aware,
										  bool outer_scan, KeyChoice *kc, double rows);
extern bool gpuhash_inner_fits(Path *inner_path);
extern bool gpuhash_parallel_ok(RelOptInfo *joinrel, Path *outer_path, Path *inner_path);
extern void gpuhash_add_serial_paths(PlannerInfo *root, RelOptInfo *joinrel,
									 RelOptInfo *outerrel, JoinType jointype, JoinType jt,
									 bool single_match, Path *outer_path, Path *inner_path,
									 KeyChoice *kc, bool parallel_ok);
extern bool gpuhash_gains_enough(Path *path, List *native_paths);
extern bool gpuhash_is_join_path(Path *p);
extern bool gpuhash_scan_absorbable(PlannerInfo *root, RelOptInfo *rel);
extern bool gpuhash_outer_absorbable(PlannerInfo *root, RelOptInfo *outerrel,
									 JoinType jointype);

/* costs.c */
extern Selectivity gpuhash_match_fraction(PlannerInfo *root, JoinPathExtraData *extra,
										  RelOptInfo *side, RelOptInfo *other,
										  List *hash_rinfos);
extern Cost gpuhash_right_fill_cost(Path *inner_path, bool parallel_inner, double out_rows,
									double share_rows, PathTarget *target);

/* right_paths.c */
extern void gpuhash_add_right_paths(PlannerInfo *root, RelOptInfo *joinrel,
									RelOptInfo *outerrel, RelOptInfo *innerrel,
									JoinType jointype, JoinPathExtraData *extra);

/* partial_paths.c */
extern Path *gpuhash_cheapest_parallel_safe(RelOptInfo *rel);
extern bool gpuhash_partial_join_possible(RelOptInfo *joinrel, RelOptInfo *outerrel,
										  RelOptInfo *innerrel, JoinType jointype);
extern bool gpuhash_swapped_partial_possible(RelOptInfo *outerrel, RelOptInfo *innerrel,
											 JoinType jointype);
extern bool gpuhash_add_partial_paths(PlannerInfo *root, RelOptInfo *joinrel,
									  RelOptInfo *outerrel, RelOptInfo *innerrel,
									  JoinType jointype, JoinType jt, bool single_match,
									  Path *inner_path, KeyChoice *kc);

/* page_price.c */
extern List *gpuhash_order_quals(PlannerInfo *root, List *rinfos);
extern bool gpuhash_page_price_of(PlannerInfo *root, Path *outer_path, Path *inner_path,
								  JoinType jointype, KeyChoice *kc, bool parallel_aware,
								  bool parallel_inner, bool chained, GpuPagePrice *price);
extern Cost gpuhash_page_scan_run(Path *outer_path, Cost outer_run);
extern double gpuhash_page_records(Path *outer_path, const GpuPagePrice *price,
								   double emit_rows);

/* plan.c */
extern Plan *gpuhash_plan_gpu_join(PlannerInfo *root, RelOptInfo *rel,
								   struct CustomPath *best_path, List *tlist,
								   List *clauses, List *custom_plans);

#endif							/* GPUHASH_PLANNER_INT_H */
