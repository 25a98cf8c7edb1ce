/*
 * gpu_page.cu
 *		The page walk on the GPU: page_walk.cuh in a kernel with a block per
 *		page (the page staged in shared memory, a thread per slot), the
 *		passing rows compacted in (page, slot) order by CUB's
 *		DeviceSelect::Flagged, their keys probed by the scheme's own lookup
 *		(gh_gpu_lookup_on), and in GH_PAGE_MATCHES mode the rows without
 *		inner rows dropped by a second selection.  Stable selections over
 *		slot order give the host twin's output exactly, order included.
 *
 *		A refused page: any of its slots refusing sets the block's flag,
 *		and after the block's barrier every slot of the page is cleared,
 *		so none of its rows is selected.
 *
 *		Device scratch (the request's copies, per-slot arrays, the events)
 *		is the table's: grown on demand within its budget, freed with the
 *		table (gh_gpu_free) or after a failed walk.  A walk of
 *		gh_page_probe* uses the table's stream and scratch, so walks on one
 *		table take turns; a lane (gh_page_lane_take) is a stream, a
 *		scratch and events of its own, so that walks on one table from
 *		several threads overlap: the link reads one request's pages while
 *		another's kernels and copies run.  The lookups only read the table.
 */
#include "gpu_common.cuh"
#include "page_internal.h"
#include "page_walk.cuh"
#include "lane.cuh"

#include <algorithm>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/transform_iterator.h>

constexpr int PAGE_THREADS = 128;

/*
 * The table's page-walk scratch (gh_gpu_state.page): the one gh_page_probe*
 * uses on the table's stream, and the lanes, free ones listed.  The lanes
 * are taken and given back under the caller's lock on the table.
 */
struct gh_page_gpu
{
	void	   *d = nullptr;
	size_t		bytes = 0;
	cudaEvent_t ev[4] = {nullptr, nullptr, nullptr, nullptr};
	gh_page_lane *free_lanes = nullptr;
	int			n_lanes = 0;	/* made, free or taken */
	size_t		chain_want = 0;	/* the most scratch a chain probe on a lane
								 * asked for */
};

