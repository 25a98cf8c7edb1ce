/*
 * gpu_linear.cu
 *		Linear probing over the distinct keys: the in-project baseline the
 *		perfect-hash schemes are measured against.  Keys are distinct here,
 *		so an insert only claims an empty slot: a CAS of the slot's
 *		(off, cnt) word from 0 (empty; cnt >= 1 for every key) to its value.
 */
#include "build_driver.h"
#include "gpu_probe.cuh"

namespace
{

__global__ void
insert(gh_lin_view v, const uint64_t *__restrict__ dk, const uint32_t *__restrict__ doff,
	   const uint32_t *__restrict__ dcnt, uint32_t u, gh_slot *slots)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= u)
		return;

	uint64_t	key = dk[i];
	unsigned long long payload = (unsigned long long) doff[i] | ((unsigned long long) dcnt[i] << 32);

	for (uint64_t j = gh_lin_home(v, key);; j = (j + 1) & v.mask)
	{
		unsigned long long *word = (unsigned long long *) &slots[j].off;

		if (atomicCAS(word, 0ULL, payload) == 0ULL)
		{
			slots[j].key = key;
			return;
		}
	}
}

struct lin_step
{
	gh_table   *t;
	gh_distinct d;

	gh_status	prepare(const gh_lin_view &v)
	{
		gh_gpu_state *g = t->gpu;
		uint64_t	cap = v.mask + 1;

		GH_CHECK(gh_dmalloc(t, (void **) &g->d_slots, cap * sizeof(gh_slot)));
		GH_TRY(cudaMemsetAsync(g->d_slots, 0, cap * sizeof(gh_slot), g->stream));
		return GH_OK;
	}

	/* a GPU build is short: asked once, before it starts (gh_build) */
	bool		cancelled()
	{
		return false;
	}

	gh_status	attempt(gh_lin_view &v, gh_attempt_result *res)
	{
		gh_gpu_state *g = t->gpu;

		v.slots = g->d_slots;
		if (d.n > 0)
		{
			insert<<<gh_blocks(d.n, 256), 256, 0, g->stream>>>(v, d.keys, d.off, d.cnt, d.n, g->d_slots);
			GH_LAUNCHED();
		}
		res->placed = true;
		res->rounds = 1;
		res->n_slots = v.mask + 1;
		return GH_OK;
	}
};

struct lin_look
{
	__device__ gh_hit operator() (const gh_lin_view &v, uint64_t key) const
	{
		return gh_lin_lookup(v, key);
	}
};

}								/* namespace */

gh_status
gh_gpu_build_linear(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	lin_step	step = {t, d};

	return gh_build_attempts<gh_lin_scheme>(t, &t->lin, step, d.n, seed, lf);
}

gh_status
gh_gpu_lookup_linear(gh_table *t, cudaStream_t st, const uint64_t *d_keys, size_t n, gh_range *d_ranges,
					 uint32_t *d_counts)
{
	return gh_launch_scalar_lookup<gh_lin_view, lin_look>(st, t->lin, d_keys, n, d_ranges, d_counts);
}
