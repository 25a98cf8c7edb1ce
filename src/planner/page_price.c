/*-------------------------------------------------------------------------
 *
 * page_price.c
 *	  Whether an absorbed outer scan will read its pages by the page path
 *	  (scan/page_scan.c, issue 53), decided at plan time by the same tests
 *	  the executor makes, and what that path costs in place of the tuple
 *	  path's per-tuple CPU: the CPU hands pages over
 *	  (gpuhash.page_cpu_cost), the page walker deforms, filters, keys and probes
 *	  every tuple on them (gpuhash.page_row_cost), and the CPU takes back one
 *	  record per row that comes back (gpuhash.page_match_cost, the clauses
 *	  the walker cannot run).  bench/calibrate.py measures the three.
 *
 *-------------------------------------------------------------------------
 */
#include "planner_int.h"

#include "access/table.h"
#include "access/xact.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "scan/page_scan.h"
#include "utils/rel.h"

/*
 * The relation's restriction clauses, bare, in the order createplan.c's
 * order_qual_clauses (static there) gives a Seq Scan's: by security level
 * (a cheap leakproof clause at level 0), then by cost per tuple, a stable
 * sort; pseudoconstants left out.  The page walker of a join and the
 * aggregate's take a prefix of them, so both must see the plan's order.
 */
List *
gpuhash_order_quals(PlannerInfo *root, List *rinfos)
{
	int			n = list_length(rinfos);
	RestrictInfo **ri = palloc(sizeof(RestrictInfo *) * Max(n, 1));
	Cost	   *cost = palloc(sizeof(Cost) * Max(n, 1));
	Index	   *level = palloc(sizeof(Index) * Max(n, 1));
	List	   *quals = NIL;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, rinfos)
	{
		QualCost	qc;

		ri[i] = lfirst_node(RestrictInfo, lc);
		cost_qual_eval_node(&qc, (Node *) ri[i], root);
		cost[i] = qc.per_tuple;
		/* a cheap leakproof clause may go first, as core lets it */
		level[i] = ri[i]->leakproof && cost[i] < 10 * cpu_operator_cost ? 0 : ri[i]->security_level;
		i++;
	}
	for (i = 1; i < n; i++)
	{
		RestrictInfo *r = ri[i];
		Cost		c = cost[i];
		Index		l = level[i];
		int			j;

		for (j = i; j > 0; j--)
		{
			if (l > level[j - 1] || (l == level[j - 1] && c >= cost[j - 1]))
				break;
			ri[j] = ri[j - 1];
			cost[j] = cost[j - 1];
			level[j] = level[j - 1];
		}
		ri[j] = r;
		cost[j] = c;
		level[j] = l;
	}
	for (i = 0; i < n; i++)
	{
		if (!ri[i]->pseudoconstant)
			quals = lappend(quals, ri[i]->clause);
	}
	return quals;
}

/*
 * Will the join's absorbed outer scan (outer_path, a Seq Scan of a plain
 * table) go by pages?  As page_scan.c's setup and gpuhash_page_usable
 * decide: gpuhash.page_scan on, exact keys that are plain columns the
 * walker reads, a scan program the walker takes, one table (no hash
 * batches, no shared batches), no chain over this join's outer side, not
 * serializable.  (A table split over several GPUs falls back to tuples at
 * run time, which the plan cannot see here; a join that a GPU join above
 * takes into its chain reads its pages where the page cache is on, else
 * its tuples, which the plan cannot see either.)  On yes, price holds what
 * the CPU keeps doing.
 * With gpuhash.page_cpu_cost at -1 no: the page path is priced as the
 * tuple path.
 */
