/*-------------------------------------------------------------------------
 *
 * agg_hook.c
 *	  The GPU aggregate's hooks into the planner: create_upper_paths_hook,
 *	  which offers GpuPreAgg in the grouped relation over one table
 *	  (agg_paths.c) or over a join (agg_join_paths.c), and the planner hook
 *	  that keeps what the join hook saw (agg_join_stash.c).  Only this file
 *	  calls both offers, so that neither calls the other.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "agg_plan.h"
#include "agg_resident.h"

#include "optimizer/planner.h"

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

static void
gpu_upper_paths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
				RelOptInfo *output_rel, void *extra)
{
	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage == UPPERREL_GROUP_AGG && extra != NULL && enable_gpuhashjoin &&
		gpuhash_gpu_aggregate &&
		gpuhash_preagg_query_ok(root, (GroupPathExtraData *) extra))
	{
		if (input_rel->reloptkind == RELOPT_BASEREL)
			gpuhash_add_preagg_paths(root, input_rel, output_rel,
									 (GroupPathExtraData *) extra);
		else
			gpuhash_add_preagg_join_paths(root, input_rel, output_rel,
										  (GroupPathExtraData *) extra);
	}
}

/* _PG_init: the scan methods (workers copy the plan) and the hooks, chained */
void
gpuhash_agg_planner_init(void)
{
	RegisterCustomScanMethods(&gpuhash_preagg_scan_methods);
	gpuhash_agg_resident_gucs();
	gpuhash_agg_stash_init();
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = gpu_upper_paths;
}
