/*
 * host_agg.cpp
 *		Partial aggregation's host side: the program's check, group sets
 *		(init, free, merge), the host twin (agg_fold.cuh in a loop over a
 *		host group table) and gh_page_agg's choice of device.
 *
 * A request folds into a fresh table of its own; its groups are then
 * sorted by (null mask, key) and merged into the caller's set.  The GPU
 * does the same through gpu_agg.cu, so both give the same set: the same
 * groups in the same order with bit-identical exact states.
 */
#include "agg_internal.h"
#include "agg_fold.cuh"
#include "agg_set.cuh"
#include "page_internal.h"

#include <algorithm>
#include <stdlib.h>
#include <string.h>

namespace
{

bool
is_int(uint8_t t)
{
	return t == GH_T_INT2 || t == GH_T_INT4 || t == GH_T_INT8;
}

bool
is_key_conv_ok(const gh_page_key &k, int bits, uint8_t t)
{
	switch (k.conv)
	{
		case 0:
		case 1:
		case 2:
		case 3:
		case 4:
			return t != GH_T_NUMERIC && t != GH_T_TEXT && t != GH_T_BPCHAR && t != GH_T_SKIP;
		case GH_AGG_KEY_BPCHAR:
		case GH_AGG_KEY_TEXT:
			return (t == GH_T_TEXT || t == GH_T_BPCHAR) && bits % 8 == 0 && bits >= 8;
		default:
			return false;
	}
}

gh_status
bad(const char *what, int i)
{
	return gh_error(GH_ERR_INVALID, "aggregation program: %s (at %d)", what, i);
}

/* Keys of agg's width, or none (a set filled without gh_agg_groups_init). */
bool
gh_agg_groups_fit(const gh_agg_groups *g, const gh_agg_prog *agg)
{
	return g->n_groups == 0 || gh_agg_groups_key_words(g) == gh_agg_key_words(agg);
}

/* (null mask, key) order of group i of a and group j of b */
template <int KW>
bool
group_less(const gh_agg_groups *a, uint64_t i, const gh_agg_groups *b, uint64_t j)
{
	return gh_gkey_less<KW>(a->nulls[i], a->keys + i * KW, b->nulls[j],
						   b->keys + j * KW);
}

/* Combines finished state s into d: agg_set.cuh's, shared with the resident sets. */
void
combine(const gh_agg_spec &sp, uint8_t t, gh_agg_state *d, const gh_agg_state *s)
{
	gh_agg_combine(sp, t, d, s);
}

/*
 * The union of a and b (both sorted) into r, combining equal groups; false
 * (r untouched) when it would pass max_groups or memory runs out.  KW: the
 * program's key words.
 */
template <int KW>
gh_status
merge_sets_w(const gh_agg_groups *a, const gh_agg_groups *b, const gh_agg_prog *agg,
		   const gh_page_scan *scan, gh_agg_groups *r)
{
	const int	na = agg->naggs,
				kw = KW;
	uint64_t	i = 0,
				j = 0,
				n = 0;

	/* count first, to refuse before touching anything */
	while (i < a->n_groups || j < b->n_groups)
	{
		if (j >= b->n_groups || (i < a->n_groups && group_less<KW>(a, i, b, j)))
			i++;
		else if (i >= a->n_groups || group_less<KW>(b, j, a, i))
			j++;
		else
			i++, j++;
		n++;
	}
	if (n > r->max_groups)
		return gh_error(GH_ERR_OUTPUT_FULL, "aggregation: %llu groups exceed the bound of %llu",
						(unsigned long long) n, (unsigned long long) r->max_groups);

	uint64_t   *keys = (uint64_t *) malloc(sizeof(uint64_t) * kw * (n ? n : 1));
	uint8_t    *nulls = (uint8_t *) malloc(n ? n : 1);
	gh_agg_state *st = (gh_agg_state *) malloc(sizeof(gh_agg_state) * (n ? n : 1) * (na ? na : 1));

	if (!keys || !nulls || !st)
	{
		free(keys);
		free(nulls);
		free(st);
		return gh_error(GH_ERR_HOST_MEMORY, "aggregation: no memory for %llu groups",
						(unsigned long long) n);
	}
	i = j = n = 0;
	uint64_t	fb = 0;

	while (i < a->n_groups || j < b->n_groups)
	{
		bool		ta,
					tb;

		if (j >= b->n_groups)
			ta = true, tb = false;
		else if (i >= a->n_groups)
			ta = false, tb = true;
		else if (group_less<KW>(a, i, b, j))
			ta = true, tb = false;
		else if (group_less<KW>(b, j, a, i))
			ta = false, tb = true;
		else
			ta = tb = true;
		memcpy(keys + n * kw, ta ? a->keys + i * kw : b->keys + j * kw, sizeof(uint64_t) * kw);
		nulls[n] = ta ? a->nulls[i] : b->nulls[j];

		bool		f = false;

		for (int x = 0; x < na; x++)
		{
			gh_agg_state *d = &st[n * na + x];

			*d = ta ? a->states[i * na + x] : b->states[j * na + x];
			if (ta && tb)
				combine(agg->agg[x], gh_agg_in_type(scan, agg, agg->agg[x]), d, &b->states[j * na + x]);
			f |= (d->flags & (GH_AGG_S_FALLBACK | GH_AGG_S_FLOAT_OVERFLOW)) != 0;
		}
		fb += f;
		i += ta;
		j += tb;
		n++;
	}
	free(r->keys);
	free(r->nulls);
	free(r->states);
	r->keys = keys;
	r->nulls = nulls;
	r->states = st;
	r->n_groups = n;
	r->fallback_groups = fb;
	r->key_words = (int16_t) kw;
	return GH_OK;
}

gh_status
merge_sets(const gh_agg_groups *a, const gh_agg_groups *b, const gh_agg_prog *agg,
		   const gh_page_scan *scan, gh_agg_groups *r)
{
	return gh_agg_by_kw(gh_agg_key_words(agg), [&](auto k) {
		return merge_sets_w<decltype(k)::value>(a, b, agg, scan, r);
	});
}

/* One page of the host twin (keys of KW words): false if it is refused. */
template <int KW>
bool
fold_page(const gh_page_scan *scan, const gh_agg_prog *agg, const uint8_t *page,
		  const gh_page_ref &ref, const uint16_t *visible, gh_agg_table &t, gh_agg_stats *s)
{
	static thread_local gh_pval cols[GH_PAGE_MAX_ATTS];
	const gh_vbase b = gh_vbase_of(page, scan->pool);
	int			nitems;
	int			n = gh_walk_slots(page, ref, &nitems);

	if (n < 0)
		return false;

	int			pass[GH_PAGE_MAX_TUPLES];
	const int	kw = KW;
	uint64_t	keys[GH_PAGE_MAX_TUPLES * KW];
	uint8_t		nulls[GH_PAGE_MAX_TUPLES];
	int			np = 0;
	uint64_t	nt = 0;

	for (int slot = 0; slot < n; slot++)
	{
		gh_walk_out o;
		int			r = gh_walk_slot(scan, page, nitems, ref, visible, slot, cols, &o);

		if (r == GH_WALK_REFUSE)
			return false;
		if (r != GH_WALK_OK)
			continue;
		nt++;
		if (!o.passed)
			continue;
		if (!gh_agg_row<KW>(agg, cols, b, &keys[np * kw], &nulls[np]))
			return false;
		pass[np++] = slot;
	}
	s->tuples += nt;
	s->passed += np;
	for (int i = 0; i < np; i++)
	{
		gh_walk_out o;

		gh_walk_slot(scan, page, nitems, ref, visible, pass[i], cols, &o);

		int64_t		g = gh_agg_find<KW>(t, agg, &keys[i * kw], nulls[i]);

		if (g < 0)
			return true;		/* the request overflowed: nothing it holds is used */
		for (int a = 0; a < agg->naggs; a++)
			gh_agg_fold(agg, agg->agg[a], gh_agg_in_type(scan, agg, agg->agg[a]),
						&t.states[(uint64_t) g * agg->naggs + a], cols, b);
	}
	return true;
}

}								/* namespace */

