/*-------------------------------------------------------------------------
 *
 * service_page.c
 *	  REQ_PAGE_PROBE (issue 53): an absorbed scan's heap pages go to the GPU
 *	  service in one request, with the scan program, the pages' references
 *	  and the visible offsets of the pages that are not all-visible; the
 *	  page walker (cuda/gpuhash_page.h) answers in place with match records
 *	  and refused flags.  A backend keeps two in flight, as its probes.
 *
 * The request's chunk, from its start, each part 64-aligned, sized for
 * the most pages a chunk takes (page_layout):
 *	  gh_page_scan | refs | pages (8 kB each) | visible | refused |
 *	  gh_page_stats | matches
 * A backend reads pages straight into the pages of a slot it holds
 * (gpuhash_svc_page_claim), then writes the rest and sends it.  The
 * answer's matches go behind the pages, never over them.
 *
 * In place (the service mapped the buffer pool: pool_in_place) a request
 * carries no page: each ref's offset is its buffer's from BufferBlocks,
 * which lies at the same address in the service as in every backend, and
 * every page comes with its visible list; the walker reads the pool
 * (gh_page_probe_mapped) while the backend keeps the pages pinned.
 *
 * The requests of a parallel plan's participants on one GPU table run at
 * once, each on a lane of its own (svc_serve_table_page): the link reads
 * one request's pages while another's kernels and copies run.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_layout.h"
#include "service_gpus.h"
#include "worker_internal.h"
#include "scan/page_scan.h"
#include "gpuhash_agg.h"

#include "storage/bufmgr.h"
#include "storage/bufpage.h"

typedef struct PageLayout
{
	SvcPagesLayout pg;		/* the pages section */
	Size		tags;			/* in place: cap SvcPageTag (the page cache's) */
	Size		matches;
	uint64		cap_pages;		/* pages a request may carry */
	uint64		cap_tuples;		/* visible offsets it may list */
	uint64		capacity;		/* match records: a whole row each */
} PageLayout;

/*
 * The one layout of every page request in a chunk of chunk_bytes, false
 * when a chunk has no room for one full page.  Copied: room for cap_pages
 * pages, each full of visible tuples that all match, so that a backend can
 * read pages straight into a chunk before it knows how many tuples they
 * hold.  In place: no pages, and room for cap_tuples listed tuples that
 * all match, cap_tuples shared by the request's pages (a backend stops
 * adding pages while the next could overflow it: page_scan.c), which lets
 * a request carry several times as many pages: fewer requests, each
 * with its fixed costs (launches, selections, round trips), for the same
 * pages.  Up to GPUHASH_MAX_REQ_PAGES pages in place, which a chain's
 * bottom asks for (other scans pin fewer a batch), where their refs take
 * a 16th of the chunk or less (the default 4 MB: 2.4% fewer listed tuples
 * than room for 1 024 pages left); in a smaller chunk 1 024.
 */
