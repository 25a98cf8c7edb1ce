/*
 * agg_fold.cuh
 *		Partial aggregation, written once for the GPU kernel (gpu_agg.cu)
 *		and the host twin (host_agg.cpp): the group key, the exact numeric
 *		fixed point, folding a row into its group's states and the group
 *		table.
 *
 * Exactness under concurrency: every state word is updated by one atomic
 * operation that commutes (adds, min, max, a compare-and-swap that only
 * raises a packed (dscale, count) pair), so the final words do not depend
 * on the order of the updates.  The 192-bit sum is three 64-bit words:
 * each add to a word returns the word's old value, from which the adder
 * knows whether it wrapped, and it then adds that carry into the next
 * word.  The carries that reach a word are exactly the wraps of the word
 * below, so the three words end as the exact sum modulo 2^192, and the
 * inputs (each below 2^126 in magnitude, at most 2^63 of them) keep the
 * true sum far inside that range.  On the host the same functions run
 * with plain loads and stores (gh_at_*), one thread.
 */
#ifndef GPUHASH_AGG_FOLD_CUH
#define GPUHASH_AGG_FOLD_CUH

#include "gpuhash_agg.h"
#include "page_types.cuh"
#include "page_walk.cuh"

#include <math.h>

typedef __int128 gh_i128;
typedef unsigned __int128 gh_u128;

#define GH_I128_LIMIT	(((gh_i128) 1) << 126)	/* the largest magnitude folded */

/*
 * ---- atomics on the GPU (A), plain operations in the host twin and on a
 * thread's own state (!A) ----
 */

#if defined(__CUDA_ARCH__)
#define GH_AT(atomic, plain) do { if (A) { atomic; } else { plain; } } while (0)
#else
#define GH_AT(atomic, plain) do { plain; } while (0)
#endif

template <bool A = true>
GH_HD uint64_t
gh_at_add(uint64_t *p, uint64_t v)
{
	uint64_t	o;

	GH_AT(o = atomicAdd((unsigned long long *) p, (unsigned long long) v), (o = *p, *p = o + v));
	return o;
}

template <bool A = true>
GH_HD double
gh_at_fadd(double *p, double v)
{
	double		o;

	GH_AT(o = atomicAdd(p, v), (o = *p, *p = o + v));
	return o;
}

template <bool A = true>
GH_HD float
gh_at_fadd4(float *p, float v)
{
	float		o;

	GH_AT(o = atomicAdd(p, v), (o = *p, *p = o + v));
	return o;
}

template <bool A = true>
GH_HD void
gh_at_min(int64_t *p, int64_t v)
{
	GH_AT(atomicMin((long long *) p, (long long) v), (*p = v < *p ? v : *p));
}

template <bool A = true>
GH_HD void
gh_at_max(int64_t *p, int64_t v)
{
	GH_AT(atomicMax((long long *) p, (long long) v), (*p = v > *p ? v : *p));
}

template <bool A = true>
GH_HD uint64_t
gh_at_cas(uint64_t *p, uint64_t expect, uint64_t v)
{
	uint64_t	o;

	GH_AT(o = atomicCAS((unsigned long long *) p, (unsigned long long) expect,
						(unsigned long long) v),
		  (o = *p, *p = o == expect ? v : o));
	return o;
}

template <bool A = true>
GH_HD void
gh_at_or(uint32_t *p, uint32_t v)
{
	GH_AT(atomicOr(p, v), (*p |= v));
}

/* Adds (v0, v1, v2) to the 192-bit sum w, carrying as described above. */
template <bool A = true>
GH_HD void
gh_acc_add3(uint64_t *w, uint64_t v0, uint64_t v1, uint64_t v2)
{
	uint64_t	c = 0,
				c2 = 0;

	if (v0 != 0 && gh_at_add<A>(&w[0], v0) + v0 < v0)
		c = 1;
	if (v1 != 0 && gh_at_add<A>(&w[1], v1) + v1 < v1)
		c2++;
	if (c && gh_at_add<A>(&w[1], 1) == ~UINT64_C(0))
		c2++;
	if (v2 + c2 != 0)
		gh_at_add<A>(&w[2], v2 + c2);
}

