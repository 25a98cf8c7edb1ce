/*
 * agg_fold.cuh
 *		Partial aggregation, written once for the GPU kernel (gpu_agg.cu)
 *		and the host twin (host_agg.cpp): the group key, folding a row
 *		into its group's states (conditions and constants included) and
 *		the group table.  The arithmetic is agg_num.cuh's.
 */
#ifndef GPUHASH_AGG_FOLD_CUH
#define GPUHASH_AGG_FOLD_CUH

#include "agg_num.cuh"

/* ---- column types: the scan's or a dimension's ---- */

/*
 * The type of column index col of an aggregation program: scan->col[col]'s,
 * or for GH_AGG_INNER_COL0 + j the dimension's column j.  Everything that
 * reads a column's type (group keys, folding, the check) asks here.
 */
GH_HD uint8_t
gh_agg_col_type(const gh_page_scan *scan, const gh_agg_prog *agg, int col)
{
	return col >= GH_AGG_INNER_COL0 ? agg->join.inner_type[col - GH_AGG_INNER_COL0]
		: scan->col[col].type;
}

/* The type of the value aggregate sp folds: a constant's or integer
 * arithmetic's own, or its column's. */
GH_HD uint8_t
gh_agg_in_type(const gh_page_scan *scan, const gh_agg_prog *agg, const gh_agg_spec &sp)
{
	return sp.expr == GH_AGG_E_CONST || GH_AGG_E_IS_INT(sp.expr) ? sp.type :
		gh_agg_col_type(scan, agg, sp.col);
}

/*
 * Integer arithmetic x op y (GH_AGG_E_INT_*) in integer type t, as int2pl,
 * int4mul, int48mi ... compute it: the scan quals' gh_arith (int4's and
 * int8's overflow rules), and int2's range for an int2 result; false where
 * PostgreSQL raises "smallint/integer/bigint out of range".  The walker
 * sign-extends int2 and int4 operands to int64.
 */
GH_HD bool
gh_agg_int_op(uint8_t expr, uint8_t t, int64_t x, int64_t y, int64_t *r)
{
	uint8_t		op = expr == GH_AGG_E_INT_ADD ? GH_Q_ADD : expr == GH_AGG_E_INT_SUB ? GH_Q_SUB : GH_Q_MUL;

	if (!gh_arith(op, t == GH_T_INT8 ? GH_M_INT8 : GH_M_INT4, x, y, r))
		return false;
	return t != GH_T_INT2 || *r == (int64_t) (int16_t) *r;
}

/* ---- the group key ---- */

/* a loop over a wide key's words, unrolled where nvcc compiles it */
#if defined(__CUDACC__)
#define GH_UNROLL	_Pragma("unroll")
#else
#define GH_UNROLL
#endif

/*
 * A wide key (KW words, w[0] the most significant) shifted
 * left by s bits (1..64), x's low s bits put in below: the packing of one
 * column after the others.  Unrolled over constant indices, so that the
 * GPU keeps the words in registers.
 */
template <int KW>
GH_HD void
gh_wkey_push(uint64_t *w, uint64_t x, int s)
{
	if (s < 64)
		x &= (UINT64_C(1) << s) - 1;
GH_UNROLL
	for (int i = 0; i < KW - 1; i++)
		w[i] = s >= 64 ? w[i + 1] : (w[i] << s) | (w[i + 1] >> (64 - s));
	w[KW - 1] = s >= 64 ? x : (w[KW - 1] << s) | x;
}

/*
 * A text or char(n) key's value: its bytes (without trailing spaces for
 * bpchar) and their count; the caller refuses the page when they pass the
 * key's slot.
 */
GH_HD uint32_t
gh_agg_key_text(const gh_page_key &pk, const gh_pval &v, const gh_vbase &b, const uint8_t **p)
{
	*p = gh_pval_ptr(v, b);
	return pk.conv == GH_AGG_KEY_TEXT ? v.len : gh_bpchar_len(*p, v.len);
}

/*
 * The packed group key and null mask of a row (gpuhash_agg.h's packing):
 * KW the program's key words (gh_agg_key_words): 1, a narrow key in
 * key[0], else a wide one in key[0 .. KW).  false if a text key is longer
 * than its slot (the page is refused).
 */
