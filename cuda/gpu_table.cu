/*
 * gpu_table.cu
 *		A table's GPU state: device choice, stream, memory charged against the
 *		table's budget, the rowid download, validation on host copies, freeing;
 *		and GPU discovery for gpuhash_info().
 */
#include "gpu_common.cuh"
#include "scheme_ops.h"

#include <atomic>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gh_gpu_inject_fault's kernel: a store to an address no allocation has. */
__global__ void
fault_kernel(volatile int *p)
{
	*p = 1;
}

gh_status
gh_gpu_inject_fault(int ordinal)
{
	GH_TRY(cudaSetDevice(ordinal));
	fault_kernel<<<1, 1>>>((volatile int *) 16);
	GH_LAUNCHED();
	GH_TRY(cudaDeviceSynchronize());
	return gh_error(GH_ERR_CUDA, "an injected device fault did not fault");
}

gh_status
gh_cuda_error(cudaError_t e, const char *what, const char *file, int line)
{
	gh_status	s;

	switch (e)
	{
		case cudaErrorMemoryAllocation:
			s = GH_ERR_GPU_MEMORY;
			break;
		case cudaErrorNoDevice:
		case cudaErrorInsufficientDriver:
		case cudaErrorInvalidDevice:
		case cudaErrorDevicesUnavailable:
			s = GH_ERR_NO_GPU;
			break;
		case cudaErrorIllegalAddress:
		case cudaErrorAssert:
		case cudaErrorLaunchFailure:
		case cudaErrorLaunchTimeout:
		case cudaErrorHardwareStackError:
		case cudaErrorIllegalInstruction:
		case cudaErrorMisalignedAddress:
		case cudaErrorInvalidAddressSpace:
		case cudaErrorInvalidPc:
		case cudaErrorECCUncorrectable:
			/* sticky: the context is lost for the rest of the process */
			gh_note_gpu_lost();
			s = GH_ERR_CUDA;
			break;
		default:
			s = GH_ERR_CUDA;
	}
	/* clear a non-sticky error so the next call starts clean */
	cudaGetLastError();
	const char *base = strrchr(file, '/');

	return gh_error(s, "CUDA error %s (%s) in %s at %s:%d", cudaGetErrorName(e),
					cudaGetErrorString(e), what, base ? base + 1 : file, line);
}

gh_status
gh_dmalloc(gh_table *t, void **p, size_t bytes)
{
	gh_gpu_state *g = t->gpu;

	*p = nullptr;
	if (g->budget && g->bytes + bytes > g->budget)
		return gh_error(GH_ERR_GPU_MEMORY,
						"GPU memory budget of %zu bytes exceeded (%zu held, %zu more wanted)",
						g->budget, g->bytes, bytes);
	cudaError_t e = g->pool ? cudaMallocAsync(p, bytes ? bytes : 1, g->stream)
		: cudaMalloc(p, bytes ? bytes : 1);

	if (e != cudaSuccess)
	{
		*p = nullptr;
		return gh_cuda_error(e, g->pool ? "cudaMallocAsync" : "cudaMalloc", __FILE__, __LINE__);
	}
	g->bytes += bytes;
	if (g->bytes > g->peak)
		g->peak = g->bytes;
	t->stats.device_bytes = g->bytes;
	return GH_OK;
}

void
gh_dfree(gh_table *t, void *p, size_t bytes)
{
	if (!p)
		return;
	if (t->gpu->pool)
		cudaFreeAsync(p, t->gpu->stream);
	else
		cudaFree(p);
	t->gpu->bytes -= bytes;
	t->stats.device_bytes = t->gpu->bytes;
}

gh_status
gh_dgrow(gh_table *t, void **p, size_t *have, size_t want)
{
	if (*p && *have >= want)
		return GH_OK;
	if (*p)
		gh_dfree(t, *p, *have);
	*p = nullptr;
	*have = 0;
	GH_CHECK(gh_dmalloc(t, p, want));
	*have = want;
	return GH_OK;
}

namespace
{

constexpr int MAX_DEVICES = 64;

/* per device: 0 = not yet looked at, 1 = pool ready, -1 = no pools */
std::atomic<int> pool_ready[MAX_DEVICES];
/* per device: persisting L2 carve-out set (bytes), -1 = unsupported */
std::atomic<long long> l2_carveout[MAX_DEVICES];

/* Raises the default pool's release threshold once per device. */
bool
pool_setup(int dev)
{
	if (dev < 0 || dev >= MAX_DEVICES)
		return false;

	int			state = pool_ready[dev].load();

	if (state != 0)
		return state > 0;

	int			supported = 0;
	cudaMemPool_t pool;
	bool		ok = cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev) == cudaSuccess &&
		supported && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess;

