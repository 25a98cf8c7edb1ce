/*-------------------------------------------------------------------------
 *
 * probe_pipeline.c
 *	  The probe pipeline of a GpuHashJoin: outer rows of the current hash
 *	  batch read into probe batches (columns copied and keys encoded, or
 *	  tuples left in their pinned pages), a ring of batches whose probes
 *	  are in flight while the next ones are read, the prefill of a parallel
 *	  build, and the move from one hash batch to the next.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "probe_internal.h"
#include "scan/page_scan.h"
#include "service.h"

#include "executor/executor.h"
#include "access/htup_details.h"
#include "common/hashfn.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

/*
 * The kept columns of an outer row read from the outer side (a heap tuple
 * of an absorbed scan, or the outer plan's slot) as a tuple for a batch
 * file; NULL when the join keeps no outer column.
 */
static MinimalTuple
outer_kept_tuple(GpuJoinState *gs, TupleTableSlot *slot, HeapTuple htup)
{
	if (htup != NULL)
	{
		ExecStoreHeapTuple(htup, gs->oscan->slot, false);
		gpuhash_heap_scan_slot_clear(gs->oscan);
		return gpuhash_form_kept_tuple(gs, gs->oscan->slot, gs->oscan->heap_keep,
									   gs->n_outer_keep, gs->outer_desc);
	}
	return gpuhash_form_kept_tuple(gs, slot, gs->outer_keep, gs->n_outer_keep, gs->outer_desc);
}

/* Probe batch b's arrays, for batch_cap rows. */
static void
batch_alloc(GpuJoinState *gs, GpuProbeBatch *b)
{
	size_t		cols = (size_t) gs->batch_cap * Max(gs->n_outer_keep, 1);

	b->cxt = AllocSetContextCreate(gs->cxt, "GpuHashJoin batch", ALLOCSET_DEFAULT_SIZES);
	b->vals = MemoryContextAllocHuge(gs->cxt, sizeof(Datum) * cols);
	b->nulls = MemoryContextAllocHuge(gs->cxt, sizeof(bool) * cols);
	if (gs->oscan && gs->oscan->keep_rows)
	{
		b->tups = MemoryContextAllocHuge(gs->cxt, sizeof(HeapTupleData) * gs->batch_cap);
		b->pins = MemoryContextAlloc(gs->cxt, sizeof(Buffer) * gs->oscan->max_pins);
	}
	b->keys = MemoryContextAllocHuge(gs->cxt, sizeof(uint64) * gs->batch_cap);
	b->nokey = MemoryContextAllocHuge(gs->cxt, sizeof(bool) * gs->batch_cap);
	b->ranges = MemoryContextAllocHuge(gs->cxt, sizeof(gh_range) * gs->batch_cap);
	b->room = gs->batch_cap;
	b->ticket.slot = -1;
	b->state = PB_FREE;
}

/* The probe batches, set up with the node. */
void
gpuhash_probe_begin(GpuJoinState *gs)
{
	/* a batch's probe goes to the service as one request: up to a chunk */
	gs->batch_cap = gpuhash_batch_rows;
	{
		uint64		chunk = gpuhash_service_probe_capacity();

		if (chunk > 0)
			gs->batch_cap = Min(gs->batch_cap, chunk);
	}
	gs->pb_depth = GPUHASH_PIPELINE;
	for (int i = 0; i < gs->pb_depth; i++)
		batch_alloc(gs, &gs->pb[i]);
}

/*
 * A chain's bottom that reads pages: the ring grows to GPUHASH_PIPELINE_MAX
 * batches, the last filled by the chain (gpuhash_fill_ahead).  At ExecInit,
 * before any batch is filled.
 */
void
gpuhash_probe_deepen(GpuJoinState *gs)
{
	Assert(gs->pb_count == 0 && gs->pb_head == 0);
	while (gs->pb_depth < GPUHASH_PIPELINE_MAX)
		batch_alloc(gs, &gs->pb[gs->pb_depth++]);
}

