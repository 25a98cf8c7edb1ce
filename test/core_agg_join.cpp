/*
 * core_agg_join.cpp
 *		core_test's checks of the aggregate over a join (gh_agg_dim_*,
 *		gh_page_agg_join_mapped) and of conditions and constants in any
 *		aggregation program: agg_gen.h's heap pages joined to generated
 *		dimensions (unique keys, duplicate keys, keys the pages lack, a hot
 *		key of many rows, none at all) with inner columns of every
 *		by-value and by-reference kind and NULLs; group keys on inner
 *		columns (text, bpchar) and on both sides; random join quals and
 *		conditions over both sides (page_gen.h's program builder: AND, OR,
 *		NOT, IN lists, LIKE, arithmetic that overflows and refuses a page);
 *		all-visible and listed pages.  Each result is compared with a nested
 *		loop over the rows' logical values (agg_ref.h's exact fold); on a
 *		GPU, the GPU's group set with the host twin's, bit for bit.
 */
#include "gpuhash_agg.h"
#include "table_internal.h"
#include "agg_gen.h"
#include "agg_ref.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <map>
#include <stdio.h>
#include <string.h>
#include <vector>

using namespace pagetest;
using namespace aggtest;
using namespace aggref;
using std::vector;

namespace
{

#define JCHECK(cond, ...) RCHECK(cond, __VA_ARGS__)

/* the dimension's columns */
enum
{
	J_CAT = 0, J_DATE, J_NUM, J_TXT, J_BPC, J_I8, J_F8, NIN
};
const uint8_t ITYPE[NIN] = {GH_T_INT4, GH_T_DATE, GH_T_NUMERIC, GH_T_TEXT, GH_T_BPCHAR,
GH_T_INT8, GH_T_FLOAT8};

#define IC(j) (GH_AGG_INNER_COL0 + (j))
const int	NREF = GH_AGG_INNER_COL0 + NIN;	/* a joined row's column indices */

uint8_t
col_type(int c)
{
	return c >= GH_AGG_INNER_COL0 ? ITYPE[c - GH_AGG_INNER_COL0] : ADESC[c].type;
}

struct dim_opts
{
	double		miss_p = 0.3;	/* a key of the pages with no inner row */
	int			max_dup = 1;	/* rows per key: 1 .. max_dup */
	int			hot_dup = 0;	/* key 0's rows, when > 0 */
	bool		empty = false;
	double		null_p = 0.1;
	double		long_txt_p = 0.0;	/* a text value too wide for a text key */
	bool		huge = false;	/* key 1's first row: a text of 70 000 bytes, more
								 * than a walker's value holds */
};

struct dim_rows
{
	vector<uint64_t> keys;
	vector<vector<lval>> vals;
	/* as the extension hands them over */
	vector<gh_agg_inval> in;
	vector<uint8_t> heap;
};

/*
 * The dimension's rows: for each key of the pages' g1 (-3 .. groups - 4),
 * or each of keys when given (packed keys of two columns), unless missed.
 */
dim_rows
make_dim(const dim_opts &o, int groups, uint64_t seed, const vector<uint64_t> *keys = nullptr)
{
	prng		r{seed};
	dim_rows	d;
	vector<std::pair<uint64_t, vector<lval>>> rows;
	vector<uint64_t> ks;

	for (int k = -3; k < groups - 3 && !keys; k++)
		ks.push_back((uint64_t) (int64_t) (int32_t) k);
	if (keys)
		ks = *keys;
	for (size_t ki = 0; ki < ks.size() && !o.empty; ki++)
	{
		int64_t		k = (int64_t) ks[ki];

		if (r.chance(o.miss_p))
			continue;

		int			n = k == 0 && o.hot_dup > 0 ? o.hot_dup : 1 + (int) r.below(o.max_dup);

		for (int i = 0; i < n; i++)
		{
			vector<lval> v(NIN);
			auto		nul = [&]() { return r.chance(o.null_p); };

			v[J_CAT] = nul() ? null_v() : int_v((int64_t) r.below(5));
			v[J_DATE] = nul() ? null_v() : int_v((int64_t) r.below(20000) - 10000);
			if (nul())
				v[J_NUM] = null_v();
			else if (r.chance(0.02))
				v[J_NUM] = num_v(2, 0, 0, 0);
			else
			{
				int			sc = (int) r.below(5);

				v[J_NUM] = num_v(0, (int64_t) r.below(20000000) - 10000000, sc, sc + (int) r.below(2));
			}
			v[J_TXT] = nul() ? null_v() : r.chance(o.long_txt_p) ? str_v("a long text value")
				: str_v(vector<std::string>{"a", "a ", "bb", "", "xyz", "a%b"}[r.below(6)]);
			if (o.huge && k == 1 && i == 0)
				v[J_TXT] = str_v(std::string(70000, 'x'));
			v[J_BPC] = nul() ? null_v() : str_v(vector<std::string>{"x", "x  ", "yy", "z z"}[r.below(4)]);
			v[J_I8] = nul() ? null_v() : int_v((int64_t) (r.next() >> 20) - (INT64_C(1) << 43));
			v[J_F8] = nul() ? null_v() : float_v((double) ((int64_t) r.below(1u << 20) - (1 << 19)) / 64);
			rows.push_back({ks[ki], v});
		}
	}
	/* positions in no key order */
	for (size_t i = rows.size(); i > 1; i--)
		std::swap(rows[i - 1], rows[r.below(i)]);
	for (auto &kv : rows)
	{
		d.keys.push_back(kv.first);
		d.vals.push_back(kv.second);
		for (int j = 0; j < NIN; j++)
		{
			const lval &v = kv.second[j];
			gh_agg_inval iv;

			memset(&iv, 0, sizeof(iv));
			iv.null = v.null;
			if (!v.null && (ITYPE[j] == GH_T_NUMERIC || ITYPE[j] == GH_T_TEXT ||
							ITYPE[j] == GH_T_BPCHAR))
			{
				vector<uint8_t> b = ITYPE[j] == GH_T_NUMERIC ? numeric_data(v.n, r.chance(0.3))
					: vector<uint8_t>(v.s.begin(), v.s.end());

				/* unaligned on purpose now and then */
				d.heap.resize(d.heap.size() + r.below(3));
				iv.bits = d.heap.size();
				iv.len = (uint32_t) b.size();
				d.heap.insert(d.heap.end(), b.begin(), b.end());
			}
			else if (!v.null && ITYPE[j] == GH_T_FLOAT8)
				memcpy(&iv.bits, &v.f, 8);
			else if (!v.null)
				iv.bits = (uint64_t) v.i;
			d.in.push_back(iv);
		}
	}
	return d;
}

void
make_scan(gh_page_scan *s, bool qual, bool key2 = false)
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
	/* the join key: g1, an int4 */
	s->nkeys = 1;
	s->key[0] = {C_G1, 1, 32};
	if (key2)
	{
		/* (g1, i2) packed: 32 + 16 bits */
		s->nkeys = 2;
		s->key[1] = {C_I2, 0, 16};
	}
	s->pool_bytes = 8;
	if (qual)
	{
		/* i4 > 0 (the constant 0 at offset 0) */
		s->ninsns = 3;
		s->insn[0] = {GH_Q_COL, 0, 0, 0, C_I4};
		s->insn[1] = {GH_Q_CONST, GH_T_INT4, 0, 0, 0};
		s->insn[2] = {GH_Q_CMP, GH_M_INT, GH_GT, 0, 0};
	}
}

