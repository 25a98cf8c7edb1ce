/*-------------------------------------------------------------------------
 *
 * agg_costs.c
 *	  The planner's cost of a GpuPreAgg path, by mechanism: the pages each
 *	  participant reads, the CPU handing them to the GPU, the GPU walking
 *	  every tuple on them (deform, the quals, the fold into the row's
 *	  group), and one row out per group; over a join, also the inner plan,
 *	  the dimension built of its rows (per row and per byte shipped), the
 *	  probes and the pairs folded.  The
 *	  path is offered only where the walker takes every qual (agg_paths.c:
 *	  otherwise the executor reads every row on the CPU).  Only this path is
 *	  priced here; PostgreSQL's own Partial Aggregate over its scan or join
 *	  keeps its costs, and add_path weighs the two.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "agg_plan.h"
#include "agg_resident.h"
#include "gpuhash.h"
#include "gpuhash_agg.h"

#include "access/table.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "planner/planner_int.h"
#include "scan/page_scan.h"
#include "utils/rel.h"
#include "utils/spccache.h"

/*
 * The page path's constants, the same mechanism as the join's
 * (page_price.c): gpuhash.page_cpu_cost per page the CPU hands the GPU
 * (pin, visibility, the copy into the staging chunk), gpuhash.page_row_cost
 * per tuple the GPU walks (deform, the quals, the fold of a passing row
 * into its group), both calibrated on the join's page path; the aggregate's
 * own walk is not measured apart.  With page_cpu_cost at -1 (the join's
 * page path priced as its tuple path) the aggregate, which has no tuple
 * path, takes AGG_PAGE_CPU_COST: uncalibrated, ten tuples' cpu_tuple_cost.
 * (Tuples of a page the walker refuses, a compressed value say, are read by
 * the CPU: not priced.)
 */
#define AGG_PAGE_CPU_COST 0.1

/*
 * One participant's walk of baserel's pages (partial_scan: the relation's
 * Parallel Seq Scan for a parallel-aware path, whose participants divide
 * the blocks; NULL for a serial one).
 */
static Cost
page_walk_cost(RelOptInfo *baserel, Path *partial_scan)
{
	double		participants = partial_scan ? gpuhash_parallel_divisor(partial_scan) : 1.0;
	double		tuples = baserel->tuples / participants;
	double		spc_seq_page_cost;
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
	startup += (gpuhash_page_cpu_cost >= 0 ? gpuhash_page_cpu_cost : AGG_PAGE_CPU_COST) *
		baserel->pages / participants;

	/* the GPU walks every tuple of them and folds those the quals pass */
	startup += gpuhash_page_row_cost * tuples;
	return startup;
}

/*
 * The groups' merge in the backend: each request's answer is merged into
 * the participant's sorted set of groups (gh_agg_merge), a pass over the
 * set so far, so a participant's groups are paid for once per request it
 * sends (half of them on average, as the set grows).  A request carries at
 * most as many pages as a batch of the join pins (heap_scan.c: at most
 * 1024), which is what the request count is taken from.
 */
#define AGG_REQUEST_MAX_PAGES 1024.0

static Cost
group_merge_cost(RelOptInfo *baserel, Path *partial_scan, double groups)
{
	double		participants = partial_scan ? gpuhash_parallel_divisor(partial_scan) : 1.0;
	double		per_request = Max(8.0, Min(AGG_REQUEST_MAX_PAGES, (double) NBuffers / 128.0));
	double		requests = ceil(baserel->pages / participants / per_request);

	return cpu_operator_cost * (groups / 2.0) * Max(requests - 1.0, 0.0);
}

/* groups: the groups of one participant's rows. */
void
gpuhash_cost_preagg(PlannerInfo *root, CustomPath *cpath, RelOptInfo *baserel,
					Path *partial_scan, double groups)
{
	Cost		startup = page_walk_cost(baserel, partial_scan) +
		group_merge_cost(baserel, partial_scan, groups);

	/* the groups come out at the end, one row each */
	cpath->path.rows = clamp_row_est(groups);
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = startup + cpu_tuple_cost * cpath->path.rows;
}

