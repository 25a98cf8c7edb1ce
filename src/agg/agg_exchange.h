/*-------------------------------------------------------------------------
 *
 * agg_exchange.h
 *	  The rows a GpuPreAgg whose groups have one owner each folded beside
 *	  its resident set, gathered to the one participant that reads them
 *	  (agg_exchange.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_AGG_EXCHANGE_H
#define GPUHASH_AGG_EXCHANGE_H

#include "postgres.h"

#include "access/parallel.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"

typedef struct GpuAggExchange GpuAggExchange;

extern GpuAggExchange *gpuhash_agg_exchange_create(void);
extern Size gpuhash_agg_exchange_estimate(int participants);
extern void gpuhash_agg_exchange_init_dsm(GpuAggExchange *x, ParallelContext *pcxt, void *space);
extern void gpuhash_agg_exchange_reinit_dsm(GpuAggExchange *x, void *space);
extern void gpuhash_agg_exchange_attach(GpuAggExchange *x, void *space);
extern void gpuhash_agg_exchange_put(GpuAggExchange *x, TupleTableSlot *slot);
extern void gpuhash_agg_exchange_end_write(GpuAggExchange *x);
extern TupleTableSlot *gpuhash_agg_exchange_next(GpuAggExchange *x, PlanState *ps);
extern uint64 gpuhash_agg_exchange_written(GpuAggExchange *x);

#endif							/* GPUHASH_AGG_EXCHANGE_H */
