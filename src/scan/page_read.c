/*-------------------------------------------------------------------------
 *
 * page_read.c
 *	  Reading heap pages into a page request (issue 53), for every node that
 *	  hands pages to the page walker: the join's outer side (page_scan.c),
 *	  its inner side (page_inner.c) and the GPU aggregates (src/agg/).
 *
 * Blocks come as the tuple path reads them (serial, or the parallel block
 * allocator), each pinned with the scan's bulk-read strategy and
 * share-locked.  A page marked all-visible (and a snapshot not taken during
 * recovery) goes as it is: copied with the line pointers seen under the
 * lock, or, read in place, with the list of its LP_NORMAL items; any other
 * page goes through heapgetpage(), heapam's own page-mode visibility
 * (pruning included), with its visible offsets.  The pins go to the
 * caller's array, kept while anything reads the pages (ARCHITECTURE.md
 * says why a pinned page's listed items stay put).  Also here: how many
 * pages and listed tuples a request read in place takes, and a request's
 * memory.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "buffer_hint.h"
#include "page_scan.h"
#include "service.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/*
 * GPU memory a walk's lane holds a page of its request (gpu_page.cu's
 * plan: a state byte, a candidate and a selected match record, a key and a
 * selected key, a range, each slot of GH_PAGE_MAX_TUPLES).
 */
#define LANE_BYTES_PER_PAGE \
	((Size) GH_PAGE_MAX_TUPLES * (1 + 2 * sizeof(gh_page_match) + 2 * sizeof(uint64) + \
								 sizeof(gh_range)))

/*
 * The pages (*pages) and listed tuples (*tuples) a request read in place
 * takes, for a scan that pins up to max_pins pages a request and whose
 * copied requests take copied_pages: up to want_tuples tuples, never fewer
 * than a copied request's; false (*pages copied_pages, *tuples 0) where
 * the service takes no such request.  Under a GPU memory budget
 * (gpuhash.max_gpu_memory), the lanes of the service's threads on one table
 * within a quarter of it, where a lane it cannot hold would leave the
 * request's pages to the CPU.
 */
bool
gpuhash_page_caps_in_place(int max_pins, int copied_pages, uint32 want_tuples, int *pages,
						   uint32 *tuples)
{
	uint32		svc_tuples;
	uint32		ip_pages = gpuhash_service_page_capacity_in_place(&svc_tuples);
	size_t		budget = gpuhash_gpu_budget();
	int			ip;

	*pages = copied_pages;
	*tuples = 0;
	if (ip_pages == 0 || svc_tuples < GH_PAGE_MAX_TUPLES)
		return false;
	ip = Min((int) ip_pages, max_pins);
	if (budget > 0)
		ip = Min(ip, (int) Min(budget / 4 / Max(gpuhash_service_threads, 1) /
							   LANE_BYTES_PER_PAGE, (size_t) INT_MAX));
	*pages = Max(copied_pages, ip);
	*tuples = Min(svc_tuples, Max(want_tuples, (uint32) GH_PAGE_MAX_TUPLES));
	*tuples = Max(*tuples, (uint32) Min((int64) copied_pages * GH_PAGE_MAX_TUPLES,
										(int64) svc_tuples));
	return true;
}

/*
 * The memory of request r, in the current memory context: up to
 * copied_pages pages copied (their copies and line pointers) and up to
 * max_pages read in place, their visible lists together up to max_tuples
 * offsets, with room for as many match records where the answer has them.
 * Every node that reads pages (the join's two sides, src/agg/) lays its
 * requests out so.
 */
void
gpuhash_page_req_alloc(GpuPageReq *r, int copied_pages, int max_pages, Size max_tuples,
					   bool matches)
{
	max_pages = Max(max_pages, copied_pages);
	r->cap_pages = copied_pages;
	r->cap_tuples = 0;
	r->blocks = palloc(sizeof(BlockNumber) * max_pages);
	r->lsns = palloc0(sizeof(uint64) * max_pages);
	r->refs = palloc(sizeof(gh_page_ref) * max_pages);
	r->local_pages = palloc_extended((Size) GH_PAGE_SIZE * copied_pages, MCXT_ALLOC_HUGE);
	r->pages = r->local_pages;
	r->lps = palloc_extended(sizeof(ItemIdData) * GH_PAGE_MAX_TUPLES * copied_pages,
							 MCXT_ALLOC_HUGE);
	r->visible = palloc_extended(sizeof(uint16) * max_tuples, MCXT_ALLOC_HUGE);
	r->matches = matches ?
		palloc_extended(sizeof(gh_page_match) * max_tuples, MCXT_ALLOC_HUGE) : NULL;
	r->refused = palloc0(max_pages);
	r->ticket.slot = -1;
}

/*
 * Request r emptied for its next pages: read in place, up to pages_in_place
 * pages whose lists hold up to tuples_in_place offsets (0: as many as the
 * pages may list), or copied, up to copied_pages.
 */
void
gpuhash_page_req_reset(GpuPageReq *r, bool in_place, int copied_pages, int pages_in_place,
					   uint32 tuples_in_place)
{
	r->in_place = in_place;
	r->cap_pages = in_place ? pages_in_place : copied_pages;
	r->cap_tuples = in_place ? tuples_in_place : 0;
	r->n_pages = 0;
	r->n_visible = 0;
	r->n_matches = 0;
	r->in_flight = r->answered = false;
}

