/*
 * bench_cuco.cu
 *		bench_core's grid run on cuCollections, to read beside bench_core's
 *		tables (a program, not a test; cuCollections is not part of gpuhash).
 *
 *		For each n: n distinct keys into cuco::static_map (insert, then find
 *		and contains on 2n probes at 0/50/100% hits, uniform and Zipf), and
 *		n rows of n/8 distinct keys into cuco::static_map (duplicates are
 *		dropped by insert) and into the legacy cuco::static_multimap (every
 *		row kept; count of all matches), at load factors 0.5 and 0.8.  Then
 *		the join shape: 10^8 rows of 1.25x10^7 keys into the multimap, 2x10^8
 *		probes at 50% hits, pair_count + pair_retrieve, which is how libcudf
 *		joins on it (the multimap of the fetched cuCollections that can emit
 *		probe/build pairs; its experimental::static_multimap has no retrieve).
 *
 *		Keys and probes come from bench_core's generator (copied below: keep
 *		the two in step), so both programs probe the same keys.  Unlike
 *		gpuhash, cuCollections is told the table size: the number of distinct
 *		keys (map) or rows (multimap) over the load factor; no sort, no dedup.
 *		Its defaults are kept: static_map linear probing, CG 4; the legacy
 *		multimap double hashing, CG 8; xxhash_32; 16-byte slots of a 64-bit
 *		key and a 64-bit row id (gpuhash's 16-byte gh_slot).
 *
 *		Timing as bench_core: host clock around a build (constructor, which
 *		allocates and clears the slots, + insert), CUDA events around the
 *		insert alone and around probes, one warm-up, median of 5.  Columns
 *		are bench_core's (its sort+dedup, attempts and rounds are "-") and
 *		B/key: table bytes over distinct keys.
 *
 *		usage: bench_cuco [--sizes 1048576,16777216,...] [--reps 5]
 *		                  [--lf 0.5,0.8] [--no-join]
 *		bench_core's --schemes, --ilp and --l2-persist are accepted and
 *		ignored, so that one BENCH_ARGS serves both programs.
 */

/*
 * cuCollections of October 2024 (the newest snapshot) names thrust::identity,
 * which CCCL 3 (CUDA 13) removed; an equivalent keeps its headers unpatched.
 */
#include <cuda/std/version>
#include <thrust/functional.h>
#if CCCL_MAJOR_VERSION >= 3
namespace thrust
{
template <class T = void>
struct identity
{
	__host__ __device__ constexpr const T &operator()(const T &x) const
	{
		return x;
	}
};
template <>
struct identity<void>
{
	template <class U>
	__host__ __device__ constexpr U &&operator()(U &&x) const
	{
		return static_cast<U &&>(x);
	}
};
}							/* namespace thrust */
#endif

#include <cuco/static_map.cuh>
#include <cuco/static_multimap.cuh>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>

#include "hash.cuh"
#include "bench_common.cuh"

#include <algorithm>
#include <chrono>
#include <exception>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>


/* indexes the generator can draw: hits below distinct, misses up to 2^40 past it */
static const uint64_t INDEX_LIMIT = 1ULL << 41;

typedef cuco::pair<uint64_t, uint64_t> kv;
typedef cuco::static_map<uint64_t, uint64_t> map_t;
typedef cuco::static_multimap<uint64_t, uint64_t> mmap_t;

/* row i of a key array as (key, i): build rows and join probes, never stored */
struct row_pair
{
	const uint64_t *k;
	__host__ __device__ kv operator()(uint64_t i) const
	{
		return kv{k[i], i};
	}
};

typedef thrust::transform_iterator<row_pair, thrust::counting_iterator<uint64_t>> row_iter;

static row_iter
rows_of(const uint64_t *k)
{
	return row_iter(thrust::counting_iterator<uint64_t>(0), row_pair{k});
}

/* the join matches on keys only; the second halves are row ids */
struct key_equal
{
	template <class A, class B>
	__device__ bool operator()(const A &a, const B &b) const
	{
		return a.first == b.first;
	}
};


static double
now_ms(void)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}



static int	reps = 5;
static cudaStream_t stream;
static uint64_t empty_key;

/* The empty-key sentinel must be no generated key: fmix64 is a bijection, so
 * take the first pattern from ~0 down whose preimage is beyond every index. */
static uint64_t
pick_empty_key(void)
{
	for (uint64_t s = ~0ULL;; s--)
		if ((gh_fmix64_inv(s) ^ SEED) >= INDEX_LIMIT)
			return s;
}

/* Medians of a build: host clock (constructor + insert), events (insert alone). */
struct build_time
{
	double		ms;
	double		insert_ms;
};