	if (ok)
	{
		uint64_t	threshold = UINT64_MAX;

		ok = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess;
	}
	cudaGetLastError();
	pool_ready[dev].store(ok ? 1 : -1);
	return ok;
}

}								/* namespace */

/*
 * Off by default: measured on an H100 (bench_core), the persisting
 * carve-out shrinks the L2 every other kernel sees, and builds (the radix
 * sort above all) and probes both ran slower with it than without.
 */
int			gh_l2_persist = 0;

void
gh_gpu_set_l2_window(gh_table *t, const void *base, size_t bytes)
{
	gh_gpu_state *g = t->gpu;
	int			dev = g->ordinal;

	if (!gh_l2_persist || !base || bytes == 0 || dev < 0 || dev >= MAX_DEVICES)
		return;

	long long	carve = l2_carveout[dev].load();

	if (carve == 0)
	{
		int			max_persist = 0;

		if (cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev) != cudaSuccess ||
			max_persist <= 0 ||
			cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t) max_persist) != cudaSuccess)
			carve = -1;
		else
		{
			size_t		got = 0;

			carve = cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize) == cudaSuccess && got > 0 ?
				(long long) got : -1;
		}
		cudaGetLastError();
		l2_carveout[dev].store(carve);
	}
	if (carve <= 0)
		return;

	int			max_window = 0;

	if (cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev) != cudaSuccess ||
		max_window <= 0)
	{
		cudaGetLastError();
		return;
	}
	size_t		num = bytes < (size_t) max_window ? bytes : (size_t) max_window;

	/* a window far beyond the carve-out would persist a random sliver of
	 * the array while shrinking L2 for everything else: skip it */
	if ((double) num > 2.0 * (double) carve)
		return;

	cudaStreamAttrValue a;

	memset(&a, 0, sizeof(a));
	a.accessPolicyWindow.base_ptr = const_cast<void *>(base);
	a.accessPolicyWindow.num_bytes = num;
	a.accessPolicyWindow.hitRatio = (float) ((double) carve >= (double) num ? 1.0 : (double) carve / (double) num);
	a.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	a.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	if (cudaStreamSetAttribute(g->stream, cudaStreamAttributeAccessPolicyWindow, &a) == cudaSuccess)
		g->l2_window = true;
	cudaGetLastError();
}

gh_status
gh_host_register(void *ptr, size_t bytes)
{
	if (gh_gpu_count() == 0)
		return gh_error(GH_ERR_NO_GPU, "no GPU to register host memory with");
	/* portable: every GPU's copies use it */
	GH_TRY(cudaHostRegister(ptr, bytes, cudaHostRegisterPortable));
	return GH_OK;
}

