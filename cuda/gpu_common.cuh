/*
 * gpu_common.cuh
 *		What the GPU side shares: checked CUDA calls, device memory owned by a
 *		table (with its budget), the per-table state, and small kernels used
 *		by several builders.
 */
#ifndef GPUHASH_GPU_COMMON_CUH
#define GPUHASH_GPU_COMMON_CUH

#include "table_internal.h"

#include <cuda_runtime.h>

/* Maps a CUDA error to a status and records its text. */
gh_status	gh_cuda_error(cudaError_t e, const char *what, const char *file, int line);

#define GH_TRY(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
			return gh_cuda_error(e_, #call, __FILE__, __LINE__); \
	} while (0)

/* After a kernel launch: catches bad configurations and sticky errors. */
#define GH_LAUNCHED() GH_TRY(cudaGetLastError())

/* Propagates a gh_status. */
#define GH_CHECK(expr) \
	do { \
		gh_status s_ = (expr); \
		if (s_ != GH_OK) \
			return s_; \
	} while (0)

struct gh_gpu_state
{
	int			ordinal;
	cudaStream_t stream;
	size_t		budget;			/* 0 = unlimited */
	size_t		bytes;			/* device memory held now */
	size_t		peak;
	bool		pool;			/* stream-ordered allocator (else cudaMalloc) */
	bool		l2_window;		/* an L2 persisting window is set on stream */

	/* the table */
	void	   *d_rowids;		/* n_rows, grouped by key */
	void	   *d_rec;			/* FKS level 1, HashGraph offsets */
	gh_slot    *d_slots;
	uint8_t    *d_cells;		/* GPH */

	/* probe scratch, grown on demand */
	uint64_t   *d_keys;
	gh_range   *d_ranges;
	uint32_t   *d_counts;
	uint64_t   *d_pos;
	size_t		probe_cap;
	void	   *d_cub;
	size_t		cub_bytes;
	uint32_t   *d_out_idx;
	void	   *d_out_rows;
	uint64_t	out_cap;
	uint64_t   *d_total;

	/* gh_set_carried's columns, in key-grouped order (t->n_carried of them) */
	uint64_t   *d_carried;
	uint8_t    *d_carried_valid;	/* or NULL: all valid */

	/* a staged build's keys as they come, until it is built (gh_build_staged_*) */
	uint64_t   *d_staged;

	/* the page walk's scratch (gpu_page.cu), or NULL */
	struct gh_page_gpu *page;
};

/* Frees the page walk's scratch of a table (gh_gpu_free calls it). */
void		gh_gpu_page_free(gh_table *t);

/*
 * Device allocation charged to the table's budget.  Stream-ordered
 * (cudaMallocAsync / cudaFreeAsync on the table's stream) from the device's
 * default pool, whose release threshold is raised once per device so that
 * freed memory stays cached for the next build in the process instead of
 * going back to the driver at every synchronization (gh_gpu_trim returns
 * it).  A failed allocation is a clean GH_ERR_GPU_MEMORY.
 */
gh_status	gh_dmalloc(gh_table *t, void **p, size_t bytes);
void		gh_dfree(gh_table *t, void *p, size_t bytes);
/* Scratch *p of *have bytes made at least want bytes (freed, then taken anew), within the budget. */
gh_status	gh_dgrow(gh_table *t, void **p, size_t *have, size_t want);

/* A scratch allocation freed when it goes out of scope. */
struct gh_dscratch
{
	gh_table   *t;
	void	   *p = nullptr;
	size_t		bytes = 0;

	explicit	gh_dscratch(gh_table *tab) : t(tab) {}
	gh_status	alloc(size_t b)
	{
		release();
		bytes = b;
		return gh_dmalloc(t, &p, b ? b : 1);
	}
	template <typename T> T *as() const
	{
		return (T *) p;
	}
	void		release()
	{
		if (p)
			gh_dfree(t, p, bytes ? bytes : 1);
		p = nullptr;
	}
	~gh_dscratch()
	{
		release();
	}
};

/* Grows the table's CUB temporary storage to at least bytes. */
gh_status	gh_cub_reserve(gh_table *t, size_t bytes);

/* Launch geometry for an n-element elementwise kernel. */
static inline unsigned
gh_blocks(uint64_t n, unsigned threads)
{
	uint64_t	b = (n + threads - 1) / threads;

	return (unsigned) (b == 0 ? 1 : (b > 0x7fffffffULL ? 0x7fffffffULL : b));
}

