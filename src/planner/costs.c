/*-------------------------------------------------------------------------
 *
 * costs.c
 *	  The planner's costs of a GpuHashJoin path: the inner side consumed
 *	  whole and built once, a fixed setup, a cost per inner row kept and per
 *	  outer row probed, the per-match work costed as PostgreSQL's hash join
 *	  costs it, hash batches over work_mem, and absorbed scans' savings;
 *	  and whether a key filter pays.  planner.c makes the paths.
 *
 *-------------------------------------------------------------------------
 */
#include "planner_int.h"

#include <math.h>

#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "utils/spccache.h"

/*
 * The cheapest other scan of scan's relation that reads all its rows in
 * the same processes: a partial one for a partial scan, else a serial one
 * (not a Gather, whose workers an absorbed serial scan would not have).
 * A Seq Scan, or an index scan of the whole index: one with index
 * conditions reads only the rows they select, where the absorbed scan
 * reads every page.  NULL where there is none.
 */
static Path *
cheapest_full_scan(Path *scan)
{
	RelOptInfo *rel = scan->parent;
	List	   *paths = scan->parallel_workers > 0 ? rel->partial_pathlist : rel->pathlist;
	Path	   *cheapest = NULL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *p = lfirst(lc);

		if (p->param_info != NULL || p == scan)
			continue;
		if (p->pathtype != T_SeqScan &&
			!((p->pathtype == T_IndexScan || p->pathtype == T_IndexOnlyScan) &&
			  ((IndexPath *) p)->indexclauses == NIL))
			continue;
		if (cheapest == NULL || p->total_cost < cheapest->total_cost)
			cheapest = p;
	}
	return cheapest;
}

/*
 * What an absorbed scan (heap_scan.c) saves against its Seq Scan path's
 * cost, beyond the per-tuple work the join's cost takes off itself.
 *
 * It costs no more than the cheapest other scan of the whole relation: the
 * join reads a page of in-place tuples faster than any child hands it the
 * same rows (an index-only scan that is a relation's cheapest alone, its
 * Parallel Seq Scan charged all of the heap's pages in every participant
 * by cost_seqscan, hands them out slower than the absorbed scan reads
 * them: bench/RESULTS.md, section 21).
 *
 * Its pages: a Parallel Seq Scan's are charged in full to every
 * participant (cost_seqscan divides only the CPU), as if they came from
 * one disk all share.  Where the relation fits in effective_cache_size
 * they come from memory, and each participant reads only its share of
 * them: an absorbed scan read by all participants (share) is charged that
 * share (bench/RESULTS.md, section 28).  gpuhash.absorbed_page_cost >= 0 sets the cost of a page in every
 * participant instead.  Only the GPU join's scans: PostgreSQL's own plans
 * keep their costs.  (absorbed_page_saving is the pages' part alone, all
 * an outer scan by pages saves on its pages: its CPU is priced anew.)
 */
static Cost
absorbed_page_saving(Path *scan, bool share)
{
	RelOptInfo *rel = scan->parent;

	if (gpuhash_absorbed_page_cost >= 0)
	{
		double		spc_seq_page_cost;

		get_tablespace_page_costs(rel->reltablespace, NULL, &spc_seq_page_cost);
		return (spc_seq_page_cost - gpuhash_absorbed_page_cost) * rel->pages;
	}
	return share ? gpuhash_parallel_page_excess(scan) : 0.0;
}

static Cost
absorbed_scan_saving(Path *scan, bool share)
{
	Path	   *cheapest = cheapest_full_scan(scan);
	Cost		saving = 0;

	if (cheapest != NULL)
		saving = Max(scan->total_cost - cheapest->total_cost, 0);
	return Max(saving, absorbed_page_saving(scan, share));
}

/*
 * What cost_seqscan charges a Parallel Seq Scan path beyond the share of the
 * pages each participant reads: a relation that fits in
 * effective_cache_size is read from memory, a share per participant.  0 for
 * any other path, and where gpuhash.absorbed_page_cost sets the old charge.
 * An absorbed outer scan saves it (absorbed_scan_saving); the planner takes
 * it from a relation's parallel plan, PostgreSQL's, to weigh it against the
 * serial one (planner.c, serial_inner_penalty).
 */
