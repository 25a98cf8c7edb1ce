/*
 * gpu_agg_set.cu
 *		Resident groups on a GPU (gpuhash_agg_set.h): the set's table and
 *		dense groups in one device allocation, rebuilt larger by a rehash
 *		kernel; a merge uploads the request's groups and combines them in
 *		(agg_set.cuh, a thread per group: a request's groups are distinct,
 *		so only the slot claim is atomic); a finish flags the survivors of
 *		the HAVING terms, compacts their indices with CUB, sorts them by
 *		(null mask, key) with CUB's radix sort (stable: one pass a key word,
 *		the least significant first, then the null mask), the order the
 *		host twin's sort gives (gh_agg_set_output), and gathers them into
 *		one range copied back into the answer.
 *
 *		Each set has its own stream; the caller serializes the calls on
 *		one set.
 */
#include "gpu_common.cuh"
#include "agg_set_internal.h"
#include "agg_set.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <string.h>
#include <vector>

namespace
{

/* The offsets of a set's arrays in its allocation, for cap groups. */
struct set_layout
{
	size_t		slot,
				keys,
				nulls,
				states,
				count,
				total;

	set_layout(uint64_t cap, int naggs, int kw)
	{
		slot = 0;
		keys = gh_align256(sizeof(uint32_t) * gh_agg_slots(cap));
		nulls = keys + gh_align256(sizeof(uint64_t) * kw * cap);
		states = nulls + gh_align256(cap);
		count = states + gh_align256(sizeof(gh_agg_state) * naggs * cap);
		total = count + gh_align256(sizeof(unsigned long long));
	}
};

gh_set_view
view_of(gh_agg_set *set, uint8_t *mem, uint64_t cap)
{
	set_layout	l(cap, set->agg.naggs, set->kw);
	gh_set_view v;

	v.slot = (uint32_t *) (mem + l.slot);
	v.mask = gh_agg_slots(cap) - 1;
	v.keys = (uint64_t *) (mem + l.keys);
	v.nulls = mem + l.nulls;
	v.states = (gh_agg_state *) (mem + l.states);
	v.n_groups = (unsigned long long *) (mem + l.count);
	v.naggs = set->agg.naggs;
	return v;
}

template <int KW>
__global__ void
reinsert_kernel(gh_set_view v, uint64_t n)
{
	for (uint64_t g = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; g < n;
		 g += (uint64_t) gridDim.x * blockDim.x)
		gh_set_reinsert<KW>(v, g);
}

/* The set's program, by value: a kernel argument (under 4 kB). */
struct merge_args
{
	gh_agg_spec spec[GH_AGG_MAX_AGGS];
	uint8_t		in_type[GH_AGG_MAX_AGGS];
};

template <int KW>
__global__ void
merge_kernel(gh_set_view v, const uint64_t *__restrict__ keys, const uint8_t *__restrict__ nulls,
			 const gh_agg_state *__restrict__ states, uint64_t n, merge_args m)
{
	for (uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		bool		fresh;
		uint64_t	key[KW];

#pragma unroll
		for (int j = 0; j < KW; j++)
			key[j] = keys[i * KW + j];

		uint64_t	g = gh_set_find<KW>(v, key, nulls[i], &fresh);
		gh_agg_state *d = &v.states[g * v.naggs];

		for (int a = 0; a < v.naggs; a++)
		{
			if (fresh)
				d[a] = states[i * v.naggs + a];
			else
				gh_agg_combine(m.spec[a], m.in_type[a], &d[a], &states[i * v.naggs + a]);
		}
	}
}

/* Group g's flag (does it survive the terms?) and its index, for the compaction. */
__global__ void
keep_kernel(gh_set_view v, uint64_t n, gh_agg_having h, uint8_t *keep, uint32_t *index)
{
	for (uint64_t g = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; g < n;
		 g += (uint64_t) gridDim.x * blockDim.x)
	{
		keep[g] = h.nterms == 0 || gh_having_keeps(&h, &v.states[g * v.naggs], v.naggs);
		index[g] = (uint32_t) g;
	}
}

/* Survivor i (group idx[i]) into the out arrays. */
__global__ void
gather_kernel(gh_set_view v, const uint32_t *__restrict__ idx, const unsigned long long *n_sel,
			  uint64_t *okeys, uint8_t *onulls, gh_agg_state *ostates, int kw)
{
	uint64_t	n = *n_sel;

	for (uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	g = idx[i];

		for (int j = 0; j < kw; j++)
			okeys[i * kw + j] = v.keys[g * kw + j];
		onulls[i] = v.nulls[g];
		for (int a = 0; a < v.naggs; a++)
			ostates[i * v.naggs + a] = v.states[g * v.naggs + a];
	}
}

/* Sort keys of the survivors in their current order: key word w, or the null mask. */
__global__ void
word_kernel(gh_set_view v, const uint32_t *__restrict__ idx, uint64_t n, int kw, int w,
			uint64_t *out)
{
	for (uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		out[i] = v.keys[(uint64_t) idx[i] * kw + w];
}

__global__ void
mask_kernel(gh_set_view v, const uint32_t *__restrict__ idx, uint64_t n, uint8_t *out)
{
	for (uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		out[i] = v.nulls[idx[i]];
}

gh_status
enter(gh_agg_set *set, cudaStream_t *st)
{
	int			ndev = 0;

	GH_TRY(cudaGetDeviceCount(&ndev));
	if (set->device < 0 || set->device >= ndev)
		return gh_error(GH_ERR_NO_GPU, "resident groups: no GPU %d", set->device);
	GH_TRY(cudaSetDevice(set->device));
	if (set->d_stream == nullptr)
	{
		cudaStream_t s;

		GH_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
		set->d_stream = (void *) s;
	}
	*st = (cudaStream_t) set->d_stream;
	return GH_OK;
}

gh_status
device_alloc(void **p, size_t bytes, const char *what)
{
	if (cudaMalloc(p, bytes) != cudaSuccess)
	{
		cudaGetLastError();
		*p = nullptr;
		return gh_error(GH_ERR_GPU_MEMORY, "resident groups: %zu bytes of device memory for %s",
						bytes, what);
	}
	return GH_OK;
}

}								/* namespace */

gh_status
gh_gpu_agg_set_grow(gh_agg_set *set, uint64_t cap)
{
	cudaStream_t st;
	void	   *mem = nullptr;
	int			na = set->agg.naggs;

	GH_CHECK(enter(set, &st));
	set_layout	l(cap, na, set->kw);

	GH_CHECK(device_alloc(&mem, l.total, "its groups"));

	uint8_t    *m = (uint8_t *) mem;
	gh_set_view v = view_of(set, m, cap);
	unsigned long long n = set->n_groups;
	cudaError_t e = cudaMemsetAsync(m + l.slot, 0xFF, sizeof(uint32_t) * gh_agg_slots(cap), st);

	if (e == cudaSuccess && set->d_mem && n > 0)
	{
		gh_set_view o = view_of(set, (uint8_t *) set->d_mem, set->cap);

		e = cudaMemcpyAsync(v.keys, o.keys, sizeof(uint64_t) * set->kw * n,
							cudaMemcpyDeviceToDevice, st);
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(v.nulls, o.nulls, n, cudaMemcpyDeviceToDevice, st);
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(v.states, o.states, sizeof(gh_agg_state) * na * n,
								cudaMemcpyDeviceToDevice, st);
	}
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(v.n_groups, &n, sizeof(n), cudaMemcpyHostToDevice, st);
	if (e == cudaSuccess && n > 0)
	{
		gh_agg_by_kw(set->kw, [&](auto k) {
			reinsert_kernel<decltype(k)::value><<<std::min(gh_blocks(n, 256), 4096u), 256, 0,
												  st>>>(v, n);
		});
		e = cudaGetLastError();
	}
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(st);
	if (e != cudaSuccess)
	{
		cudaFree(mem);
		return gh_cuda_error(e, "resident groups: growing a set", __FILE__, __LINE__);
	}
	if (set->d_mem)
		GH_TRY(cudaFree(set->d_mem));
	set->d_mem = mem;
	set->cap = cap;
	set->slots = gh_agg_slots(cap);
	return GH_OK;
}

gh_status
gh_gpu_agg_set_merge(gh_agg_set *set, const gh_agg_groups *src)
{
	cudaStream_t st;
	int			na = set->agg.naggs;
	uint64_t	n = src->n_groups;
	size_t		o_nulls = gh_align256(sizeof(uint64_t) * set->kw * n),
				o_states = o_nulls + gh_align256(n),
				bytes = o_states + sizeof(gh_agg_state) * na * n;

	GH_CHECK(enter(set, &st));
	if (bytes > set->d_in_bytes)
	{
		if (set->d_in)
			GH_TRY(cudaFree(set->d_in));
		set->d_in = nullptr;
		set->d_in_bytes = 0;
		GH_CHECK(device_alloc(&set->d_in, bytes + bytes / 4, "a merge"));
		set->d_in_bytes = bytes + bytes / 4;
	}

	uint8_t    *in = (uint8_t *) set->d_in;
	gh_set_view v = view_of(set, (uint8_t *) set->d_mem, set->cap);
	merge_args	m;

	for (int a = 0; a < na; a++)
	{
		m.spec[a] = set->agg.agg[a];
		m.in_type[a] = set->in_type[a];
	}
	/* pageable host memory: these copies return once the data is taken */
	GH_TRY(cudaMemcpyAsync(in, src->keys, sizeof(uint64_t) * set->kw * n, cudaMemcpyHostToDevice,
						   st));
	GH_TRY(cudaMemcpyAsync(in + o_nulls, src->nulls, n, cudaMemcpyHostToDevice, st));
	GH_TRY(cudaMemcpyAsync(in + o_states, src->states, sizeof(gh_agg_state) * na * n,
						   cudaMemcpyHostToDevice, st));
	gh_agg_by_kw(set->kw, [&](auto k) {
		merge_kernel<decltype(k)::value><<<std::min(gh_blocks(n, 256), 4096u), 256, 0, st>>>(
			v, (const uint64_t *) in, in + o_nulls, (const gh_agg_state *) (in + o_states), n, m);
	});
	GH_LAUNCHED();
	GH_TRY(cudaMemcpyAsync(&set->n_groups, v.n_groups, sizeof(unsigned long long),
						   cudaMemcpyDeviceToHost, st));
	GH_TRY(cudaStreamSynchronize(st));
	return GH_OK;
}

gh_status
gh_gpu_agg_set_finish(gh_agg_set *set, const gh_agg_having *having, gh_agg_groups *out,
					  uint64_t *removed)
{
	cudaStream_t st;
	int			na = set->agg.naggs,
				kw = set->kw;
	uint64_t	n = set->n_groups;
	gh_agg_having h;

	GH_CHECK(enter(set, &st));
	memset(&h, 0, sizeof(h));
	if (having)
		h = *having;
	if (n == 0 || set->d_mem == nullptr)
		return gh_agg_set_output(set, nullptr, nullptr, nullptr, 0, out);

	gh_set_view v = view_of(set, (uint8_t *) set->d_mem, set->cap);
	size_t		sel_tmp = 0,
				word_tmp = 0,
				mask_tmp = 0;

	GH_TRY(cub::DeviceSelect::Flagged(nullptr, sel_tmp, (const uint32_t *) nullptr,
									  (const uint8_t *) nullptr, (uint32_t *) nullptr,
									  (unsigned long long *) nullptr, (int) n, st));
	GH_TRY(cub::DeviceRadixSort::SortPairs(nullptr, word_tmp, (const uint64_t *) nullptr,
										   (uint64_t *) nullptr, (const uint32_t *) nullptr,
										   (uint32_t *) nullptr, (int) n, 0, 64, st));
	GH_TRY(cub::DeviceRadixSort::SortPairs(nullptr, mask_tmp, (const uint8_t *) nullptr,
										   (uint8_t *) nullptr, (const uint32_t *) nullptr,
										   (uint32_t *) nullptr, (int) n, 0, 8, st));

	size_t		tmp = std::max(sel_tmp, std::max(word_tmp, mask_tmp));

	/*
	 * flags | indices | selected indices (sorted in place by turns with the
	 * second) | second | count | cub | sort keys (two) | masks (two) |
	 * survivors' keys, nulls, states
	 */
	size_t		o_all = gh_align256(n),
				o_idx = o_all + gh_align256(sizeof(uint32_t) * n),
				o_idx2 = o_idx + gh_align256(sizeof(uint32_t) * n),
				o_cnt = o_idx2 + gh_align256(sizeof(uint32_t) * n),
				o_tmp = o_cnt + gh_align256(sizeof(unsigned long long)),
				o_sk = o_tmp + gh_align256(tmp),
				o_sk2 = o_sk + gh_align256(sizeof(uint64_t) * n),
				o_mk = o_sk2 + gh_align256(sizeof(uint64_t) * n),
				o_mk2 = o_mk + gh_align256(n),
				o_keys = o_mk2 + gh_align256(n),
				o_nulls = o_keys + gh_align256(sizeof(uint64_t) * kw * n),
				o_states = o_nulls + gh_align256(n),
				total = o_states + sizeof(gh_agg_state) * na * n;
	void	   *mem = nullptr;

	GH_CHECK(device_alloc(&mem, total, "a finish"));

	uint8_t    *d = (uint8_t *) mem;
	uint32_t   *idx = (uint32_t *) (d + o_idx),
			   *idx2 = (uint32_t *) (d + o_idx2);
	unsigned long long kept = 0;
	unsigned	blocks = std::min(gh_blocks(n, 256), 4096u);
	cudaError_t e;

	keep_kernel<<<blocks, 256, 0, st>>>(v, n, h, d, (uint32_t *) (d + o_all));
	e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cub::DeviceSelect::Flagged(d + o_tmp, sel_tmp, (const uint32_t *) (d + o_all), d,
									   idx, (unsigned long long *) (d + o_cnt), (int) n, st);
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(&kept, d + o_cnt, sizeof(kept), cudaMemcpyDeviceToHost, st);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(st);

	/* the order: each key word from the last, then the mask; each pass stable */
	for (int w = kw - 1; e == cudaSuccess && kept > 1 && w >= -1; w--)
	{
		size_t		t = tmp;

		if (w >= 0)
		{
			word_kernel<<<blocks, 256, 0, st>>>(v, idx, kept, kw, w, (uint64_t *) (d + o_sk));
			e = cudaGetLastError();
			if (e == cudaSuccess)
				e = cub::DeviceRadixSort::SortPairs(d + o_tmp, t, (const uint64_t *) (d + o_sk),
													(uint64_t *) (d + o_sk2), idx, idx2,
													(int) kept, 0, 64, st);
		}
		else
		{
			mask_kernel<<<blocks, 256, 0, st>>>(v, idx, kept, d + o_mk);
			e = cudaGetLastError();
			if (e == cudaSuccess)
				e = cub::DeviceRadixSort::SortPairs(d + o_tmp, t, (const uint8_t *) (d + o_mk),
													d + o_mk2, idx, idx2, (int) kept, 0, 8, st);
		}
		std::swap(idx, idx2);
	}
	if (e == cudaSuccess && kept > 0)
	{
		gather_kernel<<<blocks, 256, 0, st>>>(v, idx, (const unsigned long long *) (d + o_cnt),
											  (uint64_t *) (d + o_keys), d + o_nulls,
											  (gh_agg_state *) (d + o_states), kw);
		e = cudaGetLastError();
	}

	gh_status	hs = GH_OK;

	if (e == cudaSuccess)
		hs = gh_agg_set_alloc_out(set, kept, out);
	if (e == cudaSuccess && hs == GH_OK && kept > 0)
	{
		e = cudaMemcpyAsync(out->keys, d + o_keys, sizeof(uint64_t) * kw * kept,
							cudaMemcpyDeviceToHost, st);
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(out->nulls, d + o_nulls, kept, cudaMemcpyDeviceToHost, st);
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(out->states, d + o_states, sizeof(gh_agg_state) * na * kept,
								cudaMemcpyDeviceToHost, st);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(st);
	}
	cudaFree(mem);
	if (e != cudaSuccess)
	{
		gh_agg_groups_free(out);
		return gh_cuda_error(e, "resident groups: finishing a set", __FILE__, __LINE__);
	}
	if (hs != GH_OK)
		return hs;
	*removed = n - kept;
	gh_agg_set_out_filled(set, out, kept);
	return GH_OK;
}

void
gh_gpu_agg_set_release(gh_agg_set *set)
{
	/* errors ignored: this runs after failures and at the owner's end */
	if (set->device < 0 || cudaSetDevice(set->device) != cudaSuccess)
	{
		cudaGetLastError();
		return;
	}
	if (set->d_stream)
		cudaStreamSynchronize((cudaStream_t) set->d_stream);
	cudaFree(set->d_mem);
	cudaFree(set->d_in);
	if (set->d_stream)
		cudaStreamDestroy((cudaStream_t) set->d_stream);
	cudaGetLastError();
	set->d_mem = set->d_in = nullptr;
	set->d_stream = nullptr;
}
