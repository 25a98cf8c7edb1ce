/*-------------------------------------------------------------------------
 *
 * agg_paths.c
 *	  Offers the GPU aggregate (GpuPreAgg) to the planner through
 *	  create_upper_paths_hook (agg_hook.c), in the grouped relation: PostgreSQL's
 *	  Finalize Aggregate over a Gather of a parallel-aware GpuPreAgg where
 *	  PostgreSQL could aggregate in parallel, else over a serial GpuPreAgg.
 *	  Only over one plain heap table, under a plain GROUP BY (or none),
 *	  where every group column and aggregate is one the GPU folds exactly
 *	  (agg_catalog.h).  Paths are only added to the upper relations, next
 *	  to PostgreSQL's, and add_path decides: nothing of PostgreSQL's own
 *	  paths changes.  The parts of the offer that the aggregate over a join
 *	  shares (agg_join_paths.c) are here too.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "agg_catalog.h"
#include "agg_plan.h"
#include "agg_resident.h"
#include "planner/planner_int.h"

#include "scan/page_scan.h"

#include "access/table.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_constraint.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"

/* Does the query allow a GPU aggregate at all: a plain read, a plain grouping? */
bool
gpuhash_preagg_query_ok(PlannerInfo *root, GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;

	return (parse->commandType == CMD_SELECT || parse->commandType == CMD_INSERT) &&
		root->rowMarks == NIL && parse->groupingSets == NIL &&
		extra->patype == PARTITIONWISE_AGGREGATE_NONE &&
		(parse->hasAggs || parse->groupClause != NIL);
}

/*
 * Is rel one heap table the node may read by pages, as the join's absorbed
 * scans may (gpuhash_scan_absorbable)?  Not with a pseudoconstant clause:
 * core puts the gating Result for it only over a base relation's own scan
 * paths, and this path lives in an upper one.
 */
bool
gpuhash_preagg_rel_ok(PlannerInfo *root, RelOptInfo *rel)
{
	ListCell   *lc;

	if (rel->reloptkind != RELOPT_BASEREL || rel->lateral_relids != NULL ||
		IS_DUMMY_REL(rel) || !gpuhash_scan_absorbable(root, rel))
		return false;
	foreach(lc, rel->baserestrictinfo)
	{
		if (lfirst_node(RestrictInfo, lc)->pseudoconstant)
			return false;
	}
	return true;
}

/* cols[] (of GH_AGG_TARGET_COLS) gains attno unless it holds it already. */
void
gpuhash_preagg_add_col(AttrNumber *cols, int *ncols, AttrNumber attno)
{
	for (int i = 0; i < *ncols; i++)
		if (cols[i] == attno)
			return;
	if (*ncols < GH_AGG_TARGET_COLS)
		cols[(*ncols)++] = attno;
}

/*
 * Does v's relation have a primary key whose every column is a group column
 * of target, as a plain Var of the same relation?  Then every row of a
 * group holds one row of v's relation and one value of v.  The parser
 * allowed v ungrouped on that key (check_functional_grouping), but also
 * on a plain inheritance parent's, which its children need not keep
 * unique (remove_useless_groupby_columns skips those too): not here.
 */
