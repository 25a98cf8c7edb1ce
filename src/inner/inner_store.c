/*-------------------------------------------------------------------------
 *
 * inner_store.c
 *	  The inner rows a GpuHashJoin keeps.  Read from the inner plan (hash
 *	  batch 0) or from a batch's file; each row's kept columns formed once,
 *	  as a MinimalTuple in blocks of the store's memory, as nodeHash.c keeps
 *	  its tuples; kept in arrival order with their keys, a right/full join's
 *	  NULL-key rows behind them; moved out to batch files
 *	  when they outgrow the join's memory limit (batch.c); reordered by the
 *	  table's key-grouped rowid order; and row k for emission, a parallel
 *	  plan's shared rows included.  For parallel plans it publishes the rows
 *	  in the query's DSA and lays out the shared match bits (parallel.c
 *	  coordinates who does what, and when).
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "scan/page_scan.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/memutils.h"

/*
 * A block of kept inner tuples, carved in arrival order: one allocation
 * for many rows, as nodeHash.c's dense chunks, so that a row costs its
 * tuple and no allocator's header.
 */
typedef struct GpuRowBlock
{
	struct GpuRowBlock *next;	/* the block filled before */
	Size		used;
	Size		size;
} GpuRowBlock;

#define ROW_BLOCK_DATA(b) ((char *) (b) + MAXALIGN(sizeof(GpuRowBlock)))
#define ROW_BLOCK_SIZE ((Size) 256 * 1024)

/* Room for a tuple of len bytes in the store's newest block. */
static MinimalTuple
row_alloc(GpuJoinState *gs, Size len)
{
	GpuRowBlock *b = gs->row_blocks;
	char	   *p;

	len = MAXALIGN(len);
	if (len > ROW_BLOCK_SIZE / 4)
	{
		/* a large tuple: a block of its own, behind the one being filled */
		b = MemoryContextAllocHuge(gs->inner_cxt, MAXALIGN(sizeof(GpuRowBlock)) + len);
		gpuhash_prefault(b, MAXALIGN(sizeof(GpuRowBlock)) + len);
		b->used = b->size = len;
		if (gs->row_blocks)
		{
			b->next = gs->row_blocks->next;
			gs->row_blocks->next = b;
		}
		else
		{
			b->next = NULL;
			gs->row_blocks = b;
		}
		return (MinimalTuple) ROW_BLOCK_DATA(b);
	}
	if (b == NULL || b->size - b->used < len)
	{
		b = MemoryContextAlloc(gs->inner_cxt, MAXALIGN(sizeof(GpuRowBlock)) + ROW_BLOCK_SIZE);
		/* the block is filled next: its pages mapped at once */
		gpuhash_prefault(b, MAXALIGN(sizeof(GpuRowBlock)) + ROW_BLOCK_SIZE);
		b->used = 0;
		b->size = ROW_BLOCK_SIZE;
		b->next = gs->row_blocks;
		gs->row_blocks = b;
	}
	p = ROW_BLOCK_DATA(b) + b->used;
	b->used += len;
	return (MinimalTuple) p;
}

static void
free_row_blocks(GpuRowBlock *b)
{
	while (b)
	{
		GpuRowBlock *next = b->next;

		pfree(b);
		b = next;
	}
}

/*
 * Frees everything the store holds; every reset of its memory comes here,
 * so that no block is carved after its memory went.
 */
void
gpuhash_inner_reset_memory(GpuJoinState *gs)
{
	MemoryContextReset(gs->inner_cxt);
	gs->row_blocks = NULL;
}

/*
 * What a kept inner row costs: its tuple and the pointer to it (none where
 * no column is kept), its key and table share.
 */
static inline size_t
kept_row_bytes(MinimalTuple mt)
{
	return (mt ? MAXALIGN(mt->t_len) + sizeof(MinimalTuple) : 0) + GPUHASH_ROW_OVERHEAD;
}

