/*
 * core_agg.cpp
 *		core_test's checks of partial aggregation (gh_page_agg): heap pages
 *		built as PostgreSQL lays them out (page_builder.h) with NULLs,
 *		numerics of mixed display scales, NaN and infinities, int8 values
 *		whose sums pass int64, floats, dates and timestamps, grouped by
 *		nothing, by a packed (int4, char(1)) key and by 100 000+ groups.
 *		Each result is compared with a reference computed here over the
 *		rows' logical values in exact arithmetic (__int128 at a fixed
 *		scale); on a GPU the GPU's group set must equal the host twin's,
 *		exact states bit for bit (the float inputs are binary fractions
 *		whose sums are exact in any order, so float sums are compared
 *		exactly too).  Also: capacity overflow, merging requests, a page
 *		refused for a key too wide, a value beyond the accumulator's scale.
 */
#include "gpuhash_agg.h"
#include "gpuhash_table.h"
#include "table_internal.h"
#include "agg_gen.h"
#include "agg_ref.h"

#include <atomic>
#include <cmath>
#include <map>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <vector>

#include "test_check.h"

using namespace pagetest;
using namespace aggtest;
using namespace aggref;
using std::vector;

namespace
{

int		   *n_checks,
		   *n_failures;

#define ACHECK(cond, ...) GH_TEST_CHECK(n_checks, n_failures, cond, __VA_ARGS__)

uint8_t
adesc_type(int col)
{
	return ADESC[col].type;
}

void
make_scan(gh_page_scan *s, bool qual)
{
	memset(s, 0, sizeof(*s));
	s->mode = GH_PAGE_ALL_ROWS;
	s->natts = NCOLS;
	for (int a = 0; a < NCOLS; a++)
	{
		s->col[a].attlen = ADESC[a].attlen;
		s->col[a].attalign = ADESC[a].attalign;
		s->col[a].type = ADESC[a].type;
	}
	if (qual)
	{
		/* i4 > 0 */
		s->ninsns = 3;
		s->insn[0] = {GH_Q_COL, 0, 0, 0, C_I4};
		s->insn[1] = {GH_Q_CONST, GH_T_INT4, 0, 0, 0};
		s->insn[2] = {GH_Q_CMP, GH_M_INT, GH_GT, 0, 0};
		s->pool_bytes = 8;
	}
}

/* a spec without condition or constant */
gh_agg_spec
S(int fn, int expr, int scale, int col, int col2, int col3)
{
	gh_agg_spec sp;

	memset(&sp, 0, sizeof(sp));
	sp.fn = (uint8_t) fn;
	sp.expr = (uint8_t) expr;
	sp.scale = (uint8_t) scale;
	sp.col = (int16_t) col;
	sp.col2 = (int16_t) col2;
	sp.col3 = (int16_t) col3;
	return sp;
}

/* integer arithmetic col op col2 in integer type t */
gh_agg_spec
SI(int fn, int expr, int col, int col2, int t)
{
	gh_agg_spec sp = S(fn, expr, 0, col, col2, 0);

	sp.type = (uint8_t) t;
	return sp;
}

const gh_agg_spec SPECS[] = {
	S(GH_AGG_COUNT_STAR, 0, 0, 0, 0, 0), S(GH_AGG_COUNT, 0, 0, C_I4, 0, 0),
	S(GH_AGG_SUM, 0, 0, C_I2, 0, 0), S(GH_AGG_SUM, 0, 0, C_I4, 0, 0),
	S(GH_AGG_SUM, 0, 0, C_I8, 0, 0), S(GH_AGG_AVG, 0, 0, C_F4, 0, 0),
	S(GH_AGG_SUM, 0, 0, C_F4, 0, 0), S(GH_AGG_SUM, 0, 0, C_F8, 0, 0),
	S(GH_AGG_SUM, 0, NUM_SCALE, C_N, 0, 0), S(GH_AGG_MIN, 0, 0, C_D, 0, 0),
	S(GH_AGG_MAX, 0, 0, C_TS, 0, 0), S(GH_AGG_MIN, 0, 0, C_F8, 0, 0),
	S(GH_AGG_SUM, GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS, MUL3_SCALE, C_PRICE, C_DISC, C_TAX),
	S(GH_AGG_SUM, GH_AGG_E_MUL_ONE_MINUS, MUL_SCALE, C_PRICE, C_DISC, 0),
	S(GH_AGG_MAX, 0, 0, C_F8, 0, 0), S(GH_AGG_MIN, 0, 0, C_I8, 0, 0),
};

/*
 * Integer arithmetic beside plain columns: int8 * int2 and int8 - int4 out
 * of int8 only at big_i8's extremes, int4 + int2 and int4 - int2 within
 * int4 nearly always, int2 * int2 out of int2 nearly always (count's
 * overflow too).
 */
const gh_agg_spec INT_SPECS[] = {
	S(GH_AGG_COUNT_STAR, 0, 0, 0, 0, 0), S(GH_AGG_SUM, 0, 0, C_I4, 0, 0),
	SI(GH_AGG_SUM, GH_AGG_E_INT_MUL, C_I8, C_I2, GH_T_INT8),
	SI(GH_AGG_AVG, GH_AGG_E_INT_SUB, C_I8, C_I4, GH_T_INT8),
	SI(GH_AGG_MAX, GH_AGG_E_INT_ADD, C_I4, C_I2, GH_T_INT4),
	SI(GH_AGG_SUM, GH_AGG_E_INT_SUB, C_I4, C_I2, GH_T_INT4),
	SI(GH_AGG_MIN, GH_AGG_E_INT_MUL, C_I8, C_I2, GH_T_INT8),
	SI(GH_AGG_COUNT, GH_AGG_E_INT_MUL, C_I2, C_I2, GH_T_INT2),
};

/*
 * Wide keys (more than 64 bits: GH_AGG_KEY_WORDS words), keys 4 and up:
 *	4	(int4, int8, date): 128 bits, most rows a group of their own
 *	5	(text in 3 bytes, char(1) in 9, int4, int2): 144 bits; 'ab ' fills
 *		its slot exactly, trailing spaces counting
 *	6	(char(1) in 1 byte, int8, int4): 104 bits; a two-letter flag refuses
 *		its page
 *	7	text in 48 bytes alone: the whole 384 bits
 */
void
wide_keys(gh_agg_prog *p, int keys)
{
	if (keys < 4)
		return;
	memset(p->key_bytes, 0, sizeof(p->key_bytes));
	if (keys == 4)
	{
		p->nkeys = 3;
		p->key[0] = {C_G1, 1, 32};
		p->key[1] = {C_I8, 2, 64};
		p->key[2] = {C_D, 1, 32};
	}
	else if (keys == 5)
	{
		p->nkeys = 4;
		p->key[0] = {C_TXT, GH_AGG_KEY_TEXT, 0};
		p->key_bytes[0] = 3;
		p->key[1] = {C_FLAG, GH_AGG_KEY_BPCHAR, 0};
		p->key_bytes[1] = 9;
		p->key[2] = {C_G1, 1, 32};
		p->key[3] = {C_I2, 0, 16};
	}
	else if (keys == 6)
	{
		p->nkeys = 3;
		p->key[0] = {C_FLAG, GH_AGG_KEY_BPCHAR, 0};
		p->key_bytes[0] = 1;
		p->key[1] = {C_I8, 2, 64};
		p->key[2] = {C_G1, 1, 32};
	}
	else
	{
		p->nkeys = 1;
		p->key[0] = {C_TXT, GH_AGG_KEY_TEXT, 0};
		p->key_bytes[0] = GH_AGG_KEY_MAX_BITS / 8;
	}
}

void
make_prog(gh_agg_prog *p, int keys, bool int_arith = false)
{
	const gh_agg_spec *specs = int_arith ? INT_SPECS : SPECS;

	memset(p, 0, sizeof(*p));
	p->naggs = (int16_t) (int_arith ? sizeof(INT_SPECS) / sizeof(INT_SPECS[0]) :
						  sizeof(SPECS) / sizeof(SPECS[0]));
	for (int a = 0; a < p->naggs; a++)
		p->agg[a] = specs[a];
	p->nkeys = (int16_t) keys;
	if (keys >= 1)
		p->key[0] = {C_G1, 1, 32};
	if (keys >= 2)
		p->key[1] = {C_FLAG, GH_AGG_KEY_BPCHAR, 8};
	if (keys == 3)
	{
		/* (txt, g1): a text key whose trailing spaces count */
		p->nkeys = 2;
		p->key[0] = {C_TXT, GH_AGG_KEY_TEXT, 24};
		p->key[1] = {C_G1, 1, 32};
	}
	wide_keys(p, keys);
}

ref_groups
reference(const dataset &ds, const gh_agg_prog &p, bool qual, const vector<uint8_t> &refused)
{
	ref_groups	g;

	for (size_t i = 0; i < ds.rows.size(); i++)
	{
		const vector<cell> &row = ds.rows[i];

		if (refused[ds.row_page[i]])
			continue;
		if (qual && (row[C_I4].v.null || row[C_I4].v.i <= 0))
			continue;

		gkey		k;

		if (!ref_group_key(p, row, &k))
			continue;

		vector<ref_state> &s = g[k];

		s.resize(p.naggs);
		for (int a = 0; a < p.naggs; a++)
			ref_fold(p.agg[a], in_type(p.agg[a], adesc_type), s[a], row);
	}
	return g;
}

/* One request on a device into a fresh set; the status. */
gh_status
run_agg(int device, const gh_page_scan &s, const gh_agg_prog &p, const dataset &ds,
		uint32_t first, uint32_t n, uint64_t max_groups, gh_agg_groups *out,
		vector<uint8_t> &refused, gh_agg_stats *st, bool init = true,
		const uint8_t *mapped = nullptr)
{
	if (init)
		gh_agg_groups_init(out, &p, max_groups);
	refused.resize(ds.n_pages);
	if (mapped)
		return gh_page_agg_mapped(device, &s, &p, ds.refs.data() + first, n, mapped,
								  ds.data.size(), nullptr, 0, refused.data() + first, out, st);
	return gh_page_agg(device, &s, &p, ds.refs.data() + first, n, ds.data.data(), ds.data.size(),
					   nullptr, 0, refused.data() + first, out, st);
}

/*
 * The request by address, as the GPU service's page cache makes it: every
 * page copied from src (the pages where they lie, mapped for a GPU) into a
 * page store by gh_page_fill_pages, then folded there; the status.
 */
gh_status
run_agg_at(int device, const gh_page_scan &s, const gh_agg_prog &p, const dataset &ds,
		   const uint8_t *src, uint64_t max_groups, gh_agg_groups *out, vector<uint8_t> &refused)
{
	int			ordinal = device == GH_AGG_HOST ? -1 : device;
	uint8_t    *store = nullptr;
	uint64_t	base = 0;
	vector<gh_page_ref> at(ds.refs.begin(), ds.refs.begin() + ds.n_pages);
	vector<gh_page_fill> fills(ds.n_pages);
	gh_status	st;

	gh_agg_groups_init(out, &p, max_groups);
	refused.assign(ds.n_pages, 0);
	if ((st = gh_page_store_alloc(ordinal, ds.n_pages, &store)) != GH_OK)
		return st;
	st = gh_page_mapped_address(ordinal, src, &base);
	for (uint32_t i = 0; i < ds.n_pages; i++)
	{
		fills[i].src = base + ds.refs[i].offset;
		fills[i].dst = (uint64_t) (uintptr_t) (store + (size_t) i * GH_PAGE_SIZE);
		at[i].offset = fills[i].dst;
	}
	if (st == GH_OK)
		st = gh_page_fill_pages(ordinal, fills.data(), ds.n_pages);
	if (st == GH_OK)
		st = gh_page_agg_mapped(device, &s, &p, at.data(), ds.n_pages, nullptr, GH_PAGE_DATA_AT,
								nullptr, 0, refused.data(), out, nullptr);
	gh_page_store_free(ordinal, store);
	return st;
}

void
run_case(const char *tag, int gpus, const options &o, int keys, bool qual, uint64_t seed,
		 uint64_t max_groups = 1u << 24)
{
	dataset		ds = make_data(o, seed);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	gh_agg_groups host,
				gpu;
	vector<uint8_t> refused;
	gh_agg_stats st;
	double		t0 = gh_now_ms();

	make_scan(s, qual);
	make_prog(&p, keys, o.int_arith);
	ACHECK(gh_agg_prog_check(s, &p) == GH_OK, "%s: program rejected: %s", tag, gh_last_error());

	double		tf = gh_now_ms();
	gh_status	r = run_agg(GH_AGG_HOST, *s, p, ds, 0, ds.n_pages, max_groups, &host, refused, &st);

	tf = gh_now_ms() - tf;

	ACHECK(r == GH_OK, "%s: host twin: %s", tag, gh_last_error());
	if (r == GH_OK)
	{
		compare_ref(tag, host, reference(ds, p, qual, refused), p, adesc_type);
		ACHECK(st.pages == ds.n_pages, "%s: pages %llu", tag, (unsigned long long) st.pages);
		if (o.wide_flag_rows > 0 && keys >= 2)
			ACHECK(refused[0] == 1 && st.refused >= 1, "%s: a page with a key too wide not refused", tag);
		else
			ACHECK(st.refused == 0, "%s: %llu pages refused", tag, (unsigned long long) st.refused);
	}

	/* in place: the host twin reads the pages where they lie */
	if (r == GH_OK)
	{
		gh_agg_groups m;
		vector<uint8_t> rm;

		ACHECK(run_agg(GH_AGG_HOST, *s, p, ds, 0, ds.n_pages, max_groups, &m, rm, nullptr, true,
					   ds.data.data()) == GH_OK, "%s: host twin in place: %s", tag, gh_last_error());
		compare_sets(tag, m, host);
		ACHECK(rm == refused, "%s: in place refused other pages", tag);
		gh_agg_groups_free(&m);

		/* by address: copied into a page store first */
		ACHECK(run_agg_at(GH_AGG_HOST, *s, p, ds, ds.data.data(), max_groups, &m, rm) == GH_OK,
			   "%s: host twin by address: %s", tag, gh_last_error());
		compare_sets(tag, m, host);
		ACHECK(rm == refused, "%s: by address refused other pages", tag);
		gh_agg_groups_free(&m);
	}

	/* the same pages in two requests, merged, are the same set */
	if (ds.n_pages >= 2 && r == GH_OK)
	{
		gh_agg_groups a,
					b;
		vector<uint8_t> ra,
					rb;
		uint32_t	half = ds.n_pages / 2;

		run_agg(GH_AGG_HOST, *s, p, ds, 0, half, max_groups, &a, ra, nullptr);
		run_agg(GH_AGG_HOST, *s, p, ds, half, ds.n_pages - half, max_groups, &b, rb, nullptr);
		ACHECK(gh_agg_merge(&a, &b, s, &p) == GH_OK, "%s: merge: %s", tag, gh_last_error());
		compare_sets(tag, a, host);
		gh_agg_groups_free(&a);
		gh_agg_groups_free(&b);
	}
	if (gpus > 0)
	{
		vector<uint8_t> rg;
		gh_status	g = run_agg(0, *s, p, ds, 0, ds.n_pages, max_groups, &gpu, rg, &st);

		ACHECK(g == r, "%s: GPU status %s, host %s (%s)", tag, gh_status_name(g),
			   gh_status_name(r), gh_last_error());
		if (g == GH_OK && r == GH_OK)
		{
			compare_sets(tag, gpu, host);
			ACHECK(rg == refused, "%s: GPU refused other pages", tag);
		}
		gh_agg_groups_free(&gpu);

		/* in place: the kernel reads registered host memory through its mapping */
		const uint8_t *mp = mapped_copy(ds.data.data(), ds.data.size());

		ACHECK(mp != nullptr, "%s: no registered host memory for %zu bytes of pages", tag,
			   ds.data.size());
		if (mp != nullptr)
		{
			g = run_agg(0, *s, p, ds, 0, ds.n_pages, max_groups, &gpu, rg, &st, true, mp);
			ACHECK(g == r, "%s: GPU in place status %s, host %s (%s)", tag, gh_status_name(g),
				   gh_status_name(r), gh_last_error());
			if (g == GH_OK && r == GH_OK)
			{
				compare_sets(tag, gpu, host);
				ACHECK(rg == refused, "%s: GPU in place refused other pages", tag);
			}
			gh_agg_groups_free(&gpu);

			/* by address: the pages filled into the GPU's page store, folded there */
			g = run_agg_at(0, *s, p, ds, mp, max_groups, &gpu, rg);
			ACHECK(g == r, "%s: GPU by address status %s, host %s (%s)", tag, gh_status_name(g),
				   gh_status_name(r), gh_last_error());
			if (g == GH_OK && r == GH_OK)
			{
				compare_sets(tag, gpu, host);
				ACHECK(rg == refused, "%s: GPU by address refused other pages", tag);
			}
			gh_agg_groups_free(&gpu);
		}
	}
	/* fold: the host twin's gh_page_agg over every page, alone */
	printf("  %-34s rows %7zu pages %5u groups %7llu  %6.2f s (fold %.1f ms)\n", tag, o.rows,
		   ds.n_pages, (unsigned long long) host.n_groups, (gh_now_ms() - t0) / 1000.0, tf);
	fflush(stdout);
	gh_agg_groups_free(&host);
	delete s;
}

/* More groups than allowed: OUTPUT_FULL, the set unchanged, on both sides. */
void
test_overflow(int gpus)
{
	options		o;

	o.rows = 3000;
	o.groups = 200;
	dataset		ds = make_data(o, 77);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	vector<uint8_t> refused;

	make_scan(s, false);
	make_prog(&p, 1);
	for (int dev = GH_AGG_HOST; dev < (gpus > 0 ? 1 : 0); dev++)
	{
		gh_agg_groups g;
		gh_status	r = run_agg(dev, *s, p, ds, 0, ds.n_pages, 50, &g, refused, nullptr);

		ACHECK(r == GH_ERR_OUTPUT_FULL && g.n_groups == 0, "overflow (device %d): %s, %llu groups",
			   dev, gh_status_name(r), (unsigned long long) g.n_groups);

		/* a set near its bound refuses a request that would pass it */
		r = run_agg(dev, *s, p, ds, 0, 1, 205, &g, refused, nullptr);
		uint64_t	before = g.n_groups;

		ACHECK(r == GH_OK, "overflow (device %d): first page: %s", dev, gh_last_error());
		g.max_groups = before + 1;
		r = run_agg(dev, *s, p, ds, 1, ds.n_pages - 1, 0, &g, refused, nullptr, false);
		ACHECK(r == GH_ERR_OUTPUT_FULL && g.n_groups == before,
			   "overflow (device %d): merge past the bound: %s, %llu groups", dev,
			   gh_status_name(r), (unsigned long long) g.n_groups);
		gh_agg_groups_free(&g);
	}
	delete s;
}

/*
 * Requests on several threads at once, as the GPU service folds them: each
 * thread's own device memory and stream, grown from small requests to
 * large ones, copied and in place in turn; every answer the host twin's.
 */
void
test_threads(int gpus)
{
	options		o;

	o.rows = 20000;
	o.groups = 40;
	dataset		ds = make_data(o, 12);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	gh_agg_groups host;
	vector<uint8_t> refused;
	const uint8_t *mp = gpus > 0 ? mapped_copy(ds.data.data(), ds.data.size()) : ds.data.data();

	make_scan(s, true);
	make_prog(&p, 2);
	ACHECK(run_agg(GH_AGG_HOST, *s, p, ds, 0, ds.n_pages, 1u << 24, &host, refused, nullptr) ==
		   GH_OK, "threads: host twin: %s", gh_last_error());
	for (int dev = GH_AGG_HOST; dev < (gpus > 0 ? 1 : 0) && mp != nullptr; dev++)
	{
		const int	nthreads = 4;
		std::atomic<int> bad(0);
		vector<std::thread> th;

		for (int k = 0; k < nthreads; k++)
			th.emplace_back([&, k]() {
				for (int round = 0; round < 6; round++)
				{
					gh_agg_groups g;
					vector<uint8_t> r;
					uint32_t	n = round < 2 ? 1 + k : ds.n_pages;
					gh_status	st = run_agg(dev, *s, p, ds, 0, n, 1u << 24, &g, r, nullptr, true,
											 (round + k) % 2 ? mp : nullptr);

					if (st != GH_OK ||
						(n == ds.n_pages && (g.n_groups != host.n_groups ||
											 memcmp(g.keys, host.keys, 8 * g.n_groups) != 0)))
						bad++;
					gh_agg_groups_free(&g);
				}
			});
		for (std::thread &t : th)
			t.join();
		ACHECK(bad == 0, "threads (device %d): %d answers wrong or failed", dev, bad.load());
	}
	printf("  %-34s threads 4, rounds 6\n", "concurrent requests");
	gh_agg_groups_free(&host);
	delete s;
}

}								/* namespace */