gh_agg_spec
spec(uint8_t fn, int col, uint8_t expr = GH_AGG_E_COL, int scale = 0, int col2 = 0)
{
	gh_agg_spec sp;

	memset(&sp, 0, sizeof(sp));
	sp.fn = fn;
	sp.col = (int16_t) col;
	sp.expr = expr;
	sp.scale = (uint8_t) scale;
	sp.col2 = (int16_t) col2;
	return sp;
}

gh_agg_spec
konst(uint8_t fn, int64_t k, uint8_t type)
{
	gh_agg_spec sp = spec(fn, 0, GH_AGG_E_CONST);

	sp.konst = k;
	sp.type = type;
	return sp;
}

/* A program's random predicates with the reference's view of them. */
struct preds
{
	consts		k;
	std::map<int, gh_page_scan *> range;	/* by insn start: the range alone, for ref_run */

	~preds()
	{
		clear();
	}
	void		clear()
	{
		for (auto &kv : range)
			delete kv.second;
		range.clear();
	}
	/* ref_run of range [start, +len) of p over cols: 1, 0, or 2 (an error) */
	int			run(const gh_agg_prog &p, int start, int len, const vector<lval> &cols)
	{
		if (len == 0)
			return 1;

		gh_page_scan *&rs = range[start];

		if (rs == nullptr)
		{
			rs = new gh_page_scan();
			rs->ninsns = (int16_t) len;
			memcpy(rs->insn, p.insn + start, sizeof(gh_qinsn) * len);
		}
		return ref_run(*rs, k, cols);
	}
};

/*
 * A random predicate over both sides appended to p.insn, its constants in
 * s's pool: its range in *start, *len; false when it does not fit.
 */
bool
gen_pred(gh_page_scan *s, preds &pr, prng &r, gh_agg_prog *p, bool inner, int room,
		 int16_t *start, int16_t *len)
{
	gh_page_scan *tmp = new gh_page_scan(*s);
	progbuilder pb{tmp, pr.k, r, {}};
	/* progbuilder stops growing a program 24 insns before its end */
	const int	at = GH_PAGE_MAX_INSNS - 24 - room;

	for (int c = 0; c < NCOLS; c++)
		pb.need_of[ADESC[c].type].push_back(c);
	for (int j = 0; j < NIN && inner; j++)
		pb.need_of[ITYPE[j]].push_back(IC(j));
	tmp->ninsns = at;
	pb.predicate(0);

	int			n = tmp->ninsns - at;
	bool		ok = p->ninsns + n <= GH_AGG_MAX_INSNS;

	if (ok)
	{
		*start = p->ninsns;
		*len = (int16_t) n;
		memcpy(p->insn + p->ninsns, tmp->insn + at, sizeof(gh_qinsn) * n);
		p->ninsns = (int16_t) (p->ninsns + n);
		s->pool_bytes = tmp->pool_bytes;
		memcpy(s->pool, tmp->pool, s->pool_bytes);
		pr.k = pb.k;
	}
	delete tmp;
	return ok;
}

/* What the random programs have held: each form must have come up. */
struct coverage
{
	int			like_inner = 0,
				in_inner = 0,
				cmp_both = 0,
				and_or = 0,
				nots = 0,
				arith = 0;
} cov;

void
tally(const gh_agg_prog &p)
{
	for (int i = 0; i < p.ninsns; i++)
	{
		const gh_qinsn &in = p.insn[i];
		bool		after_inner = i > 0 && p.insn[i - 1].op == GH_Q_COL &&
			p.insn[i - 1].a >= GH_AGG_INNER_COL0;

		cov.like_inner += in.op == GH_Q_LIKE && after_inner;
		cov.in_inner += in.op == GH_Q_IN && after_inner;
		cov.cmp_both += in.op == GH_Q_CMP && i > 1 && p.insn[i - 1].op == GH_Q_COL &&
			p.insn[i - 2].op == GH_Q_COL &&
			(p.insn[i - 1].a >= GH_AGG_INNER_COL0) != (p.insn[i - 2].a >= GH_AGG_INNER_COL0);
		cov.and_or += in.op == GH_Q_AND || in.op == GH_Q_OR;
		cov.nots += in.op == GH_Q_NOT;
		cov.arith += in.op == GH_Q_ADD || in.op == GH_Q_SUB || in.op == GH_Q_MUL;
	}
}

