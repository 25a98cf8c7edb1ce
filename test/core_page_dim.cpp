/*
 * core_page_dim.cpp
 *		core_test's checks of a dimension's rows made from heap pages
 *		(gh_page_dim_rows, gpuhash_dim_pages.h) on core_page.cpp's random
 *		pages and scan programs: the rows are the reference walk's passing
 *		rows with a non-NULL key, in order, each with its key and the
 *		logical values of the dimension's columns (by-value bits as the
 *		walker holds them, by-reference data as the page stores it); refused
 *		pages give nothing; on a GPU, the GPU's output equals the host
 *		twin's byte for byte.
 */
#include "gpuhash_dim_pages.h"
#include "page_gen.h"
#include "page_deform.cuh"
#include "test_check.h"

#include <string.h>
#include <algorithm>
#include <vector>

using namespace pagetest;
using std::vector;

namespace
{

struct dim_out
{
	gh_status	st = GH_OK;
	vector<uint64_t> keys;
	vector<gh_agg_inval> vals;
	vector<uint8_t> heap;
	vector<uint8_t> refused;
	gh_page_stats stats;
};

/*
 * The walk with outputs as small as the contract lets them be (the rows
 * the pages list or hold, gh_dim_pages_rows_bound, and the heap bytes of
 * those rows), short by short_rows rows: any would be refused; heap, where
 * given, the room for the values (a walk needing more says so).
 */
dim_out
run(int device, const gh_page_scan *scan, const vector<int16_t> &cols,
	const vector<uint8_t> &data, const vector<gh_page_ref> &refs, const vector<uint16_t> &vis,
	uint64_t short_rows = 0, uint64_t heap = UINT64_MAX)
{
	dim_out		o;
	uint32_t	np = (uint32_t) refs.size();
	uint64_t	bound = gh_dim_pages_rows_bound(refs.data(), np),
				rows_cap = bound - std::min(bound, short_rows),
				heap_cap = std::min(heap, gh_dim_pages_heap_bound_rows(np, bound, (int) cols.size())),
				n = 0,
				hb = 0;

	o.keys.assign(rows_cap + 1, 0);
	o.vals.assign((rows_cap + 1) * (cols.size() + 1), gh_agg_inval());
	o.heap.assign(heap_cap + 1, 0xAB);
	o.refused.assign(np + 1, 0);
	memset(&o.stats, 0, sizeof(o.stats));
	o.st = gh_page_dim_rows(device, scan, cols.data(), (int) cols.size(), refs.data(), np,
							data.data(), data.size(), vis.data(), (uint32_t) vis.size(), 0,
							o.keys.data(), o.vals.data(), rows_cap, o.heap.data(), heap_cap,
							&n, &hb, o.refused.data(), &o.stats);
	o.keys.resize(n);
	o.vals.resize(n * cols.size());
	o.heap.resize(hb);
	o.refused.resize(np);
	return o;
}

/* The expected value of column a of row rw (scan_values' view) as a dimension value. */
bool
value_ok(const gh_page_scan &s, int a, const row &rw, const lval &v, const gh_agg_inval &got,
		 const vector<uint8_t> &heap)
{
	const gh_page_column &c = s.col[a];

	if (v.null)
		return got.null == 1 && got.bits == 0 && got.len == 0;
	if (got.null)
		return false;
	if (c.type == GH_T_NUMERIC || c.type == GH_T_TEXT || c.type == GH_T_BPCHAR)
	{
		vector<uint8_t> want;

		if (c.type == GH_T_NUMERIC)
			want = numeric_data(v.n, a < rw.natts && rw.cells[a].long_numeric);
		else
			want.assign(v.s.begin(), v.s.end());
		return got.bits % 8 == 0 && got.len == want.size() && got.bits + got.len <= heap.size() &&
			memcmp(heap.data() + got.bits, want.data(), want.size()) == 0;
	}

	uint64_t	bits;

	if (a >= rw.natts)
		bits = gh_datum_bits(c.type, (uint64_t) c.missing_value);
	else if (c.type == GH_T_FLOAT4)
	{
		double		d = (double) (float) v.f;

		memcpy(&bits, &d, 8);
	}
	else if (c.type == GH_T_FLOAT8)
		memcpy(&bits, &v.f, 8);
	else
		bits = (uint64_t) v.i;
	return got.len == 0 && got.bits == bits;
}

bool
same_out(const dim_out &a, const dim_out &b)
{
	return a.st == b.st && a.keys == b.keys && a.heap == b.heap && a.refused == b.refused &&
		a.vals.size() == b.vals.size() &&
		memcmp(a.vals.data(), b.vals.data(), a.vals.size() * sizeof(gh_agg_inval)) == 0 &&
		a.stats.tuples == b.stats.tuples && a.stats.passed == b.stats.passed &&
		a.stats.written == b.stats.written && a.stats.refused == b.stats.refused;
}

}								/* namespace */