/*
 * Reads the outer plan's first row before the build (an empty outer side
 * needs no table); it stays the next one.  False when there is none.
 */
bool
gpuhash_outer_peek(GpuJoinState *gs)
{
	gs->first_outer = ExecProcNode(gs->outer_ps);
	if (TupIsNull(gs->first_outer))
	{
		gs->first_outer = NULL;
		return false;
	}
	return true;
}

/* A rescan: the outer side is read again from its start. */
void
gpuhash_probe_restart(GpuJoinState *gs)
{
	gs->outer_done = false;
	gs->first_outer = NULL;
}

/*
 * The next outer row of this hash batch, in one of three forms: a slot
 * (batch 0 of an outer plan), a heap tuple in a pinned page (batch 0 of an
 * absorbed scan), or, read back from the batch's file or from the shared
 * batch of a split parallel join (parallel_split.c), deformed straight into
 * row `row` of probe batch pb (both NULL).  Rows of later batches go to
 * their files.  Rows without a key are never spilled: they match nothing,
 * and batch 0 emits them where unmatched outer rows come out.
 * OS_BATCH_FULL: an absorbed scan's batch holds all the pages it may.
 */
static GpuScanNext
next_outer_row(GpuJoinState *gs, GpuProbeBatch *pb, int row, TupleTableSlot **slot,
			   HeapTuple *htup, uint64 *key, bool *nokey)
{
	int			nc = gs->n_outer_keep;
	bool		read_back = gs->curbatch > 0 || gpuhash_split_joining(gs);

	*slot = NULL;
	*htup = NULL;
	for (;;)
	{
		int			b;
		MinimalTuple tup;

		if (!read_back && gs->oscan)
		{
			GpuScanNext r = gpuhash_heap_scan_next(gs->oscan, gs->key_econtext, htup);

			if (r != OS_TUPLE)
				return r;
			*nokey = !gpuhash_heap_key_fast(gs, gs->oscan, true, *htup, key);
			if (*nokey || gs->nbatch == 1 ||
				(b = gpuhash_batch_of(*key, gs->nbatch)) == 0)
				return OS_TUPLE;
			tup = outer_kept_tuple(gs, NULL, *htup);
			gpuhash_spill_write(gs, &gs->hb.outer_files[b], *key, false, tup);
			if (tup)
				pfree(tup);
		}
		else if (!read_back)
		{
			if (gs->first_outer != NULL)
			{
				*slot = gs->first_outer;
				gs->first_outer = NULL;
			}
			else
				*slot = ExecProcNode(gs->outer_ps);
			if (TupIsNull(*slot))
				return OS_END;
			*nokey = !gpuhash_row_key(gs, *slot, gs->outer_keys, true, key);
			if (*nokey || gs->nbatch == 1 ||
				(b = gpuhash_batch_of(*key, gs->nbatch)) == 0)
				return OS_TUPLE;
			tup = outer_kept_tuple(gs, *slot, NULL);
			gpuhash_spill_write(gs, &gs->hb.outer_files[b], *key, false, tup);
			if (tup)
				pfree(tup);
		}
		else
		{
			/* the tuple lives with the batch: its columns point into it */
			if (gs->curbatch == 0)
			{
				if (!gpuhash_split_next_outer(gs, pb->cxt, &tup, key, nokey))
					return OS_END;
			}
			else
			{
				BufFile    *file = gs->hb.outer_files[gs->curbatch];

				if (file == NULL || !gpuhash_spill_read(file, key, nokey, &tup, pb->cxt))
					return OS_END;
			}
			b = *nokey ? gs->curbatch : gpuhash_batch_of(*key, gs->nbatch);
			if (b != gs->curbatch)
			{
				/* the batches doubled since it was written */
				gpuhash_spill_write(gs, &gs->hb.outer_files[b], *key, false, tup);
				if (tup)
					pfree(tup);
				continue;
			}
			if (tup)
			{
				HeapTupleData ht;

				ht.t_len = tup->t_len + MINIMAL_TUPLE_OFFSET;
				ht.t_data = (HeapTupleHeader) ((char *) tup - MINIMAL_TUPLE_OFFSET);
				heap_deform_tuple(&ht, gs->outer_desc, pb->vals + (size_t) row * nc,
								  pb->nulls + (size_t) row * nc);
			}
			return OS_TUPLE;
		}
	}
}