/* Adds v, sign-extended to 192 bits. */
template <bool A = true>
GH_HD void
gh_acc_add(uint64_t *w, gh_i128 v)
{
	gh_acc_add3<A>(w, (uint64_t) (gh_u128) v, (uint64_t) ((gh_u128) v >> 64),
				   v < 0 ? ~UINT64_C(0) : 0);
}

/* ---- numerics ---- */

/* The display scale of numeric data (its header; 0 for NaN and infinities). */
GH_HD int
gh_num_dscale(const uint8_t *p)
{
	uint32_t	h = gh_ld16(p);

	if ((h & GH_NUM_SIGN_MASK) == GH_NUM_SPECIAL)
		return 0;
	if (h & GH_NUM_SHORT)
		return (int) ((h & 0x1F80) >> 7);
	return (int) (h & 0x3FFF);
}

/* 10^e for 0 <= e <= 38 */
GH_HD gh_u128
gh_pow10(int e)
{
	gh_u128		r = 1;

	for (int i = 0; i < e; i++)
		r *= 10;
	return r;
}

/*
 * A finite numeric as an integer times 10^-scale, exactly: false if it has
 * nonzero digits beyond scale or its magnitude reaches GH_I128_LIMIT.
 */
GH_HD bool
gh_num_fixed(const gh_num &n, int scale, gh_i128 *out)
{
	gh_u128		v = 0;
	int			first = 0,
				last = n.ndigits;

	/* leading and trailing zero digits carry no information */
	while (first < last && gh_num_digit(n, first) == 0)
		first++;
	while (last > first && gh_num_digit(n, last - 1) == 0)
		last--;
	if (first == last)
	{
		*out = 0;
		return true;
	}
	for (int i = first; i < last; i++)
	{
		int			d = gh_num_digit(n, i);

		if (d < 0 || d > 9999 || v >= (gh_u128) GH_I128_LIMIT / 10000)
			return false;
		v = v * 10000 + (gh_u128) d;
	}

	/* v * 10000^(weight - last + 1) * 10^scale */
	int			e = 4 * (n.weight - first - (last - first) + 1) + scale;

	if (e > 0)
	{
		if (e > 38 || v >= (gh_u128) GH_I128_LIMIT / gh_pow10(e))
			return false;
		v *= gh_pow10(e);
	}
	else if (e < 0)
	{
		if (-e > 38)
			return false;

		gh_u128		p = gh_pow10(-e);

		if (v % p != 0)
			return false;
		v /= p;
	}
	*out = n.neg ? -(gh_i128) v : (gh_i128) v;
	return true;
}

/* v * 10^(to - from), exactly, or false. */
GH_HD bool
gh_rescale(gh_i128 v, int from, int to, gh_i128 *out)
{
	gh_u128		a = v < 0 ? (gh_u128) (-v) : (gh_u128) v;

	if (to >= from)
	{
		if (to - from > 38 || a >= (gh_u128) GH_I128_LIMIT / gh_pow10(to - from))
			return false;
		a *= gh_pow10(to - from);
	}
	else
	{
		if (from - to > 38)
			return a == 0 ? (*out = 0, true) : false;

		gh_u128		p = gh_pow10(from - to);

		if (a % p != 0)
			return false;
		a /= p;
	}
	*out = v < 0 ? -(gh_i128) a : (gh_i128) a;
	return true;
}

/* Raises the packed (dscale << 40 | count) word by n inputs of dscale: a
 * larger dscale restarts the count at n, an equal one adds n, a smaller one
 * leaves it.  The result does not depend on the order of the calls. */
template <bool A = true>
GH_HD void
gh_scale_note(uint64_t *w, uint32_t dscale, uint64_t n = 1)
{
	uint64_t	cur = A ? *(volatile uint64_t *) w : *w;

	for (;;)
	{
		uint32_t	d = (uint32_t) (cur >> 40);
		uint64_t	nv;

		if (dscale < d || (dscale == d && n == 0))
			return;
		nv = dscale > d ? ((uint64_t) dscale << 40) | n : cur + n;

		uint64_t	o = gh_at_cas<A>(w, cur, nv);

		if (o == cur)
			return;
		cur = o;
	}
}

/*
 * The factor 1 - v (sign -1), 1 + v (sign 1) or v (0) of a value v at
 * display scale ds, at that scale: numeric_sub's and numeric_add's result
 * scale is the larger of 1's (0) and v's.  false past GH_I128_LIMIT.
 */
