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
 *		Then the chunked inner side (--chunks, default 8; 0 skips it): the
 *		inner keys arrive in chunks, DyCuckoo grows in place (cuda/
 *		dycuckoo.h) while GPH is rebuilt over all rows so far after each.
 *
 *		usage: bench_core [--sizes 1048576,16777216,...] [--reps 5]
 *		                  [--schemes gph,fks,linear,cuckoo,hashgraph,dycuckoo] [--ilp 1|2|4]
 *		                  [--l2-persist 0|1] [--no-join] [--chunks 8]
 *		                  [--cuckoo-probe auto|thread|group]
 *		--ilp: probes in flight per thread; sweep it by running 1, 2 and 4.
 *		--cuckoo-probe: cuckoo's probe kernel, a thread or a 4-lane group
 *		per key (auto, the default: by the table's size).
 *		--l2-persist: L2 persisting window over the GPH cells / FKS level 1
 *		(default 1); 0 leaves only the evict-first slot loads.
 */
#include "gpu_common.cuh"
#include "scheme_ops.h"
#include "bench_common.cuh"
#include "dycuckoo.h"
#include "scheme_costs.h"

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>






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
		s == GH_SCHEME_HASHGRAPH ? 8 + 16 : 16;	/* HashGraph: offs[b], offs[b+1], a slot */

	if (s == GH_SCHEME_DYCUCKOO)
		table = 128;			/* one 128-B bucket (a miss reads two) */
	if (s == GH_SCHEME_CUCKOO)
		table = 64;				/* one 64-B bucket (a miss reads two) */

	return 8 + 4 + table;
}

/* Bytes of a built table's arrays (the scheme row's, as its view points
 * at them): the real sizes, not a formula; rowids not included. */
static size_t
table_bytes(const gh_table *t)
{
	gh_array	a[GH_MAX_ARRAYS];
	size_t		b = 0;

	for (int i = 0, n = gh_scheme_ops_of(t->scheme)->arrays(t, a); i < n; i++)
		b += a[i].bytes;
	return b;
}

/* The scheme called name (gh_scheme_name), or -1. */
static int
scheme_by_name(const char *name)
{
	for (int s = 0; s < GH_N_SCHEMES; s++)
		if (gh_scheme_ops_of((gh_scheme) s) && !strcmp(gh_scheme_name((gh_scheme) s), name))
			return s;
	return -1;
}

struct row
{
	std::string what;
	double		value;
};

/* Ranges of distinct keys in arrival order: key i owns row i. */
__global__ void
gen_ranges(uint32_t *off, uint32_t *cnt, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n; i += (uint64_t) gridDim.x * blockDim.x)
	{
		off[i] = (uint32_t) i;
		cnt[i] = 1;
	}
}

/* Hits among np probes (counts summed on the host, outside any timing). */
static uint64_t
hits_of(gh_table *tab, const uint64_t *d_probes, uint64_t np, uint32_t *d_counts)
{
	std::vector<uint32_t> c(np);
	uint64_t	sum = 0;

	GK(gh_gpu_lookup_device(tab, d_probes, np, nullptr, d_counts));
	CK(cudaStreamSynchronize(tab->gpu->stream));
	CK(cudaMemcpy(c.data(), d_counts, np * 4, cudaMemcpyDeviceToHost));
	for (uint32_t x : c)
		sum += x;
	return sum;
}

/*
 * The chunked inner side: n distinct keys (rowid = position) arrive in
 * `chunks` chunks.  DyCuckoo is built from the first chunk and grows in
 * place: each later chunk's keys go through the incremental path with
 * their ranges (distinct keys in arrival order are key-grouped already:
 * key i owns row i; the table's own rowid array stays the first chunk's,
 * only the hash part is timed).  GPH is rebuilt from scratch over all rows
 * so far after every chunk, sort and dedup included.  The builds
 * synchronize (host clock, as time_build); DyCuckoo's inserts are timed
 * with CUDA events on the table's stream.  Both final tables then answer
 * 2n probes at 50% hits (the hit totals must agree).
 */
