/*-------------------------------------------------------------------------
 *
 * agg_resident.c
 *	  Resident groups, the executor's side: a GpuPreAgg's page requests
 *	  merge their groups into one set in the GPU service
 *	  (service_groups.c) instead of answering them; at the end of the scan
 *	  one participant reads the set back, only the groups the pushed HAVING
 *	  terms keep (agg_having.c), and hands them up as the partial-state
 *	  rows every group goes up as (agg_exec.c: the pending sets).
 *
 * One set per node and query execution.  Serial: the backend makes it at
 * the scan's first request and reads it at the end.  Parallel: the leader
 * makes it (InitializeDSM, held by the leader) and its id goes in the
 * node's DSM with a Barrier, an "incomplete" flag and a read position;
 * each participant attaches to the Barrier before it takes its first
 * block and arrives after its walk.  Phase 0 is the walks; the last
 * arrival ends it, and in phase 1 every participant still attached reads
 * the set: each takes the next staging chunk's range of the finished set
 * (an atomic position in the DSM), so the groups go up through every
 * participant's tuple queue at once, each exactly once; the last to
 * detach from phase 1 frees the set (the leader's free at the node's end
 * then finds it gone).  Workers wait at the end of phase 0
 * (BarrierArriveAndWait); the leader never waits, since a worker may be
 * blocked on its full tuple queue until the leader reads it: it arrives
 * and detaches, and reads too only when its arrival was the last.  A
 * participant that attaches in phase 1 reads as the others; in phase 2
 * (the set read and freed) it neither folds nor reads.  Every group is
 * handed up exactly once: the set's by the readers, every other row (a
 * refused page's tuples, a request's pages the set did not take) by
 * whoever folded it, as without a set.
 *
 * Why the readers see the whole set: a participant arrives only after its
 * last request was answered, and a request's groups are in the set before
 * its answer; phase 1 begins when every attached participant has arrived,
 * so every participant that folded a row has arrived before it.  One that
 * attaches later finds the Barrier's phase advanced: the blocks are all
 * taken (each earlier participant ended its walk on an exhausted scan), so
 * it folds nothing.  The set is finished (the HAVING terms applied on its
 * device) once, by the service at the first read; every read is a range
 * of that one answer.
 *
 * Groups with one owner each (GPUHASH_PREAGG_OWNED: a Finalize Aggregate
 * per participant below the Gather): no participant hands up a row before
 * the walks end; what it folds beside the set goes to the exchange
 * (agg_exchange.c), and every participant, the leader too, waits at the
 * end of phase 0 (none is blocked on its tuple queue: none has sent a
 * row).  Then, with the set complete, the readers share it as above; with
 * it incomplete (or no set at all), the first to claim it alone reads the
 * whole set and then the exchange, and the others hand up nothing.  The
 * barrier and the exchange are used even where no set could be made, so
 * that no participant ever hands up its own rows.
 *
 * Exactness: the HAVING terms are applied only when the set is complete.
 * Any row of the scan folded elsewhere (a refused page's tuples, a request
 * or a run of one the set could not take: its cap, a failure, a value the
 * core could not hold exactly) marks the set incomplete (the participant's
 * flag, the DSM's, and the service's own), and then every group comes back
 * unfiltered; PostgreSQL's Finalize Aggregate applies the whole HAVING in
 * any case.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_exec.h"
#include "agg_exchange.h"
#include "agg_join.h"
#include "agg_plan.h"
#include "agg_resident.h"
#include "service_groups.h"

#include "commands/explain.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/barrier.h"
#include "utils/guc.h"
#include "utils/memutils.h"

bool		gpuhash_owned_groups = true;

typedef struct GpuAggResidentShared
{
	uint64		set_id;			/* the leader's set; 0: none */
	pg_atomic_uint32 incomplete;
	Barrier		barrier;		/* phase 0: the walks; 1: the reads; 2: freed */
	pg_atomic_uint64 next_pos;	/* the next range of the set to read */
	pg_atomic_uint32 sole;		/* owned, set incomplete: a reader claimed it */
	pg_atomic_uint64 exchanged; /* owned: rows through the exchange */
	/* the readers' figures, for the leader's EXPLAIN ANALYZE */
	pg_atomic_uint64 resident;
	pg_atomic_uint64 returned;	/* summed over the readers */
	pg_atomic_uint64 removed;
	pg_atomic_uint32 applied;
} GpuAggResidentShared;

