/*
 * gpu_gph.cu
 *		GPH bulk build on the GPU.  The paper builds by inserting keys one by
 *		one (lock-free fill, then locked "extended moves"); a join's inner side
 *		is static, so here every cell's byte (phi, delta) is chosen in bulk:
 *
 *		- keys are grouped into size classes of their cell (largest first,
 *		  as hash-and-displace does), one CUB radix pass on the class;
 *		- per class, rounds: every unplaced cell proposes its current byte,
 *		  demand per bucket is counted with atomics, a bucket whose committed
 *		  fill plus demand exceeds M rejects all its proposers, accepted cells
 *		  commit, rejected cells advance to the next of the 256 bytes;
 *		- a cell that exhausts all 256 bytes fails the attempt: new seeds and
 *		  10% more buckets, at most GH_MAX_ATTEMPTS times, then a clean error.
 *		No step depends on thread order, so the host twin (host_build.cpp)
 *		reaches the same cell bytes.  Finally keys are scattered into their
 *		buckets (slot order inside a bucket is free).
 */
#include "gpu_common.cuh"

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

namespace
{

__global__ void
cell_sizes(gh_gph_view v, const uint64_t *__restrict__ dk, uint32_t u,
		   uint64_t *__restrict__ hk, uint32_t *__restrict__ cell,
		   uint32_t *__restrict__ csize)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < u)
	{
		uint64_t	h = gh_gph_mix(v, dk[i]);
		uint32_t	c = gh_gph_cell(v, h);

		hk[i] = h;
		cell[i] = c;
		atomicAdd(&csize[c], 1U);
	}
}

