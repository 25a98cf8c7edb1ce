/*
 * host_agg_set.cpp
 *		Resident groups' host side: the set's creation, cap and growth, the
 *		HAVING terms' check, the host twin (agg_set.cuh in loops over host
 *		arrays) and the choice of device.  gpu_agg_set.cu is the GPU's.
 *
 * Both sides answer a finish the same way: the survivors sorted by (null
 * mask, key) with bit-identical exact states, whatever order the groups
 * were claimed in.
 */
#include "agg_set_internal.h"
#include "agg_set.cuh"

#include <algorithm>
#include <new>
#include <stdlib.h>
#include <string.h>

size_t
gh_agg_set_size(int naggs, int kw, uint64_t cap)
{
	return (size_t) cap * (sizeof(uint64_t) * kw + 1 + sizeof(gh_agg_state) * naggs) +
		(size_t) gh_agg_slots(cap) * sizeof(uint32_t);
}

/* The host twin's arrays rebuilt for cap groups, the groups kept. */
static gh_status
host_grow(gh_agg_set *set, uint64_t cap)
{
	uint64_t	slots = gh_agg_slots(cap);

	set->h_keys.resize(cap * set->kw);
	set->h_nulls.resize(cap);
	set->h_states.resize(cap * set->agg.naggs);
	set->h_slot.assign(slots, GH_SET_EMPTY);

	gh_set_view v;

	v.slot = set->h_slot.data();
	v.mask = slots - 1;
	v.keys = set->h_keys.data();
	v.nulls = set->h_nulls.data();
	for (uint64_t g = 0; g < set->n_groups; g++)
	{
		gh_agg_by_kw(set->kw, [&](auto k) { gh_set_reinsert<decltype(k)::value>(v, g); });
	}
	set->cap = cap;
	set->slots = slots;
	return GH_OK;
}

gh_status
gh_agg_set_create(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
				  size_t max_bytes, gh_agg_set **out)
{
	*out = nullptr;
	gh_status	st = gh_agg_prog_check(scan, agg);

	if (st != GH_OK)
		return st;

	gh_agg_set *set = new (std::nothrow) gh_agg_set();

	if (!set)
		return gh_error(GH_ERR_HOST_MEMORY, "resident groups: no memory for a set");
	set->device = device;
	set->scan = *scan;
	set->agg = *agg;
	set->kw = gh_agg_key_words(agg);
	for (int a = 0; a < agg->naggs; a++)
		set->in_type[a] = gh_agg_in_type(scan, agg, agg->agg[a]);
	set->max_bytes = max_bytes;
	*out = set;
	return GH_OK;
}

void
gh_agg_set_free(gh_agg_set *set)
{
	if (!set)
		return;
	if (set->device != GH_AGG_HOST)
		gh_gpu_agg_set_release(set);
	delete set;
}

int
gh_agg_set_device(const gh_agg_set *set)
{
	return set->device;
}

int
gh_agg_set_naggs(const gh_agg_set *set)
{
	return set->agg.naggs;
}

uint64_t
gh_agg_set_groups(const gh_agg_set *set)
{
	return set->n_groups;
}

size_t
gh_agg_set_bytes(const gh_agg_set *set)
{
	return set->bytes;
}

/*
 * Room for `more` new groups: the arrays grown (doubled at least, so that
 * a scan's merges rehash a group a few times only) within the cap.
 */
