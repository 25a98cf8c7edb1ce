/*
 * lane.cuh
 *		A lane of a GPU table: a stream, device scratch and events of its
 *		own, so that requests on one table from several service threads run
 *		at once.  gpu_page.cu makes, lends and frees lanes (under the
 *		caller's lock on the table, which counts their memory); a page walk
 *		(gpu_page.cu) or a chain probe (gpu_chain.cu) runs on one without
 *		that lock, the tables only read.
 */
#ifndef GPUHASH_LANE_CUH
#define GPUHASH_LANE_CUH

#include "gpu_common.cuh"

struct gh_page_lane
{
	gh_table   *t = nullptr;
	cudaStream_t stream = nullptr;
	void	   *d = nullptr;
	size_t		bytes = 0;
	void	   *cub = nullptr;
	size_t		cub_bytes = 0;
	cudaEvent_t ev[4] = {nullptr, nullptr, nullptr, nullptr};
	size_t		chain_want = 0;	/* a chain probe that did not fit: the
								 * scratch it asked for (given back with
								 * the lane) */
	gh_page_lane *next = nullptr;	/* in the free list */
};

/*
 * The most scratch a lane is grown to for chain probes: a table whose
 * chains want more gets no chain lane and probes them under its tables'
 * locks with scratch of its own, freed after each (gpu_chain.cu), so that
 * the lanes of a table, one a service thread, keep no more than they do
 * for page walks or this.
 */
#define GH_CHAIN_LANE_MAX_BYTES ((size_t) 256 << 20)

/*
 * A lane with at least need bytes of scratch and cub of CUB's (gpu_page.cu;
 * chain: at least what the table's chain probes on lanes asked for), under
 * the caller's lock on t; *out NULL for a table not on a GPU.
 */
gh_status	gh_gpu_lane_take(gh_table *t, size_t need, size_t cub, bool chain,
							 gh_page_lane **out);

#endif							/* GPUHASH_LANE_CUH */