static bool
carried_ok(PlannerInfo *root, PathTarget *target, const Var *v)
{
	RangeTblEntry *rte = planner_rt_fetch(v->varno, root);
	Bitmapset  *pk;
	Oid			constraint;
	int			i = 0;
	ListCell   *lc;

	if (rte->rtekind != RTE_RELATION ||
		(rte->inh && rte->relkind != RELKIND_PARTITIONED_TABLE))
		return false;
	pk = get_primary_key_attnos(rte->relid, false, &constraint);
	if (pk == NULL)
		return false;
	foreach(lc, target->exprs)
	{
		Expr	   *e = lfirst(lc);
		Index		sgref = get_pathtarget_sortgroupref(target, i++);

		while (IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (sgref != 0 && root->parse->groupClause != NIL &&
			get_sortgroupref_clause_noerr(sgref, root->parse->groupClause) != NULL &&
			IsA(e, Var) && ((Var *) e)->varno == v->varno && ((Var *) e)->varlevelsup == 0)
			pk = bms_del_member(pk, ((Var *) e)->varattno - FirstLowInvalidHeapAttributeNumber);
	}
	return bms_is_empty(pk);
}

/*
 * Can the GPU produce target, a partial grouping target: the group columns
 * first, each a key the GPU packs, then partial Aggrefs it folds exactly,
 * and nothing else (not a placeholder); no more keys or aggregates than a
 * gh_agg_prog holds.  Over a join (inner_relids not NULL) keys and
 * arguments may also be columns of the inner side, and an aggregate's CASE
 * condition goes to *conds.  Where carried is not NULL, a plain column of
 * the inner side that is no group column is taken too and appended to
 * *carried: the parser let it stand ungrouped only because the GROUP BY
 * holds its relation's primary key (check_functional_grouping), so every
 * row of a group has its one value, which the executor takes from one
 * inner row of the group (agg_join_carry.c).  cols[] gets relid's columns
 * the keys and arguments read.
 */
bool
gpuhash_preagg_target_ok(PlannerInfo *root, PathTarget *target, Index relid,
						 Relids inner_relids, AttrNumber *cols, int *ncols, List **conds,
						 List **carried)
{
	Query	   *parse = root->parse;
	int			i = 0,
				nkeys = 0,
				naggs = 0,
				bits[GH_AGG_MAX_KEYS];
	uint8		kconv[GH_AGG_MAX_KEYS] = {0};
	int32		ktypmod[GH_AGG_MAX_KEYS] = {0};
	const char *why = NULL;
	const char *over = inner_relids ? " over the join" : "";
	ListCell   *lc;

	foreach(lc, target->exprs)
	{
		Expr	   *e = lfirst(lc);
		Index		sgref = get_pathtarget_sortgroupref(target, i++);

		if (nkeys >= GH_AGG_MAX_KEYS || naggs >= GH_AGG_MAX_AGGS)
			why = "more group columns or aggregates than the GPU program holds";
		else if (sgref && parse->groupClause &&
				 get_sortgroupref_clause_noerr(sgref, parse->groupClause) != NULL)
		{
			uint8		conv,
						width;

			if (naggs > 0 || (carried != NULL && *carried != NIL))
				why = "a group column after an aggregate or a carried column";
			else if (inner_relids ?
					 gpuhash_agg_key_supported_join(e, relid, inner_relids, &conv, &width, &why) :
					 gpuhash_agg_key_supported(e, relid, &conv, &width, &why))
			{
				if (((Var *) e)->varno == relid)
					gpuhash_preagg_add_col(cols, ncols, ((Var *) e)->varattno);
				kconv[nkeys] = conv;
				ktypmod[nkeys] = exprTypmod((Node *) e);
				bits[nkeys++] = width;
				continue;
			}
		}
		else if (IsA(e, Aggref))
		{
			GpuAggSupport s;

			if (inner_relids ?
				gpuhash_agg_supported_join((Aggref *) e, relid, inner_relids, &s, &why) :
				gpuhash_agg_supported((Aggref *) e, relid, &s, &why))
			{
				for (int j = 0; j < 3; j++)
					if (s.attno[j] > 0)
						gpuhash_preagg_add_col(cols, ncols, s.attno[j]);
				if (s.cond && conds)
					*conds = lappend(*conds, s.cond);
				naggs++;
				continue;
			}
		}
		else if (carried != NULL && IsA(e, Var) && ((Var *) e)->varlevelsup == 0 &&
				 ((Var *) e)->varattno > 0 &&
				 bms_is_member(((Var *) e)->varno, inner_relids))
		{
			if (carried_ok(root, target, (Var *) e))
			{
				*carried = lappend(*carried, e);
				continue;
			}
			why = "a column whose relation's primary key is not among the group columns";
		}
		else
			why = "a column that is neither a group column nor an aggregate";
		elog(DEBUG1, "gpuhash: no GPU aggregate%s: %s", over, why ? why : "unsupported");
		return false;
	}
	if (!gpuhash_agg_key_slots(nkeys, kconv, ktypmod, bits) || nkeys + naggs == 0)
	{
		elog(DEBUG1, "gpuhash: no GPU aggregate%s: %d group columns (wider than %d bits) and %d aggregates",
			 over, nkeys, GH_AGG_KEY_MAX_BITS, naggs);
		return false;
	}
	return true;
}

/*
 * Will the node fold on the GPU?  As the executor's set-up decides
 * (agg_fold.c): the page walker's program, compiled here as there, runs
 * every qual and reads every column the keys and arguments use, over pages
 * of its size.  Otherwise the node reads every row on the CPU, no cheaper
 * than PostgreSQL's own partial aggregate: not offered.
 */
bool
gpuhash_preagg_walker_takes(PlannerInfo *root, RelOptInfo *rel, const AttrNumber *key_attno,
							const GpuKeyConv *conv, const int *width, int nkeys,
							const AttrNumber *cols, int ncols)
{
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	Relation	r;
	GpuPageProgram prog;

	if (BLCKSZ != GH_PAGE_SIZE)
		return false;
	r = table_open(rte->relid, NoLock);
	gpuhash_page_program_cols(&prog, RelationGetDescr(r), rel->relid,
							  gpuhash_order_quals(root, rel->baserestrictinfo),
							  key_attno, conv, width, nkeys, false, cols, ncols);
	table_close(r, NoLock);
	if (prog.scan == NULL || prog.cpu_quals != NIL)
	{
		elog(DEBUG1, "gpuhash: no GPU aggregate: %s",
			 prog.scan == NULL ? (prog.why ? prog.why : "scan program") :
			 "a qual the GPU does not take");
		return false;
	}
	return true;
}

/* The groups of input_rows rows, as core's get_number_of_groups counts them. */
double
gpuhash_preagg_groups(PlannerInfo *root, GroupPathExtraData *extra, double input_rows)
{
	List	   *exprs;

	if (root->parse->groupClause == NIL)
		return 1.0;
	exprs = get_sortgrouplist_exprs(root->parse->groupClause, extra->targetList);
	return estimate_num_groups(root, exprs, input_rows, NULL, NULL);
}

/*
 * The relation's Parallel Seq Scan, whose participants and share of rows
 * the node takes: it divides the blocks among participants as that does.
 * Where add_partial_path pruned it (a Parallel Index Only Scan of the
 * columns a join reads is cheaper, the visibility map all set), the one
 * create_plain_partial_paths made, made again: the node reads the heap's
 * pages whichever scan core prefers alone.  The path is the node's own,
 * in no list of core's.  NULL where core would make none.
 */
Path *
gpuhash_preagg_partial_seqscan(PlannerInfo *root, RelOptInfo *rel)
{
	RangeTblEntry *rte;
	ListCell   *lc;
	int			workers;

	foreach(lc, rel->partial_pathlist)
	{
		Path	   *p = lfirst(lc);

		if (IsA(p, ProjectionPath))
			p = ((ProjectionPath *) p)->subpath;
		if (p->pathtype == T_SeqScan && p->parallel_aware && p->param_info == NULL)
			return p;
	}
	if (rel->reloptkind != RELOPT_BASEREL || !rel->consider_parallel ||
		rel->partial_pathlist == NIL)
		return NULL;
	rte = planner_rt_fetch(rel->relid, root);
	if (rte->rtekind != RTE_RELATION || rte->inh || rte->tablesample != NULL ||
		rte->relkind != RELKIND_RELATION)
		return NULL;
	workers = compute_parallel_worker(rel, rel->pages, -1, max_parallel_workers_per_gather);
	if (workers <= 0)
		return NULL;
	return create_seqscan_path(root, rel, NULL, workers);
}

static CustomPath *
make_preagg_path(PlannerInfo *root, RelOptInfo *parent, RelOptInfo *baserel,
				 PathTarget *target, Path *partial_scan, double groups)
{
	CustomPath *cp = makeNode(CustomPath);
	RelOptInfo *named = makeNode(RelOptInfo);

	/*
	 * The parent: the upper relation, naming the scanned one in its relids,
	 * since core sets the plan's custom_relids from them and EXPLAIN names
	 * only the relations of custom_relids (with an alias where the query
	 * reads the table twice).  The copy is this path's alone.
	 */
	memcpy(named, parent, sizeof(RelOptInfo));
	named->relids = bms_copy(baserel->relids);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = named;
	cp->path.pathtarget = target;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = partial_scan != NULL;
	cp->path.parallel_safe = partial_scan != NULL;
	cp->path.parallel_workers = partial_scan ? partial_scan->parallel_workers : 0;
	cp->path.pathkeys = NIL;
	cp->flags = 0;
	cp->custom_paths = NIL;
	/* the relation, for PlanCustomPath: the parent is an upper relation */
	cp->custom_private = list_make1(makeInteger(baserel->relid));
	cp->methods = &gpuhash_preagg_path_methods;
	gpuhash_cost_preagg(root, cp, baserel, partial_scan, groups);
	return cp;
}

/*
 * The partial grouping target of grouping_target, as core's
 * make_partial_grouping_target (static in planner.c) makes it: the group
 * columns as they are, then the Vars, placeholders and Aggrefs the other
 * columns and HAVING use, each Aggref marked partial (serialized).
 */
PathTarget *
gpuhash_preagg_partial_target(PlannerInfo *root, PathTarget *grouping_target, Node *having)
{
	Query	   *parse = root->parse;
	PathTarget *target = create_empty_pathtarget();
	List	   *others = NIL;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, grouping_target->exprs)
	{
		Expr	   *e = lfirst(lc);
		Index		sgref = get_pathtarget_sortgroupref(grouping_target, i++);

		if (sgref && parse->groupClause &&
			get_sortgroupref_clause_noerr(sgref, parse->groupClause) != NULL)
			add_column_to_pathtarget(target, e, sgref);
		else
			others = lappend(others, e);
	}
	if (having)
		others = lappend(others, having);
	add_new_columns_to_pathtarget(target,
								  pull_var_clause((Node *) others,
												  PVC_INCLUDE_AGGREGATES |
												  PVC_RECURSE_WINDOWFUNCS |
												  PVC_INCLUDE_PLACEHOLDERS));
	foreach(lc, target->exprs)
	{
		if (IsA(lfirst(lc), Aggref))
		{
			Aggref	   *a = makeNode(Aggref);

			memcpy(a, lfirst(lc), sizeof(Aggref));
			mark_partial_aggref(a, AGGSPLIT_INITIAL_SERIAL);
			lfirst(lc) = a;
		}
	}
	return set_pathtarget_cost_width(root, target);
}

