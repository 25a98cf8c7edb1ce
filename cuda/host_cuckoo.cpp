/*
 * host_cuckoo.cpp
 *		Bucketed cuckoo on the host twin: the GPU's insert (gpu_cuckoo.cu)
 *		run one key at a time in index order, over 32-bit item numbers
 *		(key index + 1, 0 = empty), then the slots written from the items.
 *		The GPU inserts concurrently, so its layout may differ; lookups
 *		agree.
 */
#include "host_build.h"

#include <string.h>

using namespace gh_host;

namespace
{

struct cuckoo_step
{
	gh_table   *t;
	gh_distinct d;

	gh_status	prepare(const gh_cuckoo_view &)
	{
		return GH_OK;
	}

	bool		cancelled()
	{
		return gh_host::cancelled();
	}

	/* Puts x in the bucket's first empty slot; false when it is full. */
	static bool put(uint32_t *bk, uint32_t x)
	{
		for (int i = 0; i < GH_CUCKOO_B; i++)
			if (bk[i] == 0)
			{
				bk[i] = x;
				return true;
			}
		return false;
	}

	/* Inserts item x (its key at d.keys[x - 1]); false when the stash is
	 * full. */
	bool		insert(const gh_cuckoo_view &v, uint32_t *items, uint32_t x, uint32_t *n_stash)
	{
		uint64_t	key = d.keys[x - 1];
		uint32_t	b = gh_cuckoo_bucket(v, 0, key);

		for (uint32_t chain = 0;; chain++)
		{
			uint32_t   *bk = items + (uint64_t) b * GH_CUCKOO_B;

			if (put(bk, x))
				return true;
			if (chain == GH_CUCKOO_MAX_CHAIN)
			{
				/* the first of its buckets with room (all before it are
				 * full), else the stash: a stashed key's buckets are full */
				for (int j = 0; j < GH_CUCKOO_H; j++)
					if (put(items + (uint64_t) gh_cuckoo_bucket(v, j, key) * GH_CUCKOO_B, x))
						return true;
				if (*n_stash == GH_CUCKOO_STASH)
					return false;
				items[(uint64_t) v.n_buckets * GH_CUCKOO_B + (*n_stash)++] = x;
				return true;
			}

			uint32_t   *vp = &bk[gh_cuckoo_victim(x, chain)];
			uint32_t	y = *vp;

			*vp = x;
			x = y;
			key = d.keys[x - 1];
			b = gh_cuckoo_next_bucket(v, key, b);
		}
	}

	gh_status	attempt(gh_cuckoo_view &v, gh_attempt_result *res)
	{
		uint64_t	n_slots = gh_cuckoo_n_slots(v);
		scratch		s;
		uint32_t   *items = (uint32_t *) s.get(n_slots * 4, true);

		if (!items)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for cuckoo items (%llu slots)",
							(unsigned long long) n_slots);

		uint32_t	n_stash = 0;

		for (uint32_t i = 0; i < d.n; i++)
		{
			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();
			if (!insert(v, items, i + 1, &n_stash))
				return GH_OK;	/* stash full: new seeds, more buckets */
		}

		gh_slot    *slots = (gh_slot *) take_zeroed(t, n_slots * sizeof(gh_slot));

		if (!slots)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for cuckoo table (%llu slots)",
							(unsigned long long) n_slots);
		/* the table holds it from here: gh_free frees it on failure */
		t->h_slots = slots;
		for (uint64_t p = 0; p < n_slots; p++)
		{
			uint32_t	x = items[p];

			if (cancelled_every(p + 1, ROW_POLL))
				return cancel_error();
			if (x == 0)
				continue;
			slots[p].key = d.keys[x - 1];
			slots[p].off = d.off[x - 1];
			slots[p].cnt = d.cnt[x - 1];
		}
		v.slots = slots;
		v.n_stash = n_stash;
		res->placed = true;
		res->rounds = 1;
		res->n_slots = n_slots;
		return GH_OK;
	}
};

}								/* namespace */

gh_status
gh_host_build_cuckoo(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	cuckoo_step step = {t, d};

	return gh_build_attempts<gh_cuckoo_scheme>(t, &t->cuckoo, step, d.n, seed, lf);
}
