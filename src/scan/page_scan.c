/*-------------------------------------------------------------------------
 *
 * page_scan.c
 *	  The page path of an absorbed outer scan (issue 53): the CPU moves
 *	  pages, the page walker (cuda/gpuhash_page.h, on the table's device)
 *	  deforms, filters, keys and probes them, and the CPU forms only the rows
 *	  that join.
 *
 * A probe batch is filled with pages instead of rows, read by page_read.c
 * (visibility as heapam decides it, copied or read in place by the
 * service); the batch keeps the pins until it is emitted: its rows are
 * tuples in those pinned pages, (page, line pointer) of the answer's match
 * records (ARCHITECTURE.md says why that is safe).  The matches become the batch's rows and ranges, so the state
 * machine's NEXT_OUTER, SCAN_RANGE and FILL_OUTER run unchanged.
 *
 * The quals the walker does not run (gpu_qual.c) run here, in plan order,
 * on the rows it hands back.  A page it refuses (a needed value toasted, a
 * missing attribute by reference, an overflow) goes the tuple path's way:
 * its visible tuples through the scan's quals and keys, probed here.  A
 * failed request is all pages refused.  Nothing is dropped.
 *
 * Where: an absorbed outer scan with exact keys that are plain columns, one
 * hash batch, no chain, a table not partitioned over GPUs, not SERIALIZABLE
 * (whose predicate locks go per tuple), gpuhash.page_scan on.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "buffer_hint.h"
#include "page_scan.h"
#include "service.h"

#include "access/heapam.h"
#include "access/htup_details.h"
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

bool		gpuhash_page_scan = true;
bool		gpuhash_page_in_place = true;

/* Pages a request takes, by the batch's rows: about a hundred rows a page. */
#define ROWS_PER_PAGE_GUESS 100

static void size_requests(GpuJoinState *gs, uint32 want_tuples);

/*
 * The page path of gs's absorbed outer scan plan, if it can have one: its
 * scan program, the CPU's part of the quals, the requests' memory.
 */
void
gpuhash_page_setup(GpuJoinState *gs, SeqScan *plan, EState *estate)
{
	GpuHeapScan *os = gs->oscan;
	GpuPagePath *pp;
	AttrNumber	attno[GH_PAGE_MAX_KEYS];
	GpuKeyConv	conv[GH_PAGE_MAX_KEYS];
	int			width[GH_PAGE_MAX_KEYS];
	int			nkeys = gs->info.nkeys;

	if (!gpuhash_page_scan || os == NULL || gs->info.fingerprint || !gs->outer_keys_plain ||
		nkeys < 1 || nkeys > GH_PAGE_MAX_KEYS || BLCKSZ != GH_PAGE_SIZE)
		return;
	for (int k = 0; k < nkeys; k++)
	{
		attno[k] = gs->outer_keys[k].attno;
		conv[k] = gs->info.keys[k].outer_conv;
		width[k] = gs->info.keys[k].width;
	}
	pp = MemoryContextAllocZero(gs->cxt, sizeof(GpuPagePath));
	gpuhash_page_program(&pp->prog, os->desc, plan->scan.scanrelid, plan->scan.plan.qual,
						 attno, conv, width, nkeys, gs->fill_outer);
	if (pp->prog.scan == NULL || gh_page_scan_check(pp->prog.scan) != GH_OK)
		return;
	pp->serializable = IsolationIsSerializable();
	pp->chain_reads = -1;
	if (!gpuhash_heap_qual_share(os, pp->prog.cpu_quals, &gs->css.ss.ps, &pp->cpu_qual))
		return;
	pp->cxt = AllocSetContextCreate(gs->cxt, "GpuHashJoin page requests", ALLOCSET_DEFAULT_SIZES);
	gs->page = pp;
	size_requests(gs, (uint32) gs->batch_cap);
}

/*
 * The page path's requests sized, and the probe batches' arrays for their
 * rows: a request copied takes a batch's rows' worth of pages (a guess of
 * rows a page), one read in place pages listing up to want_tuples tuples,
 * both at most the pages a batch may pin.
 */
