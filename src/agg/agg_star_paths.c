/*-------------------------------------------------------------------------
 *
 * agg_star_paths.c
 *	  Offers the GPU aggregate over a star: where the grouped relation's
 *	  input is an inner join of a heap table R whose pages the walker reads
 *	  and of several sides D1 .. Dk (each a base relation or a join
 *	  relation PostgreSQL planned), each joined to R by `=` clauses of an
 *	  exact key over R's own columns.  Each Di's rows become a dimension;
 *	  the walker probes every one with its own key and folds each
 *	  combination that passes the clauses left over (those across
 *	  dimensions, or over R and a dimension beyond its key), which run on
 *	  the device.
 *
 *	  The split of the query's join relation into R and the rest I is what
 *	  the join hook recorded (agg_join_stash.c).  I is split further into
 *	  relations PostgreSQL built (its base relations and the join
 *	  relations of root->join_rel_list), each with a join clause to R; for
 *	  each such partition of I into 2 .. GH_AGG_MAX_DIMS parts, the clauses
 *	  are made as PostgreSQL's own joins make them: the equivalence
 *	  classes' equalities between R and each part
 *	  (generate_join_implied_equalities, from which the keys come) and
 *	  between the parts in turn, and the other clauses from the stashed
 *	  restriction list (those over R) and the parts' joininfo (those
 *	  between parts).  An equality between two parts that both equal the
 *	  same member of R is implied by their keys and dropped.
 *
 *	  Only where the whole query is inner joins (no special joins), and no
 *	  equivalence member spans two sides.  A split into one part is today's
 *	  aggregate over a join (agg_join_paths.c), unchanged.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "agg_catalog.h"
#include "agg_plan.h"
#include "agg_qual.h"
#include "agg_resident.h"
#include "planner/planner_int.h"

#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/joininfo.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"

/* the most partitions of I weighed for one split */
#define STAR_MAX_PARTITIONS 32
/* the most relations in I whose partitions are searched */
#define STAR_MAX_INNER_RELS 10

typedef struct StarDim
{
	RelOptInfo *rel;
	Path	   *path;
	int			nkeys;
	AttrNumber	key_attno[GH_PAGE_MAX_KEYS];
	GpuKeyConv	key_conv[GH_PAGE_MAX_KEYS];
	int			key_width[GH_PAGE_MAX_KEYS];
	List	   *outer_keys;		/* Vars of R */
	List	   *inner_keys;		/* expressions over the dimension */
	List	   *ecs;			/* the EquivalenceClasses of its clauses with R */
	int			ninner;			/* its columns the node reads */
} StarDim;

typedef struct Star
{
	RelOptInfo *rel;			/* R */
	Relids		inner_relids;	/* I */
	int			ndims;
	StarDim		dim[GH_AGG_MAX_DIMS];
	List	   *clauses;		/* run per combination */
	List	   *conds;
	AttrNumber	cols[GH_AGG_TARGET_COLS];
	int			ncols;
} Star;

/* A search of the partitions of one split. */
typedef struct StarSearch
{
	PlannerInfo *root;
	RelOptInfo *r;				/* R */
	Relids		inner_relids;	/* I */
	RelOptInfo *input_rel;
	RelOptInfo *grouped_rel;
	RelOptInfo *partial_rel;
	PathTarget *target;
	GroupPathExtraData *extra;
	List	   *native;
	RelOptInfo *parts[GH_AGG_MAX_DIMS];
	int			tried;
} StarSearch;

static void
decline(const char *why)
{
	elog(DEBUG1, "gpuhash: no GPU aggregate over a star: %s", why);
}

/* Which dimension relids lie in (-1: R or none, -2: several). */
static int
dim_of(Star *s, Relids relids)
{
	int			found = -1;

	for (int d = 0; d < s->ndims; d++)
	{
		if (!bms_overlap(relids, s->dim[d].rel->relids))
			continue;
		if (found >= 0 || !bms_is_subset(bms_difference(relids, s->rel->relids),
										 s->dim[d].rel->relids))
			return -2;
		found = d;
	}
	return found;
}

/*
 * A clause between R and dimension d: an exact key where it is a hashable
 * `=` of a plain column of R and an expression of d (while d's packed key
 * fits 64 bits), else a clause run per combination.  False: not taken.
 */
