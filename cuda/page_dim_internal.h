/*
 * page_dim_internal.h
 *		The GPU side of a dimension's rows from heap pages
 *		(gpuhash_dim_pages.h): host_page_dim.cpp checks a request and calls
 *		it for a GPU ordinal; gpu_page_dim.cu has it, gpu_absent.cpp stands
 *		in without CUDA.  C++ only.
 */
#ifndef GPUHASH_PAGE_DIM_INTERNAL_H
#define GPUHASH_PAGE_DIM_INTERNAL_H

#include "gpuhash_dim_pages.h"

/* gh_page_dim_rows on GPU device, its arguments checked (outputs sized). */
gh_status	gh_gpu_page_dim_rows(int device, const gh_page_scan *scan, const int16_t *cols,
								 int ncols, const gh_page_ref *refs, uint32_t n_pages,
								 const uint8_t *page_data, size_t page_data_bytes,
								 const uint16_t *visible, uint32_t n_visible, bool mapped,
								 uint64_t *keys, gh_agg_inval *vals, uint64_t rows_cap,
								 uint8_t *heap, uint64_t heap_cap, uint64_t *n_rows,
								 uint64_t *heap_bytes, uint8_t *refused, gh_page_stats *stats);

#endif							/* GPUHASH_PAGE_DIM_INTERNAL_H */
