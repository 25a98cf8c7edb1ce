/*-------------------------------------------------------------------------
 *
 * agg_join_pages.h
 *	  The dimension made from the inner relation's heap pages
 *	  (agg_join_pages.c: the walk; agg_join_pages_rows.c: the inner rows the
 *	  CPU reads from the same table where the inner plan is not run for
 *	  them).  Internal to src/agg/.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_AGG_JOIN_PAGES_H
#define GPUHASH_AGG_JOIN_PAGES_H

#include "agg_join.h"
#include "scan/page_scan.h"

#include "lib/stringinfo.h"

/*
 * Requests of the walk at once: one walked in the service while the next
 * one's pages are read (each holds its pages' pins until its answer and its
 * refused pages are taken).
 */
#define GPUAGG_DIM_PIPELINE 2

typedef struct GpuAggDimReq
{
	GpuPageReq	r;				/* r.in_flight: submitted, r.ticket follows it */
	Buffer	   *pins;
	int			n_pins;
} GpuAggDimReq;

typedef struct GpuAggJoinPages
{
	SeqScan    *plan;			/* the inner plan */
	GpuHeapScan *os;			/* its relation's pages (shared: blocks from
								 * the node's DSM) */
	GpuPagePath pp;				/* the walker's program (pp.prog), counters */
	int16		cols[GH_AGG_MAX_INNER]; /* dimension column j: its scan column */
	GpuAggInnerCol *heap_cols;	/* the columns, read from a heap tuple (tlpos:
								 * attribute number) */
	AttrNumber	key_attno[GH_PAGE_MAX_KEYS];
	GpuAggDimReq req[GPUAGG_DIM_PIPELINE];
	int			copied_cap_pages;	/* pages a request takes, copied */
	int			cap_pages_in_place; /* and read in place, with at most */
	uint32		cap_rows_in_place;	/* this many tuples listed (0: none) */
	uint64		heap_in_place;	/* and this many bytes of values */
	double		heap_per_tuple; /* the most a listed tuple's values took */
	/* one request's rows */
	uint64	   *rkeys;
	gh_agg_inval *rvals;
	uint8	   *rheap;
	/* the dimension's rows so far (in the join's rows_cxt) */
	uint64	   *keys;
	gh_agg_inval *vals;
	StringInfoData heap;
	uint64		n;
	uint64		cap;
	/* EXPLAIN ANALYZE */
	uint64		pages;
	uint64		refused;
	uint64		cpu_rows;
	uint64		requests;
	uint64		in_service;
	double		walk_ms;

	/*
	 * Where the inner plan is not run for the CPU's rows (a shared
	 * dimension's plan is partial; an outer join needs its rows in the
	 * walk's order): the table read whole, serially, in block order, each
	 * passing tuple made into the inner plan's output by proj.
	 */
	GpuHeapScan *cpu_os;
	ProjectionInfo *proj;
	TupleTableSlot *proj_slot;
	/* an outer join: every page of a request with a refused one by the CPU */
	bool		block_order;
	bool		used;			/* this run's dimension is from pages */
	bool		shared;			/* ... walked by all participants */
	bool		may_give_up;	/* past work_mem, the plan's rows in batches */
	bool		given_up;		/* ... as this run's were */
	uint64		dim_rows;		/* the dimension's rows, all participants' */
	uint64		all_pages;		/* shared: pages every participant walked */
	uint32		walkers;		/* ... participants that walked some */
} GpuAggJoinPages;

/* agg_join_pages_rows.c */
extern void gpuhash_agg_join_pages_rows_plan(GpuPreAggState *as);
extern bool gpuhash_agg_join_pages_rows(GpuPreAggState *as);
extern void gpuhash_agg_join_pages_order(GpuPreAggState *as, uint64 *keys, uint64 n,
										 gh_agg_inval *vals, int ncols);

#endif							/* GPUHASH_AGG_JOIN_PAGES_H */
