/*
 * gpu_agg.cu
 *		Partial aggregation on the GPU: agg_fold.cuh in a kernel with a
 *		block per page (the page staged in shared memory, a thread per
 *		slot) folding into one group table in device memory with atomics,
 *		the rows of one group within a warp gathered first.
 *
 *		Two phases per page, as the host twin: every slot is walked and
 *		its group key made; after the block's barrier a refused page
 *		returns with nothing folded, any other folds its passing rows
 *		(walked again: the walk is a pure function of the page).  The
 *		table's groups are then copied back and sorted and merged on the
 *		host by the code the host twin uses (gh_agg_absorb), so both give
 *		the same group set.
 *
 *		Device memory, pinned staging, a stream and events are each
 *		thread's per GPU, kept between requests (agg_scratch).  The answer
 *		comes back compacted (compact_kernel): the counts, refused flags
 *		and first records in one copy, the rest, if any, in one more.
 */
#include "gpu_common.cuh"
#include "agg_internal.h"
#include "agg_join.cuh"
#include "page_internal.h"

#include <algorithm>
#include <memory>
#include <string.h>
#include <vector>

constexpr int AGG_THREADS = 128;
constexpr int AGG_SLOTS_PER_THREAD = (GH_PAGE_MAX_TUPLES + AGG_THREADS - 1) / AGG_THREADS;