/*
 * Resident groups (agg_resident.c) in place of the backend's merge (A7,
 * ARCHITECTURE.md's cost table): each request's groups merged into the one
 * set on the device, a hash insert or combine per group and request,
 * priced at the walker's per-row cost (gpuhash.page_row_cost) for each of
 * the participant's groups; then the set's finish, once, before any
 * participant's first group: its survivors of the pushed HAVING terms
 * compacted on the device, copied back and sorted in the service
 * (AGG_SET_FINISH_COST each, measured: the finish of 5.43 M groups took
 * 1.9 s on the H200, 0.35 us a group); then the survivors read back and
 * handed up once, all participants reading ranges of the set at once
 * (cpu_tuple_cost each, a participant's share).  A parallel path's rows
 * are the survivors / its workers, so that the Gather above hands up the
 * survivors once.
 *
 * What the set saves: the backend's merge of each answer (A6, a pass over
 * the participant's groups per request) and, where the same group is
 * folded by several participants or the HAVING terms drop groups, rows
 * handed up: each costs the Gather its parallel_tuple_cost and the
 * Finalize Aggregate reading it a cpu_tuple_cost.  Where the groups are
 * each participant's own (no two fold the same one), no HAVING term is
 * pushed and the participants send few requests, the finish costs more
 * than it saves and the groups come back with each request as without a
 * set.  cpath holds the path's cost without the set (A5, A6); the set is
 * chosen (GPUHASH_PREAGG_RESIDENT, which the executor follows) only where
 * it is cheaper.  walk: the cost before the groups (the pages, over a join
 * its dimension and probes); groups: one participant's; survivors: the
 * set's groups the pushed terms keep.
 */
#define AGG_SET_FINISH_COST 0.0077

static void
choose_resident(CustomPath *cpath, Path *partial_scan, Cost walk, double groups,
				double survivors)
{
	double		participants = partial_scan ? gpuhash_parallel_divisor(partial_scan) : 1.0;
	int			workers = partial_scan ? Max(cpath->path.parallel_workers, 0) : 0;
	double		up = (workers > 0 ? parallel_tuple_cost : 0.0) + cpu_tuple_cost;
	Cost		startup = walk + gpuhash_page_row_cost * groups +
		AGG_SET_FINISH_COST * survivors;
	Cost		total = startup + cpu_tuple_cost * survivors / participants;

	if (gpuhash_resident_groups != GPUHASH_RESIDENT_ON &&
		total + up * survivors >= cpath->path.total_cost + up * cpath->path.rows * Max(workers, 1))
		return;
	cpath->path.rows = clamp_row_est(workers > 0 ? survivors / workers : survivors);
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = total;
	cpath->flags |= GPUHASH_PREAGG_RESIDENT;
}

/* The same with resident groups where they are cheaper (choose_resident). */
void
gpuhash_cost_preagg_resident(PlannerInfo *root, CustomPath *cpath, RelOptInfo *baserel,
							 Path *partial_scan, double groups, double survivors)
{
	choose_resident(cpath, partial_scan, page_walk_cost(baserel, partial_scan), groups,
					survivors);
}

/*
 * The dimension's build from the inner plan's rows (agg_join.c), per row
 * kept: beyond its keys (cpu_operator_cost each, charged apart) the row
 * copied, its values made for the dimension and its place in the device's
 * table; and per byte shipped to the service: the key (8), one value (16)
 * per inner column and the by-reference values' data.  Set by the GPU's
 * timings of the build (ARCHITECTURE.md's cost table, J2 and J3): 2 M inner
 * rows kept in 947.8 ms, less 100 ms for the same inner scan keeping few
 * rows (the inner plan: PostgreSQL's own cost), 847.8 ms; the
 * bytes' share split off at the host twin's EXPLAIN ANALYZE rate (Dimension
 * Ship Time over Dimension Shipped Bytes, about 1 ns a byte: 96 MB, 96 ms),
 * the rest per row, 0.376 us, less a key's cpu_operator_cost.  One unit is
 * 0.0455 ms (ARCHITECTURE.md's cost model).
 */
#define AGG_DIM_ROW_COST 0.00576
#define AGG_DIM_BYTE_COST 0.000022