/* A column index of agg: the scan's (deformed) or the dimension's. */
static bool
col_ok(const gh_page_scan *scan, const gh_agg_prog *agg, int col)
{
	if (col >= 0 && col < scan->natts)
		return true;
	return col >= GH_AGG_INNER_COL0 && col < GH_AGG_INNER_COL0 + agg->join.ninner;
}

/* An insn range of agg: within ninsns, a qual program over the columns of
 * types (gh_qual_check: the scan's checks, factored). */
static gh_status
check_range(const gh_page_scan *scan, const gh_agg_prog *agg, int start, int len,
			const uint8_t *types, const char *what, int i)
{
	if (len == 0)
		return GH_OK;			/* none: its start means nothing */
	if (start < 0 || len < 0 || start > agg->ninsns || len > agg->ninsns - start)
		return bad(what, i);
	return gh_qual_check(scan, agg->insn + start, len, types, GH_AGG_INNER_COL0 + GH_AGG_MAX_INNER);
}

gh_status
gh_agg_prog_check(const gh_page_scan *scan, const gh_agg_prog *agg)
{
	if (!scan || !agg)
		return gh_error(GH_ERR_INVALID, "aggregation program: no program");
	GH_PAGE_CHECK(gh_page_scan_check(scan));
	if (agg->nkeys < 0 || agg->nkeys > GH_AGG_MAX_KEYS)
		return bad("nkeys out of range", agg->nkeys);
	if (agg->naggs < 1 || agg->naggs > GH_AGG_MAX_AGGS)
		return bad("naggs out of range", agg->naggs);

	/* the join: its columns, and the instructions it and the conditions use */
	const gh_agg_join &jn = agg->join;
	uint8_t		types[GH_AGG_INNER_COL0 + GH_AGG_MAX_INNER];

	if (jn.ninner < 0 || jn.ninner > GH_AGG_MAX_INNER)
		return bad("ninner out of range", jn.ninner);
	if (agg->ninsns < 0 || agg->ninsns > GH_AGG_MAX_INSNS)
		return bad("ninsns out of range", agg->ninsns);
	memset(types, GH_T_SKIP, sizeof(types));
	for (int c = 0; c < scan->natts; c++)
		types[c] = scan->col[c].type;
	for (int j = 0; j < jn.ninner; j++)
	{
		if (jn.inner_type[j] == GH_T_SKIP || jn.inner_type[j] > GH_T_BPCHAR)
			return bad("inner column of no type", j);
		types[GH_AGG_INNER_COL0 + j] = jn.inner_type[j];
	}
	if (jn.jq_len != 0 && jn.ninner == 0)
		return bad("a join qual without a join", 0);
	GH_PAGE_CHECK(gh_agg_star_check(scan, agg));
	GH_PAGE_CHECK(check_range(scan, agg, jn.jq_start, jn.jq_len, types,
							  "join qual outside the instructions", 0));

	int			bits = 0;

	for (int i = 0; i < agg->nkeys; i++)
	{
		const gh_page_key &k = agg->key[i];
		bool		text = k.conv == GH_AGG_KEY_BPCHAR || k.conv == GH_AGG_KEY_TEXT;
		int			kb = gh_agg_key_bits(agg, i);

		if (!col_ok(scan, agg, k.col))
			return bad("key column out of range", i);
		if (!is_key_conv_ok(k, kb, gh_agg_col_type(scan, agg, k.col)))
			return bad("key conversion does not fit its column", i);
		if (kb < 1 || (!text && (kb > 64 || agg->key_bytes[i] != 0)) || kb > GH_AGG_KEY_MAX_BITS)
			return bad("key width out of range", i);
		bits += kb;
	}
	for (int i = agg->nkeys; i < GH_AGG_MAX_KEYS; i++)
		if (agg->key_bytes[i] != 0)
			return bad("slot bytes of a key that is not there", i);
	if (bits > GH_AGG_KEY_MAX_BITS)
		return bad("packed key wider than GH_AGG_KEY_MAX_BITS", bits);
	for (int a = 0; a < agg->naggs; a++)
	{
		const gh_agg_spec &sp = agg->agg[a];

		if (sp.fn > GH_AGG_MAX || sp.expr > GH_AGG_E_INT_MUL)
			return bad("unknown aggregate or expression", a);
		if (sp.fn == GH_AGG_COUNT_STAR)
		{
			/* count(*) FILTER is not a CASE: the planner keeps it */
			if (!col_ok(scan, agg, sp.col))
				return bad("COUNT(*) needs any valid column index", a);
			if (sp.cond_len != 0 || sp.expr != GH_AGG_E_COL)
				return bad("COUNT(*) takes no condition or constant", a);
			continue;
		}
		if (sp.cond_len != 0)
		{
			if (sp.else_kind > GH_AGG_ELSE_ZERO)
				return bad("unknown else value", a);
			GH_PAGE_CHECK(check_range(scan, agg, sp.cond_start, sp.cond_len, types,
									  "condition outside the instructions", a));
		}

		uint8_t		t;

		if (sp.expr == GH_AGG_E_CONST)
		{
			t = sp.type;
			if (!is_int(t))
				return bad("a constant of a type that is not an integer", a);
		}
		else if (GH_AGG_E_IS_INT(sp.expr))
		{
			t = sp.type;
			if (!is_int(t) || !col_ok(scan, agg, sp.col) || !col_ok(scan, agg, sp.col2) ||
				!is_int(gh_agg_col_type(scan, agg, sp.col)) ||
				!is_int(gh_agg_col_type(scan, agg, sp.col2)))
				return bad("integer arithmetic takes two integer columns into an integer", a);
		}
		else
		{
			if (!col_ok(scan, agg, sp.col))
				return bad("aggregate column out of range", a);
			t = gh_agg_col_type(scan, agg, sp.col);
			if (t == GH_T_SKIP)
				return bad("aggregate column not deformed", a);
		}
		if (sp.fn == GH_AGG_COUNT)
			continue;
		if (sp.expr != GH_AGG_E_COL && sp.expr != GH_AGG_E_CONST && !GH_AGG_E_IS_INT(sp.expr))
		{
			if (!col_ok(scan, agg, sp.col2) || t != GH_T_NUMERIC ||
				gh_agg_col_type(scan, agg, sp.col2) != GH_T_NUMERIC)
				return bad("arithmetic takes two numeric columns", a);
			if (sp.expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS &&
				(!col_ok(scan, agg, sp.col3) ||
				 gh_agg_col_type(scan, agg, sp.col3) != GH_T_NUMERIC))
				return bad("arithmetic takes three numeric columns", a);
			if (sp.fn != GH_AGG_SUM && sp.fn != GH_AGG_AVG)
				return bad("arithmetic only under SUM and AVG", a);
		}
		if (sp.fn == GH_AGG_SUM || sp.fn == GH_AGG_AVG)
		{
			if (!is_int(t) && !gh_is_float(t) && t != GH_T_NUMERIC)
				return bad("SUM/AVG of this type stays on the CPU", a);
			if (t == GH_T_NUMERIC && sp.scale > GH_AGG_MAX_SCALE)
				return bad("accumulator scale out of range", a);
		}
		else if (!is_int(t) && !gh_is_float(t) && t != GH_T_DATE && t != GH_T_TIMESTAMP &&
				 t != GH_T_TIME)
			return bad("MIN/MAX of this type stays on the CPU", a);
		if (sp.else_kind == GH_AGG_ELSE_ZERO && sp.cond_len != 0 &&
			t != GH_T_NUMERIC && !is_int(t) && !gh_is_float(t))
			return bad("an else 0 of a type that has no zero", a);
	}
	return GH_OK;
}

