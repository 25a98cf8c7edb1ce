/*
 * gpu_probe.cu
 *		Probes and pair emission.  The lookup kernels are the schemes' own
 *		(gpu_gph.cu; FKS and linear use gpu_probe.cuh's thread-per-probe
 *		kernel), launched through the scheme table (scheme_ops.cpp).
 *
 *		Memory hints: probe keys, bucket/slot reads and the per-probe outputs
 *		are touched once, so they are loaded and stored evict-first
 *		(__ldcs/__stcs); what stays in L2 is the small hot array (GPH cells,
 *		FKS level 1), optionally pinned by a persisting window
 *		(gh_l2_persist, gpu_table.cu).
 *
 *		Emission is count -> exclusive scan -> write: no atomic anywhere, so
 *		a hot key costs no contention.  A warp takes 32 consecutive probes
 *		and writes their contiguous output range with lane-strided, coalesced
 *		stores; each output finds its probe by a 5-step search over the
 *		warp's 32 range ends.
 */
#include "gpu_probe.cuh"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

namespace
{

struct range_count
{
	__host__ __device__ uint64_t operator() (const gh_range &r) const
	{
		return r.count;
	}
};

/*
 * Writes the output range of one warp's 32 probes, [start, start + total):
 * lane-strided output positions o (relative to start), so stores coalesce;
 * the owner of o is the first lane whose range end e (relative, in lane
 * order, nondecreasing) exceeds o, found by a 5-step binary search over the
 * ends held in the lanes (shuffles); its rowid is rows[o + d] with d =
 * offset - relative start of the owner's range.  T is 32-bit when the
 * warp's total fits (the common case: one shuffle per step), else 64-bit.
 * EMIT_ILP outputs per lane are loaded before any is stored.
 */
constexpr int EMIT_ILP = 4;

template <typename R, typename T>
__device__ __forceinline__ void
emit_range(T total, T e, T d, uint64_t start, uint32_t first_probe, const R *__restrict__ rows,
		   uint32_t *__restrict__ out_idx, R *__restrict__ out_rows)
{
	const unsigned lane = threadIdx.x & 31;

	for (T ob = 0; ob < total; ob += 32 * EMIT_ILP)
	{
		T			o[EMIT_ILP];
		uint32_t	own[EMIT_ILP];
		R			val[EMIT_ILP];

#pragma unroll
		for (int q = 0; q < EMIT_ILP; q++)
		{
			uint32_t	lo = 0;

			o[q] = ob + (T) (q * 32 + lane);
#pragma unroll
			for (uint32_t step = 16; step >= 1; step >>= 1)
			{
				T			ev = __shfl_sync(0xffffffffU, e, lo + step - 1);

				if (ev <= o[q])
					lo += step;
			}
			own[q] = lo;

			T			dd = __shfl_sync(0xffffffffU, d, lo);

			val[q] = o[q] < total ? __ldg(rows + (uint64_t) (T) (o[q] + dd)) : (R) 0;
		}
#pragma unroll
		for (int q = 0; q < EMIT_ILP; q++)
		{
			if (o[q] < total)
			{
				uint64_t	dst = start + (uint64_t) o[q];

				if (out_idx)
					__stcs(out_idx + dst, first_probe + own[q]);
				if (out_rows)
					__stcs(out_rows + dst, val[q]);
			}
		}
	}
}

template <typename R>
__global__ void __launch_bounds__(256)
emit_kernel(const gh_range *__restrict__ rg, const uint64_t *__restrict__ pos, uint64_t n,
			const R *__restrict__ rows, uint32_t *__restrict__ out_idx, R *__restrict__ out_rows)
{
	const unsigned lane = threadIdx.x & 31;
	const uint64_t warps = (gridDim.x * (uint64_t) blockDim.x) >> 5;

	for (uint64_t base = (blockIdx.x * (uint64_t) blockDim.x + threadIdx.x) >> 5 << 5; base < n;
		 base += warps * 32)
	{
		uint64_t	i = base + lane;
		uint64_t	p = 0;
		uint32_t	off = 0,
					cnt = 0;

		if (i < n)
		{
			gh_range	r = rg[i];

			p = pos[i];
			off = r.offset;
			cnt = r.count;
		}

		/* the warp's range: from its first probe's start to its last's end */
		uint32_t	last = n - base < 32 ? (uint32_t) (n - base - 1) : 31;
		uint64_t	start = __shfl_sync(0xffffffffU, p, 0);
		uint64_t	end = __shfl_sync(0xffffffffU, p + cnt, last);

		if (i >= n)
			p = end;			/* lanes past n: empty ranges at the end */
		if (end == start)
			continue;

		uint64_t	total = end - start;
		uint64_t	rel = p - start;

		/* 32-bit positions leave room for the last pass's overshoot */
		if (total <= 0xffffffffULL - 32 * EMIT_ILP)
			emit_range<R, uint32_t>((uint32_t) total, (uint32_t) (rel + cnt), off - (uint32_t) rel,
									start, (uint32_t) base, rows, out_idx, out_rows);
		else
			emit_range<R, uint64_t>(total, rel + cnt, (uint64_t) off - rel,
									start, (uint32_t) base, rows, out_idx, out_rows);
	}
}

}								/* namespace */