GH_HD bool
gh_num_factor(gh_i128 v, int ds, int sign, gh_i128 *out)
{
	if (sign == 0)
	{
		*out = v;
		return true;
	}
	if (ds > 37)
		return false;

	/* both below 2^126 in magnitude: the sum fits 128 bits */
	gh_i128		one = (gh_i128) gh_pow10(ds),
				r = sign > 0 ? one + v : one - v;

	if (r >= GH_I128_LIMIT || r <= -GH_I128_LIMIT)
		return false;
	*out = r;
	return true;
}

/* a * b exactly (numeric_mul of two fixed-point values: scales add), or
 * false if its magnitude reaches GH_I128_LIMIT. */
GH_HD bool
gh_mul_fit(gh_i128 a, gh_i128 b, gh_i128 *out)
{
	gh_u128		ua = a < 0 ? (gh_u128) (-a) : (gh_u128) a,
				ub = b < 0 ? (gh_u128) (-b) : (gh_u128) b;

	if (ua != 0 && ub > ((gh_u128) GH_I128_LIMIT - 1) / ua)
		return false;
	*out = a * b;
	return true;
}

/* ---- floats ---- */

/* A double's bits as an int64 that orders as float8_cmp_internal does
 * (every NaN one value, above +Infinity; -0 just below +0).  An
 * involution on the non-NaN values. */
GH_HD int64_t
gh_float_key(uint64_t bits)
{
	if ((bits & UINT64_C(0x7FFFFFFFFFFFFFFF)) > UINT64_C(0x7FF0000000000000))
		return INT64_MAX;

	int64_t		s = (int64_t) bits;

	return s >= 0 ? s : s ^ INT64_MAX;
}

GH_HD uint64_t
gh_float_unkey(int64_t k)
{
	if (k == INT64_MAX)
		return UINT64_C(0x7FF8000000000000);
	return (uint64_t) (k >= 0 ? k : k ^ INT64_MAX);
}

GH_HD bool
gh_is_float(uint8_t t)
{
	return t == GH_T_FLOAT4 || t == GH_T_FLOAT8;
}

/* ---- the group key ---- */

/*
 * The packed group key and null mask of a row: false if a bpchar key is
 * longer than its width (the page is refused).
 */
GH_HD bool
gh_agg_key(const gh_agg_prog *agg, const gh_pval *cols, const uint8_t *page, uint64_t *key,
		   uint8_t *nulls)
{
	uint64_t	k = 0;
	uint8_t		nm = 0;

	for (int i = 0; i < agg->nkeys; i++)
	{
		const gh_page_key &pk = agg->key[i];
		const gh_pval &v = cols[pk.col];
		uint64_t	x = 0;

		if (v.null)
			nm |= (uint8_t) (1u << i);
		else if (pk.conv == GH_AGG_KEY_BPCHAR || pk.conv == GH_AGG_KEY_TEXT)
		{
			const uint8_t *p = page + v.ref;
			uint32_t	len = pk.conv == GH_AGG_KEY_TEXT ? v.len : gh_bpchar_len(p, v.len);

			if (len * 8 > pk.width)
				return false;
			for (uint32_t j = 0; j < pk.width / 8; j++)
				x = (x << 8) | (j < len ? p[j] : 0);
		}
		else
			x = gh_key_encode(v.bits, pk.conv);
		if (agg->nkeys == 1)
			k = x;
		else
			k = (k << pk.width) | (pk.width >= 64 ? x : x & ((UINT64_C(1) << pk.width) - 1));
	}
	*key = k;
	*nulls = nm;
	return true;
}

/* ---- folding ---- */

/* The identity a fresh state starts from. */
GH_HD void
gh_agg_state_init(const gh_agg_spec &sp, gh_agg_state *st)
{
	memset(st, 0, sizeof(*st));
	if (sp.fn == GH_AGG_MIN)
		st->mm = (uint64_t) INT64_MAX;
	else if (sp.fn == GH_AGG_MAX)
		st->mm = (uint64_t) INT64_MIN;
	else if (sp.fn == GH_AGG_SUM)
	{
		/*
		 * float4pl/float8pl's sum starts from the first input, not from 0:
		 * a sum of -0 inputs only is -0, which 0 + -0 (= +0) would lose.
		 * -0 is IEEE addition's identity.  A float4 sum lives in mm's low
		 * bytes while folding; other types' sums use neither field.
		 */
		const float nz4 = -0.0f;

		st->fsum = -0.0;
		memcpy(&st->mm, &nz4, sizeof(nz4));
	}
}

