/*-------------------------------------------------------------------------
 *
 * agg_join_pages.c
 *	  GpuPreAgg over an inner join: the dimension made from the inner
 *	  relation's heap pages.  Where the inner plan is a Seq Scan of one table
 *	  whose quals the walker takes and whose needed columns (the join key,
 *	  the dimension's columns) it deforms, the node reads the table's pages
 *	  as its outer scan reads them (page_scan.c: pinned, all-visible pages as
 *	  they are, any other with heapgetpage's visible list, MVCC exactly
 *	  PostgreSQL's) and the walker makes, on the device, only the passing
 *	  rows' keys and values (gh_page_dim_rows, in the GPU service: REQ_DIM_PAGES;
 *	  in this backend on its host twin without one).  Rows of a page the
 *	  walker refuses (a compressed or out-of-line value, a malformed page)
 *	  are read by the CPU: the quals by ExecQual, the key and values from the
 *	  heap tuple, as the tuple path makes them (agg_join.c).  The rows then
 *	  become the dimension as the inner plan's rows do.
 *
 * The inner plan itself runs only where the CPU joins refused outer pages
 * (gpuhash_agg_join_load_rows), against the same snapshot; where it cannot
 * give the rows (a shared dimension's plan is partial; an outer join needs
 * them in the walk's order) the CPU reads the table itself
 * (agg_join_pages_rows.c).
 *
 * Serial plans and parallel plans with a dimension per participant (each
 * walks the whole table, as each would run its inner plan); with a shared
 * dimension (agg_join_par.c) each participant walks the blocks the
 * parallel block allocator in the node's DSM hands it (PostgreSQL's, as a
 * Parallel Seq Scan's: chunks of blocks claimed by an atomic counter), its
 * rows go to the query's DSA, and one dimension is built of all of them.
 * An outer join preserving the inner side, serially: its rows in block
 * order (a request with a refused page is read whole by the CPU), sorted
 * by key and position for the unmatched fold (agg_join_pages_rows.c).
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join_pages.h"
#include "service.h"
#include "service_dim.h"
#include "gpuhash_dim_pages.h"

#include "access/relscan.h"
#include "access/xact.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

/* e's Var, through RelabelTypes; NULL if not a plain Var */
static Var *
plain_var(Node *e)
{
	while (e != NULL && IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	return e != NULL && IsA(e, Var) ? (Var *) e : NULL;
}

/*
 * Decides whether the dimension comes from pages, before the join's
 * programs are compiled (the inner columns are then plain columns of the
 * inner table, never conditions evaluated on the CPU: agg_join_conds.c).
 */
void
gpuhash_agg_join_pages_plan(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	CustomScan *cscan = (CustomScan *) as->css.ss.ps.plan;
	Plan	   *inner = linitial(cscan->custom_plans);
	EState	   *estate = as->css.ss.ps.state;
	GpuAggJoinPages *jp;
	SeqScan    *ss;
	Index		irel;
	int			cap,
				all;
	AttrNumber	extra[GH_AGG_MAX_INNER];
	gh_page_scan *s;

	j->pages = NULL;

	/*
	 * An outer join preserving the inner side folds its unmatched rows by
	 * the dimension's positions (agg_join_outer.c): serially the CPU reads
	 * the rows in the walk's order (agg_join_pages_rows.c); in parallel
	 * every participant must agree on the shared chunks' order, so the
	 * dimension is built from the plan's rows there.  A parallel-aware
	 * inner plan is a shared dimension's share.
	 */
	if (j->preserve_inner && j->shared_plan)
		return;
	/* carried columns are read from the plan's rows (agg_join_carry.c) */
	if (j->carry != NULL)
		return;
	if (!gpuhash_page_scan || !gpuhash_dimension_pages || !IsA(inner, SeqScan) ||
		(inner->parallel_aware && !j->shared_plan) ||
		j->ncols > GH_AGG_MAX_INNER || j->njoinkeys > GH_PAGE_MAX_KEYS ||
		BLCKSZ != GH_PAGE_SIZE || IsolationIsSerializable())
		return;
	ss = (SeqScan *) inner;
	irel = ss->scan.scanrelid;
	for (int c = 0; c < j->ncols; c++)
	{
		if (j->cols[c].varno != irel || j->cols[c].varattno <= 0 ||
			j->cols[c].gtype == GH_T_SKIP)
			return;
		extra[c] = j->cols[c].varattno;
	}
	jp = palloc0(sizeof(GpuAggJoinPages));
	for (int k = 0; k < j->njoinkeys; k++)
	{
		Var		   *v = plain_var(list_nth(j->inner_keys, k));

		if (v == NULL || v->varno != irel || v->varattno <= 0 || v->varlevelsup != 0)
		{
			pfree(jp);
			return;
		}
		jp->key_attno[k] = v->varattno;
	}

	/*
	 * The table's pages as the outer scan reads them; the quals compiled
	 * for the walker, its key packed as the inner side's (the tuple path's
	 * encoding), the dimension's columns deformed.
	 */
	jp->plan = ss;
	/* shared: the blocks from the node's DSM (agg_exec.c's dsm_layout) */
	jp->os = gpuhash_heap_scan_open(&as->css.ss.ps, irel, ss->scan.plan.qual, NIL,
									j->shared_plan, estate, 0);
	gpuhash_page_program_cols(&jp->pp.prog, jp->os->desc, irel, ss->scan.plan.qual,
							  jp->key_attno, j->inner_conv, j->width, j->njoinkeys, false,
							  extra, j->ncols);
	s = jp->pp.prog.scan;
	if (s == NULL || jp->pp.prog.cpu_quals != NIL || s->nkeys != j->njoinkeys)
	{
		gpuhash_heap_scan_end(jp->os);
		return;
	}
	for (int c = 0; c < j->ncols; c++)
	{
		jp->cols[c] = (int16) (j->cols[c].varattno - 1);
		if (jp->cols[c] >= s->natts || s->col[jp->cols[c]].type != j->cols[c].gtype)
		{
			gpuhash_heap_scan_end(jp->os);
			return;
		}
	}
	jp->heap_cols = palloc(sizeof(GpuAggInnerCol) * Max(j->ncols, 1));
	for (int c = 0; c < j->ncols; c++)
	{
		jp->heap_cols[c] = j->cols[c];
		jp->heap_cols[c].tlpos = j->cols[c].varattno;
	}
	/*
	 * A request: as many pages as a batch pins, or the service takes;
	 * read in place, as many as the rows its layout holds let the pages
	 * list (service_dim_pages.c), several times a copied request's.
	 * The arrays for the larger: a request the service cannot take is
	 * walked here.
	 */
	cap = Max(jp->os->max_pins, 1);
	jp->cap_pages_in_place = cap;
	jp->cap_rows_in_place = 0;
	{
		uint32		rows;
		uint64		heap;
		uint32		svc = gpuhash_service_dim_pages_capacity(Max(j->ncols, 1), false, &rows,
															 &heap);
		uint32		svc_ip = gpuhash_service_dim_pages_capacity(Max(j->ncols, 1), true, &rows,
																&heap);

		if (svc > 0)
			cap = Min(cap, (int) svc);
		if (svc_ip > 0 && rows >= GH_PAGE_MAX_TUPLES)
		{
			jp->cap_pages_in_place = Max(cap, Min(jp->cap_pages_in_place, (int) svc_ip));
			jp->cap_rows_in_place = rows;
			jp->heap_in_place = heap;
		}
		else
			jp->cap_pages_in_place = cap;
	}
	all = Max(cap, jp->cap_pages_in_place);
	for (int i = 0; i < GPUAGG_DIM_PIPELINE; i++)
	{
		GpuPageReq *r = &jp->req[i].r;

		gpuhash_page_req_alloc(r, cap, all, (Size) GH_PAGE_MAX_TUPLES * all, false);
		jp->req[i].pins = palloc(sizeof(Buffer) * all);
	}
	jp->rkeys = palloc_extended(sizeof(uint64) * GH_PAGE_MAX_TUPLES * all, MCXT_ALLOC_HUGE);
	jp->rvals = palloc_extended(sizeof(gh_agg_inval) * GH_PAGE_MAX_TUPLES * all *
								Max(j->ncols, 1), MCXT_ALLOC_HUGE);
	jp->rheap = palloc_extended(gh_dim_pages_heap_bound(all, j->ncols), MCXT_ALLOC_HUGE);
	jp->copied_cap_pages = cap;
	jp->block_order = j->preserve_inner;
	j->pages = jp;
	gpuhash_agg_join_pages_rows_plan(as);
}

/*
 * Room for more rows; the dimension within work_mem x hash_mem_multiplier.
 * Past it, where the plan's rows could go to batches (may_give_up), the
 * walk stops after this request and the rows come from the plan instead;
 * elsewhere it is the error it was.
 */
static void
reserve_rows(GpuAggJoin *j, uint64 more, int ncols)
{
	GpuAggJoinPages *jp = j->pages;
	Size		limit = get_hash_memory_limit();
	uint64		want = jp->n + more;

	if (want > jp->cap)
	{
		uint64		cap = Max(want, Max(jp->cap * 2, 1024));

		jp->keys = jp->keys == NULL ?
			MemoryContextAllocHuge(j->rows_cxt, sizeof(uint64) * cap) :
			repalloc_huge(jp->keys, sizeof(uint64) * cap);
		jp->vals = jp->vals == NULL ?
			MemoryContextAllocHuge(j->rows_cxt, sizeof(gh_agg_inval) * cap * ncols) :
			repalloc_huge(jp->vals, sizeof(gh_agg_inval) * cap * ncols);
		jp->cap = cap;
	}
	j->bytes = jp->n * (sizeof(uint64) + sizeof(gh_agg_inval) * ncols) + jp->heap.len;
	if (j->bytes > limit)
	{
		if (!jp->may_give_up)
			gpuhash_agg_join_too_big(limit);
		jp->given_up = true;
	}
}

/* A request's rows appended: by-reference offsets moved past the heap so far. */
static void
append_rows(GpuAggJoin *j, uint64 n, uint64 heap_bytes, int ncols)
{
	GpuAggJoinPages *jp = j->pages;
	uint64		base;

	reserve_rows(j, n, ncols);
	while (jp->heap.len % 8 != 0)
		appendStringInfoChar(&jp->heap, '\0');
	base = (uint64) jp->heap.len;
	memcpy(jp->keys + jp->n, jp->rkeys, sizeof(uint64) * n);
	memcpy(jp->vals + jp->n * ncols, jp->rvals, sizeof(gh_agg_inval) * n * ncols);
	for (uint64 i = 0; i < n * ncols; i++)
	{
		gh_agg_inval *v = &jp->vals[jp->n * ncols + i];

		if (!v->null && v->len > 0)
			v->bits += base;
	}
	if (heap_bytes > 0)
		appendBinaryStringInfo(&jp->heap, (const char *) jp->rheap, (int) heap_bytes);
	jp->n += n;
}

/*
 * The tuples of refused page p that pass the quals, their keys and values
 * made by the CPU, as the tuple path makes them.  All-visible pages by the
 * line pointers seen under the lock, others by heapgetpage's visible list,
 * as GpuPreAgg reads its refused pages (agg_exec.c).
 */
static void
cpu_page(GpuPreAggState *as, GpuAggDimReq *q, int p, int ncols)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinPages *jp = j->pages;
	GpuPageReq *r = &q->r;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;
	gh_page_ref *ref = &r->refs[p];
	const ItemIdData *lps = r->lps + (Size) p * GH_PAGE_MAX_TUPLES;
	bool		all = ref->nvis == GH_PAGE_ALL_VISIBLE;
	int			n = all ? ref->maxoff : ref->nvis;
	Page		page = BufferGetPage(q->pins[p]);
	TupleTableSlot *hs = jp->os->slot;
	MemoryContext old;

	for (int i = 0; i < n; i++)
	{
		OffsetNumber off = all ? i + 1 : r->visible[ref->vis_start + i];
		HeapTupleData t;
		uint64		key = 0;
		bool		null_key = false;

		if (all && !ItemIdIsNormal(&lps[off - 1]))
			continue;
		gpuhash_page_tuple(page, r->blocks[p], off, RelationGetRelid(jp->os->rel), &t);
		if (!gpuhash_heap_scan_tuple_passes(jp->os, econtext, &t))
			continue;
		j->inner_rows++;
		ExecStoreHeapTuple(&t, hs, false);
		for (int k = 0; k < j->njoinkeys && !null_key; k++)
		{
			bool		isnull;
			Datum		d = slot_getattr(hs, jp->key_attno[k], &isnull);

			if (isnull)
				null_key = true;
			else
				key = gpuhash_pack(key, gpuhash_encode_datum(d, j->inner_conv[k]), j->width[k],
								   j->njoinkeys);
		}
		if (!null_key)
		{
			reserve_rows(j, 1, ncols);
			old = MemoryContextSwitchTo(j->rows_cxt);
			jp->keys[jp->n] = key;
			for (int c = 0; c < j->ncols; c++)
				gpuhash_agg_join_dim_value(&jp->heap_cols[c], hs, &jp->vals[jp->n * ncols + c],
										   &jp->heap);
			if (j->ncols == 0)
				memset(&jp->vals[jp->n * ncols], 0, sizeof(gh_agg_inval));
			MemoryContextSwitchTo(old);
			jp->n++;
			jp->cpu_rows++;
		}
		ExecClearTuple(hs);
		ResetExprContext(econtext);
	}
}

