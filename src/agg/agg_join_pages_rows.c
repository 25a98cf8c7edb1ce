/*-------------------------------------------------------------------------
 *
 * agg_join_pages_rows.c
 *	  The inner rows the CPU needs where the dimension came from pages and
 *	  the inner plan cannot give them: a shared dimension's plan is a
 *	  partial scan (each participant would get a share, and the CPU's join
 *	  of a refused outer page needs them all), and an outer join preserving
 *	  the inner side needs them in the order the walk made the dimension's
 *	  (its matched flags are by position; a Seq Scan may start mid-table, a
 *	  synchronized scan).  The CPU then reads the table itself, serially, in
 *	  block order, with the query's snapshot (in a parallel query the shared
 *	  one): heapgetpage's visible tuples, the scan's quals, each tuple that
 *	  passes made into the inner plan's output by the plan's own target
 *	  list, its key packed as the tuple path packs it.  A NULL key joins
 *	  nothing; an outer join keeps the row, to be null-extended.
 *
 * Positions of an outer join: the walk gives its rows in block order and
 * line pointer order (agg_join_pages.c has the CPU read a whole request
 * where one of its pages was refused), this read the same rows in the same
 * order (a tuple's visibility under one MVCC snapshot never changes, nor
 * does its line pointer); both are sorted by (key, position), so the
 * dimension's row i is rows[i], and the CPU join's lazy sort finds them
 * sorted already.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join_pages.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/* A row's key and its position in the read, sorted by both. */
typedef struct KeyPos
{
	uint64		key;
	uint64		pos;
} KeyPos;

static int
keypos_cmp(const void *a, const void *b)
{
	const KeyPos *x = a;
	const KeyPos *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos ? 1 : 0;
}

/* keys' order by (key, position): the KeyPos array, palloc'd. */
static KeyPos *
order_of(const uint64 *keys, const GpuAggInnerRow *rows, uint64 n)
{
	KeyPos	   *kp = palloc_extended(sizeof(KeyPos) * Max(n, 1), MCXT_ALLOC_HUGE);

	for (uint64 i = 0; i < n; i++)
	{
		kp[i].key = keys != NULL ? keys[i] : rows[i].key;
		kp[i].pos = i;
	}
	if (n > 1)
		qsort(kp, n, sizeof(KeyPos), keypos_cmp);
	return kp;
}

/*
 * The walk's rows (keys, vals of ncols each; by-reference data stays where
 * it is) put in (key, position) order before the dimension is built of them.
 */
void
gpuhash_agg_join_pages_order(GpuPreAggState *as, uint64 *keys, uint64 n, gh_agg_inval *vals,
							 int ncols)
{
	KeyPos	   *kp;
	gh_agg_inval *v;

	if (n < 2)
		return;
	kp = order_of(keys, NULL, n);
	v = palloc_extended(sizeof(gh_agg_inval) * n * ncols, MCXT_ALLOC_HUGE);
	for (uint64 i = 0; i < n; i++)
	{
		keys[i] = kp[i].key;
		memcpy(&v[i * ncols], &vals[kp[i].pos * ncols], sizeof(gh_agg_inval) * ncols);
	}
	memcpy(vals, v, sizeof(gh_agg_inval) * n * ncols);
	pfree(v);
	pfree(kp);
}

/*
 * At Begin, where the CPU may have to read the rows itself: the serial
 * scan and the projection into the inner plan's output.  The projection is
 * compiled over a heap tuple slot, lent to the node meanwhile, as
 * agg_join_compile.c compiles the CPU's join.
 */