/* Which aggregates get a condition, and its else value. */
const int	COND_AGG[] = {7, 8, 9, 11, 12, 13, 15};
const uint8_t COND_ELSE[] = {GH_AGG_ELSE_ZERO, GH_AGG_ELSE_ZERO, GH_AGG_ELSE_NULL,
GH_AGG_ELSE_NULL, GH_AGG_ELSE_ZERO, GH_AGG_ELSE_ZERO, GH_AGG_ELSE_ZERO};

/*
 * The programs of the hand-written case: the join qual
 *	(i.cat IN (1, 3, NULL) OR NOT i.txt LIKE 'a%') AND o.i2 >= i.cat
 * and conditions: o.i8 * 1060000 > 0 (int8 overflow on a few rows: their
 * pages refused), i.txt IS NULL, i.num > o.price, i.bpc = o.flag.
 */
void
hand_programs(gh_page_scan *s, preds &pr, gh_agg_prog *p)
{
	const int64_t m = 1060000,
				one = 1,
				three = 3;
	const uint32_t two = 2,
				has_null = 1;

	s->pool_bytes = 46;
	memcpy(s->pool + 8, &m, 8);
	memcpy(s->pool + 16, &two, 4);
	memcpy(s->pool + 20, &has_null, 4);
	memcpy(s->pool + 24, &one, 8);
	memcpy(s->pool + 32, &three, 8);
	memcpy(s->pool + 40, &two, 4);
	memcpy(s->pool + 44, "a%", 2);
	pr.k.value[0] = int_v(0);
	pr.k.value[8] = int_v(m);
	pr.k.list[16] = {{int_v(1), int_v(3)}, true};
	pr.k.pattern[40] = "a%";

	const gh_qinsn in[] = {
		{GH_Q_COL, 0, 0, 0, IC(J_CAT)}, {GH_Q_IN, GH_M_INT, 0, 0, 16},
		{GH_Q_COL, 0, 0, 0, IC(J_TXT)}, {GH_Q_LIKE, 1, 0, 0, 40}, {GH_Q_NOT, 0, 0, 0, 0},
		{GH_Q_OR, 0, 0, 0, 2}, {GH_Q_COL, 0, 0, 0, C_I2}, {GH_Q_COL, 0, 0, 0, IC(J_CAT)},
		{GH_Q_CMP, GH_M_INT, GH_GE, 0, 0}, {GH_Q_AND, 0, 0, 0, 2},
		/* 10: conditions */
		{GH_Q_COL, 0, 0, 0, C_I8}, {GH_Q_CONST, GH_T_INT8, 0, 0, 8}, {GH_Q_MUL, GH_M_INT8, 0, 0, 0},
		{GH_Q_CONST, GH_T_INT8, 0, 0, 0}, {GH_Q_CMP, GH_M_INT, GH_GT, 0, 0},
		{GH_Q_COL, 0, 0, 0, IC(J_TXT)}, {GH_Q_IS_NULL, 0, 0, 0, 0},
		{GH_Q_COL, 0, 0, 0, IC(J_NUM)}, {GH_Q_COL, 0, 0, 0, C_PRICE},
		{GH_Q_CMP, GH_M_NUMERIC, GH_GT, 0, 0},
		{GH_Q_COL, 0, 0, 0, IC(J_BPC)}, {GH_Q_COL, 0, 0, 0, C_FLAG},
		{GH_Q_CMP, GH_M_BPCHAR, GH_EQ, 0, 0}
	};
	const int	cond_agg[] = {7, 8, 9, 11},
				cond_start[] = {10, 15, 17, 20},
				cond_len[] = {5, 2, 3, 3};

	p->ninsns = (int16_t) (sizeof(in) / sizeof(in[0]));
	memcpy(p->insn, in, sizeof(in));
	p->join.jq_start = 0;
	p->join.jq_len = 10;
	for (int i = 0; i < 4; i++)
	{
		gh_agg_spec &sp = p->agg[cond_agg[i]];

		sp.cond_start = (int16_t) cond_start[i];
		sp.cond_len = (int16_t) cond_len[i];
		sp.else_kind = COND_ELSE[i];
	}
}

enum
{
	K_NONE = 0, K_INNER_INT, K_INNER_BPCHAR_OUTER_BPCHAR, K_INNER_TEXT_OUTER_INT, K_OUTER
};

/* The aggregates of a join case: inner and outer operands, conditions, constants. */
void
make_prog(gh_agg_prog *p, int keys, bool join)
{
	memset(p, 0, sizeof(*p));
	if (join)
	{
		p->join.ninner = NIN;
		memcpy(p->join.inner_type, ITYPE, NIN);
	}

	int			i = 0;

	p->agg[i++] = spec(GH_AGG_COUNT_STAR, 0);
	p->agg[i++] = spec(GH_AGG_SUM, C_I4);
	p->agg[i++] = spec(GH_AGG_SUM, join ? IC(J_NUM) : C_N, GH_AGG_E_COL, 6);
	p->agg[i++] = spec(GH_AGG_COUNT, join ? IC(J_TXT) : C_TXT);
	p->agg[i++] = spec(GH_AGG_MIN, join ? IC(J_DATE) : C_D);
	p->agg[i++] = spec(GH_AGG_MAX, join ? IC(J_I8) : C_I8);
	p->agg[i++] = spec(GH_AGG_SUM, join ? IC(J_F8) : C_F8);
	p->agg[i++] = konst(GH_AGG_SUM, 1, GH_T_INT4);	/* conditioned below */
	p->agg[i++] = spec(GH_AGG_SUM, C_N, GH_AGG_E_COL, 6);
	p->agg[i++] = spec(GH_AGG_AVG, join ? IC(J_NUM) : C_N, GH_AGG_E_COL, 6);
	p->agg[i++] = spec(GH_AGG_SUM, C_PRICE, GH_AGG_E_MUL, 10, join ? IC(J_NUM) : C_DISC);
	p->agg[i++] = konst(GH_AGG_COUNT, 1, GH_T_INT4);
	p->agg[i++] = spec(GH_AGG_SUM, C_F4);
	p->agg[i++] = spec(GH_AGG_MIN, C_I8);
	p->agg[i++] = konst(GH_AGG_SUM, -7, GH_T_INT8);
	p->agg[i++] = spec(GH_AGG_AVG, join ? IC(J_CAT) : C_I2);
	p->naggs = (int16_t) i;

	switch (keys)
	{
		case K_INNER_INT:
			p->nkeys = 1;
			p->key[0] = {IC(J_CAT), 1, 32};
			break;
		case K_INNER_BPCHAR_OUTER_BPCHAR:
			p->nkeys = 2;
			p->key[0] = {IC(J_BPC), GH_AGG_KEY_BPCHAR, 24};
			p->key[1] = {C_FLAG, GH_AGG_KEY_BPCHAR, 8};
			break;
		case K_INNER_TEXT_OUTER_INT:
			p->nkeys = 2;
			p->key[0] = {IC(J_TXT), GH_AGG_KEY_TEXT, 32};
			p->key[1] = {C_G1, 1, 32};
			break;
		case K_OUTER:
			p->nkeys = 1;
			p->key[0] = {C_G1, 1, 32};
			break;
		default:
			break;
	}
}