unsigned
gh_probe_grid(uint64_t threads_wanted)
{
	int			dev = 0,
				sms = 0;

	/* a failed query only sizes the grid (the kernels stride): the launch
	 * itself is checked */
	if (cudaGetDevice(&dev) != cudaSuccess ||
		cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)
	{
		cudaGetLastError();
		sms = 1;
	}
	uint64_t	b = (threads_wanted + PROBE_THREADS - 1) / PROBE_THREADS;
	uint64_t	cap = (uint64_t) sms * 64;	/* enough waves to hide the tail */

	return (unsigned) (b == 0 ? 1 : b < cap ? b : cap);
}

namespace
{

/*
 * Probe scratch for n keys: keys, ranges, counts and scan positions.  All
 * four hold probe_cap entries or none does: a failed allocation (over the
 * table's budget) frees the others, so the budget's count stays exact and a
 * smaller probe can try again.
 */
gh_status
reserve_probe(gh_table *t, size_t n)
{
	gh_gpu_state *g = t->gpu;

	if (g->probe_cap >= n && g->d_keys)
		return GH_OK;
	size_t		cap = n < 1024 ? 1024 : n;
	size_t		old = g->d_keys ? g->probe_cap : 0;
	void	  **bufs[] = {(void **) &g->d_keys, (void **) &g->d_ranges,
	(void **) &g->d_counts, (void **) &g->d_pos};
	const size_t width[] = {8, sizeof(gh_range), 4, 8};

	for (int i = 0; i < 4; i++)
	{
		gh_dfree(t, *bufs[i], old * width[i]);
		*bufs[i] = nullptr;
	}
	g->probe_cap = 0;
	for (int i = 0; i < 4; i++)
	{
		gh_status	st = gh_dmalloc(t, bufs[i], cap * width[i]);

		if (st != GH_OK)
		{
			for (int j = 0; j < i; j++)
			{
				gh_dfree(t, *bufs[j], cap * width[j]);
				*bufs[j] = nullptr;
			}
			return st;
		}
	}
	g->probe_cap = cap;
	return GH_OK;
}

/* Ranges of n device keys into d_ranges, then the exclusive scan of their
 * counts into g->d_pos; *total = number of pairs. */
gh_status
emit_prepare(gh_table *t, const uint64_t *d_keys, size_t n, uint64_t *total)
{
	gh_gpu_state *g = t->gpu;
	cudaStream_t st = g->stream;

	GH_CHECK(reserve_probe(t, n));
	GH_CHECK(gh_gpu_lookup_device(t, d_keys, n, g->d_ranges, nullptr));
	*total = 0;
	if (n == 0)
		return GH_OK;

	auto		counts = thrust::make_transform_iterator(g->d_ranges, range_count());
	size_t		tmp = 0;

	GH_TRY(cub::DeviceScan::ExclusiveSum(nullptr, tmp, counts, g->d_pos, (int64_t) n, st));
	GH_CHECK(gh_cub_reserve(t, tmp));
	GH_TRY(cub::DeviceScan::ExclusiveSum(g->d_cub, tmp, counts, g->d_pos, (int64_t) n, st));

	uint64_t	last_pos;
	gh_range	last;

	GH_TRY(cudaMemcpyAsync(&last_pos, g->d_pos + n - 1, 8, cudaMemcpyDeviceToHost, st));
	GH_TRY(cudaMemcpyAsync(&last, g->d_ranges + n - 1, sizeof(gh_range), cudaMemcpyDeviceToHost, st));
	GH_TRY(cudaStreamSynchronize(st));
	*total = last_pos + last.count;
	return GH_OK;
}

gh_status
emit_write(gh_table *t, size_t n, uint32_t *d_idx, void *d_rows)
{
	gh_gpu_state *g = t->gpu;

	if (n == 0)
		return GH_OK;
	if (t->rowid_width == 4)
		emit_kernel<uint32_t><<<gh_probe_grid(n), 256, 0, g->stream>>>(
			g->d_ranges, g->d_pos, n, (const uint32_t *) g->d_rowids, d_idx, (uint32_t *) d_rows);
	else
		emit_kernel<uint64_t><<<gh_probe_grid(n), 256, 0, g->stream>>>(
			g->d_ranges, g->d_pos, n, (const uint64_t *) g->d_rowids, d_idx, (uint64_t *) d_rows);
	GH_LAUNCHED();
	return GH_OK;
}

}								/* namespace */

