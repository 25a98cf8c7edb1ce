/*
 * agg_num.cuh
 *		Partial aggregation's arithmetic, written once for the GPU kernel
 *		and the host twin: the state words' atomics, the exact numeric
 *		fixed point and the float order.
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
#ifndef GPUHASH_AGG_NUM_CUH
#define GPUHASH_AGG_NUM_CUH

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

#if defined(__CUDA_ARCH__)
/*
 * A float4 added atomically with IEEE subnormals kept: the f32 global
 * atomic add (atomicAdd(float *)) flushes subnormal inputs and results to
 * zero, where float4pl keeps them.  A CAS loop of a plain add instead.
 */
__device__ inline float
gh_fadd4_cas(float *p, float v)
{
	unsigned int *a = (unsigned int *) p;
	unsigned int old = *a,
				seen;

	do
	{
		seen = old;
		old = atomicCAS(a, seen, __float_as_uint(__fadd_rn(__uint_as_float(seen), v)));
	} while (old != seen);
	return __uint_as_float(old);
}
#endif

template <bool A = true>
GH_HD float
gh_at_fadd4(float *p, float v)
{
	float		o;

	GH_AT(o = gh_fadd4_cas(p, v), (o = *p, *p = o + v));
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

#endif							/* GPUHASH_AGG_NUM_CUH */
