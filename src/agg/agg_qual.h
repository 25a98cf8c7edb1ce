/*-------------------------------------------------------------------------
 *
 * agg_qual.h
 *	  The planner's question to the GPU aggregate's compiler: do these
 *	  clauses (a join's further clauses, an aggregate's CASE condition),
 *	  over the scanned relation's columns and an inner side's, compile into
 *	  the aggregation program as gpu_qual.c compiles a scan's quals?  What
 *	  the executor cannot compile at run time goes the CPU's way: slower,
 *	  never wrong.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_AGG_QUAL_H
#define GPUHASH_AGG_QUAL_H

#include "postgres.h"

#include "nodes/bitmapset.h"
#include "nodes/pg_list.h"

/* agg_join_compile.c */
extern bool gpuhash_agg_qual_compiles(List *clauses, Index scanrelid, Relids inner_relids);

#endif							/* GPUHASH_AGG_QUAL_H */
