/*-------------------------------------------------------------------------
 *
 * service_dim_pages.c
 *	  REQ_DIM_PAGES: the inner relation's heap pages of the aggregate over a
 *	  join go to the GPU service with the inner scan's program and the
 *	  dimension's columns; the service walks them on a GPU
 *	  (gh_page_dim_rows: the quals, the exact key, the values) and answers
 *	  the rows, keys and values only, which the backend gathers into the
 *	  dimension it then builds (service_dim.c).  Synchronous, or in flight
 *	  while the backend reads its next pages (..._submit, ..._wait): the
 *	  backend keeps the pages pinned until the answer is taken.  A
 *	  backend takes a request's rows through gpuhash_dim_pages_rows, which
 *	  walks the pages on the host twin itself where the service does not.
 *
 * The chunk, from its start, each part 64-aligned (dim_pages_layout):
 *	  gh_page_scan | columns (int16 x GH_AGG_MAX_INNER) | refs | pages |
 *	  visible | refused | gh_page_stats | tags (in place) | answer: keys |
 *	  values | heap
 * A request carries as many pages as leave room for the most rows and heap
 * bytes they can give (gpuhash_dim_pages.h's bounds).  Pages are copied in,
 * or, in place, named in the buffer pool as the aggregate's requests name
 * them (service_agg.c); in place the chunk holds no pages but their page
 * cache tags, and its rows are laid out for the tuples the pages list
 * rather than for every page full (dim_pages_layout).
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "client_internal.h"
#include "service_layout.h"
#include "service_gpus.h"
#include "service_dim.h"
#include "worker_internal.h"
#include "scan/page_scan.h"
#include "gpuhash_dim_pages.h"

#include "storage/bufmgr.h"

typedef struct DimPagesLayout
{
	Size		cols;
	SvcPagesLayout pg;
	Size		tags;			/* in place: cap SvcPageTag (the page cache's) */
	Size		keys;
	Size		vals;
	Size		heap;
	uint64		cap_pages;
	uint64		rows_cap;		/* in place: the listed tuples too */
	uint64		heap_cap;
} DimPagesLayout;

/*
 * In place, rows a request's pages are laid out for, a page on average (a
 * page of rows of a dozen columns lists about 60): the pages' lists share
 * them, so a page listing more only ends its request sooner.  And heap
 * bytes a row's value: a dimension's value is a part of its tuple (a short
 * code among a dozen columns), so the heap is not laid out for whole
 * pages; a request whose values need more is answered GH_ERR_OUTPUT_FULL,
 * walked by the backend, whose later requests list fewer tuples
 * (agg_join_pages.c).  Pages at most: GPUHASH_MAX_BATCH_PINS.
 */
#define IN_PLACE_ROWS_PER_PAGE 64
#define IN_PLACE_HEAP_PER_VALUE 16

static Size
layout_for(uint64 cap, int ncols, bool in_place, DimPagesLayout *lay)
{
	Size		off = TYPEALIGN(64, sizeof(gh_page_scan));

	lay->cols = off;
	off = TYPEALIGN(64, off + sizeof(int16) * GH_AGG_MAX_INNER);
	if (in_place)
	{
		/* no pages; the rows as many as the pages may list */
		lay->rows_cap = Max(cap * IN_PLACE_ROWS_PER_PAGE, GH_PAGE_MAX_TUPLES);
		off = svc_pages_layout_in_place(off, cap, lay->rows_cap, sizeof(gh_page_stats), &lay->pg);
		lay->tags = off;
		off = TYPEALIGN(64, off + cap * sizeof(SvcPageTag));
	}
	else
	{
		lay->rows_cap = cap * GH_PAGE_MAX_TUPLES;
		off = svc_pages_layout(off, cap, sizeof(gh_page_stats), &lay->pg);
		lay->tags = 0;
	}
	lay->heap_cap = in_place ? lay->rows_cap * ncols * IN_PLACE_HEAP_PER_VALUE :
		gh_dim_pages_heap_bound_rows((uint32) cap, lay->rows_cap, ncols);
	lay->keys = off;
	off = TYPEALIGN(64, off + lay->rows_cap * sizeof(uint64));
	lay->vals = off;
	off = TYPEALIGN(64, off + lay->rows_cap * ncols * sizeof(gh_agg_inval));
	lay->heap = off;
	lay->cap_pages = cap;
	return off + lay->heap_cap;
}

