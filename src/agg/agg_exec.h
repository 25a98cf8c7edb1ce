/*-------------------------------------------------------------------------
 *
 * agg_exec.h
 *	  The executor of the GPU aggregate (GpuPreAgg, issue 55): a heap scan's
 *	  pages go to the page walker and the aggregation core
 *	  (cuda/gpuhash_agg.h), which fold the rows that pass the scan's quals
 *	  into partial states per group; the node hands PostgreSQL one row per
 *	  group (and spilled set, and participant), and one row per tuple of a
 *	  page the walker refused.  agg_exec.c is the node, agg_fold.c the
 *	  requests and the group set, service_agg.c the GPU service's side.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_AGG_EXEC_H
#define GPUHASH_AGG_EXEC_H

#include "gpuhash.h"
#include "scan/page_scan.h"
#include "gpuhash_agg.h"
#include "agg_catalog.h"

#include "nodes/extensible.h"

/* One request of pages: its pins, copies and answer. */
typedef struct GpuAggReq
{
	GpuPageReq	r;				/* pages, refs, visibility, refused[] */
	Buffer	   *pins;			/* one per page (r.n_pages) */
	int			n_pins;
	bool		in_flight;		/* r.ticket holds a service slot */
	bool		answered;		/* folded; its refused pages to read */
	int			next_page;		/* refused pages: the next to read */
	int			next_item;		/* ... and its next tuple */
} GpuAggReq;

#define GPUAGG_PIPELINE 2

typedef enum GpuAggPhase
{
	GA_SCAN = 0,				/* pages to fold */
	GA_FINAL,					/* the last set's groups to hand out */
	GA_DONE
} GpuAggPhase;

typedef struct GpuPreAggState
{
	CustomScanState css;
	MemoryContext cxt;			/* the node's: requests, program */
	int			nkeys;			/* group columns */
	int			naggs;			/* aggregates handed out */
	AttrNumber *key_attno;		/* 0: a column of the join's inner side */
	Var		  **key_inner;		/* ... that one */
	Oid		   *key_type;
	int32	   *key_typmod;
	uint8	   *key_conv;
	int		   *key_width;		/* bits in the packed key (agg_keys.c) */
	int		   *key_shift;		/* bits below the column in the packed key */
	GpuAggSupport *aggs;
	int		   *agg_pos;		/* aggregate a: its column in the scan tuple */
	List	   *agg_names;		/* EXPLAIN: the aggregates, deparsed later */
	GpuHeapScan *os;
	GpuPagePath pp;				/* scan program, counters */
	gh_agg_prog *aprog;
	const char *why_cpu;		/* non-NULL: every page read by the CPU */
	gh_device	device;
	int			gpu_ordinal;	/* in-process GPU fold; GH_AGG_HOST: host twin */
	bool		use_service;
	uint64		max_groups;
	/* requests: GPUAGG_PIPELINE in turn */
	GpuAggReq	req[GPUAGG_PIPELINE];
	uint32		cap_pages;		/* pages a request takes, copied */
	uint32		cap_pages_in_place; /* and read in place */
	int			next_fill;		/* the request filled next */
	int			next_answer;	/* the request answered next */
	GpuAggReq  *reading;		/* answered, its refused pages being read */
	/* groups */
	gh_agg_groups groups;		/* the set being folded */
	List	   *levels;			/* gh_agg_groups * answers not yet in groups,
								 * each under half the size of the one below
								 * it (agg_fold.c: merge_answer) */
	List	   *pending;		/* gh_agg_groups * to hand out (spilled sets,
								 * then the last), the first from out_pos */
	uint64		out_pos;
	bool		emitted_any;	/* a row went out (plain aggregate: once) */
	GpuAggPhase phase;
	bool		started;
	/* CPU rows of refused pages */
	Datum	   *vals;
	bool	   *nulls;
	/* EXPLAIN ANALYZE */
	uint64		rows_folded;
	uint64		groups_out;
	uint64		rows_out_cpu;
	uint64		spills;
	uint64		in_service;
	double		gpu_ms;
	/* the aggregate over a join (agg_join.h); NULL: none */
	struct GpuAggJoin *join;
	/* resident groups (agg_resident.h); NULL: none */
	struct GpuAggResident *res;
	/* groups with one owner each: the rows folded beside the set (agg_exchange.h) */
	struct GpuAggExchange *exch;
} GpuPreAggState;

/* agg_exec.c */
extern Node *gpuhash_preagg_create_state(CustomScan *cscan);

/* agg_fold.c */
extern void gpuhash_agg_setup(GpuPreAggState *as, CustomScan *cscan, EState *estate,
							  int eflags);
extern bool gpuhash_agg_advance(GpuPreAggState *as);
extern void gpuhash_agg_release_req(GpuPreAggState *as, GpuAggReq *q);
extern void gpuhash_agg_reset(GpuPreAggState *as);
extern void gpuhash_agg_restart_walk(GpuPreAggState *as);
extern void gpuhash_agg_spill(GpuPreAggState *as);
extern void gpuhash_agg_flush(GpuPreAggState *as);

/* service_agg.c */
extern uint32 gpuhash_service_agg_capacity(int naggs, int key_words, bool in_place);
extern bool gpuhash_svc_agg_submit(const gh_page_scan *scan, const gh_agg_prog *agg,
								   const GpuPageReq *req, gh_device device, uint64 max_groups,
								   GhProbeTicket *tk, uint64 dim_id);
extern gh_status gpuhash_svc_agg_wait(GhProbeTicket *tk, GpuPageReq *req,
									  const gh_agg_prog *agg, gh_agg_groups *answer,
									  gh_agg_stats *stats, int *folded);

#endif							/* GPUHASH_AGG_EXEC_H */
