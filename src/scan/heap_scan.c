/*-------------------------------------------------------------------------
 *
 * heap_scan.c
 *	  A side's Seq Scan, absorbed into the join: the node reads the heap a
 *	  page at a time and hands out the visible tuples that pass the scan's
 *	  quals, with no child plan node, no slot per row and no copy.  The
 *	  outer side (executor.c) and the inner side's build (inner_store.c)
 *	  each may have one.
 *
 * Why: pulling each row through a Seq Scan node (a slot, a virtual
 * projection, a copy of the kept columns) cost more CPU per row than the
 * GPU spends on the whole probe.  Here a tuple is a pointer into a pinned
 * page: its key columns are read straight from it; an outer row's other
 * columns only if it matches (late materialisation, executor.c), an inner
 * row's kept columns as it is kept.
 *
 * The scan's quals: their leading simple clauses (integer, date and
 * timestamp comparisons, string equality and IN lists, NULL tests) are
 * evaluated on the tuple in its page (scan_filter.c), the rest as a Seq Scan
 * evaluates them.
 *
 * Pages are read with heapam's own page-mode visibility (heapgetpage, as a
 * Seq Scan does): the visible tuples of a page under the query's snapshot,
 * with the same pruning, predicate locks and serializable checks.  Blocks
 * come in order, or from the standard parallel block allocator when the
 * plan's scan is a Parallel Seq Scan (its descriptor lives in the node's
 * DSM, parallel.c).  The absorbed plan must be a Seq Scan of a heap table
 * whose target list is plain columns (planner.c checks).
 *
 * Only the outer side pins pages beyond the one being read: the inner
 * side's rows are copied before the scan moves on.
 *
 * The tuples of a probe batch stay valid while it is probed and emitted:
 * every page that gave the batch a row it keeps has an extra pin, the batch's,
 * until the batch ends, at most max_pins of them per batch (gpuhash_batch_pins;
 * a page whose tuples went to two batches has a pin of each).  When the join
 * emits no outer column, nothing is pinned beyond the page being read.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "optimizer/clauses.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/rel.h"
#include "scan/page_scan.h"
#include "scan/buffer_hint.h"

/*
 * Pins a probe batch may hold, at most `most`: a small share of
 * shared_buffers, for each of the depth batches in the pipeline of every
 * participant (a 64th of the pool for them all).
 */
int
gpuhash_batch_pins(int most, int depth)
{
	return Max(8, Min(most, NBuffers / (64 * depth)));
}

/*
 * The scan of plan, absorbed into the join gs: its quals are compiled under
 * the join's plan state.
 */
GpuHeapScan *
gpuhash_heap_scan_begin(GpuJoinState *gs, SeqScan *plan, EState *estate, int eflags)
{
	return gpuhash_heap_scan_open(&gs->css.ss.ps, plan->scan.scanrelid, plan->scan.plan.qual,
								  plan->scan.plan.targetlist, plan->scan.plan.parallel_aware,
								  estate, eflags);
}

/*
 * Compiles quals whose scan tuple is a heap tuple of desc (an absorbed
 * scan's own slot), not the node's virtual scan slot: ps's scan slot
 * settings are lent for the compilation and put back.
 */
ExprState *
gpuhash_heap_qual_init(List *quals, PlanState *ps, TupleDesc desc)
{
	const TupleTableSlotOps *ops = ps->scanops;
	TupleDesc	scandesc = ps->scandesc;
	bool		fixed = ps->scanopsfixed,
				set = ps->scanopsset;
	ExprState  *qual;

	ps->scanops = &TTSOpsHeapTuple;
	ps->scandesc = desc;
	ps->scanopsfixed = ps->scanopsset = true;
	qual = ExecInitQual(quals, ps);
	ps->scanops = ops;
	ps->scandesc = scandesc;
	ps->scanopsfixed = fixed;
	ps->scanopsset = set;
	return qual;
}

/*
 * The page path's CPU clauses of os's relation compiled into *qual, or
 * os->qual where they are the clauses the tuple path runs: one state for
 * both paths, so a subplan among them runs once per participant, as the
 * Seq Scan's would.  False (no page path) where they differ and hold a
 * subplan: two states would run it twice, and after a rescan that changed
 * its parameters the first to rebuild its table would leave the other's
 * stale (the two share the subplan's plan state, and its changed
 * parameters with it).
 */
