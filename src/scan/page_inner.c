/*-------------------------------------------------------------------------
 *
 * page_inner.c
 *	  The page path of an absorbed inner scan (issue 53): the build side's
 *	  heap pages go to the page walker (cuda/gpuhash_page.h) with no table,
 *	  which deforms and filters them and hands back the rows that pass, as
 *	  (page, line pointer) records; the CPU then reads only those rows' keys
 *	  and kept columns, as the tuple path reads every row's.
 *
 * Pages come as the tuple path reads them (serial, or the parallel block
 * allocator), with the outer page path's visibility rules (page_scan.c): a
 * page marked all-visible (and a snapshot not taken during recovery) goes
 * with the line pointers seen under its share lock; any other page goes
 * through heapgetpage(), page-mode visibility and pruning included, with
 * its visible offsets.  Each page is copied under the share lock and the
 * pin goes at once: the build copies every row it keeps before the next
 * request, so the rows are read from the copies, which no other backend
 * changes.
 *
 * The walker runs the GPU prefix of the scan's quals (gpu_qual.c, the
 * outer path's compiler and rules); the rest run here in plan order
 * through ExecQual on the rows it hands back.  A page it refuses (a needed
 * value toasted or compressed, a missing attribute by reference, an
 * overflow) goes through the scan's own quals tuple by tuple; a failed
 * request is all pages refused.  Nothing is dropped.
 *
 * The walker picks its device from the table's, and with no table
 * gh_page_probe walks in this backend's host twin.  So where the join's
 * own table goes to a GPU of the GPU service, the requests go against a
 * one-row table built there for the scan (key 0: with no key every row's
 * key is 0, and GH_PAGE_ALL_ROWS hands back every row that passes whatever
 * its range), and the service walks them on that table's GPU.  It lives
 * while the scan reads its pages: freed at the scan's end, and on error,
 * cancel or rescan by the node's reset callback (or the service's sweep
 * of an exited owner's tables).  The rows come out in the same order and
 * with the same quals' results wherever the walk ran.
 *
 * Measured on the host twin (1.5 M rows, five date and IN-list clauses,
 * all pages all-visible), the walk without a table read the inner side in
 * 2.7 times the tuple path's time: gpuhash.page_inner = gpu (the default)
 * takes the path only where the walk goes to a GPU; "always" takes it on
 * the host twin too, and with gpuhash.page_inner_service builds the
 * one-row table in a service without a GPU, so tests exercise its life.
 *
 * Where: batch 0 of an absorbed inner scan that is not split across a
 * parallel join's shared batches (those read through next_inner_row), not
 * SERIALIZABLE (predicate locks go per tuple), gpuhash.page_scan on, and a
 * qual the walker takes.  Rows go to take_inner_row as the tuple path's
 * do, so later hash batches spill them as before.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "buffer_hint.h"
#include "page_scan.h"
#include "service.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "access/xact.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

int			gpuhash_page_inner = GPUHASH_PAGE_INNER_OFF;
bool		gpuhash_page_inner_service = false;

/* Pages one request takes: 512 kB of copies. */
#define INNER_REQ_PAGES 64

/* The inner side's page path, set up once per node. */
typedef struct GpuPageInner
{
	GpuPageProgram prog;
	ExprState  *cpu_qual;		/* prog.cpu_quals over the heap tuple slot */
	bool		serializable;
	GpuPageReq	req;			/* pages in local_pages; no pins kept */
	HeapTupleData *tups;		/* the rows handed to the build */
	bool		want_table;		/* walk against a one-row service table */
	bool		table_failed;	/* its build failed: not tried again */
	GhRemoteTable svc;			/* that table while the scan reads; id 0: none */
	/* EXPLAIN ANALYZE */
	uint64		pages_all_visible;
	uint64		pages_checked;
	uint64		pages_refused;
	uint64		requests;
	uint64		in_service;
	uint64		on_gpu;			/* of those, walked on a GPU */
	uint64		matches_total;
	double		page_ms;
} GpuPageInner;

