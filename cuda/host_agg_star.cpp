/*
 * host_agg_star.cpp
 *		The aggregate over a star (several dimensions, gh_agg_prog.star),
 *		host side: the star's dimension made of its parts, its program's
 *		check, and the host twin's walk of one page (agg_join.cuh's star
 *		functions in a loop, as host_agg_join.cpp's walk over one
 *		dimension).
 */
#include "agg_internal.h"
#include "page_internal.h"

#include <new>
#include <string.h>

gh_status
gh_agg_dim_star(const gh_agg_dim *const *dims, int ndims, gh_agg_dim **out)
{
	if (!out)
		return gh_error(GH_ERR_INVALID, "star: no output pointer");
	*out = nullptr;
	if (!dims || ndims < 2 || ndims > GH_AGG_MAX_DIMS || ndims > GH_VBASE_XHEAPS + 1)
		return gh_error(GH_ERR_INVALID, "star: %d dimensions", ndims);

	int			ninner = 0;
	uint64_t	dup = 1;

	for (int d = 0; d < ndims; d++)
	{
		if (!dims[d] || dims[d]->nparts > 0)
			return gh_error(GH_ERR_INVALID, "star: dimension %d is not a built dimension", d);
		if (dims[d]->device != dims[0]->device)
			return gh_error(GH_ERR_INVALID, "star: dimensions on devices %d and %d",
							dims[0]->device, dims[d]->device);
		ninner += dims[d]->ninner;
		/* the most combinations of one row bound a request's groups */
		dup = dup * dims[d]->max_dup > UINT32_MAX ? UINT32_MAX : dup * dims[d]->max_dup;
	}
	if (ninner > GH_AGG_MAX_INNER)
		return gh_error(GH_ERR_INVALID, "star: %d columns, more than %d", ninner,
						GH_AGG_MAX_INNER);

	gh_agg_dim *s = new(std::nothrow) gh_agg_dim();

	if (!s)
		return gh_error(GH_ERR_HOST_MEMORY, "star: no memory");
	s->device = dims[0]->device;
	s->ninner = ninner;
	s->max_dup = (uint32_t) dup;
	s->table = nullptr;
	s->h_vals = nullptr;
	s->h_heap = nullptr;
	memset(&s->view, 0, sizeof(s->view));
	memset(&s->star, 0, sizeof(s->star));
	s->nparts = ndims;
	s->star.ndims = ndims;
	for (int d = 0; d < ndims; d++)
	{
		s->parts[d] = dims[d];
		s->n += dims[d]->n;
		s->bytes += dims[d]->bytes;
		s->star.d[d] = dims[d]->view;
		s->star.wide |= dims[d]->view.wide;
	}
	*out = s;
	return GH_OK;
}

gh_status
gh_agg_star_check(const gh_page_scan *scan, const gh_agg_prog *agg)
{
	const gh_agg_star &st = agg->star;
	int			next = 0;

	if (st.ndims == 0)
		return GH_OK;
	if (st.ndims < 2 || st.ndims > GH_AGG_MAX_DIMS || st.ndims > GH_VBASE_XHEAPS + 1)
		return gh_error(GH_ERR_INVALID, "aggregation program: %d dimensions", st.ndims);
	for (int d = 0; d < st.ndims; d++)
	{
		const gh_agg_star_dim &sd = st.dim[d];
		int			bits = 0;

		/* the dimensions' columns side by side, in order, all of join's */
		if (sd.col0 != next || sd.ninner < 1 || sd.col0 + sd.ninner > agg->join.ninner)
			return gh_error(GH_ERR_INVALID, "aggregation program: dimension %d's columns "
							"out of range", d);
		next += sd.ninner;
		if (sd.nkeys < 1 || sd.nkeys > GH_PAGE_MAX_KEYS)
			return gh_error(GH_ERR_INVALID, "aggregation program: dimension %d has %d keys",
							d, sd.nkeys);
		for (int k = 0; k < sd.nkeys; k++)
		{
			const gh_page_key &pk = sd.key[k];

			if (pk.col < 0 || pk.col >= scan->natts || scan->col[pk.col].type == GH_T_SKIP ||
				scan->col[pk.col].type == GH_T_NUMERIC || scan->col[pk.col].type == GH_T_TEXT ||
				scan->col[pk.col].type == GH_T_BPCHAR || pk.conv > 4 || pk.width < 1 ||
				pk.width > 64)
				return gh_error(GH_ERR_INVALID, "aggregation program: dimension %d's key %d",
								d, k);
			bits += pk.width;
		}
		if (sd.nkeys > 1 && bits > 64)
			return gh_error(GH_ERR_INVALID, "aggregation program: dimension %d's key is "
							"wider than 64 bits", d);
	}
	if (next != agg->join.ninner)
		return gh_error(GH_ERR_INVALID, "aggregation program: the dimensions' columns are "
						"not the join's");
	return GH_OK;
}

