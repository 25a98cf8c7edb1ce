/*
 * agg_ref.h
 *		The reference of core_agg.cpp and core_agg_join.cpp: an aggregate's
 *		state folded over a row's logical values in exact arithmetic
 *		(__int128 at a fixed scale), the group key packed from them, and
 *		the comparisons of a group set with the reference and with another
 *		set (bit for bit).  The checks count through aggref::checks and
 *		aggref::failures, which each test file sets.
 */
#ifndef GPUHASH_TEST_AGG_REF_H
#define GPUHASH_TEST_AGG_REF_H

#include "gpuhash_agg.h"
#include "page_builder.h"
#include "test_check.h"

#include <cmath>
#include <functional>
#include <map>
#include <stdlib.h>
#include <string.h>
#include <vector>

namespace aggref
{

using pagetest::cell;
using pagetest::lval;
using std::vector;

static int *checks,
		   *failures;

#define RCHECK(cond, ...) GH_TEST_CHECK(aggref::checks, aggref::failures, cond, __VA_ARGS__)

typedef __int128 i128;

/* The type of column index i of a program (the scan's or the dimension's). */
typedef std::function<uint8_t(int)> coltype_fn;

static inline i128
pow10i(int e)
{
	i128		r = 1;

	while (e-- > 0)
		r *= 10;
	return r;
}

/* The reference state of one aggregate in one group. */
struct ref_state
{
	int64_t		count = 0;
	i128		sum = 0;
	double		fsum = 0;
	float		fsum4 = 0;
	bool		have = false;
	int64_t		mi = 0;
	double		mf = 0;
	int64_t		nan = 0,
				pinf = 0,
				ninf = 0;
	int			dscale = 0;
	int64_t		dscale_count = 0;
	bool		fallback = false;
};

/* float8_cmp_internal */
static inline int
fcmp(double a, double b)
{
	if (std::isnan(a) || std::isnan(b))
		return std::isnan(a) && std::isnan(b) ? 0 : std::isnan(a) ? 1 : -1;
	return a < b ? -1 : a > b ? 1 : 0;
}

/* The type aggregate sp folds: a constant's or integer arithmetic's, or
 * its column's. */
static inline uint8_t
in_type(const gh_agg_spec &sp, const coltype_fn &type)
{
	return sp.expr == GH_AGG_E_CONST || GH_AGG_E_IS_INT(sp.expr) ? sp.type : type(sp.col);
}

/*
 * Folds one row into st: row[i] is column index i's value; cond_true is
 * whether the aggregate's condition (if any) is TRUE for it.
 */
static inline void
ref_fold(const gh_agg_spec &sp, uint8_t t, ref_state &st, const vector<cell> &row,
		 bool cond_true = true)
{
	if (sp.fn == GH_AGG_COUNT_STAR)
	{
		st.count++;
		return;
	}

	lval		v;
	int			expr = sp.expr;

	if (sp.cond_len > 0 && !cond_true)
	{
		if (sp.else_kind != GH_AGG_ELSE_ZERO)
			return;
		/* the else value: a zero of the input type, display scale 0 */
		v.null = false;
		v.i = 0;
		v.f = 0.0;
		expr = GH_AGG_E_COL;
	}
	else if (sp.expr == GH_AGG_E_CONST)
	{
		v.null = false;
		v.i = sp.konst;
		expr = GH_AGG_E_COL;
	}
	else
		v = row[sp.col].v;
	if (v.null || (expr != GH_AGG_E_COL && row[sp.col2].v.null) ||
		(expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS && row[sp.col3].v.null))
		return;
	if (GH_AGG_E_IS_INT(expr))
	{
		/* the exact result, in or out of the operator's type (count too) */
		i128		x = v.i,
					y = row[sp.col2].v.i,
					r = expr == GH_AGG_E_INT_ADD ? x + y : expr == GH_AGG_E_INT_SUB ? x - y : x * y;
		int			bits = t == GH_T_INT2 ? 16 : t == GH_T_INT4 ? 32 : 64;

		if (r < -((i128) 1 << (bits - 1)) || r >= ((i128) 1 << (bits - 1)))
		{
			st.fallback = true;
			return;
		}
		v.i = (int64_t) r;
		expr = GH_AGG_E_COL;
	}
	if (sp.fn == GH_AGG_COUNT)
	{
		st.count++;
		return;
	}
	if (t == GH_T_NUMERIC)
	{
		i128		x = v.n.m;
		int			ds = v.n.dscale,
					sc = v.n.scale;

		if (expr == GH_AGG_E_MUL || expr == GH_AGG_E_MUL_ONE_MINUS ||
			expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS)
		{
			const pagetest::num &d = row[sp.col2].v.n;

			if (v.n.cls != 0 || d.cls != 0)
			{
				st.fallback = true;
				return;
			}
			x = x * (expr == GH_AGG_E_MUL ? (i128) d.m : pow10i(d.scale) - d.m);
			sc += d.scale;
			ds += d.dscale;
		}
		if (expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS)
		{
			const pagetest::num &t3 = row[sp.col3].v.n;

			if (t3.cls != 0)
			{
				st.fallback = true;
				return;
			}
			x = x * (pow10i(t3.scale) + t3.m);
			sc += t3.scale;
			ds += t3.dscale;
		}
		if (sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX)
		{
			st.fallback = true;
			return;
		}
		if (v.n.cls != 0)
		{
			(v.n.cls == 2 ? st.nan : v.n.cls == 1 ? st.pinf : st.ninf)++;
			return;
		}
		if (sc > sp.scale)
		{
			/* exact only if the extra digits are zero */
			if (x % pow10i(sc - sp.scale) != 0)
			{
				st.fallback = true;
				return;
			}
			x /= pow10i(sc - sp.scale);
		}
		else
			x *= pow10i(sp.scale - sc);
		if (ds > st.dscale)
		{
			st.dscale = ds;
			st.dscale_count = 1;
		}
		else if (ds == st.dscale)
			st.dscale_count++;
		st.sum += x;
		st.count++;
		return;
	}
	st.count++;
	if (t == GH_T_FLOAT4 || t == GH_T_FLOAT8)
	{
		double		f = t == GH_T_FLOAT4 ? (double) (float) v.f : v.f;

		if (sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX)
		{
			int			c = st.have ? fcmp(f, st.mf) : 0;

			if (!st.have || (sp.fn == GH_AGG_MIN ? c < 0 : c > 0))
				st.mf = f;
			st.have = true;
		}
		else if (t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM)
			st.fsum4 += (float) f;
		else
			st.fsum += f;
		return;
	}
	if (sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX)
	{
		if (!st.have || (sp.fn == GH_AGG_MIN ? v.i < st.mi : v.i > st.mi))
			st.mi = v.i;
		st.have = true;
	}
	else
		st.sum += v.i;
}

/* a packed key: key[0 .. kw), the most significant word first */
struct gkey
{
	uint8_t		nulls;
	int			kw;
	uint64_t	key[GH_AGG_KEY_WORDS];
	bool		operator<(const gkey &o) const
	{
		if (nulls != o.nulls)
			return nulls < o.nulls;
		for (int j = 0; j < kw; j++)
			if (key[j] != o.key[j])
				return key[j] < o.key[j];
		return false;
	}
};

/* k's words shifted left by n bits (1..64), x's low n bits put in */
static inline void
ref_push(gkey &k, uint64_t x, int n)
{
	unsigned __int128 carry = n < 64 ? x & ((UINT64_C(1) << n) - 1) : x;

	for (int j = k.kw - 1; j >= 0; j--)
	{
		unsigned __int128 w = ((unsigned __int128) k.key[j] << n) | carry;

		k.key[j] = (uint64_t) w;
		carry = w >> 64;
	}
}

typedef std::map<gkey, vector<ref_state>> ref_groups;

/* The group key of a row (gh_agg_key over logical values); false when a
 * text key is wider than its width (the walker refuses the page). */
static inline bool
ref_group_key(const gh_agg_prog &p, const vector<cell> &row, gkey *out)
{
	gkey		k;

	memset(&k, 0, sizeof(k));
	k.kw = gh_agg_key_words(&p);
	for (int j = 0; j < p.nkeys; j++)
	{
		const gh_page_key &pk = p.key[j];
		const lval &v = row[pk.col].v;
		const int	width = gh_agg_key_bits(&p, j);
		uint64_t	x = 0;

		if (v.null)
			k.nulls |= (uint8_t) (1 << j);
		if (v.null && k.kw > 1)
		{
			for (int b = 0; b < width; b += 64)
				ref_push(k, 0, std::min(64, width - b));
			continue;
		}
		if (v.null)
			;
		else if (pk.conv == GH_AGG_KEY_BPCHAR || pk.conv == GH_AGG_KEY_TEXT)
		{
			std::string b = v.s;

			while (pk.conv == GH_AGG_KEY_BPCHAR && !b.empty() && b.back() == ' ')
				b.pop_back();
			if ((int) b.size() * 8 > width)
				return false;
			for (int c = 0; c < width / 8; c++)
			{
				uint8_t		byte = c < (int) b.size() ? (uint8_t) b[c] : 0;

				if (k.kw > 1)
					ref_push(k, byte, 8);
				x = (x << 8) | byte;
			}
			if (k.kw > 1)
				continue;
		}
		else
			x = pk.conv == 0 ? (uint64_t) (int64_t) (int16_t) v.i
				: pk.conv == 1 ? (uint64_t) (int64_t) (int32_t) v.i
				: pk.conv == 3 ? (uint64_t) (uint32_t) v.i
				: pk.conv == 4 ? (uint64_t) (v.i != 0) : (uint64_t) v.i;
		if (k.kw > 1)
		{
			ref_push(k, x, width);
			continue;
		}
		k.key[0] = p.nkeys == 1 ? x : (k.key[0] << width) |
			(width >= 64 ? x : x & ((UINT64_C(1) << width) - 1));
	}
	*out = k;
	return true;
}

static inline i128
state_sum(const gh_agg_state &s)
{
	/* the 192-bit sum as an __int128, when its top word is the sign */
	return (i128) (((unsigned __int128) s.sum[1] << 64) | s.sum[0]);
}

static inline bool
sum_fits_128(const gh_agg_state &s)
{
	uint64_t	sign = (int64_t) s.sum[1] < 0 ? ~UINT64_C(0) : 0;

	return s.sum[2] == sign;
}

static inline bool
same_double(double a, double b)
{
	return (std::isnan(a) && std::isnan(b)) || a == b;
}

static inline void
compare_ref(const char *tag, const gh_agg_groups &out, const ref_groups &want,
			const gh_agg_prog &p, const coltype_fn &type)
{
	RCHECK(out.n_groups == want.size(), "%s: %llu groups, the reference %zu", tag,
		   (unsigned long long) out.n_groups, want.size());

	size_t		gi = 0;
	int			bad = 0;

	for (const auto &kv : want)
	{
		if (gi >= out.n_groups)
			break;
		const int	kw = kv.first.kw;

		if (gh_agg_groups_key_words(&out) != kw ||
			memcmp(out.keys + gi * kw, kv.first.key, 8 * kw) != 0 ||
			out.nulls[gi] != kv.first.nulls)
		{
			RCHECK(false, "%s: group %zu key %llx../%x (%d words), the reference %llx../%x (%d)",
				   tag, gi, (unsigned long long) out.keys[gi * gh_agg_groups_key_words(&out)],
				   out.nulls[gi], gh_agg_groups_key_words(&out),
				   (unsigned long long) kv.first.key[0], kv.first.nulls, kw);
			return;
		}
		for (int a = 0; a < p.naggs && bad < 5; a++)
		{
			const gh_agg_spec &sp = p.agg[a];
			const gh_agg_state &s = out.states[gi * p.naggs + a];
			const ref_state &r = kv.second[a];
			uint8_t		t = in_type(sp, type);
			bool		ok;

			if (r.fallback)
			{
				ok = (s.flags & GH_AGG_S_FALLBACK) != 0;
			}
			else
			{
				ok = s.count == r.count && !(s.flags & GH_AGG_S_FALLBACK);
				if (sp.fn == GH_AGG_SUM || sp.fn == GH_AGG_AVG)
				{
					if (t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM)
						ok &= same_double(s.fsum, r.fsum4);
					else if (t == GH_T_FLOAT4 || t == GH_T_FLOAT8)
						ok &= same_double(s.fsum, r.fsum);
					else
						ok &= sum_fits_128(s) && state_sum(s) == r.sum;
					if (t == GH_T_NUMERIC)
						ok &= s.nan == r.nan && s.pinf == r.pinf && s.ninf == r.ninf &&
							(int) s.dscale == r.dscale && s.dscale_count == r.dscale_count;
				}
				else if ((sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX) && r.count > 0)
				{
					if (t == GH_T_FLOAT8 || t == GH_T_FLOAT4)
					{
						double		f;

						memcpy(&f, &s.mm, 8);
						ok &= same_double(f, r.mf);
					}
					else
						ok &= (int64_t) s.mm == r.mi;
				}
			}
			if (!ok)
			{
				bad++;
				RCHECK(false, "%s: group %zu aggregate %d (fn %d type %d): count %lld/%lld "
					   "flags %x fsum %g/%g dscale %u/%d", tag, gi, a, sp.fn, t,
					   (long long) s.count, (long long) r.count, s.flags, s.fsum,
					   t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM ? r.fsum4 : r.fsum,
					   s.dscale, r.dscale);
			}
		}
		gi++;
	}
	(*checks)++;
}

/* Two group sets equal: keys, and every state field bit for bit. */
static inline void
compare_sets(const char *tag, const gh_agg_groups &a, const gh_agg_groups &b)
{
	bool		ok = a.n_groups == b.n_groups && a.fallback_groups == b.fallback_groups;

	if (ok)
		ok = gh_agg_groups_key_words(&a) == gh_agg_groups_key_words(&b) &&
			!memcmp(a.keys, b.keys, 8 * gh_agg_groups_key_words(&a) * a.n_groups) &&
			!memcmp(a.nulls, b.nulls, a.n_groups);
	for (uint64_t i = 0; ok && i < a.n_groups * a.naggs; i++)
	{
		const gh_agg_state &x = a.states[i],
				   &y = b.states[i];

		ok = x.count == y.count && !memcmp(x.sum, y.sum, sizeof(x.sum)) &&
			same_double(x.fsum, y.fsum) && x.nan == y.nan && x.pinf == y.pinf &&
			x.ninf == y.ninf && x.dscale == y.dscale && x.dscale_count == y.dscale_count &&
			x.flags == y.flags;
		if (ok && x.mm != y.mm)
		{
			double		f,
						g;

			memcpy(&f, &x.mm, 8);
			memcpy(&g, &y.mm, 8);
			ok = std::isnan(f) && std::isnan(g);
		}
		if (!ok)
			fprintf(stderr, "%s: state %llu differs\n", tag, (unsigned long long) i);
	}
	RCHECK(ok, "%s: group sets differ", tag);
}

/*
 * Host memory registered once for the GPU's in-place reads (as the
 * service registers the buffer pool, for the process's life), shared by
 * the test files: n bytes of data copied into it, or NULL when they do not
 * fit or it cannot be registered.
 */
inline const uint8_t *
mapped_copy(const uint8_t *data, size_t n)
{
	static uint8_t *arena;
	const size_t arena_bytes = (size_t) 256 << 20;

	if (arena == nullptr)
	{
		arena = (uint8_t *) aligned_alloc(4096, arena_bytes);
		if (arena == nullptr || gh_page_register_host(arena, arena_bytes) != GH_OK)
		{
			fprintf(stderr, "  cannot register host memory: %s\n", gh_last_error());
			free(arena);
			arena = nullptr;
			return nullptr;
		}
	}
	if (n > arena_bytes)
		return nullptr;
	memcpy(arena, data, n);
	return arena;
}

}								/* namespace aggref */

#endif							/* GPUHASH_TEST_AGG_REF_H */
