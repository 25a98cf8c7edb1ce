/*
 * gpu_page_dim.cu
 *		A dimension's rows from heap pages on the GPU (gpuhash_dim_pages.h):
 *		two kernels with a block per page (the page staged in shared memory,
 *		a thread per slot), as gpu_page.cu's walk.  The first walks every
 *		slot and counts its row and the row's heap bytes (a refused page
 *		counts nothing); an exclusive scan (CUB) places each row and its
 *		bytes; the second walks again each page that gives a row (the walk
 *		is a pure function of the page) and writes its rows there.  Rows in
 *		slot order within page order, the host twin's loop order, so both
 *		give the same bytes.
 *
 *		Device memory, stream and events are the calling thread's, kept
 *		between requests (dim_scratch).
 */
#include "gpu_common.cuh"
#include "page_dim.cuh"
#include "page_dim_internal.h"

#include <cub/device/device_scan.cuh>
#include <memory>
#include <vector>

constexpr int DIM_THREADS = 128;
constexpr int DIM_SLOTS_PER_THREAD = (GH_PAGE_MAX_TUPLES + DIM_THREADS - 1) / DIM_THREADS;

namespace
{

/*
 * MAPPED: pages is the buffer pool read in place through its host
 * mapping: volatile loads, as gpu_page.cu's walk reads it (a page may take
 * a hint bit meanwhile, never in what the walk reads).
 */
template <bool MAPPED>
__device__ void
stage_page(uint8_t *page, const uint8_t *src)
{
	if (((uintptr_t) src & 15) == 0)
		for (int i = threadIdx.x; i < GH_PAGE_SIZE / 16; i += blockDim.x)
			((uint4 *) page)[i] = MAPPED ? __ldcv((const uint4 *) src + i) :
				__ldg((const uint4 *) src + i);
	else
		for (int i = threadIdx.x; i < GH_PAGE_SIZE; i += blockDim.x)
			page[i] = src[i];
}

/* Per slot: 1 if it gives a row, and the row's heap bytes. */
template <bool MAPPED>
__global__ void __launch_bounds__(DIM_THREADS)
count_kernel(const gh_page_scan *__restrict__ scan, const int16_t *__restrict__ cols, int ncols,
			 const uint8_t *__restrict__ pages, const gh_page_ref *__restrict__ refs,
			 const uint16_t *__restrict__ visible, uint64_t *__restrict__ rows,
			 uint64_t *__restrict__ bytes, uint8_t *__restrict__ refused,
			 unsigned long long *__restrict__ counts)
{
	__shared__ __align__(16) uint8_t page[GH_PAGE_SIZE];
	__shared__ int s_refuse,
				s_n,
				s_nitems;

	const uint32_t p = blockIdx.x;
	const gh_page_ref ref = refs[p];
	const uint64_t base = (uint64_t) p * GH_PAGE_MAX_TUPLES;

	stage_page<MAPPED>(page, pages + ref.offset);
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
	uint8_t		has[DIM_SLOTS_PER_THREAD];
	uint32_t	b[DIM_SLOTS_PER_THREAD];
	unsigned	nt = 0,
				np = 0;
	gh_pval		v[GH_PAGE_MAX_ATTS];

	for (int i = 0; i < DIM_SLOTS_PER_THREAD; i++)
	{
		int			s = threadIdx.x + i * DIM_THREADS;

		has[i] = 0;
		b[i] = 0;
		if (s >= n)
			continue;

		gh_walk_out o;
		int			w = gh_walk_slot(scan, page, nitems, ref, visible, s, v, &o);

		if (w == GH_WALK_REFUSE)
			s_refuse = 1;
		else if (w == GH_WALK_OK)
		{
			nt++;
			if (o.passed)
			{
				np++;
				if (!o.null_key)
				{
					has[i] = 1;
					b[i] = gh_dim_row_bytes(scan, cols, ncols, v);
				}
			}
		}
	}
	__syncthreads();

	const bool	refuse = s_refuse != 0;

	for (int i = 0; i < DIM_SLOTS_PER_THREAD; i++)
	{
		int			s = threadIdx.x + i * DIM_THREADS;

		if (s < GH_PAGE_MAX_TUPLES)
		{
			rows[base + s] = refuse ? 0 : has[i];
			bytes[base + s] = refuse ? 0 : b[i];
		}
	}
	if (!refuse && (nt || np))
	{
		atomicAdd(&counts[0], (unsigned long long) nt);
		atomicAdd(&counts[1], (unsigned long long) np);
	}
	if (threadIdx.x == 0)
		refused[p] = refuse ? 1 : 0;
}

/*
 * The rows of every page that gives any, at their places.  A page without
 * one is not read again: read in place, each page read crosses the link,
 * and a selective dimension's pages mostly give none.
 */
template <bool MAPPED>
__global__ void __launch_bounds__(DIM_THREADS)
write_kernel(const gh_page_scan *__restrict__ scan, const int16_t *__restrict__ cols, int ncols,
			 const uint8_t *__restrict__ pages, const gh_page_ref *__restrict__ refs,
			 const uint16_t *__restrict__ visible, const uint64_t *__restrict__ rows,
			 const uint64_t *__restrict__ row_off, const uint64_t *__restrict__ byte_off,
			 const uint8_t *__restrict__ refused, uint32_t n_pages, uint64_t n_rows,
			 uint64_t *__restrict__ keys, gh_agg_inval *__restrict__ vals,
			 uint8_t *__restrict__ heap)
{
	__shared__ __align__(16) uint8_t page[GH_PAGE_SIZE];

	const uint32_t p = blockIdx.x;
	/* the page's rows: where the next page's start (the scan is page-major) */
	const uint64_t first = row_off[(uint64_t) p * GH_PAGE_MAX_TUPLES],
				end = p + 1 < n_pages ? row_off[(uint64_t) (p + 1) * GH_PAGE_MAX_TUPLES] : n_rows;

	/* the whole block leaves together: no barrier is skipped */
	if (refused[p] || first == end)
		return;

	const gh_page_ref ref = refs[p];
	const uint64_t base = (uint64_t) p * GH_PAGE_MAX_TUPLES;

	stage_page<MAPPED>(page, pages + ref.offset);
	__syncthreads();

	int			nitems;
	const int	n = gh_walk_slots(page, ref, &nitems);
	gh_pval		v[GH_PAGE_MAX_ATTS];

	for (int s = threadIdx.x; s < n; s += DIM_THREADS)
	{
		if (!rows[base + s])
			continue;

		gh_walk_out o;

		(void) gh_walk_slot(scan, page, nitems, ref, visible, s, v, &o);

		uint64_t	r = row_off[base + s];

		keys[r] = o.key;
		gh_dim_row_write(scan, cols, ncols, page, v, vals + r * (uint64_t) ncols, heap,
						 byte_off[base + s]);
	}
}

/*
 * This thread's device memory, stream and events for one GPU, kept between
 * requests: a cudaFree per request waits for the whole device, so every
 * backend's walk would queue behind every other's.  Grown when a request
 * needs more (the stream is idle between requests), given back at the
 * thread's end or after a failed request.
 */
struct dim_scratch
{
	int			dev = -1;
	void	   *in = nullptr;
	size_t		in_bytes = 0;
	void	   *out = nullptr;
	size_t		out_bytes = 0;
	cudaStream_t st = nullptr;
	cudaEvent_t ev[2] = {nullptr, nullptr};

