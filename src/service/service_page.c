/*-------------------------------------------------------------------------
 *
 * service_page.c
 *	  REQ_PAGE_PROBE (issue 53): an absorbed scan's heap pages go to the GPU
 *	  service in one request, with the scan program, the pages' references
 *	  and the visible offsets of the pages that are not all-visible; the
 *	  page walker (cuda/gpuhash_page.h) answers in place with match records
 *	  and refused flags.  A backend keeps two in flight, as its probes.
 *
 * The request's chunk, from its start, each part 8-aligned:
 *	  gh_page_scan | refs[n] | visible[nv] | pages[n x 8 kB] | refused[n] |
 *	  gh_page_stats | matches[capacity]
 * The answer's matches go behind the pages, never over them: the walker
 * reads every page before it has written its matches.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "scan/page_scan.h"

#include "storage/bufpage.h"

typedef struct PageLayout
{
	Size		refs;
	Size		visible;
	Size		pages;
	Size		refused;
	Size		stats;
	Size		matches;
	uint64		capacity;
} PageLayout;

static bool
page_layout(uint64 chunk_bytes, uint64 n_pages, uint64 n_visible, PageLayout *lay)
{
	Size		off = TYPEALIGN(8, sizeof(gh_page_scan));

	if (n_pages == 0 || n_pages > chunk_bytes / GH_PAGE_SIZE ||
		n_visible > chunk_bytes / sizeof(uint16))
		return false;
	lay->refs = off;
	off = TYPEALIGN(8, off + n_pages * sizeof(gh_page_ref));
	lay->visible = off;
	off = TYPEALIGN(8, off + n_visible * sizeof(uint16));
	lay->pages = off;
	off += n_pages * GH_PAGE_SIZE;
	lay->refused = off;
	off = TYPEALIGN(8, off + n_pages);
	lay->stats = off;
	off = TYPEALIGN(8, off + sizeof(gh_page_stats));
	lay->matches = off;
	if (off >= chunk_bytes)
		return false;
	lay->capacity = (chunk_bytes - off) / sizeof(gh_page_match);
	return true;
}

/* Rows the walker may write for these pages: each page's visible ones, at most. */
static uint64
rows_at_most(const GpuPageReq *req)
{
	uint64		n = 0;

	for (int i = 0; i < req->n_pages; i++)
		n += req->refs[i].nvis == GH_PAGE_ALL_VISIBLE ? req->refs[i].maxoff : req->refs[i].nvis;
	return n;
}

/*
 * Pages one request takes when each may be full of tuples, all of which
 * may match; 0 without the service.
 */
uint32
gpuhash_service_page_capacity(void)
{
	Size		per = sizeof(gh_page_ref) + GH_PAGE_MAX_TUPLES * sizeof(uint16) +
		GH_PAGE_SIZE + 1 + GH_PAGE_MAX_TUPLES * sizeof(gh_page_match);
	Size		fixed = TYPEALIGN(8, sizeof(gh_page_scan)) + sizeof(gh_page_stats) + 64;

	if (!gpuhash_service_ready() || gpuhash_svc->chunk_bytes <= fixed + per)
		return 0;
	return (uint32) ((gpuhash_svc->chunk_bytes - fixed) / per);
}

/* Sends the request's pages; false when it cannot go now (the caller reads them itself). */
bool
gpuhash_svc_page_submit(GhRemoteTable *t, const gh_page_scan *scan, const GpuPageReq *req,
						GhProbeTicket *tk)
{
	PageLayout	lay;
	SvcSlot    *s;
	char	   *chunk;

	tk->slot = -1;
	if (!page_layout(gpuhash_svc->chunk_bytes, req->n_pages, req->n_visible, &lay) ||
		lay.capacity < rows_at_most(req) || (s = gpuhash_svc_async_claim(t)) == NULL)
		return false;
	chunk = chunk_of(s);
	memcpy(chunk, scan, sizeof(gh_page_scan));
	memcpy(chunk + lay.refs, req->refs, req->n_pages * sizeof(gh_page_ref));
	memcpy(chunk + lay.visible, req->visible, req->n_visible * sizeof(uint16));
	memcpy(chunk + lay.pages, req->pages, (Size) req->n_pages * GH_PAGE_SIZE);
	s->type = REQ_PAGE_PROBE;
	s->table_id = t->id;
	s->n = req->n_pages;
	s->pos = req->n_visible;
	s->capacity = lay.capacity;
	s->written = 0;
	gpuhash_svc_async_submit(s, t, tk);
	return true;
}

/* Waits for the request's answer: matches, refused flags and figures into req. */
gh_status
gpuhash_svc_page_wait(GhRemoteTable *t, GhProbeTicket *tk, GpuPageReq *req)
{
	SvcSlot    *s;
	gh_status	st = gpuhash_svc_async_wait(tk, &s);
	PageLayout	lay;

	if (st == GH_OK &&
		(!page_layout(gpuhash_svc->chunk_bytes, req->n_pages, req->n_visible, &lay) ||
		 s->written > lay.capacity || s->written > rows_at_most(req)))
	{
		gh_set_last_error("GPU service: bad page probe answer");
		st = GH_ERR_INVALID;
	}
	if (st == GH_OK)
	{
		char	   *chunk = chunk_of(s);

		req->n_matches = s->written;
		memcpy(req->matches, chunk + lay.matches, s->written * sizeof(gh_page_match));
		memcpy(req->refused, chunk + lay.refused, req->n_pages);
		memcpy(&req->stats, chunk + lay.stats, sizeof(gh_page_stats));
		t->info = s->info;
	}
	return gpuhash_svc_async_release(s, tk, st);
}

/*
 * The service's side (a worker thread: no PostgreSQL calls here): the walk
 * over the pages in the chunk, the matches behind them.
 */
gh_status
gpuhash_svc_serve_page(SvcSlot *s, gh_table *table)
{
	char	   *chunk = chunk_of(s);
	PageLayout	lay;
	gh_status	st;
	size_t		n_out = 0;
	gh_page_stats stats;

	if (table == NULL ||
		!page_layout(gpuhash_svc->chunk_bytes, s->n, s->pos, &lay) || s->capacity > lay.capacity)
	{
		strlcpy(s->err, "GPU service: bad page probe", sizeof(s->err));
		return GH_ERR_INVALID;
	}
	memset(&stats, 0, sizeof(stats));
	st = gh_page_probe(table, (const gh_page_scan *) chunk, (const gh_page_ref *) (chunk + lay.refs),
					   (uint32) s->n, (const uint8 *) (chunk + lay.pages),
					   (size_t) s->n * GH_PAGE_SIZE, (const uint16 *) (chunk + lay.visible),
					   (uint32) s->pos, (gh_page_match *) (chunk + lay.matches), s->capacity,
					   &n_out, (uint8 *) (chunk + lay.refused), &stats);
	if (st != GH_OK)
	{
		strlcpy(s->err, gh_last_error(), sizeof(s->err));
		return st;
	}
	memcpy(chunk + lay.stats, &stats, sizeof(stats));
	s->written = n_out;
	gh_table_get_info(table, &s->info);
	return GH_OK;
}
