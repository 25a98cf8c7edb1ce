/*
 * page_reference.h
 *		core_test's reference for the page walker: the qual program run over
 *		a row's logical values (never its bytes), each operator written the
 *		plain way from PostgreSQL's definition (numerics as exact decimals,
 *		LIKE by recursion, text through std::string), and the key packed as
 *		gpuhash_pack does.
 */
#ifndef GPUHASH_TEST_PAGE_REFERENCE_H
#define GPUHASH_TEST_PAGE_REFERENCE_H

#include "page_builder.h"

#include <cmath>
#include <map>

namespace pagetest
{

/* What the program's constants are, by pool offset. */
struct consts
{
	std::map<uint32_t, lval> value;
	std::map<uint32_t, std::pair<std::vector<lval>, bool>> list;	/* elements, has_null */
	std::map<uint32_t, std::string> pattern;
};

static inline int
sgn(__int128 x)
{
	return x < 0 ? -1 : x > 0 ? 1 : 0;
}

static inline int
ref_num_cmp(const num &a, const num &b)
{
	if (a.cls != 0 || b.cls != 0)
		return a.cls < b.cls ? -1 : a.cls > b.cls ? 1 : 0;

	__int128	x = a.m,
				y = b.m;

	for (int s = a.scale; s < 12; s++)
		x *= 10;
	for (int s = b.scale; s < 12; s++)
		y *= 10;
	return sgn(x - y);
}

static inline int
ref_float_cmp(double a, double b)
{
	if (std::isnan(a) || std::isnan(b))
		return std::isnan(a) && std::isnan(b) ? 0 : std::isnan(a) ? 1 : -1;
	return a < b ? -1 : a > b ? 1 : 0;
}

/* date vs timestamp, from the definition: a date is the timestamp of its
 * midnight; beyond timestamp's end it is above every finite timestamp. */
static inline int
ref_date_ts(int64_t d, int64_t ts)
{
	if (d == INT32_MIN)
		return ts == INT64_MIN ? 0 : -1;
	if (d == INT32_MAX)
		return ts == INT64_MAX ? 0 : 1;
	if (d >= 109203528 - 2451545)
		return ts == INT64_MAX ? -1 : 1;

	__int128	x = (__int128) d * 86400000000LL;

	return sgn(x - ts);
}

static inline std::string
rtrim(const std::string &s)
{
	size_t		n = s.size();

	while (n > 0 && s[n - 1] == ' ')
		n--;
	return s.substr(0, n);
}

static inline size_t
utf8_char(const std::string &t, size_t i)
{
	unsigned char c = (unsigned char) t[i];
	size_t		n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;

	return i + n > t.size() ? t.size() - i : n;
}

static inline bool
ref_like(const std::string &t, size_t ti, const std::string &p, size_t pi, bool utf8)
{
	if (pi == p.size())
		return ti == t.size();
	if (p[pi] == '%')
	{
		for (size_t k = ti;; k += utf8 ? utf8_char(t, k) : 1)
		{
			if (ref_like(t, k, p, pi + 1, utf8))
				return true;
			if (k >= t.size())
				return false;
		}
	}
	if (ti >= t.size())
		return false;
	if (p[pi] == '_')
		return ref_like(t, ti + (utf8 ? utf8_char(t, ti) : 1), p, pi + 1, utf8);
	if (p[pi] == '\\')
		return t[ti] == p[pi + 1] && ref_like(t, ti + 1, p, pi + 2, utf8);
	return t[ti] == p[pi] && ref_like(t, ti + 1, p, pi + 1, utf8);
}

/* -1, 0, 1 of two non-NULL values under mode */
static inline int
ref_cmp(const lval &l, const lval &r, int mode)
{
	switch (mode)
	{
		case GH_M_FLOAT:
			return ref_float_cmp(l.f, r.f);
		case GH_M_NUMERIC:
			return ref_num_cmp(l.n, r.n);
		case GH_M_DATE_TS:
			return ref_date_ts(l.i, r.i);
		case GH_M_TS_DATE:
			return -ref_date_ts(r.i, l.i);
		case GH_M_TEXT:
			return l.s.compare(r.s) < 0 ? -1 : l.s == r.s ? 0 : 1;
		case GH_M_BPCHAR:
			{
				std::string a = rtrim(l.s),
							b = rtrim(r.s);

				return a.compare(b) < 0 ? -1 : a == b ? 0 : 1;
			}
		default:
			return l.i < r.i ? -1 : l.i > r.i ? 1 : 0;
	}
}

static inline bool
ref_holds(int c, int op)
{
	const bool	r[6] = {c < 0, c <= 0, c == 0, c != 0, c >= 0, c > 0};

	return r[op];
}

static inline lval
boolv(bool b)
{
	lval		v;

	v.null = false;
	v.i = b;
	return v;
}

/* The program over a row: 1 pass, 0 fail, 2 an error PostgreSQL raises. */
static inline int
ref_run(const gh_page_scan &s, const consts &k, const std::vector<lval> &cols)
{
	std::vector<lval> st;

	if (s.ninsns == 0)
		return 1;
	for (int i = 0; i < s.ninsns; i++)
	{
		const gh_qinsn &in = s.insn[i];

		switch (in.op)
		{
			case GH_Q_COL:
				st.push_back(cols[in.a]);
				break;
			case GH_Q_CONST:
				st.push_back(k.value.at(in.a));
				break;
			case GH_Q_NULL:
				st.push_back(lval());
				break;
			case GH_Q_CMP:
				{
					lval		r = st.back();

					st.pop_back();
					lval		l = st.back();

					st.back() = l.null || r.null ? lval() : boolv(ref_holds(ref_cmp(l, r, in.b), in.c));
					break;
				}
			case GH_Q_IN:
				{
					const auto &li = k.list.at(in.a);
					lval		v = st.back();
					bool		found = false;

					if (v.null)
						break;
					for (const lval &e : li.first)
						found |= ref_cmp(v, e, in.b) == 0;
					st.back() = !found && li.second ? lval() : boolv(found);
					break;
				}
			case GH_Q_LIKE:
				if (!st.back().null)
					st.back() = boolv(ref_like(st.back().s, 0, k.pattern.at(in.a), 0, in.b == 1) !=
									  (in.c == 1));
				break;
			case GH_Q_IS_NULL:
				st.back() = boolv(st.back().null);
				break;
			case GH_Q_IS_NOT_NULL:
				st.back() = boolv(!st.back().null);
				break;
			case GH_Q_IS_TRUE:
				st.back() = boolv(!st.back().null && st.back().i);
				break;
			case GH_Q_IS_FALSE:
				st.back() = boolv(!st.back().null && !st.back().i);
				break;
			case GH_Q_NOT:
				if (!st.back().null)
					st.back().i = !st.back().i;
				break;
			case GH_Q_AND:
			case GH_Q_OR:
				{
					bool		is_and = in.op == GH_Q_AND,
								any_null = false,
								hit = false;

					for (uint32_t j = 0; j < in.a; j++)
					{
						lval		v = st.back();

						st.pop_back();
						if (v.null)
							any_null = true;
						else if ((v.i != 0) != is_and)
							hit = true;
					}
					st.push_back(hit ? boolv(!is_and) : any_null ? lval() : boolv(is_and));
					break;
				}
			default:
				{
					lval		r = st.back();

					st.pop_back();
					lval		l = st.back();

					if (l.null || r.null)
					{
						st.back() = lval();
						break;
					}

					__int128	x = in.op == GH_Q_ADD ? (__int128) l.i + r.i
						: in.op == GH_Q_SUB ? (__int128) l.i - r.i : (__int128) l.i * r.i;
					lval		o;

					o.null = false;
					if (in.b == GH_M_DATE_INT)
					{
						if (l.i == INT32_MIN || l.i == INT32_MAX)
							x = l.i;
						else if (x < -2451545 || x >= 2147483494 - 2451545)
							return 2;
					}
					else if (in.b == GH_M_INT4 ? (x < INT32_MIN || x > INT32_MAX)
							 : (x < INT64_MIN || x > INT64_MAX))
						return 2;
					o.i = (int64_t) x;
					st.back() = o;
					break;
				}
		}
	}
	return !st.back().null && st.back().i ? 1 : 0;
}

/* gpuhash_encode_datum + gpuhash_pack over the key columns; false if NULL. */
static inline bool
ref_key(const gh_page_scan &s, const std::vector<lval> &cols, uint64_t *key)
{
	uint64_t	k = 0;

	for (int i = 0; i < s.nkeys; i++)
	{
		const lval &v = cols[s.key[i].col];

		if (v.null)
			return false;

		uint64_t	x = s.key[i].conv == 0 ? (uint64_t) (int64_t) (int16_t) v.i
			: s.key[i].conv == 1 ? (uint64_t) (int64_t) (int32_t) v.i
			: s.key[i].conv == 3 ? (uint64_t) (uint32_t) v.i
			: s.key[i].conv == 4 ? (uint64_t) (v.i != 0) : (uint64_t) v.i;
		int			w = s.key[i].width;

		k = s.nkeys == 1 ? x : (k << w) | (x & (w >= 64 ? ~0ULL : ((1ULL << w) - 1)));
	}
	*key = k;
	return true;
}

}								/* namespace pagetest */

#endif							/* GPUHASH_TEST_PAGE_REFERENCE_H */
