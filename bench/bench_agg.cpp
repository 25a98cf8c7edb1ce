/*
 * bench_agg.cpp
 *		Partial aggregation (gh_page_agg) over lineitem-like heap pages: the
 *		16 columns of TPC-H's lineitem as PostgreSQL stores them (numeric(15,2)
 *		amounts, char(1) flags, dates), about 55 tuples a page.
 *
 *		"few groups": GROUP BY l_returnflag, l_linestatus (char(1) keys
 *		packed a byte each: 4 groups) under l_shipdate <= date, with
 *		count(*), sum and avg of quantity, price and discount and the exact
 *		sum(l_extendedprice * (1 - l_discount)): every row lands on one of
 *		four groups, the most contended case for the group table's atomics.
 *		"many groups": GROUP BY l_orderkey (a group per ~4 rows) with
 *		count(*) and sum(l_quantity).  "wide groups": the same groups by a
 *		wide key (l_orderkey as int4, int8 and int4: 128 bits, packed in
 *		GH_AGG_KEY_WORDS words), against "many groups" the cost of a wide
 *		key alone.
 *
 *		GPU: one request of --pages pages from page-locked memory, warmed
 *		up, then --reps runs; medians of the CUDA-event kernel time, the
 *		copies and the wall time per call (device memory taken and given
 *		back in the call).  The host twin is timed on the first
 *		--host-pages pages (one thread), and the GPU's group set on those
 *		pages must equal it.
 *
 *		usage: bench_agg [--pages 16384] [--reps 7] [--host-pages 1024]
 */
#include "gpuhash_agg.h"
#include "gpuhash_table.h"
#include "bench_pages.h"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

using namespace pagetest;
using std::vector;

/* 256 distinct pages, repeated: the pages' contents matter, not their number */
static void
make_pages(uint32_t n_pages, vector<uint8_t> &data, vector<gh_page_ref> &refs)
{
	const uint32_t distinct = 256;
	uint64_t	ok = 1;
	int			line = 1;

	data.assign((size_t) n_pages * GH_PAGE_SIZE, 0);
	for (uint32_t p = 0; p < n_pages; p++)
	{
		if (p >= distinct)
			memcpy(&data[(size_t) p * GH_PAGE_SIZE], &data[(size_t) (p % distinct) * GH_PAGE_SIZE],
				   GH_PAGE_SIZE);
		else
		{
			page		pg;

			for (;;)
			{
				vector<cell> row = {
					int_cell((int64_t) ok), int_cell(1 + (int64_t) rnd(200000)),
					int_cell(1 + (int64_t) rnd(10000)), int_cell(line),
					num_cell(100 * (1 + (int64_t) rnd(50))), num_cell(90000 + (int64_t) rnd(10000000)),
					num_cell((int64_t) rnd(11)), num_cell((int64_t) rnd(9)),
					str_cell(rnd(2) ? "N" : "R", 1), str_cell(rnd(2) ? "O" : "F", 1),
					int_cell(-2557 + (int64_t) rnd(2526)), int_cell(-2557 + (int64_t) rnd(2526)),
					int_cell(-2557 + (int64_t) rnd(2526)), str_cell("DELIVER IN PERSON", 25),
					str_cell("TRUCK", 10), str_cell("carefully final deposits sleep", 10 + rnd(30))
				};
				vector<uint8_t> t = heap_tuple(LINEITEM, row, 16, 0, ok);

				if (!pg.fits(t.size()))
					break;
				pg.add(1, t);
				if (++line > 1 + (int) rnd(7))
				{
					line = 1;
					ok++;
				}
			}
			memcpy(&data[(size_t) p * GH_PAGE_SIZE], pg.b.data(), GH_PAGE_SIZE);
		}

		gh_page_ref r;

		memset(&r, 0, sizeof(r));
		r.offset = (uint64_t) p * GH_PAGE_SIZE;
		r.maxoff = p >= distinct ? refs[p % distinct].maxoff
			: (uint16_t) ((data[(size_t) p * GH_PAGE_SIZE + 12] |
						   (data[(size_t) p * GH_PAGE_SIZE + 13] << 8)) - 24) / 4;
		r.nvis = GH_PAGE_ALL_VISIBLE;
		refs.push_back(r);
	}
}

