/*
 * agg_internal.h
 *		What partial aggregation's two sides share (host_agg.cpp,
 *		gpu_agg.cu, gpu_absent.cpp).  C++ only.
 */
#ifndef GPUHASH_AGG_INTERNAL_H
#define GPUHASH_AGG_INTERNAL_H

#include "gpuhash_agg.h"
#include "table_internal.h"

#include <vector>

/* A request's group table as the host holds it after the walk (the host
 * twin's own, or the GPU's copied back). */
struct gh_agg_host_table
{
	std::vector<uint32_t> ctrl;
	std::vector<uint64_t> keys;
	std::vector<uint8_t> nulls;
	std::vector<uint32_t> group;
	std::vector<gh_agg_state> states;	/* n_groups * naggs */
	uint64_t	slots = 0;
	uint64_t	n_groups = 0;
};

/* The most groups a request can have: max_groups, or its visible line
 * pointers if fewer (they bound its rows). */
uint64_t	gh_agg_group_bound(const gh_page_ref *refs, uint32_t n_pages, uint64_t max_groups);

/* Slots for a request of at most g groups: a power of two, at least
 * twice g, so that probes stay short. */
uint64_t	gh_agg_slots(uint64_t g);

/* The request's groups (finished, sorted) folded into out; OUTPUT_FULL
 * past out->max_groups with out unchanged. */
gh_status	gh_agg_absorb(const gh_agg_host_table &t, const gh_page_scan *scan,
						  const gh_agg_prog *agg, gh_agg_groups *out);

/* gh_page_agg on GPU device (gpu_agg.cu; GH_ERR_NO_GPU without CUDA);
 * mapped: page_data read through its host mapping (gh_page_agg_mapped). */
gh_status	gh_gpu_page_agg(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
							const gh_page_ref *refs, uint32_t n_pages,
							const uint8_t *page_data, size_t page_data_bytes,
							const uint16_t *visible, uint32_t n_visible, uint8_t *refused,
							gh_agg_groups *out, gh_agg_stats *stats, bool mapped);

#endif							/* GPUHASH_AGG_INTERNAL_H */