template <int KW>
GH_HD bool
gh_agg_key(const gh_agg_prog *agg, const gh_pval *cols, const gh_vbase &b, uint64_t *key,
		   uint8_t *nulls)
{
	uint64_t	k = 0;
	uint8_t		nm = 0;

	if (KW > 1)
	{
GH_UNROLL
		for (int j = 0; j < KW; j++)
			key[j] = 0;
	}
	for (int i = 0; i < agg->nkeys; i++)
	{
		const gh_page_key &pk = agg->key[i];
		const gh_pval &v = cols[pk.col];
		const bool	text = pk.conv == GH_AGG_KEY_BPCHAR || pk.conv == GH_AGG_KEY_TEXT;
		const int	bits = text ? gh_agg_key_bits(agg, i) : pk.width;
		uint64_t	x = 0;

		if (v.null)
			nm |= (uint8_t) (1u << i);
		if (KW > 1 && (v.null || !text))
		{
			/* a NULL's bits are zero, a text slot's up to 64 at a time */
			x = v.null ? 0 : gh_key_encode(v.bits, pk.conv);
			for (int done = 0; done < bits; done += 64)
				gh_wkey_push<KW>(key, x, bits - done < 64 ? bits - done : 64);
			continue;
		}
		if (KW > 1)
		{
			const uint8_t *p;
			uint32_t	len = gh_agg_key_text(pk, v, b, &p),
						nbytes = (uint32_t) bits / 8;

			if (len > nbytes)
				return false;
			for (uint32_t j = 0; j < nbytes; j += 8)
			{
				uint32_t	m = nbytes - j < 8 ? nbytes - j : 8;

				x = 0;
				for (uint32_t q = 0; q < m; q++)
					x = (x << 8) | (j + q < len ? p[j + q] : 0);
				gh_wkey_push<KW>(key, x, (int) (8 * m));
			}
			continue;
		}
		if (v.null)
			x = 0;
		else if (text)
		{
			const uint8_t *p;
			uint32_t	len = gh_agg_key_text(pk, v, b, &p);

			if (len * 8 > (uint32_t) bits)
				return false;
			for (int j = 0; j < bits / 8; j++)
				x = (x << 8) | ((uint32_t) j < len ? p[j] : 0);
		}
		else
			x = gh_key_encode(v.bits, pk.conv);
		if (agg->nkeys == 1)
			k = x;
		else
			k = (k << bits) | (bits >= 64 ? x : x & ((UINT64_C(1) << bits) - 1));
	}
	if (KW == 1)
		key[0] = k;
	*nulls = nm;
	return true;
}

/*
 * The hash of (key, null mask) under seed: the narrow key's word mixed
 * once, a wide key's words folded in one multiply each, then mixed.
 */
template <int KW>
GH_HD uint64_t
gh_gkey_hash(const uint64_t *key, uint8_t nulls, uint64_t seed)
{
	if (KW == 1)
		return gh_fmix64(key[0] ^ ((uint64_t) nulls << 56) ^ seed);

	uint64_t	h = seed ^ nulls;

GH_UNROLL
	for (int j = 0; j < KW; j++)
	{
		h = (h ^ key[j]) * 0xFF51AFD7ED558CCDULL;
		h ^= h >> 32;
	}
	return gh_fmix64(h);
}

/* Equal keys (the null masks compared apart). */
template <int KW>
GH_HD bool
gh_gkey_eq(const uint64_t *a, const uint64_t *b)
{
	bool		eq = true;

GH_UNROLL
	for (int j = 0; j < KW; j++)
		eq &= a[j] == b[j];
	return eq;
}

/* (null mask, key) order, the most significant word first. */
template <int KW>
GH_HD bool
gh_gkey_less(uint8_t na, const uint64_t *a, uint8_t nb, const uint64_t *b)
{
	if (na != nb)
		return na < nb;
	for (int j = 0; j < KW - 1; j++)
		if (a[j] != b[j])
			return a[j] < b[j];
	return a[KW - 1] < b[KW - 1];
}

/*
 * A call the GPU makes rather than inlines: the qual machine is large, and
 * inlined into the fold of every aggregate it would cost the kernels that
 * have no condition the registers (and so the occupancy) it needs.
 */
#if defined(__CUDACC__)
#define GH_HD_CALL static __host__ __device__ __noinline__
#else
#define GH_HD_CALL static inline
#endif