/*
 * The part of AGG_DIM_ROW_COST that is the row's values made for the
 * dimension.  A shared dimension's participants make their own rows'
 * values as they collect them (agg_join_par.c, since 7946973); the builder
 * then ships and inserts.  Q03's shared dimension (1.46 M rows, TPC-H SF
 * 10, 8 workers, one H200) took 380.8 ms to build when the builder made
 * every value, 235.5 ms once the participants did: the values are 38% of
 * the per-row build.
 */
#define AGG_DIM_VALUES_SHARE 0.38

/* bytes shipped for rows inner rows of width bytes with ninner columns */
static double
dim_bytes(double rows, int ninner, int width)
{
	return rows * (sizeof(uint64) + 16.0 * Max(ninner, 1) + Max(width, 0));
}

/*
 * The dimension's build from the inner plan's rows: each row's keys
 * evaluated on the CPU (as the GPU join's build charges them), then per row
 * kept its copy, values and insert into the device's table
 * (AGG_DIM_ROW_COST and gpuhash.build_row_cost) and per byte shipped to the
 * service (AGG_DIM_BYTE_COST).  The width is the inner target's, an upper
 * bound of the by-reference data (an inner-only CASE condition shipped as a
 * bool, agg_join_conds.c, is not seen here).  Shared (shared_rows >= 0):
 * each participant keys its share, one builds from all shared_rows; where
 * values_shared, each participant makes its share's values too (an outer
 * join's dimension, built in its rows' sorted order, leaves them to the
 * builder).
 */
static Cost
tuple_build_cost(Path *inner_path, int nkeys, int ninner, int width, double shared_rows,
				 bool values_shared)
{
	if (shared_rows >= 0.0 && values_shared)
		return inner_path->rows * (cpu_operator_cost * nkeys +
								   AGG_DIM_ROW_COST * AGG_DIM_VALUES_SHARE) +
			shared_rows * (gpuhash_build_row_cost + AGG_DIM_ROW_COST * (1.0 - AGG_DIM_VALUES_SHARE)) +
			dim_bytes(shared_rows, ninner, width) * AGG_DIM_BYTE_COST;
	if (shared_rows >= 0.0)
		return inner_path->rows * cpu_operator_cost * nkeys +
			shared_rows * (gpuhash_build_row_cost + AGG_DIM_ROW_COST) +
			dim_bytes(shared_rows, ninner, width) * AGG_DIM_BYTE_COST;
	return inner_path->rows * (cpu_operator_cost * nkeys + gpuhash_build_row_cost +
							   AGG_DIM_ROW_COST) +
		dim_bytes(inner_path->rows, ninner, width) * AGG_DIM_BYTE_COST;
}

/*
 * Will the dimension come from the inner table's pages (agg_join_pages.c)?
 * The executor's tests that the plan can see: a Seq Scan of a base table
 * (parallel-aware only as a shared dimension's partial plan, whose blocks
 * the participants then share), gpuhash.page_scan and
 * gpuhash.dimension_pages on, not
 * serializable, its quals all the walker's (the key and the dimension's
 * columns are taken to be plain columns it reads; where they are not, the
 * executor builds from the inner plan's rows, priced below as pages).
 * (gpuhash.page_cpu_cost -1 prices it as the rows, as the join's page
 * path, though the executor walks the pages.)
 */
static bool
inner_by_pages(PlannerInfo *root, Path *inner_path, bool shared)
{
	RelOptInfo *rel = inner_path->parent;
	RangeTblEntry *rte;
	Relation	r;
	GpuPageProgram prog;

	if (!gpuhash_page_scan || !gpuhash_dimension_pages ||
		inner_path->pathtype != T_SeqScan || (inner_path->parallel_aware && !shared) ||
		inner_path->param_info != NULL || rel->reloptkind != RELOPT_BASEREL ||
		BLCKSZ != GH_PAGE_SIZE || IsolationIsSerializable())
		return false;
	rte = planner_rt_fetch(rel->relid, root);
	if (rte->rtekind != RTE_RELATION)
		return false;
	r = table_open(rte->relid, NoLock);
	gpuhash_page_program_cols(&prog, RelationGetDescr(r), rel->relid,
							  gpuhash_order_quals(root, rel->baserestrictinfo),
							  NULL, NULL, NULL, 0, false, NULL, 0);
	table_close(r, NoLock);
	return prog.scan != NULL && prog.cpu_quals == NIL;
}

