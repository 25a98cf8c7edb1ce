/*-------------------------------------------------------------------------
 *
 * parallel_split.c
 *	  A parallel-aware GpuHashJoin whose inner side outgrows, at run time,
 *	  what all its participants may keep together (work_mem x
 *	  hash_mem_multiplier each, as Parallel Hash allows): the join splits
 *	  into shared batches.
 *
 *	  Every participant reading the inner side adds what it keeps to a
 *	  shared sum.  The first to find the sum over the limit makes the
 *	  batches: for each, a SharedTuplestore of inner rows and one of outer
 *	  rows, in a SharedFileSet of the node's DSM.  Every inner reader then
 *	  moves the rows it kept to their batches and writes the rest there as
 *	  it reads them; parallel.c's barrier (or, with one reader, its
 *	  condition variable) says when all inner rows are written.  Then every
 *	  participant writes its share of the outer side the same way, and waits
 *	  at this file's barrier until all outer rows are written.  From there
 *	  nothing is shared but the files: each participant claims whole batches,
 *	  one at a time, and joins each as a serial join would, with a table and
 *	  match bits of its own (so a right/full join's unmatched inner rows of
 *	  a batch come out of the one that joined it) and, where a batch still
 *	  outgrows one participant's memory, hash batches in its own files
 *	  (batch.c).
 *
 *	  No participant reads an outer row before it attaches to the barrier,
 *	  so once the barrier moves on every outer row has been written: a
 *	  participant that attaches later finds the partial outer side
 *	  exhausted, as parallel.c's readers find the inner side.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/sharedtuplestore.h"

/* GpuSplitShared.state */
#define SPLIT_NONE		0
#define SPLIT_STARTING	1		/* one participant makes the batches */
#define SPLIT_READY		2

/* Phases of the split's barrier. */
#define SPLIT_PHASE_PARTITION	0	/* outer rows written to the batches */
#define SPLIT_PHASE_JOIN		1	/* batches claimed and joined */

/* Shared batches: enough to keep every participant busy, and a bound. */
#define SPLIT_BATCHES_PER_PARTICIPANT	2
#define SPLIT_MAX_BATCHES	128

/*
 * What a participant holds per batch it writes to: the shared tuplestore
 * accessor's write chunk (STS_CHUNK_PAGES, 4 pages, in sharedtuplestore.c)
 * and its BufFile's page.  It writes to all batches at once (inner rows,
 * later outer rows), so the batches are no more than its memory limit
 * holds of these.
 */
#define SPLIT_WRITE_BUFFER	(5 * BLCKSZ)

/* What goes with each row written to a batch. */
typedef struct SplitMeta
{
	uint64		key;
	uint32		flags;
	uint32		pad;
} SplitMeta;

#define SPLIT_NOKEY		0x1

/* This participant's part of a split. */
typedef struct GpuSplit
{
	MemoryContext cxt;			/* accessors, their buffers and files */
	GpuSplitShared *ss;
	int			nbatch;
	SharedTuplestoreAccessor **acc; /* nbatch inner stores, then nbatch outer */
	pg_atomic_uint64 *counts;	/* rows written to each store */
	bool		writing;		/* inner rows go to the batches as read */
	int			cur;			/* the batch being joined; -1: none */
	SharedTuplestoreAccessor *reading;	/* a store being read, or NULL */
	MinimalTuple empty;			/* the row of a side without kept columns */
	uint64		null_seq;		/* places outer rows without a key */
	uint64		null_key_rows;	/* inner rows read without a key */
	uint64		inner_rows;		/* in the tables of the batches joined so far */
	uint64		distinct_keys;
} GpuSplit;

static inline SharedTuplestore *
store_at(GpuSplitShared *ss, char *base, int i)
{
	return (SharedTuplestore *) (base + (Size) i * MAXALIGN(sts_estimate(ss->participants)));
}

/* This process's participant number: the leader 0, worker n n + 1. */
static inline int
participant_number(void)
{
	return ParallelWorkerNumber + 1;
}

/* Called with the shared state's (re)initialisation; not the file set. */
void
gpuhash_split_shared_init(GpuSplitShared *ss, int participants)
{
	ss->participants = participants;
	ss->mem_limit = gpuhash_memory_limit() * (size_t) participants;
	pg_atomic_init_u64(&ss->inner_bytes, 0);
	pg_atomic_init_u32(&ss->state, SPLIT_NONE);
	ConditionVariableInit(&ss->cv);
	ss->nbatch = 0;
	ss->stores = ss->counts = InvalidDsaPointer;
	BarrierInit(&ss->barrier, 0);
	pg_atomic_init_u32(&ss->next_batch, 0);
	SpinLockInit(&ss->mutex);
	memset(&ss->sums, 0, sizeof(ss->sums));
}