	/* errors ignored: this runs after failures and at the thread's end */
	void release()
	{
		if (dev < 0)
			return;
		cudaSetDevice(dev);
		if (st)
			cudaStreamSynchronize(st);
		if (in)
			cudaFree(in);
		if (out)
			cudaFree(out);
		for (cudaEvent_t &e : ev)
		{
			if (e)
				cudaEventDestroy(e);
			e = nullptr;
		}
		if (st)
			cudaStreamDestroy(st);
		cudaGetLastError();
		in = out = nullptr;
		in_bytes = out_bytes = 0;
		st = nullptr;
	}
	~dim_scratch()
	{
		release();
	}
};

gh_status
scratch_of(int dev, dim_scratch **out)
{
	static thread_local std::vector<std::unique_ptr<dim_scratch>> per_dev;

	if ((size_t) dev >= per_dev.size())
		per_dev.resize(dev + 1);
	if (!per_dev[dev])
		per_dev[dev].reset(new dim_scratch());

	dim_scratch *s = per_dev[dev].get();

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

/* *p grown to hold want bytes (a quarter more, for the next requests). */
gh_status
grow(void **p, size_t *have, size_t want)
{
	if (want <= *have)
		return GH_OK;
	if (*p)
		GH_TRY(cudaFree(*p));
	*p = nullptr;
	*have = 0;
	want += want / 4;
	if (cudaMalloc(p, want) != cudaSuccess)
	{
		cudaGetLastError();
		*p = nullptr;
		return gh_error(GH_ERR_GPU_MEMORY, "dimension pages: %zu bytes of device memory", want);
	}
	*have = want;
	return GH_OK;
}

}								/* namespace */

gh_status
gh_gpu_page_dim_rows(int device, const gh_page_scan *scan, const int16_t *cols, int ncols,
					 const gh_page_ref *refs, uint32_t n_pages, const uint8_t *page_data,
					 size_t page_data_bytes, const uint16_t *visible, uint32_t n_visible,
					 bool mapped, uint64_t *keys, gh_agg_inval *vals, uint64_t rows_cap,
					 uint8_t *heap, uint64_t heap_cap, uint64_t *n_rows, uint64_t *heap_bytes,
					 uint8_t *refused, gh_page_stats *stats)
{
	int			ndev = 0;
	gh_page_stats s;
	size_t		slots = (size_t) n_pages * GH_PAGE_MAX_TUPLES;

	memset(&s, 0, sizeof(s));
	*n_rows = 0;
	*heap_bytes = 0;
	GH_TRY(cudaGetDeviceCount(&ndev));
	if (device < 0 || device >= ndev)
		return gh_error(GH_ERR_NO_GPU, "dimension pages: no GPU %d", device);
	if (slots > (size_t) INT32_MAX)
		return gh_error(GH_ERR_TOO_LARGE, "dimension pages: %u pages exceed a request's slots",
						n_pages);
	if (n_pages == 0)
	{
		if (stats)
			*stats = s;
		return GH_OK;
	}
	GH_TRY(cudaSetDevice(device));

	dim_scratch *sc = nullptr;
	gh_status	sst = scratch_of(device, &sc);

	if (sst != GH_OK)
		return sst;

	cudaStream_t st = sc->st;
	cudaEvent_t *ev = sc->ev;
	size_t		scan_tmp = 0;

	GH_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_tmp, (uint64_t *) nullptr,
										 (uint64_t *) nullptr, (int) slots, st));

	/* inputs, counts and offsets in one allocation */
	size_t		o_scan = 0,
				o_cols = o_scan + gh_align256(sizeof(gh_page_scan)),
				o_refs = o_cols + gh_align256(sizeof(int16_t) * GH_AGG_MAX_INNER),
				o_vis = o_refs + gh_align256(sizeof(gh_page_ref) * n_pages),
				o_refused = o_vis + gh_align256(2 * (size_t) n_visible + 2),
				o_counts = o_refused + gh_align256(n_pages),
				o_rows = o_counts + gh_align256(2 * sizeof(unsigned long long)),
				o_bytes = o_rows + gh_align256(sizeof(uint64_t) * slots),
				o_row_off = o_bytes + gh_align256(sizeof(uint64_t) * slots),
				o_byte_off = o_row_off + gh_align256(sizeof(uint64_t) * slots),
				o_tmp = o_byte_off + gh_align256(sizeof(uint64_t) * slots),
				o_pages = o_tmp + gh_align256(scan_tmp),
				total = o_pages + (mapped ? 0 : page_data_bytes);
	{
		gh_status	g = grow(&sc->in, &sc->in_bytes, total);

		if (g != GH_OK)
			return g;
	}

	uint8_t    *d = (uint8_t *) sc->in;
	const uint8_t *d_pages = d + o_pages;

	if (mapped && page_data)
	{
		/* the kernels read the pages where they are, through the mapping */
		void	   *dp = nullptr;

		GH_TRY(cudaHostGetDevicePointer(&dp, const_cast<uint8_t *>(page_data), 0));
		d_pages = (const uint8_t *) dp;
	}
	else if (mapped)
		d_pages = nullptr;		/* by address: each ref says where its page lies */
	gh_status	rc = GH_OK;
	uint64_t	tail[4] = {0, 0, 0, 0};
	unsigned long long counts[2] = {0, 0};

	/* a lambda so that the events go on every path */
	auto		run = [&]() -> gh_status {
		int16_t		c[GH_AGG_MAX_INNER] = {0};

		for (int j = 0; j < ncols; j++)
			c[j] = cols[j];
		GH_TRY(cudaEventRecord(ev[0], st));
		if (!mapped)
			GH_TRY(cudaMemcpyAsync(d + o_pages, page_data, page_data_bytes,
								   cudaMemcpyHostToDevice, st));
		GH_TRY(cudaMemcpyAsync(d + o_scan, scan, sizeof(gh_page_scan), cudaMemcpyHostToDevice, st));
		GH_TRY(cudaMemcpyAsync(d + o_cols, c, sizeof(c), cudaMemcpyHostToDevice, st));
		GH_TRY(cudaMemcpyAsync(d + o_refs, refs, sizeof(gh_page_ref) * n_pages,
							   cudaMemcpyHostToDevice, st));
		if (n_visible)
			GH_TRY(cudaMemcpyAsync(d + o_vis, visible, 2 * (size_t) n_visible,
								   cudaMemcpyHostToDevice, st));
		GH_TRY(cudaMemsetAsync(d + o_counts, 0, 2 * sizeof(unsigned long long), st));

		const gh_page_scan *d_scan = (const gh_page_scan *) (d + o_scan);
		const int16_t *d_cols = (const int16_t *) (d + o_cols);
		const gh_page_ref *d_refs = (const gh_page_ref *) (d + o_refs);
		const uint16_t *d_vis = (const uint16_t *) (d + o_vis);
		uint64_t   *d_rows = (uint64_t *) (d + o_rows),
				   *d_bytes = (uint64_t *) (d + o_bytes),
				   *d_row_off = (uint64_t *) (d + o_row_off),
				   *d_byte_off = (uint64_t *) (d + o_byte_off);

		if (mapped)
			count_kernel<true><<<n_pages, DIM_THREADS, 0, st>>>(
				d_scan, d_cols, ncols, d_pages, d_refs, d_vis, d_rows, d_bytes, d + o_refused,
				(unsigned long long *) (d + o_counts));
		else
			count_kernel<false><<<n_pages, DIM_THREADS, 0, st>>>(
				d_scan, d_cols, ncols, d_pages, d_refs, d_vis, d_rows, d_bytes, d + o_refused,
				(unsigned long long *) (d + o_counts));
		GH_LAUNCHED();

		size_t		tmp = scan_tmp;

		GH_TRY(cub::DeviceScan::ExclusiveSum(d + o_tmp, tmp, d_rows, d_row_off, (int) slots, st));
		tmp = scan_tmp;
		GH_TRY(cub::DeviceScan::ExclusiveSum(d + o_tmp, tmp, d_bytes, d_byte_off, (int) slots,
											 st));
		GH_TRY(cudaMemcpyAsync(&tail[0], d_row_off + slots - 1, 8, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaMemcpyAsync(&tail[1], d_rows + slots - 1, 8, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaMemcpyAsync(&tail[2], d_byte_off + slots - 1, 8, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaMemcpyAsync(&tail[3], d_bytes + slots - 1, 8, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaMemcpyAsync(counts, d + o_counts, sizeof(counts), cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaMemcpyAsync(refused, d + o_refused, n_pages, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));

		uint64_t	nr = tail[0] + tail[1],
					nb = tail[2] + tail[3];

		/* counted, nothing written: room the caller gave too small says so */
		if (nr > rows_cap || nb > heap_cap)
			return gh_error(GH_ERR_OUTPUT_FULL, "dimension pages: %llu rows and %llu heap bytes "
							"exceed the room for %llu and %llu", (unsigned long long) nr,
							(unsigned long long) nb, (unsigned long long) rows_cap,
							(unsigned long long) heap_cap);
		size_t		vbytes = sizeof(gh_agg_inval) * (size_t) nr * (size_t) ncols,
					o_keys = 0,
					o_vals = o_keys + gh_align256(sizeof(uint64_t) * nr),
					o_heap = o_vals + gh_align256(vbytes),
					obytes = o_heap + nb;

		if (nr > 0)
		{
			gh_status	g = grow(&sc->out, &sc->out_bytes, obytes);

			if (g != GH_OK)
				return g;

			uint8_t    *o = (uint8_t *) sc->out;

			if (mapped)
				write_kernel<true><<<n_pages, DIM_THREADS, 0, st>>>(
					d_scan, d_cols, ncols, d_pages, d_refs, d_vis, d_rows, d_row_off, d_byte_off,
					d + o_refused, n_pages, nr, (uint64_t *) (o + o_keys),
					(gh_agg_inval *) (o + o_vals), o + o_heap);
			else
				write_kernel<false><<<n_pages, DIM_THREADS, 0, st>>>(
					d_scan, d_cols, ncols, d_pages, d_refs, d_vis, d_rows, d_row_off, d_byte_off,
					d + o_refused, n_pages, nr, (uint64_t *) (o + o_keys),
					(gh_agg_inval *) (o + o_vals), o + o_heap);
			GH_LAUNCHED();
			GH_TRY(cudaMemcpyAsync(keys, o + o_keys, sizeof(uint64_t) * nr,
								   cudaMemcpyDeviceToHost, st));
			if (vbytes)
				GH_TRY(cudaMemcpyAsync(vals, o + o_vals, vbytes, cudaMemcpyDeviceToHost, st));
			if (nb)
				GH_TRY(cudaMemcpyAsync(heap, o + o_heap, nb, cudaMemcpyDeviceToHost, st));
		}
		GH_TRY(cudaEventRecord(ev[1], st));
		GH_TRY(cudaStreamSynchronize(st));
		*n_rows = nr;
		*heap_bytes = nb;
		return GH_OK;
	};

	rc = run();
	if (rc == GH_OK)
	{
		float		ms = 0;

		if (cudaEventElapsedTime(&ms, ev[0], ev[1]) == cudaSuccess)
			s.kernel_ms = ms;
		cudaGetLastError();
		s.pages = n_pages;
		for (uint32_t p = 0; p < n_pages; p++)
			s.refused += refused[p];
		s.tuples = counts[0];
		s.passed = counts[1];
		s.written = *n_rows;
		if (stats)
			*stats = s;
	}
	else
	{
		/* the stream's work is done or failed before the memory goes (kept when only full) */
		if (rc != GH_ERR_OUTPUT_FULL)
			sc->release();
		*n_rows = 0;
		*heap_bytes = 0;
	}
	return rc;
}
