/*
 * bench_core.cu
 *		Benchmark of the join hash tables on one GPU (a program, not a test).
 *
 *		For each n: n distinct keys (or n rows of n/8 distinct keys), tables
 *		of every scheme built from device-resident data; 2n probes at
 *		0/50/100% hits, uniform and Zipf-skewed.  Reports build rows/s
 *		(sort and dedup included), probe lookups/s, emitted pairs/s and the
 *		bytes a probe must move, against the device's measured copy
 *		bandwidth.  Then the join shape of the cuCollections anchor: 10^8 rows
 *		of 1.25x10^7 keys, 2x10^8 probes at 50% hits, build + probe + emit.
 *
 *		Keys are fmix64(index ^ seed): a bijection, so distinct indexes give
 *		distinct keys and misses are indexes beyond the inner side.
 *		Timing: CUDA events around device work (host clock for builds, which
 *		synchronize internally), one warm-up, median of 5.
 *
 *		The build is also split into sort + dedup and the scheme's own part
 *		(gh_table_info's build_sort_ms / build_hash_ms, host clock).
 *
 *		usage: bench_core [--sizes 1048576,16777216,...] [--reps 5]
 *		                  [--schemes gph,fks,linear,cuckoo] [--ilp 1|2|4]
 *		                  [--l2-persist 0|1] [--no-join]
 *		--ilp: probes in flight per thread; sweep it by running 1, 2 and 4.
 *		--l2-persist: L2 persisting window over the GPH cells / FKS level 1
 *		(default 1); 0 leaves only the evict-first slot loads.
 */
#include "gpu_common.cuh"

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#define CK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) { \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			exit(1); \
		} \
	} while (0)

#define GK(call) \
	do { \
		gh_status s_ = (call); \
		if (s_ != GH_OK) { \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, gh_last_error()); \
			exit(1); \
		} \
	} while (0)

static const uint64_t SEED = 0x5eed5eed12345ULL;

__device__ __forceinline__ uint64_t
key_of(uint64_t idx)
{
	return gh_fmix64(idx ^ SEED);
}

/* Inner keys: n rows, row i has key index i % distinct. */
__global__ void
gen_inner(uint64_t *k, uint64_t n, uint64_t distinct)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n; i += (uint64_t) gridDim.x * blockDim.x)
		k[i] = key_of(i % distinct);
}

/*
 * Probes: with probability hit a key index below `distinct` (uniform, or
 * Zipf-like: index = distinct^u - 1, the inverse CDF of a 1/x density),
 * otherwise an index beyond it (a miss).
 */
__global__ void
gen_probes(uint64_t *p, uint64_t n, uint64_t distinct, double hit, int zipf, uint64_t salt)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n; i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	r1 = gh_fmix64(i * 2 + salt),
					r2 = gh_fmix64(i * 2 + 1 + salt);
		double		u = (r1 >> 11) * (1.0 / 9007199254740992.0);
		uint64_t	idx;

		if (u < hit)
		{
			if (zipf)
			{
				double		v = (r2 >> 11) * (1.0 / 9007199254740992.0);

				idx = (uint64_t) (exp(v * log((double) distinct + 1.0)) - 1.0);
				if (idx >= distinct)
					idx = distinct - 1;
				/* scatter ranks over the key space */
				idx = (idx * 0x9e3779b97f4a7c15ULL) % distinct;
			}
			else
				idx = r2 % distinct;
		}
		else
			idx = distinct + (r2 % (1ULL << 40));
		p[i] = key_of(idx);
	}
}

struct timer
{
	cudaEvent_t a,
				b;
	timer()
	{
		CK(cudaEventCreate(&a));
		CK(cudaEventCreate(&b));
	}
	void		start(cudaStream_t s)
	{
		CK(cudaEventRecord(a, s));
	}
	float		stop(cudaStream_t s)
	{
		float		ms;

		CK(cudaEventRecord(b, s));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		return ms;
	}
};

static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

