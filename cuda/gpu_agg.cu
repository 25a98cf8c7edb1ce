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
 *		table is then copied back and its groups sorted and merged on the
 *		host by the code the host twin uses (gh_agg_absorb), so both give
 *		the same group set.
 *
 *		Device memory is taken for the request and given back after it
 *		(the GPU service will keep it between requests).
 */
#include "gpu_common.cuh"
#include "agg_internal.h"
#include "agg_fold.cuh"
#include "page_internal.h"

#include <string.h>

constexpr int AGG_THREADS = 128;
constexpr int AGG_SLOTS_PER_THREAD = (GH_PAGE_MAX_TUPLES + AGG_THREADS - 1) / AGG_THREADS;

namespace
{

/*
 * MAPPED: pages is the buffer pool read in place through its host mapping:
 * volatile loads (__ldcv), not the read-only cache path, as gpu_page.cu's
 * walk does (a page may take a hint bit while it is read).
 */
template <bool MAPPED>
__global__ void __launch_bounds__(AGG_THREADS)
agg_kernel(const gh_page_scan *__restrict__ scan, const gh_agg_prog *__restrict__ agg,
		   const uint8_t *__restrict__ pages, const gh_page_ref *__restrict__ refs,
		   const uint16_t *__restrict__ visible, uint8_t *__restrict__ refused,
		   gh_agg_table t, unsigned long long *__restrict__ counts)
{
	__shared__ __align__(16) uint8_t page[GH_PAGE_SIZE];
	__shared__ int s_refuse,
				s_n,
				s_nitems;
	__shared__ unsigned s_tuples,
				s_passed;
	__shared__ gh_agg_state s_state[AGG_THREADS];

	const uint32_t p = blockIdx.x;
	const gh_page_ref ref = refs[p];
	const uint8_t *src = pages + ref.offset;

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
		s_n = gh_walk_slots(page, ref, &nitems);
		s_nitems = nitems;
		s_refuse = s_n < 0;
	}
	__syncthreads();

