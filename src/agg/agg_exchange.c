/*-------------------------------------------------------------------------
 *
 * agg_exchange.c
 *	  The rows a GpuPreAgg folded beside its resident set, gathered to one
 *	  participant, for a plan whose groups have one owner each
 *	  (GPUHASH_PREAGG_OWNED): PostgreSQL's Finalize Aggregate runs in every
 *	  participant, below the Gather, so each group's partial rows must all
 *	  reach one participant.  The set's groups do (agg_resident.c: each is
 *	  read once); a row folded elsewhere (a refused page's tuple, a spill, a
 *	  request the set did not take) is written here instead of handed up,
 *	  and if any was, one participant alone reads the whole set and these
 *	  rows (agg_resident.c decides who, after every participant's walk).
 *
 * A SharedTuplestore in the node's DSM, over a SharedFileSet: each
 * participant writes its own file (participant 0 the leader, worker n
 * participant n + 1), ends writing before it arrives at the end of the
 * walks, and the reader scans every file.  The files go with the DSM
 * segment, or at a rescan (ReInitializeDSM).  The rows are the node's
 * output rows, projected: read back, they go up as they are.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_exec.h"
#include "agg_exchange.h"

#include "access/parallel.h"
#include "executor/executor.h"
#include "storage/dsm.h"
#include "utils/sharedtuplestore.h"

typedef struct GpuAggExchangeShared
{
	dsm_handle	seg;			/* the parallel query's segment */
	int			participants;
	SharedFileSet fileset;
	/* then the SharedTuplestore, sts_estimate(participants) bytes */
} GpuAggExchangeShared;

struct GpuAggExchange
{
	GpuAggExchangeShared *shared;
	SharedTuplestoreAccessor *acc;
	TupleTableSlot *slot;		/* rows read back, as the node's rows: virtual */
	bool		writing;
	bool		scanning;
	bool		done;			/* every file read */
	uint64		written;		/* rows this participant wrote */
};

#define STS_OF(sh) ((SharedTuplestore *) ((char *) (sh) + MAXALIGN(sizeof(GpuAggExchangeShared))))

GpuAggExchange *
gpuhash_agg_exchange_create(void)
{
	return palloc0(sizeof(GpuAggExchange));
}

Size
gpuhash_agg_exchange_estimate(int participants)
{
	return MAXALIGN(sizeof(GpuAggExchangeShared)) + sts_estimate(Max(participants, 1));
}

static void
init_store(GpuAggExchange *x)
{
	GpuAggExchangeShared *sh = x->shared;

	x->acc = sts_initialize(STS_OF(sh), sh->participants, 0, 0, 0, &sh->fileset,
							"gpuhash_preagg");
	x->writing = true;
	x->scanning = x->done = false;
}

/* The leader, at InitializeDSM: the file set and the store. */
void
gpuhash_agg_exchange_init_dsm(GpuAggExchange *x, ParallelContext *pcxt, void *space)
{
	GpuAggExchangeShared *sh = space;

	memset(sh, 0, sizeof(*sh));
	sh->seg = dsm_segment_handle(pcxt->seg);
	sh->participants = pcxt->nworkers + 1;
	SharedFileSetInit(&sh->fileset, pcxt->seg);
	x->shared = sh;
	init_store(x);
}

/* A rescan: the last scan's files go, a new store for every participant. */
void
gpuhash_agg_exchange_reinit_dsm(GpuAggExchange *x, void *space)
{
	GpuAggExchangeShared *sh = space;

	if (x->scanning)
		sts_end_parallel_scan(x->acc);
	SharedFileSetDeleteAll(&sh->fileset);
	x->shared = sh;
	init_store(x);
	x->written = 0;
}

/* A worker, at InitializeWorker. */
void
gpuhash_agg_exchange_attach(GpuAggExchange *x, void *space)
{
	GpuAggExchangeShared *sh = space;
	dsm_segment *seg = dsm_find_mapping(sh->seg);

	if (seg == NULL)
		elog(ERROR, "gpuhash: a GpuPreAgg worker found no parallel query segment");
	SharedFileSetAttach(&sh->fileset, seg);
	x->shared = sh;
	x->acc = sts_attach(STS_OF(sh), ParallelWorkerNumber + 1, &sh->fileset);
	x->writing = true;
}

/* A row folded beside the set: into this participant's file. */
void
gpuhash_agg_exchange_put(GpuAggExchange *x, TupleTableSlot *slot)
{
	bool		should_free;
	MinimalTuple mt;

	if (!x->writing)
		elog(ERROR, "gpuhash: a GpuPreAgg row folded beside its set after the walks ended");
	mt = ExecFetchSlotMinimalTuple(slot, &should_free);
	sts_puttuple(x->acc, NULL, mt);
	if (should_free)
		pfree(mt);
	x->written++;
}

/* This participant's walk is over: its file is complete. */
void
gpuhash_agg_exchange_end_write(GpuAggExchange *x)
{
	if (x->writing)
		sts_end_write(x->acc);
	x->writing = false;
}

/*
 * The next row of every participant's file (this participant reads them
 * all: every participant has ended writing), or NULL.
 */
TupleTableSlot *
gpuhash_agg_exchange_next(GpuAggExchange *x, PlanState *ps)
{
	MinimalTuple mt;

	if (x->done)
		return NULL;
	if (!x->scanning)
	{
		gpuhash_agg_exchange_end_write(x);
		if (x->slot == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(ps->state->es_query_cxt);

			x->slot = MakeSingleTupleTableSlot(ExecGetResultType(ps), &TTSOpsVirtual);
			MemoryContextSwitchTo(old);
		}
		sts_begin_parallel_scan(x->acc);
		x->scanning = true;
	}
	mt = sts_parallel_scan_next(x->acc, NULL);
	if (mt == NULL)
	{
		sts_end_parallel_scan(x->acc);
		x->scanning = false;
		x->done = true;
		return NULL;
	}

	/*
	 * Up as a virtual row, the node's rows' kind: the Finalize Aggregate's
	 * expressions read a virtual child's values without deforming.  They
	 * point into the store's read buffer, valid until the next call.
	 */
	ExecForceStoreMinimalTuple(mt, x->slot, false);
	return x->slot;
}

uint64
gpuhash_agg_exchange_written(GpuAggExchange *x)
{
	return x->written;
}
