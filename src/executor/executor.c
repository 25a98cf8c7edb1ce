/*-------------------------------------------------------------------------
 *
 * executor.c
 *	  Runs a GpuHashJoin: a state machine like nodeHashjoin.c's, one
 *	  enum (GpuJoinPhase, join_state.h) and one switch in exec_gpu_join.
 *
 *	  BUILD:       the scan starts.  Pseudoconstant quals, once: false, no
 *				   row at all.  Unless unmatched inner rows come out, read the
 *				   first outer row first: an empty outer side needs no table.
 *				   Run the inner plan to completion (hash batch 0 of it:
 *				   batch.c); keep each row's columns in node memory and its
 *				   64-bit key in an array (NULL keys never match an `=` join:
 *				   such rows are dropped, or kept apart for a right/full join
 *				   to emit); build the join table; reorder the kept rows by
 *				   the table's key-grouped rowid order, so a probe's range
 *				   [offset, offset + count) indexes them.
 *	  NEED_BATCH:  pull up to gpuhash.batch_rows outer rows of this hash
 *				   batch (columns copied, key encoded), probe them at once
 *				   for rowid ranges.  An absorbed outer scan (heap_scan.c)
 *				   hands out tuples in their pinned pages instead: only the
 *				   key is read, the kept columns when a row matches.
 *	  NEXT_OUTER:  the next outer row of the probe batch.
 *	  SCAN_RANGE:  each inner row of its range: the join filter (for
 *				   fingerprint keys, first the keys' own equality) decides a
 *				   match; a match marks the inner row for right/full, ends
 *				   the row for semi/anti; the filter on joined rows decides
 *				   what comes out.
 *	  FILL_OUTER:  left/full/anti: an outer row without a match, NULL-extended.
 *	  FILL_INNER:  right/full: the inner rows never matched, NULL-extended.
 *	  NEW_BATCH:   the next hash batch: its inner rows from their file,
 *				   built; its outer file becomes the outer side.
 *	  DONE
 *
 *	  A failed GPU call falls back to the host twin for this join (with a
 *	  NOTICE), or is an ERROR when gpuhash.device is "gpu".  The join table
 *	  is freed at end, at a rescan that changes a parameter the inner plan
 *	  or the inner key expressions read (it is then rebuilt), and through a
 *	  memory context callback when the query errors out or is cancelled.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "scan/page_scan.h"

#include "executor/executor.h"
#include "access/htup_details.h"
#include "common/hashfn.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "nodes/nodeFuncs.h"
#include "utils/datum.h"
#include "utils/memutils.h"

static TupleTableSlot *exec_gpu_join(CustomScanState *node);
static void end_gpu_join(CustomScanState *node);
static void rescan_gpu_join(CustomScanState *node);

static const CustomExecMethods gpuhash_exec_methods = {
	.CustomName = GPUHASH_NODE_NAME,
	.BeginCustomScan = gpuhash_begin_join,
	.ExecCustomScan = exec_gpu_join,
	.EndCustomScan = end_gpu_join,
	.ReScanCustomScan = rescan_gpu_join,
	.EstimateDSMCustomScan = gpuhash_estimate_dsm,
	.InitializeDSMCustomScan = gpuhash_init_dsm,
	.ReInitializeDSMCustomScan = gpuhash_reinit_dsm,
	.InitializeWorkerCustomScan = gpuhash_init_worker,
	.ShutdownCustomScan = gpuhash_shutdown,
	.ExplainCustomScan = gpuhash_explain,
};

Node *
gpuhash_create_scan_state(CustomScan *cscan)
{
	GpuJoinState *gs = palloc0(sizeof(GpuJoinState));

	NodeSetTag(gs, T_CustomScanState);
	gs->css.methods = &gpuhash_exec_methods;
	gs->css.flags = cscan->flags;
	return (Node *) gs;
}

/* Is this plan state a GpuHashJoin's? */
bool
gpuhash_is_join_state(PlanState *ps)
{
	return ps != NULL && IsA(ps, CustomScanState) &&
		((CustomScanState *) ps)->methods == &gpuhash_exec_methods;
}


/*
 * Are the probe batch's rows heap tuples in pinned pages (batch_tups)?  Those
 * of hash batch 0 of an absorbed scan whose columns the join emits.
 */
