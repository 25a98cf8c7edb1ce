/*
 * agg_join_gen.h
 *		core_agg_join.cpp's data and reference: dimensions of every inner
 *		column kind (unique and duplicate keys, missing keys, a hot key,
 *		values a walker cannot hold), the scan and aggregation programs,
 *		random join quals and conditions over both sides (page_gen.h's
 *		program builder) and hand-written ones, listed pages, and the
 *		nested loop that computes what the walk must give.
 */
#ifndef GPUHASH_TEST_AGG_JOIN_GEN_H
#define GPUHASH_TEST_AGG_JOIN_GEN_H

#include "agg_gen.h"
#include "agg_ref.h"

#include <algorithm>
#include <map>
#include <string.h>
#include <vector>

namespace aggjoin
{

using namespace pagetest;
using namespace aggtest;
using namespace aggref;
using std::vector;

/* the dimension's columns */
enum
{
	J_CAT = 0, J_DATE, J_NUM, J_TXT, J_BPC, J_I8, J_F8, NIN
};
const uint8_t ITYPE[NIN] = {GH_T_INT4, GH_T_DATE, GH_T_NUMERIC, GH_T_TEXT, GH_T_BPCHAR,
GH_T_INT8, GH_T_FLOAT8};

#define IC(j) (GH_AGG_INNER_COL0 + (j))
const int	NREF = GH_AGG_INNER_COL0 + NIN;	/* a joined row's column indices */

inline uint8_t
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
inline dim_rows
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

inline void
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

inline gh_agg_spec
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

inline gh_agg_spec
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
inline bool
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
inline void
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
	K_NONE = 0, K_INNER_INT, K_INNER_BPCHAR_OUTER_BPCHAR, K_INNER_TEXT_OUTER_INT, K_OUTER,
	K_WIDE						/* (inner int8, inner text in 12 bytes, int4, inner date):
								 * 224 bits, GH_AGG_KEY_WORDS words */
};

/* The aggregates of a join case: inner and outer operands, conditions, constants. */
inline void
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
		case K_WIDE:
			p->nkeys = 4;
			p->key[0] = {IC(J_I8), 2, 64};
			p->key[1] = {IC(J_TXT), GH_AGG_KEY_TEXT, 0};
			p->key_bytes[1] = 12;
			p->key[2] = {C_G1, 1, 32};
			p->key[3] = {IC(J_DATE), 1, 32};
			break;
		default:
			break;
	}
}

struct jexpect
{
	ref_groups	g;
	vector<uint8_t> refused;
	vector<uint8_t> matched;	/* per dimension row: a pair of an unrefused
								 * page folded with it */
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

inline pages
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
inline jexpect
reference(const gh_page_scan &sc, const dataset &ds, const pages &pg, bool qual,
		  const dim_rows *dim, const gh_agg_prog &p, preds &pr)
{
	jexpect		e;
	std::multimap<uint64_t, int> by_key;

	if (dim)
		for (size_t i = 0; i < dim->keys.size(); i++)
			by_key.insert({dim->keys[i], (int) i});
	e.refused.assign(ds.n_pages, 0);
	e.matched.assign(dim ? dim->keys.size() : 0, 0);
	for (uint32_t pi = 0; pi < ds.n_pages; pi++)
	{
		vector<std::pair<vector<cell>, vector<bool>>> pairs;
		vector<int> pair_inner;
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
				pair_inner.push_back(ii);
			}
		}
		if (refuse)
		{
			e.refused[pi] = 1;
			continue;
		}
		e.tuples += pg.rows[pi].size();
		e.pairs += pairs.size();
		for (int ii : pair_inner)
			if (ii >= 0)
				e.matched[ii] = 1;
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

/* One request (dim NULL: gh_page_agg) into a fresh set; the status. */
inline gh_status
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

}								/* namespace aggjoin */

#endif							/* GPUHASH_TEST_AGG_JOIN_GEN_H */
