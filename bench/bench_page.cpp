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
 *		--grid: the walk as the GPU service makes it, each request on a
 *		lane of its own: the pages cut into requests of R pages, walked by
 *		T threads at once, copied in or read in place through the mapping
 *		(the buffer pool's way); for each: the pages a second and the bytes
 *		a second over the link, and each request's median kernel and copy
 *		times.  Every cut gives the single request's records.
 *
 *		usage: bench_page [--pages 16384] [--reps 7] [--host-pages 2048] [--grid]
 */
#include "gpuhash_page.h"
#include "gpuhash_table.h"
#include "bench_pages.h"

#include <algorithm>
#include <mutex>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
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

/* One request of the grid: pages [first, first + n) with rebased refs and visible lists. */
struct request
{
	uint32_t	first,
				n;
	vector<gh_page_ref> refs;
	vector<uint16_t> vis;
	vector<gh_page_match> out;
	vector<uint8_t> refused;
	gh_page_stats st;
	size_t		n_out;
};

static void
cut(const vector<gh_page_ref> &refs, const vector<uint16_t> &vis, uint32_t n_pages, uint32_t per,
	vector<request> &reqs)
{
	reqs.clear();
	for (uint32_t a = 0; a < n_pages; a += per)
	{
		request		r;

		r.first = a;
		r.n = std::min(per, n_pages - a);
		for (uint32_t p = a; p < a + r.n; p++)
		{
			gh_page_ref f = refs[p];

			f.offset -= (uint64_t) a * GH_PAGE_SIZE;
			if (f.nvis != GH_PAGE_ALL_VISIBLE)
			{
				uint32_t	s = (uint32_t) r.vis.size();

				r.vis.insert(r.vis.end(), vis.begin() + f.vis_start,
							 vis.begin() + f.vis_start + f.nvis);
				f.vis_start = s;
			}
			r.refs.push_back(f);
		}
		r.out.resize((size_t) r.n * GH_PAGE_MAX_TUPLES);
		r.refused.resize(r.n);
		reqs.push_back(std::move(r));
	}
}

/*
 * The requests walked by threads threads (thread i the requests i,
 * i + threads, ...), each on a lane taken and given back under one lock,
 * as the service does; the wall time of all of them.
 */
static bool
walk_all(gh_table *t, const gh_page_scan *s, const vector<uint8_t> &data, vector<request> &reqs,
		 int threads, bool in_place, double *wall)
{
	std::mutex	lock;
	bool		ok = true;
	vector<std::thread> th;
	double		t0 = now_ms();

	for (int i = 0; i < threads; i++)
		th.emplace_back([&, i]() {
			for (size_t q = i; q < reqs.size() && ok; q += threads)
			{
				request    &r = reqs[q];
				const uint8_t *pd = data.data() + (size_t) r.first * GH_PAGE_SIZE;
				size_t		pb = (size_t) r.n * GH_PAGE_SIZE;
				gh_page_lane *ln = nullptr;
				gh_status	st;

				{
					std::lock_guard<std::mutex> g(lock);

					st = gh_page_lane_take(t, in_place ? 0 : pb, r.n, (uint32_t) r.vis.size(), &ln);
				}
				if (st == GH_OK)
					st = gh_page_probe_lane(ln, in_place, s, r.refs.data(), r.n, pd, pb,
											r.vis.data(), (uint32_t) r.vis.size(), r.out.data(),
											r.out.size(), &r.n_out, r.refused.data(), &r.st);
				{
					std::lock_guard<std::mutex> g(lock);

					gh_page_lane_give(t, ln, st == GH_OK ? &r.st : nullptr);
				}
				if (st != GH_OK)
				{
					fprintf(stderr, "bench_page: grid walk failed: %s\n", gh_last_error());
					ok = false;
				}
			}
		});
	for (std::thread &x : th)
		x.join();
	*wall = now_ms() - t0;
	return ok;
}

/* The requests' records, their pages made the whole walk's again, equal to whole's. */
static bool
same_records(const vector<request> &reqs, const vector<gh_page_match> &whole)
{
	size_t		at = 0;

	for (const request &r : reqs)
		for (size_t i = 0; i < r.n_out; i++, at++)
		{
			gh_page_match m = r.out[i];

			m.page += r.first;
			if (at >= whole.size() || memcmp(&m, &whole[at], sizeof(m)) != 0)
				return false;
		}
	return at == whole.size();
}

static int
grid(gh_table *t, const gh_page_scan *s, const vector<uint8_t> &data,
	 const vector<gh_page_ref> &refs, const vector<uint16_t> &vis, uint32_t n_pages, int reps,
	 const vector<gh_page_match> &whole)
{
	int			rc = 0;

	printf("grid: %u pages (%.0f MB), requests of R pages on T threads, each on a lane; "
		   "median of %d passes\n", n_pages, n_pages * (double) GH_PAGE_SIZE / 1e6, reps);
	printf("%-8s %5s %2s %9s %9s %8s %11s %11s\n", "pages", "R", "T", "wall ms", "kpages/s",
		   "GB/s", "kernel ms/r", "copy ms/r");
	for (bool in_place : {true, false})
		for (uint32_t per : {64u, 128u, 310u, 1024u, 4096u})
			for (int threads : {1, 4, 8})
			{
				vector<request> reqs;
				vector<double> walls,
							kern,
							copy;

				cut(refs, vis, n_pages, per, reqs);
				for (int i = 0; i < reps + 1; i++)
				{
					double		w;

					if (!walk_all(t, s, data, reqs, threads, in_place, &w))
						return 1;
					if (i == 0)
					{
						if (!same_records(reqs, whole))
						{
							fprintf(stderr, "bench_page: grid R=%u T=%d %s: records differ from "
									"the single request's\n", per, threads,
									in_place ? "in place" : "copied");
							rc = 1;
						}
						continue;
					}
					walls.push_back(w);
					for (const request &r : reqs)
					{
						kern.push_back(r.st.kernel_ms);
						copy.push_back(r.st.copy_ms);
					}
				}

				double		w = median(walls);

				printf("%-8s %5u %2d %9.3f %9.0f %8.2f %11.4f %11.4f\n",
					   in_place ? "in place" : "copied", per, threads, w, n_pages / w,
					   n_pages * (double) GH_PAGE_SIZE / w / 1e6, median(kern), median(copy));
			}
	return rc;
}

int
main(int argc, char **argv)
{
	uint32_t	n_pages = 16384,
				host_pages = 2048;
	int			reps = 7;
	bool		do_grid = false;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--pages") && i + 1 < argc)
			n_pages = (uint32_t) atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--host-pages") && i + 1 < argc)
			host_pages = (uint32_t) atoi(argv[++i]);
		else if (!strcmp(argv[i], "--grid"))
			do_grid = true;
		else
		{
			fprintf(stderr, "usage: %s [--pages N] [--reps R] [--host-pages N] [--grid]\n", argv[0]);
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
		/* page-locked and mapped: copied from, or read in place as the buffer pool is */
		if (gh_page_register_host(data.data(), data.size()) != GH_OK)
		{
			printf("bench_page: page data not page-locked: %s\n", gh_last_error());
			do_grid = false;
		}
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
		if (do_grid && grid(gt, scan, data, refs, vis, n_pages, std::max(1, reps / 2), g.out) != 0)
			rc = 1;
	}
	gh_free(gt);
	gh_free(ht);
	delete scan;
	return rc;
}
