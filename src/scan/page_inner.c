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
 * allocator), read by the outer page path's code (gpuhash_page_read): a
 * page marked all-visible (and a snapshot not taken during recovery) goes
 * with its LP_NORMAL items listed under its share lock, any other page
 * through heapgetpage(), page-mode visibility and pruning included, with
 * its visible offsets.  A request's pages stay pinned until the build has
 * taken its rows (it copies every row it keeps before the next call), so
 * the service walks them where they lie in the buffer pool (read in place,
 * up to a probe batch's listed tuples a request, about a thousand pages),
 * and the rows are read from the buffers, as the outer page path reads
 * its matches (ARCHITECTURE.md says why a pinned page's listed items stay
 * put).  Where the pool is not mapped (or a temporary table), 64 pages go
 * copied under the share lock and the rows are read from the copies.  Two
 * requests are in flight: the next one's pages are read while the GPU
 * walks one.
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
 * Keys only: where the build keeps no inner column (a count(*), a semi or
 * anti join), keeps no NULL-key row (not right or full) and the walker
 * takes every qual (or there is none), the CPU needs nothing of a row but
 * its key.  Then the program carries the join's exact key and the pages
 * go as the GPU aggregate's dimension pages do (REQ_DIM_PAGES with no
 * column, no table): the walk answers each passing row's packed key, as
 * the tuple path packs it, and the build takes the keys without reading a
 * tuple; a refused page's rows are keyed here.  The pages' pins go once
 * their keys are copied out.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "buffer_hint.h"
#include "page_scan.h"
#include "service.h"
#include "service_dim.h"
#include "gpuhash_dim_pages.h"

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
bool		gpuhash_page_inner_keys = true;

/* Pages a copied request takes: 512 kB of copies. */
#define INNER_REQ_PAGES 64

/* Requests at once: the next one's pages are read while the GPU walks one. */
#define INNER_PIPELINE 2

/* One request: its pages, pinned until its rows have gone to the build. */
typedef struct InnerReq
{
	GpuPageReq	r;
	Buffer	   *pins;
	int			n_pins;
	bool		filled;			/* read, waiting to be walked or handed out */
} InnerReq;

/* The inner side's page path, set up once per node. */
typedef struct GpuPageInner
{
	GpuPagePath pp;				/* the program, the requests' sizes (pp.cap_pages
								 * copied), the counts of EXPLAIN ANALYZE */
	bool		serializable;
	InnerReq	q[INNER_PIPELINE];
	int			head;			/* the oldest request filled */
	int			out;			/* the request whose rows were handed out, or -1 */
	HeapTupleData *tups;		/* the rows handed to the build */
	bool		want_table;		/* walk against a one-row service table */
	bool		table_failed;	/* its build failed: not tried again */
	GhRemoteTable svc;			/* that table while the scan reads; id 0: none */
	/*
	 * Keys only: the build keeps no column and no NULL-key row, and the
	 * walker takes every qual, so a walk hands back each passing row's
	 * packed key (the dimension walk, REQ_DIM_PAGES, of no column) and no
	 * tuple is read here.
	 */
	bool		keys_only;
	bool		key_service;	/* those walks go to the service */
	gh_device	key_device;		/* on its GPU, or its host twin */
	uint64	   *keys;			/* a request's keys */
	double		walk_gpu_ms;	/* their walks' time on the GPU (CUDA events) */
	/* EXPLAIN ANALYZE, beside pp's */
	uint64		on_gpu;			/* requests walked on a GPU */
	uint64		in_place;		/* requests read in the buffer pool */
} GpuPageInner;

/*
 * Can the walker make the build's keys itself: no kept column, no NULL-key
 * row kept (right and full joins emit those), exact keys of plain columns?
 * Their columns, conversions and widths in attno, conv, width.
 */
static bool
keys_walkable(GpuJoinState *gs, AttrNumber *attno, GpuKeyConv *conv, int *width)
{
	int			nkeys = gs->info.nkeys;

	if (gs->n_inner_keep > 0 || gs->fill_inner || gs->info.fingerprint ||
		!gs->inner_keys_plain || nkeys < 1 || nkeys > GH_PAGE_MAX_KEYS)
		return false;
	for (int k = 0; k < nkeys; k++)
	{
		attno[k] = gs->inner_keys[k].attno;
		conv[k] = gs->info.keys[k].inner_conv;
		width[k] = gs->info.keys[k].width;
	}
	return true;
}

/*
 * A keys-only walk's requests: as many pages as the service's dimension
 * walk of no column takes, copied or in place (a row a listed tuple).
 */
