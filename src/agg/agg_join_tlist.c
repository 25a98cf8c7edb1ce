/*-------------------------------------------------------------------------
 *
 * agg_join_tlist.c
 *	  Where a column of the inner side lies in an inner plan's output
 *	  (agg_join_compile.c's inner columns, and agg_star.c's dimensions'):
 *	  read from the output map the plan carries (agg_plan.c), never from the
 *	  inner plan as setrefs left it, which may have lost the level (a
 *	  trivial subquery scan, a one-child Append) whose columns the node
 *	  names.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"
#include "agg_plan.h"

/* Var v of the inner side: its position in dimension d's plan output, or 0. */
int
gpuhash_agg_join_tlpos(const GpuAggJoin *j, int d, const Var *v)
{
	return gpuhash_preagg_inner_pos(j->cscan, d, v);
}