/* Class of each key's cell, and a block-aggregated class histogram. */
__global__ void
key_classes(const uint32_t *__restrict__ cell, const uint32_t *__restrict__ csize,
			uint32_t u, uint8_t *__restrict__ cls, uint32_t *__restrict__ idx,
			uint32_t *__restrict__ hist)
{
	__shared__ uint32_t local[GH_GPH_SIZE_CLASSES];
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (threadIdx.x < GH_GPH_SIZE_CLASSES)
		local[threadIdx.x] = 0;
	__syncthreads();
	if (i < u)
	{
		int			c = gh_gph_size_class(csize[cell[i]]);

		cls[i] = (uint8_t) c;
		idx[i] = i;
		atomicAdd(&local[c], 1U);
	}
	__syncthreads();
	if (threadIdx.x < GH_GPH_SIZE_CLASSES && local[threadIdx.x])
		atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

__global__ void
round_demand(gh_gph_view v, const uint32_t *__restrict__ act, uint32_t n_act,
			 const uint64_t *__restrict__ hk, const uint32_t *__restrict__ cell,
			 const uint8_t *__restrict__ state, uint32_t *__restrict__ bkt,
			 uint32_t *__restrict__ demand)
{
	uint32_t	a = blockIdx.x * blockDim.x + threadIdx.x;

	if (a < n_act)
	{
		uint32_t	i = act[a];
		uint32_t	c = cell[i];
		uint32_t	b = gh_gph_bucket(v, hk[i], c, state[c]);

		bkt[i] = b;
		atomicAdd(&demand[b], 1U);
	}
}

__global__ void
round_reject(const uint32_t *__restrict__ act, uint32_t n_act, const uint32_t *__restrict__ bkt,
			 const uint32_t *__restrict__ cell, const uint32_t *__restrict__ fill,
			 const uint32_t *__restrict__ demand, uint32_t *__restrict__ reject)
{
	uint32_t	a = blockIdx.x * blockDim.x + threadIdx.x;

	if (a < n_act)
	{
		uint32_t	i = act[a];
		uint32_t	b = bkt[i];

		if (fill[b] + demand[b] > GH_GPH_M)
			reject[cell[i]] = 1;
	}
}

__global__ void
round_commit(const uint32_t *__restrict__ act, uint32_t n_act, const uint32_t *__restrict__ bkt,
			 const uint32_t *__restrict__ cell, uint32_t *__restrict__ fill,
			 uint32_t *__restrict__ demand, const uint32_t *__restrict__ reject,
			 uint32_t *__restrict__ next, uint32_t *__restrict__ n_next)
{
	uint32_t	a = blockIdx.x * blockDim.x + threadIdx.x;
	bool		keep = false;
	uint32_t	i = 0;

	if (a < n_act)
	{
		i = act[a];
		uint32_t	b = bkt[i];

		demand[b] = 0;
		keep = reject[cell[i]] != 0;
		if (!keep)
			atomicAdd(&fill[b], 1U);
	}
	gh_warp_append(keep, i, next, n_next);
}

/* One thread per rejected cell advances its byte; 255 rejected = failure. */
__global__ void
round_advance(const uint32_t *__restrict__ act, uint32_t n_act, const uint32_t *__restrict__ cell,
			  uint32_t *__restrict__ reject, uint8_t *__restrict__ state,
			  uint32_t *__restrict__ failed)
{
	uint32_t	a = blockIdx.x * blockDim.x + threadIdx.x;

	if (a < n_act)
	{
		uint32_t	c = cell[act[a]];

		if (atomicExch(&reject[c], 0U) != 0)
		{
			if (state[c] == GH_GPH_CANDIDATES - 1)
				*failed = 1;
			else
				state[c]++;
		}
	}
}

/*
 * The tail of a class: when few keys remain, one block runs all remaining
 * rounds in one launch (the four steps above, separated by block barriers)
 * instead of four launches and two host round trips per round.
 */
constexpr unsigned TAIL_THREADS = 1024;
constexpr uint32_t TAIL_KEYS = 16384;

__global__ void __launch_bounds__(TAIL_THREADS)
tail_rounds(gh_gph_view v, uint32_t *list0, uint32_t *list1, uint32_t n_act,
			const uint64_t *__restrict__ hk, const uint32_t *__restrict__ cell,
			uint8_t *state, uint32_t *bkt, uint32_t *fill, uint32_t *demand,
			uint32_t *reject, uint32_t *failed, uint32_t *rounds_out)
{
	__shared__ uint32_t n_next;
	__shared__ uint32_t fail;
	uint32_t   *cur = list0,
			   *next = list1;
	uint32_t	rounds = 0;

	if (threadIdx.x == 0)
		fail = 0;
	__syncthreads();
	while (n_act > 0 && !fail)
	{
		rounds++;
		for (uint32_t a = threadIdx.x; a < n_act; a += blockDim.x)
		{
			uint32_t	i = cur[a];
			uint32_t	c = cell[i];
			uint32_t	b = gh_gph_bucket(v, hk[i], c, state[c]);

			bkt[i] = b;
			atomicAdd(&demand[b], 1U);
		}
		if (threadIdx.x == 0)
			n_next = 0;
		__syncthreads();
		for (uint32_t a = threadIdx.x; a < n_act; a += blockDim.x)
		{
			uint32_t	i = cur[a];
			uint32_t	b = bkt[i];

			if (fill[b] + demand[b] > GH_GPH_M)
				reject[cell[i]] = 1;
		}
		__syncthreads();
		for (uint32_t a = threadIdx.x; a < n_act; a += blockDim.x)
		{
			uint32_t	i = cur[a];
			uint32_t	b = bkt[i];

			demand[b] = 0;
			if (reject[cell[i]])
				next[atomicAdd(&n_next, 1U)] = i;
			else
				atomicAdd(&fill[b], 1U);
		}
		__syncthreads();
		n_act = n_next;
		for (uint32_t a = threadIdx.x; a < n_act; a += blockDim.x)
		{
			uint32_t	c = cell[next[a]];

			if (atomicExch(&reject[c], 0U) != 0)
			{
				if (state[c] == GH_GPH_CANDIDATES - 1)
					fail = 1;
				else
					state[c]++;
			}
		}
		__syncthreads();
		uint32_t   *t = cur;

		cur = next;
		next = t;
	}
	if (threadIdx.x == 0)
	{
		*rounds_out = rounds;
		if (fail)
			*failed = 1;
	}
}

__global__ void
place(gh_gph_view v, const uint64_t *__restrict__ dk, const uint32_t *__restrict__ doff,
	  const uint32_t *__restrict__ dcnt, uint32_t u, uint32_t *__restrict__ pos,
	  gh_slot *__restrict__ slots)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < u)
	{
		gh_slot		s;

		s.key = dk[i];
		s.off = doff[i];
		s.cnt = dcnt[i];

		uint32_t	b = gh_gph_locate(v, s.key);
		uint32_t	p = atomicAdd(&pos[b], 1U);

		slots[(uint64_t) b * GH_GPH_M + p] = s;
	}
}

}								/* namespace */