static void
size_key_requests(GpuPageInner *pi, int max_pins)
{
	uint32		rows;
	uint64		heap;
	uint32		svc = gpuhash_service_dim_pages_capacity(0, false, &rows, &heap);
	uint32		svc_ip = gpuhash_service_dim_pages_capacity(0, true, &rows, &heap);

	pi->pp.cap_pages = Max(max_pins, 1);
	if (svc > 0)
		pi->pp.cap_pages = Min(pi->pp.cap_pages, (int) svc);
	pi->pp.cap_pages_in_place = pi->pp.cap_pages;
	pi->pp.cap_tuples_in_place = 0;
	if (svc_ip > 0 && rows >= GH_PAGE_MAX_TUPLES)
	{
		pi->pp.cap_pages_in_place = Max(pi->pp.cap_pages, Min(max_pins, (int) svc_ip));
		pi->pp.cap_tuples_in_place = rows;
	}
}

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
	int			rows_cap;
	AttrNumber	attno[GH_PAGE_MAX_KEYS];
	GpuKeyConv	conv[GH_PAGE_MAX_KEYS];
	int			width[GH_PAGE_MAX_KEYS];
	bool		keys_only;
	bool		service;

	if (!gpuhash_page_scan || is == NULL || BLCKSZ != GH_PAGE_SIZE)
		return;
	keys_only = gpuhash_page_inner_keys && keys_walkable(gs, attno, conv, width);
	/* the rows' walk: where gpuhash.page_inner allows it and a qual is to be taken */
	if (!keys_only && (!gpuhash_page_inner || plan->scan.plan.qual == NIL))
		return;
	pi = MemoryContextAllocZero(gs->cxt, sizeof(GpuPageInner));
	if (keys_only)
	{
		/* the keys made by the walker, every qual with them */
		gpuhash_page_program(&pi->pp.prog, is->desc, plan->scan.scanrelid,
							 plan->scan.plan.qual, attno, conv, width, gs->info.nkeys, false);
		keys_only = pi->pp.prog.scan != NULL && pi->pp.prog.cpu_quals == NIL &&
			!pi->pp.prog.first_row_build && gh_page_scan_check(pi->pp.prog.scan) == GH_OK;
		if (!keys_only && (!gpuhash_page_inner || plan->scan.plan.qual == NIL))
		{
			pfree(pi);
			return;
		}
	}
	if (!keys_only)
	{
		/* every row that passes comes back: ALL_ROWS, no key */
		gpuhash_page_program(&pi->pp.prog, is->desc, plan->scan.scanrelid,
							 plan->scan.plan.qual, NULL, NULL, NULL, 0, true);
		/* nothing for the walker to filter: the tuple path reads no more than it would */
		if (pi->pp.prog.scan == NULL || pi->pp.prog.gpu_quals == NIL ||
			gh_page_scan_check(pi->pp.prog.scan) != GH_OK)
		{
			pfree(pi);
			return;
		}
	}
	pi->serializable = IsolationIsSerializable();
	/* where the join's table goes to a service GPU, the walk can go there too */
	{
		const char *reason;

		service = gpuhash_service_ready() &&
			((gpuhash_service_gpu_count() > 0 &&
			  gpuhash_effective_device(&reason) == GPUHASH_RUN_GPU) ||
			 (gpuhash_page_inner == GPUHASH_PAGE_INNER_ALWAYS && gpuhash_page_inner_service));
		pi->key_device = gpuhash_service_gpu_count() > 0 &&
			gpuhash_effective_device(&reason) == GPUHASH_RUN_GPU ?
			GH_DEVICE_GPU : GH_DEVICE_HOST;
	}
	if (keys_only)
	{
		/* no table: the walks name none (REQ_DIM_PAGES) */
		pi->keys_only = true;
		pi->key_service = service;
		if (!service && gpuhash_page_inner != GPUHASH_PAGE_INNER_ALWAYS)
		{
			pfree(pi);
			return;
		}
		size_key_requests(pi, is->max_pins);
		rows_cap = GH_PAGE_MAX_TUPLES * Max(pi->pp.cap_pages, pi->pp.cap_pages_in_place);
		{
			MemoryContext old = MemoryContextSwitchTo(gs->cxt);
			int			nr = Max(pi->pp.cap_pages, pi->pp.cap_pages_in_place);

			for (int i = 0; i < INNER_PIPELINE; i++)
			{
				gpuhash_page_req_alloc(&pi->q[i].r, pi->pp.cap_pages, nr, rows_cap, false);
				pi->q[i].pins = palloc(sizeof(Buffer) * nr);
			}
			pi->tups = palloc(sizeof(HeapTupleData) * GH_PAGE_MAX_TUPLES);
			pi->keys = palloc_extended(sizeof(uint64) * rows_cap, MCXT_ALLOC_HUGE);
			MemoryContextSwitchTo(old);
		}
		pi->out = -1;
		gs->ipage = pi;
		return;
	}
	pi->want_table = service;
	if (!pi->want_table && gpuhash_page_inner != GPUHASH_PAGE_INNER_ALWAYS)
	{
		/* the walk would run on the host: slower than the tuple path */
		pfree(pi);
		return;
	}
	if (!gpuhash_heap_qual_share(is, pi->pp.prog.cpu_quals, &gs->css.ss.ps, &pi->pp.cpu_qual))
	{
		pfree(pi);
		return;
	}
	pi->pp.cap_pages = Min(INNER_REQ_PAGES, is->max_pins);
	rows_cap = pi->pp.cap_pages * GH_PAGE_MAX_TUPLES;

	/*
	 * Read in place (the service walks the pages in the buffer pool), a
	 * request takes up to a probe batch's worth of listed tuples: its
	 * fixed costs (the service's round trip, the launches) spread over
	 * a thousand pages instead of 64, and no page is copied.
	 */
	if (pi->want_table &&
		gpuhash_page_caps_in_place(is->max_pins, pi->pp.cap_pages, (uint32) gs->batch_cap,
								   &pi->pp.cap_pages_in_place, &pi->pp.cap_tuples_in_place))
		rows_cap = Max(rows_cap, (int) pi->pp.cap_tuples_in_place);
	else
		pi->pp.cap_pages_in_place = pi->pp.cap_pages;
	{
		MemoryContext old = MemoryContextSwitchTo(gs->cxt);
		int			nr = Max(pi->pp.cap_pages, pi->pp.cap_pages_in_place);

		for (int i = 0; i < INNER_PIPELINE; i++)
		{
			gpuhash_page_req_alloc(&pi->q[i].r, pi->pp.cap_pages, nr, rows_cap, true);
			pi->q[i].pins = palloc(sizeof(Buffer) * nr);
		}
		pi->tups = palloc_extended(sizeof(HeapTupleData) * rows_cap, MCXT_ALLOC_HUGE);
		MemoryContextSwitchTo(old);
	}
	pi->out = -1;
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