static void
make_programs(gh_page_scan *s, gh_agg_prog *a, bool many, bool wide)
{
	memset(s, 0, sizeof(*s));
	memset(a, 0, sizeof(*a));
	s->mode = GH_PAGE_ALL_ROWS;
	s->natts = 11;
	for (int i = 0; i < 11; i++)
	{
		s->col[i].attlen = LINEITEM[i].attlen;
		s->col[i].attalign = LINEITEM[i].attalign;
	}
	if (many)
	{
		s->col[0].type = GH_T_INT4;
		s->col[4].type = GH_T_NUMERIC;
		a->nkeys = 1;
		a->key[0] = {0, 1, 32};
		a->naggs = 2;
		a->agg[0] = {GH_AGG_COUNT_STAR, 0, 0, 0, 0, 0, 0, 0};
		a->agg[1] = {GH_AGG_SUM, 0, 2, 0, 4, 0, 0, 0};
		if (wide)
		{
			a->nkeys = 3;
			a->key[1] = {0, 2, 64};
			a->key[2] = {0, 1, 32};
		}
		return;
	}
	for (int i : {4, 5, 6, 7})
		s->col[i].type = GH_T_NUMERIC;
	s->col[8].type = GH_T_BPCHAR;
	s->col[9].type = GH_T_BPCHAR;
	s->col[10].type = GH_T_DATE;

	/* l_shipdate <= date '1998-09-02' (days from 2000-01-01) */
	int64_t		d = -486;

	memcpy(s->pool, &d, 8);
	s->pool_bytes = 8;
	s->ninsns = 3;
	s->insn[0] = {GH_Q_COL, 0, 0, 0, 10};
	s->insn[1] = {GH_Q_CONST, GH_T_DATE, 0, 0, 0};
	s->insn[2] = {GH_Q_CMP, GH_M_INT, GH_LE, 0, 0};
	a->nkeys = 2;
	a->key[0] = {8, GH_AGG_KEY_BPCHAR, 8};
	a->key[1] = {9, GH_AGG_KEY_BPCHAR, 8};
	a->naggs = 8;
	a->agg[0] = {GH_AGG_SUM, 0, 2, 0, 4, 0, 0, 0};	/* sum(l_quantity) */
	a->agg[1] = {GH_AGG_SUM, 0, 2, 0, 5, 0, 0, 0};	/* sum(l_extendedprice) */
	a->agg[2] = {GH_AGG_SUM, GH_AGG_E_MUL_ONE_MINUS, 4, 0, 5, 6, 0, 0};	/* sum(price * (1 - disc)) */
	a->agg[3] = {GH_AGG_AVG, 0, 2, 0, 4, 0, 0, 0};
	a->agg[4] = {GH_AGG_AVG, 0, 2, 0, 5, 0, 0, 0};
	a->agg[5] = {GH_AGG_AVG, 0, 2, 0, 6, 0, 0, 0};
	a->agg[6] = {GH_AGG_COUNT_STAR, 0, 0, 0, 0, 0, 0, 0};
	/* sum(price * (1 - disc) * (1 + tax)) */
	a->agg[7] = {GH_AGG_SUM, GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS, 6, 0, 5, 6, 7, 0};
}

