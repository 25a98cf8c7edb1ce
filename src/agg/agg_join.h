/*-------------------------------------------------------------------------
 *
 * agg_join.h
 *	  GpuPreAgg over an inner join (agg_plan.h's joined plan): the inner
 *	  plan's rows become a dimension (cuda/gpuhash_agg.h) that the page
 *	  walker joins every passing outer row to; refused pages, and plans the
 *	  GPU cannot take, are joined on the CPU against the same rows.
 *	  agg_join_compile.c compiles the join's programs, agg_join.c collects
 *	  the inner rows, builds the dimension and joins on the CPU.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_AGG_JOIN_H
#define GPUHASH_AGG_JOIN_H

#include "agg_exec.h"
#include "agg_plan.h"

#include "access/parallel.h"
#include "utils/dsa.h"

/* agg_plan.h's slot of the join key count (the planner's side defines it too) */
#ifndef GPUHASH_PREAGG_PRIV_NJOINKEYS
#define GPUHASH_PREAGG_PRIV_NJOINKEYS 1
#endif

/* A column of the inner side the node reads. */
typedef struct GpuAggInnerCol
{
	Index		varno;			/* the Var of the inner side */
	AttrNumber	varattno;
	Oid			type;
	int			tlpos;			/* its 1-based position in the inner plan's
								 * output */
	gh_col_type gtype;			/* the walker's type; GH_T_SKIP: none */
	int16		typlen;
	bool		byval;
} GpuAggInnerCol;

/* One collected inner row: its packed key and its tuple. */
typedef struct GpuAggInnerRow
{
	uint64		key;
	MinimalTuple tup;
} GpuAggInnerRow;

typedef struct GpuAggJoin
{
	const CustomScan *cscan;	/* the plan (its inner output map) */
	int			njoinkeys;
	List	   *outer_keys;		/* over the scanned relation's Vars */
	List	   *inner_keys;		/* over the inner side's Vars */
	List	   *join_quals;		/* further clauses, over both */
	GpuKeyConv *outer_conv;
	GpuKeyConv *inner_conv;
	int		   *width;
	int			ncols;			/* columns of the inner side read */
	GpuAggInnerCol *cols;
	PlanState  *inner_ps;
	TupleTableSlot *row_slot;	/* a collected row, for the CPU's join */

	/*
	 * CPU forms: inner Vars as INNER_VAR of the inner plan's output, the
	 * scanned relation's as the scan tuple (the heap tuple's slot)
	 */
	ExprState **inner_key_states;
	ExprState **outer_key_states;
	ExprState  *join_qual;
	ExprState **group_states;	/* one per group column */
	ExprState **arg_states;		/* one per aggregate (count(*): NULL) */

	/* the collected rows, sorted by key */
	MemoryContext rows_cxt;
	bool		collected;
	bool		rows_sorted;	/* sorted at the CPU join's first need: the
								 * dimension's build takes them in any order */
	bool		pass_out;		/* carried columns over batches: this pass's
								 * groups handed up (agg_exec.c) */
	GpuAggInnerRow *rows;
	uint64		nrows;
	uint64		cap;
	Size		bytes;

	/* the dimension: in the service (dim_id), or in this backend (dim) */
	uint64		dim_id;
	gh_agg_dim *dim;
	bool		dim_shared;		/* dim_id is the leader's to free, not ours */

	/*
	 * The plan's shared dimension (agg_join_par.c): shared, the DSM's
	 * coordination where the node runs in a parallel query (NULL: alone,
	 * as a plan per participant); rows point into dsa's chunks once
	 * rows_loaded.
	 */
	bool		shared_plan;
	struct GpuAggJoinShared *shared;
	dsa_area   *dsa;
	bool		rows_loaded;

	/* the CPU's join of one outer tuple */
	HeapTupleData cur;
	bool		have_cur;
	uint64		next_match;		/* rows[next_match ..] */
	uint64		end_match;

	/*
	 * An outer join preserving I (agg_join_outer.c): the NULL-key inner
	 * rows, the pairs the CPU folded (by row), after the walk all matched
	 * rows and R's all-NULL tuple, and the next row to null-extend (rows,
	 * then null_rows); all in rows_cxt
	 */
	bool		preserve_inner;
	MinimalTuple *null_rows;
	uint64		n_null_rows;
	uint64		cap_null_rows;
	uint8	   *cpu_matched;
	uint8	   *matched;
	HeapTuple	null_tuple;
	uint64		outer_pos;
	bool		outer_started;
	/* in parallel (agg_join_outer.c): the DSM's part, its walk barrier */
	struct GpuAggOuterShared *outer_sh;
	bool		outer_attached;
	int			outer_folds;	/* -1: not decided; 0: another folds; 1: this one */
	uint64		unmatched;		/* EXPLAIN ANALYZE */

	/* EXPLAIN ANALYZE */
	uint64		inner_rows;
	Size		dim_bytes;
	double		build_ms;
	const char *dim_where;
	/* the build's parts, by mechanism (agg_costs.c's terms) */
	double		collect_ms;		/* the inner plan run, keys, rows copied */
	double		values_ms;		/* the dimension's values made of the rows */
	double		ship_ms;		/* keys, values, heap sent to the service */
	double		service_ms;		/* the service's build of the dimension */
	uint64		ship_bytes;		/* their bytes */

	/*
	 * Aggregates' conditions over the inner side alone, evaluated once per
	 * inner row on the CPU into a bool column of the dimension
	 * (agg_join_conds.c) rather than shipping the columns they read.
	 */
	int			nconds;
	struct GpuAggInnerCond *conds;

	/*
	 * The dimension made from the inner relation's pages by the walker
	 * (agg_join_pages.c; NULL: from the inner plan's rows)
	 */
	struct GpuAggJoinPages *pages;

	/*
	 * The inner rows in batches, where they outgrew work_mem x
	 * hash_mem_multiplier at run time (agg_join_batches.c; NULL: one)
	 */
	struct GpuAggJoinBatches *batches;
	int			batched_dim;	/* a star: the dimension in batches, or -1 */
	bool		shared_batched; /* a shared dimension's rows outgrew the limit:
								 * each participant batches them all
								 * (agg_join_par.c) */
	int			inner_batches;	/* EXPLAIN ANALYZE: how many; 0: none */

	/*
	 * A star (agg_star.c): the first dimension's GpuAggJoin holds dims[0 ..
	 * ndims), itself first, and the clauses run per combination
	 * (join_quals), the CPU forms and the star's built dimension (dim: the
	 * parts side by side, gh_agg_dim_star).  Each dimension: its first
	 * column in the walker's inner numbering (col0) and in combo_slot, the
	 * CPU's combination of one row of each (tl_off), its own built part,
	 * its keys' place in custom_exprs and its CPU cursor.  ndims 0: one
	 * dimension, as above.
	 */
	int			ndims;
	struct GpuAggJoin **dims;
	int			col0;
	int			tl_off;
	int			expr_pos;
	gh_agg_dim *part;
	TupleTableSlot *combo_slot;
	uint64		star_pos;
	bool		star_started;
	bool		star_empty;

	/*
	 * The carried columns (agg_join_carry.c): inner columns handed up
	 * ungrouped; NULL: none
	 */
	struct GpuAggCarry *carry;
} GpuAggJoin;