gh_status
gh_agg_groups_init(gh_agg_groups *g, const gh_agg_prog *agg, uint64_t max_groups)
{
	if (!g || !agg || agg->naggs < 1 || agg->naggs > GH_AGG_MAX_AGGS)
		return gh_error(GH_ERR_INVALID, "aggregation: bad group set arguments");
	memset(g, 0, sizeof(*g));
	g->naggs = agg->naggs;
	g->max_groups = max_groups;
	g->key_words = (int16_t) gh_agg_key_words(agg);
	return GH_OK;
}

void
gh_agg_groups_free(gh_agg_groups *g)
{
	if (!g)
		return;
	free(g->keys);
	free(g->nulls);
	free(g->states);
	g->keys = nullptr;
	g->nulls = nullptr;
	g->states = nullptr;
	g->n_groups = 0;
	g->fallback_groups = 0;
}

uint64_t
gh_agg_group_bound(const gh_page_ref *refs, uint32_t n_pages, uint64_t max_groups,
				   uint64_t per_row)
{
	uint64_t	rows = 0;

	for (uint32_t p = 0; p < n_pages; p++)
		rows += refs[p].nvis == GH_PAGE_ALL_VISIBLE ? refs[p].maxoff : refs[p].nvis;
	/* pairs: rows times per_row, saturating */
	rows = per_row > 1 && rows > UINT64_MAX / per_row ? UINT64_MAX : rows * per_row;
	/* a group's index is 32 bits, UINT32_MAX marking none */
	return std::min(std::min(rows, max_groups), (uint64_t) UINT32_MAX - 1);
}