bool
gpuhash_heap_qual_share(GpuHeapScan *os, List *quals, PlanState *ps, ExprState **qual)
{
	*qual = NULL;
	if (quals == NIL)
		return true;
	if (equal(quals, os->qual_list))
	{
		*qual = os->qual;
		return true;
	}
	if (contain_subplans((Node *) quals))
		return false;
	*qual = gpuhash_heap_qual_init(quals, ps, os->desc);
	return true;
}

/*
 * A heap scan of scanrelid read by the node ps (a join, or the GPU
 * aggregate, src/agg/): quals compiled under ps over the heap tuple; tlist
 * the plain columns it hands out (NIL: none).
 */
GpuHeapScan *
gpuhash_heap_scan_open(PlanState *ps, Index scanrelid, List *qual, List *tlist, bool parallel,
					   EState *estate, int eflags)
{
	GpuHeapScan *os = palloc0(sizeof(GpuHeapScan));
	ListCell   *lc;
	int			j = 0;

	os->fast_key_off = -1;		/* none until the keys are known */
	os->rel = ExecOpenScanRelation(estate, scanrelid, eflags);
	os->desc = RelationGetDescr(os->rel);
	os->parallel = parallel;
	os->slot = ExecInitExtraTupleSlot(estate, os->desc, &TTSOpsHeapTuple);
	{
		List	   *rest;

		os->filter = gpuhash_scan_filter_compile(qual, scanrelid, os->desc, &rest);
		os->qual = gpuhash_heap_qual_init(rest, ps, os->desc);
		os->qual_list = rest;
	}
	os->attno = palloc(sizeof(AttrNumber) * Max(list_length(tlist), 1));
	foreach(lc, tlist)
	{
		Var		   *v = (Var *) lfirst_node(TargetEntry, lc)->expr;

		/* planner.c absorbs only plain columns of the scanned relation */
		if (!IsA(v, Var) || v->varno != scanrelid || v->varattno <= 0)
			elog(ERROR, "gpuhash: an absorbed scan reads only plain columns");
		os->attno[j++] = v->varattno;
	}
	os->max_pins = gpuhash_batch_pins(GPUHASH_MAX_BATCH_PINS, GPUHASH_PIPELINE);
	os->timed = (estate->es_instrument & INSTRUMENT_TIMER) != 0;
	os->snapshot = estate->es_snapshot;
	os->slot_row = -1;
	return os;
}

/* The heapam scan, serial; a parallel one starts from the DSM (below). */
static void
start_scan(GpuHeapScan *os)
{
	if (os->scan == NULL)
		os->scan = table_beginscan_strat(os->rel, os->snapshot, 0, NULL, true, false);
	/* heapam keeps page mode for MVCC snapshots, which every query has */
	if ((os->scan->rs_flags & SO_ALLOW_PAGEMODE) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpuhash: an absorbed scan needs an MVCC snapshot"),
				 errhint("Set gpuhash.absorb_outer_scan and gpuhash.absorb_inner_scan to off.")));
}

/* Outer side: batch b is filled next, and its tuples' pages take its pins. */
void
gpuhash_heap_scan_fill(GpuHeapScan *os, GpuProbeBatch *b)
{
	os->filling = b;
	os->page_pinned = false;
}

/* Releases the pins of a batch that ends. */
void
gpuhash_heap_scan_batch_reset(GpuHeapScan *os, GpuProbeBatch *b)
{
	for (int i = 0; i < b->n_pins; i++)
		ReleaseBuffer(b->pins[i]);
	b->n_pins = 0;
	if (os->filling == b)
	{
		os->filling = NULL;
		os->page_pinned = false;
	}
}

/* The scan's own pin of its current page goes (the walk is over, or starts again). */
static void
drop_scan_pin(GpuHeapScan *os)
{
	HeapScanDesc hs = (HeapScanDesc) os->scan;

	if (hs == NULL)
		return;
	if (BufferIsValid(hs->rs_cbuf))
		ReleaseBuffer(hs->rs_cbuf);
	hs->rs_cbuf = InvalidBuffer;
	hs->rs_cblock = InvalidBlockNumber;
}

/* Block blk, handed to this participant, kept for the walks after this one. */
static void
keep_walked(GpuHeapScan *os, BlockNumber blk)
{
	if (os->nwalked == os->walked_cap)
	{
		os->walked_cap = Max(os->walked_cap * 2, 1024);
		os->walked = os->walked == NULL ?
			MemoryContextAllocHuge(GetMemoryChunkContext(os),
								   sizeof(BlockNumber) * os->walked_cap) :
			repalloc_huge(os->walked, sizeof(BlockNumber) * os->walked_cap);
	}
	os->walked[os->nwalked++] = blk;
}

