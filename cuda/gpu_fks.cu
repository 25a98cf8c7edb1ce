/*
 * gpu_fks.cu
 *		FKS on the GPU, sort-free and round based as in Due, Elsman and
 *		Henriksen (section 2.5), with the gaps filled:
 *		- level 1 has one bucket per distinct key; it is redrawn when
 *		  sum n_b^2 > 4n (classical FKS; the paper has no such retry);
 *		- level-2 constants are drawn per round and shared by the buckets
 *		  still active, so a bucket records only the round it finished in;
 *		- only buckets whose level-2 histogram collides are retried; after
 *		  GH_FKS_MAX_ROUNDS rounds everything is redrawn with new seeds, and
 *		  after GH_MAX_ATTEMPTS the build fails cleanly.
 *		The host twin (host_build.cpp) runs the same rounds with the same
 *		seeds, so both finish every bucket in the same round.
 */
#include "gpu_common.cuh"

#include <cub/device/device_scan.cuh>

namespace
{

__global__ void
l1_count(gh_fks_view v, const uint64_t *__restrict__ dk, uint32_t u,
		 uint32_t *__restrict__ bkt, uint32_t *__restrict__ cnt1)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < u)
	{
		uint32_t	b = gh_fks_bucket(v, dk[i]);

		bkt[i] = b;
		atomicAdd(&cnt1[b], 1U);
	}
}

__global__ void
l1_square(const uint32_t *__restrict__ cnt1, uint32_t n1, uint64_t *__restrict__ sq)
{
	uint32_t	b = blockIdx.x * blockDim.x + threadIdx.x;

	if (b <= n1)
		sq[b] = b < n1 ? (uint64_t) cnt1[b] * cnt1[b] : 0;
}

/* Round step 1: level-2 slot of each active key, histogram of slots. */
__global__ void
round_hist(const uint32_t *__restrict__ act, uint32_t n_act, const uint64_t *__restrict__ dk,
		   const uint32_t *__restrict__ bkt, const uint64_t *__restrict__ off1, gh_uhash c,
		   uint64_t *__restrict__ slot, uint32_t *__restrict__ hist, uint8_t *__restrict__ collided)
{
	uint32_t	a = blockIdx.x * blockDim.x + threadIdx.x;

	if (a < n_act)
	{
		uint32_t	i = act ? act[a] : a;
		uint32_t	b = bkt[i];
		uint64_t	o = off1[b];
		uint64_t	s = o + gh_reduce(gh_uhash32(c, dk[i]), (uint32_t) (off1[b + 1] - o));

		slot[i] = s;
		atomicAdd(&hist[s], 1U);
		collided[b] = 0;
	}
}

/* Round step 2: a bucket collides when any of its slots got two keys. */
__global__ void
round_check(const uint32_t *__restrict__ act, uint32_t n_act, const uint32_t *__restrict__ bkt,
			const uint64_t *__restrict__ slot, const uint32_t *__restrict__ hist,
			uint8_t *__restrict__ collided)
{
	uint32_t	a = blockIdx.x * blockDim.x + threadIdx.x;

	if (a < n_act)
	{
		uint32_t	i = act ? act[a] : a;

		if (hist[slot[i]] > 1)
			collided[bkt[i]] = 1;
	}
}

/* Round step 3: finished buckets record the round; the others' keys go on. */
__global__ void
round_compact(const uint32_t *__restrict__ act, uint32_t n_act, const uint32_t *__restrict__ bkt,
			  const uint64_t *__restrict__ slot, uint32_t *__restrict__ hist,
			  const uint8_t *__restrict__ collided, uint8_t *__restrict__ round_of, uint8_t round,
			  uint32_t *__restrict__ next, uint32_t *__restrict__ n_next)
{
	uint32_t	a = blockIdx.x * blockDim.x + threadIdx.x;
	bool		keep = false;
	uint32_t	i = 0;

	if (a < n_act)
	{
		i = act ? act[a] : a;
		uint32_t	b = bkt[i];

		keep = collided[b] != 0;
		if (keep)
			hist[slot[i]] = 0;
		else
			round_of[b] = round;
	}
	gh_warp_append(keep, i, next, n_next);
}