int			gh_probe_ilp = 2;

gh_status
gh_gpu_lookup_device(gh_table *t, const uint64_t *d_keys, size_t n,
					 gh_range *d_ranges, uint32_t *d_counts)
{
	return gh_gpu_lookup_on(t, t->gpu->stream, d_keys, n, d_ranges, d_counts);
}

gh_status
gh_gpu_lookup_on(gh_table *t, cudaStream_t st, const uint64_t *d_keys, size_t n,
				 gh_range *d_ranges, uint32_t *d_counts)
{
	if (n == 0)
		return GH_OK;
	return gh_scheme_ops_of(t->scheme)->gpu_lookup(t, st, d_keys, n, d_ranges, d_counts);
}

gh_status
gh_gpu_emit_device(gh_table *t, const uint64_t *d_keys, size_t n,
				   uint32_t *d_probe_index, void *d_rowids, uint64_t capacity,
				   uint64_t *total)
{
	GH_CHECK(emit_prepare(t, d_keys, n, total));
	if (*total > capacity)
		return gh_error(GH_ERR_OUTPUT_FULL, "%llu pairs exceed the capacity of %llu",
						(unsigned long long) *total, (unsigned long long) capacity);
	return emit_write(t, n, d_probe_index, d_rowids);
}

gh_status
gh_gpu_probe_ranges(gh_table *t, const uint64_t *keys, size_t n,
					gh_range *ranges, uint32_t *counts, uint64_t *total)
{
	gh_gpu_state *g = t->gpu;
	cudaStream_t st = g->stream;
	double		t0,
				t1,
				t2;

	GH_TRY(cudaSetDevice(g->ordinal));
	GH_CHECK(reserve_probe(t, n));
	t0 = gh_now_ms();
	if (n > 0)
		GH_TRY(cudaMemcpyAsync(g->d_keys, keys, n * 8, cudaMemcpyHostToDevice, st));
	GH_TRY(cudaStreamSynchronize(st));
	t1 = gh_now_ms();
	GH_CHECK(gh_gpu_lookup_device(t, g->d_keys, n, ranges ? g->d_ranges : nullptr,
								  ranges ? nullptr : g->d_counts));
	GH_TRY(cudaStreamSynchronize(st));
	t2 = gh_now_ms();

	uint64_t	sum = 0;

	if (ranges)
	{
		if (n > 0)
			GH_TRY(cudaMemcpyAsync(ranges, g->d_ranges, n * sizeof(gh_range), cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		for (size_t i = 0; i < n; i++)
			sum += ranges[i].count;
		if (counts)
			for (size_t i = 0; i < n; i++)
				counts[i] = ranges[i].count;
	}
	else if (counts)
	{
		if (n > 0)
			GH_TRY(cudaMemcpyAsync(counts, g->d_counts, n * 4, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		for (size_t i = 0; i < n; i++)
			sum += counts[i];
	}
	else
	{
		/* only the total wanted: still needs the counts */
		uint32_t   *tmp = (uint32_t *) malloc(n ? n * 4 : 1);

		if (!tmp)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory");
		GH_CHECK(gh_gpu_lookup_device(t, g->d_keys, n, nullptr, g->d_counts));
		cudaError_t e = n ? cudaMemcpyAsync(tmp, g->d_counts, n * 4, cudaMemcpyDeviceToHost, st) : cudaSuccess;

		if (e == cudaSuccess)
			e = cudaStreamSynchronize(st);
		for (size_t i = 0; e == cudaSuccess && i < n; i++)
			sum += tmp[i];
		free(tmp);
		if (e != cudaSuccess)
			return gh_cuda_error(e, "probe count download", __FILE__, __LINE__);
	}
	if (total)
		*total = sum;
	t->stats.transfer_ms += (t1 - t0) + (gh_now_ms() - t2);
	t->stats.probe_ms += t2 - t1;
	return GH_OK;
}

gh_status
gh_gpu_emit(gh_table *t, const uint64_t *keys, size_t n, uint32_t *probe_index,
			void *rowids, uint64_t capacity, uint64_t *total)
{
	gh_gpu_state *g = t->gpu;
	cudaStream_t st = g->stream;
	double		t0,
				t1,
				t2;

	GH_TRY(cudaSetDevice(g->ordinal));
	GH_CHECK(reserve_probe(t, n));
	t0 = gh_now_ms();
	if (n > 0)
		GH_TRY(cudaMemcpyAsync(g->d_keys, keys, n * 8, cudaMemcpyHostToDevice, st));
	GH_TRY(cudaStreamSynchronize(st));
	t1 = gh_now_ms();
	GH_CHECK(emit_prepare(t, g->d_keys, n, total));
	if (*total > capacity)
		return gh_error(GH_ERR_OUTPUT_FULL, "%llu pairs exceed the capacity of %llu",
						(unsigned long long) *total, (unsigned long long) capacity);
	if (*total > g->out_cap || !g->d_out_idx)
	{
		size_t		have = g->out_cap * 4;
		uint64_t	want = *total < 1024 ? 1024 : *total;

		GH_CHECK(gh_dgrow(t, (void **) &g->d_out_idx, &have, want * 4));
		have = g->out_cap * t->rowid_width;
		GH_CHECK(gh_dgrow(t, &g->d_out_rows, &have, want * t->rowid_width));
		g->out_cap = want;
	}
	GH_CHECK(emit_write(t, n, g->d_out_idx, g->d_out_rows));
	GH_TRY(cudaStreamSynchronize(st));
	t2 = gh_now_ms();
	if (*total > 0)
	{
		if (probe_index)
			GH_TRY(cudaMemcpyAsync(probe_index, g->d_out_idx, *total * 4, cudaMemcpyDeviceToHost, st));
		if (rowids)
			GH_TRY(cudaMemcpyAsync(rowids, g->d_out_rows, *total * t->rowid_width,
								   cudaMemcpyDeviceToHost, st));
	}
	GH_TRY(cudaStreamSynchronize(st));
	t->stats.transfer_ms += (t1 - t0) + (gh_now_ms() - t2);
	t->stats.probe_ms += t2 - t1;
	return GH_OK;
}