/*
 * One request's pages walked: its answer from the service where it is in
 * flight, else walked now in the service, else here on the host twin; then
 * its refused pages read by the CPU.
 */
static void
walk_request(GpuPreAggState *as, GpuAggDimReq *q, int ncols)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinPages *jp = j->pages;
	GpuPageReq *r = &q->r;
	gh_page_stats st;
	uint64		n,
				hb;
	int16		cols[GH_AGG_MAX_INNER];
	int			nc = j->ncols;
	uint64		refused_before;

	memcpy(cols, jp->cols, sizeof(cols));
	if (gpuhash_dim_pages_rows(r, jp->pp.prog.scan, cols, nc, as->use_service, as->device,
							   jp->rkeys, jp->rvals, jp->rheap, &n, &hb, &st))
	{
		jp->in_service++;
		jp->pp.pages_stored += st.stored;
		jp->pp.pages_filled += st.filled;
	}
	/* a dimension of no column still holds one value a row, as agg_join.c's */
	if (nc == 0)
		memset(jp->rvals, 0, sizeof(gh_agg_inval) * n);
	/* the heap a listed tuple's values took: later requests in place list fewer */
	if (r->in_place && r->n_visible > 0)
		jp->heap_per_tuple = Max(jp->heap_per_tuple, (double) hb / r->n_visible);
	refused_before = jp->refused;
	for (int p = 0; p < r->n_pages; p++)
		jp->refused += r->refused[p] ? 1 : 0;

	/*
	 * Rows in block order (an outer join's positions, agg_join_pages_rows.c):
	 * a refused page's rows would come after the request's others, so the
	 * CPU reads every page of such a request, in order.
	 */
	if (jp->block_order && jp->refused > refused_before)
	{
		memset(r->refused, 1, r->n_pages);
		n = hb = 0;
		st.passed = 0;
	}
	j->inner_rows += st.passed;
	append_rows(j, n, hb, ncols);
	jp->requests++;
	jp->pages += r->n_pages;
	for (int p = 0; p < r->n_pages; p++)
		if (r->refused[p])
			cpu_page(as, q, p, ncols);
}