/* agg_join_compile.c */
extern GpuAggJoin *gpuhash_agg_join_init(GpuPreAggState *as, CustomScan *cscan,
										 EState *estate, int eflags);
extern int	gpuhash_agg_join_col(GpuAggJoin *j, const Var *v);
extern void gpuhash_agg_join_compile(GpuPreAggState *as, gh_agg_prog *ap);
extern void gpuhash_agg_join_cpu_init(GpuPreAggState *as, CustomScan *cscan);
typedef ExprState *(*GpuAggFormExpr) (GpuPreAggState *as, Node *e, void *arg);
extern void gpuhash_agg_join_tlist_states(GpuPreAggState *as, CustomScan *cscan,
										  GpuAggFormExpr form, void *arg);

/* agg_join_carry.c */
struct GpuAggCarry;
extern struct GpuAggCarry *gpuhash_agg_carry_init(GpuPreAggState *as, CustomScan *cscan,
												  EState *estate, TupleDesc inner_desc);
extern void gpuhash_agg_carry_group(GpuPreAggState *as, TupleTableSlot *slot);
extern void gpuhash_agg_carry_pair(struct GpuAggCarry *c, TupleTableSlot *row,
								   TupleTableSlot *slot);
extern void gpuhash_agg_carry_release(struct GpuAggCarry *c);
extern void gpuhash_agg_carry_explain(struct GpuAggCarry *c, ExplainState *es);

/* agg_join_batches.c */
extern bool gpuhash_agg_join_can_batch(GpuPreAggState *as);
extern bool gpuhash_agg_join_rows_can_batch(GpuPreAggState *as);
extern void gpuhash_agg_join_write_row(struct BufFile *f, uint64 key, MinimalTuple tup);
extern bool gpuhash_agg_join_read_row(struct BufFile *f, MemoryContext cxt, uint64 *key,
									  MinimalTuple *tup);
