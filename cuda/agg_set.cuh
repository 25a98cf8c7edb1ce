/*
 * agg_set.cuh
 *		Resident groups (gpuhash_agg_set.h), written once for the GPU
 *		(gpu_agg_set.cu) and the host twin (host_agg_set.cpp): the set's
 *		slot table, the combine of two finished states (PostgreSQL's
 *		combine functions, as gh_agg_merge applies them) and the HAVING
 *		terms over a group's final values.
 */
#ifndef GPUHASH_AGG_SET_CUH
#define GPUHASH_AGG_SET_CUH

#include "gpuhash_agg_set.h"
#include "agg_fold.cuh"

/*
 * The set's table: slots hold a group's index (dense arrays keys, nulls,
 * states by group), EMPTY or BUSY (claimed, its group being written).  The
 * groups merged at once are distinct (one request's), so a group's state
 * is written by one thread per merge: only the slot claim is atomic.
 */
#define GH_SET_EMPTY	0xFFFFFFFFu
#define GH_SET_BUSY		0xFFFFFFFEu

struct gh_set_view
{
	uint32_t   *slot;
	uint64_t	mask;			/* slots - 1 */
	uint64_t   *keys;			/* by group, KW words each */
	uint8_t    *nulls;
	gh_agg_state *states;		/* by group, naggs each */
	unsigned long long *n_groups;	/* groups claimed */
	int			naggs;
};

template <int KW>
GH_HD uint64_t
gh_set_hash(const uint64_t *key, uint8_t nulls)
{
	return gh_gkey_hash<KW>(key, nulls, 0xC2B2AE3D27D4EB4FULL);
}

/*
 * The group of (key, nulls): its index, *fresh set when this call claimed
 * it (the caller writes its states).  The table always has a free slot:
 * the caller grows it first.  KW: the set's program's key words.
 */
template <int KW>
GH_HD uint64_t
gh_set_find(const gh_set_view &v, const uint64_t *key, uint8_t nulls, bool *fresh)
{
	const int	kw = KW;
	uint64_t	h = gh_set_hash<KW>(key, nulls) & v.mask;

	*fresh = false;
	for (;;)
	{
		uint32_t   *c = &v.slot[h];
		uint32_t	s = *(volatile uint32_t *) c;

		if (s == GH_SET_EMPTY)
		{
			s = gh_at_cas32(c, GH_SET_EMPTY, GH_SET_BUSY);
			if (s == GH_SET_EMPTY)
			{
				uint64_t	g = gh_at_add((uint64_t *) v.n_groups, 1);

GH_UNROLL
				for (int j = 0; j < kw; j++)
					v.keys[g * kw + j] = key[j];
				v.nulls[g] = nulls;
#if defined(__CUDA_ARCH__)
				__threadfence();
				atomicExch(c, (uint32_t) g);
#else
				*c = (uint32_t) g;
#endif
				*fresh = true;
				return g;
			}
		}
		while (s == GH_SET_BUSY)
			s = *(volatile uint32_t *) c;
#if defined(__CUDA_ARCH__)
		__threadfence();
#endif
		bool		eq = true;

GH_UNROLL
		for (int j = 0; j < kw; j++)
			eq = eq && *(volatile uint64_t *) &v.keys[(uint64_t) s * kw + j] == key[j];
		if (eq && *(volatile uint8_t *) &v.nulls[s] == nulls)
			return s;
		h = (h + 1) & v.mask;
	}
}

/* Group g's slot in a table being rebuilt (its key is in no slot yet). */
template <int KW>
GH_HD void
gh_set_reinsert(const gh_set_view &v, uint64_t g)
{
	uint64_t	h = gh_set_hash<KW>(v.keys + g * KW, v.nulls[g]) & v.mask;

	while (gh_at_cas32(&v.slot[h], GH_SET_EMPTY, (uint32_t) g) != GH_SET_EMPTY)
		h = (h + 1) & v.mask;
}