static double
median(vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

struct result
{
	double		wall = 0,
				kernel = 0,
				copy = 0;
	gh_agg_stats st = {};
	gh_agg_groups g = {};	/* empty: timed() frees it before each run */
};

static bool
timed(int device, const gh_page_scan *s, const gh_agg_prog *a, const vector<uint8_t> &data,
	  const vector<gh_page_ref> &refs, uint32_t n_pages, int reps, result *res)
{
	vector<uint8_t> refused(n_pages);
	vector<double> wall,
				kern,
				copy;

	for (int i = 0; i < reps + 1; i++)	/* the first is the warm-up */
	{
		gh_agg_groups_free(&res->g);
		gh_agg_groups_init(&res->g, a, UINT64_C(1) << 26);

		double		t0 = now_ms();

		if (gh_page_agg(device, s, a, refs.data(), n_pages, data.data(), data.size(), nullptr, 0,
						refused.data(), &res->g, &res->st) != GH_OK)
		{
			fprintf(stderr, "bench_agg: aggregation failed: %s\n", gh_last_error());
			return false;
		}
		if (i == 0)
			continue;
		wall.push_back(now_ms() - t0);
		kern.push_back(res->st.kernel_ms);
		copy.push_back(res->st.copy_ms);
	}
	res->wall = median(wall);
	res->kernel = median(kern);
	res->copy = median(copy);
	return true;
}

static bool
same(const gh_agg_groups &x, const gh_agg_groups &y)
{
	if (x.n_groups != y.n_groups || gh_agg_groups_key_words(&x) != gh_agg_groups_key_words(&y) ||
		memcmp(x.keys, y.keys, 8 * gh_agg_groups_key_words(&x) * x.n_groups) ||
		memcmp(x.nulls, y.nulls, x.n_groups))
		return false;
	for (uint64_t i = 0; i < x.n_groups * x.naggs; i++)
		if (x.states[i].count != y.states[i].count ||
			memcmp(x.states[i].sum, y.states[i].sum, sizeof(x.states[i].sum)) ||
			x.states[i].dscale != y.states[i].dscale || x.states[i].flags != y.states[i].flags)
			return false;
	return true;
}

int
main(int argc, char **argv)
{
	uint32_t	n_pages = 16384,
				host_pages = 1024;
	int			reps = 7;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--pages") && i + 1 < argc)
			n_pages = (uint32_t) atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--host-pages") && i + 1 < argc)
			host_pages = (uint32_t) atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: %s [--pages N] [--reps R] [--host-pages N]\n", argv[0]);
			return 2;
		}
	}

	vector<uint8_t> data;
	vector<gh_page_ref> refs;
	double		t0 = now_ms();

	make_pages(n_pages, data, refs);
	host_pages = std::min(host_pages, n_pages);

	uint64_t	rows = 0;

	for (const gh_page_ref &r : refs)
		rows += r.maxoff;
	printf("bench_agg: %u lineitem-like pages (%.0f MB, %llu rows) made in %.1f s\n", n_pages,
		   data.size() / 1e6, (unsigned long long) rows, (now_ms() - t0) / 1000);

	bool		gpu = gh_gpu_count() > 0;

	if (gpu && gh_host_register(data.data(), data.size()) != GH_OK)
		printf("bench_agg: page data not page-locked: %s\n", gh_last_error());
	if (!gpu)
		printf("bench_agg: NO GPU (%s): host twin only\n", gh_last_error());

	gh_page_scan *scan = new gh_page_scan;
	gh_agg_prog agg;
	int			rc = 0;

	for (int kind = 0; kind < 3; kind++)
	{
		bool		many = kind > 0;
		result		h,
					g,
					g2;
		const char *name = kind == 2 ? "wide groups" : many ? "many groups" : "few groups";
		uint64_t	hrows = 0;

		for (uint32_t p = 0; p < host_pages; p++)
			hrows += refs[p].maxoff;
		make_programs(scan, &agg, many, kind == 2);
		if (gh_agg_prog_check(scan, &agg) != GH_OK)
		{
			fprintf(stderr, "bench_agg: %s\n", gh_last_error());
			return 1;
		}
		if (!timed(GH_AGG_HOST, scan, &agg, data, refs, host_pages, std::max(1, reps / 3), &h))
			return 1;
		printf("%-11s host twin: %6u pages %9.2f ms %8.2f M rows/s  passed %llu groups %llu\n",
			   name, host_pages, h.wall, hrows / h.wall / 1e3, (unsigned long long) h.st.passed,
			   (unsigned long long) h.g.n_groups);
		if (!gpu)
			continue;
		if (!timed(0, scan, &agg, data, refs, n_pages, reps, &g))
			return 1;
		printf("%-11s GPU:       %6u pages kernel %8.3f ms (%8.1f M rows/s)  copies %8.3f ms  "
			   "wall %8.3f ms (%8.1f M rows/s)  passed %llu groups %llu\n", name, n_pages,
			   g.kernel, rows / g.kernel / 1e3, g.copy, g.wall, rows / g.wall / 1e3,
			   (unsigned long long) g.st.passed, (unsigned long long) g.g.n_groups);
		if (!timed(0, scan, &agg, data, refs, host_pages, 1, &g2))
			return 1;
		if (!same(g2.g, h.g))
		{
			fprintf(stderr, "bench_agg: %s: GPU and host twin group sets differ\n", name);
			rc = 1;
		}
		gh_agg_groups_free(&h.g);
		gh_agg_groups_free(&g.g);
		gh_agg_groups_free(&g2.g);
	}
	delete scan;
	return rc;
}