/*
 * Request q done with: given up in the service if it is in flight or holds
 * a slot (the service drops it before its pages' pins go), then, with
 * release_pins, its pins released.  Without: an error's cleanup, which runs
 * after the resource owner released them.
 */
static void
forget_request(InnerReq *q, bool release_pins)
{
	if (q->r.ticket.slot >= 0)
		gpuhash_svc_probe_abandon(&q->r.ticket);
	q->r.in_flight = false;
	for (int i = 0; release_pins && i < q->n_pins; i++)
		ReleaseBuffer(q->pins[i]);
	q->n_pins = 0;
	q->r.n_pages = 0;
	q->filled = false;
}

/*
 * Every request forgotten and the walk's table freed; never throws.  With
 * release_pins (a rescan, the scan's end) the requests' pins go too; the
 * node's reset callback passes false.
 */
void
gpuhash_page_inner_release(GpuJoinState *gs, bool release_pins)
{
	GpuPageInner *pi = gs->ipage;

	if (pi == NULL)
		return;
	for (int i = 0; i < INNER_PIPELINE; i++)
		forget_request(&pi->q[i], release_pins);
	pi->head = 0;
	pi->out = -1;
	if (pi->svc.id == 0)
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
	if (pi->keys_only)
		return pi->key_service || gpuhash_page_inner == GPUHASH_PAGE_INNER_ALWAYS;
	if (!pi->want_table || pi->svc.id != 0 || build_walk_table(pi))
		return true;
	return gpuhash_page_inner == GPUHASH_PAGE_INNER_ALWAYS;
}

/*
 * Reads the next pages with visible tuples into q (page_scan.c's reading:
 * visibility, pins, in place or copied) and sends them to the service
 * where the walk's table lives; false when the scan had no more.
 */
