/*
 * gpu_probe.cuh
 *		What the schemes' lookup kernels share (gpu_fks.cu, gpu_gph.cu,
 *		gpu_linear.cu): the per-probe store, the thread-per-probe kernel, the
 *		launch geometry and the choice of probes in flight (gh_probe_ilp).
 */
#ifndef GPUHASH_GPU_PROBE_CUH
#define GPUHASH_GPU_PROBE_CUH

#include "gpu_common.cuh"
#include "scheme_ops.h"

#include <type_traits>

constexpr int PROBE_THREADS = 256;

/* Blocks for threads_wanted threads, capped at enough waves to hide the tail. */
unsigned	gh_probe_grid(uint64_t threads_wanted);

namespace
{

__device__ __forceinline__ void
store_hit(gh_range *ranges, uint32_t *counts, uint64_t i, uint32_t off, uint32_t cnt)
{
	static_assert(sizeof(gh_range) == 8, "gh_range is stored as one 8-byte word");
	if (ranges)
		__stcs(reinterpret_cast<unsigned long long *>(ranges + i),
			   (unsigned long long) off | ((unsigned long long) cnt << 32));
	if (counts)
		__stcs(counts + i, cnt);
}

/*
 * FKS and linear: a thread per probe, P probes in flight per thread.  Look
 * is a functor: gh_hit operator()(const View &, uint64_t key).
 */
template <typename View, typename Look, int P>
__global__ void __launch_bounds__(PROBE_THREADS)
scalar_lookup_kernel(View v, const uint64_t *__restrict__ keys, uint64_t n,
					 gh_range *__restrict__ ranges, uint32_t *__restrict__ counts)
{
	const uint64_t stride = gridDim.x * (uint64_t) blockDim.x;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n; i += stride * P)
	{
		gh_hit		h[P];

#pragma unroll
		for (int p = 0; p < P; p++)
			if (i + p * stride < n)
				h[p] = Look()(v, __ldcs(keys + i + p * stride));
#pragma unroll
		for (int p = 0; p < P; p++)
			if (i + p * stride < n)
				store_hit(ranges, counts, i + p * stride, h[p].off, h[p].cnt);
	}
}

}								/* namespace */

/*
 * Calls launch(std::integral_constant<int, P>()) with P = gh_probe_ilp
 * (1, 2 or 4): the kernels take P as a template argument, so that their P
 * loads are unrolled; then checks the launch.
 */
template <typename Launch>
gh_status
gh_launch_ilp(Launch launch)
{
	if (gh_probe_ilp >= 4)
		launch(std::integral_constant<int, 4>());
	else if (gh_probe_ilp == 2)
		launch(std::integral_constant<int, 2>());
	else
		launch(std::integral_constant<int, 1>());
	GH_LAUNCHED();
	return GH_OK;
}

/* The thread-per-probe lookup of view v on stream st, for a scheme's gpu_lookup. */
template <typename View, typename Look>
gh_status
gh_launch_scalar_lookup(cudaStream_t st, const View &v, const uint64_t *d_keys, size_t n,
						gh_range *d_ranges, uint32_t *d_counts)
{
	return gh_launch_ilp([&](auto p) {
		constexpr int P = decltype(p)::value;

		scalar_lookup_kernel<View, Look, P><<<gh_probe_grid(n / P), PROBE_THREADS, 0, st>>>(
			v, d_keys, n, d_ranges, d_counts);
	});
}

#endif							/* GPUHASH_GPU_PROBE_CUH */