void
gpuhash_agg_join_pages_rows_plan(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinPages *jp = j->pages;
	PlanState  *ps = &as->css.ss.ps;
	EState	   *estate = ps->state;
	const TupleTableSlotOps *ops = ps->scanops;
	TupleDesc	scandesc = ps->scandesc;
	bool		fixed = ps->scanopsfixed,
				set = ps->scanopsset;

	if (!j->shared_plan && !j->preserve_inner)
		return;
	jp->cpu_os = gpuhash_heap_scan_open(ps, jp->plan->scan.scanrelid, jp->plan->scan.plan.qual,
										NIL, false, estate, 0);
	jp->proj_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(j->inner_ps),
										   &TTSOpsVirtual);
	ps->scanops = &TTSOpsHeapTuple;
	ps->scandesc = jp->cpu_os->desc;
	ps->scanopsfixed = ps->scanopsset = true;
	jp->proj = ExecBuildProjectionInfo(jp->plan->scan.plan.targetlist, ps->ps_ExprContext,
									   jp->proj_slot, ps, jp->cpu_os->desc);
	ps->scanops = ops;
	ps->scandesc = scandesc;
	ps->scanopsfixed = fixed;
	ps->scanopsset = set;
}

/* The packed key of the heap tuple in slot, as agg_join_pages.c's cpu_page; false: NULL. */
static bool
heap_key(GpuAggJoin *j, GpuAggJoinPages *jp, TupleTableSlot *slot, uint64 *key)
{
	uint64		k = 0;

	for (int i = 0; i < j->njoinkeys; i++)
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, jp->key_attno[i], &isnull);

		if (isnull)
			return false;
		k = gpuhash_pack(k, gpuhash_encode_datum(d, j->inner_conv[i]), j->width[i],
						 j->njoinkeys);
	}
	*key = k;
	return true;
}

/*
 * The inner rows read by the CPU (the file's comment) into j->rows, the
 * NULL-key ones kept apart for an outer join; false where the inner plan
 * gives them (gpuhash_agg_join_load_rows runs it).
 */
bool
gpuhash_agg_join_pages_rows(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinPages *jp = j->pages;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;
	Size		limit = get_hash_memory_limit();
	instr_time	t0;

	if (jp == NULL || jp->cpu_os == NULL || !jp->used)
		return false;
	INSTR_TIME_SET_CURRENT(t0);
	gpuhash_heap_scan_rescan(jp->cpu_os);
	for (;;)
	{
		HeapTuple	t;
		TupleTableSlot *hs = jp->cpu_os->slot;
		TupleTableSlot *out;
		uint64		key = 0;
		bool		has_key;

		if (gpuhash_heap_scan_next(jp->cpu_os, econtext, &t) != OS_TUPLE)
			break;
		ExecStoreHeapTuple(t, hs, false);
		econtext->ecxt_scantuple = hs;
		has_key = heap_key(j, jp, hs, &key);
		out = ExecProject(jp->proj);
		if (has_key)
			gpuhash_agg_join_keep_row(j, key, out, limit);
		else
			gpuhash_agg_outer_keep_null(j, out);
		ExecClearTuple(hs);
		ResetExprContext(econtext);
		CHECK_FOR_INTERRUPTS();
	}
	j->rows_loaded = true;
	j->rows_sorted = false;
	if (jp->block_order)
	{
		KeyPos	   *kp = order_of(NULL, j->rows, j->nrows);
		GpuAggInnerRow *sorted;

		/* the dimension's rows, one for one (the file's comment) */
		if (j->nrows != jp->dim_rows && (j->dim != NULL || j->dim_id != 0))
			elog(ERROR, "gpuhash: the inner table read again gives " UINT64_FORMAT
				 " rows, its dimension " UINT64_FORMAT, j->nrows, jp->dim_rows);
		sorted = MemoryContextAllocHuge(j->rows_cxt, sizeof(GpuAggInnerRow) * Max(j->nrows, 1));
		for (uint64 i = 0; i < j->nrows; i++)
			sorted[i] = j->rows[kp[i].pos];
		pfree(kp);
		if (j->rows != NULL)
			pfree(j->rows);
		j->rows = sorted;
		j->cap = j->nrows;
		j->rows_sorted = true;
	}
	j->collect_ms += gpuhash_ms_since(t0);
	return true;
}