/*
 * Tuples a request read in place may list: the layout's rows, and as many
 * as its heap holds values for at the most heap bytes a listed tuple has
 * needed so far (a half more, for the next pages' spread).  A page's whole
 * list always fits: a request of one page whose values outgrow the heap is
 * walked by the backend, as any the service answers full.
 */
static uint32
in_place_tuples(GpuAggJoinPages *jp)
{
	double		by_heap;

	if (jp->heap_per_tuple <= 0)
		return jp->cap_rows_in_place;
	by_heap = (double) jp->heap_in_place / (jp->heap_per_tuple * 1.5);
	if (by_heap >= (double) jp->cap_rows_in_place)
		return jp->cap_rows_in_place;
	return (uint32) Max(by_heap, (double) GH_PAGE_MAX_TUPLES);
}

/* The next pages read into q and, with the service, sent to be walked. */
static void
fill_request(GpuPreAggState *as, GpuAggDimReq *q)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinPages *jp = j->pages;
	GpuPageReq *r = &q->r;
	int16		cols[GH_AGG_MAX_INNER];

	r->pages = r->local_pages;
	gpuhash_page_req_reset(r, as->use_service && gpuhash_page_in_place &&
						   !RelationUsesLocalBuffers(jp->os->rel) &&
						   gpuhash_service_pages_in_place(),
						   jp->copied_cap_pages, jp->cap_pages_in_place, in_place_tuples(jp));
	q->n_pins = 0;
	gpuhash_page_read(jp->os, &jp->pp, r, q->pins, &q->n_pins);
	memcpy(cols, jp->cols, sizeof(cols));
	if (r->n_pages > 0 && as->use_service &&
		gpuhash_svc_dim_pages_submit(jp->pp.prog.scan, cols, j->ncols, r, as->device,
									 &r->ticket))
		r->in_flight = true;
}

