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

/*
 * The probe, cooperative (large tables: CK_GROUP_MIN_BUCKETS below): a
 * group of B lanes per probe reads a bucket, one
 * 16-byte slot per lane, so that a bucket is one coalesced 64-byte request
 * instead of four loads of one thread; each lane handles P probes per pass
 * and issues all P loads before any compare (as GPH's probe).  A probe
 * whose bucket holds its key is answered; one whose bucket has an empty
 * slot is a miss (gh_cuckoo_lookup's early exit); the rest read their next
 * choice.  After H full buckets, one lane reads the stash.
 */
constexpr int CK_G = GH_CUCKOO_B;	/* lanes per probe */

template <int P>
__global__ void __launch_bounds__(PROBE_THREADS)
cuckoo_group_lookup_kernel(gh_cuckoo_view v, const uint64_t *__restrict__ keys, uint64_t n,
						   gh_range *__restrict__ ranges, uint32_t *__restrict__ counts)
{
	const unsigned lane = threadIdx.x & 31;
	const unsigned sub = lane % CK_G;
	const unsigned gbase = lane - sub;
	const unsigned gmask = (CK_G == 32 ? 0xffffffffU : (1U << CK_G) - 1) << gbase;
	const uint64_t group = (blockIdx.x * (uint64_t) blockDim.x + threadIdx.x) / CK_G;
	const uint64_t groups = (gridDim.x * (uint64_t) blockDim.x) / CK_G;
	const ulonglong2 *slots = reinterpret_cast<const ulonglong2 *>(v.slots);

	/* the warp's groups move together so that ballots see all lanes */
	for (uint64_t first = group * P; first - (gbase / CK_G) * P < n; first += groups * P)
	{
		uint64_t	key[P];
		ulonglong2	s[P];
		bool		open[P];	/* not answered yet (the same in the group) */

#pragma unroll
		for (int p = 0; p < P; p++)
		{
			open[p] = first + p < n;
			key[p] = open[p] ? __ldcs(keys + first + p) : 0;
		}
#pragma unroll
		for (int j = 0; j < GH_CUCKOO_H; j++)
		{
#pragma unroll
			for (int p = 0; p < P; p++)
				if (open[p])
					s[p] = __ldcs(slots + (uint64_t) gh_cuckoo_bucket(v, j, key[p]) * CK_G + sub);
#pragma unroll
			for (int p = 0; p < P; p++)
			{
				uint32_t	cnt = (uint32_t) (s[p].y >> 32);
				bool		match = open[p] && cnt != 0 && s[p].x == key[p];
				unsigned	hit = __ballot_sync(0xffffffffU, match) & gmask;
				unsigned	used = __ballot_sync(0xffffffffU, open[p] && cnt != 0) & gmask;

				if (match)
					store_hit(ranges, counts, first + p, (uint32_t) s[p].y, cnt);
				if (hit)
					open[p] = false;
				else if (open[p] && used != gmask)
				{
					/* an empty slot: the key is in no later bucket */
					if (sub == 0)
						store_hit(ranges, counts, first + p, 0, 0);
					open[p] = false;
				}
			}
		}
		/* all H buckets full: the stash, if anything is in it */
#pragma unroll
		for (int p = 0; p < P; p++)
			if (open[p] && sub == 0)
			{
				gh_hit		h = gh_cuckoo_stash_lookup(v, key[p]);

				store_hit(ranges, counts, first + p, h.off, h.cnt);
			}
	}
}

/*
 * Where the group probe wins (bench_core on the H100, 50% hits, fill
 * 0.85): it reads a bucket in one coalesced request, which pays where the
 * table is far larger than L2 and every bucket comes from DRAM (10^8 keys,
 * 1.9 GB: 18.4 against 15.5 G lookups/s; 5 x 10^7: 18.7 against 17.2);
 * below, a thread's four loads of one bucket do as well and need no
 * ballots (3 x 10^7 keys: 19.0 against 19.4; 10^7: 20.3 against 21.4).
 * The crossover lies between 565 and 941 MB of buckets: 768 MB.
 */
constexpr uint64_t CK_GROUP_MIN_BUCKETS = (768ULL << 20) / (GH_CUCKOO_B * sizeof(gh_slot));

}								/* namespace */

gh_status
gh_gpu_build_cuckoo(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	cuckoo_step step(t, d);

	return gh_build_attempts<gh_cuckoo_scheme>(t, &t->cuckoo, step, d.n, seed, lf);
}

gh_status
gh_gpu_lookup_cuckoo(gh_table *t, cudaStream_t st, const uint64_t *d_keys, size_t n, gh_range *d_ranges,
					 uint32_t *d_counts)
{
	bool		group = gh_cuckoo_probe == GH_CUCKOO_PROBE_GROUP ||
		(gh_cuckoo_probe == GH_CUCKOO_PROBE_AUTO && t->cuckoo.n_buckets >= CK_GROUP_MIN_BUCKETS);

	if (32 % CK_G != 0 || !group)
		return gh_launch_scalar_lookup<gh_cuckoo_view, cuckoo_look>(st, t->cuckoo, d_keys, n,
																	d_ranges, d_counts);
	return gh_launch_ilp([&](auto p) {
		constexpr int P = decltype(p)::value;

		cuckoo_group_lookup_kernel<P><<<gh_probe_grid(n * CK_G / P), PROBE_THREADS, 0, st>>>(
			t->cuckoo, d_keys, n, d_ranges, d_counts);
	});
}