/*
 * The page path of gs's absorbed inner scan plan, if it can have one: a
 * program with no key (the CPU keys the rows that pass) and the quals the
 * walker takes.
 */
void
gpuhash_page_inner_setup(GpuJoinState *gs, SeqScan *plan, EState *estate)
{
	GpuHeapScan *is = gs->iscan;
	GpuPageInner *pi;
	GpuPageReq *r;
	int			n;

	if (!gpuhash_page_scan || !gpuhash_page_inner || is == NULL || plan->scan.plan.qual == NIL ||
		BLCKSZ != GH_PAGE_SIZE)
		return;
	pi = MemoryContextAllocZero(gs->cxt, sizeof(GpuPageInner));
	/* every row that passes comes back: ALL_ROWS, no key */
	gpuhash_page_program(&pi->prog, is->desc, plan->scan.scanrelid, plan->scan.plan.qual,
						 NULL, NULL, NULL, 0, true);
	/* nothing for the walker to filter: the tuple path reads no more than it would */
	if (pi->prog.scan == NULL || pi->prog.gpu_quals == NIL ||
		gh_page_scan_check(pi->prog.scan) != GH_OK)
	{
		pfree(pi);
		return;
	}
	pi->serializable = IsolationIsSerializable();
	/* where the join's table goes to a service GPU, the walk can go there too */
	{
		const char *reason;

		pi->want_table = gpuhash_service_ready() &&
			((gpuhash_service_gpu_count() > 0 &&
			  gpuhash_effective_device(&reason) == GPUHASH_RUN_GPU) ||
			 (gpuhash_page_inner == GPUHASH_PAGE_INNER_ALWAYS && gpuhash_page_inner_service));
	}
	if (!pi->want_table && gpuhash_page_inner != GPUHASH_PAGE_INNER_ALWAYS)
	{
		/* the walk would run on the host: slower than the tuple path */
		pfree(pi);
		return;
	}
	pi->cpu_qual = gpuhash_heap_qual_init(pi->prog.cpu_quals, &gs->css.ss.ps, is->desc);
	r = &pi->req;
	n = r->cap_pages = INNER_REQ_PAGES;
	r->blocks = MemoryContextAlloc(gs->cxt, sizeof(BlockNumber) * n);
	r->refs = MemoryContextAlloc(gs->cxt, sizeof(gh_page_ref) * n);
	r->local_pages = MemoryContextAllocHuge(gs->cxt, (Size) GH_PAGE_SIZE * n);
	r->pages = r->local_pages;
	r->visible = MemoryContextAlloc(gs->cxt, sizeof(uint16) * GH_PAGE_MAX_TUPLES * n);
	r->matches = MemoryContextAllocHuge(gs->cxt, sizeof(gh_page_match) * GH_PAGE_MAX_TUPLES * n);
	r->refused = MemoryContextAlloc(gs->cxt, n);
	pi->tups = MemoryContextAllocHuge(gs->cxt, sizeof(HeapTupleData) * GH_PAGE_MAX_TUPLES * n);
	gs->ipage = pi;
}

/*
 * Builds the one-row table the scan's requests go against, in the service
 * (on a GPU where it has one); false when it failed or landed on the host
 * where a GPU was wanted (then nothing is left in the service).
 */
