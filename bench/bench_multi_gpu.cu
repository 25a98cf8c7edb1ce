/*
 * bench_multi_gpu.cu
 *		Benchmark of probing a join table partitioned over several GPUs (a
 *		program, not a test).
 *
 *		Keys as bench_core's (bench_common.cuh): N inner rows of N * ratio
 *		distinct keys, M probes of which a fraction --hit find a key.  Part g
 *		of G holds the keys with gh_part_of(key, G) == g (hash.cuh), on GPU g.
 *
 *		1. one GPU: a table over all N rows on GPU 0, the M probes on GPU 0.
 *		2. partitioned, probes pre-split: part g built on GPU g, which holds
 *		   the probes it owns (split on the host once); all GPUs probe at once.
 *		3. partitioned, with the shuffle: M/G probes start on each GPU,
 *		   unsplit.  Each rep every GPU groups its keys by owner (CUB), pulls
 *		   its share from the others (cudaMemcpyPeerAsync) and probes all the
 *		   keys it owns; its own share is probed while the pulls run.
 *		4. the same start, with the shuffle in the probe (GPH, peer access
 *		   between all GPUs): each GPU reads its keys once, probes those it
 *		   owns and stores the others straight into their owner's inbox
 *		   (gh_gpu_lookup_routed); then each probes its inbox, whose size
 *		   it reads on the device (gh_gpu_lookup_counted).  No host round
 *		   trip between the two.
 *
 *		Timing: one warm-up, median of --reps.  Case 1 by CUDA events around
 *		the lookup (as bench_core).  Cases 2 and 3 by host wall time from a
 *		common start (every GPU idle) to the last GPU done, which gives the
 *		throughput; each GPU's own events are reported too (the max over
 *		GPUs).  The matches (sum of counts) must be equal in all three cases
 *		and agree with the key model, else the exit status is 1.
 *
 *		usage: bench_multi_gpu [--rows N] [--distinct-ratio r] [--probes M]
 *		                       [--hit h] [--scheme gph|fks] [--gpus G] [--reps R]
 */
#include "gpu_common.cuh"
#include "scheme_ops.h"
#include "bench_common.cuh"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>



static int	reps = 10;

/* One GPU's share of a case. */
struct gpu
{
	int			dev;
	gh_table   *tab = nullptr;
	cudaStream_t st = nullptr;	/* the table's stream */
	cudaEvent_t start = nullptr,
				end = nullptr;
	uint64_t   *d_probes = nullptr; /* case 1 and 2: the probes it owns */
	uint64_t	n_own = 0;
	uint32_t   *d_counts = nullptr; /* n_own */

	/* case 3 */
	cudaStream_t copy = nullptr;	/* pulls from the other GPUs */
	cudaEvent_t copied = nullptr;
	uint64_t   *d_in = nullptr, /* n_in keys as they arrived */
			   *d_out = nullptr,	/* the same, grouped by owner */
			   *d_recv = nullptr;	/* n_own: the other GPUs' shares */
	uint64_t	n_in = 0;
	uint8_t    *d_pid = nullptr,
			   *d_pid_out = nullptr;
	unsigned long long *d_cnt = nullptr;	/* keys of d_in per owner */
	void	   *d_tmp = nullptr;
	size_t		tmp_bytes = 0;

	/* case 4 */
	gh_route	route;
	uint64_t   *d_inbox = nullptr;	/* the keys other GPUs send, a region each */
	uint32_t   *d_from = nullptr;	/* where the keys it sends came from */
	cudaEvent_t routed = nullptr;	/* the routed lookup done: waited on, timed */
	uint64_t	inbox_at[GH_MAX_PARTS] = {0},
				inbox_cap = 0;
	uint32_t   *d_inbox_counts = nullptr;
	unsigned long long *d_nto = nullptr;
};

__global__ void
sum_counts(const uint32_t *c, uint64_t n, unsigned long long *sum)
{
	unsigned long long s = 0;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n; i += (uint64_t) gridDim.x * blockDim.x)
		s += c[i];
	atomicAdd(sum, s);
}

/* Sum of n counts on dev (summed on the device, outside any timing). */
static uint64_t
sum_on(int dev, const uint32_t *c, uint64_t n)
{
	unsigned long long *d_sum,
				sum = 0;

	CK(cudaSetDevice(dev));
	CK(cudaDeviceSynchronize());
	CK(cudaMalloc(&d_sum, sizeof(sum)));
	CK(cudaMemset(d_sum, 0, sizeof(sum)));
	sum_counts<<<1024, 256>>>(c, n, d_sum);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost));
	CK(cudaFree(d_sum));
	return sum;
}