/*
 * One case of core_page.cpp: scan over pages (data, refs, vis), its rows
 * and the reference's walk e.  The dimension's columns are the ones the
 * scan reads (up to GH_AGG_MAX_INNER), and none.
 */
void
check_page_dim(const char *tag, const gh_page_scan *scan, const vector<gpage> &pages,
			   const vector<row> &rows, const expect &e, const vector<uint8_t> &data,
			   const vector<gh_page_ref> &refs, const vector<uint16_t> &vis, int gpus,
			   int *checks, int *failures)
{
	vector<int16_t> cols;

	for (int a = 0; a < scan->natts && cols.size() < GH_AGG_MAX_INNER; a++)
		if (scan->col[a].type != GH_T_SKIP)
			cols.push_back((int16_t) a);
	for (int pass = 0; pass < 2; pass++)
	{
		vector<int16_t> cs = pass == 0 ? cols : vector<int16_t>();
		dim_out		h = run(GH_AGG_HOST, scan, cs, data, refs, vis);
		size_t		r = 0;
		bool		ok = h.st == GH_OK;

		if (scan->nkeys == 0)
		{
			GH_TEST_CHECK(checks, failures, h.st == GH_ERR_INVALID,
						  "%s: dimension pages without a key: status %d", tag, h.st);
			return;
		}
		GH_TEST_CHECK(checks, failures, ok, "%s: dimension pages: %s", tag, gh_last_error());
		if (!ok)
			return;
		if (gh_dim_pages_rows_bound(refs.data(), (uint32_t) refs.size()) > 0)
		{
			dim_out		t = run(GH_AGG_HOST, scan, cs, data, refs, vis, 1);

			GH_TEST_CHECK(checks, failures, t.st == GH_ERR_INVALID,
						  "%s: dimension pages with a row less room than the pages list: "
						  "status %d", tag, t.st);
		}
		/* heap room for exactly the values: the same rows; a byte less: full */
		if (!h.heap.empty())
		{
			dim_out		e = run(GH_AGG_HOST, scan, cs, data, refs, vis, 0, h.heap.size()),
						f = run(GH_AGG_HOST, scan, cs, data, refs, vis, 0, h.heap.size() - 1);

			GH_TEST_CHECK(checks, failures, same_out(e, h) && f.st == GH_ERR_OUTPUT_FULL,
						  "%s: dimension pages in heap room of their values: %s, a byte less: "
						  "status %d", tag, same_out(e, h) ? "same" : "differ", f.st);
			if (gpus > 0)
			{
				dim_out		ge = run(0, scan, cs, data, refs, vis, 0, h.heap.size()),
							gf = run(0, scan, cs, data, refs, vis, 0, h.heap.size() - 1);

				GH_TEST_CHECK(checks, failures, same_out(ge, h) && gf.st == GH_ERR_OUTPUT_FULL,
							  "%s: dimension pages on the GPU in heap room of their values: %s, "
							  "a byte less: status %d", tag, same_out(ge, h) ? "same" : "differ",
							  gf.st);
			}
		}
		for (size_t i = 0; i < e.rows.size() && ok; i++)
		{
			const gh_page_match &m = e.rows[i];

			if (m.flags & GH_PM_NULL_KEY)
				continue;
			if (r >= h.keys.size() || h.keys[r] != e.keys[i])
			{
				ok = false;
				break;
			}

			const row  &rw = rows[pages[m.page].item_row[m.lp - 1]];
			vector<lval> v;

			scan_values(*scan, rw, v);
			for (size_t j = 0; j < cs.size() && ok; j++)
				ok = value_ok(*scan, cs[j], rw, v[cs[j]], h.vals[r * cs.size() + j], h.heap);
			r++;
		}
		ok = ok && r == h.keys.size();
		for (size_t p = 0; p < e.refused.size() && ok; p++)
			ok = (h.refused[p] != 0) == (e.refused[p] != 0);
		ok = ok && h.stats.tuples == e.tuples && h.stats.passed == e.passed &&
			h.stats.written == r;
		GH_TEST_CHECK(checks, failures, ok,
					  "%s: dimension pages (%zu columns): %zu rows, row %zu differs from the "
					  "reference's", tag, cs.size(), h.keys.size(), r);
		if (gpus > 0)
		{
			dim_out		g = run(0, scan, cs, data, refs, vis);

			GH_TEST_CHECK(checks, failures, same_out(g, h),
						  "%s: dimension pages on the GPU differ from the host twin's: %s", tag,
						  g.st == GH_OK ? "output" : gh_last_error());
		}
	}
}