/* rows (key, row id) into a map sized for the distinct keys; duplicates are dropped */
static map_t *
build_map(const uint64_t *d_keys, uint64_t n, uint64_t distinct, double lf, double *insert_ms)
{
	timer		tm;
	map_t	   *t = new map_t(distinct, lf, cuco::empty_key<uint64_t>{empty_key}, cuco::empty_value<uint64_t>{~0ULL},
							  {}, {}, {}, {}, {}, stream);

	tm.start(stream);
	t->insert_async(rows_of(d_keys), rows_of(d_keys) + n, stream);
	*insert_ms = tm.stop(stream);
	return t;
}

/* every row into a multimap sized for the rows */
static mmap_t *
build_mmap(const uint64_t *d_keys, uint64_t n, double lf, double *insert_ms)
{
	timer		tm;
	mmap_t	   *t = new mmap_t((size_t) ceil(n / lf), cuco::empty_key<uint64_t>{empty_key},
							   cuco::empty_value<uint64_t>{~0ULL}, stream);

	tm.start(stream);
	t->insert(rows_of(d_keys), rows_of(d_keys) + n, stream);
	*insert_ms = tm.stop(stream);
	return t;
}

/* build(&insert_ms) returns a new table, freed after each build */
template <class F>
static build_time
time_build(F build)
{
	std::vector<double> t,
				ti;

	for (int r = 0; r <= reps; r++)
	{
		double		ins;

		CK(cudaDeviceSynchronize());
		double		t0 = now_ms();
		auto	   *tab = build(&ins);

		CK(cudaStreamSynchronize(stream));
		double		ms = now_ms() - t0;

		delete tab;
		CK(cudaDeviceSynchronize());
		if (r > 0)
		{
			t.push_back(ms);
			ti.push_back(ins);
		}
	}
	return build_time{median(t), median(ti)};
}

enum probe_op
{
	OP_FIND,
	OP_CONTAINS,
	OP_COUNT
};

static const char *op_name[] = {"find", "contains", "count"};

/* Median of one bulk probe of np keys; results to d_out (find, contains). */
static double
time_probe(map_t *map, mmap_t *mmap, probe_op op, const uint64_t *d_probes, uint64_t np, void *d_out,
		   size_t *matches)
{
	timer		tm;
	std::vector<double> t;

	for (int r = 0; r <= reps; r++)
	{
		tm.start(stream);
		if (op == OP_FIND)
			map->find_async(d_probes, d_probes + np, (uint64_t *) d_out, stream);
		else if (op == OP_CONTAINS)
			map->contains_async(d_probes, d_probes + np, (bool *) d_out, stream);
		else
			*matches = mmap->count(d_probes, d_probes + np, stream);
		double		ms = tm.stop(stream);

		CK(cudaGetLastError());
		if (r > 0)
			t.push_back(ms);
	}
	return median(t);
}

/* Bytes a probe must move at least: key in, its answer out, one 16-byte slot. */
static double
probe_bytes(probe_op op)
{
	return 8 + (op == OP_FIND ? 8 : op == OP_CONTAINS ? 1 : 0) + sizeof(kv);
}

static std::vector<double>
parse_list(char *s)
{
	std::vector<double> v;

	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
		v.push_back(atof(tok));
	return v;
}