/*
 * An all-visible page in place: the offsets of its LP_NORMAL items, read
 * under the share lock, appended to r's visible offsets; how many.  Once
 * the lock goes an insert may refill an unused line pointer, never one of
 * these while the page is pinned (ARCHITECTURE.md): the walker reads these
 * alone.
 */
static int
list_normal_items(GpuPageReq *r, Page page, OffsetNumber maxoff)
{
	uint16	   *vis = r->visible + r->n_visible;
	int			n = 0;

	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		if (ItemIdIsNormal(PageGetItemId(page, off)))
			vis[n++] = off;
	return n;
}

/*
 * Adds block blk of scan os to request r: pinned (the pin appended to
 * pins[*n_pins]), its visibility decided, copied (or, in place, its buffer
 * named), counted in pp.  False when the page has no visible tuple (not
 * added).  The join's batches and the GPU aggregate (src/agg/) read pages
 * alike.
 */
bool
gpuhash_page_add(GpuHeapScan *os, GpuPagePath *pp, GpuPageReq *r, Buffer *pins, int *n_pins,
				 BlockNumber blk)
{
	HeapScanDesc hs = (HeapScanDesc) os->scan;
	Buffer		buf = gpuhash_read_hinted_buffer(os->rel, blk, hs->rs_strategy);
	Page		page;
	gh_page_ref *ref = &r->refs[r->n_pages];
	uint8	   *copy = r->in_place ? NULL : r->pages + (Size) r->n_pages * GH_PAGE_SIZE;
	/* the GPU's page cache may keep a copy: only of pages whose changes are WAL-logged */
	bool		cached = r->in_place && gpuhash_page_cache_mb > 0 && RelationNeedsWAL(os->rel);
	uint64		lsn = 0;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	/* as heapgetpage: a page changed past an old snapshot's horizon errors */
	TestForOldSnapshot(os->snapshot, os->rel, page);
	/* (more line pointers than a heap page holds: heapam decides, below) */
	if (PageIsAllVisible(page) && !os->snapshot->takenDuringRecovery &&
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
		if (r->in_place)
		{
			int			n = list_normal_items(r, page, ref->maxoff);

			if (cached)
				lsn = BufferGetLSNAtomic(buf);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			if (n == 0)
			{
				ReleaseBuffer(buf);
				return false;
			}
			ref->nvis = n;
			ref->vis_start = r->n_visible;
			r->n_visible += n;
		}
		else
		{
			memcpy(copy, page, GH_PAGE_SIZE);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			memcpy(r->lps + (Size) r->n_pages * GH_PAGE_MAX_TUPLES, PageGetItemId((Page) copy, 1),
				   sizeof(ItemIdData) * ref->maxoff);
		}
		pp->pages_all_visible++;
	}
	else
	{
		/*
		 * heapam's page mode: pruning, visibility, as a Seq Scan reads the
		 * page.  Pruning needs the only pin: ours goes, the scan's is kept.
		 */
		UnlockReleaseBuffer(buf);
		heapgetpage(os->scan, blk);
		if (hs->rs_ntuples == 0)
			return false;
		buf = hs->rs_cbuf;
		IncrBufferRefCount(buf);
		page = BufferGetPage(buf);
		ref->nvis = hs->rs_ntuples;
		ref->vis_start = r->n_visible;
		memcpy(r->visible + r->n_visible, hs->rs_vistuples, sizeof(uint16) * hs->rs_ntuples);
		r->n_visible += hs->rs_ntuples;
		/* the visible tuples stay put under our pin; the rest may change */
		if (r->in_place)
		{
			ref->maxoff = hs->rs_vistuples[hs->rs_ntuples - 1];
			if (cached)
			{
				/* a copy with this LSN holds these tuples as they are now */
				LockBuffer(buf, BUFFER_LOCK_SHARE);
				lsn = BufferGetLSNAtomic(buf);
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			}
		}
		else
		{
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			ref->maxoff = PageGetMaxOffsetNumber(page);
			memcpy(copy, page, GH_PAGE_SIZE);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
		pp->pages_checked++;
	}
	if (ref->nvis == GH_PAGE_ALL_VISIBLE)
		ref->vis_start = r->n_visible;
	/* in place: where the service finds the page, BufferBlocks being its too */
	ref->offset = r->in_place ? (uint64) ((char *) page - BufferBlocks) :
		(uint64) r->n_pages * GH_PAGE_SIZE;
	r->lsns[r->n_pages] = lsn;
	r->rnode = os->rel->rd_node;
	r->blocks[r->n_pages++] = blk;
	pins[(*n_pins)++] = buf;
	return true;
}

/*
 * Reads the next blocks of os into r until it holds cap_pages pages with
 * visible tuples or the scan ends (os->done); their pins go to pins[].
 */
void
gpuhash_page_read(GpuHeapScan *os, GpuPagePath *pp, GpuPageReq *r, Buffer *pins, int *n_pins)
{
	/* room for one more page's whole list, where the lists are bounded */
	while (r->n_pages < r->cap_pages && !os->done &&
		   (r->cap_tuples == 0 || r->n_visible + GH_PAGE_MAX_TUPLES <= r->cap_tuples))
	{
		BlockNumber blk;

		CHECK_FOR_INTERRUPTS();
		blk = gpuhash_heap_scan_next_block(os);
		if (!BlockNumberIsValid(blk))
			break;
		(void) gpuhash_page_add(os, pp, r, pins, n_pins, blk);
	}
}