/* gh_agg_fold_page_star for group keys of KW words */
template <int KW>
static bool
fold_page_star(const gh_page_scan *scan, const gh_agg_prog *agg, const gh_agg_dim *dim,
			   const uint8_t *page, const gh_page_ref &ref, const uint16_t *visible,
			   gh_agg_table &t, gh_agg_stats *s)
{
	static thread_local gh_pval cols[GH_AGG_INNER_COL0 + GH_AGG_MAX_INNER];
	const gh_star_view &sv = dim->star;
	gh_vbase	b = gh_vbase_of(page, scan->pool);

	gh_star_bases(sv, &b);

	const bool	lean = !gh_star_may_refuse(agg, sv);
	int			nitems;
	int			n = gh_walk_slots(page, ref, &nitems);

	if (n < 0)
		return false;

	int			pass[GH_PAGE_MAX_TUPLES];
	int			np = 0;
	uint64_t	nt = 0,
				npairs = 0;

	/* first phase: whatever may refuse the page, for every combination */
	for (int slot = 0; slot < n; slot++)
	{
		gh_walk_out o;
		int			r = gh_walk_slot(scan, page, nitems, ref, visible, slot, cols, &o);
		gh_hit		hits[GH_AGG_MAX_DIMS];
		uint64_t	nc;
		bool		some;

		if (r == GH_WALK_REFUSE)
			return false;
		if (r != GH_WALK_OK)
			continue;
		nt++;
		if (!o.passed)
			continue;
		if (!gh_star_row<KW>(agg, sv, lean, cols, b, hits, &nc, &some))
			return false;
		if (some)
			pass[np++] = slot;
	}
	s->tuples += nt;

	/* second phase: fold the combinations that pass (looked up again) */
	for (int i = 0; i < np; i++)
	{
		gh_walk_out o;
		gh_hit		hits[GH_AGG_MAX_DIMS];

		gh_walk_slot(scan, page, nitems, ref, visible, pass[i], cols, &o);

		uint64_t	nc = gh_star_lookup(agg, sv, cols, hits);

		for (uint64_t m = 0; m < nc; m++)
		{
			uint64_t	key[KW];
			uint8_t		nulls = 0;

			if (gh_star_combo(agg, sv, hits, m, cols, b) != GH_QUAL_PASS)
				continue;
			npairs++;
			gh_agg_key<KW>(agg, cols, b, key, &nulls);

			int64_t		g = gh_agg_find<KW>(t, agg, key, nulls);

			if (g < 0)
				return true;	/* the request overflowed: nothing it holds is used */
			for (int a = 0; a < agg->naggs; a++)
				gh_agg_fold(agg, agg->agg[a], gh_agg_in_type(scan, agg, agg->agg[a]),
							&t.states[(uint64_t) g * agg->naggs + a], cols, b);
		}
	}
	s->passed += npairs;
	return true;
}

bool
gh_agg_fold_page_star(const gh_page_scan *scan, const gh_agg_prog *agg, const gh_agg_dim *dim,
					  const uint8_t *page, const gh_page_ref &ref, const uint16_t *visible,
					  gh_agg_table &t, gh_agg_stats *s)
{
	return gh_agg_by_kw(gh_agg_key_words(agg), [&](auto k) {
		return fold_page_star<decltype(k)::value>(scan, agg, dim, page, ref, visible, t, s);
	});
}
