/*
 * host_linear.cpp
 *		Linear probing on the host twin: keys inserted in index order.  (The
 *		GPU inserts concurrently, so its layout may differ; lookups agree.)
 */
#include "host_build.h"

using namespace gh_host;

namespace
{

struct lin_step
{
	gh_table   *t;
	gh_distinct d;

	gh_status	prepare(const gh_lin_view &v)
	{
		uint64_t	cap = v.mask + 1;

		/* the table holds it from here: gh_free frees it on failure */
		t->h_slots = (gh_slot *) take_zeroed(t, cap * sizeof(gh_slot));
		if (!t->h_slots)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for linear table (%llu slots)",
							(unsigned long long) cap);
		return GH_OK;
	}

	bool		cancelled()
	{
		return gh_host::cancelled();
	}

	gh_status	attempt(gh_lin_view &v, gh_attempt_result *res)
	{
		gh_slot    *slots = t->h_slots;

		v.slots = slots;
		for (uint32_t i = 0; i < d.n; i++)
		{
			uint64_t	j = gh_lin_home(v, d.keys[i]);

			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();
			while (slots[j].cnt != 0)
				j = (j + 1) & v.mask;
			slots[j].key = d.keys[i];
			slots[j].off = d.off[i];
			slots[j].cnt = d.cnt[i];
		}
		res->placed = true;
		res->rounds = 1;
		res->n_slots = v.mask + 1;
		return GH_OK;
	}
};

}								/* namespace */

gh_status
gh_host_build_linear(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	lin_step	step = {t, d};

	return gh_build_attempts<gh_lin_scheme>(t, &t->lin, step, d.n, seed, lf);
}