bool
gpuhash_page_price_of(PlannerInfo *root, Path *outer_path, Path *inner_path,
					  JoinType jointype, KeyChoice *kc, bool parallel_aware,
					  bool parallel_inner, bool chained, GpuPagePrice *price)
{
	RelOptInfo *rel = outer_path->parent;
	RangeTblEntry *rte;
	Relation	r;
	AttrNumber	attno[GH_PAGE_MAX_KEYS];
	GpuKeyConv	conv[GH_PAGE_MAX_KEYS];
	int			width[GH_PAGE_MAX_KEYS];
	GpuPageProgram prog;
	ListCell   *lc;
	int			k = 0;

	memset(price, 0, sizeof(*price));
	/* gpuhash.page_cpu_cost -1: priced as the tuple path */
	if (gpuhash_page_cpu_cost < 0 || !gpuhash_page_scan || chained || kc->fingerprint || kc->nkeys < 1 ||
		kc->nkeys > GH_PAGE_MAX_KEYS || BLCKSZ != GH_PAGE_SIZE ||
		outer_path->pathtype != T_SeqScan || rel->reloptkind != RELOPT_BASEREL ||
		IsolationIsSerializable() ||
		!gpuhash_one_table(outer_path, inner_path, parallel_aware, parallel_inner))
		return false;
	foreach(lc, kc->outer_exprs)
	{
		Node	   *e = lfirst(lc);

		while (IsA(e, RelabelType))
			e = (Node *) ((RelabelType *) e)->arg;
		if (!IsA(e, Var) || ((Var *) e)->varno != rel->relid || ((Var *) e)->varattno <= 0)
			return false;
		attno[k] = ((Var *) e)->varattno;
		conv[k] = kc->keys[k].outer_conv;
		width[k] = kc->keys[k].width;
		k++;
	}

	/* the scan program page_scan.c compiles, over the plan's quals in their order */
	rte = planner_rt_fetch(rel->relid, root);
	r = table_open(rte->relid, NoLock);
	gpuhash_page_program(&prog, RelationGetDescr(r), rel->relid,
						 gpuhash_order_quals(root, rel->baserestrictinfo),
						 attno, conv, width, kc->nkeys,
						 jointype == JOIN_LEFT || jointype == JOIN_FULL || jointype == JOIN_ANTI);
	table_close(r, NoLock);
	if (prog.scan == NULL || gh_page_scan_check(prog.scan) != GH_OK)
		return false;

	price->all_rows = prog.scan->mode == GH_PAGE_ALL_ROWS;
	cost_qual_eval(&price->cpu_quals, prog.cpu_quals, root);
	price->gpu_sel = clauselist_selectivity(root, prog.gpu_quals, rel->relid, JOIN_INNER, NULL);
	price->cpu_sel = clauselist_selectivity(root, prog.cpu_quals, rel->relid, JOIN_INNER, NULL);
	return true;
}

/*
 * The outer side's run cost by the page path, the pages' own charge aside
 * (outer_run: the Seq Scan path's run cost, less its page saving): the Seq
 * Scan's per-tuple CPU (cpu_tuple_cost and its quals on every tuple) is
 * taken off and the pages and tuples each participant hands over are
 * charged instead.  The rows that come back are charged in
 * gpuhash_page_records.
 */
Cost
gpuhash_page_scan_run(Path *outer_path, Cost outer_run)
{
	RelOptInfo *rel = outer_path->parent;
	double		share = outer_path->parallel_workers > 0 ?
		1.0 / gpuhash_parallel_divisor(outer_path) : 1.0;
	Cost		tuple_cpu = (cpu_tuple_cost + rel->baserestrictcost.per_tuple) * rel->tuples * share;

	return Max(outer_run - tuple_cpu, 0.0) +
		(gpuhash_page_cpu_cost * rel->pages + gpuhash_page_row_cost * rel->tuples) * share;
}

/*
 * The records the walker hands back to one participant: every row that
 * passes its clauses where unmatched rows come out too (or a clause left
 * to the CPU may raise an error), else one per joining row, before the
 * CPU's clauses drop some (emit_rows: the matches the join emits).
 */
double
gpuhash_page_records(Path *outer_path, const GpuPagePrice *price, double emit_rows)
{
	RelOptInfo *rel = outer_path->parent;
	double		share = outer_path->parallel_workers > 0 ?
		1.0 / gpuhash_parallel_divisor(outer_path) : 1.0;
	double		records;

	if (price->all_rows)
		records = rel->tuples * share * price->gpu_sel;
	else
		records = emit_rows / Max(price->cpu_sel, 1e-6);
	/* several matches of one row are emitted one by one */
	return Max(records, emit_rows);
}