uint64_t
gh_agg_slots(uint64_t g)
{
	uint64_t	s = 16;

	while (s < 2 * (g + 1))
		s <<= 1;
	return s;
}

/* records in the first copy back: what most answers hold, a few kB */
static constexpr size_t FIRST_COPY_BYTES = 64 * 1024;

void
gh_agg_fold_lay(uint32_t n_pages, uint32_t n_visible, uint64_t bound, int na, int kw,
				size_t page_bytes, gh_agg_fold_layout *l)
{
	l->slots = gh_agg_slots(bound);
	l->rec = gh_agg_rec_head(kw) + sizeof(gh_agg_state) * na;
	l->first = std::min<uint64_t>(bound, std::max<size_t>(1, FIRST_COPY_BYTES / l->rec));
	/* inputs, the same offsets in the pinned staging and on the device */
	l->i_scan = 0;
	l->i_agg = l->i_scan + gh_align256(sizeof(gh_page_scan));
	l->i_refs = l->i_agg + gh_align256(sizeof(gh_agg_prog));
	l->i_vis = l->i_refs + gh_align256(sizeof(gh_page_ref) * n_pages);
	l->in_bytes = l->i_vis + gh_align256(2 * (size_t) n_visible);
	/* the answer: counts | refused | records, one range (its head copied back first) */
	l->o_cnt = l->in_bytes;
	l->o_ref = l->o_cnt + 4 * sizeof(unsigned long long);
	l->o_rec = l->o_cnt + gh_align256(4 * sizeof(unsigned long long) + n_pages);
	l->head_bytes = l->o_rec - l->o_cnt + l->first * l->rec;
	/* the table, then the pages when they are copied */
	l->o_ctrl = l->o_rec + gh_align256(l->rec * bound);
	l->o_keys = l->o_ctrl + gh_align256(4 * l->slots);
	l->o_nulls = l->o_keys + gh_align256(8 * kw * l->slots);
	l->o_group = l->o_nulls + gh_align256(l->slots);
	l->o_st = l->o_group + gh_align256(4 * l->slots);
	l->o_pages = l->o_st + gh_align256(sizeof(gh_agg_state) * bound * na);
	l->total = l->o_pages + gh_align256(page_bytes);
}

