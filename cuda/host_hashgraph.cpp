/*
 * host_hashgraph.cpp
 *		HashGraph on the host twin: the GPU build's steps (gpu_hashgraph.cu)
 *		one after another.  The distinct keys arrive sorted by their mixed
 *		key, hence grouped by bucket (schemes/hashgraph.cuh): the slots are
 *		the keys in that order, the offsets a histogram and its exclusive
 *		scan, so both devices build the same bytes.
 */
#include "host_build.h"

using namespace gh_host;

namespace
{

/* hk: the distinct keys' mixed values, ascending, with their rowid ranges. */
struct hg_step
{
	gh_table   *t;
	gh_distinct d;

	gh_status	prepare(const gh_hg_view &)
	{
		return GH_OK;
	}

	bool		cancelled()
	{
		return gh_host::cancelled();
	}

	gh_status	attempt(gh_hg_view &v, gh_attempt_result *res)
	{
		const uint64_t *hk = d.keys;
		uint32_t	u = d.n;
		uint32_t   *offs = (uint32_t *) take_zeroed(t, gh_hg_offs_bytes(v));

		if (!offs)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for HashGraph offsets (%u buckets)",
							v.n_buckets);
		t->h_rec = offs;		/* gh_free frees it on failure */

		gh_slot    *slots = (gh_slot *) take(t, (size_t) u * sizeof(gh_slot));

		if (!slots)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for HashGraph slots (%u keys)", u);
		t->h_slots = slots;

		/* the sizes one place up, so that the scan below leaves offs[b] */
		for (uint32_t i = 0; i < u; i++)
		{
			if (cancelled_every((size_t) i + 1, ROW_POLL))
				return cancel_error();
			offs[gh_hg_bucket_of(hk[i], v.n_buckets) + 1]++;

			gh_slot    *s = &slots[i];

			s->key = gh_fmix64_inv(hk[i]) ^ v.seed_key;
			s->off = d.off[i];
			s->cnt = d.cnt[i];
		}

		uint32_t	longest = 0;

		for (uint64_t b = 1; b <= v.n_buckets; b++)
		{
			if (cancelled_every(b, ROW_POLL))
				return cancel_error();
			longest = offs[b] > longest ? offs[b] : longest;
			offs[b] += offs[b - 1];
		}
		v.offs = offs;
		v.slots = slots;
		res->placed = longest <= GH_HG_MAX_BUCKET;
		res->rounds = (int) (longest < INT32_MAX ? longest : INT32_MAX);
		res->n_slots = u;
		return GH_OK;
	}
};

}								/* namespace */

gh_status
gh_host_build_hashgraph(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	hg_step		step = {t, d};

	return gh_build_attempts<gh_hg_scheme>(t, &t->hg, step, d.n, seed, lf);
}