Cost
gpuhash_parallel_page_excess(Path *scan)
{
	RelOptInfo *rel = scan->parent;
	double		spc_seq_page_cost;

	if (scan->pathtype != T_SeqScan || !scan->parallel_aware || scan->parallel_workers <= 0 ||
		gpuhash_absorbed_page_cost >= 0 || rel == NULL ||
		rel->pages > (double) effective_cache_size)
		return 0;
	get_tablespace_page_costs(rel->reltablespace, NULL, &spc_seq_page_cost);
	return spc_seq_page_cost * rel->pages * (1.0 - 1.0 / gpuhash_parallel_divisor(scan));
}

/*
 * Does the join keep columns of its inner rows, for its output or for the
 * clauses it checks per match?  Then each inner row is copied into the
 * join's memory as it is read (inner_store.c), the work PostgreSQL's hash
 * join charges cpu_tuple_cost for per inserted row (gpuhash.kept_row_cost;
 * bench/calibrate.py measures it).  Without such columns only keys are
 * kept (a count(*), a semi or anti join on keys alone).
 */
static bool
keeps_inner_columns(PlannerInfo *root, Path *inner_path, PathTarget *target, List *quals)
{
	Relids		inner = inner_path->parent->relids;
	ListCell   *lc;

	foreach(lc, target->exprs)
	{
		if (bms_overlap(pull_varnos(root, (Node *) lfirst(lc)), inner))
			return true;
	}
	foreach(lc, quals)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (bms_overlap(ri->clause_relids, inner))
			return true;
	}
	return false;
}

/*
 * A build shared by all participants (parallel.c: each reads a share of a
 * partial inner side) does two things a build of one participant's rows
 * does not, each per row and on every participant's way to its first
 * probe (ARCHITECTURE.md's cost table, rows 17 and 18):
 *
 * - the share: each participant copies the keys of the rows it read, and
 *   the kept rows, where the builder reads them (EXPLAIN ANALYZE's Share
 *   Time), SHARE_KEY_COST per row of its share, SHARE_ROW_COST more per
 *   kept row;
 * - the wait: one participant builds the table over every participant's
 *   rows while the others wait for it (Build Wait Time), BUILD_WAIT_COST
 *   per table row, BUILD_WAIT_ROW_COST more per kept row gathered.
 *
 * Measured on the H200 (the cost table names the runs), in the units of
 * row 2 (0.0455 ms): 11.3 ns a key shared, 112 ns a kept row shared, a
 * build of 2.7 ns a key row and 12.6 ns a kept row.  gpuhash.build_row_cost
 * (row 4) stays the serial build's, already covered there by the keys'
 * cpu_operator_cost.
 */
#define SHARE_KEY_COST		0.000248
#define SHARE_ROW_COST		0.00222
#define BUILD_WAIT_COST		0.0000601
#define BUILD_WAIT_ROW_COST	0.000216

static Cost
shared_build_cost(double share_rows, double table_rows, bool keeps)
{
	return share_rows * (SHARE_KEY_COST + (keeps ? SHARE_ROW_COST : 0.0)) +
		table_rows * (BUILD_WAIT_COST + (keeps ? BUILD_WAIT_ROW_COST : 0.0));
}

/*
 * The costs of a GpuHashJoin path.  quals: the clauses checked per match
 * (join filter and filter), nkeys: the hash keys; chained: the join and
 * the GpuHashJoin below it run as one chain; inner_share: an absorbed
 * parallel inner scan is charged a participant's share of its pages;
 * page: the absorbed outer scan goes by pages (page_price.c), else NULL.
 */
