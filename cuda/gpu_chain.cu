/*
 * gpu_chain.cu
 *		Multi-level probes on the GPU (gh_chain_probe and its windows; the
 *		host twin and the semantics are in chain.cpp).  Per level, on the
 *		device: gather each combination's key (an outer key column, or a
 *		column an earlier level's inner rows carry), look it up in the
 *		level's table, count what each combination becomes, scan the counts
 *		(CUB), and expand.  Only the last level's combinations (or the
 *		window of them asked for) are copied back.
 *
 *		The expansion finds each output's combination by a binary search
 *		over the scanned counts, so a key with a million matches spreads
 *		over a million threads instead of one.
 */
#include "gpu_common.cuh"
#include "gpu_probe.cuh"
#include "lane.cuh"

#include <algorithm>

#include <cub/device/device_scan.cuh>

namespace
{

/* Position p's carried cells: the rows' columns in key-grouped order. */
template <typename R>
__global__ void
carry_kernel(const R *__restrict__ rowids, uint64_t n, int ncols,
			 const uint64_t *__restrict__ in, const uint8_t *__restrict__ in_valid,
			 uint64_t *__restrict__ out, uint8_t *__restrict__ out_valid, uint32_t *bad)
{
	for (uint64_t p = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; p < n;
		 p += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	r = rowids[p];

		if (r >= n)
		{
			atomicOr(bad, 1U);
			continue;
		}
		for (int c = 0; c < ncols; c++)
		{
			out[(uint64_t) c * n + p] = in[(uint64_t) c * n + r];
			if (out_valid)
				out_valid[(uint64_t) c * n + p] = in_valid[(uint64_t) c * n + r];
		}
	}
}

__global__ void
iota_kernel(uint32_t *out, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		out[i] = (uint32_t) i;
}

/* Where a key part's cells are: idx is the outer row (src_pos NULL) or the source level's position. */
struct gather_part
{
	const uint64_t *col;
	const uint8_t *valid;
	const uint32_t *src_pos;
};

struct gather_parts
{
	int			n;
	gather_part p[GH_CHAIN_KEY_PARTS];
};

/*
 * Each combination's key, its parts' cells OR'd; ok[j] = 0 for a NULL part
 * or a source level without a row.
 */
__global__ void
gather_kernel(uint64_t m, const uint32_t *__restrict__ outer, gather_parts parts,
			  uint64_t *__restrict__ keys, uint8_t *__restrict__ ok)
{
	for (uint64_t j = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; j < m;
		 j += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	key = 0;
		uint8_t		good = 1;

		for (int q = 0; q < parts.n; q++)
		{
			const gather_part &gp = parts.p[q];
			uint32_t	idx = gp.src_pos ? gp.src_pos[j] : outer[j];

			if (idx == GH_NO_ROW)
				good = 0;
			else
			{
				key |= gp.col[idx];
				good &= gp.valid ? gp.valid[idx] : 1;
			}
		}
		keys[j] = good ? key : 0;
		ok[j] = good;
	}
}

/* The events that time a chain's levels, destroyed however the probe ends. */
struct level_events
{
	cudaEvent_t e[GH_MAX_CHAIN_LEVELS + 1];
	int			n = 0;