static gh_status
make_room(gh_agg_set *set, uint64_t more)
{
	uint64_t	need = set->n_groups + more;
	uint64_t	cap;
	int			na = set->agg.naggs;

	if (need <= set->cap)
		return GH_OK;
	if (need >= UINT32_MAX - 2)
		return gh_error(GH_ERR_OUTPUT_FULL, "resident groups: more than 2^32 groups");
	cap = std::max<uint64_t>(std::max<uint64_t>(need, 2 * set->cap), 1024);
	cap = std::min<uint64_t>(cap, UINT32_MAX - 2);
	if (set->max_bytes > 0 && gh_agg_set_size(na, set->kw, cap) > set->max_bytes)
		cap = need;
	if (set->max_bytes > 0 && gh_agg_set_size(na, set->kw, cap) > set->max_bytes)
		return gh_error(GH_ERR_OUTPUT_FULL, "resident groups: %llu groups pass the set's cap "
						"of %zu bytes", (unsigned long long) need, set->max_bytes);

	gh_status	st = set->device == GH_AGG_HOST ? host_grow(set, cap) :
		gh_gpu_agg_set_grow(set, cap);

	if (st == GH_OK)
		set->bytes = gh_agg_set_size(na, set->kw, cap);
	else if (st == GH_ERR_GPU_MEMORY || st == GH_ERR_HOST_MEMORY)
		return gh_error(GH_ERR_OUTPUT_FULL, "resident groups: no memory for %llu groups",
						(unsigned long long) cap);
	return st;
}

gh_status
gh_agg_set_merge(gh_agg_set *set, const gh_agg_groups *src)
{
	int			na = set->agg.naggs;

	if (!src || src->naggs != na || (src->n_groups > 0 && gh_agg_groups_key_words(src) != set->kw))
		return gh_error(GH_ERR_INVALID, "resident groups: a merge of another program's groups");
	if (src->n_groups == 0)
		return GH_OK;

	gh_status	st = make_room(set, src->n_groups);

	if (st != GH_OK)
		return st;
	if (set->device != GH_AGG_HOST)
		return gh_gpu_agg_set_merge(set, src);

	gh_set_view v;

	v.slot = set->h_slot.data();
	v.mask = set->slots - 1;
	v.keys = set->h_keys.data();
	v.nulls = set->h_nulls.data();
	v.states = set->h_states.data();
	v.n_groups = &set->n_groups;
	v.naggs = na;
	for (uint64_t i = 0; i < src->n_groups; i++)
	{
		bool		fresh;
		const uint64_t *key = src->keys + i * set->kw;
		uint64_t	g = gh_agg_by_kw(set->kw, [&](auto k) {
			return gh_set_find<decltype(k)::value>(v, key, src->nulls[i], &fresh);
		});
		gh_agg_state *d = &v.states[g * na];
		const gh_agg_state *s = &src->states[i * na];

		for (int a = 0; a < na; a++)
		{
			if (fresh)
				d[a] = s[a];
			else
				gh_agg_combine(set->agg.agg[a], set->in_type[a], &d[a], &s[a]);
		}
	}
	return GH_OK;
}

gh_status
gh_agg_having_check(const gh_page_scan *scan, const gh_agg_prog *agg, const gh_agg_having *h)
{
	if (!h)
		return GH_OK;
	if (h->nterms < 0 || h->nterms > GH_AGG_MAX_HAVING)
		return gh_error(GH_ERR_INVALID, "HAVING terms: %d of at most %d", h->nterms,
						GH_AGG_MAX_HAVING);
	for (int i = 0; i < h->nterms; i++)
	{
		const gh_agg_having_term &x = h->term[i];

		if (x.agg < 0 || x.agg >= agg->naggs || x.op > GH_HV_NE)
			return gh_error(GH_ERR_INVALID, "HAVING term %d: bad aggregate or operator", i);

		const gh_agg_spec &sp = agg->agg[x.agg];
		uint8_t		t = gh_agg_in_type(scan, agg, sp);
		bool		ok;

		switch (x.kind)
		{
			case GH_HV_COUNT:
				ok = sp.fn == GH_AGG_COUNT || sp.fn == GH_AGG_COUNT_STAR;
				break;
			case GH_HV_SUM:
				ok = sp.fn == GH_AGG_SUM && !gh_is_float(t);
				break;
			case GH_HV_MINMAX:
				ok = (sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX) && !gh_is_float(t) &&
					t != GH_T_NUMERIC;
				break;
			default:
				ok = false;
		}
		if (!ok)
			return gh_error(GH_ERR_INVALID, "HAVING term %d: not exact over aggregate %d", i,
							x.agg);
	}
	return GH_OK;
}

