/*
 * bench_pages.h
 *		What the page benchmarks (bench_page.cpp, bench_agg.cpp) share: a
 *		clock, a seeded generator, and lineitem-like rows for the test page
 *		builder.
 */
#ifndef GPUHASH_BENCH_PAGES_H
#define GPUHASH_BENCH_PAGES_H

#include "../test/page_builder.h"

#include <stdint.h>
#include <time.h>
#include <vector>

using namespace pagetest;
using std::vector;

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t rs = 42;

static uint64_t
rnd(uint64_t n)
{
	rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
	return (rs >> 33) % n;
}

/* lineitem: orderkey, partkey, suppkey, linenumber, quantity, extendedprice,
 * discount, tax, returnflag, linestatus, shipdate, commitdate, receiptdate,
 * shipinstruct, shipmode, comment */
static const vector<col_desc> LINEITEM = {
	{4, 4, GH_T_INT4}, {4, 4, GH_T_INT4}, {4, 4, GH_T_INT4}, {4, 4, GH_T_INT4},
	{-1, 4, GH_T_NUMERIC}, {-1, 4, GH_T_NUMERIC}, {-1, 4, GH_T_NUMERIC}, {-1, 4, GH_T_NUMERIC},
	{-1, 4, GH_T_BPCHAR}, {-1, 4, GH_T_BPCHAR}, {4, 4, GH_T_DATE}, {4, 4, GH_T_DATE},
	{4, 4, GH_T_DATE}, {-1, 4, GH_T_BPCHAR}, {-1, 4, GH_T_BPCHAR}, {-1, 4, GH_T_TEXT}
};

static cell
int_cell(int64_t v)
{
	cell		c;

	c.v.null = false;
	c.v.i = v;
	return c;
}

static cell
num_cell(int64_t m)
{
	cell		c;

	c.v.null = false;
	c.v.n.m = m;
	c.v.n.scale = 2;
	c.v.n.dscale = 2;
	return c;
}

static cell
str_cell(const char *s, size_t pad_to)
{
	cell		c;

	c.v.null = false;
	c.v.s = s;
	while (c.v.s.size() < pad_to)
		c.v.s += ' ';
	return c;
}

#endif							/* GPUHASH_BENCH_PAGES_H */