size_t
gh_agg_fold_device_bytes(uint32_t n_pages, uint32_t n_visible, uint64_t groups, int naggs,
						 int key_words)
{
	gh_agg_fold_layout l;

	gh_agg_fold_lay(n_pages, n_visible, std::min<uint64_t>(groups, (uint64_t) UINT32_MAX - 1),
					naggs, key_words, 0, &l);
	return l.o_pages;
}

gh_status
gh_agg_absorb(const gh_agg_host_table &t, const gh_page_scan *scan, const gh_agg_prog *agg,
			  gh_agg_groups *out)
{
	int			na = agg->naggs,
				kw = gh_agg_key_words(agg);
	std::vector<uint64_t> idx;

	for (uint64_t h = 0; h < t.slots; h++)
		if (t.ctrl[h] == GH_AGG_SLOT_READY && t.group[h] != UINT32_MAX)
			idx.push_back(h);
	gh_agg_by_kw(kw, [&](auto k) {
		constexpr int KW = decltype(k)::value;

		std::sort(idx.begin(), idx.end(), [&](uint64_t x, uint64_t y) {
			return gh_gkey_less<KW>(t.nulls[x], &t.keys[x * KW], t.nulls[y], &t.keys[y * KW]);
		});
	});

	gh_agg_groups req;

	memset(&req, 0, sizeof(req));
	req.naggs = (int16_t) na;
	req.n_groups = idx.size();
	req.key_words = (int16_t) kw;

	std::vector<uint64_t> keys(idx.size() * kw);
	std::vector<uint8_t> nulls(idx.size());
	std::vector<gh_agg_state> st(idx.size() * na);

	for (size_t i = 0; i < idx.size(); i++)
	{
		if (kw == 1)
			keys[i] = t.keys[idx[i]];
		else
			memcpy(&keys[i * kw], &t.keys[idx[i] * kw], sizeof(uint64_t) * kw);
		nulls[i] = t.nulls[idx[i]];
		for (int a = 0; a < na; a++)
		{
			st[i * na + a] = t.states[(uint64_t) t.group[idx[i]] * na + a];
			gh_agg_state_finish(agg->agg[a], gh_agg_in_type(scan, agg, agg->agg[a]), &st[i * na + a]);
		}
	}
	req.keys = keys.data();
	req.nulls = nulls.data();
	req.states = st.data();
	return merge_sets(out, &req, agg, scan, out);
}

