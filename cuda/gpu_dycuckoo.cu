/*
 * gpu_dycuckoo.cu
 *		DyCuckoo on the GPU (seed 004): the insert kernel, the conflict-free
 *		upsize of one subtable, the lookup kernel, and the GPU steps of the
 *		static build (build_driver.h) and of the incremental path
 *		(dycuckoo.h).  The host twin is host_dycuckoo.cpp.
 *
 *		Insert: the paper's voter coordination (its Algorithm 1).  A thread
 *		holds one item; the warp serves one leader at a time: the leader
 *		locks its bucket (atomicCAS on the bucket's lock word), 8 lanes read
 *		the bucket's 8 slots, a ballot finds the first empty one.  A leader
 *		whose lock is taken is skipped for another (no spinning on a hot
 *		bucket).  The walk is the host twin's: first table, second table,
 *		then evictions from the second, gh_dyc_max_evict at most; the item
 *		then in hand goes to a list (never dropped).  Locks live only while
 *		a kernel inserts (4 bytes per bucket, freed after).  Only the leader
 *		writes: its stores, a fence, then the unlock; the next holder locks,
 *		fences, and reads through L2 (ld.cg).
 */
#include "build_driver.h"
#include "dycuckoo.h"
#include "gpu_probe.cuh"

#include <utility>

namespace
{

constexpr unsigned FULL = 0xffffffffU;
constexpr unsigned INSERT_THREADS = 128;

__device__ __forceinline__ ulonglong2
pack(uint64_t key, uint32_t off, uint32_t cnt)
{
	return make_ulonglong2(key, (unsigned long long) off | ((unsigned long long) cnt << 32));
}

/*
 * Items from (dk, doff, dcnt) or, when ditems is set, from ditems (the
 * items an earlier insert handed back).  Items left over go to
 * left[*n_left++].
 */
__global__ void __launch_bounds__(INSERT_THREADS)
insert_kernel(gh_dyc_view v, gh_slot *slots, uint32_t *locks,
			  const uint64_t *__restrict__ dk, const uint32_t *__restrict__ doff,
			  const uint32_t *__restrict__ dcnt, const gh_slot *__restrict__ ditems, uint32_t n,
			  int max_evict, gh_slot *__restrict__ left, unsigned long long *n_left)
{
	const unsigned lane = threadIdx.x & 31;
	const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	ulonglong2 *sl = reinterpret_cast<ulonglong2 *>(slots);
	bool		active = i < n,
				fresh = true,
				skip = false;
	uint64_t	key = 0;
	uint32_t	off = 0,
				cnt = 0,
				tgt = 0,
				alt = 0,
				chain = 0;

	if (active)
	{
		if (ditems)
		{
			gh_slot		s = ditems[i];

			key = s.key;
			off = s.off;
			cnt = s.cnt;
		}
		else
		{
			key = dk[i];
			off = doff[i];
			cnt = dcnt[i];
		}
		gh_dyc_choices(v, key, &tgt, &alt);
	}

	for (;;)
	{
		if (__ballot_sync(FULL, active) == 0)
			break;

		unsigned	cand = __ballot_sync(FULL, active && !skip);

		if (cand == 0)
		{
			/* every waiting bucket was locked: try them all again */
			skip = false;
			__nanosleep(64);
			continue;
		}

		const int	leader = __ffs(cand) - 1;
		unsigned long long b = 0;
		int			got = 0;

		if (lane == leader)
		{
			b = gh_dyc_bucket(v, tgt, key);
			got = atomicCAS(&locks[b], 0U, 1U) == 0U;
			if (got)
				__threadfence();	/* acquire: the last holder's slots */
			else
				skip = true;
		}
		if (!__shfl_sync(FULL, got, leader))
			continue;
		__syncwarp();
		b = __shfl_sync(FULL, b, leader);

		const unsigned long long lkey = __shfl_sync(FULL, (unsigned long long) key, leader);
		const uint32_t lchain = __shfl_sync(FULL, chain, leader);
		ulonglong2	s = make_ulonglong2(0, 0);

		if (lane < GH_DYC_B)
			s = __ldcg(sl + b * GH_DYC_B + lane);

		const unsigned empty = __ballot_sync(FULL, lane < GH_DYC_B && (uint32_t) (s.y >> 32) == 0);
		const uint32_t vs = gh_dyc_victim(lkey, lchain);
		const unsigned long long vx = __shfl_sync(FULL, s.x, vs),
					vy = __shfl_sync(FULL, s.y, vs);

		if (lane == leader)
		{
			ulonglong2 *bucket = sl + b * GH_DYC_B;

			if (empty)
			{
				__stcg(bucket + __ffs(empty) - 1, pack(key, off, cnt));
				active = false;
			}
			else if (fresh)
			{
				/* the first bucket is full: the second before any eviction */
				fresh = false;
				tgt = alt;
			}
			else if ((int) chain >= max_evict)
			{
				gh_slot		it;

				it.key = key;
				it.off = off;
				it.cnt = cnt;

				/* a static build only counts them: its attempt fails */
				unsigned long long at = atomicAdd(n_left, 1ULL);

				if (left)
					left[at] = it;
				active = false;
			}
			else
			{
				__stcg(bucket + vs, pack(key, off, cnt));
				key = vx;
				off = (uint32_t) vy;
				cnt = (uint32_t) (vy >> 32);
				tgt = gh_dyc_other(v, key, tgt);
				chain++;
			}
			__threadfence();	/* release: the slots before the lock */
			atomicExch(&locks[b], 0U);
		}
		__syncwarp();
	}
}

/*
 * Upsize of table j (old view v): old bucket loc splits into loc and
 * loc + half by the next hash bit, each item keeping its slot index; every
 * new slot is written once (coalesced, no locks).  bj: the table's first
 * slot, the same before and after.
 */
__global__ void
split_kernel(gh_dyc_view v, uint32_t j, const ulonglong2 *__restrict__ os,
			 ulonglong2 *__restrict__ ns, uint64_t bj, uint64_t half_slots)
{
	for (uint64_t q = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; q < half_slots;
		 q += (uint64_t) gridDim.x * blockDim.x)
	{
		ulonglong2	s = os[bj + q];
		uint64_t	hi = 0;

		if ((uint32_t) (s.y >> 32) != 0)
			hi = (gh_dyc_hash(v, j, s.x) >> v.log2) & 1;
		ns[bj + q + hi * half_slots] = s;
		ns[bj + q + (1 - hi) * half_slots] = make_ulonglong2(0, 0);
	}
}

/* How many of n keys the table holds (the incremental path refuses them). */
__global__ void
present_kernel(gh_dyc_view v, const uint64_t *__restrict__ keys, uint32_t n,
			   unsigned long long *count)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n && gh_dyc_lookup(v, keys[i]).cnt != 0)
		atomicAdd(count, 1ULL);
}