static void
size_requests(GpuJoinState *gs, uint32 want_tuples)
{
	GpuHeapScan *os = gs->oscan;
	GpuPagePath *pp = gs->page;
	uint32		svc_pages = gpuhash_service_page_capacity();
	int			rows_cap;

	MemoryContextReset(pp->cxt);
	pp->cap_pages = Max(1, gs->batch_cap / ROWS_PER_PAGE_GUESS);
	pp->cap_pages = Min(pp->cap_pages, os->max_pins);
	if (svc_pages > 0)
		pp->cap_pages = Min(pp->cap_pages, (int) svc_pages);
	rows_cap = pp->cap_pages * GH_PAGE_MAX_TUPLES;

	/*
	 * Read in place, a request is bounded by the tuples its pages list, a
	 * batch's rows (gpuhash.batch_rows), rather than by a guess of rows a
	 * page: pages of about 60 tuples each (rows of a dozen columns) go a
	 * thousand a request where a copied request takes a few hundred.
	 */
	if (gpuhash_page_caps_in_place(os->max_pins, pp->cap_pages, want_tuples,
								   &pp->cap_pages_in_place, &pp->cap_tuples_in_place))
		rows_cap = Max(rows_cap, (int) pp->cap_tuples_in_place);
	rows_cap = Max(rows_cap, gs->batch_cap);
	for (int i = 0; i < gs->pb_depth; i++)
	{
		GpuProbeBatch *b = &gs->pb[i];
		MemoryContext old = MemoryContextSwitchTo(pp->cxt);

		gpuhash_page_req_alloc(&pp->req[i], pp->cap_pages, pp->cap_pages_in_place, rows_cap,
							   true);
		MemoryContextSwitchTo(gs->cxt);
		/* a batch of pages has up to rows_cap rows, in those pages */
		b->pins = b->pins ? repalloc(b->pins, sizeof(Buffer) * os->max_pins) :
			palloc(sizeof(Buffer) * os->max_pins);
		/* each batch by its own room: a chain's bottom adds one later */
		if (rows_cap > b->room || b->tups == NULL)
		{
			int			room = Max(rows_cap, b->room);

			b->tups = b->tups ? repalloc_huge(b->tups, sizeof(HeapTupleData) * room) :
				palloc_extended(sizeof(HeapTupleData) * room, MCXT_ALLOC_HUGE);
			if (room > b->room)
			{
				b->keys = repalloc_huge(b->keys, sizeof(uint64) * room);
				b->nokey = repalloc_huge(b->nokey, sizeof(bool) * room);
				b->ranges = repalloc_huge(b->ranges, sizeof(gh_range) * room);
				b->room = room;
			}
		}
		MemoryContextSwitchTo(old);
	}
	pp->rows_cap = Max(pp->rows_cap, rows_cap);
}

/*
 * Could gs's requests go to the service in place, once its table is the
 * service's?  The service reads the pages where they lie, when it mapped
 * the buffer pool (a temporary table's local buffers are this backend's
 * alone).
 */
static bool
in_place_possible(GpuJoinState *gs)
{
	return gpuhash_page_in_place && !RelationUsesLocalBuffers(gs->oscan->rel) &&
		gpuhash_service_pages_in_place();
}

/* Do gs's requests go to the service in place? */
static bool
requests_in_place(GpuJoinState *gs)
{
	return gs->table.remote && in_place_possible(gs);
}

/*
 * Whether a chain's bottom reads pages: only where its requests go in place
 * and the service's page cache may keep their pages (gpuhash_page_add's
 * test), so that its walks do not cross the host link; otherwise the
 * chain's probes wait behind the walks (ARCHITECTURE.md, "Chains").
 * chain_may_read_pages: the same but for the table, not built at ExecInit.
 */
static bool
chain_may_read_pages(GpuJoinState *gs)
{
	return gpuhash_page_cache_mb > 0 && RelationNeedsWAL(gs->oscan->rel) &&
		in_place_possible(gs);
}

static bool
chain_reads_pages(GpuJoinState *gs)
{
	return gs->table.remote && chain_may_read_pages(gs);
}

/* Will gs, the bottom of a chain (chain.c), read pages? */
bool
gpuhash_page_chain_may_read(GpuJoinState *gs)
{
	return gs->page != NULL && chain_may_read_pages(gs);
}