/* A MinimalTuple's header size, as heap_form_minimal_tuple() lays it out. */
static inline Size
minimal_tuple_hoff(bool hasnull, int natts)
{
	return MAXALIGN(SizeofMinimalTupleHeader + (hasnull ? BITMAPLEN(natts) : 0));
}

/* A kept tuple moved into the store's current blocks (a compaction). */
static inline MinimalTuple
copy_kept_tuple(GpuJoinState *gs, MinimalTuple src)
{
	MinimalTuple mt;

	if (src == NULL)
		return NULL;
	mt = row_alloc(gs, src->t_len);
	memcpy(mt, src, src->t_len);
	return mt;
}

/*
 * A row's kept columns (keep[] of slot) as a MinimalTuple of inner_desc in
 * the store's blocks, laid out as heap_form_minimal_tuple() would and
 * filled in its place; NULL where no column is kept.  A row read back from
 * a batch file is that tuple already.
 */
static MinimalTuple
form_kept_row(GpuJoinState *gs, TupleTableSlot *slot, const int *keep)
{
	int			nc = gs->n_inner_keep;
	Datum	   *v = gs->spill_vals;
	bool	   *nl = gs->spill_nulls;
	bool		hasnull = false;
	Size		data_len,
				hoff;
	MinimalTuple mt;

	if (nc == 0)
		return NULL;
	if (keep == gs->ident_keep && TTS_IS_MINIMALTUPLE(slot))
		return copy_kept_tuple(gs, ((MinimalTupleTableSlot *) slot)->mintuple);
	slot_getsomeattrs(slot, gpuhash_keep_extent(keep, nc));
	for (int k = 0; k < nc; k++)
	{
		v[k] = slot->tts_values[keep[k]];
		nl[k] = slot->tts_isnull[keep[k]];
		hasnull |= nl[k];
	}
	data_len = heap_compute_data_size(gs->inner_desc, v, nl);
	hoff = minimal_tuple_hoff(hasnull, nc);
	mt = row_alloc(gs, hoff + data_len);
	memset(mt, 0, hoff + data_len);
	mt->t_len = hoff + data_len;
	HeapTupleHeaderSetNatts(mt, nc);
	mt->t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
	heap_fill_tuple(gs->inner_desc, v, nl, (char *) mt + hoff, data_len, &mt->t_infomask,
					hasnull ? mt->t_bits : NULL);
	return mt;
}

/* Deforms a kept inner tuple into vals and nulls (n_inner_keep columns). */
void
gpuhash_inner_deform(GpuJoinState *gs, MinimalTuple mt, Datum *vals, bool *nulls)
{
	HeapTupleData ht;

	ht.t_len = mt->t_len + MINIMAL_TUPLE_OFFSET;
	ht.t_data = (HeapTupleHeader) ((char *) mt - MINIMAL_TUPLE_OFFSET);
	heap_deform_tuple(&ht, gs->inner_desc, vals, nulls);
}

/*
 * The kept columns of inner row `row` (key-grouped position), this
 * process's or a parallel plan's shared row, valid until the next call.
 */
void
gpuhash_inner_row(GpuJoinState *gs, uint64 row, const Datum **iv, const bool **in)
{
	gpuhash_inner_deform(gs, (MinimalTuple) gpuhash_inner_row_tuple(gs, row), gs->row_vals,
						 gs->row_nulls);
	*iv = gs->row_vals;
	*in = gs->row_nulls;
}

