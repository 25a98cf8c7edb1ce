/*
 * gpu_gph.cu
 *		GPH bulk build on the GPU, region by region (schemes/gph.cuh describes the
 *		layout and why).  The paper builds by inserting keys one by one
 *		(lock-free fill, then locked "extended moves", ~0.1 G keys/s); a
 *		join's inner side is static, so here the table is built in bulk:
 *
 *		- the build pipeline (gpu_build.cu) sorted rows by the mixed key
 *		  hk = fmix64(key ^ seed_key) and deduplicated them, so the distinct
 *		  hk arrive ascending and every region's and cell's keys are a
 *		  contiguous run, in cell order;
 *		- region_bounds: the first key of every region (one thread writes
 *		  each boundary), and a flag when some cell holds more than R*M keys
 *		  (no seed can place it; cells do not change between attempts);
 *		- place_regions: one warp per region, its state in shared memory
 *		  (cell starts and sizes, cell bytes, the region's bucket fills, 8
 *		  per 8-byte word).  Cells go by size descending, ties by cell id;
 *		  for a cell, lane l judges mapping phi = l under all 8 offsets
 *		  delta, and a ballot per delta picks the lowest fitting byte
 *		  (delta * 32 + phi), exactly the host twin's sequential first fit.
 *		  Then the same warp writes the cell bytes and the region's slots:
 *		  keys in index order, each at its bucket's fill plus its rank among
 *		  the earlier lanes with the same bucket (__match_any_sync), and
 *		  zeroes the rest.  Slots are thus deterministic, equal to the host
 *		  twin's, and written in one pass (no memset, no atomics in global
 *		  memory);
 *		- a region where some cell fits under no byte fails the attempt:
 *		  new seed_cell/seed_vb and ~11% more buckets (no re-sort), at most
 *		  GH_MAX_ATTEMPTS times, then a clean GH_ERR_BUILD_FAILED (the
 *		  attempt loop is build_driver.h's, shared with host_gph.cpp);
 *		- the probe: gph_lookup_kernel below.
 */
#include "build_driver.h"
#include "gpu_probe.cuh"

#include <cub/block/block_scan.cuh>

#include <algorithm>

namespace
{

constexpr unsigned FULL = 0xffffffffU;
constexpr int PLACE_WARPS = 8;

/* Per-warp shared memory: cell starts (relative to the region's first key),
 * cell sizes, cell bytes, then (when it fits) the region's bucket fills. */
constexpr uint32_t CS_WORDS = GH_GPH_REGION_MAX + 4;
constexpr size_t WARP_FIXED = CS_WORDS * 4 + 2 * GH_GPH_REGION_MAX;
constexpr size_t SHARED_LIMIT = 48 * 1024;

static_assert(WARP_FIXED % 16 == 0, "per-warp shared layout must stay 16-byte aligned");

/* status words: [0] an attempt's region failed, [1] largest byte + 1,
 * [2] some cell holds more than GH_GPH_MAX_CELL keys */
constexpr int ST_FAILED = 0;
constexpr int ST_ROUNDS = 1;
constexpr int ST_OVERSIZE = 2;
constexpr int ST_WORDS = 4;

__global__ void
region_bounds(gh_gph_view v, const uint64_t *__restrict__ hk, uint32_t u,
			  uint32_t *__restrict__ rstart, uint32_t *__restrict__ status)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i <= u;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	c = i < u ? gh_gph_cell(v, hk[i]) : 0;
		uint32_t	ri = i < u ? c >> v.cr_log2 : v.n_regions;
		uint32_t	r = i > 0 ? (gh_gph_cell(v, hk[i - 1]) >> v.cr_log2) + 1 : 0;

		/* key i starts regions prev + 1 .. its own (empty ones between) */
		for (; r <= ri; r++)
			rstart[r] = (uint32_t) i;
		if (i + GH_GPH_MAX_CELL < u && c == gh_gph_cell(v, hk[i + GH_GPH_MAX_CELL]))
			status[ST_OVERSIZE] = 1;
	}
}