extern void gpuhash_agg_join_batch_tuple(GpuAggJoin *j, uint64 key, MinimalTuple tup,
										 Size limit);
extern void gpuhash_agg_join_batches_begin(GpuAggJoin *j, Size limit);
extern void gpuhash_agg_join_batches_fit(GpuAggJoin *j, Size limit);
extern void gpuhash_agg_join_batch_row(GpuAggJoin *j, uint64 key, TupleTableSlot *slot,
									   Size limit);
extern bool gpuhash_agg_join_more_batches(GpuAggJoin *j);
extern void gpuhash_agg_join_load_next_batch(GpuAggJoin *j, Size limit);
extern void gpuhash_agg_join_batches_release(GpuAggJoin *j);

/* agg_join_rows.c */
extern void gpuhash_agg_join_too_big(Size limit) pg_attribute_noreturn();
extern void gpuhash_agg_join_keep_tuple(GpuAggJoin *j, uint64 key, MinimalTuple tup,
									   Size limit);
extern void gpuhash_agg_join_keep_row(GpuAggJoin *j, uint64 key, TupleTableSlot *slot,
									  Size limit);
extern void gpuhash_agg_join_sort(GpuAggJoin *j);
extern uint64 gpuhash_agg_join_lower_bound(GpuAggJoin *j, uint64 key);

/* agg_join_dim.c */
struct GhDimPart;
extern bool gpuhash_agg_join_build_parts(GpuPreAggState *as, int owner_pid,
										 const struct GhDimPart *parts, int nparts);
extern bool gpuhash_agg_join_build_arrays(GpuPreAggState *as, int owner_pid, bool service,
										  bool local, const uint64 *keys, uint64 n,
										  const gh_agg_inval *vals, const uint8 *heap,
										  uint64 heap_len);
extern void gpuhash_agg_join_dim_value(const GpuAggInnerCol *c, TupleTableSlot *slot,
									   gh_agg_inval *out, StringInfo heap);

/*
 * Could the node's inner rows go to batches (agg_join_batches.c), wherever
 * they come from?  An inner join (an outer join's unmatched rows are per
 * batch: not built).  With carried columns each pass's groups go up while
 * its batch is in memory (agg_join_carry.c).  A dimension being made from
 * pages asks this before its walk, to give the pages up past the limit
 * (agg_join_pages.c).
 */
static inline bool
gpuhash_agg_join_batchable(GpuPreAggState *as)
{
	return !as->join->preserve_inner;
}

/*
 * Carried columns over batches: each pass's groups go up before the next
 * batch replaces the rows they take their carried columns from.
 */
static inline bool
gpuhash_agg_join_carry_batched(GpuPreAggState *as)
{
	return as->join != NULL && as->join->carry != NULL && as->join->batches != NULL;
}

/* agg_join_pages.c */
extern void gpuhash_agg_join_pages_plan(GpuPreAggState *as);
extern bool gpuhash_agg_join_pages_collect(GpuPreAggState *as);
extern void gpuhash_agg_join_pages_rescan(GpuPreAggState *as);
extern void gpuhash_agg_join_pages_end(GpuPreAggState *as);
extern void gpuhash_agg_join_pages_explain(GpuPreAggState *as, List *context, bool useprefix,
										   ExplainState *es);
extern bool gpuhash_agg_join_pages_active(GpuPreAggState *as);
extern void gpuhash_agg_join_pages_walk(GpuPreAggState *as);
extern bool gpuhash_agg_join_pages_given_up(const GpuAggJoin *j);
extern void gpuhash_agg_join_pages_free_rows(GpuPreAggState *as);
extern Size gpuhash_agg_join_pages_estimate(GpuPreAggState *as);
extern void gpuhash_agg_join_pages_init_dsm(GpuPreAggState *as, void *space, bool reinit);
extern void gpuhash_agg_join_pages_attach(GpuPreAggState *as, void *space);
extern void gpuhash_agg_join_pages_abandon(GpuPreAggState *as, bool release_pins);

/* agg_join_conds.c */
extern void gpuhash_agg_join_conds_plan(GpuPreAggState *as);
extern bool gpuhash_agg_join_cond_insns(GpuAggJoin *j, int a, gh_agg_prog *ap);
extern bool gpuhash_agg_join_cond_value(GpuPreAggState *as, int c, gh_agg_inval *out);
extern void gpuhash_agg_join_explain_build(GpuPreAggState *as, ExplainState *es);
extern void gpuhash_agg_join_conds_explain(GpuPreAggState *as, List *context, bool useprefix,
										   ExplainState *es);