/* Appends item to out[] when keep is true, one atomic per warp (the
 * warp-aggregated append: no global hot spot). All lanes must call it. */
__device__ __forceinline__ void
gh_warp_append(bool keep, uint32_t item, uint32_t *out, uint32_t *count)
{
	unsigned	mask = __ballot_sync(0xffffffffU, keep);

	if (mask == 0)
		return;
	int			lane = threadIdx.x & 31;
	int			leader = __ffs(mask) - 1;
	uint32_t	base = 0;

	if (lane == leader)
		base = atomicAdd(count, (uint32_t) __popc(mask));
	base = __shfl_sync(0xffffffffU, base, leader);
	if (keep)
		out[base + __popc(mask & ((1U << lane) - 1))] = item;
}

/* Device-resident entry points, used by the benchmark and the host API. */
gh_status	gh_gpu_build_device(gh_table *t, const gh_build_options *opt,
								const uint64_t *d_keys, const void *d_rowids, size_t n);
gh_status	gh_gpu_lookup_device(gh_table *t, const uint64_t *d_keys, size_t n,
								 gh_range *d_ranges, uint32_t *d_counts);
/* The same on stream st (a page walk's lane: gpu_page.cu); the table is only read. */
gh_status	gh_gpu_lookup_on(gh_table *t, cudaStream_t st, const uint64_t *d_keys, size_t n,
							 gh_range *d_ranges, uint32_t *d_counts);
gh_status	gh_gpu_emit_device(gh_table *t, const uint64_t *d_keys, size_t n,
							   uint32_t *d_probe_index, void *d_rowids,
							   uint64_t capacity, uint64_t *total);
/*
 * Where a part's lookup sends the keys other parts own (a table split by
 * gh_part_of over `parts` GPUs, this one holding part `me`): keys for part
 * d go to to[d] (device memory, usually on d's GPU, reached by peer access)
 * at slots counted by n_to[d] (this GPU's memory, zeroed by the caller),
 * and from[d] (this GPU's memory) gets each one's position in the input,
 * for bringing d's results back (32 bits: a lookup of 2^32 keys or more
 * is refused).  to[me] and from[me] are unused.
 */
struct gh_route
{
	uint32_t	parts;
	uint32_t	me;
	uint64_t   *to[GH_MAX_PARTS];
	uint32_t   *from[GH_MAX_PARTS];
	unsigned long long *n_to;
};

/*
 * GPH only, on t's stream: probes the keys t's part owns, as
 * gh_gpu_lookup_device, and sends the others as r says; their counts and
 * ranges here are zero.  Keys are read once; the sends overlap the probes.
 * Only bench_multi_gpu.cu calls it, to measure a shuffle in the probe; a
 * partitioned table's probe (partitioned.cpp) does not route.
 */
gh_status	gh_gpu_lookup_routed(gh_table *t, const uint64_t *d_keys, size_t n, const gh_route *r,
								 gh_range *d_ranges, uint32_t *d_counts);
/* GPH only: as gh_gpu_lookup_device for the first *d_n (<= cap) keys, with
 * *d_n read on the device (an inbox filled by gh_gpu_lookup_routed). */
gh_status	gh_gpu_lookup_counted(gh_table *t, const uint64_t *d_keys, const unsigned long long *d_n,
								  size_t cap, gh_range *d_ranges, uint32_t *d_counts);

/* Creates the GPU state of a table (stream, budget) without building. */
gh_status	gh_gpu_attach(gh_table *t, const gh_build_options *opt);

/* gh_build for keys (and rowids, or NULL) already on the device. */
gh_status	gh_build_from_device(const gh_build_options *opt, const uint64_t *d_keys,
								 const void *d_rowids, int rowid_width, size_t n,
								 gh_table **out);

/* Probes in flight per thread (GPH, cuckoo: per 4-lane group): 1, 2 or 4. */
extern int	gh_probe_ilp;

/*
 * 1 (default): after a GPH or FKS build, an L2 persisting access-policy
 * window over the table's small hot array (GPH cells, FKS level 1) is set
 * on the table's stream (the device's persisting carve-out is raised once
 * to its maximum), so that the slots streamed by probes (loaded evict-first)
 * cannot push it out of L2.  0: no window (streaming slot loads only).
 * Read at build time.
 */
extern int	gh_l2_persist;

/* Sets the window described above on t's stream (no-op when off,
 * unsupported, or the array is far larger than the carve-out). */
void		gh_gpu_set_l2_window(gh_table *t, const void *base, size_t bytes);

#endif							/* GPUHASH_GPU_COMMON_CUH */