/*
 * Places one cell of s keys (k[0..s)) in the region whose fills are fill[]:
 * lane l evaluates phi = l; the first delta with a fitting lane wins, lowest
 * lane first, so the byte is the lowest fitting one.  The winner commits
 * its group's new fills.  Returns the byte, or -1 when none fits.
 */
__device__ __forceinline__ int
place_cell(const gh_gph_view &v, uint32_t c, uint32_t s, const uint64_t *__restrict__ k,
		   uint8_t *fill, unsigned lane)
{
	uint64_t	mine = lane < s ? k[lane] : 0;
	uint64_t	cnt = 0;

	for (uint32_t q = 0; q < s; q++)
	{
		uint64_t	h = __shfl_sync(FULL, mine, q);

		cnt += 1ULL << (8 * gh_gph_vbucket(v, h, lane));
	}

	const bool	split_ok = GH_GPH_BYTES_LE4(cnt);
	const uint32_t grp = gh_gph_group(v, gh_gph_cell_hash(v, c), lane);
	const uint64_t F = *reinterpret_cast<const uint64_t *>(fill + grp);

	for (uint32_t d = 0; d < GH_GPH_R; d++)
	{
		uint64_t	w = F + gh_gph_rotate(cnt, d);
		unsigned	m = __ballot_sync(FULL, split_ok && GH_GPH_BYTES_LE4(w));

		if (m)
		{
			unsigned	phi = __ffs(m) - 1;

			if (lane == phi)
				*reinterpret_cast<uint64_t *>(fill + grp) = w;
			__syncwarp();
			return (int) (d * GH_GPH_PHI + phi);
		}
	}
	return -1;
}