void
gpuhash_cost_join(PlannerInfo *root, CustomPath *cpath, Path *outer_path,
				  Path *inner_path, bool parallel_inner, bool outer_scan, bool inner_scan,
				  bool inner_share,
				  List *quals, int nkeys, double rows, double outer_match_frac, bool anti,
				  bool chained, const GpuPagePrice *page)
{
	QualCost	qc;

	double		inner_rows = gpuhash_table_rows(inner_path, parallel_inner);
	double		outer_rows = outer_path->rows;
	double		emit_rows;
	bool		keeps;
	Cost		startup,
				run;

	cost_qual_eval(&qc, quals, root);

	/*
	 * The inner side is consumed whole before the first row comes out: each
	 * participant evaluates the keys of the rows it reads, the table is
	 * built once over all of them.  A partial inner side is costed as core
	 * costs a Parallel Hash's, for the participants its own plan counted on
	 * (partial_paths.c weighs what that misses: gpuhash_inner_share).
	 */
	startup = inner_path->total_cost + outer_path->startup_cost + gpuhash_setup_cost;
	startup += inner_path->rows * cpu_operator_cost * nkeys;
	startup += inner_rows * gpuhash_build_row_cost;
	/*
	 * A kept row of a join's output costs about twice one of a table: the
	 * join below forms it and this one copies it (gpuhash.kept_join_row_cost
	 * on top of kept_row_cost; bench/calibrate.py measures both).
	 */
	keeps = keeps_inner_columns(root, inner_path, cpath->path.pathtarget, quals);
	if (keeps)
		startup += inner_path->rows * (gpuhash_kept_row_cost +
									   (IS_JOIN_REL(inner_path->parent) ? gpuhash_kept_join_row_cost : 0.0));
	if (parallel_inner && cpath->path.parallel_aware)
		startup += shared_build_cost(inner_path->rows, inner_rows, keeps);
	startup += qc.startup;
	/*
	 * An absorbed inner scan (heap_scan.c) saves as the outer one does.  Its
	 * pages too are read a share per participant where they all read the
	 * inner side (inner_share: gpuhash.shared_inner_pages), as with the
	 * outer scan: a large table whose filter keeps few rows is then built
	 * rather than probed by all of a smaller one.
	 */
	if (inner_scan)
		startup -= 0.5 * cpu_tuple_cost * inner_path->rows +
			absorbed_scan_saving(inner_path, inner_share);

	/*
	 * Each outer row's keys are computed and it is probed.  In a chain
	 * (chain.c: the GpuHashJoin below and this one probed together) the
	 * keys of the rows between them are gathered on the device instead:
	 * only the probe is charged.  Nothing else is taken off: the rows the
	 * chain forms are the lower levels' emitted rows, charged there.
	 */
	run = outer_path->total_cost - outer_path->startup_cost;

	/*
	 * An absorbed outer scan by pages (page_price.c): the Seq Scan's CPU
	 * per tuple, its quals and the keys are the page walker's, charged per
	 * page handed over and per tuple walked instead; its pages save as an
	 * absorbed scan's do.  The rows the walker hands back are charged with
	 * the matches below.
	 */
	if (page != NULL)
		run = gpuhash_page_scan_run(outer_path, run - absorbed_page_saving(outer_path, true));
	else
	{
		run += outer_rows * (chained ? 0.0 : cpu_operator_cost * nkeys);

		/*
		 * An absorbed outer scan by tuples hands them out in place, with no
		 * Seq Scan node, slot or copy per row: half a tuple's CPU cost saved
		 * per row, and it costs no more than the relation's cheapest full
		 * scan.
		 */
		if (outer_scan)
			run -= 0.5 * cpu_tuple_cost * outer_rows + absorbed_scan_saving(outer_path, true);
	}

	/*
	 * Each hash match is checked against the other clauses, as in
	 * PostgreSQL's hash join, then emitted at match_row_cost where that join
	 * is charged cpu_tuple_cost: the match is a row of the probe's range,
	 * with no bucket chain to walk (bench/calibrate.py measures both).  The
	 * matches are counted as final_cost_hashjoin() counts them: by the
	 * semi-join factor where it uses one (outer_match_frac >= 0), else the
	 * join's rows against one participant's share of the inner side.
	 */
	if (outer_match_frac >= 0)
	{
		double		matched = rint(outer_rows * outer_match_frac);

		emit_rows = anti ? outer_rows - matched : matched;
	}
	else
		emit_rows = rows * (inner_rows > 0 ? inner_path->rows / inner_rows : 1.0);
	if (page != NULL)
	{
		/*
		 * By pages, each record handed back is read in its page, checked
		 * against the clauses the walker left to the CPU and its matches
		 * emitted: gpuhash.page_match_cost in place of match_row_cost.
		 */
		double		records = gpuhash_page_records(outer_path, page, emit_rows);

		run += records * (page->cpu_quals.per_tuple + gpuhash_page_match_cost) +
			page->cpu_quals.startup + emit_rows * qc.per_tuple;
	}
	else
		run += emit_rows * (qc.per_tuple + gpuhash_match_row_cost);
	run += rows * cpath->path.pathtarget->cost.per_tuple + cpath->path.pathtarget->cost.startup;

	/*
	 * A serial join over more than work_mem x hash_mem_multiplier splits
	 * into hash batches (batch.c), a parallel-aware one over what all its
	 * participants may keep into shared batches (parallel_split.c): each
	 * participant writes the rows it reads of both sides once and reads as
	 * many back, as initial_cost_hashjoin charges a (Parallel) Hash's
	 * batches.  A non-partial inner side's one reader writes all of it.
	 */
	if (!gpuhash_one_table(outer_path, inner_path, cpath->path.parallel_aware, parallel_inner))
	{
		double		inner_pages = ceil(inner_path->rows * (inner_path->pathtarget->width + 24) / BLCKSZ);
		double		outer_pages = ceil(outer_rows * (outer_path->pathtarget->width + 24) / BLCKSZ);

		startup += seq_page_cost * inner_pages;
		run += seq_page_cost * (inner_pages + 2 * outer_pages);
	}

	cpath->path.rows = rows;
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = startup + run;
}