static bool
build_walk_table(GpuPageInner *pi)
{
	gh_build_options opt;
	GpuKeyParts keys;
	uint64		zero = 0;
	bool		gpu = gpuhash_service_gpu_count() > 0;

	if (pi->table_failed || !gpuhash_service_ready())
		return false;
	/* linear places any one key at once */
	gpuhash_build_options(&opt, gpu ? GH_DEVICE_GPU : GH_DEVICE_HOST, GH_SCHEME_LINEAR);
	gpuhash_keys_one(&keys, &zero, 1);
	if (gpuhash_svc_build(&opt, &keys, 0, &pi->svc) != GH_OK)
	{
		elog(DEBUG1, "gpuhash: no table for the inner page walk: %s", gh_last_error());
		memset(&pi->svc, 0, sizeof(pi->svc));
		pi->table_failed = true;
		return false;
	}
	if (gpu && pi->svc.info.device != GH_DEVICE_GPU)
	{
		/* the service moved it off its GPUs: the walk would run on the host */
		gpuhash_svc_free(&pi->svc);
		memset(&pi->svc, 0, sizeof(pi->svc));
		pi->table_failed = true;
		return false;
	}
	return true;
}

/* Frees the walk's table, if any; never throws (the node's reset callback). */
void
gpuhash_page_inner_release(GpuJoinState *gs)
{
	GpuPageInner *pi = gs->ipage;

	if (pi == NULL || pi->svc.id == 0)
		return;
	gpuhash_svc_free(&pi->svc);
	memset(&pi->svc, 0, sizeof(pi->svc));
}

/*
 * May this read of the inner side go by pages?  Where the walk is to run
 * in the service, its table is built now; without it, "gpu" leaves the
 * read to the tuple path.
 */
bool
gpuhash_page_inner_usable(GpuJoinState *gs)
{
	GpuPageInner *pi = gs->ipage;

	if (pi == NULL || pi->serializable || gs->iscan == NULL || gs->iscan->pending ||
		gs->curbatch != 0)
		return false;
	if (!pi->want_table || pi->svc.id != 0 || build_walk_table(pi))
		return true;
	return gpuhash_page_inner == GPUHASH_PAGE_INNER_ALWAYS;
}

/*
 * Adds block blk to the request: its visibility decided, copied under the
 * share lock.  False when it has no visible tuple (not added).
 */
static bool
add_page(GpuJoinState *gs, GpuPageInner *pi, BlockNumber blk)
{
	GpuHeapScan *is = gs->iscan;
	HeapScanDesc hs = (HeapScanDesc) is->scan;
	Buffer		buf = gpuhash_read_hinted_buffer(is->rel, blk, hs->rs_strategy);
	Page		page;
	gh_page_ref *ref = &pi->req.refs[pi->req.n_pages];
	uint8	   *copy = pi->req.pages + (Size) pi->req.n_pages * GH_PAGE_SIZE;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	/* (more line pointers than a heap page holds: heapam decides, below) */
	if (PageIsAllVisible(page) && !is->snapshot->takenDuringRecovery &&
		PageGetMaxOffsetNumber(page) <= GH_PAGE_MAX_TUPLES)
	{
		/* every tuple is visible to every snapshot, as heapgetpage decides */
		ref->nvis = GH_PAGE_ALL_VISIBLE;
		ref->maxoff = PageGetMaxOffsetNumber(page);
		if (ref->maxoff == 0)
		{
			UnlockReleaseBuffer(buf);
			return false;
		}
		memcpy(copy, page, GH_PAGE_SIZE);
		UnlockReleaseBuffer(buf);
		ref->vis_start = pi->req.n_visible;
		pi->pages_all_visible++;
	}
	else
	{
		/* heapam's page mode; pruning needs the only pin: ours goes */
		UnlockReleaseBuffer(buf);
		heapgetpage(is->scan, blk);
		if (hs->rs_ntuples == 0)
			return false;
		buf = hs->rs_cbuf;
		ref->nvis = hs->rs_ntuples;
		ref->vis_start = pi->req.n_visible;
		memcpy(pi->req.visible + pi->req.n_visible, hs->rs_vistuples, sizeof(uint16) * hs->rs_ntuples);
		pi->req.n_visible += hs->rs_ntuples;
		/* the visible tuples stay put under the scan's pin; the copy has them */
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		ref->maxoff = PageGetMaxOffsetNumber(BufferGetPage(buf));
		memcpy(copy, BufferGetPage(buf), GH_PAGE_SIZE);
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		pi->pages_checked++;
	}
	ref->offset = (uint64) pi->req.n_pages * GH_PAGE_SIZE;
	pi->req.blocks[pi->req.n_pages++] = blk;
	return true;
}