	const int	n = s_n,
				nitems = s_nitems;
	gh_pval		cols[GH_PAGE_MAX_ATTS];
	uint64_t	keys[AGG_SLOTS_PER_THREAD];
	uint8_t		nulls[AGG_SLOTS_PER_THREAD];
	bool		pass[AGG_SLOTS_PER_THREAD];
	unsigned	nt = 0,
				np = 0;

#pragma unroll
	for (int k = 0; k < AGG_SLOTS_PER_THREAD; k++)
	{
		int			s = threadIdx.x + k * AGG_THREADS;

		pass[k] = false;
		if (s >= n)
			continue;

		gh_walk_out o;
		int			r = gh_walk_slot(scan, page, nitems, ref, visible, s, cols, &o);

		if (r == GH_WALK_REFUSE)
			s_refuse = 1;
		else if (r == GH_WALK_OK)
		{
			nt++;
			if (o.passed)
			{
				if (!gh_agg_key(agg, cols, page, &keys[k], &nulls[k]))
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

	/*
	 * Fold, a warp at a time: the lanes whose rows fall in one group
	 * (__match_any_sync over the group's slot) fold their rows into states
	 * of their own, the group's lowest lane adds its peers' states to its
	 * own and then the sum to the table with atomics: one set of atomics
	 * per group and warp rather than per row, which is what keeps a few
	 * hot groups from serializing every row on the same words.
	 */
	const int	naggs = agg->naggs,
				lane = threadIdx.x & 31,
				wbase = threadIdx.x & ~31;

#pragma unroll 1
	for (int k = 0; k < AGG_SLOTS_PER_THREAD; k++)
	{
		long long	g = -1;

		if (pass[k])
		{
			gh_walk_out o;

			gh_walk_slot(scan, page, nitems, ref, visible, threadIdx.x + k * AGG_THREADS, cols, &o);
			g = gh_agg_find(t, agg, keys[k], nulls[k]);
		}

		unsigned	peers = __match_any_sync(0xFFFFFFFFu, (unsigned long long) g);
		bool		lead = g >= 0 && lane == __ffs(peers) - 1;

		for (int a = 0; a < naggs; a++)
		{
			const gh_agg_spec &sp = agg->agg[a];
			uint8_t		ty = scan->col[sp.col].type;
			gh_agg_state c;

			gh_agg_state_init(sp, &c);
			if (g >= 0)
				gh_agg_fold<false>(sp, ty, &c, cols, page);
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
}

/* The request's device memory, given back on every path. */
struct dev_mem
{
	void	   *p = nullptr;
	cudaEvent_t ev[3] = {nullptr, nullptr, nullptr};
	~dev_mem()
	{
		if (p)
			cudaFree(p);
		for (cudaEvent_t e : ev)
			if (e)
				cudaEventDestroy(e);
	}
};

size_t
al(size_t x)
{
	return (x + 255) & ~(size_t) 255;
}

}								/* namespace */

gh_status
gh_gpu_page_agg(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
				const gh_page_ref *refs, uint32_t n_pages, const uint8_t *page_data,
				size_t page_data_bytes, const uint16_t *visible, uint32_t n_visible,
				uint8_t *refused, gh_agg_groups *out, gh_agg_stats *stats, bool mapped)
{
	int			ndev = 0;

	GH_TRY(cudaGetDeviceCount(&ndev));
	if (device < 0 || device >= ndev)
		return gh_error(GH_ERR_NO_GPU, "aggregation: no GPU %d", device);
	GH_TRY(cudaSetDevice(device));

	gh_agg_host_table ht;
	int			na = agg->naggs;

	uint64_t	bound = gh_agg_group_bound(refs, n_pages, out->max_groups);

	ht.slots = gh_agg_slots(bound);

	/* the layout of the request in one allocation */
	size_t		o_pages = 0,
				o_refs = o_pages + al(mapped ? 0 : page_data_bytes),
				o_vis = o_refs + al(sizeof(gh_page_ref) * n_pages),
				o_scan = o_vis + al(2 * (size_t) n_visible),
				o_agg = o_scan + al(sizeof(gh_page_scan)),
				o_ref = o_agg + al(sizeof(gh_agg_prog)),
				o_cnt = o_ref + al(n_pages),
				o_ctrl = o_cnt + al(4 * sizeof(unsigned long long)),
				o_keys = o_ctrl + al(4 * ht.slots),
				o_nulls = o_keys + al(8 * ht.slots),
				o_group = o_nulls + al(ht.slots),
				o_st = o_group + al(4 * ht.slots),
				total = o_st + al(sizeof(gh_agg_state) * bound * na);
	dev_mem		m;

	if (cudaMalloc(&m.p, total) != cudaSuccess)
	{
		cudaGetLastError();
		return gh_error(GH_ERR_GPU_MEMORY, "aggregation: %zu bytes of device memory", total);
	}
	for (cudaEvent_t &e : m.ev)
		GH_TRY(cudaEventCreate(&e));

	uint8_t    *d = (uint8_t *) m.p;
	const uint8_t *d_pages = d + o_pages;
	cudaStream_t st = 0;

	if (mapped && n_pages)
	{
		/* the kernel reads the pages where they are, through the mapping */
		void	   *dp = nullptr;

		GH_TRY(cudaHostGetDevicePointer(&dp, const_cast<uint8_t *>(page_data), 0));
		d_pages = (const uint8_t *) dp;
	}

	GH_TRY(cudaEventRecord(m.ev[0], st));
	if (page_data_bytes && !mapped)
		GH_TRY(cudaMemcpyAsync(d + o_pages, page_data, page_data_bytes, cudaMemcpyHostToDevice, st));
	if (n_pages)
		GH_TRY(cudaMemcpyAsync(d + o_refs, refs, sizeof(gh_page_ref) * n_pages,
							   cudaMemcpyHostToDevice, st));
	if (n_visible)
		GH_TRY(cudaMemcpyAsync(d + o_vis, visible, 2 * (size_t) n_visible, cudaMemcpyHostToDevice, st));
	GH_TRY(cudaMemcpyAsync(d + o_scan, scan, sizeof(gh_page_scan), cudaMemcpyHostToDevice, st));
	GH_TRY(cudaMemcpyAsync(d + o_agg, agg, sizeof(gh_agg_prog), cudaMemcpyHostToDevice, st));
	/* counts, slot states: zero is EMPTY; states are initialized on claim */
	GH_TRY(cudaMemsetAsync(d + o_cnt, 0, o_keys - o_cnt, st));
	GH_TRY(cudaEventRecord(m.ev[1], st));

	gh_agg_table t;
	unsigned long long *cnt = (unsigned long long *) (d + o_cnt);

	t.ctrl = (uint32_t *) (d + o_ctrl);
	t.keys = (uint64_t *) (d + o_keys);
	t.nulls = d + o_nulls;
	t.group = (uint32_t *) (d + o_group);
	t.states = (gh_agg_state *) (d + o_st);
	t.mask = ht.slots - 1;
	t.n_groups = cnt + 2;
	t.overflow = (uint32_t *) (cnt + 3);
	t.max_groups = bound;
	t.naggs = na;
	if (n_pages)
	{
		if (mapped)
			agg_kernel<true><<<n_pages, AGG_THREADS, 0, st>>>(
				(const gh_page_scan *) (d + o_scan), (const gh_agg_prog *) (d + o_agg), d_pages,
				(const gh_page_ref *) (d + o_refs), (const uint16_t *) (d + o_vis), d + o_ref, t,
				cnt);
		else
			agg_kernel<false><<<n_pages, AGG_THREADS, 0, st>>>(
				(const gh_page_scan *) (d + o_scan), (const gh_agg_prog *) (d + o_agg), d_pages,
				(const gh_page_ref *) (d + o_refs), (const uint16_t *) (d + o_vis), d + o_ref, t,
				cnt);
		GH_LAUNCHED();
	}
	GH_TRY(cudaEventRecord(m.ev[2], st));

	unsigned long long hc[4];

	GH_TRY(cudaMemcpyAsync(hc, cnt, sizeof(hc), cudaMemcpyDeviceToHost, st));
	if (n_pages)
		GH_TRY(cudaMemcpyAsync(refused, d + o_ref, n_pages, cudaMemcpyDeviceToHost, st));
	GH_TRY(cudaStreamSynchronize(st));

	gh_agg_stats s;

	memset(&s, 0, sizeof(s));
	s.pages = n_pages;
	for (uint32_t p = 0; p < n_pages; p++)
		s.refused += refused[p];
	s.tuples = hc[0];
	s.passed = hc[1];

	float		ms_copy = 0,
				ms_kernel = 0;

	GH_TRY(cudaEventElapsedTime(&ms_copy, m.ev[0], m.ev[1]));
	GH_TRY(cudaEventElapsedTime(&ms_kernel, m.ev[1], m.ev[2]));
	s.kernel_ms = ms_kernel;
	s.copy_ms = ms_copy;
	if (hc[3])
	{
		if (stats)
			*stats = s;
		return gh_error(GH_ERR_OUTPUT_FULL, "aggregation: more than %llu groups in the request",
						(unsigned long long) out->max_groups);
	}

	/* the table back, and the states of the groups it holds */
	double		t0 = gh_now_ms();

	ht.n_groups = hc[2];
	ht.ctrl.resize(ht.slots);
	ht.keys.resize(ht.slots);
	ht.nulls.resize(ht.slots);
	ht.group.resize(ht.slots);
	ht.states.resize(ht.n_groups * na);
	GH_TRY(cudaMemcpy(ht.ctrl.data(), t.ctrl, 4 * ht.slots, cudaMemcpyDeviceToHost));
	GH_TRY(cudaMemcpy(ht.keys.data(), t.keys, 8 * ht.slots, cudaMemcpyDeviceToHost));
	GH_TRY(cudaMemcpy(ht.nulls.data(), t.nulls, ht.slots, cudaMemcpyDeviceToHost));
	GH_TRY(cudaMemcpy(ht.group.data(), t.group, 4 * ht.slots, cudaMemcpyDeviceToHost));
	if (ht.n_groups)
		GH_TRY(cudaMemcpy(ht.states.data(), t.states, sizeof(gh_agg_state) * ht.n_groups * na,
						  cudaMemcpyDeviceToHost));
	s.copy_ms += gh_now_ms() - t0;
	if (stats)
		*stats = s;
	return gh_agg_absorb(ht, scan, agg, out);
}