static bool
add_dim_clause(Star *s, int d, RestrictInfo *rinfo, int *bits)
{
	StarDim    *sd = &s->dim[d];
	GpuKeySpec	spec;
	Node	   *okey;
	Node	   *ikey;

	if (rinfo->pseudoconstant || contain_volatile_functions((Node *) rinfo->clause) ||
		contain_subplans((Node *) rinfo->clause))
	{
		decline("a pseudoconstant or volatile join clause, or a subplan");
		return false;
	}
	if (sd->nkeys >= GH_PAGE_MAX_KEYS ||
		!gpuhash_agg_key_clause(rinfo, s->rel, sd->rel->relids, *bits, &spec, &okey, &ikey))
	{
		s->clauses = lappend(s->clauses, rinfo->clause);
		return true;
	}
	sd->key_attno[sd->nkeys] = ((Var *) okey)->varattno;
	sd->key_conv[sd->nkeys] = spec.outer_conv;
	sd->key_width[sd->nkeys] = spec.width;
	sd->outer_keys = lappend(sd->outer_keys, okey);
	sd->inner_keys = lappend(sd->inner_keys, ikey);
	sd->nkeys++;
	*bits += spec.width;
	return true;
}

/* A clause across dimensions (or R and several), run per combination. */
static bool
add_cross_clause(Star *s, RestrictInfo *rinfo, List **seen)
{
	if (list_member_ptr(*seen, rinfo))
		return true;
	*seen = lappend(*seen, rinfo);
	if (rinfo->pseudoconstant || contain_volatile_functions((Node *) rinfo->clause) ||
		contain_subplans((Node *) rinfo->clause))
	{
		decline("a pseudoconstant or volatile join clause, or a subplan");
		return false;
	}
	s->clauses = lappend(s->clauses, rinfo->clause);
	return true;
}

/*
 * The clauses of the star: each dimension's with R (its keys), then those
 * across dimensions.  False: not a star the walker takes.
 */
static bool
star_clauses(PlannerInfo *root, Star *s, List *restrictlist)
{
	List	   *seen = NIL;
	Relids		prefix;
	ListCell   *lc;

	/* R and each dimension: the equivalence classes' equalities, then the rest */
	for (int d = 0; d < s->ndims; d++)
	{
		StarDim    *sd = &s->dim[d];
		Relids		both = bms_union(s->rel->relids, sd->rel->relids);
		int			bits = 0;

		foreach(lc, generate_join_implied_equalities(root, both, s->rel->relids, sd->rel))
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

			if (rinfo->parent_ec != NULL)
				sd->ecs = list_append_unique_ptr(sd->ecs, rinfo->parent_ec);
			if (!add_dim_clause(s, d, rinfo, &bits))
				return false;
		}
		foreach(lc, restrictlist)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

			if (rinfo->parent_ec == NULL && dim_of(s, rinfo->clause_relids) == d &&
				!add_dim_clause(s, d, rinfo, &bits))
				return false;
		}
		if (sd->nkeys == 0)
		{
			decline("a dimension without an `=` clause of an exact key over R's columns");
			return false;
		}
	}
	/* R and several dimensions (not an equivalence class's: those are R's and one's) */
	foreach(lc, restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->parent_ec == NULL && dim_of(s, rinfo->clause_relids) == -2 &&
			!add_cross_clause(s, rinfo, &seen))
			return false;
	}
	/* between dimensions: their joininfo, without R */
	for (int d = 0; d < s->ndims; d++)
		foreach(lc, s->dim[d].rel->joininfo)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

			if (rinfo->parent_ec == NULL &&
				!bms_overlap(rinfo->required_relids, s->rel->relids) &&
				dim_of(s, rinfo->required_relids) == -2 &&
				!add_cross_clause(s, rinfo, &seen))
				return false;
		}

	/*
	 * Between dimensions, the equivalence classes' equalities as a join of
	 * them one after another makes them; one whose class both dimensions
	 * already equal to R by is implied.
	 */
	prefix = bms_copy(s->dim[0].rel->relids);
	for (int d = 1; d < s->ndims; d++)
	{
		Relids		join = bms_union(prefix, s->dim[d].rel->relids);

		foreach(lc, generate_join_implied_equalities(root, join, prefix, s->dim[d].rel))
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
			bool		implied = rinfo->parent_ec != NULL;

			for (int e = 0; e <= d && implied; e++)
				if (bms_overlap(rinfo->clause_relids, s->dim[e].rel->relids) &&
					!list_member_ptr(s->dim[e].ecs, rinfo->parent_ec))
					implied = false;
			if (!implied && !add_cross_clause(s, rinfo, &seen))
				return false;
		}
		prefix = join;
	}
	return true;
}