enum
{
	GH_NUMV_FINITE = 0,
	GH_NUMV_UNFIT,				/* undecodable, or not within 2^126 */
	GH_NUMV_NAN,
	GH_NUMV_PINF,
	GH_NUMV_NINF
};

/* A numeric operand: its class, and a finite one's fixed-point value at
 * its own display scale. */
GH_HD int
gh_num_operand(const uint8_t *page, const gh_pval &v, gh_i128 *x, int *dscale)
{
	gh_num		n;

	if (!gh_num_decode(page + v.ref, v.len, &n))
		return GH_NUMV_UNFIT;
	if (n.cls != 0)
		return n.cls == 2 ? GH_NUMV_NAN : n.cls == 1 ? GH_NUMV_PINF : GH_NUMV_NINF;
	*dscale = gh_num_dscale(page + v.ref);
	return gh_num_fixed(n, *dscale, x) ? GH_NUMV_FINITE : GH_NUMV_UNFIT;
}

/* Folds one row's value of aggregate sp (input type t) into st. */
template <bool A = true>
GH_HD void
gh_agg_fold(const gh_agg_spec &sp, uint8_t t, gh_agg_state *st, const gh_pval *cols,
			const uint8_t *page)
{
	if (sp.fn == GH_AGG_COUNT_STAR)
	{
		gh_at_add<A>((uint64_t *) &st->count, 1);
		return;
	}

	const gh_pval &v = cols[sp.col];

	if (v.null || (sp.expr != GH_AGG_E_COL && cols[sp.col2].null) ||
		(sp.expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS && cols[sp.col3].null))
		return;
	if (sp.fn == GH_AGG_COUNT)
	{
		gh_at_add<A>((uint64_t *) &st->count, 1);
		return;
	}
	if (t == GH_T_NUMERIC)
	{
		gh_i128		x = 0;
		int			ds = 0;
		int			c = gh_num_operand(page, v, &x, &ds);

		if (sp.expr != GH_AGG_E_COL)
		{
			gh_i128		y = 0;
			int			ds2 = 0;
			int			c2 = gh_num_operand(page, cols[sp.col2], &y, &ds2);

			if (c != GH_NUMV_FINITE || c2 != GH_NUMV_FINITE)
				c = GH_NUMV_UNFIT;	/* NaN or infinity in the product: the CPU */
			else if (!gh_num_factor(y, ds2, sp.expr == GH_AGG_E_MUL ? 0 : -1, &y) ||
					 !gh_mul_fit(x, y, &x))
				c = GH_NUMV_UNFIT;
			else
				ds += ds2;		/* numeric_mul's exact product: dscale the sum */
			if (c == GH_NUMV_FINITE && sp.expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS)
			{
				gh_i128		z = 0;
				int			ds3 = 0;

				/* (col * (1 - col2)) * (1 + col3): exact again, dscale + ds3 */
				if (gh_num_operand(page, cols[sp.col3], &z, &ds3) != GH_NUMV_FINITE ||
					!gh_num_factor(z, ds3, 1, &z) || !gh_mul_fit(x, z, &x))
					c = GH_NUMV_UNFIT;
				else
					ds += ds3;
			}
		}
		if (c == GH_NUMV_UNFIT || sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX)
		{
			/* numeric min/max keep the input's own dscale: the CPU's */
			gh_at_or<A>(&st->flags, GH_AGG_S_FALLBACK);
			return;
		}
		if (c == GH_NUMV_NAN)
			gh_at_add<A>((uint64_t *) &st->nan, 1);
		else if (c == GH_NUMV_PINF)
			gh_at_add<A>((uint64_t *) &st->pinf, 1);
		else if (c == GH_NUMV_NINF)
			gh_at_add<A>((uint64_t *) &st->ninf, 1);
		else
		{
			gh_i128		s;

			if (!gh_rescale(x, ds, sp.scale, &s))
			{
				gh_at_or<A>(&st->flags, GH_AGG_S_FALLBACK);
				return;
			}
			gh_scale_note<A>(&st->scale_word, (uint32_t) ds);
			gh_acc_add<A>(st->sum, s);
			gh_at_add<A>((uint64_t *) &st->count, 1);
		}
		return;
	}

	gh_at_add<A>((uint64_t *) &st->count, 1);
	if (gh_is_float(t))
	{
		double		d;

		memcpy(&d, &v.bits, 8);
		if (sp.fn == GH_AGG_MIN)
			gh_at_min<A>((int64_t *) &st->mm, gh_float_key(v.bits));
		else if (sp.fn == GH_AGG_MAX)
			gh_at_max<A>((int64_t *) &st->mm, gh_float_key(v.bits));
		else if (t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM)
		{
			/* float4pl: float arithmetic, its overflow an error */
			float		f = (float) d,
						o = gh_at_fadd4<A>((float *) &st->mm, f),
						r = o + f;

			if (isinf(r) && !isinf(o) && !isinf(f))
				gh_at_or<A>(&st->flags, GH_AGG_S_FLOAT_OVERFLOW);
		}
		else
		{
			double		o = gh_at_fadd<A>(&st->fsum, d),
						r = o + d;

			if (isinf(r) && !isinf(o) && !isinf(d))
				gh_at_or<A>(&st->flags, GH_AGG_S_FLOAT_OVERFLOW);
		}
		return;
	}

	int64_t		i = (int64_t) v.bits;

	if (sp.fn == GH_AGG_MIN)
		gh_at_min<A>((int64_t *) &st->mm, i);
	else if (sp.fn == GH_AGG_MAX)
		gh_at_max<A>((int64_t *) &st->mm, i);
	else
		gh_acc_add<A>(st->sum, (gh_i128) i);
}