static bool
page_layout(uint64 chunk_bytes, bool in_place, PageLayout *lay)
{
	Size		fixed = TYPEALIGN(64, sizeof(gh_page_scan)) + 64 * 5 + sizeof(gh_page_stats);
	Size		off;
	uint64		cap;

	if (in_place)
	{
		Size		per_page = sizeof(gh_page_ref) + 1 + sizeof(SvcPageTag),
					per_tuple = sizeof(uint16) + sizeof(gh_page_match),
					full = per_page + GH_PAGE_MAX_TUPLES * per_tuple;

		fixed += 64;
		if (chunk_bytes <= fixed + full)
			return false;
		/* a chain bottom's 4 096 pages where their refs take at most a 16th of the chunk */
		cap = (uint64) GPUHASH_MAX_REQ_PAGES * per_page * 16 <= chunk_bytes ?
			GPUHASH_MAX_REQ_PAGES : GPUHASH_MAX_BATCH_PINS;
		cap = Min(cap, (chunk_bytes - fixed - GH_PAGE_MAX_TUPLES * per_tuple) / per_page);
		lay->cap_tuples = (chunk_bytes - fixed - cap * per_page) / per_tuple;
		off = TYPEALIGN(64, sizeof(gh_page_scan));
		off = svc_pages_layout_in_place(off, cap, lay->cap_tuples, sizeof(gh_page_stats),
										&lay->pg);
		lay->tags = off;
		off = TYPEALIGN(64, off + cap * sizeof(SvcPageTag));
	}
	else
	{
		Size		per = sizeof(gh_page_ref) + GH_PAGE_SIZE +
			GH_PAGE_MAX_TUPLES * sizeof(uint16) + 1 + GH_PAGE_MAX_TUPLES * sizeof(gh_page_match);

		if (chunk_bytes <= fixed + per)
			return false;
		cap = (chunk_bytes - fixed) / per;
		lay->cap_tuples = cap * GH_PAGE_MAX_TUPLES;
		lay->tags = 0;
		off = TYPEALIGN(64, sizeof(gh_page_scan));
		off = svc_pages_layout(off, cap, sizeof(gh_page_stats), &lay->pg);
	}
	lay->matches = off;
	lay->cap_pages = cap;
	lay->capacity = (chunk_bytes - off) / sizeof(gh_page_match);
	return lay->capacity >= lay->cap_tuples;
}

/* Pages one copied request takes; 0 without the service. */
uint32
gpuhash_service_page_capacity(void)
{
	PageLayout	lay;

	if (!gpuhash_service_ready() || !page_layout(gpuhash_svc->chunk_bytes, false, &lay))
		return 0;
	return (uint32) lay.cap_pages;
}

/*
 * Pages one request read in place takes, and (*tuples) the visible tuples
 * its pages may list together; 0 without the service.
 */
uint32
gpuhash_service_page_capacity_in_place(uint32 *tuples)
{
	PageLayout	lay;

	*tuples = 0;
	if (!gpuhash_service_ready() || !page_layout(gpuhash_svc->chunk_bytes, true, &lay))
		return 0;
	*tuples = (uint32) lay.cap_tuples;
	return (uint32) lay.cap_pages;
}

/* May page requests name buffers instead of carrying pages? */
bool
gpuhash_service_pages_in_place(void)
{
	return gpuhash_service_ready() && gpuhash_svc->pool_in_place;
}

/*
 * A slot for a request of t's, held by tk while its pages are read straight
 * into its chunk: where they go; NULL when no slot is free now.  Given up
 * by gpuhash_svc_probe_abandon(tk) if it is never sent.
 */
uint8 *
gpuhash_svc_page_claim(GhRemoteTable *t, GhProbeTicket *tk)
{
	PageLayout	lay;
	SvcSlot    *s;

	tk->slot = -1;
	if (!page_layout(gpuhash_svc->chunk_bytes, false, &lay) ||
		(s = gpuhash_svc_async_claim(t)) == NULL)
		return NULL;
	s->n = 0;
	gpuhash_svc_async_hold(s, t, tk);
	return (uint8 *) chunk_of(s) + lay.pg.pages;
}

/*
 * Sends the request: its pages already in the slot tk holds, or copied
 * from req->pages into a slot claimed now.  False when it cannot go now
 * (then tk holds nothing, and the caller walks or reads the pages itself).
 */