template <bool GLOBAL_FILL>
__global__ void __launch_bounds__(PLACE_WARPS * 32)
place_regions(gh_gph_view v, const uint64_t *__restrict__ hk, const uint32_t *__restrict__ doff,
			  const uint32_t *__restrict__ dcnt, const uint32_t *__restrict__ rstart,
			  uint8_t *__restrict__ cells, gh_slot *__restrict__ slots, uint8_t *gfill,
			  uint32_t warp_bytes, uint32_t *status)
{
	extern __shared__ __align__(16) unsigned char smem[];
	const unsigned lane = threadIdx.x & 31;
	const unsigned wib = threadIdx.x >> 5;
	uint32_t   *cs = reinterpret_cast<uint32_t *>(smem + (size_t) wib * warp_bytes);
	uint8_t    *csz = reinterpret_cast<uint8_t *>(cs + CS_WORDS);
	uint8_t    *cb = csz + GH_GPH_REGION_MAX;
	const uint32_t cr = 1U << v.cr_log2;
	const uint32_t nq = (cr + 31) / 32;

	for (uint32_t r = blockIdx.x * PLACE_WARPS + wib; r < v.n_regions; r += gridDim.x * PLACE_WARPS)
	{
		/* another region failed this attempt: the result is discarded */
		if (__shfl_sync(FULL, lane == 0 ? *(volatile uint32_t *) &status[ST_FAILED] : 0U, 0))
			break;

		uint8_t    *fill = GLOBAL_FILL ? gfill + (size_t) r * v.br : cb + GH_GPH_REGION_MAX;
		const uint32_t c0 = r << v.cr_log2;
		const uint64_t ks = rstart[r],
					ke = rstart[r + 1];

		for (uint32_t c = lane; c < cr; c += 32)
		{
			cs[c] = 0;
			cb[c] = 0;
		}
		for (uint32_t b = lane * 8; b < v.br; b += 32 * 8)
			*reinterpret_cast<uint64_t *>(fill + b) = 0;
		__syncwarp();
		for (uint64_t i = ks + lane; i < ke; i += 32)
			atomicAdd(&cs[gh_gph_cell(v, hk[i]) - c0], 1U);
		__syncwarp();

		/* sizes, and starts by an exclusive scan over the cells */
		uint32_t	carry = 0,
					maxs = 0;

		for (uint32_t q = 0; q < nq; q++)
		{
			uint32_t	c = q * 32 + lane;
			uint32_t	x = c < cr ? cs[c] : 0;
			uint32_t	incl = x;

			for (unsigned d = 1; d < 32; d <<= 1)
			{
				uint32_t	y = __shfl_up_sync(FULL, incl, d);

				if (lane >= d)
					incl += y;
			}
			if (c < cr)
			{
				cs[c] = carry + incl - x;
				csz[c] = (uint8_t) (x < 255 ? x : 255);
			}
			carry += __shfl_sync(FULL, incl, 31);
			maxs = x > maxs ? x : maxs;
		}
		maxs = __reduce_max_sync(FULL, maxs);
		__syncwarp();

		/* cells by size descending, ties by cell id */
		bool		failed = maxs > GH_GPH_MAX_CELL;
		uint32_t	used = 0;

		for (uint32_t s = maxs; s >= 1 && !failed; s--)
		{
			for (uint32_t q = 0; q < nq && !failed; q++)
			{
				uint32_t	c = q * 32 + lane;
				unsigned	m = __ballot_sync(FULL, c < cr && csz[c] == s);

				while (m)
				{
					uint32_t	lc = q * 32 + __ffs(m) - 1;
					int			byte;

					m &= m - 1;
					byte = place_cell(v, c0 + lc, s, hk + ks + cs[lc], fill, lane);
					if (byte < 0)
					{
						failed = true;
						break;
					}
					if (lane == 0)
						cb[lc] = (uint8_t) byte;
					used = (uint32_t) byte + 1 > used ? (uint32_t) byte + 1 : used;
				}
			}
		}
		if (failed)
		{
			if (lane == 0)
				atomicExch(&status[ST_FAILED], 1U);
			break;
		}
		if (lane == 0 && used)
			atomicMax(&status[ST_ROUNDS], used);
		__syncwarp();

		/* the cell bytes, then the slots: keys in index order */
		for (uint32_t c = lane; c < cr; c += 32)
			cells[c0 + c] = cb[c];
		for (uint32_t b = lane * 8; b < v.br; b += 32 * 8)
			*reinterpret_cast<uint64_t *>(fill + b) = 0;
		__syncwarp();

		const uint64_t rslot = (uint64_t) r * v.br * GH_GPH_M;
		ulonglong2 *out = reinterpret_cast<ulonglong2 *>(slots) + rslot;

		for (uint64_t base = ks; base < ke; base += 32)
		{
			uint64_t	i = base + lane;
			bool		valid = i < ke;
			uint64_t	h = valid ? hk[i] : 0;
			uint32_t	lb = 0xffffffffU;	/* no bucket: peers only of the invalid */

			if (valid)
			{
				uint32_t	c = gh_gph_cell(v, h);

				lb = gh_gph_bucket(v, h, c, cb[c - c0]) - r * v.br;
			}
			unsigned	peers = __match_any_sync(FULL, lb);
			uint32_t	before = valid ? fill[lb] : 0;
			uint32_t	rank = __popc(peers & ((1U << lane) - 1));

			__syncwarp();
			if (valid && (peers >> lane) == 1)	/* the last of its bucket's lanes */
				fill[lb] = (uint8_t) (before + __popc(peers));
			if (valid)
			{
				ulonglong2	w;

				w.x = gh_gph_unmix(v, h);
				w.y = (uint64_t) doff[i] | ((uint64_t) dcnt[i] << 32);
				out[(uint64_t) lb * GH_GPH_M + before + rank] = w;
			}
			__syncwarp();
		}
		for (uint64_t sl = lane; sl < (uint64_t) v.br * GH_GPH_M; sl += 32)
			if ((sl & (GH_GPH_M - 1)) >= fill[sl / GH_GPH_M])
				out[sl] = make_ulonglong2(0, 0);
		__syncwarp();
	}
}

/*
 * The probe: a 4-lane group per probe reads the probe's one 64-byte bucket,
 * one 16-byte slot per lane; each lane handles P probes per round and issues
 * all P bucket loads before any compare (the paper's Bucket Requester:
 * memory-level parallelism from ILP).  One round: probe p of the group is
 * key[p], its result goes to position at[p]; invalid probes load nothing
 * and store nothing.  Every lane of the warp calls it (the ballots).
 */