/* q's pages done with: its pins go (the service no longer reads them). */
static void
release_request(GpuAggDimReq *q)
{
	if (q->r.ticket.slot >= 0)
		gpuhash_svc_probe_abandon(&q->r.ticket);
	q->r.in_flight = false;
	for (int i = 0; i < q->n_pins; i++)
		ReleaseBuffer(q->pins[i]);
	q->n_pins = 0;
	q->r.n_pages = 0;
}

/*
 * Every request of the walk given up: those in flight abandoned (the
 * service drops them before their pages' pins go), then, with
 * release_pins, the pins released (an error inside the walk; the node's
 * memory callback runs after the resource owner released them).
 */
void
gpuhash_agg_join_pages_abandon(GpuPreAggState *as, bool release_pins)
{
	GpuAggJoinPages *jp = as->join != NULL ? as->join->pages : NULL;

	if (jp == NULL)
		return;
	for (int i = 0; i < GPUAGG_DIM_PIPELINE; i++)
	{
		GpuAggDimReq *q = &jp->req[i];

		gpuhash_svc_probe_abandon(&q->r.ticket);
		q->r.in_flight = false;
		for (int p = 0; release_pins && p < q->n_pins; p++)
			ReleaseBuffer(q->pins[p]);
		q->n_pins = 0;
		q->r.n_pages = 0;
	}
}