bool
gpuhash_svc_page_submit(GhRemoteTable *t, const gh_page_scan *scan, const GpuPageReq *req,
						GhProbeTicket *tk)
{
	PageLayout	lay;
	SvcSlot    *s;
	char	   *chunk;

	if (!page_layout(gpuhash_svc->chunk_bytes, req->in_place, &lay) ||
		req->n_pages > lay.cap_pages || req->n_visible > lay.cap_tuples ||
		(req->in_place && !gpuhash_svc->pool_in_place))
	{
		gpuhash_svc_probe_abandon(tk);
		return false;
	}
	if (tk->slot >= 0)
		s = &gpuhash_svc->slots[tk->slot];
	else if ((s = gpuhash_svc_async_claim(t)) == NULL)
		return false;
	chunk = chunk_of(s);
	if (!req->in_place && req->pages != (uint8 *) chunk + lay.pg.pages)
		memcpy(chunk + lay.pg.pages, req->pages, (Size) req->n_pages * GH_PAGE_SIZE);
	memcpy(chunk, scan, sizeof(gh_page_scan));
	memcpy(chunk + lay.pg.refs, req->refs, req->n_pages * sizeof(gh_page_ref));
	memcpy(chunk + lay.pg.visible, req->visible, req->n_visible * sizeof(uint16));
	svc_page_tags_write(s, svc_page_tags_at(chunk, lay.tags), req);
	s->type = REQ_PAGE_PROBE;
	s->in_place = req->in_place;
	s->table_id = t->id;
	s->n = req->n_pages;
	s->pos = req->n_visible;
	s->capacity = lay.capacity;
	s->written = 0;
	gpuhash_svc_async_submit(s, t, tk);
	return true;
}

/*
 * The page cache's names of req's pages (service_page_cache.c) into tags
 * and s, where the request reads its pages in place.
 */
void
svc_page_tags_write(SvcSlot *s, SvcPageTag *tags, const GpuPageReq *req)
{
	s->page_rel = InvalidOid;
	if (!req->in_place || req->lsns == NULL || tags == NULL)
		return;
	for (int i = 0; i < req->n_pages; i++)
	{
		tags[i].lsn = req->lsns[i];
		tags[i].block = req->blocks[i];
		tags[i].pad = 0;
	}
	s->page_spc = req->rnode.spcNode;
	s->page_db = req->rnode.dbNode;
	s->page_rel = req->rnode.relNode;
}

/* Waits for the request's answer: matches, refused flags and figures into req. */
gh_status
gpuhash_svc_page_wait(GhRemoteTable *t, GhProbeTicket *tk, GpuPageReq *req)
{
	SvcSlot    *s;
	gh_status	st = gpuhash_svc_async_wait(tk, &s);
	PageLayout	lay;

	if (st == GH_OK &&
		(!page_layout(gpuhash_svc->chunk_bytes, req->in_place, &lay) ||
		 s->written > lay.capacity || s->written > (uint64) req->n_pages * GH_PAGE_MAX_TUPLES))
	{
		gh_set_last_error("GPU service: bad page probe answer");
		st = GH_ERR_INVALID;
	}
	if (st == GH_OK)
	{
		char	   *chunk = chunk_of(s);

		req->n_matches = s->written;
		memcpy(req->matches, chunk + lay.matches, s->written * sizeof(gh_page_match));
		memcpy(req->refused, chunk + lay.pg.refused, req->n_pages);
		memcpy(&req->stats, chunk + lay.pg.stats, sizeof(gh_page_stats));
		t->info = s->info;
	}
	return gpuhash_svc_async_release(s, tk, st);
}

/*
 * t as no table (id 0) of the running service: a walk that only filters
 * (an inner scan's pages, page_inner.c).  False without the service.
 */
bool
gpuhash_svc_page_notable(GhRemoteTable *t)
{
	if (!gpuhash_service_ready())
		return false;
	memset(t, 0, sizeof(*t));
	t->generation = pg_atomic_read_u32(&gpuhash_svc->generation);
	return true;
}


/*
 * The pages a page request's walk reads: the copies in its chunk (at
 * pages_off), or the buffer pool itself where the request reads in place
 * (mapped once by the service); false, with the slot's error, where the
 * pool is not mapped, or where the request was given up while it waited
 * for a thread: its requester may have let its pins go since, so its
 * pages are not read at all.
 */