template <int P>
__device__ __forceinline__ void
gph_probe_round(const gh_gph_view &v, const uint64_t (&key)[P], const bool (&valid)[P],
				const uint64_t (&at)[P], gh_range *ranges, uint32_t *counts)
{
	const unsigned lane = threadIdx.x & 31;
	const unsigned sub = lane & 3;
	const unsigned gbase = lane & ~3U;
	const ulonglong2 *slots = reinterpret_cast<const ulonglong2 *>(v.slots);
	ulonglong2	s[P];

#pragma unroll
	for (int p = 0; p < P; p++)
	{
		if (valid[p])
			s[p] = __ldcs(slots + (uint64_t) gh_gph_locate(v, key[p]) * GH_GPH_M + sub);
		else
			s[p] = make_ulonglong2(0, 0);
	}
#pragma unroll
	for (int p = 0; p < P; p++)
	{
		uint32_t	cnt = (uint32_t) (s[p].y >> 32);
		bool		match = cnt != 0 && s[p].x == key[p] && valid[p];
		unsigned	gm = (__ballot_sync(FULL, match) >> gbase) & 0xfU;

		if (match)
			store_hit(ranges, counts, at[p], (uint32_t) s[p].y, cnt);
		else if (gm == 0 && sub == 0 && valid[p])
			store_hit(ranges, counts, at[p], 0, 0);
	}
}

/* Probes keys[0..n) a 4-lane group at a time, P per group and round. */
template <int P>
__device__ __forceinline__ void
gph_lookup_span(const gh_gph_view &v, const uint64_t *__restrict__ keys, uint64_t n,
				gh_range *__restrict__ ranges, uint32_t *__restrict__ counts)
{
	const unsigned gbase = threadIdx.x & 31 & ~3U;
	const uint64_t group = (blockIdx.x * (uint64_t) blockDim.x + threadIdx.x) >> 2;
	const uint64_t groups = (gridDim.x * (uint64_t) blockDim.x) >> 2;

	/* the warp's eight groups move together so that ballots see all lanes */
	for (uint64_t first = group * P; first - (gbase >> 2) * P < n; first += groups * P)
	{
		uint64_t	key[P],
					at[P];
		bool		valid[P];

#pragma unroll
		for (int p = 0; p < P; p++)
		{
			at[p] = first + p;
			valid[p] = at[p] < n;
			key[p] = valid[p] ? __ldcs(keys + at[p]) : 0;
		}
		gph_probe_round<P>(v, key, valid, at, ranges, counts);
	}
}

template <int P>
__global__ void __launch_bounds__(PROBE_THREADS)
gph_lookup_kernel(gh_gph_view v, const uint64_t *__restrict__ keys, uint64_t n,
				  gh_range *__restrict__ ranges, uint32_t *__restrict__ counts)
{
	gph_lookup_span<P>(v, keys, n, ranges, counts);
}

/*
 * The same, for as many keys as *n says (written by an earlier kernel,
 * perhaps on another GPU): read once a block, not once a thread over the
 * link.
 */
template <int P>
__global__ void __launch_bounds__(PROBE_THREADS)
gph_counted_kernel(gh_gph_view v, const uint64_t *__restrict__ keys,
				   const unsigned long long *__restrict__ n,
				   gh_range *__restrict__ ranges, uint32_t *__restrict__ counts)
{
	__shared__ unsigned long long sn;

	if (threadIdx.x == 0)
		sn = *n;
	__syncthreads();
	gph_lookup_span<P>(v, keys, sn, ranges, counts);
}

/*
 * A part's lookup with the shuffle in it (gh_gpu_lookup_routed): a block
 * reads a tile of ROUTE_TILE keys, groups them by owning part in shared
 * memory (one block scan per part), sends the other parts' keys to their
 * inboxes with one atomic per part and tile, and probes its own from
 * shared memory.  The keys are read once, and the sends (peer stores over
 * NVLink where the inbox is on another GPU) overlap the probes.  Four keys
 * a thread and at most 32 registers keep every thread slot of an SM busy
 * with P = 2, as many probes in flight as gph_lookup_kernel's.  On 2 x H200
 * (bench_multi_gpu) blocks of 128 were 1% faster than of 256;
 * blocks of 512, eight or two keys a thread, P = 4 (spills) and loading
 * the next tile during the probes were all slower.
 */