/*
 * Will this run's dimension come from pages?  Every participant decides
 * alike: the plan and the programs compiled at Begin.
 */
bool
gpuhash_agg_join_pages_active(GpuPreAggState *as)
{
	return as->join->pages != NULL && !as->join->pages->given_up && as->why_cpu == NULL &&
		as->aprog != NULL;
}

/* Did this run give its pages up for the inner plan's rows (past work_mem)? */
bool
gpuhash_agg_join_pages_given_up(const GpuAggJoin *j)
{
	return j->pages != NULL && j->pages->given_up;
}

/*
 * The walk: the blocks of the inner table this participant gets (all of
 * them serially), their rows into jp's arrays.
 */
void
gpuhash_agg_join_pages_walk(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinPages *jp = j->pages;
	int			ncols = as->aprog->join.ninner;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	jp->n = jp->cap = 0;
	jp->keys = NULL;
	jp->vals = NULL;
	{
		MemoryContext old = MemoryContextSwitchTo(j->rows_cxt);

		initStringInfo(&jp->heap);
		MemoryContextSwitchTo(old);
	}
	gpuhash_heap_scan_start(jp->os);
	PG_TRY();
	{
		int			filled = 0,
					next_fill = 0,
					next_answer = 0;
		bool		done = false;

		for (;;)
		{
			/* read ahead while the service walks what is in flight */
			while (filled < GPUAGG_DIM_PIPELINE && !done)
			{
				GpuAggDimReq *q = &jp->req[next_fill];

				fill_request(as, q);
				if (q->r.n_pages == 0)
				{
					done = true;
					break;
				}
				next_fill = (next_fill + 1) % GPUAGG_DIM_PIPELINE;
				filled++;
				if (!q->r.in_flight)
					break;
			}
			if (filled == 0)
				break;
			walk_request(as, &jp->req[next_answer], ncols);
			release_request(&jp->req[next_answer]);
			next_answer = (next_answer + 1) % GPUAGG_DIM_PIPELINE;
			filled--;
			CHECK_FOR_INTERRUPTS();
			if (jp->given_up)
			{
				/* the requests still in flight dropped, their pins with them */
				gpuhash_agg_join_pages_abandon(as, true);
				break;
			}
		}
	}
	PG_CATCH();
	{
		gpuhash_agg_join_pages_abandon(as, true);
		PG_RE_THROW();
	}
	PG_END_TRY();
	jp->walk_ms += gpuhash_ms_since(t0);
	j->collect_ms += gpuhash_ms_since(t0);
	j->ship_bytes = jp->n * (sizeof(uint64) + sizeof(gh_agg_inval) * ncols) + jp->heap.len;
}