/* No equivalence member over two sides (R, a dimension): their clauses would span them. */
static bool
members_ok(PlannerInfo *root, Star *s)
{
	ListCell   *lc;

	foreach(lc, root->eq_classes)
	{
		EquivalenceClass *ec = lfirst(lc);
		ListCell   *lc2;

		foreach(lc2, ec->ec_members)
		{
			EquivalenceMember *em = lfirst(lc2);

			if (em->em_is_child || em->em_is_const)
				continue;
			if (!bms_is_subset(em->em_relids, s->rel->relids) &&
				dim_of(s, em->em_relids) < 0)
				return false;
		}
	}
	return true;
}

/*
 * The dimensions' columns the node reads (the target's, the conditions',
 * the clauses') and their keys' columns: each in its dimension's plan's
 * output, all together no more than a dimension holds.  R's columns they
 * read, and the dimensions' keys' columns of R, join those the walker reads.
 */
static bool
star_columns(Star *s, PathTarget *target)
{
	List	   *kept = pull_var_clause((Node *) list_make3(target->exprs, s->conds, s->clauses),
									   PVC_RECURSE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS);
	int			nkept = list_length(kept);
	List	   *distinct[GH_AGG_MAX_DIMS] = {NIL};
	int			total = 0;
	ListCell   *lc;

	for (int d = 0; d < s->ndims; d++)
	{
		kept = list_concat(kept, pull_var_clause((Node *) s->dim[d].inner_keys,
												 PVC_RECURSE_PLACEHOLDERS));
		for (int k = 0; k < s->dim[d].nkeys; k++)
			gpuhash_preagg_add_col(s->cols, &s->ncols, s->dim[d].key_attno[k]);
	}
	foreach(lc, kept)
	{
		Var		   *v = lfirst(lc);
		int			d;
		bool		output = false;
		ListCell   *lc2;

		if (v->varno == s->rel->relid)
		{
			gpuhash_preagg_add_col(s->cols, &s->ncols, v->varattno);
			continue;
		}
		d = dim_of(s, bms_make_singleton(v->varno));
		if (d < 0)
		{
			decline("a column of no dimension");
			return false;
		}
		/* the executor finds it in its dimension's plan's output */
		foreach(lc2, s->dim[d].path->pathtarget->exprs)
		{
			Var		   *o = lfirst(lc2);

			if (IsA(o, Var) && o->varno == v->varno && o->varattno == v->varattno &&
				o->varlevelsup == 0)
				output = true;
		}
		if (!output)
		{
			decline("a column of a dimension that its plan does not output");
			return false;
		}
		if (foreach_current_index(lc) < nkept)
			distinct[d] = list_append_unique(distinct[d], v);
	}
	for (int d = 0; d < s->ndims; d++)
	{
		s->dim[d].ninner = list_length(distinct[d]);
		total += Max(s->dim[d].ninner, 1);
	}
	if (total > GH_AGG_MAX_INNER)
	{
		decline("more dimension columns than the walker holds");
		return false;
	}
	return true;
}

/*
 * The path over star s: the dimensions' plans its children (custom_paths,
 * in order), custom_private as the aggregate over one dimension's with
 * the first dimension's keys, then every other dimension's outer and inner
 * keys after the first's inner ones, and a last entry naming the
 * dimensions' key counts (agg_plan.c copies it to the plan).
 */
