/*
 * page_gen.h
 *		core_test's random heap pages and scan programs for the page walker
 *		(rows of every column type with the values at each type's edges,
 *		qual programs of every form with the reference's view of their
 *		constants) and the reference walk over the rows' logical values.
 */
#ifndef GPUHASH_TEST_PAGE_GEN_H
#define GPUHASH_TEST_PAGE_GEN_H

#include "page_reference.h"
#include "hash.cuh"

#include <cmath>
#include <vector>

namespace pagetest
{

using std::string;
using std::vector;

struct prng
{
	uint64_t	s;
	uint64_t	next()
	{
		return gh_splitmix64(&s);
	}
	uint64_t	below(uint64_t n)
	{
		return n ? next() % n : 0;
	}
	bool		chance(double p)
	{
		return (next() >> 11) * (1.0 / 9007199254740992.0) < p;
	}
	template <typename T> T pick(const vector<T> &v)
	{
		return v[below(v.size())];
	}
};

/* The relation every case walks: each type, a dropped column, a cstring
 * and a column added after some rows were written. */
static const vector<col_desc> DESC = {
	{4, 4, GH_T_INT4}, {8, 8, GH_T_INT8}, {2, 2, GH_T_INT2}, {1, 1, GH_T_BOOL},
	{-1, 4, GH_T_TEXT}, {-1, 4, GH_T_NUMERIC}, {8, 8, GH_T_FLOAT8}, {4, 4, GH_T_DATE},
	{8, 8, GH_T_TIMESTAMP}, {-1, 4, GH_T_BPCHAR}, {4, 4, GH_T_FLOAT4}, {4, 4, GH_T_OID},
	{-1, 4, GH_T_TEXT} /* dropped */ , {8, 8, GH_T_TIME}, {-2, 1, GH_T_TEXT} /* cstring */ ,
	{4, 4, GH_T_INT4} /* added later */
};
static const int	DROPPED = 12,
			CSTRING = 14;

static inline string
gen_string(prng &r, bool pad)
{
	static const vector<string> alpha = {"a", "b", "c", "ab", " ", "%", "_", "\\", "\xc3\xa9",
	"\xe6\x97\xa5", "Z", "\xf0\x9f\x98\x80"};
	string		s;
	size_t		n = r.chance(0.05) ? 130 + r.below(200) : r.below(7);

	while (s.size() < n)
		s += r.pick(alpha);
	if (pad)
		s += string(r.below(4), ' ');
	return s;
}

static inline num
gen_num(prng &r)
{
	num			n;

	if (r.chance(0.12))
	{
		n.cls = r.pick(vector<int>{-1, 1, 2});
		return n;
	}
	n.m = r.pick(vector<int64_t>{0, 1, -1, 10, -10, 12345, -12345, 10000, 99999999, 100000000,
	(int64_t) r.below(1000000000000LL) - 500000000000LL, (int64_t) r.below(200) - 100});
	n.scale = (int) r.below(7);
	n.dscale = n.scale + (int) r.below(3);
	return n;
}

static const int64_t USECS_DAY = 86400000000LL;

/* A non-NULL value of type t, drawn so that equal values recur. */
static inline lval
gen_value(prng &r, uint8_t t)
{
	lval		v;

	v.null = false;
	switch (t)
	{
		case GH_T_INT2:
			v.i = r.pick(vector<int64_t>{0, 1, -1, 7, 100, INT16_MIN, INT16_MAX, (int64_t) r.below(20)});
			break;
		case GH_T_INT4:
			v.i = r.chance(0.7) ? (int64_t) r.below(40) - 5
				: r.pick(vector<int64_t>{INT32_MIN, INT32_MAX, 1000000, -1000000, 65536});
			break;
		case GH_T_INT8:
			v.i = r.pick(vector<int64_t>{0, 1, -1, INT64_MIN, INT64_MAX, 1LL << 40,
			(int64_t) r.below(2000000) - 1000000, (int64_t) r.below(30)});
			break;
		case GH_T_BOOL:
			v.i = (int64_t) r.below(2);
			break;
		case GH_T_OID:
			v.i = r.pick(vector<int64_t>{0, 1, 4294967295LL, 2147483648LL, (int64_t) r.below(30)});
			break;
		case GH_T_FLOAT4:
		case GH_T_FLOAT8:
			v.f = r.pick(vector<double>{0.0, -0.0, 1.5, -2.25, NAN, INFINITY, -INFINITY, 1e300,
			(double) r.below(20) / 4});
			if (t == GH_T_FLOAT4)
				v.f = (double) (float) v.f;
			break;
		case GH_T_DATE:
			v.i = r.pick(vector<int64_t>{0, 1, -1, INT32_MIN, INT32_MAX, 106751982, 106751983,
			106751990, -2451545, 9000, (int64_t) r.below(20000)});
			break;
		case GH_T_TIMESTAMP:
			v.i = r.pick(vector<int64_t>{0, 1, -1, INT64_MIN, INT64_MAX, 106751982 * USECS_DAY,
			-2451545 * USECS_DAY, 9000 * USECS_DAY, 9000 * USECS_DAY + 1,
			(int64_t) r.below(20000) * USECS_DAY});
			break;
		case GH_T_TIME:
			v.i = r.pick(vector<int64_t>{0, 1, 86400000000LL, (int64_t) r.below(86400) * 1000000});
			break;
		case GH_T_NUMERIC:
			v.n = gen_num(r);
			break;
		default:
			v.s = gen_string(r, t == GH_T_BPCHAR);
			break;
	}
	return v;
}

/* One generated row and where it lies. */
struct row
{
	vector<cell> cells;
	int			natts;
};

struct gpage
{
	page		pg;
	vector<int> item_row;		/* per line pointer: its row, or -1 */
	gh_page_ref ref;
	vector<uint16_t> vis;
	bool		raw_zero = false;	/* a new page: all zero */
};

/* A scan program being built, with the reference's view of its constants. */
struct progbuilder
{
	gh_page_scan *s;
	consts		k;
	prng	   &r;
	vector<int> need_of[GH_T_BPCHAR + 1];	/* needed columns by type */