struct expect
{
	ref_groups	g;
	vector<uint8_t> refused;
	uint64_t	tuples = 0,
				pairs = 0;
};

/* The visible rows of each page: all, or the listed offsets. */
struct pages
{
	vector<gh_page_ref> refs;
	vector<uint16_t> visible;
	vector<vector<int>> rows;	/* per page: its visible rows */
};

pages
make_pages(const dataset &ds, double listed_p, uint64_t seed)
{
	prng		r{seed};
	pages		pg;
	vector<vector<int>> on(ds.n_pages);

	for (size_t i = 0; i < ds.rows.size(); i++)
		on[ds.row_page[i]].push_back((int) i);
	pg.refs = ds.refs;
	pg.rows.resize(ds.n_pages);
	for (uint32_t p = 0; p < ds.n_pages; p++)
	{
		if (!r.chance(listed_p))
		{
			pg.rows[p] = on[p];
			continue;
		}
		pg.refs[p].vis_start = (uint32_t) pg.visible.size();
		for (size_t lp = 0; lp < on[p].size(); lp++)
			if (r.chance(0.6))
			{
				pg.visible.push_back((uint16_t) (lp + 1));
				pg.rows[p].push_back(on[p][lp]);
			}
		pg.refs[p].nvis = (uint16_t) (pg.visible.size() - pg.refs[p].vis_start);
	}
	return pg;
}

/*
 * The nested loop: every visible row that passes the scan's qual, joined
 * to the dimension's rows of its key (dim NULL: no join, each row once),
 * the join qual, the conditions, the group key and the fold; a page where
 * anything raises an error (or a key does not fit) is refused whole.
 */
expect
reference(const gh_page_scan &sc, const dataset &ds, const pages &pg, bool qual,
		  const dim_rows *dim, const gh_agg_prog &p, preds &pr)
{
	expect		e;
	std::multimap<uint64_t, int> by_key;

	if (dim)
		for (size_t i = 0; i < dim->keys.size(); i++)
			by_key.insert({dim->keys[i], (int) i});
	e.refused.assign(ds.n_pages, 0);
	for (uint32_t pi = 0; pi < ds.n_pages; pi++)
	{
		vector<std::pair<vector<cell>, vector<bool>>> pairs;
		bool		refuse = false;

		for (int ri : pg.rows[pi])
		{
			const vector<cell> &row = ds.rows[ri];

			if (qual && (row[C_I4].v.null || row[C_I4].v.i <= 0))
				continue;

			vector<int> inner;

			if (!dim)
				inner.push_back(-1);
			else
			{
				vector<lval> oc(NCOLS);
				uint64_t	key;

				for (int c2 = 0; c2 < NCOLS; c2++)
					oc[c2] = row[c2].v;
				if (ref_key(sc, oc, &key))
				{
					auto		rg = by_key.equal_range(key);

					for (auto it = rg.first; it != rg.second; ++it)
						inner.push_back(it->second);
				}
			}
			for (int ii : inner)
			{
				vector<cell> jr(NREF);
				vector<lval> cols(NREF);

				for (int c = 0; c < NCOLS; c++)
					jr[c] = row[c];
				for (int j = 0; j < NIN && ii >= 0; j++)
					jr[IC(j)].v = dim->vals[ii][j];
				for (int c = 0; c < NREF; c++)
					cols[c] = jr[c].v;

				/* a value longer than a walker's value refuses the page */
				for (int j = 0; j < NIN && ii >= 0; j++)
					refuse |= !jr[IC(j)].v.null && jr[IC(j)].v.s.size() > 0xFFFF;

				int			q = pr.run(p, p.join.jq_start, p.join.jq_len, cols);
				gkey		k;
				vector<bool> ct(p.naggs, true);

				refuse |= q == 2;
				if (q != 1)
					continue;
				refuse |= !ref_group_key(p, jr, &k);
				for (int a = 0; a < p.naggs; a++)
					if (p.agg[a].cond_len > 0)
					{
						int			c = pr.run(p, p.agg[a].cond_start, p.agg[a].cond_len, cols);

						refuse |= c == 2;
						ct[a] = c == 1;
					}
				pairs.push_back({jr, ct});
			}
		}
		if (refuse)
		{
			e.refused[pi] = 1;
			continue;
		}
		e.tuples += pg.rows[pi].size();
		e.pairs += pairs.size();
		for (auto &pc : pairs)
		{
			gkey		k;

			ref_group_key(p, pc.first, &k);

			vector<ref_state> &s = e.g[k];

			s.resize(p.naggs);
			for (int a = 0; a < p.naggs; a++)
				ref_fold(p.agg[a], in_type(p.agg[a], col_type), s[a], pc.first, pc.second[a]);
		}
	}
	return e;
}