void
gpuhash_reorder_inner(GpuJoinState *gs, const uint32 *order)
{
	uint64		n_all = gs->n_inner_all;
	MinimalTuple *tups;
	uint64	   *keys;

	if (order == NULL)
		return;					/* nothing reads the rows' order */
	tups = MemoryContextAllocHuge(gs->inner_cxt, sizeof(MinimalTuple) * Max(n_all, 1));
	keys = MemoryContextAllocHuge(gs->inner_cxt, sizeof(uint64) * Max(gs->n_inner, 1));
	for (uint64 i = 0; i < gs->n_inner; i++)
	{
		uint64		src = order[i];

		/* a gather from random places: start the loads a few rows ahead */
		if (i + 16 < gs->n_inner)
		{
			gpuhash_prefetch(gs->inner_tups + order[i + 16]);
			gpuhash_prefetch(gs->inner_keys_arr + order[i + 16]);
		}
		tups[i] = gs->inner_tups[src];
		keys[i] = gs->inner_keys_arr[src];
	}
	/* a right/full join's NULL-key rows stay behind the table's rows */
	memcpy(tups + gs->n_inner, gs->inner_tups + gs->n_inner,
		   sizeof(MinimalTuple) * (n_all - gs->n_inner));
	pfree(gs->inner_tups);
	pfree(gs->inner_keys_arr);
	gs->inner_tups = tups;
	gs->inner_keys_arr = keys;
}

/*
 * An array of old_bytes moved into a new one of new_bytes, in the old one's
 * context.  Not repalloc: its copy (realloc's) touched the new array's pages
 * one fault at a time; here they are mapped first, on transparent huge
 * pages where the kernel gives them: the doubling past 2 M rows (64 MB of
 * tuple pointers and keys) took its participant 18-27 ms longer than the
 * others in 4 kB pages, and the build's barrier waited for it.
 */
static void *
grow_array(void *old, Size old_bytes, Size new_bytes)
{
	void	   *p = MemoryContextAllocHuge(GetMemoryChunkContext(old), new_bytes);

	gpuhash_prefault_large(p, new_bytes);
	memcpy(p, old, old_bytes);
	pfree(old);
	return p;
}

/* Room for one more row's tuple, and its key, in arrays of *cap rows. */
static void
ensure_row_room(MinimalTuple **tups, uint64 **keys, uint64 n, uint64 *cap)
{
	uint64		ncap;

	if (n < *cap)
		return;
	if (*cap >= GH_MAX_ROWS / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpuhash: inner side of a GPU hash join exceeds %llu rows",
						(unsigned long long) GH_MAX_ROWS)));
	ncap = Max(*cap * 2, 1024);
	*tups = grow_array(*tups, sizeof(MinimalTuple) * *cap, sizeof(MinimalTuple) * ncap);
	*keys = grow_array(*keys, sizeof(uint64) * *cap, sizeof(uint64) * ncap);
	*cap = ncap;
}

/*
 * Keeps an inner row of this batch: keyed rows in arrival order, a right or
 * full join's NULL-key rows apart (they go behind the table's rows).
 */
static void
keep_inner_row(GpuJoinState *gs, TupleTableSlot *slot, const int *keep, uint64 key,
			   bool nokey)
{
	MinimalTuple mt = form_kept_row(gs, slot, keep);

	if (nokey)
	{
		ensure_row_room(&gs->nk_tups, &gs->nk_keys, gs->n_nk, &gs->nk_cap);
		gs->nk_tups[gs->n_nk] = mt;
		gs->nk_keys[gs->n_nk++] = key;
	}
	else
	{
		ensure_row_room(&gs->inner_tups, &gs->inner_keys_arr, gs->n_inner, &gs->inner_cap);
		gs->inner_tups[gs->n_inner] = mt;
		gs->inner_keys_arr[gs->n_inner++] = key;
	}
	gs->mem_used += kept_row_bytes(mt);
	gs->stats.mem_peak = Max(gs->stats.mem_peak, gs->mem_used);
}

/*
 * Moves the kept rows (n of them, keys alike) that no longer belong to
 * curbatch to their batch files, and copies those that stay into the
 * store's current blocks; returns how many stay.
 */