/* Combines finished state s into d, as PostgreSQL's combine functions. */
GH_HD void
gh_agg_combine(const gh_agg_spec &sp, uint8_t t, gh_agg_state *d, const gh_agg_state *s)
{
	if ((sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX) && s->count > 0)
	{
		bool		take;

		if (d->count == 0)
			take = true;
		else if (gh_is_float(t))
		{
			double		a,
						b;

			memcpy(&a, &d->mm, 8);
			memcpy(&b, &s->mm, 8);

			int			c = gh_float_cmp(b, a);

			take = sp.fn == GH_AGG_MIN ? c < 0 : c > 0;
		}
		else
			take = sp.fn == GH_AGG_MIN ? (int64_t) s->mm < (int64_t) d->mm
				: (int64_t) s->mm > (int64_t) d->mm;
		if (take)
			d->mm = s->mm;
	}
	d->count += s->count;
	gh_acc_add3<false>(d->sum, s->sum[0], s->sum[1], s->sum[2]);
	if (t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM)
	{
		float		r = (float) d->fsum + (float) s->fsum;

		if (isinf(r) && !isinf((float) d->fsum) && !isinf((float) s->fsum))
			d->flags |= GH_AGG_S_FLOAT_OVERFLOW;
		d->fsum = r;
	}
	else
	{
		double		r = d->fsum + s->fsum;

		if (isinf(r) && !isinf(d->fsum) && !isinf(s->fsum))
			d->flags |= GH_AGG_S_FLOAT_OVERFLOW;
		d->fsum = r;
	}
	d->nan += s->nan;
	d->pinf += s->pinf;
	d->ninf += s->ninf;
	if (s->dscale > d->dscale)
	{
		d->dscale = s->dscale;
		d->dscale_count = s->dscale_count;
	}
	else if (s->dscale == d->dscale)
		d->dscale_count += s->dscale_count;
	d->scale_word = ((uint64_t) d->dscale << 40) | (uint64_t) d->dscale_count;
	d->flags |= s->flags;
}

/* sign(a - b), both 192-bit two's complement */
GH_HD int
gh_cmp192(const uint64_t *a, const uint64_t *b)
{
	int64_t		ha = (int64_t) a[2],
				hb = (int64_t) b[2];

	if (ha != hb)
		return ha < hb ? -1 : 1;
	for (int w = 1; w >= 0; w--)
		if (a[w] != b[w])
			return a[w] < b[w] ? -1 : 1;
	return 0;
}

/*
 * Does term x hold for state st?  -1 when the value is NULL (nothing
 * holds), else 0 or 1.
 */
GH_HD int
gh_having_term(const gh_agg_having_term &x, const gh_agg_state *st)
{
	uint64_t	v[3];
	int			c;

	if (x.kind == GH_HV_COUNT)
	{
		v[0] = (uint64_t) st->count;
		v[1] = v[2] = st->count < 0 ? ~UINT64_C(0) : 0;
		c = gh_cmp192(v, x.konst);
	}
	else if (x.kind == GH_HV_MINMAX)
	{
		if (st->count == 0)
			return -1;
		v[0] = st->mm;
		v[1] = v[2] = (int64_t) st->mm < 0 ? ~UINT64_C(0) : 0;
		c = gh_cmp192(v, x.konst);
	}
	else
	{
		if (st->count == 0 && st->nan == 0 && st->pinf == 0 && st->ninf == 0)
			return -1;
		if (st->nan > 0 || st->pinf > 0)
			c = 1;				/* NaN and +Infinity above every finite constant */
		else if (st->ninf > 0)
			c = -1;
		else
		{
			c = gh_cmp192(st->sum, x.konst);
			/* between the floor and the constant: below the constant */
			if (c == 0 && !x.exact)
				c = -1;
		}
	}
	switch (x.op)
	{
		case GH_HV_LT:
			return c < 0;
		case GH_HV_LE:
			return c <= 0;
		case GH_HV_EQ:
			return c == 0;
		case GH_HV_GE:
			return c >= 0;
		case GH_HV_GT:
			return c > 0;
		default:
			return c != 0;
	}
}

/* Does group g (states st, naggs of them) survive every term? */
GH_HD bool
gh_having_keeps(const gh_agg_having *h, const gh_agg_state *st, int naggs)
{
	for (int a = 0; a < naggs; a++)
		if (st[a].flags != 0)
			return true;		/* not exact: the caller decides */
	for (int i = 0; i < h->nterms; i++)
		if (gh_having_term(h->term[i], &st[h->term[i].agg]) != 1)
			return false;
	return true;
}

#endif							/* GPUHASH_AGG_SET_CUH */