static void
chunked_inner(uint64_t n, int chunks)
{
	uint64_t	np = 2 * n;
	uint64_t   *d_keys,
			   *d_probes;
	uint32_t   *d_off,
			   *d_cnt,
			   *d_counts;

	CK(cudaMalloc(&d_keys, n * 8));
	CK(cudaMalloc(&d_off, n * 4));
	CK(cudaMalloc(&d_cnt, n * 4));
	CK(cudaMalloc(&d_probes, np * 8));
	CK(cudaMalloc(&d_counts, np * 4));
	gen_inner<<<4096, 256>>>(d_keys, n, n);
	gen_ranges<<<4096, 256>>>(d_off, d_cnt, n);
	gen_probes<<<4096, 256>>>(d_probes, np, n, 0.5, 0, 31);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());

	std::vector<double> dyc_total,
				dyc_first,
				dyc_chunk,
				gph_total,
				gph_last;
	gh_table_info dinfo,
				ginfo;
	double		dyc_probe_ms = 0,
				gph_probe_ms = 0;
	uint64_t	dyc_hits = 0,
				gph_hits = 0;

	for (int r = 0; r <= reps; r++)
	{
		gh_build_options opt;
		gh_table   *dyc,
				   *gph = nullptr;
		timer		tm;
		uint64_t	c0 = n / chunks;
		double		tot = 0;

		gh_default_options(&opt);
		opt.device = GH_DEVICE_GPU;

		/* DyCuckoo: the first chunk built, the others inserted */
		opt.scheme = GH_SCHEME_DYCUCKOO;
		opt.load_factor = GH_DYC_DEFAULT_FILL;
		CK(cudaDeviceSynchronize());
		double		t0 = gh_now_ms();

		GK(gh_build_from_device(&opt, d_keys, nullptr, 4, c0, &dyc));
		CK(cudaDeviceSynchronize());
		double		first = gh_now_ms() - t0;

		tot = first;
		for (int c = 1; c < chunks; c++)
		{
			uint64_t	lo = n * c / chunks,
						hi = n * (c + 1) / chunks;

			tm.start(dyc->gpu->stream);
			GK(gh_dyc_insert_device(dyc, d_keys + lo, d_off + lo, d_cnt + lo, (uint32_t) (hi - lo), 0));
			double		ms = tm.stop(dyc->gpu->stream);

			tot += ms;
			if (r > 0)
				dyc_chunk.push_back(ms);
		}
		if (r > 0)
		{
			dyc_total.push_back(tot);
			dyc_first.push_back(first);
		}

		/* GPH: rebuilt over the rows so far after every chunk */
		opt.scheme = GH_SCHEME_GPH;
		opt.load_factor = 0;
		tot = 0;
		double		last = 0;

		for (int c = 0; c < chunks; c++)
		{
			uint64_t	hi = n * (c + 1) / chunks;

			gh_free(gph);
			CK(cudaDeviceSynchronize());
			t0 = gh_now_ms();
			GK(gh_build_from_device(&opt, d_keys, nullptr, 4, hi, &gph));
			CK(cudaDeviceSynchronize());
			last = gh_now_ms() - t0;
			tot += last;
		}
		if (r > 0)
		{
			gph_total.push_back(tot);
			gph_last.push_back(last);
		}
		if (r == reps)
		{
			gh_table_get_info(dyc, &dinfo);
			gh_table_get_info(gph, &ginfo);
			dyc_probe_ms = time_lookup(dyc, d_probes, np, d_counts);
			gph_probe_ms = time_lookup(gph, d_probes, np, d_counts);
			dyc_hits = hits_of(dyc, d_probes, np, d_counts);
			gph_hits = hits_of(gph, d_probes, np, d_counts);
		}
		gh_free(dyc);
		gh_free(gph);
	}

	printf("\n# chunked inner side: %llu distinct keys in %d chunks; DyCuckoo grows in place (fill bound %.2f), "
		   "GPH rebuilt after each chunk (load %.2f); final tables probed with %llu keys at 50%% hits: %s\n",
		   (unsigned long long) n, chunks, GH_DYC_DEFAULT_FILL, 0.5, (unsigned long long) np,
		   dyc_hits == gph_hits ? "hit totals agree" : "HIT TOTALS DIFFER");
	printf("| scheme | keys | chunks | first chunk ms | per later chunk ms (median) | all chunks ms | upsizes | slots | fill | table MB (slots) | device MB held | probe ms | G lookups/s |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	printf("| dycuckoo (grow) | %llu | %d | %.2f | %.2f | %.2f | %d | %llu | %.3f | %.1f | %.1f | %.3f | %.2f |\n",
		   (unsigned long long) n, chunks, median(dyc_first), median(dyc_chunk), median(dyc_total),
		   dinfo.rounds - 1, (unsigned long long) dinfo.slots, (double) dinfo.n_distinct / (double) dinfo.slots,
		   dinfo.slots * sizeof(gh_slot) / 1e6, dinfo.device_bytes / 1e6, dyc_probe_ms, np / (dyc_probe_ms * 1e-3) / 1e9);
	printf("| gph (rebuild) | %llu | %d | - | %.2f (last rebuild) | %.2f | - | %llu | %.3f | %.1f | %.1f | %.3f | %.2f |\n",
		   (unsigned long long) n, chunks, median(gph_last), median(gph_total),
		   (unsigned long long) ginfo.slots, (double) ginfo.n_distinct / (double) ginfo.slots,
		   (ginfo.slots * sizeof(gh_slot) + ginfo.cells) / 1e6, ginfo.device_bytes / 1e6, gph_probe_ms,
		   np / (gph_probe_ms * 1e-3) / 1e9);
	fflush(stdout);
	CK(cudaFree(d_keys));
	CK(cudaFree(d_off));
	CK(cudaFree(d_cnt));
	CK(cudaFree(d_probes));
	CK(cudaFree(d_counts));
}