/*
 * The probe: an 8-lane group per probe reads a 128-byte bucket, one 16-byte
 * slot per lane: the first-choice bucket, then, for the probes not found
 * there, the other one.  Each lane handles P probes per pass and issues all
 * P loads of a round before any compare.
 */
template <int P>
__global__ void __launch_bounds__(PROBE_THREADS)
dyc_lookup_kernel(gh_dyc_view v, const uint64_t *__restrict__ keys, uint64_t n,
				  gh_range *__restrict__ ranges, uint32_t *__restrict__ counts)
{
	const unsigned lane = threadIdx.x & 31;
	const unsigned sub = lane & (GH_DYC_B - 1);
	const unsigned gbase = lane & ~(GH_DYC_B - 1U);
	const uint64_t group = (blockIdx.x * (uint64_t) blockDim.x + threadIdx.x) / GH_DYC_B;
	const uint64_t groups = (gridDim.x * (uint64_t) blockDim.x) / GH_DYC_B;
	const ulonglong2 *slots = reinterpret_cast<const ulonglong2 *>(v.slots);

	/* the warp's four groups move together so that ballots see all lanes */
	for (uint64_t first = group * P; first - (gbase / GH_DYC_B) * P < n; first += groups * P)
	{
		uint64_t	key[P],
					bk[P][2];
		ulonglong2	s[P];
		bool		found[P];

#pragma unroll
		for (int p = 0; p < P; p++)
		{
			uint32_t	f,
						sc;

			key[p] = first + p < n ? __ldcs(keys + first + p) : 0;
			gh_dyc_choices(v, key[p], &f, &sc);
			bk[p][0] = gh_dyc_bucket(v, f, key[p]);
			bk[p][1] = gh_dyc_bucket(v, sc, key[p]);
			found[p] = false;
		}
#pragma unroll
		for (int r = 0; r < 2; r++)
		{
#pragma unroll
			for (int p = 0; p < P; p++)
			{
				if (first + p < n && !found[p])
					s[p] = __ldcs(slots + bk[p][r] * GH_DYC_B + sub);
				else
					s[p] = make_ulonglong2(0, 0);
			}
#pragma unroll
			for (int p = 0; p < P; p++)
			{
				uint32_t	cnt = (uint32_t) (s[p].y >> 32);
				bool		live = first + p < n && !found[p];
				bool		match = live && cnt != 0 && s[p].x == key[p];
				unsigned	gm = (__ballot_sync(FULL, match) >> gbase) & ((1U << GH_DYC_B) - 1);

				if (match)
					store_hit(ranges, counts, first + p, (uint32_t) s[p].y, cnt);
				else if (r == 1 && live && gm == 0 && sub == 0)
					store_hit(ranges, counts, first + p, 0, 0);
				found[p] = found[p] || gm != 0;
			}
		}
	}
}

