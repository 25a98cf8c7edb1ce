/*
 * schemes/linear.cuh
 *		Linear probing over the distinct keys, the in-project baseline: view,
 *		lookup, geometry and (single-)attempt policy.
 */
#ifndef GPUHASH_SCHEME_LINEAR_CUH
#define GPUHASH_SCHEME_LINEAR_CUH

#include "../hash.cuh"

#include <string.h>

/* ---------------------------------------------------------------------
 * Linear probing over distinct keys: the in-project baseline.
 * capacity is a power of two with load <= 0.5, so a run always ends in an
 * empty slot (cnt == 0).
 * --------------------------------------------------------------------- */

struct gh_lin_view
{
	const gh_slot *slots;
	uint64_t	mask;
	uint64_t	seed;
};

GH_HD uint64_t
gh_lin_home(const gh_lin_view &v, uint64_t key)
{
	return gh_fmix64(key ^ v.seed) & v.mask;
}

GH_HD gh_hit
gh_lin_lookup(const gh_lin_view &v, uint64_t key)
{
	gh_hit		h = {0, 0};

	for (uint64_t i = gh_lin_home(v, key);; i = (i + 1) & v.mask)
	{
		gh_slot		s = v.slots[i];

		if (s.cnt == 0)
			break;
		if (s.key == key)
		{
			h.off = s.off;
			h.cnt = s.cnt;
			break;
		}
	}
	return h;
}

GH_HD uint64_t
gh_lin_capacity_for(uint64_t n_distinct, double load_factor)
{
	uint64_t	want = (uint64_t) ((double) n_distinct / load_factor) + 1;
	uint64_t	cap = 2;

	while (cap < want || cap < 2 * n_distinct)
		cap <<= 1;
	return cap;
}

/* Attempt policy: one attempt, which cannot fail (capacity >= 2 keys). */
struct gh_lin_scheme
{
	typedef gh_lin_view view;
	static constexpr const char label[] = "linear";
	static constexpr int max_attempts = 1;

	static bool init(view *v, uint64_t, uint64_t u, double lf)
	{
		memset(v, 0, sizeof(*v));
		v->mask = gh_lin_capacity_for(u, lf) - 1;
		return true;
	}
	static bool draw(view *v, uint64_t seed, int attempt, uint64_t, double)
	{
		uint64_t	st = gh_attempt_seed(seed, attempt);

		v->seed = gh_splitmix64(&st);
		return true;
	}
	static uint64_t cells(const view &)
	{
		return 0;
	}
};

#endif							/* GPUHASH_SCHEME_LINEAR_CUH */
