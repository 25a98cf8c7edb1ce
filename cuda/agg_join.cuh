/*
 * agg_join.cuh
 *		The aggregate over a join, written once for the GPU kernel
 *		(gpu_agg.cu) and the host twin (host_agg_join.cpp): the dimension
 *		as the walk reads it, a passing row's inner rows, and one (row,
 *		inner row) pair's inner columns and join qual.
 *
 * A page's walk has two phases on both sides, as without a join: the first
 * evaluates everything that may refuse the page (an inner value the walker
 * cannot hold, the join qual, the group key, the conditions) for every
 * pair, the second folds the pairs that pass, evaluating them again: all
 * of it is a pure function of the page and the dimension, so both phases
 * see the same pairs.
 */
#ifndef GPUHASH_AGG_JOIN_CUH
#define GPUHASH_AGG_JOIN_CUH

#include "agg_fold.cuh"
#include "schemes/linear.cuh"

/* A dimension as the walk reads it: pointers on the dimension's device. */
struct gh_dim_view
{
	gh_lin_view lin;			/* key -> (off, cnt) into rowids */
	const uint32_t *rowids;		/* positions, grouped by key */
	const gh_agg_inval *vals;	/* n * ninner, by position */
	const uint8_t *heap;		/* by-reference values' data */
	uint64_t	heap_bytes;
	uint8_t    *matched;		/* n flags by position (gh_agg_dim_matched) */
	uint64_t	n;				/* 0: joins nothing (and has no table) */
	int			ninner;
	bool		wide;			/* a value the walker cannot hold (longer
								 * than 64 kB, or outside the heap) */
};

/* The inner rows of key: rowids[off .. off + cnt). */
GH_HD gh_hit
gh_dim_lookup(const gh_dim_view &d, uint64_t key)
{
	if (d.n == 0)
	{
		gh_hit		h = {0, 0};

		return h;
	}
	return gh_lin_lookup(d.lin, key);
}

GH_HD bool
gh_is_byref(uint8_t t)
{
	return t == GH_T_NUMERIC || t == GH_T_TEXT || t == GH_T_BPCHAR;
}

/* A by-value dimension value as the walker holds its type: integers
 * sign-extended (oid zero-extended), booleans 0/1, the rest as given. */
GH_HD uint64_t
gh_inval_bits(uint64_t bits, uint8_t t)
{
	switch (t)
	{
		case GH_T_INT2:
			return (uint64_t) (int64_t) (int16_t) bits;
		case GH_T_INT4:
		case GH_T_DATE:
			return (uint64_t) (int64_t) (int32_t) bits;
		case GH_T_OID:
			return (uint32_t) bits;
		case GH_T_BOOL:
			return bits != 0;
		default:
			return bits;
	}
}

/*
 * Loads the inner row at rowids[at] into cols[GH_AGG_INNER_COL0 ..): false
 * when a by-reference value lies outside the heap or is longer than a
 * walker's value holds (64 kB: the page is refused, the CPU joins it).
 */
GH_HD bool
gh_dim_load(const gh_dim_view &d, const gh_agg_prog *agg, uint32_t at, gh_pval *cols)
{
	const gh_agg_inval *row = d.vals + (uint64_t) d.rowids[at] * d.ninner;

	for (int j = 0; j < d.ninner; j++)
	{
		const gh_agg_inval iv = row[j];
		gh_pval    &v = cols[GH_AGG_INNER_COL0 + j];
		uint8_t		t = agg->join.inner_type[j];

		v.null = iv.null != 0;
		v.pool = GH_IN_HEAP;
		v.bits = 0;
		v.ref = 0;
		v.len = 0;
		if (v.null)
			continue;
		if (gh_is_byref(t))
		{
			if (iv.len > 0xFFFF || iv.bits > d.heap_bytes || iv.len > d.heap_bytes - iv.bits)
				return false;
			v.ref = (uint32_t) iv.bits;
			v.len = (uint16_t) iv.len;
		}
		else
			v.bits = gh_inval_bits(iv.bits, t);
	}
	return true;
}

/*
 * The pair of the row in cols and the inner row at rowids[at]: its inner
 * columns loaded, then the join qual: GH_QUAL_PASS, _FAIL or _REFUSE.
 */
GH_HD int
gh_join_pair(const gh_agg_prog *agg, const gh_dim_view &d, uint32_t at, gh_pval *cols,
			 const gh_vbase &b)
{
	if (!gh_dim_load(d, agg, at, cols))
		return GH_QUAL_REFUSE;
	return gh_qual_exec(agg->insn + agg->join.jq_start, agg->join.jq_len, cols, b);
}