/*
 * core's partially grouped relation of grouped_rel, where it made one (it
 * could aggregate in parallel), without making one where it did not.
 */
RelOptInfo *
gpuhash_preagg_core_partial_rel(PlannerInfo *root, RelOptInfo *grouped_rel)
{
	ListCell   *lc;

	foreach(lc, root->upper_rels[UPPERREL_PARTIAL_GROUP_AGG])
	{
		RelOptInfo *rel = lfirst(lc);

		if (bms_equal(rel->relids, grouped_rel->relids))
			return rel;
	}
	return NULL;
}

/*
 * Core's paths of the grouped relation as they are now, copied: add_path
 * frees those a path offered later beats, and each offer is weighed
 * against all of them (gpuhash_gains_enough reads their costs).
 */
List *
gpuhash_preagg_native_copies(List *pathlist)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, pathlist)
	{
		Path	   *c = palloc(sizeof(Path));

		memcpy(c, lfirst(lc), sizeof(Path));
		NodeSetTag(c, T_Path);
		out = lappend(out, c);
	}
	return out;
}

/*
 * One Finalize Aggregate over input, as core's add_paths_to_grouping_rel
 * makes it, offered where it gains enough over native, core's paths.
 */
static void
add_final_path(PlannerInfo *root, RelOptInfo *grouped_rel, List *native, Path *input,
			   AggStrategy strategy, const AggClauseCosts *costs, GroupPathExtraData *extra,
			   double groups)
{
	Query	   *parse = root->parse;
	Path	   *path = input;

	if (strategy == AGG_SORTED)
		path = (Path *) create_sort_path(root, grouped_rel, path, root->group_pathkeys, -1.0);
	path = (Path *) create_agg_path(root, grouped_rel, path, grouped_rel->reltarget, strategy,
									AGGSPLIT_FINAL_DESERIAL,
									strategy == AGG_PLAIN ? NIL : parse->groupClause,
									(List *) extra->havingQual, costs, groups);
	if (gpuhash_gains_enough(path, native))
		add_path(grouped_rel, path);
}