/*
 * The next block to read, or InvalidBlockNumber at the end: a walk again
 * reads the blocks kept from the first.
 */
static BlockNumber
next_block(GpuHeapScan *os)
{
	HeapScanDesc hs = (HeapScanDesc) os->scan;

	if (os->replaying)
		return os->replay_pos < os->nwalked ? os->walked[os->replay_pos++] : InvalidBlockNumber;
	if (os->scan->rs_parallel != NULL)
	{
		ParallelBlockTableScanDesc pb = (ParallelBlockTableScanDesc) os->scan->rs_parallel;
		BlockNumber blk;

		if (!os->started)
			table_block_parallelscan_startblock_init(os->rel, hs->rs_parallelworkerdata, pb);
		os->started = true;
		blk = table_block_parallelscan_nextpage(os->rel, hs->rs_parallelworkerdata, pb);
		if (os->recording && BlockNumberIsValid(blk))
			keep_walked(os, blk);
		return blk;
	}
	os->started = true;
	if (os->next_block >= hs->rs_nblocks)
		return InvalidBlockNumber;
	return os->next_block++;
}

/*
 * The filling batch keeps the tuple just handed out: it takes a pin of the
 * tuple's page, once per page.  Only rows the batch keeps pin pages: a batch
 * whose pins all went to rows dropped after the scan (a NULL key, the key
 * filter, a later hash batch) would be full and empty at once.
 */
void
gpuhash_heap_scan_keep_tuple(GpuHeapScan *os)
{
	HeapScanDesc hs = (HeapScanDesc) os->scan;
	GpuProbeBatch *b = os->filling;

	if (!os->keep_rows || os->page_pinned || b == NULL)
		return;
	IncrBufferRefCount(hs->rs_cbuf);
	b->pins[b->n_pins++] = hs->rs_cbuf;
	os->page_pinned = true;
}

/*
 * How many visible tuples ahead of the one handed out their headers are
 * prefetched.  A page of shared buffers is rarely in the CPU's caches: the
 * first read of each tuple (its header, then the key next to it) waited on
 * memory, about a third of the backend's time in a count(*) of lineitem JOIN
 * orders on the host twin.  Loads started this far ahead overlap.
 */
#define TUPLE_PREFETCH_AHEAD 8

/*
 * Starts loading visible tuple i of the current page: its first 64 bytes,
 * the header and the leading columns (usually the key), which may straddle
 * two cache lines.  (A statement, not a function: GCC deems a function of
 * prefetches alone free of effects and drops its calls.)
 */
#define PREFETCH_TUPLE(hs, page, i) \
	do { \
		if ((i) < (hs)->rs_ntuples) \
		{ \
			const char *t_ = PageGetItem((page), \
										 PageGetItemId((page), (hs)->rs_vistuples[(i)])); \
			gpuhash_prefetch(t_); \
			gpuhash_prefetch(t_ + 63); \
		} \
	} while (0)

/*
 * The next page's visible tuples (heapam's page mode): OS_TUPLE when they
 * are there to read, OS_END at the end of the scan, OS_BATCH_FULL when the
 * filling batch may pin no further page.
 */
static GpuScanNext
next_page(GpuHeapScan *os)
{
	HeapScanDesc hs = (HeapScanDesc) os->scan;
	BlockNumber blk;
	Page		page;
	instr_time	t0;

	/* a new page: it needs a pin of the batch's if rows are kept */
	if (os->keep_rows && os->filling != NULL && os->filling->n_pins >= os->max_pins)
		return OS_BATCH_FULL;
	CHECK_FOR_INTERRUPTS();
	/*
	 * Under EXPLAIN ANALYZE's timer, two clock reads a page part heapam's
	 * time from the join's; otherwise the page loop reads no clock.
	 */
	if (os->timed)
		INSTR_TIME_SET_CURRENT(t0);
	blk = next_block(os);
	if (!BlockNumberIsValid(blk))
	{
		/* drop the scan's pin now: the batch holds its own */
		drop_scan_pin(os);
		os->done = true;
		return OS_END;
	}
	gpuhash_heap_getpage(os->scan, blk);
	if (os->timed)
	{
		os->page_ms += gpuhash_ms_since(t0);
	}
	os->ntuples = hs->rs_ntuples;
	os->index = 0;
	os->page_pinned = false;
	os->pages++;
	/* the page's first tuples: their loads start together */
	page = BufferGetPage(hs->rs_cbuf);
	for (int i = 0; i < TUPLE_PREFETCH_AHEAD; i++)
		PREFETCH_TUPLE(hs, page, i);
	return OS_TUPLE;
}