/* Condition sp of agg over a row: GH_QUAL_PASS, _FAIL or _REFUSE. */
GH_HD_CALL int
gh_agg_cond(const gh_agg_prog *agg, const gh_agg_spec &sp, const gh_pval *cols, const gh_vbase &b)
{
	return gh_qual_exec(agg->insn + sp.cond_start, sp.cond_len, cols, b);
}

/*
 * What a row gives before it is folded: its group key (gh_agg_key<KW>), and
 * every condition run once, since one that cannot be evaluated exactly (an
 * overflow: PostgreSQL's error) refuses the page before anything of it is
 * folded.  false: refuse.
 */
template <int KW>
GH_HD bool
gh_agg_row(const gh_agg_prog *agg, const gh_pval *cols, const gh_vbase &b, uint64_t *key,
		   uint8_t *nulls)
{
	if (!gh_agg_key<KW>(agg, cols, b, key, nulls))
		return false;
	for (int a = 0; a < agg->naggs; a++)
		if (agg->agg[a].cond_len > 0 && gh_agg_cond(agg, agg->agg[a], cols, b) == GH_QUAL_REFUSE)
			return false;
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
gh_num_operand(const gh_vbase &b, const gh_pval &v, gh_i128 *x, int *dscale)
{
	gh_num		n;
	const uint8_t *p = gh_pval_ptr(v, b);

	if (!gh_num_decode(p, v.len, &n))
		return GH_NUMV_UNFIT;
	if (n.cls != 0)
		return n.cls == 2 ? GH_NUMV_NAN : n.cls == 1 ? GH_NUMV_PINF : GH_NUMV_NINF;
	*dscale = gh_num_dscale(p);
	return gh_num_fixed(n, *dscale, x) ? GH_NUMV_FINITE : GH_NUMV_UNFIT;
}

/* Folds a numeric input of class c (a finite one: x at display scale ds). */
template <bool A>
GH_HD void
gh_agg_fold_num(const gh_agg_spec &sp, gh_agg_state *st, int c, gh_i128 x, int ds)
{
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
}

/* Folds a non-NULL by-value input of type t (integers, dates, times and
 * timestamps as int64, floats as a double's bits) under COUNT, SUM, AVG,
 * MIN or MAX. */
template <bool A>
GH_HD void
gh_agg_fold_bits(const gh_agg_spec &sp, uint8_t t, gh_agg_state *st, uint64_t bits)
{
	gh_at_add<A>((uint64_t *) &st->count, 1);
	if (sp.fn == GH_AGG_COUNT)
		return;
	if (gh_is_float(t))
	{
		double		d;

		memcpy(&d, &bits, 8);
		if (sp.fn == GH_AGG_MIN)
			gh_at_min<A>((int64_t *) &st->mm, gh_float_key(bits));
		else if (sp.fn == GH_AGG_MAX)
			gh_at_max<A>((int64_t *) &st->mm, gh_float_key(bits));
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

	int64_t		i = (int64_t) bits;

	if (sp.fn == GH_AGG_MIN)
		gh_at_min<A>((int64_t *) &st->mm, i);
	else if (sp.fn == GH_AGG_MAX)
		gh_at_max<A>((int64_t *) &st->mm, i);
	else
		gh_acc_add<A>(st->sum, (gh_i128) i);
}

/*
 * Folds the else value GH_AGG_ELSE_ZERO: a zero of the input type t, an
 * input like any other (counted).  A numeric 0 has display scale 0, so it
 * enters numeric_add's scale count as an input of dscale 0 does; a float
 * 0 is +0.0 (a float sum of -0 inputs and an else 0 is +0, as float8pl's).
 */
template <bool A>
GH_HD void
gh_agg_fold_zero(const gh_agg_spec &sp, uint8_t t, gh_agg_state *st)
{
	if (t == GH_T_NUMERIC && sp.fn != GH_AGG_COUNT)
		gh_agg_fold_num<A>(sp, st, GH_NUMV_FINITE, 0, 0);
	else
		gh_agg_fold_bits<A>(sp, t, st, 0);
}

/*
 * Folds one row's value of aggregate sp (input type t: gh_agg_in_type)
 * into st.  Under a condition that is not TRUE the else value is folded
 * instead (GH_AGG_ELSE_NULL: nothing); the operands are read only where
 * it is TRUE, as CASE evaluates its THEN only there.
 */
template <bool A = true>
GH_HD void
gh_agg_fold(const gh_agg_prog *agg, const gh_agg_spec &sp, uint8_t t, gh_agg_state *st,
			const gh_pval *cols, const gh_vbase &b)
{
	if (sp.fn == GH_AGG_COUNT_STAR)
	{
		gh_at_add<A>((uint64_t *) &st->count, 1);
		return;
	}
	if (sp.cond_len > 0 && gh_agg_cond(agg, sp, cols, b) != GH_QUAL_PASS)
	{
		if (sp.else_kind == GH_AGG_ELSE_ZERO)
			gh_agg_fold_zero<A>(sp, t, st);
		return;
	}
	if (sp.expr == GH_AGG_E_CONST)
	{
		gh_agg_fold_bits<A>(sp, t, st, (uint64_t) sp.konst);
		return;
	}

	const gh_pval &v = cols[sp.col];

	if (v.null || (sp.expr != GH_AGG_E_COL && cols[sp.col2].null) ||
		(sp.expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS && cols[sp.col3].null))
		return;
	if (GH_AGG_E_IS_INT(sp.expr))
	{
		int64_t		r;

		/* computed under COUNT too: an overflow is the CPU's error to raise */
		if (!gh_agg_int_op(sp.expr, t, (int64_t) v.bits, (int64_t) cols[sp.col2].bits, &r))
			gh_at_or<A>(&st->flags, GH_AGG_S_FALLBACK);
		else
			gh_agg_fold_bits<A>(sp, t, st, (uint64_t) r);
		return;
	}
	if (sp.fn == GH_AGG_COUNT)
	{
		gh_at_add<A>((uint64_t *) &st->count, 1);
		return;
	}
	if (t != GH_T_NUMERIC)
	{
		gh_agg_fold_bits<A>(sp, t, st, v.bits);
		return;
	}

	gh_i128		x = 0;
	int			ds = 0;
	int			c = gh_num_operand(b, v, &x, &ds);

	if (sp.expr != GH_AGG_E_COL)
	{
		gh_i128		y = 0;
		int			ds2 = 0;
		int			c2 = gh_num_operand(b, cols[sp.col2], &y, &ds2);

		if (c != GH_NUMV_FINITE || c2 != GH_NUMV_FINITE)
			c = GH_NUMV_UNFIT;	/* NaN or infinity in the product: the CPU */
		else if (!gh_num_factor(y, ds2, sp.expr == GH_AGG_E_MUL ? 0 : -1, &y) ||
				 !gh_mul_fit(x, y, &x))
			c = GH_NUMV_UNFIT;
		else
			ds += ds2;			/* numeric_mul's exact product: dscale the sum */
		if (c == GH_NUMV_FINITE && sp.expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS)
		{
			gh_i128		z = 0;
			int			ds3 = 0;

			/* (col * (1 - col2)) * (1 + col3): exact again, dscale + ds3 */
			if (gh_num_operand(b, cols[sp.col3], &z, &ds3) != GH_NUMV_FINITE ||
				!gh_num_factor(z, ds3, 1, &z) || !gh_mul_fit(x, z, &x))
				c = GH_NUMV_UNFIT;
			else
				ds += ds3;
		}
	}
	gh_agg_fold_num<A>(sp, st, c, x, ds);
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
	uint64_t   *keys;			/* KW words per slot */
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
 * a reader meeting BUSY waits for READY.  KW: the key's words (gh_agg_key<KW>).
 */
template <int KW>
GH_HD int64_t
gh_agg_find(const gh_agg_table &t, const gh_agg_prog *agg, const uint64_t *key, uint8_t nulls)
{
	const int	kw = KW;
	uint64_t	h = gh_gkey_hash<KW>(key, nulls, 0x9E3779B97F4A7C15ULL) & t.mask;

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
GH_UNROLL
				for (int j = 0; j < kw; j++)
					t.keys[h * kw + j] = key[j];
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
		/* the key first: a slot of another key is left without reading its nulls */
		bool		eq = true;

GH_UNROLL
		for (int j = 0; j < kw; j++)
			eq = eq && *(volatile uint64_t *) &t.keys[h * kw + j] == key[j];
		if (eq && *(volatile uint8_t *) &t.nulls[h] == nulls)
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