/* A grid point at 50% uniform hits: what gpuhash.scheme = auto weighs. */
struct grid_point
{
	uint64_t	rows;
	uint64_t	distinct;
	uint64_t	probes;
	gh_scheme	scheme;
	double		build_ms;
	double		probe_ms;
};

static std::vector<grid_point> grid;

/*
 * gpuhash.scheme = auto against the grid: each scheme's points (n rows of
 * n distinct keys) printed as scheme_costs.h wants them; then per grid
 * point the fastest scheme (build + probe, measured), and what auto picks
 * from the costs just measured and from the ones built in, with how much
 * slower its pick was measured to be.
 */
static void
scheme_choice(const std::vector<grid_point> &g, const std::vector<gh_scheme> &schemes)
{
	std::vector<gh_scheme_costs> fresh;

	printf("\n# scheme_costs.h: measured points (distinct, build ms, probe ns per lookup)\n");
	for (gh_scheme sc : schemes)
	{
		gh_scheme_costs c;
		std::string up = gh_scheme_name(sc);

		memset(&c, 0, sizeof(c));
		c.scheme = sc;
		for (const grid_point &p : g)
			if (p.scheme == sc && p.distinct == p.rows && c.n < GH_MAX_COST_POINTS)
				c.p[c.n++] = {(double) p.distinct, p.build_ms, p.probe_ms * 1e6 / (double) p.probes};
		std::sort(c.p, c.p + c.n, [](const gh_cost_point &a, const gh_cost_point &b) {
			return a.distinct < b.distinct;
		});
		for (char &ch : up)
			ch = (char) toupper(ch);
		printf("\t{GH_SCHEME_%s, %d, {", up.c_str(), c.n);
		for (int i = 0; i < c.n; i++)
			printf("%s{%.0f, %.4g, %.4g}", i ? ", " : "", c.p[i].distinct, c.p[i].build_ms, c.p[i].probe_ns);
		printf("}},\n");
		fresh.push_back(c);
	}

	printf("\n# auto against the fastest scheme (build + probe at 50%% uniform hits, measured)\n");
	printf("| rows | distinct | probes | fastest | ms | auto (these costs) | ms | of fastest | auto (built in) | ms | of fastest |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < g.size(); i++)
	{
		if (i > 0 && g[i].rows == g[i - 1].rows && g[i].distinct == g[i - 1].distinct)
			continue;			/* one line per grid point */

		const grid_point *best = nullptr;
		auto		measured = [&](gh_scheme sc) -> const grid_point * {
			for (const grid_point &p : g)
				if (p.rows == g[i].rows && p.distinct == g[i].distinct && p.scheme == sc)
					return &p;
			return nullptr;
		};

		for (gh_scheme sc : schemes)
		{
			const grid_point *p = measured(sc);

			if (p && (!best || p->build_ms + p->probe_ms < best->build_ms + best->probe_ms))
				best = p;
		}

		gh_scheme_estimate est[GH_N_SCHEMES];
		int			ne = gh_scheme_estimates_from(fresh.data(), (int) fresh.size(), (double) g[i].rows,
												  (double) g[i].distinct, (double) g[i].probes, est);
		const grid_point *a = ne > 0 ? measured(est[0].scheme) : nullptr;
		const grid_point *b = measured(gh_scheme_auto((double) g[i].rows, (double) g[i].distinct,
													  (double) g[i].probes));
		double		bt = best->build_ms + best->probe_ms;

		printf("| %llu | %llu | %llu | %s | %.3f | %s | %.3f | %.2f | %s | %.3f | %.2f |\n",
			   (unsigned long long) g[i].rows, (unsigned long long) g[i].distinct,
			   (unsigned long long) g[i].probes, gh_scheme_name(best->scheme), bt,
			   a ? gh_scheme_name(a->scheme) : "-", a ? a->build_ms + a->probe_ms : 0, a ? (a->build_ms + a->probe_ms) / bt : 0,
			   b ? gh_scheme_name(b->scheme) : "-", b ? b->build_ms + b->probe_ms : 0, b ? (b->build_ms + b->probe_ms) / bt : 0);
	}
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	std::vector<uint64_t> sizes = {1ULL << 20, 1ULL << 24, 10000000ULL, 100000000ULL};
	std::vector<gh_scheme> schemes = {GH_SCHEME_GPH, GH_SCHEME_FKS, GH_SCHEME_LINEAR, GH_SCHEME_CUCKOO, GH_SCHEME_HASHGRAPH, GH_SCHEME_DYCUCKOO};
	bool		join = true;
	int			chunks = 8;

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
		else if (!strcmp(argv[i], "--cuckoo-probe") && i + 1 < argc)
		{
			i++;
			gh_cuckoo_probe = !strcmp(argv[i], "thread") ? GH_CUCKOO_PROBE_THREAD :
				!strcmp(argv[i], "group") ? GH_CUCKOO_PROBE_GROUP : GH_CUCKOO_PROBE_AUTO;
		}
		else if (!strcmp(argv[i], "--l2-persist") && i + 1 < argc)
			gh_l2_persist = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-join"))
			join = false;
		else if (!strcmp(argv[i], "--chunks") && i + 1 < argc)
			chunks = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--schemes") && i + 1 < argc)
		{
			schemes.clear();
			for (char *tok = strtok(argv[++i], ","); tok; tok = strtok(NULL, ","))
			{
				int			sc = scheme_by_name(tok);

				if (sc < 0)
				{
					fprintf(stderr, "bench_core: no scheme called \"%s\"\n", tok);
					return 2;
				}
				schemes.push_back((gh_scheme) sc);
			}
		}
		else
		{
			fprintf(stderr, "usage: %s [--sizes a,b] [--reps N] [--schemes gph,fks,linear,cuckoo,hashgraph,dycuckoo] [--ilp 1|2|4]\n"
					"          [--l2-persist 0|1] [--no-join] [--chunks N] [--cuckoo-probe auto|thread|group]\n"
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
	printf("# probe ILP %d, L2 persisting window %s, cuckoo probe %s, median of %d after one warm-up\n",
		   gh_probe_ilp, gh_l2_persist ? "on" : "off",
		   gh_cuckoo_probe == GH_CUCKOO_PROBE_THREAD ? "a thread per key" :
		   gh_cuckoo_probe == GH_CUCKOO_PROBE_GROUP ? "4-lane groups" : "by table size", reps);
	printf("# build ms = sort+dedup ms + scheme ms (+ small host overhead); attempts/rounds of the scheme\n");
	printf("# table MB / B/key: the table's arrays (rowids not included); rounds: HashGraph's longest bucket\n\n");
	printf("| scheme | rows | distinct | build ms | sort+dedup ms | scheme ms | build Grows/s | attempts | rounds | table MB | B/key | probes | hits | dist | probe ms | G lookups/s | GB/s (min bytes) | of copy bw |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");

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

					if (m.hit == 0.5 && !m.zipf)
						grid.push_back({n, info.n_distinct, np, sc, build_ms, ms});
					printf("| %s | %llu | %llu | %.2f | %.2f | %.2f | %.2f | %d | %d | %.0f | %.1f | %llu | %d%% | %s | %.3f | %.2f | %.0f | %.0f%% |\n",
						   gh_scheme_name(sc), (unsigned long long) n, (unsigned long long) info.n_distinct,
						   build_ms, bsplit.sort_ms, bsplit.hash_ms, n / (build_ms * 1e-3) / 1e9,
						   info.attempts, info.rounds,
						   table_bytes(tab) / 1e6, (double) table_bytes(tab) / (double) info.n_distinct,
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

	scheme_choice(grid, schemes);

	if (chunks > 0)
		for (uint64_t n : sizes)
			chunked_inner(n, chunks);

	if (!join)
		return 0;

	uint64_t	n = JOIN_ROWS,
				distinct = JOIN_DISTINCT,
				np = JOIN_PROBES;
	uint64_t   *d_keys,
			   *d_probes;

	join_shape_data(&d_keys, &d_probes);

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