static inline bool
batch_rows_in_pages(GpuJoinState *gs)
{
	return gs->oscan && gs->oscan->keep_rows && gs->curbatch == 0 && gs->split == NULL;
}

bool
gpuhash_batch_rows_in_pages(GpuJoinState *gs)
{
	return batch_rows_in_pages(gs);
}

/* The inner columns of the scan tuple: inner row `inner`, or NULL (-1). */
static inline void
store_inner_columns(GpuJoinState *gs, Datum *sv, bool *sn, int64 inner)
{
	sv += gs->n_outer_cols;
	sn += gs->n_outer_cols;
	if (inner >= 0 && gs->n_inner_keep > 0)
	{
		const Datum *iv;
		const bool *in;

		gpuhash_inner_row(gs, (uint64) inner, &iv, &in);
		for (int k = 0; k < gs->n_inner_keep; k++)
		{
			sv[gs->inner_keep[k]] = iv[k];
			sn[gs->inner_keep[k]] = in[k];
		}
	}
	else if (inner < 0)
	{
		for (int k = 0; k < gs->n_inner_keep; k++)
			sn[gs->inner_keep[k]] = true;
	}
}

/*
 * The scan tuple: outer columns, then inner columns.  A side given as -1
 * is NULL (a NULL-extended row of an outer join).
 */
void
gpuhash_store_row(GpuJoinState *gs, int64 outer_row, int64 inner)
{
	TupleTableSlot *slot = gs->css.ss.ss_ScanTupleSlot;
	Datum	   *sv = slot->tts_values;
	bool	   *sn = slot->tts_isnull;

	/* nothing reads the joined row (a count(*) over the join): none is formed */
	if (gs->forms_no_rows)
		return;
	ExecClearTuple(slot);
	if (outer_row >= 0 && batch_rows_in_pages(gs))
	{
		GpuHeapScan *os = gs->oscan;
		TupleTableSlot *hs = os->slot;

		/* late materialisation: the matched row is deformed from its page */
		if (os->slot_row != outer_row)
		{
			ExecStoreHeapTuple(&gs->cb->tups[outer_row], hs, false);
			slot_getsomeattrs(hs, os->max_keep);
			os->slot_row = outer_row;
		}
		for (int k = 0; k < gs->n_outer_keep; k++)
		{
			sv[gs->outer_keep[k]] = hs->tts_values[os->heap_keep[k]];
			sn[gs->outer_keep[k]] = hs->tts_isnull[os->heap_keep[k]];
		}
	}
	else if (outer_row >= 0)
	{
		const Datum *ov = gs->cb->vals + outer_row * gs->n_outer_keep;
		const bool *on = gs->cb->nulls + outer_row * gs->n_outer_keep;

		for (int k = 0; k < gs->n_outer_keep; k++)
		{
			sv[gs->outer_keep[k]] = ov[k];
			sn[gs->outer_keep[k]] = on[k];
		}
	}
	else
	{
		for (int k = 0; k < gs->n_outer_keep; k++)
			sn[gs->outer_keep[k]] = true;
	}
	store_inner_columns(gs, sv, sn, inner);
	ExecStoreVirtualTuple(slot);
}

/*
 * The same, with the outer columns taken from a row of the level below
 * (a chain: chain.c).
 */
