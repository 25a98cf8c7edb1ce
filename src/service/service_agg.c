/*-------------------------------------------------------------------------
 *
 * service_agg.c
 *	  REQ_PAGE_AGG (issue 55): the GPU aggregate's heap pages go to the GPU
 *	  service in one request, with the scan program, the aggregation program,
 *	  the pages' references and the visible offsets of pages that are not
 *	  all-visible; the service folds them (gh_page_agg) and answers the
 *	  request's groups, which the backend merges into its own set
 *	  (src/agg/agg_fold.c).
 *
 * The chunk, from its start, each part 64-aligned (agg_layout):
 *	  gh_page_scan | gh_agg_prog | refs | pages (8 kB each) | visible |
 *	  refused | gh_agg_stats | answer: keys | null masks | states
 * The pages take at most half of the chunk; the answer's groups the rest,
 * so a request's groups are bounded by the chunk as well as by the
 * caller's max_groups.  The pages are copied in (a backend keeps its own
 * copy, so that a request the service cannot fold is folded in-process),
 * unless the request is in place: as the join's page requests
 * (service_page.c), each ref's offset is then its buffer's from
 * BufferBlocks, every page comes with its visible list, and the service
 * reads the pool (gh_page_agg_mapped) while the backend keeps the pages
 * pinned; the chunk's pages part goes unused.
 *
 * Over a join (dim_id != 0), the request names a dimension the backend
 * built in the service (service_dim.c): the pages are folded joined to its
 * rows (gh_page_agg_join_mapped) on the device that holds it.  A dimension
 * gone (freed, or the service restarted) is a clean ERROR: the backend
 * asked for rows that are no longer there.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_layout.h"
#include "service_gpus.h"
#include "worker_internal.h"
#include "scan/page_scan.h"
#include "agg_exec.h"
#include "service_groups.h"

#include "miscadmin.h"
#include "storage/bufmgr.h"

typedef struct AggLayout
{
	Size		agg;
	SvcPagesLayout pg;		/* the pages section */
	Size		tags;			/* in place: cap SvcPageTag (the page cache's) */
	Size		keys;
	Size		nulls;
	Size		states;
	uint64		cap_pages;		/* pages a request may carry */
	uint64		groups;			/* groups the answer may hold */
} AggLayout;

/*
 * The layout for naggs aggregates and keys of kw words (gh_agg_key_words):
 * half the chunk for the pages, half for the groups.  A request read in
 * place carries no pages, so its half holds refs and visible lists of up
 * to GPUHASH_MAX_BATCH_PINS pages, about four times a copied request's: fewer
 * requests, each with its fixed costs, for the same pages.
 */
static bool
agg_layout(uint64 chunk_bytes, int naggs, int kw, bool in_place, AggLayout *lay)
{
	Size		per_page = sizeof(gh_page_ref) + (in_place ? sizeof(SvcPageTag) : GH_PAGE_SIZE) +
		GH_PAGE_MAX_TUPLES * sizeof(uint16) + 1;
	Size		per_group = sizeof(uint64) * kw + 1 + sizeof(gh_agg_state) * Max(naggs, 1);
	Size		fixed = TYPEALIGN(64, sizeof(gh_page_scan)) + TYPEALIGN(64, sizeof(gh_agg_prog)) +
		64 * 9 + sizeof(gh_agg_stats);
	Size		off;
	uint64		cap;

	if (naggs < 1 || naggs > GH_AGG_MAX_AGGS || chunk_bytes <= 2 * (fixed + per_page))
		return false;
	cap = (chunk_bytes / 2 - fixed) / per_page;
	if (in_place)
		cap = Min(cap, GPUHASH_MAX_BATCH_PINS);
	off = TYPEALIGN(64, sizeof(gh_page_scan));
	lay->agg = off;
	off = TYPEALIGN(64, off + sizeof(gh_agg_prog));
	off = in_place ?
		svc_pages_layout_in_place(off, cap, cap * GH_PAGE_MAX_TUPLES, sizeof(gh_agg_stats),
								  &lay->pg) :
		svc_pages_layout(off, cap, sizeof(gh_agg_stats), &lay->pg);
	lay->tags = 0;
	if (in_place)
	{
		lay->tags = off;
		off = TYPEALIGN(64, off + cap * sizeof(SvcPageTag));
	}
	lay->keys = off;
	if (off + 128 + per_group >= chunk_bytes)
		return false;
	lay->groups = (chunk_bytes - off - 128) / per_group;
	lay->nulls = TYPEALIGN(64, lay->keys + lay->groups * sizeof(uint64) * kw);
	lay->states = TYPEALIGN(64, lay->nulls + lay->groups);
	lay->cap_pages = cap;
	return lay->states + lay->groups * sizeof(gh_agg_state) * naggs <= chunk_bytes;
}

