/*
 * page_internal.h
 *		What the page walker's two sides share (host_page.cpp, gpu_page.cu,
 *		gpu_absent.cpp): the GPU entry and the checks of a request's
 *		arguments.  C++ only.
 */
#ifndef GPUHASH_PAGE_INTERNAL_H
#define GPUHASH_PAGE_INTERNAL_H

#include "gpuhash_page.h"
#include "table_internal.h"

/* gh_page_probe on a GPU table (gpu_page.cu; GH_ERR_NO_GPU without CUDA). */
gh_status	gh_gpu_page_probe(gh_table *t, const gh_page_scan *scan,
							  const gh_page_ref *refs, uint32_t n_pages,
							  const uint8_t *page_data, size_t page_data_bytes,
							  const uint16_t *visible, uint32_t n_visible,
							  gh_page_match *out, size_t capacity, size_t *n_out,
							  uint8_t *refused, gh_page_stats *stats);

/* The same, the pages read through the mapping of registered host memory. */
gh_status	gh_gpu_page_probe_mapped(gh_table *t, const gh_page_scan *scan,
									 const gh_page_ref *refs, uint32_t n_pages,
									 const uint8_t *page_data, size_t page_data_bytes,
									 const uint16_t *visible, uint32_t n_visible,
									 gh_page_match *out, size_t capacity, size_t *n_out,
									 uint8_t *refused, gh_page_stats *stats);

/* Where page ref lies: in page_data, or at its address (GH_PAGE_DATA_AT). */
#if defined(__CUDACC__)
__host__ __device__ __forceinline__
#else
static inline
#endif
const uint8_t *
gh_page_src(const uint8_t *page_data, const gh_page_ref &ref)
{
	return page_data ? page_data + ref.offset : (const uint8_t *) (uintptr_t) ref.offset;
}

/* gh_page_probe_at on a GPU table: lane, or the table's stream (gpu_page.cu). */
gh_status	gh_gpu_page_probe_at(gh_table *t, gh_page_lane *lane, const gh_page_fill *fills,
								 uint32_t n_fills, const gh_page_scan *scan,
								 const gh_page_ref *refs, uint32_t n_pages,
								 const uint16_t *visible, uint32_t n_visible,
								 gh_page_match *out, size_t capacity, size_t *n_out,
								 uint8_t *refused, gh_page_stats *stats);

/* The page store on GPU ordinal (gpu_page.cu; GH_ERR_NO_GPU without CUDA). */
gh_status	gh_gpu_page_store_alloc(int ordinal, size_t n_pages, uint8_t **store);
void		gh_gpu_page_store_free(int ordinal, uint8_t *store);
gh_status	gh_gpu_page_mapped_address(int ordinal, const void *ptr, uint64_t *addr);
gh_status	gh_gpu_page_fill_pages(int ordinal, const gh_page_fill *fills, uint32_t n_fills);

/*
 * The checks both sides make before a walk: the scan program
 * (gh_page_scan_check), every page inside page_data, every visible list
 * inside visible, the output pointers.
 */
gh_status	gh_page_check_request(const gh_page_scan *scan, const gh_page_ref *refs,
								  uint32_t n_pages, const uint8_t *page_data,
								  size_t page_data_bytes, const uint16_t *visible,
								  uint32_t n_visible, const gh_page_match *out,
								  size_t capacity, const size_t *n_out,
								  const uint8_t *refused);

/*
 * Checks the qual program insn[0 .. ninsns) over columns of types[0 ..
 * ntypes) (GH_T_SKIP: not readable), its constants in s's pool: well-typed,
 * its stack within the walker's, leaving one boolean.  gh_page_scan_check
 * runs it on the scan's quals, gh_agg_prog_check on the join qual and the
 * conditions.
 */
gh_status	gh_qual_check(const gh_page_scan *s, const gh_qinsn *insn, int ninsns,
						  const uint8_t *types, int ntypes);

/* Propagates a gh_status (the GPU side has GH_CHECK for the same). */
#define GH_PAGE_CHECK(expr) \
	do { \
		gh_status ps_ = (expr); \
		if (ps_ != GH_OK) \
			return ps_; \
	} while (0)

/* The most match records one page can give. */
#define GH_PAGE_SLOTS GH_PAGE_MAX_TUPLES

#endif							/* GPUHASH_PAGE_INTERNAL_H */
