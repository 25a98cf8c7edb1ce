/*
 * bench_chain.cpp
 *		The multi-level probe (gh_chain_probe) on TPC-H's snowflake shape:
 *		lineitem -> orders -> customer -> nation, three inner levels, the
 *		second and third keyed by columns the level before carries
 *		(o_custkey, c_nationkey).  Keys are made as dbgen makes them at the
 *		given scale factor (orderkeys sparse, 4 lineitems per order on
 *		average).  Outer rows go in batches of --batch, as the GPU service
 *		takes them.
 *
 *		Two ways are timed, end to end through the C API (host keys in,
 *		host combinations out, so transfers are included):
 *		  chain:  one gh_chain_probe per batch;
 *		  levels: per batch, one gh_probe_ranges per level, the host
 *		          expanding ranges and gathering the next level's keys, as
 *		          a chain of single-level joins does without the executor.
 *		Both must give the same number of combinations.
 *
 *		usage: bench_chain [--sf 10] [--batch 4194304] [--reps 5] [--host]
 */
#include "gpuhash_table.h"
#include "hash.cuh"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

using std::vector;

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* dbgen's sparse orderkeys: 8 of every 32 numbers are used. */
static uint64_t
orderkey(uint64_t i)
{
	return (i / 8) * 32 + (i % 8) + 1;
}

