/*-------------------------------------------------------------------------
 *
 * agg_costs.c
 *	  The planner's cost of a GpuPreAgg path, by mechanism: the pages each
 *	  participant reads, the CPU handing them to the GPU, the GPU walking
 *	  every tuple on them (deform, the quals it takes, the fold into the
 *	  row's group), the rows that quals it cannot take send back to the CPU,
 *	  and one row out per group.  Only this path is priced here; PostgreSQL's
 *	  own Partial Aggregate over its Parallel Seq Scan keeps its costs, and
 *	  add_path weighs the two.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "agg_plan.h"
#include "gpuhash.h"
#include "scan/page_scan.h"

#include "access/table.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/prep.h"
#include "parser/parsetree.h"
#include "utils/rel.h"
#include "utils/spccache.h"

/*
 * The constants, in the planner's units.  Neither is measured for the
 * aggregate yet: bench_agg (make bench-agg) has no H200 figure in
 * bench/RESULTS.md, so both are uncalibrated.  Each is the join's page
 * path's constant for the same mechanism (issue 54's gpuhash.page_cpu_cost
 * and page_row_cost, 0.1 and 0.0005), which the aggregate should read once
 * that lands, and bench/calibrate.py should measure.
 *
 * AGG_PAGE_CPU_COST: the CPU's work per heap page handed to the GPU (pin,
 * visibility, the copy into the staging chunk).
 * AGG_ROW_GPU_COST: the GPU's work per tuple on those pages: deform, run
 * the quals it takes, fold a passing row into its group's states.
 */
#define AGG_PAGE_CPU_COST 0.1
#define AGG_ROW_GPU_COST 0.0005

/*
 * The clauses of quals (in plan order) the page walker will not run: as
 * the executor decides, from the scan program gpu_qual.c compiles.
 */
static List *
cpu_quals_of(PlannerInfo *root, RelOptInfo *baserel, List *quals, List **gpu_quals)
{
	RangeTblEntry *rte = planner_rt_fetch(baserel->relid, root);
	Relation	r = table_open(rte->relid, NoLock);
	GpuPageProgram prog;

	gpuhash_page_program(&prog, RelationGetDescr(r), baserel->relid, quals,
						 NULL, NULL, NULL, 0, false);
	table_close(r, NoLock);
	if (prog.scan == NULL)
	{
		*gpu_quals = NIL;
		return quals;
	}
	*gpu_quals = prog.gpu_quals;
	return prog.cpu_quals;
}

/*
 * partial_scan: the relation's Parallel Seq Scan for a parallel-aware
 * path (its participants divide the blocks), NULL for a serial one.
 * groups: the groups of one participant's rows.
 */
void
gpuhash_cost_preagg(PlannerInfo *root, CustomPath *cpath, RelOptInfo *baserel,
					Path *partial_scan, double groups)
{
	double		participants = partial_scan ? gpuhash_parallel_divisor(partial_scan) : 1.0;
	double		tuples = baserel->tuples / participants;
	double		spc_seq_page_cost;
	List	   *gpu_quals;
	List	   *cpu_quals;
	Cost		startup;

	get_tablespace_page_costs(baserel->reltablespace, NULL, &spc_seq_page_cost);

	/* a GPU request's fixed cost: small tables stay native */
	startup = gpuhash_setup_cost;

	/*
	 * The pages each participant reads: all of them serially; in parallel,
	 * as the join's absorbed scans are charged, a share where the relation
	 * fits in effective_cache_size (gpuhash_parallel_page_excess), else
	 * all of them in each, as cost_seqscan charges.
	 */
	startup += spc_seq_page_cost * baserel->pages -
		(partial_scan ? gpuhash_parallel_page_excess(partial_scan) : 0.0);

	/* the CPU hands its share of the pages to the GPU */
	startup += AGG_PAGE_CPU_COST * baserel->pages / participants;

	/* the GPU walks every tuple of them and folds those its quals pass */
	startup += AGG_ROW_GPU_COST * tuples;

	/*
	 * Clauses the walker cannot run: the rows that pass the ones it ran come
	 * back to the CPU, which forms each and runs the rest, and folds those
	 * that pass with the aggregates' own transition functions.
	 */
	cpu_quals = cpu_quals_of(root, baserel,
							 gpuhash_preagg_order_quals(root, baserel->baserestrictinfo),
							 &gpu_quals);
	if (cpu_quals != NIL)
	{
		double		back = tuples * clauselist_selectivity(root, gpu_quals, baserel->relid,
														   JOIN_INNER, NULL);
		double		kept = baserel->rows / participants;
		QualCost	qc;
		AggClauseCosts aggc;

		cost_qual_eval(&qc, cpu_quals, root);
		MemSet(&aggc, 0, sizeof(aggc));
		get_agg_clause_costs(root, AGGSPLIT_INITIAL_SERIAL, &aggc);
		startup += qc.startup + back * (cpu_tuple_cost + qc.per_tuple) +
			aggc.transCost.startup + kept * aggc.transCost.per_tuple;
	}

	/* the groups come out at the end, one row each */
	cpath->path.rows = clamp_row_est(groups);
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = startup + cpu_tuple_cost * cpath->path.rows;
}