/* Reads the next pages with visible tuples into the request; how many. */
static int
fill_request(GpuJoinState *gs, GpuPageInner *pi)
{
	GpuHeapScan *is = gs->iscan;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	gpuhash_heap_scan_start(is);
	pi->req.n_pages = 0;
	pi->req.n_visible = 0;
	pi->req.n_matches = 0;
	while (pi->req.n_pages < pi->req.cap_pages && !is->done)
	{
		BlockNumber blk;

		CHECK_FOR_INTERRUPTS();
		blk = gpuhash_heap_scan_next_block(is);
		if (!BlockNumberIsValid(blk))
			break;
		(void) add_page(gs, pi, blk);
	}
	pi->page_ms += gpuhash_ms_since(t0);
	if (is->timed)
		is->page_ms += gpuhash_ms_since(t0);
	return pi->req.n_pages;
}

/* Tuple off of page p's copy, in t. */
static inline void
copy_tuple(GpuJoinState *gs, GpuPageInner *pi, int p, OffsetNumber off, HeapTuple t)
{
	Page		page = (Page) (pi->req.pages + pi->req.refs[p].offset);
	ItemId		lp = PageGetItemId(page, off);

	t->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	t->t_len = ItemIdGetLength(lp);
	t->t_tableOid = RelationGetRelid(gs->iscan->rel);
	ItemPointerSet(&t->t_self, pi->req.blocks[p], off);
}

/* Does a row the walker passed pass the quals the CPU kept? */
static inline bool
cpu_passes(GpuJoinState *gs, GpuPageInner *pi, HeapTuple t)
{
	ExprContext *econtext = gs->key_econtext;
	bool		pass;

	if (pi->cpu_qual == NULL)
		return true;
	ExecStoreHeapTuple(t, gs->iscan->slot, false);
	econtext->ecxt_scantuple = gs->iscan->slot;
	pass = ExecQual(pi->cpu_qual, econtext);
	ResetExprContext(econtext);
	if (!pass)
		gs->iscan->filtered++;
	return pass;
}

/* A refused page, the tuple path's way: its visible tuples through the scan's quals. */
static int
page_by_tuples(GpuJoinState *gs, GpuPageInner *pi, int p, int n)
{
	gh_page_ref *ref = &pi->req.refs[p];
	Page		page = (Page) (pi->req.pages + ref->offset);
	bool		all = ref->nvis == GH_PAGE_ALL_VISIBLE;
	int			count = all ? ref->maxoff : ref->nvis;

	for (int i = 0; i < count; i++)
	{
		OffsetNumber off = all ? i + 1 : pi->req.visible[ref->vis_start + i];
		HeapTuple	t = &pi->tups[n];

		if (all && !ItemIdIsNormal(PageGetItemId(page, off)))
			continue;
		copy_tuple(gs, pi, p, off, t);
		if (gpuhash_heap_scan_tuple_passes(gs->iscan, gs->key_econtext, t))
			n++;
	}
	return n;
}

/*
 * The request's pages walked: in the service against the scan's one-row
 * table where there is one and a slot is free (on its GPU), else in this
 * backend with no table (gh_page_probe then walks on the host).
 */