/*
 * Can this batch be filled by the absorbed scan's page loop
 * (gpuhash_heap_scan_fill_keys)?  Only batch 0's rows from the pages, none
 * of them for a later hash batch's file, none needing a qual on a slot, and
 * no tuple read ahead before the build to hand out first.
 */
static inline bool
page_loop_fills(GpuJoinState *gs)
{
	return gs->oscan && gs->nbatch == 1 && gs->curbatch == 0 && gs->split == NULL &&
		gs->oscan->qual == NULL && !gs->oscan->pending;
}

/*
 * Is ring batch b filled from pages (page_scan.c)?  Not a batch past the
 * ring (keys alone, before the table exists).
 */
static inline bool
page_path_fills(GpuJoinState *gs, GpuProbeBatch *b)
{
	return gs->page != NULL && b >= gs->pb && b < gs->pb + gs->pb_depth &&
		gpuhash_page_usable(gs);
}

/* fill_batch's rows one at a time, in whatever form they come, up to cap. */
static void
fill_rows(GpuJoinState *gs, GpuProbeBatch *b, int cap)
{
	int			nc = gs->n_outer_keep;

	while (!gs->outer_done && b->n < cap)
	{
		TupleTableSlot *slot;
		HeapTuple	htup;
		uint64		key;
		bool		nokey;
		GpuScanNext r = next_outer_row(gs, b, b->n, &slot, &htup, &key, &nokey);

		if (r == OS_BATCH_FULL)
		{
			/* only kept rows pin pages: a full batch has rows (or the page path goes on) */
			Assert(b->n > 0 || gs->oscan->stop_at_page_end);
			break;
		}
		if (r == OS_END)
		{
			gs->outer_done = true;
			break;
		}
		if (!gpuhash_outer_row_wanted(gs, key, nokey))
			continue;
		if (slot != NULL)
			gpuhash_copy_row(slot, gs->outer_keep, nc, b->vals + (size_t) b->n * nc,
							 b->nulls + (size_t) b->n * nc, b->cxt);
		else if (htup != NULL && batch_rows_in_pages(gs))
		{
			gpuhash_heap_scan_keep_tuple(gs->oscan);
			b->tups[b->n] = *htup;
		}
		gpuhash_batch_add_key(b, key, nokey);
	}
}

/*
 * Fills probe batch b with up to batch_cap outer rows of this hash batch;
 * false when none came (the outer side is done).  Outer rows with a NULL
 * key match nothing: they are skipped, unless unmatched outer rows come out
 * (left, full, anti).
 */
static bool
fill_batch(GpuJoinState *gs, GpuProbeBatch *b)
{
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	if (gs->oscan)
		gpuhash_heap_scan_fill(gs->oscan, b);
	if (page_path_fills(gs, b))
	{
		GpuHeapScan *os = gs->oscan;

		/* a page the tuple path began (the row read before the build): its rows first */
		if (os->pending || os->index < os->ntuples)
		{
			os->stop_at_page_end = true;
			fill_rows(gs, b, gs->batch_cap);
			os->stop_at_page_end = false;
		}
		if (b->n == 0 && !gs->outer_done && !gpuhash_page_fill(gs, b))
			gs->outer_done = true;
		gs->stats.read_ms += gpuhash_ms_since(t0);
		return b->n > 0 || b->preq != NULL;
	}
	/*
	 * The tuple read before the build goes first, on its own (with the rows
	 * after it until one is kept); the page loop may then go on.
	 */
	if (gs->oscan && gs->oscan->pending && !gs->outer_done)
		fill_rows(gs, b, Min(b->n + 1, gs->batch_cap));
	if (!gs->outer_done && page_loop_fills(gs))
	{
		if (gpuhash_heap_scan_fill_keys(gs, gs->oscan, b, gs->batch_cap) == OS_END)
			gs->outer_done = true;
	}
	else
		fill_rows(gs, b, gs->batch_cap);
	gs->stats.read_ms += gpuhash_ms_since(t0);
	return b->n > 0;
}