	uint32_t	alloc(size_t n)
	{
		uint32_t	off = (s->pool_bytes + 7) & ~7U;

		s->pool_bytes = off + (uint32_t) n;
		memset(s->pool + off, 0, n);
		return off;
	}
	void		put_value_at(uint32_t off, const lval &v, uint8_t mode, const vector<uint8_t> &vl)
	{
		if (mode == GH_M_TEXT || mode == GH_M_BPCHAR)
		{
			uint32_t	n = (uint32_t) v.s.size();

			memcpy(s->pool + off, &n, 4);
			memcpy(s->pool + off + 4, v.s.data(), n);
		}
		else if (mode == GH_M_NUMERIC)
			memcpy(s->pool + off, vl.data(), vl.size());
		else if (mode == GH_M_FLOAT)
			memcpy(s->pool + off, &v.f, 8);
		else
			memcpy(s->pool + off, &v.i, 8);
	}
	size_t		value_size(const lval &v, uint8_t mode, vector<uint8_t> *vl)
	{
		if (mode == GH_M_TEXT || mode == GH_M_BPCHAR)
			return 4 + v.s.size();
		if (mode == GH_M_NUMERIC)
		{
			*vl = varlena(numeric_data(v.n, r.chance(0.3)), r.chance(0.5) ? V_LONG : V_AUTO);
			return vl->size();
		}
		return 8;
	}
	void		emit(uint8_t op, uint8_t b = 0, uint8_t c = 0, uint32_t a = 0)
	{
		gh_qinsn	in = {op, b, c, 0, a};

		s->insn[s->ninsns++] = in;
	}
	bool		room(size_t n)
	{
		return s->pool_bytes + n + 16 < GH_PAGE_POOL_BYTES && s->ninsns < GH_PAGE_MAX_INSNS - 24;
	}
	static uint8_t mode_of_type(uint8_t t)
	{
		return t == GH_T_NUMERIC ? GH_M_NUMERIC : (t == GH_T_TEXT || t == GH_T_BPCHAR) ? GH_M_TEXT
			: (t == GH_T_FLOAT4 || t == GH_T_FLOAT8) ? GH_M_FLOAT : GH_M_INT;
	}
	void		constant(uint8_t t, const lval &v)
	{
		vector<uint8_t> vl;
		uint8_t		m = mode_of_type(t);
		size_t		n = value_size(v, m, &vl);
		uint32_t	off = alloc(n);

		put_value_at(off, v, m, vl);
		k.value[off] = v;
		emit(GH_Q_CONST, t, 0, off);
	}
	/* Pushes a value of type t: a needed column, a constant, arithmetic. */
	void		operand(uint8_t t, int depth)
	{
		if (depth < 2 && (t == GH_T_INT4 || t == GH_T_INT8 || t == GH_T_DATE) && r.chance(0.2))
		{
			uint8_t		op = r.pick(vector<uint8_t>{GH_Q_ADD, GH_Q_SUB, GH_Q_MUL});

			if (t == GH_T_DATE)
			{
				operand(GH_T_DATE, depth + 1);
				operand(GH_T_INT4, depth + 1);
				emit(op == GH_Q_MUL ? (uint8_t) GH_Q_ADD : op, GH_M_DATE_INT);
				return;
			}
			/* one operand of the mode's own width, as PostgreSQL's operator */
			bool		wide_left = r.chance(0.5);

			operand(wide_left ? t : r.pick(vector<uint8_t>{GH_T_INT2, GH_T_INT4}), depth + 1);
			operand(!wide_left ? t : r.pick(vector<uint8_t>{GH_T_INT2, GH_T_INT4}), depth + 1);
			emit(op, t == GH_T_INT4 ? GH_M_INT4 : GH_M_INT8);
			return;
		}
		if (r.chance(0.04))
			emit(GH_Q_NULL);
		else if (!need_of[t].empty() && r.chance(0.7))
			emit(GH_Q_COL, 0, 0, (uint32_t) r.pick(need_of[t]));
		else
			constant(t, gen_value(r, t));
	}
	/* A comparison of a random family. */
	void		comparison(int depth)
	{
		static const vector<vector<uint8_t>> fam = {
			{GH_T_INT2, GH_T_INT4, GH_T_INT8}, {GH_T_OID}, {GH_T_BOOL}, {GH_T_DATE}, {GH_T_TIME},
			{GH_T_TIMESTAMP}, {GH_T_FLOAT4, GH_T_FLOAT8}, {GH_T_NUMERIC}, {GH_T_TEXT, GH_T_BPCHAR}
		};
		size_t		f = r.below(fam.size() + 2);
		uint8_t		op = (uint8_t) r.below(6);

		if (f == fam.size())
		{
			operand(GH_T_DATE, depth);
			operand(GH_T_TIMESTAMP, depth);
			emit(GH_Q_CMP, GH_M_DATE_TS, op);
			return;
		}
		if (f == fam.size() + 1)
		{
			operand(GH_T_TIMESTAMP, depth);
			operand(GH_T_DATE, depth);
			emit(GH_Q_CMP, GH_M_TS_DATE, op);
			return;
		}
		uint8_t		lt = r.pick(fam[f]),
					rt = r.pick(fam[f]);
		uint8_t		m = mode_of_type(lt);

		if (m == GH_M_TEXT && r.chance(0.5))
			m = GH_M_BPCHAR;
		operand(lt, depth);
		operand(rt, depth);
		emit(GH_Q_CMP, m, op);
	}
	void		in_list()
	{
		static const vector<uint8_t> types = {GH_T_INT4, GH_T_INT8, GH_T_DATE, GH_T_FLOAT8,
		GH_T_NUMERIC, GH_T_TEXT, GH_T_BPCHAR, GH_T_TIMESTAMP};
		uint8_t		t = r.pick(types);
		uint8_t		m = t == GH_T_BPCHAR ? (uint8_t) GH_M_BPCHAR : mode_of_type(t);
		uint8_t		et = t;

		if (t == GH_T_DATE && r.chance(0.5))
		{
			m = GH_M_DATE_TS;
			et = GH_T_TIMESTAMP;
		}
		operand(t, 1);

		size_t		n = r.below(5);
		bool		has_null = r.chance(0.2);
		vector<lval> vals;
		vector<vector<uint8_t>> vls;
		vector<size_t> sizes;
		size_t		total = 8;

		for (size_t i = 0; i < n; i++)
		{
			vector<uint8_t> vl;

			vals.push_back(gen_value(r, et));
			sizes.push_back(value_size(vals.back(), m, &vl));
			vls.push_back(vl);
			total += (sizes.back() + 7) & ~(size_t) 7;
		}

		uint32_t	off = alloc(total),
					at = off + 8,
					cnt = (uint32_t) n,
					hn = has_null;

		memcpy(s->pool + off, &cnt, 4);
		memcpy(s->pool + off + 4, &hn, 4);
		for (size_t i = 0; i < n; i++)
		{
			put_value_at(at, vals[i], m, vls[i]);
			at += (uint32_t) ((sizes[i] + 7) & ~(size_t) 7);
		}
		k.list[off] = {vals, has_null};
		emit(GH_Q_IN, m, 0, off);
	}
	void		like()
	{
		static const vector<string> parts = {"%", "_", "a", "b", "\\%", "\\_", "\\\\", " ",
		"\xc3\xa9", "\xe6\x97\xa5", "%a%", "__"};
		string		p;
		size_t		n = r.below(5);

		for (size_t i = 0; i < n; i++)
			p += r.pick(parts);
		operand(r.chance(0.5) ? GH_T_TEXT : GH_T_BPCHAR, 1);

		uint32_t	off = alloc(4 + p.size()),
					len = (uint32_t) p.size();

		memcpy(s->pool + off, &len, 4);
		memcpy(s->pool + off + 4, p.data(), len);
		k.pattern[off] = p;
		emit(GH_Q_LIKE, (uint8_t) r.below(2), (uint8_t) r.below(2), off);
	}
	void		predicate(int depth)
	{
		size_t		c = r.below(depth >= 3 ? 5 : 8);

		if (!room(600))
			c = 0;
		switch (c)
		{
			case 0:
			case 1:
				comparison(depth);
				break;
			case 2:
				in_list();
				break;
			case 3:
				like();
				break;
			case 4:
				operand(r.pick(vector<uint8_t>{GH_T_INT4, GH_T_TEXT, GH_T_NUMERIC, GH_T_FLOAT8}), 1);
				emit(r.chance(0.5) ? GH_Q_IS_NULL : GH_Q_IS_NOT_NULL);
				break;
			case 5:
			case 6:
				{
					uint32_t	n = 2 + (uint32_t) r.below(2);

					for (uint32_t i = 0; i < n; i++)
						predicate(depth + 1);
					emit(c == 5 ? GH_Q_AND : GH_Q_OR, 0, 0, n);
					break;
				}
			default:
				predicate(depth + 1);
				emit(r.pick(vector<uint8_t>{GH_Q_NOT, GH_Q_IS_TRUE, GH_Q_IS_FALSE}));
				break;
		}
	}
};

/* The key layouts a case draws from: (column, conv, width) lists. */
static const vector<vector<gh_page_key>> KEYS = {
	{{0, 1, 32}}, {{0, 1, 32}}, {{1, 2, 64}}, {{7, 1, 32}}, {{0, 1, 32}, {2, 0, 16}},
	{{0, 1, 32}, {11, 3, 32}}, {{2, 0, 16}, {3, 4, 1}, {0, 1, 32}}, {{11, 3, 32}}, {{3, 4, 1}}
};

struct expect
{
	vector<uint8_t> refused;
	vector<gh_page_match> rows;	/* range.count = the reference's count */
	vector<uint64_t> keys;
	uint64_t	tuples = 0,
				passed = 0;
};

/* The logical values of a row as the scan sees it; false: refused. */
static inline bool
scan_values(const gh_page_scan &s, const row &rw, vector<lval> &out)
{
	out.assign(s.natts, lval());
	for (int a = 0; a < s.natts; a++)
	{
		const gh_page_column &c = s.col[a];

		if (c.type == GH_T_SKIP)
			continue;
		if (a >= rw.natts)
		{
			if (c.missing == GH_MISSING_REFUSE)
				return false;
			if (c.missing == GH_MISSING_VALUE)
			{
				out[a].null = false;
				out[a].i = c.missing_value;
			}
			continue;
		}
		if (rw.cells[a].st == V_COMPRESSED || rw.cells[a].st == V_EXTERNAL)
		{
			if (!rw.cells[a].v.null)
				return false;
		}
		out[a] = rw.cells[a].v;
	}
	return true;
}

static inline expect
reference_walk(const gh_page_scan &s, const consts &k, const vector<gpage> &pages,
			   const vector<row> &rows)
{
	expect		e;

	for (size_t p = 0; p < pages.size(); p++)
	{
		const gpage &g = pages[p];
		vector<int> lps;
		bool		refuse = false;
		size_t		start = e.rows.size();
		uint64_t	nt = 0,
					np = 0;

		if (g.ref.nvis == GH_PAGE_ALL_VISIBLE)
		{
			refuse = g.ref.maxoff > (g.raw_zero ? 0 : g.pg.nitems());
			for (int lp = 1; lp <= g.ref.maxoff && !refuse; lp++)
				if (g.item_row[lp - 1] >= 0)
					lps.push_back(lp);
		}
		else
			for (uint16_t lp : g.vis)
				lps.push_back(lp);
		for (size_t i = 0; i < lps.size() && !refuse; i++)
		{
			int			ri = g.item_row[lps[i] - 1];
			vector<lval> cols;

			if (ri < 0 || !scan_values(s, rows[ri], cols))
			{
				refuse = true;
				break;
			}
			nt++;

			int			q = ref_run(s, k, cols);

			if (q == 2)
				refuse = true;
			else if (q == 1)
			{
				gh_page_match m;
				uint64_t	key = 0;

				np++;
				m.page = (uint32_t) p;
				m.lp = (uint16_t) lps[i];
				m.flags = ref_key(s, cols, &key) ? 0 : GH_PM_NULL_KEY;
				m.range.offset = 0;
				m.range.count = 0;
				e.rows.push_back(m);
				e.keys.push_back(key);
			}
		}
		if (refuse)
		{
			e.rows.resize(start);
			e.keys.resize(start);
		}
		else
		{
			e.tuples += nt;
			e.passed += np;
		}
		e.refused.push_back(refuse);
	}
	return e;
}

}								/* namespace pagetest */

#endif							/* GPUHASH_TEST_PAGE_GEN_H */