/* Pages one aggregation request takes, copied or read in place; 0 without the service. */
uint32
gpuhash_service_agg_capacity(int naggs, int key_words, bool in_place)
{
	AggLayout	lay;

	if (!gpuhash_service_ready() ||
		!agg_layout(gpuhash_svc->chunk_bytes, naggs, key_words, in_place, &lay))
		return 0;
	return (uint32) lay.cap_pages;
}

/*
 * Sends req's pages (copied from req->pages, or named in the buffer pool
 * when req->in_place) to be folded on device
 * (GH_DEVICE_GPU or GH_DEVICE_HOST) into at most max_groups groups; joined
 * to dimension dim_id (gpuhash_svc_dim_build; 0: no join), on its device.
 * False when it cannot go now (tk then holds nothing: the caller folds
 * in-process).  ERROR when dim_id is of a service that is gone.
 */
static bool
agg_submit(const gh_page_scan *scan, const gh_agg_prog *agg, const GpuPageReq *req,
		   gh_device device, uint64 max_groups, GhProbeTicket *tk, uint64 dim_id, uint64 set_id)
{
	GhRemoteTable t;
	AggLayout	lay;
	SvcSlot    *s;
	char	   *chunk;

	tk->slot = -1;
	if (dim_id != 0 &&
		(gpuhash_svc == NULL || pg_atomic_read_u32(&gpuhash_svc->ready) == 0 ||
		 pg_atomic_read_u32(&gpuhash_svc->generation) != (uint32) (dim_id >> 32)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuhash: the join's dimension is gone: the GPU service restarted")));
	if (!gpuhash_svc_page_notable(&t) ||
		!agg_layout(gpuhash_svc->chunk_bytes, agg->naggs, gh_agg_key_words(agg), req->in_place,
					&lay) ||
		req->n_pages > lay.cap_pages || req->n_visible > lay.cap_pages * GH_PAGE_MAX_TUPLES ||
		(req->in_place && !gpuhash_svc->pool_in_place))
		return false;
	if ((s = gpuhash_svc_async_claim(&t)) == NULL)
		return false;
	chunk = chunk_of(s);
	memcpy(chunk, scan, sizeof(gh_page_scan));
	memcpy(chunk + lay.agg, agg, sizeof(gh_agg_prog));
	memcpy(chunk + lay.pg.refs, req->refs, req->n_pages * sizeof(gh_page_ref));
	if (!req->in_place)
		memcpy(chunk + lay.pg.pages, req->pages, (Size) req->n_pages * GH_PAGE_SIZE);
	memcpy(chunk + lay.pg.visible, req->visible, req->n_visible * sizeof(uint16));
	svc_page_tags_write(s, svc_page_tags_at(chunk, lay.tags), req);
	s->type = REQ_PAGE_AGG;
	s->in_place = req->in_place;
	s->table_id = 0;
	s->opt.device = device;
	s->n = req->n_pages;
	s->pos = req->n_visible;
	s->capacity = Min(max_groups, lay.groups);
	s->written = 0;
	s->dim_id = (uint32) dim_id;
	s->dim_gone = false;
	s->set_id = (uint32) set_id;
	gpuhash_svc_async_submit(s, &t, tk);
	return true;
}

bool
gpuhash_svc_agg_submit(const gh_page_scan *scan, const gh_agg_prog *agg, const GpuPageReq *req,
					   gh_device device, uint64 max_groups, GhProbeTicket *tk, uint64 dim_id)
{
	return agg_submit(scan, agg, req, device, max_groups, tk, dim_id, 0);
}

/*
 * The same, the groups (joined to dimension dim_id, 0: no join) merged
 * into resident set set_id (service_groups.c) rather than answered: the answer then holds no group, and the pages from
 * its *folded on are the backend's to fold (the set could not take them).
 * False as gpuhash_svc_agg_submit, and for a set of a service that is gone.
 */
bool
gpuhash_svc_agg_submit_set(const gh_page_scan *scan, const gh_agg_prog *agg,
						   const GpuPageReq *req, gh_device device, uint64 max_groups,
						   GhProbeTicket *tk, uint64 dim_id, uint64 set_id)
{
	if (gpuhash_svc == NULL ||
		pg_atomic_read_u32(&gpuhash_svc->generation) != (uint32) (set_id >> 32))
		return false;
	return agg_submit(scan, agg, req, device, max_groups, tk, dim_id, set_id);
}

/*
 * Waits for the answer: the groups of the request's first *folded pages in
 * answer (malloc'd, as the core's sets), their refused flags into
 * req->refused, the figures into *stats.  The pages after them did not fit
 * the answer: the caller folds them.
 */
gh_status
gpuhash_svc_agg_wait(GhProbeTicket *tk, GpuPageReq *req, const gh_agg_prog *agg,
					 gh_agg_groups *answer, gh_agg_stats *stats, int *folded)
{
	SvcSlot    *s;
	gh_status	st = gpuhash_svc_async_wait(tk, &s);
	AggLayout	lay;

	if (st != GH_OK && s->dim_gone && s->owner_pid == MyProcPid)
	{
		(void) gpuhash_svc_async_release(s, tk, st);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuhash: the join's dimension is gone from the GPU service"),
				 errdetail("%s", gh_last_error())));
	}
	if (st == GH_OK &&
		(!agg_layout(gpuhash_svc->chunk_bytes, agg->naggs, gh_agg_key_words(agg), req->in_place,
					 &lay) || s->written > lay.groups ||
		 s->skip > (uint64) req->n_pages))
	{
		gh_set_last_error("GPU service: bad aggregation answer");
		st = GH_ERR_INVALID;
	}
	if (st == GH_OK)
	{
		char	   *chunk = chunk_of(s);
		uint64		n = s->written;
		int			kw = gh_agg_key_words(agg);

		/* the caller's answer set: malloc'd arrays, as the core's sets */
		answer->key_words = (int16) kw;
		answer->keys = malloc(sizeof(uint64) * kw * Max(n, 1));
		answer->nulls = malloc(Max(n, 1));
		answer->states = malloc(sizeof(gh_agg_state) * Max(n, 1) * agg->naggs);
		if (!answer->keys || !answer->nulls || !answer->states)
		{
			gh_set_last_error("no memory for an aggregation answer");
			st = GH_ERR_HOST_MEMORY;
		}
		else
		{
			memcpy(answer->keys, chunk + lay.keys, sizeof(uint64) * kw * n);
			memcpy(answer->nulls, chunk + lay.nulls, n);
			memcpy(answer->states, chunk + lay.states, sizeof(gh_agg_state) * n * agg->naggs);
			answer->n_groups = n;
			answer->fallback_groups = s->total;
			memcpy(req->refused, chunk + lay.pg.refused, s->skip);
			*folded = (int) s->skip;
			memcpy(stats, chunk + lay.pg.stats, sizeof(gh_agg_stats));
		}
	}
	return gpuhash_svc_async_release(s, tk, st);
}