/* The batches read past the ring during a parallel build go. */
static void
drop_prefill(GpuJoinState *gs)
{
	if (gs->prefill_cxt)
		MemoryContextReset(gs->prefill_cxt);
	gs->prefill = NULL;
	gs->n_prefill = gs->prefill_head = 0;
}

/* A batch emitted, or dropped: its rows, pins and probe go. */
static void
release_batch(GpuJoinState *gs, GpuProbeBatch *b)
{
	gpuhash_probe_abandon(gs, b);
	if (b->preq)
		gpuhash_page_release(gs, b);
	if (gs->oscan)
		gpuhash_heap_scan_batch_reset(gs->oscan, b);
	MemoryContextReset(b->cxt);
	b->n = 0;
	b->any_key = false;
	b->state = PB_FREE;
}

/* Every batch dropped (a rescan, the end of the scan). */
void
gpuhash_release_batches(GpuJoinState *gs)
{
	for (int i = 0; i < gs->pb_depth; i++)
		release_batch(gs, &gs->pb[i]);
	drop_prefill(gs);
	gs->cb = NULL;
	gs->pb_head = gs->pb_count = 0;
}

/* The ring's i-th batch after the oldest one not emitted. */
static inline GpuProbeBatch *
ring_batch(GpuJoinState *gs, int i)
{
	return &gs->pb[(gs->pb_head + i) % gs->pb_depth];
}

/* A filled batch's probe submitted; or, with nothing to look up, its ranges empty. */
static void
start_probe(GpuJoinState *gs, GpuProbeBatch *b)
{
	if (b->preq)
		gpuhash_page_submit(gs, b);
	else if (gs->n_inner > 0 && b->any_key)
		gpuhash_probe_submit(gs, b);
	else
	{
		/* no table, or no key to look up: nothing matches */
		memset(b->ranges, 0, sizeof(gh_range) * b->n);
		gs->stats.outer_rows += b->n;
		b->state = PB_READY;
	}
}

/* Are there outer rows left: read before (prefilled past the ring), or to read? */
static inline bool
more_outer(GpuJoinState *gs)
{
	return !gs->outer_done || gs->prefill_head < gs->n_prefill;
}

/*
 * The ring's next free batch filled and added to it; NULL when no row came.
 * Rows read past the ring while the table was built come first, in order.
 */
static GpuProbeBatch *
add_batch(GpuJoinState *gs)
{
	GpuProbeBatch *b = ring_batch(gs, gs->pb_count);

	if (gs->prefill_head < gs->n_prefill)
	{
		GpuProbeBatch *p = &gs->prefill[gs->prefill_head++];

		memcpy(b->keys, p->keys, sizeof(uint64) * p->n);
		memcpy(b->nokey, p->nokey, sizeof(bool) * p->n);
		b->n = p->n;
		b->any_key = p->any_key;
		b->state = PB_PREFILLED;
		if (gs->prefill_head == gs->n_prefill)
			drop_prefill(gs);
		gs->pb_count++;
		return b;
	}
	if (!fill_batch(gs, b))
	{
		release_batch(gs, b);
		return NULL;
	}
	gs->pb_count++;
	return b;
}

/*
 * How many batches of keys alone a participant may read past the ring while
 * the table is built: a quarter of its memory limit, at most
 * GPUHASH_MAX_PREFILL.
 */
