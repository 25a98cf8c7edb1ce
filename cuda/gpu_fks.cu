/*
 * gpu_fks.cu
 *		FKS on the GPU, after Due, Elsman and Henriksen (section 2.5), with
 *		the gaps filled:
 *		- level 1 has one bucket per distinct key; it is redrawn when
 *		  sum n_b^2 > 4n (classical FKS; the paper has no such retry);
 *		- level-2 constants are drawn per round (GH_FKS_MAX_ROUNDS sets) and
 *		  shared by all buckets, so a bucket records only its round: the
 *		  first round whose constants are injective on its keys;
 *		- that round is found per bucket, independently: the keys are
 *		  grouped by bucket (count, scan, scatter) and one thread per bucket
 *		  tries the rounds in order on its keys (pairwise compare in
 *		  registers; a bitmap over the bucket's n_b^2 slots for the rare big
 *		  bucket).  No global rounds, no histogram over all slots, no host
 *		  round trip per round.  The paper's round loop (only colliding
 *		  buckets retry, with the next round's constants) gives every bucket
 *		  the same round by definition, and so does the host twin;
 *		- a bucket with no injective round among GH_FKS_MAX_ROUNDS redraws
 *		  everything with new seeds; after GH_MAX_ATTEMPTS the build fails
 *		  cleanly (the attempt loop is build_driver.h's, shared with the
 *		  host twin, host_fks.cpp).
 */
#include "build_driver.h"
#include "gpu_probe.cuh"

#include <cub/block/block_reduce.cuh>
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

/* Groups the keys by bucket: cursor[] starts zeroed, kstart[] is the
 * exclusive scan of the bucket sizes; the order inside a bucket is free
 * (a bucket's round does not depend on it). */
__global__ void
group_keys(const uint64_t *__restrict__ dk, const uint32_t *__restrict__ bkt, uint32_t u,
		   const uint32_t *__restrict__ kstart, uint32_t *__restrict__ cursor,
		   uint64_t *__restrict__ gk)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < u)
	{
		uint32_t	b = bkt[i];

		gk[kstart[b] + atomicAdd(&cursor[b], 1U)] = dk[i];
	}
}

constexpr uint32_t LOCAL_KEYS = 16;		/* bigger buckets use the bitmap */
constexpr unsigned ROUND_THREADS = 256;

/*
 * Thread per bucket: its round is the first r whose constants map its n
 * keys to n distinct slots of its n^2.  status[0]: some bucket has no such
 * round (the attempt fails); status[1]: max round + 1 over non-empty
 * buckets (one atomic per block).  bits: one bit per level-2 slot, all
 * clear, used (and cleared again) by buckets of more than LOCAL_KEYS keys.
 */