gh_status
run(int dev, const gh_page_scan &s, const gh_agg_prog &p, const gh_agg_dim *dim, const pages &pg,
	const uint8_t *data, size_t bytes, uint64_t max_groups, gh_agg_groups *out,
	vector<uint8_t> &refused, gh_agg_stats *st)
{
	gh_agg_groups_init(out, &p, max_groups);
	refused.assign(pg.refs.size(), 0);
	if (dim)
		return gh_page_agg_join_mapped(dev, &s, &p, dim, pg.refs.data(), (uint32_t) pg.refs.size(),
									   data, bytes, pg.visible.data(),
									   (uint32_t) pg.visible.size(), refused.data(), out, st);
	return gh_page_agg(dev, &s, &p, pg.refs.data(), (uint32_t) pg.refs.size(), data, bytes,
					   pg.visible.data(), (uint32_t) pg.visible.size(), refused.data(), out, st);
}

struct jcase
{
	const char *tag;
	options		o;
	dim_opts	d;
	bool		join = true;
	bool		qual = false;
	int			keys = K_NONE;
	bool		join_qual = false;
	bool		conds = false;
	double		listed_p = 0;
	uint64_t	seed = 1;
	bool		some_refused = false;	/* the case must refuse some pages, not all */
	bool		hand = false;	/* hand_programs */
	bool		key2 = false;	/* a join key of two columns */
};

void
run_case(const jcase &c, int gpus)
{
	double		t0 = gh_now_ms();
	dataset		ds = make_data(c.o, c.seed);
	vector<uint64_t> key2s;

	if (c.key2)
	{
		/* packed keys of some of the pages' rows, and some no row has */
		gh_page_scan *k2 = new gh_page_scan();
		prng		kr{c.seed};

		make_scan(k2, false, true);
		for (const vector<cell> &row : ds.rows)
		{
			vector<lval> oc(NCOLS);
			uint64_t	key;

			for (int c2 = 0; c2 < NCOLS; c2++)
				oc[c2] = row[c2].v;
			if (kr.chance(0.05) && ref_key(*k2, oc, &key) &&
				std::find(key2s.begin(), key2s.end(), key) == key2s.end())
				key2s.push_back(key);
		}
		for (int i = 0; i < 20; i++)
			key2s.push_back(kr.next());
		delete k2;
	}

	dim_rows	dr = make_dim(c.d, c.o.groups, c.seed * 31 + 7, c.key2 ? &key2s : nullptr);
	pages		pg = make_pages(ds, c.listed_p, c.seed * 17 + 3);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	preds		pr;
	prng		r{c.seed * 1009 + 11};

	make_scan(s, c.qual, c.key2);
	make_prog(&p, c.keys, c.join);

	/*
	 * Random programs: one the check takes, and which neither passes nor
	 * refuses (an overflow on every page) nearly everything, so that the
	 * case folds something.
	 */
	expect		want;
	const int	attempts = c.join_qual || c.conds ? 40 : 1;

	const gh_agg_prog p0 = p;
	gh_page_scan *s0 = new gh_page_scan(*s);

	for (int attempt = 0; attempt < attempts; attempt++)
	{
		gh_agg_prog q = p0;
		gh_page_scan *sc = new gh_page_scan(*s0);
		bool		ok = true;

		pr.k = consts();
		pr.clear();
		if (c.join_qual)
			ok &= gen_pred(sc, pr, r, &q, c.join, 24, &q.join.jq_start, &q.join.jq_len);
		for (size_t i = 0; i < sizeof(COND_AGG) / sizeof(COND_AGG[0]) && c.conds && ok; i++)
		{
			gh_agg_spec &sp = q.agg[COND_AGG[i]];

			sp.else_kind = COND_ELSE[i];
			ok &= gen_pred(sc, pr, r, &q, c.join, 6, &sp.cond_start, &sp.cond_len);
		}
		if (!ok || gh_agg_prog_check(sc, &q) != GH_OK)
		{
			if (getenv("JDEBUG"))
				fprintf(stderr, "attempt %d: %s\n", attempt, ok ? gh_last_error() : "too long");
			delete sc;
			continue;
		}
		want = reference(*sc, ds, pg, c.qual, c.join ? &dr : nullptr, q, pr);
		p = q;
		*s = *sc;
		delete sc;
		if (getenv("JDEBUG")) fprintf(stderr, "attempt %d pairs %llu\n", attempt, (unsigned long long) want.pairs);
		if (want.pairs > 0 &&
			2 * std::count(want.refused.begin(), want.refused.end(), 1) < (long) ds.n_pages)
			break;
	}
	delete s0;
	if (c.hand)
	{
		hand_programs(s, pr, &p);
		want = reference(*s, ds, pg, c.qual, &dr, p, pr);
	}
	JCHECK(gh_agg_prog_check(s, &p) == GH_OK, "%s: program rejected: %s", c.tag, gh_last_error());
	if (c.join_qual || c.conds)
		tally(p);
	else if (!c.hand)
		want = reference(*s, ds, pg, c.qual, c.join ? &dr : nullptr, p, pr);

	gh_agg_dim *hd = nullptr;

	if (c.join)
	{
		gh_status	b = gh_agg_dim_build(GH_AGG_HOST, dr.keys.data(), dr.keys.size(), dr.in.data(),
										 NIN, dr.heap.data(), dr.heap.size(), 0, &hd);

		JCHECK(b == GH_OK && hd != nullptr, "%s: host dimension: %s", c.tag, gh_last_error());
		if (hd)
			JCHECK(gh_agg_dim_rows(hd) == dr.keys.size() && gh_agg_dim_device(hd) == GH_AGG_HOST &&
				   (dr.keys.empty() || gh_agg_dim_bytes(hd) > 0), "%s: dimension's answers", c.tag);
	}

	gh_agg_groups host;
	vector<uint8_t> refused;
	gh_agg_stats st;
	gh_status	h = run(GH_AGG_HOST, *s, p, hd, pg, ds.data.data(), ds.data.size(), 1u << 24, &host,
						refused, &st);

	JCHECK(h == GH_OK, "%s: host twin: %s", c.tag, gh_last_error());
	if (h == GH_OK)
	{
		JCHECK(refused == want.refused, "%s: refused %llu pages, the reference %zu", c.tag,
			   (unsigned long long) st.refused,
			   (size_t) std::count(want.refused.begin(), want.refused.end(), 1));
		if (refused == want.refused)
			compare_ref(c.tag, host, want.g, p, col_type);
		if (c.some_refused)
			JCHECK(st.refused > 0 && st.refused < ds.n_pages, "%s: %llu of %u pages refused",
				   c.tag, (unsigned long long) st.refused, ds.n_pages);
		JCHECK(st.tuples == want.tuples && st.passed == want.pairs,
			   "%s: tuples %llu pairs %llu, the reference %llu and %llu", c.tag,
			   (unsigned long long) st.tuples, (unsigned long long) st.passed,
			   (unsigned long long) want.tuples, (unsigned long long) want.pairs);
	}
	/* the pages in two requests, merged, are the same set */
	if (h == GH_OK && ds.n_pages >= 2)
	{
		pages		a = pg,
					b = pg;
		gh_agg_groups ga,
					gb;
		vector<uint8_t> ra,
					rb;
		size_t		half = ds.n_pages / 2;

		a.refs.resize(half);
		b.refs.erase(b.refs.begin(), b.refs.begin() + half);
		JCHECK(run(GH_AGG_HOST, *s, p, hd, a, ds.data.data(), ds.data.size(), 1u << 24, &ga, ra,
				   nullptr) == GH_OK &&
			   run(GH_AGG_HOST, *s, p, hd, b, ds.data.data(), ds.data.size(), 1u << 24, &gb, rb,
				   nullptr) == GH_OK, "%s: halves: %s", c.tag, gh_last_error());
		JCHECK(gh_agg_merge(&ga, &gb, s, &p) == GH_OK, "%s: merge: %s", c.tag, gh_last_error());
		compare_sets(c.tag, ga, host);
		gh_agg_groups_free(&ga);
		gh_agg_groups_free(&gb);
	}
	if (gpus > 0)
	{
		gh_agg_dim *gd = nullptr;
		const uint8_t *mp = mapped_copy(ds.data.data(), ds.data.size());

		if (c.join)
			JCHECK(gh_agg_dim_build(0, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
									dr.heap.data(), dr.heap.size(), 0, &gd) == GH_OK,
				   "%s: GPU dimension: %s", c.tag, gh_last_error());
		JCHECK(mp != nullptr, "%s: no registered host memory", c.tag);
		if ((gd || !c.join) && mp)
		{
			gh_agg_groups gpu;
			vector<uint8_t> rg;
			gh_agg_stats gs;
			gh_status	g = run(0, *s, p, gd, pg, mp, ds.data.size(), 1u << 24, &gpu, rg, &gs);

			JCHECK(g == h, "%s: GPU status %s, host %s (%s)", c.tag, gh_status_name(g),
				   gh_status_name(h), gh_last_error());
			if (g == GH_OK && h == GH_OK)
			{
				compare_sets(c.tag, gpu, host);
				JCHECK(rg == refused, "%s: GPU refused other pages", c.tag);
				JCHECK(gs.tuples == st.tuples && gs.passed == st.passed,
					   "%s: GPU tuples %llu pairs %llu, host %llu and %llu", c.tag,
					   (unsigned long long) gs.tuples, (unsigned long long) gs.passed,
					   (unsigned long long) st.tuples, (unsigned long long) st.passed);
			}
			gh_agg_groups_free(&gpu);
		}
		gh_agg_dim_free(gd);
	}
	printf("  %-40s rows %6zu inner %5zu pages %4u (%3llu refused) pairs %6llu groups %5llu  %5.2f s\n",
		   c.tag, c.o.rows, dr.keys.size(), ds.n_pages, (unsigned long long) st.refused,
		   (unsigned long long) st.passed, (unsigned long long) host.n_groups,
		   (gh_now_ms() - t0) / 1000.0);
	fflush(stdout);
	gh_agg_groups_free(&host);
	gh_agg_dim_free(hd);
	delete s;
}

