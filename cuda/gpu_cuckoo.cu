/*
 * gpu_cuckoo.cu
 *		Bucketed cuckoo on the GPU (seed 001's static cuckoo table): a
 *		thread per distinct key inserts concurrently, with bounded eviction
 *		chains, into an array of 32-bit items (key index + 1, 0 = empty):
 *		- a key reads its bucket and CASes itself into the first empty slot
 *		  it saw (a lost CAS re-reads), so occupied slots stay in front;
 *		- a full bucket gives up a victim by atomicExch, and the evicted
 *		  item goes on to its next choice (schemes/cuckoo.cuh);
 *		- after GH_CUCKOO_MAX_CHAIN evictions the item in hand takes the
 *		  first of its buckets with room, else a stash slot (atomicAdd on a
 *		  counter); more than GH_CUCKOO_STASH of those fails the attempt.
 *		Items rather than 16-byte slots are swapped because an eviction
 *		must move key and payload at once (a 16-byte atomicExch needs sm_90
 *		and the build also targets sm_80); the slots are written from the
 *		items once all are in.  Slots are never emptied, so a bucket seen
 *		full stays full and the early-exit lookup holds.
 */
#include "build_driver.h"
#include "gpu_probe.cuh"

namespace
{

/* A bucket slot as other threads' CAS and Exch left it: a volatile load,
 * never cached in L1 nor merged with an earlier read of the same slot. */
__device__ __forceinline__ uint32_t
read_item(const uint32_t *p)
{
	return *(const volatile uint32_t *) p;
}

/*
 * Puts x in the first empty slot of bucket bk: 1 done, 0 the bucket is
 * full (it stays so).  A CAS lost to another insert re-reads the bucket.
 */
__device__ __forceinline__ int
put(uint32_t *bk, uint32_t x)
{
	for (;;)
	{
		int			e = -1;

#pragma unroll
		for (int i = GH_CUCKOO_B - 1; i >= 0; i--)
			if (read_item(bk + i) == 0)
				e = i;
		if (e < 0)
			return 0;
		if (atomicCAS(bk + e, 0U, x) == 0U)
			return 1;
	}
}

__global__ void
insert(gh_cuckoo_view v, const uint64_t *__restrict__ dk, uint32_t u, uint32_t *items,
	   uint32_t *n_stash)
{
	uint64_t	i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;

	if (i >= u)
		return;

	/* 64-bit index: near u = 2^32 a 32-bit one would wrap onto key 0 */
	uint32_t	x = (uint32_t) i + 1;
	uint64_t	key = dk[i];
	uint32_t	b = gh_cuckoo_bucket(v, 0, key);

	for (uint32_t chain = 0;; chain++)
	{
		uint32_t   *bk = items + (uint64_t) b * GH_CUCKOO_B;

		if (put(bk, x))
			return;
		if (chain == GH_CUCKOO_MAX_CHAIN)
		{
			for (int j = 0; j < GH_CUCKOO_H; j++)
				if (put(items + (uint64_t) gh_cuckoo_bucket(v, j, key) * GH_CUCKOO_B, x))
					return;

			uint32_t	s = atomicAdd(n_stash, 1U);

			if (s < GH_CUCKOO_STASH)
				items[(uint64_t) v.n_buckets * GH_CUCKOO_B + s] = x;
			return;
		}

		uint32_t	y = atomicExch(bk + gh_cuckoo_victim(x, chain), x);

		if (y == 0)
			return;				/* not reached: a full slot stays full */
		x = y;
		key = dk[x - 1];
		b = gh_cuckoo_next_bucket(v, key, b);
	}
}

/* Every slot from its item (bucket slots and stash alike; 0: empty). */
__global__ void
write_slots(const uint32_t *__restrict__ items, uint64_t n_slots, const uint64_t *__restrict__ dk,
			const uint32_t *__restrict__ doff, const uint32_t *__restrict__ dcnt, gh_slot *slots)
{
	uint64_t	p = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;

	if (p >= n_slots)
		return;

	uint32_t	x = items[p];
	gh_slot		s = {0, 0, 0};

	if (x != 0)
	{
		s.key = dk[x - 1];
		s.off = doff[x - 1];
		s.cnt = dcnt[x - 1];
	}
	slots[p] = s;
}

constexpr unsigned T = 256;

struct cuckoo_step
{
	gh_table   *t;
	gh_distinct d;
	gh_dscratch items,
				n_stash;

				cuckoo_step(gh_table *tab, const gh_distinct &keys) :
				t(tab), d(keys), items(tab), n_stash(tab) {}

	gh_status	prepare(const gh_cuckoo_view &)
	{
		GH_CHECK(n_stash.alloc(4));
		return GH_OK;
	}

	/* a GPU build is short: asked once, before it starts (gh_build) */
	bool		cancelled()
	{
		return false;
	}

	gh_status	attempt(gh_cuckoo_view &v, gh_attempt_result *res)
	{
		gh_gpu_state *g = t->gpu;
		cudaStream_t st = g->stream;
		uint64_t	n_slots = gh_cuckoo_n_slots(v);
		uint32_t	h_stash = 0;

		/* the geometry grows per attempt: items of this attempt's size */
		GH_CHECK(items.alloc(n_slots * 4));
		GH_TRY(cudaMemsetAsync(items.p, 0, n_slots * 4, st));
		GH_TRY(cudaMemsetAsync(n_stash.p, 0, 4, st));
		if (d.n > 0)
		{
			insert<<<gh_blocks(d.n, T), T, 0, st>>>(v, d.keys, d.n, items.as<uint32_t>(),
													n_stash.as<uint32_t>());
			GH_LAUNCHED();
		}
		GH_TRY(cudaMemcpyAsync(&h_stash, n_stash.p, 4, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		if (h_stash > GH_CUCKOO_STASH)
			return GH_OK;		/* stash full: new seeds, more buckets */

		GH_CHECK(gh_dmalloc(t, (void **) &g->d_slots, n_slots * sizeof(gh_slot)));
		write_slots<<<gh_blocks(n_slots, T), T, 0, st>>>(items.as<uint32_t>(), n_slots, d.keys, d.off,
														 d.cnt, g->d_slots);
		GH_LAUNCHED();
		v.slots = g->d_slots;
		v.n_stash = h_stash;
		res->placed = true;
		res->rounds = 1;
		res->n_slots = n_slots;
		return GH_OK;
	}
};

struct cuckoo_look
{
	__device__ gh_hit operator() (const gh_cuckoo_view &v, uint64_t key) const
	{
		return gh_cuckoo_lookup(v, key);
	}
};

}								/* namespace */

gh_status
gh_gpu_build_cuckoo(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	cuckoo_step step(t, d);

	return gh_build_attempts<gh_cuckoo_scheme>(t, &t->cuckoo, step, d.n, seed, lf);
}

gh_status
gh_gpu_lookup_cuckoo(gh_table *t, const uint64_t *d_keys, size_t n, gh_range *d_ranges,
					 uint32_t *d_counts)
{
	return gh_launch_scalar_lookup<gh_cuckoo_view, cuckoo_look>(t, t->cuckoo, d_keys, n, d_ranges, d_counts);
}
