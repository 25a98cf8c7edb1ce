/*
 * bench_page.cpp
 *		The page walk (gh_page_probe) over lineitem-like heap pages: the
 *		16 columns of TPC-H's lineitem as PostgreSQL stores them (int4 keys,
 *		numeric(15,2) amounts in the short header form, dates, char(n) and
 *		varchar), about 55 tuples a page, pages all-visible or with visible
 *		lists.  The scan joins l_orderkey against an orders-like table (one
 *		key per 4 lineitems, a quarter of them absent) under a Q6-like qual:
 *		l_shipdate >= date AND l_shipdate < date + 365 AND l_discount
 *		BETWEEN 0.05 AND 0.07 AND l_quantity < 24, and a second run without
 *		quals (every row probed).
 *
 *		GPU: one request of --pages pages from page-locked memory, warmed
 *		up, then --reps runs; the median of the CUDA-event kernel and copy
 *		times (gh_page_stats) and of the wall time per call.  The host twin
 *		is timed the same way on the first --host-pages pages (one thread).
 *		Both must give the same records.
 *
 *		usage: bench_page [--pages 16384] [--reps 7] [--host-pages 2048]
 */
#include "gpuhash_page.h"
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

static void
make_pages(uint32_t n_pages, uint64_t orders, vector<uint8_t> &data, vector<gh_page_ref> &refs,
		   vector<uint16_t> &vis)
{
	uint64_t	ok = 1;
	int			line = 1;
	static const char *modes[] = {"AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "REG AIR"};

	data.assign((size_t) n_pages * GH_PAGE_SIZE, 0);
	for (uint32_t p = 0; p < n_pages; p++)
	{
		page		pg;

		for (;;)
		{
			vector<cell> row = {
				int_cell((int64_t) (ok % (orders * 4 / 3) + 1)), int_cell(1 + (int64_t) rnd(200000)),
				int_cell(1 + (int64_t) rnd(10000)), int_cell(line),
				num_cell(100 * (1 + (int64_t) rnd(50))), num_cell(90000 + (int64_t) rnd(10000000)),
				num_cell((int64_t) rnd(11)), num_cell((int64_t) rnd(9)),
				str_cell(rnd(2) ? "N" : "R", 1), str_cell(rnd(2) ? "O" : "F", 1),
				int_cell(-2557 + (int64_t) rnd(2526)), int_cell(-2557 + (int64_t) rnd(2526)),
				int_cell(-2557 + (int64_t) rnd(2526)), str_cell("DELIVER IN PERSON", 25),
				str_cell(modes[rnd(7)], 10),
				str_cell("carefully final deposits sleep quickly", 10 + rnd(30))
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

		gh_page_ref r;

		r.offset = (uint64_t) p * GH_PAGE_SIZE;
		r.maxoff = (uint16_t) pg.nitems();
		if (p % 8 != 7)
		{
			r.vis_start = 0;
			r.nvis = GH_PAGE_ALL_VISIBLE;
		}
		else
		{
			/* a page touched since the last vacuum: most rows visible */
			r.vis_start = (uint32_t) vis.size();
			for (int lp = 1; lp <= pg.nitems(); lp++)
				if (lp % 5 != 0)
					vis.push_back((uint16_t) lp);
			r.nvis = (uint16_t) (vis.size() - r.vis_start);
		}
		refs.push_back(r);
	}
}

/* The Q6-like program, or none. */
static void
make_scan(gh_page_scan *s, bool quals)
{
	memset(s, 0, sizeof(*s));
	s->mode = GH_PAGE_MATCHES;
	s->natts = 11;
	for (int a = 0; a < 11; a++)
	{
		s->col[a].attlen = LINEITEM[a].attlen;
		s->col[a].attalign = LINEITEM[a].attalign;
	}
	s->col[0].type = GH_T_INT4;
	s->nkeys = 1;
	s->key[0] = {0, 1, 32};
	if (!quals)
		return;
	s->col[4].type = GH_T_NUMERIC;
	s->col[6].type = GH_T_NUMERIC;
	s->col[10].type = GH_T_DATE;

	auto		cnst = [&](int64_t v) {
		uint32_t	off = (s->pool_bytes + 7) & ~7U;

		memcpy(s->pool + off, &v, 8);
		s->pool_bytes = off + 8;
		return off;
	};
	auto		ncnst = [&](int64_t m) {
		num			n;

		n.m = m;
		n.scale = 2;
		n.dscale = 2;

		vector<uint8_t> v = varlena(numeric_data(n, false), V_AUTO);
		uint32_t	off = (s->pool_bytes + 7) & ~7U;

		memcpy(s->pool + off, v.data(), v.size());
		s->pool_bytes = off + (uint32_t) v.size();
		return off;
	};
	auto		ins = [&](uint8_t op, uint8_t b, uint8_t c, uint32_t a) {
		s->insn[s->ninsns++] = {op, b, c, 0, a};
	};

	ins(GH_Q_COL, 0, 0, 10);
	ins(GH_Q_CONST, GH_T_DATE, 0, cnst(-1461));	/* 1996-01-01 */
	ins(GH_Q_CMP, GH_M_INT, GH_GE, 0);
	ins(GH_Q_COL, 0, 0, 10);
	ins(GH_Q_CONST, GH_T_DATE, 0, cnst(-1461));
	ins(GH_Q_CONST, GH_T_INT4, 0, cnst(365));
	ins(GH_Q_ADD, GH_M_DATE_INT, 0, 0);
	ins(GH_Q_CMP, GH_M_INT, GH_LT, 0);
	ins(GH_Q_COL, 0, 0, 6);
	ins(GH_Q_CONST, GH_T_NUMERIC, 0, ncnst(5));
	ins(GH_Q_CMP, GH_M_NUMERIC, GH_GE, 0);
	ins(GH_Q_COL, 0, 0, 6);
	ins(GH_Q_CONST, GH_T_NUMERIC, 0, ncnst(7));
	ins(GH_Q_CMP, GH_M_NUMERIC, GH_LE, 0);
	ins(GH_Q_COL, 0, 0, 4);
	ins(GH_Q_CONST, GH_T_NUMERIC, 0, ncnst(2400));
	ins(GH_Q_CMP, GH_M_NUMERIC, GH_LT, 0);
	ins(GH_Q_AND, 0, 0, 5);
}

static double
median(vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

struct run
{
	double		wall,
				kernel,
				copy;
	gh_page_stats st;
	vector<gh_page_match> out;
};

static bool
timed(gh_table *t, const gh_page_scan *s, const vector<uint8_t> &data,
	  const vector<gh_page_ref> &refs, uint32_t n_pages, const vector<uint16_t> &vis, bool host,
	  int reps, run *res)
{
	vector<uint8_t> refused(n_pages);
	vector<double> wall,
				kern,
				copy;

	res->out.resize((size_t) n_pages * GH_PAGE_MAX_TUPLES);
	for (int i = 0; i < reps + 1; i++)	/* the first is the warm-up */
	{
		size_t		n = 0;
		double		t0 = now_ms();
		gh_status	st = (host ? gh_page_probe_host : gh_page_probe) (t, s, refs.data(), n_pages,
			data.data(), data.size(), vis.data(), (uint32_t) vis.size(), res->out.data(),
			res->out.size(), &n, refused.data(), &res->st);

		if (st != GH_OK)
		{
			fprintf(stderr, "bench_page: walk failed: %s\n", gh_last_error());
			return false;
		}
		if (i == 0)
			continue;
		wall.push_back(now_ms() - t0);
		kern.push_back(res->st.kernel_ms);
		copy.push_back(res->st.copy_ms);
		res->out.resize(n);
	}
	res->wall = median(wall);
	res->kernel = median(kern);
	res->copy = median(copy);
	return true;
}

int
main(int argc, char **argv)
{
	uint32_t	n_pages = 16384,
				host_pages = 2048;
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

	uint64_t	orders = (uint64_t) n_pages * 55 / 4;
	vector<uint8_t> data;
	vector<gh_page_ref> refs;
	vector<uint16_t> vis;
	double		t0 = now_ms();

	make_pages(n_pages, orders, data, refs, vis);
	host_pages = std::min(host_pages, n_pages);
	printf("bench_page: %u lineitem-like pages (%.0f MB) made in %.1f s; orders %llu keys\n",
		   n_pages, data.size() / 1e6, (now_ms() - t0) / 1000, (unsigned long long) orders);

	/* orders: keys 1..orders*4/3 but every fourth missing */
	vector<uint64_t> keys;

	for (uint64_t k = 1; k <= orders * 4 / 3; k++)
		if (k % 4 != 0)
			keys.push_back(k);

	bool		gpu = gh_gpu_count() > 0;
	gh_build_options opt;
	gh_table   *gt = nullptr,
			   *ht = nullptr;
	gh_page_scan *scan = new gh_page_scan;

	gh_default_options(&opt);
	if (gh_build(&opt, keys.data(), nullptr, 4, keys.size(), &ht) != GH_OK)
	{
		fprintf(stderr, "bench_page: host build: %s\n", gh_last_error());
		return 1;
	}
	if (gpu)
	{
		opt.device = GH_DEVICE_GPU;
		if (gh_build(&opt, keys.data(), nullptr, 4, keys.size(), &gt) != GH_OK)
		{
			fprintf(stderr, "bench_page: GPU build: %s\n", gh_last_error());
			return 1;
		}
		if (gh_host_register(data.data(), data.size()) != GH_OK)
			printf("bench_page: page data not page-locked: %s\n", gh_last_error());
	}
	else
		printf("bench_page: NO GPU (%s): host twin only\n", gh_last_error());

	int			rc = 0;

	for (bool quals : {true, false})
	{
		run			h,
					g;

		make_scan(scan, quals);
		if (!timed(ht, scan, data, refs, host_pages, vis, true, std::max(1, reps / 3), &h))
			return 1;
		printf("%-9s host twin: %6u pages %8.2f ms  %8.0f pages/s  tuples %llu passed %llu records %llu\n",
			   quals ? "Q6 quals" : "no quals", host_pages, h.wall, host_pages / h.wall * 1e3,
			   (unsigned long long) h.st.tuples, (unsigned long long) h.st.passed,
			   (unsigned long long) h.st.written);
		if (!gpu)
			continue;
		if (!timed(gt, scan, data, refs, n_pages, vis, false, reps, &g))
			return 1;
		printf("%-9s GPU:       %6u pages kernels %7.3f ms (%8.0f kpages/s)  copies %7.3f ms  "
			   "wall %7.3f ms (%8.0f kpages/s)  tuples %llu passed %llu records %llu\n",
			   quals ? "Q6 quals" : "no quals", n_pages, g.kernel, n_pages / g.kernel,
			   g.copy, g.wall, n_pages / g.wall, (unsigned long long) g.st.tuples,
			   (unsigned long long) g.st.passed, (unsigned long long) g.st.written);

		/* the same pages on both: the host twin's records are the GPU's first */
		run			g2;

		if (!timed(gt, scan, data, refs, host_pages, vis, false, 1, &g2))
			return 1;
		if (g2.out.size() != h.out.size() ||
			memcmp(g2.out.data(), h.out.data(), h.out.size() * sizeof(gh_page_match)) != 0)
		{
			fprintf(stderr, "bench_page: GPU and host twin records differ\n");
			rc = 1;
		}
	}
	gh_free(gt);
	gh_free(ht);
	delete scan;
	return rc;
}