/*
 * A folded pair's inner row rowids[at] marked matched, where the program
 * asks (an outer join preserving the inner side): a plain byte store, the
 * same value from every writer, so no atomics.
 */
GH_HD void
gh_dim_mark(const gh_agg_prog *agg, const gh_dim_view &d, uint32_t at)
{
	if ((agg->join.flags & GH_AGG_JOIN_MARK) && d.matched != nullptr)
		d.matched[d.rowids[at]] = 1;
}

/* Whether qual program insn[0, n) can refuse a page: only arithmetic (an
 * overflow) and numeric comparisons (a malformed numeric) can. */
GH_HD bool
gh_qual_may_refuse(const gh_qinsn *insn, int n)
{
	for (int i = 0; i < n; i++)
	{
		uint8_t		op = insn[i].op;

		if (op == GH_Q_ADD || op == GH_Q_SUB || op == GH_Q_MUL ||
			((op == GH_Q_CMP || op == GH_Q_IN) && insn[i].b == GH_M_NUMERIC))
			return true;
	}
	return false;
}

/*
 * Whether a pair can refuse its page: an inner value the walker cannot
 * hold, a join qual or condition that can, a text group key (too long).
 * When none can (a join on a key with plain quals and integer keys), the
 * first phase only looks each row's key up: the second evaluates each pair
 * once.
 */
GH_HD bool
gh_join_may_refuse(const gh_agg_prog *agg, const gh_dim_view &d)
{
	if (d.wide || gh_qual_may_refuse(agg->insn + agg->join.jq_start, agg->join.jq_len))
		return true;
	for (int i = 0; i < agg->nkeys; i++)
		if (agg->key[i].conv == GH_AGG_KEY_BPCHAR || agg->key[i].conv == GH_AGG_KEY_TEXT)
			return true;
	for (int a = 0; a < agg->naggs; a++)
		if (agg->agg[a].cond_len > 0 &&
			gh_qual_may_refuse(agg->insn + agg->agg[a].cond_start, agg->agg[a].cond_len))
			return true;
	return false;
}

/*
 * The first phase for a row that passed the scan's quals (its join key
 * key, or null_key): its inner rows in *hit, and whether any pair may be
 * folded in *some (lean: no pair can refuse, gh_join_may_refuse: any inner
 * row; else a pair that passes the join qual, every pair evaluated); false
 * refuses the page.  A NULL key joins nothing.  KW: the group key's words.
 */
template <int KW>
GH_HD bool
gh_join_row(const gh_agg_prog *agg, const gh_dim_view &d, bool lean, bool null_key,
			uint64_t key, gh_pval *cols, const gh_vbase &b, gh_hit *hit, bool *some)
{
	gh_hit		h = {0, 0};
	uint32_t	np = 0;

	if (!null_key)
		h = gh_dim_lookup(d, key);
	*hit = h;
	*some = h.cnt > 0;
	if (lean)
		return true;
	for (uint32_t i = 0; i < h.cnt; i++)
	{
		int			q = gh_join_pair(agg, d, h.off + i, cols, b);
		uint64_t	k[KW];
		uint8_t		nm;

		if (q == GH_QUAL_REFUSE)
			return false;
		if (q != GH_QUAL_PASS)
			continue;
		if (!gh_agg_row<KW>(agg, cols, b, k, &nm))
			return false;
		np++;
	}
	*some = np > 0;
	return true;
}

/*
 * A star (gh_agg_prog.star): every dimension as the walk reads it, side by
 * side; dimension d > 0's by-reference values lie in gh_vbase.xheap[d - 1].
 */
struct gh_star_view
{
	gh_dim_view d[GH_AGG_MAX_DIMS];
	int			ndims;
	bool		wide;			/* any dimension's */
};

/* The by-reference values' bases of every dimension of sv in b. */
GH_HD void
gh_star_bases(const gh_star_view &sv, gh_vbase *b)
{
	b->heap = sv.d[0].heap;
	for (int d = 1; d < sv.ndims && d <= GH_VBASE_XHEAPS; d++)
		b->xheap[d - 1] = sv.d[d].heap;
}

/* gh_join_may_refuse of a star: any dimension's wide value, or the program. */
GH_HD bool
gh_star_may_refuse(const gh_agg_prog *agg, const gh_star_view &sv)
{
	gh_dim_view w = sv.d[0];

	w.wide = sv.wide;
	return gh_join_may_refuse(agg, w);
}