/* Matches of a GPU's last probe of the keys it owns. */
static uint64_t
matches_of(const gpu &x)
{
	return sum_on(x.dev, x.d_counts, x.n_own);
}

__global__ void
part_ids(const uint64_t *k, uint64_t n, uint32_t parts, uint8_t *pid)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n; i += (uint64_t) gridDim.x * blockDim.x)
		pid[i] = (uint8_t) gh_part_of(k[i], parts);
}

struct owned_by_0
{
	uint32_t	parts;

	__device__ bool operator() (uint64_t k) const
	{
		return gh_part_of(k, parts) == 0;
	}
};

/*
 * Groups x's n_in keys by owner into d_out and counts them per owner in
 * d_cnt, on x's stream: one partition pass for two parts (part 1 comes out
 * reversed at the end, d_cnt[0] alone is written), else a radix sort on
 * the owner and a histogram.  With tmp NULL only sets *bytes (CUB's way).
 */
static void
group_by_owner(gpu &x, int G, void *tmp, size_t *bytes)
{
	int64_t		n = (int64_t) x.n_in;

	if (G <= 2)
	{
		CK(cub::DevicePartition::If(tmp, *bytes, x.d_in, x.d_out, x.d_cnt, n, owned_by_0{(uint32_t) G}, x.st));
		return;
	}

	int			bits = 0;
	size_t		b1 = *bytes,
				b2 = *bytes;

	while ((1 << bits) < G)
		bits++;
	if (tmp)
	{
		part_ids<<<4096, 256, 0, x.st>>>(x.d_in, x.n_in, (uint32_t) G, x.d_pid);
		CK(cudaGetLastError());
	}
	CK(cub::DeviceRadixSort::SortPairs(tmp, b1, x.d_pid, x.d_pid_out, x.d_in, x.d_out, n, 0, bits, x.st));
	CK(cub::DeviceHistogram::HistogramEven(tmp, b2, x.d_pid, x.d_cnt, G + 1, 0, G, n, x.st));
	if (!tmp)
		*bytes = std::max(b1, b2);
}

/*
 * Runs step (which records start and end on every GPU's stream) once to
 * warm up and reps times after every GPU is idle: medians of the host wall
 * time to the last GPU done and of the longest GPU's event time.
 */
template <typename F>
static void
time_reps(std::vector<gpu> &g, F step, double *wall_ms, double *event_ms)
{
	std::vector<double> w,
				e;

	for (int r = 0; r <= reps; r++)
	{
		for (gpu &x : g)
		{
			CK(cudaSetDevice(x.dev));
			CK(cudaDeviceSynchronize());
		}
		double		t0 = gh_now_ms();

		step();
		for (gpu &x : g)
			CK(cudaEventSynchronize(x.end));

		double		ms = gh_now_ms() - t0,
					ev = 0;

		for (gpu &x : g)
		{
			float		f;

			CK(cudaEventElapsedTime(&f, x.start, x.end));
			ev = std::max(ev, (double) f);
		}
		if (r > 0)
		{
			w.push_back(ms);
			e.push_back(ev);
		}
	}
	*wall_ms = median(w);
	*event_ms = median(e);
}

/* Cases 1 and 2: every GPU probes the keys it holds, all at once. */
static void
probe_all(std::vector<gpu> &g)
{
	for (gpu &x : g)
	{
		CK(cudaSetDevice(x.dev));
		CK(cudaEventRecord(x.start, x.st));
		GK(gh_gpu_lookup_device(x.tab, x.d_probes, x.n_own, nullptr, x.d_counts));
		CK(cudaEventRecord(x.end, x.st));
	}
}

/*
 * Case 3: group by owner, read the counts back (the copies' sizes), then
 * each GPU d pulls part d of every other GPU's keys into d_recv and probes
 * its own share in place meanwhile, then the pulled ones.  cnt[s * G + d]:
 * keys arrived at s that d owns; d's counts are in source order.
 */