__global__ void __launch_bounds__(ROUND_THREADS)
bucket_rounds(gh_fks_view v, const uint64_t *__restrict__ gk, const uint32_t *__restrict__ kstart,
			  const uint32_t *__restrict__ cnt1, const uint64_t *__restrict__ off1, uint32_t n1,
			  uint32_t *bits, uint8_t *__restrict__ round_of, uint32_t *status)
{
	uint32_t	used = 0;

	for (uint64_t b = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; b < n1;
		 b += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	n = cnt1[b];
		int			found = 0;

		if (n >= 2)
		{
			const uint64_t *k = gk + kstart[b];
			const uint64_t off = off1[b];
			const uint32_t size = (uint32_t) (off1[b + 1] - off);

			found = -1;
			if (n <= LOCAL_KEYS)
			{
				uint64_t	key[LOCAL_KEYS];
				uint32_t	h[LOCAL_KEYS];

				for (uint32_t j = 0; j < n; j++)
					key[j] = k[j];
				for (int r = 0; r < GH_FKS_MAX_ROUNDS && found < 0; r++)
				{
					bool		ok = true;

					for (uint32_t j = 0; j < n && ok; j++)
					{
						h[j] = gh_reduce(gh_uhash32(v.l2[r], key[j]), size);
						for (uint32_t m = 0; m < j; m++)
							ok = ok && h[m] != h[j];
					}
					if (ok)
						found = r;
				}
			}
			else
			{
				for (int r = 0; r < GH_FKS_MAX_ROUNDS && found < 0; r++)
				{
					bool		ok = true;
					uint32_t	j;

					for (j = 0; j < n && ok; j++)
					{
						uint64_t	sl = off + gh_reduce(gh_uhash32(v.l2[r], k[j]), size);
						uint32_t	mask = 1U << (sl & 31);

						ok = (atomicOr(&bits[sl >> 5], mask) & mask) == 0;
					}
					/* clear what keys 0..j-1 set (the bucket's own bits only) */
					for (uint32_t q = 0; q < j; q++)
					{
						uint64_t	sl = off + gh_reduce(gh_uhash32(v.l2[r], k[q]), size);

						atomicAnd(&bits[sl >> 5], ~(1U << (sl & 31)));
					}
					if (ok)
						found = r;
				}
			}
			if (found < 0)
				atomicExch(&status[0], 1U);
		}
		round_of[b] = (uint8_t) (found > 0 ? found : 0);
		if (n >= 1 && found >= 0 && (uint32_t) found + 1 > used)
			used = (uint32_t) found + 1;
	}

	using BR = cub::BlockReduce<uint32_t, ROUND_THREADS>;
	__shared__ typename BR::TempStorage tmp;
	uint32_t	m = BR(tmp).Reduce(used, cuda::maximum<>{});

	if (threadIdx.x == 0 && m)
		atomicMax(&status[1], m);
}