/*
 * After the walk: dscale and dscale_count out of their packed word, a
 * float min/max back to a double's bits, a float4 sum (held as a float in
 * mm's low bytes while folding) into fsum.
 */
GH_HD void
gh_agg_state_finish(const gh_agg_spec &sp, uint8_t t, gh_agg_state *st)
{
	st->dscale = (uint32_t) (st->scale_word >> 40);
	st->dscale_count = (int64_t) (st->scale_word & ((UINT64_C(1) << 40) - 1));
	if (gh_is_float(t) && (sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX))
	{
		if (st->count > 0)
			st->mm = gh_float_unkey((int64_t) st->mm);
	}
	else if (t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM)
	{
		float		f;

		memcpy(&f, &st->mm, 4);
		st->fsum = f;
		st->mm = 0;
	}
}

/*
 * Adds state c (a few rows folded, unfinished) into d: non-atomically (a
 * warp's rows of one group gathered by its leader) or atomically (the
 * leader's sum into the group table).  Each field's update commutes, as
 * the fold's do.
 */
template <bool A>
GH_HD void
gh_agg_state_add(const gh_agg_spec &sp, uint8_t t, gh_agg_state *d, const gh_agg_state &c)
{
	if (c.count != 0)
		gh_at_add<A>((uint64_t *) &d->count, (uint64_t) c.count);
	if (c.sum[0] | c.sum[1] | c.sum[2])
		gh_acc_add3<A>(d->sum, c.sum[0], c.sum[1], c.sum[2]);
	if (c.flags)
		gh_at_or<A>(&d->flags, c.flags);
	if (t == GH_T_NUMERIC)
	{
		if (c.nan)
			gh_at_add<A>((uint64_t *) &d->nan, (uint64_t) c.nan);
		if (c.pinf)
			gh_at_add<A>((uint64_t *) &d->pinf, (uint64_t) c.pinf);
		if (c.ninf)
			gh_at_add<A>((uint64_t *) &d->ninf, (uint64_t) c.ninf);
		gh_scale_note<A>(&d->scale_word, (uint32_t) (c.scale_word >> 40),
						 c.scale_word & ((UINT64_C(1) << 40) - 1));
		return;
	}
	if (c.count == 0)
		return;
	if (sp.fn == GH_AGG_MIN)
		gh_at_min<A>((int64_t *) &d->mm, (int64_t) c.mm);
	else if (sp.fn == GH_AGG_MAX)
		gh_at_max<A>((int64_t *) &d->mm, (int64_t) c.mm);
	else if (t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM)
	{
		float		f,
					o,
					r;

		memcpy(&f, &c.mm, 4);
		o = gh_at_fadd4<A>((float *) &d->mm, f);
		r = o + f;
		if (isinf(r) && !isinf(o) && !isinf(f))
			gh_at_or<A>(&d->flags, GH_AGG_S_FLOAT_OVERFLOW);
	}
	else if (gh_is_float(t))
	{
		double		o = gh_at_fadd<A>(&d->fsum, c.fsum),
					r = o + c.fsum;

		if (isinf(r) && !isinf(o) && !isinf(c.fsum))
			gh_at_or<A>(&d->flags, GH_AGG_S_FLOAT_OVERFLOW);
	}
}