/* Arguments, programs and dimensions the core must refuse. */
void
test_refusals(int gpus)
{
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p,
				q;
	dim_opts	dopt;
	dim_rows	dr = make_dim(dopt, 10, 5);
	gh_agg_dim *d = nullptr;

	make_scan(s, false);
	make_prog(&p, K_INNER_INT, true);
	JCHECK(gh_agg_prog_check(s, &p) == GH_OK, "refusals: the base program: %s", gh_last_error());

	q = p;
	q.agg[1].col = IC(NIN);
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: an inner column past ninner");
	q = p;
	q.key[0].col = IC(NIN);
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a key past ninner");
	q = p;
	q.join.inner_type[2] = GH_T_SKIP;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: an inner column of no type");
	q = p;
	q.join.ninner = GH_AGG_MAX_INNER + 1;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: ninner too large");
	q = p;
	q.ninsns = 3;
	q.insn[0] = {GH_Q_COL, 0, 0, 0, (uint32_t) IC(J_CAT)};
	q.insn[1] = {GH_Q_COL, 0, 0, 0, (uint32_t) C_I4};
	q.insn[2] = {GH_Q_CMP, GH_M_INT, GH_EQ, 0, 0};
	q.join.jq_len = 3;
	JCHECK(gh_agg_prog_check(s, &q) == GH_OK, "refusals: a join qual over both sides: %s",
		   gh_last_error());
	q.join.jq_len = 4;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a join qual past ninsns");
	q.join.jq_len = 2;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a join qual of no boolean");
	q.join.jq_len = 3;
	q.insn[0].a = IC(NIN);
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a qual reading past ninner");
	q.insn[0].a = IC(J_CAT);
	q.agg[0].cond_start = 0;
	q.agg[0].cond_len = 3;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: count(*) under a condition");
	q.agg[0].cond_len = 0;
	q.agg[3].cond_start = 0;
	q.agg[3].cond_len = 3;
	JCHECK(gh_agg_prog_check(s, &q) == GH_OK, "refusals: count(x) under a condition: %s",
		   gh_last_error());
	q.agg[3].cond_start = GH_AGG_MAX_INSNS - 1;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a condition past ninsns");
	q = p;
	q.ninsns = GH_AGG_MAX_INSNS + 1;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: ninsns too large");
	q = p;
	q.agg[7].type = GH_T_NUMERIC;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a constant of numeric type");
	q = p;
	q.agg[0] = konst(GH_AGG_COUNT_STAR, 1, GH_T_INT4);
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: count(*) of a constant");
	q = p;
	q.join.ninner = 0;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: inner columns without a join");

	/* dimensions */
	JCHECK(gh_agg_dim_build(GH_AGG_HOST, dr.keys.data(), dr.keys.size(), dr.in.data(),
							GH_AGG_MAX_INNER + 1, dr.heap.data(), dr.heap.size(), 0, &d) ==
		   GH_ERR_INVALID && d == nullptr, "refusals: a dimension of too many columns");
	JCHECK(gh_agg_dim_build(GH_AGG_HOST, nullptr, 3, dr.in.data(), NIN, nullptr, 0, 0, &d) ==
		   GH_ERR_INVALID, "refusals: a dimension without keys");
	JCHECK(gh_agg_dim_build(GH_AGG_HOST, nullptr, 0, nullptr, NIN, nullptr, 0, 0, &d) == GH_OK &&
		   d != nullptr && gh_agg_dim_rows(d) == 0, "refusals: an empty dimension: %s",
		   gh_last_error());
	gh_agg_dim_free(d);
	d = nullptr;
	gh_agg_dim_free(nullptr);
	JCHECK(gh_agg_dim_build(gpus > 0 ? 0 : 7, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
							dr.heap.data(), dr.heap.size(), 64, &d) != GH_OK && d == nullptr,
		   "refusals: a GPU dimension over its budget (or without a GPU)");
	if (gpus > 0)
	{
		JCHECK(gh_agg_dim_build(0, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), 64, &d) == GH_ERR_GPU_MEMORY,
			   "refusals: a GPU dimension over its budget");
		d = nullptr;
	}

	/* calls: a join program without its dimension, a dimension of another shape */
	options		o;

	o.rows = 500;
	dataset		ds = make_data(o, 3);
	pages		pg = make_pages(ds, 0, 1);
	gh_agg_groups g;
	vector<uint8_t> refused;

	JCHECK(run(GH_AGG_HOST, *s, p, nullptr, pg, ds.data.data(), ds.data.size(), 1000, &g, refused,
			   nullptr) == GH_ERR_INVALID, "refusals: a join program through gh_page_agg");
	gh_agg_groups_free(&g);
	JCHECK(gh_agg_dim_build(GH_AGG_HOST, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN - 1,
							dr.heap.data(), dr.heap.size(), 0, &d) == GH_OK, "refusals: a build");
	JCHECK(run(GH_AGG_HOST, *s, p, d, pg, ds.data.data(), ds.data.size(), 1000, &g, refused,
			   nullptr) == GH_ERR_INVALID, "refusals: a dimension of other columns");
	gh_agg_groups_free(&g);
	gh_agg_dim_free(d);
	d = nullptr;
	if (gpus > 0)
	{
		/* a dimension on the host asked to join on the GPU */
		JCHECK(gh_agg_dim_build(GH_AGG_HOST, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), 0, &d) == GH_OK, "refusals: a build");
		JCHECK(run(0, *s, p, d, pg, ds.data.data(), ds.data.size(), 1000, &g, refused, nullptr) ==
			   GH_ERR_INVALID, "refusals: a dimension on another device");
		gh_agg_groups_free(&g);
		gh_agg_dim_free(d);
	}
	if (gpus > 0)
	{
		/* values that fit the budget, the table not: nothing held */
		size_t		vb = dr.keys.size() * NIN * sizeof(gh_agg_inval) + dr.heap.size();

		JCHECK(gh_agg_dim_build(0, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), vb + 16, &d) == GH_ERR_GPU_MEMORY &&
			   d == nullptr, "refusals: a GPU dimension whose table passes the budget: %s",
			   gh_last_error());
		JCHECK(gh_agg_dim_build(0, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), vb + (64 << 20), &d) == GH_OK &&
			   gh_agg_dim_bytes(d) <= vb + (64 << 20) && gh_agg_dim_device(d) == 0,
			   "refusals: a GPU dimension within its budget: %s", gh_last_error());
		gh_agg_dim_free(d);
		d = nullptr;
	}
	printf("  %-40s\n", "refused programs, dimensions and calls");
	delete s;
}