/*
 * Offers cp, a GpuPreAgg path of the partial grouping target, under a
 * Finalize Aggregate in grouped_rel: over a Gather (in partial_rel, core's
 * partially grouped relation) where cp is parallel-aware, else directly.
 * Hashed, or sorted above the GpuPreAgg (or Gather), as the grouping
 * allows; plain without GROUP BY.  input_rows: the grouped rel's input
 * rows; native: core's paths of grouped_rel, which each must beat.
 */
void
gpuhash_preagg_offer(PlannerInfo *root, RelOptInfo *grouped_rel, RelOptInfo *partial_rel,
					 CustomPath *cp, GroupPathExtraData *extra, double input_rows, List *native)
{
	Query	   *parse = root->parse;
	AggClauseCosts costs;
	Path	   *input;
	double		groups;

	if (cp->path.parallel_aware)
	{
		/* each participant hands up its groups, as core's gather_grouping_paths counts */
		double		total = cp->path.rows * cp->path.parallel_workers;

		input = (Path *) create_gather_path(root, partial_rel, &cp->path, cp->path.pathtarget,
											NULL, &total);
	}
	else
		input = &cp->path;
	MemSet(&costs, 0, sizeof(costs));
	get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &costs);

	groups = gpuhash_preagg_groups(root, extra, input_rows);
	if (parse->groupClause == NIL)
		add_final_path(root, grouped_rel, native, input, AGG_PLAIN, &costs, extra, groups);
	else
	{
		if (extra->flags & GROUPING_CAN_USE_HASH)
			add_final_path(root, grouped_rel, native, input, AGG_HASHED, &costs, extra, groups);
		if (extra->flags & GROUPING_CAN_USE_SORT)
			add_final_path(root, grouped_rel, native, input, AGG_SORTED, &costs, extra, groups);
	}
}

