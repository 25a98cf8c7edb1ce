/*-------------------------------------------------------------------------
 *
 * right_paths.c
 *	  Right semi and right anti GpuHashJoin paths: a semi or anti join
 *	  whose table is built of its preserved (left) side and probed by the
 *	  other.  PostgreSQL 15 builds a semi join's table of the side it looks
 *	  up (or of a unique-ified copy of it), so a join of a few filtered
 *	  rows against a large table reads and hashes the large one, or probes
 *	  its index once per row.  Built the other way, the large side's pages
 *	  go to the page walker as any outer scan's, each of its rows that
 *	  matches marks the table rows it matches (executor.c: no row comes out
 *	  of the probe), and after the probe each table row comes out once:
 *	  matched for semi, never matched for anti (the fill a right join
 *	  already has; in a parallel plan every participant fills chunks of
 *	  the table once the last one's marks are in, parallel.c).
 *
 *	  Offered beside the join's other paths, with its own keys (the sides
 *	  swapped), both serial and parallel-aware as planner.c offers a join;
 *	  costs.c prices it as any GpuHashJoin, with the fill charged once
 *	  (gpuhash_right_fill_cost).  Not where an anti join has pushed-down
 *	  clauses (they would filter the fill's rows: none are expected there).
 *
 *-------------------------------------------------------------------------
 */
#include "planner_int.h"

void
gpuhash_add_right_paths(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
						RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	/* the probe side is the join's inner (right) side, the table its outer */
	RelOptInfo *probe_rel = innerrel;
	RelOptInfo *build_rel = outerrel;
	JoinType	jt = jointype == JOIN_SEMI ? GPUHASH_JOIN_RIGHT_SEMI : GPUHASH_JOIN_RIGHT_ANTI;
	Path	   *probe_path = probe_rel->cheapest_total_path;
	Path	   *build_path = build_rel->cheapest_total_path;
	KeyChoice	kc;

	Assert(jointype == JOIN_SEMI || jointype == JOIN_ANTI);
	if (gpuhash_right_semi_anti == GPUHASH_RIGHT_OFF || probe_path == NULL || build_path == NULL ||
		probe_path->param_info || build_path->param_info)
		return;
	if (!gpuhash_choose_keys(extra->restrictlist, joinrel, probe_rel, build_rel,
							 jointype == JOIN_ANTI, &kc) || kc.pushed_rinfos != NIL)
		return;
	if (gpuhash_plan_device() < 0)
		return;
	if (!gpuhash_inner_fits(build_path))
		return;

	/* a probe row that finds no table row is dropped: a Bloom filter may pay */
	kc.key_filter = gpuhash_key_filter_pays(root, probe_rel, build_rel, JOIN_INNER, extra,
											kc.hash_rinfos);
	/* the probe rows that mark a table row, as costs.c counts a semi join's matches */
	kc.outer_match_frac = gpuhash_match_fraction(root, extra, probe_rel, build_rel,
												 kc.hash_rinfos);

	/* as planner.c: where a partial path can be made, only that */
	if (gpuhash_partial_join_possible(joinrel, probe_rel, build_rel, JOIN_INNER) &&
		gpuhash_add_partial_paths(root, joinrel, probe_rel, build_rel, JOIN_INNER, jt,
								  false, build_path, &kc))
		return;

	gpuhash_add_serial_paths(root, joinrel, probe_rel, JOIN_INNER, jt, false, probe_path,
							 build_path, &kc,
							 gpuhash_parallel_ok(joinrel, probe_path, build_path));
}