/* Dimension d's packed key of the row in cols (gh_walk_key's packing); false: NULL. */
GH_HD bool
gh_star_key(const gh_agg_star_dim &sd, const gh_pval *cols, uint64_t *key)
{
	uint64_t	k = 0;

	for (int i = 0; i < sd.nkeys; i++)
	{
		const gh_page_key &pk = sd.key[i];
		const gh_pval &v = cols[pk.col];

		if (v.null)
			return false;

		uint64_t	x = gh_key_encode(v.bits, pk.conv);

		if (sd.nkeys == 1)
			k = x;
		else
			k = (k << pk.width) | (x & ((UINT64_C(1) << pk.width) - 1));
	}
	*key = k;
	return true;
}

/*
 * The row's inner rows in every dimension (hits[d]), and how many
 * combinations they make (0: a NULL key or a dimension without a match).
 */
GH_HD uint64_t
gh_star_lookup(const gh_agg_prog *agg, const gh_star_view &sv, const gh_pval *cols, gh_hit *hits)
{
	uint64_t	n = 1;

	for (int d = 0; d < sv.ndims; d++)
	{
		uint64_t	key;
		gh_hit		h = {0, 0};

		if (n > 0 && gh_star_key(agg->star.dim[d], cols, &key))
			h = gh_dim_lookup(sv.d[d], key);
		hits[d] = h;
		n *= h.cnt;
	}
	return n;
}

/*
 * Combination m (< gh_star_lookup's count; dimension 0's row varying
 * fastest) loaded into cols, then the join qual: GH_QUAL_PASS, _FAIL or
 * _REFUSE (a value the walker cannot hold).
 */
GH_HD int
gh_star_combo(const gh_agg_prog *agg, const gh_star_view &sv, const gh_hit *hits, uint64_t m,
			  gh_pval *cols, const gh_vbase &b)
{
	for (int d = 0; d < sv.ndims; d++)
	{
		const gh_dim_view &dv = sv.d[d];
		const gh_agg_star_dim &sd = agg->star.dim[d];
		uint32_t	at = hits[d].off + (uint32_t) (m % hits[d].cnt);
		const gh_agg_inval *row = dv.vals + (uint64_t) dv.rowids[at] * dv.ninner;

		m /= hits[d].cnt;
		for (int j = 0; j < sd.ninner; j++)
		{
			const gh_agg_inval iv = row[j];
			gh_pval    &v = cols[GH_AGG_INNER_COL0 + sd.col0 + j];
			uint8_t		t = agg->join.inner_type[sd.col0 + j];

			v.null = iv.null != 0;
			v.pool = (uint8_t) (GH_IN_HEAP + d);
			v.bits = 0;
			v.ref = 0;
			v.len = 0;
			if (v.null)
				continue;
			if (gh_is_byref(t))
			{
				if (iv.len > 0xFFFF || iv.bits > dv.heap_bytes ||
					iv.len > dv.heap_bytes - iv.bits)
					return GH_QUAL_REFUSE;
				v.ref = (uint32_t) iv.bits;
				v.len = (uint16_t) iv.len;
			}
			else
				v.bits = gh_inval_bits(iv.bits, t);
		}
	}
	return gh_qual_exec(agg->insn + agg->join.jq_start, agg->join.jq_len, cols, b);
}

/*
 * gh_join_row over a star: the row's inner rows in hits[], its
 * combinations in *n, whether any may be folded in *some; false refuses
 * the page.  KW: the group key's words.
 */
template <int KW>
GH_HD bool
gh_star_row(const gh_agg_prog *agg, const gh_star_view &sv, bool lean, gh_pval *cols,
			const gh_vbase &b, gh_hit *hits, uint64_t *n, bool *some)
{
	uint64_t	np = 0;

	*n = gh_star_lookup(agg, sv, cols, hits);
	*some = *n > 0;
	if (lean)
		return true;
	for (uint64_t m = 0; m < *n; m++)
	{
		int			q = gh_star_combo(agg, sv, hits, m, cols, b);
		uint64_t	k[KW];
		uint8_t		nm;

		if (q == GH_QUAL_REFUSE)
			return false;
		if (q != GH_QUAL_PASS)
			continue;
		if (!gh_agg_row<KW>(agg, cols, b, k, &nm))
			return false;
		np++;
	}
	*some = np > 0;
	return true;
}

#endif							/* GPUHASH_AGG_JOIN_CUH */