/* ---- the group table: open addressing over (key, null mask) ---- */

#define GH_AGG_SLOT_EMPTY	0u
#define GH_AGG_SLOT_BUSY	1u
#define GH_AGG_SLOT_READY	2u

struct gh_agg_table
{
	uint32_t   *ctrl;			/* slot states */
	uint64_t   *keys;
	uint8_t    *nulls;
	uint32_t   *group;			/* a slot's group: its index into states */
	gh_agg_state *states;		/* max_groups * naggs, dense in claim order */
	uint64_t	mask;			/* slots - 1, a power of two minus one */
	unsigned long long *n_groups;	/* groups claimed (may pass max_groups) */
	uint32_t   *overflow;		/* set when more than max_groups */
	uint64_t	max_groups;		/* the caller's, or the request's rows if fewer */
	int			naggs;
};

GH_HD uint32_t
gh_at_cas32(uint32_t *p, uint32_t expect, uint32_t v)
{
#if defined(__CUDA_ARCH__)
	return atomicCAS(p, expect, v);
#else
	uint32_t	o = *p;

	if (o == expect)
		*p = v;
	return o;
#endif
}

/*
 * The index of group (key, nulls) into t.states, claimed and initialized
 * if new; -1 when a new group would pass max_groups (the request's
 * overflow is set and the row is not folded: the caller redoes the whole
 * request).  A claimer takes a slot EMPTY -> BUSY, takes the next group
 * index, writes key and states, then marks the slot READY after a fence;
 * a reader meeting BUSY waits for READY.
 */
GH_HD int64_t
gh_agg_find(const gh_agg_table &t, const gh_agg_prog *agg, uint64_t key, uint8_t nulls)
{
	uint64_t	h = gh_fmix64(key ^ ((uint64_t) nulls << 56) ^ 0x9E3779B97F4A7C15ULL) & t.mask;

	for (uint64_t probe = 0; probe <= t.mask; probe++)
	{
		uint32_t   *c = &t.ctrl[h];
		uint32_t	s = *(volatile uint32_t *) c;

		if (s == GH_AGG_SLOT_EMPTY)
		{
			if (*(volatile uint32_t *) t.overflow)
				return -1;
			s = gh_at_cas32(c, GH_AGG_SLOT_EMPTY, GH_AGG_SLOT_BUSY);
			if (s == GH_AGG_SLOT_EMPTY)
			{
				uint64_t	g = gh_at_add((uint64_t *) t.n_groups, 1);

				if (g >= t.max_groups)
				{
					/* READY without states, so that waiters move on */
					gh_at_or(t.overflow, 1);
					g = UINT32_MAX;
				}
				else
					for (int a = 0; a < t.naggs; a++)
						gh_agg_state_init(agg->agg[a], &t.states[g * t.naggs + a]);
				t.keys[h] = key;
				t.nulls[h] = nulls;
				t.group[h] = (uint32_t) g;
#if defined(__CUDA_ARCH__)
				__threadfence();
				atomicExch(c, GH_AGG_SLOT_READY);
#else
				*c = GH_AGG_SLOT_READY;
#endif
				return g == UINT32_MAX ? -1 : (int64_t) g;
			}
		}
		while (s == GH_AGG_SLOT_BUSY)
			s = *(volatile uint32_t *) c;
#if defined(__CUDA_ARCH__)
		__threadfence();
#endif
		if (*(volatile uint64_t *) &t.keys[h] == key && *(volatile uint8_t *) &t.nulls[h] == nulls)
		{
			uint32_t	g = *(volatile uint32_t *) &t.group[h];

			return g == UINT32_MAX ? -1 : (int64_t) g;
		}
		h = (h + 1) & t.mask;
	}
	gh_at_or(t.overflow, 1);
	return -1;
}

#endif							/* GPUHASH_AGG_FOLD_CUH */