/* A rescan, once the old workers are gone: the batches' files and stores go. */
void
gpuhash_split_shared_reset(GpuSplitShared *ss, dsa_area *area)
{
	if (pg_atomic_read_u32(&ss->state) == SPLIT_NONE)
		return;
	SharedFileSetDeleteAll(&ss->fileset);
	if (area && DsaPointerIsValid(ss->stores))
		dsa_free(area, ss->stores);
	if (area && DsaPointerIsValid(ss->counts))
		dsa_free(area, ss->counts);
	ss->stores = ss->counts = InvalidDsaPointer;
}

/*
 * While the inner side is read, after each kept row: true when the join
 * must split.  Each participant adds what it keeps to the shared sum every
 * `step` bytes, so up to a step of each is not in the sum yet: the join
 * splits that much before the limit, and the participants together never
 * keep more.  One that finds the join split already stops at once.
 */
bool
gpuhash_split_wanted(GpuJoinState *gs)
{
	GpuSplitShared *ss = gs->split_shared;
	size_t		step = Max(Min(gs->hb.mem_limit / 8, (size_t) 1024 * 1024), (size_t) 8192);
	uint64		total;

	if (pg_atomic_read_u32(&ss->state) != SPLIT_NONE)
		return true;
	if (gs->mem_used < gs->split_reported + step)
		return false;
	total = pg_atomic_add_fetch_u64(&ss->inner_bytes, gs->mem_used - gs->split_reported);
	gs->split_reported = gs->mem_used;
	return total + (uint64) step * ss->participants > ss->mem_limit;
}

/* Has the join split?  (Final once every inner reader is done.) */
bool
gpuhash_split_is_on(GpuJoinState *gs)
{
	return gs->split_shared != NULL &&
		pg_atomic_read_u32(&gs->split_shared->state) != SPLIT_NONE;
}

/*
 * The first participant to split makes the batches: nbatch of them, a
 * power of two, enough for every participant to have some and for each to
 * hold what one participant may keep, as far as the rows read so far tell;
 * but past two, no more than the write buffers of one participant fit its
 * memory limit (SPLIT_WRITE_BUFFER), so that writing stays within it too.
 * A batch then over the limit is split again by the participant that
 * joins it, in its own files.
 */
static void
make_batches(GpuJoinState *gs, GpuSplit *sp)
{
	GpuSplitShared *ss = sp->ss;
	dsa_area   *area = gs->css.ss.ps.state->es_query_dsa;
	double		want = Max((double) SPLIT_BATCHES_PER_PARTICIPANT * ss->participants,
						   2.0 * pg_atomic_read_u64(&ss->inner_bytes) / Max(gs->hb.mem_limit, 1));
	int			n = 1;
	char	   *base;
	pg_atomic_uint64 *counts;
	MemoryContext old;

	while (n < want && n < SPLIT_MAX_BATCHES &&
		   (n < 2 || (size_t) 2 * n * SPLIT_WRITE_BUFFER <= gs->hb.mem_limit))
		n <<= 1;
	ss->stores = dsa_allocate(area, (Size) 2 * n * MAXALIGN(sts_estimate(ss->participants)));
	ss->counts = dsa_allocate(area, sizeof(pg_atomic_uint64) * 2 * n);
	base = dsa_get_address(area, ss->stores);
	counts = dsa_get_address(area, ss->counts);
	/* the maker's accessors are the ones sts_initialize returns */
	old = MemoryContextSwitchTo(sp->cxt);
	sp->acc = palloc(sizeof(SharedTuplestoreAccessor *) * 2 * n);
	for (int i = 0; i < 2 * n; i++)
	{
		char		name[NAMEDATALEN];

		snprintf(name, sizeof(name), "%c%d", i < n ? 'i' : 'o', i % n);
		pg_atomic_init_u64(&counts[i], 0);
		sp->acc[i] = sts_initialize(store_at(ss, base, i), ss->participants,
									participant_number(), sizeof(SplitMeta),
									SHARED_TUPLESTORE_SINGLE_PASS, &ss->fileset, name);
	}
	MemoryContextSwitchTo(old);
	SpinLockAcquire(&ss->mutex);
	ss->nbatch = n;
	pg_atomic_write_u32(&ss->state, SPLIT_READY);
	SpinLockRelease(&ss->mutex);
	ConditionVariableBroadcast(&ss->cv);
}