static bool
fill_request(GpuJoinState *gs, GpuPageInner *pi, InnerReq *q)
{
	GpuHeapScan *is = gs->iscan;
	GpuPageReq *r = &q->r;
	instr_time	t0;

	Assert(q->n_pins == 0 && !q->filled);
	INSTR_TIME_SET_CURRENT(t0);
	gpuhash_heap_scan_start(is);
	r->pages = r->local_pages;
	gpuhash_page_req_reset(r, (pi->svc.id != 0 || pi->key_service) && gpuhash_page_in_place &&
						   pi->pp.cap_tuples_in_place > 0 && !RelationUsesLocalBuffers(is->rel) &&
						   gpuhash_service_pages_in_place(),
						   pi->pp.cap_pages, pi->pp.cap_pages_in_place,
						   pi->pp.cap_tuples_in_place);
	r->ticket.slot = -1;
	gpuhash_page_read(is, &pi->pp, r, q->pins, &q->n_pins);
	pi->pp.page_ms += gpuhash_ms_since(t0);
	if (is->timed)
		is->page_ms += gpuhash_ms_since(t0);
	if (r->n_pages == 0)
		return false;
	q->filled = true;
	memset(&r->stats, 0, sizeof(r->stats));
	if (pi->keys_only)
	{
		int16		cols[GH_AGG_MAX_INNER] = {0};

		if (pi->key_service &&
			gpuhash_svc_dim_pages_submit(pi->pp.prog.scan, cols, 0, r, pi->key_device,
										 &r->ticket))
			r->in_flight = true;
	}
	else if (pi->svc.id != 0 &&
			 gpuhash_svc_page_submit(&pi->svc, pi->pp.prog.scan, r, &r->ticket))
		r->in_flight = true;
	return true;
}

/* Row t: tuple off of request q's page p, in its copy or its pinned buffer. */
static inline void
set_tuple(GpuJoinState *gs, InnerReq *q, int p, OffsetNumber off, HeapTuple t)
{
	Page		page = q->r.in_place ? BufferGetPage(q->pins[p]) :
		(Page) (q->r.pages + q->r.refs[p].offset);

	gpuhash_page_tuple(page, q->r.blocks[p], off, RelationGetRelid(gs->iscan->rel), t);
}

/* Does a row the walker passed pass the quals the CPU kept? */
static inline bool
cpu_passes(GpuJoinState *gs, GpuPageInner *pi, HeapTuple t)
{
	return pi->pp.cpu_qual == NULL ||
		gpuhash_heap_qual_passes(gs->iscan, pi->pp.cpu_qual, gs->key_econtext, t);
}

/*
 * A refused page, the tuple path's way: its visible tuples through the
 * scan's quals.  A copied all-visible page by its copy's line pointers, any
 * other by its visible list (in place every page has one).
 */
static int
page_by_tuples(GpuJoinState *gs, GpuPageInner *pi, InnerReq *q, int p, int n)
{
	gh_page_ref *ref = &q->r.refs[p];
	bool		all = ref->nvis == GH_PAGE_ALL_VISIBLE;
	int			count = all ? ref->maxoff : ref->nvis;

	for (int i = 0; i < count; i++)
	{
		OffsetNumber off = all ? i + 1 : q->r.visible[ref->vis_start + i];
		HeapTuple	t = &pi->tups[n];

		if (all && !ItemIdIsNormal(PageGetItemId((Page) (q->r.pages + ref->offset), off)))
			continue;
		set_tuple(gs, q, p, off, t);
		if (gpuhash_heap_scan_tuple_passes(gs->iscan, gs->key_econtext, t))
			n++;
	}
	return n;
}

/*
 * Request q's answer: from the service where it went there, else walked
 * in this backend with no table (gh_page_probe then walks on the host; a
 * request read in place that could not go is all refused).
 */
static void
walk_request(GpuJoinState *gs, GpuPageInner *pi, InnerReq *q)
{
	GpuPageReq *r = &q->r;
	gh_status	st = GH_ERR_INVALID;

	if (r->in_flight)
	{
		st = gpuhash_svc_page_wait(&pi->svc, &r->ticket, r);
		r->in_flight = false;
		if (st == GH_OK)
		{
			pi->pp.in_service++;
			if (pi->svc.info.device == GH_DEVICE_GPU)
				pi->on_gpu++;
			if (r->in_place)
				pi->in_place++;
		}
		else
			elog(DEBUG1, "gpuhash: inner page request not walked in the service: %s",
				 gh_last_error());
	}
	if (st != GH_OK && !r->in_place)
	{
		memset(&r->stats, 0, sizeof(r->stats));
		st = gh_page_probe(NULL, pi->pp.prog.scan, r->refs, r->n_pages, r->pages,
						   (size_t) r->n_pages * GH_PAGE_SIZE, r->visible, r->n_visible,
						   r->matches, (size_t) r->cap_pages * GH_PAGE_MAX_TUPLES,
						   &r->n_matches, r->refused, &r->stats);
	}
	pi->pp.requests++;
	if (st != GH_OK)
	{
		/* not walked: every page the CPU's way */
		elog(DEBUG1, "gpuhash: inner page request not walked: %s", gh_last_error());
		r->n_matches = 0;
		memset(r->refused, 1, r->n_pages);
		return;
	}
	gs->iscan->filtered += r->stats.tuples - r->stats.passed;
	pi->pp.matches += r->n_matches;
	pi->pp.pages_stored += r->stats.stored;
	pi->pp.pages_filled += r->stats.filled;
}

