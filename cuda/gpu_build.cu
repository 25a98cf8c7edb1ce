/*
 * gpu_build.cu
 *		The GPU build pipeline shared by all schemes:
 *
 *		key span (min/max) -> (key - base, rowid) -> CUB radix sort on the
 *		span's bits only -> CUB run-length encode -> exclusive scan of the
 *		run lengths -> the scheme's GPU builder over the distinct keys
 *		(scheme_ops.cpp: gpu_fks/gph/linear.cu)
 *
 *		A scheme with a sort seed (GPH) sorts by its mixed key
 *		hk = fmix64(key ^ seed_key) over all 64 bits instead (no key span): a
 *		bijection, so runs of equal hk are runs of equal key, and its regions
 *		and cells come out as contiguous runs (schemes/gph.cuh).  Its distinct
 *		"keys" are then hk values; the builder recovers each key with the
 *		inverse of fmix64.
 *
 *		The sorted rowids stay on the device as the table's rowid array.
 */
#include "gpu_common.cuh"
#include "scheme_ops.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/block/block_reduce.cuh>

namespace
{

struct span4
{
	unsigned long long umin,
				umax;
	long long	smin,
				smax;
};

constexpr int SPAN_THREADS = 256;

__global__ void
key_span_kernel(const uint64_t *__restrict__ keys, uint64_t n, span4 *out)
{
	unsigned long long umin = ~0ULL,
				umax = 0;
	long long	smin = LLONG_MAX,
				smax = LLONG_MIN;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	x = keys[i];

		umin = min(umin, (unsigned long long) x);
		umax = max(umax, (unsigned long long) x);
		smin = min(smin, (long long) x);
		smax = max(smax, (long long) x);
	}

	using BRu = cub::BlockReduce<unsigned long long, SPAN_THREADS>;
	using BRs = cub::BlockReduce<long long, SPAN_THREADS>;
	__shared__ union
	{
		typename BRu::TempStorage u;
		typename BRs::TempStorage s;
	}			tmp;

	unsigned long long bu = BRu(tmp.u).Reduce(umin, cuda::minimum<>{});

	__syncthreads();
	unsigned long long bU = BRu(tmp.u).Reduce(umax, cuda::maximum<>{});

	__syncthreads();
	long long	bs = BRs(tmp.s).Reduce(smin, cuda::minimum<>{});

	__syncthreads();
	long long	bS = BRs(tmp.s).Reduce(smax, cuda::maximum<>{});

	if (threadIdx.x == 0)
	{
		atomicMin(&out->umin, bu);
		atomicMax(&out->umax, bU);
		atomicMin(&out->smin, bs);
		atomicMax(&out->smax, bS);
	}
}

/* (key - base, or the mixed key gh_mix_key(seed_key, key); rowid or
 * position): the sort's input, input left intact. */
template <typename R>
__global__ void
prepare_kernel(const uint64_t *__restrict__ keys, const R *__restrict__ rowids,
			   uint64_t n, uint64_t base, bool mix, uint64_t seed_key,
			   uint64_t *__restrict__ k_out, R *__restrict__ v_out)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	k = keys[i];

		k_out[i] = mix ? gh_mix_key(seed_key, k) : k - base;
		v_out[i] = rowids ? rowids[i] : (R) i;
	}
}

__global__ void
rebase_kernel(uint64_t *keys, uint32_t n, uint64_t base)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		keys[i] += base;
}

unsigned
grid_for(uint64_t n, unsigned threads)
{
	uint64_t	b = (n + threads - 1) / threads;

	return (unsigned) (b == 0 ? 1 : (b > 65536 ? 65536 : b));
}