constexpr int ROUTE_THREADS = 128;
constexpr int ROUTE_ITEMS = 4;
constexpr int ROUTE_TILE = ROUTE_THREADS * ROUTE_ITEMS;

static_assert(ROUTE_TILE <= 65536, "tile positions are kept in 16 bits");

template <int P>
__global__ void __launch_bounds__(ROUTE_THREADS, 16)
gph_routed_kernel(gh_gph_view v, const uint64_t *__restrict__ keys, uint64_t n, gh_route r,
				  gh_range *__restrict__ ranges, uint32_t *__restrict__ counts)
{
	using Scan = cub::BlockScan<uint32_t, ROUTE_THREADS>;
	__shared__ typename Scan::TempStorage scan;
	__shared__ uint64_t tk[ROUTE_TILE];	/* the tile's keys, grouped by part */
	__shared__ uint16_t ti[ROUTE_TILE];	/* their positions in the tile */
	__shared__ uint32_t start[GH_MAX_PARTS + 1];
	__shared__ unsigned long long base[GH_MAX_PARTS];
	const unsigned tid = threadIdx.x;
	const uint32_t parts = r.parts;

	for (uint64_t t0 = blockIdx.x * (uint64_t) ROUTE_TILE; t0 < n; t0 += (uint64_t) gridDim.x * ROUTE_TILE)
	{
		uint64_t	key[ROUTE_ITEMS];
		uint32_t	part[ROUTE_ITEMS];
		uint32_t	at = 0;

		/* striped: the loads, and the zero counts of sent keys, coalesce */
#pragma unroll
		for (int k = 0; k < ROUTE_ITEMS; k++)
		{
			uint64_t	j = t0 + k * ROUTE_THREADS + tid;

			key[k] = j < n ? __ldcs(keys + j) : 0;
			part[k] = j < n ? gh_part_of(key[k], parts) : GH_MAX_PARTS;
		}
		for (uint32_t o = 0; o < parts; o++)
		{
			uint32_t	c = 0,
						off,
						total;

#pragma unroll
			for (int k = 0; k < ROUTE_ITEMS; k++)
				c += part[k] == o;
			Scan(scan).ExclusiveSum(c, off, total);
#pragma unroll
			for (int k = 0; k < ROUTE_ITEMS; k++)
				if (part[k] == o)
				{
					tk[at + off] = key[k];
					ti[at + off] = (uint16_t) (k * ROUTE_THREADS + tid);
					off++;
				}
			if (tid == 0)
				start[o] = at;
			at += total;
			__syncthreads();	/* the scan's storage is used again */
		}
		if (tid == 0)
		{
			start[parts] = at;
			for (uint32_t o = 0; o < parts; o++)
				if (o != r.me && start[o + 1] > start[o])
					base[o] = atomicAdd(r.n_to + o, (unsigned long long) (start[o + 1] - start[o]));
		}
		__syncthreads();

		/* the other parts' keys to their inboxes, and where each came from */
		for (uint32_t o = 0; o < parts; o++)
		{
			if (o == r.me)
				continue;
			for (uint32_t i = start[o] + tid; i < start[o + 1]; i += ROUTE_THREADS)
			{
				uint64_t	slot = base[o] + (i - start[o]);
				uint64_t	pos = t0 + ti[i];

				r.to[o][slot] = tk[i];
				r.from[o][slot] = (uint32_t) pos;
				/* without these zeros the own keys' counts fill partial
				 * sectors, and the kernel took 12% longer on 2 x H200 */
				store_hit(ranges, counts, pos, 0, 0);
			}
		}

		/* this part's keys: groups of 4 lanes, P keys each per round */
		{
			const uint32_t s0 = start[r.me],
						cnt = start[r.me + 1] - s0;
			const uint32_t group = tid >> 2;

			for (uint32_t b = 0; b < cnt; b += (ROUTE_THREADS / 4) * P)
			{
				uint64_t	k2[P],
							pos[P];
				bool		valid[P];

#pragma unroll
				for (int p = 0; p < P; p++)
				{
					uint32_t	i = b + group * P + p;

					valid[p] = i < cnt;
					k2[p] = valid[p] ? tk[s0 + i] : 0;
					pos[p] = valid[p] ? t0 + ti[s0 + i] : 0;
				}
				gph_probe_round<P>(v, k2, valid, pos, ranges, counts);
			}
		}
		__syncthreads();		/* the next tile reuses tk, ti, start */
	}
}