gh_status
gh_gpu_build_gph(gh_table *t, const uint64_t *dk, const uint32_t *doff,
				 const uint32_t *dcnt, uint32_t u, uint64_t seed, double lf)
{
	gh_gpu_state *g = t->gpu;
	cudaStream_t st = g->stream;
	const unsigned T = 256;
	gh_dscratch hk(t),
				cell(t),
				bkt(t),
				cls(t),
				cls2(t),
				idx(t),
				listA(t),
				listB(t),
				small(t);

	GH_CHECK(hk.alloc((size_t) u * 8));
	GH_CHECK(cell.alloc((size_t) u * 4));
	GH_CHECK(bkt.alloc((size_t) u * 4));
	GH_CHECK(cls.alloc(u));
	GH_CHECK(cls2.alloc(u));
	GH_CHECK(idx.alloc((size_t) u * 4));
	GH_CHECK(listA.alloc((size_t) u * 4));
	GH_CHECK(listB.alloc((size_t) u * 4));
	/* [0..5] class histogram, [6] list counter, [7] failure flag */
	GH_CHECK(small.alloc(8 * 4));
	uint32_t   *d_hist = small.as<uint32_t>();
	uint32_t   *d_count = d_hist + 6;
	uint32_t   *d_failed = d_hist + 7;

	for (int attempt = 0; attempt < GH_MAX_ATTEMPTS; attempt++)
	{
		gh_gph_view v;
		uint64_t	sd = gh_attempt_seed(seed, attempt);

		memset(&v, 0, sizeof(v));
		v.n_cells = gh_gph_cells_for(u);
		v.n_buckets = gh_gph_buckets_for(u, lf, attempt);
		v.seed_key = gh_splitmix64(&sd);
		v.seed_bucket = gh_splitmix64(&sd);
		v.seed_vb = (uint32_t) gh_splitmix64(&sd);

		gh_dscratch state(t),
					reject(t),
					csize(t),
					fill(t),
					demand(t);

		GH_CHECK(state.alloc(v.n_cells));
		GH_CHECK(reject.alloc((size_t) v.n_cells * 4));
		GH_CHECK(csize.alloc((size_t) v.n_cells * 4));
		GH_CHECK(fill.alloc((size_t) v.n_buckets * 4));
		GH_CHECK(demand.alloc((size_t) v.n_buckets * 4));
		GH_TRY(cudaMemsetAsync(state.p, 0, v.n_cells, st));
		GH_TRY(cudaMemsetAsync(reject.p, 0, (size_t) v.n_cells * 4, st));
		GH_TRY(cudaMemsetAsync(csize.p, 0, (size_t) v.n_cells * 4, st));
		GH_TRY(cudaMemsetAsync(fill.p, 0, (size_t) v.n_buckets * 4, st));
		GH_TRY(cudaMemsetAsync(demand.p, 0, (size_t) v.n_buckets * 4, st));
		GH_TRY(cudaMemsetAsync(small.p, 0, 8 * 4, st));

		uint32_t	h_hist[GH_GPH_SIZE_CLASSES] = {0};
		const uint32_t *by_class = idx.as<uint32_t>();

		if (u > 0)
		{
			cell_sizes<<<gh_blocks(u, T), T, 0, st>>>(v, dk, u, hk.as<uint64_t>(), cell.as<uint32_t>(),
													  csize.as<uint32_t>());
			GH_LAUNCHED();
			key_classes<<<gh_blocks(u, T), T, 0, st>>>(cell.as<uint32_t>(), csize.as<uint32_t>(), u,
													   cls.as<uint8_t>(), idx.as<uint32_t>(), d_hist);
			GH_LAUNCHED();

			/* one stable radix pass groups the keys by class, largest first */
			cub::DoubleBuffer<uint8_t> kb(cls.as<uint8_t>(), cls2.as<uint8_t>());
			cub::DoubleBuffer<uint32_t> vb(idx.as<uint32_t>(), listA.as<uint32_t>());
			size_t		tmp = 0;

			GH_TRY(cub::DeviceRadixSort::SortPairs(nullptr, tmp, kb, vb, (int64_t) u, 0, 3, st));
			GH_CHECK(gh_cub_reserve(t, tmp));
			GH_TRY(cub::DeviceRadixSort::SortPairs(g->d_cub, tmp, kb, vb, (int64_t) u, 0, 3, st));
			by_class = vb.Current();
			GH_TRY(cudaMemcpyAsync(h_hist, d_hist, sizeof(h_hist), cudaMemcpyDeviceToHost, st));
			GH_TRY(cudaStreamSynchronize(st));
		}
		/* the round lists must not alias the class-ordered index list */
		uint32_t   *lists[2] = {by_class == listA.as<uint32_t>() ? idx.as<uint32_t>() : listA.as<uint32_t>(),
		listB.as<uint32_t>()};

		uint32_t	start = 0;
		uint32_t	failed = 0;
		int			rounds = 0;

		for (int c = 0; c < GH_GPH_SIZE_CLASSES && !failed; c++)
		{
			const uint32_t *cur = by_class + start;
			uint32_t	n_act = h_hist[c];
			int			flip = 0;

			start += h_hist[c];
			while (n_act > 0 && !failed)
			{
				if (n_act <= TAIL_KEYS)
				{
					uint32_t	h_small[2];

					/* the tail lists must not be the class's own input */
					if (cur != lists[0] && cur != lists[1])
					{
						GH_TRY(cudaMemcpyAsync(lists[0], cur, (size_t) n_act * 4,
											   cudaMemcpyDeviceToDevice, st));
						cur = lists[0];
					}
					uint32_t   *other = cur == lists[0] ? lists[1] : lists[0];

					tail_rounds<<<1, TAIL_THREADS, 0, st>>>(v, (uint32_t *) cur, other, n_act,
															hk.as<uint64_t>(), cell.as<uint32_t>(),
															state.as<uint8_t>(), bkt.as<uint32_t>(),
															fill.as<uint32_t>(), demand.as<uint32_t>(),
															reject.as<uint32_t>(), d_failed, d_count);
					GH_LAUNCHED();
					GH_TRY(cudaMemcpyAsync(h_small, d_count, 8, cudaMemcpyDeviceToHost, st));
					GH_TRY(cudaStreamSynchronize(st));
					rounds += h_small[0];
					failed = h_small[1];
					break;
				}
				unsigned	blocks = gh_blocks(n_act, T);
				uint32_t   *next = lists[flip];
				uint32_t	h_small[2];

				rounds++;
				round_demand<<<blocks, T, 0, st>>>(v, cur, n_act, hk.as<uint64_t>(), cell.as<uint32_t>(),
												   state.as<uint8_t>(), bkt.as<uint32_t>(),
												   demand.as<uint32_t>());
				GH_LAUNCHED();
				round_reject<<<blocks, T, 0, st>>>(cur, n_act, bkt.as<uint32_t>(), cell.as<uint32_t>(),
												   fill.as<uint32_t>(), demand.as<uint32_t>(),
												   reject.as<uint32_t>());
				GH_LAUNCHED();
				GH_TRY(cudaMemsetAsync(d_count, 0, 4, st));
				round_commit<<<blocks, T, 0, st>>>(cur, n_act, bkt.as<uint32_t>(), cell.as<uint32_t>(),
												   fill.as<uint32_t>(), demand.as<uint32_t>(),
												   reject.as<uint32_t>(), next, d_count);
				GH_LAUNCHED();
				GH_TRY(cudaMemcpyAsync(&h_small[0], d_count, 4, cudaMemcpyDeviceToHost, st));
				GH_TRY(cudaStreamSynchronize(st));
				n_act = h_small[0];
				if (n_act > 0)
				{
					round_advance<<<gh_blocks(n_act, T), T, 0, st>>>(next, n_act, cell.as<uint32_t>(),
																	 reject.as<uint32_t>(),
																	 state.as<uint8_t>(), d_failed);
					GH_LAUNCHED();
					GH_TRY(cudaMemcpyAsync(&h_small[1], d_failed, 4, cudaMemcpyDeviceToHost, st));
					GH_TRY(cudaStreamSynchronize(st));
					failed = h_small[1];
				}
				cur = next;
				flip ^= 1;
			}
		}
		if (failed)
			continue;

		/* the cell bytes are final: scatter keys into their buckets */
		uint64_t	n_slots = (uint64_t) v.n_buckets * GH_GPH_M;

		GH_CHECK(gh_dmalloc(t, (void **) &g->d_cells, v.n_cells));
		GH_CHECK(gh_dmalloc(t, (void **) &g->d_slots, n_slots * sizeof(gh_slot)));
		GH_TRY(cudaMemcpyAsync(g->d_cells, state.p, v.n_cells, cudaMemcpyDeviceToDevice, st));
		GH_TRY(cudaMemsetAsync(g->d_slots, 0, n_slots * sizeof(gh_slot), st));
		GH_TRY(cudaMemsetAsync(fill.p, 0, (size_t) v.n_buckets * 4, st));
		v.cells = g->d_cells;
		v.slots = g->d_slots;
		if (u > 0)
		{
			place<<<gh_blocks(u, T), T, 0, st>>>(v, dk, doff, dcnt, u, fill.as<uint32_t>(), g->d_slots);
			GH_LAUNCHED();
		}
		GH_TRY(cudaStreamSynchronize(st));
		t->gph = v;
		t->seed = seed;
		t->attempts = attempt + 1;
		t->rounds = rounds;
		t->n_slots = n_slots;
		t->n_cells = v.n_cells;
		return GH_OK;
	}
	return gh_error(GH_ERR_BUILD_FAILED,
					"GPH build failed after %d attempts on %u distinct keys", GH_MAX_ATTEMPTS, u);
}