static double
copy_bandwidth(void)
{
	size_t		bytes = (size_t) 2 << 30;
	void	   *a,
			   *b;
	timer		tm;
	std::vector<double> t;

	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMemset(a, 1, bytes));
	for (int i = 0; i < 6; i++)
	{
		tm.start(0);
		CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
		double		ms = tm.stop(0);

		if (i > 0)
			t.push_back(ms);
	}
	CK(cudaFree(a));
	CK(cudaFree(b));
	return 2.0 * bytes / (median(t) * 1e-3) / 1e9;	/* read + write */
}

static int	reps = 5;

/* Medians of a build's two parts (gh_table_info, host clock). */
struct build_split
{
	double		sort_ms;
	double		hash_ms;
};

/* Median wall time of building a table from device keys (freed after). */
static double
time_build(const gh_build_options &opt, const uint64_t *d_keys, uint64_t n, gh_table_info *info,
		   build_split *split)
{
	std::vector<double> t,
				ts,
				th;

	for (int r = 0; r <= reps; r++)
	{
		gh_table   *tab;

		CK(cudaDeviceSynchronize());
		double		t0 = gh_now_ms();

		GK(gh_build_from_device(&opt, d_keys, nullptr, 4, n, &tab));
		CK(cudaDeviceSynchronize());
		double		ms = gh_now_ms() - t0;

		gh_table_get_info(tab, info);
		if (r > 0)
		{
			t.push_back(ms);
			ts.push_back(info->build_sort_ms);
			th.push_back(info->build_hash_ms);
		}
		gh_free(tab);
	}
	split->sort_ms = median(ts);
	split->hash_ms = median(th);
	return median(t);
}

static double
time_lookup(gh_table *tab, const uint64_t *d_probes, uint64_t np, uint32_t *d_counts)
{
	timer		tm;
	std::vector<double> t;

	for (int r = 0; r <= reps; r++)
	{
		tm.start(tab->gpu->stream);
		GK(gh_gpu_lookup_device(tab, d_probes, np, nullptr, d_counts));
		double		ms = tm.stop(tab->gpu->stream);

		if (r > 0)
			t.push_back(ms);
	}
	return median(t);
}

/* Bytes a probe must move at least: key in, count out, table bytes. */
static double
probe_bytes(gh_scheme s)
{
	double		table = s == GH_SCHEME_GPH ? 64 + 1 : s == GH_SCHEME_FKS ? 8 + 16 :
		s == GH_SCHEME_CUCKOO ? 64 : 16;

	return 8 + 4 + table;
}

/* The table's own device bytes: all it holds after the build but its
 * rowids and the CUB scratch it keeps for probes. */
static double
table_bytes(const gh_table *t, const gh_table_info &info)
{
	return (double) info.device_bytes - (double) info.n_rows * info.rowid_width -
		(double) t->gpu->cub_bytes;
}

/* --schemes names as gh_scheme_name() spells them; GPH for none. */
static gh_scheme
scheme_named(const char *name)
{
	for (int s = 0; s < GH_N_SCHEMES; s++)
		if (!strcmp(name, gh_scheme_name((gh_scheme) s)))
			return (gh_scheme) s;
	return GH_SCHEME_GPH;
}

struct row
{
	std::string what;
	double		value;
};