/*
 * How many times its planned share each participant of a join reads of a
 * partial inner side: the join runs in as many participants as its outer
 * side's plan has.  Where the inner side's own plan counted on more, each
 * reads a larger share than that plan was costed for; where it counted on
 * fewer, a smaller one (under 1).  Core's Parallel Hash joins miss it the
 * same way both ways; partial_paths.c charges a GPU join the first and
 * credits it the second where its inner side is a GPU join.
 */
double
gpuhash_inner_share(Path *outer_path, Path *inner_path)
{
	return gpuhash_parallel_divisor(inner_path) / gpuhash_parallel_divisor(outer_path);
}

/*
 * A semi join of lefthand's rows against righthand's, made from the join's
 * SpecialJoinInfo: for the semi-join selectivity of key clauses, which
 * eqjoinsel gives for a SpecialJoinInfo of that type.
 */
static SpecialJoinInfo
semi_join_info(JoinPathExtraData *extra, Relids lefthand, Relids righthand)
{
	SpecialJoinInfo semi = *extra->sjinfo;

	semi.jointype = JOIN_SEMI;
	semi.min_lefthand = semi.syn_lefthand = lefthand;
	semi.min_righthand = semi.syn_righthand = righthand;
	return semi;
}

/*
 * The clauses of RestrictInfos, bare: the selectivity a RestrictInfo caches
 * for a non-inner join may be an inner join's (core computes semi factors
 * of a unique inner side with the inner join's sjinfo).
 */
static List *
bare_clauses(List *rinfos)
{
	List	   *clauses = NIL;
	ListCell   *lc;

	foreach(lc, rinfos)
		clauses = lappend(clauses, lfirst_node(RestrictInfo, lc)->clause);
	return clauses;
}

/*
 * Will a Bloom filter of the inner keys (keyfilter.c) drop outer rows?
 * Only when the planner expects a quarter of them or more to find no
 * match: filling it costs a random write per inner key, up front, and
 * where nearly every row matches (a foreign key join) it drops nothing.
 * The executor also switches a filter off that lets 3 in 4 rows through.
 */
#define KEY_FILTER_MATCH_FRAC 0.75

bool
gpuhash_key_filter_pays(PlannerInfo *root, RelOptInfo *outerrel, RelOptInfo *innerrel,
						JoinType jointype, JoinPathExtraData *extra, List *hash_rinfos)
{
	Selectivity frac;

	if (jointype != JOIN_INNER && jointype != JOIN_SEMI && jointype != JOIN_RIGHT &&
		jointype != JOIN_UNIQUE_INNER && jointype != JOIN_UNIQUE_OUTER)
		return false;			/* every outer row comes out: no filter */

	frac = gpuhash_match_fraction(root, extra, outerrel, innerrel, hash_rinfos);
	return frac < KEY_FILTER_MATCH_FRAC;
}