bool
svc_request_pages(SvcSlot *s, const char *chunk, Size pages_off, const uint8 **pages,
				  size_t *pages_bytes)
{
	*pages = (const uint8 *) (chunk + pages_off);
	*pages_bytes = (size_t) s->n * GH_PAGE_SIZE;
	if (svc_given_up(s))
	{
		strlcpy(s->err, "request given up", sizeof(s->err));
		return false;
	}
	if (!s->in_place)
		return true;
	if (!gpuhash_svc->pool_in_place)
	{
		strlcpy(s->err, "GPU service: the buffer pool is not mapped", sizeof(s->err));
		return false;
	}
	*pages = (const uint8 *) BufferBlocks;
	*pages_bytes = (size_t) NBuffers * BLCKSZ;
	return true;
}

/*
 * The device a page request runs on: the host twin, or where it asks for a
 * GPU, the GPUs in turns by slot, so that a query's requests in flight
 * spread over them.
 */
int
svc_request_device(SvcSlot *s)
{
	if (s->opt.device == GH_DEVICE_GPU && svc_gpu_count() > 0)
		return svc_gpu_ordinal((int) (s - gpuhash_svc->slots) % svc_gpu_count());
	return GH_AGG_HOST;
}

/* A page request's walk fits the chunk's layout. */
static bool
page_request_ok(SvcSlot *s, PageLayout *lay)
{
	if (!page_layout(gpuhash_svc->chunk_bytes, s->in_place, lay) || s->n > lay->cap_pages ||
		s->pos > lay->cap_tuples || s->capacity > lay->capacity)
	{
		strlcpy(s->err, "GPU service: bad page probe", sizeof(s->err));
		return false;
	}
	return true;
}

/*
 * The walk over the request's pages (in the chunk, or the pool in place) on
 * lane, or on the table's own stream where lane is NULL; the matches behind
 * the pages, the figures in the chunk and in *stats.
 */
static gh_status
walk_request(SvcSlot *s, const PageLayout *lay, gh_table *table, gh_page_lane *lane,
			 const SvcPageCacheHold *h, gh_page_stats *stats)
{
	char	   *chunk = chunk_of(s);
	const uint8 *pages;
	size_t		bytes;
	size_t		n_out = 0;
	gh_status	st;

	memset(stats, 0, sizeof(*stats));
	if (!svc_request_pages(s, chunk, lay->pg.pages, &pages, &bytes))
		return GH_ERR_INVALID;
	if (h != NULL && h->cache != NULL)
	{
		/* by address: the cached copies, the fills, the rest in the pool */
		st = gh_page_probe_at(table, lane, h->fills, h->n_fills, (const gh_page_scan *) chunk,
							  h->refs, (uint32) s->n, (const uint16 *) (chunk + lay->pg.visible),
							  (uint32) s->pos, (gh_page_match *) (chunk + lay->matches),
							  s->capacity, &n_out, (uint8 *) (chunk + lay->pg.refused), stats);
		stats->stored = h->stored;
		stats->filled = h->n_fills;
	}
	else if (lane != NULL)
		st = gh_page_probe_lane(lane, s->in_place, (const gh_page_scan *) chunk,
								(const gh_page_ref *) (chunk + lay->pg.refs), (uint32) s->n,
								pages, bytes, (const uint16 *) (chunk + lay->pg.visible),
								(uint32) s->pos, (gh_page_match *) (chunk + lay->matches),
								s->capacity, &n_out, (uint8 *) (chunk + lay->pg.refused), stats);
	else
		st = (s->in_place ? gh_page_probe_mapped : gh_page_probe)
			(table, (const gh_page_scan *) chunk, (const gh_page_ref *) (chunk + lay->pg.refs),
			 (uint32) s->n, pages, bytes, (const uint16 *) (chunk + lay->pg.visible),
			 (uint32) s->pos, (gh_page_match *) (chunk + lay->matches), s->capacity, &n_out,
			 (uint8 *) (chunk + lay->pg.refused), stats);
	if (st != GH_OK)
	{
		strlcpy(s->err, gh_last_error(), sizeof(s->err));
		return st;
	}
	memcpy(chunk + lay->pg.stats, stats, sizeof(*stats));
	s->written = n_out;
	return GH_OK;
}