	cudaError_t create(int count)
	{
		for (; n < count; n++)
		{
			cudaError_t err = cudaEventCreate(&e[n]);

			if (err != cudaSuccess)
				return err;
		}
		return cudaSuccess;
	}
	~level_events()
	{
		for (int i = 0; i < n; i++)
			cudaEventDestroy(e[i]);
	}
};

/* What a combination with cnt matches becomes (chain.cpp's level_emits). */
__device__ __forceinline__ uint32_t
emits(int kind, uint32_t cnt)
{
	return kind == GH_LEVEL_INNER ? cnt : kind == GH_LEVEL_SEMI ? (cnt > 0)
		: kind == GH_LEVEL_ANTI ? (cnt == 0) : (cnt > 0 ? cnt : 1);
}

/* A NULL key's range emptied; then each combination's output count. */
__global__ void
count_kernel(uint64_t m, int kind, const uint8_t *__restrict__ ok, gh_range *ranges,
			 uint64_t *__restrict__ counts)
{
	for (uint64_t j = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; j < m;
		 j += (uint64_t) gridDim.x * blockDim.x)
	{
		if (!ok[j])
			ranges[j].count = 0;
		counts[j] = emits(kind, ranges[j].count);
	}
}

/*
 * Output o of the level: its combination i is the last whose scanned start
 * is <= o; it copies i's outer row and positions and adds this level's.
 */
__global__ void
expand_kernel(uint64_t total, uint64_t m, int level, int kind,
			  const uint64_t *__restrict__ start, const gh_range *__restrict__ ranges,
			  const uint32_t *__restrict__ outer, const uint32_t *__restrict__ pos, uint64_t cap,
			  uint32_t *__restrict__ next_outer, uint32_t *__restrict__ next_pos, uint64_t next_cap)
{
	for (uint64_t o = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; o < total;
		 o += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	lo = 0,
					hi = m;

		/* the first start > o, less one */
		while (lo < hi)
		{
			uint64_t	mid = (lo + hi) / 2;

			if (start[mid] <= o)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint64_t	i = lo - 1;
		gh_range	r = ranges[i];
		bool		rows = (kind == GH_LEVEL_INNER || kind == GH_LEVEL_LEFT) && r.count > 0;

		next_outer[o] = outer[i];
		for (int q = 0; q < level; q++)
			next_pos[(uint64_t) q * next_cap + o] = pos[(uint64_t) q * cap + i];
		next_pos[(uint64_t) level * next_cap + o] =
			rows ? r.offset + (uint32_t) (o - start[i]) : GH_NO_ROW;
	}
}

/*
 * Where a chain probe's device scratch comes from: the first level's table
 * (gh_dmalloc on its stream, within its budget; a buffer made again frees
 * its old memory), or a lane's scratch, taken in order and never freed
 * within the probe.  A lane too small notes in want what would have done
 * (twice what it has, at least), for the lane's next take.
 */
struct chain_mem
{
	gh_table   *t;
	gh_page_lane *lane;
	size_t		used = 0;
	size_t		want = 0;

	chain_mem(gh_table *tab, gh_page_lane *ln) : t(tab), lane(ln) {}
};

struct chain_buf
{
	chain_mem  *m;
	gh_dscratch own;
	void	   *p = nullptr;

	explicit	chain_buf(chain_mem *mem) : m(mem), own(mem->t) {}
	gh_status	alloc(size_t b)
	{
		if (!m->lane)
		{
			GH_CHECK(own.alloc(b));
			p = own.p;
			return GH_OK;
		}

		size_t		at = gh_align256(m->used);

		if (at + b > m->lane->bytes)
		{
			m->want = std::max(m->want, std::max(2 * m->lane->bytes, at + b));
			p = nullptr;
			return gh_error(GH_ERR_GPU_MEMORY, "a chain probe needs more than its lane's %zu bytes",
							m->lane->bytes);
		}
		p = (uint8_t *) m->lane->d + at;
		m->used = at + (b ? b : 1);
		return GH_OK;
	}
	template <typename T> T *as() const
	{
		return (T *) p;
	}
};

/* One set of combinations on the device (chain.cpp's chain_set). */
struct dev_set
{
	chain_buf	outer;
	chain_buf	pos;
	uint64_t	cap = 0;
	uint64_t	n = 0;

	explicit	dev_set(chain_mem *m) : outer(m), pos(m) {}
	gh_status	reserve(uint64_t want, int n_levels)
	{
		cap = want ? want : 1;
		GH_CHECK(outer.alloc(cap * 4));
		return pos.alloc(cap * 4 * (uint64_t) n_levels);
	}
};

}								/* namespace */

/*
 * The new columns are made apart (a rejected call keeps the old ones, as
 * the host twin): in key-grouped order already (ordered), they are copied
 * as they are; else the carry kernel maps each position's rowid.
 */
gh_status
gh_gpu_set_carried(gh_table *t, const uint64_t *keys, const uint8_t *valid, int ncols,
				   bool ordered)
{
	gh_gpu_state *g = t->gpu;
	cudaStream_t st = g->stream;
	uint64_t	cells = (uint64_t) ncols * t->n_rows;
	gh_dscratch in(t),
				in_valid(t),
				bad(t),
				out(t),
				out_valid(t);
	uint32_t	h_bad = 0;

	GH_TRY(cudaSetDevice(g->ordinal));
	if (cells > 0 && ordered)
	{
		GH_CHECK(out.alloc(cells * 8));
		GH_TRY(cudaMemcpyAsync(out.p, keys, cells * 8, cudaMemcpyHostToDevice, st));
		if (valid)
		{
			GH_CHECK(out_valid.alloc(cells));
			GH_TRY(cudaMemcpyAsync(out_valid.p, valid, cells, cudaMemcpyHostToDevice, st));
		}
		GH_TRY(cudaStreamSynchronize(st));
	}
	else if (cells > 0)
	{
		GH_CHECK(in.alloc(cells * 8));
		GH_CHECK(bad.alloc(4));
		GH_CHECK(out.alloc(cells * 8));
		GH_TRY(cudaMemcpyAsync(in.p, keys, cells * 8, cudaMemcpyHostToDevice, st));
		GH_TRY(cudaMemsetAsync(bad.p, 0, 4, st));
		if (valid)
		{
			GH_CHECK(in_valid.alloc(cells));
			GH_CHECK(out_valid.alloc(cells));
			GH_TRY(cudaMemcpyAsync(in_valid.p, valid, cells, cudaMemcpyHostToDevice, st));
		}
		if (t->rowid_width == 4)
			carry_kernel<uint32_t><<<gh_probe_grid(t->n_rows), PROBE_THREADS, 0, st>>>(
				(const uint32_t *) g->d_rowids, t->n_rows, ncols, in.as<uint64_t>(),
				in_valid.as<uint8_t>(), out.as<uint64_t>(), out_valid.as<uint8_t>(),
				bad.as<uint32_t>());
		else
			carry_kernel<uint64_t><<<gh_probe_grid(t->n_rows), PROBE_THREADS, 0, st>>>(
				(const uint64_t *) g->d_rowids, t->n_rows, ncols, in.as<uint64_t>(),
				in_valid.as<uint8_t>(), out.as<uint64_t>(), out_valid.as<uint8_t>(),
				bad.as<uint32_t>());
		GH_LAUNCHED();
		GH_TRY(cudaMemcpyAsync(&h_bad, bad.p, 4, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		if (h_bad)
			return gh_error(GH_ERR_INVALID, "carried columns need a table built with rowid = position");
	}

	/* the old columns go, the new ones pass from the scratch to the table */
	gh_dfree(t, g->d_carried, (uint64_t) t->n_carried * t->n_rows * 8);
	gh_dfree(t, g->d_carried_valid, (uint64_t) t->n_carried * t->n_rows);
	g->d_carried = (uint64_t *) out.p;
	g->d_carried_valid = (uint8_t *) out_valid.p;
	out.p = nullptr;
	out_valid.p = nullptr;
	t->n_carried = ncols;
	return GH_OK;
}

/*
 * The probe on the first level's table's stream and memory (lane NULL: the
 * caller holds every level's lock), or on a lane of that table (no lock:
 * the tables only read, each level looked up on the lane's stream).  A
 * lane whose scratch is too small ends the probe with GH_ERR_GPU_MEMORY
 * and *lane_short set, nothing written, its want noted in the lane.
 */
static gh_status
chain_probe_on(gh_page_lane *lane, const gh_chain_level *levels, int n_levels,
			   const uint64_t *outer_keys, const uint8_t *outer_valid,
			   int n_outer_cols, size_t n, uint64_t skip, bool whole,
			   uint32_t *out_outer, uint32_t *out_pos,
			   uint64_t capacity, uint64_t *total, uint64_t *written,
			   double *level_ms, chain_mem &mem)
{
	gh_table   *t0 = levels[0].table;
	gh_gpu_state *g = t0->gpu;
	cudaStream_t st = lane ? lane->stream : g->stream;
	uint64_t	cells = (uint64_t) n_outer_cols * n;
	chain_buf	d_okeys(&mem),
				d_ovalid(&mem),
				keys(&mem),
				ok(&mem),
				ranges(&mem),
				counts(&mem),
				starts(&mem),
				cub_tmp(&mem);
	dev_set		a(&mem),
				b(&mem);
	dev_set    *cur = &a,
			   *next = &b;
	level_events ev;

	GH_TRY(cudaSetDevice(g->ordinal));
	if (level_ms)
		GH_TRY(ev.create(n_levels + 1));
	for (int l = 1; l < n_levels; l++)
		if (levels[l].table->gpu->ordinal != g->ordinal)
			return gh_error(GH_ERR_INVALID, "chain level %d is on another GPU", l);
	GH_CHECK(d_okeys.alloc(cells * 8));
	if (cells)
		GH_TRY(cudaMemcpyAsync(d_okeys.p, outer_keys, cells * 8, cudaMemcpyHostToDevice, st));
	if (outer_valid)
	{
		GH_CHECK(d_ovalid.alloc(cells));
		if (cells)
			GH_TRY(cudaMemcpyAsync(d_ovalid.p, outer_valid, cells, cudaMemcpyHostToDevice, st));
	}
	GH_CHECK(cur->reserve(n, n_levels));
	cur->n = n;
	if (n)
	{
		iota_kernel<<<gh_probe_grid(n), PROBE_THREADS, 0, st>>>(cur->outer.as<uint32_t>(), n);
		GH_LAUNCHED();
	}

	for (int l = 0; l < n_levels; l++)
	{
		const gh_chain_level *lv = &levels[l];
		uint64_t	m = cur->n;
		uint64_t	sum = 0;

		if (level_ms)
			GH_TRY(cudaEventRecord(ev.e[l], st));
		if (m == 0)
			continue;
		GH_CHECK(keys.alloc(m * 8));
		GH_CHECK(ok.alloc(m));
		GH_CHECK(ranges.alloc(m * sizeof(gh_range)));
		GH_CHECK(counts.alloc(m * 8));
		GH_CHECK(starts.alloc(m * 8));

		gather_parts parts;

		parts.n = lv->n_parts;
		for (int q = 0; q < lv->n_parts; q++)
		{
			const gh_chain_key_part *kp = &lv->part[q];
			gather_part *gp = &parts.p[q];

			if (kp->from_level < 0)
			{
				gp->col = d_okeys.as<uint64_t>() + (uint64_t) kp->column * n;
				gp->valid = outer_valid ? d_ovalid.as<uint8_t>() + (uint64_t) kp->column * n : nullptr;
				gp->src_pos = nullptr;
			}
			else
			{
				gh_table   *src = levels[kp->from_level].table;

				gp->col = src->gpu->d_carried + (uint64_t) kp->column * src->n_rows;
				gp->valid = src->gpu->d_carried_valid ?
					src->gpu->d_carried_valid + (uint64_t) kp->column * src->n_rows : nullptr;
				gp->src_pos = cur->pos.as<uint32_t>() + (uint64_t) kp->from_level * cur->cap;
			}
		}
		gather_kernel<<<gh_probe_grid(m), PROBE_THREADS, 0, st>>>(
			m, cur->outer.as<uint32_t>(), parts, keys.as<uint64_t>(), ok.as<uint8_t>());
		GH_LAUNCHED();

		if (lv->table->n_rows == 0)
			GH_TRY(cudaMemsetAsync(ranges.p, 0, m * sizeof(gh_range), st));
		else if (lane)
		{
			/* on the lane's stream: the lookup only reads the level's table */
			GH_CHECK(gh_gpu_lookup_on(lv->table, st, keys.as<uint64_t>(), m,
									  ranges.as<gh_range>(), nullptr));
		}
		else
		{
			/* the level's table looks them up on its own stream */
			GH_TRY(cudaStreamSynchronize(st));
			GH_CHECK(gh_gpu_lookup_device(lv->table, keys.as<uint64_t>(), m, ranges.as<gh_range>(),
										  nullptr));
			GH_TRY(cudaStreamSynchronize(lv->table->gpu->stream));
			lv->table->stats.probe_batches++;
			lv->table->stats.probe_keys += m;
		}
		count_kernel<<<gh_probe_grid(m), PROBE_THREADS, 0, st>>>(
			m, lv->kind, ok.as<uint8_t>(), ranges.as<gh_range>(), counts.as<uint64_t>());
		GH_LAUNCHED();

		size_t		tmp = 0;
		void	   *cub;

		GH_TRY(cub::DeviceScan::ExclusiveSum(nullptr, tmp, counts.as<uint64_t>(),
											 starts.as<uint64_t>(), (int64_t) m, st));
		if (lane)
		{
			GH_CHECK(cub_tmp.alloc(tmp));
			cub = cub_tmp.p;
		}
		else
		{
			GH_CHECK(gh_cub_reserve(t0, tmp));
			cub = g->d_cub;
		}
		GH_TRY(cub::DeviceScan::ExclusiveSum(cub, tmp, counts.as<uint64_t>(),
											 starts.as<uint64_t>(), (int64_t) m, st));

		uint64_t	last_start,
					last_count;

		GH_TRY(cudaMemcpyAsync(&last_start, starts.as<uint64_t>() + m - 1, 8, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaMemcpyAsync(&last_count, counts.as<uint64_t>() + m - 1, 8, cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		sum = last_start + last_count;
		if (sum > GH_CHAIN_MAX_COMBINATIONS)
			return gh_error(GH_ERR_TOO_LARGE, "a chain level yields %llu combinations",
							(unsigned long long) sum);
		GH_CHECK(next->reserve(sum, n_levels));
		next->n = sum;
		if (sum)
		{
			expand_kernel<<<gh_probe_grid(sum), PROBE_THREADS, 0, st>>>(
				sum, m, l, lv->kind, starts.as<uint64_t>(), ranges.as<gh_range>(),
				cur->outer.as<uint32_t>(), cur->pos.as<uint32_t>(), cur->cap,
				next->outer.as<uint32_t>(), next->pos.as<uint32_t>(), next->cap);
			GH_LAUNCHED();
		}
		dev_set    *swap = cur;

		cur = next;
		next = swap;
	}

	if (level_ms)
		GH_TRY(cudaEventRecord(ev.e[n_levels], st));
	*total = cur->n;
	GH_CHECK(gh_chain_window(cur->n, skip, whole, capacity, written));
	if (*written > 0)
	{
		GH_TRY(cudaMemcpyAsync(out_outer, cur->outer.as<uint32_t>() + skip, *written * 4,
							   cudaMemcpyDeviceToHost, st));
		for (int l = 0; l < n_levels; l++)
			GH_TRY(cudaMemcpyAsync(out_pos + (uint64_t) l * capacity,
								   cur->pos.as<uint32_t>() + (uint64_t) l * cur->cap + skip,
								   *written * 4, cudaMemcpyDeviceToHost, st));
	}
	GH_TRY(cudaStreamSynchronize(st));
	for (int l = 0; level_ms && l < n_levels; l++)
	{
		float		ms = 0;

		GH_TRY(cudaEventElapsedTime(&ms, ev.e[l], ev.e[l + 1]));
		level_ms[l] += ms;
	}
	return GH_OK;
}

gh_status
gh_gpu_chain_probe(const gh_chain_level *levels, int n_levels,
				   const uint64_t *outer_keys, const uint8_t *outer_valid,
				   int n_outer_cols, size_t n, uint64_t skip, bool whole,
				   uint32_t *out_outer, uint32_t *out_pos,
				   uint64_t capacity, uint64_t *total, uint64_t *written,
				   double *level_ms, gh_page_lane *lane, bool *lane_short)
{
	chain_mem	mem(levels[0].table, lane);
	gh_status	st;

	if (lane_short)
		*lane_short = false;
	if (lane && lane->t != levels[0].table)
		return gh_error(GH_ERR_INVALID, "a chain probe on a lane of another table than level 0's");
	st = chain_probe_on(lane, levels, n_levels, outer_keys, outer_valid, n_outer_cols, n, skip,
						whole, out_outer, out_pos, capacity, total, written, level_ms, mem);
	if (lane && st != GH_OK)
	{
		/* nothing of it stays in flight: the lane's scratch is used again */
		cudaStreamSynchronize(lane->stream);
		cudaGetLastError();
		if (mem.want > 0)
		{
			lane->chain_want = std::max(lane->chain_want, mem.want);
			if (lane_short)
				*lane_short = true;
		}
	}
	return st;
}

/*
 * Scratch for a chain probe of n outer rows, ncols key columns, levels
 * levels, where no level yields more than combos combinations: what
 * chain_probe_on takes from a lane.
 */
size_t
gh_gpu_chain_lane_bytes(int n_levels, int ncols, uint64_t n, bool has_valid, uint64_t combos)
{
	size_t		cub = 0,
				at = 0;
	uint64_t	m = std::max<uint64_t>(std::max<uint64_t>(n, combos), 1);
	auto		put = [&](size_t bytes) {
		at = gh_align256(at) + (bytes ? bytes : 1);
	};

	cub::DeviceScan::ExclusiveSum(nullptr, cub, (uint64_t *) nullptr, (uint64_t *) nullptr,
								  (int64_t) m, (cudaStream_t) 0);
	put((size_t) ncols * n * 8);
	if (has_valid)
		put((size_t) ncols * n);
	put(n * 4);
	put(n * 4 * (uint64_t) n_levels);
	for (int l = 0; l < n_levels; l++)
	{
		put(m * 8);
		put(m);
		put(m * sizeof(gh_range));
		put(m * 8);
		put(m * 8);
		put(cub);
		put(m * 4);
		put(m * 4 * (uint64_t) n_levels);
	}
	return gh_align256(at);
}

/*
 * A lane of t for chain probes of up to n outer rows, sized as if no level
 * yielded more combinations than outer rows (or what an earlier probe on
 * a lane of t asked for), under the caller's lock on t.
 */
gh_status
gh_gpu_chain_lane_take(gh_table *t, int n_levels, int n_outer_cols, size_t n, bool has_valid,
					   gh_page_lane **lane)
{
	GH_TRY(cudaSetDevice(t->gpu->ordinal));
	return gh_gpu_lane_take(t, gh_gpu_chain_lane_bytes(n_levels, n_outer_cols, n, has_valid, n),
							0, true, lane);
}
