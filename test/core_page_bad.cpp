/*
 * core_page_bad.cpp
 *		core_test's checks that the page walker refuses what it must: pages
 *		and tuples that are malformed in each way the walker validates,
 *		needed values compressed or out of line, visible lists that do not
 *		fit the page; requests outside their data; scan programs that
 *		gh_page_scan_check rejects; a partitioned table.  Each malformed
 *		page lies between two good ones, whose records must still come.
 */
#include "gpuhash_page.h"
#include "gpuhash_table.h"
#include "page_builder.h"

#include <stdio.h>
#include <functional>
#include <vector>

#include "test_check.h"

using namespace pagetest;
using std::vector;

namespace
{

int		   *n_checks,
		   *n_failures;

#define BCHECK(cond, ...) GH_TEST_CHECK(n_checks, n_failures, cond, __VA_ARGS__)

/* (int4 key, text, numeric): every row passes, the key is column 0. */
const vector<col_desc> D3 = {{4, 4, GH_T_INT4}, {-1, 4, GH_T_TEXT}, {-1, 4, GH_T_NUMERIC}};

void
simple_scan(gh_page_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->mode = GH_PAGE_ALL_ROWS;
	s->natts = 3;
	for (int a = 0; a < 3; a++)
	{
		s->col[a].attlen = D3[a].attlen;
		s->col[a].attalign = D3[a].attalign;
		s->col[a].type = D3[a].type;
	}
	s->nkeys = 1;
	s->key[0].col = 0;
	s->key[0].conv = 1;
	s->key[0].width = 32;
}

vector<cell>
row3(int k, vstore text_store = V_AUTO)
{
	vector<cell> r(3);

	r[0].v.null = false;
	r[0].v.i = k;
	r[1].v.null = false;
	r[1].v.s = "some text";
	r[1].st = text_store;
	r[2].v.null = false;
	r[2].v.n.m = 12345;
	r[2].v.n.scale = 2;
	r[2].v.n.dscale = 2;
	return r;
}

/* A page of three good rows. */
page
good_page()
{
	page		p;

	for (int i = 0; i < 3; i++)
		p.add(1, heap_tuple(D3, row3(i), 3, 0, 7));
	return p;
}

struct outcome
{
	gh_status	st;
	vector<uint8_t> refused;
	size_t		n;
};

/* Walks good, bad, good (the bad one all-visible or with vis). */
outcome
walk3(const gh_page_scan *s, const page &bad, uint16_t maxoff, const vector<uint16_t> &vis,
	  bool listed)
{
	page		g = good_page();
	vector<uint8_t> data(3 * GH_PAGE_SIZE);
	gh_page_ref refs[3];
	gh_page_match out[3 * GH_PAGE_MAX_TUPLES];
	gh_page_stats stats;
	outcome		o;

	memcpy(&data[0], g.b.data(), GH_PAGE_SIZE);
	memcpy(&data[GH_PAGE_SIZE], bad.b.data(), GH_PAGE_SIZE);
	memcpy(&data[2 * GH_PAGE_SIZE], g.b.data(), GH_PAGE_SIZE);
	for (int i = 0; i < 3; i++)
	{
		refs[i].offset = (uint64_t) i * GH_PAGE_SIZE;
		refs[i].vis_start = 0;
		refs[i].nvis = GH_PAGE_ALL_VISIBLE;
		refs[i].maxoff = 3;
	}
	refs[1].maxoff = maxoff;
	if (listed)
		refs[1].nvis = (uint16_t) vis.size();
	o.refused.assign(3, 9);
	o.n = 0;
	o.st = gh_page_probe(nullptr, s, refs, 3, data.data(), data.size(), vis.data(),
						 (uint32_t) vis.size(), out, 3 * GH_PAGE_MAX_TUPLES, &o.n,
						 o.refused.data(), &stats);
	return o;
}

void
malformed_pages()
{
	gh_page_scan *s = new gh_page_scan;
	struct bad_case
	{
		const char *name;
		std::function<void(page &)> spoil;
		uint16_t	maxoff;
		vector<uint16_t> vis;
		bool		listed;
		bool		refuse;
	};
	auto		tuple_at = [](page &p, int lp) {
		return (size_t) ((p.b[24 + 4 * (lp - 1)] | (p.b[25 + 4 * (lp - 1)] << 8)) & 0x7FFF);
	};
	vector<bad_case> cases = {
		{"a good page", [](page &) {}, 3, {}, false, false},
		{"a good page, listed", [](page &) {}, 3, {1, 3}, true, false},
		{"pd_lower below the header", [](page &p) {put16(p.b, 12, 20);}, 3, {}, false, true},
		{"pd_upper past pd_special", [](page &p) {put16(p.b, 16, 100);}, 3, {}, false, true},
		{"pd_lower not on a line pointer", [](page &p) {put16(p.b, 12, 37);}, 3, {}, false, true},
		{"maxoff past the line pointers", [](page &) {}, 4, {}, false, true},
		{"a tuple past the page's end", [](page &p) {put32(p.b, 24, 8180 | (1u << 15) | (40u << 17));}, 3, {}, false, true},
		{"a tuple shorter than its header", [](page &p) {put32(p.b, 24, 8000 | (1u << 15) | (20u << 17));}, 3, {}, false, true},
		{"a tuple over the line pointers", [](page &p) {put32(p.b, 24, 24 | (1u << 15) | (40u << 17));}, 3, {}, false, true},
		{"t_hoff below the header", [&](page &p) {p.b[tuple_at(p, 2) + 22] = 16;}, 3, {}, false, true},
		{"t_hoff not maxaligned", [&](page &p) {p.b[tuple_at(p, 2) + 22] = 25;}, 3, {}, false, true},
		{"t_hoff past the tuple", [&](page &p) {p.b[tuple_at(p, 2) + 22] = 200;}, 3, {}, false, true},
		{"a null bitmap past t_hoff", [&](page &p) {
			size_t t = tuple_at(p, 2);
			put16(p.b, t + 18, 200); put16(p.b, t + 20, 3);}, 3, {}, false, true},
		{"a varlena past the tuple", [&](page &p) {p.b[tuple_at(p, 2) + 24 + 4] = 0xF1;}, 3, {}, false, true},
		{"an unsorted visible list", [](page &) {}, 3, {3, 1}, true, true},
		{"a repeated visible offset", [](page &) {}, 3, {2, 2}, true, true},
		{"a visible offset past the page", [](page &) {}, 3, {1, 5}, true, true},
		{"a dead item listed visible", [](page &p) {put32(p.b, 28, 3u << 15);}, 3, {1, 2}, true, true},
		{"a dead item, all visible", [](page &p) {put32(p.b, 28, 3u << 15);}, 3, {}, false, false},
		{"a new page", [](page &p) {p.b.assign(GH_PAGE_SIZE, 0);}, 0, {}, false, false},
		{"a new page with a tuple seen", [](page &p) {p.b.assign(GH_PAGE_SIZE, 0);}, 1, {}, false, true},
	};

	simple_scan(s);
	for (const bad_case &bc : cases)
	{
		page		p = good_page();

		bc.spoil(p);

		outcome		o = walk3(s, p, bc.maxoff, bc.vis, bc.listed);

		BCHECK(o.st == GH_OK && o.refused[0] == 0 && o.refused[2] == 0 && o.refused[1] == bc.refuse,
			   "malformed page, %s: status %d refused %d %d %d", bc.name, o.st, o.refused[0],
			   o.refused[1], o.refused[2]);
	}

	/* needed values stored compressed or out of line; walked over if not needed */
	for (vstore st : {V_COMPRESSED, V_EXTERNAL})
	{
		page		p;

		p.add(1, heap_tuple(D3, row3(1), 3, 0, 7));
		p.add(1, heap_tuple(D3, row3(2, st), 3, 0, 7));
		simple_scan(s);

		outcome		o = walk3(s, p, 2, {}, false);

		BCHECK(o.st == GH_OK && o.refused[1] == 1 && o.n == 6, "a needed %s value: not refused",
			   st == V_COMPRESSED ? "compressed" : "external");
		s->col[1].type = GH_T_SKIP;
		o = walk3(s, p, 2, {}, false);
		BCHECK(o.st == GH_OK && o.refused[1] == 0 && o.n == 8, "an unneeded %s value: refused",
			   st == V_COMPRESSED ? "compressed" : "external");
	}

	/* a request whose pages or lists lie outside its data */
	{
		vector<uint8_t> data(GH_PAGE_SIZE);
		gh_page_ref ref = {1, 0, GH_PAGE_ALL_VISIBLE, 0};
		uint16_t	vis[2] = {1, 2};
		uint8_t		refused;
		size_t		n;

		simple_scan(s);
		BCHECK(gh_page_probe(nullptr, s, &ref, 1, data.data(), data.size(), nullptr, 0, nullptr, 0,
							 &n, &refused, nullptr) == GH_ERR_INVALID, "a page outside the data");
		ref.offset = 0;
		ref.vis_start = 1;
		ref.nvis = 2;
		BCHECK(gh_page_probe(nullptr, s, &ref, 1, data.data(), data.size(), vis, 2, nullptr, 0,
							 &n, &refused, nullptr) == GH_ERR_INVALID, "a visible list outside");
	}
	delete s;
}

/* Programs gh_page_scan_check must reject, each a spoiled good one. */
void
bad_programs()
{
	gh_page_scan *s = new gh_page_scan;
	auto		text_const = [](gh_page_scan *p, const char *txt) {
		uint32_t	off = (p->pool_bytes + 7) & ~7U,
					n = (uint32_t) strlen(txt);

		memcpy(p->pool + off, &n, 4);
		memcpy(p->pool + off + 4, txt, n);
		p->pool_bytes = off + 4 + n;
		return off;
	};
	auto		ins = [](gh_page_scan *p, uint8_t op, uint8_t b, uint8_t c, uint32_t a) {
		gh_qinsn	in = {op, b, c, 0, a};

		p->insn[p->ninsns++] = in;
	};
	struct bad_prog
	{
		const char *name;
		std::function<void(gh_page_scan *)> spoil;
	};
	vector<bad_prog> progs = {
		{"natts over the maximum", [](gh_page_scan *p) {p->natts = GH_PAGE_MAX_ATTS + 1;}},
		{"attalign 3", [](gh_page_scan *p) {p->col[0].attalign = 3;}},
		{"attlen of the wrong type", [](gh_page_scan *p) {p->col[0].attlen = 8;}},
		{"a by-value default of a varlena", [](gh_page_scan *p) {p->col[1].missing = GH_MISSING_VALUE;}},
		{"a key on a text column", [](gh_page_scan *p) {p->key[0].col = 1;}},
		{"keys wider than 64 bits", [](gh_page_scan *p) {
			p->nkeys = 3; p->key[1] = p->key[0]; p->key[2] = p->key[0];}},
		{"a key of width 64 among several", [](gh_page_scan *p) {
			p->nkeys = 2; p->key[1] = p->key[0]; p->key[0].width = 64;}},
		{"an unknown op", [&](gh_page_scan *p) {ins(p, 200, 0, 0, 0);}},
		{"a stack too deep", [&](gh_page_scan *p) {
			for (int i = 0; i < 17; i++) ins(p, GH_Q_NULL, 0, 0, 0);
			ins(p, GH_Q_AND, 0, 0, 17);}},
		{"int against text", [&](gh_page_scan *p) {
			ins(p, GH_Q_COL, 0, 0, 0); ins(p, GH_Q_COL, 0, 0, 1); ins(p, GH_Q_CMP, GH_M_INT, GH_EQ, 0);}},
		{"numeric compared as int", [&](gh_page_scan *p) {
			ins(p, GH_Q_COL, 0, 0, 2); ins(p, GH_Q_COL, 0, 0, 2); ins(p, GH_Q_CMP, GH_M_INT, GH_EQ, 0);}},
		{"a skipped column", [&](gh_page_scan *p) {
			p->col[2].type = GH_T_SKIP; ins(p, GH_Q_COL, 0, 0, 2); ins(p, GH_Q_IS_NULL, 0, 0, 0);}},
		{"a LIKE pattern ending in its escape", [&](gh_page_scan *p) {
			uint32_t off = text_const(p, "ab\\");
			ins(p, GH_Q_COL, 0, 0, 1); ins(p, GH_Q_LIKE, 0, 0, off);}},
		{"a constant outside the pool", [&](gh_page_scan *p) {
			ins(p, GH_Q_CONST, GH_T_INT4, 0, 8190); ins(p, GH_Q_IS_NULL, 0, 0, 0);}},
		{"an IN list longer than the pool", [&](gh_page_scan *p) {
			uint32_t off = text_const(p, "xxxxxxxx");
			uint32_t n = 1000; memcpy(p->pool + off, &n, 4);
			ins(p, GH_Q_COL, 0, 0, 0); ins(p, GH_Q_IN, GH_M_INT, 0, off);}},
		{"two values left", [&](gh_page_scan *p) {
			ins(p, GH_Q_COL, 0, 0, 0); ins(p, GH_Q_IS_NULL, 0, 0, 0); ins(p, GH_Q_COL, 0, 0, 0);
			ins(p, GH_Q_IS_NULL, 0, 0, 0);}},
		{"an AND of none", [&](gh_page_scan *p) {
			ins(p, GH_Q_COL, 0, 0, 0); ins(p, GH_Q_IS_NULL, 0, 0, 0); ins(p, GH_Q_AND, 0, 0, 0);}},
		{"an int leaving the program", [&](gh_page_scan *p) {ins(p, GH_Q_COL, 0, 0, 0);}},
		{"a date times an int", [&](gh_page_scan *p) {
			p->col[0].type = GH_T_DATE; ins(p, GH_Q_COL, 0, 0, 0); ins(p, GH_Q_COL, 0, 0, 0);
			ins(p, GH_Q_MUL, GH_M_DATE_INT, 0, 0); ins(p, GH_Q_IS_NULL, 0, 0, 0);}},
		{"an unknown mode", [](gh_page_scan *p) {p->mode = 7;}},
		{"int4 + int4 in int8's mode", [&](gh_page_scan *p) {
			ins(p, GH_Q_COL, 0, 0, 0); ins(p, GH_Q_COL, 0, 0, 0); ins(p, GH_Q_ADD, GH_M_INT8, 0, 0);
			ins(p, GH_Q_IS_NULL, 0, 0, 0);}},
	};

	simple_scan(s);
	BCHECK(gh_page_scan_check(s) == GH_OK, "the good program: %s", gh_last_error());
	for (const bad_prog &bp : progs)
	{
		simple_scan(s);
		bp.spoil(s);
		BCHECK(gh_page_scan_check(s) == GH_ERR_INVALID, "program with %s: taken", bp.name);
	}
	delete s;
}

void
partitioned_refused(int gpus)
{
	gh_build_options opt;
	gh_table   *t = nullptr;
	uint64_t	keys[4] = {1, 2, 3, 4};
	int			ordinals[2] = {0, 0};
	gh_page_scan *s = new gh_page_scan;
	uint8_t		refused;
	size_t		n;
	vector<uint8_t> data(GH_PAGE_SIZE);
	gh_page_ref ref = {0, 0, GH_PAGE_ALL_VISIBLE, 0};

	(void) gpus;
	gh_default_options(&opt);
	simple_scan(s);
	BCHECK(gh_build_partitioned(&opt, ordinals, 2, keys, 4, &t) == GH_OK, "partitioned build");
	if (t)
	{
		BCHECK(gh_page_probe(t, s, &ref, 1, data.data(), data.size(), nullptr, 0, nullptr, 0, &n,
							 &refused, nullptr) == GH_ERR_INVALID &&
			   strstr(gh_last_error(), "single tables"), "a partitioned table was walked");
		gh_free(t);
	}
	delete s;
}

/*
 * A GPU table whose budget holds the table but not a walk's scratch: the
 * walk fails cleanly (GH_ERR_GPU_MEMORY) and the table still probes.
 */
void
gpu_budget(int gpus)
{
	if (gpus == 0)
		return;

	gh_build_options opt;
	gh_table   *t = nullptr;
	gh_table_info info;
	vector<uint64_t> keys(1000);
	gh_page_scan *s = new gh_page_scan;
	page		g = good_page();
	vector<uint8_t> data;
	vector<gh_page_ref> refs;
	vector<uint8_t> refused(64);
	vector<gh_page_match> out(64 * 3);
	size_t		n;

	for (size_t i = 0; i < keys.size(); i++)
		keys[i] = i;
	for (int p = 0; p < 64; p++)
	{
		data.insert(data.end(), g.b.begin(), g.b.end());
		refs.push_back({(uint64_t) p * GH_PAGE_SIZE, 0, GH_PAGE_ALL_VISIBLE, 3});
	}
	gh_default_options(&opt);
	opt.device = GH_DEVICE_GPU;
	simple_scan(s);
	s->mode = GH_PAGE_MATCHES;
	BCHECK(gh_build(&opt, keys.data(), nullptr, 4, keys.size(), &t) == GH_OK, "GPU build");
	if (!t)
		return;
	gh_table_get_info(t, &info);
	gh_free(t);
	t = nullptr;
	opt.max_device_bytes = info.device_bytes + (256 << 10);
	BCHECK(gh_build(&opt, keys.data(), nullptr, 4, keys.size(), &t) == GH_OK, "GPU build in a budget");
	if (!t)
		return;

	gh_status	st = gh_page_probe(t, s, refs.data(), 64, data.data(), data.size(), nullptr, 0,
								   out.data(), out.size(), &n, refused.data(), nullptr);

	BCHECK(st == GH_ERR_GPU_MEMORY, "a walk past the table's budget: status %d (%s)", st,
		   gh_last_error());

	uint64_t	k = 2,
				total = 0;
	gh_range	r;

	BCHECK(gh_probe_ranges(t, &k, 1, &r, &total) == GH_OK && total == 1,
		   "the table after a failed walk: %s", gh_last_error());
	st = gh_page_probe(t, s, refs.data(), 1, data.data(), GH_PAGE_SIZE, nullptr, 0, out.data(),
					   out.size(), &n, refused.data(), nullptr);
	BCHECK(st == GH_OK && n == 3, "one page within the budget: status %d, %zu records", st, n);
	gh_free(t);
	delete s;
}

}								/* namespace */

void
test_page_malformed(int gpus, int *checks, int *failures)
{
	n_checks = checks;
	n_failures = failures;
	malformed_pages();
	bad_programs();
	partitioned_refused(gpus);
	gpu_budget(gpus);
	printf("page walk: malformed pages refused, bad programs rejected, partitioned tables refused: %s\n",
		   "checked");
}