namespace
{

/*
 * Folds each lane's row (group g, -1: none) of a warp: the lanes whose rows
 * fall in one group (__match_any_sync over the group's slot) fold their
 * rows into states of their own, the group's lowest lane adds its peers'
 * states to its own and then the sum to the table with atomics: one set of
 * atomics per group and warp rather than per row, which is what keeps a
 * few hot groups from serializing every row on the same words.  Every lane
 * of the warp calls it.
 */
__device__ void
warp_fold(const gh_page_scan *scan, const gh_agg_prog *agg, gh_agg_table &t, long long g,
		  const gh_pval *cols, const gh_vbase &b, gh_agg_state *s_state)
{
	const int	naggs = agg->naggs,
				lane = threadIdx.x & 31,
				wbase = threadIdx.x & ~31;
	unsigned	peers = __match_any_sync(0xFFFFFFFFu, (unsigned long long) g);
	bool		lead = g >= 0 && lane == __ffs(peers) - 1;

	for (int a = 0; a < naggs; a++)
	{
		const gh_agg_spec &sp = agg->agg[a];
		uint8_t		ty = gh_agg_in_type(scan, agg, sp);
		gh_agg_state c;

		gh_agg_state_init(sp, &c);
		if (g >= 0)
			gh_agg_fold<false>(agg, sp, ty, &c, cols, b);
		s_state[threadIdx.x] = c;
		__syncwarp();
		if (lead)
			for (unsigned m = peers & ~(1u << lane); m; m &= m - 1)
				gh_agg_state_add<false>(sp, ty, &c, s_state[wbase + __ffs(m) - 1]);
		__syncwarp();
		if (lead)
			gh_agg_state_add<true>(sp, ty, &t.states[(uint64_t) g * naggs + a], c);
	}
}

/*
 * MAPPED: pages is the buffer pool read in place through its host mapping:
 * volatile loads (__ldcv), not the read-only cache path, as gpu_page.cu's
 * walk does (a page may take a hint bit while it is read).
 *
 * JOIN: each passing row is joined to dim's rows of its key (agg_join.cuh):
 * the first phase keeps a slot's inner rows (off, cnt) where it kept its
 * group key, the second folds pair m of every lane's row in step m, up to
 * the warp's largest count, lanes past their own count folding nothing, so
 * that every lane takes part in the warp's fold.
 *
 * KW: the group key's words (gh_agg_key<KW>).  A wide key's words are not
 * kept between the phases, which would hold 2 x KW registers per slot of
 * the thread: the first phase packs each to see whether it refuses the page,
 * the second packs it again from the walk it repeats anyway.
 */
template <bool MAPPED, bool JOIN, int KW>
__global__ void __launch_bounds__(AGG_THREADS)
agg_kernel(const gh_page_scan *__restrict__ scan, const gh_agg_prog *__restrict__ agg,
		   const uint8_t *__restrict__ pages, const gh_page_ref *__restrict__ refs,
		   const uint16_t *__restrict__ visible, uint8_t *__restrict__ refused,
		   gh_agg_table t, unsigned long long *__restrict__ counts, gh_dim_view dim, bool lean)
{
	__shared__ __align__(16) uint8_t page[GH_PAGE_SIZE];
	__shared__ int s_refuse,
				s_n,
				s_nitems;
	__shared__ unsigned s_tuples,
				s_passed,
				s_pairs;
	__shared__ gh_agg_state s_state[AGG_THREADS];

	const uint32_t p = blockIdx.x;
	const gh_page_ref ref = refs[p];
	const uint8_t *src = gh_page_src(pages, ref);

	if (((uintptr_t) src & 15) == 0)
		for (int i = threadIdx.x; i < GH_PAGE_SIZE / 16; i += blockDim.x)
			((uint4 *) page)[i] = MAPPED ? __ldcv((const uint4 *) src + i) :
				__ldg((const uint4 *) src + i);
	else
		for (int i = threadIdx.x; i < GH_PAGE_SIZE; i += blockDim.x)
			page[i] = src[i];
	if (threadIdx.x == 0)
	{
		int			nitems;

		s_tuples = 0;
		s_passed = 0;
		s_pairs = 0;
		s_n = gh_walk_slots(page, ref, &nitems);
		s_nitems = nitems;
		s_refuse = s_n < 0;
	}
	__syncthreads();

	const int	n = s_n,
				nitems = s_nitems;
	const gh_vbase b = gh_vbase_of(page, scan->pool, JOIN ? dim.heap : nullptr);
	gh_pval		cols[JOIN ? GH_AGG_INNER_COL0 + GH_AGG_MAX_INNER : GH_PAGE_MAX_ATTS];
	uint64_t	keys[AGG_SLOTS_PER_THREAD];	/* JOIN: the inner rows, off << 32 | cnt */
	uint8_t		nulls[AGG_SLOTS_PER_THREAD];
	bool		pass[AGG_SLOTS_PER_THREAD];
	unsigned	nt = 0,
				np = 0;

#pragma unroll
	for (int k = 0; k < AGG_SLOTS_PER_THREAD; k++)
	{
		int			s = threadIdx.x + k * AGG_THREADS;

		pass[k] = false;
		keys[k] = 0;
		nulls[k] = 0;
		if (s >= n)
			continue;

		gh_walk_out o;
		int			r = gh_walk_slot(scan, page, nitems, ref, visible, s, cols, &o);

		if (r == GH_WALK_REFUSE)
			s_refuse = 1;
		else if (r == GH_WALK_OK)
		{
			nt++;
			if (o.passed && JOIN)
			{
				gh_hit		h = {0, 0};
				bool		some = false;

				/* the pairs that pass are counted as they are folded */
				if (!gh_join_row<KW>(agg, dim, lean, o.null_key, o.key, cols, b, &h, &some))
					s_refuse = 1;
				keys[k] = (uint64_t) h.off << 32 | h.cnt;
				pass[k] = some;
			}
			else if (o.passed)
			{
				uint64_t	wk[KW];

				if (!gh_agg_row<KW>(agg, cols, b, KW > 1 ? wk : &keys[k], &nulls[k]))
					s_refuse = 1;
				pass[k] = true;
				np++;
			}
		}
	}
	if (nt)
		atomicAdd(&s_tuples, nt);
	if (np)
		atomicAdd(&s_passed, np);
	__syncthreads();
	if (s_refuse)
	{
		if (threadIdx.x == 0)
			refused[p] = 1;
		return;
	}
	if (threadIdx.x == 0)
	{
		refused[p] = 0;
		if (s_tuples)
			atomicAdd(&counts[0], (unsigned long long) s_tuples);
		if (s_passed)
			atomicAdd(&counts[1], (unsigned long long) s_passed);
	}

	unsigned	npairs = 0;

#pragma unroll 1
	for (int k = 0; k < AGG_SLOTS_PER_THREAD; k++)
	{
		if (pass[k])
		{
			gh_walk_out o;

			gh_walk_slot(scan, page, nitems, ref, visible, threadIdx.x + k * AGG_THREADS, cols, &o);
		}
		if (!JOIN && KW > 1)
		{
			long long	g = -1;

			if (pass[k])
			{
				uint64_t	wk[KW];
				uint8_t		nm = 0;

				gh_agg_key<KW>(agg, cols, b, wk, &nm);
				g = gh_agg_find<KW>(t, agg, wk, nm);
			}
			warp_fold(scan, agg, t, g, cols, b, s_state);
			continue;
		}
		if (!JOIN)
		{
			warp_fold(scan, agg, t, pass[k] ? gh_agg_find<1>(t, agg, &keys[k], nulls[k]) : -1,
					  cols, b, s_state);
			continue;
		}

		/* pair m of each lane's row in step m; most rows have 0 or 1 */
		uint32_t	cnt = pass[k] ? (uint32_t) keys[k] : 0,
					off = (uint32_t) (keys[k] >> 32),
					steps = __reduce_max_sync(0xFFFFFFFFu, cnt);

#pragma unroll 1
		for (uint32_t m = 0; m < steps; m++)
		{
			long long	g = -1;

			if (m < cnt && gh_join_pair(agg, dim, off + m, cols, b) == GH_QUAL_PASS)
			{
				uint64_t	key[KW];
				uint8_t		nm = 0;

				npairs++;
				gh_dim_mark(agg, dim, off + m);
				gh_agg_key<KW>(agg, cols, b, key, &nm);
				g = gh_agg_find<KW>(t, agg, key, nm);
			}
			warp_fold(scan, agg, t, g, cols, b, s_state);
		}
	}
	if (JOIN)
	{
		if (npairs)
			atomicAdd(&s_pairs, npairs);
		__syncthreads();
		if (threadIdx.x == 0 && s_pairs)
			atomicAdd(&counts[1], (unsigned long long) s_pairs);
	}
}


/*
 * agg_kernel's JOIN over a star (gh_agg_prog.star): the first phase keeps
 * each slot's combination count, the second looks its dimensions up again
 * and folds combination m of every lane's row in step m (dimension 0's row
 * varying fastest), up to the warp's largest count, as the pairs of one
 * dimension are folded.
 */
template <bool MAPPED, int KW>
__global__ void __launch_bounds__(AGG_THREADS)
agg_star_kernel(const gh_page_scan *__restrict__ scan, const gh_agg_prog *__restrict__ agg,
				const uint8_t *__restrict__ pages, const gh_page_ref *__restrict__ refs,
				const uint16_t *__restrict__ visible, uint8_t *__restrict__ refused,
				gh_agg_table t, unsigned long long *__restrict__ counts, gh_star_view sv,
				bool lean)
{
	__shared__ __align__(16) uint8_t page[GH_PAGE_SIZE];
	__shared__ int s_refuse,
				s_n,
				s_nitems;
	__shared__ unsigned s_tuples,
				s_pairs;
	__shared__ gh_agg_state s_state[AGG_THREADS];

	const uint32_t p = blockIdx.x;
	const gh_page_ref ref = refs[p];
	const uint8_t *src = gh_page_src(pages, ref);

	if (((uintptr_t) src & 15) == 0)
		for (int i = threadIdx.x; i < GH_PAGE_SIZE / 16; i += blockDim.x)
			((uint4 *) page)[i] = MAPPED ? __ldcv((const uint4 *) src + i) :
				__ldg((const uint4 *) src + i);
	else
		for (int i = threadIdx.x; i < GH_PAGE_SIZE; i += blockDim.x)
			page[i] = src[i];
	if (threadIdx.x == 0)
	{
		int			nitems;

		s_tuples = 0;
		s_pairs = 0;
		s_n = gh_walk_slots(page, ref, &nitems);
		s_nitems = nitems;
		s_refuse = s_n < 0;
	}
	__syncthreads();

	const int	n = s_n,
				nitems = s_nitems;
	gh_vbase	b = gh_vbase_of(page, scan->pool);

	gh_star_bases(sv, &b);

	gh_pval		cols[GH_AGG_INNER_COL0 + GH_AGG_MAX_INNER];
	uint64_t	combos[AGG_SLOTS_PER_THREAD];
	unsigned	nt = 0;

#pragma unroll
	for (int k = 0; k < AGG_SLOTS_PER_THREAD; k++)
	{
		int			s = threadIdx.x + k * AGG_THREADS;

		combos[k] = 0;
		if (s >= n)
			continue;

		gh_walk_out o;
		int			r = gh_walk_slot(scan, page, nitems, ref, visible, s, cols, &o);

		if (r == GH_WALK_REFUSE)
			s_refuse = 1;
		else if (r == GH_WALK_OK)
		{
			gh_hit		hits[GH_AGG_MAX_DIMS];
			uint64_t	nc = 0;
			bool		some = false;

			nt++;
			if (o.passed && !gh_star_row<KW>(agg, sv, lean, cols, b, hits, &nc, &some))
				s_refuse = 1;
			combos[k] = some ? nc : 0;
		}
	}
	if (nt)
		atomicAdd(&s_tuples, nt);
	__syncthreads();
	if (s_refuse)
	{
		if (threadIdx.x == 0)
			refused[p] = 1;
		return;
	}
	if (threadIdx.x == 0)
	{
		refused[p] = 0;
		if (s_tuples)
			atomicAdd(&counts[0], (unsigned long long) s_tuples);
	}

	unsigned	npairs = 0;

#pragma unroll 1
	for (int k = 0; k < AGG_SLOTS_PER_THREAD; k++)
	{
		gh_hit		hits[GH_AGG_MAX_DIMS];
		uint64_t	cnt = combos[k];

		if (cnt > 0)
		{
			gh_walk_out o;

			gh_walk_slot(scan, page, nitems, ref, visible, threadIdx.x + k * AGG_THREADS, cols, &o);
			cnt = gh_star_lookup(agg, sv, cols, hits);
		}

		unsigned long long steps = cnt;

		/* the warp's largest count (no 64-bit __reduce_max_sync) */
		for (int off = 16; off > 0; off /= 2)
		{
			unsigned long long o = __shfl_xor_sync(0xFFFFFFFFu, steps, off);

			steps = o > steps ? o : steps;
		}
#pragma unroll 1
		for (unsigned long long m = 0; m < steps; m++)
		{
			long long	g = -1;

			if (m < cnt && gh_star_combo(agg, sv, hits, m, cols, b) == GH_QUAL_PASS)
			{
				uint64_t	key[KW];
				uint8_t		nm = 0;

				npairs++;
				gh_agg_key<KW>(agg, cols, b, key, &nm);
				g = gh_agg_find<KW>(t, agg, key, nm);
			}
			warp_fold(scan, agg, t, g, cols, b, s_state);
		}
	}
	if (npairs)
		atomicAdd(&s_pairs, npairs);
	__syncthreads();
	if (threadIdx.x == 0 && s_pairs)
		atomicAdd(&counts[1], (unsigned long long) s_pairs);
}

/*
 * The answer's groups, compacted: for each claimed slot its group's record
 * at the group's index (indices are dense, 0 .. n_groups - 1, in claim
 * order), so that the host copies back n_groups records rather than the
 * whole table.  A record: the key (kw words), the null mask (1 byte; the
 * head padded to 16: gh_agg_rec_head), then the group's naggs states.
 */
__global__ void
compact_kernel(gh_agg_table t, uint8_t *__restrict__ rec, size_t rec_bytes, int kw)
{
	for (uint64_t h = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; h <= t.mask;
		 h += (uint64_t) gridDim.x * blockDim.x)
	{
		if (t.ctrl[h] != GH_AGG_SLOT_READY || t.group[h] == UINT32_MAX)
			continue;

		uint64_t	g = t.group[h];
		uint8_t    *r = rec + g * rec_bytes;
		gh_agg_state *st = (gh_agg_state *) (r + gh_agg_rec_head(kw));

		for (int j = 0; j < kw; j++)
			((uint64_t *) r)[j] = t.keys[h * kw + j];
		r[8 * kw] = t.nulls[h];
		for (int a = 0; a < t.naggs; a++)
			st[a] = t.states[g * t.naggs + a];
	}
}

/* agg_kernel's instance for the request: in place or copied, joined or not. */
template <int KW>
void
launch(bool mapped, bool join, uint32_t n_pages, cudaStream_t st, const gh_page_scan *scan,
	   const gh_agg_prog *agg, const uint8_t *pages, const gh_page_ref *refs,
	   const uint16_t *vis, uint8_t *refused, gh_agg_table t, unsigned long long *cnt,
	   gh_dim_view dv, bool lean)
{
	if (mapped && join)
		agg_kernel<true, true, KW><<<n_pages, AGG_THREADS, 0, st>>>(scan, agg, pages, refs, vis,
																   refused, t, cnt, dv, lean);
	else if (mapped)
		agg_kernel<true, false, KW><<<n_pages, AGG_THREADS, 0, st>>>(scan, agg, pages, refs, vis,
																	refused, t, cnt, dv, lean);
	else if (join)
		agg_kernel<false, true, KW><<<n_pages, AGG_THREADS, 0, st>>>(scan, agg, pages, refs, vis,
																	refused, t, cnt, dv, lean);
	else
		agg_kernel<false, false, KW><<<n_pages, AGG_THREADS, 0, st>>>(scan, agg, pages, refs, vis,
																	 refused, t, cnt, dv, lean);
}

/* agg_star_kernel's instance for the request: in place or copied. */
template <int KW>
void
launch_star(bool mapped, uint32_t n_pages, cudaStream_t st, const gh_page_scan *scan,
			const gh_agg_prog *agg, const uint8_t *pages, const gh_page_ref *refs,
			const uint16_t *vis, uint8_t *refused, gh_agg_table t, unsigned long long *cnt,
			const gh_star_view &sv, bool lean)
{
	if (mapped)
		agg_star_kernel<true, KW><<<n_pages, AGG_THREADS, 0, st>>>(scan, agg, pages, refs, vis,
																   refused, t, cnt, sv, lean);
	else
		agg_star_kernel<false, KW><<<n_pages, AGG_THREADS, 0, st>>>(scan, agg, pages, refs, vis,
																	refused, t, cnt, sv, lean);
}

/*
 * One thread's device memory, pinned host staging, stream and events on
 * one GPU, kept between requests (the GPU service folds requests on
 * several threads at once, each with its own): grown when a request needs
 * more, given back at the thread's end or after a failed request.
 */
struct agg_scratch
{
	int			dev = -1;
	void	   *d = nullptr;
	size_t		d_bytes = 0;
	void	   *h = nullptr;		/* pinned: the request's small inputs, the answer's head */
	size_t		h_bytes = 0;
	cudaStream_t st = nullptr;
	cudaEvent_t ev[3] = {nullptr, nullptr, nullptr};