/* jp's arrays freed: the dimension holds its own copy. */
void
gpuhash_agg_join_pages_free_rows(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinPages *jp = j->pages;

	if (jp->keys != NULL)
		pfree(jp->keys);
	if (jp->vals != NULL)
		pfree(jp->vals);
	if (jp->heap.data != NULL)
		pfree(jp->heap.data);
	jp->keys = NULL;
	jp->vals = NULL;
	jp->heap.data = NULL;
	jp->n = jp->cap = 0;
	j->bytes = 0;
}

/*
 * At the first fetch: the dimension from the inner table's pages, where
 * pages_plan chose them; false where the dimension comes from the inner
 * plan's rows.
 */
bool
gpuhash_agg_join_pages_collect(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinPages *jp = j->pages;
	int			ncols;
	uint64		inner_rows;
	instr_time	t0;

	if (!gpuhash_agg_join_pages_active(as))
		return false;
	ncols = as->aprog->join.ninner;
	INSTR_TIME_SET_CURRENT(t0);
	jp->used = true;
	/* as the rows path can batch, a dimension of its own */
	jp->may_give_up = gpuhash_agg_join_batchable(as) && j->shared == NULL;
	inner_rows = j->inner_rows;
	gpuhash_agg_join_pages_walk(as);
	if (jp->given_up)
	{
		/*
		 * Past work_mem: the plan's rows, in batches (agg_join_batches.c),
		 * counted as they come; the scan's own pin goes now
		 */
		gpuhash_agg_join_pages_free_rows(as);
		gpuhash_heap_scan_rescan(jp->os);
		jp->used = false;
		j->inner_rows = inner_rows;
		j->build_ms += gpuhash_ms_since(t0);
		return false;
	}
	j->collected = true;
	/* an outer join: positions by key, then block order (agg_join_pages_rows.c) */
	if (jp->block_order)
		gpuhash_agg_join_pages_order(as, jp->keys, jp->n, jp->vals, ncols);
	jp->dim_rows = jp->n;
	(void) gpuhash_agg_join_build_arrays(as, MyProcPid, true, true, jp->keys, jp->n, jp->vals,
										 (const uint8 *) jp->heap.data, jp->heap.len);
	/* the dimension holds its own copy; the CPU's join gets rows at its need */
	gpuhash_agg_join_pages_free_rows(as);
	j->build_ms += gpuhash_ms_since(t0);
	return true;
}

/*
 * A shared dimension's walk: the inner table's block allocator in the
 * node's DSM (agg_exec.c's dsm_layout), PostgreSQL's as a Parallel Seq
 * Scan's (chunks of blocks claimed by an atomic counter), its snapshot the
 * leader's, restored by each worker's scan.  0: none (the walk is serial).
 */