void
test_agg(int gpus, bool quick, int *checks, int *failures)
{
	n_checks = checks;
	n_failures = failures;
	aggref::checks = checks;
	aggref::failures = failures;
	printf("partial aggregation over heap pages (%s):\n", gpus > 0 ? "GPU + host twin" : "host twin");

	options		o;

	o.rows = 0;
	run_case("empty input", gpus, o, 2, false, 1);
	o.rows = quick ? 5000 : 30000;
	run_case("one group", gpus, o, 0, false, 2);
	run_case("one group, quals", gpus, o, 0, true, 3);
	o.groups = 40;
	run_case("(int4, char(1)) groups", gpus, o, 2, false, 4);
	o.null_p = 0.3;
	run_case("(int4, char(1)), many NULLs", gpus, o, 2, true, 5);
	run_case("(text, int4) groups", gpus, o, 3, false, 10);
	o.null_p = 0.05;
	o.big_i8 = true;
	run_case("int8 sums past int64", gpus, o, 1, false, 6);
	o.big_i8 = false;
	o.max_dscale = NUM_SCALE + 3;	/* some values beyond the accumulator */
	run_case("numeric beyond the scale", gpus, o, 1, false, 7);
	o.max_dscale = NUM_SCALE;
	o.int_arith = true;
	run_case("integer arithmetic", gpus, o, 2, false, 16);
	o.big_i8 = true;
	run_case("integer arithmetic past int8", gpus, o, 1, true, 17);
	o.big_i8 = false;
	o.int_arith = false;
	o.wide_flag_rows = 1;
	run_case("key too wide: page refused", gpus, o, 2, false, 8);
	o.wide_flag_rows = 0;
	o.rows = quick ? 150000 : 300000;
	o.groups = quick ? 1000000 : 2000000;
	run_case("100k+ groups", gpus, o, 1, false, 9);
	o.rows = quick ? 5000 : 30000;
	o.groups = 40;
	run_case("wide: (int4, int8, date)", gpus, o, 4, false, 11);
	o.null_p = 0.3;
	run_case("wide: (text, char, int4, int2), NULLs", gpus, o, 5, true, 12);
	o.null_p = 0.05;
	run_case("wide: text in 48 bytes", gpus, o, 7, false, 13);
	o.wide_flag_rows = 1;
	run_case("wide: char too long: page refused", gpus, o, 6, false, 14);
	o.wide_flag_rows = 0;
	o.rows = quick ? 150000 : 300000;
	o.groups = quick ? 1000000 : 2000000;
	run_case("wide: 100k+ groups", gpus, o, 5, false, 15);
	test_overflow(gpus);
	test_threads(gpus);
}