/* Request q's rows, in (page, line pointer) order, refused pages' in their place. */
static int
rows_of_request(GpuJoinState *gs, GpuPageInner *pi, InnerReq *q)
{
	GpuPageReq *r = &q->r;
	size_t		mi = 0;
	int			n = 0;

	for (int p = 0; p < r->n_pages; p++)
	{
		if (r->refused[p])
		{
			pi->pp.pages_refused++;
			n = page_by_tuples(gs, pi, q, p, n);
			continue;
		}
		for (; mi < r->n_matches && r->matches[mi].page == (uint32) p; mi++)
		{
			HeapTuple	t = &pi->tups[n];

			set_tuple(gs, q, p, r->matches[mi].lp, t);
			if (cpu_passes(gs, pi, t))
				n++;
		}
	}
	return n;
}

/*
 * The pipeline's next request to answer, the one at its head, after every
 * free request was filled (and sent) while pages last: the read ahead of
 * the rows' walk and of the keys' walk alike.  NULL once the pages are all
 * read and answered.
 */
static InnerReq *
next_request(GpuJoinState *gs, GpuPageInner *pi)
{
	InnerReq   *q;

	for (int i = 0; i < INNER_PIPELINE; i++)
	{
		InnerReq   *f = &pi->q[(pi->head + i) % INNER_PIPELINE];

		if (!f->filled && !gs->iscan->done && !fill_request(gs, pi, f))
			break;
	}
	q = &pi->q[pi->head];
	if (!q->filled)
		return NULL;
	pi->head = (pi->head + 1) % INNER_PIPELINE;
	return q;
}

/*
 * The inner rows of the next pages that have any: in *tups, in the
 * request's pinned buffers or page copies, valid until the next call; how
 * many, 0 at the end of the scan.  In (page, line pointer) order, refused
 * pages' rows in their place.  While the build takes one request's rows,
 * the service walks the next one's pages.
 */
int
gpuhash_page_inner_next(GpuJoinState *gs, HeapTupleData **tups)
{
	GpuPageInner *pi = gs->ipage;

	*tups = pi->tups;
	/* the rows handed out last are kept by now: their pages' pins go */
	if (pi->out >= 0)
	{
		forget_request(&pi->q[pi->out], true);
		pi->out = -1;
	}
	for (;;)
	{
		InnerReq   *q = next_request(gs, pi);
		int			n;

		if (q == NULL)
			break;
		walk_request(gs, pi, q);
		n = rows_of_request(gs, pi, q);
		if (n > 0)
		{
			pi->out = q - pi->q;
			return n;
		}
		forget_request(q, true);
	}
	/* the scan's pages are read: nothing stays in the service */
	gpuhash_page_inner_release(gs, true);
	return 0;
}

/*
 * A keys-only request's keys into pi->keys: the service's answer where it
 * went there (or goes now), else walked in this backend on the host twin;
 * then its refused pages' rows keyed here, after the others.  How many.
 */