/*
 * Where every group of cp stays resident, each is handed up by one
 * participant (agg_resident.c: the set's groups read once, the rows folded
 * beside it sent to one reader), so the Finalize Aggregate can run in every
 * participant below the Gather, each hashing its own share of the groups
 * (cp's rows) instead of one process hashing them all, and the Gather then
 * carries finished groups.  Hashed only: a participant's share comes in no
 * order.  Offered beside the Finalize Aggregate over the Gather;
 * add_path keeps the cheaper, by PostgreSQL's own costs of the two
 * Aggregates (a hash table of all groups past hash_mem spills; a
 * participant's share fits sooner).  Over one relation or an inner join
 * (agg_join_paths.c): an outer join's unmatched inner rows go up after
 * the walks, beside the set, so their groups could reach two owners.
 */
void
gpuhash_preagg_offer_owned(PlannerInfo *root, RelOptInfo *grouped_rel, CustomPath *cp,
						   GroupPathExtraData *extra, List *native)
{
	Query	   *parse = root->parse;
	CustomPath *own;
	AggClauseCosts costs;
	Path	   *path;
	double		total;

	if (!(cp->flags & GPUHASH_PREAGG_RESIDENT) || !cp->path.parallel_aware ||
		cp->path.parallel_workers <= 0 || parse->groupClause == NIL ||
		parse->groupingSets != NIL || !(extra->flags & GROUPING_CAN_USE_HASH) ||
		!grouped_rel->consider_parallel || !gpuhash_owned_groups)
		return;
	own = makeNode(CustomPath);
	memcpy(own, cp, sizeof(CustomPath));
	own->custom_private = list_copy(cp->custom_private);
	own->flags |= GPUHASH_PREAGG_OWNED;
	MemSet(&costs, 0, sizeof(costs));
	get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &costs);
	path = (Path *) create_agg_path(root, grouped_rel, &own->path, grouped_rel->reltarget,
									AGG_HASHED, AGGSPLIT_FINAL_DESERIAL, parse->groupClause,
									(List *) extra->havingQual, &costs, own->path.rows);
	if (!path->parallel_safe)
		return;
	total = own->path.rows * own->path.parallel_workers;
	path = (Path *) create_gather_path(root, grouped_rel, path, grouped_rel->reltarget, NULL,
									   &total);
	if (gpuhash_gains_enough(path, native))
		add_path(grouped_rel, path);

	/*
	 * Each participant's groups are finished and no other participant hands
	 * up any of them: the participants' rows partition the grouped
	 * relation's, which is what a partial path of it is.  So core may put
	 * above them, in every participant, what works on any partition of the
	 * rows: a Sort under a Gather Merge (create_ordered_paths, bounded by
	 * a LIMIT, so that the Gather carries only each participant's first
	 * rows), a partial DISTINCT.  Only in the top query: an outer query
	 * level would take it as a partial path of the subquery and join it,
	 * which is not tested.  (A path of its own: add_partial_path frees one
	 * it rejects.)
	 */
	if (root->query_level == 1)
		add_partial_path(grouped_rel,
						 (Path *) create_agg_path(root, grouped_rel, &own->path,
												  grouped_rel->reltarget, AGG_HASHED,
												  AGGSPLIT_FINAL_DESERIAL, parse->groupClause,
												  (List *) extra->havingQual, &costs,
												  own->path.rows));
}