static uint64
move_out_rows(GpuJoinState *gs, MinimalTuple *tups, uint64 *keys, uint64 n, bool nokey,
			  uint64 *moved)
{
	uint64		j = 0;

	for (uint64 i = 0; i < n; i++)
	{
		int			b = gpuhash_batch_of(keys[i], gs->nbatch);

		if (b != gs->curbatch)
		{
			gpuhash_spill_write(gs, &gs->hb.inner_files[b], keys[i], nokey, tups[i]);
			(*moved)++;
			continue;
		}
		tups[j] = copy_kept_tuple(gs, tups[i]);
		keys[j] = keys[i];
		gs->mem_used += kept_row_bytes(tups[j]);
		j++;
	}
	return j;
}

/*
 * Doubles the batches, as ExecHashIncreaseNumBatches: the kept rows whose
 * key now falls in a later batch go to its file, the others into new
 * blocks, and the old blocks go.  A split that moves all rows or none
 * (every key alike) will not help: batches stop growing, and this batch
 * goes over the limit, as PostgreSQL's hash join does.
 */
void
gpuhash_increase_batches(GpuJoinState *gs)
{
	uint64		before = gs->n_inner + gs->n_nk;
	uint64		moved = 0;
	GpuRowBlock *old = gs->row_blocks;

	if (!gpuhash_batches_double(gs))
		return;
	gs->mem_used = 0;
	gs->row_blocks = NULL;
	gs->n_inner = move_out_rows(gs, gs->inner_tups, gs->inner_keys_arr, gs->n_inner, false,
								&moved);
	gs->n_nk = move_out_rows(gs, gs->nk_tups, gs->nk_keys, gs->n_nk, true, &moved);
	free_row_blocks(old);
	if (moved == 0 || moved == before)
		gpuhash_batches_stop_growing(gs);
}

/*
 * An inner row without a key matches nothing: counted, and kept only where
 * unmatched inner rows come out (right, full), with a made-up key that
 * places it in a batch.  Whether it stays.
 */
static inline bool
null_key_row_stays(GpuJoinState *gs, uint64 *key)
{
	gs->stats.null_key_rows++;
	if (!gs->fill_inner)
		return false;
	*key = gs->null_seq++;
	return true;
}

/* The absorbed inner scan's read is over: its figures, for EXPLAIN ANALYZE. */
static void
inner_scan_read_done(GpuJoinState *gs)
{
	uint64		pages,
				filtered;
	double		page_ms;

	/* (its pages and page_ms are not shown) */
	gpuhash_heap_scan_take_figures(gs->iscan, &pages, &page_ms, &filtered);
	gs->stats.inner_scan_filtered += filtered;
}

/*
 * The next inner row of this batch's source: the inner plan (or the
 * absorbed inner scan's next tuple, in its page) for batch 0, the batch's
 * file after it.  Rows without a key count once and are dropped unless a
 * right/full join must emit them; those get a made-up key that places them
 * in a batch.
 */
static bool
next_inner_row(GpuJoinState *gs, TupleTableSlot **slot, const int **keep, uint64 *key,
			   bool *nokey)
{
	if (gs->curbatch == 0 && gpuhash_split_joining(gs))
	{
		/* the batch of a split parallel join this participant joins */
		*keep = gs->ident_keep;
		return gpuhash_split_next_inner(gs, slot, key, nokey);
	}
	if (gs->curbatch == 0)
	{
		for (;;)
		{
			if (gs->iscan)
			{
				HeapTuple	tup;

				if (gpuhash_heap_scan_next(gs->iscan, gs->key_econtext, &tup) != OS_TUPLE)
				{
					inner_scan_read_done(gs);
					return false;
				}
				/* its kept columns are copied from the slot before the page moves on */
				*slot = ExecStoreHeapTuple(tup, gs->iscan->slot, false);
				*keep = gs->iscan->heap_keep;
				*nokey = !gpuhash_heap_key_fast(gs, gs->iscan, false, tup, key);
			}
			else
			{
				*slot = ExecProcNode(gs->inner_ps);
				if (TupIsNull(*slot))
					return false;
				*keep = gs->inner_keep;
				*nokey = !gpuhash_row_key(gs, *slot, gs->inner_keys, false, key);
			}
			if (!*nokey || null_key_row_stays(gs, key))
				return true;
		}
	}
	else
	{
		BufFile    *file = gs->hb.inner_files[gs->curbatch];
		MinimalTuple tup;

		MemoryContextReset(gs->hb.spill_cxt);
		if (file == NULL || !gpuhash_spill_read(file, key, nokey, &tup, gs->hb.spill_cxt))
			return false;
		*keep = gs->ident_keep;
		*slot = NULL;
		if (tup)
			*slot = ExecStoreMinimalTuple(tup, gs->hb.inner_spill_slot, false);
		return true;
	}
}