/*
 * One insert kernel over the table t->gpu->d_slots as view v: lock words
 * for its buckets (zeroed, freed after), then the count of items left over
 * (*failed), in left[] unless left is NULL.
 */
gh_status
run_insert(gh_table *t, const gh_dyc_view &v, const uint64_t *dk, const uint32_t *doff,
		   const uint32_t *dcnt, const gh_slot *ditems, uint32_t n, gh_slot *left,
		   unsigned long long *d_n_left, uint64_t *failed)
{
	gh_gpu_state *g = t->gpu;
	cudaStream_t st = g->stream;
	gh_dscratch locks(t);
	uint64_t	nb = gh_dyc_buckets(v);
	unsigned long long h_left = 0;

	*failed = 0;
	if (n == 0)
		return GH_OK;
	GH_CHECK(locks.alloc(nb * 4));
	GH_TRY(cudaMemsetAsync(locks.p, 0, nb * 4, st));
	GH_TRY(cudaMemsetAsync(d_n_left, 0, sizeof(unsigned long long), st));
	insert_kernel<<<gh_blocks(n, INSERT_THREADS), INSERT_THREADS, 0, st>>>(
		v, g->d_slots, locks.as<uint32_t>(), dk, doff, dcnt, ditems, n, gh_dyc_max_evict,
		left, d_n_left);
	GH_LAUNCHED();
	GH_TRY(cudaMemcpyAsync(&h_left, d_n_left, sizeof(h_left), cudaMemcpyDeviceToHost, st));
	GH_TRY(cudaStreamSynchronize(st));
	*failed = h_left;
	return GH_OK;
}

/* The copies and the split of an upsize into ns (new view nv). */
gh_status
upsize_into(gh_table *t, const gh_dyc_view &v, const gh_dyc_view &nv, gh_slot *ns)
{
	cudaStream_t st = t->gpu->stream;
	const gh_slot *os = t->gpu->d_slots;
	uint32_t	j = v.n_big;
	uint64_t	half_slots = ((uint64_t) 1 << v.log2) * GH_DYC_B;
	uint64_t	bj = gh_dyc_base(v, j) * GH_DYC_B;

	if (bj > 0)
		GH_TRY(cudaMemcpyAsync(ns, os, bj * sizeof(gh_slot), cudaMemcpyDeviceToDevice, st));
	if (j + 1 < GH_DYC_D)
	{
		uint64_t	from = gh_dyc_base(v, j + 1) * GH_DYC_B;

		GH_TRY(cudaMemcpyAsync(ns + gh_dyc_base(nv, j + 1) * GH_DYC_B, os + from,
							   (gh_dyc_slots(v) - from) * sizeof(gh_slot), cudaMemcpyDeviceToDevice, st));
	}
	split_kernel<<<gh_blocks(half_slots, 256) < 65536 ? gh_blocks(half_slots, 256) : 65536, 256, 0, st>>>(
		v, j, reinterpret_cast<const ulonglong2 *>(os), reinterpret_cast<ulonglong2 *>(ns), bj, half_slots);
	GH_LAUNCHED();
	return GH_OK;
}