static int
run(int argc, char **argv)
{
	std::vector<uint64_t> sizes = {1ULL << 20, 1ULL << 24, 10000000ULL, 100000000ULL};
	std::vector<double> lfs = {0.5, 0.8};
	bool		join = true;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
		{
			sizes.clear();
			for (double s : parse_list(argv[++i]))
				sizes.push_back((uint64_t) s);
		}
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--lf") && i + 1 < argc)
			lfs = parse_list(argv[++i]);
		else if (!strcmp(argv[i], "--no-join"))
			join = false;
		else if ((!strcmp(argv[i], "--schemes") || !strcmp(argv[i], "--ilp") || !strcmp(argv[i], "--l2-persist"))
				 && i + 1 < argc)
			i++;				/* bench_core's, shared through BENCH_ARGS */
		else
		{
			fprintf(stderr, "usage: %s [--sizes a,b] [--reps N] [--lf 0.5,0.8] [--no-join]\n"
					"  (bench_core's --schemes, --ilp, --l2-persist are accepted and ignored)\n", argv[0]);
			return 2;
		}
	}
	for (double lf : lfs)
		if (!(lf > 0 && lf < 1))
		{
			fprintf(stderr, "bench_cuco: load factor %g not in (0, 1)\n", lf);
			return 2;
		}

	int			ndev = 0;

	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
	{
		fprintf(stderr, "bench_cuco: no GPU\n");
		return 1;
	}

	cudaDeviceProp prop;

	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	empty_key = pick_empty_key();

	double		bw = copy_bandwidth();

	printf("# device: %s, %d SMs, L2 %d MB, %.1f GB memory\n", prop.name, prop.multiProcessorCount,
		   prop.l2CacheSize >> 20, prop.totalGlobalMem / 1e9);
	printf("# measured device copy bandwidth (read + write): %.0f GB/s\n", bw);
	printf("# cuCollections on CCCL %d.%d.%d, median of %d after one warm-up\n",
		   CCCL_MAJOR_VERSION, CCCL_MINOR_VERSION, CCCL_PATCH_VERSION, reps);
	printf("# build ms = constructor (allocate + clear slots) + insert; scheme ms = insert alone;\n"
		   "# cuco is given the table size (no sort+dedup, no attempts/rounds); count = total matches only\n\n");
	printf("| scheme | rows | distinct | build ms | sort+dedup ms | scheme ms | build Grows/s | attempts | rounds | table MB | probes | hits | dist | probe ms | G lookups/s | GB/s (min bytes) | of copy bw | B/key |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");

	for (uint64_t n : sizes)
	{
		for (int dup = 0; dup < 2; dup++)
		{
			uint64_t	distinct = dup ? n / 8 : n;
			uint64_t	np = 2 * n;
			uint64_t   *d_keys,
					   *d_probes;
			void	   *d_out;

			if (distinct == 0)
				continue;
			CK(cudaMalloc(&d_keys, n * 8));
			CK(cudaMalloc(&d_probes, np * 8));
			CK(cudaMalloc(&d_out, np * 8));
			gen_inner<<<4096, 256>>>(d_keys, n, distinct);
			CK(cudaGetLastError());
			CK(cudaDeviceSynchronize());

			for (double lf : lfs)
			{
				/* the map holds the distinct keys; with duplicates, the multimap every row */
				for (int multi = 0; multi <= dup; multi++)
				{
					build_time bt;
					map_t	   *map = nullptr;
					mmap_t	   *mmap = nullptr;
					double		ins;
					double		table_bytes;
					uint64_t	held;

					if (multi)
					{
						bt = time_build([&](double *i) { return build_mmap(d_keys, n, lf, i); });
						mmap = build_mmap(d_keys, n, lf, &ins);
						table_bytes = (double) mmap->get_capacity() * sizeof(kv);
						held = mmap->get_size(stream);
					}
					else
					{
						bt = time_build([&](double *i) { return build_map(d_keys, n, distinct, lf, i); });
						map = build_map(d_keys, n, distinct, lf, &ins);
						table_bytes = (double) map->capacity() * sizeof(kv);
						held = map->size(stream);
					}
					if (held != (multi ? n : distinct))
					{
						fprintf(stderr, "bench_cuco: table holds %llu entries, expected %llu\n",
								(unsigned long long) held, (unsigned long long) (multi ? n : distinct));
						return 1;
					}

					struct
					{
						double		hit;
						int			zipf;
					}			mixes[] = {{0.0, 0}, {0.5, 0}, {1.0, 0}, {0.5, 1}};

					for (auto m : mixes)
					{
						if (dup && (m.zipf || m.hit != 0.5))
							continue;	/* duplicates: the join mix only, as bench_core */
						gen_probes<<<4096, 256>>>(d_probes, np, distinct, m.hit, m.zipf, 99);
						CK(cudaGetLastError());
						CK(cudaDeviceSynchronize());

						for (probe_op op : {OP_FIND, OP_CONTAINS, OP_COUNT})
						{
							size_t		matches = 0;

							if ((op == OP_COUNT) != (multi == 1))
								continue;
							double		ms = time_probe(map, mmap, op, d_probes, np, d_out, &matches);
							double		gps = np / (ms * 1e-3) / 1e9;
							double		gbs = np * probe_bytes(op) / (ms * 1e-3) / 1e9;
							char		name[64];

							snprintf(name, sizeof(name), "cuco %s %s lf%.2g", multi ? "multimap" : "map", op_name[op], lf);
							printf("| %s | %llu | %llu | %.2f | - | %.2f | %.2f | - | - | %.0f | %llu | %d%% | %s | %.3f | %.2f | %.0f | %.0f%% | %.1f |\n",
								   name, (unsigned long long) n, (unsigned long long) distinct,
								   bt.ms, bt.insert_ms, n / (bt.ms * 1e-3) / 1e9, table_bytes / 1e6,
								   (unsigned long long) np, (int) (m.hit * 100), m.zipf ? "zipf" : "unif",
								   ms, gps, gbs, 100 * gbs / bw, table_bytes / distinct);
							fflush(stdout);
						}
					}
					delete map;
					delete mmap;
					CK(cudaDeviceSynchronize());
				}
			}
			CK(cudaFree(d_keys));
			CK(cudaFree(d_probes));
			CK(cudaFree(d_out));
		}
	}

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
	printf("# legacy cuco::static_multimap: pair_count sizes the output, pair_retrieve writes the\n"
		   "# (probe index, row) pairs as two uint32 arrays, as bench_core's emit (8 bytes a pair)\n");
	printf("| scheme | build ms | sort+dedup ms | scheme ms | probe+scan+emit ms | of which lookup ms | total ms | pairs | G pairs/s (probe+emit) | write GB/s (emit part) | table MB | B/key |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (double lf : lfs)
	{
		uint32_t   *d_idx = nullptr;
		uint32_t   *d_rows = nullptr;
		uint64_t	cap = 0;
		std::vector<double> tb,
					ti,
					tl,
					te,
					tt;
		uint64_t	total = 0;
		double		table_bytes = 0;
		timer		tm;

		for (int r = 0; r <= reps; r++)
		{
			double		ins;

			CK(cudaDeviceSynchronize());
			double		t0 = now_ms();
			mmap_t	   *mm = build_mmap(d_keys, n, lf, &ins);

			CK(cudaStreamSynchronize(stream));
			double		t1 = now_ms();

			table_bytes = (double) mm->get_capacity() * sizeof(kv);
			if (!d_idx)
			{
				/* size the output once, outside the timed region */
				cap = mm->pair_count(rows_of(d_probes), rows_of(d_probes) + np, key_equal{}, stream);
				CK(cudaMalloc(&d_idx, std::max<uint64_t>(cap, 1) * 4));
				CK(cudaMalloc(&d_rows, std::max<uint64_t>(cap, 1) * 4));
				CK(cudaDeviceSynchronize());
				t1 = now_ms();
			}

			/* a join must count before it writes: both are timed */
			tm.start(stream);
			total = mm->pair_count(rows_of(d_probes), rows_of(d_probes) + np, key_equal{}, stream);
			double		lk = tm.stop(stream);

			if (total > cap)
			{
				fprintf(stderr, "bench_cuco: %llu pairs, room for %llu\n", (unsigned long long) total,
						(unsigned long long) cap);
				return 1;
			}
			auto		out_idx = thrust::make_zip_iterator(thrust::make_tuple(thrust::make_discard_iterator(), d_idx));
			auto		out_rows = thrust::make_zip_iterator(thrust::make_tuple(thrust::make_discard_iterator(), d_rows));
			auto		ends = mm->pair_retrieve(rows_of(d_probes), rows_of(d_probes) + np, out_idx, out_rows,
												 key_equal{}, stream);

			CK(cudaStreamSynchronize(stream));
			CK(cudaGetLastError());
			double		t2 = now_ms();

			if ((uint64_t) (ends.first - out_idx) != total)
			{
				fprintf(stderr, "bench_cuco: pair_retrieve wrote %llu pairs, pair_count said %llu\n",
						(unsigned long long) (ends.first - out_idx), (unsigned long long) total);
				return 1;
			}
			delete mm;
			CK(cudaDeviceSynchronize());
			if (r > 0)
			{
				tb.push_back(t1 - t0);
				ti.push_back(ins);
				tl.push_back(lk);
				te.push_back(t2 - t1);
				tt.push_back(t2 - t0);
			}
		}
		double		emit_ms = median(te);
		char		name[64];

		snprintf(name, sizeof(name), "cuco multimap lf%.2g", lf);
		printf("| %s | %.1f | - | %.1f | %.1f | %.1f | %.1f | %llu | %.2f | %.0f | %.0f | %.1f |\n", name,
			   median(tb), median(ti), emit_ms, median(tl), median(tt), (unsigned long long) total,
			   total / (emit_ms * 1e-3) / 1e9, total * 8.0 / ((emit_ms - median(tl)) * 1e-3) / 1e9,
			   table_bytes / 1e6, table_bytes / distinct);
		fflush(stdout);
		CK(cudaFree(d_idx));
		CK(cudaFree(d_rows));
	}
	CK(cudaFree(d_keys));
	CK(cudaFree(d_probes));
	return 0;
}

int
main(int argc, char **argv)
{
	/* cuCollections reports CUDA failures (out of memory above all) by throwing */
	try
	{
		return run(argc, argv);
	}
	catch (const std::exception &e)
	{
		fprintf(stderr, "bench_cuco: %s\n", e.what());
		return 1;
	}
}