static void
shuffle_probe(std::vector<gpu> &g, unsigned long long *cnt)
{
	int			G = (int) g.size();

	for (gpu &x : g)
	{
		CK(cudaSetDevice(x.dev));
		CK(cudaEventRecord(x.start, x.st));
		group_by_owner(x, G, x.d_tmp, &x.tmp_bytes);
		CK(cudaMemcpyAsync(cnt + x.dev * G, x.d_cnt, (G <= 2 ? 1 : G) * sizeof(*cnt), cudaMemcpyDeviceToHost, x.st));
	}
	for (gpu &x : g)
	{
		CK(cudaStreamSynchronize(x.st));
		if (G == 2)
			cnt[x.dev * G + 1] = x.n_in - cnt[x.dev * G];
	}
	for (gpu &x : g)
	{
		int			d = x.dev;
		uint64_t	at[GH_MAX_PARTS],	/* where source s's keys go in d's counts */
					from[GH_MAX_PARTS], /* where they are in s's d_out */
					own = 0;

		for (int s = 0; s < G; s++)
		{
			at[s] = own;
			own += cnt[s * G + d];
			from[s] = 0;
			for (int p = 0; p < d; p++)
				from[s] += cnt[s * G + p];
		}
		if (own != x.n_own)
		{
			fprintf(stderr, "bench_multi_gpu: GPU %d got %llu keys to probe, the host split says %llu\n",
					d, (unsigned long long) own, (unsigned long long) x.n_own);
			exit(1);
		}
		CK(cudaSetDevice(d));
		for (int s = 0; s < G; s++)
			if (s != d && cnt[s * G + d] > 0)
				CK(cudaMemcpyPeerAsync(x.d_recv + at[s], d, g[s].d_out + from[s], s,
									   cnt[s * G + d] * sizeof(uint64_t), x.copy));
		CK(cudaEventRecord(x.copied, x.copy));
		GK(gh_gpu_lookup_device(x.tab, x.d_out + from[d], cnt[d * G + d], nullptr, x.d_counts + at[d]));
		CK(cudaStreamWaitEvent(x.st, x.copied, 0));
		for (int s = 0; s < G; s++)
			if (s != d)
				GK(gh_gpu_lookup_device(x.tab, x.d_recv + at[s], cnt[s * G + d], nullptr, x.d_counts + at[s]));
		CK(cudaEventRecord(x.end, x.st));
	}
}

/*
 * Case 4: every GPU probes the keys it owns and sends the others to their
 * owners' inboxes in one pass; each then probes its inbox regions once
 * every sender is done (an event wait across GPUs), their sizes read on
 * the device from the senders' counters (peer access).
 */
static void
routed_probe(std::vector<gpu> &g)
{
	int			G = (int) g.size();

	for (gpu &x : g)
	{
		CK(cudaSetDevice(x.dev));
		CK(cudaEventRecord(x.start, x.st));
		CK(cudaMemsetAsync(x.d_nto, 0, GH_MAX_PARTS * sizeof(*x.d_nto), x.st));
		GK(gh_gpu_lookup_routed(x.tab, x.d_in, x.n_in, &x.route, nullptr, x.d_counts));
		CK(cudaEventRecord(x.routed, x.st));
	}
	for (gpu &x : g)
	{
		CK(cudaSetDevice(x.dev));
		for (int s = 0; s < G; s++)
			if (s != x.dev)
				CK(cudaStreamWaitEvent(x.st, g[s].routed, 0));
		for (int s = 0; s < G; s++)
			if (s != x.dev)
				GK(gh_gpu_lookup_counted(x.tab, x.d_inbox + x.inbox_at[s], g[s].d_nto + x.dev, g[s].n_in, nullptr,
										 x.d_inbox_counts + x.inbox_at[s]));
		CK(cudaEventRecord(x.end, x.st));
	}
}

static gh_table *
build_on(int dev, gh_scheme sc, const uint64_t *keys, uint64_t n)
{
	gh_build_options opt;
	gh_table_info info;
	gh_table   *t;

	gh_default_options(&opt);
	opt.device = GH_DEVICE_GPU;
	opt.scheme = sc;
	opt.gpu_ordinal = dev;
	GK(gh_build(&opt, keys, nullptr, 4, n, &t));
	gh_table_get_info(t, &info);
	if (info.gpu_ordinal != dev || info.parts != 1)
	{
		fprintf(stderr, "bench_multi_gpu: table built for GPU %d says GPU %d, %d parts\n", dev,
				info.gpu_ordinal, info.parts);
		exit(1);
	}
	printf("# GPU %d: table over %llu rows (%llu distinct), build %.1f ms, %.0f MB on the device\n", dev,
		   (unsigned long long) n, (unsigned long long) info.n_distinct, info.build_ms, info.device_bytes / 1e6);
	return t;
}