void
gpuhash_store_row_from(GpuJoinState *gs, TupleTableSlot *outer, int64 inner)
{
	TupleTableSlot *slot = gs->css.ss.ss_ScanTupleSlot;
	Datum	   *sv = slot->tts_values;
	bool	   *sn = slot->tts_isnull;

	ExecClearTuple(slot);
	if (gs->n_outer_keep > 0)
		slot_getsomeattrs(outer, gs->outer_keep[gs->n_outer_keep - 1] + 1);
	for (int k = 0; k < gs->n_outer_keep; k++)
	{
		sv[gs->outer_keep[k]] = outer->tts_values[gs->outer_keep[k]];
		sn[gs->outer_keep[k]] = outer->tts_isnull[gs->outer_keep[k]];
	}
	store_inner_columns(gs, sv, sn, inner);
	ExecStoreVirtualTuple(slot);
}

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
		gs->oscan->slot_row = -1;
		return gpuhash_form_kept_tuple(gs, gs->oscan->slot, gs->oscan->heap_keep,
									   gs->n_outer_keep, gs->outer_desc);
	}
	return gpuhash_form_kept_tuple(gs, slot, gs->outer_keep, gs->n_outer_keep, gs->outer_desc);
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
			gpuhash_spill_write(gs, &gs->outer_files[b], *key, false, tup);
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
			gpuhash_spill_write(gs, &gs->outer_files[b], *key, false, tup);
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
				BufFile    *file = gs->outer_files[gs->curbatch];

				if (file == NULL || !gpuhash_spill_read(file, key, nokey, &tup, pb->cxt))
					return OS_END;
			}
			b = *nokey ? gs->curbatch : gpuhash_batch_of(*key, gs->nbatch);
			if (b != gs->curbatch)
			{
				/* the batches doubled since it was written */
				gpuhash_spill_write(gs, &gs->outer_files[b], *key, false, tup);
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
	return gs->page != NULL && b >= gs->pb && b < gs->pb + GPUHASH_PIPELINE &&
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
static void
release_batches(GpuJoinState *gs)
{
	for (int i = 0; i < GPUHASH_PIPELINE; i++)
		release_batch(gs, &gs->pb[i]);
	drop_prefill(gs);
	gs->cb = NULL;
	gs->pb_head = gs->pb_count = 0;
}

/* The ring's i-th batch after the oldest one not emitted. */
static inline GpuProbeBatch *
ring_batch(GpuJoinState *gs, int i)
{
	return &gs->pb[(gs->pb_head + i) % GPUHASH_PIPELINE];
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
 * filter, which comes with the table; next_batch() submits their probes.
 */
void
gpuhash_prefill_batches(GpuJoinState *gs)
{
	GpuProbeBatch *b;

	/* a chain's level above the bottom: its outer side is a level below */
	if (gs->no_prefill)
		return;
	gs->kf_on = false;
	while (gs->pb_count < GPUHASH_PIPELINE && !gs->outer_done &&
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
static bool
next_batch(GpuJoinState *gs)
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
	while (gs->pb_count < GPUHASH_PIPELINE && more_outer(gs) &&
		   (b = add_batch(gs)) != NULL)
		start_probe(gs, b);
	if (gs->pb_count == 0)
		return false;

	b = ring_batch(gs, 0);
	gs->pb_head = (gs->pb_head + 1) % GPUHASH_PIPELINE;
	gs->pb_count--;
	if (b->state != PB_READY)
	{
		/* this batch and those submitted after it */
		gs->stats.in_flight_sum += 1 + gs->pb_count;
		INSTR_TIME_SET_CURRENT(t0);
		if (b->preq)
			gpuhash_page_wait(gs, b);
		else
			gpuhash_probe_wait(gs, b);
		gs->stats.wait_ms += gpuhash_ms_since(t0);
		gpuhash_shared_count_batch(gs, b->n);
		for (int i = 0; i < b->n; i++)
			if (b->nokey[i])
				b->ranges[i].count = 0;
	}
	gs->cb = b;
	if (gs->oscan)
		gs->oscan->slot_row = -1;
	gs->cur = -1;
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
	if (outer != NULL && (gs->fill_outer || gs->nbatch != gs->nbatch_outstart))
		return false;
	if (inner != NULL && (gs->fill_inner || gs->nbatch != gs->nbatch_original))
		return false;
	return true;
}

/*
 * After a hash batch: the next one that can yield rows (or must move its
 * rows on: skip_batch).  Its inner rows are read back and built, its outer
 * file becomes the outer side.
 */
static bool
next_hash_batch(GpuJoinState *gs)
{
	while (gs->curbatch + 1 < gs->nbatch)
	{
		int			prev = gs->curbatch++;
		BufFile    *inner;
		BufFile    *outer;

		if (gs->inner_files[prev])
			BufFileClose(gs->inner_files[prev]);
		if (gs->outer_files[prev])
			BufFileClose(gs->outer_files[prev]);
		gs->inner_files[prev] = gs->outer_files[prev] = NULL;

		inner = gs->inner_files[gs->curbatch];
		outer = gs->outer_files[gs->curbatch];
		if (skip_batch(gs, inner, outer))
			continue;
		if (inner)
			gpuhash_spill_rewind(inner);
		gpuhash_build_inner(gs);
		if (gs->outer_files[gs->curbatch])
			gpuhash_spill_rewind(gs->outer_files[gs->curbatch]);
		gs->outer_done = false;
		gs->cur = -1;
		return true;
	}
	return false;
}

/* The empty row a count(*) reads: stored once, returned as is. */
static inline TupleTableSlot *
empty_row(GpuJoinState *gs)
{
	TupleTableSlot *slot = gs->css.ss.ps.ps_ResultTupleSlot;

	if (TTS_EMPTY(slot))
		ExecStoreVirtualTuple(slot);
	return slot;
}

/* The row in the scan slot passed: the filter on joined rows decides. */
static TupleTableSlot *
emit(GpuJoinState *gs, ExprContext *econtext)
{
	CustomScanState *node = &gs->css;

	if (gs->forms_no_rows)
		return empty_row(gs);

	if (gs->filter == NULL || ExecQual(gs->filter, econtext))
	{
		if (node->ss.ps.ps_ProjInfo == NULL)
			return node->ss.ss_ScanTupleSlot;
		return ExecProject(node->ss.ps.ps_ProjInfo);
	}
	InstrCountFiltered1(node, 1);
	ResetExprContext(econtext);
	return NULL;
}

/* The last hash batch is over: a split parallel join's next shared batch, or the end. */
static inline GpuJoinPhase
after_last_batch(GpuJoinState *gs)
{
	return gs->split ? GJ_NEXT_SPLIT : GJ_DONE;
}

/* A hash batch is over: the next one, or the end. */
static GpuJoinPhase
batch_done(GpuJoinState *gs)
{
	return gs->curbatch + 1 < gs->nbatch ? GJ_NEW_BATCH : after_last_batch(gs);
}

/* The end of this participant's outer side: on to the unmatched inner rows? */
void
gpuhash_end_probe(GpuJoinState *gs)
{
	bool		fill = gs->fill_inner;

	if (gs->oscan)
	{
		/* this scan's figures: summed over participants below */
		gs->stats.scan_pages += gs->oscan->pages;
		gs->stats.scan_page_ms += gs->oscan->page_ms;
		gs->stats.scan_filtered += gs->oscan->filtered;
		gs->oscan->pages = gs->oscan->filtered = 0;
		gs->oscan->page_ms = 0;
	}
	if (gs->shared)
	{
		gpuhash_shared_add_counts(gs);
		/* one table for all: the last participant to probe it fills */
		if (gpuhash_shares_table(gs))
			fill = gpuhash_shared_probe_done(gs) && fill;
	}
	gs->phase = fill ? GJ_FILL_INNER : batch_done(gs);
	gs->fill_pos = 0;
}

/*
 * GJ_BUILD: the start of a scan.  Pseudoconstant quals (WHERE now() IS NULL
 * above the join) decide once per scan whether any row comes out, as a
 * gating Result would.  Then, as nodeHashjoin.c: an empty outer side needs
 * no table (and must not raise the errors its inner keys could), unless the
 * unmatched inner rows come out; parallel participants build together.  A
 * table kept from an earlier scan is probed again.
 */
static GpuJoinPhase
start_scan(GpuJoinState *gs, ExprContext *econtext)
{
	if (gs->gate != NULL && !ExecQual(gs->gate, econtext))
	{
		ResetExprContext(econtext);
		return GJ_DONE;
	}
	if (!gs->built && gs->split == NULL)
	{
		if (!gs->fill_inner && gs->shared == NULL && gs->oscan)
		{
			HeapTuple	first;

			/* the first tuple stays the scan's next one */
			if (gpuhash_heap_scan_next(gs->oscan, gs->key_econtext, &first) == OS_END)
				return GJ_DONE;
			gs->oscan->pending = true;
		}
		else if (!gs->fill_inner && gs->shared == NULL)
		{
			gs->first_outer = ExecProcNode(gs->outer_ps);
			if (TupIsNull(gs->first_outer))
			{
				gs->first_outer = NULL;
				return GJ_DONE;
			}
		}
		if (gs->shared)
			gpuhash_shared_build(gs);
		else
			gpuhash_build_inner(gs);
	}
	/* too large for all participants: split into shared batches */
	if (gs->split)
		return GJ_SPLIT_OUTER;

	/*
	 * An empty inner side joins nothing: then the outer side need not be
	 * read (unless later hash batches have inner rows).
	 */
	if (gs->n_inner == 0 && !gs->fill_outer && gs->nbatch == 1)
	{
		gpuhash_end_probe(gs);
		return gs->phase;
	}
	return GJ_NEED_BATCH;
}

GpuJoinPhase
gpuhash_start_scan(GpuJoinState *gs)
{
	return start_scan(gs, gs->css.ss.ps.ps_ExprContext);
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

	if (gs->pb_count == 0 && add_batch(gs) == NULL)
		return NULL;
	b = ring_batch(gs, 0);
	b->state = PB_FILLED;
	gs->cb = b;
	if (gs->oscan)
		gs->oscan->slot_row = -1;
	return b;
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
	gs->pb_head = (gs->pb_head + 1) % GPUHASH_PIPELINE;
	gs->pb_count--;
}

/*
 * How many outer rows ahead of the one being emitted the rows it will touch
 * are prefetched.  A match reads its inner row at a random place in the
 * kept rows and its outer tuple in a page read a batch ago: without
 * prefetching, each is a cache miss that the emit loop waits on.
 */
#define PREFETCH_AHEAD 12

/*
 * Starts loading what emitting outer row i will read.  (A statement here,
 * not a function: GCC deems a function of prefetches alone free of effects
 * and drops its calls.)
 */
#define PREFETCH_ROW(gs, i) \
	do { \
		GpuProbeBatch *pb_ = (gs)->cb; \
		int			i_ = (i); \
		if (i_ < pb_->n) \
		{ \
			if (pb_->ranges[i_].count > 0) \
				GPUHASH_PREFETCH_INNER_ROW((gs), pb_->ranges[i_].offset); \
			if (batch_rows_in_pages(gs) && (pb_->ranges[i_].count > 0 || (gs)->fill_outer)) \
				gpuhash_prefetch(pb_->tups[i_].t_data); \
		} \
	} while (0)

/* GJ_NEXT_OUTER: the batch's next outer row with matches (any, when filling). */
static GpuJoinPhase
next_outer(GpuJoinState *gs)
{
	if (gs->cur < 0)
	{
		/* a new batch: the first rows' loads start together */
		for (int i = 0; i < PREFETCH_AHEAD; i++)
			PREFETCH_ROW(gs, i);
	}
	do
	{
		gs->cur++;
		PREFETCH_ROW(gs, gs->cur + PREFETCH_AHEAD);
		/* a shared inner row: its pointer is in by now, then the row */
		if (gs->shared_rowptrs && gs->n_inner_keep > 0 &&
			gs->cur + PREFETCH_AHEAD / 2 < gs->cb->n)
		{
			const gh_range *r = &gs->cb->ranges[gs->cur + PREFETCH_AHEAD / 2];

			if (r->count > 0)
				gpuhash_prefetch(dsa_get_address(gs->shared_area, gs->shared_rowptrs[r->offset]));
		}
	} while (!gs->fill_outer && gs->cur < gs->cb->n &&
			 gs->cb->ranges[gs->cur].count == 0);
	if (gs->cur >= gs->cb->n)
		return GJ_NEED_BATCH;
	gs->cur_match = 0;
	gs->cur_matched = false;
	return GJ_SCAN_RANGE;
}

/* scan_range's work on the current outer row's range: a joined row, or NULL. */
static inline TupleTableSlot *
scan_one_range(GpuJoinState *gs, ExprContext *econtext, bool anti)
{
	gh_range   *r = &gs->cb->ranges[gs->cur];
	TupleTableSlot *out;

	while (gs->cur_match < r->count)
	{
		uint64		row = (uint64) r->offset + gs->cur_match++;

		/* a key can have millions of rows: stay cancellable */
		CHECK_FOR_INTERRUPTS();
		gpuhash_store_row(gs, gs->cur, (int64) row);
		if (gs->qual != NULL && !ExecQual(gs->qual, econtext))
		{
			InstrCountFiltered2(&gs->css, 1);
			ResetExprContext(econtext);
			continue;
		}
		gs->cur_matched = true;
		if (gs->fill_inner)
			gpuhash_inner_mark(gs, row);
		if (anti || gs->info.single_match)
			gs->cur_match = r->count;
		if (anti)
			continue;
		if ((out = emit(gs, econtext)) != NULL)
			return out;
	}
	return NULL;
}

/*
 * A count(*) over an inner or semi join (gs->bare_matches): the batch's next
 * match, the current range's or a later row's, comes out as the same empty
 * row without a turn of the state machine; false when the batch has none
 * left.  Each joined row is usually its outer row's only match: the
 * dispatch through scan_range and next_outer per row cost about a sixth of
 * such a join's backend time (perf, host twin, SF 1).
 */
static inline bool
next_bare_match(GpuJoinState *gs)
{
	GpuProbeBatch *b = gs->cb;
	uint32		count = b->ranges[gs->cur].count;

	if (gs->cur_match < count)
	{
		gs->cur_match = gs->info.single_match ? count : gs->cur_match + 1;
		return true;
	}
	while (++gs->cur < b->n)
	{
		count = b->ranges[gs->cur].count;
		if (count > 0)
		{
			gs->cur_match = gs->info.single_match ? count : 1;
			return true;
		}
	}
	return false;
}

/* next_bare_match's row, or NULL with the batch done. */
static inline TupleTableSlot *
next_bare_row(GpuJoinState *gs)
{
	if (next_bare_match(gs))
		return empty_row(gs);
	gs->phase = GJ_NEED_BATCH;
	return NULL;
}

/*
 * A count(*)'s next match where a range is being scanned (next_bare_row),
 * or NULL: the shortcut both entries take before the state machine.
 */
static inline TupleTableSlot *
bare_row_ready(GpuJoinState *gs)
{
	return gs->phase == GJ_SCAN_RANGE && gs->bare_matches ? next_bare_row(gs) : NULL;
}

/*
 * GJ_SCAN_RANGE: the current outer row against each inner row of its range.
 * The join filter decides a match; a match marks the inner row (right,
 * full), ends the row (anti: no row; semi or a unique inner side: one is
 * all).  Returns a joined row, or NULL once the phase changes.  A range
 * done goes on to the batch's next outer row with matches here, not through
 * a turn of the state machine: most joined rows are one outer row's only
 * match, and two dispatches a row cost a tenth of the node's own share of
 * a count(*) join's backend time on the host twin (perf, SF 1).
 */
static TupleTableSlot *
scan_range(GpuJoinState *gs, ExprContext *econtext)
{
	bool		anti = gs->info.jointype == JOIN_ANTI;
	TupleTableSlot *out;

	for (;;)
	{
		if ((out = scan_one_range(gs, econtext, anti)) != NULL)
			return out;
		/* the row's matches are done: unmatched, it may come out alone */
		if (gs->fill_outer && !gs->cur_matched)
		{
			gs->phase = GJ_FILL_OUTER;
			return NULL;
		}
		if ((gs->phase = next_outer(gs)) != GJ_SCAN_RANGE)
			return NULL;
	}
}

/* GJ_FILL_INNER: the next inner row of this batch never matched, or NULL. */
static TupleTableSlot *
fill_inner(GpuJoinState *gs, ExprContext *econtext)
{
	while (gs->fill_pos < gs->n_inner_all && gpuhash_inner_matched(gs, gs->fill_pos))
		gs->fill_pos++;
	if (gs->fill_pos >= gs->n_inner_all)
	{
		gs->phase = batch_done(gs);
		return NULL;
	}
	gpuhash_store_row(gs, -1, (int64) gs->fill_pos++);
	return emit(gs, econtext);
}

/*
 * GJ_SPLIT_OUTER: a split parallel join (parallel_split.c).  This
 * participant's share of the outer side goes to the shared batches, unless
 * the others have written theirs already (then the outer side is done);
 * then everyone's is waited for.  Outer rows without a key go too where
 * they come out unmatched.
 */
static GpuJoinPhase
split_outer(GpuJoinState *gs)
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

/*
 * The phases that start a scan or a batch: BUILD, NEW_BATCH, and a split
 * parallel join's SPLIT_OUTER and NEXT_SPLIT.  Their time is start time
 * under EXPLAIN ANALYZE, not emit time.
 */
static GpuJoinPhase
start_step(GpuJoinState *gs, ExprContext *econtext)
{
	GpuJoinPhase next;
	instr_time	t0;
	double		read_before = gs->stats.read_ms;

	INSTR_TIME_SET_CURRENT(t0);
	switch (gs->phase)
	{
		case GJ_BUILD:
			next = start_scan(gs, econtext);
			break;
		case GJ_NEW_BATCH:
			next = next_hash_batch(gs) ? GJ_NEED_BATCH : after_last_batch(gs);
			break;
		case GJ_SPLIT_OUTER:
			next = split_outer(gs);
			break;
		default:
			Assert(gs->phase == GJ_NEXT_SPLIT);
			next = gpuhash_split_next_batch(gs) ? GJ_NEED_BATCH : GJ_DONE;
			break;
	}
	/* outer rows read meanwhile (a parallel build's prefill) are read time */
	gs->stats.start_ms += gpuhash_ms_since(t0) - (gs->stats.read_ms - read_before);
	return next;
}

/*
 * The node's state machine (join_state.h's GpuJoinPhase), one step per
 * turn of the loop, until a row comes out or the join is done.
 */
static TupleTableSlot *
exec_gpu_join_steps(GpuJoinState *gs)
{
	CustomScanState *node = &gs->css;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *out;

	/* the top of a chain: fused, the chain forms the rows (chain.c) */
	if (gs->chain && gpuhash_chain_step(gs, &out))
		return out;
	if ((out = bare_row_ready(gs)) != NULL)
		return out;
	/* the last row's memory: usually none (a call per row saved) */
	if (!econtext->ecxt_per_tuple_memory->isReset)
		ResetExprContext(econtext);
	econtext->ecxt_scantuple = node->ss.ss_ScanTupleSlot;
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		switch (gs->phase)
		{
			case GJ_BUILD:
			case GJ_NEW_BATCH:
			case GJ_SPLIT_OUTER:
			case GJ_NEXT_SPLIT:
				gs->phase = start_step(gs, econtext);
				break;
			case GJ_NEED_BATCH:
				if (next_batch(gs))
					gs->phase = GJ_NEXT_OUTER;
				else
					gpuhash_end_probe(gs);
				break;
			case GJ_NEXT_OUTER:
				gs->phase = next_outer(gs);
				break;
			case GJ_SCAN_RANGE:
				if ((out = scan_range(gs, econtext)) != NULL)
					return out;
				break;
			case GJ_FILL_OUTER:
				gs->phase = GJ_NEXT_OUTER;
				gpuhash_store_row(gs, gs->cur, -1);
				if ((out = emit(gs, econtext)) != NULL)
					return out;
				break;
			case GJ_FILL_INNER:
				if ((out = fill_inner(gs, econtext)) != NULL)
					return out;
				break;
			case GJ_DONE:
				return NULL;
		}
	}
}

/*
 * The node's state machine (join_state.h's GpuJoinPhase), one step per
 * turn of the loop, until a row comes out or the join is done.  Under
 * EXPLAIN ANALYZE, the time of a call beyond reading, probing and starting
 * a scan or hash batch (the build, a parallel plan's barrier) is the emit
 * time: matching ranges, forming rows, the join's quals.
 */
static TupleTableSlot *
exec_gpu_join(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinStats *st = &gs->stats;
	TupleTableSlot *out;
	instr_time	t0;
	double		other;

	/* two clock reads a row: only where EXPLAIN ANALYZE shows times */
	if (node->ss.ps.instrument == NULL || !node->ss.ps.instrument->need_timer)
	{
		/*
		 * A count(*)'s next match with no chain above (as in
		 * exec_gpu_join_steps), without the call into the state machine:
		 * the node's own code was 36.5 ns an outer row of a parallel
		 * count(*) join on the H100, 14 ns of it the state machine's
		 * entry, its dispatch and emit, which this path skips.
		 */
		if (gs->chain == NULL && (out = bare_row_ready(gs)) != NULL)
			return out;
		return exec_gpu_join_steps(gs);
	}
	other = st->read_ms + st->wait_ms + st->start_ms;
	INSTR_TIME_SET_CURRENT(t0);
	out = exec_gpu_join_steps(gs);
	st->emit_ms += gpuhash_ms_since(t0) - (st->read_ms + st->wait_ms + st->start_ms - other);
	return out;
}

/* ---------------------------------------------------------------------
 * End and rescan
 * --------------------------------------------------------------------- */

static void
end_gpu_join(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;

	release_batches(gs);
	gpuhash_free_table(gs);
	gpuhash_batch_files_close(gs);
	if (gs->oscan)
		gpuhash_heap_scan_end(gs->oscan);
	else
		ExecEndNode(gs->outer_ps);
	if (gs->iscan)
		gpuhash_heap_scan_end(gs->iscan);
	else
		ExecEndNode(gs->inner_ps);
}

/*
 * Custom children are not known to ExecReScan: pass changed parameters
 * down ourselves.  A child with changed parameters rescans itself on its
 * next ExecProcNode; the join table is rebuilt only when the inner side's
 * parameters changed, as nodeHashjoin.c does.
 */
static void
rescan_gpu_join(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	Bitmapset  *chg = node->ss.ps.chgParam;

	/* the batches of the last scan, and their probes in flight, go */
	release_batches(gs);
	/* and an inner page walk's table, should a read have stopped short */
	gpuhash_page_inner_release(gs);
	if (gs->chain)
		gpuhash_chain_rescan(gs);
	if (chg)
	{
		if (gs->outer_ps)
			UpdateChangedParamSet(gs->outer_ps, chg);
		if (gs->inner_ps)
			UpdateChangedParamSet(gs->inner_ps, chg);
	}
	if ((gs->inner_ps && gs->inner_ps->chgParam != NULL) || gs->shared)
	{
		/* a parallel plan's shared table is rebuilt with its shared state */
		gpuhash_free_table(gs);
		gs->built = false;
		/* ... and a split one's batches (parallel.c deletes their files) */
		gpuhash_split_forget(gs);
		if (gs->shared)
			gpuhash_inner_forget(gs);

		/*
		 * The inner rows are read again: a child with changed parameters
		 * rescans itself, any other only when told.  (A parallel join's
		 * inner HashAggregate, untold, handed its reader no row on a
		 * Gather's rescan, and every later scan joined nothing: fuzzer
		 * seed 175.)
		 */
		if (gs->inner_ps && gs->inner_ps->chgParam == NULL)
			ExecReScan(gs->inner_ps);
	}
	else if (!gs->built || gs->nbatch > 1 || bms_overlap(chg, gs->inner_key_params))
	{
		/*
		 * The same inner rows, but keys (or an absorbed inner scan's quals)
		 * that read a changed parameter; or a table of one batch among
		 * several: as nodeHashjoin.c, start over.
		 */
		gpuhash_free_table(gs);
		gs->built = false;
		if (gs->inner_ps)
			ExecReScan(gs->inner_ps);
	}
	if (!gs->built)
	{
		if (gs->iscan)
			gpuhash_heap_scan_rescan(gs->iscan);
		gpuhash_batch_files_close(gs);
		gs->curbatch = 0;
		gs->grow_enabled = gs->can_batch;
	}
	/*
	 * A chain's level below is never pulled through ExecProcNode while the
	 * chain runs fused, which would rescan it for changed parameters: it is
	 * rescanned now.
	 */
	if (gs->oscan)
		gpuhash_heap_scan_rescan(gs->oscan);
	else if (gs->outer_ps->chgParam == NULL || gs->outer_is_level)
		ExecReScan(gs->outer_ps);

	/* a kept table starts over unmatched, as nodeHashjoin.c resets match flags */
	if (gs->built && gs->matched)
		memset(gs->matched, 0, sizeof(uint32) * gpuhash_matched_words(gs));
	gs->outer_done = false;
	gs->first_outer = NULL;
	gs->cur = -1;
	gs->cur_match = 0;
	gs->cur_matched = false;
	gs->kf_on = gs->kf_words != NULL;
	gs->kf_tested = gs->kf_passed = 0;
	gs->phase = GJ_BUILD;
	gs->fill_pos = 0;
}