static int
prefill_limit(GpuJoinState *gs)
{
	size_t		per = (size_t) gs->batch_cap * (sizeof(uint64) + sizeof(bool));

	return (int) Min((size_t) GPUHASH_MAX_PREFILL, gpuhash_memory_limit() / 4 / per);
}

/*
 * Past the ring: batches of keys, read while the elected participant is
 * still building the table.  The wait at the build barrier was a sixth of
 * each participant's time in a count(*) of lineitem JOIN orders at SF 10
 * (H200: 170 ms of a 1.0 s query, the first two batches read in 7 ms of it).
 * Only for a join that keeps no outer column: its rows are their keys, no
 * copies and no pinned pages; they go into the ring, oldest first, before
 * any new row is read (add_batch).
 */
static void
prefill_past_ring(GpuJoinState *gs)
{
	int			limit;

	if (gs->n_outer_keep > 0 || gs->outer_done || gs->split != NULL)
		return;
	limit = prefill_limit(gs);
	while (gs->n_prefill < limit && !gs->outer_done && !gpuhash_shared_table_published(gs))
	{
		GpuProbeBatch *p;

		if (gs->prefill == NULL)
		{
			if (gs->prefill_cxt == NULL)
				gs->prefill_cxt = AllocSetContextCreate(gs->cxt, "GpuHashJoin prefill",
														ALLOCSET_DEFAULT_SIZES);
			gs->prefill = MemoryContextAllocZero(gs->prefill_cxt, sizeof(GpuProbeBatch) * limit);
		}
		p = &gs->prefill[gs->n_prefill];
		if (p->keys == NULL)
		{
			/* fill_batch's arrays a row of which keeps no column needs */
			p->cxt = gs->prefill_cxt;
			p->keys = MemoryContextAllocHuge(gs->prefill_cxt, sizeof(uint64) * gs->batch_cap);
			p->nokey = MemoryContextAllocHuge(gs->prefill_cxt, sizeof(bool) * gs->batch_cap);
			/* filled next, while the table is built: mapped at once */
			gpuhash_prefault(p->keys, sizeof(uint64) * gs->batch_cap);
			gpuhash_prefault(p->nokey, sizeof(bool) * gs->batch_cap);
			p->vals = MemoryContextAlloc(gs->prefill_cxt, sizeof(Datum));
			p->nulls = MemoryContextAlloc(gs->prefill_cxt, sizeof(bool));
		}
		if (!fill_batch(gs, p))
			break;
		gs->n_prefill++;
		gs->stats.prefilled++;
	}
	/* these batches take no pins: the scan's next batch is the ring's */
	if (gs->oscan)
		gpuhash_heap_scan_fill(gs->oscan, NULL);
}

/*
 * A parallel participant waiting for another to build the shared table
 * (parallel.c) fills the first probe batches meanwhile, without the key
 * filter, which comes with the table; gpuhash_next_batch() submits their probes.
 */
void
gpuhash_prefill_batches(GpuJoinState *gs)
{
	GpuProbeBatch *b;

	/* a chain's level above the bottom: its outer side is a level below */
	if (gs->no_prefill)
		return;
	gpuhash_keyfilter_pause(gs);
	while (gs->pb_count < gs->pb_depth && !gs->outer_done &&
		   (b = add_batch(gs)) != NULL)
		b->state = PB_PREFILLED;
	prefill_past_ring(gs);
}

/*
 * The next probed batch to emit; false when the outer side is done.  The
 * pipeline: before waiting for the oldest batch's probe, the next batches
 * are filled and their probes submitted, so the service probes one batch
 * while this process reads the next.
 */