/*
 * The service's side (a worker thread: no PostgreSQL calls here): the walk
 * over the pages in the chunk, the matches behind them; table NULL: no
 * table, the rows that pass (gh_page_probe walks on the host).
 */
gh_status
gpuhash_svc_serve_page(SvcSlot *s, gh_table *table)
{
	PageLayout	lay;
	gh_page_stats stats;
	gh_status	st;

	if (!page_request_ok(s, &lay))
		return GH_ERR_INVALID;
	st = walk_request(s, &lay, table, NULL, NULL, &stats);
	if (st == GH_OK && table != NULL)
		gh_table_get_info(table, &s->info);
	return st;
}

/*
 * The request's pages in the page cache of the device table walks on
 * (service_page_cache.c), where the request names them; h holds nothing
 * otherwise.
 */
static void
cache_begin(SvcSlot *s, const PageLayout *lay, gh_table *table, SvcPageCacheHold *h)
{
	gh_table_info info;
	char	   *chunk = chunk_of(s);

	gh_table_get_info(table, &info);
	(void) svc_page_cache_begin(s, info.device == GH_DEVICE_GPU ? info.gpu_ordinal : -1,
								(const gh_page_ref *) (chunk + lay->pg.refs),
								svc_page_tags_at(chunk, lay->tags),
								(uint32) s->n, h);
}

/*
 * A request on a join table t, in use by this thread: on a lane where t is
 * on a GPU, so that the participants' requests overlap (the lane taken and
 * given back under t's probe lock, the walk without it); elsewhere the whole
 * walk under the lock.
 */
gh_status
svc_serve_table_page(SvcSlot *s, SvcTable *t)
{
	int			l = t->home < 0 ? 0 : t->home;
	PageLayout	lay;
	gh_page_stats stats;
	gh_page_lane *lane = NULL;
	SvcPageCacheHold hold;
	gh_status	st;

	if (!page_request_ok(s, &lay))
		return GH_ERR_INVALID;
	/* given up: no cache entry is taken for fills nobody will read */
	if (svc_given_up(s))
	{
		strlcpy(s->err, "request given up", sizeof(s->err));
		return GH_ERR_INVALID;
	}
	pthread_mutex_lock(&t->copy_lock[l]);
	st = gh_page_lane_take(t->table, s->in_place ? 0 : (size_t) s->n * GH_PAGE_SIZE,
						   (uint32) s->n, (uint32) s->pos, &lane);
	if (st != GH_OK)
		strlcpy(s->err, gh_last_error(), sizeof(s->err));
	else if (lane == NULL)
	{
		cache_begin(s, &lay, t->table, &hold);
		st = walk_request(s, &lay, t->table, NULL, &hold, &stats);
		svc_page_cache_end(&hold, st == GH_OK && svc_keeps_copies(s));
		if (st == GH_OK)
			gh_table_get_info(t->table, &s->info);
	}
	pthread_mutex_unlock(&t->copy_lock[l]);
	if (st != GH_OK || lane == NULL)
		return st;

	cache_begin(s, &lay, t->table, &hold);
	st = walk_request(s, &lay, t->table, lane, &hold, &stats);

	/*
	 * The lane back before the cache entries: after a failed walk, giving
	 * the lane back waits for its stream, whose fills may still be writing
	 * the entries the hold names; released, another walk may take them.
	 */
	pthread_mutex_lock(&t->copy_lock[l]);
	gh_page_lane_give(t->table, lane, st == GH_OK ? &stats : NULL);
	if (st == GH_OK)
		gh_table_get_info(t->table, &s->info);
	pthread_mutex_unlock(&t->copy_lock[l]);
	svc_page_cache_end(&hold, st == GH_OK && svc_keeps_copies(s));
	return st;
}