int
main(int argc, char **argv)
{
	std::vector<uint64_t> sizes = {1ULL << 20, 1ULL << 24, 10000000ULL, 100000000ULL};
	std::vector<gh_scheme> schemes = {GH_SCHEME_GPH, GH_SCHEME_FKS, GH_SCHEME_LINEAR, GH_SCHEME_CUCKOO};
	bool		join = true;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
		{
			sizes.clear();
			for (char *tok = strtok(argv[++i], ","); tok; tok = strtok(NULL, ","))
				sizes.push_back((uint64_t) atof(tok));
		}
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ilp") && i + 1 < argc)
			gh_probe_ilp = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--l2-persist") && i + 1 < argc)
			gh_l2_persist = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-join"))
			join = false;
		else if (!strcmp(argv[i], "--schemes") && i + 1 < argc)
		{
			schemes.clear();
			for (char *tok = strtok(argv[++i], ","); tok; tok = strtok(NULL, ","))
				schemes.push_back(scheme_named(tok));
		}
		else
		{
			fprintf(stderr, "usage: %s [--sizes a,b] [--reps N] [--schemes gph,fks,linear,cuckoo] [--ilp 1|2|4]\n"
					"          [--l2-persist 0|1] [--no-join]\n"
					"  --ilp: probes in flight per thread (sweep: run once each with 1, 2, 4)\n"
					"  --l2-persist: L2 persisting window over GPH cells / FKS level 1 (default 0)\n", argv[0]);
			return 2;
		}
	}

	gh_gpu_info gi;

	if (gh_gpu_count() == 0)
	{
		fprintf(stderr, "bench_core: no GPU\n");
		return 1;
	}
	GK(gh_gpu_get_info(0, &gi));
	double		bw = copy_bandwidth();

	printf("# device: %s, %d SMs, L2 %zu MB, %.1f GB memory\n", gi.name, gi.multiprocessors,
		   gi.l2_bytes >> 20, gi.total_memory / 1e9);
	printf("# measured device copy bandwidth (read + write): %.0f GB/s\n", bw);
	printf("# probe ILP %d, L2 persisting window %s, median of %d after one warm-up\n", gh_probe_ilp,
		   gh_l2_persist ? "on" : "off", reps);
	printf("# build ms = sort+dedup ms + scheme ms (+ small host overhead); attempts/rounds of the scheme\n\n");
	printf("| scheme | rows | distinct | build ms | sort+dedup ms | scheme ms | build Grows/s | attempts | rounds | table MB | probes | hits | dist | probe ms | G lookups/s | GB/s (min bytes) | of copy bw |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");

	for (uint64_t n : sizes)
	{
		for (int dup = 0; dup < 2; dup++)
		{
			uint64_t	distinct = dup ? n / 8 : n;
			uint64_t	np = 2 * n;
			uint64_t   *d_keys,
					   *d_probes;
			uint32_t   *d_counts;

			CK(cudaMalloc(&d_keys, n * 8));
			CK(cudaMalloc(&d_probes, np * 8));
			CK(cudaMalloc(&d_counts, np * 4));
			gen_inner<<<4096, 256>>>(d_keys, n, distinct);
			CK(cudaGetLastError());

			for (gh_scheme sc : schemes)
			{
				gh_build_options opt;
				gh_table_info info;

				gh_default_options(&opt);
				opt.device = GH_DEVICE_GPU;
				opt.scheme = sc;
				build_split bsplit;
				double		build_ms = time_build(opt, d_keys, n, &info, &bsplit);
				gh_table   *tab;

				GK(gh_build_from_device(&opt, d_keys, nullptr, 4, n, &tab));
				gh_table_get_info(tab, &info);

				struct
				{
					double		hit;
					int			zipf;
				}			mixes[] = {{0.0, 0}, {0.5, 0}, {1.0, 0}, {0.5, 1}};

				for (auto m : mixes)
				{
					if (dup && (m.zipf || m.hit != 0.5))
						continue;	/* duplicates: the join mix only */
					gen_probes<<<4096, 256>>>(d_probes, np, distinct, m.hit, m.zipf, 99);
					CK(cudaGetLastError());
					CK(cudaDeviceSynchronize());
					double		ms = time_lookup(tab, d_probes, np, d_counts);
					double		gps = np / (ms * 1e-3) / 1e9;
					double		gbs = np * probe_bytes(sc) / (ms * 1e-3) / 1e9;

					printf("| %s | %llu | %llu | %.2f | %.2f | %.2f | %.2f | %d | %d | %.0f | %llu | %d%% | %s | %.3f | %.2f | %.0f | %.0f%% |\n",
						   gh_scheme_name(sc), (unsigned long long) n, (unsigned long long) info.n_distinct,
						   build_ms, bsplit.sort_ms, bsplit.hash_ms, n / (build_ms * 1e-3) / 1e9,
						   info.attempts, info.rounds,
						   table_bytes(tab, info) / 1e6,
						   (unsigned long long) np, (int) (m.hit * 100), m.zipf ? "zipf" : "unif",
						   ms, gps, gbs, 100 * gbs / bw);
					fflush(stdout);
				}
				gh_free(tab);
			}
			CK(cudaFree(d_keys));
			CK(cudaFree(d_probes));
			CK(cudaFree(d_counts));
		}
	}

	if (!join)
		return 0;

	/* the join shape: 10^8 rows, 8 per key, 2x10^8 probes at 50% hits */
	uint64_t	n = 100000000ULL,
				distinct = n / 8,
				np = 2 * n;
	uint64_t   *d_keys,
			   *d_probes;

	CK(cudaMalloc(&d_keys, n * 8));
	CK(cudaMalloc(&d_probes, np * 8));
	gen_inner<<<4096, 256>>>(d_keys, n, distinct);
	gen_probes<<<4096, 256>>>(d_probes, np, distinct, 0.5, 0, 7);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());

	printf("\n# join shape: %llu rows of %llu keys, %llu probes at 50%% hits; build + probe + emit\n",
		   (unsigned long long) n, (unsigned long long) distinct, (unsigned long long) np);
	printf("| scheme | build ms | sort+dedup ms | scheme ms | probe+scan+emit ms | of which lookup ms | total ms | pairs | G pairs/s (probe+emit) | write GB/s (emit part) |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|\n");
	for (gh_scheme sc : schemes)
	{
		gh_build_options opt;

		gh_default_options(&opt);
		opt.device = GH_DEVICE_GPU;
		opt.scheme = sc;

		uint32_t   *d_idx = nullptr;
		uint32_t   *d_rows = nullptr;
		uint64_t	cap = 0;
		std::vector<double> tb,
					tl,
					te,
					tt,
					tbs,
					tbh;
		uint64_t	total = 0;

		for (int r = 0; r <= reps; r++)
		{
			gh_table   *tab;

			CK(cudaDeviceSynchronize());
			double		t0 = gh_now_ms();

			GK(gh_build_from_device(&opt, d_keys, nullptr, 4, n, &tab));
			CK(cudaDeviceSynchronize());
			double		t1 = gh_now_ms();

			if (!d_idx)
			{
				/* size the output once, outside the timed region */
				GK(gh_gpu_emit_device(tab, d_probes, np, nullptr, nullptr, 0, &total) == GH_ERR_OUTPUT_FULL ? GH_OK : GH_ERR_INVALID);
				cap = total;
				CK(cudaMalloc(&d_idx, cap * 4));
				CK(cudaMalloc(&d_rows, cap * 4));
				CK(cudaDeviceSynchronize());
				t1 = gh_now_ms();
			}
			GK(gh_gpu_emit_device(tab, d_probes, np, d_idx, d_rows, cap, &total));
			CK(cudaStreamSynchronize(tab->gpu->stream));
			double		t2 = gh_now_ms();

			/* split lookup+scan from the write by timing the lookup alone */
			timer		tm;

			tm.start(tab->gpu->stream);
			GK(gh_gpu_lookup_device(tab, d_probes, np, tab->gpu->d_ranges, nullptr));
			double		lk = tm.stop(tab->gpu->stream);

			gh_table_info binfo;

			gh_table_get_info(tab, &binfo);
			if (r > 0)
			{
				tbs.push_back(binfo.build_sort_ms);
				tbh.push_back(binfo.build_hash_ms);
				tb.push_back(t1 - t0);
				tl.push_back(lk);
				te.push_back(t2 - t1);
				tt.push_back(t2 - t0);
			}
			gh_free(tab);
		}
		double		total_ms = median(tt),
					emit_ms = median(te);

		printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %llu | %.2f | %.0f |\n", gh_scheme_name(sc),
			   median(tb), median(tbs), median(tbh), emit_ms, median(tl), total_ms, (unsigned long long) total,
			   total / (emit_ms * 1e-3) / 1e9, total * 8.0 / ((emit_ms - median(tl)) * 1e-3) / 1e9);
		fflush(stdout);
		CK(cudaFree(d_idx));
		CK(cudaFree(d_rows));
	}
	CK(cudaFree(d_keys));
	CK(cudaFree(d_probes));
	return 0;
}
