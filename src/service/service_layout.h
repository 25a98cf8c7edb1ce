/*-------------------------------------------------------------------------
 *
 * service_layout.h
 *	  The pages section every page request's chunk holds (page_scan.c's
 *	  joins, service_agg.c's aggregation): written once so that a backend
 *	  reading pages straight into a chunk and the worker reading them agree.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_SERVICE_LAYOUT_H
#define GPUHASH_SERVICE_LAYOUT_H

#include "gpuhash_page.h"

/*
 * A page of a join's request read in place, as the page cache names it
 * (service_page_cache.c): its block of the request's relation, and the
 * page LSN its backend saw under the share lock (0: not to be cached).
 */
typedef struct SvcPageTag
{
	uint64		lsn;
	uint32		block;
	uint32		pad;
} SvcPageTag;

/* A request's tags in its chunk, at offset off (0: the request has none). */
static inline SvcPageTag *
svc_page_tags_at(char *chunk, Size off)
{
	return off != 0 ? (SvcPageTag *) (chunk + off) : NULL;
}

/* Offsets in a chunk of a request's pages and what the walker writes. */
typedef struct SvcPagesLayout
{
	Size		refs;			/* cap gh_page_ref */
	Size		pages;			/* cap pages of GH_PAGE_SIZE */
	Size		visible;		/* cap * GH_PAGE_MAX_TUPLES uint16 (in place:
								 * the request's tuples) */
	Size		refused;		/* cap bytes */
	Size		stats;			/* stats_size bytes */
} SvcPagesLayout;

/*
 * Lays out room for cap pages from off (64-aligned), then stats_size bytes
 * of statistics; each part 64-aligned.  Returns the aligned offset past the
 * statistics.
 */
static inline Size
svc_pages_layout(Size off, uint64 cap, Size stats_size, SvcPagesLayout *lay)
{
	lay->refs = off;
	off = TYPEALIGN(64, off + cap * sizeof(gh_page_ref));
	lay->pages = off;
	off = TYPEALIGN(64, off + cap * GH_PAGE_SIZE);
	lay->visible = off;
	off = TYPEALIGN(64, off + cap * GH_PAGE_MAX_TUPLES * sizeof(uint16));
	lay->refused = off;
	off = TYPEALIGN(64, off + cap);
	lay->stats = off;
	return TYPEALIGN(64, off + stats_size);
}

/*
 * A request read in place carries no pages, and every page its list of
 * visible offsets (page_scan.c), so room for tuples offsets in all, rather
 * than GH_PAGE_MAX_TUPLES a page, bounds what it may carry: about four
 * times the pages of a copied request in the same chunk.  pages is left
 * at visible, holding nothing.
 */
static inline Size
svc_pages_layout_in_place(Size off, uint64 cap, uint64 tuples, Size stats_size,
						  SvcPagesLayout *lay)
{
	lay->refs = off;
	off = TYPEALIGN(64, off + cap * sizeof(gh_page_ref));
	lay->pages = off;
	lay->visible = off;
	off = TYPEALIGN(64, off + tuples * sizeof(uint16));
	lay->refused = off;
	off = TYPEALIGN(64, off + cap);
	lay->stats = off;
	return TYPEALIGN(64, off + stats_size);
}

#endif							/* GPUHASH_SERVICE_LAYOUT_H */