template <typename R>
gh_status
build_typed(gh_table *t, const gh_build_options *opt, const uint64_t *d_keys,
			const R *d_rowids, size_t n)
{
	gh_gpu_state *g = t->gpu;
	cudaStream_t st = g->stream;
	double		t0 = gh_now_ms();

	const gh_scheme_ops *ops = gh_scheme_ops_of(opt->scheme);
	bool		mix = ops->sort_seed != nullptr;
	uint64_t	seed = opt->seed ? opt->seed : GH_DEFAULT_SEED;
	uint64_t	seed_key = mix ? ops->sort_seed(seed) : 0;
	gh_key_span span = {0, 64};

	/* key span: how many low bits the sort must look at (not when mixed) */
	if (!mix)
	{
		gh_dscratch span_buf(t);
		span4		h_span = {~0ULL, 0, LLONG_MAX, LLONG_MIN};

		GH_CHECK(span_buf.alloc(sizeof(span4)));
		GH_TRY(cudaMemcpyAsync(span_buf.p, &h_span, sizeof(span4), cudaMemcpyHostToDevice, st));
		if (n > 0)
		{
			key_span_kernel<<<grid_for(n, SPAN_THREADS * 8), SPAN_THREADS, 0, st>>>(d_keys, n, span_buf.as<span4>());
			GH_LAUNCHED();
		}
		GH_TRY(cudaMemcpyAsync(&h_span, span_buf.p, sizeof(span4), cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		span = n ? gh_key_span_from(h_span.umin, h_span.umax, h_span.smin, h_span.smax)
			: gh_key_span{0, 0};
	}

	/* sort (key - base, rowid) on the span's bits; CUB's sort is stable */
	gh_dscratch k0(t),
				k1(t),
				v1(t);
	void	   *v0 = nullptr;

	GH_CHECK(k0.alloc(n * 8));
	GH_CHECK(k1.alloc(n * 8));
	GH_CHECK(gh_dmalloc(t, &v0, n * sizeof(R) + 1));
	g->d_rowids = v0;
	GH_CHECK(v1.alloc(n * sizeof(R)));
	if (n > 0)
	{
		prepare_kernel<R><<<grid_for(n, 256), 256, 0, st>>>(d_keys, d_rowids, n, span.base, mix, seed_key,
															k0.as<uint64_t>(), (R *) v0);
		GH_LAUNCHED();
	}

	cub::DoubleBuffer<uint64_t> kb(k0.as<uint64_t>(), k1.as<uint64_t>());
	cub::DoubleBuffer<R> vb((R *) v0, v1.as<R>());
	size_t		tmp = 0;

	if (n > 0 && span.bits > 0)
	{
		GH_TRY(cub::DeviceRadixSort::SortPairs(nullptr, tmp, kb, vb, (int64_t) n, 0, span.bits, st));
		GH_CHECK(gh_cub_reserve(t, tmp));
		GH_TRY(cub::DeviceRadixSort::SortPairs(g->d_cub, tmp, kb, vb, (int64_t) n, 0, span.bits, st));
	}
	/* keep the sorted rowids as the table's array, drop the other buffer */
	if (vb.Current() != (R *) v0)
	{
		GH_TRY(cudaMemcpyAsync(v0, vb.Current(), n * sizeof(R), cudaMemcpyDeviceToDevice, st));
	}
	v1.release();
	const uint64_t *sorted = kb.Current();

	/* run-length encode: distinct keys, counts; scan: offsets */
	gh_dscratch uniq(t),
				cnts(t),
				offs(t),
				nrun(t);

	GH_CHECK(uniq.alloc(n * 8));
	GH_CHECK(cnts.alloc(n * 4));
	GH_CHECK(nrun.alloc(8));
	uint32_t	u = 0;

	if (n > 0)
	{
		tmp = 0;
		GH_TRY(cub::DeviceRunLengthEncode::Encode(nullptr, tmp, sorted, uniq.as<uint64_t>(),
												  cnts.as<uint32_t>(), nrun.as<uint32_t>(),
												  (int64_t) n, st));
		GH_CHECK(gh_cub_reserve(t, tmp));
		GH_TRY(cub::DeviceRunLengthEncode::Encode(g->d_cub, tmp, sorted, uniq.as<uint64_t>(),
												  cnts.as<uint32_t>(), nrun.as<uint32_t>(),
												  (int64_t) n, st));
		GH_TRY(cudaMemcpyAsync(&u, nrun.p, 4, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
	}
	k0.release();
	k1.release();
	GH_CHECK(offs.alloc((size_t) u * 4));
	if (u > 0)
	{
		tmp = 0;
		GH_TRY(cub::DeviceScan::ExclusiveSum(nullptr, tmp, cnts.as<uint32_t>(), offs.as<uint32_t>(),
											 (int64_t) u, st));
		GH_CHECK(gh_cub_reserve(t, tmp));
		GH_TRY(cub::DeviceScan::ExclusiveSum(g->d_cub, tmp, cnts.as<uint32_t>(), offs.as<uint32_t>(),
											 (int64_t) u, st));
		if (span.base != 0)
		{
			rebase_kernel<<<gh_blocks(u, 256), 256, 0, st>>>(uniq.as<uint64_t>(), u, span.base);
			GH_LAUNCHED();
		}
	}
	GH_TRY(cudaStreamSynchronize(st));
	t->n_distinct = u;

	double		t1 = gh_now_ms();
	double		lf = opt->load_factor > 0 ? opt->load_factor : 0.5;
	gh_distinct d = {uniq.as<uint64_t>(), offs.as<uint32_t>(), cnts.as<uint32_t>(), u};
	gh_status	s = ops->gpu_build(t, d, seed, lf);

	if (s == GH_OK)
	{
		cudaError_t e = cudaStreamSynchronize(st);

		if (e != cudaSuccess)
			s = gh_cuda_error(e, "build", __FILE__, __LINE__);
	}
	t->stats.build_sort_ms += t1 - t0;
	t->stats.build_hash_ms += gh_now_ms() - t1;
	return s;
}

}								/* namespace */

gh_status
gh_gpu_build_device(gh_table *t, const gh_build_options *opt,
					const uint64_t *d_keys, const void *d_rowids, size_t n)
{
	if (!gh_scheme_ops_of(opt->scheme))
		return gh_error(GH_ERR_INVALID, "unknown scheme %d", (int) opt->scheme);
	if (!t->gpu)
		GH_CHECK(gh_gpu_attach(t, opt));
	GH_TRY(cudaSetDevice(t->gpu->ordinal));
	if (t->rowid_width == 4)
		return build_typed<uint32_t>(t, opt, d_keys, (const uint32_t *) d_rowids, n);
	return build_typed<uint64_t>(t, opt, d_keys, (const uint64_t *) d_rowids, n);
}

gh_status
gh_gpu_build(gh_table *t, const gh_build_options *opt, const uint64_t *keys,
			 const void *rowids, size_t n)
{
	GH_CHECK(gh_gpu_attach(t, opt));

	gh_gpu_state *g = t->gpu;
	gh_dscratch dk(t),
				dr(t);
	double		t0 = gh_now_ms();

	GH_CHECK(dk.alloc(n * 8));
	if (n > 0)
		GH_TRY(cudaMemcpyAsync(dk.p, keys, n * 8, cudaMemcpyHostToDevice, g->stream));
	if (rowids)
	{
		GH_CHECK(dr.alloc(n * t->rowid_width));
		if (n > 0)
			GH_TRY(cudaMemcpyAsync(dr.p, rowids, n * t->rowid_width, cudaMemcpyHostToDevice, g->stream));
	}
	GH_TRY(cudaStreamSynchronize(g->stream));
	t->stats.transfer_ms += gh_now_ms() - t0;
	return gh_gpu_build_device(t, opt, dk.as<uint64_t>(), rowids ? dr.p : nullptr, n);
}

/*
 * A staged build (gh_build_staged_*): the keys' device array, charged to
 * the table's budget as gh_gpu_build's copy of them is.
 */
gh_status
gh_gpu_stage_begin(gh_table *t, const gh_build_options *opt)
{
	GH_CHECK(gh_gpu_attach(t, opt));
	GH_TRY(cudaSetDevice(t->gpu->ordinal));
	return gh_dmalloc(t, (void **) &t->gpu->d_staged, t->n_rows * 8);
}

/* keys: pinned memory (the service's staging) makes this one DMA */
gh_status
gh_gpu_stage_put(gh_table *t, size_t pos, const uint64_t *keys, size_t n)
{
	gh_gpu_state *g = t->gpu;
	double		t0 = gh_now_ms();

	GH_TRY(cudaSetDevice(g->ordinal));
	GH_TRY(cudaMemcpyAsync(g->d_staged + pos, keys, n * 8, cudaMemcpyHostToDevice, g->stream));
	GH_TRY(cudaStreamSynchronize(g->stream));
	t->stats.transfer_ms += gh_now_ms() - t0;
	return GH_OK;
}

gh_status
gh_gpu_stage_get(gh_table *t, uint64_t *keys)
{
	gh_gpu_state *g = t->gpu;

	GH_TRY(cudaSetDevice(g->ordinal));
	if (t->n_rows > 0)
		GH_TRY(cudaMemcpyAsync(keys, g->d_staged, t->n_rows * 8, cudaMemcpyDeviceToHost, g->stream));
	GH_TRY(cudaStreamSynchronize(g->stream));
	return GH_OK;
}

/* Builds over the staged keys, then lets them go (kept on failure: gh_gpu_stage_get). */
gh_status
gh_gpu_stage_build(gh_table *t, const gh_build_options *opt)
{
	gh_gpu_state *g = t->gpu;

	GH_CHECK(gh_gpu_build_device(t, opt, g->d_staged, nullptr, t->n_rows));
	gh_dfree(t, g->d_staged, t->n_rows * 8);
	g->d_staged = nullptr;
	return GH_OK;
}

gh_status
gh_build_from_device(const gh_build_options *opt, const uint64_t *d_keys,
					 const void *d_rowids, int rowid_width, size_t n, gh_table **out)
{
	gh_table   *t = (gh_table *) calloc(1, sizeof(gh_table));
	double		t0 = gh_now_ms();

	*out = nullptr;
	if (!t)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory");
	t->device = GH_DEVICE_GPU;
	t->scheme = opt->scheme;
	t->n_rows = n;
	t->rowid_width = rowid_width;

	gh_status	s = gh_gpu_build_device(t, opt, d_keys, d_rowids, n);

	if (s != GH_OK)
	{
		gh_free(t);
		return s;
	}
	t->stats.build_ms += gh_now_ms() - t0;
	*out = t;
	return GH_OK;
}
