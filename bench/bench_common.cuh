/*
 * bench_common.cuh
 *		What bench_core, bench_multi_gpu and bench_cuco share, so that both measure the same
 *		data the same way: the keys (key_of(index) = fmix64(index ^ SEED), a
 *		bijection, so distinct indexes give distinct keys and a miss is an
 *		index beyond the inner side's), CUDA event timing, medians and the
 *		device's copy bandwidth.
 */
#ifndef GPUHASH_BENCH_COMMON_CUH
#define GPUHASH_BENCH_COMMON_CUH

#include "hash.cuh"

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#define CK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) { \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			exit(1); \
		} \
	} while (0)

#ifdef GPUHASH_TABLE_H
/* gpuhash's own calls (included after gpuhash_table.h; bench_cuco makes none) */
#define GK(call) \
	do { \
		gh_status s_ = (call); \
		if (s_ != GH_OK) { \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, gh_last_error()); \
			exit(1); \
		} \
	} while (0)
#endif

static const uint64_t SEED = 0x5eed5eed12345ULL;

__device__ __forceinline__ uint64_t
key_of(uint64_t idx)
{
	return gh_fmix64(idx ^ SEED);
}

/* Inner keys: n rows, row i has key index i % distinct. */
__global__ void
gen_inner(uint64_t *k, uint64_t n, uint64_t distinct)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n; i += (uint64_t) gridDim.x * blockDim.x)
		k[i] = key_of(i % distinct);
}

/*
 * Probes: with probability hit a key index below `distinct` (uniform, or
 * Zipf-like: index = distinct^u - 1, the inverse CDF of a 1/x density),
 * otherwise an index beyond it (a miss).
 */
__global__ void
gen_probes(uint64_t *p, uint64_t n, uint64_t distinct, double hit, int zipf, uint64_t salt)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n; i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	r1 = gh_fmix64(i * 2 + salt),
					r2 = gh_fmix64(i * 2 + 1 + salt);
		double		u = (r1 >> 11) * (1.0 / 9007199254740992.0);
		uint64_t	idx;

		if (u < hit)
		{
			if (zipf)
			{
				double		v = (r2 >> 11) * (1.0 / 9007199254740992.0);

				idx = (uint64_t) (exp(v * log((double) distinct + 1.0)) - 1.0);
				if (idx >= distinct)
					idx = distinct - 1;
				/* scatter ranks over the key space */
				idx = (idx * 0x9e3779b97f4a7c15ULL) % distinct;
			}
			else
				idx = r2 % distinct;
		}
		else
			idx = distinct + (r2 % (1ULL << 40));
		p[i] = key_of(idx);
	}
}

struct timer
{
	cudaEvent_t a,
				b;
	timer()
	{
		CK(cudaEventCreate(&a));
		CK(cudaEventCreate(&b));
	}
	~timer()
	{
		/* one per build: free them, the grid makes hundreds */
		CK(cudaEventDestroy(a));
		CK(cudaEventDestroy(b));
	}
	void		start(cudaStream_t s)
	{
		CK(cudaEventRecord(a, s));
	}
	float		stop(cudaStream_t s)
	{
		float		ms;

		CK(cudaEventRecord(b, s));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		return ms;
	}
};


static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}


static double
copy_bandwidth(void)
{
	size_t		bytes = (size_t) 2 << 30;
	void	   *a,
			   *b;
	timer		tm;
	std::vector<double> t;

	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMemset(a, 1, bytes));
	for (int i = 0; i < 6; i++)
	{
		tm.start(0);
		CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
		double		ms = tm.stop(0);

		if (i > 0)
			t.push_back(ms);
	}
	CK(cudaFree(a));
	CK(cudaFree(b));
	return 2.0 * bytes / (median(t) * 1e-3) / 1e9;	/* read + write */
}



/*
 * The join shape of the cuCollections anchor: 10^8 rows, 8 per key, 2x10^8
 * probes at 50% hits; its keys and probes in device memory (the caller
 * frees them).
 */
static const uint64_t JOIN_ROWS = 100000000ULL;
static const uint64_t JOIN_DISTINCT = JOIN_ROWS / 8;
static const uint64_t JOIN_PROBES = 2 * JOIN_ROWS;

static void
join_shape_data(uint64_t **d_keys, uint64_t **d_probes)
{
	CK(cudaMalloc(d_keys, JOIN_ROWS * 8));
	CK(cudaMalloc(d_probes, JOIN_PROBES * 8));
	gen_inner<<<4096, 256>>>(*d_keys, JOIN_ROWS, JOIN_DISTINCT);
	gen_probes<<<4096, 256>>>(*d_probes, JOIN_PROBES, JOIN_DISTINCT, 0.5, 0, 7);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
}

#endif							/* GPUHASH_BENCH_COMMON_CUH */