/*
 * OS_TUPLE when the current page has visible tuples left to read, moving
 * on to the next pages as needed; else what next_page said.
 */
static inline GpuScanNext
page_ready(GpuHeapScan *os)
{
	while (os->index >= os->ntuples)
	{
		GpuScanNext r;

		/* the page path (page_scan.c) reads the pages after this one */
		if (os->stop_at_page_end && !os->done)
			return OS_BATCH_FULL;
		r = os->done ? OS_END : next_page(os);

		if (r != OS_TUPLE)
			return r;
	}
	return OS_TUPLE;
}

/*
 * Visible tuple i of the current page (page), in t.  Starts loading a
 * tuple further on.
 */
static inline void
page_tuple_at(GpuHeapScan *os, Page page, int i, Oid relid, HeapTuple t)
{
	HeapScanDesc hs = (HeapScanDesc) os->scan;
	OffsetNumber off = hs->rs_vistuples[i];
	ItemId		lp = PageGetItemId(page, off);

	PREFETCH_TUPLE(hs, page, i + TUPLE_PREFETCH_AHEAD);
	t->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	t->t_len = ItemIdGetLength(lp);
	t->t_tableOid = relid;
	ItemPointerSet(&t->t_self, hs->rs_cblock, off);
}

/* Does tuple t pass the scan's in-place filter (none: all do)? */
static inline bool
filter_passes(GpuHeapScan *os, HeapTuple t)
{
	if (os->filter != NULL && !gpuhash_scan_filter_pass(os->filter, t->t_data, os->desc))
	{
		os->filtered++;
		return false;
	}
	return true;
}

/* The same, false if the scan's in-place filter rules it out. */
static inline bool
page_tuple(GpuHeapScan *os, Page page, int i, Oid relid, HeapTuple t)
{
	page_tuple_at(os, page, i, relid, t);
	return filter_passes(os, t);
}

/*
 * The next visible tuple that passes the scan's quals (evaluated in
 * econtext), in *tup (pointing into a pinned page).  OS_BATCH_FULL: the
 * filling batch holds as many pinned pages as it may; the next call, for
 * another batch, goes on.
 */
GpuScanNext
gpuhash_heap_scan_next(GpuHeapScan *os, ExprContext *econtext, HeapTuple *tup)
{
	HeapScanDesc hs;

	start_scan(os);
	hs = (HeapScanDesc) os->scan;
	for (;;)
	{
		HeapTuple	t = &os->tup;
		GpuScanNext r;

		if (os->pending)
		{
			/* read before the build (executor.c): handed out again */
			os->pending = false;
			*tup = t;
			return OS_TUPLE;
		}
		if ((r = page_ready(os)) != OS_TUPLE)
			return r;
		if (!page_tuple(os, BufferGetPage(hs->rs_cbuf), os->index++, RelationGetRelid(os->rel), t))
			continue;
		if (os->qual != NULL && !gpuhash_heap_qual_passes(os, os->qual, econtext, t))
			continue;
		*tup = t;
		return OS_TUPLE;
	}
}

/*
 * Outer side: fills probe batch b up to cap rows straight from the pages,
 * one loop over each page's visible tuples: the key of each that passes
 * the in-place filter, and the tuple where the join emits outer columns.
 * For executor.c's batches when a tuple needs nothing more (no quals left
 * to evaluate on a slot, one hash batch, no tuple pending); the calls per
 * tuple of gpuhash_heap_scan_next and the fill loop above it cost about
 * as much CPU as the key itself.  Rows enter as in executor.c's row loop
 * (gpuhash_outer_row_wanted).  OS_TUPLE when the batch is full; OS_END,
 * OS_BATCH_FULL as for gpuhash_heap_scan_next.
 */