/* The fraction of side's rows whose keys have a match in other's. */
Selectivity
gpuhash_match_fraction(PlannerInfo *root, JoinPathExtraData *extra, RelOptInfo *side,
					   RelOptInfo *other, List *hash_rinfos)
{
	SpecialJoinInfo semi = semi_join_info(extra, side->relids, other->relids);

	return clauselist_selectivity(root, bare_clauses(hash_rinfos), 0, JOIN_SEMI, &semi);
}

/*
 * A right semi or anti join's fill (executor.c's FILL_INNER): after the
 * probe every table row's match flag is read and each row that comes out
 * formed, all out_rows of them, charged in full though a parallel plan's
 * participants share the fill (not divided yet); cost_join charged each
 * participant's share of their targets.
 */
Cost
gpuhash_right_fill_cost(Path *inner_path, bool parallel_inner, double out_rows,
						double share_rows, PathTarget *target)
{
	return gpuhash_table_rows(inner_path, parallel_inner) * cpu_operator_cost +
		out_rows * (gpuhash_match_row_cost + target->cost.per_tuple) -
		share_rows * target->cost.per_tuple;
}

/*
 * Does a join's row estimate rest on multiplying the selectivities of its
 * key columns, far below what its most selective key alone allows?  Where
 * one side is unique on the join's two or more keys, a row of the other
 * side matches at most once, and no more often than it matches on its most
 * selective key alone; where PostgreSQL's product of the keys'
 * selectivities expects under 1/ESTIMATE_DOUBT of that, the estimate says
 * more about the independence it assumes than about the data (keys that
 * are correlated, as a composite foreign key's columns are).  A GPU join,
 * cheap per row, goes early in the plan on such an estimate, where the
 * error multiplies through the joins above; such a join is left to
 * PostgreSQL, whose costs keep it later.  Keys correlated the other way
 * (a match on both rarer than on one) stay inside the margin.
 */
#define ESTIMATE_DOUBT 100.0

/*
 * The fraction of side's rows that match the other side on the most
 * selective of the join's keys alone.
 */
static Selectivity
single_key_bound(PlannerInfo *root, JoinPathExtraData *extra, RelOptInfo *side,
				 RelOptInfo *uniq, List *clauses)
{
	SpecialJoinInfo semi = semi_join_info(extra, side->relids, uniq->relids);
	Selectivity bound = 1.0;
	ListCell   *lc;

	foreach(lc, clauses)
		bound = Min(bound, clause_selectivity(root, lfirst(lc), 0, JOIN_SEMI, &semi));
	return bound;
}

/* Is the join's outer side unique on its clauses, as core asks of the inner? */
static bool
outer_is_unique(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				RelOptInfo *innerrel, JoinPathExtraData *extra)
{
	return innerrel_is_unique(root, joinrel->relids, innerrel->relids, outerrel,
							  JOIN_INNER, extra->restrictlist, false);
}

bool
gpuhash_estimate_untrusted(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
						   RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra,
						   List *hash_rinfos)
{
	RelOptInfo *uniq,
			   *other;
	List	   *clauses;
	Selectivity bound;
	double		per_row;

	if (jointype != JOIN_INNER || list_length(hash_rinfos) < 2)
		return false;
	if (extra->inner_unique)
	{
		uniq = innerrel;
		other = outerrel;
	}
	else if (outer_is_unique(root, joinrel, outerrel, innerrel, extra))
	{
		uniq = outerrel;
		other = innerrel;
	}
	else
		return false;

	/* the fraction of the other side's rows that match on each key alone */
	clauses = bare_clauses(hash_rinfos);
	bound = single_key_bound(root, extra, other, uniq, clauses);
	/* PostgreSQL's matches per row of the other side: the keys' product */
	per_row = clauselist_selectivity(root, clauses, 0, JOIN_INNER, extra->sjinfo) * uniq->rows;
	return per_row * ESTIMATE_DOUBT < bound;
}