/*
 * At ExecInit, gs became the bottom of a chain (chain.c).  Where it will
 * read pages (chain_may_read_pages), each of its walks is followed by a
 * chain request, whose fixed costs (a round trip, a lane, each level's
 * launches and copies) do not grow with its rows: its batches take GPUHASH_CHAIN_REQ_SCALE times
 * the listed tuples, and as many pins as the share of shared_buffers a
 * batch may pin allows (up to GPUHASH_MAX_REQ_PAGES), so that there are
 * fewer of both requests.  Its ring has a batch more by then (chain.c),
 * read while the chain's request runs (chain_probe.c, read_ahead).  Other
 * page paths keep their size: a larger one there only delays the first
 * answer.  Sized here, before the table exists, the bottom keeps the size
 * where its chain then runs unfused.
 */
void
gpuhash_page_chain_bottom(GpuJoinState *gs)
{
	GpuHeapScan *os = gs->oscan;
	int			pins;
	int64		want;

	if (!gpuhash_page_chain_may_read(gs) || gs->page->chain_sized)
		return;
	gs->page->chain_sized = true;
	/* the ring's batches, a chain's bottom's one more (chain.c) */
	pins = gpuhash_batch_pins(GPUHASH_MAX_REQ_PAGES, gs->pb_depth);
	/* no more tuples than the pages a batch may pin can list */
	want = Min((int64) gs->batch_cap * GPUHASH_CHAIN_REQ_SCALE,
			   (int64) pins * GH_PAGE_MAX_TUPLES);
	os->max_pins = pins;
	size_requests(gs, (uint32) Min(want, (int64) INT_MAX));
}

/*
 * Whether a chain's bottom reads pages, decided at its first batch of a
 * scan and kept to the scan's end: chain_reads_pages reads settings a
 * cursor's session may change between fetches (gpuhash.page_in_place, the
 * page cache's size at a reload), and a bottom that stopped reading pages
 * would hand the chain the batches whose walks are still out as if they
 * had no rows.
 */
static bool
chain_reads_this_scan(GpuJoinState *gs)
{
	GpuPagePath *pp = gs->page;

	if (pp->chain_reads < 0)
		pp->chain_reads = chain_reads_pages(gs) ? 1 : 0;
	return pp->chain_reads == 1;
}

/*
 * May the next batch be filled from pages?  Also for the bottom of a chain
 * (chain.c), which takes the batch's rows, each with its key read from its
 * tuple, and probes every level again: the walk's probe of the bottom's
 * table is then the filter that leaves only the rows that can join.
 */
bool
gpuhash_page_usable(GpuJoinState *gs)
{
	GpuPagePath *pp = gs->page;

	return pp != NULL && !pp->serializable && gs->oscan != NULL &&
		gs->chain == NULL && gs->nbatch == 1 && gs->curbatch == 0 && gs->split == NULL &&
		gs->built && gs->n_inner > 0 && gs->stats.table_parts <= 1 &&
		(gs->table.remote || gs->table.local != NULL) &&
		(!gs->chain_member || chain_reads_this_scan(gs));
}

/* The request that goes with probe batch b (one per ring slot). */
static GpuPageReq *
req_of(GpuJoinState *gs, GpuProbeBatch *b)
{
	return &gs->page->req[b - gs->pb];
}

/*
 * Fills batch b with the next pages that have visible tuples, up to a
 * request's worth; false when none came (then the outer side is done).
 */
bool
gpuhash_page_fill(GpuJoinState *gs, GpuProbeBatch *b)
{
	GpuHeapScan *os = gs->oscan;
	GpuPagePath *pp = gs->page;
	GpuPageReq *r = req_of(gs, b);
	instr_time	t0;

	Assert(b->n_pins == 0 && b->n == 0);
	INSTR_TIME_SET_CURRENT(t0);
	gpuhash_heap_scan_start(os);
	/* through the service: the pages go straight into a staging chunk */
	r->pages = NULL;
	if (gs->table.remote && !os->done)
		r->pages = gpuhash_svc_page_claim(&gs->table.svc, &b->ticket);
	if (r->pages == NULL)
		r->pages = r->local_pages;

	gpuhash_page_req_reset(r, requests_in_place(gs), pp->cap_pages, pp->cap_pages_in_place,
						   pp->cap_tuples_in_place);
	gpuhash_page_read(os, pp, r, b->pins, &b->n_pins);
	pp->page_ms += gpuhash_ms_since(t0);
	if (os->timed)
		os->page_ms += gpuhash_ms_since(t0);
	if (r->n_pages == 0)
	{
		if (b->ticket.slot >= 0)
			gpuhash_svc_probe_abandon(&b->ticket);
		return false;
	}
	b->preq = r;
	b->any_key = true;
	return true;
}