/*
 * The dimension from the inner table's pages: each page read (its
 * seq_page_cost) and handed to the walker (gpuhash.page_cpu_cost), each
 * tuple walked (gpuhash.page_row_cost), and the passing rows' keys and
 * values shipped back from the walk and out to the build
 * (AGG_DIM_BYTE_COST twice), each inserted (gpuhash.build_row_cost).
 * Shared (shared_rows >= 0): the pages and tuples walked are a share
 * (the participants split the blocks), the rows of every share are built
 * once.  Uncalibrated as a whole: the page path's constants, calibrated on
 * the join's walk, and the tuple build's byte rate.
 */
static Cost
dim_pages_cost(Path *inner_path, int ninner, int width, double shared_rows)
{
	RelOptInfo *rel = inner_path->parent;
	double		spc_seq_page_cost;
	double		share = shared_rows >= 0.0 ? gpuhash_parallel_divisor(inner_path) : 1.0;
	double		rows = shared_rows >= 0.0 ? shared_rows : inner_path->rows;

	get_tablespace_page_costs(rel->reltablespace, NULL, &spc_seq_page_cost);
	return ((spc_seq_page_cost + gpuhash_page_cpu_cost) * rel->pages +
			gpuhash_page_row_cost * rel->tuples) / share +
		dim_bytes(rows / share, ninner, width) * AGG_DIM_BYTE_COST +
		dim_bytes(rows, ninner, width) * AGG_DIM_BYTE_COST +
		gpuhash_build_row_cost * rows;
}

/*
 * The host memory the dimension's rows take before its build, as the
 * executor charges it against work_mem x hash_mem_multiplier
 * (agg_join_pages.c, agg_join_par.c, agg_join_rows.c): from the plan's
 * rows a key and a minimal tuple each; from the inner table's pages a
 * packed key and a value a kept column (one at least:
 * agg_join_compile.c), with the by-reference data beside them (at most
 * the row's width).  A dimension from pages may still need the rows as
 * tuples, which cannot go to batches (an outer join's unmatched rows, the
 * CPU's join of a refused outer page): the larger of the two then.
 * rows: all the rows one dimension holds (shared: every participant's).
 */
double
gpuhash_preagg_dim_memory(PlannerInfo *root, Path *inner_path, int ninner, double rows,
						  bool shared, bool preserve_inner, bool from_rows)
{
	double		width = Max(inner_path->pathtarget->width, 0);
	double		tuples = rows * (width + 32.0);

	if (!(preserve_inner && shared) && !from_rows && inner_by_pages(root, inner_path, shared))
		return Max(tuples, rows * (sizeof(uint64) + sizeof(gh_agg_inval) * Max(ninner, 1) +
								   (ninner > 0 ? width : 0.0)));
	return tuples;
}

/*
 * The aggregate over a join: baserel's pages walked as above, each row the
 * quals pass joined on the device to the dimension built of inner_path's
 * rows (nkeys key columns, ninner columns kept), and every pair the join's
 * further clauses pass folded.  pairs and groups: one participant's.  An
 * outer join preserving the inner side with a shared dimension builds from
 * the plan's rows (agg_join_pages.c), as does a plan with carried columns
 * (from_rows: agg_join_carry.c).
 */