/* Doubles the smallest subtable (host_dycuckoo.cpp's host_upsize, here). */
gh_status
gpu_upsize(gh_table *t)
{
	gh_gpu_state *g = t->gpu;
	gh_dyc_view v = t->dyc,
				nv = v;

	if (!gh_dyc_upsize_geometry(&nv))
		return gh_error(GH_ERR_TOO_LARGE, "DyCuckoo table cannot grow beyond %llu slots",
						(unsigned long long) gh_dyc_slots(v));

	uint64_t	os_bytes = gh_dyc_slots(v) * sizeof(gh_slot),
				ns_bytes = gh_dyc_slots(nv) * sizeof(gh_slot);
	gh_slot    *ns = nullptr;

	GH_CHECK(gh_dmalloc(t, (void **) &ns, ns_bytes));

	gh_status	s = upsize_into(t, v, nv, ns);

	if (s != GH_OK)
	{
		gh_dfree(t, ns, ns_bytes);
		return s;
	}
	gh_dfree(t, g->d_slots, os_bytes);	/* stream-ordered after the split */
	g->d_slots = ns;
	nv.slots = ns;
	t->dyc = nv;
	t->n_slots = gh_dyc_slots(nv);
	t->rounds++;
	return GH_OK;
}

/* Static build: one attempt inserts every key into fresh zeroed slots. */
struct dyc_step
{
	gh_table   *t;
	gh_distinct d;
	gh_dscratch n_left;
	size_t		held = 0;		/* bytes of g->d_slots from a failed attempt */

				dyc_step(gh_table *tab, const gh_distinct &keys) :
				t(tab), d(keys), n_left(tab) {}

	gh_status	prepare(const gh_dyc_view &)
	{
		/* no room for handed-back items: a static attempt only counts them */
		GH_CHECK(n_left.alloc(sizeof(unsigned long long)));
		return GH_OK;
	}

	/* a GPU build is short: asked once, before it starts (gh_build) */
	bool		cancelled()
	{
		return false;
	}

	gh_status	attempt(gh_dyc_view &v, gh_attempt_result *res)
	{
		gh_gpu_state *g = t->gpu;
		uint64_t	ns = gh_dyc_slots(v);
		uint64_t	failed = 0;

		if (g->d_slots)
		{
			gh_dfree(t, g->d_slots, held);
			g->d_slots = nullptr;
			held = 0;
		}
		GH_CHECK(gh_dmalloc(t, (void **) &g->d_slots, ns * sizeof(gh_slot)));
		held = ns * sizeof(gh_slot);
		GH_TRY(cudaMemsetAsync(g->d_slots, 0, ns * sizeof(gh_slot), g->stream));
		v.slots = g->d_slots;
		GH_CHECK(run_insert(t, v, d.keys, d.off, d.cnt, nullptr, d.n, nullptr,
							n_left.as<unsigned long long>(), &failed));
		if (failed)
			return GH_OK;		/* out of evictions: a bigger table, new seeds */
		res->placed = true;
		res->rounds = 1;
		res->n_slots = ns;
		return GH_OK;
	}
};

/* The incremental path's GPU step (dycuckoo.h); keys, ranges on the device. */
struct gpu_grow
{
	gh_table   *t;
	const uint64_t *keys;
	const uint32_t *off;
	const uint32_t *cnt;
	uint32_t	n;
	gh_dscratch left,
				left2,
				count;

				gpu_grow(gh_table *tab, const uint64_t *k, const uint32_t *o, const uint32_t *c,
						 uint32_t nk) :
				t(tab), keys(k), off(o), cnt(c), n(nk), left(tab), left2(tab), count(tab) {}

