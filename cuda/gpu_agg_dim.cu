/*
 * gpu_agg_dim.cu
 *		A dimension's GPU side (host_agg_join.cpp builds its table with
 *		gh_build on the GPU): the rows' values and heap in one device
 *		allocation of its own, charged to the build's budget, and the view
 *		the walk reads (gpu_agg.cu): the table's slots and rowids, the
 *		values, the heap.
 */
#include "gpu_common.cuh"
#include "agg_internal.h"

#include <vector>

gh_status
gh_gpu_agg_dim_upload(gh_agg_dim *d, const gh_agg_inval *vals, const uint8_t *heap,
					  uint64_t heap_bytes, size_t budget)
{
	int			ndev = 0;

	GH_TRY(cudaGetDeviceCount(&ndev));
	if (d->device < 0 || d->device >= ndev)
		return gh_error(GH_ERR_NO_GPU, "dimension: no GPU %d", d->device);
	GH_TRY(cudaSetDevice(d->device));

	size_t		vbytes = (size_t) d->n * (size_t) d->ninner * sizeof(gh_agg_inval),
				o_heap = gh_align256(vbytes),
				o_matched = gh_align256(o_heap + heap_bytes),
				total = o_matched + d->n;

	if (budget > 0 && total > budget)
		return gh_error(GH_ERR_GPU_MEMORY, "dimension: %zu bytes of values exceed the %zu the "
						"table leaves of the budget", total, budget);
	if (total > 0)
	{
		if (cudaMalloc(&d->d_mem, total) != cudaSuccess)
		{
			cudaGetLastError();
			d->d_mem = nullptr;
			return gh_error(GH_ERR_GPU_MEMORY, "dimension: %zu bytes of device memory", total);
		}
		if (vbytes)
			GH_TRY(cudaMemcpy(d->d_mem, vals, vbytes, cudaMemcpyHostToDevice));
		if (heap_bytes)
			GH_TRY(cudaMemcpy((uint8_t *) d->d_mem + o_heap, heap, heap_bytes,
							  cudaMemcpyHostToDevice));
		if (d->n)
			GH_TRY(cudaMemset((uint8_t *) d->d_mem + o_matched, 0, d->n));
	}
	d->view.vals = (const gh_agg_inval *) d->d_mem;
	d->view.heap = (const uint8_t *) d->d_mem + o_heap;
	d->view.matched = d->n ? (uint8_t *) d->d_mem + o_matched : nullptr;
	if (d->table == nullptr)
		return GH_OK;

	gh_gpu_state *g = d->table->gpu;
	gh_table_info info;

	/* the build's work is on the table's stream: done before we read it */
	GH_TRY(cudaStreamSynchronize(g->stream));
	d->view.lin = d->table->lin;
	d->view.rowids = (const uint32_t *) g->d_rowids;
	gh_table_get_info(d->table, &info);
	if (info.n_distinct != d->n)
	{
		/* the most rows of one key: the longest count among the slots */
		std::vector<gh_slot> s(d->view.lin.mask + 1);

		GH_TRY(cudaMemcpy(s.data(), d->view.lin.slots, sizeof(gh_slot) * s.size(),
						  cudaMemcpyDeviceToHost));
		for (const gh_slot &x : s)
			if (x.cnt > d->max_dup)
				d->max_dup = x.cnt;
	}
	return GH_OK;
}

void
gh_gpu_agg_dim_release(gh_agg_dim *d)
{
	/* errors ignored: this runs after failures too */
	if (d->d_mem != nullptr)
	{
		cudaSetDevice(d->device);
		cudaFree(d->d_mem);
		cudaGetLastError();
	}
	d->d_mem = nullptr;
}

gh_status
gh_gpu_agg_dim_matched(const gh_agg_dim *d, uint64_t pos, uint64_t n, uint8_t *out)
{
	/* the walks that mark ran on streams that answered: nothing in flight */
	GH_TRY(cudaSetDevice(d->device));
	GH_TRY(cudaMemcpy(out, d->view.matched + pos, n, cudaMemcpyDeviceToHost));
	return GH_OK;
}