/*
 * The service's side (a worker thread: no PostgreSQL calls here): the fold
 * of the chunk's pages, the groups behind them.
 */
gh_status
gpuhash_svc_serve_agg(SvcSlot *s)
{
	char	   *chunk = chunk_of(s);
	const gh_agg_prog *agg = (const gh_agg_prog *) (chunk + TYPEALIGN(64, sizeof(gh_page_scan)));
	AggLayout	lay;
	gh_agg_groups g;
	gh_agg_stats stats;
	gh_status	st;
	int			device;
	int			ordinal;		/* the page cache's name of device */
	uint32		done = 0;
	uint32		m = (uint32) s->n;
	const gh_page_ref *refs;
	SvcPageCacheHold hold;
	const uint8 *pages;
	size_t		pages_bytes;
	SvcTable   *dt = NULL;
	SvcTable   *rs = NULL;		/* resident groups: the set runs go into */
	SvcTable   *star_pins[GH_AGG_MAX_DIMS];
	gh_agg_dim *star = NULL;	/* over a star: its dimensions side by side */

	if (!agg_layout(gpuhash_svc->chunk_bytes, agg->naggs, gh_agg_key_words(agg), s->in_place,
					&lay) || s->n > lay.cap_pages ||
		s->pos > lay.cap_pages * GH_PAGE_MAX_TUPLES || s->capacity > lay.groups)
	{
		strlcpy(s->err, "GPU service: bad aggregation request", sizeof(s->err));
		return GH_ERR_INVALID;
	}
	if (!svc_request_pages(s, chunk, lay.pg.pages, &pages, &pages_bytes))
		return GH_ERR_INVALID;
	device = svc_request_device(s);
	/* over a join: where its dimension is */
	if (s->dim_id != 0)
	{
		if ((dt = svc_use_dim(s)) == NULL)
			return GH_ERR_INVALID;
		device = gh_agg_dim_device(dt->dim);
		/* over a star, its other dimensions too (service_dim_star.c) */
		if (agg->star.ndims > 1 && (star = svc_star_use(s, agg, dt, star_pins)) == NULL)
		{
			svc_unuse_dim(dt);
			return GH_ERR_INVALID;
		}
		if (device != GH_AGG_HOST && !s->in_place && !gpuhash_svc->staging_mapped)
		{
			/* the backend folds them, joined on the CPU */
			svc_star_unuse(star, star_pins, agg->star.ndims);
			svc_unuse_dim(dt);
			strlcpy(s->err, "GPU service: copied pages are not mapped for the GPU", sizeof(s->err));
			return GH_ERR_INVALID;
		}
	}
	/* resident groups gone (freed): the groups are answered as without */
	if (s->set_id != 0)
		rs = svc_use_set(s);
	memset(&stats, 0, sizeof(stats));
	st = gh_agg_groups_init(&g, agg, s->capacity);

	/* pages kept on the device (service_page_cache.c): filled first, then read by address */
	refs = (const gh_page_ref *) (chunk + lay.pg.refs);
	ordinal = device == GH_AGG_HOST ? -1 : device;
	memset(&hold, 0, sizeof(hold));
	if (st == GH_OK)
		st = svc_page_cache_fill(s, ordinal, svc_page_tags_at(chunk, lay.tags), &refs, &pages,
								 &pages_bytes, &hold);
	stats.stored = hold.stored;
	stats.filled = hold.n_fills;

	/*
	 * More groups than the answer holds: the leading pages that fit, in
	 * halving runs; the rest are the backend's to fold (s->skip says where
	 * they start).
	 */
	while (st == GH_OK && done < s->n)
	{
		gh_agg_stats run;

		memset(&run, 0, sizeof(run));
		m = Min(m, (uint32) s->n - done);
		if (dt != NULL)
			st = gh_page_agg_join_mapped(device, (const gh_page_scan *) chunk, agg,
										 star != NULL ? star : dt->dim,
										 refs + done, m, pages, pages_bytes,
										 (const uint16 *) (chunk + lay.pg.visible), (uint32) s->pos,
										 (uint8 *) (chunk + lay.pg.refused) + done, &g, &run);
		else
			st = (s->in_place ? gh_page_agg_mapped : gh_page_agg)
				(device, (const gh_page_scan *) chunk, agg, refs + done, m, pages, pages_bytes,
				 (const uint16 *) (chunk + lay.pg.visible), (uint32) s->pos,
				 (uint8 *) (chunk + lay.pg.refused) + done, &g, &run);
		/* a run the resident set cannot take ends the request: the rest the backend's */
		if (st == GH_OK && rs != NULL && !svc_set_take(rs, &g))
		{
			gh_agg_groups_free(&g);
			break;
		}
		if (st == GH_OK)
		{
			done += m;
			stats.pages += run.pages;
			stats.refused += run.refused;
			stats.tuples += run.tuples;
			stats.passed += run.passed;
			stats.kernel_ms += run.kernel_ms;
			stats.copy_ms += run.copy_ms;
		}
		else if (st == GH_ERR_OUTPUT_FULL && m > 1)
		{
			m = (m + 1) / 2;
			st = GH_OK;
		}
		else if (st == GH_ERR_OUTPUT_FULL)
		{
			st = GH_OK;
			break;
		}
	}
	svc_page_cache_end(&hold, st == GH_OK && svc_keeps_copies(s));
	if (star != NULL)
		svc_star_unuse(star, star_pins, agg->star.ndims);
	if (dt != NULL)
		svc_unuse_dim(dt);
	if (rs != NULL)
		svc_unuse_set(rs);
	if (st != GH_OK)
	{
		strlcpy(s->err, gh_last_error(), sizeof(s->err));
		gh_agg_groups_free(&g);
		return st;
	}
	memcpy(chunk + lay.keys, g.keys, sizeof(uint64) * gh_agg_key_words(agg) * g.n_groups);
	memcpy(chunk + lay.nulls, g.nulls, g.n_groups);
	memcpy(chunk + lay.states, g.states, sizeof(gh_agg_state) * g.n_groups * agg->naggs);
	memcpy(chunk + lay.pg.stats, &stats, sizeof(stats));
	s->written = g.n_groups;
	s->total = g.fallback_groups;
	s->skip = done;
	gh_agg_groups_free(&g);
	return GH_OK;
}