/*
 * hk: the distinct keys' mixed values, ascending, with their rowid ranges.
 * Leaves the table in g->d_cells / g->d_slots (the view points at them).
 */
struct gph_step
{
	gh_table   *t;
	gh_distinct d;
	gh_dscratch rstart,
				status,
				gfill;
	uint32_t	h_status[ST_WORDS];
	int			sms = 0;

				gph_step(gh_table *tab, const gh_distinct &keys) :
				t(tab), d(keys), rstart(tab), status(tab), gfill(tab) {}

	/* cells, region boundaries; a cell of more than R*M keys fits under no seed */
	gh_status	prepare(const gh_gph_view &v)
	{
		gh_gpu_state *g = t->gpu;
		cudaStream_t st = g->stream;
		uint32_t	u = d.n;

		GH_CHECK(rstart.alloc(((size_t) v.n_regions + 1) * 4));
		GH_CHECK(status.alloc(ST_WORDS * 4));
		GH_CHECK(gh_dmalloc(t, (void **) &g->d_cells, v.n_cells));
		GH_TRY(cudaMemsetAsync(status.p, 0, ST_WORDS * 4, st));
		region_bounds<<<gh_blocks((uint64_t) u + 1, 256), 256, 0, st>>>(v, d.keys, u, rstart.as<uint32_t>(),
																		 status.as<uint32_t>());
		GH_LAUNCHED();
		GH_TRY(cudaMemcpyAsync(h_status, status.p, sizeof(h_status), cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		if (h_status[ST_OVERSIZE])
			return gh_error(GH_ERR_BUILD_FAILED,
							"GPH: a cell holds more than %d of %u keys (seed_key collision)",
							GH_GPH_MAX_CELL, u);
		GH_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g->ordinal));
		return GH_OK;
	}

	/* a GPU build is short: asked once, before it starts (gh_build) */
	bool		cancelled()
	{
		return false;
	}

	gh_status	attempt(gh_gph_view &v, gh_attempt_result *res)
	{
		gh_gpu_state *g = t->gpu;
		cudaStream_t st = g->stream;
		uint64_t	n_slots = (uint64_t) v.n_buckets * GH_GPH_M;
		size_t		warp_bytes = WARP_FIXED + (((size_t) v.br + 15) & ~(size_t) 15);
		bool		global_fill = warp_bytes * PLACE_WARPS > SHARED_LIMIT;

		GH_CHECK(gh_dmalloc(t, (void **) &g->d_slots, n_slots * sizeof(gh_slot)));
		if (global_fill)
		{
			warp_bytes = WARP_FIXED;
			GH_CHECK(gfill.alloc(v.n_buckets));
		}
		GH_TRY(cudaMemsetAsync(status.p, 0, ST_WORDS * 4, st));

		/* one warp per region; the grid-stride loop covers any excess */
		uint64_t	want = (v.n_regions + PLACE_WARPS - 1) / PLACE_WARPS;
		unsigned	blocks = (unsigned) (want < (uint64_t) sms * 2048 ? want : (uint64_t) sms * 2048);
		size_t		shmem = warp_bytes * PLACE_WARPS;

		if (global_fill)
			place_regions<true><<<blocks, PLACE_WARPS * 32, shmem, st>>>(
				v, d.keys, d.off, d.cnt, rstart.as<uint32_t>(), g->d_cells, g->d_slots,
				gfill.as<uint8_t>(), (uint32_t) warp_bytes, status.as<uint32_t>());
		else
			place_regions<false><<<blocks, PLACE_WARPS * 32, shmem, st>>>(
				v, d.keys, d.off, d.cnt, rstart.as<uint32_t>(), g->d_cells, g->d_slots,
				nullptr, (uint32_t) warp_bytes, status.as<uint32_t>());
		GH_LAUNCHED();
		GH_TRY(cudaMemcpyAsync(h_status, status.p, sizeof(h_status), cudaMemcpyDeviceToHost, st));
		GH_TRY(cudaStreamSynchronize(st));
		gfill.release();
		if (h_status[ST_FAILED])
		{
			/* a cell fits nowhere: draw again */
			gh_dfree(t, g->d_slots, n_slots * sizeof(gh_slot));
			g->d_slots = nullptr;
			return GH_OK;
		}
		v.cells = g->d_cells;
		v.slots = g->d_slots;
		gh_gpu_set_l2_window(t, g->d_cells, v.n_cells);
		res->placed = true;
		res->rounds = (int) h_status[ST_ROUNDS];
		res->n_slots = n_slots;
		return GH_OK;
	}
};

}								/* namespace */