/* Resets the kept inner rows to none (a new batch, a rebuild). */
static void
start_inner(GpuJoinState *gs)
{
	gpuhash_inner_reset_memory(gs);
	gs->matched = NULL;
	gpuhash_keyfilter_forget(gs);
	gs->inner_cap = gs->nk_cap = 1024;
	gs->n_inner = gs->n_nk = 0;
	gs->mem_used = 0;
	gpuhash_split_inner_restart(gs);
	gs->inner_tups = MemoryContextAllocHuge(gs->inner_cxt, sizeof(MinimalTuple) * gs->inner_cap);
	gs->inner_keys_arr = MemoryContextAllocHuge(gs->inner_cxt, sizeof(uint64) * gs->inner_cap);
	gs->nk_tups = MemoryContextAllocHuge(gs->inner_cxt, sizeof(MinimalTuple) * gs->nk_cap);
	gs->nk_keys = MemoryContextAllocHuge(gs->inner_cxt, sizeof(uint64) * gs->nk_cap);
	if (gs->curbatch == 0)
		gs->stats.null_key_rows = 0;
}

/*
 * An inner row read, of this batch or not: to a split parallel join's
 * shared batch, to a later batch's file, or kept; the batches double
 * whenever the kept rows outgrow the memory limit.  slot may be NULL when
 * no column is kept.
 */
static void
take_inner_row(GpuJoinState *gs, TupleTableSlot *slot, const int *keep, uint64 key, bool nokey)
{
	int			b;

	if (gpuhash_split_writing(gs))
	{
		/* a parallel join split into shared batches: the row goes to its own */
		MinimalTuple tup = slot ? gpuhash_form_kept_tuple(gs, slot, keep, gs->n_inner_keep,
														  gs->inner_desc) : NULL;

		gpuhash_split_put_inner(gs, tup, key, nokey);
		if (tup)
			pfree(tup);
		return;
	}
	b = gpuhash_batch_of(key, gs->nbatch);
	if (b != gs->curbatch)
	{
		MinimalTuple tup = slot ? gpuhash_form_kept_tuple(gs, slot, keep, gs->n_inner_keep,
														  gs->inner_desc) : NULL;

		gpuhash_spill_write(gs, &gs->hb.inner_files[b], key, nokey, tup);
		if (tup)
			pfree(tup);
		return;
	}
	keep_inner_row(gs, slot, keep, key, nokey);
	if (gs->hb.can_batch && gs->mem_used > gs->hb.mem_limit)
		gpuhash_increase_batches(gs);
	else if (gs->split_shared && gs->split == NULL && gpuhash_split_wanted(gs))
		gpuhash_inner_split(gs);
}

/*
 * Batch 0's rows from the absorbed inner scan, a page at a time
 * (gpuhash_heap_scan_page), or a request of pages at a time through the
 * page walker (page_inner.c, by_walker): the same rows next_inner_row
 * gives, with no call per tuple to get there.
 */