bool
gpuhash_next_batch(GpuJoinState *gs)
{
	GpuProbeBatch *b;
	instr_time	t0;

	if (gs->cb)
	{
		release_batch(gs, gs->cb);
		gs->cb = NULL;
	}
	for (int i = 0; i < gs->pb_count; i++)
	{
		b = ring_batch(gs, i);
		if (b->state == PB_PREFILLED)
			start_probe(gs, b);
	}
	while (gs->pb_count < gs->pb_depth && more_outer(gs) &&
		   (b = add_batch(gs)) != NULL)
		start_probe(gs, b);
	if (gs->pb_count == 0)
		return false;

	b = ring_batch(gs, 0);
	gs->pb_head = (gs->pb_head + 1) % gs->pb_depth;
	gs->pb_count--;
	if (b->state != PB_READY)
	{
		GpuSvcTimes before = gpuhash_svc_times;

		/* this batch and those submitted after it */
		gs->stats.in_flight_sum += 1 + gs->pb_count;
		INSTR_TIME_SET_CURRENT(t0);
		if (b->preq)
		{
			gpuhash_page_wait(gs, b);
			gs->stats.batches++;
			gs->stats.outer_rows += b->n;
		}
		else
			gpuhash_probe_wait(gs, b);
		gs->stats.wait_ms += gpuhash_ms_since(t0);
		gpuhash_svc_times_since(&gs->stats.svc, &before);
		gpuhash_shared_count_batch(gs, b->n);
		for (int i = 0; i < b->n; i++)
			if (b->nokey[i])
				b->ranges[i].count = 0;
	}
	gs->cb = b;
	if (gs->oscan)
		gpuhash_heap_scan_slot_clear(gs->oscan);
	return true;
}

/*
 * May a batch with no file on one side be skipped?  As nodeHashjoin.c
 * decides: a batch without inner rows yields only unmatched outer rows, one
 * without outer rows only unmatched inner rows; but a file written before
 * the batches doubled may hold rows that now belong to a later batch, and
 * must be read to move them there (an inner file once nbatch grew past
 * nbatch_original, an outer one once it grew after the outer rows began).
 * Skipping those lost a semi join's match at 64 batches (fuzzer seed 49).
 */
static bool
skip_batch(GpuJoinState *gs, BufFile *inner, BufFile *outer)
{
	if (inner != NULL && outer != NULL)
		return false;
	if (outer != NULL && (gs->fill_outer || gs->nbatch != gs->hb.nbatch_outstart))
		return false;
	if (inner != NULL && (gs->fill_inner || gs->nbatch != gs->hb.nbatch_original))
		return false;
	return true;
}

/*
 * After a hash batch: the next one that can yield rows (or must move its
 * rows on: skip_batch).  Its inner rows are read back and built, its outer
 * file becomes the outer side.
 */
bool
gpuhash_next_hash_batch(GpuJoinState *gs)
{
	while (gs->curbatch + 1 < gs->nbatch)
	{
		BufFile    *inner;
		BufFile    *outer;

		gpuhash_batches_advance(gs);
		inner = gs->hb.inner_files[gs->curbatch];
		outer = gs->hb.outer_files[gs->curbatch];
		if (skip_batch(gs, inner, outer))
			continue;
		if (inner)
			gpuhash_spill_rewind(inner);
		gpuhash_build_inner(gs);
		if (gs->hb.outer_files[gs->curbatch])
			gpuhash_spill_rewind(gs->hb.outer_files[gs->curbatch]);
		gs->outer_done = false;
		return true;
	}
	return false;
}

/* The ring filled up to `upto` batches of pages, each one's walk sent. */
static void
fill_pages_to(GpuJoinState *gs, int upto)
{
	GpuProbeBatch *b;

	while (gs->pb_count < upto && more_outer(gs) && (b = add_batch(gs)) != NULL)
		if (b->preq)
			gpuhash_page_submit(gs, b);
}

/*
 * A chain (chain.c) takes the bottom level's probe batches one at a time,
 * without its probes: the ring's oldest batch (filled while a parallel
 * table was built, or now); NULL when the outer side is done.
 */