void
gpuhash_cost_preagg_join(PlannerInfo *root, CustomPath *cpath, RelOptInfo *baserel,
						 Path *inner_path, int nkeys, int ninner, Path *partial_scan,
						 double pairs, double groups, double shared_rows, bool preserve_inner,
						 double all_groups, bool from_rows)
{
	double		participants = partial_scan ? gpuhash_parallel_divisor(partial_scan) : 1.0;
	int			width = inner_path->pathtarget->width;
	Cost		startup = page_walk_cost(baserel, partial_scan);

	/*
	 * The dimension, before the first page is walked: from the inner
	 * table's pages where the executor will walk them, else the inner plan
	 * run to its end and its rows built.  Per participant (shared_rows < 0:
	 * each builds its own dimension, as a parallel-oblivious hash join
	 * builds its own table): its whole cost, once per participant.  Shared:
	 * inner_path is partial, each participant runs its share and keys its
	 * rows, and one of them builds the one dimension from all shared_rows
	 * while the others wait.
	 */
	if (!(preserve_inner && shared_rows >= 0.0) && !from_rows && gpuhash_page_cpu_cost >= 0 &&
		inner_by_pages(root, inner_path, shared_rows >= 0.0))
	{
		startup += dim_pages_cost(inner_path, ninner, width, shared_rows);
		/* an outer join's fold reads the rows by the CPU too (agg_join_pages_rows.c) */
		if (preserve_inner)
			startup += inner_path->total_cost;
	}
	else
	{
		startup += inner_path->total_cost + tuple_build_cost(inner_path, nkeys, ninner, width,
															 shared_rows, !preserve_inner);
		/*
		 * A shared dimension's partial inner plan runs in this node's
		 * participants, not in as many as it was costed for: charged or
		 * credited as a GPU join's partial inner side is.
		 */
		if (shared_rows >= 0.0 && partial_scan != NULL)
			startup += gpuhash_inner_share_charge(partial_scan, inner_path);
	}

	/*
	 * Each walked row that the scan's quals pass probes the dimension on
	 * the device: the walker's per-row cost again (gpuhash.page_row_cost).
	 */
	startup += gpuhash_page_row_cost * baserel->rows / participants;

	/*
	 * Each pair of a row and an inner row of its key is checked against the
	 * join's further clauses and folded into its group on the device: the
	 * pairs the join keeps, the walker's per-row cost each.
	 */
	startup += gpuhash_page_row_cost * pairs;

	/* the answers' groups merged into the participant's set */
	cpath->path.startup_cost = startup + group_merge_cost(baserel, partial_scan, groups);

	/* the groups come out at the end, one row each */
	cpath->path.rows = clamp_row_est(groups);
	cpath->path.total_cost = cpath->path.startup_cost + cpu_tuple_cost * cpath->path.rows;

	/*
	 * Resident groups where they are cheaper: every group handed up once
	 * for all participants (no HAVING term is priced over a join).
	 */
	if (all_groups >= 0.0)
		choose_resident(cpath, partial_scan, startup, groups, all_groups);
}

/*
 * Carried columns (agg_join_carry.c): before its first group goes up, a
 * participant hashes every inner row (all of a shared dimension's) by the
 * table's key (nkeycols: the carried relations' primary key columns):
 * AGG_CARRY_ROW_COST a row with one key column, an operator per further
 * one; each group it hands up then looks its row up and reads the carried
 * columns, an operator each.  AGG_CARRY_ROW_COST is the H200's: TPC-H SF
 * 10's Q10 (8 workers, session 50) hashed its shared dimension's 572 785
 * rows by c_custkey in 147.3 ms (Carried Build Time, 425 743 keys), 0.257
 * us a row, in units of 0.0455 ms (ARCHITECTURE.md's cost model).
 */
#define AGG_CARRY_ROW_COST 0.00565

void
gpuhash_cost_preagg_carry(CustomPath *cpath, double inner_rows, int nkeycols, int ncarried)
{
	Cost		c = inner_rows * (AGG_CARRY_ROW_COST + cpu_operator_cost * Max(nkeycols - 1, 0)) +
		cpath->path.rows * cpu_operator_cost * (nkeycols + ncarried);

	cpath->path.startup_cost += c;
	cpath->path.total_cost += c;
}

/*
 * A star's further dimension (agg_star_paths.c), beyond what
 * gpuhash_cost_preagg_join prices for the first: its plan run to its end
 * and its rows built (the tuple build's constants), once per participant,
 * and a probe of it on the device by each walked row the quals pass (the
 * walker's per-row cost, as the first dimension's probe).
 */
void
gpuhash_cost_preagg_star_dim(CustomPath *cpath, RelOptInfo *baserel, Path *inner_path,
							 int nkeys, int ninner, Path *partial_scan)
{
	double		participants = partial_scan ? gpuhash_parallel_divisor(partial_scan) : 1.0;
	Cost		c = inner_path->total_cost +
		tuple_build_cost(inner_path, nkeys, ninner, inner_path->pathtarget->width, -1.0, false) +
		gpuhash_page_row_cost * baserel->rows / participants;

	cpath->path.startup_cost += c;
	cpath->path.total_cost += c;
}