static double
median(vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

static void
need(gh_status s, const char *what)
{
	if (s != GH_OK)
	{
		fprintf(stderr, "bench_chain: %s: %s (%s)\n", what, gh_status_name(s), gh_last_error());
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	double		sf = 10;
	size_t		batch = 4 << 20;
	int			reps = 5;
	gh_device	dev = GH_DEVICE_GPU;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--sf") && i + 1 < argc)
			sf = atof(argv[++i]);
		else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			batch = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--host"))
			dev = GH_DEVICE_HOST;
		else
		{
			fprintf(stderr, "usage: %s [--sf 10] [--batch 4194304] [--reps 5] [--host]\n", argv[0]);
			return 2;
		}
	}
	if (dev == GH_DEVICE_GPU && gh_gpu_count() == 0)
	{
		fprintf(stderr, "bench_chain: no GPU (%s); --host runs the host twin\n", gh_last_error());
		return 1;
	}

	uint64_t	s = 42;
	size_t		n_orders = (size_t) (1500000 * sf),
				n_cust = (size_t) (150000 * sf),
				n_nation = 25;
	vector<uint64_t> o_key(n_orders),
				o_cust(n_orders),
				c_key(n_cust),
				c_nation(n_cust),
				n_key(n_nation),
				n_region(n_nation);
	vector<uint64_t> l_order;

	for (size_t i = 0; i < n_orders; i++)
	{
		int			lines = 1 + (int) (gh_splitmix64(&s) % 7);

		o_key[i] = orderkey(i);
		o_cust[i] = 1 + gh_splitmix64(&s) % n_cust;
		for (int k = 0; k < lines; k++)
			l_order.push_back(o_key[i]);
	}
	/* lineitem is read in its own order, not grouped by order */
	for (size_t i = l_order.size() - 1; i > 0; i--)
		std::swap(l_order[i], l_order[gh_splitmix64(&s) % (i + 1)]);
	for (size_t i = 0; i < n_cust; i++)
	{
		c_key[i] = i + 1;
		c_nation[i] = gh_splitmix64(&s) % 25;
	}
	for (size_t i = 0; i < n_nation; i++)
	{
		n_key[i] = i;
		n_region[i] = i / 5;
	}

	gh_build_options opt;
	gh_table   *orders,
			   *cust,
			   *nation;

	gh_default_options(&opt);
	opt.device = dev;
	need(gh_build(&opt, o_key.data(), NULL, 4, n_orders, &orders), "build orders");
	need(gh_build(&opt, c_key.data(), NULL, 4, n_cust, &cust), "build customer");
	need(gh_build(&opt, n_key.data(), NULL, 4, n_nation, &nation), "build nation");
	need(gh_set_carried(orders, o_cust.data(), NULL, 1), "carry o_custkey");
	need(gh_set_carried(cust, c_nation.data(), NULL, 1), "carry c_nationkey");

	/* the carried columns in key-grouped order, for the levels way */
	vector<uint64_t> o_cust_sorted(n_orders),
				c_nation_sorted(n_cust);
	const uint32_t *orow = (const uint32_t *) gh_sorted_rowids(orders);
	const uint32_t *crow = (const uint32_t *) gh_sorted_rowids(cust);

	for (size_t p = 0; p < n_orders; p++)
		o_cust_sorted[p] = o_cust[orow[p]];
	for (size_t p = 0; p < n_cust; p++)
		c_nation_sorted[p] = c_nation[crow[p]];

	gh_chain_level lv[3] = {
		{orders, GH_LEVEL_INNER, 1, {{-1, 0}}},
		{cust, GH_LEVEL_INNER, 1, {{0, 0}}},
		{nation, GH_LEVEL_INNER, 1, {{1, 0}}},
	};
	size_t		n = l_order.size();
	uint64_t	cap = batch * 2;
	vector<uint32_t> out_outer(cap),
				out_pos(cap * 3);
	vector<uint64_t> k1(batch),
				k2(batch);
	vector<uint32_t> p1(batch);
	vector<gh_range> r0(batch),
				r1(batch),
				r2(batch);
	vector<double> t_chain,
				t_levels;
	uint64_t	sum_chain = 0,
				sum_levels = 0;

	for (int rep = 0; rep <= reps; rep++)
	{
		double		t0 = now_ms();

		sum_chain = 0;
		for (size_t b = 0; b < n; b += batch)
		{
			size_t		m = std::min(batch, n - b);
			uint64_t	total = 0;

			need(gh_chain_probe(lv, 3, l_order.data() + b, NULL, 1, m, out_outer.data(),
								out_pos.data(), cap, &total), "chain probe");
			sum_chain += total;
		}
		double		t1 = now_ms();

		sum_levels = 0;
		for (size_t b = 0; b < n; b += batch)
		{
			size_t		m = std::min(batch, n - b);
			size_t		m1 = 0,
						m2 = 0;

			need(gh_probe_ranges(orders, l_order.data() + b, m, r0.data(), NULL), "level 1");
			for (size_t i = 0; i < m; i++)
				for (uint32_t k = 0; k < r0[i].count; k++)
				{
					p1[m1] = (uint32_t) i;
					k1[m1++] = o_cust_sorted[r0[i].offset + k];
				}
			need(gh_probe_ranges(cust, k1.data(), m1, r1.data(), NULL), "level 2");
			for (size_t i = 0; i < m1; i++)
				for (uint32_t k = 0; k < r1[i].count; k++)
					k2[m2++] = c_nation_sorted[r1[i].offset + k];
			need(gh_probe_ranges(nation, k2.data(), m2, r2.data(), NULL), "level 3");
			for (size_t i = 0; i < m2; i++)
				sum_levels += r2[i].count;
		}
		double		t2 = now_ms();

		if (rep > 0)			/* the first is the warm-up */
		{
			t_chain.push_back(t1 - t0);
			t_levels.push_back(t2 - t1);
		}
	}
	if (sum_chain != sum_levels || sum_chain != n)
	{
		fprintf(stderr, "bench_chain: %llu combinations by chain, %llu by levels, %zu outer rows\n",
				(unsigned long long) sum_chain, (unsigned long long) sum_levels, n);
		return 1;
	}
	printf("bench_chain: %s, SF %g: %zu outer rows, 3 levels (orders %zu, customer %zu, nation %zu), "
		   "batches of %zu, median of %d after a warm-up\n",
		   gh_device_name(dev), sf, n, n_orders, n_cust, n_nation, batch, reps);
	printf("  chain  (gh_chain_probe per batch)         %9.1f ms  %6.1f M outer rows/s\n",
		   median(t_chain), n / median(t_chain) / 1e3);
	printf("  levels (a probe per level, host expands)  %9.1f ms  %6.1f M outer rows/s\n",
		   median(t_levels), n / median(t_levels) / 1e3);
	gh_free(orders);
	gh_free(cust);
	gh_free(nation);
	return 0;
}