/*
 * Join requests on several threads at once over one dimension, as the GPU
 * service folds them: every answer the single thread's.
 */
void
test_threads(int gpus)
{
	options		o;
	dim_opts	dopt;

	o.rows = 8000;
	o.groups = 40;
	dopt.max_dup = 3;

	dataset		ds = make_data(o, 41);
	dim_rows	dr = make_dim(dopt, o.groups, 42);
	pages		pg = make_pages(ds, 0.3, 43);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	const uint8_t *data = gpus > 0 ? mapped_copy(ds.data.data(), ds.data.size()) : ds.data.data();

	make_scan(s, true);
	make_prog(&p, K_INNER_BPCHAR_OUTER_BPCHAR, true);
	for (int dev = GH_AGG_HOST; dev < (gpus > 0 ? 1 : 0) && data; dev++)
	{
		gh_agg_dim *d = nullptr;
		gh_agg_groups one;
		vector<uint8_t> refused;
		std::atomic<int> bad(0);
		vector<std::thread> th;

		JCHECK(gh_agg_dim_build(dev, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), 0, &d) == GH_OK,
			   "threads (device %d): dimension: %s", dev, gh_last_error());
		if (!d)
			continue;
		JCHECK(run(dev, *s, p, d, pg, data, ds.data.size(), 1u << 24, &one, refused, nullptr) ==
			   GH_OK, "threads (device %d): %s", dev, gh_last_error());
		for (int k = 0; k < 4; k++)
			th.emplace_back([&]() {
				for (int round = 0; round < 3; round++)
				{
					gh_agg_groups g;
					vector<uint8_t> r;

					if (run(dev, *s, p, d, pg, data, ds.data.size(), 1u << 24, &g, r, nullptr) !=
						GH_OK || g.n_groups != one.n_groups ||
						memcmp(g.keys, one.keys, 8 * g.n_groups) != 0 ||
						memcmp(g.states, one.states, sizeof(gh_agg_state) * g.n_groups * p.naggs))
						bad++;
					gh_agg_groups_free(&g);
				}
			});
		for (std::thread &t : th)
			t.join();
		JCHECK(bad == 0, "threads (device %d): %d answers wrong or failed", dev, bad.load());
		gh_agg_groups_free(&one);
		gh_agg_dim_free(d);
	}
	printf("  %-40s threads 4, rounds 3\n", "concurrent join requests");
	delete s;
}

}								/* namespace */