static CustomPath *
make_star_path(StarSearch *ss, Star *s, RelOptInfo *parent, Path *partial_scan)
{
	PlannerInfo *root = ss->root;
	CustomPath *cp = makeNode(CustomPath);
	RelOptInfo *named = makeNode(RelOptInfo);
	double		participants = partial_scan ? gpuhash_parallel_divisor(partial_scan) : 1.0;
	double		pairs = ss->input_rel->rows / participants;
	List	   *rest = list_copy(s->dim[0].inner_keys);
	List	   *tag = list_make1(makeString(GPUHASH_PREAGG_STAR_TAG));
	List	   *paths = NIL;

	for (int d = 1; d < s->ndims; d++)
	{
		rest = list_concat(rest, list_concat_copy(s->dim[d].outer_keys, s->dim[d].inner_keys));
		tag = lappend(tag, makeInteger(s->dim[d].nkeys));
	}
	for (int d = 0; d < s->ndims; d++)
		paths = lappend(paths, s->dim[d].path);

	memcpy(named, parent, sizeof(RelOptInfo));
	named->relids = bms_copy(ss->input_rel->relids);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = named;
	cp->path.pathtarget = ss->target;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = partial_scan != NULL;
	cp->path.parallel_safe = partial_scan != NULL;
	cp->path.parallel_workers = partial_scan ? partial_scan->parallel_workers : 0;
	cp->path.pathkeys = NIL;
	cp->flags = 0;
	cp->custom_paths = paths;
	cp->custom_private = list_make5(makeInteger(s->rel->relid), s->dim[0].outer_keys, rest,
									s->clauses, makeInteger(0));
	cp->custom_private = lappend(lappend(cp->custom_private, makeInteger(0)), tag);
	cp->methods = &gpuhash_preagg_path_methods;

	/*
	 * The first dimension and the walk as over one dimension, every
	 * dimension built from its plan's rows (the star never reads a
	 * dimension's pages: priced as the outer join's build, which does not
	 * either); each combination a pair of the fold.
	 */
	gpuhash_cost_preagg_join(root, cp, s->rel, s->dim[0].path, s->dim[0].nkeys,
							 Max(s->dim[0].ninner, 1), partial_scan, pairs,
							 gpuhash_preagg_groups(root, ss->extra, pairs), -1.0, true,
							 gpuhash_preagg_resident_planned(root) ?
							 gpuhash_preagg_groups(root, ss->extra, ss->input_rel->rows) : -1.0,
							 false);
	for (int d = 1; d < s->ndims; d++)
		gpuhash_cost_preagg_star_dim(cp, s->rel, s->dim[d].path, s->dim[d].nkeys,
									 Max(s->dim[d].ninner, 1), partial_scan);
	return cp;
}

/* The star of the parts found: checked, costed and offered. */
static void
try_star(StarSearch *ss, int nparts)
{
	PlannerInfo *root = ss->root;
	Star		s;
	Path	   *scan = NULL;
	double		bytes = 0;
	CustomPath *cp;

	memset(&s, 0, sizeof(s));
	s.rel = ss->r;
	s.ndims = nparts;
	for (int d = 0; d < nparts; d++)
		s.dim[d].rel = ss->parts[d];

	/*
	 * In parallel where core could be and every dimension has a path each
	 * participant may run whole (a dimension per participant); else serial.
	 */
	if (ss->partial_rel != NULL && ss->partial_rel->consider_parallel)
		scan = gpuhash_preagg_partial_seqscan(root, s.rel);
	for (int d = 0; d < nparts && scan != NULL; d++)
		if ((s.dim[d].path = gpuhash_cheapest_parallel_safe(s.dim[d].rel)) == NULL)
			scan = NULL;
	for (int d = 0; d < nparts; d++)
	{
		if (scan == NULL)
			s.dim[d].path = s.dim[d].rel->cheapest_total_path;
		if (s.dim[d].path == NULL || s.dim[d].path->param_info != NULL)
		{
			decline("a dimension without an unparameterized path");
			return;
		}
		bytes += s.dim[d].path->rows * (s.dim[d].path->pathtarget->width + 32.0);
	}

	/* every dimension's rows held at once, as one dimension's (agg_join_paths.c) */
	if (bytes > (double) gpuhash_max_inner_memory_kb * 1024.0 ||
		bytes > (double) get_hash_memory_limit())
	{
		decline("the dimensions are beyond gpuhash.max_inner_memory or work_mem x hash_mem_multiplier");
		return;
	}
	if (!members_ok(root, &s))
	{
		decline("an equivalence member over two sides");
		return;
	}
	if (!star_clauses(root, &s, s.rel->joininfo) ||
		!gpuhash_preagg_target_ok(root, ss->target, s.rel->relid, ss->inner_relids,
								  s.cols, &s.ncols, &s.conds, NULL) ||
		!star_columns(&s, ss->target))
		return;
	if (!gpuhash_agg_qual_compiles(list_concat_copy(s.clauses, s.conds), s.rel->relid,
								   ss->inner_relids))
	{
		decline("a clause or condition the GPU does not take");
		return;
	}
	if (!gpuhash_preagg_walker_takes(root, s.rel, s.dim[0].key_attno, s.dim[0].key_conv,
									 s.dim[0].key_width, s.dim[0].nkeys, s.cols, s.ncols))
		return;
	cp = make_star_path(ss, &s, scan ? ss->partial_rel : ss->grouped_rel, scan);
	elog(DEBUG1, "gpuhash: GPU aggregate over a star of %u and %d dimensions%s: cost %.2f..%.2f, %.0f groups",
		 s.rel->relid, nparts, scan ? ", parallel" : "", cp->path.startup_cost,
		 cp->path.total_cost, cp->path.rows);
	gpuhash_preagg_offer(root, ss->grouped_rel, ss->partial_rel, cp, ss->extra,
						 ss->input_rel->rows, ss->native);
}