static void
read_inner_pages(GpuJoinState *gs, bool by_walker)
{
	GpuHeapScan *is = gs->iscan;
	HeapTupleData *own = by_walker ? NULL : palloc(sizeof(HeapTupleData) * MaxHeapTuplesPerPage);
	HeapTupleData *tups = own;
	int			n;

	while ((n = by_walker ? gpuhash_page_inner_next(gs, &tups) :
			gpuhash_heap_scan_page(is, tups)) > 0)
	{
		for (int i = 0; i < n; i++)
		{
			/* its kept columns are copied from the slot before the page moves on */
			TupleTableSlot *slot = gs->n_inner_keep > 0 ?
				ExecStoreHeapTuple(&tups[i], is->slot, false) : NULL;
			uint64		key;
			bool		nokey = !gpuhash_heap_key_fast(gs, is, false, &tups[i], &key);

			if (nokey && !null_key_row_stays(gs, &key))
				continue;
			take_inner_row(gs, slot, is->heap_keep, key, nokey);
		}
	}
	if (own)
		pfree(own);
	inner_scan_read_done(gs);
}

/*
 * n keyed rows of no kept column at once, where all go to this batch (one
 * batch, no split under way): the keys copied as a block, the memory
 * counted as take_inner_row counts it, and the checks it makes a row made
 * once a run, each run no longer than the room left under the limit (so
 * the batches grow at the row they would row by row) and, where a
 * parallel join may split, 128 rows.
 */
static void
take_inner_keys(GpuJoinState *gs, const uint64 *keys, int n)
{
	int			i = 0;

	while (i < n)
	{
		uint64		m = n - i;

		if (gs->nbatch > 1 || gpuhash_split_writing(gs))
		{
			for (; i < n; i++)
				take_inner_row(gs, NULL, NULL, keys[i], false);
			return;
		}
		if (gs->hb.can_batch)
		{
			Size		room = gs->mem_used < gs->hb.mem_limit ?
				gs->hb.mem_limit - gs->mem_used : 0;

			/* the row that passes the limit is the run's last */
			m = Min(m, room / GPUHASH_ROW_OVERHEAD + 1);
		}
		/* a shared split is asked about within its smallest step (8 kB) */
		if (gs->split_shared && gs->split == NULL)
			m = Min(m, 128);
		while (gs->n_inner + m > gs->inner_cap)
			ensure_row_room(&gs->inner_tups, &gs->inner_keys_arr, gs->inner_cap,
							&gs->inner_cap);
		memset(gs->inner_tups + gs->n_inner, 0, sizeof(MinimalTuple) * m);
		memcpy(gs->inner_keys_arr + gs->n_inner, keys + i, sizeof(uint64) * m);
		gs->n_inner += m;
		gs->mem_used += (Size) m * GPUHASH_ROW_OVERHEAD;
		gs->stats.mem_peak = Max(gs->stats.mem_peak, gs->mem_used);
		i += m;
		if (gs->hb.can_batch && gs->mem_used > gs->hb.mem_limit)
			gpuhash_increase_batches(gs);
		else if (gs->split_shared && gs->split == NULL && gpuhash_split_wanted(gs))
			gpuhash_inner_split(gs);
	}
}

/*
 * Batch 0's keys from the page walker (page_inner.c): no column is kept and
 * no NULL-key row stays, so each passing row is its packed key alone.
 */
static void
read_inner_keys(GpuJoinState *gs)
{
	const uint64 *keys;
	int			n;

	Assert(gs->n_inner_keep == 0);
	while ((n = gpuhash_page_inner_next_keys(gs, &keys)) > 0)
		take_inner_keys(gs, keys, n);
	inner_scan_read_done(gs);
}

/*
 * Reads this batch's inner rows: those of later batches go to their files,
 * and the batches double whenever the kept rows outgrow the memory limit.
 */