	gh_status	present(uint64_t *p)
	{
		cudaStream_t st = t->gpu->stream;
		unsigned long long h = 0;

		GH_CHECK(count.alloc(sizeof(unsigned long long)));
		GH_TRY(cudaMemsetAsync(count.p, 0, sizeof(unsigned long long), st));
		present_kernel<<<gh_blocks(n, 256), 256, 0, st>>>(t->dyc, keys, n, count.as<unsigned long long>());
		GH_LAUNCHED();
		GH_TRY(cudaMemcpyAsync(&h, count.p, sizeof(h), cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		*p = h;
		return GH_OK;
	}

	gh_status	upsize()
	{
		return gpu_upsize(t);
	}

	gh_status	insert(uint64_t *failed)
	{
		if (!count.p)
			GH_CHECK(count.alloc(sizeof(unsigned long long)));
		GH_CHECK(left.alloc((size_t) n * sizeof(gh_slot)));
		return run_insert(t, t->dyc, keys, off, cnt, nullptr, n, left.as<gh_slot>(),
						  count.as<unsigned long long>(), failed);
	}

	/* the items handed back, from left into left2, which becomes left */
	gh_status	reinsert(uint64_t *failed)
	{
		uint32_t	m = (uint32_t) *failed;

		GH_CHECK(left2.alloc((size_t) m * sizeof(gh_slot)));
		GH_CHECK(run_insert(t, t->dyc, nullptr, nullptr, nullptr, left.as<gh_slot>(), m,
							left2.as<gh_slot>(), count.as<unsigned long long>(), failed));
		std::swap(left.p, left2.p);
		std::swap(left.bytes, left2.bytes);
		return GH_OK;
	}
};

}								/* namespace */

gh_status
gh_gpu_build_dycuckoo(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	dyc_step	step(t, d);

	return gh_build_attempts<gh_dyc_scheme>(t, &t->dyc, step, d.n, seed, lf);
}

gh_status
gh_gpu_lookup_dycuckoo(gh_table *t, cudaStream_t st, const uint64_t *d_keys, size_t n, gh_range *d_ranges,
					   uint32_t *d_counts)
{
	const gh_dyc_view &v = t->dyc;

	return gh_launch_ilp([&](auto p) {
		constexpr int P = decltype(p)::value;

		dyc_lookup_kernel<P><<<gh_probe_grid(n * GH_DYC_B / P), PROBE_THREADS, 0, st>>>(
			v, d_keys, n, d_ranges, d_counts);
	});
}

/* A GPU table's insert of a chunk in host memory: copied over, then as
 * gh_dyc_insert_device (checked and timed by gh_dyc_insert). */
gh_status
gh_gpu_dyc_insert(gh_table *t, const uint64_t *keys, const uint32_t *off, const uint32_t *cnt,
				  uint32_t n, double max_fill)
{
	gh_gpu_state *g = t->gpu;
	gh_dscratch dk(t),
				doff(t),
				dcnt(t);

	GH_TRY(cudaSetDevice(g->ordinal));
	GH_CHECK(dk.alloc((size_t) n * 8));
	GH_CHECK(doff.alloc((size_t) n * 4));
	GH_CHECK(dcnt.alloc((size_t) n * 4));
	if (n > 0)
	{
		GH_TRY(cudaMemcpyAsync(dk.p, keys, (size_t) n * 8, cudaMemcpyHostToDevice, g->stream));
		GH_TRY(cudaMemcpyAsync(doff.p, off, (size_t) n * 4, cudaMemcpyHostToDevice, g->stream));
		GH_TRY(cudaMemcpyAsync(dcnt.p, cnt, (size_t) n * 4, cudaMemcpyHostToDevice, g->stream));
	}

	gpu_grow	step(t, dk.as<uint64_t>(), doff.as<uint32_t>(), dcnt.as<uint32_t>(), n);

	return gh_dyc_grow(t, step, n, max_fill);
}

gh_status
gh_dyc_insert_device(gh_table *t, const uint64_t *d_keys, const uint32_t *d_off,
					 const uint32_t *d_cnt, uint32_t n, double max_fill)
{
	GH_CHECK(gh_dyc_check(t, d_keys, d_off, d_cnt, n, &max_fill));
	if (t->device != GH_DEVICE_GPU)
		return gh_error(GH_ERR_INVALID, "DyCuckoo insert: device keys for a host table");
	GH_TRY(cudaSetDevice(t->gpu->ordinal));

	double		t0 = gh_now_ms();
	gpu_grow	step(t, d_keys, d_off, d_cnt, n);
	gh_status	s = gh_dyc_grow(t, step, n, max_fill);
	double		ms = gh_now_ms() - t0;

	t->stats.build_hash_ms += ms;
	t->stats.build_ms += ms;
	return s;
}