static int
keys_of_request(GpuJoinState *gs, GpuPageInner *pi, InnerReq *q)
{
	GpuPageReq *r = &q->r;
	int16		cols[GH_AGG_MAX_INNER] = {0};
	gh_agg_inval no_vals;
	uint8		no_heap;
	gh_page_stats st;
	uint64		n,
				hb;
	int			nk;

	if (gpuhash_dim_pages_rows(r, pi->pp.prog.scan, cols, 0, pi->key_service, pi->key_device,
							   pi->keys, &no_vals, &no_heap, &n, &hb, &st))
	{
		pi->pp.in_service++;
		pi->pp.pages_stored += st.stored;
		pi->pp.pages_filled += st.filled;
		pi->walk_gpu_ms += st.kernel_ms;
		if (pi->key_device == GH_DEVICE_GPU)
			pi->on_gpu++;
		if (r->in_place)
			pi->in_place++;
	}
	pi->pp.requests++;
	pi->pp.matches += n;
	gs->iscan->filtered += st.tuples - st.passed;
	nk = (int) n;
	for (int p = 0; p < r->n_pages; p++)
	{
		int			m;

		if (!r->refused[p])
			continue;
		pi->pp.pages_refused++;
		m = page_by_tuples(gs, pi, q, p, 0);
		for (int i = 0; i < m; i++)
		{
			uint64		key;

			/* a NULL key joins nothing, and no such row stays here */
			if (gpuhash_heap_key_fast(gs, gs->iscan, false, &pi->tups[i], &key))
				pi->keys[nk++] = key;
		}
	}
	return nk;
}

/*
 * A keys-only walk's next keys (gpuhash_page_inner_next's pages, its
 * pipeline): in *keys, valid until the next call; how many, 0 at the end.
 * The pages' pins go once their keys are taken.
 */
int
gpuhash_page_inner_next_keys(GpuJoinState *gs, const uint64 **keys)
{
	GpuPageInner *pi = gs->ipage;

	Assert(pi->keys_only);
	*keys = pi->keys;
	for (;;)
	{
		InnerReq   *q = next_request(gs, pi);
		int			n;

		if (q == NULL)
			break;
		n = keys_of_request(gs, pi, q);
		forget_request(q, true);
		if (n > 0)
			return n;
	}
	gpuhash_page_inner_release(gs, true);
	return 0;
}

/* Does the inner page walk hand back keys alone (gpuhash_page_inner_next_keys)? */
bool
gpuhash_page_inner_keys_only(GpuJoinState *gs)
{
	return gs->ipage != NULL && gs->ipage->keys_only;
}

/* EXPLAIN: the walker's clauses; with ANALYZE and VERBOSE, the pages. */
void
gpuhash_page_inner_explain(GpuJoinState *gs, ExplainState *es, List *context, bool useprefix)
{
	GpuPageInner *pi = gs->ipage;

	if (pi == NULL || pi->serializable)
		return;
	/*
	 * A keys walk takes the whole Inner Filter, and only where the service
	 * has a GPU: shown with VERBOSE, beside its figures.
	 */
	if (pi->pp.prog.gpu_quals != NIL && (!pi->keys_only || es->verbose))
		ExplainPropertyText("Inner GPU Filter",
							deparse_expression((Node *) make_ands_explicit(pi->pp.prog.gpu_quals),
											   context, useprefix, false), es);
	if (!es->analyze || pi->pp.pages_all_visible + pi->pp.pages_checked == 0 || !es->verbose)
		return;
	ExplainPropertyUInteger("Inner Pages All-Visible", NULL, pi->pp.pages_all_visible, es);
	ExplainPropertyUInteger("Inner Pages Checked", NULL, pi->pp.pages_checked, es);
	ExplainPropertyUInteger("Inner Pages Refused", NULL, pi->pp.pages_refused, es);
	ExplainPropertyText("Inner Page Path",
						pi->pp.requests > 0 && pi->on_gpu == pi->pp.requests ? "GPU service (gpu)" :
						pi->pp.requests > 0 && pi->pp.in_service == pi->pp.requests ? "GPU service (host)" :
						pi->pp.in_service > 0 ? "GPU service, in part" : "in-process", es);
	ExplainPropertyUInteger("Inner Page Requests", NULL, pi->pp.requests, es);
	ExplainPropertyUInteger("Inner Page Requests In Place", NULL, pi->in_place, es);
	if (pi->keys_only)
	{
		ExplainPropertyUInteger("Inner Keys From Walker", NULL, pi->pp.matches, es);
		/* of the inner read, the walks' own time on the GPU */
		if (es->timing && pi->on_gpu > 0)
			ExplainPropertyFloat("Inner Walk GPU Time", "ms", pi->walk_gpu_ms, 3, es);
	}
	else
		ExplainPropertyUInteger("Inner Page Matches", NULL, pi->pp.matches, es);
	/* gpuhash.page_cache_size: pages walked from their copies on the device */
	if (pi->pp.pages_stored > 0)
	{
		ExplainPropertyUInteger("Inner Pages From Page Cache", NULL,
								pi->pp.pages_stored - pi->pp.pages_filled, es);
		ExplainPropertyUInteger("Inner Pages Into Page Cache", NULL, pi->pp.pages_filled, es);
	}
}