typedef struct GpuAggResident
{
	bool		usable;			/* this participant can fold into a set */
	gh_agg_having having;		/* the pushed terms (nterms 0: none) */
	char	   *having_text;
	GpuAggResidentShared *shared;	/* parallel: the DSM's; NULL: serial */
	uint64		set_id;			/* the set of this scan (parallel: all's) */
	uint64		fold_id;		/* the set its requests fold into; 0: none */
	uint64		owned;			/* a set this backend made and frees */
	bool		started;		/* set_id decided for this scan */
	bool		attached;		/* to the shared Barrier */
	bool		late;			/* attached after the walks were over */
	bool		incomplete;
	bool		reader;			/* this participant reads the set */
	bool		read_started;
	uint64		read_pos;
	uint64		read_total;
	uint64		returned;		/* groups this participant read */
	bool		owned_mode;		/* GPUHASH_PREAGG_OWNED */
	bool		arrived;		/* owned: at the end of the walks */
	bool		sole;			/* owned: the one reader of set and exchange */
	uint64		exchanged;		/* owned, EXPLAIN ANALYZE: rows through it */
	/* EXPLAIN ANALYZE */
	GhSvcGroupsInfo info;
	bool		have_info;
} GpuAggResident;

static const struct config_enum_entry resident_options[] = {
	{"auto", GPUHASH_RESIDENT_AUTO, false},
	{"on", GPUHASH_RESIDENT_ON, false},
	{"off", GPUHASH_RESIDENT_OFF, false},
	{"true", GPUHASH_RESIDENT_ON, true},
	{"false", GPUHASH_RESIDENT_OFF, true},
	{"yes", GPUHASH_RESIDENT_ON, true},
	{"no", GPUHASH_RESIDENT_OFF, true},
	{"1", GPUHASH_RESIDENT_ON, true},
	{"0", GPUHASH_RESIDENT_OFF, true},
	{NULL, 0, false}
};