template <typename T>
__global__ void
write_records(const uint64_t *__restrict__ off1, const uint8_t *__restrict__ round_of,
			  uint32_t n1, T *__restrict__ rec)
{
	uint32_t	b = blockIdx.x * blockDim.x + threadIdx.x;

	if (b <= n1)
		rec[b] = (T) gh_fks_record(off1[b], b < n1 ? round_of[b] : 0, sizeof(T) == 8);
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

constexpr unsigned T = 256;

/* One attempt on the device: level 1, each bucket's round, records, slots. */
struct fks_step
{
	gh_table   *t;
	gh_distinct d;
	gh_dscratch bkt,
				cnt1,
				off1,
				kstart,
				gk,
				round_of,
				status;
	int			sms = 0;

				fks_step(gh_table *tab, const gh_distinct &keys) :
				t(tab), d(keys), bkt(tab), cnt1(tab), off1(tab), kstart(tab), gk(tab),
				round_of(tab), status(tab) {}

	gh_status	prepare(const gh_fks_view &v)
	{
		uint32_t	u = d.n,
					n1 = v.n1;

		GH_CHECK(bkt.alloc((size_t) u * 4));
		GH_CHECK(cnt1.alloc((size_t) n1 * 4));
		GH_CHECK(off1.alloc(((size_t) n1 + 1) * 8));
		GH_CHECK(kstart.alloc((size_t) n1 * 4));
		GH_CHECK(gk.alloc((size_t) u * 8));
		GH_CHECK(round_of.alloc(n1));
		GH_CHECK(status.alloc(2 * 4));
		GH_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, t->gpu->ordinal));
		return GH_OK;
	}

	/* a GPU build is short: asked once, before it starts (gh_build) */
	bool		cancelled()
	{
		return false;
	}

	gh_status	attempt(gh_fks_view &v, gh_attempt_result *res)
	{
		gh_gpu_state *g = t->gpu;
		cudaStream_t st = g->stream;
		const uint64_t *dk = d.keys;
		uint32_t	u = d.n,
					n1 = v.n1;

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
		if (!gh_fks_space_ok(space, n1))
			return GH_OK;		/* level 1 too uneven: redraw it */

		/* level 2: group the keys by bucket, then each bucket's round */
		GH_TRY(cub::DeviceScan::ExclusiveSum(nullptr, tmp, cnt1.as<uint32_t>(), kstart.as<uint32_t>(),
											 (int64_t) n1, st));
		GH_CHECK(gh_cub_reserve(t, tmp));
		GH_TRY(cub::DeviceScan::ExclusiveSum(g->d_cub, tmp, cnt1.as<uint32_t>(), kstart.as<uint32_t>(),
											 (int64_t) n1, st));
		GH_TRY(cudaMemsetAsync(cnt1.p, 0, (size_t) n1 * 4, st));
		if (u > 0)
		{
			/* counts return to cnt1 as the cursors advance */
			group_keys<<<gh_blocks(u, T), T, 0, st>>>(dk, bkt.as<uint32_t>(), u, kstart.as<uint32_t>(),
													  cnt1.as<uint32_t>(), gk.as<uint64_t>());
			GH_LAUNCHED();
		}

		gh_dscratch bits(t);
		uint32_t	h_status[2];
		uint64_t	rb_want = ((uint64_t) n1 + ROUND_THREADS - 1) / ROUND_THREADS;
		unsigned	rb = (unsigned) (rb_want < (uint64_t) sms * 16 ? rb_want : (uint64_t) sms * 16);

		GH_CHECK(bits.alloc((space / 32 + 1) * 4));
		GH_TRY(cudaMemsetAsync(bits.p, 0, (space / 32 + 1) * 4, st));
		GH_TRY(cudaMemsetAsync(status.p, 0, 2 * 4, st));
		bucket_rounds<<<rb, ROUND_THREADS, 0, st>>>(v, gk.as<uint64_t>(), kstart.as<uint32_t>(),
													cnt1.as<uint32_t>(), off1.as<uint64_t>(), n1,
													bits.as<uint32_t>(), round_of.as<uint8_t>(),
													status.as<uint32_t>());
		GH_LAUNCHED();
		GH_TRY(cudaMemcpyAsync(h_status, status.p, sizeof(h_status), cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		bits.release();
		if (h_status[0])
			return GH_OK;		/* a bucket beyond the round cap: new seeds */

		/* level-1 records, then the slots through the probe's arithmetic */
		v.rec64 = gh_fks_rec64_for(space);

		size_t		rec_bytes = gh_fks_rec_bytes(v);

		GH_CHECK(gh_dmalloc(t, &g->d_rec, rec_bytes));
		GH_CHECK(gh_dmalloc(t, (void **) &g->d_slots, (space + 1) * sizeof(gh_slot)));
		if (v.rec64)
			write_records<uint64_t><<<gh_blocks((uint64_t) n1 + 1, T), T, 0, st>>>(
				off1.as<uint64_t>(), round_of.as<uint8_t>(), n1, (uint64_t *) g->d_rec);
		else
			write_records<uint32_t><<<gh_blocks((uint64_t) n1 + 1, T), T, 0, st>>>(
				off1.as<uint64_t>(), round_of.as<uint8_t>(), n1, (uint32_t *) g->d_rec);
		GH_LAUNCHED();
		GH_TRY(cudaMemsetAsync(g->d_slots, 0, (space + 1) * sizeof(gh_slot), st));
		v.rec = g->d_rec;
		v.slots = g->d_slots;
		if (u > 0)
		{
			place<<<gh_blocks(u, T), T, 0, st>>>(v, dk, d.off, d.cnt, u, g->d_slots);
			GH_LAUNCHED();
		}
		gh_gpu_set_l2_window(t, g->d_rec, rec_bytes);
		res->placed = true;
		res->rounds = (int) h_status[1];
		res->n_slots = space + 1;
		return GH_OK;
	}
};

struct fks_look
{
	__device__ gh_hit operator() (const gh_fks_view &v, uint64_t key) const
	{
		return gh_fks_lookup(v, key);
	}
};

}								/* namespace */

gh_status
gh_gpu_build_fks(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	fks_step	step(t, d);

	return gh_build_attempts<gh_fks_scheme>(t, &t->fks, step, d.n, seed, lf);
}

gh_status
gh_gpu_lookup_fks(gh_table *t, cudaStream_t st, const uint64_t *d_keys, size_t n, gh_range *d_ranges,
				  uint32_t *d_counts)
{
	return gh_launch_scalar_lookup<gh_fks_view, fks_look>(st, t->fks, d_keys, n, d_ranges, d_counts);
}
