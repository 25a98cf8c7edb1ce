/*-------------------------------------------------------------------------
 *
 * shares.c
 *	  A partial path's share of the rows, and whether a join's inner side
 *	  stays in one table: read by the join's costs (costs.c), the page
 *	  path's prices (page_price.c) and the paths themselves, below all of
 *	  them.
 *
 *-------------------------------------------------------------------------
 */
#include "planner_int.h"

#include "optimizer/optimizer.h"

/*
 * Will the join over these paths keep its inner side in one table?  A
 * serial join while it fits one hash batch, a parallel-aware one while its
 * participants share one table without splitting (parallel_split.c).  A
 * chain needs it; otherwise the batch files are charged.
 */
bool
gpuhash_one_table(Path *outer_path, Path *inner_path, bool parallel_aware, bool parallel_inner)
{
	double		rows = gpuhash_table_rows(inner_path, parallel_inner);
	int			width = inner_path->pathtarget->width;

	if (parallel_aware)
		return !gpuhash_split_expected(rows, width, gpuhash_parallel_divisor(outer_path));
	return gpuhash_initial_nbatch(rows, width) <= 1;
}

/*
 * The inner rows the table is built over: a partial inner path's rows are
 * one participant's, the table has all of them.
 */
double
gpuhash_table_rows(Path *inner_path, bool parallel_inner)
{
	return inner_path->rows * (parallel_inner ? gpuhash_parallel_divisor(inner_path) : 1.0);
}

/* Rows per participant of a partial path, as costsize.c divides them. */
double
gpuhash_parallel_divisor(Path *path)
{
	double		divisor = path->parallel_workers;

	if (parallel_leader_participation)
	{
		double		leader = 1.0 - (0.3 * path->parallel_workers);

		if (leader > 0)
			divisor += leader;
	}
	return divisor > 0 ? divisor : 1.0;
}