void
gpuhash_read_inner_rows(GpuJoinState *gs)
{
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	gpuhash_batches_inner_start(gs);
	start_inner(gs);
	if (gs->curbatch == 0 && !gpuhash_split_joining(gs) && gpuhash_page_inner_usable(gs))
	{
		if (gpuhash_page_inner_keys_only(gs))
			read_inner_keys(gs);
		else
			read_inner_pages(gs, true);
	}
	else if (gs->curbatch == 0 && !gpuhash_split_joining(gs) && gs->iscan &&
			 gs->iscan->qual == NULL)
		read_inner_pages(gs, false);
	else
	{
		TupleTableSlot *slot;
		const int  *keep;
		uint64		key;
		bool		nokey;

		while (next_inner_row(gs, &slot, &keep, &key, &nokey))
			take_inner_row(gs, slot, keep, key, nokey);
	}
	gs->stats.inner_read_ms += gpuhash_ms_since(t0);
}

/*
 * The inner store, set up with the node: its memory, and one shared row's
 * deformed columns (a parallel plan's, shared_inner.c).
 */
void
gpuhash_inner_begin(GpuJoinState *gs)
{
	gs->inner_cxt = AllocSetContextCreate(gs->cxt, "GpuHashJoin inner",
										  ALLOCSET_DEFAULT_SIZES);
	if (gs->n_inner_keep > 0)
	{
		gs->row_vals = palloc(sizeof(Datum) * gs->n_inner_keep);
		gs->row_nulls = palloc(sizeof(bool) * gs->n_inner_keep);
	}
}

/*
 * Right/full joins of a table of this process's own: the match bits, all
 * clear (a shared table's are in the DSA).
 */
void
gpuhash_inner_matched_clear(GpuJoinState *gs)
{
	if (gs->fill_inner && !gpuhash_shares_table(gs))
		gs->matched = MemoryContextAllocHuge(gs->inner_cxt,
											 sizeof(uint32) * gpuhash_matched_words(gs));
	if (gs->matched)
		memset(gs->matched, 0, sizeof(uint32) * gpuhash_matched_words(gs));
}

/*
 * A parallel plan's table of n_inner rows (n_inner_all with right/full's
 * NULL-key rows) is adopted: the builder's own copies have served,
 * everyone reads the shared rows (shared_inner.c attaches them).
 */
void
gpuhash_inner_adopt(GpuJoinState *gs, uint64 n_inner, uint64 n_inner_all)
{
	gs->n_inner = n_inner;
	gs->n_inner_all = n_inner_all;
	gpuhash_inner_reset_memory(gs);
	gs->inner_tups = NULL;
	gs->inner_keys_arr = NULL;
}

/*
 * A parallel join splits (parallel_split.c): the rows this participant kept
 * so far, not finished yet (NULL-key rows still apart), go to their shared
 * batches.
 */
static void
rows_to_split(GpuJoinState *gs)
{
	uint64		null_key_rows = gs->stats.null_key_rows;

	for (int pass = 0; pass < 2; pass++)
	{
		bool		nokey = pass == 1;
		uint64		n = nokey ? gs->n_nk : gs->n_inner;
		MinimalTuple *tups = nokey ? gs->nk_tups : gs->inner_tups;
		uint64	   *keys = nokey ? gs->nk_keys : gs->inner_keys_arr;

		for (uint64 i = 0; i < n; i++)
			gpuhash_split_put_inner(gs, tups[i], keys[i], nokey);
	}
	start_inner(gs);
	gs->stats.null_key_rows = null_key_rows;
}

/* This participant joins the split, with the inner rows it kept. */
void
gpuhash_inner_split(GpuJoinState *gs)
{
	gpuhash_split_begin(gs);
	rows_to_split(gs);
}

/*
 * This participant has read all its inner rows (joining the split now if
 * it has not yet, with what it kept).
 */
void
gpuhash_inner_split_done(GpuJoinState *gs)
{
	if (gs->split == NULL)
		gpuhash_inner_split(gs);
	gpuhash_split_inner_done(gs);
}