gh_status
gh_gpu_build_gph(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	gph_step	step(t, d);

	return gh_build_attempts<gh_gph_scheme>(t, &t->gph, step, d.n, seed, lf);
}

gh_status
gh_gpu_lookup_gph(gh_table *t, cudaStream_t st, const uint64_t *d_keys, size_t n, gh_range *d_ranges,
				  uint32_t *d_counts)
{
	const gh_gph_view &v = t->gph;

	return gh_launch_ilp([&](auto p) {
		constexpr int P = decltype(p)::value;

		gph_lookup_kernel<P><<<gh_probe_grid(n * 4 / P), PROBE_THREADS, 0, st>>>(v, d_keys, n,
																				 d_ranges, d_counts);
	});
}

gh_status
gh_gpu_lookup_routed(gh_table *t, const uint64_t *d_keys, size_t n, const gh_route *r,
					 gh_range *d_ranges, uint32_t *d_counts)
{
	cudaStream_t st;

	if (t->gpu == nullptr || t->scheme != GH_SCHEME_GPH || r->parts < 1 ||
		r->parts > GH_MAX_PARTS || r->me >= r->parts || n > UINT32_MAX)
		return gh_error(GH_ERR_INVALID, "a routed lookup needs a GPH table on the GPU, me < parts <= %d "
						"and fewer than 2^32 keys", GH_MAX_PARTS);
	if (n == 0)
		return GH_OK;
	st = t->gpu->stream;
	return gh_launch_ilp([&](auto p) {
		constexpr int P = decltype(p)::value;
		uint64_t	tiles = (n + ROUTE_TILE - 1) / ROUTE_TILE;

		/* the probe kernels' threads, in tiles: enough waves, no more */
		uint64_t	blocks = (uint64_t) gh_probe_grid(n * 4 / P) * PROBE_THREADS / ROUTE_THREADS;

		gph_routed_kernel<P><<<(unsigned) std::min<uint64_t>(tiles, std::max<uint64_t>(blocks, 1)),
			ROUTE_THREADS, 0, st>>>(t->gph, d_keys, n, *r, d_ranges, d_counts);
	});
}

gh_status
gh_gpu_lookup_counted(gh_table *t, const uint64_t *d_keys, const unsigned long long *d_n,
					  size_t cap, gh_range *d_ranges, uint32_t *d_counts)
{
	cudaStream_t st;

	if (t->gpu == nullptr || t->scheme != GH_SCHEME_GPH)
		return gh_error(GH_ERR_INVALID, "a counted lookup needs a GPH table on the GPU");
	if (cap == 0)
		return GH_OK;
	st = t->gpu->stream;
	return gh_launch_ilp([&](auto p) {
		constexpr int P = decltype(p)::value;

		gph_counted_kernel<P><<<gh_probe_grid(cap * 4 / P), PROBE_THREADS, 0, st>>>(t->gph, d_keys, d_n,
																				   d_ranges, d_counts);
	});
}