	/* errors ignored: this runs after failures and at the thread's end */
	void release()
	{
		if (dev < 0)
			return;
		cudaSetDevice(dev);
		if (st)
			cudaStreamSynchronize(st);
		if (d)
			cudaFree(d);
		if (h)
			cudaFreeHost(h);
		for (cudaEvent_t &e : ev)
		{
			if (e)
				cudaEventDestroy(e);
			e = nullptr;
		}
		if (st)
			cudaStreamDestroy(st);
		cudaGetLastError();
		d = h = nullptr;
		d_bytes = h_bytes = 0;
		st = nullptr;
	}
	~agg_scratch()
	{
		release();
	}
};

/* This thread's scratch for device dev (the current device). */
gh_status
scratch_of(int dev, agg_scratch **out)
{
	static thread_local std::vector<std::unique_ptr<agg_scratch>> per_dev;

	if ((size_t) dev >= per_dev.size())
		per_dev.resize(dev + 1);
	if (!per_dev[dev])
		per_dev[dev].reset(new agg_scratch());

	agg_scratch *s = per_dev[dev].get();

	if (s->st == nullptr)
	{
		s->dev = dev;
		GH_TRY(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
		for (cudaEvent_t &e : s->ev)
			GH_TRY(cudaEventCreate(&e));
	}
	*out = s;
	return GH_OK;
}

/* Grows s to d_bytes of device memory and h_bytes of pinned host memory. */
gh_status
reserve(agg_scratch *s, size_t d_bytes, size_t h_bytes)
{
	/* the stream is idle between requests: the old memory may go */
	if (d_bytes > s->d_bytes)
	{
		size_t		want = d_bytes + d_bytes / 4;

		if (s->d)
			GH_TRY(cudaFree(s->d));
		s->d = nullptr;
		s->d_bytes = 0;
		if (cudaMalloc(&s->d, want) != cudaSuccess)
		{
			cudaGetLastError();
			s->d = nullptr;
			return gh_error(GH_ERR_GPU_MEMORY, "aggregation: %zu bytes of device memory", want);
		}
		s->d_bytes = want;
	}
	if (h_bytes > s->h_bytes)
	{
		size_t		want = h_bytes + h_bytes / 4;

		if (s->h)
			GH_TRY(cudaFreeHost(s->h));
		s->h = nullptr;
		s->h_bytes = 0;
		if (cudaHostAlloc(&s->h, want, cudaHostAllocPortable) != cudaSuccess)
		{
			cudaGetLastError();
			s->h = nullptr;
			return gh_error(GH_ERR_HOST_MEMORY, "aggregation: %zu bytes of pinned memory", want);
		}
		s->h_bytes = want;
	}
	return GH_OK;
}

/*
 * The request on s: inputs in with one copy (and the pages, unless
 * mapped), the fold and the compaction, then the answer's head (counts,
 * refused flags, the first records) back in one copy and one wait, the
 * rest of the records, if any, in a second.
 */
gh_status
fold(agg_scratch *s, const gh_page_scan *scan, const gh_agg_prog *agg, const gh_agg_dim *dim,
	 const gh_page_ref *refs, uint32_t n_pages, const uint8_t *page_data, size_t page_data_bytes,
	 const uint16_t *visible, uint32_t n_visible, uint8_t *refused, gh_agg_groups *out,
	 gh_agg_stats *stats, bool mapped)
{
	int			na = agg->naggs,
				kw = gh_agg_key_words(agg);
	uint64_t	bound = gh_agg_group_bound(refs, n_pages, out->max_groups,
										   dim ? dim->max_dup : 1);
	gh_agg_fold_layout l;

	/* the layout the budget sizes requests by (host_agg.cpp) */
	gh_agg_fold_lay(n_pages, n_visible, bound, na, kw, mapped ? 0 : page_data_bytes, &l);
	GH_CHECK(reserve(s, l.total, l.in_bytes + l.head_bytes));

	uint8_t    *d = (uint8_t *) s->d,
			   *h = (uint8_t *) s->h;
	const uint8_t *d_pages = d + l.o_pages;
	cudaStream_t st = s->st;

	if (mapped && n_pages && page_data)
	{
		/* the kernel reads the pages where they are, through the mapping */
		void	   *dp = nullptr;

		GH_TRY(cudaHostGetDevicePointer(&dp, const_cast<uint8_t *>(page_data), 0));
		d_pages = (const uint8_t *) dp;
	}
	else if (mapped && !page_data)
		d_pages = nullptr;		/* by address: each ref says where its page lies */
	memcpy(h + l.i_scan, scan, sizeof(gh_page_scan));
	memcpy(h + l.i_agg, agg, sizeof(gh_agg_prog));
	if (n_pages)
		memcpy(h + l.i_refs, refs, sizeof(gh_page_ref) * n_pages);
	if (n_visible)
		memcpy(h + l.i_vis, visible, 2 * (size_t) n_visible);

	GH_TRY(cudaEventRecord(s->ev[0], st));
	GH_TRY(cudaMemcpyAsync(d, h, l.in_bytes, cudaMemcpyHostToDevice, st));
	if (page_data_bytes && !mapped)
		GH_TRY(cudaMemcpyAsync(d + l.o_pages, page_data, page_data_bytes, cudaMemcpyHostToDevice, st));
	/* counts and slot states: zero is EMPTY; states are initialized on claim */
	GH_TRY(cudaMemsetAsync(d + l.o_cnt, 0, 4 * sizeof(unsigned long long), st));
	GH_TRY(cudaMemsetAsync(d + l.o_ctrl, 0, 4 * l.slots, st));
	GH_TRY(cudaEventRecord(s->ev[1], st));

	gh_agg_table t;
	unsigned long long *cnt = (unsigned long long *) (d + l.o_cnt);

	t.ctrl = (uint32_t *) (d + l.o_ctrl);
	t.keys = (uint64_t *) (d + l.o_keys);
	t.nulls = d + l.o_nulls;
	t.group = (uint32_t *) (d + l.o_group);
	t.states = (gh_agg_state *) (d + l.o_st);
	t.mask = l.slots - 1;
	t.n_groups = cnt + 2;
	t.overflow = (uint32_t *) (cnt + 3);
	t.max_groups = bound;
	t.naggs = na;
	if (n_pages)
	{
		const gh_page_scan *d_scan = (const gh_page_scan *) (d + l.i_scan);
		const gh_agg_prog *d_agg = (const gh_agg_prog *) (d + l.i_agg);
		const gh_page_ref *d_refs = (const gh_page_ref *) (d + l.i_refs);
		const uint16_t *d_vis = (const uint16_t *) (d + l.i_vis);

		gh_dim_view dv;

		if (dim)
			dv = dim->view;
		else
			memset(&dv, 0, sizeof(dv));

		const bool	lean = dim && !gh_join_may_refuse(agg, dv);

		if (dim && dim->nparts > 0)
		{
			const bool	slean = !gh_star_may_refuse(agg, dim->star);

			gh_agg_by_kw(kw, [&](auto k) {
				launch_star<decltype(k)::value>(mapped, n_pages, st, d_scan, d_agg, d_pages,
												d_refs, d_vis, d + l.o_ref, t, cnt, dim->star,
												slean);
			});
		}
		else
			gh_agg_by_kw(kw, [&](auto k) {
				launch<decltype(k)::value>(mapped, dim != nullptr, n_pages, st, d_scan, d_agg,
										   d_pages, d_refs, d_vis, d + l.o_ref, t, cnt, dv, lean);
			});
		GH_LAUNCHED();
		compact_kernel<<<std::min(gh_blocks(l.slots, 256), 1024u), 256, 0, st>>>(t, d + l.o_rec, l.rec, kw);
		GH_LAUNCHED();
	}
	GH_TRY(cudaEventRecord(s->ev[2], st));

	/* the answer's head: counts, refused flags, the first records */
	GH_TRY(cudaMemcpyAsync(h + l.o_cnt, d + l.o_cnt, l.head_bytes, cudaMemcpyDeviceToHost, st));
	GH_TRY(cudaStreamSynchronize(st));

	unsigned long long hc[4];
	gh_agg_stats gs;

	memcpy(hc, h + l.o_cnt, sizeof(hc));
	if (n_pages)
		memcpy(refused, h + l.o_ref, n_pages);
	memset(&gs, 0, sizeof(gs));
	gs.pages = n_pages;
	for (uint32_t p = 0; p < n_pages; p++)
		gs.refused += refused[p];
	gs.tuples = hc[0];
	gs.passed = hc[1];

	float		ms_copy = 0,
				ms_kernel = 0;

	GH_TRY(cudaEventElapsedTime(&ms_copy, s->ev[0], s->ev[1]));
	GH_TRY(cudaEventElapsedTime(&ms_kernel, s->ev[1], s->ev[2]));
	gs.kernel_ms = ms_kernel;
	gs.copy_ms = ms_copy;
	if (hc[3] || hc[2] > bound)
	{
		if (stats)
			*stats = gs;
		return gh_error(GH_ERR_OUTPUT_FULL, "aggregation: more than %llu groups in the request",
						(unsigned long long) out->max_groups);
	}

	/* the rest of the records, when there are more than the head held */
	double		t0 = gh_now_ms();
	uint64_t	n = hc[2];
	std::vector<uint8_t> rest;
	const uint8_t *recs = h + l.o_rec;

	if (n > l.first)
	{
		rest.resize(n * l.rec);
		memcpy(rest.data(), h + l.o_rec, l.first * l.rec);
		GH_TRY(cudaMemcpyAsync(rest.data() + l.first * l.rec, d + l.o_rec + l.first * l.rec,
							   (n - l.first) * l.rec, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		recs = rest.data();
	}

	/* the records as a table of n slots, each its own group, for gh_agg_absorb */
	gh_agg_host_table ht;

	ht.slots = n;
	ht.n_groups = n;
	ht.ctrl.assign(n, GH_AGG_SLOT_READY);
	ht.keys.resize(n * kw);
	ht.nulls.resize(n);
	ht.group.resize(n);
	ht.states.resize(n * na);
	for (uint64_t g = 0; g < n; g++)
	{
		const uint8_t *r = recs + g * l.rec;

		memcpy(&ht.keys[g * kw], r, sizeof(uint64_t) * kw);
		ht.nulls[g] = r[8 * kw];
		ht.group[g] = (uint32_t) g;
		memcpy(&ht.states[g * na], r + gh_agg_rec_head(kw), sizeof(gh_agg_state) * na);
	}
	gs.copy_ms += gh_now_ms() - t0;
	if (stats)
		*stats = gs;
	return gh_agg_absorb(ht, scan, agg, out);
}

}								/* namespace */

gh_status
gh_gpu_page_agg(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
				const gh_agg_dim *dim, const gh_page_ref *refs, uint32_t n_pages,
				const uint8_t *page_data,
				size_t page_data_bytes, const uint16_t *visible, uint32_t n_visible,
				uint8_t *refused, gh_agg_groups *out, gh_agg_stats *stats, bool mapped)
{
	int			ndev = 0;
	agg_scratch *s = nullptr;

	GH_TRY(cudaGetDeviceCount(&ndev));
	if (device < 0 || device >= ndev)
		return gh_error(GH_ERR_NO_GPU, "aggregation: no GPU %d", device);
	GH_TRY(cudaSetDevice(device));

	gh_status	st = scratch_of(device, &s);

	if (st == GH_OK)
		st = fold(s, scan, agg, dim, refs, n_pages, page_data, page_data_bytes, visible, n_visible,
				  refused, out, stats, mapped);
	if (st != GH_OK && st != GH_ERR_OUTPUT_FULL && s != nullptr)
	{
		/* nothing of a failed request stays in flight or held */
		s->release();
	}
	return st;
}