/* Waits until the batches are made. */
static void
wait_ready(GpuSplitShared *ss)
{
	ConditionVariablePrepareToSleep(&ss->cv);
	for (;;)
	{
		uint32		state;

		SpinLockAcquire(&ss->mutex);
		state = pg_atomic_read_u32(&ss->state);
		SpinLockRelease(&ss->mutex);
		if (state == SPLIT_READY)
			break;
		ConditionVariableSleep(&ss->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
}

/* This participant's accessors of the batches' stores (the maker has its own). */
static void
attach(GpuJoinState *gs, GpuSplit *sp)
{
	GpuSplitShared *ss = sp->ss;
	dsa_area   *area = gs->css.ss.ps.state->es_query_dsa;
	char	   *base = dsa_get_address(area, ss->stores);
	MemoryContext old;

	sp->nbatch = ss->nbatch;
	sp->counts = dsa_get_address(area, ss->counts);
	/* writing to every batch at once: its buffers count as kept memory */
	gs->stats.mem_peak = Max(gs->stats.mem_peak, (size_t) sp->nbatch * SPLIT_WRITE_BUFFER);
	if (sp->acc != NULL)
		return;					/* made them: has its accessors */
	old = MemoryContextSwitchTo(sp->cxt);
	sp->acc = palloc(sizeof(SharedTuplestoreAccessor *) * 2 * sp->nbatch);
	for (int i = 0; i < 2 * sp->nbatch; i++)
		sp->acc[i] = sts_attach(store_at(ss, base, i), participant_number(), &ss->fileset);
	MemoryContextSwitchTo(old);
}

/* The kept inner rows start over: none of their bytes reported yet. */
void
gpuhash_split_inner_restart(GpuJoinState *gs)
{
	gs->split_reported = 0;
}

/*
 * This participant joins the split: the batches made (by it, if first) and
 * its accessors; the inner store (gpuhash_inner_split) then moves the inner
 * rows it kept to their batches.  From here on its inner rows go to the
 * batches as it reads them, and the tables it builds are its own.
 */
void
gpuhash_split_begin(GpuJoinState *gs)
{
	GpuSplitShared *ss = gs->split_shared;
	GpuSplit   *sp;
	uint32		expected = SPLIT_NONE;
	MemoryContext old;

	Assert(gs->split == NULL);
	sp = MemoryContextAllocZero(gs->cxt, sizeof(GpuSplit));
	sp->cxt = AllocSetContextCreate(gs->cxt, "GpuHashJoin split", ALLOCSET_DEFAULT_SIZES);
	sp->ss = ss;
	sp->cur = -1;
	old = MemoryContextSwitchTo(sp->cxt);
	sp->empty = heap_form_minimal_tuple(CreateTemplateTupleDesc(0), NULL, NULL);
	MemoryContextSwitchTo(old);
	if (pg_atomic_compare_exchange_u32(&ss->state, &expected, SPLIT_STARTING))
		make_batches(gs, sp);
	else
		wait_ready(ss);
	attach(gs, sp);
	gs->split = sp;
	sp->writing = true;

	/* a table of its own from here on, freed by its own node */
	gpuhash_table_set_service_owner(gs, 0);
	gpuhash_table_set_owns(gs, true);
}

/* Appends a row to store i: its kept columns (NULL: none), key and flag. */
static void
put_row(GpuJoinState *gs, int i, MinimalTuple tup, uint64 key, bool nokey)
{
	GpuSplit   *sp = gs->split;
	SplitMeta	meta;

	meta.key = key;
	meta.flags = nokey ? SPLIT_NOKEY : 0;
	meta.pad = 0;
	sts_puttuple(sp->acc[i], &meta, tup ? tup : sp->empty);
	pg_atomic_fetch_add_u64(&sp->counts[i], 1);
	gs->stats.spilled_rows++;
}

/* Do this participant's inner rows go to the batches as it reads them? */
bool
gpuhash_split_writing(GpuJoinState *gs)
{
	return gs->split != NULL && gs->split->writing;
}

/* An inner row (its kept columns as a tuple, or NULL) to its batch. */
void
gpuhash_split_put_inner(GpuJoinState *gs, MinimalTuple tup, uint64 key, bool nokey)
{
	put_row(gs, gpuhash_split_batch_of(key, gs->split->nbatch), tup, key, nokey);
}

/*
 * This participant has written all its inner rows (it has joined the split:
 * gpuhash_inner_split_done).
 */
void
gpuhash_split_inner_done(GpuJoinState *gs)
{
	GpuSplit   *sp = gs->split;

	for (int b = 0; b < sp->nbatch; b++)
		sts_end_write(sp->acc[b]);
	sp->writing = false;
	sp->null_key_rows = gs->stats.null_key_rows;
}

/*
 * GJ_SPLIT_OUTER starts: true when this participant is to write its share of
 * the outer side (gpuhash_split_put_outer, then gpuhash_split_outer_done);
 * false when the outer rows are all written already.
 */
bool
gpuhash_split_outer_begin(GpuJoinState *gs)
{
	if (BarrierAttach(&gs->split->ss->barrier) == SPLIT_PHASE_PARTITION)
		return true;
	BarrierDetach(&gs->split->ss->barrier);
	return false;
}

/*
 * An outer row to its batch.  One without a key matches nothing: a made-up
 * key places it in some batch, whose joiner emits it unmatched.
 */
void
gpuhash_split_put_outer(GpuJoinState *gs, MinimalTuple tup, uint64 key, bool nokey)
{
	GpuSplit   *sp = gs->split;

	if (nokey)
		key = sp->null_seq++;
	put_row(gs, sp->nbatch + gpuhash_split_batch_of(key, sp->nbatch), tup, key, nokey);
}

/* This participant's outer rows are written: wait for everyone's. */
void
gpuhash_split_outer_done(GpuJoinState *gs)
{
	GpuSplit   *sp = gs->split;

	for (int b = 0; b < sp->nbatch; b++)
		sts_end_write(sp->acc[sp->nbatch + b]);
	BarrierArriveAndWait(&sp->ss->barrier, PG_WAIT_EXTENSION);
	BarrierDetach(&sp->ss->barrier);
}

/* Ends the read of a store, if one is open. */
static void
end_reading(GpuSplit *sp)
{
	if (sp->reading)
		sts_end_parallel_scan(sp->reading);
	sp->reading = NULL;
}

/* The figures of the batch just joined, into this participant's sums. */
static void
fold_batch_stats(GpuJoinState *gs)
{
	GpuSplit   *sp = gs->split;

	if (sp->cur < 0)
		return;
	sp->inner_rows += gs->stats.inner_rows;
	sp->distinct_keys += gs->stats.distinct_keys;
	gs->stats.inner_rows = gs->stats.distinct_keys = 0;
}

/* This participant has joined its last batch: its figures into the shared sums. */
static void
add_stats(GpuJoinState *gs)
{
	GpuSplit   *sp = gs->split;
	GpuSplitShared *ss = sp->ss;
	GpuJoinStats *s = &ss->sums;

	SpinLockAcquire(&ss->mutex);
	s->split_batches = sp->nbatch;
	if (gs->stats.built)
	{
		s->built = true;
		s->device = gs->stats.device;
		s->in_service |= gs->stats.in_service;
	}
	s->inner_rows += sp->inner_rows;
	s->distinct_keys += sp->distinct_keys;
	s->null_key_rows += sp->null_key_rows;
	s->builds += gs->stats.builds;
	s->spilled_rows += gs->stats.spilled_rows;
	s->fallbacks += gs->stats.fallbacks;
	s->build_ms += gs->stats.build_ms;
	s->table_ms += gs->stats.table_ms;
	s->table_parts_ms.ship_ms += gs->stats.table_parts_ms.ship_ms;
	s->table_parts_ms.build_ms += gs->stats.table_parts_ms.build_ms;
	s->table_parts_ms.copy_ms += gs->stats.table_parts_ms.copy_ms;
	s->table_parts_ms.sort_ms += gs->stats.table_parts_ms.sort_ms;
	s->table_parts_ms.hash_ms += gs->stats.table_parts_ms.hash_ms;
	s->filter_ms += gs->stats.filter_ms;
	s->probe_ms += gs->stats.probe_ms;
	s->transfer_ms += gs->stats.transfer_ms;
	s->hash_batches = Max(s->hash_batches, gs->stats.hash_batches);
	s->mem_peak = Max(s->mem_peak, gs->stats.mem_peak);
	s->gpu_bytes = Max(s->gpu_bytes, gs->stats.gpu_bytes);
	SpinLockRelease(&ss->mutex);
}

/*
 * GJ_NEXT_SPLIT: claims the next batch that can yield rows and makes its
 * inner rows the inner side; the caller builds its table (its inner rows
 * read through gpuhash_split_next_inner), then gpuhash_split_batch_built
 * makes its outer rows the outer side.  False when no batch is left.
 */
bool
gpuhash_split_next_batch(GpuJoinState *gs)
{
	GpuSplit   *sp = gs->split;

	end_reading(sp);
	fold_batch_stats(gs);
	gpuhash_batch_files_close(gs);
	for (;;)
	{
		uint32		b = pg_atomic_fetch_add_u32(&sp->ss->next_batch, 1);
		uint64		n_inner,
					n_outer;

		if (b >= (uint32) sp->nbatch)
		{
			sp->cur = -1;
			add_stats(gs);
			return false;
		}
		n_inner = pg_atomic_read_u64(&sp->counts[b]);
		n_outer = pg_atomic_read_u64(&sp->counts[sp->nbatch + b]);
		/* without inner rows only unmatched outer rows, and vice versa */
		if ((n_inner == 0 && !(gs->fill_outer && n_outer > 0)) ||
			(n_outer == 0 && !(gs->fill_inner && n_inner > 0)))
			continue;

		/* a serial join of this batch, free to split it further */
		sp->cur = (int) b;
		gpuhash_batches_serial(gs);
		sp->reading = sp->acc[b];
		sts_begin_parallel_scan(sp->reading);
		return true;
	}
}

/* The claimed batch's table is built: its outer rows become the outer side. */
void
gpuhash_split_batch_built(GpuJoinState *gs)
{
	GpuSplit   *sp = gs->split;

	end_reading(sp);
	if (gs->n_inner > 0 && !gs->table.remote)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuhash: a parallel GPU hash join needs the GPU service, which is not running")));
	sp->reading = sp->acc[sp->nbatch + sp->cur];
	sts_begin_parallel_scan(sp->reading);
}

/* Is this participant joining a batch of a split (not writing to them)? */
bool
gpuhash_split_joining(GpuJoinState *gs)
{
	return gs->split != NULL && gs->split->cur >= 0;
}

/* The next row of a store being read: its tuple (transient), key and flag. */
static MinimalTuple
next_row(GpuSplit *sp, uint64 *key, bool *nokey)
{
	SplitMeta	meta;
	MinimalTuple tup;

	if (sp->reading == NULL)
		return NULL;
	tup = sts_parallel_scan_next(sp->reading, &meta);
	if (tup == NULL)
		return NULL;
	*key = meta.key;
	*nokey = (meta.flags & SPLIT_NOKEY) != 0;
	return tup;
}

/*
 * The next inner row of the batch being built: its kept columns in the
 * spill slot (NULL: none kept).  False at the end of the batch.
 */
bool
gpuhash_split_next_inner(GpuJoinState *gs, TupleTableSlot **slot, uint64 *key, bool *nokey)
{
	MinimalTuple tup = next_row(gs->split, key, nokey);

	if (tup == NULL)
		return false;
	*slot = gs->n_inner_keep > 0 ?
		ExecStoreMinimalTuple(tup, gs->hb.inner_spill_slot, false) : NULL;
	return true;
}

/*
 * The next outer row of the batch being joined, its tuple copied into cxt
 * (NULL: no column kept).  False at the end of the batch.
 */
bool
gpuhash_split_next_outer(GpuJoinState *gs, MemoryContext cxt, MinimalTuple *tup,
						 uint64 *key, bool *nokey)
{
	MinimalTuple t = next_row(gs->split, key, nokey);

	if (t == NULL)
		return false;
	*tup = NULL;
	if (gs->n_outer_keep > 0)
	{
		*tup = MemoryContextAlloc(cxt, t->t_len);
		memcpy(*tup, t, t->t_len);
	}
	return true;
}

/*
 * The DSM is about to go (the node's shutdown): a store still being read
 * (a LIMIT above stopped the join) is let go.  Only local state is touched.
 */
void
gpuhash_split_close(GpuJoinState *gs)
{
	if (gs->split)
		end_reading(gs->split);
}

/*
 * A rescan: this participant's part of the split goes (parallel.c resets
 * the shared part, and deletes the files, once the workers are gone); the
 * join is a shared one again until it splits.
 */
void
gpuhash_split_forget(GpuJoinState *gs)
{
	GpuSplit   *sp = gs->split;

	if (sp == NULL)
		return;
	end_reading(sp);
	gpuhash_batch_files_close(gs);
	MemoryContextDelete(sp->cxt);
	pfree(sp);
	gs->split = NULL;
	gpuhash_batches_off(gs);
}

/*
 * The shared sums of a split join, for EXPLAIN ANALYZE (parallel.c's
 * shutdown, which then reads the counters every participant added).
 */
void
gpuhash_split_stats(GpuSplitShared *ss, GpuJoinStats *st)
{
	SpinLockAcquire(&ss->mutex);
	*st = ss->sums;
	SpinLockRelease(&ss->mutex);
}