static void
walk_request(GpuJoinState *gs, GpuPageInner *pi)
{
	GpuPageReq *r = &pi->req;
	gh_status	st = GH_ERR_INVALID;
	bool		walked = false;

	memset(&r->stats, 0, sizeof(r->stats));
	r->ticket.slot = -1;
	if (pi->svc.id != 0 && gpuhash_svc_page_submit(&pi->svc, pi->prog.scan, r, &r->ticket))
	{
		st = gpuhash_svc_page_wait(&pi->svc, &r->ticket, r);
		walked = st == GH_OK;
		if (walked)
		{
			pi->in_service++;
			if (pi->svc.info.device == GH_DEVICE_GPU)
				pi->on_gpu++;
		}
		else
			elog(DEBUG1, "gpuhash: inner page request not walked in the service: %s",
				 gh_last_error());
	}
	if (!walked)
	{
		memset(&r->stats, 0, sizeof(r->stats));
		st = gh_page_probe(NULL, pi->prog.scan, r->refs, r->n_pages, r->pages,
						   (size_t) r->n_pages * GH_PAGE_SIZE, r->visible, r->n_visible,
						   r->matches, (size_t) r->cap_pages * GH_PAGE_MAX_TUPLES,
						   &r->n_matches, r->refused, &r->stats);
	}
	pi->requests++;
	if (st != GH_OK)
	{
		/* not walked: every page the CPU's way */
		elog(DEBUG1, "gpuhash: inner page request not walked: %s", gh_last_error());
		r->n_matches = 0;
		memset(r->refused, 1, r->n_pages);
		return;
	}
	gs->iscan->filtered += r->stats.tuples - r->stats.passed;
	pi->matches_total += r->n_matches;
}

/*
 * The inner rows of the next pages that have any: in *tups, pointing into
 * the request's page copies, valid until the next call; how many, 0 at the
 * end of the scan.  In (page, line pointer) order, refused pages' rows in
 * their place.
 */
int
gpuhash_page_inner_next(GpuJoinState *gs, HeapTupleData **tups)
{
	GpuPageInner *pi = gs->ipage;

	*tups = pi->tups;
	while (fill_request(gs, pi) > 0)
	{
		size_t		mi = 0;
		int			n = 0;

		walk_request(gs, pi);
		for (int p = 0; p < pi->req.n_pages; p++)
		{
			if (pi->req.refused[p])
			{
				pi->pages_refused++;
				n = page_by_tuples(gs, pi, p, n);
				continue;
			}
			for (; mi < pi->req.n_matches && pi->req.matches[mi].page == (uint32) p; mi++)
			{
				HeapTuple	t = &pi->tups[n];

				copy_tuple(gs, pi, p, pi->req.matches[mi].lp, t);
				if (cpu_passes(gs, pi, t))
					n++;
			}
		}
		if (n > 0)
			return n;
	}
	/* the scan's pages are read: nothing stays in the service */
	gpuhash_page_inner_release(gs);
	return 0;
}

/* EXPLAIN: the walker's clauses; with ANALYZE and VERBOSE, the pages. */
void
gpuhash_page_inner_explain(GpuJoinState *gs, ExplainState *es, List *context, bool useprefix)
{
	GpuPageInner *pi = gs->ipage;

	if (pi == NULL || pi->serializable)
		return;
	ExplainPropertyText("Inner GPU Filter",
						deparse_expression((Node *) make_ands_explicit(pi->prog.gpu_quals),
										   context, useprefix, false), es);
	if (!es->analyze || pi->pages_all_visible + pi->pages_checked == 0 || !es->verbose)
		return;
	ExplainPropertyUInteger("Inner Pages All-Visible", NULL, pi->pages_all_visible, es);
	ExplainPropertyUInteger("Inner Pages Checked", NULL, pi->pages_checked, es);
	ExplainPropertyUInteger("Inner Pages Refused", NULL, pi->pages_refused, es);
	ExplainPropertyText("Inner Page Path",
						pi->requests > 0 && pi->on_gpu == pi->requests ? "GPU service (gpu)" :
						pi->requests > 0 && pi->in_service == pi->requests ? "GPU service (host)" :
						pi->in_service > 0 ? "GPU service, in part" : "in-process", es);
	ExplainPropertyUInteger("Inner Page Requests", NULL, pi->requests, es);
	ExplainPropertyUInteger("Inner Page Matches", NULL, pi->matches_total, es);
}