GpuScanNext
gpuhash_heap_scan_fill_keys(GpuJoinState *gs, GpuHeapScan *os, GpuProbeBatch *b, int cap)
{
	Oid			relid = RelationGetRelid(os->rel);
	HeapScanDesc hs;

	/* plain key columns, read in place: no expression that could fail */
	bool		cheap_key = os->filter != NULL && gs->outer_keys_plain && !gs->info.fingerprint;

	Assert(!os->pending && os->qual == NULL && os->filling == b);
	start_scan(os);
	hs = (HeapScanDesc) os->scan;
	while (b->n < cap)
	{
		GpuScanNext r;
		Page		page;

		if ((r = page_ready(os)) != OS_TUPLE)
			return r;
		page = BufferGetPage(hs->rs_cbuf);
		for (; os->index < os->ntuples && b->n < cap; os->index++)
		{
			HeapTupleData t;
			uint64		key;
			bool		nokey;

			/*
			 * Where the key filter is on, it goes first: a row it rules
			 * out never joins, so its filter need not run (the filter's
			 * clauses raise no error; see scan_filter.c).  The key is
			 * usually the cheaper of the two: one column near the
			 * tuple's start, where a filter's column often lies past
			 * variable-width numerics.  A key filter that has switched itself off
			 * leaves the filter first again.
			 */
			if (cheap_key && gs->kf_on)
			{
				page_tuple_at(os, page, os->index, relid, &t);
				nokey = !gpuhash_heap_key_fast(gs, os, true, &t, &key);
				if (!gpuhash_outer_row_wanted(gs, key, nokey) || !filter_passes(os, &t))
					continue;
			}
			else
			{
				if (!page_tuple(os, page, os->index, relid, &t))
					continue;
				nokey = !gpuhash_heap_key_fast(gs, os, true, &t, &key);
				if (!gpuhash_outer_row_wanted(gs, key, nokey))
					continue;
			}
			if (os->keep_rows)
			{
				gpuhash_heap_scan_keep_tuple(os);
				b->tups[b->n] = t;
			}
			gpuhash_batch_add_key(b, key, nokey);
		}
	}
	return OS_TUPLE;
}

/*
 * Inner side: the visible tuples of the next page that has any passing the
 * in-place filter, in tups (room for MaxHeapTuplesPerPage); how many, 0 at
 * the end of the scan.  One loop per page, as for the outer batches: the
 * build reads its rows with a call per page, not three per tuple.  Only
 * for a scan with no quals left to evaluate on a slot.  The tuples point
 * into the page, valid until the next call.
 */
int
gpuhash_heap_scan_page(GpuHeapScan *os, HeapTupleData *tups)
{
	Oid			relid = RelationGetRelid(os->rel);
	HeapScanDesc hs;

	Assert(!os->pending && os->qual == NULL && !os->keep_rows);
	start_scan(os);
	hs = (HeapScanDesc) os->scan;
	for (;;)
	{
		Page		page;
		int			n = 0;

		/* no pins kept here: never OS_BATCH_FULL */
		if (page_ready(os) != OS_TUPLE)
			return 0;
		page = BufferGetPage(hs->rs_cbuf);
		for (; os->index < os->ntuples; os->index++)
		{
			if (page_tuple(os, page, os->index, relid, &tups[n]))
				n++;
		}
		if (n > 0)
			return n;
	}
}

/* For the page path (page_scan.c, page_inner.c): the scan started, its next block. */
void
gpuhash_heap_scan_start(GpuHeapScan *os)
{
	start_scan(os);
}

/*
 * The page path's next block, counted; at the end the scan is done and its
 * own pin goes (the page path's requests hold pins of their own).
 */
BlockNumber
gpuhash_heap_scan_next_block(GpuHeapScan *os)
{
	BlockNumber blk = next_block(os);

	if (!BlockNumberIsValid(blk))
	{
		drop_scan_pin(os);
		os->done = true;
		return InvalidBlockNumber;
	}
	os->pages++;
	return blk;
}

/*
 * Does heap tuple t pass all of the scan's quals (in place, then ExecQual in
 * econtext)?  The page path's refused pages go this way.
 */
bool
gpuhash_heap_scan_tuple_passes(GpuHeapScan *os, ExprContext *econtext, HeapTuple t)
{
	return filter_passes(os, t) &&
		(os->qual == NULL || gpuhash_heap_qual_passes(os, os->qual, econtext, t));
}

/*
 * Does heap tuple t pass qual (over the scan's slot, in econtext)?  The
 * rows the page walker hands back meet the quals it left to the CPU so;
 * one that fails is counted as filtered.
 */
bool
gpuhash_heap_qual_passes(GpuHeapScan *os, ExprState *qual, ExprContext *econtext, HeapTuple t)
{
	bool		pass = gpuhash_heap_qual_eval(os, qual, econtext, t);

	if (!pass)
		os->filtered++;
	return pass;
}