namespace
{

/*
 * Copies pages into the page store before a walk reads them there: a
 * block a page, 16-byte loads from where it lies (mapped host memory,
 * volatile as the walk's own loads) and stores to the store.
 */
__global__ void
fill_pages_kernel(const gh_page_fill *__restrict__ fills)
{
	const gh_page_fill f = fills[blockIdx.x];
	const uint4 *src = (const uint4 *) (uintptr_t) f.src;
	uint4	   *dst = (uint4 *) (uintptr_t) f.dst;

	for (int i = threadIdx.x; i < GH_PAGE_SIZE / 16; i += blockDim.x)
		dst[i] = __ldcv(src + i);
}

/* Slot states in the per-slot array. */
enum
{
	SLOT_NONE = 0,				/* no tuple, or its page refused */
	SLOT_FAILED,				/* walked, failed the quals */
	SLOT_PASSED
};

struct passed_flag
{
	__host__ __device__ bool operator() (uint8_t s) const
	{
		return s == SLOT_PASSED;
	}
};

/*
 * MAPPED: pages is registered host memory mapped into the device (the
 * buffer pool read in place).  Loads marked volatile (__ldcv) then, not
 * the read-only cache path that a const __restrict__ pointer invites: a
 * page may take a hint bit while the kernel reads it (never in what the
 * walk reads, ARCHITECTURE.md), so it is not read-only data.
 */
template <bool MAPPED>
__global__ void __launch_bounds__(PAGE_THREADS)
walk_kernel(const gh_page_scan *__restrict__ scan, const uint8_t *__restrict__ pages,
			const gh_page_ref *__restrict__ refs, const uint16_t *__restrict__ visible,
			uint8_t *__restrict__ state, gh_page_match *__restrict__ cand,
			uint64_t *__restrict__ keys, uint8_t *__restrict__ refused,
			unsigned long long *__restrict__ counts)
{
	__shared__ __align__(16) uint8_t page[GH_PAGE_SIZE];
	__shared__ int s_refuse,
				s_n,
				s_nitems;
	__shared__ unsigned s_tuples,
				s_passed;

	const uint32_t p = blockIdx.x;
	const gh_page_ref ref = refs[p];
	const uint8_t *src = gh_page_src(pages, ref);
	const uint64_t base = (uint64_t) p * GH_PAGE_SLOTS;

	/* stage the page: 16-byte loads when it lies so, else bytes */
	if (((uintptr_t) src & 15) == 0)
		for (int i = threadIdx.x; i < GH_PAGE_SIZE / 16; i += blockDim.x)
			((uint4 *) page)[i] = MAPPED ? __ldcv((const uint4 *) src + i) :
				__ldg((const uint4 *) src + i);
	else
		for (int i = threadIdx.x; i < GH_PAGE_SIZE; i += blockDim.x)
			page[i] = src[i];
	if (threadIdx.x == 0)
	{
		s_tuples = 0;
		s_passed = 0;
	}
	__syncthreads();
	if (threadIdx.x == 0)
	{
		int			nitems;

		s_n = gh_walk_slots(page, ref, &nitems);
		s_nitems = nitems;
		s_refuse = s_n < 0;
	}
	__syncthreads();

	const int	n = s_n,
				nitems = s_nitems;
	unsigned	nt = 0,
				np = 0;
	gh_pval		cols[GH_PAGE_MAX_ATTS];

	for (int s = threadIdx.x; s < GH_PAGE_SLOTS; s += blockDim.x)
	{
		uint8_t		st = SLOT_NONE;

		if (s < n)
		{
			gh_walk_out o;
			int			r = gh_walk_slot(scan, page, nitems, ref, visible, s, cols, &o);

			if (r == GH_WALK_REFUSE)
				s_refuse = 1;
			else if (r == GH_WALK_OK)
			{
				gh_page_match m;

				nt++;
				st = o.passed ? SLOT_PASSED : SLOT_FAILED;
				np += o.passed;
				m.page = p;
				m.lp = o.lp;
				m.flags = o.null_key ? GH_PM_NULL_KEY : 0;
				m.range.offset = 0;
				m.range.count = 0;
				cand[base + s] = m;
				keys[base + s] = o.key;
			}
		}
		state[base + s] = st;
	}
	__syncthreads();
	if (s_refuse)
	{
		for (int s = threadIdx.x; s < GH_PAGE_SLOTS; s += blockDim.x)
			state[base + s] = SLOT_NONE;
		if (threadIdx.x == 0)
			refused[p] = 1;
		return;
	}
	if (nt)
		atomicAdd(&s_tuples, nt);
	if (np)
		atomicAdd(&s_passed, np);
	__syncthreads();
	if (threadIdx.x == 0)
	{
		refused[p] = 0;
		if (s_tuples)
			atomicAdd(&counts[0], (unsigned long long) s_tuples);
		if (s_passed)
			atomicAdd(&counts[1], (unsigned long long) s_passed);
	}
}

/*
 * The probe's answer into each selected row: no inner rows for a NULL key
 * (and offset 0 with count 0, as the host twin writes), and whether the
 * row is kept.
 */
__global__ void
fill_kernel(gh_page_match *__restrict__ rows, const gh_range *__restrict__ ranges, uint32_t n,
			uint32_t mode, uint8_t *__restrict__ keep)
{
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
	{
		gh_page_match m = rows[i];
		gh_range	r = ranges[i];

		if ((m.flags & GH_PM_NULL_KEY) || r.count == 0)
		{
			r.offset = 0;
			r.count = 0;
		}
		m.range = r;
		rows[i] = m;
		keep[i] = mode == GH_PAGE_ALL_ROWS || r.count > 0;
	}
}

/* Where each array of a request lies in the scratch. */
struct layout
{
	size_t		pages,
				refs,
				vis,
				scan,
				refused,
				counts,
				nsel,
				state,
				cand,
				keys,
				sel,
				sel_keys,
				ranges,
				fills,
				total;
};

layout
plan(size_t page_bytes, uint32_t n_pages, uint32_t n_visible)
{
	layout		l;
	size_t		slots = (size_t) n_pages * GH_PAGE_SLOTS,
				at = 0;
	auto		put = [&](size_t bytes) {
		size_t		o = at;

		at = gh_align256(at + bytes);
		return o;
	};

	l.pages = put(page_bytes);
	l.refs = put(n_pages * sizeof(gh_page_ref));
	l.vis = put((size_t) n_visible * 2);
	l.scan = put(sizeof(gh_page_scan));
	l.refused = put(n_pages);
	l.counts = put(2 * sizeof(unsigned long long));
	l.nsel = put(2 * sizeof(int));
	l.state = put(slots);
	l.cand = put(slots * sizeof(gh_page_match));
	l.keys = put(slots * 8);
	l.sel = put(slots * sizeof(gh_page_match));
	l.sel_keys = put(slots * 8);
	l.ranges = put(slots * sizeof(gh_range));
	l.fills = put(n_pages * sizeof(gh_page_fill));
	l.total = at;
	return l;
}

/* Where a walk runs: a stream, its scratch (plan's layout) and CUB's, events. */
struct walk_ctx
{
	cudaStream_t st;
	uint8_t    *d;
	void	   *cub;
	size_t		cub_bytes;
	cudaEvent_t *ev;
};

/* CUB's scratch for the selections over slots rows, the largest of the three. */
gh_status
cub_need(size_t slots, size_t *bytes)
{
	size_t		a = 0,
				b = 0,
				c = 0;
	auto		flags = thrust::make_transform_iterator((const uint8_t *) nullptr, passed_flag());

	GH_TRY(cub::DeviceSelect::Flagged(nullptr, a, (const gh_page_match *) nullptr, flags,
									  (gh_page_match *) nullptr, (int *) nullptr, (int) slots));
	GH_TRY(cub::DeviceSelect::Flagged(nullptr, b, (const uint64_t *) nullptr, flags,
									  (uint64_t *) nullptr, (int *) nullptr, (int) slots));
	GH_TRY(cub::DeviceSelect::Flagged(nullptr, c, (const gh_page_match *) nullptr,
									  (const uint8_t *) nullptr, (gh_page_match *) nullptr,
									  (int *) nullptr, (int) slots));
	*bytes = std::max(a, std::max(b, c));
	return GH_OK;
}

gh_status
make_events(cudaEvent_t ev[4])
{
	for (int i = 0; i < 4; i++)
		GH_TRY(cudaEventCreate(&ev[i]));
	return GH_OK;
}

void
drop_events(cudaEvent_t ev[4])
{
	for (int i = 0; i < 4; i++)
		if (ev[i])
			cudaEventDestroy(ev[i]);
}

/* The table's page-walk state, made on first use. */
gh_status
page_state(gh_table *t, gh_page_gpu **out)
{
	gh_gpu_state *g = t->gpu;

	if (!g->page)
	{
		g->page = new (std::nothrow) gh_page_gpu;
		if (!g->page)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for the page walk");
		GH_CHECK(make_events(g->page->ev));
	}
	*out = g->page;
	return GH_OK;
}

/* The table's own scratch, at least bytes of it, and its events. */
gh_status
reserve(gh_table *t, size_t bytes, gh_page_gpu **out)
{
	gh_page_gpu *pg;

	GH_CHECK(page_state(t, &pg));
	GH_CHECK(gh_dgrow(t, &pg->d, &pg->bytes, bytes));
	*out = pg;
	return GH_OK;
}

/*
 * The walk of one request on c, its scratch already as large as plan says
 * and CUB's as cub_need says.  Reads the table, writes only c's memory and
 * the caller's: the table's figures are the caller's to add.
 */
gh_status
walk(gh_table *t, const walk_ctx &c, const gh_page_scan *scan, const gh_page_ref *refs,
	 uint32_t n_pages, const uint8_t *page_data, size_t page_data_bytes,
	 const uint16_t *visible, uint32_t n_visible, gh_page_match *out, size_t capacity,
	 size_t *n_out, uint8_t *refused, gh_page_stats *stats, bool mapped,
	 const gh_page_fill *fills = nullptr, uint32_t n_fills = 0)
{
	cudaStream_t st = c.st;
	layout		l = plan(mapped ? 0 : page_data_bytes, n_pages, n_visible);
	size_t		slots = (size_t) n_pages * GH_PAGE_SLOTS;
	uint8_t    *d = c.d;
	uint8_t    *d_state = d + l.state;
	gh_page_match *d_cand = (gh_page_match *) (d + l.cand),
			   *d_sel = (gh_page_match *) (d + l.sel);
	uint64_t   *d_keys = (uint64_t *) (d + l.keys),
			   *d_sel_keys = (uint64_t *) (d + l.sel_keys);
	gh_range   *d_ranges = (gh_range *) (d + l.ranges);
	int		   *d_nsel = (int *) (d + l.nsel);
	unsigned long long *d_counts = (unsigned long long *) (d + l.counts);
	const uint8_t *d_pages = d + l.pages;

	if (mapped && n_pages && page_data)
	{
		/* the kernel reads the pages where they are, through the mapping */
		void	   *dp = nullptr;

		GH_TRY(cudaHostGetDevicePointer(&dp, const_cast<uint8_t *>(page_data), 0));
		d_pages = (const uint8_t *) dp;
	}
	else if (mapped && !page_data)
		d_pages = nullptr;		/* by address: each ref says where its page lies */

	/* pages in: one copy of the request's page data, then its small parts */
	GH_TRY(cudaEventRecord(c.ev[0], st));
	if (page_data_bytes && !mapped)
		GH_TRY(cudaMemcpyAsync(d + l.pages, page_data, page_data_bytes, cudaMemcpyHostToDevice, st));
	if (n_pages)
		GH_TRY(cudaMemcpyAsync(d + l.refs, refs, n_pages * sizeof(gh_page_ref),
							   cudaMemcpyHostToDevice, st));
	if (n_visible)
		GH_TRY(cudaMemcpyAsync(d + l.vis, visible, (size_t) n_visible * 2,
							   cudaMemcpyHostToDevice, st));
	GH_TRY(cudaMemcpyAsync(d + l.scan, scan, sizeof(gh_page_scan), cudaMemcpyHostToDevice, st));
	GH_TRY(cudaMemsetAsync(d_counts, 0, 2 * sizeof(unsigned long long), st));
	GH_TRY(cudaMemsetAsync(d_nsel, 0, 2 * sizeof(int), st));
	if (n_fills)
		GH_TRY(cudaMemcpyAsync(d + l.fills, fills, (size_t) n_fills * sizeof(gh_page_fill),
							   cudaMemcpyHostToDevice, st));
	GH_TRY(cudaEventRecord(c.ev[1], st));
	if (n_fills)
	{
		/* the store's pages first, on the walk's stream: walked right after */
		fill_pages_kernel<<<n_fills, 256, 0, st>>>((const gh_page_fill *) (d + l.fills));
		GH_LAUNCHED();
	}

	int			n_sel = 0,
				n_keep = 0;

	if (n_pages)
	{
		if (mapped)
			walk_kernel<true><<<n_pages, PAGE_THREADS, 0, st>>>(
				(const gh_page_scan *) (d + l.scan), d_pages, (const gh_page_ref *) (d + l.refs),
				(const uint16_t *) (d + l.vis), d_state, d_cand, d_keys, d + l.refused, d_counts);
		else
			walk_kernel<false><<<n_pages, PAGE_THREADS, 0, st>>>(
				(const gh_page_scan *) (d + l.scan), d_pages, (const gh_page_ref *) (d + l.refs),
				(const uint16_t *) (d + l.vis), d_state, d_cand, d_keys, d + l.refused, d_counts);
		GH_LAUNCHED();

		/* the passing rows and their keys, in slot order */
		auto		flags = thrust::make_transform_iterator(d_state, passed_flag());
		size_t		tmp = c.cub_bytes;

		GH_TRY(cub::DeviceSelect::Flagged(c.cub, tmp, d_cand, flags, d_sel, d_nsel, (int) slots, st));
		tmp = c.cub_bytes;
		GH_TRY(cub::DeviceSelect::Flagged(c.cub, tmp, d_keys, flags, d_sel_keys, d_nsel,
										  (int) slots, st));
		GH_TRY(cudaMemcpyAsync(&n_sel, d_nsel, sizeof(int), cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
	}
	n_keep = n_sel;
	if (n_sel > 0)
	{
		GH_CHECK(gh_gpu_lookup_on(t, st, d_sel_keys, (size_t) n_sel, d_ranges, nullptr));
		fill_kernel<<<gh_blocks(n_sel, 256), 256, 0, st>>>(d_sel, d_ranges, (uint32_t) n_sel,
														   scan->mode, d_state);
		GH_LAUNCHED();
		if (scan->mode == GH_PAGE_MATCHES)
		{
			/* rows whose key has no inner row go; the rest keep their order */
			size_t		tmp = c.cub_bytes;

			GH_TRY(cub::DeviceSelect::Flagged(c.cub, tmp, d_sel, d_state, d_cand, d_nsel + 1,
											  n_sel, st));
			GH_TRY(cudaMemcpyAsync(&n_keep, d_nsel + 1, sizeof(int), cudaMemcpyDeviceToHost, st));
			GH_TRY(cudaStreamSynchronize(st));
		}
	}
	GH_TRY(cudaEventRecord(c.ev[2], st));

	/* matches out: at most capacity of them, the refused flags, the counts */
	const gh_page_match *d_out = scan->mode == GH_PAGE_MATCHES ? d_cand : d_sel;
	size_t		n_copy = (size_t) n_keep < capacity ? (size_t) n_keep : capacity;
	unsigned long long counts[2] = {0, 0};

	if (n_copy)
		GH_TRY(cudaMemcpyAsync(out, d_out, n_copy * sizeof(gh_page_match), cudaMemcpyDeviceToHost, st));
	if (n_pages)
		GH_TRY(cudaMemcpyAsync(refused, d + l.refused, n_pages, cudaMemcpyDeviceToHost, st));
	GH_TRY(cudaMemcpyAsync(counts, d_counts, sizeof(counts), cudaMemcpyDeviceToHost, st));
	GH_TRY(cudaEventRecord(c.ev[3], st));
	GH_TRY(cudaStreamSynchronize(st));

	float		copy_in = 0,
				kernels = 0,
				copy_out = 0;

	GH_TRY(cudaEventElapsedTime(&copy_in, c.ev[0], c.ev[1]));
	GH_TRY(cudaEventElapsedTime(&kernels, c.ev[1], c.ev[2]));
	GH_TRY(cudaEventElapsedTime(&copy_out, c.ev[2], c.ev[3]));

	gh_page_stats s;

	memset(&s, 0, sizeof(s));
	s.pages = n_pages;
	for (uint32_t i = 0; i < n_pages; i++)
		s.refused += refused[i];
	s.tuples = counts[0];
	s.passed = counts[1];
	s.written = (uint64_t) n_keep;
	s.kernel_ms = kernels;
	s.copy_ms = (double) copy_in + copy_out;
	*stats = s;
	*n_out = (size_t) n_keep;
	if ((size_t) n_keep > capacity)
		return gh_error(GH_ERR_OUTPUT_FULL, "page walk: %d match records exceed the capacity "
						"of %zu", n_keep, capacity);
	return GH_OK;
}

/* A walk's figures into its table's (under the caller's lock on it). */
void
add_stats(gh_table *t, const gh_page_stats &s)
{
	t->stats.probe_ms += s.kernel_ms;
	t->stats.transfer_ms += s.copy_ms;
	t->stats.probe_batches++;
	t->stats.probe_keys += s.passed;
}

void
lane_free_memory(gh_table *t, gh_page_lane *ln)
{
	if (ln->d)
		gh_dfree(t, ln->d, ln->bytes);
	if (ln->cub)
		gh_dfree(t, ln->cub, ln->cub_bytes);
	ln->d = ln->cub = nullptr;
	ln->bytes = ln->cub_bytes = 0;
}

void
lane_destroy(gh_table *t, gh_page_lane *ln)
{
	lane_free_memory(t, ln);
	drop_events(ln->ev);
	if (ln->stream)
		cudaStreamDestroy(ln->stream);
	delete ln;
}

}								/* namespace */

void
gh_gpu_page_free(gh_table *t)
{
	gh_page_gpu *pg = t->gpu ? t->gpu->page : nullptr;

	if (!pg)
		return;
	if (pg->d)
		gh_dfree(t, pg->d, pg->bytes);
	drop_events(pg->ev);
	/* every lane is back by now: the table is freed by its last user */
	while (pg->free_lanes)
	{
		gh_page_lane *ln = pg->free_lanes;

		pg->free_lanes = ln->next;
		lane_destroy(t, ln);
	}
	delete pg;
	t->gpu->page = nullptr;
}

/* Both entries: the request checked, walked, and nothing held after a failure. */
static gh_status
walk_checked(gh_table *t, const gh_page_scan *scan, const gh_page_ref *refs, uint32_t n_pages,
			 const uint8_t *page_data, size_t page_data_bytes, const uint16_t *visible,
			 uint32_t n_visible, gh_page_match *out, size_t capacity, size_t *n_out,
			 uint8_t *refused, gh_page_stats *stats, bool mapped,
			 const gh_page_fill *fills = nullptr, uint32_t n_fills = 0)
{
	GH_CHECK(gh_page_check_request(scan, refs, n_pages, page_data, page_data_bytes, visible,
								   n_visible, out, capacity, n_out, refused));
	*n_out = 0;
	if ((size_t) n_pages * GH_PAGE_SLOTS > (size_t) INT32_MAX)
		return gh_error(GH_ERR_TOO_LARGE, "page walk: %u pages exceed a request's slots",
						n_pages);

	gh_gpu_state *g = t->gpu;
	gh_page_gpu *pg = nullptr;
	gh_page_stats s;
	size_t		cub = 0;
	gh_status	st;

	memset(&s, 0, sizeof(s));
	GH_TRY(cudaSetDevice(g->ordinal));
	st = reserve(t, plan(mapped ? 0 : page_data_bytes, n_pages, n_visible).total, &pg);
	if (st == GH_OK)
		st = cub_need((size_t) n_pages * GH_PAGE_SLOTS, &cub);
	if (st == GH_OK)
		st = gh_cub_reserve(t, cub);
	if (st == GH_OK)
	{
		walk_ctx	c = {g->stream, (uint8_t *) pg->d, g->d_cub, g->cub_bytes, pg->ev};

		st = walk(t, c, scan, refs, n_pages, page_data, page_data_bytes, visible, n_visible,
				  out, capacity, n_out, refused, &s, mapped, fills, n_fills);
	}
	if (st == GH_OK || st == GH_ERR_OUTPUT_FULL)
	{
		add_stats(t, s);
		if (stats)
			*stats = s;
	}
	else if (pg)
	{
		/* nothing of a failed walk stays in flight or held */
		cudaStreamSynchronize(g->stream);
		cudaGetLastError();
		if (pg->d)
			gh_dfree(t, pg->d, pg->bytes);
		pg->d = nullptr;
		pg->bytes = 0;
	}
	return st;
}

gh_status
gh_gpu_page_probe(gh_table *t, const gh_page_scan *scan, const gh_page_ref *refs,
				  uint32_t n_pages, const uint8_t *page_data, size_t page_data_bytes,
				  const uint16_t *visible, uint32_t n_visible, gh_page_match *out,
				  size_t capacity, size_t *n_out, uint8_t *refused, gh_page_stats *stats)
{
	return walk_checked(t, scan, refs, n_pages, page_data, page_data_bytes, visible, n_visible,
						out, capacity, n_out, refused, stats, false);
}

gh_status
gh_gpu_page_probe_mapped(gh_table *t, const gh_page_scan *scan, const gh_page_ref *refs,
						 uint32_t n_pages, const uint8_t *page_data, size_t page_data_bytes,
						 const uint16_t *visible, uint32_t n_visible, gh_page_match *out,
						 size_t capacity, size_t *n_out, uint8_t *refused, gh_page_stats *stats)
{
	return walk_checked(t, scan, refs, n_pages, page_data, page_data_bytes, visible, n_visible,
						out, capacity, n_out, refused, stats, true);
}

/*
 * A lane with at least need bytes of scratch and cub of CUB's (a chain's
 * lane: as much as the table's chain probes have asked for, if more): a
 * free one, or a new one, its scratch grown within the table's budget.
 * Under the caller's lock on the table (the scratch is counted in the
 * table's memory).  None (*out NULL) for a table not on a GPU, or
 * partitioned.
 */
gh_status
gh_gpu_lane_take(gh_table *t, size_t need, size_t cub, bool chain, gh_page_lane **out)
{
	*out = nullptr;
	if (!t || t->n_parts > 0 || t->device != GH_DEVICE_GPU)
		return GH_OK;

	gh_gpu_state *g = t->gpu;
	gh_page_gpu *pg;
	gh_page_lane *ln;
	bool		grown;
	gh_status	st;

	GH_TRY(cudaSetDevice(g->ordinal));
	GH_CHECK(page_state(t, &pg));
	if (chain)
	{
		need = std::max(need, pg->chain_want);
		if (need > GH_CHAIN_LANE_MAX_BYTES)
			return GH_OK;		/* none: the probe runs under the locks */
	}
	if (pg->free_lanes)
	{
		ln = pg->free_lanes;
		pg->free_lanes = ln->next;
	}
	else
	{
		ln = new (std::nothrow) gh_page_lane;
		if (!ln)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for a GPU table's lane");
		ln->t = t;
		pg->n_lanes++;
		st = make_events(ln->ev);
		if (st == GH_OK)
		{
			cudaError_t e = cudaStreamCreateWithFlags(&ln->stream, cudaStreamNonBlocking);

			if (e != cudaSuccess)
				st = gh_cuda_error(e, "cudaStreamCreateWithFlags", __FILE__, __LINE__);
		}
		if (st != GH_OK)
		{
			pg->n_lanes--;
			lane_destroy(t, ln);
			return st;
		}
	}
	/* gh_dgrow's own test: whether either is (re)allocated */
	grown = !ln->d || ln->bytes < need || !ln->cub || ln->cub_bytes < cub;
	st = gh_dgrow(t, &ln->d, &ln->bytes, need);
	if (st == GH_OK)
		st = gh_dgrow(t, &ln->cub, &ln->cub_bytes, cub);
	/* allocated in the table's stream's order: ready before the lane's stream uses it */
	if (st == GH_OK && grown)
	{
		cudaError_t e = cudaStreamSynchronize(g->stream);

		if (e != cudaSuccess)
			st = gh_cuda_error(e, "cudaStreamSynchronize", __FILE__, __LINE__);
	}
	if (st != GH_OK)
	{
		lane_free_memory(t, ln);
		ln->next = pg->free_lanes;
		pg->free_lanes = ln;
		return st;
	}
	ln->chain_want = 0;
	*out = ln;
	return GH_OK;
}

/* A lane for one walk of up to n_pages pages (page_bytes of them copied, 0 read in place). */
gh_status
gh_page_lane_take(gh_table *t, size_t page_bytes, uint32_t n_pages, uint32_t n_visible,
				  gh_page_lane **out)
{
	size_t		cub = 0;

	*out = nullptr;
	if (!t || t->n_parts > 0 || t->device != GH_DEVICE_GPU)
		return GH_OK;
	GH_TRY(cudaSetDevice(t->gpu->ordinal));
	GH_CHECK(cub_need((size_t) n_pages * GH_PAGE_SLOTS, &cub));
	return gh_gpu_lane_take(t, plan(page_bytes, n_pages, n_visible).total, cub, false, out);
}

/*
 * One walk on a lane taken for it, the fills (if any) first on the lane's
 * stream: no lock held; the table only read.
 */
static gh_status
walk_on_lane(gh_page_lane *ln, bool mapped, const gh_page_scan *scan, const gh_page_ref *refs,
			 uint32_t n_pages, const uint8_t *page_data, size_t page_data_bytes,
			 const uint16_t *visible, uint32_t n_visible, gh_page_match *out,
			 size_t capacity, size_t *n_out, uint8_t *refused, gh_page_stats *stats,
			 const gh_page_fill *fills, uint32_t n_fills)
{
	if (!ln)
		return gh_error(GH_ERR_INVALID, "page walk: no lane");
	GH_CHECK(gh_page_check_request(scan, refs, n_pages, page_data, page_data_bytes, visible,
								   n_visible, out, capacity, n_out, refused));
	*n_out = 0;
	if (plan(mapped ? 0 : page_data_bytes, n_pages, n_visible).total > ln->bytes ||
		n_pages > (uint32_t) (INT32_MAX / GH_PAGE_SLOTS))
		return gh_error(GH_ERR_INVALID, "page walk: a request larger than its lane was taken for");
	GH_TRY(cudaSetDevice(ln->t->gpu->ordinal));

	walk_ctx	c = {ln->stream, (uint8_t *) ln->d, ln->cub, ln->cub_bytes, ln->ev};

	return walk(ln->t, c, scan, refs, n_pages, page_data, page_data_bytes, visible, n_visible,
				out, capacity, n_out, refused, stats, mapped, fills, n_fills);
}

gh_status
gh_page_probe_lane(gh_page_lane *ln, int in_place, const gh_page_scan *scan,
				   const gh_page_ref *refs, uint32_t n_pages, const uint8_t *page_data,
				   size_t page_data_bytes, const uint16_t *visible, uint32_t n_visible,
				   gh_page_match *out, size_t capacity, size_t *n_out, uint8_t *refused,
				   gh_page_stats *stats)
{
	return walk_on_lane(ln, in_place != 0, scan, refs, n_pages, page_data, page_data_bytes,
						visible, n_visible, out, capacity, n_out, refused, stats, nullptr, 0);
}

/*
 * The lane back, under the caller's lock on t: the walk's figures (stats,
 * NULL after a failed walk) into the table's; after a failure nothing of
 * the walk stays in flight or held.
 */
void
gh_page_lane_give(gh_table *t, gh_page_lane *ln, const gh_page_stats *stats)
{
	if (!t || !ln)
		return;

	gh_page_gpu *pg = t->gpu->page;

	/*
	 * What a chain probe that did not fit asked for: the next chain lane's
	 * size; past the most a lane keeps, the table's chains probe under the
	 * locks from then on (gh_gpu_lane_take gives no chain lane).
	 */
	pg->chain_want = std::max(pg->chain_want, ln->chain_want);
	ln->chain_want = 0;
	if (stats)
		add_stats(t, *stats);
	else
	{
		cudaSetDevice(t->gpu->ordinal);
		cudaStreamSynchronize(ln->stream);
		cudaGetLastError();
		lane_free_memory(t, ln);
	}
	ln->next = pg->free_lanes;
	pg->free_lanes = ln;
}

gh_status
gh_page_register_host(void *ptr, size_t bytes)
{
	if (gh_gpu_count() == 0)
		return gh_error(GH_ERR_NO_GPU, "no GPU to map host memory into");
	if (!ptr || !bytes)
		return gh_error(GH_ERR_INVALID, "page walk: no host memory to map");

	/* whole OS pages: the range's ends need not lie on one */
	const uintptr_t os_page = 4096;
	uintptr_t	lo = (uintptr_t) ptr & ~(os_page - 1),
				hi = ((uintptr_t) ptr + bytes + os_page - 1) & ~(os_page - 1);

	/* portable and mapped: every GPU's context reads it through its mapping */
	GH_TRY(cudaHostRegister((void *) lo, hi - lo, cudaHostRegisterMapped | cudaHostRegisterPortable));
	return GH_OK;
}

/* The fills checked by gh_page_probe_at (host_page.cpp). */
gh_status
gh_gpu_page_probe_at(gh_table *t, gh_page_lane *lane, const gh_page_fill *fills,
					 uint32_t n_fills, const gh_page_scan *scan, const gh_page_ref *refs,
					 uint32_t n_pages, const uint16_t *visible, uint32_t n_visible,
					 gh_page_match *out, size_t capacity, size_t *n_out, uint8_t *refused,
					 gh_page_stats *stats)
{
	if (lane)
		return walk_on_lane(lane, true, scan, refs, n_pages, nullptr, GH_PAGE_DATA_AT, visible,
							n_visible, out, capacity, n_out, refused, stats, fills, n_fills);
	if (!t || t->device != GH_DEVICE_GPU)
		return gh_error(GH_ERR_INVALID, "page walk: no GPU table to walk by address");
	return walk_checked(t, scan, refs, n_pages, nullptr, GH_PAGE_DATA_AT, visible, n_visible,
						out, capacity, n_out, refused, stats, true, fills, n_fills);
}

gh_status
gh_gpu_page_store_alloc(int ordinal, size_t n_pages, uint8_t **store)
{
	void	   *p = nullptr;

	*store = nullptr;
	GH_TRY(cudaSetDevice(ordinal));
	GH_TRY(cudaMalloc(&p, n_pages * GH_PAGE_SIZE));
	*store = (uint8_t *) p;
	return GH_OK;
}

void
gh_gpu_page_store_free(int ordinal, uint8_t *store)
{
	if (!store)
		return;
	cudaSetDevice(ordinal);
	cudaFree(store);
	cudaGetLastError();
}

gh_status
gh_gpu_page_mapped_address(int ordinal, const void *ptr, uint64_t *addr)
{
	void	   *dp = nullptr;

	GH_TRY(cudaSetDevice(ordinal));
	GH_TRY(cudaHostGetDevicePointer(&dp, const_cast<void *>(ptr), 0));
	*addr = (uint64_t) (uintptr_t) dp;
	return GH_OK;
}

/* The fills checked by gh_page_fill_pages (host_page.cpp). */
gh_status
gh_gpu_page_fill_pages(int ordinal, const gh_page_fill *fills, uint32_t n_fills)
{
	void	   *d = nullptr;
	cudaStream_t st = cudaStreamPerThread;
	size_t		bytes = (size_t) n_fills * sizeof(gh_page_fill);

	if (n_fills == 0)
		return GH_OK;
	GH_TRY(cudaSetDevice(ordinal));
	GH_TRY(cudaMallocAsync(&d, bytes, st));

	gh_status	r = GH_OK;
	cudaError_t e = cudaMemcpyAsync(d, fills, bytes, cudaMemcpyHostToDevice, st);

	if (e == cudaSuccess)
	{
		fill_pages_kernel<<<n_fills, 256, 0, st>>>((const gh_page_fill *) d);
		e = cudaGetLastError();
	}
	if (e != cudaSuccess)
		r = gh_cuda_error(e, "page store fill", __FILE__, __LINE__);
	cudaFreeAsync(d, st);
	e = cudaStreamSynchronize(st);
	if (r == GH_OK && e != cudaSuccess)
		r = gh_cuda_error(e, "cudaStreamSynchronize", __FILE__, __LINE__);
	return r;
}
