/*
 * agg_gen.h
 *		core_agg.cpp's data: a relation of every type partial aggregation
 *		folds (int4 and char(1) group keys, integers, floats as binary
 *		fractions whose sums are exact in any order, numerics of mixed
 *		display scales with NaN and infinities, dates, timestamps, the
 *		price and discount of an exact product), its rows as logical values
 *		and as heap pages built by page_builder.h.
 */
#ifndef GPUHASH_TEST_AGG_GEN_H
#define GPUHASH_TEST_AGG_GEN_H

#include "page_gen.h"

#include <cmath>
#include <string.h>
#include <vector>

namespace aggtest
{

using namespace pagetest;
using std::vector;

/* g1 int4, flag char(1), i2, i4, i8, f4, f8, n numeric, d date, ts, price, disc,
 * tax numeric, txt text */
const vector<col_desc> ADESC = {
	{4, 4, GH_T_INT4}, {-1, 4, GH_T_BPCHAR}, {2, 2, GH_T_INT2}, {4, 4, GH_T_INT4},
	{8, 8, GH_T_INT8}, {4, 4, GH_T_FLOAT4}, {8, 8, GH_T_FLOAT8}, {-1, 4, GH_T_NUMERIC},
	{4, 4, GH_T_DATE}, {8, 8, GH_T_TIMESTAMP}, {-1, 4, GH_T_NUMERIC}, {-1, 4, GH_T_NUMERIC},
	{-1, 4, GH_T_NUMERIC}, {-1, 4, GH_T_TEXT}
};
enum
{
	C_G1 = 0, C_FLAG, C_I2, C_I4, C_I8, C_F4, C_F8, C_N, C_D, C_TS, C_PRICE, C_DISC, C_TAX, C_TXT, NCOLS
};

const int	NUM_SCALE = 6;		/* the accumulator scale of SUM(n) */
const int	MUL_SCALE = 4;		/* of SUM(price * (1 - disc)) */
const int	MUL3_SCALE = 6;		/* of SUM(price * (1 - disc) * (1 + tax)) */

struct options
{
	size_t		rows = 1000;
	int			groups = 10;	/* distinct g1 values */
	double		null_p = 0.05;
	bool		specials = true;	/* NaN and infinities */
	bool		big_i8 = false;		/* int8 values near its limits */
	int			max_dscale = NUM_SCALE;
	int			wide_flag_rows = 0;	/* rows whose flag is two letters */
	bool		int_arith = false;	/* core_agg.cpp: the program of integer arithmetic */
};

struct dataset
{
	vector<vector<cell>> rows;
	vector<int> row_page;
	vector<uint8_t> data;
	vector<gh_page_ref> refs;
	uint32_t	n_pages = 0;
};

static inline lval
null_v()
{
	return lval();
}

static inline lval
int_v(int64_t i)
{
	lval		v;

	v.null = false;
	v.i = i;
	return v;
}

static inline lval
float_v(double f)
{
	lval		v;

	v.null = false;
	v.f = f;
	return v;
}

static inline lval
num_v(int cls, int64_t m, int scale, int dscale)
{
	lval		v;

	v.null = false;
	v.n.cls = cls;
	v.n.m = m;
	v.n.scale = scale;
	v.n.dscale = dscale;
	return v;
}

static inline lval
str_v(const std::string &s)
{
	lval		v;

	v.null = false;
	v.s = s;
	return v;
}

static inline dataset
make_data(const options &o, uint64_t seed)
{
	prng		r{seed};
	dataset		ds;

	for (size_t i = 0; i < o.rows; i++)
	{
		vector<cell> row(NCOLS);
		auto		nul = [&]() { return r.chance(o.null_p); };

		row[C_G1].v = nul() ? null_v() : int_v((int64_t) r.below(o.groups) - 3);
		row[C_FLAG].v = nul() ? null_v() : str_v(std::string(1, "ANR"[r.below(3)]));
		if ((int) i < o.wide_flag_rows)
			row[C_FLAG].v = str_v("AB");
		row[C_I2].v = nul() ? null_v() : int_v((int64_t) r.below(65536) - 32768);
		row[C_I4].v = nul() ? null_v() : int_v((int64_t) (int32_t) r.next());
		if (o.big_i8 && !nul())
			row[C_I8].v = int_v(r.chance(0.5) ? INT64_MAX - (int64_t) r.below(1000)
								: INT64_MIN + (int64_t) r.below(1000) + (r.chance(0.5) ? 0 : 0));
		else
			row[C_I8].v = nul() ? null_v() : int_v((int64_t) r.next() >> 20);
		/* binary fractions: sums exact in any order */
		row[C_F4].v = nul() ? null_v() : float_v((double) ((int) r.below(801) - 400) / 4);
		if (nul())
			row[C_F8].v = null_v();
		else if (o.specials && r.chance(0.01))
			row[C_F8].v = float_v(r.chance(0.4) ? NAN : r.chance(0.5) ? INFINITY : -INFINITY);
		else
			row[C_F8].v = float_v((double) ((int64_t) r.below(1u << 30) - (1 << 29)) / 1024);
		if (nul())
			row[C_N].v = null_v();
		else if (o.specials && r.chance(0.01))
			row[C_N].v = num_v(r.chance(0.4) ? 2 : r.chance(0.5) ? 1 : -1, 0, 0, 0);
		else
		{
			int			sc = (int) r.below(o.max_dscale + 1);
			int			dsc = std::min(o.max_dscale, sc + (int) r.below(3));

			row[C_N].v = num_v(0, (int64_t) (r.next() >> 12) - (INT64_C(1) << 51), sc, dsc);
		}
		row[C_D].v = nul() ? null_v() : int_v((int64_t) r.below(20000) - 10000);
		row[C_TS].v = nul() ? null_v() : int_v((int64_t) (r.next() >> 8) - (INT64_C(1) << 55));
		row[C_PRICE].v = nul() ? null_v() : num_v(0, (int64_t) r.below(10000000), 2, 2);
		row[C_DISC].v = nul() ? null_v() : num_v(0, (int64_t) r.below(11), 2, 2);
		row[C_TAX].v = nul() ? null_v() : num_v(0, (int64_t) r.below(9), 2, 2);
		/* text keys: 'a' and 'a ' are two groups, '' is not NULL */
		row[C_TXT].v = nul() ? null_v()
			: str_v(vector<std::string>{"a", "a ", "b", "", "ab ", " "}[r.below(6)]);
		ds.rows.push_back(row);
	}

	/* pages */
	page		pg;
	vector<page> pages;

	for (size_t i = 0; i < ds.rows.size(); i++)
	{
		vector<uint8_t> t = heap_tuple(ADESC, ds.rows[i], NCOLS, 0, i);

		if (!pg.fits(t.size()))
		{
			pages.push_back(pg);
			pg = page();
		}
		pg.add(1, t);
		ds.row_page.push_back((int) pages.size());
	}
	if (pg.nitems() > 0)
		pages.push_back(pg);
	ds.n_pages = (uint32_t) pages.size();
	for (size_t p = 0; p < pages.size(); p++)
	{
		gh_page_ref ref;

		memset(&ref, 0, sizeof(ref));
		ref.offset = ds.data.size();
		ref.nvis = GH_PAGE_ALL_VISIBLE;
		ref.maxoff = (uint16_t) pages[p].nitems();
		ds.refs.push_back(ref);
		ds.data.insert(ds.data.end(), pages[p].b.begin(), pages[p].b.end());
	}
	return ds;
}

}								/* namespace aggtest */

#endif							/* GPUHASH_TEST_AGG_GEN_H */