/*
 * qual on heap tuple t over the scan's slot, uncounted: for a row that is
 * not the scan's (page_scan.c's row of NULLs, which leaves the slot empty).
 */
bool
gpuhash_heap_qual_eval(GpuHeapScan *os, ExprState *qual, ExprContext *econtext, HeapTuple t)
{
	bool		pass;

	ExecStoreHeapTuple(t, os->slot, false);
	econtext->ecxt_scantuple = os->slot;
	pass = ExecQual(qual, econtext);
	ResetExprContext(econtext);
	/* the slot no longer holds a batch row (the outer scan's cache) */
	os->slot_row = -1;
	return pass;
}

/* The tuple just handed out is handed out again by the next call. */
void
gpuhash_heap_scan_push_back(GpuHeapScan *os)
{
	os->pending = true;
}

/* The slot no longer holds a batch row deformed (its batch moved on). */
void
gpuhash_heap_scan_slot_clear(GpuHeapScan *os)
{
	os->slot_row = -1;
}

/*
 * This scan's EXPLAIN ANALYZE figures since the last call, counted from
 * zero again (a participant's are summed over scans by the caller).
 */
void
gpuhash_heap_scan_take_figures(GpuHeapScan *os, uint64 *pages, double *page_ms,
							   uint64 *filtered)
{
	*pages = os->pages;
	*page_ms = os->page_ms;
	*filtered = os->filtered;
	os->pages = os->filtered = 0;
	os->page_ms = 0;
}

/* The scan starts over (a rescan; a parallel one after its DSM was reset). */
void
gpuhash_heap_scan_rescan(GpuHeapScan *os)
{
	if (os->scan)
		table_rescan(os->scan, NULL);
	os->next_block = 0;
	os->started = false;
	os->done = false;
	os->pending = false;
	os->index = os->ntuples = 0;
	os->recording = os->replaying = false;
	os->nwalked = os->replay_pos = 0;
}

/*
 * A participant of a parallel scan will walk its blocks again: the blocks
 * it is handed from here on are kept (4 bytes each).  Called before its
 * first block.
 */
void
gpuhash_heap_scan_keep_blocks(GpuHeapScan *os)
{
	if (os->started)
		elog(ERROR, "gpuhash: a scan's blocks are kept from its first block only");
	os->recording = true;
	os->nwalked = 0;
}

/*
 * The walk starts over: a parallel participant reads the blocks it kept,
 * in the same order, the shared allocator untouched (the other
 * participants' walks go on); a serial scan reads the relation again.
 */
void
gpuhash_heap_scan_walk_again(GpuHeapScan *os)
{
	if (!os->recording)
	{
		gpuhash_heap_scan_rescan(os);
		return;
	}
	drop_scan_pin(os);
	os->replaying = true;
	os->replay_pos = 0;
	os->done = false;
	os->pending = false;
	os->index = os->ntuples = 0;
}

void
gpuhash_heap_scan_end(GpuHeapScan *os)
{
	if (os->scan)
		table_endscan(os->scan);
	os->scan = NULL;
}

/* ---------------------------------------------------------------------
 * A Parallel Seq Scan's block allocator, in the node's DSM (parallel.c
 * places it after the shared join state)
 * --------------------------------------------------------------------- */

Size
gpuhash_heap_scan_estimate(GpuHeapScan *os)
{
	if (os == NULL || !os->parallel)
		return 0;
	return MAXALIGN(table_parallelscan_estimate(os->rel, os->snapshot));
}

void
gpuhash_heap_scan_init_dsm(GpuHeapScan *os, void *space)
{
	if (os == NULL || !os->parallel)
		return;
	table_parallelscan_initialize(os->rel, (ParallelTableScanDesc) space, os->snapshot);
	os->scan = table_beginscan_parallel(os->rel, (ParallelTableScanDesc) space);
}

void
gpuhash_heap_scan_reinit_dsm(GpuHeapScan *os, void *space)
{
	if (os == NULL || !os->parallel)
		return;
	table_parallelscan_reinitialize(os->rel, (ParallelTableScanDesc) space);
}

void
gpuhash_heap_scan_init_worker(GpuHeapScan *os, void *space)
{
	if (os == NULL || !os->parallel)
		return;
	os->scan = table_beginscan_parallel(os->rel, (ParallelTableScanDesc) space);
}