static uint64_t *
upload(int dev, const uint64_t *h, uint64_t n)
{
	uint64_t   *d;

	CK(cudaSetDevice(dev));
	CK(cudaMalloc(&d, (n ? n : 1) * sizeof(uint64_t)));
	CK(cudaMemcpy(d, h, n * sizeof(uint64_t), cudaMemcpyHostToDevice));
	return d;
}

/* The keys of part p of G, in their order. */
static std::vector<std::vector<uint64_t>>
split_by_part(const std::vector<uint64_t> &k, int G)
{
	std::vector<std::vector<uint64_t>> parts(G);

	for (auto &p : parts)
		p.reserve(k.size() / G + k.size() / (G * 64) + 16);
	for (uint64_t x : k)
		parts[gh_part_of(x, G)].push_back(x);
	return parts;
}

static void
free_gpu(gpu &x)
{
	void	   *bufs[] = {x.d_probes, x.d_counts, x.d_in, x.d_out, x.d_recv, x.d_pid, x.d_pid_out, x.d_cnt, x.d_tmp,
	x.d_inbox, x.d_from, x.d_inbox_counts, x.d_nto};

	CK(cudaSetDevice(x.dev));
	for (void *p : bufs)
		CK(cudaFree(p));
	for (cudaEvent_t e : {x.start, x.end, x.copied, x.routed})
		if (e)
			CK(cudaEventDestroy(e));
	if (x.copy)
		CK(cudaStreamDestroy(x.copy));
	gh_free(x.tab);
	x = gpu();
}

struct result
{
	const char *what;
	int			gpus;
	double		ms;
	double		event_ms;
	uint64_t	matches;
};