/*
 * A parallel plan's rescan: nothing of the last scan's inner rows stays,
 * neither this participant's own (a batch of a split join) nor its view of
 * the shared ones (freed with the old shared state).  Its next scan may
 * split without reading an inner row, and must then move none.
 */
void
gpuhash_inner_forget(GpuJoinState *gs)
{
	gpuhash_inner_reset_memory(gs);
	gs->inner_tups = NULL;
	gs->inner_keys_arr = NULL;
	gs->nk_tups = NULL;
	gs->nk_keys = NULL;
	gs->n_inner = gs->n_nk = gs->n_inner_all = 0;
	gs->inner_cap = gs->nk_cap = 0;
	gs->mem_used = 0;
	gs->matched = NULL;
	gpuhash_keyfilter_forget(gs);
	gs->shared_rowptrs = NULL;
	gs->shared_matched = NULL;
}

/* The NULL-key rows go behind the keyed ones: never in the table. */
void
gpuhash_finish_inner(GpuJoinState *gs)
{
	uint64		n_nk = gs->n_nk;

	gs->n_inner_all = gs->n_inner + n_nk;
	if (n_nk > 0)
	{
		uint64		cap = gs->inner_cap;

		while (cap < gs->n_inner_all)
			ensure_row_room(&gs->inner_tups, &gs->inner_keys_arr, cap, &cap);
		gs->inner_cap = cap;
		memcpy(gs->inner_tups + gs->n_inner, gs->nk_tups, sizeof(MinimalTuple) * n_nk);
	}
	gs->n_nk = 0;
}

/*
 * This participant's kept inner rows (gs->inner_tups, n_inner_all of them)
 * copied as they are into one DSA allocation; *offsets gets each one's
 * offset.
 */
dsa_pointer
gpuhash_inner_publish(GpuJoinState *gs, dsa_area *area, dsa_pointer *offsets_out)
{
	uint64		n = gs->n_inner_all;
	MinimalTuple *tups = gs->inner_tups;
	uint64	   *offsets;
	Size		total = 0;
	char	   *rows;
	dsa_pointer p;

	*offsets_out = InvalidDsaPointer;
	if (gs->n_inner_keep == 0 || n == 0)
		return InvalidDsaPointer;
	*offsets_out = dsa_allocate_extended(area, sizeof(uint64) * n, DSA_ALLOC_HUGE);
	offsets = dsa_get_address(area, *offsets_out);
	gpuhash_prefault(offsets, sizeof(uint64) * n);
	for (uint64 i = 0; i < n; i++)
	{
		/* the table's order (one reader) visits the blocks at random */
		if (i + 16 < n)
			gpuhash_prefetch(tups[i + 16]);
		offsets[i] = total;
		total += MAXALIGN(tups[i]->t_len);
	}
	p = dsa_allocate_extended(area, Max(total, 1), DSA_ALLOC_HUGE);
	rows = dsa_get_address(area, p);
	gpuhash_prefault(rows, total);
	for (uint64 i = 0; i < n; i++)
	{
		if (i + 16 < n)
			gpuhash_prefetch(tups[i + 16]);
		memcpy(rows + offsets[i], tups[i], tups[i]->t_len);
	}
	return p;
}

/* The match bits of a right/full join in the DSA, all clear. */
dsa_pointer
gpuhash_inner_shared_matched(GpuJoinState *gs, dsa_area *area)
{
	uint64		words = gpuhash_matched_words(gs);
	dsa_pointer p = dsa_allocate_extended(area, sizeof(pg_atomic_uint32) * words, DSA_ALLOC_HUGE);
	pg_atomic_uint32 *m = dsa_get_address(area, p);

	for (uint64 w = 0; w < words; w++)
		pg_atomic_init_u32(&m[w], 0);
	return p;
}