void
gpuhash_agg_resident_gucs(void)
{
	DefineCustomEnumVariable("gpuhash.resident_groups",
							 "Keeps a GPU aggregate's groups in the GPU service until the scan ends.",
							 "All participants of a GpuPreAgg merge their groups into one set where "
							 "they are folded; only its groups come back, once, after the HAVING "
							 "conditions the GPU evaluates exactly (GPU Having).  auto: where the "
							 "planner's cost finds it cheaper than each request's groups coming "
							 "back; on: wherever a GROUP BY allows it.",
							 &gpuhash_resident_groups,
							 GPUHASH_RESIDENT_AUTO,
							 resident_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("gpuhash.resident_groups_memory",
							"Device memory one GPU aggregate's resident groups may take.",
							"Past it the set stops growing: the groups of later requests come "
							"back to the backends and no HAVING condition is applied on the GPU.",
							&gpuhash_resident_groups_memory,
							4096, 1, INT_MAX / 2,
							PGC_SUSET, GUC_UNIT_MB,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuhash.owned_groups",
							 "Lets each participant finish its own share of a GPU aggregate's resident groups.",
							 "A parallel GpuPreAgg whose groups stay resident hands each group up from "
							 "one participant, so PostgreSQL's Finalize Aggregate can run in every "
							 "participant below the Gather; the planner offers that plan beside the "
							 "Finalize Aggregate above the Gather and keeps the cheaper.",
							 &gpuhash_owned_groups,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
}

/* The set freed: the node's end, a rescan, an error or cancel. */
static void
free_owned(GpuAggResident *r)
{
	uint64		id = r->owned;

	r->owned = 0;
	gpuhash_svc_groups_free(id);
}

static void
cleanup_callback(void *arg)
{
	free_owned((GpuAggResident *) arg);
}

/* The pushed terms of the plan, against the node's aggregates. */
static void
compile_having(GpuPreAggState *as, CustomScan *cscan, GpuAggResident *r)
{
	List	   *terms = gpuhash_preagg_having_of(cscan, &r->having_text);
	ListCell   *lc;

	memset(&r->having, 0, sizeof(r->having));
	foreach(lc, terms)
	{
		List	   *t = lfirst(lc);
		int			pos = intVal(linitial(t));
		List	   *words = list_nth(t, 4);
		gh_agg_having_term *x = &r->having.term[r->having.nterms];
		int			a;

		for (a = 0; a < as->naggs && as->agg_pos[a] != pos; a++)
			;
		if (a == as->naggs || r->having.nterms >= GH_AGG_MAX_HAVING)
			elog(ERROR, "gpuhash: a GPU Having term over no aggregate of the node");
		memset(x, 0, sizeof(*x));
		x->agg = (int16) a;
		x->kind = (uint8) intVal(lsecond(t));
		x->op = (uint8) intVal(lthird(t));
		x->exact = (uint8) intVal(lfourth(t));
		for (int w = 0; w < 3; w++)
			x->konst[w] = (uint64) DatumGetInt64(((Const *) list_nth(words, w))->constvalue);
		r->having.nterms++;
	}
	if (r->having.nterms > 0 &&
		gh_agg_having_check(as->pp.prog.scan, as->aprog, &r->having) != GH_OK)
		elog(ERROR, "gpuhash: GPU Having over the node's aggregates: %s", gh_last_error());
}

/*
 * The node's resident groups, where the plan chose them (its cost) and the
 * setting still allows them, for a plan of group columns, over one relation or a join (every participant decides
 * alike: the DSM's size follows); usable where this backend folds through
 * the service.  No HAVING term is pushed over an outer join (agg_plan.c):
 * its unmatched inner rows are folded beside the set.
 */
void
gpuhash_agg_resident_init(GpuPreAggState *as, CustomScan *cscan)
{
	GpuAggResident *r;
	MemoryContextCallback *cb;

	as->res = NULL;
	as->exch = NULL;
	if (cscan->flags & GPUHASH_PREAGG_OWNED)
	{
		/* whatever the setting now: the plan's Finalize Aggregates rely on it */
		r = palloc0(sizeof(GpuAggResident));
		r->owned_mode = true;
		as->exch = gpuhash_agg_exchange_create();
	}
	else if (gpuhash_resident_groups == GPUHASH_RESIDENT_OFF || as->nkeys == 0 ||
			 !(cscan->flags & GPUHASH_PREAGG_RESIDENT))
		return;
	else
		r = palloc0(sizeof(GpuAggResident));
	r->usable = as->why_cpu == NULL && as->aprog != NULL && as->use_service &&
		gpuhash_resident_groups != GPUHASH_RESIDENT_OFF;
	if (r->usable)
		compile_having(as, cscan, r);
	cb = palloc0(sizeof(MemoryContextCallback));
	cb->func = cleanup_callback;
	cb->arg = r;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	as->res = r;
}

static uint64
cap_bytes(void)
{
	uint64		cap = (uint64) gpuhash_resident_groups_memory * 1024 * 1024;
	size_t		budget = gpuhash_gpu_budget();

	return budget > 0 ? Min(cap, budget) : cap;
}

/* A new set for the node's programs, held by owner_pid; 0: none. */
static uint64
begin_set(GpuPreAggState *as, int owner_pid)
{
	uint64		id = 0;

	if (!gpuhash_svc_groups_begin(owner_pid, as->pp.prog.scan, as->aprog, as->device,
								  cap_bytes(), &id))
		return 0;
	return id;
}

/*
 * Before the scan's first block is taken: the set this participant folds
 * into (0: none), made (serial) or attached to (parallel).
 */
uint64
gpuhash_agg_resident_start(GpuPreAggState *as)
{
	GpuAggResident *r = as->res;
	bool		usable;

	if (r == NULL || r->started)
		return r != NULL ? r->fold_id : 0;
	r->started = true;

	/*
	 * Over a join, the requests go to the service only with its dimension
	 * there, and a dimension that was not built (why_cpu, decided at the
	 * collection just before) leaves every page to the CPU.  Carried
	 * columns whose inner rows went to batches hand each pass's groups up
	 * (agg_join_carry.c): no set kept across the passes.
	 */
	usable = r->usable && as->why_cpu == NULL &&
		(as->join == NULL || as->join->dim_id != 0) &&
		!gpuhash_agg_join_carry_batched(as);
	if (r->shared == NULL)
	{
		/* serial: a set of this backend's */
		if (usable && r->owned == 0)
			r->owned = begin_set(as, MyProcPid);
		r->set_id = r->fold_id = r->owned;
		r->reader = r->set_id != 0;
		return r->fold_id;
	}
	if (r->shared->set_id == 0 && !r->owned_mode)
		return 0;
	switch (BarrierAttach(&r->shared->barrier))
	{
		case 0:
			break;
		case 1:
			/* the walks are over: every block is taken; read with the others */
			r->late = r->reader = r->attached = true;
			r->set_id = r->shared->set_id;
			if (pg_atomic_read_u32(&r->shared->incomplete) != 0)
				r->incomplete = true;
			return 0;
		default:
			/* the set is read and freed: nothing to fold or read */
			BarrierDetach(&r->shared->barrier);
			r->late = true;
			return 0;
	}
	r->attached = true;
	r->set_id = r->shared->set_id;
	/* a participant that cannot fold into the set folds beside it */
	if (!usable || r->set_id == 0)
		r->incomplete = true;
	r->fold_id = usable ? r->set_id : 0;
	return r->fold_id;
}

/*
 * A request answered: its pages from `folded` on were folded in the
 * backend, answered_groups came back rather than into the set, and its
 * refused pages are read by the CPU: any of them, and the set is
 * incomplete.
 */
void
gpuhash_agg_resident_answered(GpuPreAggState *as, GpuAggReq *q, int folded,
							  uint64 answered_groups)
{
	GpuAggResident *r = as->res;

	/* the set was read without this participant: it must have no page */
	if (r != NULL && r->late && q->r.n_pages > 0)
		elog(ERROR, "gpuhash: a GpuPreAgg participant found pages after its resident groups were read");
	if (r == NULL || r->set_id == 0 || r->incomplete)
		return;
	if (folded < q->r.n_pages || answered_groups > 0)
		r->incomplete = true;
	for (int p = 0; p < folded && !r->incomplete; p++)
		if (q->r.refused[p])
			r->incomplete = true;
}

/*
 * The participant's walk is over (every request answered): serial, it
 * reads the set; parallel, it arrives at the end of the walks, a worker
 * waiting for the others, and reads its share once all have arrived.  The
 * leader does not wait (the file's header): it reads only if it arrived
 * last, attaching again for the reads.
 */
void
gpuhash_agg_resident_end(GpuPreAggState *as)
{
	GpuAggResident *r = as->res;

	/* owned: the arrival waits for the rows flushed at the end (owned_arrive) */
	if (r == NULL || r->set_id == 0 || (r->owned_mode && r->shared != NULL))
		return;
	if (r->shared != NULL)
	{
		if (!r->attached || r->late)
			return;
		if (r->incomplete)
			pg_atomic_write_u32(&r->shared->incomplete, 1);
		if (IsParallelWorker())
		{
			(void) BarrierArriveAndWait(&r->shared->barrier, PG_WAIT_EXTENSION);
			r->reader = true;
		}
		else if (BarrierArriveAndDetach(&r->shared->barrier))
		{
			/* the last arrival: phase 1, unless the readers are done already */
			r->reader = BarrierAttach(&r->shared->barrier) == 1;
			if (!r->reader)
				BarrierDetach(&r->shared->barrier);
		}
		r->attached = r->reader;
		if (r->reader && pg_atomic_read_u32(&r->shared->incomplete) != 0)
			r->incomplete = true;
	}
}

/*
 * A parallel reader is done: it detaches from the reads, and the last
 * frees the set (every range was taken, every read answered).
 */
static void
end_reads(GpuAggResident *r)
{
	r->reader = false;
	if (!r->attached)
		return;
	r->attached = false;
	if (BarrierArriveAndDetach(&r->shared->barrier))
		gpuhash_svc_groups_free(r->shared->set_id);
}

/*
 * Owned groups, a participant's walk over and every row it folded beside
 * the set in the exchange: it arrives and waits for the others' walks
 * (the leader too: no participant has handed up a row, so none waits on
 * its tuple queue).  Then every participant reads a share of a complete
 * set; of an incomplete one (or none), the first to claim it reads all of
 * it and the exchange, the others nothing.
 */
static void
owned_arrive(GpuPreAggState *as)
{
	GpuAggResident *r = as->res;
	GpuAggResidentShared *sh = r->shared;

	r->arrived = true;
	gpuhash_agg_exchange_end_write(as->exch);
	if (!r->attached)
	{
		/* attached after the reads were over: the blocks were all taken */
		r->reader = false;
		return;
	}
	pg_atomic_fetch_add_u64(&sh->exchanged, gpuhash_agg_exchange_written(as->exch));
	if (!r->late)
	{
		if (r->incomplete || gpuhash_agg_exchange_written(as->exch) > 0)
			pg_atomic_write_u32(&sh->incomplete, 1);
		(void) BarrierArriveAndWait(&sh->barrier, PG_WAIT_EXTENSION);
	}
	r->reader = true;
	if (pg_atomic_read_u32(&sh->incomplete) == 0)
		return;
	r->incomplete = true;
	r->sole = pg_atomic_exchange_u32(&sh->sole, 1) == 0;
	if (!r->sole)
		end_reads(r);
}

/* Owned groups: must this participant's row go to the exchange? */
bool
gpuhash_agg_resident_diverts(GpuPreAggState *as)
{
	GpuAggResident *r = as->res;

	return r != NULL && r->owned_mode && r->shared != NULL && !r->arrived;
}

/* Owned groups, the one reader, the set read: the exchange's next row. */
TupleTableSlot *
gpuhash_agg_resident_exchanged(GpuPreAggState *as)
{
	GpuAggResident *r = as->res;

	if (r == NULL || !r->sole)
		return NULL;
	return gpuhash_agg_exchange_next(as->exch, &as->css.ss.ps);
}

/*
 * The next range of the set's groups into the node's pending sets: true.
 * Serial, the ranges in order; parallel, the next range not taken by any
 * participant.
 */
bool
gpuhash_agg_resident_next(GpuPreAggState *as)
{
	GpuAggResident *r = as->res;
	gh_agg_groups *g;
	uint64		pos;

	if (r != NULL && r->owned_mode && r->shared != NULL && !r->arrived)
		owned_arrive(as);
	if (r != NULL && r->owned_mode && r->reader && r->set_id == 0)
		end_reads(r);			/* no set: the exchange alone */
	if (r == NULL || !r->reader || r->set_id == 0 ||
		(r->read_started && r->read_pos >= r->read_total))
		return false;
	g = palloc0(sizeof(gh_agg_groups));
	if (gh_agg_groups_init(g, as->aprog, as->max_groups) != GH_OK)
		elog(ERROR, "gpuhash: %s", gh_last_error());
	/* a range is what one answer holds: the service's rule, key words too */
	pos = r->shared == NULL || r->sole ? r->read_pos :
		pg_atomic_fetch_add_u64(&r->shared->next_pos,
								gpuhash_svc_groups_room(as->aprog->naggs,
														gh_agg_groups_key_words(g)));
	as->pending = lappend(as->pending, g);
	gpuhash_svc_groups_read(r->set_id, &r->having, !r->incomplete, pos, g, &r->info);
	r->read_started = true;
	r->have_info = true;
	r->read_total = r->info.returned;
	r->read_pos = pos + g->n_groups;
	r->returned += g->n_groups;
	if (g->n_groups == 0)
		r->read_pos = r->read_total;	/* nothing more will come */
	if (r->shared != NULL)
	{
		pg_atomic_write_u64(&r->shared->resident, r->info.resident);
		pg_atomic_fetch_add_u64(&r->shared->returned, g->n_groups);
		pg_atomic_write_u64(&r->shared->removed, r->info.removed);
		pg_atomic_write_u32(&r->shared->applied, r->info.applied ? 1 : 2);
		if (r->read_pos >= r->read_total)
			end_reads(r);
	}
	return true;
}

/* A rescan: serial, the set goes (the next scan makes a new one). */
void
gpuhash_agg_resident_rescan(GpuPreAggState *as)
{
	GpuAggResident *r = as->res;

	if (r == NULL)
		return;
	/* owned: this scan's file closed; a parallel rescan's ReInitializeDSM deletes it */
	if (r->owned_mode)
		gpuhash_agg_exchange_end_write(as->exch);
	if (r->shared == NULL)
		free_owned(r);
	else if (r->attached && r->reader)
		end_reads(r);
	else if (r->attached)
	{
		BarrierDetach(&r->shared->barrier);
		/* what this participant folded is lost: the set cannot be trusted */
		pg_atomic_write_u32(&r->shared->incomplete, 1);
	}
	r->set_id = r->fold_id = 0;
	r->started = r->attached = r->late = r->incomplete = r->reader = r->read_started = false;
	r->arrived = r->sole = false;
	r->read_pos = r->read_total = r->returned = 0;
}

/*
 * Before the DSM goes: the readers' figures kept for EXPLAIN ANALYZE, the
 * groups returned summed over the participants.  A participant shut down
 * before the end of its part (a Limit above satisfied, the leader gone)
 * leaves the Barrier first, so that no worker waits for it: mid-walk, its
 * folded rows may be missing from the set, which is then incomplete.
 */
void
gpuhash_agg_resident_shutdown(GpuPreAggState *as)
{
	GpuAggResident *r = as->res;
	uint32		applied;

	if (r == NULL || r->shared == NULL)
		return;
	if (r->owned_mode)
		gpuhash_agg_exchange_end_write(as->exch);
	if (r->attached && r->reader)
		end_reads(r);
	else if (r->attached)
	{
		pg_atomic_write_u32(&r->shared->incomplete, 1);
		BarrierDetach(&r->shared->barrier);
		r->attached = false;
	}
	r->exchanged = pg_atomic_read_u64(&r->shared->exchanged);
	applied = pg_atomic_read_u32(&r->shared->applied);
	if (applied == 0)
		return;
	r->info.resident = pg_atomic_read_u64(&r->shared->resident);
	r->info.returned = pg_atomic_read_u64(&r->shared->returned);
	r->info.removed = pg_atomic_read_u64(&r->shared->removed);
	r->info.applied = applied == 1;
	r->have_info = true;
}

void
gpuhash_agg_resident_explain(GpuPreAggState *as, ExplainState *es)
{
	GpuAggResident *r = as->res;

	if (r == NULL)
		return;
	if (r->owned_mode)
		ExplainPropertyText("Group Owners", "one participant each", es);
	if (r->owned_mode && es->analyze)
		ExplainPropertyUInteger("Rows Exchanged", NULL,
								r->shared != NULL ? r->exchanged :
								gpuhash_agg_exchange_written(as->exch), es);
	if (!r->usable)
		return;
	if (r->having.nterms > 0 && r->having_text != NULL)
		ExplainPropertyText("GPU Having", r->having_text, es);
	if (!es->analyze || !r->have_info)
		return;
	ExplainPropertyUInteger("Resident Groups", NULL, r->info.resident, es);
	ExplainPropertyUInteger("Groups Returned", NULL,
							r->shared != NULL ? r->info.returned : r->returned, es);
	if (r->having.nterms > 0)
	{
		if (r->info.applied)
			ExplainPropertyUInteger("Groups Removed by GPU Having", NULL, r->info.removed, es);
		else
			ExplainPropertyText("GPU Having Skipped", "set incomplete", es);
	}
}

/* ---- the node's DSM: its region placed by agg_exec.c's layout ---- */

Size
gpuhash_agg_resident_estimate(GpuPreAggState *as)
{
	return as->res != NULL ? MAXALIGN(sizeof(GpuAggResidentShared)) : 0;
}

static void
setup_shared(GpuPreAggState *as, GpuAggResidentShared *sh)
{
	GpuAggResident *r = as->res;

	free_owned(r);
	memset(sh, 0, sizeof(*sh));
	pg_atomic_init_u32(&sh->incomplete, 0);
	pg_atomic_init_u64(&sh->next_pos, 0);
	pg_atomic_init_u64(&sh->resident, 0);
	pg_atomic_init_u64(&sh->returned, 0);
	pg_atomic_init_u64(&sh->removed, 0);
	pg_atomic_init_u32(&sh->applied, 0);
	pg_atomic_init_u32(&sh->sole, 0);
	pg_atomic_init_u64(&sh->exchanged, 0);
	BarrierInit(&sh->barrier, 0);
	if (r->usable)
		r->owned = begin_set(as, MyProcPid);
	sh->set_id = r->owned;
	r->shared = sh;
	r->have_info = false;
}

void
gpuhash_agg_resident_init_dsm(GpuPreAggState *as, void *space)
{
	if (as->res != NULL)
		setup_shared(as, (GpuAggResidentShared *) space);
}

/* A rescan of the parallel plan: the old set goes, a new one for all. */
void
gpuhash_agg_resident_reinit_dsm(GpuPreAggState *as, void *space)
{
	if (as->res != NULL)
		setup_shared(as, (GpuAggResidentShared *) space);
}

void
gpuhash_agg_resident_attach(GpuPreAggState *as, void *space)
{
	if (as->res != NULL)
		as->res->shared = (GpuAggResidentShared *) space;
}
