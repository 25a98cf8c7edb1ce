/*
 * gpu_hashgraph.cu
 *		HashGraph's static CSR build on the GPU (schemes/hashgraph.cuh
 *		describes the layout), after the thesis's generalized build
 *		(Algorithm 4: histogram, exclusive scan, sort by bucket):
 *
 *		- the sort by bucket is done already: the build pipeline
 *		  (gpu_build.cu) sorted the rows by the mixed key hk, and the bucket
 *		  is a monotone function of hk, so the distinct keys arrive grouped
 *		  by bucket, in bucket order, and are the slot array as they stand;
 *		- fill: one pass over the keys writes each slot (the key recovered
 *		  from hk by the inverse of fmix64, its range) and counts the
 *		  bucket sizes into the offsets array: one atomic per bucket per
 *		  warp (__match_any_sync groups a warp's lanes of one bucket), so a
 *		  crowded bucket costs u/32 atomics, not u;
 *		- CUB: the longest bucket (DeviceReduce::Max, reported as rounds),
 *		  then the exclusive scan of the sizes in place: offs[b], and
 *		  offs[B] = u.  Integer sums do not depend on thread order, so the
 *		  arrays equal the host twin's (host_hashgraph.cpp) byte for byte;
 *		- one attempt (build_driver.h runs it), failed by a bucket longer
 *		  than GH_HG_MAX_BUCKET;
 *		- the probe: a thread per probe (gpu_probe.cuh), gh_hg_lookup.
 */
#include "build_driver.h"
#include "gpu_probe.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

namespace
{

constexpr unsigned FULL = 0xffffffffU;
constexpr unsigned FILL_THREADS = 256;	/* whole warps: see the loop below */

static_assert(FILL_THREADS % 32 == 0, "fill's loop moves whole warps");

__global__ void
fill(gh_hg_view v, const uint64_t *__restrict__ hk, const uint32_t *__restrict__ doff,
	 const uint32_t *__restrict__ dcnt, uint32_t u, uint32_t *__restrict__ size,
	 gh_slot *__restrict__ slots)
{
	const unsigned lane = threadIdx.x & 31;
	const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;
	ulonglong2 *out = reinterpret_cast<ulonglong2 *>(slots);

	/* a warp goes round whole (i - lane is its first key): __match_any_sync
	 * needs every lane */
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i - lane < u; i += stride)
	{
		bool		valid = i < u;
		uint64_t	h = valid ? hk[i] : 0;
		uint32_t	b = valid ? gh_hg_bucket_of(h, v.n_buckets) : FULL;	/* no bucket is FULL */
		unsigned	peers = __match_any_sync(FULL, b);

		if (!valid)
			continue;
		if ((peers >> lane) == 1)	/* the last of its bucket's lanes */
			atomicAdd(&size[b], (unsigned) __popc(peers));

		ulonglong2	w;

		w.x = gh_fmix64_inv(h) ^ v.seed_key;
		w.y = (uint64_t) doff[i] | ((uint64_t) dcnt[i] << 32);
		out[i] = w;
	}
}

/* hk: the distinct keys' mixed values, ascending, with their rowid ranges.
 * Leaves the table in g->d_rec (offsets) and g->d_slots. */
struct hg_step
{
	gh_table   *t;
	gh_distinct d;

	gh_status	prepare(const gh_hg_view &)
	{
		return GH_OK;
	}

	/* a GPU build is short: asked once, before it starts (gh_build) */
	bool		cancelled()
	{
		return false;
	}

	gh_status	attempt(gh_hg_view &v, gh_attempt_result *res)
	{
		gh_gpu_state *g = t->gpu;
		cudaStream_t st = g->stream;
		uint32_t	u = d.n;
		size_t		offs_bytes = gh_hg_offs_bytes(v);
		gh_dscratch longest(t);
		uint32_t	h_longest = 0;
		size_t		tmp = 0,
					tmp_scan = 0;

		GH_CHECK(gh_dmalloc(t, &g->d_rec, offs_bytes));
		GH_CHECK(gh_dmalloc(t, (void **) &g->d_slots, (size_t) u * sizeof(gh_slot)));
		GH_CHECK(longest.alloc(sizeof(uint32_t)));

		uint32_t   *offs = (uint32_t *) g->d_rec;

		GH_TRY(cudaMemsetAsync(offs, 0, offs_bytes, st));
		if (u > 0)
		{
			fill<<<gh_blocks(u, FILL_THREADS), FILL_THREADS, 0, st>>>(v, d.keys, d.off, d.cnt, u, offs,
																	  g->d_slots);
			GH_LAUNCHED();
		}

		/* sizes -> the longest bucket, then offsets (in place, B + 1 entries) */
		GH_TRY(cub::DeviceReduce::Max(nullptr, tmp, offs, longest.as<uint32_t>(), (int64_t) v.n_buckets, st));
		GH_TRY(cub::DeviceScan::ExclusiveSum(nullptr, tmp_scan, offs, offs, (int64_t) v.n_buckets + 1, st));
		GH_CHECK(gh_cub_reserve(t, tmp > tmp_scan ? tmp : tmp_scan));
		GH_TRY(cub::DeviceReduce::Max(g->d_cub, tmp, offs, longest.as<uint32_t>(), (int64_t) v.n_buckets, st));
		GH_TRY(cub::DeviceScan::ExclusiveSum(g->d_cub, tmp_scan, offs, offs, (int64_t) v.n_buckets + 1, st));
		GH_TRY(cudaMemcpyAsync(&h_longest, longest.p, sizeof(h_longest), cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));

		v.offs = offs;
		v.slots = g->d_slots;
		gh_gpu_set_l2_window(t, offs, offs_bytes);
		res->placed = h_longest <= GH_HG_MAX_BUCKET;
		res->rounds = (int) (h_longest < INT32_MAX ? h_longest : INT32_MAX);
		res->n_slots = u;
		return GH_OK;
	}
};

struct hg_look
{
	__device__ gh_hit operator() (const gh_hg_view &v, uint64_t key) const
	{
		return gh_hg_lookup(v, key);
	}
};

}								/* namespace */

gh_status
gh_gpu_build_hashgraph(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	hg_step		step = {t, d};

	return gh_build_attempts<gh_hg_scheme>(t, &t->hg, step, d.n, seed, lf);
}

gh_status
gh_gpu_lookup_hashgraph(gh_table *t, cudaStream_t st, const uint64_t *d_keys, size_t n, gh_range *d_ranges,
						uint32_t *d_counts)
{
	return gh_launch_scalar_lookup<gh_hg_view, hg_look>(st, t->hg, d_keys, n, d_ranges, d_counts);
}