GpuProbeBatch *
gpuhash_next_filled_batch(GpuJoinState *gs)
{
	GpuProbeBatch *b;

	if (gs->page != NULL && gpuhash_page_usable(gs))
	{
		instr_time	t0;

		/*
		 * Batches of pages: the ring kept full, each batch's pages walked
		 * (and the bottom's table probed) by the service while the next
		 * are read; the oldest one's rows are those that can join.  A
		 * deepened ring's last slot is the chain's to fill, while its
		 * request runs (gpuhash_fill_ahead).
		 */
		fill_pages_to(gs, gs->pb_depth > GPUHASH_PIPELINE ? gs->pb_depth - 1 : gs->pb_depth);
		if (gs->pb_count == 0)
			return NULL;
		b = ring_batch(gs, 0);
		if (b->preq && b->state != PB_READY)
		{
			GpuSvcTimes before = gpuhash_svc_times;

			INSTR_TIME_SET_CURRENT(t0);
			gpuhash_page_wait(gs, b);
			gs->stats.wait_ms += gpuhash_ms_since(t0);
			gpuhash_svc_times_since(&gs->stats.svc, &before);
		}
	}
	else if (gs->pb_count == 0 && add_batch(gs) == NULL)
		return NULL;
	b = ring_batch(gs, 0);
	b->state = PB_FILLED;
	gs->cb = b;
	if (gs->oscan)
		gpuhash_heap_scan_slot_clear(gs->oscan);
	return b;
}

/*
 * While the chain's request for the batch it took runs: the ring's last
 * slot filled with pages and its walk sent.  Nothing where the bottom does
 * not read pages now.
 */
void
gpuhash_fill_ahead(GpuJoinState *gs)
{
	if (gs->page != NULL && gpuhash_page_usable(gs))
		fill_pages_to(gs, gs->pb_depth);
}

/* ... and is done with it. */
void
gpuhash_batch_emitted(GpuJoinState *gs)
{
	GpuProbeBatch *b = gs->cb;

	gs->stats.batches++;
	gs->stats.outer_rows += b->n;
	gpuhash_shared_count_batch(gs, b->n);
	release_batch(gs, b);
	gs->cb = NULL;
	gs->pb_head = (gs->pb_head + 1) % gs->pb_depth;
	gs->pb_count--;
}

/*
 * A chain gives the batch it took back unprobed (its rows not emitted yet):
 * the bottom level probes it as a single join, from its next batch on.
 */
void
gpuhash_probe_batch_back(GpuJoinState *gs, GpuProbeBatch *b)
{
	/* a batch of pages: its rows and keys stay (its pins with them), probed by key */
	if (b->preq)
		gpuhash_page_release(gs, b);
	b->state = PB_FILLED;
	gs->cb = NULL;
}

/*
 * GJ_SPLIT_OUTER: a split parallel join (parallel_split.c).  This
 * participant's share of the outer side goes to the shared batches, unless
 * the others have written theirs already (then the outer side is done);
 * then everyone's is waited for.  Outer rows without a key go too where
 * they come out unmatched.
 */
GpuJoinPhase
gpuhash_split_outer(GpuJoinState *gs)
{
	if (!gpuhash_split_outer_begin(gs))
		return GJ_NEXT_SPLIT;
	for (;;)
	{
		TupleTableSlot *slot;
		HeapTuple	htup;
		uint64		key;
		bool		nokey;
		MinimalTuple tup;

		/* no probe batch takes pins: the scan never says OS_BATCH_FULL */
		if (next_outer_row(gs, NULL, 0, &slot, &htup, &key, &nokey) != OS_TUPLE)
			break;
		if (nokey && !gs->fill_outer)
			continue;
		tup = outer_kept_tuple(gs, slot, htup);
		gpuhash_split_put_outer(gs, tup, key, nokey);
		if (tup)
			pfree(tup);
	}
	gs->outer_done = true;
	gpuhash_split_outer_done(gs);
	return GJ_NEXT_SPLIT;
}
