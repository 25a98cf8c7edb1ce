/*
 * gpuhash_dim_pages.h
 *		A dimension's rows made from heap pages (the aggregate over a join,
 *		gpuhash_agg.h): the inner relation's pages walked as the outer scan's
 *		are (gpuhash_page.h: the caller's visibility, the scan program's
 *		quals and exact key), and for each row that passes with a non-NULL
 *		key, its packed key and the values of the dimension's columns, in the
 *		form gh_agg_dim_build takes.  Nothing of a row but those is produced.
 *
 * The rows come out in (page, line pointer) order, the GPU's and the host
 * twin's byte for byte alike.  A page the walker cannot read exactly (a
 * needed value compressed or out of line, a malformed page, an overflow in
 * a qual) gives no row and is flagged in refused[] for the caller's tuple
 * path, as gh_page_probe refuses pages.
 *
 * Output sizes are bounded by the request: at most a row a listed tuple
 * of a page with a visible list and a row a line pointer of an all-visible
 * one (gh_dim_pages_rows_bound, GH_PAGE_MAX_TUPLES a page at most), and
 * heap bytes at most gh_dim_pages_heap_bound_rows (the values' data come
 * from the pages, each padded to 8 bytes).  The rows must fit; the heap
 * may be given less room (most dimensions' values are a small part of
 * their tuples), and a walk whose values need more says so.
 */
#ifndef GPUHASH_DIM_PAGES_H
#define GPUHASH_DIM_PAGES_H

#include "gpuhash_agg.h"

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * Heap bytes n_pages pages can need for ncols columns: every byte of the
 * pages once plus up to 7 of padding per value.
 */
static inline uint64_t
gh_dim_pages_heap_bound_rows(uint32_t n_pages, uint64_t rows, int ncols)
{
	return (uint64_t) n_pages * GH_PAGE_SIZE + rows * (uint64_t) (ncols > 0 ? ncols : 0) * 7;
}

/* The same for pages of any rows: GH_PAGE_MAX_TUPLES a page. */
static inline uint64_t
gh_dim_pages_heap_bound(uint32_t n_pages, int ncols)
{
	return gh_dim_pages_heap_bound_rows(n_pages, (uint64_t) n_pages * GH_PAGE_MAX_TUPLES, ncols);
}

/* The most rows refs' pages can give: a listed page its list, another its line pointers. */
static inline uint64_t
gh_dim_pages_rows_bound(const gh_page_ref *refs, uint32_t n_pages)
{
	uint64_t	rows = 0;

	for (uint32_t p = 0; p < n_pages; p++)
		rows += refs[p].nvis == GH_PAGE_ALL_VISIBLE ? refs[p].maxoff : refs[p].nvis;
	return rows;
}

/*
 * Walks n_pages pages (arguments as gh_page_agg_mapped's: mapped, page_data
 * is host memory a GPU reads through gh_page_register_host's mapping; not
 * mapped, it is copied; page_data NULL with page_data_bytes GH_PAGE_DATA_AT,
 * mapped: each refs[p].offset is page p's address for the walking device,
 * a page cache copy or mapped host memory) on device (a GPU ordinal or
 * GH_AGG_HOST).  The scan
 * program's quals select rows and its key[] makes their packed key; cols[j]
 * (j < ncols <= GH_AGG_MAX_INNER) is the scan column (an index into
 * scan->col, of a type other than GH_T_SKIP) that is dimension column j.
 * For each passing row with a non-NULL key: keys[r], vals[r * ncols + j]
 * (by reference: bits is the offset of the value's data in heap, 8-aligned,
 * len its bytes) for r < *n_rows; *heap_bytes of heap in use.  rows_cap
 * must be gh_dim_pages_rows_bound at least.  heap_cap of
 * gh_dim_pages_heap_bound_rows of those rows never runs out; a smaller
 * one may: GH_ERR_OUTPUT_FULL when the rows' values need more heap, and
 * the outputs then hold nothing to use.  ncols 0: no values, keys only.
 */
gh_status	gh_page_dim_rows(int device, const gh_page_scan *scan,
							 const int16_t *cols, int ncols,
							 const gh_page_ref *refs, uint32_t n_pages,
							 const uint8_t *page_data, size_t page_data_bytes,
							 const uint16_t *visible, uint32_t n_visible, int mapped,
							 uint64_t *keys, gh_agg_inval *vals, uint64_t rows_cap,
							 uint8_t *heap, uint64_t heap_cap,
							 uint64_t *n_rows, uint64_t *heap_bytes,
							 uint8_t *refused, gh_page_stats *stats);

#ifdef __cplusplus
}
#endif

#endif							/* GPUHASH_DIM_PAGES_H */