/*
 * The most pages a request of ncols columns takes in chunk_bytes, copied
 * (room for every page full of rows) or read in place (room for the rows
 * the pages list, IN_PLACE_ROWS_PER_PAGE a page on average, and
 * IN_PLACE_HEAP_PER_VALUE bytes a value: several times the pages, so fewer
 * requests, each with its fixed costs, for the same pages); false: none.
 */
static bool
dim_pages_layout(uint64 chunk_bytes, int ncols, bool in_place, DimPagesLayout *lay)
{
	uint64		lo = 0,
				hi = in_place ? GPUHASH_MAX_BATCH_PINS : 4096;

	if (ncols < 0 || ncols > GH_AGG_MAX_INNER)
		return false;
	while (lo < hi)
	{
		uint64		mid = (lo + hi + 1) / 2;

		if (layout_for(mid, ncols, in_place, lay) <= chunk_bytes)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (lo == 0)
		return false;
	return layout_for(lo, ncols, in_place, lay) <= chunk_bytes;
}

/*
 * Does req fit a request of lay: its pages, and the rows its pages can
 * give?  (Their heap: copied, the layout's bound holds; in place, a walk
 * that outgrows it says so.)
 */
static bool
dim_request_fits(const DimPagesLayout *lay, const GpuPageReq *req)
{
	if (req->n_pages > lay->cap_pages || req->n_visible > lay->rows_cap)
		return false;
	return gh_dim_pages_rows_bound(req->refs, (uint32) req->n_pages) <= lay->rows_cap;
}

/* The request in s's chunk: the program, the columns, the pages. */
static void
write_request(SvcSlot *s, const DimPagesLayout *lay, const gh_page_scan *scan,
			  const int16 *cols, int ncols, const GpuPageReq *req, gh_device device)
{
	char	   *chunk = chunk_of(s);

	memcpy(chunk, scan, sizeof(gh_page_scan));
	memset(chunk + lay->cols, 0, sizeof(int16) * GH_AGG_MAX_INNER);
	memcpy(chunk + lay->cols, cols, sizeof(int16) * ncols);
	memcpy(chunk + lay->pg.refs, req->refs, req->n_pages * sizeof(gh_page_ref));
	if (!req->in_place)
		memcpy(chunk + lay->pg.pages, req->pages, (Size) req->n_pages * GH_PAGE_SIZE);
	memcpy(chunk + lay->pg.visible, req->visible, req->n_visible * sizeof(uint16));
	svc_page_tags_write(s, svc_page_tags_at(chunk, lay->tags), req);
	s->type = REQ_DIM_PAGES;
	s->in_place = req->in_place;
	s->table_id = 0;
	s->opt.device = device;
	s->n = req->n_pages;
	s->pos = req->n_visible;
	s->ninner = ncols;
	s->written = 0;
	s->total = 0;
}

/* The answer in s's chunk (status st) into the caller's arrays; its status. */
static gh_status
read_answer(SvcSlot *s, gh_status st, int ncols, const GpuPageReq *req, uint64 *keys,
			gh_agg_inval *vals, uint8 *heap, uint64 *n_rows, uint64 *heap_bytes,
			gh_page_stats *stats)
{
	char	   *chunk = chunk_of(s);
	DimPagesLayout lay;

	if (st == GH_OK && (!dim_pages_layout(gpuhash_svc->chunk_bytes, ncols, req->in_place, &lay) ||
						s->written > lay.rows_cap || s->total > lay.heap_cap))
	{
		gh_set_last_error("GPU service: bad dimension pages answer");
		st = GH_ERR_INVALID;
	}
	if (st == GH_OK)
	{
		*n_rows = s->written;
		*heap_bytes = s->total;
		memcpy(keys, chunk + lay.keys, sizeof(uint64) * s->written);
		memcpy(vals, chunk + lay.vals, sizeof(gh_agg_inval) * s->written * ncols);
		memcpy(heap, chunk + lay.heap, s->total);
		memcpy(req->refused, chunk + lay.pg.refused, req->n_pages);
		memcpy(stats, chunk + lay.pg.stats, sizeof(gh_page_stats));
	}
	else
		elog(DEBUG1, "gpuhash: the GPU service did not walk the dimension's pages: %s",
			 gh_last_error());
	return st;
}

/*
 * Pages one request of ncols dimension columns takes, copied or read in
 * place, (*rows) the rows its pages may list together and (*heap) the
 * bytes its values may take; 0 without the service.
 */
uint32
gpuhash_service_dim_pages_capacity(int ncols, bool in_place, uint32 *rows, uint64 *heap)
{
	DimPagesLayout lay;

	*rows = 0;
	*heap = 0;
	if (!gpuhash_service_ready() ||
		!dim_pages_layout(gpuhash_svc->chunk_bytes, ncols, in_place, &lay))
		return 0;
	*rows = (uint32) Min(lay.rows_cap, PG_UINT32_MAX);
	*heap = lay.heap_cap;
	return (uint32) lay.cap_pages;
}

/*
 * Walks req's pages in the service on device (GH_DEVICE_GPU or
 * GH_DEVICE_HOST) into the caller's arrays (sized as gh_page_dim_rows
 * asks), req->refused set.  False when the service cannot take it now or
 * its walk failed: nothing is then written but req->refused, and the
 * caller walks the pages itself.
 */
static bool
walk_in_service(const gh_page_scan *scan, const int16 *cols, int ncols, const GpuPageReq *req,
				gh_device device, uint64 *keys, gh_agg_inval *vals, uint8 *heap,
				uint64 *n_rows, uint64 *heap_bytes, gh_page_stats *stats)
{
	DimPagesLayout lay;
	SvcSlot    *s;
	uint32		gen;
	gh_status	st;

	if (!gpuhash_service_ready() ||
		!dim_pages_layout(gpuhash_svc->chunk_bytes, ncols, req->in_place, &lay) ||
		!dim_request_fits(&lay, req) || (req->in_place && !gpuhash_svc->pool_in_place))
		return false;
	gen = pg_atomic_read_u32(&gpuhash_svc->generation);
	if ((s = svc_try_claim_slot()) == NULL)
		return false;
	write_request(s, &lay, scan, cols, ncols, req, device);
	pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
	st = read_answer(s, svc_submit(s, gen), ncols, req, keys, vals, heap, n_rows, heap_bytes,
					 stats);
	return svc_release_if_ours(s, gen, st) == GH_OK;
}

/*
 * The same walk, in flight while the backend reads its next pages: req's
 * pages (pinned by the caller until the answer is taken) go to the
 * service, tk follows them.  False when it cannot go now (tk then holds
 * nothing): the caller walks them as walk_in_service does.
 */
bool
gpuhash_svc_dim_pages_submit(const gh_page_scan *scan, const int16 *cols, int ncols,
							 const GpuPageReq *req, gh_device device, GhProbeTicket *tk)
{
	GhRemoteTable t;
	DimPagesLayout lay;
	SvcSlot    *s;

	tk->slot = -1;
	if (!gpuhash_svc_page_notable(&t) ||
		!dim_pages_layout(gpuhash_svc->chunk_bytes, ncols, req->in_place, &lay) ||
		!dim_request_fits(&lay, req) || (req->in_place && !gpuhash_svc->pool_in_place) ||
		(s = gpuhash_svc_async_claim(&t)) == NULL)
		return false;
	write_request(s, &lay, scan, cols, ncols, req, device);
	gpuhash_svc_async_submit(s, &t, tk);
	return true;
}

/*
 * The answer of a request in flight, into the caller's arrays as
 * walk_in_service writes them.  False when the service's walk failed:
 * the caller walks the pages itself.
 */
static bool
answer_in_flight(GhProbeTicket *tk, const GpuPageReq *req, int ncols, uint64 *keys,
				 gh_agg_inval *vals, uint8 *heap, uint64 *n_rows, uint64 *heap_bytes,
				 gh_page_stats *stats)
{
	SvcSlot    *s;
	gh_status	st = gpuhash_svc_async_wait(tk, &s);

	st = read_answer(s, st, ncols, req, keys, vals, heap, n_rows, heap_bytes, stats);
	return gpuhash_svc_async_release(s, tk, st) == GH_OK;
}

/*
 * A request's rows however they come (the backend's one way to them): the
 * answer of the request in flight, else, where it was never sent and
 * use_service, the service's walk now, else this backend's walk on the
 * host twin.  True when the service walked them.  Where no walk succeeded
 * every page is refused and no row is given (*n_rows, *heap_bytes and
 * *stats zero): the caller reads the pages on the CPU.  ncols 0: keys only
 * (vals and heap untouched).
 */
bool
gpuhash_dim_pages_rows(struct GpuPageReq *req, const gh_page_scan *scan, const int16 *cols,
					   int ncols, bool use_service, gh_device device, uint64 *keys,
					   gh_agg_inval *vals, uint8 *heap, uint64 *n_rows, uint64 *heap_bytes,
					   gh_page_stats *stats)
{
	const uint8 *data;
	size_t		bytes;

	if (req->in_flight)
	{
		req->in_flight = false;
		if (answer_in_flight(&req->ticket, req, ncols, keys, vals, heap, n_rows, heap_bytes,
							 stats))
			return true;
	}
	/* not sent (no slot was free): now; sent and failed (full): walked here */
	else if (use_service &&
			 walk_in_service(scan, cols, ncols, req, device, keys, vals, heap, n_rows,
							 heap_bytes, stats))
		return true;

	/* what a failed service walk left in the outputs goes */
	data = req->in_place ? (const uint8 *) BufferBlocks : req->pages;
	bytes = req->in_place ? (size_t) NBuffers * BLCKSZ : (size_t) req->n_pages * GH_PAGE_SIZE;
	*n_rows = *heap_bytes = 0;
	memset(stats, 0, sizeof(*stats));
	if (gh_page_dim_rows(GH_AGG_HOST, scan, cols, ncols, req->refs, (uint32) req->n_pages,
						 data, bytes, req->visible, req->n_visible, 0, keys, vals,
						 (uint64) GH_PAGE_MAX_TUPLES * req->n_pages, heap,
						 ncols > 0 ? gh_dim_pages_heap_bound(req->n_pages, ncols) : 0,
						 n_rows, heap_bytes, req->refused, stats) != GH_OK)
	{
		/* every page to the CPU */
		elog(DEBUG1, "gpuhash: a request's pages left to the CPU: %s", gh_last_error());
		memset(req->refused, 1, req->n_pages);
		*n_rows = *heap_bytes = 0;
		memset(stats, 0, sizeof(*stats));
	}
	return false;
}

/*
 * The service's side (a worker thread: no PostgreSQL calls here): the walk
 * of the chunk's pages, the rows behind them.
 */
gh_status
gpuhash_svc_serve_dim_pages(SvcSlot *s)
{
	char	   *chunk = chunk_of(s);
	DimPagesLayout lay;
	gh_page_stats stats;
	const uint8 *pages;
	size_t		pages_bytes;
	const gh_page_ref *refs;
	SvcPageCacheHold hold;
	int			device;
	uint64		n = 0,
				hb = 0;
	gh_status	st = GH_OK;

	/* the rows the pages can give are checked against rows_cap by the walk */
	if (!dim_pages_layout(gpuhash_svc->chunk_bytes, s->ninner, s->in_place, &lay) ||
		s->n > lay.cap_pages || s->pos > lay.rows_cap)
	{
		strlcpy(s->err, "GPU service: bad dimension pages request", sizeof(s->err));
		return GH_ERR_INVALID;
	}
	if (!svc_request_pages(s, chunk, lay.pg.pages, &pages, &pages_bytes))
		return GH_ERR_INVALID;
	device = svc_request_device(s);
	memset(&stats, 0, sizeof(stats));

	/*
	 * Pages kept on the walking device (service_page_cache.c): its misses
	 * copied into their store pages first, then every page read by address,
	 * so a table walked again does not cross the link again.
	 */
	refs = (const gh_page_ref *) (chunk + lay.pg.refs);
	memset(&hold, 0, sizeof(hold));
	st = svc_page_cache_fill(s, device == GH_AGG_HOST ? -1 : device,
							 svc_page_tags_at(chunk, lay.tags), &refs, &pages, &pages_bytes,
							 &hold);
	if (st == GH_OK)
		st = gh_page_dim_rows(device, (const gh_page_scan *) chunk,
							  (const int16_t *) (chunk + lay.cols), s->ninner, refs,
							  (uint32) s->n, pages, pages_bytes,
							  (const uint16 *) (chunk + lay.pg.visible), (uint32) s->pos,
							  s->in_place ? 1 : 0, (uint64_t *) (chunk + lay.keys),
							  (gh_agg_inval *) (chunk + lay.vals), lay.rows_cap,
							  (uint8_t *) (chunk + lay.heap), lay.heap_cap, &n, &hb,
							  (uint8_t *) (chunk + lay.pg.refused), &stats);
	stats.stored = hold.stored;
	stats.filled = hold.n_fills;
	svc_page_cache_end(&hold, st == GH_OK && svc_keeps_copies(s));
	if (st != GH_OK)
	{
		strlcpy(s->err, gh_last_error(), sizeof(s->err));
		return st;
	}
	memcpy(chunk + lay.pg.stats, &stats, sizeof(stats));
	s->written = n;
	s->total = hb;
	return GH_OK;
}
