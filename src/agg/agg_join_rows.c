/*-------------------------------------------------------------------------
 *
 * agg_join_rows.c
 *	  The inner rows of the aggregate over a join as the CPU keeps them
 *	  (GpuAggJoin.rows: packed key and minimal tuple), for the join, its
 *	  dimension from pages and its star: kept within work_mem x
 *	  hash_mem_multiplier, sorted by key at the CPU join's first need, and
 *	  searched.  Calls nothing of the other agg_join files.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"

#include "executor/tuptable.h"
#include "utils/memutils.h"

/* The inner side's rows outgrew work_mem x hash_mem_multiplier (limit bytes). */
void
gpuhash_agg_join_too_big(Size limit)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("gpuhash: the inner side of a GPU aggregate's join needs more than work_mem x hash_mem_multiplier (%zu kB)",
					limit / 1024),
			 errhint("Raise work_mem or hash_mem_multiplier, or SET gpuhash.gpu_aggregate = off.")));
}

/*
 * One inner row kept for the dimension: its key and its tuple in the inner
 * plan's form, within work_mem x hash_mem_multiplier (limit bytes).
 */
void
gpuhash_agg_join_keep_row(GpuAggJoin *j, uint64 key, TupleTableSlot *slot, Size limit)
{
	MemoryContext old = MemoryContextSwitchTo(j->rows_cxt);
	MinimalTuple tup = ExecCopySlotMinimalTuple(slot);

	MemoryContextSwitchTo(old);
	gpuhash_agg_join_keep_tuple(j, key, tup, limit);
}

/* The same with the row's tuple made already, in rows_cxt. */
void
gpuhash_agg_join_keep_tuple(GpuAggJoin *j, uint64 key, MinimalTuple tup, Size limit)
{
	if (j->nrows == j->cap)
	{
		MemoryContext old = MemoryContextSwitchTo(j->rows_cxt);

		j->cap = Max(j->cap * 2, 1024);
		j->rows = j->rows == NULL ?
			palloc_extended(sizeof(GpuAggInnerRow) * j->cap, MCXT_ALLOC_HUGE) :
			repalloc_huge(j->rows, sizeof(GpuAggInnerRow) * j->cap);
		MemoryContextSwitchTo(old);
	}
	j->rows[j->nrows].key = key;
	j->rows[j->nrows].tup = tup;
	j->bytes += tup->t_len + sizeof(GpuAggInnerRow);
	j->nrows++;
	if (j->bytes > limit)
		gpuhash_agg_join_too_big(limit);
}

static int
row_cmp(const void *a, const void *b)
{
	uint64		x = ((const GpuAggInnerRow *) a)->key;
	uint64		y = ((const GpuAggInnerRow *) b)->key;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* The collected rows in key order, for the CPU's binary search. */
void
gpuhash_agg_join_sort(GpuAggJoin *j)
{
	if (j->nrows > 1 && !j->rows_sorted)
		qsort(j->rows, j->nrows, sizeof(GpuAggInnerRow), row_cmp);
	j->rows_sorted = true;
}

/* The first row of j's sorted rows with key >= key. */
uint64
gpuhash_agg_join_lower_bound(GpuAggJoin *j, uint64 key)
{
	uint64		lo = 0,
				hi = j->nrows;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;

		if (j->rows[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