gh_status
gh_agg_merge(gh_agg_groups *dst, const gh_agg_groups *src, const gh_page_scan *scan,
			 const gh_agg_prog *agg)
{
	if (!dst || !src || !agg || !scan || dst->naggs != agg->naggs || src->naggs != agg->naggs ||
		!gh_agg_groups_fit(dst, agg) || !gh_agg_groups_fit(src, agg))
		return gh_error(GH_ERR_INVALID, "aggregation merge: sets of another program");
	return merge_sets(dst, src, agg, scan, dst);
}

/* The three entries (dim: the join's, or NULL); the host twin reads pages
 * where they lie in either mode. */
static gh_status
page_agg(int device, const gh_page_scan *scan, const gh_agg_prog *agg, const gh_agg_dim *dim,
		 const gh_page_ref *refs, uint32_t n_pages, const uint8_t *page_data,
		 size_t page_data_bytes, const uint16_t *visible, uint32_t n_visible, uint8_t *refused,
		 gh_agg_groups *out, gh_agg_stats *stats, bool mapped)
{
	size_t		n_out = 0;

	GH_PAGE_CHECK(gh_agg_prog_check(scan, agg));
	if (!out || out->naggs != agg->naggs || !gh_agg_groups_fit(out, agg))
		return gh_error(GH_ERR_INVALID, "aggregation: the group set is not this program's");
	if (!dim && agg->join.ninner != 0)
		return gh_error(GH_ERR_INVALID, "aggregation: a program over a join needs its dimension");
	if (dim && (dim->ninner != agg->join.ninner || dim->device != device))
		return gh_error(GH_ERR_INVALID, "aggregation: the dimension (%d columns, device %d) is "
						"not the program's (%d columns, device %d)", dim->ninner, dim->device,
						agg->join.ninner, device);
	if (dim && dim->nparts != agg->star.ndims)
		return gh_error(GH_ERR_INVALID, "aggregation: a star of %d dimensions for a program "
						"of %d", dim->nparts, agg->star.ndims);
	if (dim && scan->nkeys < 1)
		return gh_error(GH_ERR_INVALID, "aggregation: a join without a join key");
	GH_PAGE_CHECK(gh_page_check_request(scan, refs, n_pages, page_data, page_data_bytes, visible,
										n_visible, nullptr, 0, &n_out, refused));
	if (device != GH_AGG_HOST)
		return gh_gpu_page_agg(device, scan, agg, dim, refs, n_pages, page_data, page_data_bytes,
							   visible, n_visible, refused, out, stats, mapped);

	gh_agg_host_table ht;
	gh_agg_stats s;
	unsigned long long n_groups = 0;
	uint32_t	overflow = 0;

	memset(&s, 0, sizeof(s));

	/* a table for the request's groups: max_groups, or its pairs if fewer */
	uint64_t	bound = gh_agg_group_bound(refs, n_pages, out->max_groups,
										   dim ? dim->max_dup : 1);

	ht.slots = gh_agg_slots(bound);
	ht.ctrl.assign(ht.slots, GH_AGG_SLOT_EMPTY);
	ht.keys.assign(ht.slots * gh_agg_key_words(agg), 0);
	ht.nulls.assign(ht.slots, 0);
	ht.group.assign(ht.slots, UINT32_MAX);
	ht.states.resize(bound * agg->naggs);

	gh_agg_table t;

	t.ctrl = ht.ctrl.data();
	t.keys = ht.keys.data();
	t.nulls = ht.nulls.data();
	t.group = ht.group.data();
	t.states = ht.states.data();
	t.mask = ht.slots - 1;
	t.n_groups = &n_groups;
	t.overflow = &overflow;
	t.max_groups = bound;
	t.naggs = agg->naggs;
	for (uint32_t p = 0; p < n_pages; p++)
	{
		const uint8_t *page = gh_page_src(page_data, refs[p]);

		refused[p] = !(dim ? gh_agg_fold_page_join(scan, agg, dim, page, refs[p], visible, t, &s)
					   : gh_agg_by_kw(gh_agg_key_words(agg), [&](auto k) {
						   return fold_page<decltype(k)::value>(scan, agg, page, refs[p], visible,
																t, &s);
					   }));
		s.refused += refused[p];
	}
	s.pages = n_pages;
	if (stats)
		*stats = s;
	if (overflow)
		return gh_error(GH_ERR_OUTPUT_FULL, "aggregation: more than %llu groups in the request",
						(unsigned long long) out->max_groups);
	ht.n_groups = n_groups;
	return gh_agg_absorb(ht, scan, agg, out);
}

