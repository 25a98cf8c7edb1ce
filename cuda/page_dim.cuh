/*
 * page_dim.cuh
 *		A dimension row of one walked slot (gpuhash_dim_pages.h), written once
 *		for the GPU kernels (gpu_page_dim.cu) and the host twin
 *		(host_page_dim.cpp): the heap bytes its values take, and the row
 *		written out.  The slot itself is walked by page_walk.cuh.
 */
#ifndef GPUHASH_PAGE_DIM_CUH
#define GPUHASH_PAGE_DIM_CUH

#include "gpuhash_dim_pages.h"
#include "page_walk.cuh"

/* Is a dimension value of walker type t stored by reference (in the heap)? */
GH_HD bool
gh_dim_byref(uint8_t t)
{
	return t == GH_T_NUMERIC || t == GH_T_TEXT || t == GH_T_BPCHAR;
}

/* The heap bytes of a row's values: each by-reference one padded to 8. */
GH_HD uint32_t
gh_dim_row_bytes(const gh_page_scan *scan, const int16_t *cols, int ncols, const gh_pval *v)
{
	uint32_t	b = 0;

	for (int j = 0; j < ncols; j++)
	{
		const gh_pval &x = v[cols[j]];

		if (!x.null && gh_dim_byref(scan->col[cols[j]].type))
			b += ((uint32_t) x.len + 7) & ~7u;
	}
	return b;
}

/*
 * The row's values into vals[0 .. ncols), by-reference data copied from the
 * page to heap + off (its offsets in the dimension's heap: off onward),
 * padding zeroed so that both sides write the same bytes.
 */
GH_HD void
gh_dim_row_write(const gh_page_scan *scan, const int16_t *cols, int ncols, const uint8_t *page,
				 const gh_pval *v, gh_agg_inval *vals, uint8_t *heap, uint64_t off)
{
	for (int j = 0; j < ncols; j++)
	{
		const gh_pval &x = v[cols[j]];
		gh_agg_inval *o = &vals[j];

		o->bits = 0;
		o->len = 0;
		o->null = x.null ? 1 : 0;
		o->pad[0] = o->pad[1] = o->pad[2] = 0;
		if (x.null)
			continue;
		if (!gh_dim_byref(scan->col[cols[j]].type))
		{
			o->bits = x.bits;
			continue;
		}

		uint32_t	padded = ((uint32_t) x.len + 7) & ~7u;

		o->bits = off;
		o->len = x.len;
		for (uint32_t i = 0; i < x.len; i++)
			heap[off + i] = page[x.ref + i];
		for (uint32_t i = x.len; i < padded; i++)
			heap[off + i] = 0;
		off += padded;
	}
}

#endif							/* GPUHASH_PAGE_DIM_CUH */
