/*-------------------------------------------------------------------------
 *
 * agg_resident.h
 *	  Resident groups of a GpuPreAgg (issue 55): its groups stay in the GPU
 *	  service, one set per node and query execution shared by every
 *	  participant of a parallel plan, and only the set's survivors of the
 *	  HAVING conjuncts the GPU evaluates exactly come back, once, at the
 *	  end of the scan.  agg_having.c is the planner's side, agg_resident.c
 *	  the executor's, service_groups*.c the service's.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_AGG_RESIDENT_H
#define GPUHASH_AGG_RESIDENT_H

#include "postgres.h"

#include "gpuhash_agg_set.h"

#include "access/parallel.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

struct GpuPreAggState;
struct GpuAggReq;

/*
 * A GpuPreAgg plan whose groups stay resident (CustomScan.flags, beside
 * PostgreSQL's CUSTOMPATH_* bits): the planner's choice (agg_costs.c),
 * which the executor follows.
 */
#define GPUHASH_PREAGG_RESIDENT 0x00010000

/*
 * A parallel GpuPreAgg of resident groups under a Finalize Aggregate per
 * participant, below the Gather (agg_paths.c): each group must reach one
 * participant only.  The set's groups do; the rows folded beside it go
 * through the exchange (agg_exchange.c) to one participant, which then
 * reads the whole set too.
 */
#define GPUHASH_PREAGG_OWNED 0x00020000

/* gpuhash.resident_groups */
typedef enum GpuhashResidentMode
{
	GPUHASH_RESIDENT_OFF,
	GPUHASH_RESIDENT_AUTO,		/* where the cost says they are cheaper */
	GPUHASH_RESIDENT_ON			/* wherever a GROUP BY allows them */
} GpuhashResidentMode;

/* settings (agg_having.c) */
extern int	gpuhash_resident_groups;
extern int	gpuhash_resident_groups_memory;
extern bool gpuhash_owned_groups;	/* agg_resident.c */

/* agg_having.c: the planner */
extern bool gpuhash_preagg_resident_planned(PlannerInfo *root);
extern void gpuhash_preagg_plan_having(PlannerInfo *root, CustomScan *cscan,
									   PathTarget *target);
extern List *gpuhash_preagg_having_of(const CustomScan *cscan, char **text);
extern void gpuhash_preagg_resident_cost(PlannerInfo *root, CustomPath *cp,
										 RelOptInfo *baserel, Path *partial_scan,
										 PathTarget *target, double groups,
										 double part_groups);

/* agg_costs.c */
extern void gpuhash_cost_preagg_resident(PlannerInfo *root, CustomPath *cpath,
										 RelOptInfo *baserel, Path *partial_scan,
										 double groups, double survivors);

/* agg_resident.c: the executor */
extern void gpuhash_agg_resident_gucs(void);
extern void gpuhash_agg_resident_init(struct GpuPreAggState *as, CustomScan *cscan);
extern uint64 gpuhash_agg_resident_start(struct GpuPreAggState *as);
extern void gpuhash_agg_resident_answered(struct GpuPreAggState *as, struct GpuAggReq *q,
										  int folded, uint64 answered_groups);
extern void gpuhash_agg_resident_end(struct GpuPreAggState *as);
extern bool gpuhash_agg_resident_next(struct GpuPreAggState *as);
extern bool gpuhash_agg_resident_diverts(struct GpuPreAggState *as);
extern TupleTableSlot *gpuhash_agg_resident_exchanged(struct GpuPreAggState *as);
extern void gpuhash_agg_resident_rescan(struct GpuPreAggState *as);
extern void gpuhash_agg_resident_shutdown(struct GpuPreAggState *as);
extern void gpuhash_agg_resident_explain(struct GpuPreAggState *as, ExplainState *es);
extern Size gpuhash_agg_resident_estimate(struct GpuPreAggState *as);
extern void gpuhash_agg_resident_init_dsm(struct GpuPreAggState *as, void *space);
extern void gpuhash_agg_resident_reinit_dsm(struct GpuPreAggState *as, void *space);
extern void gpuhash_agg_resident_attach(struct GpuPreAggState *as, void *space);

#endif							/* GPUHASH_AGG_RESIDENT_H */