gh_status
gh_page_agg(int device, const gh_page_scan *scan, const gh_agg_prog *agg, const gh_page_ref *refs,
			uint32_t n_pages, const uint8_t *page_data, size_t page_data_bytes,
			const uint16_t *visible, uint32_t n_visible, uint8_t *refused, gh_agg_groups *out,
			gh_agg_stats *stats)
{
	return page_agg(device, scan, agg, nullptr, refs, n_pages, page_data, page_data_bytes,
					visible, n_visible, refused, out, stats, false);
}

gh_status
gh_page_agg_mapped(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
				   const gh_page_ref *refs, uint32_t n_pages, const uint8_t *page_data,
				   size_t page_data_bytes, const uint16_t *visible, uint32_t n_visible,
				   uint8_t *refused, gh_agg_groups *out, gh_agg_stats *stats)
{
	return page_agg(device, scan, agg, nullptr, refs, n_pages, page_data, page_data_bytes,
					visible, n_visible, refused, out, stats, true);
}

gh_status
gh_page_agg_join_mapped(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
						const gh_agg_dim *dim, const gh_page_ref *refs, uint32_t n_pages,
						const uint8_t *page_data, size_t page_data_bytes,
						const uint16_t *visible, uint32_t n_visible, uint8_t *refused,
						gh_agg_groups *out, gh_agg_stats *stats)
{
	if (!dim)
		return gh_error(GH_ERR_INVALID, "aggregation over a join: no dimension");
	return page_agg(device, scan, agg, dim, refs, n_pages, page_data, page_data_bytes, visible,
					n_visible, refused, out, stats, true);
}