void
gh_gpu_trim(int ordinal)
{
	cudaMemPool_t pool;
	int			dev = ordinal < 0 ? 0 : ordinal;

	if (dev < MAX_DEVICES && pool_ready[dev].load() > 0 &&
		cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
	{
		cudaDeviceSynchronize();
		cudaMemPoolTrimTo(pool, 0);
	}
	cudaGetLastError();
}

gh_status
gh_cub_reserve(gh_table *t, size_t bytes)
{
	gh_gpu_state *g = t->gpu;

	if (g->d_cub && g->cub_bytes >= bytes)
		return GH_OK;
	if (g->d_cub)
		gh_dfree(t, g->d_cub, g->cub_bytes);
	g->d_cub = nullptr;
	g->cub_bytes = 0;
	GH_CHECK(gh_dmalloc(t, &g->d_cub, bytes));
	g->cub_bytes = bytes;
	return GH_OK;
}

gh_status
gh_gpu_attach(gh_table *t, const gh_build_options *opt)
{
	int			count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	if (e != cudaSuccess || count == 0)
	{
		cudaGetLastError();
		return gh_error(GH_ERR_NO_GPU, "no usable GPU: %s",
						e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
	}
	int			ordinal = opt->gpu_ordinal < 0 ? 0 : opt->gpu_ordinal;

	if (ordinal >= count)
		return gh_error(GH_ERR_NO_GPU, "GPU %d requested but %d present", ordinal, count);

	gh_gpu_state *g = (gh_gpu_state *) calloc(1, sizeof(gh_gpu_state));

	if (!g)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory");
	t->gpu = g;
	t->ordinal = ordinal;
	g->ordinal = ordinal;
	g->budget = opt->max_device_bytes;
	GH_TRY(cudaSetDevice(ordinal));
	GH_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
	g->pool = pool_setup(ordinal);
	return GH_OK;
}

gh_status
gh_gpu_fetch_rowids(gh_table *t)
{
	gh_gpu_state *g = t->gpu;
	size_t		bytes = t->n_rows * t->rowid_width;
	void	   *h = malloc(bytes ? bytes : 1);
	double		t0 = gh_now_ms();

	if (!h)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for %llu rowids",
						(unsigned long long) t->n_rows);
	cudaError_t e = cudaSetDevice(g->ordinal);

	if (e == cudaSuccess && bytes)
		e = cudaMemcpyAsync(h, g->d_rowids, bytes, cudaMemcpyDeviceToHost, g->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(g->stream);
	if (e != cudaSuccess)
	{
		free(h);
		return gh_cuda_error(e, "rowid download", __FILE__, __LINE__);
	}
	t->h_rowids = h;
	t->host_bytes += bytes;
	t->stats.transfer_ms += gh_now_ms() - t0;
	return GH_OK;
}

/*
 * gh_replicate: t (zeroed) becomes a copy of src on GPU ordinal.  The
 * copies go GPU to GPU (peer to peer where the GPUs allow it, through the
 * host otherwise: cudaMemcpyPeerAsync chooses) on the copy's own stream;
 * src is only read.  Each allocation is owned by t as soon as it is made,
 * so that gh_free(t) cleans up after a failure.
 */
gh_status
gh_gpu_replicate(const gh_table *src, int ordinal, size_t budget, gh_table *t)
{
	const gh_scheme_ops *ops = gh_scheme_ops_of(src->scheme);
	const gh_gpu_state *sg = src->gpu;
	gh_array	a[GH_MAX_ARRAYS];
	void	   *p[GH_MAX_ARRAYS] = {};
	int			n = ops->arrays(src, a);
	gh_build_options opt;
	gh_gpu_state *g;

	/* the scalars and the views; no host memory and no GPU state of src's */
	*t = *src;
	t->gpu = nullptr;
	t->h_rowids = t->h_rec = nullptr;
	t->h_slots = nullptr;
	t->h_cells = nullptr;
	t->h_carried = nullptr;
	t->h_carried_valid = nullptr;
	t->host_bytes = 0;
	memset(&t->stats, 0, sizeof(t->stats));
	gh_default_options(&opt);
	opt.device = GH_DEVICE_GPU;
	opt.gpu_ordinal = ordinal;
	opt.max_device_bytes = budget;
	GH_CHECK(gh_gpu_attach(t, &opt));
	g = t->gpu;

	/* the scheme's arrays: the slots last, GPH's cells or FKS's and
	 * HashGraph's records first (the fields gh_gpu_free frees) */
	void	  **own[GH_MAX_ARRAYS] = {(void **) &g->d_slots};

	if (n == 2)
	{
		own[0] = src->scheme == GH_SCHEME_GPH ? (void **) &g->d_cells : &g->d_rec;
		own[1] = (void **) &g->d_slots;
	}
	for (int i = 0; i < n; i++)
	{
		GH_CHECK(gh_dmalloc(t, own[i], a[i].bytes));
		p[i] = *own[i];
		if (a[i].bytes)
			GH_TRY(cudaMemcpyPeerAsync(p[i], ordinal, a[i].p, sg->ordinal, a[i].bytes, g->stream));
	}
	ops->bind(t, p);

	size_t		rowid_bytes = t->n_rows * t->rowid_width;
	size_t		carried = (size_t) t->n_carried * t->n_rows;

	GH_CHECK(gh_dmalloc(t, &g->d_rowids, rowid_bytes));
	if (rowid_bytes)
		GH_TRY(cudaMemcpyPeerAsync(g->d_rowids, ordinal, sg->d_rowids, sg->ordinal, rowid_bytes,
								   g->stream));
	if (sg->d_carried)
	{
		GH_CHECK(gh_dmalloc(t, (void **) &g->d_carried, carried * sizeof(uint64_t)));
		if (carried)
			GH_TRY(cudaMemcpyPeerAsync(g->d_carried, ordinal, sg->d_carried, sg->ordinal,
									   carried * sizeof(uint64_t), g->stream));
	}
	if (sg->d_carried_valid)
	{
		GH_CHECK(gh_dmalloc(t, (void **) &g->d_carried_valid, carried));
		if (carried)
			GH_TRY(cudaMemcpyPeerAsync(g->d_carried_valid, ordinal, sg->d_carried_valid,
									   sg->ordinal, carried, g->stream));
	}
	GH_TRY(cudaStreamSynchronize(g->stream));
	return GH_OK;
}

/*
 * Host copies of the table's arrays (scheme_ops.h's order), malloc'd into
 * h[]; on failure the caller still frees h[] (NULL-initialised).
 */
static gh_status
download_arrays(gh_table *t, const gh_array *a, int n, void *h[GH_MAX_ARRAYS])
{
	cudaError_t e = cudaSetDevice(t->gpu->ordinal);

	for (int i = 0; i < n; i++)
	{
		h[i] = malloc(a[i].bytes ? a[i].bytes : 1);
		if (!h[i])
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory copying a table");
		if (e == cudaSuccess && a[i].bytes)
			e = cudaMemcpy(h[i], a[i].p, a[i].bytes, cudaMemcpyDeviceToHost);
	}
	if (e != cudaSuccess)
		return gh_cuda_error(e, "table download", __FILE__, __LINE__);
	return GH_OK;
}

/* Validates a copy of the table bound to host copies of its arrays. */
gh_status
gh_gpu_validate(gh_table *t)
{
	const gh_scheme_ops *ops = gh_scheme_ops_of(t->scheme);
	gh_array	a[GH_MAX_ARRAYS];
	void	   *h[GH_MAX_ARRAYS] = {};
	int			n = ops->arrays(t, a);
	gh_status	s = download_arrays(t, a, n, h);

	if (s == GH_OK)
	{
		gh_table	c = *t;

		ops->bind(&c, h);
		s = gh_validate_host(&c);
	}
	for (int i = 0; i < n; i++)
		free(h[i]);
	return s;
}

/* gh_layout_digest of a GPU table (one whose layout is fixed): 1 or 2 when
 * the host copy or the download fails. */
uint64_t
gh_gpu_layout_digest(gh_table *t)
{
	const gh_scheme_ops *ops = gh_scheme_ops_of(t->scheme);
	uint64_t	d = 0xcbf29ce484222325ULL;
	gh_array	a[GH_MAX_ARRAYS];
	void	   *h[GH_MAX_ARRAYS] = {};
	int			n = ops->arrays(t, a);
	gh_status	s = download_arrays(t, a, n, h);

	for (int i = 0; i < n; i++)
	{
		if (s == GH_OK)
			d = gh_digest_bytes(d, h[i], a[i].bytes);
		free(h[i]);
	}
	if (s != GH_OK)
		return s == GH_ERR_HOST_MEMORY ? 1 : 2;
	return d;
}

void
gh_gpu_free(gh_table *t)
{
	gh_gpu_state *g = t->gpu;
	void	   *ptrs[] = {g->d_rowids, g->d_rec, g->d_slots, g->d_cells, g->d_keys, g->d_ranges,
	g->d_counts, g->d_pos, g->d_cub, g->d_out_idx, g->d_out_rows, g->d_total,
	g->d_carried, g->d_carried_valid, g->d_staged};

	cudaSetDevice(g->ordinal);
	gh_gpu_page_free(t);
	for (void *p : ptrs)
		if (p)
		{
			if (g->pool && g->stream)
				cudaFreeAsync(p, g->stream);
			else
				cudaFree(p);
		}
	if (g->stream)
		cudaStreamSynchronize(g->stream);
	if (g->l2_window)
	{
		/* the freed array's lines must not keep the carve-out */
		cudaCtxResetPersistingL2Cache();
	}
	if (g->stream)
		cudaStreamDestroy(g->stream);
	cudaGetLastError();
	free(g);
	t->gpu = nullptr;
}

int
gh_gpu_count(void)
{
	int			n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess)
	{
		cudaGetLastError();
		gh_error(GH_ERR_NO_GPU, "no CUDA device or driver found (%s)", cudaGetErrorString(e));
		return 0;
	}
	if (n == 0)
		gh_error(GH_ERR_NO_GPU, "no CUDA device or driver found");
	return n;
}

gh_status
gh_gpu_get_info(int ordinal, gh_gpu_info *info)
{
	cudaDeviceProp p;

	memset(info, 0, sizeof(*info));
	GH_TRY(cudaGetDeviceProperties(&p, ordinal));
	info->ordinal = ordinal;
	snprintf(info->name, sizeof(info->name), "%s", p.name);
	info->total_memory = p.totalGlobalMem;
	info->cc_major = p.major;
	info->cc_minor = p.minor;
	info->multiprocessors = p.multiProcessorCount;
	info->l2_bytes = p.l2CacheSize;

	size_t		free_b = 0,
				total_b = 0;

	GH_TRY(cudaSetDevice(ordinal));
	GH_TRY(cudaMemGetInfo(&free_b, &total_b));
	info->free_memory = free_b;
	return GH_OK;
}

void
gh_cuda_versions(int *driver, int *runtime)
{
	*driver = 0;
	*runtime = 0;
	if (cudaDriverGetVersion(driver) != cudaSuccess)
		*driver = 0;
	if (cudaRuntimeGetVersion(runtime) != cudaSuccess)
		*runtime = 0;
	cudaGetLastError();
}