/* agg_join.c */
extern bool gpuhash_agg_join_inner_key(GpuAggJoin *j, ExprContext *econtext, uint64 *key);
extern void gpuhash_agg_join_row_values(GpuPreAggState *as, MinimalTuple tup,
										gh_agg_inval *vals, StringInfo heap);
extern bool gpuhash_agg_join_build(GpuPreAggState *as, int owner_pid, bool service,
								   bool local);
extern void gpuhash_agg_join_load_rows(GpuPreAggState *as);
extern bool gpuhash_agg_join_next_batch(GpuPreAggState *as);
extern void gpuhash_agg_join_collect(GpuPreAggState *as);
extern void gpuhash_agg_join_release(GpuAggJoin *j);
extern void gpuhash_agg_join_free_dim(GpuAggJoin *j);
extern void gpuhash_agg_join_rescan(GpuPreAggState *as);
extern bool gpuhash_agg_join_next_pair(GpuPreAggState *as, HeapTuple t, bool fresh);
extern void gpuhash_agg_join_cpu_row(GpuPreAggState *as, TupleTableSlot *slot);
extern void gpuhash_agg_join_explain(GpuPreAggState *as, List *context, bool useprefix,
									 ExplainState *es);

/* agg_star.c: the aggregate over a star (several dimensions) */
extern GpuAggJoin *gpuhash_agg_star_init(GpuPreAggState *as, CustomScan *cscan,
										 EState *estate, int eflags);
extern int	gpuhash_agg_star_col(GpuAggJoin *j, const Var *v);
extern gh_col_type gpuhash_agg_star_col_type(GpuAggJoin *j, int c);
extern int	gpuhash_agg_star_extra(GpuAggJoin *j, AttrNumber *extra, int nextra);
extern bool gpuhash_agg_star_compile(GpuPreAggState *as, gh_agg_prog *ap);
extern void gpuhash_agg_star_cpu_init(GpuPreAggState *as, CustomScan *cscan);
extern void gpuhash_agg_star_collect(GpuPreAggState *as);
extern bool gpuhash_agg_star_next_batch(GpuPreAggState *as);
extern bool gpuhash_agg_star_key(GpuAggJoin *dj, ExprState **states, const GpuKeyConv *conv,
								 ExprContext *econtext, uint64 *key);
extern void gpuhash_agg_star_free_dims(GpuAggJoin *j);
extern void gpuhash_agg_star_rescan(GpuPreAggState *as);
extern void gpuhash_agg_star_end(GpuPreAggState *as);
extern bool gpuhash_agg_star_next_pair(GpuPreAggState *as, HeapTuple t, bool fresh);
extern void gpuhash_agg_star_explain(GpuPreAggState *as, List *context, bool useprefix,
									 ExplainState *es);

/* agg_join_outer.c */
extern bool gpuhash_agg_outer_planned(const CustomScan *cscan, GpuAggJoin *j);
extern void gpuhash_agg_outer_release(GpuAggJoin *j);
extern void gpuhash_agg_outer_keep_null(GpuAggJoin *j, TupleTableSlot *slot);
extern void gpuhash_agg_outer_mark(GpuAggJoin *j, uint64 pos);
extern bool gpuhash_agg_outer_next(GpuPreAggState *as);
extern bool gpuhash_agg_outer_folds(GpuPreAggState *as);
extern Size gpuhash_agg_outer_par_estimate(GpuPreAggState *as);
extern void gpuhash_agg_outer_par_init(GpuPreAggState *as, void *space, bool reinit);
extern void gpuhash_agg_outer_par_attach(GpuPreAggState *as, void *space);
extern void gpuhash_agg_outer_par_begin(GpuPreAggState *as);
extern void gpuhash_agg_outer_explain(GpuPreAggState *as, ExplainState *es);

/* agg_join_par.c */
extern Size gpuhash_agg_join_par_estimate(GpuPreAggState *as);
extern void gpuhash_agg_join_par_init(GpuPreAggState *as, ParallelContext *pcxt, void *space);
extern void gpuhash_agg_join_par_reinit(GpuPreAggState *as, void *space);
extern void gpuhash_agg_join_par_attach(GpuPreAggState *as, void *space);
extern void gpuhash_agg_join_par_collect(GpuPreAggState *as);
extern void gpuhash_agg_join_par_load(GpuAggJoin *j);

#endif							/* GPUHASH_AGG_JOIN_H */