int
main(int argc, char **argv)
{
	uint64_t	rows = 100000000ULL,
				np = 200000000ULL;
	double		ratio = 1.0,
				hit = 0.5;
	int			sc = GH_SCHEME_GPH,
				G = 0;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--rows") && i + 1 < argc)
			rows = (uint64_t) atof(argv[++i]);
		else if (!strcmp(argv[i], "--distinct-ratio") && i + 1 < argc)
			ratio = atof(argv[++i]);
		else if (!strcmp(argv[i], "--probes") && i + 1 < argc)
			np = (uint64_t) atof(argv[++i]);
		else if (!strcmp(argv[i], "--hit") && i + 1 < argc)
			hit = atof(argv[++i]);
		else if (!strcmp(argv[i], "--scheme") && i + 1 < argc)
		{
			i++;
			sc = !strcmp(argv[i], "gph") ? GH_SCHEME_GPH : !strcmp(argv[i], "fks") ? GH_SCHEME_FKS : -1;
			if (sc < 0)
			{
				fprintf(stderr, "bench_multi_gpu: --scheme is gph or fks, not \"%s\"\n", argv[i]);
				return 2;
			}
		}
		else if (!strcmp(argv[i], "--gpus") && i + 1 < argc)
			G = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: %s [--rows N] [--distinct-ratio r] [--probes M] [--hit h] [--scheme gph|fks]\n"
					"          [--gpus G] [--reps R]\n"
					"  defaults: 1e8 rows of unique keys (r = 1; 0.125: bench_core's join shape), 2e8 probes\n"
					"  at 50%% hits, GPH, all visible GPUs (at most %d), 10 reps after one warm-up\n",
					argv[0], GH_MAX_PARTS);
			return 2;
		}
	}

	int			n_gpus = gh_gpu_count();
	uint64_t	distinct = (uint64_t) llround((double) rows * ratio);

	if (n_gpus == 0)
	{
		fprintf(stderr, "bench_multi_gpu: no GPU (%s)\n", gh_last_error());
		return 1;
	}
	if (G == 0)
		G = std::min(n_gpus, GH_MAX_PARTS);
	if (G < 1 || G > std::min(n_gpus, GH_MAX_PARTS) || rows == 0 || rows > GH_MAX_ROWS ||
		ratio <= 0 || ratio > 1 || distinct == 0 || np == 0 || hit < 0 || hit > 1 || reps < 1)
	{
		fprintf(stderr, "bench_multi_gpu: bad arguments (%d GPUs visible, at most %d used; rows 1..%llu; "
				"0 < distinct ratio <= 1; 0 <= hit <= 1)\n", n_gpus, GH_MAX_PARTS, (unsigned long long) GH_MAX_ROWS);
		return 2;
	}

	printf("# bench_multi_gpu --rows %llu --distinct-ratio %g --probes %llu --hit %g --scheme %s --gpus %d --reps %d "
		   "(one warm-up; probe ILP %d)\n", (unsigned long long) rows, ratio, (unsigned long long) np, hit,
		   gh_scheme_name((gh_scheme) sc), G, reps, gh_probe_ilp);
	for (int d = 0; d < G; d++)
	{
		gh_gpu_info gi;

		GK(gh_gpu_get_info(d, &gi));
		printf("# GPU %d: %s, %d SMs, %.1f GB\n", d, gi.name, gi.multiprocessors, gi.total_memory / 1e9);
	}
	if (G == 1)
		printf("# only one GPU %s: the partitioned cases run over G = 1 part\n",
			   n_gpus == 1 ? "visible" : "asked for");

	int			peers = 0;

	for (int a = 0; a < G; a++)
		for (int b = 0; b < G; b++)
		{
			int			can = 0;

			if (a == b)
				continue;
			CK(cudaDeviceCanAccessPeer(&can, a, b));
			if (!can)
				continue;
			CK(cudaSetDevice(a));
			cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);

			if (e != cudaErrorPeerAccessAlreadyEnabled)
				CK(e);
			cudaGetLastError();
			peers++;
		}
	if (G > 1)
		printf("# peer access enabled for %d of %d GPU pairs (the others copy through the host)\n",
			   peers, G * (G - 1));

	/* the keys, generated on GPU 0 as bench_core's */
	std::vector<uint64_t> h_keys(rows),
				h_probes(np);
	uint64_t   *d_keys;
	std::vector<gpu> g1(1);
	gpu		   &x1 = g1[0];

	x1.dev = 0;
	x1.n_own = np;
	CK(cudaSetDevice(0));
	CK(cudaMalloc(&d_keys, rows * sizeof(uint64_t)));
	CK(cudaMalloc(&x1.d_probes, np * sizeof(uint64_t)));
	gen_inner<<<4096, 256>>>(d_keys, rows, distinct);
	gen_probes<<<4096, 256>>>(x1.d_probes, np, distinct, hit, 0, 7);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h_keys.data(), d_keys, rows * sizeof(uint64_t), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(h_probes.data(), x1.d_probes, np * sizeof(uint64_t), cudaMemcpyDeviceToHost));
	CK(cudaFree(d_keys));

	std::vector<result> res;
	double		wall,
				ev;

	/* case 1: timed by its events, as bench_core */
	x1.tab = build_on(0, (gh_scheme) sc, h_keys.data(), rows);
	x1.st = x1.tab->gpu->stream;
	CK(cudaMalloc(&x1.d_counts, np * sizeof(uint32_t)));
	CK(cudaEventCreate(&x1.start));
	CK(cudaEventCreate(&x1.end));
	time_reps(g1, [&] { probe_all(g1); }, &wall, &ev);
	res.push_back({"1: one GPU", 1, ev, ev, matches_of(x1)});
	printf("# case 1: event time %.3f ms, host wall time %.3f ms (medians)\n", ev, wall);
	free_gpu(x1);

	/* the parts, and for case 2 the probes each GPU owns */
	std::vector<gpu> g(G);

	{
		std::vector<std::vector<uint64_t>> kp = split_by_part(h_keys, G),
					pp = split_by_part(h_probes, G);

		std::vector<uint64_t>().swap(h_keys);
		for (int d = 0; d < G; d++)
		{
			gpu		   &x = g[d];

			x.dev = d;
			x.tab = build_on(d, (gh_scheme) sc, kp[d].data(), kp[d].size());
			x.st = x.tab->gpu->stream;
			x.n_own = pp[d].size();
			x.d_probes = upload(d, pp[d].data(), x.n_own);
			CK(cudaMalloc(&x.d_counts, (x.n_own ? x.n_own : 1) * sizeof(uint32_t)));
			CK(cudaEventCreate(&x.start));
			CK(cudaEventCreate(&x.end));
			printf("# GPU %d owns %llu rows (%.3f of them) and %llu probes (%.3f)\n", d,
				   (unsigned long long) kp[d].size(), (double) kp[d].size() / rows,
				   (unsigned long long) x.n_own, (double) x.n_own / np);
			std::vector<uint64_t>().swap(kp[d]);
		}
	}

	/* case 2 */
	{
		uint64_t	m = 0;

		time_reps(g, [&] { probe_all(g); }, &wall, &ev);
		for (gpu &x : g)
			m += matches_of(x);
		res.push_back({"2: partitioned, probes pre-split", G, wall, ev, m});
	}

	/* case 3: the M probes spread evenly, unsplit; the owned ones land in d_recv */
	{
		unsigned long long *cnt;
		uint64_t	m = 0;

		CK(cudaMallocHost(&cnt, G * G * sizeof(*cnt)));
		for (gpu &x : g)
		{
			uint64_t	lo = np * x.dev / G,
						hi = np * (x.dev + 1) / G;

			CK(cudaFree(x.d_probes));
			x.d_probes = nullptr;
			x.n_in = hi - lo;
			x.d_in = upload(x.dev, h_probes.data() + lo, x.n_in);
			CK(cudaMalloc(&x.d_out, (x.n_in ? x.n_in : 1) * sizeof(uint64_t)));
			CK(cudaMalloc(&x.d_recv, (x.n_own ? x.n_own : 1) * sizeof(uint64_t)));
			CK(cudaMalloc(&x.d_cnt, GH_MAX_PARTS * sizeof(unsigned long long)));
			if (G > 2)
			{
				CK(cudaMalloc(&x.d_pid, (x.n_in ? x.n_in : 1)));
				CK(cudaMalloc(&x.d_pid_out, (x.n_in ? x.n_in : 1)));
			}
			group_by_owner(x, G, nullptr, &x.tmp_bytes);
			CK(cudaMalloc(&x.d_tmp, x.tmp_bytes ? x.tmp_bytes : 1));
			/* a share left unprobed must show as missing matches */
			CK(cudaMemset(x.d_counts, 0, x.n_own * sizeof(uint32_t)));
			CK(cudaStreamCreateWithFlags(&x.copy, cudaStreamNonBlocking));
			CK(cudaEventCreateWithFlags(&x.copied, cudaEventDisableTiming));
		}
		time_reps(g, [&] { shuffle_probe(g, cnt); }, &wall, &ev);
		for (gpu &x : g)
			m += matches_of(x);
		res.push_back({"3: partitioned, with the shuffle", G, wall, ev, m});
		if (G > 1)
		{
			printf("# case 3 exchange, keys from GPU s to GPU d:");
			for (int s = 0; s < G; s++)
				for (int d = 0; d < G; d++)
					if (d != s)
						printf(" %d->%d %llu", s, d, cnt[s * G + d]);
			printf("\n");
		}
		CK(cudaFreeHost(cnt));
	}

	/* case 4: the same unsplit start as case 3, the shuffle in the probe */
	if (sc != GH_SCHEME_GPH || peers < G * (G - 1))
		printf("# case 4 not run: it needs GPH and peer access between all GPUs\n");
	else
	{
		uint64_t	m = 0;

		for (gpu &x : g)
		{
			CK(cudaSetDevice(x.dev));
			for (int s = 0; s < G; s++)
				if (s != x.dev)
				{
					x.inbox_at[s] = x.inbox_cap;
					x.inbox_cap += g[s].n_in;
				}
			CK(cudaMalloc(&x.d_inbox, (x.inbox_cap ? x.inbox_cap : 1) * sizeof(uint64_t)));
			CK(cudaMalloc(&x.d_inbox_counts, (x.inbox_cap ? x.inbox_cap : 1) * sizeof(uint32_t)));
			/* unwritten past each region's count: zero */
			CK(cudaMemset(x.d_inbox_counts, 0, (x.inbox_cap ? x.inbox_cap : 1) * sizeof(uint32_t)));
			CK(cudaMalloc(&x.d_from, ((G - 1) * x.n_in + 1) * sizeof(uint32_t)));
			CK(cudaMalloc(&x.d_nto, GH_MAX_PARTS * sizeof(unsigned long long)));
			CK(cudaFree(x.d_counts));
			CK(cudaMalloc(&x.d_counts, (x.n_in ? x.n_in : 1) * sizeof(uint32_t)));
			CK(cudaEventCreate(&x.routed));
		}
		for (gpu &x : g)
		{
			int			k = 0;

			x.route.parts = (uint32_t) G;
			x.route.me = (uint32_t) x.dev;
			x.route.n_to = x.d_nto;
			for (int d = 0; d < G; d++)
			{
				x.route.to[d] = d == x.dev ? nullptr : g[d].d_inbox + g[d].inbox_at[x.dev];
				x.route.from[d] = d == x.dev ? nullptr : x.d_from + (uint64_t) (k++) * x.n_in;
			}
		}
		/* at each probe ILP (the routed kernel's probes from shared memory may want more) */
		int			ilp0 = gh_probe_ilp;

		for (int ilp : {ilp0, ilp0 == 4 ? 2 : 4})
		{
			std::vector<double> r_ms;

			gh_probe_ilp = ilp;
			time_reps(g, [&] {
				routed_probe(g);
				for (gpu &x : g)
				{
					float		f;

					CK(cudaEventSynchronize(x.end));
					CK(cudaEventElapsedTime(&f, x.start, x.routed));
					r_ms.push_back(f);
				}
			}, &wall, &ev);
			std::sort(r_ms.begin(), r_ms.end());
			printf("# case 4 at probe ILP %d: %.3f ms wall, %.3f ms events (median), of which the routed lookup "
				   "%.3f ms (median over GPUs and reps; the inbox probe is the rest)\n", ilp, wall, ev,
				   r_ms[r_ms.size() / 2]);
			if (ilp == ilp0)
				res.push_back({"4: partitioned, the shuffle in the probe", G, wall, ev, 0});
		}
		gh_probe_ilp = ilp0;

		/* each GPU probed exactly the keys it owns (case 2's split) */
		std::vector<unsigned long long> nto((size_t) G * GH_MAX_PARTS);

		for (gpu &x : g)
		{
			CK(cudaSetDevice(x.dev));
			CK(cudaMemcpy(&nto[(size_t) x.dev * GH_MAX_PARTS], x.d_nto, GH_MAX_PARTS * sizeof(unsigned long long),
						  cudaMemcpyDeviceToHost));
		}
		printf("# case 4 exchange, keys from GPU s to GPU d:");
		for (gpu &x : g)
		{
			uint64_t	own = x.n_in;

			for (int d = 0; d < G; d++)
				if (d != x.dev)
				{
					own -= nto[(size_t) x.dev * GH_MAX_PARTS + d];
					printf(" %d->%d %llu", x.dev, d, nto[(size_t) x.dev * GH_MAX_PARTS + d]);
				}
			for (int s = 0; s < G; s++)
				if (s != x.dev)
					own += nto[(size_t) s * GH_MAX_PARTS + x.dev];
			if (own != x.n_own)
			{
				fprintf(stderr, "bench_multi_gpu: case 4: GPU %d probed %llu keys, the host split says %llu\n",
						x.dev, (unsigned long long) own, (unsigned long long) x.n_own);
				exit(1);
			}
			m += sum_on(x.dev, x.d_counts, x.n_in) + sum_on(x.dev, x.d_inbox_counts, x.inbox_cap);
		}
		printf("\n");
		res.back().matches = m;
	}
	for (gpu &x : g)
		free_gpu(x);

	/* the key model: a hit finds rows / distinct rows on average */
	double		per_key = (double) rows / (double) distinct,
				expect = hit * (double) np * per_key,
				slack = 6 * sqrt((double) np) * ceil(per_key) + ceil(per_key);
	bool		ok = fabs((double) res[0].matches - expect) <= slack;

	for (const result &r : res)
		ok = ok && r.matches == res[0].matches;

	printf("\n| case | GPUs | time ms (median) | GPU events ms (longest GPU, median) | G probes/s | speedup vs one GPU | matches |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (const result &r : res)
		printf("| %s | %d | %.3f | %.3f | %.2f | %.2f | %llu |\n", r.what, r.gpus, r.ms, r.event_ms,
			   np / (r.ms * 1e-3) / 1e9, res[0].ms / r.ms, (unsigned long long) r.matches);
	printf("\n# time: case 1 by CUDA events; cases 2 to 4 host wall time from a common start to the last GPU done\n");
	printf("# matches (sum of counts): %s; the key model expects about %.0f (%g of %llu probes hit, %.3g rows per key)\n",
		   ok ? "equal in all cases" : "MISMATCH", expect, hit, (unsigned long long) np, per_key);
	return ok ? 0 : 1;
}