gh_status
gh_agg_set_alloc_out(const gh_agg_set *set, uint64_t n, gh_agg_groups *out)
{
	int			na = set->agg.naggs,
				kw = set->kw;

	gh_agg_groups_free(out);
	out->key_words = (int16_t) kw;
	out->keys = (uint64_t *) malloc(sizeof(uint64_t) * kw * (n ? n : 1));
	out->nulls = (uint8_t *) malloc(n ? n : 1);
	out->states = (gh_agg_state *) malloc(sizeof(gh_agg_state) * (n ? n : 1) * na);
	if (!out->keys || !out->nulls || !out->states)
	{
		gh_agg_groups_free(out);
		return gh_error(GH_ERR_HOST_MEMORY, "resident groups: no memory for %llu groups",
						(unsigned long long) n);
	}
	out->n_groups = 0;
	out->fallback_groups = 0;
	return GH_OK;
}

void
gh_agg_set_out_filled(const gh_agg_set *set, gh_agg_groups *out, uint64_t n)
{
	int			na = set->agg.naggs;
	uint64_t	fb = 0;

	for (uint64_t i = 0; i < n; i++)
	{
		bool		f = false;

		for (int a = 0; a < na; a++)
			f |= (out->states[i * na + a].flags & (GH_AGG_S_FALLBACK | GH_AGG_S_FLOAT_OVERFLOW)) != 0;
		fb += f;
	}
	out->n_groups = n;
	out->fallback_groups = fb;
}

gh_status
gh_agg_set_output(const gh_agg_set *set, const uint64_t *keys, const uint8_t *nulls,
				  const gh_agg_state *states, uint64_t n, gh_agg_groups *out)
{
	int			na = set->agg.naggs,
				kw = set->kw;
	std::vector<uint64_t> idx(n);

	for (uint64_t i = 0; i < n; i++)
		idx[i] = i;
	gh_agg_by_kw(kw, [&](auto k) {
		constexpr int KW = decltype(k)::value;

		std::sort(idx.begin(), idx.end(), [&](uint64_t x, uint64_t y) {
			return gh_gkey_less<KW>(nulls[x], keys + x * KW, nulls[y], keys + y * KW);
		});
	});
	gh_status	st = gh_agg_set_alloc_out(set, n, out);

	if (st != GH_OK)
		return st;
	for (uint64_t i = 0; i < n; i++)
	{
		memcpy(out->keys + i * kw, keys + idx[i] * kw, sizeof(uint64_t) * kw);
		out->nulls[i] = nulls[idx[i]];
		memcpy(&out->states[i * na], &states[idx[i] * na], sizeof(gh_agg_state) * na);
	}
	gh_agg_set_out_filled(set, out, n);
	return GH_OK;
}

gh_status
gh_agg_set_finish(gh_agg_set *set, const gh_agg_having *having, gh_agg_groups *out,
				  uint64_t *removed)
{
	int			na = set->agg.naggs;

	*removed = 0;
	if (!out || out->naggs != na)
		return gh_error(GH_ERR_INVALID, "resident groups: the answer is not the set's program's");

	gh_status	st = gh_agg_having_check(&set->scan, &set->agg, having);

	if (st != GH_OK)
		return st;
	if (having && having->nterms == 0)
		having = nullptr;
	if (set->device != GH_AGG_HOST)
		return gh_gpu_agg_set_finish(set, having, out, removed);

	std::vector<uint64_t> keys;
	std::vector<uint8_t> nulls;
	std::vector<gh_agg_state> states;

	for (uint64_t g = 0; g < set->n_groups; g++)
	{
		const gh_agg_state *s = &set->h_states[g * na];

		if (having && !gh_having_keeps(having, s, na))
		{
			(*removed)++;
			continue;
		}
		keys.insert(keys.end(), set->h_keys.begin() + g * set->kw,
					set->h_keys.begin() + (g + 1) * set->kw);
		nulls.push_back(set->h_nulls[g]);
		states.insert(states.end(), s, s + na);
	}
	return gh_agg_set_output(set, keys.data(), nulls.data(), states.data(), nulls.size(), out);
}