/* The request goes to the service, when the table lives there and a slot is free. */
void
gpuhash_page_submit(GpuJoinState *gs, GpuProbeBatch *b)
{
	GpuPageReq *r = b->preq;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	b->state = PB_FILLED;
	if (gs->table.remote &&
		gpuhash_svc_page_submit(&gs->table.svc, gs->page->prog.scan, r, &b->ticket))
	{
		b->state = PB_IN_FLIGHT;
		r->in_flight = true;
		gs->page->requests++;
	}
	/* the pages' copy into the staging chunk is CPU per page too */
	gs->page->page_ms += gpuhash_ms_since(t0);
}

/* Row n of batch b: tuple off of page p. */
static inline void
set_tuple(GpuJoinState *gs, GpuProbeBatch *b, int p, OffsetNumber off, HeapTuple t)
{
	gpuhash_page_tuple(BufferGetPage(b->pins[p]), b->preq->blocks[p], off,
					   RelationGetRelid(gs->oscan->rel), t);
}

/* Does the row pass the quals the CPU kept (on the walker's rows)? */
static inline bool
cpu_passes(GpuJoinState *gs, HeapTuple t)
{
	return gs->page->cpu_qual == NULL ||
		gpuhash_heap_qual_passes(gs->oscan, gs->page->cpu_qual, gs->key_econtext, t);
}

/*
 * The walker passed its first row, joining or not, and the CPU's first
 * clause tests rows against a hashed subplan (gpu_program.c): evaluated
 * once on a row of NULLs, the clause runs the subplan into its table, as
 * the Seq Scan's first row past the same clauses would (an error the
 * subplan raises comes out here).  The row's own test raises nothing, nor
 * do the clauses after it, which the walker's mode (not every row back)
 * says are leakproof and not volatile.
 */