/*
 * PostgreSQL 15 calls create_upper_paths_hook for UPPERREL_GROUP_AGG only,
 * after the partially grouped relation's paths have gone into its Gathers
 * and Finalize Aggregates.  So this makes, in the grouped relation, what
 * core makes over a partial aggregate: where core could aggregate in
 * parallel, Finalize Aggregate over a Gather of a parallel-aware
 * GpuPreAgg (its target is core's partial target, whose Aggrefs the
 * Finalize Aggregate's match); where it could not, Finalize Aggregate over
 * a serial GpuPreAgg.  add_path weighs each against core's own paths.
 */
void
gpuhash_add_preagg_paths(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *grouped_rel,
						 GroupPathExtraData *extra)
{
	RelOptInfo *partial_rel = gpuhash_preagg_core_partial_rel(root, grouped_rel);
	List	   *native;
	Path	   *scan = NULL;
	PathTarget *target;
	CustomPath *cp;
	AttrNumber	cols[GH_AGG_TARGET_COLS];
	int			ncols = 0;

	if (!gpuhash_preagg_rel_ok(root, input_rel))
		return;
	if (partial_rel != NULL)
	{
		/* core could go parallel: the parallel path is the offer */
		scan = gpuhash_preagg_partial_seqscan(root, input_rel);
		if (!partial_rel->consider_parallel || scan == NULL)
			return;
		target = partial_rel->reltarget;
	}
	else
		target = gpuhash_preagg_partial_target(root, grouped_rel->reltarget, extra->havingQual);
	if (!gpuhash_preagg_target_ok(root, target, input_rel->relid, NULL, cols, &ncols, NULL, NULL) ||
		!gpuhash_preagg_walker_takes(root, input_rel, NULL, NULL, NULL, 0, cols, ncols) ||
		gpuhash_plan_device() < 0)
		return;

	if (scan != NULL)
		cp = make_preagg_path(root, partial_rel, input_rel, target, scan,
							  gpuhash_preagg_groups(root, extra, scan->rows));
	else
		cp = make_preagg_path(root, grouped_rel, input_rel, target, NULL,
							  gpuhash_preagg_groups(root, extra, input_rel->rows));
	/* where the groups stay resident, only the set's survivors come up */
	gpuhash_preagg_resident_cost(root, cp, input_rel, scan, target,
								 gpuhash_preagg_groups(root, extra, input_rel->rows),
								 gpuhash_preagg_groups(root, extra, scan ? scan->rows :
													   input_rel->rows));
	native = gpuhash_preagg_native_copies(grouped_rel->pathlist);
	gpuhash_preagg_offer(root, grouped_rel, partial_rel, cp, extra, input_rel->rows, native);
	gpuhash_preagg_offer_owned(root, grouped_rel, cp, extra, native);
}