template <typename T, int SHIFT>
__global__ void
write_records(const uint64_t *__restrict__ off1, const uint8_t *__restrict__ round_of,
			  uint32_t n1, T *__restrict__ rec)
{
	uint32_t	b = blockIdx.x * blockDim.x + threadIdx.x;

	if (b <= n1)
		rec[b] = (T) ((off1[b] << SHIFT) | (b < n1 ? round_of[b] : 0));
}

__global__ void
place(gh_fks_view v, const uint64_t *__restrict__ dk, const uint32_t *__restrict__ doff,
	  const uint32_t *__restrict__ dcnt, uint32_t u, gh_slot *slots)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < u)
	{
		gh_slot		s;

		s.key = dk[i];
		s.off = doff[i];
		s.cnt = dcnt[i];
		slots[gh_fks_slot(v, s.key)] = s;
	}
}

}								/* namespace */

gh_status
gh_gpu_build_fks(gh_table *t, const uint64_t *dk, const uint32_t *doff,
				 const uint32_t *dcnt, uint32_t u, uint64_t seed)
{
	gh_gpu_state *g = t->gpu;
	cudaStream_t st = g->stream;
	uint32_t	n1 = u ? u : 1;
	const unsigned T = 256;
	gh_dscratch bkt(t),
				cnt1(t),
				off1(t),
				round_of(t),
				collided(t),
				act(t),
				nxt(t),
				slot(t),
				counter(t);

	GH_CHECK(bkt.alloc((size_t) u * 4));
	GH_CHECK(cnt1.alloc((size_t) n1 * 4));
	GH_CHECK(off1.alloc(((size_t) n1 + 1) * 8));
	GH_CHECK(round_of.alloc(n1));
	GH_CHECK(collided.alloc(n1));
	GH_CHECK(act.alloc((size_t) u * 4));
	GH_CHECK(nxt.alloc((size_t) u * 4));
	GH_CHECK(slot.alloc((size_t) u * 8));
	GH_CHECK(counter.alloc(4));

	gh_fks_view v;

	memset(&v, 0, sizeof(v));
	v.n1 = n1;
	for (int attempt = 0; attempt < GH_MAX_ATTEMPTS; attempt++)
	{
		uint64_t	sd = gh_attempt_seed(seed, attempt);

		v.l1 = gh_uhash_draw(&sd);
		for (int r = 0; r < GH_FKS_MAX_ROUNDS; r++)
			v.l2[r] = gh_uhash_draw(&sd);

		/* level 1: bucket sizes and the exclusive scan of their squares */
		GH_TRY(cudaMemsetAsync(cnt1.p, 0, (size_t) n1 * 4, st));
		if (u > 0)
		{
			l1_count<<<gh_blocks(u, T), T, 0, st>>>(v, dk, u, bkt.as<uint32_t>(), cnt1.as<uint32_t>());
			GH_LAUNCHED();
		}
		l1_square<<<gh_blocks((uint64_t) n1 + 1, T), T, 0, st>>>(cnt1.as<uint32_t>(), n1, off1.as<uint64_t>());
		GH_LAUNCHED();

		size_t		tmp = 0;

		GH_TRY(cub::DeviceScan::ExclusiveSum(nullptr, tmp, off1.as<uint64_t>(), off1.as<uint64_t>(),
											 (int64_t) n1 + 1, st));
		GH_CHECK(gh_cub_reserve(t, tmp));
		GH_TRY(cub::DeviceScan::ExclusiveSum(g->d_cub, tmp, off1.as<uint64_t>(), off1.as<uint64_t>(),
											 (int64_t) n1 + 1, st));
		uint64_t	space = 0;

		GH_TRY(cudaMemcpyAsync(&space, off1.as<uint64_t>() + n1, 8, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		if (space > (uint64_t) GH_FKS_MAX_SPACE * n1)
			continue;			/* level 1 too uneven: redraw it */

		/* level 2: rounds over the keys of still-colliding buckets */
		gh_dscratch hist(t);

		GH_CHECK(hist.alloc((space + 1) * 4));
		GH_TRY(cudaMemsetAsync(hist.p, 0, (space + 1) * 4, st));
		GH_TRY(cudaMemsetAsync(round_of.p, 0, n1, st));

		uint32_t	n_act = u;
		uint32_t   *cur = nullptr;	/* nullptr: all keys, no list needed */
		uint32_t   *other = act.as<uint32_t>();
		uint32_t   *spare = nxt.as<uint32_t>();
		int			rounds = 0;

		for (int r = 0; r < GH_FKS_MAX_ROUNDS && n_act > 0; r++)
		{
			unsigned	blocks = gh_blocks(n_act, T);

			rounds = r + 1;
			round_hist<<<blocks, T, 0, st>>>(cur, n_act, dk, bkt.as<uint32_t>(), off1.as<uint64_t>(),
											 v.l2[r], slot.as<uint64_t>(), hist.as<uint32_t>(),
											 collided.as<uint8_t>());
			GH_LAUNCHED();
			round_check<<<blocks, T, 0, st>>>(cur, n_act, bkt.as<uint32_t>(), slot.as<uint64_t>(),
											  hist.as<uint32_t>(), collided.as<uint8_t>());
			GH_LAUNCHED();
			GH_TRY(cudaMemsetAsync(counter.p, 0, 4, st));
			round_compact<<<blocks, T, 0, st>>>(cur, n_act, bkt.as<uint32_t>(), slot.as<uint64_t>(),
												hist.as<uint32_t>(), collided.as<uint8_t>(),
												round_of.as<uint8_t>(), (uint8_t) r, other,
												counter.as<uint32_t>());
			GH_LAUNCHED();
			GH_TRY(cudaMemcpyAsync(&n_act, counter.p, 4, cudaMemcpyDeviceToHost, st));
			GH_TRY(cudaStreamSynchronize(st));
			cur = other;
			other = spare;
			spare = cur;
		}
		if (n_act > 0)
			continue;			/* round cap hit: new seeds for everything */
		hist.release();

		/* level-1 records, then the slots through the probe's arithmetic */
		bool		rec64 = space + 1 > GH_FKS_REC32_MAX_OFF;
		size_t		rec_bytes = ((size_t) n1 + 1) * (rec64 ? 8 : 4);

		GH_CHECK(gh_dmalloc(t, &g->d_rec, rec_bytes));
		GH_CHECK(gh_dmalloc(t, (void **) &g->d_slots, (space + 1) * sizeof(gh_slot)));
		if (rec64)
			write_records<uint64_t, GH_FKS_REC64_SHIFT><<<gh_blocks((uint64_t) n1 + 1, T), T, 0, st>>>(
				off1.as<uint64_t>(), round_of.as<uint8_t>(), n1, (uint64_t *) g->d_rec);
		else
			write_records<uint32_t, GH_FKS_REC32_SHIFT><<<gh_blocks((uint64_t) n1 + 1, T), T, 0, st>>>(
				off1.as<uint64_t>(), round_of.as<uint8_t>(), n1, (uint32_t *) g->d_rec);
		GH_LAUNCHED();
		GH_TRY(cudaMemsetAsync(g->d_slots, 0, (space + 1) * sizeof(gh_slot), st));
		v.rec = g->d_rec;
		v.rec64 = rec64;
		v.slots = g->d_slots;
		if (u > 0)
		{
			place<<<gh_blocks(u, T), T, 0, st>>>(v, dk, doff, dcnt, u, g->d_slots);
			GH_LAUNCHED();
		}
		t->fks = v;
		t->seed = seed;
		t->attempts = attempt + 1;
		t->rounds = rounds;
		t->n_slots = space + 1;
		t->n_cells = n1;
		return GH_OK;
	}
	return gh_error(GH_ERR_BUILD_FAILED,
					"FKS build failed after %d seed attempts on %u distinct keys", GH_MAX_ATTEMPTS, u);
}