static void
run_subplan_once(GpuJoinState *gs)
{
	GpuHeapScan *os = gs->oscan;
	int			natts = os->desc->natts;
	Datum	   *values = palloc0(sizeof(Datum) * Max(natts, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(natts, 1));
	HeapTuple	t;

	memset(nulls, true, sizeof(bool) * Max(natts, 1));
	t = heap_form_tuple(os->desc, values, nulls);
	t->t_tableOid = RelationGetRelid(os->rel);
	/* not a row of the scan: not counted as filtered, not left in the slot */
	(void) gpuhash_heap_qual_eval(os, gs->page->cpu_qual, gs->key_econtext, t);
	ExecClearTuple(os->slot);
	heap_freetuple(t);
	pfree(values);
	pfree(nulls);
	gs->page->subplan_run = true;
}

/*
 * A refused page, the tuple path's way: each visible tuple through the
 * scan's quals and its key, appended to b (probed by the caller).
 */
static void
page_by_tuples(GpuJoinState *gs, GpuProbeBatch *b, int p, uint32 *probe, int *n_probe)
{
	GpuPageReq *r = b->preq;
	gh_page_ref *ref = &r->refs[p];
	const ItemIdData *lps = r->lps + (Size) p * GH_PAGE_MAX_TUPLES;
	bool		all = ref->nvis == GH_PAGE_ALL_VISIBLE;
	int			n = all ? ref->maxoff : ref->nvis;

	for (int i = 0; i < n; i++)
	{
		OffsetNumber off = all ? i + 1 : r->visible[ref->vis_start + i];
		HeapTupleData t;
		uint64		key = 0;
		bool		nokey;

		/* all-visible: the line pointers as seen under the lock */
		if (all && !ItemIdIsNormal(&lps[off - 1]))
			continue;
		set_tuple(gs, b, p, off, &t);
		if (!gpuhash_heap_scan_tuple_passes(gs->oscan, gs->key_econtext, &t))
			continue;
		nokey = !gpuhash_heap_key_fast(gs, gs->oscan, true, &t, &key);
		gs->oscan->slot_row = -1;
		if (nokey && !gs->fill_outer)
			continue;
		b->tups[b->n] = t;
		b->nokey[b->n] = nokey;
		b->keys[b->n] = nokey ? 0 : key;
		b->ranges[b->n].offset = 0;
		b->ranges[b->n].count = 0;
		if (!nokey)
			probe[(*n_probe)++] = b->n;
		b->n++;
	}
}

/*
 * The answer: the batch's rows are the match records, in (page, line
 * pointer) order, with the refused pages' rows read here in their place.
 */
static void
rows_from_matches(GpuJoinState *gs, GpuProbeBatch *b)
{
	GpuPageReq *r = b->preq;
	size_t		mi = 0;
	uint32	   *probe = NULL;
	int			n_probe = 0;

	/*
	 * Nothing reads the outer tuple when the join keeps none of its columns
	 * and no CPU qual reads it (a count(*)): a match is its range alone.
	 * Forming each tuple read its page's line pointer, a cache miss a row.
	 */
	bool		ranges_only = !gs->oscan->keep_rows && gs->page->cpu_qual == NULL &&
		!gs->chain_member;

	b->n = 0;
	for (int p = 0; p < r->n_pages; p++)
	{
		if (r->refused[p])
		{
			if (probe == NULL)
				probe = palloc(sizeof(uint32) * r->cap_pages * GH_PAGE_MAX_TUPLES);
			gs->page->pages_refused++;
			page_by_tuples(gs, b, p, probe, &n_probe);
			continue;
		}
		for (; mi < r->n_matches && r->matches[mi].page == (uint32) p; mi++)
		{
			const gh_page_match *m = &r->matches[mi];
			bool		nokey = (m->flags & GH_PM_NULL_KEY) != 0;

			/* formed in place: a copy from the stack stalled on its store forwarding */
			if (!ranges_only)
			{
				set_tuple(gs, b, p, m->lp, &b->tups[b->n]);
				if (!cpu_passes(gs, &b->tups[b->n]))
					continue;
			}
			if (nokey && !gs->fill_outer)
				continue;
			b->nokey[b->n] = nokey;
			b->keys[b->n] = 0;
			/* a chain probes its bottom level again, by the row's key */
			if (gs->chain_member && !nokey)
			{
				b->nokey[b->n] = !gpuhash_heap_key_fast(gs, gs->oscan, true, &b->tups[b->n],
														 &b->keys[b->n]);
				gs->oscan->slot_row = -1;
			}
			b->ranges[b->n] = m->range;
			if (nokey)
				b->ranges[b->n].count = 0;
			b->n++;
		}
	}
	gs->page->matches += r->n_matches;
	if (n_probe > 0)
	{
		/* the refused pages' keys, probed as the tuple path probes them */
		uint64	   *keys = palloc(sizeof(uint64) * n_probe);
		gh_range   *ranges = palloc(sizeof(gh_range) * n_probe);
		gh_status	st;

		for (int i = 0; i < n_probe; i++)
			keys[i] = b->keys[probe[i]];
		st = gpuhash_table_probe(&gs->table, keys, n_probe, ranges);
		if (st != GH_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpuhash: probing the join table failed: %s", gh_last_error())));
		for (int i = 0; i < n_probe; i++)
			b->ranges[probe[i]] = ranges[i];
		pfree(keys);
		pfree(ranges);
	}
	if (probe)
		pfree(probe);
}

/* The batch's answer: from the service, or walked here; then its rows. */
void
gpuhash_page_wait(GpuJoinState *gs, GpuProbeBatch *b)
{
	GpuPageReq *r = b->preq;
	gh_status	st = GH_ERR_INVALID;

	memset(&r->stats, 0, sizeof(r->stats));
	if (b->state == PB_IN_FLIGHT)
	{
		st = gpuhash_svc_page_wait(&gs->table.svc, &b->ticket, r);
		b->state = PB_FILLED;
		r->in_flight = false;
		if (st == GH_OK)
			gs->page->in_service++;
	}
	else if (!gs->table.remote && gs->table.local != NULL && r->pages == r->local_pages)
	{
		/* an in-process table: the walk runs in this backend */
		st = gh_page_probe(gs->table.local, gs->page->prog.scan, r->refs, r->n_pages,
						   r->pages, (size_t) r->n_pages * GH_PAGE_SIZE, r->visible,
						   r->n_visible, r->matches, (size_t) r->cap_pages * GH_PAGE_MAX_TUPLES,
						   &r->n_matches, r->refused, &r->stats);
		gs->page->requests++;
	}
	if (st != GH_OK)
	{
		/* not walked (a failure, no slot free): every page the CPU's way */
		if (b->state != PB_FILLED || gs->table.remote)
			elog(DEBUG1, "gpuhash: page request not walked: %s", gh_last_error());
		r->n_matches = 0;
		memset(r->refused, 1, r->n_pages);
	}
	else
	{
		gs->oscan->filtered += r->stats.tuples - r->stats.passed;
		gs->page->pages_stored += r->stats.stored;
		gs->page->pages_filled += r->stats.filled;
		if (gs->page->prog.first_row_build && !gs->page->subplan_run && r->stats.passed > 0)
			run_subplan_once(gs);
	}
	r->answered = true;
	rows_from_matches(gs, b);
	b->state = PB_READY;
	gs->stats.probe_ms += r->stats.kernel_ms;
	gs->stats.transfer_ms += r->stats.copy_ms;
	gs->stats.device = gs->device;
}

/*
 * A rescan: the hashed subplan is asked again at the first row past the
 * walker (its table is rebuilt only where its parameters changed), and a
 * chain's bottom decides again whether it reads pages.
 */
void
gpuhash_page_restart(GpuJoinState *gs)
{
	if (gs->page)
	{
		gs->page->subplan_run = false;
		gs->page->chain_reads = -1;
	}
}

/* A batch that ends: its request is forgotten (the pins go with the batch's). */
void
gpuhash_page_release(GpuJoinState *gs, GpuProbeBatch *b)
{
	GpuPageReq *r = b->preq;

	/* a slot held for pages never sent */
	if (b->ticket.slot >= 0 && b->state != PB_IN_FLIGHT)
		gpuhash_svc_probe_abandon(&b->ticket);
	if (r == NULL)
		return;
	r->n_pages = 0;
	r->n_visible = 0;
	r->n_matches = 0;
	r->in_flight = r->answered = false;
	b->preq = NULL;
}

/* EXPLAIN: the walker's clauses; with ANALYZE, the pages and their time. */
void
gpuhash_page_explain(GpuJoinState *gs, ExplainState *es, List *context, bool useprefix)
{
	GpuPagePath *pp = gs->page;
	uint64		pages;

	if (pp != NULL && es->analyze && pp->pages_stored > 0)
	{
		/* gpuhash.page_cache_size: pages walked from their copies on the device */
		ExplainPropertyUInteger("Pages From Page Cache", NULL,
								pp->pages_stored - pp->pages_filled, es);
		ExplainPropertyUInteger("Pages Into Page Cache", NULL, pp->pages_filled, es);
	}
	/* a chain's bottom: what its scan decided, else what it would now */
	if (pp == NULL || pp->serializable || gs->chain != NULL ||
		(gs->chain_member &&
		 !(pp->chain_reads >= 0 ? pp->chain_reads == 1 : chain_reads_pages(gs))))
		return;
	if (pp->prog.gpu_quals != NIL)
		ExplainPropertyText("GPU Filter",
							deparse_expression((Node *) make_ands_explicit(pp->prog.gpu_quals),
											   context, useprefix, false), es);
	if (!es->analyze)
		return;
	pages = pp->pages_all_visible + pp->pages_checked;
	if (pages == 0)
		return;
	if (es->verbose)
	{
		ExplainPropertyText("Page Path", pp->requests > 0 && pp->in_service == pp->requests ?
							"GPU service" : pp->in_service > 0 ? "GPU service, in part" :
							"in-process", es);
		ExplainPropertyUInteger("Pages All-Visible", NULL, pp->pages_all_visible, es);
		ExplainPropertyUInteger("Pages Checked", NULL, pp->pages_checked, es);
		ExplainPropertyUInteger("Pages Refused", NULL, pp->pages_refused, es);
		ExplainPropertyUInteger("Page Requests", NULL, pp->requests, es);
		ExplainPropertyUInteger("Page Matches", NULL, pp->matches, es);
		if (es->timing)
			ExplainPropertyFloat("Page Time Per Page", "us", pp->page_ms * 1000.0 / pages, 3, es);
	}
}