/* A relation PostgreSQL built of exactly relids, usable as a dimension, or NULL. */
static RelOptInfo *
part_rel(PlannerInfo *root, Relids relids, RelOptInfo *r)
{
	RelOptInfo *rel;

	rel = bms_membership(relids) == BMS_SINGLETON ?
		find_base_rel(root, bms_singleton_member(relids)) : find_join_rel(root, relids);
	if (rel == NULL || rel->lateral_relids != NULL || IS_DUMMY_REL(rel) ||
		rel->cheapest_total_path == NULL || !have_relevant_joinclause(root, r, rel))
		return NULL;
	return rel;
}

/*
 * The partitions of rest into built relations joined to R, the parts found
 * so far in ss->parts[0 .. n): the part holding rest's first member, each
 * way it can be, then the rest of rest.
 */
static void
search(StarSearch *ss, RelOptInfo *r, Relids rest, int n)
{
	PlannerInfo *root = ss->root;
	int			first;
	RelOptInfo *rel;
	ListCell   *lc;

	if (bms_is_empty(rest))
	{
		if (n >= 2 && ss->tried++ < STAR_MAX_PARTITIONS)
			try_star(ss, n);
		return;
	}
	if (n == GH_AGG_MAX_DIMS || ss->tried >= STAR_MAX_PARTITIONS)
		return;
	first = bms_next_member(rest, -1);
	if ((rel = part_rel(root, bms_make_singleton(first), r)) != NULL)
	{
		ss->parts[n] = rel;
		search(ss, r, bms_del_member(bms_copy(rest), first), n + 1);
	}
	foreach(lc, root->join_rel_list)
	{
		RelOptInfo *j = lfirst(lc);

		/* a strict part of rest: all of it is one dimension, today's join */
		if (!bms_is_member(first, j->relids) || !bms_is_subset(j->relids, rest) ||
			(n == 0 && bms_equal(j->relids, rest)) ||
			(rel = part_rel(root, j->relids, r)) == NULL)
			continue;
		ss->parts[n] = rel;
		search(ss, r, bms_difference(rest, j->relids), n + 1);
	}
}

/*
 * From the upper hook, for a grouped relation over a join relation of
 * inner joins: a GpuPreAgg path for each base relation R the walker reads
 * and each partition of the rest into dimensions.  The join hook's stash
 * (agg_join_stash.c) does not hold R's split where the rest is no join
 * relation (dimensions with no clause between them, the plain star), so
 * the clauses come from R's joininfo and the equivalence classes, as
 * PostgreSQL makes the join's restriction list.
 */
void
gpuhash_add_preagg_star_paths(PlannerInfo *root, RelOptInfo *input_rel,
							  RelOptInfo *grouped_rel, RelOptInfo *partial_rel,
							  PathTarget *target, GroupPathExtraData *extra, List *native)
{
	StarSearch	ss;
	int			relid = -1;

	if (bms_num_members(input_rel->relids) < 3 ||
		!bms_equal(input_rel->relids, root->all_baserels))
		return;
	if (root->join_info_list != NIL)
	{
		decline("an outer, semi or anti join in the query");
		return;
	}
	if (bms_num_members(input_rel->relids) > STAR_MAX_INNER_RELS + 1)
	{
		decline("too many relations to split");
		return;
	}
	memset(&ss, 0, sizeof(ss));
	ss.root = root;
	ss.input_rel = input_rel;
	ss.grouped_rel = grouped_rel;
	ss.partial_rel = partial_rel;
	ss.target = target;
	ss.extra = extra;
	ss.native = native;
	while ((relid = bms_next_member(input_rel->relids, relid)) >= 0)
	{
		RelOptInfo *r = find_base_rel(root, relid);

		/* the walker reads R's pages (agg_join_stash.c's rule) */
		if (r->reloptkind != RELOPT_BASEREL || r->lateral_relids != NULL || IS_DUMMY_REL(r) ||
			!gpuhash_scan_absorbable(root, r) || !gpuhash_preagg_rel_ok(root, r))
			continue;
		ss.r = r;
		ss.inner_relids = bms_del_member(bms_copy(input_rel->relids), relid);
		ss.tried = 0;
		search(&ss, r, ss.inner_relids, 0);
	}
}