void
test_agg_join(int gpus, bool quick, int *checks, int *failures)
{
	aggref::checks = checks;
	aggref::failures = failures;
	printf("aggregates over a join, conditions and constants (%s):\n",
		   gpus > 0 ? "GPU + host twin" : "host twin");
	test_refusals(gpus);

	jcase		c;

	c.o.rows = quick ? 4000 : 20000;
	c.o.groups = 40;
	c.o.null_p = 0.1;

	c.tag = "unique keys, one group";
	c.seed = 1;
	run_case(c, gpus);
	c.tag = "unique keys, inner int groups, qual";
	c.keys = K_INNER_INT;
	c.qual = true;
	c.seed = 2;
	run_case(c, gpus);
	c.tag = "duplicates, bpchar keys on both sides";
	c.qual = false;
	c.d.max_dup = 4;
	c.keys = K_INNER_BPCHAR_OUTER_BPCHAR;
	c.seed = 3;
	run_case(c, gpus);
	c.tag = "duplicates, text and int keys, listed";
	c.keys = K_INNER_TEXT_OUTER_INT;
	c.listed_p = 0.5;
	c.seed = 4;
	run_case(c, gpus);
	c.tag = "text key too wide: pages refused";
	c.d.long_txt_p = 0.03;
	c.some_refused = true;
	c.seed = 5;
	run_case(c, gpus);
	c.d.long_txt_p = 0;
	c.some_refused = false;
	c.tag = "a hot key of 70 rows";
	c.d.max_dup = 2;
	c.d.hot_dup = 70;
	c.keys = K_INNER_INT;
	c.seed = 6;
	run_case(c, gpus);
	c.d.hot_dup = 0;
	c.tag = "a 70 kB inner value: pages refused";
	c.d.huge = true;
	c.d.miss_p = 0;
	c.some_refused = true;
	c.seed = 10;
	run_case(c, gpus);
	c.d.huge = false;
	c.d.miss_p = 0.3;
	c.some_refused = false;
	c.tag = "a join key of two columns, duplicates";
	c.key2 = true;
	c.d.max_dup = 3;
	c.d.miss_p = 0.2;
	c.keys = K_INNER_INT;
	c.seed = 11;
	run_case(c, gpus);
	c.key2 = false;
	c.d.max_dup = 2;
	c.d.miss_p = 0.3;
	c.tag = "an empty dimension";
	c.d.empty = true;
	c.seed = 7;
	run_case(c, gpus);
	c.d.empty = false;
	c.tag = "outer keys, most keys missing";
	c.d.miss_p = 0.8;
	c.keys = K_OUTER;
	c.seed = 8;
	run_case(c, gpus);
	c.d.miss_p = 0.3;

	c.tag = "IN, LIKE, NOT, overflow (by hand)";
	c.hand = true;
	c.some_refused = true;
	c.keys = K_INNER_BPCHAR_OUTER_BPCHAR;
	c.d.max_dup = 2;
	c.listed_p = 0.3;
	c.seed = 9;
	run_case(c, gpus);
	c.hand = false;
	c.some_refused = false;
	c.listed_p = 0;

	/* random join quals and conditions over both sides */
	for (int i = 0; i < (quick ? 4 : 12); i++)
	{
		static char tags[12][64];

		snprintf(tags[i], sizeof(tags[i]), "join qual + conditions, seed %d", 100 + i);
		c.tag = tags[i];
		c.join_qual = true;
		c.conds = true;
		c.keys = i % 5;
		c.d.max_dup = 1 + i % 3;
		c.listed_p = i % 2 ? 0.4 : 0;
		c.qual = i % 3 == 0;
		c.seed = 100 + i;
		run_case(c, gpus);
	}

	JCHECK(cov.like_inner > 0 && cov.in_inner > 0 && cov.cmp_both > 0 && cov.and_or > 0 &&
		   cov.nots > 0 && cov.arith > 0, "random programs lacked a form: LIKE %d IN %d "
		   "outer-inner comparisons %d AND/OR %d NOT %d arithmetic %d", cov.like_inner,
		   cov.in_inner, cov.cmp_both, cov.and_or, cov.nots, cov.arith);

	test_threads(gpus);

	/* conditions and constants without a join: gh_page_agg */
	c.join = false;
	c.join_qual = false;
	for (int i = 0; i < (quick ? 2 : 6); i++)
	{
		static char tags[6][64];

		snprintf(tags[i], sizeof(tags[i]), "no join, conditions, seed %d", 200 + i);
		c.tag = tags[i];
		c.keys = i % 2 ? K_OUTER : K_NONE;
		c.listed_p = i % 2 ? 0.4 : 0;
		c.seed = 200 + i;
		run_case(c, gpus);
	}
}