Size
gpuhash_agg_join_pages_estimate(GpuPreAggState *as)
{
	if (as->join == NULL || as->join->pages == NULL)
		return 0;
	return gpuhash_heap_scan_estimate(as->join->pages->os);
}

void
gpuhash_agg_join_pages_init_dsm(GpuPreAggState *as, void *space, bool reinit)
{
	if (gpuhash_agg_join_pages_estimate(as) == 0)
		return;
	if (reinit)
		gpuhash_heap_scan_reinit_dsm(as->join->pages->os, space);
	else
		gpuhash_heap_scan_init_dsm(as->join->pages->os, space);
}

void
gpuhash_agg_join_pages_attach(GpuPreAggState *as, void *space)
{
	if (gpuhash_agg_join_pages_estimate(as) == 0)
		return;
	gpuhash_heap_scan_init_worker(as->join->pages->os, space);
}

/* A rescan: the table's pages read again (the arrays went with rows_cxt). */
void
gpuhash_agg_join_pages_rescan(GpuPreAggState *as)
{
	GpuAggJoinPages *jp = as->join->pages;

	if (jp == NULL)
		return;
	gpuhash_heap_scan_rescan(jp->os);
	jp->used = jp->shared = jp->given_up = false;
	if (jp->cpu_os != NULL)
		gpuhash_heap_scan_rescan(jp->cpu_os);
	jp->keys = NULL;
	jp->vals = NULL;
	jp->heap.data = NULL;
	jp->n = jp->cap = 0;
}

void
gpuhash_agg_join_pages_end(GpuPreAggState *as)
{
	GpuAggJoinPages *jp = as->join->pages;

	if (jp == NULL)
		return;
	gpuhash_heap_scan_end(jp->os);
	if (jp->cpu_os != NULL)
		gpuhash_heap_scan_end(jp->cpu_os);
}

/* EXPLAIN: where the dimension comes from, the walker's filter; ANALYZE: the walk. */
void
gpuhash_agg_join_pages_explain(GpuPreAggState *as, List *context, bool useprefix,
							   ExplainState *es)
{
	GpuAggJoinPages *jp = as->join->pages;

	if (jp == NULL)
		return;
	/* one line: shared by every participant, walked by them all */
	ExplainPropertyText("Dimension", as->join->shared_plan ? "shared, pages" : "pages", es);
	if (jp->plan->scan.plan.qual != NIL)
		ExplainPropertyText("Inner GPU Filter",
							deparse_expression((Node *) make_ands_explicit(jp->plan->scan.plan.qual),
											   context, useprefix, false), es);
	if (!es->analyze)
		return;
	ExplainPropertyUInteger("Inner Pages", NULL, jp->pages, es);
	/* shared: this participant's pages above, every participant's here */
	if (jp->shared)
	{
		ExplainPropertyUInteger("Inner Pages All Participants", NULL, jp->all_pages, es);
		ExplainPropertyUInteger("Inner Walkers", NULL, jp->walkers, es);
	}
	/* not all-visible: heapgetpage's visible lists */
	ExplainPropertyUInteger("Inner Pages Checked", NULL, jp->pp.pages_checked, es);
	ExplainPropertyUInteger("Inner Pages Refused", NULL, jp->refused, es);
	ExplainPropertyUInteger("Inner Rows From CPU", NULL, jp->cpu_rows, es);
	ExplainPropertyUInteger("Inner Requests In Service", NULL, jp->in_service, es);
	/* gpuhash.page_cache_size: pages walked from their copies on the device */
	if (jp->pp.pages_stored > 0)
	{
		ExplainPropertyUInteger("Inner Pages From Page Cache", NULL,
								jp->pp.pages_stored - jp->pp.pages_filled, es);
		ExplainPropertyUInteger("Inner Pages Into Page Cache", NULL, jp->pp.pages_filled, es);
	}
	/* its rows passed work_mem: the dimension came from the inner plan's rows */
	if (jp->given_up)
		ExplainPropertyText("Inner Pages Given Up", "past work_mem", es);
	if (es->timing)
		ExplainPropertyFloat("Inner Walk Time", "ms", jp->walk_ms, 3, es);
}
